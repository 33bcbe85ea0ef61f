/* passtest.c: helpers of the pass tests (passtest.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "passtest.h"
#include "taskir/sim.h"
#include "taskir/verify.h"

void pt_verify(const Graph *g)
{
    Diag d;
    diag_init(&d, "test");
    Status st = verify_graph(g, &d);
    if (st != ST_OK)
        diag_print(&d, stderr, "test");
    diag_finish(&d);
    assert_int_equal(st, ST_OK);
}

int32_t *pt_simulate(const Graph *g, uint32_t seed, int64_t *n)
{
    pt_verify(g);
    Diag d;
    diag_init(&d, "test");
    SimRun *run = NULL;
    Status st = sim_create(g, NULL, &run, &d);
    uint32_t s = seed * 2654435761u + 1;
    for (uint32_t k = 0; st == ST_OK && k < sim_n_inputs(run); k++) {
        int64_t shape[NPY_MAX_DIMS], count = 1;
        uint32_t nd = sim_input_shape(run, k, shape);
        for (uint32_t i = 0; i < nd; i++)
            count *= shape[i];
        const Block *b = sim_input_block(run, k);
        int64_t lo, hi; /* what the input admits (its precision, its declared range) */
        blk_input_range(b, &lo, &hi);
        lo = lo < -128 ? -128 : lo;
        hi = hi > 127 ? 127 : hi;
        int32_t *v = malloc((size_t)count * sizeof *v);
        assert_non_null(v);
        for (int64_t i = 0; i < count; i++) {
            s ^= s << 13, s ^= s >> 17, s ^= s << 5;
            v[i] = (int32_t)(lo + (int64_t)(s % (uint32_t)(hi - lo + 1)));
        }
        st = sim_set_input(run, k, v, count, &d);
        free(v);
    }
    if (st == ST_OK)
        st = sim_step(run, &d);
    if (st != ST_OK)
        diag_print(&d, stderr, "test");
    assert_int_equal(st, ST_OK);
    int64_t total = 0;
    for (uint32_t k = 0; k < sim_n_outputs(run); k++) {
        int64_t c;
        sim_output(run, k, &c);
        total += c;
    }
    int32_t *out = malloc((size_t)(total ? total : 1) * sizeof *out);
    assert_non_null(out);
    int64_t at = 0;
    for (uint32_t k = 0; k < sim_n_outputs(run); k++) {
        int64_t c;
        const int32_t *r = sim_output(run, k, &c);
        memcpy(out + at, r, (size_t)c * sizeof *out);
        at += c;
    }
    sim_destroy(run);
    diag_finish(&d);
    *n = total;
    return out;
}

void pt_assert_same(const Graph *g, const int32_t *const *want, const int64_t *n,
                    int n_seeds, const char *what)
{
    for (int k = 0; k < n_seeds; k++) {
        int64_t got_n;
        int32_t *got = pt_simulate(g, (uint32_t)k + 1, &got_n);
        if (got_n != n[k])
            fail_msg("%s: %lld output values, %lld before", what, (long long)got_n,
                     (long long)n[k]);
        for (int64_t i = 0; i < got_n; i++)
            if (got[i] != want[k][i])
                fail_msg("%s: seed %d, output value %lld is %d, was %d", what, k + 1,
                         (long long)i, got[i], want[k][i]);
        free(got);
    }
}

Block *pt_by_name(const Graph *g, const char *name)
{
    for (uint32_t i = 0; i < g->n_blocks; i++)
        if (g->blocks[i]->name && strcmp(g->blocks[i]->name, name) == 0)
            return g->blocks[i];
    return NULL;
}

uint32_t pt_count(const Graph *g, BlockType t)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->n_blocks; i++)
        n += g->blocks[i]->type == t;
    return n;
}

Block *pt_blk(Graph *g, BlockType t, int32_t y, int32_t x, int32_t f, const char *name)
{
    Block *b = graph_add_block(g, t, GRAPH_AUTO_ID, name);
    assert_non_null(b);
    b->shape.d[D_Y] = y;
    b->shape.d[D_X] = x;
    b->shape.d[D_F] = f;
    b->has_prec = true;
    b->prec = t == BT_INPUT ? PR_INT_8 : PR_INT_32;
    return b;
}

Block *pt_io(Graph *g, BlockType t, int32_t y, int32_t x, int32_t f, int32_t socket)
{
    Block *b = pt_blk(g, t, y, x, f, t == BT_INPUT ? "x" : NULL);
    b->has_socket_id = true;
    b->socket_id = socket;
    return b;
}

void pt_link(Graph *g, Block *a, Block *b, uint32_t in_idx)
{
    assert_non_null(graph_connect(g, a, 0, b, in_idx));
}

void pt_step(Graph *g, Edge *e, RearrangeType t, const int32_t *p, uint32_t n)
{
    assert_non_null(e);
    Rearrange *re = edge_add_rearrange(g, e, t, 1);
    assert_non_null(re);
    const int32_t dims[1] = {(int32_t)n};
    assert_true(tensor_set_i32(g, &re->mats[0], dims, 1, p, n));
}

void pt_set_groups(Graph *g, const char *const *names, const uint32_t *sizes, uint32_t n,
                   int32_t first_id)
{
    g->groups = arena_alloc(g->arena, n, sizeof *g->groups);
    assert_non_null(g->groups);
    g->n_groups = n;
    for (uint32_t k = 0, at = 0; k < n; k++) {
        g->groups[k].id = first_id + (int32_t)k;
        g->groups[k].block_ids = arena_alloc(g->arena, sizes[k], sizeof(int32_t));
        assert_non_null(g->groups[k].block_ids);
        g->groups[k].n_block_ids = sizes[k];
        for (uint32_t j = 0; j < sizes[k]; j++, at++) {
            const Block *b = pt_by_name(g, names[at]);
            assert_non_null(b);
            g->groups[k].block_ids[j] = b->id;
        }
    }
}

const Edge *pt_edge_between(const Graph *g, const Block *a, const Block *b)
{
    for (uint32_t i = 0; i < g->n_edges; i++)
        if (g->edges[i]->src == a->id && g->edges[i]->dst == b->id)
            return g->edges[i];
    return NULL;
}
