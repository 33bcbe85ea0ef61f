/* split_plan.c: fit mode's plan for a block that does not fit a core (split.h,
 * docs/passes.md "split"). A plan is a count of pieces along each axis the block can be cut
 * along (f, y, x, r), the pieces being the grid of those cuts, made in that order (an r cut
 * last, so that each join sums the partial sums of one tile). Its cost is the memory of its
 * pieces in all (each piece's input with its halo, its weights, its output; an r cut's
 * partial sums and joins), plus the weights and bias of every piece twice more, since each
 * copy of the weights is also bytes in the output file and on the load path: a row band
 * repeats the weights of its channels, an f piece re-reads the input, an r cut makes the
 * output once a piece. Of the plans whose largest piece fits (and, with an r cut, whose join
 * fits), the cheapest is made; a plan of more than one cut costs 5 % more a cut (more blocks,
 * more edges). A plan of one cut is the fewest pieces along an axis that fit; ties go to the
 * block's preference list: f, r, y, x for a conv or matrix-vector block whose weights
 * outweigh its activations, y, f, x, r otherwise; but a light block whose plan is one f cut
 * into p pieces is cut into p row, else column, bands when those fit for no more: an f piece
 * holds a slice of each pixel, which its writers and readers cut otherwise send as a run of
 * its own a pixel (a router header, and a disabled one for the gap), bands whole pixels in
 * runs one header carries (docs/backend.md "Transfers"). A plan of several cuts is figured
 * exactly: the largest piece of the grid (of each axis's pieces, the one that needs the
 * most alone, split_estimate's candidates) is made up from the pieces of each cut, halos
 * included, and figured as chip_group_mem would on it. A weight-heavy block whose cheapest
 * plan has row or column bands, each of which would hold a copy of its channels' weights, is
 * cut along f and r alone when that makes pieces that fit, its join then allowed to be larger
 * than a core: the plan gives the join the fewest row bands that fit (join_y), each summing
 * its rows of every partial sum; of such plans, for each count along r the fewest f pieces
 * that fit. When no plan fits, the block is cut
 * along the first axis of its list (weights first when they take more than half a core) as
 * far as it goes, and the pieces are planned again. */
#include "passes/split.h"

#include <string.h>

/* The most pieces a plan makes along one axis; along r (whose join sums every piece). */
enum { SPLIT_PLAN_MAX = 64, SPLIT_PLAN_MAX_R = 16 };

/* A plan of several cuts costs this much more a cut beyond the first. */
#define MORE_CUTS 1.05
/* A plan pays its pieces' weights and bias this many times more than their memory (the
 * top of this file): once in the file, once on the load path. */
#define WEIGHT_TIMES 2.0

/* Per axis and count of pieces p, the bounds of the piece that needs the most alone (lo 0,
 * hi 0: p pieces cannot be made), and the most pieces planned (1: not cut). */
typedef struct AxisPieces {
    uint32_t max;
    int32_t lo[SPLIT_PLAN_MAX + 1], hi[SPLIT_PLAN_MAX + 1];
} AxisPieces;

/* The execution order of a plan's cuts. */
static const SplitAxis order_of_cuts[SPLIT_AXES] = {SPLIT_F, SPLIT_Y, SPLIT_X, SPLIT_R};

static void axis_pieces(const Chip *c, const Graph *g, const GraphUses *u, const Block *b,
                        SplitAxis a, uint32_t cap, AxisPieces *ap)
{
    uint32_t max = split_most(c, b, a);
    ap->max = max < 2 ? 1 : max > cap ? cap : max;
    int32_t unit = ap->max > 1 ? split_unit_of(c, g, u, b, a) : 1;
    int32_t bounds[SPLIT_PLAN_MAX + 1];
    for (uint32_t p = 2; p <= ap->max; p++) {
        SplitNeed e;
        uint32_t i;
        split_cut_bounds(c, b, a, p, unit, bounds);
        bool ok = split_estimate(c, g, u, b, a, bounds, p, &e, &i);
        ap->lo[p] = ok ? bounds[i] : 0;
        ap->hi[p] = ok ? bounds[i + 1] : 0;
    }
}

/* Merges into m, a piece of b, the cut of piece q along a: q's shape and boxes along a. */
static void merge_cut(const Block *b, SplitPiece *m, const SplitPiece *q, SplitAxis a)
{
    static const int cdim[SPLIT_AXES] = {0, 1, 2, 3};
    static const int dims[SPLIT_AXES][2] = {{D_Y, D_IY}, {D_X, D_IX}, {D_F, D_F}, {D_R, D_R}};
    int c = cdim[a];
    m->shape[dims[a][0]] = q->shape[dims[a][0]];
    m->shape[dims[a][1]] = q->shape[dims[a][1]];
    m->out.pos[c] = q->out.pos[c];
    m->out.size[c] = q->out.size[c];
    for (uint32_t k = 0; k < b->n_in && k < SPLIT_MAX_IN; k++)
        if (!q->in_whole[k]) {
            m->in[k].pos[c] = q->in[k].pos[c];
            m->in[k].size[c] = q->in[k].size[c];
            m->in_whole[k] = false;
        }
}

/* The cost of the plan of p[axis] pieces along each axis (the top of this file), figured on
 * its largest piece (without the Soma, which an r cut leaves to the join) and its join.
 * false when either does not fit or cannot be figured. */
static bool figure(const Chip *c, const Graph *g, const GraphUses *u, const Block *b,
                   const AxisPieces *ap, const uint32_t *p, uint32_t *join_y, double *cost)
{
    SplitPiece m, q;
    int cuts = 0;
    double n = 1;
    for (int i = 0; i < SPLIT_AXES; i++) {
        SplitAxis a = order_of_cuts[i];
        if (p[a] < 2)
            continue;
        char why[128];
        if (ap[a].hi[p[a]] <= ap[a].lo[p[a]] ||
            !split_piece(b, a, ap[a].lo[p[a]], ap[a].hi[p[a]], cuts ? &q : &m, why,
                         sizeof why))
            return false;
        if (cuts)
            merge_cut(b, &m, &q, a);
        cuts++;
        n *= p[a];
    }
    SplitNeed e;
    bool r = p[SPLIT_R] > 1;
    if (!cuts || !split_piece_need(c, g, u, b, r, &m, &e))
        return false;
    double piece = (double)(e.total - (r ? e.soma : 0)), budget = c->core_budget_bytes;
    /* the join: every partial sum (int32, the output's size), its output, the Soma */
    double join = r ? (double)(p[SPLIT_R] + 1) * (double)e.m.output + (double)e.soma : 0;
    if (piece > budget || (join > budget && !join_y))
        return false;
    if (join_y) { /* the fewest row bands of the join that fit (rows of int32 sums) */
        int32_t rows = m.shape[D_Y] > 1 ? m.shape[D_Y] : 1;
        uint32_t k = 1;
        while ((int32_t)k < rows && join * (double)((rows + (int32_t)k - 1) / (int32_t)k) >
                                        budget * (double)rows)
            k++;
        *join_y = k;
    }
    double weights = (double)(e.m.weight + e.m.bias);
    *cost = n * (piece + WEIGHT_TIMES * weights) + n / (r ? p[SPLIT_R] : 1) * join;
    for (int k = 1; k < cuts; k++)
        *cost *= MORE_CUTS;
    return true;
}

/* The plan of p[axis] pieces along each axis, its cuts in execution order. */
static void plan_of(const uint32_t *p, SplitPlan *plan)
{
    plan->n = 0;
    plan->join_y = 0;
    for (int i = 0; i < SPLIT_AXES; i++) {
        SplitAxis a = order_of_cuts[i];
        if (p[a] > 1) {
            plan->ax[plan->n] = a;
            plan->parts[plan->n++] = p[a];
        }
    }
}

/* The cheapest plan (cost *cost, -1: none) that cuts b along f and r alone, its join allowed
 * to be larger than a core and then cut into the plan's join_y row bands: for a weight-heavy
 * block that row or column bands would cut, each band holding a copy of its weights (top of
 * this file). */
static void plan_unbanded(const Chip *c, const Graph *g, const GraphUses *u, const Block *b,
                          const AxisPieces *ap, SplitPlan *best, double *best_cost)
{
    *best_cost = -1;
    for (uint32_t pr = 1; pr <= ap[SPLIT_R].max; pr++)
        for (uint32_t pf = 1; pf <= ap[SPLIT_F].max; pf++) {
            uint32_t p[SPLIT_AXES] = {1, 1, pf, pr}, join_y;
            double cost;
            if ((pf == 1 && pr == 1) || !figure(c, g, u, b, ap, p, &join_y, &cost))
                continue;
            if (*best_cost < 0 || cost < *best_cost) {
                *best_cost = cost;
                plan_of(p, best);
                best->join_y = pr > 1 ? join_y : 0;
            }
            break; /* more f pieces each read the input again, for the same weights */
        }
}

/* The cheapest plan of two cuts or more (the top of this file) into *best (cost *cost, -1:
 * none yet); x only when no plan without it fits. For each count along r and x, the fewest
 * row bands that fit for each count along f, which only fall as f grows. */
static void plan_grid(const Chip *c, const Graph *g, const GraphUses *u, const Block *b,
                      const AxisPieces *ap, SplitPlan *best, double *best_cost)
{
    for (int with_x = 0; with_x < 2 && *best_cost < 0; with_x++) {
        uint32_t xs = with_x ? ap[SPLIT_X].max : 1;
        for (uint32_t pr = 1; pr <= ap[SPLIT_R].max; pr++)
            for (uint32_t px = with_x ? 2 : 1; px <= xs; px++) {
                uint32_t p[SPLIT_AXES] = {ap[SPLIT_Y].max, px, 1, pr};
                double cost;
                for (uint32_t pf = 1; pf <= ap[SPLIT_F].max; pf++) {
                    p[SPLIT_F] = pf;
                    if (!figure(c, g, u, b, ap, p, NULL, &cost))
                        continue;
                    while (p[SPLIT_Y] > 1) {
                        double fewer;
                        p[SPLIT_Y]--;
                        if (!figure(c, g, u, b, ap, p, NULL, &fewer)) {
                            p[SPLIT_Y]++;
                            break;
                        }
                        cost = fewer;
                    }
                    int cuts = 0;
                    for (int a = 0; a < SPLIT_AXES; a++)
                        cuts += p[a] > 1;
                    if (cuts < 2 || (*best_cost >= 0 && cost >= *best_cost))
                        continue;
                    *best_cost = cost;
                    plan_of(p, best);
                }
            }
    }
}

/* The cost of one cut of b along a into p pieces (unit: split_unit_of's), when its pieces
 * fit: their memory, weights counted WEIGHT_TIMES more, and an r cut's join (every partial
 * sum and the output); -1 when they do not fit or cannot be figured; -2 when the join of an
 * r cut does not fit (more pieces only make it larger). */
static double one_cut(const Chip *c, const Graph *g, const GraphUses *u, const Block *b,
                      SplitAxis a, uint32_t p, int32_t unit)
{
    int32_t bounds[SPLIT_PLAN_MAX + 1];
    SplitNeed e;
    if (p < 2 || p > SPLIT_PLAN_MAX)
        return -1;
    split_cut_bounds(c, b, a, p, unit, bounds);
    if (!split_estimate(c, g, u, b, a, bounds, p, &e, NULL))
        return -1;
    /* the partial sums of an r cut are the output once a piece, and the join's */
    double join = a == SPLIT_R ? (double)(p + 1) * (double)e.m.output : 0;
    if (join > (double)c->core_budget_bytes)
        return -2;
    if (!split_fits(c, &e))
        return -1;
    double weights = (double)(e.m.weight + e.m.bias);
    return (double)p * ((double)e.total + WEIGHT_TIMES * weights) + join;
}

bool split_choose(const Chip *c, const Graph *g, const GraphUses *u, const Block *b,
                  const SplitNeed *n, SplitPlan *plan)
{
    static const SplitAxis heavy[] = {SPLIT_F, SPLIT_R, SPLIT_Y, SPLIT_X};
    static const SplitAxis light[] = {SPLIT_Y, SPLIT_F, SPLIT_X, SPLIT_R};
    int64_t wb = n->m.weight + n->m.bias;
    bool w = split_weight_cut(b) && wb >= n->m.input + n->direct + n->m.output;
    const SplitAxis *order = w ? heavy : light;
    double best = -1;
    memset(plan, 0, sizeof *plan);
    /* plans of one cut: along each axis the fewest pieces that fit */
    for (int k = 0; k < 4; k++) {
        SplitAxis a = order[k];
        uint32_t max = split_most(c, b, a);
        if (!max)
            continue;
        if (max > SPLIT_PLAN_MAX)
            max = SPLIT_PLAN_MAX;
        int32_t unit = split_unit_of(c, g, u, b, a);
        for (uint32_t p = 2; p <= max; p++) {
            double cost = one_cut(c, g, u, b, a, p, unit);
            if (cost == -2)
                break; /* a join that does not fit: more pieces only make it larger */
            if (cost < 0)
                continue;
            if (best < 0 || cost < best) {
                best = cost;
                plan->n = 1, plan->ax[0] = a, plan->parts[0] = p;
            }
            break; /* more pieces of this axis only take more memory */
        }
    }
    /* plans of several cuts, figured on the grid's largest piece */
    AxisPieces ap[SPLIT_AXES];
    static const uint32_t cap[SPLIT_AXES] = {SPLIT_PLAN_MAX, SPLIT_PLAN_MAX, SPLIT_PLAN_MAX,
                                             SPLIT_PLAN_MAX_R};
    for (int a = 0; a < SPLIT_AXES; a++)
        axis_pieces(c, g, u, b, (SplitAxis)a, cap[a], &ap[a]);
    SplitPlan grid;
    double grid_cost = -1;
    plan_grid(c, g, u, b, ap, &grid, &grid_cost);
    if (grid_cost >= 0 && (best < 0 || grid_cost < best)) {
        best = grid_cost;
        *plan = grid;
    }
    if (w && best >= 0) { /* bands each copying the weights: f and r alone, if they fit */
        bool bands = false;
        for (uint32_t i = 0; i < plan->n; i++)
            bands = bands || plan->ax[i] == SPLIT_Y || plan->ax[i] == SPLIT_X;
        SplitPlan fr;
        double fr_cost;
        if (bands) {
            plan_unbanded(c, g, u, b, ap, &fr, &fr_cost);
            if (fr_cost >= 0)
                *plan = fr;
        }
    }
    if (!w && best >= 0 && plan->n == 1 && plan->ax[0] == SPLIT_F) {
        /* pixels kept whole: the same count of row or column bands, when they fit for no
         * more (top of this file) */
        for (int k = 0; k < 2; k++) {
            SplitAxis a = k ? SPLIT_X : SPLIT_Y;
            uint32_t p = plan->parts[0];
            double cost = p <= split_most(c, b, a)
                              ? one_cut(c, g, u, b, a, p, split_unit_of(c, g, u, b, a)) : -1;
            if (cost >= 0 && cost <= best) {
                plan->ax[0] = a;
                break;
            }
        }
    }
    if (best >= 0)
        return true;
    /* no plan fits: cut along the first axis as far as it goes, weights first when they
     * are large, and the pieces are planned again */
    if (split_weight_cut(b) && wb > c->core_budget_bytes / 2)
        order = heavy;
    for (int k = 0; k < 4; k++) {
        uint32_t max = split_most(c, b, order[k]);
        if (max) {
            plan->n = 1, plan->ax[0] = order[k], plan->parts[0] = max;
            return true;
        }
    }
    return false;
}
