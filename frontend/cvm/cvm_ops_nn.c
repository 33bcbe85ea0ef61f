/* cvm_ops_nn.c: conv2d, dense, relu, max_pool2d and upsampling (the CVM design text, "NN
 * Operators", the CVM formalization for what the design text leaves out).
 *
 * conv2d follows the CVM design text's group-wise formula (groups any divisor of C with OC a
 * multiple of groups); the CVM formalization only allows groups in {1, C}: where they disagree we
 * follow the design text. Precision rules are cvm-runtime's: conv2d and dense need inputs of at
 * most 8 bits and give P0 + P1 + bits(reduction size), then max(that, P_bias) + 1 with a bias.
 */
#include "frontend/cvm/cvm_ops.h"

#include "frontend/cvm/cvm_gemm.h"

#include <string.h>

#define ATTR_HI (CVM_MAX_ATTR - 1) /* the CVM formalization: [min_attr, max_attr) */

/* ---- conv2d ---- */

static const CvmAttrSpec conv2d_attrs[] = {
    {"channels", CA_INT, NULL, 1, CVM_I32_HI, 0, 0, NULL},
    {"kernel_size", CA_INTS, NULL, 1, OG_MAX_DIM, 2, 2, NULL},
    {"strides", CA_INTS, "(1, 1)", 1, ATTR_HI, 2, 2, NULL},
    {"padding", CA_INTS, "(0, 0)", 0, ATTR_HI, 2, 2, NULL},
    {"dilation", CA_INTS, "(1, 1)", 1, ATTR_HI, 2, 2, NULL},
    {"groups", CA_INT, "1", 1, CVM_I32_HI, 0, 0, NULL},
    {"layout", CA_STR, "NCHW", 0, 0, 0, 0, "NCHW"},
    {"kernel_layout", CA_STR, "OIHW", 0, 0, 0, 0, "OIHW"},
    {"out_layout", CA_STR, "__undef__", 0, 0, 0, 0, "__undef__|NCHW"},
    {"out_dtype", CA_STR, "same", 0, 0, 0, 0, "same|int32"},
    {"use_bias", CA_BOOL, "true", 0, 0, 0, 0, NULL},
};

Status cvm_parse_conv2d(CvmCtx *c, const CvmRawAttrs *raw)
{
    Status st = cvm_parse_attrs(c, raw, conv2d_attrs, sizeof conv2d_attrs / sizeof *conv2d_attrs);
    if (st != ST_OK)
        return st;
    return cvm_want_inputs(c, og_attr_bool(c->n, "use_bias", true) ? 3 : 2);
}

/* Output extent of a window op: floor((n + 2p - (d(k-1)+1)) / s) + 1, or 0 when the dilated
 * window does not fit the padded input. */
static int64_t window_out(int64_t n, int64_t k, int64_t s, int64_t p, int64_t dil)
{
    int64_t span = dil * (k - 1) + 1;
    if (n + 2 * p < span)
        return 0;
    return (n + 2 * p - span) / s + 1;
}

Status cvm_shape_conv2d(CvmCtx *c, const OgShape *in, OgShape *out)
{
    Status st;
    if ((st = cvm_want_rank(c, in, 0, 4)) || (st = cvm_want_rank(c, in, 1, 4)))
        return st;
    const OgNode *n = c->n;
    uint32_t cnt;
    const int64_t *ks = og_attr_ints(n, "kernel_size", &cnt);
    const int64_t *sd = og_attr_ints(n, "strides", &cnt);
    const int64_t *pd = og_attr_ints(n, "padding", &cnt);
    const int64_t *dl = og_attr_ints(n, "dilation", &cnt);
    int64_t groups = og_attr_int(n, "groups", 1), channels = og_attr_int(n, "channels", 0);
    int64_t C = in[0].d[1], OC = in[1].d[0], IC = in[1].d[1], KH = in[1].d[2], KW = in[1].d[3];
    if (C % groups != 0)
        return cvm_fail_attr(c, "groups", "= %lld does not divide the %lld input channels",
                             (long long)groups, (long long)C);
    if (OC % groups != 0)
        return cvm_fail_attr(c, "groups", "= %lld does not divide the %lld output channels",
                             (long long)groups, (long long)OC);
    if (channels != OC)
        return cvm_fail_attr(c, "channels", "= %lld, the weight has %lld output channels",
                             (long long)channels, (long long)OC);
    if (IC * groups != C)
        return cvm_fail(c, "cvm.shape.mismatch",
                        "the weight has %lld input channels per group, the data %lld channels "
                        "in %lld groups", (long long)IC, (long long)C, (long long)groups);
    if (ks[0] != KH || ks[1] != KW)
        return cvm_fail_attr(c, "kernel_size", "= (%lld, %lld), the weight's kernel is %lldx%lld",
                             (long long)ks[0], (long long)ks[1], (long long)KH, (long long)KW);
    if (n->ninputs == 3) {
        if ((st = cvm_want_rank(c, in, 2, 1)))
            return st;
        if (in[2].d[0] != OC)
            return cvm_fail(c, "cvm.shape.mismatch", "the bias has %lld values, expected %lld",
                            (long long)in[2].d[0], (long long)OC);
    }
    int64_t oh = window_out(in[0].d[2], KH, sd[0], pd[0], dl[0]);
    int64_t ow = window_out(in[0].d[3], KW, sd[1], pd[1], dl[1]);
    if (oh < 1 || ow < 1)
        return cvm_fail(c, "cvm.shape.empty",
                        "the dilated %lldx%lld kernel exceeds the padded %lldx%lld input",
                        (long long)KH, (long long)KW, (long long)(in[0].d[2] + 2 * pd[0]),
                        (long long)(in[0].d[3] + 2 * pd[1]));
    out[0].ndim = 4;
    out[0].d[0] = in[0].d[0];
    out[0].d[1] = OC;
    out[0].d[2] = oh;
    out[0].d[3] = ow;
    return ST_OK;
}

static Status want_int8(CvmCtx *c, const int32_t *in_prec)
{
    static const char *const what[] = {"data", "weight"};
    for (int i = 0; i < 2; i++)
        if (in_prec[i] > 8)
            return cvm_fail(c, "cvm.precision.input",
                            "the %s has precision %d; %s takes at most 8 bits", what[i],
                            (int)in_prec[i], c->n->op_name);
    return ST_OK;
}

static void matmul_prec(CvmCtx *c, const int32_t *in_prec, int64_t size, int32_t *out_prec)
{
    int32_t p = in_prec[0] + in_prec[1] + cvm_bits((uint64_t)size);
    if (c->n->ninputs == 3)
        p = (p > in_prec[2] ? p : in_prec[2]) + 1;
    out_prec[0] = p;
}

Status cvm_prec_conv2d(CvmCtx *c, const OgShape *in, const int32_t *in_prec, int32_t *out_prec)
{
    Status st = want_int8(c, in_prec);
    if (st == ST_OK)
        matmul_prec(c, in_prec, in[1].d[1] * in[1].d[2] * in[1].d[3], out_prec);
    return st;
}

/* the CVM design text: Y[n,oc,p,q] = sum_{ic<IC} kernel(n, (oc / OPG) * IC + ic, p, q, oc, ic) +
 * B[oc] with OPG = OC / groups; padding reads as 0. Written out:
 *
 *   Y[n, oc, p, q] = B[oc] + sum_{ic < IC, ki < KH, kj < KW} W[oc, ic, ki, kj] *
 *                    X[n, (oc / OPG) * IC + ic, p * S0 - P0 + ki * D0, q * S1 - P1 + kj * D1]
 *
 * cvm_run_conv2d_formula computes exactly that in int64. conv2d_gemm computes the same sum as
 * a matrix product per batch element and group (cvm_gemm.h): A[oc][k] = W[oc, ic, ki, kj]
 * (the OIHW weight rows as they are) and B[p * OW + q][k] = the X value above, k = (ic * KH
 * + ki) * KW + kj; cvm_run_conv2d takes it when the operands' magnitudes prove that int32
 * sums are exact (always, for operands within the 8 bits precision inference demands). */
typedef struct ConvDims {
    int64_t N, C, H, W, OC, IC, KH, KW, OH, OW, OPG, groups;
    int64_t sd[2], pd[2], dl[2];
} ConvDims;

static ConvDims conv_dims(const OgNode *n, const OgTensor *x, const OgTensor *w,
                          const OgTensor *y)
{
    uint32_t cnt;
    const int64_t *sd = og_attr_ints(n, "strides", &cnt);
    const int64_t *pd = og_attr_ints(n, "padding", &cnt);
    const int64_t *dl = og_attr_ints(n, "dilation", &cnt);
    ConvDims d = {x->shape.d[0], x->shape.d[1], x->shape.d[2], x->shape.d[3],
                  w->shape.d[0], w->shape.d[1], w->shape.d[2], w->shape.d[3],
                  y->shape.d[2], y->shape.d[3], 0, og_attr_int(n, "groups", 1),
                  {sd[0], sd[1]}, {pd[0], pd[1]}, {dl[0], dl[1]}};
    d.OPG = d.OC / d.groups;
    return d;
}

Status cvm_run_conv2d_formula(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    const OgTensor *x = in[0], *w = in[1], *b = c->n->ninputs == 3 ? in[2] : NULL;
    ConvDims dims = conv_dims(c->n, x, w, out);
    const ConvDims *d = &dims;
    int64_t H = d->H, W = d->W, KH = d->KH, KW = d->KW, IC = d->IC;
    int32_t *y = out->data;
    for (int64_t bn = 0; bn < d->N; bn++)
        for (int64_t oc = 0; oc < d->OC; oc++) {
            int64_t cbase = (oc / d->OPG) * IC;
            for (int64_t p = 0; p < d->OH; p++)
                for (int64_t q = 0; q < d->OW; q++) {
                    int64_t acc = b ? b->data[oc] : 0;
                    for (int64_t ic = 0; ic < IC; ic++) {
                        const int32_t *xp = x->data + (bn * d->C + cbase + ic) * H * W;
                        const int32_t *wp = w->data + (oc * IC + ic) * KH * KW;
                        for (int64_t ki = 0; ki < KH; ki++) {
                            int64_t r = p * d->sd[0] - d->pd[0] + ki * d->dl[0];
                            if (r < 0 || r >= H)
                                continue;
                            for (int64_t kj = 0; kj < KW; kj++) {
                                int64_t s = q * d->sd[1] - d->pd[1] + kj * d->dl[1];
                                if (s < 0 || s >= W)
                                    continue;
                                acc += (int64_t)xp[r * W + s] * wp[ki * KW + kj];
                            }
                        }
                    }
                    *y++ = cvm_i32(c, acc);
                }
        }
    return ST_OK;
}

/* B[p * OW + q][(ic * KH + ki) * KW + kj] = X[bn, cbase + ic, row, col] where (row, col) lies
 * in X; the padding's entries are never written, so they keep the 0 of cvm_pack_alloc (the
 * same entries for every batch element and group). Pixels are taken QB at a time along a row
 * of Y: each X row segment is read in order and QB rows of B are filled side by side. */
enum { QB = 16 };

static void conv2d_columns(const ConvDims *d, const int32_t *x, int64_t bn, int64_t cbase,
                           CvmPack *cols)
{
    for (int64_t p = 0; p < d->OH; p++)
        for (int64_t q0 = 0; q0 < d->OW; q0 += QB) {
            int64_t nq = d->OW - q0 < QB ? d->OW - q0 : QB;
            int16_t *b = cvm_pack_row(cols, p * d->OW + q0);
            int64_t k = 0;
            for (int64_t ic = 0; ic < d->IC; ic++) {
                const int32_t *xp = x + (bn * d->C + cbase + ic) * d->H * d->W;
                for (int64_t ki = 0; ki < d->KH; ki++, k += d->KW) {
                    int64_t r = p * d->sd[0] - d->pd[0] + ki * d->dl[0];
                    if (r < 0 || r >= d->H)
                        continue;
                    const int32_t *xr = xp + r * d->W;
                    for (int64_t kj = 0; kj < d->KW; kj++) {
                        int64_t s0 = q0 * d->sd[1] - d->pd[1] + kj * d->dl[1];
                        for (int64_t j = 0; j < nq; j++) {
                            int64_t s = s0 + j * d->sd[1];
                            if (s >= 0 && s < d->W)
                                b[j * cols->ld + k + kj] = (int16_t)xr[s];
                        }
                    }
                }
            }
        }
}

/* The largest magnitude of input i (the tensor t): a parameter's precision bounds it (checked
 * when the parameter was added, fe_cvm_add_const), anything else is scanned. */
static int64_t operand_max(const CvmCtx *c, uint32_t i, const OgTensor *t)
{
    const OgNode *src = og_node(c->g, c->n->inputs[i].node);
    if (src && src->kind == OG_CONST && src->value.data == t->data)
        return og_prec_alpha(src->out_prec[0]);
    return og_tensor_absmax(t);
}

/* Whether the matrix product gives conv2d's or dense's sums exactly (cvm_gemm_exact): the
 * reduction length K, the data in[0], the weight in[1], the bias in[2] if any. */
static bool gemm_exact(const CvmCtx *c, int64_t K, const OgTensor *const *in)
{
    int64_t bias = c->n->ninputs == 3 ? operand_max(c, 2, in[2]) : 0;
    return cvm_gemm_exact(K, operand_max(c, 1, in[1]), operand_max(c, 0, in[0]), bias);
}

/* Packs rows x k values of v (row-major) into p (allocated here). */
static bool pack_rows(CvmPack *p, const int32_t *v, int64_t rows, int64_t k)
{
    if (!cvm_pack_alloc(p, rows, k))
        return false;
    for (int64_t r = 0; r < rows; r++) {
        int16_t *row = cvm_pack_row(p, r);
        for (int64_t i = 0; i < k; i++)
            row[i] = (int16_t)v[r * k + i];
    }
    return true;
}

static Status conv2d_gemm(CvmCtx *c, const ConvDims *d, const OgTensor *x, const OgTensor *w,
                          const OgTensor *b, OgTensor *out)
{
    int64_t K = d->IC * d->KH * d->KW, P = d->OH * d->OW;
    CvmPack cols;
    if (!cvm_pack_alloc(&cols, P, K))
        return cvm_oom(c);
    for (int64_t g = 0; g < d->groups; g++) {
        CvmPack wg;
        if (!pack_rows(&wg, w->data + g * d->OPG * K, d->OPG, K)) {
            cvm_pack_free(&cols);
            return cvm_oom(c);
        }
        for (int64_t bn = 0; bn < d->N; bn++) {
            conv2d_columns(d, x->data, bn, g * d->IC, &cols);
            cvm_gemm(&wg, &cols, b ? b->data + g * d->OPG : NULL,
                     out->data + (bn * d->OC + g * d->OPG) * P, P, 1);
        }
        cvm_pack_free(&wg);
    }
    cvm_pack_free(&cols);
    return ST_OK;
}

Status cvm_run_conv2d(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    const OgTensor *x = in[0], *w = in[1], *b = c->n->ninputs == 3 ? in[2] : NULL;
    ConvDims d = conv_dims(c->n, x, w, out);
    if (gemm_exact(c, d.IC * d.KH * d.KW, in))
        return conv2d_gemm(c, &d, x, w, b, out);
    return cvm_run_conv2d_formula(c, in, out);
}

/* ---- dense ---- */

static const CvmAttrSpec dense_attrs[] = {
    {"units", CA_INT, NULL, 1, CVM_I32_HI, 0, 0, NULL},
    {"use_bias", CA_BOOL, "true", 0, 0, 0, 0, NULL},
};

Status cvm_parse_dense(CvmCtx *c, const CvmRawAttrs *raw)
{
    Status st = cvm_parse_attrs(c, raw, dense_attrs, sizeof dense_attrs / sizeof *dense_attrs);
    if (st != ST_OK)
        return st;
    return cvm_want_inputs(c, og_attr_bool(c->n, "use_bias", true) ? 3 : 2);
}

Status cvm_shape_dense(CvmCtx *c, const OgShape *in, OgShape *out)
{
    Status st;
    if ((st = cvm_want_rank(c, in, 0, 2)) || (st = cvm_want_rank(c, in, 1, 2)))
        return st;
    int64_t units = og_attr_int(c->n, "units", 0);
    if (in[1].d[0] != units)
        return cvm_fail_attr(c, "units", "= %lld, the weight has %lld rows", (long long)units,
                             (long long)in[1].d[0]);
    if (in[1].d[1] != in[0].d[1])
        return cvm_fail(c, "cvm.shape.mismatch", "the weight has %lld columns, the data %lld",
                        (long long)in[1].d[1], (long long)in[0].d[1]);
    if (c->n->ninputs == 3) {
        if ((st = cvm_want_rank(c, in, 2, 1)))
            return st;
        if (in[2].d[0] != units)
            return cvm_fail(c, "cvm.shape.mismatch", "the bias has %lld values, expected %lld",
                            (long long)in[2].d[0], (long long)units);
    }
    out[0].ndim = 2;
    out[0].d[0] = in[0].d[0];
    out[0].d[1] = units;
    return ST_OK;
}

Status cvm_prec_dense(CvmCtx *c, const OgShape *in, const int32_t *in_prec, int32_t *out_prec)
{
    Status st = want_int8(c, in_prec);
    if (st == ST_OK)
        matmul_prec(c, in_prec, in[0].d[1], out_prec);
    return st;
}

/* Y = X W^T + B: Y[i, j] = B[j] + sum_{k < K} X[i, k] * W[j, k]. As a matrix product
 * (cvm_gemm.h) with A = W and B = X when int32 sums are exact, else in int64. */
Status cvm_run_dense_formula(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    const OgTensor *x = in[0], *w = in[1], *b = c->n->ninputs == 3 ? in[2] : NULL;
    int64_t M = x->shape.d[0], K = x->shape.d[1], U = w->shape.d[0];
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < U; j++) {
            int64_t acc = b ? b->data[j] : 0;
            const int32_t *xr = x->data + i * K, *wr = w->data + j * K;
            for (int64_t k = 0; k < K; k++)
                acc += (int64_t)xr[k] * wr[k];
            out->data[i * U + j] = cvm_i32(c, acc);
        }
    return ST_OK;
}

Status cvm_run_dense(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    const OgTensor *x = in[0], *w = in[1], *b = c->n->ninputs == 3 ? in[2] : NULL;
    int64_t M = x->shape.d[0], K = x->shape.d[1], U = w->shape.d[0];
    if (M < 1 || K < 1 || U < 1 || !gemm_exact(c, K, in))
        return cvm_run_dense_formula(c, in, out);
    CvmPack pw = {0}, px = {0};
    bool ok = pack_rows(&pw, w->data, U, K) && pack_rows(&px, x->data, M, K);
    if (ok)
        cvm_gemm(&pw, &px, b ? b->data : NULL, out->data, 1, U);
    cvm_pack_free(&pw);
    cvm_pack_free(&px);
    return ok ? ST_OK : cvm_oom(c);
}

/* ---- relu ---- */

Status cvm_run_relu(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    (void)c;
    for (int64_t i = 0; i < out->count; i++)
        out->data[i] = in[0]->data[i] > 0 ? in[0]->data[i] : 0;
    return ST_OK;
}

/* ---- max_pool2d ---- */

static const CvmAttrSpec pool_attrs[] = {
    {"pool_size", CA_INTS, NULL, 0, OG_MAX_DIM, 2, 2, NULL},
    {"strides", CA_INTS, "(1, 1)", 1, ATTR_HI, 2, 2, NULL},
    {"padding", CA_INTS, "(0, 0)", 0, ATTR_HI, 1, 2, NULL},
    {"layout", CA_STR, "NCHW", 0, 0, 0, 0, "NCHW"},
    {"ceil_mode", CA_BOOL, "false", 0, 0, 0, 0, NULL},
};

Status cvm_parse_max_pool2d(CvmCtx *c, const CvmRawAttrs *raw)
{
    return cvm_parse_attrs(c, raw, pool_attrs, sizeof pool_attrs / sizeof *pool_attrs);
}

/* Padding (PH, PW): a 1-element padding means PH = PW. */
static void pool_params(const OgNode *n, int64_t *ps, int64_t *sd, int64_t *pd)
{
    uint32_t cnt;
    const int64_t *v = og_attr_ints(n, "pool_size", &cnt);
    ps[0] = v[0], ps[1] = v[1];
    v = og_attr_ints(n, "strides", &cnt);
    sd[0] = v[0], sd[1] = v[1];
    v = og_attr_ints(n, "padding", &cnt);
    pd[0] = v[0], pd[1] = cnt == 2 ? v[1] : v[0];
}

Status cvm_shape_max_pool2d(CvmCtx *c, const OgShape *in, OgShape *out)
{
    Status st = cvm_want_rank(c, in, 0, 4);
    if (st != ST_OK)
        return st;
    int64_t ps[2], sd[2], pd[2];
    pool_params(c->n, ps, sd, pd);
    bool ceil_mode = og_attr_bool(c->n, "ceil_mode", false);
    out[0] = in[0];
    for (int i = 0; i < 2; i++) {
        int64_t len = in[0].d[2 + i] + 2 * pd[i];
        if (ps[i] > len)
            return cvm_fail_attr(c, "pool_size", "= (%lld, %lld) exceeds the padded %lldx%lld input",
                                 (long long)ps[0], (long long)ps[1],
                                 (long long)(in[0].d[2] + 2 * pd[0]),
                                 (long long)(in[0].d[3] + 2 * pd[1]));
        if (ps[i] <= pd[i])
            return cvm_fail_attr(c, "pool_size", "= (%lld, %lld) must exceed the padding (%lld, %lld)",
                                 (long long)ps[0], (long long)ps[1], (long long)pd[0],
                                 (long long)pd[1]);
        int64_t span = len - ps[i];
        out[0].d[2 + i] = (ceil_mode ? (span + sd[i] - 1) / sd[i] : span / sd[i]) + 1;
        /* cvm-runtime: in ceil mode the last window starts inside the input (or its leading
         * padding), not in the trailing padding alone */
        int64_t last = (out[0].d[2 + i] - 1) * sd[i] - pd[i];
        if (ceil_mode && last >= in[0].d[2 + i])
            return cvm_fail_attr(c, "ceil_mode", "= true: the last window along %s starts at "
                                 "%lld, past the input's %lld", i ? "the width" : "the height",
                                 (long long)last, (long long)in[0].d[2 + i]);
    }
    return ST_OK;
}

/* the CVM formalization: the max over the window of pad(), which reads 0 outside the input
 * (cvm-runtime's CPU code pads with INT32_MIN instead: docs/cvm-divergences.md). */
Status cvm_run_max_pool2d(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    int64_t ps[2], sd[2], pd[2];
    pool_params(c->n, ps, sd, pd);
    const OgTensor *x = in[0];
    int64_t NC = x->shape.d[0] * x->shape.d[1], H = x->shape.d[2], W = x->shape.d[3];
    int64_t OH = out->shape.d[2], OW = out->shape.d[3];
    int32_t *y = out->data;
    for (int64_t nc = 0; nc < NC; nc++) {
        const int32_t *xp = x->data + nc * H * W;
        for (int64_t p = 0; p < OH; p++)
            for (int64_t q = 0; q < OW; q++) {
                int64_t m = INT64_MIN;
                for (int64_t i = 0; i < ps[0]; i++) {
                    int64_t r = p * sd[0] - pd[0] + i;
                    for (int64_t j = 0; j < ps[1]; j++) {
                        int64_t s = q * sd[1] - pd[1] + j;
                        int64_t v = (r >= 0 && r < H && s >= 0 && s < W) ? xp[r * W + s] : 0;
                        if (v > m)
                            m = v;
                    }
                }
                *y++ = cvm_i32(c, m);
            }
    }
    return ST_OK;
}

/* ---- upsampling ---- */

static const CvmAttrSpec upsampling_attrs[] = {
    {"scale", CA_INT, NULL, 1, ATTR_HI, 0, 0, NULL},
    {"layout", CA_STR, "NCHW", 0, 0, 0, 0, "NCHW"},
    {"method", CA_STR, "NEAREST_NEIGHBOR", 0, 0, 0, 0, "NEAREST_NEIGHBOR"},
};

Status cvm_parse_upsampling(CvmCtx *c, const CvmRawAttrs *raw)
{
    return cvm_parse_attrs(c, raw, upsampling_attrs,
                           sizeof upsampling_attrs / sizeof *upsampling_attrs);
}

Status cvm_shape_upsampling(CvmCtx *c, const OgShape *in, OgShape *out)
{
    Status st = cvm_want_rank(c, in, 0, 4);
    if (st != ST_OK)
        return st;
    int64_t s = og_attr_int(c->n, "scale", 1);
    out[0] = in[0];
    out[0].d[2] = in[0].d[2] * s;
    out[0].d[3] = in[0].d[3] * s;
    return ST_OK;
}

/* Y[n, i, h, w] = X[n, i, h / scale, w / scale]. */
Status cvm_run_upsampling(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    int64_t s = og_attr_int(c->n, "scale", 1);
    const OgTensor *x = in[0];
    int64_t NC = x->shape.d[0] * x->shape.d[1], H = x->shape.d[2], W = x->shape.d[3];
    int64_t OH = out->shape.d[2], OW = out->shape.d[3];
    int32_t *y = out->data;
    for (int64_t nc = 0; nc < NC; nc++)
        for (int64_t h = 0; h < OH; h++)
            for (int64_t w = 0; w < OW; w++)
                *y++ = x->data[(nc * H + h / s) * W + w / s];
    return ST_OK;
}
