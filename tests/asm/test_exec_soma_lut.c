/* test_exec_soma_lut.c: the executor's P07 table lookup on hand-worked words
 * (docs/backend.md, "P07"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "somatest.h"

/* 256 entries (8-bit index, lut_data_width 1) of int8, entry e = e - 128 (byte e ^ 0x80), at
 * word 0x4000 (64 words); int32 indices, k = 1 (floor of /4):
 *   40 -> 10 -> entry 10 = -118
 *   -1 -> floor(-0.25) = -1 -> entry 255 = 127
 *   1000 -> 250 -> clipped to 127 -> entry 127 = -1
 *   -1000 -> -250 -> clipped to -128 -> entry 128 = 0
 *   3 -> 0 -> entry 0 = -128
 * The int32 row of 5 is padded to 8 words, the int8 output row to 16 bytes: lanes 5..7 look
 * up the input's padding words (0 -> entry 0 = -128), lanes 8..15 are 0.
 * Words: 0x00FF7F8A, 0x80808080, 0, 0. */
static void test_p07_256_entries(void **state)
{
    (void)state;
    CoreMem *m = st_mem();
    for (int e = 0; e < 256; e++)
        core_mem_set_u8(m, 0x4000, e, (uint8_t)(e ^ 0x80));
    static const int32_t x[5] = {40, -1, 1000, -1000, 3};
    st_put_i32(m, 0, x, 5);
    Taskir__Asm__P07 p = TASKIR__ASM__P07__INIT;
    p.x1_precision = P_INT32, p.x2_precision = P_INT8;
    p.neuron_real_num = 5, p.group_num = 1, p.lut_data_width = 1, p.bit_shift_num = 1;
    p.x1_base_addr = 0, p.x1_addr_length = 8;
    p.lut_base_addr = 0x4000, p.lut_addr_length = 64;
    p.o_base_addr = 0x100, p.o_addr_length = 4;
    Taskir__Asm__SomaPrim s = TASKIR__ASM__SOMA_PRIM__INIT;
    s.pic = 0x07, s.p07 = &p;
    st_run(m, &s, NULL, NULL);
    assert_int_equal(m->w[0x100], 0x00FF7F8Au);
    assert_int_equal(m->w[0x101], 0x80808080u);
    assert_int_equal(m->w[0x102], 0);
    assert_int_equal(m->w[0x103], 0);
    free(m);
}

/* 16 entries (4-bit index, lut_data_width 0) of int32, entry e = 10 e; int8 indices, k = 0,
 * 2 groups of 3: 5 -> 50; -3 -> entry 13 = 130; 100 -> clipped to 7 -> 70; group 1: -8 ->
 * entry 8 = 80; 7 -> 70; -100 -> -8 -> 80. An int8 index with an int32 table pads the output
 * row to 16 elements (16 words): lanes 3..15 look up the index row's padding (0) -> 0. */
static void test_p07_4bit_index(void **state)
{
    (void)state;
    CoreMem *m = st_mem();
    for (int e = 0; e < 16; e++)
        m->w[0x4000 + e] = (uint32_t)(10 * e);
    static const int8_t g0[3] = {5, -3, 100}, g1[3] = {-8, 7, -100};
    st_put_i8(m, 0, g0, 3);
    st_put_i8(m, 4, g1, 3);
    Taskir__Asm__P07 p = TASKIR__ASM__P07__INIT;
    p.x1_precision = P_INT8, p.x2_precision = P_INT32;
    p.neuron_real_num = 3, p.group_num = 2, p.lut_data_width = 0;
    p.x1_base_addr = 0, p.x1_addr_length = 8;
    p.lut_base_addr = 0x4000, p.lut_addr_length = 16;
    p.o_base_addr = 0x200, p.o_addr_length = 32;
    Taskir__Asm__SomaPrim s = TASKIR__ASM__SOMA_PRIM__INIT;
    s.pic = 0x07, s.p07 = &p;
    m->w[0x200 + 32] = 0xDEADBEEFu;
    st_run(m, &s, NULL, NULL);
    static const uint32_t want[2][3] = {{50, 130, 70}, {80, 70, 80}};
    for (int g = 0; g < 2; g++) {
        for (int j = 0; j < 3; j++)
            assert_int_equal(m->w[0x200 + 16 * g + j], want[g][j]);
        for (int j = 3; j < 16; j++)
            assert_int_equal(m->w[0x200 + 16 * g + j], 0);
    }
    assert_int_equal(m->w[0x200 + 32], 0xDEADBEEFu);
    free(m);
}

/* A 12-bit index (4096 entries, lut_data_width 2) into an int32 table of 4096 words at
 * 0x4000, entry e = -e; with both INT_32 the rows pad to 4 elements. Index 5000 (k = 0) is
 * clipped to 2047 -> -2047; -1 reads entry 4095 -> -4095. */
static void test_p07_int32_12bit(void **state)
{
    (void)state;
    CoreMem *m = st_mem();
    for (int e = 0; e < 4096; e++)
        m->w[0x4000 + e] = (uint32_t)-e;
    static const int32_t x[2] = {5000, -1};
    st_put_i32(m, 0, x, 2);
    Taskir__Asm__P07 p = TASKIR__ASM__P07__INIT;
    p.x1_precision = P_INT32, p.x2_precision = P_INT32;
    p.neuron_real_num = 2, p.group_num = 1, p.lut_data_width = 2;
    p.x1_base_addr = 0, p.x1_addr_length = 4;
    p.lut_base_addr = 0x4000, p.lut_addr_length = 4096;
    p.o_base_addr = 0x100, p.o_addr_length = 4;
    Taskir__Asm__SomaPrim s = TASKIR__ASM__SOMA_PRIM__INIT;
    s.pic = 0x07, s.p07 = &p;
    st_run(m, &s, NULL, NULL);
    assert_int_equal((int32_t)m->w[0x100], -2047);
    assert_int_equal((int32_t)m->w[0x101], -4095);
    assert_int_equal((int32_t)m->w[0x102], 0);   /* padding lanes look up entry 0 = 0 */
    free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_p07_256_entries),
        cmocka_unit_test(test_p07_4bit_index),
        cmocka_unit_test(test_p07_int32_12bit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
