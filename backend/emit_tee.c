/* emit_tee.c: a result that goes into two storage blocks on its writer's core (docs/backend.md,
 * "Inserted primitives"). A primitive writes one output area: the copy of the first storage
 * block its result goes to on its core. Every other one gets a P06 that copies that area
 * into its own (a tee), in the first free Soma slot after the writer and before the copy's
 * first reader on the core (the two copies then live until that slot at least, and one an
 * OUTPUT reads to the end of the run). Both must hold all of the result in the
 * same layout: the same pixels, pitch and precision (an edge without steps, or a view of the
 * writer's map, emit_rearr.c).
 */
#include "backend/emit_internal.h"

#include "taskir/diag_block.h"


/* The copy on core k of the storage edge position ep of writer w goes to, when that copy
 * holds all of w's result as w writes it; NULL otherwise. */
static ECopy *whole_copy(const Emit *e, uint32_t w, uint32_t ep, uint32_t k)
{
    const Edge *ed = e->g->edges[ep];
    long s = graph_block_pos(e->g, ed->dst);
    ECopy *cp = s >= 0 ? emit_copy_on(e, (uint32_t)s, k) : NULL;
    if (!cp || cp->planes || cp->received || cp->alias_of != EMIT_NONE || cp->image ||
        (ed->n_re && !cp->view) || !emit_whole_iface(e, w, false, ed->id) ||
        !emit_whole_iface(e, (uint32_t)s, true, ed->id))
        return NULL;
    return cp;
}

/* The earliest order of a reader of copy t on its core (compute blocks; an OUTPUT reads after
 * the run); INT64_MAX when none, -1 when a block on another core reads it. */
static int64_t first_read(const Emit *e, const ECopy *t)
{
    const BlockUses *bu = &e->uses.blocks[t->block];
    int64_t first = INT64_MAX;
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        long r = graph_block_pos(e->g, e->g->edges[bu->out_edges[j]]->dst);
        if (r < 0 || e->g->blocks[r]->type == BT_OUTPUT)
            continue;
        if (e->core_of[r] != t->core)
            return -1;
        int64_t at = emit_slot_when(e->phase_of[r], e->slot_of[r]);
        first = at < first ? at : first;
    }
    return first;
}

/* Whether an OUTPUT reads copy t's block. */
static bool read_out(const Emit *e, const ECopy *t)
{
    const BlockUses *bu = &e->uses.blocks[t->block];
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        long r = graph_block_pos(e->g, e->g->edges[bu->out_edges[j]]->dst);
        if (r >= 0 && e->g->blocks[r]->type == BT_OUTPUT)
            return true;
    }
    return false;
}

/* Records the tee of writer w from copy f into copy t: planned (phase ph, slot), or failed
 * (why: TEE_LAYOUT, TEE_REMOTE, TEE_SLOT; refused by emit_tee_refuse after the memory plan,
 * whose refusal comes first). */
static Status record(Emit *e, uint32_t w, const ECopy *f, const ECopy *t, int32_t ph,
                     int32_t slot, int32_t why)
{
    ETee *nt = emit_grow(e, e->tees, &e->cap_tees, e->n_tees, sizeof *e->tees);
    if (!nt)
        return ST_RUNTIME;
    e->tees = nt;
    if (ph >= 0) {
        Status st = emit_slot_take(e, t->core, ph, slot, SLOT_TEE, w);
        if (st != ST_OK)
            return st;
    }
    e->tees[e->n_tees++] = (ETee){w, (uint32_t)(f - e->copies), (uint32_t)(t - e->copies), ph,
                                  slot, why};
    return ST_OK;
}

/* Plans the tee of writer w from copy f into copy t. */
static Status plan_tee(Emit *e, uint32_t w, ECopy *f, ECopy *t)
{
    const ECore *c = &e->cores[t->core];
    if (f->feat.prec != t->feat.prec || f->feat.c != t->feat.c ||
        f->feat.ny * f->feat.nx != t->feat.ny * t->feat.nx)
        return record(e, w, f, t, -1, 0, TEE_LAYOUT);
    int64_t after = emit_slot_when(e->phase_of[w], e->slot_of[w]), before = first_read(e, t);
    if (before < 0)
        return record(e, w, f, t, -1, 0, TEE_REMOTE);
    int32_t ph = -1, slot = 0;
    for (int32_t p = e->phase_of[w]; p < c->n_phases && ph < 0; p++)
        for (int32_t sl = MAP_PI_SOMA1; sl <= MAP_PI_SOMA2 && ph < 0;
             sl += MAP_PI_SOMA2 - MAP_PI_SOMA1) {
            int64_t at = emit_slot_when(p, sl);
            if (at > after && at < before && p >= t->first && p >= f->first &&
                !emit_soma_taken(e, t->core, p, sl)) {
                ph = p;
                slot = sl;
            }
        }
    if (ph < 0)
        return record(e, w, f, t, -1, 0, TEE_SLOT);
    /* both copies live until the copy, and one an OUTPUT reads (after the run) to the end
     * (their areas are requested, not yet placed) */
    ECopy *both[2] = {f, t};
    int32_t until[2] = {ph, read_out(e, t) ? c->n_phases - 1 : ph};
    for (int i = 0; i < 2; i++)
        if (both[i]->last < until[i]) {
            both[i]->last = until[i];
            if (both[i]->req != EMIT_NONE)
                e->cores[t->core].reqs[both[i]->req].last = until[i];
        }
    return record(e, w, f, t, ph, slot, 0);
}

Status emit_tee_refuse(Emit *e, uint32_t pos, uint32_t s, uint32_t first)
{
    const Block *b = e->g->blocks[pos];
    const ECore *c = &e->cores[e->core_of[pos]];
    int32_t why = 0;
    const ETee *t = NULL;
    for (size_t i = 0; i < e->n_tees && !t; i++)
        if (e->tees[i].writer == pos && e->copies[e->tees[i].to].block == s)
            t = &e->tees[i];
    why = t ? t->failed : 0;
    int32_t fid = e->g->blocks[first]->id, sid = e->g->blocks[s]->id;
    if (why == TEE_LAYOUT)
        return diag_block(e->d, ST_LOGIC, "emit.layout", b,
                          "writes blocks %d and %d, both stored on its core %s, in other "
                          "layouts (%lld and %lld channels a pixel): its primitive writes one "
                          "area, and a P06 copies only the same layout", fid, sid, c->name,
                          (long long)e->copies[t->from].feat.c,
                          (long long)e->copies[t->to].feat.c);
    if (why == TEE_REMOTE)
        return diag_block(e->d, ST_LOGIC, "emit.layout", b,
                          "writes block %d on its core %s, which a block on another core "
                          "reads: its primitive writes block %d, and a tee does not feed the "
                          "router yet", sid, c->name, fid);
    if (why == TEE_SLOT)
        return diag_block(e->d, ST_LOGIC, "emit.slot", b,
                          "writes blocks %d and %d, both stored on its core %s: a P06 copying "
                          "its result into the second needs a free Soma slot after it and "
                          "before that block's first reader, and there is none", fid, sid,
                          c->name);
    return diag_block(e->d, ST_LOGIC, "emit.layout", b,
                      "writes blocks %d and %d, both stored on its core %s: its primitive "
                      "writes one area, and a P06 copies it only when both hold all of its "
                      "result", fid, sid, c->name);
}

Status emit_tees(Emit *e)
{
    for (uint32_t w = 0; w < e->g->n_blocks; w++) {
        uint32_t k = e->core_of[w];
        if (bt_info(e->g->blocks[w]->type)->kind != BK_COMPUTE || k == EMIT_NONE ||
            e->outs[w].used)
            continue;
        const BlockUses *bu = &e->uses.blocks[w];
        long first = -1;
        for (uint32_t j = 0; j < bu->n_out_edges; j++) {
            long s = graph_block_pos(e->g, e->g->edges[bu->out_edges[j]]->dst);
            if (s < 0 || !emit_copy_on(e, (uint32_t)s, k) || s == first)
                continue;
            if (first < 0) {
                first = s;
                continue;
            }
            /* a second storage on its core: a tee when both hold all of the result */
            ECopy *f = NULL, *t = whole_copy(e, w, bu->out_edges[j], k);
            for (uint32_t i = 0; i < bu->n_out_edges && !f; i++)
                if (graph_block_pos(e->g, e->g->edges[bu->out_edges[i]]->dst) == first)
                    f = whole_copy(e, w, bu->out_edges[i], k);
            if (!f || !t || emit_tee_of(e, w, (uint32_t)s))
                continue; /* emit_prim.c refuses it (emit_tee_refuse) */
            Status st = plan_tee(e, w, f, t);
            if (st != ST_OK)
                return st;
        }
    }
    return ST_OK;
}

bool emit_tee_of(const Emit *e, uint32_t pos, uint32_t s)
{
    for (size_t i = 0; i < e->n_tees; i++)
        if (e->tees[i].writer == pos && !e->tees[i].failed &&
            e->copies[e->tees[i].to].block == s)
            return true;
    return false;
}

Status emit_tee_prims(Emit *e)
{
    for (size_t i = 0; i < e->n_tees; i++) {
        const ETee *t = &e->tees[i];
        if (t->failed)
            continue;
        const ECopy *f = &e->copies[t->from], *to = &e->copies[t->to];
        Taskir__Asm__P06 *p = emit_p06_slot(e, to->core, t->phase, t->slot,
                                            e->g->blocks[f->block]->id);
        if (!p)
            return ST_RUNTIME;
        emit_p06_rows(p, f->feat.prec, f->feat.c, f->feat.ny * f->feat.nx,
                      emit_copy_addr(e, f), f->feat.words, emit_copy_addr(e, to),
                      to->feat.words);
    }
    return e->d->oom ? ST_RUNTIME : ST_OK;
}
