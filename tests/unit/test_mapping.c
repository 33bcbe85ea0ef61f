/* test_mapping.c: the Mapping (.map.pb) reader, writer, verifier and printers (mapping.h).
 *
 * The example (examples/lenet.map.txtpb joined with lenet.txtpb and encoded by protoc at build
 * time into $TASKIR_BUILDDIR/examples/lenet.map.pb) is canonical, so load -> mapping_pack gives
 * the protoc bytes back; its graph is exactly lenet.pb; it verifies with no finding.
 * Round trips of built mappings (absent, negative and unknown values included) are equal field
 * by field. Each map.* rule has a negative case asserting its rule id and the block (or edge)
 * id the finding is about, and no other finding. Malformed bytes (every truncation, byte
 * flips, wire faults in the embedded graph, caps) end in ST_OK or ST_LOGIC with a rule, and
 * byte offsets count from the start of the Mapping file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <unistd.h>

#include "mapping.pb-c.h"
#include "taskir/fileio.h"
#include "taskir/mapping.h"
#include "taskir/pbio.h"
#include "taskir/verify.h"

#include "map_fixture.h"

/* ---- helpers ---- */

static uint8_t *read_build_file(const char *rel, size_t *len)
{
    const char *dir = getenv("TASKIR_BUILDDIR");
    assert_non_null(dir); /* set by tests/meson.build */
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    Diag d;
    diag_init(&d, path);
    uint8_t *buf;
    if (tir_read_file(path, TIR_MAX_FILE_BYTES, &buf, len, &d) != ST_OK) {
        diag_print(&d, stderr, "test_mapping");
        fail_msg("cannot read %s (build the examples first)", path);
    }
    diag_finish(&d);
    return buf;
}

static Mapping *load_lenet(void)
{
    return map_fixture_lenet("test_mapping");
}

static MapDict *node_dict(Mapping *m, int32_t block)
{
    return map_fixture_dict(m, false, block);
}

/* Loads bytes, expecting ST_OK or ST_LOGIC with a rule id on every entry; never a runtime
 * error. Returns the status; *out gets the mapping when asked for. */
static Status load_clean(const uint8_t *buf, size_t len, Mapping **out, Diag *dout)
{
    Diag d;
    diag_init(&d, "fuzz.map.pb");
    Mapping *m = NULL;
    Status st = mapping_load_pb_mem(buf, len, &m, &d);
    if (st != ST_OK && st != ST_LOGIC) {
        diag_print(&d, stderr, "test_mapping");
        fail_msg("status %d loading %zu bytes", (int)st, len);
    }
    if (st == ST_OK)
        assert_non_null(m);
    else {
        assert_null(m);
        assert_true(d.n > 0);
        for (size_t i = 0; i < d.n; i++)
            assert_true(d.entries[i].rule[0] != 0);
    }
    if (dout)
        *dout = d;
    else
        diag_finish(&d);
    if (out)
        *out = m;
    else
        mapping_destroy(m);
    return st;
}

/* The first entry with this rule, or fail. */
static const DiagEntry *find_rule(const Diag *d, const char *rule)
{
    long i = diag_find(d, rule);
    if (i < 0) {
        diag_print(d, stderr, "test_mapping");
        fail_msg("no finding [%s]", rule);
    }
    return &d->entries[i];
}

/* Verifies m and expects exactly the findings rules[0..n) (in any order, each at least once,
 * nothing else); returns the Diag for further checks (diag_finish it). */
static Diag verify_expect(const Mapping *m, const char *const *rules, size_t n)
{
    Diag d;
    diag_init(&d, "t.map.pb");
    Status st = verify_mapping(m, &d);
    assert_int_equal(st, n ? ST_LOGIC : ST_OK);
    for (size_t i = 0; i < d.n; i++) {
        bool known = false;
        for (size_t k = 0; k < n; k++)
            known |= strcmp(d.entries[i].rule, rules[k]) == 0;
        if (!known) {
            diag_print(&d, stderr, "test_mapping");
            fail_msg("unexpected finding [%s]", d.entries[i].rule);
        }
    }
    for (size_t k = 0; k < n; k++)
        find_rule(&d, rules[k]);
    return d;
}

static void expect_block(const DiagEntry *e, int32_t block)
{
    assert_true(e->has_block);
    assert_int_equal(e->block_id, block);
}

static void expect_edge(const DiagEntry *e, int32_t edge)
{
    assert_true(e->has_edge);
    assert_int_equal(e->edge_id, edge);
}

static void pack(const Mapping *m, uint8_t **buf, size_t *len)
{
    Diag d;
    diag_init(&d, "t.map.pb");
    assert_int_equal(mapping_pack(m, buf, len, &d), ST_OK);
    diag_finish(&d);
}

static void coords_equal(const MapDict *a, const MapDict *b)
{
    assert_int_equal(a->task_id, b->task_id);
    assert_int_equal(a->n_coords, b->n_coords);
    for (uint32_t k = 0; k < a->n_coords; k++) {
        const MapCoord *x = &a->coords[k], *y = &b->coords[k];
        assert_int_equal(x->chip_array.x, y->chip_array.x);
        assert_int_equal(x->chip_array.y, y->chip_array.y);
        assert_int_equal(x->chip.x, y->chip.x);
        assert_int_equal(x->chip.y, y->chip.y);
        assert_int_equal(x->core.x, y->core.x);
        assert_int_equal(x->core.y, y->core.y);
        assert_int_equal(x->step_group, y->step_group);
        assert_int_equal(x->phase_group, y->phase_group);
        assert_int_equal(x->step, y->step);
        assert_int_equal(x->phase, y->phase);
        assert_int_equal(x->has_end_phase, y->has_end_phase);
        assert_int_equal(x->end_phase, y->end_phase);
        assert_int_equal(x->has_pi_index, y->has_pi_index);
        assert_int_equal(x->pi_index, y->pi_index);
    }
}

/* Field by field, the graphs by their packed bytes. */
static void mappings_equal(const Mapping *a, const Mapping *b)
{
    assert_int_equal(a->n_nodes, b->n_nodes);
    assert_int_equal(a->n_edges, b->n_edges);
    for (uint32_t i = 0; i < a->n_nodes; i++)
        coords_equal(&a->nodes[i], &b->nodes[i]);
    for (uint32_t i = 0; i < a->n_edges; i++)
        coords_equal(&a->edges[i], &b->edges[i]);
    assert_int_equal(a->has_prediction_clock, b->has_prediction_clock);
    assert_int_equal(a->prediction_clock, b->prediction_clock);
    uint8_t *ga, *gb;
    size_t la, lb;
    Diag d;
    diag_init(&d, NULL);
    assert_int_equal(graph_pack(a->graph, &ga, &la, &d), ST_OK);
    assert_int_equal(graph_pack(b->graph, &gb, &lb, &d), ST_OK);
    diag_finish(&d);
    assert_int_equal(la, lb);
    assert_memory_equal(ga, gb, la);
    free(ga);
    free(gb);
}

/* pack -> load -> pack: the structure survives and the bytes are a fixed point. */
static void round_trip(const Mapping *m)
{
    uint8_t *b1, *b2;
    size_t n1, n2;
    pack(m, &b1, &n1);
    Mapping *m2 = NULL;
    assert_int_equal(load_clean(b1, n1, &m2, NULL), ST_OK);
    mappings_equal(m, m2);
    pack(m2, &b2, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(b1, b2, n1);
    mapping_destroy(m2);
    free(b1);
    free(b2);
}

/* ---- the example ---- */

static void test_lenet_canonical(void **state)
{
    (void)state;
    size_t len, glen;
    uint8_t *file = read_build_file("examples/lenet.map.pb", &len);
    uint8_t *graph = read_build_file("examples/lenet.pb", &glen);
    Mapping *m = load_lenet();
    assert_int_equal(m->graph->n_blocks, 25);
    assert_int_equal(m->graph->n_edges, 24);
    assert_int_equal(m->n_nodes, 23);
    assert_int_equal(m->n_edges, 5);
    assert_true(m->has_prediction_clock);
    assert_int_equal(m->prediction_clock, 16384);
    const MapDict *conv2 = node_dict(m, 11);
    assert_int_equal(conv2->n_coords, 1);
    assert_int_equal(conv2->coords[0].core.x, 1);
    assert_int_equal(conv2->coords[0].phase, 1);
    assert_true(conv2->coords[0].has_pi_index);
    assert_string_equal(mapping_pi_name(conv2->coords[0].pi_index), "AXON");
    assert_int_equal(m->edges[1].task_id, 7);
    assert_int_equal(m->edges[1].n_coords, 2);
    assert_int_equal(m->edges[1].coords[1].pi_index, 3); /* ROUTER_RECIEVE */
    /* canonical: the saver gives protoc's bytes back */
    uint8_t *buf;
    size_t n;
    pack(m, &buf, &n);
    assert_int_equal(n, len);
    assert_memory_equal(buf, file, len);
    free(buf);
    /* the embedded graph is the lenet example itself */
    Diag d;
    diag_init(&d, NULL);
    assert_int_equal(graph_pack(m->graph, &buf, &n, &d), ST_OK);
    diag_finish(&d);
    assert_int_equal(n, glen);
    assert_memory_equal(buf, graph, glen);
    free(buf);
    round_trip(m);
    mapping_destroy(m);
    free(file);
    free(graph);
}

static void test_lenet_verifies(void **state)
{
    (void)state;
    Mapping *m = load_lenet();
    Diag d = verify_expect(m, NULL, 0);
    assert_int_equal(d.n, 0);
    diag_finish(&d);
    mapping_destroy(m);
}

static void test_save_and_load_file(void **state)
{
    (void)state;
    Mapping *m = load_lenet();
    char path[] = "/tmp/test_mapping_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    Diag d;
    diag_init(&d, path);
    assert_int_equal(mapping_save_pb(m, path, &d), ST_OK);
    Mapping *m2 = NULL;
    assert_int_equal(mapping_load_pb(path, &m2, &d), ST_OK);
    diag_finish(&d);
    mappings_equal(m, m2);
    unlink(path);
    mapping_destroy(m);
    mapping_destroy(m2);
}

/* ---- round trips of built mappings ---- */

static void test_round_trip_built(void **state)
{
    (void)state;
    Mapping *m = mapping_create();
    assert_non_null(m);
    /* an odd mapping: dangling ids, negative and unknown values, absent optional fields */
    Block *b = graph_add_block(m->graph, BT_CC, 7, "c");
    assert_non_null(b);
    MapDict *a = mapping_add_dict(m, false, 7, 3);
    assert_non_null(a);
    a->coords[0] = (MapCoord){{1, 2}, {3, 4}, {5, 6}, 7, 8, 9, 10, 11, true, 2, true};
    a->coords[1] = (MapCoord){{-1, INT32_MIN}, {INT32_MAX, 0}, {0, 0}, -5, 0, 0, 3, 0, false,
                              77, true};
    /* coords[2] stays all zero with nothing optional */
    assert_non_null(mapping_add_dict(m, false, -12, 0));
    for (int i = 0; i < 20; i++) /* past the first growth of the dict array */
        assert_non_null(mapping_add_dict(m, true, i, (uint32_t)i % 3));
    m->has_prediction_clock = true;
    m->prediction_clock = -3;
    round_trip(m);
    m->has_prediction_clock = false;
    m->prediction_clock = 0;
    round_trip(m);
    mapping_destroy(m);
    /* the empty mapping: an empty graph and nothing else */
    m = mapping_create();
    uint8_t *buf;
    size_t n;
    pack(m, &buf, &n);
    const uint8_t empty[] = {0x0a, 0x00, 0x12, 0x00};
    assert_int_equal(n, sizeof empty);
    assert_memory_equal(buf, empty, n);
    free(buf);
    round_trip(m);
    mapping_destroy(m);
}

/* Files that leave fields out read them as 0 (pi_index and end_phase as absent); saving
 * writes every field, and that is a fixed point. */
static void test_absent_fields(void **state)
{
    (void)state;
    /* space_time_mapping { node_map_dicts { space_time_coordinates {} }
     *                      node_map_dicts { space_time_coordinates { time { phase: 2 } } } } */
    const uint8_t in[] = {0x12, 0x0c, 0x0a, 0x02, 0x0a, 0x00, 0x0a, 0x06,
                          0x0a, 0x04, 0x12, 0x02, 0x10, 0x02};
    Mapping *m = NULL;
    assert_int_equal(load_clean(in, sizeof in, &m, NULL), ST_OK);
    assert_int_equal(m->graph->n_blocks, 0);
    assert_int_equal(m->n_nodes, 2);
    assert_int_equal(m->nodes[0].task_id, 0);
    assert_int_equal(m->nodes[0].n_coords, 1);
    assert_false(m->nodes[0].coords[0].has_pi_index);
    assert_false(m->nodes[0].coords[0].has_end_phase);
    assert_int_equal(m->nodes[1].coords[0].phase, 2);
    assert_false(m->has_prediction_clock);
    round_trip(m);
    mapping_destroy(m);
}

static void test_pi_table(void **state)
{
    (void)state;
    /* the table against the enum protobuf-c generated from proto/mapping.proto */
    const ProtobufCEnumDescriptor *ed = &taskir__piindex__descriptor;
    assert_int_equal(ed->n_values, 6);
    for (unsigned i = 0; i < ed->n_values; i++) {
        const ProtobufCEnumValue *v = &ed->values[i];
        assert_non_null(mapping_pi_name(v->value));
        assert_string_equal(mapping_pi_name(v->value), v->name);
        int32_t w;
        assert_true(mapping_pi_from_name(v->name, &w));
        assert_int_equal(w, v->value);
    }
    assert_null(mapping_pi_name(0));
    assert_null(mapping_pi_name(7));
    int32_t w;
    assert_false(mapping_pi_from_name("ROUTER_RECEIVE", &w));
}

static void test_looks_like(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = read_build_file("examples/lenet.map.pb", &len);
    assert_true(mapping_looks_like(buf, len));
    free(buf);
    buf = read_build_file("examples/lenet.pb", &len);
    assert_false(mapping_looks_like(buf, len));
    free(buf);
    buf = read_build_file("examples/tianjic_style.pb", &len);
    assert_false(mapping_looks_like(buf, len));
    free(buf);
    assert_false(mapping_looks_like(NULL, 0));
    const uint8_t clock[] = {0x18, 0x05};                   /* prediction_clock only */
    assert_true(mapping_looks_like(clock, sizeof clock));
    const uint8_t stm[] = {0x12, 0x02, 0x0a, 0x00};         /* one empty node dict */
    assert_true(mapping_looks_like(stm, sizeof stm));
    const uint8_t block[] = {0x0a, 0x02, 0x08, 0x01};       /* a TaskGraph's block { id: 1 } */
    assert_false(mapping_looks_like(block, sizeof block));
    const uint8_t edge[] = {0x12, 0x02, 0x08, 0x01};        /* a TaskGraph's edge { id: 1 } */
    assert_false(mapping_looks_like(edge, sizeof edge));
    const uint8_t empty_graph[] = {0x0a, 0x00};
    assert_false(mapping_looks_like(empty_graph, sizeof empty_graph));
    const uint8_t cut[] = {0x0a, 0x05};                     /* length past the end */
    assert_false(mapping_looks_like(cut, sizeof cut));
    assert_true(mapping_path_looks_like("a/lenet.map.pb"));
    assert_false(mapping_path_looks_like(".map.pb"));
    assert_false(mapping_path_looks_like("lenet.pb"));
    assert_false(mapping_path_looks_like("-"));
    assert_false(mapping_path_looks_like(NULL));
}

/* ---- the map.* rules, one negative case each ---- */

static void test_rule_node_unknown(void **state)
{
    (void)state;
    Mapping *m = load_lenet();
    node_dict(m, 12)->task_id = 999;
    const char *rules[] = {"map.node.unknown", "map.unmapped"};
    Diag d = verify_expect(m, rules, 2);
    const DiagEntry *e = find_rule(&d, "map.node.unknown");
    expect_block(e, 999);
    assert_string_equal(e->where, "node_map_dicts[10] (task_id 999)");
    expect_block(find_rule(&d, "map.unmapped"), 12); /* the block the dict used to place */
    diag_finish(&d);
    mapping_destroy(m);
}

static void test_rule_node_dup(void **state)
{
    (void)state;
    Mapping *m = load_lenet();
    MapDict *again = mapping_add_dict(m, false, 5, 1);
    assert_non_null(again);
    again->coords[0].core.x = 9; /* a slot of its own: only the duplicate is wrong */
    const char *rules[] = {"map.node.dup"};
    Diag d = verify_expect(m, rules, 1);
    const DiagEntry *e = find_rule(&d, "map.node.dup");
    expect_block(e, 5);
    assert_non_null(strstr(e->what, "node_map_dicts[23] maps this block again"));
    diag_finish(&d);
    mapping_destroy(m);
}

static void test_rule_edge_unknown(void **state)
{
    (void)state;
    Mapping *m = load_lenet();
    m->edges[0].task_id = 4242;
    const char *rules[] = {"map.edge.unknown"};
    Diag d = verify_expect(m, rules, 1);
    const DiagEntry *e = find_rule(&d, "map.edge.unknown");
    expect_edge(e, 4242);
    assert_false(e->has_block);
    diag_finish(&d);
    mapping_destroy(m);
}

static void test_rule_edge_dup(void **state)
{
    (void)state;
    Mapping *m = load_lenet();
    assert_non_null(mapping_add_dict(m, true, 13, 0));
    const char *rules[] = {"map.edge.dup"};
    Diag d = verify_expect(m, rules, 1);
    const DiagEntry *e = find_rule(&d, "map.edge.dup");
    expect_edge(e, 13);
    assert_string_equal(e->where, "edge 13");
    diag_finish(&d);
    mapping_destroy(m);
}

static void test_rule_unmapped(void **state)
{
    (void)state;
    Mapping *m = load_lenet();
    node_dict(m, 11)->n_coords = 0; /* a dict without coordinates places nothing */
    node_dict(m, 15)->task_id = 1;  /* the INPUT socket may be mapped; SWFC 15 then is not */
    const char *rules[] = {"map.unmapped"};
    Diag d = verify_expect(m, rules, 1);
    assert_int_equal(d.n, 2);
    expect_block(&d.entries[0], 11);
    expect_block(&d.entries[1], 15);
    assert_string_equal(d.entries[0].where, "block 11 (CC 'conv2')");
    diag_finish(&d);
    mapping_destroy(m);
}

static void test_rule_coord_range(void **state)
{
    (void)state;
    Mapping *m = load_lenet();
    node_dict(m, 12)->coords[0].phase_group = -1;
    m->edges[2].coords[0].step_group = -4; /* edge 13 */
    const char *rules[] = {"map.coord.range"};
    Diag d = verify_expect(m, rules, 1);
    assert_int_equal(d.n, 2);
    expect_block(&d.entries[0], 12);
    assert_non_null(strstr(d.entries[0].what, "phase_group is -1"));
    expect_edge(&d.entries[1], 13);
    assert_non_null(strstr(d.entries[1].what, "step_group is -4"));
    diag_finish(&d);
    mapping_destroy(m);
}

static void test_rule_coord_pi(void **state)
{
    (void)state;
    Mapping *m = load_lenet();
    node_dict(m, 13)->coords[0].pi_index = 9;
    const char *rules[] = {"map.coord.pi"};
    Diag d = verify_expect(m, rules, 1);
    assert_int_equal(d.n, 1);
    expect_block(&d.entries[0], 13);
    diag_finish(&d);
    mapping_destroy(m);
    /* an absent pi_index is allowed */
    m = load_lenet();
    node_dict(m, 13)->coords[0].has_pi_index = false;
    d = verify_expect(m, NULL, 0);
    diag_finish(&d);
    mapping_destroy(m);
}

static void test_rule_coord_phase(void **state)
{
    (void)state;
    Mapping *m = load_lenet();
    MapCoord *c = &node_dict(m, 14)->coords[0]; /* phase 1, end_phase 2 */
    c->end_phase = 0;
    const char *rules[] = {"map.coord.phase"};
    Diag d = verify_expect(m, rules, 1);
    assert_int_equal(d.n, 1);
    expect_block(&d.entries[0], 14);
    assert_non_null(strstr(d.entries[0].what, "end_phase 0 is before phase 1"));
    diag_finish(&d);
    /* without end_phase the coordinate is one phase long: fine */
    c->has_end_phase = false;
    d = verify_expect(m, NULL, 0);
    diag_finish(&d);
    mapping_destroy(m);
}

static void test_rule_slot(void **state)
{
    (void)state;
    Mapping *m = load_lenet();
    /* pool1 (block 7, SOMA1) onto conv1's slot (block 5, AXON, same core and phase) */
    MapCoord *c = &node_dict(m, 7)->coords[0];
    c->pi_index = 1; /* AXON */
    const char *rules[] = {"map.slot"};
    /* (pool1 then also reads conv1's output as conv1 writes it: map.order.read) */
    const char *slot_order[] = {"map.slot", "map.order.read"};
    Diag d = verify_expect(m, slot_order, 2);
    assert_int_equal(d.n, 2);
    const DiagEntry *slot = find_rule(&d, "map.slot");
    expect_block(slot, 7);
    assert_non_null(strstr(slot->what, "the slot of block 5"));
    diag_finish(&d);
    /* on the soma instead, the slot is free; storage blocks never collide */
    c->pi_index = 5; /* SOMA2 */
    d = verify_expect(m, NULL, 0);
    diag_finish(&d);
    /* the same block twice on one slot */
    mapping_destroy(m);
    m = load_lenet();
    MapDict *conv1 = node_dict(m, 5);
    MapCoord *two = arena_alloc(m->arena, 2, sizeof *two);
    assert_non_null(two);
    two[0] = two[1] = conv1->coords[0];
    conv1->coords = two;
    conv1->n_coords = 2;
    d = verify_expect(m, rules, 1);
    assert_int_equal(d.n, 1);
    expect_block(&d.entries[0], 5);
    assert_non_null(strstr(d.entries[0].what, "coordinates 0 and 1 both put it"));
    diag_finish(&d);
    mapping_destroy(m);
}

static void test_rule_clock(void **state)
{
    (void)state;
    Mapping *m = load_lenet();
    m->prediction_clock = -1;
    const char *rules[] = {"map.clock"};
    Diag d = verify_expect(m, rules, 1);
    assert_false(d.entries[0].has_block);
    diag_finish(&d);
    mapping_destroy(m);
}

/* A compute block whose input storage is held by another core only. */
static void test_rule_place_input(void **state)
{
    (void)state;
    Mapping *m = load_lenet();
    node_dict(m, 9)->coords[0].core.x = 2; /* conv2/w away from conv2's core (1,0) */
    const char *rules[] = {"map.place.input"};
    Diag d = verify_expect(m, rules, 1);
    assert_int_equal(d.n, 1);
    expect_block(&d.entries[0], 11);
    assert_non_null(strstr(d.entries[0].what, "input block 9 is not stored there (edge 9)"));
    diag_finish(&d);
    /* a second copy of the weights on conv2's core satisfies it */
    MapDict *w = node_dict(m, 9);
    MapCoord *two = arena_alloc(m->arena, 2, sizeof *two);
    assert_non_null(two);
    two[0] = two[1] = w->coords[0];
    two[1].core.x = 1;
    w->coords = two;
    w->n_coords = 2;
    d = verify_expect(m, NULL, 0);
    diag_finish(&d);
    mapping_destroy(m);
}

/* An edge between two cores without its router coordinates. */
static void test_rule_route_missing(void **state)
{
    (void)state;
    Mapping *m = load_lenet();
    assert_int_equal(m->edges[1].task_id, 7); /* pool1 (0,0) -> conv2/in (1,0) */
    m->edges[1].n_coords = 0;
    const char *rules[] = {"map.route"};
    Diag d = verify_expect(m, rules, 1);
    assert_int_equal(d.n, 1);
    expect_edge(&d.entries[0], 7);
    assert_non_null(strstr(d.entries[0].what, "without a ROUTER_SEND coordinate"));
    diag_finish(&d);
    /* the receive alone, no send */
    m->edges[1].coords = &m->edges[1].coords[1];
    m->edges[1].n_coords = 1;
    d = verify_expect(m, rules, 1);
    assert_int_equal(d.n, 1);
    expect_edge(&d.entries[0], 7);
    diag_finish(&d);
    mapping_destroy(m);
}

/* A receive with no send on an edge whose source is on chip (here within one core). */
static void test_rule_route_recv_only(void **state)
{
    (void)state;
    Mapping *m = load_lenet();
    assert_int_equal(m->edges[0].task_id, 1); /* INPUT -> conv1/in: a receive only, fine */
    m->edges[0].task_id = 5;                  /* conv1 -> conv1/out: its source is on chip */
    const char *rules[] = {"map.route"};
    Diag d = verify_expect(m, rules, 1);
    assert_int_equal(d.n, 1);
    expect_edge(&d.entries[0], 5);
    assert_non_null(strstr(d.entries[0].what, "a receive with no send"));
    diag_finish(&d);
    mapping_destroy(m);
}

/* The graph's own rules run too, with their own ids. */
static void test_graph_rules_run(void **state)
{
    (void)state;
    Mapping *m = load_lenet();
    Block *b = graph_block(m->graph, 12);
    b->shape.d[D_F] = 0; /* SI needs f */
    Diag d;
    diag_init(&d, NULL);
    assert_int_equal(verify_mapping(m, &d), ST_LOGIC);
    expect_block(find_rule(&d, "shape.required"), 12);
    assert_true(diag_find(&d, "map.unmapped") < 0);
    diag_finish(&d);
    mapping_destroy(m);
}

/* ---- malformed bytes ---- */

static void test_every_truncation(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = read_build_file("examples/lenet.map.pb", &len);
    size_t ok = 0;
    for (size_t n = 0; n < len; n++) {
        uint8_t *cut = malloc(n ? n : 1); /* exact, so ASan sees reads past the end */
        assert_non_null(cut);
        memcpy(cut, buf, n);
        Mapping *m = NULL;
        Diag d;
        Status st = load_clean(cut, n, &m, &d);
        if (st == ST_OK) {
            ok++;
            Diag vd;
            diag_init(&vd, NULL);
            Status vst = verify_mapping(m, &vd);
            assert_true(vst == ST_OK || vst == ST_LOGIC);
            diag_finish(&vd);
            round_trip(m);
        } else {
            const char *r = d.entries[0].rule;
            assert_true(strncmp(r, "wire.", 5) == 0 || strncmp(r, "limit.", 6) == 0 ||
                        strncmp(r, "load.", 5) == 0);
        }
        diag_finish(&d);
        mapping_destroy(m);
        free(cut);
    }
    /* the cuts at the top-level field boundaries: nothing, the graph alone, the graph and
     * the space-time mapping without the clock */
    assert_int_equal(ok, 3);
    free(buf);
}

static void test_random_flips(void **state)
{
    (void)state;
    size_t len;
    uint8_t *orig = read_build_file("examples/lenet.map.pb", &len);
    uint8_t *buf = malloc(len);
    assert_non_null(buf);
    uint32_t seed = 2024;
    size_t loaded = 0, rejected = 0;
    FILE *sink = fopen("/dev/null", "w");
    assert_non_null(sink);
    for (int round = 0; round < 400; round++) {
        memcpy(buf, orig, len);
        for (int k = 0; k < 1 + round % 4; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % len;
            seed = seed * 1103515245u + 12345u;
            buf[at] ^= (uint8_t)(1u << ((seed >> 16) % 8));
        }
        Mapping *m = NULL;
        if (load_clean(buf, len, &m, NULL) != ST_OK) {
            rejected++;
            continue;
        }
        loaded++;
        Diag d;
        diag_init(&d, NULL);
        Status st = verify_mapping(m, &d);
        assert_true(st == ST_OK || st == ST_LOGIC);
        for (int f = 0; f < 3; f++) {
            st = print_mapping(m, (PrintFormat)f, false, 0, sink, &d);
            assert_true(st == ST_OK);
        }
        assert_int_equal(print_map_summary(m, PF_TEXT, sink, &d), ST_OK);
        assert_int_equal(print_map_summary(m, PF_JSON, sink, &d), ST_OK);
        diag_finish(&d);
        round_trip(m);
        mapping_destroy(m);
    }
    fclose(sink);
    assert_true(loaded > 0 && rejected > 0);
    free(buf);
    free(orig);
}

/* A fault inside the embedded graph: the offset counts from the start of the Mapping file and
 * the path goes through Mapping.graph. */
static void test_fault_offsets(void **state)
{
    (void)state;
    /* graph { blocks { id: <11-byte varint> } } */
    const uint8_t id11[] = {0x0a, 14, 0x0a, 12, 0x08, 0xff, 0xff, 0xff, 0xff,
                            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    Diag d;
    assert_int_equal(load_clean(id11, sizeof id11, NULL, &d), ST_LOGIC);
    const DiagEntry *e = find_rule(&d, "wire.varint");
    assert_string_equal(e->where, "byte 5");
    assert_non_null(strstr(e->what, "Mapping.graph.blocks.id"));
    diag_finish(&d);
    /* a coordinate's time as a group that never ends (a time sent as a varint is an unknown
     * field to protobuf's parsers: skipped, pb_wire_strip) */
    const uint8_t time_group[] = {0x12, 0x06, 0x0a, 0x04, 0x0a, 0x02, 0x13, 0x01};
    assert_int_equal(load_clean(time_group, sizeof time_group, NULL, &d), ST_LOGIC);
    e = find_rule(&d, "wire.wiretype");
    assert_string_equal(e->where, "byte 6");
    assert_non_null(strstr(e->what, "Mapping.space_time_mapping.node_map_dicts."
                                    "space_time_coordinates.time"));
    diag_finish(&d);
    /* an unknown block type inside the graph: the TaskGraph loader's own rule */
    const uint8_t type77[] = {0x0a, 0x06, 0x0a, 0x04, 0x08, 0x07, 0x10, 77};
    assert_int_equal(load_clean(type77, sizeof type77, NULL, &d), ST_LOGIC);
    assert_non_null(strstr(find_rule(&d, "load.enum")->what, "TaskBlockType"));
    diag_finish(&d);
    /* a TaskGraph is not a Mapping: its blocks read as a graph whose fields of other wire
     * types are skipped, which leaves values no enum has */
    size_t len;
    uint8_t *g = read_build_file("examples/lenet.pb", &len);
    assert_int_equal(load_clean(g, len, NULL, &d), ST_LOGIC);
    assert_string_equal(d.entries[0].rule, "load.enum");
    diag_finish(&d);
    free(g);
}

/* The coordinate cap of one dict is refused from the bytes, before anything is decoded. */
static void test_coord_cap(void **state)
{
    (void)state;
    size_t n = MAP_MAX_COORDS + 1;
    size_t body = 2 * n;                /* n empty coordinates: 0a 00 each */
    size_t len = 2 * 6 + body;          /* two length-delimited wrappers */
    uint8_t *buf = malloc(len);
    assert_non_null(buf);
    size_t at = 0;
    buf[at++] = 0x12; /* space_time_mapping */
    size_t l = 1 + 3 + body; /* the dict's tag, length and coordinates */
    buf[at++] = (uint8_t)(0x80 | (l & 0x7f));
    buf[at++] = (uint8_t)(0x80 | ((l >> 7) & 0x7f));
    buf[at++] = (uint8_t)(l >> 14);
    buf[at++] = 0x0a; /* node_map_dicts */
    buf[at++] = (uint8_t)(0x80 | (body & 0x7f));
    buf[at++] = (uint8_t)(0x80 | ((body >> 7) & 0x7f));
    buf[at++] = (uint8_t)(body >> 14);
    for (size_t i = 0; i < n; i++) {
        buf[at++] = 0x0a;
        buf[at++] = 0x00;
    }
    assert_true(at <= len);
    Diag d;
    assert_int_equal(load_clean(buf, at, NULL, &d), ST_LOGIC);
    const DiagEntry *e = find_rule(&d, "limit.coords");
    assert_non_null(strstr(e->where, "byte "));
    diag_finish(&d);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lenet_canonical),
        cmocka_unit_test(test_lenet_verifies),
        cmocka_unit_test(test_save_and_load_file),
        cmocka_unit_test(test_round_trip_built),
        cmocka_unit_test(test_absent_fields),
        cmocka_unit_test(test_pi_table),
        cmocka_unit_test(test_looks_like),
        cmocka_unit_test(test_rule_node_unknown),
        cmocka_unit_test(test_rule_node_dup),
        cmocka_unit_test(test_rule_edge_unknown),
        cmocka_unit_test(test_rule_edge_dup),
        cmocka_unit_test(test_rule_unmapped),
        cmocka_unit_test(test_rule_coord_range),
        cmocka_unit_test(test_rule_coord_pi),
        cmocka_unit_test(test_rule_coord_phase),
        cmocka_unit_test(test_rule_slot),
        cmocka_unit_test(test_rule_clock),
        cmocka_unit_test(test_rule_place_input),
        cmocka_unit_test(test_rule_route_missing),
        cmocka_unit_test(test_rule_route_recv_only),
        cmocka_unit_test(test_graph_rules_run),
        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_random_flips),
        cmocka_unit_test(test_fault_offsets),
        cmocka_unit_test(test_coord_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
