/* test_emit_local_outs.c: the walk over a writer's out-edges whose storage block has a copy
 * on a given core (backend/emit_local_outs.c) on a graph made by hand: one writer, five
 * edges (one to a removed block, two into the same storage), copies on two cores: each
 * core's copies in edge order with their edge and storage, the edge to no block and the
 * storage without a copy there passed over, a core with none, a writer without out-edges,
 * and a walk that is done stays done.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "graphbuild.h"
#include "backend/emit_internal.h"

/* Walks w's out-edges with a copy on core k and checks what it gives, in order: n triples
 * {edge index in w's out_edges, storage block, index of the copy in e->copies}. */
static void check(const Emit *e, uint32_t w, uint32_t k, size_t n, const uint32_t (*want)[3])
{
    size_t got = 0;
    ELocalOuts it = emit_local_outs(w, k);
    for (ECopy *cp; (cp = emit_local_outs_next(e, &it));) {
        assert_true(got < n);
        const BlockUses *bu = &e->uses.blocks[w];
        assert_ptr_equal(it.ed, e->g->edges[bu->out_edges[it.j]]);
        assert_int_equal(graph_block_pos(e->g, it.ed->dst), (long)it.s);
        assert_int_equal(cp->block, it.s);
        assert_int_equal(cp->core, k);
        assert_int_equal(it.j, want[got][0]);
        assert_int_equal(it.s, want[got][1]);
        assert_int_equal(cp - e->copies, want[got][2]);
        got++;
    }
    assert_int_equal(got, n);
    assert_null(emit_local_outs_next(e, &it)); /* done stays done */
}

static void test_walk(void **state)
{
    (void)state;
    const int32_t sh[TIR_NDIMS] = {2, 3, 4, 0, 0, 0, 2, 3};
    Graph *g = graph_create();
    assert_non_null(g);
    Block *w = tg_blk(g, BT_CCMPB, "w", PR_INT_8, sh);      /* position 0 */
    Block *s0 = tg_blk(g, BT_SI, "s0", PR_INT_8, sh);       /* 1 */
    Block *gone = tg_blk(g, BT_SI, "gone", PR_INT_8, sh);   /* 2: removed below */
    Block *s1 = tg_blk(g, BT_SI, "s1", PR_INT_8, sh);       /* 3 */
    Block *s2 = tg_blk(g, BT_SI, "s2", PR_INT_8, sh);       /* 4 */
    tg_join(g, w, 0, s0, 0); /* out-edge 0 */
    tg_join(g, w, 0, gone, 0);
    tg_join(g, w, 0, s1, 0);
    tg_join(g, w, 0, s2, 0);
    tg_join(g, w, 0, s0, 1); /* out-edge 4: into s0 again */
    gone->removed = true;    /* its edge's end is no block */
    GraphUses u;
    assert_true(graph_uses(g, &u));
    assert_int_equal(u.blocks[0].n_out_edges, 5);
    /* copies: s0 on cores 0 and 1, s1 on core 1, s2 on core 0 */
    ECopy copies[4] = {{.block = 1, .core = 0}, {.block = 1, .core = 1},
                       {.block = 3, .core = 1}, {.block = 4, .core = 0}};
    uint32_t first[5] = {0, 0, 2, 2, 3}, n_copy[5] = {0, 2, 0, 1, 1};
    Emit e = {.g = g, .uses = u, .copies = copies, .n_copies = 4, .first_copy = first,
              .n_copy = n_copy};
    /* core 0: s0, (gone, s1 passed over), s2, s0 again */
    const uint32_t on0[3][3] = {{0, 1, 0}, {3, 4, 3}, {4, 1, 0}};
    check(&e, 0, 0, 3, on0);
    /* core 1: s0, s1, s0 again */
    const uint32_t on1[3][3] = {{0, 1, 1}, {2, 3, 2}, {4, 1, 1}};
    check(&e, 0, 1, 3, on1);
    /* a core with no copy; a writer without out-edges */
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
