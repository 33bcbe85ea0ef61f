/* print_findings.c: the verifier's findings as JSON (print.h, print_findings_json). */
#include "taskir/print_internal.h"

#include <json-c/json.h>

Status print_findings_json(const char *file, const Diag *findings, const uint32_t *counts,
                           FILE *out, Diag *d)
{
    PrintJson J = {false};
    json_object *root = pj_obj(&J);
    pj_set_str(&J, root, "file", file);
    pj_set(&J, root, "ok", pj_bool(&J, findings->n == 0 && findings->dropped == 0));
    if (counts) {
        pj_set(&J, root, "blocks", pj_int(&J, counts[0]));
        pj_set(&J, root, "edges", pj_int(&J, counts[1]));
    } else {
        pj_set_null(&J, root, "blocks");
        pj_set_null(&J, root, "edges");
    }
    json_object *arr = pj_arr(&J);
    for (size_t i = 0; i < findings->n && !J.oom; i++) {
        const DiagEntry *e = &findings->entries[i];
        json_object *o = pj_obj(&J);
        pj_set_str(&J, o, "rule", e->rule);
        if (e->has_block)
            pj_set(&J, o, "block", pj_int(&J, e->block_id));
        else
            pj_set_null(&J, o, "block");
        if (e->has_edge)
            pj_set(&J, o, "edge", pj_int(&J, e->edge_id));
        else
            pj_set_null(&J, o, "edge");
        pj_set_str(&J, o, "where", e->where && *e->where ? e->where : NULL);
        pj_set_str(&J, o, "message", e->what);
        pj_push(&J, arr, o);
    }
    pj_set(&J, root, "findings", arr);
    pj_set(&J, root, "not_shown", pj_int(&J, (int64_t)findings->dropped));
    return pj_write(&J, root, out, d);
}
