/* parallel.c: see parallel.h. */
#include "taskir/parallel.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

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

/* Part i of nt of [0, n): n * i / nt without overflow (n < 2^63, nt <= 64). */
static int64_t part_at(int64_t n, uint32_t nt, uint32_t i)
{
    return n / nt * i + n % nt * i / nt;
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
        parts[i] = (Part){fn, ctx, part_at(n, nt, i), part_at(n, nt, i + 1)};
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

/* ---- the pool: workers wait for a new generation of work, run their part, count down ---- */

typedef struct Worker {
    TirPool *p;
    uint32_t idx;       /* its part: 1 ... */
} Worker;

struct TirPool {
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    pthread_t th[TIR_MAX_THREADS];
    Worker w[TIR_MAX_THREADS];
    uint32_t n_th;      /* workers started */
    uint64_t gen;       /* bumped for each call (and at the end) */
    bool quit;
    TirRangeFn fn;      /* the current call */
    void *ctx;
    int64_t n;
    uint32_t nt;        /* its parts */
    uint32_t pending;   /* workers still running a part */
};

static void *worker_main(void *arg)
{
    Worker *w = arg;
    TirPool *p = w->p;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->gen == seen && !p->quit)
            pthread_cond_wait(&p->go, &p->mu);
        if (p->quit)
            break;
        seen = p->gen;
        if (w->idx >= p->nt)
            continue;
        TirRangeFn fn = p->fn;
        void *ctx = p->ctx;
        int64_t lo = part_at(p->n, p->nt, w->idx), hi = part_at(p->n, p->nt, w->idx + 1);
        pthread_mutex_unlock(&p->mu);
        fn(ctx, lo, hi);
        pthread_mutex_lock(&p->mu);
        if (--p->pending == 0)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

TirPool *tir_pool_create(uint32_t threads)
{
    if (threads > TIR_MAX_THREADS)
        threads = TIR_MAX_THREADS;
    if (threads <= 1)
        return NULL;
    TirPool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    if (pthread_mutex_init(&p->mu, NULL)) {
        free(p);
        return NULL;
    }
    if (pthread_cond_init(&p->go, NULL)) {
        pthread_mutex_destroy(&p->mu);
        free(p);
        return NULL;
    }
    if (pthread_cond_init(&p->done, NULL)) {
        pthread_cond_destroy(&p->go);
        pthread_mutex_destroy(&p->mu);
        free(p);
        return NULL;
    }
    for (uint32_t i = 1; i < threads; i++) {
        p->w[p->n_th] = (Worker){p, p->n_th + 1};
        if (pthread_create(&p->th[p->n_th], NULL, worker_main, &p->w[p->n_th]) != 0)
            break;
        p->n_th++;
    }
    if (!p->n_th) {
        tir_pool_destroy(p);
        return NULL;
    }
    return p;
}

void tir_pool_destroy(TirPool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->quit = true;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    for (uint32_t i = 0; i < p->n_th; i++)
        pthread_join(p->th[i], NULL);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->go);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

void tir_pool_run(TirPool *p, int64_t n, TirRangeFn fn, void *ctx)
{
    uint32_t nt = p ? p->n_th + 1 : 1;
    if (n > 0 && (uint64_t)n < nt)
        nt = (uint32_t)n;
    if (nt <= 1 || n <= 1) {
        fn(ctx, 0, n > 0 ? n : 0);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->ctx = ctx;
    p->n = n;
    p->nt = nt;
    p->pending = nt - 1;
    p->gen++;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    fn(ctx, 0, part_at(n, nt, 1));
    pthread_mutex_lock(&p->mu);
    while (p->pending)
        pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
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
