/* sim_parallel.c: running a kernel's range of work on the run's threads (sim_parallel.h). */
#include "taskir/sim_parallel.h"

#include "sim_internal.h"

#include <pthread.h>
#include <stdbool.h>

typedef struct SimTask {
    SimRangeFn fn;
    void *ctx;
    int64_t lo, hi;
} SimTask;

static void *task_main(void *p)
{
    SimTask *t = p;
    t->fn(t->ctx, t->lo, t->hi);
    return NULL;
}

void sim_parallel(const SimRun *run, int64_t n, int64_t work, SimRangeFn fn, void *ctx)
{
    uint32_t nt = run->opt.threads;
    if (nt > 64)
        nt = 64;
    if (nt > (uint64_t)n)
        nt = (uint32_t)n;
    if (nt <= 1 || work < ((int64_t)1 << 20)) {
        fn(ctx, 0, n);
        return;
    }
    SimTask tasks[64];
    pthread_t th[64];
    bool started[64] = {false};
    for (uint32_t i = 0; i < nt; i++) {
        tasks[i] = (SimTask){fn, ctx, n * i / nt, n * (i + 1) / nt};
        /* Part 0 runs in this thread; a thread that cannot start runs here too. */
        if (i > 0 && pthread_create(&th[i], NULL, task_main, &tasks[i]) == 0)
            started[i] = true;
    }
    fn(ctx, tasks[0].lo, tasks[0].hi);
    for (uint32_t i = 1; i < nt; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        else
            fn(ctx, tasks[i].lo, tasks[i].hi);
    }
}

