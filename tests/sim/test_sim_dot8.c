/* test_sim_dot8.c: the int8 dot-product path of the convolution kernel (taskir/sim_dot8.h).
 * The VNNI version against the plain C one on random shapes, odd channel counts (a masked
 * last vector) and the extreme values (bytes 0 / 255, weights -128 / 127, accumulators at
 * INT32_MIN / INT32_MAX, where the sums wrap); then CC and CC2D blocks run through the
 * simulator (which takes the VNNI path on int8 values where the CPU has it, the int32 path
 * otherwise or when a value is not an int8) against the loop nest of docs/semantics.md
 * computed here in int64 and wrapped. Skips the first part where the CPU has no VNNI. */
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
    static const int64_t Fs[] = {1, 3, 15, 16, 17, 31, 48, 63, 64, 65, 100, 128, 130, 200};
    for (int iter = 0; iter < 200; iter++) {
        int kind = iter % 4;
        int64_t F = Fs[iter % (int64_t)(sizeof Fs / sizeof Fs[0])];
        int64_t fp = (F + SIM_DOT8_LANES - 1) / SIM_DOT8_LANES * SIM_DOT8_LANES;
        int64_t nq = st_range(&r, 1, 40), n = st_range(&r, 1, 5);
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

/* One CC (or CC2D) block with random geometry; values in [lo, hi], one input value set to
 * odd (when odd is not 0) to leave the int8 range. */
static void run_conv_case(StRng *r, bool two_d, int32_t lo, int32_t hi, int32_t odd)
{
    int32_t F = st_range(r, 1, 70), R = st_range(r, 1, 37), KY = st_range(r, 1, 3);
    int32_t KX = st_range(r, 1, 3), sy = st_range(r, 1, 2), sx = st_range(r, 1, 2);
    int32_t dy = st_range(r, 1, 2), dx = st_range(r, 1, 2), pu = st_range(r, 0, KY - 1);
    int32_t pl = st_range(r, 0, KX - 1), IY = st_range(r, 1, 7), IX = st_range(r, 1, 7);
    int32_t spy = (KY - 1) * dy + 1, spx = (KX - 1) * dx + 1;
    if (IY + 2 * pu < spy)
        IY = spy;
    if (IX + 2 * pl < spx)
        IX = spx;
    int32_t Y = (IY + 2 * pu - spy) / sy + 1, X = (IX + 2 * pl - spx) / sx + 1;
    Graph *g = graph_create();
    Block *c = st_block(g, two_d ? BT_CC2D : BT_CC, S(Y, X, F, R, KY, KX, IY, IX), "conv");
    c->has_prec = true;
    c->prec = PR_INT_32;
    c->bias_type = BIAS_VECTOR;
    blk_set_attr(g, c, AT_KERNEL_Y, KY);
    blk_set_attr(g, c, AT_KERNEL_X, KX);
    blk_set_attr(g, c, AT_STRIDE_Y, sy);
    blk_set_attr(g, c, AT_STRIDE_X, sx);
    blk_set_attr(g, c, AT_PAD_UP, pu);
    blk_set_attr(g, c, AT_PAD_DOWN, pu);
    blk_set_attr(g, c, AT_PAD_LEFT, pl);
    blk_set_attr(g, c, AT_PAD_RIGHT, pl);
    if (two_d) {
        blk_set_attr(g, c, AT_DILATION_Y, dy);
        blk_set_attr(g, c, AT_DILATION_X, dx);
    } else {
        dy = dx = 1;
        Y = (IY + 2 * pu - KY) / sy + 1;
        X = (IX + 2 * pl - KX) / sx + 1;
        if (IY + 2 * pu < KY || IX + 2 * pl < KX) {
            graph_destroy(g);
            return;
        }
        c->shape.d[D_Y] = Y;
        c->shape.d[D_X] = X;
    }
    int64_t nin = (int64_t)IY * IX * R, nw = (int64_t)F * R * KY * KX;
    int64_t nout = (int64_t)Y * X * F;
    int32_t *in = malloc((size_t)nin * 4), *wt = malloc((size_t)nw * 4);
    int32_t *bias = malloc((size_t)F * 4), *out = malloc((size_t)nout * 4);
    int32_t *want = malloc((size_t)nout * 4);
    assert_non_null(in), assert_non_null(wt), assert_non_null(bias), assert_non_null(out);
    assert_non_null(want);
    for (int64_t i = 0; i < nin; i++)
        in[i] = st_range(r, lo, hi);
    for (int64_t i = 0; i < nw; i++)
        wt[i] = st_range(r, lo, hi);
    for (int32_t f = 0; f < F; f++)
        bias[f] = (int32_t)st_next(r);
    if (odd)
        in[st_range(r, 0, (int32_t)nin - 1)] = odd;
    for (int32_t oy = 0; oy < Y; oy++)
        for (int32_t ox = 0; ox < X; ox++)
            for (int32_t f = 0; f < F; f++) {
                int64_t s = bias[f];
                for (int32_t rr = 0; rr < R; rr++)
                    for (int32_t ky = 0; ky < KY; ky++)
                        for (int32_t kx = 0; kx < KX; kx++) {
                            int32_t iy = oy * sy + ky * dy - pu, ix = ox * sx + kx * dx - pl;
                            if (iy >= 0 && iy < IY && ix >= 0 && ix < IX)
                                s += (int64_t)in[((int64_t)iy * IX + ix) * R + rr] *
                                     wt[(((int64_t)f * R + rr) * KY + ky) * KX + kx];
                        }
                want[((int64_t)oy * X + ox) * F + f] = (int32_t)(uint32_t)(uint64_t)s;
            }
    Block *ops[] = {st_storage(g, two_d ? BT_SIC2D : BT_SIC, S(IY, IX, 0, R), in, nin),
                    st_storage(g, two_d ? BT_SW2D : BT_SW, S(0, 0, F, R, KY, KX), wt, nw),
                    st_storage(g, BT_SB, S(0, 0, F), bias, F)};
    st_run_block(g, c, ops, 3, 1, out, nout, NULL);
    st_assert_equal(want, out, nout, two_d ? "CC2D" : "CC");
    free(in), free(wt), free(bias), free(out), free(want);
    graph_destroy(g);
}

static void test_conv_int8_random(void **state)
{
    (void)state;
    StRng r = {4242};
    for (int i = 0; i < 40; i++)
        run_conv_case(&r, i % 2, -128, 127, 0);
    for (int i = 0; i < 6; i++) {
        run_conv_case(&r, i % 2, -128, -128, 0);
        run_conv_case(&r, i % 2, 127, 127, 0);
    }
}

static void test_conv_not_int8(void **state)
{
    (void)state;
    StRng r = {99};
    static const int32_t odd[] = {128, -129, INT32_MAX, INT32_MIN};
    for (int i = 0; i < 8; i++)
        run_conv_case(&r, i % 2, -128, 127, odd[i % 4]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vnni_matches_c),
        cmocka_unit_test(test_c_matches_definition),
        cmocka_unit_test(test_conv_int8_random),
        cmocka_unit_test(test_conv_not_int8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
