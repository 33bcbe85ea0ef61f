/* opgraph.c: building and querying the OpGraph (see opgraph.h). Node pointers live in an
 * arena array regrown geometrically; nodes and their arrays never move once made. */
#include "frontend/opgraph/opgraph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

OpGraph *og_create(const char *dialect)
{
    Arena *a = arena_create();
    if (!a)
        return NULL;
    OpGraph *g = arena_alloc(a, 1, sizeof *g);
    if (!g) {
        arena_destroy(a);
        return NULL;
    }
    g->arena = a;
    g->dialect = arena_strdup(a, dialect ? dialect : "");
    if (!g->dialect) {
        arena_destroy(a);
        return NULL;
    }
    return g;
}

void og_destroy(OpGraph *g)
{
    if (g)
        arena_destroy(g->arena);
}

bool og_oom(const OpGraph *g)
{
    return arena_failed(g->arena);
}

OgNode *og_add_node(OpGraph *g, OgNodeKind kind, int32_t op, const char *op_name,
                    const char *name, uint32_t ninputs, uint32_t noutputs)
{
    if (g->nnodes >= (uint32_t)INT32_MAX) {
        arena_set_failed(g->arena);
        return NULL;
    }
    if (g->nnodes == g->cap_nodes) {
        uint32_t cap = g->cap_nodes ? g->cap_nodes * 2 : 64;
        OgNode **p = arena_grow(g->arena, g->nodes, g->nnodes, cap, sizeof *p);
        if (!p)
            return NULL;
        g->nodes = p;
        g->cap_nodes = cap;
    }
    OgNode *n = arena_alloc(g->arena, 1, sizeof *n);
    if (!n)
        return NULL;
    n->id = (int32_t)g->nnodes;
    n->kind = kind;
    n->op = kind == OG_OP ? op : -1;
    n->op_name = arena_strdup(g->arena, op_name ? op_name : "null");
    n->name = arena_strdup(g->arena, name ? name : "");
    n->src_index = n->id;
    n->ninputs = ninputs;
    n->noutputs = noutputs;
    if (ninputs) {
        n->inputs = arena_alloc(g->arena, ninputs, sizeof *n->inputs);
        if (n->inputs)
            for (uint32_t i = 0; i < ninputs; i++)
                n->inputs[i].node = -1;
    }
    if (noutputs) {
        n->out_shape = arena_alloc(g->arena, noutputs, sizeof *n->out_shape);
        n->out_prec = arena_alloc(g->arena, noutputs, sizeof *n->out_prec);
    }
    if (!n->op_name || !n->name || (ninputs && !n->inputs) ||
        (noutputs && (!n->out_shape || !n->out_prec)))
        return NULL;
    g->nodes[g->nnodes++] = n;
    return n;
}

bool og_add_output(OpGraph *g, int32_t node, uint32_t index)
{
    if (g->noutputs == g->cap_outputs) {
        uint32_t cap = g->cap_outputs ? g->cap_outputs * 2 : 8;
        OgEdge *p = arena_grow(g->arena, g->outputs, g->noutputs, cap, sizeof *p);
        if (!p)
            return false;
        g->outputs = p;
        OgDecl *q = arena_grow(g->arena, g->out_decl, g->noutputs, cap, sizeof *q);
        if (!q)
            return false;
        g->out_decl = q;
        g->cap_outputs = cap;
    }
    g->outputs[g->noutputs].node = node;
    g->outputs[g->noutputs].index = index;
    memset(&g->out_decl[g->noutputs], 0, sizeof g->out_decl[g->noutputs]);
    g->noutputs++;
    return true;
}

const OgShape *og_output_shape(const OpGraph *g, uint32_t j)
{
    if (g->out_decl[j].has_shape)
        return &g->out_decl[j].shape;
    return &g->nodes[g->outputs[j].node]->out_shape[g->outputs[j].index];
}

OgNode *og_node(const OpGraph *g, int32_t id)
{
    if (id < 0 || (uint32_t)id >= g->nnodes)
        return NULL;
    return g->nodes[id];
}

const OgShape *og_edge_shape(const OpGraph *g, OgEdge e)
{
    return &g->nodes[e.node]->out_shape[e.index];
}

int32_t og_edge_prec(const OpGraph *g, OgEdge e)
{
    return g->nodes[e.node]->out_prec[e.index];
}

uint32_t og_num_inputs(const OpGraph *g)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < g->nnodes; i++)
        k += g->nodes[i]->kind == OG_INPUT;
    return k;
}

OgNode *og_input(const OpGraph *g, uint32_t k)
{
    for (uint32_t i = 0; i < g->nnodes; i++)
        if (g->nodes[i]->kind == OG_INPUT && k-- == 0)
            return g->nodes[i];
    return NULL;
}

int32_t og_find_input(const OpGraph *g, const char *name)
{
    int32_t k = 0;
    for (uint32_t i = 0; i < g->nnodes; i++) {
        if (g->nodes[i]->kind != OG_INPUT)
            continue;
        if (strcmp(g->nodes[i]->name, name) == 0)
            return k;
        k++;
    }
    return -1;
}

/* ---- attributes ---- */

static OgAttr *attr_slot(OpGraph *g, OgNode *n, const char *name)
{
    for (uint32_t i = 0; i < n->nattrs; i++)
        if (strcmp(n->attrs[i].name, name) == 0)
            return &n->attrs[i];
    OgAttr *p = arena_grow(g->arena, n->attrs, n->nattrs, n->nattrs + 1, sizeof *p);
    if (!p)
        return NULL;
    n->attrs = p;
    OgAttr *a = &p[n->nattrs];
    a->name = arena_strdup(g->arena, name);
    if (!a->name)
        return NULL;
    n->nattrs++;
    return a;
}

bool og_set_int(OpGraph *g, OgNode *n, const char *name, int64_t v)
{
    OgAttr *a = attr_slot(g, n, name);
    if (!a)
        return false;
    a->kind = OG_ATTR_INT;
    a->i = v;
    return true;
}

bool og_set_bool(OpGraph *g, OgNode *n, const char *name, bool v)
{
    OgAttr *a = attr_slot(g, n, name);
    if (!a)
        return false;
    a->kind = OG_ATTR_BOOL;
    a->i = v ? 1 : 0;
    return true;
}

bool og_set_ints(OpGraph *g, OgNode *n, const char *name, const int64_t *v, uint32_t count)
{
    int64_t *copy = arena_alloc(g->arena, count ? count : 1, sizeof *copy);
    if (!copy)
        return false;
    if (count)
        memcpy(copy, v, count * sizeof *copy);
    OgAttr *a = attr_slot(g, n, name);
    if (!a)
        return false;
    a->kind = OG_ATTR_INTS;
    a->v = copy;
    a->n = count;
    return true;
}

bool og_set_str(OpGraph *g, OgNode *n, const char *name, const char *s)
{
    char *copy = arena_strdup(g->arena, s);
    if (!copy)
        return false;
    OgAttr *a = attr_slot(g, n, name);
    if (!a)
        return false;
    a->kind = OG_ATTR_STR;
    a->s = copy;
    return true;
}

bool og_set_none(OpGraph *g, OgNode *n, const char *name)
{
    OgAttr *a = attr_slot(g, n, name);
    if (!a)
        return false;
    a->kind = OG_ATTR_NONE;
    return true;
}

const OgAttr *og_attr(const OgNode *n, const char *name)
{
    for (uint32_t i = 0; i < n->nattrs; i++)
        if (strcmp(n->attrs[i].name, name) == 0)
            return &n->attrs[i];
    return NULL;
}

int64_t og_attr_int(const OgNode *n, const char *name, int64_t def)
{
    const OgAttr *a = og_attr(n, name);
    return a && a->kind == OG_ATTR_INT ? a->i : def;
}

bool og_attr_bool(const OgNode *n, const char *name, bool def)
{
    const OgAttr *a = og_attr(n, name);
    return a && a->kind == OG_ATTR_BOOL ? a->i != 0 : def;
}

const char *og_attr_str(const OgNode *n, const char *name, const char *def)
{
    const OgAttr *a = og_attr(n, name);
    return a && a->kind == OG_ATTR_STR ? a->s : def;
}

const int64_t *og_attr_ints(const OgNode *n, const char *name, uint32_t *count)
{
    const OgAttr *a = og_attr(n, name);
    if (!a || a->kind != OG_ATTR_INTS) {
        *count = 0;
        return NULL;
    }
    *count = a->n;
    return a->v;
}

bool og_attr_is_none(const OgNode *n, const char *name)
{
    const OgAttr *a = og_attr(n, name);
    return !a || a->kind == OG_ATTR_NONE;
}

/* ---- shapes, precisions, tensors ---- */

int64_t og_shape_volume(const OgShape *s)
{
    int64_t v = 1;
    for (uint32_t i = 0; i < s->ndim && i < OG_MAX_DIMS; i++) {
        if (s->d[i] <= 0)
            return 0;
        if (v > INT64_MAX / s->d[i])
            return INT64_MAX;
        v *= s->d[i];
    }
    return v;
}

bool og_shape_eq(const OgShape *a, const OgShape *b)
{
    if (a->ndim != b->ndim)
        return false;
    for (uint32_t i = 0; i < a->ndim && i < OG_MAX_DIMS; i++)
        if (a->d[i] != b->d[i])
            return false;
    return true;
}

char *og_shape_str(const OgShape *s, char *buf, size_t size)
{
    size_t k = 0;
    int w = snprintf(buf, size, "(");
    k = w > 0 ? (size_t)w : 0;
    for (uint32_t i = 0; i < s->ndim && i < OG_MAX_DIMS && k < size; i++) {
        w = snprintf(buf + k, size - k, "%s%lld", i ? ", " : "", (long long)s->d[i]);
        if (w > 0)
            k += (size_t)w;
    }
    if (k < size)
        snprintf(buf + k, size - k, s->ndim == 1 ? ",)" : ")");
    return buf;
}

const char *og_shape_limit(const OgShape *s)
{
    if (s->ndim < 1 || s->ndim > OG_MAX_DIMS)
        return "ndim";
    for (uint32_t i = 0; i < s->ndim; i++)
        if (s->d[i] < 1 || s->d[i] > OG_MAX_DIM)
            return "dim";
    if (og_shape_volume(s) > OG_MAX_VOLUME)
        return "volume";
    return NULL;
}

int64_t og_prec_alpha(int32_t p)
{
    if (p < 1)
        return 0;
    if (p > 32)
        p = 32;
    return ((int64_t)1 << (p - 1)) - 1;
}

int64_t og_tensor_absmax(const OgTensor *t)
{
    /* the extremes first, without an early exit: a min/max loop the compiler vectorizes (it
     * runs over every weight and every result of a model) */
    int32_t lo = 0, hi = 0;
    for (int64_t i = 0; i < t->count; i++) {
        lo = t->data[i] < lo ? t->data[i] : lo;
        hi = t->data[i] > hi ? t->data[i] : hi;
    }
    return -(int64_t)lo > hi ? -(int64_t)lo : hi;
}

bool og_tensor_in_prec(const OgTensor *t, int32_t p)
{
    return og_tensor_absmax(t) <= og_prec_alpha(p);
}

bool og_tensor_alloc(OgTensor *t, const OgShape *s)
{
    memset(t, 0, sizeof *t);
    int64_t v = og_shape_volume(s);
    if (v > OG_MAX_VOLUME || s->ndim > OG_MAX_DIMS)
        return false;
    t->data = calloc(v ? (size_t)v : 1, sizeof *t->data);
    if (!t->data)
        return false;
    t->shape = *s;
    t->count = v;
    return true;
}

void og_tensor_free(OgTensor *t)
{
    if (!t)
        return;
    free(t->data);
    memset(t, 0, sizeof *t);
}

char *og_node_describe(const OgNode *n, char *buf, size_t size)
{
    snprintf(buf, size, "node %d '%s' (%s)", (int)n->src_index, n->name,
             n->kind == OG_OP ? n->op_name : n->kind == OG_INPUT ? "input" : "param");
    return buf;
}
