/* blockbox.c: parts of blocks as boxes, and edge bytes (blockbox.h). */
#include "taskir/blockbox.h"

#include "taskir/chip_cost.h"
#include "taskir/lanes.h"
#include "taskir/layout.h"
#include "taskir/types.h"

#include <string.h>

void bbox_full(const Block *b, BlockBox *x)
{
    int32_t s[TIR_NDIMS];
    blk_eff_shape(b, s);
    for (int i = 0; i < TIR_NDIMS; i++) {
        x->lo[i] = 0;
        x->hi[i] = s[i] > 0 ? s[i] : 1;
    }
}

void bbox_of_iface(const Graph *g, const GraphUses *u, uint32_t pos, bool input, int32_t id,
                   BlockBox *x)
{
    const Block *b = g->blocks[pos];
    bbox_full(b, x);
    const IfaceUse *iu = uses_find(u, pos, input, id);
    if (!iu)
        return;
    const Cluster *cl = input ? &b->in[iu->cluster] : &b->out[iu->cluster];
    const Iface *f = &cl->ifaces[iu->iface];
    const ClusterSpec *spec = input ? blk_in_spec(b, iu->cluster) : blk_out_spec(b, iu->cluster);
    if (!spec || !f->has_size)
        return;
    for (int i = 0; i < TIR_CDIMS; i++) {
        int dm = spec->dim[i];
        if (dm < 0 || f->size.d[i] <= 0)
            continue;
        int64_t lo = f->has_pos ? f->pos.d[i] : 0;
        if (lo >= x->lo[dm] && lo + f->size.d[i] <= x->hi[dm]) {
            x->lo[dm] = lo;
            x->hi[dm] = lo + f->size.d[i];
        }
    }
}

int64_t bbox_volume(const BlockBox *x)
{
    double v = 1;
    for (int i = 0; i < TIR_NDIMS; i++)
        v *= (double)(x->hi[i] > x->lo[i] ? x->hi[i] - x->lo[i] : 0);
    return v > 9e18 ? INT64_MAX : (int64_t)v;
}

void bbox_union(BlockBox *a, const BlockBox *b, bool *empty)
{
    for (int i = 0; i < TIR_NDIMS; i++) {
        if (*empty || b->lo[i] < a->lo[i])
            a->lo[i] = b->lo[i];
        if (*empty || b->hi[i] > a->hi[i])
            a->hi[i] = b->hi[i];
    }
    *empty = false;
}

void bbox_inter(BlockBox *a, const BlockBox *b)
{
    for (int i = 0; i < TIR_NDIMS; i++) {
        if (b->lo[i] > a->lo[i])
            a->lo[i] = b->lo[i];
        if (b->hi[i] < a->hi[i])
            a->hi[i] = b->hi[i];
    }
}

int64_t bbox_scale_bytes(int64_t bytes, const BlockBox *part, const BlockBox *whole)
{
    int64_t w = bbox_volume(whole), v = bbox_volume(part);
    if (w <= 0 || v >= w)
        return bytes;
    double b = (double)bytes * (double)v / (double)w;
    int64_t r = (int64_t)b;
    return r + ((double)r < b);
}

int64_t bbox_edge_bytes(const Graph *g, const GraphUses *u, const Edge *e, bool at_src)
{
    const Block *b = NULL;
    const IfaceUse *iu = uses_edge_end(g, u, e, at_src, &b);
    if (!iu || !b)
        return 0;
    const Cluster *cl = at_src ? &b->out[iu->cluster] : &b->in[iu->cluster];
    const Iface *f = &cl->ifaces[iu->iface];
    int32_t dims[TIR_CDIMS];
    if (f->has_size)
        memcpy(dims, f->size.d, sizeof dims);
    else if (!blk_cluster_dims(b, !at_src, iu->cluster, dims))
        return 0;
    int64_t vol = tir_volume(dims, TIR_CDIMS);
    int bits = pr_info(blk_prec(b))->bits;
    if (vol < 0 || vol > INT64_MAX / 64)
        return -1;
    return (vol * bits + 7) / 8;
}

const Block *bbox_first_reader(const Graph *g, const GraphUses *u, uint32_t pos)
{
    const BlockUses *bu = &u->blocks[pos];
    for (uint32_t k = 0; k < bu->n_out_edges; k++) {
        const Block *t = graph_block(g, g->edges[bu->out_edges[k]]->dst);
        if (t && (unsigned)t->type < BT_COUNT && bt_info(t->type)->kind == BK_COMPUTE)
            return t;
    }
    return NULL;
}

/* Does every edge of storage block pos's (in: writers, else readers) have a block of type t
 * at its other end (and is there one)? */
static bool all_edges(const Graph *g, const GraphUses *u, uint32_t pos, bool in, BlockType t)
{
    const BlockUses *bu = &u->blocks[pos];
    uint32_t n = in ? bu->n_in_edges : bu->n_out_edges;
    for (uint32_t k = 0; k < n; k++) {
        const Edge *e = g->edges[in ? bu->in_edges[k] : bu->out_edges[k]];
        const Block *o = graph_block(g, in ? e->src : e->dst);
        if (!o || o->type != t)
            return false;
    }
    return n > 0;
}

int64_t bbox_storage_bytes(const Chip *c, const Graph *g, const GraphUses *u, uint32_t pos)
{
    const Block *b = g->blocks[pos];
    if (b->type == BT_SI && !b->data && all_edges(g, u, pos, true, BT_INPUT) &&
        all_edges(g, u, pos, false, BT_CLIF)) {
        /* P08's input, a model input only CLIFs read: int32 words, one a channel, whatever
           its precision (backend/emit_p08.c) */
        int32_t s[TIR_NDIMS];
        blk_eff_shape(b, s);
        int64_t n = (int64_t)(s[D_Y] > 0 ? s[D_Y] : 1) * (s[D_X] > 0 ? s[D_X] : 1);
        int64_t f = s[D_F] > 0 ? s[D_F] : 1;
        return n > INT64_MAX / 4 / f ? -1 : n * f * 4;
    }
    int unit = b->type == BT_SI || b->type == BT_SIC ? layout_storage_unit(g, u, pos) : 0;
    if (!unit)
        return chip_storage_bytes(c, b, bbox_first_reader(g, u, pos));
    int32_t s[TIR_NDIMS];
    blk_eff_shape(b, s);
    int ch = b->type == BT_SI ? D_F : D_R;
    int64_t own = layout_map_bytes(blk_prec(b), s[D_Y] > 0 ? s[D_Y] : 1,
                                   s[D_X] > 0 ? s[D_X] : 1, s[ch] > 0 ? s[ch] : 1, unit);
    int64_t wide = lanes_wide_bytes(g, u, pos); /* held one value a word, maybe (lanes.h) */
    return own < 0 || wide < 0 ? -1 : wide > own ? wide : own;
}

int64_t bbox_edge_layout_bytes(const Chip *c, const Graph *g, const GraphUses *u,
                               const Edge *e)
{
    long t = graph_block_pos(g, e->dst);
    if (t < 0)
        return 0;
    const Block *b = g->blocks[t];
    if ((unsigned)b->type >= BT_COUNT || bt_info(b->type)->kind != BK_STORAGE ||
        !uses_find(u, (uint32_t)t, true, e->id))
        return 0;
    int64_t all = bbox_storage_bytes(c, g, u, (uint32_t)t);
    if (all < 0)
        return -1;
    BlockBox whole, part;
    bbox_full(b, &whole);
    bbox_of_iface(g, u, (uint32_t)t, true, e->id, &part);
    return bbox_scale_bytes(all, &part, &whole);
}
