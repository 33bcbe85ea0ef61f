/* test_diff_passes.c: every pass keeps a graph's outputs bit for bit (issue 17, docs/passes.md
 * "Testing"). For every shipped example graph (the examples/ .txtpb graphs encoded, the CVM, CINN and
 * ONNX example models lowered), the random graphs of randgraph.h (models of the shapes the
 * diff suite checks against the interpreter, with dead branches) and a spiking graph, the
 * simulator's outputs over two time steps are taken before any pass; then every order of the
 * passes of the table that the requirements allow (pass_plan_check) is run, as a tree that
 * shares prefixes: after every pass of every order the graph must pass the verifier, save and
 * load (the copy is made that way) and give the same outputs. The table grows as passes land,
 * and this test with it. DIFF_QUICK=1: fewer random graphs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "difftest.h"
#include "frontend/cinn/cinn.h"
#include "frontend/onnx/onnx.h"
#include "passes/manager.h"
#include "randgraph.h"
#include "taskir/pbio.h"
#include "taskir/sim.h"
#include "taskir/verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEPS 2

/* The passes fit to the default chip (chip_load_default, set in main). */
static PassOptions popts;

/* The outputs of a run: every OUTPUT's values after each step, by socket id order. */
typedef struct Outs {
    int32_t *v;
    int64_t n;
} Outs;

static uint32_t count_passes;

/* The outputs of g over STEPS steps on inputs made from seed (by socket id, inside each
 * INPUT block's precision). */
static Outs simulate(const Graph *g, const char *what)
{
    Diag d;
    diag_init(&d, what);
    SimRun *run = NULL;
    if (sim_create(g, &(SimOptions){0}, &run, &d) != ST_OK) {
        diag_print(&d, stderr, "test_diff_passes");
        fail_msg("%s: the simulator refuses the graph", what);
    }
    for (uint32_t k = 0; k < sim_n_inputs(run); k++) {
        const Block *in = sim_input_block(run, k);
        const PrecisionInfo *pi = pr_info(blk_prec(in));
        int64_t lo = pi->lo < -50 ? -50 : pi->lo, hi = pi->hi > 50 ? 50 : pi->hi;
        int64_t shape[NPY_MAX_DIMS], n = 1;
        uint32_t nd = sim_input_shape(run, k, shape);
        for (uint32_t i = 0; i < nd; i++)
            n *= shape[i];
        int32_t *v = malloc((size_t)n * sizeof *v + 1);
        assert_non_null(v);
        DtRng r = {(uint64_t)in->socket_id * 7919u + 17};
        for (int64_t i = 0; i < n; i++)
            v[i] = (int32_t)dt_range(&r, lo, hi);
        assert_int_equal(sim_set_input(run, k, v, n, &d), ST_OK);
        free(v);
    }
    /* the OUTPUT blocks by socket id */
    uint32_t no = sim_n_outputs(run), order[64];
    assert_true(no <= 64);
    for (uint32_t k = 0; k < no; k++) {
        uint32_t at = k;
        while (at > 0 && sim_output_block(run, order[at - 1])->socket_id >
                             sim_output_block(run, k)->socket_id) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = k;
    }
    Outs o = {0};
    for (int s = 0; s < STEPS; s++) {
        if (sim_step(run, &d) != ST_OK) {
            diag_print(&d, stderr, "test_diff_passes");
            fail_msg("%s: the simulation fails", what);
        }
        for (uint32_t k = 0; k < no; k++) {
            int64_t n;
            const int32_t *v = sim_output(run, order[k], &n);
            int32_t *nv = realloc(o.v, (size_t)(o.n + n) * sizeof *nv + 1);
            assert_non_null(nv);
            o.v = nv;
            memcpy(o.v + o.n, v, (size_t)n * sizeof *v);
            o.n += n;
        }
    }
    sim_destroy(run);
    diag_finish(&d);
    return o;
}

/* A copy of g, through the .pb writer and reader. */
static Graph *copy(const Graph *g, const char *what)
{
    Diag d;
    diag_init(&d, what);
    uint8_t *buf = NULL;
    size_t len = 0;
    Graph *c = NULL;
    if (graph_pack(g, &buf, &len, &d) != ST_OK || graph_load_pb_mem(buf, len, &c, &d) != ST_OK) {
        diag_print(&d, stderr, "test_diff_passes");
        fail_msg("%s: the graph does not save and load", what);
    }
    free(buf);
    diag_finish(&d);
    return c;
}

/* Runs every pass allowed after the passes of path (props: what they guarantee) on copies
 * of g, checks each result against want and goes on from it. */
static void walk(const Graph *g, const Outs *want, const char *what, const PassInfo **path,
                 size_t depth, unsigned props)
{
    size_t n;
    const PassInfo *t = pass_table(&n);
    for (size_t i = 0; i < n; i++) {
        bool used = false;
        for (size_t k = 0; k < depth; k++)
            used = used || path[k] == &t[i];
        if (used || (t[i].requires & ~props))
            continue;
        path[depth] = &t[i];
        char where[512];
        int at = snprintf(where, sizeof where, "%s, after", what);
        for (size_t k = 0; k <= depth && at > 0 && (size_t)at < sizeof where; k++)
            at += snprintf(where + at, sizeof where - (size_t)at, " %s", path[k]->name);
        Graph *c = copy(g, where);
        Diag d;
        diag_init(&d, where);
        if (t[i].run(c, &popts, &d) != ST_OK || verify_graph(c, &d) != ST_OK) {
            diag_print(&d, stderr, "test_diff_passes");
            fail_msg("%s: the pass fails or breaks the graph", where);
        }
        diag_finish(&d);
        count_passes++;
        Outs got = simulate(c, where);
        if (got.n != want->n)
            fail_msg("%s: %lld output values, before the passes %lld", where,
                     (long long)got.n, (long long)want->n);
        for (int64_t k = 0; k < got.n; k++)
            if (got.v[k] != want->v[k])
                fail_msg("%s: output value %lld is %d, before the passes %d", where,
                         (long long)k, got.v[k], want->v[k]);
        free(got.v);
        walk(c, want, what, path, depth + 1, (props & ~t[i].invalidates) | t[i].guarantees);
        graph_destroy(c);
    }
}

/* Checks every allowed pass order on g (taken). */
static void check(Graph *g, const char *what)
{
    size_t n;
    pass_table(&n);
    const PassInfo **path = calloc(n + 1, sizeof *path);
    assert_non_null(path);
    Outs want = simulate(g, what);
    walk(g, &want, what, path, 0, 0);
    free(want.v);
    free(path);
    graph_destroy(g);
}

static const char *dir(const char *var)
{
    const char *d = getenv(var);
    return d ? d : ".";
}

static void test_example_graphs(void **state)
{
    (void)state;
    static const char *const names[] = {"lenet", "tianjic_style"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/examples/%s.pb", dir("TASKIR_BUILDDIR"), names[i]);
        Diag d;
        diag_init(&d, path);
        Graph *g = NULL;
        if (graph_load_pb(path, &g, &d) != ST_OK) {
            diag_print(&d, stderr, "test_diff_passes");
            fail_msg("cannot load %s", path);
        }
        diag_finish(&d);
        check(g, path);
    }
}

/* Lowers og (d names the model) and checks it. */
static void check_model(const OpGraph *og, Diag *d, const char *what)
{
    Graph *g = NULL;
    if (fe_lower(og, NULL, &g, d) != ST_OK) {
        diag_print(d, stderr, "test_diff_passes");
        fail_msg("%s does not lower", what);
    }
    check(g, what);
}

static void test_example_models(void **state)
{
    (void)state;
    static const char *const cvm[] = {"lenet", "resnet_block", "mobilenet_block", "mlp",
                                      "batch_stats"};
    for (size_t i = 0; i < sizeof cvm / sizeof cvm[0]; i++) {
        char json[4096], params[4096];
        snprintf(json, sizeof json, "%s/examples/cvm/%s.json", dir("TASKIR_BUILDDIR"), cvm[i]);
        snprintf(params, sizeof params, "%s/examples/cvm/%s.params", dir("TASKIR_BUILDDIR"),
                 cvm[i]);
        Diag d;
        diag_init(&d, json);
        OpGraph *og = NULL;
        assert_int_equal(fe_cvm_load(json, params, &og, &d), ST_OK);
        check_model(og, &d, json);
        og_destroy(og);
        diag_finish(&d);
    }
    static const char *const onnx[] = {"qnet", "shiftnet", "relu8"};
    for (size_t i = 0; i < sizeof onnx / sizeof onnx[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/examples/%s.onnx", dir("TASKIR_BUILDDIR"), onnx[i]);
        Diag d;
        diag_init(&d, path);
        OnnxModel *m = NULL;
        assert_int_equal(fe_onnx_load(path, NULL, &m, &d), ST_OK);
        check_model(m->g, &d, path);
        fe_onnx_destroy(m);
        diag_finish(&d);
    }
    char xml[4096];
    snprintf(xml, sizeof xml, "%s/examples/cinn_cnn.xml", dir("TASKIR_SRCDIR"));
    Diag d;
    diag_init(&d, xml);
    CinnBuilder *b = NULL;
    assert_int_equal(fe_cinn_read_xml(xml, &d, &b), ST_OK);
    check_model(fe_cinn_graph(b), &d, xml);
    fe_cinn_destroy(b);
    diag_finish(&d);
}

static void test_random_graphs(void **state)
{
    (void)state;
    int n = dt_quick() ? 40 : 200;
    for (int s = 0; s < n; s++) {
        char what[256];
        Graph *g = rg_random_graph((uint64_t)s, what, sizeof what);
        if (getenv("DIFF_VERBOSE"))
            fprintf(stderr, "%s (%u blocks)\n", what, (unsigned)g->n_blocks);
        check(g, what);
    }
    check(rg_lif_graph(9), "lif graph");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example_graphs),
        cmocka_unit_test(test_example_models),
        cmocka_unit_test(test_random_graphs),
    };
    Chip *chip = NULL;
    Diag d;
    diag_init(&d, "chip");
    if (chip_load_default(&chip, &d) != ST_OK) {
        diag_print(&d, stderr, "test_diff_passes");
        return 1;
    }
    diag_finish(&d);
    popts.chip = chip;
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    fprintf(stderr, "test_diff_passes: %u pass runs checked\n", (unsigned)count_passes);
    chip_destroy(chip);
    return rc;
}
