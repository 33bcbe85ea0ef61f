/* core_mem.h: the executor's model of one core's memory (docs/backend.md): 32-bit words
 * addressed by word, the banks MEM0..MEM3, int8 values packed 4 to a word little-endian, the
 * hardware's 2-bit precision codes, and the chip's saturating int32 accumulation. The
 * per-core program executor reads and writes memory only through these functions.
 */
#ifndef TASKIR_BACKEND_CORE_MEM_H
#define TASKIR_BACKEND_CORE_MEM_H

#include <stdbool.h>
#include <stdint.h>

/* Word addresses of the banks. MEM3 is the 16-byte Soma -> Router stream register. */
enum {
    ASM_MEM0_BASE = 0x0000,   /* 64 KiB of data */
    ASM_MEM1_BASE = 0x4000,   /* 64 KiB of data (weights usually) */
    ASM_MEM2_BASE = 0x8000,   /* 16 KiB: primitive area, router headers, receive area */
    ASM_MEM2_RHEAD = 0x8300,  /* router-header table */
    ASM_MEM2_RECV = 0x8400,   /* receive area (12 KiB) */
    ASM_MEM3_BASE = 0x9000,   /* 4 words */
    ASM_CORE_WORDS = 0x9004,  /* every word a core has */
};

/* The hardware's precision codes (not the IR enum Precision). */
typedef enum AsmHwPrec {
    ASM_HW_INT32 = 0,
    ASM_HW_INT8 = 1,
    ASM_HW_UINT8 = 2,
    ASM_HW_TERNARY = 3,
} AsmHwPrec;

typedef struct CoreMem {
    uint32_t w[ASM_CORE_WORDS];
} CoreMem;

/* A zeroed core memory; NULL when out of memory. Free with free(). */
CoreMem *core_mem_new(void);
/* The bank (0..3) of word address addr; -1 outside the memory. */
int core_mem_bank(int64_t addr);
/* Whether the words [base, base + len) lie inside the memory (len >= 0, no overflow). */
bool core_mem_range_ok(int64_t base, int64_t len);
/* The int8 / uint8 value at byte i of the area starting at word base: byte i is lane i % 4
 * (bits 8*(i%4) .. 8*(i%4)+7) of word base + i / 4. The caller has checked the range. */
int8_t core_mem_get_i8(const CoreMem *m, int64_t base, int64_t i);
uint8_t core_mem_get_u8(const CoreMem *m, int64_t base, int64_t i);
void core_mem_set_u8(CoreMem *m, int64_t base, int64_t i, uint8_t v);
/* The hardware code of an IR Precision value (proto/taskgraph.proto: INT_32 4, INT_8 0,
 * UINT_8 1, TERNARY 8); -1 for precisions the hardware has no code for. */
int asm_hw_prec(int ir_precision);
/* Elements of hardware precision p in one word (1, 4, 4, 16); 0 for an invalid code. */
int asm_hw_per_word(int p);
/* a + b saturated to the int32 range (the Axon's accumulation). */
int32_t asm_sat_add32(int32_t a, int32_t b);
/* v saturated to [lo, hi]. */
int32_t asm_clip(int64_t v, int32_t lo, int32_t hi);

#endif
