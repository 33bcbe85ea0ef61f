/* test_determinism.c: every artifact made from an example is byte-identical when made twice,
 * and when made under another locale and time zone.
 *
 * For each example graph (<builddir>/examples/NAME.pb) three runs are made: two with
 * LC_ALL=C.UTF-8 TZ=UTC, one with LC_ALL=de_DE.UTF-8 (or, where that locale is not installed,
 * POSIX) TZ=Asia/Shanghai. Each run makes, in a fresh directory of its own and with the same
 * relative paths (so messages that name files agree):
 *  - the graph_pack bytes of the loaded example and the four printers' output, by this
 *    program re-executed with --make (it calls setlocale(LC_ALL, "") and tzset() first, as a
 *    locale-aware tool would, so a locale-dependent number format would show);
 *  - taskir-dump in text, JSON and DOT, --summary in text and JSON, and --verify: standard
 *    output, standard error, exit status and the -o files;
 *  - taskir-run on a fixed input (pseudo-random values from a fixed seed, within the INPUT
 *    blocks' precision) with --dump-all, the third run with --threads 2: every .npy file,
 *    plus standard output, error and exit status.
 * For each CVM example model (<builddir>/examples/cvm/NAME.json + .params + .input.npy):
 *  - the model read and lowered in-process (--make-cvm: fe_cvm_load, fe_lower, graph_pack);
 *  - taskir-compile -o, taskir-dump of the compiled graph (text, JSON, summary) and taskir-run
 *    of the compiled graph on the example input (when the build has taskir-compile);
 *  - taskir-run of the model itself (the reference interpreter) on the example input.
 * The three runs' directories must hold the same files with the same bytes (whether a step
 * succeeds is not this test's business: an error must be the same error every time).
 *
 * Arguments (tests/robust/meson.build): taskir-dump, taskir-run, taskir-compile (or "-"),
 * then the example names: NAME for <builddir>/examples/NAME.pb, cvm:NAME for a CVM model.
 * A NAME ending in ".map" is a Mapping (<builddir>/examples/NAME.pb = lenet.map.pb): its
 * in-process artifacts are mapping_save_pb and the mapping printers, and taskir-dump and
 * taskir-run take it as they take a graph. */
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
#include <locale.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "frontend/cvm/cvm.h"
#include "frontend/lower/lower.h"
#include "taskir/fileio.h"
#include "taskir/mapping.h"
#include "taskir/npy.h"
#include "taskir/pbio.h"
#include "taskir/print.h"
#include "tooltest.h"

extern char **environ;

static const char *self, *dump_tool, *run_tool, *compile_tool; /* compile_tool may be NULL */
static char *examples[64], *cvm_examples[64];
static int n_examples, n_cvm_examples;
static const char *base; /* the scratch directory */
static const char *alt_locale;

enum { N_RUNS = 3 };

/* ---- --make: the in-process artifacts, under the environment's locale ---- */

static int make_artifacts(const char *graph)
{
    setlocale(LC_ALL, "");
    tzset();
    Diag d;
    diag_init(&d, graph);
    Graph *g = NULL;
    Mapping *m = NULL; /* a Mapping example (".map.pb"): it owns g */
    Status st;
    if (mapping_path_looks_like(graph)) {
        st = mapping_load_pb(graph, &m, &d);
        g = m ? m->graph : NULL;
        if (st == ST_OK)
            st = mapping_save_pb(m, "packed.pb", &d);
    } else {
        st = graph_load_pb(graph, &g, &d);
        if (st == ST_OK)
            st = graph_save_pb(g, "packed.pb", &d);
    }
    static const struct {
        const char *file;
        int summary;
        PrintFormat f;
    } outs[] = {
        {"print.txt", 0, PF_TEXT},       {"print.json", 0, PF_JSON},
        {"print.dot", 0, PF_DOT},        {"summary.txt", 1, PF_TEXT},
        {"summary.json", 1, PF_JSON},
    };
    for (size_t i = 0; st == ST_OK && i < sizeof outs / sizeof outs[0]; i++) {
        FILE *f = fopen(outs[i].file, "w");
        if (!f)
            return 3;
        if (m)
            st = outs[i].summary ? print_map_summary(m, outs[i].f, f, &d)
                                 : print_mapping(m, outs[i].f, false, 0, f, &d);
        else
            st = outs[i].summary ? print_summary(g, outs[i].f, f, &d)
                                 : print_graph(g, outs[i].f, f, &d);
        if (fclose(f) != 0 && st == ST_OK)
            st = ST_RUNTIME;
    }
    diag_print(&d, stderr, "make");
    diag_finish(&d);
    if (m)
        mapping_destroy(m);
    else
        graph_destroy(g);
    return (int)st;
}

/* --make-cvm: the CVM model read and lowered in-process; its packed graph and text. */
static int make_cvm(const char *json, const char *params)
{
    setlocale(LC_ALL, "");
    tzset();
    Diag d;
    diag_init(&d, json);
    OpGraph *og = NULL;
    Graph *g = NULL;
    Status st = fe_cvm_load(json, params, &og, &d);
    if (st == ST_OK)
        st = fe_lower(og, NULL, &g, &d);
    if (st == ST_OK)
        st = graph_save_pb(g, "lowered.pb", &d);
    if (st == ST_OK) {
        FILE *f = fopen("lowered.txt", "w");
        if (!f)
            return 3;
        st = print_graph(g, PF_TEXT, f, &d);
        if (fclose(f) != 0 && st == ST_OK)
            st = ST_RUNTIME;
    }
    diag_print(&d, stderr, "make-cvm");
    diag_finish(&d);
    graph_destroy(g);
    og_destroy(og);
    return (int)st;
}

/* ---- running commands ---- */

/* environ without the locale and time zone variables, plus the run's own. */
static char **run_env(int run)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 8, sizeof *env);
    assert_non_null(env);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "LC_", 3) && strncmp(environ[i], "LANG=", 5) &&
            strncmp(environ[i], "LANGUAGE=", 9) && strncmp(environ[i], "TZ=", 3))
            env[k++] = environ[i];
    static char buf[N_RUNS][4][96];
    bool alt = run == N_RUNS - 1;
    snprintf(buf[run][0], sizeof buf[0][0], "LC_ALL=%s", alt ? alt_locale : "C.UTF-8");
    snprintf(buf[run][1], sizeof buf[0][0], "LANG=%s", alt ? alt_locale : "C.UTF-8");
    snprintf(buf[run][2], sizeof buf[0][0], "TZ=%s", alt ? "Asia/Shanghai" : "UTC");
    for (int i = 0; i < 3; i++)
        env[k++] = buf[run][i];
    return env;
}

/* Runs argv in dir with the run's environment; stdout, stderr and the exit status go to
 * dir/TAG.stdout, dir/TAG.stderr and dir/TAG.exit. Returns the exit status (-1: a signal). */
static int run_in(const char *dir, int run, const char *tag, char *const argv[])
{
    char out_name[128], err_name[128];
    snprintf(out_name, sizeof out_name, "%s.stdout", tag);
    snprintf(err_name, sizeof err_name, "%s.stderr", tag);
    char **env = run_env(run);
    TtRun r;
    tt_run_argv(&r,
                &(TtOpts){.cwd = dir, .inherit_stdin = true, .out_file = out_name,
                          .err_file = err_name, .env = env},
                argv);
    free(env);
    int status = r.status, sig = r.signal;
    tt_run_free(&r); /* both streams went to files */
    char p[1200];
    snprintf(p, sizeof p, "%s/%s.exit", dir, tag);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fprintf(f, "%s %d\n", sig ? "signal" : "exit", sig ? sig : status);
    fclose(f);
    if (!sig && (status == 126 || status == 127))
        fail_msg("cannot run %s in %s", argv[0], dir);
    return sig ? -1 : status;
}

static void mkdirs(const char *path)
{
    char p[1024];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = 0;
            mkdir(p, 0777);
            *s = '/';
        }
    if (mkdir(p, 0777) != 0 && errno != EEXIST)
        fail_msg("cannot create %s: %s", p, strerror(errno));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sorted regular-file names below dir (relative, with subdirectories), count in *n. */
static void list_files(const char *dir, const char *rel, char ***names, size_t *n)
{
    char p[1024];
    snprintf(p, sizeof p, "%s%s%s", dir, *rel ? "/" : "", rel);
    DIR *dp = opendir(p);
    assert_non_null(dp);
    struct dirent *e;
    while ((e = readdir(dp))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char r[1024], full[2048];
        snprintf(r, sizeof r, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        snprintf(full, sizeof full, "%s/%s", dir, r);
        struct stat sb;
        assert_int_equal(stat(full, &sb), 0);
        if (S_ISDIR(sb.st_mode)) {
            list_files(dir, r, names, n);
        } else {
            *names = realloc(*names, (*n + 1) * sizeof **names);
            assert_non_null(*names);
            (*names)[*n] = strdup(r);
            assert_non_null((*names)[*n]);
            ++*n;
        }
    }
    closedir(dp);
}

/* The runs' directories dir/run0 .. dir/run{N-1} hold the same files, byte for byte.
 * Returns the number of files compared. */
static size_t compare_runs(const char *dir)
{
    char **names[N_RUNS] = {0};
    size_t n[N_RUNS] = {0};
    char rd[N_RUNS][1024];
    for (int r = 0; r < N_RUNS; r++) {
        snprintf(rd[r], sizeof rd[r], "%s/run%d", dir, r);
        list_files(rd[r], "", &names[r], &n[r]);
        qsort(names[r], n[r], sizeof *names[r], cmp_str);
    }
    for (int r = 1; r < N_RUNS; r++) {
        if (n[r] != n[0])
            fail_msg("%s: run 0 made %zu files, run %d made %zu", dir, n[0], r, n[r]);
        for (size_t i = 0; i < n[0]; i++) {
            if (strcmp(names[0][i], names[r][i]) != 0)
                fail_msg("%s: run 0 made '%s', run %d '%s'", dir, names[0][i], r,
                         names[r][i]);
            char a[2048], b[2048];
            snprintf(a, sizeof a, "%s/%s", rd[0], names[0][i]);
            snprintf(b, sizeof b, "%s/%s", rd[r], names[r][i]);
            size_t la, lb;
            char *x = tt_slurp_or_fail(a, &la), *y = tt_slurp_or_fail(b, &lb);
            if (la != lb || memcmp(x, y, la) != 0)
                fail_msg("%s: '%s' differs between run 0 and run %d (%s): %zu and %zu bytes",
                         dir, names[0][i], r, r == N_RUNS - 1 ? "other locale and TZ" : "again",
                         la, lb);
            free(x);
            free(y);
        }
    }
    for (int r = 0; r < N_RUNS; r++) {
        for (size_t i = 0; i < n[r]; i++)
            free(names[r][i]);
        free(names[r]);
    }
    return n[0];
}

static void example_path(const char *name, char *out, size_t size)
{
    const char *b = getenv("TASKIR_BUILDDIR");
    if (!b || !*b)
        fail_msg("TASKIR_BUILDDIR is not set (run through meson test)");
    snprintf(out, size, "%s/examples/%s.pb", b, name);
}

/* ---- the tests ---- */

static void test_pack_and_print(void **state)
{
    (void)state;
    for (int e = 0; e < n_examples; e++) {
        char graph[1024], dir[1024];
        example_path(examples[e], graph, sizeof graph);
        snprintf(dir, sizeof dir, "%s/make/%s", base, examples[e]);
        for (int r = 0; r < N_RUNS; r++) {
            char rd[1100];
            snprintf(rd, sizeof rd, "%s/run%d", dir, r);
            mkdirs(rd);
            char *argv[] = {(char *)self, "--make", graph, NULL};
            if (run_in(rd, r, "make", argv) != 0)
                fail_msg("%s: --make failed; see %s/make.stderr", examples[e], rd);
        }
        size_t n = compare_runs(dir);
        print_message("%s: pack and printers: %zu files identical over %d runs\n",
                      examples[e], n, N_RUNS);
    }
}

static void test_dump(void **state)
{
    (void)state;
    static const char *const modes[][4] = {
        {"text", "--format", "text", NULL},   {"json", "--format", "json", NULL},
        {"dot", "--format", "dot", NULL},     {"summary", "--summary", NULL, NULL},
        {"summary_json", "--summary", "--format=json", NULL},
        {"verify", "--verify", NULL, NULL},
    };
    for (int e = 0; e < n_examples; e++) {
        char graph[1024];
        example_path(examples[e], graph, sizeof graph);
        for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
            char dir[1024];
            snprintf(dir, sizeof dir, "%s/dump/%s/%s", base, examples[e], modes[m][0]);
            for (int r = 0; r < N_RUNS; r++) {
                char rd[1100];
                snprintf(rd, sizeof rd, "%s/run%d", dir, r);
                mkdirs(rd);
                char *argv[8];
                int k = 0;
                argv[k++] = (char *)dump_tool;
                argv[k++] = graph;
                for (int i = 1; i < 4 && modes[m][i]; i++)
                    argv[k++] = (char *)modes[m][i];
                argv[k++] = "-o";
                argv[k++] = "out";
                argv[k] = NULL;
                run_in(rd, r, "dump", argv);
            }
            compare_runs(dir);
        }
        print_message("%s: taskir-dump outputs identical over %d runs\n", examples[e], N_RUNS);
    }
}

/* Writes a fixed .npy input for every INPUT block of the graph into dir; fills args with
 * "--input" "ID=dir/inK.npy" pairs. Returns how many arguments it added. */
static int make_inputs(const char *graph, const char *dir, char **args, int max)
{
    Diag d;
    diag_init(&d, graph);
    Graph *g = NULL;
    Mapping *m = NULL; /* a Mapping example: the inputs of its graph */
    if (mapping_path_looks_like(graph)) {
        assert_int_equal(mapping_load_pb(graph, &m, &d), ST_OK);
        g = m->graph;
    } else {
        assert_int_equal(graph_load_pb(graph, &g, &d), ST_OK);
    }
    int k = 0;
    uint32_t seed = 12345;
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        const Block *b = g->blocks[i];
        if (b->type != BT_INPUT)
            continue;
        static const int order[4] = {D_Y, D_X, D_F, D_R};
        int64_t shape[4];
        uint32_t nd = 0;
        int64_t count = 1;
        for (int j = 0; j < 4; j++)
            if (b->shape.d[order[j]] > 0) {
                shape[nd++] = b->shape.d[order[j]];
                count *= b->shape.d[order[j]];
            }
        const PrecisionInfo *pi = pr_info(blk_prec(b));
        int64_t lo = pi->lo < -1000 ? -1000 : pi->lo, hi = pi->hi > 1000 ? 1000 : pi->hi;
        int32_t *v = malloc((size_t)count * sizeof *v);
        assert_non_null(v);
        for (int64_t j = 0; j < count; j++) {
            seed = seed * 1103515245u + 12345u;
            v[j] = (int32_t)(lo + (int64_t)((seed >> 8) % (uint32_t)(hi - lo + 1)));
        }
        char p[1200];
        snprintf(p, sizeof p, "%s/in%d.npy", dir, (int)b->socket_id);
        assert_int_equal(npy_write_i32(p, v, shape, nd, &d), ST_OK);
        free(v);
        assert_true(k + 2 <= max);
        args[k++] = strdup("--input");
        char arg[1300];
        snprintf(arg, sizeof arg, "%d=%s", (int)b->socket_id, p);
        args[k++] = strdup(arg);
        assert_true(args[k - 2] && args[k - 1]);
    }
    if (m)
        mapping_destroy(m);
    else
        graph_destroy(g);
    diag_finish(&d);
    return k;
}

static void test_run(void **state)
{
    (void)state;
    for (int e = 0; e < n_examples; e++) {
        char graph[1024], dir[1024], indir[1100];
        example_path(examples[e], graph, sizeof graph);
        snprintf(dir, sizeof dir, "%s/run/%s", base, examples[e]);
        snprintf(indir, sizeof indir, "%s/inputs", dir);
        mkdirs(indir);
        char *inputs[64];
        int ni = make_inputs(graph, indir, inputs, 64);
        for (int r = 0; r < N_RUNS; r++) {
            char rd[1100];
            snprintf(rd, sizeof rd, "%s/runs/run%d", dir, r);
            mkdirs(rd);
            char *argv[80];
            int k = 0;
            argv[k++] = (char *)run_tool;
            argv[k++] = graph;
            for (int i = 0; i < ni; i++)
                argv[k++] = inputs[i];
            argv[k++] = "-o";
            argv[k++] = "out";
            argv[k++] = "--dump-all";
            if (r == N_RUNS - 1) {
                argv[k++] = "--threads";
                argv[k++] = "2";
            }
            argv[k] = NULL;
            run_in(rd, r, "run", argv);
        }
        char runs[1100];
        snprintf(runs, sizeof runs, "%s/runs", dir);
        size_t n = compare_runs(runs);
        print_message("%s: taskir-run: %zu files identical over %d runs\n", examples[e], n,
                      N_RUNS);
        for (int i = 0; i < ni; i++)
            free(inputs[i]);
    }
}

static void test_cvm(void **state)
{
    (void)state;
    const char *b = getenv("TASKIR_BUILDDIR");
    if (!b || !*b)
        fail_msg("TASKIR_BUILDDIR is not set (run through meson test)");
    for (int e = 0; e < n_cvm_examples; e++) {
        const char *name = cvm_examples[e];
        char json[1024], params[1024], input[1024], in_arg[1100], dir[1024];
        snprintf(json, sizeof json, "%s/examples/cvm/%s.json", b, name);
        snprintf(params, sizeof params, "%s/examples/cvm/%s.params", b, name);
        snprintf(input, sizeof input, "%s/examples/cvm/%s.input.npy", b, name);
        snprintf(in_arg, sizeof in_arg, "data=%s", input);
        snprintf(dir, sizeof dir, "%s/cvm/%s", base, name);
        int compiled = 0;
        for (int r = 0; r < N_RUNS; r++) {
            char rd[1100];
            snprintf(rd, sizeof rd, "%s/run%d", dir, r);
            mkdirs(rd);
            char *make[] = {(char *)self, "--make-cvm", json, params, NULL};
            run_in(rd, r, "make", make);
            char *model[] = {(char *)run_tool, json, "--params", params, "--input", in_arg,
                             "-o", "model_out", NULL};
            run_in(rd, r, "run_model", model);
            if (!compile_tool)
                continue;
            char *comp[] = {(char *)compile_tool, json, "--params", params, "-o",
                            "compiled.pb", NULL};
            if (run_in(rd, r, "compile", comp) != 0)
                continue;
            compiled += r == 0;
            static const char *const fmts[][3] = {
                {"dump_text", "--format", "text"},
                {"dump_json", "--format", "json"},
                {"dump_summary", "--summary", NULL},
            };
            for (size_t f = 0; f < sizeof fmts / sizeof fmts[0]; f++) {
                char out[64];
                snprintf(out, sizeof out, "%s.out", fmts[f][0]);
                char *dump[] = {(char *)dump_tool, "compiled.pb", (char *)fmts[f][1],
                                (char *)fmts[f][2], "-o", out, NULL};
                if (!fmts[f][2]) {
                    dump[2] = (char *)fmts[f][1];
                    dump[3] = "-o";
                    dump[4] = out;
                    dump[5] = NULL;
                }
                run_in(rd, r, fmts[f][0], dump);
            }
            char *run[] = {(char *)run_tool, "compiled.pb", "--input", in_arg, "-o",
                           "graph_out", NULL};
            run_in(rd, r, "run_graph", run);
        }
        size_t n = compare_runs(dir);
        print_message("%s (cvm): %zu files identical over %d runs (%s)\n", name, n, N_RUNS,
                      !compile_tool ? "no taskir-compile in this build"
                      : compiled ? "compiled" : "taskir-compile refused it, identically");
    }
}

static int setup(void **state)
{
    (void)state;
    base = tt_tmpdir_make("taskir-determinism-");
    if (!base)
        return -1;
    /* the other locale: one with a decimal comma when the machine has it */
    alt_locale = setlocale(LC_ALL, "de_DE.UTF-8") ? "de_DE.UTF-8" : "POSIX";
    setlocale(LC_ALL, "C");
    print_message("runs 0, 1: LC_ALL=C.UTF-8 TZ=UTC; run 2: LC_ALL=%s TZ=Asia/Shanghai\n",
                  alt_locale);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    if (!getenv("TASKIR_KEEP_TMP"))
        tt_tmpdir_remove();
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--make") == 0)
        return make_artifacts(argv[2]);
    if (argc == 4 && strcmp(argv[1], "--make-cvm") == 0)
        return make_cvm(argv[2], argv[3]);
    if (argc < 5) {
        fprintf(stderr, "usage: test_determinism TASKIR-DUMP TASKIR-RUN TASKIR-COMPILE|- "
                        "EXAMPLE|cvm:EXAMPLE...\n");
        return 2;
    }
    /* the runs change directory: programs are named by absolute paths */
    static char me[4096], dt[4096], rt[4096], ct[4096];
    if (!tt_absolute(argv[0], me, sizeof me) || !tt_absolute(argv[1], dt, sizeof dt) ||
        !tt_absolute(argv[2], rt, sizeof rt) || !tt_absolute(argv[3], ct, sizeof ct)) {
        perror("getcwd");
        return 2;
    }
    self = me;
    dump_tool = dt;
    run_tool = rt;
    compile_tool = strcmp(argv[3], "-") ? ct : NULL;
    for (int i = 4; i < argc; i++) {
        if (strncmp(argv[i], "cvm:", 4) == 0 && n_cvm_examples < 64)
            cvm_examples[n_cvm_examples++] = argv[i] + 4;
        else if (n_examples < 64)
            examples[n_examples++] = argv[i];
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pack_and_print),
        cmocka_unit_test(test_dump),
        cmocka_unit_test(test_run),
        cmocka_unit_test(test_cvm),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
