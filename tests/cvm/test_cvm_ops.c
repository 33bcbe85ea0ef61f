/* test_cvm_ops.c: every CVM operator on hand-computed cases, through the checked builder and
 * the reference interpreter: the formalization's own worked examples (docs/cvm-divergences.md),
 * boundary values (INT32 extremes within precision 32, shifts of 1/31/32, zero divisors,
 * negative rounding), inferred output shapes and precisions, and the points where we follow
 * the formalization rather than cvm-runtime's CPU code (docs/cvm-divergences.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cvm_test_util.h"
#include "frontend/cinn/cinn_ops.h"

#define I32MAX 2147483647
#define RUN(r, op, ins, kv) top_run(r, CVM_OP_##op, ins, (uint32_t)(sizeof ins / sizeof *ins), kv)

/* ---- nn ---- */

static void test_conv2d_basic(void **state)
{
    (void)state;
    TIn in[] = {{ND(1, 1, 3, 3), VALS(1, 2, 3, 4, 5, 6, 7, 8, 9), 8},
                {ND(1, 1, 2, 2), VALS(1, 0, 0, 1), 8}};
    TOut r;
    RUN(&r, conv2d, in, KV("channels", "1", "kernel_size", "(2, 2)", "use_bias", "False"));
    top_expect(&r, 0, 4, SHP(1, 1, 2, 2), VALS(6, 8, 12, 14));
    assert_int_equal(r.node->out_prec[0], 8 + 8 + 3); /* bits(1*2*2) = 3 */
    top_free(&r);
}

static void test_conv2d_pad_stride_bias(void **state)
{
    (void)state;
    int32_t ones[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    TIn in[] = {{ND(1, 1, 3, 3), VALS(1, 2, 3, 4, 5, 6, 7, 8, 9), 5},
                {ND(1, 1, 3, 3), ones, 2},
                {ND(1), VALS(10), 5}};
    TOut r;
    RUN(&r, conv2d, in, KV("channels", "1", "kernel_size", "[3,3]", "padding", "(1, 1)",
                           "strides", "(2, 2)", "use_bias", "true"));
    top_expect(&r, 0, 4, SHP(1, 1, 2, 2), VALS(22, 26, 34, 38));
    assert_int_equal(r.node->out_prec[0], 5 + 2 + 4 + 1); /* bits(9) = 4, +1 for the bias */
    top_free(&r);
}

static void test_conv2d_dilation(void **state)
{
    (void)state;
    int32_t x[16];
    for (int i = 0; i < 16; i++)
        x[i] = i;
    TIn in[] = {{ND(1, 1, 4, 4), x, 8}, {ND(1, 1, 2, 2), VALS(1, 1, 1, 1), 8}};
    TOut r;
    RUN(&r, conv2d, in, KV("channels", "1", "kernel_size", "(2, 2)", "dilation", "(2, 2)",
                           "use_bias", "0"));
    top_expect(&r, 0, 4, SHP(1, 1, 2, 2), VALS(20, 24, 36, 40));
    top_free(&r);
}

static void test_conv2d_groups(void **state)
{
    (void)state;
    /* depthwise: groups = C (the CVM formalization's case 2) */
    TIn dw[] = {{ND(1, 2, 2, 2), VALS(1, 2, 3, 4, 5, 6, 7, 8), 8},
                {ND(2, 1, 1, 1), VALS(2, -1), 8}};
    TOut r;
    RUN(&r, conv2d, dw, KV("channels", "2", "kernel_size", "(1, 1)", "groups", "2",
                           "use_bias", "false"));
    top_expect(&r, 0, 4, SHP(1, 2, 2, 2), VALS(2, 4, 6, 8, -5, -6, -7, -8));
    top_free(&r);
    /* group-wise (the CVM design text): groups 2, C 4, OC 2, IC 2 */
    TIn gw[] = {{ND(1, 4, 1, 1), VALS(1, 2, 3, 4), 8},
                {ND(2, 2, 1, 1), VALS(1, 1, 1, -1), 8}};
    RUN(&r, conv2d, gw, KV("channels", "2", "kernel_size", "(1, 1)", "groups", "2",
                           "use_bias", "false"));
    top_expect(&r, 0, 4, SHP(1, 2, 1, 1), VALS(3, -1));
    top_free(&r);
    /* int8 extremes: -127 * -127 */
    TIn ex[] = {{ND(1, 1, 1, 1), VALS(-127), 8}, {ND(1, 1, 1, 1), VALS(-127), 8}};
    RUN(&r, conv2d, ex, KV("channels", "1", "kernel_size", "(1, 1)", "use_bias", "false"));
    top_expect(&r, 0, 4, SHP(1, 1, 1, 1), VALS(16129));
    top_free(&r);
}

static void test_dense(void **state)
{
    (void)state;
    TIn in[] = {{ND(2, 3), VALS(1, 2, 3, 4, 5, 6), 4},
                {ND(2, 3), VALS(1, 0, -1, 2, 1, 0), 3},
                {ND(2), VALS(10, -10), 5}};
    TOut r;
    RUN(&r, dense, in, KV("units", "2"));
    top_expect(&r, 0, 2, SHP(2, 2), VALS(8, -6, 8, 3));
    assert_int_equal(r.node->out_prec[0], 4 + 3 + 2 + 1); /* bits(3) = 2; bias +1 */
    top_free(&r);
    TIn nb[] = {{ND(1, 2), VALS(127, -127), 8}, {ND(1, 2), VALS(127, 127), 8}};
    RUN(&r, dense, nb, KV("units", "1", "use_bias", "False"));
    top_expect(&r, 0, 2, SHP(1, 1), VALS(0));
    assert_int_equal(r.node->out_prec[0], 8 + 8 + 2);
    top_free(&r);
}

static void test_relu(void **state)
{
    (void)state;
    TIn in[] = {{ND(5), VALS(-3, 0, 5, -I32MAX, I32MAX), 32}};
    TOut r;
    RUN(&r, relu, in, NULL);
    top_expect(&r, 0, 1, SHP(5), VALS(0, 0, 5, 0, I32MAX));
    assert_int_equal(r.node->out_prec[0], 32);
    top_free(&r);
}

static void test_max_pool2d(void **state)
{
    (void)state;
    TIn in[] = {{ND(1, 1, 3, 3), VALS(1, -2, 3, -4, 5, -6, 7, -8, 9), 8}};
    TOut r;
    RUN(&r, max_pool2d, in, KV("pool_size", "(2, 2)"));
    top_expect(&r, 0, 4, SHP(1, 1, 2, 2), VALS(5, 5, 7, 9));
    top_free(&r);
    /* padding reads as 0 (the CVM formalization), so all-negative windows that touch it give 0 */
    TIn neg[] = {{ND(1, 1, 3, 3), VALS(-1, -2, -3, -4, -5, -6, -7, -8, -9), 8}};
    RUN(&r, max_pool2d, neg, KV("pool_size", "(3, 3)", "padding", "1", "strides", "(2, 2)"));
    top_expect(&r, 0, 4, SHP(1, 1, 2, 2), VALS(0, 0, 0, 0));
    top_free(&r);
    /* ceil_mode: the last window hangs over the edge and reads 0 there */
    int32_t x[16];
    for (int i = 0; i < 16; i++)
        x[i] = -1 - i;
    TIn c[] = {{ND(1, 1, 4, 4), x, 8}};
    RUN(&r, max_pool2d, c, KV("pool_size", "(3, 3)", "strides", "(2, 2)", "ceil_mode", "True"));
    top_expect(&r, 0, 4, SHP(1, 1, 2, 2), VALS(-1, 0, 0, 0));
    top_free(&r);
    RUN(&r, max_pool2d, c, KV("pool_size", "(3, 3)", "strides", "(2, 2)", "ceil_mode", "false"));
    top_expect(&r, 0, 4, SHP(1, 1, 1, 1), VALS(-1));
    top_free(&r);
}

static void test_upsampling(void **state)
{
    (void)state;
    TIn in[] = {{ND(1, 1, 2, 2), VALS(1, 2, 3, 4), 8}};
    TOut r;
    RUN(&r, upsampling, in, KV("scale", "2"));
    top_expect(&r, 0, 4, SHP(1, 1, 4, 4),
               VALS(1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4));
    top_free(&r);
}

/* ---- vision ---- */

static void test_get_valid_counts(void **state)
{
    (void)state;
    TIn in[] = {{ND(1, 4, 3), VALS(0, 5, 1, 1, -1, 2, 2, 10, 3, 3, 0, 4), 8}};
    TOut r;
    RUN(&r, get_valid_counts, in, KV("score_threshold", "0"));
    top_expect(&r, 0, 1, SHP(1), VALS(2));
    top_expect(&r, 1, 3, SHP(1, 4, 3), VALS(0, 5, 1, 2, 10, 3, -1, -1, -1, -1, -1, -1));
    assert_int_equal(r.node->out_prec[0], 5); /* GetNumberPrecision(4 * 3) */
    assert_int_equal(r.node->out_prec[1], 8);
    top_free(&r);
}

static const int32_t nms_x[] = {
    0, 90, 0, 0, 10, 10,   /* r0 */
    0, 80, 1, 1, 11, 11,   /* r1: iou(r0) = 81 * 100 / 119 = 68 percent */
    1, 70, 0, 0, 10, 10,   /* r2: same box as r0, other class */
    0, 95, 20, 20, 30, 30, /* r3: best score, no overlap */
};

static void nms_case(const char *const *kv, int32_t valid, const int32_t *want)
{
    TIn in[] = {{ND(1, 4, 6), nms_x, 8}, {ND(1), (const int32_t[]){valid}, 8}};
    TOut r;
    RUN(&r, non_max_suppression, in, kv);
    top_expect(&r, 0, 3, SHP(1, 4, 6), want);
    top_free(&r);
}

#define R0 0, 90, 0, 0, 10, 10
#define R2 1, 70, 0, 0, 10, 10
#define R3 0, 95, 20, 20, 30, 30
#define NONE -1, -1, -1, -1, -1, -1

static void test_nms(void **state)
{
    (void)state;
    nms_case(KV("iou_threshold", "50"), 4, VALS(R3, R0, R2, NONE));
    nms_case(KV("iou_threshold", "69"), 4, VALS(R3, R0, 0, 80, 1, 1, 11, 11, R2));
    nms_case(KV("iou_threshold", "50", "force_suppress", "true"), 4, VALS(R3, R0, NONE, NONE));
    nms_case(KV("iou_threshold", "50", "top_k", "2"), 4, VALS(R3, R0, NONE, NONE));
    nms_case(KV("iou_threshold", "50", "max_output_size", "1"), 4, VALS(R3, NONE, NONE, NONE));
    nms_case(KV("iou_threshold", "50"), 2, VALS(R0, NONE, NONE, NONE));
    nms_case(KV("iou_threshold", "50"), -3, VALS(NONE, NONE, NONE, NONE));
    nms_case(KV("iou_threshold", "50"), 99, VALS(R3, R0, R2, NONE));
    /* a row whose class id is negative is never kept */
    TIn in[] = {{ND(1, 2, 6), VALS(-1, 99, 0, 0, 1, 1, 2, 5, 0, 0, 1, 1), 8},
                {ND(1), VALS(2), 8}};
    TOut r;
    RUN(&r, non_max_suppression, in, KV("iou_threshold", "50"));
    top_expect(&r, 0, 3, SHP(1, 2, 6), VALS(2, 5, 0, 0, 1, 1, NONE));
    top_free(&r);
}

/* ---- elementwise ---- */

static void test_abs_negative(void **state)
{
    (void)state;
    TIn in[] = {{ND(4), VALS(-5, 0, 7, -I32MAX), 32}};
    TOut r;
    RUN(&r, abs, in, NULL);
    top_expect(&r, 0, 1, SHP(4), VALS(5, 0, 7, I32MAX));
    top_free(&r);
    RUN(&r, negative, in, NULL);
    top_expect(&r, 0, 1, SHP(4), VALS(5, 0, -7, I32MAX));
    assert_int_equal(r.node->out_prec[0], 32);
    top_free(&r);
}

static void test_cvm_precision(void **state)
{
    (void)state;
    TIn in[] = {{ND(10), VALS(0, 1, -1, 2, 3, 4, -8, 127, -128, I32MAX), 32}};
    TOut r;
    RUN(&r, cvm_precision, in, NULL);
    /* the CVM design text: ceil(log2(|x| + 1)), 1 for 0 */
    top_expect(&r, 0, 1, SHP(10), VALS(1, 1, 1, 2, 2, 3, 4, 7, 8, 31));
    assert_int_equal(r.node->out_prec[0], 6);
    top_free(&r);
}

static void test_elemwise_add_sub(void **state)
{
    (void)state;
    int32_t big = (1 << 30) - 1;
    TIn in[] = {{ND(3), VALS(1, 2, big), 31}, {ND(3), VALS(3, -4, big), 31}};
    TOut r;
    RUN(&r, elemwise_add, in, NULL);
    top_expect(&r, 0, 1, SHP(3), VALS(4, -2, 2 * big));
    assert_int_equal(r.node->out_prec[0], 32);
    top_free(&r);
    RUN(&r, elemwise_sub, in, NULL);
    top_expect(&r, 0, 1, SHP(3), VALS(-2, 6, 0));
    top_free(&r);
}

static void test_clip(void **state)
{
    (void)state;
    TIn in[] = {{ND(5), VALS(-100, -19, -5, 10, 11), 8}};
    TOut r;
    RUN(&r, clip, in, KV("a_min", "-19", "a_max", "10")); /* the formalization's test parameters */
    top_expect(&r, 0, 1, SHP(5), VALS(-19, -19, -5, 10, 10));
    assert_int_equal(r.node->out_prec[0], 6); /* GetNumberPrecision(19) = bits(20) + 1 */
    top_free(&r);
}

/* ---- cvm_* ---- */

static void test_cvm_clip(void **state)
{
    (void)state;
    TIn in[] = {{ND(5), VALS(-3, -1, 0, 1, 2), 8}};
    TOut r;
    RUN(&r, cvm_clip, in, KV("precision", "2")); /* the CVM formalization's test parameter */
    top_expect(&r, 0, 1, SHP(5), VALS(-1, -1, 0, 1, 1));
    assert_int_equal(r.node->out_prec[0], 2);
    top_free(&r);
    RUN(&r, cvm_clip, in, KV("precision", "1"));
    top_expect(&r, 0, 1, SHP(5), VALS(0, 0, 0, 0, 0));
    top_free(&r);
    TIn ext[] = {{ND(2), VALS(-I32MAX, I32MAX), 32}};
    RUN(&r, cvm_clip, ext, KV("precision", "32", "is_sign", "True"));
    top_expect(&r, 0, 1, SHP(2), VALS(-I32MAX, I32MAX));
    top_free(&r);
}

static void test_cvm_right_shift(void **state)
{
    (void)state;
    /* shift 1: round half up, -1.5 -> -1 (the CVM design text) */
    TIn in[] = {{ND(7), VALS(3, -3, 5, -5, 1, -1, 0), 8}};
    TOut r;
    RUN(&r, cvm_right_shift, in, KV("precision", "8", "shift_bit", "1"));
    top_expect(&r, 0, 1, SHP(7), VALS(2, -1, 3, -2, 1, 0, 0));
    top_free(&r);
    TIn in2[] = {{ND(6), VALS(6, -6, 7, -7, 2, -2), 8}};
    RUN(&r, cvm_right_shift, in2, KV("precision", "8", "shift_bit", "2"));
    top_expect(&r, 0, 1, SHP(6), VALS(2, -1, 2, -2, 1, 0));
    top_free(&r);
    /* clipping to the output precision */
    TIn in3[] = {{ND(2), VALS(1000, -1000), 16}};
    RUN(&r, cvm_right_shift, in3, KV("precision", "4", "shift_bit", "1"));
    top_expect(&r, 0, 1, SHP(2), VALS(7, -7));
    assert_int_equal(r.node->out_prec[0], 4);
    top_free(&r);
    /* shift 31 and 32 on int32 extremes, exact (cvm-runtime's int32 code differs here) */
    TIn ext[] = {{ND(3), VALS(I32MAX, -I32MAX, 1 << 30), 32}};
    RUN(&r, cvm_right_shift, ext, KV("precision", "32", "shift_bit", "31"));
    top_expect(&r, 0, 1, SHP(3), VALS(1, -1, 1));
    top_free(&r);
    RUN(&r, cvm_right_shift, ext, KV("precision", "32", "shift_bit", "32"));
    top_expect(&r, 0, 1, SHP(3), VALS(0, 0, 0));
    top_free(&r);
}

static void test_cvm_left_shift(void **state)
{
    (void)state;
    TIn in[] = {{ND(5), VALS(1, -1, 31, 32, -40), 8}};
    TOut r;
    RUN(&r, cvm_left_shift, in, KV("precision", "8", "shift_bit", "2"));
    top_expect(&r, 0, 1, SHP(5), VALS(4, -4, 124, 127, -127));
    assert_int_equal(r.node->out_prec[0], 8);
    top_free(&r);
    TIn big[] = {{ND(3), VALS(1, -1, 0), 2}};
    RUN(&r, cvm_left_shift, big, KV("precision", "32", "shift_bit", "30"));
    top_expect(&r, 0, 1, SHP(3), VALS(1 << 30, -(1 << 30), 0));
    top_free(&r);
    TIn zero[] = {{ND(1), VALS(0), 1}};
    RUN(&r, cvm_left_shift, zero, KV("precision", "32", "shift_bit", "31"));
    top_expect(&r, 0, 1, SHP(1), VALS(0));
    top_free(&r);
}

static void test_cvm_lut(void **state)
{
    (void)state;
    TIn in[] = {{ND(4), VALS(0, 2, -1, 5), 8}, {ND(3), VALS(10, 20, 30), 6}};
    TOut r;
    RUN(&r, cvm_lut, in, KV("in_dim", "3"));
    top_expect(&r, 0, 1, SHP(4), VALS(10, 30, 10, 30));
    assert_int_equal(r.node->out_prec[0], 6);
    top_free(&r);
}

/* ---- broadcast ---- */

static void test_broadcast_add_sub(void **state)
{
    (void)state;
    TIn in[] = {{ND(2, 3), VALS(1, 1, 1, 1, 1, 1), 2}, {ND(2, 1), VALS(0, 1), 2}};
    TOut r;
    RUN(&r, broadcast_add, in, NULL); /* the CVM formalization's and design text's example */
    top_expect(&r, 0, 2, SHP(2, 3), VALS(1, 1, 1, 2, 2, 2));
    assert_int_equal(r.node->out_prec[0], 3);
    top_free(&r);
    TIn rk[] = {{ND(3), VALS(1, 1, 1), 2}, {ND(2, 3), VALS(1, 2, 3, 4, 5, 6), 4}};
    RUN(&r, broadcast_sub, rk, NULL); /* the minuend may have fewer dims (the CVM design text) */
    top_expect(&r, 0, 2, SHP(2, 3), VALS(0, -1, -2, -3, -4, -5));
    top_free(&r);
    TIn both[] = {{ND(2, 1), VALS(10, 20), 8}, {ND(1, 3), VALS(1, 2, 3), 8}};
    RUN(&r, broadcast_sub, both, NULL);
    top_expect(&r, 0, 2, SHP(2, 3), VALS(9, 8, 7, 19, 18, 17));
    top_free(&r);
}

static void test_broadcast_mul_max_greater(void **state)
{
    (void)state;
    TIn in[] = {{ND(2, 3), VALS(1, 1, 1, 1, 1, 1), 2}, {ND(2, 1), VALS(0, 1), 2}};
    TOut r;
    RUN(&r, broadcast_mul, in, NULL);
    top_expect(&r, 0, 2, SHP(2, 3), VALS(0, 0, 0, 1, 1, 1));
    assert_int_equal(r.node->out_prec[0], 4);
    top_free(&r);
    RUN(&r, broadcast_greater, in, NULL);
    top_expect(&r, 0, 2, SHP(2, 3), VALS(1, 1, 1, 0, 0, 0));
    top_free(&r);
    TIn mx[] = {{ND(2, 3), VALS(1, 2, 3, 4, 5, 6), 4}, {ND(2, 1), VALS(2, 3), 4}};
    RUN(&r, broadcast_max, mx, NULL);
    top_expect(&r, 0, 2, SHP(2, 3), VALS(2, 2, 3, 4, 5, 6));
    assert_int_equal(r.node->out_prec[0], 4);
    top_free(&r);
    TIn ext[] = {{ND(2), VALS(-I32MAX, 3), 32}, {ND(2), VALS(-1, 3), 32}};
    RUN(&r, broadcast_greater, ext, NULL);
    top_expect(&r, 0, 1, SHP(2), VALS(0, 0));
    top_free(&r);
}

static void test_broadcast_div(void **state)
{
    (void)state;
    TIn in[] = {{ND(2, 3), VALS(6, 6, 6, 6, 6, 6), 4}, {ND(2, 1), VALS(2, 3), 4}};
    TOut r;
    RUN(&r, broadcast_div, in, NULL);
    top_expect(&r, 0, 2, SHP(2, 3), VALS(3, 3, 3, 2, 2, 2));
    top_free(&r);
    /* truncation toward zero; a zero divisor gives 0 */
    TIn tr[] = {{ND(6), VALS(7, -7, 7, -7, 5, -I32MAX), 32}, {ND(6), VALS(2, 2, -2, -2, 0, -1), 32}};
    RUN(&r, broadcast_div, tr, NULL);
    top_expect(&r, 0, 1, SHP(6), VALS(3, -3, -3, 3, 0, I32MAX));
    top_free(&r);
}

/* ---- reduce ---- */

static const int32_t red_x[] = {1, 2, 2, 3, 1, 3, 1, 4, 4, 3, 5, 2, 7, 1, 7, 2, 7, 3};

static void test_sum(void **state)
{
    (void)state;
    TIn in[] = {{ND(3, 3, 2), red_x, 8}};
    TOut r;
    RUN(&r, sum, in, KV("axis", "(1)")); /* the formalization's example */
    top_expect(&r, 0, 2, SHP(3, 2), VALS(4, 8, 10, 9, 21, 6));
    assert_int_equal(r.node->out_prec[0], 8 + 2);
    top_free(&r);
    RUN(&r, sum, in, KV("axis", "[1,2]"));
    top_expect(&r, 0, 1, SHP(3), VALS(12, 19, 27));
    top_free(&r);
    RUN(&r, sum, in, KV("axis", "1", "keepdims", "true"));
    top_expect(&r, 0, 3, SHP(3, 1, 2), VALS(4, 8, 10, 9, 21, 6));
    top_free(&r);
    RUN(&r, sum, in, KV("axis", "(1,)", "exclude", "True")); /* reduces axes 0 and 2 */
    top_expect(&r, 0, 1, SHP(3), VALS(16, 21, 21));
    top_free(&r);
    RUN(&r, sum, in, NULL); /* no axes: everything, shape (1,) */
    top_expect(&r, 0, 1, SHP(1), VALS(58));
    assert_int_equal(r.node->out_prec[0], 8 + 5);
    top_free(&r);
    RUN(&r, sum, in, KV("keepdims", "True"));
    top_expect(&r, 0, 3, SHP(1, 1, 1), VALS(58));
    top_free(&r);
    RUN(&r, sum, in, KV("axis", "(0, 1, 2)", "exclude", "true")); /* nothing reduced: Y = X */
    top_expect(&r, 0, 3, SHP(3, 3, 2), red_x);
    top_free(&r);
    /* size-1 dims are reduced like any other (cvm-runtime special-cases them) */
    TIn one[] = {{ND(1, 3, 1), VALS(-1, 5, 2), 8}};
    RUN(&r, sum, one, KV("axis", "(-1,)"));
    top_expect(&r, 0, 2, SHP(1, 3), VALS(-1, 5, 2));
    top_free(&r);
}

static void test_max(void **state)
{
    (void)state;
    TIn in[] = {{ND(3, 3, 2), red_x, 8}};
    TOut r;
    RUN(&r, max, in, KV("axis", "(1,)"));
    top_expect(&r, 0, 2, SHP(3, 2), VALS(2, 3, 5, 4, 7, 3));
    assert_int_equal(r.node->out_prec[0], 8);
    top_free(&r);
    /* the true maximum even when every value is negative (cvm-runtime starts from 0) */
    TIn neg[] = {{ND(2, 2), VALS(-5, -3, -9, -4), 8}};
    RUN(&r, max, neg, NULL);
    top_expect(&r, 0, 1, SHP(1), VALS(-3));
    top_free(&r);
    TIn one[] = {{ND(2, 1), VALS(-5, -3), 8}};
    RUN(&r, max, one, KV("axis", "1"));
    top_expect(&r, 0, 1, SHP(2), VALS(-5, -3));
    top_free(&r);
}

/* ---- transform ---- */

static void test_repeat_tile(void **state)
{
    (void)state;
    TIn in[] = {{ND(2, 2), VALS(1, 2, 3, 4), 8}};
    TOut r;
    RUN(&r, repeat, in, KV("repeats", "2", "axis", "1"));
    top_expect(&r, 0, 2, SHP(2, 4), VALS(1, 1, 2, 2, 3, 3, 4, 4));
    top_free(&r);
    RUN(&r, repeat, in, KV("repeats", "2", "axis", "-2"));
    top_expect(&r, 0, 2, SHP(4, 2), VALS(1, 2, 1, 2, 3, 4, 3, 4));
    top_free(&r);
    TIn v[] = {{ND(2), VALS(1, 2), 8}};
    RUN(&r, tile, v, KV("reps", "(2, 2)"));
    top_expect(&r, 0, 2, SHP(2, 4), VALS(1, 2, 1, 2, 1, 2, 1, 2));
    top_free(&r);
    RUN(&r, tile, in, KV("reps", "3"));
    top_expect(&r, 0, 2, SHP(2, 6), VALS(1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4));
    top_free(&r);
}

static void test_flatten_reshape(void **state)
{
    (void)state;
    int32_t x[24];
    for (int i = 0; i < 24; i++)
        x[i] = i;
    TIn in[] = {{ND(2, 3, 4), x, 8}};
    TOut r;
    RUN(&r, flatten, in, NULL); /* keeps the batch dim */
    top_expect(&r, 0, 2, SHP(2, 12), x);
    top_free(&r);
    static const struct { const char *shape; uint32_t nd; int64_t d[4]; } cases[] = {
        {"(4, 0, 2)", 3, {4, 3, 2}},       {"(2, 0, 0)", 3, {2, 3, 4}},
        {"(6, 1, -1)", 3, {6, 1, 4}},      {"(3, -1, 8)", 3, {3, 1, 8}},
        {"(-1,)", 1, {24}},                {"(-2,)", 3, {2, 3, 4}},
        {"(2, -2)", 3, {2, 3, 4}},         {"(-2, 1, 1)", 5, {0}},
        {"(-3, 4)", 2, {6, 4}},            {"(0, -3)", 2, {2, 12}},
        {"(-3, -2)", 2, {6, 4}},           {"(-4, 1, 2, -2)", 4, {1, 2, 3, 4}},
        {"(2, -4, -1, 3, -2)", 4, {2, 1, 3, 4}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        RUN(&r, reshape, in, KV("shape", cases[i].shape));
        if (cases[i].nd == 5) {
            top_expect(&r, 0, 5, SHP(2, 3, 4, 1, 1), x);
        } else {
            top_expect(&r, 0, cases[i].nd, cases[i].d, x);
        }
        top_free(&r);
    }
}

static void test_squeeze_expand_dims(void **state)
{
    (void)state;
    TIn in[] = {{ND(1, 3, 1), VALS(0, 1, 2), 8}};
    TOut r;
    RUN(&r, squeeze, in, NULL);
    top_expect(&r, 0, 1, SHP(3), VALS(0, 1, 2));
    top_free(&r);
    RUN(&r, squeeze, in, KV("axis", "0"));
    top_expect(&r, 0, 2, SHP(3, 1), VALS(0, 1, 2));
    top_free(&r);
    RUN(&r, squeeze, in, KV("axis", "(0, -1)"));
    top_expect(&r, 0, 1, SHP(3), VALS(0, 1, 2));
    top_free(&r);
    TIn ones[] = {{ND(1, 1), VALS(7), 8}};
    RUN(&r, squeeze, ones, NULL);
    top_expect(&r, 0, 1, SHP(1), VALS(7));
    top_free(&r);
    TIn m[] = {{ND(2, 3), VALS(1, 2, 3, 4, 5, 6), 8}};
    RUN(&r, expand_dims, m, KV("axis", "1"));
    top_expect(&r, 0, 3, SHP(2, 1, 3), VALS(1, 2, 3, 4, 5, 6));
    top_free(&r);
    RUN(&r, expand_dims, m, KV("axis", "-1"));
    top_expect(&r, 0, 3, SHP(2, 3, 1), VALS(1, 2, 3, 4, 5, 6));
    top_free(&r);
    RUN(&r, expand_dims, m, KV("axis", "-3", "num_newaxis", "2"));
    top_expect(&r, 0, 4, SHP(1, 1, 2, 3), VALS(1, 2, 3, 4, 5, 6));
    top_free(&r);
}

static void test_transpose(void **state)
{
    (void)state;
    TIn in[] = {{ND(2, 2), VALS(1, 2, 3, 4), 8}};
    TOut r;
    RUN(&r, transpose, in, NULL);
    top_expect(&r, 0, 2, SHP(2, 2), VALS(1, 3, 2, 4));
    top_free(&r);
    TIn c[] = {{ND(2, 2, 2), VALS(1, 2, 3, 4, 5, 6, 7, 8), 8}};
    RUN(&r, transpose, c, NULL);
    top_expect(&r, 0, 3, SHP(2, 2, 2), VALS(1, 5, 3, 7, 2, 6, 4, 8));
    top_free(&r);
    RUN(&r, transpose, c, KV("axes", "(1, 0, 2)"));
    top_expect(&r, 0, 3, SHP(2, 2, 2), VALS(1, 2, 5, 6, 3, 4, 7, 8));
    top_free(&r);
    TIn rect[] = {{ND(1, 2, 3), VALS(1, 2, 3, 4, 5, 6), 8}};
    RUN(&r, transpose, rect, KV("axes", "(-1, 0, 1)"));
    top_expect(&r, 0, 3, SHP(3, 1, 2), VALS(1, 4, 2, 5, 3, 6));
    top_free(&r);
}

static void test_strided_slice(void **state)
{
    (void)state;
    TIn in[] = {{ND(3, 4), VALS(1, 4, 7, 10, 2, 5, 8, 11, 3, 6, 9, 12), 8}};
    TOut r;
    RUN(&r, strided_slice, in, KV("begin", "[0, 1]", "end", "[2, 4]", "stride", "[1, 1]"));
    top_expect(&r, 0, 2, SHP(2, 3), VALS(4, 7, 10, 5, 8, 11));
    top_free(&r);
    /* a full slice keeps every element (docs/cvm-divergences.md) */
    RUN(&r, strided_slice, in, KV("begin", "(0, 0)", "end", "(3, 4)"));
    top_expect(&r, 0, 2, SHP(3, 4), VALS(1, 4, 7, 10, 2, 5, 8, 11, 3, 6, 9, 12));
    top_free(&r);
    RUN(&r, strided_slice, in, KV("begin", "(0,)", "end", "(9223372036854775807,)"));
    top_expect(&r, 0, 2, SHP(3, 4), VALS(1, 4, 7, 10, 2, 5, 8, 11, 3, 6, 9, 12));
    top_free(&r);
    TIn v[] = {{ND(4), VALS(1, 2, 3, 4), 8}};
    RUN(&r, strided_slice, v, KV("begin", "3", "end", "-5", "stride", "-1"));
    top_expect(&r, 0, 1, SHP(4), VALS(4, 3, 2, 1));
    top_free(&r);
    RUN(&r, strided_slice, v, KV("begin", "-1", "end", "-9223372036854775808", "stride", "-2"));
    top_expect(&r, 0, 1, SHP(2), VALS(4, 2));
    top_free(&r);
    RUN(&r, strided_slice, v, KV("begin", "1", "end", "-1", "stride", "2"));
    top_expect(&r, 0, 1, SHP(1), VALS(2));
    top_free(&r);
}

static void test_slice_like(void **state)
{
    (void)state;
    int32_t x[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    int32_t z[4] = {0};
    TIn in[] = {{ND(3, 4), x, 8}, {ND(2, 2), z, 8}};
    TOut r;
    RUN(&r, slice_like, in, NULL);
    top_expect(&r, 0, 2, SHP(2, 2), VALS(1, 2, 5, 6));
    assert_int_equal(r.node->out_prec[0], 8);
    top_free(&r);
    RUN(&r, slice_like, in, KV("axis", "(1,)"));
    top_expect(&r, 0, 2, SHP(3, 2), VALS(1, 2, 5, 6, 9, 10));
    top_free(&r);
    RUN(&r, slice_like, in, KV("axis", "-2"));
    top_expect(&r, 0, 2, SHP(2, 4), VALS(1, 2, 3, 4, 5, 6, 7, 8));
    top_free(&r);
}

static void test_concatenate(void **state)
{
    (void)state;
    TIn in[] = {{ND(2, 2), VALS(1, 1, 2, 2), 4},
                {ND(3, 2), VALS(3, 3, 4, 4, 5, 5), 4},
                {ND(3, 2), VALS(6, 6, 7, 7, 8, 8), 5}};
    TOut r;
    RUN(&r, concatenate, in, KV("axis", "0"));
    top_expect(&r, 0, 2, SHP(8, 2), VALS(1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8));
    assert_int_equal(r.node->out_prec[0], 5);
    top_free(&r);
    TIn yz[] = {in[1], in[2]};
    RUN(&r, concatenate, yz, KV("axis", "1"));
    top_expect(&r, 0, 2, SHP(3, 4), VALS(3, 3, 6, 6, 4, 4, 7, 7, 5, 5, 8, 8));
    top_free(&r);
    RUN(&r, concatenate, yz, KV("axis", "-1"));
    top_expect(&r, 0, 2, SHP(3, 4), VALS(3, 3, 6, 6, 4, 4, 7, 7, 5, 5, 8, 8));
    top_free(&r);
}

static void test_take(void **state)
{
    (void)state;
    TIn in[] = {{ND(2, 2), VALS(1, 2, 3, 4), 8}, {ND(3), VALS(3, 0, 2), 8}};
    TOut r;
    RUN(&r, take, in, NULL);
    top_expect(&r, 0, 1, SHP(3), VALS(4, 1, 3));
    top_free(&r);
    TIn ax[] = {in[0], {ND(2), VALS(1, 0), 8}};
    RUN(&r, take, ax, KV("axis", "1"));
    top_expect(&r, 0, 2, SHP(2, 2), VALS(2, 1, 4, 3));
    top_free(&r);
    TIn cl[] = {in[0], {ND(2), VALS(-1, 5), 8}};
    RUN(&r, take, cl, KV("axis", "None"));
    top_expect(&r, 0, 1, SHP(2), VALS(1, 4));
    top_free(&r);
    RUN(&r, take, cl, KV("axis", "0")); /* rows clipped to [0, 1] */
    top_expect(&r, 0, 2, SHP(2, 2), VALS(1, 2, 3, 4));
    top_free(&r);
    TIn idx2[] = {in[0], {ND(2, 1), VALS(1, 0), 8}};
    RUN(&r, take, idx2, KV("axis", "-1"));
    top_expect(&r, 0, 3, SHP(2, 2, 1), VALS(2, 1, 4, 3));
    top_free(&r);
}

static void test_where(void **state)
{
    (void)state;
    TIn in[] = {{ND(2, 2), VALS(0, 1, -1, 0), 8},
                {ND(2, 2), VALS(1, 2, 3, 4), 4},
                {ND(2, 2), VALS(5, 6, 7, 8), 5}};
    TOut r;
    RUN(&r, where, in, NULL);
    top_expect(&r, 0, 2, SHP(2, 2), VALS(5, 2, 3, 8));
    assert_int_equal(r.node->out_prec[0], 5);
    top_free(&r);
    TIn rows[] = {{ND(2), VALS(1, 0), 2}, in[1], in[2]};
    RUN(&r, where, rows, NULL);
    top_expect(&r, 0, 2, SHP(2, 2), VALS(1, 2, 7, 8));
    top_free(&r);
}

/* A graph of several nodes: a value read by two operators, an output nobody reads
 * (get_valid_counts' count), an input and a parameter that are model outputs themselves. */
static void test_chain(void **state)
{
    (void)state;
    Diag d;
    diag_init(&d, "chain");
    OpGraph *g = og_create("cvm");
    OgShape s = {3, {1, 2, 3}};
    OgNode *in, *w, *r, *a, *ng, *add, *gvc, *out;
    assert_int_equal(fe_cvm_add_input(g, "data", &s, 8, &in, &d), ST_OK);
    int32_t wv[6] = {1, 1, 1, 1, 1, 1};
    OgTensor wt = {s, 6, wv};
    assert_int_equal(fe_cvm_add_const(g, "w", &wt, 0, &w, &d), ST_OK);
    assert_int_equal(w->out_prec[0], 2);
    OgEdge e_in = {in->id, 0};
    assert_int_equal(fe_cvm_add_op(g, CVM_OP_relu, "r", &e_in, 1, NULL, 0, &r, &d), ST_OK);
    OgEdge e_r = {r->id, 0};
    assert_int_equal(fe_cvm_add_op(g, CVM_OP_abs, "a", &e_r, 1, NULL, 0, &a, &d), ST_OK);
    assert_int_equal(fe_cvm_add_op(g, CVM_OP_negative, "n", &e_r, 1, NULL, 0, &ng, &d), ST_OK);
    OgEdge e2[2] = {{a->id, 0}, {ng->id, 0}};
    assert_int_equal(fe_cvm_add_op(g, CVM_OP_elemwise_sub, "s", e2, 2, NULL, 0, &add, &d), ST_OK);
    assert_int_equal(add->out_prec[0], 9);
    OgEdge e3[2] = {{add->id, 0}, {w->id, 0}};
    assert_int_equal(fe_cvm_add_op(g, CVM_OP_broadcast_add, "b", e3, 2, NULL, 0, &out, &d), ST_OK);
    OgEdge e4 = {out->id, 0};
    assert_int_equal(fe_cvm_add_op(g, CVM_OP_get_valid_counts, "v", &e4, 1,
                                   (const CvmKV[]){{"score_threshold", "4"}}, 1, &gvc, &d), ST_OK);
    assert_true(og_add_output(g, gvc->id, 1));
    assert_true(og_add_output(g, in->id, 0));
    assert_true(og_add_output(g, w->id, 0));
    int32_t x[6] = {-1, 2, -3, 4, -5, 6};
    OgTensor xt = {s, 6, x}, o[3];
    assert_int_equal(fe_interp_run(g, &xt, 1, o, &d), ST_OK);
    /* relu: 0 2 0 4 0 6; abs - negative = 2 * relu: 0 4 0 8 0 12; + 1: 1 5 1 9 1 13;
     * rows of 3 [1 5 1] [9 1 13], score (column 1) > 4: the first row only */
    const int32_t want[6] = {1, 5, 1, -1, -1, -1};
    assert_memory_equal(o[0].data, want, sizeof want);
    assert_memory_equal(o[1].data, x, sizeof x);
    assert_memory_equal(o[2].data, wv, sizeof wv);
    for (int k = 0; k < 3; k++)
        og_tensor_free(&o[k]);
    og_destroy(g);
    diag_finish(&d);
}

/* Every operator of the table has at least one case above. */
static void test_table(void **state)
{
    (void)state;
    assert_int_equal(CVM_OP_COUNT, 37);
    for (int i = 0; i < CVM_OP_COUNT; i++) {
        CvmOp op;
        assert_true(cvm_op_from_name(cvm_op_name((CvmOp)i), &op));
        assert_int_equal(op, i);
    }
    CvmOp op;
    assert_false(cvm_op_from_name("softmax", &op));
}

/* The one operator table of both dialects (frontend/ops/op_table.c): each row says whose it
 * is, and names are found within one dialect only. */
static void test_table_dialects(void **state)
{
    (void)state;
    CvmOp op;
    int code;
    assert_true(cvm_op_from_name("conv2d", &op));
    assert_string_equal(cvm_op_info(op)->dialect, "cvm");
    assert_false(cinn_op_from_name("conv2d", &code));
    assert_false(cvm_op_from_name("cinn_mod", &op)); /* the CVM reader knows no CINN op */
    assert_true(cinn_op_from_name("cinn_mod", &code));
    assert_int_equal(code, CINN_OP_cinn_mod);
    assert_string_equal(cvm_op_info((CvmOp)code)->name, "cinn_mod");
    assert_string_equal(cvm_op_info((CvmOp)code)->dialect, "cinn");
    assert_ptr_equal(cinn_op_info(code), cvm_op_info((CvmOp)code));
    for (int c = CINN_OP_BASE; c < CINN_OP_END; c++)
        assert_true(cinn_op_from_name(cinn_op_info(c)->name, &code) && code == c);
    assert_null(cvm_op_info((CvmOp)CVM_OP_COUNT));
    assert_null(cvm_op_info((CvmOp)CINN_OP_END));
    assert_null(cinn_op_info(CVM_OP_conv2d));
    assert_null(cvm_op_name((CvmOp)CINN_OP_cinn_mod));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_table_dialects),
        cmocka_unit_test(test_conv2d_basic),
        cmocka_unit_test(test_conv2d_pad_stride_bias),
        cmocka_unit_test(test_conv2d_dilation),
        cmocka_unit_test(test_conv2d_groups),
        cmocka_unit_test(test_dense),
        cmocka_unit_test(test_relu),
        cmocka_unit_test(test_max_pool2d),
        cmocka_unit_test(test_upsampling),
        cmocka_unit_test(test_get_valid_counts),
        cmocka_unit_test(test_nms),
        cmocka_unit_test(test_abs_negative),
        cmocka_unit_test(test_cvm_precision),
        cmocka_unit_test(test_elemwise_add_sub),
        cmocka_unit_test(test_clip),
        cmocka_unit_test(test_cvm_clip),
        cmocka_unit_test(test_cvm_right_shift),
        cmocka_unit_test(test_cvm_left_shift),
        cmocka_unit_test(test_cvm_lut),
        cmocka_unit_test(test_broadcast_add_sub),
        cmocka_unit_test(test_broadcast_mul_max_greater),
        cmocka_unit_test(test_broadcast_div),
        cmocka_unit_test(test_sum),
        cmocka_unit_test(test_max),
        cmocka_unit_test(test_repeat_tile),
        cmocka_unit_test(test_flatten_reshape),
        cmocka_unit_test(test_squeeze_expand_dims),
        cmocka_unit_test(test_transpose),
        cmocka_unit_test(test_strided_slice),
        cmocka_unit_test(test_slice_like),
        cmocka_unit_test(test_concatenate),
        cmocka_unit_test(test_take),
        cmocka_unit_test(test_where),
        cmocka_unit_test(test_chain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
