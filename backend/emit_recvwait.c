/* emit_recvwait.c: the receive area a copy waiting for its gather holds, as the cut of the
 * spread copies counts it (docs/backend.md "Transfers", "Gathering early").
 *
 * A received copy that only the P06 gathering it for a CADD reads waits in the receive area
 * for that P06, which emit_early.c moves to the earliest free Soma slot after the copy lands;
 * the mapper counts it in the receive budget up to that slot (mapper/gather_wait.h), and
 * fills the phases after it with other transfers. The spread copies are cut (emit_spread.c)
 * before the gathers find their slots, when such a copy's area still lives to its CADD's
 * phase: counted so, a phase between takes fewer rows of a spread copy than the mapper gave
 * it and the copy's last phase the rest, over the receive area
 * (`test_diff_ops/broadcast_div_case_1_variant_0-4`'s chip (0,1) core (5,2): a column-slice
 * copy of 1872 words landing in phase 20, gathered in Soma2 of 20, counted to phase 22, and
 * a spread copy's last part of 3456 words in phase 21). The cut counts such a copy up to the
 * earliest Soma slot after it lands that is free when the cut is made: a copy its own core's
 * router lands in part (emit_router_landed; a copy received whole from other cores moves out
 * in Soma2 of its arrival phase, emit_recv_live), the CADD gathering it on its core (two
 * inputs or more), every other reader on other cores, whose bytes go in one phase (no runs
 * spilled), from which nothing is sent after it lands.
 */
#include "backend/emit_internal.h"

#include "taskir/lanes.h"
#include "taskir/premove.h"

/* The phase copy cp's gather is expected in (the earliest Soma slot free after the router of
 * its last landing, before its CADD); -1 when cp is no copy waiting for its gather so. */
static int32_t wait_phase(const Emit *e, const ECopy *cp)
{
    const ECore *c = &e->cores[cp->core];
    int32_t first, last, p, sl;
    if (!cp->received || cp->spread || cp->movable || cp->land != EMIT_NONE ||
        cp->req == EMIT_NONE || c->reqs[cp->req].kind != ALLOC_RECV ||
        !emit_router_landed(e, cp, &first, &last))
        return -1;
    const BlockUses *bu = &e->uses.blocks[cp->block];
    long cadd = -1;
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        long r = graph_block_pos(e->g, e->g->edges[bu->out_edges[j]]->dst);
        if (r < 0 || e->g->blocks[r]->type == BT_OUTPUT)
            return -1;
        if (e->core_of[r] != cp->core)
            continue;
        if ((cadd >= 0 && r != cadd) || premove_count(e->g, &e->uses, (uint32_t)r) < 2)
            return -1; /* another reader on its core, or no gather */
        cadd = r;
    }
    if (cadd < 0 || last >= e->phase_of[cadd])
        return -1;
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const Edge *ed = e->g->edges[bu->in_edges[j]];
        long w = graph_block_pos(e->g, ed->src);
        if (w < 0 || lanes_phases(e->g, &e->uses, ed) > 1 ||
            emit_sends_after(e, cp, (uint32_t)w, last))
            return -1;
    }
    for (size_t j = 0; j < e->n_copies; j++) /* no other copy shares its area (a tee) */
        if (&e->copies[j] != cp && e->copies[j].core == cp->core && e->copies[j].req == cp->req)
            return -1;
    if (!emit_slot_earliest(e, cp->core, last, e->phase_of[cadd] - 1,
                            emit_slot_when(last, MAP_PI_ROUTER_RECIEVE), &p, &sl))
        return -1;
    return p;
}

int64_t emit_recv_waiting(const Emit *e, uint32_t k, int32_t p)
{
    const ECore *c = &e->cores[k];
    int64_t sum = 0;
    EOnCore on = emit_copies_on(e, k);
    for (const ECopy *cp; (cp = emit_copies_next(e, &on));) {
        if (cp->req == EMIT_NONE || cp->req >= c->n_reqs ||
            !alloc_lives_in(&c->reqs[cp->req], p))
            continue;
        int32_t w = wait_phase(e, cp);
        if (w >= 0 && p > w)
            sum += c->reqs[cp->req].words;
    }
    return sum;
}
