/* test_batch_const.c: constants that carry the batch axis (suite diff).
 *
 * A constant keeps the interpreter's full shape, batch axis included (lower_internal.h). Some
 * are made by the lowering itself from computed inputs: cvm_left_shift of a precision-1
 * input (X = 0) and cvm_right_shift by 32 (T = 0) are constant zeros of the node's output
 * shape (N, ...); folding an operator over such a constant gives another one. The TaskGraph
 * describes one sample, so every consumer must take one sample of such a constant: a model
 * output (the OUTPUT block has the per-sample shape), an elementwise operand, data movement,
 * a where condition. Each case runs with batches 1, 2 and 3 and compares the interpreter with
 * the simulator bit for bit (difftest.h). Constants whose samples differ, or whose axis 0 is
 * not the batch, cannot be one sample's value: those models are lowered with the whole
 * tensor as the unit (docs/lowering.md section 1). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "difftest.h"

#include <stdio.h>

/* cvm_left_shift of a precision-1 input: constant zeros. */
static int32_t lshift_zeros(DtModel *m, const char *name, int32_t x)
{
    return dt_op(m, CVM_OP_cvm_left_shift, name, DT_INS(x),
                 DT_KV("precision", "8", "shift_bit", "3"));
}

/* cvm_right_shift by 32: constant zeros. */
static int32_t rshift_zeros(DtModel *m, const char *name, int32_t x)
{
    return dt_op(m, CVM_OP_cvm_right_shift, name, DT_INS(x),
                 DT_KV("precision", "8", "shift_bit", "32"));
}

static void name_case(char *buf, size_t len, const char *what, int64_t n)
{
    snprintf(buf, len, "%s, batch %lld", what, (long long)n);
}

/* The bug report: the zeros as the model output. */
static void test_lshift_prec1_output(void **state)
{
    (void)state;
    DtRng r = {201};
    for (int64_t n = 1; n <= 3; n++) {
        char what[96];
        name_case(what, sizeof what, "left shift of a precision-1 input", n);
        DtModel m;
        dt_begin(&m, &r);
        int32_t x = dt_input(&m, "data", DT_ND(n, 3, 4), 1);
        lshift_zeros(&m, "lshift", x);
        dt_check(&m, what);
        dt_end(&m);
    }
}

static void test_rshift32_output(void **state)
{
    (void)state;
    DtRng r = {202};
    for (int64_t n = 1; n <= 3; n++) {
        char what[96];
        name_case(what, sizeof what, "right shift by 32", n);
        DtModel m;
        dt_begin(&m, &r);
        int32_t x = dt_input(&m, "data", DT_ND(n, 2, 5), 32);
        rshift_zeros(&m, "rshift", x);
        dt_check(&m, what);
        dt_end(&m);
    }
}

/* Rank-1 per-sample shapes and a rank-0 one (the batch dim alone). */
static void test_zeros_ranks(void **state)
{
    (void)state;
    DtRng r = {203};
    for (int64_t n = 1; n <= 3; n++) {
        char what[96];
        name_case(what, sizeof what, "zeros of rank 1 and 0 per sample", n);
        DtModel m;
        dt_begin(&m, &r);
        int32_t x = dt_input(&m, "data", DT_ND(n, 7), 1);
        int32_t y = dt_input(&m, "data2", DT_ND(n), 16);
        dt_output(&m, lshift_zeros(&m, "lshift", x), 0);
        dt_output(&m, rshift_zeros(&m, "rshift", y), 0);
        dt_check(&m, what);
        dt_end(&m);
    }
}

/* The zeros as an operand of elementwise operators with per-sample data. */
static void test_zeros_elementwise(void **state)
{
    (void)state;
    DtRng r = {204};
    for (int64_t n = 1; n <= 3; n++) {
        char what[96];
        name_case(what, sizeof what, "zeros into elementwise operators", n);
        DtModel m;
        dt_begin(&m, &r);
        int32_t x = dt_input(&m, "data", DT_ND(n, 3, 4), 1);
        int32_t y = dt_input(&m, "data2", DT_ND(n, 3, 4), 8);
        int32_t z = lshift_zeros(&m, "lshift", x);
        int32_t w = rshift_zeros(&m, "rshift", y);
        dt_output(&m, dt_op(&m, CVM_OP_elemwise_add, "add", DT_INS(y, z), NULL), 0);
        dt_output(&m, dt_op(&m, CVM_OP_elemwise_sub, "sub", DT_INS(w, y), NULL), 0);
        dt_output(&m, dt_op(&m, CVM_OP_broadcast_max, "max", DT_INS(y, w), NULL), 0);
        dt_output(&m, dt_op(&m, CVM_OP_broadcast_mul, "mul", DT_INS(z, y), NULL), 0);
        dt_check(&m, what);
        dt_end(&m);
    }
}

/* The zeros moved: concatenated with per-sample data, and reshaped alone (folded). */
static void test_zeros_movement(void **state)
{
    (void)state;
    DtRng r = {205};
    for (int64_t n = 1; n <= 3; n++) {
        char what[96];
        name_case(what, sizeof what, "zeros moved", n);
        DtModel m;
        dt_begin(&m, &r);
        int32_t x = dt_input(&m, "data", DT_ND(n, 3, 4), 1);
        int32_t y = dt_input(&m, "data2", DT_ND(n, 2, 4), 8);
        int32_t z = lshift_zeros(&m, "lshift", x);
        dt_output(&m, dt_op(&m, CVM_OP_concatenate, "cat", DT_INS(y, z), DT_KV("axis", "1")),
                  0);
        char shp[32];
        snprintf(shp, sizeof shp, "(%lld, 12)", (long long)n);
        dt_output(&m, dt_op(&m, CVM_OP_reshape, "flat", DT_INS(z), DT_KV("shape", shp)), 0);
        dt_output(&m, dt_op(&m, CVM_OP_transpose, "tr", DT_INS(z), DT_KV("axes", "(0, 2, 1)")),
                  0);
        dt_check(&m, what);
        dt_end(&m);
    }
}

/* Operators folded over the zeros (all their inputs constant): the result keeps the batch
 * axis; as an output and as an operand with per-sample data. */
static void test_zeros_folded(void **state)
{
    (void)state;
    DtRng r = {206};
    for (int64_t n = 1; n <= 3; n++) {
        char what[96];
        name_case(what, sizeof what, "operators folded over zeros", n);
        DtModel m;
        dt_begin(&m, &r);
        int32_t x = dt_input(&m, "data", DT_ND(n, 3, 4), 8);
        int32_t z = rshift_zeros(&m, "rshift", x);
        int32_t p = dt_const(&m, "p", DT_ND(1, 3, 4), 8, NULL);
        int32_t f = dt_op(&m, CVM_OP_broadcast_add, "plus_p", DT_INS(z, p), NULL);
        f = dt_op(&m, CVM_OP_negative, "neg", DT_INS(f), NULL);
        dt_output(&m, f, 0);
        dt_output(&m, dt_op(&m, CVM_OP_elemwise_add, "add", DT_INS(x, f), NULL), 0);
        int32_t c = dt_const(&m, "c", DT_ND(4), 8, NULL);
        int32_t g = dt_op(&m, CVM_OP_broadcast_mul, "times_c", DT_INS(c, z), NULL);
        dt_output(&m, g, 0);
        dt_check(&m, what);
        dt_end(&m);
    }
}

/* The zeros as a where condition: of the output's shape (data movement), and one per sample
 * (a row condition); a folded condition of many runs (the arithmetic form with masks). */
static void test_zeros_where(void **state)
{
    (void)state;
    DtRng r = {207};
    int32_t alt[6 * 8];
    for (int i = 0; i < 6 * 8; i++)
        alt[i] = i % 3 ? 0 : i - 20;
    for (int64_t n = 1; n <= 3; n++) {
        char what[96];
        name_case(what, sizeof what, "zeros as a where condition", n);
        DtModel m;
        dt_begin(&m, &r);
        int32_t x = dt_input(&m, "data", DT_ND(n, 3, 4), 8);
        int32_t y = dt_input(&m, "data2", DT_ND(n, 3, 4), 8);
        int32_t s = dt_input(&m, "data3", DT_ND(n), 8);
        int32_t c = rshift_zeros(&m, "cond", x);
        dt_output(&m, dt_op(&m, CVM_OP_where, "where", DT_INS(c, x, y), NULL), 0);
        int32_t rc = rshift_zeros(&m, "rowcond", s);
        dt_output(&m, dt_op(&m, CVM_OP_where, "where_rows", DT_INS(rc, y, x), NULL), 0);
        int32_t a = dt_input(&m, "data4", DT_ND(n, 6, 8), 8);
        int32_t p = dt_const(&m, "alt", DT_ND(1, 6, 8), 8, alt);
        int32_t mc = dt_op(&m, CVM_OP_broadcast_add, "mask", DT_INS(rshift_zeros(&m, "z", a), p),
                           NULL);
        int32_t b = dt_op(&m, CVM_OP_negative, "nega", DT_INS(a), NULL);
        dt_output(&m, dt_op(&m, CVM_OP_where, "where_mask", DT_INS(mc, a, b), NULL), 0);
        dt_check(&m, what);
        dt_end(&m);
    }
}

/* The zeros as the table of a lookup with computed indices. */
static void test_zeros_table(void **state)
{
    (void)state;
    DtRng r = {208};
    for (int64_t n = 1; n <= 3; n++) {
        char what[96];
        name_case(what, sizeof what, "zeros as a lookup table", n);
        DtModel m;
        dt_begin(&m, &r);
        int32_t x = dt_input(&m, "data", DT_ND(n, 5), 1);
        int32_t i = dt_input(&m, "idx", DT_ND(n, 6), 4);
        int32_t z = lshift_zeros(&m, "lshift", x);
        char dim[16];
        snprintf(dim, sizeof dim, "%lld", (long long)n * 5);
        dt_op(&m, CVM_OP_cvm_lut, "lut", DT_INS(i, z), DT_KV("in_dim", dim));
        dt_check(&m, what);
        dt_end(&m);
    }
}

/* A parameter as a model output: one sample of it when its axis 0 is the batch and its
 * samples are equal. */
static void test_param_output(void **state)
{
    (void)state;
    DtRng r = {209};
    static const int32_t rows[3 * 4] = {5, -6, 7, 0, 5, -6, 7, 0, 5, -6, 7, 0};
    for (int64_t n = 1; n <= 3; n++) {
        char what[96];
        name_case(what, sizeof what, "a parameter of equal samples as an output", n);
        DtModel m;
        dt_begin(&m, &r);
        int32_t x = dt_input(&m, "data", DT_ND(n, 4), 8);
        int32_t p = dt_const(&m, "p", DT_ND(n, 4), 8, rows);
        dt_output(&m, dt_op(&m, CVM_OP_relu, "relu", DT_INS(x), NULL), 0);
        dt_output(&m, p, 0);
        dt_output(&m, dt_op(&m, CVM_OP_negative, "neg", DT_INS(p), NULL), 0);
        dt_output(&m, dt_op(&m, CVM_OP_elemwise_add, "add", DT_INS(p, x), NULL), 0);
        dt_check(&m, what);
        dt_end(&m);
    }
}

/* Constant outputs that are no sample's value with a batch of 2 or 3: the whole tensor is the
 * unit (they were [lower.batch]). */
static void test_const_output_whole(void **state)
{
    (void)state;
    DtRng r = {210};
    for (int64_t n = 2; n <= 3; n++) {
        DtModel m;
        /* samples that differ */
        dt_begin(&m, &r);
        int32_t x = dt_input(&m, "data", DT_ND(n, 4), 8);
        dt_output(&m, dt_op(&m, CVM_OP_relu, "relu", DT_INS(x), NULL), 0);
        int32_t p = dt_const(&m, "per_sample", DT_ND(n, 4), 8,
                             (const int32_t[]){1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
        dt_output(&m, dt_op(&m, CVM_OP_negative, "neg", DT_INS(p), NULL), 0);
        dt_check(&m, "constant output whose samples differ");
        dt_end(&m);
        /* axis 0 is not the batch */
        dt_begin(&m, &r);
        x = dt_input(&m, "data", DT_ND(n, 4), 8);
        dt_output(&m, dt_op(&m, CVM_OP_relu, "relu", DT_INS(x), NULL), 0);
        p = dt_const(&m, "shared", DT_ND(1, 4), 8, NULL);
        dt_output(&m, p, 0);
        dt_check(&m, "constant output whose axis 0 is not the batch");
        dt_end(&m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lshift_prec1_output),
        cmocka_unit_test(test_rshift32_output),
        cmocka_unit_test(test_zeros_ranks),
        cmocka_unit_test(test_zeros_elementwise),
        cmocka_unit_test(test_zeros_movement),
        cmocka_unit_test(test_zeros_folded),
        cmocka_unit_test(test_zeros_where),
        cmocka_unit_test(test_zeros_table),
        cmocka_unit_test(test_param_output),
        cmocka_unit_test(test_const_output_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
