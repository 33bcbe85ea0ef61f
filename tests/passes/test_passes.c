/* test_passes.c: the pass framework (passes/manager.h, table.c, groups.h) and the passes dce
 * and group on the example graph lenet.pb ($TASKIR_BUILDDIR/examples) with parts added by
 * hand: a dead branch, an INPUT feeding only dead blocks, groups already there. Every
 * rewritten graph must pass the verifier and give the simulator's outputs of the original. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "passes/groups.h"
#include "passes/manager.h"
#include "taskir/pbio.h"
#include "taskir/print.h"
#include "taskir/sim.h"
#include "taskir/verify.h"

static PassOptions popts; /* the default chip (main) */

static Graph *lenet(void)
{
    const char *dir = getenv("TASKIR_BUILDDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/examples/lenet.pb", dir ? dir : ".");
    Diag d;
    diag_init(&d, path);
    Graph *g = NULL;
    if (graph_load_pb(path, &g, &d) != ST_OK)
        diag_print(&d, stderr, "test_passes");
    diag_finish(&d);
    assert_non_null(g);
    return g;
}

static void assert_valid(const Graph *g)
{
    Diag d;
    diag_init(&d, "test");
    Status st = verify_graph(g, &d);
    if (st != ST_OK)
        diag_print(&d, stderr, "test_passes");
    diag_finish(&d);
    assert_int_equal(st, ST_OK);
}

/* The outputs of g on a fixed input per INPUT block (values 0..n-1 modulo 7, minus 3). */
static SimResult simulate(const Graph *g)
{
    Diag d;
    diag_init(&d, "test");
    SimRun *run = NULL;
    assert_int_equal(sim_create(g, &(SimOptions){0}, &run, &d), ST_OK);
    for (uint32_t k = 0; k < sim_n_inputs(run); k++) {
        int64_t shape[NPY_MAX_DIMS], n = 1;
        uint32_t nd = sim_input_shape(run, k, shape);
        for (uint32_t i = 0; i < nd; i++)
            n *= shape[i];
        int32_t *v = malloc((size_t)n * sizeof *v);
        assert_non_null(v);
        for (int64_t i = 0; i < n; i++)
            v[i] = (int32_t)(i % 7) - 3;
        assert_int_equal(sim_set_input(run, k, v, n, &d), ST_OK);
        free(v);
    }
    assert_int_equal(sim_step(run, &d), ST_OK);
    SimResult r = {0};
    r.n_outputs = sim_n_outputs(run);
    r.outputs = calloc(r.n_outputs + 1, sizeof *r.outputs);
    assert_non_null(r.outputs);
    for (uint32_t k = 0; k < r.n_outputs; k++) {
        int64_t n;
        const int32_t *o = sim_output(run, k, &n);
        r.outputs[k].count = n;
        r.outputs[k].data = malloc((size_t)n * sizeof(int32_t) + 1);
        assert_non_null(r.outputs[k].data);
        memcpy(r.outputs[k].data, o, (size_t)n * sizeof(int32_t));
    }
    sim_destroy(run);
    diag_finish(&d);
    return r;
}

static void assert_same_outputs(SimResult *a, SimResult *b)
{
    assert_int_equal(a->n_outputs, b->n_outputs);
    for (uint32_t k = 0; k < a->n_outputs; k++) {
        assert_int_equal(a->outputs[k].count, b->outputs[k].count);
        assert_memory_equal(a->outputs[k].data, b->outputs[k].data,
                            (size_t)a->outputs[k].count * sizeof(int32_t));
    }
    sim_result_free(a);
    sim_result_free(b);
}

static Status run_pass(const char *name, Graph *g, Diag *d)
{
    const PassInfo *pi = pass_find(name);
    assert_non_null(pi);
    return pi->run(g, &popts, d);
}

/* ---- the table and the plan ---- */

static void test_table(void **state)
{
    (void)state;
    size_t n;
    const PassInfo *t = pass_table(&n);
    assert_true(n >= 2);
    for (size_t i = 0; i < n; i++) {
        assert_non_null(t[i].run);
        assert_non_null(t[i].summary);
        assert_ptr_equal(pass_find(t[i].name), &t[i]);
        for (size_t k = 0; k < i; k++)
            assert_string_not_equal(t[i].name, t[k].name);
    }
    assert_null(pass_find("nope"));
    /* the default list parses and meets its own requirements */
    PassPlan p;
    Diag d;
    diag_init(&d, NULL);
    assert_int_equal(pass_plan_parse(pass_default_list, &p, &d), ST_OK);
    assert_true(p.n >= 2);
    assert_true(pass_plan_has(&p, "dce"));
    pass_plan_finish(&p);
    /* blanks around the names are read past */
    assert_int_equal(pass_plan_parse(" dce , group", &p, &d), ST_OK);
    assert_int_equal(p.n, 2);
    assert_string_equal(p.passes[1]->name, "group");
    assert_true(pass_plan_has(&p, "group"));
    assert_false(pass_plan_has(&p, "nope"));
    pass_plan_finish(&p);
    diag_finish(&d);
}

static void expect_usage(const char *list, const char *rule, const char *text)
{
    PassPlan p;
    Diag d;
    diag_init(&d, NULL);
    assert_int_equal(pass_plan_parse(list, &p, &d), ST_USAGE);
    assert_int_equal(d.n, 1);
    assert_string_equal(d.entries[0].rule, rule);
    if (!strstr(d.entries[0].what, text))
        fail_msg("'%s' lacks '%s'", d.entries[0].what, text);
    assert_null(p.passes);
    diag_finish(&d);
}

static void test_plan_errors(void **state)
{
    (void)state;
    expect_usage("", "usage.passes", "the pass list is empty");
    expect_usage("dce,,group", "usage.passes", "an empty name in the pass list 'dce,,group'");
    expect_usage("dce,", "usage.passes", "an empty name");
    expect_usage("dce,fuze", "usage.passes", "unknown pass 'fuze' in the pass list");
    expect_usage("dce,fuze", "usage.passes", "(passes: dce, ");
}

static Status nop(Graph *g, const PassOptions *o, Diag *d)
{
    (void)g, (void)o, (void)d;
    return ST_OK;
}

static void test_plan_requires(void **state)
{
    (void)state;
    const PassInfo a = {"a", "needs grouped", PROP_GROUPED, PROP_FITS, 0, nop};
    const PassInfo b = {"b", "breaks grouped", 0, 0, PROP_GROUPED, nop};
    const PassInfo *grp = pass_find("group");
    Diag d;
    diag_init(&d, NULL);
    const PassInfo *ok[] = {grp, &a, &a};
    assert_int_equal(pass_plan_check(ok, 3, &d), ST_OK);
    const PassInfo *first[] = {&a, grp};
    assert_int_equal(pass_plan_check(first, 2, &d), ST_USAGE);
    assert_string_equal(d.entries[0].rule, "usage.passes.requires");
    assert_string_equal(d.entries[0].what, "pass 'a' requires the property 'grouped', which "
                        "no pass before it in the list guarantees (put 'group' before it)");
    diag_finish(&d);
    diag_init(&d, NULL);
    const PassInfo *broken[] = {grp, &b, &a};
    assert_int_equal(pass_plan_check(broken, 3, &d), ST_USAGE);
    assert_non_null(strstr(d.entries[0].what, "pass 'a' requires"));
    diag_finish(&d);
    char buf[64];
    assert_string_equal(pass_props_name(0, buf, sizeof buf), "-");
    assert_string_equal(pass_props_name(PROP_FITS | PROP_GROUPED, buf, sizeof buf),
                        "fits,grouped");
}

static void test_dump_after(void **state)
{
    (void)state;
    PassPlan p;
    Diag d;
    diag_init(&d, NULL);
    assert_int_equal(pass_plan_parse("dce,group,dce", &p, &d), ST_OK);
    assert_int_equal(pass_plan_dump_after(&p, "dce", &d), ST_OK);
    assert_true(p.dump[0] && !p.dump[1] && p.dump[2]);
    assert_int_equal(pass_plan_dump_after(&p, "all", &d), ST_OK);
    assert_true(p.dump[1]);
    assert_int_equal(pass_plan_dump_after(&p, "dce,split", &d), ST_USAGE);
    assert_string_equal(d.entries[0].rule, "usage.dump");
    /* the run: a header and the text dump after the chosen passes, stats per pass */
    memset(p.dump, 0, p.n * sizeof *p.dump);
    p.dump[1] = true;
    Graph *g = lenet();
    char *buf = NULL;
    size_t len = 0;
    FILE *ms = open_memstream(&buf, &len);
    assert_non_null(ms);
    PassStat st[3];
    PassRunOptions ro = {.verify_each = true, .dump = ms, .stats = st};
    assert_int_equal(pass_plan_run(&p, g, &popts, &ro, &d), ST_OK);
    fclose(ms);
    assert_non_null(strstr(buf, "# after pass 'group' (2 of 3)\ntaskgraph: 25 blocks, 24 "
                            "edges, 7 groups\n"));
    assert_null(strstr(buf, "after pass 'dce'"));
    assert_int_equal(st[1].groups[0], 0);
    assert_int_equal(st[1].groups[1], 7);
    assert_int_equal(st[0].blocks[1], 25);
    free(buf);
    graph_destroy(g);
    pass_plan_finish(&p);
    diag_finish(&d);
}

/* A pass that breaks the graph: it drops the last edge's source interface. */
static Status breaker(Graph *g, const PassOptions *o, Diag *d)
{
    (void)o, (void)d;
    Block *b = graph_block(g, g->edges[g->n_edges - 1]->src);
    cluster_remove_iface(&b->out[0], 0);
    return ST_OK;
}

static void test_verify_each(void **state)
{
    (void)state;
    const PassInfo bad = {"breaker", "breaks the graph", 0, 0, 0, breaker};
    const PassInfo *list[] = {pass_find("dce"), &bad};
    bool dump[2] = {false, false};
    PassPlan p = {.passes = list, .n = 2, .dump = dump};
    Graph *g = lenet();
    Diag d;
    diag_init(&d, NULL);
    PassRunOptions ro = {.verify_each = true};
    assert_int_equal(pass_plan_run(&p, g, &popts, &ro, &d), ST_RUNTIME);
    assert_string_equal(d.entries[0].rule, "pass.verify");
    assert_non_null(strstr(d.entries[0].what, "after pass 'breaker' the graph breaks"));
    assert_true(d.n >= 2);
    assert_non_null(strstr(d.entries[1].what, "after pass 'breaker': "));
    diag_finish(&d);
    graph_destroy(g);
    /* without --verify-each the manager does not look */
    g = lenet();
    diag_init(&d, NULL);
    ro.verify_each = false;
    assert_int_equal(pass_plan_run(&p, g, &popts, &ro, &d), ST_OK);
    diag_finish(&d);
    graph_destroy(g);
}

/* ---- dce ---- */

/* Adds to lenet a dead branch (a copy of pool1 reading conv1/out into a copy of conv2/in
 * that nothing reads) and a second INPUT whose only consumer is dead. */
static void add_dead(Graph *g)
{
    Block *pool = graph_clone_block(g, graph_block(g, 7), "dead");
    Block *sic = graph_clone_block(g, graph_block(g, 8), "dead");
    assert_non_null(graph_connect(g, graph_block(g, 6), 0, pool, 0));
    assert_non_null(graph_connect(g, pool, 0, sic, 0));
    Block *in = graph_clone_block(g, graph_block(g, 1), "second");
    in->socket_id = 1;
    Block *sic2 = graph_clone_block(g, graph_block(g, 2), "second");
    assert_non_null(graph_connect(g, in, 0, sic2, 0));
    assert_valid(g);
}

static void test_dce(void **state)
{
    (void)state;
    Graph *g = lenet();
    add_dead(g);
    /* groups: pool1's copy with conv1/out (dropped: its compute block dies), conv1's */
    GroupMap m;
    assert_true(group_map_build(g, &m));
    assert_int_equal(group_add(g, &m, (const int32_t[]){28}, 1), 0); /* the copy of pool1 */
    assert_int_equal(group_add(g, &m, (const int32_t[]){5, 2, 3}, 3), 1);
    group_map_finish(&m);
    SimResult before = simulate(g);
    Diag d;
    diag_init(&d, NULL);
    assert_int_equal(run_pass("dce", g, &d), ST_OK);
    assert_valid(g);
    assert_int_equal(g->n_blocks, 25 + 1);        /* the second INPUT stays */
    assert_int_equal(g->n_edges, 24);
    assert_non_null(graph_block(g, 1));
    const Block *in2 = g->blocks[g->n_blocks - 1];
    assert_int_equal(in2->type, BT_INPUT);
    assert_int_equal(in2->out[0].n_ifaces, 0);
    assert_int_equal(graph_block(g, 6)->out[0].n_ifaces, 1);
    assert_int_equal(g->n_groups, 1);
    assert_int_equal(g->groups[0].id, 1);
    SimResult after = simulate(g);
    assert_same_outputs(&before, &after);
    /* dce on a graph without dead blocks changes nothing */
    assert_int_equal(run_pass("dce", g, &d), ST_OK);
    assert_int_equal(g->n_blocks, 26);
    diag_finish(&d);
    graph_destroy(g);
}

static void test_dce_no_output(void **state)
{
    (void)state;
    Graph *g = lenet();
    Block *out = graph_block(g, 25);
    graph_remove_block(g, out);
    assert_true(graph_compact(g));
    Diag d;
    diag_init(&d, NULL);
    assert_int_equal(run_pass("dce", g, &d), ST_LOGIC);
    assert_string_equal(d.entries[0].rule, "pass.dce.output");
    diag_finish(&d);
    graph_destroy(g);
}

/* ---- group ---- */

/* Every compute block is in one group with the storage blocks feeding it, unless another
 * group holds them. */
static void assert_grouped(const Graph *g)
{
    GroupMap m;
    assert_true(group_map_build(g, &m));
    for (uint32_t i = 0; i < g->n_blocks; i++)
        if (bt_info(g->blocks[i]->type)->kind == BK_COMPUTE)
            assert_true(group_of(g, &m, g->blocks[i]->id) >= 0);
    group_map_finish(&m);
    assert_valid(g);
}

static void test_group(void **state)
{
    (void)state;
    Graph *g = lenet();
    Diag d;
    diag_init(&d, NULL);
    assert_int_equal(run_pass("group", g, &d), ST_OK);
    assert_grouped(g);
    assert_int_equal(g->n_groups, 7);
    /* conv1, then its input, weight and bias storage */
    assert_int_equal(g->groups[0].id, 0);
    assert_int_equal(g->groups[0].n_block_ids, 4);
    assert_memory_equal(g->groups[0].block_ids, ((const int32_t[]){5, 2, 3, 4}),
                        4 * sizeof(int32_t));
    /* pool1 and conv1/out */
    assert_memory_equal(g->groups[1].block_ids, ((const int32_t[]){7, 6}), 2 * sizeof(int32_t));
    /* a second run keeps every group */
    assert_int_equal(run_pass("group", g, &d), ST_OK);
    assert_int_equal(g->n_groups, 7);
    diag_finish(&d);
    graph_destroy(g);
}

static void test_group_keeps(void **state)
{
    (void)state;
    Graph *g = lenet();
    GroupMap m;
    assert_true(group_map_build(g, &m));
    /* a fused group kept (id 40), one naming a missing block and two that share a block:
     * all three dropped and rebuilt */
    assert_int_equal(group_add(g, &m, (const int32_t[]){11, 8, 9, 10, 12, 13}, 6), 0);
    g->groups[0].id = 40;
    m.next_id = 41;
    assert_int_equal(group_add(g, &m, (const int32_t[]){17, 999}, 2), 1);
    assert_int_equal(group_add(g, &m, (const int32_t[]){5, 2}, 2), 2);
    assert_int_equal(group_add(g, &m, (const int32_t[]){7, 2}, 2), 3);
    group_map_finish(&m);
    Diag d;
    diag_init(&d, NULL);
    assert_int_equal(run_pass("group", g, &d), ST_OK);
    assert_grouped(g);
    assert_int_equal(g->groups[0].id, 40);
    assert_int_equal(g->groups[0].n_block_ids, 6);
    assert_int_equal(g->n_groups, 1 + 5); /* conv1, pool1, fc1, fc1/requant, fc2 */
    assert_int_equal(g->groups[1].id, 41); /* after the largest kept id */
    assert_memory_equal(g->groups[1].block_ids, ((const int32_t[]){5, 2, 3, 4}),
                        4 * sizeof(int32_t));
    /* saved and loaded: the groups come back */
    uint8_t *buf = NULL;
    size_t len = 0;
    assert_int_equal(graph_pack(g, &buf, &len, &d), ST_OK);
    Graph *g2 = NULL;
    assert_int_equal(graph_load_pb_mem(buf, len, &g2, &d), ST_OK);
    assert_int_equal(g2->n_groups, g->n_groups);
    for (uint32_t i = 0; i < g->n_groups; i++) {
        assert_int_equal(g2->groups[i].id, g->groups[i].id);
        assert_int_equal(g2->groups[i].n_block_ids, g->groups[i].n_block_ids);
        assert_memory_equal(g2->groups[i].block_ids, g->groups[i].block_ids,
                            g->groups[i].n_block_ids * sizeof(int32_t));
    }
    free(buf);
    graph_destroy(g2);
    diag_finish(&d);
    graph_destroy(g);
}

static void test_group_add_many(void **state)
{
    (void)state;
    Graph *g = lenet();
    GroupMap m;
    assert_true(group_map_build(g, &m));
    for (int32_t i = 0; i < 25; i++)
        assert_int_equal(group_add(g, &m, &(int32_t){i + 1}, 1), i);
    for (int32_t i = 0; i < 25; i++) {
        assert_int_equal(g->groups[i].id, i);
        assert_int_equal(g->groups[i].block_ids[0], i + 1);
        assert_int_equal(group_of(g, &m, i + 1), i);
    }
    assert_int_equal(group_of(g, &m, 4242), -1);
    group_map_finish(&m);
    graph_destroy(g);
}

int main(void)
{
    Chip *chip = NULL;
    Diag d;
    diag_init(&d, NULL);
    if (chip_load_default(&chip, &d) != ST_OK) {
        diag_print(&d, stderr, "test_passes");
        return 1;
    }
    diag_finish(&d);
    popts.chip = chip;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_plan_errors),
        cmocka_unit_test(test_plan_requires),
        cmocka_unit_test(test_dump_after),
        cmocka_unit_test(test_verify_each),
        cmocka_unit_test(test_dce),
        cmocka_unit_test(test_dce_no_output),
        cmocka_unit_test(test_group),
        cmocka_unit_test(test_group_keeps),
        cmocka_unit_test(test_group_add_many),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    chip_destroy(chip);
    return rc;
}
