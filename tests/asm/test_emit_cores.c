/* test_emit_cores.c: the cores by place (backend/emit_cores.c): a new place is added at the
 * end with its name and groups, a known one gives its index back however many cores come
 * after it (past the table's first 64 slots, with places that differ in one coordinate
 * only), cores put in e->cores by hand are found (the first of two at one place), and a
 * core asked for on chip (1,0) is not core (1,0) of chip (0,0); the largest phase count
 * of the cores (none: 0).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "backend/emit_internal.h"

static MapCoord at(int32_t chx, int32_t chy, int32_t x, int32_t y)
{
    return (MapCoord){.chip = {chx, chy}, .core = {x, y}, .step_group = 1, .phase_group = 2};
}

static void test_places(void **state)
{
    (void)state;
    Diag d;
    diag_init(&d, NULL);
    Emit e = {.d = &d};
    /* 4 chips of 16 x 10 cores, row by row: 640 cores */
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < 640; i++) {
            MapCoord c = at((int32_t)(i / 160) % 2, (int32_t)(i / 320), (int32_t)(i % 16),
                            (int32_t)(i / 16) % 10);
            assert_int_equal(emit_core(&e, &c), i); /* pass 1: every one found again */
        }
    assert_int_equal(e.n_cores, 640);
    assert_string_equal(e.cores[161].name, "chip (1,0) core (1,0)");
    assert_int_equal(e.cores[161].phase_group, 2);
    MapCoord c = at(0, 0, 1, 0);
    assert_int_equal(emit_core(&e, &c), 1);
    c = at(7, 7, 0, 0); /* new: at the end */
    assert_int_equal(emit_core(&e, &c), 640);
    assert_int_equal(d.n, 0);
    free(e.cores);
    free(e.core_slots);
    diag_finish(&d);
}

static void test_cores_by_hand(void **state)
{
    (void)state;
    Diag d;
    diag_init(&d, NULL);
    ECore *cores = calloc(3, sizeof *cores);
    assert_non_null(cores);
    cores[0].core = (MapXY){3, 4};
    cores[1].core = (MapXY){5, 6};
    cores[2].core = (MapXY){3, 4}; /* the same place as core 0 */
    Emit e = {.d = &d, .cores = cores, .n_cores = 3, .cap_cores = 3};
    MapCoord c = at(0, 0, 5, 6);
    assert_int_equal(emit_core(&e, &c), 1);
    c = at(0, 0, 3, 4);
    assert_int_equal(emit_core(&e, &c), 0);
    c = at(0, 0, 4, 3);
    assert_int_equal(emit_core(&e, &c), 3);
    e.cores[e.n_cores++] = (ECore){.core = {9, 9}}; /* one more by hand, the table has room */
    c = at(0, 0, 9, 9);
    assert_int_equal(emit_core(&e, &c), 4);
    assert_int_equal(e.n_cores, 5);
    assert_int_equal(emit_max_phases(&e), 0);
    e.cores[1].n_phases = 7;
    e.cores[3].n_phases = 12;
    e.cores[4].n_phases = 3;
    assert_int_equal(emit_max_phases(&e), 12);
    free(e.cores);
    free(e.core_slots);
    diag_finish(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_places),
        cmocka_unit_test(test_cores_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
