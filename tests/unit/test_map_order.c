/* test_map_order.c: map.order.read (taskir/verify_map_order.c; docs/rules.md "Mapping
 * rules") on the example LeNet Mapping (examples/lenet.map.txtpb): core (0,0) runs conv1
 * (block 5, AXON) and pool1 (block 7, SOMA1) in phase 0, pool1 reading conv1/out (block 6);
 * edge 7 takes pool1's output to conv2/in (block 8) on core (1,0), received there in phase 0,
 * where conv2 (block 11, AXON) reads it in phase 1 and pool2 (block 13, SOMA1) reads
 * conv2/out in phase 1. The example is in order; each bad case moves one coordinate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "taskir/mapping.h"

#include "map_fixture.h"

enum { AXON = 1, SOMA1 = 2, SOMA2 = 5 };

/* Verifies m (no chip) and returns how many map.order.read findings it gave; with block >= 0
 * the first must name that block and message must be in it. */
static size_t order_findings(const Mapping *m, int32_t block, const char *message)
{
    Diag d;
    diag_init(&d, "t.map.pb");
    verify_mapping(m, &d);
    size_t n = 0;
    for (size_t i = 0; i < d.n; i++) {
        if (strcmp(d.entries[i].rule, "map.order.read") != 0)
            continue;
        if (!n++ && block >= 0) {
            assert_int_equal(d.entries[i].block_id, block);
            if (!strstr(d.entries[i].what, message))
                fail_msg("'%s' is not in '%s'", message, d.entries[i].what);
        }
    }
    diag_finish(&d);
    return n;
}

static MapCoord *at(Mapping *m, bool edge, int32_t id, uint32_t k)
{
    MapDict *dict = map_fixture_dict(m, edge, id);
    assert_non_null(dict);
    assert_true(k < dict->n_coords);
    return &dict->coords[k];
}

static void test_example_in_order(void **state)
{
    (void)state;
    Mapping *m = map_fixture_lenet("test_map_order");
    assert_int_equal(order_findings(m, -1, NULL), 0);
    mapping_destroy(m);
}

/* conv1 moved to the Soma2 slot of phase 0: pool1 (Soma1) reads conv1/out before it. */
static void test_writer_later_slot(void **state)
{
    (void)state;
    Mapping *m = map_fixture_lenet("test_map_order");
    at(m, false, 5, 0)->pi_index = SOMA2;
    assert_int_equal(order_findings(m, 7, "reads block 6 in step 0 phase 0 SOMA1, but its "
                                          "writer block 5's data is there only after step 0 "
                                          "phase 0 SOMA2 (it runs)"), 1);
    mapping_destroy(m);
}

/* conv1 moved to phase 1 (its Axon slot): pool1 reads in phase 0, a phase too early. */
static void test_writer_later_phase(void **state)
{
    (void)state;
    Mapping *m = map_fixture_lenet("test_map_order");
    at(m, false, 5, 0)->phase = 1;
    assert_int_equal(order_findings(m, 7, "after step 0 phase 1 AXON (it runs)"), 1);
    mapping_destroy(m);
}

/* Edge 7 received on core (1,0) in phase 1: its Router slot comes after conv2's Axon slot
 * of phase 1. */
static void test_receive_after_read(void **state)
{
    (void)state;
    Mapping *m = map_fixture_lenet("test_map_order");
    MapCoord *recv = at(m, true, 7, 1);
    recv->phase = recv->end_phase = 1;
    assert_int_equal(order_findings(m, 11, "reads block 8 in step 0 phase 1 AXON, but its "
                                           "writer block 7's data is there only after step "
                                           "0 phase 1 ROUTER (edge 7 arrives)"), 1);
    mapping_destroy(m);
}

/* A writer in another phase group is another stage of a pipeline (its data is read a step
 * later): the same late receive as above is then not ordered against conv2. */
static void test_other_phase_group(void **state)
{
    (void)state;
    Mapping *m = map_fixture_lenet("test_map_order");
    MapCoord *recv = at(m, true, 7, 1);
    recv->phase = recv->end_phase = 1;
    at(m, false, 7, 0)->phase_group = 1;
    assert_int_equal(order_findings(m, -1, NULL), 0);
    mapping_destroy(m);
}

/* Soma2 runs after the Router of its phase: conv2 in the Soma2 slot of phase 0, where edge
 * 7 arrives, reads in order (and pool2 in phase 1 after it). */
static void test_soma2_after_receive(void **state)
{
    (void)state;
    Mapping *m = map_fixture_lenet("test_map_order");
    MapCoord *c = at(m, false, 11, 0);
    c->phase = 0;
    c->pi_index = SOMA2;
    assert_int_equal(order_findings(m, -1, NULL), 0);
    c->pi_index = SOMA1; /* before the Router: too early */
    assert_int_equal(order_findings(m, 11, "(edge 7 arrives)"), 1);
    mapping_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example_in_order),  cmocka_unit_test(test_writer_later_slot),
        cmocka_unit_test(test_writer_later_phase), cmocka_unit_test(test_receive_after_read),
        cmocka_unit_test(test_other_phase_group), cmocka_unit_test(test_soma2_after_receive),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
