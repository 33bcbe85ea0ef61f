/* emit_wrapgather.c: a stage's input that arrives spread over several phases and that only
 * the P06 gathering it for a CADD reads, gathered as soon as its last part has moved out of
 * the receive area (docs/backend.md "Inserted primitives", "Gathering a spread stage input
 * early").
 *
 * A gather's P06 takes the latest free Soma slot before its CADD (emit_gather.c). For an input
 * whose data comes in the step before (EMoveSlot.wrap: a part lands in the CADD's phase or
 * after it), that is a slot of the CADD's step, before the CADD, and the copy it reads holds
 * the step before's data until then: the copy's area in the data banks lives the whole step,
 * beside its part of the gathered area. When the copy is spread (its parts land phase by phase
 * and P06s move them into its area, emit_spread.c), and nothing else on its core reads it, the
 * gather's P06 moves to the earliest free Soma slot after the last part's move, going round the
 * step: after it in the same step (the copy's area then lives from its first part's move to
 * the P06, its part of the gathered area the whole step, as before), else in the next step
 * before both the CADD and the first part's move of that step (the copy's area lives from the
 * step's start to the P06 and again from its first part's move, alloc.h `again`; its part of
 * the gathered area from the P06 to the CADD). The slot the gather leaves may be the one an
 * input landing before the CADD finds free for its early gather (emit_early.c, which runs
 * after this), as the mapper counts that input.
 */
#include "backend/emit_internal.h"

/* Whether a writer of copy cp's block sends from cp's core (a relay forwarding its parts) in a
 * phase outside [lo, hi] (lo > hi: outside [lo, end] and [0, hi], a lifetime round the step). */
static bool sends_outside(const Emit *e, const ECopy *cp, int32_t lo, int32_t hi)
{
    const ECore *c = &e->cores[cp->core];
    const BlockUses *bu = &e->uses.blocks[cp->block];
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        long w = graph_block_pos(e->g, e->g->edges[bu->in_edges[j]]->src);
        const BlockUses *wu = w >= 0 ? &e->uses.blocks[w] : NULL;
        for (uint32_t i = 0; wu && i < wu->n_out_edges; i++) {
            const MapDict *dict = emit_edge_dict(e, e->g->edges[wu->out_edges[i]]->id);
            for (uint32_t m = 0; dict && m < dict->n_coords; m++) {
                const MapCoord *mc = &dict->coords[m];
                int32_t p = mc->phase;
                bool in = lo <= hi ? p >= lo && p <= hi : p >= lo || p <= hi;
                if (mc->pi_index == MAP_PI_ROUTER_SEND && emit_same_place(c, mc) &&
                    mc->phase_group == c->phase_group && mc->step_group == c->step_group && !in)
                    return true;
            }
        }
    }
    return false;
}

/* Whether every writer of copy cp's block is a compute block on another core. */
static bool all_remote(const Emit *e, const ECopy *cp)
{
    const BlockUses *bu = &e->uses.blocks[cp->block];
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        long w = graph_block_pos(e->g, e->g->edges[bu->in_edges[j]]->src);
        if (w < 0 || e->g->blocks[w]->type == BT_INPUT || e->core_of[w] == cp->core)
            return false;
    }
    return bu->n_in_edges > 0;
}

/* The moves of spread copy ci's parts: the earliest and latest (emit_slot_when's unit) and the
 * first and last phases they move in; whether it has parts, all in one run of phases of the
 * step. */
static bool part_moves(const Emit *e, uint32_t ci, int64_t *t0, int64_t *t1, int32_t *p0,
                       int32_t *p1)
{
    *t0 = INT64_MAX;
    *t1 = -1;
    for (size_t i = 0; i < e->n_parts; i++) {
        const EPart *pt = &e->parts[i];
        if (pt->copy[0] != ci && !(pt->nq[1] > 0 && pt->copy[1] == ci))
            continue;
        int64_t t = emit_slot_when(pt->move_phase, pt->move_slot);
        if (t < *t0) {
            *t0 = t;
            *p0 = pt->move_phase;
        }
        if (t > *t1) {
            *t1 = t;
            *p1 = pt->move_phase;
        }
    }
    return *t1 >= 0;
}

/* Moves gather g's P06 (of copy ci, for its CADD in phase pc) so when it may. */
static Status gather_early(Emit *e, EGather *g, uint32_t ci, int32_t pc)
{
    ECopy *cp = &e->copies[ci];
    ECore *c = &e->cores[cp->core];
    EMoveSlot ms;
    int64_t t0, t1;
    int32_t p0 = 0, p1 = 0, p, sl;
    if (!cp->spread || cp->req == EMIT_NONE || c->reqs[cp->req].kind != ALLOC_DATA ||
        c->reqs[cp->req].again || !all_remote(e, cp) || emit_sole_gather(e, ci) != g ||
        !part_moves(e, ci, &t0, &t1, &p0, &p1) || p1 < p0)
        return ST_OK;
    for (uint32_t j = 0; j < e->n_copies; j++) /* no other copy shares its area (a tee) */
        if (j != ci && e->copies[j].core == cp->core && e->copies[j].req == cp->req)
            return ST_OK;
    emit_move_slot(e, cp, pc, &ms);
    int64_t axon = emit_slot_when(pc, MAP_PI_AXON);
    if (!ms.wrap || axon > t1)
        return ST_OK; /* data of this step, or a CADD after the last move */
    emit_slot_free(e, cp->core, g->phase, g->slot);
    AllocReq *r = &c->reqs[cp->req], *a = &c->reqs[g->req];
    /* after the last move in the same step: the copy from its first move to the P06 */
    if (emit_slot_earliest(e, cp->core, p1, c->n_phases - 1, t1, &p, &sl) &&
        !sends_outside(e, cp, p0, p)) {
        r->first = p0;
        r->last = p;
    } else if (emit_slot_earliest(e, cp->core, 0, (pc < p0 ? pc : p0), -1, &p, &sl) &&
               emit_slot_when(p, sl) < axon && emit_slot_when(p, sl) < t0 && p < p0 &&
               !sends_outside(e, cp, p0, p)) {
        /* in the next step, before the CADD and the first move: the copy round the step */
        r->first = 0;
        r->last = p;
        r->again = p0;
        a->first = p;
        a->last = pc;
    } else { /* no such slot: its own again */
        p = g->phase;
        sl = g->slot;
    }
    g->phase = p;
    g->slot = sl;
    return emit_slot_take(e, cp->core, p, sl, SLOT_GATHER, g->cadd);
}

Status emit_wrap_gathers(Emit *e)
{
    Status st = ST_OK;
    for (size_t i = 0; i < e->n_gathers && st == ST_OK; i++) {
        EGather *g = &e->gathers[i];
        if (g->i >= 0 && g->phase >= 0 && g->req != EMIT_NONE)
            st = gather_early(e, g, g->copy, e->phase_of[g->cadd]);
    }
    return st;
}
