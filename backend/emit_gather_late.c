/* emit_gather_late.c: a gather's P06 that follows its copy's runs spilled into the next
 * phase (docs/backend.md "Sends spilled into later phases"). A received copy that only its
 * CADD's gather reads is gathered from the receive area as soon as it lands, in Soma2 of its
 * arrival phase (emit_early.c); a run into it that the sender's header table cannot hold
 * lands in the next phase, and the gather then waits for it: its P06 goes to Soma2 of that
 * phase when that slot is free and the CADD comes after it (emit_route_spill.c keeps the
 * copy's area in the receive area alive until then). */
#include "backend/emit_internal.h"

/* The gather whose P06 reads copy cp in Soma2 of phase p, or NULL. */
static EGather *gather_at(Emit *e, const ECopy *cp, int32_t p)
{
    for (size_t i = 0; i < e->n_gathers; i++) {
        EGather *g = &e->gathers[i];
        if (g->i >= 0 && g->phase == p && g->slot == MAP_PI_SOMA2 && &e->copies[g->copy] == cp)
            return g;
    }
    return NULL;
}

bool emit_gather_later(Emit *e, const ECopy *cp, int32_t p, bool commit)
{
    uint32_t k = cp->core;
    ECore *c = &e->cores[k];
    int32_t q = p + 1;
    EGather *g = gather_at(e, cp, p);
    if (!g || c->ph[p].soma[1].kind != SLOT_GATHER || q >= c->n_phases ||
        emit_soma_taken(e, k, q, MAP_PI_SOMA2) || e->phase_of[g->cadd] <= q ||
        e->core_of[g->cadd] != k)
        return false;
    /* the gathered area it writes lives from before p to the CADD */
    if (g->req != EMIT_NONE && (c->reqs[g->req].first > p || c->reqs[g->req].last < q))
        return false;
    if (!commit)
        return true;
    if (!emit_soma2_next(e, k, p))
        return false;
    g->phase = q;
    return true;
}
