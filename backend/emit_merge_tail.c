/* emit_merge_tail.c: a local slice of a merge in the tail of the copy it is merged into
 * (docs/backend.md "Gathering on a core", "Memory plan"), tried on a core whose memory plan
 * fits none of the other ways.
 *
 * A merge (emit_merge.c) keeps a local writer's output buffer, compact, until the P06 that
 * reads it, beside the copy the P06s write: the copy's words and the slice's. The mapper
 * counts the copy alone there (a writer of storage of its own cluster holds no buffer,
 * mapper/problem.c), so a copy that takes most of the data banks leaves no room for its
 * slice (test_diff_chain/yolo_head: 24576 words of `prod/out` and 12288 of the slice
 * `prod/x0` writes on its core). The slice can lie in the last words of the copy instead:
 * the Soma reads all its inputs before it writes ("What every Soma primitive shares"), and a
 * P06 that merges rows r0 .. r1 of slices of L and R words a row writes the copy's words up
 * to r1 (L + R), where the slice's rows from r1 on begin at rows (L + R) - rows S + r1 S
 * (S its words a row, L or R) or later: never below the end of what it writes, so the P06s
 * that come after it (the next bands, the next merges) still read the slice's rows they
 * merge. Its buffer is then the copy's area's tail: the copy's request ends where the
 * buffer's begins (a chain of areas, alloc.h), and the buffer lives as long as both.
 *
 * Only where nothing else reads the buffer (its writer writes this copy alone, the copy's
 * block has no copy on another core to send to) and the copy shares its area with no other
 * copy; one local slice a merge.
 */
#include "backend/emit_internal.h"

/* Whether copy cp is the only copy of its block and no other copy shares its area. */
static bool sole_copy(const Emit *e, const ECopy *cp)
{
    if (e->n_copy[cp->block] != 1)
        return false;
    for (size_t j = 0; j < e->n_copies; j++)
        if (&e->copies[j] != cp && e->copies[j].core == cp->core && e->copies[j].req == cp->req)
            return false;
    return true;
}

/* Whether every edge out of compute block w goes into storage block s. */
static bool writes_only(const Emit *e, uint32_t w, uint32_t s)
{
    const BlockUses *bu = &e->uses.blocks[w];
    for (uint32_t j = 0; j < bu->n_out_edges; j++)
        if (graph_block_pos(e->g, e->g->edges[bu->out_edges[j]]->dst) != (long)s)
            return false;
    return bu->n_out_edges > 0;
}

/* Whether some area of core k's requests is followed by area i (AllocReq.next). */
static bool followed(const ECore *c, uint32_t i)
{
    for (size_t j = 0; j < c->n_reqs; j++)
        if (c->reqs[j].next == (size_t)i + 1)
            return true;
    return false;
}

/* a's lifetime widened to hold b's too: the earlier start and the later end, with the
 * half-phase marks (alloc.h) of the area that sets each, both cleared on a tie with one
 * clear. */
static void widen(AllocReq *a, const AllocReq *b)
{
    int32_t first = a->first < b->first ? a->first : b->first;
    int32_t last = a->last > b->last ? a->last : b->last;
    a->first_soma = (a->first != first || a->first_soma) && (b->first != first || b->first_soma);
    a->first_router =
        (a->first != first || a->first_router) && (b->first != first || b->first_router);
    a->last_axon = (a->last != last || a->last_axon) && (b->last != last || b->last_axon);
    a->last_soma1 = (a->last != last || a->last_soma1) && (b->last != last || b->last_soma1);
    a->first = first;
    a->last = last;
}

/* Puts the first local slice of merge m that may lie so in its copy's tail; whether one
 * did. */
static bool tail_slice(Emit *e, const EMerge *m)
{
    ECopy *cp = &e->copies[m->copy];
    ECore *c = &e->cores[cp->core];
    if (m->wrap || cp->req == EMIT_NONE || cp->req_off != 0 || cp->alias_of != EMIT_NONE ||
        !sole_copy(e, cp))
        return false;
    AllocReq *r = &c->reqs[cp->req];
    if (r->kind != ALLOC_DATA || r->next || r->again || r->words == 0)
        return false;
    for (int a = 0; a < m->n; a++) {
        const EMergePiece *pc = &m->piece[a];
        const EOut *o = &e->outs[pc->writer];
        if (pc->remote || !o->used || o->over || o->aliased || o->req == EMIT_NONE ||
            o->core != cp->core || !writes_only(e, pc->writer, cp->block))
            continue;
        AllocReq *b = &c->reqs[o->req];
        if (b->kind != ALLOC_DATA || b->next || b->again || b->words == 0 ||
            b->words >= r->words || b->words != pc->feat.words ||
            (r->words - b->words) % b->align != 0 || followed(c, o->req))
            continue;
        r->words -= b->words;
        r->next = (size_t)o->req + 1;
        widen(b, r);
        return true;
    }
    return false;
}

bool emit_merge_tails(Emit *e, uint32_t k)
{
    bool any = false;
    for (size_t i = 0; i < e->n_merges; i++)
        if (e->copies[e->merges[i].copy].core == k)
            any |= tail_slice(e, &e->merges[i]);
    return any;
}
