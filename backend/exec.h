/* exec.h: the per-core executor's primitives (docs/backend.md, "The executor"). Each runs one
 * primitive of a phase on one core's memory, from the primitive's own parameters and memory
 * areas (proto/program.proto), with the chip's arithmetic (core_mem.h: saturating int32
 * accumulation, 2-bit Soma shift steps, packed 8-bit lanes). They know nothing of the
 * TaskGraph: the executor must be able to disagree with the TaskGraph simulator.
 *
 * Errors: a primitive whose parameters are out of the primitive's range, or whose memory
 * areas leave the core's memory, is a logic error ST_LOGIC with rule prog.prim.<pic> (e.g.
 * "prog.prim.p41") and a message naming the parameter and its value; the caller adds where
 * (chip, core, phase, slot) with diag_prefix_where. Out of memory is ST_RUNTIME.
 */
#ifndef TASKIR_BACKEND_EXEC_H
#define TASKIR_BACKEND_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "backend/core_mem.h"
#include "program.pb-c.h"
#include "taskir/diag.h"

/* The words a Soma primitive streams to the Router through MEM3 in one phase (a Soma whose
 * output area starts in MEM3, or a P26 with the router feeding), or that the Router hands to
 * Soma2 (P26 reading from the router). Owned by the phase loop; reset every phase. */
typedef struct ExecStream {
    uint32_t *w;
    size_t n, cap;
} ExecStream;

/* Runs the Axon primitive a (pic 0x02, 0x03, 0x04, 0x41, 0x43, 0x81, 0x83) on m.
 * Implemented in exec_axon*.c. */
Status exec_axon(CoreMem *m, const Taskir__Asm__AxonPrim *a, Diag *d);

/* Runs the Soma primitive s (pic 0x05, 0x25, 0x06, 0x26, 0x07, 0x08) on m; words it sends
 * to the Router are appended to *to_router (may be NULL when s sends none); words it takes
 * from the Router are read from *from_router (may be NULL). Implemented in exec_soma*.c. */
Status exec_soma(CoreMem *m, const Taskir__Asm__SomaPrim *s, ExecStream *to_router,
                 const ExecStream *from_router, Diag *d);

/* Appends n words to st; ST_RUNTIME when out of memory. (exec_stream.c) */
Status exec_stream_push(ExecStream *st, const uint32_t *w, size_t n);
void exec_stream_free(ExecStream *st);

#endif
