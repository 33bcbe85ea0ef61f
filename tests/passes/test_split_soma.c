/* test_split_soma.c: fit mode cuts the Soma after an Axon block as it cut the Axon block
 * (passes/split_soma.c), so that fuse pairs every piece: a convolution and its
 * requantization on a chip of 16 KiB a core, simulated before and after; a pooling window
 * after a convolution is not followed (its pieces would read across the convolution's), and
 * the graph still runs as before. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "passes/pass.h"
#include "passes/split.h"
#include "passtest.h"
#include "split_fixture.h"
#include "taskir/chip_cost.h"
#include "taskir/encode.h"
#include "taskir/layout_buf.h"
#include "taskir/uses.h"

static const int32_t conv3x3[] = {AT_KERNEL_Y, 3, AT_KERNEL_X, 3, AT_PAD_UP, 1, AT_PAD_DOWN, 1,
                                  AT_PAD_LEFT, 1, AT_PAD_RIGHT, 1};

/* Puts Soma block m (writing s) and the ReLU tail (writing ts) between fx_block's 'op/out' and
 * the OUTPUT edge e reads: op/out -> m -> s -> tail -> ts -> OUTPUT. */
static void insert_soma(Graph *g, Edge *e, Block *m, Block *s, Block *tail, Block *ts)
{
    Block *out = pt_by_name(g, "op/out");
    assert_non_null(out);
    assert_true(blk_set_attr(g, tail, AT_STRIDE_Y, 1) && blk_set_attr(g, tail, AT_STRIDE_X, 1));
    assert_true(blk_set_attr(g, tail, AT_BIT_SHIFT_NUM, 0));
    assert_true(blk_set_attr(g, tail, AT_CMP, 0));
    assert_non_null(graph_retarget_edge(g, e, true, ts, 0));
    assert_non_null(graph_connect(g, out, 0, m, 0));
    assert_non_null(graph_connect(g, m, 0, s, 0));
    assert_non_null(graph_connect(g, s, 0, tail, 0));
    assert_non_null(graph_connect(g, tail, 0, ts, 0));
}

/* Puts a Soma block 'soma' of type t (window k x k, stride k) between fx_block's 'op/out'
 * and the OUTPUT, and a ReLU after it: op -> op/out -> soma -> soma/out -> tail -> tail/out
 * -> OUTPUT. */
static void add_soma(Graph *g, BlockType t, int32_t k)
{
    Block *out = pt_by_name(g, "op/out"), *op = pt_by_name(g, "op");
    assert_non_null(out);
    assert_non_null(op);
    Edge *e = graph_edge(g, out->out[0].ifaces[0].edge_id);
    assert_non_null(e);
    int32_t es[TIR_NDIMS], sh[TIR_NDIMS] = {0}, osh[TIR_NDIMS] = {0};
    blk_eff_shape(op, es);
    sh[D_Y] = es[D_Y] / k;
    sh[D_X] = es[D_X] / k;
    sh[D_F] = es[D_F];
    sh[D_KY] = sh[D_KX] = k;
    sh[D_IY] = es[D_Y];
    sh[D_IX] = es[D_X];
    memcpy(osh, sh, sizeof osh);
    osh[D_KY] = osh[D_KX] = osh[D_IY] = osh[D_IX] = 0;
    Block *m = enc_block(g, t, "soma", NULL, sh, PR_INT_8);
    Block *s = enc_block(g, BT_SI, "soma", "out", osh, PR_INT_8);
    /* a compute block reads the Soma's result (the last Soma before an OUTPUT is not cut
     * with its Axon block): a ReLU, itself no Axon's Soma */
    int32_t tsh[TIR_NDIMS];
    memcpy(tsh, osh, sizeof tsh);
    tsh[D_KY] = tsh[D_KX] = 1;
    tsh[D_IY] = osh[D_Y];
    tsh[D_IX] = osh[D_X];
    Block *tail = enc_block(g, BT_CCMPB, "tail", NULL, tsh, PR_INT_8);
    Block *ts = enc_block(g, BT_SI, "tail", "out", osh, PR_INT_8);
    assert_non_null(m);
    assert_non_null(s);
    assert_non_null(tail);
    assert_non_null(ts);
    assert_true(blk_set_attr(g, m, AT_STRIDE_Y, k) && blk_set_attr(g, m, AT_STRIDE_X, k));
    assert_true(blk_set_attr(g, m, AT_BIT_SHIFT_NUM, 3));
    assert_true(blk_set_attr(g, m, AT_CMP, t == BT_CCMPB ? -5 : INT32_MAX));
    Block *o = graph_block(g, e->dst);
    insert_soma(g, e, m, s, tail, ts);
    assert_non_null(o);
    memcpy(o->shape.d, osh, sizeof o->shape.d);
    assert_true(graph_compact(g));
    pt_verify(g);
}

static Chip *small_chip(void)
{
    Chip *c = NULL;
    Diag d;
    diag_init(&d, "test");
    assert_int_equal(chip_load_default(&c, &d), ST_OK);
    diag_finish(&d);
    c->core_budget_bytes = 16384;
    c->dest_bytes_per_phase = 4096;
    return c;
}

static void run(Graph *g, const Chip *c, Status (*pass)(Graph *, const PassOptions *, Diag *))
{
    PassOptions o = {.chip = c};
    Diag d;
    diag_init(&d, "test");
    Status st = pass(g, &o, &d);
    if (st != ST_OK)
        diag_print(&d, stderr, "test");
    assert_int_equal(st, ST_OK);
    diag_finish(&d);
    pt_verify(g);
}

/* The groups holding both a compute block of type a and one of type m. */
static uint32_t pairs(const Graph *g, BlockType a, BlockType m)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->n_groups; i++) {
        bool has_a = false, has_m = false;
        for (uint32_t j = 0; j < g->groups[i].n_block_ids; j++) {
            const Block *b = graph_block(g, g->groups[i].block_ids[j]);
            has_a = has_a || (b && b->type == a);
            has_m = has_m || (b && b->type == m);
        }
        n += has_a && has_m;
    }
    return n;
}

/* A convolution too large for a core, its requantization after it: both cut alike, each
 * piece of the one paired with a piece of the other by fuse, same outputs. Without the
 * Soma cut fuse would find no pair where the convolution is cut along y or f: the pieces
 * would write one SI that one Soma reads. */
static void test_follow(void **state)
{
    (void)state;
    Chip *c = small_chip();
    int32_t shapes[][TIR_NDIMS] = {
        {4, 4, 96, 16, 3, 3, 4, 4},   /* weight-heavy: r, and the join pairs */
        {24, 16, 8, 3, 3, 3, 24, 16}, /* activation-heavy: along y, the Soma too */
        {4, 4, 32, 64, 3, 3, 4, 4},   /* 32 channels of too many weights: r, then the join */
        {16, 16, 64, 8, 3, 3, 16, 16}, /* f, then y: the Soma along f, then along y */
        /* a plan of f, y and r: the Soma along f, then (once the joins are made) along y */
        {24, 24, 40, 40, 3, 3, 24, 24},
    };
    static const uint32_t want[] = {1, 3, 1, 4, 8}; /* Soma pieces, at least */
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
        Graph *g = fx_block(BT_CC, shapes[k], PR_INT_32, BIAS_VECTOR, conv3x3, 6, 0);
        add_soma(g, BT_CCMPB, 1);
        int64_t n0, n1;
        int32_t *before = fx_run(g, 1, 7, &n0);
        run(g, c, pass_split);
        uint32_t somas = 0; /* the pieces of 'soma' ('tail' is no Axon block's Soma) */
        for (uint32_t i = 0; i < g->n_blocks; i++)
            somas += g->blocks[i]->name && !strncmp(g->blocks[i]->name, "soma", 4) &&
                     g->blocks[i]->type == BT_CCMPB;
        assert_true(somas >= want[k]);
        /* every Soma piece reads an SI written by one Axon block alone */
        GraphUses u;
        assert_true(graph_uses(g, &u));
        uint32_t followed = 0;
        for (uint32_t i = 0; i < g->n_blocks; i++) {
            Block *s, *b = g->blocks[i];
            followed += bt_info(b->type)->kind == BK_COMPUTE && b->type != BT_CCMPB &&
                        split_soma_after(c, g, &u, b, true, &s) != NULL;
        }
        graph_uses_finish(&u);
        assert_int_equal(followed, somas);
        run(g, c, pass_fuse);
        BlockType axon = pt_count(g, BT_CADD) ? BT_CADD : BT_CC; /* the r joins pair */
        assert_int_equal(pairs(g, axon, BT_CCMPB), somas);
        int32_t *after = fx_run(g, 1, 7, &n1);
        assert_int_equal(n0, n1);
        assert_memory_equal(before, after, (size_t)n0 * sizeof *before);
        free(before), free(after);
        graph_destroy(g);
    }
    chip_destroy(c);
}

/* Max pooling 2 x 2 after the convolution reads across its row bands: it is not followed,
 * split cuts it on its own as it needs, and the graph runs as before. */
static void test_pool_not_followed(void **state)
{
    (void)state;
    Chip *c = small_chip();
    int32_t s[TIR_NDIMS] = {24, 16, 8, 3, 3, 3, 24, 16};
    Graph *g = fx_block(BT_CC, s, PR_INT_32, BIAS_VECTOR, conv3x3, 6, 0);
    add_soma(g, BT_CCMPS, 2);
    int64_t n0, n1;
    int32_t *before = fx_run(g, 1, 9, &n0);
    run(g, c, pass_split);
    assert_true(pt_count(g, BT_CC) > 1);
    GraphUses u;
    assert_true(graph_uses(g, &u));
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        Block *x;
        assert_null(split_soma_after(c, g, &u, g->blocks[i], false, &x));
    }
    graph_uses_finish(&u);
    int32_t *after = fx_run(g, 1, 9, &n1);
    assert_memory_equal(before, after, (size_t)n0 * sizeof *before);
    free(before), free(after);
    graph_destroy(g);
    chip_destroy(c);
}

/* A CLUT of one int8 channel reading a sum's int32 map of 256 pixels writes the row it reads
 * (P07): 32 bytes a pixel, 8192 bytes (4096 in the chip description's 16-byte rows). The
 * share split_soma_share counts for the Soma fuse pairs with the sum is that buffer as
 * chip_buffer_held counts it, the mapper's count, and its table: 8448 bytes (4352 before:
 * test_diff_ops/broadcast_div_case_1_variant_0-4's CADD 'op/bit6/cmp/x0' was left 1216 bytes
 * over a core, map.mem.group, once the mapper counted the larger). */
static void test_lut_share(void **state)
{
    (void)state;
    Chip *c = small_chip();
    int32_t s[TIR_NDIMS] = {1, 256, 1};
    Graph *g = fx_block(BT_CADD, s, PR_INT_32, 0, NULL, 0, 2);
    Block *out = pt_by_name(g, "op/out"), *op = pt_by_name(g, "op");
    Edge *e = graph_edge(g, out->out[0].ifaces[0].edge_id);
    int32_t sh[TIR_NDIMS] = {1, 256, 1}, tsh[TIR_NDIMS] = {1, 256, 1, 0, 1, 1, 1, 256};
    Block *m = enc_block(g, BT_CLUT, "lut", NULL, sh, PR_INT_8);
    Block *ms = enc_block(g, BT_SI, "lut", "out", sh, PR_INT_8);
    Block *tab = enc_block(g, BT_SB, "lut", "tab", (const int32_t[TIR_NDIMS]){0, 0, 256}, PR_INT_8);
    Block *tail = enc_block(g, BT_CCMPB, "tail", NULL, tsh, PR_INT_8);
    Block *ts = enc_block(g, BT_SI, "tail", "out", sh, PR_INT_8);
    assert_true(m && ms && tab && tail && ts);
    int64_t tv[256];
    for (int i = 0; i < 256; i++)
        tv[i] = (i * 37) % 256 - 128;
    assert_true(blk_set_data(g, tab, PR_INT_8, (const int32_t[1]){256}, 1, tv, 256));
    assert_true(blk_set_attr(g, m, AT_LUT_DW, 8));
    assert_non_null(graph_connect(g, tab, 0, m, 1));
    insert_soma(g, e, m, ms, tail, ts);
    assert_true(graph_compact(g));
    pt_verify(g);
    GraphUses u;
    assert_true(graph_uses(g, &u));
    Block *x;
    op = pt_by_name(g, "op");
    m = pt_by_name(g, "lut");
    assert_ptr_equal(split_soma_after(c, g, &u, op, false, &x), m);
    int32_t es[TIR_NDIMS];
    blk_eff_shape(op, es);
    int64_t share;
    assert_true(split_soma_share(c, g, &u, op, es, &share));
    long mp = graph_block_pos(g, m->id);
    assert_int_equal(chip_output_bytes(c, m), 4096);
    assert_int_equal(chip_buffer_held(c, g, &u, (uint32_t)mp, NULL), 8192);
    assert_int_equal(share, 8192 + 256);
    graph_uses_finish(&u);
    graph_destroy(g);
    chip_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_follow),
        cmocka_unit_test(test_pool_not_followed),
        cmocka_unit_test(test_lut_share),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
