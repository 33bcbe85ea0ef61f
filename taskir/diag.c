/* diag.c: recording and printing diagnostics. */
#include "taskir/diag.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void diag_init(Diag *d, const char *file)
{
    memset(d, 0, sizeof *d);
    d->limit = 10000;
    if (file) {
        d->file = strdup(file);
        if (!d->file)
            d->oom = true;
    }
}

void diag_finish(Diag *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n; i++) {
        free(d->entries[i].where);
        free(d->entries[i].what);
    }
    free(d->entries);
    free(d->file);
    memset(d, 0, sizeof *d);
}

static char *vfmt(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (s)
        vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

static DiagEntry *push(Diag *d, Status status, const char *rule)
{
    if (status > d->worst)
        d->worst = status;
    if (d->n >= d->limit) {
        d->dropped++;
        return NULL;
    }
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 16;
        DiagEntry *e = realloc(d->entries, cap * sizeof *e);
        if (!e) {
            d->oom = true;
            if (d->worst < ST_RUNTIME)
                d->worst = ST_RUNTIME;
            return NULL;
        }
        d->entries = e;
        d->cap = cap;
    }
    DiagEntry *e = &d->entries[d->n++];
    memset(e, 0, sizeof *e);
    e->status = status;
    snprintf(e->rule, sizeof e->rule, "%s", rule ? rule : "");
    return e;
}

Status diag_vadd(Diag *d, Status status, const char *rule, char *where, bool has_block,
                 int32_t block_id, bool has_edge, int32_t edge, const char *fmt, va_list ap)
{
    DiagEntry *e = push(d, status, rule);
    if (!e) {
        free(where);
        return status;
    }
    e->where = where;
    e->what = vfmt(fmt, ap);
    e->has_block = has_block;
    e->block_id = has_block ? block_id : 0;
    e->has_edge = has_edge;
    e->edge_id = edge;
    if (!e->what)
        d->oom = true;
    return status;
}

Status diag_add(Diag *d, Status status, const char *rule, const char *where,
                const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vadd(d, status, rule, where ? strdup(where) : NULL, false, 0, false, 0, fmt, ap);
    va_end(ap);
    return status;
}

Status diag_edge(Diag *d, Status status, const char *rule, int32_t edge_id,
                 const char *fmt, ...)
{
    char buf[32];
    snprintf(buf, sizeof buf, "edge %d", (int)edge_id);
    va_list ap;
    va_start(ap, fmt);
    diag_vadd(d, status, rule, strdup(buf), false, 0, true, edge_id, fmt, ap);
    va_end(ap);
    return status;
}

void diag_prefix_where(Diag *d, size_t from, const char *prefix)
{
    for (size_t i = from; i < d->n; i++) {
        DiagEntry *e = &d->entries[i];
        bool had = e->where && *e->where;
        size_t len = strlen(prefix) + (had ? 2 + strlen(e->where) : 0) + 1;
        char *w = malloc(len);
        if (!w) {
            d->oom = true;
            continue;
        }
        snprintf(w, len, "%s%s%s", prefix, had ? ": " : "", had ? e->where : "");
        free(e->where);
        e->where = w;
    }
}

void diag_print(const Diag *d, FILE *out, const char *tool)
{
    for (size_t i = 0; i < d->n; i++) {
        const DiagEntry *e = &d->entries[i];
        if (tool)
            fprintf(out, "%s: ", tool);
        if (d->file)
            fprintf(out, "%s: ", d->file);
        if (e->where && *e->where)
            fprintf(out, "%s: ", e->where);
        if (e->status == ST_OK)
            fputs("warning: ", out);
        fprintf(out, "%s", e->what ? e->what : "(message lost: out of memory)");
        if (e->rule[0])
            fprintf(out, " [%s]", e->rule);
        fputc('\n', out);
    }
    if (d->dropped)
        fprintf(out, "%s%s%s%zu more findings not shown\n", tool ? tool : "", tool ? ": " : "",
                "", d->dropped);
    if (d->oom)
        fprintf(out, "%s%sout of memory while recording diagnostics\n", tool ? tool : "",
                tool ? ": " : "");
}

long diag_find(const Diag *d, const char *rule)
{
    for (size_t i = 0; i < d->n; i++)
        if (strcmp(d->entries[i].rule, rule) == 0)
            return (long)i;
    return -1;
}
