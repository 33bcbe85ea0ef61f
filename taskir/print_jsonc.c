/* print_jsonc.c: thin wrappers over json-c for the JSON printers (print_internal.h), so that
 * every allocation is checked once, in one place, and numbers are written in one format. */
#include "taskir/print_internal.h"

#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_object *got(PrintJson *J, json_object *o)
{
    if (!o)
        J->oom = true;
    return o;
}

json_object *pj_obj(PrintJson *J)
{
    return got(J, json_object_new_object());
}

json_object *pj_arr(PrintJson *J)
{
    return got(J, json_object_new_array());
}

json_object *pj_int(PrintJson *J, int64_t v)
{
    return got(J, json_object_new_int64(v));
}

json_object *pj_bool(PrintJson *J, bool v)
{
    return got(J, json_object_new_boolean(v));
}

json_object *pj_str(PrintJson *J, const char *s)
{
    char *c = utf8_clean(s);
    if (!c)
        return got(J, NULL);
    json_object *o = json_object_new_string(c);
    free(c);
    return got(J, o);
}

json_object *pj_double(PrintJson *J, double v)
{
    if (isnan(v))
        return got(J, json_object_new_string("nan"));
    if (isinf(v))
        return got(J, json_object_new_string(v > 0 ? "inf" : "-inf"));
    char buf[40];
    snprintf(buf, sizeof buf, "%.9g", v);
    return got(J, json_object_new_double_s(v, buf));
}

json_object *pj_dims(PrintJson *J, const int32_t *dims, int n)
{
    json_object *o = pj_obj(J);
    for (int i = 0; o && i < n; i++)
        if (dims[i] != 0)
            pj_set(J, o, tir_dim_names[i], pj_int(J, dims[i]));
    return o;
}

json_object *pj_int_list(PrintJson *J, const int32_t *v, uint32_t n)
{
    json_object *a = pj_arr(J);
    for (uint32_t i = 0; a && i < n && !J->oom; i++)
        pj_push(J, a, pj_int(J, v[i]));
    return a;
}

json_object *pj_vals(PrintJson *J, const PrintVals *v, uint32_t from, uint32_t to)
{
    json_object *a = pj_arr(J);
    for (uint32_t i = from; a && i < to && !J->oom; i++)
        pj_push(J, a, v->kind == PV_F32 ? pj_double(J, print_val_f64(v, i))
                                        : pj_int(J, (int64_t)print_val_f64(v, i)));
    return a;
}

void pj_set(PrintJson *J, json_object *obj, const char *key, json_object *val)
{
    if (!obj || !val) {
        J->oom = true;
        json_object_put(val);
        return;
    }
    if (json_object_object_add(obj, key, val) != 0) {
        J->oom = true;
        json_object_put(val); /* json-c keeps no reference when the add fails */
    }
}

void pj_set_null(PrintJson *J, json_object *obj, const char *key)
{
    if (!obj || json_object_object_add(obj, key, NULL) != 0)
        J->oom = true;
}

void pj_set_str(PrintJson *J, json_object *obj, const char *key, const char *s)
{
    if (s)
        pj_set(J, obj, key, pj_str(J, s));
    else
        pj_set_null(J, obj, key);
}

void pj_push(PrintJson *J, json_object *arr, json_object *val)
{
    if (!arr || !val) {
        J->oom = true;
        json_object_put(val);
        return;
    }
    if (json_object_array_add(arr, val) != 0) {
        J->oom = true;
        json_object_put(val);
    }
}

#define PJ_FLAGS \
    (JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

void pj_emit(PrintJson *J, json_object *val, FILE *out, int indent)
{
    const char *s = NULL;
    if (val && !J->oom)
        s = json_object_to_json_string_ext(val, PJ_FLAGS);
    if (!s) {
        J->oom = true;
        json_object_put(val);
        return;
    }
    /* json-c escapes newlines inside strings, so every raw newline is a line break. */
    static const char spaces[] = "                ";
    if (indent > (int)sizeof spaces - 1)
        indent = (int)sizeof spaces - 1;
    for (;;) {
        const char *nl = strchr(s, '\n');
        if (!nl) {
            fputs(s, out);
            break;
        }
        fwrite(s, 1, (size_t)(nl - s) + 1, out);
        fwrite(spaces, 1, (size_t)indent, out);
        s = nl + 1;
    }
    json_object_put(val);
}

Status pj_write(PrintJson *J, json_object *root, FILE *out, Diag *d)
{
    const char *s = NULL;
    if (root && !J->oom)
        s = json_object_to_json_string_ext(root, PJ_FLAGS);
    if (!s) {
        json_object_put(root);
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory building the JSON output");
    }
    fputs(s, out);
    fputc('\n', out);
    json_object_put(root);
    return print_check_stream(out, d);
}
