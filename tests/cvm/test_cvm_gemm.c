/* test_cvm_gemm.c: the interpreter's fast paths held to the formulas they replace.
 *
 * 1. The matrix product kernels (frontend/cvm/cvm_gemm.h), the plain one and the AVX2 one when
 *    this CPU has it, against a plain int64 loop in this file: random shapes with odd sizes
 *    (1, 3, 5, 17, 33 ... rows and reduction lengths around the padding), output strides of
 *    both layouts, and extreme values (int8 and int16 limits, sums at the int32 limit).
 * 2. The exactness bound (cvm_gemm_exact) at its edges.
 * 3. conv2d and dense through the interpreter (which takes the matrix product) against their
 *    int64 formulas (cvm_run_conv2d_formula, cvm_run_dense_formula) on random shapes: strides,
 *    padding, dilation, groups, batches, with and without bias, values at the 8-bit limits;
 *    and with the weight and bias as parameters, whose precision bounds them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cvm_test_util.h"
#include "frontend/cvm/cvm_gemm.h"
#include "frontend/cvm/cvm_ops.h"

/* A deterministic generator (64-bit LCG, high bits). */
static uint32_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

/* A value in [-m, m]: the extremes one time in four. */
static int32_t rval(uint64_t *s, int32_t m)
{
    uint32_t r = rnd(s);
    if (r % 8 == 0)
        return m;
    if (r % 8 == 1)
        return -m;
    return (int32_t)((int64_t)(rnd(s) % (2 * (uint64_t)m + 1)) - m);
}

/* ---- 1. the kernels ---- */

static void check_gemm(uint64_t *seed, int64_t M, int64_t N, int64_t K, int32_t amax,
                       int32_t bmax, int32_t cmax, bool rows_major)
{
    assert_true(cvm_gemm_exact(K, amax, bmax, cmax));
    int32_t *a = malloc((size_t)(M * K) * sizeof *a), *b = malloc((size_t)(N * K) * sizeof *b);
    int32_t *bias = malloc((size_t)M * sizeof *bias);
    int32_t *want = malloc((size_t)(M * N) * sizeof *want);
    int32_t *got = malloc((size_t)(M * N) * sizeof *got);
    assert_true(a && b && bias && want && got);
    CvmPack pa, pb;
    assert_true(cvm_pack_alloc(&pa, M, K));
    assert_true(cvm_pack_alloc(&pb, N, K));
    for (int64_t i = 0; i < M * K; i++)
        a[i] = rval(seed, amax);
    for (int64_t i = 0; i < N * K; i++)
        b[i] = rval(seed, bmax);
    for (int64_t i = 0; i < M; i++)
        bias[i] = cmax ? rval(seed, cmax) : 0;
    /* one corner at the bound: all-extreme rows give K * amax * bmax + cmax */
    for (int64_t k = 0; k < K; k++) {
        a[k] = -amax;
        b[k] = -bmax;
    }
    bias[0] = cmax;
    for (int64_t i = 0; i < M; i++)
        for (int64_t k = 0; k < K; k++)
            cvm_pack_row(&pa, i)[k] = (int16_t)a[i * K + k];
    for (int64_t j = 0; j < N; j++)
        for (int64_t k = 0; k < K; k++)
            cvm_pack_row(&pb, j)[k] = (int16_t)b[j * K + k];
    int64_t yi = rows_major ? N : 1, yj = rows_major ? 1 : M;
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            int64_t acc = bias[i];
            for (int64_t k = 0; k < K; k++)
                acc += (int64_t)a[i * K + k] * b[j * K + k];
            assert_true(acc >= INT32_MIN && acc <= INT32_MAX);
            want[i * yi + j * yj] = (int32_t)acc;
        }
    for (int avx2 = 0; avx2 < 2; avx2++) {
        CvmGemmFn f = cvm_gemm_kernel(avx2);
        if (!f)
            continue;
        memset(got, 0x5a, (size_t)(M * N) * sizeof *got);
        f(&pa, &pb, bias, got, yi, yj);
        for (int64_t i = 0; i < M * N; i++)
            if (got[i] != want[i]) {
                fprintf(stderr, "%s kernel, M %lld N %lld K %lld: Y[%lld] = %d, want %d\n",
                        avx2 ? "AVX2" : "plain", (long long)M, (long long)N, (long long)K,
                        (long long)i, got[i], want[i]);
                fail();
            }
    }
    /* the dispatching entry, without a bias */
    cvm_gemm(&pa, &pb, NULL, got, yi, yj);
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++)
            assert_int_equal(got[i * yi + j * yj], want[i * yi + j * yj] - bias[i]);
    cvm_pack_free(&pa);
    cvm_pack_free(&pb);
    free(a);
    free(b);
    free(bias);
    free(want);
    free(got);
}

static void test_gemm_kernels(void **state)
{
    (void)state;
    uint64_t seed = 12345;
    static const int64_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 13, 17, 33};
    static const int64_t ks[] = {1, 3, 15, 16, 17, 31, 33, 64, 100, 577};
    int n = 0;
    for (int mi = 0; mi < 10; mi++)
        for (int ni = 0; ni < 10; ni++) {
            int64_t K = ks[(mi * 3 + ni) % 10];
            check_gemm(&seed, sizes[mi], sizes[ni], K, 127, 128, 1 << 20, n % 2 == 0);
            n++;
        }
    /* int16 operands: the bound allows K = 2 at the extremes (2 * 32767^2 < 2^31) */
    check_gemm(&seed, 5, 7, 2, 32767, 32767, 0, true);
    /* sums at the int32 limit: K * 127 * 128 + cmax = INT32_MAX exactly */
    int64_t K = 1000;
    check_gemm(&seed, 9, 6, K, 127, 128, (int32_t)(INT32_MAX - K * 127 * 128), false);
    /* a wide band: more rows than one cache band holds */
    check_gemm(&seed, 70, 9, 4099, 127, 127, 0, true);
}

static void test_gemm_exact(void **state)
{
    (void)state;
    assert_true(cvm_gemm_exact(1000, 127, 128, INT32_MAX - 1000 * 127 * 128));
    assert_false(cvm_gemm_exact(1000, 127, 128, INT32_MAX - 1000 * 127 * 128 + 1));
    assert_true(cvm_gemm_exact(2, 32767, 32767, 0));
    assert_false(cvm_gemm_exact(3, 32767, 32767, 0));
    assert_false(cvm_gemm_exact(1, 32768, 1, 0));
    assert_false(cvm_gemm_exact(1, 1, 32768, 0));
    assert_true(cvm_gemm_exact(INT64_MAX, 0, 5, INT32_MAX));
    assert_false(cvm_gemm_exact(INT64_MAX / 2, 1, 1, 0));
    OgTensor t = {{1, {3}}, 3, (int32_t[]){3, -7, 5}};
    assert_int_equal(og_tensor_absmax(&t), 7);
    assert_true(og_tensor_in_prec(&t, 4));  /* 7 = 2^3 - 1 */
    assert_false(og_tensor_in_prec(&t, 3));
    t = (OgTensor){{1, {2}}, 2, (int32_t[]){INT32_MIN, 1}};
    assert_int_equal(og_tensor_absmax(&t), (int64_t)1 << 31);
    assert_false(og_tensor_in_prec(&t, 32));
    t = (OgTensor){{1, {0}}, 0, NULL};
    assert_int_equal(og_tensor_absmax(&t), 0);
    CvmPack p;
    assert_false(cvm_pack_alloc(&p, 0, 4));
    assert_false(cvm_pack_alloc(&p, INT64_MAX / 4, INT64_MAX / 4));
    cvm_pack_free(&p);
}

/* ---- 3. conv2d and dense against their formulas ---- */

/* Runs r's node again through formula and compares with what the interpreter gave. */
static void check_formula(TOut *r, const TIn *ins, uint32_t nin,
                          Status (*formula)(CvmCtx *, const OgTensor *const *, OgTensor *))
{
    assert_int_equal(r->st, ST_OK);
    OgTensor t[3];
    const OgTensor *in[3];
    for (uint32_t i = 0; i < nin; i++) {
        t[i].shape = tshape(ins[i].ndim, ins[i].d);
        t[i].count = og_shape_volume(&t[i].shape);
        t[i].data = (int32_t *)ins[i].v;
        in[i] = &t[i];
    }
    OgTensor want;
    assert_true(og_tensor_alloc(&want, &r->out[0].shape));
    CvmCtx c = {r->g, r->node, &r->d, false};
    assert_int_equal(formula(&c, in, &want), ST_OK);
    assert_false(c.overflow);
    assert_int_equal(want.count, r->out[0].count);
    for (int64_t i = 0; i < want.count; i++)
        if (want.data[i] != r->out[0].data[i]) {
            fprintf(stderr, "%s: element %lld: the interpreter gave %d, the formula %d\n",
                    r->node->op_name, (long long)i, r->out[0].data[i], want.data[i]);
            fail();
        }
    og_tensor_free(&want);
}

static int32_t *random_values(uint64_t *seed, int64_t n, int32_t m)
{
    int32_t *v = malloc((size_t)n * sizeof *v);
    assert_non_null(v);
    for (int64_t i = 0; i < n; i++)
        v[i] = rval(seed, m);
    return v;
}

static void test_conv2d_random(void **state)
{
    (void)state;
    uint64_t seed = 777;
    for (int t = 0; t < 60; t++) {
        int64_t groups = 1 + rnd(&seed) % 3, icg = 1 + rnd(&seed) % 4, opg = 1 + rnd(&seed) % 5;
        if (t % 10 == 9) /* depthwise */
            icg = 1, opg = 1, groups = 2 + rnd(&seed) % 6;
        int64_t N = 1 + rnd(&seed) % 2, C = groups * icg, OC = groups * opg;
        int64_t KH = 1 + rnd(&seed) % 3, KW = 1 + rnd(&seed) % 4;
        int64_t sh = 1 + rnd(&seed) % 2, sw = 1 + rnd(&seed) % 3;
        int64_t ph = rnd(&seed) % 3, pw = rnd(&seed) % 2;
        int64_t dh = 1 + rnd(&seed) % 2, dw = 1 + rnd(&seed) % 2;
        int64_t H = (dh * (KH - 1) + 1) + rnd(&seed) % 9, W = (dw * (KW - 1) + 1) + rnd(&seed) % 9;
        bool bias = rnd(&seed) % 2;
        int32_t *x = random_values(&seed, N * C * H * W, 127);
        int32_t *w = random_values(&seed, OC * icg * KH * KW, 127);
        int32_t *b = random_values(&seed, OC, 1 << 20);
        TIn in[] = {{4, {N, C, H, W}, x, 8}, {4, {OC, icg, KH, KW}, w, 8}, {1, {OC}, b, 22}};
        char ch[16], ks[32], st[32], pd[32], dl[32], gr[16];
        snprintf(ch, sizeof ch, "%lld", (long long)OC);
        snprintf(ks, sizeof ks, "(%lld, %lld)", (long long)KH, (long long)KW);
        snprintf(st, sizeof st, "(%lld, %lld)", (long long)sh, (long long)sw);
        snprintf(pd, sizeof pd, "(%lld, %lld)", (long long)ph, (long long)pw);
        snprintf(dl, sizeof dl, "(%lld, %lld)", (long long)dh, (long long)dw);
        snprintf(gr, sizeof gr, "%lld", (long long)groups);
        TOut r;
        uint32_t nin = bias ? 3 : 2;
        top_run(&r, CVM_OP_conv2d, in, nin,
                KV("channels", ch, "kernel_size", ks, "strides", st, "padding", pd,
                   "dilation", dl, "groups", gr, "use_bias", bias ? "true" : "false"));
        check_formula(&r, in, nin, cvm_run_conv2d_formula);
        top_free(&r);
        free(x);
        free(w);
        free(b);
    }
}

static void test_dense_random(void **state)
{
    (void)state;
    uint64_t seed = 4242;
    for (int t = 0; t < 40; t++) {
        int64_t M = 1 + rnd(&seed) % 6, K = 1 + rnd(&seed) % 70, U = 1 + rnd(&seed) % 19;
        bool bias = t % 3 != 0;
        int32_t *x = random_values(&seed, M * K, 127);
        int32_t *w = random_values(&seed, U * K, 127);
        int32_t *b = random_values(&seed, U, (1 << 29) - 1);
        TIn in[] = {{2, {M, K}, x, 8}, {2, {U, K}, w, 8}, {1, {U}, b, 30}};
        char units[16];
        snprintf(units, sizeof units, "%lld", (long long)U);
        TOut r;
        uint32_t nin = bias ? 3 : 2;
        top_run(&r, CVM_OP_dense, in, nin, KV("units", units, "use_bias", bias ? "1" : "0"));
        check_formula(&r, in, nin, cvm_run_dense_formula);
        top_free(&r);
        free(x);
        free(w);
        free(b);
    }
}

/* conv2d with its weight and bias as parameters (their precision bounds them, not a scan):
 * the interpreter against the formula, at the 8-bit extremes. */
static void test_conv2d_params(void **state)
{
    (void)state;
    uint64_t seed = 99;
    Diag d;
    diag_init(&d, "params");
    OpGraph *g = og_create("cvm");
    OgShape xs = {4, {1, 5, 9, 7}}, ws = {4, {6, 5, 3, 3}}, bs = {1, {6}};
    int32_t *x = random_values(&seed, 5 * 9 * 7, 127), *wv = random_values(&seed, 270, 127);
    int32_t *bv = random_values(&seed, 6, (1 << 19) - 1);
    OgTensor xt = {xs, 5 * 9 * 7, x}, wt = {ws, 270, wv}, bt = {bs, 6, bv};
    OgNode *in, *w, *b, *conv;
    assert_int_equal(fe_cvm_add_input(g, "data", &xs, 8, &in, &d), ST_OK);
    assert_int_equal(fe_cvm_add_const(g, "w", &wt, 8, &w, &d), ST_OK);
    assert_int_equal(fe_cvm_add_const(g, "b", &bt, 20, &b, &d), ST_OK);
    OgEdge e[3] = {{in->id, 0}, {w->id, 0}, {b->id, 0}};
    assert_int_equal(fe_cvm_add_op(g, CVM_OP_conv2d, "conv", e, 3,
                                   (const CvmKV[]){{"channels", "6"}, {"kernel_size", "(3, 3)"},
                                                   {"padding", "(1, 2)"}, {"strides", "(2, 1)"}},
                                   4, &conv, &d), ST_OK);
    assert_true(og_add_output(g, conv->id, 0));
    OgTensor got, want;
    assert_int_equal(fe_interp_run(g, &xt, 1, &got, &d), ST_OK);
    assert_true(og_tensor_alloc(&want, &got.shape));
    CvmCtx c = {g, conv, &d, false};
    const OgTensor *ins[3] = {&xt, &w->value, &b->value};
    assert_int_equal(cvm_run_conv2d_formula(&c, ins, &want), ST_OK);
    assert_int_equal(got.count, want.count);
    assert_memory_equal(got.data, want.data, (size_t)want.count * sizeof *want.data);
    og_tensor_free(&got);
    og_tensor_free(&want);
    og_destroy(g);
    diag_finish(&d);
    free(x);
    free(wv);
    free(bv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemm_kernels),
        cmocka_unit_test(test_gemm_exact),
        cmocka_unit_test(test_conv2d_random),
        cmocka_unit_test(test_conv2d_params),
        cmocka_unit_test(test_dense_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
