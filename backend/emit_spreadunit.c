/* emit_spreadunit.c: a spread copy of one pixel, its parts runs of its words (docs/backend.md,
 * "Transfers", "One pixel over several phases").
 *
 * The parts of a spread copy (emit_spread.c) are runs of whole pixels: each phase takes as
 * many as the receive area has room for, the last phase the rest. A copy of one pixel (a map
 * flattened into one vector of 3584 int32 channels, 14336 bytes) then lands whole in the
 * last phase, though the mapper spread its bytes over several phases because they do not fit
 * one (12 KiB a phase): more than the receive area holds [emit.alloc]. Such a copy, when one
 * edge brings it all and its pixel does not fit the room of the phase it would land in, is
 * cut into units of ROW_WORDS words instead (ECopy.unit: 16 bytes, 4 int32 or 16 int8
 * channels), the unit q holding its channels [q x C, (q + 1) x C) for C channels a unit: each
 * phase takes as many units as it has room for, and the part's P06 moves its run of words
 * into place (emit_move.c) as it moves rows. The router sends a part's channels as it sends
 * a box of channels (emit_route.c: 8-byte packets, or 1-byte packets between lanes,
 * emit_lanes.c). */
#include "backend/emit_internal.h"

#include "backend/core_mem.h"

int64_t emit_spread_unit(const ECopy *cp)
{
    return cp->unit ? cp->unit : emit_feat_pixel_words(&cp->feat);
}

/* Channels one unit of copy cp holds. */
static int64_t unit_channels(const ECopy *cp)
{
    return cp->unit * cp->feat.per_word;
}

bool emit_unit_range(const ECopy *cp, const EBox *b, int64_t *lo, int64_t *hi)
{
    EBox m;
    if (!emit_box_meet(b, &cp->box, &m))
        return false;
    int64_t cu = unit_channels(cp), c0 = m.lo[2] - cp->box.lo[2], c1 = c0 + m.n[2];
    *lo = c0 / cu;
    *hi = (c1 + cu - 1) / cu;
    return true;
}

int emit_unit_box(const ECopy *cp, int64_t q0, int64_t nq, const EBox *part, EBox *out)
{
    int64_t cu = unit_channels(cp), c0 = cp->box.lo[2] + q0 * cu, c1 = c0 + nq * cu;
    int64_t lo = part->lo[2] > c0 ? part->lo[2] : c0;
    int64_t hi = part->lo[2] + part->n[2] < c1 ? part->lo[2] + part->n[2] : c1;
    if (hi <= lo)
        return 0;
    *out = *part;
    out->lo[2] = lo;
    out->n[2] = hi - lo;
    return 1;
}

bool emit_unit_wanted(const Emit *e, const ECopy *cp, const int64_t *words)
{
    const BlockUses *bu = &e->uses.blocks[cp->block];
    enum { ROW_WORDS = 4, RECV_WORDS = ASM_MEM3_BASE - ASM_MEM2_RECV };
    int64_t pw = emit_feat_pixel_words(&cp->feat);
    if (cp->unit || cp->box.n[0] * cp->box.n[1] != 1 || pw <= ROW_WORDS || pw % ROW_WORDS)
        return false;
    uint32_t landing = 0;
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const Edge *ed = e->g->edges[bu->in_edges[j]];
        const MapDict *dict = emit_edge_dict(e, ed->id);
        long w = graph_block_pos(e->g, ed->src);
        EBox dbox;
        bool here = false;
        for (uint32_t c = 0; dict && c + 1 < dict->n_coords && !here; c++)
            here = dict->coords[c].pi_index == MAP_PI_ROUTER_SEND &&
                   dict->coords[c + 1].pi_index == MAP_PI_ROUTER_RECIEVE &&
                   emit_same_place(&e->cores[cp->core], &dict->coords[c + 1]);
        if (w >= 0 && e->core_of[w] == cp->core)
            return false; /* a writer on its core writes part of it */
        if (!here)
            continue;
        if (++landing > 1 || !emit_iface_box(e, cp->block, true, ed->id, &dbox) ||
            dbox.lo[2] > cp->box.lo[2] ||
            dbox.lo[2] + dbox.n[2] < cp->box.lo[2] + cp->box.n[2])
            return false; /* one edge, all its channels */
    }
    for (int32_t p = 0; p < e->cores[cp->core].n_phases; p++)
        if (words[p] > 0 && words[p] + emit_recv_live(e, cp->core, p, EMIT_NONE) > RECV_WORDS)
            return true; /* the pixel over the room of the phase it lands in */
    return false;
}
