/* test_map_cli.c: taskir-dump and taskir-run on a Mapping (.map.pb), run as a user runs them
 * (tt_run, tests/common/tooltest.h), and taskir-run's cleanup of the output directory it
 * created.
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
#include <json-c/json.h>
#include <sys/stat.h>
#include <unistd.h>

#include "taskir/fileio.h"
#include "taskir/mapping.h"
#include "taskir/npy.h"
#include "tooltest.h"

static const char *dump_tool, *run_tool;
static char examples_dir[4096];

/* Runs argv (argv[0] a path) as o says; a status of 126 or 127 (the old "cannot start")
 * is not one of the tools' exit codes. */
static void run_argv(TtRun *r, const TtOpts *o, char *const argv[])
{
    tt_run_argv(r, o, argv);
    assert_true(r->status != 126 && r->status != 127);
}

/* Runs a tool with the arguments given, NULL-terminated. */
static void tool(TtRun *r, const TtOpts *o, const char *exe, ...)
{
    va_list ap;
    va_start(ap, exe);
    tt_run_va(r, o, exe, ap);
    va_end(ap);
    assert_true(r->status != 126 && r->status != 127);
}

static void example(char *buf, size_t len, const char *file)
{
    int n = snprintf(buf, len, "%s/%s", examples_dir, file);
    assert_true(n > 0 && (size_t)n < len);
}

/* Compares text with tests/cli/golden/NAME, or rewrites it under TASKIR_UPDATE_GOLDEN. */
static void golden(const char *name, const char *text, size_t len)
{
    tt_golden("tests/cli/golden", name, text, len);
}

static const TtOpts in_examples = {.cwd = examples_dir};

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
        TtRun r;
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
        tt_run_free(&r);
    }
}

/* The JSON dump carries what the text does: every block, every dict, the unmapped ones. */
static void test_dump_json_content(void **state)
{
    (void)state;
    TtRun r;
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
    tt_run_free(&r);
}

/* How the input's kind is told: the suffix, the content, --input-format. */
static void test_dump_detection(void **state)
{
    (void)state;
    char map[4096], graph[4096], copy[512];
    example(map, sizeof map, "lenet.map.pb");
    example(graph, sizeof graph, "lenet.pb");
    TtRun want, r;
    tool(&want, &in_examples, dump_tool, "lenet.map.pb", NULL);
    assert_int_equal(want.status, 0);
    /* standard input: by the content */
    TtOpts from_stdin = {.cwd = examples_dir, .in = map};
    tool(&r, &from_stdin, dump_tool, "-", NULL);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, want.out);
    tt_run_free(&r);
    /* a name without the suffix: by the content */
    size_t len;
    char *bytes = tt_slurp(map, &len);
    assert_non_null(bytes);
    tt_path(copy, sizeof copy, "mapping.bin");
    tt_write_file(copy, bytes, len);
    free(bytes);
    tool(&r, NULL, dump_tool, copy, "--verify", NULL);
    assert_int_equal(r.status, 0);
    tt_assert_contains(r.out, "ok (25 blocks, 24 edges, 23 node dicts, 5 edge dicts)");
    tt_run_free(&r);
    /* --input-format overrides */
    /* read as a TaskGraph, as protobuf's parsers read it: the fields of other wire types
     * skipped, one empty block and one edge are left, which --verify refuses */
    tool(&r, NULL, dump_tool, copy, "--input-format", "graph", "--verify", NULL);
    assert_int_equal(r.status, 2);
    tt_assert_contains(r.err, "[shape.required]");
    tt_run_free(&r);
    tool(&r, NULL, dump_tool, graph, "--input-format=mapping", NULL);
    assert_int_equal(r.status, 2);
    tt_assert_contains(r.err, "[load.enum]");
    tt_run_free(&r);
    tool(&r, NULL, dump_tool, graph, "--input-format", "map", NULL);
    assert_int_equal(r.status, 1);
    tt_assert_contains(r.err, "[usage.format]");
    tt_run_free(&r);
    /* the graph itself is still a graph */
    tool(&r, NULL, dump_tool, graph, "--verify", NULL);
    assert_int_equal(r.status, 0);
    tt_assert_contains(r.out, "ok (25 blocks, 24 edges)\n");
    tt_run_free(&r);
    tool(&r, NULL, dump_tool, "--help", NULL);
    assert_int_equal(r.status, 0);
    tt_assert_contains(r.out, "MAP.pb");
    tt_assert_contains(r.out, "--input-format");
    tt_run_free(&r);
    tt_run_free(&want);
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
    assert_int_equal(mapping_load_pb(map, &m, &d), ST_OK);
    m->nodes[0].task_id = 999;                  /* map.node.unknown; SIC 2 unmapped */
    m->nodes[9].coords[0].core.x = 0;           /* conv2 onto conv1's slot, away from */
                                                /* its inputs: map.place.input, map.route */
    m->nodes[9].coords[0].phase = 0;
    m->nodes[9].coords[0].end_phase = 0;
    m->nodes[10].coords[0].pi_index = 42;       /* map.coord.pi */
    m->edges[0].task_id = 77;                   /* map.edge.unknown */
    m->prediction_clock = -5;                   /* map.clock */
    tt_path(bad, sizeof bad, "bad.map.pb");
    assert_int_equal(mapping_save_pb(m, bad, &d), ST_OK);
    diag_finish(&d);
    mapping_destroy(m);
    TtOpts in_tmp = {.cwd = tt_tmpdir()};
    TtRun r;
    tool(&r, &in_tmp, dump_tool, "bad.map.pb", "--verify", NULL);
    assert_int_equal(r.status, 2);
    assert_int_equal(r.out_len, 0);
    golden("bad.map.err", r.err, r.err_len);
    tt_run_free(&r);
    /* the dump itself prints an invalid mapping */
    tool(&r, &in_tmp, dump_tool, "bad.map.pb", NULL);
    assert_int_equal(r.status, 0);
    tt_assert_contains(r.out, "node_map_dicts[0] -> block 999 (no such block): 1 coordinate");
    tt_assert_contains(r.out, "edge_map_dicts[0] -> edge 77 (no such edge)");
    tt_assert_contains(r.out, " pi 42\n");
    tt_assert_contains(r.out, "unmapped: block 1 INPUT 'data', block 2 SIC 'conv1/in', block 25");
    tt_run_free(&r);
    /* taskir-run refuses it, and makes no output directory */
    char npy[512], out[512];
    tt_path(npy, sizeof npy, "bad_in.npy");
    int32_t v[256] = {0};
    int64_t shape[3] = {16, 16, 1};
    diag_init(&d, npy);
    assert_int_equal(npy_write_i32(npy, v, shape, 3, &d), ST_OK);
    diag_finish(&d);
    char arg[600];
    snprintf(arg, sizeof arg, "0=%s", npy);
    tt_path(out, sizeof out, "bad_out");
    tool(&r, &in_tmp, run_tool, "bad.map.pb", "--input", arg, "-o", out, NULL);
    assert_int_equal(r.status, 2);
    tt_assert_contains(r.err, "[map.node.unknown]");
    struct stat sb;
    assert_true(stat(out, &sb) != 0 && errno == ENOENT);
    tt_run_free(&r);
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
    char *bytes = tt_slurp(map, &len);
    assert_non_null(bytes);
    tt_path(p, sizeof p, "cut.map.pb");
    size_t ok = 0, refused = 0;
    for (size_t n = 0; n < len; n += 1 + n / 6) {
        tt_write_file(p, bytes, n);
        TtRun r;
        tool(&r, NULL, dump_tool, p, "--verify", NULL);
        if (r.status != 0 && r.status != 2)
            fail_msg("cut to %zu bytes: exit %d: %s", n, r.status, r.err);
        if (r.status == 2) {
            tt_assert_contains(r.err, "taskir-dump: ");
            tt_assert_contains(r.err, " [");
            refused++;
        } else {
            ok++;
        }
        tt_run_free(&r);
    }
    uint32_t seed = 99;
    for (int k = 0; k < 40; k++) {
        seed = seed * 1103515245u + 12345u;
        size_t at = (seed >> 8) % len;
        char *flip = malloc(len);
        assert_non_null(flip);
        memcpy(flip, bytes, len);
        flip[at] ^= (char)(1u << (k % 8));
        tt_write_file(p, flip, len);
        free(flip);
        TtRun r;
        tool(&r, NULL, dump_tool, p, "--verify", "--format", "json", NULL);
        if (r.status != 0 && r.status != 2)
            fail_msg("byte %zu flipped: exit %d: %s", at, r.status, r.err);
        tt_run_free(&r);
    }
    /* every cut is refused, down to 0 bytes: an empty graph does not verify [graph.empty] */
    assert_true(refused > 0);
    assert_int_equal(ok, 0);
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
    tt_path(npy, sizeof npy, "in.npy");
    write_input(npy);
    snprintf(arg, sizeof arg, "0=%s", npy);
    tt_path(og, sizeof og, "out_graph");
    tt_path(om, sizeof om, "out_map");
    tt_path(os, sizeof os, "out_stdin");
    TtRun r;
    tool(&r, NULL, run_tool, graph, "--input", arg, "-o", og, "--dump-all", NULL);
    assert_int_equal(r.status, 0);
    tt_run_free(&r);
    tool(&r, NULL, run_tool, map, "--input", arg, "-o", om, "--dump-all", NULL);
    if (r.status != 0)
        fail_msg("taskir-run lenet.map.pb: exit %d: %s", r.status, r.err);
    tt_run_free(&r);
    TtOpts from_stdin = {.in = map};
    tool(&r, &from_stdin, run_tool, "-", "--input", arg, "-o", os, "--dump-all", NULL);
    assert_int_equal(r.status, 0);
    tt_run_free(&r);
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
        char *x = tt_slurp(a, &la), *y = tt_slurp(b, &lb), *z = tt_slurp(c, &lc);
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
    TtRun rg, rm;
    tool(&rg, NULL, run_tool, graph, "--input", arg, NULL);
    tool(&rm, NULL, run_tool, map, "--input", arg, NULL);
    assert_int_equal(rg.status, 0);
    assert_int_equal(rm.status, 0);
    assert_string_equal(rg.out, rm.out);
    tt_run_free(&rg);
    tt_run_free(&rm);
    /* --format mapping forces it; --format pb reads it as a graph (and fails) */
    tool(&r, NULL, run_tool, map, "--format", "mapping", "--input", arg, NULL);
    assert_int_equal(r.status, 0);
    tt_run_free(&r);
    tool(&r, NULL, run_tool, map, "--format", "pb", "--input", arg, NULL);
    assert_int_equal(r.status, 2);
    tt_assert_contains(r.err, "[shape.required]");
    tt_run_free(&r);
    tool(&r, NULL, run_tool, map, "--params", "p.params", "--input", arg, NULL);
    assert_int_equal(r.status, 1);
    tt_assert_contains(r.err, "Mapping");
    tt_run_free(&r);
    tool(&r, NULL, run_tool, "--help", NULL);
    assert_int_equal(r.status, 0);
    tt_assert_contains(r.out, "MAP.pb");
    tt_assert_contains(r.out, "mapping");
    tt_run_free(&r);
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
    tt_path(npy, sizeof npy, "in2.npy");
    write_input(npy);
    snprintf(arg, sizeof arg, "0=%s", npy);
    TtOpts small = {.fsize = 1024};
    /* -o new/a/b: all three directories are new */
    tt_path(top, sizeof top, "new");
    snprintf(deep, sizeof deep, "%s/a/b", top);
    TtRun r;
    tool(&r, &small, run_tool, map, "--input", arg, "--dump-all", "-o", deep, NULL);
    assert_int_equal(r.status, 3);
    tt_assert_contains(r.err, "[io.write]");
    assert_false(exists(top));
    tt_run_free(&r);
    /* -o keep/sub where keep exists: sub goes, keep stays (empty, as it was) */
    tt_path(keep, sizeof keep, "keep");
    assert_int_equal(mkdir(keep, 0777), 0);
    snprintf(sub, sizeof sub, "%s/sub", keep);
    tool(&r, &small, run_tool, map, "--input", arg, "--dump-all", "-o", sub, NULL);
    assert_int_equal(r.status, 3);
    assert_false(exists(sub));
    assert_true(exists(keep));
    tt_run_free(&r);
    /* -o keep itself (it exists): the outputs go, the directory stays */
    tool(&r, &small, run_tool, map, "--input", arg, "--dump-all", "-o", keep, NULL);
    assert_int_equal(r.status, 3);
    assert_true(exists(keep));
    char *ls = list_dir(keep);
    assert_string_equal(ls, "");
    free(ls);
    tt_run_free(&r);
    /* a file of someone else's in DIR stays, and so does DIR */
    char other[700];
    snprintf(other, sizeof other, "%s/mine.txt", keep);
    tt_write_file(other, "x", 1);
    tool(&r, &small, run_tool, map, "--input", arg, "--dump-all", "-o", keep, NULL);
    assert_int_equal(r.status, 3);
    assert_true(exists(other));
    tt_run_free(&r);
    unlink(other);
    /* the same run without the limit succeeds and keeps what it made */
    tool(&r, NULL, run_tool, map, "--input", arg, "--dump-all", "-o", deep, NULL);
    assert_int_equal(r.status, 0);
    char out0[700];
    snprintf(out0, sizeof out0, "%s/output0.npy", deep);
    assert_true(exists(out0));
    tt_run_free(&r);
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

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_map_cli TASKIR-DUMP TASKIR-RUN\n");
        return 2;
    }
    static char d[4096], rn[4096];
    if (!tt_absolute(argv[1], d, sizeof d) || !tt_absolute(argv[2], rn, sizeof rn)) {
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
    if (!tt_tmpdir_make("test_map_cli.")) {
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
    tt_tmpdir_remove();
    return rc;
}
