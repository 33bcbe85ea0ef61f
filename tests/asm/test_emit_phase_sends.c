/* test_emit_phase_sends.c: the walk over every core's sends of one phase
 * (backend/emit_phase_sends.c) on three cores made by hand: the cores in order, each core's
 * sends in order, a core with fewer phases or no sends passed over, the chains' other sends
 * (chain_rest) after a core's own only when asked, and a walk that is done stays done.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "backend/emit_internal.h"

/* The dst_addr of every send the walk over phase p gives, into got[] (at most max), and the
 * sending cores into from[]; the number given. */
static size_t walk(const Emit *e, int32_t p, bool rest, int64_t *got, uint32_t *from,
                   size_t max)
{
    size_t n = 0;
    EPhaseSends it = emit_phase_sends(p, rest);
    for (const ESend *s; (s = emit_phase_sends_next(e, &it));) {
        assert_true(n < max);
        assert_ptr_equal(it.ph, &e->cores[it.k].ph[p]);
        from[n] = it.k;
        got[n++] = s->dst_addr;
    }
    assert_null(emit_phase_sends_next(e, &it)); /* done stays done */
    return n;
}

static void test_walk(void **state)
{
    (void)state;
    ESend a[2] = {{.dst_addr = 10}, {.dst_addr = 11}}, b[1] = {{.dst_addr = 20}};
    ESend c[1] = {{.dst_addr = 30}}, rest[2] = {{.dst_addr = 31}, {.dst_addr = 32}};
    ESend d[1] = {{.dst_addr = 40}};
    EPhase ph0[2] = {{.sends = b, .n_sends = 1}, {.sends = a, .n_sends = 2}};
    EPhase ph1[1] = {{.sends = d, .n_sends = 1}};
    EPhase ph2[3] = {{.n_sends = 0},
                     {.sends = c, .n_sends = 1, .chain_rest = rest, .n_chain_rest = 2},
                     {.n_sends = 0}};
    ECore cores[4] = {{.n_phases = 2, .ph = ph0}, {.n_phases = 1, .ph = ph1},
                      {.n_phases = 0}, {.n_phases = 3, .ph = ph2}};
    Emit e = {.cores = cores, .n_cores = 4};
    int64_t got[8];
    uint32_t from[8];
    /* phase 1: core 0's two, core 1 has no phase 1, core 2 none at all, core 3's one */
    assert_int_equal(walk(&e, 1, false, got, from, 8), 3);
    assert_int_equal(got[0], 10);
    assert_int_equal(got[1], 11);
    assert_int_equal(got[2], 30);
    assert_int_equal(from[0], 0);
    assert_int_equal(from[2], 3);
    /* with the chains' other sends, after core 3's own */
    assert_int_equal(walk(&e, 1, true, got, from, 8), 5);
    assert_int_equal(got[2], 30);
    assert_int_equal(got[3], 31);
    assert_int_equal(got[4], 32);
    assert_int_equal(from[4], 3);
    /* phase 0: cores 0 and 1; core 3 sends nothing then */
    assert_int_equal(walk(&e, 0, true, got, from, 8), 2);
    assert_int_equal(got[0], 20);
    assert_int_equal(got[1], 40);
    assert_int_equal(from[1], 1);
    /* phase 2: core 3 has it, empty; past every core's phases: none */
    assert_int_equal(walk(&e, 2, true, got, from, 8), 0);
    assert_int_equal(walk(&e, 7, false, got, from, 8), 0);
    Emit none = {.n_cores = 0};
    assert_int_equal(walk(&none, 0, true, got, from, 8), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_walk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
