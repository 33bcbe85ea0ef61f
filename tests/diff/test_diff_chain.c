/* test_diff_chain.c: multi-operator models (the shapes of LeNet, a ResNet basic block, a
 * MobileNet depthwise-separable block, a YOLO-style head, an MLP with a batch), batches,
 * the requantization folds (rounding into the producer's bias, relu into the clip), values
 * read twice, several outputs, and the formalization's worked examples checked by hand:
 * the interpreter and the simulator on the lowered graph agree bit for bit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "difftest.h"

#include "taskir/graph.h"

#include <stdio.h>
#include <string.h>

static void test_lenet(void **state)
{
    (void)state;
    DtRng r = {101};
    for (int64_t batch = 1; batch <= 3; batch += 2) {
        DtModel m;
        dt_begin(&m, &r);
        int32_t x = dt_input(&m, "data", DT_ND(batch, 1, 28, 28), 8);
        int32_t y = dt_conv_q(&m, "conv1", x, 1, 6, 5, "(2, 2)", "(1, 1)", 1, 9);
        y = dt_op(&m, CVM_OP_max_pool2d, "pool1", DT_INS(y),
                  DT_KV("pool_size", "(2, 2)", "strides", "(2, 2)"));
        y = dt_conv_q(&m, "conv2", y, 6, 16, 5, "(0, 0)", "(1, 1)", 1, 11);
        y = dt_op(&m, CVM_OP_max_pool2d, "pool2", DT_INS(y),
                  DT_KV("pool_size", "(2, 2)", "strides", "(2, 2)"));
        y = dt_op(&m, CVM_OP_flatten, "flat", DT_INS(y), NULL);
        y = dt_dense_q(&m, "fc1", y, 400, 120, true);
        y = dt_dense_q(&m, "fc2", y, 120, 84, true);
        dt_dense_q(&m, "fc3", y, 84, 10, false);
        dt_check(&m, batch == 1 ? "lenet" : "lenet batch 3");
        dt_end(&m);
    }
}

static void test_resnet_block(void **state)
{
    (void)state;
    DtRng r = {102};
    DtModel m;
    dt_begin(&m, &r);
    int32_t x = dt_input(&m, "data", DT_ND(1, 8, 12, 12), 8);
    int32_t y = dt_conv_q(&m, "conv1", x, 8, 8, 3, "(1, 1)", "(1, 1)", 1, 10);
    char n[8] = "conv2";
    int32_t w = dt_const(&m, "conv2_w", DT_ND(8, 8, 3, 3), 8, NULL);
    y = dt_op(&m, CVM_OP_conv2d, n, DT_INS(y, w),
              DT_KV("channels", "8", "kernel_size", "(3, 3)", "padding", "(1, 1)",
                    "use_bias", "false"));
    y = dt_op(&m, CVM_OP_cvm_right_shift, "conv2_rs", DT_INS(y),
              DT_KV("precision", "8", "shift_bit", "9"));
    int32_t s = dt_op(&m, CVM_OP_elemwise_add, "add", DT_INS(y, x), NULL);
    s = dt_op(&m, CVM_OP_cvm_clip, "add_clip", DT_INS(s), DT_KV("precision", "8"));
    dt_op(&m, CVM_OP_relu, "out_relu", DT_INS(s), NULL);
    dt_check(&m, "resnet block");
    dt_end(&m);
}

static void test_mobilenet_block(void **state)
{
    (void)state;
    DtRng r = {103};
    DtModel m;
    dt_begin(&m, &r);
    int32_t x = dt_input(&m, "data", DT_ND(1, 16, 14, 14), 8);
    int32_t y = dt_conv_q(&m, "dw", x, 16, 16, 3, "(1, 1)", "(2, 2)", 16, 7);
    y = dt_conv_q(&m, "pw", y, 16, 32, 1, "(0, 0)", "(1, 1)", 1, 8);
    dt_check(&m, "mobilenet block");
    dt_end(&m);
}

static void test_yolo_head(void **state)
{
    (void)state;
    DtRng r = {104};
    DtModel m;
    dt_begin(&m, &r);
    int32_t x = dt_input(&m, "data", DT_ND(1, 8, 16, 16), 8);
    int32_t a = dt_conv_q(&m, "down", x, 8, 16, 3, "(1, 1)", "(2, 2)", 1, 9);
    int32_t up = dt_op(&m, CVM_OP_upsampling, "up", DT_INS(a), DT_KV("scale", "2"));
    int32_t cat = dt_op(&m, CVM_OP_concatenate, "cat", DT_INS(up, x), DT_KV("axis", "1"));
    int32_t h = dt_conv_q(&m, "head", cat, 24, 18, 1, "(0, 0)", "(1, 1)", 1, 8);
    /* (1, 18, 16, 16) -> (1, 3, 6, 16, 16) -> (1, 3, 16, 16, 6): boxes last */
    int32_t rs = dt_op(&m, CVM_OP_reshape, "rs", DT_INS(h), DT_KV("shape", "(1, 3, 6, 256)"));
    int32_t tr = dt_op(&m, CVM_OP_transpose, "tr", DT_INS(rs), DT_KV("axes", "(0, 1, 3, 2)"));
    int32_t xy = dt_op(&m, CVM_OP_strided_slice, "xy", DT_INS(tr),
                       DT_KV("begin", "(0, 0, 0, 0)", "end", "(1, 3, 256, 2)"));
    int32_t sc = dt_op(&m, CVM_OP_strided_slice, "score", DT_INS(tr),
                       DT_KV("begin", "(0, 0, 0, 4)", "end", "(1, 3, 256, 6)"));
    dt_op(&m, CVM_OP_broadcast_mul, "prod", DT_INS(xy, sc), NULL);
    dt_output(&m, m.last->id, 0);
    dt_output(&m, tr, 0);
    dt_check(&m, "yolo head");
    dt_end(&m);
}

static void test_mlp_batch(void **state)
{
    (void)state;
    DtRng r = {105};
    DtModel m;
    dt_begin(&m, &r);
    int32_t x = dt_input(&m, "data", DT_ND(4, 64), 8);
    int32_t y = dt_dense_q(&m, "fc1", x, 64, 32, true);
    y = dt_dense_q(&m, "fc2", y, 32, 10, false);
    int32_t s = dt_op(&m, CVM_OP_sum, "sum", DT_INS(y), DT_KV("axis", "(1,)", "keepdims", "true"));
    dt_op(&m, CVM_OP_broadcast_sub, "centre", DT_INS(y, s), NULL);
    dt_check(&m, "mlp batch 4");
    dt_end(&m);
}

/* A batch of 2 through every kind of lowering: data movement, broadcasting, tables. */
static void test_batch_ops(void **state)
{
    (void)state;
    DtRng r = {106};
    DtModel m;
    dt_begin(&m, &r);
    int32_t x = dt_input(&m, "data", DT_ND(2, 3, 6, 5), 8);
    int32_t a = dt_op(&m, CVM_OP_transpose, "t", DT_INS(x), DT_KV("axes", "(0, 3, 1, 2)"));
    int32_t b = dt_op(&m, CVM_OP_strided_slice, "s", DT_INS(a),
                      DT_KV("begin", "(0, 1)", "end", "(2, 5)", "stride", "(1, 2)"));
    int32_t c = dt_op(&m, CVM_OP_abs, "abs", DT_INS(b), NULL);
    int32_t v = dt_const(&m, "v", DT_ND(1, 1, 3, 1), 6, NULL);
    int32_t d = dt_op(&m, CVM_OP_broadcast_mul, "mul", DT_INS(c, v), NULL);
    int32_t e = dt_op(&m, CVM_OP_max, "mx", DT_INS(d), DT_KV("axis", "(2,)"));
    int32_t f = dt_op(&m, CVM_OP_expand_dims, "ex", DT_INS(e), DT_KV("axis", "1"));
    int32_t g = dt_op(&m, CVM_OP_tile, "tile", DT_INS(f), DT_KV("reps", "(1, 2, 1)"));
    dt_op(&m, CVM_OP_cvm_precision, "prec", DT_INS(g), NULL);
    dt_check(&m, "batch of 2");
    dt_end(&m);
}

/* Requantization folds, and the cases where they must not happen. */
static void test_folds(void **state)
{
    (void)state;
    DtRng r = {107};
    /* the conv output read twice: no rounding fold into its bias */
    DtModel m;
    dt_begin(&m, &r);
    int32_t x = dt_input(&m, "data", DT_ND(1, 2, 6, 6), 8);
    int32_t w = dt_const(&m, "w", DT_ND(3, 2, 3, 3), 8, NULL);
    int32_t b = dt_const(&m, "b", DT_ND(3), 8, NULL);
    int32_t c = dt_op(&m, CVM_OP_conv2d, "conv", DT_INS(x, w, b),
                      DT_KV("channels", "3", "kernel_size", "(3, 3)"));
    int32_t s1 = dt_op(&m, CVM_OP_cvm_right_shift, "s1", DT_INS(c),
                       DT_KV("precision", "8", "shift_bit", "6"));
    int32_t s2 = dt_op(&m, CVM_OP_cvm_right_shift, "s2", DT_INS(c),
                       DT_KV("precision", "4", "shift_bit", "9"));
    dt_op(&m, CVM_OP_elemwise_sub, "d", DT_INS(s1, s2), NULL);
    dt_check(&m, "conv read twice");
    dt_end(&m);
    /* the clip read twice: relu may not raise its CMP */
    dt_begin(&m, &r);
    x = dt_input(&m, "data", DT_ND(1, 40), 12);
    int32_t cl = dt_op(&m, CVM_OP_cvm_clip, "clip", DT_INS(x), DT_KV("precision", "8"));
    int32_t rl = dt_op(&m, CVM_OP_relu, "relu", DT_INS(cl), NULL);
    dt_op(&m, CVM_OP_elemwise_add, "sum", DT_INS(cl, rl), NULL);
    dt_check(&m, "clip read twice");
    dt_end(&m);
    /* rounding folded into a CADD's constant bias; relu after a max_pool */
    dt_begin(&m, &r);
    x = dt_input(&m, "data", DT_ND(1, 3, 8, 8), 20);
    int32_t k = dt_const(&m, "k", DT_ND(1), 10, (const int32_t[]){-300});
    int32_t a = dt_op(&m, CVM_OP_broadcast_add, "add", DT_INS(x, k), NULL);
    int32_t q = dt_op(&m, CVM_OP_cvm_right_shift, "q", DT_INS(a),
                      DT_KV("precision", "6", "shift_bit", "13"));
    int32_t p = dt_op(&m, CVM_OP_max_pool2d, "pool", DT_INS(q),
                      DT_KV("pool_size", "(3, 3)", "strides", "(2, 2)", "padding", "(1, 1)"));
    dt_op(&m, CVM_OP_relu, "relu", DT_INS(p), NULL);
    dt_check(&m, "folds");
    dt_end(&m);
    /* an operator that changes nothing (cvm_clip to a wider precision) passes its input on;
     * when that input is read elsewhere too, nothing may be folded through it */
    dt_begin(&m, &r);
    x = dt_input(&m, "data", DT_ND(1, 2, 6, 6), 8);
    w = dt_const(&m, "w", DT_ND(3, 2, 3, 3), 8, NULL);
    b = dt_const(&m, "b", DT_ND(3), 8, NULL);
    c = dt_op(&m, CVM_OP_conv2d, "conv", DT_INS(x, w, b),
              DT_KV("channels", "3", "kernel_size", "(3, 3)"));
    int32_t same = dt_op(&m, CVM_OP_cvm_clip, "same", DT_INS(c), DT_KV("precision", "32"));
    int32_t rs = dt_op(&m, CVM_OP_cvm_right_shift, "rs", DT_INS(same),
                       DT_KV("precision", "8", "shift_bit", "5"));
    int32_t wide = dt_op(&m, CVM_OP_cvm_clip, "wide", DT_INS(rs), DT_KV("precision", "9"));
    int32_t rl2 = dt_op(&m, CVM_OP_relu, "relu", DT_INS(wide), NULL);
    int32_t t1 = dt_op(&m, CVM_OP_elemwise_sub, "t1", DT_INS(rl2, rs), NULL);
    int32_t t2 = dt_op(&m, CVM_OP_cvm_right_shift, "t2", DT_INS(c),
                       DT_KV("precision", "8", "shift_bit", "7"));
    dt_op(&m, CVM_OP_elemwise_add, "t3", DT_INS(t1, t2), NULL);
    dt_check(&m, "no fold through a shared pass-through");
    dt_end(&m);
}

/* Outputs that are the input itself, a parameter, the same value twice; x * x. */
static void test_outputs(void **state)
{
    (void)state;
    DtRng r = {108};
    DtModel m;
    dt_begin(&m, &r);
    int32_t x = dt_input(&m, "data", DT_ND(1, 5, 7), 10);
    int32_t c = dt_const(&m, "c", DT_ND(1, 5, 7), 8, NULL);
    int32_t sq = dt_op(&m, CVM_OP_broadcast_mul, "sq", DT_INS(x, x), NULL);
    int32_t y = dt_op(&m, CVM_OP_negative, "neg", DT_INS(c), NULL); /* folded */
    int32_t z = dt_op(&m, CVM_OP_elemwise_add, "z", DT_INS(sq, y), NULL);
    dt_output(&m, z, 0);
    dt_output(&m, x, 0);
    dt_output(&m, y, 0);
    dt_output(&m, z, 0);
    dt_check(&m, "outputs");
    dt_end(&m);
}

/* the CVM formalization's and design text's worked examples, checked by hand on the simulator. */
static void test_worked_examples(void **state)
{
    (void)state;
    DtRng r = {109};
    DtModel m;
    /* sum(data, axis=(1)) and sum(data, axis=[1,2]) (the CVM formalization, "Reduce Operator") */
    static const int32_t data[18] = {1, 2, 2, 3, 1, 3, 1, 4, 4, 3, 5, 2, 7, 1, 7, 2, 7, 3};
    dt_begin(&m, &r);
    int32_t x = dt_input(&m, "data", DT_ND(3, 3, 2), 8);
    dt_set_input(&m, 0, data);
    dt_op(&m, CVM_OP_sum, "sum", DT_INS(x), DT_KV("axis", "(1)"));
    dt_check_expect(&m, "sum axis 1", (const int32_t[]){4, 8, 10, 9, 21, 6}, 6);
    dt_end(&m);
    dt_begin(&m, &r);
    x = dt_input(&m, "data", DT_ND(3, 3, 2), 8);
    dt_set_input(&m, 0, data);
    dt_op(&m, CVM_OP_sum, "sum", DT_INS(x), DT_KV("axis", "[1,2]"));
    dt_check_expect(&m, "sum axes 1,2", (const int32_t[]){12, 19, 27}, 3);
    dt_end(&m);
    /* broadcast_add([[1,1,1],[1,1,1]], [[0],[1]]) = [[1,1,1],[2,2,2]] */
    dt_begin(&m, &r);
    x = dt_input(&m, "data", DT_ND(2, 3), 8);
    dt_set_input(&m, 0, (const int32_t[]){1, 1, 1, 1, 1, 1});
    int32_t y = dt_input(&m, "y", DT_ND(2, 1), 8);
    dt_set_input(&m, 1, (const int32_t[]){0, 1});
    dt_op(&m, CVM_OP_broadcast_add, "add", DT_INS(x, y), NULL);
    dt_check_expect(&m, "broadcast_add", (const int32_t[]){1, 1, 1, 2, 2, 2}, 6);
    dt_end(&m);
    /* cvm_right_shift rounds half up: -1.5 -> -1, 1.5 -> 2, 2.5 -> 3, -2.5 -> -2 */
    dt_begin(&m, &r);
    x = dt_input(&m, "data", DT_ND(1, 6), 8);
    dt_set_input(&m, 0, (const int32_t[]){-3, 3, 5, -5, 100, -100});
    dt_op(&m, CVM_OP_cvm_right_shift, "rs", DT_INS(x), DT_KV("precision", "4", "shift_bit", "1"));
    dt_check_expect(&m, "right shift", (const int32_t[]){-1, 2, 3, -2, 7, -7}, 6);
    dt_end(&m);
    /* cvm_precision: 0 -> 1, 1 -> 1, 2, 3 -> 2, -4 -> 3 */
    dt_begin(&m, &r);
    x = dt_input(&m, "data", DT_ND(1, 5), 8);
    dt_set_input(&m, 0, (const int32_t[]){0, 1, 2, 3, -4});
    dt_op(&m, CVM_OP_cvm_precision, "p", DT_INS(x), NULL);
    dt_check_expect(&m, "cvm_precision", (const int32_t[]){1, 1, 2, 2, 3}, 5);
    dt_end(&m);
}

/* A per-sample shape of rank 0: the batch dim alone. */
static void test_rank0(void **state)
{
    (void)state;
    DtRng r = {110};
    DtModel m;
    dt_begin(&m, &r);
    int32_t x = dt_input(&m, "data", DT_ND(3, 4, 5), 8);
    int32_t s = dt_op(&m, CVM_OP_sum, "sum", DT_INS(x), DT_KV("axis", "(1, 2)"));
    int32_t c = dt_op(&m, CVM_OP_cvm_clip, "clip", DT_INS(s), DT_KV("precision", "8"));
    int32_t y = dt_input(&m, "data2", DT_ND(3, 4, 5), 8);
    dt_op(&m, CVM_OP_where, "where", DT_INS(c, x, y), NULL);
    dt_output(&m, m.last->id, 0);
    dt_output(&m, c, 0);
    dt_check(&m, "rank 0");
    dt_end(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lenet),
        cmocka_unit_test(test_resnet_block),
        cmocka_unit_test(test_mobilenet_block),
        cmocka_unit_test(test_yolo_head),
        cmocka_unit_test(test_mlp_batch),
        cmocka_unit_test(test_batch_ops),
        cmocka_unit_test(test_folds),
        cmocka_unit_test(test_outputs),
        cmocka_unit_test(test_worked_examples),
        cmocka_unit_test(test_rank0),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
