/* sim_parallel.h: splitting a kernel's work over the simulator's threads (private to
 * taskir/sim*.c; the kernels in sim_kernels.c use it).
 */
#ifndef TASKIR_SIM_PARALLEL_H
#define TASKIR_SIM_PARALLEL_H

#include "taskir/sim.h"

#include <stdint.h>

/* The least work (operations) a kernel splits over the pool's threads; below it the calling
 * thread runs it alone. The pool's threads watch for the next call (taskir/parallel.c), so a
 * call costs a few cache lines passed between the threads, a microsecond or two; and a
 * kernel run on one thread reads the rows the other thread wrote in the kernel before,
 * which crosses the chip when the host puts the two processors on different chiplets
 * (sim_share.h): resnet50's ReLUs and shifts of 14 x 14 x 256 and 7 x 7 x 2048 values ran
 * on one thread in 8 to 15 us near and 25 to 50 us far. Without a pool (threads started
 * per call): SIM_THREADS_MIN_WORK. */
#define SIM_POOL_MIN_WORK ((int64_t)1 << 12)
#define SIM_THREADS_MIN_WORK ((int64_t)1 << 20)

/* Runs fn(ctx, lo, hi) over [0, n) split into run->opt.threads parts (in this thread when
 * threads <= 1 or work is small). */
typedef void (*SimRangeFn)(void *ctx, int64_t lo, int64_t hi);
void sim_parallel(const SimRun *run, int64_t n, int64_t work, SimRangeFn fn, void *ctx);
/* The threads sim_parallel shares work among (when n is at least that many): 1 when work is
 * small. A kernel that knows it can shape its n parts so that they split evenly
 * (tir_part_at). */
uint32_t sim_parallel_threads(const SimRun *run, int64_t work);

#endif
