/* test_diff_whole.c: models whose operators mix the samples of axis 0 (suite diff).
 *
 * With a batch N > 1 the lowering first computes one sample per run; when a node mixes the
 * samples (a reduction over axis 0, data movement across samples, an output whose axis 0 is
 * not the batch, a parameter that differs from sample to sample, inputs of different batches)
 * the whole tensor becomes the unit the TaskGraph computes (docs/lowering.md section 1). Each
 * case compares the interpreter with the simulator bit for bit (difftest.h); before that
 * fallback every one of them was refused with [lower.batch]. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "difftest.h"

/* One operator over an input of shape s (precision 8), optionally with a second input. */
static void one_op(DtRng *r, const char *what, uint32_t nd, const int64_t *s, CvmOp op,
                   const char *const *kv)
{
    DtModel m;
    dt_begin(&m, r);
    int32_t x = dt_input(&m, "data", nd, s, 8);
    dt_op(&m, op, "mix", DT_INS(x), kv);
    dt_check(&m, what);
    dt_end(&m);
}

static void test_reduce_axis0(void **state)
{
    (void)state;
    DtRng r = {301};
    one_op(&r, "sum axis 0", DT_ND(4, 10), CVM_OP_sum, DT_KV("axis", "(0,)"));
    one_op(&r, "sum axis 0 keepdims", DT_ND(3, 2, 5), CVM_OP_sum,
           DT_KV("axis", "(0, 2)", "keepdims", "true"));
    one_op(&r, "sum over all axes", DT_ND(2, 3, 4), CVM_OP_sum, NULL);
    one_op(&r, "max axis 0", DT_ND(5, 2, 3), CVM_OP_max, DT_KV("axis", "(0,)"));
}

static void test_move_across_samples(void **state)
{
    (void)state;
    DtRng r = {302};
    one_op(&r, "transpose", DT_ND(2, 3, 4), CVM_OP_transpose, DT_KV("axes", "(1, 0, 2)"));
    one_op(&r, "reshape", DT_ND(2, 3, 4), CVM_OP_reshape, DT_KV("shape", "(3, 8)"));
    one_op(&r, "flatten to one row", DT_ND(2, 3, 4), CVM_OP_reshape, DT_KV("shape", "(24,)"));
    one_op(&r, "tile", DT_ND(2, 3), CVM_OP_tile, DT_KV("reps", "(2, 1)"));
    one_op(&r, "repeat axis 0", DT_ND(3, 4), CVM_OP_repeat, DT_KV("repeats", "2", "axis", "0"));
    one_op(&r, "strided_slice axis 0", DT_ND(4, 5), CVM_OP_strided_slice,
           DT_KV("begin", "(1, 0)", "end", "(4, 5)", "stride", "(2, 1)"));
    one_op(&r, "expand_dims axis 0", DT_ND(2, 3), CVM_OP_expand_dims, DT_KV("axis", "0"));
    DtModel m;
    dt_begin(&m, &r);
    int32_t x = dt_input(&m, "data", DT_ND(3, 4), 8);
    dt_op(&m, CVM_OP_concatenate, "cat", DT_INS(x, x), DT_KV("axis", "0"));
    dt_check(&m, "concatenate axis 0");
    dt_end(&m);
    dt_begin(&m, &r);
    x = dt_input(&m, "data", DT_ND(4, 3), 8);
    int32_t idx = dt_const(&m, "idx", DT_ND(3), 8, (const int32_t[]){3, 0, 0});
    dt_op(&m, CVM_OP_take, "take", DT_INS(x, idx), DT_KV("axis", "0"));
    dt_check(&m, "take axis 0");
    dt_end(&m);
    /* a 1-D condition whose samples are not the data's: one value per row of y */
    dt_begin(&m, &r);
    int32_t c = dt_const(&m, "cond", DT_ND(2), 2, (const int32_t[]){1, 0});
    x = dt_input(&m, "data", DT_ND(2, 3), 8);
    int32_t y = dt_input(&m, "data2", DT_ND(2, 3), 8);
    int32_t t = dt_op(&m, CVM_OP_transpose, "t", DT_INS(y), DT_KV("axes", "(1, 0)"));
    t = dt_op(&m, CVM_OP_reshape, "back", DT_INS(t), DT_KV("shape", "(2, 3)"));
    dt_op(&m, CVM_OP_where, "where", DT_INS(c, x, t), NULL);
    dt_check(&m, "where over mixed rows");
    dt_end(&m);
}

/* A parameter that differs between samples, and model inputs of different batches. */
static void test_params_and_batches(void **state)
{
    (void)state;
    DtRng r = {303};
    DtModel m;
    dt_begin(&m, &r);
    int32_t x = dt_input(&m, "data", DT_ND(2, 5), 8);
    int32_t c = dt_const(&m, "per_sample", DT_ND(2, 5), 8,
                         (const int32_t[]){1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
    dt_op(&m, CVM_OP_elemwise_add, "add", DT_INS(x, c), NULL);
    dt_check(&m, "parameter per sample");
    dt_end(&m);
    dt_begin(&m, &r);
    x = dt_input(&m, "data", DT_ND(2, 4), 8);
    int32_t y = dt_input(&m, "data2", DT_ND(3, 4), 8);
    dt_op(&m, CVM_OP_concatenate, "cat", DT_INS(x, y), DT_KV("axis", "0"));
    dt_check(&m, "inputs of batches 2 and 3");
    dt_end(&m);
    /* constant outputs that are no sample's value */
    dt_begin(&m, &r);
    x = dt_input(&m, "data", DT_ND(3, 4), 8);
    dt_output(&m, dt_op(&m, CVM_OP_relu, "relu", DT_INS(x), NULL), 0);
    c = dt_const(&m, "per_sample", DT_ND(3, 4), 8,
                 (const int32_t[]){1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
    dt_output(&m, dt_op(&m, CVM_OP_negative, "neg", DT_INS(c), NULL), 0);
    dt_check(&m, "constant output whose samples differ");
    dt_end(&m);
}

/* Convolution, pooling and dense over a whole batch that a later node mixes: every image of
 * the tensor in one run (conv2d and max_pool2d per image, dense per row). */
static void test_network_mixed(void **state)
{
    (void)state;
    DtRng r = {304};
    DtModel m;
    dt_begin(&m, &r);
    int32_t x = dt_input(&m, "data", DT_ND(3, 2, 6, 6), 8);
    int32_t w = dt_const(&m, "w", DT_ND(4, 2, 3, 3), 8, NULL);
    int32_t y = dt_op(&m, CVM_OP_conv2d, "conv", DT_INS(x, w),
                      DT_KV("channels", "4", "kernel_size", "(3, 3)", "padding", "(1, 1)",
                            "use_bias", "false"));
    y = dt_op(&m, CVM_OP_cvm_right_shift, "rs", DT_INS(y),
              DT_KV("precision", "8", "shift_bit", "6"));
    y = dt_op(&m, CVM_OP_max_pool2d, "pool", DT_INS(y),
              DT_KV("pool_size", "(2, 2)", "strides", "(2, 2)"));
    y = dt_op(&m, CVM_OP_flatten, "flat", DT_INS(y), NULL);
    int32_t w2 = dt_const(&m, "fc_w", DT_ND(5, 36), 8, NULL);
    y = dt_op(&m, CVM_OP_dense, "fc", DT_INS(y, w2), DT_KV("units", "5", "use_bias", "false"));
    dt_op(&m, CVM_OP_sum, "over_batch", DT_INS(y), DT_KV("axis", "(0,)"));
    dt_check(&m, "conv, pool, dense, sum over the batch");
    dt_end(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reduce_axis0),
        cmocka_unit_test(test_move_across_samples),
        cmocka_unit_test(test_params_and_batches),
        cmocka_unit_test(test_network_mixed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
