/* cvm_build.c: adding CVM nodes to an OpGraph with full checking. The reader builds every
 * model through these three calls, so a graph made by a test or an example generator is
 * checked exactly like one read from a file. Order of checks for an operator: input count
 * bounds, input references, attributes (parse), output shapes (shape) and their limits,
 * output precisions (prec) and their range 1..32.
 */
#include "frontend/cvm/cvm_ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static Status node_limit(CvmCtx *c, const OgShape *s, const char *what)
{
    const char *lim = og_shape_limit(s);
    if (!lim)
        return ST_OK;
    char rule[40], sb[128];
    snprintf(rule, sizeof rule, "cvm.limit.%s", lim);
    og_shape_str(s, sb, sizeof sb);
    if (strcmp(lim, "ndim") == 0)
        return cvm_fail(c, rule, "%s has shape %s: tensors have 1 to %d dims", what, sb,
                        OG_MAX_DIMS);
    if (strcmp(lim, "dim") == 0)
        return cvm_fail(c, rule, "%s has shape %s: each dim must be 1 to %lld", what, sb,
                        (long long)OG_MAX_DIM);
    return cvm_fail(c, rule, "%s has shape %s: more than %lld elements", what, sb,
                    (long long)OG_MAX_VOLUME);
}

static Status prec_range(CvmCtx *c, int32_t p, const char *what)
{
    if (p < 1 || p > 32)
        return cvm_fail(c, "cvm.precision.range", "%s has precision %d, outside 1..32", what,
                        (int)p);
    return ST_OK;
}

/* Drops the last node again (a failed add leaves no half-made node behind). */
static Status undo(OpGraph *g, Status st)
{
    if (g->nnodes)
        g->nnodes--;
    return st;
}

static Status graph_oom(Diag *d)
{
    return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
}

Status fe_cvm_add_input(OpGraph *g, const char *name, const OgShape *shape, int32_t prec,
                        OgNode **out, Diag *d)
{
    OgNode *n = og_add_node(g, OG_INPUT, -1, "null", name, 0, 1);
    if (!n)
        return graph_oom(d);
    CvmCtx c = {g, n, d, false};
    n->out_shape[0] = *shape;
    n->out_prec[0] = prec;
    Status st = node_limit(&c, shape, "the input");
    if (st == ST_OK)
        st = prec_range(&c, prec, "the input");
    if (st != ST_OK)
        return undo(g, st);
    if (out)
        *out = n;
    return ST_OK;
}

Status fe_cvm_add_const(OpGraph *g, const char *name, const OgTensor *value, int32_t prec,
                        OgNode **out, Diag *d)
{
    OgNode *n = og_add_node(g, OG_CONST, -1, "null", name, 0, 1);
    if (!n)
        return graph_oom(d);
    CvmCtx c = {g, n, d, false};
    n->out_shape[0] = value->shape;
    Status st = node_limit(&c, &value->shape, "the parameter");
    if (st != ST_OK)
        return undo(g, st);
    if (value->count != og_shape_volume(&value->shape))
        return undo(g, cvm_fail(&c, "cvm.params.format", "the parameter holds %lld values for "
                                "shape volume %lld", (long long)value->count,
                                (long long)og_shape_volume(&value->shape)));
    int32_t need = cvm_prec_of(value);
    if (need > 32)
        return undo(g, cvm_fail(&c, "cvm.params.range", "the parameter holds a value outside "
                                "precision 32 (-2^31)"));
    if (prec == 0)
        prec = need;
    if ((st = prec_range(&c, prec, "the parameter")) != ST_OK)
        return undo(g, st);
    if (need > prec)
        return undo(g, cvm_fail(&c, "cvm.params.range", "a value of the parameter needs "
                                "precision %d, more than its %d", (int)need, (int)prec));
    n->out_prec[0] = prec;
    n->value.shape = value->shape;
    n->value.count = value->count;
    n->value.data = arena_alloc(g->arena, (size_t)value->count, sizeof *n->value.data);
    if (!n->value.data)
        return undo(g, graph_oom(d));
    memcpy(n->value.data, value->data, (size_t)value->count * sizeof *n->value.data);
    if (out)
        *out = n;
    return ST_OK;
}

Status fe_cvm_add_op(OpGraph *g, CvmOp op, const char *name, const OgEdge *inputs,
                     uint32_t ninputs, const CvmKV *attrs, size_t nattrs, OgNode **out,
                     Diag *d)
{
    const CvmOpInfo *info = cvm_op_info(op);
    if (!info)
        return diag_add(d, ST_LOGIC, "cvm.op.unknown", name, "unknown operator code %d", (int)op);
    OgNode *n = og_add_node(g, OG_OP, op, info->name, name, ninputs, (uint32_t)info->nout);
    if (!n)
        return graph_oom(d);
    CvmCtx c = {g, n, d, false};
    uint32_t max_in = info->max_in < 0 ? CVM_MAX_INPUTS : (uint32_t)info->max_in;
    if (ninputs < (uint32_t)info->min_in || ninputs > max_in) {
        if ((uint32_t)info->min_in == max_in)
            return undo(g, cvm_fail(&c, "cvm.op.inputs", "%s takes %u inputs, the node has %u",
                                    info->name, max_in, ninputs));
        return undo(g, cvm_fail(&c, "cvm.op.inputs", "%s takes %d to %u inputs, the node has %u",
                                info->name, info->min_in, max_in, ninputs));
    }
    for (uint32_t i = 0; i < ninputs; i++) {
        const OgNode *src = og_node(g, inputs[i].node);
        if (!src || src == n || inputs[i].index >= src->noutputs)
            return undo(g, cvm_fail(&c, "cvm.json.input", "input %u refers to output %u of node "
                                    "%d, which does not exist before this node", i,
                                    inputs[i].index, (int)inputs[i].node));
        n->inputs[i] = inputs[i];
    }
    CvmRawAttrs raw = {attrs, nattrs};
    Status st = info->parse(&c, &raw);
    if (st != ST_OK)
        return undo(g, st);
    OgShape *ish = calloc(ninputs ? ninputs : 1, sizeof *ish);
    int32_t *ipr = calloc(ninputs ? ninputs : 1, sizeof *ipr);
    if (!ish || !ipr) {
        free(ish);
        free(ipr);
        return undo(g, graph_oom(d));
    }
    for (uint32_t i = 0; i < ninputs; i++) {
        ish[i] = *og_edge_shape(g, inputs[i]);
        ipr[i] = og_edge_prec(g, inputs[i]);
    }
    st = info->shape(&c, ish, n->out_shape);
    for (uint32_t k = 0; st == ST_OK && k < n->noutputs; k++) {
        char what[32];
        snprintf(what, sizeof what, "output %u", k);
        st = node_limit(&c, &n->out_shape[k], what);
    }
    if (st == ST_OK)
        st = info->prec(&c, ish, ipr, n->out_prec);
    for (uint32_t k = 0; st == ST_OK && k < n->noutputs; k++) {
        char what[32];
        snprintf(what, sizeof what, "output %u", k);
        st = prec_range(&c, n->out_prec[k], what);
    }
    free(ish);
    free(ipr);
    if (st != ST_OK)
        return undo(g, st);
    if (og_oom(g))
        return undo(g, graph_oom(d));
    if (out)
        *out = n;
    return ST_OK;
}
