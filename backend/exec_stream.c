/* exec_stream.c: the Soma <-> Router word stream of one phase (exec.h). */
#include "backend/exec.h"

#include <stdlib.h>
#include <string.h>

Status exec_stream_push(ExecStream *st, const uint32_t *w, size_t n)
{
    if (n == 0)
        return ST_OK;
    if (n > SIZE_MAX / sizeof *st->w - st->n)
        return ST_RUNTIME;
    if (st->n + n > st->cap) {
        size_t cap = st->cap ? st->cap : 64;
        while (cap < st->n + n)
            cap = cap > SIZE_MAX / 2 / sizeof *st->w ? st->n + n : cap * 2;
        uint32_t *nw = realloc(st->w, cap * sizeof *nw);
        if (!nw)
            return ST_RUNTIME;
        st->w = nw;
        st->cap = cap;
    }
    memcpy(st->w + st->n, w, n * sizeof *w);
    st->n += n;
    return ST_OK;
}

void exec_stream_free(ExecStream *st)
{
    free(st->w);
    st->w = NULL;
    st->n = st->cap = 0;
}
