/* exact_soma.c: what P05 (CCMPB) and P25 (CCMPS) compute from a window's extreme, on the
 * chip and in the TaskGraph (exact.h), and whether two such computations agree over a range.
 *
 * The chip (CHIP.md §7, as BiMap's behaviour simulator models P05): with hardware precision
 * codes ci (input) and co (output), it narrows when co > ci; then, and only then, it shifts by
 * the Soma's steps (BIT_SHIFT_NUM rounded down to a whole number of steps, as a backend that
 * writes the step count would) and saturates to [-128, 127] ([-1, 1] for TERNARY); it then
 * compares with CMP (whole for INT_32 to INT_32, its low byte sign-extended for an INT_8 output
 * from INT_32 or INT_8, its low two bits for a TERNARY output or input, not at all otherwise)
 * and stores the low bits of the output precision. Shifting and saturating are monotone, so
 * taking them before or after the window's extreme gives the same value: both sides are
 * functions of the extreme m.
 *
 * Agreement: as functions of v = m >> s each side is, between the breakpoints below, the
 * identity, a constant, or v + 256; two such functions that agree at the ends of every piece
 * agree on it. So comparing them at every breakpoint, its neighbours and the range's ends
 * (each taken at both ends of its bucket of m) decides agreement exactly. */
#include "taskir/exact_internal.h"

static int64_t asr(int64_t v, int s)
{
    return v >= 0 ? v >> s : ~(~v >> s);
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

void exact_cmp_of(const Block *b, PrecisionId in, ExactCmp *k)
{
    int32_t s = blk_attr(b, AT_BIT_SHIFT_NUM);
    *k = (ExactCmp){b->type == BT_CCMPB, in, blk_prec(b), blk_attr(b, AT_CMP),
                    s < 0 ? 0 : s > 31 ? 31 : s, 0,
                    !b->shape.d[D_Y] && !b->shape.d[D_X] && !b->shape.d[D_IY] &&
                    !b->shape.d[D_IX]};
}

/* The clip bounds of the TaskGraph (docs/semantics.md 3.8, 3.9). */
static void graph_bounds(const ExactCmp *k, int64_t *lo, int64_t *hi)
{
    ExactRange p = exact_prec_range(k->out);
    if (k->one_d) {
        p.hi = p.hi > 127 ? 127 : p.hi;
        p.lo = p.lo < -128 ? -128 : p.lo;
    }
    *lo = k->big ? k->cmp : p.lo;
    *hi = k->big ? p.hi : k->cmp;
}

int64_t exact_graph_cmp(const ExactCmp *k, int64_t m)
{
    int64_t lo, hi, v = asr(m, k->shift);
    graph_bounds(k, &lo, &hi);
    if (k->big) { /* min(max(v, lo), hi): hi when lo > hi */
        v = v < lo ? lo : v;
        return v > hi ? hi : v;
    }
    v = v > hi ? hi : v;
    return v < lo ? lo : v;
}

/* Sign-extends the low bits of v. */
static int64_t sext(int64_t v, int bits)
{
    int64_t m = ((int64_t)1 << bits) - 1, u = v & m;
    return u >= ((int64_t)1 << (bits - 1)) ? u - m - 1 : u;
}

bool exact_chip_cmp(const Chip *c, const ExactCmp *k, int64_t m, int64_t *out)
{
    const ChipPrec *pi = chip_prec(c, k->in), *po = chip_prec(c, k->out);
    if (!pi || !po)
        return false;
    uint32_t ci = pi->code, co = po->code;
    bool tern = co == 3;
    int64_t v = m;
    if (co > ci) {
        int32_t s = k->shift, step = (int32_t)c->soma_shift_bits;
        v = clamp64(asr(v, step > 0 ? s - s % step : s), tern ? -1 : -128, tern ? 1 : 127);
    }
    bool has_cmp = true;
    int64_t r = k->cmp;
    if (co == 1 && ci <= 1)
        r = sext(k->cmp, 8);
    else if (co == 3 || (ci == 3 && co == 1))
        r = sext(k->cmp, 2);
    else if (ci != 0 || co != 0)
        has_cmp = false;
    if (has_cmp)
        v = k->big ? (v > r ? v : r) : (v < r ? v : r);
    switch (co) {
    case 1: v = sext(v, 8); break;
    case 2: v &= 0xff; break;
    case 3: v = sext(v, 2); break;
    default: v = clamp64(v, INT32_MIN, INT32_MAX); break;
    }
    *out = v;
    return true;
}

typedef struct Agree {
    const Chip *c;              /* NULL: the TaskGraph's value of k */
    const ExactCmp *ref, *k;
    int64_t *witness;
} Agree;

/* Do ref at m and k at m * 2^k->scale agree? */
static bool agrees_at(const Agree *a, int64_t m)
{
    int64_t g = exact_graph_cmp(a->ref, m), h, mk = exact_mul(m, (int64_t)1 << a->k->scale);
    if (!a->c)
        h = exact_graph_cmp(a->k, mk);
    else if (!exact_chip_cmp(a->c, a->k, mk, &h))
        return false;
    if (g != h && a->witness)
        *a->witness = m;
    return g == h;
}

/* Tests the extremes at and around the breakpoints of one side (shift s in m's units,
 * bounds lo, hi, comparison cmp) within r. */
static bool each_point(const Agree *a, int s, int64_t cmp, int64_t lo, int64_t hi,
                       ExactRange r)
{
    int64_t br[] = {-256, -129, -128, -2, -1, 0, 1, 2, 126, 127, 128, 255, 256,
                    cmp, sext(cmp, 8), sext(cmp, 2), lo, hi, asr(r.lo, s), asr(r.hi, s)};
    for (size_t i = 0; i < sizeof br / sizeof br[0]; i++)
        for (int64_t dv = -1; dv <= 1; dv++) {
            int64_t v = clamp64(br[i] + dv, -EXACT_INF / 4, EXACT_INF / 4);
            int64_t m0 = exact_mul(v, (int64_t)1 << s);
            int64_t m1 = exact_add(m0, ((int64_t)1 << s) - 1);
            if ((m0 >= r.lo && m0 <= r.hi && !agrees_at(a, m0)) ||
                (m1 >= r.lo && m1 <= r.hi && !agrees_at(a, m1)))
                return false;
        }
    return true;
}

bool exact_cmp_agrees(const Chip *c, const ExactCmp *ref, const ExactCmp *k, ExactRange m,
                      int64_t *witness)
{
    Agree a = {c, ref, k, witness};
    int64_t lo, hi, klo, khi;
    graph_bounds(ref, &lo, &hi);
    graph_bounds(k, &klo, &khi);
    int ks = k->shift - k->scale;
    return agrees_at(&a, m.lo) && agrees_at(&a, m.hi) &&
           each_point(&a, ref->shift, ref->cmp, lo, hi, m) &&
           each_point(&a, ks < 0 ? 0 : ks, k->cmp, klo, khi, m);
}
