/* test_fuse_pairs.c: the fuse pass's Axon + Soma pairs (passes/fuse.c) on small hand-built
 * graphs with the default chip: which pairs become a group, with which blocks, and which do
 * not and why (a second reader, a rearranging edge, a Soma that is no Soma operation, a pair
 * too large for a core, a group holding another compute block); groups already there joined;
 * the pass run twice changes nothing; outputs the same before and after. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "passes/pass.h"
#include "passtest.h"

static Chip *chip;

static int setup(void **state)
{
    (void)state;
    Diag d;
    diag_init(&d, "test");
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

static Block *data(Graph *g, BlockType t, const int32_t *dims, uint32_t nd, const char *name)
{
    Block *b = graph_add_block(g, t, GRAPH_AUTO_ID, name);
    assert_non_null(b);
    int64_t n = 1;
    for (uint32_t i = 0; i < nd; i++)
        n *= dims[i];
    int64_t *v = malloc((size_t)n * sizeof *v);
    assert_non_null(v);
    for (int64_t i = 0; i < n; i++)
        v[i] = (i * 7) % 5 - 2;
    b->has_prec = true;
    b->prec = t == BT_SB ? PR_INT_32 : PR_INT_8;
    assert_true(blk_set_data(g, b, b->prec, dims, nd, v, (uint64_t)n));
    free(v);
    return b;
}

/* INPUT hw x hw x r -> SIC conv/in -> CC conv (k x k, padding k/2, 4 channels; SW conv/w, SB
 * conv/b) -> SI conv/out -> CCMPB relu (>> 2, CMP 0, INT_8) -> SI -> OUTPUT. */
static Graph *conv_relu(int32_t hw, int32_t r, int32_t k)
{
    Graph *g = graph_create();
    assert_non_null(g);
    Block *in = pt_io(g, BT_INPUT, hw, hw, r, 0);
    Block *sic = pt_blk(g, BT_SIC, hw, hw, 0, "conv/in");
    sic->shape.d[D_R] = r;
    sic->prec = PR_INT_8;
    Block *w = data(g, BT_SW, (const int32_t[]){4, r, k, k}, 4, "conv/w");
    int32_t *ws = w->shape.d;
    ws[D_F] = 4, ws[D_R] = r, ws[D_KY] = ws[D_KX] = k;
    Block *b = data(g, BT_SB, (const int32_t[]){4}, 1, "conv/b");
    b->shape.d[D_F] = 4;
    Block *cc = pt_blk(g, BT_CC, hw, hw, 4, "conv");
    int32_t *cs = cc->shape.d;
    cs[D_R] = r, cs[D_KY] = cs[D_KX] = k, cs[D_IY] = cs[D_IX] = hw;
    cc->bias_type = BIAS_VECTOR;
    const AttrId pads[] = {AT_PAD_UP, AT_PAD_DOWN, AT_PAD_LEFT, AT_PAD_RIGHT};
    for (int i = 0; i < 4; i++)
        assert_true(blk_set_attr(g, cc, pads[i], k / 2));
    assert_true(blk_set_attr(g, cc, AT_KERNEL_X, k));
    assert_true(blk_set_attr(g, cc, AT_KERNEL_Y, k));
    Block *out = pt_blk(g, BT_SI, hw, hw, 4, "conv/out");
    Block *relu = pt_blk(g, BT_CCMPB, hw, hw, 4, "relu");
    relu->prec = PR_INT_8;
    assert_true(blk_set_attr(g, relu, AT_BIT_SHIFT_NUM, 2));
    assert_true(blk_set_attr(g, relu, AT_CMP, 0));
    Block *res = pt_blk(g, BT_SI, hw, hw, 4, "relu/out");
    pt_link(g, in, sic, 0);
    pt_link(g, sic, cc, 0);
    pt_link(g, w, cc, 1);
    pt_link(g, b, cc, 2);
    pt_link(g, cc, out, 0);
    pt_link(g, out, relu, 0);
    pt_link(g, relu, res, 0);
    pt_link(g, res, pt_io(g, BT_OUTPUT, hw, hw, 4, 0), 0);
    return g;
}

static void fuse(Graph *g)
{
    Diag d;
    diag_init(&d, "test");
    PassOptions o = {.chip = chip};
    Status st = pass_fuse(g, &o, &d);
    if (st != ST_OK)
        diag_print(&d, stderr, "test");
    diag_finish(&d);
    assert_int_equal(st, ST_OK);
}

/* Runs fuse, checks the outputs, and returns the number of groups. */
static uint32_t fused_groups(Graph *g)
{
    int64_t n;
    int32_t *want = pt_simulate(g, 1, &n);
    fuse(g);
    pt_assert_same(g, (const int32_t *const *)&want, &n, 1, "after fuse");
    free(want);
    return g->n_groups;
}

/* The group lists exactly these blocks, in this order. */
static void assert_group(const Graph *g, uint32_t gi, const char *const *names, uint32_t n)
{
    assert_true(gi < g->n_groups);
    assert_int_equal(g->groups[gi].n_block_ids, n);
    for (uint32_t j = 0; j < n; j++) {
        const Block *b = pt_by_name(g, names[j]);
        assert_non_null(b);
        assert_int_equal(g->groups[gi].block_ids[j], b->id);
    }
}

static const char *const CONV_RELU[] = {"conv", "conv/in", "conv/w", "conv/b", "conv/out",
                                        "relu"};

/* A conv and its requantizing ReLU: one group with the conv's inputs, the intermediate SI
 * and the CCMPB; a second run changes nothing. */
static void test_conv_relu(void **state)
{
    (void)state;
    Graph *g = conv_relu(6, 3, 3);
    assert_int_equal(fused_groups(g), 1);
    assert_group(g, 0, CONV_RELU, 6);
    assert_int_equal(g->groups[0].id, 0);
    uint32_t nb = g->n_blocks;
    fuse(g);
    assert_int_equal(g->n_groups, 1);
    assert_int_equal(g->n_blocks, nb);
    assert_group(g, 0, CONV_RELU, 6);
    graph_destroy(g);
}

/* Max pooling after the conv (a window over the rows the Axon writes) fuses too. */
static void test_conv_pool(void **state)
{
    (void)state;
    Graph *g = conv_relu(6, 3, 3);
    Block *relu = pt_by_name(g, "relu"), *res = pt_by_name(g, "relu/out");
    relu->shape.d[D_Y] = relu->shape.d[D_X] = 3;
    relu->shape.d[D_KY] = relu->shape.d[D_KX] = 2;
    relu->shape.d[D_IY] = relu->shape.d[D_IX] = 6;
    assert_true(blk_set_attr(g, relu, AT_KERNEL_X, 2));
    assert_true(blk_set_attr(g, relu, AT_KERNEL_Y, 2));
    assert_true(blk_set_attr(g, relu, AT_STRIDE_X, 2));
    assert_true(blk_set_attr(g, relu, AT_STRIDE_Y, 2));
    res->shape.d[D_Y] = res->shape.d[D_X] = 3;
    Block *o = graph_block(g, g->edges[g->n_edges - 1]->dst);
    o->shape.d[D_Y] = o->shape.d[D_X] = 3;
    assert_int_equal(fused_groups(g), 1);
    assert_group(g, 0, CONV_RELU, 6);
    graph_destroy(g);
}

/* The conv's result read by the ReLU and an OUTPUT: the Axon's output feeds more than the
 * Soma, no pair. */
static void test_second_reader(void **state)
{
    (void)state;
    Graph *g = conv_relu(4, 2, 3);
    Block *o = pt_io(g, BT_OUTPUT, 4, 4, 4, 0);
    o->socket_id = 1;
    pt_link(g, pt_by_name(g, "conv/out"), o, 0);
    assert_int_equal(fused_groups(g), 0);
    graph_destroy(g);
}

/* The ReLU reading the conv's result transposed (PERMUTE y x): the Soma does not read the
 * rows as the Axon writes them, no pair. */
static void test_rearranged(void **state)
{
    (void)state;
    Graph *g = conv_relu(4, 2, 3);
    Edge *e = NULL;
    for (uint32_t i = 0; i < g->n_edges; i++)
        if (g->edges[i]->dst == pt_by_name(g, "relu")->id)
            e = g->edges[i];
    Rearrange *re = edge_add_rearrange(g, e, RT_PERMUTE, 1);
    assert_non_null(re);
    assert_true(tensor_set_i32(g, &re->mats[0], (const int32_t[]){3}, 1,
                               (const int32_t[]){1, 0, 2}, 3));
    assert_int_equal(fused_groups(g), 0);
    graph_destroy(g);
}

/* The block after the conv's SI is a CVS, an Axon block: no pair. */
static void test_not_soma(void **state)
{
    (void)state;
    Graph *g = conv_relu(4, 2, 3);
    Block *relu = pt_by_name(g, "relu");
    relu->type = BT_CVS;
    relu->n_attrs = 0;
    assert_true(blk_set_attr(g, relu, AT_CONSTANT_A, 3));
    assert_int_equal(fused_groups(g), 0);
    graph_destroy(g);
}

/* A 1x1 conv over 128 x 128 pixels of 16 channels: the input alone is 256 KiB, more than a
 * core holds, no pair. The same conv over 64 x 64 pixels (64 KiB of input, 512 KiB of
 * int32 output... also too large), and over 16 x 16 (4 KiB + 32 KiB): a pair. */
static void test_too_large(void **state)
{
    (void)state;
    const struct {
        int32_t hw;
        uint32_t groups;
    } cases[] = {{128, 0}, {64, 0}, {16, 1}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        Graph *g = conv_relu(cases[k].hw, 16, 1);
        assert_int_equal(fused_groups(g), cases[k].groups);
        graph_destroy(g);
    }
}

/* Groups already there (the conv with its inputs; the SI with the ReLU, as the existing
 * tools write them) are joined into the first, which keeps its id. */
static void test_join_groups(void **state)
{
    (void)state;
    Graph *g = conv_relu(4, 2, 3);
    pt_set_groups(g, CONV_RELU, (const uint32_t[]){4, 2}, 2, 10);
    assert_int_equal(fused_groups(g), 1);
    assert_group(g, 0, CONV_RELU, 6);
    assert_int_equal(g->groups[0].id, 10);
    graph_destroy(g);
}

/* A group that holds the ReLU and another compute block is left alone. */
static void test_foreign_group(void **state)
{
    (void)state;
    Graph *g = conv_relu(4, 2, 3);
    Block *other = pt_blk(g, BT_CVS, 4, 4, 4, "other");
    assert_true(blk_set_attr(g, other, AT_CONSTANT_A, 2));
    pt_link(g, pt_by_name(g, "relu/out"), other, 0);
    Block *s = pt_blk(g, BT_SI, 4, 4, 4, NULL), *o = pt_io(g, BT_OUTPUT, 4, 4, 4, 0);
    o->socket_id = 1;
    pt_link(g, other, s, 0);
    pt_link(g, s, o, 0);
    pt_set_groups(g, (const char *[]){"relu", "other"}, (const uint32_t[]){2}, 1, 10);
    assert_int_equal(fused_groups(g), 1);
    assert_group(g, 0, (const char *[]){"relu", "other"}, 2);
    graph_destroy(g);
}

/* Three groups of other compute blocks, in an array of exactly three as a loaded graph has
 * them, and a pair to add: the new group goes after them with the next id, theirs unchanged.
 * (The all-orders test of the diff suite, on graphs saved and loaded, is what caught
 * group_add writing past such an array.) */
static void test_add_to_loaded_groups(void **state)
{
    (void)state;
    Graph *g = conv_relu(4, 2, 3);
    const char *names[] = {"s0", "s1", "s2"};
    for (int k = 0; k < 3; k++) {
        Block *c = pt_blk(g, BT_CVS, 4, 4, 4, names[k]);
        assert_true(blk_set_attr(g, c, AT_CONSTANT_A, k + 2));
        pt_link(g, pt_by_name(g, "relu/out"), c, 0);
        Block *s = pt_blk(g, BT_SI, 4, 4, 4, NULL), *o = pt_io(g, BT_OUTPUT, 4, 4, 4, 0);
        o->socket_id = k + 1;
        pt_link(g, c, s, 0);
        pt_link(g, s, o, 0);
    }
    pt_set_groups(g, names, (const uint32_t[]){1, 1, 1}, 3, 10);
    assert_int_equal(fused_groups(g), 4);
    for (uint32_t k = 0; k < 3; k++) {
        assert_group(g, k, &names[k], 1);
        assert_int_equal(g->groups[k].id, 10 + (int32_t)k);
    }
    assert_group(g, 3, CONV_RELU, 6);
    assert_int_equal(g->groups[3].id, 13);
    graph_destroy(g);
}

/* INPUT -> SI a -> CADD "add" (bias "add/b") -> SI add/out -> CLUT "lut" (LUT_DW dw, table
 * "lut/table" of 2^dw entries) -> SI -> OUTPUT, all y x x x f (INT_32 but the input). */
static Graph *add_lut(int32_t y, int32_t x, int32_t f, int32_t dw)
{
    Graph *g = graph_create();
    assert_non_null(g);
    Block *in = pt_io(g, BT_INPUT, y, x, f, 0), *a = pt_blk(g, BT_SI, y, x, f, "a");
    Block *b = data(g, BT_SB, (const int32_t[]){f}, 1, "add/b");
    b->shape.d[D_F] = f;
    Block *add = pt_blk(g, BT_CADD, y, x, f, "add");
    add->bias_type = BIAS_VECTOR;
    Block *mid = pt_blk(g, BT_SI, y, x, f, "add/out"), *lut = pt_blk(g, BT_CLUT, y, x, f, "lut");
    assert_true(blk_set_attr(g, lut, AT_LUT_DW, dw));
    Block *table = data(g, BT_SB, (const int32_t[]){1 << dw}, 1, "lut/table");
    table->shape.d[D_F] = 1 << dw;
    Block *res = pt_blk(g, BT_SI, y, x, f, NULL);
    pt_link(g, in, a, 0);
    pt_link(g, a, add, 0);
    pt_link(g, b, add, 1);
    pt_link(g, add, mid, 0);
    pt_link(g, mid, lut, 0);
    pt_link(g, table, lut, 1);
    pt_link(g, lut, res, 0);
    pt_link(g, res, pt_io(g, BT_OUTPUT, y, x, f, 0), 0);
    return g;
}

/* A CADD and the CLUT after it: the table (an SB) joins the group. */
static void test_table(void **state)
{
    (void)state;
    Graph *g = add_lut(2, 2, 4, 9);
    assert_int_equal(fused_groups(g), 1);
    assert_group(g, 0, (const char *[]){"add", "a", "add/b", "add/out", "lut", "lut/table"},
                 6);
    graph_destroy(g);
}

/* A CADD of 256 pixels of one int32 channel and the CLUT after it (int32, a table of 256
 * entries), on a core of budget bytes: the number of groups fuse makes (1: paired). The pair
 * takes the CADD's input and output (256 pixels of 32-lane int32 groups, 32768 bytes each),
 * its bias (128), the table (1024) and the CLUT's output buffer: P07 writes the row it reads,
 * 8 int32 lanes a pixel, 8192 bytes as chip_buffer_held counts it (4096 in the chip
 * description's 16-byte rows): 74880 bytes. */
static uint32_t lut_pair(int64_t budget)
{
    Graph *g = add_lut(1, 256, 1, 8);
    int64_t was = chip->core_budget_bytes;
    chip->core_budget_bytes = budget;
    uint32_t n = fused_groups(g);
    chip->core_budget_bytes = was;
    graph_destroy(g);
    return n;
}

static void test_lut_budget(void **state)
{
    (void)state;
    assert_int_equal(lut_pair(74880), 1);
    assert_int_equal(lut_pair(74879), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_relu),
        cmocka_unit_test(test_conv_pool),
        cmocka_unit_test(test_second_reader),
        cmocka_unit_test(test_rearranged),
        cmocka_unit_test(test_not_soma),
        cmocka_unit_test(test_too_large),
        cmocka_unit_test(test_join_groups),
        cmocka_unit_test(test_foreign_group),
        cmocka_unit_test(test_add_to_loaded_groups),
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_lut_budget),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
