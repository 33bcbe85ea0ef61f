/* test_cvm_attrs.c: the attribute value syntax ("(1, 1)", "[1,1]", "3", booleans, "None"),
 * defaults, and one failing case per operator-level validation rule: every cvm.attr.<name>
 * the operators define, cvm.attr.unknown, cvm.op.inputs, cvm.shape.*, cvm.precision.* and
 * cvm.limit.* — each asserting the rule id and the node's name ('op1') in the message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cvm_test_util.h"

static void test_int_syntax(void **state)
{
    (void)state;
    int64_t v;
    assert_true(cvm_parse_int_text("3", &v) && v == 3);
    assert_true(cvm_parse_int_text(" -17 ", &v) && v == -17);
    assert_true(cvm_parse_int_text("+4", &v) && v == 4);
    assert_true(cvm_parse_int_text("5L", &v) && v == 5);
    assert_true(cvm_parse_int_text("9223372036854775807", &v) && v == INT64_MAX);
    assert_true(cvm_parse_int_text("-9223372036854775808", &v) && v == INT64_MIN);
    assert_false(cvm_parse_int_text("9223372036854775808", &v));
    assert_false(cvm_parse_int_text("", &v));
    assert_false(cvm_parse_int_text("-", &v));
    assert_false(cvm_parse_int_text("1.5", &v));
    assert_false(cvm_parse_int_text("0x10", &v));
    assert_false(cvm_parse_int_text("1 2", &v));
    assert_false(cvm_parse_int_text("None", &v));
}

static void test_tuple_syntax(void **state)
{
    (void)state;
    int64_t v[8];
    uint32_t n;
    assert_true(cvm_parse_tuple_text("(1, 1)", v, 8, &n) && n == 2 && v[0] == 1 && v[1] == 1);
    assert_true(cvm_parse_tuple_text("[1,1]", v, 8, &n) && n == 2);
    assert_true(cvm_parse_tuple_text("3", v, 8, &n) && n == 1 && v[0] == 3);
    assert_true(cvm_parse_tuple_text("()", v, 8, &n) && n == 0);
    assert_true(cvm_parse_tuple_text("[ ]", v, 8, &n) && n == 0);
    assert_true(cvm_parse_tuple_text("(1,)", v, 8, &n) && n == 1 && v[0] == 1);
    assert_true(cvm_parse_tuple_text(" ( -1 , 2L ,3 ) ", v, 8, &n) && n == 3 && v[0] == -1 &&
                v[1] == 2 && v[2] == 3);
    assert_false(cvm_parse_tuple_text("(1, 1]", v, 8, &n));
    assert_false(cvm_parse_tuple_text("(1 1)", v, 8, &n));
    assert_false(cvm_parse_tuple_text("(1,,1)", v, 8, &n));
    assert_false(cvm_parse_tuple_text("(,)", v, 8, &n));
    assert_false(cvm_parse_tuple_text("(1, 2", v, 8, &n));
    assert_false(cvm_parse_tuple_text("(1) 2", v, 8, &n));
    assert_false(cvm_parse_tuple_text("((1))", v, 8, &n));
    assert_false(cvm_parse_tuple_text("(1, 2, 3)", v, 2, &n)); /* more than max */
    assert_false(cvm_parse_tuple_text("", v, 8, &n));
}

static void test_bool_syntax(void **state)
{
    (void)state;
    bool b;
    const char *yes[] = {"true", "True", "1", " true "}, *no[] = {"false", "False", "0"};
    for (int i = 0; i < 4; i++)
        assert_true(cvm_parse_bool_text(yes[i], &b) && b);
    for (int i = 0; i < 3; i++)
        assert_true(cvm_parse_bool_text(no[i], &b) && !b);
    assert_false(cvm_parse_bool_text("TRUE", &b));
    assert_false(cvm_parse_bool_text("yes", &b));
    assert_false(cvm_parse_bool_text("2", &b));
    assert_false(cvm_parse_bool_text("", &b));
}

/* Parsed attributes are typed, with defaults filled in. */
static void test_typed_defaults(void **state)
{
    (void)state;
    int32_t x[16] = {0}, w[8] = {0};
    TIn in[] = {{ND(1, 2, 2, 2), x, 8}, {ND(2, 2, 1, 1), w, 8}};
    TOut r;
    top_run(&r, CVM_OP_conv2d, in, 2, KV("channels", "2", "kernel_size", "[1,1]", "use_bias", "0"));
    assert_int_equal(r.st, ST_OK);
    const OgNode *n = r.node;
    uint32_t cnt;
    const int64_t *s = og_attr_ints(n, "strides", &cnt);
    assert_int_equal(cnt, 2);
    assert_true(s[0] == 1 && s[1] == 1);
    assert_int_equal(og_attr_ints(n, "padding", &cnt)[0], 0);
    assert_int_equal(og_attr_int(n, "groups", 0), 1);
    assert_false(og_attr_bool(n, "use_bias", true));
    assert_string_equal(og_attr_str(n, "layout", ""), "NCHW");
    assert_int_equal(og_attr(n, "channels")->kind, OG_ATTR_INT);
    top_free(&r);
    /* an optional int: None, or a value */
    TIn t[] = {{ND(2, 2), x, 8}, {ND(2), x, 8}};
    top_run(&r, CVM_OP_take, t, 2, KV("axis", "None"));
    assert_int_equal(r.st, ST_OK);
    assert_int_equal(og_attr(r.node, "axis")->kind, OG_ATTR_NONE);
    assert_true(og_attr_is_none(r.node, "axis"));
    top_free(&r);
    top_run(&r, CVM_OP_take, t, 2, KV("axis", "1"));
    assert_int_equal(r.st, ST_OK);
    assert_int_equal(og_attr_int(r.node, "axis", -9), 1);
    top_free(&r);
    top_run(&r, CVM_OP_take, t, 2, NULL); /* default None */
    assert_true(og_attr_is_none(r.node, "axis"));
    top_free(&r);
    /* hidden keys "__x__" are ignored, like dmlc's parameters do */
    top_run(&r, CVM_OP_take, t, 2, KV("__shape__", "whatever"));
    assert_int_equal(r.st, ST_OK);
    top_free(&r);
}

/* ---- one failing case per rule ---- */

typedef struct Case {
    CvmOp op;
    int nin;
    TIn in[3];
    const char *const *kv;
    const char *rule;
} Case;

static int32_t Z[1 << 12]; /* zeros: values are never read when building fails */

#define X4(n, c, h, w, p) {4, {n, c, h, w}, Z, p}
#define X2(a, b, p) {2, {a, b}, Z, p}
#define X3(a, b, c, p) {3, {a, b, c}, Z, p}
#define X1(a, p) {1, {a}, Z, p}

#define CONV(...) {CVM_OP_conv2d, 2, {X4(1, 2, 4, 4, 8), X4(2, 2, 3, 3, 8)}, KV(__VA_ARGS__)
#define CONV_OK "channels", "2", "kernel_size", "(3, 3)", "use_bias", "false"

static const Case cases[] = {
    /* conv2d */
    {CVM_OP_conv2d, 2, {X4(1, 2, 4, 4, 8), X4(2, 2, 3, 3, 8)},
     KV("kernel_size", "(3, 3)", "use_bias", "false"), "cvm.attr.channels"},
    CONV("channels", "3", "kernel_size", "(3, 3)", "use_bias", "false"), "cvm.attr.channels"},
    CONV("channels", "2", "kernel_size", "(3,)", "use_bias", "false"), "cvm.attr.kernel_size"},
    CONV("channels", "2", "kernel_size", "(2, 2)", "use_bias", "false"), "cvm.attr.kernel_size"},
    CONV(CONV_OK, "strides", "(0, 1)"), "cvm.attr.strides"},
    CONV(CONV_OK, "padding", "(4096, 0)"), "cvm.attr.padding"},
    CONV(CONV_OK, "padding", "(1, x)"), "cvm.attr.padding"},
    CONV(CONV_OK, "padding", "1"), "cvm.attr.padding"},
    CONV(CONV_OK, "dilation", "(1, 4096)"), "cvm.attr.dilation"},
    CONV(CONV_OK, "groups", "3"), "cvm.attr.groups"},
    CONV(CONV_OK, "groups", "None"), "cvm.attr.groups"},
    CONV(CONV_OK, "layout", "NHWC"), "cvm.attr.layout"},
    CONV(CONV_OK, "kernel_layout", "HWIO"), "cvm.attr.kernel_layout"},
    CONV(CONV_OK, "out_layout", "NHWC"), "cvm.attr.out_layout"},
    CONV(CONV_OK, "out_dtype", "float32"), "cvm.attr.out_dtype"},
    /* cvm-runtime's dtype fields take type names only ("-1" was accepted here) */
    CONV(CONV_OK, "out_dtype", "-1"), "cvm.attr.out_dtype"},
    CONV("channels", "2", "kernel_size", "(3, 3)", "use_bias", "yes"), "cvm.attr.use_bias"},
    CONV(CONV_OK, "foo", "1"), "cvm.attr.unknown"},
    CONV("channels", "2", "kernel_size", "(3, 3)"), "cvm.op.inputs"}, /* use_bias: 3 inputs */
    /* dense */
    {CVM_OP_dense, 2, {X2(1, 3, 8), X2(2, 3, 8)}, KV("units", "3", "use_bias", "False"),
     "cvm.attr.units"},
    {CVM_OP_dense, 2, {X2(1, 3, 8), X2(2, 3, 8)}, KV("units", "0", "use_bias", "False"),
     "cvm.attr.units"},
    /* max_pool2d */
    {CVM_OP_max_pool2d, 1, {X4(1, 1, 4, 4, 8)}, KV("pool_size", "(5, 5)"), "cvm.attr.pool_size"},
    {CVM_OP_max_pool2d, 1, {X4(1, 1, 4, 4, 8)}, KV("pool_size", "(1, 1)", "padding", "1"),
     "cvm.attr.pool_size"},
    {CVM_OP_max_pool2d, 1, {X4(1, 1, 4, 4, 8)}, KV("pool_size", "(2, 2)", "ceil_mode", "maybe"),
     "cvm.attr.ceil_mode"},
    /* ceil mode whose last window starts in the trailing padding (cvm-runtime refuses it) */
    {CVM_OP_max_pool2d, 1, {X4(1, 1, 4, 4, 8)},
     KV("pool_size", "(2, 2)", "strides", "(3, 3)", "padding", "1", "ceil_mode", "true"),
     "cvm.attr.ceil_mode"},
    {CVM_OP_max_pool2d, 1, {X4(1, 1, 6, 4, 8)},
     KV("pool_size", "(2, 2)", "strides", "(3, 3)", "padding", "(1, 1)", "ceil_mode", "True"),
     "cvm.attr.ceil_mode"},
    /* upsampling */
    {CVM_OP_upsampling, 1, {X4(1, 1, 2, 2, 8)}, KV("scale", "0"), "cvm.attr.scale"},
    {CVM_OP_upsampling, 1, {X4(1, 1, 2, 2, 8)}, KV("scale", "2", "method", "BILINEAR"),
     "cvm.attr.method"},
    /* vision */
    {CVM_OP_get_valid_counts, 1, {X3(1, 4, 3, 8)}, KV("score_threshold", "x"),
     "cvm.attr.score_threshold"},
    /* attributes of TVM's get_valid_counts that cvm-runtime does not have */
    {CVM_OP_get_valid_counts, 1, {X3(1, 4, 3, 8)}, KV("id_index", "0"), "cvm.attr.unknown"},
    {CVM_OP_get_valid_counts, 1, {X3(1, 4, 3, 8)}, KV("score_index", "1"), "cvm.attr.unknown"},
    {CVM_OP_non_max_suppression, 2, {X3(1, 4, 6, 8), X1(1, 8)}, KV("iou_threshold", "0"),
     "cvm.attr.iou_threshold"},
    {CVM_OP_non_max_suppression, 2, {X3(1, 4, 6, 8), X1(1, 8)}, KV("max_output_size", "1.5"),
     "cvm.attr.max_output_size"},
    {CVM_OP_non_max_suppression, 2, {X3(1, 4, 6, 8), X1(1, 8)}, KV("force_suppress", "2"),
     "cvm.attr.force_suppress"},
    {CVM_OP_non_max_suppression, 2, {X3(1, 4, 6, 8), X1(1, 8)}, KV("top_k", ""), "cvm.attr.top_k"},
    {CVM_OP_non_max_suppression, 2, {X3(1, 4, 6, 8), X1(1, 8)}, KV("coord_start", "1"),
     "cvm.attr.coord_start"},
    {CVM_OP_non_max_suppression, 2, {X3(1, 4, 6, 8), X1(1, 8)}, KV("score_index", "2"),
     "cvm.attr.score_index"},
    {CVM_OP_non_max_suppression, 2, {X3(1, 4, 6, 8), X1(1, 8)}, KV("id_index", "-1"),
     "cvm.attr.id_index"},
    {CVM_OP_non_max_suppression, 2, {X3(1, 4, 6, 8), X1(1, 8)}, KV("return_indices", "true"),
     "cvm.attr.return_indices"},
    {CVM_OP_non_max_suppression, 2, {X3(1, 4, 6, 8), X1(1, 8)}, KV("invalid_to_bottom", "False"),
     "cvm.attr.invalid_to_bottom"},
    /* elementwise and cvm_* */
    {CVM_OP_clip, 1, {X1(4, 8)}, KV("a_min", "5", "a_max", "5"), "cvm.attr.a_max"},
    {CVM_OP_clip, 1, {X1(4, 8)}, KV("a_min", "-2147483648", "a_max", "5"), "cvm.attr.a_min"},
    {CVM_OP_cvm_clip, 1, {X1(4, 8)}, KV("precision", "33"), "cvm.attr.precision"},
    {CVM_OP_cvm_clip, 1, {X1(4, 8)}, KV("precision", "8", "is_sign", "false"), "cvm.attr.is_sign"},
    {CVM_OP_cvm_right_shift, 1, {X1(4, 8)}, KV("precision", "8", "shift_bit", "0"),
     "cvm.attr.shift_bit"},
    {CVM_OP_cvm_left_shift, 1, {X1(4, 8)}, KV("precision", "8", "shift_bit", "33"),
     "cvm.attr.shift_bit"},
    {CVM_OP_cvm_lut, 2, {X1(4, 8), X1(3, 8)}, KV("in_dim", "4"), "cvm.attr.in_dim"},
    /* cvm-runtime requires in_dim (it has no default) */
    {CVM_OP_cvm_lut, 2, {X1(4, 8), X1(3, 8)}, NULL, "cvm.attr.in_dim"},
    {CVM_OP_cvm_lut, 2, {X1(4, 8), X1(3, 8)}, KV("in_dim", "None"), "cvm.attr.in_dim"},
    /* reduce */
    {CVM_OP_sum, 1, {X3(2, 2, 2, 8)}, KV("axis", "(3,)"), "cvm.attr.axis"},
    {CVM_OP_sum, 1, {X3(2, 2, 2, 8)}, KV("axis", "(1, -2)"), "cvm.attr.axis"},
    {CVM_OP_max, 1, {X3(2, 2, 2, 8)}, KV("keepdims", "t"), "cvm.attr.keepdims"},
    {CVM_OP_max, 1, {X3(2, 2, 2, 8)}, KV("exclude", "f"), "cvm.attr.exclude"},
    {CVM_OP_sum, 1, {X3(2, 2, 2, 8)}, KV("dtype", "float32"), "cvm.attr.dtype"},
    {CVM_OP_sum, 1, {X3(2, 2, 2, 8)}, KV("dtype", "4"), "cvm.attr.dtype"},
    {CVM_OP_max, 1, {X3(2, 2, 2, 8)}, KV("dtype", "-1"), "cvm.attr.dtype"},
    /* transform */
    {CVM_OP_repeat, 1, {X2(2, 2, 8)}, KV("repeats", "0"), "cvm.attr.repeats"},
    {CVM_OP_repeat, 1, {X2(2, 2, 8)}, KV("repeats", "2", "axis", "2"), "cvm.attr.axis"},
    {CVM_OP_tile, 1, {X2(2, 2, 8)}, KV("reps", "(0,)"), "cvm.attr.reps"},
    {CVM_OP_tile, 1, {X2(2, 2, 8)}, KV("reps", "()"), "cvm.attr.reps"},
    {CVM_OP_reshape, 1, {X3(2, 3, 4, 8)}, KV("shape", "(5, -1)"), "cvm.attr.shape"},
    {CVM_OP_reshape, 1, {X3(2, 3, 4, 8)}, KV("shape", "(-1, -1)"), "cvm.attr.shape"},
    {CVM_OP_reshape, 1, {X3(2, 3, 4, 8)}, KV("shape", "(0, 0, 0, 0)"), "cvm.attr.shape"},
    {CVM_OP_reshape, 1, {X3(2, 3, 4, 8)}, KV("shape", "(-5,)"), "cvm.attr.shape"},
    {CVM_OP_squeeze, 1, {X3(1, 3, 1, 8)}, KV("axis", "(1,)"), "cvm.attr.axis"},
    {CVM_OP_expand_dims, 1, {X2(2, 3, 8)}, KV("axis", "3"), "cvm.attr.axis"},
    {CVM_OP_expand_dims, 1, {X2(2, 3, 8)}, KV("axis", "0", "num_newaxis", "4096"),
     "cvm.attr.num_newaxis"},
    {CVM_OP_expand_dims, 1, {X2(2, 3, 8)}, KV("axis", "0", "num_newaxis", "0"),
     "cvm.attr.num_newaxis"},
    {CVM_OP_transpose, 1, {X2(2, 3, 8)}, KV("axes", "(0,)"), "cvm.attr.axes"},
    {CVM_OP_transpose, 1, {X2(2, 3, 8)}, KV("axes", "(1, -1)"), "cvm.attr.axes"},
    {CVM_OP_strided_slice, 1, {X2(3, 4, 8)}, KV("end", "(1, 1)"), "cvm.attr.begin"},
    {CVM_OP_strided_slice, 1, {X2(3, 4, 8)}, KV("begin", "(0,)", "end", "(1, 1, 1)"),
     "cvm.attr.end"},
    {CVM_OP_strided_slice, 1, {X2(3, 4, 8)}, KV("begin", "(2,)", "end", "(1,)"), "cvm.attr.end"},
    {CVM_OP_strided_slice, 1, {X2(3, 4, 8)}, KV("begin", "(4,)", "end", "(9,)"), "cvm.attr.end"},
    {CVM_OP_strided_slice, 1, {X2(3, 4, 8)}, KV("begin", "(0,)", "end", "(1,)", "stride", "(0,)"),
     "cvm.attr.stride"},
    {CVM_OP_slice_like, 2, {X2(3, 4, 8), X2(2, 2, 8)}, KV("axis", "(2,)"), "cvm.attr.axis"},
    {CVM_OP_slice_like, 2, {X2(3, 4, 8), X1(2, 8)}, KV("axis", "(1,)"), "cvm.attr.axis"},
    /* without axis, inputs of different ranks (cvm-runtime refuses them) */
    {CVM_OP_slice_like, 2, {X2(3, 4, 8), X1(2, 8)}, NULL, "cvm.shape.mismatch"},
    {CVM_OP_slice_like, 2, {X2(3, 4, 8), X3(2, 2, 1, 8)}, KV("axis", "()"), "cvm.shape.mismatch"},
    {CVM_OP_concatenate, 2, {X2(2, 2, 8), X2(2, 2, 8)}, KV("axis", "2"), "cvm.attr.axis"},
    {CVM_OP_take, 2, {X2(2, 2, 8), X1(2, 8)}, KV("axis", "-3"), "cvm.attr.axis"},
    {CVM_OP_take, 2, {X2(2, 2, 8), X1(2, 8)}, KV("axis", "Nope"), "cvm.attr.axis"},
    /* input counts */
    {CVM_OP_elemwise_add, 1, {X1(2, 8)}, NULL, "cvm.op.inputs"},
    {CVM_OP_where, 2, {X1(2, 8), X1(2, 8)}, NULL, "cvm.op.inputs"},
    /* shapes */
    {CVM_OP_conv2d, 2, {X3(2, 4, 4, 8), X4(2, 2, 3, 3, 8)}, KV(CONV_OK), "cvm.shape.rank"},
    {CVM_OP_dense, 2, {X1(3, 8), X2(2, 3, 8)}, KV("units", "2", "use_bias", "0"), "cvm.shape.rank"},
    {CVM_OP_non_max_suppression, 2, {X3(1, 4, 6, 8), X2(1, 1, 8)}, NULL, "cvm.shape.rank"},
    {CVM_OP_conv2d, 2, {X4(1, 2, 2, 2, 8), X4(2, 2, 3, 3, 8)}, KV(CONV_OK), "cvm.shape.empty"},
    {CVM_OP_conv2d, 2, {X4(1, 3, 4, 4, 8), X4(2, 2, 3, 3, 8)}, KV(CONV_OK, "groups", "2"),
     "cvm.attr.groups"},
    {CVM_OP_conv2d, 2, {X4(1, 4, 4, 4, 8), X4(2, 3, 3, 3, 8)},
     KV("channels", "2", "kernel_size", "(3, 3)", "use_bias", "false", "groups", "2"),
     "cvm.shape.mismatch"},
    {CVM_OP_conv2d, 3, {X4(1, 2, 4, 4, 8), X4(2, 2, 3, 3, 8), X1(3, 8)},
     KV("channels", "2", "kernel_size", "(3, 3)"), "cvm.shape.mismatch"},
    {CVM_OP_dense, 2, {X2(1, 4, 8), X2(2, 3, 8)}, KV("units", "2", "use_bias", "0"),
     "cvm.shape.mismatch"},
    {CVM_OP_elemwise_add, 2, {X1(2, 8), X1(3, 8)}, NULL, "cvm.shape.mismatch"},
    {CVM_OP_broadcast_mul, 2, {X2(2, 3, 8), X2(3, 2, 8)}, NULL, "cvm.shape.mismatch"},
    {CVM_OP_where, 3, {X1(3, 8), X2(2, 2, 8), X2(2, 2, 8)}, NULL, "cvm.shape.mismatch"},
    {CVM_OP_where, 3, {X2(2, 2, 8), X2(2, 2, 8), X2(2, 1, 8)}, NULL, "cvm.shape.mismatch"},
    {CVM_OP_concatenate, 2, {X2(2, 2, 8), X2(3, 3, 8)}, KV("axis", "0"), "cvm.shape.mismatch"},
    {CVM_OP_concatenate, 2, {X2(2, 2, 8), X1(2, 8)}, KV("axis", "0"), "cvm.shape.rank"},
    {CVM_OP_slice_like, 2, {X2(3, 4, 8), X2(4, 4, 8)}, NULL, "cvm.shape.mismatch"},
    {CVM_OP_get_valid_counts, 1, {X3(1, 4, 1, 8)}, NULL, "cvm.shape.mismatch"},
    {CVM_OP_non_max_suppression, 2, {X3(1, 4, 5, 8), X1(1, 8)}, NULL, "cvm.shape.mismatch"},
    {CVM_OP_non_max_suppression, 2, {X3(2, 4, 6, 8), X1(1, 8)}, NULL, "cvm.shape.mismatch"},
    /* precisions */
    {CVM_OP_conv2d, 2, {X4(1, 2, 4, 4, 9), X4(2, 2, 3, 3, 8)}, KV(CONV_OK), "cvm.precision.input"},
    {CVM_OP_dense, 2, {X2(1, 3, 8), X2(2, 3, 16)}, KV("units", "2", "use_bias", "0"),
     "cvm.precision.input"},
    {CVM_OP_non_max_suppression, 2, {X3(1, 4, 6, 31), X1(1, 8)}, NULL, "cvm.precision.input"},
    {CVM_OP_cvm_left_shift, 1, {X1(4, 30)}, KV("precision", "8", "shift_bit", "3"),
     "cvm.precision.input"},
    {CVM_OP_elemwise_add, 2, {X1(2, 32), X1(2, 31)}, NULL, "cvm.precision.range"},
    {CVM_OP_sum, 1, {X2(32, 32, 31)}, NULL, "cvm.precision.range"},
    {CVM_OP_clip, 1, {X1(4, 8)}, KV("a_min", "0", "a_max", "2147483647"), "cvm.precision.range"},
    /* limits on the outputs */
    {CVM_OP_expand_dims, 1, {X4(1, 1, 1, 1, 8)}, KV("axis", "0", "num_newaxis", "3"),
     "cvm.limit.ndim"},
    {CVM_OP_tile, 1, {X2(2, 2, 8)}, KV("reps", "(1, 1, 1, 1, 1, 1, 2)"), "cvm.limit.ndim"},
    {CVM_OP_repeat, 1, {X2(1, 1 << 20, 8)}, KV("repeats", "32", "axis", "1"), "cvm.limit.dim"},
    {CVM_OP_tile, 1, {X2(1 << 12, 1 << 12, 8)}, KV("reps", "(64, 64)"), "cvm.limit.volume"},
};

static void test_rules(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const Case *c = &cases[i];
        TOut r;
        top_run(&r, c->op, c->in, (uint32_t)c->nin, c->kv);
        if (r.st != ST_LOGIC)
            fprintf(stderr, "case %zu (%s, %s): status %d\n", i, cvm_op_name(c->op), c->rule,
                    (int)r.st);
        assert_int_equal(r.st, ST_LOGIC);
        expect_rule(&r.d, c->rule, "'op1'");
        /* the failed node is not left in the graph */
        assert_int_equal(r.g->nnodes, (uint32_t)c->nin);
        top_free(&r);
    }
}

/* Messages follow `where: what [rule]` with the node's number, name and operator. */
static void test_message_format(void **state)
{
    (void)state;
    TIn in[] = {X4(1, 2, 4, 4, 8), X4(2, 2, 3, 3, 8)};
    TOut r;
    top_run(&r, CVM_OP_conv2d, in, 2, KV(CONV_OK, "padding", "(5000, 1)"));
    assert_int_equal(r.st, ST_LOGIC);
    char buf[1024];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    assert_non_null(f);
    diag_print(&r.d, f, "taskir-compile");
    fclose(f);
    assert_string_equal(buf, "taskir-compile: test.json: node 2 'op1' (conv2d): attribute "
                             "'padding' = \"(5000, 1)\": value 5000 is out of range [0, 4095] "
                             "[cvm.attr.padding]\n");
    top_free(&r);
}

/* The input and parameter adders check limits and precisions too. */
static void test_leaf_rules(void **state)
{
    (void)state;
    Diag d;
    diag_init(&d, "t");
    OpGraph *g = og_create("cvm");
    OgShape s7 = {7, {1, 1, 1, 1, 1, 1}}; /* ndim beyond the dims held */
    assert_int_equal(fe_cvm_add_input(g, "data", &s7, 8, NULL, &d), ST_LOGIC);
    expect_rule(&d, "cvm.limit.ndim", "'data'");
    OgShape s = {2, {2, 2}};
    assert_int_equal(fe_cvm_add_input(g, "data", &s, 0, NULL, &d), ST_LOGIC);
    expect_rule(&d, "cvm.precision.range", "'data'");
    OgShape big = {1, {OG_MAX_DIM + 1}};
    assert_int_equal(fe_cvm_add_input(g, "data", &big, 8, NULL, &d), ST_LOGIC);
    expect_rule(&d, "cvm.limit.dim", "'data'");
    int32_t v[4] = {1, -2, 100, INT32_MIN};
    OgTensor t = {s, 4, v};
    assert_int_equal(fe_cvm_add_const(g, "w", &t, 0, NULL, &d), ST_LOGIC);
    expect_rule(&d, "cvm.params.range", "'w'");
    v[3] = 0;
    assert_int_equal(fe_cvm_add_const(g, "w", &t, 7, NULL, &d), ST_LOGIC);
    OgNode *n;
    assert_int_equal(fe_cvm_add_const(g, "w", &t, 0, &n, &d), ST_OK);
    assert_int_equal(n->out_prec[0], 8); /* 100 needs 8 bits */
    assert_int_equal(g->nnodes, 1);
    og_destroy(g);
    diag_finish(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int_syntax),
        cmocka_unit_test(test_tuple_syntax),
        cmocka_unit_test(test_bool_syntax),
        cmocka_unit_test(test_typed_defaults),
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_message_format),
        cmocka_unit_test(test_leaf_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
