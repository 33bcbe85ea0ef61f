/* grid.c: the geometry of the core grid (place.c, "The cores form one grid") and the one
 * scorer of placements: bytes x XY hops over the traffic graph between virtual cores. The
 * placement strategies, the refinement, the routes, the estimates and the baselines of the
 * report and the benchmarks all measure through it. */
#include "mapper/plan.h"

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
