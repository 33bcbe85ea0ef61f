/* uses.c: building the use index (uses.h): count, fill, sort each block's interfaces by the
 * edge they name; bucket the edges by the positions of their end blocks. */
#include "taskir/uses.h"

#include <stdlib.h>
#include <string.h>

static int use_cmp(const void *pa, const void *pb)
{
    const IfaceUse *a = pa, *b = pb;
    if (a->edge_id != b->edge_id)
        return a->edge_id < b->edge_id ? -1 : 1;
    if (a->cluster != b->cluster)
        return a->cluster < b->cluster ? -1 : 1;
    return a->iface < b->iface ? -1 : a->iface > b->iface;
}

static uint32_t fill_side(IfaceUse *dst, const Cluster *cs, uint32_t nc)
{
    uint32_t n = 0;
    for (uint32_t c = 0; c < nc; c++)
        for (uint32_t i = 0; i < cs[c].n_ifaces; i++)
            dst[n++] = (IfaceUse){cs[c].ifaces[i].edge_id, c, i};
    qsort(dst, n, sizeof *dst, use_cmp);
    return n;
}

static size_t side_count(const Cluster *cs, uint32_t nc)
{
    size_t n = 0;
    for (uint32_t c = 0; c < nc; c++)
        n += cs[c].n_ifaces;
    return n;
}

bool graph_uses(const Graph *g, GraphUses *u)
{
    memset(u, 0, sizeof *u);
    size_t n_if = 0;
    for (uint32_t p = 0; p < g->n_blocks; p++) {
        const Block *b = g->blocks[p];
        n_if += side_count(b->in, b->n_in) + side_count(b->out, b->n_out);
    }
    size_t n_ed = (size_t)g->n_edges * 2;
    if (n_if > SIZE_MAX / sizeof *u->ifaces)
        return false;
    u->blocks = calloc(g->n_blocks ? g->n_blocks : 1, sizeof *u->blocks);
    u->ifaces = malloc((n_if ? n_if : 1) * sizeof *u->ifaces);
    u->edges = malloc((n_ed ? n_ed : 1) * sizeof *u->edges);
    if (!u->blocks || !u->ifaces || !u->edges) {
        graph_uses_finish(u);
        return false;
    }
    u->n_blocks = g->n_blocks;
    IfaceUse *next = u->ifaces;
    for (uint32_t p = 0; p < g->n_blocks; p++) {
        const Block *b = g->blocks[p];
        BlockUses *bu = &u->blocks[p];
        bu->in = next;
        bu->n_in = fill_side(next, b->in, b->n_in);
        next += bu->n_in;
        bu->out = next;
        bu->n_out = fill_side(next, b->out, b->n_out);
        next += bu->n_out;
    }
    /* Edges: count per end block, give each block its slice, then fill in edge order. */
    long *ends = malloc((n_ed ? n_ed : 1) * sizeof *ends);
    if (!ends) {
        graph_uses_finish(u);
        return false;
    }
    for (uint32_t i = 0; i < g->n_edges; i++) {
        const Edge *e = g->edges[i];
        ends[2 * (size_t)i] = graph_block_pos(g, e->src);
        ends[2 * (size_t)i + 1] = graph_block_pos(g, e->dst);
        if (ends[2 * (size_t)i] >= 0)
            u->blocks[ends[2 * (size_t)i]].n_out_edges++;
        if (ends[2 * (size_t)i + 1] >= 0)
            u->blocks[ends[2 * (size_t)i + 1]].n_in_edges++;
    }
    uint32_t *slot = u->edges;
    for (uint32_t p = 0; p < g->n_blocks; p++) {
        BlockUses *bu = &u->blocks[p];
        bu->in_edges = slot;
        slot += bu->n_in_edges;
        bu->out_edges = slot;
        slot += bu->n_out_edges;
        bu->n_in_edges = bu->n_out_edges = 0;
    }
    for (uint32_t i = 0; i < g->n_edges; i++) {
        long s = ends[2 * (size_t)i], t = ends[2 * (size_t)i + 1];
        if (s >= 0)
            u->blocks[s].out_edges[u->blocks[s].n_out_edges++] = i;
        if (t >= 0)
            u->blocks[t].in_edges[u->blocks[t].n_in_edges++] = i;
    }
    free(ends);
    return true;
}

void graph_uses_finish(GraphUses *u)
{
    free(u->blocks);
    free(u->ifaces);
    free(u->edges);
    memset(u, 0, sizeof *u);
}

const IfaceUse *uses_find(const GraphUses *u, uint32_t pos, bool input, int32_t edge_id)
{
    if (pos >= u->n_blocks)
        return NULL;
    const BlockUses *bu = &u->blocks[pos];
    const IfaceUse *v = input ? bu->in : bu->out;
    uint32_t n = input ? bu->n_in : bu->n_out;
    if (!n)
        return NULL;
    /* ids that run without gaps (edges made one after another) put edge_id at its offset */
    int64_t at = (int64_t)edge_id - v[0].edge_id;
    if (at >= 0 && at < n && v[at].edge_id == edge_id && (at == 0 || v[at - 1].edge_id != edge_id))
        return &v[at];
    /* lower bound of edge_id, without a branch on the comparison (a conditional move): the
     * lookups of one block's many edges are the verifier's and the planner's hot loop */
    const IfaceUse *base = v;
    for (uint32_t len = n; len > 1; len -= len / 2)
        base = base[len / 2].edge_id < edge_id ? base + len / 2 : base;
    base += base->edge_id < edge_id;
    return base < v + n && base->edge_id == edge_id ? base : NULL;
}

const IfaceUse *uses_edge_end(const Graph *g, const GraphUses *u, const Edge *e, bool src,
                              const Block **block)
{
    long pos = graph_block_pos(g, src ? e->src : e->dst);
    if (block)
        *block = pos < 0 ? NULL : g->blocks[pos];
    return pos < 0 ? NULL : uses_find(u, (uint32_t)pos, !src, e->id);
}
