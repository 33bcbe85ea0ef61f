/* sim_chip.c: the chip's arithmetic for the simulator (sim_use_chip, taskir-run
 * --chip-exact; docs/exactness.md, "Simulating the chip"), where it differs from the
 * TaskGraph semantics of sim_kernels.c (CHIP.md §7):
 *   - the Axon blocks (CC, CC2D, CVM, CADD, CAVG, CVVH, CAX, CVS) accumulate from the bias,
 *     one multiply-accumulate at a time in the loop nest's order, saturating to int32 after
 *     each (the TaskGraph wraps the exact sum); the result is then clamped to the block's
 *     precision as in the TaskGraph;
 *   - CCMPB / CCMPS run as P05 / P25 do (exact_chip_cmp: the shift only when they narrow, in
 *     whole Soma steps, saturation to 8 bits, CMP's low bits, the output's low bits);
 *   - CLUT shifts in whole Soma steps, saturates its index to the table P07 reads and
 *     reads the image the code generator writes (the table widened: layout_lut_entries).
 * Other blocks, and blocks of precisions the chip does not encode, run the TaskGraph's
 * kernels. Plain scalar loops: this is for seeing the difference, not for speed. */
#include "sim_internal.h"
#include "taskir/exact.h"
#include "taskir/layout.h"

typedef struct Geo {
    int64_t Y, X, F, R, KY, KX, IY, IX, sy, sx, dy, dx, pu, pl;
} Geo;

static void geo_of(const Block *b, Geo *w)
{
    int32_t e[TIR_NDIMS];
    blk_eff_shape(b, e);
    int64_t s[TIR_NDIMS];
    for (int i = 0; i < TIR_NDIMS; i++)
        s[i] = e[i] > 0 ? e[i] : 1;
    bool dil = bt_info(b->type)->flags & BF_DILATE, win = bt_info(b->type)->flags & BF_WINDOW;
    *w = (Geo){s[D_Y], s[D_X], s[D_F], s[D_R], s[D_KY], s[D_KX], win ? s[D_IY] : s[D_Y],
               win ? s[D_IX] : s[D_X], win ? blk_attr(b, AT_STRIDE_Y) : 1,
               win ? blk_attr(b, AT_STRIDE_X) : 1, dil ? blk_attr(b, AT_DILATION_Y) : 1,
               dil ? blk_attr(b, AT_DILATION_X) : 1, win ? blk_attr(b, AT_PAD_UP) : 0,
               win ? blk_attr(b, AT_PAD_LEFT) : 0};
}

static int64_t sat32(int64_t v)
{
    return v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : v;
}

static int64_t bias_at(const SimBlock *sb, int64_t f)
{
    return sb->bias >= 0 ? sb->in[sb->bias].data[f] : blk_attr(sb->b, AT_CONSTANT_B);
}

/* The block's result from its saturated accumulator: clamped to its precision. */
static int32_t finish(const Block *b, int64_t acc)
{
    ExactRange p = exact_prec_range(blk_prec(b));
    return (int32_t)(acc < p.lo ? p.lo : acc > p.hi ? p.hi : acc);
}

/* Input (iy, ix) of a window, false in the padding. */
static bool inside(const Geo *w, int64_t oy, int64_t ox, int64_t ky, int64_t kx, int64_t *iy,
                   int64_t *ix)
{
    *iy = oy * w->sy + ky * w->dy - w->pu;
    *ix = ox * w->sx + kx * w->dx - w->pl;
    return *iy >= 0 && *iy < w->IY && *ix >= 0 && *ix < w->IX;
}

/* The saturated accumulator of output (oy, ox, f) of an Axon block. */
typedef int64_t (*AccFn)(const SimBlock *sb, const Geo *w, int64_t oy, int64_t ox, int64_t f);

/* Every output of sb from its accumulator, clamped to its precision. */
static Status each_output(SimBlock *sb, const Geo *w, AccFn acc)
{
    for (int64_t oy = 0; oy < w->Y; oy++)
        for (int64_t ox = 0; ox < w->X; ox++)
            for (int64_t f = 0; f < w->F; f++)
                sb->result[(oy * w->X + ox) * w->F + f] = finish(sb->b, acc(sb, w, oy, ox, f));
    return ST_OK;
}

/* CC, CC2D (CVM: one pixel, one tap): acc = bias; for r, ky, kx: acc = sat(acc + x * w). */
static int64_t acc_conv(const SimBlock *sb, const Geo *w, int64_t oy, int64_t ox, int64_t f)
{
    const int32_t *in = sb->in[0].data, *W = sb->in[1].data;
    int64_t acc = bias_at(sb, f), iy, ix;
    for (int64_t r = 0; r < w->R; r++)
        for (int64_t ky = 0; ky < w->KY; ky++)
            for (int64_t kx = 0; kx < w->KX; kx++)
                if (inside(w, oy, ox, ky, kx, &iy, &ix))
                    acc = sat32(acc + (int64_t)in[(iy * w->IX + ix) * w->R + r] *
                                          W[((f * w->R + r) * w->KY + ky) * w->KX + kx]);
    return acc;
}

static Status run_conv(SimRun *run, SimBlock *sb, Diag *d)
{
    (void)run, (void)d;
    Geo w;
    geo_of(sb->b, &w);
    if (sb->b->type == BT_CVM)
        w = (Geo){1, 1, w.F, w.R, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0};
    return each_output(sb, &w, acc_conv);
}

/* CADD, CAVG: acc = bias; for each input, for ky, kx: acc = sat(acc + x). */
static int64_t acc_sum(const SimBlock *sb, const Geo *w, int64_t oy, int64_t ox, int64_t f)
{
    int64_t acc = bias_at(sb, f), iy, ix;
    for (uint32_t v = 0; v < sb->n_var; v++)
        for (int64_t ky = 0; ky < w->KY; ky++)
            for (int64_t kx = 0; kx < w->KX; kx++)
                if (inside(w, oy, ox, ky, kx, &iy, &ix))
                    acc = sat32(acc + sb->in[v].data[(iy * w->IX + ix) * w->F + f]);
    return acc;
}

/* CVVH, CAX, CVS: acc = sat(bias + x * k), k the other input, alpha[f] or CONSTANT_A. */
static int64_t acc_scale(const SimBlock *sb, const Geo *w, int64_t oy, int64_t ox, int64_t f)
{
    BlockType t = sb->b->type;
    int64_t acc = bias_at(sb, f), iy, ix;
    if (inside(w, oy, ox, 0, 0, &iy, &ix)) {
        int64_t at = (iy * w->IX + ix) * w->F + f;
        int64_t k = t == BT_CVVH ? sb->in[1].data[at]
                    : t == BT_CAX ? sb->in[1].data[f] : blk_attr(sb->b, AT_CONSTANT_A);
        acc = sat32(acc + (int64_t)sb->in[0].data[at] * k);
    }
    return acc;
}

static Status run_sum(SimRun *run, SimBlock *sb, Diag *d)
{
    (void)run, (void)d;
    Geo w;
    geo_of(sb->b, &w);
    return each_output(sb, &w, sb->b->type == BT_CADD || sb->b->type == BT_CAVG ? acc_sum
                                                                              : acc_scale);
}

/* CCMPB, CCMPS: the window's extreme (padding taps are zeros), then P05 / P25 on it. */
static Status run_cmp(SimRun *run, SimBlock *sb, Diag *d)
{
    const Chip *c = run->chip;
    ExactCmp k;
    exact_cmp_of(sb->b, exact_input_prec(run->g, sb->pos), &k);
    int64_t probe;
    if (!exact_chip_cmp(c, &k, 0, &probe)) /* a precision the chip does not encode */
        return sim_kernel(sb->b->type)(run, sb, d);
    Geo w;
    geo_of(sb->b, &w);
    w.dy = w.dx = 1;
    for (int64_t oy = 0; oy < w.Y; oy++)
        for (int64_t ox = 0; ox < w.X; ox++)
            for (int64_t f = 0; f < w.F; f++) {
                int64_t m = k.big ? INT64_MIN : INT64_MAX, iy, ix, out = 0;
                for (int64_t ky = 0; ky < w.KY; ky++)
                    for (int64_t kx = 0; kx < w.KX; kx++) {
                        int64_t v = inside(&w, oy, ox, ky, kx, &iy, &ix)
                                        ? sb->in[0].data[(iy * w.IX + ix) * w.F + f] : 0;
                        m = k.big ? (v > m ? v : m) : (v < m ? v : m);
                    }
                exact_chip_cmp(c, &k, m, &out);
                sb->result[(oy * w.X + ox) * w.F + f] = (int32_t)out;
            }
    return ST_OK;
}

/* CLUT: the index shifted in whole Soma steps, saturated to the table of N entries P07 reads
 * (layout_lut_entries: the graph's n, else the next size, N >= 2n), and looked up in the
 * image the code generator writes: the graph's entries at both ends, zeros between
 * (emit_image_lut). */
static Status run_lut(SimRun *run, SimBlock *sb, Diag *d)
{
    (void)d;
    int32_t s = blk_attr(sb->b, AT_BIT_SHIFT_NUM), step = (int32_t)run->chip->soma_shift_bits;
    int64_t n = sb->in[1].vol, big = layout_lut_entries(blk_attr(sb->b, AT_LUT_DW));
    if (big < n)
        big = n;
    s = step > 0 ? s - s % step : s;
    for (int64_t i = 0; i < sb->result_vol; i++) {
        int64_t x = sb->in[0].data[i], idx = x >= 0 ? x >> s : ~(~x >> s);
        idx = idx < -big / 2 ? -big / 2 : idx > big / 2 - 1 ? big / 2 - 1 : idx;
        int64_t e = idx >= 0 ? idx : idx + big, from = e < n ? e : e >= big - n ? e - (big - n)
                                                                                 : -1;
        sb->result[i] = finish(sb->b, from < 0 ? 0 : sb->in[1].data[from]);
    }
    return ST_OK;
}

void sim_use_chip(SimRun *run, const Chip *chip)
{
    run->chip = chip;
}

SimKernelFn sim_chip_kernel(BlockType t)
{
    switch (t) {
    case BT_CC:
    case BT_CC2D:
    case BT_CVM: return run_conv;
    case BT_CADD:
    case BT_CAVG:
    case BT_CVVH:
    case BT_CAX:
    case BT_CVS: return run_sum;
    case BT_CCMPB:
    case BT_CCMPS: return run_cmp;
    case BT_CLUT: return run_lut;
    default: return NULL;
    }
}
