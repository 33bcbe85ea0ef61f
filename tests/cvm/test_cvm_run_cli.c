/* test_cvm_run_cli.c: `taskir-run MODEL.json --params P --input data=X.npy [-o DIR]` as a user
 * runs it (tt_run, tests/common/tooltest.h): the output files equal the examples' expected
 * outputs byte for byte, the input kind is found by extension, content or --format, and every
 * wrong input gives its exit code (1 usage, 2 logic, 3 runtime), a message naming the input
 * and the rule, and no output file.
 *
 * Argument (tests/cvm/meson.build): the taskir-run binary; the models are gen_cvm's examples
 * in $TASKIR_BUILDDIR/examples/cvm. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <sys/stat.h>
#include <unistd.h>

#include "taskir/fileio.h"
#include "taskir/npy.h"
#include "tooltest.h"

static const char *tool;
static char exdir[1024];

/* Runs taskir-run with the NULL-terminated arguments; stdin from in_file (or /dev/null). */
static void run_in(TtRun *r, const char *in_file, const char *const *args)
{
    char *argv[32];
    int n = 0;
    argv[n++] = (char *)tool;
    for (; args[n - 1] && n < 31; n++)
        argv[n] = (char *)args[n - 1];
    argv[n] = NULL;
    tt_run_argv(r, &(TtOpts){.in = in_file}, argv);
}

#define RUN(r, ...) run_in((r), NULL, (const char *const[]){__VA_ARGS__, NULL})

/* Exit status and, when given, texts that must all appear in stderr. */
static void expect(TtRun *r, int status, const char *const *in_err)
{
    bool ok = r->status == status;
    for (size_t i = 0; ok && in_err && in_err[i]; i++)
        ok = strstr(r->err, in_err[i]) != NULL;
    if (!ok) {
        fprintf(stderr, "exit %d (want %d)\nstdout:\n%s\nstderr:\n%s\n", r->status, status,
                r->out, r->err);
        for (size_t i = 0; in_err && in_err[i]; i++)
            fprintf(stderr, "wanted in stderr: %s\n", in_err[i]);
        fail();
    }
}

#define EXPECT(r, status, ...) expect((r), (status), (const char *const[]){__VA_ARGS__, NULL})

/* Example file paths. */
typedef struct Ex {
    char json[1200], params[1200], input[1200];
} Ex;

static void ex(Ex *e, const char *name)
{
    char f[128];
    snprintf(f, sizeof f, "%s.json", name);
    tt_join(e->json, sizeof e->json, exdir, "%s", f);
    snprintf(f, sizeof f, "%s.params", name);
    tt_join(e->params, sizeof e->params, exdir, "%s", f);
    snprintf(f, sizeof f, "%s.input.npy", name);
    tt_join(e->input, sizeof e->input, exdir, "%s", f);
}

static char *input_arg(const char *name, const char *path)
{
    static char buf[1400];
    snprintf(buf, sizeof buf, "%s=%s", name, path);
    return buf;
}

/* dir/outputK.npy equals the example's expected MODEL.outputK.npy byte for byte. */
static void same_as_expected(const char *dir, const char *name, int k)
{
    char f[128], a[1200], b[1200];
    snprintf(f, sizeof f, "output%d.npy", k);
    tt_join(a, sizeof a, dir, "%s", f);
    snprintf(f, sizeof f, "%s.output%d.npy", name, k);
    tt_join(b, sizeof b, exdir, "%s", f);
    size_t la = 0, lb = 0;
    uint8_t *x = (uint8_t *)tt_slurp(a, &la), *y = (uint8_t *)tt_slurp(b, &lb);
    if (!x || !y || la != lb || memcmp(x, y, la) != 0)
        fprintf(stderr, "%s differs from %s\n", a, b);
    assert_non_null(x);
    assert_non_null(y);
    assert_int_equal(la, lb);
    assert_memory_equal(x, y, la);
    free(x);
    free(y);
}

/* Writes an .npy of dtype descr ('<i4', '|i1', '<f4', '<u2', '<i8'), shape, from int
 * values. */
static void write_npy(const char *path, const char *descr, const char *shape, const int32_t *v,
                      int64_t count)
{
    char hdr[256];
    int n = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                     descr, shape);
    int total = 10 + n + 1, pad = (64 - total % 64) % 64;
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    uint16_t hl = (uint16_t)(n + pad + 1);
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    fputc(hl & 0xff, f);
    fputc(hl >> 8, f);
    fprintf(f, "%s%*s\n", hdr, pad, "");
    for (int64_t i = 0; i < count; i++) {
        if (descr[2] == '1') {
            fputc((uint8_t)v[i], f);
        } else if (descr[1] == 'f') {
            float x = (float)v[i];
            fwrite(&x, 4, 1, f);
        } else if (descr[2] == '2') {
            uint32_t u = (uint32_t)v[i];
            uint8_t b[2] = {(uint8_t)u, (uint8_t)(u >> 8)};
            fwrite(b, 1, 2, f);
        } else if (descr[2] == '8') {
            uint64_t u = (uint64_t)(int64_t)v[i];
            for (int k = 0; k < 8; k++)
                fputc((uint8_t)(u >> (8 * k)), f);
        } else {
            uint32_t u = (uint32_t)v[i];
            uint8_t b[4] = {(uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16), (uint8_t)(u >> 24)};
            fwrite(b, 1, 4, f);
        }
    }
    assert_int_equal(fclose(f), 0);
}

/* The lenet example's input values (784). */
static int32_t *lenet_input(void)
{
    Ex e;
    ex(&e, "lenet");
    NpyArray a = {0};
    Diag d;
    diag_init(&d, e.input);
    assert_int_equal(npy_read(e.input, &a, &d), ST_OK);
    diag_finish(&d);
    assert_int_equal(a.count, 784);
    int32_t *v = malloc(784 * sizeof *v);
    assert_non_null(v);
    memcpy(v, a.i32, 784 * sizeof *v);
    npy_free(&a);
    return v;
}

/* ---- running ---- */

static void test_writes_expected_outputs(void **state)
{
    (void)state;
    static const char *const names[] = {"lenet", "resnet_block", "mobilenet_block",
                                        "yolo_head", "mlp"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        Ex e;
        ex(&e, names[i]);
        char dir[512];
        tt_path(dir, sizeof dir, names[i]);
        TtRun r;
        RUN(&r, e.json, "--params", e.params, "--input", input_arg("data", e.input), "-o", dir);
        EXPECT(&r, 0, NULL);
        int heads = strcmp(names[i], "yolo_head") == 0 ? 2 : 1;
        assert_int_equal(tt_count_files(dir), heads);
        for (int k = 0; k < heads; k++)
            same_as_expected(dir, names[i], k);
        tt_run_free(&r);
        tt_rm_tree(dir);
    }
}

static void test_prints_without_o(void **state)
{
    (void)state;
    Ex e;
    ex(&e, "lenet");
    TtRun r;
    RUN(&r, e.json, "--params", e.params, "--input", input_arg("data", e.input));
    EXPECT(&r, 0, NULL);
    assert_non_null(strstr(r.out, "output0 (node 32 'fc3_clip'): int32 (1, 10)\n"));
    tt_run_free(&r);
}

/* Input by position, int8, uint8, uint16 and int64 (numpy's default integer) data: the same
 * result. */
static void test_input_forms(void **state)
{
    (void)state;
    Ex e;
    ex(&e, "lenet");
    int32_t *v = lenet_input();
    char p8[512], pu8[512], pu16[512], p64[512], dir[512];
    write_npy(tt_path(p8, sizeof p8, "in_i1.npy"), "|i1", "(1, 1, 28, 28)", v, 784);
    write_npy(tt_path(pu8, sizeof pu8, "in_u1.npy"), "|u1", "(1, 1, 28, 28)", v, 784);
    write_npy(tt_path(pu16, sizeof pu16, "in_u2.npy"), "<u2", "(1, 1, 28, 28)", v, 784);
    write_npy(tt_path(p64, sizeof p64, "in_i8.npy"), "<i8", "(1, 1, 28, 28)", v, 784);
    const char *files[] = {p8, pu8, pu16, p64, e.input};
    const char *names[] = {"data", "data", "data", "data", "0"};
    for (int i = 0; i < 5; i++) {
        TtRun r;
        tt_path(dir, sizeof dir, "forms");
        RUN(&r, e.json, "--params", e.params, "--input", input_arg(names[i], files[i]), "-o",
            dir);
        EXPECT(&r, 0, NULL);
        same_as_expected(dir, "lenet", 0);
        tt_run_free(&r);
        tt_rm_tree(dir);
    }
    unlink(p8);
    unlink(pu8);
    unlink(pu16);
    unlink(p64);
    free(v);
}

/* The kind from the content (no .json extension), from --format, and from stdin. */
static void test_kind_detection(void **state)
{
    (void)state;
    Ex e;
    ex(&e, "lenet");
    char model[512], dir[512];
    size_t len = 0;
    uint8_t *json = (uint8_t *)tt_slurp(e.json, &len);
    assert_non_null(json);
    FILE *f = fopen(tt_path(model, sizeof model, "lenet.model"), "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(json, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    free(json);
    TtRun r;
    tt_path(dir, sizeof dir, "kind");
    RUN(&r, model, "--params", e.params, "--input", input_arg("data", e.input), "-o", dir);
    EXPECT(&r, 0, NULL);
    same_as_expected(dir, "lenet", 0);
    tt_run_free(&r);
    tt_rm_tree(dir);
    RUN(&r, "--format", "cvm", model, "--params", e.params, "--input",
        input_arg("data", e.input), "-o", dir);
    EXPECT(&r, 0, NULL);
    same_as_expected(dir, "lenet", 0);
    tt_run_free(&r);
    tt_rm_tree(dir);
    run_in(&r, e.json, (const char *const[]){"-", "--params", e.params, "--input",
                                             input_arg("data", e.input), "-o", dir, NULL});
    EXPECT(&r, 0, NULL);
    same_as_expected(dir, "lenet", 0);
    tt_run_free(&r);
    tt_rm_tree(dir);
    /* read as a .pb, the JSON is not a TaskGraph: a logic error */
    RUN(&r, "--format", "pb", e.json, "--input", input_arg("data", e.input), "-o", dir);
    EXPECT(&r, 2, "[wire.");
    assert_int_equal(tt_count_files(dir), -1);
    tt_run_free(&r);
    unlink(model);
}

/* ---- wrong inputs: exit 2, the input named, nothing written ---- */

static void logic_case(const char *model, const char *const *extra, const char *const *want)
{
    Ex e;
    ex(&e, model);
    char dir[512];
    tt_path(dir, sizeof dir, "bad");
    const char *args[24] = {e.json, "--params", e.params, "-o", dir};
    int n = 5;
    for (; extra[n - 5]; n++)
        args[n] = extra[n - 5];
    args[n] = NULL;
    TtRun r;
    run_in(&r, NULL, args);
    expect(&r, 2, want);
    assert_int_equal(tt_count_files(dir), -1);
    tt_run_free(&r);
}

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

static void test_missing_input(void **state)
{
    (void)state;
    Ex e;
    ex(&e, "lenet");
    logic_case("lenet", ARGS(NULL),
               ARGS("lenet.json: input 'data': no array given", "[cvm.input.missing]"));
}

static void test_extra_input(void **state)
{
    (void)state;
    Ex e;
    ex(&e, "lenet");
    char a[1400];
    snprintf(a, sizeof a, "data=%s", e.input);
    logic_case("lenet", ARGS("--input", a, "--input", input_arg("mask", e.input)),
               ARGS("input 'mask': the model has no input of that name (its inputs: data)",
                    "[cvm.input.unknown]"));
}

static void test_duplicate_input(void **state)
{
    (void)state;
    Ex e;
    ex(&e, "lenet");
    char a[1400];
    snprintf(a, sizeof a, "data=%s", e.input);
    logic_case("lenet", ARGS("--input", a, "--input", input_arg("0", e.input)),
               ARGS("input 'data': given twice", "[cvm.input.duplicate]"));
}

static void test_wrong_shape(void **state)
{
    (void)state;
    Ex m;
    ex(&m, "mlp");
    logic_case("lenet", ARGS("--input", input_arg("data", m.input)),
               ARGS("input 'data': ", "mlp.input.npy has shape (4, 64), the model expects "
                    "(1, 1, 28, 28)", "[cvm.input.shape]"));
}

static void test_wrong_dtype(void **state)
{
    (void)state;
    int32_t *v = lenet_input();
    char p[512];
    write_npy(tt_path(p, sizeof p, "in_f4.npy"), "<f4", "(1, 1, 28, 28)", v, 784);
    logic_case("lenet", ARGS("--input", input_arg("data", p)),
               ARGS("input 'data': ", "in_f4.npy holds float32 values", "[cvm.input.dtype]"));
    unlink(p);
    free(v);
}

static void test_value_out_of_range(void **state)
{
    (void)state;
    int32_t *v = lenet_input();
    v[5] = 128; /* the input has precision 8: |x| <= 127 */
    char p[512];
    write_npy(tt_path(p, sizeof p, "in_range.npy"), "<i4", "(1, 1, 28, 28)", v, 784);
    logic_case("lenet", ARGS("--input", input_arg("data", p)),
               ARGS("'data'", "input value 128 (element 5)", "[cvm.input.range]"));
    /* the same check for the dtypes widened on reading: uint16, int64 */
    v[5] = 40000;
    write_npy(p, "<u2", "(1, 1, 28, 28)", v, 784);
    logic_case("lenet", ARGS("--input", input_arg("data", p)),
               ARGS("'data'", "input value 40000 (element 5)", "[cvm.input.range]"));
    v[5] = -128;
    write_npy(p, "<i8", "(1, 1, 28, 28)", v, 784);
    logic_case("lenet", ARGS("--input", input_arg("data", p)),
               ARGS("'data'", "input value -128 (element 5)", "[cvm.input.range]"));
    unlink(p);
    free(v);
}

static void test_invalid_model(void **state)
{
    (void)state;
    Ex e;
    ex(&e, "lenet");
    char bad[512], dir[512];
    FILE *f = fopen(tt_path(bad, sizeof bad, "bad.json"), "wb");
    assert_non_null(f);
    fputs("{\"nodes\": [", f);
    assert_int_equal(fclose(f), 0);
    TtRun r;
    RUN(&r, bad, "--params", e.params, "--input", input_arg("data", e.input), "-o",
        tt_path(dir, sizeof dir, "bad"));
    EXPECT(&r, 2, "bad.json: graph: ", "[cvm.json.syntax]");
    assert_int_equal(tt_count_files(dir), -1);
    tt_run_free(&r);
    unlink(bad);
    /* no params: every parameter is missing */
    RUN(&r, e.json, "--input", input_arg("data", e.input), "-o", dir);
    EXPECT(&r, 2, "node 1 'conv1_weight' (null): no parameter 'conv1_weight'",
           "[cvm.params.missing]");
    assert_int_equal(tt_count_files(dir), -1);
    tt_run_free(&r);
}

/* The example with one thing cvm-runtime's loader refuses (docs/cvm-rules.md): exit 2 naming
 * the rule, no output. */
static void test_refused_like_cvm_runtime(void **state)
{
    (void)state;
    static const struct {
        const char *find, *repl, *rule;
    } cs[] = {
        {"\"storage_id\"", "\"device_index\": [\"list_int\",[1]],\n    \"storage_id\"",
         "graph attrs 'device_index': has 1 values"},
        {"\"int32\"", "\"int8\"", "[cvm.json.dltype]"},
        {"\n  },\n", "\n  },\n  \"extra\": 1,\n", "[cvm.json.key]"},
        {"]\n  },\n", "],\n  },\n", "[cvm.json.syntax]"},
    };
    Ex e;
    ex(&e, "lenet");
    size_t len = 0;
    char *json = tt_slurp(e.json, &len);
    assert_non_null(json);
    for (size_t k = 0; k < sizeof cs / sizeof *cs; k++) {
        char *at = strstr(json, cs[k].find);
        assert_non_null(at);
        char bad[512], dir[512];
        FILE *f = fopen(tt_path(bad, sizeof bad, "refused.json"), "wb");
        assert_non_null(f);
        fprintf(f, "%.*s%s%s", (int)(at - json), json, cs[k].repl, at + strlen(cs[k].find));
        assert_int_equal(fclose(f), 0);
        TtRun r;
        RUN(&r, bad, "--params", e.params, "--input", input_arg("data", e.input), "-o",
            tt_path(dir, sizeof dir, "refused"));
        EXPECT(&r, 2, "refused.json: ", cs[k].rule);
        assert_int_equal(tt_count_files(dir), -1);
        tt_run_free(&r);
        unlink(bad);
    }
    free(json);
}

/* ---- runtime errors: exit 3, nothing left behind ---- */

static void test_unreadable_params(void **state)
{
    (void)state;
    Ex e;
    ex(&e, "lenet");
    char missing[512], dir[512];
    tt_path(missing, sizeof missing, "no.params");
    TtRun r;
    RUN(&r, e.json, "--params", missing, "--input", input_arg("data", e.input), "-o",
        tt_path(dir, sizeof dir, "bad"));
    EXPECT(&r, 3, "no.params: ", "[io.read]");
    assert_int_equal(tt_count_files(dir), -1);
    tt_run_free(&r);
}

/* Head 1 cannot be written (a directory is in the way): head 0 is removed again. */
static void test_no_partial_outputs(void **state)
{
    (void)state;
    Ex e;
    ex(&e, "yolo_head");
    char dir[512], blocker[600];
    tt_path(dir, sizeof dir, "partial");
    assert_int_equal(mkdir(dir, 0777), 0);
    assert_int_equal(mkdir(tt_join(blocker, sizeof blocker, dir, "%s", "output1.npy"), 0777), 0);
    TtRun r;
    RUN(&r, e.json, "--params", e.params, "--input", input_arg("data", e.input), "-o", dir);
    EXPECT(&r, 3, "output1.npy", "[io.write]");
    assert_int_equal(tt_count_files(dir), 1); /* only the blocking directory */
    char o0[600];
    struct stat sb;
    assert_int_not_equal(stat(tt_join(o0, sizeof o0, dir, "%s", "output0.npy"), &sb), 0);
    tt_run_free(&r);
    tt_rm_tree(dir);
}

/* ---- usage ---- */

static void test_usage(void **state)
{
    (void)state;
    Ex e;
    ex(&e, "lenet");
    char in[1400];
    snprintf(in, sizeof in, "data=%s", e.input);
    TtRun r;
    RUN(&r, e.json, "--params", e.params, "--input", in, "--steps", "2");
    EXPECT(&r, 1, "--steps is for TaskGraphs", "[usage.args]");
    tt_run_free(&r);
    RUN(&r, e.json, "--params", e.params, "--input", in, "--dump-all", "-o", tt_tmpdir());
    EXPECT(&r, 1, "--dump-all is for TaskGraphs", "[usage.args]");
    tt_run_free(&r);
    RUN(&r, "--format", "pb", e.json, "--params", e.params, "--input", in);
    EXPECT(&r, 1, "--params is for CVM models", "[usage.args]");
    tt_run_free(&r);
    RUN(&r, "--format", "bogus", e.json);
    EXPECT(&r, 1, "--format takes cvm, cinn, onnx or pb", "[usage.format]");
    tt_run_free(&r);
    RUN(&r, e.json, "--params");
    EXPECT(&r, 1, "--params needs a file", "[usage.params]");
    tt_run_free(&r);
    RUN(&r, "--help");
    EXPECT(&r, 0, NULL);
    assert_non_null(strstr(r.out, "taskir-run MODEL.json --params MODEL.params"));
    tt_run_free(&r);
}

static int setup(void **state)
{
    (void)state;
    const char *b = getenv("TASKIR_BUILDDIR");
    snprintf(exdir, sizeof exdir, "%s/examples/cvm", b ? b : ".");
    return tt_tmpdir_make("taskir-cvm-cli-") ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    tt_tmpdir_remove();
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_cvm_run_cli TASKIR-RUN\n");
        return 1;
    }
    tool = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writes_expected_outputs),
        cmocka_unit_test(test_prints_without_o),
        cmocka_unit_test(test_input_forms),
        cmocka_unit_test(test_kind_detection),
        cmocka_unit_test(test_missing_input),
        cmocka_unit_test(test_extra_input),
        cmocka_unit_test(test_duplicate_input),
        cmocka_unit_test(test_wrong_shape),
        cmocka_unit_test(test_wrong_dtype),
        cmocka_unit_test(test_value_out_of_range),
        cmocka_unit_test(test_invalid_model),
        cmocka_unit_test(test_refused_like_cvm_runtime),
        cmocka_unit_test(test_unreadable_params),
        cmocka_unit_test(test_no_partial_outputs),
        cmocka_unit_test(test_usage),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
