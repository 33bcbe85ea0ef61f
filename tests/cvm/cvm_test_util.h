/* cvm_test_util.h: helpers shared by the CVM tests: build a one-operator graph whose operands
 * are model inputs, run it through the interpreter, and compare with hand-computed values;
 * and check that a Diag holds a rule id with a node name in its `where`. Include after
 * <cmocka.h>. */
#ifndef TESTS_CVM_TEST_UTIL_H
#define TESTS_CVM_TEST_UTIL_H

#include "frontend/cvm/cvm.h"
#include "frontend/interp/interp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An operand: shape, values, precision. */
typedef struct TIn {
    uint32_t ndim;
    int64_t d[OG_MAX_DIMS];
    const int32_t *v;
    int32_t prec;
} TIn;

/* The result of one operator run. */
typedef struct TOut {
    Status st;              /* of building (parse/shape/prec) or of running */
    Diag d;
    OpGraph *g;
    OgNode *node;
    OgTensor out[2];
    uint32_t nout;
} TOut;

static inline OgShape tshape(uint32_t ndim, const int64_t *d)
{
    OgShape s = {ndim, {0}};
    for (uint32_t i = 0; i < ndim && i < OG_MAX_DIMS; i++)
        s.d[i] = d[i];
    return s;
}

/* Builds inputs in0..inN-1 and the operator `op` named "op1" with attrs ("k", "v", ... ,
 * NULL), then runs it when building succeeded. */
static inline void top_run(TOut *r, CvmOp op, const TIn *ins, uint32_t nin, const char *const *kv)
{
    memset(r, 0, sizeof *r);
    diag_init(&r->d, "test.json");
    r->g = og_create("cvm");
    assert_non_null(r->g);
    OgEdge e[8];
    OgTensor t[8];
    for (uint32_t i = 0; i < nin; i++) {
        char name[16];
        snprintf(name, sizeof name, "in%u", i);
        OgShape s = tshape(ins[i].ndim, ins[i].d);
        OgNode *n;
        r->st = fe_cvm_add_input(r->g, name, &s, ins[i].prec, &n, &r->d);
        assert_int_equal(r->st, ST_OK);
        e[i].node = n->id;
        e[i].index = 0;
        t[i].shape = s;
        t[i].count = og_shape_volume(&s);
        t[i].data = (int32_t *)ins[i].v;
    }
    CvmKV attrs[16];
    size_t na = 0;
    for (; kv && kv[2 * na]; na++) {
        attrs[na].key = kv[2 * na];
        attrs[na].value = kv[2 * na + 1];
    }
    r->st = fe_cvm_add_op(r->g, op, "op1", e, nin, attrs, na, &r->node, &r->d);
    if (r->st != ST_OK)
        return;
    assert_true(og_add_output(r->g, r->node->id, 0));
    if (r->node->noutputs > 1)
        assert_true(og_add_output(r->g, r->node->id, 1));
    r->nout = r->g->noutputs;
    r->st = fe_interp_run(r->g, t, nin, r->out, &r->d);
    if (r->st != ST_OK)
        diag_print(&r->d, stderr, "test");
}

static inline void top_free(TOut *r)
{
    for (uint32_t k = 0; k < 2; k++)
        og_tensor_free(&r->out[k]);
    og_destroy(r->g);
    diag_finish(&r->d);
}

/* Output k has shape (ndim, d) and values want. */
static inline void top_expect(const TOut *r, uint32_t k, uint32_t ndim, const int64_t *d,
                              const int32_t *want)
{
    assert_int_equal(r->st, ST_OK);
    const OgTensor *o = &r->out[k];
    assert_int_equal(o->shape.ndim, ndim);
    for (uint32_t i = 0; i < ndim; i++)
        assert_int_equal(o->shape.d[i], d[i]);
    for (int64_t i = 0; i < o->count; i++) {
        if (o->data[i] != want[i])
            fprintf(stderr, "element %lld: got %d, want %d\n", (long long)i, o->data[i], want[i]);
        assert_int_equal(o->data[i], want[i]);
    }
}

/* The Diag has an entry with this rule whose where (or message) names `name`. */
static inline void expect_rule(const Diag *d, const char *rule, const char *name)
{
    long i = diag_find(d, rule);
    if (i < 0) {
        fprintf(stderr, "expected rule [%s], got:\n", rule);
        diag_print(d, stderr, "test");
    }
    assert_true(i >= 0);
    if (name) {
        const DiagEntry *e = &d->entries[i];
        bool found = (e->where && strstr(e->where, name)) || (e->what && strstr(e->what, name));
        if (!found)
            diag_print(d, stderr, "test");
        assert_true(found);
    }
}

#define SHP(...) ((const int64_t[]){__VA_ARGS__})
#define VALS(...) ((const int32_t[]){__VA_ARGS__})
#define ND(...) (uint32_t)(sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), {__VA_ARGS__}
#define KV(...) ((const char *const[]){__VA_ARGS__, NULL})

#endif
