/* onnx_build.c: see onnx_build.h. The builder keeps the protobuf-c structs themselves,
 * every allocation on one list, so that destroy frees them all. */
#include "frontend/onnx/onnx_build.h"

#include "frontend/onnx/onnx.h"
#include "frontend/onnx/onnx.pb-c.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct OnnxBuilder {
    Onnx__ModelProto model;
    Onnx__GraphProto graph;
    Onnx__OperatorSetIdProto opset;
    Onnx__OperatorSetIdProto *opsets[1];
    void **allocs;
    size_t nallocs, capallocs;
    bool oom;
};

static void *keep(OnnxBuilder *b, void *p)
{
    if (!p) {
        b->oom = true;
        return NULL;
    }
    if (b->nallocs == b->capallocs) {
        size_t cap = b->capallocs ? 2 * b->capallocs : 64;
        void **na = realloc(b->allocs, cap * sizeof *na);
        if (!na) {
            free(p);
            b->oom = true;
            return NULL;
        }
        b->allocs = na;
        b->capallocs = cap;
    }
    b->allocs[b->nallocs++] = p;
    return p;
}

static void *alloc(OnnxBuilder *b, size_t n, size_t size)
{
    return keep(b, calloc(n ? n : 1, size));
}

static char *dup(OnnxBuilder *b, const char *s)
{
    char *p = alloc(b, strlen(s) + 1, 1);
    if (p)
        memcpy(p, s, strlen(s) + 1);
    return p;
}

/* Appends p to the array *arr of *n pointers. */
static void push(OnnxBuilder *b, void ***arr, size_t *n, void *p)
{
    if (!p || b->oom)
        return;
    void **na = alloc(b, *n + 1, sizeof *na);
    if (!na)
        return;
    if (*n)
        memcpy(na, *arr, *n * sizeof *na);
    na[(*n)++] = p;
    *arr = na;
}

OnnxBuilder *fe_onnx_builder_create(int64_t opset)
{
    OnnxBuilder *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    onnx__model_proto__init(&b->model);
    onnx__graph_proto__init(&b->graph);
    onnx__operator_set_id_proto__init(&b->opset);
    b->opset.domain = "";
    b->opset.has_version = true;
    b->opset.version = opset;
    b->opsets[0] = &b->opset;
    b->model.has_ir_version = true;
    b->model.ir_version = 7;
    b->model.n_opset_import = 1;
    b->model.opset_import = b->opsets;
    b->model.producer_name = "taskir";
    b->model.graph = &b->graph;
    b->graph.name = "graph";
    return b;
}

void fe_onnx_builder_destroy(OnnxBuilder *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->nallocs; i++)
        free(b->allocs[i]);
    free(b->allocs);
    free(b);
}

static Onnx__ValueInfoProto *value_info(OnnxBuilder *b, const char *name, int32_t type,
                                        const int64_t *dims, size_t ndim)
{
    Onnx__ValueInfoProto *vi = alloc(b, 1, sizeof *vi);
    Onnx__TypeProto *tp = alloc(b, 1, sizeof *tp);
    Onnx__TypeProto__Tensor *tt = alloc(b, 1, sizeof *tt);
    Onnx__TensorShapeProto *sh = alloc(b, 1, sizeof *sh);
    Onnx__TensorShapeProto__Dimension **dm = alloc(b, ndim, sizeof *dm);
    if (b->oom)
        return NULL;
    onnx__value_info_proto__init(vi);
    onnx__type_proto__init(tp);
    onnx__type_proto__tensor__init(tt);
    onnx__tensor_shape_proto__init(sh);
    for (size_t k = 0; k < ndim; k++) {
        dm[k] = alloc(b, 1, sizeof **dm);
        if (!dm[k])
            return NULL;
        onnx__tensor_shape_proto__dimension__init(dm[k]);
        dm[k]->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
        dm[k]->dim_value = dims[k];
    }
    sh->n_dim = ndim;
    sh->dim = dm;
    tt->has_elem_type = true;
    tt->elem_type = type;
    tt->shape = sh;
    tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    tp->tensor_type = tt;
    vi->name = dup(b, name);
    vi->type = tp;
    return vi;
}

void fe_onnx_builder_input(OnnxBuilder *b, const char *name, int32_t type, const int64_t *dims,
                           size_t ndim)
{
    push(b, (void ***)&b->graph.input, &b->graph.n_input, value_info(b, name, type, dims, ndim));
}

void fe_onnx_builder_output(OnnxBuilder *b, const char *name, int32_t type,
                            const int64_t *dims, size_t ndim)
{
    push(b, (void ***)&b->graph.output, &b->graph.n_output,
         value_info(b, name, type, dims, ndim));
}

static size_t elem_bytes(int32_t type)
{
    switch (type) {
    case ONNX_T_UINT8: case ONNX_T_INT8: case ONNX_T_BOOL: return 1;
    case ONNX_T_UINT16: case ONNX_T_INT16: return 2;
    case ONNX_T_INT32: case ONNX_T_UINT32: return 4;
    default: return 8;
    }
}

void fe_onnx_builder_init(OnnxBuilder *b, const char *name, int32_t type, const int64_t *dims,
                          size_t ndim, const int64_t *ints, const float *floats)
{
    Onnx__TensorProto *t = alloc(b, 1, sizeof *t);
    int64_t *dd = alloc(b, ndim, sizeof *dd);
    if (b->oom)
        return;
    onnx__tensor_proto__init(t);
    size_t n = 1;
    for (size_t k = 0; k < ndim; k++) {
        dd[k] = dims[k];
        n *= (size_t)dims[k];
    }
    t->n_dims = ndim;
    t->dims = dd;
    t->has_data_type = true;
    t->data_type = type;
    t->name = dup(b, name);
    if (type == ONNX_T_FLOAT) {
        float *f = alloc(b, n, sizeof *f);
        if (!f)
            return;
        memcpy(f, floats, n * sizeof *f);
        t->n_float_data = n;
        t->float_data = f;
    } else {
        size_t es = elem_bytes(type);
        uint8_t *raw = alloc(b, n, es);
        if (!raw)
            return;
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < es; k++)
                raw[i * es + k] = (uint8_t)((uint64_t)ints[i] >> (8 * k));
        t->has_raw_data = true;
        t->raw_data.len = n * es;
        t->raw_data.data = raw;
    }
    push(b, (void ***)&b->graph.initializer, &b->graph.n_initializer, t);
}

static char **names(OnnxBuilder *b, const char *const *v, size_t *n)
{
    *n = 0;
    while (v && v[*n])
        (*n)++;
    char **out = alloc(b, *n, sizeof *out);
    for (size_t i = 0; out && i < *n; i++)
        out[i] = dup(b, v[i]);
    return out;
}

void fe_onnx_builder_node(OnnxBuilder *b, const char *op_type, const char *name,
                          const char *const *inputs, const char *const *outputs,
                          const OnnxBuildAttr *attrs, size_t nattrs)
{
    Onnx__NodeProto *n = alloc(b, 1, sizeof *n);
    Onnx__AttributeProto **ap = alloc(b, nattrs, sizeof *ap);
    if (b->oom)
        return;
    onnx__node_proto__init(n);
    n->op_type = dup(b, op_type);
    n->name = dup(b, name);
    n->domain = "";
    n->input = names(b, inputs, &n->n_input);
    n->output = names(b, outputs, &n->n_output);
    for (size_t k = 0; k < nattrs; k++) {
        Onnx__AttributeProto *a = ap[k] = alloc(b, 1, sizeof *a);
        if (!a)
            return;
        onnx__attribute_proto__init(a);
        a->name = dup(b, attrs[k].name);
        a->has_type = true;
        switch (attrs[k].kind) {
        case OBA_INT:
            a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
            a->has_i = true;
            a->i = attrs[k].i;
            break;
        case OBA_INTS: {
            a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
            int64_t *v = alloc(b, attrs[k].n, sizeof *v);
            if (!v)
                return;
            memcpy(v, attrs[k].ints, attrs[k].n * sizeof *v);
            a->n_ints = attrs[k].n;
            a->ints = v;
            break;
        }
        case OBA_FLOAT:
            a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
            a->has_f = true;
            a->f = attrs[k].f;
            break;
        case OBA_STRING:
            a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
            a->has_s = true;
            a->s.data = (uint8_t *)dup(b, attrs[k].s);
            a->s.len = strlen(attrs[k].s);
            break;
        }
    }
    n->n_attribute = nattrs;
    n->attribute = ap;
    push(b, (void ***)&b->graph.node, &b->graph.n_node, n);
}

Status fe_onnx_builder_pack(OnnxBuilder *b, uint8_t **buf, size_t *len, Diag *d)
{
    *buf = NULL;
    *len = 0;
    if (!b || b->oom)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory building the model");
    size_t n = protobuf_c_message_get_packed_size(&b->model.base);
    *buf = malloc(n ? n : 1);
    if (!*buf)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    *len = protobuf_c_message_pack(&b->model.base, *buf);
    return ST_OK;
}
