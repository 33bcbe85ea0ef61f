/* fuse_copy.c: the fuse pass's removal of the blocks that only copy (fuse_internal.h,
 * docs/passes-fuse.md).
 *
 * Storage and compute alternate on every path, so a copy between two storage blocks is a
 * compute block that computes the identity: a CADD or CAVG of one input without bias over a
 * 1 x 1 window (stride 1, no padding), a CVS with CONSTANT_A 1 and no bias, a CCMPB with no
 * shift and CMP INT32_MIN or a CCMPS with no shift and CMP INT32_MAX over a 1 x 1 window (not
 * the 1-D form, whose clip is narrower), each of precision INT_32 (no clamp). The chain
 *     S1 -e1-> C -e2-> S2
 * with e1 and e2 plain whole copies (plain_copy.h), C fed by e1 alone and read by e2 alone,
 * S2 fed by e2 alone and without data, is removed in one of two ways:
 *   - S1 and S2 of one type, precision and output box: S2's readers read S1 (S2's output
 *     edges move to S1, box and all), C and S2 go;
 *   - else, S1 read by C alone, without data, and its input box that of S2: S1's input
 *     edges move to S2, S1 and C go.
 * Either way every reader sees the values it saw. Chains are removed one after another in
 * graph order, each with the use index current (a removal changes the neighbours' edges).
 */
#include "passes/fuse_internal.h"
#include "passes/groups.h"
#include "passes/plain_copy.h"
#include "taskir/uses.h"

#include <stdlib.h>
#include <string.h>

/* Is the block's window 1 x 1, stride 1, without padding, its input box its output box? */
static bool neutral_window(const Block *c)
{
    int32_t s[TIR_NDIMS];
    blk_eff_shape(c, s);
    static const AttrId zero[] = {AT_PAD_UP, AT_PAD_DOWN, AT_PAD_LEFT, AT_PAD_RIGHT};
    for (size_t i = 0; i < sizeof zero / sizeof *zero; i++)
        if (blk_attr(c, zero[i]) != 0)
            return false;
    return s[4] <= 1 && s[5] <= 1 && s[6] == s[0] && s[7] == s[1] &&
           blk_attr(c, AT_STRIDE_X) == 1 && blk_attr(c, AT_STRIDE_Y) == 1 &&
           blk_attr(c, AT_KERNEL_X) == 1 && blk_attr(c, AT_KERNEL_Y) == 1;
}

static bool no_bias(const Block *c)
{
    return !blk_has_bias_cluster(c) && blk_attr(c, AT_CONSTANT_B) == 0;
}

/* Does compute block c copy its one input cluster to its output unchanged? */
static bool is_identity(const Block *c)
{
    if (blk_prec(c) != PR_INT_32 || c->n_in != 1 + (uint32_t)blk_has_bias_cluster(c))
        return false;
    bool one_d = c->shape.d[0] <= 0 && c->shape.d[1] <= 0 && c->shape.d[6] <= 0 &&
                 c->shape.d[7] <= 0;
    switch (c->type) {
    case BT_CADD:
    case BT_CAVG:
        return no_bias(c) && neutral_window(c);
    case BT_CVS:
        return no_bias(c) && blk_attr(c, AT_CONSTANT_A) == 1;
    case BT_CCMPB:
        return !one_d && neutral_window(c) && blk_attr(c, AT_BIT_SHIFT_NUM) == 0 &&
               blk_attr(c, AT_CMP) == INT32_MIN;
    case BT_CCMPS:
        return !one_d && neutral_window(c) && blk_attr(c, AT_BIT_SHIFT_NUM) == 0 &&
               blk_attr(c, AT_CMP) == INT32_MAX;
    default:
        return false;
    }
}

static bool is_storage(const Block *b)
{
    return b && bt_info(b->type)->kind == BK_STORAGE;
}

static bool same_box(const Block *a, bool ain, const Block *b, bool bin)
{
    int32_t da[TIR_CDIMS], db[TIR_CDIMS];
    return blk_cluster_dims(a, ain, 0, da) && blk_cluster_dims(b, bin, 0, db) &&
           memcmp(da, db, sizeof da) == 0;
}

/* Moves every edge on one side of the block at pos (its outputs when src) to block to,
 * cluster 0. */
static bool move_edges(Graph *g, const GraphUses *u, uint32_t pos, bool src, Block *to)
{
    const BlockUses *bu = &u->blocks[pos];
    uint32_t n = src ? bu->n_out_edges : bu->n_in_edges;
    for (uint32_t i = 0; i < n; i++)
        if (!graph_retarget_edge(g, g->edges[src ? bu->out_edges[i] : bu->in_edges[i]], src,
                                 to, 0))
            return false;
    return true;
}

/* Marks the blocks at both ends of every edge of the block at pos. */
static void touch_around(const Graph *g, const GraphUses *u, uint32_t pos, bool *touched)
{
    const BlockUses *bu = &u->blocks[pos];
    touched[pos] = true;
    for (uint32_t i = 0; i < bu->n_in_edges + bu->n_out_edges; i++) {
        const Edge *e = g->edges[i < bu->n_in_edges ? bu->in_edges[i]
                                                    : bu->out_edges[i - bu->n_in_edges]];
        long a = graph_block_pos(g, e->src), b = graph_block_pos(g, e->dst);
        if (a >= 0)
            touched[a] = true;
        if (b >= 0)
            touched[b] = true;
    }
}

/* Removes the copy made by compute block c (position pos) when it can and none of the blocks
 * it involves was touched by an earlier removal of this round (the index is stale there);
 * *done tells. */
static bool try_drop(Graph *g, const GraphUses *u, uint32_t pos, bool *touched, bool *done)
{
    const BlockUses *cu = &u->blocks[pos];
    Block *c = g->blocks[pos];
    *done = false;
    if (touched[pos] || bt_info(c->type)->kind != BK_COMPUTE || cu->n_in_edges != 1 ||
        cu->n_out_edges != 1 || !is_identity(c))
        return true;
    const Edge *e1 = g->edges[cu->in_edges[0]], *e2 = g->edges[cu->out_edges[0]];
    Block *s1 = graph_block(g, e1->src), *s2 = graph_block(g, e2->dst);
    if (!is_storage(s1) || !is_storage(s2) || s1 == s2 || s2->data)
        return true;
    long p1 = graph_block_pos(g, s1->id), p2 = graph_block_pos(g, s2->id);
    const IfaceUse *f2 = uses_find(u, (uint32_t)p2, true, e2->id);
    if (touched[p1] || touched[p2] || u->blocks[p2].n_in_edges != 1 || !f2 ||
        f2->cluster != 0 || !pc_plain_whole(g, u, e1) || !pc_plain_whole(g, u, e2))
        return true;
    touch_around(g, u, (uint32_t)p1, touched);
    touch_around(g, u, (uint32_t)p2, touched);
    if (s1->type == s2->type && blk_prec(s1) == blk_prec(s2) && same_box(s1, false, s2, false)) {
        if (!move_edges(g, u, (uint32_t)p2, true, s1))
            return false;
        graph_remove_block(g, s2);
    } else if (u->blocks[p1].n_out_edges == 1 && !s1->data && same_box(s1, true, s2, true)) {
        graph_remove_edge(g, g->edges[cu->out_edges[0]]);
        if (!move_edges(g, u, (uint32_t)p1, false, s2))
            return false;
        graph_remove_block(g, s1);
    } else {
        return true;
    }
    graph_remove_block(g, c);
    *done = true;
    return true;
}

Status fuse_drop_copies_uses(Graph *g, Diag *d, uint32_t *n, GraphUses *u)
{
    bool ok = true, again = true;
    memset(u, 0, sizeof *u);
    while (ok && again) { /* rounds: each removes at least one block, or ends */
        bool *touched = calloc((size_t)g->n_blocks + 1, sizeof *touched);
        if (!touched || !graph_uses(g, u)) {
            free(touched);
            return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
        }
        again = false;
        for (uint32_t i = 0; ok && i < g->n_blocks; i++) {
            bool done = false;
            ok = try_drop(g, u, i, touched, &done);
            if (done) {
                (*n)++;
                again = true;
            }
        }
        free(touched);
        if (again || !ok) /* the graph changed: the index is stale */
            graph_uses_finish(u);
        if (again && !graph_compact(g))
            ok = false;
    }
    if (!ok || graph_oom(g)) {
        graph_uses_finish(u);
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    }
    group_prune(g); /* groups only: the index stays valid */
    return ST_OK;
}

Status fuse_drop_copies(Graph *g, Diag *d, uint32_t *n)
{
    GraphUses u;
    Status st = fuse_drop_copies_uses(g, d, n, &u);
    graph_uses_finish(&u);
    return st;
}
