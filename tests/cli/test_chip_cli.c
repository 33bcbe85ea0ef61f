/* test_chip_cli.c: taskir-dump on chip descriptions (docs/chip.md), run as a user runs it.
 *
 * Golden files (tests/cli/golden/, README there): the summary of examples/chips/tianjicx.xml,
 * run in examples/chips so that messages name "tianjicx.xml":
 *   tianjicx.chip.txt    taskir-dump tianjicx.xml (and --summary: the same)
 *   tianjicx.chip.json   ... --format json
 * TASKIR_UPDATE_GOLDEN=1 rewrites them instead of comparing.
 *
 * Arguments (tests/cli/meson.build): the taskir-dump binary and the example lenet.pb. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <unistd.h>

#include "tooltest.h"

static const char *dump_tool, *lenet_pb;
static char chips_dir[4096];
static const TtOpts in_chips = {.cwd = chips_dir};

static void dump(TtRun *r, const TtOpts *o, ...)
{
    va_list ap;
    va_start(ap, o);
    tt_run_va(r, o, dump_tool, ap);
    va_end(ap);
    assert_true(r->status != 126 && r->status != 127);
}

/* A copy of the default description with the first from replaced by to, in the scratch
 * directory as name; returns its path in buf. */
static const char *broken(char *buf, size_t size, const char *name, const char *from,
                          const char *to)
{
    char src[4096];
    tt_join(src, sizeof src, chips_dir, "tianjicx.xml");
    size_t n;
    char *x = tt_slurp_or_fail(src, &n);
    char *at = strstr(x, from);
    assert_non_null(at);
    size_t lf = strlen(from), lt = strlen(to);
    char *y = malloc(n - lf + lt + 1);
    assert_non_null(y);
    memcpy(y, x, (size_t)(at - x));
    memcpy(y + (at - x), to, lt);
    memcpy(y + (at - x) + lt, at + lf, n - (size_t)(at - x) - lf);
    tt_path(buf, size, name);
    tt_write_file(buf, y, n - lf + lt);
    free(x);
    free(y);
    return buf;
}

static void test_summary_golden(void **state)
{
    (void)state;
    TtRun r;
    dump(&r, &in_chips, "tianjicx.xml", NULL);
    if (r.status != 0)
        fail_msg("exit %d: %s", r.status, r.err);
    assert_int_equal(r.err_len, 0);
    tt_golden("tests/cli/golden", "tianjicx.chip.txt", r.out, r.out_len);
    TtRun s;
    dump(&s, &in_chips, "tianjicx.xml", "--summary", NULL);
    assert_int_equal(s.status, 0);
    assert_int_equal(s.out_len, r.out_len); /* the summary is the dump */
    assert_memory_equal(s.out, r.out, r.out_len);
    tt_run_free(&s);
    tt_run_free(&r);
    dump(&r, &in_chips, "tianjicx.xml", "--format", "json", NULL);
    assert_int_equal(r.status, 0);
    tt_golden("tests/cli/golden", "tianjicx.chip.json", r.out, r.out_len);
    json_object *j = json_tokener_parse(r.out);
    assert_non_null(j);
    json_object *prims, *arr, *cores;
    assert_true(json_object_object_get_ex(j, "primitives", &prims));
    assert_int_equal(json_object_array_length(prims), 14);
    assert_true(json_object_object_get_ex(j, "array", &arr));
    assert_true(json_object_object_get_ex(arr, "cores", &cores));
    assert_int_equal(json_object_get_int(cores), 160);
    json_object_put(j);
    tt_run_free(&r);
}

/* Told by its text, whatever its name; --input-format chip says so outright. */
static void test_detection(void **state)
{
    (void)state;
    char path[4096], src[4096];
    tt_join(src, sizeof src, chips_dir, "tianjicx.xml");
    size_t n;
    char *x = tt_slurp_or_fail(src, &n);
    tt_write_file(tt_path(path, sizeof path, "chip.map.pb"), x, n);
    free(x);
    TtRun r, s;
    dump(&r, NULL, path, NULL);
    dump(&s, &in_chips, "tianjicx.xml", NULL);
    assert_int_equal(r.status, 0);
    assert_int_equal(r.out_len, s.out_len);
    tt_run_free(&r);
    dump(&r, NULL, path, "--input-format", "chip", "--verify", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "chip.map.pb: ok (chip TianjicX: 160 cores, 14 primitives)\n"));
    tt_run_free(&r);
    tt_run_free(&s);
    /* a TaskGraph read as a chip description is not XML */
    dump(&r, NULL, lenet_pb, "--input-format", "chip", NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "[chip.xml.parse]"));
    tt_run_free(&r);
}

static void test_verify(void **state)
{
    (void)state;
    TtRun r;
    dump(&r, &in_chips, "tianjicx.xml", "--verify", NULL);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "tianjicx.xml: ok (chip TianjicX: 160 cores, 14 primitives)\n");
    tt_run_free(&r);
    dump(&r, &in_chips, "tianjicx.xml", "--verify", "--format", "json", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"ok\": true"));
    tt_run_free(&r);
    /* with --format text or --summary the summary follows, the ok line on standard error */
    static const char *const follow[][2] = {{"--format", "text"}, {"--summary", NULL}};
    for (int i = 0; i < 2; i++) {
        dump(&r, &in_chips, "tianjicx.xml", "--verify", follow[i][0], follow[i][1], NULL);
        assert_int_equal(r.status, 0);
        assert_string_equal(r.err, "tianjicx.xml: ok (chip TianjicX: 160 cores, 14 "
                            "primitives)\n");
        assert_true(strncmp(r.out, "chip TianjicX\n", 14) == 0);
        tt_run_free(&r);
    }
}

static void test_errors(void **state)
{
    (void)state;
    char path[4096];
    TtOpts in_tmp = {.cwd = tt_tmpdir()};
    broken(path, sizeof path, "chip.xml", "<cores x=\"16\" y=\"10\"/>", "<cores x=\"16\"/>");
    TtRun r;
    dump(&r, &in_tmp, "chip.xml", NULL);
    assert_int_equal(r.status, 2);
    assert_string_equal(r.err, "taskir-dump: chip.xml: line 12: Element 'cores': The attribute "
                        "'y' is required but missing. [chip.xsd]\n");
    assert_int_equal(r.out_len, 0);
    tt_run_free(&r);
    /* every rule reported, each at its line; as JSON findings too */
    broken(path, sizeof path, "chip2.xml", "budget=\"128KiB\"", "budget=\"140KiB\"");
    dump(&r, &in_tmp, "chip2.xml", "--verify", NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "taskir-dump: chip2.xml: line 15: the budget of 143360 bytes"));
    assert_non_null(strstr(r.err, "[chip.memory.budget]\n"));
    tt_run_free(&r);
    dump(&r, &in_tmp, "chip2.xml", "--verify", "--format", "json", NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.out, "\"rule\": \"chip.memory.budget\""));
    assert_int_equal(r.err_len, 0);
    tt_run_free(&r);
    /* a failed run leaves no output file */
    dump(&r, &in_tmp, "chip2.xml", "-o", "out.txt", NULL);
    assert_int_equal(r.status, 2);
    assert_int_not_equal(access("out.txt", F_OK), 0);
    tt_run_free(&r);
    /* what a chip description cannot print: usage errors */
    static const char *const bad[][3] = {{"--format", "dot", NULL},
                                         {"--block", "1", NULL},
                                         {"--format", "json", "--full-data"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        dump(&r, &in_chips, "tianjicx.xml", bad[i][0], bad[i][1], bad[i][2], NULL);
        assert_int_equal(r.status, 1);
        assert_int_equal(r.out_len, 0);
        tt_run_free(&r);
    }
    dump(&r, &in_chips, "tianjicx.xml", "--input-format", "board", NULL);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "graph, mapping, chip or asm"));
    tt_run_free(&r);
}

/* taskir-dump MAP.pb --verify checks the chip rules on the built-in chip, or on --chip FILE
 * (core 0,0 of the example LeNet Mapping holds 24032 bytes in phase 0: test_map_chip.c) */
static void test_verify_mapping_on_chip(void **state)
{
    (void)state;
    const char *bdir = getenv("TASKIR_BUILDDIR");
    assert_non_null(bdir);
    char map[4096], path[4096];
    tt_join(map, sizeof map, bdir, "examples/lenet.map.pb");
    TtOpts in_tmp = {.cwd = tt_tmpdir()};
    TtRun r;
    dump(&r, &in_tmp, map, "--verify", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, ": ok (25 blocks, 24 edges, 23 node dicts, 5 edge dicts)"));
    tt_run_free(&r);
    broken(path, sizeof path, "small.xml", "budget=\"128KiB\"", "budget=\"24031\"");
    dump(&r, &in_tmp, map, "--verify", "--chip", "small.xml", NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "block 6 (SI 'conv1/out'): chip_array 0,0 chip 0,0 core 0,0 "
                                  "step 0 holds 24032 bytes in phase 0 (this block 18432 of "
                                  "them), more than the 24031 bytes of a core's budget "
                                  "[map.mem.core]\n"));
    tt_run_free(&r);
    broken(path, sizeof path, "fits.xml", "budget=\"128KiB\"", "budget=\"24032\"");
    dump(&r, &in_tmp, map, "--verify", "--chip", "fits.xml", NULL);
    assert_int_equal(r.status, 0);
    tt_run_free(&r);
    /* a bad chip description is its own error, naming its file */
    broken(path, sizeof path, "bad.xml", "<cores x=\"16\" y=\"10\"/>", "<cores x=\"16\"/>");
    dump(&r, &in_tmp, map, "--verify", "--chip", "bad.xml", NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "taskir-dump: bad.xml: line 12: "));
    tt_run_free(&r);
    dump(&r, &in_tmp, map, "--verify", "--chip", "missing.xml", NULL);
    assert_int_equal(r.status, 3);
    tt_run_free(&r);
    /* --chip without --verify, or twice: usage errors */
    dump(&r, &in_tmp, map, "--chip", "fits.xml", NULL);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "--chip is for --verify on a Mapping [usage.args]"));
    tt_run_free(&r);
    dump(&r, &in_tmp, map, "--verify", "--chip", "fits.xml", "--chip", "fits.xml", NULL);
    assert_int_equal(r.status, 1);
    tt_run_free(&r);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_chip_cli TASKIR-DUMP LENET.pb\n");
        return 1;
    }
    static char tool_abs[4096], lenet_abs[4096]; /* the tests run it in other folders */
    if (!tt_absolute(argv[1], tool_abs, sizeof tool_abs) ||
        !tt_absolute(argv[2], lenet_abs, sizeof lenet_abs))
        return 1;
    dump_tool = tool_abs;
    lenet_pb = lenet_abs;
    const char *src = getenv("TASKIR_SRCDIR");
    if (!src) {
        fprintf(stderr, "TASKIR_SRCDIR is not set (run through meson test)\n");
        return 1;
    }
    snprintf(chips_dir, sizeof chips_dir, "%s/examples/chips", src);
    if (!tt_tmpdir_make("test_chip_cli."))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary_golden),
        cmocka_unit_test(test_detection),
        cmocka_unit_test(test_verify),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_verify_mapping_on_chip),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    tt_tmpdir_remove();
    return rc;
}
