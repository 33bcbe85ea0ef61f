/* onnx_map_pool.c: AveragePool and GlobalAveragePool on float tensors of integers, and the
 * exact floor division by constants they need (onnx_floor_div_const).
 *
 * The chip computes integers, so an average compiles only when a Floor follows: the pool
 * gives floor(sum / n) where n is the number of elements its window averages. Every area
 * works, and so do windows of different areas (count_include_pad = 0 with pads, ceil_mode):
 * n is then a constant per output position.
 *
 * The result is a pending division (OV_DIV: floor(e / 2^s) is the quotient), which only
 * Floor may read (it shifts e); a pool that no Floor reads is refused by its reader or at
 * the graph output [onnx.float.avg]. An area of 2^s is the window sum itself, shifted by s.
 *
 * ---- floor(v / d) for a constant d, |v| <= B (proofs; every constant fixed at compile time)
 *
 * cvm_right_shift(X, k) = floor((X + 2^(k-1)) / 2^k) (docs/lowering.md section 4).
 *
 * Direct form, for v in [lo, hi]. M = ceil(2^k / d), e = M d - 2^k (0 <= e < d),
 * c = ceil(-lo / d) (0 when lo >= 0), v' = v + c d in [0, Y], Y = hi + c d.
 * Write v' = q d + r, 0 <= r < d: then
 *     M v' / 2^k = v' / d + v' e / (d 2^k) = q + (r 2^k + v' e) / (d 2^k),
 * and r 2^k + v' e <= (d - 1) 2^k + Y e < d 2^k when Y e < 2^k, so floor(M v' / 2^k) = q.
 * As M c d = c 2^k + c e: floor(v / d) = q - c = floor((M v + c e) / 2^k). The CVM form is
 * X = M v + c e (broadcast_mul, broadcast_add) and the shift: cvm_right_shift(X - 2^(k-1),
 * k) (the constant folds into one add), or, as the pending result, (X, k) for Floor. The
 * precisions (CVM's own rules: a product has P(v) + P(M), an add one more bit) must stay
 * within 32, and Y e < 2^k: the smallest k for which both hold is taken.
 *
 * Reduction, when no direct form fits (|v| large). q1 = cvm_right_shift(M1 v, k1) with
 * M1 = round(2^k1 / d) as large as the precision allows, D = d M1 - 2^k1, h = 2^(k1-1):
 * q1 is in (X'/2^k1 - 1, X'/2^k1] for X' = M1 v + h, so r = v - d q1 satisfies
 *     (-D v - d h) / 2^k1 <= r < (-D v - d h) / 2^k1 + d,
 * bounded over v in [lo, hi] at its ends. Then floor(v / d) = q1 + floor(r / d) exactly
 * (v = d q1 + r), and r, clipped to its proven precision (a cvm_clip that changes no
 * value), has a far smaller range: the same construction divides it, until a direct form
 * fits. Each stage must shrink the range, at most 6 stages.
 *
 * Per-position divisors use the same k for all: M, the additive constants and d become
 * constant tensors of the pattern's shape (broadcast over batch and channels); every
 * condition above is checked for each distinct d.
 *
 * A quotient computed completely (after a reduction) is handed to Floor as (2q, 1).
 * Float32 arithmetic in ONNX: the mean sum / n rounds to float32; floor of it equals
 * floor(sum / n) while |sum| < 2^24 (docs/onnx.md, section 5).
 */
#include "frontend/onnx/onnx_nn.h"

#include <stdlib.h>
#include <string.h>

#define FD_MAX_STAGES 6
#define FD_MAX_DIVISOR ((int64_t)1 << 24)

/* The precision of a constant of magnitude m (CVM: bits + 1). */
static int32_t prec_of(int64_t m)
{
    uint64_t u = m < 0 ? (uint64_t)0 - (uint64_t)m : (uint64_t)m;
    int32_t b = 0;
    while (u) {
        b++;
        u >>= 1;
    }
    return b + 1;
}

static int64_t fl_div(int64_t a, int64_t b)   /* b > 0 */
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

static int64_t ce_div(int64_t a, int64_t b)   /* b > 0 */
{
    return -fl_div(-a, b);
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int64_t mag(int64_t lo, int64_t hi)
{
    return max64(lo < 0 ? -lo : lo, hi < 0 ? -hi : hi);
}

typedef struct Fd {
    OnnxCtx *c;
    OgShape ps;             /* pattern shape (ndim 0: one divisor) */
    int64_t npos;
    int32_t *which;         /* [npos]: index of the position's divisor in u */
    int64_t *u;             /* the distinct divisors */
    int nu;
    int64_t dmin, dmax;
    int64_t *M, *B;         /* [nu] scratch */
    const char *what;
    int64_t bound;
    int stages;
} Fd;

/* A constant over the pattern from per-divisor values (a scalar when they are all equal). */
static Status fd_const(Fd *f, const char *what, const int64_t *val, OgEdge *out)
{
    bool same = true;
    for (int i = 1; i < f->nu; i++)
        same = same && val[i] == val[0];
    if (same || f->ps.ndim == 0) {
        OgShape one = {1, {1}};
        int32_t v = (int32_t)val[0];
        return onnx_const_i32(f->c, what, &one, &v, out);
    }
    int32_t *t = malloc((size_t)f->npos * sizeof *t);
    if (!t)
        return onnx_oom(f->c);
    for (int64_t p = 0; p < f->npos; p++)
        t[p] = (int32_t)val[f->which[p]];
    Status st = onnx_const_i32(f->c, what, &f->ps, t, out);
    free(t);
    return st;
}

static bool all_equal(const Fd *f, const int64_t *val, int64_t x)
{
    for (int i = 0; i < f->nu; i++)
        if (val[i] != x)
            return false;
    return true;
}

static Status fd_refuse(Fd *f, int32_t pv)
{
    return onnx_fail(f->c, "onnx.float.avg", "%s: floor(x / %lld) for |x| <= %lld (precision "
                     "%d) has no exact form whose every step stays within int32: the values "
                     "are too wide for this divisor", f->what, (long long)f->dmax,
                     (long long)f->bound, (int)pv);
}

/* The direct form for v in [lo, hi] with shift k: fills f->M, f->B (the additive constant:
 * c e, minus 2^(k-1) unless pending); false when it is not exact, or when a step leaves 32
 * bits or the shift's input leaves maxp bits (31: the lowering's one-block shift). */
static bool direct_fits(Fd *f, int64_t lo, int64_t hi, int32_t pv, int k, bool pending,
                        int32_t maxp)
{
    int64_t p2 = (int64_t)1 << k, mM = 0, mB = 0;
    for (int i = 0; i < f->nu; i++) {
        int64_t d = f->u[i], m = ce_div(p2, d), e = m * d - p2;
        int64_t cc = lo < 0 ? ce_div(-lo, d) : 0, Y = hi + cc * d;
        if (e && Y > 0 && Y * e >= p2)    /* Y < 2^33, e < 2^24 */
            return false;
        f->M[i] = m;
        f->B[i] = cc * e - (pending ? 0 : p2 / 2);
        mM = max64(mM, m);
        mB = max64(mB, f->B[i] < 0 ? -f->B[i] : f->B[i]);
    }
    int32_t pm = pv + prec_of(mM);
    if (pm > 32)
        return false;
    int32_t pa = mB ? (pm > prec_of(mB) ? pm : prec_of(mB)) + 1 : pm;
    if (pending)    /* Floor adds -2^(k-1), then shifts */
        pa = (pa > prec_of(p2 / 2) ? pa : prec_of(p2 / 2)) + 1;
    return pa <= maxp;
}

/* A direct form for [lo, hi] at precision pv exists (non-pending). */
static bool direct_exists(Fd *f, int64_t lo, int64_t hi, int32_t pv)
{
    for (int k = 1; k <= 32; k++)
        if (direct_fits(f, lo, hi, pv, k, false, 32))
            return true;
    return false;
}

/* v times the per-divisor constants val (no block when they are all 1). */
static Status fd_mul(Fd *f, OgEdge v, const int64_t *val, const char *what, OgEdge *out)
{
    if (all_equal(f, val, 1)) {
        *out = v;
        return ST_OK;
    }
    OgEdge k;
    Status st = fd_const(f, what, val, &k);
    if (st == ST_OK)
        st = onnx_cvm(f->c, CVM_OP_broadcast_mul, what, (OgEdge[]){v, k}, 2, NULL, out);
    return st;
}

static Status fd_add(Fd *f, OgEdge v, const int64_t *val, const char *what, OgEdge *out)
{
    if (all_equal(f, val, 0)) {
        *out = v;
        return ST_OK;
    }
    OgEdge k;
    Status st = fd_const(f, what, val, &k);
    if (st == ST_OK)
        st = onnx_cvm(f->c, CVM_OP_broadcast_add, what, (OgEdge[]){v, k}, 2, NULL, out);
    return st;
}

/* The precision given to a result of magnitude at most m (at least 2). */
static int32_t res_prec(int64_t m)
{
    int32_t p = prec_of(m);
    return p < 2 ? 2 : p;
}

/* The precision that holds cvm_right_shift(X, k) for every X of precision pin: with it the
 * shift's clip bounds nothing and the lowering emits no clip block (docs/lowering.md 4). */
static int32_t shift_prec(int32_t pin, int k)
{
    int64_t a = og_prec_alpha(pin), h = (int64_t)1 << (k - 1);
    return res_prec(mag(fl_div(-a + h, 2 * h), fl_div(a + h, 2 * h)));
}

/* The clip precisions the lowering does in one block (an upper bound of its own). */
static int32_t nice_prec(int32_t p)
{
    static const int32_t nice[] = {2, 5, 8, 9, 16, 17, 28, 32};
    for (size_t i = 0; i < sizeof nice / sizeof *nice; i++)
        if (nice[i] >= p)
            return nice[i];
    return p;
}

static Status fd_rshift(Fd *f, OgEdge x, int k, int32_t p, OgEdge *out)
{
    char sb[16], pb[16];
    snprintf(sb, sizeof sb, "%d", k);
    snprintf(pb, sizeof pb, "%d", (int)p);
    return onnx_cvm(f->c, CVM_OP_cvm_right_shift, "div", &x, 1,
                    (const char *const[]){"precision", pb, "shift_bit", sb, NULL}, out);
}

/* cvm_clip(v) to precision p when that is tighter than v's (a statement of a proven bound:
 * no value changes). */
static Status fd_tighten(Fd *f, OgEdge v, int32_t p, OgEdge *out)
{
    if (p >= og_edge_prec(f->c->g, v)) {
        *out = v;
        return ST_OK;
    }
    char pb[16];
    snprintf(pb, sizeof pb, "%d", (int)p);
    return onnx_cvm(f->c, CVM_OP_cvm_clip, "bound", &v, 1,
                    (const char *const[]){"precision", pb, NULL}, out);
}

/* floor(v / d) for v in [lo, hi]: *s = 0 and *e the quotient, or (pending_ok) *e with
 * floor(*e / 2^*s) the quotient. */
static Status fd_stage(Fd *f, OgEdge v, int64_t lo, int64_t hi, bool pending_ok, OgEdge *e,
                       int *s)
{
    OnnxCtx *c = f->c;
    int32_t pv = og_edge_prec(c->g, v);
    *s = 0;
    for (int32_t maxp = 31; maxp <= 32; maxp++)
        for (int pend = pending_ok ? 1 : 0; pend >= 0; pend--)
            for (int k = 1; k <= 32; k++) {
                if (!direct_fits(f, lo, hi, pv, k, pend, maxp))
                    continue;
                OgEdge x;
                Status st = fd_mul(f, v, f->M, "mul", &x);
                if (st == ST_OK)
                    st = fd_add(f, x, f->B, "add", &x);
                if (st != ST_OK)
                    return st;
                if (pend) {
                    *e = x;
                    *s = k;
                    return ST_OK;
                }
                int64_t qm = 0;
                for (int i = 0; i < f->nu; i++)
                    qm = max64(qm, mag(fl_div(lo, f->u[i]), fl_div(hi, f->u[i])));
                int32_t p = shift_prec(og_edge_prec(c->g, x), k);
                return fd_rshift(f, x, k, p > res_prec(qm) ? p : res_prec(qm), e);
            }
    /* the reduction: q1 = round(M1 v / 2^k1) ~ v / d, r = v - d q1 */
    if (++f->stages > FD_MAX_STAGES || pv > 31)
        return fd_refuse(f, pv);
    int k1 = 0;
    for (int32_t maxp = 31; maxp <= 32 && k1 == 0; maxp++)
        for (k1 = 32; k1 >= 1; k1--) {
            int64_t p2 = (int64_t)1 << k1, mM = 0, mm = INT64_MAX;
            for (int i = 0; i < f->nu; i++) {
                f->M[i] = fl_div(p2 + f->u[i] / 2, f->u[i]);
                mM = max64(mM, f->M[i]);
                mm = f->M[i] < mm ? f->M[i] : mm;
            }
            if (mm >= 1 && pv + prec_of(mM) <= maxp)
                break;
        }
    if (k1 < 1)
        return fd_refuse(f, pv);
    int64_t p2 = (int64_t)1 << k1, h = p2 / 2, qm = 0, rlo = INT64_MAX, rhi = INT64_MIN;
    int64_t nqm = 0, mM = 0;
    for (int i = 0; i < f->nu; i++) {
        int64_t d = f->u[i], M1 = f->M[i], D = d * M1 - p2;
        int64_t qa = fl_div(M1 * lo + h, p2), qb = fl_div(M1 * hi + h, p2);
        mM = max64(mM, M1);
        qm = max64(qm, mag(qa, qb));
        nqm = max64(nqm, d * mag(qa, qb));
        int64_t t1 = -D * lo, t2 = -D * hi;
        int64_t tmin = t1 < t2 ? t1 : t2, tmax = t1 < t2 ? t2 : t1;
        int64_t a = ce_div(tmin - d * h, p2), b = ce_div(tmax - d * h, p2) + d - 1;
        rlo = a < rlo ? a : rlo;
        rhi = b > rhi ? b : rhi;
    }
    if (mag(rlo, rhi) >= mag(lo, hi))
        return fd_refuse(f, pv);
    /* q1's precision: one whose shift needs no clip, unless the product with d then leaves
     * 32 bits */
    int32_t pd = prec_of(f->dmax), pq = shift_prec(pv + prec_of(mM), k1);
    pq = pq > res_prec(qm) ? pq : res_prec(qm);
    if ((pv > pq + pd ? pv : pq + pd) + 1 > 32)
        pq = res_prec(qm);
    if (pq + pd > 32)
        return fd_refuse(f, pv);
    OgEdge x, q1, nq, r, fr;
    int s2;
    Status st = fd_mul(f, v, f->M, "approx", &x);
    if (st == ST_OK)
        st = fd_rshift(f, x, k1, pq, &q1);
    for (int i = 0; i < f->nu; i++)
        f->B[i] = -f->u[i];
    if (st == ST_OK)   /* r = v + q1 (-d) */
        st = fd_mul(f, q1, f->B, "times", &nq);
    if (st == ST_OK && (og_edge_prec(c->g, nq) > pv ? og_edge_prec(c->g, nq) : pv) + 1 > 32)
        st = fd_tighten(f, nq, res_prec(nqm), &nq);
    if (st != ST_OK)
        return st;
    if ((og_edge_prec(c->g, nq) > pv ? og_edge_prec(c->g, nq) : pv) + 1 > 32)
        return fd_refuse(f, pv);
    st = onnx_cvm(c, CVM_OP_broadcast_add, "rem", (OgEdge[]){v, nq}, 2, NULL, &r);
    /* r's proven bound, at a precision the lowering clips in one block when the next stage
     * still fits there */
    int32_t pr = res_prec(mag(rlo, rhi));
    if (nice_prec(pr) != pr && direct_exists(f, rlo, rhi, nice_prec(pr)))
        pr = nice_prec(pr);
    if (st == ST_OK)
        st = fd_tighten(f, r, pr, &r);
    if (st == ST_OK)
        st = fd_stage(f, r, rlo, rhi, false, &fr, &s2);
    if (st == ST_OK)
        st = onnx_cvm(c, CVM_OP_broadcast_add, "quot", (OgEdge[]){q1, fr}, 2, NULL, e);
    return st;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

Status onnx_floor_div_const(OnnxCtx *c, OgEdge v, int64_t bound, const OgShape *ps,
                            const int64_t *d, const char *what, OgEdge *e, int *s)
{
    Fd f;
    memset(&f, 0, sizeof f);
    f.c = c;
    f.ps = *ps;
    f.npos = ps->ndim ? og_shape_volume(ps) : 1;
    f.what = what;
    f.bound = bound;
    size_t n = (size_t)f.npos;
    f.u = malloc(n * sizeof *f.u);
    f.which = malloc(n * sizeof *f.which);
    f.M = malloc(n * sizeof *f.M);
    f.B = malloc(n * sizeof *f.B);
    Status st = ST_OK;
    if (!f.u || !f.which || !f.M || !f.B)
        st = onnx_oom(c);
    for (int64_t p = 0; st == ST_OK && p < f.npos; p++)
        if (d[p] < 1 || d[p] > FD_MAX_DIVISOR)
            st = onnx_fail(c, "onnx.float.avg", "%s: a divisor of %lld is out of range "
                           "(1 .. 2^24)", what, (long long)d[p]);
    if (st == ST_OK) {
        memcpy(f.u, d, n * sizeof *f.u);
        qsort(f.u, n, sizeof *f.u, cmp_i64);
        for (size_t i = 0; i < n; i++)
            if (i == 0 || f.u[i] != f.u[f.nu - 1])
                f.u[f.nu++] = f.u[i];
        f.dmin = f.u[0];
        f.dmax = f.u[f.nu - 1];
        for (int64_t p = 0; p < f.npos; p++) {
            int lo = 0, hi = f.nu - 1;   /* binary search in the sorted distinct values */
            while (lo < hi) {
                int mid = (lo + hi) / 2;
                if (f.u[mid] < d[p])
                    lo = mid + 1;
                else
                    hi = mid;
            }
            f.which[p] = lo;
        }
    }
    int sh = 0;
    while (st == ST_OK && sh < 25 && ((int64_t)1 << sh) < f.dmax)
        sh++;
    if (st == ST_OK && f.nu == 1 && ((int64_t)1 << sh) == f.dmax && sh >= 1) {
        *e = v;      /* floor(v / 2^s): Floor shifts */
        *s = sh;
    } else if (st == ST_OK) {
        st = fd_stage(&f, v, -bound, bound, true, e, s);
        if (st == ST_OK && *s == 0) {    /* the quotient: Floor halves 2q */
            st = onnx_shl(c, *e, 1, e);
            *s = 1;
        }
    }
    free(f.u);
    free(f.which);
    free(f.M);
    free(f.B);
    return st;
}

/* ---- the pools ---- */

/* Output 0 as floor(e / 2^s) pending (Floor completes it); s = 0: e itself. */
static Status out_pending(OnnxCtx *c, OgEdge e, int s)
{
    if (s == 0)
        return onnx_out_run(c, 0, e, ONNX_T_FLOAT);
    Status st;
    OnnxVal *o = onnx_out_val(c, 0, &st);
    if (!o)
        return st;
    o->kind = OV_DIV;
    o->type = ONNX_T_FLOAT;
    o->e = e;
    o->shape = *og_edge_shape(c->g, e);
    o->shift = s;
    o->avg = true;
    return ST_OK;
}

/* The bound of a sum of at most area elements of x, and of its edge y. */
static int64_t sum_bound(OnnxCtx *c, OgEdge x, OgEdge y, int64_t area)
{
    int64_t ax = og_prec_alpha(og_edge_prec(c->g, x));
    int64_t ay = og_prec_alpha(og_edge_prec(c->g, y));
    return ax > 0 && area <= ay / ax ? area * ax : ay;
}

/* Divides the sums y by the divisors d (pattern ps) and sets the node's output. */
static Status average(OnnxCtx *c, OgEdge x, OgEdge y, int64_t area, const OgShape *ps,
                      const int64_t *d)
{
    int64_t n = ps->ndim ? og_shape_volume(ps) : 1;
    bool ones = true;
    for (int64_t p = 0; p < n; p++)
        ones = ones && d[p] == 1;
    if (ones)    /* windows of one element: the values themselves */
        return onnx_out_run(c, 0, y, ONNX_T_FLOAT);
    OgEdge e;
    int s;
    Status st = onnx_floor_div_const(c, y, sum_bound(c, x, y, area), ps, d, "the average", &e,
                                     &s);
    if (st != ST_OK)
        return st;
    return out_pending(c, e, s);
}

/* Window sums of a 4-D tensor along the dims a where K[a] > 1, as reductions: x is padded
 * with zeros (pb before, pe after: concatenated constants), the K taps of every window are
 * gathered along a new last axis (data movement: edges, no block; each tap is a strided
 * slice), and CVM sum reduces that axis (one CAVG). One gather over both dims when nothing
 * is padded; else one dim at a time (W, then H), so that in every tap the padding depends
 * on one axis alone and the edges stay few. */
static Status slice_sum(OnnxCtx *c, OgEdge x, const int64_t K[2], const int64_t S[2],
                        const int64_t pb[2], const int64_t pe[2], const int64_t OUT[2],
                        OgEdge *out)
{
    bool padded = pb[0] || pb[1] || pe[0] || pe[1];
    Status st = ST_OK;
    for (int pass = padded ? 1 : 0; pass >= 0 && st == ST_OK; pass--) {
        /* pass 1: W alone; pass 0: H (and W unless done) */
        bool dh = pass == 0, dw = pass == 1 || !padded;
        int64_t k[2] = {dh ? K[0] : 1, dw ? K[1] : 1}, s[2] = {dh ? S[0] : 1, dw ? S[1] : 1};
        int64_t b[2] = {dh ? pb[0] : 0, dw ? pb[1] : 0};
        int64_t e[2] = {dh ? pe[0] : 0, dw ? pe[1] : 0};
        if (k[0] * k[1] == 1 && s[0] * s[1] == 1 && !b[0] && !b[1] && !e[0] && !e[1])
            continue;
        if ((st = onnx_nn_pad_zeros(c, x, b, e, &x)) != ST_OK)
            return st;
        const OgShape *xs = og_edge_shape(c->g, x);
        int64_t N = xs->d[0], C = xs->d[1], H = xs->d[2], W = xs->d[3], T = k[0] * k[1];
        int64_t oh = dh ? OUT[0] : H, ow = dw ? OUT[1] : W;
        OgShape t = {5, {N, C, oh, ow, T}};
        if ((st = onnx_check_shape(c, &t)) != ST_OK ||
            (st = onnx_map_reserve(c, og_shape_volume(&t))) != ST_OK)
            return st;
        int32_t *idx = malloc((size_t)og_shape_volume(&t) * sizeof *idx);
        if (!idx)
            return onnx_oom(c);
        int64_t i = 0;
        for (int64_t nc = 0; nc < N * C; nc++)
            for (int64_t oy = 0; oy < oh; oy++)
                for (int64_t ox = 0; ox < ow; ox++)
                    for (int64_t ky = 0; ky < k[0]; ky++)
                        for (int64_t kx = 0; kx < k[1]; kx++)
                            idx[i++] = (int32_t)((nc * H + oy * s[0] + ky) * W + ox * s[1] +
                                                 kx);
        OgEdge g;
        st = onnx_gather_flat(c, x, &t, idx, &g);
        free(idx);
        if (st == ST_OK)
            st = onnx_cvm(c, CVM_OP_sum, "sum", &g, 1,
                          (const char *const[]){"axis", "(4,)", "keepdims", "false", NULL}, &x);
    }
    *out = x;
    return st;
}

Status onnx_map_avgpool(OnnxCtx *c)
{
    static const char *const ok[] = {"auto_pad", "ceil_mode", "count_include_pad",
                                     "kernel_shape", "pads", "strides", NULL};
    int64_t cip;
    Status st = onnx_attrs_known(c, ok);
    if (st == ST_OK)
        st = onnx_attr_int(c, "count_include_pad", 0, 0, 1, &cip);
    OnnxVal *x = st == ST_OK ? onnx_need(c, 0, &st) : NULL;
    if (!x)
        return st;
    if (x->type != ONNX_T_FLOAT)
        return onnx_fail(c, "onnx.type", "AveragePool takes float");
    OgShape xs = onnx_shape(x);
    OnnxWin w;
    if ((st = onnx_nn_read_window(c, &xs, &w)) != ST_OK)
        return st;
    /* as 2-D: dim 0 (H) and dim 1 (W); a 1-D window has H = 1 */
    int64_t K[2], S[2], PB[2], PE[2], IN[2], OUT[2], tail[2];
    for (int i = 0; i < 2; i++) {
        int j = w.nd == 2 ? i : 0;
        bool flat = w.nd == 1 && i == 0;
        K[i] = flat ? 1 : w.k[j];
        S[i] = flat ? 1 : w.s[j];
        PB[i] = flat ? 0 : w.pb[j];
        PE[i] = flat ? 0 : w.pe[j];
        IN[i] = flat ? 1 : xs.d[2 + (w.nd == 2 ? i : 0)];
        int64_t span = IN[i] + PB[i] + PE[i] - K[i];
        if (span < 0)
            return onnx_fail(c, "onnx.shape.pool", "the window (%lld) is larger than the "
                             "padded input (%lld)", (long long)K[i],
                             (long long)(IN[i] + PB[i] + PE[i]));
        OUT[i] = (w.ceil_mode ? ce_div(span, S[i]) : span / S[i]) + 1;
        if (w.ceil_mode && OUT[i] > 1 && (OUT[i] - 1) * S[i] >= IN[i] + PB[i])
            OUT[i]--;    /* the last window may not start in the end padding */
        /* the padding after the input that the windows read (ceil_mode: beyond pe) */
        tail[i] = (OUT[i] - 1) * S[i] + K[i] - PB[i] - IN[i];
        tail[i] = tail[i] > 0 ? tail[i] : 0;
    }
    OgShape ps = w.nd == 2 ? (OgShape){4, {1, 1, OUT[0], OUT[1]}}
                           : (OgShape){3, {1, 1, OUT[1]}};
    if ((st = onnx_check_shape(c, &ps)) != ST_OK)
        return st;
    /* the number of elements each window averages */
    int64_t npos = OUT[0] * OUT[1];
    int64_t *d = malloc((size_t)npos * sizeof *d), *cnt[2];
    cnt[0] = malloc((size_t)OUT[0] * sizeof *cnt[0]);
    cnt[1] = malloc((size_t)OUT[1] * sizeof *cnt[1]);
    if (!d || !cnt[0] || !cnt[1])
        st = onnx_oom(c);
    for (int i = 0; i < 2 && st == ST_OK; i++)
        for (int64_t o = 0; o < OUT[i] && st == ST_OK; o++) {
            int64_t b = o * S[i] - PB[i], e = b + K[i];
            if (cip) {
                cnt[i][o] = (e < IN[i] + PE[i] ? e : IN[i] + PE[i]) - b;
            } else {
                cnt[i][o] = (e < IN[i] ? e : IN[i]) - (b > 0 ? b : 0);
                if (cnt[i][o] < 1)
                    st = onnx_fail(c, "onnx.float.avg", "window %lld covers only padding: "
                                   "without count_include_pad its average is 0 / 0",
                                   (long long)o);
            }
        }
    for (int64_t oy = 0; st == ST_OK && oy < OUT[0]; oy++)
        for (int64_t ox = 0; ox < OUT[1]; ox++)
            d[oy * OUT[1] + ox] = cnt[0][oy] * cnt[1][ox];
    free(cnt[0]);
    free(cnt[1]);
    /* the window sums */
    OgEdge ex, e4, y;
    if (st == ST_OK)
        st = onnx_edge(c, x, &ex);
    if (st == ST_OK)
        st = onnx_nn_as4d(c, ex, &e4);
    if (st == ST_OK)
        st = slice_sum(c, e4, K, S, PB, tail, OUT, &y);
    if (st == ST_OK)
        st = onnx_nn_from4d(c, y, w.nd, &y);
    if (st == ST_OK) {
        bool same = true;
        for (int64_t p = 1; p < npos; p++)
            same = same && d[p] == d[0];
        OgShape one = {0, {0}};
        st = average(c, ex, y, K[0] * K[1], same ? &one : &ps, d);
    }
    free(d);
    return st;
}

Status onnx_map_global_avgpool(OnnxCtx *c)
{
    static const char *const ok[] = {NULL};
    Status st = onnx_attrs_known(c, ok);
    OnnxVal *x = st == ST_OK ? onnx_need(c, 0, &st) : NULL;
    if (!x)
        return st;
    if (x->type != ONNX_T_FLOAT)
        return onnx_fail(c, "onnx.type", "GlobalAveragePool takes float");
    OgShape xs = onnx_shape(x);
    if (xs.ndim < 3)
        return onnx_fail(c, "onnx.shape.rank", "the input needs N, C and spatial dims");
    char axes[64] = "(";
    size_t used = 1;
    int64_t area = 1;
    for (uint32_t k = 2; k < xs.ndim; k++) {
        used += (size_t)snprintf(axes + used, sizeof axes - used, "%u, ", k);
        area *= xs.d[k];
    }
    snprintf(axes + used, sizeof axes - used, ")");
    OgEdge e, y;
    if ((st = onnx_edge(c, x, &e)) != ST_OK ||
        (st = onnx_cvm(c, CVM_OP_sum, "sum", &e, 1,
                       (const char *const[]){"axis", axes, "keepdims", "true", NULL}, &y)) !=
        ST_OK)
        return st;
    OgShape one = {0, {0}};
    return average(c, e, y, area, &one, &area);
}
