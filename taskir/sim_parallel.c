/* sim_parallel.c: running a kernel's range of work on the run's threads (sim_parallel.h). */
#include "taskir/sim_parallel.h"

#include "taskir/parallel.h"
#include "sim_internal.h"

/* Below about a million operations starting threads costs more than it saves; the pool's,
 * below SIM_POOL_MIN_WORK (sim_parallel.h). */
static bool small(const SimRun *run, int64_t work)
{
    return work < (run->pool ? SIM_POOL_MIN_WORK : SIM_THREADS_MIN_WORK);
}

uint32_t sim_parallel_threads(const SimRun *run, int64_t work)
{
    if (small(run, work))
        return 1;
    if (run->pool)
        return tir_pool_threads(run->pool);
    uint32_t t = run->opt.threads;
    return t < 1 ? 1 : t < TIR_MAX_THREADS ? t : TIR_MAX_THREADS;
}

void sim_parallel(const SimRun *run, int64_t n, int64_t work, SimRangeFn fn, void *ctx)
{
    if (small(run, work))
        fn(ctx, 0, n > 0 ? n : 0);
    else if (run->pool)
        tir_pool_run(run->pool, n, fn, ctx);
    else
        tir_parallel(run->opt.threads, n, fn, ctx);
}
