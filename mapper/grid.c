/* grid.c: the geometry of the core grid (place.c, "The cores form one grid"), the traffic
 * graph between virtual cores and its scorer: bytes x XY hops. The placement strategies, the
 * refinement, the routes, the estimates and the baselines of the report and the benchmarks
 * all measure hops through it (route.c adds the multicast chains). */
#include "mapper/plan.h"

#include <stdlib.h>

static int vedge_cmp(const void *a, const void *b)
{
    const VEdge *x = a, *y = b;
    if (x->a != y->a)
        return x->a < y->a ? -1 : 1;
    return x->b < y->b ? -1 : x->b > y->b;
}

/* The traffic graph: bytes of every transfer between two virtual cores, pairs merged; from
 * its source, or from the core that relays it (relay[x], per transfer) when relay is given. */
Status map_build_vedges(MapPlan *p, const uint32_t *relay, Diag *d)
{
    free(p->vedges);
    p->n_vedges = 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->n_xfers; i++)
        n += p->xfers[i].cross;
    p->vedges = malloc((n ? n : 1) * sizeof *p->vedges);
    if (!p->vedges)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory placing cores");
    uint32_t k = 0;
    for (uint32_t i = 0; i < p->n_xfers; i++) {
        const MXfer *x = &p->xfers[i];
        if (!x->cross)
            continue;
        uint32_t a = map_task_vcore(p, x->src_task), b = map_xfer_vcore(p, x);
        if (relay && relay[i] != MAP_NONE)
            a = map_xfer_vcore(p, &p->xfers[relay[i]]);
        p->vedges[k++] = (VEdge){a < b ? a : b, a < b ? b : a, x->bytes};
    }
    qsort(p->vedges, k, sizeof *p->vedges, vedge_cmp);
    uint32_t m = 0;
    for (uint32_t i = 0; i < k; i++) {
        if (m && p->vedges[m - 1].a == p->vedges[i].a && p->vedges[m - 1].b == p->vedges[i].b)
            p->vedges[m - 1].bytes += p->vedges[i].bytes;
        else
            p->vedges[m++] = p->vedges[i];
    }
    p->n_vedges = m;
    return ST_OK;
}

void map_core_xy(const MapPlan *p, uint32_t k, uint32_t *x, uint32_t *y)
{
    *x = k % p->grid_w;
    *y = k / p->grid_w;
}

int64_t map_hops(const MapPlan *p, uint32_t a, uint32_t b)
{
    uint32_t ax, ay, bx, by;
    map_core_xy(p, a, &ax, &ay);
    map_core_xy(p, b, &bx, &by);
    return (int64_t)(ax > bx ? ax - bx : bx - ax) + (int64_t)(ay > by ? ay - by : by - ay);
}

int64_t map_vedge_traffic(const MapPlan *p, const uint32_t *where)
{
    int64_t sum = 0;
    for (uint32_t i = 0; i < p->n_vedges; i++) {
        const VEdge *e = &p->vedges[i];
        sum += e->bytes * map_hops(p, where[e->a], where[e->b]);
    }
    return sum;
}
