/* test_sim_weights_in_place.c: SimOptions.weights_in_place (taskir/sim_kernels.c): the int8
 * path packs a convolution's or a CVM's weights over the graph's own INT_8 weight tensor
 * instead of into the run's region (a smaller region, the tensor changed), with the results
 * of the run without it on one, two and three threads; a step whose input is not int8 puts
 * the weights back and runs the int32 path, right then and at the later steps; weights that
 * two blocks read, or that are not INT_8, or whose last channel block would not fit its rows,
 * stay where they are; an unverified INT_8 tensor holding a value outside int8 stops the
 * planning [data.range]. Where the CPU has no VNNI nothing is packed and the same runs
 * check the int32 path. The same graphs loaded narrow (LoadOptions.narrow: the weights int8
 * in a byte each): packed over those bytes where every channel block's reduction is whole
 * groups of four (a last block too short for its own bytes packed into the run's memory),
 * else widened into the run's memory, with the same results, the int32 path after an input
 * outside int8 included. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../taskir/sim_dot8.h"
#include "../../taskir/sim_internal.h"
#include "simtest.h"
#include "taskir/pbio.h"

#define S(...) ((const int32_t[TIR_NDIMS]){__VA_ARGS__})

/* INPUT x [H][H][R] -> SIC -> CC (K x K, padding K / 2; n_conv of them reading the same SW
 * when shared) -> SI -> OUTPUT, the weights int8 in an SW of precision wprec. */
typedef struct Net {
    Graph *g;
    StConv v;
    int32_t *w, *bias;
    Block *sw;
} Net;

static void net_build(Net *n, StRng *r, int32_t H, int32_t R, int32_t F, int32_t K,
                      PrecisionId wprec, bool shared)
{
    StConv v = {H, H, F, R, K, K, H, H, 1, 1, 1, 1, K / 2, K / 2};
    n->v = v;
    Graph *g = n->g = graph_create();
    int64_t nw = (int64_t)F * R * K * K;
    n->w = malloc((size_t)nw * sizeof *n->w);
    n->bias = malloc((size_t)F * sizeof *n->bias);
    assert_non_null(n->w), assert_non_null(n->bias);
    for (int64_t i = 0; i < nw; i++)
        n->w[i] = st_range(r, -128, 127);
    n->w[0] = -128, n->w[nw - 1] = 127;
    for (int32_t f = 0; f < F; f++)
        n->bias[f] = st_range(r, -100000, 100000);
    Block *x = st_io(g, BT_INPUT, H, H, R, 0, 0, "x");
    Block *sic = st_block(g, BT_SIC, S(H, H, 0, R), "in");
    n->sw = st_storage(g, BT_SW, S(0, 0, F, R, K, K), n->w, nw);
    n->sw->prec = n->sw->data->prec = wprec;
    Block *sb = st_storage(g, BT_SB, S(0, 0, F), n->bias, F);
    assert_non_null(graph_connect(g, x, 0, sic, 0));
    for (int i = 0; i < (shared ? 2 : 1); i++) {
        Block *c = st_block(g, BT_CC, S(H, H, F, R, K, K, H, H), "conv");
        c->has_prec = true;
        c->prec = PR_INT_32;
        c->bias_type = BIAS_VECTOR;
        static const AttrId at[] = {AT_KERNEL_Y, AT_KERNEL_X, AT_PAD_UP, AT_PAD_DOWN,
                                    AT_PAD_LEFT, AT_PAD_RIGHT};
        int32_t av[] = {K, K, K / 2, K / 2, K / 2, K / 2};
        for (int a = 0; a < 6; a++)
            assert_true(blk_set_attr(g, c, at[a], av[a]));
        assert_non_null(graph_connect(g, sic, 0, c, 0));
        assert_non_null(graph_connect(g, n->sw, 0, c, 1));
        assert_non_null(graph_connect(g, sb, 0, c, 2));
        st_out(g, c, i, i ? "out1" : "out0");
    }
    assert_false(graph_oom(g));
}

static void net_free(Net *n)
{
    free(n->w), free(n->bias);
    graph_destroy(n->g);
}

/* The CC blocks packing in place, asserting each has the same say. */
static bool in_place(const SimRun *run)
{
    int seen = -1;
    for (uint32_t i = 0; i < run->g->n_blocks; i++) {
        const SimBlock *sb = &run->blocks[i];
        if (sb->b->type != BT_CC)
            continue;
        if (seen >= 0)
            assert_int_equal(seen, sb->pack.in_place);
        seen = sb->pack.in_place;
    }
    return seen == 1;
}

/* One step with input x (a value outside int8 at bad >= 0): every output against the loop
 * nest. */
static void step(SimRun *run, const Net *n, StRng *r, int64_t bad)
{
    const StConv *v = &n->v;
    int64_t nx = (int64_t)v->IY * v->IX * v->R, no = (int64_t)v->Y * v->X * v->F, cnt;
    int32_t *x = malloc((size_t)nx * sizeof *x), *want = malloc((size_t)no * sizeof *want);
    assert_non_null(x), assert_non_null(want);
    for (int64_t i = 0; i < nx; i++)
        x[i] = st_range(r, -128, 127);
    if (bad >= 0)
        x[bad] = 3000;
    Diag d;
    diag_init(&d, "test");
    uint32_t k;
    assert_int_equal(sim_find_input(run, "0", &k, &d), ST_OK);
    assert_int_equal(sim_set_input(run, k, x, nx, &d), ST_OK);
    assert_int_equal(sim_step(run, &d), ST_OK);
    diag_finish(&d);
    st_conv_ref(v, x, n->w, n->bias, INT32_MIN, INT32_MAX, want);
    for (uint32_t o = 0; o < sim_n_outputs(run); o++) {
        const int32_t *got = sim_output(run, o, &cnt);
        assert_int_equal(cnt, no);
        st_assert_equal(want, got, no, "convolution");
    }
    free(x), free(want);
}

/* Does the graph's SW still hold the weights? */
static bool weights_kept(const Net *n)
{
    const Tensor *t = n->sw->data;
    return memcmp(t->i32, n->w, (size_t)t->n_i32 * sizeof *t->i32) == 0;
}

/* Packed over the tensor on 1 to 3 threads: a region smaller by the packed weights, the
 * tensor no longer the weights, right results over steps; an input outside int8 at step 2
 * puts the weights back (the int32 path), and steps 3 and 4 stay right. Odd sizes: 70
 * channels (a last channel block of 6) of 13 values, 3 x 3 taps; 1 x 1 taps of 129 values (a last block of 8 channels), of 8 (200 channels). */
static void test_packed_over_weights(void **state)
{
    (void)state;
    static const int32_t shapes[][4] = {{9, 13, 70, 3}, {5, 129, 72, 1}, {4, 8, 200, 1}};
    bool vnni = sim_dot8_vnni() != NULL;
    for (int s = 0; s < 3; s++)
        for (uint32_t threads = 1; threads <= 3; threads++) {
            StRng r = {(uint32_t)(31 * s) + threads};
            Net n;
            const int32_t *sh = shapes[s];
            net_build(&n, &r, sh[0], sh[1], sh[2], sh[3], PR_INT_8, false);
            SimOptions plain = {.threads = threads, .steps = 1, .share_buffers = true};
            SimOptions o = plain;
            o.weights_in_place = true;
            SimRun *base = st_create(n.g, &plain);
            SimRun *run = st_create(n.g, &o);
            assert_int_equal(in_place(run), vnni);
            assert_int_equal(weights_kept(&n), !vnni);
            int64_t words = (int64_t)n.v.F * n.v.R * n.v.KY * n.v.KX;
            if (vnni)
                assert_true(run->region_bytes + (size_t)words <= base->region_bytes);
            sim_destroy(base);
            int64_t nx = (int64_t)n.v.IY * n.v.IX * n.v.R;
            for (int t = 0; t < 4; t++) {
                step(run, &n, &r, t == 2 ? nx / 2 : -1);
                assert_int_equal(weights_kept(&n), !vnni || t >= 2);
                assert_false(in_place(run) && t >= 2);
            }
            sim_destroy(run);
            net_free(&n);
        }
}

/* Left where they are: weights two convolutions read, weights of precision INT_32, weights
 * whose last channel block (1 channel of 2 values: 16 lanes of one word) would not fit its
 * own rows, and any weights with keep_all. */
static void test_kept_apart(void **state)
{
    (void)state;
    static const struct {
        int32_t R, F;
        PrecisionId prec;
        bool shared, keep_all;
    } cases[] = {{13, 70, PR_INT_8, true, false},
                 {13, 70, PR_INT_32, false, false},
                 {2, 65, PR_INT_8, false, false},
                 {13, 70, PR_INT_8, false, true}};
    for (int i = 0; i < 4; i++) {
        StRng r = {900u + (uint32_t)i};
        Net n;
        net_build(&n, &r, 6, cases[i].R, cases[i].F, 1, cases[i].prec, cases[i].shared);
        SimOptions o = {.threads = 2, .steps = 1, .share_buffers = true,
                        .weights_in_place = true, .keep_all = cases[i].keep_all};
        SimRun *run = st_create(n.g, &o);
        assert_false(in_place(run));
        step(run, &n, &r, -1);
        assert_true(weights_kept(&n));
        sim_destroy(run);
        net_free(&n);
    }
}

/* An INT_8 tensor holding 300, not verified: planning stops [data.range] where the weights
 * would go in place (it cannot fall back on weights it has written over); without the
 * option the int32 path runs it. */
static void test_unverified_weights(void **state)
{
    (void)state;
    if (!sim_dot8_vnni())
        skip();
    StRng r = {4242u};
    Net n;
    net_build(&n, &r, 6, 13, 70, 3, PR_INT_8, false);
    n.sw->data->i32[n.sw->data->n_i32 - 1] = 300;
    SimOptions o = {.threads = 1, .steps = 1, .share_buffers = true, .weights_in_place = true};
    Diag d;
    diag_init(&d, "test");
    SimRun *run = NULL;
    assert_int_equal(sim_create(n.g, &o, &run, &d), ST_LOGIC);
    assert_null(run);
    assert_true(d.n > 0);
    assert_string_equal(d.entries[0].rule, "data.range");
    diag_finish(&d);
    o.weights_in_place = false;
    diag_init(&d, "test");
    assert_int_equal(sim_create(n.g, &o, &run, &d), ST_OK);
    diag_finish(&d);
    sim_destroy(run);
    net_free(&n);
}

/* n's graph saved and loaded again narrow: its SW block's values held as int8. */
static void net_narrow(Net *n)
{
    Diag d;
    diag_init(&d, "test");
    uint8_t *buf = NULL;
    size_t len = 0;
    Graph *g = NULL;
    assert_int_equal(graph_pack(n->g, &buf, &len, &d), ST_OK);
    LoadOptions lo = {.threads = 1, .narrow = true};
    assert_int_equal(graph_load_pb_mem_opts(buf, len, &lo, &g, &d), ST_OK);
    diag_finish(&d);
    free(buf);
    uint32_t pos = graph_block_pos(n->g, n->sw->id);
    graph_destroy(n->g);
    n->g = g;
    n->sw = g->blocks[pos];
    assert_int_equal(n->sw->type, BT_SW);
    assert_non_null(n->sw->data->i8);
}

/* Weights held narrow, on 1 to 3 threads, four steps (an input outside int8 at step 2, the
 * int32 path from then on): packed over their own bytes (the SW block then has no result) when
 * R is a multiple of 4, with the last channel block in the run's memory when its rows are
 * too few bytes (200 channels: 8 of 8 values; 70 channels: 6 of 16 x 9), exactly in its rows
 * (64 channels of 32); else (R = 13, 129) widened, the tensor untouched. The results are the
 * loop nest's throughout. */
static void test_narrow_weights(void **state)
{
    (void)state;
    static const struct {
        int32_t H, R, F, K;
        bool over, tail;
    } cases[] = {{9, 13, 70, 3, false, false}, {5, 129, 72, 1, false, false},
                 {4, 8, 200, 1, true, true},   {6, 16, 70, 3, true, true},
                 {5, 32, 64, 1, true, false},  {4, 4, 130, 3, true, true}};
    bool vnni = sim_dot8_vnni() != NULL;
    for (int i = 0; i < 6; i++)
        for (uint32_t threads = 1; threads <= 3; threads++) {
            StRng r = {(uint32_t)(77 * i) + threads};
            Net n;
            net_build(&n, &r, cases[i].H, cases[i].R, cases[i].F, cases[i].K, PR_INT_8, false);
            net_narrow(&n);
            SimOptions o = {.threads = threads, .steps = 1, .share_buffers = true,
                            .weights_in_place = true};
            assert_int_equal(sim_packs_narrow(&o), vnni);
            SimRun *run = st_create(n.g, &o);
            bool over = vnni && cases[i].over;
            const SimBlock *sw = &run->blocks[graph_block_pos(n.g, n.sw->id)];
            assert_int_equal(in_place(run), over);
            assert_int_equal(sw->packed_over, over);
            assert_int_equal(sw->result == NULL, over);
            for (uint32_t k = 0; over && k < run->g->n_blocks; k++)
                if (run->blocks[k].b->type == BT_CC)
                    assert_int_equal(run->blocks[k].pack.tail, cases[i].tail);
            int64_t nw = (int64_t)n.v.F * n.v.R * n.v.KY * n.v.KX;
            for (int64_t k = 0; !over && k < nw; k++)
                assert_int_equal(n.sw->data->i8[k], n.w[k]);
            int64_t nx = (int64_t)n.v.IY * n.v.IX * n.v.R;
            for (int t = 0; t < 4; t++) {
                step(run, &n, &r, t == 2 ? nx / 2 : -1);
                assert_false(in_place(run) && t >= 2);
            }
            sim_destroy(run);
            net_free(&n);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_packed_over_weights),
        cmocka_unit_test(test_kept_apart),
        cmocka_unit_test(test_unverified_weights),
        cmocka_unit_test(test_narrow_weights),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
