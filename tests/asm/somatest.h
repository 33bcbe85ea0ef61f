/* somatest.h: what the Soma executor's tests (test_exec_soma*.c) share: a zeroed core, words
 * written and read by hand, and running one primitive expecting success or a given logic
 * error (with the memory left untouched). */
#ifndef TASKIR_TESTS_SOMATEST_H
#define TASKIR_TESTS_SOMATEST_H

#include <stddef.h>
#include <stdint.h>

#include "backend/exec.h"

/* IR Precision values (proto/taskgraph.proto). */
#define P_INT8 TASKIR__PRECISION__INT_8
#define P_UINT8 TASKIR__PRECISION__UINT_8
#define P_INT16 TASKIR__PRECISION__INT_16
#define P_INT32 TASKIR__PRECISION__INT_32
#define P_TERNARY TASKIR__PRECISION__TERNARY

/* A zeroed core (fails the test when out of memory). */
CoreMem *st_mem(void);
/* Writes the int8 values v[0..n) as the bytes of the area starting at word base. */
void st_put_i8(CoreMem *m, int64_t base, const int8_t *v, size_t n);
/* Writes the int32 values v[0..n) from word base. */
void st_put_i32(CoreMem *m, int64_t base, const int32_t *v, size_t n);
/* Fills n words from base with w (a sentinel to see which words a primitive writes). */
void st_fill(CoreMem *m, int64_t base, size_t n, uint32_t w);
/* Runs s, which must succeed. */
void st_run(CoreMem *m, const Taskir__Asm__SomaPrim *s, ExecStream *to, const ExecStream *from);
/* Runs s, which must fail with a logic error of rule whose message contains what, and leave
 * the memory and the stream to the Router as they were. */
void st_fail(CoreMem *m, const Taskir__Asm__SomaPrim *s, ExecStream *to,
             const ExecStream *from, const char *rule, const char *what);

#endif
