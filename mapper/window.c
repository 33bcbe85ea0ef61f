/* window.c: a window taller than a core holds, in two stages (docs/mapper.md, "Algorithm").
 *
 * A CCMPB (CCMPS) whose window covers the whole height of its input, ky = iy, with one output
 * row and column (a global max over y: `max` of a flattened tensor lowers to one) reads all
 * of its input on one core, and the split pass does not cut a window (pass.split.fit: 4324
 * rows of one INT_32 channel take 553472 bytes in rows of 128). The extreme of the whole
 * window is the extreme of the extremes of its parts, and the shift, the clip at CMP and the
 * precision's clamp come after the extreme, so block B reads the extremes of parts,
 * computed by a block "<B>/part" of its kind (no shift, CMP at the input precision's end:
 * no clip, writing that precision into "<B>/part.out"), and takes its window over them:
 *   - when B has one channel and its input S is a flatten (one writer, a RESHAPE keeping
 *     the C order from a box Y x X x F, F > 1, S read by B alone): S keeps the box as its
 *     writer gives it, the part takes the extreme of each channel over the window Y x X
 *     and writes the F of them as F one-channel pixels (a RESHAPE on its edge out), over
 *     which B takes the window F (92 x 47 values: 92 pixels of 47 channels, then 47);
 *   - else the part takes the extreme of each a rows (window a, stride a), a the least
 *     divisor of ky from sqrt(ky) on (92 for 4324 = 92 x 47), and B the window ky / a over
 *     them; the split pass then cuts the part along its output rows like any pooling.
 * Done when the input (one plain edge from a storage block) takes more than half of a
 * core's budget (bbox_storage_bytes), without padding or dilation, x read point by point
 * (kx = 1, ix = x, stride 1), and ky has such a divisor. Runs before the chip-exactness
 * rewrites, which check the part too. Requires a verified graph without groups; the caller
 * verifies it again.
 */
#include "mapper/mapper.h"
#include "mapper/rewrite.h"

#include "taskir/blockbox.h"
#include "taskir/exact.h"

/* The CMP of a CCMPB (CCMPS, !big) of precision p that clips nothing: p's lower (upper)
 * end, which P05 / P25 compare as the TaskGraph does (docs/exactness.md). */
static int32_t none(BlockType t, PrecisionId p)
{
    ExactRange r = exact_prec_range(p);
    return (int32_t)(t == BT_CCMPB ? r.lo : r.hi);
}

/* The least divisor of n from sqrt(n) on, below n; 0 when none (n prime or < 4). */
static int32_t divisor(int32_t n)
{
    for (int64_t a = 2; a < n; a++)
        if (a * a >= n && n % a == 0)
            return (int32_t)a;
    return 0;
}

/* Is B a global extreme over y of the kind taken in two stages (but for its input's
 * bytes)? Its part's window height a, or 0. */
static int32_t shape_fits(const Block *b)
{
    int32_t s[TIR_NDIMS];
    blk_eff_shape(b, s);
    if ((b->type != BT_CCMPB && b->type != BT_CCMPS) || s[D_Y] != 1 || s[D_KY] != s[D_IY] ||
        s[D_KY] < 4 || s[D_KX] != 1 || s[D_IX] != s[D_X] || blk_attr(b, AT_STRIDE_X) > 1 ||
        blk_attr(b, AT_PAD_UP) || blk_attr(b, AT_PAD_DOWN) || blk_attr(b, AT_PAD_LEFT) ||
        blk_attr(b, AT_PAD_RIGHT) || blk_attr(b, AT_DILATION_Y) > 1 || b->n_in != 1 ||
        b->in[0].n_ifaces != 1)
        return 0;
    return divisor(s[D_KY]);
}

/* Does the input of B (at pos, through its one edge e) come plainly from a storage block
 * taking more than half of a core's budget? */
static bool too_tall(const Graph *g, const GraphUses *u, const Chip *c, uint32_t pos,
                     const Edge **e)
{
    const BlockUses *bu = &u->blocks[pos];
    if (bu->n_in_edges != 1)
        return false;
    *e = g->edges[bu->in_edges[0]];
    long sp = graph_block_pos(g, (*e)->src);
    return sp >= 0 && bt_info(g->blocks[sp]->type)->kind == BK_STORAGE && !(*e)->n_re &&
           bbox_storage_bytes(c, g, u, (uint32_t)sp) > (int64_t)c->core_budget_bytes / 2;
}

/* The box (Y, X, F) the one writer of storage S (at sp) flattens into it when S is read by
 * B alone, holds no data and is written whole through a RESHAPE keeping the C order from a
 * box of y, x, f only; false otherwise. */
static bool flattened(const Graph *g, const GraphUses *u, long sp, int32_t box[3])
{
    const Block *s = g->blocks[sp];
    const BlockUses *bu = &u->blocks[sp];
    if (s->type != BT_SI || s->data || bu->n_in_edges != 1 || bu->n_out_edges != 1 ||
        s->n_in != 1 || s->in[0].n_ifaces != 1 || s->in[0].ifaces[0].has_pos ||
        s->in[0].ifaces[0].has_size)
        return false;
    return map_flatten_box(g, u, g->edges[bu->in_edges[0]], box) && box[D_F] > 1;
}

/* B (reading S through e), a global extreme of one channel over the values S flattens from
 * box: S keeps the box (Y, X, F) as its writer gives it, the part takes the extreme of each
 * channel over the window Y x X, and B the extreme of those F through a RESHAPE. false when
 * out of memory. */
static bool split_channels(Graph *g, Block *b, Edge *e, Block *S, const int32_t box[3],
                           PrecisionId p)
{
    Block *part = map_made_from(g, b, "part", b->type, p, 1, 1, box[D_F]);
    Block *out = part ? map_made_from(g, b, "part.out", BT_SI, p, box[D_F], 1, 1) : NULL;
    if (!out)
        return false;
    for (int d = D_Y; d <= D_F; d++)
        S->shape.d[d] = box[d];
    S->in[0].has_shape = S->out[0].has_shape = false;
    for (uint32_t k = 0; k < S->n_in; k++) /* the one edge in: plain now */
        for (uint32_t j = 0; j < S->in[k].n_ifaces; j++) {
            Edge *w = graph_edge(g, S->in[k].ifaces[j].edge_id);
            if (w)
                w->n_re = 0;
        }
    part->shape.d[D_KY] = part->shape.d[D_IY] = box[D_Y];
    part->shape.d[D_KX] = part->shape.d[D_IX] = box[D_X];
    Edge *r = NULL;
    if (!blk_set_attr(g, part, AT_KERNEL_Y, box[D_Y]) ||
        !blk_set_attr(g, part, AT_KERNEL_X, box[D_X]) ||
        !blk_set_attr(g, part, AT_STRIDE_Y, 1) || !blk_set_attr(g, part, AT_STRIDE_X, 1) ||
        !blk_set_attr(g, part, AT_CMP, none(b->type, p)) ||
        !blk_set_attr(g, b, AT_KERNEL_Y, box[D_F]) || !graph_retarget_edge(g, e, false, part, 0) ||
        !(r = graph_connect(g, part, 0, out, 0)) || !graph_connect(g, out, 0, b, 0) ||
        !edge_add_rearrange(g, r, RT_RESHAPE, 0))
        return false;
    b->shape.d[D_KY] = b->shape.d[D_IY] = box[D_F];
    b->in[0].has_shape = false;
    return true;
}

/* B (at pos, reading through e) in two stages, the first of window a. false when out of
 * memory. */
static bool split_window(Graph *g, Block *b, Edge *e, int32_t a, PrecisionId p)
{
    int32_t s[TIR_NDIMS];
    blk_eff_shape(b, s);
    int32_t rows = s[D_KY] / a;
    Block *part = map_made_from(g, b, "part", b->type, p, rows, s[D_X], s[D_F]);
    Block *out = part ? map_made_from(g, b, "part.out", BT_SI, p, rows, s[D_X], s[D_F]) : NULL;
    if (!out)
        return false;
    part->shape.d[D_KY] = a;
    part->shape.d[D_KX] = 1;
    part->shape.d[D_IY] = s[D_IY];
    part->shape.d[D_IX] = s[D_IX];
    if (!blk_set_attr(g, part, AT_STRIDE_Y, a) || !blk_set_attr(g, part, AT_STRIDE_X, 1) ||
        !blk_set_attr(g, part, AT_KERNEL_Y, a) || !blk_set_attr(g, part, AT_KERNEL_X, 1) ||
        !blk_set_attr(g, b, AT_KERNEL_Y, rows) ||
        !blk_set_attr(g, part, AT_CMP, none(b->type, p)) ||
        !graph_retarget_edge(g, e, false, part, 0) || !graph_connect(g, part, 0, out, 0) ||
        !graph_connect(g, out, 0, b, 0))
        return false;
    b->shape.d[D_KY] = rows;
    b->shape.d[D_IY] = rows;
    b->in[0].has_shape = false;
    return true;
}

Status mapper_window(Graph *g, const Chip *c, uint32_t *n_rewrites, Diag *d)
{
    *n_rewrites = 0;
    if (g->n_groups)
        return ST_OK;
    uint32_t n = g->n_blocks;
    for (uint32_t i = 0; i < n; i++) {
        int32_t a = shape_fits(g->blocks[i]);
        if (!a)
            continue;
        GraphUses u;
        if (!graph_uses(g, &u))
            return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
        const Edge *e = NULL;
        int32_t box[3];
        a = too_tall(g, &u, c, i, &e) ? a : 0;
        bool chans = a && g->blocks[i]->shape.d[D_F] <= 1 && g->blocks[i]->shape.d[D_X] <= 1 &&
                     flattened(g, &u, graph_block_pos(g, e->src), box);
        PrecisionId p = a ? blk_prec(graph_block(g, e->src)) : PR_INT_32;
        graph_uses_finish(&u);
        if (!a)
            continue;
        Block *S = graph_block(g, e->src);
        if (chans ? !split_channels(g, g->blocks[i], graph_edge(g, e->id), S, box, p)
                  : !split_window(g, g->blocks[i], graph_edge(g, e->id), a, p))
            return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
        (*n_rewrites)++;
    }
    return ST_OK;
}
