/* emit_spreadheads.c: the headers a sender's parts of spread copies take in a phase
 * (docs/backend.md, "Transfers", "Parts of narrow copies under the header table").
 *
 * A spread copy's parts are cut by the room of the receive area (emit_spread.c); its rows
 * narrower than its writer's on another core go a run and a disabled header a row (the gap
 * to the next row), and the spill does not carry a spread copy's runs into a later phase
 * (emit_route_spill.c). Two such copies on two cores, each with room for all its rows in the
 * first of its phases, then took 211 headers of one sender in one phase
 * (cvm_precision_case_1__p_24_: the CCMPS op/in7/ceil.e57.f0's column slices of 2 pixels by
 * 53 rows into op/in7/ceil.e57.f0.out/x0 and x2, each planned over two phases by the
 * Mapping). The copies planned so far count their rows' headers per sender and phase, and a
 * part that is not its edge's last takes no more rows than leave the sender's count within
 * LANES_HEADS - LANES_CUT_HEADS: the rest goes in its edge's next phases, as the mapper
 * planned. */
#include "backend/emit_internal.h"

#include "taskir/lanes.h"

#include <string.h>

/* Whether writer w sends the box edge ed takes of its result by another edge too (to
 * copies on several cores: a relaying chain may carry them, one header a run for all). */
static bool box_shared(const Emit *e, long w, const Edge *ed)
{
    const BlockUses *bu = &e->uses.blocks[w];
    EBox a, b;
    if (!emit_iface_box(e, (uint32_t)w, false, ed->id, &a))
        return true;
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        const Edge *o = e->g->edges[bu->out_edges[j]];
        if (o != ed && emit_iface_box(e, (uint32_t)w, false, o->id, &b) &&
            !memcmp(&a, &b, sizeof a))
            return true;
    }
    return false;
}

/* The headers a row of spread copy cp takes at its sender when edge ed brings it from a
 * writer on another core whose rows are wider (a run and the gap after it) and that sends
 * that box to no other copy, with that sender in *sk; else 0. */
static int64_t row_heads(const Emit *e, const ECopy *cp, const Edge *ed, uint32_t *sk)
{
    long w = graph_block_pos(e->g, ed->src);
    if (w < 0 || cp->unit || e->core_of[w] == cp->core)
        return 0;
    const IfaceUse *u = uses_find(&e->uses, (uint32_t)w, false, ed->id);
    int32_t cd[TIR_CDIMS];
    if (!u || !blk_cluster_dims(e->g->blocks[w], false, u->cluster, cd) ||
        cd[D_X] <= cp->box.n[1] || box_shared(e, w, ed))
        return 0;
    *sk = e->core_of[w];
    return 2;
}

int64_t emit_spread_heads_cap(const Emit *e, const int32_t *heads, const ECopy *cp,
                              const Edge *ed, int32_t p, int64_t px)
{
    uint32_t sk = 0;
    int64_t rh = heads ? row_heads(e, cp, ed, &sk) : 0, nx = cp->box.n[1];
    if (rh == 0 || nx <= 0)
        return px;
    int64_t avail = LANES_HEADS - LANES_CUT_HEADS -
                    heads[(size_t)sk * (size_t)emit_max_phases(e) + (size_t)p];
    int64_t most = avail > 0 ? avail / rh * nx : 0;
    return px < most ? px : most;
}

void emit_spread_heads_add(const Emit *e, int32_t *heads, const ECopy *cp, const Edge *ed,
                           int32_t p, int64_t px)
{
    uint32_t sk = 0;
    int64_t rh = heads ? row_heads(e, cp, ed, &sk) : 0, nx = cp->box.n[1];
    if (rh > 0 && nx > 0 && px > 0)
        heads[(size_t)sk * (size_t)emit_max_phases(e) + (size_t)p] +=
            (int32_t)((px + nx - 1) / nx * rh);
}
