/* cinn_test.c: the helpers of cinn_test.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cinn_test.h"

#include "frontend/interp/interp.h"
#include "frontend/lower/lower.h"
#include "taskir/sim.h"
#include "taskir/verify.h"

/* The primitives ct_check has taken the whole way (a test program's own record). */
static bool seen[CINN_P_COUNT];

void ct_expect_covered(bool (*want)(CinnPrim p))
{
    for (int p = 0; p < CINN_P_COUNT; p++)
        if (want((CinnPrim)p) && !seen[p])
            fail_msg("primitive %s was not checked", fe_cinn_prim_name((CinnPrim)p));
}

static uint64_t next(CtCase *c)
{
    uint64_t z = (c->rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int64_t ct_range(CtCase *c, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(next(c) % (uint64_t)(hi - lo + 1));
}

void ct_begin(CtCase *c, uint64_t seed)
{
    memset(c, 0, sizeof *c);
    c->rng = seed;
    diag_init(&c->d, NULL);
    c->b = fe_cinn_create(&c->d);
    assert_non_null(c->b);
}

void ct_end(CtCase *c)
{
    fe_cinn_destroy(c->b);
    for (uint32_t i = 0; i < c->nin; i++)
        og_tensor_free(&c->in[i]);
    diag_finish(&c->d);
    memset(c, 0, sizeof *c);
}

static void fail_diag(const Diag *d, const char *what)
{
    diag_print(d, stderr, what);
    fail_msg("%s: unexpected error", what);
}

CinnVar ct_input(CtCase *c, const char *name, uint32_t n, const int64_t *d, int32_t p,
                 const int32_t *values)
{
    assert_true(c->nin < CT_MAX_IN);
    OgShape s = {n, {0}};
    for (uint32_t i = 0; i < n; i++)
        s.d[i] = d[i];
    OgTensor *t = &c->in[c->nin++];
    assert_true(og_tensor_alloc(t, &s));
    int64_t a = og_prec_alpha(p);
    for (int64_t i = 0; i < t->count; i++)
        t->data[i] = values ? values[i] : (int32_t)ct_range(c, -a, a);
    CinnVar v = fe_cinn_input(c->b, name, &s, p);
    if (v == CINN_NONE)
        fail_diag(&c->d, name);
    return v;
}

CinnVar ct_const(CtCase *c, const char *name, uint32_t n, const int64_t *d,
                 const int32_t *values, int32_t p)
{
    OgShape s = {n, {0}};
    for (uint32_t i = 0; i < n; i++)
        s.d[i] = d[i];
    OgTensor t = {s, og_shape_volume(&s), (int32_t *)values};
    CinnVar v = fe_cinn_constant(c->b, name, &t, p);
    if (v == CINN_NONE)
        fail_diag(&c->d, name);
    return v;
}

const int32_t *ct_in(const CtCase *c, uint32_t k)
{
    return c->in[k].data;
}

void ct_output(CtCase *c, CinnVar v, const int32_t *want)
{
    const OpGraph *g = fe_cinn_graph(c->b);
    assert_true(g->noutputs < CT_MAX_OUT);
    c->want[g->noutputs] = want;
    if (fe_cinn_output(c->b, v) == CINN_NONE)
        fail_diag(&c->d, "output");
}

/* Compares count values with the expected ones. */
static void compare(const char *what, const char *path, uint32_t j, const int32_t *got,
                    const int32_t *want, int64_t n, const CtCase *c)
{
    for (int64_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            fprintf(stderr, "%s\n", c->xml);
            fail_msg("%s: %s: output %u element %lld is %d, expected %d", what, path, j,
                     (long long)i, got[i], want[i]);
        }
}

void ct_check(CtCase *c, const char *what)
{
    if (fe_cinn_status(c->b) != ST_OK)
        fail_diag(&c->d, what);
    /* builder -> XML -> builder, and the same bytes again */
    char *x1 = NULL, *x2 = NULL;
    size_t n1, n2;
    if (fe_cinn_xml_encode(c->b, &x1, &n1, &c->d) != ST_OK)
        fail_diag(&c->d, what);
    snprintf(c->xml, sizeof c->xml, "%s", x1);
    Diag rd;
    diag_init(&rd, NULL);
    CinnBuilder *b2 = NULL;
    if (fe_cinn_read_xml_mem(x1, n1, "prog.xml", &rd, &b2) != ST_OK) {
        fprintf(stderr, "%s\n", x1);
        fail_diag(&rd, what);
    }
    if (fe_cinn_xml_encode(b2, &x2, &n2, &rd) != ST_OK)
        fail_diag(&rd, what);
    if (n1 != n2 || memcmp(x1, x2, n1) != 0) {
        fprintf(stderr, "written:\n%s\nread back and written:\n%s\n", x1, x2);
        fail_msg("%s: the XML does not round-trip", what);
    }
    assert_int_equal(fe_cinn_num_calls(b2), fe_cinn_num_calls(c->b));
    free(x1);
    free(x2);
    const OpGraph *g = fe_cinn_graph(b2);
    assert_int_equal(g->nnodes, fe_cinn_graph(c->b)->nnodes);
    assert_int_equal(og_num_inputs(g), c->nin);
    uint32_t nout = g->noutputs;
    assert_true(nout >= 1 && nout <= CT_MAX_OUT);
    /* interpreter */
    OgTensor got[CT_MAX_OUT];
    if (fe_interp_run(g, c->in, c->nin, got, &rd) != ST_OK)
        fail_diag(&rd, what);
    for (uint32_t j = 0; j < nout; j++) {
        assert_non_null(c->want[j]);
        compare(what, "interpreter", j, got[j].data, c->want[j], got[j].count, c);
    }
    /* lowering and simulator */
    Graph *tg = NULL;
    if (fe_lower(g, NULL, &tg, &rd) != ST_OK)
        fail_diag(&rd, what);
    Diag vd;
    diag_init(&vd, what);
    if (verify_graph(tg, &vd) != ST_OK)
        fail_diag(&vd, what);
    diag_finish(&vd);
    SimOptions so = {0};
    SimRun *run = NULL;
    if (sim_create(tg, &so, &run, &rd) != ST_OK)
        fail_diag(&rd, what);
    NpyArray arr[CT_MAX_IN];
    SimInput si[CT_MAX_IN];
    char names[CT_MAX_IN][16];
    for (uint32_t i = 0; i < c->nin; i++) {
        memset(&arr[i], 0, sizeof arr[i]);
        arr[i].dtype = NPY_I32;
        arr[i].ndim = c->in[i].shape.ndim;
        for (uint32_t j = 0; j < arr[i].ndim; j++)
            arr[i].shape[j] = c->in[i].shape.d[j];
        arr[i].count = c->in[i].count;
        arr[i].i32 = c->in[i].data;
        snprintf(names[i], sizeof names[i], "%u", i);
        si[i].name = names[i];
        si[i].array = &arr[i];
    }
    SimResult res;
    memset(&res, 0, sizeof res);
    if (sim_run(run, si, c->nin, &res, &rd) != ST_OK)
        fail_diag(&rd, what);
    assert_int_equal(res.n_outputs, nout);
    for (uint32_t j = 0; j < nout; j++) {
        const SimTensor *o = NULL;
        for (uint32_t k = 0; k < res.n_outputs; k++)
            if (res.outputs[k].socket_id == (int32_t)j)
                o = &res.outputs[k];
        assert_non_null(o);
        if (o->count != got[j].count)
            fail_msg("%s: output %u: %lld values from the simulator, %lld from the "
                     "interpreter", what, j, (long long)o->count, (long long)got[j].count);
        compare(what, "simulator", j, o->data, c->want[j], o->count, c);
        og_tensor_free(&got[j]);
    }
    c->nblocks = tg->n_blocks;
    for (uint32_t i = 0; i < fe_cinn_num_calls(b2); i++)
        seen[fe_cinn_get_call(b2, i)->prim] = true;
    sim_result_free(&res);
    sim_destroy(run);
    graph_destroy(tg);
    fe_cinn_destroy(b2);
    diag_finish(&rd);
}

/* Some entry has this rule, where (when not NULL) and a message containing text. */
static void expect_rule(const Diag *d, const char *rule, const char *where, const char *text)
{
    bool seen = false;
    for (size_t i = 0; i < d->n; i++) {
        const DiagEntry *e = &d->entries[i];
        if (strcmp(e->rule, rule) != 0)
            continue;
        seen = true;
        if (where && (!e->where || strcmp(e->where, where) != 0))
            continue;
        if (text && (!e->what || !strstr(e->what, text)))
            continue;
        return;
    }
    diag_print(d, stderr, "got");
    if (!seen)
        fail_msg("no error [%s]", rule);
    fail_msg("no error [%s] at '%s' saying \"%s\"", rule, where ? where : "*", text ? text : "*");
}

void ct_expect_error(CtCase *c, const char *rule, const char *text)
{
    assert_int_equal(fe_cinn_status(c->b), ST_LOGIC);
    expect_rule(&c->d, rule, NULL, text);
}

void ct_expect_xml_error(const char *xml, const char *rule, int line, const char *text)
{
    Diag d;
    diag_init(&d, NULL);
    CinnBuilder *b = NULL;
    Status st = fe_cinn_read_xml_mem(xml, strlen(xml), "prog.xml", &d, &b);
    assert_int_equal(st, ST_LOGIC);
    assert_null(b);
    char where[64];
    snprintf(where, sizeof where, "prog.xml:%d", line);
    expect_rule(&d, rule, line > 0 ? where : NULL, text);
    /* every message names the file */
    for (size_t i = 0; i < d.n; i++)
        assert_true(d.entries[i].where && strncmp(d.entries[i].where, "prog.xml", 8) == 0);
    diag_finish(&d);
}

void ct_expect_lower_error(CtCase *c, const char *rule, const char *text)
{
    assert_int_equal(fe_cinn_status(c->b), ST_OK);
    Graph *tg = NULL;
    Diag d;
    diag_init(&d, NULL);
    Status st = fe_lower(fe_cinn_graph(c->b), NULL, &tg, &d);
    assert_int_equal(st, ST_LOGIC);
    expect_rule(&d, rule, NULL, text);
    diag_finish(&d);
}
