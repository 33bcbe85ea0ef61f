/* test_div_map.c: the sign-magnitude division (docs/lowering.md, "Division, sign-magnitude")
 * on the chip: its centred table index read by P07 (the simulator with the chip's
 * arithmetic), and its maps cut by the default passes to fit the chip's cores as the mapper
 * counts them (docs/passes.md, "split"; taskir-map's steps on the lowered graph); and the
 * restoring division of 32-bit values, which the chip-exactness rewrites take whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "difftest.h"
#include "mapper/mapper.h"
#include "passes/manager.h"
#include "taskir/chip.h"
#include "taskir/exact.h"
#include "taskir/sim.h"
#include "taskir/verify.h"

#include <stdlib.h>

/* a / b (relu(a) / b when relu_a, over relu(b) when relu_b) for the n values va, vb as two
 * inputs of precision p and shape (1, rows, n / rows), lowered into *g with the default chip
 * in *c (m's diagnostics; dt_end(m) after). */
static void div_lowered_p(DtModel *m, DtRng *r, const int32_t *va, const int32_t *vb,
                          int64_t rows, int64_t n, int32_t p, bool relu_a, bool relu_b, Graph **g,
                          Chip **c)
{
    dt_begin(m, r);
    int32_t a = dt_input(m, "data", DT_ND(1, rows, n / rows), p);
    int32_t b = dt_input(m, "data2", DT_ND(1, rows, n / rows), p);
    dt_set_input(m, 0, va);
    dt_set_input(m, 1, vb);
    if (relu_a)
        a = dt_op(m, CVM_OP_relu, "ra", DT_INS(a), NULL);
    if (relu_b)
        b = dt_op(m, CVM_OP_relu, "rb", DT_INS(b), NULL);
    dt_op(m, CVM_OP_broadcast_div, "div", DT_INS(a, b), NULL);
    dt_output(m, m->last->id, 0);
    assert_int_equal(fe_lower(m->g, NULL, g, &m->d), ST_OK);
    assert_int_equal(chip_load_default(c, &m->d), ST_OK);
}

/* relu(a) / b (over relu(b) when relu_b) at precision 9: div_lowered_p. */
static void div_lowered(DtModel *m, DtRng *r, const int32_t *va, const int32_t *vb, int64_t rows,
                        int64_t n, bool relu_b, Graph **g, Chip **c)
{
    div_lowered_p(m, r, va, vb, rows, n, 9, true, relu_b, g, c);
}

/* The chip's arithmetic (sim_use_chip) on g for inputs va, vb (n each) gives C's truncating
 * quotients (0 for b = 0). */
static void chip_quotients(DtModel *m, const Graph *g, const Chip *c, const int32_t *va,
                           const int32_t *vb, int64_t n)
{
    SimOptions so = {.threads = 1, .steps = 1};
    SimRun *run = NULL;
    assert_int_equal(sim_create(g, &so, &run, &m->d), ST_OK);
    sim_use_chip(run, c);
    assert_int_equal(sim_set_input(run, 0, va, n, &m->d), ST_OK);
    assert_int_equal(sim_set_input(run, 1, vb, n, &m->d), ST_OK);
    assert_int_equal(sim_step(run, &m->d), ST_OK);
    int64_t count = 0;
    const int32_t *q = sim_output(run, 0, &count);
    assert_int_equal(count, n);
    for (int64_t i = 0; i < n; i++)
        if (q[i] != (vb[i] ? va[i] / vb[i] : 0))
            fail_msg("%d / %d: the chip gives %d", va[i], vb[i], q[i]);
    sim_destroy(run);
}

/* The quotient table of relu(a) / relu(b) at precision 9 (0 .. 255 each: 2^16 entries) is
 * read at the centred index a * 256 + b - 32768: P07 reads an index signed and saturates it
 * to -32768 .. 32767, so positions a * 256 + b past 32767 (a >= 128) must still read their
 * own quotient on the chip. The lowered graph has no map.exact.clip finding on the default
 * chip, and the simulator with the chip's arithmetic (sim_use_chip, taskir-run
 * --chip-exact) gives C's quotients at the positions 0, 1, 32767, 32768, 32769 and 65535
 * and around them. */
static void test_broadcast_div_centred(void **state)
{
    (void)state;
    static const int32_t va[] = {0, 0, 127, 127, 128, 128, 128, 255, 255, 200, 129, 1},
                         vb[] = {0, 1, 255, 254, 0, 1, 2, 255, 1, 7, 3, 1};
    enum { N = sizeof va / sizeof va[0] };
    DtRng r = {63};
    DtModel m;
    Graph *tg = NULL;
    Chip *c = NULL;
    div_lowered(&m, &r, va, vb, 1, N, true, &tg, &c);
    ExactInfo x;
    Diag xd;
    diag_init(&xd, "div");
    assert_int_equal(exact_analyse(tg, &x, &xd), ST_OK);
    exact_check(tg, c, &x, ST_LOGIC, &xd);
    assert_true(diag_find(&xd, "map.exact.clip") < 0);
    exact_finish(&x);
    diag_finish(&xd);
    chip_quotients(&m, tg, c, va, vb, N);
    chip_destroy(c);
    graph_destroy(tg);
    dt_end(&m);
}

/* relu(a) / b for every a of 0 .. 255 and b of -255 .. 255 (256 rows of 511): CLUT pieces
 * of 511 channels write rows of 512 (the pitch of the index they read); the CCMPS of the
 * sign's selection reading 32 of those channels holds its input in rows of 512 too
 * (bbox_storage_bytes: 2 x 256 pixels x 512 x 4 B = 1 MiB for a piece of 256 pixels). Fit
 * mode counts that pitch and cuts the piece further, so the mapper finds every group inside
 * a core (no map.mem.group). */
static void test_div_pitch_fits(void **state)
{
    (void)state;
    enum { NA = 256, NB = 511, N = NA * NB };
    int32_t *va = malloc(N * sizeof *va), *vb = malloc(N * sizeof *vb);
    assert_true(va && vb);
    for (int i = 0; i < N; i++) {
        va[i] = i / NB;
        vb[i] = i % NB - 255;
    }
    DtRng r = {64};
    DtModel m;
    Graph *g = NULL;
    Chip *c = NULL;
    div_lowered(&m, &r, va, vb, NA, N, false, &g, &c);
    Diag d;
    diag_init(&d, "div");
    uint32_t n = 0;
    assert_int_equal(mapper_exact(g, c, &n, &d), ST_OK);
    PassPlan plan;
    assert_int_equal(pass_plan_parse(pass_default_list, &plan, &d), ST_OK);
    PassOptions po = {.chip = c};
    PassRunOptions ro = {0};
    assert_int_equal(pass_plan_run(&plan, g, &po, &ro, &d), ST_OK);
    pass_plan_finish(&plan);
    assert_int_equal(verify_graph(g, &d), ST_OK);
    assert_int_equal(mapper_rewrite(g, c, &n, &d), ST_OK);
    MapperOptions mo;
    mapper_options_default(&mo);
    MapPlan *mp = NULL;
    Status st = mapper_plan(g, c, &mo, &mp, &d);
    if (st != ST_OK)
        diag_print(&d, stderr, "test_div_map");
    assert_int_equal(st, ST_OK);
    assert_true(diag_find(&d, "map.mem.group") < 0);
    mapper_plan_destroy(mp);
    diag_finish(&d);
    chip_destroy(c);
    graph_destroy(g);
    dt_end(&m);
    free(va), free(vb);
}

/* a / b of two 32-bit values (docs/lowering.md, "Division, restoring": a dividend of 32
 * bits in steps whose ranges alone stay in int32): every pair of the int32 extremes, 0 and
 * small values (test_diff_ops' div_32x32_extremes). The chip-exactness rewrites leave no
 * finding (the form for narrower dividends, whose t B 2^i only the relation t = 1 => B 2^i
 * <= R keeps in int32, was map.exact.overflow and map.prim.prec), and the rewritten graph
 * gives C's quotients with the chip's arithmetic. */
static void test_div_wide_exact(void **state)
{
    (void)state;
    static const int32_t xa[] = {INT32_MAX, -INT32_MAX, 0, 1, -1, 12345678, -7, 65536, 46340};
    static const int32_t xb[] = {1, -1, 0, INT32_MAX, -INT32_MAX, 3, -65536, 46341, 2, -7};
    enum { NA = 9, NB = 10, N = NA * NB };
    int32_t va[N], vb[N];
    for (int i = 0; i < N; i++) {
        va[i] = xa[i / NB];
        vb[i] = xb[i % NB];
    }
    DtRng r = {65};
    DtModel m;
    Graph *g = NULL;
    Chip *c = NULL;
    div_lowered_p(&m, &r, va, vb, NA, N, 32, false, false, &g, &c);
    Diag d;
    diag_init(&d, "div");
    uint32_t n = 0;
    Status st = mapper_exact(g, c, &n, &d);
    if (st != ST_OK)
        diag_print(&d, stderr, "test_div_map");
    assert_int_equal(st, ST_OK);
    assert_int_equal(verify_graph(g, &d), ST_OK);
    diag_finish(&d);
    chip_quotients(&m, g, c, va, vb, N);
    chip_destroy(c);
    graph_destroy(g);
    dt_end(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_broadcast_div_centred),
        cmocka_unit_test(test_div_pitch_fits),
        cmocka_unit_test(test_div_wide_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
