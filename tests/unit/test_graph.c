/* test_graph.c: the working IR: building, lookup by id (ids one after another, repeated,
 * scattered, negative, before and after compaction), the use index's order on interfaces
 * given in any order, per-type facts from the table, and the .pb round trip (wire -> IR ->
 * wire byte-identical, -1 dims read as absent, an interface's dims beyond the box kept). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "conv_fixture.h"
#include "taskgraph.pb-c.h"
#include "taskir/graph.h"
#include "taskir/pbio.h"
#include "taskir/uses.h"

/* INPUT -> SIC -> CC(+SW, SB) -> SI -> OUTPUT: a 3x3 convolution 6x6x2 -> 4x4x3. */
static Graph *conv_graph(void)
{
    Graph *g = conv_fixture(6);
    assert_non_null(g);
    int64_t w[54];
    for (int i = 0; i < 54; i++)
        w[i] = (i * 7) % 11 - 5;
    int32_t wd[4] = {3, 2, 3, 3};
    assert_true(blk_set_data(g, g->blocks[2], PR_INT_8, wd, 4, w, 54));
    assert_false(graph_oom(g));
    return g;
}

static void test_build_and_lookup(void **state)
{
    (void)state;
    Graph *g = conv_graph();
    assert_int_equal(g->n_blocks, 7);
    assert_int_equal(g->n_edges, 6);
    for (uint32_t i = 0; i < g->n_blocks; i++)
        assert_ptr_equal(graph_block(g, g->blocks[i]->id), g->blocks[i]);
    for (uint32_t i = 0; i < g->n_edges; i++)
        assert_ptr_equal(graph_edge(g, g->edges[i]->id), g->edges[i]);
    assert_null(graph_block(g, 1000));
    Block *b = graph_add_block(g, BT_SI, 1000, NULL);
    assert_ptr_equal(graph_block(g, 1000), b);
    assert_int_equal(graph_add_block(g, BT_SI, GRAPH_AUTO_ID, NULL)->id, 1001);
    /* many blocks: the index grows and stays exact */
    for (int i = 0; i < 5000; i++)
        assert_non_null(graph_add_block(g, BT_SB, 20000 + i * 3, NULL));
    for (int i = 0; i < 5000; i++)
        assert_int_equal(graph_block(g, 20000 + i * 3)->id, 20000 + i * 3);
    assert_null(graph_block(g, 20001));
    graph_destroy(g);
}

static void test_table_facts(void **state)
{
    (void)state;
    Graph *g = conv_graph();
    Block *cc = graph_block(g, 4);
    assert_int_equal(cc->type, BT_CC);
    assert_true(blk_has_bias_cluster(cc));
    assert_string_equal(blk_in_spec(cc, 0)->role, "input");
    assert_string_equal(blk_in_spec(cc, 1)->role, "weight");
    assert_string_equal(blk_in_spec(cc, 2)->role, "bias");
    assert_null(blk_in_spec(cc, 3));
    int32_t c[TIR_CDIMS];
    assert_true(blk_cluster_dims(cc, true, 0, c));
    int32_t want_in[TIR_CDIMS] = {6, 6, 0, 2, 0, 0};
    assert_memory_equal(c, want_in, sizeof c);
    assert_true(blk_cluster_dims(cc, true, 1, c));
    int32_t want_w[TIR_CDIMS] = {0, 0, 3, 2, 3, 3};
    assert_memory_equal(c, want_w, sizeof c);
    assert_true(blk_cluster_dims(cc, false, 0, c));
    int32_t want_out[TIR_CDIMS] = {4, 4, 3, 0, 0, 0};
    assert_memory_equal(c, want_out, sizeof c);
    assert_int_equal(blk_macs(cc), 4 * 4 * 3 * 2 * 3 * 3);
    int64_t o;
    assert_true(tir_window_out(6, 0, 0, 3, 1, 1, &o));
    assert_int_equal(o, 4);
    assert_true(tir_window_out(7, 1, 1, 3, 2, 2, &o)); /* span 5 over 9 -> 3 */
    assert_int_equal(o, 3);
    assert_false(tir_window_out(2, 0, 0, 3, 1, 1, &o));
    assert_int_equal(blk_attr(cc, AT_STRIDE_X), 1);
    assert_true(blk_set_attr(g, cc, AT_STRIDE_X, 0)); /* existing tools' "unset" */
    assert_int_equal(blk_attr(cc, AT_STRIDE_X), 1);
    char buf[64];
    blk_describe(cc, buf, sizeof buf);
    assert_string_equal(buf, "block 4 (CC 'conv')");

    /* CADD: n_branch inputs then the bias */
    Block *add = graph_add_block(g, BT_CADD, GRAPH_AUTO_ID, NULL);
    for (int i = 0; i < 4; i++)
        blk_add_input(g, add);
    add->bias_type = BIAS_VECTOR;
    assert_int_equal(blk_n_variadic(add), 3);
    assert_string_equal(blk_in_spec(add, 2)->role, "input");
    assert_string_equal(blk_in_spec(add, 3)->role, "bias");
    add->bias_type = BIAS_ABSENT;
    assert_int_equal(blk_n_variadic(add), 4);
    add->shape.n_branch = 3;
    assert_true(blk_has_bias_cluster(add));

    /* CLUT's table has 2^LUT_DW entries; CCMPB's optional dims default */
    Block *lut = graph_add_block(g, BT_CLUT, GRAPH_AUTO_ID, NULL);
    lut->shape.d[D_Y] = lut->shape.d[D_X] = 1, lut->shape.d[D_F] = 5;
    assert_true(blk_set_attr(g, lut, AT_LUT_DW, 4));
    assert_true(blk_cluster_dims(lut, true, 1, c));
    assert_int_equal(c[D_F], 16);
    Block *cmp = graph_add_block(g, BT_CCMPB, GRAPH_AUTO_ID, NULL);
    cmp->shape.d[D_F] = 10;
    int32_t e[TIR_NDIMS];
    blk_eff_shape(cmp, e);
    int32_t want_e[TIR_NDIMS] = {1, 1, 10, 0, 1, 1, 1, 1};
    assert_memory_equal(e, want_e, sizeof e);
    graph_destroy(g);
}

static void test_round_trip(void **state)
{
    (void)state;
    Graph *g = conv_graph();
    Diag d;
    diag_init(&d, "t.pb");
    uint8_t *b1, *b2, *b3;
    size_t n1, n2, n3;
    assert_int_equal(graph_pack(g, &b1, &n1, &d), ST_OK);
    assert_int_equal(graph_pack(g, &b3, &n3, &d), ST_OK);
    assert_int_equal(n1, n3); /* deterministic */
    assert_memory_equal(b1, b3, n1);
    Graph *h;
    assert_int_equal(graph_load_pb_mem(b1, n1, &h, &d), ST_OK);
    assert_int_equal(graph_pack(h, &b2, &n2, &d), ST_OK);
    assert_int_equal(n1, n2);
    assert_memory_equal(b1, b2, n1);
    assert_string_equal(graph_block(h, 4)->name, "conv");
    assert_int_equal(graph_block(h, 2)->data->n_i32, 54);
    assert_int_equal(d.n, 0);
    free(b1);
    free(b2);
    free(b3);
    graph_destroy(h);
    graph_destroy(g);
    diag_finish(&d);
}

static void test_minus_one_reads_absent(void **state)
{
    (void)state;
    Taskir__Shape sh = TASKIR__SHAPE__INIT;
    sh.has_nx = sh.has_ny = sh.has_nf = sh.has_nr = 1;
    sh.nx = 5, sh.ny = 4, sh.nf = 3, sh.nr = -1;
    Taskir__TaskBlock blk = TASKIR__TASK_BLOCK__INIT;
    blk.has_id = blk.has_type = 1;
    blk.id = 9;
    blk.type = TASKIR__TASK_BLOCK_TYPE__SI;
    blk.shape = &sh;
    Taskir__TaskBlock *blocks[1] = {&blk};
    Taskir__TaskGraph tg = TASKIR__TASK_GRAPH__INIT;
    tg.n_blocks = 1;
    tg.blocks = blocks;
    uint8_t buf[256];
    size_t n = taskir__task_graph__pack(&tg, buf);
    Diag d;
    diag_init(&d, NULL);
    Graph *g;
    assert_int_equal(graph_load_pb_mem(buf, n, &g, &d), ST_OK);
    Block *b = graph_block(g, 9);
    assert_int_equal(b->shape.d[D_Y], 4);
    assert_int_equal(b->shape.d[D_X], 5);
    assert_int_equal(b->shape.d[D_F], 3);
    assert_int_equal(b->shape.d[D_R], 0);
    graph_destroy(g);

    /* an unknown enum value is a logic error naming the block */
    blk.type = 20;
    n = taskir__task_graph__pack(&tg, buf);
    assert_int_equal(graph_load_pb_mem(buf, n, &g, &d), ST_LOGIC);
    assert_null(g);
    assert_true(diag_find(&d, "load.enum") >= 0);
    assert_string_equal(d.entries[0].where, "block 9");
    diag_finish(&d);
}

/* A name that is not UTF-8 (an ONNX or CINN node name: protobuf-c does not check) is stored
 * with U+FFFD for each bad byte, so the .pb taskir writes loads in every protobuf reader. */
static void test_name_utf8(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    Block *b = graph_add_block(g, BT_SI, 1, "conv\xff\xc3(1)\xc3\xa9");
    assert_non_null(b);
    assert_string_equal(b->name, "conv\xef\xbf\xbd\xef\xbf\xbd(1)\xc3\xa9");
    b->shape.d[D_F] = 2;
    Diag d;
    diag_init(&d, NULL);
    uint8_t *buf;
    size_t len;
    assert_int_equal(graph_pack(g, &buf, &len, &d), ST_OK);
    Graph *h = NULL;
    assert_int_equal(graph_load_pb_mem(buf, len, &h, &d), ST_OK);
    assert_string_equal(graph_block(h, 1)->name, b->name);
    free(buf);
    graph_destroy(h);
    graph_destroy(g);
    diag_finish(&d);
}

/* Lookups by id agree with a scan of blocks[] for the first block of each id, whatever the
 * ids: one after another (the fast path), then a repeat, then scattered and negative ones. */
static void check_lookups(const Graph *g)
{
    for (int32_t id = -20; id < 300; id++) {
        long want = -1;
        for (uint32_t i = 0; i < g->n_blocks && want < 0; i++)
            if (g->blocks[i]->id == id && !g->blocks[i]->removed)
                want = i;
        if (want < 0) /* a removed first block: graph_block_pos says -1 until compacted */
            for (uint32_t i = 0; i < g->n_blocks && want < 0; i++)
                if (g->blocks[i]->id == id)
                    want = -2;
        if (want == -2)
            continue;
        assert_int_equal(graph_block_pos(g, id), want);
    }
}

static void test_lookup_ids(void **state)
{
    (void)state;
    Graph *g = graph_create();
    for (int i = 0; i < 100; i++)
        assert_non_null(graph_add_block(g, BT_SI, 5 + i, NULL));
    assert_true(g->block_index.seq);
    check_lookups(g);
    assert_non_null(graph_add_block(g, BT_SI, 50, NULL)); /* a repeat: the first wins */
    assert_false(g->block_index.seq);
    check_lookups(g);
    assert_int_equal(graph_block_pos(g, 50), 45);
    for (int i = 0; i < 100; i++)
        assert_non_null(graph_add_block(g, BT_SI, (i * 37) % 211 - 17, NULL));
    check_lookups(g);
    /* compacted to ids one after another again: the fast path comes back */
    for (uint32_t i = 100; i < g->n_blocks; i++)
        graph_remove_block(g, g->blocks[i]);
    assert_true(graph_compact(g));
    assert_int_equal(g->n_blocks, 100);
    assert_true(g->block_index.seq);
    check_lookups(g);
    graph_destroy(g);
}

/* Ids with gaps (a graph compacted after a pass): a table by id, every lookup right; an id
 * far out of the table's range makes the map a hash, lookups still right. */
static void test_lookup_gaps(void **state)
{
    (void)state;
    Graph *g = graph_create();
    for (int i = 0; i < 3000; i++)
        assert_non_null(graph_add_block(g, BT_SI, 7 + i, NULL));
    for (uint32_t i = 0; i < g->n_blocks; i++)
        if (i % 3)
            graph_remove_block(g, g->blocks[i]);
    assert_true(graph_compact(g));
    assert_int_equal(g->n_blocks, 1000);
    assert_true(g->block_index.dense);
    assert_false(g->block_index.seq);
    check_lookups(g);
    assert_null(graph_block(g, 8));
    assert_null(graph_block(g, 6));
    assert_null(graph_block(g, 7 + 3000 * 5));
    assert_non_null(graph_add_block(g, BT_SI, 3010, NULL)); /* past the end: grows */
    assert_true(g->block_index.dense);
    check_lookups(g);
    assert_non_null(graph_add_block(g, BT_SI, 100000000, NULL));
    assert_non_null(graph_add_block(g, BT_SI, -5, NULL));
    assert_false(g->block_index.dense);
    check_lookups(g);
    assert_int_equal(graph_block_pos(g, 3010), 1000);
    assert_int_equal(graph_block_pos(g, -5), 1002);
    graph_destroy(g);
}

/* The use index lists a block's interfaces by edge id, ties in cluster then interface order,
 * for interfaces given in any order (a radix sort past a few), and finds the first of each. */
static void test_uses_order(void **state)
{
    (void)state;
    uint32_t seed = 12345;
    for (int n = 1; n <= 3000; n = n * 3 + 1) {
        Graph *g = graph_create();
        Block *b = graph_add_block(g, BT_CADD, GRAPH_AUTO_ID, NULL);
        for (int c = 0; c < 3; c++) {
            Cluster *cl = blk_add_input(g, b);
            assert_non_null(cl);
            for (int i = 0; i < n; i++) {
                seed = seed * 1103515245u + 12345u;
                /* ids of every sign and size, many repeated */
                int32_t id = (int32_t)(seed >> 8) % (n / 2 + 1) * 40503 - 7 * n;
                assert_non_null(cluster_add_iface(g, &b->in[c], id));
            }
        }
        GraphUses u;
        assert_true(graph_uses(g, &u));
        const BlockUses *bu = &u.blocks[0];
        assert_int_equal(bu->n_in, 3 * n);
        for (uint32_t k = 1; k < bu->n_in; k++) {
            const IfaceUse *a = &bu->in[k - 1], *z = &bu->in[k];
            assert_true(a->edge_id < z->edge_id ||
                        (a->edge_id == z->edge_id &&
                         (a->cluster < z->cluster ||
                          (a->cluster == z->cluster && a->iface < z->iface))));
        }
        for (uint32_t k = 0; k < bu->n_in; k++) {
            const IfaceUse *f = uses_find(&u, 0, true, bu->in[k].edge_id);
            assert_non_null(f);
            assert_true(f <= &bu->in[k] && f->edge_id == bu->in[k].edge_id);
            assert_true(f == bu->in || f[-1].edge_id != f->edge_id);
            assert_int_equal(b->in[f->cluster].ifaces[f->iface].edge_id, f->edge_id);
        }
        graph_uses_finish(&u);
        graph_destroy(g);
    }
}

/* An interface is 64 bytes (two six-dim boxes, not two whole Shapes: the split pass's graphs
 * hold hundreds of thousands); what a file's interface position or size says beyond the six
 * cluster dims (iy, ix, n_branch, extra_dimensions) is kept apart (Iface.wire), only for the
 * interfaces that have it, and written back byte for byte. */
static void test_iface_wire(void **state)
{
    (void)state;
    assert_true(sizeof(Iface) <= 64);
    Taskir__Shape pos = TASKIR__SHAPE__INIT, size = TASKIR__SHAPE__INIT;
    pos.has_nf = pos.has_niy = 1;
    pos.nf = 2, pos.niy = 3;
    int32_t extra[2] = {7, 8};
    size.has_ny = size.has_nx = size.has_nf = size.has_n_branch = 1;
    size.ny = size.nx = 4, size.nf = 2, size.n_branch = 5;
    size.n_extra_dimensions = 2;
    size.extra_dimensions = extra;
    Taskir__EdgeInterface wi = TASKIR__EDGE_INTERFACE__INIT, plain = TASKIR__EDGE_INTERFACE__INIT;
    wi.has_edge_id = plain.has_edge_id = 1;
    wi.edge_id = 1, plain.edge_id = 2;
    wi.position = &pos;
    wi.size = &size;
    Taskir__Shape box = TASKIR__SHAPE__INIT;
    box.has_nf = 1;
    box.nf = 2;
    plain.position = &box;
    Taskir__EdgeInterface *ifs[2] = {&wi, &plain};
    Taskir__EdgeCluster cl = TASKIR__EDGE_CLUSTER__INIT;
    cl.n_interfaces = 2;
    cl.interfaces = ifs;
    Taskir__EdgeCluster *cls[1] = {&cl};
    Taskir__TaskBlock blk = TASKIR__TASK_BLOCK__INIT;
    blk.has_id = blk.has_type = 1;
    blk.id = 3;
    blk.type = TASKIR__TASK_BLOCK_TYPE__SI;
    blk.n_output_clusters = 1;
    blk.output_clusters = cls;
    Taskir__TaskBlock *blocks[1] = {&blk};
    Taskir__TaskGraph tg = TASKIR__TASK_GRAPH__INIT;
    tg.n_blocks = 1;
    tg.blocks = blocks;
    uint8_t buf[512];
    size_t n = taskir__task_graph__pack(&tg, buf);
    Diag d;
    diag_init(&d, NULL);
    Graph *g;
    assert_int_equal(graph_load_pb_mem(buf, n, &g, &d), ST_OK);
    const Cluster *c = &graph_block(g, 3)->out[0];
    const Iface *f = &c->ifaces[0], *q = &c->ifaces[1];
    assert_int_equal(f->pos.d[D_F], 2);
    assert_int_equal(f->size.d[D_Y], 4);
    assert_non_null(f->wire);
    assert_null(q->wire); /* nothing beyond the six dims: nothing kept */
    Shape sp, ss;
    iface_wire_shape(f, false, &sp);
    iface_wire_shape(f, true, &ss);
    assert_int_equal(sp.d[D_IY], 3);
    assert_int_equal(sp.d[D_F], 2);
    assert_int_equal(ss.n_branch, 5);
    assert_int_equal(ss.n_extra, 2);
    assert_int_equal(ss.extra[1], 8);
    /* the same six-dim position, not the same box: iy differs */
    Iface a = *q;
    assert_true(iface_same_box(&a, q));
    a.has_size = f->has_size, a.size = f->size;
    assert_false(iface_same_box(f, &a));
    uint8_t *out;
    size_t m;
    assert_int_equal(graph_pack(g, &out, &m, &d), ST_OK);
    assert_int_equal(m, n);
    assert_memory_equal(out, buf, n);
    free(out);
    graph_destroy(g);
    diag_finish(&d);
}

/* cluster_reserve_ifaces takes the room for interfaces known to come at once (the split pass
 * routing a cut block's pieces to a reader: one interface a piece), a power of two, so that
 * adding them moves nothing and takes no more memory; one more then doubles as before. */
static void test_reserve_ifaces(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    Block *b = graph_add_block(g, BT_SI, 1, "s");
    assert_non_null(b);
    Cluster *c = blk_add_input(g, b);
    assert_non_null(c);
    assert_non_null(cluster_add_iface(g, c, 0));
    assert_true(cluster_reserve_ifaces(g, c, 100));
    assert_int_equal(c->cap_ifaces, 128);
    assert_int_equal(c->ifaces[0].edge_id, 0);
    const Iface *at = c->ifaces;
    size_t used = arena_used(g->arena);
    for (int32_t k = 1; k <= 100; k++)
        assert_non_null(cluster_add_iface(g, c, k));
    assert_ptr_equal(c->ifaces, at);
    assert_int_equal(arena_used(g->arena), used);
    assert_true(cluster_reserve_ifaces(g, c, 27)); /* 128 hold them: nothing to do */
    assert_ptr_equal(c->ifaces, at);
    for (int32_t k = 101; k <= 128; k++)
        assert_non_null(cluster_add_iface(g, c, k));
    assert_int_equal(c->cap_ifaces, 256);
    for (uint32_t k = 0; k < c->n_ifaces; k++)
        assert_int_equal(c->ifaces[k].edge_id, (int32_t)k);
    assert_false(graph_oom(g));
    graph_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_and_lookup),
        cmocka_unit_test(test_name_utf8),
        cmocka_unit_test(test_table_facts),
        cmocka_unit_test(test_lookup_ids),
        cmocka_unit_test(test_lookup_gaps),
        cmocka_unit_test(test_uses_order),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_minus_one_reads_absent),
        cmocka_unit_test(test_iface_wire),
        cmocka_unit_test(test_reserve_ifaces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
