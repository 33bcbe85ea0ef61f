/* test_sim_dot8_plan.c: the int8 path's packing across a run (taskir/sim_kernels.c): CVM
 * blocks on it against the loop nest (odd sizes, extreme values, bias extremes, clamps);
 * constant weights packed at the first step and reused while the input changes; weights fed
 * by an INPUT block packed again at every step, leaving the int8 path at a step whose
 * weights are not int8 and taking it again at the next; constant weights packed already at
 * planning; two and three threads giving the same results as one; the int32 path's
 * weight scratch kept out of the region; the region's pages in place once planned; the
 * work units shared evenly by the threads (sim_dot8_chunks); and the pool's threads
 * splitting kernels as small as resnet50's 7 x 7 x 512 ones. Where the CPU has no VNNI the same cases
 * run the int32 path. */
#define _DEFAULT_SOURCE /* mincore */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../taskir/sim_internal.h"
#include "../../taskir/sim_parallel.h"
#include "simtest.h"

#define S(...) ((const int32_t[TIR_NDIMS]){__VA_ARGS__})

static StConv cvm_geometry(int32_t F, int32_t R)
{
    return (StConv){1, 1, F, R, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0};
}

/* One CVM R -> F with storage operands, one step, against the loop nest. */
static void run_cvm_case(StRng *r, int32_t F, int32_t R, int32_t lo, int32_t hi,
                         PrecisionId prec, int32_t odd)
{
    Graph *g = graph_create();
    Block *c = st_block(g, BT_CVM, S(0, 0, F, R), "fc");
    c->has_prec = true;
    c->prec = prec;
    c->bias_type = BIAS_VECTOR;
    int32_t *x = st_values(r, R, lo, hi), *w = st_values(r, (int64_t)F * R, lo, hi);
    int32_t *bias = st_values(r, F, INT32_MIN, INT32_MAX);
    int32_t *out = malloc((size_t)F * 4), *want = malloc((size_t)F * 4);
    assert_non_null(out), assert_non_null(want);
    if (odd)
        x[st_range(r, 0, R - 1)] = odd;
    StConv v = cvm_geometry(F, R);
    const PrecisionInfo *pi = pr_info(prec);
    st_conv_ref(&v, x, w, bias, (int32_t)pi->lo, (int32_t)pi->hi, want);
    Block *ops[] = {st_storage(g, BT_SIFC, S(0, 0, 0, R), x, R),
                    st_storage(g, BT_SWFC, S(0, 0, F, R), w, (int64_t)F * R),
                    st_storage(g, BT_SB, S(0, 0, F), bias, F)};
    st_run_block(g, c, ops, 3, 1, out, F, NULL);
    st_assert_equal(want, out, F, "CVM");
    free(x), free(w), free(bias), free(out), free(want);
    graph_destroy(g);
}

static void test_cvm_int8(void **state)
{
    (void)state;
    StRng r = {8086};
    static const int32_t sizes[] = {1, 3, 4, 5, 15, 16, 17, 33, 63, 64, 65, 127, 129, 300};
    static const PrecisionId precs[] = {PR_INT_32, PR_INT_8, PR_INT_16, PR_UINT_8};
    int n = (int)(sizeof sizes / sizeof sizes[0]);
    for (int i = 0; i < 3 * n; i++)
        run_cvm_case(&r, sizes[i % n], sizes[(i * 5 + 3) % n], -128, 127, precs[i % 4], 0);
    for (int i = 0; i < 4; i++) { /* the largest sums, wrapping on the random bias */
        run_cvm_case(&r, 65, 300, -128, -128, precs[i], 0);
        run_cvm_case(&r, 65, 300, 127, 127, precs[i], 0);
    }
    static const int32_t odd[] = {128, -129, INT32_MAX, INT32_MIN}; /* the int32 path */
    for (int i = 0; i < 4; i++)
        run_cvm_case(&r, 33, 17, -128, 127, PR_INT_32, odd[i]);
}

/* INPUT x [IY][IX][R] -> SIC -> CC -> SI -> OUTPUT; the weights an SW with data, 3 x 3 with
 * padding 1, or (wfed) fed by INPUT w [F][R], 1 x 1 (an INPUT has no kernel dims). */
typedef struct ConvRun {
    Graph *g;
    StConv v;
    int32_t *w, *bias;
} ConvRun;

static void conv_graph(ConvRun *cr, StRng *r, bool wfed)
{
    int32_t K = wfed ? 1 : 3;
    StConv v = {9, 11, 70, 13, K, K, 9, 11, 1, 1, 1, 1, K / 2, K / 2};
    cr->v = v;
    Graph *g = cr->g = graph_create();
    int64_t nw = (int64_t)v.F * v.R * K * K;
    cr->w = st_values(r, nw, -128, 127);
    cr->bias = st_values(r, v.F, INT32_MIN, INT32_MAX);
    Block *x = st_io(g, BT_INPUT, v.IY, v.IX, v.R, 0, 0, "x");
    Block *sic = st_block(g, BT_SIC, S(v.IY, v.IX, 0, v.R), "conv/in");
    Block *sw;
    if (wfed) {
        sw = st_block(g, BT_SW, S(0, 0, v.F, v.R, 1, 1), "conv/w");
        Block *wi = st_io(g, BT_INPUT, 0, 0, v.F, v.R, 1, "w");
        assert_non_null(graph_connect(g, wi, 0, sw, 0));
    } else {
        sw = st_storage(g, BT_SW, S(0, 0, v.F, v.R, K, K), cr->w, nw);
    }
    Block *sb = st_storage(g, BT_SB, S(0, 0, v.F), cr->bias, v.F);
    Block *c = st_block(g, BT_CC, S(v.Y, v.X, v.F, v.R, K, K, v.IY, v.IX), "conv");
    c->has_prec = true;
    c->prec = PR_INT_32;
    c->bias_type = BIAS_VECTOR;
    st_window(g, c, K);
    assert_non_null(graph_connect(g, x, 0, sic, 0));
    assert_non_null(graph_connect(g, sic, 0, c, 0));
    assert_non_null(graph_connect(g, sw, 0, c, 1));
    assert_non_null(graph_connect(g, sb, 0, c, 2));
    st_out(g, c, 0, "out");
    assert_false(graph_oom(g));
}

static void conv_free(ConvRun *cr)
{
    free(cr->w), free(cr->bias);
    graph_destroy(cr->g);
}

/* Sets the inputs (x, and w when wfed) of one step and checks its output. */
static void conv_step(SimRun *run, const ConvRun *cr, const int32_t *x, bool wfed)
{
    const StConv *v = &cr->v;
    Diag d;
    diag_init(&d, "test");
    uint32_t k;
    assert_int_equal(sim_find_input(run, "0", &k, &d), ST_OK);
    assert_int_equal(sim_set_input(run, k, x, (int64_t)v->IY * v->IX * v->R, &d), ST_OK);
    if (wfed) {
        assert_int_equal(sim_find_input(run, "1", &k, &d), ST_OK);
        assert_int_equal(sim_set_input(run, k, cr->w, (int64_t)v->F * v->R, &d), ST_OK);
    }
    assert_int_equal(sim_step(run, &d), ST_OK);
    diag_finish(&d);
    int64_t n = (int64_t)v->Y * v->X * v->F, cnt;
    int32_t *want = malloc((size_t)n * 4);
    assert_non_null(want);
    st_conv_ref(v, x, cr->w, cr->bias, INT32_MIN, INT32_MAX, want);
    const int32_t *got = sim_output(run, 0, &cnt);
    assert_int_equal(cnt, n);
    st_assert_equal(want, got, n, "CC step");
    free(want);
}

/* Four steps on threads threads, each with a new input x (int8; at step 2, with constant
 * weights, one value outside int8) and, when wfed, new weights (at step 1 one outside
 * int8). */
static void steps_case(uint32_t seed, bool wfed, uint32_t threads)
{
    StRng r = {seed};
    ConvRun cr;
    conv_graph(&cr, &r, wfed);
    SimOptions o = {.threads = threads, .steps = 1, .keep_all = false};
    SimRun *run = st_create(cr.g, &o);
    int64_t nx = (int64_t)cr.v.IY * cr.v.IX * cr.v.R, nw = (int64_t)cr.v.F * cr.v.R;
    for (int t = 0; t < 4; t++) {
        for (int64_t i = 0; wfed && i < nw; i++)
            cr.w[i] = t == 1 && i == nw - 1 ? -1000 : st_range(&r, -128, 127);
        int32_t *x = st_values(&r, nx, -128, 127);
        if (t == 2 && !wfed)
            x[nx / 2] = 200;
        conv_step(run, &cr, x, wfed);
        free(x);
    }
    sim_destroy(run);
    conv_free(&cr);
}

/* Constant weights: packed once, right at every step while the input changes. */
static void test_constant_weights_across_steps(void **state)
{
    (void)state;
    steps_case(1234, false, 1);
}

/* Weights from an INPUT block: packed again at every step; a step whose weights are not all
 * int8 takes the int32 path, the next one the int8 path again. */
static void test_fed_weights_repacked(void **state)
{
    (void)state;
    steps_case(4321, true, 1);
}

/* Constant weights are packed by sim_create (all blocks' channel blocks on the threads),
 * weights an INPUT feeds at each step. */
static void test_packed_at_planning(void **state)
{
    (void)state;
    for (int wfed = 0; wfed < 2; wfed++) {
        StRng r = {99u + (uint32_t)wfed};
        ConvRun cr;
        conv_graph(&cr, &r, wfed);
        SimOptions o = {.threads = 2, .steps = 1};
        SimRun *run = st_create(cr.g, &o);
        for (uint32_t i = 0; i < cr.g->n_blocks; i++) {
            const SimBlock *sb = &run->blocks[i];
            if (sb->b->type != BT_CC || !sb->pack.data)
                continue; /* no VNNI: nothing is packed */
            assert_int_equal(sb->pack.packed, !wfed);
            assert_int_equal(sb->pack.usable, !wfed);
        }
        sim_destroy(run);
        conv_free(&cr);
    }
}

/* The int32 path's transposed weights are memory of their own, not the region's scratch:
 * the scratch the threads put in place holds the int8 input only (9 x 11 pixels of 16
 * bytes), not the 70 x 13 x 3 x 3 weights, and a step whose input is not int8 still runs
 * the int32 path right on one and two threads. */
static void test_weights_scratch_apart(void **state)
{
    (void)state;
    for (uint32_t threads = 1; threads <= 2; threads++) {
        StRng r = {77u + threads};
        ConvRun cr;
        conv_graph(&cr, &r, false);
        SimOptions o = {.threads = threads, .steps = 1};
        SimRun *run = st_create(cr.g, &o);
        int64_t nx = (int64_t)cr.v.IY * cr.v.IX * cr.v.R;
        int64_t nw = (int64_t)cr.v.F * cr.v.R * cr.v.KY * cr.v.KX;
        assert_non_null(run->wtscratch);
        assert_true(run->wscratch_vol < nw / 4);
        for (int t = 0; t < 2; t++) {
            int32_t *x = st_values(&r, nx, -128, 127);
            if (t == 0)
                x[nx / 3] = -3000; /* the int32 path */
            conv_step(run, &cr, x, false);
            free(x);
        }
        sim_destroy(run);
        conv_free(&cr);
    }
}

/* Two or three threads split the chunks and channel blocks: the same results. */
static void test_two_threads(void **state)
{
    (void)state;
    steps_case(777, false, 2);
    steps_case(778, true, 2);
    steps_case(779, false, 3);
}

/* With threads, each convolution's int8 input is placed in the scratch so that the pixel
 * where the second half of the threads' parts starts lies on its middle (sim_kernels.c,
 * input8_at; each thread writes the same bytes at every layer): two convolutions whose
 * inputs differ in size, both converted on the threads (48 x 48 x 48, then 48 x 48 x 32),
 * give on two and three threads the results of one. */
static void test_input8_threads(void **state)
{
    (void)state;
    enum { H = 48, R = 48, F1 = 32, F2 = 24 };
    StRng r = {5150};
    Graph *g = graph_create();
    Block *x = st_io(g, BT_INPUT, H, H, R, 0, 0, "x");
    Block *sic = st_block(g, BT_SIC, S(H, H, 0, R), "in");
    sic->has_prec = true;
    sic->prec = PR_INT_8;
    x->prec = PR_INT_8;
    assert_non_null(graph_connect(g, x, 0, sic, 0));
    Block *mid = st_conv_layer(g, &r, sic, H, R, F1, 3, PR_INT_8);
    Block *last = st_conv_layer(g, &r, mid, H, F1, F2, 1, PR_INT_32);
    Block *o = st_io(g, BT_OUTPUT, H, H, F2, 0, 0, "out");
    assert_non_null(graph_connect(g, last, 0, o, 0));
    assert_false(graph_oom(g));
    int32_t *in = st_values(&r, (int64_t)H * H * R, -128, 127);
    int32_t *want = NULL;
    int64_t n = 0;
    for (uint32_t threads = 1; threads <= 3; threads++) {
        SimOptions opt = {.threads = threads, .steps = 1, .share_buffers = true};
        SimRun *run = st_create(g, &opt);
        assert_true(threads == 1 ? run->wscratch_mid == 0 : run->wscratch_mid > 0);
        Diag d;
        diag_init(&d, "test");
        uint32_t k;
        assert_int_equal(sim_find_input(run, "0", &k, &d), ST_OK);
        assert_int_equal(sim_set_input(run, k, in, (int64_t)H * H * R, &d), ST_OK);
        assert_int_equal(sim_step(run, &d), ST_OK);
        diag_finish(&d);
        const int32_t *got = sim_output(run, 0, &n);
        assert_int_equal(n, (int64_t)H * H * F2);
        if (!want) {
            want = malloc((size_t)n * sizeof *want);
            assert_non_null(want);
            memcpy(want, got, (size_t)n * sizeof *want);
        } else {
            st_assert_equal(want, got, n, "two convolutions on threads");
        }
        sim_destroy(run);
    }
    free(in), free(want);
    graph_destroy(g);
}

/* The run's region, 1 M elements or more, has every page in place once it is planned, on
 * one thread as on two (sim.c, SIM_TOUCH_ELEMS): none is left for a kernel to bring in. */
static void test_region_in_place(void **state)
{
    (void)state;
    enum { H = 128, R = 64, F = 64 };
    for (uint32_t threads = 1; threads <= 2; threads++) {
        StRng r = {606u + threads};
        Graph *g = graph_create();
        Block *x = st_io(g, BT_INPUT, H, H, R, 0, 0, "x");
        Block *sic = st_block(g, BT_SIC, S(H, H, 0, R), "in");
        sic->has_prec = true;
        sic->prec = PR_INT_8;
        x->prec = PR_INT_8;
        assert_non_null(graph_connect(g, x, 0, sic, 0));
        Block *last = st_conv_layer(g, &r, sic, H, R, F, 1, PR_INT_32);
        Block *o = st_io(g, BT_OUTPUT, H, H, F, 0, 0, "out");
        assert_non_null(graph_connect(g, last, 0, o, 0));
        assert_false(graph_oom(g));
        SimOptions opt = {.threads = threads, .steps = 1, .share_buffers = true};
        SimRun *run = st_create(g, &opt);
        assert_true(run->region_bytes >= (size_t)4 << 20);
        long page = sysconf(_SC_PAGESIZE);
        assert_true(page > 0);
        uintptr_t a = (uintptr_t)run->region / (uintptr_t)page * (uintptr_t)page;
        size_t n = ((uintptr_t)run->region + run->region_bytes - a + (size_t)page - 1) /
                   (size_t)page;
        unsigned char *vec = malloc(n);
        assert_non_null(vec);
        assert_int_equal(mincore((void *)a, n * (size_t)page, vec), 0);
        size_t in = 0;
        for (size_t i = 0; i < n; i++)
            in += vec[i] & 1;
        assert_int_equal(in, n);
        free(vec);
        sim_destroy(run);
        graph_destroy(g);
    }
}

/* The chunks of rows: 28 rows of which 24 fit the cache went as 24 + 4 rows to two threads
 * (six times the work on one); now as 14 + 14. Seven rows of 2048 channels split by
 * channel blocks (3 + 4 rows would leave one thread 8/7 of the other's work). One thread:
 * the fewest chunks. Any shape: no more chunks than rows, never a busier thread than with
 * the fewest chunks, and an even split whenever the threads divide the rows and the fewest
 * chunks are at most as many as the threads. */
static void test_even_chunks(void **state)
{
    (void)state;
    assert_int_equal(sim_dot8_chunks(28, 128, 24, 2), 2);
    assert_int_equal(sim_dot8_busiest(28, 128, 2, 2), 14 * 128);
    assert_int_equal(sim_dot8_chunks(7, 2048, 100, 2), 1);
    assert_int_equal(sim_dot8_busiest(7, 2048, 1, 2), 7 * 1024);
    assert_int_equal(sim_dot8_chunks(112, 64, 17, 1), 7);
    for (int64_t Y = 1; Y <= 40; Y++)
        for (int64_t F = 1; F <= 300; F += 37)
            for (int64_t rows = 1; rows <= Y; rows++)
                for (uint32_t nt = 1; nt <= 4; nt++) {
                    int64_t fewest = (Y + rows - 1) / rows, c = sim_dot8_chunks(Y, F, rows, nt);
                    int64_t busiest = sim_dot8_busiest(Y, F, c, nt);
                    assert_true(c >= fewest && c <= Y);
                    assert_true(busiest <= sim_dot8_busiest(Y, F, fewest, nt));
                    assert_true(busiest * nt >= Y * F);
                    if (nt == 1)
                        assert_int_equal(c, fewest);
                    if (Y % nt == 0 && fewest <= nt)
                        assert_int_equal(busiest, Y * F / nt);
                }
}

/* With a pool, a kernel as small as 7 x 7 x 512 values is split over the threads (it would
 * otherwise read on one thread the rows the other wrote); one of 4095 operations is not; on
 * one thread nothing is. */
static void test_pool_small_kernels(void **state)
{
    (void)state;
    StRng r = {5u};
    ConvRun cr;
    conv_graph(&cr, &r, 0);
    for (uint32_t threads = 1; threads <= 2; threads++) {
        SimOptions o = {.threads = threads, .steps = 1};
        SimRun *run = st_create(cr.g, &o);
        assert_int_equal(sim_parallel_threads(run, 7 * 7 * 512), threads);
        assert_int_equal(sim_parallel_threads(run, SIM_POOL_MIN_WORK - 1), 1);
        sim_destroy(run);
    }
    conv_free(&cr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cvm_int8),
        cmocka_unit_test(test_constant_weights_across_steps),
        cmocka_unit_test(test_fed_weights_repacked),
        cmocka_unit_test(test_packed_at_planning),
        cmocka_unit_test(test_two_threads),
        cmocka_unit_test(test_input8_threads),
        cmocka_unit_test(test_weights_scratch_apart),
        cmocka_unit_test(test_region_in_place),
        cmocka_unit_test(test_even_chunks),
        cmocka_unit_test(test_pool_small_kernels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
