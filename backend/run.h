/* run.h: the per-core program executor (docs/backend.md, "Running a program set"): runs a
 * loaded program set (progset.h) phase by phase on every core that has a program, with its
 * primitives (exec.h) and the router (run_router.c), from the model inputs to the model
 * outputs. It reads only the program set: it knows nothing of the TaskGraph the set was
 * emitted from, so that it can disagree with the TaskGraph simulator.
 *
 * Errors: a program that cannot run (a packet to a core without a program, an address past
 * the receive area, a receiver waiting for more end marks than arrive, a dynamic block
 * outside its socket or the memory, ...) is a logic error ST_LOGIC with a prog.* rule naming
 * the chip, core and phase (docs/rules.md); out of memory ST_RUNTIME.
 */
#ifndef TASKIR_BACKEND_RUN_H
#define TASKIR_BACKEND_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "backend/progset.h"
#include "taskir/npy.h"

/* Cores with a program a run may hold (each a 144 KiB CoreMem): 4096 cores, 576 MiB. */
#define RUN_MAX_CORES 4096
/* Steps a run may take (StepConfig.step_exe_number). */
#define RUN_MAX_STEPS 1000000

typedef struct RunOptions {
    size_t max_cores;       /* 0: RUN_MAX_CORES */
} RunOptions;

/* Runs s once, on one sample. in[i] and out[i] belong to s->sockets[i]: for an input socket
 * the caller gives in[i], its values (the natural shape's volume, C order); for an output
 * socket prog_run sets out[i] to a new malloc'd array of that volume (the caller frees it;
 * NULL on error). Every element of an output must be covered by an output dynamic block. */
Status prog_run(const ProgSet *s, const RunOptions *opt, const int32_t *const *in,
                int32_t **out, Diag *d);

/* ---- whole arrays, as taskir-run gives them (run_arrays.c) ---- */

typedef struct ProgInput {
    const char *name;           /* a decimal socket id or an input socket's name */
    const NpyArray *array;      /* integer values, in the natural or the model shape */
} ProgInput;

typedef struct ProgOutput {
    int socket_id;
    const char *name;           /* the socket's (owned by the set) */
    NpyDtype dtype;             /* the model tensor's element type, else int32 */
    uint32_t ndim;
    int64_t shape[NPY_MAX_DIMS];/* the model tensor's shape when it holds the values, else
                                   the natural shape's non-zero dims */
    int64_t count;
    int32_t *data;              /* malloc'd */
} ProgOutput;

/* Matches the inputs to the input sockets (each exactly once: [prog.input.missing],
 * [prog.input.unknown], [prog.input.duplicate]; an array of another shape [prog.input.shape],
 * float [prog.input.dtype], a value outside the socket's precision [prog.input.range]), runs
 * s and returns one output per output socket in socket order (*outs malloc'd; free with
 * prog_outputs_free). An input of shape [N] + its natural shape, or its model tensor's shape
 * holding N samples, is a batch: s runs N times (inputs without a batch dim give every
 * sample the same values; two batches must agree [prog.input.batch]) and the outputs get a
 * leading N (or the model tensor's shape when it holds them all). */
Status prog_run_arrays(const ProgSet *s, const RunOptions *opt, const ProgInput *in,
                       size_t n_in, ProgOutput **outs, size_t *n_outs, Diag *d);
void prog_outputs_free(ProgOutput *outs, size_t n);

#endif
