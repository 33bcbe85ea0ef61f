/* emit_bycore.c: walks over the copies, the parts of spread copies, the blocks' output
 * buffers and the send areas on one core (EOnCore), in list order, for the loops that ask of
 * every core in turn (the memory plan's halves, emit_plan.c, emit_sendhalf.c; the receive
 * area a core holds, the parts a copy lands in, emit_spread.c; emit_recvwait.c). A list is
 * indexed by core as it is (emit_index_copies after the copies, emit_index_parts after each
 * spread copy's parts and before the memory plan with the others: Emit.copy_idx, part_idx,
 * out_idx, sendbuf_idx): each core's entries chained in list order, the chains extended by
 * the entries added since (an entry's core does not change once it is made: an output
 * buffer's once it is used, a send area's writer's). A walk follows core k's chain over the
 * entries indexed, then walks those added since, the core checked; a list with no index is
 * walked whole so. Either way it gives the same entries in the same order.
 */
#include "backend/emit_internal.h"

#include <stdlib.h>

void emit_by_core_finish(EByCore *x)
{
    free(x->head);
    free(x->tail);
    free(x->next);
    *x = (EByCore){0};
}

/* Indexes the n entries of a list by core (core_at: entry i's core; EMIT_NONE or past the
 * cores: none), extending the chains by the entries past x->n. */
static Status by_core(Emit *e, EByCore *x, size_t n, uint32_t (*core_at)(const Emit *, size_t))
{
    uint32_t nk = e->n_cores;
    if (!x->head || x->n_cores != nk || n < x->n) { /* none yet, or not this list's: anew */
        emit_by_core_finish(x);
        x->head = malloc(((size_t)nk + 1) * sizeof *x->head);
        x->tail = malloc(((size_t)nk + 1) * sizeof *x->tail);
        if (!x->head || !x->tail) {
            emit_by_core_finish(x);
            return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
        }
        for (uint32_t k = 0; k <= nk; k++)
            x->head[k] = x->tail[k] = EMIT_NONE;
        x->n_cores = nk;
    }
    if (n > x->cap) {
        size_t cap = x->cap ? x->cap : 64;
        while (cap < n && cap <= UINT32_MAX / 2)
            cap *= 2;
        uint32_t *next = cap >= n ? realloc(x->next, cap * sizeof *next) : NULL;
        if (!next) {
            emit_by_core_finish(x);
            return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
        }
        x->next = next;
        x->cap = cap;
    }
    for (size_t i = x->n; i < n; i++) {
        uint32_t k = core_at(e, i);
        x->next[i] = EMIT_NONE;
        if (k >= nk)
            continue;
        if (x->head[k] == EMIT_NONE)
            x->head[k] = (uint32_t)i;
        else
            x->next[x->tail[k]] = (uint32_t)i;
        x->tail[k] = (uint32_t)i;
    }
    x->n = n;
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

/* A walk over core k's entries of a list of n now, indexed by x (core_at: entry i's core):
 * its chain, then the entries past those indexed (all of them without an index, or for a
 * core past it). */
static EOnCore on_core(const EByCore *x, size_t n, uint32_t k,
                       uint32_t (*core_at)(const Emit *, size_t))
{
    if (x->head && k < x->n_cores && x->n <= n)
        return (EOnCore){k, x->head[k], x->n, n, x, core_at};
    return (EOnCore){k, EMIT_NONE, 0, n, NULL, core_at};
}

bool emit_on_core_next(const Emit *e, EOnCore *it, size_t *pos)
{
    if (it->chain != EMIT_NONE) {
        *pos = it->chain;
        it->chain = it->x->next[it->chain];
        return true;
    }
    while (it->i < it->end) {
        size_t i = it->i++;
        if (it->core_at(e, i) == it->k) {
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
