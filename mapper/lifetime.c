/* lifetime.c: how long a storage block lives on a core (docs/mapper.md, "Output" and "Cost
 * model"): from the first phase its bytes arrive in or are written to its last read or send,
 * counted on one core's copies only, so that two blocks whose lives on a core do not overlap
 * can share its memory (merge.c) and the Mapping's MEMORY coordinates say so (emit.c).
 * Static data (weights, biases, tables: nothing writes it) and a life that wraps past the
 * end of the core's stage take the whole step. A core relays a multicast only within that
 * life (route.c), so forwarding never needs a longer one. */
#include "mapper/plan.h"

#include <stdlib.h>

static void event(int64_t *lo, int64_t *hi, int64_t g)
{
    if (g < *lo)
        *lo = g;
    if (g > *hi)
        *hi = g;
}

bool map_lifetime_span(const MapPlan *p, uint32_t pos, uint32_t v, int64_t *lo_out,
                       int64_t *hi_out)
{
    const Graph *g = p->g;
    const BlockUses *bu = &p->uses.blocks[pos];
    uint32_t M = p->chip->max_phases;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    bool is_static = true;
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        uint32_t x0 = p->xfer_of[bu->in_edges[j]];
        if (x0 == MAP_NONE)
            continue;
        is_static = false;
        for (uint32_t xi = x0; xi < x0 + p->rep_n[pos]; xi++) { /* every copy (on v) */
            const MXfer *x = &p->xfers[xi];
            if (v != MAP_NONE && map_xfer_vcore(p, x) != v)
                continue;
            if (x->kind == XF_IN)
                event(&lo, &hi, (int64_t)p->vcores[map_xfer_vcore(p, x)].stage * M);
            else if (x->cross)
                for (uint32_t k = 0; k < x->n_chunks; k++)
                    event(&lo, &hi, p->chunks[x->chunk0 + k].phase);
            else if (x->kind == XF_CORE)
                event(&lo, &hi, p->tasks[x->src_task].phase);
        }
    }
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        const Edge *e = g->edges[bu->out_edges[j]];
        long t = graph_block_pos(g, e->dst);
        uint32_t xi = p->xfer_of[bu->out_edges[j]];
        if (t >= 0 && p->task_of[t] != MAP_NONE) {
            if (v == MAP_NONE || map_task_vcore(p, p->task_of[t]) == v)
                event(&lo, &hi, p->tasks[p->task_of[t]].phase);
        } else if (xi != MAP_NONE && p->xfers[xi].kind == XF_OUT) {
            if (v == MAP_NONE || map_xfer_vcore(p, &p->xfers[xi]) == v)
                event(&lo, &hi, map_out_phase(p, &p->xfers[xi]));
        }
    }
    *lo_out = lo;
    *hi_out = hi;
    return !(is_static || lo > hi || hi - lo + 1 >= M || (uint32_t)lo % M > (uint32_t)hi % M);
}

void map_lifetime(const MapPlan *p, uint32_t pos, uint32_t v, uint32_t *first, uint32_t *last)
{
    int64_t lo, hi;
    if (!map_lifetime_span(p, pos, v, &lo, &hi)) {
        *first = 0;
        *last = p->n_phases - 1;
    } else {
        *first = (uint32_t)(lo % p->chip->max_phases);
        *last = (uint32_t)(hi % p->chip->max_phases);
    }
}

int32_t *map_last_sends(const MapPlan *p)
{
    int32_t *send = malloc((p->n_tasks ? p->n_tasks : 1) * sizeof *send);
    if (!send)
        return NULL;
    for (uint32_t t = 0; t < p->n_tasks; t++)
        send[t] = p->tasks[t].phase;
    for (uint32_t i = 0; i < p->n_xfers; i++) {
        const MXfer *x = &p->xfers[i];
        if (x->kind != XF_CORE || !x->cross || !x->n_chunks || x->src_task >= p->n_tasks)
            continue;
        int32_t last = p->chunks[x->chunk0 + x->n_chunks - 1].phase;
        if (last > send[x->src_task])
            send[x->src_task] = last;
    }
    return send;
}

void map_buffer_life(const MapPlan *p, uint32_t t, int32_t send, uint32_t *first,
                     uint32_t *last)
{
    int64_t lo = p->tasks[t].phase, hi = send > lo ? send : lo, M = p->chip->max_phases;
    if (M <= 0 || hi - lo + 1 >= M || lo % M > hi % M) {
        *first = 0;
        *last = p->n_phases ? p->n_phases - 1 : 0;
    } else {
        *first = (uint32_t)(lo % M);
        *last = (uint32_t)(hi % M);
    }
}
