/* progress.h: how a long computation (the simulator's sim_run, the reference interpreter)
 * reports how far it is, so that a tool can show it (taskir-run's progress line,
 * docs/cli.md). The library never prints: it calls fn, if any, after each unit of work. */
#ifndef TASKIR_PROGRESS_H
#define TASKIR_PROGRESS_H

#include <stdint.h>

typedef struct TirProgress {
    /* done of total units ("block" executions, "operator" runs: unit) are finished; done
     * grows by one from call to call, up to total. NULL: nobody listens. */
    void (*fn)(void *ctx, const char *unit, uint64_t done, uint64_t total);
    void *ctx;
} TirProgress;

/* Calls p->fn when there is one (p may be NULL). */
static inline void tir_progress(const TirProgress *p, const char *unit, uint64_t done,
                                uint64_t total)
{
    if (p && p->fn)
        p->fn(p->ctx, unit, done, total);
}

#endif
