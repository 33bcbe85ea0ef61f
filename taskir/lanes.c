/* lanes.c: edges whose values move between pixels or lanes (lanes.h). */
#include "taskir/lanes.h"

#include "taskir/rearrange.h"

bool lanes_keep_order(const Graph *g, const GraphUses *u, const Edge *ed)
{
    if (ed->n_re == 0)
        return true;
    EdgeEnds ends;
    char why[160];
    if (!edge_ends(g, u, ed, &ends, why, sizeof why))
        return false;
    RaShape sh;
    ra_shape_of_box(ends.src_box, &sh);
    for (uint32_t r = 0; r < ed->n_re; r++) {
        RaStep st;
        if (!ra_decode(&ed->re[r], &sh, &st, why, sizeof why))
            return false;
        if (st.type == RT_RESHAPE || st.type == RT_PERMUTE) {
            /* a transposition keeps the C order when the axes longer than 1 keep theirs */
            int last = -1;
            for (int j = 0; j < st.in.k; j++) {
                if (st.in.d[st.perm[j]] == 1)
                    continue;
                if (st.perm[j] < last)
                    return false;
                last = st.perm[j];
            }
        } else if (st.type == RT_SHUFFLE) { /* the identity index keeps every value */
            const Tensor *t = st.index;
            int64_t n = st.axis < 0 ? ra_volume(&st.in) : st.in.d[st.axis];
            if (!t || (int64_t)(t->i32 ? t->n_i32 : t->n_u32) != n)
                return false;
            for (int64_t i = 0; i < n; i++)
                if ((t->i32 ? (int64_t)t->i32[i] : (int64_t)t->u32[i]) != i)
                    return false;
        } else if (st.type != RT_IDENTITY) {
            return false;
        }
        sh = st.out;
    }
    return true;
}

/* A box's pixels (y x) and channels (f, else r) */
static void pixels_channels(const int32_t box[TIR_CDIMS], int64_t *px, int64_t *ch)
{
    *px = (int64_t)(box[D_Y] > 0 ? box[D_Y] : 1) * (box[D_X] > 0 ? box[D_X] : 1);
    *ch = box[D_F] > 0 ? box[D_F] : box[D_R] > 0 ? box[D_R] : 1;
}

bool lanes_moved(const Graph *g, const GraphUses *u, const Edge *ed)
{
    long w = graph_block_pos(g, ed->src), s = graph_block_pos(g, ed->dst);
    if (ed->n_re == 0 || w < 0 || s < 0 || bt_info(g->blocks[w]->type)->kind != BK_COMPUTE ||
        bt_info(g->blocks[s]->type)->kind != BK_STORAGE)
        return false;
    EdgeEnds ends;
    char why[160];
    if (!edge_ends(g, u, ed, &ends, why, sizeof why))
        return false;
    /* a view (backend/emit_rearr.c): the writer's whole result, the block's one writer, only
     * CVMs (of an 8-bit block) or OUTPUTs read it */
    const BlockUses *bu = &u->blocks[s];
    bool bits8 = pr_info(blk_prec(g->blocks[s]))->bits == 8;
    bool view = bu->n_out_edges > 0 && bu->n_in_edges == 1;
    for (int i = 0; i < TIR_CDIMS && view; i++)
        view = ends.src_pos[i] <= 0 && ends.src_box[i] == ends.src_cdims[i];
    for (uint32_t j = 0; j < bu->n_out_edges && view; j++) {
        long r = graph_block_pos(g, g->edges[bu->out_edges[j]]->dst);
        view = r >= 0 && ((g->blocks[r]->type == BT_CVM && bits8) ||
                          g->blocks[r]->type == BT_OUTPUT);
    }
    if (view)
        return false;
    int64_t sp, sc, dp, dc;
    pixels_channels(ends.src_box, &sp, &sc);
    pixels_channels(ends.dst_box, &dp, &dc);
    return sp != dp || sc != dc || !lanes_keep_order(g, u, ed);
}
