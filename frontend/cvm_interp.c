/* cvm_interp.c: the reference interpreter (interp.h) for OpGraphs of dialect "cvm".
 *
 * Nodes run in graph order. Each output value is kept while a later node or a model output
 * still reads it (use counts), then freed; inputs and parameters are read in place. Each
 * operator's run function (cvm_ops.def) computes into freshly zeroed outputs of the inferred
 * shapes; afterwards the interpreter checks that no result left int32 and that every value
 * lies within the inferred precision (except the -1 fill rows of the vision operators). A
 * failed check is a broken invariant of precision inference: a runtime error.
 */
#include "frontend/interp.h"

#include "frontend/cvm_ops.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Slot {
    OgTensor t;
    const OgTensor *ref;    /* where the value lives: &t when owned, else borrowed */
    uint32_t uses;          /* readers still to come */
} Slot;

typedef struct Run {
    const OpGraph *g;
    Diag *d;
    Slot *slots;            /* one per (node, output), node-major */
    uint32_t *first;        /* slot index of each node's output 0 */
    const TirProgress *progress; /* told of each operator run; may be NULL */
} Run;

static Slot *slot(Run *r, OgEdge e)
{
    return &r->slots[r->first[e.node] + e.index];
}

static void release(Slot *s)
{
    if (s->uses > 0)
        s->uses--;
    if (s->uses == 0 && s->ref == &s->t) {
        og_tensor_free(&s->t);
        s->ref = NULL;
    }
}

static Status fail(Run *r, const OgNode *n, Status st, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static Status fail(Run *r, const OgNode *n, Status st, const char *rule, const char *fmt, ...)
{
    char where[320], what[512];
    og_node_describe(n, where, sizeof where);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return diag_add(r->d, st, rule, where, "%s", what);
}

static Status feed_input(Run *r, const OgNode *n, const OgTensor *in)
{
    Slot *s = &r->slots[r->first[n->id]];
    if (!og_shape_eq(&in->shape, &n->out_shape[0]) || in->count != og_shape_volume(&in->shape)) {
        char a[128], b[128], where[320];
        og_node_describe(n, where, sizeof where);
        return diag_add(r->d, ST_LOGIC, "cvm.input.shape", where,
                        "the input tensor has shape %s, the model expects %s",
                        og_shape_str(&in->shape, a, sizeof a),
                        og_shape_str(&n->out_shape[0], b, sizeof b));
    }
    int64_t alpha = og_prec_alpha(n->out_prec[0]);
    for (int64_t i = 0; i < in->count; i++)
        if (in->data[i] > alpha || in->data[i] < -alpha)
            return fail(r, n, ST_LOGIC, "cvm.input.range",
                        "input value %lld (element %lld) lies outside the input's precision",
                        (long long)in->data[i], (long long)i);
    s->ref = in;
    return ST_OK;
}

static Status run_op(Run *r, const OgNode *n)
{
    const CvmOpInfo *info = cvm_op_info((CvmOp)n->op);
    if (!info)
        return fail(r, n, ST_RUNTIME, "cvm.interp.invariant", "unknown operator code %d", (int)n->op);
    const OgTensor **in = calloc(n->ninputs ? n->ninputs : 1, sizeof *in);
    OgTensor *out = calloc(n->noutputs, sizeof *out);
    if (!in || !out) {
        free(in);
        free(out);
        return diag_add(r->d, ST_RUNTIME, "oom", NULL, "out of memory");
    }
    for (uint32_t i = 0; i < n->ninputs; i++)
        in[i] = slot(r, n->inputs[i])->ref;
    Status st = ST_OK;
    for (uint32_t k = 0; k < n->noutputs && st == ST_OK; k++)
        if (!og_tensor_alloc(&out[k], &n->out_shape[k]))
            st = diag_add(r->d, ST_RUNTIME, "oom", NULL, "out of memory");
    CvmCtx c = {(OpGraph *)r->g, (OgNode *)n, r->d, false};
    if (st == ST_OK)
        st = info->run(&c, in, out);
    if (st == ST_OK && c.overflow)
        st = fail(r, n, ST_RUNTIME, "cvm.interp.invariant",
                  "a result left int32 although precision inference bounds it");
    for (uint32_t k = 0; st == ST_OK && !(info->flags & CVM_OPF_FILL) && k < n->noutputs; k++)
        if (!og_tensor_in_prec(&out[k], n->out_prec[k]))
            st = fail(r, n, ST_RUNTIME, "cvm.interp.invariant",
                      "output %u holds a value outside its inferred precision %d", k,
                      (int)n->out_prec[k]);
    free(in);
    if (st != ST_OK) {
        for (uint32_t k = 0; k < n->noutputs; k++)
            og_tensor_free(&out[k]);
        free(out);
        return st;
    }
    for (uint32_t k = 0; k < n->noutputs; k++) {
        Slot *s = &r->slots[r->first[n->id] + k];
        s->t = out[k];
        s->ref = &s->t;
        if (s->uses == 0) {
            og_tensor_free(&s->t);
            s->ref = NULL;
        }
    }
    free(out);
    for (uint32_t i = 0; i < n->ninputs; i++)
        release(slot(r, n->inputs[i]));
    return ST_OK;
}

static Status run_all(Run *r, const OgTensor *inputs, uint32_t ninputs, OgTensor *outputs)
{
    const OpGraph *g = r->g;
    uint32_t k = 0;
    uint64_t ops = 0, nops = 0;
    for (uint32_t i = 0; i < g->nnodes; i++)
        nops += g->nodes[i]->kind != OG_INPUT && g->nodes[i]->kind != OG_CONST;
    for (uint32_t i = 0; i < g->nnodes; i++) {
        const OgNode *n = g->nodes[i];
        Status st = ST_OK;
        if (n->kind == OG_INPUT) {
            if (k >= ninputs)
                return diag_add(r->d, ST_LOGIC, "cvm.input.missing", NULL,
                                "the model has %u inputs, %u were given", og_num_inputs(g),
                                ninputs);
            st = feed_input(r, n, &inputs[k++]);
        } else if (n->kind == OG_CONST) {
            r->slots[r->first[i]].ref = &n->value;
        } else {
            st = run_op(r, n);
            tir_progress(r->progress, "operator", ++ops, nops);
        }
        if (st != ST_OK)
            return st;
    }
    if (k != ninputs)
        return diag_add(r->d, ST_LOGIC, "cvm.input.missing", NULL,
                        "the model has %u inputs, %u were given", k, ninputs);
    for (uint32_t j = 0; j < g->noutputs; j++) {
        const OgTensor *v = slot(r, g->outputs[j])->ref;
        if (!v || !og_tensor_alloc(&outputs[j], &v->shape)) {
            for (uint32_t m = 0; m < j; m++)
                og_tensor_free(&outputs[m]);
            return diag_add(r->d, ST_RUNTIME, v ? "oom" : "cvm.interp.invariant", NULL,
                            v ? "out of memory" : "model output %u was freed early", j);
        }
        memcpy(outputs[j].data, v->data, (size_t)v->count * sizeof *v->data);
    }
    return ST_OK;
}

Status fe_interp_run(const OpGraph *g, const OgTensor *inputs, uint32_t ninputs,
                     OgTensor *outputs, Diag *d)
{
    return fe_interp_run_progress(g, inputs, ninputs, outputs, NULL, d);
}

Status fe_interp_run_progress(const OpGraph *g, const OgTensor *inputs, uint32_t ninputs,
                              OgTensor *outputs, const TirProgress *progress, Diag *d)
{
    for (uint32_t j = 0; j < g->noutputs; j++)
        memset(&outputs[j], 0, sizeof outputs[j]);
    if (strcmp(g->dialect, "cvm") != 0)
        return diag_add(d, ST_RUNTIME, "interp.dialect", NULL,
                        "the interpreter runs dialect \"cvm\", not \"%s\"", g->dialect);
    Run r = {g, d, NULL, calloc(g->nnodes ? g->nnodes : 1, sizeof *r.first), progress};
    if (!r.first)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    uint64_t nslots = 0;
    for (uint32_t i = 0; i < g->nnodes; i++) {
        r.first[i] = (uint32_t)nslots;
        nslots += g->nodes[i]->noutputs;
    }
    r.slots = calloc(nslots ? (size_t)nslots : 1, sizeof *r.slots);
    if (!r.slots) {
        free(r.first);
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    }
    for (uint32_t i = 0; i < g->nnodes; i++)
        for (uint32_t k = 0; k < g->nodes[i]->ninputs; k++)
            slot(&r, g->nodes[i]->inputs[k])->uses++;
    for (uint32_t j = 0; j < g->noutputs; j++)
        slot(&r, g->outputs[j])->uses++;
    Status st = run_all(&r, inputs, ninputs, outputs);
    for (uint64_t i = 0; i < nslots; i++)
        if (r.slots[i].ref == &r.slots[i].t)
            og_tensor_free(&r.slots[i].t);
    free(r.slots);
    free(r.first);
    return st;
}

Status fe_tensor_from_npy(const NpyArray *a, const char *what, OgTensor *t, Diag *d)
{
    memset(t, 0, sizeof *t);
    if (!a->i32)
        return diag_add(d, ST_LOGIC, "cvm.input.shape", what,
                        "the array holds %s values; the interpreter takes integers",
                        npy_dtype_name(a->dtype));
    if (a->ndim < 1 || a->ndim > OG_MAX_DIMS)
        return diag_add(d, ST_LOGIC, "cvm.input.shape", what,
                        "the array has %u dims; tensors have 1 to %d", a->ndim, OG_MAX_DIMS);
    t->shape.ndim = a->ndim;
    for (uint32_t i = 0; i < a->ndim; i++)
        t->shape.d[i] = a->shape[i];
    t->count = a->count;
    t->data = a->i32;
    return ST_OK;
}
