/* run_box.c: the part of its writer's result the code generator sends for a transfer, as
 * the chains' check sees it (xfer_chain.c; docs/mapper.md, "Transfers"). The code generator
 * sends a part a pixel at a time, and a part that ends its copy's channels, starts on a
 * word and finds room in the copy's pixels up to the sender's pixel end (the lanes after
 * it are padding there: backend/emit_route.c, runs) with the sender's pixel to its end: its
 * words then reach the channels of the parts after it, which go to other cores. The box
 * here is the transfer's, its channels to the writer's pixel end where that holds: two
 * such parts of one writer meet where the code generator's runs do. The sender's pixel is
 * its output's (layout_output_unit), or, once a copy of one of its storage blocks lands on
 * its own core, that copy's: a writer with such a copy writes it and sends from it
 * (backend/emit_plan.c make_outs, emit_route.c writer_loc, the first in its out edges'
 * order), so that its parts to copies of a wider pitch carry its pixels to that copy's
 * pitch (`test_diff_ops/cvm_precision_case_2__p_24_`: 47 int32 channels written into a copy
 * of 64 words a pixel, sent to copies of 64 and of 48).
 */
#include "mapper/xfer_clash.h"

#include "taskir/blockbox.h"
#include "taskir/layout.h"

static int64_t round_up(int64_t n, int64_t unit)
{
    return (n + unit - 1) / unit * unit;
}

/* The values of box b's pixels and channels. */
static int64_t pixels(const BlockBox *b)
{
    return (b->hi[D_Y] - b->lo[D_Y]) * (b->hi[D_X] - b->lo[D_X]) * (b->hi[D_F] - b->lo[D_F]);
}

/* Whether writer task t sends to a storage block other than `local` of pitch unit `unit` on
 * another core (a copy not planned on t's vcore yet counts). */
static bool same_pitch_elsewhere(const MapPlan *p, uint32_t t, uint32_t local, int unit)
{
    const BlockUses *wu = &p->uses.blocks[p->tasks[t].pos];
    uint32_t va = map_task_vcore(p, t);
    for (uint32_t j = 0; j < wu->n_out_edges; j++) {
        uint32_t x0 = p->xfer_of[wu->out_edges[j]];
        if (x0 == MAP_NONE || p->xfers[x0].kind != XF_CORE || p->xfers[x0].store == local ||
            layout_storage_unit(p->g, &p->uses, p->xfers[x0].store) != unit)
            continue;
        for (uint32_t r = 0; r < p->rep_n[p->xfers[x0].store]; r++)
            if (map_xfer_vcore(p, &p->xfers[x0 + r]) != va)
                return true;
    }
    return false;
}

/* The pitch unit of the copy writer task t sends from on its own core, where it also sends
 * to copies of that pitch on other cores (its parts to them then reach its pixel end, and
 * its parts to narrower copies do not: runs to two sets of cores): the first of its out
 * edges whose storage has a planned copy there (a transfer into t's vcore), whole and in
 * precision pr; 0: none yet, or one the writer does not send from so. */
static int local_unit(const MapPlan *p, uint32_t t, PrecisionId pr)
{
    const Graph *g = p->g;
    uint32_t w = p->tasks[t].pos, va = map_task_vcore(p, t);
    const BlockUses *wu = &p->uses.blocks[w];
    if (va == MAP_NONE || wu->n_out_edges < 2)
        return 0; /* no copy there beside one elsewhere */
    for (uint32_t j = 0; j < wu->n_out_edges; j++) {
        uint32_t e = wu->out_edges[j], x0 = p->xfer_of[e];
        if (x0 == MAP_NONE || p->xfers[x0].kind != XF_CORE)
            continue;
        uint32_t s = p->xfers[x0].store;
        for (uint32_t r = 0; r < p->rep_n[s]; r++) {
            const MXfer *y = &p->xfers[x0 + r];
            if (!y->planned || y->cross || map_xfer_vcore(p, y) != va)
                continue;
            BlockBox in, all;
            bbox_of_iface(g, &p->uses, s, true, g->edges[e]->id, &in);
            bbox_of_iface(g, &p->uses, w, false, g->edges[e]->id, &all);
            bool whole = pixels(&in) == pixels(&all) && in.lo[D_F] == 0 &&
                         in.hi[D_F] == all.hi[D_F] && all.lo[D_F] == 0;
            int unit = whole && blk_prec(g->blocks[s]) == pr
                           ? layout_storage_unit(g, &p->uses, s) : 0;
            return unit > 0 && same_pitch_elsewhere(p, t, s, unit) ? unit : 0;
        }
    }
    return 0;
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
    int su = layout_storage_unit(g, &p->uses, s), lu = local_unit(p, x->src_task, pr);
    int wu = lu > 0 ? lu : layout_output_unit(g, &p->uses, w, pr);
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

int64_t map_land_bytes(const MapPlan *p, uint32_t xi)
{
    const MXfer *x = &p->xfers[xi];
    const Graph *g = p->g;
    const Block *bs = x->kind == XF_CORE ? g->blocks[x->store] : NULL;
    if (!bs || bs->type != BT_SI || x->bytes <= 0)
        return x->bytes;
    PrecisionId pr = blk_prec(bs);
    int bits = pr_info(pr)->bits;
    if (bits != 8 && bits != 32)
        return x->bytes;
    if (p->uses.blocks[p->tasks[x->src_task].pos].n_out_edges < 3)
        return x->bytes; /* no copy on its core beside one of its pitch and x's elsewhere */
    int64_t per_word = 32 / bits;
    int su = layout_storage_unit(g, &p->uses, x->store);
    int32_t ss[TIR_NDIMS];
    blk_eff_shape(bs, ss);
    int64_t sc = ss[D_F] > 0 ? ss[D_F] : 1;
    /* words a pixel of the copy: a run a pixel fills it (its channels in 8-byte units are
     * its pitch) */
    int64_t dpx = su > 0 ? round_up(sc, su) / per_word : 0;
    if (dpx <= 0 || round_up((sc + per_word - 1) / per_word, 2) != dpx)
        return x->bytes;
    BlockBox in; /* the part in the storage block's channels: all of them */
    bbox_of_iface(g, &p->uses, x->store, true, g->edges[x->edge]->id, &in);
    int lu = in.lo[D_F] == 0 && in.hi[D_F] == sc ? local_unit(p, x->src_task, pr) : 0;
    /* words a pixel of the sender's, in whole 16-byte rows */
    int64_t spx = lu > 0 ? round_up(sc, lu) / per_word : 0;
    if (spx <= dpx || spx % 4 || x->bytes > INT64_MAX / spx)
        return x->bytes;
    return x->bytes * spx / dpx;
}
