/* exec_soma_move.c: P06 (move, requantize, merge: out row i = x1 row i followed by ciso row
 * i) and P26 (split: x1 row i into out row i and ciso row i, one of them possibly streamed
 * to the Router). exec_soma.h; docs/backend.md, "P06 and P26".
 *
 * Rows are padded to 16 bytes; a merge or a split cuts a row at the padded length of its
 * first part, so the padding lanes of that part travel with it. Every element is narrowed
 * (soma_narrow) from x1's precision to the output's.
 */
#include "backend/exec_soma.h"

/* Elements of a padded row of n elements of precision hw. */
static int64_t row_elems(int hw, int64_t n)
{
    return soma_row_words(hw, n) * asm_hw_per_word(hw);
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

Status soma_p06(SomaCtx *c, const Taskir__Asm__P06 *p)
{
    int x1, out;
    Status st = soma_prec(c, "x1_precision", p->x1_precision, &x1);
    if (st || (st = soma_prec(c, "out_precision", p->out_precision, &out)))
        return st;
    const SomaLimit lim[] = {
        {"length_in", p->length_in, 1, SOMA_MAX_N},
        {"num_in", p->num_in, 1, SOMA_MAX_N},
        {"length_out", p->length_out, 1, SOMA_MAX_N},
        {"num_out", p->num_out, 1, SOMA_MAX_N},
        {"length_ciso", p->length_ciso, 0, SOMA_MAX_N},
        {"num_ciso", p->num_ciso, 0, SOMA_MAX_N},
        {"bit_shift_num", p->bit_shift_num, 0, 15},
        {"real_length_in_en", p->real_length_in_en, 0, 1},
        {"real_num_in", p->real_length_in_en ? p->real_num_in : 1, 1, p->num_in},
    };
    if ((st = soma_limits(c, lim, SOMA_NLIM(lim))))
        return st;
    int64_t in_rows = p->real_length_in_en ? p->real_num_in : p->num_in;
    int64_t in_w = soma_row_words(x1, p->length_in), out_w = soma_row_words(out, p->length_out);
    int64_t in_e = row_elems(x1, p->length_in), out_e = row_elems(out, p->length_out);
    bool has_ciso = p->num_ciso > 0 && p->length_ciso > 0;
    int64_t ciso_w = has_ciso ? soma_row_words(x1, p->length_ciso) : 0;
    int64_t ciso_e = has_ciso ? row_elems(x1, p->length_ciso) : 0;
    SomaIn in, ci = {NULL, 0};
    SomaOut o;
    if ((st = soma_in(c, "x1", p->x1_base_addr, p->x1_addr_length, in_rows * in_w, &in)) ||
        (has_ciso && (st = soma_in(c, "ciso", p->ciso_base_addr, p->ciso_addr_length,
                                   p->num_ciso * ciso_w, &ci))) ||
        (st = soma_out(c, "o", p->o_base_addr, p->o_addr_length, p->num_out * out_w, &o)))
        return st;
    int64_t n_e = min64(in_e + ciso_e, out_e);
    for (int64_t i = 0; i < p->num_out; i++)
        for (int64_t j = 0; j < n_e; j++) {
            int32_t v;
            if (j < in_e && i < p->num_in)
                v = soma_get(in.w + i % in_rows * in_w, x1, j);
            else if (j >= in_e && i < p->num_ciso)
                v = soma_get(ci.w + i * ciso_w, x1, j - in_e);
            else
                continue;
            soma_set(o.w + i * out_w, out, j, soma_narrow(v, x1, out, p->bit_shift_num));
        }
    return soma_commit(c, &o);
}

Status soma_p26(SomaCtx *c, const Taskir__Asm__P26 *p)
{
    int x1, out;
    Status st = soma_prec(c, "x1_precision", p->x1_precision, &x1);
    if (st || (st = soma_prec(c, "out_precision", p->out_precision, &out)))
        return st;
    const SomaLimit lim[] = {
        {"length_in", p->length_in, 1, SOMA_MAX_N},
        {"num_in", p->num_in, 1, SOMA_MAX_N},
        {"length_out", p->length_out, 1, SOMA_MAX_N},
        {"num_out", p->num_out, 1, SOMA_MAX_N},
        {"length_ciso", p->length_ciso, 0, SOMA_MAX_N},
        {"num_ciso", p->num_ciso, 0, SOMA_MAX_N},
        {"bit_shift_num", p->bit_shift_num, 0, 15},
        {"out_ciso_sel", p->out_ciso_sel, 0, 1},
    };
    if ((st = soma_limits(c, lim, SOMA_NLIM(lim))))
        return st;
    int64_t in_w = soma_row_words(x1, p->length_in), out_w = soma_row_words(out, p->length_out);
    int64_t in_e = row_elems(x1, p->length_in), out_e = row_elems(out, p->length_out);
    bool has_ciso = p->num_ciso > 0 && p->length_ciso > 0;
    int64_t ciso_w = has_ciso ? soma_row_words(out, p->length_ciso) : 0;
    int64_t ciso_e = has_ciso ? row_elems(out, p->length_ciso) : 0;
    SomaIn in;
    SomaOut o, co = {NULL, 0, 0, false};
    if ((st = soma_in(c, "x1", p->x1_base_addr, p->x1_addr_length, p->num_in * in_w, &in)) ||
        (st = soma_out(c, "o", p->o_base_addr, p->o_addr_length, p->num_out * out_w, &o)))
        return st;
    if (has_ciso && (st = soma_out(c, "ciso", p->ciso_base_addr, p->ciso_addr_length,
                                   p->num_ciso * ciso_w, &co))) {
        soma_out_free(&o);
        return st;
    }
    if ((o.stream && p->out_ciso_sel != 0) || (co.stream && p->out_ciso_sel != 1)) {
        soma_out_free(&o);
        soma_out_free(&co);
        return soma_bad(c, "out_ciso_sel is %d, but the %s area is the Router's stream",
                        (int)p->out_ciso_sel, o.stream ? "o" : "ciso");
    }
    int64_t n_e = min64(in_e, out_e + ciso_e);
    for (int64_t i = 0; i < p->num_in; i++)
        for (int64_t j = 0; j < n_e; j++) {
            SomaOut *t = j < out_e ? &o : &co;
            int64_t rows = j < out_e ? p->num_out : p->num_ciso;
            if (i >= rows)
                continue;
            int32_t v = soma_narrow(soma_get(in.w + i * in_w, x1, j), x1, out, p->bit_shift_num);
            if (j < out_e)
                soma_set(t->w + i * out_w, out, j, v);
            else
                soma_set(t->w + i * ciso_w, out, j - out_e, v);
        }
    st = soma_commit(c, &o);
    if (st) {
        soma_out_free(&co);
        return st;
    }
    return has_ciso ? soma_commit(c, &co) : ST_OK;
}
