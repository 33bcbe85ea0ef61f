/* emit_merge_wrap.c: a copy over the receive area whose column slices are model input
 * slices and one slice from another core (docs/backend.md, "Gathering on a core"; a
 * concatenation along x of inputs around a computed map). emit_merge.c merges slices in
 * k - 1 P06s; here one does, whatever the number of input slices, since a dynamic block may
 * write a row of an input slice anywhere. The copy's rows, W pixels, the received slice R
 * of w columns from column r0: in memory from R's row 0 on, the copy is H rows of R's row i
 * followed by the W - w pixels after it (columns r0 + w .. W - 1 of row i, then 0 .. r0 - 1
 * of row i + 1). So R lands compact in the receive area (x1, rows of w pixels), the dynamic
 * blocks write those W - w pixels of each row compact into an area of their own (ciso) and
 * row 0's first r0 pixels in place, and one P06 writes rows of x1 then ciso (INT_32 words as
 * they are) into the copy from column r0 of row 0: its last row runs r0 pixels past the
 * copy's end, which the copy's area holds. The P06 takes the earliest free Soma slot once R
 * is in place, before every reader of the copy on its core; where that cannot be (no slot,
 * a reader before it, R relayed or landing over several phases, a pitch whose rows are not
 * whole 16-byte rows, an input that is staged, reordered or a view) the copy is left to
 * emit_merge.c's refusal as before.
 */
#include "backend/emit_internal.h"

#include <string.h>

/* Whether edge ed (from socket block w into copy cp's block, box part there) is written by
 * plain dynamic blocks, a row at a time (emit_io.c's last case). */
static bool plain_input(const Emit *e, uint32_t ci, const Edge *ed, long w, const EBox *part)
{
    EBox sbox;
    const Block *io = e->g->blocks[w];
    if (io->type != BT_INPUT || emit_stage_of(e, ci) || emit_socket_fr(io) ||
        !emit_keeps_order(e, ed) || !emit_iface_box(e, (uint32_t)w, false, ed->id, &sbox))
        return false;
    return sbox.n[0] == part->n[0] && sbox.n[1] == part->n[1] && sbox.n[2] == part->n[2];
}

/* The slices of copy ci into m, left to right, one of them (m->wrap_r) received whole in
 * one phase from a compute block on another core, the others plain model input slices;
 * false when they are not so. */
static bool wrap_slices(Emit *e, uint32_t ci, EMerge *m)
{
    const ECopy *cp = &e->copies[ci];
    const BlockUses *bu = &e->uses.blocks[cp->block];
    m->n = 0;
    m->wrap_r = -1;
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const Edge *ed = e->g->edges[bu->in_edges[j]];
        long w = graph_block_pos(e->g, ed->src);
        bool skip;
        if (w < 0 || !emit_keeps_order(e, ed))
            return false;
        EMergePiece *pc = emit_merge_add(e, cp, ed, (uint32_t)w, m, &skip);
        if (skip)
            continue;
        if (!pc)
            return false;
        EBox part = pc->box;
        if (plain_input(e, ci, ed, w, &part))
            continue;
        bool relay = false;
        if (bt_info(e->g->blocks[w]->type)->kind != BK_COMPUTE ||
            e->core_of[w] == cp->core || m->wrap_r >= 0)
            return false;
        pc->remote = true;
        pc->nph = emit_merge_arrivals(e, ed->id, cp->core, pc->ph, MERGE_BANDS, &relay);
        if (pc->nph != 1 || relay ||
            !emit_feat(cp->feat.prec, part.n[0], part.n[1], part.n[2],
                       emit_storage_unit(e, cp->block), &pc->feat) ||
            pc->feat.c != cp->feat.c)
            return false;
        pc->ready = emit_slot_when(pc->ph[0], MAP_PI_ROUTER_RECIEVE);
        m->wrap_r = m->n - 1;
    }
    if (m->n < 2 || m->wrap_r < 0)
        return false;
    int64_t x = cp->box.lo[1];
    for (int a = 0; a < m->n; a++) { /* left to right, side by side */
        int at = a;
        for (int b = a + 1; b < m->n; b++)
            if (m->piece[b].box.lo[1] < m->piece[at].box.lo[1])
                at = b;
        EMergePiece t = m->piece[a];
        m->piece[a] = m->piece[at];
        m->piece[at] = t;
        if (m->piece[a].box.lo[1] != x)
            return false;
        x += m->piece[a].box.n[1];
    }
    for (int a = 0; a < m->n; a++)
        if (m->piece[a].remote)
            m->wrap_r = a;
    return x == cp->box.lo[1] + cp->box.n[1];
}

Status emit_merge_wrap(Emit *e, uint32_t ci, EMerge *m, bool *kept)
{
    ECopy *cp = &e->copies[ci];
    ECore *c = &e->cores[cp->core];
    *kept = false;
    memset(m, 0, sizeof *m);
    if (!wrap_slices(e, ci, m))
        return ST_OK;
    const EMergePiece *r = &m->piece[m->wrap_r];
    int64_t pw = emit_feat_pixel_words(&cp->feat), cw = cp->box.n[1], rw = r->box.n[1];
    int64_t r0 = r->box.lo[1] - cp->box.lo[1], rows = cp->box.n[0];
    if ((rw * pw) % 4 || ((cw - rw) * pw) % 4 || r->feat.words != rows * rw * pw ||
        !emit_slot_earliest(e, cp->core, r->ph[0], cp->last, r->ready, &m->phase[0],
                            &m->slot[0]) ||
        !emit_read_after(e, cp, emit_slot_when(m->phase[0], m->slot[0])))
        return ST_OK; /* a P06 row is whole 16-byte rows */
    int32_t tag = e->g->blocks[cp->block]->id, align = cp->feat.align < 2 ? 2 : cp->feat.align;
    EMergePiece *rp = &m->piece[m->wrap_r];
    rp->land = emit_request(e, cp->core, r->feat.words, align, r->ph[0], m->phase[0],
                            ALLOC_RECV, tag);
    m->wrap_area = rp->land == EMIT_NONE
                       ? EMIT_NONE
                       : emit_request(e, cp->core, rows * (cw - rw) * pw, align, cp->first,
                                      m->phase[0], ALLOC_DATA, tag);
    if (m->wrap_area == EMIT_NONE)
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    Status st = emit_slot_take(e, cp->core, m->phase[0], m->slot[0], SLOT_MERGE, cp->block);
    if (st != ST_OK)
        return st;
    AllocReq *q = &c->reqs[cp->req]; /* in the data banks, r0 pixels more for the last row */
    q->kind = ALLOC_DATA;
    q->words += r0 * pw;
    cp->movable = false;
    m->copy = ci;
    m->wrap = true;
    *kept = true;
    return ST_OK;
}

bool emit_merge_wrap_addr(const Emit *e, const ECopy *cp, const EBox *box, int64_t *addr)
{
    const EMerge *m = NULL;
    for (size_t i = 0; i < e->n_merges && !m; i++) {
        const ECopy *mc = &e->copies[e->merges[i].copy];
        if (e->merges[i].wrap && mc->block == cp->block && mc->core == cp->core)
            m = &e->merges[i];
    }
    if (!m || box->n[0] != 1)
        return false;
    const ECopy *mc = &e->copies[m->copy];
    const EMergePiece *r = &m->piece[m->wrap_r];
    int64_t pw = emit_feat_pixel_words(&mc->feat), cw = mc->box.n[1], rw = r->box.n[1];
    int64_t r0 = r->box.lo[1] - mc->box.lo[1], after = cw - r0 - rw;
    int64_t y = box->lo[0] - mc->box.lo[0], x = box->lo[1] - mc->box.lo[1];
    int64_t area = e->cores[mc->core].addr[m->wrap_area];
    if (x >= r0 + rw) /* after R: the start of ciso row y */
        *addr = area + (y * (cw - rw) + x - r0 - rw) * pw;
    else if (y == 0) /* row 0 before R: in place */
        *addr = emit_copy_addr(e, mc) + x * pw;
    else /* before R: the end of ciso row y - 1 */
        *addr = area + ((y - 1) * (cw - rw) + after + x) * pw;
    return true;
}

Status emit_merge_wrap_prim(Emit *e, const EMerge *m)
{
    const ECopy *cp = &e->copies[m->copy];
    const ECore *c = &e->cores[cp->core];
    const EMergePiece *r = &m->piece[m->wrap_r];
    int64_t pw = emit_feat_pixel_words(&cp->feat), cw = cp->box.n[1], rw = r->box.n[1];
    int64_t r0 = r->box.lo[1] - cp->box.lo[1];
    return emit_join_rows(e, cp, m->phase[0], m->slot[0], cp->box.n[0], c->addr[r->land],
                          rw * pw, c->addr[m->wrap_area], (cw - rw) * pw,
                          emit_copy_addr(e, cp) + r0 * pw);
}
