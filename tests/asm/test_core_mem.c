/* test_core_mem.c: the executor's core memory model (backend/core_mem.h) on hand-worked
 * words: the bank boundaries, little-endian int8 packing, precision codes, saturation; and
 * the Soma <-> Router word stream (backend/exec.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "backend/core_mem.h"
#include "backend/exec.h"
#include "backend/progset.h" /* compiles on its own */

static void test_banks(void **state)
{
    (void)state;
    assert_int_equal(core_mem_bank(0x0000), 0);
    assert_int_equal(core_mem_bank(0x3FFF), 0);
    assert_int_equal(core_mem_bank(0x4000), 1);
    assert_int_equal(core_mem_bank(0x7FFF), 1);
    assert_int_equal(core_mem_bank(0x8000), 2);
    assert_int_equal(core_mem_bank(0x8300), 2);
    assert_int_equal(core_mem_bank(0x8FFF), 2);
    assert_int_equal(core_mem_bank(0x9000), 3);
    assert_int_equal(core_mem_bank(0x9003), 3);
    assert_int_equal(core_mem_bank(0x9004), -1);
    assert_int_equal(core_mem_bank(-1), -1);
    /* 144 KiB of data words plus the 16-byte MEM3. */
    assert_int_equal(ASM_MEM3_BASE * 4, 144 * 1024);
    assert_true(core_mem_range_ok(0x9000, 4));
    assert_false(core_mem_range_ok(0x9000, 5));
    assert_true(core_mem_range_ok(0, ASM_CORE_WORDS));
    assert_true(core_mem_range_ok(ASM_CORE_WORDS, 0));
    assert_false(core_mem_range_ok(-1, 1));
    assert_false(core_mem_range_ok(1, -1));
    assert_false(core_mem_range_ok(INT64_MAX, INT64_MAX));
}

static void test_int8_packing(void **state)
{
    (void)state;
    CoreMem *m = core_mem_new();
    assert_non_null(m);
    /* Bytes 0..3 of the area at word 0x4001 are the low to high bytes of that word. */
    m->w[0x4001] = 0x80FF0201u;
    assert_int_equal(core_mem_get_i8(m, 0x4001, 0), 1);
    assert_int_equal(core_mem_get_i8(m, 0x4001, 1), 2);
    assert_int_equal(core_mem_get_i8(m, 0x4001, 2), -1);
    assert_int_equal(core_mem_get_u8(m, 0x4001, 2), 255);
    assert_int_equal(core_mem_get_i8(m, 0x4001, 3), -128);
    assert_int_equal(core_mem_get_u8(m, 0x4001, 3), 128);
    /* Byte 5 of the area at word 0x4000 is lane 1 of word 0x4001. */
    assert_int_equal(core_mem_get_i8(m, 0x4000, 5), 2);
    core_mem_set_u8(m, 0x4000, 6, 0x7F);
    assert_int_equal(m->w[0x4001], 0x807F0201u);
    core_mem_set_u8(m, 0x4000, 7, 0x00);
    assert_int_equal(m->w[0x4001], 0x007F0201u);
    assert_int_equal(m->w[0x4000], 0);
    assert_int_equal(m->w[0x4002], 0);
    free(m);
}

static void test_precision_codes(void **state)
{
    (void)state;
    /* IR enum (proto/taskgraph.proto) -> hardware code. */
    assert_int_equal(asm_hw_prec(4), ASM_HW_INT32);
    assert_int_equal(asm_hw_prec(0), ASM_HW_INT8);
    assert_int_equal(asm_hw_prec(1), ASM_HW_UINT8);
    assert_int_equal(asm_hw_prec(8), ASM_HW_TERNARY);
    assert_int_equal(ASM_HW_INT32, 0);
    assert_int_equal(ASM_HW_INT8, 1);
    assert_int_equal(ASM_HW_UINT8, 2);
    assert_int_equal(ASM_HW_TERNARY, 3);
    assert_int_equal(asm_hw_prec(2), -1);    /* INT_16: no hardware code */
    assert_int_equal(asm_hw_prec(100), -1);  /* INT_9 */
    assert_int_equal(asm_hw_per_word(ASM_HW_INT32), 1);
    assert_int_equal(asm_hw_per_word(ASM_HW_INT8), 4);
    assert_int_equal(asm_hw_per_word(ASM_HW_UINT8), 4);
    assert_int_equal(asm_hw_per_word(ASM_HW_TERNARY), 16);
    assert_int_equal(asm_hw_per_word(4), 0);
}

static void test_saturation(void **state)
{
    (void)state;
    assert_int_equal(asm_sat_add32(INT32_MAX, 1), INT32_MAX);
    assert_int_equal(asm_sat_add32(INT32_MIN, -1), INT32_MIN);
    assert_int_equal(asm_sat_add32(INT32_MAX, INT32_MIN), -1);
    assert_int_equal(asm_sat_add32(2000000000, 2000000000), INT32_MAX);
    assert_int_equal(asm_clip(300, -128, 127), 127);
    assert_int_equal(asm_clip(-300, -128, 127), -128);
    assert_int_equal(asm_clip(-5, 0, 255), 0);
    assert_int_equal(asm_clip(42, -128, 127), 42);
}

static void test_stream(void **state)
{
    (void)state;
    ExecStream st = {0};
    uint32_t w[100];
    for (int i = 0; i < 100; i++)
        w[i] = (uint32_t)i * 0x01010101u;
    assert_int_equal(exec_stream_push(&st, w, 0), ST_OK);
    assert_int_equal(st.n, 0);
    for (int k = 0; k < 3; k++)
        assert_int_equal(exec_stream_push(&st, w, 100), ST_OK);
    assert_int_equal(st.n, 300);
    assert_true(st.cap >= 300);
    assert_int_equal(st.w[0], 0);
    assert_int_equal(st.w[199], 99u * 0x01010101u);
    assert_int_equal(st.w[250], 50u * 0x01010101u);
    assert_int_equal(exec_stream_push(&st, w, SIZE_MAX / 2), ST_RUNTIME);
    assert_int_equal(st.n, 300);
    exec_stream_free(&st);
    assert_null(st.w);
    assert_int_equal(st.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_banks),
        cmocka_unit_test(test_stream),
        cmocka_unit_test(test_int8_packing),
        cmocka_unit_test(test_precision_codes),
        cmocka_unit_test(test_saturation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
