/* exec_axon_vec.c: the Axon primitives that work channel by channel: P02 (CAVG's windowed
 * sum, CADD's sum of n vectors), and P03 (CVVH: x1 * x2), P43 (CAX: x1 * alpha[f]), P83
 * (CVS: x1 * constant_a), each plus a bias. Channels are padded to 32 bytes a pixel; every
 * padded channel is computed too (the chip works on whole 32-byte groups). Sums saturate to
 * int32 after every addition (docs/backend.md, "The executor: Axon primitives").
 */
#include "backend/exec_axon_internal.h"


/* Channels of hardware precision p padded to one 32-byte group a pixel (8 int32, 32 int8 or
 * uint8, 128 ternary). */
static int64_t pad_channels(int64_t f, int p)
{
    return axon_round_up(f, 8 * asm_hw_per_word(p));
}

/* The stride and padding a primitive in a mode without a window must leave neutral. */
static Status neutral(const AxonCtx *c, const char *mode, const char *field, int32_t v,
                      int32_t neutral_value)
{
    if (v != 0 && v != neutral_value)
        return axon_fail(c, "%s is %d: it has no meaning %s (0 or %d)", field, (int)v, mode,
                         (int)neutral_value);
    return ST_OK;
}

/* ---- P02 ---- */

Status exec_axon_p02(AxonCtx *c)
{
    const Taskir__Asm__AxonPrim *a = c->a;
    const Taskir__Asm__P02 *p = a->p02;
    const Taskir__Shape *s = axon_shape(c);
    bool avg = p->avg_pooling_en;
    int hx;
    int64_t f, ky, kx, iy, ix, oy, ox, sy = 1, sx = 1, pad[4] = {0, 0, 0, 0}, n = 1;
    Status st = axon_prec(c, "x1_precision", p->x1_precision, AXON_PALL, &hx);
    if (st == ST_OK)
        st = axon_dim(c, "nf", s->nf, true, &f);
    if (st == ST_OK)
        st = axon_step(c, "shape nky", s->nky, &ky);
    if (st == ST_OK)
        st = axon_step(c, "shape nkx", s->nkx, &kx);
    if (st == ST_OK && avg) {
        int32_t pads[4] = {p->pad_top, p->pad_down, p->pad_left, p->pad_right};
        st = axon_dim(c, "niy", s->niy, false, &iy);
        if (st == ST_OK)
            st = axon_dim(c, "nix", s->nix, false, &ix);
        if (st == ST_OK)
            st = axon_step(c, "stride_y", p->stride_y, &sy);
        if (st == ST_OK)
            st = axon_step(c, "stride_x", p->stride_x, &sx);
        if (st == ST_OK)
            st = axon_pads(c, pads, pad);
        if (st == ST_OK)
            st = axon_window(c, 'y', iy, ky, sy, 1, pad[0], pad[1], s->ny, &oy);
        if (st == ST_OK)
            st = axon_window(c, 'x', ix, kx, sx, 1, pad[2], pad[3], s->nx, &ox);
    } else if (st == ST_OK) {
        /* The sum of n = nky * nkx vectors [iy][ix][f] stored back to back. */
        const char *mode = "in the vector sum (avg_pooling_en false)";
        n = ky * kx;
        if (s->n_branch != 0 && s->n_branch != n)
            st = axon_fail(c, "shape n_branch is %d, but nky * nkx = %lld inputs are summed",
                           (int)s->n_branch, (long long)n);
        if (st == ST_OK)
            st = neutral(c, mode, "stride_y", p->stride_y, 1);
        if (st == ST_OK)
            st = neutral(c, mode, "stride_x", p->stride_x, 1);
        if (st == ST_OK)
            st = neutral(c, mode, "pad_top", p->pad_top, 0);
        if (st == ST_OK)
            st = neutral(c, mode, "pad_down", p->pad_down, 0);
        if (st == ST_OK)
            st = neutral(c, mode, "pad_left", p->pad_left, 0);
        if (st == ST_OK)
            st = neutral(c, mode, "pad_right", p->pad_right, 0);
        if (st == ST_OK)
            st = axon_elem_extent(c, 'y', s->niy, s->ny, 1, &iy, &oy);
        if (st == ST_OK)
            st = axon_elem_extent(c, 'x', s->nix, s->nx, 1, &ix, &ox);
    }
    if (st != ST_OK)
        return st;
    int64_t fp = pad_channels(f, hx);
    if ((st = axon_count(c, "bias_length", p->bias_length, f, fp)) != ST_OK)
        return st;
    int64_t x_elems = axon_mul(axon_mul(n, axon_mul(iy, ix)), fp);
    int64_t o_words = axon_mul(axon_mul(oy, ox), fp);
    AxonArea in, out;
    int32_t *bias, *x, *o;
    if ((st = axon_area(c, "x1", a->has_x1_base_addr, a->x1_base_addr, a->has_x1_addr_length,
                        a->x1_addr_length, x_elems / asm_hw_per_word(hx), &in)) != ST_OK ||
        (st = axon_bias(c, p->bias_type, p->constant_b, fp, &bias)) != ST_OK ||
        (st = axon_output(c, o_words, &out)) != ST_OK ||
        (st = axon_read(c, &in, hx, x_elems, &x)) != ST_OK ||
        (st = axon_alloc(c, o_words, &o)) != ST_OK)
        return st;
    for (int64_t y = 0; y < oy; y++)
        for (int64_t xo = 0; xo < ox; xo++)
            for (int64_t ch = 0; ch < fp; ch++) {
                int32_t acc = bias[ch];
                if (avg) {
                    /* The window's rows and columns inside the input (padding adds 0). */
                    int64_t y0 = y * sy - pad[0], x0 = xo * sx - pad[2];
                    for (int64_t yy = y0 < 0 ? 0 : y0; yy < y0 + ky && yy < iy; yy++)
                        for (int64_t xx = x0 < 0 ? 0 : x0; xx < x0 + kx && xx < ix; xx++)
                            acc = asm_sat_add32(acc, x[(yy * ix + xx) * fp + ch]);
                } else {
                    for (int64_t k = 0; k < n; k++)
                        acc = asm_sat_add32(acc, x[((k * iy + y) * ix + xo) * fp + ch]);
                }
                o[(y * ox + xo) * fp + ch] = acc;
            }
    axon_store(c->m, &out, o, o_words);
    return ST_OK;
}

/* ---- P03, P43, P83: out = bias + x1 * m, m from x2, from alpha[f] or a constant ---- */

typedef enum { MUL_X2, MUL_ALPHA, MUL_CONST } ElemMul;

/* The parameters of the three (three message types with the same fields). */
typedef struct ElemParams {
    ElemMul mul;
    bool tensor_en;
    int x1_prec, x2_prec, bias_type;
    unsigned x1_allowed;
    int32_t stride_x, stride_y, constant_a, constant_b;
    const char *count_field[2];  /* length parameters checked against f (NULL: none) */
    int32_t count[2];
} ElemParams;

static Status elem_exec(AxonCtx *c, const ElemParams *p)
{
    const Taskir__Asm__AxonPrim *a = c->a;
    const Taskir__Shape *s = axon_shape(c);
    int hx, hm = ASM_HW_INT32;
    int64_t f, iy, ix, oy, ox, sy = 1, sx = 1;
    Status st = axon_prec(c, "x1_precision", p->x1_prec, p->x1_allowed, &hx);
    if (st == ST_OK && p->mul == MUL_X2)
        hm = hx;   /* P03 reads x2 in x1's precision */
    if (st == ST_OK && p->mul == MUL_ALPHA)
        st = axon_prec(c, "x2_precision", p->x2_prec, AXON_P8, &hm);
    if (st == ST_OK)
        st = axon_dim(c, "nf", s->nf, true, &f);
    if (st == ST_OK && p->tensor_en) {
        st = axon_step(c, "stride_y", p->stride_y, &sy);
        if (st == ST_OK)
            st = axon_step(c, "stride_x", p->stride_x, &sx);
        if (st == ST_OK)
            st = axon_elem_extent(c, 'y', s->niy, s->ny, sy, &iy, &oy);
        if (st == ST_OK)
            st = axon_elem_extent(c, 'x', s->nix, s->nx, sx, &ix, &ox);
    } else if (st == ST_OK) {
        /* n_branch vectors [f] (absent: one). */
        const char *mode = "without tensor_en";
        iy = oy = 1;
        st = neutral(c, mode, "stride_y", p->stride_y, 1);
        if (st == ST_OK)
            st = neutral(c, mode, "stride_x", p->stride_x, 1);
        if (st == ST_OK)
            st = axon_dim(c, "n_branch", s->n_branch, false, &ix);
        ox = ix;
    }
    if (st != ST_OK)
        return st;
    int64_t fp = pad_channels(f, hx);
    for (int k = 0; k < 2 && st == ST_OK; k++)
        if (p->count_field[k])
            st = axon_count(c, p->count_field[k], p->count[k], f, fp);
    if (st != ST_OK)
        return st;
    int64_t x_elems = axon_mul(axon_mul(iy, ix), fp);
    int64_t m_elems = p->mul == MUL_X2 ? x_elems : p->mul == MUL_ALPHA ? fp : 0;
    int64_t o_words = axon_mul(axon_mul(oy, ox), fp);
    AxonArea in[2], out;
    int32_t *bias, *x, *m = NULL, *o;
    st = axon_area(c, "x1", a->has_x1_base_addr, a->x1_base_addr, a->has_x1_addr_length,
                   a->x1_addr_length, x_elems / asm_hw_per_word(hx), &in[0]);
    if (st == ST_OK && m_elems)
        st = axon_area(c, "x2", a->has_x2_base_addr, a->x2_base_addr, a->has_x2_addr_length,
                       a->x2_addr_length, m_elems / asm_hw_per_word(hm), &in[1]);
    if (st != ST_OK || (st = axon_bias(c, p->bias_type, p->constant_b, fp, &bias)) != ST_OK ||
        (st = axon_output(c, o_words, &out)) != ST_OK ||
        (st = axon_read(c, &in[0], hx, x_elems, &x)) != ST_OK ||
        (m_elems && (st = axon_read(c, &in[1], hm, m_elems, &m)) != ST_OK) ||
        (st = axon_alloc(c, o_words, &o)) != ST_OK)
        return st;
    for (int64_t y = 0; y < oy; y++)
        for (int64_t xo = 0; xo < ox; xo++) {
            int64_t at = (y * sy * ix + xo * sx) * fp;
            for (int64_t ch = 0; ch < fp; ch++) {
                int64_t mul = p->mul == MUL_X2 ? m[at + ch]
                              : p->mul == MUL_ALPHA ? m[ch] : p->constant_a;
                o[(y * ox + xo) * fp + ch] =
                    asm_clip((int64_t)bias[ch] + x[at + ch] * mul, INT32_MIN, INT32_MAX);
            }
        }
    axon_store(c->m, &out, o, o_words);
    return ST_OK;
}

Status exec_axon_p03(AxonCtx *c)
{
    const Taskir__Asm__P03 *p = c->a->p03;
    ElemParams e = {MUL_X2, p->tensor_en, p->x1_precision, p->x1_precision, p->bias_type,
                    AXON_P8, p->stride_x, p->stride_y, 0, p->constant_b,
                    {"bias_length", "nif"}, {p->bias_length, p->nif}};
    return elem_exec(c, &e);
}

Status exec_axon_p43(AxonCtx *c)
{
    const Taskir__Asm__P43 *p = c->a->p43;
    ElemParams e = {MUL_ALPHA, p->tensor_en, p->x1_precision, p->x2_precision, p->bias_type,
                    AXON_P8T, p->stride_x, p->stride_y, 0, p->constant_b,
                    {"bias_length", "x2_length"}, {p->bias_length, p->x2_length}};
    return elem_exec(c, &e);
}

Status exec_axon_p83(AxonCtx *c)
{
    const Taskir__Asm__P83 *p = c->a->p83;
    ElemParams e = {MUL_CONST, p->tensor_en, p->x1_precision, p->x1_precision, p->bias_type,
                    AXON_P8 | (1u << ASM_HW_INT32), p->stride_x, p->stride_y, p->constant_a, p->constant_b,
                    {"bias_length", NULL}, {p->bias_length, 0}};
    return elem_exec(c, &e);
}
