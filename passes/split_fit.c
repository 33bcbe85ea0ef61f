/* split_fit.c: fit mode (split.h, docs/passes.md "split"). Every compute block, in graph
 * order and then the pieces as they are made, is checked: its group (chip_group_mem: the
 * block, the storage it reads, its output buffer; plus the share of an input cluster that a
 * compute block feeds directly) must fit the core budget. A block that does not is cut:
 * of the axes it can be cut along, the one whose fewest fitting pieces take the least
 * memory in all (a y or x cut copies the weights into every piece, an r cut the output as
 * partial sums, and adds their join; an f cut shares the input); ties go to the block's
 * preference list: f, r, y, x for a conv or matrix-vector block whose weights outweigh its
 * activations (the MAC array's 32 channels kept full), y, x, f, r otherwise. When no single
 * cut fits, the block is cut along the first axis of its list (weights first when they take
 * more than half a core) by the fewest pieces that fit, or as many as the axis allows, and
 * the pieces are checked again. A piece's memory is figured as chip_group_mem would on it,
 * from stand-ins with the piece's shapes (piece_need).
 *
 * Cuts run in rounds: one change set a round (split.h, SplitBatch), so the use index and
 * the compaction are paid once a round, not once a cut. */
#include "passes/split.h"
#include "taskir/chip_cost.h"
#include "taskir/diag_block.h"
#include "taskir/rearrange.h"

#include <stdlib.h>
#include <string.h>

/* The most pieces a plan of choose() makes along one axis. */
enum { SPLIT_PLAN_MAX = 64 };

typedef struct Need {
    GroupMem m;
    int64_t direct;   /* input clusters fed directly by compute blocks or INPUT */
    int64_t soma;     /* the Soma after the block, fused with it (split_soma_share) */
    int64_t total;
} Need;

static int64_t box_vol(const int32_t *box)
{
    int64_t v = 1;
    for (int i = 0; i < TIR_CDIMS; i++)
        if (box[i] > 0)
            v *= box[i];
    return v;
}

/* The memory of b's group. false on overflow. */
static bool need_of(const Chip *c, const Graph *g, const GraphUses *u, const Block *b,
                    Need *n)
{
    memset(n, 0, sizeof *n);
    if (!chip_group_mem(c, g, u, b, &n->m) || n->m.total < 0)
        return false;
    long pos = graph_block_pos(g, b->id);
    const BlockUses *bu = &u->blocks[pos];
    for (uint32_t i = 0; i < bu->n_in_edges; i++) {
        const Edge *e = g->edges[bu->in_edges[i]];
        const Block *src = graph_block(g, e->src);
        EdgeEnds en;
        char why[8];
        if (!src || bt_info(src->type)->kind == BK_STORAGE ||
            !edge_ends(g, u, e, &en, why, sizeof why))
            continue;
        int64_t ob = chip_output_bytes(c, src), w = box_vol(en.src_cdims);
        if (ob < 0 || w <= 0)
            return false;
        n->direct += (int64_t)((double)ob * (double)box_vol(en.src_box) / (double)w);
    }
    int32_t shape[TIR_NDIMS];
    blk_eff_shape(b, shape);
    if (!split_soma_share(c, g, u, b, shape, &n->soma))
        return false;
    n->total = n->m.total + n->direct + n->soma;
    return true;
}

static bool fits(const Chip *c, const Need *n)
{
    return n->total <= c->core_budget_bytes;
}

static bool weight_cut(const Block *b)
{
    return b->type == BT_CC || b->type == BT_CC2D || b->type == BT_CVM;
}

/* The need of piece pc of b, figured as chip_group_mem would on the piece once made: stand-ins
 * for the piece and for the parts of the storage blocks it would read, with their shapes
 * (the piece's padding aside: it only makes an SIC2D a few rows smaller). */
static bool piece_need(const Chip *c, const Graph *g, const GraphUses *u, const Block *b,
                       SplitAxis ax, const SplitPiece *pc, Need *out)
{
    memset(out, 0, sizeof *out);
    Block tp = *b;
    memcpy(tp.shape.d, pc->shape, sizeof tp.shape.d);
    int bias_k = ax == SPLIT_R && blk_has_bias_cluster(b) ? (int)b->n_in - 1 : -1;
    long pos = graph_block_pos(g, b->id);
    const BlockUses *bu = &u->blocks[pos];
    for (uint32_t i = 0; i < bu->n_in_edges; i++) {
        const Edge *e = g->edges[bu->in_edges[i]];
        const Block *src = graph_block(g, e->src);
        const IfaceUse *iu = uses_find(u, (uint32_t)pos, true, e->id);
        if (!src || !iu || (int)iu->cluster == bias_k || iu->cluster >= SPLIT_MAX_IN)
            continue;
        uint32_t k = iu->cluster;
        bool seen = false;
        for (uint32_t q = 0; q < i && !seen; q++)
            seen = g->edges[bu->in_edges[q]]->src == src->id;
        if (seen)
            continue;
        int64_t bytes;
        if (bt_info(src->type)->kind == BK_STORAGE) {
            Block ts = *src;
            if (!pc->in_whole[k])
                split_storage_shape(src, &pc->in[k], ts.shape.d);
            bytes = chip_storage_bytes(c, &ts, &tp);
        } else { /* fed directly: the share of the producer's output */
            int32_t cd[TIR_CDIMS];
            int64_t ob = chip_output_bytes(c, src), w;
            if (ob < 0 || !blk_cluster_dims(b, true, k, cd) || (w = box_vol(cd)) <= 0)
                return false;
            bytes = (int64_t)((double)ob * (double)box_vol(pc->in[k].size) / (double)w);
            out->direct += bytes;
        }
        if (bytes < 0)
            return false;
        const ClusterSpec *sp = blk_in_spec(b, k);
        const char *role = sp ? sp->role : "input";
        if (!strcmp(role, "bias"))
            out->m.bias += bytes;
        else if (!strcmp(role, "weight") || !strcmp(role, "lut") || !strcmp(role, "alpha"))
            out->m.weight += bytes;
        else if (bt_info(src->type)->kind == BK_STORAGE)
            out->m.input += bytes;
    }
    out->m.output = chip_output_bytes(c, &tp);
    if (out->m.output < 0)
        return false;
    if (!split_soma_share(c, g, u, b, pc->shape, &out->soma))
        return false;
    out->total = out->m.input + out->m.weight + out->m.bias + out->m.output + out->direct +
                 out->soma;
    return true;
}

/* The unit b's channels are cut in (split_unit): of b's precision and of the Soma's after it,
 * which fuse runs on the same core and whose output the pieces send. One is a multiple of
 * the other: each is the values of a packet in a power-of-two width. */
static int32_t unit_of(const Chip *c, const Graph *g, const GraphUses *u, const Block *b,
                       SplitAxis ax)
{
    int32_t k = split_unit(c, blk_prec(b), ax);
    Block *s, *m = ax == SPLIT_F ? split_soma_after(c, g, u, b, false, &s) : NULL;
    int32_t km = m ? split_unit(c, blk_prec(m), ax) : 1;
    return km > k ? km : k;
}

/* The need of the largest piece of b cut at bounds along ax. */
static bool estimate(const Chip *c, const Graph *g, const GraphUses *u, const Block *b,
                     SplitAxis ax, const int32_t *bounds, uint32_t parts, Need *out)
{
    memset(out, 0, sizeof *out);
    /* the largest pieces: split_bounds makes the first ones the longest, the border ones
     * (0 and the last) may read less of a padded input than the inner ones */
    uint32_t look[4] = {0, 1, parts - 2, parts - 1};
    for (int q = 0; q < 4; q++) {
        SplitPiece pc;
        Need e;
        char why[128];
        uint32_t i = look[q];
        if (!split_piece(b, ax, bounds[i], bounds[i + 1], &pc, why, sizeof why) ||
            !piece_need(c, g, u, b, ax, &pc, &e))
            return false;
        if (e.total > out->total)
            *out = e;
    }
    return true;
}

/* The most pieces worth making along a (0: b cannot be cut along a, or no cut saves memory:
 * one aligned group). */
static uint32_t most(const Chip *c, const Block *b, SplitAxis a)
{
    if (!split_can(b, a))
        return 0;
    int32_t ext = split_extent(b, a), align = split_align(c, b, a);
    int64_t units = align > 1 ? (ext + align - 1) / align : ext;
    if (units < 2)
        return 0;
    if (a == SPLIT_R && units > SPLIT_MAX_IN - 1)
        units = SPLIT_MAX_IN - 1; /* the joining CADD's inputs */
    return (uint32_t)units;
}

/* Roughly the memory in all of cutting a piece of need e (which does not fit) along b2 into
 * the fewest pieces that fit, scaling the parts that b2 divides (halos and alignment
 * aside): y and x divide the input and the output and copy the weights, f divides the
 * weights and the output and shares the input of a conv or matrix-vector block (of any
 * other block it divides what y does), r divides the input and the weights and makes the
 * output once a piece, plus the join. -1 when no number of pieces that b2 allows
 * fits. */
static double then_cut(const Chip *c, const Block *b, SplitAxis b2, const Need *e)
{
    double budget = c->core_budget_bytes, in = (double)(e->m.input + e->direct);
    double w = (double)(e->m.weight + e->m.bias), out = (double)(e->m.output + e->soma);
    bool shared = b2 == SPLIT_F && weight_cut(b); /* else f divides as y does */
    double fixed = shared ? in : b2 == SPLIT_R ? out : w;
    double shrunk = shared ? w + out : b2 == SPLIT_R ? in + w : in + out;
    uint32_t max = most(c, b, b2);
    if (!max || fixed >= budget)
        return -1;
    double q = (double)(int64_t)(shrunk / (budget - fixed));
    if (q * (budget - fixed) < shrunk)
        q += 1;
    if (q < 2)
        q = 2;
    if (q > max || (b2 == SPLIT_R && (q + 1) * out > budget))
        return -1;
    double copies = shared || b2 == SPLIT_R ? w : q * w; /* see TWO_CUTS */
    return q * fixed + shrunk + copies + (b2 == SPLIT_R ? (q + 1) * out : 0);
}

/* A plan's cost: the memory of its pieces in all, plus their weights and bias once more, as
 * each copy of the weights is also bytes in the file and on the load path (so that a row
 * band copying a layer's weights weighs what it costs); a plan of two cuts, figured roughly
 * (halos aside), costs this much more than one of the same memory. */
#define TWO_CUTS 1.05

/* Chooses how to cut b (the top of this file): the axis and the number of pieces, by the
 * least cost of the plans of one cut (the fewest pieces along an axis that fit) or of two
 * (p pieces along an axis that do not fit yet, each cut along another axis: figured by
 * then_cut; the next round makes that second cut by its own choice). false when b cannot
 * be cut at all. */
static bool choose(const Chip *c, const Graph *g, const GraphUses *u, const Block *b,
                   const Need *n, SplitAxis *ax, uint32_t *parts)
{
    static const SplitAxis heavy[] = {SPLIT_F, SPLIT_R, SPLIT_Y, SPLIT_X};
    static const SplitAxis light[] = {SPLIT_Y, SPLIT_F, SPLIT_X, SPLIT_R};
    int64_t wb = n->m.weight + n->m.bias;
    bool w = weight_cut(b) && wb >= n->m.input + n->direct + n->m.output;
    const SplitAxis *order = w ? heavy : light;
    double best = -1;
    for (int k = 0; k < 4; k++) {
        SplitAxis a = order[k];
        uint32_t max = most(c, b, a);
        if (!max)
            continue;
        if (max > SPLIT_PLAN_MAX)
            max = SPLIT_PLAN_MAX;
        int32_t unit = unit_of(c, g, u, b, a), bounds[SPLIT_PLAN_MAX + 1];
        for (uint32_t p = 2; p <= max; p++) {
            Need e;
            split_cut_bounds(c, b, a, p, unit, bounds);
            if (!estimate(c, g, u, b, a, bounds, p, &e))
                continue;
            /* the partial sums of an r cut are the output once a piece, and the join's */
            double join = a == SPLIT_R ? (double)(p + 1) * (double)e.m.output : 0;
            if (join > (double)c->core_budget_bytes)
                break; /* a join that does not fit: more pieces only make it larger */
            if (fits(c, &e)) {
                double cost = (double)p * (double)(e.total + e.m.weight + e.m.bias) + join;
                if (best < 0 || cost < best)
                    best = cost, *ax = a, *parts = p;
                break; /* more pieces of this axis only take more memory */
            }
            for (int k2 = 0; k2 < 4; k2++) {
                SplitAxis a2 = order[k2];
                double t = a2 == a ? -1 : then_cut(c, b, a2, &e);
                if (t < 0)
                    continue;
                double cost = ((double)p * t + join) * TWO_CUTS;
                if (best < 0 || cost < best)
                    best = cost, *ax = a, *parts = p;
            }
        }
    }
    if (best >= 0)
        return true;
    /* no plan fits: cut along the first axis as far as it goes, weights first when they
     * are large, and the pieces are checked again */
    if (weight_cut(b) && wb > c->core_budget_bytes / 2)
        order = heavy;
    for (int k = 0; k < 4; k++) {
        uint32_t max = most(c, b, order[k]);
        if (max) {
            *ax = order[k];
            *parts = max;
            return true;
        }
    }
    return false;
}

static Status no_fit(const Chip *c, const Block *b, const Need *n, Diag *d)
{
    char soma[64] = "";
    if (n->soma)
        snprintf(soma, sizeof soma, ", the Soma after it %lld", (long long)n->soma);
    return diag_block(d, ST_LOGIC, "pass.split.fit", b,
                      "its group needs %lld bytes (input %lld, weights %lld, bias %lld, "
                      "output %lld%s), more than a core's budget of %u bytes, and it cannot "
                      "be cut further", (long long)n->total,
                      (long long)(n->m.input + n->direct), (long long)n->m.weight,
                      (long long)n->m.bias, (long long)n->m.output, soma,
                      c->core_budget_bytes);
}

/* The worklist: the ids of the compute blocks to check, the pieces appended as made. */
typedef struct Work {
    int32_t *id;
    size_t n, cap;
} Work;

static bool push(Work *w, int32_t id)
{
    if (w->n == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 256;
        int32_t *n = realloc(w->id, cap * sizeof *n);
        if (!n)
            return false;
        w->id = n;
        w->cap = cap;
    }
    w->id[w->n++] = id;
    return true;
}

static Status oom(Diag *d)
{
    return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
}

enum { READ = 1, WRITTEN = 2 };

/* The storage blocks a cut touches: those b reads (cut or shared) and those it writes
 * (re-fed from the pieces). Cuts of one round may read the same storage blocks (each cuts
 * its own copies) and write the same ones (each re-feeds its own part), but a block whose cut
 * would read what another cut writes, or write what another reads, waits for the next round:
 * its re-feeding would see the edges the other cut replaces. set: record b's. */
static bool touches(const Graph *g, const GraphUses *u, const Block *b, uint8_t *mark,
                    bool set)
{
    long pos = graph_block_pos(g, b->id);
    const BlockUses *bu = &u->blocks[pos];
    for (int side = 0; side < 2; side++) {
        const uint32_t *es = side ? bu->out_edges : bu->in_edges;
        uint32_t ne = side ? bu->n_out_edges : bu->n_in_edges;
        for (uint32_t k = 0; k < ne; k++) {
            const Edge *e = g->edges[es[k]];
            long p = graph_block_pos(g, side ? e->dst : e->src);
            if (p < 0 || (uint32_t)p >= u->n_blocks)
                continue;
            if (set)
                mark[p] |= side ? WRITTEN : READ;
            else if (mark[p] & (side ? READ : WRITTEN))
                return true;
        }
    }
    return false;
}

/* Does Soma block m wait for the Axon blocks before it, one of which does not fit yet
 * (with m's share): m is then cut as they are (split_soma_follow), not on its own. */
static Status axon_waits(const Chip *c, const Graph *g, const GraphUses *u, const Block *m,
                         bool *wait, Diag *d)
{
    *wait = false;
    const Block *S = split_soma_input(c, g, u, m);
    if (!S)
        return ST_OK;
    const BlockUses *su = &u->blocks[graph_block_pos(g, S->id)];
    for (uint32_t i = 0; i < su->n_in_edges && !*wait; i++) {
        const Block *a = graph_block(g, g->edges[su->in_edges[i]]->src);
        Need n;
        if (!need_of(c, g, u, a, &n))
            return diag_block(d, ST_LOGIC, "pass.split.fit", a,
                              "its memory cannot be figured (a size overflows)");
        *wait = !fits(c, &n);
    }
    return ST_OK;
}

/* One round: every block of the worklist that does not fit and touches nothing this
 * round's cuts touched is cut; the pieces and the blocks that waited go to next. */
static Status round_of(Graph *g, const Chip *c, SplitSlices *slices, Work *w, Work *next,
                       Diag *d)
{
    SplitBatch sb;
    Status st = split_begin(g, &sb, d);
    if (st != ST_OK)
        return st;
    sb.slices = slices;
    uint8_t *mark = calloc(sb.u.n_blocks ? sb.u.n_blocks : 1, 1);
    if (!mark) {
        split_commit(g, &sb, d);
        return oom(d);
    }
    for (size_t i = 0; i < w->n && st == ST_OK; i++) {
        Block *b = graph_block(g, w->id[i]);
        if (!b)
            continue;
        Need n;
        SplitAxis ax = SPLIT_Y;
        uint32_t parts = 0;
        int32_t *bounds = NULL;
        /* a Soma whose Axon block was cut is cut as it was, fitting or not */
        bool follow = split_soma_follow(c, g, &sb.u, b, &ax, &bounds, &parts);
        bool wait = false;
        if (!follow && (st = axon_waits(c, g, &sb.u, b, &wait, d)) != ST_OK)
            break;
        if (wait) { /* its Axon block is still to be cut: then it follows */
            if (!push(next, b->id))
                st = oom(d);
            continue;
        }
        if (!follow) {
            if (!need_of(c, g, &sb.u, b, &n)) {
                st = diag_block(d, ST_LOGIC, "pass.split.fit", b,
                                "its memory cannot be figured (a size overflows)");
                break;
            }
            if (fits(c, &n))
                continue;
        }
        if (touches(g, &sb.u, b, mark, false)) {
            free(bounds);
            if (!push(next, b->id))
                st = oom(d);
            continue;
        }
        if (!follow && !choose(c, g, &sb.u, b, &n, &ax, &parts)) {
            st = no_fit(c, b, &n, d);
            break;
        }
        touches(g, &sb.u, b, mark, true);
        if (!bounds)
            bounds = malloc(((size_t)parts + 1) * sizeof *bounds);
        int32_t *ids = malloc(((size_t)parts + 1) * sizeof *ids);
        if (!bounds || !ids) {
            free(bounds), free(ids);
            st = oom(d);
            break;
        }
        if (!follow)
            split_cut_bounds(c, b, ax, parts, unit_of(c, g, &sb.u, b, ax), bounds);
        st = split_block(g, &sb, b, ax, bounds, parts, ids, d);
        for (uint32_t k = 0; st == ST_OK && k < parts + (ax == SPLIT_R); k++)
            if (!push(next, ids[k]))
                st = oom(d);
        free(bounds), free(ids);
    }
    free(mark);
    Status cs = split_commit(g, &sb, d);
    return st != ST_OK ? st : cs;
}

Status split_fit(Graph *g, const Chip *c, SplitSlices *slices, Diag *d)
{
    Work w = {0}, next = {0};
    Status st = ST_OK;
    for (uint32_t i = 0; i < g->n_blocks && st == ST_OK; i++)
        if (bt_info(g->blocks[i]->type)->kind == BK_COMPUTE && !push(&w, g->blocks[i]->id))
            st = oom(d);
    while (st == ST_OK && w.n) {
        next.n = 0;
        st = round_of(g, c, slices, &w, &next, d);
        Work t = w;
        w = next;
        next = t;
    }
    free(w.id);
    free(next.id);
    return st;
}
