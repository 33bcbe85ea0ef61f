/* test_sim_share.c: a run's buffers sharing memory (SimOptions.share_buffers, sim_share.h)
 * and its threads. The placement keeps buffers that live at once apart, and on two threads
 * keeps each element on one thread's side of every buffer holding it; a graph with
 * independent branches, a convolved and pooled branch and a pooled one joined into one
 * cluster, gives byte-identical outputs with and without sharing, on 1, 2 and 4 threads,
 * over several steps and samples; also when the joined cluster has channels no edge writes
 * (which the verifier refuses [cover.gap], the simulator reads as zero: they must stay zero
 * although their memory held another buffer). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../taskir/sim_share.h"
#include "simtest.h"

#define S(...) ((int32_t[TIR_NDIMS]){__VA_ARGS__})

/* ---- the placement ---- */

/* n random buffers in order of first: some for the whole run, some small, of random lives;
 * split at the end (one thread writes them) or about the middle. Returns their elements. */
static int64_t random_lives(StRng *g, SimLife *b, uint32_t n)
{
    uint32_t first = 0;
    int64_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        first += (uint32_t)st_range(g, 0, 2);
        bool whole = st_range(g, 0, 5) == 0;
        int64_t e = st_range(g, 0, 3) == 0 ? 16 * st_range(g, 1, 100)
                                           : SIM_SHARE_MIN_ELEMS + 16 * st_range(g, 0, 999);
        int64_t split = st_range(g, 0, 2) == 0 ? e : e / 32 * 16;
        uint32_t last = st_range(g, 0, 9) == 0 ? SIM_SHARE_END
                                               : first + (uint32_t)st_range(g, 0, 6);
        b[i] = whole ? (SimLife){e, 0, SIM_SHARE_END, split} : (SimLife){e, first, last, split};
        sum += e;
    }
    return sum;
}

typedef int64_t (*PlaceFn)(const SimLife *b, uint32_t n, int64_t *offset, bool *shared);

/* 200 random sets of buffers placed by place: every buffer inside the region, aligned, only
 * the large ones shared, apart from every buffer alive at once and from the own ones; the
 * same offsets again. split: also each element of the shared area on one side of the split
 * of every buffer holding it (written by one thread only), else the region at most the sum of
 * the buffers. */
static void place_random_case(PlaceFn place, uint32_t seed, bool split)
{
    StRng g = {seed};
    for (int round = 0; round < 200; round++) {
        uint32_t n = (uint32_t)st_range(&g, 1, 300);
        SimLife *b = calloc(n, sizeof *b);
        int64_t *off = calloc(n, sizeof *off), *off2 = calloc(n, sizeof *off2);
        bool *sh = calloc(n, sizeof *sh), *sh2 = calloc(n, sizeof *sh2);
        assert_true(b && off && off2 && sh && sh2);
        int64_t sum = random_lives(&g, b, n);
        int64_t top = place(b, n, off, sh);
        assert_true(top > 0 && top <= (split ? 2 : 1) * sum);
        /* 1: the first thread's side, 2: the second's */
        signed char *side = calloc(top > 0 ? (size_t)top : 1, 1);
        assert_non_null(side);
        for (uint32_t i = 0; i < n; i++) {
            assert_true(off[i] >= 0 && off[i] + b[i].elems <= top);
            assert_true(!sh[i] || b[i].elems >= SIM_SHARE_MIN_ELEMS);
            assert_true(off[i] % 16 == 0);
            for (uint32_t j = 0; j < i; j++) {
                bool apart = off[i] + b[i].elems <= off[j] || off[j] + b[j].elems <= off[i];
                bool alive = sh[i] && sh[j] && b[i].first <= b[j].last &&
                             b[j].first <= b[i].last;
                if (!sh[i] || !sh[j] || alive)
                    assert_true(apart); /* own memory, or alive at once */
            }
            for (int64_t k = 0; split && sh[i] && k < b[i].elems; k++) {
                signed char t = k < b[i].split ? 1 : 2;
                assert_true(side[off[i] + k] == 0 || side[off[i] + k] == t);
                side[off[i] + k] = t;
            }
        }
        free(side);
        assert_int_equal(place(b, n, off2, sh2), top); /* deterministic */
        assert_memory_equal(off, off2, n * sizeof *off);
        free(b), free(off), free(off2), free(sh), free(sh2);
    }
}

static void test_place_random(void **state)
{
    (void)state;
    place_random_case(sim_share_place, 99, false);
}

/* sim_share_place_split: each element of the shared area written by one thread only. */
static void test_place_split_random(void **state)
{
    (void)state;
    place_random_case(sim_share_place_split, 4242, true);
}

/* Buffers alive one after another share an anchor, which grows to the largest part on each
 * side: a buffer of halves 2e + 2e, then one all on the first thread (3e + 0); the anchor
 * sits 3e above the shared area's start. */
static void test_place_split_anchor(void **state)
{
    (void)state;
    int64_t e = SIM_SHARE_MIN_ELEMS;
    SimLife b[] = {{16, 0, SIM_SHARE_END, 16}, {4 * e, 0, 0, 2 * e}, {3 * e, 1, 1, 3 * e},
                   {e, 1, 1, e / 2}};
    int64_t off[4];
    bool sh[4];
    /* the own 16, anchor 0 (3e below, 2e above), anchor 1 (e / 2 either side) */
    assert_int_equal(sim_share_place_split(b, 4, off, sh), 16 + 5 * e + e);
    assert_true(!sh[0] && sh[1] && sh[2] && sh[3]);
    assert_int_equal(off[0], 0);
    assert_int_equal(off[1], 16 + 3 * e - 2 * e);
    assert_int_equal(off[2], 16);
    assert_int_equal(off[3], 16 + 5 * e);
}

/* Buffers that die make room: three of one size, each alive for one index, take one. */
static void test_place_reuse(void **state)
{
    (void)state;
    int64_t e = SIM_SHARE_MIN_ELEMS;
    SimLife b[] = {{e, 0, 0, e}, {e, 1, 1, e}, {e, 2, 2, e}, {16, 0, SIM_SHARE_END, 16}};
    int64_t off[4];
    bool sh[4];
    assert_int_equal(sim_share_place(b, 4, off, sh), e + 16);
    assert_true(sh[0] && sh[1] && sh[2] && !sh[3]);
    assert_int_equal(off[0], 16);
    assert_int_equal(off[1], 16);
    assert_int_equal(off[3], 0);
}

/* ---- a graph with branches ---- */

enum { H = 48, W = 48, F = 16 };

static Block *compute(Graph *g, BlockType t, const int32_t shape[TIR_NDIMS], const char *name)
{
    Block *b = st_block(g, t, shape, name);
    b->has_prec = true;
    b->prec = PR_INT_32;
    return b;
}

static Block *storage(Graph *g, BlockType t, int32_t f, const char *name)
{
    Block *b = st_block(g, t, S(H, W, f), name);
    b->has_prec = true;
    b->prec = PR_INT_32;
    return b;
}

static void window(Graph *g, Block *c, int k, int pad)
{
    blk_set_attr(g, c, AT_KERNEL_X, k);
    blk_set_attr(g, c, AT_KERNEL_Y, k);
    AttrId pads[] = {AT_PAD_UP, AT_PAD_DOWN, AT_PAD_LEFT, AT_PAD_RIGHT};
    for (int i = 0; i < 4; i++)
        blk_set_attr(g, c, pads[i], pad);
}

/* in -> { s0 -> conv 3x3 (4F channels) -> s1 -> its channels [0, F) -> max pool 3x3 -> s2
 * -> max pool 3x3 ; s0b -> min pool 3x3 } into channels [0, F) and [F, 2F) of cat (cat_f
 * channels: those from 2F on no edge writes) -> CVS -> s4 -> out 0; s2 -> out 1 (a result
 * read after the step). The convolution's result is no longer needed when cat is written:
 * with sharing, cat takes its memory. */
static Graph *branches(int32_t cat_f)
{
    Graph *g = graph_create();
    Block *in = st_io(g, BT_INPUT, H, W, F, 0, 0, "in");
    Block *s0 = st_block(g, BT_SIC, S(H, W, 0, F), "s0");
    s0->has_prec = true, s0->prec = PR_INT_8;
    in->prec = PR_INT_8;
    Block *s0b = storage(g, BT_SI, F, "s0b");
    Block *conv = compute(g, BT_CC, S(H, W, 4 * F, F, 3, 3, H, W), "conv");
    window(g, conv, 3, 1);
    conv->bias_type = BIAS_VECTOR;
    StRng r = {7};
    int32_t *wv = malloc((size_t)4 * F * F * 9 * sizeof *wv), bv[4 * F];
    assert_non_null(wv);
    for (int i = 0; i < 4 * F * F * 9; i++)
        wv[i] = st_range(&r, -128, 127);
    for (int i = 0; i < 4 * F; i++)
        bv[i] = st_range(&r, -1000, 1000);
    Block *wt = st_storage(g, BT_SW, S(0, 0, 4 * F, F, 3, 3), wv, 4 * F * F * 9);
    Block *bias = st_storage(g, BT_SB, S(0, 0, 4 * F), bv, 4 * F);
    free(wv);
    Block *s1 = storage(g, BT_SI, 4 * F, "s1");
    Block *pool[2], *s2 = NULL;
    for (int k = 0; k < 2; k++) {
        pool[k] = compute(g, BT_CCMPB, S(H, W, F, 0, 3, 3, H, W), "max");
        window(g, pool[k], 3, 1);
        blk_set_attr(g, pool[k], AT_CMP, INT32_MIN);
        if (k == 0)
            s2 = storage(g, BT_SI, F, "s2");
    }
    Block *mpool = compute(g, BT_CCMPS, S(H, W, F, 0, 3, 3, H, W), "min");
    window(g, mpool, 3, 1);
    blk_set_attr(g, mpool, AT_CMP, INT32_MAX);
    Block *cat = storage(g, BT_SI, cat_f, "cat");
    Block *cvs = compute(g, BT_CVS, S(H, W, cat_f), "cvs");
    blk_set_attr(g, cvs, AT_CONSTANT_A, 3);
    blk_set_attr(g, cvs, AT_CONSTANT_B, 1);
    Block *s4 = storage(g, BT_SI, cat_f, "s4");
    Block *out0 = st_io(g, BT_OUTPUT, H, W, cat_f, 0, 0, "out0");
    Block *out1 = st_io(g, BT_OUTPUT, H, W, F, 0, 1, "out1");
    assert_non_null(graph_connect(g, in, 0, s0, 0));
    assert_non_null(graph_connect(g, in, 0, s0b, 0));
    assert_non_null(graph_connect(g, s0, 0, conv, 0));
    assert_non_null(graph_connect(g, wt, 0, conv, 1));
    assert_non_null(graph_connect(g, bias, 0, conv, 2));
    assert_non_null(graph_connect(g, conv, 0, s1, 0));
    int32_t size[TIR_NDIMS] = {H, W, F, 0, 0, 0, 0, 0};
    assert_non_null(graph_connect_box(g, s1, 0, S(0, 0, 0), size, pool[0], 0, NULL, NULL));
    assert_non_null(graph_connect(g, pool[0], 0, s2, 0));
    assert_non_null(graph_connect(g, s2, 0, pool[1], 0));
    assert_non_null(graph_connect(g, s0b, 0, mpool, 0));
    assert_non_null(graph_connect_box(g, pool[1], 0, NULL, NULL, cat, 0, S(0, 0, 0), size));
    assert_non_null(graph_connect_box(g, mpool, 0, NULL, NULL, cat, 0, S(0, 0, F), size));
    assert_non_null(graph_connect(g, cat, 0, cvs, 0));
    assert_non_null(graph_connect(g, cvs, 0, s4, 0));
    assert_non_null(graph_connect(g, s4, 0, out0, 0));
    assert_non_null(graph_connect(g, s2, 0, out1, 0));
    return g;
}

/* The position of the block named name. */
static uint32_t block_named(const Graph *g, const char *name)
{
    for (uint32_t i = 0; i < g->n_blocks; i++)
        if (g->blocks[i]->name && strcmp(g->blocks[i]->name, name) == 0)
            return i;
    fail_msg("no block %s", name);
    return 0;
}

/* A run of g; verified first unless gap (a graph the verifier refuses). */
static SimRun *create(const Graph *g, const SimOptions *o, bool gap)
{
    if (!gap)
        return st_create(g, o);
    SimRun *r = NULL;
    Diag d;
    diag_init(&d, "test");
    Status st = sim_create(g, o, &r, &d);
    if (st)
        diag_print(&d, stderr, "test");
    diag_finish(&d);
    assert_int_equal(st, ST_OK);
    return r;
}

static int32_t *run(const Graph *g, bool gap, const NpyArray *x, uint32_t threads,
                    uint32_t steps, bool share, int64_t *n)
{
    SimOptions o = {.threads = threads, .steps = steps, .share_buffers = share};
    SimRun *r = create(g, &o, gap);
    SimInput in = {"0", x};
    SimResult res;
    Diag d;
    diag_init(&d, "test");
    Status st = sim_run(r, &in, 1, &res, &d);
    if (st)
        diag_print(&d, stderr, "test");
    diag_finish(&d);
    assert_int_equal(st, ST_OK);
    assert_int_equal(res.n_outputs, 2);
    *n = res.outputs[0].count + res.outputs[1].count;
    int32_t *v = malloc((size_t)*n * sizeof *v);
    assert_non_null(v);
    memcpy(v, res.outputs[0].data, (size_t)res.outputs[0].count * sizeof *v);
    memcpy(v + res.outputs[0].count, res.outputs[1].data,
           (size_t)res.outputs[1].count * sizeof *v);
    sim_result_free(&res);
    sim_destroy(r);
    return v;
}

/* Outputs byte-identical with and without sharing, on 1, 2 and 4 threads; the channels of
 * cat from 2F on (gap) read as zero. */
static void branches_case(bool gap)
{
    int32_t cat_f = gap ? 2 * F + 8 : 2 * F;
    Graph *g = branches(cat_f);
    const uint32_t N = 2, T = 3;
    NpyArray x = {0};
    x.dtype = NPY_I32;
    x.ndim = 5;
    int64_t shape[] = {N, T, H, W, F};
    memcpy(x.shape, shape, sizeof shape);
    x.count = (int64_t)N * T * H * W * F;
    x.i32 = malloc((size_t)x.count * sizeof *x.i32);
    assert_non_null(x.i32);
    StRng r = {3};
    for (int64_t i = 0; i < x.count; i++)
        x.i32[i] = st_range(&r, -128, 127);
    int64_t n, m;
    int32_t *want = run(g, gap, &x, 1, T, false, &n);
    /* the uncovered channels of cat read as zero: out0 = 3 * cat + 1 there */
    for (int64_t p = 0; p < (int64_t)N * T * H * W; p++)
        for (int f = 2 * F; f < cat_f; f++)
            assert_int_equal(want[p * cat_f + f], 1);
    const uint32_t threads[] = {1, 2, 4};
    for (int share = 0; share < 2; share++)
        for (int k = 0; k < 3; k++) {
            int32_t *got = run(g, gap, &x, threads[k], T, share, &m);
            assert_int_equal(m, n);
            assert_memory_equal(want, got, (size_t)n * sizeof *got);
            free(got);
        }
    free(x.i32);
    free(want);
    graph_destroy(g);
}

static void test_branches_threads(void **state)
{
    (void)state;
    branches_case(false);
}

static void test_branches_gap(void **state)
{
    (void)state;
    branches_case(true);
}

/* With sharing, cat's buffer is the memory of the convolution's result, which no block
 * reads once the first pool has run; without, every buffer has its own. */
static void share_case(bool gap)
{
    Graph *g = branches(gap ? 2 * F + 8 : 2 * F);
    SimOptions a = {.threads = 1, .steps = 1}, b = a;
    b.share_buffers = true;
    SimRun *ra = create(g, &a, gap), *rb = create(g, &b, gap);
    int64_t shape[NPY_MAX_DIMS], n, k;
    uint32_t nd, cat = block_named(g, "cat"), conv = block_named(g, "conv");
    const int32_t *cat_a = sim_block_result(ra, cat, shape, &nd, &n);
    const int32_t *conv_a = sim_block_result(ra, conv, shape, &nd, &k);
    assert_true(conv_a + k <= cat_a || cat_a + n <= conv_a);
    const int32_t *cat_b = sim_block_result(rb, cat, shape, &nd, &n);
    const int32_t *conv_b = sim_block_result(rb, conv, shape, &nd, &k);
    assert_true(conv_b < cat_b + n && cat_b < conv_b + k);
    sim_destroy(ra);
    sim_destroy(rb);
    graph_destroy(g);
}

static void test_share_memory(void **state)
{
    (void)state;
    share_case(false);
    share_case(true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_place_random),
        cmocka_unit_test(test_place_reuse),
        cmocka_unit_test(test_place_split_random),
        cmocka_unit_test(test_place_split_anchor),
        cmocka_unit_test(test_branches_threads),
        cmocka_unit_test(test_branches_gap),
        cmocka_unit_test(test_share_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
