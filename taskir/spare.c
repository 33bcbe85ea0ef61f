/* spare.c: see spare.h. */
#include "taskir/spare.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { SPARE_MIN = 64 };

static bool push(SpareVec *v, void *p)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 64;
        void **np = realloc(v->p, cap * sizeof *np);
        if (!np)
            return false;
        v->p = np;
        v->cap = cap;
    }
    v->p[v->n++] = p;
    return true;
}

/* The entry of size bytes; with add, a free one made so when there is none (NULL: none). */
static SpareSize *entry(Spare *s, size_t bytes, bool add)
{
    for (unsigned k = 0; k < SPARE_SIZES; k++) {
        if (s->size[k].bytes == bytes)
            return &s->size[k];
        if (!s->size[k].bytes) {
            if (!add)
                return NULL;
            s->size[k].bytes = bytes;
            return &s->size[k];
        }
    }
    return NULL;
}

void spare_retire(Spare *s, void *p, size_t bytes)
{
    SpareSize *e = p && bytes >= SPARE_MIN ? entry(s, bytes, true) : NULL;
    if (e)
        push(&e->retired, p);
}

void spare_release(Spare *s)
{
    for (unsigned k = 0; k < SPARE_SIZES && s->size[k].bytes; k++) {
        SpareSize *e = &s->size[k];
        for (size_t i = 0; i < e->retired.n; i++)
            if (!push(&e->ready, e->retired.p[i]))
                break; /* out of memory: the rest is not reused */
        e->retired.n = 0;
    }
}

void *spare_take(Spare *s, size_t bytes)
{
    SpareSize *e = bytes >= SPARE_MIN ? entry(s, bytes, false) : NULL;
    if (!e || !e->ready.n)
        return NULL;
    void *p = e->ready.p[--e->ready.n];
    memset(p, 0, bytes);
    s->reused += bytes;
    return p;
}

void spare_finish(Spare *s)
{
    for (unsigned k = 0; k < SPARE_SIZES; k++) {
        free(s->size[k].retired.p);
        free(s->size[k].ready.p);
    }
    memset(s, 0, sizeof *s);
}
