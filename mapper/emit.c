/* emit.c: the Mapping of a plan (docs/mapper.md, "Output"; the wire of docs/wire.md).
 *
 * Space: chip_array (0,0); the chip and the core within it from the grid position; step
 * group 0; the phase group is the core's stage. Time: step 0, the local phase.
 *   compute block   one coordinate: its phase and slot (AXON, SOMA1, SOMA2)
 *   storage block   MEMORY over [phase, end_phase] on every core holding a copy of it,
 *                   its life on that core (lifetime.c): static data for the whole step;
 *                   other data from its first write (or arrival) there to its last read
 *                   or send there, the whole step when that span wraps past the stage's end
 *   edge between cores  per receive phase, ROUTER_SEND at the sending core (the source, or
 *                   the relay of a multicast chain) and ROUTER_RECIEVE at the receiving core
 *   INPUT -> storage  ROUTER_RECIEVE at each core holding a copy, phase 0 (before the step)
 *   storage -> OUTPUT ROUTER_SEND at the storage's core after its writers
 * Edges inside a core have no dict; INPUT and OUTPUT blocks stay unmapped (docs/rules.md).
 * Dicts follow the graph's block and edge order: the output is deterministic.
 */
#include "mapper/plan.h"

#include <stdlib.h>


static void set_coord(const MapPlan *p, MapCoord *c, uint32_t v, uint32_t phase,
                      uint32_t end_phase, int32_t pi)
{
    uint32_t x, y;
    map_core_xy(p, p->vcores[v].core, &x, &y);
    c->chip.x = (int32_t)(x / p->chip->cores_x);
    c->chip.y = (int32_t)(y / p->chip->cores_y);
    c->core.x = (int32_t)(x % p->chip->cores_x);
    c->core.y = (int32_t)(y % p->chip->cores_y);
    c->phase_group = p->vcores[v].stage;
    c->phase = (int32_t)phase;
    c->end_phase = (int32_t)end_phase;
    c->has_end_phase = true;
    c->pi_index = pi;
    c->has_pi_index = true;
}

/* The distinct vcores of storage block pos's copies into out[] (home first); their count. */
static uint32_t copy_vcores(const MapPlan *p, uint32_t pos, uint32_t *out)
{
    uint32_t n = 0;
    for (uint32_t r = 0; r < p->rep_n[pos]; r++) {
        uint32_t v = p->clusters[p->reps[p->rep_first[pos] + r]].vcore, k = 0;
        while (k < n && out[k] != v)
            k++;
        if (k == n)
            out[n++] = v;
    }
    return n;
}

static Status node_dicts(const MapPlan *p, Mapping *m, uint32_t *scratch)
{
    const Graph *g = p->g;
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        if (p->cluster_of[i] == MAP_NONE)
            continue;
        uint32_t t = p->task_of[i];
        uint32_t n = t != MAP_NONE ? 1 : copy_vcores(p, i, scratch);
        MapDict *dict = mapping_add_dict(m, false, g->blocks[i]->id, n);
        if (!dict)
            return ST_RUNTIME;
        if (t != MAP_NONE) {
            uint32_t l = map_local(p, p->tasks[t].phase);
            set_coord(p, &dict->coords[0], map_task_vcore(p, t), l, l,
                      map_slot_pi(p->tasks[t].slot));
            continue;
        }
        for (uint32_t k = 0; k < n; k++) { /* one coordinate per core holding a copy */
            uint32_t first, last;
            map_lifetime(p, i, scratch[k], &first, &last);
            set_coord(p, &dict->coords[k], scratch[k], first, last, MAP_PI_MEMORY);
        }
    }
    return ST_OK;
}

static Status edge_dicts(const MapPlan *p, Mapping *m, uint32_t *scratch)
{
    const Graph *g = p->g;
    for (uint32_t i = 0; i < g->n_edges; i++) {
        uint32_t x0 = p->xfer_of[i];
        if (x0 == MAP_NONE)
            continue;
        const MXfer *first = &p->xfers[x0];
        uint32_t nx = first->kind == XF_OUT ? 1 : p->rep_n[first->store], n = 0;
        if (first->kind == XF_IN) {
            n = copy_vcores(p, first->store, scratch);
        } else if (first->kind == XF_OUT) {
            n = 1;
        } else {
            for (uint32_t xi = x0; xi < x0 + nx; xi++)
                n += p->xfers[xi].cross ? 2 * p->xfers[xi].n_chunks : 0;
        }
        if (!n)
            continue; /* inside a core */
        MapDict *dict = mapping_add_dict(m, true, g->edges[i]->id, n);
        if (!dict)
            return ST_RUNTIME;
        if (first->kind == XF_IN) {
            for (uint32_t k = 0; k < n; k++)
                set_coord(p, &dict->coords[k], scratch[k], 0, 0, MAP_PI_ROUTER_RECIEVE);
        } else if (first->kind == XF_OUT) {
            uint32_t l = map_local(p, map_out_phase(p, first));
            set_coord(p, &dict->coords[0], map_store_vcore(p, first->store), l, l,
                      MAP_PI_ROUTER_SEND);
        } else {
            uint32_t c = 0;
            for (uint32_t xi = x0; xi < x0 + nx; xi++) {
                const MXfer *x = &p->xfers[xi];
                if (!x->cross)
                    continue;
                uint32_t snd = map_xfer_sender(p, x), dst = map_xfer_vcore(p, x);
                for (uint32_t k = 0; k < x->n_chunks; k++) {
                    uint32_t l = map_local(p, p->chunks[x->chunk0 + k].phase);
                    set_coord(p, &dict->coords[c++], snd, l, l, MAP_PI_ROUTER_SEND);
                    set_coord(p, &dict->coords[c++], dst, l, l, MAP_PI_ROUTER_RECIEVE);
                }
            }
        }
    }
    return ST_OK;
}

Status mapper_emit(const MapPlan *p, Graph *g, Mapping **out, Diag *d)
{
    *out = NULL;
    Mapping *m = mapping_create();
    if (!m) {
        graph_destroy(g);
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory writing the mapping");
    }
    graph_destroy(m->graph);
    m->graph = g;
    uint32_t *scratch = malloc(((size_t)p->n_clusters + 1) * sizeof *scratch);
    Status st = scratch ? node_dicts(p, m, scratch) : ST_RUNTIME;
    if (st == ST_OK)
        st = edge_dicts(p, m, scratch);
    free(scratch);
    if (st != ST_OK) {
        mapping_destroy(m);
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory writing the mapping");
    }
    m->prediction_clock =
        p->cost.step_clock > INT32_MAX ? INT32_MAX : (int32_t)p->cost.step_clock;
    m->has_prediction_clock = true;
    *out = m;
    return ST_OK;
}
