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
 * - from boxes of whole pixels that writers on other cores send straight to it (win 0):
 *   the bands are the rows inside one part and each row two parts share alone, so each
 *   part holds the pixels it holds in [y][x] order (those the Mapping's phases bring), and
 *   a writer's router lands each of its rows slice by slice at their place (runs of a
 *   slice's pixels equally far apart, a band's rows times a slice's pixels: one header a
 *   row), so the landing area holds the part's words in their final order and its move
 *   stays one P06; the writer's result may go to a copy gathered on its own core, or to a
 *   spread one (its part's landing area); its last slice may be narrower than the others
 *   (each slice's rows at its own width).
 * A copy or buffer used otherwise is not laid out so. */
#include "backend/emit_internal.h"

#include <stdlib.h>

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
 * each a box of all copy cp's channels whose pixels the writer's core sends straight to k
 * (no relay, no bytes between lanes), into a copy merged from nothing. */
static bool remote_writers(Emit *e, uint32_t s, const ECopy *cp, uint32_t k)
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
        for (uint32_t c = 0; emit_dict_pair(e, dict, &c, &sk, &rk, &st); c++)
            if (sk != e->core_of[w] || rk != k)
                return false;
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

/* The width of the column slice writer w's first out-edge takes of its result; 0 when
 * none. */
static int64_t out_width(const Emit *e, uint32_t w)
{
    const BlockUses *bu = &e->uses.blocks[w];
    EBox box;
    return bu->n_out_edges &&
                   emit_iface_box(e, w, false, e->g->edges[bu->out_edges[0]]->id, &box)
               ? box.n[1] : 0;
}

/* Whether writer w's buffer goes, edge by edge, each a column slice of all rows and channels
 * of width `width` (inside one slice of 2 width unless rows), to one copy: on another core,
 * sent in one phase by w's core; or with rows on w's core, gathered there (EOut.gather);
 * into a copy of the buffer's precision and pitch that is not spread (unless rows), with no
 * send area of its own. */
static bool sliced_out(Emit *e, uint32_t w, int64_t width, bool rows)
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
                pairs++;
                dk = sk == k ? rk : EMIT_NONE;
            }
            if (s == EMIT_NONE || dk == k || emit_copy_on(e, s, k) ||
                emit_sendbuf_pitch(e, w, o->feat.c, dict->coords[0].phase, s))
                return false;
        }
        const ECopy *dcp = dk != EMIT_NONE ? emit_copy_on(e, s, dk) : NULL;
        if (st != ST_OK || pairs != 1 || !dcp || dcp->view || dcp->planes ||
            dcp->dup_of != EMIT_NONE || dcp->alias_of != EMIT_NONE || (dcp->spread && !rows) ||
            dcp->feat.prec != o->feat.prec || dcp->feat.c != o->feat.c ||
            !emit_iface_box(e, s, true, ed->id, &d) || d.n[0] != box.n[0] ||
            d.n[1] != box.n[1] || box.n[0] != o->box.n[0] || box.lo[1] % width ||
            (box.n[1] != width &&
             !(rows && box.n[1] < width && box.lo[1] + box.n[1] == o->box.n[1])) ||
            box.lo[2] != 0 || box.n[2] != o->box.n[2] ||
            emit_sendbuf_of(e, w, dcp->feat.prec))
            return false;
    }
    /* a run a row and slice: only where they pass the header table */
    return bu->n_out_edges > 0 && o->box.n[0] * bu->n_out_edges > 128;
}

Status emit_bandslice_plan(Emit *e)
{
    for (uint32_t ci = 0; ci < e->n_copies; ci++) {
        const ECopy *cp = &e->copies[ci];
        uint32_t s = cp->block;
        if (!cp->spread || e->n_copy[s] != 1 || cp->view || cp->planes ||
            cp->alias_of != EMIT_NONE || cp->dup_of != EMIT_NONE || cp->unit ||
            cp->req == EMIT_NONE || cp->box.lo[0] || cp->box.lo[1])
            continue;
        EBandSlice bs = {.copy = ci};
        bs.win = whole_bands(e, cp, ci, true) ? in_width(e, s, cp, cp->core) : 0;
        bool rows = !bs.win && whole_bands(e, cp, ci, false) && part_bands(e, cp, ci, &bs) &&
                    remote_writers(e, s, cp, cp->core);
        long r = bs.win || rows ? pointwise_reader(e, s) : -1;
        if (r < 0)
            continue;
        bs.writer = (uint32_t)r;
        bs.out = rows ? out_width(e, bs.writer) : bs.win / 2;
        /* with rows, the last slice may be narrower (a map 9 pixels wide in slices of 2) */
        int64_t last = bs.out > 0 ? cp->box.n[1] % bs.out : 0;
        if (e->core_of[r] != cp->core || e->outs[r].box.lo[0] || e->outs[r].box.lo[1] ||
            e->outs[r].box.n[0] != cp->box.n[0] || e->outs[r].box.n[1] != cp->box.n[1] ||
            bs.out <= 0 || (last && !rows) || !sliced_out(e, bs.writer, bs.out, rows))
            continue;
        int64_t pin = emit_feat_pixel_words(&cp->feat);
        int64_t pout = emit_feat_pixel_words(&e->outs[r].feat);
        if ((pin * bs.out) % 4 || (pout * bs.out) % 4 || (pin * last) % 4 ||
            (pout * last) % 4 || (rows && (pin % 2 || pout % 2)))
            continue;
        EBandSlice *nb = emit_grow(e, e->bandslices, &e->cap_bandslices, e->n_bandslices,
                                   sizeof *nb);
        if (!nb)
            return ST_RUNTIME;
        e->bandslices = nb;
        nb[e->n_bandslices++] = bs;
    }
    return ST_OK;
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
    if (!bs->win) /* the band's slices one after the other */
        return ((y0 - cp->box.lo[0]) * nx + dx / bs->out * rows * bs->out) * pw;
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
    int64_t nx = cp->box.n[1], out = bs->out, ng = (nx + out - 1) / out;
    int64_t pw = emit_feat_pixel_words(&cp->feat);
    while (*it < part->n[0] * ng) {
        int64_t i = (*it)++, y = part->lo[0] + i / ng, j = i % ng;
        int b = 0;
        while (b < bs->nb && y >= bs->y0[b] + bs->rows[b])
            b++;
        int64_t x0 = cp->box.lo[1] + j * out;
        int64_t xa = part->lo[1] > x0 ? part->lo[1] : x0;
        int64_t xb = part->lo[1] + part->n[1] < x0 + out ? part->lo[1] + part->n[1] : x0 + out;
        if (b == bs->nb || y < bs->y0[b] || xa >= xb)
            continue;
        /* the slice's pixels xa..xb-1 of row y in the copy's order, met with the part's
         * (the slice's rows as wide as it: the last may be narrower) */
        int64_t wide = nx - j * out < out ? nx - j * out : out;
        int64_t at = (bs->y0[b] - cp->box.lo[0]) * nx + j * bs->rows[b] * out +
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
