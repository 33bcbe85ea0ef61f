/* test_parallel.c: taskir/parallel.h. tir_pool_run covers [0, n) exactly once, each call
 * within one of the parts tir_parallel cuts, call after call (the workers take each generation
 * of work once), for thread counts that do and do not divide n, n smaller than the pool, and
 * no pool at all; a thread that finished its part takes what a slow one has left of its own,
 * but not from one that runs its part at more than half its own speed;
 * tir_parallel_items calls every item once, alone, whatever the thread count and however
 * long the items take, and tir_pool_items on a pool of any size (or none) as well, the items
 * shared by its threads; tir_parallel_touch and tir_pool_touch leave zeroed memory zero. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "taskir/parallel.h"

enum { MAX_N = 300 };

typedef struct Cover {
    int hits[MAX_N];
    int seen[MAX_N];    /* part lo -> hi recorded by index lo */
} Cover;

/* Each index once; the parts are recorded by their first index (no lock: disjoint). */
static void mark(void *ctx, int64_t lo, int64_t hi)
{
    Cover *c = ctx;
    for (int64_t i = lo; i < hi; i++)
        c->hits[i]++;
    if (lo < hi)
        c->seen[lo] = (int)hi;
}

static void check(TirPool *p, uint32_t threads, int64_t n)
{
    Cover a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    tir_pool_run(p, n, mark, &a);
    tir_parallel(threads, n, mark, &b);
    for (int64_t i = 0; i < n; i++)
        assert_int_equal(a.hits[i], 1);
    /* each call of the pool within a part of tir_parallel (the pool cuts its parts in grains) */
    int64_t part_hi = 0;
    for (int64_t i = 0; i < n; i++) {
        if (b.seen[i])
            part_hi = b.seen[i];
        if (a.seen[i])
            assert_true(a.seen[i] <= part_hi);
    }
}

static void test_pool_parts(void **state)
{
    (void)state;
    static const uint32_t threads[] = {1, 2, 3, 5, 8};
    static const int64_t ns[] = {0, 1, 2, 3, 7, 8, 64, 299};
    for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
        TirPool *p = tir_pool_create(threads[t]);
        if (threads[t] == 1)
            assert_null(p);
        for (int rep = 0; rep < 50; rep++)
            for (size_t k = 0; k < sizeof ns / sizeof *ns; k++)
                check(p, threads[t], ns[k]);
        tir_pool_destroy(p);
    }
}

/* tir_pool_run on 2 threads over [0, 64) where the worker's first grain of its part [32, 64)
 * waits until the calling thread has run an index of that part: only a caller that takes the
 * rest of the worker's part lets it go on (else it gives up after 10 s, and the test fails). */
typedef struct Slow {
    pthread_t caller;
    atomic_int hits[64];
    atomic_bool caller_took;    /* the caller ran an index of [32, 64) */
    atomic_bool gave_up;
} Slow;

static void slow_part(void *ctx, int64_t lo, int64_t hi)
{
    Slow *s = ctx;
    bool caller = pthread_equal(pthread_self(), s->caller);
    if (caller && hi > 32)
        atomic_store(&s->caller_took, true);
    if (!caller && lo == 32) {
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        while (!atomic_load(&s->caller_took)) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            if (t.tv_sec - t0.tv_sec > 10) {
                atomic_store(&s->gave_up, true);
                break;
            }
        }
    }
    for (int64_t i = lo; i < hi; i++)
        atomic_fetch_add(&s->hits[i], 1);
}

static void test_pool_steals(void **state)
{
    (void)state;
    TirPool *p = tir_pool_create(2);
    assert_non_null(p);
    for (int rep = 0; rep < 20; rep++) {
        Slow *s = calloc(1, sizeof *s);
        assert_non_null(s);
        s->caller = pthread_self();
        tir_pool_run(p, 64, slow_part, s);
        assert_false(atomic_load(&s->gave_up));
        assert_true(atomic_load(&s->caller_took));
        for (int i = 0; i < 64; i++)
            assert_int_equal(atomic_load(&s->hits[i]), 1);
        free(s);
    }
    tir_pool_destroy(p);
}

/* Busy for ms milliseconds of the clock. */
static void busy_ms(int64_t ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

/* tir_pool_run on 2 threads over [0, 64): the caller's part [0, 32) takes 8 x 50 ms; the
 * worker's first grain of [32, 64) waits until the caller has finished its part, then the
 * rest takes a few milliseconds. The worker has started and is far from half the caller's
 * speed, so the caller must not take its grains (it would at once if it took them as soon
 * as it finished: the rows a thread runs stay with it, parallel.c). */
typedef struct Steady {
    pthread_t caller;
    atomic_bool caller_done;    /* the caller ran its part's last index */
    atomic_bool caller_took;    /* the caller ran an index of [32, 64) */
    atomic_int hits[64];
} Steady;

static void steady_part(void *ctx, int64_t lo, int64_t hi)
{
    Steady *s = ctx;
    bool caller = pthread_equal(pthread_self(), s->caller);
    if (caller && hi > 32)
        atomic_store(&s->caller_took, true);
    if (lo < 32)
        busy_ms(50);
    else if (lo == 32)
        while (!atomic_load(&s->caller_done))
            ;
    else
        busy_ms(1);
    for (int64_t i = lo; i < hi; i++)
        atomic_fetch_add(&s->hits[i], 1);
    if (hi == 32)
        atomic_store(&s->caller_done, true);
}

static void test_pool_keeps_parts(void **state)
{
    (void)state;
    TirPool *p = tir_pool_create(2);
    assert_non_null(p);
    for (int rep = 0; rep < 2; rep++) {
        Steady *s = calloc(1, sizeof *s);
        assert_non_null(s);
        s->caller = pthread_self();
        tir_pool_run(p, 64, steady_part, s);
        assert_false(atomic_load(&s->caller_took));
        for (int i = 0; i < 64; i++)
            assert_int_equal(atomic_load(&s->hits[i]), 1);
        free(s);
    }
    tir_pool_destroy(p);
}

/* An item: counted, called alone ([i, i + 1)), the early ones made slow (a busy loop), so that
 * the threads that finish first take more of the items. */
typedef struct Calls {
    atomic_int hits[MAX_N];
    atomic_int wide;    /* calls with more than one item */
    atomic_int_fast64_t sink;
} Calls;

static void item(void *ctx, int64_t lo, int64_t hi)
{
    Calls *c = ctx;
    if (hi != lo + 1)
        atomic_fetch_add(&c->wide, 1);
    for (int64_t i = lo; i < hi; i++) {
        atomic_fetch_add(&c->hits[i], 1);
        int64_t spin = i < 4 ? 200000 : 10, x = 0;
        for (int64_t k = 0; k < spin; k++)
            x += k ^ i;
        atomic_fetch_add_explicit(&c->sink, x, memory_order_relaxed);
    }
}

static void test_items(void **state)
{
    (void)state;
    static const uint32_t threads[] = {0, 1, 2, 3, 7, 100};
    static const int64_t ns[] = {-1, 0, 1, 2, 5, 64, 299};
    for (size_t t = 0; t < sizeof threads / sizeof *threads; t++)
        for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
            Calls *c = calloc(1, sizeof *c);
            assert_non_null(c);
            tir_parallel_items(threads[t], ns[k], item, c);
            for (int64_t i = 0; i < MAX_N; i++)
                assert_int_equal(atomic_load(&c->hits[i]), i < ns[k] ? 1 : 0);
            assert_int_equal(atomic_load(&c->wide), 0);
            free(c);
        }
}

/* An item that records the thread running it (by its slot in a list of threads seen). */
typedef struct Who {
    Calls c;
    pthread_mutex_t mu;
    pthread_t seen[8];
    int n_seen;
    int want;           /* every item waits until this many threads took one */
} Who;

static void item_who(void *ctx, int64_t lo, int64_t hi)
{
    Who *w = ctx;
    pthread_mutex_lock(&w->mu);
    bool known = false;
    for (int k = 0; k < w->n_seen; k++)
        known |= pthread_equal(w->seen[k], pthread_self()) != 0;
    if (!known && w->n_seen < 8)
        w->seen[w->n_seen++] = pthread_self();
    pthread_mutex_unlock(&w->mu);
    for (bool wait = true; wait;) { /* a thread holds one item at a time: n >= want */
        pthread_mutex_lock(&w->mu);
        wait = w->n_seen < w->want;
        pthread_mutex_unlock(&w->mu);
    }
    item(&w->c, lo, hi);
}

static void test_pool_items(void **state)
{
    (void)state;
    static const uint32_t threads[] = {1, 2, 3};
    static const int64_t ns[] = {-1, 0, 1, 2, 5, 64, 299};
    for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
        TirPool *p = tir_pool_create(threads[t]);
        assert_true(threads[t] == 1 ? p == NULL : p != NULL);
        for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
            Who *w = calloc(1, sizeof *w);
            assert_non_null(w);
            assert_int_equal(pthread_mutex_init(&w->mu, NULL), 0);
            w->want = ns[k] >= 5 ? (int)threads[t] : 1;
            tir_pool_items(p, ns[k], item_who, w);
            for (int64_t i = 0; i < MAX_N; i++)
                assert_int_equal(atomic_load(&w->c.hits[i]), i < ns[k] ? 1 : 0);
            assert_int_equal(atomic_load(&w->c.wide), 0);
            /* the items waited for every thread of the pool to take one */
            if (ns[k] >= 5)
                assert_int_equal(w->n_seen, w->want);
            assert_true(w->n_seen <= (int)threads[t]);
            pthread_mutex_destroy(&w->mu);
            free(w);
        }
        tir_pool_destroy(p);
    }
}

static void test_touch(void **state)
{
    (void)state;
    size_t n = ((size_t)3 << 20) + 5;
    unsigned char *m = calloc(1, n);
    assert_non_null(m);
    tir_parallel_touch(m, n, 3);
    for (size_t i = 0; i < n; i++)
        if (m[i])
            fail_msg("byte %zu is %d", i, m[i]);
    free(m);
    TirPool *p = tir_pool_create(2);
    assert_non_null(p);
    for (int k = 0; k < 2; k++) {
        m = calloc(1, n);
        assert_non_null(m);
        tir_pool_touch(k ? p : NULL, m, n);
        for (size_t i = 0; i < n; i++)
            if (m[i])
                fail_msg("byte %zu is %d", i, m[i]);
        free(m);
    }
    tir_pool_destroy(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_parts),
        cmocka_unit_test(test_pool_steals),
        cmocka_unit_test(test_pool_keeps_parts),
        cmocka_unit_test(test_items),
        cmocka_unit_test(test_pool_items),
        cmocka_unit_test(test_touch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
