/* split_need.c: the memory of a compute block's group and of its pieces before they are
 * made (split.h, docs/passes.md "split"): the block, the storage it reads, its output buffer,
 * the share of an input cluster that a compute block feeds directly, the Soma after it
 * that fuse will pair with it (split_soma_share), the code generator's working areas
 * (layout_work_bytes, which the mapper counts too: a CADD's gathered inputs) and the pitch
 * of the storage it reads (bbox_storage_bytes, the mapper's count: a map of 32 channels
 * written by CLUT pieces of 511 holds rows of 512). A piece's memory is figured as
 * chip_group_mem would on it, from stand-ins with the piece's shapes (its working areas and
 * pitches once it is made). */
#include "passes/split.h"
#include "taskir/blockbox.h"
#include "taskir/chip_cost.h"
#include "taskir/layout.h"
#include "taskir/rearrange.h"

#include <string.h>

static int64_t box_vol(const int32_t *box)
{
    int64_t v = 1;
    for (int i = 0; i < TIR_CDIMS; i++)
        if (box[i] > 0)
            v *= box[i];
    return v;
}

/* Into *pitch: what the storage blocks b reads take in the mapper's count (the pitch of the
 * maps around them, bbox_storage_bytes) beyond chip_group_mem's (their values' bytes), and
 * what b's output area takes in the pitch the code generator gives it (layout_output_unit:
 * a P83 writes the pitch it reads, int32 pixels of 512 channels for 32 values read in rows
 * of 512) beyond chip_buffer_held (chip_group_mem's output). false on overflow. */
static bool storage_pitch(const Chip *c, const Graph *g, const GraphUses *u, const Block *b,
                          int64_t *pitch)
{
    *pitch = 0;
    long pos = graph_block_pos(g, b->id);
    PrecisionId p = layout_use_of(b->type, false) & (LAYOUT_AXON | LAYOUT_GROUP)
                        ? PR_INT_32 : blk_prec(b);
    int unit = layout_output_unit(g, u, (uint32_t)pos, p);
    int32_t cd[TIR_CDIMS];
    if (unit > 0 && blk_cluster_dims(b, false, 0, cd)) {
        int64_t laid = layout_map_bytes(p, cd[D_Y] > 0 ? cd[D_Y] : 1, cd[D_X] > 0 ? cd[D_X] : 1,
                                        cd[D_F] > 0 ? cd[D_F] : 1, unit),
                plain = chip_buffer_held(c, g, u, (uint32_t)pos, NULL);
        if (laid < 0 || plain < 0)
            return false;
        *pitch = laid > plain ? laid - plain : 0;
    }
    const BlockUses *bu = &u->blocks[pos];
    for (uint32_t i = 0; i < bu->n_in_edges; i++) {
        const Edge *e = g->edges[bu->in_edges[i]];
        long s = graph_block_pos(g, e->src);
        if (s < 0 || bt_info(g->blocks[s]->type)->kind != BK_STORAGE)
            continue;
        bool seen = false; /* stored once, as chip_group_mem counts it */
        for (uint32_t k = 0; k < i && !seen; k++)
            seen = g->edges[bu->in_edges[k]]->src == e->src;
        if (seen)
            continue;
        int64_t laid = bbox_storage_bytes(c, g, u, (uint32_t)s),
                plain = chip_storage_bytes(c, g->blocks[s], b);
        if (laid < 0 || plain < 0 || laid - plain > INT64_MAX / 4 - *pitch)
            return false;
        *pitch += laid > plain ? laid - plain : 0;
    }
    return true;
}

/* The memory of b's group. false on overflow. */
bool split_need_of(const Chip *c, const Graph *g, const GraphUses *u, const Block *b,
                   SplitNeed *n)
{
    memset(n, 0, sizeof *n);
    if (!chip_group_mem(c, g, u, b, &n->m) || n->m.total < 0)
        return false;
    long pos = graph_block_pos(g, b->id);
    const BlockUses *bu = &u->blocks[pos];
    for (uint32_t i = 0; i < bu->n_in_edges; i++) {
        const Edge *e = g->edges[bu->in_edges[i]];
        const Block *src = graph_block(g, e->src);
        EdgeEnds en;
        char why[8];
        if (!src || bt_info(src->type)->kind == BK_STORAGE ||
            !edge_ends(g, u, e, &en, why, sizeof why))
            continue;
        int64_t ob = chip_buffer_held(c, g, u, (uint32_t)graph_block_pos(g, src->id), NULL),
                w = box_vol(en.src_cdims);
        if (ob < 0 || w <= 0)
            return false;
        n->direct += (int64_t)((double)ob * (double)box_vol(en.src_box) / (double)w);
    }
    if (!storage_pitch(c, g, u, b, &n->pitch))
        return false;
    int32_t shape[TIR_NDIMS];
    blk_eff_shape(b, shape);
    if (!split_soma_share(c, g, u, b, shape, &n->soma))
        return false;
    n->work = layout_work_bytes(g, u, (uint32_t)pos);
    if (n->work < 0)
        return false;
    n->total = n->m.total + n->direct + n->soma + n->work + n->pitch;
    return true;
}

bool split_fits(const Chip *c, const SplitNeed *n)
{
    return n->total <= c->core_budget_bytes;
}

bool split_weight_cut(const Block *b)
{
    return b->type == BT_CC || b->type == BT_CC2D || b->type == BT_CVM;
}

/* The need of piece pc of b, figured as chip_group_mem would on the piece once made: stand-ins
 * for the piece and for the parts of the storage blocks it would read, with their shapes
 * (the piece's padding aside: it only makes an SIC2D a few rows smaller). */
bool split_piece_need(const Chip *c, const Graph *g, const GraphUses *u, const Block *b,
                      bool r_cut, const SplitPiece *pc, SplitNeed *out)
{
    memset(out, 0, sizeof *out);
    Block tp = *b;
    memcpy(tp.shape.d, pc->shape, sizeof tp.shape.d);
    int bias_k = r_cut && blk_has_bias_cluster(b) ? (int)b->n_in - 1 : -1;
    long pos = graph_block_pos(g, b->id);
    const BlockUses *bu = &u->blocks[pos];
    for (uint32_t i = 0; i < bu->n_in_edges; i++) {
        const Edge *e = g->edges[bu->in_edges[i]];
        const Block *src = graph_block(g, e->src);
        const IfaceUse *iu = uses_find(u, (uint32_t)pos, true, e->id);
        if (!src || !iu || (int)iu->cluster == bias_k || iu->cluster >= SPLIT_MAX_IN)
            continue;
        uint32_t k = iu->cluster;
        bool seen = false;
        for (uint32_t q = 0; q < i && !seen; q++)
            seen = g->edges[bu->in_edges[q]]->src == src->id;
        if (seen)
            continue;
        int64_t bytes;
        if (bt_info(src->type)->kind == BK_STORAGE) {
            Block ts = *src;
            if (!pc->in_whole[k])
                split_storage_shape(src, &pc->in[k], ts.shape.d);
            bytes = chip_storage_bytes(c, &ts, &tp);
        } else { /* fed directly: the share of the producer's output */
            int32_t cd[TIR_CDIMS];
            int64_t ob = chip_buffer_held(c, g, u, (uint32_t)graph_block_pos(g, src->id), NULL),
                    w;
            if (ob < 0 || !blk_cluster_dims(b, true, k, cd) || (w = box_vol(cd)) <= 0)
                return false;
            bytes = (int64_t)((double)ob * (double)box_vol(pc->in[k].size) / (double)w);
            out->direct += bytes;
        }
        if (bytes < 0)
            return false;
        const ClusterSpec *sp = blk_in_spec(b, k);
        const char *role = sp ? sp->role : "input";
        if (!strcmp(role, "bias"))
            out->m.bias += bytes;
        else if (!strcmp(role, "weight") || !strcmp(role, "lut") || !strcmp(role, "alpha"))
            out->m.weight += bytes;
        else if (bt_info(src->type)->kind == BK_STORAGE)
            out->m.input += bytes;
    }
    out->m.output = chip_buffer_held(c, g, u, (uint32_t)pos, &tp);
    if (out->m.output < 0)
        return false;
    if (!split_soma_share(c, g, u, b, pc->shape, &out->soma))
        return false;
    /* the working areas (layout_work_bytes) and the storage's pitches (storage_pitch) are not
     * figured on a piece before it is made: the planner figures thousands of pieces, and the
     * walk through the pitches of the maps around a block is long where many CLUT pieces
     * share a table; each piece, once made, is checked with its own in the next round
     * (split_need_of) and cut again if need be */
    out->work = 0;
    out->pitch = 0;
    out->total = out->m.input + out->m.weight + out->m.bias + out->m.output + out->direct +
                 out->soma + out->work;
    return true;
}

/* The precision of what feeds b's input cluster 0 (the map an r cut slices): its first
 * writer's, a storage block or a compute block feeding it directly; b's own when none. */
static PrecisionId input_prec(const Graph *g, const GraphUses *u, const Block *b)
{
    long pos = graph_block_pos(g, b->id);
    const BlockUses *bu = pos >= 0 ? &u->blocks[pos] : NULL;
    for (uint32_t i = 0; bu && i < bu->n_in_edges; i++) {
        const Edge *e = g->edges[bu->in_edges[i]];
        const IfaceUse *iu = uses_find(u, (uint32_t)pos, true, e->id);
        const Block *src = graph_block(g, e->src);
        if (iu && iu->cluster == 0 && src)
            return blk_prec(src);
    }
    return blk_prec(b);
}

/* The unit b's channels are cut in (split_unit): of b's precision and of the Soma's after it,
 * which fuse runs on the same core and whose output the pieces send. One is a multiple of
 * the other: each is the values of a packet in a power-of-two width. Along r, the values of
 * a packet of the map the pieces read (input_prec): each piece's slice of every pixel then
 * starts on a packet, and its writers send it in 8-byte packets (a slice starting inside
 * one goes in 1-byte packets, and the code generator sends a byte run once a phase, never
 * relayed: docs/backend.md "Transfers"). */
int32_t split_unit_of(const Chip *c, const Graph *g, const GraphUses *u, const Block *b,
                      SplitAxis ax)
{
    if (ax == SPLIT_R)
        return split_unit(c, input_prec(g, u, b), SPLIT_F);
    int32_t k = split_unit(c, blk_prec(b), ax);
    Block *s, *m = ax == SPLIT_F ? split_soma_after(c, g, u, b, false, &s) : NULL;
    int32_t km = m ? split_unit(c, blk_prec(m), ax) : 1;
    return km > k ? km : k;
}

bool split_estimate(const Chip *c, const Graph *g, const GraphUses *u, const Block *b,
                    SplitAxis ax, const int32_t *bounds, uint32_t parts, SplitNeed *out,
                    uint32_t *largest)
{
    memset(out, 0, sizeof *out);
    if (largest)
        *largest = 0;
    /* the largest pieces: split_bounds makes the first ones the longest, the border ones
     * (0 and the last) may read less of a padded input than the inner ones */
    uint32_t look[4] = {0, 1, parts - 2, parts - 1};
    for (int q = 0; q < 4; q++) {
        SplitPiece pc;
        SplitNeed e;
        char why[128];
        uint32_t i = look[q];
        if (!split_piece(b, ax, bounds[i], bounds[i + 1], &pc, why, sizeof why) ||
            !split_piece_need(c, g, u, b, ax == SPLIT_R, &pc, &e))
            return false;
        if (e.total > out->total) {
            *out = e;
            if (largest)
                *largest = i;
        }
    }
    return true;
}

/* The most pieces worth making along a (0: b cannot be cut along a, or no cut saves memory:
 * one aligned group). */
uint32_t split_most(const Chip *c, const Block *b, SplitAxis a)
{
    if (!split_can(b, a))
        return 0;
    int32_t ext = split_extent(b, a), align = split_align(c, b, a);
    int64_t units = align > 1 ? (ext + align - 1) / align : ext;
    if (units < 2)
        return 0;
    if (a == SPLIT_R && units > SPLIT_MAX_IN - 1)
        units = SPLIT_MAX_IN - 1; /* the joining CADD's inputs */
    return (uint32_t)units;
}
