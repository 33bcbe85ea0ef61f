/* emit_latemove.c: where a received copy whose Soma2 of its arrival phase is taken moves
 * out of the receive area instead (docs/backend.md "Memory plan", "Moving out later").
 *
 * A copy that lives on past its arrival moves out in Soma2 of its last arrival phase
 * (emit_plan.c, plan_moves). When something else takes that slot it would stay in the
 * receive area its whole life: the whole step for a stage's input that arrives late in one
 * step and is read early in the next (qnet.onnx). It moves at the earliest free Soma slot
 * after that phase's router instead, in the same step, when nothing on its core may read it
 * from its arrival to that slot: no compute block reading its block runs in those phases;
 * the Soma slots between hold only compute blocks, other copies' moves, gathers of other
 * copies, narrowings and send areas (these two read a compute block's result on the core);
 * and its core forwards no result of its writers before that slot (a relay sends from the
 * copy's area, which the P06 has not written yet; in the router of the phase whose Soma1
 * moved it, it has). A copy whose twin stays in the receive area (emit_twin.c) stays with
 * it: moving one of the two would free no word there. Its landing area then lives from its
 * arrival to that slot (ending with that Soma1, alloc.h last_soma1), its area in the data
 * banks as before.
 *
 * A stage's input that finds no such slot stays in the receive area, where the Mapping's
 * lifetime is the whole step; when it arrives after the last phase its core's blocks read
 * it in (in one step, for the next), and only those blocks read it there (no relay from
 * its core, no inserted P06 about it, no OUTPUT, no twin), its area lives from the first
 * phase to that last reader's and again from its first arrival to the step's end (alloc.h
 * again): the receive area holds other copies in the phases between (emit_stay_again). */
#include "backend/emit_internal.h"

/* Whether a compute block on copy cp's core reading cp's block runs in phases [lo, hi]. */
static bool read_between(const Emit *e, const ECopy *cp, int32_t lo, int32_t hi)
{
    const BlockUses *bu = &e->uses.blocks[cp->block];
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        long r = graph_block_pos(e->g, e->g->edges[bu->out_edges[j]]->dst);
        if (r < 0 || (e->core_of[r] == cp->core && e->phase_of[r] >= lo &&
                      e->phase_of[r] <= hi))
            return true;
    }
    return false;
}

/* Whether cp's core sends a result of one of its block's writers in phases [lo, hi] (a relay
 * in the router of a phase whose Soma1 moved the copy sends from its area, in place). */
static bool sends_between(const Emit *e, const ECopy *cp, int32_t lo, int32_t hi)
{
    const BlockUses *bu = &e->uses.blocks[cp->block];
    const ECore *c = &e->cores[cp->core];
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        long w = graph_block_pos(e->g, e->g->edges[bu->in_edges[j]]->src);
        const BlockUses *wu = w >= 0 ? &e->uses.blocks[w] : NULL;
        for (uint32_t i = 0; wu && i < wu->n_out_edges; i++) {
            const MapDict *dict = emit_edge_dict(e, e->g->edges[wu->out_edges[i]]->id);
            for (uint32_t k = 0; dict && k < dict->n_coords; k++) {
                const MapCoord *mc = &dict->coords[k];
                if (mc->pi_index == MAP_PI_ROUTER_SEND && mc->phase >= lo && mc->phase <= hi &&
                    emit_same_place(c, mc) && mc->phase_group == c->phase_group &&
                    mc->step_group == c->step_group)
                    return true;
            }
        }
        if (w < 0)
            return true;
    }
    return false;
}

bool emit_late_move(Emit *e, const ECopy *cp, int32_t *phase, int32_t *slot)
{
    const ECore *c = &e->cores[cp->core];
    if (emit_twin_stays(e, cp))
        return false;
    int64_t after = emit_slot_when(cp->move_phase, MAP_PI_ROUTER_RECIEVE);
    for (int32_t p = cp->move_phase; p < c->n_phases; p++)
        for (int32_t sl = MAP_PI_SOMA1; sl <= MAP_PI_SOMA2; sl += MAP_PI_SOMA2 - MAP_PI_SOMA1) {
            if (emit_slot_when(p, sl) <= after)
                continue;
            ESlotUse u = emit_slot_use(e, cp->core, p, sl);
            if (u.kind == SLOT_FREE) {
                if (read_between(e, cp, cp->land_first, p) ||
                    sends_between(e, cp, cp->move_phase + 1, sl == MAP_PI_SOMA2 ? p : p - 1))
                    return false;
                *phase = p;
                *slot = sl;
                return true;
            }
            if (u.kind != SLOT_BLOCK && u.kind != SLOT_NARROW && u.kind != SLOT_SENDBUF &&
                (u.kind != SLOT_MOVE || u.block == cp->block) &&
                (u.kind != SLOT_GATHER || emit_gathers_copy(e, cp, p, sl)))
                return false; /* an inserted P06 that may read the copy */
        }
    return false;
}

/* The first phase copy cp arrives in by the router from other cores (-1: a writer on its own
 * core, off chip or none: not only by the router). */
static int32_t first_arrival(const Emit *e, const ECopy *cp)
{
    const BlockUses *bu = &e->uses.blocks[cp->block];
    int32_t lo = INT32_MAX;
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const Edge *ed = e->g->edges[bu->in_edges[j]];
        long w = graph_block_pos(e->g, ed->src);
        if (w < 0 || e->core_of[w] == cp->core ||
            bt_info(e->g->blocks[w]->type)->kind != BK_COMPUTE)
            return -1;
        const MapDict *dict = emit_edge_dict(e, ed->id);
        for (uint32_t c = 0; dict && c + 1 < dict->n_coords; c++) {
            const MapCoord *cs = &dict->coords[c], *cr = &dict->coords[c + 1];
            if (cs->pi_index == MAP_PI_ROUTER_SEND && cr->pi_index == MAP_PI_ROUTER_RECIEVE &&
                emit_same_place(&e->cores[cp->core], cr) && cr->phase < lo)
                lo = cr->phase;
        }
    }
    return lo == INT32_MAX ? -1 : lo;
}

/* The last phase a compute block on cp's core reads it in (-1: none); *other: whether
 * anything else reads it (an OUTPUT, another kind of block). */
static int32_t last_reader(const Emit *e, const ECopy *cp, bool *other)
{
    const BlockUses *bu = &e->uses.blocks[cp->block];
    int32_t last = -1;
    *other = false;
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        long r = graph_block_pos(e->g, e->g->edges[bu->out_edges[j]]->dst);
        if (r < 0 || bt_info(e->g->blocks[r]->type)->kind != BK_COMPUTE)
            *other = true;
        else if (e->core_of[r] == cp->core && e->phase_of[r] > last)
            last = e->phase_of[r];
    }
    return last;
}

/* Whether an inserted P06 on cp's core may read cp: a Soma slot taken by something but a
 * compute block, a narrowing, a send area, another copy's move or part or a gather of
 * another copy (as emit_late_move asks). */
static bool p06_reads(const Emit *e, const ECopy *cp)
{
    for (int32_t p = 0; p < e->cores[cp->core].n_phases; p++)
        for (int32_t sl = MAP_PI_SOMA1; sl <= MAP_PI_SOMA2; sl += MAP_PI_SOMA2 - MAP_PI_SOMA1) {
            ESlotUse u = emit_slot_use(e, cp->core, p, sl);
            if (u.kind != SLOT_FREE && u.kind != SLOT_BLOCK && u.kind != SLOT_NARROW &&
                u.kind != SLOT_SENDBUF &&
                ((u.kind != SLOT_MOVE && u.kind != SLOT_PART) || u.block == cp->block) &&
                (u.kind != SLOT_GATHER || emit_gathers_copy(e, cp, p, sl))) {
                return true;
            }
        }
    return false;
}

void emit_stay_again(Emit *e)
{
    for (uint32_t i = 0; i < e->n_copies; i++) {
        const ECopy *cp = &e->copies[i];
        const ECore *c = &e->cores[cp->core];
        if (!cp->received || cp->spread || cp->is_static || cp->view || cp->planes ||
            cp->land != EMIT_NONE || cp->req >= c->n_reqs || cp->req_off != 0 ||
            cp->alias_of != EMIT_NONE || cp->dup_of != EMIT_NONE || emit_merge_of(e, cp))
            continue;
        AllocReq *r = &c->reqs[cp->req];
        if (r->kind != ALLOC_RECV || r->first != 0 || r->last != c->n_phases - 1 || r->again)
            continue;
        bool other;
        int32_t lo = first_arrival(e, cp), last = last_reader(e, cp, &other);
        if (lo <= 0 || last < 0 || last >= lo || other || emit_twin_stays(e, cp) ||
            sends_between(e, cp, 0, c->n_phases - 1) || p06_reads(e, cp))
            continue;
        r->last = last;
        r->again = lo;
    }
}
