/* test_emit_local_readers.c: the walk over the compute blocks on a given core that read a
 * storage block (backend/emit_local_readers.c) on a graph made by hand: one storage block,
 * seven edges out of it (to compute blocks on two cores, one of them twice, to a removed
 * block, to an OUTPUT and to another storage block on the same core): each core's readers
 * in edge order with their edge, phase and slot, the edge to no block and the readers of
 * another kind passed over, a core with none, a block without out-edges, and a walk that
 * is done stays done.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "graphbuild.h"
#include "backend/emit_internal.h"

/* Walks the compute blocks on core k reading block s and checks what it gives, in order: n
 * rows {edge index in s's out_edges, reader, phase, slot}. */
static void check(const Emit *e, uint32_t s, uint32_t k, size_t n, const int32_t (*want)[4])
{
    size_t got = 0;
    ELocalReaders it = emit_local_readers(s, k);
    while (emit_local_readers_next(e, &it)) {
        assert_true(got < n);
        const BlockUses *bu = &e->uses.blocks[s];
        assert_ptr_equal(it.ed, e->g->edges[bu->out_edges[it.j]]);
        assert_int_equal(graph_block_pos(e->g, it.ed->dst), (long)it.r);
        assert_int_equal(e->core_of[it.r], k);
        assert_int_equal(it.j, want[got][0]);
        assert_int_equal(it.r, want[got][1]);
        assert_int_equal(it.phase, want[got][2]);
        assert_int_equal(it.slot, want[got][3]);
        got++;
    }
    assert_int_equal(got, n);
    assert_false(emit_local_readers_next(e, &it)); /* done stays done */
}

static void test_walk(void **state)
{
    (void)state;
    const int32_t sh[TIR_NDIMS] = {2, 3, 4, 0, 0, 0, 2, 3};
    Graph *g = graph_create();
    assert_non_null(g);
    Block *s = tg_blk(g, BT_SI, "s", PR_INT_8, sh);        /* position 0 */
    Block *a = tg_blk(g, BT_CCMPB, "a", PR_INT_8, sh);     /* 1: core 0 */
    Block *b = tg_blk(g, BT_CCMPB, "b", PR_INT_8, sh);     /* 2: core 1 */
    Block *gone = tg_blk(g, BT_CCMPB, "gone", PR_INT_8, sh); /* 3: removed below */
    Block *out = tg_io(g, BT_OUTPUT, "out", PR_INT_8, sh, 0); /* 4: core 0 */
    Block *t = tg_blk(g, BT_SI, "t", PR_INT_8, sh);        /* 5: core 0 */
    Block *c = tg_blk(g, BT_CADD, "c", PR_INT_8, sh);      /* 6: core 0 */
    tg_join(g, s, 0, a, 0); /* out-edge 0 */
    tg_join(g, s, 0, b, 0);
    tg_join(g, s, 0, gone, 0);
    tg_join(g, s, 0, out, 0);
    tg_join(g, s, 0, t, 0);
    tg_join(g, s, 0, c, 0);
    tg_join(g, s, 0, a, 1); /* out-edge 6: into a again */
    gone->removed = true;   /* its edge's end is no block */
    GraphUses u;
    assert_true(graph_uses(g, &u));
    assert_int_equal(u.blocks[0].n_out_edges, 7);
    uint32_t core_of[7] = {0, 0, 1, 0, 0, 0, 0};
    int32_t phase_of[7] = {0, 3, 2, 1, 0, 0, 1};
    int32_t slot_of[7] = {0, MAP_PI_AXON, MAP_PI_SOMA1, MAP_PI_AXON, 0, 0, MAP_PI_SOMA2};
    Emit e = {.g = g, .uses = u, .core_of = core_of, .phase_of = phase_of, .slot_of = slot_of};
    /* core 0: a, (b on core 1, gone, out, t passed over), c, a again */
    const int32_t on0[3][4] = {{0, 1, 3, MAP_PI_AXON}, {5, 6, 1, MAP_PI_SOMA2},
                               {6, 1, 3, MAP_PI_AXON}};
    check(&e, 0, 0, 3, on0);
    /* core 1: b */
    const int32_t on1[1][4] = {{1, 2, 2, MAP_PI_SOMA1}};
    check(&e, 0, 1, 1, on1);
    /* a core with no reader; a block without out-edges */
    check(&e, 0, 2, 0, NULL);
    check(&e, 4, 0, 0, NULL);
    graph_uses_finish(&u);
    graph_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_walk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
