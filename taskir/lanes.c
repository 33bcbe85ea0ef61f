/* lanes.c: edges whose values move between pixels or lanes (lanes.h). */
#include "taskir/lanes.h"

#include "taskir/edge_map.h"
#include "taskir/layout.h"
#include "taskir/rearrange.h"
#include "taskir/sockbox.h"

#include <stdlib.h>

/* A box's pixels (y x) and channels (f, else r) */
static void pixels_channels(const int32_t box[TIR_CDIMS], int64_t *px, int64_t *ch)
{
    *px = (int64_t)(box[D_Y] > 0 ? box[D_Y] : 1) * (box[D_X] > 0 ? box[D_X] : 1);
    *ch = box[D_F] > 0 ? box[D_F] : box[D_R] > 0 ? box[D_R] : 1;
}

bool lanes_moved(const Graph *g, const GraphUses *u, const Edge *ed)
{
    long w = graph_block_pos(g, ed->src), s = graph_block_pos(g, ed->dst);
    if (ed->n_re == 0 || w < 0 || s < 0 || bt_info(g->blocks[w]->type)->kind != BK_COMPUTE ||
        bt_info(g->blocks[s]->type)->kind != BK_STORAGE)
        return false;
    EdgeEnds ends;
    char why[160];
    if (!edge_ends(g, u, ed, &ends, why, sizeof why))
        return false;
    /* a view (backend/emit_rearr.c): the writer's whole result, the block's one writer, only
     * CVMs (of an 8-bit block) or OUTPUTs read it */
    const BlockUses *bu = &u->blocks[s];
    bool bits8 = pr_info(blk_prec(g->blocks[s]))->bits == 8;
    bool view = bu->n_out_edges > 0 && bu->n_in_edges == 1;
    for (int i = 0; i < TIR_CDIMS && view; i++)
        view = ends.src_pos[i] <= 0 && ends.src_box[i] == ends.src_cdims[i];
    for (uint32_t j = 0; j < bu->n_out_edges && view; j++) {
        long r = graph_block_pos(g, g->edges[bu->out_edges[j]]->dst);
        view = r >= 0 && ((g->blocks[r]->type == BT_CVM && bits8) ||
                          g->blocks[r]->type == BT_OUTPUT);
    }
    if (view)
        return false;
    int64_t sp, sc, dp, dc;
    pixels_channels(ends.src_box, &sp, &sc);
    pixels_channels(ends.dst_box, &dp, &dc);
    return sp != dp || sc != dc || !ra_edge_keeps_order(g, u, ed);
}

/* Whether the socket of the INPUT writing storage s, held as it is one value a word, takes
 * no more bytes than s's own layout and a view may hold it (backend/emit_rearr.c: by several
 * edges, or by one reading all of the socket; no r dim besides f): the code generator then
 * holds s as such a view, in the bytes its own layout counts. */
static bool socket_fits(const Graph *g, const GraphUses *u, uint32_t s)
{
    const BlockUses *bu = &u->blocks[s];
    const Edge *ed = g->edges[bu->in_edges[0]];
    long w = graph_block_pos(g, ed->src);
    int32_t wd[TIR_CDIMS], sd[TIR_CDIMS];
    const IfaceUse *iu = w >= 0 ? uses_find(u, (uint32_t)w, false, ed->id) : NULL;
    if (!iu || !blk_cluster_dims(g->blocks[w], false, iu->cluster, wd) ||
        !blk_cluster_dims(g->blocks[s], true, 0, sd) || (wd[D_F] > 0 && wd[D_R] > 1))
        return false;
    const Iface *f = &g->blocks[w]->out[iu->cluster].ifaces[iu->iface];
    bool whole = bu->n_in_edges > 1;
    for (int i = 0; i < TIR_CDIMS && !whole; i++) {
        int32_t n = wd[i] > 0 ? wd[i] : 1;
        if ((f->has_pos && f->pos.d[i] > 0) || (f->has_size && f->size.d[i] > 0 && f->size.d[i] != n))
            break;
        whole = i == TIR_CDIMS - 1;
    }
    int64_t vals = 1, px, ch;
    for (int i = 0; i < TIR_CDIMS; i++)
        vals *= wd[i] > 0 ? wd[i] : 1;
    pixels_channels(sd, &px, &ch);
    int64_t own = layout_map_bytes(blk_prec(g->blocks[s]), 1, px, ch, layout_storage_unit(g, u, s));
    return whole && own >= 0 && vals <= own / 4;
}

bool lanes_wide_input(const Graph *g, const GraphUses *u, uint32_t s)
{
    const Block *b = g->blocks[s];
    const BlockUses *bu = &u->blocks[s];
    if (b->type != BT_SI || b->data || !bu->n_in_edges || !bu->n_out_edges ||
        pr_info(blk_prec(b))->bits != 8)
        return false;
    bool steps = false;
    int32_t src = g->edges[bu->in_edges[0]]->src;
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const Edge *ed = g->edges[bu->in_edges[j]];
        const Block *w = graph_block(g, ed->src);
        if (!w || w->type != BT_INPUT || ed->src != src)
            return false;
        steps |= ed->n_re > 0;
    }
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        const Block *r = graph_block(g, g->edges[bu->out_edges[j]]->dst);
        if (!r || r->type != BT_OUTPUT)
            return false;
    }
    if (!steps || socket_fits(g, u, s))
        return false;
    int unit = layout_storage_unit(g, u, s); /* its own layout takes the socket's blocks? */
    for (uint32_t j = 0; j < bu->n_in_edges; j++)
        if (!sockbox_edge_fits(g, u, g->edges[bu->in_edges[j]], s, unit))
            return true;
    return false;
}

int64_t lanes_wide_bytes(const Graph *g, const GraphUses *u, uint32_t s)
{
    int32_t cd[TIR_CDIMS];
    if (!lanes_wide_input(g, u, s) || !blk_cluster_dims(g->blocks[s], true, 0, cd))
        return 0;
    int64_t px, ch;
    pixels_channels(cd, &px, &ch);
    return px > INT64_MAX / 4 / ch ? -1 : px * ch * 4;
}

bool lanes_bytes(const Graph *g, const GraphUses *u, const Edge *ed)
{
    if (lanes_moved(g, u, ed))
        return true;
    long w = graph_block_pos(g, ed->src), s = graph_block_pos(g, ed->dst);
    if (w < 0 || s < 0 || bt_info(g->blocks[w]->type)->kind != BK_COMPUTE ||
        bt_info(g->blocks[s]->type)->kind != BK_STORAGE)
        return false;
    EdgeEnds ends;
    char why[160];
    int32_t cd[TIR_CDIMS];
    if (!edge_ends(g, u, ed, &ends, why, sizeof why) || !blk_cluster_dims(g->blocks[s], true, 0, cd))
        return false;
    int bits = pr_info(blk_prec(g->blocks[s]))->bits;
    if (bits != 8 && bits != 32)
        return false;
    int64_t unit = 64 / bits; /* the channels of an 8-byte unit */
    int ch = ends.dst_box[D_F] > 0 ? D_F : D_R, sch = ends.src_box[D_F] > 0 ? D_F : D_R;
    int64_t soff = ends.src_pos[sch] > 0 ? ends.src_pos[sch] : 0;
    int64_t doff = ends.dst_pos[ch] > 0 ? ends.dst_pos[ch] : 0;
    int64_t n = ends.dst_box[ch] > 0 ? ends.dst_box[ch] : 1, c = cd[ch] > 0 ? cd[ch] : 1;
    return soff % unit || doff % unit || (doff + n < c && n % unit);
}

static bool yxc(const Block *b, bool input, int64_t n[3]);
static int64_t pixel_bytes(PrecisionId p, int64_t n, int unit);

/* Edge ed, from a compute block into a storage block without steps, as runs of pixels:
 * -1 when it is no such edge (or its ends cannot be read), else the runs it takes a pixel
 * each, each fewer bytes than the writer's pixel (at the storage's pitch, as its buffer is
 * laid out: a gap after each), 0 when its pixels go whole or it has one; its ends into *a,
 * the writer's y, x and channels into wn, the channels it takes into *nch, and whether they
 * are all of the storage's into *all (a slice of a wider pixel, when fewer than wn[2]). */
static int64_t slice_runs(const Graph *g, const GraphUses *u, const Edge *ed, EdgeEnds *a,
                          bool *all, int64_t wn[3], int64_t *nch)
{
    long w = graph_block_pos(g, ed->src), s = graph_block_pos(g, ed->dst);
    if (ed->n_re || w < 0 || s < 0 || bt_info(g->blocks[w]->type)->kind != BK_COMPUTE ||
        bt_info(g->blocks[s]->type)->kind != BK_STORAGE)
        return -1;
    char why[160];
    int64_t sn[3];
    if (!edge_ends(g, u, ed, a, why, sizeof why) || !yxc(g->blocks[w], false, wn) ||
        !yxc(g->blocks[s], true, sn))
        return -1;
    PrecisionId prec = blk_prec(g->blocks[s]);
    int ch = a->dst_box[D_F] > 0 ? D_F : D_R;
    int64_t n = a->dst_box[ch] > 0 ? a->dst_box[ch] : 1;
    int64_t px = (int64_t)(a->dst_box[D_Y] > 0 ? a->dst_box[D_Y] : 1) *
                 (a->dst_box[D_X] > 0 ? a->dst_box[D_X] : 1);
    int64_t vb = pr_info(prec)->bits / 8, unit = layout_storage_unit(g, u, (uint32_t)s);
    int64_t wpx = pixel_bytes(prec, wn[2], (int)unit);
    *all = n >= sn[2];
    *nch = n;
    if (*all && n >= wn[2])
        return 0; /* the writer's whole pixels (and their padding): runs that join */
    return px > 1 && vb > 0 && n * vb < wpx ? px : 0;
}

bool lanes_pixel_runs(const Graph *g, const GraphUses *u, const Edge *ed)
{
    EdgeEnds a, b;
    char why[160];
    bool all;
    /* some of the storage's channels, a run a pixel, each fewer bytes than the writer's
     * pixel; or all of them from a wider pixel (a storage block's 8 of a CLUT's 24 words a
     * pixel) when the writer's map sent in such slices takes more runs than one header
     * table (fewer go in one phase as they always have): the writer's other edges are not
     * looked at, which on ResNet-50 cost a second of the mapper's 6 */
    int64_t wn[3], n = 0, runs = slice_runs(g, u, ed, &a, &all, wn, &n);
    if (runs < 0)
        return false;
    if (runs > 0 && (!all || wn[0] * wn[1] * ((wn[2] + n - 1) / n) > LANES_HEADS))
        return true;
    long w = graph_block_pos(g, ed->src);
    const BlockUses *wu = &u->blocks[w]; /* values another edge into s takes too */
    for (uint32_t j = 0; j < wu->n_out_edges; j++) {
        const Edge *o = g->edges[wu->out_edges[j]];
        if (o == ed || o->dst != ed->dst || !edge_ends(g, u, o, &b, why, sizeof why))
            continue;
        bool meet = true; /* the two source boxes meet in every dim */
        for (int i = 0; i < TIR_CDIMS && meet; i++) {
            int64_t alo = a.src_pos[i] > 0 ? a.src_pos[i] : 0;
            int64_t blo = b.src_pos[i] > 0 ? b.src_pos[i] : 0;
            int64_t an = a.src_box[i] > 0 ? a.src_box[i] : 1;
            int64_t bn = b.src_box[i] > 0 ? b.src_box[i] : 1;
            meet = alo < blo + bn && blo < alo + an;
        }
        if (meet)
            return true;
    }
    return false;
}

bool lanes_head_join(LanesHead *h, int64_t src, int64_t units, int64_t dst, int64_t per)
{
    if (h->src + h->units != src)
        return false;
    if (h->run == h->stride && h->dst + h->units == dst) { /* one run, longer */
        h->units += units;
        h->run = h->stride = h->units;
        return true;
    }
    int64_t next = h->dst + (h->units / h->run) * h->stride;
    if (units != h->run || (h->units != h->run && dst != next) || h->run / per > 128 ||
        (h->units + units) / per > LANES_HEAD_PACKETS)
        return false;
    int64_t stride = h->units == h->run ? dst - h->dst : h->stride;
    if (stride < h->run || (stride - h->run) / per >= LANES_HEAD_PACKETS)
        return false;
    h->stride = stride;
    h->units += units;
    return true;
}

/* Block b's cluster 0 (input or output side) as y, x, channels (f, else r): false when it
 * has other dims. */
static bool yxc(const Block *b, bool input, int64_t n[3])
{
    int32_t cd[TIR_CDIMS];
    if (!blk_cluster_dims(b, input, 0, cd) || (cd[D_F] > 1 && cd[D_R] > 1))
        return false;
    for (int i = 0; i < TIR_CDIMS; i++)
        if (cd[i] > 1 && i != D_Y && i != D_X && i != D_F && i != D_R)
            return false;
    n[0] = cd[D_Y] > 0 ? cd[D_Y] : 1;
    n[1] = cd[D_X] > 0 ? cd[D_X] : 1;
    n[2] = cd[D_F] > 0 ? cd[D_F] : cd[D_R] > 0 ? cd[D_R] : 1;
    return true;
}

typedef struct LanesMove {
    int64_t src, dst, end; /* a run's (a header's) first byte in the sender, where it lands,
                              and the byte after its last in the sender */
} LanesMove;

/* LanesMove.dst of a run into another storage block (its own receiver and base). */
#define LANES_ELSEWHERE INT64_MIN

static int move_cmp(const void *a, const void *b)
{
    const LanesMove *x = a, *y = b; /* one source, several places: in the order they land */
    return x->src != y->src ? (x->src < y->src ? -1 : 1) : (x->dst > y->dst) - (x->dst < y->dst);
}

/* Bytes a pixel of n channels of precision p takes at pitch unit `unit` (0: none). */
static int64_t pixel_bytes(PrecisionId p, int64_t n, int unit)
{
    int64_t b = layout_map_bytes(p, 1, 1, n, unit);
    return b > 0 ? b : 0;
}

/* The phases headers h[0..n) (in the order of the sender's memory) take as the code
 * generator spreads them (backend/emit_route_spill.c): each phase, from the first byte they
 * land in then (the receive base), the headers that land within 4 KiB of it and that the
 * table holds with the disabled ones skipping the gaps between them, none overlapping the one
 * kept before it (a value sent to several places goes once a phase); the others wait for the
 * next phase (at most 1024 counted). */
static int64_t spill_phases(LanesMove *h, int64_t n)
{
    int64_t phases = 0;
    while (n > 0 && phases < 1024) {
        int64_t base = INT64_MAX, heads = 0, end = 0, left = 0;
        for (int64_t i = 0; i < n; i++)
            base = h[i].dst < base && h[i].dst != LANES_ELSEWHERE ? h[i].dst : base;
        for (int64_t i = 0; i < n; i++) {
            int64_t gap = heads ? h[i].src - end : h[i].src % 4;
            int64_t need = 1 + (gap + LANES_HEAD_PACKETS - 1) / LANES_HEAD_PACKETS;
            /* a header overlapping the one kept before it (a value in several places) waits:
             * the router sends its area's bytes once a phase */
            bool near = h[i].dst == LANES_ELSEWHERE || h[i].dst - base < LANES_HEAD_PACKETS;
            if (gap >= 0 && near && heads + need <= LANES_HEADS) {
                heads += need;
                end = h[i].end;
            } else {
                h[left++] = h[i];
            }
        }
        n = left;
        phases++;
    }
    return phases;
}

/* Appends the headers of byte-moved edge ed (lanes_bytes) to h (n of *cap used, grown),
 * their sources shifted by base (where the writer's map starts); *at moves past them: a run
 * a value of a lanes move, a run a pixel of channels off the 8-byte units. false when they
 * cannot be counted (or out of memory). rows: landing at a pitch of whole 16-byte rows, as a
 * part of a copy arriving in parts lands (backend/emit_spread.c), and 1-byte values a header
 * each (an upper bound: such a part's headers join fewer than the copy's would). */
static bool edge_heads(const Graph *g, const GraphUses *u, const Edge *ed, LanesMove **h,
                       int64_t *n, int64_t *cap, int64_t base, int64_t *at, bool rows)
{
    long w = graph_block_pos(g, ed->src), s = graph_block_pos(g, ed->dst);
    EdgeEnds ends;
    char why[160];
    int64_t wn[3], sn[3];
    if (w < 0 || s < 0 || !edge_ends(g, u, ed, &ends, why, sizeof why) ||
        !yxc(g->blocks[w], false, wn) || !yxc(g->blocks[s], true, sn))
        return false;
    PrecisionId prec = blk_prec(g->blocks[s]);
    int bits = pr_info(prec)->bits;
    int64_t vb = bits == 8 ? 1 : bits == 32 ? 4 : 0;
    /* the writer's map in the storage's precision: at the storage's pitch (as the code
     * generator lays its output buffer out, backend/emit_plan.c), the storage at its own */
    int unit = layout_storage_unit(g, u, (uint32_t)s);
    int64_t spx = pixel_bytes(prec, wn[2], unit), dpx = pixel_bytes(prec, sn[2], unit);
    if (rows)
        dpx = (dpx + 15) / 16 * 16;
    int64_t dn[3], dp[3];
    int dims[3] = {D_Y, D_X, -1};
    for (int i = 0; i < 3; i++) {
        int d = dims[i] >= 0 ? dims[i] : ends.dst_box[D_F] > 0 ? D_F : D_R;
        dn[i] = ends.dst_box[d] > 0 ? ends.dst_box[d] : 1;
        dp[i] = ends.dst_pos[d] > 0 ? ends.dst_pos[d] : 0;
    }
    int64_t vol = dn[0] * dn[1] * dn[2];
    if (!vb || !spx || !dpx || vol < 1 || vol > RA_MAX_ELEMS || *n > RA_MAX_ELEMS)
        return false;
    if (*n + vol > *cap) {
        LanesMove *grown = realloc(*h, (size_t)(*n + vol) * sizeof **h);
        if (!grown)
            return false;
        *h = grown;
        *cap = *n + vol;
    }
    LanesMove *mv = *h + *n;
    int64_t m = 0;
    bool ok = true;
    if (!lanes_moved(g, u, ed)) { /* channels off the 8-byte units: a run a pixel */
        int ch = ends.src_box[D_F] > 0 ? D_F : D_R;
        int64_t soff = ends.src_pos[ch] > 0 ? ends.src_pos[ch] : 0;
        int64_t sy0 = ends.src_pos[D_Y] > 0 ? ends.src_pos[D_Y] : 0;
        int64_t sx0 = ends.src_pos[D_X] > 0 ? ends.src_pos[D_X] : 0;
        for (int64_t y = 0; y < dn[0]; y++)
            for (int64_t x = 0; x < dn[1]; x++) {
                int64_t src = ((sy0 + y) * wn[1] + sx0 + x) * spx + soff * vb;
                int64_t dst = ((dp[0] + y) * sn[1] + dp[1] + x) * dpx + dp[2] * vb;
                mv[m++] = (LanesMove){src, dst, src + dn[2] * vb};
            }
    } else {
        int32_t *map = malloc((size_t)vol * sizeof *map);
        Diag quiet;
        diag_init(&quiet, NULL);
        ok = map && edge_element_map(g, u, ed, map, vol, &quiet) == ST_OK;
        diag_finish(&quiet);
        for (int64_t i = 0; ok && i < vol; i++) {
            if (map[i] < 0)
                continue;
            int64_t y = dp[0] + i / (dn[1] * dn[2]), x = dp[1] + i / dn[2] % dn[1];
            int64_t f = dp[2] + i % dn[2];
            int64_t sy = map[i] / (wn[1] * wn[2]), sx = map[i] / wn[2] % wn[1];
            int64_t src = (sy * wn[1] + sx) * spx + map[i] % wn[2] * vb;
            mv[m++] = (LanesMove){src, (y * sn[1] + x) * dpx + f * vb, src + vb};
        }
        free(map);
    }
    if (!ok || !m)
        return ok;
    /* its headers, in the order of the writer's memory: where each starts and lands */
    qsort(mv, (size_t)m, sizeof *mv, move_cmp);
    int64_t heads = 0, shift = base;
    int64_t len = mv[0].end - mv[0].src; /* a move's bytes */
    LanesHead hd = {mv[0].src, len, mv[0].dst, len, len};
    for (int64_t i = 1; i <= m; i++) {
        if (i < m && !(rows && vb == 1) &&
            lanes_head_join(&hd, mv[i].src, mv[i].end - mv[i].src, mv[i].dst, 1))
            continue;
        mv[heads++] = (LanesMove){hd.src + shift, hd.dst, hd.src + hd.units + shift};
        if (i < m) {
            len = mv[i].end - mv[i].src;
            hd = (LanesHead){mv[i].src, len, mv[i].dst, len, len};
        }
    }
    int64_t last = 0; /* the byte after the last sent (headers may overlap) */
    for (int64_t i = 0; i < heads; i++)
        last = mv[i].end > last ? mv[i].end : last;
    *n += heads;
    *at = (last + 15) / 16 * 16 > *at ? (last + 15) / 16 * 16 : *at;
    return true;
}

/* Appends to h, for each edge of writer w into another storage block than s, its headers
 * when it goes as bytes too (edge_heads: batch_stats' conv_shift transposed into three
 * storage blocks, a run a pixel into each, 768 headers and as many disabled ones skipping
 * the gaps where a run over the map counted one), else a run over w's whole map (at the
 * pitch of storage s, from base): its router sends them from the one buffer it writes, and
 * in the same phase as the byte moves (backend/emit_route.c, a gather on its core, or a
 * transfer in the writer's phase), so each overlaps them. Each lands in its own storage
 * (LANES_ELSEWHERE). *at moves past the map. false when out of memory or not counted. */
static bool other_runs(const Graph *g, const GraphUses *u, uint32_t w, uint32_t s,
                       LanesMove **h, int64_t *n, int64_t *cap, int64_t base, int64_t *at)
{
    int64_t wn[3] = {0};
    PrecisionId prec = blk_prec(g->blocks[s]);
    int64_t px = pixel_bytes(prec, yxc(g->blocks[w], false, wn) ? wn[2] : 0,
                             layout_storage_unit(g, u, s));
    const BlockUses *wu = &u->blocks[w];
    for (uint32_t j = 0; j < wu->n_out_edges; j++) {
        const Edge *ed = g->edges[wu->out_edges[j]];
        long t = graph_block_pos(g, ed->dst);
        if (t < 0 || (uint32_t)t == s || bt_info(g->blocks[t]->type)->kind != BK_STORAGE)
            continue;
        if (lanes_bytes(g, u, ed) || lanes_pixel_runs(g, u, ed)) {
            int64_t from = *n;
            if (!edge_heads(g, u, ed, h, n, cap, base, at, false))
                return false;
            for (int64_t i = from; i < *n; i++)
                (*h)[i].dst = LANES_ELSEWHERE;
            continue;
        }
        if (!px || wn[0] * wn[1] > RA_MAX_ELEMS)
            return false;
        if (*n + 1 > *cap) {
            LanesMove *grown = realloc(*h, (size_t)(*n + 1) * 2 * sizeof **h);
            if (!grown)
                return false;
            *h = grown;
            *cap = (*n + 1) * 2;
        }
        int64_t end = base + wn[0] * wn[1] * px;
        (*h)[(*n)++] = (LanesMove){base, LANES_ELSEWHERE, end};
        *at = (end + 15) / 16 * 16 > *at ? (end + 15) / 16 * 16 : *at;
    }
    return true;
}

int32_t lanes_phases(const Graph *g, const GraphUses *u, const Edge *ed)
{
    long s = graph_block_pos(g, ed->dst);
    if (s < 0)
        return 1;
    /* every byte-moved edge into the storage, as if one core sent them one after another
     * (an upper bound for the sends of each core): each writer's map after the one before,
     * the edges of one writer from its one map (their values overlap when they take the
     * same ones: rcol's two upsamplings of one map into one concatenation) */
    const BlockUses *bu = &u->blocks[s];
    LanesMove *h = NULL;
    int64_t n = 0, cap = 0, at = 0;
    size_t ne = bu->n_in_edges ? bu->n_in_edges : 1;
    long *writer = malloc(ne * sizeof *writer);
    int64_t *base = malloc(ne * sizeof *base);
    bool *bytes = malloc(ne * sizeof *bytes);
    bool ok = writer && base && bytes;
    for (uint32_t j = 0; j < bu->n_in_edges && ok; j++) {
        const Edge *in = g->edges[bu->in_edges[j]];
        writer[j] = graph_block_pos(g, in->src);
        base[j] = at;
        bytes[j] = lanes_bytes(g, u, in) || lanes_pixel_runs(g, u, in);
        bool seen = false;
        for (uint32_t i = 0; i < j; i++)
            if (writer[i] == writer[j] && bytes[i]) {
                base[j] = base[i];
                seen = true;
            }
        if (!bytes[j])
            continue;
        ok = edge_heads(g, u, in, &h, &n, &cap, base[j], &at, false) &&
             (seen || writer[j] < 0 ||
              other_runs(g, u, (uint32_t)writer[j], (uint32_t)s, &h, &n, &cap, base[j], &at));
    }
    if (ok && n) /* in the order of the sender's memory */
        qsort(h, (size_t)n, sizeof *h, move_cmp);
    int64_t phases = ok && n ? spill_phases(h, n) : 1;
    free(writer);
    free(base);
    free(bytes);
    free(h);
    return phases < 1 ? 1 : phases > INT32_MAX ? INT32_MAX : (int32_t)phases;
}

int64_t lanes_heads(const Graph *g, const GraphUses *u, const Edge *ed)
{
    if (!lanes_bytes(g, u, ed) && !lanes_pixel_runs(g, u, ed))
        return 0;
    LanesMove *h = NULL;
    int64_t n = 0, cap = 0, at = 0, heads = 0, end = 0;
    bool ok = edge_heads(g, u, ed, &h, &n, &cap, 0, &at, true);
    if (ok && n) /* in the order of the sender's memory, the gaps between them */
        qsort(h, (size_t)n, sizeof *h, move_cmp);
    for (int64_t i = 0; ok && i < n; i++) {
        int64_t gap = i ? h[i].src - end : h[i].src % 4;
        heads += 1 + (gap > 0 ? (gap + LANES_HEAD_PACKETS - 1) / LANES_HEAD_PACKETS : 0);
        end = h[i].end > end ? h[i].end : end;
    }
    free(h);
    return ok ? heads : 0;
}

int64_t lanes_part_cap(int64_t heads, int64_t total)
{
    int64_t room = LANES_HEADS - LANES_CUT_HEADS;
    if (heads <= room || total < 1 || total > INT64_MAX / room)
        return 0;
    int64_t cap = total * room / heads;
    return cap > 0 ? cap : 1;
}
