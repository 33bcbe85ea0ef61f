/* test_lower_errors.c: the lowering's own logic errors (docs/lowering.md "Errors"), one test
 * per rule: each is a valid CVM model that the Task IR cannot compute for one sample or
 * exactly, and the finding names the node. Plus lower.dialect (a runtime error). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "difftest.h"

#include <string.h>

/* A model input without random values (for shapes too large to fill). */
static int32_t bare_input(DtModel *m, const char *name, uint32_t ndim, const int64_t *d,
                          int32_t p)
{
    OgShape s = {ndim, {0}};
    for (uint32_t i = 0; i < ndim; i++)
        s.d[i] = d[i];
    OgNode *n;
    assert_int_equal(fe_cvm_add_input(m->g, name, &s, p, &n, &m->d), ST_OK);
    m->last = n;
    return n->id;
}

/* lower.limit: a batch of 1 whose sample holds 257 images along axis 0 (as an ONNX model's
 * input [257, C, H, W]): a conv2d gets one CC per image, at most 256 of them. */
static void test_images_limit(void **state)
{
    (void)state;
    DtRng r = {31};
    DtModel m;
    dt_begin(&m, &r);
    int32_t x = dt_input(&m, "data", DT_ND(1, 257, 2, 1, 1), 8);
    int32_t y = dt_op(&m, CVM_OP_reshape, "images", DT_INS(x), DT_KV("shape", "(257, 2, 1, 1)"));
    int32_t w = dt_const(&m, "w", DT_ND(2, 2, 1, 1), 8, NULL);
    dt_op(&m, CVM_OP_conv2d, "conv", DT_INS(y, w),
          DT_KV("channels", "2", "kernel_size", "(1, 1)", "use_bias", "false"));
    dt_expect_lower_error(&m, "lower.limit", "'conv' (conv2d)");
    dt_end(&m);
}

/* lower.limit: max_pool2d over 2^12 images of 2^13 channels in one sample: side by side they
 * would need a block dim of 2^25. (Input without data, as below.) */
static void test_images_channels(void **state)
{
    (void)state;
    DtRng r = {33};
    DtModel m;
    dt_begin(&m, &r);
    OgShape s = {5, {1, 1 << 12, 1 << 13, 1, 1}};
    OgNode *in;
    assert_int_equal(fe_cvm_add_input(m.g, "data", &s, 8, &in, &m.d), ST_OK);
    int32_t y = dt_op(&m, CVM_OP_reshape, "images", DT_INS(in->id),
                      DT_KV("shape", "(4096, 8192, 1, 1)"));
    dt_op(&m, CVM_OP_max_pool2d, "pool", DT_INS(y), DT_KV("pool_size", "(1, 1)"));
    dt_expect_lower_error(&m, "lower.limit", "'pool' (max_pool2d)");
    dt_end(&m);
}

/* lower.limit: a sample of 2^29 elements (within the frontend's 2^30 a tensor) is refused
 * before the lowering builds its element map (4 GiB for this repeat), since no block could
 * hold it. The input (2^28, the most a block holds) is added without data: dt_input would
 * allocate 1 GiB. */
static void test_sample_volume(void **state)
{
    (void)state;
    DtRng r = {32};
    DtModel m;
    dt_begin(&m, &r);
    OgShape s = {4, {1, 1, 1 << 14, 1 << 14}};
    OgNode *in;
    assert_int_equal(fe_cvm_add_input(m.g, "data", &s, 8, &in, &m.d), ST_OK);
    dt_op(&m, CVM_OP_repeat, "twice", DT_INS(in->id), DT_KV("repeats", "2", "axis", "1"));
    dt_expect_lower_error(&m, "lower.limit", "'twice' (repeat)");
    assert_non_null(strstr(m.d.entries[diag_find(&m.d, "lower.limit")].what, "536870912"));
    dt_end(&m);
}

/* lower.precision: a comparison at precision 32 (a - b leaves int32). */
static void test_precision_greater(void **state)
{
    (void)state;
    DtRng r = {6};
    DtModel m;
    dt_begin(&m, &r);
    int32_t x = dt_input(&m, "data", DT_ND(1, 6), 32);
    int32_t y = dt_input(&m, "data2", DT_ND(1, 6), 8);
    dt_op(&m, CVM_OP_broadcast_greater, "gt", DT_INS(x, y), NULL);
    dt_expect_lower_error(&m, "lower.precision", "'gt' (broadcast_greater)");
    dt_end(&m);
}

/* lower.param: a convolution whose weight is computed. */
static void test_param_weight(void **state)
{
    (void)state;
    DtRng r = {7};
    DtModel m;
    dt_begin(&m, &r);
    int32_t x = dt_input(&m, "data", DT_ND(1, 2, 5, 5), 8);
    int32_t w = dt_input(&m, "weight", DT_ND(1, 2, 3, 3), 4);
    dt_op(&m, CVM_OP_conv2d, "conv", DT_INS(x, w),
          DT_KV("channels", "1", "kernel_size", "(3, 3)", "use_bias", "false"));
    dt_expect_lower_error(&m, "lower.param", "'conv' (conv2d)");
    dt_end(&m);
}

/* lower.dynamic: a gather whose indices and data are both computed. */
static void test_dynamic_take(void **state)
{
    (void)state;
    DtRng r = {8};
    DtModel m;
    dt_begin(&m, &r);
    int32_t x = dt_input(&m, "data", DT_ND(1, 10), 8);
    int32_t i = dt_op(&m, CVM_OP_abs, "idx", DT_INS(x), NULL);
    dt_op(&m, CVM_OP_take, "gather", DT_INS(x, i), NULL);
    dt_expect_lower_error(&m, "lower.dynamic", "'gather' (take)");
    dt_end(&m);
}

/* lower.host: get_valid_counts on computed boxes. */
static void test_host_valid_counts(void **state)
{
    (void)state;
    DtRng r = {9};
    DtModel m;
    dt_begin(&m, &r);
    int32_t x = dt_input(&m, "data", DT_ND(1, 8, 6), 8);
    dt_op(&m, CVM_OP_get_valid_counts, "gvc", DT_INS(x), DT_KV("score_threshold", "0"));
    dt_expect_lower_error(&m, "lower.host", "'gvc' (get_valid_counts)");
    dt_end(&m);
}

/* lower.host: non_max_suppression on computed boxes. */
static void test_host_nms(void **state)
{
    (void)state;
    DtRng r = {10};
    DtModel m;
    dt_begin(&m, &r);
    int32_t x = dt_input(&m, "data", DT_ND(1, 8, 6), 8);
    int32_t vc = dt_const(&m, "count", DT_ND(1), 8, (const int32_t[]){5});
    dt_op(&m, CVM_OP_non_max_suppression, "nms", DT_INS(x, vc), NULL);
    dt_expect_lower_error(&m, "lower.host", "'nms' (non_max_suppression)");
    dt_end(&m);
}

/* lower.limit: a reduction window of more than 2^24 elements. */
static void test_limit_window(void **state)
{
    (void)state;
    DtRng r = {11};
    DtModel m;
    dt_begin(&m, &r);
    int32_t x = bare_input(&m, "data", DT_ND(1, 8192, 4096), 2);
    dt_op(&m, CVM_OP_max, "peak", DT_INS(x), DT_KV("axis", "(1, 2)"));
    dt_expect_lower_error(&m, "lower.limit", "'peak' (max)");
    dt_end(&m);
}

/* lower.dialect: a graph of another dialect is a caller's bug (runtime error). */
static void test_dialect(void **state)
{
    (void)state;
    OpGraph *g = og_create("onnx");
    assert_non_null(g);
    Diag d;
    diag_init(&d, "x");
    Graph *tg = NULL;
    assert_int_equal(fe_lower(g, NULL, &tg, &d), ST_RUNTIME);
    assert_null(tg);
    assert_true(diag_find(&d, "lower.dialect") >= 0);
    diag_finish(&d);
    og_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_images_limit),
        cmocka_unit_test(test_sample_volume),
        cmocka_unit_test(test_images_channels),
        cmocka_unit_test(test_precision_greater),
        cmocka_unit_test(test_param_weight),
        cmocka_unit_test(test_dynamic_take),
        cmocka_unit_test(test_host_valid_counts),
        cmocka_unit_test(test_host_nms),
        cmocka_unit_test(test_limit_window),
        cmocka_unit_test(test_dialect),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
