/* uses.h: the use index of a Graph: per block, the interfaces of its clusters keyed by the
 * edge they name, and the edges that start and end at it.
 *
 * The index is an analysis, recomputed rather than maintained (as QBE recomputes its use
 * lists between passes): build it after a change set (graph_compact), use it while the graph
 * does not change, then finish it. Any change to blocks, edges, clusters or interfaces makes
 * it stale. Building is O(I + E) for I interfaces and E edges (a radix sort by edge id); a
 * lookup is O(log k) for a block with k interfaces on that side, O(1) when the ids they name
 * run without gaps (edges made one after another).
 *
 * An edge's end is the first block with the end's id (graph_block), and in it the first
 * interface naming the edge's id, in cluster then interface order. Every consumer (printers,
 * verifier, rearrangement checks, simulator) resolves ends through this index. Blocks whose id
 * an earlier block has keep their own entries (by position): the verifier counts them too for
 * edge.refs, as a graph with duplicate ids is itself a finding (block.id.dup).
 */
#ifndef TASKIR_USES_H
#define TASKIR_USES_H

#include "taskir/graph.h"

/* One interface of a block: the edge id it names, its cluster and its index in the cluster. */
typedef struct IfaceUse {
    int32_t edge_id;
    uint32_t cluster;
    uint32_t iface;
} IfaceUse;

typedef struct BlockUses {
    IfaceUse *in, *out;       /* input / output interfaces, by (edge id, cluster, iface) */
    uint32_t n_in, n_out;
    uint32_t *in_edges;       /* positions in g->edges of the edges whose dst is this block */
    uint32_t *out_edges;      /* ... whose src is this block; both in edge order */
    uint32_t n_in_edges, n_out_edges;
} BlockUses;

typedef struct GraphUses {
    BlockUses *blocks;        /* per position in g->blocks */
    uint32_t n_blocks;
    IfaceUse *ifaces;         /* storage of every block's in and out */
    uint32_t *edges;          /* storage of every block's in_edges and out_edges */
    /* An analysis's answers kept while the graph keeps still, as the index is (layout.c's
     * pitch walk: layout_memo_begin), and what frees them with the index; NULL: none. */
    void *cache;
    void (*cache_free)(void *cache);
} GraphUses;

/* Builds the index of g into u. false when out of memory (u is then empty). */
bool graph_uses(const Graph *g, GraphUses *u);
void graph_uses_finish(GraphUses *u); /* leaves u empty; accepts an empty one */

/* The first interface (lowest cluster, then interface index) of the block at position pos
 * that names edge_id in its input (input true) or output clusters, or NULL. */
const IfaceUse *uses_find(const GraphUses *u, uint32_t pos, bool input, int32_t edge_id);
/* The interface at the source (src true) or destination end of e: the first block with the
 * end's id, its first interface naming e's id. NULL when the block or the interface is
 * missing; *block (when not NULL) is set to the block or NULL. */
const IfaceUse *uses_edge_end(const Graph *g, const GraphUses *u, const Edge *e, bool src,
                              const Block **block);

#endif
