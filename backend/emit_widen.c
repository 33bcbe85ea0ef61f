/* emit_widen.c: an 8-bit view only OUTPUTs read, widened for them (docs/backend.md,
 * "Rearrangements", "Inserted primitives"). A view holds its writer's map as the writer lays
 * it out (emit_rearr.c); an OUTPUT reads it with dynamic blocks, each a box of its socket from
 * a word's first lane. When the view's steps put values the OUTPUT reads next to each other
 * in lanes that are no word's first (a channel upsampled, a SHUFFLE of the channels), no such
 * boxes exist; in INT_32 every lane is a word's first. So a P06 copies the view, once its
 * writer (and the P06 narrowing an Axon's result into it) has written it, into an int32 area
 * of the same pixels and pitch (`x1_precision` the view's, `out_precision` INT_32,
 * `length_in` = `length_out` the pitch, `num_in` = `num_out` the pixels: each value widened
 * as it is, every lane one word), in the first free Soma slot after them, and the OUTPUTs
 * read that area, alive from then to the end of the run. No free slot: emit.slot.
 */
#include "backend/emit_internal.h"

#include "taskir/diag_block.h"

/* The slot order after which view copy cp holds its writer w's values: the writer's slot,
 * or the narrowing P06's (emit_narrow.c). */
static int64_t written(const Emit *e, uint32_t w)
{
    int64_t at = emit_slot_when(e->phase_of[w], e->slot_of[w]);
    const ENarrow *n = emit_narrow_of(e, w);
    if (n && n->phase >= 0) {
        int64_t nw = emit_slot_when(n->phase, n->slot);
        at = nw > at ? nw : at;
    }
    return at;
}

/* The writer of view copy cp (its in edge's source). */
static uint32_t writer_of(const Emit *e, const ECopy *cp)
{
    const BlockUses *bu = &e->uses.blocks[cp->block];
    return (uint32_t)graph_block_pos(e->g, e->g->edges[bu->in_edges[0]]->src);
}

static Status plan(Emit *e, uint32_t ci, const EmitFeat *wide)
{
    ECopy *cp = &e->copies[ci];
    ECore *c = &e->cores[cp->core];
    uint32_t w = writer_of(e, cp);
    int64_t after = written(e, w);
    int32_t ph = -1, slot = 0;
    if (!emit_slot_earliest(e, cp->core, e->phase_of[w], c->n_phases - 1, after, &ph, &slot))
        return diag_block(e->d, ST_LOGIC, "emit.slot", e->g->blocks[cp->block],
                          "a view only OUTPUTs read, from lanes that are no word's first: a "
                          "P06 widening it to int32 words needs a free Soma slot on core %s "
                          "after its writer, block %d, and there is none",
                          c->name, e->g->blocks[w]->id);
    Status st = emit_slot_take(e, cp->core, ph, slot, SLOT_WIDEN, cp->block);
    if (st != ST_OK)
        return st;
    uint32_t req = emit_request(e, cp->core, wide->words, wide->align, ph, c->n_phases - 1,
                                ALLOC_DATA, e->g->blocks[cp->block]->id);
    EWiden *nw = emit_grow(e, e->widens, &e->cap_widens, e->n_widens, sizeof *e->widens);
    if (req == EMIT_NONE || !nw)
        return ST_RUNTIME;
    e->widens = nw;
    e->widens[e->n_widens++] = (EWiden){ci, *wide, ph, slot, req};
    if (cp->last < ph) { /* the view lives until the P06 reads it */
        cp->last = ph;
        if (cp->req != EMIT_NONE)
            c->reqs[cp->req].last = ph;
    }
    return ST_OK;
}

Status emit_widens(Emit *e)
{
    for (uint32_t ci = 0; ci < e->n_copies; ci++) {
        const ECopy *cp = &e->copies[ci];
        EmitFeat wide;
        if (!cp->view || !emit_rearr_wide(e, cp->block, &cp->feat, &wide))
            continue;
        Status st = plan(e, ci, &wide);
        if (st != ST_OK)
            return st;
    }
    return ST_OK;
}

const EWiden *emit_widen_of(const Emit *e, uint32_t ci)
{
    for (size_t i = 0; i < e->n_widens; i++)
        if (e->widens[i].copy == ci)
            return &e->widens[i];
    return NULL;
}

Status emit_widen_prims(Emit *e)
{
    for (size_t i = 0; i < e->n_widens; i++) {
        const EWiden *wd = &e->widens[i];
        const ECopy *cp = &e->copies[wd->copy];
        Taskir__Asm__P06 *p = emit_p06_slot(e, cp->core, wd->phase, wd->slot,
                                            e->g->blocks[cp->block]->id);
        if (!p)
            return ST_RUNTIME;
        emit_p06_rows(p, cp->feat.prec, cp->feat.c, cp->feat.ny * cp->feat.nx,
                      emit_copy_addr(e, cp), cp->feat.words,
                      e->cores[cp->core].addr[wd->req], wd->feat.words);
        p->out_precision = pr_info(PR_INT_32)->wire;
    }
    return e->d->oom ? ST_RUNTIME : ST_OK;
}
