/* exact.c: the interval analysis of exact.h (docs/exactness.md, "The analysis").
 *
 * Blocks are visited in a topological order of the edges (Kahn's algorithm). A cluster's
 * range is the union of its edges' source ranges (plus 0 when a rearrangement may fill
 * with zeros); a storage block's range the union of its writers' and of its data (or 0,
 * its initial content); an INPUT's its precision's (without one, the precisions' of the
 * storage it writes: what the chip can receive there). A compute block follows the loop nest of
 * docs/semantics.md: its exact result's range, wrapped to int32 when it may leave int32, then
 * clamped to its precision, and its accumulator's range (exact.h). A sum over n terms t_j in
 * [a_j, b_j] from a bias in [c, d] has partial sums in [c + sum min(0, a_j), d + sum max(0,
 * b_j)] whatever the order; with constant weights a term is w * x, so per output channel
 * the sums P of the positive and N of the negative weights give every bound: the exact sum
 * lies in [c + P lo + N hi, d + P hi + N lo] for x in [lo, hi], the partial sums in
 * [c + P min(lo, 0) + N max(hi, 0), d + P max(hi, 0) + N min(lo, 0)]. A window that may
 * reach into padding adds zero terms: its exact sum is then bounded by the partial sums'. */
#include "taskir/exact_internal.h"

#include <stdlib.h>

static const ExactRange R_INT32 = {INT32_MIN, INT32_MAX};

static ExactRange rng(int64_t lo, int64_t hi)
{
    return (ExactRange){lo, hi};
}

static ExactRange r_union(ExactRange a, ExactRange b)
{
    return rng(a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi);
}

static ExactRange r_with0(ExactRange a)
{
    return r_union(a, rng(0, 0));
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* {a * b : a in x, b in y} */
static ExactRange r_mul(ExactRange x, ExactRange y)
{
    int64_t p[4] = {exact_mul(x.lo, y.lo), exact_mul(x.lo, y.hi), exact_mul(x.hi, y.lo),
                    exact_mul(x.hi, y.hi)};
    ExactRange r = rng(p[0], p[0]);
    for (int i = 1; i < 4; i++)
        r = r_union(r, rng(p[i], p[i]));
    return r;
}

/* The range of a precision, within int32 (docs/semantics.md, "Precision clamp"). */
ExactRange exact_prec_range(PrecisionId p)
{
    const PrecisionInfo *pi = pr_info(p);
    if (!pi)
        return R_INT32;
    return rng(max64(pi->lo, INT32_MIN), min64(pi->hi, INT32_MAX));
}

static int64_t clamp(int64_t v, ExactRange r)
{
    return v < r.lo ? r.lo : v > r.hi ? r.hi : v;
}

/* A compute block's result from its exact value's range: wrapped, then clamped. */
static ExactRange finish(const Block *b, ExactRange raw)
{
    ExactRange w = exact_inside(raw, INT32_MIN, INT32_MAX) ? raw : R_INT32;
    ExactRange p = exact_prec_range(blk_prec(b));
    return rng(clamp(w.lo, p), clamp(w.hi, p));
}

/* Does the rearrangement step fill some of its result with zeros? */
static bool zero_fill(RearrangeType t)
{
    return t == RT_SHIFT || t == RT_SHEAR || t == RT_AFFINE || t == RT_PROJECT;
}

typedef struct Ctx {
    const Graph *g;
    GraphUses u;
    ExactBlock *xb;
    ExactRange *cl;             /* the input clusters' ranges of the block being visited */
    uint32_t n_cl;
    int64_t *pos_sum, *neg_sum; /* per output channel: sums of the positive and negative
                                   weights */
    int64_t *bias;              /* per output channel: the constant bias */
    int64_t per_f;              /* weight values per output channel (the walk's index / per_f) */
    uint32_t cap_f;
} Ctx;

/* The ranges of block pos's input clusters into c->cl (clusters without an edge: 0). */
static void cluster_ranges(Ctx *c, uint32_t pos)
{
    const Block *b = c->g->blocks[pos];
    const BlockUses *bu = &c->u.blocks[pos];
    c->n_cl = b->n_in;
    bool *seen = (bool *)(c->cl + b->n_in); /* scratch after the ranges */
    for (uint32_t k = 0; k < b->n_in; k++)
        seen[k] = false;
    for (uint32_t i = 0; i < bu->n_in_edges; i++) {
        const Edge *e = c->g->edges[bu->in_edges[i]];
        const IfaceUse *di = uses_edge_end(c->g, &c->u, e, false, NULL);
        long spos = graph_block_pos(c->g, e->src);
        if (!di || di->cluster >= b->n_in || spos < 0)
            continue;
        ExactRange r = c->xb[spos].out;
        for (uint32_t k = 0; k < e->n_re; k++)
            if (zero_fill(e->re[k].type))
                r = r_with0(r);
        c->cl[di->cluster] = seen[di->cluster] ? r_union(c->cl[di->cluster], r) : r;
        seen[di->cluster] = true;
    }
    for (uint32_t k = 0; k < b->n_in; k++)
        if (!seen[k])
            c->cl[k] = rng(0, 0);
}

static bool padded(const Block *b)
{
    return blk_attr(b, AT_PAD_UP) > 0 || blk_attr(b, AT_PAD_DOWN) > 0 ||
           blk_attr(b, AT_PAD_LEFT) > 0 || blk_attr(b, AT_PAD_RIGHT) > 0;
}

/* The bias range of a BF_BIAS block: its bias cluster, or CONSTANT_B. */
static ExactRange bias_range(const Ctx *c, const Block *b)
{
    if (blk_has_bias_cluster(b) && c->n_cl > 0)
        return c->cl[c->n_cl - 1];
    int32_t v = blk_attr(b, AT_CONSTANT_B);
    return rng(v, v);
}

/* The union of the first role's clusters (n_var of them). */
static ExactRange first_role(const Ctx *c, const Block *b)
{
    uint32_t n = blk_n_variadic(b);
    ExactRange r = c->n_cl ? c->cl[0] : rng(0, 0);
    for (uint32_t k = 1; k < n && k < c->n_cl; k++)
        r = r_union(r, c->cl[k]);
    return r;
}

/* A sum from a bias in bias over n terms each in t: (exact, partial sums). */
static void sum_terms(ExactRange bias, int64_t n, ExactRange t, bool pad, ExactRange *raw,
                      ExactRange *acc)
{
    *acc = rng(exact_add(bias.lo, exact_mul(n, min64(t.lo, 0))),
               exact_add(bias.hi, exact_mul(n, max64(t.hi, 0))));
    *raw = pad ? *acc : rng(exact_add(bias.lo, exact_mul(n, t.lo)),
                            exact_add(bias.hi, exact_mul(n, t.hi)));
}

static void on_weight(void *arg, int64_t index, int64_t v)
{
    Ctx *c = arg;
    int64_t f = index / c->per_f;
    if (f < 0 || f >= c->cap_f)
        return;
    if (v > 0)
        c->pos_sum[f] = exact_add(c->pos_sum[f], v);
    else
        c->neg_sum[f] = exact_add(c->neg_sum[f], v);
}

static void on_bias(void *arg, int64_t index, int64_t v)
{
    Ctx *c = arg;
    if (index >= 0 && index < c->cap_f)
        c->bias[index] = v;
}

/* Grows the per-channel arrays to nf. false when out of memory. */
static bool grow_f(Ctx *c, int64_t nf)
{
    if (nf <= c->cap_f)
        return true;
    if (nf > (int64_t)1 << 28)
        return false;
    free(c->pos_sum);
    free(c->neg_sum);
    free(c->bias);
    c->pos_sum = malloc((size_t)nf * sizeof *c->pos_sum);
    c->neg_sum = malloc((size_t)nf * sizeof *c->neg_sum);
    c->bias = malloc((size_t)nf * sizeof *c->bias);
    c->cap_f = c->pos_sum && c->neg_sum && c->bias ? (uint32_t)nf : 0;
    return c->cap_f != 0;
}

/* CC, CC2D, CVM: input cluster 0 times the weights of cluster 1 (n per output channel),
 * from the bias. With constant weights, per output channel; else by the ranges. false when
 * out of memory. */
static bool weighted(Ctx *c, uint32_t pos, int64_t nf, int64_t n, ExactRange *raw,
                     ExactRange *acc)
{
    const Block *b = c->g->blocks[pos];
    ExactRange x = c->cl[0], bias = bias_range(c, b);
    bool pad = padded(b);
    if (c->n_cl < 2 || !grow_f(c, nf)) {
        sum_terms(bias, n, r_mul(x, c->n_cl > 1 ? c->cl[1] : rng(0, 0)), pad, raw, acc);
        return c->n_cl < 2 || nf > (int64_t)1 << 28;
    }
    for (int64_t f = 0; f < nf; f++)
        c->pos_sum[f] = c->neg_sum[f] = 0;
    c->per_f = n;
    if (!exact_const_walk(c->g, &c->u, pos, 1, on_weight, c)) {
        sum_terms(bias, n, r_mul(x, c->cl[1]), pad, raw, acc);
        return true;
    }
    bool cbias = blk_has_bias_cluster(b) && c->n_cl > 2 &&
                 exact_const_walk(c->g, &c->u, pos, c->n_cl - 1, on_bias, c);
    for (int64_t f = 0; f < nf; f++) {
        ExactRange bf = cbias ? rng(c->bias[f], c->bias[f]) : bias;
        int64_t p = c->pos_sum[f], q = c->neg_sum[f];
        ExactRange a = rng(exact_add(bf.lo, exact_add(exact_mul(p, min64(x.lo, 0)),
                                                      exact_mul(q, max64(x.hi, 0)))),
                           exact_add(bf.hi, exact_add(exact_mul(p, max64(x.hi, 0)),
                                                      exact_mul(q, min64(x.lo, 0)))));
        ExactRange r = pad ? a : rng(exact_add(bf.lo, exact_add(exact_mul(p, x.lo),
                                                                exact_mul(q, x.hi))),
                                     exact_add(bf.hi, exact_add(exact_mul(p, x.hi),
                                                                exact_mul(q, x.lo))));
        *acc = f ? r_union(*acc, a) : a;
        *raw = f ? r_union(*raw, r) : r;
    }
    return true;
}

/* The clip of CCMPB (big) / CCMPS at CMP and the precision's bound (docs/semantics.md 3.8,
 * 3.9) applied to a value range. */
static ExactRange cmp_clip(const Block *b, bool big, ExactRange v)
{
    ExactRange p = exact_prec_range(blk_prec(b));
    bool one_d = !b->shape.d[D_Y] && !b->shape.d[D_X] && !b->shape.d[D_IY] &&
                 !b->shape.d[D_IX];
    if (one_d) {
        p.hi = min64(p.hi, 127);
        p.lo = max64(p.lo, -128);
    }
    int64_t cmp = blk_attr(b, AT_CMP), lo = big ? cmp : p.lo, hi = big ? p.hi : cmp;
    /* CCMPB: min(max(v, lo), hi); CCMPS: max(min(v, hi), lo) */
    if (big)
        return rng(min64(max64(v.lo, lo), hi), min64(max64(v.hi, lo), hi));
    return rng(max64(min64(v.lo, hi), lo), max64(min64(v.hi, hi), lo));
}

static int64_t asr(int64_t v, int s)
{
    return v >= 0 ? v >> s : ~(~v >> s);
}

/* The entries a CLUT's indices reach: those of idx in [lo, hi] (idx the index shifted),
 * entry idx for idx >= 0 and idx + n for idx < 0, and their values' range. */
typedef struct LutReach {
    int64_t lo, hi, n;
    bool any;
    ExactRange r;
} LutReach;

static void on_entry(void *arg, int64_t k, int64_t v)
{
    LutReach *l = arg;
    bool pos = k >= (l->lo > 0 ? l->lo : 0) && k <= l->hi;
    bool neg = k - l->n >= l->lo && k - l->n <= (l->hi < -1 ? l->hi : -1);
    if (!pos && !neg)
        return;
    l->r = l->any ? r_union(l->r, rng(v, v)) : rng(v, v);
    l->any = true;
}

/* The range of what CLUT pos reads from its table (of values in table) for indices in
 * index shifted by sh: only the entries those indices reach, when the table is constant and
 * the indices stay inside it (-n .. n - 1, where the simulator and the chip read the same
 * entry; docs/exactness.md, "The analysis"); else the whole table's. A lookup of |x| for x
 * in -127 .. 127 is then 0 .. 127, not the 128 of index -128. */
static ExactRange lut_reached(Ctx *c, uint32_t pos, ExactRange index, int sh, ExactRange table)
{
    int32_t dw = blk_attr(c->g->blocks[pos], AT_LUT_DW);
    if (dw < 1 || dw > 30 || index.lo < -EXACT_INF / 2 || index.hi > EXACT_INF / 2)
        return table;
    LutReach l = {asr(index.lo, sh), asr(index.hi, sh), (int64_t)1 << dw, false, table};
    if (l.lo < -l.n || l.hi > l.n - 1 || !exact_const_walk(c->g, &c->u, pos, 1, on_entry, &l) ||
        !l.any)
        return table;
    return l.r;
}

/* The ranges of compute block pos from its clusters' (c->cl). */
static bool compute(Ctx *c, uint32_t pos)
{
    const Block *b = c->g->blocks[pos];
    ExactBlock *x = &c->xb[pos];
    int32_t e[TIR_NDIMS];
    blk_eff_shape(b, e);
    int64_t nf = e[D_F] > 0 ? e[D_F] : 1, kk = (int64_t)(e[D_KY] > 0 ? e[D_KY] : 1) *
                                                 (e[D_KX] > 0 ? e[D_KX] : 1);
    int64_t nr = e[D_R] > 0 ? e[D_R] : 1;
    ExactRange in = first_role(c, b), raw = R_INT32, acc = R_INT32;
    bool oom = false;
    int sh = blk_attr(b, AT_BIT_SHIFT_NUM);
    sh = sh < 0 ? 0 : sh > 31 ? 31 : sh;
    switch (b->type) {
    case BT_CC:
    case BT_CC2D:
        oom = !weighted(c, pos, nf, exact_mul(nr, kk), &raw, &acc);
        break;
    case BT_CVM:
        oom = !weighted(c, pos, nf, nr, &raw, &acc);
        break;
    case BT_CADD:
    case BT_CAVG: {
        ExactRange rk, ak;
        bool pad = padded(b);
        uint32_t n = blk_n_variadic(b);
        acc = raw = bias_range(c, b);
        for (uint32_t k = 0; k < n && k < c->n_cl; k++) {
            sum_terms(rng(0, 0), kk, c->cl[k], pad, &rk, &ak);
            acc = rng(exact_add(acc.lo, ak.lo), exact_add(acc.hi, ak.hi));
            raw = rng(exact_add(raw.lo, rk.lo), exact_add(raw.hi, rk.hi));
        }
        ExactRange mr, ma; /* v + (c - 2^S floor(v / 2^S)): a remainder (exact_mod.c) */
        if (exact_mod_sum(c->g, &c->u, c->xb, pos, c->cl, c->n_cl, &mr, &ma)) {
            raw = mr;
            acc = ma;
        }
        break;
    }
    case BT_CVVH:
    case BT_CAX:
    case BT_CVS: {
        ExactRange k2 = b->type == BT_CVS ? rng(blk_attr(b, AT_CONSTANT_A),
                                               blk_attr(b, AT_CONSTANT_A))
                        : c->n_cl > 1 ? c->cl[1] : rng(0, 0);
        sum_terms(bias_range(c, b), 1, r_mul(c->n_cl ? c->cl[0] : rng(0, 0), k2),
                  b->type == BT_CVVH && padded(b), &raw, &acc);
        break;
    }
    case BT_CCMPB:
    case BT_CCMPS: {
        ExactRange v = padded(b) ? r_with0(in) : in;
        acc = rng(asr(v.lo, sh), asr(v.hi, sh));
        x->in = v;
        x->acc = x->raw = acc;
        x->out = cmp_clip(b, b->type == BT_CCMPB, acc);
        return true;
    }
    case BT_CLUT: {
        acc = c->n_cl > 1 ? c->cl[1] : rng(0, 0);
        raw = c->n_cl > 1 ? lut_reached(c, pos, c->cl[0], sh, acc) : acc;
        break;
    }
    case BT_CLIF: {
        ExactRange s = rng(0, 0);
        for (uint32_t k = 0; k < blk_n_variadic(b) && k < c->n_cl; k++)
            s = rng(exact_add(s.lo, c->cl[k].lo), exact_add(s.hi, c->cl[k].hi));
        acc = rng(asr(s.lo, sh), asr(s.hi, sh));
        x->in = in;
        x->acc = acc;
        x->out = x->raw = rng(0, 1);
        return true;
    }
    default:
        break;
    }
    x->in = in;
    x->acc = acc;
    x->raw = raw;
    x->out = finish(b, raw);
    return !oom;
}

/* The range of the data tensor of b (0 when it has none: the initial content). */
static ExactRange data_range(const Block *b)
{
    const Tensor *t = b->data;
    if (!t)
        return rng(0, 0);
    ExactRange r = {0, 0};
    bool first = true;
    for (uint32_t i = 0; i < t->n_i32; i++, first = false)
        r = first ? rng(tensor_i32_at(t, i), tensor_i32_at(t, i))
                  : r_union(r, rng(tensor_i32_at(t, i), tensor_i32_at(t, i)));
    for (uint32_t i = 0; !t->n_i32 && i < t->n_u32; i++, first = false)
        r = first ? rng(t->u32[i], t->u32[i]) : r_union(r, rng(t->u32[i], t->u32[i]));
    for (uint32_t i = 0; !t->n_i32 && !t->n_u32 && i < t->n_f32; i++) {
        float f = t->f32[i];
        int64_t v = f >= -2147483648.0f && f < 2147483648.0f ? (int64_t)f : INT32_MIN;
        r = first ? rng(v, v) : r_union(r, rng(v, v));
        first = false;
    }
    return r;
}

/* An INPUT without a precision: the values the storage it writes holds on the chip (the
 * union of their precisions' ranges; int32 when it writes anything else). */
static ExactRange input_range(const Ctx *c, uint32_t pos)
{
    const BlockUses *bu = &c->u.blocks[pos];
    ExactRange r = R_INT32;
    for (uint32_t k = 0; k < bu->n_out_edges; k++) {
        const Block *s = graph_block(c->g, c->g->edges[bu->out_edges[k]]->dst);
        if (!s || bt_info(s->type)->kind != BK_STORAGE)
            return R_INT32;
        ExactRange p = exact_prec_range(blk_prec(s));
        r = k ? r_union(r, p) : p;
    }
    return r;
}

/* An INPUT: the values it admits (what taskir-run accepts, sim.input.range: its precision's
 * and its model tensor's declared range), inside r. */
static ExactRange declared_range(const Block *b, ExactRange r)
{
    int64_t lo, hi;
    blk_input_range(b, &lo, &hi);
    lo = max64(lo, r.lo);
    hi = min64(hi, r.hi);
    return lo <= hi ? rng(lo, hi) : rng(0, 0);
}

static bool visit(Ctx *c, uint32_t pos)
{
    const Block *b = c->g->blocks[pos];
    ExactBlock *x = &c->xb[pos];
    x->visited = true;
    cluster_ranges(c, pos);
    switch (bt_info(b->type)->kind) {
    case BK_STORAGE: {
        ExactRange r = data_range(b);
        for (uint32_t k = 0; k < c->n_cl; k++)
            r = r_union(r, c->cl[k]);
        x->out = x->in = x->acc = x->raw = r;
        return true;
    }
    case BK_COMPUTE:
        return compute(c, pos);
    case BK_IO:
        if (b->type == BT_INPUT)
            x->out = declared_range(b, b->has_prec ? R_INT32 : input_range(c, pos));
        else
            x->out = c->n_cl ? c->cl[0] : rng(0, 0);
        x->in = x->acc = x->raw = x->out;
        return true;
    default:
        x->out = x->in = x->acc = x->raw = R_INT32;
        return true;
    }
}

/* Kahn's algorithm, ties in graph order; blocks on a cycle keep unbounded ranges. */
static Status walk(Ctx *c, Diag *d)
{
    const Graph *g = c->g;
    uint32_t n = g->n_blocks, *indeg = calloc(n ? n : 1, sizeof *indeg);
    uint32_t *queue = malloc((n ? n : 1) * sizeof *queue);
    uint32_t max_in = 1;
    for (uint32_t i = 0; i < n; i++)
        max_in = g->blocks[i]->n_in > max_in ? g->blocks[i]->n_in : max_in;
    /* the ranges, then as many bools */
    c->cl = malloc((size_t)max_in * (sizeof *c->cl + sizeof(bool)) + sizeof *c->cl);
    Status st = ST_OK;
    if (!indeg || !queue || !c->cl) {
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory analysing value ranges");
        goto out;
    }
    for (uint32_t i = 0; i < n; i++) {
        ExactRange all = {-EXACT_INF, EXACT_INF};
        c->xb[i] = (ExactBlock){all, all, all, all, false};
        for (uint32_t k = 0; k < c->u.blocks[i].n_in_edges; k++)
            indeg[i] += graph_block_pos(g, g->edges[c->u.blocks[i].in_edges[k]]->src) >= 0;
    }
    uint32_t head = 0, tail = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!indeg[i])
            queue[tail++] = i;
    while (head < tail) {
        uint32_t p = queue[head++];
        if (!visit(c, p)) {
            st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory analysing value ranges");
            goto out;
        }
        const BlockUses *bu = &c->u.blocks[p];
        for (uint32_t k = 0; k < bu->n_out_edges; k++) {
            long q = graph_block_pos(g, g->edges[bu->out_edges[k]]->dst);
            if (q >= 0 && indeg[q] && --indeg[q] == 0)
                queue[tail++] = (uint32_t)q;
        }
    }
out:
    free(indeg);
    free(queue);
    return st;
}

Status exact_analyse(const Graph *g, ExactInfo *x, Diag *d)
{
    *x = (ExactInfo){NULL, 0};
    Ctx c = {g, {0}, NULL, NULL, 0, NULL, NULL, NULL, 1, 0};
    c.xb = malloc((g->n_blocks ? g->n_blocks : 1) * sizeof *c.xb);
    if (!c.xb || !graph_uses(g, &c.u)) {
        free(c.xb);
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory analysing value ranges");
    }
    Status st = walk(&c, d);
    graph_uses_finish(&c.u);
    free(c.cl);
    free(c.pos_sum);
    free(c.neg_sum);
    free(c.bias);
    if (st != ST_OK) {
        free(c.xb);
        return st;
    }
    x->blocks = c.xb;
    x->n_blocks = g->n_blocks;
    return ST_OK;
}

void exact_finish(ExactInfo *x)
{
    free(x->blocks);
    *x = (ExactInfo){NULL, 0};
}
