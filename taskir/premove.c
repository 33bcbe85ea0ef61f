/* premove.c: the P06s inserted before a compute block runs (premove.h). */
#include "taskir/premove.h"

#include "taskir/layout.h"

uint32_t premove_count(const Graph *g, const GraphUses *u, uint32_t pos)
{
    const Block *b = g->blocks[pos];
    uint32_t n = b->type == BT_CADD ? blk_n_variadic(b) : 0;
    long src = -1;
    if (n < 2)
        return 0;
    if (layout_repeats(g, u, pos, &src))
        return layout_repeat_scales(g, u, pos) ? 0 : 1; /* P83 reads the box where it lies */
    return n;
}

bool premove_tee(const Graph *g, const GraphUses *u, uint32_t w, uint32_t s)
{
    const BlockUses *bu = &u->blocks[w];
    PrecisionId prec = blk_prec(g->blocks[s]);
    int unit = layout_storage_unit(g, u, s);
    bool part = u->blocks[s].n_in_edges > 1; /* other blocks write the rest of s */
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        long o = graph_block_pos(g, g->edges[bu->out_edges[j]]->dst);
        if (o >= 0 && (uint32_t)o == s)
            return false; /* none before it: the first, which w's primitive writes */
        if (o >= 0 && bt_info(g->blocks[o]->type)->kind == BK_STORAGE &&
            (part || blk_prec(g->blocks[o]) != prec ||
             layout_storage_unit(g, u, (uint32_t)o) != unit))
            return true;
    }
    return false;
}
