/* test_emit_bycore.c: the walks over a core's copies, parts, output buffers and send areas
 * (backend/emit_bycore.c): the same entries in list order whether the list is indexed by
 * core or not, a core with none and a core past the index walked empty or whole, an entry of
 * no core (EMIT_NONE, an unused output buffer) in no core's walk, a send area by its writer's
 * core, and a list grown after its index: its chains, then the entries added since (found),
 * the same once the index is extended by them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "backend/emit_internal.h"

/* The positions walk w gives, into got[] (at most max); how many. */
static size_t positions(const Emit *e, EOnCore w, uint32_t *got, size_t max)
{
    size_t n = 0, i;
    while (emit_on_core_next(e, &w, &i)) {
        assert_true(n < max);
        got[n++] = (uint32_t)i;
    }
    assert_false(emit_on_core_next(e, &w, &i)); /* done stays done */
    return n;
}

static size_t copies_of(const Emit *e, uint32_t k, uint32_t *got, size_t max)
{
    return positions(e, emit_copies_on(e, k), got, max);
}

static void check_copies(const Emit *e)
{
    uint32_t got[8];
    assert_int_equal(copies_of(e, 0, got, 8), 2);
    assert_int_equal(got[0], 1);
    assert_int_equal(got[1], 4);
    assert_int_equal(copies_of(e, 1, got, 8), 0);
    assert_int_equal(copies_of(e, 2, got, 8), 3);
    assert_int_equal(got[0], 0);
    assert_int_equal(got[1], 2);
    assert_int_equal(got[2], 5);
    assert_int_equal(copies_of(e, 3, got, 8), 0); /* no such core */
}

static void test_walks(void **state)
{
    (void)state;
    Diag d;
    diag_init(&d, NULL);
    ECopy copies[8] = {{.core = 2}, {.core = 0}, {.core = 2}, {.core = EMIT_NONE},
                       {.core = 0}, {.core = 2}, {.core = 1}, {.core = 2}};
    EPart parts[3] = {{.core = 1}, {.core = 1}, {.core = 0}};
    Emit e = {.d = &d, .n_cores = 3, .copies = copies, .n_copies = 6, .parts = parts,
              .n_parts = 3};
    check_copies(&e); /* no index: the whole list */
    assert_int_equal(emit_index_copies(&e), ST_OK);
    assert_int_equal(emit_index_parts(&e), ST_OK);
    assert_non_null(emit_copies_on(&e, 0).x); /* indexed */
    check_copies(&e);
    uint32_t got[8];
    assert_int_equal(positions(&e, emit_parts_on(&e, 1), got, 8), 2);
    assert_int_equal(got[0], 0);
    assert_int_equal(got[1], 1);
    assert_int_equal(positions(&e, emit_parts_on(&e, 2), got, 8), 0);
    EOnCore it = emit_parts_on(&e, 0); /* the entries themselves */
    assert_ptr_equal(emit_parts_next(&e, &it), &parts[2]);
    assert_null(emit_parts_next(&e, &it));
    it = emit_copies_on(&e, 0);
    assert_ptr_equal(emit_copies_next(&e, &it), &copies[1]);
    assert_ptr_equal(emit_copies_next(&e, &it), &copies[4]);
    assert_null(emit_copies_next(&e, &it));
    e.n_copies = 8; /* grown since: the chain, then the copies added since, checked */
    for (int pass = 0; pass < 2; pass++) { /* then with the index extended by them */
        assert_non_null(emit_copies_on(&e, 1).x);
        assert_int_equal(copies_of(&e, 1, got, 8), 1);
        assert_int_equal(got[0], 6);
        assert_int_equal(copies_of(&e, 2, got, 8), 4);
        assert_int_equal(got[2], 5);
        assert_int_equal(got[3], 7);
        assert_int_equal(emit_index_copies(&e), ST_OK);
        assert_int_equal(e.copy_idx.n, 8);
    }
    e.n_cores = 4; /* a core past the index: the whole list, checked */
    assert_int_equal(copies_of(&e, 3, got, 8), 0);
    assert_int_equal(d.n, 0);
    emit_by_core_finish(&e.copy_idx);
    emit_by_core_finish(&e.part_idx);
    emit_by_core_finish(&e.part_idx); /* finished twice: fine */
    diag_finish(&d);
}

static void test_outs_and_sendbufs(void **state)
{
    (void)state;
    Diag d;
    diag_init(&d, NULL);
    Graph g = {.n_blocks = 4};
    EOut outs[4] = {{.core = 1, .used = true}, {.core = 1}, {.core = 0, .used = true},
                    {.core = 1, .used = true}};
    uint32_t core_of[4] = {1, 0, 0, 1};
    ESendBuf sbs[3] = {{.writer = 3}, {.writer = 1}, {.writer = 0}};
    Emit e = {.d = &d, .g = &g, .n_cores = 2, .outs = outs, .core_of = core_of,
              .sendbufs = sbs, .n_sendbufs = 3};
    for (int pass = 0; pass < 2; pass++) { /* whole, then indexed */
        uint32_t got[8];
        assert_int_equal(positions(&e, emit_outs_on(&e, 1), got, 8), 2); /* 1 unused */
        assert_int_equal(got[0], 0);
        assert_int_equal(got[1], 3);
        assert_int_equal(positions(&e, emit_outs_on(&e, 0), got, 8), 1);
        assert_int_equal(got[0], 2);
        assert_int_equal(positions(&e, emit_sendbufs_on(&e, 1), got, 8), 2);
        assert_int_equal(got[0], 0);
        assert_int_equal(got[1], 2);
        assert_int_equal(positions(&e, emit_sendbufs_on(&e, 0), got, 8), 1);
        assert_int_equal(got[0], 1);
        assert_int_equal(emit_index_outs(&e), ST_OK);
        assert_int_equal(emit_index_sendbufs(&e), ST_OK);
        assert_non_null(emit_outs_on(&e, 0).x);
    }
    emit_by_core_finish(&e.out_idx);
    emit_by_core_finish(&e.sendbuf_idx);
    diag_finish(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_walks),
        cmocka_unit_test(test_outs_and_sendbufs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
