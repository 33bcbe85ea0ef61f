/* emit_local_readers.c: a walk over the compute blocks on a given core that read a storage
 * block (ELocalReaders): each reader with its edge, phase and slot, in the block's edge
 * order; the loop the spread copies, the duplicates and the merges share to find when a
 * block is read on a core (emit_spread.c, emit_dup.c, emit_merge.c).
 */
#include "backend/emit_internal.h"

ELocalReaders emit_local_readers(uint32_t s, uint32_t k)
{
    return (ELocalReaders){.s = s, .k = k};
}

bool emit_local_readers_next(const Emit *e, ELocalReaders *it)
{
    const BlockUses *bu = &e->uses.blocks[it->s];
    while (it->next < bu->n_out_edges) {
        uint32_t j = it->next++;
        const Edge *ed = e->g->edges[bu->out_edges[j]];
        long r = graph_block_pos(e->g, ed->dst);
        if (r >= 0 && e->core_of[r] == it->k &&
            bt_info(e->g->blocks[r]->type)->kind == BK_COMPUTE) {
            it->j = j;
            it->ed = ed;
            it->r = (uint32_t)r;
            it->phase = e->phase_of[r];
            it->slot = e->slot_of[r];
            return true;
        }
    }
    return false;
}
