/* exec_soma_lut.c: P07, table lookup (exec_soma.h; docs/backend.md, "P07").
 *
 * A table of 2^w entries (w = 4, 8, 12, 16 for lut_data_width 0..3) in x2's precision; the
 * index of an element x is floor(x / 4^k) clipped to the signed w-bit range, a negative index
 * counting from the end of the table. The output, in x2's precision, has group_num rows of
 * neuron_real_num elements padded to 4 elements when x1 and x2 are both INT_32, else to 16.
 */
#include "backend/exec_soma.h"

Status soma_p07(SomaCtx *c, const Taskir__Asm__P07 *p)
{
    int x1, x2;
    const SomaLimit lim[] = {
        {"neuron_real_num", p->neuron_real_num, 1, SOMA_MAX_N},
        {"group_num", p->group_num, 1, SOMA_MAX_N},
        {"lut_data_width", p->lut_data_width, 0, 3},
        {"bit_shift_num", p->bit_shift_num, 0, 15},
    };
    Status st = soma_precs(c, "x1_precision", p->x1_precision, "x2_precision", p->x2_precision,
                           &x1, &x2);
    if (st || (st = soma_limits(c, lim, SOMA_NLIM(lim))))
        return st;
    int64_t entries = (int64_t)1 << (4 * (p->lut_data_width + 1));
    int64_t n = p->neuron_real_num, in_w = soma_row_words(x1, n);
    int64_t in_e = in_w * asm_hw_per_word(x1);
    int64_t pad = x1 == ASM_HW_INT32 && x2 == ASM_HW_INT32 ? 4 : 16;
    int64_t out_e = (n + pad - 1) / pad * pad, out_w = out_e / asm_hw_per_word(x2);
    SomaIn in, lut;
    SomaOut o;
    if ((st = soma_in(c, "x1", p->x1_base_addr, p->x1_addr_length, p->group_num * in_w, &in)) ||
        (st = soma_in(c, "lut", p->lut_base_addr, p->lut_addr_length,
                      entries / asm_hw_per_word(x2), &lut)) ||
        (st = soma_out(c, "o", p->o_base_addr, p->o_addr_length, p->group_num * out_w, &o)))
        return st;
    int64_t n_e = in_e < out_e ? in_e : out_e;
    for (int64_t g = 0; g < p->group_num; g++)
        for (int64_t j = 0; j < n_e; j++) {
            int64_t idx = soma_shift(soma_get(in.w + g * in_w, x1, j), p->bit_shift_num);
            idx = asm_clip(idx, (int32_t)(-entries / 2), (int32_t)(entries / 2 - 1));
            if (idx < 0)
                idx += entries;
            soma_set(o.w + g * out_w, x2, j, soma_get(lut.w, x2, idx));
        }
    return soma_commit(c, &o);
}
