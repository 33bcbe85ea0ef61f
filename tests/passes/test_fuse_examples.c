/* test_fuse_examples.c: the fuse and replicate passes on whole graphs: every shipped example
 * (the TaskGraphs of examples/, the CVM, ONNX and CINN models compiled by taskir-compile) and
 * the ResNet-50 benchmark model (a CVM model loaded and lowered in process: its .pb would
 * take 140 MB). For each: the graph verifies and simulates to the same outputs after fuse and
 * after replicate; a second fuse changes nothing; the result is the same bytes on every run;
 * after replicate every storage block feeds one unit (PROP_REPLICATED, checked here from the
 * edges and groups). Prints the block and group counts before and after.
 *
 * Arguments: graphs (.pb), or a CVM model as MODEL.json (its params beside it,
 * MODEL.params); an argument "groups=N" after a graph wants N groups after fuse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "frontend/cvm/cvm.h"
#include "frontend/lower/lower.h"
#include "passes/pass.h"
#include "passtest.h"
#include "taskir/pbio.h"
#include "taskir/uses.h"

enum { SEEDS = 2, MAX_CASES = 64 };

typedef struct Case {
    const char *path;
    long want_groups;      /* groups wanted after fuse, -1: not checked */
} Case;

static Graph *load(const char *path)
{
    Diag d;
    diag_init(&d, path);
    Graph *g = NULL;
    Status st;
    size_t n = strlen(path);
    if (n > 5 && strcmp(path + n - 5, ".json") == 0) {
        char *params = malloc(n + 3);
        assert_non_null(params);
        memcpy(params, path, n - 5);
        strcpy(params + n - 5, ".params");
        OpGraph *og = NULL;
        st = fe_cvm_load(path, params, &og, &d);
        if (st == ST_OK)
            st = fe_lower(og, NULL, &g, &d);
        og_destroy(og);
        free(params);
    } else {
        st = graph_load_pb(path, &g, &d);
    }
    if (st != ST_OK)
        diag_print(&d, stderr, "test");
    diag_finish(&d);
    assert_int_equal(st, ST_OK);
    return g;
}

static Chip *chip;

static void run_step(Graph *g, Status (*pass)(Graph *, const PassOptions *, Diag *))
{
    Diag d;
    diag_init(&d, "test");
    PassOptions o = {.chip = chip};
    Status st = pass(g, &o, &d);
    if (st != ST_OK)
        diag_print(&d, stderr, "test");
    diag_finish(&d);
    assert_int_equal(st, ST_OK);
}


/* The saved bytes of g; *n their count. */
static uint8_t *bytes_of(const Graph *g, size_t *n)
{
    Diag d;
    diag_init(&d, "test");
    uint8_t *buf = NULL;
    assert_int_equal(graph_pack(g, &buf, n, &d), ST_OK);
    diag_finish(&d);
    return buf;
}

/* Every storage block feeds compute blocks of one group, or one compute block in no group. */
static void assert_replicated(const Graph *g)
{
    long *grp = malloc(((size_t)g->n_blocks + 1) * sizeof *grp);
    assert_non_null(grp);
    for (uint32_t i = 0; i < g->n_blocks; i++)
        grp[i] = -1;
    for (uint32_t k = 0; k < g->n_groups; k++)
        for (uint32_t j = 0; j < g->groups[k].n_block_ids; j++)
            grp[graph_block_pos(g, g->groups[k].block_ids[j])] = (long)k;
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        if (bt_info(g->blocks[i]->type)->kind != BK_STORAGE)
            continue;
        long unit = -1;
        for (uint32_t e = 0; e < g->n_edges; e++) {
            if (g->edges[e]->src != g->blocks[i]->id)
                continue;
            long pos = graph_block_pos(g, g->edges[e]->dst);
            if (bt_info(g->blocks[pos]->type)->kind != BK_COMPUTE)
                continue;
            long u = grp[pos] >= 0 ? grp[pos] : (long)g->n_groups + pos;
            if (unit >= 0 && u != unit)
                fail_msg("block %d feeds two units", (int)g->blocks[i]->id);
            unit = u;
        }
    }
    free(grp);
}

static void test_graph(void **state)
{
    const Case *c = *state;
    Graph *g = load(c->path);
    int32_t *want[SEEDS];
    int64_t n[SEEDS];
    for (int k = 0; k < SEEDS; k++)
        want[k] = pt_simulate(g, (uint32_t)k + 1, &n[k]);
    uint32_t b0 = g->n_blocks, g0 = g->n_groups;

    run_step(g, pass_fuse);
    pt_verify(g);
    pt_assert_same(g, (const int32_t *const *)want, n, SEEDS, "after fuse");
    uint32_t b1 = g->n_blocks, g1 = g->n_groups;
    size_t len1, len2;
    uint8_t *once = bytes_of(g, &len1);
    run_step(g, pass_fuse);
    uint8_t *twice = bytes_of(g, &len2);
    assert_true(len1 == len2 && memcmp(once, twice, len1) == 0);
    free(twice);

    run_step(g, pass_replicate);
    pt_verify(g);
    pt_assert_same(g, (const int32_t *const *)want, n, SEEDS, "after replicate");
    assert_replicated(g);
    printf("%s: blocks %u -> %u (fuse) -> %u (replicate); groups %u -> %u\n", c->path, b0, b1,
           g->n_blocks, g0, g1);
    if (c->want_groups >= 0)
        assert_int_equal(g1, c->want_groups);

    /* the same bytes from a second run on a fresh load */
    Graph *h = load(c->path);
    run_step(h, pass_fuse);
    twice = bytes_of(h, &len2);
    assert_true(len1 == len2 && memcmp(once, twice, len1) == 0);
    free(twice);
    free(once);
    graph_destroy(h);
    for (int k = 0; k < SEEDS; k++)
        free(want[k]);
    graph_destroy(g);
}

int main(int argc, char **argv)
{
    static Case cases[MAX_CASES];
    static struct CMUnitTest tests[MAX_CASES];
    int n = 0;
    for (int i = 1; i < argc && n < MAX_CASES; i++) {
        char *eq = strchr(argv[i], '=');
        if (eq && n > 0) {
            cases[n - 1].want_groups = strtol(eq + 1, NULL, 10);
            continue;
        }
        cases[n] = (Case){argv[i], -1};
        tests[n] = (struct CMUnitTest){argv[i], test_graph, NULL, NULL, &cases[n]};
        n++;
    }
    Diag d;
    diag_init(&d, "test");
    Status st = chip_load_default(&chip, &d);
    diag_finish(&d);
    if (st != ST_OK)
        return 1;
    int failed = _cmocka_run_group_tests("fuse_examples", tests, (size_t)n, NULL, NULL);
    chip_destroy(chip);
    return failed;
}
