/* sim_parallel.c: running a kernel's range of work on the run's threads (sim_parallel.h). */
#include "taskir/sim_parallel.h"

#include "taskir/parallel.h"
#include "sim_internal.h"

void sim_parallel(const SimRun *run, int64_t n, int64_t work, SimRangeFn fn, void *ctx)
{
    /* below about a million operations starting threads costs more than it saves; waking
     * the pool's, below some 64 k */
    int64_t least = run->pool ? (int64_t)1 << 16 : (int64_t)1 << 20;
    if (work < least)
        fn(ctx, 0, n > 0 ? n : 0);
    else if (run->pool)
        tir_pool_run(run->pool, n, fn, ctx);
    else
        tir_parallel(run->opt.threads, n, fn, ctx);
}
