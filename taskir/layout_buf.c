/* layout_buf.c: a compute block's output buffer as the code generator lays it out
 * (layout_buf.h). */
#include "taskir/layout_buf.h"

#include "taskir/layout.h"

/* layout_own_row with b standing for block pos (its channels). */
static bool own_row_as(const Block *b, int unit, int own)
{
    int32_t cd[TIR_CDIMS];
    if ((layout_use_of(b->type, false) != LAYOUT_GROUP && b->type != BT_CLUT) || unit < 1 ||
        own < 1 || !blk_cluster_dims(b, false, 0, cd))
        return false;
    int64_t nc = cd[D_F] > 0 ? cd[D_F] : 1;
    return (nc + unit - 1) / unit * unit != (nc + own - 1) / own * own;
}

bool layout_own_row(const Graph *g, const GraphUses *u, uint32_t pos, int unit, int own)
{
    (void)u;
    return own_row_as(g->blocks[pos], unit, own);
}

/* layout_buffer_unit with b standing for block pos (its channels). */
static int buffer_unit_as(const Graph *g, const GraphUses *u, uint32_t pos, const Block *b,
                          PrecisionId *prec)
{
    if (layout_use_of(g->blocks[pos]->type, false) == LAYOUT_GROUP) {
        *prec = PR_INT_32;
        return layout_output_unit(g, u, pos, PR_INT_32);
    }
    const BlockUses *bu = &u->blocks[pos];
    long dest = -1;
    *prec = blk_prec(g->blocks[pos]);
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        long s = graph_block_pos(g, g->edges[bu->out_edges[j]]->dst);
        if (s < 0)
            continue;
        if (dest < 0)
            dest = s;
        *prec = blk_prec(g->blocks[s]);
    }
    unsigned wu = layout_use_of(g->blocks[pos]->type, false);
    if (wu & (LAYOUT_AXON | LAYOUT_GROUP))
        *prec = PR_INT_32; /* an Axon's output */
    int own = layout_output_unit(g, u, pos, *prec);
    if (dest < 0 || blk_prec(g->blocks[dest]) != *prec)
        return own;
    int unit = layout_storage_unit(g, u, (uint32_t)dest);
    return own_row_as(b, unit, own) ? own : unit;
}

int layout_buffer_unit(const Graph *g, const GraphUses *u, uint32_t pos, PrecisionId *prec)
{
    return buffer_unit_as(g, u, pos, g->blocks[pos], prec);
}

int64_t layout_buffer_bytes_as(const Graph *g, const GraphUses *u, uint32_t pos,
                               const Block *as)
{
    const Block *b = as ? as : g->blocks[pos];
    PrecisionId p;
    int unit = buffer_unit_as(g, u, pos, b, &p);
    int32_t cd[TIR_CDIMS];
    if (unit < 1 || !layout_unit(p, 0) || !blk_cluster_dims(b, false, 0, cd))
        return 0;
    return layout_map_bytes(p, cd[D_Y] > 0 ? cd[D_Y] : 1, cd[D_X] > 0 ? cd[D_X] : 1,
                            cd[D_F] > 0 ? cd[D_F] : 1, unit);
}

int64_t layout_buffer_bytes(const Graph *g, const GraphUses *u, uint32_t pos)
{
    return layout_buffer_bytes_as(g, u, pos, NULL);
}
