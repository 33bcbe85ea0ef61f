/* emit_bycore.c: walks over the copies, the parts of spread copies, the blocks' output
 * buffers and the send areas on one core (EOnCore), in list order, for the loops that ask of
 * every core in turn (the memory plan's halves, emit_plan.c, emit_sendhalf.c; the receive
 * area a core holds, the parts a copy lands in, emit_spread.c; emit_recvwait.c). Each list is
 * indexed by core once its entries are all made (emit_index_copies after the copies, the
 * others before the memory plan: Emit.copy_idx, part_idx, out_idx, sendbuf_idx, a counting
 * sort by core): a walk then visits core k's entries only. A list that
 * has grown since its index was made, or has none, is walked whole with the core checked, so
 * a walk gives the same entries in the same order either way; an entry's core does not
 * change once it is made (an output buffer's once it is used, a send area's writer's).
 */
#include "backend/emit_internal.h"

#include <stdlib.h>

void emit_by_core_finish(EByCore *x)
{
    free(x->first);
    free(x->at);
    *x = (EByCore){0};
}

/* Indexes n entries by core (core_at: entry i's core; EMIT_NONE or past the cores: none). */
static Status by_core(Emit *e, EByCore *x, size_t n, uint32_t (*core_at)(const Emit *, size_t))
{
    emit_by_core_finish(x);
    uint32_t nk = e->n_cores;
    x->first = calloc((size_t)nk + 1, sizeof *x->first);
    x->at = malloc((n ? n : 1) * sizeof *x->at);
    if (!x->first || !x->at || n > UINT32_MAX) {
        emit_by_core_finish(x);
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    }
    for (size_t i = 0; i < n; i++) { /* counts, then their starts, then the entries */
        uint32_t k = core_at(e, i);
        if (k < nk)
            x->first[k + 1]++;
    }
    for (uint32_t k = 0; k < nk; k++)
        x->first[k + 1] += x->first[k];
    uint32_t *fill = malloc(((size_t)nk + 1) * sizeof *fill);
    if (!fill) {
        emit_by_core_finish(x);
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    }
    for (uint32_t k = 0; k <= nk; k++)
        fill[k] = x->first[k];
    for (size_t i = 0; i < n; i++) {
        uint32_t k = core_at(e, i);
        if (k < nk)
            x->at[fill[k]++] = (uint32_t)i;
    }
    free(fill);
    x->n = n;
    x->n_cores = nk;
    return ST_OK;
}

static uint32_t copy_core(const Emit *e, size_t i)
{
    return e->copies[i].core;
}

static uint32_t part_core(const Emit *e, size_t i)
{
    return e->parts[i].core;
}

/* A block's output buffer, by its core (an unused one's core is none). */
static uint32_t out_core(const Emit *e, size_t i)
{
    return e->outs[i].used ? e->outs[i].core : EMIT_NONE;
}

/* A send area, by its writer's core. */
static uint32_t sendbuf_core(const Emit *e, size_t i)
{
    return e->core_of[e->sendbufs[i].writer];
}

Status emit_index_copies(Emit *e)
{
    return by_core(e, &e->copy_idx, e->n_copies, copy_core);
}

Status emit_index_parts(Emit *e)
{
    return by_core(e, &e->part_idx, e->n_parts, part_core);
}

Status emit_index_outs(Emit *e)
{
    return by_core(e, &e->out_idx, e->g->n_blocks, out_core);
}

Status emit_index_sendbufs(Emit *e)
{
    return by_core(e, &e->sendbuf_idx, e->n_sendbufs, sendbuf_core);
}

/* A walk over core k's entries of a list of n now, indexed by x (core_at: entry i's core). */
static EOnCore on_core(const EByCore *x, size_t n, uint32_t k,
                       uint32_t (*core_at)(const Emit *, size_t))
{
    if (x->at && x->n == n && k < x->n_cores)
        return (EOnCore){k, x->first[k], x->first[k + 1], x, core_at};
    return (EOnCore){k, 0, n, NULL, core_at};
}

bool emit_on_core_next(const Emit *e, EOnCore *it, size_t *pos)
{
    while (it->i < it->end) {
        size_t i = it->x ? it->x->at[it->i] : it->i;
        it->i++;
        if (it->x || it->core_at(e, i) == it->k) {
            *pos = i;
            return true;
        }
    }
    return false;
}

EOnCore emit_copies_on(const Emit *e, uint32_t k)
{
    return on_core(&e->copy_idx, e->n_copies, k, copy_core);
}

EOnCore emit_parts_on(const Emit *e, uint32_t k)
{
    return on_core(&e->part_idx, e->n_parts, k, part_core);
}

EOnCore emit_outs_on(const Emit *e, uint32_t k)
{
    return on_core(&e->out_idx, e->g->n_blocks, k, out_core);
}

EOnCore emit_sendbufs_on(const Emit *e, uint32_t k)
{
    return on_core(&e->sendbuf_idx, e->n_sendbufs, k, sendbuf_core);
}

ECopy *emit_copies_next(const Emit *e, EOnCore *it)
{
    size_t i;
    return emit_on_core_next(e, it, &i) ? &e->copies[i] : NULL;
}

EPart *emit_parts_next(const Emit *e, EOnCore *it)
{
    size_t i;
    return emit_on_core_next(e, it, &i) ? &e->parts[i] : NULL;
}
