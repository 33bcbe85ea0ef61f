/* print_json.c: the dump as JSON, the same content as the text dump in a shape made for jq.
 *
 *   {"blocks": [BLOCK...], "edges": [EDGE...], "groups": [{"id", "blocks"}],
 *    "test_config": {"random_seed", "test_case_name", "test_mode"} | null}
 *   BLOCK: {"id", "type", "kind", "name" (null when absent), "precision",
 *           "precision_given" (false: the type's default), "primitive" ("P41" or null),
 *           "shape" ({"y": 4, ...}, absent dims left out; null when the block has none),
 *           ["n_branch"], ["extra_dimensions"], "bias" ("VECTOR", "CONSTANT" or null),
 *           "attributes" ({"KERNEL_X": 3, ...}; null for an attribute without int value),
 *           ["attribute_extras" ({"NAME": {"float", "precision"}})],
 *           "data" (null or {"precision", "precision_given", "dims", ["name"], "abridged",
 *                   per container "int32"/"uint32"/"float": {"count", "first", "fnv1a"}
 *                   (abridged: true, the first PRINT_DATA_FIRST values, their count and
 *                   the FNV-1a of all) or [every value] (abridged: false, PF_JSON_FULL)}),
 *           ["is_virtual"], ["major_task_id"], ["pipeline_num"], ["socket_id"],
 *           ["model_tensor" ({"dims", "dtype"}): INPUT / OUTPUT, extension field 101],
 *           "inputs", "outputs": [{"index", "role" (null: the table has none),
 *                    "dims" (null when unknown), "dims_given", ["derived_dims" when the
 *                    given dims differ from the table's], "interfaces": [{"index", "edge",
 *                    "pos" (null: origin), "size" (null: the whole cluster)}]}]}
 *   EDGE:  {"id", "src", "dst", "src_type", "src_cluster", "src_iface", "src_box",
 *           "dst_type", ..., "rearrange": [{"type", "text" (decoded), "params": [{"name", "precision",
 *           "dims", "int32"/"uint32"/"float": [every value]}]}]}
 *           (an end's fields are null when its block or interface is missing)
 * Keys come in this fixed order; bracketed keys appear only when the file sets them.
 * The top-level arrays are streamed one block or edge at a time (pj_emit): json-c holds one
 * element in memory, never the whole graph. */
#include "taskir/print_internal.h"
#include "taskir/rearrange.h"

#include <inttypes.h>
#include <json-c/json.h>

static json_object *json_tensor_vals(PrintJson *J, json_object *o, const Tensor *t, bool all)
{
    PrintVals v[3];
    int nv = print_tensor_vals(t, v);
    for (int i = 0; i < nv && !J->oom; i++) {
        if (all) {
            pj_set(J, o, v[i].name, pj_vals(J, &v[i], 0, v[i].n));
            continue;
        }
        json_object *c = pj_obj(J);
        uint32_t shown = v[i].n < PRINT_DATA_FIRST ? v[i].n : PRINT_DATA_FIRST;
        char h[20];
        snprintf(h, sizeof h, "%016" PRIx64, print_vals_fnv1a(&v[i]));
        pj_set(J, c, "count", pj_int(J, v[i].n));
        pj_set(J, c, "first", pj_vals(J, &v[i], 0, shown));
        pj_set(J, c, "fnv1a", pj_str(J, h));
        pj_set(J, o, v[i].name, c);
    }
    return o;
}

static json_object *json_data(PrintJson *J, const Block *b, const Tensor *t)
{
    json_object *o = pj_obj(J);
    pj_set(J, o, "precision", pj_str(J, pr_info(print_data_prec(b, t))->name));
    pj_set(J, o, "precision_given", pj_bool(J, t->has_prec));
    pj_set(J, o, "dims", pj_int_list(J, t->dims, t->n_dims));
    if (t->name)
        pj_set_str(J, o, "name", t->name);
    pj_set(J, o, "abridged", pj_bool(J, !J->full_data));
    return json_tensor_vals(J, o, t, J->full_data);
}

static json_object *json_cluster(PrintJson *J, const Block *b, bool input, uint32_t k)
{
    const Cluster *c = input ? &b->in[k] : &b->out[k];
    json_object *o = pj_obj(J);
    pj_set(J, o, "index", pj_int(J, k));
    pj_set_str(J, o, "role", print_role(b, input, k));
    int32_t derived[TIR_CDIMS];
    bool has_derived = blk_spec_dims(b, input ? blk_in_spec(b, k) : blk_out_spec(b, k),
                                     derived);
    if (c->has_shape)
        pj_set(J, o, "dims", pj_dims(J, c->shape.d, TIR_CDIMS));
    else if (has_derived)
        pj_set(J, o, "dims", pj_dims(J, derived, TIR_CDIMS));
    else
        pj_set_null(J, o, "dims");
    pj_set(J, o, "dims_given", pj_bool(J, c->has_shape));
    if (c->has_shape && has_derived) {
        bool same = true;
        for (int i = 0; i < TIR_CDIMS; i++)
            same = same && derived[i] == c->shape.d[i];
        if (!same)
            pj_set(J, o, "derived_dims", pj_dims(J, derived, TIR_CDIMS));
    }
    json_object *ifs = pj_arr(J);
    for (uint32_t i = 0; i < c->n_ifaces && !J->oom; i++) {
        const Iface *f = &c->ifaces[i];
        json_object *fo = pj_obj(J);
        pj_set(J, fo, "index", pj_int(J, i));
        pj_set(J, fo, "edge", pj_int(J, f->edge_id));
        bool origin = true;
        for (int j = 0; j < TIR_CDIMS; j++)
            origin = origin && f->pos.d[j] == 0;
        if (origin)
            pj_set_null(J, fo, "pos");
        else
            pj_set(J, fo, "pos", pj_dims(J, f->pos.d, TIR_CDIMS));
        if (f->has_size)
            pj_set(J, fo, "size", pj_dims(J, f->size.d, TIR_CDIMS));
        else
            pj_set_null(J, fo, "size");
        pj_push(J, ifs, fo);
    }
    pj_set(J, o, "interfaces", ifs);
    return o;
}

static void json_attrs(PrintJson *J, json_object *o, const Block *b)
{
    json_object *at = pj_obj(J);
    json_object *ex = NULL;
    for (uint32_t i = 0; i < b->n_attrs && !J->oom; i++) {
        const Attr *a = &b->attrs[i];
        const char *name = at_info(a->id)->name;
        if (a->has_value)
            pj_set(J, at, name, pj_int(J, a->value));
        else
            pj_set_null(J, at, name);
        if (!a->has_fvalue && !a->has_prec)
            continue;
        if (!ex && !(ex = pj_obj(J)))
            break;
        json_object *e = pj_obj(J);
        if (a->has_fvalue)
            pj_set(J, e, "float", pj_double(J, a->fvalue));
        if (a->has_prec)
            pj_set(J, e, "precision", pj_str(J, pr_info(a->prec)->name));
        pj_set(J, ex, name, e);
    }
    pj_set(J, o, "attributes", at);
    if (ex)
        pj_set(J, o, "attribute_extras", ex);
}

static json_object *json_block(PrintJson *J, const Block *b)
{
    const BlockTypeInfo *ti = bt_info(b->type);
    json_object *o = pj_obj(J);
    pj_set(J, o, "id", pj_int(J, b->id));
    pj_set(J, o, "type", pj_str(J, ti->name));
    pj_set(J, o, "kind", pj_str(J, print_kind_name(ti->kind)));
    pj_set_str(J, o, "name", b->name);
    pj_set(J, o, "precision", pj_str(J, pr_info(blk_prec(b))->name));
    pj_set(J, o, "precision_given", pj_bool(J, b->has_prec));
    char pc[8];
    print_pcode(b->type, pc);
    pj_set_str(J, o, "primitive", pc[0] ? pc : NULL);
    if (b->has_shape)
        pj_set(J, o, "shape", pj_dims(J, b->shape.d, TIR_NDIMS));
    else
        pj_set_null(J, o, "shape");
    if (b->shape.n_branch)
        pj_set(J, o, "n_branch", pj_int(J, b->shape.n_branch));
    if (b->shape.n_extra)
        pj_set(J, o, "extra_dimensions", pj_int_list(J, b->shape.extra, b->shape.n_extra));
    static const char *const bias_names[] = {NULL, "VECTOR", "CONSTANT"};
    pj_set_str(J, o, "bias",
               b->bias_type >= 0 && b->bias_type <= 2 ? bias_names[b->bias_type] : NULL);
    json_attrs(J, o, b);
    if (b->data)
        pj_set(J, o, "data", json_data(J, b, b->data));
    else
        pj_set_null(J, o, "data");
    if (b->has_is_virtual)
        pj_set(J, o, "is_virtual", pj_bool(J, b->is_virtual));
    if (b->has_major_task_id)
        pj_set(J, o, "major_task_id", pj_int(J, b->major_task_id));
    if (b->has_pipeline_num)
        pj_set(J, o, "pipeline_num", pj_int(J, b->pipeline_num));
    if (b->has_socket_id)
        pj_set(J, o, "socket_id", pj_int(J, b->socket_id));
    if (b->has_model) {
        json_object *m = pj_obj(J), *dims = pj_arr(J);
        for (uint32_t i = 0; i < b->model_ndim; i++)
            pj_push(J, dims, pj_int(J, b->model_dims[i]));
        pj_set(J, m, "dims", dims);
        pj_set_str(J, m, "dtype", pr_info(b->has_model_prec ? b->model_prec : PR_INT_32)->name);
        if (b->has_model_range) {
            pj_set(J, m, "lo", pj_int(J, b->model_lo));
            pj_set(J, m, "hi", pj_int(J, b->model_hi));
        }
        pj_set(J, o, "model_tensor", m);
    }
    json_object *ins = pj_arr(J);
    for (uint32_t k = 0; k < b->n_in && !J->oom; k++)
        pj_push(J, ins, json_cluster(J, b, true, k));
    pj_set(J, o, "inputs", ins);
    json_object *outs = pj_arr(J);
    for (uint32_t k = 0; k < b->n_out && !J->oom; k++)
        pj_push(J, outs, json_cluster(J, b, false, k));
    pj_set(J, o, "outputs", outs);
    return o;
}

static void json_end(PrintJson *J, json_object *o, const char *p, const PrintEnd *end)
{
    char key[16];
    snprintf(key, sizeof key, "%s_type", p);
    pj_set_str(J, o, key, end->block ? bt_info(end->block->type)->name : NULL);
    snprintf(key, sizeof key, "%s_cluster", p);
    if (end->iface)
        pj_set(J, o, key, pj_int(J, end->cluster_idx));
    else
        pj_set_null(J, o, key);
    snprintf(key, sizeof key, "%s_iface", p);
    if (end->iface)
        pj_set(J, o, key, pj_int(J, end->iface_idx));
    else
        pj_set_null(J, o, key);
    snprintf(key, sizeof key, "%s_box", p);
    if (end->iface && end->has_box)
        pj_set(J, o, key, pj_dims(J, end->box, TIR_CDIMS));
    else
        pj_set_null(J, o, key);
}

static json_object *json_edge(PrintJson *J, const Graph *g, const PrintIndex *ix, const Edge *e)
{
    PrintEnd s, t;
    print_edge_end(g, ix, e, true, &s);
    print_edge_end(g, ix, e, false, &t);
    json_object *o = pj_obj(J);
    pj_set(J, o, "id", pj_int(J, e->id));
    pj_set(J, o, "src", pj_int(J, e->src));
    pj_set(J, o, "dst", pj_int(J, e->dst));
    json_end(J, o, "src", &s);
    json_end(J, o, "dst", &t);
    json_object *ra = pj_arr(J);
    for (uint32_t i = 0; i < e->n_re && !J->oom; i++) {
        const Rearrange *r = &e->re[i];
        json_object *ro = pj_obj(J);
        pj_set(J, ro, "type", pj_str(J, rt_info(r->type)->name));
        char desc[1024];
        rearrange_describe(r, desc, sizeof desc);
        pj_set(J, ro, "text", pj_str(J, desc));
        json_object *ps = pj_arr(J);
        for (uint32_t k = 0; k < r->n_mats && !J->oom; k++) {
            const Tensor *m = &r->mats[k];
            json_object *po = pj_obj(J);
            pj_set_str(J, po, "name", m->name);
            pj_set_str(J, po, "precision", m->has_prec ? pr_info(m->prec)->name : NULL);
            pj_set(J, po, "dims", pj_int_list(J, m->dims, m->n_dims));
            json_tensor_vals(J, po, m, true);
            pj_push(J, ps, po);
        }
        pj_set(J, ro, "params", ps);
        pj_push(J, ra, ro);
    }
    pj_set(J, o, "rearrange", ra);
    return o;
}

/* Streams one array member of the top-level object: "  \"key\": [ ... ]". */
typedef struct JsonArray {
    bool first;
} JsonArray;

static void json_array_item(PrintJson *J, JsonArray *a, json_object *val, FILE *out)
{
    fputs(a->first ? "\n    " : ",\n    ", out);
    a->first = false;
    pj_emit(J, val, out, 4);
}

static void json_array_end(JsonArray *a, FILE *out, bool last)
{
    fputs(a->first ? "]" : "\n  ]", out);
    fputs(last ? "\n" : ",\n", out);
}

Status print_json_graph(const Graph *g, FILE *out, bool full, Diag *d)
{
    PrintIndex ix;
    Status st = print_index_build(g, &ix, d);
    if (st != ST_OK)
        return st;
    PrintJson J = {.full_data = full};
    JsonArray a = {true};
    fputs("{\n  \"blocks\": [", out);
    for (uint32_t i = 0; i < g->n_blocks && !J.oom; i++)
        json_array_item(&J, &a, json_block(&J, g->blocks[i]), out);
    json_array_end(&a, out, false);
    a.first = true;
    fputs("  \"edges\": [", out);
    for (uint32_t i = 0; i < g->n_edges && !J.oom; i++)
        json_array_item(&J, &a, json_edge(&J, g, &ix, g->edges[i]), out);
    json_array_end(&a, out, false);
    a.first = true;
    fputs("  \"groups\": [", out);
    for (uint32_t i = 0; i < g->n_groups && !J.oom; i++) {
        json_object *go = pj_obj(&J);
        pj_set(&J, go, "id", pj_int(&J, g->groups[i].id));
        pj_set(&J, go, "blocks", pj_int_list(&J, g->groups[i].block_ids,
                                             g->groups[i].n_block_ids));
        json_array_item(&J, &a, go, out);
    }
    json_array_end(&a, out, false);
    fputs("  \"test_config\": ", out);
    const TestConfig *tc = &g->test_config;
    if (tc->present) {
        json_object *to = pj_obj(&J);
        if (tc->has_random_seed)
            pj_set(&J, to, "random_seed", pj_int(&J, tc->random_seed));
        else
            pj_set_null(&J, to, "random_seed");
        pj_set_str(&J, to, "test_case_name", tc->test_case_name);
        if (!tc->has_test_mode)
            pj_set_null(&J, to, "test_mode");
        else if (print_test_mode(tc->test_mode))
            pj_set(&J, to, "test_mode", pj_str(&J, print_test_mode(tc->test_mode)));
        else
            pj_set(&J, to, "test_mode", pj_int(&J, tc->test_mode));
        pj_emit(&J, to, out, 2);
    } else {
        fputs("null", out);
    }
    fputs("\n}\n", out);
    print_index_finish(&ix);
    if (J.oom)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory building the JSON output");
    return print_check_stream(out, d);
}

Status print_json_block(const Graph *g, const Block *b, FILE *out, bool full, Diag *d)
{
    PrintIndex ix;
    Status st = print_index_build(g, &ix, d);
    if (st != ST_OK)
        return st;
    PrintJson J = {.full_data = full};
    json_object *root = pj_obj(&J);
    pj_set(&J, root, "block", json_block(&J, b));
    json_object *edges = pj_arr(&J);
    for (uint32_t i = 0; i < g->n_edges && !J.oom; i++)
        if (print_edge_touches(g->edges[i], b))
            pj_push(&J, edges, json_edge(&J, g, &ix, g->edges[i]));
    pj_set(&J, root, "edges", edges);
    print_index_finish(&ix);
    return pj_write(&J, root, out, d);
}
