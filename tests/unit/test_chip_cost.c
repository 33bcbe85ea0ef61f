/* test_chip_cost.c: memory and clocks of blocks on the default chip (taskir/chip_cost.c), every
 * figure worked out by hand in the comments from docs/chip.md ("Memory", "Clocks"), which
 * states CHIP.md §1-2's layouts and formulas: a conv group of known size with its alignment
 * and its clocks, every storage layout and every clock formula family at least once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "conv_fixture.h"
#include "taskir/chip_cost.h"

static Chip *chip;

static int setup(void **state)
{
    (void)state;
    Diag d;
    diag_init(&d, NULL);
    Status st = chip_load_default(&chip, &d);
    diag_finish(&d);
    return st == ST_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    chip_destroy(chip);
    return 0;
}

/* A block of type t with shape y x f r ky kx iy ix (0: absent) and precision p. */
static Block *blk(Graph *g, BlockType t, PrecisionId p, int32_t y, int32_t x, int32_t f,
                  int32_t r, int32_t ky, int32_t kx, int32_t iy, int32_t ix)
{
    Block *b = graph_add_block(g, t, GRAPH_AUTO_ID, NULL);
    assert_non_null(b);
    int32_t s[TIR_NDIMS] = {y, x, f, r, ky, kx, iy, ix};
    memcpy(b->shape.d, s, sizeof s);
    b->has_shape = true;
    b->prec = p;
    b->has_prec = true;
    return b;
}

/* The 3x3 conv 14x14x20 -> 14x14x40, padding 1, int8 input and weights, vector bias. */
static Graph *conv_group(Block **cc)
{
    Graph *g = graph_create();
    assert_non_null(g);
    Block *sic = blk(g, BT_SIC, PR_INT_8, 14, 14, 0, 20, 0, 0, 0, 0);
    Block *sw = blk(g, BT_SW, PR_INT_8, 0, 0, 40, 20, 3, 3, 0, 0);
    Block *sb = blk(g, BT_SB, PR_INT_32, 0, 0, 40, 0, 0, 0, 0, 0);
    *cc = blk(g, BT_CC, PR_INT_32, 14, 14, 40, 20, 3, 3, 14, 14);
    (*cc)->bias_type = BIAS_VECTOR;
    Block *si = blk(g, BT_SI, PR_INT_32, 14, 14, 40, 0, 0, 0, 0, 0);
    const AttrId pads[] = {AT_PAD_UP, AT_PAD_DOWN, AT_PAD_LEFT, AT_PAD_RIGHT};
    for (int i = 0; i < 4; i++)
        assert_true(blk_set_attr(g, *cc, pads[i], 1));
    assert_true(blk_set_attr(g, *cc, AT_KERNEL_X, 3) && blk_set_attr(g, *cc, AT_KERNEL_Y, 3));
    assert_non_null(graph_connect(g, sic, 0, *cc, 0));
    assert_non_null(graph_connect(g, sw, 0, *cc, 1));
    assert_non_null(graph_connect(g, sb, 0, *cc, 2));
    assert_non_null(graph_connect(g, *cc, 0, si, 0));
    return g;
}

static void test_conv_group(void **state)
{
    (void)state;
    Block *cc;
    Graph *g = conv_group(&cc);
    GraphUses u;
    assert_true(graph_uses(g, &u));
    GroupMem m;
    assert_true(chip_group_mem(chip, g, &u, cc, &m));
    /* input SIC [14][14][20] int8, each pixel's 20 channels padded to 16 B: 32 B;
     * 14 * 14 * 32 = 6272 */
    assert_int_equal(m.input, 6272);
    /* weights [ceil(40/32) = 2][3][3][20][32] int8, a row of 32 channels 32 B (aligned to
     * 32 already): 2 * 3 * 3 * 20 * 32 = 11520 */
    assert_int_equal(m.weight, 11520);
    /* bias 40 int32 = 160 B, in whole 128-B groups: 256 */
    assert_int_equal(m.bias, 256);
    /* output int32 [14][14][40]: a pixel 160 B padded to 128 B multiples = 256;
     * 196 * 256 = 50176 */
    assert_int_equal(m.output, 50176);
    assert_int_equal(m.total, 6272 + 11520 + 256 + 50176); /* 68224: fits 128 KiB */
    /* clocks, int8 input: d = 16, g_r = ceil(20/16) = 2, L = min(2, 4) = 2;
     * per (x-group, row, channel group): 20 + L + L*g_r + kx*ky*nr = 20 + 2 + 4 + 180 = 206;
     * ceil(40/32) = 2 channel groups, ceil(14/4) = 4 x-groups, 14 rows:
     * 206 * 2 * 4 * 14 = 23072 */
    assert_int_equal(chip_block_clocks(chip, cc), 23072);
    assert_int_equal(chip_group_clocks(chip, g, &u, cc), 23072);
    /* the SI is not part of the group (it is the next group's input) */
    assert_false(chip_group_mem(chip, g, &u, g->blocks[4], &m));
    graph_uses_finish(&u);
    graph_destroy(g);
}

/* The unit tests' shared conv fixture: INPUT 6x6x2 -> SIC -> CC 3x3 (+SW, +SB) -> SI. */
static void test_fixture_group(void **state)
{
    (void)state;
    Graph *g = conv_fixture(6);
    assert_non_null(g);
    GraphUses u;
    assert_true(graph_uses(g, &u));
    GroupMem m;
    Block *cc = g->blocks[4];
    assert_true(chip_group_mem(chip, g, &u, cc, &m));
    assert_int_equal(m.input, 6 * 6 * 16);      /* 2 int8 channels padded to 16 B */
    assert_int_equal(m.weight, 1 * 3 * 3 * 2 * 32); /* one group of 32 channels */
    assert_int_equal(m.bias, 128);              /* 3 int32 in one 128-B group */
    assert_int_equal(m.output, 4 * 4 * 128);    /* 3 int32 channels padded to 128 B */
    assert_int_equal(m.total, 576 + 576 + 128 + 2048);
    graph_uses_finish(&u);
    graph_destroy(g);
}

static void test_storage_layouts(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    /* SI int8 [7][7][40]: 40 B padded to 48; 49 * 48 = 2352 */
    assert_int_equal(chip_storage_bytes(chip, blk(g, BT_SI, PR_INT_8, 7, 7, 40, 0, 0, 0, 0, 0),
                                        NULL), 2352);
    /* SI int32 [7][7][40] (an Axon's output): 160 B padded to 256; 49 * 256 = 12544 */
    assert_int_equal(chip_storage_bytes(chip, blk(g, BT_SI, PR_INT_32, 7, 7, 40, 0, 0, 0, 0, 0),
                                        NULL), 12544);
    /* SIC ternary [2][2][100]: 100 values of 2 bits = 25 B padded to 32; 4 * 32 = 128 */
    assert_int_equal(chip_storage_bytes(chip, blk(g, BT_SIC, PR_TERNARY, 2, 2, 0, 100, 0, 0, 0,
                                                  0), NULL), 128);
    /* SIC2D for a CC2D with padding 1 all round: channel-major [3][16+2][ceil(18/16)*16 = 32]:
     * 3 * 18 * 32 = 1728; without a consumer the padding is not there: [3][16][16] = 768 */
    Block *sic2d = blk(g, BT_SIC2D, PR_INT_8, 16, 16, 0, 3, 0, 0, 0, 0);
    Block *cc2d = blk(g, BT_CC2D, PR_INT_32, 16, 16, 32, 3, 3, 3, 16, 16);
    const AttrId pads[] = {AT_PAD_UP, AT_PAD_DOWN, AT_PAD_LEFT, AT_PAD_RIGHT};
    for (int i = 0; i < 4; i++)
        assert_true(blk_set_attr(g, cc2d, pads[i], 1));
    assert_int_equal(chip_storage_bytes(chip, sic2d, cc2d), 1728);
    assert_int_equal(chip_storage_bytes(chip, sic2d, NULL), 768);
    /* 12 columns: the left padding is stored as a whole word (layout_p81_left: 4 columns,
     * not 1), so a row holds 4 + 12 + 1 = 17 columns: 32 bytes, [3][18][32] = 1728 (14
     * columns, 16 bytes, had the padding been stored as it is: 864) */
    Block *narrow = blk(g, BT_SIC2D, PR_INT_8, 16, 12, 0, 3, 0, 0, 0, 0);
    assert_int_equal(chip_storage_bytes(chip, narrow, cc2d), 1728);
    /* SIFC int8 r = 100 for a CVM: padded to 16 B: 112; ternary: 25 B -> 32 */
    Block *cvm = blk(g, BT_CVM, PR_INT_32, 0, 0, 10, 100, 0, 0, 0, 0);
    assert_int_equal(chip_storage_bytes(chip, blk(g, BT_SIFC, PR_INT_8, 0, 0, 0, 100, 0, 0, 0,
                                                  0), cvm), 112);
    assert_int_equal(chip_storage_bytes(chip, blk(g, BT_SIFC, PR_TERNARY, 0, 0, 0, 100, 0, 0, 0,
                                                  0), cvm), 32);
    /* SWFC int8 f = 10, r = 100: [ceil(10/32) = 1][r padded as the input: 112][32 B] = 3584 */
    assert_int_equal(chip_storage_bytes(chip, blk(g, BT_SWFC, PR_INT_8, 0, 0, 10, 100, 0, 0, 0,
                                                  0), cvm), 3584);
    /* SW ternary f = 64, r = 8, 1x1: [2][1][1][8][32 channels of 2 bits = 8 B -> 32 B] = 512 */
    assert_int_equal(chip_storage_bytes(chip, blk(g, BT_SW, PR_TERNARY, 0, 0, 64, 8, 1, 1, 0, 0),
                                        NULL), 512);
    /* SW2D int8 f = 32, r = 3, 3x3: [1][3][3][3][32] = 864 */
    assert_int_equal(chip_storage_bytes(chip, blk(g, BT_SW2D, PR_INT_8, 0, 0, 32, 3, 3, 3, 0, 0),
                                        cc2d), 864);
    /* SB 33 values: 132 B in 128-B groups = 256; one without a precision is int32 too; an
     * INT_8 table of 2^4 entries: 16 B */
    assert_int_equal(chip_storage_bytes(chip, blk(g, BT_SB, PR_INT_32, 0, 0, 33, 0, 0, 0, 0, 0),
                                        NULL), 256);
    Block *sb = blk(g, BT_SB, PR_INT_32, 0, 0, 33, 0, 0, 0, 0, 0);
    sb->has_prec = false;
    assert_int_equal(chip_storage_bytes(chip, sb, NULL), 256);
    assert_int_equal(chip_storage_bytes(chip, blk(g, BT_SB, PR_INT_8, 0, 0, 16, 0, 0, 0, 0, 0),
                                        NULL), 16);
    /* a compute block stores nothing of its own here */
    assert_int_equal(chip_storage_bytes(chip, cvm, NULL), 0);
    /* outputs: an Axon's int32 [1][1][10] padded to 128 B; a Soma's int8 [14][14][40] 48 B a
     * pixel = 9408; a CLIF's int8 [1][1][10]: 16 B out + 40 B potentials padded to 48 = 64 */
    assert_int_equal(chip_output_bytes(chip, cvm), 128);
    assert_int_equal(chip_output_bytes(chip, blk(g, BT_CCMPB, PR_INT_8, 14, 14, 40, 0, 0, 0, 0,
                                                 0)), 9408);
    assert_int_equal(chip_output_bytes(chip, blk(g, BT_CLIF, PR_INT_8, 1, 1, 10, 0, 0, 0, 0, 0)),
                     64);
    /* overflow is -1, not a wrapped figure */
    assert_int_equal(chip_storage_bytes(chip, blk(g, BT_SW, PR_INT_8, 0, 0, INT32_MAX, INT32_MAX,
                                                  INT32_MAX, INT32_MAX, 0, 0), NULL), -1);
    graph_destroy(g);
}

static void test_clock_families(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    /* CADD of 2 int32 partial sums, 7x7x64, vector bias: load_bias 4, write_v 1 (int32),
     * g_f = ceil(64/8) = 8: (4 + 1 + 2 + 1) * 8 * 49 = 3136; int8 inputs: write_v 4,
     * g_f = ceil(64/32) = 2: (4 + 1 + 2 + 4) * 2 * 49 = 1078 */
    Block *cadd = blk(g, BT_CADD, PR_INT_32, 7, 7, 64, 0, 0, 0, 0, 0);
    cadd->shape.n_branch = 2;
    cadd->bias_type = BIAS_VECTOR;
    assert_int_equal(chip_block_clocks_in(chip, cadd, PR_INT_32), 3136);
    assert_int_equal(chip_block_clocks(chip, cadd), 1078);
    /* CAVG 2x2 window, out 7x7x64, int8: (2 + 4 + 4) * 2 * 49 = 980 */
    Block *cavg = blk(g, BT_CAVG, PR_INT_32, 7, 7, 64, 0, 2, 2, 14, 14);
    assert_int_equal(chip_block_clocks(chip, cavg), 980);
    /* CVVH 4x4x64, constant bias: (1 + 18) * ceil(64/32) * 16 = 608; CAX and CVS the same
     * family: vector bias on a CAX 1x1x33: (4 + 18) * 2 * 1 = 44 */
    assert_int_equal(chip_block_clocks(chip, blk(g, BT_CVVH, PR_INT_32, 4, 4, 64, 0, 0, 0, 0, 0)),
                     608);
    Block *cax = blk(g, BT_CAX, PR_INT_32, 1, 1, 33, 0, 0, 0, 0, 0);
    cax->bias_type = BIAS_VECTOR;
    assert_int_equal(chip_block_clocks(chip, cax), 44);
    assert_int_equal(chip_block_clocks(chip, blk(g, BT_CVS, PR_INT_32, 2, 1, 32, 0, 0, 0, 0, 0)),
                     38);
    /* CVM r = 100 -> f = 10, int8: d = 16, g_r = 7: (8 + 7 + 16 * 7) * ceil(10/32) = 127;
     * ternary: d = 64, g_r = 2: 8 + 2 + 128 = 138; int16: the chip has no such input: -1 */
    Block *cvm = blk(g, BT_CVM, PR_INT_32, 0, 0, 10, 100, 0, 0, 0, 0);
    assert_int_equal(chip_block_clocks(chip, cvm), 127);
    assert_int_equal(chip_block_clocks_in(chip, cvm, PR_TERNARY), 138);
    assert_int_equal(chip_block_clocks_in(chip, cvm, PR_INT_16), -1);
    /* the minimal conv: 1x1, 16 int8 channels, 32 out, 4 columns, 1 row: g_r = 1, L = 1:
     * 20 + 1 + 1 + 16 = 38 clocks a (x-group, row) (the hardware's figure is about 37) */
    assert_int_equal(chip_block_clocks(chip, blk(g, BT_CC, PR_INT_32, 1, 4, 32, 16, 1, 1, 1, 4)),
                     38);
    /* CC with r = 100 int8: g_r = 7, L = 4 (capped): 20 + 4 + 28 + 9 * 100 = 952;
     * f = 64 (2 groups), x = 5 (2 x-groups), 3 rows: 952 * 2 * 2 * 3 = 11424 */
    assert_int_equal(chip_block_clocks(chip, blk(g, BT_CC, PR_INT_32, 3, 5, 64, 100, 3, 3, 5,
                                                 7)), 11424);
    /* CC2D r = 3, 3x3, out 16x16x32, input rows of 18 (padding stored): L = 2 (16 <= 18 < 32):
     * 20 + 2*3*3 + 3*3*3 = 65; 1 channel group, 4 x-groups, 16 rows: 65 * 4 * 16 = 4160;
     * input rows of 8: L = 1: 20 + 9 + 27 = 56 * 4 * 16 = 3584 */
    assert_int_equal(chip_block_clocks(chip, blk(g, BT_CC2D, PR_INT_32, 16, 16, 32, 3, 3, 3, 18,
                                                 18)), 4160);
    assert_int_equal(chip_block_clocks(chip, blk(g, BT_CC2D, PR_INT_32, 16, 16, 32, 3, 3, 3, 8,
                                                 8)), 3584);
    /* CCMPB int8 out 14x14x40: a pixel's 40 B are 3 words of 16 B: 588 words * 2 = 1176;
     * with a shift: * 5 = 2940; CCMPS the same unit */
    Block *cmp = blk(g, BT_CCMPB, PR_INT_8, 14, 14, 40, 0, 0, 0, 0, 0);
    assert_int_equal(chip_block_clocks(chip, cmp), 1176);
    assert_true(blk_set_attr(g, cmp, AT_BIT_SHIFT_NUM, 2));
    assert_int_equal(chip_block_clocks(chip, cmp), 2940);
    assert_int_equal(chip_block_clocks(chip, blk(g, BT_CCMPS, PR_INT_32, 1, 1, 4, 0, 0, 0, 0, 0)),
                     2);
    /* CLUT 1.5 * ny*nx*nf: 4x4x10 = 240; 3 entries: 4.5, rounded up to 5 */
    assert_int_equal(chip_block_clocks(chip, blk(g, BT_CLUT, PR_INT_8, 4, 4, 10, 0, 0, 0, 0, 0)),
                     240);
    assert_int_equal(chip_block_clocks(chip, blk(g, BT_CLUT, PR_INT_8, 3, 1, 1, 0, 0, 0, 0, 0)),
                     5);
    /* CLIF 10 neurons: 6 + 7 * ceil(10/4) = 27 */
    assert_int_equal(chip_block_clocks(chip, blk(g, BT_CLIF, PR_INT_8, 1, 1, 10, 0, 0, 0, 0, 0)),
                     27);
    /* storage blocks have no primitive */
    assert_int_equal(chip_block_clocks(chip, blk(g, BT_SI, PR_INT_8, 1, 1, 1, 0, 0, 0, 0, 0)), -1);
    /* overflow: -1 */
    assert_int_equal(chip_block_clocks(chip, blk(g, BT_CC, PR_INT_32, INT32_MAX, INT32_MAX,
                                                 INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX,
                                                 INT32_MAX, INT32_MAX)), -1);
    graph_destroy(g);
}

/* chip_group_clocks takes the input precision from the block feeding the first input. */
static void test_group_clocks_precision(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    Block *a = blk(g, BT_SI, PR_INT_32, 7, 7, 64, 0, 0, 0, 0, 0);
    Block *b = blk(g, BT_SI, PR_INT_32, 7, 7, 64, 0, 0, 0, 0, 0);
    Block *cadd = blk(g, BT_CADD, PR_INT_32, 7, 7, 64, 0, 0, 0, 0, 0);
    cadd->bias_type = BIAS_CONSTANT;
    assert_non_null(graph_connect(g, a, 0, cadd, 0));
    assert_non_null(graph_connect(g, b, 0, cadd, 1));
    GraphUses u;
    assert_true(graph_uses(g, &u));
    /* 2 branches counted from the clusters; int32: (1 + 1 + 2 + 1) * 8 * 49 = 1960 */
    assert_int_equal(chip_group_clocks(chip, g, &u, cadd), 1960);
    GroupMem m;
    assert_true(chip_group_mem(chip, g, &u, cadd, &m));
    assert_int_equal(m.input, 2 * 49 * 256); /* two int32 inputs, 256 B a pixel */
    graph_uses_finish(&u);
    graph_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_group),
        cmocka_unit_test(test_fixture_group),
        cmocka_unit_test(test_storage_layouts),
        cmocka_unit_test(test_clock_families),
        cmocka_unit_test(test_group_clocks_precision),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
