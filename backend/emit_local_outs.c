/* emit_local_outs.c: a walk over a writer's out-edges whose storage block has a copy on a
 * given core (ELocalOuts): the edge, its storage block and the copy, in the writer's edge
 * order; the loop the plan, the primitives, the route and the send areas share to find what
 * a writer writes on its own core (emit_plan.c, emit_prim.c, emit_route.c, emit_lanes.c,
 * emit_narrow.c, emit_sendbuf.c, emit_senddup.c, emit_tee.c, emit_landpitch.c).
 */
#include "backend/emit_internal.h"

ELocalOuts emit_local_outs(uint32_t w, uint32_t k)
{
    return (ELocalOuts){.w = w, .k = k};
}

ECopy *emit_local_outs_next(const Emit *e, ELocalOuts *it)
{
    const BlockUses *bu = &e->uses.blocks[it->w];
    while (it->next < bu->n_out_edges) {
        uint32_t j = it->next++;
        const Edge *ed = e->g->edges[bu->out_edges[j]];
        long s = graph_block_pos(e->g, ed->dst);
        ECopy *cp = s >= 0 ? emit_copy_on(e, (uint32_t)s, it->k) : NULL;
        if (cp) {
            it->j = j;
            it->ed = ed;
            it->s = (uint32_t)s;
            return cp;
        }
    }
    return NULL;
}
