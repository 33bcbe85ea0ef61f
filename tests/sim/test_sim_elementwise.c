/* test_sim_elementwise.c: the vectorized elementwise products (taskir/sim_kernels.c,
 * mul_bias: CVVH and CAX, compiled for several instruction sets and picked at load time)
 * against their loop nests (docs/semantics.md, sections 3.2 and 3.7) computed here in int64
 * and wrapped: random shapes with odd channel counts, CVVH with stride and padding, int8 and
 * full-range int32 values (the products wrap), vector and constant bias at the int32
 * extremes, and the clamps of the narrower precisions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "simtest.h"

#define S(...) ((const int32_t[TIR_NDIMS]){__VA_ARGS__})

static const int32_t Fs[] = {1, 3, 15, 16, 17, 33, 63, 64, 65, 100};
static const PrecisionId precs[] = {PR_INT_32, PR_INT_8, PR_INT_16, PR_UINT_8};

/* A value of kind k: 0 int8, 1 any int32, 2 an int32 extreme. */
static int32_t value(StRng *r, int k)
{
    if (k == 0)
        return st_range(r, -128, 127);
    if (k == 1)
        return (int32_t)st_next(r);
    return st_next(r) % 2 ? INT32_MIN : INT32_MAX;
}

static int32_t *fill(StRng *r, int64_t n, int k)
{
    int32_t *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    assert_non_null(v);
    for (int64_t i = 0; i < n; i++)
        v[i] = value(r, k);
    return v;
}

/* wrap(p + bias), clamped to prec */
static int32_t result(int64_t p, int32_t bias, PrecisionId prec)
{
    int32_t v = (int32_t)(uint32_t)(uint64_t)(p + bias);
    const PrecisionInfo *pi = pr_info(prec);
    return v < pi->lo ? (int32_t)pi->lo : v > pi->hi ? (int32_t)pi->hi : v;
}

/* Case i: CAX when cax, else CVVH with random stride and padding. */
static void run_case(StRng *r, int i, bool cax)
{
    int32_t F = Fs[i % 10], IY = st_range(r, 1, 6), IX = st_range(r, 1, 9);
    int32_t sy = 1, sx = 1, pu = 0, pd = 0, pl = 0, pr = 0;
    if (!cax) {
        sy = st_range(r, 1, 3), sx = st_range(r, 1, 3);
        pu = st_range(r, 0, 2), pd = st_range(r, 0, 2), pl = st_range(r, 0, 2);
        pr = st_range(r, 0, 2);
    }
    int32_t Y = (IY + pu + pd - 1) / sy + 1, X = (IX + pl + pr - 1) / sx + 1;
    PrecisionId prec = precs[i % 4];
    bool cbias = i % 3 == 0;
    int kind = i % 3;
    Graph *g = graph_create();
    Block *c = st_block(g, cax ? BT_CAX : BT_CVVH,
                        cax ? S(IY, IX, F) : S(Y, X, F, 0, 0, 0, IY, IX), "op");
    c->has_prec = true;
    c->prec = prec;
    c->bias_type = cbias ? BIAS_CONSTANT : BIAS_VECTOR;
    static const AttrId at[] = {AT_STRIDE_Y, AT_STRIDE_X, AT_PAD_UP, AT_PAD_DOWN, AT_PAD_LEFT,
                                AT_PAD_RIGHT};
    int32_t av[] = {sy, sx, pu, pd, pl, pr};
    for (int k = 0; !cax && k < 6; k++)
        assert_true(blk_set_attr(g, c, at[k], av[k]));
    int64_t nin = (int64_t)IY * IX * F, nout = (int64_t)Y * X * F;
    int32_t *a = fill(r, nin, kind), *b = fill(r, cax ? F : nin, kind);
    int32_t *bias = fill(r, F, 2 - (i % 2));
    if (cbias) {
        for (int32_t f = 1; f < F; f++)
            bias[f] = bias[0];
        assert_true(blk_set_attr(g, c, AT_CONSTANT_B, bias[0]));
    }
    int32_t *want = malloc((size_t)nout * 4), *out = malloc((size_t)nout * 4);
    assert_non_null(want), assert_non_null(out);
    for (int32_t oy = 0; oy < Y; oy++)
        for (int32_t ox = 0; ox < X; ox++) {
            int32_t iy = oy * sy - pu, ix = ox * sx - pl;
            bool in = iy >= 0 && iy < IY && ix >= 0 && ix < IX;
            for (int32_t f = 0; f < F; f++) {
                int64_t at_in = ((int64_t)iy * IX + ix) * F + f;
                int64_t p = !in ? 0 : (int64_t)a[at_in] * (cax ? b[f] : b[at_in]);
                want[((int64_t)oy * X + ox) * F + f] = result(p, bias[f], prec);
            }
        }
    Block *ops[] = {st_storage(g, BT_SI, S(IY, IX, F), a, nin),
                    cax ? st_storage(g, BT_SB, S(0, 0, F), b, F)
                        : st_storage(g, BT_SI, S(IY, IX, F), b, nin),
                    st_storage(g, BT_SB, S(0, 0, F), bias, F)};
    st_run_block(g, c, ops, cbias ? 2 : 3, 1, out, nout, NULL);
    st_assert_equal(want, out, nout, cax ? "CAX" : "CVVH");
    free(a), free(b), free(bias), free(want), free(out);
    graph_destroy(g);
}

static void test_cax_random(void **state)
{
    (void)state;
    StRng r = {606};
    for (int i = 0; i < 60; i++)
        run_case(&r, i, true);
}

static void test_cvvh_random(void **state)
{
    (void)state;
    StRng r = {909};
    for (int i = 0; i < 60; i++)
        run_case(&r, i, false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cax_random),
        cmocka_unit_test(test_cvvh_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
