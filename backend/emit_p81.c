/* emit_p81.c: the channel-major input of P81 (CC2D; docs/backend.md "Layouts", CHIP.md §1).
 * P81 reads its input plane by plane, [r][py][pxw]: each channel's rows of px = ix + pads
 * bytes padded to a multiple of 16, the padding rows and columns stored. No move turns a
 * pixel-major map into that (a P06 keeps each value's lane), but a model input can be placed
 * so: a dynamic block in storage order F_X_Y ([f][y][x'], x' rounded up to 16 by ALIGN_16) is
 * exactly the planes of an input without padding. So a storage block is laid out as planes
 * when only INPUTs write it (whole, no steps) and only CC2Ds read it, each all of it, without
 * padding (stored padding would need zero words around every row: not written yet).
 */
#include "backend/emit_internal.h"

#include "taskir/diag_block.h"

/* Whether CC2D block pos pads its input. */
static bool pads(const Block *b)
{
    return blk_attr(b, AT_PAD_UP) || blk_attr(b, AT_PAD_DOWN) || blk_attr(b, AT_PAD_LEFT) ||
           blk_attr(b, AT_PAD_RIGHT);
}

bool emit_p81_planes(const Emit *e, uint32_t s, const EBox *box, EmitFeat *feat)
{
    const Block *b = e->g->blocks[s];
    const BlockUses *bu = &e->uses.blocks[s];
    PrecisionId p = blk_prec(b);
    if (bt_info(b->type)->kind != BK_STORAGE || b->data || bu->n_in_edges == 0 ||
        bu->n_out_edges == 0 || (p != PR_INT_8 && p != PR_UINT_8))
        return false;
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const Edge *ed = e->g->edges[bu->in_edges[j]];
        long w = graph_block_pos(e->g, ed->src);
        if (w < 0 || e->g->blocks[w]->type != BT_INPUT || ed->n_re ||
            !emit_whole_iface(e, s, true, ed->id))
            return false;
    }
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        const Edge *ed = e->g->edges[bu->out_edges[j]];
        long r = graph_block_pos(e->g, ed->dst);
        const IfaceUse *u = r >= 0 ? uses_find(&e->uses, (uint32_t)r, true, ed->id) : NULL;
        if (!u || u->cluster != 0 || e->g->blocks[r]->type != BT_CC2D || ed->n_re ||
            pads(e->g->blocks[r]) || !emit_whole_iface(e, s, false, ed->id))
            return false;
    }
    return emit_feat_planes(p, box->n[2], box->n[0], box->n[1], feat);
}
