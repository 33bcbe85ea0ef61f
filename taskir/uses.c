/* uses.c: building the use index (uses.h): count, fill, sort each block's interfaces by the
 * edge they name (in linear time); bucket the edges by the positions of their end blocks. */
#include "taskir/uses.h"

#include <stdlib.h>
#include <string.h>

/* The order of IfaceUse by edge id (the cluster and interface order that fill_side writes
 * them in is kept among equal ids: the sorts below are stable), as an unsigned key. */
static uint32_t use_key(const IfaceUse *a)
{
    return (uint32_t)a->edge_id ^ 0x80000000u;
}

/* Sorts v[0 .. n) by use_key, stably, in O(n): nothing to do when it is sorted already (the
 * interfaces of edges made one after another), else insertion for a few, else a radix sort
 * by bytes through tmp (n entries), skipping the bytes all keys share. */
static void sort_uses(IfaceUse *v, uint32_t n, IfaceUse *tmp)
{
    uint32_t i = 1;
    while (i < n && use_key(&v[i - 1]) <= use_key(&v[i]))
        i++;
    if (i >= n)
        return;
    if (n <= 32) {
        for (; i < n; i++) {
            IfaceUse x = v[i];
            uint32_t j = i;
            for (; j > 0 && use_key(&v[j - 1]) > use_key(&x); j--)
                v[j] = v[j - 1];
            v[j] = x;
        }
        return;
    }
    IfaceUse *from = v, *to = tmp;
    for (int shift = 0; shift < 32; shift += 8) {
        uint32_t count[257] = {0};
        for (uint32_t k = 0; k < n; k++)
            count[(use_key(&from[k]) >> shift & 0xff) + 1]++;
        if (count[(use_key(&from[0]) >> shift & 0xff) + 1] == n)
            continue; /* every key has this byte */
        for (int b = 0; b < 256; b++)
            count[b + 1] += count[b];
        for (uint32_t k = 0; k < n; k++)
            to[count[use_key(&from[k]) >> shift & 0xff]++] = from[k];
        IfaceUse *t = from;
        from = to;
        to = t;
    }
    if (from != v)
        memcpy(v, from, (size_t)n * sizeof *v);
}

static uint32_t fill_side(IfaceUse *dst, const Cluster *cs, uint32_t nc, IfaceUse *tmp)
{
    uint32_t n = 0;
    for (uint32_t c = 0; c < nc; c++)
        for (uint32_t i = 0; i < cs[c].n_ifaces; i++)
            dst[n++] = (IfaceUse){cs[c].ifaces[i].edge_id, c, i};
    sort_uses(dst, n, tmp);
    return n;
}

static size_t side_count(const Cluster *cs, uint32_t nc)
{
    size_t n = 0;
    for (uint32_t c = 0; c < nc; c++)
        n += cs[c].n_ifaces;
    return n;
}

/* How far ahead (in blocks) the fill loop asks for the memory it will read: the Block, then
 * its cluster arrays, then their interface arrays, each a dependent load that on a graph
 * larger than the caches misses every time (82k blocks and 515k interfaces on resnet50x10
 * after the default passes: the index is built a dozen times a run). The edge loop asks for
 * the Edge AHEAD_EDGE places on. */
enum { AHEAD_BLOCK = 12, AHEAD_CLUSTERS = 6, AHEAD_IFACES = 3, AHEAD_EDGE = 16 };

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)(p))
#endif

/* Asks for the interface arrays of the clusters of b (their first lines). */
static void prefetch_ifaces(const Cluster *cs, uint32_t nc)
{
    for (uint32_t c = 0; c < nc; c++)
        PREFETCH(cs[c].ifaces);
}

/* The prefetches of the fill loop at block position p (see AHEAD_BLOCK). */
static void prefetch_ahead(const Graph *g, uint32_t p)
{
    if (p + AHEAD_BLOCK < g->n_blocks)
        PREFETCH(g->blocks[p + AHEAD_BLOCK]);
    if (p + AHEAD_CLUSTERS < g->n_blocks) {
        const Block *b = g->blocks[p + AHEAD_CLUSTERS];
        PREFETCH(b->in);
        PREFETCH(b->out);
    }
    if (p + AHEAD_IFACES < g->n_blocks) {
        const Block *b = g->blocks[p + AHEAD_IFACES];
        prefetch_ifaces(b->in, b->n_in);
        prefetch_ifaces(b->out, b->n_out);
    }
}

bool graph_uses(const Graph *g, GraphUses *u)
{
    memset(u, 0, sizeof *u);
    size_t n_if = 0, most = 0; /* most: the largest side, the sort's scratch */
    for (uint32_t p = 0; p < g->n_blocks; p++) {
        const Block *b = g->blocks[p];
        size_t ni = side_count(b->in, b->n_in), no = side_count(b->out, b->n_out);
        n_if += ni + no;
        if (ni > most)
            most = ni;
        if (no > most)
            most = no;
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
    IfaceUse *tmp = malloc((most ? most : 1) * sizeof *tmp);
    if (!tmp) {
        graph_uses_finish(u);
        return false;
    }
    IfaceUse *next = u->ifaces;
    for (uint32_t p = 0; p < g->n_blocks; p++) {
        prefetch_ahead(g, p);
        const Block *b = g->blocks[p];
        BlockUses *bu = &u->blocks[p];
        bu->in = next;
        bu->n_in = fill_side(next, b->in, b->n_in, tmp);
        next += bu->n_in;
        bu->out = next;
        bu->n_out = fill_side(next, b->out, b->n_out, tmp);
        next += bu->n_out;
    }
    free(tmp);
    /* Edges: count per end block, give each block its slice, then fill in edge order. */
    long *ends = malloc((n_ed ? n_ed : 1) * sizeof *ends);
    if (!ends) {
        graph_uses_finish(u);
        return false;
    }
    for (uint32_t i = 0; i < g->n_edges; i++) {
        if (i + AHEAD_EDGE < g->n_edges)
            PREFETCH(g->edges[i + AHEAD_EDGE]);
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
    if (u->cache && u->cache_free)
        u->cache_free(u->cache);
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
