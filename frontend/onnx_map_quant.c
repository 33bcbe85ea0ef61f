/* onnx_map_quant.c: QuantizeLinear, DequantizeLinear, QLinearConv and QLinearMatMul.
 *
 * QuantizeLinear on a graph input and DequantizeLinear on a graph output are the model's
 * edges: the host does them (onnx_edge.c), the OpGraph sees the quantized integers. On
 * constants both are evaluated at compile time.
 *
 * Requantization (QLinearConv, QLinearMatMul): onnxruntime computes
 *     y = saturate(round_half_even(float32(acc) * M) + zp),  M = float32(s_x * s_w / s_y)
 * (fe_onnx_requantize). For a fixed M > 0 this is a non-decreasing step function of the
 * int32 accumulator with at most L = hi - lo steps, so
 *     y = lo + #{ j in 1..L : acc >= t_j },  t_j = the least acc with f(acc) >= lo + j,
 * and the thresholds t_j are found at compile time by bisection over int32 using the very
 * function the reference computes (rows of channels with equal M and zp are shared). The
 * count is a branchless binary search over the 8 bits of the level:
 *     idx = 0; for b = 7 .. 0: idx += 2^b * [acc >= t(idx + 2^b)],
 *     [a >= t] = clip(a + (1 - t), 0, 1).
 * At step b the known bits m = idx >> (b+1) and the channel's row slot r form the probe
 * p = r 2^(7-b) + m, and 1 - t is a cvm_lut table of 2^(7-b) entries per row (step 7: level
 * 128, a constant per channel). The next probe is 2p + bit, the doubling a table
 * ((2p) mod 2^14) so that p keeps 16 bits; y = lo + 2 (p mod 128) + bit after step 0.
 * Channels: fine groups are maximal runs of channels with at most 128 distinct rows; the
 * row slot at step b is r = (k mod 2^b) 128 + (the row's number in fine group k), so step
 * b's tables (one per run of 2^b fine groups, each over its channels' slice of p, the slices
 * concatenated) have fewer than 2^14 entries and any number of channels (up to 65536) fits.
 * Every step is a CVM operator with exact integer semantics, so the interpreter reproduces
 * onnxruntime bit for bit and so does the lowered graph: no input differs (docs/onnx.md).
 */
#include "frontend/onnx_internal.h"

#include <stdlib.h>
#include <string.h>

Status onnx_conv_integer(OnnxCtx *c, uint32_t kx, uint32_t kxzp, uint32_t kw, uint32_t kwzp,
                         int32_t kb, OgEdge *out);
Status onnx_matmul_integer(OnnxCtx *c, uint32_t ka, uint32_t kazp, uint32_t kb, uint32_t kbzp,
                           OgEdge *out);

/* Scale and zero point of a (scale, zp) input pair: per tensor or per axis (n > 0: along an
 * axis of extent n). qtype receives the zero point's type (uint8 when absent). */
static Status qparams(OnnxCtx *c, uint32_t ks, uint32_t kz, int64_t n, float *scale,
                      int32_t *zp, int32_t *qtype)
{
    const float *sv;
    int64_t ns;
    bool present;
    Status st = onnx_const_floats(c, ks, &sv, &ns, &present);
    if (st != ST_OK)
        return st;
    if (!present)
        return onnx_fail(c, "onnx.node.inputs", "input %u (a scale) is required", ks);
    int64_t cnt = n > 0 ? n : 1;
    if (ns != 1 && ns != cnt)
        return onnx_fail(c, "onnx.quant.axis", "a scale has %lld values: one, or one per "
                         "channel (%lld)", (long long)ns, (long long)cnt);
    OnnxVal *z = onnx_in(c, kz, &st);
    if (st != ST_OK)
        return st;
    *qtype = ONNX_T_UINT8;
    if (z) {
        if (z->kind != OV_CONST || !z->c.i)
            return onnx_fail(c, "onnx.param", "zero point '%s' must be an integer constant",
                             z->name);
        if (z->c.count != 1 && z->c.count != cnt)
            return onnx_fail(c, "onnx.quant.axis", "zero point '%s' has %lld values", z->name,
                             (long long)z->c.count);
        *qtype = z->type;
    }
    if (*qtype != ONNX_T_UINT8 && *qtype != ONNX_T_INT8)
        return onnx_fail(c, "onnx.quant.type", "quantized type %s: uint8 and int8 are "
                         "supported", fe_onnx_type_name(*qtype));
    for (int64_t i = 0; i < cnt; i++) {
        scale[i] = sv[ns == 1 ? 0 : i];
        if (!(scale[i] > 0) || scale[i] > 3.4028234e38f)
            return onnx_fail(c, "onnx.quant.scale", "scale %.9g is not a positive finite "
                             "number", (double)scale[i]);
        zp[i] = z ? (int32_t)z->c.i[z->c.count == 1 ? 0 : i] : 0;
    }
    return ST_OK;
}

/* The axis and extent of per-axis quantization parameters for a tensor of shape s. */
static Status qaxis(OnnxCtx *c, uint32_t ks, const OgShape *s, int32_t *axis, int64_t *n)
{
    int64_t a;
    Status st = onnx_attr_int(c, "axis", 1, -(int64_t)OG_MAX_DIMS, OG_MAX_DIMS, &a);
    if (st != ST_OK)
        return st;
    /* the node may have fewer inputs: qparams then says the scale is required */
    OnnxVal *sv = ks < c->node->n_input ? onnx_val(c, c->node->input[ks]) : NULL;
    *n = 0;
    *axis = 0;
    if (!sv || sv->kind != OV_CONST || sv->c.count == 1)
        return ST_OK;
    uint32_t ax;
    if ((st = onnx_axis(c, "axis", a, s->ndim, &ax)) != ST_OK)
        return st;
    *axis = (int32_t)ax;
    *n = s->d[ax];
    return ST_OK;
}

Status onnx_map_quantize(OnnxCtx *c)
{
    static const char *const ok[] = {"axis", "saturate", NULL};
    Status st = onnx_attrs_known(c, ok);
    OnnxVal *x = st == ST_OK ? onnx_need(c, 0, &st) : NULL;
    if (!x)
        return st;
    if (x->type != ONNX_T_FLOAT)
        return onnx_fail(c, "onnx.type", "QuantizeLinear takes float, not %s",
                         fe_onnx_type_name(x->type));
    OgShape xs = onnx_shape(x);
    int32_t axis, qtype;
    int64_t n;
    if ((st = qaxis(c, 1, &xs, &axis, &n)) != ST_OK)
        return st;
    int64_t cnt = n > 0 ? n : 1;
    float *scale = arena_alloc(c->g->arena, (size_t)cnt, sizeof *scale);
    int32_t *zp = arena_alloc(c->g->arena, (size_t)cnt, sizeof *zp);
    if (!scale || !zp)
        return onnx_oom(c);
    if ((st = qparams(c, 1, 2, n, scale, zp, &qtype)) != ST_OK)
        return st;
    int64_t lo, hi;
    onnx_type_range(qtype, &lo, &hi);
    if (x->kind == OV_CONST) {
        OnnxTensor t = x->c;
        t.type = qtype;
        t.f = NULL;
        t.i = malloc((size_t)(t.count ? t.count : 1) * sizeof *t.i);
        if (!t.i)
            return onnx_oom(c);
        int64_t inner = 1;
        for (uint32_t k = (uint32_t)axis + 1; n > 0 && k < xs.ndim; k++)
            inner *= xs.d[k];
        for (int64_t i = 0; i < t.count; i++) {
            int64_t ch = n > 0 ? (i / inner) % n : 0;
            t.i[i] = fe_onnx_quantize(x->c.f[i], scale[ch], zp[ch], (int32_t)lo, (int32_t)hi);
        }
        return onnx_out_const(c, 0, &t);
    }
    if (x->graph_input < 0 || c->m->inputs[x->graph_input].kind != ONNX_EDGE_QUANT)
        return onnx_fail(c, "onnx.quant.edge", "QuantizeLinear of a computed tensor: supported "
                         "on graph inputs (the host quantizes) and constants only");
    OnnxEdge *e = &c->m->inputs[x->graph_input];
    if (e->int_type != qtype)
        return onnx_fail(c, "onnx.quant.type", "the input was prepared for %s",
                         fe_onnx_type_name(e->int_type));
    e->axis = axis;
    e->nq = (uint32_t)cnt;
    e->scale = scale;
    e->zero_point = zp;
    OgEdge ex = x->e;
    return onnx_out_run(c, 0, ex, qtype);
}

Status onnx_map_dequantize(OnnxCtx *c)
{
    static const char *const ok[] = {"axis", NULL};
    Status st = onnx_attrs_known(c, ok);
    OnnxVal *x = st == ST_OK ? onnx_need(c, 0, &st) : NULL;
    if (!x)
        return st;
    OgShape xs = onnx_shape(x);
    int32_t axis, qtype;
    int64_t n;
    if ((st = qaxis(c, 1, &xs, &axis, &n)) != ST_OK)
        return st;
    int64_t cnt = n > 0 ? n : 1;
    float *scale = arena_alloc(c->g->arena, (size_t)cnt, sizeof *scale);
    int32_t *zp = arena_alloc(c->g->arena, (size_t)cnt, sizeof *zp);
    if (!scale || !zp)
        return onnx_oom(c);
    if ((st = qparams(c, 1, 2, n, scale, zp, &qtype)) != ST_OK)
        return st;
    if (onnx_in(c, 2, &st) && x->type != qtype)
        return onnx_fail(c, "onnx.type", "the input is %s, its zero point %s",
                         fe_onnx_type_name(x->type), fe_onnx_type_name(qtype));
    if (x->type != ONNX_T_UINT8 && x->type != ONNX_T_INT8 && x->type != ONNX_T_INT32)
        return onnx_fail(c, "onnx.quant.type", "DequantizeLinear of %s: uint8, int8 and int32 "
                         "are supported", fe_onnx_type_name(x->type));
    int64_t inner = 1;
    for (uint32_t k = (uint32_t)axis + 1; n > 0 && k < xs.ndim; k++)
        inner *= xs.d[k];
    if (x->kind == OV_CONST) {
        OnnxTensor t = x->c;
        t.type = ONNX_T_FLOAT;
        t.i = NULL;
        t.f = malloc((size_t)(t.count ? t.count : 1) * sizeof *t.f);
        if (!t.f)
            return onnx_oom(c);
        for (int64_t i = 0; i < t.count; i++) {
            int64_t ch = n > 0 ? (i / inner) % n : 0;
            t.f[i] = (float)(x->c.i[i] - zp[ch]) * scale[ch];
        }
        return onnx_out_const(c, 0, &t);
    }
    int32_t xtype = x->type;
    OgEdge ex = x->e;
    OnnxVal *o = onnx_out_val(c, 0, &st);
    if (!o)
        return st;
    o->kind = OV_DEQ;
    o->type = ONNX_T_FLOAT;
    o->e = ex;
    o->shape = xs;
    o->q_type = xtype;
    o->q_axis = axis;
    o->nq = (uint32_t)cnt;
    o->q_scale = scale;
    o->q_zp = zp;
    return ST_OK;
}

/* ---- requantization ---- */

enum {
    RQ_B = 8,                   /* bits of the level: a row holds 2^RQ_B thresholds */
    RQ_FINE = 128,              /* distinct rows per fine group */
    RQ_IDX = 1 << 14,           /* the step tables' and the probes' bound (16-bit indices) */
};
#define RQ_MAX_CH 65536         /* channels with their own scale */

/* The per-channel structure of one requantization (section "Requantization" at the top). */
typedef struct Rq {
    int64_t nch;                /* channels (1: per tensor) */
    int64_t nu;                 /* distinct rows: channels with equal (M, zp) share one */
    int32_t *row;               /* per channel: its row */
    int32_t *T;                 /* nu rows of 2^RQ_B: T[u][j] = t_j of row u (j >= 1) */
    int32_t *fine;              /* per channel: its fine group */
    int32_t *loc;               /* per channel: its row's number within its fine group */
    int64_t nfine;
    int64_t *fstart;            /* nfine + 1: the first channel of each fine group */
} Rq;

static void rq_free(Rq *q)
{
    free(q->row), free(q->T), free(q->fine), free(q->loc), free(q->fstart);
}

/* r_b(ch): the channel's row slot at step b (step-b groups are runs of 2^b fine groups). */
static int64_t rq_slot(const Rq *q, int64_t ch, int b)
{
    return (int64_t)(q->fine[ch] & ((1 << b) - 1)) * RQ_FINE + q->loc[ch];
}

/* The least acc in [lo_acc, hi_acc] with f(acc) >= level, or hi_acc + 1 when none. */
static int64_t threshold(float M, int32_t zp, int32_t lo, int32_t hi, int32_t level,
                         int64_t lo_acc, int64_t hi_acc)
{
    int64_t a = lo_acc, b = hi_acc + 1;   /* f(b - 1 + 1) >= level assumed "at infinity" */
    while (a < b) {
        int64_t m = a + (b - a) / 2;
        if (fe_onnx_requantize(m, M, zp, lo, hi) >= level)
            b = m;
        else
            a = m + 1;
    }
    return a;
}

typedef struct RqKey {
    uint32_t m;                 /* M's bits (M > 0: the order of the bits is irrelevant) */
    int32_t zp, ch;
} RqKey;

static int rq_key_cmp(const void *pa, const void *pb)
{
    const RqKey *a = pa, *b = pb;
    if (a->m != b->m)
        return a->m < b->m ? -1 : 1;
    if (a->zp != b->zp)
        return a->zp < b->zp ? -1 : 1;
    return (a->ch > b->ch) - (a->ch < b->ch);
}

/* Rows (deduplicated), thresholds and fine groups. *tmin, *tmax: the least and greatest
 * informative threshold (one some accumulators in [-amax, amax] reach and others do not),
 * 0 and 0 when there is none. */
static Status rq_plan(OnnxCtx *c, const float *M, const int32_t *zp, int64_t lo, int64_t hi,
                      int64_t amax, Rq *q, int64_t *tmin_out, int64_t *tmax_out)
{
    const int64_t L = (int64_t)1 << RQ_B;
    int64_t n = q->nch;
    RqKey *keys = malloc((size_t)n * sizeof *keys);
    q->row = malloc((size_t)n * sizeof *q->row);
    q->fine = malloc((size_t)n * sizeof *q->fine);
    q->loc = malloc((size_t)n * sizeof *q->loc);
    q->fstart = malloc((size_t)(n + 1) * sizeof *q->fstart);
    if (!keys || !q->row || !q->fine || !q->loc || !q->fstart) {
        free(keys);
        return onnx_oom(c);
    }
    for (int64_t ch = 0; ch < n; ch++) {
        memcpy(&keys[ch].m, &M[ch], sizeof keys[ch].m);
        keys[ch].zp = zp[ch];
        keys[ch].ch = (int32_t)ch;
    }
    qsort(keys, (size_t)n, sizeof *keys, rq_key_cmp);
    q->nu = 0;
    for (int64_t i = 0; i < n; i++) {
        if (i > 0 && (keys[i].m != keys[i - 1].m || keys[i].zp != keys[i - 1].zp))
            q->nu++;
        q->row[keys[i].ch] = (int32_t)q->nu;
    }
    q->nu++;
    /* the first channel of each row gives its M and zp */
    int32_t *first = malloc((size_t)q->nu * sizeof *first);
    q->T = malloc((size_t)(q->nu * L) * sizeof *q->T);
    if (!first || !q->T) {
        free(keys), free(first);
        return onnx_oom(c);
    }
    for (int64_t i = n - 1; i >= 0; i--)
        first[q->row[keys[i].ch]] = keys[i].ch;
    free(keys);
    int64_t tmin = INT64_MAX, tmax = INT64_MIN;
    for (int64_t u = 0; u < q->nu; u++) {
        int32_t ch = first[u];
        int64_t prev = -amax;
        for (int64_t j = 0; j < L; j++) {
            int64_t t = j == 0 ? -amax : j > hi - lo ? amax + 1 :
                        threshold(M[ch], zp[ch], (int32_t)lo, (int32_t)hi, (int32_t)(lo + j),
                                  prev, amax);   /* t_j >= t_(j-1): f is non-decreasing */
            prev = t > amax ? amax : t;
            q->T[u * L + j] = (int32_t)(t > amax ? amax + 1 > INT32_MAX ? INT32_MAX : amax + 1 :
                                        t);
            if (j >= 1 && j <= hi - lo && t > -amax && t <= amax) {
                tmin = t < tmin ? t : tmin;
                tmax = t > tmax ? t : tmax;
            }
        }
    }
    free(first);
    /* every comparison [acc >= t] keeps its value for acc clipped into [tmin - 1, tmax] and
     * t into [tmin - 1, tmax + 1]: an informative t is unchanged; t = -amax (every acc
     * reaches the level) becomes tmin - 1, still reached; t = amax + 1 (none does) becomes
     * tmax + 1, still not */
    if (tmin > tmax)
        tmin = tmax = 0;
    for (int64_t i = 0; i < q->nu * L; i++)
        q->T[i] = (int32_t)(q->T[i] < tmin - 1 ? tmin - 1 : q->T[i] > tmax + 1 ? tmax + 1 :
                            q->T[i]);
    /* fine groups: maximal runs of channels with at most RQ_FINE distinct rows */
    int64_t *seen = malloc((size_t)q->nu * sizeof *seen);
    int32_t *seen_loc = malloc((size_t)q->nu * sizeof *seen_loc);
    if (!seen || !seen_loc) {
        free(seen), free(seen_loc);
        return onnx_oom(c);
    }
    for (int64_t u = 0; u < q->nu; u++)
        seen[u] = -1;
    int32_t nloc = 0;
    q->nfine = 0;
    q->fstart[0] = 0;
    for (int64_t ch = 0; ch < n; ch++) {
        int32_t u = q->row[ch];
        if (seen[u] != q->nfine) {
            if (nloc == RQ_FINE) {
                q->fstart[++q->nfine] = ch;
                nloc = 0;
            }
            seen[u] = q->nfine;
            seen_loc[u] = nloc++;
        }
        q->fine[ch] = (int32_t)q->nfine;
        q->loc[ch] = seen_loc[u];
    }
    q->fstart[++q->nfine] = n;
    free(seen), free(seen_loc);
    *tmin_out = tmin;
    *tmax_out = tmax;
    return ST_OK;
}

/* e + v[channel] (a scalar when every value is the same: then no table). */
static Status rq_add_chan(OnnxCtx *c, const Rq *q, const OgShape *as, uint32_t axis, OgEdge e,
                          const int32_t *v, OgEdge *out)
{
    bool same = true;
    for (int64_t ch = 1; ch < q->nch && same; ch++)
        same = v[ch] == v[0];
    if (same)
        return onnx_add_scalar(c, e, v[0], out);
    OgShape cs = {as->ndim, {0}};
    for (uint32_t k = 0; k < as->ndim; k++)
        cs.d[k] = k == axis ? q->nch : 1;
    OgEdge ev;
    Status st = onnx_const_i32(c, "channel", &cs, v, &ev);
    if (st == ST_OK)
        st = onnx_cvm(c, CVM_OP_broadcast_add, "add", (OgEdge[]){e, ev}, 2, NULL, out);
    return st;
}

Status onnx_lut(OnnxCtx *c, const char *what, OgEdge e, const int32_t *tab, int64_t n,
                OgEdge *out)
{
    OgShape ts = {1, {n}};
    OgEdge et;
    char dim[24]; /* cvm-runtime requires in_dim, the table's length */
    snprintf(dim, sizeof dim, "%lld", (long long)n);
    Status st = onnx_const_i32(c, what, &ts, tab, &et);
    if (st == ST_OK)
        st = onnx_cvm(c, CVM_OP_cvm_lut, what, (OgEdge[]){e, et}, 2,
                      (const char *const[]){"in_dim", dim, NULL}, out);
    return st;
}

/* The negated thresholds at step b, 1 - T[row][m 2^(b+1) + 2^b], looked up at the probes p
 * (p = r_b 2^(7-b) + m): one table per step-b group of channels (a run of 2^b fine groups,
 * at most 2^14 entries), each over its channels' slice of p, the slices concatenated. */
static Status rq_thresholds(OnnxCtx *c, const Rq *q, uint32_t axis, int b, OgEdge p,
                            OgEdge *out)
{
    const int64_t L = (int64_t)1 << RQ_B, per = (int64_t)1 << (RQ_B - 1 - b);
    int64_t ng = (q->nfine + ((int64_t)1 << b) - 1) >> b;
    OgEdge *parts = malloc((size_t)ng * sizeof *parts);
    int32_t *tab = malloc((size_t)RQ_IDX * sizeof *tab);
    int32_t *idx = malloc((size_t)q->nch * sizeof *idx);
    Status st = parts && tab && idx ? ST_OK : onnx_oom(c);
    char ab[16];
    snprintf(ab, sizeof ab, "%u", axis);
    for (int64_t g = 0; g < ng && st == ST_OK; g++) {
        int64_t k1 = (g + 1) << b;
        int64_t c0 = q->fstart[g << b], c1 = q->fstart[k1 < q->nfine ? k1 : q->nfine];
        int64_t n = 0;
        for (int64_t ch = c0; ch < c1; ch++) {
            int64_t r = rq_slot(q, ch, b);
            n = (r + 1) * per > n ? (r + 1) * per : n;
        }
        memset(tab, 0, (size_t)n * sizeof *tab);   /* slots of no channel stay 0 */
        for (int64_t ch = c0; ch < c1; ch++) {
            const int32_t *t = &q->T[(int64_t)q->row[ch] * L];
            int64_t r = rq_slot(q, ch, b);
            for (int64_t m = 0; m < per; m++)
                tab[r * per + m] = 1 - t[(m << (b + 1)) + ((int64_t)1 << b)];
        }
        OgEdge src = p;
        if (ng > 1) {
            for (int64_t ch = c0; ch < c1; ch++)
                idx[ch - c0] = (int32_t)ch;
            OgShape is = {1, {c1 - c0}};
            OgEdge ie;
            st = onnx_const_i32(c, "group", &is, idx, &ie);
            if (st == ST_OK)
                st = onnx_cvm(c, CVM_OP_take, "group", (OgEdge[]){p, ie}, 2,
                              (const char *const[]){"axis", ab, NULL}, &src);
        }
        if (st == ST_OK)
            st = onnx_lut(c, "thresholds", src, tab, n, &parts[g]);
    }
    if (st == ST_OK && ng > 1)
        st = onnx_cvm(c, CVM_OP_concatenate, "thresholds", parts, (uint32_t)ng,
                      (const char *const[]){"axis", ab, NULL}, out);
    else if (st == ST_OK)
        *out = parts[0];
    free(parts), free(tab), free(idx);
    return st;
}

/* y = requantize(acc) per channel (nch multipliers along axis `axis` of acc; nch == 1: per
 * tensor). */
static Status requantize(OnnxCtx *c, OgEdge acc, const float *M, const int32_t *zp,
                         int64_t nch, uint32_t axis, int32_t qtype, OgEdge *out)
{
    const int64_t L = (int64_t)1 << RQ_B;
    int64_t lo, hi;
    onnx_type_range(qtype, &lo, &hi);
    int32_t pacc = og_edge_prec(c->g, acc);
    int64_t amax = og_prec_alpha(pacc);
    if (nch > RQ_MAX_CH)
        return onnx_fail(c, "onnx.quant.channels", "%lld channels with their own scale: at "
                         "most %d", (long long)nch, RQ_MAX_CH);
    Rq q = {.nch = nch};
    int64_t tmin = 0, tmax = 0;
    Status st = rq_plan(c, M, zp, lo, hi, amax, &q, &tmin, &tmax);
    const OgShape *as = og_edge_shape(c->g, acc);
    int32_t *v = st == ST_OK ? malloc((size_t)nch * sizeof *v) : NULL;
    int32_t *tab = st == ST_OK ? malloc((size_t)RQ_IDX * sizeof *tab) : NULL;
    if (st == ST_OK && (!v || !tab))
        st = onnx_oom(c);
    /* a: acc, clipped into [tmin - 1, tmax] (every comparison kept) when a difference
     * a + 1 - t could otherwise leave 32 bits; the entries 1 - t lie in [-tmax, 2 - tmin] */
    OgEdge a = acc;
    if (st == ST_OK && 2 - tmin > INT32_MAX)
        st = onnx_fail(c, "onnx.precision", "the requantization's first level starts at "
                       "accumulator %lld: a threshold comparison would leave int32",
                       (long long)tmin);
    if (st == ST_OK && pacc > 30)
        st = onnx_clip(c, acc, tmin - 1, tmax, &a);
    /* step 7: the probe is level 128 of each channel's row: a constant per channel */
    OgEdge d, bit, p = {-1, 0};
    for (int64_t ch = 0; st == ST_OK && ch < nch; ch++)
        v[ch] = 1 - q.T[(int64_t)q.row[ch] * L + (L >> 1)];
    if (st == ST_OK)
        st = rq_add_chan(c, &q, as, axis, a, v, &d);
    if (st == ST_OK)
        st = onnx_clip(c, d, 0, 1, &bit);
    for (int64_t ch = 0; st == ST_OK && ch < nch; ch++)
        v[ch] = (int32_t)(2 * rq_slot(&q, ch, RQ_B - 2));
    if (st == ST_OK)
        st = rq_add_chan(c, &q, as, axis, bit, v, &p);
    /* steps 6 .. 0: p = r_b 2^(7-b) + m (m: the level's bits above b); the next probe is
     * 2p + bit, re-based to the next step's slots: (2p) mod 2^14 by a table */
    for (int b = RQ_B - 2; b >= 0 && st == ST_OK; b--) {
        OgEdge nt;
        st = rq_thresholds(c, &q, axis, b, p, &nt);
        if (st == ST_OK)
            st = onnx_cvm(c, CVM_OP_broadcast_add, "d", (OgEdge[]){a, nt}, 2, NULL, &d);
        if (st == ST_OK)
            st = onnx_clip(c, d, 0, 1, &bit);
        int64_t n = 0, per = (int64_t)1 << (RQ_B - 1 - b);
        for (int64_t ch = 0; ch < nch; ch++) {
            int64_t r = rq_slot(&q, ch, b);
            n = (r + 1) * per > n ? (r + 1) * per : n;
        }
        /* b > 0: the next probe 2p + bit; b = 0: y = lo + 2 (p mod 128) + bit */
        for (int64_t k = 0; k < n; k++)
            tab[k] = (int32_t)(b > 0 ? (2 * k) % RQ_IDX : lo + 2 * (k % (L >> 1)));
        OgEdge twice;
        if (st == ST_OK)
            st = onnx_lut(c, b > 0 ? "next" : "level", p, tab, n, &twice);
        if (st == ST_OK)
            st = onnx_cvm(c, CVM_OP_broadcast_add, b > 0 ? "probe" : "y",
                          (OgEdge[]){twice, bit}, 2, NULL, &p);
    }
    if (st == ST_OK)   /* gives the result its type's precision (the values are in range) */
        st = onnx_clip(c, p, lo, hi, out);
    free(v), free(tab);
    rq_free(&q);
    return st;
}

Status onnx_map_qlinear_matmul(OnnxCtx *c)
{
    static const char *const ok[] = {NULL};
    Status st = onnx_attrs_known(c, ok);
    OnnxVal *a = st == ST_OK ? onnx_need(c, 0, &st) : NULL;
    OnnxVal *b = a ? onnx_need(c, 3, &st) : NULL;
    if (!b)
        return st;
    OgShape bs = onnx_shape(b);
    int64_t N = bs.ndim == 2 ? bs.d[1] : 1;
    float sa, *sb = malloc((size_t)N * sizeof *sb), sy, *M = malloc((size_t)N * sizeof *M);
    int32_t za, *zb = malloc((size_t)N * sizeof *zb), zy, ta, tb, ty;
    if (!sb || !M || !zb) {
        free(sb), free(M), free(zb);
        return onnx_oom(c);
    }
    OnnxVal *bsv = c->node->n_input > 4 ? onnx_val(c, c->node->input[4]) : NULL;
    int64_t nb = bsv && bsv->kind == OV_CONST && bsv->c.count > 1 ? N : 0;
    st = qparams(c, 1, 2, 0, &sa, &za, &ta);
    if (st == ST_OK)
        st = qparams(c, 4, 5, nb, sb, zb, &tb);
    if (st == ST_OK)
        st = qparams(c, 6, 7, 0, &sy, &zy, &ty);
    OgEdge acc, y;
    if (st == ST_OK)
        st = onnx_matmul_integer(c, 0, 2, 3, 5, &acc);
    int64_t nch = nb ? N : 1;
    int32_t *zz = malloc((size_t)N * sizeof *zz);
    if (!zz && st == ST_OK)
        st = onnx_oom(c);
    for (int64_t j = 0; st == ST_OK && j < nch; j++) {
        volatile float prod = sa * sb[j];   /* float32, as onnxruntime rounds it */
        M[j] = prod / sy;
        zz[j] = zy;
    }
    if (st == ST_OK) {
        const OgShape *s = og_edge_shape(c->g, acc);
        st = requantize(c, acc, M, zz, nch, s->ndim - 1, ty, &y);
    }
    free(zz), free(sb), free(M), free(zb);
    if (st != ST_OK)
        return st;
    return onnx_out_run(c, 0, y, ty);
}

Status onnx_map_qlinear_conv(OnnxCtx *c)
{
    Status st;
    OnnxVal *w = onnx_need(c, 3, &st);
    if (!w)
        return st;
    OgShape ws = onnx_shape(w);
    int64_t O = ws.ndim ? ws.d[0] : 1;
    OnnxVal *wsv = c->node->n_input > 4 ? onnx_val(c, c->node->input[4]) : NULL;
    int64_t nw = wsv && wsv->kind == OV_CONST && wsv->c.count > 1 ? O : 0, nch = nw ? O : 1;
    float sx, sy, *sw = malloc((size_t)O * sizeof *sw), *M = malloc((size_t)O * sizeof *M);
    int32_t zx, zy, *zw = malloc((size_t)O * sizeof *zw), *zz = malloc((size_t)O * sizeof *zz);
    int32_t tx, tw, ty;
    if (!sw || !M || !zw || !zz) {
        free(sw), free(M), free(zw), free(zz);
        return onnx_oom(c);
    }
    st = qparams(c, 1, 2, 0, &sx, &zx, &tx);
    if (st == ST_OK)
        st = qparams(c, 4, 5, nw, sw, zw, &tw);
    if (st == ST_OK)
        st = qparams(c, 6, 7, 0, &sy, &zy, &ty);
    OgEdge acc, y;
    if (st == ST_OK)
        st = onnx_conv_integer(c, 0, 2, 3, 5, 8, &acc);
    for (int64_t j = 0; st == ST_OK && j < nch; j++) {
        volatile float prod = sx * sw[j];
        M[j] = prod / sy;
        zz[j] = zy;
    }
    if (st == ST_OK)
        st = requantize(c, acc, M, zz, nch, 1, ty, &y);
    free(sw), free(M), free(zw), free(zz);
    if (st != ST_OK)
        return st;
    return onnx_out_run(c, 0, y, ty);
}
