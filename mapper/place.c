/* place.c: virtual cores onto the physical cores of the chip array (docs/mapper.md,
 * "Algorithm", step 4).
 *
 * The cores form one grid: the chips of the array side by side (chips_x x chips_y of the
 * description, grown by a column or a row of chips on its narrower side while the plan needs
 * more cores), a core at (x, y) of
 * the grid being core (x mod cores_x, y mod cores_y) of chip (x / cores_x, y / cores_y); an
 * XY route between two cores takes |dx| + |dy| hops, across chip edges too.
 * The traffic graph: a vertex per virtual core, an edge per pair that exchanges bytes, weighed
 * by the bytes. Scotch maps it onto a 2-D mesh directly (SCOTCH_archMesh2): that is why
 * Scotch and not METIS, which only partitions a graph into parts and knows no distance
 * between them. The mesh is the smallest near-square rectangle of the grid that holds every
 * virtual core, so that Scotch does not spread a small plan over a whole chip. Scotch may put
 * two vertices on one core; the later one moves to the nearest free core. Scotch runs with
 * its deterministic option and the seed, so a seed gives one placement.
 * The baselines (snake order, Scotch alone) and the default (two starts, Scotch's default
 * placement and a loose one, each refined by place_chain.c, the cheaper kept) are all scored by route.c's map_route_where (multicast chains, as the routes will be) and
 * by map_vedge_traffic (unicast, grid.c).
 */
#include "mapper/plan.h"

#include "taskir/diag_block.h"

#include <scotch.h>
#include <stdlib.h>
#include <string.h>

void map_scotch_errors(void); /* scotch_err.c */

void map_grid_chips(const Chip *c, uint64_t n, uint32_t *chips_x, uint32_t *chips_y)
{
    uint64_t per_chip = (uint64_t)c->cores_x * c->cores_y;
    uint32_t cy = c->chips_y ? c->chips_y : 1, cx = c->chips_x ? c->chips_x : 1;
    uint64_t chips = per_chip ? (n + per_chip - 1) / per_chip : 1;
    while ((uint64_t)cx * cy < chips) { /* grow the narrower side of the grid by a chip */
        if ((uint64_t)cx * c->cores_x <= (uint64_t)cy * c->cores_y)
            cx++;
        else
            cy++;
    }
    *chips_x = cx;
    *chips_y = cy;
}

/* The grid: enough chips for every virtual core, hops within a packet's reach. */
static Status size_grid(MapPlan *p, Diag *d)
{
    const Chip *c = p->chip;
    uint64_t per_chip = (uint64_t)c->cores_x * c->cores_y;
    uint32_t cy = c->chips_y ? c->chips_y : 1, cx = c->chips_x ? c->chips_x : 1;
    if (!per_chip)
        return diag_add(d, ST_LOGIC, "map.chips", NULL, "the chip has no cores");
    map_grid_chips(c, p->n_vcores, &cx, &cy);
    uint64_t w = (uint64_t)cx * c->cores_x, h = (uint64_t)cy * c->cores_y;
    if (w - 1 > (uint64_t)c->hop_max || h - 1 > (uint64_t)c->hop_max)
        return diag_add(d, ST_LOGIC, "map.chips", NULL,
                        "the plan needs %u cores: %llu x %llu chips, a grid of %llu x %llu "
                        "cores, past the router's reach of %d hops",
                        p->n_vcores, (unsigned long long)cx, (unsigned long long)cy,
                        (unsigned long long)w, (unsigned long long)h, c->hop_max);
    p->chips_x = cx;
    p->chips_y = cy;
    p->grid_w = (uint32_t)w;
    p->grid_h = (uint32_t)h;
    return ST_OK;
}

void map_place_snake(const MapPlan *p, uint32_t *where)
{
    for (uint32_t v = 0; v < p->n_vcores; v++) {
        uint32_t y = v / p->grid_w, x = v % p->grid_w;
        if (y % 2)
            x = p->grid_w - 1 - x;
        where[v] = y * p->grid_w + x;
    }
}

/* The nearest free core to k (rings of growing Manhattan distance, in a fixed order). */
static uint32_t nearest_free(const MapPlan *p, const uint8_t *taken, uint32_t k)
{
    uint32_t kx, ky;
    map_core_xy(p, k, &kx, &ky);
    uint32_t span = p->grid_w + p->grid_h;
    for (uint32_t r = 1; r <= span; r++)
        for (int32_t dy = -(int32_t)r; dy <= (int32_t)r; dy++) {
            int32_t rest = (int32_t)r - (dy < 0 ? -dy : dy);
            for (int s = 0; s < (rest ? 2 : 1); s++) {
                int64_t x = (int64_t)kx + (s ? rest : -rest), y = (int64_t)ky + dy;
                if (x < 0 || y < 0 || x >= p->grid_w || y >= p->grid_h)
                    continue;
                uint32_t q = (uint32_t)y * p->grid_w + (uint32_t)x;
                if (!taken[q])
                    return q;
            }
        }
    return MAP_NONE;
}

Status map_place_scotch(const MapPlan *p, uint64_t seed, double imbalance, uint32_t *where,
                        Diag *d)
{
    uint32_t nv = p->n_vcores;
    /* the smallest near-square rectangle of the grid holding nv cores */
    uint32_t h = 1;
    while ((uint64_t)h * h < nv && h < p->grid_h)
        h++;
    uint32_t w = (nv + h - 1) / h;
    if (w > p->grid_w) {
        w = p->grid_w;
        h = (nv + w - 1) / w;
    }
    if (w == 0)
        w = 1;
    SCOTCH_Num *vert = malloc(((size_t)nv + 1) * sizeof *vert);
    SCOTCH_Num *adj = malloc(((size_t)2 * p->n_vedges + 1) * sizeof *adj);
    SCOTCH_Num *lo = malloc(((size_t)2 * p->n_vedges + 1) * sizeof *lo);
    SCOTCH_Num *part = malloc(((size_t)nv + 1) * sizeof *part);
    uint32_t *deg = calloc((size_t)nv + 1, sizeof *deg);
    uint8_t *taken = calloc((size_t)p->grid_w * p->grid_h, 1);
    Status st = ST_OK;
    if (!vert || !adj || !lo || !part || !deg || !taken ||
        p->n_vedges > (uint32_t)INT32_MAX / 2) {
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory placing cores");
        goto out;
    }
    int64_t maxw = 1;
    for (uint32_t i = 0; i < p->n_vedges; i++)
        if (p->vedges[i].bytes > maxw)
            maxw = p->vedges[i].bytes;
    int64_t scale = maxw / 1000000 + 1; /* weights within Scotch's int, sums too */
    for (uint32_t i = 0; i < p->n_vedges; i++) {
        deg[p->vedges[i].a]++;
        deg[p->vedges[i].b]++;
    }
    vert[0] = 0;
    for (uint32_t v = 0; v < nv; v++)
        vert[v + 1] = vert[v] + (SCOTCH_Num)deg[v];
    memset(deg, 0, ((size_t)nv + 1) * sizeof *deg);
    for (uint32_t i = 0; i < p->n_vedges; i++) {
        const VEdge *e = &p->vedges[i];
        SCOTCH_Num wgt = (SCOTCH_Num)(e->bytes / scale > 0 ? e->bytes / scale : 1);
        SCOTCH_Num ia = vert[e->a] + (SCOTCH_Num)deg[e->a]++;
        SCOTCH_Num ib = vert[e->b] + (SCOTCH_Num)deg[e->b]++;
        adj[ia] = (SCOTCH_Num)e->b;
        lo[ia] = wgt;
        adj[ib] = (SCOTCH_Num)e->a;
        lo[ib] = wgt;
    }
    map_scotch_errors();
    SCOTCH_Graph g, cg;
    SCOTCH_Context ctx;
    SCOTCH_Arch arch;
    SCOTCH_Strat strat;
    SCOTCH_graphInit(&g);
    SCOTCH_contextInit(&ctx);
    SCOTCH_archInit(&arch);
    SCOTCH_stratInit(&strat);
    bool bound = false;
    int rc = SCOTCH_graphBuild(&g, 0, (SCOTCH_Num)nv, vert, vert + 1, NULL, NULL,
                               vert[nv], adj, lo);
    if (!rc)
        rc = SCOTCH_contextRandomClone(&ctx);
    if (!rc) {
        SCOTCH_contextRandomSeed(&ctx, (SCOTCH_Num)(seed & 0x7fffffff));
        rc = SCOTCH_contextOptionSetNum(&ctx, SCOTCH_OPTIONNUMDETERMINISTIC, 1);
    }
    if (!rc)
        rc = SCOTCH_contextBindGraph(&ctx, &g, &cg);
    bound = !rc;
    if (!rc)
        rc = SCOTCH_archMesh2(&arch, (SCOTCH_Num)w, (SCOTCH_Num)h);

    if (!rc && imbalance >= 0)
        rc = SCOTCH_stratGraphMapBuild(&strat, SCOTCH_STRATDEFAULT, (SCOTCH_Num)w * h, imbalance);
    if (!rc)
        rc = SCOTCH_graphMap(&cg, &arch, &strat, part);
    if (bound)
        SCOTCH_graphExit(&cg);
    SCOTCH_stratExit(&strat);
    SCOTCH_archExit(&arch);
    SCOTCH_contextExit(&ctx);
    SCOTCH_graphExit(&g);
    if (rc) {
        st = diag_add(d, ST_RUNTIME, "map.scotch", NULL,
                      "Scotch could not map %u cores onto a %u x %u mesh", nv, w, h);
        goto out;
    }
    for (uint32_t v = 0; v < nv; v++) {
        uint32_t t = (uint32_t)part[v];
        uint32_t k = (t / w) * p->grid_w + t % w;
        if (t >= w * h || taken[k])
            k = nearest_free(p, taken, t < w * h ? k : 0);
        if (k == MAP_NONE) {
            st = diag_add(d, ST_RUNTIME, "map.internal", NULL, "no free core left");
            goto out;
        }
        taken[k] = 1;
        where[v] = k;
    }
out:
    free(vert);
    free(adj);
    free(lo);
    free(part);
    free(deg);
    free(taken);
    return st;
}

/* Phase groups per chip within the chip's limit. */
static Status check_chips(MapPlan *p, Diag *d)
{
    const Chip *c = p->chip;
    uint32_t nchips = p->chips_x * p->chips_y;
    uint32_t words = (p->n_stages + 63) / 64;
    uint64_t *seen = calloc((size_t)nchips * words, sizeof *seen);
    if (!seen)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory placing cores");
    Status st = ST_OK;
    for (uint32_t v = 0; v < p->n_vcores; v++) {
        uint32_t x, y;
        map_core_xy(p, p->vcores[v].core, &x, &y);
        uint32_t chip = (y / c->cores_y) * p->chips_x + x / c->cores_x;
        uint32_t s = (uint32_t)p->vcores[v].stage;
        seen[(size_t)chip * words + s / 64] |= UINT64_C(1) << (s % 64);
    }
    for (uint32_t k = 0; k < nchips && st == ST_OK; k++) {
        uint32_t n = 0;
        for (uint32_t w = 0; w < words; w++)
            n += (uint32_t)__builtin_popcountll(seen[(size_t)k * words + w]);
        if (n > c->max_phase_groups)
            st = diag_add(d, ST_LOGIC, "map.phases", NULL,
                          "chip (%u,%u) would run %u phase groups, more than its %u",
                          k % p->chips_x, k / p->chips_x, n, c->max_phase_groups);
    }
    free(seen);
    return st;
}

Status map_place_sketch(MapPlan *p, uint32_t *where, Diag *d)
{
    Status st = size_grid(p, d);
    if (st == ST_OK)
        st = map_build_vedges(p, NULL, d);
    if (st == ST_OK)
        st = map_place_scotch(p, p->opt.seed, -1, where, d);
    free(p->vedges);
    p->vedges = NULL;
    p->n_vedges = 0;
    return st;
}

/* The second start of the refinement: Scotch letting a mesh vertex take this share more
 * than its load (SCOTCH_stratGraphMapBuild's balance ratio; the default strategy, the
 * baseline, keeps 1 %); two vertices on one core then go to the nearest free cores. */
#define LOOSE_IMBALANCE 0.2

/* Refines two starts with half the annealing moves each and keeps the placement that routes
 * cheaper (the first on a tie): Scotch's default placement (where[] on entry, the baseline)
 * and its loose one. Which start refines better depends on the graph: ResNet-50 (2321
 * cores) 306.7 M byte x hops from the default start, 295.5 M from the loose one (2320 cores
 * after the split changes of 2026-11-26: 338.8 M and 336.3 M; 2330 cores after the merge
 * chose by cost: 315.0 M and 298.0 M); the
 * 10,240-group synthetic graph 3.17 M and 2.87 M; its 2,560-group version 713 k and 759 k.
 * The refinement never routes worse than its start, so neither is the result. */
static Status refine_two_starts(MapPlan *p, uint32_t *where, Diag *d)
{
    uint64_t moves = map_refine_moves(p) / 2;
    uint32_t *loose = malloc(((size_t)p->n_vcores + 1) * sizeof *loose);
    if (!loose)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory placing cores");
    Status st = map_refine_chains(p, where, moves, d);
    if (st == ST_OK)
        st = map_place_scotch(p, p->opt.seed, LOOSE_IMBALANCE, loose, d);
    if (st == ST_OK)
        st = map_refine_chains(p, loose, moves, d);
    int64_t a = st == ST_OK ? map_route_where(p, where, NULL, NULL) : 0;
    int64_t b = st == ST_OK ? map_route_where(p, loose, NULL, NULL) : 0;
    if (a < 0 || b < 0)
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory placing cores");
    if (st == ST_OK && b < a)
        memcpy(where, loose, (size_t)p->n_vcores * sizeof *where);
    free(loose);
    return st;
}

Status map_place(MapPlan *p, Diag *d)
{
    Status st = size_grid(p, d);
    if (st == ST_OK)
        st = map_build_vedges(p, NULL, d);
    if (st != ST_OK)
        return st;
    uint32_t *where = malloc(((size_t)p->n_vcores + 1) * sizeof *where);
    if (!where)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory placing cores");
    if (p->opt.place == MAP_PLACE_SNAKE) {
        map_place_snake(p, where);
    } else {
        st = map_place_scotch(p, p->opt.seed, -1, where, d);
        if (st == ST_OK) {
            p->traffic_scotch = map_vedge_traffic(p, where);
            p->traffic_scotch_mc = map_route_where(p, where, NULL, NULL);
            if (p->traffic_scotch_mc < 0)
                st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory placing cores");
        }
        if (st == ST_OK && p->opt.place == MAP_PLACE_REFINED && p->opt.effort > 0)
            st = refine_two_starts(p, where, d);
    }
    for (uint32_t v = 0; st == ST_OK && v < p->n_vcores; v++)
        p->vcores[v].core = where[v];
    free(where);
    if (st == ST_OK)
        st = check_chips(p, d);
    return st;
}
