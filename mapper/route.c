/* route.c: routes of the transfers between cores (docs/mapper.md, "Routing").
 *
 * Every transfer between two cores goes by XY routing (x first, then y), |dx| + |dy| hops on
 * the grid of place.c. Multicast: the transfers that carry the same box of the same block's
 * output to several cores form a chain instead of leaving the source one by one: each
 * destination, taken in the order its bytes arrive (then the graph's order), gets them from
 * the nearest of the source and the destinations before it that have them all by then, or
 * get them in the same phases, as many bytes each (the chip's relaying router forwards each
 * part as it lands: same_chunks), and forward to nobody else yet (a receiving core relays to
 * one next core, CHIP.md §3) and whose
 * copy lives on its core through the phases the bytes travel on (lifetime.c: the Mapping's
 * MEMORY coordinates stay true for the relay). The source stays a candidate, so a chain is
 * never costlier than unicast.
 * The sets and their order do not depend on the placement (map_route_sets, once); the chains
 * do (map_route_where, for any placement): the refinement, the baselines and the final
 * routes all measure multicast traffic through it, the one scorer of routed traffic.
 * The final routes (map_route) drop the relay of a transfer whose values move between lanes
 * (taskir/lanes_exact.h: the code generator sends those bytes in 1-byte packets from the
 * writer's core only, backend/emit_lanes.c): its writer sends it. The scorer
 * (map_route_where) still counts such a transfer relayed, so that placement stays what it
 * was (one version that kept them out of the scorer's chains moved every graph with such
 * edges).
 * Requires map_place. Guarantees: every cross transfer has its relay (or MAP_NONE) and hops;
 * a transfer that moves values between lanes has none.
 */
#include "mapper/plan.h"

#include "taskir/lanes_exact.h"

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
    return !a || !b ? a == b : iface_same_box(a, b);
}

bool map_xfer_same_box(const MapPlan *p, const MXfer *a, const MXfer *b)
{
    return a->src_task == b->src_task && same_box(src_iface(p, a), src_iface(p, b));
}

static int32_t first_phase(const MapPlan *p, const MXfer *x)
{
    return p->chunks[x->chunk0].phase;
}

static int32_t last_phase(const MapPlan *p, const MXfer *x)
{
    return p->chunks[x->chunk0 + x->n_chunks - 1].phase;
}

/* Whether x's bytes arrive in the phases y's do, as many in each: y's router may forward
 * each part in the phase it lands there (the chip's relaying router; the code generator
 * writes such a relay as the source's send relayed along a chain, backend/emit_route.c). */
bool map_xfer_same_chunks(const MapPlan *p, const MXfer *y, const MXfer *x)
{
    if (y->n_chunks != x->n_chunks || y->bytes != x->bytes)
        return false;
    for (uint32_t i = 0; i < x->n_chunks; i++)
        if (p->chunks[y->chunk0 + i].phase != p->chunks[x->chunk0 + i].phase ||
            p->chunks[y->chunk0 + i].bytes != p->chunks[x->chunk0 + i].bytes)
            return false;
    return true;
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

static Status oom(Diag *d)
{
    return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory routing");
}

/* The sets: the cross transfers sorted by source, then split by box (few boxes a source:
 * quadratic is fine), each set in the order its bytes arrive; per entry the life of the copy
 * it fills on its core, within which that copy may forward (whole step: INT64_MIN..MAX). */
Status map_route_sets(MapPlan *p, Diag *d)
{
    uint32_t n = 0, k = 0, m = 0;
    for (uint32_t i = 0; i < p->n_xfers; i++)
        n += p->xfers[i].cross;
    XKey *keys = malloc((n ? n : 1) * sizeof *keys);
    bool *used = calloc(n ? n : 1, sizeof *used);
    p->mc_xfer = malloc((n ? n : 1) * sizeof *p->mc_xfer);
    p->mc_start = malloc(((size_t)n + 1) * sizeof *p->mc_start);
    p->mc_lo = malloc((n ? n : 1) * sizeof *p->mc_lo);
    p->mc_hi = malloc((n ? n : 1) * sizeof *p->mc_hi);
    if (!keys || !used || !p->mc_xfer || !p->mc_start || !p->mc_lo || !p->mc_hi) {
        free(keys);
        free(used);
        return oom(d);
    }
    for (uint32_t i = 0; i < p->n_xfers; i++)
        if (p->xfers[i].cross)
            keys[k++] = (XKey){p->xfers[i].src_task, first_phase(p, &p->xfers[i]),
                               p->xfers[i].edge, i};
    qsort(keys, k, sizeof *keys, by_source);
    p->n_mc = 0;
    for (uint32_t i = 0; i < k;) {
        uint32_t j = i;
        while (j < k && keys[j].src_task == keys[i].src_task)
            j++;
        for (uint32_t a = i; a < j; a++) {
            if (used[a])
                continue;
            const Iface *box = src_iface(p, &p->xfers[keys[a].xfer]);
            p->mc_start[p->n_mc++] = m;
            for (uint32_t b = a; b < j; b++)
                if (!used[b] && same_box(box, src_iface(p, &p->xfers[keys[b].xfer]))) {
                    used[b] = true;
                    p->mc_xfer[m++] = keys[b].xfer;
                }
        }
        i = j;
    }
    p->mc_start[p->n_mc] = m;
    p->mc_max = 0;
    for (uint32_t s = 0; s < p->n_mc; s++)
        if (p->mc_start[s + 1] - p->mc_start[s] > p->mc_max)
            p->mc_max = p->mc_start[s + 1] - p->mc_start[s];
    for (uint32_t e = 0; e < m; e++) {
        const MXfer *y = &p->xfers[p->mc_xfer[e]];
        if (!map_lifetime_span(p, y->store, map_xfer_vcore(p, y), &p->mc_lo[e], &p->mc_hi[e])) {
            p->mc_lo[e] = INT64_MIN; /* alive the whole step */
            p->mc_hi[e] = INT64_MAX;
        }
    }
    free(keys);
    free(used);
    return ST_OK;
}

/* Routes set s under where[]: returns its bytes x hops; relay/hops per xfer when given. */
static int64_t route_set(const MapPlan *p, const uint32_t *where, uint32_t s, uint32_t *relay,
                         int64_t *hops, bool *relaying)
{
    uint32_t e0 = p->mc_start[s], n = p->mc_start[s + 1] - e0;
    const uint32_t *list = p->mc_xfer + e0;
    uint32_t src = where[map_task_vcore(p, p->xfers[list[0]].src_task)];
    int64_t sum = 0;
    memset(relaying, 0, n * sizeof *relaying);
    for (uint32_t i = 0; i < n; i++) {
        const MXfer *x = &p->xfers[list[i]];
        uint32_t dst = where[map_xfer_vcore(p, x)];
        int32_t first = first_phase(p, x), last = last_phase(p, x);
        int64_t best = map_hops(p, src, dst);
        uint32_t via_i = MAP_NONE;
        for (uint32_t j = 0; j < i && best > 0; j++) {
            const MXfer *y = &p->xfers[list[j]];
            if (relaying[j] || (last_phase(p, y) > first && !map_xfer_same_chunks(p, y, x)))
                continue;
            int64_t h = map_hops(p, where[map_xfer_vcore(p, y)], dst);
            /* can y's copy forward x's bytes: does its life cover their phases? */
            if (h < best && first >= p->mc_lo[e0 + j] && last <= p->mc_hi[e0 + j]) {
                best = h;
                via_i = j;
            }
        }
        if (via_i != MAP_NONE)
            relaying[via_i] = true;
        if (relay)
            relay[list[i]] = via_i == MAP_NONE ? MAP_NONE : list[via_i];
        if (hops)
            hops[list[i]] = best;
        sum += x->bytes * best;
    }
    return sum;
}

int64_t map_route_where(const MapPlan *p, const uint32_t *where, uint32_t *relay, int64_t *hops)
{
    bool *relaying = malloc((p->mc_max ? p->mc_max : 1) * sizeof *relaying);
    if (!relaying)
        return -1;
    int64_t sum = 0;
    for (uint32_t s = 0; s < p->n_mc; s++)
        sum += route_set(p, where, s, relay, hops, relaying);
    free(relaying);
    return sum;
}

Status map_route(MapPlan *p, Diag *d)
{
    uint32_t *where = malloc(((size_t)p->n_vcores + 1) * sizeof *where);
    uint32_t *relay = malloc(((size_t)p->n_xfers + 1) * sizeof *relay);
    int64_t *hops = malloc(((size_t)p->n_xfers + 1) * sizeof *hops);
    int64_t t = -1;
    if (where && relay && hops) {
        for (uint32_t v = 0; v < p->n_vcores; v++)
            where[v] = p->vcores[v].core;
        t = map_route_where(p, where, relay, hops);
    }
    for (uint32_t e = 0; t >= 0 && e < p->mc_start[p->n_mc]; e++) {
        MXfer *x = &p->xfers[p->mc_xfer[e]];
        x->relay = relay[p->mc_xfer[e]];
        x->hops = hops[p->mc_xfer[e]];
        if (x->relay != MAP_NONE && lanes_exact(p->g, &p->uses, p->g->edges[x->edge])) {
            x->relay = MAP_NONE; /* 1-byte packets from the writer's core only */
            x->hops = map_hops(p, where[map_task_vcore(p, x->src_task)],
                               where[map_xfer_vcore(p, x)]);
        }
    }
    free(where);
    free(relay);
    free(hops);
    return t < 0 ? oom(d) : ST_OK;
}
