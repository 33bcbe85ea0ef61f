/* test_compile_cli.c: taskir-compile run as a user runs it (tt_run, tests/common/tooltest.h):
 * --help, --version, usage errors (exit 1), models the lowering refuses (exit 2, naming the
 * node), unreadable files (exit 3), and a good model (exit 0) whose output verifies, is
 * byte-identical across runs and with -o - on standard output, and leaves no file behind when
 * compiling fails.
 *
 * Arguments (tests/diff/meson.build): the taskir-compile binary and the project version.
 * The models are written by the test itself (fe_cvm_save). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "difftest.h"

#include "frontend/cvm_save.h"
#include "taskir/fileio.h"
#include "taskir/pbio.h"
#include "taskir/verify.h"
#include "tooltest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *tool, *version;

/* Runs taskir-compile with the arguments (NULL-terminated), stdin /dev/null. */
static void run(TtRun *r, ...)
{
    va_list ap;
    va_start(ap, r);
    tt_run_va(r, NULL, tool, ap);
    va_end(ap);
}

static void expect(const TtRun *r, int status, const char *in_err)
{
    if (r->status != status || (in_err && !strstr(r->err, in_err)))
        fail_msg("exit %d (want %d), stderr:\n%s\n(want it to contain: %s)", r->status, status,
                 r->err, in_err ? in_err : "-");
}

/* Writes a model: data (shape) -> op(attrs) [-> relu], with a conv weight when asked. */
static void write_model(const char *name, int which)
{
    DtRng rng = {77};
    DtModel m;
    dt_begin(&m, &rng);
    char json[512], params[512];
    tt_join(json, sizeof json, tt_tmpdir(), "%s.json", name);
    tt_join(params, sizeof params, tt_tmpdir(), "%s.params", name);
    if (which == 0) { /* good: conv -> requant -> relu -> pool -> dense */
        int32_t x = dt_input(&m, "data", DT_ND(1, 2, 8, 8), 8);
        int32_t w = dt_const(&m, "conv1_w", DT_ND(4, 2, 3, 3), 8, NULL);
        int32_t b = dt_const(&m, "conv1_b", DT_ND(4), 8, NULL);
        int32_t y = dt_op(&m, CVM_OP_conv2d, "conv1", DT_INS(x, w, b),
                          DT_KV("channels", "4", "kernel_size", "(3, 3)", "padding", "(1, 1)"));
        y = dt_op(&m, CVM_OP_cvm_right_shift, "conv1_rs", DT_INS(y),
                  DT_KV("precision", "8", "shift_bit", "6"));
        y = dt_op(&m, CVM_OP_relu, "relu1", DT_INS(y), NULL);
        y = dt_op(&m, CVM_OP_max_pool2d, "pool1", DT_INS(y),
                  DT_KV("pool_size", "(2, 2)", "strides", "(2, 2)"));
        y = dt_op(&m, CVM_OP_flatten, "flat", DT_INS(y), NULL);
        int32_t w2 = dt_const(&m, "fc_w", DT_ND(5, 64), 8, NULL);
        dt_op(&m, CVM_OP_dense, "fc", DT_INS(y, w2), DT_KV("units", "5", "use_bias", "false"));
    } else if (which == 1) { /* data-dependent: get_valid_counts */
        int32_t x = dt_input(&m, "data", DT_ND(1, 8, 6), 8);
        dt_op(&m, CVM_OP_get_valid_counts, "boxes_valid", DT_INS(x), NULL);
    } else { /* a batch of 2, a comparison at precision 32 (no exact lowering) */
        int32_t x = dt_input(&m, "data", DT_ND(2, 3, 4), 32);
        dt_op(&m, CVM_OP_broadcast_greater, "gt", DT_INS(x, x), NULL);
    }
    dt_output(&m, m.last->id, 0);
    if (fe_cvm_save(m.g, json, params, &m.d) != ST_OK) {
        diag_print(&m.d, stderr, "save");
        fail_msg("cannot write the model %s", name);
    }
    dt_end(&m);
}

static int setup(void **state)
{
    (void)state;
    return tt_tmpdir_make("taskir-compile-cli.") ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    tt_tmpdir_remove();
    return 0;
}

static void test_help_version(void **state)
{
    (void)state;
    TtRun r;
    run(&r, "--help", NULL);
    expect(&r, 0, NULL);
    assert_non_null(strstr(r.out, "usage: taskir-compile MODEL.json"));
    assert_non_null(strstr(r.out, "exit status"));
    tt_run_free(&r);
    run(&r, "--version", NULL);
    expect(&r, 0, NULL);
    char want[128];
    snprintf(want, sizeof want, "taskir-compile %s\n", version);
    assert_string_equal(r.out, want);
    tt_run_free(&r);
}

static void test_usage_errors(void **state)
{
    (void)state;
    TtRun r;
    run(&r, NULL);
    expect(&r, 1, "taskir-compile: no model");
    tt_run_free(&r);
    run(&r, "m.json", "--bogus", NULL);
    expect(&r, 1, "unknown option '--bogus' [usage.option]");
    tt_run_free(&r);
    run(&r, "m.json", "--format", "bogus", "-o", "x.pb", NULL);
    expect(&r, 1, "unknown format 'bogus' (cvm, cinn, onnx) [usage.format]");
    tt_run_free(&r);
    run(&r, "m.json", "-o", NULL);
    expect(&r, 1, "[usage.output]");
    tt_run_free(&r);
    run(&r, "m.json", "n.json", NULL);
    expect(&r, 1, "more than one model");
    tt_run_free(&r);
    run(&r, "m.json", "--params", NULL);
    expect(&r, 1, "[usage.params]");
    tt_run_free(&r);
    /* --allow-host writes the host remainder beside -o FILE (test_allow_host tests it) */
    run(&r, "m.json", "--allow-host", NULL);
    expect(&r, 1, "--allow-host needs -o FILE");
    tt_run_free(&r);
    run(&r, "m.json", "--allow-host", "-o", "-", NULL);
    expect(&r, 1, "[usage.output]");
    tt_run_free(&r);
}

static void test_bad_models(void **state)
{
    (void)state;
    write_model("bad_host", 1);
    write_model("bad_batch", 2);
    char json[512], params[512], out[512];
    tt_path(json, sizeof json, "bad_host.json");
    tt_path(params, sizeof params, "bad_host.params");
    tt_path(out, sizeof out, "never.pb");
    TtRun r;
    run(&r, json, "--params", params, "-o", out, NULL);
    expect(&r, 2, "node 1 'boxes_valid' (get_valid_counts): ");
    assert_non_null(strstr(r.err, "[lower.host]"));
    assert_non_null(strstr(r.err, "taskir-compile: "));
    tt_run_free(&r);
    struct stat sb;
    assert_int_equal(stat(out, &sb), -1); /* nothing written */
    tt_path(json, sizeof json, "bad_batch.json");
    tt_path(params, sizeof params, "bad_batch.params");
    run(&r, json, "--params", params, "-o", out, NULL);
    expect(&r, 2, "node 1 'gt' (broadcast_greater): ");
    assert_non_null(strstr(r.err, "[lower.precision]"));
    tt_run_free(&r);
    assert_int_equal(stat(out, &sb), -1);
    /* files that cannot be read: a runtime error */
    tt_path(json, sizeof json, "missing.json");
    run(&r, json, "-o", out, NULL);
    expect(&r, 3, "missing.json");
    tt_run_free(&r);
}

static void test_good_model(void **state)
{
    (void)state;
    write_model("good", 0);
    char json[512], params[512], a[512], b[512];
    tt_path(json, sizeof json, "good.json");
    tt_path(params, sizeof params, "good.params");
    tt_path(a, sizeof a, "a.pb");
    tt_path(b, sizeof b, "b.pb");
    TtRun r;
    run(&r, json, "--params", params, "-o", a, NULL);
    expect(&r, 0, NULL);
    assert_string_equal(r.err, "");
    tt_run_free(&r);
    run(&r, "--format=cvm", json, "--params=", NULL);
    expect(&r, 1, "[usage.params]");
    tt_run_free(&r);
    run(&r, "--format=cvm", json, "--params", params, "-o", b, NULL);
    expect(&r, 0, NULL);
    tt_run_free(&r);
    /* the output loads and verifies */
    Graph *g = NULL;
    Diag d;
    diag_init(&d, a);
    assert_int_equal(graph_load_pb(a, &g, &d), ST_OK);
    assert_int_equal(verify_graph(g, &d), ST_OK);
    assert_true(g->n_blocks > 5);
    graph_destroy(g);
    diag_finish(&d);
    /* deterministic: byte-identical across runs, and on standard output */
    size_t la, lb;
    char *ba = tt_slurp(a, &la), *bb = tt_slurp(b, &lb);
    assert_non_null(ba);
    assert_non_null(bb);
    assert_int_equal(la, lb);
    assert_memory_equal(ba, bb, la);
    run(&r, json, "--params", params, "-o", "-", NULL);
    expect(&r, 0, NULL);
    assert_int_equal(r.out_len, la);
    assert_memory_equal(r.out, ba, la);
    tt_run_free(&r);
    free(ba);
    free(bb);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_compile_cli TASKIR-COMPILE VERSION\n");
        return 1;
    }
    tool = argv[1];
    version = argv[2];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_version),
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_bad_models),
        cmocka_unit_test(test_good_model),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
