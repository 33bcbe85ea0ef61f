/* split_fixture.c: the graphs and runs of split_fixture.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "passtest.h"
#include "split_fixture.h"
#include "taskir/sim.h"

static uint32_t rnd(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

static Block *data_block(Graph *g, BlockType t, const char *name, const int32_t cd[TIR_CDIMS],
                         PrecisionId p, int64_t lo, int64_t hi, uint32_t *seed)
{
    Block *b = graph_add_block(g, t, GRAPH_AUTO_ID, name);
    assert_non_null(b);
    int32_t dims[TIR_CDIMS];
    uint32_t nd = 0;
    int64_t n = 1;
    for (int j = 0; j < TIR_CDIMS; j++)
        if (cd[j] > 0) {
            b->shape.d[j] = cd[j];
            dims[nd++] = cd[j];
            n *= cd[j];
        }
    b->has_shape = true;
    b->prec = p;
    b->has_prec = true;
    int64_t *v = malloc((size_t)n * sizeof *v);
    assert_non_null(v);
    for (int64_t i = 0; i < n; i++)
        v[i] = lo + (int64_t)(rnd(seed) % (uint32_t)(hi - lo + 1));
    assert_true(blk_set_data(g, b, p, dims, nd, v, (uint64_t)n));
    free(v);
    return b;
}

Graph *fx_block(BlockType t, const int32_t s[TIR_NDIMS], PrecisionId prec, int bias,
                const int32_t *attrs, int n_attrs, int n_in)
{
    Graph *g = graph_create();
    assert_non_null(g);
    uint32_t seed = 12345u + (uint32_t)t;
    Block *op = graph_add_block(g, t, GRAPH_AUTO_ID, "op");
    assert_non_null(op);
    memcpy(op->shape.d, s, sizeof op->shape.d);
    op->has_shape = true;
    op->prec = prec;
    op->has_prec = true;
    op->bias_type = bias;
    if (t == BT_CADD && n_in > 0)
        op->shape.n_branch = n_in;
    for (int i = 0; i < n_attrs; i++)
        assert_true(blk_set_attr(g, op, (AttrId)attrs[2 * i], attrs[2 * i + 1]));
    const BlockTypeInfo *ti = bt_info(t);
    int fixed = ti->n_ins;
    int n_act = n_in > 0 ? n_in : 1;
    int total = n_act + fixed - 1 + (bias == BIAS_VECTOR);
    for (int k = 0; k < total; k++)
        assert_non_null(blk_add_input(g, op));
    assert_non_null(blk_add_output(g, op));
    int sock = 0;
    for (int k = 0; k < total; k++) {
        const ClusterSpec *sp = blk_in_spec(op, (uint32_t)k);
        assert_non_null(sp);
        int32_t cd[TIR_CDIMS];
        assert_true(blk_cluster_dims(op, true, (uint32_t)k, cd));
        char name[32];
        Block *st;
        if (!strcmp(sp->role, "weight")) {
            BlockType wt = t == BT_CC ? BT_SW : t == BT_CC2D ? BT_SW2D : BT_SWFC;
            st = data_block(g, wt, "op/w", cd, PR_INT_8, -128, 127, &seed);
        } else if (!strcmp(sp->role, "bias")) {
            st = data_block(g, BT_SB, "op/b", cd, PR_INT_32, -5000, 5000, &seed);
        } else if (!strcmp(sp->role, "alpha")) {
            st = data_block(g, BT_SB, "op/a", cd, PR_INT_8, -128, 127, &seed);
        } else if (!strcmp(sp->role, "lut")) {
            st = data_block(g, BT_SB, "op/lut", cd, PR_INT_8, -128, 127, &seed);
        } else {
            BlockType stt = t == BT_CC ? BT_SIC : t == BT_CC2D ? BT_SIC2D
                          : t == BT_CVM ? BT_SIFC : BT_SI;
            snprintf(name, sizeof name, "op/in%d", k);
            st = graph_add_block(g, stt, GRAPH_AUTO_ID, name);
            assert_non_null(st);
            for (int j = 0; j < TIR_CDIMS; j++)
                st->shape.d[j] = cd[j];
            st->has_shape = true;
            st->prec = PR_INT_8;
            st->has_prec = true;
            Block *in = graph_add_block(g, BT_INPUT, GRAPH_AUTO_ID, NULL);
            assert_non_null(in);
            int32_t icd[TIR_CDIMS];
            assert_true(blk_cluster_dims(st, true, 0, icd));
            for (int j = 0; j < TIR_CDIMS; j++)
                in->shape.d[j] = icd[j];
            in->has_shape = true;
            in->prec = PR_INT_8;
            in->has_prec = true;
            in->socket_id = sock++;
            in->has_socket_id = true;
            assert_non_null(graph_connect(g, in, 0, st, 0));
        }
        assert_non_null(graph_connect(g, st, 0, op, (uint32_t)k));
    }
    int32_t ocd[TIR_CDIMS];
    assert_true(blk_cluster_dims(op, false, 0, ocd));
    Block *si = graph_add_block(g, BT_SI, GRAPH_AUTO_ID, "op/out");
    Block *out = graph_add_block(g, BT_OUTPUT, GRAPH_AUTO_ID, NULL);
    assert_true(si && out);
    si->shape.d[D_Y] = ocd[0];
    si->shape.d[D_X] = ocd[1];
    si->shape.d[D_F] = ocd[2];
    si->has_shape = out->has_shape = true;
    si->prec = PR_INT_32;
    si->has_prec = true;
    memcpy(out->shape.d, si->shape.d, sizeof out->shape.d);
    out->has_socket_id = true;
    assert_non_null(graph_connect(g, op, 0, si, 0));
    assert_non_null(graph_connect(g, si, 0, out, 0));
    assert_false(graph_oom(g));
    pt_verify(g);
    return g;
}

int32_t *fx_run(const Graph *g, int steps, uint32_t seed, int64_t *n)
{
    Diag d;
    diag_init(&d, "test");
    SimRun *run = NULL;
    Status st = sim_create(g, NULL, &run, &d);
    if (st != ST_OK)
        diag_print(&d, stderr, "test");
    assert_int_equal(st, ST_OK);
    int32_t *all = NULL;
    *n = 0;
    for (int s = 0; s < steps; s++) {
        for (uint32_t k = 0; k < sim_n_inputs(run); k++) {
            int64_t shape[8];
            uint32_t nd = sim_input_shape(run, k, shape);
            int64_t v = 1;
            for (uint32_t i = 0; i < nd; i++)
                v *= shape[i];
            int32_t *x = malloc((size_t)v * sizeof *x);
            assert_non_null(x);
            for (int64_t i = 0; i < v; i++)
                x[i] = (int32_t)(rnd(&seed) % 200) - 100;
            assert_int_equal(sim_set_input(run, k, x, v, &d), ST_OK);
            free(x);
        }
        assert_int_equal(sim_step(run, &d), ST_OK);
        for (uint32_t k = 0; k < sim_n_outputs(run); k++) {
            int64_t m = 0;
            const int32_t *y = sim_output(run, k, &m);
            all = realloc(all, (size_t)(*n + m) * sizeof *all);
            assert_non_null(all);
            memcpy(all + *n, y, (size_t)m * sizeof *y);
            *n += m;
        }
    }
    sim_destroy(run);
    diag_finish(&d);
    return all;
}
