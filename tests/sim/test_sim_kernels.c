/* test_sim_kernels.c: each compute block on small hand-computed cases taken from the loop
 * nests of docs/semantics.md, plus the boundary values:
 * int32 wrap at INT32_MIN/MAX, saturation to narrower precisions, shifts 0 and 31, padding
 * zeros in CCMPB/CCMPS windows, LUT indices at both ends and out of range, CLIF over several
 * steps. The expected numbers are written out by hand in each test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "simtest.h"

#define S(...) ((const int32_t[TIR_NDIMS]){__VA_ARGS__})
#define V(...) ((const int32_t[]){__VA_ARGS__})
#define N(a) ((int64_t)(sizeof(a) / sizeof((a)[0])))

static Block *compute(Graph *g, BlockType t, const int32_t shape[TIR_NDIMS], PrecisionId p)
{
    Block *b = st_block(g, t, shape, "op");
    b->has_prec = true;
    b->prec = p;
    return b;
}

/* ---- CADD ---- */

static void test_cadd_vector_bias(void **state)
{
    (void)state;
    Graph *g = graph_create();
    Block *c = compute(g, BT_CADD, S(1, 2, 2, 0, 1, 1, 0, 0), PR_INT_32);
    c->bias_type = BIAS_VECTOR;
    c->shape.n_branch = 2;
    Block *ops[] = {st_storage(g, BT_SI, S(1, 2, 2), V(1, 2, 3, 4), 4),
                    st_storage(g, BT_SI, S(1, 2, 2), V(10, 20, 30, 40), 4),
                    st_storage(g, BT_SB, S(0, 0, 2), V(100, -100), 2)};
    int32_t out[4];
    st_run_block(g, c, ops, 3, 1, out, 4, NULL);
    st_assert_equal(V(111, -78, 133, -56), out, 4, "CADD");
    graph_destroy(g);
}

static void test_cadd_constant_wrap(void **state)
{
    (void)state;
    Graph *g = graph_create();
    Block *c = compute(g, BT_CADD, S(1, 1, 3, 0, 1, 1, 0, 0), PR_INT_32);
    c->bias_type = BIAS_CONSTANT;
    c->shape.n_branch = 3;
    blk_set_attr(g, c, AT_CONSTANT_B, 1);
    Block *ops[] = {st_storage(g, BT_SI, S(1, 1, 3), V(INT32_MAX, INT32_MIN, -5), 3),
                    st_storage(g, BT_SI, S(1, 1, 3), V(0, -1, 2), 3),
                    st_storage(g, BT_SI, S(1, 1, 3), V(0, 0, 3), 3)};
    int32_t out[3];
    st_run_block(g, c, ops, 3, 1, out, 3, NULL);
    /* INT32_MAX + 1 wraps to INT32_MIN; INT32_MIN - 1 + 1 = INT32_MIN; -5 + 2 + 3 + 1 = 1 */
    st_assert_equal(V(INT32_MIN, INT32_MIN, 1), out, 3, "CADD wrap");
    graph_destroy(g);
}

/* Wrap to int32 first, then saturate to the block's precision. */
static void test_cadd_int8_saturates_after_wrap(void **state)
{
    (void)state;
    Graph *g = graph_create();
    Block *c = compute(g, BT_CADD, S(1, 1, 4, 0, 1, 1, 0, 0), PR_INT_8);
    c->bias_type = BIAS_CONSTANT;
    c->shape.n_branch = 2;
    Block *ops[] = {st_storage(g, BT_SI, S(1, 1, 4), V(100, -100, INT32_MAX, 5), 4),
                    st_storage(g, BT_SI, S(1, 1, 4), V(100, -100, 1, -3), 4)};
    int32_t out[4];
    st_run_block(g, c, ops, 2, 1, out, 4, NULL);
    st_assert_equal(V(127, -128, -128, 2), out, 4, "CADD INT_8");
    graph_destroy(g);
}

static void test_cadd_uint8_and_ternary(void **state)
{
    (void)state;
    Graph *g = graph_create();
    Block *c = compute(g, BT_CADD, S(1, 1, 3, 0, 1, 1, 0, 0), PR_UINT_8);
    c->bias_type = BIAS_CONSTANT;
    c->shape.n_branch = 1;
    Block *ops[] = {st_storage(g, BT_SI, S(1, 1, 3), V(-7, 300, 42), 3)};
    int32_t out[3];
    st_run_block(g, c, ops, 1, 1, out, 3, NULL);
    st_assert_equal(V(0, 255, 42), out, 3, "CADD UINT_8");
    graph_destroy(g);

    g = graph_create();
    c = compute(g, BT_CADD, S(1, 1, 3, 0, 1, 1, 0, 0), PR_TERNARY);
    c->bias_type = BIAS_CONSTANT;
    c->shape.n_branch = 1;
    Block *ops2[] = {st_storage(g, BT_SI, S(1, 1, 3), V(-7, 0, 42), 3)};
    st_run_block(g, c, ops2, 1, 1, out, 3, NULL);
    st_assert_equal(V(-1, 0, 1), out, 3, "CADD TERNARY");
    graph_destroy(g);
}

/* ---- CVVH, CAX, CVS ---- */

static void test_cvvh(void **state)
{
    (void)state;
    Graph *g = graph_create();
    Block *c = compute(g, BT_CVVH, S(1, 2, 2), PR_INT_32);
    c->bias_type = BIAS_CONSTANT;
    blk_set_attr(g, c, AT_CONSTANT_B, 7);
    Block *ops[] = {st_storage(g, BT_SI, S(1, 2, 2), V(2, 3, 65536, INT32_MIN), 4),
                    st_storage(g, BT_SI, S(1, 2, 2), V(4, -5, 65536, -1), 4)};
    int32_t out[4];
    st_run_block(g, c, ops, 2, 1, out, 4, NULL);
    /* 2*4+7, 3*-5+7, 2^32 wraps to 0 (+7), INT32_MIN*-1 wraps to INT32_MIN (+7) */
    st_assert_equal(V(15, -8, 7, INT32_MIN + 7), out, 4, "CVVH");
    graph_destroy(g);
}

static void test_cax(void **state)
{
    (void)state;
    Graph *g = graph_create();
    Block *c = compute(g, BT_CAX, S(2, 1, 3), PR_INT_32);
    c->bias_type = BIAS_VECTOR;
    Block *ops[] = {st_storage(g, BT_SI, S(2, 1, 3), V(1, 2, 3, -4, 5, -6), 6),
                    st_storage(g, BT_SB, S(0, 0, 3), V(10, -1, 0), 3),
                    st_storage(g, BT_SB, S(0, 0, 3), V(1, 2, 3), 3)};
    int32_t out[6];
    st_run_block(g, c, ops, 3, 1, out, 6, NULL);
    st_assert_equal(V(11, 0, 3, -39, -3, 3), out, 6, "CAX");
    graph_destroy(g);
}

static void test_cvs(void **state)
{
    (void)state;
    Graph *g = graph_create();
    Block *c = compute(g, BT_CVS, S(1, 1, 4), PR_INT_16);
    c->bias_type = BIAS_CONSTANT;
    blk_set_attr(g, c, AT_CONSTANT_A, -3);
    blk_set_attr(g, c, AT_CONSTANT_B, 5);
    Block *ops[] = {st_storage(g, BT_SI, S(1, 1, 4), V(1, -2, 20000, -20000), 4)};
    int32_t out[4];
    st_run_block(g, c, ops, 1, 1, out, 4, NULL);
    /* -3+5, 6+5, -60000+5 -> -32768, 60005 -> 32767 */
    st_assert_equal(V(2, 11, -32768, 32767), out, 4, "CVS INT_16");
    graph_destroy(g);
}

/* ---- CVM ---- */

static void test_cvm(void **state)
{
    (void)state;
    Graph *g = graph_create();
    Block *c = compute(g, BT_CVM, S(0, 0, 2, 3), PR_INT_32);
    c->bias_type = BIAS_VECTOR;
    Block *ops[] = {st_storage(g, BT_SIFC, S(0, 0, 0, 3), V(1, -1, 2), 3),
                    st_storage(g, BT_SWFC, S(0, 0, 2, 3), V(1, 2, 3, 4, 5, 6), 6),
                    st_storage(g, BT_SB, S(0, 0, 2), V(10, 20), 2)};
    int32_t out[2];
    st_run_block(g, c, ops, 3, 1, out, 2, NULL);
    st_assert_equal(V(15, 31), out, 2, "CVM");
    graph_destroy(g);
}

static void test_cvm_wrap(void **state)
{
    (void)state;
    Graph *g = graph_create();
    Block *c = compute(g, BT_CVM, S(0, 0, 1, 2), PR_INT_32);
    c->bias_type = BIAS_CONSTANT;
    Block *ops[] = {st_storage(g, BT_SIFC, S(0, 0, 0, 2), V(INT32_MAX, 2), 2),
                    st_storage(g, BT_SWFC, S(0, 0, 1, 2), V(2, 1), 2)};
    int32_t out[1];
    st_run_block(g, c, ops, 2, 1, out, 1, NULL);
    /* 2 * (2^31 - 1) + 2 = 2^32 -> 0 */
    st_assert_equal(V(0), out, 1, "CVM wrap");
    graph_destroy(g);
}

/* ---- CC ---- */

static void test_cc_hand(void **state)
{
    (void)state;
    /* in 3x3x1 = 1..9, kernel 2x2 [[1,0],[0,-1]], bias 5: out[oy][ox] = in[oy][ox] -
     * in[oy+1][ox+1] + 5 = -4 + 5 = 1 everywhere. A second filter [[1,1],[1,1]] with bias 0
     * gives the window sums 12 16 24 28. Output layout [y][x][f]. */
    Graph *g = graph_create();
    Block *c = compute(g, BT_CC, S(2, 2, 2, 1, 2, 2, 3, 3), PR_INT_32);
    c->bias_type = BIAS_VECTOR;
    blk_set_attr(g, c, AT_KERNEL_X, 2);
    blk_set_attr(g, c, AT_KERNEL_Y, 2);
    Block *ops[] = {st_storage(g, BT_SIC, S(3, 3, 0, 1), V(1, 2, 3, 4, 5, 6, 7, 8, 9), 9),
                    st_storage(g, BT_SW, S(0, 0, 2, 1, 2, 2), V(1, 0, 0, -1, 1, 1, 1, 1), 8),
                    st_storage(g, BT_SB, S(0, 0, 2), V(5, 0), 2)};
    int32_t out[8];
    st_run_block(g, c, ops, 3, 1, out, 8, NULL);
    st_assert_equal(V(1, 12, 1, 16, 1, 24, 1, 28), out, 8, "CC");
    graph_destroy(g);
}

static void test_cc_padding_stride_dilation(void **state)
{
    (void)state;
    /* in 5x5x1 = 1..25 (in[r][c] = 5r + c + 1), kernel 3x3 all ones, dilation 2, padding 2
     * all round, stride 2: padded 9x9, span 5, outputs (9-5)/2+1 = 3 per axis. Output
     * (oy,ox) sums the input at rows {2oy-2, 2oy, 2oy+2} and the same columns, inside
     * [0,5): oy = 0: {0,2}, 1: {0,2,4}, 2: {2,4}. E.g. (0,0) = 1+3+11+13 = 28, (1,1) = the
     * nine values 1,3,5,11,13,15,21,23,25 = 117. CC2D computes the same. */
    for (int t = 0; t < 2; t++) {
        Graph *g = graph_create();
        Block *c = compute(g, t ? BT_CC2D : BT_CC, S(3, 3, 1, 1, 3, 3, 5, 5), PR_INT_32);
        c->bias_type = BIAS_CONSTANT;
        blk_set_attr(g, c, AT_KERNEL_X, 3);
        blk_set_attr(g, c, AT_KERNEL_Y, 3);
        AttrId pads[] = {AT_PAD_UP, AT_PAD_DOWN, AT_PAD_LEFT, AT_PAD_RIGHT};
        for (int i = 0; i < 4; i++)
            blk_set_attr(g, c, pads[i], 2);
        blk_set_attr(g, c, AT_STRIDE_X, 2);
        blk_set_attr(g, c, AT_STRIDE_Y, 2);
        blk_set_attr(g, c, AT_DILATION_X, 2);
        blk_set_attr(g, c, AT_DILATION_Y, 2);
        int32_t ones[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1}, in[25];
        for (int i = 0; i < 25; i++)
            in[i] = i + 1;
        Block *ops[] = {st_storage(g, t ? BT_SIC2D : BT_SIC, S(5, 5, 0, 1), in, 25),
                        st_storage(g, t ? BT_SW2D : BT_SW, S(0, 0, 1, 1, 3, 3), ones, 9)};
        int32_t out[9];
        st_run_block(g, c, ops, 2, 1, out, 9, NULL);
        st_assert_equal(V(28, 48, 36, 72, 117, 84, 68, 108, 76), out, 9, t ? "CC2D" : "CC");
        graph_destroy(g);
    }
}

static void test_cc_wrap_extremes(void **state)
{
    (void)state;
    /* 1x1 conv over 2 channels: INT32_MIN*INT32_MIN + INT32_MAX*INT32_MAX = 2^62 + 2^62 -
     * 2^32 + 1 = 2^63 - 2^32 + 1, which is 1 modulo 2^32. */
    Graph *g = graph_create();
    Block *c = compute(g, BT_CC, S(1, 1, 1, 2, 1, 1, 1, 1), PR_INT_32);
    c->bias_type = BIAS_CONSTANT;
    Block *ops[] = {st_storage(g, BT_SIC, S(1, 1, 0, 2), V(INT32_MIN, INT32_MAX), 2),
                    st_storage(g, BT_SW, S(0, 0, 1, 2, 1, 1), V(INT32_MIN, INT32_MAX), 2)};
    int32_t out[1];
    st_run_block(g, c, ops, 2, 1, out, 1, NULL);
    st_assert_equal(V(1), out, 1, "CC extremes");
    graph_destroy(g);
}

/* ---- CAVG ---- */

static void test_cavg(void **state)
{
    (void)state;
    /* in 4x4x1 = 0..15, 2x2 window stride 2: sums 0+1+4+5=10, 2+3+6+7=18, 42, 50; + bias 1 */
    Graph *g = graph_create();
    Block *c = compute(g, BT_CAVG, S(2, 2, 1, 0, 2, 2, 4, 4), PR_INT_32);
    c->bias_type = BIAS_VECTOR;
    blk_set_attr(g, c, AT_KERNEL_X, 2);
    blk_set_attr(g, c, AT_KERNEL_Y, 2);
    blk_set_attr(g, c, AT_STRIDE_X, 2);
    blk_set_attr(g, c, AT_STRIDE_Y, 2);
    int32_t in[16];
    for (int i = 0; i < 16; i++)
        in[i] = i;
    Block *ops[] = {st_storage(g, BT_SI, S(4, 4, 1), in, 16),
                    st_storage(g, BT_SB, S(0, 0, 1), V(1), 1)};
    int32_t out[4];
    st_run_block(g, c, ops, 2, 1, out, 4, NULL);
    st_assert_equal(V(11, 19, 43, 51), out, 4, "CAVG");
    graph_destroy(g);
}

static void test_cavg_padding(void **state)
{
    (void)state;
    /* in 2x2x1 = [1 2; 3 4], 3x3 window, pad 1, stride 1: every window covers the whole
     * input (padding adds zeros): 10 everywhere, a 2x2 output. */
    Graph *g = graph_create();
    Block *c = compute(g, BT_CAVG, S(2, 2, 1, 0, 3, 3, 2, 2), PR_INT_32);
    c->bias_type = BIAS_CONSTANT;
    blk_set_attr(g, c, AT_KERNEL_X, 3);
    blk_set_attr(g, c, AT_KERNEL_Y, 3);
    AttrId pads[] = {AT_PAD_UP, AT_PAD_DOWN, AT_PAD_LEFT, AT_PAD_RIGHT};
    for (int i = 0; i < 4; i++)
        blk_set_attr(g, c, pads[i], 1);
    Block *ops[] = {st_storage(g, BT_SI, S(2, 2, 1), V(1, 2, 3, 4), 4)};
    int32_t out[4];
    st_run_block(g, c, ops, 1, 1, out, 4, NULL);
    st_assert_equal(V(10, 10, 10, 10), out, 4, "CAVG padding");
    graph_destroy(g);
}

/* ---- CCMPB, CCMPS ---- */

static Block *cmp_block(Graph *g, BlockType t, const int32_t shape[TIR_NDIMS], PrecisionId p,
                        int k, int stride, int pad, int32_t cmp, int shift)
{
    Block *c = compute(g, t, shape, p);
    if (k) {
        blk_set_attr(g, c, AT_KERNEL_X, k);
        blk_set_attr(g, c, AT_KERNEL_Y, k);
        blk_set_attr(g, c, AT_STRIDE_X, stride);
        blk_set_attr(g, c, AT_STRIDE_Y, stride);
    }
    if (pad) {
        AttrId pads[] = {AT_PAD_UP, AT_PAD_DOWN, AT_PAD_LEFT, AT_PAD_RIGHT};
        for (int i = 0; i < 4; i++)
            blk_set_attr(g, c, pads[i], pad);
    }
    blk_set_attr(g, c, AT_CMP, cmp);
    blk_set_attr(g, c, AT_BIT_SHIFT_NUM, shift);
    return c;
}

static void test_ccmpb_pool(void **state)
{
    (void)state;
    /* 4x4x1, 2x2/2 max pool, >> 1, clip to [0, 127] (INT_8): maxima 5, 7, 300, -1 -> 2, 3,
     * 150 -> 127, -1 -> 0 */
    Graph *g = graph_create();
    Block *c = cmp_block(g, BT_CCMPB, S(2, 2, 1, 0, 2, 2, 4, 4), PR_INT_8, 2, 2, 0, 0, 1);
    Block *ops[] = {st_storage(g, BT_SI, S(4, 4, 1),
                               V(1, 5, 7, 0, 2, 3, 4, 6, 300, -9, -1, -2, 8, 9, -3, -4), 16)};
    int32_t out[4];
    st_run_block(g, c, ops, 1, 1, out, 4, NULL);
    st_assert_equal(V(2, 3, 127, 0), out, 4, "CCMPB");
    graph_destroy(g);
}

static void test_ccmpb_padding_zero_takes_part(void **state)
{
    (void)state;
    /* all-negative 2x2 input, 3x3 window, pad 1: every window includes padding, so the max
     * is 0 (CMP = INT32_MIN does not clip, INT_32 keeps the value). */
    Graph *g = graph_create();
    Block *c = cmp_block(g, BT_CCMPB, S(2, 2, 1, 0, 3, 3, 2, 2), PR_INT_32, 3, 1, 1,
                         INT32_MIN, 0);
    Block *ops[] = {st_storage(g, BT_SI, S(2, 2, 1), V(-5, -6, -7, -8), 4)};
    int32_t out[4];
    st_run_block(g, c, ops, 1, 1, out, 4, NULL);
    st_assert_equal(V(0, 0, 0, 0), out, 4, "CCMPB padding");
    graph_destroy(g);
}

static void test_ccmpb_shifts_0_and_31(void **state)
{
    (void)state;
    int32_t in[4] = {INT32_MIN, -1, 1, INT32_MAX};
    int32_t out[4];
    for (int k = 0; k < 2; k++) {
        int shift = k ? 31 : 0;
        Graph *g = graph_create();
        Block *c = cmp_block(g, BT_CCMPB, S(1, 1, 4, 0, 1, 1, 1, 1), PR_INT_32, 1, 1, 0,
                             INT32_MIN, shift);
        Block *ops[] = {st_storage(g, BT_SI, S(1, 1, 4), in, 4)};
        st_run_block(g, c, ops, 1, 1, out, 4, NULL);
        if (shift == 0)
            st_assert_equal(in, out, 4, "CCMPB >> 0");
        else /* arithmetic: negative values give -1, non-negative 0 */
            st_assert_equal(V(-1, -1, 0, 0), out, 4, "CCMPB >> 31");
        graph_destroy(g);
    }
}

static void test_ccmpb_1d_form(void **state)
{
    (void)state;
    /* Only f: clip(x >> 2, CMP = -10, 127) even at INT_32 precision. */
    Graph *g = graph_create();
    Block *c = cmp_block(g, BT_CCMPB, S(0, 0, 4), PR_INT_32, 0, 0, 0, -10, 2);
    Block *ops[] = {st_storage(g, BT_SI, S(0, 0, 4), V(1000, -1000, 13, -13), 4)};
    int32_t out[4];
    st_run_block(g, c, ops, 1, 1, out, 4, NULL);
    /* 250 -> 127, -250 -> -10, 3, -13 >> 2 = -4 */
    st_assert_equal(V(127, -10, 3, -4), out, 4, "CCMPB 1-D");
    graph_destroy(g);
}

static void test_ccmpb_ternary(void **state)
{
    (void)state;
    Graph *g = graph_create();
    Block *c = cmp_block(g, BT_CCMPB, S(1, 1, 3, 0, 1, 1, 1, 1), PR_TERNARY, 1, 1, 0, -1, 0);
    Block *ops[] = {st_storage(g, BT_SI, S(1, 1, 3), V(5, 0, -5), 3)};
    int32_t out[3];
    st_run_block(g, c, ops, 1, 1, out, 3, NULL);
    st_assert_equal(V(1, 0, -1), out, 3, "CCMPB TERNARY");
    graph_destroy(g);
}

static void test_ccmps_mirror(void **state)
{
    (void)state;
    /* 4x4x1, 2x2/2 min pool, >> 1, clip to [-128, CMP = 0] (INT_8): minima 1, 0, -300, -4
     * -> 0 (clipped to CMP), 0, -150 -> -128, -2 */
    Graph *g = graph_create();
    Block *c = cmp_block(g, BT_CCMPS, S(2, 2, 1, 0, 2, 2, 4, 4), PR_INT_8, 2, 2, 0, 0, 1);
    Block *ops[] = {st_storage(g, BT_SI, S(4, 4, 1),
                               V(1, 5, 7, 0, 2, 3, 4, 6, -300, 9, 1, 2, 8, 9, -3, -4), 16)};
    int32_t out[4];
    st_run_block(g, c, ops, 1, 1, out, 4, NULL);
    st_assert_equal(V(0, 0, -128, -2), out, 4, "CCMPS");
    graph_destroy(g);

    /* padding zeros take part in the minimum too */
    g = graph_create();
    c = cmp_block(g, BT_CCMPS, S(1, 1, 1, 0, 3, 3, 1, 1), PR_INT_32, 3, 1, 1, INT32_MAX, 0);
    Block *ops2[] = {st_storage(g, BT_SI, S(1, 1, 1), V(42), 1)};
    st_run_block(g, c, ops2, 1, 1, out, 1, NULL);
    st_assert_equal(V(0), out, 1, "CCMPS padding");
    graph_destroy(g);
}

/* ---- CLUT ---- */

static Status lut_run(const int32_t *x, int n, int shift, int32_t *out, Diag *d)
{
    Graph *g = graph_create();
    Block *c = compute(g, BT_CLUT, S(1, 1, n), PR_INT_32);
    blk_set_attr(g, c, AT_LUT_DW, 2);
    blk_set_attr(g, c, AT_BIT_SHIFT_NUM, shift);
    Block *ops[] = {st_storage(g, BT_SI, S(1, 1, n), x, n),
                    st_storage(g, BT_SB, S(0, 0, 4), V(10, 20, 30, 40), 4)};
    Status st = st_run_block(g, c, ops, 2, 1, out, n, d);
    graph_destroy(g);
    return st;
}

static void test_clut(void **state)
{
    (void)state;
    int32_t out[6];
    lut_run(V(0, 1, 3, -1, -4, -2), 6, 0, out, NULL);
    st_assert_equal(V(10, 20, 40, 40, 10, 30), out, 6, "CLUT");
    /* with a shift: 12 >> 2 = 3, -1 >> 2 = -1, -16 >> 2 = -4 */
    lut_run(V(12, -1, -16, 7), 4, 2, out, NULL);
    st_assert_equal(V(40, 40, 10, 20), out, 4, "CLUT >> 2");
}

static void test_clut_out_of_range(void **state)
{
    (void)state;
    int32_t bad[] = {4, -5};
    for (int i = 0; i < 2; i++) {
        Diag d;
        diag_init(&d, "test");
        int32_t out[2];
        assert_int_equal(lut_run(V(0, bad[i]), 2, 0, out, &d), ST_LOGIC);
        long k = diag_find(&d, "sim.lut");
        assert_true(k >= 0);
        assert_true(d.entries[k].has_block);
        assert_non_null(strstr(d.entries[k].where, "CLUT"));
        diag_finish(&d);
    }
}

/* ---- CLIF ---- */

static Status lif_run(const int32_t *x, int n, int steps, const int32_t *attrs, int n_attrs,
                      int32_t *out, Diag *d)
{
    Graph *g = graph_create();
    Block *c = compute(g, BT_CLIF, S(1, 1, n), PR_INT_32);
    for (int i = 0; i < n_attrs; i++)
        blk_set_attr(g, c, (AttrId)attrs[2 * i], attrs[2 * i + 1]);
    Block *ops[] = {st_storage(g, BT_SI, S(1, 1, n), x, n)};
    Status st = st_run_block(g, c, ops, 1, steps, out, n, d);
    graph_destroy(g);
    return st;
}

static void test_clif_steps(void **state)
{
    (void)state;
    /* VTH0 10, VR 0, leak beta -1, constant input 4:
     * v: 4 -> 3, 7 -> 6, 10 (not > 10) -> 9, 13 fires -> 0 -> -1, 3 -> 2, 6 -> 5 */
    int32_t out[6];
    lif_run(V(4), 1, 6, V(AT_VTH0, 10, AT_VR, 0, AT_VLEAKY_BETA, -1), 3, out, NULL);
    st_assert_equal(V(0, 0, 0, 1, 0, 0), out, 6, "CLIF");
    /* VINIT 9 starts close to the threshold: 13 fires at once */
    lif_run(V(4), 1, 2, V(AT_VTH0, 10, AT_VINIT, 9, AT_VR, 0, AT_VLEAKY_BETA, -1), 4, out,
            NULL);
    st_assert_equal(V(1, 0), out, 2, "CLIF VINIT");
}

static void test_clif_adaptive_leak(void **state)
{
    (void)state;
    /* v = floor(alpha * v / 256) + beta with alpha 128: inputs 4 and -3, threshold high:
     * 4 -> 2, 6 -> 3, 7 -> 3; -3 -> floor(-1.5) = -2, -5 -> floor(-2.5) = -3, -6 -> -3.
     * A threshold of 5 makes the first lane fire at step 2 (v 6): VR 100 -> 50 + 1. */
    int32_t out[6];
    int32_t a1[] = {AT_VTH0, 1000, AT_VLEAKY_ADPT_EN, 1, AT_VLEAKY_ALPHA, 128};
    lif_run(V(4, -3), 2, 3, a1, 3, out, NULL);
    st_assert_equal(V(0, 0, 0, 0, 0, 0), out, 6, "CLIF adaptive");
    int32_t a2[] = {AT_VTH0, 5, AT_VLEAKY_ADPT_EN, 1, AT_VLEAKY_ALPHA, 128, AT_VR, 100,
                    AT_VLEAKY_BETA, 1};
    /* lane 0: 4 -> 3, 7 fires -> 100 -> 51, 55 fires -> 51; lane 1 never fires */
    lif_run(V(4, -3), 2, 3, a2, 5, out, NULL);
    st_assert_equal(V(0, 0, 1, 0, 1, 0), out, 6, "CLIF adaptive fire");
}

static void test_clif_clamp_28_bits(void **state)
{
    (void)state;
    /* INT32_MAX input clamps to 2^27 - 1, which is > VTH0 = 2^27 - 2 and fires; INT32_MIN
     * clamps to -2^27 and never fires. */
    int32_t out[2];
    lif_run(V(INT32_MAX, INT32_MIN), 2, 1, V(AT_VTH0, (1 << 27) - 2), 1, out, NULL);
    st_assert_equal(V(1, 0), out, 2, "CLIF clamp");
    /* -2^27 - 1 + leak stays clamped: a second step at -2^27 + (-2^27) is still -2^27 */
    int32_t o2[4];
    lif_run(V(INT32_MIN, INT32_MIN), 2, 2, V(AT_VTH0, 0, AT_VLEAKY_BETA, -5), 2, o2, NULL);
    st_assert_equal(V(0, 0, 0, 0), o2, 4, "CLIF clamp low");
}

static void test_clif_unsupported(void **state)
{
    (void)state;
    Diag d;
    diag_init(&d, "test");
    int32_t out[1];
    assert_int_equal(lif_run(V(1), 1, 1, V(AT_VTH0, 1, AT_TW_EN, 1), 2, out, &d), ST_LOGIC);
    assert_true(diag_find(&d, "sim.clif.unsupported") >= 0);
    diag_finish(&d);
}

/* ---- the dispatch table ---- */

static void test_every_compute_type_has_a_kernel(void **state)
{
    (void)state;
    /* A compute block of each type with a cluster-less shape is rejected for its clusters,
     * never for a missing kernel; the table itself is checked at compile time. Here: every
     * BK_COMPUTE type runs through sim_create without a sim.type finding. */
    for (int t = 0; t < BT_COUNT; t++) {
        if (bt_info((BlockType)t)->kind != BK_COMPUTE)
            continue;
        Graph *g = graph_create();
        st_block(g, (BlockType)t, S(1, 1, 1, 1, 1, 1, 1, 1), NULL);
        Diag d;
        diag_init(&d, "test");
        SimRun *run = NULL;
        Status st = sim_create(g, NULL, &run, &d);
        assert_true(diag_find(&d, "sim.type") < 0);
        (void)st;
        sim_destroy(run);
        diag_finish(&d);
        graph_destroy(g);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cadd_vector_bias),
        cmocka_unit_test(test_cadd_constant_wrap),
        cmocka_unit_test(test_cadd_int8_saturates_after_wrap),
        cmocka_unit_test(test_cadd_uint8_and_ternary),
        cmocka_unit_test(test_cvvh),
        cmocka_unit_test(test_cax),
        cmocka_unit_test(test_cvs),
        cmocka_unit_test(test_cvm),
        cmocka_unit_test(test_cvm_wrap),
        cmocka_unit_test(test_cc_hand),
        cmocka_unit_test(test_cc_padding_stride_dilation),
        cmocka_unit_test(test_cc_wrap_extremes),
        cmocka_unit_test(test_cavg),
        cmocka_unit_test(test_cavg_padding),
        cmocka_unit_test(test_ccmpb_pool),
        cmocka_unit_test(test_ccmpb_padding_zero_takes_part),
        cmocka_unit_test(test_ccmpb_shifts_0_and_31),
        cmocka_unit_test(test_ccmpb_1d_form),
        cmocka_unit_test(test_ccmpb_ternary),
        cmocka_unit_test(test_ccmps_mirror),
        cmocka_unit_test(test_clut),
        cmocka_unit_test(test_clut_out_of_range),
        cmocka_unit_test(test_clif_steps),
        cmocka_unit_test(test_clif_adaptive_leak),
        cmocka_unit_test(test_clif_clamp_28_bits),
        cmocka_unit_test(test_clif_unsupported),
        cmocka_unit_test(test_every_compute_type_has_a_kernel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
