/* test_regress.c: replays every input the fuzzers ever broke a reader with, without libFuzzer.
 *
 * Each file in tests/robust/crashers/<target>/ goes through the same body as the fuzz target
 * <target> (fuzz/fuzz_one.c): the reader, its consumers and its round trip. A file passes when
 * the body reports a clean result (accepted, or rejected as a logic error with a rule id); the
 * sanitizer build (CI's build-asan) catches the memory errors the original crash was. The
 * example TaskGraphs (and Mappings, <builddir>/examples/NAME.map.pb, through fuzz_mapping's
 * body) must be accepted through the same path, so the harness itself is tested.
 *
 * Also a triage tool: `test_regress TARGET FILE...` prints each file's result and exits 1 when
 * one is broken (TARGET: fuzz_taskgraph, fuzz_mapping, fuzz_npy, fuzz_cvm, fuzz_onnx,
 * fuzz_cinn_xml, fuzz_chip, fuzz_compile or fuzz_compile_onnx). The default chip description
 * (examples/chips/tianjicx.xml) must be accepted by fuzz_chip's body. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <dirent.h>

#include "fuzz_one.h"
#include "taskir/fileio.h"

typedef FzResult (*FzBody)(FzCtx *, const uint8_t *, size_t);

static const struct {
    const char *name;
    FzBody body;
} targets[] = {
    {"fuzz_taskgraph", fz_taskgraph},
    {"fuzz_mapping", fz_mapping},
    {"fuzz_npy", fz_npy},
    {"fuzz_cvm", fz_cvm},
    {"fuzz_onnx", fz_onnx},
    {"fuzz_cinn_xml", fz_cinn_xml},
    {"fuzz_chip", fz_chip},
    {"fuzz_compile", fz_compile},
    {"fuzz_compile_onnx", fz_compile_onnx},
};

static FzBody body_of(const char *name)
{
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
        if (strcmp(targets[i].name, name) == 0)
            return targets[i].body;
    return NULL;
}

static const char *result_name(FzResult r)
{
    return r == FZ_ACCEPTED ? "accepted" : r == FZ_REJECTED ? "rejected" : "BROKEN";
}

/* Runs one file through a body; *why gets the reason when broken. */
static FzResult run_file(FzBody body, const char *path, char *why, size_t why_len)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    Diag d;
    diag_init(&d, path);
    Status st = tir_read_file(path, TIR_MAX_FILE_BYTES, &buf, &len, &d);
    diag_finish(&d);
    if (st != ST_OK) {
        snprintf(why, why_len, "cannot read the file");
        return FZ_BROKEN;
    }
    FzCtx c;
    memset(&c, 0, sizeof c);
    c.sink = fopen("/dev/null", "w");
    if (!c.sink) {
        free(buf);
        snprintf(why, why_len, "cannot open /dev/null");
        return FZ_BROKEN;
    }
    /* a copy of exactly len bytes, so ASan sees any read past the input */
    uint8_t *exact = malloc(len ? len : 1);
    if (exact && len)
        memcpy(exact, buf, len);
    free(buf);
    FzResult r = exact ? body(&c, exact, len) : FZ_BROKEN;
    fclose(c.sink);
    free(exact);
    snprintf(why, why_len, "%s", r == FZ_BROKEN ? (c.why[0] ? c.why : "out of memory") : "");
    return r;
}

static const char *env_dir(const char *var)
{
    const char *v = getenv(var);
    if (!v || !*v)
        fail_msg("%s is not set (run through meson test)", var);
    return v;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs every regular file of dir (sorted, dot files and README skipped) through body; fails
 * on the first broken one. Returns how many ran; *accepted counts the accepted ones. With
 * suffix ".pb" the Mappings (".map.pb") are left out: they are not TaskGraphs. */
static size_t run_dir(FzBody body, const char *dir, const char *suffix, size_t *accepted)
{
    DIR *dp = opendir(dir);
    if (!dp)
        fail_msg("cannot open %s", dir);
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(dp))) {
        size_t l = strlen(e->d_name);
        if (e->d_name[0] == '.' || strcmp(e->d_name, "README") == 0 ||
            (suffix && (l < strlen(suffix) || strcmp(e->d_name + l - strlen(suffix), suffix))) ||
            (suffix && strcmp(suffix, ".pb") == 0 && l > 7 &&
             strcmp(e->d_name + l - 7, ".map.pb") == 0))
            continue;
        names = realloc(names, (n + 1) * sizeof *names);
        assert_non_null(names);
        names[n] = strdup(e->d_name);
        assert_non_null(names[n]);
        n++;
    }
    closedir(dp);
    if (n > 1)
        qsort(names, n, sizeof *names, cmp_names);
    *accepted = 0;
    for (size_t i = 0; i < n; i++) {
        char path[4096], why[512];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        FzResult r = run_file(body, path, why, sizeof why);
        if (r == FZ_BROKEN)
            fail_msg("%s: %s", path, why);
        if (r == FZ_ACCEPTED)
            ++*accepted;
        free(names[i]);
    }
    free(names);
    return n;
}

static void crashers(const char *target)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/robust/crashers/%s", env_dir("TASKIR_SRCDIR"), target);
    size_t accepted;
    size_t n = run_dir(body_of(target), dir, NULL, &accepted);
    print_message("%s: %zu crasher(s) replayed cleanly (%zu accepted)\n", target, n, accepted);
}

static void test_crashers_taskgraph(void **state)
{
    (void)state;
    crashers("fuzz_taskgraph");
}

static void test_crashers_mapping(void **state)
{
    (void)state;
    crashers("fuzz_mapping");
}

static void test_crashers_npy(void **state)
{
    (void)state;
    crashers("fuzz_npy");
}

static void test_crashers_cvm(void **state)
{
    (void)state;
    crashers("fuzz_cvm");
}

/* fuzz_compile's findings, and the CVM readers' ones (the same framing) through the compiler */
static void test_crashers_compile(void **state)
{
    (void)state;
    crashers("fuzz_compile");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/robust/crashers/fuzz_cvm", env_dir("TASKIR_SRCDIR"));
    size_t accepted;
    size_t n = run_dir(fz_compile, dir, NULL, &accepted);
    print_message("fuzz_cvm crashers through the compiler: %zu replayed cleanly\n", n);
    crashers("fuzz_compile_onnx");
    snprintf(dir, sizeof dir, "%s/tests/robust/crashers/fuzz_onnx", env_dir("TASKIR_SRCDIR"));
    n = run_dir(fz_compile_onnx, dir, NULL, &accepted);
    print_message("fuzz_onnx crashers through the compiler: %zu replayed cleanly\n", n);
}

static void test_crashers_onnx(void **state)
{
    (void)state;
    crashers("fuzz_onnx");
}

static void test_crashers_cinn_xml(void **state)
{
    (void)state;
    crashers("fuzz_cinn_xml");
}

static void test_crashers_chip(void **state)
{
    (void)state;
    crashers("fuzz_chip");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/examples/chips", env_dir("TASKIR_SRCDIR"));
    size_t accepted;
    size_t n = run_dir(fz_chip, dir, ".xml", &accepted);
    assert_true(n > 0);
    assert_int_equal(accepted, n);
}

/* The example graphs are valid: the taskgraph body must accept every one (verifier passing,
 * printers and round trip included). */
static void test_examples_accepted(void **state)
{
    (void)state;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/examples", env_dir("TASKIR_BUILDDIR"));
    size_t accepted;
    size_t n = run_dir(fz_taskgraph, dir, ".pb", &accepted);
    assert_true(n >= 2);
    assert_int_equal(accepted, n);
}

/* The example Mappings are valid: the mapping body must accept every one. */
static void test_map_examples_accepted(void **state)
{
    (void)state;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/examples", env_dir("TASKIR_BUILDDIR"));
    size_t accepted;
    size_t n = run_dir(fz_mapping, dir, ".map.pb", &accepted);
    assert_true(n >= 1);
    assert_int_equal(accepted, n);
}

/* The CVM example models (JSON, NUL, params: fuzz_cvm's framing) and their .npy inputs and
 * outputs are valid: the cvm and npy bodies must accept every one. */
static void test_cvm_examples_accepted(void **state)
{
    (void)state;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/examples/cvm", env_dir("TASKIR_BUILDDIR"));
    DIR *dp = opendir(dir);
    if (!dp)
        skip(); /* a build without the CVM examples */
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(dp))) {
        size_t l = strlen(e->d_name);
        if (l < 6 || strcmp(e->d_name + l - 5, ".json") != 0)
            continue;
        char jp[4200], pp[4200];
        snprintf(jp, sizeof jp, "%s/%s", dir, e->d_name);
        snprintf(pp, sizeof pp, "%s/%.*s.params", dir, (int)(l - 5), e->d_name);
        uint8_t *j = NULL, *p = NULL;
        size_t jl = 0, pl = 0;
        Diag d;
        diag_init(&d, jp);
        assert_int_equal(tir_read_file(jp, TIR_MAX_FILE_BYTES, &j, &jl, &d), ST_OK);
        assert_int_equal(tir_read_file(pp, TIR_MAX_FILE_BYTES, &p, &pl, &d), ST_OK);
        diag_finish(&d);
        uint8_t *in = malloc(jl + 1 + pl);
        assert_non_null(in);
        memcpy(in, j, jl);
        in[jl] = 0;
        memcpy(in + jl + 1, p, pl);
        FzCtx c;
        memset(&c, 0, sizeof c);
        FzResult r = fz_cvm(&c, in, jl + 1 + pl);
        if (r != FZ_ACCEPTED)
            fail_msg("%s: %s%s", jp, result_name(r), r == FZ_BROKEN ? c.why : "");
        /* the compile body lowers it and compares the interpreter with the simulator */
        r = fz_compile(&c, in, jl + 1 + pl);
        if (r != FZ_ACCEPTED)
            fail_msg("%s (compile): %s%s", jp, result_name(r), r == FZ_BROKEN ? c.why : "");
        free(in);
        free(j);
        free(p);
        n++;
    }
    closedir(dp);
    assert_true(n > 0);
    size_t accepted;
    size_t m = run_dir(fz_npy, dir, ".npy", &accepted);
    assert_true(m > 0);
    assert_int_equal(accepted, m);
    print_message("%zu CVM models and %zu .npy files accepted\n", n, m);
}

/* The ONNX example models compile, and the interpreter and the simulator agree on them. */
static void test_onnx_examples_compiled(void **state)
{
    (void)state;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/examples", env_dir("TASKIR_BUILDDIR"));
    size_t accepted;
    size_t n = run_dir(fz_compile_onnx, dir, ".onnx", &accepted);
    if (n == 0)
        skip(); /* a build without the ONNX examples */
    assert_int_equal(accepted, n);
    print_message("%zu ONNX models compiled and compared\n", n);
}

/* The harness can fail: a body that sees a round-trip mismatch or a bad rejection says so.
 * Truncations of an example graph are each accepted or cleanly rejected. */
static void test_truncations(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/examples/lenet.pb", env_dir("TASKIR_BUILDDIR"));
    uint8_t *buf;
    size_t len;
    Diag d;
    diag_init(&d, path);
    assert_int_equal(tir_read_file(path, TIR_MAX_FILE_BYTES, &buf, &len, &d), ST_OK);
    diag_finish(&d);
    FzCtx c;
    memset(&c, 0, sizeof c);
    size_t rejected = 0;
    for (size_t n = 0; n < len; n += 1 + n / 16) {
        uint8_t *p = malloc(n ? n : 1);
        assert_non_null(p);
        memcpy(p, buf, n);
        FzResult r = fz_taskgraph(&c, p, n);
        free(p);
        if (r == FZ_BROKEN)
            fail_msg("lenet.pb cut to %zu bytes: %s", n, c.why);
        rejected += r == FZ_REJECTED;
    }
    free(buf);
    assert_true(rejected > 0);
}

static int triage(int argc, char **argv)
{
    FzBody body = body_of(argv[1]);
    if (!body) {
        fprintf(stderr, "usage: test_regress [fuzz_taskgraph|fuzz_mapping|fuzz_npy|fuzz_cvm|"
                        "fuzz_onnx|"
                        "fuzz_cinn_xml|fuzz_chip|fuzz_compile|fuzz_compile_onnx FILE...]\n");
        return 2;
    }
    int rc = 0;
    for (int i = 2; i < argc; i++) {
        char why[512];
        FzResult r = run_file(body, argv[i], why, sizeof why);
        printf("%s: %s%s%s\n", argv[i], result_name(r), why[0] ? ": " : "", why);
        if (r == FZ_BROKEN)
            rc = 1;
    }
    return rc;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        return triage(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crashers_taskgraph),
        cmocka_unit_test(test_crashers_mapping),
        cmocka_unit_test(test_crashers_npy),
        cmocka_unit_test(test_crashers_cvm),
        cmocka_unit_test(test_crashers_onnx),
        cmocka_unit_test(test_crashers_cinn_xml),
        cmocka_unit_test(test_crashers_chip),
        cmocka_unit_test(test_crashers_compile),
        cmocka_unit_test(test_examples_accepted),
        cmocka_unit_test(test_map_examples_accepted),
        cmocka_unit_test(test_cvm_examples_accepted),
        cmocka_unit_test(test_onnx_examples_compiled),
        cmocka_unit_test(test_truncations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
