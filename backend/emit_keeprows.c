/* emit_keeprows.c: the rows of a spread copy that its writer on the core sends from, kept
 * alive to the writer's last send (docs/backend.md "Transfers": a writer sends from its
 * copies on its core). A compute block that writes its result straight into a copy on its
 * core sends it to other cores from there, so the copy lives to the block's last send
 * (emit_plan.c, sends_from_copies), as the output buffer the mapper counts over those phases
 * would. A spread copy (emit_spread.c) that other writers fill too is larger than that
 * buffer: when the block's rows are whole rows at its start or its end, only those words
 * live on, as a part of the copy's area chained to the rest (alloc.h, AllocReq.next: the
 * parts of one area, each with a lifetime of its own).
 * test_diff_ops/broadcast_div_case_1_variant_2-4: the P83 op/negmag1/x1/y1 on core (11,6)
 * writes rows 27..52 of op/bit6/sub/in1/x1/copy1 (53 x 9 int32 pixels of 32 words, 15264
 * words, alive in phases 3..6) and sends them in phases 7 and 8 too: kept whole to phase 8,
 * 34344 words were live in phase 8 against 32768; 7488 of them so. */
#include "backend/emit_internal.h"

#include "backend/emit_layout.h"

bool emit_keep_rows(Emit *e, ECopy *cp, uint32_t pos, int32_t first, int32_t last)
{
    ECore *c = &e->cores[cp->core];
    const BlockUses *bu = &e->uses.blocks[pos];
    if (!cp->spread || cp->req == EMIT_NONE || c->reqs[cp->req].next || cp->req_off ||
        cp->view || cp->planes || cp->unit)
        return false;
    for (size_t i = 0; i < c->n_reqs; i++)
        if (c->reqs[i].next == (size_t)cp->req + 1)
            return false;
    int64_t y0 = -1, y1 = -1; /* the rows pos writes of cp */
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        const Edge *ed = e->g->edges[bu->out_edges[j]];
        EBox b, m;
        if (graph_block_pos(e->g, ed->dst) != (long)cp->block ||
            !emit_iface_box(e, cp->block, true, ed->id, &b) || !emit_box_meet(&b, &cp->box, &m))
            continue;
        if (m.lo[1] != cp->box.lo[1] || m.n[1] != cp->box.n[1] || m.lo[2] != cp->box.lo[2] ||
            m.n[2] != cp->box.n[2] || y0 >= 0)
            return false; /* not whole rows of it, or twice */
        y0 = m.lo[0] - cp->box.lo[0];
        y1 = y0 + m.n[0];
    }
    if (y0 < 0 || (y0 > 0 && y1 < cp->box.n[0]) || (y0 == 0 && y1 == cp->box.n[0]))
        return false; /* none, rows in the middle, or the whole copy */
    AllocReq r = c->reqs[cp->req];
    int64_t cut = emit_feat_offset(&cp->feat, y0 > 0 ? y0 : y1, 0);
    if (cut <= 0 || cut >= r.words || cut % r.align)
        return false;
    /* the first part stays the copy's request (its address is the copy's) */
    bool tail = y0 > 0; /* the block's rows are the second part */
    uint32_t n = emit_request(e, cp->core, r.words - cut, r.align, tail ? first : r.first,
                              tail ? last : r.last, r.kind, r.tag);
    if (n == EMIT_NONE)
        return false;
    AllocReq *h = &c->reqs[cp->req];
    h->words = cut;
    h->next = (size_t)n + 1;
    if (!tail) {
        h->first = first;
        h->last = last;
    }
    return true;
}
