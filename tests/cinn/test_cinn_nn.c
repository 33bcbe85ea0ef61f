/* test_cinn_nn.c: the primitives of the CINN primitive semantics (docs/cinn.md) that are not
 * elementwise — Conv (forward: NCHW and NHWC, EXPLICIT / VALID / SAME padding, strides, dilations,
 * groups), Dot (1-D and 2-D operands), Reduce (sum, prod, max, min; keep_dim or not), BroadcastTo,
 * Concat, Reshape, Reverse, Slice, Transpose and ConstScalar — through the whole path of
 * cinn_test.h, against values computed here with plain loops.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cinn_test.h"

/* ---- Conv ---- */

typedef struct ConvCase {
    const char *what;
    int64_t n, c, h, w, oc, kh, kw, groups;
    int64_t sh, sw, ph, pw, dh, dw;
    const char *format, *alg;
} ConvCase;

static int64_t out_extent(int64_t n, int64_t k, int64_t s, int64_t p, int64_t d)
{
    return (n + 2 * p - (d * (k - 1) + 1)) / s + 1;
}

static void conv_case(const ConvCase *k)
{
    CtCase c;
    ct_begin(&c, 900 + (uint64_t)k->oc);
    bool nhwc = strcmp(k->format, "NHWC") == 0;
    int64_t ic = k->c / k->groups;
    int64_t wn = k->oc * ic * k->kh * k->kw;
    int32_t *wv = malloc((size_t)wn * sizeof *wv);
    assert_non_null(wv);
    for (int64_t i = 0; i < wn; i++)
        wv[i] = (int32_t)ct_range(&c, -127, 127);
    CinnVar x = nhwc ? ct_input(&c, "x", CT_SHP(k->n, k->h, k->w, k->c), 8, NULL)
                     : ct_input(&c, "x", CT_SHP(k->n, k->c, k->h, k->w), 8, NULL);
    CinnVar w = ct_const(&c, "w", CT_SHP(k->oc, ic, k->kh, k->kw), wv, 8);
    CinnConvAttrs a;
    fe_cinn_conv_init(&a);
    a.strides[0] = k->sh, a.strides[1] = k->sw;
    a.paddings[0] = k->ph, a.paddings[1] = k->pw;
    a.dilations[0] = k->dh, a.dilations[1] = k->dw;
    a.groups = k->groups;
    a.data_format = k->format;
    a.padding_algorithm = k->alg;
    int64_t ph = k->ph, pw = k->pw;
    if (strcmp(k->alg, "VALID") == 0)
        ph = pw = 0;
    if (strcmp(k->alg, "SAME") == 0) { /* the test's cases have even totals */
        int64_t oh = (k->h + k->sh - 1) / k->sh, ow = (k->w + k->sw - 1) / k->sw;
        ph = ((oh - 1) * k->sh + (k->kh - 1) * k->dh + 1 - k->h) / 2;
        pw = ((ow - 1) * k->sw + (k->kw - 1) * k->dw + 1 - k->w) / 2;
    }
    int64_t OH = out_extent(k->h, k->kh, k->sh, ph, k->dh);
    int64_t OW = out_extent(k->w, k->kw, k->sw, pw, k->dw);
    int64_t shape[4] = {k->n, nhwc ? OH : k->oc, nhwc ? OW : OH, nhwc ? k->oc : OW};
    a.output_shape = shape;
    a.noutput_shape = 4;
    CinnVar y = fe_cinn_conv(c.b, x, w, &a, "y");
    const int32_t *xv = ct_in(&c, 0);
    int64_t total = k->n * k->oc * OH * OW;
    int32_t *want = malloc((size_t)total * sizeof *want);
    assert_non_null(want);
    int64_t opg = k->oc / k->groups;
    for (int64_t b = 0; b < k->n; b++)
        for (int64_t o = 0; o < k->oc; o++)
            for (int64_t p = 0; p < OH; p++)
                for (int64_t q = 0; q < OW; q++) {
                    int64_t acc = 0;
                    for (int64_t i = 0; i < ic; i++)
                        for (int64_t u = 0; u < k->kh; u++)
                            for (int64_t v = 0; v < k->kw; v++) {
                                int64_t r = p * k->sh - ph + u * k->dh, s = q * k->sw - pw + v * k->dw;
                                if (r < 0 || r >= k->h || s < 0 || s >= k->w)
                                    continue;
                                int64_t ch = (o / opg) * ic + i;
                                int64_t xi = nhwc ? ((b * k->h + r) * k->w + s) * k->c + ch
                                                  : ((b * k->c + ch) * k->h + r) * k->w + s;
                                acc += (int64_t)xv[xi] * wv[((o * ic + i) * k->kh + u) * k->kw + v];
                            }
                    int64_t yi = nhwc ? ((b * OH + p) * OW + q) * k->oc + o
                                      : ((b * k->oc + o) * OH + p) * OW + q;
                    want[yi] = (int32_t)acc;
                }
    ct_output(&c, y, want);
    ct_check(&c, k->what);
    free(want);
    free(wv);
    ct_end(&c);
}

static void test_conv(void **state)
{
    (void)state;
    static const ConvCase cases[] = {
        {"Conv 3x3 pad 1", 1, 3, 8, 8, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, "NCHW", "EXPLICIT"},
        {"Conv batch 2, stride 2", 2, 2, 9, 7, 3, 3, 3, 1, 2, 2, 0, 1, 1, 1, "NCHW", "EXPLICIT"},
        {"Conv dilation 2", 1, 2, 10, 10, 2, 3, 3, 1, 1, 1, 2, 2, 2, 2, "NCHW", "EXPLICIT"},
        {"Conv groups 2", 1, 4, 6, 6, 6, 3, 3, 2, 1, 1, 1, 1, 1, 1, "NCHW", "EXPLICIT"},
        {"Conv depthwise", 1, 4, 6, 6, 4, 3, 3, 4, 1, 1, 1, 1, 1, 1, "NCHW", "EXPLICIT"},
        {"Conv VALID", 1, 2, 7, 7, 3, 3, 3, 1, 1, 1, 5, 5, 1, 1, "NCHW", "VALID"},
        {"Conv SAME", 1, 2, 7, 7, 3, 3, 3, 1, 1, 1, 0, 0, 1, 1, "NCHW", "SAME"},
        {"Conv NHWC", 1, 3, 6, 5, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, "NHWC", "EXPLICIT"},
        {"Conv NHWC SAME stride 2", 2, 2, 7, 7, 3, 3, 3, 1, 2, 2, 0, 0, 1, 1, "NHWC", "SAME"},
        {"Conv 1x1", 1, 5, 4, 4, 7, 1, 1, 1, 1, 1, 0, 0, 1, 1, "NCHW", "EXPLICIT"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        conv_case(&cases[i]);
}

/* ---- Dot ---- */

static void test_dot(void **state)
{
    (void)state;
    /* (xrank, yrank): x (M, K) or (K,), y (K, N) or (K,) */
    for (int xr = 1; xr <= 2; xr++)
        for (int yr = 1; yr <= 2; yr++) {
            CtCase c;
            ct_begin(&c, 1100 + (uint64_t)(xr * 3 + yr));
            const int64_t M = 3, K = 5, N = 4;
            int32_t yv[20];
            for (int i = 0; i < 20; i++)
                yv[i] = (int32_t)ct_range(&c, -127, 127);
            /* a 1-D model input would be a batch of K scalars: reshape a (1, K) one */
            CinnVar x = xr == 2 ? ct_input(&c, "x", CT_SHP(M, K), 8, NULL)
                                : ct_input(&c, "x1", CT_SHP(1, K), 8, NULL);
            if (xr == 1) {
                int64_t k1[1] = {K};
                x = fe_cinn_reshape(c.b, x, k1, 1, "x");
            }
            CinnVar y = yr == 2 ? ct_const(&c, "y", CT_SHP(K, N), yv, 8)
                                : ct_const(&c, "y", CT_SHP(K), yv, 8);
            CinnVar z = fe_cinn_dot(c.b, x, y, "z");
            const int32_t *xv = ct_in(&c, 0);
            int64_t rows = xr == 2 ? M : 1, cols = yr == 2 ? N : 1;
            int32_t want[12];
            for (int64_t i = 0; i < rows; i++)
                for (int64_t j = 0; j < cols; j++) {
                    int64_t acc = 0;
                    for (int64_t k = 0; k < K; k++)
                        acc += (int64_t)xv[i * K + k] * yv[yr == 2 ? k * N + j : k];
                    want[i * cols + j] = (int32_t)acc;
                }
            ct_output(&c, z, want);
            char what[48];
            snprintf(what, sizeof what, "Dot %d-D x %d-D", xr, yr);
            ct_check(&c, what);
            ct_end(&c);
        }
}

/* ---- Reduce ---- */

static void test_reduce(void **state)
{
    (void)state;
    static const char *const kinds[] = {"sum", "prod", "max", "min"};
    static const struct {
        uint32_t n;
        int64_t dim[3];
    } dims[] = {{1, {2}}, {1, {1}}, {2, {1, 2}}, {2, {2, 1}}, {3, {0, 1, 2}}};
    for (int kind = 0; kind < 4; kind++)
        for (size_t di = 0; di < sizeof dims / sizeof *dims; di++)
            for (int keep = 0; keep < 2; keep++) {
                /* axis 0 is the batch; a reduction over it takes one sample */
                bool all = dims[di].n == 3;
                int64_t B = all ? 1 : 2, H = 3, W = kind == 1 ? 2 : 4;
                CtCase c;
                ct_begin(&c, 1200 + (uint64_t)(kind * 100 + (int)di * 2 + keep));
                int p = kind == 1 ? 4 : 8;
                CinnVar x = ct_input(&c, "x", CT_SHP(B, H, W), p, NULL);
                CinnVar y = fe_cinn_reduce(c.b, x, (CinnReduceKind)kind, dims[di].dim,
                                           dims[di].n, keep, "y");
                bool red[3] = {false, false, false};
                for (uint32_t i = 0; i < dims[di].n; i++)
                    red[dims[di].dim[i]] = true;
                int64_t ext[3] = {B, H, W}, oext[3], ostr[3], k = 1;
                for (int i = 2; i >= 0; i--) {
                    oext[i] = red[i] ? 1 : ext[i];
                    ostr[i] = k;
                    k *= oext[i];
                }
                int64_t nout = k;
                int64_t acc[64];
                for (int64_t i = 0; i < nout; i++)
                    acc[i] = kind == 0 ? 0 : kind == 1 ? 1 : kind == 2 ? INT64_MIN : INT64_MAX;
                const int32_t *xv = ct_in(&c, 0);
                for (int64_t b = 0; b < B; b++)
                    for (int64_t h = 0; h < H; h++)
                        for (int64_t w = 0; w < W; w++) {
                            int64_t v = xv[(b * H + h) * W + w];
                            int64_t o = (red[0] ? 0 : b) * ostr[0] + (red[1] ? 0 : h) * ostr[1] +
                                        (red[2] ? 0 : w) * ostr[2];
                            acc[o] = kind == 0 ? acc[o] + v : kind == 1 ? acc[o] * v
                                     : kind == 2 ? (v > acc[o] ? v : acc[o])
                                                 : (v < acc[o] ? v : acc[o]);
                        }
                int32_t want[64];
                for (int64_t i = 0; i < nout; i++)
                    want[i] = (int32_t)acc[i];
                ct_output(&c, y, want);
                const OgShape *ys = fe_cinn_var_shape(c.b, y);
                assert_int_equal(ys->ndim, keep ? 3 : all ? 1 : 3 - dims[di].n);
                char what[64];
                snprintf(what, sizeof what, "Reduce %s over %u dims%s", kinds[kind], dims[di].n,
                         keep ? " keep_dim" : "");
                ct_check(&c, what);
                ct_end(&c);
            }
}

/* ---- data movement ---- */

static void test_broadcast_to(void **state)
{
    (void)state;
    /* x (1, 4) -> (1, 3, 4, 2) along axes {0, 2}; x (1, 4, 1) with axes {0, 2, 1} (out of
     * order: a transpose first) -> (1, 5, 4) */
    {
        CtCase c;
        ct_begin(&c, 1300);
        CinnVar x = ct_input(&c, "x", CT_SHP(1, 4), 8, NULL);
        int64_t out[4] = {1, 3, 4, 2}, axes[2] = {0, 2};
        CinnVar y = fe_cinn_broadcast_to(c.b, x, out, 4, axes, 2, "y");
        int32_t want[24];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 4; j++)
                for (int k = 0; k < 2; k++)
                    want[(i * 4 + j) * 2 + k] = ct_in(&c, 0)[j];
        ct_output(&c, y, want);
        ct_check(&c, "BroadcastTo");
        ct_end(&c);
    }
    {
        CtCase c;
        ct_begin(&c, 1301);
        CinnVar x = ct_input(&c, "x", CT_SHP(1, 4, 1), 8, NULL);
        int64_t out[3] = {1, 5, 4}, axes[3] = {0, 2, 1};
        CinnVar y = fe_cinn_broadcast_to(c.b, x, out, 3, axes, 3, "y");
        int32_t want[20];
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < 4; j++)
                want[i * 4 + j] = ct_in(&c, 0)[j];
        ct_output(&c, y, want);
        ct_check(&c, "BroadcastTo (axes out of order)");
        ct_end(&c);
    }
    {   /* a per-channel bias, the usual use: (C,) -> (1, C, H, W) along axis 1 */
        CtCase c;
        ct_begin(&c, 1302);
        CinnVar x = ct_input(&c, "x", CT_SHP(1, 3, 2, 2), 8, NULL);
        int32_t bv[3] = {5, -7, 100};
        CinnVar b = ct_const(&c, "b", CT_SHP(3), bv, 0);
        int64_t out[4] = {1, 3, 2, 2}, axes[1] = {1};
        CinnVar bb = fe_cinn_broadcast_to(c.b, b, out, 4, axes, 1, "bb");
        CinnVar y = fe_cinn_add(c.b, x, bb, "y");
        int32_t want[12];
        for (int i = 0; i < 12; i++)
            want[i] = ct_in(&c, 0)[i] + bv[i / 4];
        ct_output(&c, y, want);
        ct_check(&c, "BroadcastTo of a bias");
        ct_end(&c);
    }
}

static void test_concat(void **state)
{
    (void)state;
    for (int axis = -1; axis <= 2; axis++) {
        if (axis == 0)
            continue; /* axis 0 is the batch */
        int64_t ax = axis < 0 ? 2 : axis;
        CtCase c;
        ct_begin(&c, 1400 + (uint64_t)(axis + 1));
        int64_t ea[3] = {2, 3, 4}, eb[3] = {2, 3, 4};
        eb[ax] = 2;
        CinnVar a = ct_input(&c, "a", 3, ea, 8, NULL);
        CinnVar b = ct_input(&c, "b", 3, eb, 5, NULL);
        CinnVar ins[2] = {a, b};
        CinnVar y = fe_cinn_concat(c.b, ins, 2, axis, "y");
        int64_t ey[3] = {2, 3, 4};
        ey[ax] = ea[ax] + eb[ax];
        int32_t want[96];
        for (int64_t i = 0; i < ey[0]; i++)
            for (int64_t j = 0; j < ey[1]; j++)
                for (int64_t k = 0; k < ey[2]; k++) {
                    int64_t idx[3] = {i, j, k}, o = (i * ey[1] + j) * ey[2] + k;
                    if (idx[ax] < ea[ax]) {
                        want[o] = ct_in(&c, 0)[(i * ea[1] + j) * ea[2] + k];
                    } else {
                        idx[ax] -= ea[ax];
                        want[o] = ct_in(&c, 1)[(idx[0] * eb[1] + idx[1]) * eb[2] + idx[2]];
                    }
                }
        ct_output(&c, y, want);
        char what[32];
        snprintf(what, sizeof what, "Concat axis %d", axis);
        ct_check(&c, what);
        ct_end(&c);
    }
}

static void test_reshape_transpose(void **state)
{
    (void)state;
    {
        CtCase c;
        ct_begin(&c, 1500);
        CinnVar x = ct_input(&c, "x", CT_SHP(2, 3, 4), 8, NULL);
        int64_t shape[3] = {2, -1, 2};
        CinnVar y = fe_cinn_reshape(c.b, x, shape, 3, "y");
        assert_int_equal(fe_cinn_var_shape(c.b, y)->d[1], 6);
        ct_output(&c, y, ct_in(&c, 0));
        ct_check(&c, "Reshape");
        ct_end(&c);
    }
    {
        CtCase c;
        ct_begin(&c, 1501);
        CinnVar x = ct_input(&c, "x", CT_SHP(2, 3, 4, 5), 8, NULL);
        int64_t perm[4] = {0, 3, 1, 2};
        CinnVar y = fe_cinn_transpose(c.b, x, perm, 4, "y");
        int32_t want[120];
        for (int b = 0; b < 2; b++)
            for (int i = 0; i < 5; i++)
                for (int j = 0; j < 3; j++)
                    for (int k = 0; k < 4; k++)
                        want[((b * 5 + i) * 3 + j) * 4 + k] = ct_in(&c, 0)[((b * 3 + j) * 4 + k) * 5 + i];
        ct_output(&c, y, want);
        ct_check(&c, "Transpose");
        ct_end(&c);
    }
}

static void test_reverse_slice(void **state)
{
    (void)state;
    static const struct {
        uint32_t n;
        int64_t ax[2];
    } rev[] = {{1, {2}}, {2, {1, 2}}, {1, {-2}}, {0, {0}}};
    for (size_t r = 0; r < sizeof rev / sizeof *rev; r++) {
        CtCase c;
        ct_begin(&c, 1600 + r);
        CinnVar x = ct_input(&c, "x", CT_SHP(2, 3, 5), 8, NULL);
        CinnVar y = fe_cinn_reverse(c.b, x, rev[r].ax, rev[r].n, "y");
        bool flip[3] = {false, false, false};
        for (uint32_t i = 0; i < rev[r].n; i++)
            flip[rev[r].ax[i] < 0 ? rev[r].ax[i] + 3 : rev[r].ax[i]] = true;
        int32_t want[30];
        for (int b = 0; b < 2; b++)
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 5; j++)
                    want[(b * 3 + i) * 5 + j] =
                        ct_in(&c, 0)[(b * 3 + (flip[1] ? 2 - i : i)) * 5 + (flip[2] ? 4 - j : j)];
        ct_output(&c, y, want);
        char what[32];
        snprintf(what, sizeof what, "Reverse case %zu", r);
        ct_check(&c, what);
        ct_end(&c);
    }
    {
        CtCase c;
        ct_begin(&c, 1610);
        CinnVar x = ct_input(&c, "x", CT_SHP(2, 6, 7), 8, NULL);
        int64_t axes[2] = {2, 1}, starts[2] = {3, 1}, ends[2] = {7, 4};
        CinnVar y = fe_cinn_slice(c.b, x, axes, starts, ends, 2, "y");
        int32_t want[24];
        for (int b = 0; b < 2; b++)
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 4; j++)
                    want[(b * 3 + i) * 4 + j] = ct_in(&c, 0)[(b * 6 + 1 + i) * 7 + 3 + j];
        ct_output(&c, y, want);
        ct_check(&c, "Slice");
        ct_end(&c);
    }
}

/* ConstScalar: int and bool values, in arithmetic and as a whole output. */
static void test_const_scalar(void **state)
{
    (void)state;
    CtCase c;
    ct_begin(&c, 1700);
    CinnVar x = ct_input(&c, "x", CT_SHP(1, 8), 8, NULL);
    CinnVar k = fe_cinn_const_scalar(c.b, -1234567, "k");
    CinnVar t = fe_cinn_const_scalar(c.b, 1, "t");
    CinnVar y = fe_cinn_add(c.b, x, k, "y");
    CinnVar z = fe_cinn_mul(c.b, x, t, "z");
    int32_t want[8];
    for (int i = 0; i < 8; i++)
        want[i] = ct_in(&c, 0)[i] - 1234567;
    ct_output(&c, y, want);
    ct_output(&c, z, ct_in(&c, 0));
    assert_int_equal(fe_cinn_var_prec(c.b, k), 22);
    ct_check(&c, "ConstScalar");
    ct_end(&c);
}

/* The primitives this file covers went the whole way (test_cinn_ew covers the rest). */
static bool structural(CinnPrim p)
{
    static const CinnPrim mine[] = {CINN_P_Input, CINN_P_Constant, CINN_P_Output,
                                    CINN_P_ConstScalar, CINN_P_Dot, CINN_P_BroadcastTo,
                                    CINN_P_Concat, CINN_P_Conv, CINN_P_Reduce, CINN_P_Reshape,
                                    CINN_P_Reverse, CINN_P_Slice, CINN_P_Transpose};
    for (size_t i = 0; i < sizeof mine / sizeof *mine; i++)
        if (p == mine[i])
            return true;
    return false;
}

static void test_coverage(void **state)
{
    (void)state;
    ct_expect_covered(structural);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv),
        cmocka_unit_test(test_dot),
        cmocka_unit_test(test_reduce),
        cmocka_unit_test(test_broadcast_to),
        cmocka_unit_test(test_concat),
        cmocka_unit_test(test_reshape_transpose),
        cmocka_unit_test(test_reverse_slice),
        cmocka_unit_test(test_const_scalar),
        cmocka_unit_test(test_coverage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
