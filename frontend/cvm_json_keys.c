/* cvm_json_keys.c: the members a cvm-runtime graph JSON may have, as cvm-runtime's loader
 * (graph_runtime.h: CvmRuntime::Load, Node::Load, Node::LoadAttrs, GraphAttr::Load) accepts
 * them: one table per object kind, each key with the JSON type its value must have. A key
 * outside the table is refused there with a fatal error, so it is a logic error here
 * [cvm.json.key]; so are a value of another type [cvm.json.type], a missing required member
 * [cvm.json.missing], a non-empty device_index [cvm.json.device] and a malformed dtype skip
 * entry [cvm.json.attrs]. The contents of the known members are checked by cvm_json.c.
 */
#include "frontend/cvm_json_keys.h"

#include <stdio.h>
#include <string.h>

/* json_type_null: any type (the member is checked elsewhere). */
typedef struct KeySpec {
    const char *key;
    json_type type;
    bool required;
} KeySpec;

static const KeySpec top_keys[] = {
    {"nodes", json_type_array, true},     {"arg_nodes", json_type_array, false},
    {"node_row_ptr", json_type_array, false}, {"heads", json_type_array, true},
    {"attrs", json_type_object, true},    {"version", json_type_string, false},
    {"postprocess", json_type_string, false},
};

static const KeySpec node_keys[] = {
    {"op", json_type_string, true},      {"name", json_type_string, true},
    {"inputs", json_type_array, true},   {"attrs", json_type_object, false},
    {"precision", json_type_int, false},
};

/* A node's own attrs: only the cvm_op parameters, all strings; func_name always (cvm-runtime
 * refuses an attrs object without it, even on a null node). */
static const KeySpec node_attr_keys[] = {
    {"func_name", json_type_string, true},   {"num_inputs", json_type_string, false},
    {"num_outputs", json_type_string, false}, {"op_attrs", json_type_string, false},
    {"flatten_data", json_type_string, false},
};

/* Graph attrs: [type, list] pairs (checked by cvm_json.c). */
static const KeySpec graph_attr_keys[] = {
    {"dltype", json_type_null, false},      {"storage_id", json_type_null, true},
    {"shape", json_type_null, true},        {"device_index", json_type_null, false},
    {"precision", json_type_null, true},    {"op_attrs", json_type_null, true},
    {"dtype", json_type_null, false},
};

static const char *tname(json_object *v)
{
    return json_type_to_name(json_object_get_type(v));
}

/* Every member of o is in spec with its type; every required one is present. */
static Status check_object(json_object *o, const KeySpec *spec, size_t n, const char *what,
                           const char *where, Diag *d)
{
    json_object_object_foreach(o, key, val)
    {
        size_t k = 0;
        while (k < n && strcmp(spec[k].key, key) != 0)
            k++;
        if (k == n)
            return diag_add(d, ST_LOGIC, "cvm.json.key", where,
                            "%s key '%s' is not one cvm-runtime reads", what, key);
        if (spec[k].type != json_type_null && json_object_get_type(val) != spec[k].type)
            return diag_add(d, ST_LOGIC, "cvm.json.type", where, "'%s' is %s, expected %s", key,
                            tname(val), json_type_to_name(spec[k].type));
    }
    for (size_t k = 0; k < n; k++)
        if (spec[k].required && !json_object_object_get_ex(o, spec[k].key, NULL))
            return diag_add(d, ST_LOGIC, "cvm.json.missing", where, "'%s' is missing", spec[k].key);
    return ST_OK;
}

/* v is a [type, value] pair with type a string: *type and *value set (value may be a JSON
 * null, NULL here); a finding otherwise. */
static Status pair(json_object *v, const char *key, Diag *d, const char **type,
                   json_object **value)
{
    json_object *t = json_object_get_type(v) == json_type_array &&
                             json_object_array_length(v) == 2
                         ? json_object_array_get_idx(v, 0)
                         : NULL;
    if (json_object_get_type(t) != json_type_string) {
        char where[64];
        snprintf(where, sizeof where, "graph attrs '%s'", key);
        return diag_add(d, ST_LOGIC, "cvm.json.attrs", where, "is not a [\"type\", value] pair");
    }
    *type = json_object_get_string(t);
    *value = json_object_array_get_idx(v, 1);
    return ST_OK;
}

/* device_index: ["list_int", []] only (cvm-runtime: "attribute device_index must be set
 * empty"); dtype: ["list_int", [ints]] or ["list_str", a count], which cvm-runtime skips. */
static Status check_skipped_attrs(json_object *attrs, Diag *d)
{
    Status st;
    json_object *v, *l;
    const char *t;
    if (json_object_object_get_ex(attrs, "device_index", &v)) {
        if ((st = pair(v, "device_index", d, &t, &l)))
            return st;
        const char *where = "graph attrs 'device_index'";
        if (strcmp(t, "list_int") != 0 || json_object_get_type(l) != json_type_array)
            return diag_add(d, ST_LOGIC, "cvm.json.attrs", where,
                            "is not a [\"list_int\", [...]] pair");
        if (json_object_array_length(l) != 0)
            return diag_add(d, ST_LOGIC, "cvm.json.device", where, "has %zu values; cvm-runtime "
                            "runs on one device and needs it empty",
                            json_object_array_length(l));
    }
    if (json_object_object_get_ex(attrs, "dtype", &v)) {
        if ((st = pair(v, "dtype", d, &t, &l)))
            return st;
        bool ok = false;
        if (strcmp(t, "list_int") == 0 && json_object_get_type(l) == json_type_array) {
            ok = true;
            for (size_t i = 0; ok && i < json_object_array_length(l); i++)
                ok = json_object_get_type(json_object_array_get_idx(l, i)) == json_type_int;
        } else if (strcmp(t, "list_str") == 0) {
            ok = json_object_get_type(l) == json_type_int && json_object_get_int64(l) >= 0;
        }
        if (!ok)
            return diag_add(d, ST_LOGIC, "cvm.json.attrs", "graph attrs 'dtype'",
                            "is neither [\"list_int\", [ints]] nor [\"list_str\", count]");
    }
    return ST_OK;
}

Status cvm_json_check_keys(json_object *root, Diag *d)
{
#define N(a) (sizeof a / sizeof *a)
    Status st = check_object(root, top_keys, N(top_keys), "top-level", "graph", d);
    if (st != ST_OK)
        return st;
    json_object *nodes = NULL, *attrs = NULL;
    json_object_object_get_ex(root, "nodes", &nodes);
    for (size_t i = 0; i < json_object_array_length(nodes); i++) {
        json_object *o = json_object_array_get_idx(nodes, i), *na, *name;
        char where[320];
        snprintf(where, sizeof where, "node %zu", i);
        if (json_object_get_type(o) != json_type_object)
            return diag_add(d, ST_LOGIC, "cvm.json.type", where, "is %s, expected an object",
                            tname(o));
        if (json_object_object_get_ex(o, "name", &name) &&
            json_object_get_type(name) == json_type_string)
            snprintf(where, sizeof where, "node %zu '%s'", i, json_object_get_string(name));
        if ((st = check_object(o, node_keys, N(node_keys), "node", where, d)))
            return st;
        if (json_object_object_get_ex(o, "attrs", &na) &&
            (st = check_object(na, node_attr_keys, N(node_attr_keys), "node attrs", where, d)))
            return st;
    }
    json_object_object_get_ex(root, "attrs", &attrs);
    if ((st = check_object(attrs, graph_attr_keys, N(graph_attr_keys), "graph attrs", "graph", d)))
        return st;
    return check_skipped_attrs(attrs, d);
#undef N
}
