/* emit_lanes.c: a rearrangement that moves values between pixels or between the lanes of a
 * pixel, realised by the router in 1-byte packets (docs/backend.md, "Rearrangements", "Bytes
 * between lanes"). No P06 moves a value to another lane, but the router's SINGLE_NEURON
 * packets land each byte where its header says: so the writer writes its result into an
 * output buffer as it lays it out, and its core's router sends the buffer's bytes, each to
 * the lane of the copy that takes the value (to itself, dx = dy = 0, when the copy is on the
 * writer's core: the copy then lives in the receive area; or to the reader's core). The
 * values are sent in the buffer's order, so that runs of bytes that follow each other in the
 * buffer and land equally far apart share a MULTI_USE header (emit_route.c's runs; the
 * buffer's bytes not sent are skipped by disabled headers); a phase holds at most 128
 * headers and a header reaches 4 KiB from the receiver's base (else emit.route). A
 * rearrangement of whole pixels (each of the copy's pixels whole from one of the writer's,
 * every value in its lane, both pixels of one even count of words) goes a pixel a run of
 * words in 8-byte packets instead (lane_pixels, docs/backend.md "Whole pixels").
 *
 * Requires: the writer's result and the copy are maps of y, x and channels of whole bytes
 * (int8, int32), in one precision or through a send area that a P06 rewrites the buffer
 * into (emit_sendbuf.c); each value of the copy's part comes from one value of the
 * result (no zero a step fills in). The router reads its area's bytes once a phase: a
 * value that lands in several places goes to one of them a phase, the others in the phases
 * after (emit_route_spill.c), which the mapper keeps for them (taskir/lanes.h lanes_phases).
 */
#include "backend/emit_internal.h"

#include "taskir/diag_block.h"
#include "taskir/edge_map.h"
#include "taskir/rearrange.h"

#include <stdlib.h>

bool emit_lanes_straight(const Emit *e, const Edge *ed, uint32_t w, const EBox *box)
{
    if (!ed->n_re)
        return true;
    EBox ob;
    if (!emit_iface_box(e, w, false, ed->id, &ob))
        return false;
    bool flat = ob.n[0] * ob.n[1] == 1 && box->n[0] * box->n[1] == 1;
    bool pixels = ob.n[0] * ob.n[1] == box->n[0] * box->n[1] &&
                  (flat || emit_whole_iface(e, w, false, ed->id));
    return pixels && ob.n[2] == box->n[2] && emit_keeps_order(e, ed);
}

/* The extents y, x, channels of block b's cluster 0 (input or output side), when it is a
 * map of those dims only: its volume, else 0. */
static int64_t map_dims(const Block *b, bool input, int64_t n[3])
{
    int32_t cd[TIR_CDIMS];
    if (!blk_cluster_dims(b, input, 0, cd))
        return 0;
    int64_t v = 1;
    for (int i = 0; i < TIR_CDIMS; i++)
        if (cd[i] > 1 && i != D_Y && i != D_X && i != D_F && i != D_R)
            return 0;
    if (cd[D_F] > 1 && cd[D_R] > 1)
        return 0;
    n[0] = cd[D_Y] > 0 ? cd[D_Y] : 1;
    n[1] = cd[D_X] > 0 ? cd[D_X] : 1;
    n[2] = cd[D_F] > 0 ? cd[D_F] : cd[D_R] > 0 ? cd[D_R] : 1;
    for (int i = 0; i < 3 && v <= RA_MAX_ELEMS; i++)
        v *= n[i];
    return v <= RA_MAX_ELEMS ? v : 0;
}

/* A byte move: the value at src (a byte of the sender's memory) lands at dst. */
typedef struct LMove {
    int64_t src, dst;
} LMove;

static int move_cmp(const void *a, const void *b)
{
    const LMove *x = a, *y = b; /* a value sent to several places: in the order they land */
    return x->src != y->src ? (x->src < y->src ? -1 : 1) : (x->dst > y->dst) - (x->dst < y->dst);
}

/* The byte moves mv[0..n) of whole pixels (a pixel's nc channels one after another, every
 * copy's channel from the same lane of one source pixel, the source's and the copy's pixels
 * of the same even count of words) as word moves, one a pixel: from the source pixel's
 * first word to the copy pixel's. The router then sends each pixel whole in 8-byte packets,
 * its padding lanes with it, and pixels that follow each other in the sender's memory and
 * land one after another in the copy's share a header (docs/backend.md "Bytes between
 * lanes", "Whole pixels"): a header a run of pixels, not a header and a gap a value. */
static int64_t lane_pixels(LMove *mv, int64_t n, int64_t nc)
{
    int64_t m = 0;
    for (int64_t i = 0; i < n; i += nc)
        mv[m++] = (LMove){mv[i].src / 4, mv[i].dst / 4};
    return m;
}

int64_t emit_value_bytes(PrecisionId p)
{
    int bits = pr_info(p)->bits;
    return bits == 8 ? 1 : bits == 32 ? 4 : 0;
}

/* Where writer w's values lie on its core for a send in phase p: point (y, x, c) of its
 * output (inside have) at point (y + d[0], x + d[1]) and channel c + d[2] of an area laid out
 * as feat over box `area` from word base. */
typedef struct LSrc {
    const EmitFeat *feat;
    EBox have, area;
    int64_t base, d[3];
} LSrc;

/* The source of w's values on its core in phase p, in precision prec: its output buffer (or
 * the send area a P06 rewrites it into, emit_sendbuf.c), else the copy on its core of a
 * storage block it writes straight, without steps (its primitive's area). false and a logic
 * error [emit.rearrange / emit.route] when there is none alive. */
static Status lane_source(Emit *e, const Edge *ed, uint32_t w, int32_t p, const ECopy *dcp,
                          LSrc *src)
{
    PrecisionId prec = dcp->feat.prec;
    const Block *wb = e->g->blocks[w];
    const EOut *o = &e->outs[w];
    uint32_t k = e->core_of[w];
    const ECore *c = &e->cores[k];
    if (o->used) {
        /* another precision: the send area a P06 rewrites the buffer into (emit_sendbuf.c);
         * fewer words a pixel: the area in the copy's pitch, if any (emit_lanearea.c) */
        const ESendBuf *sb =
            o->feat.prec != prec ? emit_sendbuf_of(e, w, prec)
            : dcp->feat.c < o->feat.c
                ? emit_sendbuf_pitch(e, w, dcp->feat.c, emit_send_time(e, w, p), dcp->block)
                : NULL;
        const AllocReq *r = &c->reqs[sb ? sb->req : o->req]; /* the area it sends from */
        if (p < r->first || p > r->last)
            return diag_block(e->d, ST_LOGIC, "emit.route", wb,
                              "sends edge %d in phase %d, when its %s on %s is no longer "
                              "alive (phases %d..%d)", ed->id, p,
                              sb ? "send area" : "output buffer", c->name, r->first, r->last);
        *src = (LSrc){sb ? &sb->feat : &o->feat, o->box, o->box,
                      c->addr[sb ? sb->req : o->req], {0, 0, 0}};
        return ST_OK;
    }
    ELocalOuts it = emit_local_outs(w, k); /* the storage it writes on its core */
    for (ECopy *cp; (cp = emit_local_outs_next(e, &it));) {
        const Edge *le = it.ed;
        uint32_t s = it.s;
        EBox lbox, lw;
        if (cp->view && !cp->planes && emit_whole_iface(e, w, false, le->id) &&
            emit_iface_box(e, w, false, le->id, &lw)) {
            /* a view holds the writer's map as the writer lays it out (emit_rearr.c): the
             * writer's point wp at the view's point wp */
            if (p < cp->first || p > cp->last)
                return diag_block(e->d, ST_LOGIC, "emit.route", wb,
                                  "sends edge %d in phase %d, when its view block %d on %s is "
                                  "no longer alive (phases %d..%d)", ed->id, p,
                                  e->g->blocks[s]->id, c->name, cp->first, cp->last);
            /* another precision: the send area a P06 rewrites the view into */
            const ESendBuf *sb = cp->feat.prec != prec ? emit_sendbuf_of(e, w, prec) : NULL;
            *src = (LSrc){sb ? &sb->feat : &cp->feat, lw, lw,
                          sb ? c->addr[sb->req] : emit_copy_addr(e, cp), {0, 0, 0}};
            return ST_OK;
        }
        if (le->n_re || cp->view || cp->planes ||
            !emit_iface_box(e, s, true, le->id, &lbox) ||
            !emit_iface_box(e, w, false, le->id, &lw))
            continue;
        if (p < cp->first || p > cp->last)
            return diag_block(e->d, ST_LOGIC, "emit.route", wb,
                              "sends edge %d in phase %d, when its copy of block %d on %s is "
                              "no longer alive (phases %d..%d)", ed->id, p, e->g->blocks[s]->id,
                              c->name, cp->first, cp->last);
        /* writer point wp lives at copy point lbox.lo + (wp - lw.lo), inside lw */
        *src = (LSrc){&cp->feat, cp->box, cp->box, emit_copy_addr(e, cp),
                      {lbox.lo[0] - lw.lo[0], lbox.lo[1] - lw.lo[1], lbox.lo[2] - lw.lo[2]}};
        for (int i = 0; i < 3; i++) { /* the writer's points the copy holds */
            int64_t lo = lw.lo[i] > cp->box.lo[i] - src->d[i] ? lw.lo[i]
                                                               : cp->box.lo[i] - src->d[i];
            int64_t hi = lw.lo[i] + lw.n[i] < cp->box.lo[i] + cp->box.n[i] - src->d[i]
                             ? lw.lo[i] + lw.n[i] : cp->box.lo[i] + cp->box.n[i] - src->d[i];
            src->have.lo[i] = lo;
            src->have.n[i] = hi > lo ? hi - lo : 0;
        }
        return ST_OK;
    }
    return diag_edge(e->d, ST_LOGIC, "emit.rearrange", ed->id,
                     "its rearrangement moves values between lanes, which the router does in "
                     "1-byte packets from the writer's (block %d's) area on its core: it "
                     "writes none there", wb->id);
}

Status emit_lane_runs(Emit *e, const Edge *ed, uint32_t w, uint32_t sk, int32_t p,
                      const ECopy *dcp, uint32_t dk, const EBox *part, int64_t dbase)
{
    const Block *wb = e->g->blocks[w];
    long s = graph_block_pos(e->g, ed->dst);
    if (sk != e->core_of[w] || s < 0)
        return diag_edge(e->d, ST_LOGIC, "emit.rearrange", ed->id,
                         "its rearrangement moves values between lanes, which the router does "
                         "in 1-byte packets from the writer's (block %d's) core only, not "
                         "from a relay", wb->id);
    if (dcp->view || dcp->planes) /* laid out as another map: not at its box's points */
        return diag_edge(e->d, ST_LOGIC, "emit.rearrange", ed->id,
                         "moves values between lanes into block %d's copy on %s, which is "
                         "laid out as %s", e->g->blocks[s]->id, e->cores[dk].name,
                         dcp->view ? "its writer's map" : "P81's planes");
    const EmitFeat *df = &dcp->feat;
    LSrc src;
    Status sst = lane_source(e, ed, w, p, dcp, &src);
    if (sst != ST_OK)
        return sst;
    const EmitFeat *sf = src.feat;
    int64_t vb = emit_value_bytes(df->prec), wn[3], sn[3];
    int64_t wvol = map_dims(wb, false, wn), svol = map_dims(e->g->blocks[s], true, sn);
    EBox dbox;
    if (!emit_iface_box(e, (uint32_t)s, true, ed->id, &dbox))
        return diag_edge(e->d, ST_RUNTIME, "emit.internal", ed->id, "no box");
    int64_t vol = dbox.n[0] * dbox.n[1] * dbox.n[2];
    if (!vb || sf->prec != df->prec || !wvol || !svol || vol < 1 || vol > svol)
        return diag_edge(e->d, ST_LOGIC, "emit.rearrange", ed->id,
                         "its rearrangement moves values between lanes: 1-byte packets move "
                         "them only between maps of y, x and channels of one precision of "
                         "whole bytes (block %d holds %s values, the copy %s)", wb->id,
                         pr_info(sf->prec)->name, pr_info(df->prec)->name);
    int32_t *map = malloc((size_t)vol * sizeof *map);
    LMove *mv = malloc((size_t)vol * sizeof *mv);
    Status st = map && mv ? edge_element_map(e->g, &e->uses, ed, map, vol, e->d)
                          : diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    int64_t n = 0, pw = emit_feat_pixel_words(df);
    /* whole pixels (see lane_pixels) while every value keeps its lane */
    bool whole = part->lo[2] == dcp->box.lo[2] && part->n[2] == dcp->box.n[2] &&
                 emit_feat_pixel_words(sf) == pw && pw % 2 == 0;
    for (int64_t i = 0; st == ST_OK && i < vol; i++) {
        int64_t y = dbox.lo[0] + i / (dbox.n[1] * dbox.n[2]);
        int64_t x = dbox.lo[1] + i / dbox.n[2] % dbox.n[1], f = dbox.lo[2] + i % dbox.n[2];
        if (y < part->lo[0] || y >= part->lo[0] + part->n[0] || x < part->lo[1] ||
            x >= part->lo[1] + part->n[1] || f < part->lo[2] || f >= part->lo[2] + part->n[2])
            continue;
        int64_t sy = map[i] / (wn[1] * wn[2]), sx = map[i] / wn[2] % wn[1], sc = map[i] % wn[2];
        const EBox *sbx = &src.have;
        if (map[i] < 0 || map[i] >= wvol || sy < sbx->lo[0] || sy >= sbx->lo[0] + sbx->n[0] ||
            sx < sbx->lo[1] || sx >= sbx->lo[1] + sbx->n[1] || sc < sbx->lo[2] ||
            sc >= sbx->lo[2] + sbx->n[2]) {
            st = diag_edge(e->d, ST_LOGIC, "emit.rearrange", ed->id,
                           "value %lld of block %d is %s: the router moves the values of the "
                           "writer's output buffer, it writes none", (long long)i,
                           e->g->blocks[s]->id, map[i] < 0 ? "a zero a step fills in"
                                                            : "outside the writer's buffer");
            break;
        }
        mv[n].src = emit_feat_addr(sf, &src.area, src.base, sy + src.d[0], sx + src.d[1]) * 4 +
                    (sc + src.d[2] - src.area.lo[2]) * vb;
        mv[n].dst = emit_feat_addr(df, &dcp->box, dbase, y, x) * 4 +
                    (f - dcp->box.lo[2]) * vb;
        if (f == part->lo[2]) /* a pixel's first: lane 0, on an 8-byte unit in both */
            whole &= sc + src.d[2] == src.area.lo[2] && mv[n].src % 8 == 0 &&
                     mv[n].dst % 8 == 0;
        else /* the next lane of the same source pixel */
            whole &= mv[n].src == mv[n - 1].src + vb;
        n++;
    }
    if (st == ST_OK && whole)
        n = lane_pixels(mv, n, part->n[2]);
    if (st == ST_OK)
        qsort(mv, (size_t)n, sizeof *mv, move_cmp);
    int32_t block = e->g->blocks[dcp->block]->id;
    for (int64_t i = 0; st == ST_OK && i < n; i++)
        st = whole ? emit_route_run(e, sk, p, dk, mv[i].src, pw, mv[i].dst, block, false)
                   : emit_route_run(e, sk, p, dk, mv[i].src, vb, mv[i].dst, block, true);
    free(map);
    free(mv);
    return st;
}
