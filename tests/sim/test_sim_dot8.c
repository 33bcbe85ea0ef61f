/* test_sim_dot8.c: the int8 dot-product path of the convolution kernel (taskir/sim_dot8.h).
 * The VNNI version against the plain C one on random shapes, odd channel counts (a masked
 * last vector) and the extreme values (bytes 0 / 255, weights -128 / 127, accumulators at
 * INT32_MIN / INT32_MAX, where the sums wrap); then CC and CC2D blocks run through the
 * simulator (which takes the VNNI path on int8 values where the CPU has it, the int32 path
 * otherwise or when a value is not an int8) against the loop nest of docs/semantics.md
 * computed here in int64 and wrapped. Skips the first part where the CPU has no VNNI. The
 * packing from int8 rows (sim_pack8_i8) against the one from int32 rows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "simtest.h"
#include "taskir/sim_dot8.h"

#define S(...) ((const int32_t[TIR_NDIMS]){__VA_ARGS__})

/* kind 0: random; 1: the largest products (x 255, w -128) on INT32_MAX; 2: x 255, w 127 on
 * INT32_MIN; 3: x 0 */
static void fill_case(StRng *r, int kind, uint8_t *x, int64_t nx, int8_t *w, int64_t nw,
                      uint32_t *acc, int64_t na, uint32_t *corr, int64_t nc)
{
    for (int64_t i = 0; i < nx; i++)
        x[i] = kind == 1 || kind == 2 ? 255 : kind == 3 ? 0 : (uint8_t)st_range(r, 0, 255);
    for (int64_t i = 0; i < nw; i++)
        w[i] = kind == 1 ? -128 : kind == 2 ? 127 : (int8_t)st_range(r, -128, 127);
    for (int64_t i = 0; i < na; i++)
        acc[i] = kind == 1 ? (uint32_t)INT32_MAX : kind == 2 ? (uint32_t)INT32_MIN : st_next(r);
    for (int64_t i = 0; i < nc; i++)
        corr[i] = st_next(r);
}

static void test_vnni_matches_c(void **state)
{
    (void)state;
    SimDot8Fn vnni = sim_dot8_vnni();
    if (!vnni)
        skip();
    StRng r = {12345};
    static const int64_t Fs[] = {1, 3, 15, 16, 17, 31, 33, 48, 63, 64, 65, 100, 128, 130, 200};
    for (int iter = 0; iter < 200; iter++) {
        int kind = iter % 4;
        int64_t F = Fs[iter % (int64_t)(sizeof Fs / sizeof Fs[0])];
        int64_t fp = (F + SIM_DOT8_LANES - 1) / SIM_DOT8_LANES * SIM_DOT8_LANES;
        int64_t nq = st_range(&r, 1, 40), n = st_range(&r, 1, 11); /* tiles of 1 to 4 pixels */
        int64_t acc_step = F + st_range(&r, 0, 3), x_step = nq * 4 * st_range(&r, 1, 2);
        int64_t nx = (n - 1) * x_step + nq * 4, nw = nq * fp * 4, na = (n - 1) * acc_step + F;
        uint8_t *x = malloc((size_t)nx);
        int8_t *w = malloc((size_t)nw);
        uint32_t *a = malloc((size_t)na * 4), *b = malloc((size_t)na * 4);
        uint32_t *corr = malloc((size_t)fp * 4);
        assert_non_null(x), assert_non_null(w), assert_non_null(a), assert_non_null(b);
        assert_non_null(corr);
        fill_case(&r, kind, x, nx, w, nw, a, na, corr, fp);
        memcpy(b, a, (size_t)na * 4);
        sim_dot8_c(a, acc_step, x, x_step, n, w, corr, nq, F);
        vnni(b, acc_step, x, x_step, n, w, corr, nq, F);
        st_assert_equal((const int32_t *)a, (const int32_t *)b, na, "dot8 vnni vs c");
        free(x), free(w), free(a), free(b), free(corr);
    }
}

/* The plain C version against the definition (sums of x * w minus corr, in int64, wrapped)
 * on the extremes. */
static void test_c_matches_definition(void **state)
{
    (void)state;
    StRng r = {777};
    for (int kind = 0; kind < 4; kind++) {
        int64_t F = 17, fp = 32, nq = 5;
        uint8_t x[20];
        int8_t w[5 * 32 * 4];
        uint32_t a[17], corr[32];
        fill_case(&r, kind, x, 20, w, (int64_t)sizeof w, a, 17, corr, 32);
        int32_t want[17];
        for (int64_t f = 0; f < F; f++) {
            int64_t s = (int32_t)a[f];
            for (int64_t q = 0; q < nq; q++)
                for (int j = 0; j < 4; j++)
                    s += (int64_t)x[4 * q + j] * w[(q * fp + f) * 4 + j];
            s -= corr[f];
            want[f] = (int32_t)(uint32_t)(uint64_t)s;
        }
        sim_dot8_c(a, F, x, 4 * nq, 1, w, corr, nq, F);
        st_assert_equal(want, (const int32_t *)a, F, "dot8 c");
    }
}

/* What a random convolution case draws: the geometry's upper bounds, the value range, a
 * value outside int8 (odd, when not 0: an input value, or a weight when odd_weight), the
 * precision and the bias kind. */
typedef struct ConvCase {
    bool two_d;
    int32_t maxF, maxR, maxK, minI, maxI, maxS;
    int32_t lo, hi, odd;
    bool odd_weight;
    PrecisionId prec;
    bool const_bias;
} ConvCase;

static const ConvCase small = {false, 70, 37, 3, 1, 7, 2, -128, 127, 0, false, PR_INT_32,
                               false};

/* The weight packing of one tap: the AVX-512 version against the plain C one on random
 * rows, row lengths around the group (4) and the vector (16), int8 extremes and values
 * outside int8 (then only the verdict must agree). */
static void test_pack8_vnni_matches_c(void **state)
{
    (void)state;
    SimPack8Fn vnni = sim_pack8_vnni();
    if (!vnni)
        skip();
    StRng r = {5150};
    static const int64_t Rs[] = {1, 2, 3, 4, 5, 15, 16, 17, 33, 63, 64, 65, 200};
    for (int iter = 0; iter < 120; iter++) {
        int64_t R = Rs[iter % 13], nf = st_range(&r, 1, 64), nq = (R + 3) / 4;
        int64_t ws = nf + st_range(&r, 0, 5), row_step = R + st_range(&r, 0, 7);
        int kind = iter % 4; /* 0 random int8, 1 all -128, 2 all 127, 3 one value outside */
        int64_t nw = (nf - 1) * row_step + R, no = (nq - 1) * ws + nf;
        int32_t *W = malloc((size_t)nw * 4);
        uint32_t *a = calloc((size_t)no, 4), *b = calloc((size_t)no, 4);
        uint32_t *sa = malloc((size_t)nf * 4), *sb = malloc((size_t)nf * 4);
        assert_non_null(W), assert_non_null(a), assert_non_null(b), assert_non_null(sa);
        assert_non_null(sb);
        for (int64_t i = 0; i < nw; i++)
            W[i] = kind == 1 ? -128 : kind == 2 ? 127 : st_range(&r, -128, 127);
        if (kind == 3)
            W[st_range(&r, 0, (int32_t)(nf - 1)) * row_step +
              st_range(&r, 0, (int32_t)R - 1)] = iter % 8 == 3 ? 128 : INT32_MIN;
        uint32_t ba = sim_pack8_c(a, ws, W, row_step, R, nf, sa);
        uint32_t bb = vnni(b, ws, W, row_step, R, nf, sb);
        assert_int_equal(ba <= 255u, kind != 3);
        assert_int_equal(bb <= 255u, kind != 3);
        if (kind != 3) {
            st_assert_equal((const int32_t *)a, (const int32_t *)b, no, "pack8 vnni vs c");
            st_assert_equal((const int32_t *)sa, (const int32_t *)sb, nf, "pack8 sums");
        }
        free(W), free(a), free(b), free(sa), free(sb);
    }
}

/* The weight packing of one tap from int8 rows (a tensor held narrow) against the plain C one
 * on the same values held as int32: random rows, row lengths around the group (4) and the
 * vector (16), the int8 extremes; the gaps of the output (ws > nf) untouched. */
static void test_pack8_i8_matches_c(void **state)
{
    (void)state;
    StRng r = {6262};
    static const int64_t Rs[] = {1, 2, 3, 4, 5, 7, 15, 16, 17, 33, 64, 65, 201};
    for (int iter = 0; iter < 130; iter++) {
        int64_t R = Rs[iter % 13], nf = st_range(&r, 1, 64), nq = (R + 3) / 4;
        int64_t ws = nf + st_range(&r, 0, 5), row_step = R + st_range(&r, 0, 7);
        int kind = iter % 3; /* 0 random int8, 1 all -128, 2 all 127 */
        int64_t nw = (nf - 1) * row_step + R, no = (nq - 1) * ws + nf;
        int32_t *W = malloc((size_t)nw * 4);
        int8_t *W8 = malloc((size_t)nw);
        uint32_t *a = calloc((size_t)no, 4), *b = calloc((size_t)no, 4);
        uint32_t *sa = malloc((size_t)nf * 4), *sb = malloc((size_t)nf * 4);
        assert_non_null(W), assert_non_null(W8), assert_non_null(a), assert_non_null(b);
        assert_non_null(sa), assert_non_null(sb);
        for (int64_t i = 0; i < nw; i++) {
            W[i] = kind == 1 ? -128 : kind == 2 ? 127 : st_range(&r, -128, 127);
            W8[i] = (int8_t)W[i];
        }
        assert_true(sim_pack8_c(a, ws, W, row_step, R, nf, sa) <= 255u);
        sim_pack8_i8(b, ws, W8, row_step, R, nf, sb);
        st_assert_equal((const int32_t *)a, (const int32_t *)b, no, "pack8 i8 vs c");
        st_assert_equal((const int32_t *)sa, (const int32_t *)sb, nf, "pack8 i8 sums");
        free(W), free(W8), free(a), free(b), free(sa), free(sb);
    }
}

/* One CC (or CC2D) block with random geometry within cc's bounds, run through the simulator
 * (the int8 path where it applies) for two steps (the second on the weights packed at the
 * first) against the loop nest. */
static void run_conv_case(StRng *r, const ConvCase *cc)
{
    StConv v;
    v.F = st_range(r, 1, cc->maxF), v.R = st_range(r, 1, cc->maxR);
    v.KY = st_range(r, 1, cc->maxK), v.KX = st_range(r, 1, cc->maxK);
    v.sy = st_range(r, 1, cc->maxS), v.sx = st_range(r, 1, cc->maxS);
    v.dy = cc->two_d ? st_range(r, 1, 2) : 1, v.dx = cc->two_d ? st_range(r, 1, 2) : 1;
    v.pu = st_range(r, 0, v.KY - 1), v.pl = st_range(r, 0, v.KX - 1);
    v.IY = st_range(r, cc->minI, cc->maxI), v.IX = st_range(r, cc->minI, cc->maxI);
    int32_t spy = (v.KY - 1) * v.dy + 1, spx = (v.KX - 1) * v.dx + 1;
    if (v.IY + 2 * v.pu < spy)
        v.IY = spy;
    if (v.IX + 2 * v.pl < spx)
        v.IX = spx;
    v.Y = (v.IY + 2 * v.pu - spy) / v.sy + 1, v.X = (v.IX + 2 * v.pl - spx) / v.sx + 1;
    Graph *g = graph_create();
    Block *c = st_block(g, cc->two_d ? BT_CC2D : BT_CC,
                        S(v.Y, v.X, v.F, v.R, v.KY, v.KX, v.IY, v.IX), "conv");
    c->has_prec = true;
    c->prec = cc->prec;
    c->bias_type = cc->const_bias ? BIAS_CONSTANT : BIAS_VECTOR;
    static const AttrId at[] = {AT_KERNEL_Y, AT_KERNEL_X, AT_STRIDE_Y, AT_STRIDE_X,
                                AT_PAD_UP, AT_PAD_DOWN, AT_PAD_LEFT, AT_PAD_RIGHT};
    int32_t av[] = {v.KY, v.KX, v.sy, v.sx, v.pu, v.pu, v.pl, v.pl};
    for (int i = 0; i < 8; i++)
        blk_set_attr(g, c, at[i], av[i]);
    if (cc->two_d) {
        blk_set_attr(g, c, AT_DILATION_Y, v.dy);
        blk_set_attr(g, c, AT_DILATION_X, v.dx);
    }
    int64_t nin = (int64_t)v.IY * v.IX * v.R, nw = (int64_t)v.F * v.R * v.KY * v.KX;
    int64_t nout = (int64_t)v.Y * v.X * v.F;
    int32_t *in = malloc((size_t)nin * 4), *wt = malloc((size_t)nw * 4);
    int32_t *bias = malloc((size_t)v.F * 4), *out = malloc((size_t)nout * 2 * 4);
    int32_t *want = malloc((size_t)nout * 4);
    assert_non_null(in), assert_non_null(wt), assert_non_null(bias), assert_non_null(out);
    assert_non_null(want);
    for (int64_t i = 0; i < nin; i++)
        in[i] = st_range(r, cc->lo, cc->hi);
    for (int64_t i = 0; i < nw; i++)
        wt[i] = st_range(r, cc->lo, cc->hi);
    int32_t b0 = (int32_t)st_next(r);
    for (int32_t f = 0; f < v.F; f++)
        bias[f] = cc->const_bias ? b0 : (int32_t)st_next(r);
    if (cc->const_bias)
        blk_set_attr(g, c, AT_CONSTANT_B, b0);
    if (cc->odd && !cc->odd_weight)
        in[st_range(r, 0, (int32_t)nin - 1)] = cc->odd;
    if (cc->odd && cc->odd_weight)
        wt[st_range(r, 0, (int32_t)nw - 1)] = cc->odd;
    const PrecisionInfo *pi = pr_info(cc->prec);
    st_conv_ref(&v, in, wt, bias, (int32_t)pi->lo, (int32_t)pi->hi, want);
    Block *ops[] = {st_storage(g, cc->two_d ? BT_SIC2D : BT_SIC, S(v.IY, v.IX, 0, v.R), in, nin),
                    st_storage(g, cc->two_d ? BT_SW2D : BT_SW, S(0, 0, v.F, v.R, v.KY, v.KX), wt,
                               nw),
                    st_storage(g, BT_SB, S(0, 0, v.F), bias, v.F)};
    st_run_block(g, c, ops, cc->const_bias ? 2 : 3, 2, out, nout, NULL);
    st_assert_equal(want, out, nout, cc->two_d ? "CC2D" : "CC");
    st_assert_equal(want, out + nout, nout, cc->two_d ? "CC2D step 2" : "CC step 2");
    free(in), free(wt), free(bias), free(out), free(want);
    graph_destroy(g);
}

static void test_conv_int8_random(void **state)
{
    (void)state;
    StRng r = {4242};
    for (int i = 0; i < 40; i++) {
        ConvCase cc = small;
        cc.two_d = i % 2;
        run_conv_case(&r, &cc);
    }
    for (int i = 0; i < 6; i++) {
        ConvCase cc = small;
        cc.two_d = i % 2;
        cc.lo = cc.hi = -128;
        run_conv_case(&r, &cc);
        cc.lo = cc.hi = 127;
        run_conv_case(&r, &cc);
    }
}

/* Channel counts around the vector (16) and block (64) sizes, input channels around the
 * group of four, taps up to 7 x 7 (a tap row taken in one call), and images large enough to
 * take several row chunks. */
static void test_conv_int8_odd_sizes(void **state)
{
    (void)state;
    StRng r = {31337};
    static const int32_t Fs[] = {1, 15, 16, 17, 33, 63, 64, 65, 127, 129};
    static const int32_t Rs[] = {1, 2, 3, 4, 5, 7, 9};
    for (int i = 0; i < 20; i++) {
        ConvCase cc = small;
        cc.two_d = i % 3 == 2;
        cc.maxF = Fs[i % 10];
        cc.maxR = Rs[i % 7];
        cc.maxK = i % 4 == 0 ? 7 : 3;
        cc.maxI = 17;
        cc.maxS = 3;
        run_conv_case(&r, &cc);
    }
    for (int i = 0; i < 4; i++) { /* 60 to 90 rows of 60 to 90 pixels: several chunks */
        ConvCase cc = small;
        cc.two_d = i % 2;
        cc.maxF = 65;
        cc.maxR = 9;
        cc.minI = 60;
        cc.maxI = 90;
        cc.maxS = 1;
        run_conv_case(&r, &cc);
    }
}

/* Clamped precisions after the wrap, the constant bias, and the bias extremes. */
static void test_conv_int8_clamp_and_bias(void **state)
{
    (void)state;
    StRng r = {2718};
    static const PrecisionId precs[] = {PR_INT_8, PR_UINT_8, PR_INT_16, PR_INT_32};
    for (int i = 0; i < 16; i++) {
        ConvCase cc = small;
        cc.two_d = i % 2;
        cc.prec = precs[i % 4];
        cc.const_bias = i % 3 == 0;
        if (i % 4 == 3)
            cc.lo = cc.hi = i % 8 == 3 ? -128 : 127; /* the largest sums, on random bias */
        run_conv_case(&r, &cc);
    }
}

static void test_conv_not_int8(void **state)
{
    (void)state;
    StRng r = {99};
    static const int32_t odd[] = {128, -129, INT32_MAX, INT32_MIN};
    for (int i = 0; i < 16; i++) {
        ConvCase cc = small;
        cc.two_d = i % 2;
        cc.odd = odd[i % 4];
        cc.odd_weight = i >= 8;
        run_conv_case(&r, &cc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vnni_matches_c),
        cmocka_unit_test(test_c_matches_definition),
        cmocka_unit_test(test_pack8_vnni_matches_c),
        cmocka_unit_test(test_pack8_i8_matches_c),
        cmocka_unit_test(test_conv_int8_random),
        cmocka_unit_test(test_conv_int8_odd_sizes),
        cmocka_unit_test(test_conv_int8_clamp_and_bias),
        cmocka_unit_test(test_conv_not_int8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
