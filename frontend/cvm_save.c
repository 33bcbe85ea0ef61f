/* cvm_save.c: an OpGraph of dialect "cvm" written as a cvm-runtime model (cvm_save.h), and
 * the OpGraph comparison the generators use to check that a written model reads back the
 * same.
 *
 * The JSON is laid out by hand at the top level (one node, one list per line, so the files
 * read and diff well) and each piece is rendered by json-c, which does the string escaping.
 * json-c keeps object keys in insertion order, so the text is deterministic.
 */
#include "frontend/cvm_save.h"

#include "frontend/cvm.h"
#include "taskir/fileio.h"

#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- a growing text buffer ---- */

typedef struct Text {
    char *s;
    size_t len, cap;
    bool oom;
} Text;

static void text_add(Text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void text_add(Text *t, const char *fmt, ...)
{
    if (t->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->oom = true;
            return;
        }
        if (t->s && (size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = t->cap ? t->cap : 4096;
        while (cap - t->len <= (size_t)n) {
            if (cap > SIZE_MAX / 2) {
                t->oom = true;
                return;
            }
            cap *= 2;
        }
        char *p = realloc(t->s, cap);
        if (!p) {
            t->oom = true;
            return;
        }
        t->s = p;
        t->cap = cap;
    }
}

/* Appends the plain JSON text of o and releases o (NULL: an allocation failed). */
static void text_json(Text *t, json_object *o)
{
    if (!o) {
        t->oom = true;
        return;
    }
    const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                          JSON_C_TO_STRING_NOSLASHESCAPE);
    if (!s)
        t->oom = true;
    else
        text_add(t, "%s", s);
    json_object_put(o);
}

/* ---- pieces ---- */

/* Adds v to array a; false (and v released) on failure. */
static bool arr_add(json_object *a, json_object *v)
{
    if (!v || json_object_array_add(a, v) != 0) {
        json_object_put(v);
        return false;
    }
    return true;
}

static bool obj_add(json_object *o, const char *key, json_object *v)
{
    if (!v || json_object_object_add(o, key, v) != 0) {
        json_object_put(v);
        return false;
    }
    return true;
}

/* [node, index, 0] */
static json_object *edge_json(OgEdge e)
{
    json_object *a = json_object_new_array();
    if (a && arr_add(a, json_object_new_int64(e.node)) &&
        arr_add(a, json_object_new_int64(e.index)) && arr_add(a, json_object_new_int64(0)))
        return a;
    json_object_put(a);
    return NULL;
}

static json_object *count_str(uint32_t v)
{
    char b[16];
    snprintf(b, sizeof b, "%u", v);
    return json_object_new_string(b);
}

static json_object *node_json(const OgNode *n)
{
    json_object *o = json_object_new_object(), *in = json_object_new_array();
    bool ok = o && in && obj_add(o, "op", json_object_new_string(n->kind == OG_OP ? "cvm_op"
                                                                                   : "null")) &&
              obj_add(o, "name", json_object_new_string(n->name));
    for (uint32_t i = 0; ok && i < n->ninputs; i++)
        ok = arr_add(in, edge_json(n->inputs[i]));
    if (ok)
        ok = obj_add(o, "inputs", in); /* owns (or released) in */
    else
        json_object_put(in);
    if (ok && n->kind == OG_OP) {
        json_object *a = json_object_new_object();
        if (a && obj_add(a, "func_name", json_object_new_string(n->op_name)) &&
            obj_add(a, "num_inputs", count_str(n->ninputs)) &&
            obj_add(a, "num_outputs", count_str(n->noutputs)) &&
            obj_add(a, "flatten_data", json_object_new_string("0")))
            ok = obj_add(o, "attrs", a);
        else {
            json_object_put(a);
            ok = false;
        }
    }
    if (!ok) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

/* Appends printf output at *used; false when it does not fit. */
static bool put(char *buf, size_t size, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static bool put(char *buf, size_t size, size_t *used, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *used, size - *used, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= size - *used)
        return false;
    *used += (size_t)n;
    return true;
}

/* An attribute value in attribute syntax, into buf (NULL when it does not fit). */
static const char *attr_text(const OgAttr *a, char *buf, size_t size)
{
    size_t used = 0;
    bool ok = false;
    switch (a->kind) {
    case OG_ATTR_NONE:
        ok = put(buf, size, &used, "None");
        break;
    case OG_ATTR_INT:
        ok = put(buf, size, &used, "%lld", (long long)a->i);
        break;
    case OG_ATTR_BOOL:
        ok = put(buf, size, &used, "%s", a->i ? "true" : "false");
        break;
    case OG_ATTR_STR:
        ok = put(buf, size, &used, "%s", a->s);
        break;
    case OG_ATTR_INTS:
        ok = put(buf, size, &used, "(");
        for (uint32_t i = 0; ok && i < a->n; i++)
            ok = put(buf, size, &used, "%s%lld", i ? ", " : "", (long long)a->v[i]);
        ok = ok && put(buf, size, &used, "%s", a->n == 1 ? ",)" : ")");
        break;
    }
    return ok ? buf : NULL;
}

/* The op_attrs string of a node: a JSON object of its attributes, "{}" for null nodes. */
static json_object *op_attrs_json(const OgNode *n)
{
    json_object *o = json_object_new_object();
    bool ok = o != NULL;
    for (uint32_t i = 0; ok && i < n->nattrs; i++) {
        char buf[1024];
        const char *v = attr_text(&n->attrs[i], buf, sizeof buf);
        ok = v && obj_add(o, n->attrs[i].name, json_object_new_string(v));
    }
    const char *s = ok ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                               JSON_C_TO_STRING_NOSLASHESCAPE)
                       : NULL;
    json_object *r = s ? json_object_new_string(s) : NULL;
    json_object_put(o);
    return r;
}

static json_object *shape_json(const OgShape *s)
{
    json_object *a = json_object_new_array();
    for (uint32_t i = 0; a && i < s->ndim; i++)
        if (!arr_add(a, json_object_new_int64(s->d[i]))) {
            json_object_put(a);
            return NULL;
        }
    return a;
}

/* ["type", list] with list filled by fill(g, list) */
typedef bool (*FillFn)(const OpGraph *g, json_object *list);

static json_object *graph_attr(const OpGraph *g, const char *type, FillFn fill)
{
    json_object *pair = json_object_new_array(), *list = json_object_new_array();
    if (pair && list && arr_add(pair, json_object_new_string(type)) && fill(g, list)) {
        if (arr_add(pair, list))
            return pair;
        list = NULL;
    }
    json_object_put(list);
    json_object_put(pair);
    return NULL;
}

static bool fill_shape(const OpGraph *g, json_object *l)
{
    for (uint32_t i = 0; i < g->nnodes; i++)
        for (uint32_t k = 0; k < g->nodes[i]->noutputs; k++)
            if (!arr_add(l, shape_json(&g->nodes[i]->out_shape[k])))
                return false;
    return true;
}

static bool fill_prec(const OpGraph *g, json_object *l)
{
    for (uint32_t i = 0; i < g->nnodes; i++)
        for (uint32_t k = 0; k < g->nodes[i]->noutputs; k++)
            if (!arr_add(l, json_object_new_int64(g->nodes[i]->out_prec[k])))
                return false;
    return true;
}

/* int32 for every entry, whatever its precision: cvm-runtime computes in int32 and refuses
 * any other dltype in a cvm_1.0.0 model (an int8 parameter is int8 in the params file only). */
static bool fill_dltype(const OpGraph *g, json_object *l)
{
    for (uint32_t i = 0; i < g->nnodes; i++)
        for (uint32_t k = 0; k < g->nodes[i]->noutputs; k++)
            if (!arr_add(l, json_object_new_string("int32")))
                return false;
    return true;
}

static bool fill_storage(const OpGraph *g, json_object *l)
{
    int64_t e = 0;
    for (uint32_t i = 0; i < g->nnodes; i++)
        for (uint32_t k = 0; k < g->nodes[i]->noutputs; k++)
            if (!arr_add(l, json_object_new_int64(e++)))
                return false;
    return true;
}

/* Does the graph mark its inputs (cvm.h): unless its one input is named "data". */
static bool marks_inputs(const OpGraph *g)
{
    return !(og_num_inputs(g) == 1 && strcmp(og_input(g, 0)->name, "data") == 0);
}

static bool fill_op_attrs(const OpGraph *g, json_object *l)
{
    bool marks = marks_inputs(g);
    for (uint32_t i = 0; i < g->nnodes; i++) {
        json_object *e = marks && g->nodes[i]->kind == OG_INPUT
                             ? json_object_new_string("{\"" CVM_INPUT_MARK_KEY "\":\"1\"}")
                             : op_attrs_json(g->nodes[i]);
        if (!arr_add(l, e))
            return false;
    }
    return true;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The inputs as cvm.h's reader finds them again: one named "data" (a cvm-runtime model), or
 * up to CVM_MAX_MODEL_INPUTS marked; and no two null nodes (inputs and parameters) of one
 * name, which cvm-runtime refuses. */
static Status check_inputs(const OpGraph *g, Diag *d)
{
    uint32_t n = og_num_inputs(g);
    if (n == 0 || n > CVM_MAX_MODEL_INPUTS)
        return diag_add(d, ST_LOGIC, "cvm.input.missing", NULL, "a model has 1 to %d inputs; "
                        "this graph has %u", CVM_MAX_MODEL_INPUTS, n);
    const char **names = malloc((g->nnodes ? g->nnodes : 1) * sizeof *names);
    if (!names)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    size_t k = 0;
    for (uint32_t i = 0; i < g->nnodes; i++)
        if (g->nodes[i]->kind != OG_OP)
            names[k++] = g->nodes[i]->name;
    qsort(names, k, sizeof *names, cmp_name);
    Status st = ST_OK;
    for (size_t j = 1; j < k && st == ST_OK; j++)
        if (strcmp(names[j - 1], names[j]) == 0)
            st = diag_add(d, ST_LOGIC, "cvm.json.duplicate", NULL, "two inputs or parameters "
                          "are named '%s'", names[j]);
    free(names);
    return st;
}

/* ---- the graph JSON ---- */

Status fe_cvm_graph_json(const OpGraph *g, char **text, size_t *len, Diag *d)
{
    *text = NULL;
    *len = 0;
    if (strcmp(g->dialect, "cvm") != 0)
        return diag_add(d, ST_RUNTIME, "interp.dialect", NULL,
                        "a cvm-runtime model holds dialect \"cvm\", not \"%s\"", g->dialect);
    Status st = check_inputs(g, d);
    if (st != ST_OK)
        return st;
    Text t = {0};
    text_add(&t, "{\n  \"nodes\": [");
    for (uint32_t i = 0; i < g->nnodes; i++) {
        text_add(&t, "%s\n    ", i ? "," : "");
        text_json(&t, node_json(g->nodes[i]));
    }
    text_add(&t, "\n  ],\n  \"arg_nodes\": [");
    bool first = true;
    for (uint32_t i = 0; i < g->nnodes; i++)
        if (g->nodes[i]->kind != OG_OP) {
            text_add(&t, "%s%u", first ? "" : ", ", i);
            first = false;
        }
    text_add(&t, "],\n  \"heads\": [");
    for (uint32_t j = 0; j < g->noutputs; j++) {
        text_add(&t, "%s", j ? ", " : "");
        text_json(&t, edge_json(g->outputs[j]));
    }
    text_add(&t, "],\n  \"node_row_ptr\": [0");
    uint64_t e = 0;
    for (uint32_t i = 0; i < g->nnodes; i++) {
        e += g->nodes[i]->noutputs;
        text_add(&t, ", %llu", (unsigned long long)e);
    }
    text_add(&t, "],\n  \"attrs\": {\n    \"dltype\": ");
    text_json(&t, graph_attr(g, "list_str", fill_dltype));
    text_add(&t, ",\n    \"shape\": ");
    text_json(&t, graph_attr(g, "list_shape", fill_shape));
    text_add(&t, ",\n    \"precision\": ");
    text_json(&t, graph_attr(g, "list_int", fill_prec));
    text_add(&t, ",\n    \"storage_id\": ");
    text_json(&t, graph_attr(g, "list_int", fill_storage));
    text_add(&t, ",\n    \"op_attrs\": ");
    text_json(&t, graph_attr(g, "list_str", fill_op_attrs));
    text_add(&t, "\n  },\n  \"version\": \"cvm_1.0.0\"\n}\n");
    if (t.oom) {
        free(t.s);
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory rendering the graph JSON");
    }
    *text = t.s;
    *len = t.len;
    return ST_OK;
}

Status fe_cvm_save(const OpGraph *g, const char *json_path, const char *params_path, Diag *d)
{
    char *json;
    size_t len;
    Status st = fe_cvm_graph_json(g, &json, &len, d);
    if (st != ST_OK)
        return st;
    size_t n = 0;
    for (uint32_t i = 0; i < g->nnodes; i++)
        n += g->nodes[i]->kind == OG_CONST;
    CvmParam *p = calloc(n ? n : 1, sizeof *p);
    if (!p) {
        free(json);
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    }
    n = 0;
    for (uint32_t i = 0; i < g->nnodes; i++) {
        const OgNode *c = g->nodes[i];
        if (c->kind != OG_CONST)
            continue;
        p[n].name = c->name;
        p[n].t = c->value;
        p[n].bits = c->out_prec[0] <= 8 ? 8 : 32;
        n++;
    }
    st = fe_cvm_params_write(params_path, p, n, d);
    if (st == ST_OK && (st = tir_write_file_atomic(json_path, json, len, d)) != ST_OK)
        unlink(params_path);
    free(p);
    free(json);
    return st;
}

/* ---- comparison ---- */

static bool differ(char *why, size_t size, const OgNode *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static bool differ(char *why, size_t size, const OgNode *n, const char *fmt, ...)
{
    if (why && size) {
        char what[256];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof what, fmt, ap);
        va_end(ap);
        if (n)
            snprintf(why, size, "node %d '%s': %s", (int)n->id, n->name, what);
        else
            snprintf(why, size, "%s", what);
    }
    return false;
}

static bool same_attr(const OgAttr *a, const OgAttr *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case OG_ATTR_NONE:
        return true;
    case OG_ATTR_INT:
    case OG_ATTR_BOOL:
        return a->i == b->i;
    case OG_ATTR_STR:
        return strcmp(a->s, b->s) == 0;
    case OG_ATTR_INTS:
        return a->n == b->n && (a->n == 0 || memcmp(a->v, b->v, a->n * sizeof *a->v) == 0);
    }
    return false;
}

static bool same_node(const OgNode *a, const OgNode *b, char *why, size_t size)
{
    if (a->kind != b->kind || a->op != b->op || strcmp(a->op_name, b->op_name) != 0)
        return differ(why, size, a, "kind or operator differs (%s, %s)", a->op_name, b->op_name);
    if (strcmp(a->name, b->name) != 0)
        return differ(why, size, a, "name differs ('%s')", b->name);
    if (a->ninputs != b->ninputs)
        return differ(why, size, a, "%u inputs, %u", a->ninputs, b->ninputs);
    for (uint32_t i = 0; i < a->ninputs; i++)
        if (a->inputs[i].node != b->inputs[i].node || a->inputs[i].index != b->inputs[i].index)
            return differ(why, size, a, "input %u differs", i);
    if (a->noutputs != b->noutputs)
        return differ(why, size, a, "%u outputs, %u", a->noutputs, b->noutputs);
    for (uint32_t k = 0; k < a->noutputs; k++) {
        if (!og_shape_eq(&a->out_shape[k], &b->out_shape[k]))
            return differ(why, size, a, "output %u shape differs", k);
        if (a->out_prec[k] != b->out_prec[k])
            return differ(why, size, a, "output %u precision %d, %d", k, (int)a->out_prec[k],
                          (int)b->out_prec[k]);
    }
    if (a->nattrs != b->nattrs)
        return differ(why, size, a, "%u attributes, %u", a->nattrs, b->nattrs);
    for (uint32_t i = 0; i < a->nattrs; i++) {
        const OgAttr *o = og_attr(b, a->attrs[i].name);
        if (!o || !same_attr(&a->attrs[i], o))
            return differ(why, size, a, "attribute '%s' differs", a->attrs[i].name);
    }
    if (a->kind == OG_CONST &&
        (!og_shape_eq(&a->value.shape, &b->value.shape) || a->value.count != b->value.count ||
         (a->value.count &&
          memcmp(a->value.data, b->value.data, (size_t)a->value.count * sizeof(int32_t)) != 0)))
        return differ(why, size, a, "parameter values differ");
    return true;
}

bool fe_og_same(const OpGraph *a, const OpGraph *b, char *why, size_t size)
{
    if (strcmp(a->dialect, b->dialect) != 0)
        return differ(why, size, NULL, "dialect \"%s\", \"%s\"", a->dialect, b->dialect);
    if (a->nnodes != b->nnodes)
        return differ(why, size, NULL, "%u nodes, %u", a->nnodes, b->nnodes);
    for (uint32_t i = 0; i < a->nnodes; i++)
        if (!same_node(a->nodes[i], b->nodes[i], why, size))
            return false;
    if (a->noutputs != b->noutputs)
        return differ(why, size, NULL, "%u outputs, %u", a->noutputs, b->noutputs);
    for (uint32_t j = 0; j < a->noutputs; j++)
        if (a->outputs[j].node != b->outputs[j].node || a->outputs[j].index != b->outputs[j].index)
            return differ(why, size, NULL, "output %u differs", j);
    return true;
}
