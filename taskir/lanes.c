/* lanes.c: edges whose values move between pixels or lanes (lanes.h). */
#include "taskir/lanes.h"

#include "taskir/rearrange.h"

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
    return steps;
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
