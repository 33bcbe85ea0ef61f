/* emit_gather_pair.c: two inputs of a gather that land whole in one phase, moved out of the
 * receive area by one primitive (docs/backend.md "Gathering in place"). When a CADD's inputs
 * find too few Soma slots for their P06s (emit_gather.c: an input that cannot lie in its
 * part finds none), two of its inputs landing whole in the same phase, each of which may lie
 * in its part once moved out of the receive area (emit_gather_may_lie), land back to back in
 * one landing area instead: the two runs of a spread part (EPart, emit_spread.c), which one
 * P26 splits into their parts of the gathered area, in Soma2 of that phase, else in Soma1 of
 * the next (before that phase's router lands more). Neither needs a P06 of its own: one slot
 * for two inputs, and both leave the receive area before the next phase's arrivals, where
 * the mapper counts them gone (it plans each gathered input's P06 right after it lands,
 * mapper/gather_wait.h, also in a Soma2 a spread part's move takes).
 */
#include "backend/emit_internal.h"

enum { ROW_WORDS = 4 };

/* Whether the input gather entry g reads may land beside another as one run of a part: a
 * copy received whole in one phase that would move out of the receive area in Soma2 of it
 * (ECopy.movable), may join a part so (emit_joins_part), and may lie in its part once moved
 * out. */
static bool pairable(Emit *e, const EGather *g)
{
    const ECopy *cp = &e->copies[g->copy];
    return cp->movable && !cp->spread && cp->land == EMIT_NONE && cp->req != EMIT_NONE &&
           e->cores[cp->core].reqs[cp->req].kind == ALLOC_RECV && emit_joins_part(e, cp, true) &&
           emit_gather_may_lie(e, g, true);
}

/* The Soma slot of core k a part landing in phase p moves out in, before the CADD's Axon in
 * phase pc: Soma2 of p, else Soma1 of p + 1, when free; false when neither is. */
static bool pair_slot(const Emit *e, uint32_t k, int32_t p, int32_t pc, int32_t *mp,
                      int32_t *ms)
{
    if (p < pc && !emit_soma_taken(e, k, p, MAP_PI_SOMA2)) {
        *mp = p;
        *ms = MAP_PI_SOMA2;
        return true;
    }
    if (p + 1 < pc && p + 1 < e->cores[k].n_phases &&
        !emit_soma_taken(e, k, p + 1, MAP_PI_SOMA1)) {
        *mp = p + 1;
        *ms = MAP_PI_SOMA1;
        return true;
    }
    return false;
}

/* Copies a and b (landing whole in one phase) land as the two runs of one part, moved out in
 * Soma slot (mp, ms): each becomes a spread copy of that one part, its area in the data
 * banks from that phase on (emit_gather_pending lays it in its part of the gathered area). */
static Status pair(Emit *e, uint32_t a, uint32_t b, int32_t mp, int32_t ms)
{
    ECopy *ca = &e->copies[a], *cb = &e->copies[b];
    uint32_t k = ca->core;
    int32_t p = ca->move_phase;
    int64_t na = ca->box.n[0] * ca->box.n[1], nb = cb->box.n[0] * cb->box.n[1];
    int64_t words = na * emit_spread_unit(ca) + nb * emit_spread_unit(cb);
    EPart *np = emit_grow(e, e->parts, &e->cap_parts, e->n_parts, sizeof *e->parts);
    if (!np)
        return ST_RUNTIME;
    e->parts = np;
    EPart part = {k, p, {a, b}, {0, 0}, {na, nb}, EMIT_NONE, mp, ms, 0};
    part.land = emit_request(e, k, words, ROW_WORDS, p, mp, ALLOC_RECV,
                             e->g->blocks[ca->block]->id);
    if (part.land == EMIT_NONE)
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    e->parts[e->n_parts++] = part;
    Status st = emit_slot_take(e, k, mp, ms, SLOT_PART, ca->block);
    for (int i = 0; i < 2 && st == ST_OK; i++) {
        ECopy *cp = i ? cb : ca;
        AllocReq *r = &e->cores[k].reqs[cp->req];
        cp->spread = true;
        cp->movable = false;
        r->kind = ALLOC_DATA;
        if (p < r->first)
            r->first = cp->first = p;
    }
    return st;
}

Status emit_gather_pairs(Emit *e, const EGather *g, uint32_t n, int32_t pc)
{
    for (uint32_t i = 0; i < n; i++) {
        const ECopy *ci = &e->copies[g[i].copy];
        if (!pairable(e, &g[i]))
            continue;
        for (uint32_t j = i + 1; j < n; j++) {
            const ECopy *cj = &e->copies[g[j].copy];
            int32_t mp, ms;
            if (g[j].copy == g[i].copy || cj->core != ci->core ||
                cj->move_phase != ci->move_phase || !pairable(e, &g[j]) ||
                !pair_slot(e, ci->core, ci->move_phase, pc, &mp, &ms))
                continue;
            Status st = pair(e, g[i].copy, g[j].copy, mp, ms);
            if (st != ST_OK)
                return st;
            break;
        }
    }
    return ST_OK;
}
