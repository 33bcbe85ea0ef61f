/* axon_fixture.h: what the Axon executor's tests share (axon_fixture.c): a core's memory,
 * writing 8-bit and ternary lanes into it by hand, the areas of an AxonPrim, running one
 * primitive and checking a refusal. The expected values of the tests are worked out on
 * paper in their comments; nothing here computes them. */
#ifndef TESTS_ASM_AXON_FIXTURE_H
#define TESTS_ASM_AXON_FIXTURE_H

#include <stdint.h>

#include "backend/exec.h"

/* Sets the base address and length of one area of an AxonPrim (x1, x2, bias, o). */
#define FX_AREA(a, area, base, len)                                                           \
    ((a)->has_##area##_base_addr = 1, (a)->area##_base_addr = (base),                         \
     (a)->has_##area##_addr_length = 1, (a)->area##_addr_length = (len))

/* A zeroed core memory (fails the test when out of memory). */
CoreMem *fx_mem(void);
/* Element i of an 8-bit area from word base (two's complement for negative v). */
void fx_i8(CoreMem *m, int64_t base, int64_t i, int v);
/* Element i of a ternary area from word base: v in -1..1, 2-bit two's complement. */
void fx_t2(CoreMem *m, int64_t base, int64_t i, int v);
/* Word i of an int32 area from word base. */
void fx_w(CoreMem *m, int64_t base, int64_t i, int32_t v);
/* Word i of an int32 area from word base, as read back. */
int32_t fx_get(const CoreMem *m, int64_t base, int64_t i);

/* An AxonPrim with pic and shape set (the rest: the proto's defaults). */
Taskir__Asm__AxonPrim fx_prim(int pic, Taskir__Shape *s);

/* Runs a on m; the test fails unless it returns ST_OK with no finding. */
void fx_run_ok(CoreMem *m, const Taskir__Asm__AxonPrim *a);
/* The same on a zeroed memory of its own. */
void fx_run_ok_fresh(const Taskir__Asm__AxonPrim *a);
/* Runs a on m; the test fails unless it is refused as a logic error with rule `rule`, a
 * message that contains `text`, and m unchanged. */
void fx_run_refused(CoreMem *m, const Taskir__Asm__AxonPrim *a, const char *rule,
                    const char *text);

#endif
