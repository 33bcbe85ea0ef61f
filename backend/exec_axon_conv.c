/* exec_axon_conv.c: the convolutions P41 (CC: HWC input, channels padded to 16, padding by
 * address offset) and P81 (CC2D: channel-major input with its padding stored in memory), on
 * one loop (conv_run) that both reach through strides (ConvView). The accumulation starts
 * from the bias and saturates to int32 after every multiply-accumulate, input channel outer,
 * then kernel row, then kernel column, as the chip's behaviour simulator does
 * (docs/backend.md, "The executor: Axon primitives").
 */
#include "backend/exec_axon_internal.h"


/* The parameters P41 and P81 share (their messages are two types with the same fields). */
typedef struct ConvParams {
    int x1_prec, x2_prec, bias_type;
    int32_t stride_x, stride_y, dilate_x, dilate_y, pads[4];
} ConvParams;

/* The checked geometry of a convolution. */
typedef struct ConvGeom {
    int hx, hw;               /* hardware precision codes of the input and the weights */
    int64_t iy, ix, r, f, ky, kx, sy, sx, dy, dx, pad[4], oy, ox;
    int64_t groups;           /* output channel groups of 32 */
} ConvGeom;

/* How conv_run finds an input element (channel r, row y, column x of the padded input) and a
 * weight (group g, channel r, kernel ky, kx; the 32 lanes of the group contiguous). Rows and
 * columns outside [off, off + in) read 0 (P41's padding); P81 stores its padding (off 0). */
typedef struct ConvView {
    const int32_t *x;
    int64_t x_r, x_y, x_x, in_y, in_x, off_y, off_x;
    const int32_t *w;
    int64_t w_g, w_r, w_ky, w_kx;
} ConvView;

static Status conv_geom(const AxonCtx *c, const ConvParams *p, unsigned x1_allowed,
                        ConvGeom *g)
{
    const Taskir__Shape *s = axon_shape(c);
    Status st = axon_prec(c, "x1_precision", p->x1_prec, x1_allowed, &g->hx);
    if (st == ST_OK)
        st = axon_prec(c, "x2_precision", p->x2_prec, AXON_P8T, &g->hw);
    if (st == ST_OK)
        st = axon_dim(c, "niy", s->niy, true, &g->iy);
    if (st == ST_OK)
        st = axon_dim(c, "nix", s->nix, true, &g->ix);
    if (st == ST_OK)
        st = axon_dim(c, "nr", s->nr, true, &g->r);
    if (st == ST_OK)
        st = axon_dim(c, "nf", s->nf, true, &g->f);
    if (st == ST_OK)
        st = axon_step(c, "shape nky", s->nky, &g->ky);
    if (st == ST_OK)
        st = axon_step(c, "shape nkx", s->nkx, &g->kx);
    if (st == ST_OK)
        st = axon_step(c, "stride_y", p->stride_y, &g->sy);
    if (st == ST_OK)
        st = axon_step(c, "stride_x", p->stride_x, &g->sx);
    if (st == ST_OK)
        st = axon_step(c, "dilate_y", p->dilate_y, &g->dy);
    if (st == ST_OK)
        st = axon_step(c, "dilate_x", p->dilate_x, &g->dx);
    if (st == ST_OK)
        st = axon_pads(c, p->pads, g->pad);
    if (st == ST_OK)
        st = axon_window(c, 'y', g->iy, g->ky, g->sy, g->dy, g->pad[0], g->pad[1], s->ny,
                         &g->oy);
    if (st == ST_OK)
        st = axon_window(c, 'x', g->ix, g->kx, g->sx, g->dx, g->pad[2], g->pad[3], s->nx,
                         &g->ox);
    g->groups = (g->f + 31) / 32;
    return st;
}

/* The 32 lanes of output group gr at output pixel (oy, ox), added to acc: the saturating
 * sum over r, then ky, then kx of x * w, in that order. */
static void conv_lanes_sat(const ConvGeom *g, const ConvView *v, int64_t oy, int64_t ox,
                           int64_t gr, int32_t acc[32])
{
    for (int64_t r = 0; r < g->r; r++)
        for (int64_t ky = 0; ky < g->ky; ky++) {
            int64_t y = oy * g->sy + ky * g->dy - v->off_y;
            for (int64_t kx = 0; kx < g->kx && y >= 0 && y < v->in_y; kx++) {
                int64_t x = ox * g->sx + kx * g->dx - v->off_x;
                if (x < 0 || x >= v->in_x)
                    continue;
                int32_t xv = v->x[r * v->x_r + y * v->x_y + x * v->x_x];
                const int32_t *w = v->w + gr * v->w_g + r * v->w_r + ky * v->w_ky + kx * v->w_kx;
                for (int l = 0; l < 32 && xv; l++)
                    acc[l] = asm_sat_add32(acc[l], xv * w[l]);
            }
        }
}

/* The same when no partial sum can leave int32 (axon_may_saturate): the order does not
 * matter then, and the input channels run innermost, where the layouts keep them close. */
static void conv_lanes_fast(const ConvGeom *g, const ConvView *v, int64_t oy, int64_t ox,
                            int64_t gr, int32_t acc[32])
{
    for (int64_t ky = 0; ky < g->ky; ky++) {
        int64_t y = oy * g->sy + ky * g->dy - v->off_y;
        for (int64_t kx = 0; kx < g->kx && y >= 0 && y < v->in_y; kx++) {
            int64_t x = ox * g->sx + kx * g->dx - v->off_x;
            if (x < 0 || x >= v->in_x)
                continue;
            const int32_t *xp = v->x + y * v->x_y + x * v->x_x;
            const int32_t *wp = v->w + gr * v->w_g + ky * v->w_ky + kx * v->w_kx;
            for (int64_t r = 0; r < g->r; r++) {
                int32_t xv = xp[r * v->x_r];
                const int32_t *w = wp + r * v->w_r;
                for (int l = 0; l < 32; l++)
                    acc[l] += xv * w[l];
            }
        }
    }
}

/* out[oy][ox][groups * 32] = bias + the sum over r, ky, kx of x * w, saturating after every
 * step (sat false: no partial sum can leave int32, so the plain sum is the same). */
static void conv_run(const ConvGeom *g, const ConvView *v, const int32_t *bias, int32_t *out,
                     bool sat)
{
    int64_t fp = g->groups * 32;
    for (int64_t oy = 0; oy < g->oy; oy++)
        for (int64_t ox = 0; ox < g->ox; ox++)
            for (int64_t gr = 0; gr < g->groups; gr++) {
                int32_t acc[32];
                for (int l = 0; l < 32; l++)
                    acc[l] = bias[gr * 32 + l];
                if (sat)
                    conv_lanes_sat(g, v, oy, ox, gr, acc);
                else
                    conv_lanes_fast(g, v, oy, ox, gr, acc);
                for (int l = 0; l < 32; l++)
                    out[(oy * g->ox + ox) * fp + gr * 32 + l] = acc[l];
            }
}

/* Checks the areas, decodes the input (x_elems elements) and the weights (w_elems), runs
 * the convolution and writes the output. v's strides are set; its pointers are filled here. */
static Status conv_exec(AxonCtx *c, const ConvGeom *g, int bias_type, ConvView *v,
                        int64_t x_elems, int64_t w_elems)
{
    const Taskir__Asm__AxonPrim *a = c->a;
    AxonArea in[2], out;
    int64_t fp = g->groups * 32;
    int64_t x_words = x_elems / asm_hw_per_word(g->hx);
    int64_t w_words = w_elems / asm_hw_per_word(g->hw);
    int64_t o_words = axon_mul(axon_mul(g->oy, g->ox), fp);
    Status st = axon_area(c, "x1", a->has_x1_base_addr, a->x1_base_addr,
                          a->has_x1_addr_length, a->x1_addr_length, x_words, &in[0]);
    if (st == ST_OK)
        st = axon_area(c, "x2", a->has_x2_base_addr, a->x2_base_addr, a->has_x2_addr_length,
                       a->x2_addr_length, w_words, &in[1]);
    int32_t *bias, *x, *w, *o;
    if (st != ST_OK || (st = axon_bias(c, bias_type, 0, fp, &bias)) != ST_OK ||
        (st = axon_output(c, o_words, &out)) != ST_OK ||
        (st = axon_read(c, &in[0], g->hx, x_elems, &x)) != ST_OK ||
        (st = axon_read(c, &in[1], g->hw, w_elems, &w)) != ST_OK ||
        (st = axon_alloc(c, o_words, &o)) != ST_OK)
        return st;
    v->x = x;
    v->w = w;
    conv_run(g, v, bias, o,
             axon_may_saturate(bias, fp, x, x_elems, w, w_elems, g->r * g->ky * g->kx));
    axon_store(c->m, &out, o, o_words);
    return ST_OK;
}

/* P41: input [iy][ix][r padded to 16 (64 ternary)], padding by offset (reads 0); weights
 * [groups][ky][kx][r][32]. */
Status exec_axon_p41(AxonCtx *c)
{
    const Taskir__Asm__P41 *p = c->a->p41;
    if (p->has_axon_delay && p->axon_delay) {
        /* A delay: the Axon only waits delay_clock clocks; no memory is read or written. */
        if (p->delay_clock < 0)
            return axon_fail(c, "delay_clock is %d, not in 0..%d", (int)p->delay_clock, INT32_MAX);
        return ST_OK;
    }
    ConvParams cp = {p->x1_precision, p->x2_precision, p->bias_type, p->stride_x,
                     p->stride_y, p->dilate_x, p->dilate_y,
                     {p->pad_top, p->pad_down, p->pad_left, p->pad_right}};
    ConvGeom g;
    Status st = conv_geom(c, &cp, AXON_P8T, &g);
    if (st != ST_OK)
        return st;
    int64_t rp = axon_round_up(g.r, g.hx == ASM_HW_TERNARY ? 64 : 16);
    ConvView v = {.x_r = 1, .x_y = g.ix * rp, .x_x = rp, .in_y = g.iy, .in_x = g.ix,
                  .off_y = g.pad[0], .off_x = g.pad[2],
                  .w_kx = g.r * 32, .w_ky = g.kx * g.r * 32, .w_g = g.ky * g.kx * g.r * 32,
                  .w_r = 32};
    int64_t x_elems = axon_mul(axon_mul(g.iy, g.ix), rp);
    int64_t w_elems = axon_mul(axon_mul(g.groups, axon_mul(g.ky, g.kx)), g.r * 32);
    return conv_exec(c, &g, p->bias_type, &v, x_elems, w_elems);
}

/* P81: input [r][iy + pads][ix + pads padded to 16] (8-bit), its padding stored; weights
 * [groups][r][ky][kx][32]. */
Status exec_axon_p81(AxonCtx *c)
{
    const Taskir__Asm__P81 *p = c->a->p81;
    ConvParams cp = {p->x1_precision, p->x2_precision, p->bias_type, p->stride_x,
                     p->stride_y, p->dilate_x, p->dilate_y,
                     {p->pad_top, p->pad_down, p->pad_left, p->pad_right}};
    ConvGeom g;
    Status st = conv_geom(c, &cp, AXON_P8, &g);
    if (st != ST_OK)
        return st;
    int64_t py = g.iy + g.pad[0] + g.pad[1], px = g.ix + g.pad[2] + g.pad[3];
    int64_t pxw = axon_round_up(px, 16);
    ConvView v = {.x_r = py * pxw, .x_y = pxw, .x_x = 1, .in_y = py, .in_x = px,
                  .w_kx = 32, .w_ky = g.kx * 32, .w_r = g.ky * g.kx * 32,
                  .w_g = g.r * g.ky * g.kx * 32};
    int64_t x_elems = axon_mul(axon_mul(g.r, py), pxw);
    int64_t w_elems = axon_mul(axon_mul(g.groups, axon_mul(g.ky, g.kx)), g.r * 32);
    return conv_exec(c, &g, p->bias_type, &v, x_elems, w_elems);
}
