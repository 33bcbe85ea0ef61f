/* run_box.c: the part of its writer's result the code generator sends for a transfer, as
 * the chains' check sees it (xfer_chain.c; docs/mapper.md, "Transfers"). The code generator
 * sends a part a pixel at a time, and a part that ends its copy's channels, starts on a
 * word and finds room in the copy's pixels up to the sender's pixel end (the lanes after
 * it are padding there: backend/emit_route.c, runs) with the sender's pixel to its end: its
 * words then reach the channels of the parts after it, which go to other cores. The box
 * here is the transfer's, its channels to the writer's pixel end where that holds: two
 * such parts of one writer meet where the code generator's runs do.
 */
#include "mapper/xfer_clash.h"

#include "taskir/blockbox.h"
#include "taskir/layout.h"

static int64_t round_up(int64_t n, int64_t unit)
{
    return (n + unit - 1) / unit * unit;
}

void map_run_box(const MapPlan *p, const MXfer *x, const MBox *box, MBox *out)
{
    *out = *box;
    const Graph *g = p->g;
    uint32_t w = p->tasks[x->src_task].pos, s = x->store;
    const Block *bs = g->blocks[s];
    if (bs->type != BT_SI)
        return;
    PrecisionId pr = blk_prec(bs);
    int bits = pr_info(pr)->bits;
    if (bits != 8 && bits != 32) /* a word holds 4 or 1 of them; others not so sent */
        return;
    int64_t per_word = 32 / bits;
    int su = layout_storage_unit(g, &p->uses, s), wu = layout_output_unit(g, &p->uses, w, pr);
    if (su <= 0 || wu <= 0)
        return;
    int32_t ws[TIR_NDIMS], ss[TIR_NDIMS];
    blk_eff_shape(g->blocks[w], ws);
    blk_eff_shape(bs, ss);
    int64_t wc = ws[D_F] > 0 ? ws[D_F] : 1, sc = ss[D_F] > 0 ? ss[D_F] : 1;
    BlockBox in; /* the part in the storage block's channels */
    bbox_of_iface(g, &p->uses, s, true, g->edges[x->edge]->id, &in);
    int64_t lo = box->lo[D_F], spx = round_up(wc, wu), dpx = round_up(sc, su);
    if (in.hi[D_F] != sc || lo % per_word || spx - lo > dpx - in.lo[D_F] || spx <= box->hi[D_F])
        return;
    out->hi[D_F] = spx;
}
