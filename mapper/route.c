/* route.c: routes of the transfers between cores (docs/mapper.md, "Routing").
 *
 * Every transfer between two cores goes by XY routing (x first, then y), |dx| + |dy| hops on
 * the grid of place.c. Multicast: the transfers that carry the same box of the same block's
 * output to several cores form a chain instead of leaving the source one by one: each
 * destination, taken in the order its bytes arrive (then the graph's order), gets them from
 * the nearest of the source and the destinations before it that have them all in an
 * earlier phase and forward to nobody else yet (one next core a relay), and whose copy lives
 * on its core through the phases the bytes travel on (lifetime.c: the Mapping's MEMORY
 * coordinates stay true for the relay). A relay forwards from its copy in memory with its
 * own P09 sends; the chip's relaying router (CXY, forwarding packets in the phase they
 * arrive) would need the copy at the same receive address on both cores, which the code
 * generator's per-core memory plans do not give. The source stays a candidate, so a chain is
 * never costlier than unicast.
 * Requires map_place. Guarantees: every cross transfer has its relay (or MAP_NONE) and hops.
 */
#include "mapper/plan.h"

#include <stdlib.h>
#include <string.h>

static const Iface *src_iface(const MapPlan *p, const MXfer *x)
{
    const Block *b = NULL;
    const IfaceUse *u = uses_edge_end(p->g, &p->uses, p->g->edges[x->edge], true, &b);
    return u && b ? &b->out[u->cluster].ifaces[u->iface] : NULL;
}

static bool same_box(const Iface *a, const Iface *b)
{
    if (!a || !b)
        return a == b;
    if (a->has_pos != b->has_pos || a->has_size != b->has_size)
        return false;
    if (a->has_pos && memcmp(a->pos.d, b->pos.d, sizeof a->pos.d) != 0)
        return false;
    return !a->has_size || memcmp(a->size.d, b->size.d, sizeof a->size.d) == 0;
}

static int32_t first_phase(const MapPlan *p, const MXfer *x)
{
    return p->chunks[x->chunk0].phase;
}

static int32_t last_phase(const MapPlan *p, const MXfer *x)
{
    return p->chunks[x->chunk0 + x->n_chunks - 1].phase;
}

/* A sort key of one transfer: source, first receive phase, edge. */
typedef struct XKey {
    uint32_t src_task;
    int32_t first;
    uint32_t edge;
    uint32_t xfer;
} XKey;

static int by_source(const void *a, const void *b)
{
    const XKey *x = a, *y = b;
    if (x->src_task != y->src_task)
        return x->src_task < y->src_task ? -1 : 1;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    return x->edge < y->edge ? -1 : x->edge > y->edge;
}

/* Can the copy that transfer y fills forward x's bytes: does its life on its core (without
 * relays) cover the phases x's bytes travel in? Then the MEMORY coordinates need no change
 * for the relay. */
static bool can_forward(const MapPlan *p, const MXfer *y, const MXfer *x)
{
    int64_t lo, hi;
    if (!map_lifetime_span(p, y->store, map_xfer_vcore(p, y), &lo, &hi))
        return true; /* alive the whole step */
    return first_phase(p, x) >= lo && last_phase(p, x) <= hi;
}

/* Routes one multicast set: list[0..n) share their source and box. */
static void route_set(MapPlan *p, const uint32_t *list, uint32_t n, bool *relaying)
{
    uint32_t src = p->vcores[map_task_vcore(p, p->xfers[list[0]].src_task)].core;
    for (uint32_t i = 0; i < n; i++) {
        MXfer *x = &p->xfers[list[i]];
        uint32_t dst = p->vcores[map_xfer_vcore(p, x)].core;
        int64_t best = map_hops(p, src, dst);
        uint32_t via = MAP_NONE, via_i = MAP_NONE;
        for (uint32_t j = 0; j < i; j++) {
            const MXfer *y = &p->xfers[list[j]];
            if (relaying[j] || last_phase(p, y) >= first_phase(p, x))
                continue; /* it must hold them all before x's first phase */
            int64_t h = map_hops(p, p->vcores[map_xfer_vcore(p, y)].core, dst);
            if (h < best && can_forward(p, y, x)) {
                best = h;
                via = list[j];
                via_i = j;
            }
        }
        if (via_i != MAP_NONE)
            relaying[via_i] = true;
        x->relay = via;
        x->hops = best;
    }
}

Status map_route(MapPlan *p, Diag *d)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->n_xfers; i++)
        n += p->xfers[i].cross;
    uint32_t *list = malloc((n ? n : 1) * sizeof *list);
    XKey *keys = malloc((n ? n : 1) * sizeof *keys);
    bool *relaying = calloc(n ? n : 1, sizeof *relaying);
    uint32_t *set = malloc((n ? n : 1) * sizeof *set);
    if (!list || !keys || !relaying || !set) {
        free(list);
        free(keys);
        free(relaying);
        free(set);
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory routing");
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < p->n_xfers; i++)
        if (p->xfers[i].cross) {
            keys[k] = (XKey){p->xfers[i].src_task, first_phase(p, &p->xfers[i]),
                             p->xfers[i].edge, i};
            k++;
        }
    qsort(keys, k, sizeof *keys, by_source);
    for (uint32_t i = 0; i < k; i++)
        list[i] = keys[i].xfer;
    free(keys);
    bool *done = relaying; /* reused below per set; cleared for each */
    for (uint32_t i = 0; i < k;) {
        uint32_t j = i;
        while (j < k && p->xfers[list[j]].src_task == p->xfers[list[i]].src_task)
            j++;
        /* within one source, split by box (few boxes a source: quadratic is fine) */
        bool *used = calloc(j - i, sizeof *used);
        if (!used) {
            free(list);
            free(relaying);
            free(set);
            return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory routing");
        }
        for (uint32_t a = i; a < j; a++) {
            if (used[a - i])
                continue;
            const Iface *box = src_iface(p, &p->xfers[list[a]]);
            uint32_t m = 0;
            for (uint32_t b = a; b < j; b++)
                if (!used[b - i] && same_box(box, src_iface(p, &p->xfers[list[b]]))) {
                    used[b - i] = true;
                    set[m++] = list[b];
                }
            memset(done, 0, m * sizeof *done);
            route_set(p, set, m, done);
        }
        free(used);
        i = j;
    }
    free(list);
    free(relaying);
    free(set);
    return ST_OK;
}
