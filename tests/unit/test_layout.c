/* test_layout.c: the layout table of feature maps (taskir/layout.h) that the mapper
 * (bbox_storage_bytes, chip_storage_bytes) and the code generator (backend/emit_plan.c)
 * share, every figure worked out by hand in the comments from the table in layout.h:
 * a pixel's channels rounded up to 16 bytes (Soma, P41 / P04 inputs), one 32-byte group
 * (P02, P03, P43, P83) or 128 bytes (an int32 output of P41 / P04 / P81). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "graphbuild.h"

#include "taskir/blockbox.h"
#include "taskir/chip_cost.h"
#include "taskir/lanes.h"
#include "taskir/layout.h"
#include "taskir/layout_buf.h"
#include "taskir/premove.h"
#include "taskir/sockbox.h"

static Block *blk(Graph *g, BlockType t, PrecisionId p, int32_t y, int32_t x, int32_t f,
                  int32_t r)
{
    int32_t s[TIR_NDIMS] = {y, x, f, r, 0, 0, 0, 0};
    if (bt_info(t)->kind == BK_COMPUTE && t != BT_CVM) { /* a 1 x 1 window: iy, ix = y, x */
        s[6] = y;
        s[7] = x;
    }
    return tg_blk(g, t, NULL, p, s);
}

/* Joins b[i] -> b[i + 1] (output 0 to input 0) along the n blocks. */
static void join_chain(Graph *g, Block *const *b, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++)
        tg_join(g, b[i], 0, b[i + 1], 0);
}

/* join_chain, the last block (a CVVH) reading the map before it as both inputs (C * C);
 * the index use u built over it. */
static void chain_squared(Graph *g, Block *const *b, size_t n, GraphUses *u)
{
    join_chain(g, b, n);
    tg_join(g, b[n - 2], 0, b[n - 1], 1);
    assert_true(graph_uses(g, u));
}

/* The built-in chip description (tests fail when it does not load). */
static Chip *default_chip(void)
{
    Chip *chip;
    Diag dg;
    diag_init(&dg, NULL);
    assert_int_equal(chip_load_default(&chip, &dg), ST_OK);
    diag_finish(&dg);
    return chip;
}

/* Gives edge ed one RT_SCALE rearrangement of factors fy, fx, ff along y, x and f. */
static void scale_edge(Graph *g, Edge *ed, int32_t fy, int32_t fx, int32_t ff)
{
    Rearrange *r = edge_add_rearrange(g, ed, RT_SCALE, 1);
    assert_non_null(r);
    int32_t factors[3] = {fy, fx, ff}, d[1] = {3};
    assert_true(tensor_set_i32(g, &r->mats[0], d, 1, factors, 3));
}

static void test_units(void **state)
{
    (void)state;
    /* channels = bytes * 8 / bits: 16 B is 16 int8, 64 ternary, 4 int32; 32 B is 32 int8,
     * 128 ternary, 8 int32; 128 B is 32 int32 */
    assert_int_equal(layout_unit(PR_INT_8, LAYOUT_SOMA), 16);
    assert_int_equal(layout_unit(PR_UINT_8, LAYOUT_ROW16), 16);
    assert_int_equal(layout_unit(PR_INT_8, LAYOUT_GROUP), 32);
    assert_int_equal(layout_unit(PR_TERNARY, LAYOUT_ROW16), 64);
    assert_int_equal(layout_unit(PR_TERNARY, LAYOUT_GROUP), 128);
    assert_int_equal(layout_unit(PR_INT_32, LAYOUT_SOMA), 4);
    assert_int_equal(layout_unit(PR_INT_32, LAYOUT_GROUP), 8);
    assert_int_equal(layout_unit(PR_INT_32, LAYOUT_AXON), 32);
    /* several uses: the largest; none: the Soma's */
    assert_int_equal(layout_unit(PR_INT_32, LAYOUT_SOMA | LAYOUT_GROUP), 8);
    assert_int_equal(layout_unit(PR_INT_32, LAYOUT_GROUP | LAYOUT_AXON), 32);
    assert_int_equal(layout_unit(PR_INT_8, 0), 16);
    /* no layout on the chip */
    assert_int_equal(layout_unit(PR_INT_16, LAYOUT_SOMA), 0);
    /* the primitives */
    assert_int_equal(layout_use_of(BT_CC, true), LAYOUT_ROW16);
    assert_int_equal(layout_use_of(BT_CC, false), LAYOUT_AXON);
    assert_int_equal(layout_use_of(BT_CVM, true), LAYOUT_ROW16);
    assert_int_equal(layout_use_of(BT_CC2D, true), 0);
    assert_int_equal(layout_use_of(BT_CADD, true), LAYOUT_GROUP);
    assert_int_equal(layout_use_of(BT_CVS, false), LAYOUT_GROUP);
    assert_int_equal(layout_use_of(BT_CCMPB, true), LAYOUT_SOMA);
    assert_int_equal(layout_use_of(BT_CLUT, false), LAYOUT_SOMA);
    assert_int_equal(layout_use_of(BT_SI, true), 0);
}

static void test_map_bytes(void **state)
{
    (void)state;
    /* 28 x 28 pixels of 6 int8 channels in 16-byte rows: 784 * 16 = 12544 */
    assert_int_equal(layout_map_bytes(PR_INT_8, 28, 28, 6, 16), 12544);
    /* 8 x 8 of 8 int32 channels, unit 32: 64 * 128 = 8192; unit 8: 64 * 32 = 2048 */
    assert_int_equal(layout_map_bytes(PR_INT_32, 8, 8, 8, 32), 8192);
    assert_int_equal(layout_map_bytes(PR_INT_32, 8, 8, 8, 8), 2048);
    /* 2 x 3 of 10 ternary channels, unit 64: 64 * 2 bits = 16 B a pixel, 96 */
    assert_int_equal(layout_map_bytes(PR_TERNARY, 2, 3, 10, 64), 96);
    assert_int_equal(layout_map_bytes(PR_INT_16, 2, 3, 10, 16), -1);
    assert_int_equal(layout_map_bytes(PR_INT_32, (int64_t)1 << 40, (int64_t)1 << 40, 8, 8), -1);
}

/* P81's stored left padding: a whole number of words (4 columns), reached by widening the
 * kernel by t columns of dilation dx: pad 1 -> 4 (t 3), pad 4 -> 4 (t 0), pad 2 with
 * dilation 2 -> 4 (t 1); pad 1 with dilation 2 has no t (odd + even steps): the kernel
 * runs undilated, its taps spread out, so t 3 columns of dilation 1 (test_diff_ops/
 * conv2d_case_2: emit.layout before); pad 3 with dilation 4 likewise, t 1 */
static void test_p81_left(void **state)
{
    (void)state;
    int32_t t = -1;
    assert_int_equal(layout_p81_left(1, 1, &t), 4);
    assert_int_equal(t, 3);
    assert_int_equal(layout_p81_left(0, 1, &t), 0);
    assert_int_equal(t, 0);
    assert_int_equal(layout_p81_left(4, 3, &t), 4);
    assert_int_equal(t, 0);
    assert_int_equal(layout_p81_left(2, 2, &t), 4);
    assert_int_equal(t, 1);
    assert_int_equal(layout_p81_left(5, 3, &t), 8);
    assert_int_equal(t, 1);
    assert_int_equal(layout_p81_left(1, 2, &t), 4);
    assert_int_equal(t, 3);
    assert_int_equal(layout_p81_left(3, 4, &t), 4);
    assert_int_equal(t, 1);
    assert_int_equal(layout_p81_dilation(1, 2), 1);
    assert_int_equal(layout_p81_dilation(3, 4), 1);
    assert_int_equal(layout_p81_dilation(2, 2), 2);
    assert_int_equal(layout_p81_dilation(5, 3), 3);
    assert_int_equal(layout_p81_dilation(0, 1), 1);
    assert_int_equal(layout_p81_left(-1, 1, &t), -1);
}

/* CC (16 x 16 x 8 int32 out) -> A -> CADD of A + A -> B (int32) -> CCMPB -> C (int8) -> CC2;
 * A -> CADD of one input -> D; an int8 E read by a CVVH. */
/* A map an INPUT writes whole takes a pitch a dynamic block's alignment gives (8, 16 or 32
 * elements, or the channels as they are): int32 pixels of 1 channel read by P05 (4) take 8,
 * of 4 channels keep 4 (the channels are the pitch), of 9 take 16 (12 is no alignment; a
 * pitch of 8 rounds 9 up to 16, which ALIGN_16 gives); int8 keeps its 16. A map only a
 * compute block writes keeps 4. */
static void test_input_pitch(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    int32_t f[4] = {1, 4, 9, 1};
    PrecisionId p[4] = {PR_INT_32, PR_INT_32, PR_INT_32, PR_INT_8};
    int want[4] = {8, 4, 8, 16};
    Block *s[4];
    for (int i = 0; i < 4; i++) {
        Block *in = blk(g, BT_INPUT, p[i], 2, 3, f[i], 0);
        s[i] = blk(g, BT_SI, p[i], 2, 3, f[i], 0);
        Block *relu = blk(g, BT_CCMPB, p[i], 2, 3, f[i], 0);
        tg_join(g, in, 0, s[i], 0);
        tg_join(g, s[i], 0, relu, 0);
    }
    Block *relu = blk(g, BT_CCMPB, PR_INT_32, 2, 3, 1, 0);
    Block *y = blk(g, BT_SI, PR_INT_32, 2, 3, 1, 0);
    Block *relu2 = blk(g, BT_CCMPB, PR_INT_32, 2, 3, 1, 0);
    tg_join(g, s[0], 0, relu, 0);
    tg_join(g, relu, 0, y, 0);
    tg_join(g, y, 0, relu2, 0);
    GraphUses u;
    assert_true(graph_uses(g, &u));
    for (int i = 0; i < 4; i++)
        assert_int_equal(layout_storage_unit(g, &u, (uint32_t)graph_block_pos(g, s[i]->id)),
                         want[i]);
    assert_int_equal(layout_storage_unit(g, &u, (uint32_t)graph_block_pos(g, y->id)), 4);
    graph_uses_finish(&u);
    graph_destroy(g);
}

static void test_storage_units(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    Block *cc = blk(g, BT_CC, PR_INT_32, 16, 16, 8, 8);
    Block *a = blk(g, BT_SI, PR_INT_32, 16, 16, 8, 0);
    Block *twice = blk(g, BT_CADD, PR_INT_32, 16, 16, 8, 0);
    Block *b = blk(g, BT_SI, PR_INT_32, 16, 16, 8, 0);
    Block *relu = blk(g, BT_CCMPB, PR_INT_8, 16, 16, 8, 0);
    Block *c = blk(g, BT_SIC, PR_INT_8, 16, 16, 0, 8);
    Block *cc2 = blk(g, BT_CC, PR_INT_32, 16, 16, 8, 8);
    Block *once = blk(g, BT_CADD, PR_INT_32, 16, 16, 8, 0);
    Block *d = blk(g, BT_SI, PR_INT_32, 16, 16, 8, 0);
    Block *e = blk(g, BT_SI, PR_INT_8, 4, 4, 8, 0);
    Block *vv = blk(g, BT_CVVH, PR_INT_32, 4, 4, 8, 0);
    tg_join(g, cc, 0, a, 0);
    tg_join(g, a, 0, twice, 0);
    tg_join(g, a, 0, twice, 1);
    tg_join(g, twice, 0, b, 0);
    tg_join(g, b, 0, relu, 0);
    tg_join(g, relu, 0, c, 0);
    tg_join(g, c, 0, cc2, 0);
    tg_join(g, a, 0, once, 0);
    tg_join(g, once, 0, d, 0);
    tg_join(g, e, 0, vv, 0);
    tg_join(g, e, 0, vv, 1);
    GraphUses u;
    assert_true(graph_uses(g, &u));
    long pa = graph_block_pos(g, a->id), pb = graph_block_pos(g, b->id);
    long pc = graph_block_pos(g, c->id), pd = graph_block_pos(g, d->id);
    long pe = graph_block_pos(g, e->id), ptw = graph_block_pos(g, twice->id);
    long pon = graph_block_pos(g, once->id);
    /* A: written by P41 (int32 groups of 32 channels), read by P02 (8): 32 */
    assert_int_equal(layout_storage_unit(g, &u, (uint32_t)pa), 32);
    /* B: written by the CADD of A + A, which P83 runs on A where it lies (A's pitch is whole
     * 32-byte groups) and so writes A's pitch; read by P05 (4): 32 */
    assert_true(layout_repeat_scales(g, &u, (uint32_t)ptw));
    assert_int_equal(layout_storage_unit(g, &u, (uint32_t)pb), 32);
    assert_int_equal(layout_output_unit(g, &u, (uint32_t)ptw, PR_INT_32), 32);
    /* D: written by a CADD of one input, which reads A's pitch 32 and writes it */
    assert_int_equal(layout_storage_unit(g, &u, (uint32_t)pd), 32);
    assert_int_equal(layout_output_unit(g, &u, (uint32_t)pon, PR_INT_32), 32);
    /* C: int8 written by P05, read by P41: 16; E: int8 read by P03: 32 */
    assert_int_equal(layout_storage_unit(g, &u, (uint32_t)pc), 16);
    assert_int_equal(layout_storage_unit(g, &u, (uint32_t)pe), 32);
    /* no repeated area: P83 reads A */
    long src = -1;
    assert_int_equal(layout_repeats(g, &u, (uint32_t)ptw, &src), 2);
    assert_int_equal(src, pa);
    assert_int_equal(layout_repeat_bytes(g, &u, (uint32_t)ptw), 0);
    assert_int_equal(layout_repeats(g, &u, (uint32_t)pon, &src), 0);
    assert_int_equal(layout_repeat_bytes(g, &u, (uint32_t)pon), 0);
    /* the mapper's bytes of the same maps: A 256 * 128 = 32768, B 256 * 128 = 32768, C 256 *
     * 16 = 4096, E 16 * 32 = 512 */
    Chip *chip = default_chip();
    assert_int_equal(bbox_storage_bytes(chip, g, &u, (uint32_t)pa), 32768);
    assert_int_equal(bbox_storage_bytes(chip, g, &u, (uint32_t)pb), 32768);
    assert_int_equal(bbox_storage_bytes(chip, g, &u, (uint32_t)pc), 4096);
    assert_int_equal(bbox_storage_bytes(chip, g, &u, (uint32_t)pe), 512);
    /* chip_storage_bytes, which knows only the consumer: E for P03 in 32-byte groups too */
    assert_int_equal(chip_storage_bytes(chip, e, vv), 512);
    chip_destroy(chip);
    graph_uses_finish(&u);
    graph_destroy(g);
}

/* A map S written by 24 CLUTs (the pieces of a cut table lookup), each reading its own map
 * of indices, and read by a P02: S takes P02's 32 int8 channels, and each index map the
 * same pitch (P07 writes a row as long as the one it reads). Each CLUT's row asks its input's
 * pitch, whose need asks back S's pitch, whose other writers ask their inputs'...: without
 * the asking CLUT left out, that walk takes 23^8 steps. */
static void test_lut_fan(void **state)
{
    (void)state;
    enum { N = 24 };
    Graph *g = graph_create();
    assert_non_null(g);
    Block *s = blk(g, BT_SI, PR_UINT_8, 1, N, 16, 0);
    Block *add = blk(g, BT_CADD, PR_INT_32, 1, N, 16, 0);
    tg_join(g, s, 0, add, 0);
    Block *in[N];
    for (int i = 0; i < N; i++) {
        in[i] = blk(g, BT_SI, PR_INT_8, 1, 1, 16, 0);
        Block *lut = blk(g, BT_CLUT, PR_UINT_8, 1, 1, 16, 0);
        tg_join(g, in[i], 0, lut, 0);
        tg_join(g, lut, 0, s, 0);
    }
    GraphUses u;
    assert_true(graph_uses(g, &u));
    assert_int_equal(layout_storage_unit(g, &u, (uint32_t)graph_block_pos(g, s->id)), 32);
    for (int i = 0; i < N; i++)
        assert_int_equal(layout_storage_unit(g, &u, (uint32_t)graph_block_pos(g, in[i]->id)),
                         32);
    graph_uses_finish(&u);
    graph_destroy(g);
}

/* A CLUT's output buffer (taskir/layout_buf.h): P07 writes the row it reads, so a CLUT of
 * one int32 channel reading an int8 map of 16-byte pixels writes 16 int32 lanes a pixel: 18
 * pixels * 64 = 1152 bytes, which the code generator lays out (backend/emit_plan.c
 * make_outs), where the chip description's 16-byte alignment (chip_output_bytes) gives
 * 18 * 16 = 288 (test_diff_ops/broadcast_div_case_1_variant_2-3's `op/hi`: 61056 bytes,
 * counted as 15264 by the mapper, the split and map.mem.core before). Every count reads
 * chip_buffer_held, the larger: 1152, chip_group_mem's output too; a piece of 9 of its
 * pixels (a stand-in, as the split figures one) 576. A CCMPB of 8 int8 channels writes its
 * 16-byte rows: 4 * 16 = 64, and one of one int8 channel 18 * 16 = 288, all ways. A CLIF's
 * buffer is counted with its neuron states (chip_output_bytes: 4 pixels * (16 + 32) =
 * 192), which the code generator places apart. */
static void test_buffer_bytes(void **state)
{
    (void)state;
    Chip *chip = default_chip();
    Graph *g = graph_create();
    Block *in = blk(g, BT_SI, PR_INT_8, 1, 18, 1, 0);
    Block *lut = blk(g, BT_CLUT, PR_INT_32, 1, 18, 1, 0);
    Block *t = blk(g, BT_SI, PR_INT_32, 1, 18, 1, 0);
    Block *c = blk(g, BT_CCMPB, PR_INT_8, 1, 18, 1, 0);
    Block *o = blk(g, BT_SI, PR_INT_8, 1, 18, 1, 0);
    Block *x = blk(g, BT_SI, PR_INT_8, 1, 4, 8, 0);
    Block *m = blk(g, BT_CCMPB, PR_INT_8, 1, 4, 8, 0);
    Block *y = blk(g, BT_SI, PR_INT_8, 1, 4, 8, 0);
    join_chain(g, (Block *const[]){in, lut, t, c, o}, 5);
    join_chain(g, (Block *const[]){x, m, y}, 3);
    GraphUses u;
    assert_true(graph_uses(g, &u));
    uint32_t lp = (uint32_t)graph_block_pos(g, lut->id), mp = (uint32_t)graph_block_pos(g, m->id);
    PrecisionId p;
    assert_int_equal(layout_buffer_unit(g, &u, lp, &p), 16);
    assert_int_equal(p, PR_INT_32);
    assert_int_equal(layout_buffer_bytes(g, &u, lp), 1152);
    assert_int_equal(chip_output_bytes(chip, lut), 288);
    assert_int_equal(chip_buffer_held(chip, g, &u, lp, NULL), 1152);
    GroupMem gm;
    assert_true(chip_group_mem(chip, g, &u, lut, &gm));
    assert_int_equal(gm.output, 1152);
    Block piece = *lut;
    piece.shape.d[D_X] = 9;
    assert_int_equal(chip_buffer_held(chip, g, &u, lp, &piece), 576);
    assert_int_equal(layout_buffer_bytes(g, &u, mp), 64);
    assert_int_equal(chip_output_bytes(chip, m), 64);
    assert_int_equal(chip_buffer_held(chip, g, &u, mp, NULL), 64);
    uint32_t cp = (uint32_t)graph_block_pos(g, c->id);
    assert_int_equal(layout_buffer_bytes(g, &u, cp), 18 * 16);
    assert_int_equal(chip_output_bytes(chip, c), 18 * 16);
    assert_int_equal(chip_buffer_held(chip, g, &u, cp, NULL), 18 * 16);
    graph_uses_finish(&u);
    Block *li = blk(g, BT_SI, PR_INT_8, 1, 4, 8, 0);
    Block *lif = blk(g, BT_CLIF, PR_INT_8, 1, 4, 8, 0);
    join_chain(g, (Block *const[]){li, lif, blk(g, BT_SI, PR_INT_8, 1, 4, 8, 0)}, 3);
    assert_true(graph_uses(g, &u));
    uint32_t fp = (uint32_t)graph_block_pos(g, lif->id);
    assert_int_equal(chip_output_bytes(chip, lif), 192);
    assert_int_equal(chip_buffer_held(chip, g, &u, fp, NULL), 192);
    graph_uses_finish(&u);
    graph_destroy(g);
    chip_destroy(chip);
}

/* A model input that only CLIFs read is laid out as P08 reads it (backend/emit_p08.c):
 * int32 words, one a channel, whatever its precision: 2 x 3 pixels of 10 INT_8 channels
 * take 6 * 10 * 4 = 240 bytes (the int8 layout of 16-byte pixel rows would be 96). Read
 * by a CCMPB too it keeps that layout: 6 * 16 = 96. */
static void test_clif_input(void **state)
{
    (void)state;
    Chip *chip = default_chip();
    for (int cmp = 0; cmp <= 1; cmp++) {
        Graph *g = graph_create();
        Block *in = blk(g, BT_INPUT, PR_INT_8, 2, 3, 10, 0);
        Block *x = blk(g, BT_SI, PR_INT_8, 2, 3, 10, 0);
        Block *lif = blk(g, BT_CLIF, PR_INT_8, 2, 3, 10, 0);
        tg_join(g, in, 0, x, 0);
        tg_join(g, x, 0, lif, 0);
        if (cmp)
            tg_join(g, x, 0, blk(g, BT_CCMPB, PR_INT_8, 2, 3, 10, 0), 0);
        GraphUses u;
        assert_true(graph_uses(g, &u));
        assert_int_equal(bbox_storage_bytes(chip, g, &u, (uint32_t)graph_block_pos(g, x->id)),
                         cmp ? 96 : 240);
        graph_uses_finish(&u);
        graph_destroy(g);
    }
    chip_destroy(chip);
}

/* The send areas (backend/emit_sendbuf.c) the mapper counts: a CADD's int32 buffer sent
 * into an int8 map N (2 x 3 pixels of 4 channels; P02 writes N, so its pitch is the 32-byte
 * group: 6 * 32 = 192 bytes); the same CADD into an int32 map M needs none; a CCMPB writing
 * the int8 map it is in needs none. */
static void test_send_bytes(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    Block *k = blk(g, BT_SI, PR_INT_8, 2, 3, 4, 0);
    Block *add8 = blk(g, BT_CADD, PR_INT_32, 2, 3, 4, 0);
    Block *n = blk(g, BT_SI, PR_INT_8, 2, 3, 4, 0);
    Block *add32 = blk(g, BT_CADD, PR_INT_32, 2, 3, 4, 0);
    Block *m = blk(g, BT_SI, PR_INT_32, 2, 3, 4, 0);
    Block *relu = blk(g, BT_CCMPB, PR_INT_8, 2, 3, 4, 0);
    Block *o = blk(g, BT_SI, PR_INT_8, 2, 3, 4, 0);
    tg_join(g, k, 0, add8, 0);
    tg_join(g, add8, 0, n, 0);
    tg_join(g, k, 0, add32, 0);
    tg_join(g, add32, 0, m, 0);
    tg_join(g, m, 0, relu, 0);
    tg_join(g, relu, 0, o, 0);
    GraphUses u;
    assert_true(graph_uses(g, &u));
    uint32_t p8 = (uint32_t)graph_block_pos(g, add8->id);
    assert_int_equal(layout_storage_unit(g, &u, (uint32_t)graph_block_pos(g, n->id)), 32);
    assert_int_equal(layout_send_bytes(g, &u, p8), 192);
    /* the CADD also narrows (an Axon writing an 8-bit map): its int32 area, 6 pixels of 32
     * int32 channels = 768 bytes, stands for the send area too */
    assert_int_equal(layout_work_bytes(g, &u, p8), 768);
    assert_int_equal(layout_send_bytes(g, &u, (uint32_t)graph_block_pos(g, add32->id)), 0);
    assert_int_equal(layout_send_bytes(g, &u, (uint32_t)graph_block_pos(g, relu->id)), 0);
    graph_uses_finish(&u);
    graph_destroy(g);
}

/* Input iface k of block b: a box of n along dim d (D_Y, D_X or D_F) from at, all of the
 * other two. */
static void in_span(Block *b, uint32_t k, int d, int32_t at, int32_t n)
{
    Iface *i = &b->in[0].ifaces[k];
    i->has_pos = at > 0;
    i->pos.d[d] = at;
    i->has_size = true;
    i->size.d[D_Y] = b->shape.d[D_Y];
    i->size.d[D_X] = b->shape.d[D_X];
    i->size.d[D_F] = b->shape.d[D_F];
    i->size.d[d] = n;
}

/* Input iface k of block b: a box of f channels from channel at (all of y and x). */
static void in_box(Block *b, uint32_t k, int32_t at, int32_t f)
{
    in_span(b, k, D_F, at, f);
}

/* Input iface k of block b: a box of n rows from row at (all of x and the channels). */
static void in_rows(Block *b, uint32_t k, int32_t at, int32_t n)
{
    in_span(b, k, D_Y, at, n);
}

/* a and b (each of s's rows and channels, half its columns) write the left and the right
 * half of s: its input ifaces 0 and 1. */
static void column_pieces(Graph *g, Block *a, Block *b, Block *s)
{
    tg_join(g, a, 0, s, 0);
    tg_join(g, b, 0, s, 0);
    for (uint32_t k = 0; k < 2; k++)
        in_span(s, k, D_X, (int32_t)k * s->shape.d[D_X] / 2, s->shape.d[D_X] / 2);
}

/* An int32 map that only an OUTPUT reads, gathered from the pieces two P03s write from
 * 8-bit maps (a CVVH cut along x): each CVVH writes 32 int32 words a pixel (its 8-bit
 * input's pitch, one 32-byte group), but the map takes the Soma's 16-byte rows, 4 channels
 * a pixel (layout_soma_rows), and each writer's send area in that pitch counts: 3 x 5
 * pixels x 4 words = 240 bytes. A map one such CVVH writes whole, read by a CCMPB, takes
 * the rows the CVVH carries (32), and pieces of CVSs of int32 maps carry 8, a group:
 * neither lies in the Soma's rows. */
static void test_soma_rows(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    Block *x = blk(g, BT_SI, PR_INT_8, 3, 5, 2, 0);
    Block *mul = blk(g, BT_CVVH, PR_INT_32, 3, 5, 2, 0);
    Block *x1 = blk(g, BT_SI, PR_INT_8, 3, 5, 2, 0);
    Block *mul1 = blk(g, BT_CVVH, PR_INT_32, 3, 5, 2, 0);
    Block *y = blk(g, BT_SI, PR_INT_32, 3, 10, 2, 0);
    Block *out = blk(g, BT_OUTPUT, PR_INT_32, 3, 10, 2, 0);
    Block *a = blk(g, BT_SI, PR_INT_8, 3, 5, 2, 0);
    Block *mul2 = blk(g, BT_CVVH, PR_INT_32, 3, 5, 2, 0);
    Block *z = blk(g, BT_SI, PR_INT_32, 3, 5, 2, 0);
    Block *relu = blk(g, BT_CCMPB, PR_INT_32, 3, 5, 2, 0);
    Block *zr = blk(g, BT_SI, PR_INT_32, 3, 5, 2, 0);
    Block *w = blk(g, BT_SI, PR_INT_32, 3, 5, 2, 0);
    Block *scale = blk(g, BT_CVS, PR_INT_32, 3, 5, 2, 0);
    Block *w1 = blk(g, BT_SI, PR_INT_32, 3, 5, 2, 0);
    Block *scale1 = blk(g, BT_CVS, PR_INT_32, 3, 5, 2, 0);
    Block *v = blk(g, BT_SI, PR_INT_32, 3, 10, 2, 0);
    Block *vout = blk(g, BT_OUTPUT, PR_INT_32, 3, 10, 2, 0);
    tg_join(g, x, 0, mul, 0);
    tg_join(g, x, 0, mul, 1);
    tg_join(g, x1, 0, mul1, 0);
    tg_join(g, x1, 0, mul1, 1);
    column_pieces(g, mul, mul1, y);
    tg_join(g, y, 0, out, 0);
    tg_join(g, a, 0, mul2, 0);
    tg_join(g, a, 0, mul2, 1);
    tg_join(g, mul2, 0, z, 0);
    tg_join(g, z, 0, relu, 0);
    tg_join(g, relu, 0, zr, 0);
    tg_join(g, w, 0, scale, 0);
    tg_join(g, w1, 0, scale1, 0);
    column_pieces(g, scale, scale1, v);
    tg_join(g, v, 0, vout, 0);
    GraphUses u;
    assert_true(graph_uses(g, &u));
    uint32_t py = (uint32_t)graph_block_pos(g, y->id), pm = (uint32_t)graph_block_pos(g, mul->id);
    assert_int_equal(layout_output_unit(g, &u, pm, PR_INT_32), 32);
    assert_true(layout_soma_rows(g, &u, py));
    assert_int_equal(layout_storage_unit(g, &u, py), 4);
    assert_int_equal(layout_send_bytes(g, &u, pm), 240);
    uint32_t pz = (uint32_t)graph_block_pos(g, z->id);
    assert_false(layout_soma_rows(g, &u, pz));
    assert_int_equal(layout_storage_unit(g, &u, pz), 32);
    assert_int_equal(layout_send_bytes(g, &u, (uint32_t)graph_block_pos(g, mul2->id)), 0);
    uint32_t pv = (uint32_t)graph_block_pos(g, v->id);
    assert_false(layout_soma_rows(g, &u, pv));
    assert_int_equal(layout_storage_unit(g, &u, pv), 8);
    assert_false(layout_soma_rows(g, &u, (uint32_t)graph_block_pos(g, x->id)));
    graph_uses_finish(&u);
    graph_destroy(g);
}

/* A P07 writes rows as long as it reads; a P05 reads at least the pitch it writes, less a
 * 16-byte row: CC -> A (int32) -> CLUT (int32 table) -> T; M (int32, written by a CCMPB) ->
 * CCMPB -> Y (int8) -> CVVH; N (int32) -> CCMPB -> Z (int8) -> CC. */
static void test_row_rules(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    Block *cc = blk(g, BT_CC, PR_INT_32, 4, 4, 8, 8);
    Block *a = blk(g, BT_SI, PR_INT_32, 4, 4, 8, 0);
    Block *lut = blk(g, BT_CLUT, PR_INT_32, 4, 4, 8, 0);
    Block *t = blk(g, BT_SI, PR_INT_32, 4, 4, 8, 0);
    Block *mk = blk(g, BT_CCMPB, PR_INT_32, 4, 4, 8, 0);
    Block *m = blk(g, BT_SI, PR_INT_32, 4, 4, 8, 0);
    Block *q = blk(g, BT_CCMPB, PR_INT_8, 4, 4, 8, 0);
    Block *y = blk(g, BT_SI, PR_INT_8, 4, 4, 8, 0);
    Block *vv = blk(g, BT_CVVH, PR_INT_32, 4, 4, 8, 0);
    Block *n = blk(g, BT_SI, PR_INT_32, 4, 4, 8, 0);
    Block *q2 = blk(g, BT_CCMPB, PR_INT_8, 4, 4, 8, 0);
    Block *z = blk(g, BT_SIC, PR_INT_8, 4, 4, 0, 8);
    Block *cc2 = blk(g, BT_CC, PR_INT_32, 4, 4, 8, 8);
    tg_join(g, cc, 0, a, 0);
    tg_join(g, a, 0, lut, 0);
    tg_join(g, lut, 0, t, 0);
    tg_join(g, mk, 0, m, 0);
    tg_join(g, m, 0, q, 0);
    tg_join(g, q, 0, y, 0);
    tg_join(g, y, 0, vv, 0);
    tg_join(g, y, 0, vv, 1);
    tg_join(g, n, 0, q2, 0);
    tg_join(g, q2, 0, z, 0);
    tg_join(g, z, 0, cc2, 0);
    GraphUses u;
    assert_true(graph_uses(g, &u));
    /* T: P07 reads A's rows of 32 int32 channels (P41's groups): 8 channels round up to 32,
     * padded to 4 (int32 in, int32 table): 32 */
    assert_int_equal(layout_storage_unit(g, &u, (uint32_t)graph_block_pos(g, t->id)), 32);
    assert_int_equal(layout_output_unit(g, &u, (uint32_t)graph_block_pos(g, lut->id),
                                        PR_INT_32), 32);
    /* Y: int8 read by P03, 32; M: P05 must read more than 32 - 16 = 16 int32 channels a
     * pixel, so 4 (the Soma's) doubles to 32 */
    assert_int_equal(layout_storage_unit(g, &u, (uint32_t)graph_block_pos(g, y->id)), 32);
    assert_int_equal(layout_storage_unit(g, &u, (uint32_t)graph_block_pos(g, m->id)), 32);
    /* Z: int8 read by P41, 16 = one 16-byte row; N needs nothing more than the Soma's 4 */
    assert_int_equal(layout_storage_unit(g, &u, (uint32_t)graph_block_pos(g, z->id)), 16);
    assert_int_equal(layout_storage_unit(g, &u, (uint32_t)graph_block_pos(g, n->id)), 4);
    graph_uses_finish(&u);
    graph_destroy(g);
}

/* A P05 / P25 reads at least the pitch of every map it writes, less a 16-byte row, not only
 * the first's: X (int32, 3 x 5 x 7) -> CCMPS -> A (int32, no other user: the Soma's 4) and
 * -> B (int32) -> CCMPB -> Y (int8, read by P83: 32). B: P05 must read more than 32 - 16 =
 * 16 int32 channels, 32; X: P25 writes B's 32, so more than 32 - 4 = 28, 32 (8 when only A,
 * its first map, counted: test_diff_ops/cvm_right_shift_P_32_s_15_p_13, emit.layout, "writes
 * INT_32 pixels of 32 channels from pixels of 8"). */
static void test_cmp_two_maps(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    Block *x = blk(g, BT_SI, PR_INT_32, 3, 5, 7, 0);
    Block *mn = blk(g, BT_CCMPS, PR_INT_32, 3, 5, 7, 0);
    Block *a = blk(g, BT_SI, PR_INT_32, 3, 5, 7, 0);
    Block *b = blk(g, BT_SI, PR_INT_32, 3, 5, 7, 0);
    Block *q = blk(g, BT_CCMPB, PR_INT_8, 3, 5, 7, 0);
    Block *y = blk(g, BT_SI, PR_INT_8, 3, 5, 7, 0);
    Block *vs = blk(g, BT_CVS, PR_INT_32, 3, 5, 7, 0);
    Block *z = blk(g, BT_SI, PR_INT_32, 3, 5, 7, 0);
    tg_join(g, x, 0, mn, 0);
    tg_join(g, mn, 0, a, 0);
    tg_join(g, mn, 0, b, 0);
    tg_join(g, b, 0, q, 0);
    tg_join(g, q, 0, y, 0);
    tg_join(g, y, 0, vs, 0);
    tg_join(g, vs, 0, z, 0);
    GraphUses u;
    assert_true(graph_uses(g, &u));
    assert_int_equal(layout_storage_unit(g, &u, (uint32_t)graph_block_pos(g, y->id)), 32);
    assert_int_equal(layout_storage_unit(g, &u, (uint32_t)graph_block_pos(g, b->id)), 32);
    assert_int_equal(layout_storage_unit(g, &u, (uint32_t)graph_block_pos(g, a->id)), 4);
    assert_int_equal(layout_storage_unit(g, &u, (uint32_t)graph_block_pos(g, x->id)), 32);
    graph_uses_finish(&u);
    graph_destroy(g);
}

/* A CLUT whose own need raises its input's pitch writes rows of that pitch: X (int8, 2 x 1 x
 * 47) -> CLUT -> Y (int8) read by P03 (CVVH, both inputs): Y takes the group unit, 32; P07
 * writes a row as long as the one it reads, so X needs a pitch of 32 too (16, the Soma's,
 * doubled): 47 channels read in 64, and the CLUT writes rows of 64 (47 rounded up to X's
 * 32, padded to 16), not the 48 of X's pitch without its need (test_diff_ops/
 * broadcast_div_case_2_variant_0: emit.layout, "reads pixels of 64 channels and writes
 * pixels of 48"). */
static void test_lut_need_row(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    Block *x = blk(g, BT_SI, PR_INT_8, 2, 1, 47, 0);
    Block *lut = blk(g, BT_CLUT, PR_INT_8, 2, 1, 47, 0);
    Block *y = blk(g, BT_SI, PR_INT_8, 2, 1, 47, 0);
    Block *vv = blk(g, BT_CVVH, PR_INT_32, 2, 1, 47, 0);
    tg_join(g, x, 0, lut, 0);
    tg_join(g, lut, 0, y, 0);
    tg_join(g, y, 0, vv, 0);
    tg_join(g, y, 0, vv, 1);
    GraphUses u;
    assert_true(graph_uses(g, &u));
    assert_int_equal(layout_storage_unit(g, &u, (uint32_t)graph_block_pos(g, y->id)), 64);
    assert_int_equal(layout_storage_unit(g, &u, (uint32_t)graph_block_pos(g, x->id)), 32);
    assert_int_equal(layout_output_unit(g, &u, (uint32_t)graph_block_pos(g, lut->id),
                                        PR_INT_8), 64);
    graph_uses_finish(&u);
    graph_destroy(g);
}

/* A row a writer carries that is no whole unit of the map's uses: a CLUT reading an int32 map
 * of 47 channels in rows of 48 (carried there by a P83, which does not pass the need of the
 * CLUT's result on to its own input) writes int8 rows of 48 into a map P83 reads in 32-byte
 * groups: the map takes 64 (48 was past the words P83 reads of it), the CLUT's own rows stay
 * 48 (the code generator's router re-pitches them: backend/emit_plan.c own_row). */
static void test_carried_groups(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    Block *x = blk(g, BT_SI, PR_INT_8, 2, 1, 47, 0);
    Block *wide = blk(g, BT_CLUT, PR_INT_32, 2, 1, 47, 0);
    Block *b = blk(g, BT_SI, PR_INT_32, 2, 1, 47, 0);
    Block *one = blk(g, BT_CVS, PR_INT_32, 2, 1, 47, 0);
    Block *c = blk(g, BT_SI, PR_INT_32, 2, 1, 47, 0);
    Block *nar = blk(g, BT_CLUT, PR_INT_8, 2, 1, 47, 0);
    Block *m = blk(g, BT_SI, PR_INT_8, 2, 1, 47, 0);
    Block *three = blk(g, BT_CVS, PR_INT_32, 2, 1, 47, 0);
    tg_join(g, x, 0, wide, 0);
    tg_join(g, wide, 0, b, 0);
    tg_join(g, b, 0, one, 0);
    tg_join(g, one, 0, c, 0);
    tg_join(g, c, 0, nar, 0);
    tg_join(g, nar, 0, m, 0);
    tg_join(g, m, 0, three, 0);
    GraphUses u;
    assert_true(graph_uses(g, &u));
    assert_int_equal(layout_storage_unit(g, &u, (uint32_t)graph_block_pos(g, c->id)), 48);
    assert_int_equal(layout_output_unit(g, &u, (uint32_t)graph_block_pos(g, nar->id),
                                        PR_INT_8), 48);
    assert_int_equal(layout_storage_unit(g, &u, (uint32_t)graph_block_pos(g, m->id)), 64);
    graph_uses_finish(&u);
    graph_destroy(g);
}

/* A map written by many CLUT pieces (a table cut along x, as a division's is): each piece
 * reads 47 int8 channels in the pitch of 32 and so writes rows of 64, which the map takes;
 * every piece's input is asked the map's pitch but for its own rows. Asked once for every
 * block, the walk must not redo the map's other writers for every piece at every depth (it
 * took minutes on a division's 500 pieces); kept between questions (layout_memo_begin), the
 * answers are the same as asked anew. */
static void test_lut_pieces(void **state)
{
    (void)state;
    enum { N = 256 };
    Graph *g = graph_create();
    assert_non_null(g);
    Block *y = blk(g, BT_SI, PR_INT_8, 2, 1, 47, 0);
    Block *x[N];
    for (int i = 0; i < N; i++) {
        x[i] = blk(g, BT_SI, PR_INT_8, 2, 1, 47, 0);
        Block *lut = blk(g, BT_CLUT, PR_INT_8, 2, 1, 47, 0);
        tg_join(g, x[i], 0, lut, 0);
        tg_join(g, lut, 0, y, 0);
    }
    Block *vv = blk(g, BT_CVVH, PR_INT_32, 2, 1, 47, 0);
    tg_join(g, y, 0, vv, 0);
    tg_join(g, y, 0, vv, 1);
    for (int kept = 0; kept < 2; kept++) {
        GraphUses u;
        assert_true(graph_uses(g, &u));
        if (kept)
            assert_true(layout_memo_begin(&u));
        for (uint32_t p = 0; p < g->n_blocks; p++) {
            int unit = layout_storage_unit(g, &u, p);
            if (g->blocks[p] == y)
                assert_int_equal(unit, 64);
            else if (g->blocks[p]->type == BT_SI)
                assert_int_equal(unit, 64); /* the map's pitch but for its own rows: the others' */
            if (g->blocks[p]->type == BT_CLUT)
                assert_int_equal(layout_output_unit(g, &u, p, PR_INT_8), 64);
        }
        assert_int_equal(layout_storage_unit(g, &u, (uint32_t)graph_block_pos(g, x[N - 1]->id)),
                         64);
        graph_uses_finish(&u); /* frees the kept answers: ASan's leak check */
    }
    graph_destroy(g);
}

/* An Axon primitive writing an 8-bit map writes int32 rows of its own first, which a P06
 * narrows (layout_narrows): E (int8, 4 x 4 x 8) -> CVS -> F (int8) -> CCMPB; CC -> G (int32):
 * no narrowing; CC -> H (int8). */
static void test_narrow(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    Block *s[] = {blk(g, BT_SI, PR_INT_8, 4, 4, 8, 0), blk(g, BT_CVS, PR_INT_8, 4, 4, 8, 0),
                  blk(g, BT_SI, PR_INT_8, 4, 4, 8, 0), blk(g, BT_CCMPB, PR_INT_8, 4, 4, 8, 0)};
    Block *t[] = {blk(g, BT_CC, PR_INT_32, 4, 4, 8, 8), blk(g, BT_SI, PR_INT_32, 4, 4, 8, 0)};
    Block *v[] = {blk(g, BT_CC, PR_INT_32, 2, 2, 40, 8), blk(g, BT_SI, PR_INT_8, 2, 2, 40, 0)};
    join_chain(g, s, 4);
    join_chain(g, t, 2);
    join_chain(g, v, 2);
    Block *cvs = s[1], *relu = s[3], *cc = t[0], *cc2 = v[0];
    GraphUses u;
    assert_true(graph_uses(g, &u));
    uint32_t pcvs = (uint32_t)graph_block_pos(g, cvs->id);
    uint32_t pcc = (uint32_t)graph_block_pos(g, cc->id);
    uint32_t pcc2 = (uint32_t)graph_block_pos(g, cc2->id);
    uint32_t prelu = (uint32_t)graph_block_pos(g, relu->id);
    assert_true(layout_narrows(g, &u, pcvs));
    assert_false(layout_narrows(g, &u, pcc));
    assert_true(layout_narrows(g, &u, pcc2));
    assert_false(layout_narrows(g, &u, prelu)); /* a Soma writes 8 bits itself */
    /* the CVS's P83 reads E in 32-byte groups (32 int8) and writes that pitch: 16 pixels of
     * 32 int32 = 16 * 128 = 2048 bytes; the CC's P41 writes 128-byte groups: 40 channels
     * take 64, 4 pixels * 256 = 1024 */
    assert_int_equal(layout_narrow_bytes(g, &u, pcvs), 2048);
    assert_int_equal(layout_narrow_bytes(g, &u, pcc), 0);
    assert_int_equal(layout_narrow_bytes(g, &u, pcc2), 1024);
    assert_int_equal(layout_work_bytes(g, &u, pcvs), 2048);
    assert_int_equal(layout_work_bytes(g, &u, prelu), 0);
    graph_uses_finish(&u);
    graph_destroy(g);
}

/* A re-pitch: X (int32, 4 x 4 x 8, a model input's: only the CADD reads it, 8 a pixel) ->
 * CADD of X -> B (int32) -> CCMPB -> C (int8, read by a CVVH: 32 int8 a pixel). The CCMPB
 * must read more than 32 - 16 = 16 int32 channels a pixel of B, so B's pitch is 32, where
 * the CADD reads and writes X's, 8: it writes an int32 area of its own (16 pixels of 8
 * int32 = 512 bytes) that a P06 re-pitches into B. */
static void test_repitch(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    Block *m[] = {blk(g, BT_SI, PR_INT_32, 4, 4, 8, 0), blk(g, BT_CADD, PR_INT_32, 4, 4, 8, 0),
                  blk(g, BT_SI, PR_INT_32, 4, 4, 8, 0), blk(g, BT_CCMPB, PR_INT_8, 4, 4, 8, 0),
                  blk(g, BT_SI, PR_INT_8, 4, 4, 8, 0), blk(g, BT_CVVH, PR_INT_32, 4, 4, 8, 0)};
    GraphUses u;
    chain_squared(g, m, sizeof m / sizeof m[0], &u);
    uint32_t pad = (uint32_t)graph_block_pos(g, m[1]->id);
    long src = -1;
    assert_int_equal(layout_repeats(g, &u, pad, &src), 0);
    assert_int_equal(layout_storage_unit(g, &u, (uint32_t)graph_block_pos(g, m[2]->id)), 32);
    assert_int_equal(layout_output_unit(g, &u, pad, PR_INT_32), 8);
    assert_true(layout_narrows(g, &u, pad));
    assert_int_equal(layout_narrow_bytes(g, &u, pad), 512);
    assert_int_equal(layout_work_bytes(g, &u, pad), 512);
    graph_uses_finish(&u);
    graph_destroy(g);
}

/* The pitch unit of storage block b (layout_storage_unit at its position). */
static int unit_of(const Graph *g, const GraphUses *u, const Block *b)
{
    return layout_storage_unit(g, u, (uint32_t)graph_block_pos(g, b->id));
}

/* A P05 need over a pixel of several units: I (int8, 2 x 1 x 47) -> CLUT -> X (int32: the
 * CLUT carries rows of 48) -> CADD of X -> B (int32) -> CCMPB -> C (int8, read by a CVVH:
 * groups of 32, 64 a pixel). P05 writes at most the channels it reads, so B's pitch must
 * exceed 64 - 16 = 48; the CADD carries X's 48, which meets the unit need (32 - 16 + 1 = 17)
 * but not the pitch's. B takes 64 (8, the group unit, doubled until it is 48 or more and 47
 * channels take 49 or more; not 48 doubled to 96), and the CADD writes rows of 48 of its
 * own that a P06 re-pitches into B (test_diff_ops/broadcast_div_case_2_variant_1-4's
 * `op/bit4`: emit.layout, "writes INT_8 pixels of 64 channels from pixels of 48"). */
static void test_cmp_pitch(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    Block *m[] = {blk(g, BT_SI, PR_INT_8, 2, 1, 47, 0),   blk(g, BT_CLUT, PR_INT_32, 2, 1, 47, 0),
                  blk(g, BT_SI, PR_INT_32, 2, 1, 47, 0),  blk(g, BT_CADD, PR_INT_32, 2, 1, 47, 0),
                  blk(g, BT_SI, PR_INT_32, 2, 1, 47, 0),  blk(g, BT_CCMPB, PR_INT_8, 2, 1, 47, 0),
                  blk(g, BT_SI, PR_INT_8, 2, 1, 47, 0),   blk(g, BT_CVVH, PR_INT_32, 2, 1, 47, 0)};
    GraphUses u;
    chain_squared(g, m, sizeof m / sizeof m[0], &u);
    int units[] = {unit_of(g, &u, m[2]), unit_of(g, &u, m[6]), unit_of(g, &u, m[4])};
    assert_int_equal(units[0], 48); /* X: the CLUT's rows */
    assert_int_equal(units[1], 32); /* C */
    assert_int_equal(units[2], 64); /* B: 49 or more */
    uint32_t add = (uint32_t)graph_block_pos(g, m[3]->id);
    assert_int_equal(layout_output_unit(g, &u, add, PR_INT_32), 48);
    assert_true(layout_narrows(g, &u, add));
    assert_int_equal(layout_narrow_bytes(g, &u, add), 2 * 48 * 4);
    graph_uses_finish(&u);
    graph_destroy(g);
}

/* A need above a carried row that is no doubled unit: C (int8, 2 x 1 x 47, read by a CVVH:
 * groups of 32) written a row each by two CLUT pieces, each reading B (int32, 1 x 1 x 47)
 * that a CADD writes in the rows of 48 a CLUT carries into its input A (as the division's
 * quotient tables read their index: test_diff_ops/broadcast_div_case_2_variant_2-3). Each
 * B needs the pitch C takes for the other piece's rows: 48 rounded up to C's 32, 64. B's
 * unit doubled from the 48 it carries gave 96, the CLUTs wrote rows of 96, and C took 96
 * beside a map of 64 the same P03 read (emit.layout, "reads input1 in pixels of 96 channels
 * and input2 in pixels of 64"); from the group unit, 8, doubled: 64, and so C's. */
static void test_need_doubled(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    Block *c = blk(g, BT_SI, PR_INT_8, 2, 1, 47, 0);
    Block *b[2], *lut[2];
    for (int i = 0; i < 2; i++) {
        Block *m[] = {blk(g, BT_SI, PR_INT_8, 1, 1, 47, 0), blk(g, BT_CLUT, PR_INT_32, 1, 1, 47, 0),
                      blk(g, BT_SI, PR_INT_32, 1, 1, 47, 0), blk(g, BT_CADD, PR_INT_32, 1, 1, 47, 0),
                      blk(g, BT_SI, PR_INT_32, 1, 1, 47, 0), blk(g, BT_CLUT, PR_INT_8, 1, 1, 47, 0)};
        join_chain(g, m, sizeof m / sizeof m[0]);
        tg_join(g, m[5], 0, c, 0);
        b[i] = m[4];
        lut[i] = m[5];
    }
    in_rows(c, 0, 0, 1);
    in_rows(c, 1, 1, 1);
    Block *vv = blk(g, BT_CVVH, PR_INT_32, 2, 1, 47, 0);
    tg_join(g, c, 0, vv, 0);
    tg_join(g, c, 0, vv, 1);
    GraphUses u;
    assert_true(graph_uses(g, &u));
    for (int i = 0; i < 2; i++) {
        assert_int_equal(unit_of(g, &u, b[i]), 64);
        assert_int_equal(layout_output_unit(g, &u, (uint32_t)graph_block_pos(g, lut[i]->id),
                                            PR_INT_8), 64);
    }
    assert_int_equal(unit_of(g, &u, c), 64);
    graph_uses_finish(&u);
    graph_destroy(g);
}

/* Two model inputs concatenated along the channels (3 and 2 of 1 x 2 pixels) into T (int8),
 * which a ReLU reads: the second lands from lane 3 of a word, so T is staged, its inputs
 * written one value a word into an int32 area of 2 pixels of 8 words (64 bytes) that the
 * ReLU's working areas count. At channel 4 (a word's first lane) it is not; nor is a map
 * only an OUTPUT reads. */
static void test_staged(void **state)
{
    (void)state;
    for (int at = 3; at <= 4; at++)
        for (int out = 0; out <= 1; out++) {
            Graph *g = graph_create();
            assert_non_null(g);
            Block *a = blk(g, BT_INPUT, PR_INT_8, 1, 2, 3, 0);
            Block *b = blk(g, BT_INPUT, PR_INT_8, 1, 2, 2, 0);
            Block *t = blk(g, BT_SI, PR_INT_8, 1, 2, at + 2, 0);
            Block *r = out ? blk(g, BT_OUTPUT, PR_INT_8, 1, 2, at + 2, 0)
                           : blk(g, BT_CCMPB, PR_INT_8, 1, 2, at + 2, 0);
            tg_join(g, a, 0, t, 0);
            tg_join(g, b, 0, t, 0);
            tg_join(g, t, 0, r, 0);
            in_box(t, 0, 0, 3);
            in_box(t, 1, at, 2);
            GraphUses u;
            assert_true(graph_uses(g, &u));
            uint32_t pt = (uint32_t)graph_block_pos(g, t->id);
            uint32_t pr = (uint32_t)graph_block_pos(g, r->id);
            bool staged = at == 3 && !out;
            assert_int_equal(layout_staged(g, &u, pt), staged);
            if (!out) {
                assert_int_equal(layout_stage_bytes(g, &u, pr), staged ? 64 : 0);
                assert_int_equal(layout_work_bytes(g, &u, pr), staged ? 64 : 0);
            }
            graph_uses_finish(&u);
            graph_destroy(g);
        }
}

/* An input upsampled by 2 along the channels into T 1 x 2 x 6 int8 that a ReLU reads: its
 * value c in lanes 2c and 2c + 1, lane 1 no word's first, so no dynamic block places it in
 * T's own layout (sockbox_edge_fits) and T is staged, its int32 area 2 pixels of 8 words
 * (64 bytes) among the ReLU's working areas. Upsampled along x instead (1 x 4 x 3 from
 * 1 x 2 x 3), each pixel is one run of the socket from lane 0: placed, not staged. */
static void test_staged_steps(void **state)
{
    (void)state;
    for (int along_f = 0; along_f <= 1; along_f++) {
        Graph *g = graph_create();
        assert_non_null(g);
        int32_t x = along_f ? 2 : 4, f = along_f ? 6 : 3;
        Block *m[] = {blk(g, BT_INPUT, PR_INT_8, 1, 2, 3, 0), blk(g, BT_SI, PR_INT_8, 1, x, f, 0),
                      blk(g, BT_CCMPB, PR_INT_8, 1, x, f, 0)};
        join_chain(g, m, sizeof m / sizeof m[0]);
        scale_edge(g, g->edges[0], 1, along_f ? 1 : 2, along_f ? 2 : 1);
        GraphUses u;
        assert_true(graph_uses(g, &u));
        uint32_t pt = (uint32_t)graph_block_pos(g, m[1]->id);
        uint32_t pr = (uint32_t)graph_block_pos(g, m[2]->id);
        assert_int_equal(sockbox_edge_fits(g, &u, g->edges[0], pt, 16), !along_f);
        assert_int_equal(layout_staged(g, &u, pt), along_f);
        assert_int_equal(layout_stage_bytes(g, &u, pr), along_f ? 64 : 0);
        graph_uses_finish(&u);
        graph_destroy(g);
    }
}

/* A map only OUTPUTs read, which an INPUT writes through steps, may be held one value a
 * word (taskir/lanes.h): the mapper counts the larger layout. T 1 x 2 x 6 int8, every other
 * column of a socket of 1 x 4 x 3, each value twice along f (lane 1 repeats lane 0, and
 * starts no word: no dynamic block places it): its own 2 pixels of 16 lanes are 32 bytes,
 * its 12 values a word 48 (the socket's 12 values a word would not fit in the own 32 bytes
 * either, so no view of the socket holds it). Without steps, or with a
 * compute block reading T, only its own layout counts; an int32 T is no such map. */
static void test_wide_input(void **state)
{
    (void)state;
    Chip *chip = default_chip();
    for (int v = 0; v < 4; v++) {
        Graph *g = graph_create();
        assert_non_null(g);
        PrecisionId p = v == 3 ? PR_INT_32 : PR_INT_8;
        Block *m[] = {blk(g, BT_INPUT, p, 1, v == 1 ? 2 : 4, v == 1 ? 6 : 3, 0),
                      blk(g, BT_SI, p, 1, 2, 6, 0),
                      v == 2 ? blk(g, BT_CCMPB, PR_INT_8, 1, 2, 6, 0)
                             : blk(g, BT_OUTPUT, p, 1, 2, 6, 0)};
        join_chain(g, m, sizeof m / sizeof m[0]);
        if (v != 1) { /* every other column of 1 x 4 x 3, each value twice along f */
            scale_edge(g, g->edges[0], 1, -2, 2);
        }
        GraphUses u;
        assert_true(graph_uses(g, &u));
        uint32_t pt = (uint32_t)graph_block_pos(g, m[1]->id);
        assert_int_equal(lanes_wide_input(g, &u, pt), v == 0);
        assert_int_equal(lanes_wide_bytes(g, &u, pt), v == 0 ? 48 : 0);
        assert_int_equal(bbox_storage_bytes(chip, g, &u, pt), v == 0 ? 48 : v == 3 ? 64 : 32);
        graph_uses_finish(&u);
        graph_destroy(g);
    }
    /* a socket of 1 x 2 x 3 upsampled by 4 along x into T 1 x 8 x 3: the socket's 6 values a
     * word fit in T's own 8 pixels of 16 bytes (a view of the socket holds it): 128 bytes */
    Graph *g = graph_create();
    assert_non_null(g);
    Block *m[] = {blk(g, BT_INPUT, PR_INT_8, 1, 2, 3, 0), blk(g, BT_SI, PR_INT_8, 1, 8, 3, 0),
                  blk(g, BT_OUTPUT, PR_INT_8, 1, 8, 3, 0)};
    join_chain(g, m, sizeof m / sizeof m[0]);
    scale_edge(g, g->edges[0], 1, 4, 1);
    GraphUses u;
    assert_true(graph_uses(g, &u));
    uint32_t pt = (uint32_t)graph_block_pos(g, m[1]->id);
    assert_false(lanes_wide_input(g, &u, pt));
    assert_int_equal(bbox_storage_bytes(chip, g, &u, pt), 128);
    graph_uses_finish(&u);
    graph_destroy(g);
    chip_destroy(chip);
}

/* A CADD adding a ternary map to itself: P83 reads no ternary, so P02 reads the box
 * repeated in the group unit (128 ternary lanes a pixel: 4 x 4 pixels, twice, 32 bytes
 * each = 1024 bytes), in an area of its own, which one P06 writes. */
static void test_repeat_ternary(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    Block *m[] = {blk(g, BT_SI, PR_TERNARY, 4, 4, 8, 0), blk(g, BT_CADD, PR_INT_32, 4, 4, 8, 0),
                  blk(g, BT_SI, PR_INT_32, 4, 4, 8, 0)};
    join_chain(g, m, sizeof m / sizeof m[0]);
    tg_join(g, m[0], 0, m[1], 1); /* T + T */
    GraphUses u;
    assert_true(graph_uses(g, &u));
    uint32_t pt = (uint32_t)graph_block_pos(g, m[1]->id);
    long src = -1;
    assert_int_equal(layout_repeats(g, &u, pt, &src), 2);
    assert_false(layout_repeat_scales(g, &u, pt));
    assert_int_equal(layout_repeat_bytes(g, &u, pt), 1024);
    assert_int_equal(premove_count(g, &u, pt), 1);
    graph_uses_finish(&u);
    graph_destroy(g);
}

/* A CADD of two different maps (not one box added to itself): P02 reads them back to back
 * in an area of its own that a P06 an input fills (layout_gather_bytes), in the pitch the
 * CADD reads, input 0's: two int8 maps of 4 x 4 x 8 read in 32-byte groups, 2 x 16 pixels
 * x 32 B = 1024 bytes. The second input, which only this CADD reads, may lie in its part
 * (layout_gather_in_place: its part is its storage), the first is read by another CADD too:
 * the area needs one part, 512 bytes, beyond their storage (layout_gather_extra_bytes, counted
 * in layout_work_bytes). An int8 and an int32 input gather in INT_32 (a P06 widens the
 * int8 values), in int32's own 32-byte groups (each P06 re-pitches its input: not input 0's
 * int8 pitch of 32 lanes, 32 x 4 B a pixel), 8 lanes a pixel: 2 x 16 x 8 x 4 B = 1024, which
 * the CADD writes too (its result's pitch 8); w, int32 in that pitch and read by this CADD
 * alone, may lie in its part: 512 bytes beyond. */
static void test_gather(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    Block *a = blk(g, BT_SI, PR_INT_8, 4, 4, 8, 0), *b = blk(g, BT_SI, PR_INT_8, 4, 4, 8, 0);
    Block *w = blk(g, BT_SI, PR_INT_32, 4, 4, 8, 0);
    Block *add = blk(g, BT_CADD, PR_INT_32, 4, 4, 8, 0), *o = blk(g, BT_SI, PR_INT_32, 4, 4, 8, 0);
    Block *mix = blk(g, BT_CADD, PR_INT_32, 4, 4, 8, 0), *o2 = blk(g, BT_SI, PR_INT_32, 4, 4, 8, 0);
    tg_join(g, a, 0, add, 0);
    tg_join(g, b, 0, add, 1);
    tg_join(g, add, 0, o, 0);
    tg_join(g, a, 0, mix, 0);
    tg_join(g, w, 0, mix, 1);
    tg_join(g, mix, 0, o2, 0);
    GraphUses u;
    assert_true(graph_uses(g, &u));
    uint32_t pa = (uint32_t)graph_block_pos(g, add->id), pm = (uint32_t)graph_block_pos(g, mix->id);
    PrecisionId p;
    assert_true(layout_gather_prec(g, &u, pa, &p));
    assert_int_equal(p, PR_INT_8);
    assert_int_equal(premove_count(g, &u, pa), 2);
    assert_int_equal(layout_gather_bytes(g, &u, pa), 1024);
    assert_int_equal(layout_repeat_bytes(g, &u, pa), 0);
    assert_int_equal(layout_gather_in_place(g, &u, pa), 1); /* b; a is read twice */
    assert_int_equal(layout_gather_extra_bytes(g, &u, pa), 512);
    assert_int_equal(layout_work_bytes(g, &u, pa), 512); /* the part a cannot lie in */
    assert_true(layout_gather_prec(g, &u, pm, &p));
    assert_int_equal(p, PR_INT_32);
    assert_int_equal(layout_gather_bytes(g, &u, pm), 1024);
    assert_int_equal(layout_output_unit(g, &u, pm, PR_INT_32), 8);
    assert_int_equal(layout_storage_unit(g, &u, (uint32_t)graph_block_pos(g, o2->id)), 8);
    assert_int_equal(layout_gather_in_place(g, &u, pm), 1); /* w: its pitch is the area's */
    assert_int_equal(layout_gather_extra_bytes(g, &u, pm), 512);
    assert_int_equal(layout_work_bytes(g, &u, pm), 512); /* a's int32 part */
    /* no gather: a storage block, a CADD of one box added to itself */
    assert_false(layout_gather_prec(g, &u, (uint32_t)graph_block_pos(g, o->id), &p));
    assert_int_equal(layout_gather_bytes(g, &u, (uint32_t)graph_block_pos(g, o2->id)), 0);
    graph_uses_finish(&u);
    graph_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_map_bytes),
        cmocka_unit_test(test_p81_left),
        cmocka_unit_test(test_storage_units),
        cmocka_unit_test(test_input_pitch),
        cmocka_unit_test(test_row_rules),
        cmocka_unit_test(test_cmp_two_maps),
        cmocka_unit_test(test_lut_need_row),
        cmocka_unit_test(test_lut_pieces),
        cmocka_unit_test(test_carried_groups),
        cmocka_unit_test(test_send_bytes),
        cmocka_unit_test(test_soma_rows),
        cmocka_unit_test(test_clif_input),
        cmocka_unit_test(test_narrow),
        cmocka_unit_test(test_repitch),
        cmocka_unit_test(test_cmp_pitch),
        cmocka_unit_test(test_need_doubled),
        cmocka_unit_test(test_repeat_ternary),
        cmocka_unit_test(test_staged),
        cmocka_unit_test(test_gather),
        cmocka_unit_test(test_lut_fan),
        cmocka_unit_test(test_buffer_bytes),
        cmocka_unit_test(test_wide_input),
        cmocka_unit_test(test_staged_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
