/* core_mem.c: one core's memory words, banks, int8 packing and the chip's saturation
 * (core_mem.h, docs/backend.md). */
#include "backend/core_mem.h"

#include <stdlib.h>

CoreMem *core_mem_new(void)
{
    return calloc(1, sizeof(CoreMem));
}

int core_mem_bank(int64_t addr)
{
    if (addr < 0 || addr >= ASM_CORE_WORDS)
        return -1;
    if (addr >= ASM_MEM3_BASE)
        return 3;
    return (int)(addr / ASM_MEM1_BASE);
}

bool core_mem_range_ok(int64_t base, int64_t len)
{
    return base >= 0 && len >= 0 && base <= ASM_CORE_WORDS && len <= ASM_CORE_WORDS - base;
}

uint8_t core_mem_get_u8(const CoreMem *m, int64_t base, int64_t i)
{
    uint32_t w = m->w[base + i / 4];
    return (uint8_t)(w >> (8 * (i % 4)));
}

int8_t core_mem_get_i8(const CoreMem *m, int64_t base, int64_t i)
{
    uint8_t u = core_mem_get_u8(m, base, i);
    return (int8_t)(u >= 128 ? (int)u - 256 : (int)u);
}

void core_mem_set_u8(CoreMem *m, int64_t base, int64_t i, uint8_t v)
{
    uint32_t *w = &m->w[base + i / 4];
    unsigned shift = (unsigned)(8 * (i % 4));
    *w = (*w & ~(UINT32_C(0xFF) << shift)) | ((uint32_t)v << shift);
}

/* IR Precision value -> hardware code: one table, the IR's numbers on the left. */
static const struct { int ir; AsmHwPrec hw; } hw_prec_table[] = {
    {4, ASM_HW_INT32},    /* INT_32 */
    {0, ASM_HW_INT8},     /* INT_8 */
    {1, ASM_HW_UINT8},    /* UINT_8 */
    {8, ASM_HW_TERNARY},  /* TERNARY */
};

int asm_hw_prec(int ir_precision)
{
    for (size_t k = 0; k < sizeof hw_prec_table / sizeof hw_prec_table[0]; k++)
        if (hw_prec_table[k].ir == ir_precision)
            return (int)hw_prec_table[k].hw;
    return -1;
}

int asm_hw_per_word(int p)
{
    switch (p) {
    case ASM_HW_INT32: return 1;
    case ASM_HW_INT8: return 4;
    case ASM_HW_UINT8: return 4;
    case ASM_HW_TERNARY: return 16;
    default: return 0;
    }
}

int32_t asm_clip(int64_t v, int32_t lo, int32_t hi)
{
    return v < lo ? lo : v > hi ? hi : (int32_t)v;
}

int32_t asm_sat_add32(int32_t a, int32_t b)
{
    return asm_clip((int64_t)a + b, INT32_MIN, INT32_MAX);
}
