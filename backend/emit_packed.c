/* emit_packed.c: a map the router assembles byte by byte for model outputs only, held in
 * the least pitch a dynamic block reads (docs/backend.md, "Rearrangements", "Bytes between
 * lanes"). Its pitch is the largest unit of the primitives that write or read it
 * (layout_storage_unit): a map of one int8 channel written by P83s takes 32 bytes a pixel.
 * But when every value of it lands by a 1-byte packet (each edge into it moves values
 * between pixels or lanes, emit_lanes.c: a reshape into other extents, a transposition)
 * and only OUTPUTs read it (dynamic blocks, any pitch an alignment gives), no primitive
 * meets that pitch: the copy, which lives in the receive area while the router writes it,
 * holds each pixel's channels rounded up to the least such pitch instead (the channels
 * themselves when they are whole words, else 8 of them, ALIGN_8 for 8-bit values), where
 * its own layout is over the receive area (tests/asm/emit_lay/packed_out.txtpb: 1024
 * pixels of one int8 channel, 4096 words in 16-byte pixels, 2048 in 8-byte ones). Where it
 * fits, nothing changes.
 */
#include "backend/emit_internal.h"

#include "backend/core_mem.h"

enum { RECV_WORDS = ASM_MEM3_BASE - ASM_MEM2_RECV };

/* Whether every edge into copy cp's block comes from a compute block whose values the
 * router moves between lanes (emit_lanes.c: a value a byte, whatever the copy's pitch;
 * from another core, or on cp's from a buffer: EOut.gather), and every edge out of it goes
 * to an OUTPUT as it is (the same box, C order). Runs of whole pixels (a reshape in C order
 * cut into row pieces) are not held so: between pitches that differ they would go a pixel a
 * header. */
static bool router_for_outputs(const Emit *e, const ECopy *cp)
{
    const BlockUses *bu = &e->uses.blocks[cp->block];
    if (!bu->n_in_edges || !bu->n_out_edges)
        return false;
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const Edge *ed = e->g->edges[bu->in_edges[j]];
        long w = graph_block_pos(e->g, ed->src);
        EBox dbox;
        if (w < 0 || bt_info(e->g->blocks[w]->type)->kind != BK_COMPUTE ||
            (e->core_of[w] == cp->core && !e->outs[w].gather) ||
            !emit_iface_box(e, cp->block, true, ed->id, &dbox) ||
            !emit_moves_lanes(e, ed, (uint32_t)w, &dbox))
            return false;
    }
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        const Edge *ed = e->g->edges[bu->out_edges[j]];
        long t = graph_block_pos(e->g, ed->dst);
        EBox box, sbox;
        if (t < 0 || e->g->blocks[t]->type != BT_OUTPUT || ed->n_re ||
            !emit_iface_box(e, cp->block, false, ed->id, &box) ||
            !emit_iface_box(e, (uint32_t)t, true, ed->id, &sbox))
            return false;
        for (int i = 0; i < 3; i++)
            if (box.n[i] != sbox.n[i])
                return false;
    }
    return true;
}

bool emit_packed_feat(const Emit *e, const ECopy *cp, const EmitFeat *own, EmitFeat *feat)
{
    PrecisionId p = own->prec;
    if (!cp->received || cp->is_static || e->n_copy[cp->block] != 1 ||
        own->words <= RECV_WORDS || (p != PR_INT_8 && p != PR_UINT_8 && p != PR_INT_32) ||
        !router_for_outputs(e, cp))
        return false;
    /* the channels when they fill whole words (no alignment), else rounded up to 8 (an
     * 8-bit map: ALIGN_8, two words a pixel) */
    int unit = own->nc % own->per_word == 0 ? own->per_word : 8;
    if (!emit_feat(p, own->ny, own->nx, own->nc, unit, feat) || feat->words >= own->words)
        return false;
    /* not cut into parts of whole 16-byte rows over phases (emit_spread.c) */
    ECopy packed = *cp;
    packed.feat = *feat;
    return !emit_spread_of(e, &packed);
}
