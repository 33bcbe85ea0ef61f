/* chip_cost.c: the aligned memory and the clocks of blocks on a core of a described chip
 * (chip_cost.h; the layouts and formulas are written out in docs/chip.md, "Memory" and
 * "Clocks"). Every product is checked: a figure that passes INT64_MAX is -1. */
#include "taskir/chip_cost.h"

#include "taskir/layout.h"
#include "taskir/layout_buf.h"

#include <string.h>

/* ---- checked arithmetic on non-negative figures (-1 = overflow, and stays -1) ---- */

static int64_t mul(int64_t a, int64_t b)
{
    if (a < 0 || b < 0 || (b && a > INT64_MAX / b))
        return -1;
    return a * b;
}

static int64_t add(int64_t a, int64_t b)
{
    if (a < 0 || b < 0 || a > INT64_MAX - b)
        return -1;
    return a + b;
}

static int64_t cdiv(int64_t a, int64_t b)
{
    if (a < 0 || b <= 0)
        return -1;
    return a / b + (a % b != 0);
}

static int64_t align_up(int64_t a, int64_t al)
{
    return mul(cdiv(a, al > 0 ? al : 1), al > 0 ? al : 1);
}

/* Bytes of n values of precision p, packed (2-bit ternary: four to a byte). */
static int64_t bytes_of(int64_t n, PrecisionId p)
{
    return cdiv(mul(n, pr_info(p)->bits), 8);
}

/* A shape dim read as a count: absent (0) is 1. */
static int64_t dim(const int32_t *s, int i)
{
    return s[i] > 0 ? s[i] : 1;
}

/* ---- memory ---- */

int64_t chip_storage_bytes(const Chip *c, const Block *b, const Block *consumer)
{
    if (bt_info(b->type)->kind != BK_STORAGE)
        return 0;
    int32_t s[TIR_NDIMS];
    blk_eff_shape(b, s);
    PrecisionId p = blk_prec(b);
    const ChipPrim *cp = consumer ? chip_prim_for(c, consumer->type) : NULL;
    int64_t in_align = cp && cp->in_align ? cp->in_align : c->align_input;
    int64_t group = cp && cp->chan_group > 1 ? cp->chan_group : c->mac_f;
    int64_t y = dim(s, D_Y), x = dim(s, D_X), f = dim(s, D_F), r = dim(s, D_R);
    int64_t ky = dim(s, D_KY), kx = dim(s, D_KX);
    /* an int32 row (an Axon's output, a bias) is laid out in whole groups of 32 channels; a
     * map at least as the layout table pitches it for the consumer (layout.h: P02 / P03 /
     * P43 / P83 read whole 32-byte groups) */
    int64_t row_align = pr_info(p)->bits == 32 ? c->align_axon_out : in_align;
    int lay = consumer ? layout_unit(p, layout_use_of(consumer->type, true)) : 0;
    if (lay && (int64_t)lay * pr_info(p)->bits / 8 > row_align)
        row_align = (int64_t)lay * pr_info(p)->bits / 8;
    switch (b->type) {
    case BT_SI:  /* [y][x][f], each pixel's channels padded */
        return mul(mul(y, x), align_up(bytes_of(f, p), row_align));
    case BT_SIC: /* HWC: [y][x][r], each pixel's channels padded */
        return mul(mul(y, x), align_up(bytes_of(r, p), row_align));
    case BT_SIC2D: { /* channel-major [r][y][ceil(x/16)*16], the consumer's padding stored */
        if (cp && cp->pad_in_memory) {
            y = add(y, (int64_t)blk_attr(consumer, AT_PAD_UP) + blk_attr(consumer, AT_PAD_DOWN));
            /* the left padding stored as whole words (layout_p81_left, layout.h) */
            int32_t lead, left = layout_p81_left(blk_attr(consumer, AT_PAD_LEFT),
                                                 blk_attr(consumer, AT_DILATION_X), &lead);
            x = add(x, (int64_t)(left >= 0 ? left : blk_attr(consumer, AT_PAD_LEFT)) +
                           blk_attr(consumer, AT_PAD_RIGHT));
        }
        return mul(mul(r, y), align_up(bytes_of(x, p), in_align));
    }
    case BT_SIFC: { /* the input vector, padded to the primitive's input_pad bytes */
        int64_t pad = cp && (int64_t)cp->r_pad > in_align ? (int64_t)cp->r_pad : in_align;
        return align_up(bytes_of(r, p), pad);
    }
    case BT_SW:
    case BT_SW2D: /* [ceil(f/32)][ky][kx][r][32], each row of 32 channels padded */
        return mul(mul(mul(mul(cdiv(f, group), ky), kx), r),
                   align_up(bytes_of(group, p), c->align_weight));
    case BT_SWFC: { /* [ceil(f/32)][r'][32], r' = r padded as the input vector is */
        int64_t pad = cp && (int64_t)cp->r_pad > in_align ? (int64_t)cp->r_pad : in_align;
        int64_t rp = cdiv(mul(align_up(bytes_of(r, p), pad), 8), pr_info(p)->bits);
        return mul(mul(cdiv(f, group), rp), align_up(bytes_of(group, p), c->align_weight));
    }
    case BT_SB: { /* [f]: a bias is int32 (added to the int32 sums), in whole groups of 32
                   * channels; a table or a scale in the precision it states */
        PrecisionId sp = b->has_prec ? b->prec
                         : b->data && b->data->has_prec ? b->data->prec : PR_INT_32;
        int64_t lut = consumer && consumer->type == BT_CLUT
                          ? layout_lut_entries(blk_attr(consumer, AT_LUT_DW)) : 0;
        /* P07 reads its table in the precision it writes (the CLUT's, which the
         * chip-exactness rewrites make its maps'): one byte an entry for an 8-bit CLUT */
        if (consumer && consumer->type == BT_CLUT &&
            pr_info(blk_prec(consumer))->bits < pr_info(sp)->bits)
            sp = blk_prec(consumer);
        if (lut > f) /* a table widened to the entries P07 reads (layout.h) */
            f = lut;
        return align_up(bytes_of(f, sp), pr_info(sp)->bits == 32 ? c->align_axon_out : in_align);
    }
    default:
        return 0;
    }
}

int64_t chip_output_bytes(const Chip *c, const Block *b)
{
    const ChipPrim *cp = chip_prim_for(c, b->type);
    if (!cp)
        return 0;
    int32_t s[TIR_NDIMS];
    blk_eff_shape(b, s);
    int64_t pixels = mul(dim(s, D_Y), dim(s, D_X)), f = dim(s, D_F);
    if (cp->unit == UNIT_AXON) /* int32, whatever the block's precision clamps it to */
        return mul(pixels, align_up(mul(f, 4), c->align_axon_out));
    int64_t out = mul(pixels, align_up(bytes_of(f, blk_prec(b)), c->align_input));
    if (b->type == BT_CLIF) /* the membrane potentials stay in memory between runs */
        out = add(out, mul(pixels, align_up(mul(f, 4), c->align_input)));
    return out;
}

int64_t chip_buffer_held(const Chip *c, const Graph *g, const GraphUses *u, uint32_t pos,
                         const Block *as)
{
    const Block *b = as ? as : g->blocks[pos];
    int64_t plain = chip_output_bytes(c, b), laid = layout_buffer_bytes_as(g, u, pos, as);
    if (plain < 0 || laid < 0)
        return -1;
    return laid > plain ? laid : plain;
}

/* What an input cluster holds, by its role in the block type table. */
static int64_t *bucket(GroupMem *m, const Block *b, uint32_t cluster)
{
    const ClusterSpec *spec = blk_in_spec(b, cluster);
    const char *role = spec ? spec->role : "input";
    if (strcmp(role, "bias") == 0)
        return &m->bias;
    if (strcmp(role, "weight") == 0 || strcmp(role, "lut") == 0 || strcmp(role, "alpha") == 0)
        return &m->weight;
    return &m->input;
}

bool chip_group_mem(const Chip *c, const Graph *g, const GraphUses *u, const Block *b,
                    GroupMem *out)
{
    memset(out, 0, sizeof *out);
    out->total = -1;
    long pos = graph_block_pos(g, b->id);
    if (pos < 0 || (uint32_t)pos >= u->n_blocks || bt_info(b->type)->kind != BK_COMPUTE)
        return false;
    const BlockUses *bu = &u->blocks[pos];
    for (uint32_t i = 0; i < bu->n_in_edges; i++) {
        const Edge *e = g->edges[bu->in_edges[i]];
        const Block *src = graph_block(g, e->src);
        if (!src || bt_info(src->type)->kind != BK_STORAGE)
            continue;
        bool seen = false; /* a storage block read through several edges is stored once */
        for (uint32_t k = 0; k < i && !seen; k++)
            seen = g->edges[bu->in_edges[k]]->src == src->id;
        if (seen)
            continue;
        const IfaceUse *iu = uses_find(u, (uint32_t)pos, true, e->id);
        int64_t *m = bucket(out, b, iu ? iu->cluster : 0);
        *m = add(*m, chip_storage_bytes(c, src, b));
    }
    out->output = chip_buffer_held(c, g, u, (uint32_t)pos, NULL);
    out->total = add(add(add(out->input, out->weight), out->bias), out->output);
    return out->total >= 0;
}

/* ---- clocks ---- */

int64_t chip_block_clocks_in(const Chip *c, const Block *b, PrecisionId in)
{
    const ChipRun *run = chip_run_for(c, b->type);
    if (!run)
        return -1;
    int32_t s[TIR_NDIMS];
    blk_eff_shape(b, s);
    int64_t ny = dim(s, D_Y), nx = dim(s, D_X), nf = dim(s, D_F), nr = dim(s, D_R);
    int64_t ky = dim(s, D_KY), kx = dim(s, D_KX), ix = dim(s, D_IX);
    int64_t load_bias = b->bias_type == BIAS_VECTOR ? 4 : 1;
    int64_t fg = cdiv(nf, c->mac_f), xg = cdiv(nx, c->mac_x), pixels = mul(ny, nx);
    const ChipPrec *pc = chip_prec(c, in);
    int64_t c0 = run->c0, c1 = run->c1;
    switch (run->clock) {
    case CLK_ADD: {
        if (!pc)
            return -1;
        int64_t branches = b->shape.n_branch > 0 ? (int64_t)b->shape.n_branch
                                                 : (int64_t)blk_n_variadic(b);
        int64_t per = add(add(add(load_bias, c0), branches), pc->write_v);
        return mul(mul(per, cdiv(nf, pc->g_f)), pixels);
    }
    case CLK_AVG:
        if (!pc)
            return -1;
        return mul(mul(add(add(c0, mul(kx, ky)), pc->write_v), cdiv(nf, pc->g_f)), pixels);
    case CLK_VEC:
        return mul(mul(add(load_bias, c0), fg), pixels);
    case CLK_MV: {
        if (!pc)
            return -1;
        int64_t gr = cdiv(nr, pc->d);
        return mul(add(add(c0, gr), mul(pc->d, gr)), fg);
    }
    case CLK_CONV: {
        if (!pc)
            return -1;
        int64_t gr = cdiv(nr, pc->d), l = gr < 4 ? gr : 4;
        int64_t per = add(add(add(c0, l), mul(l, gr)), mul(mul(kx, ky), nr));
        return mul(mul(mul(per, fg), xg), ny);
    }
    case CLK_CONV2D: { /* L: the 16-byte words of a stored input row, at most 3 */
        int64_t l = ix < 16 ? 1 : ix < 32 ? 2 : 3;
        int64_t per = add(add(c0, mul(mul(l, ky), nr)), mul(mul(kx, ky), nr));
        return mul(mul(mul(per, fg), xg), ny);
    }
    case CLK_CMP: { /* per 16-byte word of output */
        int64_t words = mul(pixels, cdiv(bytes_of(nf, blk_prec(b)), 16));
        return mul(words, blk_attr(b, AT_BIT_SHIFT_NUM) != 0 ? c1 : c0);
    }
    case CLK_LUT:
        return cdiv(mul(c0, mul(pixels, nf)), run->c_div);
    case CLK_LIF:
        return add(c0, mul(c1, cdiv(mul(pixels, nf), 4)));
    case CLK_NONE:
        break;
    }
    return -1;
}

int64_t chip_block_clocks(const Chip *c, const Block *b)
{
    return chip_block_clocks_in(c, b, PR_INT_8);
}

int64_t chip_group_clocks(const Chip *c, const Graph *g, const GraphUses *u, const Block *b)
{
    long pos = graph_block_pos(g, b->id);
    if (pos < 0 || (uint32_t)pos >= u->n_blocks)
        return -1;
    const BlockUses *bu = &u->blocks[pos];
    PrecisionId in = PR_INT_8;
    for (uint32_t i = 0; i < bu->n_in_edges; i++) { /* the block's first input cluster */
        const Edge *e = g->edges[bu->in_edges[i]];
        const IfaceUse *iu = uses_find(u, (uint32_t)pos, true, e->id);
        const Block *src = graph_block(g, e->src);
        if (src && iu && iu->cluster == 0) {
            in = blk_prec(src);
            break;
        }
    }
    return chip_block_clocks_in(c, b, in);
}
