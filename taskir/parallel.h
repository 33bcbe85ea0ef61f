/* parallel.h: running independent parts of one piece of work on several threads, for the
 * library's large loops (the loader's tensor values, the simulator's kernels). The threads
 * live for one call; each part is [lo, hi) of [0, n). What runs in a part must not depend on
 * which thread runs it, so results are the same for every thread count. */
#ifndef TASKIR_PARALLEL_H
#define TASKIR_PARALLEL_H

#include <stddef.h>
#include <stdint.h>

/* Largest thread count used (more are read as this many). */
#define TIR_MAX_THREADS 64u

typedef void (*TirRangeFn)(void *ctx, int64_t lo, int64_t hi);

/* Runs fn(ctx, lo, hi) over [0, n) split into threads parts of about the same size (n/threads
 * rounded; part 0 in this thread), or fn(ctx, 0, n) in this thread when threads <= 1 or
 * n <= 1. A thread that cannot be started has its part run in this thread. */
void tir_parallel(uint32_t threads, int64_t n, TirRangeFn fn, void *ctx);

/* Runs fn(ctx, i, i + 1) for every i in [0, n), on up to threads threads (this one among
 * them) that take the items in order, each the next one left as soon as it finished its last:
 * for items whose costs differ, which equal parts of [0, n) would share out unevenly. What an
 * item does must not depend on the thread running it (as for tir_parallel). */
void tir_parallel_items(uint32_t threads, int64_t n, TirRangeFn fn, void *ctx);

/* Where part i of parts parts of [0, n) starts, as tir_parallel and tir_pool_run split
 * (i = parts: n): n * i / parts rounded down. */
int64_t tir_part_at(int64_t n, uint32_t parts, uint32_t i);

/* Worker threads kept for many tir_parallel-like calls (a simulation run's kernels): starting
 * threads for every call costs more than a small kernel. */
typedef struct TirPool TirPool;

/* A pool of threads - 1 workers; NULL when threads <= 1 or none could be started (then
 * tir_pool_run runs in the calling thread). */
TirPool *tir_pool_create(uint32_t threads);
void tir_pool_destroy(TirPool *p); /* accepts NULL */
/* tir_parallel on the pool's threads and this one: [0, n) in the parts tir_parallel cuts,
 * part 0 in this thread, each part run as calls fn(ctx, lo, hi) on up to 8 pieces of it in
 * order; a thread that finished its part runs the pieces another has not started yet, from
 * that part's end: at once when that thread has not begun its part, else once it has waited
 * as long as its own part took (so a stopped thread holds the others up less, and one only
 * somewhat slower keeps its rows). Returns when every piece is done. */
void tir_pool_run(TirPool *p, int64_t n, TirRangeFn fn, void *ctx);
/* The threads tir_pool_run shares a large n among: the workers and the caller (1 for NULL). */
uint32_t tir_pool_threads(const TirPool *p);

/* tir_parallel_items on the pool's threads and this one (in this thread alone for NULL):
 * no thread is started, and a worker that waits for the pool's next call is not put to sleep
 * and woken again by a thread's start and end. */
void tir_pool_items(TirPool *p, int64_t n, TirRangeFn fn, void *ctx);

/* Writes a zero byte into every 4 KiB page of [p, p + bytes), zeroed memory not yet used (a
 * fresh allocation), split over up to threads threads: the system's cost of a fresh page (a
 * fault and clearing it) is then shared by the threads instead of falling on whichever
 * writes the memory first. */
void tir_parallel_touch(void *p, size_t bytes, uint32_t threads);
/* tir_parallel_touch on the pool's threads and this one (this one alone for NULL). */
void tir_pool_touch(TirPool *pool, void *p, size_t bytes);

#endif
