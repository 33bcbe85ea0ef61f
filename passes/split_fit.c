/* split_fit.c: fit mode (split.h, docs/passes.md "split"). Every compute block, in graph
 * order and then the pieces as they are made, is checked: its group (chip_group_mem: the
 * block, the storage it reads, its output buffer; plus the part of an input cluster that a
 * compute block feeds directly, as the partial sums into a joining CADD) must fit the core
 * budget, and each storage block fed by edges (each directly fed cluster) must hold at most
 * what one destination may receive in a phase. A block that does not fit is cut along the
 * first axis of its preference list on which some number of pieces makes the largest piece
 * fit, by the smallest such number; the list is f, r, y, x for a conv or matrix-vector
 * block whose weights outweigh its activations (fewer weights a core, the MAC array's 32
 * channels full), y, x, f, r otherwise (activations cut into rows: no input is read twice but
 * the halo). When no single cut fits, the block is cut as far as the first axis allows and
 * its pieces are checked again. The estimate scales the group's figures by the share of
 * each part a piece keeps, aligned to the primitive's groups; the pieces are checked with the
 * real figures, so an estimate that falls short only cuts again. */
#include "passes/split.h"
#include "taskir/chip_cost.h"
#include "taskir/diag_block.h"
#include "taskir/rearrange.h"

#include <stdlib.h>
#include <string.h>

typedef struct Need {
    GroupMem m;
    int64_t direct;   /* input clusters fed directly by compute blocks or INPUT */
    int64_t fed;      /* the largest edge-fed input: storage block or direct cluster */
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

/* The memory of b's group and the largest edge-fed input. false on overflow. */
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
        if (!src)
            continue;
        if (bt_info(src->type)->kind == BK_STORAGE) {
            if (!src->data || (src->n_in && !blk_idle_input(src))) {
                int64_t sb = chip_storage_bytes(c, src, b);
                if (sb < 0)
                    return false;
                if (sb > n->fed)
                    n->fed = sb;
            }
            continue;
        }
        EdgeEnds en;
        char why[8];
        if (!edge_ends(g, u, e, &en, why, sizeof why))
            continue;
        int64_t ob = chip_output_bytes(c, src), v = box_vol(en.src_box),
                w = box_vol(en.src_cdims);
        if (ob < 0 || w <= 0)
            return false;
        int64_t part = ob / w * v + (ob % w) * v / w;
        n->direct += part;
        if (part > n->fed)
            n->fed = part;
    }
    n->total = n->m.total + n->direct;
    return true;
}

static bool fits(const Chip *c, const Need *n)
{
    return n->total <= c->core_budget_bytes && n->fed <= c->dest_bytes_per_phase;
}

/* The share of a part of size `part` out of `all` in units of align. */
static double share(int64_t part, int64_t all, int32_t align)
{
    if (align > 1)
        return (double)((part + align - 1) / align) / (double)((all + align - 1) / align);
    return (double)part / (double)all;
}

static bool weight_cut(const Block *b)
{
    return b->type == BT_CC || b->type == BT_CC2D || b->type == BT_CVM;
}

/* The estimated need of the largest piece of b cut at bounds along ax. */
static bool estimate(const Chip *c, const Block *b, const Need *n, SplitAxis ax,
                     const int32_t *bounds, uint32_t parts, Need *out)
{
    int32_t ext = split_extent(b, ax), align = split_align(c, b, ax);
    double best = -1, best_fed = 0;
    /* the largest pieces: split_bounds makes the first ones the longest, the border ones
     * (0 and the last) may read less of a padded input than the inner ones */
    uint32_t look[4] = {0, 1, parts - 2, parts - 1};
    for (int q = 0; q < 4; q++) {
        uint32_t i = look[q];
        SplitPiece pc;
        char why[128];
        if (!split_piece(b, ax, bounds[i], bounds[i + 1], &pc, why, sizeof why))
            return false;
        int64_t len = bounds[i + 1] - bounds[i];
        double fin = 1, fw = 1, fb = 1, fo = 1;
        for (uint32_t k = 0; k < b->n_in && k < SPLIT_MAX_IN; k++) {
            int32_t cd[TIR_CDIMS];
            if (!pc.in_whole[k] && blk_cluster_dims(b, true, k, cd) &&
                (ax != SPLIT_F || !weight_cut(b))) {
                const ClusterSpec *sp = blk_in_spec(b, k);
                if (sp && !strcmp(sp->role, "weight"))
                    continue;
                fin = (double)box_vol(pc.in[k].size) / (double)box_vol(cd);
                break;
            }
        }
        if (ax == SPLIT_F) {
            fw = fb = fo = share(len, ext, align);
            if (!weight_cut(b))
                fin = fo;
        } else if (ax == SPLIT_R) {
            fin = share(len, ext, align);
            fw = (double)len / (double)ext;
            fb = 0;
        } else {
            fo = share(len, ext, align);
        }
        double t = (double)n->m.input * fin + (double)n->direct * fin +
                   (double)n->m.weight * fw + (double)n->m.bias * fb +
                   (double)n->m.output * fo;
        if (t > best) {
            best = t;
            best_fed = (double)n->fed * fin;
        }
    }
    memset(out, 0, sizeof *out);
    out->total = (int64_t)best + 1;
    out->fed = (int64_t)best_fed + 1;
    return true;
}

/* Chooses how to cut b: the axis and the number of pieces. The first axis of b's preference
 * list that b can be cut along: the smallest number of pieces whose largest fits, else as
 * many as the axis allows (the pieces are then cut again along the next axes). false when
 * b cannot be cut at all. */
static bool choose(const Chip *c, const Block *b, const Need *n, SplitAxis *ax, uint32_t *parts)
{
    static const SplitAxis heavy[] = {SPLIT_F, SPLIT_R, SPLIT_Y, SPLIT_X};
    static const SplitAxis light[] = {SPLIT_Y, SPLIT_X, SPLIT_F, SPLIT_R};
    bool w = weight_cut(b) && n->m.weight >= n->m.input + n->direct + n->m.output;
    const SplitAxis *order = w ? heavy : light;
    for (int k = 0; k < 4; k++) {
        SplitAxis a = order[k];
        if (!split_can(b, a))
            continue;
        int32_t ext = split_extent(b, a), align = split_align(c, b, a);
        int64_t units = align > 1 ? (ext + align - 1) / align : ext;
        if (units < 2)
            continue; /* one aligned group: cutting it saves no memory */
        uint32_t max = (uint32_t)units;
        if (a == SPLIT_R && max > SPLIT_MAX_IN - 1)
            max = SPLIT_MAX_IN - 1; /* the joining CADD's inputs */
        int32_t *bounds = malloc(((size_t)max + 1) * sizeof *bounds);
        if (!bounds)
            return false;
        *ax = a;
        *parts = max;
        for (uint32_t p = 2; p <= max; p++) {
            Need e;
            split_bounds(ext, p, align, bounds);
            if (estimate(c, b, n, a, bounds, p, &e) && e.total <= c->core_budget_bytes &&
                e.fed <= c->dest_bytes_per_phase) {
                *parts = p;
                break;
            }
        }
        free(bounds);
        return true;
    }
    return false;
}

static Status no_fit(const Chip *c, const Block *b, const Need *n, Diag *d)
{
    if (n->total > c->core_budget_bytes)
        return diag_block(d, ST_LOGIC, "pass.split.fit", b,
                          "its group needs %lld bytes (input %lld, weights %lld, bias %lld, "
                          "output %lld), more than a core's budget of %u bytes, and it cannot "
                          "be cut further", (long long)n->total,
                          (long long)(n->m.input + n->direct), (long long)n->m.weight,
                          (long long)n->m.bias, (long long)n->m.output, c->core_budget_bytes);
    return diag_block(d, ST_LOGIC, "pass.split.fit", b,
                      "one of its inputs receives %lld bytes, more than the %u bytes one "
                      "destination may receive in a phase, and it cannot be cut further",
                      (long long)n->fed, c->dest_bytes_per_phase);
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

/* The blocks a cut touches: b, the storage blocks it reads and those it writes. A block
 * whose cut would touch one a cut of this round touched waits for the next round. */
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
                mark[p] = 1;
            else if (mark[p])
                return true;
        }
    }
    if (set)
        mark[pos] = 1;
    return !set && mark[pos];
}

/* One round: every block of the worklist that does not fit and touches nothing this
 * round's cuts touched is cut; the pieces and the blocks that waited go to next. */
static Status round_of(Graph *g, const Chip *c, Work *w, Work *next, Diag *d)
{
    SplitBatch sb;
    Status st = split_begin(g, &sb, d);
    if (st != ST_OK)
        return st;
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
        if (!need_of(c, g, &sb.u, b, &n)) {
            st = diag_block(d, ST_LOGIC, "pass.split.fit", b,
                            "its memory cannot be figured (a size overflows)");
            break;
        }
        if (fits(c, &n))
            continue;
        if (touches(g, &sb.u, b, mark, false)) {
            if (!push(next, b->id))
                st = oom(d);
            continue;
        }
        SplitAxis ax;
        uint32_t parts;
        if (!choose(c, b, &n, &ax, &parts)) {
            st = no_fit(c, b, &n, d);
            break;
        }
        touches(g, &sb.u, b, mark, true);
        int32_t *bounds = malloc(((size_t)parts + 1) * sizeof *bounds);
        int32_t *ids = malloc(((size_t)parts + 1) * sizeof *ids);
        if (!bounds || !ids) {
            free(bounds), free(ids);
            st = oom(d);
            break;
        }
        split_bounds(split_extent(b, ax), parts, split_align(c, b, ax), bounds);
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

Status split_fit(Graph *g, const Chip *c, Diag *d)
{
    Work w = {0}, next = {0};
    Status st = ST_OK;
    for (uint32_t i = 0; i < g->n_blocks && st == ST_OK; i++)
        if (bt_info(g->blocks[i]->type)->kind == BK_COMPUTE && !push(&w, g->blocks[i]->id))
            st = oom(d);
    while (st == ST_OK && w.n) {
        next.n = 0;
        st = round_of(g, c, &w, &next, d);
        Work t = w;
        w = next;
        next = t;
    }
    free(w.id);
    free(next.id);
    return st;
}
