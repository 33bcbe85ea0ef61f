/* onnx_testutil.c: see onnx_testutil.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "onnx_testutil.h"

#include "frontend/interp.h"
#include "frontend/lower.h"
#include "taskir/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint8_t *otu_pack(OnnxBuilder *b, size_t *len)
{
    Diag d;
    diag_init(&d, NULL);
    uint8_t *buf;
    assert_int_equal(fe_onnx_builder_pack(b, &buf, len, &d), ST_OK);
    diag_finish(&d);
    fe_onnx_builder_destroy(b);
    return buf;
}

OnnxModel *otu_load(const uint8_t *buf, size_t len, const OnnxOptions *opt)
{
    Diag d;
    diag_init(&d, "model.onnx");
    OnnxModel *m = NULL;
    Status st = fe_onnx_load_mem(buf, len, opt, &m, &d);
    if (st != ST_OK)
        diag_print(&d, stderr, "test");
    assert_int_equal(st, ST_OK);
    diag_finish(&d);
    return m;
}

void otu_refused(const uint8_t *buf, size_t len, const OnnxOptions *opt, const char *rule,
                 const char *text)
{
    Diag d;
    diag_init(&d, "model.onnx");
    OnnxModel *m = NULL;
    assert_int_equal(fe_onnx_load_mem(buf, len, opt, &m, &d), ST_LOGIC);
    long k = diag_find(&d, rule);
    if (k < 0 || (text && !strstr(d.entries[k].what, text))) {
        diag_print(&d, stderr, "test");
        fail_msg("expected [%s]%s%s", rule, text ? " saying " : "", text ? text : "");
    }
    assert_null(m);
    diag_finish(&d);
}

void otu_run_both(OnnxModel *m, OgTensor *in, OgTensor *out)
{
    Diag d;
    diag_init(&d, "model.onnx");
    Status st = fe_interp_run(m->g, in, m->ninputs, out, &d);
    if (st != ST_OK)
        diag_print(&d, stderr, "interp");
    assert_int_equal(st, ST_OK);
    Graph *tg = NULL;
    st = fe_lower(m->g, NULL, &tg, &d);
    if (st != ST_OK)
        diag_print(&d, stderr, "lower");
    assert_int_equal(st, ST_OK);
    SimOptions so = {0};
    SimRun *run = NULL;
    assert_int_equal(sim_create(tg, &so, &run, &d), ST_OK);
    NpyArray arr[4];
    SimInput si[4];
    char names[4][16];
    assert_true(m->ninputs <= 4);
    for (uint32_t k = 0; k < m->ninputs; k++) {
        memset(&arr[k], 0, sizeof arr[k]);
        arr[k].dtype = NPY_I32;
        arr[k].ndim = m->inputs[k].shape.ndim;
        for (uint32_t j = 0; j < arr[k].ndim; j++)
            arr[k].shape[j] = m->inputs[k].shape.d[j];
        arr[k].count = in[k].count;
        arr[k].i32 = in[k].data;
        snprintf(names[k], sizeof names[k], "%u", k);
        si[k].name = names[k];
        si[k].array = &arr[k];
    }
    SimResult res;
    memset(&res, 0, sizeof res);
    st = sim_run(run, si, m->ninputs, &res, &d);
    if (st != ST_OK)
        diag_print(&d, stderr, "sim");
    assert_int_equal(st, ST_OK);
    for (uint32_t j = 0; j < m->noutputs; j++) {
        const SimTensor *o = NULL;
        for (uint32_t k = 0; k < res.n_outputs; k++)
            if (res.outputs[k].socket_id == (int32_t)j)
                o = &res.outputs[k];
        assert_non_null(o);
        assert_int_equal(o->count, out[j].count);
        /* the ONNX output's shape and, for int8 / uint8 / int16, its type */
        const OnnxEdge *e = &m->outputs[j];
        assert_int_equal(o->ndim, e->shape.ndim);
        for (uint32_t i = 0; i < o->ndim; i++)
            assert_int_equal(o->shape[i], e->shape.d[i]);
        assert_int_equal(o->dtype, fe_onnx_output_dtype(m, j));
        for (int64_t i = 0; i < o->count; i++)
            if (o->data[i] != out[j].data[i])
                fail_msg("output %u element %lld: interpreter %d, simulator %d", j,
                         (long long)i, out[j].data[i], o->data[i]);
    }
    sim_result_free(&res);
    sim_destroy(run);
    graph_destroy(tg);
    diag_finish(&d);
}
