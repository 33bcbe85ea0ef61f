/* test_graph_edit.c: rewriting the working IR (taskir/graph_edit.c) and the use index
 * (taskir/uses.c): box interfaces, removing interfaces / edges / blocks, retargeting an edge
 * end, compacting with ids unchanged, cloning with a derived name, data views, and the index
 * after each change set; a deleted graph verifies, a cloned one simulates to the same bits,
 * the simulator plans a large fan-in right, and the conv leaf builder (taskir/conv_leaf.c)
 * builds the convolution the fixture does; arrays that regrowth leaves behind taken again
 * after the change set (taskir/spare.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "conv_fixture.h"
#include "taskir/conv_leaf.h"
#include "taskir/graph.h"
#include "taskir/sim.h"
#include "taskir/uses.h"
#include "taskir/verify.h"

/* The 4x4x2 -> 2x2x3 convolution of conv_fixture, its weights rows [wrow, wrow+3) of a 6-row
 * tensor: a view of a parent tensor (a removed block's) when view is true, a copy otherwise. */
static Graph *conv_graph(bool view, uint32_t wrow)
{
    Graph *g = conv_fixture(4);
    assert_non_null(g);
    Block *sw = g->blocks[2];
    int64_t w[108];
    for (int i = 0; i < 108; i++)
        w[i] = (i * 7) % 11 - 5;
    if (view) {
        Block *all = graph_add_block(g, BT_SW, GRAPH_AUTO_ID, "all");
        int32_t pd[4] = {6, 2, 3, 3};
        assert_true(blk_set_data(g, all, PR_INT_8, pd, 4, w, 108));
        assert_true(blk_set_data_view(g, sw, all->data, wrow, 3));
        assert_ptr_equal(sw->data->i32, all->data->i32 + wrow * 18);
        graph_remove_block(g, all);
        assert_true(graph_compact(g));
    } else {
        int32_t wd[4] = {3, 2, 3, 3};
        assert_true(blk_set_data(g, sw, PR_INT_8, wd, 4, w + wrow * 18, 54));
    }
    assert_false(graph_oom(g));
    return g;
}

static Block *by_name(const Graph *g, const char *name)
{
    for (uint32_t i = 0; i < g->n_blocks; i++)
        if (g->blocks[i]->name && strcmp(g->blocks[i]->name, name) == 0)
            return g->blocks[i];
    return NULL;
}

static void assert_verifies(const Graph *g)
{
    Diag d;
    diag_init(&d, "test");
    Status st = verify_graph(g, &d);
    if (st != ST_OK)
        diag_print(&d, stderr, "test");
    assert_int_equal(st, ST_OK);
    diag_finish(&d);
}

/* Runs g on the input 0..31 (shifted by seed) and returns the 12 outputs (malloc'd). */
static int32_t *simulate(const Graph *g, int seed)
{
    Diag d;
    diag_init(&d, "test");
    SimRun *run = NULL;
    Status st = sim_create(g, NULL, &run, &d);
    if (st != ST_OK)
        diag_print(&d, stderr, "test");
    assert_int_equal(st, ST_OK);
    int32_t x[32];
    for (int i = 0; i < 32; i++)
        x[i] = (i * 5 + seed) % 13 - 6;
    assert_int_equal(sim_set_input(run, 0, x, 32, &d), ST_OK);
    assert_int_equal(sim_step(run, &d), ST_OK);
    int64_t n = 0;
    const int32_t *y = sim_output(run, 0, &n);
    assert_int_equal(n, 12);
    int32_t *copy = malloc(12 * sizeof *copy);
    assert_non_null(copy);
    memcpy(copy, y, 12 * sizeof *copy);
    sim_destroy(run);
    diag_finish(&d);
    return copy;
}

static void test_uses_index(void **state)
{
    (void)state;
    Graph *g = conv_graph(false, 0);
    Block *cc = by_name(g, "conv");
    GraphUses u;
    assert_true(graph_uses(g, &u));
    long p = graph_block_pos(g, cc->id);
    const BlockUses *bu = &u.blocks[p];
    assert_int_equal(bu->n_in, 3);
    assert_int_equal(bu->n_out, 1);
    assert_int_equal(bu->n_in_edges, 3);
    assert_int_equal(bu->n_out_edges, 1);
    for (uint32_t k = 0; k < bu->n_in_edges; k++) {
        const Edge *e = g->edges[bu->in_edges[k]];
        assert_int_equal(e->dst, cc->id);
        const IfaceUse *f = uses_find(&u, (uint32_t)p, true, e->id);
        assert_non_null(f);
        assert_int_equal(cc->in[f->cluster].ifaces[f->iface].edge_id, e->id);
        const Block *b;
        assert_ptr_equal(uses_edge_end(g, &u, e, false, &b), f);
        assert_ptr_equal(b, cc);
    }
    assert_null(uses_find(&u, (uint32_t)p, false, g->edges[0]->id));
    assert_null(uses_find(&u, g->n_blocks, true, 0));
    graph_uses_finish(&u);
    graph_uses_finish(&u); /* empty: a no-op */
    graph_destroy(g);
}

/* uses_find gives the first interface naming an id, whether the ids run without gaps (the
 * direct guess) or not (the search), and NULL for ids the block does not name. */
static void test_uses_find_runs(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    Block *b = graph_add_block(g, BT_SI, 1, "si");
    assert_non_null(b);
    Cluster *c = blk_add_output(g, b);
    assert_non_null(c);
    const int32_t ids[] = {5, 3, 5, 9, 7};
    for (uint32_t k = 0; k < 5; k++)
        assert_non_null(cluster_add_iface(g, &b->out[0], ids[k]));
    GraphUses u;
    assert_true(graph_uses(g, &u));
    const IfaceUse *f = uses_find(&u, 0, false, 5); /* sorted: 3 5 5 7 9; the guess hits a 5 */
    assert_non_null(f);
    assert_int_equal(f->iface, 0);
    const uint32_t at[][2] = {{3, 1}, {7, 4}, {9, 3}};
    for (int k = 0; k < 3; k++) {
        f = uses_find(&u, 0, false, (int32_t)at[k][0]);
        assert_non_null(f);
        assert_int_equal(f->iface, at[k][1]);
    }
    const int32_t absent[] = {2, 4, 6, 8, 10, INT32_MIN, INT32_MAX};
    for (int k = 0; k < 7; k++)
        assert_null(uses_find(&u, 0, false, absent[k]));
    assert_null(uses_find(&u, 0, true, 5));
    graph_uses_finish(&u);
    graph_destroy(g);
}

static void test_connect_box(void **state)
{
    (void)state;
    Graph *g = graph_create();
    Block *a = graph_add_block(g, BT_SI, GRAPH_AUTO_ID, "a");
    a->shape.d[D_Y] = 2, a->shape.d[D_X] = 2, a->shape.d[D_F] = 8;
    Block *b = graph_add_block(g, BT_SI, GRAPH_AUTO_ID, "b");
    b->shape.d[D_Y] = 2, b->shape.d[D_X] = 2, b->shape.d[D_F] = 4;
    int32_t spos[TIR_CDIMS] = {0, 0, 4}, size[TIR_CDIMS] = {2, 2, 4}, zero[TIR_CDIMS] = {0};
    Edge *e = graph_connect_box(g, a, 0, spos, size, b, 0, zero, size);
    assert_non_null(e);
    const Iface *fs = &a->out[0].ifaces[0], *fd = &b->in[0].ifaces[0];
    assert_true(fs->has_pos && fs->has_size);
    assert_int_equal(fs->pos.d[D_F], 4);
    assert_int_equal(fs->size.d[D_F], 4);
    assert_int_equal(fs->size.d[D_Y], 2);
    assert_false(fd->has_pos || fd->has_size); /* the whole cluster */
    assert_int_equal(fd->edge_id, e->id);
    graph_destroy(g);
}

/* Removing an edge drops its interfaces; removing a block drops its edges; compact keeps the
 * ids and the order; the rest still verifies. */
static void test_delete_then_verify(void **state)
{
    (void)state;
    Graph *g = conv_graph(false, 0);
    Block *si = by_name(g, "conv/out"), *out = by_name(g, "out"), *cc = by_name(g, "conv");
    int32_t si_id = si->id, out_id = out->id, cc_id = cc->id;
    /* the edge SI -> OUTPUT, then the SI block and with it CC -> SI */
    Edge *last = g->edges[5];
    graph_remove_edge(g, last);
    assert_int_equal(si->out[0].n_ifaces, 0);
    assert_int_equal(out->in[0].n_ifaces, 0);
    assert_null(graph_edge(g, last->id));
    graph_remove_block(g, si);
    assert_null(graph_block(g, si_id));
    assert_int_equal(cc->out[0].n_ifaces, 0);
    graph_remove_block(g, out);
    assert_true(graph_compact(g));
    assert_int_equal(g->n_blocks, 5);
    assert_int_equal(g->n_edges, 4);
    assert_ptr_equal(graph_block(g, cc_id), cc);
    assert_int_equal(graph_block_pos(g, cc_id), 4);
    assert_null(graph_block(g, out_id));
    for (uint32_t i = 0; i < g->n_edges; i++)
        assert_int_equal(graph_edge_pos(g, g->edges[i]->id), (long)i);
    /* CC's output now feeds a new SI and OUTPUT: verifies again */
    si = graph_add_block(g, BT_SI, GRAPH_AUTO_ID, "conv/out2");
    si->shape.d[D_Y] = 2, si->shape.d[D_X] = 2, si->shape.d[D_F] = 3;
    assert_true(si->id > out_id);
    out = graph_add_block(g, BT_OUTPUT, GRAPH_AUTO_ID, "out2");
    out->shape.d[D_Y] = 2, out->shape.d[D_X] = 2, out->shape.d[D_F] = 3;
    out->has_socket_id = true;
    assert_non_null(graph_connect(g, cc, 0, si, 0));
    assert_non_null(graph_connect(g, si, 0, out, 0));
    assert_verifies(g);
    /* removing an interface alone leaves an edge the verifier rejects */
    cluster_remove_iface(&out->in[0], 0);
    cluster_remove_iface(&out->in[0], 7); /* out of range: nothing */
    Diag d;
    diag_init(&d, "test");
    assert_int_equal(verify_graph(g, &d), ST_LOGIC);
    assert_true(diag_find(&d, "edge.refs") >= 0);
    diag_finish(&d);
    graph_destroy(g);
}

/* An interface added where a removed one was is a whole-cluster one: the slot's old box does
 * not come back (the split pass cuts and re-feeds clusters many times). */
static void test_iface_slot_reused(void **state)
{
    (void)state;
    Graph *g = conv_graph(false, 0);
    Block *si = by_name(g, "conv/out");
    int32_t pos[TIR_CDIMS] = {1, 0, 0}, size[TIR_CDIMS] = {1, 2, 3};
    Edge *e = graph_connect_box(g, si, 0, pos, size, si, 0, NULL, NULL);
    assert_non_null(e);
    assert_true(si->out[0].ifaces[1].has_pos);
    graph_remove_edge(g, e);
    Iface *f = cluster_add_iface(g, &si->out[0], 4242);
    assert_non_null(f);
    assert_false(f->has_pos);
    assert_false(f->has_size);
    graph_destroy(g);
}

/* A clone of the weights block with a derived name takes over the weight edge (retarget);
 * the original goes; the graph verifies and simulates to the same bits. */
static void test_clone_then_simulate(void **state)
{
    (void)state;
    Graph *ref = conv_graph(false, 0);
    int32_t *want = simulate(ref, 1);
    graph_destroy(ref);

    Graph *g = conv_graph(false, 0);
    Block *sw = by_name(g, "conv/w"), *cc = by_name(g, "conv");
    Block *c = graph_clone_block(g, sw, "y0");
    assert_non_null(c);
    assert_string_equal(c->name, "conv/w/y0");
    assert_int_equal(c->id, g->next_block_id - 1);
    assert_int_equal(c->n_out, sw->n_out);
    assert_int_equal(c->out[0].n_ifaces, 0);
    assert_ptr_equal(c->data, sw->data);
    Block *cc2 = graph_clone_block(g, cc, "x");
    assert_int_equal(cc2->n_attrs, cc->n_attrs);
    assert_ptr_not_equal(cc2->attrs, cc->attrs);
    graph_remove_block(g, cc2);
    Block *anon = graph_add_block(g, BT_SB, GRAPH_AUTO_ID, NULL);
    Block *ac = graph_clone_block(g, anon, "s");
    char expect[40];
    snprintf(expect, sizeof expect, "block%d/s", (int)anon->id);
    assert_string_equal(ac->name, expect);
    graph_remove_block(g, anon);
    graph_remove_block(g, ac);

    Edge *we = NULL;
    for (uint32_t i = 0; i < g->n_edges; i++)
        if (g->edges[i]->src == sw->id)
            we = g->edges[i];
    assert_non_null(we);
    Iface *f = graph_retarget_edge(g, we, true, c, 0);
    assert_non_null(f);
    assert_int_equal(f->edge_id, we->id);
    assert_int_equal(we->src, c->id);
    assert_int_equal(sw->out[0].n_ifaces, 0);
    graph_remove_block(g, sw);
    assert_true(graph_compact(g));
    assert_verifies(g);
    int32_t *got = simulate(g, 1);
    assert_memory_equal(got, want, 12 * sizeof *got);
    free(got);
    /* retargeting the destination end: CC's weights edge moves to a clone of CC */
    Block *cc3 = graph_clone_block(g, cc, "y1");
    for (uint32_t i = 0; i < g->n_edges; i++)
        if (g->edges[i]->dst == cc->id)
            assert_non_null(graph_retarget_edge(g, g->edges[i], false, cc3,
                                                g->edges[i]->src == c->id ? 1 : 0));
    assert_int_equal(cc->in[0].n_ifaces + cc->in[1].n_ifaces + cc->in[2].n_ifaces, 0);
    assert_int_equal(cc3->in[0].n_ifaces + cc3->in[1].n_ifaces, 3);
    free(want);
    graph_destroy(g);
}

/* A block's weights as a view of rows of a larger tensor compute what a copy computes. */
static void test_data_view(void **state)
{
    (void)state;
    for (uint32_t row = 0; row <= 3; row += 3) {
        Graph *a = conv_graph(false, row), *b = conv_graph(true, row);
        assert_verifies(b);
        int32_t *ya = simulate(a, 2), *yb = simulate(b, 2);
        assert_memory_equal(ya, yb, 12 * sizeof *ya);
        free(ya);
        free(yb);
        graph_destroy(a);
        graph_destroy(b);
    }
    Graph *g = graph_create();
    Block *p = graph_add_block(g, BT_SW, GRAPH_AUTO_ID, NULL);
    Block *v = graph_add_block(g, BT_SW, GRAPH_AUTO_ID, NULL);
    int64_t vals[6] = {1, 2, 3, 4, 5, 6};
    int32_t dims[2] = {3, 2};
    assert_true(blk_set_data(g, p, PR_INT_8, dims, 2, vals, 6));
    assert_false(blk_set_data_view(g, v, p->data, 2, 2)); /* past the end */
    assert_false(blk_set_data_view(g, v, p->data, 4, 0));
    assert_true(blk_set_data_view(g, v, p->data, 1, 2));
    assert_int_equal(v->data->dims[0], 2);
    assert_int_equal(v->data->dims[1], 2);
    assert_int_equal(p->data->dims[0], 3); /* the parent is not touched */
    assert_int_equal(v->data->n_i32, 4);
    assert_int_equal(v->data->i32[0], 3);
    Tensor bad = *p->data;
    bad.n_i32 = 5; /* does not hold the dims' volume */
    assert_false(blk_set_data_view(g, v, &bad, 0, 1));
    graph_destroy(g);
}

/* INPUT f=N -> SI f=N by N one-element edges in reverse order -> OUTPUT: the plan joins each
 * edge to its own interface (the output is the input reversed). */
/* graph_remove_edges drops exactly the interfaces of the edges given, at both ends, keeping the
 * others in order; graph_remove_block on a 20000-interface fan-in (once quadratic) the same. */
static void test_remove_edges_batch(void **state)
{
    (void)state;
    enum { N = 20000 };
    Graph *g = graph_create();
    Block *in = graph_add_block(g, BT_INPUT, GRAPH_AUTO_ID, "in");
    in->shape.d[D_F] = N;
    Block *si = graph_add_block(g, BT_SI, GRAPH_AUTO_ID, "rev");
    si->shape.d[D_F] = N;
    int32_t one[TIR_CDIMS] = {1, 1, 1};
    for (int32_t i = 0; i < N; i++) {
        int32_t s[TIR_CDIMS] = {0, 0, i}, t[TIR_CDIMS] = {0, 0, N - 1 - i};
        assert_non_null(graph_connect_box(g, in, 0, s, one, si, 0, t, one));
    }
    assert_false(graph_oom(g));
    /* every third edge, plus one twice and one already removed */
    Edge **es = malloc((N / 3 + 3) * sizeof *es);
    assert_non_null(es);
    size_t n = 0;
    for (uint32_t i = 0; i < (uint32_t)N; i += 3)
        es[n++] = g->edges[i];
    es[n++] = g->edges[0];
    graph_remove_edge(g, g->edges[1]);
    es[n++] = g->edges[1];
    assert_true(graph_remove_edges(g, es, n));
    free(es);
    uint32_t left = 0;
    for (uint32_t i = 0; i < (uint32_t)N; i++)
        left += !g->edges[i]->removed;
    assert_int_equal(left, N - (N + 2) / 3 - 1);
    for (int side = 0; side < 2; side++) {
        const Cluster *c = side ? &in->out[0] : &si->in[0];
        assert_int_equal(c->n_ifaces, left);
        int32_t prev = -1;
        for (uint32_t i = 0; i < c->n_ifaces; i++) {
            int32_t id = c->ifaces[i].edge_id;
            const Edge *e = graph_edge(g, id);
            assert_non_null(e);
            assert_true(id > prev); /* the order kept */
            prev = id;
        }
    }
    graph_remove_block(g, si);
    assert_int_equal(in->out[0].n_ifaces, 0);
    assert_true(graph_compact(g));
    assert_int_equal(g->n_edges, 0);
    assert_int_equal(g->n_blocks, 1);
    graph_destroy(g);
}

static void test_large_fan_in(void **state)
{
    (void)state;
    enum { N = 20000 };
    Graph *g = graph_create();
    Block *in = graph_add_block(g, BT_INPUT, GRAPH_AUTO_ID, "in");
    in->shape.d[D_F] = N;
    in->has_socket_id = true;
    Block *si = graph_add_block(g, BT_SI, GRAPH_AUTO_ID, "rev");
    si->shape.d[D_F] = N;
    Block *out = graph_add_block(g, BT_OUTPUT, GRAPH_AUTO_ID, "out");
    out->shape.d[D_F] = N;
    out->has_socket_id = true;
    int32_t one[TIR_CDIMS] = {1, 1, 1};
    for (int32_t i = 0; i < N; i++) {
        int32_t s[TIR_CDIMS] = {0, 0, i}, t[TIR_CDIMS] = {0, 0, N - 1 - i};
        assert_non_null(graph_connect_box(g, in, 0, s, one, si, 0, t, one));
    }
    assert_non_null(graph_connect(g, si, 0, out, 0));
    assert_false(graph_oom(g));
    assert_verifies(g);
    Diag d;
    diag_init(&d, "test");
    SimRun *run = NULL;
    assert_int_equal(sim_create(g, NULL, &run, &d), ST_OK);
    int32_t *x = malloc(N * sizeof *x);
    assert_non_null(x);
    for (int32_t i = 0; i < N; i++)
        x[i] = i % 251 - 125;
    assert_int_equal(sim_set_input(run, 0, x, N, &d), ST_OK);
    assert_int_equal(sim_step(run, &d), ST_OK);
    int64_t n = 0;
    const int32_t *y = sim_output(run, 0, &n);
    assert_int_equal(n, N);
    for (int32_t i = 0; i < N; i++)
        assert_int_equal(y[i], x[N - 1 - i]);
    free(x);
    sim_destroy(run);
    diag_finish(&d);
    graph_destroy(g);
}

/* The conv leaf builder gives the fixture's convolution: INPUT -> leaf (SIC, SW, CC, SB) ->
 * SI -> OUTPUT computes what conv_fixture computes, with derived names. */
static void test_conv_leaf(void **state)
{
    (void)state;
    Graph *ref = conv_graph(false, 0);
    int32_t *want = simulate(ref, 3);
    graph_destroy(ref);

    Graph *g = graph_create();
    Diag d;
    diag_init(&d, "test");
    EncCtx ec = {g, &d, "node 0 'conv1' (conv2d)", "conv1"};
    Block *in = graph_add_block(g, BT_INPUT, GRAPH_AUTO_ID, "data");
    in->shape.d[D_Y] = 4, in->shape.d[D_X] = 4, in->shape.d[D_F] = 2;
    in->has_socket_id = true;
    int32_t w[54], bias[3] = {1, -2, 3};
    for (int i = 0; i < 54; i++)
        w[i] = (i * 7) % 11 - 5;
    ConvLeafSpec spec = {.h = 4, .w = 4, .ic = 2, .oc = 3, .kh = 3, .kw = 3, .oh = 2, .ow = 2,
                         .stride = {1, 1}, .dilation = {1, 1}, .in_prec = PR_INT_8,
                         .w_prec = PR_INT_8, .b_prec = PR_INT_32, .weights = w, .bias = bias};
    ConvLeaf leaf;
    assert_int_equal(conv_leaf_begin(&ec, &spec, "g1", &leaf), ST_OK);
    assert_string_equal(leaf.in->name, "conv1/g1/in");
    assert_string_equal(leaf.w->name, "conv1/g1/w");
    assert_string_equal(leaf.cc->name, "conv1/g1");
    assert_null(leaf.b);
    assert_int_equal(leaf.in->n_in, 0); /* left for the caller to feed */
    assert_non_null(graph_connect(g, in, 0, leaf.in, 0));
    assert_int_equal(conv_leaf_end(&ec, &spec, "g1", &leaf), ST_OK);
    assert_string_equal(leaf.b->name, "conv1/g1/b");
    assert_int_equal(leaf.cc->bias_type, BIAS_VECTOR);
    assert_int_equal(leaf.cc->n_in, 3);
    Block *si = graph_add_block(g, BT_SI, GRAPH_AUTO_ID, "conv1/out");
    si->shape.d[D_Y] = 2, si->shape.d[D_X] = 2, si->shape.d[D_F] = 3;
    Block *out = graph_add_block(g, BT_OUTPUT, GRAPH_AUTO_ID, "out");
    out->shape.d[D_Y] = 2, out->shape.d[D_X] = 2, out->shape.d[D_F] = 3;
    out->has_socket_id = true;
    assert_non_null(graph_connect(g, leaf.cc, 0, si, 0));
    assert_non_null(graph_connect(g, si, 0, out, 0));
    assert_verifies(g);
    int32_t *got = simulate(g, 3);
    assert_memory_equal(got, want, 12 * sizeof *got);
    free(got);
    free(want);
    /* grouped types, no prefix, no bias */
    spec.grouped = true;
    spec.bias = NULL;
    ConvLeaf l2;
    assert_int_equal(conv_leaf_begin(&ec, &spec, "", &l2), ST_OK);
    assert_int_equal(l2.cc->type, BT_CC2D);
    assert_int_equal(l2.in->type, BT_SIC2D);
    assert_string_equal(l2.in->name, "conv1/in");
    assert_string_equal(l2.cc->name, "conv1");
    assert_int_equal(conv_leaf_end(&ec, &spec, "", &l2), ST_OK);
    assert_null(l2.b);
    assert_int_equal(l2.cc->n_in, 2);
    /* weights that do not fit an int32 container: an internal error */
    spec.w_prec = PR_FLOAT_32;
    assert_int_equal(conv_leaf_begin(&ec, &spec, "x", &l2), ST_RUNTIME);
    assert_true(diag_find(&d, "lower.internal") >= 0);
    diag_finish(&d);
    graph_destroy(g);
}

/* spare.h alone: an array is taken for a request of its exact size only, after
 * spare_release, zeroed; small ones are not kept. */
static void test_spare(void **state)
{
    (void)state;
    Spare sp = {0};
    static unsigned char a[256], b[32];
    memset(a, 7, sizeof a);
    spare_retire(&sp, a, 200);
    spare_retire(&sp, b, 32);
    assert_null(spare_take(&sp, 200)); /* not released yet */
    assert_int_equal(a[0], 7);
    spare_release(&sp);
    assert_null(spare_take(&sp, 100));
    assert_null(spare_take(&sp, 32));
    assert_ptr_equal(spare_take(&sp, 200), a);
    for (int i = 0; i < 200; i++)
        assert_int_equal(a[i], 0);
    assert_int_equal(a[200], 7); /* only what was asked for is cleared */
    assert_null(spare_take(&sp, 200));
    assert_int_equal(sp.reused, 200);
    spare_finish(&sp);
}

/* A cluster's interfaces regrown leave their first array behind: it keeps what it held
 * until the change set ends (graph_compact), then a new cluster's first array (of as many
 * interfaces) is that one, cleared, and the arena grows by nothing for it. */
static void test_spare_reuse(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    Block *b = graph_add_block(g, BT_SI, 1, "b");
    assert_non_null(b);
    assert_non_null(blk_add_output(g, b));
    assert_non_null(cluster_add_iface(g, &b->out[0], 100));
    const Iface *old = b->out[0].ifaces;
    uint32_t cap = b->out[0].cap_ifaces, n = 1;
    while (b->out[0].ifaces == old)
        assert_non_null(cluster_add_iface(g, &b->out[0], 100 + (int32_t)n++));
    assert_int_equal(n, cap + 1);
    Block *d = graph_add_block(g, BT_SI, 2, "d");
    assert_non_null(d);
    assert_non_null(blk_add_output(g, d));
    assert_non_null(cluster_add_iface(g, &d->out[0], 200));
    assert_ptr_not_equal(d->out[0].ifaces, old); /* not before the change set ends */
    for (uint32_t i = 0; i < cap; i++)
        assert_int_equal(old[i].edge_id, 100 + (int32_t)i);
    assert_true(graph_compact(g));
    Block *e = graph_add_block(g, BT_SI, 3, "e");
    assert_non_null(e);
    assert_non_null(blk_add_output(g, e));
    size_t used = arena_used(g->arena), reused = g->spare.reused;
    Iface *f = cluster_add_iface(g, &e->out[0], 300);
    assert_non_null(f);
    assert_ptr_equal(e->out[0].ifaces, old);
    assert_int_equal(arena_used(g->arena), used);
    assert_int_equal(g->spare.reused - reused, cap * sizeof(Iface));
    assert_int_equal(f->edge_id, 300);
    for (uint32_t i = 1; i < cap; i++)
        assert_int_equal(old[i].edge_id, 0);
    assert_int_equal(b->out[0].n_ifaces, n);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(b->out[0].ifaces[i].edge_id, 100 + (int32_t)i);
    graph_destroy(g);
}

/* A block removed in a change set hands its arrays on once the graph is compacted: its
 * interface arrays and its cluster arrays are what later clusters of as many interfaces and
 * blocks of as many clusters get, cleared, and the arena grows by nothing for them; the
 * removed block is left with no clusters. A loaded block's arrays of another size (3
 * interfaces) are not kept. */
static void test_removed_block_arrays_reused(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    Block *b = graph_add_block(g, BT_SI, 1, "b");
    assert_non_null(b);
    assert_non_null(blk_add_input(g, b));
    assert_non_null(blk_add_output(g, b));
    for (int32_t k = 0; k < 4; k++)
        assert_non_null(cluster_add_iface(g, &b->out[0], 100 + k));
    assert_int_equal(b->out[0].cap_ifaces, 4);
    const Iface *ifaces = b->out[0].ifaces;
    const Cluster *outs = b->out;
    graph_remove_block(g, b);
    assert_true(graph_compact(g));
    assert_null(graph_block(g, 1));
    assert_int_equal(b->n_in + b->n_out + b->cap_in + b->cap_out, 0);
    Block *c = graph_add_block(g, BT_SI, 2, "c");
    assert_non_null(c);
    size_t used = arena_used(g->arena), reused = g->spare.reused;
    assert_non_null(blk_add_output(g, c));
    assert_ptr_equal(c->out, outs);
    assert_int_equal(c->out[0].n_ifaces, 0);
    assert_true(cluster_reserve_ifaces(g, &c->out[0], 4));
    assert_ptr_equal(c->out[0].ifaces, ifaces);
    for (uint32_t i = 0; i < 4; i++)
        assert_int_equal(c->out[0].ifaces[i].edge_id, 0);
    assert_int_equal(arena_used(g->arena), used);
    assert_int_equal(g->spare.reused - reused, sizeof(Cluster) + 4 * sizeof(Iface));
    /* three interfaces (as a file gives them, not a size the graph asks for): not kept */
    Block *d = graph_add_block(g, BT_SI, 3, "d");
    assert_non_null(d);
    assert_non_null(blk_add_output(g, d));
    d->out[0].ifaces = arena_alloc(g->arena, 3, sizeof(Iface));
    assert_non_null(d->out[0].ifaces);
    d->out[0].cap_ifaces = 3;
    graph_remove_block(g, d);
    assert_true(graph_compact(g));
    reused = g->spare.reused;
    Block *e = graph_add_block(g, BT_SI, 4, "e");
    assert_non_null(e);
    assert_non_null(blk_add_output(g, e)); /* d's one cluster: kept */
    assert_true(cluster_reserve_ifaces(g, &e->out[0], 3)); /* 4 asked: none kept */
    assert_int_equal(g->spare.reused - reused, sizeof(Cluster));
    graph_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uses_index),
        cmocka_unit_test(test_uses_find_runs),
        cmocka_unit_test(test_connect_box),
        cmocka_unit_test(test_delete_then_verify),
        cmocka_unit_test(test_iface_slot_reused),
        cmocka_unit_test(test_clone_then_simulate),
        cmocka_unit_test(test_data_view),
        cmocka_unit_test(test_remove_edges_batch),
        cmocka_unit_test(test_large_fan_in),
        cmocka_unit_test(test_conv_leaf),
        cmocka_unit_test(test_spare),
        cmocka_unit_test(test_spare_reuse),
        cmocka_unit_test(test_removed_block_arrays_reused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
