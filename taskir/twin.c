/* twin.c: storage blocks that hold the same values (twin.h). */
#include "taskir/twin.h"

#include "taskir/blockbox.h"
#include "taskir/types.h"


static bool same_box(const BlockBox *a, const BlockBox *b)
{
    for (int i = 0; i < TIR_NDIMS; i++)
        if (a->lo[i] != b->lo[i] || a->hi[i] != b->hi[i])
            return false;
    return true;
}

long twin_fill_edge(const Graph *g, const GraphUses *u, uint32_t pos)
{
    const Block *b = g->blocks[pos];
    const BlockUses *bu = &u->blocks[pos];
    if (bt_info(b->type)->kind != BK_STORAGE || bu->n_in_edges != 1)
        return -1;
    const Edge *e = g->edges[bu->in_edges[0]];
    if (e->n_re)
        return -1;
    BlockBox in, whole;
    bbox_of_iface(g, u, pos, true, e->id, &in);
    bbox_full(b, &whole);
    return same_box(&in, &whole) ? (long)bu->in_edges[0] : -1;
}

bool storage_twins(const Graph *g, const GraphUses *u, uint32_t a, uint32_t b)
{
    if (a == b)
        return false;
    long ea = twin_fill_edge(g, u, a), eb = twin_fill_edge(g, u, b);
    if (ea < 0 || eb < 0)
        return false;
    const Edge *xa = g->edges[ea], *xb = g->edges[eb];
    const Block *ba = g->blocks[a], *bb = g->blocks[b];
    long w = graph_block_pos(g, xa->src);
    if (w < 0 || xa->src != xb->src || blk_prec(ba) != blk_prec(bb))
        return false;
    BlockBox fa, fb, sa, sb;
    bbox_full(ba, &fa);
    bbox_full(bb, &fb);
    bbox_of_iface(g, u, (uint32_t)w, false, xa->id, &sa);
    bbox_of_iface(g, u, (uint32_t)w, false, xb->id, &sb);
    return same_box(&fa, &fb) && same_box(&sa, &sb);
}
