/* emit_tee.c: a result that goes into two storage blocks on its writer's core (docs/backend.md,
 * "Inserted primitives"). A primitive writes one output area: the copy of the first storage
 * block its result goes to on its core. Every other one (a tee) that holds all of the result
 * in the same layout (the same pixels, pitch and precision: an edge without steps, or a view
 * of the writer's map, emit_rearr.c), and that nothing else writes, holds the same words as
 * the first: it shares the first's area, alive over both lifetimes, so no P06 copies it and
 * no Soma slot is needed (the mapper keeps none). Another layout, or a copy that a block on
 * another core reads, is refused (emit_tee_refuse).
 */
#include "backend/emit_internal.h"

#include "taskir/diag_block.h"


/* The copy on core k of the storage edge position ep of writer w goes to, when that copy
 * holds all of w's result as w writes it and nothing else writes it; NULL otherwise. */
static ECopy *whole_copy(const Emit *e, uint32_t w, uint32_t ep, uint32_t k)
{
    const Edge *ed = e->g->edges[ep];
    long s = graph_block_pos(e->g, ed->dst);
    ECopy *cp = s >= 0 ? emit_copy_on(e, (uint32_t)s, k) : NULL;
    if (!cp || cp->planes || cp->received || cp->alias_of != EMIT_NONE || cp->image ||
        cp->req == EMIT_NONE || e->uses.blocks[s].n_in_edges != 1 || (ed->n_re && !cp->view) ||
        !emit_whole_iface(e, w, false, ed->id) || !emit_whole_iface(e, (uint32_t)s, true, ed->id))
        return NULL;
    return cp;
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

/* Records the tee of writer w from copy f into copy t: t sharing f's area, or failed (why:
 * TEE_LAYOUT, TEE_REMOTE; refused by emit_tee_refuse after the memory plan, whose refusal
 * comes first). */
static Status record(Emit *e, uint32_t w, ECopy *f, ECopy *t, int32_t why)
{
    ETee *nt = emit_grow(e, e->tees, &e->cap_tees, e->n_tees, sizeof *e->tees);
    if (!nt)
        return ST_RUNTIME;
    e->tees = nt;
    e->tees[e->n_tees++] = (ETee){w, (uint32_t)(f - e->copies), (uint32_t)(t - e->copies), why};
    if (!why) { /* one area, alive over both lifetimes */
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

/* Plans the tee of writer w from copy f into copy t. */
static Status plan_tee(Emit *e, uint32_t w, ECopy *f, ECopy *t)
{
    if (f->feat.prec != t->feat.prec || f->feat.c != t->feat.c ||
        f->feat.ny * f->feat.nx != t->feat.ny * t->feat.nx)
        return record(e, w, f, t, TEE_LAYOUT);
    if (read_remote(e, t))
        return record(e, w, f, t, TEE_REMOTE);
    return record(e, w, f, t, 0);
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
                          "area, and the two share it only in the same layout", fid, sid,
                          c->name, (long long)e->copies[t->from].feat.c,
                          (long long)e->copies[t->to].feat.c);
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
