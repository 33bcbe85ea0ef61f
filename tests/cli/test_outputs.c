/* test_outputs.c: where the tools write (docs/cli.md), run as a user runs them: -o onto
 * /dev/null, /dev/full, a FIFO with a reader, a symbolic link, a directory, an input file;
 * "-" as standard input and output; repeated single-value options; options that do not
 * apply to the input; taskir-run's output directory holding only this run's files; [oom]
 * decoding a .pb, .map.pb or .onnx and parsing CVM JSON; .npy findings naming the --input.
 *
 * Arguments (tests/cli/meson.build): taskir-dump, taskir-run, taskir-compile, and the
 * directory of the CVM examples (examples/cvm/meson.build). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tooltest.h"

static const char *dump_tool, *run_tool, *compile_tool, *cvm_dir;
static char model[4096], params[4096], input[4096];  /* the CVM LeNet and its input */
static char graph[4096];                             /* it compiled (group setup) */

static void expect(TtRun *r, int status, const char *err)
{
    if (r->status != status)
        fail_msg("exit %d, expected %d; stderr:\n%s", r->status, status, r->err);
    if (err)
        tt_assert_contains(r->err, err);
}

static bool is_char_device(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISCHR(sb.st_mode);
}

/* What taskir-dump prints for the graph on stdout (the content every -o must get). */
static char *dump_text(size_t *len)
{
    TtRun r;
    tt_run(&r, NULL, dump_tool, graph, NULL);
    expect(&r, 0, NULL);
    char *s = r.out;
    *len = r.out_len;
    r.out = NULL;
    tt_run_free(&r);
    return s;
}

static void test_dev_null(void **state)
{
    (void)state;
    TtRun r;
    tt_run(&r, NULL, dump_tool, graph, "-o", "/dev/null", NULL);
    expect(&r, 0, NULL);
    tt_run_free(&r);
    tt_run(&r, NULL, compile_tool, model, "--params", params, "-o", "/dev/null", NULL);
    expect(&r, 0, NULL);
    tt_run_free(&r);
    /* taskir-run's -o is a directory */
    char in[4200];
    snprintf(in, sizeof in, "data=%s", input);
    tt_run(&r, NULL, run_tool, graph, "--input", in, "-o", "/dev/null", NULL);
    expect(&r, 1, "-o '/dev/null' is not a directory [usage.output]");
    tt_run_free(&r);
    assert_true(is_char_device("/dev/null"));
}

static void test_dev_full(void **state)
{
    (void)state;
    if (!is_char_device("/dev/full"))
        skip();
    TtRun r;
    tt_run(&r, NULL, dump_tool, graph, "-o", "/dev/full", NULL);
    expect(&r, 3, "taskir-dump: /dev/full: cannot write: No space left on device [io.write]");
    tt_run_free(&r);
    tt_run(&r, NULL, compile_tool, model, "--params", params, "-o", "/dev/full", NULL);
    expect(&r, 3, "[io.write]");
    tt_run_free(&r);
    assert_true(is_char_device("/dev/full"));
}

/* A reader of fifo in a child, bounded by alarm(): it writes the number of bytes it read
 * into count_file. Returns its pid. */
static pid_t start_reader(const char *fifo, const char *count_file)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(30);
        int fd = open(fifo, O_RDONLY);
        long n = 0;
        char buf[4096];
        ssize_t k;
        while (fd >= 0 && (k = read(fd, buf, sizeof buf)) > 0)
            n += k;
        FILE *f = fopen(count_file, "w");
        if (f) {
            fprintf(f, "%ld", n);
            fclose(f);
        }
        _exit(fd >= 0 ? 0 : 1);
    }
    return pid;
}

/* Waits for the reader start_reader started and returns how many bytes it read (removing
 * its count file). */
static long reader_count(pid_t pid, const char *count_file)
{
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    char *got = tt_slurp_or_fail(count_file, NULL);
    long n = strtol(got, NULL, 10);
    free(got);
    unlink(count_file);
    return n;
}

static void test_fifo(void **state)
{
    (void)state;
    char fifo[512], count[512];
    tt_path(fifo, sizeof fifo, "out.fifo");
    tt_path(count, sizeof count, "fifo.count");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    size_t len;
    char *want = dump_text(&len);
    free(want);
    pid_t pid = start_reader(fifo, count);
    TtRun r;
    tt_run(&r, NULL, dump_tool, graph, "-o", fifo, NULL);
    expect(&r, 0, NULL);
    tt_run_free(&r);
    assert_int_equal(reader_count(pid, count), (long)len);
    struct stat sb;
    assert_int_equal(lstat(fifo, &sb), 0);
    assert_true(S_ISFIFO(sb.st_mode));
    unlink(fifo);
}

/* taskir-compile into a FIFO: its reader gets the graph. */
static void test_fifo_compile(void **state)
{
    (void)state;
    char fifo[512], count[512];
    tt_path(fifo, sizeof fifo, "compile.fifo");
    tt_path(count, sizeof count, "compile.count");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    pid_t pid = start_reader(fifo, count);
    TtRun r;
    tt_run(&r, NULL, compile_tool, model, "--params", params, "-o", fifo, NULL);
    expect(&r, 0, NULL);
    tt_run_free(&r);
    struct stat sb;
    assert_int_equal(stat(graph, &sb), 0);
    assert_int_equal(reader_count(pid, count), (long)sb.st_size);
    unlink(fifo);
}

/* taskir-run -o DIR where DIR/output0.npy is a symbolic link, a link to /dev/full, a FIFO. */
static void test_run_special(void **state)
{
    (void)state;
    char dir[512], out[600], want_dir[512], want[600], target[512], arg[4200];
    snprintf(arg, sizeof arg, "data=%s", input);
    tt_path(want_dir, sizeof want_dir, "plain");
    TtRun r;
    tt_run(&r, NULL, run_tool, graph, "--input", arg, "-o", want_dir, NULL);
    expect(&r, 0, NULL);
    tt_run_free(&r);
    size_t wlen;
    char *wbuf = tt_slurp_or_fail(tt_join(want, sizeof want, want_dir, "output0.npy"), &wlen);
    /* a link: followed, its target replaced */
    tt_path(dir, sizeof dir, "special");
    tt_path(target, sizeof target, "target.npy");
    assert_int_equal(mkdir(dir, 0700), 0);
    tt_join(out, sizeof out, dir, "output0.npy");
    tt_write_file(target, "old", 3);
    assert_int_equal(symlink(target, out), 0);
    tt_run(&r, NULL, run_tool, graph, "--input", arg, "-o", dir, NULL);
    expect(&r, 0, NULL);
    tt_run_free(&r);
    struct stat sb;
    assert_int_equal(lstat(out, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    size_t n;
    char *got = tt_slurp_or_fail(target, &n);
    assert_int_equal(n, wlen);
    assert_memory_equal(got, wbuf, n);
    free(got);
    /* a link to /dev/full: the write fails, the device stays */
    if (is_char_device("/dev/full")) {
        unlink(out);
        assert_int_equal(symlink("/dev/full", out), 0);
        tt_run(&r, NULL, run_tool, graph, "--input", arg, "-o", dir, NULL);
        expect(&r, 3, "No space left on device [io.write]");
        tt_run_free(&r);
        assert_true(is_char_device("/dev/full"));
    }
    /* a FIFO: its reader gets the .npy */
    char count[512];
    tt_path(count, sizeof count, "run.count");
    unlink(out);
    assert_int_equal(mkfifo(out, 0600), 0);
    pid_t pid = start_reader(out, count);
    tt_run(&r, NULL, run_tool, graph, "--input", arg, "-o", dir, NULL);
    expect(&r, 0, NULL);
    tt_run_free(&r);
    assert_int_equal(reader_count(pid, count), (long)wlen);
    free(wbuf);
    unlink(target);
    tt_rm_tree(dir);
    tt_rm_tree(want_dir);
}

static void test_symlink(void **state)
{
    (void)state;
    char dir[512], real[600], link[600];
    tt_path(dir, sizeof dir, "links");
    assert_int_equal(mkdir(dir, 0700), 0);
    tt_join(real, sizeof real, dir, "real.txt");
    tt_join(link, sizeof link, dir, "link.txt");
    tt_write_file(real, "old\n", 4);
    assert_int_equal(symlink("real.txt", link), 0); /* relative to the link's directory */
    size_t len;
    char *want = dump_text(&len);
    TtRun r;
    tt_run(&r, NULL, dump_tool, graph, "-o", link, NULL);
    expect(&r, 0, NULL);
    tt_run_free(&r);
    struct stat sb;
    assert_int_equal(lstat(link, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    size_t got_len;
    char *got = tt_slurp_or_fail(real, &got_len);
    assert_int_equal(got_len, len);
    assert_memory_equal(got, want, len);
    free(got);
    free(want);
    /* taskir-compile too: the link stays, the target gets the graph */
    tt_run(&r, NULL, compile_tool, model, "--params", params, "-o", link, NULL);
    expect(&r, 0, NULL);
    tt_run_free(&r);
    assert_int_equal(lstat(link, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    assert_int_equal(stat(real, &sb), 0);
    assert_true(sb.st_size > 1000);
    assert_int_equal(tt_count_files(dir), 2);
    tt_rm_tree(dir);
}

static void test_directory(void **state)
{
    (void)state;
    char dir[512], slash[600];
    tt_path(dir, sizeof dir, "adir");
    assert_int_equal(mkdir(dir, 0700), 0);
    snprintf(slash, sizeof slash, "%s/", dir);
    const char *outs[] = {dir, slash, ".", "new-dir/"};
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) {
        TtRun r;
        tt_run(&r, &(TtOpts){.cwd = tt_tmpdir()}, dump_tool, graph, "-o", outs[i], NULL);
        expect(&r, 1, "[usage.output]");
        tt_assert_contains(r.err, "directory");
        if (strstr(r.err, "Is a directory") || strstr(r.err, "No such file"))
            fail_msg("raw errno text:\n%s", r.err);
        tt_run_free(&r);
        tt_run(&r, &(TtOpts){.cwd = tt_tmpdir()}, compile_tool, model, "--params", params, "-o",
               outs[i], NULL);
        expect(&r, 1, "[usage.output]");
        tt_assert_contains(r.err, "directory");
        tt_run_free(&r);
    }
    assert_int_equal(tt_count_files(dir), 0);
    tt_rm_tree(dir);
}

static void test_same_file(void **state)
{
    (void)state;
    char g[512], m[512], p[512], hard[512], lnk[512];
    tt_path(g, sizeof g, "same.pb");
    tt_path(m, sizeof m, "same.json");
    tt_path(p, sizeof p, "same.params");
    tt_path(hard, sizeof hard, "hard.pb");
    tt_path(lnk, sizeof lnk, "soft.pb");
    size_t glen, mlen, plen;
    char *gb = tt_slurp_or_fail(graph, &glen), *mb = tt_slurp_or_fail(model, &mlen),
         *pb = tt_slurp_or_fail(params, &plen);
    tt_write_file(g, gb, glen);
    tt_write_file(m, mb, mlen);
    tt_write_file(p, pb, plen);
    assert_int_equal(link(g, hard), 0);
    assert_int_equal(symlink(g, lnk), 0);
    TtRun r;
    const char *outs[] = {g, hard, lnk};
    for (size_t i = 0; i < 3; i++) {
        tt_run(&r, NULL, dump_tool, g, "-o", outs[i], NULL);
        expect(&r, 1, "is the input");
        tt_assert_contains(r.err, "[usage.output]");
        tt_run_free(&r);
    }
    tt_run(&r, &(TtOpts){.in = g}, dump_tool, "-", "-o", g, NULL); /* stdin is g */
    expect(&r, 1, "[usage.output]");
    tt_run_free(&r);
    tt_run(&r, NULL, compile_tool, m, "--params", p, "-o", m, NULL);
    expect(&r, 1, "[usage.output]");
    tt_run_free(&r);
    tt_run(&r, NULL, compile_tool, m, "--params", p, "-o", p, NULL);
    expect(&r, 1, "[usage.output]");
    tt_run_free(&r);
    /* taskir-compile -o X.pb writes or removes X.host.json / X.host.params */
    char hj[512], hp[512], xpb[512];
    tt_path(hj, sizeof hj, "x.host.json");
    tt_path(hp, sizeof hp, "x.host.params");
    tt_path(xpb, sizeof xpb, "x.pb");
    tt_write_file(hj, mb, mlen);
    tt_write_file(hp, pb, plen);
    tt_run(&r, NULL, compile_tool, hj, "--params", hp, "-o", xpb, NULL);
    expect(&r, 1, "host remainder");
    tt_run_free(&r);
    /* taskir-run: an input among the files it writes or removes in -o DIR */
    char dir[512], in[600], arg[700];
    tt_path(dir, sizeof dir, "rundir");
    assert_int_equal(mkdir(dir, 0700), 0);
    size_t ilen;
    char *ib = tt_slurp_or_fail(input, &ilen);
    tt_join(in, sizeof in, dir, "output3.npy");
    tt_write_file(in, ib, ilen);
    snprintf(arg, sizeof arg, "data=%s", in);
    tt_run(&r, NULL, run_tool, g, "--input", arg, "-o", dir, NULL);
    expect(&r, 1, "which this run would overwrite or remove");
    tt_run_free(&r);
    /* every input is intact */
    const char *files[] = {g, m, p, hj, hp, in};
    const char *want[] = {gb, mb, pb, mb, pb, ib};
    size_t lens[] = {glen, mlen, plen, mlen, plen, ilen};
    for (size_t i = 0; i < 6; i++) {
        size_t n;
        char *s = tt_slurp_or_fail(files[i], &n);
        assert_int_equal(n, lens[i]);
        assert_memory_equal(s, want[i], n);
        free(s);
        unlink(files[i]);
    }
    assert_int_equal(access(xpb, F_OK), -1);
    free(gb);
    free(mb);
    free(pb);
    free(ib);
    unlink(hard);
    unlink(lnk);
    tt_rm_tree(dir);
}

static void test_dash(void **state)
{
    (void)state;
    char arg[4200];
    snprintf(arg, sizeof arg, "data=%s", input);
    TtRun r;
    /* taskir-run -o - prints, as without -o, and makes no folder named "-" */
    tt_run(&r, &(TtOpts){.cwd = tt_tmpdir()}, run_tool, graph, "--input", arg, "-o", "-", NULL);
    expect(&r, 0, NULL);
    tt_assert_contains(r.out, "output0 (block ");
    tt_run_free(&r);
    char dash[512];
    tt_path(dash, sizeof dash, "-");
    assert_int_equal(access(dash, F_OK), -1);
    tt_run(&r, NULL, run_tool, graph, "--input", arg, "-o", "-", "--dump-all", NULL);
    expect(&r, 1, "--dump-all needs -o DIR");
    tt_run_free(&r);
    /* standard input is read once at most */
    tt_run(&r, &(TtOpts){.in = graph}, run_tool, "-", "--input", "data=-", NULL);
    expect(&r, 1, "[usage.stdin]");
    tt_run_free(&r);
    tt_run(&r, &(TtOpts){.in = model}, compile_tool, "-", "--params", "-", NULL);
    expect(&r, 1, "[usage.stdin]");
    tt_run_free(&r);
    /* "-" as an input is named <stdin>; as an output <stdout> */
    tt_run(&r, &(TtOpts){.in = input}, run_tool, graph, "--input", "data=-", NULL);
    expect(&r, 0, NULL);
    tt_run_free(&r);
    tt_run(&r, &(TtOpts){.in = model}, run_tool, graph, "--input", "data=-", NULL);
    expect(&r, 2, "taskir-run: <stdin>: ");
    tt_run_free(&r);
    tt_run(&r, &(TtOpts){.in = model}, compile_tool, "-", "--params", params, "-o", "-", NULL);
    expect(&r, 0, NULL);
    tt_run_free(&r);
}

static void test_repeated(void **state)
{
    (void)state;
    char a[512], b[512], arg[4200];
    tt_path(a, sizeof a, "a.out");
    tt_path(b, sizeof b, "b.out");
    snprintf(arg, sizeof arg, "data=%s", input);
    TtRun r;
    tt_run(&r, NULL, dump_tool, graph, "-o", a, "-o", b, NULL);
    expect(&r, 1, "-o given more than once [usage.repeated]");
    tt_run_free(&r);
    tt_run(&r, NULL, dump_tool, graph, "--format", "json", "--format=text", NULL);
    expect(&r, 1, "--format given more than once [usage.repeated]");
    tt_run_free(&r);
    tt_run(&r, NULL, dump_tool, graph, "--block", "1", "--block", "2", NULL);
    expect(&r, 1, "[usage.repeated]");
    tt_run_free(&r);
    tt_run(&r, NULL, dump_tool, graph, "--input-format", "graph", "--input-format=graph", NULL);
    expect(&r, 1, "[usage.repeated]");
    tt_run_free(&r);
    tt_run(&r, NULL, compile_tool, model, "--params", params, "--params", params, "-o", a, NULL);
    expect(&r, 1, "--params given more than once [usage.repeated]");
    tt_run_free(&r);
    tt_run(&r, NULL, compile_tool, model, "--format", "cvm", "--format", "cvm", "-o", a, NULL);
    expect(&r, 1, "[usage.repeated]");
    tt_run_free(&r);
    tt_run(&r, NULL, compile_tool, model, "-o", a, "-o", b, NULL);
    expect(&r, 1, "[usage.repeated]");
    tt_run_free(&r);
    static const char *const twice[][4] = {
        {"--steps", "1", "--steps", "2"}, {"--threads", "1", "--threads", "2"},
        {"-o", "d1", "-o", "d2"}, {"--format", "pb", "--format", "pb"},
        {"--params", "p", "--params", "p"}};
    for (size_t i = 0; i < sizeof twice / sizeof twice[0]; i++) {
        tt_run(&r, &(TtOpts){.cwd = tt_tmpdir()}, run_tool, graph, "--input", arg, twice[i][0],
               twice[i][1], twice[i][2], twice[i][3], NULL);
        expect(&r, 1, "given more than once [usage.repeated]");
        tt_run_free(&r);
    }
    assert_int_equal(access(a, F_OK), -1);
    assert_int_equal(access(b, F_OK), -1);
}

static void test_not_applicable(void **state)
{
    (void)state;
    char arg[4200];
    snprintf(arg, sizeof arg, "data=%s", input);
    TtRun r;
    tt_run(&r, NULL, run_tool, model, "--params", params, "--input", arg, "--threads", "2",
           NULL);
    expect(&r, 1, "--threads is for TaskGraphs");
    tt_run_free(&r);
    tt_run(&r, NULL, run_tool, model, "--params", params, "--input", arg, "--no-host", NULL);
    expect(&r, 1, "--no-host is for TaskGraphs");
    tt_run_free(&r);
    /* the same, the kind found from the bytes (a model on standard input) */
    tt_run(&r, &(TtOpts){.in = model}, run_tool, "-", "--params", params, "--input", arg,
           "--threads", "2", NULL);
    expect(&r, 1, "[usage.args]");
    tt_run_free(&r);
    /* and both fit a TaskGraph */
    tt_run(&r, NULL, run_tool, graph, "--input", arg, "--threads", "2", "--no-host", NULL);
    expect(&r, 0, NULL);
    tt_run_free(&r);
}

static void test_stale_outputs(void **state)
{
    (void)state;
    char dir[512], p[600], arg[4200];
    tt_path(dir, sizeof dir, "stale");
    assert_int_equal(mkdir(dir, 0700), 0);
    static const char *const old[] = {"output0.npy", "output7.npy", "block3.npy",
                                      "block-1.npy", "keep.txt", "output.npy"};
    for (size_t i = 0; i < sizeof old / sizeof old[0]; i++)
        tt_write_file(tt_join(p, sizeof p, dir, "%s", old[i]), "old", 3);
    snprintf(arg, sizeof arg, "data=%s", input);
    TtRun r;
    /* a failed run removes nothing */
    tt_run(&r, NULL, run_tool, graph, "--input", "data=/nonexistent.npy", "-o", dir, NULL);
    expect(&r, 3, NULL);
    tt_run_free(&r);
    assert_int_equal(tt_count_files(dir), 6);
    tt_run(&r, NULL, run_tool, graph, "--input", arg, "-o", dir, NULL);
    expect(&r, 0, NULL);
    tt_run_free(&r);
    /* output0.npy is new; output7, block3, block-1 of an earlier run are gone; the files
     * that are not taskir-run's stay */
    assert_int_equal(tt_count_files(dir), 3);
    size_t n;
    char *s = tt_slurp_or_fail(tt_join(p, sizeof p, dir, "output0.npy"), &n);
    assert_true(n > 3);
    free(s);
    assert_int_equal(access(tt_join(p, sizeof p, dir, "keep.txt"), F_OK), 0);
    assert_int_equal(access(tt_join(p, sizeof p, dir, "output.npy"), F_OK), 0);
    tt_rm_tree(dir);
}

static void test_params_named(void **state)
{
    (void)state;
    char missing[512], out[512];
    tt_path(missing, sizeof missing, "missing.params");
    tt_path(out, sizeof out, "named.pb");
    TtRun r;
    tt_run(&r, NULL, compile_tool, model, "--params", missing, "-o", out, NULL);
    expect(&r, 3, NULL);
    char want[700];
    snprintf(want, sizeof want, "taskir-compile: %s: cannot open", missing);
    tt_assert_contains(r.err, want);
    if (strstr(r.err, model) || strstr(r.err, "failed"))
        fail_msg("the message names the model:\n%s", r.err);
    tt_run_free(&r);
    tt_run(&r, NULL, compile_tool, model, "--params", tt_tmpdir(), "-o", out, NULL);
    expect(&r, 3, NULL);
    snprintf(want, sizeof want, "taskir-compile: %s: is a directory, not a file [io.read]",
             tt_tmpdir());
    tt_assert_contains(r.err, want);
    tt_run_free(&r);
    assert_int_equal(access(out, F_OK), -1);
}

/* Out of memory while decoding a valid .pb is [oom], exit 3, not a corrupt file: 4 M empty
 * TaskBlocks (8 MB on the wire, each a message struct once decoded; without the limit the
 * file decodes, in seconds) under a 256 MB address space; the same graph inside a Mapping.
 * Not under AddressSanitizer, which cannot start in a limited address space. */
static void test_oom_decode(void **state)
{
    (void)state;
#if defined(__SANITIZE_ADDRESS__)
    skip();
#endif
    enum { N = 4 << 20 };
    char *buf = malloc(2 * (size_t)N + 8);
    assert_non_null(buf);
    size_t n = 0;
    buf[n++] = 0x0a; /* Mapping.graph, 8 MB long: a varint of 4 bytes */
    for (uint32_t v = 2u * N; v; v >>= 7)
        buf[n++] = (char)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
    size_t head = n;
    for (size_t i = 0; i < N; i++) { /* TaskGraph.blocks, empty */
        buf[n++] = 0x0a;
        buf[n++] = 0x00;
    }
    char g[512], m[512];
    tt_path(g, sizeof g, "huge.pb");
    tt_path(m, sizeof m, "huge.map.pb");
    tt_write_file(g, buf + head, n - head);
    tt_write_file(m, buf, n);
    free(buf);
    const long as = 256L << 20;
    TtRun r;
    tt_run(&r, &(TtOpts){.as = as}, dump_tool, g, "--summary", NULL);
    expect(&r, 3, "out of memory decoding the TaskGraph [oom]");
    tt_assert_contains(r.err, g);
    tt_run_free(&r);
    tt_run(&r, &(TtOpts){.as = as}, dump_tool, m, "--summary", NULL);
    expect(&r, 3, "out of memory decoding the Mapping [oom]");
    tt_run_free(&r);
    tt_run(&r, &(TtOpts){.as = as}, run_tool, g, "--input", "0=x.npy", NULL);
    expect(&r, 3, "[oom]");
    tt_run_free(&r);
    unlink(g);
    unlink(m);
}

/* Writes the n bytes of buf (then freed) to the scratch file name; path <- its path. */
static void write_scratch(char *path, size_t size, const char *name, void *buf, size_t n)
{
    tt_path(path, size, name);
    tt_write_file(path, buf, n);
    free(buf);
}

/* Out of memory while json-c parses a CVM model is [oom], exit 3, not a syntax error: a JSON
 * text of about 1 M nested empty arrays (32 x 32 x 32 x 30: 3 MB, 160 MB parsed; no array
 * grows past json-c's initial 32 slots, so only the making of a value can fail) under a 96 MB
 * address space. Not under AddressSanitizer (test_oom_decode). */
static void test_oom_cvm_json(void **state)
{
    (void)state;
#if defined(__SANITIZE_ADDRESS__)
    skip();
#endif
    static const unsigned fan[] = {32, 32, 32, 30};
    size_t cap = 4u << 20, n = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    unsigned idx[4] = {0}, depth = 0;
    buf[n++] = '[';
    for (;;) { /* depth: the open arrays below the top one */
        if (depth < 4 && idx[depth] < fan[depth]) {
            if (idx[depth]++)
                buf[n++] = ',';
            buf[n++] = '[';
            if (++depth < 4)
                idx[depth] = 0;
            else
                buf[n++] = ']', depth--;
        } else {
            buf[n++] = ']';
            if (depth-- == 0)
                break;
        }
        assert_true(n + 4 < cap);
    }
    char m[512], out[512];
    write_scratch(m, sizeof m, "deep.json", buf, n);
    tt_path(out, sizeof out, "deep.pb");
    TtRun r;
    tt_run(&r, &(TtOpts){.as = 96L << 20}, compile_tool, m, "--params", params, "-o", out,
           NULL);
    expect(&r, 3, "out of memory parsing the JSON text [oom]");
    tt_assert_contains(r.err, m);
    tt_run_free(&r);
    tt_run(&r, NULL, compile_tool, m, "--params", params, "-o", out, NULL);
    expect(&r, 2, "the document is array, expected an object [cvm.json.type]");
    tt_run_free(&r);
    assert_int_equal(access(out, F_OK), -1);
    unlink(m);
}

/* An int64 .npy value out of int32 is reported naming the .npy file, the element and the
 * --input NAME; --help lists every integer dtype taskir-run reads. */
static void test_npy_int64_named(void **state)
{
    (void)state;
    static const char head[] = "\x93NUMPY\x01\x00\x76\x00"
                               "{'descr': '<i8', 'fortran_order': False, 'shape': (4,), }";
    uint8_t buf[128 + 32];
    memcpy(buf, head, sizeof head - 1);
    memset(buf + sizeof head - 1, ' ', 128 - (sizeof head - 1));
    buf[127] = '\n';
    memset(buf + 128, 0, 32);
    buf[128 + 3 * 8 + 5] = 1; /* element 3: 2^40 */
    char x[512], want[700];
    tt_path(x, sizeof x, "big.npy");
    tt_write_file(x, buf, sizeof buf);
    char arg[600];
    snprintf(arg, sizeof arg, "data=%s", x);
    TtRun r;
    tt_run(&r, NULL, run_tool, graph, "--input", arg, NULL);
    expect(&r, 2, "[npy.range]");
    snprintf(want, sizeof want, "taskir-run: %s: --input data: element 3: the int64 value "
             "1099511627776 does not fit 32 bits", x);
    tt_assert_contains(r.err, want);
    tt_run_free(&r);
    tt_run(&r, NULL, run_tool, model, "--params", params, "--input", arg, NULL);
    expect(&r, 2, want);
    tt_run_free(&r);
    tt_run(&r, NULL, run_tool, "--help", NULL);
    expect(&r, 0, NULL);
    tt_assert_contains(r.out, "int8, uint8, int16, uint16, int32 or int64 values");
    tt_run_free(&r);
    unlink(x);
}

/* Appends the varint of v to buf at *n. */
static void put_varint(uint8_t *buf, size_t *n, uint64_t v)
{
    do {
        buf[(*n)++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
        v >>= 7;
    } while (v);
}

/* Appends the field tag (wire type 2) and the length len of what follows. */
static void put_len(uint8_t *buf, size_t *n, unsigned field, size_t len)
{
    put_varint(buf, n, (uint64_t)field << 3 | 2);
    put_varint(buf, n, len);
}

/* Appends a ValueInfoProto (ModelProto.graph.input / output, field) named name: an int64
 * tensor of shape [count]. */
static void put_value_info(uint8_t *buf, size_t *n, unsigned field, char name, uint64_t count)
{
    uint8_t dim[12], v[32];
    size_t nd = 0, nv = 0;
    dim[nd++] = 0x08; /* Dimension.dim_value */
    put_varint(dim, &nd, count);
    v[nv++] = 0x08; /* TypeProto.Tensor.elem_type: INT64 */
    v[nv++] = 7;
    put_len(v, &nv, 2, nd + 2); /* .shape, holding one .dim */
    put_len(v, &nv, 1, nd);
    memcpy(v + nv, dim, nd);
    nv += nd;
    put_len(buf, n, field, 3 + 2 + 2 + nv); /* the ValueInfoProto */
    put_len(buf, n, 1, 1);              /* .name */
    buf[(*n)++] = (uint8_t)name;
    put_len(buf, n, 2, 2 + nv); /* .type, holding .tensor_type */
    put_len(buf, n, 1, nv);
    memcpy(buf + *n, v, nv);
    *n += nv;
}

/* Out of memory while protobuf-c decodes a valid ONNX model is [oom], exit 3, not a bad file:
 * y = x + c over int64 tensors of 16 M elements, c an initializer whose packed int64_data of
 * zeros is 16 MB on the wire and 128 MB decoded, under a 128 MB address space (without the
 * limit, and with --input-range x=-100..100, it compiles: in 3 s and 630 MB).
 * Not under AddressSanitizer (test_oom_decode). */
static void test_oom_onnx(void **state)
{
    (void)state;
#if defined(__SANITIZE_ADDRESS__)
    skip();
#endif
    const uint64_t count = (uint64_t)16 << 20;
    uint8_t *buf = calloc(count + 512, 1), init[32], graph_head[128];
    assert_non_null(buf);
    size_t ni = 0, ng = 0, n = 0;
    init[ni++] = 0x08; /* TensorProto.dims */
    put_varint(init, &ni, count);
    init[ni++] = 0x10; /* .data_type: INT64 */
    init[ni++] = 7;
    put_len(init, &ni, 8, 1); /* .name "c" */
    init[ni++] = 'c';
    static const uint8_t node[] = {0x0a, 14, 0x0a, 1, 'x', 0x0a, 1, 'c', 0x12, 1, 'y',
                                   0x22, 3, 'A', 'd', 'd'}; /* node: Add(x, c) -> y */
    memcpy(graph_head, node, sizeof node);
    ng = sizeof node;
    put_value_info(graph_head, &ng, 11, 'x', count);
    put_value_info(graph_head, &ng, 12, 'y', count);
    uint8_t data_head[8]; /* .int64_data, packed: the count zeros follow */
    size_t nh = 0;
    put_len(data_head, &nh, 7, count);
    size_t init_len = ni + nh + count;
    size_t ninit = 0;
    uint8_t init_head[8];
    put_len(init_head, &ninit, 5, init_len); /* GraphProto.initializer */
    static const uint8_t model_head[] = {0x08, 7, 0x42, 2, 0x10, 13}; /* IR 7, opset 13 */
    memcpy(buf, model_head, sizeof model_head);
    n = sizeof model_head;
    put_len(buf, &n, 7, ng + ninit + init_len); /* ModelProto.graph */
    memcpy(buf + n, graph_head, ng);
    n += ng;
    memcpy(buf + n, init_head, ninit);
    n += ninit;
    memcpy(buf + n, init, ni);
    n += ni;
    memcpy(buf + n, data_head, nh);
    n += nh + count; /* the zeros: calloc's */
    char m[512], out[512];
    write_scratch(m, sizeof m, "huge.onnx", buf, n);
    tt_path(out, sizeof out, "huge.pb");
    TtRun r;
    tt_run(&r, &(TtOpts){.as = 128L << 20}, compile_tool, m, "--input-range", "x=-100..100",
           "-o", out, NULL);
    expect(&r, 3, "out of memory decoding the ModelProto [oom]");
    tt_assert_contains(r.err, m);
    tt_run_free(&r);
    assert_int_equal(access(out, F_OK), -1);
    unlink(m);
}

static int setup(void **state)
{
    (void)state;
    TtRun r;
    tt_run(&r, NULL, compile_tool, model, "--params", params, "-o", graph, NULL);
    int rc = r.status;
    if (rc)
        fprintf(stderr, "cannot compile %s:\n%s", model, r.err);
    tt_run_free(&r);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: test_outputs TASKIR-DUMP TASKIR-RUN TASKIR-COMPILE CVM-DIR\n");
        return 2;
    }
    static char tools[3][4096];  /* absolute: some tests run them in another directory */
    for (int i = 0; i < 3; i++)
        if (!tt_absolute(argv[i + 1], tools[i], sizeof tools[i])) {
            fprintf(stderr, "test_outputs: cannot make %s absolute\n", argv[i + 1]);
            return 1;
        }
    dump_tool = tools[0];
    run_tool = tools[1];
    compile_tool = tools[2];
    cvm_dir = argv[4];
    snprintf(model, sizeof model, "%s/lenet.json", cvm_dir);
    snprintf(params, sizeof params, "%s/lenet.params", cvm_dir);
    snprintf(input, sizeof input, "%s/lenet.input.npy", cvm_dir);
    if (!tt_tmpdir_make("test_outputs.")) {
        perror("test_outputs: scratch directory");
        return 1;
    }
    snprintf(graph, sizeof graph, "%s/lenet.pb", tt_tmpdir());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dev_null),
        cmocka_unit_test(test_dev_full),
        cmocka_unit_test(test_fifo),
        cmocka_unit_test(test_fifo_compile),
        cmocka_unit_test(test_run_special),
        cmocka_unit_test(test_symlink),
        cmocka_unit_test(test_directory),
        cmocka_unit_test(test_same_file),
        cmocka_unit_test(test_dash),
        cmocka_unit_test(test_repeated),
        cmocka_unit_test(test_not_applicable),
        cmocka_unit_test(test_stale_outputs),
        cmocka_unit_test(test_params_named),
        cmocka_unit_test(test_oom_decode),
        cmocka_unit_test(test_oom_onnx),
        cmocka_unit_test(test_oom_cvm_json),
        cmocka_unit_test(test_npy_int64_named),
    };
    int rc = cmocka_run_group_tests(tests, setup, NULL);
    tt_tmpdir_remove();
    return rc;
}
