/* test_diff_ops.c: every CVM operator over the test-parameter grids of the CVM formalization, with
 * random inputs inside their precision: the reference interpreter and the simulator on the
 * lowered TaskGraph agree bit for bit (difftest.h).
 *
 * The 4-D grid of the CVM formalization is X.shape = (i, j, l, r), i = {1}, j = {1, 14, 27, 40, 53,
 * 66, 79, 92}, l = {1, 18, 35, 52, 69, 86}, r = {1, 24, 47, 70, 93}. The eight cases below use
 * every listed value of every dim at least once (large values paired with small ones to
 * keep the run short); two-input operators pair each case with a second shape that
 * broadcasts against it (each dim equal or 1, or fewer dims). DIFF_QUICK=1 runs three cases.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "difftest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int64_t grid[8][4] = {
    {1, 1, 86, 93}, {1, 14, 69, 70}, {1, 27, 52, 47}, {1, 40, 35, 24},
    {1, 53, 18, 1}, {1, 66, 1, 93},  {1, 79, 18, 70}, {1, 92, 1, 47},
};

static int ncases(void)
{
    return dt_quick() ? 3 : 8;
}

static const int64_t *gcase(int k)
{
    static const int quick[3] = {0, 4, 7};
    return grid[dt_quick() ? quick[k] : k];
}

/* One unary operator over the grid, input precision p. */
static void unary(CvmOp op, int32_t p, const char *const *kv, uint64_t seed)
{
    DtRng r = {seed};
    for (int k = 0; k < ncases(); k++) {
        DtModel m;
        dt_begin(&m, &r);
        int32_t x = dt_input(&m, "data", 4, gcase(k), p);
        dt_op(&m, op, "op", DT_INS(x), kv);
        char what[96];
        snprintf(what, sizeof what, "%s case %d (p=%d)", cvm_op_name(op), k, (int)p);
        dt_check(&m, what);
        dt_end(&m);
    }
}

/* The second operand's shape for case k: each dim equal or 1, or the trailing dims only. */
static uint32_t partner(int k, const int64_t *x, int64_t *y)
{
    switch (k % 4) {
    case 0: /* same shape */
        memcpy(y, x, 4 * sizeof *y);
        return 4;
    case 1: /* per-channel (1, j, 1, 1) */
        y[0] = 1, y[1] = x[1], y[2] = 1, y[3] = 1;
        return 4;
    case 2: /* trailing dims (1, l, r) */
        y[0] = 1, y[1] = x[2], y[2] = x[3];
        return 3;
    default: /* (1, 1, l, 1) */
        y[0] = 1, y[1] = 1, y[2] = x[2], y[3] = 1;
        return 4;
    }
}

/* A binary operator over the grid: both computed, then the second a parameter, then swapped
 * broadcasting (the smaller operand first). */
static void binary(CvmOp op, int32_t pa, int32_t pb, bool same_shape, uint64_t seed)
{
    DtRng r = {seed};
    for (int k = 0; k < ncases(); k++) {
        const int64_t *xs = gcase(k);
        int64_t ys[4];
        uint32_t yn = same_shape ? (memcpy(ys, xs, sizeof ys), 4) : partner(k, xs, ys);
        for (int variant = 0; variant < 3; variant++) {
            if (same_shape && variant == 2)
                continue;
            DtModel m;
            dt_begin(&m, &r);
            int32_t a = dt_input(&m, "data", 4, xs, pa), b;
            if (variant == 1 && yn == 3) /* a parameter of fewer dims: (l, r) */
                b = dt_const(&m, "b", 2, ys + 1, pb, NULL);
            else if (variant == 1)
                b = dt_const(&m, "b", yn, ys, pb, NULL);
            else
                b = dt_input(&m, "data2", yn, ys, pb);
            if (variant == 2)
                dt_op(&m, op, "op", DT_INS(b, a), NULL);
            else
                dt_op(&m, op, "op", DT_INS(a, b), NULL);
            char what[128];
            snprintf(what, sizeof what, "%s case %d variant %d", cvm_op_name(op), k, variant);
            dt_check(&m, what);
            dt_end(&m);
        }
    }
}

/* ---- nn ---- */

static void test_conv2d(void **state)
{
    (void)state;
    /* the CVM formalization gives no grid for conv2d: channels, kernel, padding, stride, dilation,
     * groups (plain, grouped, depthwise), bias, and a batch of 2. */
    static const struct {
        int64_t n, c, h, w, oc, kh, kw, g;
        const char *pad, *stride, *dil;
        bool bias;
    } cs[] = {
        {1, 3, 8, 8, 4, 3, 3, 1, "(1, 1)", "(1, 1)", "(1, 1)", true},
        {1, 1, 28, 28, 6, 5, 5, 1, "(0, 0)", "(1, 1)", "(1, 1)", false},
        {1, 4, 9, 7, 8, 3, 2, 2, "(2, 1)", "(2, 3)", "(1, 2)", true},
        {1, 6, 10, 10, 6, 3, 3, 6, "(1, 1)", "(1, 1)", "(1, 1)", true},
        {2, 5, 6, 6, 3, 1, 1, 1, "(0, 0)", "(1, 1)", "(1, 1)", true},
        {3, 4, 7, 5, 4, 3, 3, 4, "(1, 1)", "(2, 2)", "(2, 1)", false},
        {1, 8, 5, 5, 16, 2, 2, 8, "(0, 1)", "(1, 1)", "(1, 1)", true},
        {1, 2, 1, 1, 3, 1, 1, 1, "(0, 0)", "(1, 1)", "(1, 1)", true},
    };
    DtRng r = {11};
    for (size_t k = 0; k < sizeof cs / sizeof *cs; k++) {
        DtModel m;
        dt_begin(&m, &r);
        int32_t x = dt_input(&m, "data", DT_ND(cs[k].n, cs[k].c, cs[k].h, cs[k].w), 8);
        int32_t w = dt_const(&m, "w", DT_ND(cs[k].oc, cs[k].c / cs[k].g, cs[k].kh, cs[k].kw),
                             8, NULL);
        int32_t b = cs[k].bias ? dt_const(&m, "b", DT_ND(cs[k].oc), 12, NULL) : -1;
        char ch[16], ks[32], g[16];
        snprintf(ch, sizeof ch, "%lld", (long long)cs[k].oc);
        snprintf(ks, sizeof ks, "(%lld, %lld)", (long long)cs[k].kh, (long long)cs[k].kw);
        snprintf(g, sizeof g, "%lld", (long long)cs[k].g);
        const char *const kv[] = {"channels", ch, "kernel_size", ks, "padding", cs[k].pad,
                                  "strides", cs[k].stride, "dilation", cs[k].dil, "groups", g,
                                  "use_bias", cs[k].bias ? "true" : "false", NULL};
        int32_t ins[3] = {x, w, b};
        dt_op(&m, CVM_OP_conv2d, "conv1", ins, cs[k].bias ? 3 : 2, kv);
        char what[64];
        snprintf(what, sizeof what, "conv2d case %zu", k);
        dt_check(&m, what);
        dt_end(&m);
    }
}

static void test_dense(void **state)
{
    (void)state;
    /* X (i, j), i = {1, 14, 27}, j = {1, 12, 23}; W (k, j), k = {1, 18}; use_bias false.
     * i is the batch: 14 and 27 run 14 and 27 samples. */
    static const int64_t I[] = {1, 14, 27}, J[] = {1, 12, 23}, K[] = {1, 18};
    DtRng r = {12};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            for (int c = 0; c < 2; c++)
                for (int bias = 0; bias < 2; bias++) {
                    if (dt_quick() && (a + b + c + bias) % 3)
                        continue;
                    DtModel m;
                    dt_begin(&m, &r);
                    int32_t x = dt_input(&m, "data", DT_ND(I[a], J[b]), 8);
                    int32_t w = dt_const(&m, "w", DT_ND(K[c], J[b]), 8, NULL);
                    char u[16];
                    snprintf(u, sizeof u, "%lld", (long long)K[c]);
                    if (bias) {
                        int32_t bb = dt_const(&m, "b", DT_ND(K[c]), 20, NULL);
                        dt_op(&m, CVM_OP_dense, "fc", DT_INS(x, w, bb), DT_KV("units", u));
                    } else {
                        dt_op(&m, CVM_OP_dense, "fc", DT_INS(x, w),
                              DT_KV("units", u, "use_bias", "false"));
                    }
                    char what[64];
                    snprintf(what, sizeof what, "dense %lldx%lld units %lld bias %d",
                             (long long)I[a], (long long)J[b], (long long)K[c], bias);
                    dt_check(&m, what);
                    dt_end(&m);
                }
}

static void test_relu(void **state)
{
    (void)state;
    unary(CVM_OP_relu, 8, NULL, 13);
    unary(CVM_OP_relu, 32, NULL, 14);
}

static void test_max_pool2d(void **state)
{
    (void)state;
    /* pool_size (1, 2) over the grid (a width of 1 only fits a (1, 1) window) */
    DtRng r0 = {15};
    for (int k = 0; k < ncases(); k++) {
        DtModel m;
        dt_begin(&m, &r0);
        int32_t x = dt_input(&m, "data", 4, gcase(k), 8);
        dt_op(&m, CVM_OP_max_pool2d, "pool", DT_INS(x),
              DT_KV("pool_size", gcase(k)[3] >= 2 ? "(1, 2)" : "(1, 1)"));
        char what[64];
        snprintf(what, sizeof what, "max_pool2d case %d", k);
        dt_check(&m, what);
        dt_end(&m);
    }
    /* padding, strides and ceil_mode on a smaller tensor (in ceil mode the last window may
     * hang over the edge, but starts inside the input: cvm-runtime refuses any other) */
    static const char *const opts[][3] = {
        {"(3, 3)", "(2, 2)", "(1, 1)"}, {"(2, 3)", "(2, 1)", "(0, 1)"},
        {"(3, 2)", "(3, 2)", "(0, 1)"}, {"(2, 2)", "(1, 1)", "1"},
    };
    DtRng r = {16};
    for (int k = 0; k < 4; k++)
        for (int ceil = 0; ceil < 2; ceil++) {
            DtModel m;
            dt_begin(&m, &r);
            int32_t x = dt_input(&m, "data", DT_ND(1, 3, 11, 10), 8);
            dt_op(&m, CVM_OP_max_pool2d, "pool", DT_INS(x),
                  DT_KV("pool_size", opts[k][0], "strides", opts[k][1], "padding", opts[k][2],
                        "ceil_mode", ceil ? "true" : "false"));
            char what[64];
            snprintf(what, sizeof what, "max_pool2d option %d ceil %d", k, ceil);
            dt_check(&m, what);
            dt_end(&m);
        }
}

/* A batch of 1 whose sample holds several images along axis 0 (an ONNX tensor [N, C, H, W]
 * is one sample): conv2d computes each image (and group) on its own, max_pool2d all images'
 * channels in one block; an elementwise consumer reads the result. (These were refused
 * [lower.batch], and the ONNX frontend sliced the images apart at great cost.) */
static void test_images_in_one_sample(void **state)
{
    (void)state;
    static const struct {
        int64_t n, c, h, w, oc, g;
        bool bias;
    } cs[] = {
        {3, 2, 5, 4, 4, 1, true},
        {2, 4, 6, 6, 6, 2, false},
        {4, 3, 3, 7, 3, 3, true},
        {2, 1, 1, 1, 2, 1, false},
    };
    DtRng r = {45};
    for (size_t k = 0; k < sizeof cs / sizeof *cs; k++)
        for (int op = 0; op < 2; op++) {
            DtModel m;
            dt_begin(&m, &r);
            int32_t x = dt_input(&m, "data", DT_ND(1, cs[k].n, cs[k].c, cs[k].h, cs[k].w), 8);
            char shp[64];
            snprintf(shp, sizeof shp, "(%lld, %lld, %lld, %lld)", (long long)cs[k].n,
                     (long long)cs[k].c, (long long)cs[k].h, (long long)cs[k].w);
            int32_t y = dt_op(&m, CVM_OP_reshape, "images", DT_INS(x), DT_KV("shape", shp));
            int32_t z;
            if (op == 0) {
                int32_t w = dt_const(&m, "w", DT_ND(cs[k].oc, cs[k].c / cs[k].g, 3, 3), 8, NULL);
                int32_t b = cs[k].bias ? dt_const(&m, "b", DT_ND(cs[k].oc), 12, NULL) : -1;
                char ch[16], g[16];
                snprintf(ch, sizeof ch, "%lld", (long long)cs[k].oc);
                snprintf(g, sizeof g, "%lld", (long long)cs[k].g);
                const char *const kv[] = {"channels", ch, "kernel_size", "(3, 3)",
                                          "padding", "(1, 1)", "groups", g,
                                          "use_bias", cs[k].bias ? "true" : "false", NULL};
                int32_t ins[3] = {y, w, b};
                z = dt_op(&m, CVM_OP_conv2d, "conv", ins, cs[k].bias ? 3 : 2, kv);
            } else {
                z = dt_op(&m, CVM_OP_max_pool2d, "pool", DT_INS(y),
                          DT_KV("pool_size", "(3, 3)", "strides", "(2, 1)", "padding",
                                k % 2 ? "(1, 1)" : "(2, 1)", "ceil_mode", k % 2 ? "true" : "false"));
            }
            dt_op(&m, CVM_OP_relu, "relu", DT_INS(z), NULL);
            char what[64];
            snprintf(what, sizeof what, "%s over %lld images, case %zu",
                     op ? "max_pool2d" : "conv2d", (long long)cs[k].n, k);
            dt_check(&m, what);
            dt_end(&m);
        }
}

static void test_upsampling(void **state)
{
    (void)state;
    unary(CVM_OP_upsampling, 8, DT_KV("scale", "2"), 17);
}

/* An upsampling alone is written as one edge per destination pixel while that takes at most
 * 4096 edges (the existing tools refuse a SCALE step: docs/formats.md), else as a SCALE. */
static void test_upsampling_written(void **state)
{
    (void)state;
    static const struct {
        int64_t shape[4];
        bool scale;
    } cs[] = {{{1, 3, 4, 5}, false}, {{1, 2, 32, 32}, false}, {{1, 2, 33, 32}, true}};
    DtRng r = {29};
    for (size_t k = 0; k < sizeof cs / sizeof *cs; k++) {
        DtModel m;
        dt_begin(&m, &r);
        int32_t x = dt_input(&m, "data", 4, cs[k].shape, 8);
        dt_op(&m, CVM_OP_upsampling, "up", DT_INS(x), DT_KV("scale", "2"));
        char what[64];
        snprintf(what, sizeof what, "upsampling case %zu", k);
        dt_check(&m, what);
        int64_t pixels = cs[k].shape[2] * 2 * cs[k].shape[3] * 2;
        if (cs[k].scale) {
            assert_int_equal(m.steps[RT_SCALE], 1);
        } else {
            assert_int_equal(m.steps[RT_SCALE], 0);
            assert_true(m.edges >= pixels);
        }
        dt_end(&m);
    }
}

/* ---- vision: data-dependent; all-constant inputs fold at compile time ---- */

static void test_vision_folded(void **state)
{
    (void)state;
    DtRng r = {18};
    DtModel m;
    dt_begin(&m, &r);
    int32_t x = dt_input(&m, "data", DT_ND(1, 3, 4), 8);
    int32_t boxes = dt_const(&m, "boxes", DT_ND(1, 5, 6), 8,
                             (const int32_t[]){0, 90, 1, 1, 10, 10, 0, 80, 2, 2, 11, 11,
                                               1, 70, 5, 5, 9, 9, -1, 10, 0, 0, 1, 1,
                                               1, 60, 20, 20, 30, 30});
    int32_t gvc = dt_op(&m, CVM_OP_get_valid_counts, "gvc", DT_INS(boxes),
                        DT_KV("score_threshold", "50"));
    OgEdge e[2] = {{gvc, 0}, {gvc, 1}};
    OgNode *nms;
    CvmKV attrs[1] = {{"iou_threshold", "50"}};
    OgEdge in2[2] = {e[1], e[0]};
    assert_int_equal(fe_cvm_add_op(m.g, CVM_OP_non_max_suppression, "nms", in2, 2, attrs, 1,
                                   &nms, &m.d), ST_OK);
    /* the model output mixes the folded result with the input: y = x + sum(nms) */
    int32_t s = dt_op(&m, CVM_OP_sum, "s", DT_INS(nms->id), NULL);
    int32_t rs = dt_op(&m, CVM_OP_cvm_right_shift, "rs", DT_INS(s),
                       DT_KV("precision", "8", "shift_bit", "4"));
    dt_op(&m, CVM_OP_broadcast_add, "y", DT_INS(x, rs), NULL);
    dt_check(&m, "vision folded");
    dt_end(&m);
}

/* ---- elementwise ---- */

static void test_abs(void **state)
{
    (void)state;
    unary(CVM_OP_abs, 8, NULL, 21);      /* CLUT */
    unary(CVM_OP_abs, 32, NULL, 22);     /* max(x, -x) */
}

static void test_negative(void **state)
{
    (void)state;
    unary(CVM_OP_negative, 32, NULL, 23);
}

static void test_cvm_precision(void **state)
{
    (void)state;
    unary(CVM_OP_cvm_precision, 8, NULL, 24);   /* CLUT */
    unary(CVM_OP_cvm_precision, 16, NULL, 25);  /* CLUT, the largest table */
    unary(CVM_OP_cvm_precision, 24, NULL, 26);  /* comparisons */
}

static void test_elemwise_add(void **state)
{
    (void)state;
    binary(CVM_OP_elemwise_add, 8, 8, true, 27);
    binary(CVM_OP_elemwise_add, 31, 31, true, 28);
}

static void test_elemwise_sub(void **state)
{
    (void)state;
    binary(CVM_OP_elemwise_sub, 8, 30, true, 29);
}

static void test_clip(void **state)
{
    (void)state;
    unary(CVM_OP_clip, 8, DT_KV("a_max", "10", "a_min", "-19"), 31);
    unary(CVM_OP_clip, 20, DT_KV("a_max", "127", "a_min", "0"), 32);
}

static void test_cvm_clip(void **state)
{
    (void)state;
    unary(CVM_OP_cvm_clip, 8, DT_KV("precision", "2"), 33);
    unary(CVM_OP_cvm_clip, 12, DT_KV("precision", "5"), 34);
    unary(CVM_OP_cvm_clip, 32, DT_KV("precision", "31"), 35);
}

static void test_cvm_left_shift(void **state)
{
    (void)state;
    unary(CVM_OP_cvm_left_shift, 8, DT_KV("precision", "2", "shift_bit", "2"), 36);
    unary(CVM_OP_cvm_left_shift, 8, DT_KV("precision", "16", "shift_bit", "7"), 37);
    unary(CVM_OP_cvm_left_shift, 1, DT_KV("precision", "3", "shift_bit", "31"), 38);
}

static void test_cvm_right_shift(void **state)
{
    (void)state;
    unary(CVM_OP_cvm_right_shift, 8, DT_KV("precision", "2", "shift_bit", "2"), 41);
    /* every shift and the wide paths (precision 32 input: s = 1 and s >= 2; s = 32) */
    static const int32_t P[] = {8, 20, 31, 32};
    DtRng r = {42};
    for (int pi = 0; pi < 4; pi++)
        for (int s = 1; s <= 32; s++) {
            if (dt_quick() && s % 5 && s != 1 && s != 32)
                continue;
            DtModel m;
            dt_begin(&m, &r);
            int32_t x = dt_input(&m, "data", DT_ND(1, 3, 5, 7), P[pi]);
            char sb[8], pb[8];
            snprintf(sb, sizeof sb, "%d", s);
            snprintf(pb, sizeof pb, "%d", 1 + (s * 7 + pi) % 32);
            dt_op(&m, CVM_OP_cvm_right_shift, "rs", DT_INS(x),
                  DT_KV("precision", pb, "shift_bit", sb));
            char what[64];
            snprintf(what, sizeof what, "cvm_right_shift P=%d s=%d p=%s", (int)P[pi], s, pb);
            dt_check(&m, what);
            dt_end(&m);
        }
}

static void test_cvm_lut(void **state)
{
    (void)state;
    DtRng r = {43};
    for (int k = 0; k < ncases(); k++) {
        static const int32_t P[] = {4, 8, 12, 20};
        DtModel m;
        dt_begin(&m, &r);
        int32_t x = dt_input(&m, "data", 4, gcase(k), P[k % 4]);
        int32_t t = dt_const(&m, "table", DT_ND(100 + k * 7), 9, NULL);
        char dim[16];
        snprintf(dim, sizeof dim, "%d", 100 + k * 7);
        dt_op(&m, CVM_OP_cvm_lut, "lut", DT_INS(x, t), DT_KV("in_dim", dim));
        char what[64];
        snprintf(what, sizeof what, "cvm_lut case %d", k);
        dt_check(&m, what);
        dt_end(&m);
    }
    /* constant indices into a computed table: data movement */
    DtModel m;
    dt_begin(&m, &r);
    int32_t tab = dt_input(&m, "data", DT_ND(1, 40), 8);
    int32_t idx = dt_const(&m, "idx", DT_ND(3, 5), 8,
                           (const int32_t[]){0, 39, 5, -3, 100, 7, 7, 7, 1, 2, 3, 4, 5, 6, 38});
    dt_op(&m, CVM_OP_cvm_lut, "lut", DT_INS(idx, tab), DT_KV("in_dim", "40"));
    dt_check(&m, "cvm_lut constant indices");
    dt_end(&m);
}

/* ---- broadcast ---- */

static void test_broadcast_add(void **state)
{
    (void)state;
    binary(CVM_OP_broadcast_add, 8, 8, false, 51);
}

static void test_broadcast_sub(void **state)
{
    (void)state;
    binary(CVM_OP_broadcast_sub, 8, 16, false, 52);
}

static void test_broadcast_mul(void **state)
{
    (void)state;
    binary(CVM_OP_broadcast_mul, 8, 8, false, 53);
}

static void test_broadcast_max(void **state)
{
    (void)state;
    binary(CVM_OP_broadcast_max, 8, 32, false, 54);
}

static void test_broadcast_div(void **state)
{
    (void)state;
    binary(CVM_OP_broadcast_div, 9, 7, false, 55);
    /* a constant scalar divisor: a table over the dividend alone */
    DtRng r = {56};
    DtModel m;
    dt_begin(&m, &r);
    int32_t x = dt_input(&m, "data", DT_ND(1, 4, 9, 9), 16);
    int32_t c = dt_const(&m, "c", DT_ND(1), 8, (const int32_t[]){-7});
    dt_op(&m, CVM_OP_broadcast_div, "div", DT_INS(x, c), NULL);
    dt_check(&m, "broadcast_div scalar");
    dt_end(&m);
}

/* a / b elementwise for the n values va, vb as two computed operands of shape (1, rows, n /
 * rows) and precision p (through a relu when relu_a / relu_b: known >= 0 to the lowering):
 * the result must be C's truncating division of the relu'd values (0 for b == 0). Returns
 * the number of blocks. */
static uint32_t div_check(int32_t p, int32_t pb, const int32_t *va, const int32_t *vb,
                          int64_t rows, int64_t n, bool relu_a, bool relu_b, const char *what)
{
    int32_t *want = malloc((size_t)n * sizeof *want);
    assert_non_null(want);
    for (int64_t i = 0; i < n; i++) {
        int32_t a = relu_a && va[i] < 0 ? 0 : va[i], b = relu_b && vb[i] < 0 ? 0 : vb[i];
        want[i] = b ? a / b : 0;
    }
    DtRng r = {59};
    DtModel m;
    dt_begin(&m, &r);
    int32_t a = dt_input(&m, "data", DT_ND(1, rows, n / rows), p);
    int32_t b = dt_input(&m, "data2", DT_ND(1, rows, n / rows), pb);
    dt_set_input(&m, 0, va);
    dt_set_input(&m, 1, vb);
    if (relu_a)
        a = dt_op(&m, CVM_OP_relu, "ra", DT_INS(a), NULL);
    if (relu_b)
        b = dt_op(&m, CVM_OP_relu, "rb", DT_INS(b), NULL);
    dt_op(&m, CVM_OP_broadcast_div, "div", DT_INS(a, b), NULL);
    dt_check_expect(&m, what, want, n);
    uint32_t blocks = dt_check(&m, what);
    dt_end(&m);
    free(want);
    return blocks;
}

/* Every pair (a, b) with a in [alo, ahi], b in [blo, bhi] (div_check; b of precision pb). */
static uint32_t div_pairs(int32_t p, int32_t pb, int32_t alo, int32_t ahi, int32_t blo,
                          int32_t bhi, bool relu_a, bool relu_b, const char *what)
{
    int64_t na = ahi - alo + 1, nb = bhi - blo + 1, n = na * nb;
    int32_t *va = malloc((size_t)n * sizeof *va), *vb = malloc((size_t)n * sizeof *vb);
    assert_true(va && vb);
    for (int64_t i = 0; i < n; i++) {
        va[i] = alo + (int32_t)(i / nb);
        vb[i] = blo + (int32_t)(i % nb);
    }
    uint32_t blocks = div_check(p, pb, va, vb, na, n, relu_a, relu_b, what);
    free(va), free(vb);
    return blocks;
}

/* Operands whose precisions sum past 16 but whose magnitudes fit 16 bits together: the
 * sign-magnitude split (docs/lowering.md section 4), exhaustively at precision 9 (uint8 and
 * int8 values, ONNX's Div), cheaper when a sign is known; and at precision 8, whose one
 * table would hold 2^16 int32 quotients. */
static void test_broadcast_div_signmag(void **state)
{
    (void)state;
    binary(CVM_OP_broadcast_div, 9, 9, false, 57);
    binary(CVM_OP_broadcast_div, 12, 6, false, 58);
    uint32_t all = div_pairs(9, 9, -255, 255, -255, 255, false, false, "div 9x9 all pairs");
    uint32_t u8 = div_pairs(9, 9, 0, 255, 0, 255, true, true, "div relu 9x9 (uint8 values)");
    uint32_t half = div_pairs(9, 9, 0, 255, -255, 255, true, false, "div relu(a) 9x9");
    /* a known sign drops its magnitude and sign tables */
    assert_true(u8 < half && half < all);
    /* precisions 9 and 7 fit one table of a * 2^7 + b, but its 2^16 quotients reach 255
     * (-255 / -1): int32 entries, 256 KiB on the chip; the split's table of |a| / |b| holds
     * 0 .. 255 (docs/lowering.md, broadcast_div). 9 and 3 keep the one table of 4096. */
    uint32_t one = div_pairs(9, 3, -255, 255, -3, 3, false, false, "div 9x3 all pairs");
    uint32_t split = div_pairs(9, 7, -255, 255, -63, 63, false, false, "div 9x7 all pairs");
    assert_true(split > one);
}

/* Every pair (va[i], vb[j]) (div_check). */
static uint32_t div_lists(int32_t p, const int32_t *va, int na, const int32_t *vb, int nb,
                          bool relu_b, const char *what)
{
    int n = na * nb;
    int32_t *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    assert_true(a && b);
    for (int i = 0; i < n; i++) {
        a[i] = va[i / nb];
        b[i] = vb[i % nb];
    }
    uint32_t blocks = div_check(p, p, a, b, na, n, false, relu_b, what);
    free(a), free(b);
    return blocks;
}

/* Operands too wide for tables (they were [lower.precision]): the restoring division
 * (docs/lowering.md section 4), over the CVM formalization's grids and on the extremes of int32. */
static void test_broadcast_div_wide(void **state)
{
    (void)state;
    binary(CVM_OP_broadcast_div, 12, 8, false, 60);
    if (!dt_quick())
        binary(CVM_OP_broadcast_div, 32, 20, false, 62);
    const int32_t va[] = {INT32_MAX, -INT32_MAX, 0, 1, -1, 12345678, -7, 65536, 46340};
    const int32_t vb[] = {1, -1, 0, INT32_MAX, -INT32_MAX, 3, -65536, 46341, 2, -7};
    uint32_t all = div_lists(32, va, 9, vb, 10, false, "div 32x32 extremes");
    uint32_t pos = div_lists(32, va, 9, vb, 10, true, "div 32 by relu(32)");
    assert_true(pos < all);   /* a divisor known >= 0 needs no magnitude of its own */
    if (getenv("DIFF_VERBOSE"))
        fprintf(stderr, "restoring division 32 / 32: %u blocks (%u for a divisor >= 0)\n",
                all, pos);
}

static void test_broadcast_greater(void **state)
{
    (void)state;
    binary(CVM_OP_broadcast_greater, 8, 31, false, 57);
}

/* ---- reduce ---- */

static void test_sum(void **state)
{
    (void)state;
    unary(CVM_OP_sum, 8, DT_KV("axis", "(1, )"), 61);
    DtRng r = {62};
    static const char *const axes[][3] = {
        {"(2, 3)", "false", "false"}, {"(1, 3)", "true", "false"}, {"(1,)", "false", "true"},
        {"()", "false", "false"},     {"(-1)", "true", "false"}, {"(0, 1, 2, 3)", "false", "true"},
    };
    for (int k = 0; k < 6; k++) {
        DtModel m;
        dt_begin(&m, &r);
        int32_t x = dt_input(&m, "data", DT_ND(1, 5, 6, 7), 8);
        dt_op(&m, CVM_OP_sum, "sum", DT_INS(x),
              DT_KV("axis", axes[k][0], "keepdims", axes[k][1], "exclude", axes[k][2]));
        char what[64];
        snprintf(what, sizeof what, "sum axes %s keepdims %s exclude %s", axes[k][0],
                 axes[k][1], axes[k][2]);
        dt_check(&m, what);
        dt_end(&m);
    }
}

static void test_max(void **state)
{
    (void)state;
    unary(CVM_OP_max, 8, NULL, 63);
    unary(CVM_OP_max, 16, DT_KV("axis", "(1, 3)", "keepdims", "true"), 64);
}

/* ---- transform ---- */

static void test_repeat(void **state)
{
    (void)state;
    unary(CVM_OP_repeat, 8, DT_KV("repeats", "2"), 71);
    unary(CVM_OP_repeat, 8, DT_KV("repeats", "3", "axis", "-1"), 72);
    unary(CVM_OP_repeat, 8, DT_KV("repeats", "2", "axis", "2"), 73);
}

static void test_tile(void **state)
{
    (void)state;
    unary(CVM_OP_tile, 8, DT_KV("reps", "(2, 2, 3)"), 74);
}

static void test_flatten(void **state)
{
    (void)state;
    unary(CVM_OP_flatten, 8, NULL, 75);
}

static void test_reshape(void **state)
{
    (void)state;
    /* shape (r, l, j, i) */
    DtRng r = {76};
    for (int k = 0; k < ncases(); k++) {
        const int64_t *s = gcase(k);
        char shp[64];
        snprintf(shp, sizeof shp, "(%lld, %lld, %lld, %lld)", (long long)s[3], (long long)s[2],
                 (long long)s[1], (long long)s[0]);
        DtModel m;
        dt_begin(&m, &r);
        int32_t x = dt_input(&m, "data", 4, s, 8);
        int32_t y = dt_op(&m, CVM_OP_reshape, "reshape", DT_INS(x), DT_KV("shape", shp));
        dt_op(&m, CVM_OP_negative, "neg", DT_INS(y), NULL);
        char what[64];
        snprintf(what, sizeof what, "reshape case %d", k);
        dt_check(&m, what);
        dt_end(&m);
    }
}

static void test_squeeze(void **state)
{
    (void)state;
    unary(CVM_OP_squeeze, 8, NULL, 77);
}

static void test_expand_dims(void **state)
{
    (void)state;
    unary(CVM_OP_expand_dims, 8, DT_KV("axis", "2"), 78);
}

static void test_transpose(void **state)
{
    (void)state;
    unary(CVM_OP_transpose, 8, NULL, 79);
    unary(CVM_OP_transpose, 8, DT_KV("axes", "(0, 2, 3, 1)"), 80);
}

static void test_strided_slice(void **state)
{
    (void)state;
    unary(CVM_OP_strided_slice, 8, DT_KV("begin", "(0, 0, 0, 0)", "end", "(1, 7, 9, 11)"), 81);
    unary(CVM_OP_strided_slice, 8,
          DT_KV("begin", "(0, -1, -1, -1)", "end", "(1, -100, -100, -100)",
                "stride", "(1, -1, -2, -1)"), 83);
    /* begins past 0 with strides 2 and 3 where the dims allow */
    DtRng r = {82};
    for (int k = 0; k < ncases(); k++) {
        const int64_t *s = gcase(k);
        char b[64];
        snprintf(b, sizeof b, "(0, %d, %d)", s[1] > 1 ? 1 : 0, s[2] > 2 ? 2 : 0);
        DtModel m;
        dt_begin(&m, &r);
        int32_t x = dt_input(&m, "data", 4, s, 8);
        dt_op(&m, CVM_OP_strided_slice, "ss", DT_INS(x),
              DT_KV("begin", b, "end", "(1, 100, 100)", "stride", "(1, 2, 3)"));
        char what[64];
        snprintf(what, sizeof what, "strided_slice case %d", k);
        dt_check(&m, what);
        dt_end(&m);
    }
}

static void test_slice_like(void **state)
{
    (void)state;
    DtRng r = {84};
    for (int k = 0; k < ncases(); k++) {
        const int64_t *s = gcase(k);
        int64_t t[4] = {1, (s[1] + 1) / 2, s[2], (s[3] + 2) / 3};
        DtModel m;
        dt_begin(&m, &r);
        int32_t x = dt_input(&m, "data", 4, s, 8);
        int32_t y = dt_const(&m, "like", 4, t, 8, NULL);
        dt_op(&m, CVM_OP_slice_like, "sl", DT_INS(x, y), DT_KV("axis", k % 2 ? "(0, 1)" : "()"));
        char what[64];
        snprintf(what, sizeof what, "slice_like case %d", k);
        dt_check(&m, what);
        dt_end(&m);
    }
}

static void test_concatenate(void **state)
{
    (void)state;
    DtRng r = {85};
    for (int k = 0; k < ncases(); k++) {
        const int64_t *s = gcase(k);
        int axis = 1 + k % 3;
        int64_t t[4];
        memcpy(t, s, sizeof t);
        t[axis] = 1 + (s[axis] * 3) % 17;
        char ax[8];
        snprintf(ax, sizeof ax, "%d", axis);
        DtModel m;
        dt_begin(&m, &r);
        int32_t x = dt_input(&m, "data", 4, s, 8);
        int32_t y = k % 2 ? dt_const(&m, "c", 4, t, 8, NULL) : dt_input(&m, "data2", 4, t, 8);
        int32_t c = dt_op(&m, CVM_OP_concatenate, "cat", DT_INS(x, y, x), DT_KV("axis", ax));
        dt_op(&m, CVM_OP_relu, "r", DT_INS(c), NULL);
        char what[64];
        snprintf(what, sizeof what, "concatenate case %d axis %d", k, axis);
        dt_check(&m, what);
        dt_end(&m);
    }
}

static void test_take(void **state)
{
    (void)state;
    DtRng r = {86};
    for (int k = 0; k < ncases(); k++) {
        const int64_t *s = gcase(k);
        int32_t iv[6] = {0, 5, -2, 3, 3, 1000};
        DtModel m;
        dt_begin(&m, &r);
        int32_t x = dt_input(&m, "data", 4, s, 8);
        int32_t idx = dt_const(&m, "idx", DT_ND(2, 3), 12, iv);
        char ax[8];
        snprintf(ax, sizeof ax, "%d", 1 + k % 3);
        dt_op(&m, CVM_OP_take, "take", DT_INS(x, idx), DT_KV("axis", k == 5 ? "None" : ax));
        char what[64];
        snprintf(what, sizeof what, "take case %d", k);
        dt_check(&m, what);
        dt_end(&m);
    }
    /* a constant table indexed by computed indices: a CLUT */
    for (int p = 6; p <= 20; p += 14) {
        DtModel m;
        dt_begin(&m, &r);
        int32_t idx = dt_input(&m, "data", DT_ND(1, 4, 5, 6), p);
        int32_t tab = dt_const(&m, "table", DT_ND(50), 10, NULL);
        dt_op(&m, CVM_OP_take, "take", DT_INS(tab, idx), DT_KV("axis", "0"));
        dt_check(&m, p == 6 ? "take table p6" : "take table p20");
        dt_end(&m);
    }
}

static void test_where(void **state)
{
    (void)state;
    DtRng r = {87};
    for (int k = 0; k < ncases(); k++) {
        const int64_t *s = gcase(k);
        DtModel m;
        dt_begin(&m, &r);
        int32_t c = k % 3 == 2 ? dt_const(&m, "cond", 4, s, 2, NULL)
                               : dt_input(&m, "cond", 4, s, k % 3 ? 20 : 2);
        int32_t x = dt_input(&m, "data", 4, s, 32);
        int32_t y = k % 2 ? dt_const(&m, "y", 4, s, 8, NULL) : dt_input(&m, "data2", 4, s, 32);
        dt_op(&m, CVM_OP_where, "where", DT_INS(c, x, y), NULL);
        char what[64];
        snprintf(what, sizeof what, "where case %d", k);
        dt_check(&m, what);
        dt_end(&m);
    }
    /* a 1-D condition selecting rows (the batch) */
    DtModel m;
    dt_begin(&m, &r);
    int32_t c = dt_input(&m, "cond", DT_ND(3), 3);
    int32_t x = dt_input(&m, "data", DT_ND(3, 4, 5), 8);
    int32_t y = dt_input(&m, "data2", DT_ND(3, 4, 5), 8);
    dt_op(&m, CVM_OP_where, "where", DT_INS(c, x, y), NULL);
    dt_check(&m, "where rows");
    dt_end(&m);
    /* INT_32 operands at int32's ends: selected, not summed (docs/lowering.md, where), so
     * that the chip's analysis proves it exact; hand-checked */
    static const int32_t wc[6] = {1, 0, -3, 0, 1, 2};
    static const int32_t wx[6] = {INT32_MAX, -INT32_MAX, 5, 7, -INT32_MAX, 0};
    static const int32_t wy[6] = {-INT32_MAX, INT32_MAX, 9, -1, 3, INT32_MAX};
    static const int32_t want[6] = {INT32_MAX, INT32_MAX, 5, -1, -INT32_MAX, 0};
    dt_begin(&m, &r);
    c = dt_input(&m, "cond", DT_ND(1, 6), 3);
    x = dt_input(&m, "data", DT_ND(1, 6), 32);
    y = dt_input(&m, "data2", DT_ND(1, 6), 32);
    dt_set_input(&m, 0, wc);
    dt_set_input(&m, 1, wx);
    dt_set_input(&m, 2, wy);
    dt_op(&m, CVM_OP_where, "where", DT_INS(c, x, y), NULL);
    dt_check_expect(&m, "where int32 ends", want, 6);
    dt_end(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv2d),
        cmocka_unit_test(test_dense),
        cmocka_unit_test(test_relu),
        cmocka_unit_test(test_max_pool2d),
        cmocka_unit_test(test_images_in_one_sample),
        cmocka_unit_test(test_upsampling),
        cmocka_unit_test(test_upsampling_written),
        cmocka_unit_test(test_vision_folded),
        cmocka_unit_test(test_abs),
        cmocka_unit_test(test_negative),
        cmocka_unit_test(test_cvm_precision),
        cmocka_unit_test(test_elemwise_add),
        cmocka_unit_test(test_elemwise_sub),
        cmocka_unit_test(test_clip),
        cmocka_unit_test(test_cvm_clip),
        cmocka_unit_test(test_cvm_left_shift),
        cmocka_unit_test(test_cvm_right_shift),
        cmocka_unit_test(test_cvm_lut),
        cmocka_unit_test(test_broadcast_add),
        cmocka_unit_test(test_broadcast_sub),
        cmocka_unit_test(test_broadcast_mul),
        cmocka_unit_test(test_broadcast_max),
        cmocka_unit_test(test_broadcast_div),
        cmocka_unit_test(test_broadcast_div_signmag),
        cmocka_unit_test(test_broadcast_div_wide),
        cmocka_unit_test(test_broadcast_greater),
        cmocka_unit_test(test_sum),
        cmocka_unit_test(test_max),
        cmocka_unit_test(test_repeat),
        cmocka_unit_test(test_tile),
        cmocka_unit_test(test_flatten),
        cmocka_unit_test(test_reshape),
        cmocka_unit_test(test_squeeze),
        cmocka_unit_test(test_expand_dims),
        cmocka_unit_test(test_transpose),
        cmocka_unit_test(test_strided_slice),
        cmocka_unit_test(test_slice_like),
        cmocka_unit_test(test_concatenate),
        cmocka_unit_test(test_take),
        cmocka_unit_test(test_where),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
