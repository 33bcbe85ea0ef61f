/* map_fixture.h: the example LeNet Mapping for the Mapping tests (test_mapping.c,
 * test_map_chip.c): examples/lenet.map.txtpb, encoded at build time into
 * $TASKIR_BUILDDIR/examples/lenet.map.pb; and its dicts by task id. Include after cmocka.h. */
#ifndef TASKIR_TESTS_MAP_FIXTURE_H
#define TASKIR_TESTS_MAP_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "taskir/mapping.h"

/* The example Mapping, loaded and checked; tool names the test in messages. */
static inline Mapping *map_fixture_lenet(const char *tool)
{
    const char *dir = getenv("TASKIR_BUILDDIR");
    assert_non_null(dir); /* set by tests/meson.build */
    char path[4096];
    snprintf(path, sizeof path, "%s/examples/lenet.map.pb", dir);
    Diag d;
    diag_init(&d, "lenet.map.pb");
    Mapping *m = NULL;
    Status st = mapping_load_pb(path, &m, &d);
    if (st != ST_OK)
        diag_print(&d, stderr, tool);
    assert_int_equal(st, ST_OK);
    assert_non_null(m);
    diag_finish(&d);
    return m;
}

/* The node (edge false) or edge dict naming id; fails the test when there is none. */
static inline MapDict *map_fixture_dict(Mapping *m, bool edge, int32_t id)
{
    MapDict *ds = edge ? m->edges : m->nodes;
    uint32_t n = edge ? m->n_edges : m->n_nodes;
    for (uint32_t i = 0; i < n; i++)
        if (ds[i].task_id == id)
            return &ds[i];
    fail_msg("no %s dict for %s %d", edge ? "edge" : "node", edge ? "edge" : "block", (int)id);
    return NULL;
}

#endif
