/* test_opt_cli.c: taskir-opt as a user runs it (tt_run, tests/common/tooltest.h): its help,
 * version and table, its usage errors, a bad input, a run on the example graph lenet.pb
 * (the result verifies, holds the groups and is the same bytes on every run), standard
 * input and output, --dump-after, --dump-to and --time-passes.
 *
 * Arguments (tests/passes/meson.build): the taskir-opt and taskir-dump binaries and the
 * project version. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <unistd.h>

#include "taskir/pbio.h"
#include "tooltest.h"

static const char *opt_tool, *dump_tool, *version;
static char lenet[4096], chip[4096];

/* Runs taskir-opt with the arguments given, NULL-terminated. */
static void opt(TtRun *r, const TtOpts *o, ...)
{
    va_list ap;
    va_start(ap, o);
    tt_run_va(r, o, opt_tool, ap);
    va_end(ap);
}

/* taskir-opt ARGS... must be a usage error (exit 1) with this rule; nothing is written. */
#define USAGE(rule, ...)                                                                  \
    do {                                                                                  \
        TtRun r;                                                                          \
        opt(&r, &(TtOpts){.out_file = "/dev/null"}, __VA_ARGS__, NULL);                   \
        if (r.status != 1)                                                                \
            fail_msg("exit %d, stderr:\n%s", r.status, r.err);                            \
        tt_assert_contains(r.err, "[" rule "]");                                          \
        tt_assert_contains(r.err, "try 'taskir-opt --help'");                             \
        tt_run_free(&r);                                                                  \
    } while (0)

static void test_help(void **state)
{
    (void)state;
    TtRun r;
    opt(&r, NULL, "--help", NULL);
    assert_int_equal(r.status, 0);
    tt_assert_contains(r.out, "usage: taskir-opt IN.pb [-o OUT.pb] [--passes LIST]");
    tt_run_free(&r);
    opt(&r, NULL, "--version", NULL);
    assert_int_equal(r.status, 0);
    char want[64];
    snprintf(want, sizeof want, "taskir-opt %s\n", version);
    assert_string_equal(r.out, want);
    tt_run_free(&r);
    opt(&r, NULL, "--list-passes", NULL);
    assert_int_equal(r.status, 0);
    /* one line a pass, in columns: name, requires, guarantees, invalidates, summary */
    tt_assert_contains(r.out, "pass       requires  guarantees  invalidates");
    tt_assert_contains(r.out, "\ndce        -         no-dead     grouped");
    tt_assert_contains(r.out, "\ndefault: dce,");
    tt_run_free(&r);
}

static void test_usage(void **state)
{
    (void)state;
    char out[4096];
    tt_path(out, sizeof out, "u.pb");
    USAGE("usage.args", "-o", out);
    USAGE("usage.option", lenet, "-o", out, "--fast");
    USAGE("usage.args", lenet, lenet, "-o", out);
    USAGE("usage.passes", lenet, "-o", out, "--passes", "dce,fuze");
    USAGE("usage.passes", lenet, "-o", out, "--passes", "dce,,group");
    USAGE("usage.repeated", lenet, "-o", out, "--passes", "dce", "--passes", "group");
    USAGE("usage.dump", lenet, "-o", out, "--passes", "dce", "--dump-after", "group");
    USAGE("usage.args", lenet, "-o", out, "--dump-to", out);
    USAGE("usage.args", lenet, "-o", out, "--passes", "dce", "--split", "conv1:y=2");
    USAGE("usage.args", lenet, "-o", out, "--passes", "dce", "--no-fit");
    USAGE("usage.output", lenet, "-o", lenet);
    USAGE("usage.output", lenet, "-o", tt_tmpdir());
    USAGE("usage.output", lenet, "-o", out, "--dump-after", "all", "--dump-to", lenet);
    USAGE("usage.repeated", lenet, "-o", out, "--chip", chip, "--chip", chip);
    USAGE("usage.stdin", "-", "-o", out, "--chip", "-");
    USAGE("usage.output", lenet, "-o", chip, "--chip", chip);
    assert_int_equal(access(out, F_OK), -1);
}

static void test_bad_input(void **state)
{
    (void)state;
    char bad[4096], out[4096];
    tt_path(bad, sizeof bad, "bad.pb");
    tt_path(out, sizeof out, "bad.out.pb");
    tt_write_file(bad, "\x0a\x05\x08", 3);
    TtRun r;
    opt(&r, NULL, bad, "-o", out, NULL);
    assert_int_equal(r.status, 2);
    tt_assert_contains(r.err, "taskir-opt: ");
    tt_assert_contains(r.err, "[wire.");
    assert_int_equal(access(out, F_OK), -1);
    tt_run_free(&r);
    tt_path(bad, sizeof bad, "missing.pb");
    opt(&r, NULL, bad, "-o", out, NULL);
    assert_int_equal(r.status, 3);
    assert_int_equal(access(out, F_OK), -1);
    tt_run_free(&r);
}

/* --chip: the shipped description gives what the built-in one gives; a broken one is a
 * logic error naming its file and line, and nothing is written. */
static void test_chip(void **state)
{
    (void)state;
    char a[4096], b[4096], bad[4096];
    tt_path(a, sizeof a, "chip_a.pb");
    tt_path(b, sizeof b, "chip_b.pb");
    tt_path(bad, sizeof bad, "bad_chip.xml");
    TtRun r;
    opt(&r, NULL, lenet, "-o", a, NULL);
    assert_int_equal(r.status, 0);
    tt_run_free(&r);
    opt(&r, NULL, lenet, "-o", b, "--chip", chip, NULL);
    if (r.status != 0)
        fail_msg("stderr:\n%s", r.err);
    tt_run_free(&r);
    size_t la, lb;
    char *x = tt_slurp_or_fail(a, &la), *y = tt_slurp_or_fail(b, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(x, y, la);
    free(x);
    free(y);
    tt_write_file(bad, "<chip>\n<oops/>\n", 15);
    remove(b);
    opt(&r, NULL, lenet, "-o", b, "--chip", bad, NULL);
    assert_int_equal(r.status, 2);
    tt_assert_contains(r.err, "taskir-opt: ");
    tt_assert_contains(r.err, "bad_chip.xml: line ");
    assert_int_equal(access(b, F_OK), -1);
    tt_run_free(&r);
}

static void test_run(void **state)
{
    (void)state;
    char a[4096], b[4096], c[4096], dumps[4096];
    tt_path(a, sizeof a, "a.pb");
    tt_path(b, sizeof b, "b.pb");
    tt_path(c, sizeof c, "c.pb");
    tt_path(dumps, sizeof dumps, "dumps.txt");
    TtRun r;
    opt(&r, NULL, lenet, "-o", a, NULL);
    if (r.status != 0)
        fail_msg("stderr:\n%s", r.err);
    assert_string_equal(r.err, "");
    tt_run_free(&r);
    tt_run(&r, NULL, dump_tool, "--verify", a, NULL);
    assert_int_equal(r.status, 0);
    tt_run_free(&r);
    tt_run(&r, NULL, dump_tool, "--format", "text", a, NULL);
    /* the default list: fuse pairs each conv and dense layer with its pooling or
     * requantization (3 groups), group gives the last dense layer its own */
    tt_assert_contains(r.out, "taskgraph: 25 blocks, 24 edges, 4 groups\n");
    tt_assert_contains(r.out, "group 0: blocks 5 2 3 4 6 7\n");
    tt_run_free(&r);
    /* deterministic; "-" reads standard input and writes standard output */
    opt(&r, &(TtOpts){.in = lenet, .out_file = b}, "-", "--verify-each", "--time-passes",
        NULL);
    assert_int_equal(r.status, 0);
    tt_assert_contains(r.err, "taskir-opt: group ");
    tt_assert_contains(r.err, "0 -> 3");
    tt_assert_contains(r.err, "3 -> 4");
    tt_assert_contains(r.err, "taskir-opt: total ");
    tt_run_free(&r);
    size_t la, lb;
    char *x = tt_slurp_or_fail(a, &la), *y = tt_slurp_or_fail(b, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(x, y, la);
    free(x);
    free(y);
    /* dumps: to standard error, or to a file */
    opt(&r, NULL, lenet, "-o", c, "--passes", "dce,group", "--dump-after", "all", NULL);
    assert_int_equal(r.status, 0);
    tt_assert_contains(r.err, "# after pass 'dce' (1 of 2)\ntaskgraph: 25 blocks, 24 edges, "
                       "0 groups\n");
    tt_assert_contains(r.err, "# after pass 'group' (2 of 2)\ntaskgraph: 25 blocks, 24 edges, "
                       "7 groups\n");
    tt_run_free(&r);
    opt(&r, NULL, lenet, "-o", c, "--dump-after", "group", "--dump-to", dumps, NULL);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.err, "");
    tt_run_free(&r);
    x = tt_slurp_or_fail(dumps, &la);
    tt_assert_contains(x, "# after pass 'group' (6 of 6)\ntaskgraph: ");
    assert_null(strstr(x, "after pass 'dce'"));
    free(x);
}

/* The number of blocks of the graph in file pb, from taskir-dump's first line. */
static int blocks_of(const char *pb)
{
    TtRun r;
    tt_run(&r, NULL, dump_tool, "--format", "text", pb, NULL);
    assert_int_equal(r.status, 0);
    int n = -1;
    if (sscanf(r.out, "taskgraph: %d blocks", &n) != 1)
        fail_msg("no block count in:\n%.200s", r.out);
    tt_run_free(&r);
    return n;
}

/* --no-fit: on a chip of 16 KiB a core, fit mode cuts LeNet; with --no-fit split makes only
 * the cuts of --split (none: the graph keeps its blocks). */
static void test_no_fit(void **state)
{
    (void)state;
    char small[4096], fit[4096], nofit[4096], spec[4096];
    tt_path(small, sizeof small, "small_chip.xml");
    tt_path(fit, sizeof fit, "fit.pb");
    tt_path(nofit, sizeof nofit, "nofit.pb");
    tt_path(spec, sizeof spec, "spec.pb");
    size_t n;
    char *x = tt_slurp_or_fail(chip, &n);
    char *b = strstr(x, "budget=\"128KiB\"");
    assert_non_null(b);
    memcpy(b, "budget=\"16KiB\" ", 15);
    tt_write_file(small, x, n);
    free(x);
    TtRun r;
    opt(&r, NULL, lenet, "-o", fit, "--passes", "split", "--chip", small, NULL);
    if (r.status != 0)
        fail_msg("stderr:\n%s", r.err);
    tt_run_free(&r);
    opt(&r, NULL, lenet, "-o", nofit, "--passes", "split", "--chip", small, "--no-fit", NULL);
    assert_int_equal(r.status, 0);
    tt_run_free(&r);
    opt(&r, NULL, lenet, "-o", spec, "--passes", "split", "--chip", small, "--no-fit",
        "--split", "conv1:y=2", NULL);
    assert_int_equal(r.status, 0);
    tt_run_free(&r);
    int before = blocks_of(lenet);
    assert_int_equal(blocks_of(nofit), before);
    /* conv1 in two row bands: two pieces, each with its input and its weights (the whole
     * ones go), the bias shared */
    assert_true(blocks_of(spec) > before);
    assert_true(blocks_of(fit) > blocks_of(spec));
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: test_opt_cli TASKIR-OPT TASKIR-DUMP VERSION\n");
        return 1;
    }
    opt_tool = argv[1];
    dump_tool = argv[2];
    version = argv[3];
    const char *dir = getenv("TASKIR_BUILDDIR");
    snprintf(lenet, sizeof lenet, "%s/examples/lenet.pb", dir ? dir : ".");
    const char *src = getenv("TASKIR_SRCDIR");
    snprintf(chip, sizeof chip, "%s/examples/chips/tianjicx.xml", src ? src : ".");
    if (!tt_tmpdir_make("test_opt_cli.")) {
        perror("test_opt_cli: scratch directory");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_usage),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_run),
        cmocka_unit_test(test_chip),
        cmocka_unit_test(test_no_fit),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    tt_tmpdir_remove();
    return rc;
}
