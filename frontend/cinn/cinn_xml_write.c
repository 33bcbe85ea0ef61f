/* cinn_xml_write.c: the recorded program as XML (cinn.h, frontend/cinn/cinn.xsd): one element per
 * call in program order, `name` first, then the roles' references, then every attribute the
 * call has in schema order (defaults written out, unset optional ones left out), a
 * Constant's values as text, 16 a line. Deterministic: the same program gives the same
 * bytes, and reading them back records the same calls.
 */
#include "frontend/cinn/cinn_internal.h"
#include "taskir/fileio.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Buf {
    char *p;
    size_t n, cap;
    bool oom;
} Buf;

static void put(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(Buf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    va_list ap;
    va_start(ap, fmt);
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0 || b->n + (size_t)n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (n >= 0 && b->n + (size_t)n + 1 > cap)
            cap *= 2;
        char *q = n < 0 ? NULL : realloc(b->p, cap);
        if (!q) {
            b->oom = true;
            va_end(ap);
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
    b->n += (size_t)n;
    va_end(ap);
}

/* An attribute value with &, <, > and " escaped (names and choices never need it). */
static void put_escaped(Buf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': put(b, "&amp;"); break;
        case '<': put(b, "&lt;"); break;
        case '>': put(b, "&gt;"); break;
        case '"': put(b, "&quot;"); break;
        default: put(b, "%c", *s); break;
        }
    }
}

static void put_attr(Buf *b, const OgAttr *a)
{
    switch (a->kind) {
    case OG_ATTR_NONE:
        return;
    case OG_ATTR_INT:
        put(b, " %s=\"%lld\"", a->name, (long long)a->i);
        return;
    case OG_ATTR_BOOL:
        put(b, " %s=\"%s\"", a->name, a->i ? "true" : "false");
        return;
    case OG_ATTR_INTS:
        put(b, " %s=\"", a->name);
        for (uint32_t i = 0; i < a->n; i++)
            put(b, "%s%lld", i ? " " : "", (long long)a->v[i]);
        put(b, "\"");
        return;
    case OG_ATTR_STR:
        put(b, " %s=\"", a->name);
        put_escaped(b, a->s ? a->s : "");
        put(b, "\"");
        return;
    }
}

static void put_call(Buf *b, const CinnBuilder *bld, const CinnCall *c)
{
    const CinnPrimInfo *pi = cinn_prim_info(c->prim);
    put(b, "  <%s", pi->name);
    if (c->prim != CINN_P_Output && c->name)
        put(b, " name=\"%s\"", c->name);
    bool list;
    uint32_t nroles = cinn_nroles(pi, &list);
    for (uint32_t k = 0; k < nroles; k++) {
        char role[64];
        cinn_role(pi, k, role, sizeof role);
        put(b, " %s=\"", role);
        uint32_t from = k, to = list && k + 1 == nroles ? c->ninputs : k + 1;
        for (uint32_t i = from; i < to && i < c->ninputs; i++)
            put(b, "%s%s", i > from ? " " : "", fe_cinn_var_name(bld, c->inputs[i]));
        put(b, "\"");
    }
    for (uint32_t i = 0; i < c->nattrs; i++)
        put_attr(b, &c->attrs[i]);
    if (!c->value) {
        put(b, "/>\n");
        return;
    }
    put(b, ">");
    for (int64_t i = 0; i < c->value->count; i++)
        put(b, "%s%d", i % 16 == 0 ? "\n    " : " ", (int)c->value->data[i]);
    put(b, "\n  </%s>\n", pi->name);
}

Status fe_cinn_xml_encode(const CinnBuilder *bld, char **buf, size_t *len, Diag *d)
{
    Buf b = {NULL, 0, 0, false};
    *buf = NULL;
    *len = 0;
    put(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    put(&b, "<program version=\"1\">\n");
    for (uint32_t i = 0; i < bld->ncalls; i++)
        put_call(&b, bld, &bld->calls[i]);
    put(&b, "</program>\n");
    if (b.oom) {
        free(b.p);
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    }
    *buf = b.p;
    *len = b.n;
    return ST_OK;
}

Status fe_cinn_write_xml(const CinnBuilder *bld, const char *path, Diag *d)
{
    char *buf;
    size_t len;
    Status st = fe_cinn_xml_encode(bld, &buf, &len, d);
    if (st != ST_OK)
        return st;
    st = tir_write_file_atomic(path, buf, len, d);
    free(buf);
    return st;
}
