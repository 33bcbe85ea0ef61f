/* onnx_util.c: what every mapping function uses: messages naming the ONNX node, the value
 * table (by name), typed attribute getters with range checks, and builders of CVM nodes
 * (fe_cvm_add_op, so every node is checked exactly like one read from a CVM model).
 */
#include "frontend/onnx/onnx_internal.h"

#include "frontend/cvm/cvm_ops.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const OnnxOpInfo op_table[] = {
#define X(name, since, params, flags, fn) {#name, since, params, flags, fn},
#include "frontend/onnx/onnx_ops.def"
#undef X
};

const OnnxOpInfo *onnx_op_find(const char *op_type)
{
    for (size_t i = 0; op_type && i < sizeof op_table / sizeof *op_table; i++)
        if (strcmp(op_table[i].name, op_type) == 0)
            return &op_table[i];
    return NULL;
}

bool fe_onnx_op_supported(const char *op_type, int64_t opset)
{
    const OnnxOpInfo *info = onnx_op_find(op_type);
    return info && opset >= info->since;
}

int fe_onnx_op_since(const char *op_type)
{
    const OnnxOpInfo *info = onnx_op_find(op_type);
    return info ? info->since : -1;
}

bool fe_onnx_op_row(uint32_t k, const char **name, int *since)
{
    if (k >= sizeof op_table / sizeof *op_table)
        return false;
    *name = op_table[k].name;
    *since = op_table[k].since;
    return true;
}

bool fe_onnx_input_is_param(const char *op_type, uint32_t k)
{
    const OnnxOpInfo *info = onnx_op_find(op_type);
    return info && k < 32 && (info->params >> k & 1u);
}

/* A CVM precision p holds -(2^(p-1) - 1)..2^(p-1) - 1: int8's -128 needs 9 bits, int16's
 * -32768 17 (int32's -2^31 is outside int32's precision and refused at the edge). */
int32_t onnx_type_prec(int32_t t)
{
    switch (t) {
    case ONNX_T_BOOL: return 2;
    case ONNX_T_INT8: return 9;
    case ONNX_T_UINT8: return 9;
    case ONNX_T_INT16: return 17;
    case ONNX_T_UINT16: return 17;
    case ONNX_T_INT32: case ONNX_T_INT64: case ONNX_T_UINT32: case ONNX_T_UINT64: return 32;
    default: return 0;
    }
}

void onnx_type_range(int32_t t, int64_t *lo, int64_t *hi)
{
    switch (t) {
    case ONNX_T_BOOL: *lo = 0, *hi = 1; break;
    case ONNX_T_INT8: *lo = INT8_MIN, *hi = INT8_MAX; break;
    case ONNX_T_UINT8: *lo = 0, *hi = UINT8_MAX; break;
    case ONNX_T_INT16: *lo = INT16_MIN, *hi = INT16_MAX; break;
    case ONNX_T_UINT16: *lo = 0, *hi = UINT16_MAX; break;
    case ONNX_T_UINT32: case ONNX_T_UINT64: *lo = 0, *hi = INT32_MAX; break;
    default: *lo = -(int64_t)INT32_MAX, *hi = INT32_MAX; break;
    }
}

/* ---- errors ---- */

void onnx_node_where(const OnnxCtx *c, char *buf, size_t size)
{
    if (!c->node) {
        snprintf(buf, size, "graph");
        return;
    }
    snprintf(buf, size, "node %u '%s' (%s, opset %lld)", c->node_index, c->node_name,
             c->node->op_type ? c->node->op_type : "", (long long)c->opset);
}

Status onnx_fail(OnnxCtx *c, const char *rule, const char *fmt, ...)
{
    char where[400], what[1024];
    onnx_node_where(c, where, sizeof where);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return diag_add(c->d, ST_LOGIC, rule, where, "%s", what);
}

Status onnx_fail_shapes(OnnxCtx *c, const char *rule, const char *what, const OgShape *a,
                        const OgShape *b)
{
    char sa[128], sb[128];
    return onnx_fail(c, rule, "%s: %s and %s", what, og_shape_str(a, sa, sizeof sa),
                     og_shape_str(b, sb, sizeof sb));
}

Status onnx_oom(OnnxCtx *c)
{
    return diag_add(c->d, ST_RUNTIME, "oom", NULL, "out of memory");
}

/* ---- values ---- */

static uint32_t hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

static bool rehash(OnnxCtx *c, uint32_t nslots)
{
    uint32_t *slots = calloc(nslots, sizeof *slots);
    if (!slots)
        return false;
    for (uint32_t i = 0; i < c->nvals; i++) {
        uint32_t h = hash(c->vals[i].name) & (nslots - 1);
        while (slots[h])
            h = (h + 1) & (nslots - 1);
        slots[h] = i + 1;
    }
    free(c->slots);
    c->slots = slots;
    c->nslots = nslots;
    return true;
}

OnnxVal *onnx_val(OnnxCtx *c, const char *name)
{
    if (!c->nslots || !name)
        return NULL;
    uint32_t h = hash(name) & (c->nslots - 1);
    while (c->slots[h]) {
        OnnxVal *v = &c->vals[c->slots[h] - 1];
        if (strcmp(v->name, name) == 0)
            return v;
        h = (h + 1) & (c->nslots - 1);
    }
    return NULL;
}

OnnxVal *onnx_val_add(OnnxCtx *c, const char *name, bool *dup)
{
    *dup = false;
    if (onnx_val(c, name)) {
        *dup = true;
        return NULL;
    }
    if (c->nvals == c->capvals) {
        uint32_t cap = c->capvals ? 2 * c->capvals : 64;
        OnnxVal *nv = realloc(c->vals, cap * sizeof *nv);
        if (!nv)
            return NULL;
        c->vals = nv;
        c->capvals = cap;
    }
    if ((c->nvals + 1) * 2 > c->nslots && !rehash(c, c->nslots ? 2 * c->nslots : 128))
        return NULL;
    OnnxVal *v = &c->vals[c->nvals];
    memset(v, 0, sizeof *v);
    v->graph_input = -1;
    v->name = arena_strdup(c->g->arena, name);
    if (!v->name)
        return NULL;
    c->nvals++;
    uint32_t h = hash(name) & (c->nslots - 1);
    while (c->slots[h])
        h = (h + 1) & (c->nslots - 1);
    c->slots[h] = c->nvals;
    return v;
}

OnnxVal *onnx_in(OnnxCtx *c, uint32_t k, Status *st)
{
    *st = ST_OK;
    if (k >= c->node->n_input || !c->node->input[k] || !c->node->input[k][0])
        return NULL;
    OnnxVal *v = onnx_val(c, c->node->input[k]);
    if (!v)
        *st = onnx_fail(c, "onnx.graph.input", "input %u '%s' is neither a graph input, an "
                        "initializer nor the output of an earlier node", k,
                        c->node->input[k]);
    return v;
}

OnnxVal *onnx_need(OnnxCtx *c, uint32_t k, Status *st)
{
    OnnxVal *v = onnx_in(c, k, st);
    if (*st != ST_OK)
        return NULL;
    if (!v) {
        *st = onnx_fail(c, "onnx.node.inputs", "input %u is required", k);
        return NULL;
    }
    if (v->kind == OV_DIV && v->avg) {
        *st = onnx_fail(c, "onnx.float.avg", "input %u '%s' is an average (AveragePool or "
                        "GlobalAveragePool) that is not floored: float models compile when every "
                        "average is followed by Floor", k, v->name);
        return NULL;
    }
    if (v->kind == OV_DIV) {
        *st = onnx_fail(c, "onnx.float.div", "input %u '%s' is a float Div by 2^%d that is not "
                        "floored: float models compile when every such Div is followed by Floor "
                        "(the Div -> Floor -> Clip pattern)", k, v->name, v->shift);
        return NULL;
    }
    if (v->kind == OV_DEQ) {
        *st = onnx_fail(c, "onnx.quant.edge", "input %u '%s' is dequantized to float inside the "
                        "graph: DequantizeLinear is supported only on a graph output", k,
                        v->name);
        return NULL;
    }
    return v;
}

static OnnxVal *new_out(OnnxCtx *c, uint32_t k, Status *st)
{
    *st = ST_OK;
    if (k >= c->node->n_output || !c->node->output[k] || !c->node->output[k][0])
        return NULL;   /* an output nobody names: dropped */
    bool dup;
    OnnxVal *v = onnx_val_add(c, c->node->output[k], &dup);
    if (!v)
        *st = dup ? onnx_fail(c, "onnx.graph.name", "output %u '%s' is also produced "
                              "elsewhere (ONNX graphs are in SSA form)", k, c->node->output[k])
                  : onnx_oom(c);
    return v;
}

OnnxVal *onnx_out_val(OnnxCtx *c, uint32_t k, Status *st)
{
    OnnxVal *v = new_out(c, k, st);
    if (!v && *st == ST_OK)
        *st = onnx_fail(c, "onnx.node.outputs", "output %u has no name", k);
    return v;
}

Status onnx_out_run(OnnxCtx *c, uint32_t k, OgEdge e, int32_t type)
{
    Status st;
    OnnxVal *v = new_out(c, k, &st);
    if (!v)
        return st;
    v->kind = OV_RUN;
    v->type = type;
    v->e = e;
    v->shape = *og_edge_shape(c->g, e);
    return ST_OK;
}

Status onnx_out_const(OnnxCtx *c, uint32_t k, OnnxTensor *t)
{
    Status st;
    OnnxVal *v = new_out(c, k, &st);
    if (!v) {
        fe_onnx_tensor_free(t);
        return st;
    }
    v->kind = OV_CONST;
    v->type = t->type;
    v->c = *t;
    v->c.name = v->name;
    memset(t, 0, sizeof *t);
    return ST_OK;
}

Status onnx_out_alias(OnnxCtx *c, uint32_t k, const OnnxVal *src)
{
    if (src->kind == OV_CONST) {
        OnnxTensor t = src->c;
        size_t n = t.count ? (size_t)t.count : 1;
        t.i = NULL, t.f = NULL;
        if (src->c.i && (t.i = malloc(n * sizeof *t.i)))
            memcpy(t.i, src->c.i, (size_t)t.count * sizeof *t.i);
        if (src->c.f && (t.f = malloc(n * sizeof *t.f)))
            memcpy(t.f, src->c.f, (size_t)t.count * sizeof *t.f);
        if (!t.i && !t.f)
            return onnx_oom(c);
        return onnx_out_const(c, k, &t);
    }
    Status st;
    OnnxVal save = *src;     /* src may move when the table grows */
    OnnxVal *v = new_out(c, k, &st);
    if (!v)
        return st;
    const char *name = v->name;
    *v = save;
    v->name = name;
    v->graph_input = -1;
    return ST_OK;
}

OgShape onnx_shape(const OnnxVal *v)
{
    if (v->kind != OV_CONST)
        return v->shape;
    OgShape s = {v->c.ndim, {0}};
    for (uint32_t i = 0; i < v->c.ndim; i++)
        s.d[i] = v->c.dims[i];
    return s;
}

Status onnx_const_i32(OnnxCtx *c, const char *what, const OgShape *s, const int32_t *v,
                      OgEdge *out)
{
    OgTensor t = {*s, og_shape_volume(s), (int32_t *)v};
    if (t.shape.ndim == 0) {
        t.shape.ndim = 1;
        t.shape.d[0] = 1;
    }
    char name[512];
    snprintf(name, sizeof name, "%s/%s.%u", c->node_name ? c->node_name : "graph", what,
             c->uniq++);
    OgNode *n;
    Status st = fe_cvm_add_const(c->g, name, &t, 0, &n, c->d);
    if (st != ST_OK)
        return st;
    out->node = n->id;
    out->index = 0;
    return ST_OK;
}

Status onnx_edge(OnnxCtx *c, OnnxVal *v, OgEdge *out)
{
    if (v->kind != OV_CONST) {
        *out = v->e;
        return ST_OK;
    }
    OgShape s = onnx_shape(v);
    if (v->c.count == 0)
        return onnx_fail(c, "onnx.shape.empty", "'%s' is empty: tensors with a zero dim are not "
                         "supported", v->name);
    int32_t *buf = malloc((size_t)v->c.count * sizeof *buf);
    if (!buf)
        return onnx_oom(c);
    for (int64_t i = 0; i < v->c.count; i++) {
        if (v->c.f && c->float_bits) {
            memcpy(&buf[i], &v->c.f[i], sizeof buf[i]);
        } else if (v->c.f) {
            float x = v->c.f[i];
            if (!onnx_is_int(x) || x > 2147483520.0f || x < -2147483520.0f) {
                free(buf);
                return onnx_fail(c, "onnx.float.weights", "'%s' holds %.9g (element %lld), not "
                                 "an integer: a float model compiles only when its weights hold "
                                 "integers; quantize the model first", v->name, (double)x,
                                 (long long)i);
            }
            buf[i] = (int32_t)x;
        } else {
            if (v->c.i[i] < -(int64_t)INT32_MAX || v->c.i[i] > INT32_MAX) {
                free(buf);
                return onnx_fail(c, "onnx.value.range", "'%s' holds %lld (element %lld), "
                                 "outside int32", v->name, (long long)v->c.i[i], (long long)i);
            }
            buf[i] = (int32_t)v->c.i[i];
        }
    }
    Status st = onnx_const_i32(c, "const", &s, buf, out);
    free(buf);
    if (st == ST_OK && s.ndim == 0)
        st = onnx_fail(c, "onnx.shape.rank", "'%s' is a scalar where a tensor is needed",
                       v->name);
    return st;
}

/* ---- attributes ---- */

const Onnx__AttributeProto *onnx_attr(OnnxCtx *c, const char *name)
{
    for (size_t i = 0; i < c->node->n_attribute; i++)
        if (c->node->attribute[i]->name && strcmp(c->node->attribute[i]->name, name) == 0)
            return c->node->attribute[i];
    return NULL;
}

static Status attr_type(OnnxCtx *c, const Onnx__AttributeProto *a, int want, const char *what)
{
    if (a->has_type && (int)a->type != want)
        return onnx_fail(c, "onnx.attr", "attribute '%s' must be %s", a->name, what);
    return ST_OK;
}

Status onnx_attr_int(OnnxCtx *c, const char *name, int64_t def, int64_t lo, int64_t hi,
                     int64_t *out)
{
    const Onnx__AttributeProto *a = onnx_attr(c, name);
    *out = def;
    if (!a)
        return ST_OK;
    Status st = attr_type(c, a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT, "an int");
    if (st != ST_OK)
        return st;
    if (a->i < lo || a->i > hi)
        return onnx_fail(c, "onnx.attr", "attribute '%s' is %lld, not in %lld..%lld", name,
                         (long long)a->i, (long long)lo, (long long)hi);
    *out = a->i;
    return ST_OK;
}

Status onnx_attr_float(OnnxCtx *c, const char *name, float def, float *out)
{
    const Onnx__AttributeProto *a = onnx_attr(c, name);
    *out = def;
    if (!a)
        return ST_OK;
    Status st = attr_type(c, a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT, "a float");
    if (st == ST_OK)
        *out = a->f;
    return st;
}

Status onnx_attr_ints(OnnxCtx *c, const char *name, uint32_t max, const int64_t **v,
                      uint32_t *n)
{
    const Onnx__AttributeProto *a = onnx_attr(c, name);
    *v = NULL;
    *n = 0;
    if (!a)
        return ST_OK;
    Status st = attr_type(c, a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS, "a list of ints");
    if (st != ST_OK)
        return st;
    if (a->n_ints > max)
        return onnx_fail(c, "onnx.attr", "attribute '%s' has %zu elements, at most %u", name,
                         a->n_ints, max);
    *v = a->ints;
    *n = (uint32_t)a->n_ints;
    return ST_OK;
}

Status onnx_attr_floats(OnnxCtx *c, const char *name, uint32_t max, const float **v,
                        uint32_t *n)
{
    const Onnx__AttributeProto *a = onnx_attr(c, name);
    *v = NULL;
    *n = 0;
    if (!a)
        return ST_OK;
    Status st = attr_type(c, a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS,
                          "a list of floats");
    if (st != ST_OK)
        return st;
    if (a->n_floats > max)
        return onnx_fail(c, "onnx.attr", "attribute '%s' has %zu elements, at most %u", name,
                         a->n_floats, max);
    *v = a->floats;
    *n = (uint32_t)a->n_floats;
    return ST_OK;
}

Status onnx_attr_str(OnnxCtx *c, const char *name, const char *def, char *buf, size_t size)
{
    const Onnx__AttributeProto *a = onnx_attr(c, name);
    snprintf(buf, size, "%s", def);
    if (!a)
        return ST_OK;
    Status st = attr_type(c, a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING, "a string");
    if (st != ST_OK)
        return st;
    if (a->s.len >= size || (a->s.len && memchr(a->s.data, 0, a->s.len)))
        return onnx_fail(c, "onnx.attr", "attribute '%s' is not a short string", name);
    if (a->s.len) /* an empty string may come with data NULL: no memcpy from NULL */
        memcpy(buf, a->s.data, a->s.len);
    buf[a->s.len] = 0;
    return ST_OK;
}

Status onnx_attrs_known(OnnxCtx *c, const char *const *known)
{
    for (size_t i = 0; i < c->node->n_attribute; i++) {
        const char *name = c->node->attribute[i]->name ? c->node->attribute[i]->name : "";
        bool ok = false;
        for (const char *const *k = known; *k && !ok; k++)
            ok = strcmp(*k, name) == 0;
        if (!ok)
            return onnx_fail(c, "onnx.attr.unknown", "attribute '%s' is not read by the "
                             "frontend for %s", name, c->node->op_type);
    }
    return ST_OK;
}

/* ---- building ---- */

Status onnx_cvm(OnnxCtx *c, CvmOp op, const char *what, const OgEdge *ins, uint32_t nin,
                const char *const *kv, OgEdge *out)
{
    CvmKV attrs[16];
    size_t na = 0;
    for (; kv && kv[2 * na]; na++) {
        if (na == 16)
            return diag_add(c->d, ST_RUNTIME, "internal", NULL, "too many CVM attributes");
        attrs[na].key = kv[2 * na];
        attrs[na].value = kv[2 * na + 1];
    }
    char name[512];
    snprintf(name, sizeof name, "%s/%s.%u", c->node_name ? c->node_name : "graph", what,
             c->uniq++);
    OgNode *n;
    Diag sub;
    diag_init(&sub, NULL);
    Status st = fe_cvm_add_op(c->g, op, name, ins, nin, attrs, na, &n, &sub);
    if (st == ST_LOGIC) {
        for (size_t i = 0; i < sub.n; i++)
            onnx_fail(c, sub.entries[i].rule, "as CVM %s: %s", cvm_op_name(op),
                      sub.entries[i].what);
    } else if (st != ST_OK) {
        st = onnx_oom(c);
    }
    diag_finish(&sub);
    if (st == ST_OK) {
        out->node = n->id;
        out->index = 0;
    }
    return st;
}

static void ints_text(const int64_t *v, uint32_t n, char *buf, size_t size)
{
    size_t k = (size_t)snprintf(buf, size, "(");
    for (uint32_t i = 0; i < n && k < size; i++)
        k += (size_t)snprintf(buf + k, size - k, "%s%lld", i ? ", " : "", (long long)v[i]);
    if (n == 1 && k < size)
        k += (size_t)snprintf(buf + k, size - k, ",");
    if (k < size)
        snprintf(buf + k, size - k, ")");
}

Status onnx_reshape(OnnxCtx *c, OgEdge e, const OgShape *s, OgEdge *out)
{
    if (og_shape_eq(og_edge_shape(c->g, e), s)) {
        *out = e;
        return ST_OK;
    }
    if (s->ndim == 0)
        return onnx_fail(c, "onnx.shape.rank", "the result is a scalar (rank 0); tensors "
                         "computed on the chip have 1 to %d dims", OG_MAX_DIMS);
    char buf[256];
    ints_text(s->d, s->ndim, buf, sizeof buf);
    return onnx_cvm(c, CVM_OP_reshape, "reshape", &e, 1,
                    (const char *const[]){"shape", buf, NULL}, out);
}

void onnx_strides(const OgShape *s, int64_t *st)
{
    int64_t m = 1;
    for (uint32_t i = s->ndim; i-- > 0;) {
        st[i] = m;
        m *= s->d[i];
    }
}

Status onnx_map_reserve(OnnxCtx *c, int64_t n)
{
    if (n < 0 || n > ONNX_MAX_MAP_ENTRIES - c->map_entries)
        return onnx_fail(c, "onnx.limit.map", "its element maps (data movement, pooling "
                         "windows) would bring the model's total to %lld entries, more than the "
                         "%lld the frontend derives for one model", (long long)(c->map_entries + n),
                         (long long)ONNX_MAX_MAP_ENTRIES);
    c->map_entries += n;
    return ST_OK;
}

Status onnx_take_slab(OnnxCtx *c, OgEdge x, const OgShape *slab, int64_t i, OgEdge *out)
{
    int64_t vol = og_shape_volume(slab);
    Status st = onnx_map_reserve(c, vol);
    if (st != ST_OK)
        return st;
    int32_t *idx = malloc((size_t)(vol ? vol : 1) * sizeof *idx);
    if (!idx)
        return onnx_oom(c);
    for (int64_t j = 0; j < vol; j++)
        idx[j] = (int32_t)(i * vol + j);
    st = onnx_gather_flat(c, x, slab, idx, out);
    free(idx);
    return st;
}

Status onnx_gather_flat(OnnxCtx *c, OgEdge data, const OgShape *s, const int32_t *idx,
                        OgEdge *out)
{
    const OgShape *in = og_edge_shape(c->g, data);
    int64_t n = og_shape_volume(s), m = og_shape_volume(in);
    bool identity = n == m;
    for (int64_t i = 0; i < n && identity; i++)
        identity = idx[i] == i;
    if (identity)
        return onnx_reshape(c, data, s, out);
    OgShape is = *s;
    if (is.ndim == 0)
        return onnx_fail(c, "onnx.shape.rank", "the result is a scalar (rank 0); tensors "
                         "computed on the chip have 1 to %d dims", OG_MAX_DIMS);
    OgEdge ie;
    Status st = onnx_const_i32(c, "index", &is, idx, &ie);
    if (st != ST_OK)
        return st;
    OgEdge ins[2] = {data, ie};
    return onnx_cvm(c, CVM_OP_take, "move", ins, 2, NULL, out);
}

bool onnx_bcast_shape(const OgShape *a, const OgShape *b, OgShape *out)
{
    uint32_t K = a->ndim > b->ndim ? a->ndim : b->ndim;
    if (K > OG_MAX_DIMS)
        return false;
    out->ndim = K;
    for (uint32_t i = 0; i < K; i++) {
        int64_t x = i + a->ndim >= K ? a->d[i + a->ndim - K] : 1;
        int64_t y = i + b->ndim >= K ? b->d[i + b->ndim - K] : 1;
        if (x != y && x != 1 && y != 1)
            return false;
        out->d[i] = x == 1 ? y : x;
    }
    return true;
}

Status onnx_check_shape(OnnxCtx *c, const OgShape *s)
{
    const char *lim = s->ndim ? og_shape_limit(s) : NULL;
    if (!lim)
        return ST_OK;
    char rule[40], sb[128];
    snprintf(rule, sizeof rule, "onnx.shape.%s", strcmp(lim, "ndim") == 0 ? "rank" :
             strcmp(lim, "dim") == 0 ? "dims" : "volume");
    return onnx_fail(c, rule, "the result would have shape %s: tensors have 1 to %d dims, each "
                     "at most %lld, at most %lld elements", og_shape_str(s, sb, sizeof sb),
                     OG_MAX_DIMS, (long long)OG_MAX_DIM, (long long)OG_MAX_VOLUME);
}

Status onnx_broadcast_to(OnnxCtx *c, OgEdge e, const OgShape *from, const OgShape *to,
                         OgEdge *out)
{
    Status cs = onnx_check_shape(c, to);
    if (cs != ST_OK)
        return cs;
    int64_t n = og_shape_volume(to);
    int32_t *idx = malloc((size_t)(n ? n : 1) * sizeof *idx);
    if (!idx)
        return onnx_oom(c);
    int64_t fst[OG_MAX_DIMS], tst[OG_MAX_DIMS];
    onnx_strides(from, fst);
    onnx_strides(to, tst);
    uint32_t off = to->ndim - from->ndim;
    for (int64_t i = 0; i < n; i++) {
        int64_t r = i, src = 0;
        for (uint32_t k = 0; k < to->ndim; k++) {
            int64_t q = r / tst[k];
            r %= tst[k];
            if (k >= off && from->d[k - off] != 1)
                src += q * fst[k - off];
        }
        idx[i] = (int32_t)src;
    }
    Status st = onnx_gather_flat(c, e, to, idx, out);
    free(idx);
    return st;
}

static Status scalar(OnnxCtx *c, int64_t v, OgEdge *out)
{
    OgShape s = {1, {1}};
    int32_t x = (int32_t)v;
    return onnx_const_i32(c, "k", &s, &x, out);
}

Status onnx_add_scalar(OnnxCtx *c, OgEdge e, int64_t k, OgEdge *out)
{
    if (k == 0) {
        *out = e;
        return ST_OK;
    }
    OgEdge ins[2] = {e, {0, 0}};
    Status st = scalar(c, k, &ins[1]);
    if (st != ST_OK)
        return st;
    return onnx_cvm(c, CVM_OP_broadcast_add, "add", ins, 2, NULL, out);
}

Status onnx_clip(OnnxCtx *c, OgEdge e, int64_t lo, int64_t hi, OgEdge *out)
{
    /* a bound at or beyond the value's own range is no bound: CVM clip's result precision
     * comes from its bounds, so it is used only with both bounds inside; one bound is a max
     * with a constant (min(x, hi) = -max(-x, -hi)) */
    int64_t a = og_prec_alpha(og_edge_prec(c->g, e));
    bool has_lo = lo > -a, has_hi = hi < a;
    Status st = ST_OK;
    if (has_lo && has_hi) {
        char sa[32], sb[32];
        snprintf(sa, sizeof sa, "%lld", (long long)lo);
        snprintf(sb, sizeof sb, "%lld", (long long)hi);
        return onnx_cvm(c, CVM_OP_clip, "clip", &e, 1,
                        (const char *const[]){"a_min", sa, "a_max", sb, NULL}, out);
    }
    if (has_lo) {
        OgEdge k;
        st = scalar(c, lo, &k);
        if (st == ST_OK)
            st = onnx_cvm(c, CVM_OP_broadcast_max, "clip", (OgEdge[]){e, k}, 2, NULL, &e);
    } else if (has_hi) {
        OgEdge k;
        st = scalar(c, -hi, &k);
        if (st == ST_OK)
            st = onnx_cvm(c, CVM_OP_negative, "clip", &e, 1, NULL, &e);
        if (st == ST_OK)
            st = onnx_cvm(c, CVM_OP_broadcast_max, "clip", (OgEdge[]){e, k}, 2, NULL, &e);
        if (st == ST_OK)
            st = onnx_cvm(c, CVM_OP_negative, "clip", &e, 1, NULL, &e);
    }
    *out = e;
    return st;
}

Status onnx_floor_shift(OnnxCtx *c, OgEdge e, int s, OgEdge *out)
{
    /* cvm_right_shift rounds half up: round((x - 2^(s-1)) / 2^s) = floor(x / 2^s) */
    OgEdge t;
    Status st = onnx_add_scalar(c, e, -((int64_t)1 << (s - 1)), &t);
    if (st != ST_OK)
        return st;
    /* |floor(x / 2^s)| <= 2^(p-1-s) + 1: precision p - s + 1 holds it (the shift's clip to
     * that precision changes no value) */
    int32_t p = og_edge_prec(c->g, e) - s + 1;
    p = p < 2 ? 2 : p > 32 ? 32 : p;
    char sb[16], pb[16];
    snprintf(sb, sizeof sb, "%d", s);
    snprintf(pb, sizeof pb, "%d", (int)p);
    return onnx_cvm(c, CVM_OP_cvm_right_shift, "shift", &t, 1,
                    (const char *const[]){"precision", pb, "shift_bit", sb, NULL}, out);
}

Status onnx_shl(OnnxCtx *c, OgEdge e, int s, OgEdge *out)
{
    if (s == 0) {
        *out = e;
        return ST_OK;
    }
    int32_t p = og_edge_prec(c->g, e) + s;
    if (p > 32)
        return onnx_fail(c, "onnx.precision", "a value of precision %d times 2^%d may leave "
                         "int32", (int)og_edge_prec(c->g, e), s);
    char sb[16], pb[16];
    snprintf(sb, sizeof sb, "%d", s);
    snprintf(pb, sizeof pb, "%d", (int)p);
    return onnx_cvm(c, CVM_OP_cvm_left_shift, "shl", &e, 1,
                    (const char *const[]){"precision", pb, "shift_bit", sb, NULL}, out);
}

Status onnx_wrap(OnnxCtx *c, OgEdge e, int32_t t, OgEdge *out)
{
    int64_t lo, hi;
    onnx_type_range(t, &lo, &hi);
    int32_t p = og_edge_prec(c->g, e);
    int64_t a = og_prec_alpha(p);
    if (-a >= lo && a <= hi) {
        *out = e;
        return ST_OK;
    }
    if (t == ONNX_T_INT32 || t == ONNX_T_INT64)
        return onnx_fail(c, "onnx.overflow", "the result may leave int32, where ONNX wraps "
                         "around: not supported");
    int w = (t == ONNX_T_INT8 || t == ONNX_T_UINT8) ? 8 : 16;
    if (t != ONNX_T_INT8 && t != ONNX_T_UINT8 && t != ONNX_T_INT16 && t != ONNX_T_UINT16)
        return onnx_fail(c, "onnx.overflow", "the result may leave %s, where ONNX wraps "
                         "around: not supported", fe_onnx_type_name(t));
    /* u = v - lo (lo = 0 or -2^(w-1)); wrapped = u - 2^w floor(u / 2^w) + lo */
    OgEdge u, q, qm, r;
    Status st = onnx_add_scalar(c, e, -lo, &u);
    if (st == ST_OK)
        st = onnx_floor_shift(c, u, w, &q);
    if (st == ST_OK)
        st = onnx_shl(c, q, w, &qm);
    if (st == ST_OK)
        st = onnx_cvm(c, CVM_OP_broadcast_sub, "wrap", (OgEdge[]){u, qm}, 2, NULL, &r);
    if (st == ST_OK)
        st = onnx_add_scalar(c, r, lo, &r);
    if (st == ST_OK)   /* a no-op on the values; gives the result the type's precision */
        st = onnx_clip(c, r, lo, hi, out);
    return st;
}

Status onnx_axis(OnnxCtx *c, const char *what, int64_t axis, uint32_t r, uint32_t *out)
{
    if (axis < -(int64_t)r || axis >= (int64_t)r)
        return onnx_fail(c, "onnx.attr", "%s %lld is out of range for rank %u", what,
                         (long long)axis, r);
    *out = (uint32_t)(axis < 0 ? axis + r : axis);
    return ST_OK;
}

Status onnx_const_ints(OnnxCtx *c, uint32_t k, const int64_t **v, int64_t *n, bool *present)
{
    Status st;
    OnnxVal *x = onnx_in(c, k, &st);
    *v = NULL;
    *n = 0;
    *present = x != NULL;
    if (st != ST_OK || !x)
        return st;
    if (x->kind != OV_CONST)
        return onnx_fail(c, "onnx.param", "input %u '%s' must be known at compile time (an "
                         "initializer or a Constant)", k, x->name);
    if (!x->c.i)
        return onnx_fail(c, "onnx.param", "input %u '%s' must hold integers, not %s", k,
                         x->name, fe_onnx_type_name(x->type));
    *v = x->c.i;
    *n = x->c.count;
    return ST_OK;
}

Status onnx_const_floats(OnnxCtx *c, uint32_t k, const float **v, int64_t *n, bool *present)
{
    Status st;
    OnnxVal *x = onnx_in(c, k, &st);
    *v = NULL;
    *n = 0;
    *present = x != NULL;
    if (st != ST_OK || !x)
        return st;
    if (x->kind != OV_CONST)
        return onnx_fail(c, "onnx.param", "input %u '%s' must be known at compile time (an "
                         "initializer or a Constant)", k, x->name);
    if (!x->c.f)
        return onnx_fail(c, "onnx.param", "input %u '%s' must hold floats, not %s", k, x->name,
                         fe_onnx_type_name(x->type));
    *v = x->c.f;
    *n = x->c.count;
    return ST_OK;
}
