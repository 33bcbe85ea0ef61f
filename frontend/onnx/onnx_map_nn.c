/* onnx_map_nn.c: Conv, ConvInteger, Gemm, MatMul, MatMulInteger (a constant B) and MaxPool
 * onto CVM conv2d, dense and max_pool2d.
 *
 *  - 1-D convolutions and pools run as 2-D ones over a height of 1.
 *  - CVM pads symmetrically with zeros; asymmetric (or auto_pad) padding is made explicit by
 *    concatenating zeros. For MaxPool, whose ONNX padding never wins, the input is first
 *    shifted to be non-negative (x + a, a = the largest magnitude of its precision) and
 *    shifted back after, so zero padding cannot win either.
 *  - The integer forms subtract the zero points first (the weights' on the host), which is
 *    what padding with the zero point means.
 *  - Weights must be constants holding integers; a MatMul whose B is computed at run time
 *    goes to onnx_map_matmul_dyn.c.
 *  - AveragePool / GlobalAveragePool are in onnx_map_pool.c; the window helpers they use
 *    are exported at the end of this file (onnx_nn.h).
 */
#include "frontend/onnx/onnx_nn.h"

#include <stdlib.h>
#include <string.h>

typedef OnnxWin Win;

static Status read_window(OnnxCtx *c, const OgShape *xs, const int64_t *kshape, Win *w,
                          bool dilations_ok)
{
    memset(w, 0, sizeof *w);
    if (xs->ndim != 3 && xs->ndim != 4)
        return onnx_fail(c, "onnx.shape.rank", "the input has %u dims: 1-D and 2-D windows "
                         "(3 or 4 dims, N C [H] W) are supported", xs->ndim);
    w->nd = xs->ndim - 2;
    const int64_t *ks, *st, *dl, *pd;
    uint32_t nk, ns, ndl, np;
    char ap[32];
    Status r;
    if ((r = onnx_attr_ints(c, "kernel_shape", 2, &ks, &nk)) != ST_OK ||
        (r = onnx_attr_ints(c, "strides", 2, &st, &ns)) != ST_OK ||
        (r = onnx_attr_ints(c, "dilations", 2, &dl, &ndl)) != ST_OK ||
        (r = onnx_attr_ints(c, "pads", 4, &pd, &np)) != ST_OK ||
        (r = onnx_attr_str(c, "auto_pad", "NOTSET", ap, sizeof ap)) != ST_OK ||
        (r = onnx_attr_int(c, "ceil_mode", 0, 0, 1, &w->ceil_mode)) != ST_OK)
        return r;
    if (!ks && kshape)
        ks = kshape, nk = w->nd;
    if (!ks || nk != w->nd || (st && ns != w->nd) || (dl && ndl != w->nd) ||
        (pd && np != 2 * w->nd))
        return onnx_fail(c, "onnx.attr", "kernel_shape, strides, dilations and pads must "
                         "match the %u spatial dims", w->nd);
    for (uint32_t i = 0; i < w->nd; i++) {
        w->k[i] = ks[i];
        w->s[i] = st ? st[i] : 1;
        w->dl[i] = dl ? dl[i] : 1;
        w->pb[i] = pd ? pd[i] : 0;
        w->pe[i] = pd ? pd[i + w->nd] : 0;
        if (w->k[i] < 1 || w->k[i] > OG_MAX_DIM || w->s[i] < 1 || w->s[i] > OG_MAX_DIM ||
            w->dl[i] < 1 || w->dl[i] > OG_MAX_DIM || w->pb[i] < 0 || w->pb[i] > OG_MAX_DIM ||
            w->pe[i] < 0 || w->pe[i] > OG_MAX_DIM)
            return onnx_fail(c, "onnx.attr", "a kernel, stride, dilation or pad is out of "
                             "range");
        if (w->dl[i] != 1 && !dilations_ok)
            return onnx_fail(c, "onnx.attr", "dilations other than 1 are not supported here");
        /* pools (no kshape): onnxruntime's rule, which also keeps a model of a few bytes from
         * padding a tensor to many times its size */
        if (!kshape && (w->pb[i] >= w->k[i] || w->pe[i] >= w->k[i]))
            return onnx_fail(c, "onnx.attr", "pads (%lld, %lld) of spatial axis %u are not "
                             "smaller than the kernel (%lld), as onnxruntime requires of a pool",
                             (long long)w->pb[i], (long long)w->pe[i], i, (long long)w->k[i]);
    }
    bool upper = strcmp(ap, "SAME_UPPER") == 0, lower = strcmp(ap, "SAME_LOWER") == 0;
    if (upper || lower) {
        for (uint32_t i = 0; i < w->nd; i++) {
            int64_t in = xs->d[2 + i], out = (in + w->s[i] - 1) / w->s[i];
            int64_t tot = (out - 1) * w->s[i] + (w->k[i] - 1) * w->dl[i] + 1 - in;
            tot = tot < 0 ? 0 : tot;
            w->pb[i] = upper ? tot / 2 : tot - tot / 2;
            w->pe[i] = tot - w->pb[i];
        }
    } else if (strcmp(ap, "VALID") == 0) {
        for (uint32_t i = 0; i < w->nd; i++)
            w->pb[i] = w->pe[i] = 0;
    } else if (strcmp(ap, "NOTSET") != 0) {
        return onnx_fail(c, "onnx.attr", "auto_pad '%s' is not supported", ap);
    }
    return ST_OK;
}

/* x as a 4-D tensor (a 1-D window: N C 1 W). */
static Status as4d(OnnxCtx *c, OgEdge x, OgEdge *out)
{
    OgShape s = *og_edge_shape(c->g, x);
    if (s.ndim == 4) {
        *out = x;
        return ST_OK;
    }
    OgShape t = {4, {s.d[0], s.d[1], 1, s.d[2]}};
    return onnx_reshape(c, x, &t, out);
}

/* Zeros of shape s with dim ax set to p. */
static Status zeros(OnnxCtx *c, const OgShape *s, int ax, int64_t p, OgEdge *out)
{
    OgShape zs = *s;
    zs.d[ax] = p;
    int64_t cnt = og_shape_volume(&zs);
    if (cnt > OG_MAX_VOLUME)
        return onnx_fail(c, "onnx.shape.volume", "the padding is too large");
    int32_t *z = calloc((size_t)cnt, sizeof *z);
    if (!z)
        return onnx_oom(c);
    Status st = onnx_const_i32(c, "pad", &zs, z, out);
    free(z);
    return st;
}

/* Zero padding of a 4-D tensor: pb (top, left) before, pe (bottom, right) after. */
static Status pad_zeros(OnnxCtx *c, OgEdge x, const int64_t pb[2], const int64_t pe[2],
                        OgEdge *out)
{
    Status st = ST_OK;
    for (int ax = 2; ax < 4 && st == ST_OK; ax++) {
        int64_t b = pb[ax - 2], e = pe[ax - 2];
        if (!b && !e)
            continue;
        OgShape s = *og_edge_shape(c->g, x);
        OgEdge parts[3];
        uint32_t n = 0;
        if (b)
            st = zeros(c, &s, ax, b, &parts[n++]);
        parts[n++] = x;
        if (e && st == ST_OK)
            st = zeros(c, &s, ax, e, &parts[n++]);
        char ab[8];
        snprintf(ab, sizeof ab, "%d", ax);
        if (st == ST_OK)
            st = onnx_cvm(c, CVM_OP_concatenate, "pad", parts, n,
                          (const char *const[]){"axis", ab, NULL}, &x);
    }
    *out = x;
    return st;
}

/* Pads explicitly unless the padding is symmetric (then CVM's padding attribute does it). */
static Status prepare_pads(OnnxCtx *c, OgEdge *x, Win *w, char *padattr, size_t size)
{
    bool sym = w->pb[0] == w->pe[0] && w->pb[1] == w->pe[1];
    if (w->nd == 1) {    /* the height of 1 gets no padding */
        w->pb[1] = w->pb[0], w->pe[1] = w->pe[0];
        w->pb[0] = w->pe[0] = 0;
        w->k[1] = w->k[0], w->s[1] = w->s[0], w->dl[1] = w->dl[0];
        w->k[0] = w->s[0] = w->dl[0] = 1;
        sym = w->pb[1] == w->pe[1];
    }
    if (sym) {
        snprintf(padattr, size, "(%lld, %lld)", (long long)w->pb[0], (long long)w->pb[1]);
        return ST_OK;
    }
    snprintf(padattr, size, "(0, 0)");
    Status st = pad_zeros(c, *x, w->pb, w->pe, x);
    w->pb[0] = w->pb[1] = w->pe[0] = w->pe[1] = 0;
    return st;
}

/* Back to the ONNX rank (a 1-D window). */
static Status from4d(OnnxCtx *c, OgEdge y, uint32_t nd, OgEdge *out)
{
    if (nd == 2) {
        *out = y;
        return ST_OK;
    }
    const OgShape *s = og_edge_shape(c->g, y);
    OgShape t = {3, {s->d[0], s->d[1], s->d[3]}};
    return onnx_reshape(c, y, &t, out);
}

/* ---- products of operands wider than 8 bits ----
 * CVM conv2d and dense take data and weights of at most 8 bits. A wider operand is split
 * into 7-bit digits, v = sum_i 128^i v_i (v_i in [0, 127] except the top one, which keeps
 * the sign and has at most 8 bits), and the product is sum_{i,j} 128^(i+j) prod(x_i, W_j):
 * exact, since the products are linear in each operand and zero padding splits into zeros. */

#define DIGIT_MAX 5

typedef Status (*ProdFn)(OnnxCtx *c, const void *ctx, OgEdge x, OgEdge w, bool bias,
                         OgEdge *out);

/* x's digits (runtime), lowest first. */
static Status split_run(OnnxCtx *c, OgEdge x, OgEdge *dig, int *n)
{
    *n = 0;
    Status st = ST_OK;
    while (st == ST_OK && og_edge_prec(c->g, x) > 8) {
        if (*n == DIGIT_MAX - 1)
            return onnx_fail(c, "onnx.precision", "an operand of precision %d is too wide",
                             (int)og_edge_prec(c->g, x));
        OgEdge hi, m, d;
        st = onnx_floor_shift(c, x, 7, &hi);
        if (st == ST_OK)
            st = onnx_shl(c, hi, 7, &m);
        if (st == ST_OK)
            st = onnx_cvm(c, CVM_OP_broadcast_sub, "digit", (OgEdge[]){x, m}, 2, NULL, &d);
        if (st == ST_OK)   /* d is in [0, 127]: the clip only states its precision */
            st = onnx_cvm(c, CVM_OP_cvm_clip, "digit", &d, 1,
                          (const char *const[]){"precision", "8", NULL}, &dig[(*n)++]);
        x = hi;
    }
    if (st == ST_OK)
        dig[(*n)++] = x;
    return st;
}

/* W's digits (host values), lowest first: dig[i] malloc'd. */
static Status split_host(OnnxCtx *c, const int32_t *W, int64_t n, int32_t **dig, int *nd)
{
    int64_t *cur = malloc((size_t)(n ? n : 1) * sizeof *cur);
    if (!cur)
        return onnx_oom(c);
    for (int64_t i = 0; i < n; i++)
        cur[i] = W[i];
    *nd = 0;
    for (;;) {
        int64_t mx = 0;
        for (int64_t i = 0; i < n; i++)
            mx = cur[i] > mx ? cur[i] : -cur[i] > mx ? -cur[i] : mx;
        if (!(dig[*nd] = malloc((size_t)(n ? n : 1) * sizeof **dig))) {
            free(cur);
            return onnx_oom(c);
        }
        if (mx <= 127 || *nd == DIGIT_MAX - 1) {
            for (int64_t i = 0; i < n; i++)
                dig[*nd][i] = (int32_t)cur[i];
            (*nd)++;
            break;
        }
        for (int64_t i = 0; i < n; i++) {
            int64_t hi = cur[i] >= 0 ? cur[i] / 128 : -((-cur[i] + 127) / 128);
            dig[*nd][i] = (int32_t)(cur[i] - hi * 128);
            cur[i] = hi;
        }
        (*nd)++;
    }
    free(cur);
    return ST_OK;
}

/* sum_{i,j} 128^(i+j) fn(x_i, W_j), the bias with the lowest pair only. K is the number of
 * products summed into one result, bmax the largest bias magnitude. The sum of the digit
 * products is bounded by what one product of the whole operands is (|x| max(|W|) K + bmax),
 * a far tighter precision than the sum of the parts': a cvm_clip to it states it (it
 * changes no value). */
static Status wide_product(OnnxCtx *c, OgEdge x, const int32_t *W, const OgShape *ws,
                           int64_t K, int64_t bmax, ProdFn fn, const void *ctx, OgEdge *out)
{
    int64_t wmax = 0;
    for (int64_t i = 0; i < og_shape_volume(ws); i++)
        wmax = W[i] > wmax ? W[i] : -(int64_t)W[i] > wmax ? -(int64_t)W[i] : wmax;
    double bound = (double)og_prec_alpha(og_edge_prec(c->g, x)) * (double)wmax * (double)K +
                   (double)bmax;
    int32_t ptrue = 1;
    while (ptrue < 40 && (double)og_prec_alpha(ptrue < 33 ? ptrue : 32) < bound &&
           ptrue < 33)
        ptrue++;
    OgEdge xd[DIGIT_MAX];
    int32_t *wd[DIGIT_MAX] = {NULL};
    int nx = 0, nw = 0;
    Status st = split_run(c, x, xd, &nx);
    if (st == ST_OK)
        st = split_host(c, W, og_shape_volume(ws), wd, &nw);
    OgEdge acc = {-1, 0};
    for (int j = 0; st == ST_OK && j < nw; j++) {
        OgEdge we;
        st = onnx_const_i32(c, "weight", ws, wd[j], &we);
        for (int i = 0; st == ST_OK && i < nx; i++) {
            OgEdge y;
            if (7 * (i + j) > 30) {
                st = onnx_fail(c, "onnx.precision", "the operands are too wide for an exact "
                               "product");
                break;
            }
            st = fn(c, ctx, xd[i], we, i == 0 && j == 0, &y);
            if (st == ST_OK)
                st = onnx_shl(c, y, 7 * (i + j), &y);
            if (st == ST_OK && acc.node < 0)
                acc = y;
            else if (st == ST_OK)
                st = onnx_cvm(c, CVM_OP_broadcast_add, "sum", (OgEdge[]){acc, y}, 2, NULL,
                              &acc);
        }
    }
    for (int j = 0; j < DIGIT_MAX; j++)
        free(wd[j]);
    if (st == ST_OK && (nx > 1 || nw > 1) && ptrue <= 32 && ptrue < og_edge_prec(c->g, acc)) {
        char pb[16];
        snprintf(pb, sizeof pb, "%d", (int)ptrue);
        st = onnx_cvm(c, CVM_OP_cvm_clip, "bound", &acc, 1,
                      (const char *const[]){"precision", pb, NULL}, &acc);
    }
    *out = acc;
    return st;
}

typedef struct ConvCtx {
    const char *const *kv;      /* conv2d attributes, use_bias last pair left out */
    const int32_t *B;
    int64_t O;
} ConvCtx;

static Status conv_fn(OnnxCtx *c, const void *vctx, OgEdge x, OgEdge w, bool bias,
                      OgEdge *out)
{
    const ConvCtx *cc = vctx;
    OgEdge ins[3] = {x, w, {0, 0}};
    uint32_t nin = 2;
    if (bias && cc->B) {
        OgShape bs = {1, {cc->O}};
        Status st = onnx_const_i32(c, "bias", &bs, cc->B, &ins[2]);
        if (st != ST_OK)
            return st;
        nin = 3;
    }
    const char *kv[20];
    int n = 0;
    for (; cc->kv[n]; n++)
        kv[n] = cc->kv[n];
    kv[n++] = "use_bias";
    kv[n++] = nin == 3 ? "true" : "false";
    kv[n] = NULL;
    return onnx_cvm(c, CVM_OP_conv2d, "conv", ins, nin, kv, out);
}

/* conv(x, W) + B on integers: x runtime (ONNX rank 3 or 4), W (O, C/g, [kh,] kw) and B (O)
 * int32 host values. */
static Status conv_core(OnnxCtx *c, OgEdge x, const int32_t *W, const OgShape *ws,
                        const int32_t *B, int32_t type, OgEdge *out)
{
    static const char *const ok_attrs[] = {"auto_pad", "dilations", "group", "kernel_shape",
                                           "pads", "strides", NULL};
    Status st = onnx_attrs_known(c, ok_attrs);
    if (st != ST_OK)
        return st;
    OgShape xs = *og_edge_shape(c->g, x);
    int64_t group;
    if ((st = onnx_attr_int(c, "group", 1, 1, OG_MAX_DIM, &group)) != ST_OK)
        return st;
    if (ws->ndim != xs.ndim || xs.d[1] != ws->d[1] * group || ws->d[0] % group) {
        char sx[128], sw[128];
        return onnx_fail(c, "onnx.shape.conv", "the weights' shape %s does not fit the input "
                         "%s (group %lld)", og_shape_str(ws, sw, sizeof sw),
                         og_shape_str(&xs, sx, sizeof sx), (long long)group);
    }
    Win w;
    int64_t ks[2] = {ws->d[2], ws->ndim == 4 ? ws->d[3] : 0};
    if ((st = read_window(c, &xs, ks, &w, true)) != ST_OK)
        return st;
    for (uint32_t i = 0; i < w.nd; i++)
        if (w.k[i] != ws->d[2 + i])
            return onnx_fail(c, "onnx.attr", "kernel_shape disagrees with the weights");
    char pad[64];
    if ((st = as4d(c, x, &x)) != ST_OK || (st = prepare_pads(c, &x, &w, pad, sizeof pad)) !=
        ST_OK)
        return st;
    OgShape w4 = {4, {ws->d[0], ws->d[1], w.k[0], w.k[1]}};
    char ch[32], kk[64], ss[64], dd[64], gg[32];
    snprintf(ch, sizeof ch, "%lld", (long long)ws->d[0]);
    snprintf(kk, sizeof kk, "(%lld, %lld)", (long long)w.k[0], (long long)w.k[1]);
    snprintf(ss, sizeof ss, "(%lld, %lld)", (long long)w.s[0], (long long)w.s[1]);
    snprintf(dd, sizeof dd, "(%lld, %lld)", (long long)w.dl[0], (long long)w.dl[1]);
    snprintf(gg, sizeof gg, "%lld", (long long)group);
    const char *const kv[] = {"channels", ch, "kernel_size", kk, "strides", ss,
                              "padding", pad, "dilation", dd, "groups", gg, NULL};
    ConvCtx cc = {kv, B, ws->d[0]};
    OgEdge y;
    int64_t bmax = 0;
    for (int64_t i = 0; B && i < ws->d[0]; i++)
        bmax = B[i] > bmax ? B[i] : -(int64_t)B[i] > bmax ? -(int64_t)B[i] : bmax;
    st = wide_product(c, x, W, &w4, w4.d[1] * w4.d[2] * w4.d[3], bmax, conv_fn, &cc, &y);
    (void)type;
    if (st == ST_OK)
        st = from4d(c, y, w.nd, out);
    return st;
}

/* Host int32 values of a constant (floats must be integers [onnx.float.weights]). */
static Status host_ints(OnnxCtx *c, OnnxVal *v, int32_t **out)
{
    *out = malloc((size_t)(v->c.count ? v->c.count : 1) * sizeof **out);
    if (!*out)
        return onnx_oom(c);
    for (int64_t i = 0; i < v->c.count; i++) {
        double x = v->c.f ? (double)v->c.f[i] : (double)v->c.i[i];
        /* range first: converting a double outside int64 (or NaN) is undefined */
        if (!(x >= -(double)INT32_MAX && x <= (double)INT32_MAX) || x != (double)(int64_t)x) {
            free(*out);
            *out = NULL;
            if (v->c.f)
                return onnx_fail(c, "onnx.float.weights", "'%s' holds %.9g (element %lld), not "
                                 "an integer: a float model compiles only when its weights "
                                 "hold integers; quantize the model first", v->name, x,
                                 (long long)i);
            return onnx_fail(c, "onnx.value.range", "'%s' holds a value outside int32",
                             v->name);
        }
        (*out)[i] = (int32_t)x;
    }
    return ST_OK;
}

/* Exported for onnx_map_quant.c: conv of (x - x_zp) with (W - w_zp) + B. */
Status onnx_conv_integer(OnnxCtx *c, uint32_t kx, uint32_t kxzp, uint32_t kw, uint32_t kwzp,
                         int32_t kb, OgEdge *out);
Status onnx_matmul_integer(OnnxCtx *c, uint32_t ka, uint32_t kazp, uint32_t kb, uint32_t kbzp,
                           OgEdge *out);

Status onnx_conv_integer(OnnxCtx *c, uint32_t kx, uint32_t kxzp, uint32_t kw, uint32_t kwzp,
                         int32_t kb, OgEdge *out)
{
    Status st;
    OnnxVal *x = onnx_need(c, kx, &st);
    if (!x)
        return st;
    OnnxVal *w = onnx_need(c, kw, &st);
    if (!w)
        return st;
    if (x->kind == OV_CONST)
        return onnx_fail(c, "onnx.const", "the input is a constant: not supported");
    if (w->kind != OV_CONST)
        return onnx_fail(c, "onnx.param", "the weights must be a constant");
    OgShape ws = onnx_shape(w);
    if (ws.ndim != 3 && ws.ndim != 4)
        return onnx_fail(c, "onnx.shape.rank", "the weights have %u dims", ws.ndim);
    int64_t O = ws.d[0], per = w->c.count / O;
    int32_t *W = NULL, *B = NULL, *wzp = malloc((size_t)O * sizeof *wzp), xzp;
    if (!wzp)
        return onnx_oom(c);
    st = onnx_nn_zero_points(c, kxzp, 0, &xzp, x->type);
    if (st == ST_OK)
        st = onnx_nn_zero_points(c, kwzp, O, wzp, w->type);
    if (st == ST_OK)
        st = host_ints(c, w, &W);
    for (int64_t i = 0; st == ST_OK && i < w->c.count; i++)
        W[i] -= wzp[i / per];
    if (st == ST_OK && kb >= 0) {
        OnnxVal *b = onnx_in(c, (uint32_t)kb, &st);
        if (st == ST_OK && b) {
            if (b->kind != OV_CONST || b->c.count != O)
                st = onnx_fail(c, "onnx.param", "the bias must be a constant of %lld values",
                               (long long)O);
            else
                st = host_ints(c, b, &B);
        }
    }
    OgEdge ex;
    if (st == ST_OK)
        st = onnx_edge(c, x, &ex);
    if (st == ST_OK)
        st = onnx_add_scalar(c, ex, -(int64_t)xzp, &ex);
    if (st == ST_OK)
        st = conv_core(c, ex, W, &ws, B, x->type, out);
    free(W);
    free(B);
    free(wzp);
    return st;
}

Status onnx_map_conv(OnnxCtx *c)
{
    Status st;
    OnnxVal *x = onnx_need(c, 0, &st);
    if (!x)
        return st;
    if (x->type != ONNX_T_FLOAT)
        return onnx_fail(c, "onnx.type", "Conv takes float, not %s", fe_onnx_type_name(x->type));
    OgEdge y;
    if ((st = onnx_conv_integer(c, 0, ONNX_NO_ZP, 1, ONNX_NO_ZP, 2, &y)) != ST_OK)
        return st;
    return onnx_out_run(c, 0, y, ONNX_T_FLOAT);
}

Status onnx_map_conv_integer(OnnxCtx *c)
{
    OgEdge y;
    Status st = onnx_conv_integer(c, 0, 2, 1, 3, -1, &y);
    if (st != ST_OK)
        return st;
    return onnx_out_run(c, 0, y, ONNX_T_INT32);
}

/* a (..., K) runtime times B (K, N) host values (+ bias[N]): CVM dense over (rows, K). */
typedef struct DenseCtx {
    const int32_t *bias;
    int64_t N;
} DenseCtx;

static Status dense_fn(OnnxCtx *c, const void *vctx, OgEdge x, OgEdge w, bool bias,
                       OgEdge *out)
{
    const DenseCtx *dc = vctx;
    OgEdge ins[3] = {x, w, {0, 0}};
    bool ub = bias && dc->bias;
    if (ub) {
        OgShape bs = {1, {dc->N}};
        Status st = onnx_const_i32(c, "bias", &bs, dc->bias, &ins[2]);
        if (st != ST_OK)
            return st;
    }
    char un[32];
    snprintf(un, sizeof un, "%lld", (long long)dc->N);
    return onnx_cvm(c, CVM_OP_dense, "dense", ins, ub ? 3 : 2,
                    (const char *const[]){"units", un, "use_bias", ub ? "true" : "false",
                                          NULL}, out);
}

static Status dense(OnnxCtx *c, OgEdge a, const int32_t *B, int64_t K, int64_t N,
                    const int32_t *bias, OgEdge *out)
{
    OgShape as = *og_edge_shape(c->g, a);
    if (as.d[as.ndim - 1] != K) {
        OgShape bs = {2, {K, N}};
        return onnx_fail_shapes(c, "onnx.shape.matmul", "the inner dims differ", &as, &bs);
    }
    int64_t rows = og_shape_volume(&as) / K;
    OgShape a2 = {2, {rows, K}}, ws = {2, {N, K}};
    int32_t *Wt = malloc((size_t)(N * K) * sizeof *Wt);
    if (!Wt)
        return onnx_oom(c);
    for (int64_t k = 0; k < K; k++)
        for (int64_t n = 0; n < N; n++)
            Wt[n * K + k] = B[k * N + n];
    OgEdge y;
    DenseCtx dc = {bias, N};
    int64_t bmax = 0;
    for (int64_t i = 0; bias && i < N; i++)
        bmax = bias[i] > bmax ? bias[i] : -(int64_t)bias[i] > bmax ? -(int64_t)bias[i] : bmax;
    Status st = onnx_reshape(c, a, &a2, &a);
    if (st == ST_OK)
        st = wide_product(c, a, Wt, &ws, K, bmax, dense_fn, &dc, &y);
    free(Wt);
    if (st != ST_OK)
        return st;
    OgShape os = as;
    os.d[os.ndim - 1] = N;
    return onnx_reshape(c, y, &os, out);
}

Status onnx_matmul_integer(OnnxCtx *c, uint32_t ka, uint32_t kazp, uint32_t kb, uint32_t kbzp,
                           OgEdge *out)
{
    Status st;
    OnnxVal *a = onnx_need(c, ka, &st);
    if (!a)
        return st;
    OnnxVal *b = onnx_need(c, kb, &st);
    if (!b)
        return st;
    if (b->kind != OV_CONST)   /* a computed B: onnx_map_matmul_dyn.c */
        return onnx_matmul_dyn(c, ka, kazp, kb, kbzp, out);
    if (a->kind == OV_CONST)
        return onnx_fail(c, "onnx.const", "the first input is a constant: not supported");
    OgShape bs = onnx_shape(b), as = onnx_shape(a);
    /* a batched B (..., K, N): A must have the same batch dims; one product per batch */
    int64_t nbatch = 1;
    bool batched = bs.ndim > 2;
    if (batched) {
        bool same = as.ndim == bs.ndim;
        for (uint32_t k = 0; same && k + 2 < bs.ndim; k++) {
            same = as.d[k] == bs.d[k];
            nbatch *= bs.d[k];
        }
        if (!same)   /* broadcast batch dims: the elementwise scheme */
            return onnx_matmul_dyn(c, ka, kazp, kb, kbzp, out);
    }
    if (bs.ndim < 1)
        return onnx_fail(c, "onnx.shape.matmul", "the second input is a scalar");
    int64_t K = bs.ndim >= 2 ? bs.d[bs.ndim - 2] : bs.d[0];
    int64_t N = bs.ndim >= 2 ? bs.d[bs.ndim - 1] : 1;
    int32_t *B = NULL, azp, *bzp = malloc((size_t)N * sizeof *bzp);
    if (!bzp)
        return onnx_oom(c);
    st = onnx_nn_zero_points(c, kazp, 0, &azp, a->type);
    if (st == ST_OK)
        st = onnx_nn_zero_points(c, kbzp, N, bzp, b->type);
    if (st == ST_OK)
        st = host_ints(c, b, &B);
    for (int64_t i = 0; st == ST_OK && i < nbatch * K * N; i++)
        B[i] -= bzp[i % N];
    OgEdge ea, y;
    if (st == ST_OK)
        st = onnx_edge(c, a, &ea);
    if (st == ST_OK)
        st = onnx_add_scalar(c, ea, -(int64_t)azp, &ea);
    if (st == ST_OK && as.ndim == 1) {
        OgShape t = {2, {1, as.d[0]}};
        st = onnx_reshape(c, ea, &t, &ea);
    }
    if (st == ST_OK && !batched)
        st = dense(c, ea, B, K, N, NULL, &y);
    if (st == ST_OK && batched) {
        int64_t M = as.d[as.ndim - 2];
        OgEdge *parts = malloc((size_t)nbatch * sizeof *parts);
        if (!parts)
            st = onnx_oom(c);
        for (int64_t bi = 0; st == ST_OK && bi < nbatch; bi++) {
            OgShape sl = {3, {1, M, K}};
            OgEdge ab;
            st = onnx_take_slab(c, ea, &sl, bi, &ab);
            if (st == ST_OK)
                st = dense(c, ab, B + bi * K * N, K, N, NULL, &parts[bi]);
        }
        if (st == ST_OK && nbatch > 1)
            st = onnx_cvm(c, CVM_OP_concatenate, "batch", parts, (uint32_t)nbatch,
                          (const char *const[]){"axis", "0", NULL}, &y);
        else if (st == ST_OK)
            y = parts[0];
        OgShape os = as;
        os.d[os.ndim - 1] = N;
        if (st == ST_OK)
            st = onnx_reshape(c, y, &os, &y);
        free(parts);
    }
    free(B);
    free(bzp);
    if (st != ST_OK)
        return st;
    /* ONNX drops the 1 of a 1-D operand */
    OgShape os = *og_edge_shape(c->g, y);
    if (as.ndim == 1 || bs.ndim == 1) {
        OgShape t = {0, {0}};
        for (uint32_t k = 0; k + 1 < os.ndim; k++)
            if (!(as.ndim == 1 && k == os.ndim - 2))
                t.d[t.ndim++] = os.d[k];
        if (bs.ndim == 2)
            t.d[t.ndim++] = N;
        if (t.ndim == 0)
            t.d[t.ndim++] = 1;
        return onnx_reshape(c, y, &t, out);
    }
    *out = y;
    return ST_OK;
}

Status onnx_map_matmul(OnnxCtx *c)
{
    static const char *const ok[] = {NULL};
    Status st = onnx_attrs_known(c, ok);
    OnnxVal *a = st == ST_OK ? onnx_need(c, 0, &st) : NULL;
    if (!a)
        return st;
    OgEdge y;
    if ((st = onnx_matmul_integer(c, 0, ONNX_NO_ZP, 1, ONNX_NO_ZP, &y)) != ST_OK)
        return st;
    return onnx_out_run(c, 0, y, onnx_val(c, c->node->input[0])->type);
}

Status onnx_map_matmul_integer(OnnxCtx *c)
{
    static const char *const ok[] = {NULL};
    Status st = onnx_attrs_known(c, ok);
    OgEdge y;
    if (st == ST_OK)
        st = onnx_matmul_integer(c, 0, 2, 1, 3, &y);
    if (st != ST_OK)
        return st;
    return onnx_out_run(c, 0, y, ONNX_T_INT32);
}

Status onnx_map_gemm(OnnxCtx *c)
{
    static const char *const ok[] = {"alpha", "beta", "transA", "transB", NULL};
    float alpha, beta;
    int64_t ta, tb;
    Status st = onnx_attrs_known(c, ok);
    if (st == ST_OK)
        st = onnx_attr_float(c, "alpha", 1.0f, &alpha);
    if (st == ST_OK)
        st = onnx_attr_float(c, "beta", 1.0f, &beta);
    if (st == ST_OK)
        st = onnx_attr_int(c, "transA", 0, 0, 1, &ta);
    if (st == ST_OK)
        st = onnx_attr_int(c, "transB", 0, 0, 1, &tb);
    OnnxVal *a = st == ST_OK ? onnx_need(c, 0, &st) : NULL;
    if (!a)
        return st;
    OnnxVal *b = onnx_need(c, 1, &st);
    if (!b)
        return st;
    int32_t type = a->type;
    OgShape as = onnx_shape(a), bs = onnx_shape(b);
    if (as.ndim != 2 || bs.ndim != 2 || a->kind == OV_CONST)
        return onnx_fail(c, "onnx.shape.matmul", "Gemm takes a computed 2-D A and a constant "
                         "2-D B");
    int64_t M = ta ? as.d[1] : as.d[0], K = ta ? as.d[0] : as.d[1];
    int64_t K2 = tb ? bs.d[1] : bs.d[0], N = tb ? bs.d[0] : bs.d[1];
    if (K != K2)
        return onnx_fail_shapes(c, "onnx.shape.matmul", "the inner dims differ (transA, "
                                "transB applied)", &as, &bs);
    if (alpha != (float)(int32_t)alpha || beta != (float)(int32_t)beta)
        return onnx_fail(c, "onnx.float.weights", "alpha %g and beta %g must be integers: "
                         "quantize the model first", (double)alpha, (double)beta);
    int32_t *B = NULL, *Bn = NULL, *C = NULL, *bias = NULL;
    if ((st = host_ints(c, b, &B)) != ST_OK)
        return st;
    Bn = malloc((size_t)(K * N) * sizeof *Bn);
    if (!Bn) {
        free(B);
        return onnx_oom(c);
    }
    for (int64_t k = 0; k < K; k++)
        for (int64_t n = 0; n < N; n++) {
            int64_t v = (int64_t)(tb ? B[n * K + k] : B[k * N + n]) * (int64_t)alpha;
            if (v < -(int64_t)INT32_MAX || v > INT32_MAX)
                st = onnx_fail(c, "onnx.value.range", "alpha * B leaves int32");
            Bn[k * N + n] = (int32_t)v;
        }
    free(B);
    OnnxVal *cv = st == ST_OK ? onnx_in(c, 2, &st) : NULL;
    OgShape cs = {0, {0}};
    bool matrix_c = false;
    if (st == ST_OK && cv && beta != 0.0f) {
        cs = onnx_shape(cv);
        OgShape ms = {2, {M, N}}, bc;
        if (cv->kind != OV_CONST)
            st = onnx_fail(c, "onnx.param", "C must be a constant");
        else if (!onnx_bcast_shape(&cs, &ms, &bc) || !og_shape_eq(&bc, &ms))
            st = onnx_fail_shapes(c, "onnx.shape.broadcast", "C does not broadcast to (M, N)",
                                  &cs, &ms);
        else if ((st = host_ints(c, cv, &C)) == ST_OK) {
            for (int64_t i = 0; i < cv->c.count; i++) {
                int64_t v = (int64_t)C[i] * (int64_t)beta;
                if (v < -(int64_t)INT32_MAX || v > INT32_MAX)
                    st = onnx_fail(c, "onnx.value.range", "beta * C leaves int32");
                C[i] = (int32_t)v;
            }
            /* a row vector (or scalar) is the dense bias; anything else is added after */
            matrix_c = og_shape_volume(&cs) != 1 && !(cs.d[cs.ndim - 1] == N &&
                                                      og_shape_volume(&cs) == N);
            if (!matrix_c && (bias = malloc((size_t)N * sizeof *bias)))
                for (int64_t n = 0; n < N; n++)
                    bias[n] = C[og_shape_volume(&cs) == 1 ? 0 : n];
            else if (!matrix_c)
                st = onnx_oom(c);
        }
    }
    OgEdge ea, y;
    if (st == ST_OK)
        st = onnx_edge(c, a, &ea);
    if (st == ST_OK && ta)
        st = onnx_map_reserve(c, M * K);
    if (st == ST_OK && ta) {
        int32_t *idx = malloc((size_t)(M * K) * sizeof *idx);
        OgShape t = {2, {M, K}};
        if (!idx)
            st = onnx_oom(c);
        for (int64_t i = 0; st == ST_OK && i < M; i++)
            for (int64_t k = 0; k < K; k++)
                idx[i * K + k] = (int32_t)(k * M + i);
        if (st == ST_OK)
            st = onnx_gather_flat(c, ea, &t, idx, &ea);
        free(idx);
    }
    if (st == ST_OK)
        st = dense(c, ea, Bn, K, N, bias, &y);
    if (st == ST_OK && matrix_c) {
        OgEdge ec;
        st = onnx_const_i32(c, "C", &cs, C, &ec);
        if (st == ST_OK)
            st = onnx_cvm(c, CVM_OP_broadcast_add, "addc", (OgEdge[]){y, ec}, 2, NULL, &y);
    }
    free(Bn);
    free(C);
    free(bias);
    if (st != ST_OK)
        return st;
    return onnx_out_run(c, 0, y, type);
}

Status onnx_map_maxpool(OnnxCtx *c)
{
    static const char *const ok[] = {"auto_pad", "ceil_mode", "dilations", "kernel_shape",
                                     "pads", "storage_order", "strides", NULL};
    Status st = onnx_attrs_known(c, ok);
    int64_t so;
    if (st == ST_OK)
        st = onnx_attr_int(c, "storage_order", 0, 0, 1, &so);
    OnnxVal *x = st == ST_OK ? onnx_need(c, 0, &st) : NULL;
    if (!x)
        return st;
    if (c->node->n_output > 1 && c->node->output[1] && c->node->output[1][0])
        return onnx_fail(c, "onnx.node.outputs", "the Indices output is not supported");
    if (x->type != ONNX_T_FLOAT && !onnx_type_prec(x->type))
        return onnx_fail(c, "onnx.type", "type %s is not supported", fe_onnx_type_name(x->type));
    OgShape xs = onnx_shape(x);
    Win w;
    if ((st = read_window(c, &xs, NULL, &w, true)) != ST_OK)
        return st;
    OgEdge e;
    if ((st = onnx_edge(c, x, &e)) != ST_OK || (st = as4d(c, e, &e)) != ST_OK)
        return st;
    bool dilated = w.dl[0] != 1 || (w.nd == 2 && w.dl[1] != 1);
    bool padded = w.pb[0] || w.pb[1] || w.pe[0] || w.pe[1] || w.ceil_mode;
    if (dilated && w.ceil_mode)
        return onnx_fail(c, "onnx.attr", "dilations with ceil_mode are not supported");
    int64_t lo, hi, shift = 0;
    onnx_type_range(x->type, &lo, &hi);
    if (padded && !(x->type != ONNX_T_FLOAT && lo >= 0)) {
        shift = og_prec_alpha(og_edge_prec(c->g, e));
        if ((st = onnx_add_scalar(c, e, shift, &e)) != ST_OK)
            return st;
    }
    char pad[64], ps[64], ss[64];
    if ((st = prepare_pads(c, &e, &w, pad, sizeof pad)) != ST_OK)
        return st;
    if (dilated) {
        /* the max over the window's k*k dilated positions, each a strided slice (an element
         * map) of the explicitly padded input */
        if (w.pb[0] || w.pb[1] || w.pe[0] || w.pe[1])
            st = pad_zeros(c, e, w.pb, w.pe, &e);
        const OgShape *ps4 = og_edge_shape(c->g, e);
        int64_t N = ps4->d[0], C = ps4->d[1], H = ps4->d[2], W = ps4->d[3];
        int64_t OH = (H - ((w.k[0] - 1) * w.dl[0] + 1)) / w.s[0] + 1;
        int64_t OW = (W - ((w.k[1] - 1) * w.dl[1] + 1)) / w.s[1] + 1;
        if (st == ST_OK && (OH < 1 || OW < 1))
            st = onnx_fail(c, "onnx.shape.pool", "the dilated window exceeds the input");
        OgShape os = {4, {N, C, OH > 0 ? OH : 1, OW > 0 ? OW : 1}};
        int64_t n = og_shape_volume(&os);
        int32_t *idx = st == ST_OK ? malloc((size_t)n * sizeof *idx) : NULL;
        if (st == ST_OK && !idx)
            st = onnx_oom(c);
        OgEdge y = {-1, 0};
        for (int64_t ky = 0; st == ST_OK && ky < w.k[0]; ky++)
            for (int64_t kx = 0; st == ST_OK && kx < w.k[1]; kx++) {
                if ((st = onnx_map_reserve(c, n)) != ST_OK)
                    break;
                int64_t i = 0;
                for (int64_t nc = 0; nc < N * C; nc++)
                    for (int64_t oy = 0; oy < OH; oy++)
                        for (int64_t ox = 0; ox < OW; ox++)
                            idx[i++] = (int32_t)((nc * H + oy * w.s[0] + ky * w.dl[0]) * W +
                                                 ox * w.s[1] + kx * w.dl[1]);
                OgEdge t;
                st = onnx_gather_flat(c, e, &os, idx, &t);
                if (st == ST_OK && y.node < 0)
                    y = t;
                else if (st == ST_OK)
                    st = onnx_cvm(c, CVM_OP_broadcast_max, "pool", (OgEdge[]){y, t}, 2, NULL,
                                  &y);
            }
        free(idx);
        if (st == ST_OK && shift)
            st = onnx_add_scalar(c, y, -shift, &y);
        if (st == ST_OK)
            st = from4d(c, y, w.nd, &y);
        if (st != ST_OK)
            return st;
        return onnx_out_run(c, 0, y, x->type);
    }
    snprintf(ps, sizeof ps, "(%lld, %lld)", (long long)w.k[0], (long long)w.k[1]);
    snprintf(ss, sizeof ss, "(%lld, %lld)", (long long)w.s[0], (long long)w.s[1]);
    OgEdge y;
    st = onnx_cvm(c, CVM_OP_max_pool2d, "pool", &e, 1,
                  (const char *const[]){"pool_size", ps, "strides", ss, "padding", pad,
                                        "ceil_mode", w.ceil_mode ? "true" : "false", NULL}, &y);
    if (st == ST_OK && shift)
        st = onnx_add_scalar(c, y, -shift, &y);
    if (st == ST_OK)
        st = from4d(c, y, w.nd, &y);
    if (st != ST_OK)
        return st;
    return onnx_out_run(c, 0, y, x->type);
}

/* ---- shared with onnx_map_pool.c and onnx_map_matmul_dyn.c (onnx_nn.h) ---- */

Status onnx_nn_read_window(OnnxCtx *c, const OgShape *xs, OnnxWin *w)
{
    return read_window(c, xs, NULL, w, false);
}

Status onnx_nn_as4d(OnnxCtx *c, OgEdge x, OgEdge *out)
{
    return as4d(c, x, out);
}

Status onnx_nn_from4d(OnnxCtx *c, OgEdge y, uint32_t nd, OgEdge *out)
{
    return from4d(c, y, nd, out);
}

Status onnx_nn_pad_zeros(OnnxCtx *c, OgEdge x, const int64_t pb[2], const int64_t pe[2],
                         OgEdge *out)
{
    return pad_zeros(c, x, pb, pe, out);
}
