/* emit_tee.c: a result that goes into two storage blocks on its writer's core (docs/backend.md,
 * "Inserted primitives"). A primitive writes one output area: the copy of the first storage
 * block its result goes to on its core. Every other one (a tee) that holds all of the result
 * and that nothing else writes gets it without the primitive: in the same layout (the same
 * pixels, pitch and precision: an edge without steps, or a view of the writer's map,
 * emit_rearr.c) it holds the same words as the first and shares the first's area, alive
 * over both lifetimes (no P06, no Soma slot); in another pitch (a P07 writing rows of 8 int32
 * channels, a P05 reading 32), an inserted P06 re-pitches the first's area into its own, in
 * the latest free Soma slot after the writer (and its narrowing) and before the copy's first
 * reader on the core, which the mapper keeps free (taskir/premove.h, premove_tee). A copy of
 * which the result is a part, whole pixels that other blocks write around (a concatenation
 * along y), gets it so too: the P06 copies the first's area into that part's rows. Another
 * precision, or a copy that a block on another core reads, is refused (emit_tee_refuse).
 */
#include "backend/emit_internal.h"

#include "taskir/diag_block.h"


/* Whether edge ed from writer w into storage s holds w's result as w writes it: no steps, a
 * view of w's map (emit_rearr.c), or steps that keep the C order, the pixels and the
 * channels (emit_lanes_straight: a map of 1 x 92 pixels viewed as 92 x 1, as the division's
 * `op/mag0` writes its two copies, test_diff_ops/broadcast_div_case_2_variant_2-4). */
static bool as_written(const Emit *e, const Edge *ed, uint32_t w, uint32_t s, const ECopy *cp)
{
    EBox box;
    return !ed->n_re || cp->view ||
           (emit_iface_box(e, s, true, ed->id, &box) && emit_lanes_straight(e, ed, w, &box));
}

/* The copy on core k of the storage edge position ep of writer w goes to, when that copy
 * holds all of w's result as w writes it and nothing else writes it; NULL otherwise. */
static ECopy *whole_copy(const Emit *e, uint32_t w, uint32_t ep, uint32_t k)
{
    const Edge *ed = e->g->edges[ep];
    long s = graph_block_pos(e->g, ed->dst);
    ECopy *cp = s >= 0 ? emit_copy_on(e, (uint32_t)s, k) : NULL;
    if (!cp || cp->planes || cp->received || cp->alias_of != EMIT_NONE || cp->image ||
        cp->req == EMIT_NONE || e->uses.blocks[s].n_in_edges != 1 ||
        !as_written(e, ed, w, (uint32_t)s, cp) || !emit_whole_iface(e, w, false, ed->id) ||
        !emit_whole_iface(e, (uint32_t)s, true, ed->id))
        return NULL;
    return cp;
}

/* The copy on core k of the storage edge position ep of writer w goes to, when w's whole
 * result goes through the edge, without steps, into a part of it that other blocks write
 * around: whole pixels of the copy (every channel) that are one run of its memory (one row,
 * or whole rows), the part's box into *box; NULL otherwise. */
static ECopy *part_copy(const Emit *e, uint32_t w, uint32_t ep, uint32_t k, EBox *box)
{
    const Edge *ed = e->g->edges[ep];
    long s = graph_block_pos(e->g, ed->dst);
    ECopy *cp = s >= 0 ? emit_copy_on(e, (uint32_t)s, k) : NULL;
    if (!cp || cp->planes || cp->received || cp->alias_of != EMIT_NONE || cp->image ||
        cp->view || cp->req == EMIT_NONE || e->uses.blocks[s].n_in_edges < 2 || ed->n_re ||
        !emit_whole_iface(e, w, false, ed->id) ||
        !emit_iface_box(e, (uint32_t)s, true, ed->id, box))
        return NULL;
    const EBox *c = &cp->box;
    bool inside = true;
    for (int i = 0; i < 2; i++)
        inside &= box->lo[i] >= c->lo[i] && box->lo[i] + box->n[i] <= c->lo[i] + c->n[i];
    bool rows = box->n[0] == 1 || (box->lo[1] == c->lo[1] && box->n[1] == c->n[1]);
    return inside && rows && box->lo[2] == c->lo[2] && box->n[2] == c->n[2] ? cp : NULL;
}

/* Whether a block on another core than t's reads copy t's block. */
static bool read_remote(const Emit *e, const ECopy *t)
{
    const BlockUses *bu = &e->uses.blocks[t->block];
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        long r = graph_block_pos(e->g, e->g->edges[bu->out_edges[j]]->dst);
        if (r >= 0 && e->g->blocks[r]->type != BT_OUTPUT && e->core_of[r] != t->core)
            return true;
    }
    return false;
}

/* Records the tee of writer w from copy f into copy t (into its part `part`, whole pixels in
 * one run, when not NULL): t sharing f's area, or filled by a P06 (move; its slot planned by
 * emit_tee_slots), or failed (why: TEE_LAYOUT, TEE_REMOTE; refused by emit_tee_refuse after
 * the memory plan, whose refusal comes first). */
static Status record(Emit *e, uint32_t w, ECopy *f, ECopy *t, bool move, int32_t why,
                     const EBox *part)
{
    ETee *nt = emit_grow(e, e->tees, &e->cap_tees, e->n_tees, sizeof *e->tees);
    if (!nt)
        return ST_RUNTIME;
    e->tees = nt;
    int64_t off = 0, words = t->feat.words;
    if (part) {
        off = emit_feat_offset(&t->feat, part->lo[0] - t->box.lo[0], part->lo[1] - t->box.lo[1]);
        words = part->n[0] * part->n[1] * emit_feat_pixel_words(&t->feat);
    }
    e->tees[e->n_tees++] = (ETee){w, (uint32_t)(f - e->copies), (uint32_t)(t - e->copies),
                                  move, off, words, -1, 0, why};
    if (!why && !move) { /* one area, alive over both lifetimes */
        AllocReq *rf = &e->cores[f->core].reqs[f->req];
        const AllocReq *rt = &e->cores[t->core].reqs[t->req];
        rf->words = rt->words > rf->words ? rt->words : rf->words;
        rf->align = rt->align > rf->align ? rt->align : rf->align;
        rf->first = rt->first < rf->first ? rt->first : rf->first;
        rf->last = rt->last > rf->last ? rt->last : rf->last;
        emit_request_drop(e, t->core, t->req);
        t->req = f->req;
    }
    return ST_OK;
}

/* Plans the tee of writer w from copy f into copy t (into its part `part` when not NULL). */
static Status plan_tee(Emit *e, uint32_t w, ECopy *f, ECopy *t, const EBox *part)
{
    int64_t px = part ? part->n[0] * part->n[1] : t->feat.ny * t->feat.nx;
    if (f->feat.prec != t->feat.prec || f->feat.prec == PR_TERNARY ||
        f->feat.ny * f->feat.nx != px)
        return record(e, w, f, t, false, TEE_LAYOUT, NULL);
    if (read_remote(e, t))
        return record(e, w, f, t, false, TEE_REMOTE, NULL);
    return record(e, w, f, t, part || f->feat.c != t->feat.c, 0, part);
}

/* The earliest order of a reader of copy t on its core (compute blocks; an OUTPUT reads after
 * the run: INT64_MAX when only OUTPUTs do). */
static int64_t first_read(const Emit *e, const ECopy *t)
{
    const BlockUses *bu = &e->uses.blocks[t->block];
    int64_t first = INT64_MAX;
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        long r = graph_block_pos(e->g, e->g->edges[bu->out_edges[j]]->dst);
        if (r < 0 || e->g->blocks[r]->type == BT_OUTPUT || e->core_of[r] != t->core)
            continue;
        int64_t at = emit_slot_when(e->phase_of[r], e->slot_of[r]);
        first = at < first ? at : first;
    }
    return first;
}

/* Stretches request req of core k over phase p. */
static void alive_at(Emit *e, uint32_t k, uint32_t req, int32_t p)
{
    AllocReq *r = &e->cores[k].reqs[req];
    r->first = p < r->first ? p : r->first;
    r->last = p > r->last ? p : r->last;
}

/* The latest free Soma slot for re-pitching tee t's P06, after its writer (and the writer's
 * narrowing) and before its copy's first reader on the core (*before), and before time `by`
 * (emit_slot_when's unit); whether there is one. */
static bool tee_latest(const Emit *e, const ETee *t, int64_t by, int32_t *phase, int32_t *slot,
                       int64_t *before)
{
    uint32_t k = e->copies[t->to].core;
    int64_t after = emit_slot_when(e->phase_of[t->writer], e->slot_of[t->writer]);
    const ENarrow *n = emit_narrow_of(e, t->writer);
    if (n && n->phase >= 0 && emit_slot_when(n->phase, n->slot) > after)
        after = emit_slot_when(n->phase, n->slot);
    *before = first_read(e, &e->copies[t->to]);
    return emit_slot_latest(e, k, e->cores[k].n_phases - 1, e->phase_of[t->writer], after,
                            *before < by ? *before : by, phase, slot);
}

/* Tee t's P06 in Soma slot (phase, slot), free: the first copy lives until it, the second
 * from it (to the end of the step for an OUTPUT reading it after the run). */
static Status tee_take(Emit *e, ETee *t, int32_t phase, int32_t slot, int64_t before)
{
    const ECopy *f = &e->copies[t->from], *to = &e->copies[t->to];
    uint32_t k = to->core;
    t->phase = phase;
    t->slot = slot;
    alive_at(e, k, f->req, t->phase);
    alive_at(e, k, to->req, t->phase);
    if (before == INT64_MAX)
        alive_at(e, k, to->req, e->cores[k].n_phases - 1);
    return emit_slot_take(e, k, t->phase, t->slot, SLOT_TEE, t->writer);
}

/* The slot of re-pitching tee t: the latest free one (tee_latest); none: TEE_SLOT. */
static Status tee_slot(Emit *e, ETee *t)
{
    int32_t p, sl;
    int64_t before;
    if (!tee_latest(e, t, INT64_MAX, &p, &sl, &before)) {
        t->failed = TEE_SLOT;
        return ST_OK;
    }
    return tee_take(e, t, p, sl, before);
}

bool emit_tee_yield(Emit *e, uint32_t k, int32_t phase, int32_t slot)
{
    ESlotUse u = emit_slot_use(e, k, phase, slot);
    for (size_t i = 0; u.kind == SLOT_TEE && i < e->n_tees; i++) {
        ETee *t = &e->tees[i];
        int32_t p, sl;
        int64_t before;
        if (t->writer != u.block || !t->move || t->failed || t->phase != phase ||
            t->slot != slot || e->copies[t->to].core != k)
            continue;
        /* an earlier one only: what reads the copy after the P06 (a gather's P06, planned
         * after it, emit_plan.c copy_ready) still does */
        if (!tee_latest(e, t, emit_slot_when(phase, slot), &p, &sl, &before))
            return false;
        emit_slot_free(e, k, phase, slot);
        return tee_take(e, t, p, sl, before) == ST_OK;
    }
    return false;
}

Status emit_tee_slots(Emit *e)
{
    Status st = ST_OK;
    for (size_t i = 0; i < e->n_tees && st == ST_OK; i++)
        if (e->tees[i].move && !e->tees[i].failed)
            st = tee_slot(e, &e->tees[i]);
    return st;
}

Status emit_tee_prims(Emit *e)
{
    for (size_t i = 0; i < e->n_tees; i++) {
        const ETee *t = &e->tees[i];
        if (!t->move || t->failed)
            continue;
        const ECopy *f = &e->copies[t->from], *to = &e->copies[t->to];
        Taskir__Asm__P06 *p = emit_p06_slot(e, to->core, t->phase, t->slot,
                                            e->g->blocks[f->block]->id);
        if (!p)
            return ST_RUNTIME;
        emit_p06_rows(p, f->feat.prec, f->feat.c, f->feat.ny * f->feat.nx,
                      emit_copy_addr(e, f), f->feat.words, emit_copy_addr(e, to) + t->off,
                      t->words);
        p->length_out = (int32_t)to->feat.c; /* re-pitched: the lanes past f's written 0 */
    }
    return e->d->oom ? ST_RUNTIME : ST_OK;
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
                          "layouts (%s and %s, %lld and %lld pixels): its primitive writes one "
                          "area, which a P06 copies or re-pitches only in the same precision "
                          "and pixels", fid, sid, c->name,
                          pr_info(e->copies[t->from].feat.prec)->name,
                          pr_info(e->copies[t->to].feat.prec)->name,
                          (long long)(e->copies[t->from].feat.ny * e->copies[t->from].feat.nx),
                          (long long)(e->copies[t->to].feat.ny * e->copies[t->to].feat.nx));
    if (why == TEE_SLOT)
        return diag_block(e->d, ST_LOGIC, "emit.slot", b,
                          "writes blocks %d and %d, both stored on its core %s, in other "
                          "pitches: a P06 re-pitching its result into the second needs a free "
                          "Soma slot after it and before that block's first reader, and there "
                          "is none", fid, sid, c->name);
    if (why == TEE_REMOTE)
        return diag_block(e->d, ST_LOGIC, "emit.layout", b,
                          "writes block %d on its core %s, which a block on another core "
                          "reads: its primitive writes block %d, and a tee does not feed the "
                          "router yet", sid, c->name, fid);
    return diag_block(e->d, ST_LOGIC, "emit.layout", b,
                      "writes blocks %d and %d, both stored on its core %s: its primitive "
                      "writes one area, which the two share only when both hold all of its "
                      "result and nothing else writes them", fid, sid, c->name);
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
        ELocalOuts it = emit_local_outs(w, k);
        while (emit_local_outs_next(e, &it)) {
            uint32_t s = it.s, ep = bu->out_edges[it.j];
            if (s == first)
                continue;
            if (first < 0) {
                first = s;
                continue;
            }
            if (emit_dup_shares(e, s, (uint32_t)first, k))
                continue; /* one area holds both (emit_dup.c) */
            /* a second storage on its core: a tee when both hold all of the result, or the
             * second a part of its own of whole pixels */
            EBox part;
            ECopy *f = NULL, *t = whole_copy(e, w, ep, k);
            bool is_part = !t && (t = part_copy(e, w, ep, k, &part)) != NULL;
            for (uint32_t i = 0; i < bu->n_out_edges && !f; i++)
                if (graph_block_pos(e->g, e->g->edges[bu->out_edges[i]]->dst) == first)
                    f = whole_copy(e, w, bu->out_edges[i], k);
            if (!f || !t || emit_tee_of(e, w, s))
                continue; /* emit_prim.c refuses it (emit_tee_refuse) */
            Status st = plan_tee(e, w, f, t, is_part ? &part : NULL);
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
