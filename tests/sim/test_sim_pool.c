/* test_sim_pool.c: no thread is started once the run's pool of worker threads exists.
 * The verifier given a pool (VerifyOptions.pool) scans the data tensors' values on it,
 * sim_create (SimOptions.pool) puts the region's pages in place and packs the constant
 * weights on it, and taskir-run's release of a large mapped file drops its pages on
 * it (tir_file_release_pool): each thread started per call cost a thread's start and end,
 * and, where the system places a new thread on its busy creator's processor, waiting there
 * until the creator stops. This program is linked with pthread_create wrapped
 * (-Wl,--wrap=pthread_create), which counts the threads the library starts. */
#define _DEFAULT_SOURCE /* mkstemp */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../taskir/sim_internal.h"
#include "taskir/filemap.h"
#include "taskir/parallel.h"
#include "taskir/verify.h"
#include "simtest.h"

#define S(...) ((const int32_t[TIR_NDIMS]){__VA_ARGS__})

static atomic_int started; /* threads started since the last reset (the wrapper below) */

int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *),
                          void *arg);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *),
                          void *arg);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *),
                          void *arg)
{
    atomic_fetch_add(&started, 1);
    return __real_pthread_create(t, a, fn, arg);
}

/* INPUT [H][H][R] int8 -> SIC -> CC 3 x 3 R -> F (constant int8 weights, padding 1) -> SI ->
 * OUTPUT: a region of over a million elements (its pages put in place while planning) and
 * weights of over a million multiply-accumulates a pixel (packed on threads). */
static Graph *big_conv(StRng *r, int32_t H, int32_t R, int32_t F)
{
    Graph *g = graph_create();
    Block *x = st_io(g, BT_INPUT, H, H, R, 0, 0, "x");
    x->prec = PR_INT_8;
    Block *sic = st_block(g, BT_SIC, S(H, H, 0, R), "in");
    sic->has_prec = true;
    sic->prec = PR_INT_8;
    assert_non_null(graph_connect(g, x, 0, sic, 0));
    Block *out = st_conv_layer(g, r, sic, H, R, F, 3, PR_INT_32);
    Block *o = st_io(g, BT_OUTPUT, H, H, F, 0, 0, "out");
    assert_non_null(graph_connect(g, out, 0, o, 0));
    assert_false(graph_oom(g));
    return g;
}

/* Planning on a pool the caller made starts no thread; with none given, the run's own pool
 * is the only one; the plan put the region's pages in place and packed the weights (the
 * parts that run on threads) either way. */
static void test_plan_on_pool(void **state)
{
    (void)state;
    StRng r = {1414};
    Graph *g = big_conv(&r, 48, 384, 384);
    TirPool *pool = tir_pool_create(2);
    assert_non_null(pool);
    for (int given = 0; given < 2; given++) {
        SimOptions opt = {.threads = 2, .steps = 1, .share_buffers = true,
                          .pool = given ? pool : NULL};
        atomic_store(&started, 0);
        SimRun *run = st_create(g, &opt);
        assert_int_equal(atomic_load(&started), given ? 0 : 1);
        assert_true(run->region_bytes >= (size_t)4 << 20);
        bool packed = false;
        for (uint32_t i = 0; i < g->n_blocks; i++)
            packed |= run->blocks[i].pack.packed && run->blocks[i].pack.constant;
        assert_true(packed);
        assert_non_null(run->pool);
        if (given)
            assert_ptr_equal(run->pool, pool);
        sim_destroy(run); /* leaves a given pool to its maker */
    }
    tir_pool_destroy(pool);
    graph_destroy(g);
}

/* The verifier's scan of 1.3 M weights on a pool starts no thread; on two threads without one
 * it starts one; the graph passes either way, as on one thread. */
static void test_verify_on_pool(void **state)
{
    (void)state;
    StRng r = {1515};
    Graph *g = big_conv(&r, 8, 384, 384);
    TirPool *pool = tir_pool_create(2);
    assert_non_null(pool);
    for (int how = 0; how < 3; how++) { /* one thread, a thread started, the pool */
        VerifyOptions vo = {.threads = how ? 2 : 1, .pool = how == 2 ? pool : NULL};
        Diag d;
        diag_init(&d, "test");
        atomic_store(&started, 0);
        assert_int_equal(verify_graph_opts(g, &vo, &d), ST_OK);
        assert_int_equal(atomic_load(&started), how == 1 ? 1 : 0);
        diag_finish(&d);
    }
    tir_pool_destroy(pool);
    graph_destroy(g);
}

/* A mapped file of 16 MiB or more has its pages dropped on the pool: no thread started. */
static void test_release_on_pool(void **state)
{
    (void)state;
    char path[] = "/tmp/test_sim_pool_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    size_t len = ((size_t)16 << 20) + 4096;
    assert_int_equal(ftruncate(fd, (off_t)len), 0);
    close(fd);
    TirPool *pool = tir_pool_create(2);
    assert_non_null(pool);
    TirFileBytes f;
    Diag d;
    diag_init(&d, path);
    assert_int_equal(tir_file_bytes_threads(path, len, 1, &f, &d), ST_OK);
    diag_finish(&d);
    assert_non_null(f.map);
    assert_int_equal(f.len, len);
    assert_int_equal(f.p[len - 1], 0);
    atomic_store(&started, 0);
    tir_file_release_pool(&f, pool);
    assert_int_equal(atomic_load(&started), 0);
    assert_null(f.map);
    assert_null(f.p);
    unlink(path);
    tir_pool_destroy(pool);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_on_pool),
        cmocka_unit_test(test_verify_on_pool),
        cmocka_unit_test(test_release_on_pool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
