/* test_cli.c: taskir-dump run as a user runs it (tt_run, tests/common/tooltest.h), checking
 * exit codes, what it prints on stdout and stderr, and the files it leaves.
 *
 * Arguments (from tests/cli/meson.build): the taskir-dump binary, the project version, and
 * the example names ($TASKIR_BUILDDIR/examples/NAME.pb). `jq` and `dot` are used when they
 * are on PATH (CI installs both); without them those checks say so and pass. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <dirent.h>
#include <json-c/json.h>
#include <sys/stat.h>
#include <unistd.h>

#include "taskir/fileio.h"
#include "taskir/pbio.h"
#include "tooltest.h"

static const char *tool;
static const char *version;
static char **examples;
static int n_examples;

/* Runs taskir-dump with the arguments given, NULL-terminated. */
static void dump(TtRun *r, const char *in, ...)
{
    va_list ap;
    va_start(ap, in);
    tt_run_va(r, &(TtOpts){.in = in}, tool, ap);
    va_end(ap);
}

static bool on_path(const char *prog)
{
    const char *path = getenv("PATH");
    if (!path)
        return false;
    char buf[4096];
    while (*path) {
        size_t n = strcspn(path, ":");
        if (n && snprintf(buf, sizeof buf, "%.*s/%s", (int)n, path, prog) < (int)sizeof buf &&
            access(buf, X_OK) == 0)
            return true;
        path += n + (path[n] == ':');
    }
    return false;
}

static void example_path(char *buf, size_t len, const char *name)
{
    const char *b = getenv("TASKIR_BUILDDIR");
    if (!b)
        fail_msg("TASKIR_BUILDDIR is not set (run through meson test)");
    int n = snprintf(buf, len, "%s/examples/%s.pb", b, name);
    assert_true(n > 0 && (size_t)n < len);
}

/* Saves g as the file name in the test's directory (its path to path[0..size)) and
 * destroys it. */
static void save_graph(Graph *g, const char *name, char *path, size_t size)
{
    tt_path(path, size, name);
    Diag d;
    diag_init(&d, path);
    assert_int_equal(graph_save_pb(g, path, &d), ST_OK);
    diag_finish(&d);
    graph_destroy(g);
}

/* ---- tests ---- */

static void test_help(void **state)
{
    (void)state;
    TtRun r;
    dump(&r, NULL, "--help", NULL);
    assert_int_equal(r.status, 0);
    static const char *const words[] = {"--format", "text", "json", "dot", "--summary",
                                        "--block", "--verify", "-o FILE", "--help",
                                        "--version", "\"-\"", "exit status", "  0 ",
                                        "  1 ", "  2 ", "  3 "};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        tt_assert_contains(r.out, words[i]);
    assert_int_equal(r.err_len, 0);
    tt_run_free(&r);
}

static void test_version(void **state)
{
    (void)state;
    TtRun r;
    dump(&r, NULL, "--version", NULL);
    assert_int_equal(r.status, 0);
    char want[128];
    snprintf(want, sizeof want, "taskir-dump %s\n", version);
    assert_string_equal(r.out, want);
    tt_run_free(&r);
}

static void test_usage_errors(void **state)
{
    (void)state;
    char ex[4096];
    example_path(ex, sizeof ex, examples[0]);
    TtRun r;
    dump(&r, NULL, NULL);
    assert_int_equal(r.status, 1);
    tt_assert_contains(r.err, "taskir-dump: no input file");
    tt_assert_contains(r.err, "[usage.args]");
    tt_run_free(&r);

    dump(&r, NULL, ex, "--frobnicate", NULL);
    assert_int_equal(r.status, 1);
    tt_assert_contains(r.err, "unknown option '--frobnicate'");
    assert_int_equal(r.out_len, 0);
    tt_run_free(&r);

    dump(&r, NULL, ex, "--format", "yaml", NULL);
    assert_int_equal(r.status, 1);
    tt_assert_contains(r.err, "'yaml'");
    tt_assert_contains(r.err, "[usage.format]");
    tt_run_free(&r);

    dump(&r, NULL, ex, "--format", NULL);
    assert_int_equal(r.status, 1);
    tt_run_free(&r);

    dump(&r, NULL, ex, "--summary", "--format=dot", NULL);
    assert_int_equal(r.status, 1);
    tt_assert_contains(r.err, "[usage.format]");
    tt_run_free(&r);

    dump(&r, NULL, ex, "--block", "five", NULL);
    assert_int_equal(r.status, 1);
    tt_assert_contains(r.err, "[usage.block]");
    tt_run_free(&r);

    dump(&r, NULL, ex, ex, NULL);
    assert_int_equal(r.status, 1);
    tt_run_free(&r);

    dump(&r, NULL, ex, "-o", NULL);
    assert_int_equal(r.status, 1);
    tt_run_free(&r);
}

static void test_missing_file(void **state)
{
    (void)state;
    char p[512];
    tt_path(p, sizeof p, "no-such-graph.pb");
    TtRun r;
    dump(&r, NULL, p, NULL);
    assert_int_equal(r.status, 3);
    tt_assert_contains(r.err, "taskir-dump: ");
    tt_assert_contains(r.err, p);
    tt_assert_contains(r.err, "[io.read]");
    assert_int_equal(r.out_len, 0);
    tt_run_free(&r);
}

static void test_garbage_file(void **state)
{
    (void)state;
    char p[512];
    tt_path(p, sizeof p, "garbage.pb");
    static const unsigned char junk[] = {0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01, 0x02, 0x03};
    tt_write_file(p, junk, sizeof junk);
    TtRun r;
    dump(&r, NULL, p, NULL);
    assert_int_equal(r.status, 2);
    tt_assert_contains(r.err, p);
    tt_assert_contains(r.err, "[wire.");
    assert_int_equal(r.out_len, 0);
    tt_run_free(&r);
    /* the same bytes on stdin are named <stdin> */
    dump(&r, p, "-", NULL);
    assert_int_equal(r.status, 2);
    tt_assert_contains(r.err, "taskir-dump: <stdin>: ");
    tt_run_free(&r);
    unlink(p);
}

/* A 0-byte .pb decodes to an empty graph: it dumps, but does not verify [graph.empty]. */
static void test_empty_file(void **state)
{
    (void)state;
    char p[512];
    tt_path(p, sizeof p, "empty.pb");
    tt_write_file(p, "", 0);
    TtRun r;
    dump(&r, NULL, p, "--verify", NULL);
    assert_int_equal(r.status, 2);
    tt_assert_contains(r.err, "the graph has no blocks: nothing to run [graph.empty]");
    assert_int_equal(r.out_len, 0);
    tt_run_free(&r);
    dump(&r, NULL, p, NULL);
    assert_int_equal(r.status, 0);
    tt_run_free(&r);
    unlink(p);
}

static void test_verify_examples(void **state)
{
    (void)state;
    for (int i = 0; i < n_examples; i++) {
        char ex[4096], want[4200];
        example_path(ex, sizeof ex, examples[i]);
        Graph *g = NULL;
        Diag d;
        diag_init(&d, ex);
        assert_int_equal(graph_load_pb(ex, &g, &d), ST_OK);
        diag_finish(&d);
        snprintf(want, sizeof want, "%s: ok (%u blocks, %u edges)\n", ex,
                 (unsigned)g->n_blocks, (unsigned)g->n_edges);
        graph_destroy(g);
        TtRun r;
        dump(&r, NULL, ex, "--verify", NULL);
        if (r.status != 0)
            fail_msg("--verify %s exited %d:\n%s", ex, r.status, r.err);
        assert_string_equal(r.out, want);
        assert_int_equal(r.err_len, 0);
        tt_run_free(&r);
        /* with a dump: the dump on stdout, the ok line on stderr */
        dump(&r, NULL, ex, "--verify", "--summary", NULL);
        assert_int_equal(r.status, 0);
        tt_assert_contains(r.out, "total macs ");
        assert_string_equal(r.err, want);
        tt_run_free(&r);
    }
}

/* A graph that breaks rules: --verify exits 2 listing the violations; the dump still works. */
static void test_invalid_graph(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    Block *a = graph_add_block(g, BT_SI, 1, "a");
    Block *b = graph_add_block(g, BT_SI, 2, "b");
    assert_non_null(a);
    assert_non_null(b);
    a->has_shape = b->has_shape = true;
    a->shape.d[D_F] = 4;
    b->shape.d[D_F] = 5;
    assert_non_null(graph_connect(g, a, 0, b, 0)); /* storage -> storage, sizes differ */
    assert_non_null(graph_add_edge(g, 9, 2, 42));  /* to a block that does not exist */
    char p[512];
    save_graph(g, "invalid.pb", p, sizeof p);
    TtRun r;
    dump(&r, NULL, p, "--verify", NULL);
    assert_int_equal(r.status, 2);
    assert_int_equal(r.out_len, 0);
    tt_assert_contains(r.err, p);
    int lines = 0;
    for (const char *s = r.err; (s = strchr(s, '\n')); s++)
        lines++;
    if (lines < 2)
        fail_msg("expected every violation listed, got:\n%s", r.err);
    tt_run_free(&r);
    static const char *const fmts[] = {"text", "json", "dot"};
    for (int i = 0; i < 3; i++) {
        dump(&r, NULL, p, "--format", fmts[i], NULL);
        assert_int_equal(r.status, 0);
        assert_true(r.out_len > 0);
        tt_run_free(&r);
    }
    unlink(p);
}

static void test_block(void **state)
{
    (void)state;
    char ex[4096];
    example_path(ex, sizeof ex, examples[0]);
    Graph *g = NULL;
    Diag d;
    diag_init(&d, ex);
    assert_int_equal(graph_load_pb(ex, &g, &d), ST_OK);
    diag_finish(&d);
    assert_true(g->n_blocks > 0);
    int32_t id = g->blocks[g->n_blocks / 2]->id;
    int32_t missing = g->next_block_id + 1000;
    graph_destroy(g);
    char ids[32], want[48], miss[32];
    snprintf(ids, sizeof ids, "%d", (int)id);
    snprintf(want, sizeof want, "block %d ", (int)id);
    snprintf(miss, sizeof miss, "%d", (int)missing);
    TtRun r;
    dump(&r, NULL, ex, "--block", ids, NULL);
    assert_int_equal(r.status, 0);
    assert_true(strncmp(r.out, want, strlen(want)) == 0);
    tt_assert_contains(r.out, "\nedge ");
    tt_run_free(&r);
    dump(&r, NULL, ex, "--block", miss, "--format", "json", NULL);
    assert_int_equal(r.status, 2);
    tt_assert_contains(r.err, "[dump.block]");
    tt_assert_contains(r.err, miss);
    assert_int_equal(r.out_len, 0);
    tt_run_free(&r);
}

static bool only_entry(const char *dir, const char *name)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    bool ok = true;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        n++;
        if (!name || strcmp(e->d_name, name) != 0) {
            fprintf(stderr, "unexpected file %s/%s\n", dir, e->d_name);
            ok = false;
        }
    }
    closedir(d);
    return ok && n == (name ? 1 : 0);
}

static void test_output_file(void **state)
{
    (void)state;
    char ex[4096], dir[512], out[600];
    example_path(ex, sizeof ex, examples[0]);
    tt_path(dir, sizeof dir, "odir");
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(out, sizeof out, "%s/dump.json", dir);
    TtRun r, s;
    dump(&r, NULL, ex, "--format", "json", NULL);
    assert_int_equal(r.status, 0);
    /* an existing file is replaced */
    tt_write_file(out, "old", 3);
    dump(&s, NULL, ex, "--format", "json", "-o", out, NULL);
    assert_int_equal(s.status, 0);
    assert_int_equal(s.out_len, 0);
    size_t len;
    char *got = tt_slurp(out, &len);
    assert_non_null(got);
    assert_int_equal(len, r.out_len);
    assert_memory_equal(got, r.out, len);
    free(got);
    assert_true(only_entry(dir, "dump.json"));
    tt_run_free(&r);
    tt_run_free(&s);
    /* an unwritable place: runtime error, no file, no temporary left behind */
    char bad[700];
    snprintf(bad, sizeof bad, "%s/nodir/x.txt", dir);
    dump(&r, NULL, ex, "-o", bad, NULL);
    assert_int_equal(r.status, 3);
    tt_assert_contains(r.err, "[io.write]");
    tt_run_free(&r);
    /* a failed load leaves the old output alone */
    dump(&r, NULL, "/nonexistent/graph.pb", "-o", out, NULL);
    assert_int_equal(r.status, 3);
    tt_run_free(&r);
    assert_true(only_entry(dir, "dump.json"));
    unlink(out);
    rmdir(dir);
}

static void test_stdin(void **state)
{
    (void)state;
    for (int i = 0; i < n_examples; i++) {
        char ex[4096];
        example_path(ex, sizeof ex, examples[i]);
        TtRun a, b;
        dump(&a, NULL, ex, NULL);
        dump(&b, ex, "-", NULL);
        assert_int_equal(a.status, 0);
        assert_int_equal(b.status, 0);
        assert_int_equal(a.out_len, b.out_len);
        assert_memory_equal(a.out, b.out, a.out_len);
        tt_run_free(&a);
        tt_run_free(&b);
        dump(&b, ex, "-", "--verify", NULL);
        assert_int_equal(b.status, 0);
        tt_assert_contains(b.out, "<stdin>: ok (");
        tt_run_free(&b);
    }
}

/* The tool prints what the library prints: its output equals the golden files. */
static void test_matches_golden(void **state)
{
    (void)state;
    const char *src = getenv("TASKIR_SRCDIR");
    if (!src)
        fail_msg("TASKIR_SRCDIR is not set (run through meson test)");
    static const char *const variants[][4] = {
        {"txt", "--format", "text", NULL},         {"json", "--format", "json", NULL},
        {"dot", "--format", "dot", NULL},          {"summary", "--summary", NULL, NULL},
        {"summary.json", "--summary", "--format", "json"},
    };
    for (int i = 0; i < n_examples; i++) {
        char ex[4096], golden[4096];
        example_path(ex, sizeof ex, examples[i]);
        for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
            snprintf(golden, sizeof golden, "%s/tests/golden/%s.%s", src, examples[i],
                     variants[v][0]);
            size_t len;
            char *want = tt_slurp(golden, &len);
            if (!want)
                fail_msg("cannot read %s", golden);
            TtRun r;
            dump(&r, NULL, ex, variants[v][1], variants[v][2], variants[v][3], NULL);
            assert_int_equal(r.status, 0);
            if (r.out_len != len || memcmp(r.out, want, len) != 0)
                fail_msg("taskir-dump %s %s differs from %s", ex, variants[v][1], golden);
            free(want);
            tt_run_free(&r);
        }
    }
}

static void test_json_parses(void **state)
{
    (void)state;
    bool jq = on_path("jq");
    if (!jq)
        fprintf(stderr, "jq is not on PATH: checking the JSON with json-c only\n");
    for (int i = 0; i < n_examples; i++) {
        char ex[4096], jp[512];
        example_path(ex, sizeof ex, examples[i]);
        tt_path(jp, sizeof jp, "out.json");
        const char *variants[][3] = {{"--format", "json", NULL}, {"--summary", "--format", "json"}};
        for (int v = 0; v < 2; v++) {
            TtRun r;
            dump(&r, NULL, ex, variants[v][0], variants[v][1], variants[v][2], NULL);
            assert_int_equal(r.status, 0);
            json_object *j = json_tokener_parse(r.out);
            if (!j)
                fail_msg("%s: the JSON does not parse:\n%.2000s", ex, r.out);
            assert_true(json_object_is_type(j, json_type_object));
            json_object *x;
            assert_true(json_object_object_get_ex(j, "blocks", &x));
            json_object_put(j);
            if (jq) {
                tt_write_file(jp, r.out, r.out_len);
                TtRun q;
                char *argv[] = {"jq", "-e", ".blocks", NULL};
                tt_run_argv(&q, &(TtOpts){.in = jp, .search = true}, argv);
                if (q.status != 0)
                    fail_msg("jq rejects the JSON of %s: %s", ex, q.err);
                tt_run_free(&q);
                unlink(jp);
            }
            tt_run_free(&r);
        }
    }
}

/* The key's value of object o (failing the test when there is none). */
static json_object *jget(json_object *o, const char *key)
{
    json_object *x = NULL;
    if (!json_object_object_get_ex(o, key, &x))
        fail_msg("no key \"%s\" in %s", key, json_object_to_json_string(o));
    return x;
}

/* --verify --format json: the findings as JSON on stdout, nothing on stderr. */
static void test_verify_json(void **state)
{
    (void)state;
    const char *b = getenv("TASKIR_BUILDDIR");
    assert_non_null(b);
    char bad[4096], ex[4096];
    snprintf(bad, sizeof bad, "%s/tests/golden/bad_conv.pb", b);
    example_path(ex, sizeof ex, examples[0]);
    TtRun r;
    dump(&r, NULL, bad, "--verify", "--format", "json", NULL);
    assert_int_equal(r.status, 2);
    assert_int_equal(r.err_len, 0);
    json_object *j = json_tokener_parse(r.out);
    if (!j)
        fail_msg("the JSON does not parse:\n%s", r.out);
    assert_false(json_object_get_boolean(jget(j, "ok")));
    assert_string_equal(json_object_get_string(jget(j, "file")), bad);
    json_object *f = jget(j, "findings");
    size_t n = json_object_array_length(f);
    assert_true(n >= 2);
    bool block = false, edge = false;
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(f, i);
        assert_true(strlen(json_object_get_string(jget(e, "rule"))) > 0);
        assert_true(strlen(json_object_get_string(jget(e, "message"))) > 0);
        block |= json_object_is_type(jget(e, "block"), json_type_int);
        edge |= json_object_is_type(jget(e, "edge"), json_type_int);
    }
    assert_true(block && edge);
    json_object_put(j);
    tt_run_free(&r);
    /* a graph that verifies: ok, no findings */
    dump(&r, NULL, ex, "--verify", "--format=json", NULL);
    assert_int_equal(r.status, 0);
    j = json_tokener_parse(r.out);
    assert_non_null(j);
    assert_true(json_object_get_boolean(jget(j, "ok")));
    assert_int_equal(json_object_array_length(jget(j, "findings")), 0);
    assert_true(json_object_get_int(jget(j, "blocks")) > 0);
    json_object_put(j);
    tt_run_free(&r);
    /* --format text with --verify: the text dump follows, not a JSON report (--help) */
    dump(&r, NULL, ex, "--verify", "--format", "text", NULL);
    assert_int_equal(r.status, 0);
    assert_true(r.out[0] != '{');
    tt_assert_contains(r.out, "taskgraph: ");
    tt_assert_contains(r.err, ": ok (");
    tt_run_free(&r);
    /* bytes that do not load: the loader's finding, blocks null */
    char p[512];
    tt_path(p, sizeof p, "cut.pb");
    tt_write_file(p, "\x0a\xff", 2);
    dump(&r, NULL, p, "--verify", "--format", "json", NULL);
    assert_int_equal(r.status, 2);
    assert_int_equal(r.err_len, 0);
    j = json_tokener_parse(r.out);
    assert_non_null(j);
    assert_true(json_object_is_type(jget(j, "blocks"), json_type_null));
    tt_assert_contains(json_object_get_string(jget(json_object_array_get_idx(
                           jget(j, "findings"), 0), "rule")), "wire.");
    json_object_put(j);
    tt_run_free(&r);
    unlink(p);
}

/* The JSON dump says it abridges data tensors; --full-data writes them whole. */
static void test_full_data(void **state)
{
    (void)state;
    char ex[4096];
    example_path(ex, sizeof ex, "lenet");
    TtRun r;
    for (int full = 0; full < 2; full++) {
        dump(&r, NULL, ex, "--format", "json", full ? "--full-data" : NULL, NULL);
        assert_int_equal(r.status, 0);
        json_object *j = json_tokener_parse(r.out);
        assert_non_null(j);
        json_object *blocks = jget(j, "blocks");
        size_t seen = 0;
        for (size_t i = 0; i < json_object_array_length(blocks); i++) {
            json_object *data = jget(json_object_array_get_idx(blocks, i), "data");
            if (json_object_is_type(data, json_type_null))
                continue;
            assert_int_equal(json_object_get_boolean(jget(data, "abridged")), !full);
            json_object *dims = jget(data, "dims"), *v = NULL;
            if (!json_object_object_get_ex(data, "int32", &v))
                continue;
            int64_t count = 1;
            for (size_t k = 0; k < json_object_array_length(dims); k++)
                count *= json_object_get_int64(json_object_array_get_idx(dims, k));
            if (full)
                assert_int_equal(json_object_array_length(v), count);
            else
                assert_int_equal(json_object_get_int64(jget(v, "count")), count);
            seen += count > 8;
        }
        assert_true(seen > 0);
        json_object_put(j);
        tt_run_free(&r);
    }
    dump(&r, NULL, ex, "--full-data", NULL);
    assert_int_equal(r.status, 1);
    tt_assert_contains(r.err, "--full-data is for the JSON dump");
    tt_run_free(&r);
    dump(&r, NULL, ex, "--format", "json", "--summary", "--full-data", NULL);
    assert_int_equal(r.status, 1);
    tt_run_free(&r);
}

static void test_dot_renders(void **state)
{
    (void)state;
    if (!on_path("dot")) {
        fprintf(stderr, "dot (graphviz) is not on PATH: DOT output not rendered\n");
        return;
    }
    for (int i = 0; i < n_examples; i++) {
        char ex[4096], dp[512];
        example_path(ex, sizeof ex, examples[i]);
        tt_path(dp, sizeof dp, "out.dot");
        TtRun r;
        dump(&r, NULL, ex, "--format", "dot", "-o", dp, NULL);
        assert_int_equal(r.status, 0);
        tt_run_free(&r);
        char *argv[] = {"dot", "-Tsvg", NULL};
        tt_run_argv(&r, &(TtOpts){.in = dp, .search = true}, argv);
        if (r.status != 0 || r.err_len != 0)
            fail_msg("dot -Tsvg on the dump of %s: exit %d\n%s", ex, r.status, r.err);
        tt_assert_contains(r.out, "<svg");
        tt_run_free(&r);
        unlink(dp);
    }
}

/* Runs taskir-dump with args (NULL-terminated, at most 8) once with --threads N for each N of
 * {1, 2, 3}: the same exit status, stdout and stderr every time; returns the first run. */
static void same_on_threads(TtRun *first, const char *in, const char *const *args)
{
    for (int t = 1; t <= 3; t++) {
        char *argv[16];
        char n[4];
        snprintf(n, sizeof n, "%d", t);
        int k = 0;
        argv[k++] = (char *)tool;
        for (int i = 0; args[i]; i++)
            argv[k++] = (char *)args[i];
        argv[k++] = "--threads";
        argv[k++] = n;
        argv[k] = NULL;
        TtRun r;
        tt_run_argv(&r, &(TtOpts){.in = in}, argv);
        if (t == 1) {
            *first = r;
            continue;
        }
        assert_int_equal(r.status, first->status);
        assert_int_equal(r.out_len, first->out_len);
        assert_memory_equal(r.out, first->out, r.out_len);
        assert_string_equal(r.err, first->err);
        tt_run_free(&r);
    }
}

/* --threads N: a count 1..64 given once; the output does not depend on it, for the examples
 * and for a graph large enough for the threads to share its file's pages, its values and
 * their check (a data tensor of 3.2 M int8 weights, one out of range near its end). */
static void test_threads(void **state)
{
    (void)state;
    char ex[4096];
    example_path(ex, sizeof ex, examples[0]);
    static const char *const bad[] = {"0", "65", "x", "", "-2"};
    TtRun r;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        dump(&r, NULL, ex, "--verify", "--threads", bad[i], NULL);
        assert_int_equal(r.status, 1);
        tt_assert_contains(r.err, "[usage.threads]");
        tt_run_free(&r);
    }
    dump(&r, NULL, ex, "--threads", "2", "--threads=2", NULL);
    assert_int_equal(r.status, 1);
    tt_assert_contains(r.err, "[usage.repeated]");
    tt_run_free(&r);
    for (int i = 0; i < n_examples; i++) {
        example_path(ex, sizeof ex, examples[i]);
        same_on_threads(&r, NULL, (const char *const[]){ex, "--verify", NULL});
        assert_int_equal(r.status, 0);
        tt_run_free(&r);
        same_on_threads(&r, NULL, (const char *const[]){ex, "--format", "json", "--full-data",
                                                        NULL});
        assert_int_equal(r.status, 0);
        tt_run_free(&r);
    }
    /* the large graph: one storage block of int8 precision */
    Graph *g = graph_create();
    assert_non_null(g);
    Block *b = graph_add_block(g, BT_SI, 1, "weights");
    assert_non_null(b);
    b->prec = PR_INT_8;
    b->has_prec = true;
    uint32_t n = 3200000;
    Tensor *t = arena_alloc(g->arena, 1, sizeof *t);
    int32_t *v = arena_alloc(g->arena, n, sizeof *v);
    assert_non_null(t);
    assert_non_null(v);
    uint32_t x = 12345;
    for (uint32_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        v[i] = (int32_t)((x >> 16) % 256) - 128;
    }
    v[n - 1000] = 300;
    t->i32 = v;
    t->n_i32 = n;
    b->data = t;
    char big[512];
    save_graph(g, "big.pb", big, sizeof big);
    struct stat sb;
    assert_int_equal(stat(big, &sb), 0);
    assert_true(sb.st_size >= (16 << 20)); /* the size from which a file is read on threads */
    same_on_threads(&r, NULL, (const char *const[]){big, "--verify", NULL});
    assert_int_equal(r.status, 2);
    tt_assert_contains(r.err, "[data.range]");
    tt_assert_contains(r.err, "300");
    tt_run_free(&r);
    same_on_threads(&r, NULL, (const char *const[]){big, "--summary", NULL});
    assert_int_equal(r.status, 0);
    tt_run_free(&r);
    unlink(big);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: test_cli TASKIR-DUMP VERSION EXAMPLE...\n");
        return 1;
    }
    tool = argv[1];
    version = argv[2];
    examples = argv + 3;
    n_examples = argc - 3;
    if (!tt_tmpdir_make("taskir-cli-")) {
        perror("mkdtemp");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help),          cmocka_unit_test(test_version),
        cmocka_unit_test(test_usage_errors),  cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_garbage_file),  cmocka_unit_test(test_empty_file),
        cmocka_unit_test(test_verify_examples),
        cmocka_unit_test(test_invalid_graph), cmocka_unit_test(test_block),
        cmocka_unit_test(test_output_file),   cmocka_unit_test(test_stdin),
        cmocka_unit_test(test_matches_golden), cmocka_unit_test(test_json_parses),
        cmocka_unit_test(test_dot_renders),   cmocka_unit_test(test_verify_json),
        cmocka_unit_test(test_full_data),     cmocka_unit_test(test_threads),
    };
    int rc = cmocka_run_group_tests_name("cli", tests, NULL, NULL);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", tt_tmpdir());
    size_t left = tt_tmpdir_remove();
    if (left)
        fprintf(stderr, "note: %s was not empty (%zu entries), removed\n", dir, left);
    return rc;
}
