/* test_split.c: the split pass (passes/split*.c, docs/passes.md "split"): each axis on each
 * compute type that splits along it, on small hand-built graphs (split_fixture.h), simulated
 * before and after (the outputs must be the same bits): y and x cuts with the halo of kernel,
 * stride, padding and dilation, padding kept only at the border, unequal pieces; f cuts with
 * the weights and bias sliced and the input shared, aligned to the MAC array's 32 channels
 * and to whole packets of the output precision;
 * r cuts whose int32 partial sums a new CADD joins with the bias; an output store cut with
 * its writer; the CLUT's table copied, the
 * CLIF's state carried over steps; the explicit cut spec and its errors; a copied part of
 * a tensor made once for all the pieces that read it, and written into the memory of the
 * tensor it was cut from when nothing else holds that, int8 weights held narrow (a byte a
 * value, LoadOptions.narrow) cut as they are, to the same saved bytes; fit mode on a chip
 * with a small budget, edges cut to the per-destination limit, and the "cannot fit"
 * error. */
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
#include "taskir/layout.h"
#include "taskir/pbio.h"
#include "taskir/rearrange.h"
#include "taskir/uses.h"

/* Cuts block 'op' of g along ax at bounds (for chip c: NULL, none) and checks verification
 * and the outputs over steps time steps. */
static void cut_same_on(Graph *g, const Chip *c, SplitAxis ax, const int32_t *bounds,
                        uint32_t n, int steps)
{
    int64_t n0, n1;
    int32_t *before = fx_run(g, steps, 7, &n0);
    Diag d;
    diag_init(&d, "test");
    SplitBatch sb;
    Status st = split_begin(g, &sb, &d);
    assert_int_equal(st, ST_OK);
    sb.chip = c;
    st = split_block(g, &sb, pt_by_name(g, "op"), ax, bounds, n, NULL, &d);
    Status cs = split_commit(g, &sb, &d);
    if (st == ST_OK)
        st = cs;
    if (st != ST_OK)
        diag_print(&d, stderr, "test");
    assert_int_equal(st, ST_OK);
    diag_finish(&d);
    assert_null(pt_by_name(g, "op"));
    pt_verify(g);
    int32_t *after = fx_run(g, steps, 7, &n1);
    assert_int_equal(n0, n1);
    assert_memory_equal(before, after, (size_t)n0 * sizeof *before);
    free(before);
    free(after);
}

static void cut_same(Graph *g, SplitAxis ax, const int32_t *bounds, uint32_t n, int steps)
{
    cut_same_on(g, NULL, ax, bounds, n, steps);
}

static const int32_t conv_dil[] = {AT_KERNEL_Y, 3, AT_KERNEL_X, 3, AT_PAD_UP, 2, AT_PAD_DOWN, 2,
                                   AT_PAD_LEFT, 2, AT_PAD_RIGHT, 2, AT_DILATION_Y, 2,
                                   AT_DILATION_X, 2};

/* A 3x3 conv with dilation 2 and padding 2 cut into unequal row bands: every band reads
 * its rows plus the dilated halo, and only the first and last keep padding. */
static void test_cc_y_dilation(void **state)
{
    (void)state;
    int32_t s[TIR_NDIMS] = {9, 7, 5, 3, 3, 3, 9, 7};
    Graph *g = fx_block(BT_CC, s, PR_INT_32, BIAS_VECTOR, conv_dil, 8, 0);
    int32_t b[] = {0, 2, 5, 9};
    cut_same(g, SPLIT_Y, b, 3, 1);
    Block *y0 = pt_by_name(g, "op/y0"), *y1 = pt_by_name(g, "op/y1"), *y2 = pt_by_name(g, "op/y2");
    assert_true(y0 && y1 && y2);
    assert_int_equal(blk_attr(y0, AT_PAD_UP), 2);
    assert_int_equal(blk_attr(y0, AT_PAD_DOWN), 0);
    assert_int_equal(y0->shape.d[D_IY], 4);  /* rows 0..3: output rows 0,1 reach row 1+4-2 */
    assert_int_equal(blk_attr(y1, AT_PAD_UP), 0);
    assert_int_equal(blk_attr(y1, AT_PAD_DOWN), 0);
    assert_int_equal(y1->shape.d[D_IY], 7);  /* rows 0..6 */
    assert_int_equal(blk_attr(y2, AT_PAD_DOWN), 2);
    assert_non_null(pt_by_name(g, "op/in0/y1"));
    /* the weights copied into each piece, the cut input and the original's gone */
    assert_non_null(pt_by_name(g, "op/w/y2"));
    assert_null(pt_by_name(g, "op/w"));
    assert_null(pt_by_name(g, "op/in0"));
    graph_destroy(g);
}

static void test_cc_x_stride(void **state)
{
    (void)state;
    int32_t a[] = {AT_KERNEL_Y, 3, AT_KERNEL_X, 3, AT_STRIDE_X, 2, AT_STRIDE_Y, 2,
                   AT_PAD_LEFT, 1, AT_PAD_RIGHT, 1, AT_PAD_UP, 1, AT_PAD_DOWN, 1};
    int32_t s[TIR_NDIMS] = {4, 6, 4, 2, 3, 3, 8, 12};
    Graph *g = fx_block(BT_CC, s, PR_INT_8, BIAS_VECTOR, a, 8, 0);
    int32_t b[] = {0, 4, 6};
    cut_same(g, SPLIT_X, b, 2, 1);
    graph_destroy(g);
}

/* f: 40 channels in two pieces aligned to the MAC array's 32: 32 + 8. */
static void test_cc_f_aligned(void **state)
{
    (void)state;
    int32_t b[3];
    split_bounds(40, 2, 32, b);
    assert_int_equal(b[1], 32);
    split_bounds(5, 2, 32, b); /* fewer units than pieces: as equal as can be */
    assert_int_equal(b[1], 3);
    split_bounds(96, 2, 32, b);
    assert_int_equal(b[1], 64);
    int32_t s[TIR_NDIMS] = {3, 3, 40, 3, 3, 3, 5, 5};
    Graph *g = fx_block(BT_CC, s, PR_INT_32, BIAS_VECTOR, conv_dil, 2, 0);
    split_bounds(40, 2, 32, b);
    cut_same(g, SPLIT_F, b, 2, 1);
    assert_int_equal(pt_by_name(g, "op/w/f0")->shape.d[D_F], 32);
    assert_int_equal(pt_by_name(g, "op/w/f1")->shape.d[D_F], 8);
    assert_int_equal(pt_by_name(g, "op/b/f1")->data->dims[0], 8);
    /* the input is shared, not cut */
    assert_non_null(pt_by_name(g, "op/in0"));
    graph_destroy(g);
}

/* r: INT_8 output (clamped) with a vector bias: the pieces give int32 partial sums without
 * the bias, the CADD "op/r2+" adds them and the bias and clamps. */
static void test_cc_r_bias(void **state)
{
    (void)state;
    int32_t s[TIR_NDIMS] = {4, 4, 3, 7, 3, 3, 6, 6};
    Graph *g = fx_block(BT_CC, s, PR_INT_8, BIAS_VECTOR, conv_dil, 2, 0);
    int32_t b[] = {0, 2, 4, 7};
    cut_same(g, SPLIT_R, b, 3, 1);
    Block *j = pt_by_name(g, "op/r2+");
    assert_non_null(j);
    assert_int_equal(j->type, BT_CADD);
    assert_int_equal(j->prec, PR_INT_8);
    assert_int_equal(j->bias_type, BIAS_VECTOR);
    assert_int_equal(pt_by_name(g, "op/r0")->prec, PR_INT_32);
    assert_int_equal(pt_by_name(g, "op/r1")->shape.d[D_R], 2);
    graph_destroy(g);
}

static void test_cc2d_y(void **state)
{
    (void)state;
    int32_t a[] = {AT_KERNEL_Y, 3, AT_KERNEL_X, 3, AT_PAD_UP, 1, AT_PAD_DOWN, 1};
    int32_t s[TIR_NDIMS] = {6, 4, 3, 2, 3, 3, 6, 6};
    Graph *g = fx_block(BT_CC2D, s, PR_INT_32, BIAS_VECTOR, a, 4, 0);
    int32_t b[] = {0, 3, 6};
    cut_same(g, SPLIT_Y, b, 2, 1);
    graph_destroy(g);
}

static void test_cvm_f_r(void **state)
{
    (void)state;
    int32_t s[TIR_NDIMS] = {0, 0, 10, 33};
    Graph *g = fx_block(BT_CVM, s, PR_INT_32, BIAS_VECTOR, NULL, 0, 0);
    int32_t b[] = {0, 4, 10};
    cut_same(g, SPLIT_F, b, 2, 1);
    graph_destroy(g);
    g = fx_block(BT_CVM, s, PR_INT_8, BIAS_VECTOR, NULL, 0, 0);
    int32_t r[] = {0, 16, 33};
    cut_same(g, SPLIT_R, r, 2, 1);
    assert_non_null(pt_by_name(g, "op/r1+"));
    graph_destroy(g);
}

static void test_cadd(void **state)
{
    (void)state;
    int32_t s[TIR_NDIMS] = {5, 4, 6};
    Graph *g = fx_block(BT_CADD, s, PR_INT_8, BIAS_VECTOR, NULL, 0, 3);
    int32_t b[] = {0, 2, 5};
    cut_same(g, SPLIT_Y, b, 2, 1);
    graph_destroy(g);
    g = fx_block(BT_CADD, s, PR_INT_32, BIAS_VECTOR, NULL, 0, 2);
    int32_t f[] = {0, 1, 3, 6};
    cut_same(g, SPLIT_F, f, 3, 1);
    graph_destroy(g);
}

static void test_cavg_window(void **state)
{
    (void)state;
    int32_t a[] = {AT_KERNEL_Y, 3, AT_KERNEL_X, 3, AT_STRIDE_Y, 2, AT_STRIDE_X, 2,
                   AT_PAD_UP, 1, AT_PAD_LEFT, 1, AT_PAD_DOWN, 1, AT_PAD_RIGHT, 1};
    int32_t s[TIR_NDIMS] = {4, 4, 3, 0, 3, 3, 8, 8};
    Graph *g = fx_block(BT_CAVG, s, PR_INT_32, BIAS_VECTOR, a, 8, 0);
    int32_t b[] = {0, 1, 4};
    cut_same(g, SPLIT_Y, b, 2, 1);
    graph_destroy(g);
}

static void test_cvvh_cax_cvs(void **state)
{
    (void)state;
    int32_t s[TIR_NDIMS] = {3, 5, 4};
    Graph *g = fx_block(BT_CVVH, s, PR_INT_32, BIAS_VECTOR, NULL, 0, 0);
    int32_t b[] = {0, 2, 5};
    cut_same(g, SPLIT_X, b, 2, 1);
    graph_destroy(g);
    g = fx_block(BT_CAX, s, PR_INT_8, BIAS_VECTOR, NULL, 0, 0);
    int32_t f[] = {0, 3, 4};
    cut_same(g, SPLIT_F, f, 2, 1);
    assert_int_equal(pt_by_name(g, "op/a/f0")->shape.d[D_F], 3);
    graph_destroy(g);
    int32_t a[] = {AT_CONSTANT_A, -3};
    g = fx_block(BT_CVS, s, PR_INT_8, BIAS_VECTOR, a, 1, 0);
    int32_t y[] = {0, 1, 3};
    cut_same(g, SPLIT_Y, y, 2, 1);
    graph_destroy(g);
}

/* The built-in chip description. */
static Chip *chip(void)
{
    Chip *c = NULL;
    Diag d;
    diag_init(&d, "test");
    assert_int_equal(chip_load_default(&c, &d), ST_OK);
    diag_finish(&d);
    return c;
}

/* Checks block name, a part of a cut output store: one input edge, from block piece, and an
 * output edge to an OUTPUT; returns it (for its shape). */
static Block *store_part(Graph *g, const char *name, const char *piece)
{
    Block *p = pt_by_name(g, name);
    assert_non_null(p);
    assert_int_equal(p->in[0].n_ifaces, 1);
    const Edge *e = graph_edge(g, p->in[0].ifaces[0].edge_id);
    assert_int_equal(e->src, pt_by_name(g, piece)->id);
    const Edge *o = graph_edge(g, p->out[0].ifaces[0].edge_id);
    assert_int_equal(graph_block(g, o->dst)->type, BT_OUTPUT);
    return p;
}

/* The output store 'op/out', which only the OUTPUT reads, is cut with the block: each piece
 * writes its part into a block of its own ('op/out/x0', 'op/out/x1', of the piece's shape),
 * which the OUTPUT reads where it read 'op/out' (the mapper puts such a store with its
 * writer: whole, it would sit with the first piece); outputs the same. A store another block
 * also reads stays whole. */
static void test_output_store_cut(void **state)
{
    (void)state;
    /* 'op/out': 40 x 20 pixels of 64 int32 channels, 256 bytes each: 204800 bytes, more than
     * the first piece (8 columns: two int8 inputs of 320 x 64 bytes) leaves of a core's
     * 128 KiB (90112 bytes) */
    Chip *hw = chip();
    int32_t s[TIR_NDIMS] = {40, 20, 64};
    Graph *g = fx_block(BT_CVVH, s, PR_INT_32, BIAS_VECTOR, NULL, 0, 0);
    int32_t b[] = {0, 8, 20};
    cut_same_on(g, hw, SPLIT_X, b, 2, 1);
    assert_null(pt_by_name(g, "op/out"));
    const char *parts[] = {"op/out/x0", "op/out/x1"}, *pieces[] = {"op/x0", "op/x1"};
    for (int i = 0; i < 2; i++) {
        Block *p = store_part(g, parts[i], pieces[i]);
        assert_int_equal(p->shape.d[D_X], b[i + 1] - b[i]);
        assert_int_equal(p->shape.d[D_Y], 40);
    }
    graph_destroy(g);
    /* read by a CVS too: the pieces write their boxes of the one store */
    g = fx_block(BT_CVVH, s, PR_INT_32, BIAS_VECTOR, NULL, 0, 0);
    Block *cvs = graph_add_block(g, BT_CVS, GRAPH_AUTO_ID, "scale");
    Block *sc = graph_add_block(g, BT_SI, GRAPH_AUTO_ID, "scaled");
    Block *o2 = graph_add_block(g, BT_OUTPUT, GRAPH_AUTO_ID, NULL);
    assert_non_null(cvs);
    assert_non_null(sc);
    assert_non_null(o2);
    const int32_t ss[TIR_NDIMS] = {40, 20, 64};
    memcpy(cvs->shape.d, ss, sizeof ss);
    memcpy(sc->shape.d, ss, sizeof ss);
    memcpy(o2->shape.d, ss, sizeof ss);
    cvs->has_shape = sc->has_shape = o2->has_shape = true;
    cvs->prec = sc->prec = PR_INT_32;
    cvs->has_prec = sc->has_prec = true;
    o2->socket_id = 1;
    o2->has_socket_id = true;
    assert_true(blk_set_attr(g, cvs, AT_CONSTANT_A, 3));
    assert_non_null(graph_connect(g, pt_by_name(g, "op/out"), 0, cvs, 0));
    assert_non_null(graph_connect(g, cvs, 0, sc, 0));
    assert_non_null(graph_connect(g, sc, 0, o2, 0));
    pt_verify(g);
    cut_same_on(g, hw, SPLIT_X, b, 2, 1);
    assert_non_null(pt_by_name(g, "op/out"));
    assert_null(pt_by_name(g, "op/out/x0"));
    graph_destroy(g);
    /* small (3 x 5 x 4: 1920 bytes): it stays whole with the first piece (the code generator
     * gathers the pieces' parts there, backend/emit_merge.c) */
    int32_t small[TIR_NDIMS] = {3, 5, 4};
    g = fx_block(BT_CVVH, small, PR_INT_32, BIAS_VECTOR, NULL, 0, 0);
    int32_t c[] = {0, 2, 5};
    cut_same_on(g, hw, SPLIT_X, c, 2, 1);
    assert_non_null(pt_by_name(g, "op/out"));
    graph_destroy(g);
    chip_destroy(hw);
}

/* An output store written through steps that move the values between lanes (a pooling's
 * 6 x 4 pixels of one channel transposed into 6 pixels of 4 channels for the OUTPUT, as
 * the diff suite's max_pool2d_case_0 lowers a pool along its last axis) is cut with its
 * writer when each piece's values fill a box of it, small or not: each piece writes its
 * part ('op/out/y0': 3 pixels of 4 channels) through the same steps, which the OUTPUT reads
 * where it read 'op/out'. The part is then a view of its piece's map (docs/backend.md
 * "Rearrangements"), which the OUTPUT's dynamic blocks read on the piece's core: whole,
 * its values went to the first piece's core a router header each (7911 headers in a phase,
 * emit.route). The outputs stay the same. */
static void test_output_store_steps(void **state)
{
    (void)state;
    Chip *hw = chip();
    int32_t s[TIR_NDIMS] = {6, 4, 1, 0, 1, 1, 6, 4};
    Graph *g = fx_block(BT_CCMPB, s, PR_INT_32, 0, NULL, 0, 0);
    Block *st = pt_by_name(g, "op/out"), *out = NULL;
    assert_non_null(st);
    const int32_t t[TIR_NDIMS] = {1, 6, 4};
    memcpy(st->shape.d, t, sizeof t);
    for (uint32_t i = 0; i < g->n_edges; i++) {
        Edge *e = g->edges[i];
        if (e->src == pt_by_name(g, "op")->id) {
            Rearrange *re = edge_add_rearrange(g, e, RT_PERMUTE, 1);
            assert_non_null(re);
            assert_true(tensor_set_i32(g, &re->mats[0], (const int32_t[]){3}, 1,
                                       (const int32_t[]){2, 0, 1}, 3));
        }
        if (e->src == st->id)
            out = graph_block(g, e->dst);
    }
    assert_non_null(out);
    memcpy(out->shape.d, t, sizeof t);
    pt_verify(g);
    int32_t b[] = {0, 3, 6};
    cut_same_on(g, hw, SPLIT_Y, b, 2, 1);
    assert_null(pt_by_name(g, "op/out"));
    const char *parts[] = {"op/out/y0", "op/out/y1"}, *pieces[] = {"op/y0", "op/y1"};
    for (int i = 0; i < 2; i++) {
        Block *p = store_part(g, parts[i], pieces[i]);
        assert_int_equal(p->shape.d[D_X], 3);
        assert_int_equal(p->shape.d[D_F], 4);
        assert_true(graph_edge(g, p->in[0].ifaces[0].edge_id)->n_re > 0); /* the steps */
    }
    graph_destroy(g);
    chip_destroy(hw);
}

static void test_ccmp_window(void **state)
{
    (void)state;
    int32_t a[] = {AT_KERNEL_Y, 3, AT_KERNEL_X, 2, AT_STRIDE_Y, 2, AT_STRIDE_X, 2,
                   AT_PAD_UP, 1, AT_PAD_DOWN, 1, AT_CMP, -20, AT_BIT_SHIFT_NUM, 1};
    int32_t s[TIR_NDIMS] = {4, 3, 5, 0, 3, 2, 8, 6};
    Graph *g = fx_block(BT_CCMPB, s, PR_INT_8, 0, a, 8, 0);
    int32_t b[] = {0, 3, 4};
    cut_same(g, SPLIT_Y, b, 2, 1);
    graph_destroy(g);
    g = fx_block(BT_CCMPS, s, PR_INT_8, 0, a, 8, 0);
    int32_t x[] = {0, 1, 3};
    cut_same(g, SPLIT_X, x, 2, 1);
    graph_destroy(g);
    g = fx_block(BT_CCMPB, s, PR_INT_8, 0, a, 8, 0);
    int32_t f[] = {0, 2, 5};
    cut_same(g, SPLIT_F, f, 2, 1);
    graph_destroy(g);
}

/* CLUT: every piece gets its own copy of the whole table. */
static void test_clut_table_copied(void **state)
{
    (void)state;
    int32_t a[] = {AT_LUT_DW, 8};
    int32_t s[TIR_NDIMS] = {2, 3, 4};
    Graph *g = fx_block(BT_CLUT, s, PR_INT_8, 0, a, 1, 0);
    int32_t f[] = {0, 1, 4};
    cut_same(g, SPLIT_F, f, 2, 1);
    assert_int_equal(pt_by_name(g, "op/lut/f0")->shape.d[D_F], 256);
    assert_int_equal(pt_by_name(g, "op/lut/f1")->shape.d[D_F], 256);
    graph_destroy(g);
}

/* CLIF, split by neuron: each piece carries its neurons' potentials over the steps. */
static void test_clif_state(void **state)
{
    (void)state;
    int32_t a[] = {AT_VTH0, 60, AT_VLEAKY_BETA, -3};
    int32_t s[TIR_NDIMS] = {2, 2, 6};
    Graph *g = fx_block(BT_CLIF, s, PR_INT_8, 0, a, 2, 2);
    int32_t f[] = {0, 4, 6};
    cut_same(g, SPLIT_F, f, 2, 5);
    int32_t y[] = {0, 1, 2};
    Block *p = pt_by_name(g, "op/f0");
    p->name = "op";
    cut_same(g, SPLIT_Y, y, 2, 5);
    graph_destroy(g);
}

static Status run_split(Graph *g, const Chip *c, const char *spec, bool no_fit, Diag *d)
{
    PassOptions o = {.chip = c, .split_spec = spec, .no_fit = no_fit};
    return pass_split(g, &o, d);
}

/* Runs the split pass on g (spec: its explicit cuts, no fit mode; NULL: fit mode) and
 * checks that it verifies and gives the same outputs. */
static void split_same(Graph *g, const Chip *c, const char *spec)
{
    int64_t n0, n1;
    int32_t *before = fx_run(g, 1, 3, &n0);
    Diag d;
    diag_init(&d, "test");
    Status st = run_split(g, c, spec, spec != NULL, &d);
    if (st != ST_OK)
        diag_print(&d, stderr, "test");
    assert_int_equal(st, ST_OK);
    diag_finish(&d);
    pt_verify(g);
    int32_t *after = fx_run(g, 1, 3, &n1);
    assert_int_equal(n0, n1);
    assert_memory_equal(before, after, (size_t)n0 * sizeof *before);
    free(before), free(after);
}

/* A 3x3 conv with dilation 2 of r input channels, cut by the split pass with the explicit
 * cuts spec (no fit): it must then verify and give the same outputs. */
static Graph *spec_same(const Chip *c, int32_t r, const char *spec)
{
    int32_t s[TIR_NDIMS] = {9, 7, 5, r, 3, 3, 9, 7};
    Graph *g = fx_block(BT_CC, s, PR_INT_32, BIAS_VECTOR, conv_dil, 8, 0);
    split_same(g, c, spec);
    return g;
}

static void test_spec(void **state)
{
    (void)state;
    Chip *c = chip();
    Graph *g = spec_same(c, 3, "op:y=2,f=2");
    assert_non_null(pt_by_name(g, "op/y1/f0"));
    Diag d;
    diag_init(&d, "test");
    static const char *bad[] = {"nosuch:y=2", "op/y0/f0:q=2", "op/y0/f0:y=1",
                                "op/y0/f0:y=99", "op/y0/f0", "op/y0/f0:y=2x"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        diag_finish(&d);
        diag_init(&d, "test");
        assert_int_equal(run_split(g, c, bad[i], true, &d), ST_LOGIC);
        assert_true(diag_find(&d, "pass.split.spec") >= 0);
    }
    diag_finish(&d);
    graph_destroy(g);
    chip_destroy(c);
}

/* The data of block name, as a pointer to its first value. */
static const int32_t *values_of(Graph *g, const char *name)
{
    const Block *b = pt_by_name(g, name);
    assert_non_null(b);
    assert_non_null(b->data);
    assert_true(b->data->n_i32 > 0);
    return b->data->i32;
}

/* A part of a tensor that is a copy (an r cut of the weights [f r ky kx]) is made once:
 * the pieces of a y cut share their weights, and cut along r again each piece's weights
 * for the same input channels are one copy (split_slice.c), not one copy a piece; the
 * outputs stay the same. */
static void test_slices_shared(void **state)
{
    (void)state;
    Chip *c = chip();
    Graph *g = spec_same(c, 6, "op:y=2,r=2");
    assert_ptr_equal(values_of(g, "op/w/y0/r0"), values_of(g, "op/w/y1/r0"));
    assert_ptr_equal(values_of(g, "op/w/y0/r1"), values_of(g, "op/w/y1/r1"));
    assert_ptr_not_equal(values_of(g, "op/w/y0/r0"), values_of(g, "op/w/y0/r1"));
    graph_destroy(g);
    chip_destroy(c);
}

/* The pass's copies of the weights, cut along f then r, lie in the memory of the tensor
 * they were cut from (split_slices_finish: nothing else holds it after the pass), each
 * apart from the others; the outputs stay the same (spec_same). */
static void test_slices_in_place(void **state)
{
    (void)state;
    Chip *c = chip();
    int32_t s[TIR_NDIMS] = {9, 7, 64, 6, 3, 3, 9, 7};
    Graph *g = fx_block(BT_CC, s, PR_INT_32, BIAS_VECTOR, conv_dil, 8, 0);
    const Tensor *w = pt_by_name(g, "op/w")->data;
    const int32_t *lo = w->i32, *hi = w->i32 + w->n_i32;
    split_same(g, c, "op:f=2,r=2");
    static const char *const names[] = {"op/w/f0/r0", "op/w/f0/r1", "op/w/f1/r0",
                                        "op/w/f1/r1"};
    uint32_t total = 0;
    for (int i = 0; i < 4; i++) {
        const Tensor *t = pt_by_name(g, names[i])->data;
        assert_true(t->i32 >= lo && t->i32 + t->n_i32 <= hi);
        for (int j = 0; j < i; j++) {
            const Tensor *u = pt_by_name(g, names[j])->data;
            assert_true(t->i32 + t->n_i32 <= u->i32 || u->i32 + u->n_i32 <= t->i32);
        }
        total += t->n_i32;
    }
    assert_int_equal(total, hi - lo);
    graph_destroy(g);
    chip_destroy(c);
}

/* Weights loaded narrow (LoadOptions.narrow: int8 in a byte each, Tensor.i8), cut along f
 * then r and through the default passes: the parts stay narrow, lie in the memory of the
 * tensor they were cut from, and the graph saves to the same bytes as when loaded wide (the
 * verifier, fuse's merging and the saver read the values either way; with 4 output
 * channels the parts are of fewer values than the saver encodes itself). */
static void slices_narrow(int32_t f)
{
    Chip *c = chip();
    int32_t s[TIR_NDIMS] = {9, 7, f, 6, 3, 3, 9, 7};
    Graph *g = fx_block(BT_CC, s, PR_INT_32, BIAS_VECTOR, conv_dil, 8, 0);
    Diag d;
    diag_init(&d, "test");
    uint8_t *pb, *out[2];
    size_t len, olen[2];
    assert_int_equal(graph_pack(g, &pb, &len, &d), ST_OK);
    graph_destroy(g);
    static const char *const names[] = {"op/w/f0/r0", "op/w/f0/r1", "op/w/f1/r0",
                                        "op/w/f1/r1"};
    static const char *const passes[] = {"fuse", "replicate", "group"};
    for (int narrow = 0; narrow < 2; narrow++) {
        LoadOptions lo = {.threads = 1, .narrow = narrow};
        assert_int_equal(graph_load_pb_mem_opts(pb, len, &lo, &g, &d), ST_OK);
        const Tensor *w = pt_by_name(g, "op/w")->data;
        assert_int_equal(w->i8 != NULL, narrow);
        const int8_t *lo8 = w->i8, *hi8 = w->i8 + w->n_i32;
        assert_int_equal(run_split(g, c, "op:f=2,r=2", false, &d), ST_OK);
        for (int i = 0; narrow && i < 4; i++) {
            const Tensor *t = pt_by_name(g, names[i])->data;
            assert_true(t->i8 && !t->i32 && t->i8 >= lo8 && t->i8 + t->n_i32 <= hi8);
        }
        PassOptions o = {.chip = c};
        for (int k = 0; k < 3; k++)
            assert_int_equal(pass_find(passes[k])->run(g, &o, &d), ST_OK);
        pt_verify(g);
        assert_int_equal(graph_pack(g, &out[narrow], &olen[narrow], &d), ST_OK);
        graph_destroy(g);
    }
    assert_int_equal(olen[0], olen[1]);
    assert_memory_equal(out[0], out[1], olen[0]);
    free(out[0]), free(out[1]), free(pb);
    diag_finish(&d);
    chip_destroy(c);
}

static void test_slices_narrow(void **state)
{
    (void)state;
    slices_narrow(64);
    slices_narrow(4);
}

/* split_slices_finish on four copies that tile a conv's weights [6 5 3 3] (two of them cut
 * from a view of its first rows): while a block still holds the tensor (or the view), the
 * copies go to fresh memory and the tensor is left as it was; once nothing else holds
 * them, into the tensor's own memory. The values are the same either way, and a copy has
 * none before. */
static void test_slices_finish(void **state)
{
    (void)state;
    int32_t s[TIR_NDIMS] = {9, 7, 6, 5, 3, 3, 9, 7};
    for (int held = 0; held < 2; held++) {
        Graph *g = fx_block(BT_CC, s, PR_INT_32, BIAS_VECTOR, conv_dil, 8, 0);
        Block *w = pt_by_name(g, "op/w");
        const int32_t *lo = w->data->i32;
        uint32_t n = w->data->n_i32;
        assert_int_equal(n, 6 * 5 * 9);
        int32_t *orig = malloc(n * sizeof *orig);
        assert_non_null(orig);
        memcpy(orig, lo, n * sizeof *orig);
        SplitSlices *sl = split_slices_create();
        assert_non_null(sl);
        Block *view = graph_clone_block(g, w, "v"), *piece[4];
        assert_non_null(view);
        SplitBox rows = {.pos = {0}, .size = {0, 0, 3, 0, 0, 0}};
        assert_true(split_slice_data(g, sl, w, view, &rows));
        assert_true(view->data->i32 == lo); /* a view: no copy */
        static const int32_t f0[4] = {0, 0, 3, 3}, r0[4] = {0, 2, 0, 2}, rn[4] = {2, 3, 2, 3};
        for (int i = 0; i < 4; i++) {
            char suf[8];
            snprintf(suf, sizeof suf, "p%d", i);
            assert_non_null(piece[i] = graph_clone_block(g, w, suf));
            SplitBox b = {.pos = {0, 0, i < 2 ? 0 : f0[i], r0[i], 0, 0},
                          .size = {0, 0, 3, rn[i], 0, 0}};
            assert_true(split_slice_data(g, sl, i < 2 ? view : w, piece[i], &b));
            assert_int_equal(piece[i]->data->n_i32, 0);
        }
        if (!held) {
            graph_remove_block(g, w);
            graph_remove_block(g, view);
            assert_true(graph_compact(g));
        }
        assert_true(split_slices_finish(g, sl));
        SplitSliceStats st = split_slices_stats(sl);
        assert_int_equal(held ? st.fresh_values : st.in_place_values, n);
        assert_int_equal(held ? st.in_place_values : st.fresh_values, 0);
        for (int i = 0; i < 4; i++) {
            const Tensor *t = piece[i]->data;
            assert_int_equal(t->n_i32, 3 * rn[i] * 9);
            assert_true((t->i32 >= lo && t->i32 < lo + n) == !held);
            for (int f = 0; f < 3; f++)
                assert_memory_equal(t->i32 + f * rn[i] * 9,
                                    orig + ((f0[i] + f) * 5 + r0[i]) * 9,
                                    (size_t)rn[i] * 9 * sizeof *orig);
        }
        if (held)
            assert_memory_equal(lo, orig, n * sizeof *orig);
        split_slices_destroy(sl);
        free(orig);
        graph_destroy(g);
    }
}

/* Every group's memory, as the pass counts it (the code generator's working areas too),
 * within the budget. */
static void assert_groups_fit(const Graph *g, const Chip *c)
{
    GraphUses u;
    assert_true(graph_uses(g, &u));
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        if (bt_info(g->blocks[i]->type)->kind != BK_COMPUTE)
            continue;
        GroupMem m;
        assert_true(chip_group_mem(c, g, &u, g->blocks[i], &m));
        int64_t work = layout_work_bytes(g, &u, i);
        assert_true(work >= 0);
        assert_true(m.total + work <= c->core_budget_bytes);
    }
    graph_uses_finish(&u);
}

/* Every edge into a storage block within the per-destination limit (int8 storage here:
 * a byte an element). */
static void assert_edges_fit(const Graph *g, const Chip *c)
{
    GraphUses u;
    assert_true(graph_uses(g, &u));
    for (uint32_t i = 0; i < g->n_edges; i++) {
        EdgeEnds en;
        char why[256];
        assert_true(edge_ends(g, &u, g->edges[i], &en, why, sizeof why));
        if (bt_info(en.dst->type)->kind != BK_STORAGE)
            continue;
        int64_t v = 1;
        for (int k = 0; k < TIR_CDIMS; k++)
            v *= en.dst_box[k] > 0 ? en.dst_box[k] : 1;
        assert_true(v * pr_info(blk_prec(en.dst))->bits / 8 <= c->dest_bytes_per_phase);
    }
    graph_uses_finish(&u);
}

/* Fit mode on g: runs g (seed) before, then split, the verifier and checks that every group
 * fits c; returns the outputs before (*n their count) for same_outputs. */
static int32_t *fit_checked(Graph *g, const Chip *c, uint32_t seed, int64_t *n)
{
    int32_t *before = fx_run(g, 1, seed, n);
    Diag d;
    diag_init(&d, "test");
    Status st = run_split(g, c, NULL, false, &d);
    if (st != ST_OK)
        diag_print(&d, stderr, "test");
    assert_int_equal(st, ST_OK);
    diag_finish(&d);
    pt_verify(g);
    assert_groups_fit(g, c);
    return before;
}

/* g runs (seed) to the n outputs before, which it frees. */
static void same_outputs(const Graph *g, uint32_t seed, int32_t *before, int64_t n)
{
    int64_t n1;
    int32_t *after = fx_run(g, 1, seed, &n1);
    assert_int_equal(n1, n);
    assert_memory_equal(before, after, (size_t)n * sizeof *before);
    free(before), free(after);
}

/* Fit mode on a chip whose core holds 16 KiB and whose destinations take 4 KiB a phase: a
 * weight-heavy conv is cut along f, one whose 32 channels' weights alone do not fit along r
 * (its joining CADD cut again as needed), an activation-heavy one along y, and the edges
 * that carry more than 4 KiB are cut; the outputs stay the same. */
static void test_fit(void **state)
{
    (void)state;
    Chip *c = chip();
    c->core_budget_bytes = 16384;
    c->dest_bytes_per_phase = 4096;
    int32_t a[] = {AT_KERNEL_Y, 3, AT_KERNEL_X, 3, AT_PAD_UP, 1, AT_PAD_DOWN, 1,
                   AT_PAD_LEFT, 1, AT_PAD_RIGHT, 1};
    int32_t heavy[TIR_NDIMS] = {4, 4, 96, 16, 3, 3, 4, 4};
    int32_t light[TIR_NDIMS] = {40, 24, 8, 3, 3, 3, 40, 24};
    int32_t deep[TIR_NDIMS] = {4, 4, 32, 64, 3, 3, 4, 4};
    const int32_t *shapes[] = {heavy, light, deep};
    static const char *first[] = {"op/f0", "op/y0", "op/r0"};
    for (int k = 0; k < 3; k++) {
        Graph *g = fx_block(BT_CC, shapes[k], PR_INT_32, BIAS_VECTOR, a, 6, 0);
        int64_t n0;
        int32_t *before = fit_checked(g, c, 5, &n0);
        assert_edges_fit(g, c);
        assert_non_null(pt_by_name(g, first[k]));
        assert_int_equal(pt_count(g, BT_CADD) > 0, k == 2);
        same_outputs(g, 5, before, n0);
        graph_destroy(g);
    }
    chip_destroy(c);
}

/* Fit mode's plans (passes/split_fit.c, choose): a 1 x 1 convolution of 512 channels into
 * 64 whose r cut alone would fit in 4 pieces, but whose join (4 partial sums) would not and
 * would be cut again, is cut into 2 along r, each piece then along f; one of 64 channels
 * into 64 over 16 x 16 pixels, which 7 row bands would fit each holding a copy of all its
 * weights, is cut along f first, so that no piece holds all of the weights. The outputs
 * stay the same. */
static void test_fit_plans(void **state)
{
    (void)state;
    Chip *c = chip();
    c->core_budget_bytes = 16384;
    int32_t deep[TIR_NDIMS] = {4, 4, 64, 512, 1, 1, 4, 4};
    int32_t wide[TIR_NDIMS] = {16, 16, 64, 64, 1, 1, 16, 16};
    const int32_t *shapes[] = {deep, wide};
    for (int k = 0; k < 2; k++) {
        Graph *g = fx_block(BT_CC, shapes[k], PR_INT_32, BIAS_VECTOR, NULL, 0, 0);
        int64_t n0;
        int32_t *before = fit_checked(g, c, 11, &n0);
        /* deep: no join cut again (a piece of "op/r3+"); wide: no piece holds all of the
         * weights */
        int32_t w_all = shapes[k][D_F] * shapes[k][D_R];
        for (uint32_t i = 0; i < g->n_blocks; i++) {
            const Block *b = g->blocks[i];
            assert_null(b->name ? strstr(b->name, "+/") : NULL);
            if (k == 1 && b->type == BT_SW)
                assert_true(b->shape.d[D_F] * b->shape.d[D_R] < w_all);
        }
        assert_true(pt_count(g, BT_CC) > 1);
        same_outputs(g, 11, before, n0);
        graph_destroy(g);
    }
    chip_destroy(c);
}

/* Fit mode plans a block's cuts together (passes/split_plan.c): the counts along f, y, x and
 * r are chosen in one plan, figured on the grid's largest piece with its halo, and the
 * pieces carry the rest of the plan to the next round, so that no piece is cut twice along
 * one axis (the rough estimate of a second cut left out the halo, and a 3 x 3 convolution
 * was cut f, y, x, y, y); a 1 x 1 convolution of stride 2, whose band of k output rows reads
 * 2k - 1 input rows, is cut along r too, so that its bands are taller and fewer copy its
 * weights. The outputs stay the same. */
static void test_fit_joint(void **state)
{
    (void)state;
    Chip *c = chip();
    c->core_budget_bytes = 16384;
    int32_t k3[] = {AT_KERNEL_Y, 3, AT_KERNEL_X, 3, AT_PAD_UP, 1, AT_PAD_DOWN, 1,
                    AT_PAD_LEFT, 1, AT_PAD_RIGHT, 1};
    int32_t s2[] = {AT_STRIDE_Y, 2, AT_STRIDE_X, 2};
    int32_t conv3[TIR_NDIMS] = {24, 24, 40, 40, 3, 3, 24, 24};
    int32_t proj[TIR_NDIMS] = {12, 12, 64, 256, 1, 1, 24, 24};
    const int32_t *shapes[] = {conv3, proj};
    const int32_t *attrs[] = {k3, s2};
    const int n_attrs[] = {6, 2};
    for (int k = 0; k < 2; k++) {
        Graph *g = fx_block(BT_CC, shapes[k], PR_INT_32, BIAS_VECTOR, attrs[k], n_attrs[k], 0);
        int64_t n0;
        int32_t *before = fit_checked(g, c, 13, &n0);
        int64_t rows = 0;
        for (uint32_t i = 0; i < g->n_blocks; i++) {
            const Block *b = g->blocks[i];
            if (!b->name || bt_info(b->type)->kind != BK_COMPUTE)
                continue;
            for (const char *ax = "yxfr"; *ax; ax++) {
                char cut[3] = {'/', *ax, 0};
                const char *at = strstr(b->name, cut);
                assert_true(!at || !strstr(at + 1, cut)); /* one cut a axis */
            }
            if (b->type == BT_CC && k == 1 && b->shape.d[D_Y] > rows)
                rows = b->shape.d[D_Y];
        }
        if (k == 1) { /* bands of more than one row: cut along r too */
            assert_true(rows > 1);
            assert_true(pt_count(g, BT_CADD) > 0);
        }
        same_outputs(g, 13, before, n0);
        graph_destroy(g);
    }
    chip_destroy(c);
}

/* Fit mode does not cut a weight-heavy block into row or column bands, each of which would
 * hold a copy of its weights (in the output file and on the load path), when cuts along f
 * and r alone make pieces that fit, though their join is then larger than a core and is cut
 * into row bands of its own: a 1 x 1 convolution of stride 2 of 384 channels into 768 over
 * 7 x 7 pixels (like the 10x model's layer4_0_proj, on a core of 16 KiB), whose plan with a
 * join that fits would be f24 y3 r3, is cut along f and r only and each join into row
 * bands. Every weight is held by one block, and the outputs stay the same. */
static void test_fit_unbanded(void **state)
{
    (void)state;
    Chip *c = chip();
    c->core_budget_bytes = 16384;
    int32_t s2[] = {AT_STRIDE_Y, 2, AT_STRIDE_X, 2};
    int32_t wide[TIR_NDIMS] = {7, 7, 768, 384, 1, 1, 14, 14};
    Graph *g = fx_block(BT_CC, wide, PR_INT_32, BIAS_VECTOR, s2, 2, 0);
    int64_t n0;
    int32_t *before = fit_checked(g, c, 17, &n0);
    int64_t held = 0;
    bool join_cut = false;
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        const Block *b = g->blocks[i];
        if (b->type == BT_SW)
            held += (int64_t)b->shape.d[D_F] * b->shape.d[D_R];
        if (b->type == BT_CC) /* no band: cut along f and r only */
            assert_true(!strstr(b->name, "/y") && !strstr(b->name, "/x"));
        if (b->type == BT_CADD) {
            assert_non_null(strstr(b->name, "+"));
            join_cut = join_cut || strstr(b->name, "+/y");
        }
    }
    assert_int_equal(held, (int64_t)wide[D_F] * wide[D_R]);
    assert_true(join_cut);
    same_outputs(g, 17, before, n0);
    graph_destroy(g);
    chip_destroy(c);
}

/* Fit mode counts the code generator's working areas (layout_work_bytes), as the mapper
 * does: a CADD of two different int8 model inputs of 9 x 8 pixels of 32 channels into an
 * int8 map, on a core of 16 KiB. Its group: the inputs 2 x 72 x 32 B = 4608, its int32
 * output buffer 72 x 128 B = 9216: 13824 bytes, which fit. P02 reads the two inputs back to
 * back in an area of 2 x 72 x 32 B = 4608 (layout_gather_bytes), in which both lie (model
 * inputs that it alone reads: layout_gather_in_place, no more than their storage), and
 * writes int32 rows of 32 channels that a P06 narrows into the int8 map, 72 x 128 B = 9216
 * (layout_narrow_bytes): 23040 bytes in all, more than the core, which the mapper would
 * refuse (map.mem.group). So fit mode cuts it in two, and the outputs stay the same. */
static void test_fit_work(void **state)
{
    (void)state;
    Chip *c = chip();
    c->core_budget_bytes = 16384;
    int32_t s[TIR_NDIMS] = {9, 8, 32};
    Graph *g = fx_block(BT_CADD, s, PR_INT_8, BIAS_ABSENT, NULL, 0, 2);
    pt_by_name(g, "op/out")->prec = PR_INT_8;
    GraphUses u;
    assert_true(graph_uses(g, &u));
    uint32_t op = (uint32_t)graph_block_pos(g, pt_by_name(g, "op")->id);
    GroupMem m;
    assert_true(chip_group_mem(c, g, &u, g->blocks[op], &m));
    assert_int_equal(m.total, 13824);
    assert_int_equal(layout_gather_bytes(g, &u, op), 4608);
    assert_int_equal(layout_gather_in_place(g, &u, op), 2);
    assert_int_equal(layout_narrow_bytes(g, &u, op), 9216);
    assert_int_equal(layout_work_bytes(g, &u, op), 9216);
    SplitNeed n;
    assert_true(split_need_of(c, g, &u, g->blocks[op], &n));
    assert_int_equal(n.total, 23040);
    graph_uses_finish(&u);
    int64_t n0;
    int32_t *before = fit_checked(g, c, 17, &n0);
    assert_int_equal(pt_count(g, BT_CADD), 2);
    same_outputs(g, 17, before, n0);
    graph_destroy(g);
    chip_destroy(c);
}

/* A CLUT of one int32 channel reading an int8 map (256 pixels of 16-byte rows) writes the
 * row it reads (P07): 16 int32 lanes a pixel, 64 bytes, in the code generator's buffer
 * (taskir/layout_buf.h), not the chip description's 16. Its group: the input 4096 bytes, the
 * table 256, the buffer 16384 (chip_buffer_held: the split, the mapper and map.mem.core
 * count it so), 20736 in all (8448 counting 16-byte rows). On a core of 8 KiB it is cut so
 * that each piece's buffer fits too: pieces of at most 99 pixels (80 bytes a pixel and the
 * table), three of them, where the 16-byte count made two of 128 (4352 bytes counted,
 * 10496 laid out). The outputs stay the same. */
static void test_fit_lut_rows(void **state)
{
    (void)state;
    Chip *c = chip();
    c->core_budget_bytes = 8192;
    int32_t a[] = {AT_LUT_DW, 8};
    int32_t s[TIR_NDIMS] = {1, 256, 1};
    Graph *g = fx_block(BT_CLUT, s, PR_INT_32, 0, a, 1, 0);
    GraphUses u;
    assert_true(graph_uses(g, &u));
    uint32_t op = (uint32_t)graph_block_pos(g, pt_by_name(g, "op")->id);
    GroupMem m;
    assert_true(chip_group_mem(c, g, &u, g->blocks[op], &m));
    assert_int_equal(m.output, 16384);
    assert_int_equal(m.total, 20736);
    graph_uses_finish(&u);
    int64_t n0;
    int32_t *before = fit_checked(g, c, 23, &n0);
    assert_int_equal(pt_count(g, BT_CLUT), 3);
    same_outputs(g, 23, before, n0);
    graph_destroy(g);
    chip_destroy(c);
}

/* A light block (activations outweigh weights) whose cheapest cut is along f into p pieces
 * is cut into p row or column bands instead when those fit for no more memory
 * (passes/split_plan.c): an f piece takes a slice of each pixel, which a writer or reader
 * cut otherwise sends as a run of its own with a gap after it (a router header and a
 * disabled one a pixel, 128 a phase: div_relu_9x9's sums of 256 x 256 went so, 384
 * headers in a phase). A sum of two int8 maps of one row of 32 pixels of 64 channels into
 * int32 (its group 12288 bytes) on a core of 8 KiB fits in two pieces along f or x alike:
 * it is cut along x. A window max along x (kx 3, 10240 bytes) is still cut along f: its
 * column bands would each read a halo (more bytes). The outputs stay the same. */
static void test_fit_light_bands(void **state)
{
    (void)state;
    Chip *c = chip();
    c->core_budget_bytes = 8192;
    int32_t row[TIR_NDIMS] = {1, 32, 64};
    Graph *g = fx_block(BT_CADD, row, PR_INT_32, 0, NULL, 0, 2);
    int64_t n0;
    int32_t *before = fit_checked(g, c, 19, &n0);
    assert_non_null(pt_by_name(g, "op/x0"));
    assert_non_null(pt_by_name(g, "op/x1"));
    assert_null(pt_by_name(g, "op/x2"));
    assert_null(pt_by_name(g, "op/f0"));
    same_outputs(g, 19, before, n0);
    graph_destroy(g);
    int32_t k3[] = {AT_KERNEL_X, 3, AT_PAD_LEFT, 1, AT_PAD_RIGHT, 1};
    int32_t pool[TIR_NDIMS] = {1, 32, 64, 0, 1, 3, 1, 32};
    g = fx_block(BT_CCMPB, pool, PR_INT_32, 0, k3, 3, 0);
    before = fit_checked(g, c, 19, &n0);
    assert_non_null(pt_by_name(g, "op/f0"));
    assert_null(pt_by_name(g, "op/x0"));
    same_outputs(g, 19, before, n0);
    graph_destroy(g);
    chip_destroy(c);
}

/* Groups that fit and edges that do not: only the edges are cut, each carrying at most the
 * per-destination limit (256 bytes here), and the graph runs as before. */
static void test_edges_cut(void **state)
{
    (void)state;
    Chip *c = chip();
    c->dest_bytes_per_phase = 256;
    int32_t a[] = {AT_KERNEL_Y, 3, AT_KERNEL_X, 3, AT_PAD_UP, 1, AT_PAD_DOWN, 1,
                   AT_PAD_LEFT, 1, AT_PAD_RIGHT, 1};
    int32_t s[TIR_NDIMS] = {8, 8, 4, 4, 3, 3, 8, 8};
    Graph *g = fx_block(BT_CC, s, PR_INT_32, BIAS_VECTOR, a, 6, 0);
    uint32_t blocks = g->n_blocks, edges = g->n_edges;
    int64_t n0, n1;
    int32_t *before = fx_run(g, 1, 9, &n0);
    Diag d;
    diag_init(&d, "test");
    assert_int_equal(run_split(g, c, NULL, false, &d), ST_OK);
    diag_finish(&d);
    pt_verify(g);
    assert_int_equal(g->n_blocks, blocks);
    assert_true(g->n_edges > edges);
    assert_edges_fit(g, c);
    int32_t *after = fx_run(g, 1, 9, &n1);
    assert_memory_equal(before, after, (size_t)n0 * sizeof *before);
    free(before), free(after);
    graph_destroy(g);
    chip_destroy(c);
}

/* The channels of block name's output. */
static int32_t f_of(Graph *g, const char *name)
{
    const Block *b = pt_by_name(g, name);
    assert_non_null(b);
    return b->shape.d[D_F];
}

/* Cuts along f end at whole packets of the piece's output precision (8 bytes: 2 int32, 4
 * int16, 8 int8 channels) when the count allows, so that the code generator can send each
 * piece in whole packets: 40 int32 channels in three are 14 + 14 + 12, not 14 + 13 + 13;
 * 40 int8 channels of a conv (32 a MAC group) in three are 16 + 16 + 8; a count too small
 * for whole units is cut as equally as it can be. The explicit cuts and fit mode both cut
 * so, and the outputs stay the same. */
static void test_f_packet_units(void **state)
{
    (void)state;
    Chip *c = chip();
    assert_int_equal(split_unit(c, PR_INT_32, SPLIT_F), 2);
    assert_int_equal(split_unit(c, PR_INT_16, SPLIT_F), 4);
    assert_int_equal(split_unit(c, PR_INT_8, SPLIT_F), 8);
    assert_int_equal(split_unit(c, PR_INT_9, SPLIT_F), 4);
    assert_int_equal(split_unit(c, PR_TERNARY, SPLIT_F), 32);
    assert_int_equal(split_unit(c, PR_INT_8, SPLIT_Y), 1);
    int32_t b[7];
    int32_t s[TIR_NDIMS] = {2, 3, 40};
    Graph *g = fx_block(BT_CADD, s, PR_INT_32, BIAS_VECTOR, NULL, 0, 2);
    Block *op = pt_by_name(g, "op");
    split_cut_bounds(c, op, SPLIT_F, 3, 2, b);
    assert_int_equal(b[1], 14), assert_int_equal(b[2], 28), assert_int_equal(b[3], 40);
    split_cut_bounds(c, op, SPLIT_F, 3, 1, b); /* no unit: as equal as can be */
    assert_int_equal(b[1], 14), assert_int_equal(b[2], 27);
    split_cut_bounds(c, op, SPLIT_F, 3, 8, b);
    assert_int_equal(b[1], 16), assert_int_equal(b[2], 32);
    split_cut_bounds(c, op, SPLIT_F, 6, 8, b); /* 5 units of 8 for 6 pieces: 7 7 7 7 6 6 */
    assert_int_equal(b[1], 7), assert_int_equal(b[5], 34);
    split_same(g, c, "op:f=3");
    assert_int_equal(f_of(g, "op/f0"), 14);
    assert_int_equal(f_of(g, "op/f1"), 14);
    assert_int_equal(f_of(g, "op/f2"), 12);
    graph_destroy(g);
    int32_t cs[TIR_NDIMS] = {3, 3, 40, 3, 3, 3, 5, 5};
    g = fx_block(BT_CC, cs, PR_INT_8, BIAS_VECTOR, conv_dil, 2, 0);
    split_cut_bounds(c, pt_by_name(g, "op"), SPLIT_F, 2, 8, b);
    assert_int_equal(b[1], 32);
    split_same(g, c, "op:f=3");
    assert_int_equal(f_of(g, "op/f0"), 16);
    assert_int_equal(f_of(g, "op/f1"), 16);
    assert_int_equal(f_of(g, "op/f2"), 8);
    graph_destroy(g);
    /* fit mode: an int8 sum of 3000 channels and two inputs takes 18 KiB, cut along f
     * into two on a core of 16 KiB: 1504 + 1496, not 1500 + 1500 */
    c->core_budget_bytes = 16384;
    int32_t v[TIR_NDIMS] = {0, 0, 3000};
    g = fx_block(BT_CADD, v, PR_INT_8, BIAS_VECTOR, NULL, 0, 2);
    split_same(g, c, NULL);
    assert_groups_fit(g, c);
    assert_int_equal(f_of(g, "op/f0"), 1504);
    assert_int_equal(f_of(g, "op/f1"), 1496);
    graph_destroy(g);
    chip_destroy(c);
}

/* Along r, the unit is the values of a packet of the map the pieces read (split_unit_of):
 * each piece's slice of an int8 pixel starts on 8 bytes, so that its writers send it in
 * 8-byte packets, not in 1-byte ones (ResNet-50's layer3_0_conv2, 256 channels cut in
 * three: 88 + 88 + 80, not 86 + 85 + 85), in an explicit cut as in fit mode, which cuts a
 * 3 x 3 convolution of 200 int8 channels so; the outputs stay the same. */
static void test_r_packet_units(void **state)
{
    (void)state;
    Chip *c = chip();
    int32_t a[] = {AT_KERNEL_Y, 3, AT_KERNEL_X, 3, AT_PAD_UP, 1, AT_PAD_DOWN, 1,
                   AT_PAD_LEFT, 1, AT_PAD_RIGHT, 1};
    int32_t s[TIR_NDIMS] = {4, 4, 32, 256, 3, 3, 4, 4};
    Graph *g = fx_block(BT_CC, s, PR_INT_32, BIAS_VECTOR, a, 6, 0);
    GraphUses u;
    assert_true(graph_uses(g, &u));
    const Block *op = pt_by_name(g, "op");
    int32_t unit = split_unit_of(c, g, &u, op, SPLIT_R), b[4];
    assert_int_equal(unit, 8); /* the int8 input's, not the int32 sums' (2) */
    split_cut_bounds(c, op, SPLIT_R, 3, unit, b);
    assert_int_equal(b[1], 88), assert_int_equal(b[2], 176), assert_int_equal(b[3], 256);
    graph_uses_finish(&u);
    split_same(g, c, "op:r=3"); /* an explicit cut likewise */
    assert_int_equal(pt_by_name(g, "op/r0")->shape.d[D_R], 88);
    assert_int_equal(pt_by_name(g, "op/r2")->shape.d[D_R], 80);
    graph_destroy(g);
    c->core_budget_bytes = 16384;
    s[D_R] = 200;
    g = fx_block(BT_CC, s, PR_INT_32, BIAS_VECTOR, a, 6, 0);
    int64_t n0;
    int32_t *before = fit_checked(g, c, 17, &n0);
    uint32_t r_cut = 0; /* every piece's slice is whole packets: 200 = 25 of them */
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        const Block *p = g->blocks[i];
        if (p->type != BT_CC)
            continue;
        r_cut += p->shape.d[D_R] < 200;
        assert_int_equal(p->shape.d[D_R] % 8, 0);
    }
    assert_true(r_cut > 1);
    same_outputs(g, 17, before, n0);
    graph_destroy(g);
    chip_destroy(c);
}

/* A block that no cut makes fit: one output element's group is larger than the budget. */
static void test_cannot_fit(void **state)
{
    (void)state;
    Chip *c = chip();
    c->core_budget_bytes = 512;
    int32_t s[TIR_NDIMS] = {2, 2, 4, 3, 3, 3, 4, 4};
    Graph *g = fx_block(BT_CC, s, PR_INT_32, BIAS_VECTOR, conv_dil, 2, 0);
    Diag d;
    diag_init(&d, "test");
    assert_int_equal(run_split(g, c, NULL, false, &d), ST_LOGIC);
    long k = diag_find(&d, "pass.split.fit");
    assert_true(k >= 0);
    assert_non_null(strstr(d.entries[k].what, "512 bytes"));
    diag_finish(&d);
    graph_destroy(g);
    chip_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cc_y_dilation),
        cmocka_unit_test(test_cc_x_stride),
        cmocka_unit_test(test_cc_f_aligned),
        cmocka_unit_test(test_cc_r_bias),
        cmocka_unit_test(test_cc2d_y),
        cmocka_unit_test(test_cvm_f_r),
        cmocka_unit_test(test_cadd),
        cmocka_unit_test(test_cavg_window),
        cmocka_unit_test(test_cvvh_cax_cvs),
        cmocka_unit_test(test_output_store_cut),
        cmocka_unit_test(test_output_store_steps),
        cmocka_unit_test(test_ccmp_window),
        cmocka_unit_test(test_clut_table_copied),
        cmocka_unit_test(test_clif_state),
        cmocka_unit_test(test_spec),
        cmocka_unit_test(test_slices_shared),
        cmocka_unit_test(test_fit),
        cmocka_unit_test(test_fit_plans),
        cmocka_unit_test(test_fit_joint),
        cmocka_unit_test(test_slices_in_place),
        cmocka_unit_test(test_slices_finish),
        cmocka_unit_test(test_slices_narrow),
        cmocka_unit_test(test_fit_unbanded),
        cmocka_unit_test(test_fit_work),
        cmocka_unit_test(test_fit_lut_rows),
        cmocka_unit_test(test_fit_light_bands),
        cmocka_unit_test(test_edges_cut),
        cmocka_unit_test(test_f_packet_units),
        cmocka_unit_test(test_r_packet_units),
        cmocka_unit_test(test_cannot_fit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
