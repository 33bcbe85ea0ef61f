/* test_onnx_options.c: taskir-compile and taskir-run on ONNX models with --input-range and
 * --const, run as a user runs them (tt_run, tests/common/tooltest.h): a declared range gives a
 * float input the precision it needs (fewer blocks than the 16 bits assumed without it) and
 * the same outputs on both paths, and values outside it are refused; a weight given as a
 * graph input compiles once bound with --const, converted to the input's declared type;
 * malformed values are usage errors (exit 1), names and shapes that do not fit the model are
 * logic errors (exit 2) naming both shapes. A packaged backend node test whose weights are a
 * graph input (libonnx-testdata's test_basic_conv_with_padding, skipped when absent)
 * compiles with --const and gives the shipped output. BiMap's LeNet (../shared/interop,
 * skipped when absent): --input-range makes its first convolution one convolution (no
 * digit split).
 *
 * Arguments (tests/onnx/meson.build): the taskir-compile and taskir-run binaries. The models
 * are written by the test itself (frontend/onnx_build.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "onnx_testutil.h"
#include "taskir/npy.h"
#include "taskir/pbio.h"
#include "tooltest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *compile_tool, *run_tool;

static void expect(const TtRun *r, int status, const char *in_err)
{
    if (r->status != status || (in_err && !strstr(r->err, in_err)))
        fail_msg("exit %d (want %d), stderr:\n%s\n(want it to contain: %s)", r->status, status,
                 r->err, in_err ? in_err : "-");
}

static void write_bytes(const char *name, OnnxBuilder *b)
{
    size_t len;
    uint8_t *buf = otu_pack(b, &len);
    char p[512];
    tt_write_file(tt_path(p, sizeof p, name), buf, len);
    free(buf);
}

static void write_npy(const char *name, const int32_t *v, const int64_t *shape, uint32_t nd)
{
    char p[512];
    Diag d;
    diag_init(&d, name);
    assert_int_equal(npy_write_i32(tt_path(p, sizeof p, name), v, shape, nd, &d), ST_OK);
    diag_finish(&d);
}

/* The number of blocks of a compiled graph, and of its blocks of type t named prefix... */
static uint32_t count_blocks(const char *pb, BlockType t, const char *prefix, uint32_t *n_t)
{
    Diag d;
    diag_init(&d, pb);
    Graph *g = NULL;
    assert_int_equal(graph_load_pb(pb, &g, &d), ST_OK);
    uint32_t n = g->n_blocks;
    *n_t = 0;
    for (uint32_t i = 0; i < g->n_blocks; i++)
        if (g->blocks[i]->type == t && g->blocks[i]->name &&
            strncmp(g->blocks[i]->name, prefix, strlen(prefix)) == 0)
            (*n_t)++;
    graph_destroy(g);
    diag_finish(&d);
    return n;
}

/* Compiles model into <tag>16.pb without a range and <tag>8.pb with --input-range range;
 * the second must have fewer blocks and exactly one CC block named conv_prefix... (the
 * first convolution not split into digits). */
static void compare_range(const char *model, const char *range, const char *conv_prefix,
                          const char *tag)
{
    char g16[512], g8[512];
    tt_join(g16, sizeof g16, tt_tmpdir(), "%s16.pb", tag);
    tt_join(g8, sizeof g8, tt_tmpdir(), "%s8.pb", tag);
    TtRun r;
    tt_run(&r, NULL, compile_tool, model, "-o", g16, NULL);
    expect(&r, 0, NULL);
    tt_run_free(&r);
    tt_run(&r, NULL, compile_tool, model, "--input-range", range, "-o", g8, NULL);
    expect(&r, 0, NULL);
    tt_run_free(&r);
    uint32_t cc16, cc8;
    uint32_t n16 = count_blocks(g16, BT_CC, conv_prefix, &cc16);
    uint32_t n8 = count_blocks(g8, BT_CC, conv_prefix, &cc8);
    printf("%s: %u blocks (first Conv: %u convolutions) at 16 bits, %u (%u) with "
           "--input-range %s\n", tag, n16, cc16, n8, cc8, range);
    assert_true(n8 < n16);
    assert_int_equal(cc8, 1);
    assert_true(cc16 > 1);
}

/* Both directories hold the same output0.npy. */
static void same_outputs(const char *a, const char *b)
{
    char pa[512], pb[512];
    size_t la, lb;
    char *x = tt_slurp_or_fail(tt_join(pa, sizeof pa, tt_tmpdir(), "%s/output0.npy", a), &la);
    char *y = tt_slurp_or_fail(tt_join(pb, sizeof pb, tt_tmpdir(), "%s/output0.npy", b), &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(x, y, la);
    free(x);
    free(y);
}

/* float x (1, 2, 6, 6) -> Conv with integral weights (3, 2, 3, 3), pads 1 -> float y. */
static void write_float_conv(void)
{
    OnnxBuilder *b = fe_onnx_builder_create(13);
    fe_onnx_builder_input(b, "x", ONNX_T_FLOAT, DIMS(1, 2, 6, 6));
    fe_onnx_builder_output(b, "y", ONNX_T_FLOAT, DIMS(1, 3, 6, 6));
    float w[54];
    for (int i = 0; i < 54; i++)
        w[i] = (float)((i * 5) % 7 - 3);
    fe_onnx_builder_init(b, "w", ONNX_T_FLOAT, DIMS(3, 2, 3, 3), NULL, w);
    OnnxBuildAttr pads = {.name = "pads", .kind = OBA_INTS, .ints = (const int64_t[]){1, 1, 1, 1},
                          .n = 4};
    fe_onnx_builder_node(b, "Conv", "conv", NAMES("x", "w"), NAMES("y"), &pads, 1);
    write_bytes("fconv.onnx", b);
    int32_t x[72];
    for (int i = 0; i < 72; i++)
        x[i] = (i * 37) % 255 - 127;   /* -127..127 */
    write_npy("fconv.in.npy", x, (const int64_t[]){1, 2, 6, 6}, 4);
    x[5] = 128;
    write_npy("fconv.big.npy", x, (const int64_t[]){1, 2, 6, 6}, 4);
}

static void test_input_range(void **state)
{
    (void)state;
    write_float_conv();
    char m[512], g8[512], in[512], big[512], d1[512], d2[512];
    tt_path(m, sizeof m, "fconv.onnx");
    tt_path(g8, sizeof g8, "fconv8.pb");
    tt_path(in, sizeof in, "fconv.in.npy");
    tt_path(big, sizeof big, "fconv.big.npy");
    tt_path(d1, sizeof d1, "r_model");
    tt_path(d2, sizeof d2, "r_graph");
    compare_range(m, "x=-127..127", "conv/", "fconv");
    TtRun r;
    /* both paths with the range: the same files */
    char arg[600];
    snprintf(arg, sizeof arg, "x=%s", in);
    tt_run(&r, NULL, run_tool, m, "--input-range=x=-127..127", "--input", arg, "-o", d1, NULL);
    expect(&r, 0, NULL);
    tt_run_free(&r);
    tt_run(&r, NULL, run_tool, g8, "--input", arg, "-o", d2, NULL);
    expect(&r, 0, NULL);
    tt_run_free(&r);
    same_outputs("r_model", "r_graph");
    /* a value outside the declared range */
    snprintf(arg, sizeof arg, "x=%s", big);
    tt_run(&r, NULL, run_tool, m, "--input-range", "x=-127..127", "--input", arg, NULL);
    expect(&r, 2, "[onnx.input.value]");
    tt_assert_contains(r.err, "-127..127");
    tt_assert_contains(r.err, "--input-range");
    tt_run_free(&r);
}

static void test_input_range_errors(void **state)
{
    (void)state;
    char m[512], m8[512], out[512];
    write_float_conv();
    tt_path(m, sizeof m, "fconv.onnx");
    tt_path(out, sizeof out, "bad.pb");
    OnnxBuilder *b = fe_onnx_builder_create(13);
    fe_onnx_builder_input(b, "q", ONNX_T_INT8, DIMS(4));
    fe_onnx_builder_output(b, "y", ONNX_T_INT8, DIMS(4));
    fe_onnx_builder_node(b, "Relu", "r", NAMES("q"), NAMES("y"), NULL, 0);
    write_bytes("i8.onnx", b);
    tt_path(m8, sizeof m8, "i8.onnx");
    static const char *const malformed[] = {"x=1..", "x=..3", "x=5..1", "x=1-3", "=1..2", "x",
                                            "x=1..2147483648", "x=a..b"};
    TtRun r;
    for (size_t k = 0; k < sizeof malformed / sizeof *malformed; k++) {
        tt_run(&r, NULL, compile_tool, m, "--input-range", malformed[k], "-o", out, NULL);
        expect(&r, 1, "[usage.input-range]");
        tt_run_free(&r);
    }
    tt_run(&r, NULL, compile_tool, m, "--input-range", "x=0..1", "--input-range", "x=0..2", "-o",
           out, NULL);
    expect(&r, 1, "twice");
    tt_run_free(&r);
    tt_run(&r, NULL, compile_tool, m, "--input-range", "nope=0..1", "-o", out, NULL);
    expect(&r, 2, "[onnx.input.unknown]");
    tt_run_free(&r);
    tt_run(&r, NULL, compile_tool, m8, "--input-range", "q=-200..0", "-o", out, NULL);
    expect(&r, 2, "[onnx.input.range]");
    tt_run_free(&r);
    /* an int8 input narrowed to 0..100 compiles */
    tt_run(&r, NULL, compile_tool, m8, "--input-range", "q=0..100", "-o", out, NULL);
    expect(&r, 0, NULL);
    tt_run_free(&r);
    /* not an ONNX model: a usage error before anything is read */
    tt_run(&r, NULL, compile_tool, "model.json", "--input-range", "x=0..1", "-o", out, NULL);
    expect(&r, 1, "ONNX");
    tt_run_free(&r);
    tt_run(&r, NULL, run_tool, "model.json", "--const", "x=w.npy", "--input", "data=x.npy",
           NULL);
    expect(&r, 1, "ONNX");
    tt_run_free(&r);
}

/* ConvInteger whose weights are a graph input: x uint8 (1, 2, 3, 3), w uint8 (2, 2, 1, 1). */
static void test_const(void **state)
{
    (void)state;
    OnnxBuilder *b = fe_onnx_builder_create(13);
    fe_onnx_builder_input(b, "x", ONNX_T_UINT8, DIMS(1, 2, 3, 3));
    fe_onnx_builder_input(b, "w", ONNX_T_UINT8, DIMS(2, 2, 1, 1));
    fe_onnx_builder_output(b, "y", ONNX_T_INT32, DIMS(1, 2, 3, 3));
    fe_onnx_builder_node(b, "ConvInteger", "conv", NAMES("x", "w"), NAMES("y"), NULL, 0);
    write_bytes("wconv.onnx", b);
    int32_t x[18], w[4] = {1, 2, 3, 255};
    for (int i = 0; i < 18; i++)
        x[i] = i * 13;
    write_npy("wconv.x.npy", x, (const int64_t[]){1, 2, 3, 3}, 4);
    write_npy("wconv.w.npy", w, (const int64_t[]){2, 2, 1, 1}, 4);
    write_npy("wconv.w2.npy", w, (const int64_t[]){2, 2}, 2);
    w[3] = 256;
    write_npy("wconv.wbig.npy", w, (const int64_t[]){2, 2, 1, 1}, 4);
    char m[512], g[512], wn[512], xa[600], wa[600], d1[512], d2[512], p[512];
    tt_path(m, sizeof m, "wconv.onnx");
    tt_path(g, sizeof g, "wconv.pb");
    snprintf(wa, sizeof wa, "w=%s", tt_path(wn, sizeof wn, "wconv.w.npy"));
    snprintf(xa, sizeof xa, "x=%s", tt_path(p, sizeof p, "wconv.x.npy"));
    tt_path(d1, sizeof d1, "c_model");
    tt_path(d2, sizeof d2, "c_graph");
    TtRun r;
    /* without --const the weights are computed: refused */
    tt_run(&r, NULL, compile_tool, m, "-o", g, NULL);
    expect(&r, 2, "[onnx.param]");
    tt_run_free(&r);
    tt_run(&r, NULL, compile_tool, m, "--const", wa, "-o", g, NULL);
    expect(&r, 0, NULL);
    tt_run_free(&r);
    tt_run(&r, NULL, run_tool, m, "--const", wa, "--input", xa, "-o", d1, NULL);
    expect(&r, 0, NULL);
    tt_run_free(&r);
    tt_run(&r, NULL, run_tool, g, "--input", xa, "-o", d2, NULL);
    expect(&r, 0, NULL);
    tt_run_free(&r);
    same_outputs("c_model", "c_graph");
    /* a --const array is an input like the model: -o may not name it (docs/cli.md) */
    tt_run(&r, NULL, compile_tool, m, "--const", wa, "-o", wn, NULL);
    expect(&r, 1, "[usage.output]");
    tt_run_free(&r);
    /* w also an initializer (its default value, IR < 4 style): --const overrides it */
    b = fe_onnx_builder_create(13);
    fe_onnx_builder_input(b, "x", ONNX_T_UINT8, DIMS(1, 2, 3, 3));
    fe_onnx_builder_input(b, "w", ONNX_T_UINT8, DIMS(2, 2, 1, 1));
    fe_onnx_builder_init(b, "w", ONNX_T_UINT8, DIMS(2, 2, 1, 1), (const int64_t[]){0, 0, 0, 0},
                         NULL);
    fe_onnx_builder_output(b, "y", ONNX_T_INT32, DIMS(1, 2, 3, 3));
    fe_onnx_builder_node(b, "ConvInteger", "conv", NAMES("x", "w"), NAMES("y"), NULL, 0);
    write_bytes("wconv_init.onnx", b);
    char mi[512], d3[512];
    tt_path(mi, sizeof mi, "wconv_init.onnx");
    tt_path(d3, sizeof d3, "c_init");
    tt_run(&r, NULL, run_tool, mi, "--const", wa, "--input", xa, "-o", d3, NULL);
    expect(&r, 0, NULL);
    tt_run_free(&r);
    same_outputs("c_model", "c_init");
    Diag d;
    diag_init(&d, "out");
    NpyArray a;
    assert_int_equal(npy_read(tt_join(p, sizeof p, tt_tmpdir(), "c_model/output0.npy"), &a,
                              &d), ST_OK);
    assert_int_equal(a.count, 18);
    for (int o = 0; o < 2; o++)
        for (int i = 0; i < 9; i++)
            assert_int_equal(a.i32[o * 9 + i], w[2 * o] * x[i] + (o ? 255 : 2) * x[9 + i]);
    npy_free(&a);
    diag_finish(&d);
    /* an input array of another shape: both shapes named */
    char xb[600];
    snprintf(xb, sizeof xb, "x=%s", wn);
    tt_run(&r, NULL, run_tool, m, "--const", wa, "--input", xb, NULL);
    expect(&r, 2, "[onnx.input.shape]");
    tt_assert_contains(r.err, "(2, 2, 1, 1)");
    tt_assert_contains(r.err, "(1, 2, 3, 3)");
    tt_run_free(&r);
    /* a bound input given an --input too: the model has no such runtime input */
    tt_run(&r, NULL, run_tool, m, "--const", wa, "--input", xa, "--input", wa, NULL);
    expect(&r, 2, "[onnx.input.unknown]");
    tt_run_free(&r);
    /* another shape: both shapes named */
    snprintf(wa, sizeof wa, "w=%s", tt_path(wn, sizeof wn, "wconv.w2.npy"));
    tt_run(&r, NULL, compile_tool, m, "--const", wa, "-o", g, NULL);
    expect(&r, 2, "[onnx.input.shape]");
    tt_assert_contains(r.err, "(2, 2)");
    tt_assert_contains(r.err, "(2, 2, 1, 1)");
    tt_run_free(&r);
    /* a value outside the declared type uint8 */
    snprintf(wa, sizeof wa, "w=%s", tt_path(wn, sizeof wn, "wconv.wbig.npy"));
    tt_run(&r, NULL, compile_tool, m, "--const", wa, "-o", g, NULL);
    expect(&r, 2, "[onnx.input.value]");
    tt_run_free(&r);
    /* no such input, no such file, twice, and a range for a bound input */
    tt_run(&r, NULL, compile_tool, m, "--const", "nope=x.npy", "-o", g, NULL);
    expect(&r, 3, "x.npy");
    tt_run_free(&r);
    snprintf(wa, sizeof wa, "nope=%s", wn);
    tt_run(&r, NULL, compile_tool, m, "--const", wa, "-o", g, NULL);
    expect(&r, 2, "[onnx.input.unknown]");
    tt_run_free(&r);
    tt_run(&r, NULL, compile_tool, m, "--const", "w=a.npy", "--const=w=b.npy", "-o", g, NULL);
    expect(&r, 1, "[usage.const]");
    tt_run_free(&r);
    tt_run(&r, NULL, compile_tool, m, "--const", "w=a.npy", "--input-range", "w=0..1", "-o",
           g, NULL);
    expect(&r, 1, "twice");
    tt_run_free(&r);
}

/* A TensorProto of the test data as an int32 .npy in the scratch directory (float values
 * must be integers). */
static void proto_to_npy(const char *pb, const char *name, OnnxTensor *t)
{
    Diag d;
    diag_init(&d, pb);
    assert_int_equal(fe_onnx_tensor_read(pb, t, &d), ST_OK);
    int32_t *v = malloc((size_t)(t->count ? t->count : 1) * sizeof *v);
    assert_non_null(v);
    for (int64_t i = 0; i < t->count; i++)
        v[i] = t->f ? (int32_t)t->f[i] : (int32_t)t->i[i];
    write_npy(name, v, t->dims, t->ndim);
    free(v);
    diag_finish(&d);
}

/* A packaged backend node test whose weights are a graph input (test_basic_conv_with_padding
 * of Debian's libonnx-testdata: x and W are both graph inputs): compiled with --const W=...,
 * run on both paths, equal to the shipped output. Skipped without the package. */
static void test_const_packaged(void **state)
{
    (void)state;
    const char *dir = "/usr/share/libonnx-testdata/data/node/test_basic_conv_with_padding";
    char m[512], p[600];
    snprintf(m, sizeof m, "%s/model.onnx", dir);
    struct stat sb;
    if (stat(m, &sb) != 0) {
        printf("%s is absent (Debian package libonnx-testdata): skipped\n", m);
        skip();
    }
    OnnxTensor x, w, y;
    snprintf(p, sizeof p, "%s/test_data_set_0/input_0.pb", dir);
    proto_to_npy(p, "pk.x.npy", &x);
    snprintf(p, sizeof p, "%s/test_data_set_0/input_1.pb", dir);
    proto_to_npy(p, "pk.w.npy", &w);
    snprintf(p, sizeof p, "%s/test_data_set_0/output_0.pb", dir);
    proto_to_npy(p, "pk.y.npy", &y);
    char g[512], xa[600], wa[600], d1[512], d2[512], xn[512], wn[512];
    tt_path(g, sizeof g, "pk.pb");
    snprintf(xa, sizeof xa, "x=%s", tt_path(xn, sizeof xn, "pk.x.npy"));
    snprintf(wa, sizeof wa, "W=%s", tt_path(wn, sizeof wn, "pk.w.npy"));
    tt_path(d1, sizeof d1, "pk_model");
    tt_path(d2, sizeof d2, "pk_graph");
    TtRun r;
    tt_run(&r, NULL, compile_tool, m, "-o", g, NULL);
    expect(&r, 2, "[onnx.param]");
    tt_run_free(&r);
    tt_run(&r, NULL, compile_tool, m, "--const", wa, "-o", g, NULL);
    expect(&r, 0, NULL);
    tt_run_free(&r);
    tt_run(&r, NULL, run_tool, m, "--const", wa, "--input", xa, "-o", d1, NULL);
    expect(&r, 0, NULL);
    tt_run_free(&r);
    tt_run(&r, NULL, run_tool, g, "--input", xa, "-o", d2, NULL);
    expect(&r, 0, NULL);
    tt_run_free(&r);
    same_outputs("pk_model", "pk_graph");
    Diag d;
    diag_init(&d, "out");
    NpyArray a;
    assert_int_equal(npy_read(tt_join(p, sizeof p, tt_tmpdir(), "pk_model/output0.npy"), &a,
                              &d), ST_OK);
    assert_int_equal(a.count, y.count);
    for (int64_t i = 0; i < a.count; i++)
        assert_int_equal(a.i32[i], (int32_t)y.f[i]);
    npy_free(&a);
    diag_finish(&d);
    fe_onnx_tensor_free(&x);
    fe_onnx_tensor_free(&w);
    fe_onnx_tensor_free(&y);
}

/* BiMap's LeNet (a float model whose input holds int8 values): 16 bits assumed split conv1
 * into digits; declared -127..127 it is one convolution. */
static void test_lenet(void **state)
{
    (void)state;
    const char *src = getenv("TASKIR_SRCDIR");
    char m[1024];
    snprintf(m, sizeof m, "%s/../shared/interop/bimap-cases/lenet/lenet.onnx", src ? src : ".");
    struct stat sb;
    if (!src || stat(m, &sb) != 0) {
        printf("%s is absent: skipped\n", m);
        skip();
    }
    compare_range(m, "input.1=-127..127", "Conv_0/", "lenet");
}

static int setup(void **state)
{
    (void)state;
    return tt_tmpdir_make("taskir-onnx-options.") ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    tt_tmpdir_remove();
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_onnx_options TASKIR-COMPILE TASKIR-RUN\n");
        return 1;
    }
    compile_tool = argv[1];
    run_tool = argv[2];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_input_range),
        cmocka_unit_test(test_input_range_errors),
        cmocka_unit_test(test_const),
        cmocka_unit_test(test_const_packaged),
        cmocka_unit_test(test_lenet),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
