/* test_signals.c: failure safety of written outputs. An error, SIGINT, SIGTERM or SIGHUP
 * during a write leaves either nothing or the complete file: never a temporary file, never a
 * partial one.
 *
 *  - An error in the middle of a write (the file size limit RLIMIT_FSIZE makes write() fail)
 *    removes the temporary file: the directory stays empty.
 *  - A SIGTERM raised in the middle of a failing write (from the SIGXFSZ handler) takes
 *    effect only after the temporary file is gone: the child dies by SIGTERM, the directory
 *    is empty. Without the signal hold in tir_write_file_atomic the child would die inside
 *    the write with the temporary file in place.
 *  - Holds nest: a tool holding the signals across two writes (as one writing several
 *    outputs must) dies only after both files are complete.
 *  - taskir-dump -o on a graph big enough that its run takes a while, killed with SIGINT,
 *    SIGTERM or SIGHUP after a pseudo-random delay (fixed seed, bounded iterations): the
 *    output directory then holds nothing or exactly the complete, correct output.
 *  - taskir-run -o DIR --dump-all (one .npy per block) killed the same way: DIR then holds
 *    no file, or every file of an undisturbed run with the same bytes, never part of the set.
 * No timing is asserted: the delays only spread the signals over the run.
 *
 * Arguments (tests/robust/meson.build): the taskir-dump and taskir-run binaries and the
 * LeNet example graph. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "taskir/fileio.h"
#include "taskir/npy.h"
#include "taskir/pbio.h"
#include "tooltest.h"

static const char *dump_tool, *run_tool, *lenet_pb;
static const char *base; /* this test's scratch directory */

/* ---- helpers ---- */

static void make_dir(char *out, size_t size, const char *name)
{
    assert_int_equal(mkdir(tt_path(out, size, name), 0777), 0);
}

/* The names in dir, sorted, joined by '/'; "" when empty. */
static void list_dir(const char *dir, char *out, size_t size)
{
    DIR *dp = opendir(dir);
    assert_non_null(dp);
    char names[64][256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dp)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && n < 64)
            snprintf(names[n++], sizeof names[0], "%s", e->d_name);
    closedir(dp);
    for (int i = 1; i < n; i++)
        for (int k = i; k > 0 && strcmp(names[k - 1], names[k]) > 0; k--) {
            char t[256];
            memcpy(t, names[k], sizeof t);
            memcpy(names[k], names[k - 1], sizeof t);
            memcpy(names[k - 1], t, sizeof t);
        }
    out[0] = 0;
    for (int i = 0; i < n; i++)
        snprintf(out + strlen(out), size - strlen(out), "%s%.255s", i ? "/" : "", names[i]);
}

static uint8_t *pattern(size_t len)
{
    uint8_t *p = malloc(len);
    assert_non_null(p);
    for (size_t i = 0; i < len; i++)
        p[i] = (uint8_t)(i * 131 + 7);
    return p;
}

static int wait_child(pid_t pid)
{
    int ws;
    while (waitpid(pid, &ws, 0) < 0)
        assert_int_equal(errno, EINTR);
    return ws;
}

/* ---- in-process writes, in a child ---- */

enum { BIG = 1 << 20, FSIZE_LIMIT = 8192 };

/* The child's file size limit: write() fails with EFBIG past it (and raises SIGXFSZ). */
static void limit_file_size(void)
{
    struct rlimit rl = {FSIZE_LIMIT, FSIZE_LIMIT};
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
        _exit(100);
}

static void test_error_leaves_nothing(void **state)
{
    (void)state;
    char dir[600], path[700], seen[4096];
    make_dir(dir, sizeof dir, "error");
    snprintf(path, sizeof path, "%s/out.bin", dir);
    uint8_t *data = pattern(BIG);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        limit_file_size();
        Diag d;
        diag_init(&d, path);
        Status st = tir_write_file_atomic(path, data, BIG, &d);
        _exit(st == ST_RUNTIME && diag_find(&d, "io.write") >= 0 ? 0 : 10 + (int)st);
    }
    free(data);
    int ws = wait_child(pid);
    assert_true(WIFEXITED(ws));
    assert_int_equal(WEXITSTATUS(ws), 0);
    list_dir(dir, seen, sizeof seen);
    assert_string_equal(seen, "");
    tt_rm_tree(dir);
}

static void raise_term(int sig)
{
    (void)sig;
    kill(getpid(), SIGTERM);
}

static void test_signal_during_write(void **state)
{
    (void)state;
    char dir[600], path[700], seen[4096];
    make_dir(dir, sizeof dir, "sigwrite");
    snprintf(path, sizeof path, "%s/out.bin", dir);
    uint8_t *data = pattern(BIG);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = raise_term;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGXFSZ, &sa, NULL);
        signal(SIGTERM, SIG_DFL);
        limit_file_size();
        Diag d;
        diag_init(&d, path);
        tir_write_file_atomic(path, data, BIG, &d);
        _exit(50); /* not reached: the pending SIGTERM ends the child at the release */
    }
    free(data);
    int ws = wait_child(pid);
    assert_true(WIFSIGNALED(ws));
    assert_int_equal(WTERMSIG(ws), SIGTERM);
    list_dir(dir, seen, sizeof seen);
    assert_string_equal(seen, "");
    tt_rm_tree(dir);
}

static void test_hold_nests(void **state)
{
    (void)state;
    char dir[600], a[700], b[700], seen[4096];
    make_dir(dir, sizeof dir, "nest");
    snprintf(a, sizeof a, "%s/a.bin", dir);
    snprintf(b, sizeof b, "%s/b.bin", dir);
    uint8_t *data = pattern(BIG);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGTERM, SIG_DFL);
        TirSigHold h;
        tir_signals_hold(&h);
        kill(getpid(), SIGTERM); /* pending from here on */
        Diag d;
        diag_init(&d, dir);
        if (tir_write_file_atomic(a, data, BIG, &d) || tir_write_file_atomic(b, data, BIG, &d))
            _exit(20);
        tir_signals_release(&h);
        _exit(50); /* not reached */
    }
    int ws = wait_child(pid);
    assert_true(WIFSIGNALED(ws));
    assert_int_equal(WTERMSIG(ws), SIGTERM);
    list_dir(dir, seen, sizeof seen);
    assert_string_equal(seen, "a.bin/b.bin");
    size_t len;
    for (int i = 0; i < 2; i++) {
        uint8_t *got = (uint8_t *)tt_slurp(i ? b : a, &len);
        assert_non_null(got);
        assert_int_equal(len, BIG);
        assert_memory_equal(got, data, BIG);
        free(got);
    }
    free(data);
    tt_rm_tree(dir);
}

/* ---- taskir-dump killed at random moments ---- */

/* A chain INPUT -> (SI -> CADD)* -> OUTPUT of n pairs, with attributes and data, saved to
 * path: large enough that loading and printing it take a while. */
static void write_big_graph(const char *path, int n)
{
    Graph *g = graph_create();
    assert_non_null(g);
    Block *prev = graph_add_block(g, BT_INPUT, GRAPH_AUTO_ID, "in");
    assert_non_null(prev);
    prev->shape.d[D_F] = 16;
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "si_%d", i);
        Block *s = graph_add_block(g, BT_SI, GRAPH_AUTO_ID, name);
        snprintf(name, sizeof name, "add_%d", i);
        Block *c = graph_add_block(g, BT_CADD, GRAPH_AUTO_ID, name);
        assert_true(s && c);
        s->shape.d[D_Y] = s->shape.d[D_X] = 4;
        s->shape.d[D_F] = c->shape.d[D_F] = 16;
        c->shape.d[D_Y] = c->shape.d[D_X] = 4;
        assert_true(blk_set_attr(g, c, AT_BIT_SHIFT_NUM, i % 7));
        int64_t vals[16];
        for (int k = 0; k < 16; k++)
            vals[k] = (i * 16 + k) % 255 - 127;
        int32_t dims[1] = {16};
        assert_true(blk_set_data(g, s, PR_INT_8, dims, 1, vals, 16));
        assert_non_null(graph_connect(g, prev, 0, s, 0));
        assert_non_null(graph_connect(g, s, 0, c, 0));
        prev = c;
    }
    Block *out = graph_add_block(g, BT_OUTPUT, GRAPH_AUTO_ID, "out");
    assert_non_null(out);
    assert_non_null(graph_connect(g, prev, 0, out, 0));
    Diag d;
    diag_init(&d, path);
    assert_int_equal(graph_save_pb(g, path, &d), ST_OK);
    diag_finish(&d);
    graph_destroy(g);
}

/* Starts argv with default signal handling and no output on the terminal, and returns at
 * once (so not tt_run of tests/common/tooltest.h, which waits: the caller kills the child at a
 * random moment). */
static pid_t spawn(char *const argv[])
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        for (int i = 0; i < 3; i++)
            signal(sigs[i], SIG_DFL);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, 1);
            dup2(null, 2);
        }
        execv(argv[0], argv);
        _exit(127);
    }
    return pid;
}

static pid_t spawn_dump(const char *graph, const char *out)
{
    char *argv[] = {(char *)dump_tool, (char *)graph, "--format", "json", "-o", (char *)out,
                    NULL};
    return spawn(argv);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The delay before the signal of iteration it: even iterations over [0, 1.3 run), odd ones
 * over [0.75 run, 1.05 run), near the writes. */
static long delay_for(int it, unsigned *seed, double run_s)
{
    double u = (double)rand_r(seed) / RAND_MAX;
    return (long)((it % 2 ? 0.75 + 0.3 * u : 1.3 * u) * run_s * 1e6);
}

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static void test_dump_killed(void **state)
{
    (void)state;
    char graph[600], refdir[600], ref[700], seen[4096];
    snprintf(graph, sizeof graph, "%s/big.pb", base);
    write_big_graph(graph, 6000);
    make_dir(refdir, sizeof refdir, "ref");
    snprintf(ref, sizeof ref, "%s/out.json", refdir);
    /* one undisturbed run: the expected output, and how long a run takes (only to spread
     * the signals over it; nothing is asserted about time) */
    double t0 = now_s();
    int ws = wait_child(spawn_dump(graph, ref));
    double run_s = now_s() - t0;
    assert_true(WIFEXITED(ws));
    assert_int_equal(WEXITSTATUS(ws), 0);
    size_t ref_len;
    uint8_t *expect = (uint8_t *)tt_slurp(ref, &ref_len);
    assert_non_null(expect);
    assert_true(ref_len > 100000);

    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    unsigned seed = 20240607;
    int outcome[3] = {0}; /* nothing left, complete file left by a killed run, exit 0 */
    for (int it = 0; it < 24; it++) {
        char dir[600], out[700];
        char name[32];
        snprintf(name, sizeof name, "kill%d", it);
        make_dir(dir, sizeof dir, name);
        snprintf(out, sizeof out, "%s/out.json", dir);
        int sig = sigs[it % 3];
        long delay_us = delay_for(it, &seed, run_s);
        pid_t pid = spawn_dump(graph, out);
        sleep_us(delay_us);
        kill(pid, sig);
        ws = wait_child(pid);
        list_dir(dir, seen, sizeof seen);
        if (WIFEXITED(ws)) {
            if (WEXITSTATUS(ws) != 0)
                fail_msg("iteration %d: taskir-dump exited %d", it, WEXITSTATUS(ws));
        } else if (!WIFSIGNALED(ws) || WTERMSIG(ws) != sig) {
            fail_msg("iteration %d: taskir-dump ended with wait status 0x%x", it, ws);
        }
        if (strcmp(seen, "") == 0) {
            if (WIFEXITED(ws))
                fail_msg("iteration %d: exit 0 but no output", it);
            outcome[0]++;
        } else if (strcmp(seen, "out.json") == 0) {
            size_t len;
            uint8_t *got = (uint8_t *)tt_slurp(out, &len);
            assert_non_null(got);
            if (len != ref_len || memcmp(got, expect, len) != 0)
                fail_msg("iteration %d (signal %d after %ld us): a partial or wrong output "
                         "of %zu bytes (expected %zu)", it, sig, delay_us, len, ref_len);
            free(got);
            outcome[WIFEXITED(ws) ? 2 : 1]++;
        } else {
            fail_msg("iteration %d (signal %d after %ld us): the directory holds '%s'", it,
                     sig, delay_us, seen);
        }
        tt_rm_tree(dir);
    }
    print_message("taskir-dump killed 24 times (one run: %.3f s): %d left nothing, %d left "
                  "the complete file, %d finished first\n", run_s, outcome[0], outcome[1],
                  outcome[2]);
    free(expect);
    tt_rm_tree(refdir);
}

static pid_t spawn_run(const char *input, const char *out)
{
    char arg[800];
    snprintf(arg, sizeof arg, "data=%s", input);
    char *argv[] = {(char *)run_tool, (char *)lenet_pb, "--input", arg, "-o", (char *)out,
                    "--dump-all", NULL};
    return spawn(argv);
}

static void test_run_killed(void **state)
{
    (void)state;
    /* a fixed LeNet input: 16 x 16 x 1 int8 */
    char input[600], refdir[600], ref_out[700], ref_list[4096];
    snprintf(input, sizeof input, "%s/x.npy", base);
    int32_t x[256];
    for (int i = 0; i < 256; i++)
        x[i] = (i * 37) % 200 - 100;
    int64_t shape[3] = {16, 16, 1};
    Diag d;
    diag_init(&d, input);
    assert_int_equal(npy_write_i32(input, x, shape, 3, &d), ST_OK);
    diag_finish(&d);
    make_dir(refdir, sizeof refdir, "runref");
    snprintf(ref_out, sizeof ref_out, "%s/out", refdir);
    double t0 = now_s();
    int ws = wait_child(spawn_run(input, ref_out));
    double run_s = now_s() - t0;
    assert_true(WIFEXITED(ws));
    assert_int_equal(WEXITSTATUS(ws), 0);
    list_dir(ref_out, ref_list, sizeof ref_list);
    assert_non_null(strstr(ref_list, "output0.npy"));

    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    unsigned seed = 7;
    int outcome[3] = {0}; /* no file, the complete set left by a killed run, exit 0 */
    for (int it = 0; it < 18; it++) {
        char dir[600], out[700], seen[4096], name[32];
        snprintf(name, sizeof name, "run%d", it);
        make_dir(dir, sizeof dir, name);
        snprintf(out, sizeof out, "%s/out", dir);
        int sig = sigs[it % 3];
        long delay_us = delay_for(it, &seed, run_s);
        pid_t pid = spawn_run(input, out);
        sleep_us(delay_us);
        kill(pid, sig);
        ws = wait_child(pid);
        struct stat sb;
        if (stat(out, &sb) != 0)
            seen[0] = 0;
        else
            list_dir(out, seen, sizeof seen);
        if (WIFEXITED(ws) && WEXITSTATUS(ws) != 0)
            fail_msg("iteration %d: taskir-run exited %d", it, WEXITSTATUS(ws));
        if (!WIFEXITED(ws) && (!WIFSIGNALED(ws) || WTERMSIG(ws) != sig))
            fail_msg("iteration %d: taskir-run ended with wait status 0x%x", it, ws);
        if (!seen[0]) {
            if (WIFEXITED(ws))
                fail_msg("iteration %d: exit 0 but no output", it);
            outcome[0]++;
        } else if (strcmp(seen, ref_list) == 0) {
            /* every file complete and equal to the undisturbed run's */
            char *names = strdup(seen);
            assert_non_null(names);
            for (char *f = strtok(names, "/"); f; f = strtok(NULL, "/")) {
                char a[900], b[900];
                snprintf(a, sizeof a, "%s/%s", ref_out, f);
                snprintf(b, sizeof b, "%s/%s", out, f);
                size_t la, lb;
                uint8_t *pa = (uint8_t *)tt_slurp(a, &la);
                uint8_t *pb = (uint8_t *)tt_slurp(b, &lb);
                assert_true(pa && pb);
                if (la != lb || memcmp(pa, pb, la) != 0)
                    fail_msg("iteration %d: %s differs from the undisturbed run's", it, f);
                free(pa);
                free(pb);
            }
            free(names);
            outcome[WIFEXITED(ws) ? 2 : 1]++;
        } else {
            fail_msg("iteration %d (signal %d after %ld us): part of the outputs: '%s'", it, sig,
                     delay_us, seen);
        }
        if (stat(out, &sb) == 0)
            tt_rm_tree(out);
        tt_rm_tree(dir);
    }
    print_message("taskir-run killed 18 times (one run: %.3f s): %d left no file, %d the "
                  "complete set, %d finished first\n", run_s, outcome[0], outcome[1],
                  outcome[2]);
    tt_rm_tree(ref_out);
    tt_rm_tree(refdir);
    unlink(input);
}

static int setup(void **state)
{
    (void)state;
    base = tt_tmpdir_make("taskir-signals-");
    return base ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    tt_tmpdir_remove();
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: test_signals TASKIR-DUMP TASKIR-RUN LENET.pb\n");
        return 2;
    }
    dump_tool = argv[1];
    run_tool = argv[2];
    lenet_pb = argv[3];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_leaves_nothing),
        cmocka_unit_test(test_signal_during_write),
        cmocka_unit_test(test_hold_nests),
        cmocka_unit_test(test_dump_killed),
        cmocka_unit_test(test_run_killed),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
