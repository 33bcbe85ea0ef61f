/* emit_bandslice.c: a copy laid out band by band and slice by slice for the writer it feeds
 * (docs/backend.md, "Transfers", "Column slices sent from compact areas"). A copy spread
 * over phases (emit_spread.c) whose parts are bands of whole rows, assembled from column
 * slices of all its rows of Win columns each, and read only by a 1 x 1 CCMPB / CCMPS of the
 * whole map whose output buffer goes to other cores only, in column slices of Win / 2
 * columns: the router would send the writer's result a run a row and slice (53 rows to 6
 * cores, 318 headers; emit_sliceout.c needs a Soma slot a slice, and a Soma writer in the
 * send's own phase leaves none). Where those runs pass the header table's 128, each
 * writer's slice of a band lands compact in the part's landing area, one slice after the
 * other ([slice][row][Win pixels]), and the part's move, a P26 in its slot instead of the
 * P06, splits each landed row into its first and last Win / 2 pixels, both compact (out:
 * the band's slices' first halves one after the other, ciso their second halves), in the
 * band's words of the copy's area. The 1 x 1 window writes its result in its input's order,
 * so each slice of Win / 2 columns of a band is one run of its buffer: a header a band and
 * receiving core. A copy or buffer used otherwise is not laid out so. */
#include "backend/emit_internal.h"

#include <stdlib.h>

/* Copy cp's parts (emit_spread.c) in its [y][x] order: whether they are bands of whole rows
 * (one run each, in the copy's pitch) that cover it. */
static bool whole_bands(const Emit *e, const ECopy *cp, uint32_t ci)
{
    int64_t nx = cp->box.n[1], total = 0;
    for (size_t i = 0; i < e->n_parts; i++) {
        const EPart *pt = &e->parts[i];
        if (pt->copy[1] == ci && pt->nq[1] > 0)
            return false;
        if (pt->copy[0] != ci)
            continue;
        if (pt->nq[1] > 0 || pt->pitch || pt->q0[0] % nx || pt->nq[0] % nx)
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

/* The one block reading storage s: a CCMPB / CCMPS of a 1 x 1 window over all of it, whose
 * result is as large; -1 when not. */
static long pointwise_reader(const Emit *e, uint32_t s)
{
    const BlockUses *bu = &e->uses.blocks[s];
    if (bu->n_out_edges != 1)
        return -1;
    const Edge *ed = e->g->edges[bu->out_edges[0]];
    long r = graph_block_pos(e->g, ed->dst);
    const Block *b = r >= 0 ? e->g->blocks[r] : NULL;
    if (!b || (b->type != BT_CCMPB && b->type != BT_CCMPS) ||
        !emit_whole_iface(e, (uint32_t)r, true, ed->id) || b->shape.d[D_KY] > 1 ||
        b->shape.d[D_KX] > 1 || blk_attr(b, AT_STRIDE_X) != 1 || blk_attr(b, AT_STRIDE_Y) != 1 ||
        blk_attr(b, AT_PAD_UP) || blk_attr(b, AT_PAD_DOWN) || blk_attr(b, AT_PAD_LEFT) ||
        blk_attr(b, AT_PAD_RIGHT))
        return -1;
    return r;
}

/* Whether writer w's buffer goes, edge by edge, to copies on other cores only, each a column
 * slice of all rows and channels of width `width` lying inside one slice of 2 width, sent
 * in one phase by w's core to one core, into a copy of the buffer's precision and pitch that
 * is not spread, with no send area of its own. */
static bool sliced_out(Emit *e, uint32_t w, int64_t width)
{
    const EOut *o = &e->outs[w];
    uint32_t k = e->core_of[w];
    const BlockUses *bu = &e->uses.blocks[w];
    if (!o->used || o->gather || o->aliased || o->over || o->req == EMIT_NONE)
        return false;
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        const Edge *ed;
        uint32_t s, sk, rk, pairs = 0, dk = EMIT_NONE;
        const MapDict *dict;
        EBox box, d;
        Status st = ST_OK;
        if (!emit_sendbuf_edge(e, w, j, &ed, &s, &dict, &box) || s == EMIT_NONE)
            return false;
        for (uint32_t c = 0; emit_dict_pair(e, dict, &c, &sk, &rk, &st); c++) {
            pairs++;
            dk = sk == k ? rk : EMIT_NONE;
        }
        const ECopy *dcp = dk != EMIT_NONE ? emit_copy_on(e, s, dk) : NULL;
        if (st != ST_OK || pairs != 1 || !dcp || dk == k || dcp->view || dcp->planes ||
            dcp->dup_of != EMIT_NONE || dcp->spread || dcp->feat.prec != o->feat.prec ||
            dcp->feat.c != o->feat.c || emit_copy_on(e, s, k) ||
            !emit_iface_box(e, s, true, ed->id, &d) || d.n[0] != box.n[0] ||
            d.n[1] != box.n[1] || box.n[0] != o->box.n[0] || box.n[1] != width ||
            box.lo[1] % width || box.lo[2] != 0 || box.n[2] != o->box.n[2] ||
            emit_sendbuf_of(e, w, dcp->feat.prec) ||
            emit_sendbuf_pitch(e, w, o->feat.c, dict->coords[0].phase, s))
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
            cp->req == EMIT_NONE || cp->box.lo[0] || cp->box.lo[1] || !whole_bands(e, cp, ci))
            continue;
        int64_t win = in_width(e, s, cp, cp->core);
        long r = win ? pointwise_reader(e, s) : -1;
        if (r < 0 || e->core_of[r] != cp->core || e->outs[r].box.lo[0] ||
            e->outs[r].box.lo[1] || e->outs[r].box.n[0] != cp->box.n[0] ||
            e->outs[r].box.n[1] != cp->box.n[1] || !sliced_out(e, (uint32_t)r, win / 2) ||
            (emit_feat_pixel_words(&cp->feat) * win / 2) % 4 ||
            (emit_feat_pixel_words(&e->outs[r].feat) * win / 2) % 4)
            continue;
        EBandSlice *nb = emit_grow(e, e->bandslices, &e->cap_bandslices, e->n_bandslices,
                                   sizeof *nb);
        if (!nb)
            return ST_RUNTIME;
        e->bandslices = nb;
        nb[e->n_bandslices++] = (EBandSlice){ci, (uint32_t)r, win};
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
    for (size_t i = 0; i < e->n_parts && n < max; i++)
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
