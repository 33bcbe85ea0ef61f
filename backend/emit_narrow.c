/* emit_narrow.c: an Axon primitive whose result goes into an 8-bit map on its core, or into
 * an int32 map of a larger pitch than it writes (docs/backend.md, "Inserted primitives").
 * Every Axon primitive writes int32 words, and a P02 / P03 / P43 / P83 the pitch it reads,
 * so it writes an int32 area of its own instead (its result in the pitch it writes: layout.h's
 * layout_output_unit), and an inserted P06 in Soma1 of the same phase narrows or re-pitches
 * that area into the map, row by row (a pixel a row: length_in the int32 pitch, length_out
 * the map's, the lanes past the area's 0; no shift, so each value is clipped to the map's
 * range). Soma1 taken: Soma2 of that phase, when nothing reads the map on
 * its core before and the router sends none of it in that phase. The int32 area lives in
 * that phase only, as the mapper counts it (layout_work_bytes, taskir/layout.h), but for a
 * writer whose router sends copies of the area's pitch from it (emit_narrow_send.c: to the
 * last phase it so sends in).
 * A view only OUTPUTs read (emit_rearr.c: a result reshaped or transposed on its way to a
 * model output) is narrowed so too, in the writer's map's layout.
 * The graph stores a result as it is (a storage block's precision does not clamp what a
 * wider block writes, docs/semantics.md), where the P06 clips it: so the writer's values
 * (exact.h's interval analysis) must lie inside the map's precision, else emit.prec.
 */
#include "backend/emit_internal.h"

#include "taskir/diag_block.h"
#include "taskir/exact.h"
#include "taskir/layout.h"


/* The storage block compute block w writes on its core k, as emit_prim.c's output operand
 * takes it (the first out edge whose storage has a copy there), its edge into *eid; -1. */
static long written_here(const Emit *e, uint32_t w, uint32_t k, int32_t *eid)
{
    ELocalOuts it = emit_local_outs(w, k);
    if (!emit_local_outs_next(e, &it))
        return -1;
    *eid = it.ed->id;
    return it.s;
}

/* Whether Soma slot (p, sl) of core k comes before every reader on k of storage block s's
 * copy there and, in phase p after the router (Soma2), whether the router of k sends none of
 * s then. */
static bool before_block_uses(Emit *e, uint32_t s, uint32_t k, int32_t p, int32_t sl)
{
    const BlockUses *bu = &e->uses.blocks[s];
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        uint32_t ep = bu->out_edges[j];
        long r = graph_block_pos(e->g, e->g->edges[ep]->dst);
        if (r >= 0 && e->core_of[r] == k && e->g->blocks[r]->type != BT_OUTPUT &&
            emit_slot_when(e->phase_of[r], e->slot_of[r]) <= emit_slot_when(p, sl))
            return false;
        uint32_t di = e->dict_of_edge[ep];
        const MapDict *dict = di == EMIT_NONE ? NULL : &e->m->edges[di];
        for (uint32_t c = 0; sl == MAP_PI_SOMA2 && dict && c < dict->n_coords; c++)
            if (dict->coords[c].pi_index == MAP_PI_ROUTER_SEND && dict->coords[c].phase == p &&
                emit_core(e, &dict->coords[c]) == k)
                return false;
    }
    return true;
}

/* The same for every storage block writer w writes on copy cp's core whose copy shares cp's
 * area (cp's own, and its tees', emit_tee.c). */
static bool before_uses(Emit *e, uint32_t w, const ECopy *cp, int32_t p, int32_t sl)
{
    ELocalOuts it = emit_local_outs(w, cp->core);
    for (const ECopy *o; (o = emit_local_outs_next(e, &it));)
        if ((o == cp || (o->req == cp->req && o->alias_of == EMIT_NONE)) &&
            !before_block_uses(e, it.s, cp->core, p, sl))
            return false;
    return true;
}

/* Records the narrowing of writer w into copy cp (index ci): planned, or failed (phase -1,
 * refused by emit_narrow_refuse after the memory plan, whose refusal comes first). */
static Status plan_narrow(Emit *e, uint32_t w, uint32_t ci, const EBox *box, ExactRange r)
{
    const ECopy *cp = &e->copies[ci];
    const Block *b = e->g->blocks[w];
    ENarrow n = {w, ci, *box, {0}, -1, 0, EMIT_NONE, r.lo, r.hi, -1};
    ExactRange m = exact_prec_range(cp->feat.prec);
    int32_t p = e->phase_of[w];
    for (int32_t sl = MAP_PI_SOMA1;
         sl <= MAP_PI_SOMA2 && n.phase < 0 && exact_inside(r, m.lo, m.hi);
         sl += MAP_PI_SOMA2 - MAP_PI_SOMA1)
        if (!emit_soma_taken(e, cp->core, p, sl) && before_uses(e, w, cp, p, sl)) {
            n.phase = p;
            n.slot = sl;
        }
    if (n.phase >= 0) {
        int unit = layout_output_unit(e->g, &e->uses, w, PR_INT_32);
        if (!emit_feat(PR_INT_32, box->n[0], box->n[1], box->n[2], unit, &n.feat))
            return diag_block(e->d, ST_LOGIC, "emit.layout", b,
                              "writes int32 rows of a pitch of %d channels, which is no layout",
                              unit);
        n.last = emit_narrow_send_last(e, w, p); /* p, but while a copy is sent from it */
        n.req = emit_request(e, cp->core, n.feat.words, n.feat.align, p, n.last, ALLOC_DATA,
                             b->id);
        if (n.req == EMIT_NONE)
            return ST_RUNTIME;
        Status st = emit_slot_take(e, cp->core, p, n.slot, SLOT_NARROW, w);
        if (st != ST_OK)
            return st;
    }
    ENarrow *nn = emit_grow(e, e->narrows, &e->cap_narrows, e->n_narrows, sizeof *e->narrows);
    if (!nn)
        return ST_RUNTIME;
    e->narrows = nn;
    e->narrows[e->n_narrows++] = n;
    return ST_OK;
}

Status emit_narrows(Emit *e)
{
    ExactInfo x = {0};
    Status st = ST_OK;
    for (uint32_t w = 0; w < e->g->n_blocks && st == ST_OK; w++) {
        const Block *b = e->g->blocks[w];
        uint32_t k = e->core_of[w];
        if (bt_info(b->type)->kind != BK_COMPUTE || k == EMIT_NONE || e->outs[w].used ||
            !(layout_use_of(b->type, false) & (LAYOUT_AXON | LAYOUT_GROUP)))
            continue;
        int32_t eid = -1;
        long s = written_here(e, w, k, &eid);
        ECopy *cp = s >= 0 ? emit_copy_on(e, (uint32_t)s, k) : NULL;
        EBox box; /* a view holds the writer's map as the writer lays it out: its box */
        if (!cp || cp->planes || cp->image ||
            !emit_iface_box(e, cp->view ? w : (uint32_t)s, !cp->view, eid, &box))
            continue; /* emit_prim.c writes it, or refuses it */
        if (!cp->view) /* several edges of its result into s, each where it is: all of it */
            emit_writes_pieces(e, w, (uint32_t)s, &box);
        int64_t unit = layout_output_unit(e->g, &e->uses, w, PR_INT_32);
        bool repitch = cp->feat.prec == PR_INT_32 && unit > 0 &&
                       cp->feat.c > (box.n[2] + unit - 1) / unit * unit; /* more lanes */
        if (cp->feat.prec != PR_INT_8 && cp->feat.prec != PR_UINT_8 && !repitch)
            continue;
        if (!x.blocks && (st = exact_analyse(e->g, &x, e->d)) != ST_OK)
            break;
        st = plan_narrow(e, w, (uint32_t)(cp - e->copies), &box, x.blocks[w].out);
    }
    exact_finish(&x);
    return st;
}

const ENarrow *emit_narrow_of(const Emit *e, uint32_t pos)
{
    for (size_t i = 0; i < e->n_narrows; i++)
        if (e->narrows[i].writer == pos)
            return &e->narrows[i];
    return NULL;
}

Status emit_narrow_p06(Emit *e, const ENarrow *n, int64_t o_addr, int64_t o_words,
                       int64_t *addr, int64_t *words)
{
    const ECopy *cp = &e->copies[n->copy];
    const Block *b = e->g->blocks[n->writer];
    ExactRange m = exact_prec_range(cp->feat.prec);
    if (!exact_inside((ExactRange){n->lo, n->hi}, m.lo, m.hi))
        return diag_block(e->d, ST_LOGIC, "emit.prec", b,
                          "writes values of %lld .. %lld into block %d's %s map: its primitive "
                          "writes int32, which a P06 would clip to %lld .. %lld where the graph "
                          "stores them as they are", (long long)n->lo, (long long)n->hi,
                          e->g->blocks[cp->block]->id, pr_info(cp->feat.prec)->name,
                          (long long)m.lo, (long long)m.hi);
    if (n->phase < 0)
        return diag_block(e->d, ST_LOGIC, "emit.slot", b,
                          "writes block %d's %s map: its primitive writes int32 values, which "
                          "a P06 narrows in Soma1 (or Soma2) of its phase %d on core %s, before "
                          "that map is read or sent, and neither slot is free then",
                          e->g->blocks[cp->block]->id, pr_info(cp->feat.prec)->name,
                          e->phase_of[n->writer], e->cores[cp->core].name);
    Taskir__Asm__P06 *p = emit_p06_slot(e, cp->core, n->phase, n->slot, b->id);
    if (!p)
        return ST_RUNTIME;
    *addr = e->cores[cp->core].addr[n->req];
    *words = n->feat.words;
    emit_p06_rows(p, PR_INT_32, n->feat.c, n->box.n[0] * n->box.n[1], *addr, *words, o_addr,
                  o_words);
    p->out_precision = pr_info(cp->feat.prec)->wire;
    p->length_out = (int32_t)cp->feat.c;
    return e->d->oom ? ST_RUNTIME : ST_OK;
}
