/* lanes_exact.c: edges whose values the router moves between lanes, exactly as the code
 * generator sends them (lanes_exact.h). */
#include "taskir/lanes_exact.h"

#include "taskir/rearrange.h"

bool lanes_map_box(const Graph *g, const GraphUses *u, uint32_t pos, bool input,
                   int32_t edge_id, int64_t lo[3], int64_t n[3])
{
    const Block *b = g->blocks[pos];
    const IfaceUse *iu = uses_find(u, pos, input, edge_id);
    int32_t cd[TIR_CDIMS];
    if (!iu || !blk_cluster_dims(b, input, iu->cluster, cd))
        return false;
    const Cluster *c = input ? &b->in[iu->cluster] : &b->out[iu->cluster];
    const Iface *f = &c->ifaces[iu->iface];
    const int dims[3] = {D_Y, D_X, cd[D_F] > 0 ? D_F : D_R};
    for (int k = 0; k < 3; k++) {
        int i = dims[k];
        int64_t whole = cd[i] > 0 ? cd[i] : 1;
        lo[k] = f->has_pos && f->pos.d[i] > 0 ? f->pos.d[i] : 0;
        n[k] = f->has_size && f->size.d[i] > 0 ? f->size.d[i] : whole - lo[k];
    }
    return true;
}

static bool same_extents(const int64_t a[3], const int64_t b[3])
{
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

bool lanes_flat_rows(const Graph *g, const GraphUses *u, const Edge *ed, uint32_t w,
                     const int64_t wlo[3], const int64_t wn[3], const int64_t dn[3])
{
    int32_t cd[TIR_CDIMS];
    if (!ed->n_re || same_extents(wn, dn) || wn[2] != dn[2] || wn[0] * wn[1] != dn[0] * dn[1] ||
        !ra_edge_keeps_order(g, u, ed) || !blk_cluster_dims(g->blocks[w], false, 0, cd))
        return false;
    int64_t nx = cd[D_X] > 0 ? cd[D_X] : 1;
    return wn[0] == 1 || (wlo[1] == 0 && wn[1] == nx);
}

bool lanes_exact(const Graph *g, const GraphUses *u, const Edge *ed)
{
    long w = graph_block_pos(g, ed->src), s = graph_block_pos(g, ed->dst);
    int64_t wlo[3], wn[3], dlo[3], dn[3];
    if (!ed->n_re || w < 0 || s < 0 || bt_info(g->blocks[w]->type)->kind != BK_COMPUTE ||
        bt_info(g->blocks[s]->type)->kind != BK_STORAGE ||
        !lanes_map_box(g, u, (uint32_t)w, false, ed->id, wlo, wn) ||
        !lanes_map_box(g, u, (uint32_t)s, true, ed->id, dlo, dn))
        return false;
    return !ra_edge_keeps_order(g, u, ed) ||
           (!same_extents(wn, dn) && !lanes_flat_rows(g, u, ed, (uint32_t)w, wlo, wn, dn));
}
