/* test_onnx_types.c: the ONNX frontend's integer types at the edges and between operators:
 * int8 / int16 inputs over their whole range (-128, -32768 included) on both paths, Cast and
 * CastLike (every int16 value into each integer type, float tensors holding integers, float
 * constants, bool) against onnxruntime's C-cast semantics, and BitShift by computed amounts.
 * "Both paths" is what taskir-run does with MODEL.onnx (fe_onnx_run: the reference
 * interpreter) and with the TaskGraph compiled from it (lowering + simulator), which must
 * agree bit for bit (otu_run_both). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "frontend/onnx/onnx.h"
#include "frontend/onnx/onnx_build.h"
#include "frontend/interp/run_model.h"
#include "onnx_testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs m on the ONNX-side integer values v[k] of input k (arrays of dtype dt in the inputs'
 * shapes) through fe_onnx_run, and through the compiled graph (otu_run_both); the two must
 * agree. out[] gets fe_onnx_run's outputs (og_tensor_free each). */
static void run_ints_n(OnnxModel *m, NpyDtype dt, const int32_t *const *v, OgTensor *out)
{
    enum { MAXIN = 4 };
    assert_true(m->ninputs <= MAXIN && m->noutputs <= 8);
    NpyArray a[MAXIN];
    FeModelInput fi[MAXIN];
    OgTensor conv[MAXIN], out2[8];
    Diag d;
    diag_init(&d, "model.onnx");
    for (uint32_t k = 0; k < m->ninputs; k++) {
        const OnnxEdge *e = &m->inputs[k];
        memset(&a[k], 0, sizeof a[k]);
        a[k].dtype = dt;
        a[k].ndim = e->shape.ndim;
        for (uint32_t j = 0; j < a[k].ndim; j++)
            a[k].shape[j] = e->shape.d[j];
        a[k].count = og_shape_volume(&e->shape);
        a[k].i32 = (int32_t *)v[k];
        fi[k] = (FeModelInput){e->name, &a[k], "x.npy"};
        int64_t *ints = malloc((size_t)a[k].count * sizeof *ints);
        assert_non_null(ints);
        for (int64_t i = 0; i < a[k].count; i++)
            ints[i] = v[k][i];
        assert_int_equal(fe_onnx_input_convert(m, k, ints, NULL, a[k].count, &conv[k], &d),
                         ST_OK);
        free(ints);
    }
    Status st = fe_onnx_run(m, fi, m->ninputs, out, &d);
    if (st != ST_OK)
        diag_print(&d, stderr, "fe_onnx_run");
    assert_int_equal(st, ST_OK);
    otu_run_both(m, conv, out2);
    for (uint32_t j = 0; j < m->noutputs; j++) {
        assert_int_equal(out[j].count, out2[j].count);
        assert_memory_equal(out[j].data, out2[j].data, (size_t)out[j].count * sizeof(int32_t));
        og_tensor_free(&out2[j]);
    }
    for (uint32_t k = 0; k < m->ninputs; k++)
        og_tensor_free(&conv[k]);
    diag_finish(&d);
}

static void run_ints(OnnxModel *m, NpyDtype dt, const int32_t *v, OgTensor *out)
{
    run_ints_n(m, dt, (const int32_t *const[]){v}, out);
}

/* What a C cast to a type of `bits` bits gives, by modular arithmetic. */
static int64_t c_cast(int64_t v, int bits, bool is_signed)
{
    if (bits >= 64)
        return v;
    uint64_t u = (uint64_t)v & (((uint64_t)1 << bits) - 1);
    if (is_signed && (u >> (bits - 1)))
        return (int64_t)u - ((int64_t)1 << bits);
    return (int64_t)u;
}

/* ---- int8 and int16 inputs over their whole range ---- */

/* x (int8 or int16) -> Add(x, x) wraps; Cast to int32 keeps it: every value of the type,
 * -128 / -32768 included, on both paths. */
static void check_full_range(int32_t type, NpyDtype dt, int bits)
{
    int64_t n = (int64_t)1 << bits, lo = -(n / 2);
    OnnxBuilder *b = fe_onnx_builder_create(13);
    fe_onnx_builder_input(b, "x", type, DIMS(n));
    fe_onnx_builder_output(b, "twice", type, DIMS(n));
    fe_onnx_builder_output(b, "wide", ONNX_T_INT32, DIMS(n));
    fe_onnx_builder_node(b, "Add", "add", NAMES("x", "x"), NAMES("twice"), NULL, 0);
    OnnxBuildAttr to = {.name = "to", .kind = OBA_INT, .i = ONNX_T_INT32};
    fe_onnx_builder_node(b, "Cast", "wide", NAMES("x"), NAMES("wide"), &to, 1);
    size_t len;
    uint8_t *buf = otu_pack(b, &len);
    OnnxModel *m = otu_load(buf, len, NULL);
    free(buf);
    int32_t *v = malloc((size_t)n * sizeof *v);
    assert_non_null(v);
    for (int64_t i = 0; i < n; i++)
        v[i] = (int32_t)(lo + i);
    OgTensor out[2];
    run_ints(m, dt, v, out);
    for (int64_t i = 0; i < n; i++) {
        assert_int_equal(out[0].data[i], c_cast(2 * v[i], bits, true));
        assert_int_equal(out[1].data[i], v[i]);
    }
    og_tensor_free(&out[0]);
    og_tensor_free(&out[1]);
    free(v);
    fe_onnx_destroy(m);
}

static void test_int8_int16_full_range(void **state)
{
    (void)state;
    check_full_range(ONNX_T_INT8, NPY_I8, 8);
    check_full_range(ONNX_T_INT16, NPY_I16, 16);
}

/* A value outside the input's type (int8), or for uint32 outside int32, is refused at the
 * edge [onnx.input.value]; uint32 values up to 2^31 - 1 pass. */
static void test_input_out_of_range(void **state)
{
    (void)state;
    static const int32_t types[] = {ONNX_T_INT8, ONNX_T_UINT32, ONNX_T_UINT32};
    static const int64_t bad[] = {-129, (int64_t)1 << 31, -1};
    for (int k = 0; k < 3; k++) {
        OnnxBuilder *b = fe_onnx_builder_create(13);
        fe_onnx_builder_input(b, "x", types[k], DIMS(2));
        fe_onnx_builder_output(b, "y", types[k], DIMS(2));
        fe_onnx_builder_node(b, "Relu", "r", NAMES("x"), NAMES("y"), NULL, 0);
        size_t len;
        uint8_t *buf = otu_pack(b, &len);
        OnnxModel *m = otu_load(buf, len, NULL);
        free(buf);
        Diag d;
        diag_init(&d, "model.onnx");
        OgTensor t;
        assert_int_equal(fe_onnx_input_convert(m, 0, (const int64_t[]){bad[k], 0}, NULL, 2, &t,
                                               &d), ST_LOGIC);
        assert_true(diag_find(&d, "onnx.input.value") >= 0);
        if (types[k] == ONNX_T_UINT32) {
            int32_t v[2] = {INT32_MAX, 0};
            OgTensor out;
            run_ints(m, NPY_I32, v, &out);
            assert_int_equal(out.data[0], INT32_MAX);
            og_tensor_free(&out);
        }
        diag_finish(&d);
        fe_onnx_destroy(m);
    }
}

/* A float input quantized by the host to int8 (QuantizeLinear, zero point 0) saturates at
 * -128, which both paths take: Clip(q, -128, 127) gives q back, Relu 0. */
static void test_quantized_int8_input(void **state)
{
    (void)state;
    OnnxBuilder *b = fe_onnx_builder_create(13);
    fe_onnx_builder_input(b, "x", ONNX_T_FLOAT, DIMS(5));
    fe_onnx_builder_output(b, "c", ONNX_T_INT8, DIMS(5));
    fe_onnx_builder_output(b, "r", ONNX_T_INT8, DIMS(5));
    fe_onnx_builder_init(b, "s", ONNX_T_FLOAT, NULL, 0, NULL, (const float[]){2.0f});
    fe_onnx_builder_init(b, "z", ONNX_T_INT8, NULL, 0, (const int64_t[]){0}, NULL);
    fe_onnx_builder_init(b, "lo", ONNX_T_INT8, NULL, 0, (const int64_t[]){-128}, NULL);
    fe_onnx_builder_init(b, "hi", ONNX_T_INT8, NULL, 0, (const int64_t[]){127}, NULL);
    fe_onnx_builder_node(b, "QuantizeLinear", "q", NAMES("x", "s", "z"), NAMES("q"), NULL, 0);
    fe_onnx_builder_node(b, "Clip", "clip", NAMES("q", "lo", "hi"), NAMES("c"), NULL, 0);
    fe_onnx_builder_node(b, "Relu", "relu", NAMES("q"), NAMES("r"), NULL, 0);
    size_t len;
    uint8_t *buf = otu_pack(b, &len);
    OnnxModel *m = otu_load(buf, len, NULL);
    free(buf);
    assert_int_equal(m->inputs[0].kind, ONNX_EDGE_QUANT);
    static const float x[5] = {-1000.0f, -256.0f, -255.0f, 3.0f, 1000.0f};
    static const int32_t want[5] = {-128, -128, -128, 2, 127};   /* -127.5 rounds to -128 */
    NpyArray a;
    memset(&a, 0, sizeof a);
    a.dtype = NPY_F32;
    a.ndim = 1;
    a.shape[0] = 5;
    a.count = 5;
    a.f32 = (float *)x;
    FeModelInput fi = {"x", &a, "x.npy"};
    Diag d;
    diag_init(&d, "model.onnx");
    OgTensor out[2], conv, out2[2];
    assert_int_equal(fe_onnx_run(m, &fi, 1, out, &d), ST_OK);
    assert_int_equal(fe_onnx_input_convert(m, 0, NULL, x, 5, &conv, &d), ST_OK);
    otu_run_both(m, &conv, out2);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(out[0].data[i], want[i]);
        assert_int_equal(out[1].data[i], want[i] > 0 ? want[i] : 0);
        assert_int_equal(out2[0].data[i], want[i]);
        assert_int_equal(out2[1].data[i], out[1].data[i]);
    }
    for (int j = 0; j < 2; j++) {
        og_tensor_free(&out[j]);
        og_tensor_free(&out2[j]);
    }
    og_tensor_free(&conv);
    diag_finish(&d);
    fe_onnx_destroy(m);
}

/* ---- Cast ---- */

static const struct {
    int32_t type;
    int bits;
    bool is_signed;
} int_types[] = {
    {ONNX_T_INT8, 8, true},    {ONNX_T_UINT8, 8, false},  {ONNX_T_INT16, 16, true},
    {ONNX_T_UINT16, 16, false}, {ONNX_T_INT32, 32, true}, {ONNX_T_INT64, 64, true},
};
#define N_INT_TYPES (sizeof int_types / sizeof *int_types)

/* x of type src holding every int16 value (an int16 or float input) cast to every integer
 * type and to bool: a C cast's result on both paths. */
static void check_cast_all(int32_t src)
{
    OnnxBuilder *b = fe_onnx_builder_create(13);
    fe_onnx_builder_input(b, "x", src, DIMS(256, 256));
    char names[N_INT_TYPES + 1][16];
    for (size_t k = 0; k <= N_INT_TYPES; k++) {
        int32_t t = k < N_INT_TYPES ? int_types[k].type : ONNX_T_BOOL;
        snprintf(names[k], sizeof names[k], "y%zu", k);
        fe_onnx_builder_output(b, names[k], t, DIMS(256, 256));
        OnnxBuildAttr to = {.name = "to", .kind = OBA_INT, .i = t};
        fe_onnx_builder_node(b, "Cast", names[k], NAMES("x"),
                             (const char *const[]){names[k], NULL}, &to, 1);
    }
    size_t len;
    uint8_t *buf = otu_pack(b, &len);
    OnnxModel *m = otu_load(buf, len, NULL);
    free(buf);
    int32_t *v = malloc(65536 * sizeof *v);
    assert_non_null(v);
    for (int i = 0; i < 65536; i++)
        v[i] = i - 32768 + (src == ONNX_T_FLOAT);   /* a float input holds +-32767 */
    OgTensor out[N_INT_TYPES + 1];
    if (src == ONNX_T_FLOAT) {
        /* through the edge conversion of float values */
        Diag d;
        diag_init(&d, "model.onnx");
        float *f = malloc(65536 * sizeof *f);
        assert_non_null(f);
        for (int i = 0; i < 65536; i++)
            f[i] = (float)(v[i] < 32767 ? v[i] : 32767);
        for (int i = 0; i < 65536; i++)
            v[i] = (int32_t)f[i];
        OgTensor conv;
        assert_int_equal(fe_onnx_input_convert(m, 0, NULL, f, 65536, &conv, &d), ST_OK);
        otu_run_both(m, &conv, out);
        og_tensor_free(&conv);
        free(f);
        diag_finish(&d);
    } else {
        run_ints(m, NPY_I16, v, out);
    }
    for (size_t k = 0; k <= N_INT_TYPES; k++) {
        for (int i = 0; i < 65536; i++) {
            int64_t want = k < N_INT_TYPES ? c_cast(v[i], int_types[k].bits,
                                                    int_types[k].is_signed) : v[i] != 0;
            if (out[k].data[i] != want)
                fail_msg("%s %d to %s: %d, want %lld", fe_onnx_type_name(src), v[i],
                         fe_onnx_type_name(m->outputs[k].onnx_type), out[k].data[i],
                         (long long)want);
        }
        og_tensor_free(&out[k]);
    }
    for (size_t k = 0; k <= N_INT_TYPES; k++)
        assert_int_equal(m->outputs[k].onnx_type,
                         k < N_INT_TYPES ? int_types[k].type : ONNX_T_BOOL);
    free(v);
    fe_onnx_destroy(m);
}

static void test_cast_int16_to_all(void **state)
{
    (void)state;
    check_cast_all(ONNX_T_INT16);
}

static void test_cast_float_to_all(void **state)
{
    (void)state;
    check_cast_all(ONNX_T_FLOAT);
}

/* uint8 -> int8 -> int16 -> uint8 and bool -> int32: chains of casts of a computed tensor. */
static void test_cast_chain(void **state)
{
    (void)state;
    OnnxBuilder *b = fe_onnx_builder_create(13);
    fe_onnx_builder_input(b, "x", ONNX_T_UINT8, DIMS(256));
    fe_onnx_builder_output(b, "back", ONNX_T_UINT8, DIMS(256));
    fe_onnx_builder_output(b, "nz", ONNX_T_INT32, DIMS(256));
    OnnxBuildAttr to_i8 = {.name = "to", .kind = OBA_INT, .i = ONNX_T_INT8};
    OnnxBuildAttr to_i16 = {.name = "to", .kind = OBA_INT, .i = ONNX_T_INT16};
    OnnxBuildAttr to_u8 = {.name = "to", .kind = OBA_INT, .i = ONNX_T_UINT8};
    OnnxBuildAttr to_b = {.name = "to", .kind = OBA_INT, .i = ONNX_T_BOOL};
    OnnxBuildAttr to_i32 = {.name = "to", .kind = OBA_INT, .i = ONNX_T_INT32};
    fe_onnx_builder_node(b, "Cast", "c1", NAMES("x"), NAMES("s8"), &to_i8, 1);
    fe_onnx_builder_node(b, "Cast", "c2", NAMES("s8"), NAMES("s16"), &to_i16, 1);
    fe_onnx_builder_node(b, "Cast", "c3", NAMES("s16"), NAMES("back"), &to_u8, 1);
    fe_onnx_builder_node(b, "Cast", "c4", NAMES("x"), NAMES("b"), &to_b, 1);
    fe_onnx_builder_node(b, "Cast", "c5", NAMES("b"), NAMES("nz"), &to_i32, 1);
    size_t len;
    uint8_t *buf = otu_pack(b, &len);
    OnnxModel *m = otu_load(buf, len, NULL);
    free(buf);
    int32_t v[256];
    for (int i = 0; i < 256; i++)
        v[i] = i;
    OgTensor out[2];
    run_ints(m, NPY_U8, v, out);
    for (int i = 0; i < 256; i++) {
        assert_int_equal(out[0].data[i], i);
        assert_int_equal(out[1].data[i], i != 0);
    }
    og_tensor_free(&out[0]);
    og_tensor_free(&out[1]);
    fe_onnx_destroy(m);
}

/* Constants cast at compile time: floats truncate toward zero then wrap, integers wrap, bool
 * is "nonzero"; CastLike takes the type of its second input. */
static void test_cast_constants(void **state)
{
    (void)state;
    static const float cf[] = {-2.75f, 2.75f, 300.0f, -129.5f, 0.0f, -0.5f};
    static const int64_t ci[] = {200, -1, 65535, 65536 + 7, -32769, 0};
    static const int64_t want8[] = {-2, 2, 44, 127, 0, 0};     /* from cf, as int8 */
    static const int64_t wantu8[] = {200, 255, 255, 7, 255, 0}; /* from ci, as uint8 */
    static const int64_t wantb[] = {1, 1, 1, 1, 0, 1};          /* from cf, as bool */
    OnnxBuilder *b = fe_onnx_builder_create(15);
    fe_onnx_builder_input(b, "x", ONNX_T_INT16, DIMS(6));
    fe_onnx_builder_init(b, "cf", ONNX_T_FLOAT, DIMS(6), NULL, cf);
    fe_onnx_builder_init(b, "ci", ONNX_T_INT32, DIMS(6), ci, NULL);
    fe_onnx_builder_init(b, "like", ONNX_T_UINT8, DIMS(1), (const int64_t[]){0}, NULL);
    fe_onnx_builder_output(b, "y8", ONNX_T_INT16, DIMS(6));
    fe_onnx_builder_output(b, "yu8", ONNX_T_INT16, DIMS(6));
    fe_onnx_builder_output(b, "yb", ONNX_T_INT16, DIMS(6));
    OnnxBuildAttr to_i8 = {.name = "to", .kind = OBA_INT, .i = ONNX_T_INT8};
    OnnxBuildAttr to_i16 = {.name = "to", .kind = OBA_INT, .i = ONNX_T_INT16};
    OnnxBuildAttr to_b = {.name = "to", .kind = OBA_INT, .i = ONNX_T_BOOL};
    fe_onnx_builder_node(b, "Cast", "f8", NAMES("cf"), NAMES("c8"), &to_i8, 1);
    fe_onnx_builder_node(b, "Cast", "w8", NAMES("c8"), NAMES("c8w"), &to_i16, 1);
    fe_onnx_builder_node(b, "Add", "a8", NAMES("x", "c8w"), NAMES("y8"), NULL, 0);
    fe_onnx_builder_node(b, "CastLike", "lu8", NAMES("ci", "like"), NAMES("cu8"), NULL, 0);
    fe_onnx_builder_node(b, "Cast", "wu8", NAMES("cu8"), NAMES("cu8w"), &to_i16, 1);
    fe_onnx_builder_node(b, "Add", "au8", NAMES("x", "cu8w"), NAMES("yu8"), NULL, 0);
    fe_onnx_builder_node(b, "Cast", "fb", NAMES("cf"), NAMES("cb"), &to_b, 1);
    fe_onnx_builder_node(b, "Cast", "wb", NAMES("cb"), NAMES("cbw"), &to_i16, 1);
    fe_onnx_builder_node(b, "Add", "ab", NAMES("x", "cbw"), NAMES("yb"), NULL, 0);
    size_t len;
    uint8_t *buf = otu_pack(b, &len);
    OnnxModel *m = otu_load(buf, len, NULL);
    free(buf);
    int32_t v[6] = {0, 0, 0, 0, 0, 0};
    OgTensor out[3];
    run_ints(m, NPY_I16, v, out);
    for (int i = 0; i < 6; i++) {
        assert_int_equal(out[0].data[i], want8[i]);
        assert_int_equal(out[1].data[i], wantu8[i]);
        assert_int_equal(out[2].data[i], wantb[i]);
    }
    for (int j = 0; j < 3; j++)
        og_tensor_free(&out[j]);
    fe_onnx_destroy(m);
}

/* Targets and constants a cast cannot take: double [onnx.type], a NaN cast to an integer
 * [onnx.value.range], no 'to' [onnx.attr], a computed value to uint32 [onnx.overflow], a
 * negative constant to uint64 [onnx.value.range]. */
static void test_cast_refused(void **state)
{
    (void)state;
    for (int k = 0; k < 5; k++) {
        OnnxBuilder *b = fe_onnx_builder_create(13);
        fe_onnx_builder_input(b, "x", ONNX_T_INT32, DIMS(2));
        fe_onnx_builder_init(b, "neg", ONNX_T_INT32, DIMS(2), (const int64_t[]){3, -5}, NULL);
        fe_onnx_builder_output(b, "y", ONNX_T_INT32, DIMS(2));
        float nan;
        uint32_t nb = 0x7fc00000u;
        memcpy(&nan, &nb, sizeof nan);
        fe_onnx_builder_init(b, "c", ONNX_T_FLOAT, DIMS(2), NULL, (const float[]){1.0f, nan});
        static const int32_t to_type[] = {ONNX_T_DOUBLE, ONNX_T_INT32, ONNX_T_INT32,
                                          ONNX_T_UINT32, ONNX_T_UINT64};
        OnnxBuildAttr to = {.name = "to", .kind = OBA_INT, .i = to_type[k]};
        const char *const *in = k == 0 || k == 3 ? NAMES("x") : k == 4 ? NAMES("neg")
                                                                      : NAMES("c");
        fe_onnx_builder_node(b, "Cast", "cast", in, NAMES("t"), &to, k == 2 ? 0 : 1);
        fe_onnx_builder_node(b, "Add", "add", NAMES("x", "t"), NAMES("y"), NULL, 0);
        size_t len;
        uint8_t *buf = otu_pack(b, &len);
        static const char *const rules[] = {"onnx.type", "onnx.value.range", "onnx.attr",
                                            "onnx.overflow", "onnx.value.range"};
        static const char *const texts[] = {"double", "nan", "'to'", "uint32", "2^64"};
        otu_refused(buf, len, NULL, rules[k], texts[k]);
        free(buf);
    }
}

/* ---- BitShift by computed amounts ---- */

/* x << y and x >> y for uint8 (every x, y) and uint16 (x over its range, y 0..19): as
 * onnxruntime's shifts of the promoted value give them (amounts of the width or more: 0). */
static void check_bitshift(int32_t type, NpyDtype dt, int bits)
{
    int64_t nx = type == ONNX_T_UINT8 ? 256 : 1024, ny = type == ONNX_T_UINT8 ? 256 : 20;
    int64_t n = nx * ny;
    OnnxBuilder *b = fe_onnx_builder_create(11);
    fe_onnx_builder_input(b, "x", type, DIMS(nx, ny));
    fe_onnx_builder_input(b, "y", type, DIMS(nx, ny));
    fe_onnx_builder_output(b, "l", type, DIMS(nx, ny));
    fe_onnx_builder_output(b, "r", type, DIMS(nx, ny));
    OnnxBuildAttr dl = {.name = "direction", .kind = OBA_STRING, .s = "LEFT"};
    OnnxBuildAttr dr = {.name = "direction", .kind = OBA_STRING, .s = "RIGHT"};
    fe_onnx_builder_node(b, "BitShift", "shl", NAMES("x", "y"), NAMES("l"), &dl, 1);
    fe_onnx_builder_node(b, "BitShift", "shr", NAMES("x", "y"), NAMES("r"), &dr, 1);
    size_t len;
    uint8_t *buf = otu_pack(b, &len);
    OnnxModel *m = otu_load(buf, len, NULL);
    free(buf);
    int32_t *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    assert_true(x && y);
    int64_t top = ((int64_t)1 << bits) - 1;
    for (int64_t i = 0; i < n; i++) {
        int64_t xi = i / ny;
        x[i] = (int32_t)(nx == 256 ? xi : (xi * 65535 / (nx - 1)) ^ (xi & 7));
        y[i] = (int32_t)(i % ny);
    }
    OgTensor out[2];
    run_ints_n(m, dt, (const int32_t *const[]){x, y}, out);
    for (int64_t i = 0; i < n; i++) {
        int64_t wl = y[i] >= bits ? 0 : ((int64_t)x[i] << y[i]) & top;
        int64_t wr = y[i] >= bits ? 0 : x[i] >> y[i];
        if (out[0].data[i] != wl || out[1].data[i] != wr)
            fail_msg("%s %d by %d: << %d (want %lld), >> %d (want %lld)",
                     fe_onnx_type_name(type), x[i], y[i], out[0].data[i], (long long)wl,
                     out[1].data[i], (long long)wr);
    }
    og_tensor_free(&out[0]);
    og_tensor_free(&out[1]);
    free(x);
    free(y);
    fe_onnx_destroy(m);
}

static void test_bitshift_computed(void **state)
{
    (void)state;
    check_bitshift(ONNX_T_UINT8, NPY_U8, 8);
    check_bitshift(ONNX_T_UINT16, NPY_I32, 16);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int8_int16_full_range),
        cmocka_unit_test(test_input_out_of_range),
        cmocka_unit_test(test_quantized_int8_input),
        cmocka_unit_test(test_cast_int16_to_all),
        cmocka_unit_test(test_cast_float_to_all),
        cmocka_unit_test(test_cast_chain),
        cmocka_unit_test(test_cast_constants),
        cmocka_unit_test(test_cast_refused),
        cmocka_unit_test(test_bitshift_computed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
