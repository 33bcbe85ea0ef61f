/* parallel.c: see parallel.h. */
#include "taskir/parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

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

int64_t tir_part_at(int64_t n, uint32_t parts, uint32_t i)
{
    return parts ? part_at(n, parts, i) : 0;
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

/* tir_parallel_items: the threads' shared counter of items taken. */
typedef struct Items {
    TirRangeFn fn;
    void *ctx;
    int64_t n;
    atomic_int_fast64_t next;
} Items;

/* A thread's share of tir_parallel_items: items until none is left. */
static void take_items(void *ctx, int64_t lo, int64_t hi)
{
    (void)lo;
    (void)hi;
    Items *it = ctx;
    for (;;) {
        int64_t i = atomic_fetch_add_explicit(&it->next, 1, memory_order_relaxed);
        if (i >= it->n)
            return;
        it->fn(it->ctx, i, i + 1);
    }
}

/* The threads that take n items of work among threads: at most one an item. */
static int64_t item_threads(uint32_t threads, int64_t n)
{
    int64_t nt = threads < TIR_MAX_THREADS ? threads : TIR_MAX_THREADS;
    return nt < n ? nt : n;
}

void tir_parallel_items(uint32_t threads, int64_t n, TirRangeFn fn, void *ctx)
{
    if (n <= 0)
        return;
    Items it = {.fn = fn, .ctx = ctx, .n = n};
    atomic_init(&it.next, 0);
    int64_t nt = item_threads(threads, n);
    tir_parallel((uint32_t)nt, nt, take_items, &it);
}

/* ---- the pool: workers wait for a new generation of work, run their part, count down ----
 *
 * A simulation step calls the pool for every kernel, a few hundred times, each call a fraction
 * of a millisecond of work: waking a sleeping thread (and, on a virtual machine, its halted
 * processor) can cost as much. So a worker that finished its part watches for the next
 * generation for up to SPIN_NS before it sleeps on the condition variable, and the caller
 * watches the count of running parts as long before it sleeps; both sleep as before when
 * nothing comes (the mutex and the condition variables stay the protocol, the atomics only
 * let a waiter see the change without them).
 *
 * Each part is cut into up to GRAINS grains. A thread runs its own part's grains from the
 * front; when none is left it takes the others' from their back, so that a thread the host
 * stopped (a late wake-up, a processor given to other work) leaves the rest of its part to
 * the others instead of making them wait, while each thread still runs the front of its own
 * part (the rows whose inputs it wrote in the kernel before). It takes them at once from a
 * part its owner has not started; from a part being run, only once it has waited as long as
 * its own part took it (the owner at half its speed or less). A thread that is only somewhat
 * slower, as when the host puts the two processors on different chiplets and each reads at
 * a different speed, keeps its part: every grain taken from it would put rows its thread
 * writes into the other thread's cache, which the next kernel then reads across the chip
 * (resnet50's step on two threads in that placement: 20 ms stealing at once, 17 ms waiting).
 * A part's grains left are one atomic word, front and back, taken by compare-and-swap. */

enum { SPIN_NS = 100 * 1000, GRAINS = 8 };

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
    atomic_uint_fast64_t gen; /* bumped for each call (and at the end); written under mu */
    atomic_bool quit;
    TirRangeFn fn;      /* the current call (written under mu) */
    void *ctx;
    int64_t n;
    uint32_t nt;        /* its parts */
    int64_t grain[TIR_MAX_THREADS]; /* the current call's grain size in each part */
    /* each part's grains not taken yet: the first << 32 | the end (take_grain) */
    atomic_uint_fast64_t left[TIR_MAX_THREADS];
    atomic_uint pending; /* workers still running a part */
};

/* The grains not yet taken of a part, [*front, *back), from its word w in left. */
static void grains_of(uint64_t w, uint32_t *front, uint32_t *back)
{
    *front = (uint32_t)(w >> 32);
    *back = (uint32_t)w;
}

/* Takes a grain of part i, its first left (own) or its last (another thread's): its index in
 * *g; false when none is left. */
static bool take_grain(TirPool *p, uint32_t i, bool own, uint32_t *g)
{
    uint64_t w = atomic_load_explicit(&p->left[i], memory_order_relaxed);
    for (;;) {
        uint32_t front, back;
        grains_of(w, &front, &back);
        if (front >= back)
            return false;
        uint64_t next = own ? (uint64_t)(front + 1) << 32 | back
                            : (uint64_t)front << 32 | (back - 1);
        if (atomic_compare_exchange_weak_explicit(&p->left[i], &w, next, memory_order_acq_rel,
                                                  memory_order_relaxed)) {
            *g = own ? front : back - 1;
            return true;
        }
    }
}

/* Runs grain g of part i of the current call. */
static void run_grain(TirPool *p, uint32_t i, uint32_t g)
{
    int64_t lo = part_at(p->n, p->nt, i), hi = part_at(p->n, p->nt, i + 1);
    int64_t a = lo + p->grain[i] * g, b = a + p->grain[i] < hi ? a + p->grain[i] : hi;
    p->fn(p->ctx, a, b);
}

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Spins for up to SPIN_NS while gone(p, arg) is false; returns gone's last answer. */
static bool spin_until(bool (*gone)(TirPool *, uint64_t), TirPool *p, uint64_t arg)
{
    int64_t until = 0;
    for (uint32_t i = 0;; i++) {
        if (gone(p, arg))
            return true;
        cpu_relax();
        if ((i & 63) == 0) {
            int64_t t = now_ns();
            if (!until)
                until = t + SPIN_NS;
            else if (t >= until)
                return false;
        }
    }
}

/* Thread idx's share of the current call: its own part's grains, then the others' (the
 * rule above): it returns when no part has a grain left. */
static void run_share(TirPool *p, uint32_t idx)
{
    uint32_t g;
    int64_t t0 = now_ns();
    while (take_grain(p, idx, true, &g))
        run_grain(p, idx, g);
    int64_t t1 = now_ns(), own = t1 - t0;
    for (;;) {
        bool left = false;
        for (uint32_t k = 1; k < p->nt; k++) {
            uint32_t i = (idx + k) % p->nt, front, back;
            grains_of(atomic_load_explicit(&p->left[i], memory_order_acquire), &front, &back);
            if (front >= back)
                continue;
            left = true;
            /* a grain of a part not started, or of one its owner is slow at */
            if ((front == 0 || now_ns() - t1 >= own) && take_grain(p, i, false, &g))
                run_grain(p, i, g);
        }
        if (!left)
            return;
        cpu_relax();
    }
}

static bool new_gen(TirPool *p, uint64_t seen)
{
    return atomic_load_explicit(&p->gen, memory_order_acquire) != seen ||
           atomic_load_explicit(&p->quit, memory_order_acquire);
}

static bool parts_done(TirPool *p, uint64_t unused)
{
    (void)unused;
    return atomic_load_explicit(&p->pending, memory_order_acquire) == 0;
}

static void *worker_main(void *arg)
{
    Worker *w = arg;
    TirPool *p = w->p;
    uint64_t seen = 0;
    for (;;) {
        spin_until(new_gen, p, seen);
        pthread_mutex_lock(&p->mu);
        while (!new_gen(p, seen))
            pthread_cond_wait(&p->go, &p->mu);
        if (atomic_load(&p->quit)) {
            pthread_mutex_unlock(&p->mu);
            break;
        }
        seen = atomic_load(&p->gen);
        bool mine = w->idx < p->nt;
        pthread_mutex_unlock(&p->mu);
        if (!mine)
            continue;
        run_share(p, w->idx); /* the call's fields stay as they are until pending is 0 */
        if (atomic_fetch_sub_explicit(&p->pending, 1, memory_order_acq_rel) == 1) {
            pthread_mutex_lock(&p->mu); /* the caller checks pending under mu before it sleeps */
            pthread_cond_signal(&p->done);
            pthread_mutex_unlock(&p->mu);
        }
    }
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
    atomic_init(&p->gen, 0);
    atomic_init(&p->quit, false);
    atomic_init(&p->pending, 0);
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
    atomic_store(&p->quit, true);
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    for (uint32_t i = 0; i < p->n_th; i++)
        pthread_join(p->th[i], NULL);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->go);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

uint32_t tir_pool_threads(const TirPool *p)
{
    return p ? p->n_th + 1 : 1;
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
    for (uint32_t i = 0; i < nt; i++) {
        int64_t len = part_at(n, nt, i + 1) - part_at(n, nt, i); /* >= 1: n >= nt */
        p->grain[i] = (len + GRAINS - 1) / GRAINS;
        uint64_t count = (uint64_t)((len + p->grain[i] - 1) / p->grain[i]); /* <= GRAINS */
        atomic_store_explicit(&p->left[i], count, memory_order_relaxed);
    }
    atomic_store(&p->pending, nt - 1);
    atomic_fetch_add_explicit(&p->gen, 1, memory_order_release);
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    run_share(p, 0);
    if (spin_until(parts_done, p, 0))
        return;
    pthread_mutex_lock(&p->mu);
    while (!parts_done(p, 0))
        pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

void tir_pool_items(TirPool *p, int64_t n, TirRangeFn fn, void *ctx)
{
    if (n <= 0)
        return;
    Items it = {.fn = fn, .ctx = ctx, .n = n};
    atomic_init(&it.next, 0);
    /* one part a thread, each taking items until none is left; a thread that finds its part
     * not begun runs it too, which then takes no item */
    int64_t nt = item_threads(tir_pool_threads(p), n);
    tir_pool_run(p, nt, take_items, &it);
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

void tir_pool_touch(TirPool *pool, void *p, size_t bytes)
{
    if (p && bytes)
        tir_pool_run(pool, (int64_t)((bytes + PAGE - 1) / PAGE), touch_pages, p);
}
