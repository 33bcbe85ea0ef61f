/* sim_parallel.h: splitting a kernel's work over the simulator's threads (private to
 * taskir/sim*.c; the kernels in sim_kernels.c use it).
 */
#ifndef TASKIR_SIM_PARALLEL_H
#define TASKIR_SIM_PARALLEL_H

#include "taskir/sim.h"

#include <stdint.h>

/* Runs fn(ctx, lo, hi) over [0, n) split into run->opt.threads parts (in this thread when
 * threads <= 1 or work is small). */
typedef void (*SimRangeFn)(void *ctx, int64_t lo, int64_t hi);
void sim_parallel(const SimRun *run, int64_t n, int64_t work, SimRangeFn fn, void *ctx);
/* The threads sim_parallel shares work among (when n is at least that many): 1 when work is
 * small. A kernel that knows it can shape its n parts so that they split evenly
 * (tir_part_at). */
uint32_t sim_parallel_threads(const SimRun *run, int64_t work);

#endif
