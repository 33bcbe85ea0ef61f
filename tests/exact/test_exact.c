/* test_exact.c: chip exactness (docs/exactness.md) on hand-built graphs whose figures are
 * worked out by hand: the interval analysis (a CVM's ranges from its real weights, a
 * convolution with padding), each map.exact.* rule, each rewrite of the mapper keeping the
 * outputs bit for bit under the TaskGraph's arithmetic and giving them under the chip's too,
 * and the chip's arithmetic of the simulator (sim_use_chip) on hand-worked values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "graphbuild.h"

#include "mapper/mapper.h"
#include "taskir/chip_cost.h"
#include "taskir/exact.h"
#include "taskir/sim.h"
#include "taskir/verify.h"

#include <stdlib.h>
#include <string.h>

/* INPUT of precision p and f values (1-D), socket 0. */
static Block *input(Graph *g, PrecisionId p, int32_t f)
{
    Block *in = tg_io(g, BT_INPUT, "x", p, (const int32_t[8]){1, 1, f, 0, 0, 0, 0, 0}, 0);
    return in;
}

/* src -> SI of precision p (1 x 1 x f) -> returned. */
static Block *store(Graph *g, Block *src, const char *name, PrecisionId p, int32_t f)
{
    Block *s = tg_blk(g, BT_SI, name, p, (const int32_t[8]){1, 1, f, 0, 0, 0, 0, 0});
    tg_join(g, src, 0, s, 0);
    return s;
}

/* s -> OUTPUT, socket 0. */
static void output(Graph *g, Block *s, int32_t f)
{
    Block *o = tg_blk(g, BT_OUTPUT, "y", PR_INT_32, (const int32_t[8]){1, 1, f, 0, 0, 0, 0, 0});
    o->has_prec = false;
    o->socket_id = 0;
    o->has_socket_id = true;
    tg_join(g, s, 0, o, 0);
}

/* A 1 x 1 window CCMPB / CCMPS over f channels reading s. */
static Block *cmp(Graph *g, Block *s, BlockType t, PrecisionId p, int32_t f, int32_t shift,
                  int32_t c)
{
    Block *b = tg_blk(g, t, "cmp", p, (const int32_t[8]){1, 1, f, 0, 1, 1, 1, 1});
    assert_true(blk_set_attr(g, b, AT_CMP, c));
    if (shift)
        assert_true(blk_set_attr(g, b, AT_BIT_SHIFT_NUM, shift));
    tg_join(g, s, 0, b, 0);
    return b;
}

static const ExactBlock *xb_of(const Graph *g, const ExactInfo *x, const Block *b)
{
    return &x->blocks[graph_block_pos(g, b->id)];
}

/* tg_run with as many outputs as inputs. */
static void run(const Graph *g, const Chip *c, const int32_t *in, int64_t n, int32_t *out)
{
    tg_run(g, c, in, n, out, n);
}

/* The findings of exact_check on g: how many, and whether rule is among them. */
static size_t check(const Graph *g, const Chip *c, const char *rule)
{
    ExactInfo x;
    Diag d;
    diag_init(&d, "t");
    assert_int_equal(exact_analyse(g, &x, &d), ST_OK);
    size_t n = exact_check(g, c, &x, ST_LOGIC, &d);
    if (rule)
        assert_true(diag_find(&d, rule) >= 0);
    exact_finish(&x);
    diag_finish(&d);
    return n;
}

/* Rewrites g (mapper_exact) and checks that the TaskGraph's outputs on in (n values, f
 * outputs) stay what they were and that the chip gives them too; returns the rewrites. */
static uint32_t rewrite_keeps(Graph *g, const Chip *c, const int32_t *in, int64_t n)
{
    int32_t *before = malloc((size_t)n * sizeof *before), *after = malloc((size_t)n * 4);
    int32_t *chip = malloc((size_t)n * sizeof *chip);
    assert_non_null(before);
    assert_non_null(after);
    assert_non_null(chip);
    run(g, NULL, in, n, before);
    Diag d;
    diag_init(&d, "t");
    uint32_t nr = 0;
    assert_int_equal(mapper_exact(g, c, &nr, &d), ST_OK);
    assert_int_equal(verify_graph(g, &d), ST_OK);
    diag_finish(&d);
    run(g, NULL, in, n, after);
    run(g, c, in, n, chip);
    assert_memory_equal(before, after, (size_t)n * sizeof *after);
    assert_memory_equal(before, chip, (size_t)n * sizeof *chip);
    assert_int_equal(check(g, c, NULL), 0);
    free(before);
    free(after);
    free(chip);
    return nr;
}

/* mapper_exact on g refuses it: a logic error with rule on block id. */
static void refuses(Graph *g, const Chip *c, const char *rule, int32_t id)
{
    Diag d;
    diag_init(&d, "t");
    uint32_t nr = 0;
    assert_int_equal(mapper_exact(g, c, &nr, &d), ST_LOGIC);
    long k = diag_find(&d, rule);
    assert_true(k >= 0);
    assert_int_equal(d.entries[k].status, ST_LOGIC);
    assert_int_equal(d.entries[k].block_id, id);
    diag_finish(&d);
}

static Chip *chip(void)
{
    Chip *c = NULL;
    Diag d;
    diag_init(&d, "chip");
    assert_int_equal(chip_load_default(&c, &d), ST_OK);
    diag_finish(&d);
    return c;
}

/* INPUT (4, no precision: that of the INT_8 SIFC it writes) -> SIFC -> CVM with
 * W = [[1,-2,3,-4],[5,6,7,8]], bias [10,-10] -> SI.
 * Channel 0: P = 4, N = -6: [10 - 512 - 762, 10 + 508 + 768] = [-1264, 1286]; channel 1:
 * P = 26: [-10 - 3328, -10 + 3302] = [-3338, 3292]; the union [-3338, 3292]. */
static void test_cvm_ranges(void **state)
{
    (void)state;
    Graph *g = graph_create();
    Block *in = input(g, PR_INT_8, 4);
    in->has_prec = false;
    Block *x = tg_blk(g, BT_SIFC, "x/in", PR_INT_8, (const int32_t[8]){0, 0, 0, 4, 0, 0, 0, 0});
    Block *w = tg_blk(g, BT_SWFC, "w", PR_INT_8, (const int32_t[8]){0, 0, 2, 4, 0, 0, 0, 0});
    Block *bs = tg_blk(g, BT_SB, "b", PR_INT_32, (const int32_t[8]){0, 0, 2, 0, 0, 0, 0, 0});
    Block *fc = tg_blk(g, BT_CVM, "fc", PR_INT_32, (const int32_t[8]){0, 0, 2, 4, 0, 0, 0, 0});
    fc->bias_type = BIAS_VECTOR;
    assert_true(blk_set_data(g, w, PR_INT_8, (const int32_t[2]){2, 4}, 2,
                             (const int64_t[8]){1, -2, 3, -4, 5, 6, 7, 8}, 8));
    assert_true(blk_set_data(g, bs, PR_INT_32, (const int32_t[1]){2}, 1,
                             (const int64_t[2]){10, -10}, 2));
    tg_join(g, in, 0, x, 0);
    tg_join(g, x, 0, fc, 0);
    tg_join(g, w, 0, fc, 1);
    tg_join(g, bs, 0, fc, 2);
    Block *y = tg_blk(g, BT_SI, "y", PR_INT_32, (const int32_t[8]){1, 1, 2, 0, 0, 0, 0, 0});
    tg_join(g, fc, 0, y, 0);
    output(g, y, 2);
    Diag d;
    diag_init(&d, "t");
    assert_int_equal(verify_graph(g, &d), ST_OK);
    ExactInfo ex;
    assert_int_equal(exact_analyse(g, &ex, &d), ST_OK);
    const ExactBlock *b = xb_of(g, &ex, fc);
    assert_int_equal(b->raw.lo, -3338);
    assert_int_equal(b->raw.hi, 3292);
    assert_int_equal(b->acc.lo, -3338);
    assert_int_equal(b->acc.hi, 3292);
    assert_int_equal(xb_of(g, &ex, y)->out.lo, -3338);
    assert_int_equal(xb_of(g, &ex, in)->out.hi, 127);
    exact_finish(&ex);
    diag_finish(&d);
    graph_destroy(g);
}

/* A UINT_8 input (0 .. 255) into a 3 x 1 conv with weights [2, -1, 3] and padding 1 on top:
 * P = 5, N = -1; without padding the exact sum would lie in [0 - 255, 5 * 255] = [-255,
 * 1275], with padding the partial sums' bound holds (the same here, 0 in the range), and
 * the accumulator from bias 7: [7 - 255, 7 + 1275]. */
static void test_conv_padding(void **state)
{
    (void)state;
    Graph *g = graph_create();
    Block *in = tg_io(g, BT_INPUT, "x", PR_UINT_8, (const int32_t[8]){3, 1, 1, 0, 0, 0, 0, 0}, 0);
    Block *x = tg_blk(g, BT_SIC, "x/in", PR_UINT_8, (const int32_t[8]){3, 1, 0, 1, 0, 0, 0, 0});
    Block *w = tg_blk(g, BT_SW, "w", PR_INT_8, (const int32_t[8]){0, 0, 1, 1, 3, 1, 0, 0});
    Block *cc = tg_blk(g, BT_CC, "cc", PR_INT_32, (const int32_t[8]){3, 1, 1, 1, 3, 1, 3, 1});
    assert_true(blk_set_attr(g, cc, AT_PAD_UP, 1));
    assert_true(blk_set_attr(g, cc, AT_PAD_DOWN, 1));
    assert_true(blk_set_attr(g, cc, AT_KERNEL_Y, 3));
    assert_true(blk_set_attr(g, cc, AT_CONSTANT_B, 7));
    cc->bias_type = BIAS_CONSTANT;
    assert_true(blk_set_data(g, w, PR_INT_8, (const int32_t[4]){1, 1, 3, 1}, 4,
                             (const int64_t[3]){2, -1, 3}, 3));
    tg_join(g, in, 0, x, 0);
    tg_join(g, x, 0, cc, 0);
    tg_join(g, w, 0, cc, 1);
    Block *y = tg_blk(g, BT_SI, "y", PR_INT_32, (const int32_t[8]){3, 1, 1, 0, 0, 0, 0, 0});
    tg_join(g, cc, 0, y, 0);
    Block *o = tg_blk(g, BT_OUTPUT, "o", PR_INT_32, (const int32_t[8]){3, 1, 1, 0, 0, 0, 0, 0});
    o->has_prec = false;
    o->socket_id = 0;
    o->has_socket_id = true;
    tg_join(g, y, 0, o, 0);
    Diag d;
    diag_init(&d, "t");
    assert_int_equal(verify_graph(g, &d), ST_OK);
    ExactInfo ex;
    assert_int_equal(exact_analyse(g, &ex, &d), ST_OK);
    const ExactBlock *b = xb_of(g, &ex, cc);
    assert_int_equal(b->acc.lo, 7 - 255);
    assert_int_equal(b->acc.hi, 7 + 1275);
    exact_finish(&ex);
    Chip *c = chip();
    assert_int_equal(check(g, c, NULL), 0);
    chip_destroy(c);
    diag_finish(&d);
    graph_destroy(g);
}

/* INPUT INT_8 -> SI -> CVS (CONSTANT_A 2^30) -> SI -> OUTPUT: 127 * 2^30 leaves int32.
 * The TaskGraph wraps: 3 * 2^30 -> -2^30, -3 * 2^30 -> 2^30; the chip saturates: INT32_MAX,
 * INT32_MIN; 1 * 2^30 fits either way. No rewrite: map.exact.overflow is an error. */
static void test_overflow(void **state)
{
    (void)state;
    Graph *g = graph_create();
    Block *s = store(g, input(g, PR_INT_8, 3), "x/in", PR_INT_8, 3);
    Block *v = tg_blk(g, BT_CVS, "big", PR_INT_32, (const int32_t[8]){1, 1, 3, 0, 0, 0, 0, 0});
    assert_true(blk_set_attr(g, v, AT_CONSTANT_A, 1 << 30));
    tg_join(g, s, 0, v, 0);
    output(g, store(g, v, "y", PR_INT_32, 3), 3);
    Chip *c = chip();
    assert_int_equal(check(g, c, "map.exact.overflow"), 1);
    int32_t in[3] = {3, -3, 1}, tg[3], ch[3];
    run(g, NULL, in, 3, tg);
    run(g, c, in, 3, ch);
    assert_int_equal(tg[0], -(1 << 30));
    assert_int_equal(tg[1], 1 << 30);
    assert_int_equal(ch[0], INT32_MAX);
    assert_int_equal(ch[1], INT32_MIN);
    assert_int_equal(tg[2], ch[2]);
    Diag d;
    diag_init(&d, "t");
    uint32_t nr = 0;
    assert_int_equal(mapper_exact(g, c, &nr, &d), ST_LOGIC);
    long k = diag_find(&d, "map.exact.overflow");
    assert_true(k >= 0);
    /* the message says what reaches it: 3 values of -128 .. 127 times 2^30 */
    assert_non_null(strstr(d.entries[k].what, "may reach -137438953472 .. 136365211648, "
                                              "outside int32, from inputs of -128 .. 127"));
    diag_finish(&d);
    chip_destroy(c);
    graph_destroy(g);
}

/* An INT_32 input negated (CVS -1): -(-2^31) wraps to -2^31 in the TaskGraph and saturates
 * to 2^31 - 1 on the chip, so without a declared range the negation is map.exact.overflow.
 * With the range of a CVM input of precision 32 (-(2^31 - 1) .. 2^31 - 1, the model tensor's
 * lo, hi) it never overflows: no finding, and the mapper keeps the outputs on the chip. The
 * value -2^31 is then refused by the simulator [sim.input.range]. */
static void test_declared_range(void **state)
{
    (void)state;
    Chip *c = chip();
    for (int declared = 0; declared < 2; declared++) {
        Graph *g = graph_create();
        Block *in = input(g, PR_INT_32, 3);
        assert_true(blk_set_model(g, in, (const int64_t[1]){3}, 1, PR_INT_32, false));
        in->has_model_range = declared;
        in->model_lo = -INT32_MAX;
        in->model_hi = INT32_MAX;
        Block *s = store(g, in, "x/in", PR_INT_32, 3);
        Block *v = tg_blk(g, BT_CVS, "neg", PR_INT_32, (const int32_t[8]){1, 1, 3, 0, 0, 0, 0, 0});
        assert_true(blk_set_attr(g, v, AT_CONSTANT_A, -1));
        tg_join(g, s, 0, v, 0);
        output(g, store(g, v, "y", PR_INT_32, 3), 3);
        Diag d;
        diag_init(&d, "t");
        assert_int_equal(verify_graph(g, &d), ST_OK);
        ExactInfo x;
        assert_int_equal(exact_analyse(g, &x, &d), ST_OK);
        assert_int_equal(xb_of(g, &x, in)->out.lo, declared ? -INT32_MAX : INT32_MIN);
        exact_finish(&x);
        if (!declared) {
            assert_int_equal(check(g, c, "map.exact.overflow"), 1);
        } else {
            assert_int_equal(check(g, c, NULL), 0);
            int32_t ends[3] = {INT32_MAX, -INT32_MAX, 0}, out[3];
            rewrite_keeps(g, c, ends, 3);
            run(g, c, ends, 3, out);
            assert_int_equal(out[0], -INT32_MAX);
            assert_int_equal(out[1], INT32_MAX);
            SimRun *r = NULL;
            SimOptions o = {.threads = 1, .steps = 1, .keep_all = false};
            assert_int_equal(sim_create(g, &o, &r, &d), ST_OK);
            int32_t bad[3] = {0, INT32_MIN, 0};
            assert_int_equal(sim_set_input(r, 0, bad, 3, &d), ST_LOGIC);
            assert_true(diag_find(&d, "sim.input.range") >= 0);
            sim_destroy(r);
        }
        diag_finish(&d);
        graph_destroy(g);
    }
    chip_destroy(c);
}

/* INT_32 values floor-shifted by 29 (an INT_32 CCMPB, CMP INT32_MIN: cvm_right_shift of
 * precision 32 by 30): odd, and no doubled int32 value holds them, so the chip can neither
 * shift (it does not narrow) nor double; but shifted by 28 they lie in -8 .. 7. The mapper
 * puts a CCMPB shifting by 28 without a clip before it and shifts by 1 ("halving"): the
 * next round narrows the first to INT_8 and doubles the second. The same for a CCMPS
 * (CMP INT32_MAX). Outputs kept on int32's ends, under the TaskGraph's arithmetic and the
 * chip's. */
static void test_halving(void **state)
{
    (void)state;
    Chip *c = chip();
    for (int t = 0; t < 2; t++) {
        Graph *g = graph_create();
        Block *s = store(g, input(g, PR_INT_32, 6), "x/in", PR_INT_32, 6);
        Block *b = cmp(g, s, t ? BT_CCMPS : BT_CCMPB, PR_INT_32, 6, 29,
                       t ? INT32_MAX : INT32_MIN);
        output(g, store(g, b, "y", PR_INT_32, 6), 6);
        assert_int_equal(check(g, c, "map.exact.shift32"), 1);
        int32_t in[6] = {INT32_MIN, INT32_MAX, 0, -1, 1 << 29, -(1 << 29) - 1}, out[6];
        assert_true(rewrite_keeps(g, c, in, 6) >= 3);
        run(g, c, in, 6, out);
        assert_int_equal(out[0], -4);
        assert_int_equal(out[1], 3);
        assert_int_equal(out[3], -1);
        assert_int_equal(out[5], -2);
        graph_destroy(g);
    }
    chip_destroy(c);
}

/* A CLUT `name` of INT_32 and LUT_DW dw reading the ch channels of s, its table the 2^dw
 * entries tab as an SB of INT_32 (into *table when table is not NULL). */
static Block *table_lut(Graph *g, Block *s, const char *name, int32_t ch, int dw,
                        const int64_t *tab, Block **table)
{
    int32_t n = (int32_t)1 << dw;
    Block *lut = tg_blk(g, BT_CLUT, name, PR_INT_32, (const int32_t[8]){1, 1, ch, 0, 0, 0, 0, 0});
    assert_true(blk_set_attr(g, lut, AT_LUT_DW, dw));
    Block *t = tg_blk(g, BT_SB, "tab", PR_INT_32, (const int32_t[8]){0, 0, n, 0, 0, 0, 0, 0});
    assert_true(blk_set_data(g, t, PR_INT_32, (const int32_t[1]){n}, 1, tab, (uint64_t)n));
    tg_join(g, s, 0, lut, 0);
    tg_join(g, t, 0, lut, 1);
    if (table)
        *table = t;
    return lut;
}

/* A CLUT of LUT_DW 10 (1024 entries, lut[i] = i - 3000): P07 reads 4096 (the table widened,
 * layout_lut_entries), an index clipped to -2048 .. 2047, from an image holding the graph's
 * entries at both ends (emit_image_lut). So every index of the graph's -1024 .. 1023 reads
 * what the graph does under the chip's arithmetic too: 600 -> -2400, -600 -> entry 424,
 * 1023 and -1024 the table's ends. A LUT_DW 8 table is read as it is (256 entries): the
 * chip clips index 200 to 127 and -200 to -128 (entry 128) where the graph reads entries
 * 200 and 56. */
static void test_lut_widened(void **state)
{
    (void)state;
    Chip *c = chip();
    for (int dw = 8; dw <= 10; dw += 2) {
        int64_t n = (int64_t)1 << dw, tab[1024];
        for (int64_t i = 0; i < n; i++)
            tab[i] = i - 3000;
        Graph *g = graph_create();
        Block *s = store(g, input(g, PR_INT_32, 5), "x/in", PR_INT_32, 5);
        Block *lut = table_lut(g, s, "lut", 5, dw, tab, NULL);
        output(g, store(g, lut, "y", PR_INT_32, 5), 5);
        int32_t in[5] = {600, -600, 1023, -1024, 5}, tg[5], ch[5];
        if (dw == 8)
            in[0] = 200, in[1] = -200, in[2] = 255, in[3] = -256;
        run(g, NULL, in, 5, tg);
        run(g, c, in, 5, ch);
        if (dw == 10) {
            assert_int_equal(tg[0], 600 - 3000);
            assert_int_equal(tg[1], 424 - 3000);
            assert_int_equal(tg[2], 1023 - 3000);
            assert_int_equal(tg[3], 0 - 3000);
            assert_memory_equal(tg, ch, sizeof tg);
        } else {
            assert_int_equal(tg[0], 200 - 3000);
            assert_int_equal(tg[1], 56 - 3000);
            assert_int_equal(ch[0], 127 - 3000);
            assert_int_equal(ch[1], 128 - 3000);
            assert_int_equal(ch[4], tg[4]);
        }
        graph_destroy(g);
    }
    chip_destroy(c);
}

/* The index of a CLUT of LUT_DW 8 (P07 reads the 256 entries as they are, an index
 * saturated to -128 .. 127) from an INT_8 map stays inside: no finding; from a UINT_8 map
 * (0 .. 255, never negative) it may not (map.exact.clip): index 200 reads entry 200 in the
 * TaskGraph, entry 127 on the chip; unless entries 127 .. 255 are all alike (a clip). */
static void test_lut_index(void **state)
{
    (void)state;
    Chip *c = chip();
    for (int k = 0; k < 3; k++) {
        PrecisionId p = k ? PR_UINT_8 : PR_INT_8;
        int64_t tab[256];
        for (int64_t i = 0; i < 256; i++)
            tab[i] = (k == 2 && i > 127 ? 127 : i) - 3000;
        Graph *g = graph_create();
        Block *s = store(g, input(g, p, 2), "x/in", p, 2);
        Block *lut = table_lut(g, s, "lut", 2, 8, tab, NULL);
        output(g, store(g, lut, "y", PR_INT_32, 2), 2);
        assert_int_equal(check(g, c, k == 1 ? "map.exact.clip" : NULL), k == 1);
        int32_t in[2] = {k ? 200 : -100, 100}, tg[2], ch[2];
        run(g, NULL, in, 2, tg);
        run(g, c, in, 2, ch);
        assert_int_equal(tg[0], (k == 2 ? 127 : in[0] + (in[0] < 0 ? 256 : 0)) - 3000);
        assert_int_equal(ch[0], k ? 127 - 3000 : tg[0]);
        assert_int_equal(ch[1], tg[1]);
        graph_destroy(g);
    }
    chip_destroy(c);
}

/* A CLUT of INT_32 with a table of 256 entries x -> |x| / 2 (0 .. 64) writing a UINT_8 map
 * (mapper/exact_table.c): it takes UINT_8, in which P07 reads its table, the memory counts
 * the table in bytes (256, not 1024), and the outputs stay; with one entry of 300, outside
 * UINT_8, or a map of INT_32, it stays INT_32. */
static void test_table_narrow(void **state)
{
    (void)state;
    Chip *c = chip();
    for (int k = 0; k < 3; k++) {
        int64_t tab[256];
        for (int i = 0; i < 256; i++)
            tab[i] = (i < 128 ? i : 256 - i) / 2;
        if (k == 1)
            tab[5] = 300;
        Graph *g = graph_create();
        Block *s = store(g, input(g, PR_INT_8, 6), "x/in", PR_INT_8, 6);
        Block *t;
        Block *lut = table_lut(g, s, "lut", 6, 8, tab, &t);
        output(g, store(g, lut, "y", k == 2 ? PR_INT_32 : PR_UINT_8, 6), 6);
        assert_int_equal(chip_storage_bytes(c, t, lut), 1024);
        int32_t in[6] = {0, 1, 5, -128, 127, -7}; /* 5: 300 in the second (its map widens) */
        rewrite_keeps(g, c, in, 6);
        lut = graph_block(g, lut->id);
        assert_int_equal(blk_prec(lut), k == 0 ? PR_UINT_8 : PR_INT_32);
        assert_int_equal(chip_storage_bytes(c, graph_block(g, t->id), lut), k == 0 ? 256 : 1024);
        graph_destroy(g);
    }
    chip_destroy(c);
}

/* A CLUT of 256 entries x -> |x| (entry 128, of index -128, is 128) over an INT_8 input:
 * its values are 0 .. 128 by the whole table; with the input's declared range -127 .. 127
 * (a CVM input of precision 8) only the entries of -127 .. 127 are reached, 0 .. 127, which
 * INT_8 holds (test_diff_chain/batch_of_2's abs, whose product with an INT_8 sign P03 reads
 * in one precision). The table's own range (acc) stays 0 .. 128. */
static void test_lut_reached(void **state)
{
    (void)state;
    for (int declared = 0; declared < 2; declared++) {
        int64_t tab[256];
        for (int i = 0; i < 256; i++)
            tab[i] = i < 128 ? i : 256 - i;
        Graph *g = graph_create();
        Block *in = input(g, PR_INT_8, 6);
        assert_true(blk_set_model(g, in, (const int64_t[1]){6}, 1, PR_INT_32, false));
        in->has_model_range = declared;
        in->model_lo = -127;
        in->model_hi = 127;
        Block *s = store(g, in, "x/in", PR_INT_8, 6);
        Block *lut = table_lut(g, s, "abs", 6, 8, tab, NULL);
        output(g, store(g, lut, "y", PR_INT_32, 6), 6);
        Diag d;
        diag_init(&d, "t");
        assert_int_equal(verify_graph(g, &d), ST_OK);
        ExactInfo x;
        assert_int_equal(exact_analyse(g, &x, &d), ST_OK);
        const ExactBlock *b = xb_of(g, &x, lut);
        assert_int_equal(b->out.lo, 0);
        assert_int_equal(b->out.hi, declared ? 127 : 128);
        assert_int_equal(b->acc.hi, 128);
        exact_finish(&x);
        diag_finish(&d);
        graph_destroy(g);
    }
}

/* The chip's CADD saturates after each input: INT32_MAX - 5 + 10 - 10 -> INT32_MAX - 10 on
 * the chip (INT32_MAX after the first add), INT32_MAX - 5 in the TaskGraph. */
static void test_cadd_saturates(void **state)
{
    (void)state;
    Graph *g = graph_create();
    Block *in = input(g, PR_INT_32, 1);
    in->has_prec = false;
    Block *a = store(g, in, "a", PR_INT_32, 1);
    Block *k = tg_blk(g, BT_SI, "k", PR_INT_32, (const int32_t[8]){1, 1, 1, 0, 0, 0, 0, 0});
    Block *m = tg_blk(g, BT_SI, "m", PR_INT_32, (const int32_t[8]){1, 1, 1, 0, 0, 0, 0, 0});
    assert_true(blk_set_data(g, k, PR_INT_32, (const int32_t[3]){1, 1, 1}, 3,
                             (const int64_t[1]){10}, 1));
    assert_true(blk_set_data(g, m, PR_INT_32, (const int32_t[3]){1, 1, 1}, 3,
                             (const int64_t[1]){-10}, 1));
    Block *add = tg_blk(g, BT_CADD, "add", PR_INT_32, (const int32_t[8]){1, 1, 1, 0, 0, 0, 0, 0});
    add->shape.n_branch = 3;
    tg_join(g, a, 0, add, 0);
    tg_join(g, k, 0, add, 1);
    tg_join(g, m, 0, add, 2);
    output(g, store(g, add, "y", PR_INT_32, 1), 1);
    Chip *c = chip();
    int32_t in0 = INT32_MAX - 5, tg, ch;
    run(g, NULL, &in0, 1, &tg);
    run(g, c, &in0, 1, &ch);
    assert_int_equal(tg, INT32_MAX - 5);
    assert_int_equal(ch, INT32_MAX - 10);
    assert_int_equal(check(g, c, "map.exact.overflow"), 1);
    chip_destroy(c);
    graph_destroy(g);
}

/* INT_32 -> INT_32 CCMPB shifting by 4 (a floor division): the chip does not shift (100 ->
 * 100, the TaskGraph 6; -100 -> -100, the TaskGraph -7). From INT_8 values the shifted ones
 * (-8 .. 7) fit 8 bits: the mapper makes it narrow (INT_8, CMP INT32_MIN -> -128). */
static void test_shift32_narrow(void **state)
{
    (void)state;
    Graph *g = graph_create();
    Block *s = store(g, input(g, PR_INT_8, 4), "x/in", PR_INT_32, 4);
    Block *b = cmp(g, s, BT_CCMPB, PR_INT_32, 4, 4, INT32_MIN);
    output(g, store(g, b, "y", PR_INT_32, 4), 4);
    Chip *c = chip();
    assert_int_equal(check(g, c, "map.exact.shift32"), 1);
    int32_t in[4] = {100, -100, 127, -128}, tg[4], ch[4];
    run(g, NULL, in, 4, tg);
    run(g, c, in, 4, ch);
    assert_int_equal(tg[0], 6);
    assert_int_equal(tg[1], -7);
    assert_int_equal(ch[0], 100);
    assert_int_equal(ch[1], -100);
    assert_int_equal(rewrite_keeps(g, c, in, 4), 1);
    assert_int_equal(blk_prec(b), PR_INT_8);
    assert_int_equal(blk_attr(b, AT_CMP), -128);
    chip_destroy(c);
    graph_destroy(g);
}

/* The same from INT_16 values: the shifted ones (-2048 .. 2047) fit no 8 bits but a table
 * of 4096: the CCMPB becomes a CLUT with LUT_DW 12, shift 4, the table of its clip. */
static void test_shift32_lut(void **state)
{
    (void)state;
    Graph *g = graph_create();
    Block *s = store(g, input(g, PR_INT_16, 4), "x/in", PR_INT_32, 4);
    Block *b = cmp(g, s, BT_CCMPB, PR_INT_32, 4, 4, -1000);
    output(g, store(g, b, "y", PR_INT_32, 4), 4);
    Chip *c = chip();
    assert_true(check(g, c, "map.exact.shift32") >= 1);
    int32_t in[4] = {32767, -32768, -16001, 100};
    assert_int_equal(rewrite_keeps(g, c, in, 4), 1);
    assert_int_equal(b->type, BT_CLUT);
    assert_int_equal(blk_attr(b, AT_LUT_DW), 12);
    assert_int_equal(blk_attr(b, AT_BIT_SHIFT_NUM), 4);
    chip_destroy(c);
    graph_destroy(g);
}

/* From INT_32 values of any size no rewrite is exact: map.exact.shift32 stays an error. */
static void test_shift32_error(void **state)
{
    (void)state;
    Graph *g = graph_create();
    Block *in = input(g, PR_INT_32, 2);
    in->has_prec = false;
    Block *b = cmp(g, store(g, in, "x/in", PR_INT_32, 2), BT_CCMPS, PR_INT_32, 2, 4,
                   INT32_MAX);
    output(g, store(g, b, "y", PR_INT_32, 2), 2);
    Chip *c = chip();
    refuses(g, c, "map.exact.shift32", b->id);
    chip_destroy(c);
    graph_destroy(g);
}

/* n values of precision p: its two ends, 0, -1, and steps of a prime through the range. */
static int32_t *sweep(PrecisionId p, int64_t n)
{
    ExactRange r = exact_prec_range(p);
    int32_t *v = malloc((size_t)n * sizeof *v);
    assert_non_null(v);
    uint64_t span = (uint64_t)(r.hi - r.lo) + 1;
    for (int64_t i = 0; i < n; i++)
        v[i] = (int32_t)(r.lo + (int64_t)(((uint64_t)i * 2654435761u) % span));
    v[0] = (int32_t)r.lo;
    v[1] = (int32_t)r.hi;
    v[2] = 0;
    v[3] = -1;
    return v;
}

/* x (INT_28) -> CCMPB floor shift s from INT_32 to INT_32, no clip: the shifted values fit
 * no 8 bits nor a table, so the shift splits into one by s + 7 (s odd) or s + 6 bits more
 * and the remainder below them (docs/exactness.md, "Wide shifts and products"), until the
 * pieces narrow or become tables; the block becomes the sum of the pieces (a CADD). */
static void wide_shift(int32_t s)
{
    Graph *g = graph_create();
    int64_t n = 4096;
    Block *x = store(g, input(g, PR_INT_28, (int32_t)n), "x/in", PR_INT_32, (int32_t)n);
    Block *b = cmp(g, x, BT_CCMPB, PR_INT_32, (int32_t)n, s, INT32_MIN);
    output(g, store(g, b, "y", PR_INT_32, (int32_t)n), (int32_t)n);
    Chip *c = chip();
    assert_int_equal(check(g, c, "map.exact.shift32"), 1);
    int32_t *in = sweep(PR_INT_28, n);
    assert_true(rewrite_keeps(g, c, in, n) > 1);
    assert_int_equal(b->type, BT_CADD);
    free(in);
    chip_destroy(c);
    graph_destroy(g);
}

static void test_wide_shift(void **state)
{
    (void)state;
    wide_shift(3);
    wide_shift(4);
    wide_shift(1);
}

/* x (INT_16, stored INT_32) times y (CVVH): P03 reads 8-bit operands only, so the product
 * splits into x's 6-bit limbs times y, summed. y is x >> 8 narrowed to INT_8, or (square) x
 * itself (test_diff_chain/outputs): then both operands are INT_32, the first splits, and
 * each limb's product with x splits x in turn. Every product then reads 8-bit storage, and
 * the outputs stay, under the TaskGraph's arithmetic and the chip's. */
static void wide_product(bool square)
{
    Graph *g = graph_create();
    int64_t n = 4096;
    Block *in = input(g, PR_INT_16, (int32_t)n);
    Block *x = store(g, in, "x/in", PR_INT_32, (int32_t)n);
    Block *y = square ? x : store(g, cmp(g, x, BT_CCMPB, PR_INT_8, (int32_t)n, 8, -128), "y/in",
                                  PR_INT_8, (int32_t)n);
    Block *b = tg_blk(g, BT_CVVH, "xy", PR_INT_32,
                   (const int32_t[8]){1, 1, (int32_t)n, 0, 0, 0, 0, 0});
    tg_join(g, x, 0, b, 0);
    tg_join(g, y, 0, b, 1);
    output(g, store(g, b, "p", PR_INT_32, (int32_t)n), (int32_t)n);
    Chip *c = chip();
    int32_t *v = sweep(PR_INT_16, n);
    assert_true(rewrite_keeps(g, c, v, n) > 1);
    assert_int_equal(b->type, BT_CADD);
    for (uint32_t i = 0; i < g->n_blocks; i++) /* every product now reads 8-bit storage */
        if (g->blocks[i]->type == BT_CVVH)
            for (uint32_t k = 0; k < 2; k++) {
                const Edge *e = graph_edge(g, g->blocks[i]->in[k].ifaces[0].edge_id);
                assert_int_equal(pr_info(blk_prec(graph_block(g, e->src)))->bits, 8);
            }
    free(v);
    chip_destroy(c);
    graph_destroy(g);
}

static void test_wide_product(void **state)
{
    (void)state;
    wide_product(false);
}

static void test_wide_square(void **state)
{
    (void)state;
    wide_product(true);
}

/* The compute blocks of g whose name's last part starts with tag (the pre-clip's "pre.lo",
 * "pre.hi"). */
static int named(const Graph *g, const char *tag)
{
    int n = 0;
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        const char *last = strrchr(g->blocks[i]->name, '/');
        n += bt_info(g->blocks[i]->type)->kind == BK_COMPUTE && last &&
             !strncmp(last + 1, tag, strlen(tag));
    }
    return n;
}

/* x (any int32 value) -> CCMPB floor shift s from INT_32 to INT_32, no clip: the shifted
 * values fit no 8 bits nor a table (s < 20) and no clip narrows them (cvm_right_shift of
 * precision 32 by 20: a shift by 19 into -4096 .. 4095). Split at S = s + k, the remainder
 * v + n with n = -h 2^S lies past int32 for two independent ranges; the analysis keeps that
 * it is v mod 2^S (taskir/exact_mod.c), and where -h 2^S itself passes int32 (h = -2^(31-S)
 * at int32's lower end) n = -(h + 1) 2^S comes from the bias -2^S, the remainder 2^S lower
 * (docs/exactness.md, "Wide shifts and products"). The outputs stay on int32's ends, 0, -1,
 * each k 2^S + -1 .. 1 and k 2^s + -1 .. 1 near both ends, and the chip gives them. */
static void test_wide_shift_related(void **state)
{
    (void)state;
    static const int32_t shifts[] = {19, 18, 12, 9};
    for (size_t k = 0; k < sizeof shifts / sizeof shifts[0]; k++) {
        int32_t s = shifts[k], S = s + (s % 2 ? 7 : 6);
        int64_t n = 4096;
        int32_t *v = sweep(PR_INT_32, n);
        int64_t i = 4;
        for (int64_t m = 1; m <= 3; m++)
            for (int64_t d = -1; d <= 1; d++) {
                int64_t at[4] = {INT32_MIN + m * ((int64_t)1 << S) + d,
                                 INT32_MAX - m * ((int64_t)1 << S) + d,
                                 INT32_MIN + m * ((int64_t)1 << s) + d,
                                 INT32_MAX - m * ((int64_t)1 << s) + d};
                for (int j = 0; j < 4; j++)
                    v[i++] = (int32_t)at[j];
            }
        Graph *g = graph_create();
        Block *in = input(g, PR_INT_32, (int32_t)n);
        in->has_prec = false;
        Block *b = cmp(g, store(g, in, "x/in", PR_INT_32, (int32_t)n), BT_CCMPB, PR_INT_32,
                       (int32_t)n, s, INT32_MIN);
        output(g, store(g, b, "y", PR_INT_32, (int32_t)n), (int32_t)n);
        int32_t id = b->id;
        Chip *c = chip();
        assert_int_equal(check(g, c, "map.exact.shift32"), 1);
        assert_true(rewrite_keeps(g, c, v, n) >= 1);
        assert_int_equal(graph_block(g, id)->type, BT_CADD); /* split: the pieces' sum */
        assert_true(named(g, "rem") >= 1);
        free(v);
        chip_destroy(c);
        graph_destroy(g);
    }
}

/* x (INT_32) -> CCMPB floor shift 4 (INT_32 to INT_32) -> CCMPS 127 -> CCMPB lo -> y: the
 * shifted values fit no 8 bits nor a table, but only the clip to [lo, 127] reads them. */
static Block *fold_chain(Graph *g, int32_t lo, bool low_clip)
{
    Block *in = input(g, PR_INT_32, 8);
    in->has_prec = false;
    Block *a = cmp(g, store(g, in, "x/in", PR_INT_32, 8), BT_CCMPB, PR_INT_32, 8, 4, INT32_MIN);
    Block *b = cmp(g, store(g, a, "a", PR_INT_32, 8), BT_CCMPS, PR_INT_32, 8, 0, 127);
    Block *last = b;
    if (low_clip)
        last = cmp(g, store(g, b, "b", PR_INT_32, 8), BT_CCMPB, PR_INT_32, 8, 0, lo);
    output(g, store(g, last, "y", PR_INT_32, 8), 8);
    return a;
}

/* The fold: with the clip to [-127, 127] (or [-128, 127]) after it, the floor shift
 * narrows to INT_8 (saturating at -128 .. 127 changes nothing the clip lets through), its
 * storage INT_8 too; the outputs stay and the chip gives them. */
static void test_shift_fold(void **state)
{
    (void)state;
    for (int32_t lo = -128; lo <= -127; lo++) {
        Graph *g = graph_create();
        Block *a = fold_chain(g, lo, true);
        Chip *c = chip();
        assert_int_equal(check(g, c, "map.exact.shift32"), 1);
        int32_t in[8] = {INT32_MAX, INT32_MIN, 100000, -100000, 2047, -2049, 17, -17};
        assert_true(rewrite_keeps(g, c, in, 8) >= 1);
        assert_int_equal(blk_prec(a), PR_INT_8);
        assert_int_equal(blk_attr(a, AT_CMP), -128);
        chip_destroy(c);
        graph_destroy(g);
    }
}

/* No fold where the saturation would show: without the low clip (an OUTPUT sees values below
 * -128) or with a clip at -200 (-150 passes it, the INT_8 shift would give -128). Without
 * the low clip the shift (clamped to at most 127 first, pre.hi, its values still reach -2^27)
 * splits into limbs last, with the remainder's relation (test_wide_shift_related); with the clip at
 * -200 the pre-clip maps it (test_preclip): x clamped to -200 * 16 .. 128 * 16 - 1 first. */
static void test_shift_fold_refused(void **state)
{
    (void)state;
    for (int low = 0; low <= 1; low++) {
        Graph *g = graph_create();
        Block *a = fold_chain(g, -200, low != 0);
        Chip *c = chip();
        int32_t in[8] = {INT32_MAX, INT32_MIN, 100000, -100000, 2047, -2049, 17, -17};
        assert_true(rewrite_keeps(g, c, in, 8) >= 1);
        assert_int_equal(named(g, "pre.hi"), 1); /* the clip to 127 */
        assert_int_equal(named(g, "pre.lo"), low);
        assert_true(low || named(g, "rem") >= 1);
        assert_int_not_equal(blk_prec(a), PR_INT_8); /* not folded */
        chip_destroy(c);
        graph_destroy(g);
    }
}

/* 4096 values of int32: sweep's, and each k 2^s - 1, k 2^s, k 2^s + 1 for the k at and
 * around lo and hi (where a floor shift by s meets the clip). */
static int32_t *edges_of(int32_t s, int32_t lo, int32_t hi, int64_t n)
{
    int32_t *v = sweep(PR_INT_32, n);
    int64_t i = 4, ks[4] = {(int64_t)lo - 1, lo, hi, (int64_t)hi + 1};
    for (int k = 0; k < 4; k++)
        for (int64_t d = -1; d <= 1; d++)
            v[i++] = (int32_t)(ks[k] * ((int64_t)1 << s) + d);
    return v;
}

/* g, refused by map.exact.shift32, maps through one pre-clip (a CCMPB and a CCMPS) keeping
 * its outputs on the n values v (freed), and the chip gives them; g is destroyed. */
static void preclip_keeps(Graph *g, int32_t *v, int64_t n)
{
    Chip *c = chip();
    assert_int_equal(check(g, c, "map.exact.shift32"), 1);
    assert_true(rewrite_keeps(g, c, v, n) >= 1);
    assert_int_equal(named(g, "pre.lo"), 1);
    assert_int_equal(named(g, "pre.hi"), 1);
    free(v);
    chip_destroy(c);
    graph_destroy(g);
}

/* x (INT_32) -> CCMPB floor shift s from INT_32 to INT_32 with CMP lo -> CCMPS hi -> y: the
 * shifted values fit neither 8 bits nor a table, and no fold takes [lo, hi] (a clip at -200,
 * or of 10 to 13 bits); the pre-clip clamps x to [lo 2^s, (hi + 1) 2^s - 1] first (a CCMPB
 * and a CCMPS without a shift), and the shift then narrows (5 into -31 .. 31, doubled: odd),
 * becomes a table (4 into -200 .. 127, 1 and 15 into 10 and 12 bits) or splits into limbs
 * (10 into 13 bits: -4095 .. 4095). The outputs stay, on int32's ends and each k 2^s +- 1
 * around the clip, and the chip gives them. */
static void test_preclip(void **state)
{
    (void)state;
    static const int32_t cases[][3] = {
        {4, -200, 127}, {5, -31, 31}, {1, -511, 511}, {15, -2047, 2047}, {10, -4095, 4095}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int32_t s = cases[k][0], lo = cases[k][1], hi = cases[k][2];
        int64_t n = 4096;
        Graph *g = graph_create();
        Block *in = input(g, PR_INT_32, (int32_t)n);
        in->has_prec = false;
        Block *a = cmp(g, store(g, in, "x/in", PR_INT_32, (int32_t)n), BT_CCMPB, PR_INT_32,
                       (int32_t)n, s, lo);
        Block *b = cmp(g, store(g, a, "a", PR_INT_32, (int32_t)n), BT_CCMPS, PR_INT_32,
                       (int32_t)n, 0, hi);
        output(g, store(g, b, "y", PR_INT_32, (int32_t)n), (int32_t)n);
        preclip_keeps(g, edges_of(s, lo, hi, n), n);
    }
}

/* A CVS v -> a v + c over f channels reading s. */
static Block *cvs(Graph *g, Block *s, int32_t f, int32_t a, int32_t c)
{
    Block *b = tg_blk(g, BT_CVS, "cvs", PR_INT_32, (const int32_t[8]){1, 1, f, 0, 0, 0, 0, 0});
    assert_true(blk_set_attr(g, b, AT_CONSTANT_A, a));
    if (c)
        assert_true(blk_set_attr(g, b, AT_CONSTANT_B, c));
    tg_join(g, s, 0, b, 0);
    return b;
}

/* The pre-clip's walk through an affine block (as the CVM lowering's ceiling shift of
 * precision 32 by 1 negates after its floor shift): x (INT_32) -> CCMPB floor shift 1
 * (INT_32 to INT_32: -2^30 .. 2^30 - 1, no table, and no limbs: their remainder's bound
 * passes int32) -> CVS 1 - h -> CCMPB from -1023 -> CCMPS to 1023 -> y. The clamp of the
 * shift's results that no output sees goes through the CVS (its ends swapped) to the clips:
 * [-1022, 1024]; the shift reads x clamped to -2044 .. 2049 and becomes a table. */
static void test_preclip_affine(void **state)
{
    (void)state;
    int64_t n = 4096;
    Graph *g = graph_create();
    Block *in = input(g, PR_INT_32, (int32_t)n);
    in->has_prec = false;
    Block *h = cmp(g, store(g, in, "x/in", PR_INT_32, (int32_t)n), BT_CCMPB, PR_INT_32,
                   (int32_t)n, 1, INT32_MIN);
    Block *up = store(g, cvs(g, store(g, h, "h", PR_INT_32, (int32_t)n), (int32_t)n, -1, 1),
                      "up", PR_INT_32, (int32_t)n);
    Block *lo = cmp(g, up, BT_CCMPB, PR_INT_32, (int32_t)n, 0, -1023);
    Block *hi = cmp(g, store(g, lo, "lo", PR_INT_32, (int32_t)n), BT_CCMPS, PR_INT_32,
                    (int32_t)n, 0, 1023);
    output(g, store(g, hi, "y", PR_INT_32, (int32_t)n), (int32_t)n);
    preclip_keeps(g, edges_of(1, -1022, 1024, n), n);
}

/* An odd shift (3) on a narrowing CCMPB: the chip shifts by 2 (40 -> 10, the TaskGraph 5).
 * The mapper doubles its input (a CADD x + x) and shifts by 4: floor(2v / 16) = floor(v / 8). */
static void test_oddshift(void **state)
{
    (void)state;
    Graph *g = graph_create();
    Block *s = store(g, input(g, PR_INT_16, 4), "x/in", PR_INT_32, 4);
    Block *b = cmp(g, s, BT_CCMPB, PR_INT_8, 4, 3, 0);
    output(g, store(g, b, "y", PR_INT_8, 4), 4);
    Chip *c = chip();
    assert_true(check(g, c, "map.exact.oddshift") >= 1);
    int32_t in[4] = {40, -41, 1023, 32767}, tg[4], ch[4];
    run(g, NULL, in, 4, tg);
    run(g, c, in, 4, ch);
    assert_int_equal(tg[0], 5);
    assert_int_equal(ch[0], 10);
    assert_int_equal(tg[1], 0);
    assert_int_equal(tg[2], 127);
    assert_int_equal(rewrite_keeps(g, c, in, 4), 1);
    assert_int_equal(blk_attr(b, AT_BIT_SHIFT_NUM), 4);
    uint32_t cadds = 0;
    for (uint32_t i = 0; i < g->n_blocks; i++)
        cadds += g->blocks[i]->type == BT_CADD;
    assert_int_equal(cadds, 1);
    chip_destroy(c);
    graph_destroy(g);
}

/* A CLIF shifting its input sum by 3: it reads its input doubled (a CADD x + x) and
 * shifts by 4. VTH0 5: 40 >> 3 = 5 and 47 >> 3 = 5 are not above it (no spike), 48 >> 3 = 6
 * is (a spike). */
static void test_oddshift_lif(void **state)
{
    (void)state;
    Graph *g = graph_create();
    Block *s = store(g, input(g, PR_INT_8, 3), "x/in", PR_INT_8, 3);
    Block *lif = tg_blk(g, BT_CLIF, "lif", PR_INT_8, (const int32_t[8]){1, 1, 3, 0, 0, 0, 0, 0});
    assert_true(blk_set_attr(g, lif, AT_VTH0, 5));
    assert_true(blk_set_attr(g, lif, AT_BIT_SHIFT_NUM, 3));
    tg_join(g, s, 0, lif, 0);
    output(g, store(g, lif, "y", PR_INT_8, 3), 3);
    Chip *c = chip();
    assert_true(check(g, c, "map.exact.oddshift") >= 1);
    int32_t in[3] = {40, 47, 48}, tg[3];
    run(g, NULL, in, 3, tg);
    assert_int_equal(tg[0], 0);
    assert_int_equal(tg[1], 0);
    assert_int_equal(tg[2], 1);
    assert_int_equal(rewrite_keeps(g, c, in, 3), 1);
    assert_int_equal(blk_attr(lif, AT_BIT_SHIFT_NUM), 4);
    chip_destroy(c);
    graph_destroy(g);
}

/* A ReLU to UINT_8 (CMP 0) of shifted values that may be negative: the chip compares
 * nothing from INT_32 to UINT_8 and keeps the low byte (-1 -> 255; the TaskGraph 0). The
 * values after the shift (-32 .. 31) fit INT_8: the mapper makes it an INT_8 output, on
 * which the chip compares with 0, and its map, which only it writes, INT_8 too (its values,
 * 0 .. 31, fit). */
static void test_clip(void **state)
{
    (void)state;
    Graph *g = graph_create();
    Block *s = store(g, input(g, PR_INT_8, 3), "x/in", PR_INT_32, 3);
    Block *b = cmp(g, s, BT_CCMPB, PR_UINT_8, 3, 2, 0);
    Block *y = store(g, b, "y", PR_UINT_8, 3);
    output(g, y, 3);
    Chip *c = chip();
    assert_int_equal(check(g, c, "map.exact.clip"), 1);
    int32_t in[3] = {-4, 100, -128}, tg[3], ch[3];
    run(g, NULL, in, 3, tg);
    run(g, c, in, 3, ch);
    assert_int_equal(tg[0], 0);
    assert_int_equal(ch[0], 255);
    assert_int_equal(tg[1], 25);
    assert_int_equal(ch[1], 25);
    assert_int_equal(rewrite_keeps(g, c, in, 3), 1);
    assert_int_equal(blk_prec(b), PR_INT_8);
    assert_int_equal(blk_prec(y), PR_INT_8); /* P05 writes its 8 bits as the map's */
    chip_destroy(c);
    graph_destroy(g);
}

/* INPUT (in) -> SI (in) -> CCMPB TERNARY, CMP -1, over 3 values -> SI (map) -> OUTPUT; the
 * CCMPB in *b. */
static Graph *ternary_clip(PrecisionId in, PrecisionId map, Block **b)
{
    Graph *g = graph_create();
    Block *s = store(g, input(g, in, 3), "x/in", in, 3);
    *b = cmp(g, s, BT_CCMPB, PR_TERNARY, 3, 0, -1);
    output(g, store(g, *b, "y", map, 3), 3);
    return g;
}

/* A TERNARY clip (the CVM lowering's clip to -1 .. 1) writing an INT_8 map: P05 writes the
 * map's precision and clips to its int8 only, so map.exact.prec; the 1 x 1 window of int8
 * values becomes a CLUT of the clip's table, INT_8 (P07 writes no TERNARY): 256 entries,
 * CMP -1: -128 -> -1, 0 -> 0, 5 -> 1. From int32 values (no table: they fit no 12-bit
 * index) it takes INT_8 and a CCMPS to 1 after it: -1000 -> -128 -> -1, 1000 -> 127 -> 1.
 * The same clip writing a TERNARY map is what P05 computes (no finding). */
static void test_ternary_clip(void **state)
{
    (void)state;
    Block *b;
    Chip *c = chip();
    Graph *g = ternary_clip(PR_INT_8, PR_INT_8, &b);
    assert_int_equal(check(g, c, "map.exact.prec"), 1);
    int32_t in[3] = {-128, 0, 5}, tg[3];
    run(g, NULL, in, 3, tg);
    assert_int_equal(tg[0], -1);
    assert_int_equal(tg[1], 0);
    assert_int_equal(tg[2], 1);
    assert_int_equal(rewrite_keeps(g, c, in, 3), 1);
    assert_int_equal(b->type, BT_CLUT);
    assert_int_equal(blk_prec(b), PR_INT_8);
    assert_int_equal(blk_attr(b, AT_LUT_DW), 8);
    graph_destroy(g);

    g = ternary_clip(PR_INT_32, PR_INT_8, &b);
    assert_int_equal(check(g, c, "map.exact.prec"), 1);
    int32_t wide[3] = {-1000, 1000, 0};
    run(g, NULL, wide, 3, tg);
    assert_int_equal(tg[0], -1);
    assert_int_equal(tg[1], 1);
    uint32_t nb = g->n_blocks;
    assert_true(rewrite_keeps(g, c, wide, 3) >= 1);
    assert_int_equal(b->type, BT_CCMPB);
    assert_int_equal(blk_prec(b), PR_INT_8);
    assert_int_equal(g->n_blocks, nb + 2); /* the CCMPS and the map it writes */
    size_t ceil = 0;
    for (uint32_t i = 0; i < g->n_blocks; i++)
        if (g->blocks[i]->type == BT_CCMPS) {
            ceil++;
            assert_int_equal(blk_attr(g->blocks[i], AT_CMP), 1);
            assert_int_equal(blk_prec(g->blocks[i]), PR_INT_8);
        }
    assert_int_equal(ceil, 1);
    graph_destroy(g);

    g = ternary_clip(PR_INT_8, PR_TERNARY, &b);
    assert_int_equal(check(g, c, NULL), 0);
    graph_destroy(g);
    chip_destroy(c);
}

/* Precisions the chip does not encode: an INT_16 storage of INT_8 values becomes INT_8, an
 * INT_16 CLUT whose table holds -3 .. 90 INT_8; a UINT_4 CCMPB over a window of two whose
 * clamp acts (values up to 127 clamped to 15: no table, a window) takes INT_8 and a CCMPS to
 * 15 after it: the maximum of 100 and -5 is 15 before, after and on the chip. */
static void test_prec(void **state)
{
    (void)state;
    Graph *g = graph_create();
    Block *s = store(g, input(g, PR_INT_8, 2), "x/in", PR_INT_16, 2);
    Block *b = cmp(g, s, BT_CCMPB, PR_INT_8, 2, 0, -128);
    output(g, store(g, b, "y", PR_INT_8, 2), 2);
    Chip *c = chip();
    assert_int_equal(check(g, c, "map.exact.prec"), 1);
    int32_t in[2] = {-7, 9};
    assert_int_equal(rewrite_keeps(g, c, in, 2), 1);
    assert_int_equal(blk_prec(s), PR_INT_8);
    graph_destroy(g);

    g = graph_create();
    s = store(g, input(g, PR_INT_8, 2), "x/in", PR_INT_8, 2);
    Block *lut = tg_blk(g, BT_CLUT, "lut", PR_INT_16, (const int32_t[8]){1, 1, 2, 0, 0, 0, 0, 0});
    assert_true(blk_set_attr(g, lut, AT_LUT_DW, 2));
    Block *tab = tg_blk(g, BT_SB, "tab", PR_INT_32, (const int32_t[8]){0, 0, 4, 0, 0, 0, 0, 0});
    assert_true(blk_set_data(g, tab, PR_INT_32, (const int32_t[1]){4}, 1,
                             (const int64_t[4]){5, -3, 90, 7}, 4));
    tg_join(g, s, 0, lut, 0);
    tg_join(g, tab, 0, lut, 1);
    output(g, store(g, lut, "y", PR_INT_32, 2), 2);
    int32_t idx[2] = {1, -2};
    assert_int_equal(rewrite_keeps(g, c, idx, 2), 1);
    assert_int_equal(blk_prec(lut), PR_INT_8);
    graph_destroy(g);

    g = graph_create();
    Block *in2 = tg_io(g, BT_INPUT, "x", PR_INT_8, (const int32_t[8]){1, 2, 1, 0, 0, 0, 0, 0}, 0);
    s = tg_blk(g, BT_SI, "x/in", PR_INT_8, (const int32_t[8]){1, 2, 1, 0, 0, 0, 0, 0});
    tg_join(g, in2, 0, s, 0);
    b = tg_blk(g, BT_CCMPB, "cmp", PR_UINT_4, (const int32_t[8]){1, 1, 1, 0, 1, 2, 1, 2});
    assert_true(blk_set_attr(g, b, AT_KERNEL_X, 2));
    tg_join(g, s, 0, b, 0);
    output(g, store(g, b, "y", PR_INT_8, 1), 1);
    Diag d;
    diag_init(&d, "t");
    assert_int_equal(verify_graph(g, &d), ST_OK);
    int32_t pair[2] = {100, -5}, before, after, on_chip;
    tg_run(g, NULL, pair, 2, &before, 1);
    assert_int_equal(before, 15);
    uint32_t nr = 0;
    assert_int_equal(mapper_exact(g, c, &nr, &d), ST_OK);
    assert_int_equal(verify_graph(g, &d), ST_OK);
    diag_finish(&d);
    tg_run(g, NULL, pair, 2, &after, 1);
    tg_run(g, c, pair, 2, &on_chip, 1);
    assert_int_equal(after, 15);
    assert_int_equal(on_chip, 15);
    assert_int_equal(blk_prec(b), PR_INT_8);
    assert_int_equal(check(g, c, NULL), 0);
    chip_destroy(c);
    graph_destroy(g);
}

/* Maps whose writers give values outside their precision (the graph's storage keeps them;
 * emit.prec refused them): INT_8 x negated (CVS -1) into an INT_8 map holds -127 .. 128;
 * read by an OUTPUT the map takes INT_32 (128 fits neither INT_8 nor UINT_8): -128, 5 ->
 * 128, -5 before, after and on the chip; read by a CVVH (P03 reads 8-bit operands only) it
 * stays INT_8. A CCMPB shifting INT_8 values by 2 (-128 .. 127 -> -32 .. 31) into an INT_8
 * map: P05 shifts only when it narrows, and a UINT_8 CCMPB (INT_8 in) would write its 8
 * bits into the map as UINT_8 values, so it becomes a table (a CLUT of 256 entries). */
static void test_prec_widen(void **state)
{
    (void)state;
    Chip *c = chip();
    for (int cvvh = 0; cvvh <= 1; cvvh++) {
        Graph *g = graph_create();
        Block *x = store(g, input(g, PR_INT_8, 2), "x/in", PR_INT_8, 2);
        Block *v = tg_blk(g, BT_CVS, "neg", PR_INT_32, (const int32_t[8]){1, 1, 2, 0, 0, 0, 0, 0});
        assert_true(blk_set_attr(g, v, AT_CONSTANT_A, -1));
        tg_join(g, x, 0, v, 0);
        Block *m = store(g, v, "neg/out", PR_INT_8, 2);
        Block *last = m;
        if (cvvh) {
            Block *p = tg_blk(g, BT_CVVH, "sq", PR_INT_32,
                              (const int32_t[8]){1, 1, 2, 0, 0, 0, 0, 0});
            tg_join(g, m, 0, p, 0);
            tg_join(g, x, 0, p, 1);
            last = store(g, p, "sq/out", PR_INT_32, 2);
        }
        output(g, last, 2);
        int32_t in[2] = {-128, 5}, tg[2];
        run(g, NULL, in, 2, tg);
        assert_int_equal(tg[0], cvvh ? 128 * -128 : 128);
        assert_int_equal(tg[1], cvvh ? -25 : -5);
        if (!cvvh) {
            assert_true(rewrite_keeps(g, c, in, 2) >= 1);
            assert_int_equal(blk_prec(m), PR_INT_32);
        } else {
            Diag d;
            diag_init(&d, "t");
            uint32_t nr = 0;
            assert_int_equal(mapper_exact(g, c, &nr, &d), ST_OK);
            diag_finish(&d);
            assert_int_equal(blk_prec(m), PR_INT_8);
        }
        graph_destroy(g);
    }
    Graph *g = graph_create();
    Block *x = store(g, input(g, PR_INT_8, 4), "x/in", PR_INT_8, 4);
    Block *b = cmp(g, x, BT_CCMPB, PR_INT_32, 4, 2, INT32_MIN);
    output(g, store(g, b, "y", PR_INT_8, 4), 4);
    int32_t in[4] = {-128, -5, 7, 127}, tg[4];
    run(g, NULL, in, 4, tg);
    assert_memory_equal(tg, ((const int32_t[4]){-32, -2, 1, 31}), sizeof tg);
    assert_true(rewrite_keeps(g, c, in, 4) >= 1);
    assert_int_equal(b->type, BT_CLUT);
    assert_int_equal(blk_attr(b, AT_LUT_DW), 8);
    graph_destroy(g);
    chip_destroy(c);
}

/* An Axon block clamping to a precision the chip does not encode ("clamp",
 * docs/exactness.md): INT_8 x times 3 as INT_9 (-384 .. 381 clamped to -256 .. 255):
 * -128, -50, 0, 100, 127 -> -256, -150, 0, 255, 255; the CVS writes INT_32 and the clamp
 * after it, whose values fit a table of 4096, becomes a CLUT. Times 1000 as INT_16
 * (-128000 .. 127000 clamped to -32768 .. 32767): -128, -20, 0, 30, 127 -> -32768, -20000,
 * 0, 30000, 32767; no table holds that range: a CCMPB from -32768 and a CCMPS to 32767,
 * INT_32. Either way no block of INT_9 or INT_16 is left, and the chip gives the values. */
static void test_prec_clamp(void **state)
{
    (void)state;
    static const struct {
        int32_t scale;
        PrecisionId p;
        int32_t in[5], want[5];
        BlockType clamp;
    } cs[] = {{3, PR_INT_9, {-128, -50, 0, 100, 127}, {-256, -150, 0, 255, 255}, BT_CLUT},
              {1000, PR_INT_16, {-128, -20, 0, 30, 127}, {-32768, -20000, 0, 30000, 32767},
               BT_CCMPS}};
    Chip *c = chip();
    for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++) {
        Graph *g = graph_create();
        Block *x = store(g, input(g, PR_INT_8, 5), "x/in", PR_INT_8, 5);
        Block *v = tg_blk(g, BT_CVS, "scale", cs[k].p, (const int32_t[8]){1, 1, 5, 0, 0, 0, 0, 0});
        assert_true(blk_set_attr(g, v, AT_CONSTANT_A, cs[k].scale));
        tg_join(g, x, 0, v, 0);
        output(g, store(g, v, "y", cs[k].p, 5), 5);
        assert_true(check(g, c, "map.exact.prec") >= 1);
        int32_t tg[5];
        run(g, NULL, cs[k].in, 5, tg);
        assert_memory_equal(tg, cs[k].want, sizeof tg);
        assert_true(rewrite_keeps(g, c, cs[k].in, 5) >= 1);
        assert_int_equal(blk_prec(v), PR_INT_32);
        size_t n = 0;
        for (uint32_t i = 0; i < g->n_blocks; i++) {
            assert_true(chip_prec(c, blk_prec(g->blocks[i])) != NULL);
            n += g->blocks[i]->type == cs[k].clamp;
        }
        assert_int_equal(n, 1);
        graph_destroy(g);
    }
    chip_destroy(c);
}

/* The blocks of type t of g: how many, each with CMP cmp and precision p. */
static size_t count_clips(const Graph *g, BlockType t, int32_t cmp, PrecisionId p)
{
    size_t n = 0;
    for (uint32_t i = 0; i < g->n_blocks; i++)
        if (g->blocks[i]->type == t) {
            n++;
            assert_int_equal(blk_attr(g->blocks[i], AT_CMP), cmp);
            assert_int_equal(blk_prec(g->blocks[i]), p);
        }
    return n;
}

/* Clips to a precision the chip does not give a CCMPB / CCMPS ("bound", docs/exactness.md),
 * worked by hand, each on values no table of 4096 entries indexes:
 * - CCMPB UINT_4, CMP -15 (the CVM lowering's cvm_clip to 5 bits) of INT_16 values:
 *   -32768, -3, 9, 200, 32767 -> -15, -3, 9, 15, 15; it takes INT_8 (CMP -15 .. 127) and a
 *   CCMPS to 15, INT_8, after it;
 * - CCMPS INT_9, CMP 100 of INT_32 values: -100000, -300, -5, 50, 100000 ->
 *   -256, -256, -5, 50, 100; it takes INT_32 (its values reach -2^31 before the bound) and a
 *   CCMPB from -256, INT_32, after it; its map, INT_16, becomes INT_32;
 * - CCMPB TERNARY, CMP 0, writing an INT_32 map (broadcast_greater's clip): -1000, 0, 1000,
 *   7, -1 -> 0, 0, 1, 1, 0; it takes INT_32 and a CCMPS to 1 after it. */
static void test_prec_bound(void **state)
{
    (void)state;
    Chip *c = chip();
    Graph *g = graph_create();
    Block *s = store(g, input(g, PR_INT_16, 5), "x/in", PR_INT_16, 5);
    Block *b = cmp(g, s, BT_CCMPB, PR_UINT_4, 5, 0, -15);
    output(g, store(g, b, "y", PR_INT_8, 5), 5);
    assert_true(check(g, c, "map.exact.prec") >= 1);
    int32_t in[5] = {-32768, -3, 9, 200, 32767}, tg[5];
    run(g, NULL, in, 5, tg);
    assert_memory_equal(tg, ((const int32_t[5]){-15, -3, 9, 15, 15}), sizeof tg);
    assert_true(rewrite_keeps(g, c, in, 5) >= 1);
    assert_int_equal(b->type, BT_CCMPB);
    assert_int_equal(blk_prec(b), PR_INT_8);
    assert_int_equal(count_clips(g, BT_CCMPS, 15, PR_INT_8), 1);
    graph_destroy(g);

    g = graph_create();
    s = store(g, input(g, PR_INT_32, 5), "x/in", PR_INT_32, 5);
    b = cmp(g, s, BT_CCMPS, PR_INT_9, 5, 0, 100);
    Block *y = store(g, b, "y", PR_INT_16, 5);
    output(g, y, 5);
    int32_t wide[5] = {-100000, -300, -5, 50, 100000};
    run(g, NULL, wide, 5, tg);
    assert_memory_equal(tg, ((const int32_t[5]){-256, -256, -5, 50, 100}), sizeof tg);
    assert_true(rewrite_keeps(g, c, wide, 5) >= 1);
    assert_int_equal(b->type, BT_CCMPS);
    assert_int_equal(blk_prec(b), PR_INT_32);
    assert_int_equal(blk_prec(y), PR_INT_32);
    assert_int_equal(count_clips(g, BT_CCMPB, -256, PR_INT_32), 1);
    graph_destroy(g);

    g = graph_create();
    s = store(g, input(g, PR_INT_32, 5), "x/in", PR_INT_32, 5);
    b = cmp(g, s, BT_CCMPB, PR_TERNARY, 5, 0, 0);
    output(g, store(g, b, "y", PR_INT_32, 5), 5);
    assert_int_equal(check(g, c, "map.exact.prec"), 1);
    int32_t t[5] = {-1000, 0, 1000, 7, -1};
    run(g, NULL, t, 5, tg);
    assert_memory_equal(tg, ((const int32_t[5]){0, 0, 1, 1, 0}), sizeof tg);
    assert_true(rewrite_keeps(g, c, t, 5) >= 1);
    assert_int_equal(blk_prec(b), PR_INT_32);
    assert_int_equal(count_clips(g, BT_CCMPS, 1, PR_INT_32), 1);
    graph_destroy(g);
    chip_destroy(c);
}

/* The P05 model on single values (exact_soma.c): INT_32 -> INT_8, shift 4 (one step of 4),
 * CMP 0x1F05 (low byte 5): 1000 >> 4 = 62; 100000 >> 4 saturates to 127; -50 >> 4 = -4 is
 * below 5. A TaskGraph INT_8 clip with CMP 0x1F05 = 7941 gives 7941 .. 127 -> 127. */
static void test_p05_values(void **state)
{
    (void)state;
    Chip *c = chip();
    ExactCmp k = {true, PR_INT_32, PR_INT_8, 0x1F05, 4, 0, false};
    int64_t v = 0;
    assert_true(exact_chip_cmp(c, &k, 1000, &v));
    assert_int_equal(v, 62);
    assert_true(exact_chip_cmp(c, &k, 100000, &v));
    assert_int_equal(v, 127);
    assert_true(exact_chip_cmp(c, &k, -50, &v));
    assert_int_equal(v, 5);
    assert_int_equal(exact_graph_cmp(&k, 1000), 127);
    k.shift = 3; /* an odd shift runs as 2 bits */
    assert_true(exact_chip_cmp(c, &k, 40, &v));
    assert_int_equal(v, 10);
    k.out = PR_INT_32; /* no narrowing: no shift, the whole CMP */
    assert_true(exact_chip_cmp(c, &k, 40, &v));
    assert_int_equal(v, 0x1F05);
    k.in = PR_INT_16;
    assert_false(exact_chip_cmp(c, &k, 40, &v));
    chip_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cvm_ranges),     cmocka_unit_test(test_conv_padding),
        cmocka_unit_test(test_overflow),       cmocka_unit_test(test_cadd_saturates),
        cmocka_unit_test(test_shift32_narrow), cmocka_unit_test(test_shift32_lut),
        cmocka_unit_test(test_shift_fold), cmocka_unit_test(test_shift_fold_refused),
        cmocka_unit_test(test_shift32_error),  cmocka_unit_test(test_oddshift),
        cmocka_unit_test(test_wide_shift),
        cmocka_unit_test(test_wide_shift_related),     cmocka_unit_test(test_wide_product),
        cmocka_unit_test(test_wide_square),
        cmocka_unit_test(test_oddshift_lif),
        cmocka_unit_test(test_clip),           cmocka_unit_test(test_prec),
        cmocka_unit_test(test_lut_index),
        cmocka_unit_test(test_ternary_clip),
        cmocka_unit_test(test_prec_bound),
        cmocka_unit_test(test_prec_widen),
        cmocka_unit_test(test_prec_clamp),
        cmocka_unit_test(test_p05_values),
        cmocka_unit_test(test_declared_range),
        cmocka_unit_test(test_lut_widened),
        cmocka_unit_test(test_table_narrow),
        cmocka_unit_test(test_lut_reached),
        cmocka_unit_test(test_halving),
        cmocka_unit_test(test_preclip),
        cmocka_unit_test(test_preclip_affine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
