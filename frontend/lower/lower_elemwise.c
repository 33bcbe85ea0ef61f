/* lower_elemwise.c: elementwise operators (docs/lowering.md): relu, abs, negative,
 * cvm_precision, elemwise_add/sub, clip, cvm_clip, cvm_left_shift, cvm_right_shift, cvm_lut,
 * broadcast_add/sub/mul/max/div/greater, where, and table lookups (cvm_lut, take).
 *
 * Every operand is brought to the output's per-sample shape first: a broadcast operand is a
 * data movement (its element map comes from the interpreter's broadcast rule, lower_move.c),
 * a constant operand becomes values at every output element. The compute blocks then work
 * in one layout (the first computed operand's), each fed from its own SI.
 *
 * Mechanisms, all exact (docs/lowering.md gives each argument):
 *   x + y: CADD (a constant: an SB bias vector, one value or one per f, or an SI holding it);
 *   x - y: CVS(y, -1) then CADD; x * y: CVVH, CAX (a per-channel constant), CVS (a scalar);
 *   max(x, y): both in one SI (rows 0 and 1), CCMPB with a 2x1 window; max(x, c): CCMPB CMP=c;
 *   clip(x, lo, hi): CCMPB CMP=lo with a precision whose upper bound is hi, else + CCMPS;
 *   round-half-up right shift: + 2^(s-1) (into the producer's bias when it can take it, else
 *   a CADD), then CCMPB's arithmetic shift and clip;
 *   relu: CCMPB CMP=0, or the producing CCMPB's CMP raised to 0;
 *   a > b: CCMPB (TERNARY, CMP 0) on a - b;
 *   nonlinear functions of small precisions (abs, cvm_precision, division, cvm_lut): CLUT
 *   tables filled by the interpreter's own operator function (so they agree by
 *   construction), two operands combined into one index a * 2^pb + b;
 *   a division too wide for that index: trunc(a / b) = sa * sb * (|a| / |b|), one table over
 *   |a| * 2^(pb-1) + |b| - 2^(pa+pb-3) (centred: P07 reads its index signed) and the signs
 *   multiplied back (CVVH).
 */
#include "frontend/lower/lower_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- operands and layouts ---- */

/* An operand at the output's per-sample shape. */
typedef struct Opnd {
    const LVal *v;          /* computed: the value (the input, or view) */
    bool shared;            /* v is also read elsewhere: a copy of it may not be folded into */
    LVal view;              /* owned broadcast view */
    int32_t *cv;            /* constant: its value at every output element, C order */
    int32_t prec;
} Opnd;

/* The layout of the operator's output. */
typedef struct Lay {
    OgShape ps;
    int perm[OG_MAX_DIMS];
    int32_t yxf[3];
    int64_t n;
} Lay;

static void opnd_free(Opnd *o)
{
    lw_val_free(&o->view);
    free(o->cv);
    memset(o, 0, sizeof *o);
}

/* Output i takes input element i / (n_out / n_in): where's row condition (and the identity
 * when the shapes agree). */
static Status run_rows(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    (void)c;
    int64_t row = out->count / (in[0]->count ? in[0]->count : 1);
    for (int64_t i = 0; i < out->count; i++)
        out->data[i] = in[0]->data[i / row];
    return ST_OK;
}

/* Brings input k of the current node to the output shape: fn maps it (NULL: broadcasting). */
static Status opnd_init(Lw *L, uint32_t k, CvmRunFn fn, Opnd *o)
{
    memset(o, 0, sizeof *o);
    const OgNode *n = L->cur;
    LVal *v = lw_in(L, k);
    const OgShape *fs = og_edge_shape(L->og, n->inputs[k]), *fo = &n->out_shape[0];
    o->prec = v->prec;
    o->shared = L->nuse[L->first[n->inputs[k].node] + n->inputs[k].index] > 1;
    if (v->kind != LV_CONST && og_shape_eq(fs, fo)) {
        o->v = v;
        return ST_OK;
    }
    OgShape fin[2] = {*fs, *fo};
    bool isd[2] = {true, false}, bat[2] = {v->kind != LV_CONST, false};
    const OgTensor *vals[2] = {v->kind == LV_CONST ? &v->c : NULL, NULL};
    int32_t *min = NULL;
    int64_t *mel = NULL;
    Status st = lw_move_map(L, fn ? fn : cvm_run_broadcast_add, 2, fin, isd, bat, vals, fo,
                            &min, &mel);
    if (st != ST_OK)
        return st;
    OgShape ps = lw_ps_of(L, fo);
    int64_t cnt = lw_volume(&ps);
    if (v->kind == LV_CONST) {
        o->cv = malloc((size_t)(cnt ? cnt : 1) * sizeof *o->cv);
        if (!o->cv)
            st = lw_oom(L);
        else
            for (int64_t i = 0; i < cnt; i++)
                o->cv[i] = v->c.data[mel[i]];
    } else {
        const LVal *ins[1] = {v};
        st = lw_move_value(L, 1, ins, min, mel, cnt, &ps, v->prec, &o->view);
        o->v = &o->view;
    }
    free(min);
    free(mel);
    return st;
}

/* The layout: the first computed operand's when it has the output's shape, else C order. */
static Status lay_init(Lw *L, const Opnd *ops, int nops, Lay *lay)
{
    lay->ps = lw_ps_of(L, &L->cur->out_shape[0]);
    lay->n = lw_volume(&lay->ps);
    const LVal *v = NULL;
    for (int i = 0; i < nops && !v; i++)
        if (ops[i].v && og_shape_eq(&ops[i].v->ps, &lay->ps))
            v = ops[i].v;
    return lw_layout(L, v, &lay->ps, lay->perm, lay->yxf);
}

/* Values (C order of lay->ps) in the layout's order. */
static int32_t *in_layout(const Lay *lay, const int32_t *cv)
{
    int32_t *out = malloc((size_t)(lay->n ? lay->n : 1) * sizeof *out);
    if (!out)
        return NULL;
    int nd = (int)lay->ps.ndim;
    int64_t st[OG_MAX_DIMS], q[OG_MAX_DIMS] = {0}, e = 0, k = 1;
    for (int a = nd - 1; a >= 0; a--) {
        st[a] = k;
        k *= lay->ps.d[a];
    }
    for (int64_t j = 0; j < lay->n; j++) {
        out[j] = cv[e];
        for (int i = nd - 1; i >= 0; i--) {
            int a = lay->perm[i];
            if (++q[i] < lay->ps.d[a]) {
                e += st[a];
                break;
            }
            e -= st[a] * (q[i] - 1);
            q[i] = 0;
        }
    }
    return out;
}

/* A constant in the layout: 0 scalar (all equal), 1 per channel (every (y, x) row equal),
 * 2 general. */
static int const_kind(const Lay *lay, const int32_t *lv)
{
    bool scalar = true, chan = true;
    int64_t F = lay->yxf[2];
    for (int64_t j = 0; j < lay->n; j++) {
        scalar = scalar && lv[j] == lv[0];
        chan = chan && lv[j] == lv[j % F];
    }
    return scalar ? 0 : chan ? 1 : 2;
}

/* An SI holding the operand: the computed value fed in the layout, or the constant's values
 * as its data. */
static Status opnd_store(Lw *L, const Opnd *o, const Lay *lay, const char *suffix, Block **si)
{
    if (!o->cv)
        return lw_stage_in(L, o->v, lay->perm, lay->yxf, suffix, si);
    int32_t shape[TIR_NDIMS] = {lay->yxf[0], lay->yxf[1], lay->yxf[2]};
    int32_t *lv = in_layout(lay, o->cv);
    Block *b = lw_block(L, BT_SI, suffix, shape, (int)lw_store_prec(o->prec));
    if (!lv || !b) {
        free(lv);
        return lw_oom(L);
    }
    *si = b;
    Status st = lw_set_data(L, b, lw_store_prec(o->prec), lv, lay->n);
    free(lv);
    return st;
}

/* ---- one elementwise compute block ---- */

typedef struct Ew {
    BlockType t;
    const char *suffix;
    int prec;               /* the block's PrecisionId */
    int nattr;
    AttrId ids[4];
    int32_t vals[4];
    const int32_t *bias;    /* VECTOR bias: F values (the layout's f), or NULL */
    bool cbias;             /* a constant bias cb: an SB of f copies of it */
    int32_t cb;
} Ew;

/* Gives compute block c a VECTOR bias: an SB of f values (v, or f copies of fill) into its
 * input cluster in_idx. A constant bias is written so too, never as CONSTANT_B: the existing
 * tools' executor reads a bias only from a bias cluster (docs/formats.md, "Writing"). */
static Status bias_sb(Lw *L, Block *c, const char *suffix, uint32_t in_idx, int32_t f,
                      const int32_t *v, int32_t fill, Block **out)
{
    int32_t shape[TIR_NDIMS] = {0, 0, f};
    int32_t *vals = f > 0 ? malloc((size_t)f * sizeof *vals) : NULL;
    Block *sb = vals ? lw_block(L, BT_SB, suffix, shape, PR_INT_32) : NULL;
    if (!sb) {
        free(vals);
        return lw_oom(L);
    }
    for (int32_t i = 0; i < f; i++)
        vals[i] = v ? v[i] : fill;
    Status st = lw_set_data(L, sb, PR_INT_32, vals, f);
    free(vals);
    if (st == ST_OK)
        st = lw_connect(L, sb, c, in_idx);
    if (st == ST_OK) {
        c->bias_type = BIAS_VECTOR;
        *out = sb;
    }
    return st;
}

/* Builds the block over the operands (each through its SI) and returns its value. */
static Status ew(Lw *L, const Ew *e, const Opnd *ins, int nins, const Lay *lay, int32_t vprec,
                 LVal *out, Block **blk)
{
    Block **si = malloc((size_t)nins * sizeof *si);
    Status st = si ? ST_OK : lw_oom(L);
    for (int k = 0; k < nins && st == ST_OK; k++) {
        char sub[64];
        if (e->suffix && *e->suffix)
            snprintf(sub, sizeof sub, nins > 1 ? "%s/in%d" : "%s/in", e->suffix, k);
        else
            snprintf(sub, sizeof sub, nins > 1 ? "in%d" : "in", k);
        st = opnd_store(L, &ins[k], lay, sub, &si[k]);
    }
    Block *c = st == ST_OK ? lw_compute(L, e->t, e->suffix, lay->yxf, si, nins, e->prec) : NULL;
    free(si);
    if (st != ST_OK)
        return st;
    if (!c || !lw_set_attrs(L, c, e->ids, e->vals, e->nattr))
        return lw_oom(L);
    Block *sb = NULL;
    if (e->bias || e->cbias) {
        char sub[64];
        snprintf(sub, sizeof sub, "%s%sb", e->suffix ? e->suffix : "",
                 e->suffix && *e->suffix ? "/" : "");
        if ((st = bias_sb(L, c, sub, (uint32_t)nins, lay->yxf[2], e->bias, e->cb, &sb)) != ST_OK)
            return st;
    }
    lw_prod(out, c, &lay->ps, lay->perm, vprec);
    out->bias_sb = sb;
    out->bias_ok = (bt_info(e->t)->flags & BF_BIAS) && e->prec == PR_INT_32;
    if (blk)
        *blk = c;
    return ST_OK;
}

static Opnd val_opnd(const LVal *v)
{
    Opnd o;
    memset(&o, 0, sizeof o);
    o.v = v;
    o.prec = v->prec;
    return o;
}

/* The operand itself as the result (an operator that changes nothing). When the operand is
 * also read elsewhere, the result may not take folds (a rounding constant into the
 * producer's bias, a relu into its clip): they would change what the other readers see. */
static Status alias(Lw *L, const Opnd *x, int32_t vprec, LVal *out)
{
    Status st = lw_val_copy(L, x->v, out);
    out->prec = vprec;
    if (x->shared) {
        out->lo_blk = NULL;
        out->bias_ok = false;
    }
    return st;
}

static int64_t alpha(int32_t p)
{
    return og_prec_alpha(p);
}

/* ---- building blocks ---- */

/* x * a + b for a scalar a and constant b (CVS). */
static Status scale(Lw *L, const Opnd *x, int32_t a, int32_t b, const Lay *lay,
                    const char *suffix, int32_t vprec, LVal *out)
{
    Ew e = {BT_CVS, suffix, PR_INT_32, 1, {AT_CONSTANT_A}, {a}, NULL, b != 0, b};
    return ew(L, &e, x, 1, lay, vprec, out, NULL);
}

/* x + y, where at most one is a constant. */
static Status add2(Lw *L, const Opnd *x, const Opnd *y, const Lay *lay, const char *suffix,
                   int32_t vprec, LVal *out)
{
    if (x->cv) {
        const Opnd *t = x;
        x = y;
        y = t;
    }
    if (!y->cv) {
        Ew e = {BT_CADD, suffix, PR_INT_32, 0, {0}, {0}, NULL, false, 0};
        Opnd two[2] = {*x, *y};
        return ew(L, &e, two, 2, lay, vprec, out, NULL);
    }
    int32_t *lv = in_layout(lay, y->cv);
    if (!lv)
        return lw_oom(L);
    int kind = const_kind(lay, lv);
    Status st;
    if (kind == 0 && lv[0] == 0) {
        st = alias(L, x, vprec, out);
    } else if (kind == 0) {
        Ew e = {BT_CADD, suffix, PR_INT_32, 0, {0}, {0}, NULL, true, lv[0]};
        st = ew(L, &e, x, 1, lay, vprec, out, NULL);
    } else if (kind == 1) {
        Ew e = {BT_CADD, suffix, PR_INT_32, 0, {0}, {0}, lv, false, 0};
        st = ew(L, &e, x, 1, lay, vprec, out, NULL);
    } else {
        Ew e = {BT_CADD, suffix, PR_INT_32, 0, {0}, {0}, NULL, false, 0};
        Opnd two[2] = {*x, *y};
        st = ew(L, &e, two, 2, lay, vprec, out, NULL);
    }
    free(lv);
    return st;
}

/* -y as an operand: a constant's values negated, or CVS(y, -1). */
static Status negate(Lw *L, const Opnd *y, const Lay *lay, const char *suffix, LVal *tmp,
                     Opnd *out)
{
    memset(out, 0, sizeof *out);
    out->prec = y->prec;
    if (y->cv) {
        out->cv = malloc((size_t)(lay->n ? lay->n : 1) * sizeof *out->cv);
        if (!out->cv)
            return lw_oom(L);
        for (int64_t i = 0; i < lay->n; i++)
            out->cv[i] = -y->cv[i]; /* |y| <= 2^31 - 1 */
        return ST_OK;
    }
    Status st = scale(L, y, -1, 0, lay, suffix, y->prec, tmp);
    out->v = tmp;
    return st;
}

/* x - y. */
static Status sub2(Lw *L, const Opnd *x, const Opnd *y, const Lay *lay, const char *suffix,
                   int32_t vprec, LVal *out)
{
    LVal tmp = {0};
    Opnd ny;
    char sub[64];
    snprintf(sub, sizeof sub, "%s%sneg", suffix ? suffix : "", suffix && *suffix ? "/" : "");
    Status st = negate(L, y, lay, sub, &tmp, &ny);
    if (st == ST_OK)
        st = add2(L, x, &ny, lay, suffix, vprec, out);
    free(ny.cv);
    lw_val_free(&tmp);
    return st;
}

/* A precision whose upper bound (as the simulator clamps, within int32) is hi, or -1;
 * signed precisions first. */
static int prec_with_hi(int64_t hi)
{
    for (int pass = 0; pass < 2; pass++)
        for (int p = 0; p < PR_COUNT; p++) {
            const PrecisionInfo *pi = pr_info((PrecisionId)p);
            int64_t h = pi->hi < INT32_MAX ? pi->hi : INT32_MAX;
            if (pi->container != TC_FLOAT && pi->is_signed == !pass && h == hi)
                return p;
        }
    return -1;
}

/* clip(x >> shift, lo, hi) with lo <= hi: CCMPB (CMP = lo, the precision giving hi), plus a
 * CCMPS (CMP = hi) when no precision has that upper bound. The identity (a copy of x) when
 * there is no shift and x's precision already lies within [lo, hi]. */
static Status clip_shift(Lw *L, const Opnd *x, int shift, int64_t lo, int64_t hi,
                         const Lay *lay, const char *suffix, int32_t vprec, LVal *out)
{
    int64_t a = alpha(x->prec);
    if (shift == 0 && lo <= -a && hi >= a)
        return alias(L, x, vprec, out);
    if (lo < INT32_MIN)
        lo = INT32_MIN;
    if (hi > INT32_MAX)
        hi = INT32_MAX;
    int p = prec_with_hi(hi);
    Block *cmpb;
    Ew e = {BT_CCMPB, suffix, p >= 0 ? p : PR_INT_32, 2, {AT_CMP, AT_BIT_SHIFT_NUM},
            {(int32_t)lo, shift}, NULL, false, 0};
    Status st = ew(L, &e, x, 1, lay, vprec, out, &cmpb);
    if (st != ST_OK || p >= 0) {
        if (st == ST_OK && hi >= 0)
            out->lo_blk = cmpb;
        return st;
    }
    LVal t = *out;
    memset(out, 0, sizeof *out);
    Opnd to = val_opnd(&t);
    char sub[64];
    snprintf(sub, sizeof sub, "%s%sclip", suffix ? suffix : "", suffix && *suffix ? "/" : "");
    Ew e2 = {BT_CCMPS, sub, PR_INT_32, 1, {AT_CMP}, {(int32_t)hi}, NULL, false, 0};
    st = ew(L, &e2, &to, 1, lay, vprec, out, NULL);
    lw_val_free(&t);
    if (st == ST_OK && hi >= 0)
        out->lo_blk = cmpb;
    return st;
}

/* max(x, y) (big) or min(x, y) of two computed operands: rows 0 and 1 of one SI, a CCMPB
 * (CCMPS) with a 2x1 window and a CMP that clips nothing. */
static Status pick2(Lw *L, bool big, const Opnd *x, const Opnd *y, const Lay *lay,
                    const char *suffix, int32_t vprec, LVal *out)
{
    int64_t X = (int64_t)lay->yxf[0] * lay->yxf[1], F = lay->yxf[2];
    if (X > LW_MAX_DIM) {
        X = lay->yxf[0];
        F = (int64_t)lay->yxf[1] * lay->yxf[2];
        if (F > LW_MAX_DIM)
            return lw_fail(L, "lower.limit", "a tensor of %lld elements cannot be laid out in "
                           "rows of at most 2^24", (long long)lay->n);
    }
    char sub[64];
    snprintf(sub, sizeof sub, "%s%sin", suffix ? suffix : "", suffix && *suffix ? "/" : "");
    int32_t sshape[TIR_NDIMS] = {2, (int32_t)X, (int32_t)F};
    int32_t p = x->prec > y->prec ? x->prec : y->prec;
    Block *si = lw_block(L, BT_SI, sub, sshape, (int)lw_store_prec(p));
    if (!si)
        return lw_oom(L);
    const Opnd *two[2] = {x, y};
    for (int k = 0; k < 2; k++) {
        int32_t pos[TIR_CDIMS] = {k, 0, 0}, size[TIR_CDIMS] = {1, (int32_t)X, (int32_t)F};
        Status st = lw_feed(L, two[k]->v, si, 0, pos, size, lay->perm, NULL, NULL);
        if (st != ST_OK)
            return st;
    }
    int32_t shp[TIR_NDIMS] = {1, (int32_t)X, (int32_t)F, 0, 2, 1, 2, (int32_t)X};
    Block *c = lw_block(L, big ? BT_CCMPB : BT_CCMPS, suffix, shp, PR_INT_32);
    static const AttrId ids[] = {AT_KERNEL_Y, AT_KERNEL_X, AT_CMP};
    int32_t vals[] = {2, 1, big ? INT32_MIN : INT32_MAX};
    if (!c || !lw_set_attrs(L, c, ids, vals, 3))
        return lw_oom(L);
    Status st = lw_connect(L, si, c, 0);
    if (st != ST_OK)
        return st;
    lw_prod(out, c, &lay->ps, lay->perm, vprec);
    if (big)
        out->lo_blk = c;
    return ST_OK;
}

static Status max2(Lw *L, const Opnd *x, const Opnd *y, const Lay *lay, const char *suffix,
                   int32_t vprec, LVal *out)
{
    return pick2(L, true, x, y, lay, suffix, vprec, out);
}

/* An operand as a computed value: constants become producers (SI + identity CADD). */
static Status as_value(Lw *L, const Opnd *o, const Lay *lay, const char *suffix, LVal *tmp,
                       Opnd *out)
{
    *out = *o;
    if (!o->cv)
        return ST_OK;
    LVal c;
    memset(&c, 0, sizeof c);
    c.kind = LV_CONST;
    c.ps = lay->ps;
    c.prec = o->prec;
    c.c.shape = lay->ps;
    c.c.count = lay->n;
    c.c.data = o->cv;
    Status st = lw_const_producer(L, &c, suffix, tmp);
    out->cv = NULL;
    out->v = tmp;
    return st;
}

/* |x| for a computed x of any precision: max(x, -x) (|x| <= 2^31 - 1, -x exact). */
static Status abs_seq(Lw *L, const Opnd *x, const Lay *lay, const char *suffix, int32_t vprec,
                      LVal *out)
{
    LVal neg = {0};
    char sub[64];
    snprintf(sub, sizeof sub, "%s%sneg", suffix ? suffix : "", suffix && *suffix ? "/" : "");
    Status st = scale(L, x, -1, 0, lay, sub, x->prec, &neg);
    if (st == ST_OK) {
        Opnd n = val_opnd(&neg);
        st = max2(L, x, &n, lay, suffix, vprec, out);
    }
    lw_val_free(&neg);
    return st;
}

/* ---- tables ---- */

/* A CLUT over x (index precision dw bits, two's complement) with the table's entries. */
static Status lut_one(Lw *L, const Opnd *x, const Lay *lay, int dw, const int32_t *table,
                      const char *suffix, int32_t vprec, LVal *out)
{
    char sub[64];
    snprintf(sub, sizeof sub, "%s%stable", suffix ? suffix : "", suffix && *suffix ? "/" : "");
    int32_t tshape[TIR_NDIMS] = {0, 0, (int32_t)1 << dw};
    Block *tb = lw_block(L, BT_SB, sub, tshape, PR_INT_32);
    if (!tb)
        return lw_oom(L);
    Status st = lw_set_data(L, tb, PR_INT_32, table, (int64_t)1 << dw);
    if (st != ST_OK)
        return st;
    Block *si, *c;
    snprintf(sub, sizeof sub, "%s%sin", suffix ? suffix : "", suffix && *suffix ? "/" : "");
    if ((st = opnd_store(L, x, lay, sub, &si)) != ST_OK)
        return st;
    Block *ins[2] = {si, tb};
    if (!(c = lw_compute(L, BT_CLUT, suffix, lay->yxf, ins, 2, PR_INT_32)) ||
        !blk_set_attr(L->g, c, AT_LUT_DW, dw))
        return lw_oom(L);
    lw_prod(out, c, &lay->ps, lay->perm, vprec);
    return ST_OK;
}

/* suffix/name, or name when suffix is empty, into buf. */
static const char *sub_name(char *buf, size_t size, const char *suffix, const char *name)
{
    snprintf(buf, size, "%s%s%s", suffix ? suffix : "", suffix && *suffix ? "/" : "", name);
    return buf;
}

/* Do the n entries all fit one byte, INT_8 (-128 .. 127) or UINT_8 (0 .. 255)? */
static bool table_bytes(const int32_t *t, int64_t n)
{
    bool i8 = true, u8 = true;
    for (int64_t k = 0; k < n && (i8 || u8); k++) {
        i8 = i8 && t[k] >= -128 && t[k] <= 127;
        u8 = u8 && t[k] >= 0 && t[k] <= 255;
    }
    return i8 || u8;
}

/* A CLUT over x whose table a core can hold, else the table cut into its bytes. P07 reads
 * 2^16 entries for an index of more than 12 bits (CHIP.md): 256 KiB of int32 entries, twice a
 * core, but 64 KiB when the entries fit one byte, which the mapper then gives the CLUT
 * (docs/exactness.md, "Tables in their map's precision"). Entries that do not are cut as
 * t = 256 * hi + lo with lo = t mod 256 in 0 .. 255 and hi = floor(t / 256): one CLUT of the
 * low bytes, the table of hi (cut again while it does not fit a byte), a CVS by 256 and a
 * CADD, each exact in int32 (256 hi = t - lo lies in [-2^31, 2^31 - 256], and the sum is
 * t). */
static Status lut(Lw *L, const Opnd *x, const Lay *lay, int dw, const int32_t *table,
                  const char *suffix, int32_t vprec, LVal *out)
{
    int64_t n = (int64_t)1 << dw;
    if (dw <= LW_LUT_CORE_DW || table_bytes(table, n))
        return lut_one(L, x, lay, dw, table, suffix, vprec, out);
    int32_t *lo = malloc((size_t)n * sizeof *lo), *hi = malloc((size_t)n * sizeof *hi);
    if (!lo || !hi) {
        free(lo);
        free(hi);
        return lw_oom(L);
    }
    int64_t big = 0;
    for (int64_t k = 0; k < n; k++) {
        lo[k] = (int32_t)(((int64_t)table[k] % 256 + 256) % 256);
        hi[k] = (int32_t)(((int64_t)table[k] - lo[k]) / 256);
        big = llabs((int64_t)hi[k]) > big ? llabs((int64_t)hi[k]) : big;
    }
    int32_t phi = cvm_bits((uint64_t)big) + 1, p256 = phi + 8 < 32 ? phi + 8 : 32;
    char sub[64];
    LVal tl = {0}, th = {0}, ts = {0};
    Status st = lut_one(L, x, lay, dw, lo, sub_name(sub, sizeof sub, suffix, "lo"), 9, &tl);
    if (st == ST_OK)
        st = lut(L, x, lay, dw, hi, sub_name(sub, sizeof sub, suffix, "hi"), phi, &th);
    free(lo);
    free(hi);
    Opnd oh = val_opnd(&th), os;
    if (st == ST_OK)
        st = scale(L, &oh, 256, 0, lay, sub_name(sub, sizeof sub, suffix, "hi256"), p256, &ts);
    if (st == ST_OK) {
        Opnd ol = val_opnd(&tl);
        os = val_opnd(&ts);
        st = add2(L, &os, &ol, lay, suffix, vprec, out);
    }
    lw_val_free(&tl);
    lw_val_free(&th);
    lw_val_free(&ts);
    return st;
}

/* Entry k of a table indexed by dw-bit two's complement numbers: the value signed(k). */
static int32_t tsigned(int64_t k, int dw)
{
    int64_t n = (int64_t)1 << dw;
    return (int32_t)(k < n / 2 ? k : k - n);
}

/* The table of the current node's function with input kx varying over all dw-bit values
 * (two's complement) and the other input, if any, the constant tensor `other` (a scalar of
 * shape (1,) or the table of cvm_lut). */
static Status table1(Lw *L, CvmRunFn fn, int dw, uint32_t kx, const OgTensor *other,
                     int32_t **out)
{
    int64_t n = (int64_t)1 << dw;
    OgShape s = {1, {n}};
    OgTensor idx = {0}, res = {0};
    *out = NULL;
    if (!og_tensor_alloc(&idx, &s))
        return lw_oom(L);
    for (int64_t k = 0; k < n; k++)
        idx.data[k] = tsigned(k, dw);
    const OgTensor *ins[2] = {&idx, other};
    if (kx == 1) {
        ins[0] = other;
        ins[1] = &idx;
    }
    Status st = lw_run(L, fn, ins, &s, &res);
    og_tensor_free(&idx);
    if (st == ST_OK)
        *out = res.data;
    return st;
}

/* A constant operand that is one value everywhere: that value as a (1,) tensor. */
static bool scalar_of(const Opnd *o, int64_t n, OgTensor *t, int32_t *store)
{
    if (!o->cv)
        return false;
    for (int64_t i = 1; i < n; i++)
        if (o->cv[i] != o->cv[0])
            return false;
    *store = o->cv[0];
    t->shape.ndim = 1;
    t->shape.d[0] = 1;
    t->count = 1;
    t->data = store;
    return true;
}

/* f(a, b) for two operands by one table: the index a * 2^pb + b (|b| <= 2^(pb-1) - 1, so
 * every pair has its own index in pa + pb <= 16 bits). */
/* The table of f(a, b) over the index a * 2^pb + b (lut2), into *res. */
static Status lut2_table(Lw *L, int pa, int pb, OgTensor *res)
{
    int dw = pa + pb;
    int64_t n = (int64_t)1 << dw;
    OgShape s = {1, {n}};
    OgTensor ta = {0}, tb = {0};
    if (!og_tensor_alloc(&ta, &s) || !og_tensor_alloc(&tb, &s)) {
        og_tensor_free(&ta);
        return lw_oom(L);
    }
    int64_t half = (int64_t)1 << (pb - 1), step = (int64_t)1 << pb;
    for (int64_t k = 0; k < n; k++) {
        int64_t x = tsigned(k, dw), q = cvm_floor_shr(x + half, pb);
        ta.data[k] = (int32_t)q;
        tb.data[k] = (int32_t)(x - q * step);
    }
    const OgTensor *ins[2] = {&ta, &tb};
    Status st = lw_run(L, NULL, ins, &s, res);
    og_tensor_free(&ta);
    og_tensor_free(&tb);
    return st;
}

static Status lut2(Lw *L, const Opnd *a, const Opnd *b, const Lay *lay, int32_t vprec,
                   LVal *out)
{
    int pa = a->prec, pb = b->prec, dw = pa + pb;
    int64_t step = (int64_t)1 << pb;
    OgTensor res = {0};
    Status st = lut2_table(L, pa, pb, &res);
    if (st != ST_OK)
        return st;
    /* the index: a * 2^pb (CVS, or the constant's values) + b */
    LVal t = {0}, ix = {0};
    Opnd ta_o;
    memset(&ta_o, 0, sizeof ta_o);
    ta_o.prec = dw;
    if (a->cv) {
        ta_o.cv = malloc((size_t)(lay->n ? lay->n : 1) * sizeof *ta_o.cv);
        if (!ta_o.cv)
            st = lw_oom(L);
        for (int64_t i = 0; st == ST_OK && i < lay->n; i++)
            ta_o.cv[i] = (int32_t)(a->cv[i] * step);
    } else {
        st = scale(L, a, (int32_t)step, 0, lay, "hi", dw, &t);
        ta_o.v = &t;
    }
    if (st == ST_OK)
        st = add2(L, &ta_o, b, lay, "index", dw, &ix);
    if (st == ST_OK) {
        Opnd io = val_opnd(&ix);
        st = lut(L, &io, lay, dw, res.data, "", vprec, out);
    }
    free(ta_o.cv);
    lw_val_free(&t);
    lw_val_free(&ix);
    og_tensor_free(&res);
    return st;
}

/* ---- operators ---- */

/* Lowers a unary operator through its table when the precision allows (dw <= 16). */
static Status unary_table(Lw *L, const Opnd *x, const Lay *lay, LVal *out)
{
    int32_t *tab;
    Status st = table1(L, NULL, x->prec, 0, NULL, &tab);
    if (st == ST_OK)
        st = lut(L, x, lay, x->prec, tab, "", L->cur->out_prec[0], out);
    free(tab);
    return st;
}

/* The common frame: operands 0..nin-1 at the output shape, the layout, the result stored. */
typedef Status (*EwBody)(Lw *L, Opnd *ops, const Lay *lay, LVal *out);

static Status frame(Lw *L, uint32_t nin, CvmRunFn fn0, EwBody body)
{
    Opnd ops[3];
    memset(ops, 0, sizeof ops);
    Status st = ST_OK;
    for (uint32_t k = 0; k < nin && st == ST_OK; k++)
        st = opnd_init(L, k, k == 0 ? fn0 : NULL, &ops[k]);
    Lay lay;
    if (st == ST_OK)
        st = lay_init(L, ops, (int)nin, &lay);
    LVal out = {0};
    if (st == ST_OK)
        st = body(L, ops, &lay, &out);
    if (st == ST_OK)
        lw_set_out(L, 0, &out);
    else
        lw_val_free(&out);
    for (uint32_t k = 0; k < nin; k++)
        opnd_free(&ops[k]);
    return st;
}

static Status body_relu(Lw *L, Opnd *o, const Lay *lay, LVal *out)
{
    const LVal *x = o[0].v;
    /* max(clip(v, c, hi), 0) = clip(v, max(c, 0), hi) for hi >= 0: raise the CMP of the
     * CCMPB that made x, when nothing else reads x. */
    OgEdge e = L->cur->inputs[0];
    uint32_t slot = L->first[e.node] + e.index;
    if (x->kind == LV_PROD && x->lo_blk && L->nuse[slot] == 1 &&
        bt_info(x->lo_blk->type)->kind == BK_COMPUTE) {
        int32_t cmp = blk_attr(x->lo_blk, AT_CMP);
        if (cmp < 0 && !blk_set_attr(L->g, x->lo_blk, AT_CMP, 0))
            return lw_oom(L);
        Status st = lw_val_copy(L, x, out);
        out->prec = L->cur->out_prec[0];
        return st;
    }
    return clip_shift(L, &o[0], 0, 0, INT32_MAX, lay, "", L->cur->out_prec[0], out);
}

Status lw_op_relu(Lw *L)
{
    return frame(L, 1, NULL, body_relu);
}

static Status body_abs(Lw *L, Opnd *o, const Lay *lay, LVal *out)
{
    if (o[0].prec <= LW_MAX_TABLE_DW)
        return unary_table(L, &o[0], lay, out);
    return abs_seq(L, &o[0], lay, "", L->cur->out_prec[0], out);
}

Status lw_op_abs(Lw *L)
{
    return frame(L, 1, NULL, body_abs);
}

static Status body_negative(Lw *L, Opnd *o, const Lay *lay, LVal *out)
{
    return scale(L, &o[0], -1, 0, lay, "", L->cur->out_prec[0], out);
}

Status lw_op_negative(Lw *L)
{
    return frame(L, 1, NULL, body_negative);
}

/* bit length of |x| (1 for 0) = 1 + sum over k = 1 .. p-2 of [|x| >= 2^k]; each term is
 * clip(|x| >> k, 0, 1), a CCMPB of precision TERNARY. */
static Status body_cvm_precision(Lw *L, Opnd *o, const Lay *lay, LVal *out)
{
    int32_t p = o[0].prec;
    if (p <= LW_MAX_TABLE_DW)
        return unary_table(L, &o[0], lay, out);
    LVal a = {0};
    Status st = abs_seq(L, &o[0], lay, "abs", p, &a);
    int nb = p - 2;
    LVal *bits = calloc((size_t)nb, sizeof *bits);
    Opnd *bo = calloc((size_t)nb, sizeof *bo);
    if (!bits || !bo)
        st = st == ST_OK ? lw_oom(L) : st;
    Opnd ao = val_opnd(&a);
    for (int k = 1; st == ST_OK && k <= nb; k++) {
        char sub[32];
        snprintf(sub, sizeof sub, "bit%d", k);
        Ew e = {BT_CCMPB, sub, PR_TERNARY, 2, {AT_CMP, AT_BIT_SHIFT_NUM}, {0, k}, NULL, false, 0};
        st = ew(L, &e, &ao, 1, lay, 2, &bits[k - 1], NULL);
        bo[k - 1] = val_opnd(&bits[k - 1]);
    }
    if (st == ST_OK) {
        Ew e = {BT_CADD, "", PR_INT_32, 0, {0}, {0}, NULL, true, 1};
        st = ew(L, &e, bo, nb, lay, L->cur->out_prec[0], out, NULL);
    }
    for (int k = 0; bits && k < nb; k++)
        lw_val_free(&bits[k]);
    free(bits);
    free(bo);
    lw_val_free(&a);
    return st;
}

Status lw_op_cvm_precision(Lw *L)
{
    return frame(L, 1, NULL, body_cvm_precision);
}

static Status body_add(Lw *L, Opnd *o, const Lay *lay, LVal *out)
{
    return add2(L, &o[0], &o[1], lay, "", L->cur->out_prec[0], out);
}

static Status body_sub(Lw *L, Opnd *o, const Lay *lay, LVal *out)
{
    return sub2(L, &o[0], &o[1], lay, "", L->cur->out_prec[0], out);
}

Status lw_op_elemwise_add(Lw *L)
{
    return frame(L, 2, NULL, body_add);
}

Status lw_op_elemwise_sub(Lw *L)
{
    return frame(L, 2, NULL, body_sub);
}

Status lw_op_broadcast_add(Lw *L)
{
    return frame(L, 2, NULL, body_add);
}

Status lw_op_broadcast_sub(Lw *L)
{
    return frame(L, 2, NULL, body_sub);
}

static Status body_mul(Lw *L, Opnd *o, const Lay *lay, LVal *out)
{
    const Opnd *x = &o[0], *y = &o[1];
    if (x->cv) {
        const Opnd *t = x;
        x = y;
        y = t;
    }
    int32_t vprec = L->cur->out_prec[0];
    if (!y->cv) {
        Ew e = {BT_CVVH, "", PR_INT_32, 0, {0}, {0}, NULL, false, 0};
        Opnd two[2] = {*x, *y};
        return ew(L, &e, two, 2, lay, vprec, out, NULL);
    }
    int32_t *lv = in_layout(lay, y->cv);
    if (!lv)
        return lw_oom(L);
    int kind = const_kind(lay, lv);
    Status st;
    if (kind == 0 && lv[0] == 1) {
        st = alias(L, x, vprec, out);
    } else if (kind == 0) {
        st = scale(L, x, lv[0], 0, lay, "", vprec, out);
    } else if (kind == 1) {
        /* CAX: alpha per channel, the SB's values */
        int32_t shape[TIR_NDIMS] = {0, 0, lay->yxf[2]};
        Block *sa = lw_block(L, BT_SB, "alpha", shape, (int)lw_store_prec(y->prec)), *si, *c;
        if (!sa) {
            free(lv);
            return lw_oom(L);
        }
        st = lw_set_data(L, sa, lw_store_prec(y->prec), lv, lay->yxf[2]);
        if (st == ST_OK)
            st = opnd_store(L, x, lay, "in", &si);
        if (st == ST_OK) {
            Block *ins[2] = {si, sa};
            if (!(c = lw_compute(L, BT_CAX, "", lay->yxf, ins, 2, PR_INT_32)))
                st = lw_oom(L);
            else
                lw_prod(out, c, &lay->ps, lay->perm, vprec);
        }
    } else {
        Ew e = {BT_CVVH, "", PR_INT_32, 0, {0}, {0}, NULL, false, 0};
        Opnd two[2] = {*x, *y};
        st = ew(L, &e, two, 2, lay, vprec, out, NULL);
    }
    free(lv);
    return st;
}

Status lw_op_broadcast_mul(Lw *L)
{
    return frame(L, 2, NULL, body_mul);
}

static Status body_max(Lw *L, Opnd *o, const Lay *lay, LVal *out)
{
    const Opnd *x = &o[0], *y = &o[1];
    if (x->cv) {
        const Opnd *t = x;
        x = y;
        y = t;
    }
    int32_t vprec = L->cur->out_prec[0];
    OgTensor sc;
    int32_t sv;
    if (scalar_of(y, lay->n, &sc, &sv))
        return clip_shift(L, x, 0, sv, INT32_MAX, lay, "", vprec, out);
    LVal tmp = {0};
    Opnd yv;
    Status st = as_value(L, y, lay, "rhs", &tmp, &yv);
    if (st == ST_OK)
        st = max2(L, x, &yv, lay, "", vprec, out);
    lw_val_free(&tmp);
    return st;
}

Status lw_op_broadcast_max(Lw *L)
{
    return frame(L, 2, NULL, body_max);
}

static Status mul_opnd(Lw *L, const Opnd *a, const Opnd *b, const Lay *lay, const char *suffix,
                       int32_t vprec, LVal *tmp, Opnd *out);

/* f(a, b) by one table (the current node's function): a constant scalar operand and the
 * other of precision <= 16: a table over that one; else the sum of both precisions <= 16:
 * one table over the index a * 2^pb + b; otherwise [lower.precision]. */
static Status body_table2(Lw *L, Opnd *o, const Lay *lay, LVal *out)
{
    int32_t vprec = L->cur->out_prec[0];
    OgTensor sc;
    int32_t sv;
    for (int k = 0; k < 2; k++) {
        const Opnd *x = &o[k], *c = &o[1 - k];
        if (!x->cv && x->prec <= LW_MAX_TABLE_DW && scalar_of(c, lay->n, &sc, &sv)) {
            int32_t *tab;
            Status st = table1(L, NULL, x->prec, (uint32_t)k, &sc, &tab);
            if (st == ST_OK)
                st = lut(L, x, lay, x->prec, tab, "", vprec, out);
            free(tab);
            return st;
        }
    }
    if (o[0].prec + o[1].prec <= LW_MAX_TABLE_DW)
        return lut2(L, &o[0], &o[1], lay, vprec, out);
    return lw_fail(L, "lower.precision", "%s of operands of precisions %d and %d: it lowers "
                   "only to a lookup table (CLUT), whose index holds at most %d bits (a "
                   "constant scalar operand: the other operand's precision; otherwise the sum "
                   "of both)", L->cur->op_name, (int)o[0].prec, (int)o[1].prec,
                   LW_MAX_TABLE_DW);
}

/* True when body_table2 lowers the operands through a table over one of them (the other a
 * constant scalar). */
static bool table1_fits(const Opnd *o, const Lay *lay)
{
    OgTensor sc;
    int32_t sv;
    for (int k = 0; k < 2; k++)
        if (!o[k].cv && o[k].prec <= LW_MAX_TABLE_DW && scalar_of(&o[1 - k], lay->n, &sc, &sv))
            return true;
    return false;
}

/* True when body_table2 lowers the operands. */
static bool table2_fits(const Opnd *o, const Lay *lay)
{
    return table1_fits(o, lay) || o[0].prec + o[1].prec <= LW_MAX_TABLE_DW;
}

/* True when every value of the operand is known to be >= 0: a constant's values, or a value
 * made by a CCMPB clip whose lower bound (CMP) is >= 0 (a relu, a clip, a requantization). */
static bool opnd_nonneg(const Opnd *o, int64_t n)
{
    if (o->cv) {
        for (int64_t i = 0; i < n; i++)
            if (o->cv[i] < 0)
                return false;
        return true;
    }
    const LVal *v = o->v;
    return v->kind == LV_PROD && v->lo_blk && blk_attr(v->lo_blk, AT_CMP) >= 0;
}

/* g(x) for an operand: the constant's values mapped at compile time, or a CLUT over x
 * (dw = x's precision <= 16) whose entry k is g(the dw-bit two's complement value of k). */
static Status map_opnd(Lw *L, const Opnd *x, int32_t (*g)(int32_t, int), int arg,
                       const Lay *lay, const char *suffix, int32_t vprec, LVal *tmp, Opnd *out)
{
    memset(out, 0, sizeof *out);
    out->prec = vprec;
    int64_t n = x->cv ? lay->n : (int64_t)1 << x->prec;
    int32_t *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    if (!v)
        return lw_oom(L);
    for (int64_t k = 0; k < n; k++)
        v[k] = g(x->cv ? x->cv[k] : tsigned(k, x->prec), arg);
    if (x->cv) {
        out->cv = v;
        return ST_OK;
    }
    Status st = lut(L, x, lay, x->prec, v, suffix, vprec, tmp);
    free(v);
    out->v = tmp;
    return st;
}

static int32_t g_abs_shl(int32_t x, int s)      /* |x| * 2^s (|x| < 2^16, s <= 16) */
{
    return (int32_t)((x < 0 ? -(int64_t)x : x) << s);
}

/* |x| * 2^s - 2^(dw-1) for arg = s + 32 * dw (|x| < 2^16, s <= 16, dw <= 16): the high part
 * of a centred table index (div_signmag). */
static int32_t g_abs_shl_centred(int32_t x, int arg)
{
    return g_abs_shl(x, arg % 32) - ((int32_t)1 << (arg / 32 - 1));
}

static int32_t g_sign(int32_t x, int s)         /* -1 for x < 0, else 1 */
{
    (void)s;
    return x < 0 ? -1 : 1;
}

/* u * s for u >= 0 and a computed sign s in {-1, 0, 1}, by selection: P03 reads both of a
 * CVVH's operands in one 8-bit precision, and a u above 127 is UINT_8 where s is INT_8
 * (emit.prec). Over s, two CLUTs of 4 entries hp = s > 0 ? 2^31 - 1 : s < 0 ? -2^31 : 0 and
 * hn = s < 0 ? 2^31 - 1 : -2^31; then max(min(u, hp), min(-u, hn)): u for s = 1 (the other
 * -2^31), -u for s = -1 (the other -2^31), max(0, -2^31) = 0 for s = 0. */
static Status sign_pick(Lw *L, const Opnd *u, const Opnd *sgn, const Lay *lay, int32_t vprec,
                        LVal *out)
{
    static const int32_t tp[4] = {0, INT32_MAX, INT32_MIN, INT32_MIN};
    static const int32_t tn[4] = {INT32_MIN, INT32_MIN, INT32_MIN, INT32_MAX};
    LVal t[6];
    memset(t, 0, sizeof t);
    Status st = lut(L, sgn, lay, 2, tp, "pos", 32, &t[0]);
    if (st == ST_OK)
        st = lut(L, sgn, lay, 2, tn, "neg", 32, &t[1]);
    /* u and -u by CVS, so that u's own map holds what its table gives alone (its CLUT then
     * takes that map's 8-bit precision, mapper/exact_table.c) */
    if (st == ST_OK)
        st = scale(L, u, -1, 0, lay, "minus", u->prec, &t[2]);
    if (st == ST_OK)
        st = scale(L, u, 1, 0, lay, "plus", u->prec, &t[5]);
    Opnd hp = val_opnd(&t[0]), hn = val_opnd(&t[1]), mu = val_opnd(&t[2]), pu = val_opnd(&t[5]);
    if (st == ST_OK)
        st = pick2(L, false, &pu, &hp, lay, "upick", 32, &t[3]);
    if (st == ST_OK)
        st = pick2(L, false, &mu, &hn, lay, "mpick", 32, &t[4]);
    Opnd a = val_opnd(&t[3]), b = val_opnd(&t[4]);
    if (st == ST_OK)
        st = max2(L, &a, &b, lay, "", vprec, out);
    for (int k = 0; k < 6; k++)
        lw_val_free(&t[k]);
    return st;
}

/* a / b truncating (0 for b == 0) when pa + pb > 16 (or its one table would be int32 entries
 * of 2^16, signmag_smaller) but |a| and |b| together fit 16 bits:
 * trunc(a / b) = sa * sb * trunc(|a| / |b|), with sx = -1 for x < 0, else 1 (for a = 0 or
 * b = 0 the quotient is 0 whatever the signs). With qa = pa - 1, qb = pb - 1 (|a| < 2^qa,
 * |b| < 2^qb) the position k = |a| * 2^qb + |b| lies in [0, 2^dw), dw = qa + qb <= 16, and
 * determines (|a|, |b|), so one CLUT with LUT_DW = dw gives u = trunc(|a| / |b|) (the table
 * filled by the operator's own function on those pairs). Its index is centred, k - 2^(dw-1)
 * in [-2^(dw-1), 2^(dw-1)), a signed dw-bit number like every other table's: P07 saturates
 * an index to -N/2 .. N/2 - 1 and reads a table of N = 2^dw entries as it is (CHIP.md; dw
 * 12 and 16), so k itself would read entry N/2 - 1 for every k past it (map.exact.clip).
 * Index i reads entry i, or 2^dw + i below 0, so the table is rotated by 2^(dw-1): entry j
 * holds pair j XOR 2^(dw-1)'s quotient. |a| * 2^qb - 2^(dw-1) is a CLUT over a (CVS with
 * that bias for a value known to be >= 0), |b| a CLUT over b (nothing for b >= 0), the index
 * a CADD, the signs CLUTs multiplied in by CVVH. Every intermediate is exact: |index| <=
 * 2^15, |u| <= |a|. */
static Status div_signmag(Lw *L, Opnd *o, const Lay *lay, LVal *out)
{
    int32_t vprec = L->cur->out_prec[0];
    int qa = o[0].prec - 1, qb = o[1].prec - 1, dw = qa + qb;
    bool nn[2] = {opnd_nonneg(&o[0], lay->n), opnd_nonneg(&o[1], lay->n)};
    LVal t[8];
    memset(t, 0, sizeof t);
    Opnd hi, lo, ix, u, sg[2], s, r;
    memset(&hi, 0, sizeof hi);
    memset(&r, 0, sizeof r);
    memset(&s, 0, sizeof s);
    memset(sg, 0, sizeof sg);
    memset(&u, 0, sizeof u);
    memset(&ix, 0, sizeof ix);
    memset(&lo, 0, sizeof lo);
    Status st;
    /* |a| * 2^qb - 2^(dw-1): CVS for a >= 0, else a CLUT */
    int32_t half = (int32_t)1 << (dw - 1);
    if (nn[0] && !o[0].cv) {
        st = scale(L, &o[0], (int32_t)1 << qb, -half, lay, "hi", dw + 1, &t[0]);
        hi = val_opnd(&t[0]);
    } else {
        st = map_opnd(L, &o[0], g_abs_shl_centred, qb + 32 * dw, lay, "hi", dw + 1, &t[0], &hi);
    }
    /* |b|: b itself for b >= 0 */
    if (st == ST_OK && nn[1] && !o[1].cv)
        lo = o[1];
    else if (st == ST_OK)
        st = map_opnd(L, &o[1], g_abs_shl, 0, lay, "lo", qb + 1, &t[1], &lo);
    if (st == ST_OK)
        st = add2(L, &hi, &lo, lay, "index", dw + 1, &t[2]);
    ix = val_opnd(&t[2]);
    /* the quotient table: entry j = (k >> qb) / (k mod 2^qb) by the operator's function, for
     * the position k = j XOR 2^(dw-1) that the centred index j (or j - 2^dw) stands for */
    int64_t n = (int64_t)1 << dw;
    OgShape ts = {1, {n}};
    OgTensor ta = {0}, tb = {0}, res = {0};
    if (st == ST_OK && (!og_tensor_alloc(&ta, &ts) || !og_tensor_alloc(&tb, &ts)))
        st = lw_oom(L);
    for (int64_t j = 0; st == ST_OK && j < n; j++) {
        int64_t k = j ^ half;
        ta.data[j] = (int32_t)(k >> qb);
        tb.data[j] = (int32_t)(k & (((int64_t)1 << qb) - 1));
    }
    if (st == ST_OK) {
        const OgTensor *ins[2] = {&ta, &tb};
        st = lw_run(L, NULL, ins, &ts, &res);
    }
    og_tensor_free(&ta);
    og_tensor_free(&tb);
    bool need_sign = !nn[0] || !nn[1];
    if (st == ST_OK)
        st = lut(L, &ix, lay, dw, res.data, need_sign ? "quotient" : "", need_sign ? qa + 1 :
                 vprec, need_sign ? &t[3] : out);
    og_tensor_free(&res);
    if (st != ST_OK || !need_sign)
        goto done;
    u = val_opnd(&t[3]);
    /* the sign: sa, sb, or sa * sb; then u * sign */
    const Opnd *sp[2] = {NULL, NULL};
    int ns = 0;
    for (int k = 0; k < 2 && st == ST_OK; k++)
        if (!nn[k]) {
            st = map_opnd(L, &o[k], g_sign, 0, lay, k ? "sign1" : "sign0", 2, &t[4 + k],
                          &sg[k]);
            sp[ns++] = &sg[k];
        }
    const Opnd *sgn = sp[0];
    if (st == ST_OK && ns == 2) {
        st = mul_opnd(L, sp[0], sp[1], lay, "sign", 2, &t[6], &s);
        sgn = &s;
    }
    if (st == ST_OK && qa >= 8 && !sgn->cv) /* u may pass 127 */
        st = sign_pick(L, &u, sgn, lay, vprec, out);
    else if (st == ST_OK)   /* u is computed: the product is a CVVH into out */
        st = mul_opnd(L, &u, sgn, lay, "", vprec, out, &r);
done:
    for (int k = 0; k < 8; k++)
        lw_val_free(&t[k]);
    free(hi.cv);
    free(lo.cv);
    free(sg[0].cv);
    free(sg[1].cv);
    free(s.cv);
    return st;
}

/* sgn(x) = clip(x, -1, 1) (clip(x, 0, 1) = [x != 0] for x known >= 0): a constant's values,
 * or one CCMPB. */
static Status sign_opnd(Lw *L, const Opnd *x, bool nonneg, const Lay *lay, const char *suffix,
                        LVal *tmp, Opnd *out)
{
    memset(out, 0, sizeof *out);
    out->prec = 2;
    if (!x->cv) {
        out->v = tmp;
        return clip_shift(L, x, 0, nonneg ? 0 : -1, 1, lay, suffix, 2, tmp);
    }
    out->cv = malloc((size_t)(lay->n ? lay->n : 1) * sizeof *out->cv);
    if (!out->cv)
        return lw_oom(L);
    for (int64_t i = 0; i < lay->n; i++)
        out->cv[i] = (x->cv[i] > 0) - (x->cv[i] < 0);
    return ST_OK;
}

/* c * x + d elementwise for an operand: a constant's values (|c| <= 1), or CVS. */
static Status affine_opnd(Lw *L, const Opnd *x, int32_t c, int32_t d, const Lay *lay,
                          const char *suffix, int32_t vprec, LVal *tmp, Opnd *out)
{
    memset(out, 0, sizeof *out);
    out->prec = vprec;
    if (!x->cv) {
        out->v = tmp;
        return scale(L, x, c, d, lay, suffix, vprec, tmp);
    }
    out->cv = malloc((size_t)(lay->n ? lay->n : 1) * sizeof *out->cv);
    if (!out->cv)
        return lw_oom(L);
    for (int64_t i = 0; i < lay->n; i++)   /* |x| <= 2^31 - 1: exact */
        out->cv[i] = (int32_t)((int64_t)c * x->cv[i] + d);
    return ST_OK;
}

/* a and b (computed ones) clipped at 0 (known >= 0: the clip never acts), for the analysis. */
static Status relu_opnds(Lw *L, Opnd *a, Opnd *b, const Lay *lay, LVal *t, size_t *k)
{
    Opnd *x[2] = {a, b};
    static const char *const tag[2] = {"mag0/pos", "mag1/pos"};
    for (int j = 0; j < 2; j++) {
        if (x[j]->cv)
            continue;
        LVal *v = &t[(*k)++];
        Status st = clip_shift(L, x[j], 0, 0, INT32_MAX, lay, tag[j], x[j]->prec, v);
        if (st != ST_OK)
            return st;
        *x[j] = val_opnd(v);
    }
    return ST_OK;
}

/* The quotient bits of div_restoring for a dividend of 31 bits (qa = 31, a of precision 32),
 * every step bounded by the values' ranges alone (docs/lowering.md; the chip-exactness
 * analysis, docs/exactness.md, then proves each inside int32): the partial remainder
 * P = R >> i instead of R, and the dividend's low bits L = A mod 2^i beside it:
 *   P = A >> (qa - 1), L = A mod 2^(qa - 1) (A + (-2^(qa-1)) P: a remainder the analysis
 *   knows); for i = qa - 1 down to 0: t = clip(P + 1 - B, 0, 1) (at i = 0, where P may be
 *   2^31 - 1, t = 1 - clip(B - P, 0, 1)); tB = min(B, t (2^31 - 1))
 *   (t B by selection: no product of an int32 B); P = clip(P - tB, 0, 2^(qa-i) - 1) (the
 *   clip never acts: t = 1 only when P >= B); Q += t 2^i; then, for i > 0, the next bit
 *   b = clip(L >> (i - 1), 0, 1) of A, L -= b 2^(i-1) and P = 2 P + b < 2^(qa-i+1).
 * Q (the quotient of the magnitudes, < 2^qa) into *q (t: scratch values, *k of them used). */
static Status div_bits_wide(Lw *L, const Opnd *A, const Opnd *B, const Opnd *b1, int qa,
                            const Lay *lay, LVal *t, size_t *k, Opnd *q)
{
    Opnd P, Lo, Q, Bv;
    memset(&Q, 0, sizeof Q);
    LVal *p0 = &t[(*k)++], *nl = &t[(*k)++], *l0 = &t[(*k)++], *bv0 = &t[(*k)++];
    Status st = as_value(L, B, lay, "mag1/value", bv0, &Bv); /* pick2 reads computed values */
    B = &Bv;
    if (st == ST_OK)
        st = clip_shift(L, A, qa - 1, 0, 1, lay, "top", 2, p0);
    P = val_opnd(p0);
    if (st == ST_OK)
        st = scale(L, &P, -(int32_t)(1u << (qa - 1)), 0, lay, "low/neg", 32, nl);
    Opnd no = val_opnd(nl);
    if (st == ST_OK)
        st = add2(L, A, &no, lay, "low", 32, l0);
    Lo = val_opnd(l0);
    for (int i = qa - 1; i >= 0 && st == ST_OK; i--) {
        char sub[8][32];
        const char *tag[8] = {"cmp", "", "all", "sub", "rem", "q", "next", "low"};
        for (int j = 0; j < 8; j++)
            snprintf(sub[j], sizeof sub[j], "bit%d%s%s", i, *tag[j] ? "/" : "", tag[j]);
        LVal *d = &t[(*k)++], *bit = &t[(*k)++], *all = &t[(*k)++], *tb = &t[(*k)++],
             *pm = &t[(*k)++], *pc = &t[(*k)++], *qs = &t[(*k)++], *q2 = &t[(*k)++];
        /* (an operand's precision is its value's once made: val_opnd after each step) */
        Opnd dv, bv, av, tv;
        if (i > 0) { /* P < 2^(qa-i) <= 2^30: P + 1 - B stays inside int32 */
            st = add2(L, &P, b1, lay, sub[0], 32, d);
            dv = val_opnd(d);
            if (st == ST_OK)
                st = clip_shift(L, &dv, 0, 0, 1, lay, sub[1], 2, bit);
        } else { /* P may be 2^31 - 1: t = 1 - clip(B - P, 0, 1) */
            LVal *f = &t[(*k)++];
            st = sub2(L, B, &P, lay, sub[0], 32, d);
            dv = val_opnd(d);
            if (st == ST_OK)
                st = clip_shift(L, &dv, 0, 0, 1, lay, "bit0/less", 2, f);
            Opnd fv = val_opnd(f);
            if (st == ST_OK)
                st = scale(L, &fv, -1, 1, lay, sub[1], 2, bit);
        }
        bv = val_opnd(bit);
        if (st == ST_OK)
            st = scale(L, &bv, INT32_MAX, 0, lay, sub[2], 32, all);
        av = val_opnd(all);
        if (st == ST_OK)
            st = pick2(L, false, B, &av, lay, sub[3], 32, tb);
        tv = val_opnd(tb);
        if (st == ST_OK)
            st = sub2(L, &P, &tv, lay, sub[4], 32, pm);
        Opnd mv = val_opnd(pm);
        if (st == ST_OK)
            st = clip_shift(L, &mv, 0, 0, ((int64_t)1 << (qa - i)) - 1, lay, sub[4], 32, pc);
        P = val_opnd(pc);
        Opnd qt = bv;
        if (st == ST_OK && i > 0) {
            st = scale(L, &bv, (int32_t)1 << i, 0, lay, sub[5], 32, qs);
            qt = val_opnd(qs);
        }
        if (st == ST_OK && Q.v) {
            st = add2(L, &Q, &qt, lay, sub[5], 32, q2);
            Q = val_opnd(q2);
        } else if (st == ST_OK) {
            Q = qt;
        }
        if (st != ST_OK || i == 0)
            break;
        LVal *nb = &t[(*k)++], *nn = &t[(*k)++], *l2 = &t[(*k)++], *p2 = &t[(*k)++],
             *p3 = &t[(*k)++];
        st = clip_shift(L, &Lo, i - 1, 0, 1, lay, sub[6], 2, nb);
        Opnd nbv = val_opnd(nb);
        if (st == ST_OK)
            st = scale(L, &nbv, -(int32_t)(1u << (i - 1)), 0, lay, sub[7], 32, nn);
        Opnd nnv = val_opnd(nn);
        if (st == ST_OK)
            st = add2(L, &Lo, &nnv, lay, sub[7], 32, l2);
        Lo = val_opnd(l2);
        if (st == ST_OK)
            st = scale(L, &P, 2, 0, lay, sub[6], 32, p2);
        Opnd p2v = val_opnd(p2);
        if (st == ST_OK)
            st = add2(L, &p2v, &nbv, lay, sub[6], 32, p3);
        P = val_opnd(p3);
    }
    *q = Q;
    return st;
}

/* a / b truncating (0 for b == 0) for operands too wide for tables: a restoring division of
 * the magnitudes A = |a| < 2^qa, B = |b| < 2^qb (qa = pa - 1, qb = pb - 1), then the signs:
 *   R = A; for i = qa - 1 down to 0: t = [(R >> i) >= B] = clip((R >> i) - B + 1, 0, 1);
 *   R -= t * B * 2^i; Q += t * 2^i.
 * Then Q = trunc(A / B) for B >= 1, and a / b = Q * sgn(a) * sgn(b) (sgn(b) = 0 gives b == 0
 * its 0; for a == 0, Q = 0). Every step stays in int32: R >> i < 2^31 and
 * (R >> i) - B + 1 <= 2^31 - 1 for B >= 1 (for B = 0 a wrap only changes a Q that sgn(b)
 * zeroes); t = 1 only when B * 2^i <= R, so t * (-B) * 2^i (CVVH, then CVS) is exact; Q < 2^qa.
 * Per bit: CCMPB (shift), CADD, CCMPB (clip), CVVH, CVS, CADD, CVS, CADD. */
static Status div_restoring(Lw *L, Opnd *o, const Lay *lay, LVal *out)
{
    int32_t vprec = L->cur->out_prec[0];
    int qa = o[0].prec - 1, qb = o[1].prec - 1;
    bool nn[2] = {opnd_nonneg(&o[0], lay->n), opnd_nonneg(&o[1], lay->n)};
    bool wide = qa >= 31; /* the steps below leave int32 as two independent ranges see them */
    size_t nt = (size_t)qa * (wide ? 13 : 8) + 24;
    LVal *t = calloc(nt, sizeof *t);
    if (!t)
        return lw_oom(L);
    size_t k = 0;
    Opnd A, nB, b1, R, Q, sa, sb, s, p;
    memset(&Q, 0, sizeof Q);
    memset(&nB, 0, sizeof nB);
    memset(&b1, 0, sizeof b1);
    memset(&sa, 0, sizeof sa);
    memset(&sb, 0, sizeof sb);
    memset(&s, 0, sizeof s);
    Status st;
    /* A: |a| as a computed value; -B and 1 - B (constants or CVS); sgn(b) */
    if (nn[0]) {
        st = as_value(L, &o[0], lay, "mag0", &t[k++], &A);
    } else if (o[0].cv) {
        Opnd c = o[0];
        c.cv = malloc((size_t)(lay->n ? lay->n : 1) * sizeof *c.cv);
        st = c.cv ? ST_OK : lw_oom(L);
        for (int64_t i = 0; st == ST_OK && i < lay->n; i++)
            c.cv[i] = o[0].cv[i] < 0 ? -o[0].cv[i] : o[0].cv[i];
        if (st == ST_OK)
            st = as_value(L, &c, lay, "mag0", &t[k++], &A);
        free(c.cv);
    } else {
        st = abs_seq(L, &o[0], lay, "mag0", qa + 1, &t[k]);
        A = val_opnd(&t[k++]);
    }
    Opnd B = o[1];
    if (st == ST_OK && !nn[1] && !B.cv) {
        st = abs_seq(L, &o[1], lay, "mag1", qb + 1, &t[k]);
        B = val_opnd(&t[k++]);
    } else if (st == ST_OK && !nn[1]) {
        st = affine_opnd(L, &o[1], 1, 0, lay, "", qb + 1, NULL, &B);
        for (int64_t i = 0; st == ST_OK && i < lay->n; i++)
            B.cv[i] = B.cv[i] < 0 ? -B.cv[i] : B.cv[i];
    }
    if (st == ST_OK && wide) /* |a|, |b| >= 0 for the analysis too: max(x, -x) clipped at 0,
                                which never acts (the wide steps' ranges start from them) */
        st = relu_opnds(L, &A, &B, lay, t, &k);
    if (st == ST_OK)
        st = affine_opnd(L, &B, -1, 0, lay, "negmag1", qb + 1, &t[k++], &nB);
    if (st == ST_OK)
        st = affine_opnd(L, &B, -1, 1, lay, "bound", qb + 2, &t[k++], &b1);
    if (st == ST_OK)
        st = sign_opnd(L, &o[1], nn[1], lay, "sign1", &t[k++], &sb);
    R = A;
    if (st == ST_OK && wide)
        st = div_bits_wide(L, &A, &B, &b1, qa, lay, t, &k, &Q);
    for (int i = qa - 1; i >= 0 && st == ST_OK && !wide; i--) {
        char sub[6][32];
        snprintf(sub[0], sizeof sub[0], "bit%d/shift", i);
        snprintf(sub[1], sizeof sub[1], "bit%d/cmp", i);
        snprintf(sub[2], sizeof sub[2], "bit%d", i);
        snprintf(sub[3], sizeof sub[3], "bit%d/sub", i);
        snprintf(sub[4], sizeof sub[4], "bit%d/rem", i);
        snprintf(sub[5], sizeof sub[5], "bit%d/q", i);
        LVal *sh = &t[k++], *d = &t[k++], *bit = &t[k++], *pv = &t[k++], *ps = &t[k++],
             *r2 = &t[k++], *qs = &t[k++], *q2 = &t[k++];
        st = clip_shift(L, &R, i, INT32_MIN, INT32_MAX, lay, sub[0], qa + 1, sh);
        Opnd so = val_opnd(sh), dopnd, bo;
        if (st == ST_OK)
            st = add2(L, &so, &b1, lay, sub[1], 32, d);
        dopnd = val_opnd(d);
        if (st == ST_OK)
            st = clip_shift(L, &dopnd, 0, 0, 1, lay, sub[2], 2, bit);
        bo = val_opnd(bit);
        if (st == ST_OK)
            st = mul_opnd(L, &bo, &nB, lay, sub[3], qb + 1, pv, &p);
        if (st == ST_OK && i > 0) {
            st = scale(L, &p, (int32_t)1 << i, 0, lay, sub[3], qa + 1, ps);
            p = val_opnd(ps);
        }
        if (st == ST_OK)
            st = add2(L, &R, &p, lay, sub[4], qa + 1, r2);
        R = val_opnd(r2);
        Opnd qt = bo;
        if (st == ST_OK && i > 0) {
            st = scale(L, &bo, (int32_t)1 << i, 0, lay, sub[5], qa + 1, qs);
            qt = val_opnd(qs);
        }
        if (st == ST_OK && Q.v) {
            st = add2(L, &Q, &qt, lay, sub[5], qa + 1, q2);
            Q = val_opnd(q2);
        } else if (st == ST_OK) {
            Q = qt;
        }
    }
    /* the signs: Q * sgn(b) (* sgn(a)) */
    if (st == ST_OK && !nn[0])
        st = sign_opnd(L, &o[0], false, lay, "sign0", &t[k++], &sa);
    if (st == ST_OK && !nn[0]) {
        st = mul_opnd(L, &sa, &sb, lay, "sign", 2, &t[k], &s);
        k++;
    } else {
        s = sb;
        sb.cv = NULL;
    }
    if (st == ST_OK && wide) {
        Opnd sv = s; /* Q may pass 2^29: the sign by selection, not a product (P03) */
        LVal sl = {0};
        if (sv.cv)
            st = as_value(L, &s, lay, "sign", &sl, &sv);
        if (st == ST_OK)
            st = sign_pick(L, &Q, &sv, lay, vprec, out);
        lw_val_free(&sl);
    } else if (st == ST_OK) {
        Opnd r;
        st = mul_opnd(L, &Q, &s, lay, "", vprec, out, &r);
    }
    for (size_t j = 0; j < nt; j++)
        lw_val_free(&t[j]);
    free(t);
    if (B.cv != o[1].cv)
        free(B.cv);
    free(nB.cv);
    free(b1.cv);
    free(sa.cv);
    free(sb.cv);
    free(s.cv);
    return st;
}

/* Is one table over the index a * 2^pb + b larger than a core once on the chip, where the
 * sign-magnitude split's is not: more than 2^12 entries (P07 reads 2^16 then) of quotients
 * that no 8 bits hold (int32 entries: 256 KiB), where |a| < 2^8 keeps trunc(|a| / |b|) in
 * 0 .. 255 (one byte an entry: 64 KiB; docs/exactness.md, "Tables in their map's
 * precision")? */
static bool signmag_smaller(Lw *L, const Opnd *o, const Lay *lay)
{
    if (table1_fits(o, lay) || o[0].prec + o[1].prec <= 12 ||
        o[0].prec + o[1].prec > LW_MAX_TABLE_DW || o[0].prec - 1 > 8)
        return false;
    OgTensor res = {0};
    if (lut2_table(L, o[0].prec, o[1].prec, &res) != ST_OK)
        return false; /* lut2 fails alike */
    int32_t lo = 0, hi = 0;
    for (int64_t k = 0; k < res.count; k++) {
        lo = res.data[k] < lo ? res.data[k] : lo;
        hi = res.data[k] > hi ? res.data[k] : hi;
    }
    og_tensor_free(&res);
    return !(lo >= -128 && hi <= 127) && !(lo >= 0 && hi <= 255);
}

/* a / b (truncating, 0 for b == 0): by one table when the precisions allow and its table
 * fits a core, else by the sign-magnitude split when the magnitudes fit one table, else by
 * a restoring division. */
static Status body_div(Lw *L, Opnd *o, const Lay *lay, LVal *out)
{
    if ((!table2_fits(o, lay) || signmag_smaller(L, o, lay)) &&
        o[0].prec <= LW_MAX_TABLE_DW && o[1].prec <= LW_MAX_TABLE_DW &&
        o[0].prec + o[1].prec - 2 <= LW_MAX_TABLE_DW)
        return div_signmag(L, o, lay, out);
    if (!table2_fits(o, lay))
        return div_restoring(L, o, lay, out);
    return body_table2(L, o, lay, out);
}

Status lw_op_broadcast_div(Lw *L)
{
    return frame(L, 2, NULL, body_div);
}

/* a > b = clip(a - b, 0, 1): exact while a - b fits int32 (both precisions <= 31). */
static Status body_greater(Lw *L, Opnd *o, const Lay *lay, LVal *out)
{
    int32_t vprec = L->cur->out_prec[0];
    if (o[0].prec > 31 || o[1].prec > 31)
        return lw_fail(L, "lower.precision", "broadcast_greater of operands of precisions %d "
                       "and %d: the comparison lowers to a - b, which leaves int32 at precision "
                       "32", (int)o[0].prec, (int)o[1].prec);
    LVal d = {0};
    int32_t dp = (o[0].prec > o[1].prec ? o[0].prec : o[1].prec) + 1;
    Status st = sub2(L, &o[0], &o[1], lay, "diff", dp, &d);
    if (st == ST_OK) {
        Opnd od = val_opnd(&d);
        Ew e = {BT_CCMPB, "", PR_TERNARY, 1, {AT_CMP}, {0}, NULL, false, 0};
        st = ew(L, &e, &od, 1, lay, vprec, out, NULL);
    }
    lw_val_free(&d);
    return st;
}

Status lw_op_broadcast_greater(Lw *L)
{
    return frame(L, 2, NULL, body_greater);
}

static Status body_clip(Lw *L, Opnd *o, const Lay *lay, LVal *out)
{
    int64_t lo = og_attr_int(L->cur, "a_min", 0), hi = og_attr_int(L->cur, "a_max", 0);
    return clip_shift(L, &o[0], 0, lo, hi, lay, "", L->cur->out_prec[0], out);
}

Status lw_op_clip(Lw *L)
{
    return frame(L, 1, NULL, body_clip);
}

static Status body_cvm_clip(Lw *L, Opnd *o, const Lay *lay, LVal *out)
{
    int64_t a = alpha((int32_t)og_attr_int(L->cur, "precision", 1));
    return clip_shift(L, &o[0], 0, -a, a, lay, "", L->cur->out_prec[0], out);
}

Status lw_op_cvm_clip(Lw *L)
{
    return frame(L, 1, NULL, body_cvm_clip);
}

/* Constant zeros of the node's output shape (an output that no input value can change). */
static Status zeros(Lw *L, LVal *out)
{
    memset(out, 0, sizeof *out);
    out->kind = LV_CONST;
    out->ps = L->cur->out_shape[0];
    out->prec = L->cur->out_prec[0];
    out->c_owned = true;
    if (!og_tensor_alloc(&out->c, &out->ps))
        return lw_oom(L);
    return ST_OK;
}

/* Adds r to the bias of the block that makes x (x is read by this node only). */
static bool fold_bias(Lw *L, const LVal *x, int64_t r)
{
    OgEdge e = L->cur->inputs[0];
    if (x->kind != LV_PROD || !x->bias_ok || L->nuse[L->first[e.node] + e.index] != 1)
        return false;
    Block *b = x->src.b;
    if (!(bt_info(b->type)->flags & BF_BIAS) || blk_prec(b) != PR_INT_32)
        return false;
    if (b->bias_type == BIAS_VECTOR || blk_has_bias_cluster(b)) {
        Block *sb = x->bias_sb;
        if (!sb || !sb->data || !sb->data->i32)
            return false;
        for (uint32_t i = 0; i < sb->data->n_i32; i++)
            if (sb->data->i32[i] + r > INT32_MAX)
                return false;
        for (uint32_t i = 0; i < sb->data->n_i32; i++)
            sb->data->i32[i] += (int32_t)r;
        sb->prec = sb->data->prec = PR_INT_32;
        sb->has_prec = true;
        return true;
    }
    if (b->bias_type == BIAS_CONSTANT || r > INT32_MAX || b->shape.d[D_F] <= 0)
        return false;
    Block *sb;
    return bias_sb(L, b, "round_b", b->n_in, b->shape.d[D_F], NULL, (int32_t)r, &sb) == ST_OK;
}

/* Y = clip(floor((floor(X / 2^(s-1)) + 1) / 2), -alpha, alpha) = clip((X + 2^(s-1)) >> s, ..)
 * (docs/lowering.md). */
static Status body_right_shift(Lw *L, Opnd *o, const Lay *lay, LVal *out)
{
    int s = (int)og_attr_int(L->cur, "shift_bit", 1);
    int64_t a = alpha((int32_t)og_attr_int(L->cur, "precision", 1));
    int32_t P = o[0].prec, vprec = L->cur->out_prec[0];
    if (s == 32) /* |X| < 2^31: X + 2^31 lies in [1, 2^32), T = 0 */
        return zeros(L, out);
    LVal t1 = {0}, t2 = {0}, t3 = {0};
    Status st;
    if (P <= 31) {
        int64_t r = (int64_t)1 << (s - 1), ax = alpha(P);
        int64_t tmax = (ax + r) >> s, tmin = -((ax - r + ((int64_t)1 << s) - 1) >> s);
        /* X + 2^(s-1) lies in [-(ax - r), ax + r]: its precision */
        int32_t rp = cvm_bits((uint64_t)(ax + r)) + 1;
        Opnd rounded;
        if (fold_bias(L, o[0].v, r)) {
            st = lw_val_copy(L, o[0].v, &t1);
            t1.prec = rp;
        } else {
            Ew e = {BT_CADD, "round", PR_INT_32, 0, {0}, {0}, NULL, true, (int32_t)r};
            st = ew(L, &e, &o[0], 1, lay, rp, &t1, NULL);
        }
        rounded = val_opnd(&t1);
        if (st == ST_OK)
            st = clip_shift(L, &rounded, s, tmin >= -a ? INT32_MIN : -a,
                            tmax <= a ? INT32_MAX : a, lay, "", vprec, out);
    } else if (s == 1) {
        /* ceil(X / 2) = -floor(-X / 2) */
        st = scale(L, &o[0], -1, 0, lay, "neg", 32, &t1);
        Opnd n1 = val_opnd(&t1);
        if (st == ST_OK)
            st = clip_shift(L, &n1, 1, INT32_MIN, INT32_MAX, lay, "half", 32, &t2);
        Opnd n2 = val_opnd(&t2);
        if (st == ST_OK)
            st = scale(L, &n2, -1, 0, lay, "ceil", 32, &t3);
        Opnd n3 = val_opnd(&t3);
        n3.prec = 32;
        if (st == ST_OK)
            st = clip_shift(L, &n3, 0, -a, a, lay, "", vprec, out);
    } else {
        /* q = X >> (s-1) (|q| <= 2^30), then (q + 1) >> 1 */
        st = clip_shift(L, &o[0], s - 1, INT32_MIN, INT32_MAX, lay, "q", 32, &t1);
        Opnd q = val_opnd(&t1);
        if (st == ST_OK) {
            Ew e = {BT_CADD, "round", PR_INT_32, 0, {0}, {0}, NULL, true, 1};
            st = ew(L, &e, &q, 1, lay, 32, &t2, NULL);
        }
        Opnd q1 = val_opnd(&t2);
        q1.prec = 32;
        if (st == ST_OK)
            st = clip_shift(L, &q1, 1, -a, a, lay, "", vprec, out);
    }
    lw_val_free(&t1);
    lw_val_free(&t2);
    lw_val_free(&t3);
    return st;
}

Status lw_op_cvm_right_shift(Lw *L)
{
    return frame(L, 1, NULL, body_right_shift);
}

/* Y = clip(X * 2^s, -alpha, alpha); P + s <= 32 keeps X * 2^s within int32. */
static Status body_left_shift(Lw *L, Opnd *o, const Lay *lay, LVal *out)
{
    int s = (int)og_attr_int(L->cur, "shift_bit", 1);
    int64_t a = alpha((int32_t)og_attr_int(L->cur, "precision", 1));
    int32_t P = o[0].prec, vprec = L->cur->out_prec[0];
    if (P == 1) /* the input is 0 */
        return zeros(L, out);
    LVal t = {0};
    Status st = scale(L, &o[0], (int32_t)((int64_t)1 << s), 0, lay, "shift", P + s, &t);
    Opnd to = val_opnd(&t);
    to.prec = P + s;
    if (st == ST_OK)
        st = clip_shift(L, &to, 0, -a, a, lay, "", vprec, out);
    lw_val_free(&t);
    return st;
}

Status lw_op_cvm_left_shift(Lw *L)
{
    return frame(L, 1, NULL, body_left_shift);
}

/* ---- table lookups: cvm_lut(indices, table), take(table, indices) ---- */

Status lw_lookup(Lw *L, uint32_t kidx, uint32_t ktab)
{
    const OgNode *n = L->cur;
    LVal *tv = lw_in(L, ktab);
    if (tv->kind != LV_CONST)
        return lw_fail(L, "lower.dynamic", "the table is computed by the graph; a lookup "
                       "lowers to a CLUT whose table is a parameter (taskir-compile "
                       "--allow-host leaves it and what follows to the host)");
    if (n->op == CVM_OP_take && !og_attr_is_none(n, "axis")) {
        int64_t ax = og_attr_int(n, "axis", 0);
        if (ax < 0)
            ax += tv->c.shape.ndim;
        int64_t outer = tv->c.count / tv->c.shape.d[ax];
        if (outer != 1)
            return lw_fail(L, "lower.dynamic", "take along axis %lld with computed indices "
                           "selects whole slices of %lld elements: a data-dependent gather "
                           "(a table lookup lowers only when the other axes have extent 1; "
                           "taskir-compile --allow-host leaves it to the host)",
                           (long long)ax, (long long)outer);
    }
    Opnd x;
    Status st = opnd_init(L, kidx, run_rows, &x);
    if (st != ST_OK)
        return st;
    Lay lay;
    lay.ps = lw_ps_of(L, &n->out_shape[0]);
    lay.n = lw_volume(&lay.ps);
    st = lw_layout(L, NULL, &lay.ps, lay.perm, lay.yxf);
    int64_t cnt = tv->c.count;
    OgTensor flat = tv->c;
    flat.shape.ndim = 1;
    flat.shape.d[0] = cnt;
    LVal cl = {0}, out = {0};
    Opnd xi = x;
    int32_t *tab = NULL;
    int dw = x.prec;
    if (st == ST_OK && x.prec > LW_MAX_TABLE_DW) {
        /* clip the indices to [0, n - 1] first (exact), then a table of bits(n - 1) */
        if (cnt > ((int64_t)1 << (LW_MAX_TABLE_DW - 1))) {
            st = lw_fail(L, "lower.precision", "a lookup with %d-bit indices into a table of "
                         "%lld entries: indices of more than %d bits are clipped first, then "
                         "looked up in a CLUT of at most 2^%d non-negative entries",
                         (int)x.prec, (long long)cnt, LW_MAX_TABLE_DW, LW_MAX_TABLE_DW - 1);
        } else {
            st = clip_shift(L, &x, 0, 0, cnt - 1, &lay, "index", cvm_bits((uint64_t)cnt), &cl);
            xi = val_opnd(&cl);
            dw = cvm_bits((uint64_t)(cnt - 1)) + 1; /* indices < 2^(dw-1): entries k = i */
        }
    }
    if (st == ST_OK)
        st = table1(L, cvm_run_cvm_lut, dw, 0, &flat, &tab);
    if (st == ST_OK) {
        xi.prec = dw;
        st = lut(L, &xi, &lay, dw, tab, "", n->out_prec[0], &out);
    }
    if (st == ST_OK)
        lw_set_out(L, 0, &out);
    else
        lw_val_free(&out);
    free(tab);
    lw_val_free(&cl);
    opnd_free(&x);
    return st;
}

Status lw_op_cvm_lut(Lw *L)
{
    LVal *idx = lw_in(L, 0);
    if (idx->kind == LV_CONST)
    {
        static const bool second[2] = {false, true};
        return lw_move_node(L, second, false);
    }
    return lw_lookup(L, 0, 1);
}

/* take(x, indices): constant indices move x's elements; a constant x with computed indices is
 * a table lookup (lw_lookup); both computed is a data-dependent gather. */
Status lw_op_take(Lw *L)
{
    LVal *x = lw_in(L, 0), *idx = lw_in(L, 1);
    if (idx->kind == LV_CONST) {
        static const bool first_only[2] = {true, false};
        return lw_move_node(L, first_only, false);
    }
    if (x->kind == LV_CONST)
        return lw_lookup(L, 1, 0);
    return lw_fail(L, "lower.dynamic", "take with computed indices from a computed tensor is a "
                   "data-dependent gather; the Task IR moves data only along fixed edges (a "
                   "constant table or constant indices lower; taskir-compile --allow-host "
                   "leaves it and what follows to the host)");
}

/* ---- where ---- */

/* a * b of two operands (constants multiply at compile time). */
static Status mul_opnd(Lw *L, const Opnd *a, const Opnd *b, const Lay *lay, const char *suffix,
                       int32_t vprec, LVal *tmp, Opnd *out)
{
    memset(out, 0, sizeof *out);
    out->prec = vprec;
    if (a->cv && b->cv) {
        out->cv = malloc((size_t)(lay->n ? lay->n : 1) * sizeof *out->cv);
        if (!out->cv)
            return lw_oom(L);
        for (int64_t i = 0; i < lay->n; i++)
            out->cv[i] = a->cv[i] * b->cv[i]; /* one factor is 0 or 1 */
        return ST_OK;
    }
    Ew e = {BT_CVVH, suffix, PR_INT_32, 0, {0}, {0}, NULL, false, 0};
    Opnd two[2] = {*a, *b};
    out->v = tmp;
    return ew(L, &e, two, 2, lay, vprec, tmp, NULL);
}

/* where(ind, x, y) for ind in {0, 1} (precision 2) of operands whose products' sum the chip's
 * analysis cannot bound inside int32 (two INT_32 operands: it sees both products at once):
 * by selection, with no sum at all. Over ind, hx = ind ? 2^31 - 1 : -2^31 and
 * hy = ind ? -2^31 : 2^31 - 1 (CLUTs of 4 entries, indices -2 and -1 unreached), then
 * max(min(x, hx), min(y, hy)): min(x, hx) is x when ind = 1, else -2^31, which the max
 * then drops for y (and the other way round). CCMPS, CCMPS, CCMPB, each over two rows of one
 * SI, exact whatever the values. */
static Status where_pick(Lw *L, Opnd *o, const Opnd *ind, const Lay *lay, int32_t vprec,
                         LVal *out)
{
    static const int32_t tx[4] = {INT32_MIN, INT32_MAX, INT32_MIN, INT32_MIN};
    static const int32_t ty[4] = {INT32_MAX, INT32_MIN, INT32_MAX, INT32_MAX};
    LVal t[6];
    memset(t, 0, sizeof t);
    Opnd x, y, hx, hy, ax, ay, cx, cy;
    memset(&cx, 0, sizeof cx);
    memset(&cy, 0, sizeof cy);
    Status st = as_value(L, &o[1], lay, "x", &t[0], &x);
    if (st == ST_OK)
        st = as_value(L, &o[2], lay, "y", &t[1], &y);
    if (ind->cv) { /* a constant condition: the bounds are constants */
        cx.prec = cy.prec = 32;
        cx.cv = malloc((size_t)(lay->n ? lay->n : 1) * sizeof *cx.cv);
        cy.cv = malloc((size_t)(lay->n ? lay->n : 1) * sizeof *cy.cv);
        if (st == ST_OK && (!cx.cv || !cy.cv))
            st = lw_oom(L);
        for (int64_t i = 0; st == ST_OK && i < lay->n; i++) {
            cx.cv[i] = tx[ind->cv[i] != 0];
            cy.cv[i] = ty[ind->cv[i] != 0];
        }
        if (st == ST_OK)
            st = as_value(L, &cx, lay, "xbound", &t[2], &hx);
        if (st == ST_OK)
            st = as_value(L, &cy, lay, "ybound", &t[3], &hy);
    } else {
        if (st == ST_OK)
            st = lut(L, ind, lay, 2, tx, "xbound", 32, &t[2]);
        if (st == ST_OK)
            st = lut(L, ind, lay, 2, ty, "ybound", 32, &t[3]);
        hx = val_opnd(&t[2]);
        hy = val_opnd(&t[3]);
    }
    free(cx.cv);
    free(cy.cv);
    if (st == ST_OK)
        st = pick2(L, false, &x, &hx, lay, "xpick", 32, &t[4]);
    if (st == ST_OK)
        st = pick2(L, false, &y, &hy, lay, "ypick", 32, &t[5]);
    ax = val_opnd(&t[4]);
    ay = val_opnd(&t[5]);
    if (st == ST_OK)
        st = max2(L, &ax, &ay, lay, "", vprec, out);
    for (int k = 0; k < 6; k++)
        lw_val_free(&t[k]);
    return st;
}

/* Would x * ind + y * (1 - ind) need more than int32 were both products at their extremes
 * (the analysis bounds each product, not that one of them is 0)? */
static bool where_wide(const Opnd *o)
{
    return alpha(o[1].prec) + alpha(o[2].prec) > INT32_MAX;
}

/* out = x * ind + y * (1 - ind), ind = [cond != 0]: each product is exact and one of them is
 * 0, so the sum is exact; where_pick when the chip's analysis cannot see it. */
static Status body_where(Lw *L, Opnd *o, const Lay *lay, LVal *out)
{
    int32_t vprec = L->cur->out_prec[0];
    LVal ind = {0}, t1 = {0}, t2 = {0}, nind = {0}, px = {0}, py = {0};
    Opnd oi, on, ox, oy;
    memset(&oi, 0, sizeof oi);
    memset(&on, 0, sizeof on);
    memset(&ox, 0, sizeof ox);
    memset(&oy, 0, sizeof oy);
    Status st = ST_OK;
    const Opnd *c = &o[0];
    if (c->cv) {
        oi.cv = malloc((size_t)(lay->n ? lay->n : 1) * sizeof *oi.cv);
        on.cv = malloc((size_t)(lay->n ? lay->n : 1) * sizeof *on.cv);
        if (!oi.cv || !on.cv)
            st = lw_oom(L);
        for (int64_t i = 0; st == ST_OK && i < lay->n; i++) {
            oi.cv[i] = c->cv[i] != 0;
            on.cv[i] = c->cv[i] == 0;
        }
        oi.prec = on.prec = 2;
        if (st == ST_OK && where_wide(o)) {
            st = where_pick(L, o, &oi, lay, vprec, out);
            goto done;
        }
    } else {
        if (c->prec <= LW_MAX_TABLE_DW) {
            int dw = c->prec;
            int64_t n = (int64_t)1 << dw;
            int32_t *tab = malloc((size_t)n * sizeof *tab);
            if (!tab)
                return lw_oom(L);
            for (int64_t k = 0; k < n; k++)
                tab[k] = tsigned(k, dw) != 0;
            st = lut(L, c, lay, dw, tab, "cond", 2, &ind);
            free(tab);
        } else {
            /* [c != 0] = clip(c, 0, 1) + clip(-c, 0, 1) */
            Ew e = {BT_CCMPB, "pos", PR_TERNARY, 1, {AT_CMP}, {0}, NULL, false, 0};
            st = ew(L, &e, c, 1, lay, 2, &t1, NULL);
            LVal ng = {0};
            if (st == ST_OK)
                st = scale(L, c, -1, 0, lay, "neg", c->prec, &ng);
            Opnd ong = val_opnd(&ng);
            Ew e2 = {BT_CCMPB, "negpos", PR_TERNARY, 1, {AT_CMP}, {0}, NULL, false, 0};
            if (st == ST_OK)
                st = ew(L, &e2, &ong, 1, lay, 2, &t2, NULL);
            lw_val_free(&ng);
            Opnd two[2] = {val_opnd(&t1), val_opnd(&t2)};
            Ew e3 = {BT_CADD, "cond", PR_INT_32, 0, {0}, {0}, NULL, false, 0};
            if (st == ST_OK)
                st = ew(L, &e3, two, 2, lay, 2, &ind, NULL);
        }
        oi = val_opnd(&ind);
        if (st == ST_OK && where_wide(o)) {
            st = where_pick(L, o, &oi, lay, vprec, out);
            goto done;
        }
        if (st == ST_OK)
            st = scale(L, &oi, -1, 1, lay, "ncond", 2, &nind);
        on = val_opnd(&nind);
    }
    if (st == ST_OK)
        st = mul_opnd(L, &o[1], &oi, lay, "x", o[1].prec, &px, &ox);
    if (st == ST_OK)
        st = mul_opnd(L, &o[2], &on, lay, "y", o[2].prec, &py, &oy);
    if (st == ST_OK)
        st = add2(L, &ox, &oy, lay, "", vprec, out);
done:
    if (c->cv) {
        free(oi.cv);
        free(on.cv);
    }
    free(ox.cv);
    free(oy.cv);
    lw_val_free(&ind);
    lw_val_free(&t1);
    lw_val_free(&t2);
    lw_val_free(&nind);
    lw_val_free(&px);
    lw_val_free(&py);
    return st;
}

/* A constant condition selects at compile time: when the selection comes in a few runs it
 * is data movement (pieces of x and y), else the arithmetic form with constant masks. */
Status lw_op_where(Lw *L)
{
    if (lw_in(L, 0)->kind != LV_CONST)
        return frame(L, 3, run_rows, body_where);
    Opnd c;
    Status st = opnd_init(L, 0, run_rows, &c);
    if (st != ST_OK)
        return st;
    OgShape ps = lw_ps_of(L, &L->cur->out_shape[0]);
    int64_t n = lw_volume(&ps), runs = 1;
    for (int64_t i = 1; i < n; i++)
        runs += (c.cv[i] != 0) != (c.cv[i - 1] != 0);
    opnd_free(&c);
    if (runs <= 16) {
        static const bool data[3] = {false, true, true};
        return lw_move_node(L, data, false);
    }
    return frame(L, 3, run_rows, body_where);
}

/* ---- tables for the CINN extension operators (lower_cinn.c) ---- */

static Status body_table_unary(Lw *L, Opnd *o, const Lay *lay, LVal *out)
{
    if (o[0].prec > LW_MAX_TABLE_DW)
        return lw_fail(L, "lower.precision", "%s of an operand of precision %d: it lowers only "
                       "to a lookup table (CLUT), whose index holds at most %d bits",
                       L->cur->op_name, (int)o[0].prec, LW_MAX_TABLE_DW);
    return unary_table(L, &o[0], lay, out);
}

Status lw_table_unary(Lw *L)
{
    return frame(L, 1, NULL, body_table_unary);
}

Status lw_table_binary(Lw *L)
{
    return frame(L, 2, NULL, body_table2);
}
