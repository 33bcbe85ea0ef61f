/* exec_soma_pool.c: P05 (window max from a floor) and P25 (window min to a ceiling), the
 * PX5 parameters (exec_soma.h; docs/backend.md, "P05 and P25").
 *
 * Every input element is narrowed first (shifted by 4^k when x1's hardware code is below the
 * output's, then clipped to the output's range), padding reads 0, the window's max (min) is
 * taken, then compared with compare_init: max(cmp, r) for P05, min(cmp, r) for P25.
 */
#include "backend/exec_soma.h"

/* The 32-bit compare word the list compare_init packs (as the existing tools do): no entry
 * 0; one entry the word; four entries one byte each, the first in the highest byte. */
static Status cmp_word(const SomaCtx *c, const Taskir__Asm__PX5 *p, uint32_t *w)
{
    *w = 0;
    if (p->n_compare_init == 1) {
        *w = (uint32_t)p->compare_init[0];
    } else if (p->n_compare_init == 4) {
        for (size_t i = 0; i < 4; i++)
            *w = (*w << 8) | ((uint32_t)p->compare_init[i] & 0xFFu);
    } else if (p->n_compare_init != 0) {
        return soma_bad(c, "compare_init has %zu entries, not 0, 1 or 4", p->n_compare_init);
    }
    return ST_OK;
}

/* The compare value of channel f: the word (INT_32 out) or its byte f % 4 (8-bit out). */
static int32_t cmp_lane(uint32_t w, int out, int64_t f)
{
    return soma_get(&w, out, f % (out == ASM_HW_INT32 ? 1 : 4));
}

/* The taps k in [*lo, *hi) of a window of nk taps from position start that fall inside
 * [0, n) (an empty range when none does). */
static void taps(int64_t start, int64_t nk, int64_t n, int64_t *lo, int64_t *hi)
{
    *lo = start < 0 ? -start : 0;
    *hi = n - start < nk ? n - start : nk;
    if (*hi < *lo)
        *hi = *lo;
}

Status soma_px5(SomaCtx *c, const Taskir__Asm__PX5 *p, bool min_mode)
{
    int x1, out;
    Status st = soma_precs(c, "x1_precision", p->x1_precision, "out_precision", p->out_precision,
                           &x1, &out);
    if (st)
        return st;
    const SomaLimit lim[] = {
        {"nif", p->nif, 1, SOMA_MAX_N},
        {"nof", p->nof, 1, p->nif},
        {"nix", p->nix, 1, SOMA_MAX_N},
        {"niy", p->niy, 1, SOMA_MAX_N},
        {"pad_top", p->pad_top, 0, SOMA_MAX_N},
        {"pad_down", p->pad_down, 0, SOMA_MAX_N},
        {"pad_left", p->pad_left, 0, SOMA_MAX_N},
        {"pad_right", p->pad_right, 0, SOMA_MAX_N},
        {"nkx", p->nkx, 1, (int64_t)p->nix + p->pad_left + p->pad_right},
        {"nky", p->nky, 1, (int64_t)p->niy + p->pad_top + p->pad_down},
        {"stride_x", p->stride_x, 1, SOMA_MAX_N},
        {"stride_y", p->stride_y, 1, SOMA_MAX_N},
        {"bit_shift_num", p->bit_shift_num, 0, 15},
    };
    uint32_t cw;
    if ((st = soma_limits(c, lim, SOMA_NLIM(lim))) || (st = cmp_word(c, p, &cw)))
        return st;
    int64_t ox_n = ((int64_t)p->nix + p->pad_left + p->pad_right - p->nkx) / p->stride_x + 1;
    int64_t oy_n = ((int64_t)p->niy + p->pad_top + p->pad_down - p->nky) / p->stride_y + 1;
    int64_t in_row = soma_row_words(x1, p->nif), out_row = soma_row_words(out, p->nof);
    SomaIn in;
    SomaOut o;
    if ((st = soma_in(c, "x1", p->x1_base_addr, p->x1_addr_length,
                      (int64_t)p->niy * p->nix * in_row, &in)) ||
        (st = soma_out(c, "o", p->o_base_addr, p->o_addr_length, oy_n * ox_n * out_row, &o)))
        return st;
    for (int64_t oy = 0; oy < oy_n; oy++)
        for (int64_t ox = 0; ox < ox_n; ox++) {
            /* The window's taps inside the image; any tap outside reads one padding 0. */
            int64_t y0 = oy * p->stride_y - p->pad_top, x0 = ox * p->stride_x - p->pad_left;
            int64_t kylo, kyhi, kxlo, kxhi;
            taps(y0, p->nky, p->niy, &kylo, &kyhi);
            taps(x0, p->nkx, p->nix, &kxlo, &kxhi);
            bool pad = kylo > 0 || kyhi < p->nky || kxlo > 0 || kxhi < p->nkx;
            uint32_t *ow = o.w + (oy * ox_n + ox) * out_row;
            for (int64_t f = 0; f < p->nof; f++) {
                bool any = pad;
                int32_t r = 0;
                for (int64_t ky = kylo; ky < kyhi; ky++)
                    for (int64_t kx = kxlo; kx < kxhi; kx++) {
                        const uint32_t *px = in.w + ((y0 + ky) * p->nix + x0 + kx) * in_row;
                        int32_t v = soma_narrow(soma_get(px, x1, f), x1, out, p->bit_shift_num);
                        if (!any || (min_mode ? v < r : v > r))
                            r = v;
                        any = true;
                    }
                int32_t cmp = cmp_lane(cw, out, f);
                if (min_mode ? cmp < r : cmp > r)
                    r = cmp;
                soma_set(ow, out, f, r);
            }
        }
    return soma_commit(c, &o);
}
