/* test_fold.c: the fold pass (passes/fold.c, docs/passes.md "fold") on a graph worked by
 * hand: an input of 1 x 2 x 3 flattened channel-major into a vector of 6 that one CVM reads.
 * The flatten takes element i = c * 2 + x from the map's value x * 3 + c, so
 * map = [0, 3, 1, 4, 2, 5]; after the fold the vector holds the map in C order and the
 * weight column i has moved to column map[i]: row [1 2 3 4 5 6] becomes [1 3 5 2 4 6].
 * The outputs are the same bit for bit; a vector that another block reads too stays. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "passes/pass.h"
#include "passtest.h"

enum { SEEDS = 3 };

/* INPUT 1 x 2 x 3 -> PERMUTE [2,0,1] -> SIFC v (r 6) -> CVM fc (2 x 6) -> SI -> OUTPUT;
 * with `also`, v feeds an OUTPUT of its own too. */
static Graph *flatten_fc(bool also)
{
    Graph *g = graph_create();
    assert_non_null(g);
    Block *in = pt_io(g, BT_INPUT, 1, 2, 3, 0);
    Block *v = pt_blk(g, BT_SIFC, 0, 0, 0, "v");
    v->shape.d[D_R] = 6;
    v->prec = PR_INT_8;
    const int32_t p[3] = {2, 0, 1};
    pt_step(g, graph_connect(g, in, 0, v, 0), RT_PERMUTE, p, 3);
    Block *w = pt_blk(g, BT_SWFC, 0, 0, 2, "w");
    w->shape.d[D_R] = 6;
    w->prec = PR_INT_8;
    const int32_t wd[2] = {2, 6};
    const int64_t wv[12] = {1, 2, 3, 4, 5, 6, 10, 20, 30, 40, 50, 60};
    assert_true(blk_set_data(g, w, PR_INT_8, wd, 2, wv, 12));
    Block *fc = pt_blk(g, BT_CVM, 0, 0, 2, "fc");
    fc->shape.d[D_R] = 6;
    pt_link(g, v, fc, 0);
    pt_link(g, w, fc, 1);
    Block *s = pt_blk(g, BT_SI, 0, 0, 2, "s"), *o = pt_io(g, BT_OUTPUT, 0, 0, 2, 0);
    pt_link(g, fc, s, 0);
    pt_link(g, s, o, 0);
    if (also) {
        Block *o2 = pt_io(g, BT_OUTPUT, 0, 0, 6, 1);
        o2->shape.d[D_F] = 0;
        o2->shape.d[D_R] = 6;
        o2->prec = PR_INT_8;
        pt_link(g, v, o2, 0);
    }
    pt_verify(g);
    return g;
}

/* Runs fold on g and checks the outputs on SEEDS seeds stay the same. */
static void fold_same(Graph *g)
{
    int32_t *v[SEEDS];
    int64_t n[SEEDS];
    for (int k = 0; k < SEEDS; k++)
        v[k] = pt_simulate(g, (uint32_t)k + 1, &n[k]);
    Diag d;
    diag_init(&d, NULL);
    Chip *chip = NULL;
    assert_int_equal(chip_load_default(&chip, &d), ST_OK);
    PassOptions o = {.chip = chip};
    assert_int_equal(pass_fold(g, &o, &d), ST_OK);
    diag_finish(&d);
    chip_destroy(chip);
    pt_verify(g);
    pt_assert_same(g, (const int32_t *const *)v, n, SEEDS, "fold");
    for (int k = 0; k < SEEDS; k++)
        free(v[k]);
}

static void test_fold_flatten(void **state)
{
    (void)state;
    Graph *g = flatten_fc(false);
    fold_same(g);
    const Edge *e = pt_edge_between(g, pt_by_name(g, "x"), pt_by_name(g, "v"));
    assert_non_null(e);
    assert_int_equal(e->n_re, 1);
    assert_int_equal(e->re[0].type, RT_RESHAPE);
    assert_int_equal(e->re[0].n_mats, 0);
    const Tensor *t = pt_by_name(g, "w")->data;
    const int32_t want[12] = {1, 3, 5, 2, 4, 6, 10, 30, 50, 20, 40, 60};
    for (size_t i = 0; i < 12; i++)
        assert_int_equal(tensor_i32_at(t, i), want[i]);
    graph_destroy(g);
}

/* An OUTPUT reads the vector too: its values must stay in the flatten's order. */
static void test_fold_other_reader(void **state)
{
    (void)state;
    Graph *g = flatten_fc(true);
    fold_same(g);
    const Edge *e = pt_edge_between(g, pt_by_name(g, "x"), pt_by_name(g, "v"));
    assert_int_equal(e->re[0].type, RT_PERMUTE);
    const Tensor *t = pt_by_name(g, "w")->data;
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(tensor_i32_at(t, i), (int32_t)i + 1);
    graph_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fold_flatten),
        cmocka_unit_test(test_fold_other_reader),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
