/* test_exec_soma_move.c: the executor's P06 (move, requantize, merge) and P26 (split, the
 * Router's stream) on hand-worked words (docs/backend.md, "P06 and P26"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "somatest.h"

static Taskir__Asm__P06 p06(Taskir__Precision x1p, Taskir__Precision outp, int len_in,
                            int num_in, int len_out, int num_out)
{
    Taskir__Asm__P06 p = TASKIR__ASM__P06__INIT;
    p.x1_precision = x1p, p.out_precision = outp;
    p.length_in = len_in, p.num_in = num_in, p.length_out = len_out, p.num_out = num_out;
    p.x1_base_addr = 0x0000, p.o_base_addr = 0x4000;
    return p;
}

/* Requantization: int32 -> int8 with k = 1 (floor of /4) and clipping, 2 rows of 5.
 * An int32 row of 5 is padded to 8 words; an int8 row of 5 to 16 bytes (4 words).
 *   row 0: 7 -7 1000 -1000 3 -> 1 -2 250->127 -250->-128 0 -> words 0x807FFE01, 0
 *   row 1: 4 8 12 16 -4 -> 1 2 3 4 -1 -> words 0x04030201, 0x000000FF
 * The input's padding lanes 5..7 (words 0) travel too, as 0; lanes 8..15 of a row are 0. */
static void test_p06_requantize(void **state)
{
    (void)state;
    CoreMem *m = st_mem();
    static const int32_t r0[5] = {7, -7, 1000, -1000, 3}, r1[5] = {4, 8, 12, 16, -4};
    st_put_i32(m, 0, r0, 5);
    st_put_i32(m, 8, r1, 5);
    st_fill(m, 0x4000, 9, 0xDEADBEEFu);
    Taskir__Asm__P06 p = p06(P_INT32, P_INT8, 5, 2, 5, 2);
    p.bit_shift_num = 1;
    p.x1_addr_length = 16, p.o_addr_length = 8;
    Taskir__Asm__SomaPrim s = TASKIR__ASM__SOMA_PRIM__INIT;
    s.pic = 0x06, s.p06 = &p;
    st_run(m, &s, NULL, NULL);
    static const uint32_t want[9] = {0x807FFE01u, 0, 0, 0, 0x04030201u, 0x000000FFu, 0, 0,
                                     0xDEADBEEFu};
    for (int i = 0; i < 9; i++)
        assert_int_equal(m->w[0x4000 + i], want[i]);
    free(m);
}

/* Merge: out row = x1 row (int8, 3 elements padded to 16) followed by the ciso row (int8, 2
 * elements), length_out 32. The ciso part starts at element 16, after x1's padded row, and
 * x1's padding lane 3 (holding 9) travels with it:
 *   out bytes 0..15: 1 2 3 9 0 ...; bytes 16..31: -1 -2 0 ... -> words 0x09030201 0 0 0
 *   0x0000FEFF 0 0 0 */
static void test_p06_merge_ciso(void **state)
{
    (void)state;
    CoreMem *m = st_mem();
    static const int8_t a[4] = {1, 2, 3, 9}, b[2] = {-1, -2};
    st_put_i8(m, 0, a, 4);
    st_put_i8(m, 0x100, b, 2);
    Taskir__Asm__P06 p = p06(P_INT8, P_INT8, 3, 1, 32, 1);
    p.length_ciso = 2, p.num_ciso = 1;
    p.ciso_base_addr = 0x100, p.ciso_addr_length = 4;
    p.x1_addr_length = 4, p.o_addr_length = 8;
    Taskir__Asm__SomaPrim s = TASKIR__ASM__SOMA_PRIM__INIT;
    s.pic = 0x06, s.p06 = &p;
    st_run(m, &s, NULL, NULL);
    static const uint32_t want[8] = {0x09030201u, 0, 0, 0, 0x0000FEFFu, 0, 0, 0};
    for (int i = 0; i < 8; i++)
        assert_int_equal(m->w[0x4000 + i], want[i]);
    free(m);
}

/* Split by slices: 2 rows of 32 int8 (8 words each); length_out 16 with num_out 1 keeps the
 * first 16 bytes of row 0; the same with x1 starting 4 words on keeps bytes 16..31. */
static void test_p06_split_slice(void **state)
{
    (void)state;
    CoreMem *m = st_mem();
    for (uint32_t i = 0; i < 16; i++)
        m->w[i] = 0x01010101u * (i + 1);   /* row 0: words 1..8, row 1: words 9..16 */
    Taskir__Asm__P06 p = p06(P_INT8, P_INT8, 32, 2, 16, 1);
    p.x1_addr_length = 16, p.o_addr_length = 4;
    Taskir__Asm__SomaPrim s = TASKIR__ASM__SOMA_PRIM__INIT;
    s.pic = 0x06, s.p06 = &p;
    st_run(m, &s, NULL, NULL);
    for (int i = 0; i < 4; i++)
        assert_int_equal(m->w[0x4000 + i], 0x01010101u * (uint32_t)(i + 1));
    p.x1_base_addr = 4, p.x1_addr_length = 12, p.num_in = 1, p.length_in = 16;
    p.o_base_addr = 0x4010;
    st_run(m, &s, NULL, NULL);
    for (int i = 0; i < 4; i++)
        assert_int_equal(m->w[0x4010 + i], 0x01010101u * (uint32_t)(i + 5));
    free(m);
}

/* real_length_in_en: one int32 row of 4 read 3 times (num_in 3, real_num_in 1): the x1 area
 * needs only 4 words; -5 narrowed int32 -> int32 is not shifted even with k = 3. */
static void test_p06_repeat_row(void **state)
{
    (void)state;
    CoreMem *m = st_mem();
    static const int32_t r[4] = {1, -5, 7, 100000};
    st_put_i32(m, 0, r, 4);
    Taskir__Asm__P06 p = p06(P_INT32, P_INT32, 4, 3, 4, 3);
    p.real_length_in_en = 1, p.real_num_in = 1, p.bit_shift_num = 3;
    p.x1_addr_length = 4, p.o_addr_length = 12;
    Taskir__Asm__SomaPrim s = TASKIR__ASM__SOMA_PRIM__INIT;
    s.pic = 0x06, s.p06 = &p;
    st_run(m, &s, NULL, NULL);
    for (int row = 0; row < 3; row++)
        for (int i = 0; i < 4; i++)
            assert_int_equal((int32_t)m->w[0x4000 + row * 4 + i], r[i]);
    free(m);
}

/* P26 feeding the Router: an int32 row of 20 (20 words) split into o (int8, 16 elements,
 * streamed: out_ciso_sel 0) and ciso (int8, 4 elements padded to 16, in memory), k = 0.
 *   elements 0..15 = -8 .. 7 -> stream words 0xFBFAF9F8 0xFFFEFDFC 0x03020100 0x07060504
 *   elements 16..19 = 200 -200 5 6 -> clip 127 -128 5 6 -> ciso word 0x0605807F, then 0 0 0
 * The stream already held one word: the four follow it. */
static void test_p26_to_router(void **state)
{
    (void)state;
    CoreMem *m = st_mem();
    int32_t x[20];
    for (int j = 0; j < 16; j++)
        x[j] = j - 8;
    x[16] = 200, x[17] = -200, x[18] = 5, x[19] = 6;
    st_put_i32(m, 0, x, 20);
    st_fill(m, 0x4000, 4, 0xDEADBEEFu);
    Taskir__Asm__P26 p = TASKIR__ASM__P26__INIT;
    p.x1_precision = P_INT32, p.out_precision = P_INT8;
    p.length_in = 20, p.num_in = 1, p.length_out = 16, p.num_out = 1;
    p.length_ciso = 4, p.num_ciso = 1;
    p.x1_base_addr = 0, p.x1_addr_length = 20;
    p.o_base_addr = 0x9000, p.o_addr_length = 4;
    p.ciso_base_addr = 0x4000, p.ciso_addr_length = 4;
    Taskir__Asm__SomaPrim s = TASKIR__ASM__SOMA_PRIM__INIT;
    s.pic = 0x26, s.p26 = &p;
    ExecStream to = {0};
    uint32_t first = 7;
    assert_int_equal(exec_stream_push(&to, &first, 1), ST_OK);
    st_run(m, &s, &to, NULL);
    static const uint32_t want[5] = {7, 0xFBFAF9F8u, 0xFFFEFDFCu, 0x03020100u, 0x07060504u};
    assert_int_equal(to.n, 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(to.w[i], want[i]);
    assert_int_equal(m->w[0x4000], 0x0605807Fu);
    assert_int_equal(m->w[0x4001], 0);
    assert_int_equal(m->w[0x4003], 0);
    exec_stream_free(&to);
    free(m);
}

/* P26 reading from the Router (x1 at 0x9000, as Soma2 after the Router): 2 rows of 4 int8
 * received as 2 x 4 words, each row (16 bytes padded) copied whole into o in MEM2. */
static void test_p26_from_router(void **state)
{
    (void)state;
    CoreMem *m = st_mem();
    ExecStream from = {0};
    static const uint32_t rx[8] = {0x04030201u, 0, 0, 0, 0x80FF7F00u, 0, 0, 0};
    assert_int_equal(exec_stream_push(&from, rx, 8), ST_OK);
    Taskir__Asm__P26 p = TASKIR__ASM__P26__INIT;
    p.x1_precision = P_INT8, p.out_precision = P_INT8;
    p.length_in = 4, p.num_in = 2, p.length_out = 4, p.num_out = 2;
    p.x1_base_addr = 0x9000, p.x1_addr_length = 8;
    p.o_base_addr = 0x8400, p.o_addr_length = 8;
    Taskir__Asm__SomaPrim s = TASKIR__ASM__SOMA_PRIM__INIT;
    s.pic = 0x26, s.p26 = &p;
    st_run(m, &s, NULL, &from);
    for (int i = 0; i < 8; i++)
        assert_int_equal(m->w[0x8400 + i], rx[i]);
    exec_stream_free(&from);
    free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_p06_requantize),
        cmocka_unit_test(test_p06_merge_ciso),
        cmocka_unit_test(test_p06_split_slice),
        cmocka_unit_test(test_p06_repeat_row),
        cmocka_unit_test(test_p26_to_router),
        cmocka_unit_test(test_p26_from_router),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
