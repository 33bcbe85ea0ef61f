/* test_onnx_frontend.c: the ONNX frontend beyond the conformance data: the reference
 * rounding, requantization over every accumulator a model can produce (interpreter ==
 * onnxruntime's formula == simulator), the one error listing every unsupported node,
 * non-integral weights, the Div -> Floor -> Clip pattern, the example models, and malformed
 * bytes (never a crash). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "frontend/interp.h"
#include "frontend/lower.h"
#include "frontend/onnx.h"
#include "frontend/onnx_build.h"
#include "frontend/run_model.h"
#include "taskir/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIMS(...) ((const int64_t[]){__VA_ARGS__}), \
    (sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
#define NAMES(...) ((const char *const[]){__VA_ARGS__, NULL})

static uint8_t *pack(OnnxBuilder *b, size_t *len)
{
    Diag d;
    diag_init(&d, NULL);
    uint8_t *buf;
    assert_int_equal(fe_onnx_builder_pack(b, &buf, len, &d), ST_OK);
    diag_finish(&d);
    fe_onnx_builder_destroy(b);
    return buf;
}

static OnnxModel *load_ok(const uint8_t *buf, size_t len)
{
    Diag d;
    diag_init(&d, "model.onnx");
    OnnxModel *m = NULL;
    Status st = fe_onnx_load_mem(buf, len, NULL, &m, &d);
    if (st != ST_OK)
        diag_print(&d, stderr, "test");
    assert_int_equal(st, ST_OK);
    diag_finish(&d);
    return m;
}

/* Interprets, lowers and simulates m on chip-side inputs in[]; returns the interpreter's
 * outputs (caller frees) after checking the simulator gives the same. */
static void run_both(OnnxModel *m, OgTensor *in, OgTensor *out)
{
    Diag d;
    diag_init(&d, "model.onnx");
    Status st = fe_interp_run(m->g, in, m->ninputs, out, &d);
    if (st != ST_OK)
        diag_print(&d, stderr, "interp");
    assert_int_equal(st, ST_OK);
    Graph *tg = NULL;
    st = fe_lower(m->g, NULL, &tg, &d);
    if (st != ST_OK)
        diag_print(&d, stderr, "lower");
    assert_int_equal(st, ST_OK);
    SimOptions so = {0};
    SimRun *run = NULL;
    assert_int_equal(sim_create(tg, &so, &run, &d), ST_OK);
    NpyArray arr[4];
    SimInput si[4];
    char names[4][16];
    assert_true(m->ninputs <= 4);
    for (uint32_t k = 0; k < m->ninputs; k++) {
        memset(&arr[k], 0, sizeof arr[k]);
        arr[k].dtype = NPY_I32;
        arr[k].ndim = m->inputs[k].shape.ndim;
        for (uint32_t j = 0; j < arr[k].ndim; j++)
            arr[k].shape[j] = m->inputs[k].shape.d[j];
        arr[k].count = in[k].count;
        arr[k].i32 = in[k].data;
        snprintf(names[k], sizeof names[k], "%u", k);
        si[k].name = names[k];
        si[k].array = &arr[k];
    }
    SimResult res;
    memset(&res, 0, sizeof res);
    st = sim_run(run, si, m->ninputs, &res, &d);
    if (st != ST_OK)
        diag_print(&d, stderr, "sim");
    assert_int_equal(st, ST_OK);
    for (uint32_t j = 0; j < m->noutputs; j++) {
        const SimTensor *o = NULL;
        for (uint32_t k = 0; k < res.n_outputs; k++)
            if (res.outputs[k].socket_id == (int32_t)j)
                o = &res.outputs[k];
        assert_non_null(o);
        assert_int_equal(o->count, out[j].count);
        for (int64_t i = 0; i < o->count; i++)
            if (o->data[i] != out[j].data[i])
                fail_msg("output %u element %lld: interpreter %d, simulator %d", j,
                         (long long)i, out[j].data[i], o->data[i]);
    }
    sim_result_free(&res);
    sim_destroy(run);
    graph_destroy(tg);
    diag_finish(&d);
}

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
    uint8_t *buf = pack(b, &len);
    OnnxModel *m = load_ok(buf, len);
    free(buf);
    OgTensor in, out;
    OgShape s = {3, {1, 256, 1}};
    assert_true(og_tensor_alloc(&in, &s));
    for (int i = 0; i < 256; i++)
        in.data[i] = i;
    run_both(m, &in, &out);
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
    uint8_t *buf = pack(b, &len);
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
    uint8_t *buf = pack(b, &len);
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
    *buf = pack(b, len);
}

static void test_div_floor_pattern(void **state)
{
    (void)state;
    uint8_t *buf;
    size_t len;
    pattern_model(true, &buf, &len);
    OnnxModel *m = load_ok(buf, len);
    free(buf);
    assert_int_equal(m->inputs[0].kind, ONNX_EDGE_FLOAT_INT);
    float xf[16];
    for (int i = 0; i < 16; i++)
        xf[i] = (float)((i * 37) % 23 - 11);
    Diag d;
    diag_init(&d, NULL);
    OgTensor in, out;
    assert_int_equal(fe_onnx_input_convert(m, 0, NULL, xf, 16, &in, &d), ST_OK);
    run_both(m, &in, &out);
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
    m = load_ok(buf, len);
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
    uint8_t *buf = pack(b, &len);
    Diag d;
    diag_init(&d, "model.onnx");
    OnnxModel *m = NULL;
    assert_int_equal(fe_onnx_load_mem(buf, len, NULL, &m, &d), ST_LOGIC);
    assert_true(diag_find(&d, "onnx.shape.volume") >= 0);
    diag_finish(&d);
    free(buf);
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
    /* the same through the lowering: run_both checks interpreter == simulator */
    int64_t *ints = malloc((size_t)a.count * sizeof *ints);
    assert_non_null(ints);
    for (int64_t i = 0; i < a.count; i++)
        ints[i] = a.i32[i];
    assert_int_equal(fe_onnx_input_convert(m, 0, ints, NULL, a.count, &conv, &d), ST_OK);
    OgTensor out2[2];
    run_both(m, &conv, out2);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rounding),
        cmocka_unit_test(test_requant_exhaustive),
        cmocka_unit_test(test_unsupported_all),
        cmocka_unit_test(test_nonintegral_weights),
        cmocka_unit_test(test_div_floor_pattern),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_example_qnet),
        cmocka_unit_test(test_example_shiftnet),
        cmocka_unit_test(test_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
