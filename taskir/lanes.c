/* lanes.c: edges whose values move between pixels or lanes (lanes.h). */
#include "taskir/lanes.h"

#include "taskir/layout.h"
#include "taskir/rearrange.h"
#include "taskir/sockbox.h"

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
