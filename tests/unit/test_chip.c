/* test_chip.c: reading chip descriptions (taskir/chip.c, chip_check.c, xmlread.c): the
 * built-in default and examples/chips/tianjicx.xml agree byte for byte and load to the facts
 * of docs/chip.md; the schema's defaults fill the optional attributes; every rule of
 * docs/chip.md "Rules" is reported, at the line of the element it is about, on a copy of the
 * default with one edit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "taskir/chip.h"
#include "taskir/fileio.h"

#define NAME "chip.xml"

/* The default text with the first occurrence of from replaced by to; *line gets the line
 * of that occurrence. */
static char *edited(const char *from, const char *to, long *line)
{
    size_t n;
    const char *x = chip_default_xml(&n);
    const char *at = strstr(x, from);
    assert_non_null(at);
    if (line) {
        *line = 1;
        for (const char *p = x; p < at; p++)
            *line += *p == '\n';
    }
    size_t lf = strlen(from), lt = strlen(to);
    char *out = malloc(n - lf + lt + 1);
    assert_non_null(out);
    memcpy(out, x, (size_t)(at - x));
    memcpy(out + (at - x), to, lt);
    memcpy(out + (at - x) + lt, at + lf, n - (size_t)(at - x) - lf + 1);
    return out;
}

/* Loads the default with one edit and expects a logic error with rule at the edit's line
 * (line_delta lines further; -1: no line). */
static void expect_rule(const char *from, const char *to, const char *rule, long line_delta)
{
    long line;
    char *x = edited(from, to, &line);
    Diag d;
    diag_init(&d, NAME);
    Chip *c = (Chip *)1;
    Status st = chip_load_mem(x, strlen(x), NAME, &c, &d);
    if (st != ST_LOGIC || diag_find(&d, rule) < 0)
        diag_print(&d, stderr, "test_chip");
    assert_int_equal(st, ST_LOGIC);
    assert_null(c);
    long i = diag_find(&d, rule);
    assert_true(i >= 0);
    if (line_delta >= 0) {
        char where[32];
        snprintf(where, sizeof where, "line %ld", line + line_delta);
        if (strcmp(d.entries[i].where, where) != 0)
            fprintf(stderr, "%s: where '%s', expected '%s'\n", rule, d.entries[i].where, where);
        assert_string_equal(d.entries[i].where, where);
    }
    diag_finish(&d);
    free(x);
}

static Chip *load_default(void)
{
    Diag d;
    diag_init(&d, NULL);
    Chip *c = NULL;
    Status st = chip_load_default(&c, &d);
    diag_print(&d, stderr, "test_chip");
    assert_int_equal(st, ST_OK);
    assert_int_equal(d.n, 0);
    diag_finish(&d);
    return c;
}

static void test_default_facts(void **state)
{
    (void)state;
    Chip *c = load_default();
    assert_string_equal(c->name, "TianjicX");
    assert_int_equal(c->cores_x, 16);
    assert_int_equal(c->cores_y, 10);
    assert_int_equal(chip_total_cores(c), 160);
    assert_int_equal(c->n_banks, 4);
    assert_string_equal(c->banks[2].name, "MEM2");
    assert_int_equal(c->banks[2].base_word, 0x8000);
    assert_int_equal(c->banks[2].words, 0x1000);
    assert_int_equal(c->banks[2].role, CHIP_BANK_PRIM | CHIP_BANK_HEADERS | CHIP_BANK_RECEIVE);
    assert_int_equal(c->banks[3].role, CHIP_BANK_STREAM);
    assert_int_equal(c->n_areas, 3);
    assert_int_equal(c->areas[2].base_word, 0x8400);
    assert_int_equal(c->core_bytes, 144 * 1024);
    assert_int_equal(c->core_budget_bytes, 128 * 1024);
    assert_int_equal(chip_role_bytes(c, CHIP_BANK_RECEIVE), 12 * 1024);
    assert_int_equal(chip_role_bytes(c, CHIP_BANK_WEIGHTS), 64 * 1024);
    assert_int_equal(c->recv_bytes_per_phase, 12 * 1024);
    assert_int_equal(c->dest_bytes_per_phase, 32 * 1024);
    assert_int_equal(c->align_input, 16);
    assert_int_equal(c->align_weight, 32);
    assert_int_equal(c->align_axon_out, 128);
    assert_int_equal(c->mac_x, 4);
    assert_int_equal(c->mac_f, 32);
    assert_int_equal(c->max_phases, 32);
    assert_int_equal(c->recommended_phases, 16);
    assert_int_equal(c->max_phase_groups, 32);
    assert_int_equal(c->max_step_groups, 4);
    assert_int_equal(c->prims_per_phase, 4);
    assert_int_equal(c->packet_bytes, 8);
    assert_int_equal(c->short_packet_bytes, 1);
    assert_int_equal(c->soma_shift_bits, 2);
    assert_int_equal(c->soma_shift_max, 15);
    uint32_t k = 99;
    assert_true(chip_soma_shift(c, 0, &k));
    assert_int_equal(k, 0);
    assert_true(chip_soma_shift(c, 6, &k)); /* divides by 4^3 */
    assert_int_equal(k, 3);
    assert_true(chip_soma_shift(c, 30, NULL));
    assert_false(chip_soma_shift(c, 3, NULL)); /* odd: not one Soma shift */
    assert_false(chip_soma_shift(c, 32, NULL)); /* 16 steps: past the last */
    assert_false(chip_soma_shift(c, -2, NULL));
    assert_int_equal(c->dest_offset_bits, 12);
    assert_int_equal(c->hop_min, -128);
    assert_int_equal(c->hop_max, 127);
    assert_int_equal(c->clock_hz, 300000000);
    assert_int_equal(c->noc_bytes_per_clock, 8);
    assert_int_equal(c->n_prims, 14);
    /* every compute type has its primitive, with the TaskGraph's P-code */
    for (int t = 0; t < BT_COUNT; t++) {
        const ChipPrim *p = chip_prim_for(c, (BlockType)t);
        if (bt_info((BlockType)t)->kind == BK_COMPUTE) {
            assert_non_null(p);
            assert_int_equal(p->pcode, bt_info((BlockType)t)->pcode);
        } else {
            assert_null(p);
        }
    }
    const ChipPrim *p41 = chip_prim(c, 41);
    assert_int_equal(p41->unit, UNIT_AXON);
    assert_int_equal(p41->chan_group, 32);
    assert_int_equal(p41->x_group, 4);
    assert_int_equal(p41->in_align, 16); /* <align input>, the primitive gives none */
    assert_int_equal(p41->clock, CLK_CONV);
    assert_int_equal(p41->c0, 20);
    assert_true(p41->precs & (UINT64_C(1) << PR_INT_8));
    assert_false(p41->precs & (UINT64_C(1) << PR_INT_16));
    const ChipPrim *p02 = chip_prim(c, 2);
    assert_int_equal(p02->blocks, BTM(CADD) | BTM(CAVG));
    assert_int_equal(p02->clock, CLK_ADD); /* its first run's */
    assert_int_equal(chip_run_for(c, BT_CAVG)->clock, CLK_AVG);
    assert_int_equal(chip_run_for(c, BT_CAVG)->c0, 2);
    assert_true(chip_prim(c, 81)->pad_in_memory);
    assert_false(p41->pad_in_memory);
    assert_int_equal(chip_prim(c, 4)->r_pad, 16);
    assert_int_equal(chip_run_for(c, BT_CLUT)->c_div, 2);
    assert_int_equal(chip_run_for(c, BT_CCMPB)->c_div, 1); /* the schema's default */
    assert_int_equal(chip_prim(c, 9)->unit, UNIT_ROUTER);
    assert_int_equal(chip_prim(c, 9)->blocks, 0);
    assert_int_equal(chip_prim(c, 9)->clock, CLK_NONE);
    assert_null(chip_prim(c, 42));
    assert_int_equal(chip_prec(c, PR_INT_32)->code, 0);
    assert_int_equal(chip_prec(c, PR_TERNARY)->code, 3);
    assert_int_equal(chip_prec(c, PR_INT_8)->g_f, 32);
    assert_int_equal(chip_prec(c, PR_TERNARY)->d, 64);
    assert_null(chip_prec(c, PR_INT_16));
    chip_destroy(c);
    chip_destroy(NULL);
}

/* The embedded text is the file's, and loading the file gives the same chip. */
static void test_embedded_is_file(void **state)
{
    (void)state;
    const char *src = getenv("TASKIR_SRCDIR");
    assert_non_null(src);
    char path[4096];
    snprintf(path, sizeof path, "%s/examples/chips/tianjicx.xml", src);
    Diag d;
    diag_init(&d, path);
    uint8_t *buf = NULL;
    size_t len = 0;
    assert_int_equal(tir_read_file(path, 1 << 20, &buf, &len, &d), ST_OK);
    size_t n;
    const char *x = chip_default_xml(&n);
    assert_int_equal(len, n);
    assert_memory_equal(buf, x, n);
    assert_int_equal(x[n], 0);
    free(buf);
    Chip *c = NULL;
    assert_int_equal(chip_load(path, &c, &d), ST_OK);
    Chip *e = load_default();
    assert_int_equal(c->n_prims, e->n_prims);
    assert_memory_equal(c->prims, e->prims, c->n_prims * sizeof *c->prims);
    assert_memory_equal(c->banks, e->banks, sizeof c->banks);
    chip_destroy(c);
    chip_destroy(e);
    snprintf(path, sizeof path, "%s/taskir/chip.xsd", src);
    assert_int_equal(tir_read_file(path, 1 << 20, &buf, &len, &d), ST_OK);
    x = chip_xsd(&n);
    assert_int_equal(len, n);
    assert_memory_equal(buf, x, n);
    free(buf);
    diag_finish(&d);
}

/* Optional attributes and elements take the schema's defaults; sizes read in all three forms. */
static void test_defaults_and_sizes(void **state)
{
    (void)state;
    char *x = edited("  <parameters clock_hz=\"300000000\" noc_bytes_per_clock=\"8\"/>\n", "",
                     NULL);
    char *y = NULL;
    Diag d;
    diag_init(&d, NAME);
    Chip *c = NULL;
    assert_int_equal(chip_load_mem(x, strlen(x), NAME, &c, &d), ST_OK);
    assert_int_equal(c->clock_hz, 300000000);
    assert_int_equal(c->noc_bytes_per_clock, 8);
    chip_destroy(c);
    free(x);
    x = edited("  <soma shift_bits=\"2\" shift_max=\"15\"/>\n", "", NULL);
    assert_int_equal(chip_load_mem(x, strlen(x), NAME, &c, &d), ST_OK);
    assert_int_equal(c->soma_shift_bits, 2);
    assert_int_equal(c->soma_shift_max, 15);
    chip_destroy(c);
    free(x);
    x = edited("short_packet_bytes=\"1\" ", "", NULL);
    assert_int_equal(chip_load_mem(x, strlen(x), NAME, &c, &d), ST_OK);
    assert_int_equal(c->short_packet_bytes, 1);
    chip_destroy(c);
    free(x);
    x = edited("<array chips_x=\"1\" chips_y=\"1\"/>", "<array chips_y=\"5\"/>", NULL);
    y = strstr(x, "budget=\"128KiB\"");
    assert_non_null(y);
    memcpy(y, "budget=\"131072\"", 15);
    assert_int_equal(chip_load_mem(x, strlen(x), NAME, &c, &d), ST_OK);
    assert_int_equal(c->chips_x, 1);
    assert_int_equal(c->chips_y, 5);
    assert_int_equal(chip_total_cores(c), 800);
    assert_int_equal(c->core_budget_bytes, 131072);
    chip_destroy(c);
    free(x);
    diag_print(&d, stderr, "test_chip");
    assert_int_equal(d.n, 0);
    diag_finish(&d);
}

static void test_xml_errors(void **state)
{
    (void)state;
    /* the message's form: "line N: ... [chip.xsd]" */
    expect_rule("<cores x=\"16\" y=\"10\"/>", "<cores x=\"16\"/>", "chip.xsd", 0);
    expect_rule("<cores x=\"16\" y=\"10\"/>", "<cores x=\"16\" y=\"0\"/>", "chip.xsd", 0);
    expect_rule("<mac x=\"4\" f=\"32\"/>", "<mac x=\"4\" f=\"32\"/><bogus/>", "chip.xsd", 0);
    expect_rule("role=\"data\"/>", "role=\"code\"/>", "chip.xsd", 0);
    expect_rule("<align input=\"16\"", "<align input=\"24\"", "chip.xsd", 0);
    expect_rule("clock=\"conv\"", "clock=\"fast\"", "chip.xsd", 0);
    expect_rule("</primitives>", "</primitive>", "chip.xml.parse", 0);
    expect_rule("<chip name", "<!DOCTYPE chip [<!ENTITY a \"b\">]>\n<chip name", "chip.xml.dtd", 0);
    expect_rule("words=\"0x4000\" role=\"data\"", "words=\"9999999999\" role=\"data\"",
                "chip.range", 0);
}

static void test_rules(void **state)
{
    (void)state;
    expect_rule("base=\"0x4000\" words=\"0x4000\" role=\"data weights\"",
                "base=\"0x3000\" words=\"0x4000\" role=\"data weights\"", "chip.bank.overlap", 0);
    expect_rule("<bank name=\"MEM1\"", "<bank name=\"MEM0\"", "chip.bank.name", 0);
    expect_rule("<bank name=\"MEM3\" base=\"0x9000\" words=\"4\" role=\"stream\"/>",
                "<bank name=\"MEM3\" base=\"0x9000\" words=\"4\" role=\"data\"/>",
                "chip.bank.inside", 0);
    expect_rule("<memory bytes=\"144KiB\"", "<memory bytes=\"160KiB\"", "chip.memory.bytes", 0);
    expect_rule("budget=\"128KiB\"", "budget=\"140KiB\"", "chip.memory.budget", 0);
    expect_rule("words=\"0xC00\" role=\"receive\"", "words=\"0xD00\" role=\"receive\"",
                "chip.area.inside", 0);
    expect_rule("<area name=\"headers\" base=\"0x8300\"", "<area name=\"headers\" base=\"0x82F0\"",
                "chip.area.overlap", 0);
    expect_rule("receive_per_phase=\"12KiB\"", "receive_per_phase=\"13KiB\"",
                "chip.limit.receive", -1);
    expect_rule("destination_per_phase=\"32KiB\"", "destination_per_phase=\"64KiB\"",
                "chip.limit.destination", -1);
    expect_rule("recommended_phases=\"16\"", "recommended_phases=\"33\"", "chip.limit.phases",
                -1);
    expect_rule("hop_min=\"-128\"", "hop_min=\"0\"", "chip.router.hop", -1);
    expect_rule("short_packet_bytes=\"1\"", "short_packet_bytes=\"16\"", "chip.router.packet",
                -1);
    expect_rule("<precision name=\"UINT_8\"", "<precision name=\"UINT_7\"", "chip.prec.name", 0);
    expect_rule("<precision name=\"UINT_8\" code=\"2\"", "<precision name=\"UINT_8\" code=\"1\"",
                "chip.prec.dup", 0);
    expect_rule("precisions=\"INT_8 UINT_8\">\n      <run block=\"CVVH\"",
                "precisions=\"INT_8 INT_16\">\n      <run block=\"CVVH\"", "chip.prim.prec", 0);
    expect_rule("<run block=\"CLIF\" clock=\"lif\" c0=\"6\" c1=\"7\"/>", "", "chip.prim.cover",
                -1);
    expect_rule("<run block=\"CVS\"", "<run block=\"CC\"", "chip.prim.cover", 0);
    expect_rule("<run block=\"CVS\"", "<run block=\"CC\"", "chip.prim.pcode", 0);
    expect_rule("<run block=\"CVS\"", "<run block=\"SI\"", "chip.prim.block", 0);
    expect_rule("<primitive code=\"26\"", "<primitive code=\"6\"", "chip.prim.dup", 0);
    expect_rule("<primitive code=\"2\" unit=\"axon\"", "<primitive code=\"2\" unit=\"router\"",
                "chip.prim.unit", 0);
    expect_rule("x_group=\"4\">\n      <run block=\"CC\"", "x_group=\"8\">\n      <run block=\"CC\"",
                "chip.prim.group", -1);
    expect_rule("words=\"0x4000\" role=\"data\"/>", "words=\"0x4000\"/>", "chip.bank.role", 0);
    expect_rule("c0=\"3\" c_div=\"2\"", "c0=\"3\" c_div=\"0\"", "chip.clock", 0);
    expect_rule("<array chips_x=\"1\" chips_y=\"1\"/>",
                "<array chips_x=\"1048576\" chips_y=\"1048576\"/>", "chip.array.size", 0);
}

static void test_looks_like(void **state)
{
    (void)state;
    size_t n;
    const char *x = chip_default_xml(&n);
    assert_true(chip_looks_like((const uint8_t *)x, n));
    static const char *const yes[] = {"<chip>", "\xef\xbb\xbf  <chip name=\"a\"",
                                      "<?xml version=\"1.0\"?><!-- <program> --><chip",
                                      "\n<chip/>"};
    static const char *const no[] = {"", "<chips>", "<program version=\"1\">", "<!-- <chip",
                                     "<?xml", "\x0a\x05<chip", "chip"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        assert_true(chip_looks_like((const uint8_t *)yes[i], strlen(yes[i])));
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        assert_false(chip_looks_like((const uint8_t *)no[i], strlen(no[i])));
}

static void test_load_io(void **state)
{
    (void)state;
    /* a description past 1 MiB is refused before libxml2 sees it */
    size_t big = ((size_t)1 << 20) + 1;
    char *x = malloc(big);
    assert_non_null(x);
    memset(x, ' ', big);
    Diag b;
    diag_init(&b, NAME);
    Chip *bc = (Chip *)1;
    assert_int_equal(chip_load_mem(x, big, NAME, &bc, &b), ST_LOGIC);
    assert_null(bc);
    assert_true(diag_find(&b, "limit.file") >= 0);
    diag_finish(&b);
    free(x);
    /* more areas than a Chip holds: 8 in MEM0, 8 in MEM1, MEM2's 3 */
    char areas[8][1024];
    for (int bank = 0; bank < 2; bank++) {
        char *p = areas[bank];
        size_t room = sizeof areas[bank];
        p[0] = 0;
        for (int i = 0; i < 8; i++)
            snprintf(p + strlen(p), room - strlen(p), "<area name=\"a%d\" base=\"%d\" "
                     "words=\"1\" role=\"data\"/>", i, bank * 0x4000 + i);
    }
    char to[1200];
    snprintf(to, sizeof to, "role=\"data\">%s</bank>\n    <bank name=\"MEM1\" base=\"0x4000\" "
             "words=\"0x4000\" role=\"data weights\">%s</bank>", areas[0], areas[1]);
    x = edited("role=\"data\"/>\n    <bank name=\"MEM1\" base=\"0x4000\" words=\"0x4000\" "
               "role=\"data weights\"/>", to, NULL);
    diag_init(&b, NAME);
    assert_int_equal(chip_load_mem(x, strlen(x), NAME, &bc, &b), ST_LOGIC);
    if (diag_find(&b, "chip.area.count") < 0)
        diag_print(&b, stderr, "test_chip");
    assert_true(diag_find(&b, "chip.area.count") >= 0);
    diag_finish(&b);
    free(x);
    Diag d;
    diag_init(&d, "nope.xml");
    Chip *c = (Chip *)1;
    assert_int_equal(chip_load("/nonexistent/nope.xml", &c, &d), ST_RUNTIME);
    assert_null(c);
    diag_finish(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_facts),
        cmocka_unit_test(test_embedded_is_file),
        cmocka_unit_test(test_defaults_and_sizes),
        cmocka_unit_test(test_xml_errors),
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_looks_like),
        cmocka_unit_test(test_load_io),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
