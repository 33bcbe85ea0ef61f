/* emit_sendhalf.c: a send area sharing words with its writer's input in the writer's phase
 * (docs/backend.md, "Memory plan", "A buffer sent twice"). A send area (emit_sendbuf.c,
 * emit_senddup.c) is first written by its P06 in a Soma slot of its first phase: nothing
 * reads or writes it before that Soma (alloc.h first_soma). When that phase is its writer's,
 * an Axon primitive's (a P83 whose rows go to copies of two layouts, sent twice), the
 * writer's input copy may end with that Axon (alloc.h last_axon): the two then take the same
 * words in that phase, the input read by the Axon, the area written after it. An input
 * copy ends so only when nothing else touches it in that phase after the Axon: every block
 * reading it is on its core and reads it in an earlier phase or in that Axon, nothing on its
 * core writes it then (no Soma slot of the phase serves it, no router lands or gathers rows
 * of it, no part of a spread copy moves in then or later), and it is an area of its own in
 * the data banks (not a part of another, an alias, a view, one a Soma buffer is written
 * over, emit_soma_over.c, or one staying in the receive area).
 */
#include "backend/emit_internal.h"

/* Whether area r lives the whole step (it may hold data of two steps). */
static bool whole_step(const Emit *e, uint32_t k, const AllocReq *r)
{
    return r->again || (r->first == 0 && r->last == e->cores[k].n_phases - 1);
}

/* Whether block position b writes storage block position s (an edge b -> s). */
static bool writes(const Emit *e, uint32_t b, uint32_t s)
{
    const BlockUses *bu = &e->uses.blocks[s];
    for (uint32_t j = 0; j < bu->n_in_edges; j++)
        if (graph_block_pos(e->g, e->g->edges[bu->in_edges[j]]->src) == (long)b)
            return true;
    return false;
}

/* Whether Soma slot use u of copy cp's last phase leaves cp alone: free, or a compute block
 * or a P06 of a writer's result (a send area, a narrowing, a tee) that does not write it;
 * any other inserted P06 may move, gather or repeat it. */
static bool slot_leaves(const Emit *e, ESlotUse u, const ECopy *cp)
{
    switch (u.kind) {
    case SLOT_FREE:
        return true;
    case SLOT_BLOCK:
    case SLOT_SENDBUF:
    case SLOT_NARROW:
    case SLOT_TEE:
        return !writes(e, u.block, cp->block);
    default:
        return false;
    }
}

/* Whether input copy cp of the Axon block in phase pc on its core is done with after that
 * Axon (see the head). */
static bool input_done(const Emit *e, const ECopy *cp, int32_t pc)
{
    uint32_t k = cp->core;
    uint32_t ci = (uint32_t)(cp - e->copies);
    if (cp->req == EMIT_NONE || cp->req_off || cp->alias_of != EMIT_NONE || cp->view ||
        cp->planes || cp->is_static || cp->image || cp->dup_of != EMIT_NONE ||
        (cp->received && !cp->spread && (cp->land == EMIT_NONE || cp->move_phase >= pc)))
        return false;
    for (size_t i = 0; i < e->n_parts; i++) /* a spread copy's parts all moved in before */
        if (e->parts[i].core == k && e->parts[i].move_phase >= pc &&
            (e->parts[i].copy[0] == ci || (e->parts[i].nq[1] > 0 && e->parts[i].copy[1] == ci)))
            return false;
    const AllocReq *r = &e->cores[k].reqs[cp->req];
    if (r->kind != ALLOC_DATA || r->last != pc || whole_step(e, k, r))
        return false;
    for (uint32_t i = 0; i < e->n_copies; i++) /* an area of its own */
        if (&e->copies[i] != cp && e->copies[i].core == k &&
            (e->copies[i].req == cp->req || e->copies[i].dup_of == ci))
            return false;
    for (uint32_t b = 0; b < e->g->n_blocks; b++) /* no Soma buffer written over it */
        if (e->outs[b].used && e->outs[b].core == k && e->outs[b].over &&
            e->outs[b].req == cp->req)
            return false;
    const BlockUses *bu = &e->uses.blocks[cp->block];
    for (uint32_t j = 0; j < bu->n_out_edges; j++) { /* read on its core, by then */
        long t = graph_block_pos(e->g, e->g->edges[bu->out_edges[j]]->dst);
        if (t < 0 || e->core_of[t] != k || bt_info(e->g->blocks[t]->type)->kind != BK_COMPUTE ||
            e->phase_of[t] > pc || (e->phase_of[t] == pc && e->slot_of[t] != MAP_PI_AXON))
            return false;
    }
    for (uint32_t j = 0; j < bu->n_in_edges; j++) { /* no writer on its core then */
        long w = graph_block_pos(e->g, e->g->edges[bu->in_edges[j]]->src);
        if (w >= 0 && e->core_of[w] == k && e->phase_of[w] + 1 >= pc)
            return false;
    }
    return slot_leaves(e, emit_slot_use(e, k, pc, MAP_PI_SOMA1), cp) &&
           slot_leaves(e, emit_slot_use(e, k, pc, MAP_PI_SOMA2), cp);
}

void emit_send_halves(Emit *e, uint32_t k)
{
    ECore *c = &e->cores[k];
    EOnCore on = emit_sendbufs_on(e, k); /* those its writers on k fill */
    for (size_t i; emit_on_core_next(e, &on, &i);) {
        const ESendBuf *sb = &e->sendbufs[i];
        uint32_t w = sb->writer;
        AllocReq *r = sb->req != EMIT_NONE && e->core_of[w] == k ? &c->reqs[sb->req] : NULL;
        if (!r || whole_step(e, k, r) || r->first != sb->phase ||
            (sb->slot != MAP_PI_SOMA1 && sb->slot != MAP_PI_SOMA2))
            continue;
        r->first_soma = true;
        if (e->slot_of[w] != MAP_PI_AXON || e->phase_of[w] != sb->phase)
            continue;
        const BlockUses *bu = &e->uses.blocks[w];
        for (uint32_t j = 0; j < bu->n_in_edges; j++) {
            long s = graph_block_pos(e->g, e->g->edges[bu->in_edges[j]]->src);
            const ECopy *cp = s >= 0 ? emit_copy_on(e, (uint32_t)s, k) : NULL;
            if (cp && input_done(e, cp, sb->phase))
                c->reqs[cp->req].last_axon = true;
        }
    }
}
