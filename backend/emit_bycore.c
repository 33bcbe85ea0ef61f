/* emit_bycore.c: walks over the copies and the parts of spread copies on one core
 * (EOnCore), in list order, for the loops that ask of every core in turn (the memory plan's
 * halves, emit_plan.c; the receive area a core holds, the parts a copy lands in,
 * emit_spread.c; emit_recvwait.c). Each list is indexed by core once its entries are all
 * made (emit_index_copies after the copies, emit_index_parts after the parts: Emit.copy_idx,
 * part_idx, a counting sort by core): a walk then visits core k's entries only. A list that
 * has grown since its index was made, or has none, is walked whole with the core checked, so
 * a walk gives the same entries in the same order either way; an entry's core does not
 * change once it is made.
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

Status emit_index_copies(Emit *e)
{
    return by_core(e, &e->copy_idx, e->n_copies, copy_core);
}

Status emit_index_parts(Emit *e)
{
    return by_core(e, &e->part_idx, e->n_parts, part_core);
}

/* A walk over core k's entries of a list of n now, indexed by x. */
static EOnCore on_core(const EByCore *x, size_t n, uint32_t k)
{
    if (x->at && x->n == n && k < x->n_cores)
        return (EOnCore){.k = k, .i = x->first[k], .end = x->first[k + 1], .x = x};
    return (EOnCore){.k = k, .i = 0, .end = n, .x = NULL};
}

/* The position of the walk's next entry (core_at: entry i's core); false when done. */
static bool on_core_next(const Emit *e, EOnCore *it, uint32_t (*core_at)(const Emit *, size_t),
                         size_t *pos)
{
    while (it->i < it->end) {
        size_t i = it->x ? it->x->at[it->i] : it->i;
        it->i++;
        if (it->x || core_at(e, i) == it->k) {
            *pos = i;
            return true;
        }
    }
    return false;
}

EOnCore emit_copies_on(const Emit *e, uint32_t k)
{
    return on_core(&e->copy_idx, e->n_copies, k);
}

EOnCore emit_parts_on(const Emit *e, uint32_t k)
{
    return on_core(&e->part_idx, e->n_parts, k);
}

ECopy *emit_copies_next(const Emit *e, EOnCore *it)
{
    size_t i;
    return on_core_next(e, it, copy_core, &i) ? &e->copies[i] : NULL;
}

EPart *emit_parts_next(const Emit *e, EOnCore *it)
{
    size_t i;
    return on_core_next(e, it, part_core, &i) ? &e->parts[i] : NULL;
}
