/* onnx_map_matmul_dyn.c: MatMul, MatMulInteger and QLinearMatMul whose second input B is
 * computed at run time (or whose batch dims broadcast), by elementwise products.
 *
 * CVM dense and conv2d need constant weights (the lowering's [lower.param]), so a product of
 * two computed matrices is built from operators that take two computed operands:
 *
 *     A [..., M, K] -> reshape [..., M, K, 1]
 *     B [..., K, N] -> reshape [..., 1, K, N]
 *     P = broadcast_mul(A, B)      [..., M, K, N]   (numpy broadcasting, batch dims too)
 *     Y = sum(P, axis = K)         [..., M, N]
 *
 * Exact: every product and the sum are integers that CVM's precision rules keep within int32
 * (P(A) + P(B), then + bits(K)). The reshapes are free (no block); the lowering makes one
 * CVVH (the products, its operands broadcast by the edges that feed its storage) and one
 * CAVG (the sum over K). Zero points are subtracted first (A's a scalar, B's one per column
 * of N), as MatMulInteger defines. When CVM's rules would exceed 32 bits although the true
 * bound K |A| |B| fits, the operands or the products are clipped to their tight precision
 * (a cvm_clip that changes no value); a true bound beyond int32 is refused [onnx.precision].
 * ONNX's 1-D operands are (1, K) / (K, 1), the added dim dropped from the result.
 */
#include "frontend/onnx/onnx_nn.h"

#include <stdlib.h>

static int32_t prec_of(int64_t m)
{
    uint64_t u = m < 0 ? (uint64_t)0 - (uint64_t)m : (uint64_t)m;
    int32_t b = 0;
    while (u) {
        b++;
        u >>= 1;
    }
    return b + 1;
}

static int32_t bits(int64_t k)
{
    return prec_of(k) - 1;
}

/* The largest |v - zp| over v's possible values (its precision, its type's range) and the
 * zero points zp[0..nzp). */
static int64_t operand_bound(OnnxCtx *c, const OnnxVal *v, OgEdge e, const int32_t *zp,
                             int64_t nzp)
{
    int64_t a = og_prec_alpha(og_edge_prec(c->g, e)), lo = -a, hi = a, m = 0;
    if (!onnx_type_is_float(v->type)) {
        int64_t tlo, thi;
        onnx_type_range(v->type, &tlo, &thi);
        lo = tlo > lo ? tlo : lo;
        hi = thi < hi ? thi : hi;
    }
    for (int64_t i = 0; i < nzp; i++) {
        int64_t x = lo - zp[i], y = hi - zp[i];
        x = x < 0 ? -x : x;
        y = y < 0 ? -y : y;
        m = x > m ? x : m;
        m = y > m ? y : m;
    }
    return m;
}

/* cvm_clip(e) to the precision of bound m when that is tighter (no value changes). */
static Status tighten(OnnxCtx *c, OgEdge e, int64_t m, OgEdge *out)
{
    int32_t p = prec_of(m);
    p = p < 2 ? 2 : p;
    if (p >= og_edge_prec(c->g, e)) {
        *out = e;
        return ST_OK;
    }
    char pb[16];
    snprintf(pb, sizeof pb, "%d", (int)p);
    return onnx_cvm(c, CVM_OP_cvm_clip, "bound", &e, 1,
                    (const char *const[]){"precision", pb, NULL}, out);
}

/* e minus the zero points zp[0..n) (one, or one per entry of the last dim). */
static Status minus_zp(OnnxCtx *c, OgEdge e, const int32_t *zp, int64_t n, OgEdge *out)
{
    bool same = true;
    for (int64_t i = 1; i < n; i++)
        same = same && zp[i] == zp[0];
    if (same)
        return onnx_add_scalar(c, e, -(int64_t)zp[0], out);
    int32_t *neg = malloc((size_t)n * sizeof *neg);
    if (!neg)
        return onnx_oom(c);
    for (int64_t i = 0; i < n; i++)
        neg[i] = -zp[i];
    OgShape s = {1, {n}};
    OgEdge k;
    Status st = onnx_const_i32(c, "zp", &s, neg, &k);
    free(neg);
    if (st == ST_OK)
        st = onnx_cvm(c, CVM_OP_broadcast_add, "zp", (OgEdge[]){e, k}, 2, NULL, out);
    return st;
}

Status onnx_matmul_dyn(OnnxCtx *c, uint32_t ka, uint32_t kazp, uint32_t kb, uint32_t kbzp,
                       OgEdge *out)
{
    Status st;
    OnnxVal *a = onnx_need(c, ka, &st);
    if (!a)
        return st;
    OnnxVal *b = onnx_need(c, kb, &st);
    if (!b)
        return st;
    if (a->kind == OV_CONST && b->kind == OV_CONST)
        return onnx_fail(c, "onnx.const", "both inputs are constants: not supported");
    OgShape as = onnx_shape(a), bs = onnx_shape(b);
    if (as.ndim < 1 || bs.ndim < 1)
        return onnx_fail(c, "onnx.shape.matmul", "an input is a scalar");
    OgShape a2 = as, b2 = bs;
    if (as.ndim == 1)
        a2 = (OgShape){2, {1, as.d[0]}};
    if (bs.ndim == 1)
        b2 = (OgShape){2, {bs.d[0], 1}};
    int64_t M = a2.d[a2.ndim - 2], K = a2.d[a2.ndim - 1];
    int64_t K2 = b2.d[b2.ndim - 2], N = b2.d[b2.ndim - 1];
    if (K != K2)
        return onnx_fail_shapes(c, "onnx.shape.matmul", "the inner dims differ", &as, &bs);
    OgShape ba = {a2.ndim - 2, {0}}, bb = {b2.ndim - 2, {0}}, batch;
    for (uint32_t i = 0; i + 2 < a2.ndim; i++)
        ba.d[i] = a2.d[i];
    for (uint32_t i = 0; i + 2 < b2.ndim; i++)
        bb.d[i] = b2.d[i];
    if (!onnx_bcast_shape(&ba, &bb, &batch))
        return onnx_fail_shapes(c, "onnx.shape.broadcast", "the batch dims of the inputs do "
                                "not broadcast", &as, &bs);
    if (batch.ndim + 3 > OG_MAX_DIMS)
        return onnx_fail(c, "onnx.shape.rank", "%u batch dims: the products [..., M, K, N] "
                         "have at most %d dims", batch.ndim, OG_MAX_DIMS);
    OgShape ps = batch;
    ps.ndim = batch.ndim + 3;
    ps.d[batch.ndim] = M;
    ps.d[batch.ndim + 1] = K;
    ps.d[batch.ndim + 2] = N;
    if ((st = onnx_check_shape(c, &ps)) != ST_OK)
        return st;
    int32_t azp, *bzp = malloc((size_t)N * sizeof *bzp);
    if (!bzp)
        return onnx_oom(c);
    OgEdge ea, eb, p, y;
    st = onnx_nn_zero_points(c, kazp, 0, &azp, a->type);
    if (st == ST_OK)
        st = onnx_nn_zero_points(c, kbzp, N, bzp, b->type);
    if (st == ST_OK)
        st = onnx_edge(c, a, &ea);
    if (st == ST_OK)
        st = onnx_edge(c, b, &eb);
    int64_t ma = 0, mb = 0;
    if (st == ST_OK) {
        ma = operand_bound(c, a, ea, &azp, 1);
        mb = operand_bound(c, b, eb, bzp, N);
        if (ma && mb && (ma > INT32_MAX / mb || K > INT32_MAX / (ma * mb)))
            st = onnx_fail(c, "onnx.precision", "|A| <= %lld and |B| <= %lld over K = %lld: "
                           "the sum of products may leave int32", (long long)ma,
                           (long long)mb, (long long)K);
    }
    if (st == ST_OK)
        st = onnx_add_scalar(c, ea, -(int64_t)azp, &ea);
    if (st == ST_OK)
        st = minus_zp(c, eb, bzp, N, &eb);
    free(bzp);
    if (st == ST_OK && og_edge_prec(c->g, ea) + og_edge_prec(c->g, eb) > 32) {
        st = tighten(c, ea, ma, &ea);
        if (st == ST_OK)
            st = tighten(c, eb, mb, &eb);
        if (st == ST_OK && og_edge_prec(c->g, ea) + og_edge_prec(c->g, eb) > 32)
            st = onnx_fail(c, "onnx.precision", "operands of %d and %d bits: their products "
                           "leave 32 bits", (int)og_edge_prec(c->g, ea),
                           (int)og_edge_prec(c->g, eb));
    }
    /* A [..., M, K, 1] and B [..., 1, K, N] */
    OgShape ra = a2, rb = b2;
    ra.ndim++;
    ra.d[ra.ndim - 1] = 1;
    rb.ndim++;
    rb.d[rb.ndim - 3] = 1;
    rb.d[rb.ndim - 2] = K;
    rb.d[rb.ndim - 1] = N;
    if (st == ST_OK)
        st = onnx_reshape(c, ea, &ra, &ea);
    if (st == ST_OK)
        st = onnx_reshape(c, eb, &rb, &eb);
    if (st == ST_OK)
        st = onnx_cvm(c, CVM_OP_broadcast_mul, "mul", (OgEdge[]){ea, eb}, 2, NULL, &p);
    if (st == ST_OK && og_edge_prec(c->g, p) + bits(K) > 32) {
        st = tighten(c, p, ma * mb, &p);
        if (st == ST_OK && og_edge_prec(c->g, p) + bits(K) > 32)
            st = onnx_fail(c, "onnx.precision", "products of %d bits summed over K = %lld "
                           "leave 32 bits", (int)og_edge_prec(c->g, p), (long long)K);
    }
    char ax[16];
    snprintf(ax, sizeof ax, "(%u,)", ps.ndim - 2);
    if (st == ST_OK)
        st = onnx_cvm(c, CVM_OP_sum, "sum", &p, 1,
                      (const char *const[]){"axis", ax, "keepdims", "false", NULL}, &y);
    if (st != ST_OK)
        return st;
    /* ONNX drops the dim a 1-D operand gained */
    if (as.ndim == 1 || bs.ndim == 1) {
        OgShape t = batch;
        if (as.ndim != 1)
            t.d[t.ndim++] = M;
        if (bs.ndim != 1)
            t.d[t.ndim++] = N;
        if (t.ndim == 0)
            t.d[t.ndim++] = 1;
        return onnx_reshape(c, y, &t, out);
    }
    *out = y;
    return ST_OK;
}
