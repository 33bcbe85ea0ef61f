/* emit_rearr.c: rearrangements the code generator realises without moving a value
 * (docs/backend.md, "Rearrangements"). A flatten into a fully connected layer (LeNet's
 * 5 x 5 x 16 map read as a vector of 400 in channel-major order) moves values between pixels
 * and between the lanes of a 16-byte row, which no P06 does (a move keeps each value's lane).
 * But a vector that only CVMs read is only ever multiplied by weights: so its copy holds the
 * writer's map as the writer lays it out (pixel by pixel, channels padded to the pitch), the
 * CVM's P04 reads that whole area as its vector (every lane, padding included), and the
 * weight image puts each weight row where its value lies (zero rows for the padding lanes).
 *
 * A storage block is such a view when one compute block writes all of it (when it writes
 * other storage too, a tee copies its one area there, emit_tee.c) through one edge whose
 * steps do not keep the vector's layout, only CVMs on the writer's core (then it holds 8-bit
 * values) or OUTPUTs read it, each all of it through an edge without steps (an OUTPUT's may
 * reshape in C order), and it has its only copy on the writer's core. Each value of the map
 * is one element of the view (a value the steps repeat is refused). An OUTPUT reads a view with dynamic blocks that are boxes
 * of its socket (emit_sockrun.c): so a result transposed only for a model output (a
 * convolution's map written channel-major for an NCHW output) needs no move either.
 */
#include "backend/emit_internal.h"

#include "taskir/diag_block.h"
#include "taskir/edge_map.h"
#include "taskir/lanes.h"
#include "taskir/layout.h"
#include "taskir/rearrange.h"

#include <stdlib.h>

bool emit_whole_iface(const Emit *e, uint32_t pos, bool input, int32_t eid)
{
    const IfaceUse *u = uses_find(&e->uses, pos, input, eid);
    if (!u)
        return false;
    const Block *b = e->g->blocks[pos];
    const Cluster *c = input ? &b->in[u->cluster] : &b->out[u->cluster];
    int32_t cd[TIR_CDIMS];
    if (!blk_cluster_dims(b, input, u->cluster, cd))
        return false;
    const Iface *f = &c->ifaces[u->iface];
    for (int i = 0; i < TIR_CDIMS; i++) {
        if (f->has_pos && f->pos.d[i] > 0)
            return false;
        if (f->has_size && f->size.d[i] > 0 && f->size.d[i] != (cd[i] > 0 ? cd[i] : 1))
            return false;
    }
    return true;
}

static bool is_8bit(PrecisionId p)
{
    return p == PR_INT_8 || p == PR_UINT_8;
}

/* The writer of view s, when s is a view: a compute block writes
 * it by one edge; an INPUT may write boxes of it by several (a tile the mapper cut into rows,
 * each edge the whole socket; a repeat or an upsampling along the channels, each edge the
 * whole socket or a box of it, without steps), which view_elements checks cover s once. */
static bool view_writer(const Emit *e, uint32_t s, uint32_t *w)
{
    const Block *b = e->g->blocks[s];
    const BlockUses *bu = &e->uses.blocks[s];
    if (bt_info(b->type)->kind != BK_STORAGE || b->data || bu->n_in_edges == 0 ||
        bu->n_out_edges == 0)
        return false;
    const Edge *ed = e->g->edges[bu->in_edges[0]];
    long wp = graph_block_pos(e->g, ed->src);
    const Block *wb = wp >= 0 ? e->g->blocks[wp] : NULL;
    /* an INPUT's socket held as it is (its core_of is EMIT_NONE: no CVM reads it) */
    bool socket = wb && wb->type == BT_INPUT && !emit_socket_fr(wb), steps = false;
    if (!wb || (bt_info(wb->type)->kind != BK_COMPUTE && !socket) || wb->n_out != 1 ||
        (bu->n_in_edges > 1 && !socket))
        return false;
    bool boxes = socket && bu->n_in_edges > 1; /* an INPUT's edges, each a box of its socket */
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const Edge *x = e->g->edges[bu->in_edges[j]];
        if (graph_block_pos(e->g, x->src) != wp ||
            (!boxes && !emit_whole_iface(e, (uint32_t)wp, false, x->id)) ||
            (bu->n_in_edges == 1 && !emit_whole_iface(e, s, true, x->id)))
            return false;
        steps |= x->n_re > 0;
    }
    if (!steps && !boxes)
        return false;
    uint32_t k = e->core_of[wp];
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        const Edge *o = e->g->edges[bu->out_edges[j]];
        long r = graph_block_pos(e->g, o->dst);
        const IfaceUse *u = r >= 0 ? uses_find(&e->uses, (uint32_t)r, true, o->id) : NULL;
        BlockType rt = r >= 0 ? e->g->blocks[r]->type : BT_TASK_NULL;
        if (!u || u->cluster != 0 || (rt != BT_CVM && rt != BT_OUTPUT) ||
            (o->n_re && (rt != BT_OUTPUT || !emit_keeps_order(e, o))) ||
            (rt == BT_CVM && (e->core_of[r] != k || !is_8bit(blk_prec(b)))) ||
            !emit_whole_iface(e, s, false, o->id))
            return false;
    }
    *w = (uint32_t)wp;
    return true;
}

/* Fills map[vol] (s's values, C order) with the value of its writer's map (flat C order)
 * each takes, -1 for a zero a step fills in: through its one edge, or through each of an
 * INPUT's edges into a box of s (then s is a map of y, x and f, which the boxes cover once,
 * else a logic error [emit.rearrange]). Diagnostics into d. */
static Status view_elements(const Emit *e, Diag *d, uint32_t s, int32_t *map, int64_t vol)
{
    const BlockUses *bu = &e->uses.blocks[s];
    const Block *b = e->g->blocks[s];
    if (bu->n_in_edges == 1)
        return edge_element_map(e->g, &e->uses, e->g->edges[bu->in_edges[0]], map, vol, d);
    int32_t sd[TIR_CDIMS];
    if (!blk_cluster_dims(b, true, 0, sd))
        return diag_block(d, ST_RUNTIME, "emit.internal", b, "no input cluster");
    int64_t nx = sd[D_X] > 0 ? sd[D_X] : 1, nc = sd[D_F] > 0 ? sd[D_F] : 1;
    if ((sd[D_Y] > 0 ? sd[D_Y] : 1) * nx * nc != vol)
        return diag_block(d, ST_LOGIC, "emit.rearrange", b,
                          "written by several edges through steps, and no map of y, x and f");
    for (int64_t i = 0; i < vol; i++)
        map[i] = INT32_MIN;
    Status st = ST_OK;
    for (uint32_t j = 0; j < bu->n_in_edges && st == ST_OK; j++) {
        const Edge *ed = e->g->edges[bu->in_edges[j]];
        EBox bx;
        if (!emit_iface_box(e, s, true, ed->id, &bx))
            return diag_edge(d, ST_RUNTIME, "emit.internal", ed->id, "no box");
        int64_t bv = bx.n[0] * bx.n[1] * bx.n[2];
        int32_t *part = bv > 0 && bv <= vol ? malloc((size_t)bv * sizeof *part) : NULL;
        if (!part)
            return bv > 0 && bv <= vol ? diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory")
                                       : diag_edge(d, ST_LOGIC, "emit.rearrange", ed->id,
                                                   "writes a box of %lld values into block "
                                                   "%d", (long long)bv, b->id);
        st = edge_element_map(e->g, &e->uses, ed, part, bv, d);
        for (int64_t i = 0; st == ST_OK && i < bv; i++) {
            int64_t y = bx.lo[0] + i / (bx.n[1] * bx.n[2]), x = bx.lo[1] + i / bx.n[2] % bx.n[1];
            int64_t at = (y * nx + x) * nc + bx.lo[2] + i % bx.n[2];
            if (map[at] != INT32_MIN)
                st = diag_edge(d, ST_LOGIC, "emit.rearrange", ed->id,
                               "writes value %lld of block %d, which another edge writes too",
                               (long long)at, b->id);
            else
                map[at] = part[i];
        }
        free(part);
    }
    for (int64_t i = 0; st == ST_OK && i < vol; i++)
        if (map[i] == INT32_MIN)
            st = diag_block(d, ST_LOGIC, "emit.rearrange", b,
                            "value %lld is written by none of its edges", (long long)i);
    return st;
}

/* Whether the dynamic blocks of INPUT w place all of storage s (a view's edges, laid out as
 * f, its own layout) as emit_socket_steps would, each edge's box. */
static bool socket_steps_fit(const Emit *e, uint32_t s, uint32_t w, const EmitFeat *f)
{
    int64_t vol = f->ny * f->nx * f->nc, lanes = f->ny * f->nx * f->c;
    if (vol < 1 || vol > RA_MAX_ELEMS || lanes > RA_MAX_ELEMS)
        return false;
    int32_t *map = malloc((size_t)vol * sizeof *map);
    int64_t *sock = malloc((size_t)lanes * sizeof *sock);
    Diag quiet;
    diag_init(&quiet, NULL);
    bool ok = map && sock && view_elements(e, &quiet, s, map, vol) == ST_OK;
    for (int64_t l = 0; ok && l < lanes; l++) {
        int64_t ch = l % f->c;
        sock[l] = ch < f->nc ? map[l / f->c * f->nc + ch] : -1;
    }
    ok = ok && emit_lanes_fit(e->g->blocks[w], f, sock);
    diag_finish(&quiet);
    free(map);
    free(sock);
    return ok;
}

/* The layout of view s's area (its writer w's map): a compute block's as it writes it (a
 * P07's rows too, layout.h), an INPUT's socket in the storage's own unit. */
static bool view_feat(const Emit *e, uint32_t s, uint32_t w, EmitFeat *feat)
{
    int32_t cd[TIR_CDIMS];
    if (!blk_cluster_dims(e->g->blocks[w], false, 0, cd))
        return false;
    PrecisionId p = blk_prec(e->g->blocks[s]);
    int unit = e->g->blocks[w]->type == BT_INPUT ? emit_storage_unit(e, s)
                                                 : layout_output_unit(e->g, &e->uses, w, p);
    return unit && emit_feat(p, cd[D_Y] > 0 ? cd[D_Y] : 1, cd[D_X] > 0 ? cd[D_X] : 1,
                             cd[D_F] > 0 ? cd[D_F] : 1, unit, feat);
}

static Status layer_rows(const Emit *e, Diag *d, uint32_t s,
                         const EmitFeat *f, int64_t layer, int64_t **rows, int64_t *n,
                         bool *more);

/* Whether every OUTPUT reading view s (laid out as f) takes its values with dynamic blocks
 * (emit_sockrun.c), each use of a value (a layer) from its one lane. */
static bool outputs_read(const Emit *e, uint32_t s, const EmitFeat *f)
{
    const BlockUses *bu = &e->uses.blocks[s];
    Diag quiet; /* a view that is not is no finding */
    diag_init(&quiet, NULL);
    bool ok = true;
    for (uint32_t j = 0; ok && j < bu->n_out_edges; j++) {
        const Block *io = graph_block(e->g, e->g->edges[bu->out_edges[j]]->dst);
        bool more = true;
        for (int64_t layer = 0; ok && more; layer++) {
            int64_t *rows = NULL, n = 0;
            ok = io && layer_rows(e, &quiet, s, f, layer, &rows, &n, &more) == ST_OK &&
                 emit_lanes_fit(io, f, rows);
            free(rows);
        }
    }
    diag_finish(&quiet);
    return ok;
}

/* Whether INPUT w's socket is held as it is in storage s (a view, read by OUTPUTs only), laid
 * out as *f: when its dynamic blocks cannot place it in s's own layout through the edge's
 * steps (a value in several lanes, or from a lane that is no word's first) and the OUTPUTs
 * can read it so, and it takes no more words than s's own map, which the mapper counts
 * (taskir/blockbox.c; a strided slice's whole input takes more). An 8-bit socket whose
 * OUTPUTs would read values from lanes that are no word's first (an upsampling along the
 * channels) is held one value a word (INT_32, unpadded: each dynamic block writes and
 * reads whole words) when that fits in s's map too. */
static bool socket_view(const Emit *e, uint32_t s, uint32_t w, EmitFeat *f)
{
    int32_t sd[TIR_CDIMS];
    EmitFeat own, wide;
    const Block *sb = e->g->blocks[s];
    int unit = emit_storage_unit(e, s);
    if (!unit || !blk_cluster_dims(sb, true, 0, sd) ||
        !emit_feat(blk_prec(sb), sd[D_Y] > 0 ? sd[D_Y] : 1, sd[D_X] > 0 ? sd[D_X] : 1,
                   sd[D_F] > 0 ? sd[D_F] : 1, unit, &own) ||
        socket_steps_fit(e, s, w, &own))
        return false;
    if (f->words <= own.words && outputs_read(e, s, f))
        return true;
    if (f->per_word == 1 || !emit_feat(PR_INT_32, f->ny, f->nx, f->nc, 1, &wide) ||
        wide.words > own.words || !outputs_read(e, s, &wide))
        return false;
    *f = wide;
    return true;
}

bool emit_rearr_view(const Emit *e, uint32_t s, uint32_t core, EmitFeat *feat)
{
    uint32_t w;
    if (!view_writer(e, s, &w) || !view_feat(e, s, w, feat))
        return false;
    return e->g->blocks[w]->type == BT_INPUT ? socket_view(e, s, w, feat)
                                             : e->core_of[w] == core;
}

bool emit_rearr_held_wide(const Emit *e, uint32_t s, const EBox *box, EmitFeat *feat)
{
    const BlockUses *bu = &e->uses.blocks[s];
    const Block *sb = e->g->blocks[s];
    if (!lanes_wide_input(e->g, &e->uses, s) ||
        (bu->n_in_edges == 1 && !emit_whole_iface(e, s, true, e->g->edges[bu->in_edges[0]]->id)))
        return false;
    long w = graph_block_pos(e->g, e->g->edges[bu->in_edges[0]]->src);
    int32_t sd[TIR_CDIMS];
    EmitFeat own;
    int unit = emit_storage_unit(e, s);
    if (w < 0 || !unit || !blk_cluster_dims(sb, true, 0, sd) ||
        !emit_feat(blk_prec(sb), sd[D_Y] > 0 ? sd[D_Y] : 1, sd[D_X] > 0 ? sd[D_X] : 1,
                   sd[D_F] > 0 ? sd[D_F] : 1, unit, &own) ||
        socket_steps_fit(e, s, (uint32_t)w, &own))
        return false; /* its own layout takes the socket's dynamic blocks */
    return emit_feat(PR_INT_32, box->n[0], box->n[1], box->n[2], 1, feat);
}

bool emit_rearr_wide(const Emit *e, uint32_t s, const EmitFeat *f, EmitFeat *wide)
{
    uint32_t w;
    if (f->per_word == 1 || !view_writer(e, s, &w) || e->g->blocks[w]->type == BT_INPUT ||
        outputs_read(e, s, f) || !emit_feat(PR_INT_32, f->ny, f->nx, f->nc, (int)f->c, wide))
        return false;
    const BlockUses *bu = &e->uses.blocks[s];
    for (uint32_t j = 0; j < bu->n_out_edges; j++)
        if (graph_block(e->g, e->g->edges[bu->out_edges[j]]->dst)->type != BT_OUTPUT)
            return false;
    return outputs_read(e, s, wide);
}

Status emit_rearr_layer(Emit *e, uint32_t s, int64_t layer, int64_t **rows, int64_t *n,
                        bool *more)
{
    uint32_t w;
    EmitFeat f;
    if (!view_writer(e, s, &w) || !view_feat(e, s, w, &f))
        return diag_block(e->d, ST_RUNTIME, "emit.internal", e->g->blocks[s],
                          "is not a view of its writer");
    if (e->g->blocks[w]->type == BT_INPUT && e->n_copy[s]) /* as socket_view chose */
        f = e->copies[e->first_copy[s]].feat;
    return layer_rows(e, e->d, s, &f, layer, rows, n, more);
}

/* The rows of use number `layer` of view s of writer's map f, through its edges
 * (view_elements; diagnostics into d). */
static Status layer_rows(const Emit *e, Diag *d, uint32_t s,
                         const EmitFeat *fp, int64_t layer, int64_t **rows, int64_t *n,
                         bool *more)
{
    const Block *b = e->g->blocks[s];
    EmitFeat f = *fp;
    int32_t sd[TIR_CDIMS];
    *more = false;
    if (!blk_cluster_dims(b, true, 0, sd))
        return diag_block(d, ST_RUNTIME, "emit.internal", b, "no input cluster");
    int64_t vol = 1;
    for (int i = 0; i < TIR_CDIMS && vol <= RA_MAX_ELEMS; i++)
        vol *= sd[i] > 0 ? sd[i] : 1;
    if (vol > RA_MAX_ELEMS || f.words > RA_MAX_ELEMS)
        return diag_block(d, ST_LOGIC, "emit.rearrange", b,
                          "holds more than 2^28 values: too many to lay weights out for");
    int64_t lanes = f.words * f.per_word, vals = f.ny * f.nx * f.nc;
    int32_t *map = malloc((size_t)vol * sizeof *map);
    int64_t *inv = calloc((size_t)(vals ? vals : 1), sizeof *inv);
    int64_t *seen = calloc((size_t)(vals ? vals : 1), sizeof *seen);
    int64_t *r = malloc((size_t)lanes * sizeof *r);
    if (!map || !inv || !seen || !r) {
        free(map);
        free(inv);
        free(seen);
        free(r);
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    }
    Status st = view_elements(e, d, s, map, vol);
    /* inv: for each value of the writer's map (C order y, x, c), 1 + the vector element that
     * is its use number `layer` (in element order; 0: none); a value that several elements
     * take (a SHUFFLE repeating an index) has several uses */
    for (int64_t i = 0; st == ST_OK && i < vol; i++) {
        if (map[i] < 0 || map[i] >= vals)
            continue;
        int64_t k = seen[map[i]]++;
        if (k == layer)
            inv[map[i]] = i + 1;
        *more |= k > layer;
    }
    for (int64_t l = 0; st == ST_OK && l < lanes; l++) {
        int64_t pix = l / f.c, ch = l % f.c;
        r[l] = ch < f.nc ? inv[pix * f.nc + ch] - 1 : -1;
    }
    free(map);
    free(inv);
    free(seen);
    if (st != ST_OK) {
        free(r);
        return st;
    }
    *rows = r;
    *n = lanes;
    return ST_OK;
}

Status emit_rearr_rows(Emit *e, uint32_t s, int64_t **rows, int64_t *n)
{
    bool more;
    Status st = emit_rearr_layer(e, s, 0, rows, n, &more);
    if (st != ST_OK || !more)
        return st;
    free(*rows);
    *rows = NULL;
    return diag_block(e->d, ST_LOGIC, "emit.rearrange", e->g->blocks[s],
                      "a view whose vector takes a value of its writer's map more than once: "
                      "one weight row a lane cannot weigh the value twice");
}

long emit_rearr_input(const Emit *e, uint32_t cvm)
{
    const Block *b = e->g->blocks[cvm];
    if (b->type != BT_CVM || b->n_in < 1 || b->in[0].n_ifaces != 1)
        return -1;
    const Edge *ed = graph_edge(e->g, b->in[0].ifaces[0].edge_id);
    long s = ed ? graph_block_pos(e->g, ed->src) : -1;
    uint32_t w;
    return s >= 0 && view_writer(e, (uint32_t)s, &w) ? s : -1;
}
