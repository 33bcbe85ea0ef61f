/* test_diff_passes.c: every pass keeps a graph's outputs bit for bit, in every order the
 * table allows (issue 17, docs/passes.md "Testing"; passcheck.h): for every shipped example
 * graph (the examples/ .txtpb graphs encoded; the CVM, CINN and ONNX example models
 * lowered), the random graphs of randgraph.h (models of the shapes the diff suite checks
 * against the interpreter, with dead branches) and a spiking graph. The table grows as passes
 * land, and this test with it. (Every graph of the other diff tests goes through the default
 * list, dt_check.) DIFF_QUICK=1: fewer random graphs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "difftest.h"
#include "frontend/cinn/cinn.h"
#include "frontend/onnx/onnx.h"
#include "passcheck.h"
#include "randgraph.h"
#include "taskir/pbio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Checks every allowed pass order on g (taken). */
static void check(Graph *g, const char *what)
{
    pc_check_orders(g, what);
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
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    uint32_t sim, refused, runs = pc_passes_run(&sim, &refused);
    fprintf(stderr, "test_diff_passes: %u pass runs checked, %u of them changed the graph and "
            "were simulated; split refused %u graph(s) that cannot fit the chip\n",
            (unsigned)runs, (unsigned)sim, (unsigned)refused);
    return rc;
}
