/* own_gather.c: edges the code generator gathers through the writer's own router
 * (own_gather.h). */
#include "mapper/own_gather.h"

/* Whether every output edge of compute block w goes into storage block s. */
static bool all_into(const Graph *g, const GraphUses *u, uint32_t w, int32_t s)
{
    const BlockUses *bu = &u->blocks[w];
    for (uint32_t j = 0; j < bu->n_out_edges; j++)
        if (g->edges[bu->out_edges[j]]->dst != s)
            return false;
    return true;
}

bool map_own_gathered(const Graph *g, const GraphUses *u, const Edge *ed)
{
    long w = graph_block_pos(g, ed->src);
    if (w < 0 || bt_info(g->blocks[w]->type)->kind != BK_COMPUTE || g->blocks[w]->n_out != 1 ||
        all_into(g, u, (uint32_t)w, ed->dst))
        return false;
    const Block *b = g->blocks[w];
    const IfaceUse *iu = uses_find(u, (uint32_t)w, false, ed->id);
    int32_t cd[TIR_CDIMS];
    if (!iu || !blk_cluster_dims(b, false, iu->cluster, cd))
        return false;
    const Iface *f = &b->out[iu->cluster].ifaces[iu->iface];
    int64_t lo[TIR_CDIMS], n[TIR_CDIMS], all[TIR_CDIMS];
    bool whole = true;
    for (int i = 0; i < TIR_CDIMS; i++) {
        all[i] = cd[i] > 0 ? cd[i] : 1;
        lo[i] = f->has_pos && f->pos.d[i] > 0 ? f->pos.d[i] : 0;
        n[i] = f->has_size && f->size.d[i] > 0 ? f->size.d[i] : all[i] - lo[i];
        whole = whole && lo[i] == 0 && n[i] == all[i];
    }
    if (whole)
        return false;
    bool rows = n[D_Y] == 1 || (lo[D_X] == 0 && n[D_X] == all[D_X]);
    bool chans = lo[D_F] == 0 && n[D_F] == all[D_F] && lo[D_R] == 0 && n[D_R] == all[D_R];
    return !(rows && chans && ed->n_re == 0);
}
