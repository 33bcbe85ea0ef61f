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

/* What P06 and P26 share: the precisions, the row counts and the words and elements of the
 * padded x1, out and ciso rows. The ciso rows are in x1's precision for P06 (an input), in
 * the output's for P26 (an output). */
typedef struct Move {
    int x1, out;
    int64_t num_in, num_out, num_ciso;
    int64_t in_w, in_e, out_w, out_e, ciso_w, ciso_e;
    bool has_ciso;
} Move;

/* The parameters of P06 and P26 that Move reads; MOVE_IN takes them from either message
 * (the two name them alike). */
typedef struct MoveIn {
    int x1p, outp;
    int32_t len_in, num_in, len_out, num_out, len_ciso, num_ciso, k;
} MoveIn;
#define MOVE_IN(p)                                                                         \
    ((MoveIn){(p)->x1_precision, (p)->out_precision, (p)->length_in, (p)->num_in,          \
              (p)->length_out, (p)->num_out, (p)->length_ciso, (p)->num_ciso, (p)->bit_shift_num})

/* Checks the shared parameters, then the primitive's own (more, n), and fills mv. */
static Status move_of(const SomaCtx *c, MoveIn a, const SomaLimit *more, size_t n, bool ciso_out,
                      Move *mv)
{
    const SomaLimit lim[] = {
        {"length_in", a.len_in, 1, SOMA_MAX_N},
        {"num_in", a.num_in, 1, SOMA_MAX_N},
        {"length_out", a.len_out, 1, SOMA_MAX_N},
        {"num_out", a.num_out, 1, SOMA_MAX_N},
        {"length_ciso", a.len_ciso, 0, SOMA_MAX_N},
        {"num_ciso", a.num_ciso, 0, SOMA_MAX_N},
        {"bit_shift_num", a.k, 0, 15},
    };
    Status st = soma_precs(c, "x1_precision", a.x1p, "out_precision", a.outp, &mv->x1, &mv->out);
    if (st || (st = soma_limits(c, lim, SOMA_NLIM(lim))) || (st = soma_limits(c, more, n)))
        return st;
    int cp = ciso_out ? mv->out : mv->x1;
    mv->num_in = a.num_in, mv->num_out = a.num_out, mv->num_ciso = a.num_ciso;
    mv->in_w = soma_row_words(mv->x1, a.len_in), mv->in_e = row_elems(mv->x1, a.len_in);
    mv->out_w = soma_row_words(mv->out, a.len_out), mv->out_e = row_elems(mv->out, a.len_out);
    mv->has_ciso = a.num_ciso > 0 && a.len_ciso > 0;
    mv->ciso_w = mv->has_ciso ? soma_row_words(cp, a.len_ciso) : 0;
    mv->ciso_e = mv->has_ciso ? row_elems(cp, a.len_ciso) : 0;
    return ST_OK;
}

Status soma_p06(SomaCtx *c, const Taskir__Asm__P06 *p)
{
    const SomaLimit own[] = {
        {"real_length_in_en", p->real_length_in_en, 0, 1},
        {"real_num_in", p->real_length_in_en ? p->real_num_in : 1, 1, p->num_in},
    };
    Move mv;
    Status st = move_of(c, MOVE_IN(p), own, SOMA_NLIM(own), false, &mv);
    if (st)
        return st;
    int64_t in_rows = p->real_length_in_en ? p->real_num_in : p->num_in;
    SomaIn in, ci = {NULL, 0};
    SomaOut o;
    if ((st = soma_in(c, "x1", p->x1_base_addr, p->x1_addr_length, in_rows * mv.in_w, &in)) ||
        (mv.has_ciso && (st = soma_in(c, "ciso", p->ciso_base_addr, p->ciso_addr_length,
                                      mv.num_ciso * mv.ciso_w, &ci))) ||
        (st = soma_out(c, "o", p->o_base_addr, p->o_addr_length, mv.num_out * mv.out_w, &o)))
        return st;
    int64_t n_e = min64(mv.in_e + mv.ciso_e, mv.out_e);
    for (int64_t i = 0; i < mv.num_out; i++)
        for (int64_t j = 0; j < n_e; j++) {
            int32_t v;
            if (j < mv.in_e && i < mv.num_in)
                v = soma_get(in.w + i % in_rows * mv.in_w, mv.x1, j);
            else if (j >= mv.in_e && i < mv.num_ciso)
                v = soma_get(ci.w + i * mv.ciso_w, mv.x1, j - mv.in_e);
            else
                continue;
            soma_set(o.w + i * mv.out_w, mv.out, j,
                     soma_narrow(v, mv.x1, mv.out, p->bit_shift_num));
        }
    return soma_commit(c, &o);
}

Status soma_p26(SomaCtx *c, const Taskir__Asm__P26 *p)
{
    const SomaLimit own[] = {{"out_ciso_sel", p->out_ciso_sel, 0, 1}};
    Move mv;
    Status st = move_of(c, MOVE_IN(p), own, SOMA_NLIM(own), true, &mv);
    if (st)
        return st;
    SomaIn in;
    SomaOut o, co = {NULL, 0, 0, false};
    if ((st = soma_in(c, "x1", p->x1_base_addr, p->x1_addr_length, mv.num_in * mv.in_w, &in)) ||
        (st = soma_out(c, "o", p->o_base_addr, p->o_addr_length, mv.num_out * mv.out_w, &o)))
        return st;
    if (mv.has_ciso && (st = soma_out(c, "ciso", p->ciso_base_addr, p->ciso_addr_length,
                                      mv.num_ciso * mv.ciso_w, &co))) {
        soma_out_free(&o);
        return st;
    }
    if ((o.stream && p->out_ciso_sel != 0) || (co.stream && p->out_ciso_sel != 1)) {
        soma_out_free(&o);
        soma_out_free(&co);
        return soma_bad(c, "out_ciso_sel is %d, but the %s area is the Router's stream",
                        (int)p->out_ciso_sel, o.stream ? "o" : "ciso");
    }
    int64_t n_e = min64(mv.in_e, mv.out_e + mv.ciso_e);
    for (int64_t i = 0; i < mv.num_in; i++)
        for (int64_t j = 0; j < n_e; j++) {
            bool to_o = j < mv.out_e;
            if (i >= (to_o ? mv.num_out : mv.num_ciso))
                continue;
            int32_t v = soma_narrow(soma_get(in.w + i * mv.in_w, mv.x1, j), mv.x1, mv.out,
                                    p->bit_shift_num);
            if (to_o)
                soma_set(o.w + i * mv.out_w, mv.out, j, v);
            else
                soma_set(co.w + i * mv.ciso_w, mv.out, j - mv.out_e, v);
        }
    st = soma_commit(c, &o);
    if (st) {
        soma_out_free(&co);
        return st;
    }
    return mv.has_ciso ? soma_commit(c, &co) : ST_OK;
}
