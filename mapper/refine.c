/* refine.c: improves a placement under bytes x XY hops over a traffic graph between the
 * virtual cores, p->vedges: the unicast graph or the links of the multicast chains
 * (place_chain.c; docs/mapper.md, "Algorithm", step 5).
 *
 * Simulated annealing over moves and swaps: a virtual core u goes to a core next to the core
 * of one of its partners, next to its own, or next to the weighted median of its partners'
 * places (per axis: where the sum of bytes x |distance| is least, the best core for u alone
 * under XY hops), swapping with the virtual core there if there is one. A move that does not
 * raise the cost is taken; one that does with probability exp(-delta / T), T falling
 * geometrically from heat x the mean cost of an edge (10 from place_chain.c: hot enough to
 * reshape Scotch's layout at large; 0.3, which only polished it, left ResNet-50 at 0.855x of
 * plain Scotch's traffic however many moves) to 10^-4 of that. The best of the placements seen at
 * snapshots (every 1024 moves, and the last) is kept, so the result is never worse than its
 * start. Then descent
 * sweeps: every virtual core in turn tries its median core and the cores around it and
 * around its own place, and takes the best move or swap that lowers the cost, until a sweep
 * gains less than 0.1 % or after 4 x effort sweeps. Every delta is incremental, O(degree):
 * the cost of the edges of the one or two virtual cores that move. The random numbers come
 * from the seed alone (splitmix64): one seed, one placement. Work: the annealing moves the
 * caller asks for, map_refine_moves at effort LEVEL: LEVEL x (64 moves per virtual core +
 * min(MIN_MOVES, 4096 per virtual core)) annealing moves, at least LEVEL x MOVES_PER_CORE
 * per virtual core (a plan of a few hundred cores anneals longer: more moves were worth it
 * on every graph measured, docs/mapper.md "Benchmark"; a hot annealing of a plan of
 * thousands of cores needs about a thousand moves a core: ResNet-50's 1880 at 342 a core
 * 0.817x of plain Scotch, at 1024 0.792x), then the sweeps.
 */
#include "mapper/plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* At most this many annealing moves at effort 1 besides the 64 per virtual core. */
#define MIN_MOVES (UINT64_C(1) << 19)
/* At least this many annealing moves per virtual core at effort 1. */
#define MOVES_PER_CORE UINT64_C(1024)

typedef struct Rng {
    uint64_t s;
} Rng;

static uint64_t rng_next(Rng *r)
{
    uint64_t z = (r->s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static uint32_t rng_below(Rng *r, uint32_t n)
{
    return n ? (uint32_t)(rng_next(r) % n) : 0;
}

static double rng_unit(Rng *r)
{
    return (double)(rng_next(r) >> 11) / 9007199254740992.0;
}

typedef struct Adj {
    uint32_t *start;   /* n_vcores + 1 */
    uint32_t *peer;
    int64_t *bytes;
    uint32_t *cx, *cy; /* per core of the grid: its x and y (map_core_xy, without its
                          divisions in the moves' deltas) */
} Adj;

/* map_hops from the tables. */
static int64_t hops(const Adj *a, uint32_t k, uint32_t l)
{
    return (int64_t)(a->cx[k] > a->cx[l] ? a->cx[k] - a->cx[l] : a->cx[l] - a->cx[k]) +
           (int64_t)(a->cy[k] > a->cy[l] ? a->cy[k] - a->cy[l] : a->cy[l] - a->cy[k]);
}

/* The change of cost when u moves to core k, the partner skip (a swap's other end) left out. */
static int64_t move_delta(const Adj *a, const uint32_t *where, uint32_t u, uint32_t k,
                          uint32_t skip)
{
    int64_t dl = 0;
    for (uint32_t i = a->start[u]; i < a->start[u + 1]; i++) {
        uint32_t w = a->peer[i];
        if (w == skip)
            continue;
        dl += a->bytes[i] * (hops(a, k, where[w]) - hops(a, where[u], where[w]));
    }
    return dl;
}

/* A coordinate of a partner and the bytes exchanged with it. */
typedef struct WPos {
    uint32_t v;
    int64_t w;
} WPos;

static int wpos_cmp(const void *a, const void *b)
{
    const WPos *x = a, *y = b;
    return x->v < y->v ? -1 : x->v > y->v;
}

/* The weighted median of a[0..n): the coordinate where the sum of bytes x |distance| is
 * least (whatever the order of equal coordinates). Sorts a: by insertion when short (most
 * virtual cores have a few partners; qsort cost the synthetic graph of bench/map 5 % of
 * its time), else O(n log n). */
static uint32_t weighted_median(WPos *a, uint32_t n)
{
    if (n > 32)
        qsort(a, n, sizeof *a, wpos_cmp);
    for (uint32_t i = 1; n <= 32 && i < n; i++) {
        WPos m = a[i];
        uint32_t j = i;
        for (; j > 0 && a[j - 1].v > m.v; j--)
            a[j] = a[j - 1];
        a[j] = m;
    }
    int64_t total = 0, run = 0;
    for (uint32_t i = 0; i < n; i++)
        total += a[i].w;
    for (uint32_t i = 0; i < n; i++) {
        run += a[i].w;
        if (2 * run >= total)
            return a[i].v;
    }
    return n ? a[n - 1].v : 0;
}

/* The core at the weighted median of u's partners' places (x and y apart); scratch holds
 * deg(u) entries. */
static uint32_t median_core(const MapPlan *p, const Adj *a, const uint32_t *where, uint32_t u,
                            WPos *scratch)
{
    uint32_t n = a->start[u + 1] - a->start[u];
    if (!n)
        return where[u];
    uint32_t mx = 0, my = 0;
    for (int axis = 0; axis < 2; axis++) {
        for (uint32_t i = 0; i < n; i++) {
            uint32_t k = where[a->peer[a->start[u] + i]];
            scratch[i] = (WPos){axis ? a->cy[k] : a->cx[k], a->bytes[a->start[u] + i]};
        }
        uint32_t m = weighted_median(scratch, n);
        if (axis)
            my = m;
        else
            mx = m;
    }
    return my * p->grid_w + mx;
}

/* The change of cost when u goes to core k, swapping with what is there. */
static int64_t swap_delta(const Adj *a, const uint32_t *where, const uint32_t *occ, uint32_t u,
                          uint32_t k)
{
    uint32_t x = occ[k];
    int64_t delta = move_delta(a, where, u, k, x);
    if (x != MAP_NONE)
        delta += move_delta(a, where, x, where[u], u);
    return delta;
}

static void do_swap(uint32_t *where, uint32_t *occ, uint32_t u, uint32_t k)
{
    uint32_t x = occ[k], from = where[u];
    where[u] = k;
    occ[k] = u;
    occ[from] = x;
    if (x != MAP_NONE)
        where[x] = from;
}

/* One descent sweep: every virtual core takes the best of the moves to its median core, the
 * cores around it and around its own place, when it lowers the cost. Returns the gain. */
static int64_t sweep(const MapPlan *p, const Adj *a, uint32_t *where, uint32_t *occ,
                     WPos *scratch)
{
    int64_t gain = 0;
    for (uint32_t u = 0; u < p->n_vcores; u++) {
        if (a->start[u + 1] == a->start[u])
            continue;
        uint32_t m = median_core(p, a, where, u, scratch), here = where[u];
        int64_t best = 0;
        uint32_t best_k = MAP_NONE;
        for (int c = 0; c < 2; c++) {
            uint32_t cx = a->cx[c ? here : m], cy = a->cy[c ? here : m];
            for (int d = 0; d < 5; d++) {
                int64_t x = (int64_t)cx + (d == 1) - (d == 2), y = (int64_t)cy + (d == 3) - (d == 4);
                if ((c && !d) || x < 0 || y < 0 || x >= p->grid_w || y >= p->grid_h)
                    continue;
                uint32_t k = (uint32_t)y * p->grid_w + (uint32_t)x;
                int64_t delta = swap_delta(a, where, occ, u, k);
                if (delta < best) {
                    best = delta;
                    best_k = k;
                }
            }
        }
        if (best_k != MAP_NONE) {
            do_swap(where, occ, u, best_k);
            gain -= best;
        }
    }
    return gain;
}

/* A core within distance 1 of k, inside the grid. */
static uint32_t near_core(const MapPlan *p, Rng *r, uint32_t k)
{
    uint32_t x, y;
    map_core_xy(p, k, &x, &y);
    int64_t nx = (int64_t)x + (int64_t)rng_below(r, 3) - 1;
    int64_t ny = (int64_t)y + (int64_t)rng_below(r, 3) - 1;
    if (nx < 0)
        nx = 0;
    if (ny < 0)
        ny = 0;
    if (nx >= p->grid_w)
        nx = p->grid_w - 1;
    if (ny >= p->grid_h)
        ny = p->grid_h - 1;
    return (uint32_t)ny * p->grid_w + (uint32_t)nx;
}

uint64_t map_refine_moves(const MapPlan *p)
{
    uint64_t nv = p->n_vcores;
    uint64_t extra = 4096 * nv < MIN_MOVES ? 4096 * nv : MIN_MOVES;
    uint64_t n = 64 * nv + extra;
    if (n < MOVES_PER_CORE * nv)
        n = MOVES_PER_CORE * nv;
    return (uint64_t)p->opt.effort * n;
}

Status map_refine(MapPlan *p, uint32_t *where, uint64_t iters, double heat, Diag *d)
{
    uint32_t nv = p->n_vcores;
    size_t ncores = (size_t)p->grid_w * p->grid_h;
    if (nv < 2 || !p->n_vedges)
        return ST_OK;
    Adj a = {0};
    a.start = calloc((size_t)nv + 1, sizeof *a.start);
    a.peer = malloc((size_t)2 * p->n_vedges * sizeof *a.peer);
    a.bytes = malloc((size_t)2 * p->n_vedges * sizeof *a.bytes);
    uint32_t *occ = malloc(ncores * sizeof *occ);
    uint32_t *best = malloc((size_t)nv * sizeof *best);
    uint32_t *fill = calloc((size_t)nv + 1, sizeof *fill);
    WPos *scratch = malloc((size_t)2 * p->n_vedges * sizeof *scratch);
    a.cx = malloc(ncores * sizeof *a.cx);
    a.cy = malloc(ncores * sizeof *a.cy);
    Status st = ST_OK;
    if (!a.start || !a.peer || !a.bytes || !occ || !best || !fill || !scratch || !a.cx || !a.cy) {
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory refining the placement");
        goto out;
    }
    for (size_t k = 0; k < ncores; k++)
        map_core_xy(p, (uint32_t)k, &a.cx[k], &a.cy[k]);
    for (uint32_t i = 0; i < p->n_vedges; i++) {
        a.start[p->vedges[i].a + 1]++;
        a.start[p->vedges[i].b + 1]++;
    }
    for (uint32_t v = 0; v < nv; v++)
        a.start[v + 1] += a.start[v];
    for (uint32_t i = 0; i < p->n_vedges; i++) {
        const VEdge *e = &p->vedges[i];
        uint32_t ia = a.start[e->a] + fill[e->a]++, ib = a.start[e->b] + fill[e->b]++;
        a.peer[ia] = e->b;
        a.bytes[ia] = e->bytes;
        a.peer[ib] = e->a;
        a.bytes[ib] = e->bytes;
    }
    for (size_t k = 0; k < ncores; k++)
        occ[k] = MAP_NONE;
    for (uint32_t v = 0; v < nv; v++)
        occ[where[v]] = v;
    memcpy(best, where, (size_t)nv * sizeof *best);
    int64_t cost = map_vedge_traffic(p, where), best_cost = cost;
    double t0 = p->n_vedges ? heat * (double)cost / p->n_vedges : 1.0;
    double decay = iters ? pow(1e-4, 1.0 / (double)iters) : 1.0, temp = t0;
    Rng r = {p->opt.seed ^ UINT64_C(0x5DEECE66D)};
    for (uint64_t it = 0; it < iters; it++) {
        if ((it & 4095) == 0)
            tir_progress(p->opt.progress, "move", it, iters);
        temp *= decay;
        uint32_t u = rng_below(&r, nv);
        uint32_t deg = a.start[u + 1] - a.start[u];
        uint32_t pick = rng_below(&r, 8), anchor = where[u];
        if (deg && pick < 2)
            anchor = median_core(p, &a, where, u, scratch);
        else if (deg && pick < 7)
            anchor = where[a.peer[a.start[u] + rng_below(&r, deg)]];
        uint32_t k = near_core(p, &r, anchor);
        if (k == where[u])
            continue;
        int64_t delta = swap_delta(&a, where, occ, u, k);
        if (delta > 0 && (temp <= 0 || rng_unit(&r) >= exp(-(double)delta / temp)))
            continue;
        do_swap(where, occ, u, k);
        cost += delta;
        if ((it & 1023) == 0 && cost < best_cost) { /* a snapshot now and then: O(nv) */
            best_cost = cost;
            memcpy(best, where, (size_t)nv * sizeof *best);
        }
    }
    tir_progress(p->opt.progress, "move", iters, iters);
    if (cost < best_cost)
        memcpy(best, where, (size_t)nv * sizeof *best);
    memcpy(where, best, (size_t)nv * sizeof *best);
    for (size_t k = 0; k < ncores; k++)
        occ[k] = MAP_NONE;
    for (uint32_t v = 0; v < nv; v++)
        occ[where[v]] = v;
    cost = best_cost < cost ? best_cost : cost;
    for (int s = 0; s < 4 * p->opt.effort; s++) {
        int64_t g = sweep(p, &a, where, occ, scratch);
        cost -= g;
        if (g <= 0 || g * 1000 < cost)
            break;
    }
out:
    free(a.start);
    free(a.peer);
    free(a.bytes);
    free(a.cx);
    free(a.cy);
    free(occ);
    free(best);
    free(fill);
    free(scratch);
    return st;
}
