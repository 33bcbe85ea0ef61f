/* test_diff_io.c: the shapes at a model's edges (suite diff).
 *
 * The simulator must give every output in exactly the model's declared shape, whatever the
 * TaskGraph's per-sample OUTPUT block holds (difftest.h compares the shapes strictly): the
 * OUTPUT block carries the model's shape as its model tensor (docs/formats.md). And a model
 * input or output of more than 4 dims is carried in the 4 dims y, x, f, r of its block, its
 * C order kept (docs/lowering.md section 1). Each case failed before: the outputs got a
 * leading 1 ((1, 64) for (64,)), or the rank-6 tensors were refused with [lower.io]. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "difftest.h"

#include <stdio.h>

/* Heads whose shape is not the per-sample OUTPUT block's with the batch in front. */
static void test_head_shapes(void **state)
{
    (void)state;
    DtRng r = {401};
    DtModel m;
    /* (1, 64, 5) -> (64, 5) -> a sum over axis 1: the head is (64,), not (1, 64) */
    dt_begin(&m, &r);
    int32_t x = dt_input(&m, "data", DT_ND(1, 64, 5), 8);
    int32_t y = dt_op(&m, CVM_OP_reshape, "rows", DT_INS(x), DT_KV("shape", "(64, 5)"));
    dt_op(&m, CVM_OP_sum, "total", DT_INS(y), DT_KV("axis", "(1,)"));
    dt_check(&m, "sum to (64,)");
    dt_end(&m);
    /* (1, 5) summed over axis 1: (1,), not (1, 1) */
    dt_begin(&m, &r);
    x = dt_input(&m, "data", DT_ND(1, 5), 8);
    dt_op(&m, CVM_OP_sum, "total", DT_INS(x), DT_KV("axis", "(1,)"));
    dt_check(&m, "sum to (1,)");
    dt_end(&m);
    /* (1, 24, 18, 14) reshaped to (24, 18, 14, 1), not (1, 24, 18, 14, 1) */
    dt_begin(&m, &r);
    x = dt_input(&m, "data", DT_ND(1, 24, 18, 14), 8);
    dt_op(&m, CVM_OP_reshape, "r", DT_INS(x), DT_KV("shape", "(24, 18, 14, 1)"));
    dt_check(&m, "reshape to (24, 18, 14, 1)");
    dt_end(&m);
    /* a batch of 3 whose head keeps the batch and a second head that does not */
    dt_begin(&m, &r);
    x = dt_input(&m, "data", DT_ND(3, 4, 2), 8);
    dt_output(&m, dt_op(&m, CVM_OP_sum, "per_sample", DT_INS(x), DT_KV("axis", "(1, 2)")), 0);
    dt_output(&m, dt_op(&m, CVM_OP_sum, "all", DT_INS(x), DT_KV("axis", "(0, 1)",
                                                                   "keepdims", "true")), 0);
    dt_check(&m, "heads (3,) and (1, 1, 2)");
    dt_end(&m);
}

/* Inputs and outputs of rank 6, batch 1 and 2, with size-1 dims and without. */
static void test_rank6(void **state)
{
    (void)state;
    DtRng r = {402};
    static const int64_t shapes[][6] = {
        {1, 2, 3, 2, 2, 3}, {2, 2, 3, 1, 2, 3}, {1, 1, 3, 1, 5, 1}, {2, 3, 2, 2, 3, 2},
    };
    for (int k = 0; k < 4; k++) {
        DtModel m;
        dt_begin(&m, &r);
        int32_t x = dt_input(&m, "data", 6, shapes[k], 8);
        int32_t y = dt_op(&m, CVM_OP_relu, "relu", DT_INS(x), NULL);
        dt_output(&m, y, 0);
        dt_output(&m, dt_op(&m, CVM_OP_transpose, "t", DT_INS(y),
                            DT_KV("axes", "(0, 2, 1, 3, 5, 4)")), 0);
        char what[64];
        snprintf(what, sizeof what, "rank 6 case %d", k);
        dt_check(&m, what);
        dt_end(&m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_head_shapes),
        cmocka_unit_test(test_rank6),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
