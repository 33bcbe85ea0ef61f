/* emit_bandslice.c: a copy laid out band by band and slice by slice for the writer it feeds
 * (docs/backend.md, "Transfers", "Column slices sent from compact areas"). A copy spread
 * over phases (emit_spread.c) and read only by a 1 x 1 CCMPB / CCMPS of the whole map or a
 * CLUT, whose output buffer goes out in column slices, each to one core (its own core's by a
 * gather):
 * the router would send the writer's result a run a row and slice (53 rows to 6 cores, 318
 * headers; emit_sliceout.c needs a Soma slot a slice, and a Soma writer in the send's own
 * phase leaves none). Where those runs pass the header table's 128, the copy is laid out
 * band by band, each band's rows slice by slice ([band][slice][row][slice's pixels]): the
 * 1 x 1 window writes its result in its input's order, so each slice of a band is one run
 * of its buffer: a header a band and slice. Two ways of assembling it:
 * - from column slices of Win columns of all its rows (out slices Win / 2), its parts bands
 *   of whole rows: each writer's slice of a band lands compact in the part's landing area,
 *   one slice after the other ([slice][row][Win pixels]), and the part's move, a P26 in its
 *   slot instead of the P06, splits each landed row into its first and last Win / 2
 *   pixels, both compact (out: the band's slices' first halves one after the other, ciso
 *   their second halves), in the band's words of the copy's area;
 * - from boxes of whole pixels that writers on other cores send to it (win 0; straight, or
 *   by relays that hold copies of its family, below):
 *   the bands are the rows inside one part and each row two parts share alone, so each
 *   part holds the pixels it holds in [y][x] order (those the Mapping's phases bring), and
 *   a writer's router lands each of its rows slice by slice at their place (runs of a
 *   slice's pixels equally far apart, a band's rows times a slice's pixels: one header a
 *   row), so the landing area holds the part's words in their final order and its move
 *   stays one P06; the writer's result may go to a copy gathered on its own core, or to a
 *   spread one (its part's landing area); its first and last slices may be narrower than
 *   the others (each slice's rows at its own width).
 * The copies of the same boxes of the same writers (a family: a relaying chain lands them on
 * several cores, and a forwarded packet keeps its address) are laid out alike or not at
 * all: when one's writer needs the layout, every one of them takes its slices, with the
 * same bands, each read by such a block whose result goes out in whole slices (its router
 * then sends a band's rows of each slice as one run; by several pairs to one core too, into
 * a copy laid out so itself), and every relay holds one of them.
 * A copy or buffer used otherwise is not laid out so. */
#include "backend/emit_internal.h"

#include <stdlib.h>
#include <string.h>

/* Copy cp's parts (emit_spread.c) in its [y][x] order: whether they are runs of it (one
 * each, in the copy's pitch; with rows, bands of whole rows) that cover it. */
static bool whole_bands(const Emit *e, const ECopy *cp, uint32_t ci, bool rows)
{
    int64_t nx = cp->box.n[1], total = 0;
    for (size_t i = 0; i < e->n_parts; i++) {
        const EPart *pt = &e->parts[i];
        if (pt->copy[1] == ci && pt->nq[1] > 0)
            return false;
        if (pt->copy[0] != ci)
            continue;
        if (pt->nq[1] > 0 || pt->pitch || (rows && (pt->q0[0] % nx || pt->nq[0] % nx)))
            return false;
        total += pt->nq[0];
    }
    return total == cp->box.n[0] * nx;
}

/* The slices' width of storage block s's in-edges when each is a column slice of all its
 * rows and channels from a compute block on another core than k, all of one even width;
 * 0 when not. */
static int64_t in_width(const Emit *e, uint32_t s, const ECopy *cp, uint32_t k)
{
    const BlockUses *bu = &e->uses.blocks[s];
    int64_t win = 0;
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const Edge *ed = e->g->edges[bu->in_edges[j]];
        long w = graph_block_pos(e->g, ed->src);
        EBox d;
        if (w < 0 || e->core_of[w] == k || !emit_iface_box(e, s, true, ed->id, &d) ||
            d.n[0] != cp->box.n[0] || d.lo[2] != cp->box.lo[2] || d.n[2] != cp->box.n[2] ||
            (win && d.n[1] != win))
            return 0;
        win = d.n[1];
    }
    return win % 2 ? 0 : win;
}

/* Whether storage block s's in-edges all come from compute blocks on other cores than k,
 * each a box of all copy cp's channels whose pixels the writer's core sends to k (no bytes
 * between lanes), into a copy merged from nothing; *relayed: whether another core sends
 * some of them (a relay: relays_in). */
static bool remote_writers(Emit *e, uint32_t s, const ECopy *cp, uint32_t k, bool *relayed)
{
    const BlockUses *bu = &e->uses.blocks[s];
    if (emit_merge_of(e, cp) || emit_chmerge_of(e, cp))
        return false;
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const Edge *ed = e->g->edges[bu->in_edges[j]];
        long w = graph_block_pos(e->g, ed->src);
        const MapDict *dict = emit_edge_dict(e, ed->id);
        EBox d;
        if (w < 0 || !dict || e->core_of[w] == k || !emit_iface_box(e, s, true, ed->id, &d) ||
            d.lo[2] != cp->box.lo[2] || d.n[2] != cp->box.n[2] ||
            emit_moves_lanes(e, ed, (uint32_t)w, &d))
            return false;
        Status st = ST_OK;
        uint32_t sk, rk;
        for (uint32_t c = 0; emit_dict_pair(e, dict, &c, &sk, &rk, &st); c++) {
            if (rk != k)
                return false;
            *relayed |= sk != e->core_of[w];
        }
        if (st != ST_OK)
            return false;
    }
    return bu->n_in_edges > 0;
}

/* Copy cp's bands (into bs) from its parts (runs of its pixels in [y][x] order, one a phase):
 * the rows that lie in one part, one after the other, and each row that two parts share
 * alone. Each part then holds the same pixels as in the copy's [y][x] order (a row alone is
 * its own order), so the Mapping's phases bring them; false when more than BANDSLICE_MAX. */
static bool part_bands(const Emit *e, const ECopy *cp, uint32_t ci, EBandSlice *bs)
{
    int64_t nx = cp->box.n[1], last = -1; /* the part holding the last band, or -1 */
    bs->nb = 0;
    for (int64_t y = 0; y < cp->box.n[0]; y++) {
        int64_t part = -1; /* the part holding row y whole, or -1 */
        for (size_t i = 0; i < e->n_parts && part < 0; i++) {
            const EPart *pt = &e->parts[i];
            if (pt->copy[0] == ci && pt->q0[0] <= y * nx &&
                (y + 1) * nx <= pt->q0[0] + pt->nq[0])
                part = (int64_t)i;
        }
        if (bs->nb && part >= 0 && part == last) {
            bs->rows[bs->nb - 1]++;
            continue;
        }
        if (bs->nb == BANDSLICE_MAX)
            return false;
        bs->y0[bs->nb] = cp->box.lo[0] + y;
        bs->rows[bs->nb++] = 1;
        last = part;
    }
    return true;
}

/* The one block reading storage s: a CCMPB / CCMPS of a 1 x 1 window over all of it, whose
 * result is as large, or a CLUT reading all of it (P07 looks up each pixel in turn: its
 * result's pixels in its input's order); -1 when not. */
static long pointwise_reader(const Emit *e, uint32_t s)
{
    const BlockUses *bu = &e->uses.blocks[s];
    if (bu->n_out_edges != 1)
        return -1;
    const Edge *ed = e->g->edges[bu->out_edges[0]];
    long r = graph_block_pos(e->g, ed->dst);
    const Block *b = r >= 0 ? e->g->blocks[r] : NULL;
    if (b && b->type == BT_CLUT)
        return emit_whole_iface(e, (uint32_t)r, true, ed->id) ? r : -1;
    if (!b || (b->type != BT_CCMPB && b->type != BT_CCMPS) ||
        !emit_whole_iface(e, (uint32_t)r, true, ed->id) || b->shape.d[D_KY] > 1 ||
        b->shape.d[D_KX] > 1 || blk_attr(b, AT_STRIDE_X) != 1 || blk_attr(b, AT_STRIDE_Y) != 1 ||
        blk_attr(b, AT_PAD_UP) || blk_attr(b, AT_PAD_DOWN) || blk_attr(b, AT_PAD_LEFT) ||
        blk_attr(b, AT_PAD_RIGHT))
        return -1;
    return r;
}

/* The widest column slice writer w's out-edges take of its result (0 when none), and in
 * *lead the width of the one from its first column (0 when none). */
static int64_t out_width(const Emit *e, uint32_t w, int64_t *lead)
{
    const BlockUses *bu = &e->uses.blocks[w];
    int64_t most = 0;
    *lead = 0;
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        EBox box;
        if (!emit_iface_box(e, w, false, e->g->edges[bu->out_edges[j]]->id, &box))
            return 0;
        most = box.n[1] > most ? box.n[1] : most;
        *lead = box.lo[1] == e->outs[w].box.lo[1] ? box.n[1] : *lead;
    }
    return most;
}

void emit_bandslice_slice(const Emit *e, const EBandSlice *bs, int64_t dx, int64_t *x0,
                          int64_t *w)
{
    int64_t nx = e->copies[bs->copy].box.n[1], lead = bs->lead ? bs->lead : bs->out;
    *x0 = dx < lead ? 0 : lead + (dx - lead) / bs->out * bs->out;
    *w = dx < lead ? lead : bs->out;
    *w = *x0 + *w > nx ? nx - *x0 : *w;
}

/* Whether writer w's buffer goes, edge by edge, each a column slice of all rows and channels
 * of bs (with rows their first and last may be narrower; follow: or whole slices side by
 * side), to one copy: on another core, sent in one phase by w's core; or with rows on w's
 * core, gathered there (EOut.gather); into a copy of the buffer's precision and pitch that
 * is not spread (unless rows), with no send area of its own; and (unless follow) in more
 * runs than a header table holds. */
static bool sliced_out(Emit *e, uint32_t w, const EBandSlice *bs, bool rows, bool follow)
{
    const EOut *o = &e->outs[w];
    uint32_t k = e->core_of[w];
    const BlockUses *bu = &e->uses.blocks[w];
    if (!o->used || (o->gather && !rows) || o->aliased || o->over || o->req == EMIT_NONE)
        return false;
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        const Edge *ed = e->g->edges[bu->out_edges[j]];
        uint32_t s, sk, rk, pairs = 0, dk = EMIT_NONE;
        const MapDict *dict;
        EBox box, d;
        Status st = ST_OK;
        if (!emit_sendbuf_edge(e, w, j, &ed, &s, &dict, &box)) { /* a gather on w's core */
            long pos = graph_block_pos(e->g, ed->dst);
            if (!rows || !o->gather || pos < 0 || emit_edge_dict(e, ed->id) ||
                !emit_iface_box(e, w, false, ed->id, &box))
                return false;
            s = (uint32_t)pos;
            dk = k;
            pairs = 1;
        } else {
            for (uint32_t c = 0; emit_dict_pair(e, dict, &c, &sk, &rk, &st); c++) {
                /* following: in several phases from w's core to one core too */
                dk = sk == k && (!pairs || !follow || rk == dk) ? rk : EMIT_NONE;
                pairs++;
            }
            pairs = follow && dk != EMIT_NONE ? 1 : pairs;
            if (s == EMIT_NONE || dk == k || emit_copy_on(e, s, k) ||
                emit_sendbuf_pitch(e, w, o->feat.c, dict->coords[0].phase, s))
                return false;
        }
        const ECopy *dcp = dk != EMIT_NONE ? emit_copy_on(e, s, dk) : NULL;
        int64_t x0 = 0, sw = 0, z0 = 0, zw = 0; /* the slices of its first and last column */
        emit_bandslice_slice(e, bs, box.lo[1] - o->box.lo[1], &x0, &sw);
        emit_bandslice_slice(e, bs, box.lo[1] + box.n[1] - 1 - o->box.lo[1], &z0, &zw);
        if (st != ST_OK || pairs != 1 || !dcp || dcp->view || dcp->planes ||
            dcp->dup_of != EMIT_NONE || dcp->alias_of != EMIT_NONE || (dcp->spread && !rows) ||
            dcp->feat.prec != o->feat.prec || dcp->feat.c != o->feat.c ||
            !emit_iface_box(e, s, true, ed->id, &d) || d.n[0] != box.n[0] ||
            d.n[1] != box.n[1] || box.n[0] != o->box.n[0] ||
            box.lo[1] - o->box.lo[1] != x0 || (!follow && box.n[1] != sw) ||
            box.lo[1] + box.n[1] - o->box.lo[1] != z0 + zw || box.lo[2] != 0 ||
            box.n[2] != o->box.n[2] || emit_sendbuf_of(e, w, dcp->feat.prec))
            return false;
    }
    /* a run a row and slice: only where they pass the header table */
    return bu->n_out_edges > 0 && (follow || o->box.n[0] * bu->n_out_edges > 128);
}

/* Whether bs's slices meet whole pixels of 16-byte rows of both pixel sizes. */
static bool slices_align(const Emit *e, const EBandSlice *bs, int64_t pin, int64_t pout)
{
    int64_t nx = e->copies[bs->copy].box.n[1];
    int64_t last = bs->out > 0 && nx > bs->lead ? (nx - bs->lead) % bs->out : 0;
    const int64_t wd[3] = {bs->out, bs->lead, last};
    for (int i = 0; i < 3; i++)
        if ((pin * wd[i]) % 4 || (pout * wd[i]) % 4)
            return false;
    return true;
}

/* Whether storage blocks s and t have the same in-edges: from the same writers, the same
 * boxes of their results (the copies of one value a relaying chain lands on several cores:
 * a forwarded packet keeps its address, so they are all laid out alike or none is). */
static bool same_inputs(const Emit *e, uint32_t s, uint32_t t)
{
    const BlockUses *a = &e->uses.blocks[s], *b = &e->uses.blocks[t];
    if (a->n_in_edges != b->n_in_edges)
        return false;
    for (uint32_t i = 0; i < a->n_in_edges; i++) {
        const Edge *x = e->g->edges[a->in_edges[i]];
        EBox bx, by;
        bool found = false;
        long w = graph_block_pos(e->g, x->src);
        if (w < 0 || !emit_iface_box(e, (uint32_t)w, false, x->id, &bx))
            return false;
        for (uint32_t j = 0; j < b->n_in_edges && !found; j++) {
            const Edge *y = e->g->edges[b->in_edges[j]];
            found = y->src == x->src && emit_iface_box(e, (uint32_t)w, false, y->id, &by);
            for (int d = 0; d < 3 && found; d++)
                found = bx.lo[d] == by.lo[d] && bx.n[d] == by.n[d];
        }
        if (!found)
            return false;
    }
    return true;
}

/* A copy that may be laid out with whole-row bands (win 0): its record, whether another core
 * than its writers' relays some of its rows, whether its reader's result needs the layout
 * (sliced_out), and the family it belongs to (same_inputs; the index of its first member). */
typedef struct Cand {
    EBandSlice bs;
    bool relayed, need;
    size_t fam;
} Cand;

/* Whether every core that sends rows into cand c's copy is its writer's or holds a copy of
 * its family (cands[0..n)): a relay forwards what it lands. */
static bool relays_in(Emit *e, const Cand *cands, size_t n, size_t c)
{
    const ECopy *cp = &e->copies[cands[c].bs.copy];
    const BlockUses *bu = &e->uses.blocks[cp->block];
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const Edge *ed = e->g->edges[bu->in_edges[j]];
        long w = graph_block_pos(e->g, ed->src);
        Status st = ST_OK;
        uint32_t sk, rk;
        const MapDict *dict = emit_edge_dict(e, ed->id);
        for (uint32_t q = 0; emit_dict_pair(e, dict, &q, &sk, &rk, &st); q++) {
            bool held = w >= 0 && sk == e->core_of[w];
            for (size_t i = 0; i < n && !held; i++)
                held = cands[i].fam == cands[c].fam && e->copies[cands[i].bs.copy].core == sk;
            if (!held)
                return false;
        }
        if (st != ST_OK)
            return false;
    }
    return true;
}

/* The rows layout of a family (cands with fam f) when one of its copies' readers needs it:
 * every copy then takes that one's slices (the others' readers send whole slices: follow),
 * all with the same bands, and each relay holds one of them; else none (false). */
static bool family_takes(Emit *e, Cand *cands, size_t n, size_t f)
{
    const EBandSlice *lay = NULL;
    for (size_t i = 0; i < n && !lay; i++)
        if (cands[i].fam == f && cands[i].need)
            lay = &cands[i].bs;
    if (!lay)
        return false;
    for (size_t i = 0; i < n; i++) {
        EBandSlice *bs = &cands[i].bs;
        if (cands[i].fam != f)
            continue;
        const ECopy *cp = &e->copies[bs->copy];
        bool same = bs->nb == lay->nb && !memcmp(bs->y0, lay->y0, sizeof bs->y0) &&
                    !memcmp(bs->rows, lay->rows, sizeof bs->rows);
        bs->lead = lay->lead;
        bs->out = lay->out;
        if (!same || (cands[i].relayed && !relays_in(e, cands, n, i)) ||
            !slices_align(e, bs, emit_feat_pixel_words(&cp->feat),
                          emit_feat_pixel_words(&e->outs[bs->writer].feat)) ||
            !sliced_out(e, bs->writer, bs, true, !cands[i].need))
            return false;
    }
    return true;
}

static Status add_bandslice(Emit *e, const EBandSlice *bs)
{
    EBandSlice *nb = emit_grow(e, e->bandslices, &e->cap_bandslices, e->n_bandslices,
                               sizeof *nb);
    if (!nb)
        return ST_RUNTIME;
    e->bandslices = nb;
    nb[e->n_bandslices++] = *bs;
    return ST_OK;
}

Status emit_bandslice_plan(Emit *e)
{
    Cand *cands = malloc((e->n_copies ? e->n_copies : 1) * sizeof *cands);
    if (!cands)
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    size_t n = 0;
    Status st = ST_OK;
    for (uint32_t ci = 0; ci < e->n_copies && st == ST_OK; ci++) {
        const ECopy *cp = &e->copies[ci];
        uint32_t s = cp->block;
        if (!cp->spread || e->n_copy[s] != 1 || cp->view || cp->planes ||
            cp->alias_of != EMIT_NONE || cp->dup_of != EMIT_NONE || cp->unit ||
            cp->req == EMIT_NONE || cp->box.lo[0] || cp->box.lo[1])
            continue;
        EBandSlice bs = {.copy = ci};
        bool relayed = false;
        bs.win = whole_bands(e, cp, ci, true) ? in_width(e, s, cp, cp->core) : 0;
        bool rows = !bs.win && whole_bands(e, cp, ci, false) && part_bands(e, cp, ci, &bs) &&
                    remote_writers(e, s, cp, cp->core, &relayed);
        long r = bs.win || rows ? pointwise_reader(e, s) : -1;
        if (r < 0)
            continue;
        bs.writer = (uint32_t)r;
        /* with rows, the first and last slices may be narrower (a map 9 pixels wide in
           slices of 1, 2, 2, 2 and 2, or of 2, 2, 2, 2 and 1) */
        bs.out = rows ? out_width(e, bs.writer, &bs.lead) : bs.win / 2;
        bs.lead = rows ? bs.lead : bs.out;
        int64_t nx = cp->box.n[1];
        if (e->core_of[r] != cp->core || e->outs[r].box.lo[0] || e->outs[r].box.lo[1] ||
            e->outs[r].box.n[0] != cp->box.n[0] || e->outs[r].box.n[1] != nx || bs.out <= 0 ||
            bs.lead <= 0 || bs.lead > bs.out || (!rows && nx % bs.out) ||
            (rows && (emit_feat_pixel_words(&cp->feat) % 2 ||
                      emit_feat_pixel_words(&e->outs[r].feat) % 2)))
            continue;
        bool need = sliced_out(e, bs.writer, &bs, rows, false) &&
                    slices_align(e, &bs, emit_feat_pixel_words(&cp->feat),
                                 emit_feat_pixel_words(&e->outs[r].feat));
        if (!rows) { /* from column slices: its own */
            st = need ? add_bandslice(e, &bs) : ST_OK;
            continue;
        }
        size_t fam = n;
        for (size_t i = 0; i < n && fam == n; i++)
            if (same_inputs(e, s, e->copies[cands[i].bs.copy].block))
                fam = cands[i].fam;
        cands[n++] = (Cand){bs, relayed, need, fam};
    }
    for (size_t f = 0; f < n && st == ST_OK; f++)
        if (cands[f].fam == f && family_takes(e, cands, n, f))
            for (size_t i = f; i < n && st == ST_OK; i++)
                st = cands[i].fam == f ? add_bandslice(e, &cands[i].bs) : ST_OK;
    free(cands);
    return st;
}

const EBandSlice *emit_bandslice_copy(const Emit *e, uint32_t ci)
{
    for (size_t i = 0; i < e->n_bandslices; i++)
        if (e->bandslices[i].copy == ci)
            return &e->bandslices[i];
    return NULL;
}

const EBandSlice *emit_bandslice_writer(const Emit *e, uint32_t w)
{
    for (size_t i = 0; i < e->n_bandslices; i++)
        if (e->bandslices[i].writer == w)
            return &e->bandslices[i];
    return NULL;
}

int emit_bandslice_bands(const Emit *e, const EBandSlice *bs, int64_t *y0, int64_t *rows,
                         int max)
{
    const ECopy *cp = &e->copies[bs->copy];
    int n = 0;
    for (; !bs->win && n < bs->nb && n < max; n++) {
        y0[n] = bs->y0[n];
        rows[n] = bs->rows[n];
    }
    for (size_t i = 0; bs->win && i < e->n_parts && n < max; i++)
        if (e->parts[i].copy[0] == bs->copy) {
            y0[n] = cp->box.lo[0] + e->parts[i].q0[0] / cp->box.n[1];
            rows[n++] = e->parts[i].nq[0] / cp->box.n[1];
        }
    return n;
}

int64_t emit_bandslice_at(const Emit *e, const EBandSlice *bs, int64_t y0, int64_t rows,
                          int64_t x, int64_t pw)
{
    const ECopy *cp = &e->copies[bs->copy];
    int64_t nx = cp->box.n[1], dx = x - cp->box.lo[1], half = bs->win / 2;
    if (!bs->win) { /* the band's slices one after the other, each as wide as it is */
        int64_t x0, w;
        emit_bandslice_slice(e, bs, dx, &x0, &w);
        return ((y0 - cp->box.lo[0]) * nx + x0 * rows) * pw;
    }
    int64_t slice = dx / bs->win, second = dx % bs->win >= half;
    /* the band's pixels from (y0 - the copy's first row) * nx on: the first halves of its
     * slices, slice by slice, then the second halves */
    return ((y0 - cp->box.lo[0]) * nx + second * rows * (nx / 2) + slice * rows * half) * pw;
}

int emit_bandslice_land(const Emit *e, const EPart *pt, const EBox *part, EBox *piece,
                        ECopy *stand, int64_t *dbase)
{
    uint32_t ci = pt->copy[0];
    const EBandSlice *bs = emit_bandslice_copy(e, ci);
    const ECopy *cp = &e->copies[ci];
    int64_t rows = pt->nq[0] / cp->box.n[1], y0 = cp->box.lo[0] + pt->q0[0] / cp->box.n[1];
    int64_t hi = part->lo[0] + part->n[0] < y0 + rows ? part->lo[0] + part->n[0] : y0 + rows;
    *piece = *part; /* the part's rows in the band */
    piece->lo[0] = part->lo[0] > y0 ? part->lo[0] : y0;
    piece->n[0] = hi - piece->lo[0];
    if (piece->n[0] <= 0)
        return 0;
    int64_t pw = emit_feat_pixel_words(&cp->feat);
    int64_t x0 = cp->box.lo[1] + (piece->lo[1] - cp->box.lo[1]) / bs->win * bs->win;
    *stand = *cp;
    stand->box.lo[0] = y0;
    stand->box.n[0] = rows;
    stand->box.lo[1] = x0;
    stand->box.n[1] = bs->win;
    stand->feat.ny = rows;
    stand->feat.nx = bs->win;
    /* the writer's slice of the band, compact, after the slices before it */
    *dbase = e->cores[pt->core].addr[pt->land] + (x0 - cp->box.lo[1]) * rows * pw;
    return piece->lo[1] + piece->n[1] <= x0 + bs->win ? 1 : -1;
}

bool emit_bandslice_next(const Emit *e, const EPart *pt, const EBox *part, int64_t *it,
                         EBox *piece, ECopy *stand, int64_t *dbase)
{
    const EBandSlice *bs = emit_bandslice_copy(e, pt->copy[0]);
    const ECopy *cp = &e->copies[pt->copy[0]];
    int64_t nx = cp->box.n[1], lead = bs->lead ? bs->lead : bs->out;
    int64_t ng = 1 + (nx - lead + bs->out - 1) / bs->out; /* the slices */
    int64_t pw = emit_feat_pixel_words(&cp->feat);
    while (*it < part->n[0] * ng) {
        int64_t i = (*it)++, y = part->lo[0] + i / ng, j = i % ng, dx, wide;
        int b = 0;
        while (b < bs->nb && y >= bs->y0[b] + bs->rows[b])
            b++;
        emit_bandslice_slice(e, bs, j ? lead + (j - 1) * bs->out : 0, &dx, &wide);
        int64_t x0 = cp->box.lo[1] + dx;
        int64_t xa = part->lo[1] > x0 ? part->lo[1] : x0;
        int64_t xb = part->lo[1] + part->n[1] < x0 + wide ? part->lo[1] + part->n[1] : x0 + wide;
        if (b == bs->nb || y < bs->y0[b] || xa >= xb)
            continue;
        /* the slice's pixels xa..xb-1 of row y in the copy's order, met with the part's
         * (the slice's rows as wide as it: the first and last may be narrower) */
        int64_t at = (bs->y0[b] - cp->box.lo[0]) * nx + dx * bs->rows[b] +
                     (y - bs->y0[b]) * wide + xa - x0;
        int64_t lo = at > pt->q0[0] ? at : pt->q0[0];
        int64_t hi = at + xb - xa < pt->q0[0] + pt->nq[0] ? at + xb - xa : pt->q0[0] + pt->nq[0];
        if (lo >= hi)
            continue;
        *piece = *part;
        piece->lo[0] = y;
        piece->n[0] = 1;
        piece->lo[1] = xa + lo - at;
        piece->n[1] = hi - lo;
        *stand = *cp;
        stand->box.lo[0] = y;
        stand->box.n[0] = 1;
        stand->box.lo[1] = piece->lo[1];
        stand->box.n[1] = piece->n[1];
        stand->feat.ny = 1;
        stand->feat.nx = piece->n[1];
        *dbase = e->cores[pt->core].addr[pt->land] + (lo - pt->q0[0]) * pw;
        return true;
    }
    return false;
}
