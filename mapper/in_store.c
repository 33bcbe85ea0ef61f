/* in_store.c: a model input's own store where a compute block writes the same map
 * (docs/mapper.md, "Algorithm"; docs/backend.md, "Inputs, outputs and data").
 *
 * A dynamic block places a box of a socket from a word's first lane of a core's memory
 * (taskir/sockbox.h). When an INPUT writes an 8-bit map through an edge whose values its
 * dynamic blocks cannot place so (channels from a lane that is no word's first, a value in
 * several lanes: layout_input_unplaced, taskir/layout.h) and a compute block writes the same
 * map, neither the staging of maps that only inputs write (an int32 area a P06 narrows over
 * the whole map, which would overwrite the compute block's lanes) nor a view of the socket
 * holds it. So the input gets a store of its own that its dynamic blocks place as it is, and
 * a Soma copy of it writes those edges:
 *   INPUT I -> SI "<I>/in.store" (the socket whole, I's precision) -> CCMPB "<I>/in.copy"
 *   -[each such edge, its box of the socket, its steps]-> the map,
 * the CCMPB of I's precision with a 1 x 1 window, no shift and CMP at that precision's lower
 * end: clip(max(x, lo) >> 0) = x, the Soma's plain move (P05), so the graph's outputs stay bit
 * for bit. The map is then written by compute blocks only, which the code generator places in
 * any lanes (docs/backend.md "Bytes between lanes"). I's other edges stay. Runs before the
 * chip-exactness rewrites, which check the copy too. Requires a verified graph; the caller
 * verifies it again.
 */
#include "mapper/mapper.h"
#include "mapper/rewrite.h"

#include "taskir/exact.h"
#include "taskir/layout.h"

#include <stdlib.h>

/* Does a block other than an INPUT write storage block s? */
static bool computed(const Graph *g, const GraphUses *u, uint32_t s)
{
    const BlockUses *bu = &u->blocks[s];
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const Block *w = graph_block(g, g->edges[bu->in_edges[j]]->src);
        if (w && w->type != BT_INPUT)
            return true;
    }
    return false;
}

/* The edges of INPUT block at pos to move onto a copy of it into ids (room for its out
 * edges); their count. Only into maps of the input's precision (the copy writes what the
 * input would), and none of an input with an r dim (a CCMPB's map has none). */
static uint32_t unplaced(const Graph *g, const GraphUses *u, uint32_t pos, int32_t *ids)
{
    const Block *in = g->blocks[pos];
    const BlockUses *bu = &u->blocks[pos];
    int32_t cd[TIR_CDIMS];
    if (!blk_cluster_dims(in, false, 0, cd) || cd[D_R] > 0)
        return 0;
    uint32_t n = 0;
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        const Edge *ed = g->edges[bu->out_edges[j]];
        long s = graph_block_pos(g, ed->dst);
        if (s >= 0 && blk_prec(g->blocks[s]) == blk_prec(in) && computed(g, u, (uint32_t)s) &&
            layout_input_unplaced(g, u, ed, (uint32_t)s))
            ids[n++] = ed->id;
    }
    return n;
}

/* Drops what a clone of an INPUT took of its socket. */
static void unsocket(Block *b)
{
    b->has_socket_id = b->has_model = b->has_model_range = b->has_model_prec = false;
    b->has_pipeline_num = false;
}

/* I's store and its Soma copy, which takes over the n edges ids. false when out of memory. */
static bool store(Graph *g, Block *in, const int32_t *ids, uint32_t n)
{
    int32_t cd[TIR_CDIMS];
    if (!blk_cluster_dims(in, false, 0, cd))
        return true; /* a malformed INPUT: the verifier's */
    PrecisionId p = blk_prec(in);
    int32_t y = in->shape.d[D_Y] ? cd[D_Y] : 0, x = in->shape.d[D_X] ? cd[D_X] : 0;
    int32_t f = cd[D_F] > 0 ? cd[D_F] : 1;
    Block *st = map_made_from(g, in, "in.store", BT_SI, p, y, x, f);
    Block *cp = map_made_from(g, in, "in.copy", BT_CCMPB, p, y, x, f);
    if (!st || !cp)
        return false;
    unsocket(st);
    unsocket(cp);
    if (!blk_set_attr(g, cp, AT_CMP, (int32_t)exact_prec_range(p).lo) ||
        !graph_connect(g, in, 0, st, 0) || !graph_connect(g, st, 0, cp, 0))
        return false;
    for (uint32_t k = 0; k < n; k++)
        if (!graph_retarget_edge(g, graph_edge(g, ids[k]), true, cp, 0))
            return false;
    return true;
}

Status mapper_in_store(Graph *g, const Chip *c, uint32_t *n_rewrites, Diag *d)
{
    (void)c;
    *n_rewrites = 0;
    GraphUses u;
    int32_t *ids = malloc(((size_t)g->n_edges + 1) * sizeof *ids);
    if (!ids || !graph_uses(g, &u)) {
        free(ids);
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
    }
    uint32_t nb = g->n_blocks; /* the INPUTs are among the blocks there before */
    for (uint32_t i = 0; i < nb; i++) {
        if (g->blocks[i]->type != BT_INPUT)
            continue;
        uint32_t n = unplaced(g, &u, i, ids);
        if (!n)
            continue;
        graph_uses_finish(&u); /* stale once the graph changes */
        if (!store(g, g->blocks[i], ids, n) || graph_oom(g) || !graph_uses(g, &u)) {
            free(ids);
            return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
        }
        (*n_rewrites)++;
    }
    graph_uses_finish(&u);
    free(ids);
    return ST_OK;
}
