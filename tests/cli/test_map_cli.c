/* test_map_cli.c: taskir-dump and taskir-run on a Mapping (.map.pb), run as a user runs them
 * (fork + exec), and taskir-run's cleanup of the output directory it created.
 *
 * Golden files (tests/cli/golden/, see the README there): taskir-dump's standard output on
 * the example mapping <builddir>/examples/lenet.map.pb, run in <builddir>/examples so that
 * the file name in messages is "lenet.map.pb":
 *   lenet.map.txt / .json          the dump (text, JSON)
 *   lenet.map.summary / .summary.json
 *   lenet.map.block.txt / .block.json   --block 11
 *   lenet.map.verify               --verify
 *   bad.map.err                    --verify's standard error on a broken mapping made here
 * TASKIR_UPDATE_GOLDEN=1 rewrites them instead of comparing.
 *
 * Arguments (tests/cli/meson.build): the taskir-dump and taskir-run binaries. */
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
#include <json-c/json.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "taskir/fileio.h"
#include "taskir/mapping.h"
#include "taskir/npy.h"

static const char *dump_tool, *run_tool;
static char tmpdir[256];
static char examples_dir[4096];

typedef struct Run {
    int status;       /* exit code; 128 + signal when killed */
    char *out, *err;  /* NUL-terminated */
    size_t out_len, err_len;
} Run;

static void run_free(Run *r)
{
    free(r->out);
    free(r->err);
    memset(r, 0, sizeof *r);
}

static char *slurp(const char *path, size_t *len)
{
    uint8_t *buf = NULL;
    Diag d;
    diag_init(&d, path);
    Status st = tir_read_file(path, TIR_MAX_FILE_BYTES, &buf, len, &d);
    diag_finish(&d);
    if (st != ST_OK)
        return NULL;
    char *s = realloc(buf, *len + 1);
    assert_non_null(s);
    s[*len] = 0;
    return s;
}

static void tmp_path(char *buf, size_t len, const char *name)
{
    int n = snprintf(buf, len, "%s/%s", tmpdir, name);
    assert_true(n > 0 && (size_t)n < len);
}

typedef struct RunOpts {
    const char *cwd;     /* NULL: stay */
    const char *in;      /* stdin; NULL: /dev/null */
    long fsize;          /* > 0: RLIMIT_FSIZE in bytes (SIGXFSZ ignored) */
} RunOpts;

/* Runs argv[0] (a path) with argv, capturing stdout and stderr. */
static void run_argv(Run *r, const RunOpts *o, char *const argv[])
{
    memset(r, 0, sizeof *r);
    char outp[512], errp[512];
    tmp_path(outp, sizeof outp, "run.out");
    tmp_path(errp, sizeof errp, "run.err");
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int in = open(o && o->in ? o->in : "/dev/null", O_RDONLY);
        int out = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int err = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 ||
            dup2(err, 2) < 0)
            _exit(126);
        if (o && o->cwd && chdir(o->cwd) != 0)
            _exit(126);
        if (o && o->fsize > 0) {
            signal(SIGXFSZ, SIG_IGN); /* a write past the limit fails with EFBIG instead */
            struct rlimit rl = {(rlim_t)o->fsize, (rlim_t)o->fsize};
            if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
                _exit(126);
        }
        execv(argv[0], argv);
        _exit(127);
    }
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    r->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    assert_true(r->status != 126 && r->status != 127);
    r->out = slurp(outp, &r->out_len);
    r->err = slurp(errp, &r->err_len);
    assert_non_null(r->out);
    assert_non_null(r->err);
    unlink(outp);
    unlink(errp);
}

/* Runs a tool with the arguments given, NULL-terminated. */
static void tool(Run *r, const RunOpts *o, const char *exe, ...)
{
    char *argv[48];
    int n = 0;
    argv[n++] = (char *)exe;
    va_list ap;
    va_start(ap, exe);
    const char *a;
    while ((a = va_arg(ap, const char *)) != NULL) {
        assert_true(n < 47);
        argv[n++] = (char *)a;
    }
    va_end(ap);
    argv[n] = NULL;
    run_argv(r, o, argv);
}

#define assert_contains(hay, needle)                                                  \
    do {                                                                              \
        if (!strstr((hay), (needle)))                                                 \
            fail_msg("expected %s to contain \"%s\"; it is:\n%s", #hay, (needle), (hay)); \
    } while (0)

static void example(char *buf, size_t len, const char *file)
{
    int n = snprintf(buf, len, "%s/%s", examples_dir, file);
    assert_true(n > 0 && (size_t)n < len);
}

static void write_file(const char *path, const void *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* Compares text with tests/cli/golden/NAME, or rewrites it under TASKIR_UPDATE_GOLDEN. */
static void golden(const char *name, const char *text, size_t len)
{
    const char *src = getenv("TASKIR_SRCDIR");
    if (!src)
        fail_msg("TASKIR_SRCDIR is not set (run through meson test)");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/cli/golden/%s", src, name);
    const char *upd = getenv("TASKIR_UPDATE_GOLDEN");
    if (upd && *upd && strcmp(upd, "0") != 0) {
        write_file(path, text, len);
        return;
    }
    size_t glen;
    char *want = slurp(path, &glen);
    if (!want)
        fail_msg("no golden file %s (TASKIR_UPDATE_GOLDEN=1 writes it)", path);
    if (glen != len || memcmp(want, text, len) != 0) {
        size_t i = 0;
        while (i < len && i < glen && want[i] == text[i])
            i++;
        size_t line = 1;
        for (size_t k = 0; k < i; k++)
            line += want[k] == '\n';
        fail_msg("%s differs from the output at line %zu (got %zu bytes, want %zu)", path,
                 line, len, glen);
    }
    free(want);
}

static const RunOpts in_examples = {examples_dir, NULL, 0};

/* ---- taskir-dump ---- */

static void test_dump_golden(void **state)
{
    (void)state;
    static const struct {
        const char *golden;
        const char *args[4];
    } cases[] = {
        {"lenet.map.txt", {NULL}},
        {"lenet.map.json", {"--format", "json", NULL}},
        {"lenet.map.summary", {"--summary", NULL}},
        {"lenet.map.summary.json", {"--summary", "--format=json", NULL}},
        {"lenet.map.block.txt", {"--block", "11", NULL}},
        {"lenet.map.block.json", {"--block", "11", "--format=json", NULL}},
        {"lenet.map.verify", {"--verify", NULL}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *argv[8];
        int n = 0;
        argv[n++] = (char *)dump_tool;
        argv[n++] = "lenet.map.pb";
        for (int k = 0; k < 4 && cases[i].args[k]; k++)
            argv[n++] = (char *)cases[i].args[k];
        argv[n] = NULL;
        Run r;
        run_argv(&r, &in_examples, argv);
        if (r.status != 0)
            fail_msg("%s: exit %d: %s", cases[i].golden, r.status, r.err);
        assert_int_equal(r.err_len, 0);
        golden(cases[i].golden, r.out, r.out_len);
        if (strstr(cases[i].golden, "json")) {
            json_object *j = json_tokener_parse(r.out);
            if (!j)
                fail_msg("%s: not valid JSON", cases[i].golden);
            json_object *graph, *mapping;
            assert_true(json_object_object_get_ex(j, "graph", &graph));
            assert_true(json_object_object_get_ex(j, "mapping", &mapping));
            json_object_put(j);
        }
        run_free(&r);
    }
}

/* The JSON dump carries what the text does: every block, every dict, the unmapped ones. */
static void test_dump_json_content(void **state)
{
    (void)state;
    Run r;
    tool(&r, &in_examples, dump_tool, "lenet.map.pb", "--format", "json", NULL);
    assert_int_equal(r.status, 0);
    json_object *j = json_tokener_parse(r.out);
    assert_non_null(j);
    json_object *graph, *mapping, *blocks, *nodes, *edges, *um, *clock;
    assert_true(json_object_object_get_ex(j, "graph", &graph));
    assert_true(json_object_object_get_ex(graph, "blocks", &blocks));
    assert_int_equal(json_object_array_length(blocks), 25);
    assert_true(json_object_object_get_ex(j, "mapping", &mapping));
    assert_true(json_object_object_get_ex(mapping, "node_map_dicts", &nodes));
    assert_int_equal(json_object_array_length(nodes), 23);
    assert_true(json_object_object_get_ex(mapping, "edge_map_dicts", &edges));
    assert_int_equal(json_object_array_length(edges), 5);
    assert_true(json_object_object_get_ex(mapping, "unmapped_blocks", &um));
    assert_int_equal(json_object_array_length(um), 2);
    assert_true(json_object_object_get_ex(mapping, "prediction_clock", &clock));
    assert_int_equal(json_object_get_int(clock), 16384);
    json_object *conv2 = json_object_array_get_idx(nodes, 9), *c0, *core, *x, *pi;
    json_object *tid;
    assert_true(json_object_object_get_ex(conv2, "task_id", &tid));
    assert_int_equal(json_object_get_int(tid), 11);
    json_object *coords;
    assert_true(json_object_object_get_ex(conv2, "coordinates", &coords));
    c0 = json_object_array_get_idx(coords, 0);
    assert_true(json_object_object_get_ex(c0, "core", &core));
    assert_true(json_object_object_get_ex(core, "x", &x));
    assert_int_equal(json_object_get_int(x), 1);
    assert_true(json_object_object_get_ex(c0, "pi_index", &pi));
    assert_string_equal(json_object_get_string(pi), "AXON");
    json_object_put(j);
    run_free(&r);
}

/* How the input's kind is told: the suffix, the content, --input-format. */
static void test_dump_detection(void **state)
{
    (void)state;
    char map[4096], graph[4096], copy[512];
    example(map, sizeof map, "lenet.map.pb");
    example(graph, sizeof graph, "lenet.pb");
    Run want, r;
    tool(&want, &in_examples, dump_tool, "lenet.map.pb", NULL);
    assert_int_equal(want.status, 0);
    /* standard input: by the content */
    RunOpts from_stdin = {examples_dir, map, 0};
    tool(&r, &from_stdin, dump_tool, "-", NULL);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, want.out);
    run_free(&r);
    /* a name without the suffix: by the content */
    size_t len;
    char *bytes = slurp(map, &len);
    assert_non_null(bytes);
    tmp_path(copy, sizeof copy, "mapping.bin");
    write_file(copy, bytes, len);
    free(bytes);
    tool(&r, NULL, dump_tool, copy, "--verify", NULL);
    assert_int_equal(r.status, 0);
    assert_contains(r.out, "ok (25 blocks, 24 edges, 23 node dicts, 5 edge dicts)");
    run_free(&r);
    /* --input-format overrides */
    tool(&r, NULL, dump_tool, copy, "--input-format", "graph", NULL);
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "TaskGraph.blocks.id");
    assert_contains(r.err, "[wire.wiretype]");
    run_free(&r);
    tool(&r, NULL, dump_tool, graph, "--input-format=mapping", NULL);
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "Mapping.graph");
    run_free(&r);
    tool(&r, NULL, dump_tool, graph, "--input-format", "map", NULL);
    assert_int_equal(r.status, 1);
    assert_contains(r.err, "[usage.format]");
    run_free(&r);
    /* the graph itself is still a graph */
    tool(&r, NULL, dump_tool, graph, "--verify", NULL);
    assert_int_equal(r.status, 0);
    assert_contains(r.out, "ok (25 blocks, 24 edges)\n");
    run_free(&r);
    tool(&r, NULL, dump_tool, "--help", NULL);
    assert_int_equal(r.status, 0);
    assert_contains(r.out, "MAP.pb");
    assert_contains(r.out, "--input-format");
    run_free(&r);
    run_free(&want);
}

/* A mapping that breaks map.* rules: --verify lists each, exit 2. */
static void test_dump_verify_bad(void **state)
{
    (void)state;
    char map[4096], bad[512];
    example(map, sizeof map, "lenet.map.pb");
    Diag d;
    diag_init(&d, map);
    Mapping *m = NULL;
    assert_int_equal(map_load_pb(map, &m, &d), ST_OK);
    m->nodes[0].task_id = 999;                  /* map.node.unknown; SIC 2 unmapped */
    m->nodes[9].coords[0].core.x = 0;           /* conv2 onto conv1's slot */
    m->nodes[9].coords[0].phase = 0;
    m->nodes[9].coords[0].end_phase = 0;
    m->nodes[10].coords[0].pi_index = 42;       /* map.coord.pi */
    m->edges[0].task_id = 77;                   /* map.edge.unknown */
    m->prediction_clock = -5;                   /* map.clock */
    tmp_path(bad, sizeof bad, "bad.map.pb");
    assert_int_equal(map_save_pb(m, bad, &d), ST_OK);
    diag_finish(&d);
    map_destroy(m);
    RunOpts in_tmp = {tmpdir, NULL, 0};
    Run r;
    tool(&r, &in_tmp, dump_tool, "bad.map.pb", "--verify", NULL);
    assert_int_equal(r.status, 2);
    assert_int_equal(r.out_len, 0);
    golden("bad.map.err", r.err, r.err_len);
    run_free(&r);
    /* the dump itself prints an invalid mapping */
    tool(&r, &in_tmp, dump_tool, "bad.map.pb", NULL);
    assert_int_equal(r.status, 0);
    assert_contains(r.out, "node_map_dicts[0] -> block 999 (no such block): 1 coordinate");
    assert_contains(r.out, "edge_map_dicts[0] -> edge 77 (no such edge)");
    assert_contains(r.out, " pi 42\n");
    assert_contains(r.out, "unmapped: block 1 INPUT 'data', block 2 SIC 'conv1/in', block 25");
    run_free(&r);
    /* taskir-run refuses it, and makes no output directory */
    char npy[512], out[512];
    tmp_path(npy, sizeof npy, "bad_in.npy");
    int32_t v[256] = {0};
    int64_t shape[3] = {16, 16, 1};
    diag_init(&d, npy);
    assert_int_equal(npy_write_i32(npy, v, shape, 3, &d), ST_OK);
    diag_finish(&d);
    char arg[600];
    snprintf(arg, sizeof arg, "0=%s", npy);
    tmp_path(out, sizeof out, "bad_out");
    tool(&r, &in_tmp, run_tool, "bad.map.pb", "--input", arg, "-o", out, NULL);
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "[map.node.unknown]");
    struct stat sb;
    assert_true(stat(out, &sb) != 0 && errno == ENOENT);
    run_free(&r);
    unlink(npy);
    unlink(bad);
}

/* Cut or flipped mapping files: exit 0 or 2, never a crash or a runtime error. */
static void test_dump_malformed(void **state)
{
    (void)state;
    char map[4096], p[512];
    example(map, sizeof map, "lenet.map.pb");
    size_t len;
    char *bytes = slurp(map, &len);
    assert_non_null(bytes);
    tmp_path(p, sizeof p, "cut.map.pb");
    size_t ok = 0, refused = 0;
    for (size_t n = 0; n < len; n += 1 + n / 6) {
        write_file(p, bytes, n);
        Run r;
        tool(&r, NULL, dump_tool, p, "--verify", NULL);
        if (r.status != 0 && r.status != 2)
            fail_msg("cut to %zu bytes: exit %d: %s", n, r.status, r.err);
        if (r.status == 2) {
            assert_contains(r.err, "taskir-dump: ");
            assert_contains(r.err, " [");
            refused++;
        } else {
            ok++;
        }
        run_free(&r);
    }
    uint32_t seed = 99;
    for (int k = 0; k < 40; k++) {
        seed = seed * 1103515245u + 12345u;
        size_t at = (seed >> 8) % len;
        char *flip = malloc(len);
        assert_non_null(flip);
        memcpy(flip, bytes, len);
        flip[at] ^= (char)(1u << (k % 8));
        write_file(p, flip, len);
        free(flip);
        Run r;
        tool(&r, NULL, dump_tool, p, "--verify", "--format", "json", NULL);
        if (r.status != 0 && r.status != 2)
            fail_msg("byte %zu flipped: exit %d: %s", at, r.status, r.err);
        run_free(&r);
    }
    assert_true(refused > 0 && ok > 0);
    free(bytes);
    unlink(p);
}

/* ---- taskir-run ---- */

/* Lists the regular files of dir, sorted, into one string "a\nb\n". */
static char *list_dir(const char *dir)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return NULL;
    char *names[256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dp)) && n < 256)
        if (e->d_name[0] != '.')
            assert_non_null(names[n++] = strdup(e->d_name));
    closedir(dp);
    for (int i = 1; i < n; i++)
        for (int k = i; k > 0 && strcmp(names[k - 1], names[k]) > 0; k--) {
            char *t = names[k];
            names[k] = names[k - 1];
            names[k - 1] = t;
        }
    size_t total = 1;
    for (int i = 0; i < n; i++)
        total += strlen(names[i]) + 1;
    char *s = malloc(total);
    assert_non_null(s);
    s[0] = 0;
    for (int i = 0; i < n; i++) {
        strcat(s, names[i]);
        strcat(s, "\n");
        free(names[i]);
    }
    return s;
}

static void write_input(const char *path)
{
    int32_t v[256];
    for (int i = 0; i < 256; i++)
        v[i] = (i * 37) % 200 - 100;
    int64_t shape[3] = {16, 16, 1};
    Diag d;
    diag_init(&d, path);
    assert_int_equal(npy_write_i32(path, v, shape, 3, &d), ST_OK);
    diag_finish(&d);
}

/* The mapping runs its graph: the same files, byte for byte, as running the graph. */
static void test_run_same_as_graph(void **state)
{
    (void)state;
    char map[4096], graph[4096], npy[512], arg[600], og[512], om[512], os[512];
    example(map, sizeof map, "lenet.map.pb");
    example(graph, sizeof graph, "lenet.pb");
    tmp_path(npy, sizeof npy, "in.npy");
    write_input(npy);
    snprintf(arg, sizeof arg, "0=%s", npy);
    tmp_path(og, sizeof og, "out_graph");
    tmp_path(om, sizeof om, "out_map");
    tmp_path(os, sizeof os, "out_stdin");
    Run r;
    tool(&r, NULL, run_tool, graph, "--input", arg, "-o", og, "--dump-all", NULL);
    assert_int_equal(r.status, 0);
    run_free(&r);
    tool(&r, NULL, run_tool, map, "--input", arg, "-o", om, "--dump-all", NULL);
    if (r.status != 0)
        fail_msg("taskir-run lenet.map.pb: exit %d: %s", r.status, r.err);
    run_free(&r);
    RunOpts from_stdin = {NULL, map, 0};
    tool(&r, &from_stdin, run_tool, "-", "--input", arg, "-o", os, "--dump-all", NULL);
    assert_int_equal(r.status, 0);
    run_free(&r);
    char *lg = list_dir(og), *lm = list_dir(om), *ls = list_dir(os);
    assert_non_null(lg);
    assert_non_null(lm);
    assert_non_null(ls);
    assert_string_equal(lg, lm);
    assert_string_equal(lg, ls);
    assert_non_null(strstr(lg, "output0.npy\n"));
    for (char *name = lg; *name;) {
        char *nl = strchr(name, '\n');
        *nl = 0;
        char a[1024], b[1024], c[1024];
        snprintf(a, sizeof a, "%s/%s", og, name);
        snprintf(b, sizeof b, "%s/%s", om, name);
        snprintf(c, sizeof c, "%s/%s", os, name);
        size_t la, lb, lc;
        char *x = slurp(a, &la), *y = slurp(b, &lb), *z = slurp(c, &lc);
        assert_true(x && y && z);
        assert_int_equal(la, lb);
        assert_int_equal(la, lc);
        assert_memory_equal(x, y, la);
        assert_memory_equal(x, z, la);
        free(x);
        free(y);
        free(z);
        unlink(a);
        unlink(b);
        unlink(c);
        name = nl + 1;
    }
    free(lg);
    free(lm);
    free(ls);
    rmdir(og);
    rmdir(om);
    rmdir(os);
    /* printed outputs agree too */
    Run rg, rm;
    tool(&rg, NULL, run_tool, graph, "--input", arg, NULL);
    tool(&rm, NULL, run_tool, map, "--input", arg, NULL);
    assert_int_equal(rg.status, 0);
    assert_int_equal(rm.status, 0);
    assert_string_equal(rg.out, rm.out);
    run_free(&rg);
    run_free(&rm);
    /* --format mapping forces it; --format pb reads it as a graph (and fails) */
    tool(&r, NULL, run_tool, map, "--format", "mapping", "--input", arg, NULL);
    assert_int_equal(r.status, 0);
    run_free(&r);
    tool(&r, NULL, run_tool, map, "--format", "pb", "--input", arg, NULL);
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "[wire.wiretype]");
    run_free(&r);
    tool(&r, NULL, run_tool, map, "--params", "p.params", "--input", arg, NULL);
    assert_int_equal(r.status, 1);
    assert_contains(r.err, "Mapping");
    run_free(&r);
    tool(&r, NULL, run_tool, "--help", NULL);
    assert_int_equal(r.status, 0);
    assert_contains(r.out, "MAP.pb");
    assert_contains(r.out, "mapping");
    run_free(&r);
    unlink(npy);
}

static bool exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0;
}

/* A run that fails after it created -o DIR (a write fails: RLIMIT_FSIZE lets output0.npy
 * through and stops the larger block1.npy) removes its outputs and the directories it
 * created, and only those. */
static void test_run_removes_its_dir(void **state)
{
    (void)state;
    char map[4096], npy[512], arg[600], top[512], deep[600], keep[512], sub[600];
    example(map, sizeof map, "lenet.map.pb");
    tmp_path(npy, sizeof npy, "in2.npy");
    write_input(npy);
    snprintf(arg, sizeof arg, "0=%s", npy);
    RunOpts small = {NULL, NULL, 1024};
    /* -o new/a/b: all three directories are new */
    tmp_path(top, sizeof top, "new");
    snprintf(deep, sizeof deep, "%s/a/b", top);
    Run r;
    tool(&r, &small, run_tool, map, "--input", arg, "--dump-all", "-o", deep, NULL);
    assert_int_equal(r.status, 3);
    assert_contains(r.err, "[io.write]");
    assert_false(exists(top));
    run_free(&r);
    /* -o keep/sub where keep exists: sub goes, keep stays (empty, as it was) */
    tmp_path(keep, sizeof keep, "keep");
    assert_int_equal(mkdir(keep, 0777), 0);
    snprintf(sub, sizeof sub, "%s/sub", keep);
    tool(&r, &small, run_tool, map, "--input", arg, "--dump-all", "-o", sub, NULL);
    assert_int_equal(r.status, 3);
    assert_false(exists(sub));
    assert_true(exists(keep));
    run_free(&r);
    /* -o keep itself (it exists): the outputs go, the directory stays */
    tool(&r, &small, run_tool, map, "--input", arg, "--dump-all", "-o", keep, NULL);
    assert_int_equal(r.status, 3);
    assert_true(exists(keep));
    char *ls = list_dir(keep);
    assert_string_equal(ls, "");
    free(ls);
    run_free(&r);
    /* a file of someone else's in DIR stays, and so does DIR */
    char other[700];
    snprintf(other, sizeof other, "%s/mine.txt", keep);
    write_file(other, "x", 1);
    tool(&r, &small, run_tool, map, "--input", arg, "--dump-all", "-o", keep, NULL);
    assert_int_equal(r.status, 3);
    assert_true(exists(other));
    run_free(&r);
    unlink(other);
    /* the same run without the limit succeeds and keeps what it made */
    tool(&r, NULL, run_tool, map, "--input", arg, "--dump-all", "-o", deep, NULL);
    assert_int_equal(r.status, 0);
    char out0[700];
    snprintf(out0, sizeof out0, "%s/output0.npy", deep);
    assert_true(exists(out0));
    run_free(&r);
    ls = list_dir(deep);
    for (char *name = ls; *name;) {
        char *nl = strchr(name, '\n');
        *nl = 0;
        char f[1024];
        snprintf(f, sizeof f, "%s/%s", deep, name);
        unlink(f);
        name = nl + 1;
    }
    free(ls);
    rmdir(deep);
    snprintf(deep, sizeof deep, "%s/a", top);
    rmdir(deep);
    rmdir(top);
    rmdir(keep);
    unlink(npy);
}

/* path made absolute (some runs change directory). */
static bool absolute(const char *path, char *out, size_t len)
{
    if (path[0] == '/')
        return snprintf(out, len, "%s", path) < (int)len;
    char cwd[2048];
    return getcwd(cwd, sizeof cwd) && snprintf(out, len, "%s/%s", cwd, path) < (int)len;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_map_cli TASKIR-DUMP TASKIR-RUN\n");
        return 2;
    }
    static char d[4096], rn[4096];
    if (!absolute(argv[1], d, sizeof d) || !absolute(argv[2], rn, sizeof rn)) {
        fprintf(stderr, "test_map_cli: cannot resolve the tool paths\n");
        return 2;
    }
    dump_tool = d;
    run_tool = rn;
    const char *b = getenv("TASKIR_BUILDDIR");
    if (!b) {
        fprintf(stderr, "test_map_cli: TASKIR_BUILDDIR is not set (run through meson test)\n");
        return 2;
    }
    snprintf(examples_dir, sizeof examples_dir, "%s/examples", b);
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_map_cli.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 3;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dump_golden),
        cmocka_unit_test(test_dump_json_content),
        cmocka_unit_test(test_dump_detection),
        cmocka_unit_test(test_dump_verify_bad),
        cmocka_unit_test(test_dump_malformed),
        cmocka_unit_test(test_run_same_as_graph),
        cmocka_unit_test(test_run_removes_its_dir),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char p[512];
    static const char *const leftovers[] = {"mapping.bin", "cut.map.pb", "run.out", "run.err"};
    for (size_t i = 0; i < sizeof leftovers / sizeof leftovers[0]; i++) {
        tmp_path(p, sizeof p, leftovers[i]);
        unlink(p);
    }
    rmdir(tmpdir);
    return rc;
}
