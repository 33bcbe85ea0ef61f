/* emit_runwrite.c: a compute block that writes its whole result into a copy on its own core
 * as one run of the copy's pixels (docs/backend.md "Output buffers", "Pixels into other
 * rows"). A P05 whose 1 x 477 result lands, by edges of a row of 18 pixels each that keep
 * the C order (a reshape of the division's result into 53 x 18), as pixels 0 .. 476 of the
 * copy writes the same bytes in the same order as the copy holds them when its pixels have
 * the copy's pitch: its primitive writes straight there, from the copy's pixel q0 on,
 * instead of into a buffer its router moves into the copy through the receive area
 * (EOut.gather, emit_route.c). So the mapper's view, which schedules no router after such a
 * writer (taskir/lanes.h lanes_moved), is the code generator's too, and a copy larger than
 * the receive area takes only its received pixels there, part by part (emit_spread.c).
 *
 * Requires: a Soma writer (P05 / P25) of the copy's precision and channels, every edge of it
 * into the copy; the copy's box all of the storage's channels.
 */
#include "backend/emit_internal.h"

/* Whether box b is a run of pixels of an area of nx pixels a row from column x0: one row
 * of it, or whole rows. */
static bool run_of(const EBox *b, int64_t x0, int64_t nx)
{
    return b->n[0] == 1 || (b->lo[1] == x0 && b->n[1] == nx);
}

bool emit_writes_run(const Emit *e, uint32_t w, uint32_t s, const EBox *cbox, int64_t *q0,
                     int64_t *npx)
{
    const Block *wb = e->g->blocks[w];
    const BlockUses *bu = &e->uses.blocks[w];
    int32_t cd[TIR_CDIMS];
    if ((wb->type != BT_CCMPB && wb->type != BT_CCMPS) || wb->n_out != 1 ||
        bu->n_out_edges == 0 || blk_prec(wb) != blk_prec(e->g->blocks[s]) ||
        !blk_cluster_dims(wb, false, 0, cd))
        return false;
    int64_t wx = cd[D_X] > 0 ? cd[D_X] : 1, wy = cd[D_Y] > 0 ? cd[D_Y] : 1;
    int64_t wc = cd[D_F] > 0 ? cd[D_F] : 1, px = 0, off = 0;
    if (cbox->lo[2] != 0 || cbox->n[2] != wc)
        return false;
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        const Edge *ed = e->g->edges[bu->out_edges[j]];
        EBox src, dst;
        if (graph_block_pos(e->g, ed->dst) != (long)s || !emit_keeps_order(e, ed) ||
            !emit_iface_box(e, w, false, ed->id, &src) ||
            !emit_iface_box(e, s, true, ed->id, &dst))
            return false;
        int64_t n = src.n[0] * src.n[1];
        if (n != dst.n[0] * dst.n[1] || src.lo[2] != 0 || src.n[2] != wc || dst.lo[2] != 0 ||
            dst.n[2] != wc || !run_of(&src, 0, wx) || !run_of(&dst, cbox->lo[1], cbox->n[1]) ||
            dst.lo[0] < cbox->lo[0] || dst.lo[1] < cbox->lo[1] ||
            dst.lo[1] + dst.n[1] > cbox->lo[1] + cbox->n[1])
            return false;
        /* pixel i of the writer's run lands at pixel i + off of the copy, in C order */
        int64_t d = (dst.lo[0] - cbox->lo[0]) * cbox->n[1] + dst.lo[1] - cbox->lo[1] -
                    (src.lo[0] * wx + src.lo[1]);
        if (j && d != off)
            return false;
        off = d;
        px += n;
    }
    if (px != wy * wx || off < 0 || off + px > cbox->n[0] * cbox->n[1])
        return false;
    *q0 = off;
    *npx = px;
    return true;
}
