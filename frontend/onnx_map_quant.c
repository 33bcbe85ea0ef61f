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
 * function the reference computes. The count is taken by a branchless binary search over
 * the 8 (or 16) bits of the level:
 *     idx = 0; for b = B-1 .. 0: idx += 2^b * [acc >= T[idx + 2^b]]
 * with T a table (cvm_lut, one row of 2^B entries per channel for per-channel scales) and
 * [a >= t] = clip(a - t + 1, 0, 1) after clipping acc into [t_1 - 1, t_L]. Every step is a
 * CVM operator with exact integer semantics, so the interpreter reproduces onnxruntime bit
 * for bit and so does the lowered graph: no input differs (docs/onnx.md).
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

/* y = requantize(acc) per channel (nch multipliers along axis `axis` of acc; nch == 1: per
 * tensor). */
static Status requantize(OnnxCtx *c, OgEdge acc, const float *M, const int32_t *zp,
                         int64_t nch, uint32_t axis, int32_t qtype, OgEdge *out)
{
    int64_t lo, hi;
    onnx_type_range(qtype, &lo, &hi);
    const int B = 8;
    const int64_t L = (int64_t)1 << B;     /* table row: levels 0..255 of lo + level */
    int32_t p = og_edge_prec(c->g, acc);
    int64_t amax = og_prec_alpha(p);
    if (nch * L > 32768)
        return onnx_fail(c, "onnx.quant.channels", "%lld channels with their own scale: the "
                         "requantization table would have more than 2^15 entries",
                         (long long)nch);
    int32_t *T = malloc((size_t)(nch * L) * sizeof *T);
    if (!T)
        return onnx_oom(c);
    int64_t tmin = INT64_MAX, tmax = INT64_MIN;
    for (int64_t ch = 0; ch < nch; ch++) {
        int32_t z = zp[ch];
        for (int64_t j = 0; j < L; j++) {
            int64_t t = j == 0 ? -amax : j > hi - lo ? amax + 1 :
                        threshold(M[ch], z, (int32_t)lo, (int32_t)hi, (int32_t)(lo + j), -amax,
                                  amax);
            T[ch * L + j] = (int32_t)(t > amax ? amax + 1 > INT32_MAX ? INT32_MAX : amax + 1 :
                                      t);
            if (j >= 1 && j <= hi - lo) {
                tmin = t < tmin ? t : tmin;
                tmax = t > tmax ? t : tmax;
            }
        }
    }
    /* acc clipped into [tmin - 1, tmax] keeps every comparison and keeps the differences
     * small; table entries are clipped into [tmin - 1, tmax + 1] the same way */
    if (tmin > amax)
        tmin = amax + 1;
    if (tmax > amax)
        tmax = amax;
    if (tmax < tmin - 1)
        tmax = tmin - 1;
    for (int64_t i = 0; i < nch * L; i++)
        T[i] = (int32_t)(T[i] < tmin - 1 ? tmin - 1 : T[i] > tmax + 1 ? tmax + 1 : T[i]);
    OgEdge a, et, ch_off = {-1, 0};
    Status st = onnx_clip(c, acc, tmin - 1, tmax, &a);
    OgShape ts = {1, {nch * L}};
    if (st == ST_OK)
        st = onnx_const_i32(c, "thresholds", &ts, T, &et);
    free(T);
    const OgShape *as = og_edge_shape(c->g, acc);
    if (st == ST_OK && nch > 1) {
        OgShape cs = {as->ndim, {0}};
        for (uint32_t k = 0; k < as->ndim; k++)
            cs.d[k] = k == axis ? nch : 1;
        int32_t *off = malloc((size_t)nch * sizeof *off);
        if (!off)
            return onnx_oom(c);
        for (int64_t k = 0; k < nch; k++)
            off[k] = (int32_t)(k * L);
        st = onnx_const_i32(c, "channel", &cs, off, &ch_off);
        free(off);
    }
    /* idx = 0; for b: idx += 2^b [a >= T[idx + 2^b (+ channel offset)]] */
    OgEdge idx = {-1, 0};
    for (int b = B - 1; b >= 0 && st == ST_OK; b--) {
        OgEdge probe, t, d, bit;
        if (idx.node < 0) {
            /* idx = 0: the probe is the constant 2^b (plus the channel's offset) */
            if (ch_off.node >= 0)
                st = onnx_add_scalar(c, ch_off, (int64_t)1 << b, &probe);
            else {
                int32_t v = 1 << b;
                OgShape one = {as->ndim, {0}};
                for (uint32_t k = 0; k < as->ndim; k++)
                    one.d[k] = 1;
                st = onnx_const_i32(c, "probe", &one, &v, &probe);
            }
        } else {
            st = onnx_add_scalar(c, idx, (int64_t)1 << b, &probe);
            if (st == ST_OK && ch_off.node >= 0)
                st = onnx_cvm(c, CVM_OP_broadcast_add, "probe", (OgEdge[]){probe, ch_off}, 2,
                              NULL, &probe);
        }
        if (st == ST_OK && idx.node < 0) {
            /* a constant probe: its thresholds are constants too (take folds) */
            st = onnx_cvm(c, CVM_OP_take, "t", (OgEdge[]){et, probe}, 2, NULL, &t);
        } else if (st == ST_OK) {
            st = onnx_cvm(c, CVM_OP_cvm_lut, "t", (OgEdge[]){probe, et}, 2, NULL, &t);
        }
        if (st == ST_OK)
            st = onnx_cvm(c, CVM_OP_broadcast_sub, "d", (OgEdge[]){a, t}, 2, NULL, &d);
        if (st == ST_OK)
            st = onnx_add_scalar(c, d, 1, &d);
        if (st == ST_OK)
            st = onnx_clip(c, d, 0, 1, &bit);
        if (st == ST_OK)
            st = onnx_shl(c, bit, b, &bit);
        if (st == ST_OK && idx.node < 0)
            idx = bit;
        else if (st == ST_OK)
            st = onnx_cvm(c, CVM_OP_broadcast_add, "idx", (OgEdge[]){idx, bit}, 2, NULL, &idx);
    }
    if (st == ST_OK)
        st = onnx_add_scalar(c, idx, lo, &idx);
    if (st == ST_OK)   /* gives the result its type's precision (the values are in range) */
        st = onnx_clip(c, idx, lo, hi, out);
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
