/* onnx_read.c: ModelProto bytes -> OnnxModel (onnx.h).
 *
 * Order: the wire format is walked and capped (pb_wire_precheck: repeated fields, nesting,
 * decode memory) before protobuf-c decodes it; then the model's opset of the default domain;
 * the initializers (values known at compile time) and graph inputs (runtime tensors with
 * fully known shapes; inputs bound by OnnxOptions become constants); then every node is
 * checked against the operator table, and ALL unsupported nodes are reported together
 * [onnx.unsupported]; then the edges are decided (float bits for a pure data-movement model,
 * host quantization for a float input read only by QuantizeLinear, float-holding-integers
 * otherwise); then the nodes are mapped in order (ONNX graphs are topologically sorted) and
 * the graph outputs attached.
 */
#include "frontend/onnx/onnx_internal.h"

#include "frontend/cvm/cvm_ops.h"
#include "taskir/fileio.h"
#include "taskir/pbio.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static bool default_domain(const char *dom)
{
    return !dom || !dom[0] || strcmp(dom, "ai.onnx") == 0;
}

static Status gfail(OnnxCtx *c, const char *rule, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static Status gfail(OnnxCtx *c, const char *rule, const char *where, const char *fmt, ...)
{
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return diag_add(c->d, ST_LOGIC, rule, where, "%s", what);
}

static const char *node_name(const Onnx__NodeProto *n, uint32_t i, char *buf,
                             size_t size)
{
    if (n->name && n->name[0])
        return n->name;
    snprintf(buf, size, "%s_%u", n->op_type ? n->op_type : "node", i);
    return buf;
}

/* ---- graph inputs ---- */

/* The element type and shape of a graph input / output's ValueInfo. */
static Status value_info(OnnxCtx *c, const Onnx__ValueInfoProto *vi, const char *what,
                         int32_t *type, OgShape *s, bool need_shape)
{
    char where[300];
    snprintf(where, sizeof where, "%s '%s'", what, vi->name ? vi->name : "");
    const Onnx__TypeProto *tp = vi->type;
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type)
        return gfail(c, "onnx.graph.type", where, "is not a tensor (sequences, maps and "
                     "optionals are not supported)");
    *type = tp->tensor_type->has_elem_type ? tp->tensor_type->elem_type : 0;
    memset(s, 0, sizeof *s);
    const Onnx__TensorShapeProto *sh = tp->tensor_type->shape;
    if (!sh) {
        if (need_shape)
            return gfail(c, "onnx.shape.dynamic", where, "has no shape: the frontend needs "
                         "every input's shape");
        return ST_OK;
    }
    if (sh->n_dim > OG_MAX_DIMS - 1)
        return gfail(c, "onnx.shape.rank", where, "has %zu dims, at most %d are supported",
                     sh->n_dim, OG_MAX_DIMS - 1);
    s->ndim = (uint32_t)sh->n_dim;
    for (uint32_t k = 0; k < s->ndim; k++) {
        const Onnx__TensorShapeProto__Dimension *dm = sh->dim[k];
        if (dm->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
            if (need_shape)
                return gfail(c, "onnx.shape.dynamic", where, "dim %u is %s%s%s: the frontend "
                             "needs fixed shapes", k,
                             dm->value_case ? "'" : "unknown",
                             dm->value_case && dm->dim_param ? dm->dim_param : "",
                             dm->value_case ? "'" : "");
            s->d[k] = 0;
            continue;
        }
        if (dm->dim_value < 1 || dm->dim_value > OG_MAX_DIM)
            return gfail(c, "onnx.shape.dims", where, "dim %u is %lld, not in 1..%lld", k,
                         (long long)dm->dim_value, (long long)OG_MAX_DIM);
        s->d[k] = dm->dim_value;
    }
    return ST_OK;
}

static const OnnxTensor *bound(const OnnxOptions *opt, const char *name)
{
    for (uint32_t i = 0; opt && i < opt->nbind; i++)
        if (opt->bind[i].name && name && strcmp(opt->bind[i].name, name) == 0)
            return opt->bind[i].value;
    return NULL;
}

static Status add_const(OnnxCtx *c, const char *name, const char *where, OnnxTensor *t)
{
    bool dup;
    OnnxVal *v = onnx_val_add(c, name, &dup);
    if (!v) {
        fe_onnx_tensor_free(t);
        return dup ? gfail(c, "onnx.graph.name", where, "the name '%s' is defined twice", name)
                   : onnx_oom(c);
    }
    v->kind = OV_CONST;
    v->type = t->type;
    v->c = *t;
    v->c.name = v->name;
    return ST_OK;
}

/* Graph input vi bound to the constant b (OnnxOptions.bind): b takes its declared type and
 * must have its declared shape, if any (a dim without a value matches any extent: -1). */
static Status bind_input(OnnxCtx *c, const Onnx__ValueInfoProto *vi, const OnnxTensor *b)
{
    const char *name = vi->name ? vi->name : "";
    char where[300];
    snprintf(where, sizeof where, "graph input '%s'", name);
    const Onnx__TypeProto *tp = vi->type;
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type)
        return gfail(c, "onnx.graph.type", where, "is not a tensor (sequences, maps and "
                     "optionals are not supported)");
    int32_t type = tp->tensor_type->has_elem_type ? tp->tensor_type->elem_type : 0;
    const Onnx__TensorShapeProto *sh = tp->tensor_type->shape;
    OgShape s = {0, {0}};
    if (sh && sh->n_dim > OG_MAX_DIMS)
        return gfail(c, "onnx.shape.rank", where, "has %zu dims, at most %d are supported",
                     sh->n_dim, OG_MAX_DIMS);
    for (size_t k = 0; sh && k < sh->n_dim; k++)
        s.d[s.ndim++] = sh->dim[k]->value_case ==
                                ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE
                            ? sh->dim[k]->dim_value
                            : -1;
    OnnxTensor t;
    Status st = onnx_bind_value(c, where, type, sh ? &s : NULL, b, &t);
    if (st != ST_OK)
        return st;
    return add_const(c, name, where, &t);
}

/* The runtime inputs: their ONNX ValueInfo, in graph order (initializers and bound inputs
 * excluded). */
typedef struct RtInput {
    const Onnx__ValueInfoProto *vi;
    int32_t type;
    OgShape shape;
} RtInput;

/* ---- the edges ---- */

/* The one QuantizeLinear node reading graph input `name`, when that is its only reader. */
static const Onnx__NodeProto *only_quantizer(const Onnx__GraphProto *gr, const char *name)
{
    const Onnx__NodeProto *q = NULL;
    int readers = 0;
    for (size_t i = 0; i < gr->n_node; i++)
        for (size_t k = 0; k < gr->node[i]->n_input; k++)
            if (gr->node[i]->input[k] && strcmp(gr->node[i]->input[k], name) == 0) {
                readers++;
                if (k == 0 && gr->node[i]->op_type &&
                    strcmp(gr->node[i]->op_type, "QuantizeLinear") == 0)
                    q = gr->node[i];
            }
    return readers == 1 ? q : NULL;
}

static Status make_input(OnnxCtx *c, const RtInput *ri, const Onnx__GraphProto *gr)
{
    const char *name = ri->vi->name ? ri->vi->name : "";
    OnnxEdge *e = &c->m->inputs[c->m->ninputs];
    memset(e, 0, sizeof *e);
    e->name = arena_strdup(c->g->arena, name);
    e->onnx_type = ri->type;
    e->shape = ri->shape;
    e->axis = 0;
    char where[300];
    snprintf(where, sizeof where, "graph input '%s'", name);
    if (!name[0])
        return gfail(c, "onnx.graph.name", where, "has no name");
    const OnnxInputRange *rg = onnx_input_range(c->opt, name);
    if (ri->type == ONNX_T_FLOAT) {
        const Onnx__NodeProto *q = only_quantizer(gr, name);
        if (c->float_bits) {
            e->kind = ONNX_EDGE_FLOAT_BITS;
            e->int_type = ONNX_T_INT32;
            e->prec = 32;
        } else if (q) {
            e->kind = ONNX_EDGE_QUANT;
            e->int_type = ONNX_T_UINT8;   /* without a zero point; the mapping checks */
            const OnnxVal *zp = q->n_input > 2 ? onnx_val(c, q->input[2]) : NULL;
            if (zp && zp->kind == OV_CONST)
                e->int_type = zp->type;
            e->prec = onnx_type_prec(e->int_type);
            if (!e->prec)
                return gfail(c, "onnx.quant.type", where, "is quantized to %s; QuantizeLinear "
                             "is supported for uint8 and int8", fe_onnx_type_name(e->int_type));
        } else {
            e->kind = ONNX_EDGE_FLOAT_INT;
            e->int_type = ONNX_T_INT32;
            e->prec = c->opt && c->opt->float_prec ? c->opt->float_prec : 16;
        }
        if (rg && e->kind != ONNX_EDGE_FLOAT_INT)
            return gfail(c, "onnx.input.range", where, "%s: a range applies to integer inputs "
                         "and to float inputs holding integers",
                         e->kind == ONNX_EDGE_QUANT ? "is quantized by the host"
                                                    : "carries float32 bit patterns");
        onnx_type_range(e->int_type, &e->lo, &e->hi);
        if (e->kind == ONNX_EDGE_FLOAT_INT)
            e->hi = og_prec_alpha(e->prec), e->lo = -e->hi;
    } else {
        e->kind = ONNX_EDGE_INT;
        e->int_type = ri->type;
        e->prec = onnx_type_prec(ri->type);
        if (!e->prec)
            return gfail(c, "onnx.type", where, "has element type %s; the frontend reads int8, "
                         "uint8, int16, uint16, int32, int64, uint32, uint64 (these three with "
                         "values within int32), bool and float", fe_onnx_type_name(ri->type));
        onnx_type_range(ri->type, &e->lo, &e->hi);
        if (rg && (rg->lo < e->lo || rg->hi > e->hi))
            return gfail(c, "onnx.input.range", where, "the range %lld..%lld leaves the "
                         "input's type %s (%lld..%lld)", (long long)rg->lo, (long long)rg->hi,
                         fe_onnx_type_name(ri->type), (long long)e->lo, (long long)e->hi);
    }
    if (rg) {   /* the least precision that holds the declared range */
        int64_t m = rg->hi > -rg->lo ? rg->hi : -rg->lo;
        for (e->prec = 2; og_prec_alpha(e->prec) < m; e->prec++)
            ;
        e->lo = rg->lo;
        e->hi = rg->hi;
    }
    if (!e->name)
        return onnx_oom(c);
    /* the OpGraph input: a leading batch axis of 1, then reshaped to the ONNX shape; an
     * input of four dims led by 1 (an ONNX batch of 1) is its own batch axis, so that the
     * INPUT block is y x f (the existing tools' format has no r on an INPUT) */
    OgShape s = {ri->shape.ndim + 1, {1}};
    for (uint32_t k = 0; k < ri->shape.ndim; k++)
        s.d[k + 1] = ri->shape.d[k];
    if (fe_onnx_batch_folded(&ri->shape))
        s = ri->shape;
    OgNode *n;
    Status st = fe_cvm_add_input(c->g, name, &s, e->prec, &n, c->d);
    if (st != ST_OK)
        return st;
    bool dup;
    OnnxVal *v = onnx_val_add(c, name, &dup);
    if (!v)
        return dup ? gfail(c, "onnx.graph.name", where, "the name is defined twice")
                   : onnx_oom(c);
    v->kind = OV_RUN;
    v->type = ri->type;
    v->graph_input = (int32_t)c->m->ninputs;
    c->m->ninputs++;
    if (ri->shape.ndim == 0)
        return gfail(c, "onnx.shape.rank", where, "is a scalar; graph inputs need 1 to %d dims",
                     OG_MAX_DIMS - 1);
    st = onnx_reshape(c, (OgEdge){n->id, 0}, &ri->shape, &v->e);
    v = onnx_val(c, name);   /* the table may have moved */
    v->shape = ri->shape;
    return st;
}

bool fe_onnx_batch_folded(const OgShape *onnx_shape)
{
    return onnx_shape->ndim == 4 && onnx_shape->d[0] == 1;
}

static Status make_output(OnnxCtx *c, const Onnx__ValueInfoProto *vi)
{
    const char *name = vi->name ? vi->name : "";
    char where[300];
    snprintf(where, sizeof where, "graph output '%s'", name);
    OnnxVal *v = onnx_val(c, name);
    if (!v)
        return gfail(c, "onnx.graph.output", where, "no node, input or initializer gives it");
    c->node = NULL;
    if (v->kind == OV_DIV && v->avg)
        return gfail(c, "onnx.float.avg", where, "is an average (AveragePool or "
                     "GlobalAveragePool) that is not floored");
    if (v->kind == OV_DIV)
        return gfail(c, "onnx.float.div", where, "is a float Div by 2^%d that is not floored",
                     v->shift);
    OnnxEdge *e = &c->m->outputs[c->m->noutputs];
    memset(e, 0, sizeof *e);
    e->name = v->name;
    e->onnx_type = v->type;
    e->shape = onnx_shape(v);
    if (e->shape.ndim == 0)
        return gfail(c, "onnx.shape.rank", where, "is a scalar; graph outputs need 1 to %d "
                     "dims", OG_MAX_DIMS);
    OgEdge oe;
    if (v->kind == OV_DEQ) {
        e->kind = ONNX_EDGE_DEQUANT;
        e->onnx_type = ONNX_T_FLOAT;
        e->int_type = v->q_type;
        e->axis = v->q_axis;
        e->nq = v->nq;
        e->scale = v->q_scale;
        e->zero_point = v->q_zp;
        oe = v->e;
    } else {
        Status st = onnx_edge(c, v, &oe);
        if (st != ST_OK)
            return st;
        if (onnx_type_is_float(v->type)) {
            e->kind = c->float_bits ? ONNX_EDGE_FLOAT_BITS : ONNX_EDGE_FLOAT_INT;
            e->int_type = ONNX_T_INT32;
        } else {
            e->kind = ONNX_EDGE_INT;
            e->int_type = v->type;
        }
    }
    /* an OUTPUT block holds at most 4 dims: a longer shape loses its 1s (and then its
     * leading dims are merged); the host knows the ONNX shape (e->shape) */
    OgShape os = *og_edge_shape(c->g, oe);
    if (os.ndim > 4) {
        OgShape t = {0, {0}};
        for (uint32_t k = 0; k < os.ndim; k++)
            if (os.d[k] != 1)
                t.d[t.ndim++] = os.d[k];
        while (t.ndim > 4) {
            t.d[1] *= t.d[0];
            memmove(t.d, t.d + 1, (t.ndim - 1) * sizeof *t.d);
            t.d[--t.ndim] = 0;
        }
        if (t.ndim == 0)
            t.d[t.ndim++] = 1;
        Status st = onnx_reshape(c, oe, &t, &oe);
        if (st != ST_OK)
            return st;
    }
    e->prec = og_edge_prec(c->g, oe);
    if (!og_add_output(c->g, oe.node, oe.index))
        return onnx_oom(c);
    /* DIR/outputK.npy: the ONNX shape, and an integer output's ONNX element type */
    OgDecl *decl = &c->g->out_decl[c->g->noutputs - 1];
    decl->has_shape = true;
    decl->shape = e->shape;
    decl->dtype = e->kind != ONNX_EDGE_INT ? OG_DT_INT32
                  : e->int_type == ONNX_T_INT8 ? OG_DT_INT8
                  : e->int_type == ONNX_T_UINT8 ? OG_DT_UINT8
                  : e->int_type == ONNX_T_INT16 ? OG_DT_INT16 : OG_DT_INT32;
    c->m->noutputs++;
    return ST_OK;
}

/* ---- nodes ---- */

/* Every node whose operator the frontend does not map, all reported. */
static Status check_supported(OnnxCtx *c, const Onnx__GraphProto *gr)
{
    size_t bad = 0;
    c->float_bits = true;
    for (size_t i = 0; i < gr->n_node; i++) {
        const Onnx__NodeProto *n = gr->node[i];
        char nb[64], where[400];
        const char *nm = node_name(n, (uint32_t)i, nb, sizeof nb);
        const OnnxOpInfo *info = default_domain(n->domain) ? onnx_op_find(n->op_type) : NULL;
        if (info && c->opset >= info->since) {
            c->float_bits = c->float_bits && (info->flags & ONNX_OPF_MOVE);
            continue;
        }
        snprintf(where, sizeof where, "node %zu '%s' (%s, opset %lld)", i, nm,
                 n->op_type ? n->op_type : "", (long long)c->opset);
        if (info)
            diag_add(c->d, ST_LOGIC, "onnx.unsupported", where, "%s is read from opset %d on; "
                     "the model imports opset %lld", info->name, info->since,
                     (long long)c->opset);
        else if (!default_domain(n->domain))
            diag_add(c->d, ST_LOGIC, "onnx.unsupported", where, "operator %s of domain '%s' "
                     "is not supported", n->op_type ? n->op_type : "", n->domain);
        else
            diag_add(c->d, ST_LOGIC, "onnx.unsupported", where, "operator %s is not supported "
                     "(docs/onnx.md lists the supported operators)",
                     n->op_type ? n->op_type : "");
        bad++;
    }
    if (bad)
        return diag_add(c->d, ST_LOGIC, "onnx.unsupported", NULL, "%zu node%s of %zu use%s "
                        "operators the frontend does not support", bad, bad > 1 ? "s" : "",
                        gr->n_node, bad > 1 ? "" : "s");
    return ST_OK;
}

/* A Constant node: its value attribute (tensor, or value_int(s) / value_float(s)). */
static Status map_constant_attr(OnnxCtx *c, const Onnx__AttributeProto *a, OnnxTensor *t)
{
    char where[400];
    onnx_node_where(c, where, sizeof where);
    memset(t, 0, sizeof *t);
    if (a->t)
        return onnx_tensor_from_proto(a->t, where, t, c->d);
    bool is_int = strncmp(a->name, "value_int", 9) == 0;
    bool list = a->name[strlen(a->name) - 1] == 's';
    size_t n = list ? (is_int ? a->n_ints : a->n_floats) : 1;
    if (n > ONNX_MAX_ATTR_LIST)
        return onnx_fail(c, "onnx.attr", "the constant has %zu elements", n);
    t->type = is_int ? ONNX_T_INT64 : ONNX_T_FLOAT;
    t->ndim = list ? 1 : 0;
    t->dims[0] = (int64_t)n;
    t->count = (int64_t)n;
    if (is_int && (t->i = malloc((n ? n : 1) * sizeof *t->i)))
        for (size_t k = 0; k < n; k++)
            t->i[k] = list ? a->ints[k] : a->i;
    if (!is_int && (t->f = malloc((n ? n : 1) * sizeof *t->f)))
        for (size_t k = 0; k < n; k++)
            t->f[k] = list ? a->floats[k] : a->f;
    return (t->i || t->f) ? ST_OK : onnx_oom(c);
}

Status onnx_map_constant(OnnxCtx *c)
{
    if (c->node->n_attribute != 1)
        return onnx_fail(c, "onnx.attr", "a Constant has exactly one attribute");
    static const char *const ok[] = {"value", "value_int", "value_ints", "value_float",
                                     "value_floats", NULL};
    Status st = onnx_attrs_known(c, ok);
    if (st != ST_OK)
        return st;
    OnnxTensor t;
    if ((st = map_constant_attr(c, c->node->attribute[0], &t)) != ST_OK)
        return st;
    return onnx_out_const(c, 0, &t);
}

static Status map_node(OnnxCtx *c, const Onnx__NodeProto *n)
{
    const OnnxOpInfo *info = onnx_op_find(n->op_type);
    for (size_t k = 0; k < n->n_input; k++) {
        Status st;
        OnnxVal *v = onnx_in(c, (uint32_t)k, &st);
        if (st != ST_OK)
            return st;
        if (v && k < 32 && (info->params >> k & 1u) && v->kind != OV_CONST)
            return onnx_fail(c, "onnx.param", "input %zu '%s' must be known at compile time "
                             "(an initializer or a Constant), it is computed at run time", k,
                             v->name);
    }
    return info->map(c);
}

/* ---- the model ---- */

static const PbFieldCap caps[] = {
    {&onnx__graph_proto__descriptor, "node", ONNX_MAX_NODES, "onnx.limit.nodes"},
    {&onnx__graph_proto__descriptor, "initializer", ONNX_MAX_NODES, "onnx.limit.nodes"},
    {&onnx__graph_proto__descriptor, "input", ONNX_MAX_NODE_IO, "onnx.limit.io"},
    {&onnx__graph_proto__descriptor, "output", ONNX_MAX_NODE_IO, "onnx.limit.io"},
    {&onnx__node_proto__descriptor, "input", ONNX_MAX_NODE_IO, "onnx.limit.io"},
    {&onnx__node_proto__descriptor, "output", ONNX_MAX_NODE_IO, "onnx.limit.io"},
    {&onnx__node_proto__descriptor, "attribute", ONNX_MAX_ATTRS, "onnx.limit.attrs"},
    {&onnx__tensor_proto__descriptor, "dims", OG_MAX_DIMS, "onnx.tensor.dims"},
    {&onnx__tensor_shape_proto__descriptor, "dim", OG_MAX_DIMS, "onnx.shape.rank"},
};

static Status load(OnnxCtx *c, const Onnx__ModelProto *mp)
{
    OnnxModel *m = c->m;
    m->ir_version = mp->has_ir_version ? mp->ir_version : 0;
    m->opset = 0;
    for (size_t i = 0; i < mp->n_opset_import; i++)
        if (default_domain(mp->opset_import[i]->domain) && mp->opset_import[i]->has_version)
            m->opset = mp->opset_import[i]->version;
    c->opset = m->opset;
    if (m->opset < 1)
        return gfail(c, "onnx.model.opset", "model", "imports no opset of the default domain");
    const Onnx__GraphProto *gr = mp->graph;
    if (!gr)
        return gfail(c, "onnx.model.graph", "model", "has no graph");
    if (gr->n_sparse_initializer)
        return gfail(c, "onnx.tensor.sparse", "graph", "sparse initializers are not read");
    Status st = check_supported(c, gr);
    if (st != ST_OK)
        return st;
    for (size_t i = 0; i < gr->n_initializer; i++) {
        const Onnx__TensorProto *tp = gr->initializer[i];
        char where[300];
        snprintf(where, sizeof where, "initializer '%s'", tp->name ? tp->name : "");
        if (!tp->name || !tp->name[0])
            return gfail(c, "onnx.graph.name", where, "has no name");
        if (bound(c->opt, tp->name))   /* a graph input's default value, bound instead */
            continue;
        OnnxTensor t;
        if ((st = onnx_tensor_from_proto(tp, where, &t, c->d)) != ST_OK)
            return st;
        if ((st = add_const(c, tp->name, where, &t)) != ST_OK)
            return st;
    }
    if ((st = onnx_check_options(c, gr)) != ST_OK)
        return st;
    RtInput *rt = calloc(gr->n_input ? gr->n_input : 1, sizeof *rt);
    if (!rt)
        return onnx_oom(c);
    uint32_t nrt = 0;
    for (size_t i = 0; i < gr->n_input && st == ST_OK; i++) {
        const Onnx__ValueInfoProto *vi = gr->input[i];
        const char *name = vi->name ? vi->name : "";
        const OnnxTensor *b = bound(c->opt, name);
        if (b) {
            st = bind_input(c, vi, b);
            continue;
        }
        if (onnx_val(c, name))    /* an initializer listed as an input (IR version < 4) */
            continue;
        rt[nrt].vi = vi;
        st = value_info(c, vi, "graph input", &rt[nrt].type, &rt[nrt].shape, true);
        nrt++;
    }
    m->inputs = arena_alloc(c->g->arena, nrt ? nrt : 1, sizeof *m->inputs);
    m->outputs = arena_alloc(c->g->arena, gr->n_output ? gr->n_output : 1, sizeof *m->outputs);
    if (st == ST_OK && (!m->inputs || !m->outputs))
        st = onnx_oom(c);
    m->float_bits = c->float_bits;
    for (uint32_t i = 0; i < nrt && st == ST_OK; i++)
        st = make_input(c, &rt[i], gr);
    free(rt);
    for (size_t i = 0; i < gr->n_node && st == ST_OK; i++) {
        char nb[64];
        c->node = gr->node[i];
        c->node_index = (uint32_t)i;
        c->node_name = node_name(c->node, (uint32_t)i, nb, sizeof nb);
        st = map_node(c, c->node);
        if (st == ST_OK && og_oom(c->g))
            st = onnx_oom(c);
    }
    c->node = NULL;
    c->node_name = NULL;
    if (st == ST_OK && gr->n_output == 0)
        st = gfail(c, "onnx.graph.output", "graph", "has no outputs");
    for (size_t i = 0; i < gr->n_output && st == ST_OK; i++)
        st = make_output(c, gr->output[i]);
    return st;
}

Status fe_onnx_load_mem(const uint8_t *buf, size_t len, const OnnxOptions *opt,
                        OnnxModel **out, Diag *d)
{
    *out = NULL;
    Status st = pb_wire_precheck(&onnx__model_proto__descriptor, buf, len, caps,
                                 sizeof caps / sizeof *caps, (uint64_t)ONNX_MAX_FILE_BYTES * 8,
                                 d);
    if (st != ST_OK)
        return st;
    ProtobufCMessage *msg;
    st = pb_unpack(&onnx__model_proto__descriptor, buf, len, "ModelProto", &msg, d);
    if (st != ST_OK)
        return st;
    Onnx__ModelProto *mp = (Onnx__ModelProto *)msg;
    OnnxCtx c;
    memset(&c, 0, sizeof c);
    c.d = d;
    c.opt = opt;
    c.m = calloc(1, sizeof *c.m);
    c.g = og_create("cvm");
    if (!c.m || !c.g) {
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    } else {
        c.m->g = c.g;
        st = load(&c, mp);
    }
    for (uint32_t i = 0; i < c.nvals; i++)
        fe_onnx_tensor_free(&c.vals[i].c);
    free(c.vals);
    free(c.slots);
    protobuf_c_message_free_unpacked(&mp->base, NULL);
    if (st != ST_OK) {
        if (c.m)
            c.m->g = c.g;
        fe_onnx_destroy(c.m);
        if (!c.m)
            og_destroy(c.g);
        return st;
    }
    *out = c.m;
    return ST_OK;
}

Status fe_onnx_load(const char *path, const OnnxOptions *opt, OnnxModel **out, Diag *d)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    *out = NULL;
    Status st = tir_read_file(path, ONNX_MAX_FILE_BYTES, &buf, &len, d);
    if (st != ST_OK)
        return st;
    st = fe_onnx_load_mem(buf, len, opt, out, d);
    free(buf);
    return st;
}

void fe_onnx_destroy(OnnxModel *m)
{
    if (!m)
        return;
    og_destroy(m->g);
    free(m);
}
