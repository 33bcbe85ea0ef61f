/* verify_map_order.c: map.order.read (verify_map_order.h; docs/rules.md, "Mapping rules").
 *
 * A compute block R reads a storage block S on its own core (R's first coordinate: its
 * place and time). Each writer W of S (a compute block, edge W -> S) puts its data into that
 * copy of S at a time of the core's timeline, (step, phase, slot) in the order of a phase
 * Axon < Soma1 < Router < Soma2 (CHIP.md §2):
 *   W on R's core        when W runs: (W's step, phase, W's slot);
 *   W on another core    when the edge's ROUTER_RECIEVE coordinates on R's core have
 *                        received it: (their latest step and phase, the Router's slot).
 * R must run after every such time; a writer at the same time or later is the finding.
 * Only within one timeline: a writer in another phase group or step group than R (another
 * stage of a pipeline, whose data a later step reads: docs/mapper.md, "Stages") is not
 * ordered against R here.
 * Storage that nothing on chip writes (data, off-chip INPUT) holds its data from the start;
 * a writer whose data reaches R's core by no ROUTER_RECIEVE coordinate there is map.route's
 * business, a coordinate without pi_index is left out (no slot to order). Time linear in
 * the edges times the writers of each read storage block. */
#include "taskir/verify_map_order.h"

#include "taskir/diag_block.h"
#include "taskir/verify_map_place.h"
#include "taskir/uses.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>


/* A moment of one core's timeline. */
typedef struct When {
    int64_t step, phase;
    int rank; /* Axon 0, Soma1 1, Router 2, Soma2 3 */
} When;

static int rank_of(int32_t pi)
{
    switch (pi) {
    case MAP_PI_AXON: return 0;
    case MAP_PI_SOMA1: return 1;
    case MAP_PI_ROUTER_RECIEVE:
    case MAP_PI_ROUTER_SEND: return 2;
    case MAP_PI_SOMA2: return 3;
    default: return -1;
    }
}

static int when_cmp(When a, When b)
{
    if (a.step != b.step)
        return a.step < b.step ? -1 : 1;
    if (a.phase != b.phase)
        return a.phase < b.phase ? -1 : 1;
    return a.rank < b.rank ? -1 : a.rank > b.rank;
}

static bool same_core(const MapCoord *a, const MapCoord *b)
{
    return a->chip_array.x == b->chip_array.x && a->chip_array.y == b->chip_array.y &&
           a->chip.x == b->chip.x && a->chip.y == b->chip.y && a->core.x == b->core.x &&
           a->core.y == b->core.y;
}

static const char *slot_name(int rank)
{
    static const char *const names[] = {"AXON", "SOMA1", "ROUTER", "SOMA2"};
    return rank >= 0 && rank < 4 ? names[rank] : "?";
}

/* The first coordinate of the compute block at position pos with a slot, else NULL. */
static const MapCoord *run_at(const Mapping *m, const uint32_t *first, uint32_t pos)
{
    const Block *b = m->graph->blocks[pos];
    if (!first[pos] || (unsigned)b->type >= BT_COUNT || bt_info(b->type)->kind != BK_COMPUTE)
        return NULL;
    const MapDict *dict = &m->nodes[first[pos] - 1];
    if (!dict->n_coords || rank_of(dict->coords[0].pi_index) < 0 ||
        !dict->coords[0].has_pi_index)
        return NULL;
    return &dict->coords[0];
}

/* When W's data (edge dict ep of its edge into S; W runs at w) is in S's copy on the core of
 * r; false when it does not reach that core by a receive there, or W runs in another phase
 * or step group than r. */
static bool arrival(const MapCoord *w, const MapDict *ep, const MapCoord *r, When *t)
{
    if (w->phase_group != r->phase_group || w->step_group != r->step_group)
        return false;
    if (same_core(w, r)) {
        *t = (When){w->step, w->phase, rank_of(w->pi_index)};
        return true;
    }
    bool any = false;
    for (uint32_t k = 0; ep && k < ep->n_coords; k++) {
        const MapCoord *c = &ep->coords[k];
        if (!c->has_pi_index || c->pi_index != MAP_PI_ROUTER_RECIEVE || !same_core(c, r))
            continue;
        When at = {c->step, c->has_end_phase && c->end_phase > c->phase ? c->end_phase
                                                                         : c->phase, 2};
        if (!any || when_cmp(at, *t) > 0)
            *t = at;
        any = true;
    }
    return any;
}

Status verify_map_order(const Mapping *m, const uint32_t *first, Diag *d, size_t *found)
{
    const Graph *g = m->graph;
    GraphUses u;
    const MapDict **edict = verify_map_edge_dicts(m);
    if (!edict || !graph_uses(g, &u)) {
        free(edict);
        return ST_RUNTIME;
    }
    for (uint32_t rp = 0; rp < g->n_blocks; rp++) {
        const MapCoord *r = run_at(m, first, rp);
        const BlockUses *ru = &u.blocks[rp];
        for (uint32_t k = 0; r && k < ru->n_in_edges; k++) {
            const Edge *e = g->edges[ru->in_edges[k]];
            long sp = graph_block_pos(g, e->src);
            const Block *s = sp >= 0 ? g->blocks[sp] : NULL;
            if (!s || (unsigned)s->type >= BT_COUNT || bt_info(s->type)->kind != BK_STORAGE)
                continue;
            const BlockUses *su = &u.blocks[sp];
            When at = {r->step, r->phase, rank_of(r->pi_index)};
            for (uint32_t j = 0; j < su->n_in_edges; j++) {
                const Edge *we = g->edges[su->in_edges[j]];
                long wp = graph_block_pos(g, we->src);
                const MapCoord *w = wp >= 0 && wp != (long)rp ? run_at(m, first, (uint32_t)wp)
                                                               : NULL;
                When t = {0, 0, 0};
                if (!w || !arrival(w, edict[su->in_edges[j]], r, &t) || when_cmp(t, at) < 0)
                    continue;
                char how[96];
                if (same_core(w, r))
                    snprintf(how, sizeof how, "it runs");
                else
                    snprintf(how, sizeof how, "edge %" PRId32 " arrives", we->id);
                diag_block(d, ST_LOGIC, "map.order.read", g->blocks[rp],
                           "reads block %" PRId32 " in step %" PRId32 " phase %" PRId32
                           " %s, but its writer block %" PRId32 "'s data is there only "
                           "after step %" PRId64 " phase %" PRId64 " %s (%s): a block reads "
                           "storage after its data arrives (Axon < Soma1 < Router < Soma2)",
                           s->id, r->step, r->phase, slot_name(at.rank), we->src, t.step,
                           t.phase, slot_name(t.rank), how);
                ++*found;
                break; /* one report a read */
            }
        }
    }
    graph_uses_finish(&u);
    free(edict);
    return ST_OK;
}
