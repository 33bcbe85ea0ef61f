/* emit_soma_over.c: a P05 / P25 writing its output buffer over the copy it reads
 * (docs/backend.md "Memory plan"), tried on a core whose plan fits none of the other ways.
 *
 * A CCMPB / CCMPS of a 1 x 1 window, stride 1 and no padding writes output pixel i from input
 * pixel i alone, at word i * R_out where it reads word i * R_in; when R_out <= R_in it never
 * writes a word of a pixel it has not read yet (and the Soma reads all its inputs before it
 * writes, "What every Soma primitive shares"). So when the copy it reads dies with it (it is
 * that copy's only reader, nothing sends from it, no other copy shares its area) its output
 * buffer (make_outs in emit_plan.c: a result that only leaves by the router, sent over later
 * phases) can take the copy's words: the copy's area lives on to the buffer's last send and
 * the buffer's own area is dropped. test_diff_ops/broadcast_greater_case_0_variant_1: an
 * int32 CADD's result of 8256 words that a P05 on Soma1 of the same phase clips and sends
 * to another core over three phases, beside a gathered area of 16512 words that lives the
 * whole step (a static input lies in it): 33024 words against 32768, 24768 so.
 */
#include "backend/emit_internal.h"

/* Whether compute block pos (on core k) writes pixel i from its input's pixel i alone. */
static bool pixelwise(const Emit *e, uint32_t pos)
{
    const Block *b = e->g->blocks[pos];
    int32_t d[TIR_NDIMS];
    if (b->type != BT_CCMPB && b->type != BT_CCMPS)
        return false;
    blk_eff_shape(b, d);
    return d[D_KX] <= 1 && d[D_KY] <= 1 && blk_attr(b, AT_STRIDE_X) <= 1 &&
           blk_attr(b, AT_STRIDE_Y) <= 1 && !blk_attr(b, AT_PAD_UP) &&
           !blk_attr(b, AT_PAD_DOWN) && !blk_attr(b, AT_PAD_LEFT) && !blk_attr(b, AT_PAD_RIGHT);
}

/* The copy on core k that block pos reads, when it is the one reader of that storage block
 * and reads all of the copy through one edge without steps; NULL otherwise. */
static ECopy *sole_input(const Emit *e, uint32_t pos, uint32_t k)
{
    const BlockUses *bu = &e->uses.blocks[pos];
    if (bu->n_in_edges != 1)
        return NULL;
    const Edge *ed = e->g->edges[bu->in_edges[0]];
    long s = graph_block_pos(e->g, ed->src);
    if (s < 0 || ed->n_re || e->uses.blocks[s].n_out_edges != 1 ||
        !emit_whole_iface(e, (uint32_t)s, false, ed->id))
        return NULL;
    ECopy *cp = emit_copy_on(e, (uint32_t)s, k);
    int32_t cd[TIR_CDIMS];
    if (!cp || !blk_cluster_dims(e->g->blocks[s], false, 0, cd))
        return NULL;
    int64_t n[3] = {cd[D_Y] > 0 ? cd[D_Y] : 1, cd[D_X] > 0 ? cd[D_X] : 1,
                    cd[D_F] > 0 ? cd[D_F] : 1};
    for (int i = 0; i < 3; i++)
        if (cp->box.lo[i] != 0 || cp->box.n[i] != n[i])
            return NULL;
    return cp;
}

/* Puts block pos's output buffer over the copy it reads, when it may; whether it did. */
static bool over_input(Emit *e, uint32_t pos, uint32_t k)
{
    EOut *o = &e->outs[pos];
    ECore *c = &e->cores[k];
    if (!o->used || o->core != k || o->over || o->aliased || o->gather || o->req == EMIT_NONE ||
        c->reqs[o->req].words == 0 || !pixelwise(e, pos))
        return false;
    ECopy *cp = sole_input(e, pos, k);
    if (!cp || cp->is_static || cp->image || cp->view || cp->planes || cp->spread ||
        cp->received || cp->alias_of != EMIT_NONE || cp->req_off != 0 ||
        cp->req == EMIT_NONE || c->reqs[cp->req].words == 0 ||
        c->reqs[cp->req].kind != ALLOC_DATA)
        return false;
    for (size_t j = 0; j < e->n_copies; j++) /* no other copy shares its area (a tee) */
        if (&e->copies[j] != cp && e->copies[j].core == k && e->copies[j].req == cp->req)
            return false;
    AllocReq *r = &c->reqs[cp->req], *b = &c->reqs[o->req];
    if (cp->feat.ny * cp->feat.nx != o->feat.ny * o->feat.nx ||
        emit_feat_pixel_words(&o->feat) > emit_feat_pixel_words(&cp->feat) ||
        o->feat.words > r->words || r->last > e->phase_of[pos] || r->first > b->first)
        return false;
    r->last = b->last;
    r->align = b->align > r->align ? b->align : r->align;
    emit_request_drop(e, k, o->req);
    o->req = cp->req;
    o->over = true;
    return true;
}

bool emit_soma_over(Emit *e, uint32_t k)
{
    bool any = false;
    for (uint32_t pos = 0; pos < e->g->n_blocks; pos++)
        if (e->core_of[pos] == k)
            any |= over_input(e, pos, k);
    return any;
}
