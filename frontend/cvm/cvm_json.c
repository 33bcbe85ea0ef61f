/* cvm_json.c: the cvm-runtime graph JSON (format in cvm.h) read into an OpGraph.
 *
 * Two passes over "nodes": the first checks every node's structure, resolves its operator and
 * output count (hence the entry numbering node_row_ptr describes); the second builds the
 * OpGraph in file order through the checked builder (cvm_build.c), feeding each operator its
 * attributes (graph attrs "op_attrs" merged with any non-reserved keys of the node's own
 * "attrs") and comparing the shapes and precisions the file declares with the inferred ones.
 * Parsing uses json-c with a depth limit; every value's type is checked before use; the
 * first finding stops the load (later ones would only repeat it).
 */
#include "frontend/cvm/cvm_json_keys.h"
#include "frontend/cvm/cvm_ops.h"
#include "taskir/fileio.h"

#include <json-c/json.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct NodeInfo {
    json_object *obj;
    const char *name;
    bool is_op;
    CvmOp op;
    uint32_t nout;
    uint64_t entry;         /* first entry id */
    bool is_input;          /* a null node that is a model input (find_inputs) */
} NodeInfo;

typedef struct Loader {
    Diag *d;
    OpGraph *g;
    const CvmParams *params;
    const CvmParam **by_name; /* params sorted by name, for find_param */
    const char *params_name;
    json_object *root;
    json_object *nodes;
    size_t nnodes;
    NodeInfo *info;
    uint64_t nentries;
    json_object *shape, *prec, *dltype, *storage, *op_attrs; /* graph attrs lists or NULL */
    int32_t *node_map;      /* file node index -> OpGraph node id */
    bool *param_used;       /* per params entry: a null node took it */
} Loader;

static Status jfail(Loader *L, const char *rule, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static Status jfail(Loader *L, const char *rule, const char *where, const char *fmt, ...)
{
    char what[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return diag_add(L->d, ST_LOGIC, rule, where, "%s", what);
}

static Status oom(Loader *L)
{
    return diag_add(L->d, ST_RUNTIME, "oom", NULL, "out of memory");
}

/* Whether json-c ran out of memory parsing text into o with err. json-c 0.17 on says so
 * (json_tokener_error_memory); 0.16 (Debian bookworm) reports success and returns what it had
 * built: NULL when a value could not be made, which only the text "null" gives otherwise.
 * What 0.16 cannot tell is in docs/limits.md. */
static bool json_ran_out(const json_object *o, enum json_tokener_error err, const char *text,
                         size_t len)
{
#if JSON_C_VERSION_NUM >= (17 << 8)
    if (err == json_tokener_error_memory)
        return true;
#endif
    if (o || err != json_tokener_success)
        return false;
    size_t i = 0;
    while (i < len && strchr(" \t\n\r", text[i]) && text[i])
        i++;
    return len - i < 4 || memcmp(text + i, "null", 4) != 0;
}

static const char *jtype(json_object *o)
{
    return json_type_to_name(json_object_get_type(o));
}

/* The member `key` of object o with type t; NULL (and *st set) when absent or mistyped.
 * Absent is fine when !required (*st stays ST_OK). */
static json_object *member(Loader *L, json_object *o, const char *key, json_type t, bool required,
                           const char *where, Status *st)
{
    json_object *v = NULL;
    *st = ST_OK;
    if (!json_object_object_get_ex(o, key, &v) || !v) {
        if (required)
            *st = jfail(L, "cvm.json.missing", where, "'%s' is missing", key);
        return NULL;
    }
    if (json_object_get_type(v) != t) {
        *st = jfail(L, "cvm.json.type", where, "'%s' is %s, expected %s", key, jtype(v),
                    json_type_to_name(t));
        return NULL;
    }
    return v;
}

/* An int element of an array, within [lo, hi]. */
static Status get_int(Loader *L, json_object *v, int64_t lo, int64_t hi, const char *rule,
                      const char *where, const char *what, int64_t *out)
{
    if (!v || json_object_get_type(v) != json_type_int)
        return jfail(L, "cvm.json.type", where, "%s is %s, expected an integer", what,
                     v ? jtype(v) : "null");
    int64_t x = json_object_get_int64(v);
    if (x < lo || x > hi)
        return jfail(L, rule, where, "%s is %lld, outside [%lld, %lld]", what, (long long)x,
                     (long long)lo, (long long)hi);
    *out = x;
    return ST_OK;
}

static void node_where(Loader *L, size_t i, char *buf, size_t size)
{
    const NodeInfo *ni = &L->info[i];
    snprintf(buf, size, "node %zu '%s' (%s)", i, ni->name ? ni->name : "",
             ni->is_op ? cvm_op_name(ni->op) : "null");
}

/* ---- graph attrs ---- */

/* attrs[key] must be [type_name, list]; *list gets the list. Absent: *list = NULL. */
static Status graph_attr(Loader *L, json_object *attrs, const char *key, const char *type_name,
                         json_object **list)
{
    *list = NULL;
    char where[64];
    snprintf(where, sizeof where, "graph attrs '%s'", key);
    json_object *v;
    if (!attrs || !json_object_object_get_ex(attrs, key, &v))
        return ST_OK;
    if (json_object_get_type(v) != json_type_array || json_object_array_length(v) != 2)
        return jfail(L, "cvm.json.attrs", where, "is not a [\"%s\", [...]] pair", type_name);
    json_object *t = json_object_array_get_idx(v, 0), *l = json_object_array_get_idx(v, 1);
    if (!t || json_object_get_type(t) != json_type_string ||
        strcmp(json_object_get_string(t), type_name) != 0)
        return jfail(L, "cvm.json.attrs", where, "has type %s, expected \"%s\"",
                     t && json_object_get_type(t) == json_type_string ? json_object_get_string(t)
                                                                      : jtype(t), type_name);
    if (!l || json_object_get_type(l) != json_type_array)
        return jfail(L, "cvm.json.attrs", where, "has no list");
    *list = l;
    return ST_OK;
}

static Status check_list_len(Loader *L, json_object *l, const char *key, uint64_t want,
                             const char *what)
{
    if (!l || json_object_array_length(l) == want)
        return ST_OK;
    char where[64];
    snprintf(where, sizeof where, "graph attrs '%s'", key);
    return jfail(L, "cvm.json.attrs", where, "has %zu values for %llu %s",
                 json_object_array_length(l), (unsigned long long)want, what);
}

/* The declared shape of an entry; *have false when not declared (absent list). */
static Status declared_shape(Loader *L, uint64_t entry, OgShape *s, bool *have)
{
    *have = false;
    if (!L->shape)
        return ST_OK;
    char where[64];
    snprintf(where, sizeof where, "graph attrs 'shape'[%llu]", (unsigned long long)entry);
    json_object *v = json_object_array_get_idx(L->shape, entry);
    if (!v || json_object_get_type(v) != json_type_array)
        return jfail(L, "cvm.json.attrs", where, "is %s, expected a list of dims",
                     v ? jtype(v) : "null");
    size_t n = json_object_array_length(v);
    if (n < 1 || n > OG_MAX_DIMS)
        return jfail(L, "cvm.limit.ndim", where, "has %zu dims; tensors have 1 to %d", n,
                     OG_MAX_DIMS);
    s->ndim = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        Status st = get_int(L, json_object_array_get_idx(v, i), 1, OG_MAX_DIM, "cvm.limit.dim",
                            where, "a dim", &s->d[i]);
        if (st != ST_OK)
            return st;
    }
    *have = true;
    return ST_OK;
}

/* The declared precision of an entry: -1 (or no list) when not declared. */
static Status declared_prec(Loader *L, uint64_t entry, int32_t *p)
{
    *p = -1;
    if (!L->prec)
        return ST_OK;
    char where[64];
    snprintf(where, sizeof where, "graph attrs 'precision'[%llu]", (unsigned long long)entry);
    int64_t v = -1;
    Status st = get_int(L, json_object_array_get_idx(L->prec, entry), -1, 32,
                        "cvm.precision.range", where, "the precision", &v);
    if (st == ST_OK && v == 0)
        st = jfail(L, "cvm.precision.range", where, "the precision is 0; it is -1 (not "
                   "declared) or 1..32");
    if (st == ST_OK)
        *p = (int32_t)v;
    return st;
}

/* ---- operator attributes ---- */

typedef struct KVList {
    CvmKV *kv;
    size_t n, cap;
} KVList;

static void kv_free(KVList *l)
{
    free(l->kv);
    memset(l, 0, sizeof *l);
}

/* An op_attrs entry's member: cvm-runtime reads the entry as a map of strings. The KVList
 * borrows key and value from the parsed entry. */
static Status kv_add(Loader *L, KVList *l, const char *key, json_object *v, const char *where)
{
    if (json_object_get_type(v) != json_type_string)
        return jfail(L, "cvm.json.type", where, "attribute '%s' is %s, expected a string", key,
                     jtype(v));
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        CvmKV *p = realloc(l->kv, cap * sizeof *p);
        if (!p)
            return oom(L);
        l->kv = p;
        l->cap = cap;
    }
    l->kv[l->n].key = key;
    l->kv[l->n].value = json_object_get_string(v);
    l->n++;
    return ST_OK;
}

static Status add_object(Loader *L, KVList *l, json_object *o, const char *where)
{
    if ((size_t)json_object_object_length(o) > CVM_MAX_NODE_ATTRS)
        return jfail(L, "cvm.limit.attrs", where, "more than %d attributes", CVM_MAX_NODE_ATTRS);
    json_object_object_foreach(o, key, val)
    {
        Status st = kv_add(L, l, key, val, where);
        if (st != ST_OK)
            return st;
    }
    return ST_OK;
}

/* Parses a JSON text with the depth limit; *out must be json_object_put. */
static Status parse_json(Loader *L, const char *text, size_t len, const char *where,
                         json_object **out)
{
    *out = NULL;
    if (len > INT_MAX)
        return jfail(L, "cvm.json.syntax", where, "JSON text of %zu bytes is too large", len);
    /* json-c allocates a few hundred bytes per array or object: bound their number first.
     * The same pass refuses what json-c's strict mode still lets through: a control
     * character inside a string, and outside strings anything but JSON's own characters
     * (single quotes, NaN, Infinity) or a '.' without a digit after it; and what
     * cvm-runtime's JSON reader does not read: string escapes other than \" \\ \n \r \t. */
    size_t containers = 0;
    bool in_str = false;
    for (size_t i = 0; i < len; i++) {
        char ch = text[i];
        if (in_str) {
            if (ch == '\\' && (i + 1 == len || !strchr("\"\\nrt", text[i + 1]) ||
                                text[i + 1] == 0))
                return jfail(L, "cvm.json.syntax", where, "invalid JSON at byte %zu: a string "
                             "escape other than \\\" \\\\ \\n \\r \\t (cvm-runtime reads no other)",
                             i);
            if (ch == '\\')
                i++;
            else if (ch == '"')
                in_str = false;
            else if ((unsigned char)ch < 0x20)
                return jfail(L, "cvm.json.syntax", where, "invalid JSON at byte %zu: a control "
                             "character inside a string", i);
        } else if (ch == '"') {
            in_str = true;
        } else if ((ch == '[' || ch == '{') && ++containers > CVM_MAX_JSON_CONTAINERS) {
            return jfail(L, "cvm.limit.json", where, "more than %u arrays and objects",
                         CVM_MAX_JSON_CONTAINERS);
        } else if (ch == 0 || (!strchr(" \t\n\r[]{},:0123456789+-eEtruefalsn", ch) &&
                               !(ch == '.' && i + 1 < len && text[i + 1] >= '0' &&
                                 text[i + 1] <= '9'))) {
            return jfail(L, "cvm.json.syntax", where, "invalid JSON at byte %zu: unexpected "
                         "character", i);
        }
    }
    json_tokener *tok = json_tokener_new_ex(CVM_MAX_JSON_DEPTH);
    if (!tok)
        return oom(L);
    /* strict JSON as cvm-runtime's reader wants it (no trailing comma, comment, single quote,
     * bare word), in UTF-8 (node names become TaskBlock names, which protobuf wants valid) */
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    json_object *o = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error err = json_tokener_get_error(tok);
    size_t end = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    if (json_ran_out(o, err, text, len)) {
        json_object_put(o);
        return diag_add(L->d, ST_RUNTIME, "oom", where, "out of memory parsing the JSON text");
    }
    if (!o || err != json_tokener_success) {
        json_object_put(o);
        if (err == json_tokener_continue)
            return jfail(L, "cvm.json.syntax", where, "the JSON text ends early");
        if (err == json_tokener_error_parse_utf8_string)
            return jfail(L, "cvm.json.utf8", where, "invalid UTF-8 at byte %zu", end);
        return jfail(L, "cvm.json.syntax", where, "invalid JSON at byte %zu: %s", end,
                     json_tokener_error_desc(err));
    }
    for (size_t i = end; i < len; i++)
        if (text[i] != ' ' && text[i] != '\n' && text[i] != '\r' && text[i] != '\t') {
            json_object_put(o);
            return jfail(L, "cvm.json.syntax", where, "unexpected data after the JSON value at "
                         "byte %zu", i);
        }
    *out = o;
    return ST_OK;
}

/* The attributes of operator node i: op_attrs[i], a JSON object in a string (the node's own
 * attrs hold only cvm_op parameters: cvm_json_keys.c). The KVList borrows strings from
 * *holder, which the caller keeps alive and releases. */
static Status op_attributes(Loader *L, size_t i, KVList *l, json_object **holder)
{
    char where[320];
    node_where(L, i, where, sizeof where);
    *holder = NULL;
    json_object *s = json_object_array_get_idx(L->op_attrs, i);
    Status st = parse_json(L, json_object_get_string(s), (size_t)json_object_get_string_len(s),
                           where, holder);
    if (st != ST_OK)
        return st;
    if (json_object_get_type(*holder) != json_type_object)
        return jfail(L, "cvm.json.attrs", where, "op_attrs entry is a JSON %s, expected an "
                     "object", jtype(*holder));
    return add_object(L, l, *holder, where);
}

/* ---- pass 1: structure of every node ---- */

static Status node_string_attr(Loader *L, json_object *attrs, const char *key, const char *where,
                               const char **out)
{
    *out = NULL;
    json_object *v;
    if (!attrs || !json_object_object_get_ex(attrs, key, &v) || !v)
        return ST_OK;
    if (json_object_get_type(v) == json_type_string) {
        *out = json_object_get_string(v);
        return ST_OK;
    }
    return jfail(L, "cvm.json.type", where, "attrs '%s' is %s, expected a string", key, jtype(v));
}

/* The operator of func_name fn: cvm-runtime drops a trailing "_<digits>" (or a trailing
 * "_") first, as NNVM names a node's function "conv2d_3" (Node::GetOpName). */
static bool op_of_func_name(const char *fn, CvmOp *op)
{
    size_t n = strlen(fn), k = n;
    while (k > 0 && fn[k - 1] >= '0' && fn[k - 1] <= '9')
        k--;
    if (k == 0 || fn[k - 1] != '_')
        return cvm_op_from_name(fn, op);
    char base[64];
    if (k - 1 >= sizeof base)
        return false;
    memcpy(base, fn, k - 1);
    base[k - 1] = 0;
    return cvm_op_from_name(base, op);
}

static Status scan_node(Loader *L, size_t i)
{
    NodeInfo *ni = &L->info[i];
    char where[320];
    snprintf(where, sizeof where, "node %zu", i);
    json_object *o = json_object_array_get_idx(L->nodes, i);
    if (!o || json_object_get_type(o) != json_type_object)
        return jfail(L, "cvm.json.type", where, "is %s, expected an object", o ? jtype(o) : "null");
    ni->obj = o;
    Status st;
    json_object *op = member(L, o, "op", json_type_string, true, where, &st);
    if (!op)
        return st;
    json_object *name = member(L, o, "name", json_type_string, true, where, &st);
    if (!name)
        return st;
    ni->name = json_object_get_string(name);
    snprintf(where, sizeof where, "node %zu '%s'", i, ni->name);
    json_object *inputs = member(L, o, "inputs", json_type_array, true, where, &st);
    if (!inputs)
        return st;
    json_object *attrs = member(L, o, "attrs", json_type_object, false, where, &st);
    if (st != ST_OK)
        return st;
    const char *opname = json_object_get_string(op);
    if (strcmp(opname, "null") == 0) {
        ni->is_op = false;
        ni->nout = 1;
        if (json_object_array_length(inputs) != 0)
            return jfail(L, "cvm.json.input", where, "a null node has %zu inputs, expected none",
                         json_object_array_length(inputs));
        return ST_OK;
    }
    if (strcmp(opname, "cvm_op") != 0)
        return jfail(L, "cvm.json.op", where, "op is \"%s\", expected \"null\" or \"cvm_op\"",
                     opname);
    const char *fn, *nin, *nout;
    if ((st = node_string_attr(L, attrs, "func_name", where, &fn)) ||
        (st = node_string_attr(L, attrs, "num_inputs", where, &nin)) ||
        (st = node_string_attr(L, attrs, "num_outputs", where, &nout)))
        return st;
    if (!fn)
        return jfail(L, "cvm.json.missing", where, "attrs 'func_name' is missing");
    if (!op_of_func_name(fn, &ni->op))
        return jfail(L, "cvm.op.unknown", where, "operator \"%s\" is not one cvm-runtime "
                     "registers", fn);
    ni->is_op = true;
    ni->nout = (uint32_t)cvm_op_num_outputs(ni->op);
    node_where(L, i, where, sizeof where);
    int64_t v;
    if (nin && (!cvm_parse_int_text(nin, &v) || v != (int64_t)json_object_array_length(inputs)))
        return jfail(L, "cvm.op.inputs", where, "num_inputs is \"%s\", the node has %zu inputs",
                     nin, json_object_array_length(inputs));
    if (nout && (!cvm_parse_int_text(nout, &v) || v != ni->nout))
        return jfail(L, "cvm.op.outputs", where, "num_outputs is \"%s\"; %s has %u", nout, fn,
                     ni->nout);
    return ST_OK;
}

/* ---- pass 2: building ---- */

static Status check_declared(Loader *L, size_t i, const OgNode *n)
{
    char where[320];
    node_where(L, i, where, sizeof where);
    for (uint32_t k = 0; k < n->noutputs; k++) {
        uint64_t e = L->info[i].entry + k;
        OgShape s;
        bool have;
        int32_t p;
        Status st = declared_shape(L, e, &s, &have);
        if (st != ST_OK)
            return st;
        if (have && !og_shape_eq(&s, &n->out_shape[k])) {
            char a[128], b[128];
            return jfail(L, "cvm.shape", where, "output %u: the file declares shape %s, the "
                         "operator gives %s", k, og_shape_str(&s, a, sizeof a),
                         og_shape_str(&n->out_shape[k], b, sizeof b));
        }
        if ((st = declared_prec(L, e, &p)))
            return st;
        if (p != -1 && p != n->out_prec[k])
            return jfail(L, "cvm.precision", where, "output %u: the file declares precision %d, "
                         "the operator gives %d", k, (int)p, (int)n->out_prec[k]);
    }
    return ST_OK;
}

static int cmp_param_name(const void *a, const void *b)
{
    return strcmp((*(const CvmParam *const *)a)->name, (*(const CvmParam *const *)b)->name);
}

static int cmp_name_param(const void *key, const void *p)
{
    return strcmp((const char *)key, (*(const CvmParam *const *)p)->name);
}

/* A binary search of by_name: null nodes times params would be quadratic. */
static const CvmParam *find_param(const Loader *L, const char *name)
{
    if (!L->by_name)
        return NULL;
    const CvmParam **p = bsearch(name, L->by_name, L->params->n, sizeof *L->by_name,
                                 cmp_name_param);
    return p ? *p : NULL;
}

/* Fills L->by_name from L->params. */
static Status index_params(Loader *L)
{
    if (!L->params || !L->params->n)
        return ST_OK;
    L->by_name = malloc(L->params->n * sizeof *L->by_name);
    L->param_used = calloc(L->params->n, sizeof *L->param_used);
    if (!L->by_name || !L->param_used)
        return oom(L);
    for (size_t i = 0; i < L->params->n; i++)
        L->by_name[i] = &L->params->p[i];
    qsort(L->by_name, L->params->n, sizeof *L->by_name, cmp_param_name);
    return ST_OK;
}

/* Is null node i marked a model input by its op_attrs entry (the taskir extension, cvm.h)?
 * cvm-runtime never reads a null node's entry; any other content is ignored here too. Only
 * a short entry can be a mark, so that parsing it costs next to nothing. */
static bool input_marked(const Loader *L, size_t i)
{
    json_object *s = json_object_array_get_idx(L->op_attrs, i), *o, *v;
    if (json_object_get_string_len(s) > 64 ||
        !strstr(json_object_get_string(s), CVM_INPUT_MARK_KEY))
        return false; /* the common "{}": no need to parse */
    if (!(o = json_tokener_parse(json_object_get_string(s))))
        return false;
    bool yes = json_object_get_type(o) == json_type_object &&
               json_object_object_get_ex(o, CVM_INPUT_MARK_KEY, &v) &&
               json_object_get_type(v) == json_type_string &&
               strcmp(json_object_get_string(v), "1") == 0;
    json_object_put(o);
    return yes;
}

/* The model inputs: the marked null nodes when there are any (at most CVM_MAX_MODEL_INPUTS),
 * otherwise the one named "data". */
static Status find_inputs(Loader *L)
{
    size_t n = 0;
    for (size_t i = 0; i < L->nnodes; i++)
        if (!L->info[i].is_op && input_marked(L, i)) {
            L->info[i].is_input = true;
            n++;
        }
    if (n > CVM_MAX_MODEL_INPUTS)
        return jfail(L, "cvm.limit.inputs", "graph attrs 'op_attrs'", "%zu null nodes are marked "
                     "inputs; a model has at most %d", n, CVM_MAX_MODEL_INPUTS);
    for (size_t i = 0; i < L->nnodes && n == 0; i++)
        L->info[i].is_input = !L->info[i].is_op && strcmp(L->info[i].name, "data") == 0;
    return ST_OK;
}

static Status build_null(Loader *L, size_t i)
{
    NodeInfo *ni = &L->info[i];
    char where[320];
    node_where(L, i, where, sizeof where);
    OgShape s;
    bool have;
    int32_t p;
    Status st = declared_shape(L, ni->entry, &s, &have);
    if (st == ST_OK)
        st = declared_prec(L, ni->entry, &p);
    if (st != ST_OK)
        return st;
    if (p == -1) /* cvm-runtime: "variable node's precision has not been set" */
        return jfail(L, "cvm.precision.missing", where, "the %s '%s' has no declared precision",
                     ni->is_input ? "input" : "parameter", ni->name);
    OgNode *n = NULL;
    if (ni->is_input) {
        if (!have)
            return jfail(L, "cvm.json.attrs", where, "the input '%s' has no declared shape",
                         ni->name);
        st = fe_cvm_add_input(L->g, ni->name, &s, p, &n, L->d);
    } else {
        const CvmParam *prm = find_param(L, ni->name);
        if (!prm)
            return jfail(L, "cvm.params.missing", where, "no parameter '%s' in %s", ni->name,
                         !L->params ? "the params (none were given)"
                         : L->params_name ? L->params_name : "the params");
        L->param_used[prm - L->params->p] = true;
        if (have && !og_shape_eq(&s, &prm->t.shape)) {
            char a[128], b[128];
            return jfail(L, "cvm.shape", where, "the file declares shape %s, the parameter has %s",
                         og_shape_str(&s, a, sizeof a), og_shape_str(&prm->t.shape, b, sizeof b));
        }
        st = fe_cvm_add_const(L->g, ni->name, &prm->t, p, &n, L->d);
    }
    if (st != ST_OK)
        return st;
    n->src_index = (int32_t)i;
    L->node_map[i] = n->id;
    return ST_OK;
}

/* Reads an edge [node, index] or [node, index, version] referring to an earlier node. */
static Status read_edge(Loader *L, json_object *e, size_t before, const char *rule,
                        const char *where, const char *what, OgEdge *out)
{
    if (!e || json_object_get_type(e) != json_type_array ||
        json_object_array_length(e) < 2 || json_object_array_length(e) > 3)
        return jfail(L, rule, where, "%s is not [node, index, version]", what);
    int64_t nd, ix, ver;
    Status st = get_int(L, json_object_array_get_idx(e, 0), 0, (int64_t)before - 1, rule, where,
                        what, &nd);
    if (st == ST_OK)
        st = get_int(L, json_object_array_get_idx(e, 1), 0, (int64_t)L->info[nd].nout - 1, rule,
                     where, what, &ix);
    if (st == ST_OK && json_object_array_length(e) == 3)
        st = get_int(L, json_object_array_get_idx(e, 2), INT32_MIN, INT32_MAX, rule, where, what,
                     &ver);
    if (st != ST_OK)
        return st;
    out->node = L->node_map[nd];
    out->index = (uint32_t)ix;
    return ST_OK;
}

/* The operators cvm-runtime lets write in the storage of an input (PrepareGraphWithVersion's
 * reused_ops; that list spells negative "nagetive", so negative is not one of them). */
static bool may_share_storage(CvmOp op)
{
    static const char *const names[] = {"flatten", "relu", "expand_dims", "reshape", "squeeze",
                                        "abs", "cvm_precision", "elemwise_add", "elemwise_sub",
                                        "clip", "cvm_clip", "cvm_right_shift", "cvm_left_shift"};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        if (strcmp(cvm_op_name(op), names[k]) == 0)
            return true;
    return false;
}

static int64_t storage_of(const Loader *L, uint64_t entry)
{
    return json_object_get_int64(json_object_array_get_idx(L->storage, entry));
}

/* Any other operator's outputs have storage ids none of its inputs has. */
static Status check_storage(Loader *L, size_t i, const OgEdge *e, size_t nin)
{
    const NodeInfo *ni = &L->info[i];
    if (may_share_storage(ni->op))
        return ST_OK;
    for (uint32_t k = 0; k < ni->nout; k++)
        for (size_t j = 0; j < nin; j++) {
            const OgNode *src = og_node(L->g, e[j].node);
            uint64_t in = L->info[src->src_index].entry + e[j].index;
            if (storage_of(L, ni->entry + k) == storage_of(L, in)) {
                char where[320];
                node_where(L, i, where, sizeof where);
                return jfail(L, "cvm.json.storage", where, "output %u has storage_id %lld, "
                             "like its input %zu; %s cannot compute in place", k,
                             (long long)storage_of(L, in), j, cvm_op_name(ni->op));
            }
        }
    return ST_OK;
}

static Status build_op(Loader *L, size_t i)
{
    NodeInfo *ni = &L->info[i];
    char where[320];
    node_where(L, i, where, sizeof where);
    json_object *inputs;
    json_object_object_get_ex(ni->obj, "inputs", &inputs);
    size_t nin = json_object_array_length(inputs);
    if (nin > CVM_MAX_INPUTS)
        return jfail(L, "cvm.op.inputs", where, "%zu inputs; at most %d are allowed", nin,
                     CVM_MAX_INPUTS);
    OgEdge *e = calloc(nin ? nin : 1, sizeof *e);
    if (!e)
        return oom(L);
    Status st = ST_OK;
    for (size_t k = 0; k < nin && st == ST_OK; k++) {
        char what[32];
        snprintf(what, sizeof what, "input %zu", k);
        st = read_edge(L, json_object_array_get_idx(inputs, k), i, "cvm.json.input", where, what,
                       &e[k]);
    }
    if (st == ST_OK)
        st = check_storage(L, i, e, nin);
    KVList kv = {0};
    json_object *holder = NULL;
    if (st == ST_OK)
        st = op_attributes(L, i, &kv, &holder);
    OgNode *n = NULL;
    if (st == ST_OK)
        st = fe_cvm_add_op(L->g, ni->op, ni->name, e, (uint32_t)nin, kv.kv, kv.n, &n, L->d);
    kv_free(&kv);
    json_object_put(holder);
    free(e);
    if (st != ST_OK)
        return st; /* the builder's messages use the node id, which is the file's index */
    n->src_index = (int32_t)i;
    L->node_map[i] = n->id;
    return check_declared(L, i, n);
}

/* arg_nodes: in cvm_1.0.0 exactly the null nodes in node order (cvm-runtime compares the two
 * lists); in cvm_1.1.0, which cvm-runtime derives, optional, and when given it lists null
 * nodes only, each of them. */
static Status check_arg_nodes(Loader *L, bool v100)
{
    Status st;
    json_object *a = member(L, L->root, "arg_nodes", json_type_array, v100, "graph", &st);
    if (!a)
        return st;
    const char *where = "graph 'arg_nodes'";
    bool *listed = calloc(L->nnodes ? L->nnodes : 1, sizeof *listed);
    if (!listed)
        return oom(L);
    st = ST_OK;
    size_t next = 0; /* cvm_1.0.0: the null node entry k must be */
    for (size_t k = 0; k < json_object_array_length(a) && st == ST_OK; k++) {
        int64_t v = 0;
        st = get_int(L, json_object_array_get_idx(a, k), 0, (int64_t)L->nnodes - 1,
                     "cvm.json.arg_nodes", where, "an entry", &v);
        if (st == ST_OK && L->info[v].is_op)
            st = jfail(L, "cvm.json.arg_nodes", where, "lists node %lld, which is an operator",
                       (long long)v);
        while (st == ST_OK && v100 && next < L->nnodes && L->info[next].is_op)
            next++;
        if (st == ST_OK && v100 && (size_t)v != next)
            st = jfail(L, "cvm.json.arg_nodes", where, "entry %zu is %lld; in cvm_1.0.0 the "
                       "list is the null nodes in order, here %zu", k, (long long)v, next);
        next++;
        if (st == ST_OK)
            listed[v] = true;
    }
    for (size_t i = 0; i < L->nnodes && st == ST_OK; i++)
        if (!L->info[i].is_op && !listed[i])
            st = jfail(L, "cvm.json.arg_nodes", where, "does not list null node %zu '%s'", i,
                       L->info[i].name);
    free(listed);
    return st;
}

/* cvm-runtime refuses two arg nodes of one name: no two null nodes share a name. Sorted, so
 * that many parameters cost n log n. */
static int cmp_str_ptr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static Status check_null_names(Loader *L)
{
    const char **v = malloc((L->nnodes ? L->nnodes : 1) * sizeof *v);
    if (!v)
        return oom(L);
    size_t n = 0;
    for (size_t i = 0; i < L->nnodes; i++)
        if (!L->info[i].is_op)
            v[n++] = L->info[i].name;
    qsort(v, n, sizeof *v, cmp_str_ptr);
    Status st = ST_OK;
    for (size_t k = 1; k < n && st == ST_OK; k++)
        if (strcmp(v[k - 1], v[k]) == 0)
            st = jfail(L, "cvm.json.duplicate", "graph", "two null nodes are named '%s'", v[k]);
    free(v);
    return st;
}

/* Every params entry names a null node that is no model input: cvm-runtime's LoadParams
 * looks each name up among its arg nodes and refuses a name it does not find. (It would
 * take an entry for the input "data" and overwrite it with the input: taskir refuses it.) */
static Status check_params_used(Loader *L)
{
    for (size_t k = 0; L->params && k < L->params->n; k++) {
        if (L->param_used[k])
            continue;
        const char *name = L->params->p[k].name;
        return jfail(L, "cvm.params.unknown", L->params_name ? L->params_name : "params",
                     "array %zu '%s' is %s", k, name, og_find_input(L->g, name) >= 0
                     ? "the model input of that name" : "no null node of the graph");
    }
    return ST_OK;
}

static Status read_heads(Loader *L)
{
    Status st;
    json_object *h = member(L, L->root, "heads", json_type_array, true, "graph", &st);
    if (!h)
        return st;
    size_t n = json_object_array_length(h);
    if (n == 0)
        return jfail(L, "cvm.json.heads", "graph 'heads'", "is empty: the model has no output");
    for (size_t k = 0; k < n; k++) {
        char what[32];
        snprintf(what, sizeof what, "head %zu", k);
        OgEdge e = {0};
        if ((st = read_edge(L, json_object_array_get_idx(h, k), L->nnodes, "cvm.json.heads",
                            "graph 'heads'", what, &e)))
            return st;
        if (!og_add_output(L->g, e.node, e.index))
            return oom(L);
    }
    return ST_OK;
}

/* node_row_ptr: required in both versions (cvm-runtime compares it in cvm_1.0.0; in cvm_1.1.0
 * it derives its own, but reads the file's first, and without one it crashes). */
static Status check_row_ptr(Loader *L)
{
    Status st;
    json_object *r = member(L, L->root, "node_row_ptr", json_type_array, true, "graph", &st);
    if (!r)
        return st;
    const char *where = "graph 'node_row_ptr'";
    if (json_object_array_length(r) != L->nnodes + 1)
        return jfail(L, "cvm.json.row_ptr", where, "has %zu values for %zu nodes (expected %zu)",
                     json_object_array_length(r), L->nnodes, L->nnodes + 1);
    for (size_t i = 0; i <= L->nnodes; i++) {
        uint64_t want = i < L->nnodes ? L->info[i].entry : L->nentries;
        int64_t v = 0;
        if ((st = get_int(L, json_object_array_get_idx(r, i), 0, INT64_MAX, "cvm.json.row_ptr",
                          where, "an entry", &v)))
            return st;
        if ((uint64_t)v != want)
            return jfail(L, "cvm.json.row_ptr", where, "entry %zu is %lld; the nodes' output "
                         "counts give %llu", i, (long long)v, (unsigned long long)want);
    }
    return ST_OK;
}

/* What a dltype may say: nothing checked (not dltype), int32 (cvm_1.0.0: cvm-runtime
 * computes in int32 and refuses anything else), int8 or int32 (cvm_1.1.0, which cvm-runtime
 * does not check: taskir keeps the element types it knows). */
typedef enum { DLT_NONE, DLT_INT32, DLT_INT8_32 } DltypeRule;

/* Every value of list l is a string; for dltype, one the rule allows. */
static Status check_strings(Loader *L, json_object *l, const char *key, DltypeRule rule)
{
    for (size_t i = 0; l && i < json_object_array_length(l); i++) {
        json_object *v = json_object_array_get_idx(l, i);
        char where[64];
        snprintf(where, sizeof where, "graph attrs '%s'[%zu]", key, i);
        if (!v || json_object_get_type(v) != json_type_string)
            return jfail(L, "cvm.json.attrs", where, "is %s, expected a string",
                         v ? jtype(v) : "null");
        const char *s = json_object_get_string(v);
        if (rule == DLT_INT32 && strcmp(s, "int32") != 0)
            return jfail(L, "cvm.json.dltype", where, "is \"%s\"; a cvm_1.0.0 model says int32 "
                         "for every entry, whatever its precision", s);
        if (rule == DLT_INT8_32 && strcmp(s, "int32") != 0 && strcmp(s, "int8") != 0)
            return jfail(L, "cvm.json.dltype", where, "is \"%s\", expected int8 or int32", s);
    }
    return ST_OK;
}

static Status load(Loader *L, const char *json, size_t json_len)
{
    Status st = parse_json(L, json, json_len, "graph", &L->root);
    if (st != ST_OK)
        return st;
    if (json_object_get_type(L->root) != json_type_object)
        return jfail(L, "cvm.json.type", "graph", "the document is %s, expected an object",
                     jtype(L->root));
    L->nodes = member(L, L->root, "nodes", json_type_array, true, "graph", &st);
    if (!L->nodes)
        return st;
    L->nnodes = json_object_array_length(L->nodes);
    if (L->nnodes > CVM_MAX_NODES)
        return jfail(L, "cvm.limit.nodes", "graph", "%zu nodes; at most %u are allowed",
                     L->nnodes, CVM_MAX_NODES);
    if ((st = cvm_json_check_keys(L->root, L->d)))
        return st;
    /* cvm-runtime's default when the member is absent */
    json_object *ver = member(L, L->root, "version", json_type_string, false, "graph", &st);
    if (st != ST_OK)
        return st;
    const char *vs = ver ? json_object_get_string(ver) : "cvm_1.0.0";
    if (strcmp(vs, "cvm_1.0.0") != 0 && strcmp(vs, "cvm_1.1.0") != 0)
        return jfail(L, "cvm.json.version", "graph", "version is \"%s\", expected cvm_1.0.0 or "
                     "cvm_1.1.0", vs);
    bool v100 = strcmp(vs, "cvm_1.0.0") == 0;
    L->info = calloc(L->nnodes ? L->nnodes : 1, sizeof *L->info);
    L->node_map = calloc(L->nnodes ? L->nnodes : 1, sizeof *L->node_map);
    if (!L->info || !L->node_map)
        return oom(L);
    for (size_t i = 0; i < L->nnodes; i++) {
        if ((st = scan_node(L, i)))
            return st;
        L->info[i].entry = L->nentries;
        L->nentries += L->info[i].nout;
    }
    json_object *attrs = member(L, L->root, "attrs", json_type_object, true, "graph", &st);
    if (!attrs)
        return st;
    if ((st = graph_attr(L, attrs, "shape", "list_shape", &L->shape)) ||
        (st = graph_attr(L, attrs, "precision", "list_int", &L->prec)) ||
        (st = graph_attr(L, attrs, "dltype", "list_str", &L->dltype)) ||
        (st = graph_attr(L, attrs, "storage_id", "list_int", &L->storage)) ||
        (st = graph_attr(L, attrs, "op_attrs", "list_str", &L->op_attrs)))
        return st;
    if ((st = check_list_len(L, L->shape, "shape", L->nentries, "entries")) ||
        (st = check_list_len(L, L->prec, "precision", L->nentries, "entries")) ||
        (st = check_list_len(L, L->dltype, "dltype", L->nentries, "entries")) ||
        (st = check_list_len(L, L->storage, "storage_id", L->nentries, "entries")) ||
        (st = check_list_len(L, L->op_attrs, "op_attrs", L->nnodes, "nodes")) ||
        (st = check_strings(L, L->dltype, "dltype", v100 ? DLT_INT32 : DLT_INT8_32)) ||
        (st = check_strings(L, L->op_attrs, "op_attrs", DLT_NONE)) ||
        (st = find_inputs(L)))
        return st;
    if (v100 && !L->dltype)
        return jfail(L, "cvm.json.missing", "graph attrs", "'dltype' is missing (a cvm_1.0.0 "
                     "model has one per entry)");
    for (size_t i = 0; i < L->nentries; i++) {
        int64_t v = 0;
        if ((st = get_int(L, json_object_array_get_idx(L->storage, i), 0, INT32_MAX,
                          "cvm.json.storage", "graph attrs 'storage_id'", "an entry", &v)))
            return st;
    }
    if ((st = check_row_ptr(L)) || (st = check_arg_nodes(L, v100)) ||
        (st = check_null_names(L)))
        return st;
    L->g = og_create("cvm");
    if (!L->g)
        return oom(L);
    for (size_t i = 0; i < L->nnodes; i++)
        if ((st = L->info[i].is_op ? build_op(L, i) : build_null(L, i)))
            return st;
    if (og_num_inputs(L->g) == 0)
        return jfail(L, "cvm.input.missing", "graph", "no null node named 'data': the model has "
                     "no input");
    if ((st = check_params_used(L)))
        return st;
    return read_heads(L);
}

Status fe_cvm_load_mem(const char *json, size_t json_len, const uint8_t *params,
                       size_t params_len, const char *params_name, OpGraph **out, Diag *d)
{
    *out = NULL;
    CvmParams ps = {0};
    Loader L = {0};
    L.d = d;
    L.params_name = params_name;
    Status st = ST_OK;
    if (params) {
        st = fe_cvm_params_parse(params, params_len, params_name, &ps, d);
        L.params = &ps;
        if (st == ST_OK)
            st = index_params(&L);
    }
    if (st == ST_OK)
        st = load(&L, json, json_len);
    json_object_put(L.root);
    free(L.info);
    free(L.node_map);
    free(L.by_name);
    free(L.param_used);
    fe_cvm_params_free(&ps);
    if (st != ST_OK) {
        og_destroy(L.g);
        return st;
    }
    *out = L.g;
    return ST_OK;
}

Status fe_cvm_load(const char *json_path, const char *params_path, OpGraph **out, Diag *d)
{
    *out = NULL;
    uint8_t *json = NULL, *params = NULL;
    size_t jlen = 0, plen = 0;
    Status st = tir_read_file(json_path, CVM_MAX_JSON_BYTES, &json, &jlen, d);
    if (st == ST_OK && params_path)
        st = tir_read_file(params_path, TIR_MAX_FILE_BYTES, &params, &plen, d);
    if (st == ST_OK)
        st = fe_cvm_load_mem((const char *)json, jlen, params, plen, params_path, out, d);
    free(json);
    free(params);
    return st;
}
