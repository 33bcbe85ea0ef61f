/* test_sim_cli.c: taskir-run as a user runs it (tt_run, tests/common/tooltest.h): exit codes
 * 0/1/2/3, the messages (tool: file: block: what [rule]), the files it writes and that it
 * writes none on an error. The outputs it writes are compared with an in-process run of the
 * same graph.
 *
 * Argument (tests/sim/meson.build): the taskir-run binary; the example graphs come from
 * $TASKIR_BUILDDIR/examples. */
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

#include "simtest.h"
#include "taskir/fileio.h"
#include "taskir/npy.h"
#include "taskir/pbio.h"
#include "tooltest.h"

static const char *tool;
static char lenet[1024];

/* Runs taskir-run with the NULL-terminated arguments after argv[0]. */
static void run(TtRun *r, ...)
{
    va_list ap;
    va_start(ap, r);
    tt_run_va(r, NULL, tool, ap);
    va_end(ap);
}

static void expect(TtRun *r, int status, const char *in_err)
{
    if (r->status != status || (in_err && !strstr(r->err, in_err))) {
        fprintf(stderr, "exit %d (want %d)\nstdout:\n%s\nstderr:\n%s\nwanted in stderr: %s\n",
                r->status, status, r->out, r->err, in_err ? in_err : "-");
        fail();
    }
}

/* Writes an int8 .npy of shape dims (byte by byte). */
static void write_i8(const char *path, const int64_t *shape, uint32_t nd, const int32_t *v)
{
    char hdr[200];
    int n = snprintf(hdr, sizeof hdr, "{'descr': '|i1', 'fortran_order': False, 'shape': (");
    int64_t cnt = 1;
    for (uint32_t i = 0; i < nd; i++) {
        n += snprintf(hdr + n, sizeof hdr - (size_t)n, "%lld, ", (long long)shape[i]);
        cnt *= shape[i];
    }
    n += snprintf(hdr + n, sizeof hdr - (size_t)n, "), }");
    size_t pad = (64 - (10 + (size_t)n + 1) % 64) % 64;
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    size_t hl = (size_t)n + pad + 1;
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    fputc((int)(hl & 0xff), f);
    fputc((int)(hl >> 8), f);
    fwrite(hdr, 1, (size_t)n, f);
    for (size_t i = 0; i < pad; i++)
        fputc(' ', f);
    fputc('\n', f);
    for (int64_t i = 0; i < cnt; i++)
        fputc((int)(uint8_t)(int8_t)v[i], f);
    assert_int_equal(fclose(f), 0);
}

static void lenet_expected(const int32_t *img, int32_t out[10])
{
    Diag d;
    diag_init(&d, lenet);
    Graph *g;
    assert_int_equal(graph_load_pb(lenet, &g, &d), ST_OK);
    SimRun *r = st_create(g, NULL);
    assert_int_equal(sim_set_input(r, 0, img, 256, &d), ST_OK);
    assert_int_equal(sim_step(r, &d), ST_OK);
    int64_t n;
    memcpy(out, sim_output(r, 0, &n), 10 * sizeof *out);
    sim_destroy(r);
    graph_destroy(g);
    diag_finish(&d);
}

static int32_t img[2 * 256];
static char x_npy[512], x2_npy[512], xf_npy[512], outdir[512];

static int setup(void **state)
{
    (void)state;
    StRng r = {2024};
    for (int i = 0; i < 512; i++)
        img[i] = st_range(&r, -128, 127);
    int64_t s1[3] = {16, 16, 1}, s2[4] = {2, 16, 16, 1};
    tt_path(x_npy, sizeof x_npy, "x.npy");
    tt_path(x2_npy, sizeof x2_npy, "x2.npy");
    tt_path(xf_npy, sizeof xf_npy, "xf.npy");
    tt_path(outdir, sizeof outdir, "out/sub");
    write_i8(x_npy, s1, 3, img);
    write_i8(x2_npy, s2, 4, img);
    /* a float32 file: rewrite the int8 header's dtype */
    FILE *f = fopen(xf_npy, "wb");
    const char *h = "{'descr': '<f4', 'fortran_order': False, 'shape': (16, 16, 1), }";
    size_t n = strlen(h), pad = (64 - (10 + n + 1) % 64) % 64, hl = n + pad + 1;
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    fputc((int)hl, f);
    fputc(0, f);
    fwrite(h, 1, n, f);
    for (size_t i = 0; i < pad; i++)
        fputc(' ', f);
    fputc('\n', f);
    for (int i = 0; i < 256 * 4; i++)
        fputc(0, f);
    fclose(f);
    return 0;
}

static void test_help_version_usage(void **state)
{
    (void)state;
    TtRun r;
    run(&r, "--help", NULL);
    expect(&r, 0, NULL);
    assert_non_null(strstr(r.out, "usage: taskir-run GRAPH.pb --input NAME=X.npy"));
    tt_run_free(&r);
    run(&r, "--version", NULL);
    expect(&r, 0, NULL);
    assert_true(strncmp(r.out, "taskir-run ", 11) == 0);
    tt_run_free(&r);
    run(&r, NULL);
    expect(&r, 1, "[usage.args]");
    tt_run_free(&r);
    run(&r, lenet, "--bogus", NULL);
    expect(&r, 1, "unknown option '--bogus' [usage.option]");
    tt_run_free(&r);
    run(&r, lenet, "--input", "data", NULL);
    expect(&r, 1, "[usage.input]");
    tt_run_free(&r);
    run(&r, lenet, "--steps", "0", "--input", "data=x", NULL);
    expect(&r, 1, "[usage.steps]");
    tt_run_free(&r);
    run(&r, lenet, "--threads", "x", NULL);
    expect(&r, 1, "[usage.threads]");
    tt_run_free(&r);
    run(&r, lenet, "--dump-all", NULL);
    expect(&r, 1, "--dump-all needs -o DIR");
    tt_run_free(&r);
}

static void read_output(const char *path, NpyArray *a)
{
    Diag d;
    diag_init(&d, path);
    assert_int_equal(npy_read(path, a, &d), ST_OK);
    diag_finish(&d);
    assert_int_equal(a->dtype, NPY_I32);
}

static void test_run_lenet(void **state)
{
    (void)state;
    int32_t want[2][10];
    lenet_expected(img, want[0]);
    lenet_expected(img + 256, want[1]);
    char arg[600], o0[600];
    snprintf(arg, sizeof arg, "data=%s", x_npy);
    snprintf(o0, sizeof o0, "%s/output0.npy", outdir);
    TtRun r;
    /* printed */
    run(&r, lenet, "--input", arg, NULL);
    expect(&r, 0, NULL);
    assert_non_null(strstr(r.out, "output0 (block 25): int32 (10,)\n"));
    char line[200];
    int k = 0;
    for (int i = 0; i < 10; i++)
        k += snprintf(line + k, sizeof line - (size_t)k, "%d%s", want[0][i], i < 9 ? " " : "\n");
    assert_non_null(strstr(r.out, line));
    tt_run_free(&r);
    /* written, the directory and its parent created */
    tt_rm_tree(outdir);
    run(&r, lenet, "--input", arg, "-o", outdir, "--threads", "2", NULL);
    expect(&r, 0, NULL);
    assert_string_equal(r.err, "");
    tt_run_free(&r);
    NpyArray a;
    read_output(o0, &a);
    assert_int_equal(a.ndim, 1);
    assert_int_equal(a.shape[0], 10);
    st_assert_equal(want[0], a.i32, 10, "output0.npy");
    npy_free(&a);
    assert_int_equal(tt_count_files(outdir), 1);
    /* socket id instead of the name, --dump-all */
    snprintf(arg, sizeof arg, "0=%s", x_npy);
    run(&r, lenet, "--input", arg, "-o", outdir, "--dump-all", NULL);
    expect(&r, 0, NULL);
    tt_run_free(&r);
    assert_int_equal(tt_count_files(outdir), 26);
    char p[700];
    snprintf(p, sizeof p, "%s/block3.npy", outdir); /* conv1/w: [4][1][5][5] */
    read_output(p, &a);
    assert_int_equal(a.ndim, 4);
    assert_int_equal(a.shape[0], 4);
    assert_int_equal(a.shape[3], 5);
    npy_free(&a);
    /* two steps, one image each */
    tt_rm_tree(outdir);
    snprintf(arg, sizeof arg, "data=%s", x2_npy);
    run(&r, lenet, "--input", arg, "-o", outdir, "--steps", "2", NULL);
    expect(&r, 0, NULL);
    tt_run_free(&r);
    read_output(o0, &a);
    assert_int_equal(a.ndim, 2);
    assert_int_equal(a.shape[0], 2);
    st_assert_equal(want[0], a.i32, 10, "step 0");
    st_assert_equal(want[1], a.i32 + 10, 10, "step 1");
    npy_free(&a);
    /* the same file as a batch of two */
    tt_rm_tree(outdir);
    run(&r, lenet, "--input", arg, "-o", outdir, NULL);
    expect(&r, 0, NULL);
    tt_run_free(&r);
    read_output(o0, &a);
    assert_int_equal(a.shape[0], 2);
    st_assert_equal(want[1], a.i32 + 10, 10, "batch 1");
    npy_free(&a);
    tt_rm_tree(outdir);
}

/* --time-phases: one line a phase on standard error, in the order the run takes them, each
 * with a wall and a CPU time; the outputs as without it. */
static void test_time_phases(void **state)
{
    (void)state;
    char arg[600], o0[600];
    snprintf(arg, sizeof arg, "data=%s", x_npy);
    snprintf(o0, sizeof o0, "%s/output0.npy", outdir);
    tt_rm_tree(outdir);
    TtRun r;
    run(&r, lenet, "--input", arg, "-o", outdir, "--threads", "2", "--time-phases", NULL);
    expect(&r, 0, "taskir-run: phase       wall ms     cpu ms\n");
    static const char *const phases[] = {"read", "load", "verify", "plan", "inputs", "run",
                                         "release", "write", "total"};
    const char *at = r.err;
    for (size_t i = 0; i < sizeof phases / sizeof *phases; i++) {
        char head[40];
        snprintf(head, sizeof head, "\ntaskir-run: %-8s ", phases[i]);
        const char *line = strstr(at, head);
        if (!line)
            fail_msg("no line for phase %s after the earlier ones in:\n%s", phases[i], r.err);
        double wall = -1, cpu = -1;
        assert_int_equal(sscanf(line + strlen(head), "%lf %lf", &wall, &cpu), 2);
        assert_true(wall >= 0 && cpu >= 0);
        at = line + 1;
    }
    tt_run_free(&r);
    int32_t want[10];
    lenet_expected(img, want);
    NpyArray a;
    read_output(o0, &a);
    st_assert_equal(want, a.i32, 10, "output0.npy");
    npy_free(&a);
    run(&r, "--help", NULL);
    expect(&r, 0, NULL);
    assert_non_null(strstr(r.out, "--time-phases"));
    tt_run_free(&r);
    tt_rm_tree(outdir);
}

static void test_errors(void **state)
{
    (void)state;
    char arg[1200], msg[1200];
    TtRun r;
    tt_rm_tree(outdir);
    /* missing input: no file written */
    run(&r, lenet, "-o", outdir, NULL);
    snprintf(msg, sizeof msg, "taskir-run: %s: block 1 (INPUT 'data'): no value given", lenet);
    expect(&r, 2, msg);
    assert_non_null(strstr(r.err, "[sim.input.missing]"));
    tt_run_free(&r);
    assert_true(tt_count_files(outdir) <= 0);
    /* extra input */
    snprintf(arg, sizeof arg, "data=%s", x_npy);
    char extra[600];
    snprintf(extra, sizeof extra, "pixels=%s", x_npy);
    run(&r, lenet, "--input", arg, "--input", extra, "-o", outdir, NULL);
    expect(&r, 2, "no INPUT block has socket id or name 'pixels' (inputs: 0 'data') "
                  "[sim.input.unknown]");
    tt_run_free(&r);
    assert_true(tt_count_files(outdir) <= 0);
    /* dtype, shape */
    snprintf(arg, sizeof arg, "data=%s", xf_npy);
    run(&r, lenet, "--input", arg, NULL);
    expect(&r, 2, "block 1 (INPUT 'data'): got a float32 array, expected int8, uint8, int16, "
                  "uint16, int32 or int64 [sim.input.dtype]");
    tt_run_free(&r);
    snprintf(arg, sizeof arg, "data=%s", x2_npy);
    run(&r, lenet, "--input", arg, "--steps", "3", NULL);
    expect(&r, 2, "got shape (2, 16, 16, 1), expected (16, 16, 1), [3]+(16, 16, 1)");
    tt_run_free(&r);
    /* unreadable files: runtime errors */
    run(&r, lenet, "--input", "data=/nonexistent/x.npy", NULL);
    expect(&r, 3, "taskir-run: /nonexistent/x.npy: cannot open");
    tt_run_free(&r);
    snprintf(arg, sizeof arg, "data=%s", x_npy);
    run(&r, "/nonexistent/g.pb", "--input", arg, NULL);
    expect(&r, 3, "[io.read]");
    tt_run_free(&r);
    /* an output directory that cannot be made */
    char bad[700];
    tt_path(bad, sizeof bad, "x.npy/sub");
    run(&r, lenet, "--input", arg, "-o", bad, NULL);
    expect(&r, 3, "[io.write]");
    tt_run_free(&r);
    /* a graph that fails the verifier */
    Diag d;
    diag_init(&d, lenet);
    Graph *g;
    assert_int_equal(graph_load_pb(lenet, &g, &d), ST_OK);
    g->blocks[4]->shape.d[D_Y] = 13; /* conv1: the window gives 12 */
    char badpb[600];
    tt_path(badpb, sizeof badpb, "bad.pb");
    assert_int_equal(graph_save_pb(g, badpb, &d), ST_OK);
    graph_destroy(g);
    diag_finish(&d);
    run(&r, badpb, "--input", arg, "-o", outdir, NULL);
    expect(&r, 2, "block 5 (CC 'conv1')");
    tt_run_free(&r);
    assert_true(tt_count_files(outdir) <= 0);
    /* a value out of the INPUT's INT_8 range, in an int32 file */
    int32_t big[256];
    memcpy(big, img, sizeof big);
    big[3] = 1000;
    char bigp[512];
    tt_path(bigp, sizeof bigp, "big.npy");
    diag_init(&d, bigp);
    int64_t s[3] = {16, 16, 1};
    assert_int_equal(npy_write_i32(bigp, big, s, 3, &d), ST_OK);
    diag_finish(&d);
    snprintf(arg, sizeof arg, "data=%s", bigp);
    run(&r, lenet, "--input", arg, NULL);
    expect(&r, 2, "value 1000 at flat index 3 is outside INT_8 [-128, 127] [sim.input.range]");
    tt_run_free(&r);
    /* a malformed .npy names the .npy file */
    char junk[512];
    tt_path(junk, sizeof junk, "junk.npy");
    FILE *f = fopen(junk, "wb");
    fputs("not numpy", f);
    fclose(f);
    snprintf(arg, sizeof arg, "data=%s", junk);
    run(&r, lenet, "--input", arg, NULL);
    snprintf(msg, sizeof msg, "taskir-run: %s: --input data: not a .npy file (bad magic) "
             "[npy.magic]", junk);
    expect(&r, 2, msg);
    tt_run_free(&r);
    /* --threads 2 reads the inputs while the graph loads (taskir-run.c, Ahead): the same
     * findings as one thread, and none about an input when the graph stopped the run first */
    run(&r, lenet, "--input", arg, "--threads", "2", NULL);
    expect(&r, 2, msg);
    tt_run_free(&r);
    for (int t = 1; t <= 2; t++) {
        run(&r, badpb, "--input", arg, "--threads", t == 1 ? "1" : "2", "-o", outdir, NULL);
        expect(&r, 2, "block 5 (CC 'conv1')");
        assert_null(strstr(r.err, "npy.magic"));
        tt_run_free(&r);
        assert_true(tt_count_files(outdir) <= 0);
    }
    run(&r, lenet, "--input", "data=/nonexistent/x.npy", "--threads", "2", NULL);
    expect(&r, 3, "taskir-run: /nonexistent/x.npy: cannot open");
    tt_run_free(&r);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_sim_cli TASKIR-RUN\n");
        return 2;
    }
    tool = argv[1];
    const char *bd = getenv("TASKIR_BUILDDIR");
    if (!bd) {
        fprintf(stderr, "TASKIR_BUILDDIR is not set\n");
        return 2;
    }
    snprintf(lenet, sizeof lenet, "%s/examples/lenet.pb", bd);
    if (!tt_tmpdir_make("taskir-run-test-"))
        return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_version_usage),
        cmocka_unit_test(test_run_lenet),
        cmocka_unit_test(test_time_phases),
        cmocka_unit_test(test_errors),
    };
    int rc = cmocka_run_group_tests(tests, setup, NULL);
    tt_tmpdir_remove();
    return rc;
}
