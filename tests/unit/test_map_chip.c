/* test_map_chip.c: the rules of a Mapping that need the chip description (verify_mapping_on,
 * taskir/verify_map_chip.c; docs/rules.md "Mappings on a chip").
 *
 * The example Mapping (examples/lenet.map.txtpb, encoded at build time into
 * $TASKIR_BUILDDIR/examples/lenet.map.pb) verifies on the built-in chip. Each rule has a
 * negative case asserting its rule id and what it names; the memory and receive figures are
 * worked out by hand from CHIP.md's alignment:
 *   core 0,0 in phase 0 holds conv1/in (SIC 16x16, r=1 int8: 256 pixels x 16 B = 4096),
 *   conv1/w (SW f=4 r=1 5x5: 1 group x 25 taps x 1 x 32 B = 800), conv1/b (SB f=4 int32:
 *   16 B in a 128-B group = 128), conv1/out (SI 12x12 f=4 int32: 144 pixels x 128 B =
 *   18432) and pool1's output buffer (its output conv2/in lives on core 1,0: 6x6 pixels of
 *   4 int8 channels x 16 B = 576): 24032 bytes; phases 1-3 hold conv1/w and conv1/b, 928.
 *   Edge 7 (pool1 -> conv2/in, core 0,0 -> 1,0) carries 6x6x4 int8 values, which take
 *   36 pixels x 16 B = 576 bytes in conv2's input layout on core 1,0. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "taskir/arena.h"
#include "taskir/chip.h"
#include "taskir/fileio.h"
#include "taskir/mapping.h"

#include "map_fixture.h"

static Mapping *load_lenet(void)
{
    return map_fixture_lenet("test_map_chip");
}

static Chip *chip(void)
{
    Diag d;
    diag_init(&d, "(built-in chip)");
    Chip *c = NULL;
    assert_int_equal(chip_load_default(&c, &d), ST_OK);
    diag_finish(&d);
    return c;
}

static MapDict *node_dict(Mapping *m, int32_t block)
{
    return map_fixture_dict(m, false, block);
}

static MapDict *edge_dict(Mapping *m, int32_t edge)
{
    return map_fixture_dict(m, true, edge);
}

/* Verifies m on c expecting exactly the rules listed (each at least once, nothing else). */
static Diag verify_expect(const Mapping *m, const Chip *c, const char *const *rules, size_t n)
{
    Diag d;
    diag_init(&d, "t.map.pb");
    Status st = verify_mapping_on(m, c, &d);
    for (size_t i = 0; i < d.n; i++) {
        bool known = false;
        for (size_t k = 0; k < n; k++)
            known |= strcmp(d.entries[i].rule, rules[k]) == 0;
        if (!known) {
            diag_print(&d, stderr, "test_map_chip");
            fail_msg("unexpected finding [%s]", d.entries[i].rule);
        }
    }
    for (size_t k = 0; k < n; k++)
        if (diag_find(&d, rules[k]) < 0) {
            diag_print(&d, stderr, "test_map_chip");
            fail_msg("no finding [%s]", rules[k]);
        }
    assert_int_equal(st, n ? ST_LOGIC : ST_OK);
    return d;
}

static const DiagEntry *entry(const Diag *d, const char *rule)
{
    long i = diag_find(d, rule);
    assert_true(i >= 0);
    return &d->entries[i];
}

static void test_lenet_fits(void **state)
{
    (void)state;
    Mapping *m = load_lenet();
    Chip *c = chip();
    Diag d = verify_expect(m, c, NULL, 0);
    diag_finish(&d);
    /* without a chip the chip rules do not run, even on a chip that would refuse it */
    c->core_budget_bytes = 1;
    d = verify_expect(m, NULL, NULL, 0);
    diag_finish(&d);
    chip_destroy(c);
    mapping_destroy(m);
}

static void test_core_range(void **state)
{
    (void)state;
    Mapping *m = load_lenet();
    Chip *c = chip();
    /* every coordinate on core 0,0 moves to core 16,0: past the 16 x 10 cores */
    for (int edge = 0; edge < 2; edge++) {
        MapDict *ds = edge ? m->edges : m->nodes;
        uint32_t n = edge ? m->n_edges : m->n_nodes;
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t k = 0; k < ds[i].n_coords; k++)
                if (ds[i].coords[k].core.x == 0 && ds[i].coords[k].core.y == 0)
                    ds[i].coords[k].core.x = 16;
    }
    const char *rules[] = {"map.core.range"};
    Diag d = verify_expect(m, c, rules, 1);
    const DiagEntry *e = entry(&d, "map.core.range");
    assert_true(e->has_block);
    assert_int_equal(e->block_id, 2); /* conv1/in, the first */
    assert_non_null(strstr(e->what, "core 16,0 is not a core of chip 'TianjicX' (16 x 10 cores)"));
    diag_finish(&d);
    chip_destroy(c);
    mapping_destroy(m);
}

static void test_phases_limit(void **state)
{
    (void)state;
    Mapping *m = load_lenet();
    Chip *c = chip();
    MapCoord *fc2 = &node_dict(m, 23)->coords[0];
    fc2->phase = fc2->end_phase = 32;
    node_dict(m, 24)->coords[0].end_phase = 32; /* its output lives as long */
    const char *rules[] = {"map.phases.limit"};
    Diag d = verify_expect(m, c, rules, 1);
    assert_int_equal(d.n, 2);
    assert_int_equal(d.entries[0].block_id, 23);
    assert_non_null(strstr(d.entries[0].what, "phase 32..32 is past the 32 phases"));
    diag_finish(&d);
    chip_destroy(c);
    mapping_destroy(m);
}

static void test_groups(void **state)
{
    (void)state;
    Mapping *m = load_lenet();
    Chip *c = chip();
    /* conv1/w in another phase group than the rest of core 0,0 */
    node_dict(m, 3)->coords[0].phase_group = 1;
    const char *rules1[] = {"map.core.group"};
    Diag d = verify_expect(m, c, rules1, 1);
    assert_int_equal(d.n, 1);
    assert_non_null(strstr(d.entries[0].what, "node_map_dicts[1] puts chip_array 0,0 chip 0,0 "
                                              "core 0,0 in phase group 1"));
    diag_finish(&d);
    /* every coordinate in phase group 32 and step group 4: past the chip's 32 and 4 */
    for (int edge = 0; edge < 2; edge++) {
        MapDict *ds = edge ? m->edges : m->nodes;
        uint32_t n = edge ? m->n_edges : m->n_nodes;
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t k = 0; k < ds[i].n_coords; k++) {
                ds[i].coords[k].phase_group = 32;
                ds[i].coords[k].step_group = 4;
            }
    }
    const char *rules2[] = {"map.phases.groups"};
    d = verify_expect(m, c, rules2, 1);
    assert_int_equal(d.n, 2 * (23 + 8)); /* a phase group and a step group, every coordinate */
    assert_non_null(strstr(d.entries[0].what, "phase group 32, but chip 'TianjicX' has 32"));
    assert_non_null(strstr(d.entries[1].what, "step group 4, but chip 'TianjicX' has 4"));
    diag_finish(&d);
    chip_destroy(c);
    mapping_destroy(m);
}

static void test_memory(void **state)
{
    (void)state;
    const char *order_only[] = {"map.order.read"};
    Mapping *m = load_lenet();
    Chip *c = chip();
    c->core_budget_bytes = 24032; /* core 0,0 phase 0, worked out above: fits exactly */
    Diag d = verify_expect(m, c, NULL, 0);
    diag_finish(&d);
    c->core_budget_bytes = 24031;
    const char *rules[] = {"map.mem.core"};
    d = verify_expect(m, c, rules, 1);
    assert_int_equal(d.n, 1);
    assert_int_equal(d.entries[0].block_id, 6); /* conv1/out, the largest */
    assert_non_null(strstr(d.entries[0].what, "chip_array 0,0 chip 0,0 core 0,0 step 0 holds "
                                              "24032 bytes in phase 0 (this block 18432 of "
                                              "them), more than the 24031 bytes"));
    diag_finish(&d);
    /* lifetimes: conv1/out held in phase 1 only leaves phase 0 with 24032 - 18432 = 5600
     * and phase 1 with 928 + 18432 = 19360: both fit */
    MapCoord *out = &node_dict(m, 6)->coords[0];
    out->phase = out->end_phase = 1;
    d = verify_expect(m, c, NULL, 0);
    diag_finish(&d);
    c->core_budget_bytes = 19359;
    d = verify_expect(m, c, rules, 1);
    assert_non_null(strstr(d.entries[0].what, "holds 19360 bytes in phase 1"));
    diag_finish(&d);
    /* pool1's output buffer (576 bytes) lives from its phase to the last phase its core
     * sends from it, as the code generator keeps it: edge 7 sent in phases 0 and 1 puts it
     * in phase 1 too, 19360 + 576 = 19936 */
    c->core_budget_bytes = 19360;
    MapDict *e7 = edge_dict(m, 7);
    MapCoord *was = e7->coords, *four = arena_alloc(m->arena, 4, sizeof *four);
    assert_non_null(four);
    four[0] = four[2] = e7->coords[0];
    four[1] = four[3] = e7->coords[1];
    four[2].phase = four[2].end_phase = four[3].phase = four[3].end_phase = 1;
    e7->coords = four;
    e7->n_coords = 4;
    const char *rules_late[] = {"map.mem.core", "map.order.read"}; /* conv2 reads in phase 1 */
    d = verify_expect(m, c, rules_late, 2);
    assert_non_null(strstr(entry(&d, "map.mem.core")->what, "holds 19936 bytes in phase 1"));
    diag_finish(&d);
    c->core_budget_bytes = 19936;
    d = verify_expect(m, c, order_only, 1);
    diag_finish(&d);
    e7->coords = was;
    e7->n_coords = 2;
    /* a second coordinate of the same block on the same core counts once */
    c->core_budget_bytes = 19360;
    MapDict *w = node_dict(m, 3);
    MapCoord *two = arena_alloc(m->arena, 2, sizeof *two);
    assert_non_null(two);
    two[0] = two[1] = w->coords[0];
    w->coords = two;
    w->n_coords = 2;
    d = verify_expect(m, c, NULL, 0);
    diag_finish(&d);
    chip_destroy(c);
    mapping_destroy(m);
}

static void test_receive(void **state)
{
    (void)state;
    Mapping *m = load_lenet();
    Chip *c = chip();
    c->recv_bytes_per_phase = 576; /* edge 7's 576 bytes in phase 0: fit exactly */
    Diag d = verify_expect(m, c, NULL, 0);
    diag_finish(&d);
    c->recv_bytes_per_phase = 575;
    const char *rules[] = {"map.recv.phase"};
    d = verify_expect(m, c, rules, 1);
    assert_int_equal(d.n, 1);
    assert_non_null(strstr(d.entries[0].what, "chip_array 0,0 chip 0,0 core 1,0 step 0 receives "
                                              "576 bytes over phases {0} (1 edges), but at "
                                              "most 575 of them fit"));
    diag_finish(&d);
    /* received over phases 0 and 1 the 576 bytes can be split 575 + 1 (or 288 + 288) */
    MapDict *e7 = edge_dict(m, 7);
    MapCoord *three = arena_alloc(m->arena, 3, sizeof *three);
    assert_non_null(three);
    three[0] = e7->coords[0];
    three[1] = three[2] = e7->coords[1];
    three[2].phase = three[2].end_phase = 1;
    e7->coords = three;
    e7->n_coords = 3;
    /* (conv2 reads edge 7 in the Axon slot of phase 1, before its phase 1 part arrives:
     * map.order.read, the only finding) */
    const char *order[] = {"map.order.read"};
    d = verify_expect(m, c, order, 1);
    diag_finish(&d);
    /* one destination takes at most 287 bytes a phase: 574 < 576 over two phases */
    c->dest_bytes_per_phase = 287;
    const char *rules2[] = {"map.recv.dest", "map.recv.phase", "map.order.read"};
    d = verify_expect(m, c, rules2, 3);
    const DiagEntry *e = entry(&d, "map.recv.dest");
    assert_true(e->has_edge);
    assert_int_equal(e->edge_id, 7);
    assert_non_null(strstr(e->what, "core 1,0 step 0 receives 576 bytes of it in 2 phase(s), "
                                    "more than the 287 bytes"));
    assert_non_null(strstr(entry(&d, "map.recv.phase")->what, "but at most 574 of them fit"));
    diag_finish(&d);
    chip_destroy(c);
    mapping_destroy(m);
}

/* Random coordinates (negative, past the chip, huge) never crash the chip rules: every run
 * ends in ST_OK or ST_LOGIC with a rule id on every finding. */
static void test_random_coords(void **state)
{
    (void)state;
    Chip *c = chip();
    uint64_t x = 0x9E3779B97F4A7C15u;
    for (int round = 0; round < 300; round++) {
        Mapping *m = load_lenet();
        for (int k = 0; k < 6; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            bool edge = x & 1;
            MapDict *ds = edge ? m->edges : m->nodes;
            uint32_t n = edge ? m->n_edges : m->n_nodes;
            MapDict *dd = &ds[(x >> 8) % n];
            if (!dd->n_coords)
                continue;
            MapCoord *mc = &dd->coords[(x >> 20) % dd->n_coords];
            int32_t v = (int32_t)((x >> 32) % 80) - 4;
            if ((x >> 40) % 17 == 0)
                v = INT32_MAX - (int32_t)((x >> 44) % 3);
            int32_t *f[] = {&mc->core.x, &mc->core.y, &mc->chip.x, &mc->phase, &mc->end_phase,
                            &mc->phase_group, &mc->step_group, &mc->step, &mc->pi_index};
            *f[(x >> 48) % 9] = v;
        }
        Diag d;
        diag_init(&d, "t.map.pb");
        Status st = verify_mapping_on(m, c, &d);
        assert_true(st == ST_OK || st == ST_LOGIC);
        for (size_t i = 0; i < d.n; i++)
            assert_true(d.entries[i].rule[0] != 0);
        diag_finish(&d);
        mapping_destroy(m);
    }
    chip_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lenet_fits),   cmocka_unit_test(test_core_range),
        cmocka_unit_test(test_phases_limit), cmocka_unit_test(test_groups),
        cmocka_unit_test(test_memory),       cmocka_unit_test(test_receive),
        cmocka_unit_test(test_random_coords),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
