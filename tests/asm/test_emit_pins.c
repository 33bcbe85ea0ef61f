/* test_emit_pins.c: the pin records' lists (backend/emit_pins.c): records of each kind kept
 * in order, an append that cannot be made leaves the list as it was, and the passes the
 * records add to the emitter's budget come from EMIT_PIN_KINDS (a buffer to send twice adds
 * one each, up to 8; a pass recording spread parts to cut adds one, up to 16; parts' runs
 * to land first add 16 once; the other kinds none); emit_grow, which the lists grow by,
 * checks the doubling before multiplying.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "backend/emit_internal.h"

static void test_records_in_order(void **state)
{
    (void)state;
    Diag d;
    diag_init(&d, NULL);
    EPins pins = {0};
    Emit e = {.d = &d};
    assert_int_equal(emit_pins_n(&e, EPIN_DUP), 0); /* no pins: none recorded */
    e.pins = &pins;
    for (uint32_t i = 0; i < 40; i++) /* past the first capacity of 16 */
        assert_int_equal(emit_pin_add(&e, EPIN_DUP, &(EPinDup){i, 100 + i}, 1), ST_OK);
    EPinTie ties[3] = {{0, 1, 2, 3}, {0, 4, 5, -6}, {0, 7, 8, 9}};
    assert_int_equal(emit_pin_add(&e, EPIN_TIE, ties, 3), ST_OK);
    assert_int_equal(emit_pins_n(&e, EPIN_DUP), 40);
    assert_int_equal(emit_pins_n(&e, EPIN_TIE), 3);
    assert_int_equal(emit_pins_n(&e, EPIN_CAP), 0);
    for (uint32_t i = 0; i < 40; i++) {
        const EPinDup *r = emit_pin_at(&e, EPIN_DUP, i);
        assert_int_equal(r->w, i);
        assert_int_equal(r->s, 100 + i);
    }
    const EPinTie *t = emit_pin_at(&e, EPIN_TIE, 1);
    assert_int_equal(t->k, 4);
    assert_int_equal(t->off, -6);
    /* too many to count: refused whole, out of memory told, the list unchanged */
    assert_int_equal(emit_pin_add(&e, EPIN_TIE, ties, SIZE_MAX), ST_RUNTIME);
    assert_int_equal(emit_pins_n(&e, EPIN_TIE), 3);
    assert_int_equal(d.worst, ST_RUNTIME);
    emit_pins_finish(&pins);
    diag_finish(&d);
}

static void test_pass_budget(void **state)
{
    (void)state;
    Diag d;
    diag_init(&d, NULL);
    EPins pins = {0};
    Emit e = {.d = &d, .pins = &pins};
    size_t was[EPIN_KINDS];
    assert_int_equal(emit_pins_most(), 8 + 16 + 16);
    emit_pins_count(&pins, was);
    assert_false(emit_pins_grew(&pins, was));
    assert_int_equal(emit_pins_more(&pins), 0);
    /* a pass recording pitches and ties only: again, but no pass more */
    emit_pins_count(&pins, was);
    assert_int_equal(emit_pin_add(&e, EPIN_PITCH, &(EPinPitch){1, 2, 16}, 1), ST_OK);
    assert_true(emit_pins_grew(&pins, was));
    assert_int_equal(emit_pins_more(&pins), 0);
    /* three buffers to send twice: three passes more */
    emit_pins_count(&pins, was);
    for (uint32_t i = 0; i < 3; i++)
        assert_int_equal(emit_pin_add(&e, EPIN_DUP, &(EPinDup){i, i}, 1), ST_OK);
    assert_true(emit_pins_grew(&pins, was));
    assert_int_equal(emit_pins_more(&pins), 3);
    /* two passes recording spread parts to cut (three parts): two more; seven more
     * buffers: five more (at most 8) */
    for (int pass = 0; pass < 2; pass++) {
        emit_pins_count(&pins, was);
        for (int32_t p = 0; p <= pass; p++)
            assert_int_equal(emit_pin_add(&e, EPIN_CAP, &(EPinCap){0, 0, p}, 1), ST_OK);
        assert_true(emit_pins_grew(&pins, was));
    }
    assert_int_equal(emit_pins_more(&pins), 3 + 2);
    for (uint32_t i = 3; i < 10; i++)
        assert_int_equal(emit_pin_add(&e, EPIN_DUP, &(EPinDup){i, i}, 1), ST_OK);
    assert_int_equal(emit_pins_more(&pins), 8 + 2);
    /* a part's runs to land first: 16 more, once */
    assert_int_equal(emit_pin_add(&e, EPIN_FIRST, &(EPinFirst){0, 0, 1, 2}, 1), ST_OK);
    assert_int_equal(emit_pin_add(&e, EPIN_FIRST, &(EPinFirst){0, 1, 1, 2}, 1), ST_OK);
    assert_int_equal(emit_pins_more(&pins), 8 + 2 + 16);
    /* a pass of nothing new counts for no kind */
    emit_pins_count(&pins, was);
    assert_false(emit_pins_grew(&pins, was));
    assert_int_equal(emit_pins_more(&pins), 8 + 2 + 16);
    emit_pins_finish(&pins);
    diag_finish(&d);
}

/* emit_grow refuses a capacity whose double, or whose bytes, would pass SIZE_MAX, before
 * multiplying: nothing allocated, the capacity kept, out of memory told. */
static void test_grow_past_size(void **state)
{
    (void)state;
    Diag d;
    diag_init(&d, NULL);
    Emit e = {.d = &d};
    size_t cap = SIZE_MAX / 2 + 1;
    assert_null(emit_grow(&e, NULL, &cap, cap, 1));
    assert_int_equal(cap, SIZE_MAX / 2 + 1);
    cap = SIZE_MAX / 8 + 1;
    assert_null(emit_grow(&e, NULL, &cap, cap, 4));
    assert_int_equal(cap, SIZE_MAX / 8 + 1);
    assert_int_equal(d.worst, ST_RUNTIME);
    diag_finish(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_records_in_order),
        cmocka_unit_test(test_pass_budget),
        cmocka_unit_test(test_grow_past_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
