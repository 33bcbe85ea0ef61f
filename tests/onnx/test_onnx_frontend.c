/* test_onnx_frontend.c: the ONNX frontend beyond the conformance data: the reference
 * rounding, requantization over every accumulator a model can produce (interpreter ==
 * onnxruntime's formula == simulator), per-channel scales over 64 to 2048 channels, integer
 * Div of two computed uint8 tensors over every pair, the one error listing every unsupported
 * node, non-integral weights, the Div -> Floor -> Clip pattern, the example models, and
 * malformed bytes (never a crash); averages followed by Floor over any window, and MatMul,
 * MatMulInteger and QLinearMatMul with a computed B (against plain C loops). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "frontend/interp/interp.h"
#include "frontend/lower/lower.h"
#include "frontend/onnx/onnx.h"
#include "frontend/onnx/onnx_build.h"
#include "onnx_testutil.h"
#include "frontend/interp/run_model.h"
#include "taskir/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the reference rounding ---- */

static void test_rounding(void **state)
{
    (void)state;
    /* QuantizeLinear: half to even, then zero point, then saturation */
    assert_int_equal(fe_onnx_quantize(0.5f, 1.0f, 0, 0, 255), 0);
    assert_int_equal(fe_onnx_quantize(1.5f, 1.0f, 0, 0, 255), 2);
    assert_int_equal(fe_onnx_quantize(2.5f, 1.0f, 0, 0, 255), 2);
    assert_int_equal(fe_onnx_quantize(-0.5f, 1.0f, 0, -128, 127), 0);
    assert_int_equal(fe_onnx_quantize(-1.5f, 1.0f, 0, -128, 127), -2);
    assert_int_equal(fe_onnx_quantize(-2.5f, 1.0f, 10, -128, 127), 8);
    assert_int_equal(fe_onnx_quantize(3.0f, 2.0f, 128, 0, 255), 130);   /* 1.5 -> 2 */
    assert_int_equal(fe_onnx_quantize(1000.0f, 1.0f, 128, 0, 255), 255);
    assert_int_equal(fe_onnx_quantize(-1000.0f, 1.0f, 128, 0, 255), 0);
    float nan;
    uint32_t nb = 0x7fc00000u;
    memcpy(&nan, &nb, sizeof nan);
    assert_int_equal(fe_onnx_quantize(nan, 1.0f, 7, 0, 255), 7);
    /* requantization: float32(acc) * M, half to even, + zp, saturate */
    assert_int_equal(fe_onnx_requantize(5, 0.5f, 0, 0, 255), 2);
    assert_int_equal(fe_onnx_requantize(7, 0.5f, 0, 0, 255), 4);
    assert_int_equal(fe_onnx_requantize(-5, 0.5f, 100, 0, 255), 98);
    assert_int_equal(fe_onnx_requantize(-7, 0.5f, 100, 0, 255), 96);
    assert_int_equal(fe_onnx_requantize(100000, 0.5f, 0, -128, 127), 127);
    assert_int_equal(fe_onnx_requantize(-100000, 0.5f, 0, -128, 127), -128);
    /* float32(acc) rounds: 2^24 + 1 becomes 2^24 before the product */
    assert_int_equal(fe_onnx_requantize(16777217, 1.0f / 16777216.0f, 0, 0, 255), 1);
}

/* ---- requantization, exhaustively over the accumulators of a model ---- */

/* y = QLinearMatMul(a (256, 1) uint8 holding 0..255, b (1, N)): acc = (a - za)(b_j - zb),
 * every value of a for every column j. */
static void check_requant(float sa, int32_t za, const int64_t *bv, size_t N, float sb,
                          int32_t zb, float sy, int32_t zy, int32_t ytype)
{
    OnnxBuilder *b = fe_onnx_builder_create(13);
    fe_onnx_builder_input(b, "a", ONNX_T_UINT8, DIMS(256, 1));
    fe_onnx_builder_output(b, "y", ytype, (const int64_t[]){256, (int64_t)N}, 2);
    fe_onnx_builder_init(b, "sa", ONNX_T_FLOAT, NULL, 0, NULL, &sa);
    fe_onnx_builder_init(b, "za", ONNX_T_UINT8, NULL, 0, (const int64_t[]){za}, NULL);
    fe_onnx_builder_init(b, "b", ONNX_T_UINT8, (const int64_t[]){1, (int64_t)N}, 2, bv, NULL);
    fe_onnx_builder_init(b, "sb", ONNX_T_FLOAT, NULL, 0, NULL, &sb);
    fe_onnx_builder_init(b, "zb", ONNX_T_UINT8, NULL, 0, (const int64_t[]){zb}, NULL);
    fe_onnx_builder_init(b, "sy", ONNX_T_FLOAT, NULL, 0, NULL, &sy);
    fe_onnx_builder_init(b, "zy", ytype, NULL, 0, (const int64_t[]){zy}, NULL);
    fe_onnx_builder_node(b, "QLinearMatMul", "mm",
                         NAMES("a", "sa", "za", "b", "sb", "zb", "sy", "zy"), NAMES("y"), NULL,
                         0);
    size_t len;
    uint8_t *buf = otu_pack(b, &len);
    OnnxModel *m = otu_load(buf, len, NULL);
    free(buf);
    OgTensor in, out;
    OgShape s = {3, {1, 256, 1}};
    assert_true(og_tensor_alloc(&in, &s));
    for (int i = 0; i < 256; i++)
        in.data[i] = i;
    otu_run_both(m, &in, &out);
    volatile float prod = sa * sb;
    float M = prod / sy;
    int32_t lo = ytype == ONNX_T_UINT8 ? 0 : -128, hi = ytype == ONNX_T_UINT8 ? 255 : 127;
    for (int i = 0; i < 256; i++)
        for (size_t j = 0; j < N; j++) {
            int64_t acc = (int64_t)(i - za) * (bv[j] - zb);
            int32_t want = fe_onnx_requantize(acc, M, zy, lo, hi);
            if (out.data[i * (int64_t)N + (int64_t)j] != want)
                fail_msg("a=%d b=%lld: %d, onnxruntime's formula gives %d", i,
                         (long long)bv[j], out.data[i * (int64_t)N + (int64_t)j], want);
        }
    og_tensor_free(&in);
    og_tensor_free(&out);
    fe_onnx_destroy(m);
}

static void test_requant_exhaustive(void **state)
{
    (void)state;
    static const int64_t bv[] = {0, 1, 3, 77, 128, 129, 200, 255};
    size_t N = sizeof bv / sizeof *bv;
    /* power-of-two ratios: exact ties everywhere */
    check_requant(0.5f, 128, bv, N, 0.25f, 128, 1.0f, 128, ONNX_T_UINT8);
    check_requant(1.0f, 0, bv, N, 1.0f, 128, 64.0f, 0, ONNX_T_INT8);
    /* ordinary scales */
    check_requant(0.0173f, 113, bv, N, 0.0049f, 131, 0.0713f, 17, ONNX_T_UINT8);
    check_requant(0.1f, 0, bv, N, 0.3f, 100, 0.7f, -5, ONNX_T_INT8);
    check_requant(2.0f, 255, bv, N, 3.0f, 0, 0.001f, 128, ONNX_T_UINT8);
}

/* ---- per-channel requantization, past 128 channels ---- */

static uint64_t pc_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static int64_t pc_range(uint64_t *s, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(pc_next(s) % (uint64_t)(hi - lo + 1));
}

/* n per-channel weight scales: distinct, with runs of equal ones (j % 5 == 4 repeats the one
 * before, j % 17 == 16 repeats scale 0), powers of two (ties everywhere) and the rest spread
 * over 2^-14 .. 2^2, so that some channels saturate almost everywhere and others resolve
 * every level. */
static void pc_scales(int64_t n, uint64_t *s, float *out)
{
    for (int64_t j = 0; j < n; j++) {
        if (j % 5 == 4)
            out[j] = out[j - 1];
        else if (j % 17 == 16)
            out[j] = out[0];
        else if (j % 11 == 0)
            out[j] = 1.0f / (float)(1 << (j / 11 % 15));
        else
            out[j] = (float)pc_range(s, 1, 1 << 20) / 262144.0f /
                     (float)(1 << pc_range(s, 0, 14));
    }
}

/* The number of CLUT blocks of the lowered graph of m. */
static int count_clut(const OnnxModel *m)
{
    Diag d;
    diag_init(&d, "model.onnx");
    Graph *tg = NULL;
    assert_int_equal(fe_lower(m->g, NULL, &tg, &d), ST_OK);
    /* lookups: a table a core cannot hold is cut into byte tables, "<lookup>/lo" and
     * "<lookup>/hi" (cut again: ".../hi/lo", ".../hi/hi"; docs/lowering.md, "Tables a core
     * holds"), which count as one: the CLUTs but the low bytes' */
    int n = 0;
    for (uint32_t i = 0; i < tg->n_blocks; i++) {
        const char *name = tg->blocks[i]->name ? tg->blocks[i]->name : "";
        size_t len = strlen(name);
        n += tg->blocks[i]->type == BT_CLUT && !(len >= 3 && !strcmp(name + len - 3, "/lo"));
    }
    graph_destroy(tg);
    diag_finish(&d);
    return n;
}

static float pc_multiplier(float sx, float sw, float sy)
{
    volatile float prod = sx * sw;   /* float32, as onnxruntime rounds it */
    return prod / sy;
}

/* y = QLinearMatMul(a (R, K) uint8, b (K, N) uint8 with per-column scales and zero points):
 * interpreter == simulator (otu_run_both) == fe_onnx_requantize on every element. exhaustive:
 * K = 1 and a = 0..255, so every column sees every (a - za)(b - zb). Else random a with an
 * all-0 and an all-255 row and extreme columns of b (the largest accumulators). Returns the
 * lowered graph's CLUT count. */
static int check_pc_matmul(int64_t N, int64_t R, int64_t K, bool exhaustive, uint64_t seed,
                           int32_t ytype)
{
    uint64_t s = seed;
    int64_t *bv = malloc((size_t)(K * N) * sizeof *bv), *zb = malloc((size_t)N * sizeof *zb);
    float *sb = malloc((size_t)N * sizeof *sb);
    assert_true(bv && zb && sb);
    for (int64_t i = 0; i < K * N; i++)
        bv[i] = (i % N) % 3 == 0 ? (pc_range(&s, 0, 1) ? 255 : 0) : pc_range(&s, 0, 255);
    for (int64_t j = 0; j < N; j++)
        zb[j] = j % 4 == 0 ? 0 : j % 4 == 1 ? 255 : pc_range(&s, 0, 255);
    pc_scales(N, &s, sb);
    float sa = 0.75f, sy = 0.5f;
    int32_t za = (int32_t)pc_range(&s, 0, 255), zy = ytype == ONNX_T_UINT8 ? 100 : -3;
    OnnxBuilder *b = fe_onnx_builder_create(13);
    fe_onnx_builder_input(b, "a", ONNX_T_UINT8, (const int64_t[]){R, K}, 2);
    fe_onnx_builder_output(b, "y", ytype, (const int64_t[]){R, N}, 2);
    fe_onnx_builder_init(b, "sa", ONNX_T_FLOAT, NULL, 0, NULL, &sa);
    fe_onnx_builder_init(b, "za", ONNX_T_UINT8, NULL, 0, (const int64_t[]){za}, NULL);
    fe_onnx_builder_init(b, "b", ONNX_T_UINT8, (const int64_t[]){K, N}, 2, bv, NULL);
    fe_onnx_builder_init(b, "sb", ONNX_T_FLOAT, (const int64_t[]){N}, 1, NULL, sb);
    fe_onnx_builder_init(b, "zb", ONNX_T_UINT8, (const int64_t[]){N}, 1, zb, NULL);
    fe_onnx_builder_init(b, "sy", ONNX_T_FLOAT, NULL, 0, NULL, &sy);
    fe_onnx_builder_init(b, "zy", ytype, NULL, 0, (const int64_t[]){zy}, NULL);
    fe_onnx_builder_node(b, "QLinearMatMul", "mm",
                         NAMES("a", "sa", "za", "b", "sb", "zb", "sy", "zy"), NAMES("y"), NULL,
                         0);
    size_t len;
    uint8_t *buf = otu_pack(b, &len);
    OnnxModel *m = otu_load(buf, len, NULL);
    free(buf);
    OgTensor in, out;
    OgShape is = {3, {1, R, K}};
    assert_true(og_tensor_alloc(&in, &is));
    for (int64_t i = 0; i < R * K; i++)
        in.data[i] = exhaustive ? (int32_t)i : i / K == 0 ? 0 : i / K == 1 ? 255 :
                     (int32_t)pc_range(&s, 0, 255);
    otu_run_both(m, &in, &out);
    int32_t lo = ytype == ONNX_T_UINT8 ? 0 : -128, hi = ytype == ONNX_T_UINT8 ? 255 : 127;
    for (int64_t i = 0; i < R; i++)
        for (int64_t j = 0; j < N; j++) {
            int64_t acc = 0;
            for (int64_t k = 0; k < K; k++)
                acc += (int64_t)(in.data[i * K + k] - za) * (bv[k * N + j] - zb[j]);
            int32_t want = fe_onnx_requantize(acc, pc_multiplier(sa, sb[j], sy), zy, lo, hi);
            if (out.data[i * N + j] != want)
                fail_msg("N=%lld row %lld column %lld (acc %lld): %d, onnxruntime's formula "
                         "gives %d", (long long)N, (long long)i, (long long)j, (long long)acc,
                         out.data[i * N + j], want);
        }
    int nclut = count_clut(m);
    og_tensor_free(&in);
    og_tensor_free(&out);
    fe_onnx_destroy(m);
    free(bv), free(zb), free(sb);
    return nclut;
}

/* y = QLinearConv(x (1, C, 3, 3), w (O, C, 2, 2), per-output-channel scales) with a bias of
 * magnitude up to bmax on even channels: interpreter == simulator == fe_onnx_requantize. x
 * holds extremes in its corners. Returns the lowered graph's CLUT count. */
static int check_pc_conv(int64_t O, uint64_t seed, int32_t ytype, int64_t bmax)
{
    const int64_t C = 2, H = 3, KH = 2, OH = 2;
    uint64_t s = seed;
    int64_t *wv = malloc((size_t)(O * C * KH * KH) * sizeof *wv);
    int64_t *bias = malloc((size_t)O * sizeof *bias);
    float *sw = malloc((size_t)O * sizeof *sw);
    assert_true(wv && bias && sw);
    for (int64_t i = 0; i < O * C * KH * KH; i++)
        wv[i] = (i / (C * KH * KH)) % 3 == 0 ? (pc_range(&s, 0, 1) ? 255 : 0) :
                pc_range(&s, 0, 255);
    for (int64_t o = 0; o < O; o++)
        bias[o] = o % 2 ? 0 : o % 4 == 0 ? bmax : pc_range(&s, -bmax, bmax);
    pc_scales(O, &s, sw);
    float sx = 0.125f, sy = 0.375f;
    int32_t zx = 128, zw = 7, zy = ytype == ONNX_T_UINT8 ? 128 : 0;
    OnnxBuilder *b = fe_onnx_builder_create(13);
    fe_onnx_builder_input(b, "x", ONNX_T_UINT8, (const int64_t[]){1, C, H, H}, 4);
    fe_onnx_builder_output(b, "y", ytype, (const int64_t[]){1, O, OH, OH}, 4);
    fe_onnx_builder_init(b, "sx", ONNX_T_FLOAT, NULL, 0, NULL, &sx);
    fe_onnx_builder_init(b, "zx", ONNX_T_UINT8, NULL, 0, (const int64_t[]){zx}, NULL);
    fe_onnx_builder_init(b, "w", ONNX_T_UINT8, (const int64_t[]){O, C, KH, KH}, 4, wv, NULL);
    fe_onnx_builder_init(b, "sw", ONNX_T_FLOAT, (const int64_t[]){O}, 1, NULL, sw);
    fe_onnx_builder_init(b, "zw", ONNX_T_UINT8, NULL, 0, (const int64_t[]){zw}, NULL);
    fe_onnx_builder_init(b, "sy", ONNX_T_FLOAT, NULL, 0, NULL, &sy);
    fe_onnx_builder_init(b, "zy", ytype, NULL, 0, (const int64_t[]){zy}, NULL);
    fe_onnx_builder_init(b, "bias", ONNX_T_INT32, (const int64_t[]){O}, 1, bias, NULL);
    fe_onnx_builder_node(b, "QLinearConv", "qc",
                         NAMES("x", "sx", "zx", "w", "sw", "zw", "sy", "zy", "bias"),
                         NAMES("y"), NULL, 0);
    size_t len;
    uint8_t *buf = otu_pack(b, &len);
    OnnxModel *m = otu_load(buf, len, NULL);
    free(buf);
    OgTensor in, out;
    OgShape is = {4, {1, C, H, H}};   /* the ONNX batch of 1 is the OpGraph's batch */
    assert_true(og_tensor_alloc(&in, &is));
    for (int64_t i = 0; i < C * H * H; i++)
        in.data[i] = i % 4 == 0 ? 255 : i % 4 == 2 ? 0 : (int32_t)pc_range(&s, 0, 255);
    otu_run_both(m, &in, &out);
    int32_t lo = ytype == ONNX_T_UINT8 ? 0 : -128, hi = ytype == ONNX_T_UINT8 ? 255 : 127;
    for (int64_t o = 0; o < O; o++)
        for (int64_t y = 0; y < OH; y++)
            for (int64_t x = 0; x < OH; x++) {
                int64_t acc = bias[o];
                for (int64_t c = 0; c < C; c++)
                    for (int64_t ky = 0; ky < KH; ky++)
                        for (int64_t kx = 0; kx < KH; kx++)
                            acc += (int64_t)(in.data[(c * H + y + ky) * H + x + kx] - zx) *
                                   (wv[((o * C + c) * KH + ky) * KH + kx] - zw);
                int32_t want = fe_onnx_requantize(acc, pc_multiplier(sx, sw[o], sy), zy, lo,
                                                  hi);
                int32_t got = out.data[(o * OH + y) * OH + x];
                if (got != want)
                    fail_msg("O=%lld channel %lld at (%lld, %lld) (acc %lld): %d, "
                             "onnxruntime's formula gives %d", (long long)O, (long long)o,
                             (long long)y, (long long)x, (long long)acc, got, want);
            }
    int nclut = count_clut(m);
    og_tensor_free(&in);
    og_tensor_free(&out);
    fe_onnx_destroy(m);
    free(wv), free(bias), free(sw);
    return nclut;
}

/* CLUTs of one requantization: 7 "next level" tables, plus one threshold table per step-b
 * group (b = 0..6) of the fine groups (runs of at most 128 distinct rows). */
static int pc_cluts(int64_t nfine)
{
    int n = 7;
    for (int b = 0; b <= 6; b++)
        n += (int)((nfine + (1 << b) - 1) >> b);
    return n;
}

static void test_requant_per_channel(void **state)
{
    (void)state;
    /* every accumulator (a - za)(b - zb) of every column: the 128-channel boundary (one and
     * two fine groups; with repeated scales 129 channels hold fewer than 128 rows) */
    int n128 = check_pc_matmul(128, 256, 1, true, 1, ONNX_T_UINT8);
    int n129 = check_pc_matmul(129, 256, 1, true, 2, ONNX_T_INT8);
    assert_int_equal(n128, pc_cluts(1));
    assert_int_equal(n129, pc_cluts(1));
    check_pc_matmul(256, 256, 1, true, 3, ONNX_T_UINT8);
    /* random and extreme accumulators over K = 5 */
    check_pc_matmul(257, 16, 5, false, 4, ONNX_T_INT8);
    int n2048 = check_pc_matmul(2048, 6, 5, false, 5, ONNX_T_UINT8);
    assert_true(n2048 >= pc_cluts(12) && n2048 <= pc_cluts(16));
    /* QLinearConv: per output channel, with a bias */
    check_pc_conv(64, 6, ONNX_T_UINT8, 40000);
    check_pc_conv(129, 7, ONNX_T_INT8, 40000);
    check_pc_conv(256, 8, ONNX_T_UINT8, 40000);
    check_pc_conv(2048, 9, ONNX_T_INT8, 1 << 26);   /* accumulators of 28 bits */
}

/* Distinct scales on every channel: exactly ceil(N / 128) fine groups; one scale repeated on
 * every channel is per tensor. */
static void test_requant_channel_groups(void **state)
{
    (void)state;
    uint64_t s = 11;
    for (int pass = 0; pass < 3; pass++) {
        int64_t N = pass == 0 ? 128 : pass == 1 ? 129 : 300;
        float *sb = malloc((size_t)N * sizeof *sb);
        int64_t *bv = malloc((size_t)N * sizeof *bv);
        assert_true(sb && bv);
        for (int64_t j = 0; j < N; j++) {
            sb[j] = 0.001f * (float)(j + 1);
            bv[j] = pc_range(&s, 0, 255);
        }
        float sa = 0.5f, sy = 0.25f;
        OnnxBuilder *b = fe_onnx_builder_create(13);
        fe_onnx_builder_input(b, "a", ONNX_T_UINT8, DIMS(256, 1));
        fe_onnx_builder_output(b, "y", ONNX_T_UINT8, (const int64_t[]){256, N}, 2);
        fe_onnx_builder_init(b, "sa", ONNX_T_FLOAT, NULL, 0, NULL, &sa);
        fe_onnx_builder_init(b, "za", ONNX_T_UINT8, NULL, 0, (const int64_t[]){3}, NULL);
        fe_onnx_builder_init(b, "b", ONNX_T_UINT8, (const int64_t[]){1, N}, 2, bv, NULL);
        fe_onnx_builder_init(b, "sb", ONNX_T_FLOAT, (const int64_t[]){N}, 1, NULL, sb);
        fe_onnx_builder_init(b, "zb", ONNX_T_UINT8, NULL, 0, (const int64_t[]){128}, NULL);
        fe_onnx_builder_init(b, "sy", ONNX_T_FLOAT, NULL, 0, NULL, &sy);
        fe_onnx_builder_init(b, "zy", ONNX_T_UINT8, NULL, 0, (const int64_t[]){9}, NULL);
        fe_onnx_builder_node(b, "QLinearMatMul", "mm",
                             NAMES("a", "sa", "za", "b", "sb", "zb", "sy", "zy"), NAMES("y"),
                             NULL, 0);
        size_t len;
        uint8_t *buf = otu_pack(b, &len);
        OnnxModel *m = otu_load(buf, len, NULL);
        free(buf);
        OgTensor in, out;
        OgShape is = {3, {1, 256, 1}};
        assert_true(og_tensor_alloc(&in, &is));
        for (int i = 0; i < 256; i++)
            in.data[i] = i;
        otu_run_both(m, &in, &out);
        for (int64_t i = 0; i < 256; i++)
            for (int64_t j = 0; j < N; j++) {
                int64_t acc = (i - 3) * (bv[j] - 128);
                int32_t want = fe_onnx_requantize(acc, pc_multiplier(sa, sb[j], sy), 9, 0, 255);
                if (out.data[i * N + j] != want)
                    fail_msg("N=%lld: a=%lld column %lld: %d, want %d", (long long)N,
                             (long long)i, (long long)j, out.data[i * N + j], want);
            }
        assert_int_equal(count_clut(m), pc_cluts((N + 127) / 128));
        og_tensor_free(&in);
        og_tensor_free(&out);
        fe_onnx_destroy(m);
        free(sb), free(bv);
    }
}

/* An input of four dims not led by 1 (here 2 x 3 x 4 x 5) is one sample of four dims: its
 * INPUT block carries it in y x f only (6 x 4 x 5; the existing tools' format gives an INPUT
 * no r), and both paths still take the array in its ONNX shape. */
static void test_input_without_r(void **state)
{
    (void)state;
    OnnxBuilder *b = fe_onnx_builder_create(13);
    fe_onnx_builder_input(b, "x", ONNX_T_INT8, DIMS(2, 3, 4, 5));
    fe_onnx_builder_output(b, "y", ONNX_T_INT8, DIMS(2, 3, 4, 5));
    fe_onnx_builder_node(b, "Relu", "relu", NAMES("x"), NAMES("y"), NULL, 0);
    size_t len;
    uint8_t *buf = otu_pack(b, &len);
    OnnxModel *m = otu_load(buf, len, NULL);
    free(buf);
    Diag d;
    diag_init(&d, "model.onnx");
    Graph *tg = NULL;
    assert_int_equal(fe_lower(m->g, NULL, &tg, &d), ST_OK);
    const Block *in = NULL;
    for (uint32_t i = 0; i < tg->n_blocks; i++)
        if (tg->blocks[i]->type == BT_INPUT)
            in = tg->blocks[i];
    assert_non_null(in);
    const int32_t want_in[TIR_NDIMS] = {6, 4, 5, 0};
    assert_memory_equal(in->shape.d, want_in, sizeof want_in);
    graph_destroy(tg);
    diag_finish(&d);
    OgTensor x, out;
    OgShape s = {5, {1, 2, 3, 4, 5}};   /* the OpGraph's: the lowering's batch of 1 first */
    assert_true(og_tensor_alloc(&x, &s));
    for (int i = 0; i < 120; i++)
        x.data[i] = i * 37 % 255 - 127;
    otu_run_both(m, &x, &out);
    for (int i = 0; i < 120; i++)
        assert_int_equal(out.data[i], x.data[i] > 0 ? x.data[i] : 0);
    og_tensor_free(&x);
    og_tensor_free(&out);
    fe_onnx_destroy(m);
}

/* An NCHW input with a batch of 1 is the lowering's batch (fe_onnx_batch_folded): its INPUT
 * block is y x f (no r, which the existing tools' format forbids on an INPUT), the simulator
 * reads the ONNX-shaped array as a batch of one sample, and both paths give the output the
 * ONNX output's own shape (its model tensor), here (18,) after a Reshape. */
static void test_batch_folded_shapes(void **state)
{
    (void)state;
    OnnxBuilder *b = fe_onnx_builder_create(13);
    fe_onnx_builder_input(b, "x", ONNX_T_INT32, DIMS(1, 2, 3, 3));
    fe_onnx_builder_output(b, "y", ONNX_T_INT32, (const int64_t[]){18}, 1);
    fe_onnx_builder_init(b, "s", ONNX_T_INT64, (const int64_t[]){1}, 1, (const int64_t[]){18},
                         NULL);
    fe_onnx_builder_node(b, "Reshape", "flat", NAMES("x", "s"), NAMES("y"), NULL, 0);
    size_t len;
    uint8_t *buf = otu_pack(b, &len);
    OnnxModel *m = otu_load(buf, len, NULL);
    free(buf);
    Diag d;
    diag_init(&d, "model.onnx");
    Graph *tg = NULL;
    assert_int_equal(fe_lower(m->g, NULL, &tg, &d), ST_OK);
    const Block *in = NULL;
    for (uint32_t i = 0; i < tg->n_blocks; i++)
        if (tg->blocks[i]->type == BT_INPUT)
            in = tg->blocks[i];
    assert_non_null(in);
    const int32_t want_in[TIR_NDIMS] = {2, 3, 3, 0};
    assert_memory_equal(in->shape.d, want_in, sizeof want_in);

    int32_t v[18];
    for (int i = 0; i < 18; i++)
        v[i] = i - 9;
    NpyArray arr = {0};
    arr.dtype = NPY_I32;
    arr.ndim = 4;
    arr.shape[0] = 1, arr.shape[1] = 2, arr.shape[2] = 3, arr.shape[3] = 3;
    arr.count = 18;
    arr.i32 = v;
    FeModelInput fin = {"x", &arr, NULL};
    OgTensor out;
    assert_int_equal(fe_onnx_run(m, &fin, 1, &out, &d), ST_OK);
    assert_int_equal(out.shape.ndim, 1);   /* the ONNX output's own shape */
    assert_int_equal(out.shape.d[0], 18);

    SimOptions so = {0};
    SimRun *run = NULL;
    assert_int_equal(sim_create(tg, &so, &run, &d), ST_OK);
    SimInput si = {"0", &arr};
    SimResult res;
    memset(&res, 0, sizeof res);
    assert_int_equal(sim_run(run, &si, 1, &res, &d), ST_OK);
    assert_int_equal(res.n_outputs, 1);
    assert_int_equal(res.outputs[0].ndim, out.shape.ndim);
    for (uint32_t k = 0; k < out.shape.ndim; k++)
        assert_int_equal(res.outputs[0].shape[k], out.shape.d[k]);
    assert_memory_equal(res.outputs[0].data, out.data, sizeof v);
    sim_result_free(&res);
    sim_destroy(run);
    og_tensor_free(&out);
    graph_destroy(tg);
    fe_onnx_destroy(m);
    diag_finish(&d);
}

/* More channels with their own scale than the cap: a logic error before the tables are
 * allocated. */
static void test_requant_channel_limit(void **state)
{
    (void)state;
    const int64_t N = 65537;
    float *sb = malloc((size_t)N * sizeof *sb);
    int64_t *bv = calloc((size_t)N, sizeof *bv);
    assert_true(sb && bv);
    for (int64_t j = 0; j < N; j++)
        sb[j] = 1.0f + (float)j;
    float one = 1.0f;
    OnnxBuilder *b = fe_onnx_builder_create(13);
    fe_onnx_builder_input(b, "a", ONNX_T_UINT8, DIMS(1, 1));
    fe_onnx_builder_output(b, "y", ONNX_T_UINT8, (const int64_t[]){1, N}, 2);
    fe_onnx_builder_init(b, "sa", ONNX_T_FLOAT, NULL, 0, NULL, &one);
    fe_onnx_builder_init(b, "za", ONNX_T_UINT8, NULL, 0, (const int64_t[]){0}, NULL);
    fe_onnx_builder_init(b, "b", ONNX_T_UINT8, (const int64_t[]){1, N}, 2, bv, NULL);
    fe_onnx_builder_init(b, "sb", ONNX_T_FLOAT, (const int64_t[]){N}, 1, NULL, sb);
    fe_onnx_builder_init(b, "sy", ONNX_T_FLOAT, NULL, 0, NULL, &one);
    fe_onnx_builder_node(b, "QLinearMatMul", "wide",
                         NAMES("a", "sa", "za", "b", "sb", "", "sy", ""), NAMES("y"), NULL, 0);
    size_t len;
    uint8_t *buf = otu_pack(b, &len);
    Diag d;
    diag_init(&d, "model.onnx");
    OnnxModel *m = NULL;
    assert_int_equal(fe_onnx_load_mem(buf, len, NULL, &m, &d), ST_LOGIC);
    assert_null(m);
    int k = diag_find(&d, "onnx.quant.channels");
    assert_true(k >= 0);
    assert_non_null(strstr(d.entries[k].what, "65537 channels"));
    diag_finish(&d);
    free(buf), free(sb), free(bv);
}

/* ---- integer Div of two computed uint8 tensors ---- */

/* Div(x, y) over every pair of uint8 values (y = 0 included: ONNX leaves it undefined, CVM
 * gives 0): interpreter == simulator == C's truncating division. Both are graph inputs of
 * precision 9, so the lowering knows no sign: the sign-magnitude tables (docs/lowering.md). */
static void test_div_uint8_all_pairs(void **state)
{
    (void)state;
    OnnxBuilder *b = fe_onnx_builder_create(13);
    fe_onnx_builder_input(b, "x", ONNX_T_UINT8, DIMS(256, 256));
    fe_onnx_builder_input(b, "y", ONNX_T_UINT8, DIMS(256, 256));
    fe_onnx_builder_output(b, "z", ONNX_T_UINT8, DIMS(256, 256));
    fe_onnx_builder_node(b, "Div", "div", NAMES("x", "y"), NAMES("z"), NULL, 0);
    size_t len;
    uint8_t *buf = otu_pack(b, &len);
    OnnxModel *m = otu_load(buf, len, NULL);
    free(buf);
    OgTensor in[2], out;
    OgShape s = {3, {1, 256, 256}};
    assert_true(og_tensor_alloc(&in[0], &s) && og_tensor_alloc(&in[1], &s));
    for (int i = 0; i < 65536; i++) {
        in[0].data[i] = i / 256;
        in[1].data[i] = i % 256;
    }
    otu_run_both(m, in, &out);
    for (int i = 0; i < 65536; i++) {
        int32_t a = i / 256, d = i % 256, want = d ? a / d : 0;
        if (out.data[i] != want)
            fail_msg("%d / %d: %d, want %d", a, d, out.data[i], want);
    }
    og_tensor_free(&in[0]);
    og_tensor_free(&in[1]);
    og_tensor_free(&out);
    fe_onnx_destroy(m);
}

/* ---- errors ---- */

static void test_unsupported_all(void **state)
{
    (void)state;
    OnnxBuilder *b = fe_onnx_builder_create(13);
    fe_onnx_builder_input(b, "x", ONNX_T_INT8, DIMS(1, 4));
    fe_onnx_builder_output(b, "y", ONNX_T_INT8, DIMS(1, 4));
    fe_onnx_builder_node(b, "Softmax", "sm", NAMES("x"), NAMES("a"), NULL, 0);
    fe_onnx_builder_node(b, "Relu", "ok", NAMES("a"), NAMES("b"), NULL, 0);
    fe_onnx_builder_node(b, "Sigmoid", "sg", NAMES("b"), NAMES("c"), NULL, 0);
    fe_onnx_builder_node(b, "Erf", "", NAMES("c"), NAMES("y"), NULL, 0);
    size_t len;
    uint8_t *buf = otu_pack(b, &len);
    Diag d;
    diag_init(&d, "model.onnx");
    OnnxModel *m = NULL;
    assert_int_equal(fe_onnx_load_mem(buf, len, NULL, &m, &d), ST_LOGIC);
    assert_null(m);
    /* three entries, one a node, plus the summary */
    size_t n = 0;
    const char *want[] = {"node 0 'sm' (Softmax, opset 13)", "node 2 'sg' (Sigmoid, opset 13)",
                          "node 3 'Erf_3' (Erf, opset 13)"};
    for (size_t i = 0; i < d.n; i++) {
        assert_string_equal(d.entries[i].rule, "onnx.unsupported");
        if (d.entries[i].where && d.entries[i].where[0]) {
            assert_true(n < 3);
            assert_string_equal(d.entries[i].where, want[n]);
            n++;
        }
    }
    assert_int_equal(n, 3);
    assert_non_null(strstr(d.entries[d.n - 1].what, "3 nodes of 4"));
    diag_finish(&d);
    free(buf);
}

static void test_nonintegral_weights(void **state)
{
    (void)state;
    OnnxBuilder *b = fe_onnx_builder_create(13);
    fe_onnx_builder_input(b, "x", ONNX_T_FLOAT, DIMS(1, 1, 4, 4));
    fe_onnx_builder_output(b, "y", ONNX_T_FLOAT, DIMS(1, 1, 4, 4));
    float w[9] = {1, 2, 3, 4, 0.5f, 6, 7, 8, 9};
    fe_onnx_builder_init(b, "w", ONNX_T_FLOAT, DIMS(1, 1, 3, 3), NULL, w);
    OnnxBuildAttr a[] = {{"pads", OBA_INTS, 0, (const int64_t[]){1, 1, 1, 1}, 4, 0, NULL}};
    fe_onnx_builder_node(b, "Conv", "conv", NAMES("x", "w"), NAMES("y"), a, 1);
    size_t len;
    uint8_t *buf = otu_pack(b, &len);
    Diag d;
    diag_init(&d, "model.onnx");
    OnnxModel *m = NULL;
    assert_int_equal(fe_onnx_load_mem(buf, len, NULL, &m, &d), ST_LOGIC);
    assert_true(diag_find(&d, "onnx.float.weights") >= 0);
    assert_non_null(strstr(d.entries[diag_find(&d, "onnx.float.weights")].what,
                           "quantize the model first"));
    diag_finish(&d);
    free(buf);
}

/* Conv and MaxPool over 3 images along axis 0 (the whole ONNX tensor is one sample): the
 * lowering convolves each image on its own and pools all images' channels side by side;
 * interpreter == simulator == plain loops. (fuzz_compile_onnx found MaxPool over 44 images
 * as an internal error.) */
static void test_images_along_axis0(void **state)
{
    (void)state;
    enum { N = 3, C = 2, H = 5, W = 5, O = 4 };
    OnnxBuilder *b = fe_onnx_builder_create(13);
    fe_onnx_builder_input(b, "x", ONNX_T_FLOAT, DIMS(N, C, H, W));
    fe_onnx_builder_output(b, "z", ONNX_T_FLOAT, DIMS(N, O, H - 1, W - 1));
    float w[O * C * 9];
    for (int i = 0; i < O * C * 9; i++)
        w[i] = (float)((i * 7) % 11 - 5);
    fe_onnx_builder_init(b, "w", ONNX_T_FLOAT, DIMS(O, C, 3, 3), NULL, w);
    OnnxBuildAttr pads[] = {{"pads", OBA_INTS, 0, (const int64_t[]){1, 1, 1, 1}, 4, 0, NULL}};
    fe_onnx_builder_node(b, "Conv", "conv", NAMES("x", "w"), NAMES("y"), pads, 1);
    OnnxBuildAttr k[] = {{"kernel_shape", OBA_INTS, 0, (const int64_t[]){2, 2}, 2, 0, NULL}};
    fe_onnx_builder_node(b, "MaxPool", "pool", NAMES("y"), NAMES("z"), k, 1);
    size_t len;
    uint8_t *buf = otu_pack(b, &len);
    OnnxModel *m = otu_load(buf, len, NULL);
    int32_t xv[N * C * H * W];
    for (int i = 0; i < N * C * H * W; i++)
        xv[i] = (i * 37) % 201 - 100;
    OgTensor in = {{5, {1, N, C, H, W}}, N * C * H * W, xv}; /* the one sample */
    OgTensor out;
    otu_run_both(m, &in, &out);
    assert_int_equal(out.count, N * O * (H - 1) * (W - 1));
    for (int n = 0; n < N; n++)
        for (int o = 0; o < O; o++)
            for (int py = 0; py < H - 1; py++)
                for (int px = 0; px < W - 1; px++) {
                    int64_t best = INT64_MIN;
                    for (int dy = 0; dy < 2; dy++)
                        for (int dx = 0; dx < 2; dx++) {
                            int64_t acc = 0;
                            int y = py + dy, x = px + dx;
                            for (int cc = 0; cc < C; cc++)
                                for (int ky = 0; ky < 3; ky++)
                                    for (int kx = 0; kx < 3; kx++) {
                                        int iy = y + ky - 1, ix = x + kx - 1;
                                        if (iy < 0 || iy >= H || ix < 0 || ix >= W)
                                            continue;
                                        acc += (int64_t)xv[((n * C + cc) * H + iy) * W + ix] *
                                               (int64_t)w[((o * C + cc) * 3 + ky) * 3 + kx];
                                    }
                            if (acc > best)
                                best = acc;
                        }
                    int64_t got = out.data[((n * O + o) * (H - 1) + py) * (W - 1) + px];
                    if (got != best)
                        fail_msg("image %d channel %d (%d, %d): %lld, expected %lld", n, o, py,
                                 px, (long long)got, (long long)best);
                }
    og_tensor_free(&out);
    fe_onnx_destroy(m);
    free(buf);
}

/* Conv -> Div 2^s -> Floor -> Clip: floor(conv / 8) clipped, on float tensors of integers;
 * and a Div not followed by Floor is refused. */
static void pattern_model(bool with_floor, uint8_t **buf, size_t *len)
{
    OnnxBuilder *b = fe_onnx_builder_create(13);
    fe_onnx_builder_input(b, "x", ONNX_T_FLOAT, DIMS(1, 1, 4, 4));
    fe_onnx_builder_output(b, "y", ONNX_T_FLOAT, DIMS(1, 1, 4, 4));
    float w[9] = {1, -2, 3, -4, 5, -6, 7, -8, 9}, eight = 8, lo = -10, hi = 10;
    fe_onnx_builder_init(b, "w", ONNX_T_FLOAT, DIMS(1, 1, 3, 3), NULL, w);
    fe_onnx_builder_init(b, "eight", ONNX_T_FLOAT, NULL, 0, NULL, &eight);
    fe_onnx_builder_init(b, "lo", ONNX_T_FLOAT, NULL, 0, NULL, &lo);
    fe_onnx_builder_init(b, "hi", ONNX_T_FLOAT, NULL, 0, NULL, &hi);
    OnnxBuildAttr a[] = {{"pads", OBA_INTS, 0, (const int64_t[]){1, 1, 1, 1}, 4, 0, NULL}};
    fe_onnx_builder_node(b, "Conv", "conv", NAMES("x", "w"), NAMES("c"), a, 1);
    fe_onnx_builder_node(b, "Div", "div", NAMES("c", "eight"), NAMES("q"), NULL, 0);
    if (with_floor)
        fe_onnx_builder_node(b, "Floor", "floor", NAMES("q"), NAMES("f"), NULL, 0);
    fe_onnx_builder_node(b, "Clip", "clip", NAMES(with_floor ? "f" : "q", "lo", "hi"),
                         NAMES("y"), NULL, 0);
    *buf = otu_pack(b, len);
}

static void test_div_floor_pattern(void **state)
{
    (void)state;
    uint8_t *buf;
    size_t len;
    pattern_model(true, &buf, &len);
    OnnxModel *m = otu_load(buf, len, NULL);
    free(buf);
    assert_int_equal(m->inputs[0].kind, ONNX_EDGE_FLOAT_INT);
    float xf[16];
    for (int i = 0; i < 16; i++)
        xf[i] = (float)((i * 37) % 23 - 11);
    Diag d;
    diag_init(&d, NULL);
    OgTensor in, out;
    assert_int_equal(fe_onnx_input_convert(m, 0, NULL, xf, 16, &in, &d), ST_OK);
    otu_run_both(m, &in, &out);
    static const int w[9] = {1, -2, 3, -4, 5, -6, 7, -8, 9};
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++) {
            int64_t acc = 0;
            for (int ky = 0; ky < 3; ky++)
                for (int kx = 0; kx < 3; kx++) {
                    int iy = y + ky - 1, ix = x + kx - 1;
                    if (iy >= 0 && iy < 4 && ix >= 0 && ix < 4)
                        acc += (int64_t)xf[iy * 4 + ix] * w[ky * 3 + kx];
                }
            int64_t q = acc >= 0 ? acc / 8 : -((-acc + 7) / 8);   /* floor */
            q = q < -10 ? -10 : q > 10 ? 10 : q;
            assert_int_equal(out.data[y * 4 + x], q);
        }
    int64_t *oi;
    float *of;
    assert_int_equal(fe_onnx_output_convert(m, 0, out.data, 16, &oi, &of, &d), ST_OK);
    assert_null(oi);
    assert_true(of[0] == (float)out.data[0]);
    free(of);
    og_tensor_free(&in);
    og_tensor_free(&out);
    fe_onnx_destroy(m);
    /* a non-integer input is refused at the edge */
    xf[3] = 0.5f;
    pattern_model(true, &buf, &len);
    m = otu_load(buf, len, NULL);
    free(buf);
    assert_int_equal(fe_onnx_input_convert(m, 0, NULL, xf, 16, &in, &d), ST_LOGIC);
    assert_true(diag_find(&d, "onnx.input.value") >= 0);
    fe_onnx_destroy(m);
    diag_finish(&d);
    /* without Floor */
    pattern_model(false, &buf, &len);
    diag_init(&d, NULL);
    m = NULL;
    assert_int_equal(fe_onnx_load_mem(buf, len, NULL, &m, &d), ST_LOGIC);
    assert_true(diag_find(&d, "onnx.float.div") >= 0);
    diag_finish(&d);
    free(buf);
}

/* Shapes past the limits are logic errors before anything that large is allocated. */
static void test_limits(void **state)
{
    (void)state;
    OnnxBuilder *b = fe_onnx_builder_create(13);
    fe_onnx_builder_input(b, "x", ONNX_T_INT8, DIMS(1, 1));
    fe_onnx_builder_output(b, "y", ONNX_T_INT8, DIMS(16777216, 16777216));
    fe_onnx_builder_init(b, "shape", ONNX_T_INT64, DIMS(2),
                         (const int64_t[]){16777216, 16777216}, NULL);
    fe_onnx_builder_node(b, "Expand", "big", NAMES("x", "shape"), NAMES("y"), NULL, 0);
    size_t len;
    uint8_t *buf = otu_pack(b, &len);
    Diag d;
    diag_init(&d, "model.onnx");
    OnnxModel *m = NULL;
    assert_int_equal(fe_onnx_load_mem(buf, len, NULL, &m, &d), ST_LOGIC);
    assert_true(diag_find(&d, "onnx.shape.volume") >= 0);
    diag_finish(&d);
    free(buf);

    /* element maps: each Transpose of a 2^24-element tensor derives 2^24 entries; the third
     * passes the model's 2^25 [onnx.limit.map], before its map is allocated */
    b = fe_onnx_builder_create(13);
    fe_onnx_builder_input(b, "x", ONNX_T_INT8, DIMS(256, 256, 256));
    fe_onnx_builder_output(b, "t3", ONNX_T_INT8, DIMS(256, 256, 256));
    OnnxBuildAttr perm[] = {{"perm", OBA_INTS, 0, (const int64_t[]){2, 1, 0}, 3, 0, NULL}};
    fe_onnx_builder_node(b, "Transpose", "t1", NAMES("x"), NAMES("t1"), perm, 1);
    fe_onnx_builder_node(b, "Transpose", "t2", NAMES("t1"), NAMES("t2"), perm, 1);
    fe_onnx_builder_node(b, "Transpose", "t3", NAMES("t2"), NAMES("t3"), perm, 1);
    buf = otu_pack(b, &len);
    diag_init(&d, "model.onnx");
    m = NULL;
    assert_int_equal(fe_onnx_load_mem(buf, len, NULL, &m, &d), ST_LOGIC);
    long k = diag_find(&d, "onnx.limit.map");
    assert_true(k >= 0);
    assert_non_null(strstr(d.entries[k].where, "t3"));
    diag_finish(&d);
    free(buf);
}

/* Shape errors name both shapes: Add, Where, Concat, MatMul, Conv, Expand, Reshape. */
static void test_shape_errors_both_shapes(void **state)
{
    (void)state;
    for (int k = 0; k < 7; k++) {
        OnnxBuilder *b = fe_onnx_builder_create(13);
        fe_onnx_builder_input(b, "x", ONNX_T_INT8, DIMS(2, 3));
        fe_onnx_builder_input(b, "z", ONNX_T_INT8, DIMS(4, 3));
        fe_onnx_builder_output(b, "y", ONNX_T_INT32, DIMS(1));
        static const char *const want[][2] = {
            {"(2, 3)", "(4, 3)"}, {"(2, 3)", "(4, 3)"}, {"(4, 3)", "(2, 3)"},
            {"(2, 3)", "(4, 3)"}, {"(2, 2, 1, 1)", "(1, 3, 4, 4)"}, {"(2, 3)", "(5, 3)"},
            {"(4, 2)", "(2, 3)"},
        };
        static const char *const rules[] = {"onnx.shape.broadcast", "onnx.shape.broadcast",
                                            "onnx.shape.concat", "onnx.shape.matmul",
                                            "onnx.shape.conv", "onnx.shape.expand",
                                            "onnx.shape.reshape"};
        OnnxBuildAttr axis = {.name = "axis", .kind = OBA_INT, .i = 0};
        if (k == 0) {
            fe_onnx_builder_node(b, "Add", "add", NAMES("x", "z"), NAMES("y"), NULL, 0);
        } else if (k == 1) {
            fe_onnx_builder_init(b, "c", ONNX_T_BOOL, DIMS(2, 3),
                                 (const int64_t[]){1, 0, 1, 0, 1, 0}, NULL);
            fe_onnx_builder_node(b, "Where", "w", NAMES("c", "x", "z"), NAMES("y"), NULL, 0);
        } else if (k == 2) {
            axis.i = 1;
            fe_onnx_builder_node(b, "Concat", "cat", NAMES("x", "z"), NAMES("y"), &axis, 1);
        } else if (k == 3) {
            fe_onnx_builder_node(b, "MatMulInteger", "mm", NAMES("x", "z"), NAMES("y"), NULL,
                                 0);
        } else if (k == 4) {
            fe_onnx_builder_init(b, "w", ONNX_T_INT8, DIMS(2, 2, 1, 1),
                                 (const int64_t[]){1, 2, 3, 4}, NULL);
            fe_onnx_builder_node(b, "Reshape", "r", NAMES("z", "s"), NAMES("x4"), NULL, 0);
            fe_onnx_builder_init(b, "s", ONNX_T_INT64, DIMS(4), (const int64_t[]){1, 3, 2, 2},
                                 NULL);
            fe_onnx_builder_node(b, "Tile", "t", NAMES("x4", "rep"), NAMES("x44"), NULL, 0);
            fe_onnx_builder_init(b, "rep", ONNX_T_INT64, DIMS(4), (const int64_t[]){1, 1, 2, 2},
                                 NULL);
            fe_onnx_builder_node(b, "ConvInteger", "conv", NAMES("x44", "w"), NAMES("y"), NULL,
                                 0);
        } else if (k == 5) {
            fe_onnx_builder_init(b, "s", ONNX_T_INT64, DIMS(2), (const int64_t[]){5, 3}, NULL);
            fe_onnx_builder_node(b, "Expand", "e", NAMES("x", "s"), NAMES("y"), NULL, 0);
        } else {
            fe_onnx_builder_init(b, "s", ONNX_T_INT64, DIMS(2), (const int64_t[]){4, 2}, NULL);
            fe_onnx_builder_node(b, "Reshape", "r", NAMES("x", "s"), NAMES("y"), NULL, 0);
        }
        size_t len;
        uint8_t *buf = otu_pack(b, &len);
        otu_refused(buf, len, NULL, rules[k], want[k][0]);
        otu_refused(buf, len, NULL, rules[k], want[k][1]);
        free(buf);
    }
}

/* ---- the example models ---- */

static void run_example(const char *name)
{
    const char *bd = getenv("TASKIR_BUILDDIR");
    if (!bd)
        skip();
    char path[4096];
    snprintf(path, sizeof path, "%s/examples/%s.onnx", bd, name);
    Diag d;
    diag_init(&d, path);
    OnnxModel *m = NULL;
    Status st = fe_onnx_load(path, NULL, &m, &d);
    if (st != ST_OK)
        diag_print(&d, stderr, "test");
    assert_int_equal(st, ST_OK);
    snprintf(path, sizeof path, "%s/examples/%s.input.npy", bd, name);
    NpyArray a;
    assert_int_equal(npy_read(path, &a, &d), ST_OK);
    FeModelInput fi = {"x", &a, path};
    OgTensor out[2], conv;
    assert_int_equal(fe_onnx_run(m, &fi, 1, out, &d), ST_OK);
    /* the same through the lowering: otu_run_both checks interpreter == simulator */
    int64_t *ints = malloc((size_t)a.count * sizeof *ints);
    assert_non_null(ints);
    for (int64_t i = 0; i < a.count; i++)
        ints[i] = a.i32[i];
    assert_int_equal(fe_onnx_input_convert(m, 0, ints, NULL, a.count, &conv, &d), ST_OK);
    OgTensor out2[2];
    otu_run_both(m, &conv, out2);
    for (uint32_t j = 0; j < m->noutputs; j++) {
        assert_int_equal(out[j].count, out2[j].count);
        assert_memory_equal(out[j].data, out2[j].data, (size_t)out[j].count * 4);
        og_tensor_free(&out[j]);
        og_tensor_free(&out2[j]);
    }
    free(ints);
    og_tensor_free(&conv);
    npy_free(&a);
    fe_onnx_destroy(m);
    diag_finish(&d);
}

static void test_example_qnet(void **state)
{
    (void)state;
    run_example("qnet");
}

static void test_example_shiftnet(void **state)
{
    (void)state;
    run_example("shiftnet");
}

/* ---- malformed bytes ---- */

static void test_malformed(void **state)
{
    (void)state;
    uint8_t *buf;
    size_t len;
    pattern_model(true, &buf, &len);
    uint64_t s = 12345;
    uint8_t *mut = malloc(len);
    assert_non_null(mut);
    for (int iter = 0; iter < 3000; iter++) {
        memcpy(mut, buf, len);
        size_t n = len;
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        int flips = 1 + (int)((s >> 33) % 4);
        for (int f = 0; f < flips; f++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            mut[(s >> 20) % len] = (uint8_t)(s >> 40);
        }
        if (iter % 3 == 0)
            n = (size_t)((s >> 12) % len);
        Diag d;
        diag_init(&d, NULL);
        OnnxModel *m = NULL;
        Status st = fe_onnx_load_mem(mut, n, NULL, &m, &d);
        assert_true(st == ST_OK || st == ST_LOGIC);
        fe_onnx_destroy(m);
        diag_finish(&d);
    }
    free(mut);
    free(buf);
}

/* ---- AveragePool / GlobalAveragePool + Floor over any area; MatMul with a computed B ----
 * Each model runs in the interpreter and, compiled, in the simulator (otu_run_both: the same
 * bits), and the interpreter's outputs are compared with plain C loops. */

static uint32_t nn_rand(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* Values in [-a, a]: the extremes, their neighbours, zeros and random ones. */
static void nn_fill(int64_t *v, int64_t n, int64_t a, uint32_t seed, int mode)
{
    for (int64_t i = 0; i < n; i++) {
        uint32_t r = nn_rand(&seed);
        switch (mode) {
        case 0: v[i] = a; break;
        case 1: v[i] = -a; break;
        case 2: v[i] = (i & 1) ? a : -a + (int64_t)(r % 3); break;
        default: v[i] = (int64_t)(r % (uint32_t)(2 * a + 1)) - a; break;
        }
    }
}

static int64_t nn_floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

static OnnxModel *nn_load(const uint8_t *buf, size_t len, int32_t float_prec)
{
    OnnxOptions o = {.float_prec = float_prec};
    return otu_load(buf, len, &o);
}

/* Loading must fail with rule. */
static void nn_refused(const uint8_t *buf, size_t len, int32_t float_prec, const char *rule)
{
    OnnxOptions o = {.float_prec = float_prec};
    otu_refused(buf, len, &o, rule, NULL);
}

typedef struct PoolCase {
    int64_t C, H, W;        /* H = 0: a 1-D pool over W */
    int64_t kh, kw, sh, sw, pt, pl, pb, pr;
    int cip, ceil_mode, global;
} PoolCase;

/* The ONNX reference: the mean of the window's elements (count_include_pad: and of its
 * padding within the padded input), floored. */
static void ref_pool(const PoolCase *pc, const int64_t *x, int64_t *oh, int64_t *ow,
                     int64_t *y)
{
    int64_t H = pc->H ? pc->H : 1;
    int64_t dim[2][2];   /* [axis][in, out] */
    int64_t k[2] = {pc->kh, pc->kw}, s[2] = {pc->sh, pc->sw}, p0[2] = {pc->pt, pc->pl},
            p1[2] = {pc->pb, pc->pr}, in[2] = {H, pc->W};
    for (int a = 0; a < 2; a++) {
        int64_t span = in[a] + p0[a] + p1[a] - k[a];
        int64_t o = (pc->ceil_mode ? (span + s[a] - 1) / s[a] : span / s[a]) + 1;
        if (pc->ceil_mode && (o - 1) * s[a] >= in[a] + p0[a])
            o--;
        dim[a][0] = in[a];
        dim[a][1] = o;
    }
    *oh = dim[0][1];
    *ow = dim[1][1];
    for (int64_t c = 0; c < pc->C; c++)
        for (int64_t i = 0; i < *oh; i++)
            for (int64_t j = 0; j < *ow; j++) {
                int64_t sum = 0, cnt = 0;
                for (int64_t ky = 0; ky < k[0]; ky++)
                    for (int64_t kx = 0; kx < k[1]; kx++) {
                        int64_t iy = i * s[0] - p0[0] + ky, ix = j * s[1] - p0[1] + kx;
                        if (iy >= 0 && iy < H && ix >= 0 && ix < pc->W) {
                            sum += x[(c * H + iy) * pc->W + ix];
                            cnt++;
                        } else if (pc->cip && iy < H + p1[0] && ix < pc->W + p1[1]) {
                            cnt++;
                        }
                    }
                y[(c * *oh + i) * *ow + j] = cnt ? nn_floor_div(sum, cnt) : 0;   /* 0/0 */
            }
}

/* An upper bound of the number of outputs. */
static int64_t nn_pool_out_max(const PoolCase *pc)
{
    return pc->C * ((pc->H ? pc->H : 1) + pc->pt + pc->pb + 1) * (pc->W + pc->pl + pc->pr + 1);
}

/* x -> AveragePool (or GlobalAveragePool) -> Floor -> y (with_floor false: no Floor). */
static uint8_t *pool_model(const PoolCase *pc, bool with_floor, size_t *len)
{
    int64_t oh, ow, *y = malloc((size_t)nn_pool_out_max(pc) * sizeof *y);
    int64_t *x = calloc((size_t)(pc->C * (pc->H ? pc->H : 1) * pc->W), sizeof *x);
    assert_non_null(y);
    assert_non_null(x);
    ref_pool(pc, x, &oh, &ow, y);
    free(x);
    free(y);
    OnnxBuilder *b = fe_onnx_builder_create(11);
    if (pc->H)
        fe_onnx_builder_input(b, "x", ONNX_T_FLOAT, DIMS(1, pc->C, pc->H, pc->W));
    else
        fe_onnx_builder_input(b, "x", ONNX_T_FLOAT, DIMS(1, pc->C, pc->W));
    if (pc->H)
        fe_onnx_builder_output(b, "y", ONNX_T_FLOAT, DIMS(1, pc->C, oh, ow));
    else
        fe_onnx_builder_output(b, "y", ONNX_T_FLOAT, DIMS(1, pc->C, ow));
    const char *mid = with_floor ? "m" : "y";
    if (pc->global) {
        fe_onnx_builder_node(b, "GlobalAveragePool", "gap", NAMES("x"), NAMES(mid), NULL, 0);
    } else {
        int64_t ks[2] = {pc->kh, pc->kw}, ss[2] = {pc->sh, pc->sw};
        int64_t pd[4] = {pc->pt, pc->pl, pc->pb, pc->pr}, pd1[2] = {pc->pl, pc->pr};
        bool one = pc->H == 0;
        OnnxBuildAttr a[] = {
            {"kernel_shape", OBA_INTS, 0, one ? ks + 1 : ks, one ? 1 : 2, 0, NULL},
            {"strides", OBA_INTS, 0, one ? ss + 1 : ss, one ? 1 : 2, 0, NULL},
            {"pads", OBA_INTS, 0, one ? pd1 : pd, one ? 2 : 4, 0, NULL},
            {"count_include_pad", OBA_INT, pc->cip, NULL, 0, 0, NULL},
            {"ceil_mode", OBA_INT, pc->ceil_mode, NULL, 0, 0, NULL},
        };
        fe_onnx_builder_node(b, "AveragePool", "pool", NAMES("x"), NAMES(mid), a, 5);
    }
    if (with_floor)
        fe_onnx_builder_node(b, "Floor", "floor", NAMES("m"), NAMES("y"), NULL, 0);
    return otu_pack(b, len);
}

/* Runs a pool case on inputs of magnitude up to 2^(prec-1) - 1 (all modes). */
static void check_pool(const PoolCase *pc, int32_t prec)
{
    size_t len;
    uint8_t *buf = pool_model(pc, true, &len);
    OnnxModel *m = nn_load(buf, len, prec);
    free(buf);
    int64_t H = pc->H ? pc->H : 1, n = pc->C * H * pc->W, a = ((int64_t)1 << (prec - 1)) - 1;
    int64_t *x = malloc((size_t)n * sizeof *x);
    int64_t *want = malloc((size_t)nn_pool_out_max(pc) * sizeof *want);
    float *xf = malloc((size_t)n * sizeof *xf);
    assert_true(x && want && xf);
    for (int mode = 0; mode < 5; mode++) {
        nn_fill(x, n, a, 7u + (uint32_t)mode * 101u, mode);
        for (int64_t i = 0; i < n; i++)
            xf[i] = (float)x[i];
        int64_t oh, ow;
        ref_pool(pc, x, &oh, &ow, want);
        Diag d;
        diag_init(&d, NULL);
        OgTensor in, out;
        assert_int_equal(fe_onnx_input_convert(m, 0, NULL, xf, n, &in, &d), ST_OK);
        diag_finish(&d);
        otu_run_both(m, &in, &out);
        assert_int_equal(out.count, pc->C * oh * ow);
        for (int64_t i = 0; i < out.count; i++)
            if (out.data[i] != want[i])
                fail_msg("pool k %lldx%lld s %lld pads %lld %lld %lld %lld cip %d ceil %d, "
                         "mode %d: element %lld is %d, floor(mean) is %lld", (long long)pc->kh,
                         (long long)pc->kw, (long long)pc->sh, (long long)pc->pt,
                         (long long)pc->pl, (long long)pc->pb, (long long)pc->pr, pc->cip,
                         pc->ceil_mode, mode, (long long)i, out.data[i], (long long)want[i]);
        og_tensor_free(&in);
        og_tensor_free(&out);
    }
    free(x);
    free(want);
    free(xf);
    fe_onnx_destroy(m);
}

static void test_avgpool_floor(void **state)
{
    (void)state;
    static const PoolCase cases[] = {
        /* C  H  W  kh kw sh sw pt pl pb pr cip ceil global */
        {2, 5, 6, 3, 3, 1, 1, 0, 0, 0, 0, 0, 0, 0},    /* area 9 */
        {2, 0, 7, 1, 3, 1, 1, 0, 0, 0, 0, 0, 0, 0},    /* 1-D, area 3 */
        {2, 0, 7, 1, 3, 1, 2, 0, 1, 0, 1, 0, 0, 0},    /* 1-D, pads, stride 2, areas 2 and 3 */
        {3, 7, 7, 3, 3, 2, 2, 1, 1, 1, 1, 0, 0, 0},    /* pads, areas 4, 6, 9 */
        {3, 7, 7, 3, 3, 2, 2, 1, 1, 1, 1, 1, 0, 0},    /* count_include_pad: 9 */
        {2, 6, 5, 3, 2, 2, 1, 2, 0, 1, 1, 0, 0, 0},    /* asymmetric pads */
        {2, 6, 5, 3, 2, 2, 1, 2, 0, 1, 1, 1, 0, 0},
        {2, 4, 4, 3, 3, 2, 2, 0, 0, 0, 0, 0, 1, 0},    /* ceil_mode: 9, 6, 4 */
        {2, 6, 7, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0},    /* ceil_mode + count_include_pad */
        {2, 5, 5, 2, 2, 1, 1, 1, 1, 1, 1, 0, 0, 0},    /* areas 1, 2, 4 */
        {2, 9, 9, 7, 7, 2, 2, 0, 0, 0, 0, 0, 0, 0},    /* area 49 windows */
        {2, 9, 8, 5, 3, 3, 2, 0, 0, 0, 0, 0, 0, 0},    /* area 15, strides */
        {3, 3, 3, 3, 3, 1, 1, 0, 0, 0, 0, 0, 0, 1},    /* global 9 */
        {4, 7, 7, 7, 7, 1, 1, 0, 0, 0, 0, 0, 0, 1},    /* global 49 */
        {2, 4, 4, 4, 4, 1, 1, 0, 0, 0, 0, 0, 0, 1},    /* global 16: a shift */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        check_pool(&cases[i], 16);   /* the default float precision */
        check_pool(&cases[i], 8);
    }
    /* narrow and wide float inputs */
    check_pool(&cases[3], 3);
    check_pool(&cases[3], 22);
    check_pool(&cases[8], 24);
    check_pool(&cases[12], 24);
    check_pool(&cases[13], 24);
}

/* ResNet's head: GlobalAveragePool 7x7 -> 1 over 2048 channels. */
static void test_avgpool_resnet_head(void **state)
{
    (void)state;
    PoolCase pc = {2048, 7, 7, 7, 7, 1, 1, 0, 0, 0, 0, 0, 0, 1};
    check_pool(&pc, 16);
}

/* The exact floor of every sum of a 3x3 window of values within 8 bits: each position of a
 * 1 x 3 x 3 input is swept over [-127, 127] with the others at the extremes. */
static void test_avgpool_every_sum(void **state)
{
    (void)state;
    PoolCase pc = {1, 3, 3, 3, 3, 1, 1, 0, 0, 0, 0, 0, 0, 0};
    size_t len;
    uint8_t *buf = pool_model(&pc, true, &len);
    OnnxModel *m = nn_load(buf, len, 8);
    free(buf);
    /* every sum s in [-1143, 1143] through the interpreter (x: s split evenly over the 9
     * elements); the simulator agrees with it on the inputs of check_pool */
    for (int64_t s = -9 * 127; s <= 9 * 127; s++) {
        float xf[9];
        int64_t rest = s;
        for (int i = 0; i < 9; i++) {
            int64_t v = nn_floor_div(rest, 9 - i);
            v = v > 127 ? 127 : v < -127 ? -127 : v;
            xf[i] = (float)v;
            rest -= v;
        }
        assert_int_equal(rest, 0);
        Diag d;
        diag_init(&d, NULL);
        OgTensor in, out;
        assert_int_equal(fe_onnx_input_convert(m, 0, NULL, xf, 9, &in, &d), ST_OK);
        assert_int_equal(fe_interp_run(m->g, &in, 1, &out, &d), ST_OK);
        diag_finish(&d);
        assert_int_equal(out.data[0], nn_floor_div(s, 9));
        og_tensor_free(&in);
        og_tensor_free(&out);
    }
    fe_onnx_destroy(m);
    check_pool(&pc, 8);
}

/* GlobalAveragePool 7 x 7 at 16 bits (the reduction path): the floor of every sum near the
 * ends of the range, and of every sum that is a multiple of 49 or one below, over all of
 * |sum| <= 49 * 32767; one channel per sum, 4096 at a time. */
static void test_avgpool_gap49_sums(void **state)
{
    (void)state;
    const int64_t C = 4096, B = 49 * 32767;
    PoolCase pc = {C, 7, 7, 7, 7, 1, 1, 0, 0, 0, 0, 0, 0, 1};
    size_t len;
    uint8_t *buf = pool_model(&pc, true, &len);
    OnnxModel *m = nn_load(buf, len, 16);
    free(buf);
    float *xf = malloc((size_t)(C * 49) * sizeof *xf);
    int64_t *sums = malloc((size_t)C * sizeof *sums);
    assert_true(xf && sums);
    int64_t s = -B, n = 0, total = 0;
    while (s <= B) {
        sums[n++] = s;
        /* next: every sum within 20000 of the ends, else the next q * 49 - 1 or q * 49 */
        if (s < -B + 20000 || s >= B - 20000)
            s++;
        else
            s += nn_floor_div(s, 49) * 49 + 48 == s ? 1 : 48;
        if (n < C && s <= B)
            continue;
        for (int64_t ch = 0; ch < C; ch++) {
            int64_t rest = ch < n ? sums[ch] : 0;
            for (int i = 0; i < 49; i++) {
                int64_t v = nn_floor_div(rest, 49 - i);
                xf[ch * 49 + i] = (float)v;
                rest -= v;
            }
        }
        Diag d;
        diag_init(&d, NULL);
        OgTensor in, out;
        assert_int_equal(fe_onnx_input_convert(m, 0, NULL, xf, C * 49, &in, &d), ST_OK);
        diag_finish(&d);
        otu_run_both(m, &in, &out);
        for (int64_t ch = 0; ch < n; ch++)
            if (out.data[ch] != nn_floor_div(sums[ch], 49))
                fail_msg("sum %lld: %d, floor(sum / 49) is %lld", (long long)sums[ch],
                         out.data[ch], (long long)nn_floor_div(sums[ch], 49));
        og_tensor_free(&in);
        og_tensor_free(&out);
        total += n;
        n = 0;
    }
    assert_true(total > 100000);
    free(xf);
    free(sums);
    fe_onnx_destroy(m);
}

static void test_avgpool_refused(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf;
    /* not floored: the averages are not integers */
    PoolCase pc = {2, 5, 6, 3, 3, 1, 1, 0, 0, 0, 0, 0, 0, 0};
    buf = pool_model(&pc, false, &len);
    nn_refused(buf, len, 16, "onnx.float.avg");
    free(buf);
    PoolCase gp = {2, 7, 7, 7, 7, 1, 1, 0, 0, 0, 0, 0, 0, 1};
    buf = pool_model(&gp, false, &len);
    nn_refused(buf, len, 16, "onnx.float.avg");
    free(buf);
    /* sums of 32 bits: no exact division within int32 */
    PoolCase wide = {1, 3, 3, 3, 3, 1, 1, 0, 0, 0, 0, 0, 0, 1};
    buf = pool_model(&wide, true, &len);
    nn_refused(buf, len, 28, "onnx.float.avg");
    free(buf);
    /* a pad as large as the kernel (a window entirely in the padding, 0 / 0 without
     * count_include_pad): refused by onnxruntime's rule for pools, pads < kernel */
    PoolCase pad = {1, 4, 4, 2, 2, 1, 1, 2, 2, 0, 0, 0, 0, 0};
    buf = pool_model(&pad, true, &len);
    nn_refused(buf, len, 16, "onnx.attr");
    free(buf);
}

/* ---- MatMul with a computed B ---- */

typedef struct MmCase {
    int64_t ad[5], bd[5];
    uint32_t an, bn;
    bool a_const, b_const;
} MmCase;

/* numpy matmul over int64 (batch dims broadcast, 1-D operands); yd/yn the result's dims. */
static void ref_matmul(const MmCase *mc, const int64_t *A, const int64_t *B, int64_t azp,
                       const int64_t *bzp, int64_t *Y, int64_t *yd, uint32_t *yn)
{
    int64_t a2[6], b2[6];
    uint32_t an = mc->an, bn = mc->bn;
    memcpy(a2, mc->ad, sizeof mc->ad);
    memcpy(b2, mc->bd, sizeof mc->bd);
    if (an == 1) {
        a2[1] = a2[0];
        a2[0] = 1;
        an = 2;
    }
    if (bn == 1) {
        b2[1] = 1;
        bn = 2;
    }
    int64_t M = a2[an - 2], K = a2[an - 1], N = b2[bn - 1];
    uint32_t nb = (an > bn ? an : bn) - 2;
    int64_t bat[4], ab[4], bb[4];
    for (uint32_t i = 0; i < nb; i++) {
        ab[i] = i + an - 2 >= nb ? a2[i + an - 2 - nb] : 1;
        bb[i] = i + bn - 2 >= nb ? b2[i + bn - 2 - nb] : 1;
        bat[i] = ab[i] > bb[i] ? ab[i] : bb[i];
    }
    int64_t nbat = 1;
    for (uint32_t i = 0; i < nb; i++)
        nbat *= bat[i];
    for (int64_t t = 0; t < nbat; t++) {
        int64_t r = t, ia = 0, ib = 0, sa = 1, sb = 1;
        for (uint32_t i = nb; i-- > 0;) {
            int64_t q = r % bat[i];
            r /= bat[i];
            ia += (ab[i] == 1 ? 0 : q) * sa;
            ib += (bb[i] == 1 ? 0 : q) * sb;
            sa *= ab[i];
            sb *= bb[i];
        }
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
                int64_t acc = 0;
                for (int64_t k = 0; k < K; k++)
                    acc += (A[(ia * M + i) * K + k] - azp) *
                           (B[(ib * K + k) * N + j] - bzp[j]);
                Y[(t * M + i) * N + j] = acc;
            }
    }
    *yn = 0;
    for (uint32_t i = 0; i < nb; i++)
        yd[(*yn)++] = bat[i];
    if (mc->an != 1)
        yd[(*yn)++] = M;
    if (mc->bn != 1)
        yd[(*yn)++] = N;
}

static int64_t nn_volume(const int64_t *d, uint32_t n)
{
    int64_t v = 1;
    for (uint32_t i = 0; i < n; i++)
        v *= d[i];
    return v;
}

/* y = MatMul(a, b) on float tensors of integers within prec bits, b a graph input (or a
 * constant a, or a constant batched b whose batch dims a broadcasts against). */
static void check_matmul(const MmCase *mc, int32_t prec)
{
    int64_t na = nn_volume(mc->ad, mc->an), nb = nn_volume(mc->bd, mc->bn);
    int64_t *A = malloc((size_t)na * sizeof *A), *B = malloc((size_t)nb * sizeof *B);
    int64_t *Y = malloc((size_t)(na * nb + 16) * sizeof *Y), yd[6], zero[4096] = {0};
    float *af = malloc((size_t)na * sizeof *af), *bf = malloc((size_t)nb * sizeof *bf);
    assert_true(A && B && Y && af && bf);
    uint32_t yn;
    int64_t amax = ((int64_t)1 << (prec - 1)) - 1;
    for (int mode = 0; mode < 4; mode++) {
        nn_fill(A, na, amax, 11u + (uint32_t)mode, mode);
        nn_fill(B, nb, amax, 23u + (uint32_t)mode, mode == 1 ? 0 : mode);
        for (int64_t i = 0; i < na; i++)
            af[i] = (float)A[i];
        for (int64_t i = 0; i < nb; i++)
            bf[i] = (float)B[i];
        ref_matmul(mc, A, B, 0, zero, Y, yd, &yn);
        OnnxBuilder *b = fe_onnx_builder_create(13);
        if (mc->a_const)
            fe_onnx_builder_init(b, "a", ONNX_T_FLOAT, mc->ad, mc->an, NULL, af);
        else
            fe_onnx_builder_input(b, "a", ONNX_T_FLOAT, mc->ad, mc->an);
        if (mc->b_const)
            fe_onnx_builder_init(b, "b", ONNX_T_FLOAT, mc->bd, mc->bn, NULL, bf);
        else
            fe_onnx_builder_input(b, "b", ONNX_T_FLOAT, mc->bd, mc->bn);
        fe_onnx_builder_output(b, "y", ONNX_T_FLOAT, yd, yn);
        fe_onnx_builder_node(b, "MatMul", "mm", NAMES("a", "b"), NAMES("y"), NULL, 0);
        size_t len;
        uint8_t *buf = otu_pack(b, &len);
        OnnxModel *m = nn_load(buf, len, prec);
        free(buf);
        Diag d;
        diag_init(&d, NULL);
        OgTensor in[2], out;
        uint32_t k = 0;
        if (!mc->a_const)
            assert_int_equal(fe_onnx_input_convert(m, k++, NULL, af, na, &in[0], &d), ST_OK);
        if (!mc->b_const) {
            assert_int_equal(fe_onnx_input_convert(m, k, NULL, bf, nb, &in[k], &d), ST_OK);
            k++;
        }
        diag_finish(&d);
        otu_run_both(m, in, &out);
        assert_int_equal(out.count, nn_volume(yd, yn));
        for (int64_t i = 0; i < out.count; i++)
            if (out.data[i] != Y[i])
                fail_msg("matmul mode %d element %lld: %d, want %lld", mode, (long long)i,
                         out.data[i], (long long)Y[i]);
        for (uint32_t j = 0; j < k; j++)
            og_tensor_free(&in[j]);
        og_tensor_free(&out);
        fe_onnx_destroy(m);
    }
    free(A);
    free(B);
    free(Y);
    free(af);
    free(bf);
}

static void test_matmul_dynamic(void **state)
{
    (void)state;
    static const MmCase cases[] = {
        {{3, 5}, {5, 4}, 2, 2, false, false},
        {{1, 7}, {7, 1}, 2, 2, false, false},
        {{2, 3, 4}, {2, 4, 5}, 3, 3, false, false},        /* batched */
        {{2, 3, 4, 5}, {3, 5, 2}, 4, 3, false, false},     /* batch dims broadcast */
        {{2, 1, 4, 5}, {1, 3, 5, 2}, 4, 4, false, false},
        {{4, 5}, {2, 5, 3}, 2, 3, false, false},           /* a 2-D A, a batched B */
        {{5}, {2, 5, 3}, 1, 3, false, false},              /* 1-D A */
        {{2, 3, 5}, {5}, 3, 1, false, false},              /* 1-D B */
        {{3, 6}, {6, 4}, 2, 2, true, false},               /* a constant A */
        {{2, 3, 4}, {1, 4, 5}, 3, 3, false, true},         /* a constant B, batch broadcast */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        check_matmul(&cases[i], 8);
        check_matmul(&cases[i], 12);
    }
}

/* MatMulInteger (uint8 or int8) with zero points, B computed; and QLinearMatMul with B
 * computed, against onnxruntime's requantization formula. */
static void check_matmul_integer(int32_t ta, int32_t tb, int64_t azp, const int64_t *bzp,
                                 bool per_col, bool qlinear)
{
    const int64_t M = 3, K = 8, N = 4;
    int64_t A[24], B[32], Y[12], yd[6], bz[4];
    uint32_t yn;
    /* int8 inputs hold -127 .. 127 (the chip's symmetric int8 precision) */
    int64_t alo = ta == ONNX_T_UINT8 ? 0 : -127, ahi = ta == ONNX_T_UINT8 ? 255 : 127;
    int64_t blo = tb == ONNX_T_UINT8 ? 0 : -127, bhi = tb == ONNX_T_UINT8 ? 255 : 127;
    for (int j = 0; j < N; j++)
        bz[j] = per_col ? bzp[j] : bzp[0];
    float sa = 0.02f, sb = 0.0137f, sy = 0.31f;
    int32_t zy = 77;
    for (int mode = 0; mode < 4; mode++) {
        uint32_t seed = 5u + (uint32_t)mode;
        for (int i = 0; i < M * K; i++)
            A[i] = mode == 0 ? alo : mode == 1 ? ahi : mode == 2 ? ((i & 1) ? alo : ahi) :
                   alo + (int64_t)(nn_rand(&seed) % (uint32_t)(ahi - alo + 1));
        for (int i = 0; i < K * N; i++)
            B[i] = mode == 0 ? bhi : mode == 1 ? blo : mode == 2 ? ((i & 2) ? blo : bhi) :
                   blo + (int64_t)(nn_rand(&seed) % (uint32_t)(bhi - blo + 1));
        MmCase mc = {{M, K}, {K, N}, 2, 2, false, false};
        ref_matmul(&mc, A, B, azp, bz, Y, yd, &yn);
        OnnxBuilder *b = fe_onnx_builder_create(13);
        fe_onnx_builder_input(b, "a", ta, DIMS(M, K));
        fe_onnx_builder_input(b, "b", tb, DIMS(K, N));
        fe_onnx_builder_output(b, "y", qlinear ? ONNX_T_UINT8 : ONNX_T_INT32, DIMS(M, N));
        fe_onnx_builder_init(b, "az", ta, NULL, 0, &azp, NULL);
        if (per_col)
            fe_onnx_builder_init(b, "bz", tb, DIMS(N), bz, NULL);
        else
            fe_onnx_builder_init(b, "bz", tb, NULL, 0, bz, NULL);
        if (qlinear) {
            fe_onnx_builder_init(b, "sa", ONNX_T_FLOAT, NULL, 0, NULL, &sa);
            fe_onnx_builder_init(b, "sb", ONNX_T_FLOAT, NULL, 0, NULL, &sb);
            fe_onnx_builder_init(b, "sy", ONNX_T_FLOAT, NULL, 0, NULL, &sy);
            fe_onnx_builder_init(b, "zy", ONNX_T_UINT8, NULL, 0, (const int64_t[]){zy}, NULL);
            fe_onnx_builder_node(b, "QLinearMatMul", "qmm",
                                 NAMES("a", "sa", "az", "b", "sb", "bz", "sy", "zy"),
                                 NAMES("y"), NULL, 0);
        } else {
            fe_onnx_builder_node(b, "MatMulInteger", "mmi", NAMES("a", "b", "az", "bz"),
                                 NAMES("y"), NULL, 0);
        }
        size_t len;
        uint8_t *buf = otu_pack(b, &len);
        OnnxModel *m = otu_load(buf, len, NULL);
        free(buf);
        Diag d;
        diag_init(&d, NULL);
        OgTensor in[2], out;
        assert_int_equal(fe_onnx_input_convert(m, 0, A, NULL, M * K, &in[0], &d), ST_OK);
        assert_int_equal(fe_onnx_input_convert(m, 1, B, NULL, K * N, &in[1], &d), ST_OK);
        diag_finish(&d);
        otu_run_both(m, in, &out);
        volatile float prod = sa * sb;
        float mult = prod / sy;
        for (int i = 0; i < M * N; i++) {
            int64_t want = qlinear ? fe_onnx_requantize(Y[i], mult, zy, 0, 255) : Y[i];
            if (out.data[i] != want)
                fail_msg("%s mode %d element %d: %d, want %lld", qlinear ? "QLinearMatMul" :
                         "MatMulInteger", mode, i, out.data[i], (long long)want);
        }
        og_tensor_free(&in[0]);
        og_tensor_free(&in[1]);
        og_tensor_free(&out);
        fe_onnx_destroy(m);
    }
}

static void test_matmul_integer_dynamic(void **state)
{
    (void)state;
    check_matmul_integer(ONNX_T_UINT8, ONNX_T_UINT8, 128, (const int64_t[]){131}, false,
                         false);
    check_matmul_integer(ONNX_T_UINT8, ONNX_T_UINT8, 0, (const int64_t[]){0, 255, 17, 128},
                         true, false);
    check_matmul_integer(ONNX_T_INT8, ONNX_T_INT8, -127, (const int64_t[]){127}, false,
                         false);
    check_matmul_integer(ONNX_T_UINT8, ONNX_T_INT8, 3, (const int64_t[]){-5}, false, false);
    check_matmul_integer(ONNX_T_UINT8, ONNX_T_UINT8, 113, (const int64_t[]){131}, false,
                         true);
    check_matmul_integer(ONNX_T_INT8, ONNX_T_INT8, 0, (const int64_t[]){-3}, false, true);
}

static void test_matmul_dynamic_refused(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf;
    /* 16-bit operands over K = 8: the sum of products may leave int32 */
    OnnxBuilder *b = fe_onnx_builder_create(13);
    fe_onnx_builder_input(b, "a", ONNX_T_FLOAT, DIMS(2, 8));
    fe_onnx_builder_input(b, "b", ONNX_T_FLOAT, DIMS(8, 3));
    fe_onnx_builder_output(b, "y", ONNX_T_FLOAT, DIMS(2, 3));
    fe_onnx_builder_node(b, "MatMul", "mm", NAMES("a", "b"), NAMES("y"), NULL, 0);
    buf = otu_pack(b, &len);
    nn_refused(buf, len, 16, "onnx.precision");
    free(buf);
    /* batch dims that do not broadcast */
    b = fe_onnx_builder_create(13);
    fe_onnx_builder_input(b, "a", ONNX_T_FLOAT, DIMS(2, 3, 4));
    fe_onnx_builder_input(b, "b", ONNX_T_FLOAT, DIMS(3, 4, 5));
    fe_onnx_builder_output(b, "y", ONNX_T_FLOAT, DIMS(3, 3, 5));
    fe_onnx_builder_node(b, "MatMul", "mm", NAMES("a", "b"), NAMES("y"), NULL, 0);
    buf = otu_pack(b, &len);
    nn_refused(buf, len, 8, "onnx.shape.broadcast");
    free(buf);
    /* the inner dims differ */
    b = fe_onnx_builder_create(13);
    fe_onnx_builder_input(b, "a", ONNX_T_FLOAT, DIMS(2, 3));
    fe_onnx_builder_input(b, "b", ONNX_T_FLOAT, DIMS(4, 5));
    fe_onnx_builder_output(b, "y", ONNX_T_FLOAT, DIMS(2, 5));
    fe_onnx_builder_node(b, "MatMul", "mm", NAMES("a", "b"), NAMES("y"), NULL, 0);
    buf = otu_pack(b, &len);
    nn_refused(buf, len, 8, "onnx.shape.matmul");
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rounding),
        cmocka_unit_test(test_requant_exhaustive),
        cmocka_unit_test(test_requant_per_channel),
        cmocka_unit_test(test_requant_channel_groups),
        cmocka_unit_test(test_requant_channel_limit),
        cmocka_unit_test(test_div_uint8_all_pairs),
        cmocka_unit_test(test_unsupported_all),
        cmocka_unit_test(test_nonintegral_weights),
        cmocka_unit_test(test_shape_errors_both_shapes),
        cmocka_unit_test(test_div_floor_pattern),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_example_qnet),
        cmocka_unit_test(test_example_shiftnet),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_images_along_axis0),
        cmocka_unit_test(test_avgpool_floor),
        cmocka_unit_test(test_avgpool_resnet_head),
        cmocka_unit_test(test_avgpool_every_sum),
        cmocka_unit_test(test_avgpool_gap49_sums),
        cmocka_unit_test(test_avgpool_refused),
        cmocka_unit_test(test_matmul_dynamic),
        cmocka_unit_test(test_matmul_integer_dynamic),
        cmocka_unit_test(test_matmul_dynamic_refused),
        cmocka_unit_test(test_batch_folded_shapes),
        cmocka_unit_test(test_input_without_r),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
