/* split_soma.c: fit mode and the Soma after an Axon block (split.h, docs/passes.md "split").
 *
 * The fuse pass runs an Axon block A and the Soma block M after it (A -> S -> M, S the
 * storage block between them) on one core when they fit it together. Fit mode therefore
 * counts M's share in A's group (split_soma_share: M's output for the part A computes, and
 * M's other storage, a CLUT's table), and cuts M as A was cut (split_soma_follow): once A's
 * pieces each write a part of S, M is cut along the parts, each piece of M reading one
 * piece's part through its own S, so that every piece of A pairs with one of M. Only a
 * pointwise M is followed (every output element reads the input element at its place: a
 * requantization, a ReLU, a table; not a pooling window), as only then do the pieces of M
 * read exactly what the pieces of A write, and only when M's result goes on to a compute
 * block (not the last Soma before an OUTPUT). The edge from an A into the S its M reads alone
 * stays whole (split_soma_edge): fused, it never leaves the core.
 */
#include "passes/plain_copy.h"
#include "passes/split.h"
#include "taskir/chip_cost.h"
#include "taskir/rearrange.h"

#include <stdlib.h>
#include <string.h>

static bool on_unit(const Chip *c, const Block *b, ChipUnit unit)
{
    const ChipPrim *p = chip_prim_for(c, b->type);
    return p && p->unit == unit;
}

static const BlockUses *uses_at(const Graph *g, const GraphUses *u, const Block *b)
{
    long pos = graph_block_pos(g, b->id);
    return pos < 0 || (uint32_t)pos >= u->n_blocks ? NULL : &u->blocks[pos];
}

static int64_t vol(const int32_t *box)
{
    int64_t v = 1;
    for (int i = 0; i < TIR_CDIMS; i++)
        if (box[i] > 0)
            v *= box[i];
    return v;
}

/* Does every output element of m read the input element of cluster 0 at its place? Its
 * first row (column) reads one input row (column), and its input is its output's box. */
static bool pointwise(const Block *m)
{
    int32_t in[TIR_CDIMS], out[TIR_CDIMS];
    if (!blk_cluster_dims(m, true, 0, in) || !blk_cluster_dims(m, false, 0, out) ||
        !pc_same_dims(in, out))
        return false;
    for (SplitAxis ax = SPLIT_Y; ax <= SPLIT_X; ax++) {
        SplitPiece pc;
        char why[8];
        if (!split_can(m, ax))
            continue;
        if (!split_piece(m, ax, 0, 1, &pc, why, sizeof why) ||
            vol(pc.in[0].size) * split_extent(m, ax) != vol(in))
            return false;
    }
    return true;
}

/* Does m's result reach a compute block through the storage it writes? (The last Soma
 * before an OUTPUT is not followed: its pieces would write, from several cores, a storage
 * block that no group holds.) */
static bool feeds_compute(const Graph *g, const GraphUses *u, const Block *m)
{
    const BlockUses *mu = uses_at(g, u, m);
    for (uint32_t i = 0; mu && i < mu->n_out_edges; i++) {
        const Block *t = graph_block(g, g->edges[mu->out_edges[i]]->dst);
        const BlockUses *tu = t ? uses_at(g, u, t) : NULL;
        for (uint32_t j = 0; tu && j < tu->n_out_edges; j++) {
            const Block *c = graph_block(g, g->edges[tu->out_edges[j]]->dst);
            if (c && bt_info(c->type)->kind == BK_COMPUTE)
                return true;
        }
    }
    return false;
}

/* The Soma block that reads S, the storage block a's only edge goes to: a compute block
 * on the Axon, its edge without rearrangement, S without data and read by one plain whole
 * edge into input cluster 0 of a pointwise CCMPB, CCMPS or CLUT on the Soma. alone: S has
 * no other input edge. NULL when there is none. */
Block *split_soma_after(const Chip *c, const Graph *g, const GraphUses *u, const Block *a,
                        bool alone, Block **s)
{
    const BlockUses *au = uses_at(g, u, a);
    if (!au || au->n_out_edges != 1 || !on_unit(c, a, UNIT_AXON))
        return NULL;
    const Edge *e1 = g->edges[au->out_edges[0]];
    Block *S = graph_block(g, e1->dst);
    const BlockUses *su = S ? uses_at(g, u, S) : NULL;
    if (e1->n_re || !su || bt_info(S->type)->kind != BK_STORAGE || S->data ||
        su->n_out_edges != 1 || (alone && su->n_in_edges != 1))
        return NULL;
    const Edge *e2 = g->edges[su->out_edges[0]];
    Block *m = graph_block(g, e2->dst);
    if (!m || (m->type != BT_CCMPB && m->type != BT_CCMPS && m->type != BT_CLUT) ||
        !on_unit(c, m, UNIT_SOMA))
        return NULL;
    long mpos = graph_block_pos(g, m->id);
    const IfaceUse *mi = uses_find(u, (uint32_t)mpos, true, e2->id);
    if (!mi || mi->cluster != 0 || !pc_plain_whole(g, u, e2) || !pointwise(m) ||
        !feeds_compute(g, u, m))
        return NULL;
    *s = S;
    return m;
}

bool split_soma_share(const Chip *c, const Graph *g, const GraphUses *u, const Block *a,
                      const int32_t shape[TIR_NDIMS], int64_t *bytes)
{
    *bytes = 0;
    Block *s, *m = split_soma_after(c, g, u, a, false, &s);
    if (!m)
        return true;
    Block tm = *m; /* m's stand-in, for the part a computes */
    static const int dims[] = {D_Y, D_X, D_F};
    for (int i = 0; i < 3; i++)
        if (tm.shape.d[dims[i]] > 0 && shape[dims[i]] > 0)
            tm.shape.d[dims[i]] = shape[dims[i]];
    int64_t total = chip_buffer_held(c, g, u, (uint32_t)graph_block_pos(g, m->id), &tm);
    if (total < 0)
        return false;
    const BlockUses *mu = uses_at(g, u, m);
    for (uint32_t i = 0; mu && i < mu->n_in_edges; i++) {
        const Block *t = graph_block(g, g->edges[mu->in_edges[i]]->src);
        bool seen = !t || t == s;
        for (uint32_t j = 0; j < i && !seen; j++)
            seen = g->edges[mu->in_edges[j]]->src == t->id;
        if (seen)
            continue;
        int64_t tb = chip_storage_bytes(c, t, m);
        if (tb < 0 || tb > INT64_MAX - total)
            return false;
        total += tb;
    }
    *bytes = total;
    return true;
}

bool split_soma_edge(const Chip *c, const Graph *g, const GraphUses *u, const Edge *e)
{
    const Block *a = graph_block(g, e->src);
    Block *s;
    return a && bt_info(a->type)->kind == BK_COMPUTE &&
           split_soma_after(c, g, u, a, true, &s) && s->id == e->dst;
}

static int cmp_i32(const void *x, const void *y)
{
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return (a > b) - (a < b);
}

/* The cluster dim that a cut of m along ax cuts, or -1. */
static int dim_of(const Block *m, SplitAxis ax, const int32_t in[TIR_CDIMS])
{
    SplitPiece pc;
    char why[8];
    if (!split_can(m, ax) || !split_piece(m, ax, 0, 1, &pc, why, sizeof why))
        return -1;
    for (int j = 0; j < TIR_CDIMS; j++)
        if (in[j] > 0 && pc.in[0].size[j] != in[j])
            return j;
    return -1;
}

const Block *split_soma_input(const Chip *c, const Graph *g, const GraphUses *u,
                              const Block *m)
{
    if ((m->type != BT_CCMPB && m->type != BT_CCMPS && m->type != BT_CLUT) || !m->n_in ||
        m->in[0].n_ifaces != 1)
        return NULL;
    const Edge *e2 = graph_edge(g, m->in[0].ifaces[0].edge_id);
    const Block *S = e2 ? graph_block(g, e2->src) : NULL;
    const BlockUses *su = S ? uses_at(g, u, S) : NULL;
    if (!su || !su->n_in_edges)
        return NULL;
    for (uint32_t i = 0; i < su->n_in_edges; i++) {
        const Block *a = graph_block(g, g->edges[su->in_edges[i]]->src);
        Block *s;
        if (!a || bt_info(a->type)->kind != BK_COMPUTE ||
            split_soma_after(c, g, u, a, false, &s) != m)
            return NULL;
    }
    return S;
}

bool split_soma_follow(const Chip *c, const Graph *g, const GraphUses *u, const Block *m,
                       SplitAxis *ax, int32_t **bounds, uint32_t *n)
{
    *bounds = NULL;
    const Block *S = split_soma_input(c, g, u, m);
    const BlockUses *su = S ? uses_at(g, u, S) : NULL;
    if (!su || su->n_in_edges < 2)
        return false;
    int32_t in[TIR_CDIMS];
    if (!blk_cluster_dims(m, true, 0, in))
        return false;
    int32_t *cut = malloc(2 * (size_t)su->n_in_edges * sizeof *cut);
    if (!cut)
        return false;
    static const SplitAxis order[] = {SPLIT_F, SPLIT_Y, SPLIT_X};
    bool found = false;
    for (int k = 0; k < 3 && !found; k++) {
        int j = dim_of(m, order[k], in);
        if (j < 0)
            continue;
        /* the parts' edges along j: a cut there when no part straddles one */
        uint32_t nc = 0;
        bool ok = true;
        for (uint32_t i = 0; i < su->n_in_edges && ok; i++) {
            EdgeEnds en;
            char why[8];
            ok = edge_ends(g, u, g->edges[su->in_edges[i]], &en, why, sizeof why);
            cut[nc++] = en.dst_pos[j];
            cut[nc++] = en.dst_pos[j] + en.dst_box[j];
        }
        if (!ok)
            break;
        qsort(cut, nc, sizeof *cut, cmp_i32);
        uint32_t w = 0;
        for (uint32_t i = 0; i < nc; i++)
            if (!w || cut[i] != cut[w - 1])
                cut[w++] = cut[i];
        if (w < 3 || cut[0] != 0 || cut[w - 1] != in[j])
            continue;
        for (uint32_t i = 0; i < su->n_in_edges && ok; i++) {
            EdgeEnds en;
            char why[8];
            edge_ends(g, u, g->edges[su->in_edges[i]], &en, why, sizeof why);
            for (uint32_t q = 0; q < w && ok; q++)
                ok = !(cut[q] > en.dst_pos[j] && cut[q] < en.dst_pos[j] + en.dst_box[j]);
        }
        if (ok) {
            found = true;
            *ax = order[k];
            *n = w - 1;
        }
    }
    if (!found) {
        free(cut);
        return false;
    }
    *bounds = cut;
    return true;
}
