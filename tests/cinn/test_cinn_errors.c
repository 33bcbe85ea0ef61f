/* test_cinn_errors.c: what the CINN frontend refuses, and how it says so.
 *   - one test per rejected primitive of cinn_prims.def (BnMeanVariance, BnGradBiasScale, and
 *     Conv's backward conv_types), by the C API and from XML, asserting the documented reason;
 *     a check that every REJECTED row of the table has its test here;
 *   - the builder's logic errors (real functions on wide inputs, constant zero divisors,
 *     floats, shift amounts, shapes and attributes, names) and their rule ids;
 *   - the XML reader's errors, each with the file and the line: malformed XML, a DOCTYPE,
 *     schema violations, references, duplicate names, builder errors at their element;
 *   - the lowering's refusals of table operators that are too wide;
 *   - files: write, read back; the embedded XSD is the repository's; docs/cinn.md lists every
 *     primitive of the table with its status.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <unistd.h>

#include "cinn_test.h"

#include "taskir/fileio.h"

#define TRAINING "an inference chip does not run"

static const char *srcdir(void)
{
    const char *s = getenv("TASKIR_SRCDIR");
    return s ? s : ".";
}

/* ---- rejected primitives: one test each ---- */

static const char *const tested_rejections[] = {"BnMeanVariance", "BnGradBiasScale"};

static void test_reject_bn_mean_variance(void **state)
{
    (void)state;
    CtCase c;
    ct_begin(&c, 1);
    CinnVar x = ct_input(&c, "x", CT_SHP(1, 4, 8, 8), 8, NULL);
    assert_int_equal(fe_cinn_bn_mean_variance(c.b, x, "mv"), CINN_NONE);
    ct_expect_error(&c, "cinn.training", "batch-norm statistics): " TRAINING);
    assert_false(fe_cinn_prim_supported(CINN_P_BnMeanVariance));
    assert_non_null(strstr(fe_cinn_prim_how(CINN_P_BnMeanVariance), TRAINING));
    ct_end(&c);
    ct_expect_xml_error("<program version=\"1\">\n"
                        "  <Input name=\"x\" shape=\"1 4 8 8\" precision=\"8\"/>\n"
                        "  <BnMeanVariance name=\"mv\" input=\"x\"/>\n"
                        "</program>\n",
                        "cinn.training", 3, TRAINING);
}

static void test_reject_bn_grad_bias_scale(void **state)
{
    (void)state;
    CtCase c;
    ct_begin(&c, 2);
    CinnVar x = ct_input(&c, "x", CT_SHP(1, 4, 8, 8), 8, NULL);
    CinnVar g = ct_input(&c, "g", CT_SHP(1, 4, 8, 8), 8, NULL);
    int32_t m[4] = {0};
    CinnVar mean = ct_const(&c, "m", CT_SHP(4), m, 0);
    assert_int_equal(fe_cinn_bn_grad_bias_scale(c.b, x, g, mean, "gbs"), CINN_NONE);
    ct_expect_error(&c, "cinn.training", "batch-norm gradients): " TRAINING);
    ct_end(&c);
    ct_expect_xml_error("<program version=\"1\">\n"
                        "  <Input name=\"x\" shape=\"1 4\" precision=\"8\"/>\n"
                        "  <Input name=\"g\" shape=\"1 4\" precision=\"8\"/>\n"
                        "  <Constant name=\"m\" shape=\"4\">0 0 0 0</Constant>\n"
                        "  <BnGradBiasScale name=\"gbs\" input=\"x\" grad=\"g\" save_mean=\"m\"/>\n"
                        "</program>\n",
                        "cinn.training", 5, TRAINING);
}

static void conv_backward(const char *type)
{
    CtCase c;
    ct_begin(&c, 3);
    CinnVar x = ct_input(&c, "x", CT_SHP(1, 2, 6, 6), 8, NULL);
    int32_t wv[36] = {0};
    CinnVar w = ct_const(&c, "w", CT_SHP(2, 2, 3, 3), wv, 8);
    CinnConvAttrs a;
    fe_cinn_conv_init(&a);
    a.conv_type = type;
    int64_t os[4] = {1, 2, 6, 6};
    a.output_shape = os;
    a.noutput_shape = 4;
    assert_int_equal(fe_cinn_conv(c.b, w, x, &a, "g"), CINN_NONE);
    ct_expect_error(&c, "cinn.training", TRAINING);
    ct_expect_error(&c, "cinn.training", type);
    ct_end(&c);
    char xml[1024];
    snprintf(xml, sizeof xml,
             "<program version=\"1\">\n"
             "  <Input name=\"x\" shape=\"1 2 6 6\" precision=\"8\"/>\n"
             "  <Constant name=\"w\" shape=\"1 2 1 1\">1 2</Constant>\n"
             "\n"
             "  <Conv name=\"g\" lhs=\"w\" rhs=\"x\" conv_type=\"%s\" output_shape=\"1 2 6 6\"/>\n"
             "</program>\n", type);
    ct_expect_xml_error(xml, "cinn.training", 5, TRAINING);
}

static void test_reject_conv_backward_data(void **state)
{
    (void)state;
    conv_backward("backward_data");
}

static void test_reject_conv_backward_filter(void **state)
{
    (void)state;
    conv_backward("backward_filter");
}

/* Every REJECTED row of the table has its test above. */
static void test_rejections_covered(void **state)
{
    (void)state;
    for (int p = 0; p < CINN_P_COUNT; p++) {
        if (fe_cinn_prim_supported((CinnPrim)p))
            continue;
        bool found = false;
        for (size_t i = 0; i < sizeof tested_rejections / sizeof *tested_rejections; i++)
            found = found || strcmp(tested_rejections[i], fe_cinn_prim_name((CinnPrim)p)) == 0;
        if (!found)
            fail_msg("rejected primitive %s has no test", fe_cinn_prim_name((CinnPrim)p));
    }
}

/* ---- the builder's logic errors ---- */

static void test_real_wide(void **state)
{
    (void)state;
    CtCase c;
    ct_begin(&c, 4);
    CinnVar x = ct_input(&c, "x", CT_SHP(1, 8), 12, NULL);
    assert_int_equal(fe_cinn_exp(c.b, x, NULL, "e"), CINN_NONE);
    ct_expect_error(&c, "cinn.precision", "precision 12; Exp");
    ct_expect_error(&c, "cinn.precision", "needs input precision <= 8");
    assert_string_equal(c.d.entries[0].where, "call 2");
    /* the failed call left no node behind, and later calls on its result stay silent */
    assert_int_equal(fe_cinn_graph(c.b)->nnodes, 1);
    assert_int_equal(fe_cinn_abs(c.b, CINN_NONE, "a"), CINN_NONE);
    assert_int_equal(c.d.n, 1);
    ct_end(&c);
}

static void test_zero_divisor(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        CinnVar (*fn)(CinnBuilder *, CinnVar, CinnVar, const char *);
    } divs[] = {{"Div", fe_cinn_div}, {"FloorDiv", fe_cinn_floor_div}, {"Mod", fe_cinn_mod},
                {"FloorMod", fe_cinn_floor_mod}};
    for (size_t i = 0; i < 4; i++) {
        CtCase c;
        ct_begin(&c, 5);
        CinnVar x = ct_input(&c, "x", CT_SHP(1, 4), 8, NULL);
        int32_t yv[4] = {1, 2, 0, 4};
        CinnVar y = i % 2 ? ct_const(&c, "y", CT_SHP(4), yv, 0)
                          : fe_cinn_const_scalar(c.b, 0, "y");
        assert_int_equal(divs[i].fn(c.b, x, y, "q"), CINN_NONE);
        ct_expect_error(&c, "cinn.div.zero", "a division by zero");
        ct_end(&c);
    }
}

static void test_builder_errors(void **state)
{
    (void)state;
    CtCase c;
    ct_begin(&c, 6);
    CinnVar x = ct_input(&c, "x", CT_SHP(1, 2, 3), 8, NULL);
    CinnVar s40 = fe_cinn_const_scalar(c.b, 40, "s40");
    assert_int_equal(fe_cinn_left_shift(c.b, x, s40, NULL), CINN_NONE);
    ct_expect_error(&c, "cinn.shift.range", "amounts lie in [0, 31]");
    int64_t bad_shape[3] = {1, 0, 6}, two_inf[3] = {-1, -1, 6};
    assert_int_equal(fe_cinn_reshape(c.b, x, bad_shape, 3, NULL), CINN_NONE);
    ct_expect_error(&c, "cinn.attr", "value 0 at position 1");
    assert_int_equal(fe_cinn_reshape(c.b, x, two_inf, 3, NULL), CINN_NONE);
    ct_expect_error(&c, "cinn.attr", "2 values -1");
    int64_t perm2[2] = {1, 0};
    assert_int_equal(fe_cinn_transpose(c.b, x, perm2, 2, NULL), CINN_NONE);
    int64_t ax[1] = {2}, st[1] = {2}, en[1] = {2};
    assert_int_equal(fe_cinn_slice(c.b, x, ax, st, en, 1, NULL), CINN_NONE);
    ct_expect_error(&c, "cinn.attr", "0 <= start < end <= extent");
    int64_t out[3] = {1, 4, 3}, bax[3] = {0, 1, 2};
    assert_int_equal(fe_cinn_broadcast_to(c.b, x, out, 3, bax, 3, NULL), CINN_NONE);
    ct_expect_error(&c, "cinn.shape", "must be 1 or the output's");
    int32_t k3[8] = {0};
    CinnVar m3 = ct_const(&c, "m3", CT_SHP(2, 2, 2), k3, 0);
    assert_int_equal(fe_cinn_dot(c.b, m3, m3, NULL), CINN_NONE);
    ct_expect_error(&c, "cinn.shape", "Dot takes 1-D and 2-D");
    CinnVar k19 = fe_cinn_const_scalar(c.b, 19, "k19");
    assert_int_equal(fe_cinn_power(c.b, x, k19, NULL), CINN_NONE);
    ct_expect_error(&c, "cinn.precision", "beyond 2^31 - 1");
    /* CVM's checks, reported as the call's with their own rule ids */
    CinnVar y = ct_input(&c, "y", CT_SHP(1, 5, 3), 8, NULL);
    assert_int_equal(fe_cinn_add(c.b, x, y, "sum"), CINN_NONE);
    ct_expect_error(&c, "cvm.shape.mismatch", "do not broadcast");
    /* names */
    assert_int_equal(fe_cinn_abs(c.b, x, "x"), CINN_NONE);
    ct_expect_error(&c, "cinn.name.duplicate", "already defined by call 1");
    assert_int_equal(fe_cinn_abs(c.b, x, "9lives"), CINN_NONE);
    ct_expect_error(&c, "cinn.name", "not a valid variable name");
    assert_int_equal(fe_cinn_abs(c.b, x, "a/b"), CINN_NONE);
    /* unknown attribute through the generic call */
    OgAttr at = {"bogus", OG_ATTR_INT, 1, NULL, 0, NULL};
    CinnCall call = {CINN_P_Abs, "ab", &x, 1, &at, 1, NULL, 0};
    assert_int_equal(fe_cinn_call(c.b, &call), CINN_NONE);
    ct_expect_error(&c, "cinn.attr", "unknown attribute 'bogus'");
    /* a generated name */
    CinnVar g = fe_cinn_abs(c.b, x, NULL);
    assert_int_not_equal(g, CINN_NONE);
    assert_non_null(fe_cinn_var_name(c.b, g));
    ct_end(&c);
}

/* Table operators wider than a CLUT index: the lowering refuses them, naming the operator. */
static void test_lower_too_wide(void **state)
{
    (void)state;
    CtCase c;
    ct_begin(&c, 7);
    CinnVar x = ct_input(&c, "x", CT_SHP(1, 8), 10, NULL);
    CinnVar y = ct_input(&c, "y", CT_SHP(1, 8), 9, NULL);
    fe_cinn_output(c.b, fe_cinn_floor_div(c.b, x, y, "q"));
    ct_expect_lower_error(&c, "lower.precision", "cinn_floor_div of operands of precisions 10 "
                          "and 9");
    ct_end(&c);
    ct_begin(&c, 8);
    x = ct_input(&c, "x", CT_SHP(1, 8), 20, NULL);
    fe_cinn_output(c.b, fe_cinn_floor(c.b, x, 3, "f"));
    ct_expect_lower_error(&c, "lower.precision", "cinn_round of an operand of precision 20");
    ct_end(&c);
}

/* ---- XML errors carry the file and the line ---- */

#define HEAD "<program version=\"1\">\n"
#define X8 "  <Input name=\"x\" shape=\"1 8\" precision=\"8\"/>\n"

static void test_xml_parse(void **state)
{
    (void)state;
    /* an unclosed tag: libxml2 notices it at the next line */
    ct_expect_xml_error(HEAD X8 "  <Abs name=\"a\" x=\"x\"\n</program>\n", "cinn.xml.parse", 4,
                        "Couldn't find end of Start Tag Abs line 3");
    ct_expect_xml_error(HEAD X8 "  <Abs name=\"a\" x=\"x\"/>\n", "cinn.xml.parse", 4,
                        "Premature end of data in tag program line 1");
    ct_expect_xml_error("", "cinn.xml.parse", 0, NULL);
    ct_expect_xml_error("<!DOCTYPE program [<!ENTITY e \"x\">]>\n" HEAD X8 "</program>\n",
                        "cinn.xml.dtd", 1, "DOCTYPE");
    /* entities referring to each other: one finding at the DOCTYPE's line, before libxml2
     * reports an "entity reference loop" per reference */
    static const char loop[] = "<?xml version=\"1.0\"?>\n<!-- a comment -->\n"
                               "<!DOCTYPE program [<!ENTITY a \"&b;\"><!ENTITY b \"&a;\">]>\n"
                               HEAD "  <Input name=\"x&a;\" shape=\"1 8\" precision=\"8\"/>\n"
                               "  <Abs name=\"&a;&b;&a;\" x=\"&a;\"/>\n</program>\n";
    ct_expect_xml_error(loop, "cinn.xml.dtd", 3, "a DOCTYPE is not allowed");
    Diag d;
    diag_init(&d, NULL);
    CinnBuilder *b = NULL;
    assert_int_equal(fe_cinn_read_xml_mem(loop, strlen(loop), "prog.xml", &d, &b), ST_LOGIC);
    assert_int_equal(d.n, 1);
    diag_finish(&d);
}

static void test_xml_schema(void **state)
{
    (void)state;
    /* an unknown element at line 3 */
    ct_expect_xml_error(HEAD X8 "  <Softmax name=\"s\" x=\"x\"/>\n</program>\n", "cinn.xml.schema",
                        3, "Softmax");
    /* a missing attribute at line 4 */
    ct_expect_xml_error(HEAD X8 "\n  <Add name=\"s\" x=\"x\"/>\n</program>\n", "cinn.xml.schema",
                        4, "'y' is required");
    /* a value of the wrong type */
    ct_expect_xml_error(HEAD "  <Input name=\"x\" shape=\"1 eight\" precision=\"8\"/>\n"
                        "</program>\n", "cinn.xml.schema", 2, "shape");
    ct_expect_xml_error(HEAD X8 "  <Exp name=\"e\" x=\"x\" in_frac=\"40\"/>\n</program>\n",
                        "cinn.xml.schema", 3, "in_frac");
    ct_expect_xml_error(HEAD X8 "  <Compare name=\"c\" x=\"x\" y=\"x\" kind=\"kEq\"/>\n"
                        "</program>\n", "cinn.xml.schema", 3, "kind");
    /* an unknown attribute; a wrong root; no version */
    ct_expect_xml_error(HEAD X8 "  <Abs name=\"a\" x=\"x\" axis=\"1\"/>\n</program>\n",
                        "cinn.xml.schema", 3, "axis");
    ct_expect_xml_error("<prog version=\"1\"/>\n", "cinn.xml.schema", 1, "prog");
    ct_expect_xml_error("<program>\n</program>\n", "cinn.xml.schema", 1, "version");
    /* a bad name */
    ct_expect_xml_error(HEAD "  <Input name=\"1x\" shape=\"1\" precision=\"8\"/>\n</program>\n",
                        "cinn.xml.schema", 2, "1x");
}

static void test_xml_builder_errors(void **state)
{
    (void)state;
    /* references */
    ct_expect_xml_error(HEAD X8 "  <Abs name=\"a\" x=\"zz\"/>\n</program>\n", "cinn.ref", 3,
                        "x 'zz' names no earlier result");
    ct_expect_xml_error(HEAD X8 "  <Abs name=\"a\" x=\"b\"/>\n  <Abs name=\"b\" x=\"x\"/>\n"
                        "</program>\n", "cinn.ref", 3, "'b'");
    ct_expect_xml_error(HEAD X8 "  <Concat name=\"c\" inputs=\"x q x\" axis=\"1\"/>\n"
                        "</program>\n", "cinn.ref", 3, "Concat 'c': inputs 'q'");
    ct_expect_xml_error(HEAD X8 "  <Output x=\"y\"/>\n</program>\n", "cinn.ref", 3,
                        "Output: x 'y' names no earlier result");
    /* a program without outputs */
    ct_expect_xml_error(HEAD X8 "</program>\n", "cinn.output", 1, "no <Output>");
    /* a duplicate name names the first definition's line */
    ct_expect_xml_error(HEAD X8 "  <Abs name=\"a\" x=\"x\"/>\n  <Negative name=\"a\" x=\"x\"/>\n"
                        "</program>\n", "cinn.name.duplicate", 4, "already defined at line 3");
    /* a builder error at its element's line */
    ct_expect_xml_error(HEAD "  <Input name=\"x\" shape=\"1 8\" precision=\"12\"/>\n\n\n"
                        "  <Tanh name=\"t\" x=\"x\"/>\n</program>\n", "cinn.precision", 5,
                        "Tanh 't'");
    ct_expect_xml_error(HEAD X8 "  <ConstScalar name=\"h\" value=\"0.5\"/>\n</program>\n",
                        "cinn.const.float", 3, "is a float");
    ct_expect_xml_error(HEAD "  <Constant name=\"w\" shape=\"2 2\">1 2 3</Constant>\n"
                        "</program>\n", "cinn.const.values", 2, "3 values for shape (2, 2)");
    ct_expect_xml_error(HEAD "  <Constant name=\"w\" shape=\"2\" precision=\"2\">1 2</Constant>\n"
                        "</program>\n", "cvm.params.range", 2, "Constant 'w'");
    /* two independent errors are both reported; their dependents stay silent */
    Diag d;
    diag_init(&d, NULL);
    CinnBuilder *b = NULL;
    const char *xml = HEAD X8 "  <Exp name=\"e\" x=\"x\" precision=\"40\"/>\n"
                      "  <Abs name=\"a\" x=\"e\"/>\n"
                      "  <Reshape name=\"r\" x=\"x\" shape=\"0\"/>\n"
                      "  <Output x=\"a\"/>\n</program>\n";
    assert_int_equal(fe_cinn_read_xml_mem(xml, strlen(xml), "prog.xml", &d, &b), ST_LOGIC);
    assert_null(b);
    assert_int_equal(d.n, 1); /* the schema: precision 40 */
    diag_finish(&d);
    diag_init(&d, NULL);
    xml = HEAD X8 "  <Exp name=\"e\" x=\"x\" in_frac=\"3\"/>\n"
          "  <Abs name=\"a\" x=\"e\"/>\n"
          "  <Reshape name=\"r\" x=\"x\" shape=\"0 8\"/>\n"
          "  <Sqrt name=\"s\" x=\"r\"/>\n"
          "  <Output x=\"a\"/>\n</program>\n";
    assert_int_equal(fe_cinn_read_xml_mem(xml, strlen(xml), "prog.xml", &d, &b), ST_LOGIC);
    assert_int_equal(d.n, 1);
    assert_string_equal(d.entries[0].where, "prog.xml:5");
    diag_finish(&d);
    diag_init(&d, NULL);
    xml = HEAD "  <Input name=\"x\" shape=\"1 8\" precision=\"9\"/>\n"
          "  <Exp name=\"e\" x=\"x\"/>\n"
          "  <Abs name=\"a\" x=\"e\"/>\n"
          "  <Reshape name=\"r\" x=\"x\" shape=\"0 8\"/>\n"
          "  <Output x=\"a\"/>\n</program>\n";
    assert_int_equal(fe_cinn_read_xml_mem(xml, strlen(xml), "prog.xml", &d, &b), ST_LOGIC);
    assert_int_equal(d.n, 2);
    assert_string_equal(d.entries[0].where, "prog.xml:3");
    assert_string_equal(d.entries[1].where, "prog.xml:5");
    diag_finish(&d);
}

/* ---- files, the schema, the documentation ---- */

static void test_files(void **state)
{
    (void)state;
    CtCase c;
    ct_begin(&c, 9);
    CinnVar x = ct_input(&c, "x", CT_SHP(1, 8), 8, NULL);
    CinnFixed fx = {4, 4, 0};
    fe_cinn_output(c.b, fe_cinn_tanh(c.b, x, &fx, "t"));
    char dir[] = "/tmp/cinn_test_XXXXXX", path[128], missing[128];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/prog.xml", dir);
    snprintf(missing, sizeof missing, "%s/none.xml", dir);
    assert_int_equal(fe_cinn_write_xml(c.b, path, &c.d), ST_OK);
    Diag d;
    diag_init(&d, NULL);
    CinnBuilder *b = NULL;
    assert_int_equal(fe_cinn_read_xml(path, &d, &b), ST_OK);
    char *x1, *x2;
    size_t n1, n2;
    assert_int_equal(fe_cinn_xml_encode(c.b, &x1, &n1, &d), ST_OK);
    assert_int_equal(fe_cinn_xml_encode(b, &x2, &n2, &d), ST_OK);
    assert_int_equal(n1, n2);
    assert_memory_equal(x1, x2, n1);
    assert_true(fe_looks_like_cinn(NULL, (const uint8_t *)x1, n1));
    assert_true(fe_looks_like_cinn("a/prog.xml", NULL, 0));
    assert_false(fe_looks_like_cinn("a/model.json", (const uint8_t *)"{", 1));
    assert_false(fe_looks_like_cinn("g.pb", (const uint8_t *)"\x0a\x03", 2));
    assert_false(fe_looks_like_cinn(NULL, (const uint8_t *)"\n<", 2)); /* a .pb may start so */
    free(x1);
    free(x2);
    fe_cinn_destroy(b);
    /* a file that is not there: a runtime error naming it */
    assert_int_equal(fe_cinn_read_xml(missing, &d, &b), ST_RUNTIME);
    assert_null(b);
    assert_string_equal(d.entries[d.n - 1].where, missing);
    diag_finish(&d);
    unlink(path);
    rmdir(dir);
    ct_end(&c);
}

static void test_schema_and_docs(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/frontend/cinn.xsd", srcdir());
    Diag d;
    diag_init(&d, path);
    uint8_t *buf = NULL;
    size_t len = 0;
    assert_int_equal(tir_read_file(path, TIR_MAX_FILE_BYTES, &buf, &len, &d), ST_OK);
    size_t elen;
    const char *xsd = fe_cinn_xsd(&elen);
    assert_int_equal(len, elen);
    assert_memory_equal(buf, xsd, len);
    free(buf);
    /* every primitive of the table is in the schema and in the documentation's table */
    snprintf(path, sizeof path, "%s/docs/cinn.md", srcdir());
    assert_int_equal(tir_read_file(path, TIR_MAX_FILE_BYTES, &buf, &len, &d), ST_OK);
    char *doc = malloc(len + 1);
    assert_non_null(doc);
    memcpy(doc, buf, len);
    doc[len] = 0;
    for (int p = 0; p < CINN_P_COUNT; p++) {
        char want[96];
        snprintf(want, sizeof want, "<xs:element name=\"%s\" ", fe_cinn_prim_name((CinnPrim)p));
        if (!strstr(xsd, want))
            fail_msg("cinn.xsd lacks <%s>", fe_cinn_prim_name((CinnPrim)p));
        snprintf(want, sizeof want, "| `%s` | %s |", fe_cinn_prim_name((CinnPrim)p),
                 fe_cinn_prim_supported((CinnPrim)p) ? "supported" : "rejected");
        if (!strstr(doc, want))
            fail_msg("docs/cinn.md lacks the row \"%s\"", want);
    }
    free(doc);
    free(buf);
    diag_finish(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reject_bn_mean_variance),
        cmocka_unit_test(test_reject_bn_grad_bias_scale),
        cmocka_unit_test(test_reject_conv_backward_data),
        cmocka_unit_test(test_reject_conv_backward_filter),
        cmocka_unit_test(test_rejections_covered),
        cmocka_unit_test(test_real_wide),
        cmocka_unit_test(test_zero_divisor),
        cmocka_unit_test(test_builder_errors),
        cmocka_unit_test(test_lower_too_wide),
        cmocka_unit_test(test_xml_parse),
        cmocka_unit_test(test_xml_schema),
        cmocka_unit_test(test_xml_builder_errors),
        cmocka_unit_test(test_files),
        cmocka_unit_test(test_schema_and_docs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
