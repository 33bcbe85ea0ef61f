/* exec_axon_mv.c: P04 (CVM), the vector-matrix product out[f] = bias[f] + sum over r of
 * x[r] * w[r][f], saturating to int32 after every multiply-accumulate. The input vector is
 * padded to 16 (8-bit) or 64 (ternary) elements; the weights come in groups of 32 output
 * channels (8-bit) or 128 (ternary), [groups][r][lanes], and the output has every channel of
 * every group (docs/backend.md, "The executor: Axon primitives").
 */
#include "backend/exec_axon_internal.h"


Status exec_axon_p04(AxonCtx *c)
{
    const Taskir__Asm__AxonPrim *a = c->a;
    const Taskir__Asm__P04 *p = a->p04;
    const Taskir__Shape *s = axon_shape(c);
    int hx, hw;
    int64_t r, f;
    Status st = axon_prec(c, "x1_precision", p->x1_precision, AXON_P8T, &hx);
    if (st == ST_OK)
        st = axon_prec(c, "x2_precision", p->x2_precision, AXON_P8T, &hw);
    if (st == ST_OK)
        st = axon_dim(c, "nr", s->nr, true, &r);
    if (st == ST_OK)
        st = axon_dim(c, "nf", s->nf, true, &f);
    if (st != ST_OK)
        return st;
    int64_t rp = axon_round_up(r, hx == ASM_HW_TERNARY ? 64 : 16);
    int64_t lanes = hw == ASM_HW_TERNARY ? 128 : 32;
    int64_t groups = (f + lanes - 1) / lanes, fp = groups * lanes;
    int64_t w_elems = axon_mul(axon_mul(groups, r), lanes);
    AxonArea in[2], out;
    int32_t *bias, *x, *w, *o;
    if ((st = axon_area(c, "x1", a->has_x1_base_addr, a->x1_base_addr, a->has_x1_addr_length,
                        a->x1_addr_length, rp / asm_hw_per_word(hx), &in[0])) != ST_OK ||
        (st = axon_area(c, "x2", a->has_x2_base_addr, a->x2_base_addr, a->has_x2_addr_length,
                        a->x2_addr_length, w_elems / asm_hw_per_word(hw), &in[1])) != ST_OK ||
        (st = axon_bias(c, p->bias_type, p->constant_b, fp, &bias)) !=
            ST_OK ||
        (st = axon_output(c, fp, &out)) != ST_OK ||
        (st = axon_read(c, &in[0], hx, rp, &x)) != ST_OK ||
        (st = axon_read(c, &in[1], hw, w_elems, &w)) != ST_OK ||
        (st = axon_alloc(c, fp, &o)) != ST_OK)
        return st;
    bool sat = axon_may_saturate(bias, fp, x, rp, w, w_elems, r);
    for (int64_t ch = 0; ch < fp; ch++)
        o[ch] = bias[ch];
    for (int64_t g = 0; g < groups; g++)
        for (int64_t k = 0; k < r; k++) {
            const int32_t *wr = w + (g * r + k) * lanes;
            int32_t *acc = o + g * lanes;
            if (x[k] == 0)
                continue;   /* adds 0 to every lane */
            if (sat)
                for (int64_t l = 0; l < lanes; l++)
                    acc[l] = asm_sat_add32(acc[l], x[k] * wr[l]);
            else
                for (int64_t l = 0; l < lanes; l++)
                    acc[l] += x[k] * wr[l];   /* cannot leave int32 (axon_may_saturate) */
        }
    axon_store(c->m, &out, o, fp);
    return ST_OK;
}
