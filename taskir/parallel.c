/* parallel.c: see parallel.h. */
#include "taskir/parallel.h"

#include <pthread.h>
#include <stdbool.h>

typedef struct Part {
    TirRangeFn fn;
    void *ctx;
    int64_t lo, hi;
} Part;

static void *part_main(void *p)
{
    Part *t = p;
    t->fn(t->ctx, t->lo, t->hi);
    return NULL;
}

void tir_parallel(uint32_t threads, int64_t n, TirRangeFn fn, void *ctx)
{
    uint32_t nt = threads < TIR_MAX_THREADS ? threads : TIR_MAX_THREADS;
    if (n > 0 && (uint64_t)n < nt)
        nt = (uint32_t)n;
    if (nt <= 1 || n <= 1) {
        fn(ctx, 0, n > 0 ? n : 0);
        return;
    }
    Part parts[TIR_MAX_THREADS];
    pthread_t th[TIR_MAX_THREADS];
    bool started[TIR_MAX_THREADS] = {false};
    for (uint32_t i = 0; i < nt; i++) {
        /* n * i / nt without overflow: n < 2^63, nt <= 64 */
        int64_t lo = n / nt * i + n % nt * i / nt, hi = n / nt * (i + 1) + n % nt * (i + 1) / nt;
        parts[i] = (Part){fn, ctx, lo, hi};
        if (i > 0 && pthread_create(&th[i], NULL, part_main, &parts[i]) == 0)
            started[i] = true;
    }
    fn(ctx, parts[0].lo, parts[0].hi);
    for (uint32_t i = 1; i < nt; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        else
            fn(ctx, parts[i].lo, parts[i].hi);
    }
}

enum { PAGE = 4096 };

/* Pages [lo, hi) of the memory at ctx. */
static void touch_pages(void *ctx, int64_t lo, int64_t hi)
{
    volatile unsigned char *p = ctx;
    for (int64_t i = lo; i < hi; i++)
        p[(size_t)i * PAGE] = 0;
}

void tir_parallel_touch(void *p, size_t bytes, uint32_t threads)
{
    if (p && bytes)
        tir_parallel(threads, (int64_t)((bytes + PAGE - 1) / PAGE), touch_pages, p);
}
