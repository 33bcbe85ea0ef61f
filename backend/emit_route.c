/* emit_route.c: the router (docs/backend.md, "The code generator", "Transfers"). Every edge
 * the Mapping routes between cores (ROUTER_SEND at a core, ROUTER_RECIEVE at another, in a
 * phase) becomes packets: the sender reads the part of the data the receiver's copy holds,
 * as runs of whole pixels contiguous in both memories, and sends each run under one
 * MULTI_USE header (pack_per_router_head packets of 8 bytes; destination_offset and
 * destination_const 0: packet k lands at unit A + k) into the receiver's receive area (its
 * Addr_Din_base 0x400: the area's start 0x8400 counted from MEM2); the receiver counts one end
 * mark a run. A sender is the writing block's core (from the writer's output area) or, in a
 * multicast chain, a destination that received the data in an earlier phase (from its copy).
 * All of a transfer goes in the first phase the Mapping gives it (a received copy lives in
 * the receive area from then on, so it fits the area's budget whole), but into a copy the
 * Mapping spreads over several phases: each phase sends its rows (emit_spread.c).
 *
 * One P09 per core and phase: its sends read one contiguous area (Addr_Dout_base, in header
 * order), so the runs a core sends in a phase must follow each other in its memory; its
 * receive area is the whole receive area. Lengths are stored minus one (CHIP.md §5): send
 * area in 16-byte units, receive area in 8-byte units, Send_number / pack_per_router_head in
 * packets, Receive_number in end marks; Addr_Rhead_base and Addr_Din_base count words from
 * MEM2 (0x8000), as the existing tools and the executor read them (docs/backend.md "The
 * router").
 */
#include "backend/emit_internal.h"

#include "backend/core_mem.h"
#include "taskir/diag_block.h"
#include "taskir/lanes.h"
#include "taskir/lanes_exact.h"

#include <stdlib.h>
#include <string.h>

#define SET(m, f, v) ((m)->has_##f = 1, (m)->f = (v))

enum { HEADER_WORDS = 2, RHEAD_WORDS = ASM_MEM2_RECV - ASM_MEM2_RHEAD, MAX_PACKETS = 4096 };

/* A feature area: where point (y, x) of box of canonical coordinates lives. */
typedef struct ELoc {
    const EmitFeat *feat;
    EBox box;               /* the coordinates the area covers */
    int64_t base;           /* the word of box's origin */
    int64_t row;            /* words from one row to the next */
} ELoc;

static bool same_extents(const EBox *a, const EBox *b)
{
    return a->n[0] == b->n[0] && a->n[1] == b->n[1] && a->n[2] == b->n[2];
}

static int64_t loc_addr(const ELoc *l, int64_t y, int64_t x)
{
    return l->base + (y - l->box.lo[0]) * l->row + (x - l->box.lo[1]) * emit_feat_pixel_words(l->feat);
}

static Status add_send(Emit *e, uint32_t k, int32_t p, const ESend *s)
{
    EPhase *ph = &e->cores[k].ph[p];
    ESend *ns = emit_grow(e, ph->sends, &ph->cap_sends, ph->n_sends, sizeof *ph->sends);
    if (!ns)
        return ST_RUNTIME;
    ph->sends = ns;
    ph->sends[ph->n_sends++] = *s;
    return ST_OK;
}

/* Whether copy cp of storage s holds all of what writer w writes through edge le, every
 * pixel in the writer's order, through steps that keep it (emit_lanes_straight: a 1 x 92 map
 * kept as 92 x 1, as the division's `op/mag1` writes it), as the whole copy: the writer's
 * pixel i is the copy's pixel i. */
static bool linear_copy(const Emit *e, const Edge *le, uint32_t w, uint32_t s, const ECopy *cp,
                        const EBox *lbox)
{
    return emit_whole_iface(e, w, false, le->id) && emit_whole_iface(e, s, true, le->id) &&
           emit_lanes_straight(e, le, w, lbox) && !memcmp(lbox, &cp->box, sizeof *lbox) &&
           !cp->view && !cp->planes;
}

/* ST_OK when copy cp, which writer b's router sends edge ed from in phase p, is alive then;
 * else the refusal. */
static Status alive(Emit *e, const ECopy *cp, const Block *b, const Edge *ed, int32_t p,
                    const ECore *c)
{
    if (p >= cp->first && p <= cp->last)
        return ST_OK;
    /* the writer's own rows of a spread copy, kept as a part of its area of their own
     * (emit_keeprows.c): the writer sends those only */
    for (size_t n = cp->req != EMIT_NONE ? c->reqs[cp->req].next : 0; n; n = c->reqs[n - 1].next)
        if (alloc_lives_in(&c->reqs[n - 1], p))
            return ST_OK;
    return diag_block(e->d, ST_LOGIC, "emit.route", b, "sends edge %d in phase %d, when its "
                      "copy of block %d on %s is no longer alive (phases %d..%d)", ed->id, p,
                      e->g->blocks[cp->block]->id, c->name, cp->first, cp->last);
}

/* Edge ed's source l in copy cp of writer w's core, moved to the same words of the send area
 * holding a second copy of cp for ed's storage when there is one in that phase
 * (emit_senddup.c); st: whether cp is alive then. */
static Status dup_loc(const Emit *e, uint32_t w, const ECopy *cp, const Edge *ed, int32_t p,
                      ELoc *l, Status st)
{
    const ESendBuf *sb = emit_senddup_copy(e, w, (uint32_t)(cp - e->copies),
                                           (uint32_t)graph_block_pos(e->g, ed->dst), p);
    if (st == ST_OK && sb)
        l->base += e->cores[cp->core].addr[sb->req] - emit_copy_addr(e, cp);
    return st;
}

/* The source of edge ed's data on its writer's core, in the coordinates of the storage it
 * goes to (dst_box: the edge's box there), for a copy laid out as df: the writer's output
 * buffer, or its send area in df's precision, or in its pitch in that phase, when a P06
 * rewrites the buffer so (emit_sendbuf.c); for a writer without one, the copy it writes on
 * its core, or the int32 area a P06 re-pitches into that copy, for a copy of the area's pitch
 * an earlier pass recorded (emit_narrow_send.c). ch0: the storage channel the source's
 * pixels start with (the edge may start at a channel of the writer's output other than its
 * first). */
static Status writer_loc(Emit *e, const Edge *ed, uint32_t w, int32_t phase,
                        const EBox *dst_box, const EmitFeat *df, ELoc *l, int64_t *ch0)
{
    PrecisionId prec = df->prec;
    const Block *b = e->g->blocks[w];
    uint32_t k = e->core_of[w];
    const ECore *c = &e->cores[k];
    EBox wbox; /* the edge's box in the writer's output coordinates */
    if (!emit_iface_box(e, w, false, ed->id, &wbox))
        return diag_block(e->d, ST_RUNTIME, "emit.internal", b, "edge %d: no box", ed->id);
    if (e->outs[w].used) {
        const EOut *o = &e->outs[w];
        uint32_t s = (uint32_t)graph_block_pos(e->g, ed->dst);
        const ESendBuf *sb = prec != o->feat.prec ? emit_sendbuf_of(e, w, prec)
                                                  : emit_sendbuf_pitch(e, w, df->c, phase, s);
        const ESendBuf *slc = emit_sliceout_of(e, w, ed->id, phase); /* emit_sliceout.c */
        if (slc && prec == o->feat.prec && !sb) { /* the slice's rows in its area's */
            int64_t pw = emit_feat_pixel_words(&o->feat);
            l->feat = &o->feat;
            l->row = slc->slice.n[1] * pw;
            l->box = *dst_box;
            l->base = c->addr[slc->req] + ((wbox.lo[0] - slc->slice.lo[0]) * slc->slice.n[1] +
                                           wbox.lo[1] - slc->slice.lo[1]) * pw;
            *ch0 = dst_box->lo[2] - wbox.lo[2];
            return ST_OK;
        }
        const AllocReq *r = &c->reqs[sb ? sb->req : o->req]; /* the area it sends from */
        if (phase < r->first || phase > r->last)
            return diag_block(e->d, ST_LOGIC, "emit.route", b, "sends edge %d in phase %d, "
                              "when its %s on %s is no longer alive (phases %d..%d)", ed->id,
                              phase, sb ? "send area" : "output buffer", c->name, r->first,
                              r->last);
        l->feat = sb ? &sb->feat : &o->feat;
        /* pixels flowing into other rows (emit_flat_pixels): the receiver's rows in turn */
        l->row = (same_extents(&wbox, dst_box) ? o->box.n[1] : dst_box->n[1]) *
                 emit_feat_pixel_words(l->feat);
        l->box = *dst_box;
        l->base = c->addr[sb ? sb->req : o->req] + (sb ? sb->off : 0) + /* a guest's repeat */
                  (wbox.lo[0] * o->box.n[1] + wbox.lo[1]) * emit_feat_pixel_words(l->feat);
        *ch0 = dst_box->lo[2] - wbox.lo[2];
        return ST_OK;
    }
    /* its map on its core (emit_sendbuf_rows_source), re-pitched by a P06 into a send area
     * of df's pitch (emit_sendbuf.c scan_heads) */
    EOut v;
    const ESendBuf *vsb = emit_sendbuf_rows_source(e, w, &v) && v.feat.prec == prec
                              ? emit_sendbuf_compact(e, w, phase)
                              : NULL;
    if (vsb && vsb->feat.c <= df->c && df->c < v.feat.c && wbox.lo[2] == 0 &&
        wbox.n[2] <= vsb->feat.c) {
        const AllocReq *r = &c->reqs[vsb->req];
        if (phase < r->first || phase > r->last)
            return diag_block(e->d, ST_LOGIC, "emit.route", b, "sends edge %d in phase %d, "
                              "when its send area on %s is no longer alive (phases %d..%d)",
                              ed->id, phase, c->name, r->first, r->last);
        int64_t pw = emit_feat_pixel_words(&vsb->feat);
        l->feat = &vsb->feat;
        l->row = (same_extents(&wbox, dst_box) ? v.box.n[1] : dst_box->n[1]) * pw;
        l->box = *dst_box;
        l->base = c->addr[vsb->req] + (wbox.lo[0] * v.box.n[1] + wbox.lo[1]) * pw;
        *ch0 = dst_box->lo[2] - wbox.lo[2];
        return ST_OK;
    }
    /* the storage the writer writes on its own core */
    ELocalOuts it = emit_local_outs(w, k);
    for (ECopy *cp; (cp = emit_local_outs_next(e, &it));) {
        const Edge *le = it.ed;
        uint32_t s = it.s;
        EBox lbox, lw;
        if (!emit_iface_box(e, s, true, le->id, &lbox) ||
            !emit_iface_box(e, w, false, le->id, &lw))
            continue;
        bool flat = !same_extents(&wbox, dst_box); /* emit_flat_pixels: whole rows of cp */
        *ch0 = cp->box.lo[2] - (lbox.lo[2] - lw.lo[2] + wbox.lo[2] - dst_box->lo[2]);
        if (!same_extents(&lbox, &lw)) { /* the writer's pixels in their order, other rows */
            if (!linear_copy(e, le, w, s, cp, &lbox) ||
                (flat && wbox.n[0] > 1 && wbox.n[1] != lw.n[1]))
                continue;
            int64_t pw = emit_feat_pixel_words(&cp->feat);
            l->feat = &cp->feat;
            l->row = (flat ? dst_box->n[1] : lw.n[1]) * pw;
            l->box = *dst_box;
            l->base = emit_copy_addr(e, cp) +
                      ((wbox.lo[0] - lw.lo[0]) * lw.n[1] + wbox.lo[1] - lw.lo[1]) * pw;
            return dup_loc(e, w, cp, ed, phase, l, alive(e, cp, b, ed, phase, c));
        }
        /* writer point wp lives at copy point lbox.lo + (wp - lw.lo) */
        int64_t wy = wbox.lo[0] - lw.lo[0] + lbox.lo[0], wx = wbox.lo[1] - lw.lo[1] + lbox.lo[1];
        if (flat && (!same_extents(&lbox, &lw) ||
                     (wbox.n[0] > 1 && (wx != cp->box.lo[1] || wbox.n[1] != cp->box.n[1]))))
            continue;
        /* a copy of the int32 area's pitch sent from that area (emit_narrow_send.c) */
        const ENarrow *raw =
            flat ? NULL
                 : emit_narrow_send_area(e, w, (uint32_t)graph_block_pos(e->g, ed->dst), phase,
                                         df);
        if (raw && raw->copy == (uint32_t)(cp - e->copies)) {
            int64_t pw = emit_feat_pixel_words(&raw->feat);
            l->feat = &raw->feat;
            l->row = raw->box.n[1] * pw;
            l->box = *dst_box;
            l->base = c->addr[raw->req] +
                      ((wy - raw->box.lo[0]) * raw->box.n[1] + wx - raw->box.lo[1]) * pw;
            return ST_OK;
        }
        l->feat = &cp->feat;
        l->row = (flat ? dst_box->n[1] : cp->box.n[1]) * emit_feat_pixel_words(&cp->feat);
        l->box = *dst_box;
        l->base = emit_feat_addr(&cp->feat, &cp->box, emit_copy_addr(e, cp), wy, wx);
        return dup_loc(e, w, cp, ed, phase, l, alive(e, cp, b, ed, phase, c));
    }
    return diag_block(e->d, ST_LOGIC, "emit.route", b,
                      "sends edge %d but writes no area on its core", ed->id);
}

Status emit_route_run(Emit *e, uint32_t sk, int32_t p, uint32_t dk, int64_t src,
                      int64_t words, int64_t dst, int32_t block, bool single)
{
    EPhase *ph = &e->cores[sk].ph[p];
    ESend *last = ph->n_sends ? &ph->sends[ph->n_sends - 1] : NULL;
    int64_t per = single ? 1 : 2; /* units a packet */
    if (last && last->dst_core == dk && last->single == single) { /* taskir/lanes.h */
        LanesHead h = {last->src, last->words, last->dst_addr, last->run, last->stride};
        if (lanes_head_join(&h, src, words, dst, per)) {
            last->words = h.units;
            last->run = h.run;
            last->stride = h.stride;
            return ST_OK;
        }
    }
    e->cores[dk].ph[p].recv_marks++;
    e->cores[dk].ph[p].recv_block = block;
    ESend run = {dk, src, words, dst, words, words, block, false, single, false};
    return add_send(e, sk, p, &run);
}

/* The runs of part `part` as bytes, a run a pixel: its channels from lane soff of each
 * source pixel to lane doff of each receiver's pixel, 1-byte packets, for a part that does
 * not start or end on an 8-byte unit in both (a concatenation's channels after 3 of
 * another block's). *done false: no such runs (values that share a byte, lanes past a
 * pixel). */
static Status byte_runs(Emit *e, const ELoc *src, int64_t soff, uint32_t sk, int32_t p,
                        const ECopy *dcp, uint32_t dk, const EBox *part, int64_t dbase,
                        bool *done)
{
    const EmitFeat *sf = src->feat, *df = &dcp->feat;
    int64_t vb = emit_value_bytes(df->prec);
    int64_t doff = part->lo[2] - dcp->box.lo[2];
    *done = vb && soff >= 0 && soff + part->n[2] <= sf->c && doff + part->n[2] <= df->c;
    int32_t block = e->g->blocks[dcp->block]->id;
    for (int64_t y = part->lo[0]; *done && y < part->lo[0] + part->n[0]; y++)
        for (int64_t x = part->lo[1]; x < part->lo[1] + part->n[1]; x++) {
            int64_t s = loc_addr(src, y, x) * 4 + soff * vb;
            int64_t d = emit_feat_addr(df, &dcp->box, dbase, y, x) * 4 + doff * vb;
            Status st = emit_route_run(e, sk, p, dk, s, part->n[2] * vb, d, block, true);
            if (st != ST_OK)
                return st;
        }
    return ST_OK;
}

/* Runs of the part `part` (storage coordinates) of edge ed from src to the copy dcp on core
 * dk: whole rows when the pixels are the same, else a run a pixel. ch0: the storage channel
 * the source's pixels start with; dbase: the word the copy's origin lands at (its area, its
 * landing area in the receive area, or a spread part's landing area less the rows before). */
static Status runs(Emit *e, const Edge *ed, const ELoc *src, int64_t ch0, uint32_t sk,
                   int32_t p, const ECopy *dcp, uint32_t dk, const EBox *part, int64_t dbase)
{
    const EmitFeat *sf = src->feat, *df = &dcp->feat;
    int64_t pw = sf->per_word;
    int64_t soff = part->lo[2] - ch0, doff = part->lo[2] - dcp->box.lo[2];
    int64_t spx = emit_feat_pixel_words(sf), dpx = emit_feat_pixel_words(df);
    bool tail = part->lo[2] + part->n[2] == dcp->box.lo[2] + dcp->box.n[2];
    /* the words a pixel sends: its channels, or up to the source's pixel end when the part
     * ends the copy's channels (the lanes after it are padding there) */
    int64_t len = (part->n[2] + pw - 1) / pw;
    if (tail && soff % pw == 0 && spx - soff / pw <= dpx - doff / pw)
        len = spx - soff / pw;
    len = (len + 1) / 2 * 2;
    if (sf->prec != df->prec)
        return diag_edge(e->d, ST_LOGIC, "emit.route", ed->id,
                         "channels %lld..%lld of block %d: the sender holds %s values and the "
                         "receiver's copy %s: the router moves bytes as they are, a change of "
                         "precision needs a P06 (not written for a transfer)",
                         (long long)part->lo[2], (long long)(part->lo[2] + part->n[2] - 1),
                         e->g->blocks[dcp->block]->id, pr_info(sf->prec)->name,
                         pr_info(df->prec)->name);
    if (soff < 0 || soff % (2 * pw) || doff % (2 * pw) ||
        (!tail && part->n[2] % (2 * pw)) || doff / pw + len > dpx || soff / pw + len > spx) {
        bool done = false; /* off the 8-byte units: 1-byte packets */
        Status st = byte_runs(e, src, soff, sk, p, dcp, dk, part, dbase, &done);
        if (st != ST_OK || done)
            return st;
        return diag_edge(e->d, ST_LOGIC, "emit.route", ed->id,
                         "channels %lld..%lld of block %d start at channel %lld of the "
                         "sender's pixels (%lld channels of %s) and %lld of the receiver's "
                         "(%lld of %s): a packet carries 8 bytes (2 int32 or 8 int8 channels), "
                         "and a part that does not start on such a unit in both, or does not "
                         "fill whole units short of the receiver's last channel, would land "
                         "on channels of other parts, and 1-byte packets cannot carry it "
                         "(ternary values share bytes)", (long long)part->lo[2],
                         (long long)(part->lo[2] + part->n[2] - 1),
                         e->g->blocks[dcp->block]->id, (long long)soff, (long long)sf->c,
                         pr_info(sf->prec)->name, (long long)doff, (long long)df->c,
                         pr_info(df->prec)->name);
    }
    int32_t block = e->g->blocks[dcp->block]->id;
    bool whole = soff == 0 && doff == 0 && len == spx && len == dpx;
    for (int64_t y = part->lo[0]; y < part->lo[0] + part->n[0]; y++) {
        if (whole) {
            int64_t s = loc_addr(src, y, part->lo[1]);
            int64_t d = emit_feat_addr(df, &dcp->box, dbase, y, part->lo[1]);
            Status st = emit_route_run(e, sk, p, dk, s, part->n[1] * len, d, block, false);
            if (st != ST_OK)
                return st;
            continue;
        }
        for (int64_t x = part->lo[1]; x < part->lo[1] + part->n[1]; x++) {
            int64_t s = loc_addr(src, y, x) + soff / pw;
            int64_t d = emit_feat_addr(df, &dcp->box, dbase, y, x) + doff / pw;
            Status st = emit_route_run(e, sk, p, dk, s, len, d, block, false);
            if (st != ST_OK)
                return st;
        }
    }
    return ST_OK;
}

static int part_pixels(const ECopy *cp, int64_t q0, int64_t nq, const EBox *part, EBox *out);

/* The runs of band piece `piece` (src: its rows in the buffer) into copy dcp on core dk: at
 * dbase, or with pt (dcp spread, emit_spread.c) those of its pixels part pt brings, at their
 * place in pt's landing area. */
static Status band_piece(Emit *e, const Edge *ed, const ELoc *src, int64_t ch0, uint32_t sk,
                         int32_t p, const ECopy *dcp, uint32_t dk, const EBox *piece,
                         int64_t dbase, const EPart *pt)
{
    if (!pt)
        return runs(e, ed, src, ch0, sk, p, dcp, dk, piece, dbase);
    const EBandSlice *lbs = &e->copies[pt->copy[0]] == dcp
                                ? emit_bandslice_copy(e, pt->copy[0]) : NULL;
    if (lbs && !lbs->win) { /* into a copy laid out so too: its rows slice by slice */
        EBox lp;
        ECopy stand;
        int64_t lb, it = 0;
        Status st = ST_OK;
        while (st == ST_OK && emit_bandslice_next(e, pt, piece, &it, &lp, &stand, &lb))
            st = runs(e, ed, src, ch0, sk, p, &stand, dk, &lp, lb);
        return st;
    }
    int64_t lbase = e->cores[dk].addr[pt->land];
    ECopy landed;
    const ECopy *lcp = emit_part_landed(pt, dcp, &landed);
    Status st = ST_OK;
    for (int r = 0; r < 2 && st == ST_OK; r++) {
        int64_t pw = emit_part_pitch(e, pt, r);
        EBox pieces[3];
        int np = &e->copies[pt->copy[r]] == dcp
                     ? part_pixels(dcp, pt->q0[r], pt->nq[r], piece, pieces) : 0;
        for (int q = 0; q < np && st == ST_OK; q++)
            st = runs(e, ed, src, ch0, sk, p, lcp, dk, &pieces[q], lbase - pt->q0[r] * pw);
        lbase += pt->nq[r] * pw;
    }
    return st;
}

/* The runs of writer w's slice `part` (storage coordinates; dbox: the edge's box there) of
 * a buffer laid out band by band (emit_bandslice.c): each band's rows of the slice are one
 * run of the buffer, the slice's pixels row after row (pt: as band_piece). */
static Status band_sends(Emit *e, const Edge *ed, uint32_t w, const EBandSlice *bs,
                         uint32_t sk, int32_t p, const ECopy *dcp, uint32_t dk,
                         const EBox *dbox, const EBox *part, int64_t dbase, const EPart *pt)
{
    enum { MAX_BANDS = 64 };
    const EOut *o = &e->outs[w];
    EBox wbox;
    int64_t y0[MAX_BANDS], rows[MAX_BANDS];
    if (!emit_iface_box(e, w, false, ed->id, &wbox))
        return diag_block(e->d, ST_RUNTIME, "emit.internal", e->g->blocks[w], "no box");
    int n = emit_bandslice_bands(e, bs, y0, rows, MAX_BANDS);
    int64_t dy = dbox->lo[0] - wbox.lo[0], pw = emit_feat_pixel_words(&o->feat);
    for (int b = 0; b < n; b++) {
        EBox piece = *part;
        int64_t lo = y0[b] + dy, hi = y0[b] + rows[b] + dy;
        piece.lo[0] = lo > part->lo[0] ? lo : part->lo[0];
        hi = hi < part->lo[0] + part->n[0] ? hi : part->lo[0] + part->n[0];
        if (hi <= piece.lo[0])
            continue;
        piece.n[0] = hi - piece.lo[0];
        /* slice by slice: each slice's rows of the band lie at the slice's width */
        int64_t wx = wbox.lo[1] + piece.lo[1] - dbox->lo[1], x0, sw;
        for (int64_t x = wx; x < wx + piece.n[1]; x = x0 + sw) {
            emit_bandslice_slice(e, bs, x, &x0, &sw);
            int64_t x1 = x0 + sw;
            int64_t xa = wx > x0 ? wx : x0;
            int64_t xb = wx + piece.n[1] < x1 ? wx + piece.n[1] : x1;
            EBox sub = piece;
            sub.lo[1] = piece.lo[1] + xa - wx;
            sub.n[1] = xb - xa;
            ELoc src = {.feat = &o->feat, .box = sub, .row = (x1 - x0) * pw};
            src.base = e->cores[o->core].addr[o->req] +
                       emit_bandslice_at(e, bs, y0[b], rows[b], x0, pw) +
                       (piece.lo[0] - lo) * src.row + (xa - x0) * pw;
            Status st = band_piece(e, ed, &src, dbox->lo[2] - wbox.lo[2], sk, p, dcp, dk, &sub,
                                   dbase, pt);
            if (st != ST_OK)
                return st;
        }
    }
    return ST_OK;
}

bool emit_box_meet(const EBox *a, const EBox *b, EBox *out)
{
    for (int i = 0; i < 3; i++) {
        int64_t lo = a->lo[i] > b->lo[i] ? a->lo[i] : b->lo[i];
        int64_t hi1 = a->lo[i] + a->n[i], hi2 = b->lo[i] + b->n[i];
        int64_t hi = hi1 < hi2 ? hi1 : hi2;
        if (hi <= lo)
            return false;
        out->lo[i] = lo;
        out->n[i] = hi - lo;
    }
    out->lo[3] = 0;
    out->n[3] = 1;
    return true;
}

/* The pixels of part (whole rows of copy cp: all its columns; or columns of a copy of one
 * row) among the pixels [q0, q0 + nq) of a run of a spread part: at most three boxes (a
 * row's last pixels, whole rows, a row's first pixels) into out; their count. A column
 * slice of several rows (emit_slices.c) meets a run of whole rows in one box. */
static int part_pixels(const ECopy *cp, int64_t q0, int64_t nq, const EBox *part, EBox *out)
{
    if (cp->unit) /* runs of a pixel's words: its channels there (emit_spreadunit.c) */
        return emit_unit_box(cp, q0, nq, part, out);
    int64_t nx = cp->box.n[1];
    if (part->n[0] > 1 && part->n[1] < nx) { /* a column slice: the run's rows (whole) */
        int64_t y0 = part->lo[0] - cp->box.lo[0], y1 = y0 + part->n[0];
        int64_t r0 = q0 / nx > y0 ? q0 / nx : y0;
        int64_t r1 = (q0 + nq) / nx < y1 ? (q0 + nq) / nx : y1;
        if (r1 <= r0)
            return 0;
        out[0] = *part;
        out[0].lo[0] = cp->box.lo[0] + r0;
        out[0].n[0] = r1 - r0;
        return 1;
    }
    int64_t lo = (part->lo[0] - cp->box.lo[0]) * nx + part->lo[1] - cp->box.lo[1];
    int64_t hi = lo + (part->n[0] - 1) * nx + part->n[1];
    lo = lo > q0 ? lo : q0;
    hi = hi < q0 + nq ? hi : q0 + nq;
    int n = 0;
    while (lo < hi) {
        int64_t y = lo / nx, x = lo % nx;
        int64_t take = x > 0 || hi - lo < nx ? (nx - x < hi - lo ? nx - x : hi - lo)
                                             : (hi - lo) / nx * nx;
        EBox b = *part;
        b.lo[0] = cp->box.lo[0] + y;
        b.n[0] = take >= nx ? take / nx : 1;
        b.lo[1] = cp->box.lo[1] + x;
        b.n[1] = take >= nx ? nx : take;
        out[n++] = b;
        lo += take;
    }
    return n;
}

/* The first phase core k receives edge le's data in (INT32_MAX: never): in its dict, the
 * only one of the edge in a Mapping that verifies (emit.h). */
int32_t emit_first_receive(Emit *e, const Edge *le, uint32_t k)
{
    const MapDict *dict = emit_edge_dict(e, le->id);
    int32_t got = INT32_MAX;
    for (uint32_t j = 0; dict && j < dict->n_coords; j++)
        if (dict->coords[j].pi_index == MAP_PI_ROUTER_RECIEVE && dict->coords[j].phase < got &&
            emit_core(e, &dict->coords[j]) == k)
            got = dict->coords[j].phase;
    return got;
}

/* The most relays relay_loc follows back along a chain (a bound on the work). */
enum { RELAY_DEPTH = 64 };

/* The core that sends edge le's data to core k in phase p (EMIT_NONE: none). */
static uint32_t sender(Emit *e, const Edge *le, uint32_t k, int32_t p)
{
    const MapDict *dict = emit_edge_dict(e, le->id);
    for (uint32_t c = 0; dict && c + 1 < dict->n_coords; c++) {
        const MapCoord *cs = &dict->coords[c], *cr = &dict->coords[c + 1];
        if (cs->pi_index == MAP_PI_ROUTER_SEND && cr->pi_index == MAP_PI_ROUTER_RECIEVE &&
            cr->phase == p && emit_core(e, cr) == k)
            return emit_core(e, cs);
    }
    return EMIT_NONE;
}

/* The source of edge ed's part (storage coordinates of its destination, dbox the edge's box
 * there) on sk, a relay of a multicast chain: sk's copy of data writer w sent it in an
 * earlier phase. The chain joins the transfers of one box of w's output, which may go to
 * several storage blocks (one a reading core); so the copy is of the block ed fills or of
 * another that w fills with the same values, and it must hold the whole part. A copy
 * spread over phases (emit_spread.c) forwards part by part: the pixels now[] (n_now boxes:
 * what this phase carries of part) once the P06 of an earlier phase's Soma2 has moved them
 * into its area, so a relay may forward in phase k + 1 the part it received in phase k while
 * the next part lands; a part it forwards in the phase it lands there it does not hold yet.
 * A relay that forwards in the phase it receives holds nothing yet: the core that sends to it
 * in that phase sends the part itself (*via; l->feat NULL when that is the writer, else where
 * that core, a relay of the chain from its own copy, holds it), and the run it then sends to
 * several cores in one phase becomes the chip's relaying chain (emit_route_chain.c). ch0: the
 * storage channel the pixels start with. depth: the relays followed so far. */
static Status relay_loc(Emit *e, const Edge *ed, uint32_t w, uint32_t sk, int32_t phase,
                        const EBox *dbox, const EBox *part, const EBox *now, int n_now, ELoc *l,
                        int64_t *ch0, uint32_t *via, int depth)
{
    *via = sk;
    EBox wbox;
    if (!emit_iface_box(e, w, false, ed->id, &wbox))
        return diag_edge(e->d, ST_RUNTIME, "emit.internal", ed->id, "no box");
    bool early = false; /* some copy of the data arrives in time, but not all of the part */
    ELocalOuts it = emit_local_outs(w, sk);
    for (ECopy *rcp; (rcp = emit_local_outs_next(e, &it));) {
        const Edge *le = it.ed;
        uint32_t s2 = it.s;
        EBox lbox, lw;
        if (rcp->is_static || !emit_keeps_order(e, le) ||
            !emit_iface_box(e, s2, true, le->id, &lbox) ||
            !emit_iface_box(e, w, false, le->id, &lw) || emit_first_receive(e, le, sk) >= phase)
            continue;
        /* the part's points are the copy's shifted: both edges keep the writer's extents,
           or both flow the same box of it into the same extents (emit_flat_pixels) */
        if (same_extents(&wbox, dbox) != same_extents(&lw, &lbox) ||
            (!same_extents(&wbox, dbox) && (!same_extents(&lbox, dbox) ||
                                            !same_extents(&lw, &wbox) ||
                                            lw.lo[0] != wbox.lo[0] || lw.lo[1] != wbox.lo[1])))
            continue;
        /* part point q lives at s2's point q + off (through the writer's coordinates); the
         * part must lie in what le carries and in the copy; one that meets none of it holds
         * none of it (another of the writer's edges into the copy brings it) */
        int64_t off[3];
        bool inside = true, meets = true;
        for (int i = 0; i < 3; i++) {
            off[i] = lbox.lo[i] - lw.lo[i] + wbox.lo[i] - dbox->lo[i];
            int64_t lo = part->lo[i] + off[i], hi = lo + part->n[i];
            inside = inside && lo >= lbox.lo[i] && hi <= lbox.lo[i] + lbox.n[i] &&
                     lo >= rcp->box.lo[i] && hi <= rcp->box.lo[i] + rcp->box.n[i];
            meets = meets && lo < lbox.lo[i] + lbox.n[i] && hi > lbox.lo[i];
        }
        if (!meets)
            continue;
        early = true;
        /* a spread copy: this phase's pixels moved into its area in an earlier Soma2, or all
         * of them landing in this phase, which the relay forwards as they come (the writer
         * sends them: a relaying chain when the runs are the same) */
        int landing = 0;
        for (int q = 0; q < n_now && inside && rcp->spread; q++) {
            EBox at = now[q];
            for (int i = 0; i < 3; i++)
                at.lo[i] += off[i];
            int32_t moved = emit_spread_moved(e, rcp, &at);
            landing += moved == phase;
            inside = moved <= phase;
        }
        if (inside && landing) {
            if (landing < n_now)
                continue; /* some pixels held, some landing: neither way */
            uint32_t from = sender(e, le, sk, phase);
            if (from == EMIT_NONE || from == e->core_of[w] || depth >= RELAY_DEPTH) {
                l->feat = NULL; /* the writer sends */
                *via = e->core_of[w];
                return ST_OK;
            }
            /* relayed on as it lands from a relay that sends from its own copy */
            return relay_loc(e, ed, w, from, phase, dbox, part, now, n_now, l, ch0, via,
                             depth + 1);
        }
        /* a copy joined from channel slices: where the joins have put them by this phase */
        if (inside && emit_chmerge_of(e, rcp)) {
            EBox at = *part;
            for (int i = 0; i < 3; i++)
                at.lo[i] += off[i];
            if (!emit_chmerge_at(e, rcp, &at, phase, &l->feat, &l->box, &l->base, &l->row))
                continue;
            for (int i = 0; i < 3; i++)
                l->box.lo[i] -= off[i];
            *ch0 = l->box.lo[2];
            return ST_OK;
        }
        if (!inside)
            continue;
        l->feat = &rcp->feat;
        l->box = rcp->box;
        for (int i = 0; i < 3; i++)
            l->box.lo[i] -= off[i];
        l->base = emit_copy_addr(e, rcp);
        l->row = rcp->box.n[1] * emit_feat_pixel_words(&rcp->feat);
        *ch0 = rcp->box.lo[2] - off[2];
        return ST_OK;
    }
    if (!early) { /* it receives the data in this phase: its sender sends it on */
        it = emit_local_outs(w, sk);
        while (depth < RELAY_DEPTH && emit_local_outs_next(e, &it)) {
            const Edge *le = it.ed;
            uint32_t from = emit_keeps_order(e, le) ? sender(e, le, sk, phase) : EMIT_NONE;
            if (from != EMIT_NONE && from != e->core_of[w]) /* a relay, from its own copy */
                return relay_loc(e, ed, w, from, phase, dbox, part, now, n_now, l, ch0, via,
                                 depth + 1);
        }
        l->feat = NULL; /* the writer sends (the caller) */
        *via = e->core_of[w];
        return ST_OK;
    }
    return diag_edge(e->d, ST_LOGIC, "emit.route", ed->id,
                     "relayed by %s in phase %d, which holds only part of what it forwards of "
                     "block %d", e->cores[sk].name, phase, e->g->blocks[w]->id);
}

bool emit_dict_pair(Emit *e, const MapDict *dict, uint32_t *i, uint32_t *sk, uint32_t *rk,
                    Status *st)
{
    for (; *i + 1 < dict->n_coords; (*i)++) {
        const MapCoord *cs = &dict->coords[*i], *cr = &dict->coords[*i + 1];
        if (cs->pi_index != MAP_PI_ROUTER_SEND || cr->pi_index != MAP_PI_ROUTER_RECIEVE)
            continue;
        *sk = emit_core(e, cs);
        *rk = emit_core(e, cr);
        if (*sk != EMIT_NONE && *rk != EMIT_NONE)
            return true;
        *st = diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
        return false;
    }
    return false;
}

bool emit_flat_pixels(const Emit *e, const Edge *ed, uint32_t w, const EBox *wbox,
                      const EBox *dbox)
{
    return lanes_flat_rows(e->g, &e->uses, ed, w, wbox->lo, wbox->n, dbox->n);
}

/* A transfer reads the writer's pixels at the receiver's coordinates (writer_loc,
 * relay_loc): an edge that reshapes its box into other extents (3 pixels of one channel
 * into one pixel of 3, in C order) would send other values, unless its pixels only flow
 * into other rows (emit_flat_pixels: the source then steps through them in the receiver's
 * rows). */
static Status same_pixels(Emit *e, const Edge *ed, uint32_t w, const EBox *dbox)
{
    EBox wbox;
    if (!emit_iface_box(e, w, false, ed->id, &wbox))
        return diag_edge(e->d, ST_RUNTIME, "emit.internal", ed->id, "no box");
    if (same_extents(&wbox, dbox) || emit_flat_pixels(e, ed, w, &wbox, dbox))
        return ST_OK;
    return diag_edge(e->d, ST_LOGIC, "emit.rearrange", ed->id,
                     "reshapes %lld x %lld x %lld values of block %d into %lld x %lld x %lld "
                     "on the way to another core: a transfer keeps the pixels",
                     (long long)wbox.n[0], (long long)wbox.n[1], (long long)wbox.n[2],
                     e->g->blocks[w]->id, (long long)dbox->n[0], (long long)dbox->n[1],
                     (long long)dbox->n[2]);
}

bool emit_moves_lanes(const Emit *e, const Edge *ed, uint32_t w, const EBox *dbox)
{
    (void)w; /* the edge's own writer and storage box: lanes_exact reads them from the graph */
    (void)dbox;
    return lanes_exact(e->g, &e->uses, ed);
}

/* One edge dict: every (send, receive) pair of coordinates. */
static Status route_edge(Emit *e, const MapDict *dict)
{
    const Edge *ed = graph_edge(e->g, dict->task_id);
    if (!ed)
        return ST_OK;
    long w = graph_block_pos(e->g, ed->src), s = graph_block_pos(e->g, ed->dst);
    if (w < 0 || s < 0 || bt_info(e->g->blocks[w]->type)->kind != BK_COMPUTE ||
        bt_info(e->g->blocks[s]->type)->kind != BK_STORAGE)
        return ST_OK; /* off-chip ends: emit_io.c */
    EBox dbox;
    if (!emit_iface_box(e, (uint32_t)s, true, ed->id, &dbox))
        return diag_edge(e->d, ST_RUNTIME, "emit.internal", ed->id, "no box");
    bool lanes = emit_moves_lanes(e, ed, (uint32_t)w, &dbox); /* bytes between lanes */
    Status rst = lanes ? ST_OK : same_pixels(e, ed, (uint32_t)w, &dbox);
    if (rst != ST_OK)
        return rst;
    uint32_t sk, rk;
    Status pst = ST_OK;
    for (uint32_t i = 0; emit_dict_pair(e, dict, &i, &sk, &rk, &pst); i++) {
        const MapCoord *cs = &dict->coords[i], *cr = &dict->coords[i + 1];
        ECopy *dcp = emit_copy_on(e, (uint32_t)s, rk);
        if (dcp && dcp->dup_of != EMIT_NONE)
            continue; /* its values are on its core already (emit_dup.c) */
        bool dup = false; /* the first phase carries the whole transfer to a receiver */
        bool banded = dcp && emit_merge_banded(e, dcp, ed->id); /* emit_merge.c */
        for (uint32_t j = 1; j < i && !dup && !(dcp && dcp->spread) && !banded; j++)
            dup = dict->coords[j - 1].pi_index == MAP_PI_ROUTER_SEND &&
                  dict->coords[j].pi_index == MAP_PI_ROUTER_RECIEVE &&
                  emit_core(e, &dict->coords[j]) == rk;
        if (dup)
            continue;
        if (!dcp)
            return diag_edge(e->d, ST_LOGIC, "emit.route", ed->id,
                             "received on %s, which holds no copy of block %d",
                             e->cores[rk].name, e->g->blocks[s]->id);
        int64_t dbase = emit_copy_dest_addr(e, dcp); /* its landing area when it moves on */
        ECopy slice; /* a slice of a copy merged from column slices lands compact */
        int ms = emit_merge_slice(e, dcp, ed->id, cr->phase, &slice, &dbase);
        if (ms == 0) /* or of a copy joined from channel slices (emit_chmerge.c) */
            ms = emit_chmerge_land(e, dcp, ed->id, cr->phase, &slice, &dbase);
        if (ms < 0)
            continue; /* nothing of its slice lands in this phase */
        if (ms > 0)
            dcp = &slice;
        EBox part;
        if (!emit_box_meet(&dbox, &dcp->box, &part))
            continue;
        const EPart *pt = dcp->spread ? emit_part_at(e, dcp, cr->phase) : NULL;
        if (dcp->spread && !pt)
            continue; /* nothing of it in this phase (emit_spread.c) */
        if (lanes && ms > 0)
            return diag_edge(e->d, ST_LOGIC, "emit.rearrange", ed->id,
                             "moves values between lanes into a copy of block %d on %s that "
                             "is merged from slices: 1-byte packets go whole into one copy",
                             e->g->blocks[s]->id, e->cores[rk].name);
        ECopy at_pitch; /* landing in a relaying chain's pitch (emit_pin.c) */
        const ECopy *dlp = pt ? dcp : emit_copy_landed(dcp, &at_pitch);
        if (lanes && !pt) { /* emit_lanes.c: from the writer's buffer, relays refused */
            Status st = emit_lane_runs(e, ed, (uint32_t)w, sk, cs->phase, dlp, rk, &part, dbase);
            if (st != ST_OK)
                return st;
            continue;
        }
        if (lanes) { /* a spread part: this phase's pixels of each of its runs of dcp, their
                        bytes into their place in the landing area, as below */
            Status st = ST_OK;
            int64_t lbase = e->cores[rk].addr[pt->land];
            for (int r = 0; r < 2 && st == ST_OK; r++) {
                const ECopy *rc = &e->copies[pt->copy[r]];
                int64_t pw = emit_spread_unit(rc);
                EBox pieces[3];
                int np = rc == dcp ? part_pixels(dcp, pt->q0[r], pt->nq[r], &part, pieces) : 0;
                for (int q = 0; q < np && st == ST_OK; q++)
                    st = emit_lane_runs(e, ed, (uint32_t)w, sk, cs->phase, dcp, rk, &pieces[q],
                                        lbase - pt->q0[r] * pw);
                lbase += pt->nq[r] * pw;
            }
            if (st != ST_OK)
                return st;
            continue;
        }
        ELoc src = {0};
        Status st = ST_OK;
        int64_t ch0 = dbox.lo[2]; /* set by relay_loc or writer_loc */
        if (sk != e->core_of[w]) { /* a relay: a destination that holds the data already */
            EBox now[6] = {part}; /* what this phase carries: a spread part's pixels */
            int n_now = pt ? 0 : 1;
            for (int r = 0; pt && r < 2; r++)
                if (pt->nq[r] > 0 && &e->copies[pt->copy[r]] == dcp)
                    n_now += part_pixels(dcp, pt->q0[r], pt->nq[r], &part, now + n_now);
            uint32_t via = sk;
            st = relay_loc(e, ed, (uint32_t)w, sk, cs->phase, &dbox, &part, now, n_now, &src,
                           &ch0, &via, 0);
            if (st == ST_OK)
                sk = via; /* the writer, or the relay the chain starts from */
        }
        const EBandSlice *bw = emit_bandslice_writer(e, (uint32_t)w);
        if (bw && st == ST_OK && sk == e->core_of[w]) { /* its buffer band by band */
            st = band_sends(e, ed, (uint32_t)w, bw, sk, cs->phase, dlp, rk, &dbox, &part,
                            dbase, pt);
            if (st != ST_OK)
                return st;
            continue;
        }
        if (sk == e->core_of[w] && st == ST_OK)
            st = writer_loc(e, ed, (uint32_t)w, cs->phase, &dbox, &dcp->feat, &src, &ch0);
        if (!pt && st == ST_OK)
            st = runs(e, ed, &src, ch0, sk, cs->phase, dlp, rk, &part, dbase);
        const EBandSlice *lbs = pt && st == ST_OK && &e->copies[pt->copy[0]] == dcp
                                    ? emit_bandslice_copy(e, pt->copy[0]) : NULL;
        if (lbs && !lbs->win) { /* a band's rows landing slice by slice (emit_bandslice.c) */
            EBox piece;
            ECopy stand;
            int64_t lb, it = 0;
            while (st == ST_OK && emit_bandslice_next(e, pt, &part, &it, &piece, &stand, &lb))
                st = runs(e, ed, &src, ch0, sk, cs->phase, &stand, rk, &piece, lb);
            if (st != ST_OK)
                return st;
            continue;
        }
        if (lbs) { /* landing a slice of a band (emit_bandslice.c) */
            EBox piece;
            ECopy stand;
            int64_t lb;
            int got = emit_bandslice_land(e, pt, &part, &piece, &stand, &lb);
            if (got < 0)
                return diag_edge(e->d, ST_RUNTIME, "emit.internal", ed->id,
                                 "a piece of a band laid out by slices crosses a slice");
            st = got ? runs(e, ed, &src, ch0, sk, cs->phase, &stand, rk, &piece, lb) : ST_OK;
            if (st != ST_OK)
                return st;
            continue;
        }
        /* a spread part: this phase's pixels of each of its runs of dcp, into their place
         * in the landing area (the first run's, then the second's) */
        dbase = pt ? e->cores[rk].addr[pt->land] : 0;
        ECopy landed; /* a part in its relay's pitch lands so (emit_landpitch.c) */
        const ECopy *lcp = emit_part_landed(pt, dcp, &landed);
        for (int r = 0; pt && r < 2 && st == ST_OK; r++) {
            const ECopy *rc = &e->copies[pt->copy[r]];
            int64_t pw = emit_part_pitch(e, pt, r);
            EBox pieces[3];
            int np = rc == dcp ? part_pixels(dcp, pt->q0[r], pt->nq[r], &part, pieces) : 0;
            for (int q = 0; q < np && st == ST_OK; q++)
                st = runs(e, ed, &src, ch0, sk, cs->phase, lcp, rk, &pieces[q],
                          dbase - pt->q0[r] * pw);
            dbase += pt->nq[r] * pw;
        }
        if (st != ST_OK)
            return st;
    }
    return pst;
}

long emit_reader_before(const Emit *e, uint32_t s, uint32_t k, int32_t p)
{
    return emit_reader_between(e, s, k, -1, p);
}

long emit_reader_between(const Emit *e, uint32_t s, uint32_t k, int32_t from, int32_t p)
{
    const BlockUses *su = &e->uses.blocks[s];
    for (uint32_t r = 0; r < su->n_out_edges; r++) {
        long t = graph_block_pos(e->g, e->g->edges[su->out_edges[r]]->dst);
        if (t < 0 || e->core_of[t] != k)
            continue;
        int32_t ph = e->phase_of[t];
        bool soma2 = e->slot_of[t] == MAP_PI_SOMA2;
        if ((ph > from || (ph == from && soma2)) && (ph < p || (ph == p && !soma2)))
            return t;
    }
    return -1;
}

/* Writer w's gather onto its own core of its out-edge j in phase p (gather), from repeat
 * rep of its send area (emit_sendbuf_reps). */
static Status gather_edge(Emit *e, uint32_t w, uint32_t j, int32_t p, int32_t rep)
{
    const Block *b = e->g->blocks[w];
    uint32_t k = e->core_of[w];
    const Edge *ed = e->g->edges[e->uses.blocks[w].out_edges[j]];
    long s = graph_block_pos(e->g, ed->dst);
    ECopy *cp = s >= 0 ? emit_copy_on(e, (uint32_t)s, k) : NULL;
    EBox dbox, part;
    if (!cp || cp->alias_of == w || emit_merge_of(e, cp) || /* merged: emit_merge.c */
        !emit_iface_box(e, (uint32_t)s, true, ed->id, &dbox) ||
        !emit_box_meet(&dbox, &cp->box, &part))
        return ST_OK;
    long t = emit_reader_before(e, (uint32_t)s, k, p);
    if (t >= 0)
        return diag_block(e->d, ST_LOGIC, "emit.route", b,
                          "writes part of block %d, which block %d reads in phase %d "
                          "before the router of phase %d can move the part into place",
                          e->g->blocks[s]->id, e->g->blocks[t]->id, e->phase_of[t], p);
    if (cp->view) { /* a view of the writer's map (emit_rearr.c): the buffer as it is */
        const EOut *o = &e->outs[w];
        const EmitFeat *of = &o->feat, *vf = &cp->feat;
        if (!o->used || of->prec != vf->prec || of->per_word != vf->per_word ||
            of->ny != vf->ny || of->nx != vf->nx || of->nc != vf->nc || of->c != vf->c)
            return diag_edge(e->d, ST_LOGIC, "emit.rearrange", ed->id,
                             "block %d's copy on %s is a view of the map of block %d, "
                             "whose buffer the router moves there, in another layout",
                             e->g->blocks[s]->id, e->cores[k].name, b->id);
        return emit_route_run(e, k, p, k, e->cores[k].addr[o->req], of->words,
                              emit_copy_dest_addr(e, cp), e->g->blocks[s]->id, false);
    }
    ECopy at_pitch; /* landing in a relaying chain's pitch (emit_pin.c) */
    const ECopy *lcp = emit_copy_landed(cp, &at_pitch);
    /* a spread copy (emit_spread.c): the part landing in this phase, whose runs of the copy
     * the rows take at their place in its landing area (the first run's, then the
     * second's) */
    const EPart *pt = cp->spread ? emit_part_at(e, cp, p) : NULL;
    if (cp->spread && !pt)
        return diag_block(e->d, ST_RUNTIME, "emit.internal", b, "gathers part of block %d in "
                          "phase %d, where its spread copy has no part", e->g->blocks[s]->id, p);
    const EBandSlice *bw = emit_bandslice_writer(e, w);
    if (bw) /* its buffer band by band (emit_bandslice.c) */
        return band_sends(e, ed, w, bw, k, p, lcp, k, &dbox, &part, emit_copy_dest_addr(e, cp),
                          pt);
    bool lanes = emit_moves_lanes(e, ed, w, &dbox); /* bytes between lanes: emit_lanes.c */
    if (lanes && !pt)
        return emit_lane_runs(e, ed, w, k, p, lcp, k, &part, emit_copy_dest_addr(e, cp));
    ELoc src = {0};
    int64_t ch0 = dbox.lo[2];
    Status st = lanes ? ST_OK : same_pixels(e, ed, w, &dbox);
    if (st == ST_OK && !lanes)
        st = writer_loc(e, ed, w, p, &dbox, &cp->feat, &src, &ch0);
    const ESendBuf *sb = cp->feat.prec != e->outs[w].feat.prec
                             ? emit_sendbuf_of(e, w, cp->feat.prec) : NULL;
    if (sb && rep > 0 && rep < sb->reps) /* its repeat of the send area */
        src.base += rep * sb->feat.words;
    if (st == ST_OK && !pt)
        st = runs(e, ed, &src, ch0, k, p, lcp, k, &part, emit_copy_dest_addr(e, cp));
    int64_t dbase = pt ? e->cores[k].addr[pt->land] : 0;
    ECopy landed; /* a part in its relay's pitch lands so (emit_landpitch.c) */
    const ECopy *plcp = emit_part_landed(pt, cp, &landed);
    for (int r = 0; pt && r < 2 && st == ST_OK; r++) {
        int64_t pw = lanes ? emit_spread_unit(&e->copies[pt->copy[r]]) : emit_part_pitch(e, pt, r);
        EBox pieces[3];
        int np = &e->copies[pt->copy[r]] == cp ? part_pixels(cp, pt->q0[r], pt->nq[r], &part,
                                                             pieces) : 0;
        for (int q = 0; q < np && st == ST_OK; q++)
            st = lanes ? emit_lane_runs(e, ed, w, k, p, cp, k, &pieces[q],
                                        dbase - pt->q0[r] * pw)
                       : runs(e, ed, &src, ch0, k, p, plcp, k, &pieces[q],
                              dbase - pt->q0[r] * pw);
        dbase += pt->nq[r] * pw;
    }
    return st;
}

/* A writer whose box is not whole rows of its own core's copy (EOut.gather) writes a
 * buffer; its core's router sends the buffer to itself, into the copy: in the writer's
 * phase (after its Axon or Soma1), or the next one after a Soma2. The copy's readers on the
 * core must come after that router. */
static Status gather(Emit *e, uint32_t w)
{
    const Block *b = e->g->blocks[w];
    uint32_t k = e->core_of[w];
    int32_t p = e->phase_of[w] + (e->slot_of[w] == MAP_PI_SOMA2 ? 1 : 0);
    if (p >= e->cores[k].n_phases)
        return diag_block(e->d, ST_LOGIC, "emit.route", b,
                          "writes part of a block on its core in the last phase's Soma2: no "
                          "router after it can move the part into place");
    const BlockUses *bu = &e->uses.blocks[w];
    bool reps = false; /* a send area of repeats (emit_sendbuf.c) */
    for (size_t i = 0; i < e->n_sendbufs; i++)
        reps |= e->sendbufs[i].writer == w && e->sendbufs[i].reps > 1;
    int32_t *rep = calloc(bu->n_out_edges ? bu->n_out_edges : 1, sizeof *rep), n = 1;
    if (!rep || (reps && !emit_sendbuf_reps(e, w, rep, &n))) {
        free(rep);
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    }
    /* repeat by repeat: the runs of one repeat follow each other in the send area, and
     * emit_route_run joins those that land equally far apart under one header */
    Status st = ST_OK;
    for (int32_t r = 0; r < n && st == ST_OK; r++)
        for (uint32_t j = 0; j < bu->n_out_edges && st == ST_OK; j++)
            if (rep[j] == r || (r == 0 && rep[j] < 0))
                st = gather_edge(e, w, j, p, rep[j]);
    free(rep);
    return st;
}

Status emit_routes(Emit *e)
{
    Status worst = emit_sendbuf_prims(e);
    if (worst != ST_OK)
        return worst;
    for (uint32_t i = 0; i < e->m->n_edges; i++) {
        Status st = route_edge(e, &e->m->edges[i]);
        if (st == ST_RUNTIME)
            return st;
        if (st > worst)
            worst = st;
    }
    for (uint32_t w = 0; w < e->g->n_blocks; w++) {
        if (!e->outs[w].gather)
            continue;
        Status st = gather(e, w);
        if (st == ST_RUNTIME)
            return st;
        if (st > worst)
            worst = st;
    }
    return worst;
}

static int send_cmp(const void *a, const void *b)
{
    const ESend *x = a, *y = b;
    return x->src < y->src ? -1 : x->src > y->src;
}

/* Global core coordinates (chips side by side). */
static void global_xy(const Emit *e, const ECore *c, int64_t *x, int64_t *y)
{
    *x = (int64_t)c->chip.x * e->chip->cores_x + c->core.x;
    *y = (int64_t)c->chip.y * e->chip->cores_y + c->core.y;
}

/* Appends a MULTI_USE header of `packets` packets of 8 bytes (1 when single): enabled (the
 * last packet an end mark; a relaying chain's first core, or one receiver) or not (a gap:
 * read, not sent). */
static Status add_head(Emit *e, Taskir__Asm__P09 *r, bool single, bool enable, bool relay,
                       int64_t dx, int64_t dy, int64_t unit, int64_t packets, int64_t cst,
                       int64_t off)
{
    Taskir__Asm__RouterHead *h =
        emit_msg(e, sizeof *h, (void (*)(void *))taskir__asm__router_head__init);
    if (!h)
        return ST_RUNTIME;
    r->router_heads[r->n_router_heads++] = h;
    SET(h, is_instant_request, false);
    SET(h, packet_size_mode, single ? TASKIR__ASM__PACKET_SIZE_MODE__SINGLE_NEURON
                                    : TASKIR__ASM__PACKET_SIZE_MODE__MULTIPLE_NEURON);
    SET(h, is_packet_finish, enable);
    SET(h, relay_type, relay ? TASKIR__ASM__RELAY_TYPE__MULTI_RELAY_CAST
                             : TASKIR__ASM__RELAY_TYPE__UNI_CAST);
    SET(h, dx, (int32_t)dx);
    SET(h, dy, (int32_t)dy);
    SET(h, destination_addr, (int32_t)unit);
    SET(h, pack_per_router_head, (int32_t)(packets - 1));
    SET(h, destination_offset, (int32_t)off);
    SET(h, destination_const, (int32_t)cst);
    SET(h, enable, enable);
    return ST_OK;
}

/* The headers a phase's sends take: one each, and the gaps in the sender's memory before
 * and between them (lead units before the first), each skipped by disabled headers of at
 * most MAX_PACKETS packets of per units. */
static int64_t head_count(const EPhase *ph, int64_t lead, int64_t per)
{
    int64_t n = (int64_t)ph->n_sends + (lead + per * MAX_PACKETS - 1) / (per * MAX_PACKETS);
    for (size_t i = 1; i < ph->n_sends; i++) {
        int64_t gap = ph->sends[i].src - (ph->sends[i - 1].src + ph->sends[i - 1].words);
        n += (gap / per + MAX_PACKETS - 1) / MAX_PACKETS;
    }
    return n;
}

/* Disabled headers skipping `units` units (per a packet). */
static Status skip_heads(Emit *e, Taskir__Asm__P09 *r, bool single, int64_t units, int64_t per)
{
    for (int64_t left = units / per; left > 0; left -= MAX_PACKETS) {
        Status st = add_head(e, r, single, false, false, 0, 0, 0,
                             left < MAX_PACKETS ? left : MAX_PACKETS, 0, 0);
        if (st != ST_OK)
            return st;
    }
    return ST_OK;
}

/* A phase with a run of bytes (ESend.single) sends all in 1-byte packets (a P09 has one
 * packet size): its word runs become runs of their bytes. A relaying chain's packets are
 * counted in 8-byte packets by its relays: not with bytes. */
static Status to_bytes(Emit *e, uint32_t k, int32_t p, bool *single)
{
    EPhase *ph = &e->cores[k].ph[p];
    *single = false;
    for (size_t i = 0; i < ph->n_sends; i++)
        *single |= ph->sends[i].single;
    for (size_t i = 0; *single && i < ph->n_sends; i++) {
        ESend *s = &ph->sends[i];
        if (s->relay)
            return diag_add(e->d, ST_LOGIC, "emit.route", e->cores[k].name,
                            "phase %d: sends runs of single bytes (1-byte packets) and words "
                            "%lld..%lld to a relaying chain (8-byte packets): a P09 has one "
                            "packet size", p, (long long)s->src,
                            (long long)(s->src + s->words - 1));
        if (!s->single) {
            s->src *= 4;
            s->words *= 4;
            s->dst_addr *= 4;
            s->run *= 4;
            s->stride *= 4;
            s->single = true;
        }
    }
    return ST_OK;
}

/* Whether copy cp moves out of the receive area, or stays there as received (a gather's
 * P06 reads it there, emit_early.c): a pitch recorded for the latter moves it out in the
 * next pass where it may move (plan_moves), else changes nothing. */
static bool lands_recv(const Emit *e, const ECopy *cp)
{
    return cp->land != EMIT_NONE ||
           (cp->received && cp->req != EMIT_NONE &&
            e->cores[cp->core].reqs[cp->req].kind == ALLOC_RECV);
}

/* Whether copy cp, landed at `pitch` words a pixel rather than its own, fits its core's
 * receive area in phase p beside what else lands there (int8 pixels of 8 words landing in
 * a chain's pitch of 32 take four times the words): when it does not, the two sends take
 * a second copy of the buffer instead (emit_senddup.c). */
static bool pitch_fits(const Emit *e, int32_t p, const ECopy *cp, int64_t pitch)
{
    const ECore *c = &e->cores[cp->core];
    uint32_t r = cp->land != EMIT_NONE ? cp->land : cp->req;
    int64_t more = (int64_t)cp->feat.ny * cp->feat.nx * pitch - c->reqs[r].words;
    return emit_recv_live(e, cp->core, p, EMIT_NONE) + more <= ASM_MEM3_BASE - ASM_MEM2_RECV;
}

/* Two sends of the same words in one phase, a relaying chain's in runs of a pixel of one
 * copy's some words apart, the other whole into a copy that moves out of the receive area
 * (or stays there for a gather's P06: lands_recv) with pixels of that many words: the next
 * pass lands the second in the chain's pitch (emit_pin.c), so that the chain carries both. */
static Status pitch_hint(Emit *e, int32_t p, const ESend *a, const ESend *s)
{
    for (int i = 0; i < 2; i++) {
        const ESend *x = i ? a : s, *y = i ? s : a; /* x whole, y in runs */
        long pos = graph_block_pos(e->g, x->block);
        const ECopy *cp = pos >= 0 ? emit_copy_on(e, (uint32_t)pos, x->dst_core) : NULL;
        if (x->single || y->single || x->src != y->src || x->words != y->words ||
            x->run != x->stride || y->run == y->stride || !cp || !lands_recv(e, cp) ||
            cp->land_pitch || y->run != emit_feat_pixel_words(&cp->feat) ||
            x->words % y->run != 0 || !pitch_fits(e, p, cp, y->stride))
            continue;
        return emit_pin_pitch(e, x->dst_core, (uint32_t)pos, y->stride);
    }
    return ST_OK;
}

static Status send_part(Emit *e, uint32_t k, int32_t p, Taskir__Asm__P09 *r)
{
    ECore *c = &e->cores[k];
    EPhase *ph = &c->ph[p];
    bool single;
    Status bst = to_bytes(e, k, p, &single);
    if (bst != ST_OK)
        return bst;
    int64_t per = single ? 1 : 2, wb = single ? 4 : 1; /* units a packet, a word */
    const char *unit_name = single ? "bytes" : "words";
    qsort(ph->sends, ph->n_sends, sizeof *ph->sends, send_cmp);
    for (size_t i = 1; i < ph->n_sends; i++) {
        const ESend *a = &ph->sends[i - 1], *s = &ph->sends[i];
        if ((s->src - a->src) % per)
            return diag_add(e->d, ST_RUNTIME, "emit.internal", c->name,
                            "phase %d: a run sent from odd word %lld", p, (long long)s->src);
        if (a->src + a->words > s->src) {
            size_t pitched = emit_pins_n(e, EPIN_PITCH);
            Status pst = pitch_hint(e, p, a, s);
            if (pst == ST_OK && emit_pins_n(e, EPIN_PITCH) == pitched)
                pst = emit_senddup_hint(e, k, a, s);
            if (pst != ST_OK)
                return pst;
            return diag_add(e->d, ST_LOGIC, "emit.route", c->name,
                            "phase %d: sends %s %lld..%lld and %lld..%lld, which overlap: "
                            "the router sends its area's words once, in order (the overlap "
                            "would need a gathering P06 into a send buffer)", p, unit_name,
                            (long long)a->src, (long long)(a->src + a->words - 1),
                            (long long)s->src, (long long)(s->src + s->words - 1));
        }
    }
    const ESend *end = &ph->sends[ph->n_sends - 1];
    int64_t base = ph->sends[0].src / wb, lead = ph->sends[0].src - base * wb;
    int64_t total = end->src + end->words - base * wb, heads = head_count(ph, lead, per);
    if (heads * HEADER_WORDS > RHEAD_WORDS || total / per > 65536)
        return diag_add(e->d, ST_LOGIC, "emit.route", c->name,
                        "phase %d: %lld headers (disabled ones skipping the gaps between the "
                        "runs sent included) and %lld %s to send: more than the header "
                        "table (%d headers) or the packet count (65536) holds",
                        p, (long long)heads, (long long)total, unit_name,
                        RHEAD_WORDS / HEADER_WORDS);
    SET(r, send_en, true);
    SET(r, send_number, (int32_t)(total / per - 1));
    SET(r, router_head_mode, TASKIR__ASM__ROUTER_HEAD_MODE__MULTI_USE);
    SET(r, packet_size_mode, single ? TASKIR__ASM__PACKET_SIZE_MODE__SINGLE_NEURON
                                    : TASKIR__ASM__PACKET_SIZE_MODE__MULTIPLE_NEURON);
    SET(r, out_memory, TASKIR__ASM__MEMORY_AREA__MEM2);
    SET(r, addr_dout_base, (int32_t)base);
    /* whole 16-byte units: the last may hold packets that are not sent */
    SET(r, addr_dout_length, (int32_t)((total + 4 * wb - 1) / (4 * wb) - 1));
    SET(r, addr_rhead_base, ASM_MEM2_RHEAD - ASM_MEM2_BASE);
    SET(r, addr_rhead_length, (int32_t)heads - 1);
    r->router_heads = calloc((size_t)heads, sizeof *r->router_heads);
    if (!r->router_heads)
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    int64_t sx, sy;
    global_xy(e, c, &sx, &sy);
    for (size_t i = 0; i < ph->n_sends; i++) {
        const ESend *s = &ph->sends[i];
        int64_t gap = i ? s->src - (ph->sends[i - 1].src + ph->sends[i - 1].words) : lead;
        Status st = skip_heads(e, r, single, gap, per);
        if (st != ST_OK)
            return st;
        int64_t dx, dy;
        global_xy(e, &e->cores[s->dst_core], &dx, &dy);
        dx -= sx;
        dy -= sy;
        int64_t unit = (s->dst_addr - emit_recv_base(e, s->dst_core, p) * wb) / per;
        if (dx < e->chip->hop_min || dx > e->chip->hop_max || dy < e->chip->hop_min ||
            dy > e->chip->hop_max || unit < 0 || unit >= (1 << 12) || s->words / per > 4096 ||
            (s->run != s->stride && (s->run / per > 128 || (s->stride - s->run) / per >= 4096)))
            return diag_add(e->d, ST_LOGIC, "emit.route", c->name,
                            "phase %d: a packet to %s (dx %lld, dy %lld, address unit %lld, %lld "
                            "packets of %s) leaves the header's ranges", p,
                            e->cores[s->dst_core].name, (long long)dx, (long long)dy,
                            (long long)unit, (long long)(s->words / per),
                            single ? "1 byte" : "8 bytes");
        /* packet k lands at unit A + (k / (C + 1)) * (C + 1 + O) + k % (C + 1): runs of
         * C + 1 packets O units apart; one contiguous run: C = O = 0 */
        bool strided = s->run != s->stride;
        st = add_head(e, r, single, true, s->relay, dx, dy, unit, s->words / per,
                      strided ? s->run / per - 1 : 0, strided ? (s->stride - s->run) / per : 0);
        if (st != ST_OK)
            return st;
    }
    return ST_OK;
}

/* The relaying part of core k's P09 in phase p (a core of a chain that forwards). */
static Status relay_part(Emit *e, uint32_t k, int32_t p, Taskir__Asm__P09 *r)
{
    const EPhase *ph = &e->cores[k].ph[p];
    int64_t sx, sy, nx, ny;
    global_xy(e, &e->cores[k], &sx, &sy);
    global_xy(e, &e->cores[ph->chain_next], &nx, &ny);
    nx -= sx;
    ny -= sy;
    if (ph->relayed > 4096 || nx < e->chip->hop_min || nx > e->chip->hop_max ||
        ny < e->chip->hop_min || ny > e->chip->hop_max)
        return diag_add(e->d, ST_LOGIC, "emit.route", e->cores[k].name,
                        "phase %d: forwards %lld packets to %s (Nx %lld, Ny %lld): more than "
                        "Relay_number holds (4096) or a step out of the header's range", p,
                        (long long)ph->relayed, e->cores[ph->chain_next].name, (long long)nx,
                        (long long)ny);
    SET(r, cxy, 1);
    SET(r, nx, (int32_t)nx);
    SET(r, ny, (int32_t)ny);
    SET(r, relay_number, (int32_t)(ph->relayed - 1));
    return ST_OK;
}

/* Every core's P09s, phase by phase. An overlap that records a buffer to send twice
 * (emit_senddup.c) fails the pass but does not end it: the other cores and phases are
 * checked on and their overlaps recorded too, so that the next pass has them all
 * (test_diff_ops/broadcast_div_case_1_variant_1-4 records 54 in 6 passes, 13 in all; one
 * a pass before, 60 in all); any other refusal ends it. */
Status emit_router_prims(Emit *e)
{
    char id[32];
    Status cst = emit_twin_sends(e); /* twins sharing one area get their words once */
    if (cst == ST_OK)
        cst = emit_route_chains(e);
    if (cst == ST_OK)
        cst = emit_route_spill(e); /* what a phase's P09 cannot hold (emit_route_spill.c) */
    if (cst != ST_OK)
        return cst;
    Status dup = ST_OK; /* an overlap that recorded a buffer to send twice */
    for (uint32_t k = 0; k < e->n_cores; k++) {
        ECore *c = &e->cores[k];
        for (int32_t p = 0; p < c->n_phases; p++) {
            EPhase *ph = &c->ph[p];
            if (!ph->n_sends && !ph->recv_marks)
                continue;
            Taskir__Asm__StaticPrimList *l = emit_slot_list(e, k, p);
            Taskir__Asm__RouterPrim *rp =
                l ? emit_msg(e, sizeof *rp, (void (*)(void *))taskir__asm__router_prim__init)
                  : NULL;
            Taskir__Asm__P09 *r =
                rp ? emit_msg(e, sizeof *r, (void (*)(void *))taskir__asm__p09__init) : NULL;
            if (!r) {
                free(rp);
                return ST_RUNTIME;
            }
            l->router = rp;
            rp->p09 = r;
            if (ph->n_sends) {
                size_t dups = emit_pins_n(e, EPIN_DUP), pitches = emit_pins_n(e, EPIN_PITCH);
                Status st = send_part(e, k, p, r);
                if (st == ST_LOGIC && emit_pins_n(e, EPIN_DUP) > dups &&
                    emit_pins_n(e, EPIN_PITCH) == pitches) {
                    dup = st; /* the pass goes on to record the other cores' and phases' */
                    continue;
                }
                if (st != ST_OK)
                    return st;
                snprintf(id, sizeof id, "b%d", ph->sends[0].block);
                rp->send_block = emit_strdup(e, id);
            }
            if (ph->relayed) {
                Status st = relay_part(e, k, p, r);
                if (st != ST_OK)
                    return st;
            }
            if (ph->recv_marks) {
                SET(r, receive_en, true);
                SET(r, receive_number, ph->recv_marks - 1);
                int64_t base = emit_recv_base(e, k, p);
                SET(r, addr_din_base, (int32_t)(base - ASM_MEM2_BASE));
                SET(r, addr_din_length, (int32_t)((ASM_MEM3_BASE - base) / 2 - 1));
                snprintf(id, sizeof id, "b%d", ph->recv_block);
                rp->receive_block = emit_strdup(e, id);
            }
            if (e->d->oom)
                return ST_RUNTIME;
        }
    }
    return dup;
}
