/* cinn_ops_int.c: the integer CINN extension operators (docs/cinn.md, "Semantics"):
 *   cinn_floor_div   floor(x / y)                 0 when y == 0 (as CVM's broadcast_div)
 *   cinn_mod         x - y * trunc(x / y)         C's %, the sign of x; 0 when y == 0
 *   cinn_floor_mod   x - y * floor(x / y)         the sign of y; 0 when y == 0
 *   cinn_bitwise_*   x & y, x | y, x ^ y          on the two's complement bits
 *   cinn_power       x^y                          y < 0: trunc(1 / x^-y), 0 for x == 0
 *   cinn_left_shift  x * 2^y                      0 for y outside [0, 31]
 *   cinn_right_shift floor(x / 2^y) (arithmetic)  0 for y < 0
 *   cinn_round       floor / ceil / trunc / round half away from zero of a fixed-point value
 *                    with `frac` fraction bits, kept in that format
 * Binary operators broadcast as NumPy does (cvm_shape_broadcast). Results are computed
 * exactly in int64; what is stored is clamped to int32, which changes nothing for operands
 * within their precisions (precision inference bounds every result, and the interpreter
 * checks each output against it) and keeps the lowering's table builds, which also visit
 * operand values just outside the precisions, free of overflow.
 * Precision rules: floor_div P0; mod min(P0, P1); floor_mod P1; bitwise max(P0, P1) + 1
 * (-2^(q-1) needs q + 1 bits); power, left shift and round: the bits of the largest result
 * magnitude + 1; right shift P0.
 */
#include "frontend/cinn/cinn_ops.h"

#include <stdio.h>
#include <string.h>

/* ---- scalar functions ---- */

static int64_t s_floor_div(int64_t x, int64_t y)
{
    if (y == 0)
        return 0;
    int64_t q = x / y;
    if (x % y != 0 && ((x < 0) != (y < 0)))
        q--;
    return q;
}

static int64_t s_mod(int64_t x, int64_t y)
{
    return y == 0 ? 0 : x % y;
}

static int64_t s_floor_mod(int64_t x, int64_t y)
{
    if (y == 0)
        return 0;
    int64_t r = x % y;
    if (r != 0 && ((r < 0) != (y < 0)))
        r += y;
    return r;
}

/* Bitwise operators on int64_t (exact-width: two's complement) act on the bits. */
static int64_t s_and(int64_t x, int64_t y)
{
    return x & y;
}

static int64_t s_or(int64_t x, int64_t y)
{
    return x | y;
}

static int64_t s_xor(int64_t x, int64_t y)
{
    return x ^ y;
}

#define SAT62 ((int64_t)1 << 62)

/* x * m, saturated to [-2^62, 2^62] (|x|, |m| <= 2^62). */
static int64_t sat_mul(int64_t x, int64_t m)
{
    if (x == 0 || m == 0)
        return 0;
    int64_t ax = x < 0 ? -x : x, am = m < 0 ? -m : m;
    bool neg = (x < 0) != (m < 0);
    if (ax > SAT62 / am)
        return neg ? -SAT62 : SAT62;
    return neg ? -(ax * am) : ax * am;
}

static int64_t s_power(int64_t x, int64_t y)
{
    if (y < 0) {
        if (x == 1)
            return 1;
        if (x == -1)
            return (y % 2 == 0) ? 1 : -1;
        return 0; /* |1 / x^k| < 1 truncates to 0; x == 0: a zero divisor gives 0 */
    }
    int64_t r = 1, base = x;
    while (y > 0) {
        if (y & 1)
            r = sat_mul(r, base);
        y >>= 1;
        if (y > 0)
            base = sat_mul(base, base);
    }
    return r;
}

static int64_t s_left_shift(int64_t x, int64_t y)
{
    if (y < 0 || y > 31)
        return 0;
    return sat_mul(x, (int64_t)1 << y);
}

static int64_t s_right_shift(int64_t x, int64_t y)
{
    if (y < 0)
        return 0;
    return cvm_floor_shr(x, y > 63 ? 63 : (int)y);
}

CinnScalarFn cinn_scalar_fn(int op)
{
    switch (op) {
    case CINN_OP_cinn_floor_div: return s_floor_div;
    case CINN_OP_cinn_mod: return s_mod;
    case CINN_OP_cinn_floor_mod: return s_floor_mod;
    case CINN_OP_cinn_bitwise_and: return s_and;
    case CINN_OP_cinn_bitwise_or: return s_or;
    case CINN_OP_cinn_bitwise_xor: return s_xor;
    case CINN_OP_cinn_power: return s_power;
    case CINN_OP_cinn_left_shift: return s_left_shift;
    case CINN_OP_cinn_right_shift: return s_right_shift;
    default: return NULL;
    }
}

int64_t cinn_power_bound(int64_t ax, int64_t ay)
{
    if (ax <= 1 || ay <= 0)
        return 1;
    int64_t r = 1;
    for (int64_t k = 0; k < ay; k++) {
        r *= ax; /* r <= 2^31 - 1 and ax <= 2^31 - 1 before: the product fits int64 */
        if (r > INT32_MAX)
            return (int64_t)INT32_MAX + 1;
    }
    return r;
}

int64_t cinn_round_value(const char *mode, int64_t x, int frac)
{
    int64_t one = (int64_t)1 << frac;
    if (strcmp(mode, "floor") == 0)
        return cvm_floor_shr(x, frac) * one;
    if (strcmp(mode, "ceil") == 0)
        return -(cvm_floor_shr(-x, frac) * one);
    int64_t ax = x < 0 ? -x : x, m;
    if (strcmp(mode, "trunc") == 0)
        m = cvm_floor_shr(ax, frac) * one;
    else /* round: half away from zero */
        m = cvm_floor_shr(ax + one / 2, frac) * one;
    return x < 0 ? -m : m;
}

/* ---- running ---- */

static int32_t clamp32(int64_t v)
{
    return (int32_t)cvm_clamp64(v, INT32_MIN, INT32_MAX);
}

/* Y = fn(A, B) over the broadcast shape, walking Y in C order with an odometer that keeps the
 * offsets into A and B (stride 0 along a dim of extent 1). */
static Status run_binary(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    CinnScalarFn fn = cinn_scalar_fn(c->n->op);
    if (!fn)
        return cvm_fail(c, "cvm.interp.invariant", "no scalar function for %s", c->n->op_name);
    uint32_t K = out->shape.ndim;
    int64_t sa[OG_MAX_DIMS] = {0}, sb[OG_MAX_DIMS] = {0}, idx[OG_MAX_DIMS] = {0};
    for (int t = 0; t < 2; t++) {
        const OgShape *s = &in[t]->shape;
        int64_t *st = t ? sb : sa, k = 1;
        for (uint32_t j = s->ndim; j-- > 0;) {
            st[j + K - s->ndim] = s->d[j] == 1 ? 0 : k;
            k *= s->d[j];
        }
    }
    const int32_t *A = in[0]->data, *B = in[1]->data;
    int64_t oa = 0, ob = 0;
    for (int64_t i = 0; i < out->count; i++) {
        out->data[i] = clamp32(fn(A[oa], B[ob]));
        for (uint32_t j = K; j-- > 0;) {
            if (++idx[j] < out->shape.d[j]) {
                oa += sa[j], ob += sb[j];
                break;
            }
            oa -= sa[j] * (idx[j] - 1), ob -= sb[j] * (idx[j] - 1);
            idx[j] = 0;
        }
    }
    return ST_OK;
}

Status cinn_run_floor_div(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    return run_binary(c, in, out);
}

Status cinn_run_mod(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    return run_binary(c, in, out);
}

Status cinn_run_floor_mod(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    return run_binary(c, in, out);
}

Status cinn_run_bitwise_and(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    return run_binary(c, in, out);
}

Status cinn_run_bitwise_or(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    return run_binary(c, in, out);
}

Status cinn_run_bitwise_xor(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    return run_binary(c, in, out);
}

Status cinn_run_power(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    return run_binary(c, in, out);
}

Status cinn_run_left_shift(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    return run_binary(c, in, out);
}

Status cinn_run_right_shift(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    return run_binary(c, in, out);
}

Status cinn_run_round(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    const char *mode = og_attr_str(c->n, "mode", "floor");
    int frac = (int)og_attr_int(c->n, "frac", 1);
    for (int64_t i = 0; i < out->count; i++)
        out->data[i] = clamp32(cinn_round_value(mode, in[0]->data[i], frac));
    return ST_OK;
}

/* ---- precision ---- */

/* The precision of values of magnitude at most m (m <= 2^31 - 1), else a logic error. */
static Status prec_of_bound(CvmCtx *c, int64_t m, const char *what, int32_t *out)
{
    if (m > INT32_MAX)
        return cvm_fail(c, "cinn.precision", "%s can reach a magnitude beyond 2^31 - 1: no "
                        "precision of at most 32 bits holds it", what);
    *out = cvm_bits((uint64_t)m) + 1;
    return ST_OK;
}

Status cinn_prec_floor_div(CvmCtx *c, const OgShape *in, const int32_t *in_prec,
                           int32_t *out_prec)
{
    (void)c, (void)in;
    out_prec[0] = in_prec[0];
    return ST_OK;
}

Status cinn_prec_mod(CvmCtx *c, const OgShape *in, const int32_t *in_prec, int32_t *out_prec)
{
    (void)c, (void)in;
    out_prec[0] = in_prec[0] < in_prec[1] ? in_prec[0] : in_prec[1];
    return ST_OK;
}

Status cinn_prec_floor_mod(CvmCtx *c, const OgShape *in, const int32_t *in_prec,
                           int32_t *out_prec)
{
    (void)c, (void)in;
    out_prec[0] = in_prec[1];
    return ST_OK;
}

Status cinn_prec_bitwise(CvmCtx *c, const OgShape *in, const int32_t *in_prec,
                         int32_t *out_prec)
{
    (void)in;
    int32_t q = in_prec[0] > in_prec[1] ? in_prec[0] : in_prec[1];
    if (q >= 32)
        return cvm_fail(c, "cinn.precision", "a bitwise operation on operands of precision %d "
                        "can give -2^31, which needs precision 33: operands of at most 31 bits",
                        (int)q);
    out_prec[0] = q + 1;
    return ST_OK;
}

Status cinn_prec_power(CvmCtx *c, const OgShape *in, const int32_t *in_prec, int32_t *out_prec)
{
    (void)in;
    int64_t m = cinn_power_bound(og_prec_alpha(in_prec[0]), og_prec_alpha(in_prec[1]));
    char what[128];
    snprintf(what, sizeof what, "x^y with x of precision %d and y of precision %d",
             (int)in_prec[0], (int)in_prec[1]);
    return prec_of_bound(c, m, what, out_prec);
}

Status cinn_prec_left_shift(CvmCtx *c, const OgShape *in, const int32_t *in_prec,
                            int32_t *out_prec)
{
    (void)in;
    int64_t ax = og_prec_alpha(in_prec[0]), ay = og_prec_alpha(in_prec[1]);
    int64_t m = ax > 0 ? s_left_shift(ax, ay > 31 ? 31 : ay) : 0;
    char what[128];
    snprintf(what, sizeof what, "x << y with x of precision %d and y of precision %d (shift "
             "amounts up to %lld)", (int)in_prec[0], (int)in_prec[1], (long long)ay);
    return prec_of_bound(c, m, what, out_prec);
}

Status cinn_prec_right_shift(CvmCtx *c, const OgShape *in, const int32_t *in_prec,
                             int32_t *out_prec)
{
    (void)c, (void)in;
    out_prec[0] = in_prec[0];
    return ST_OK;
}

Status cinn_prec_round(CvmCtx *c, const OgShape *in, const int32_t *in_prec, int32_t *out_prec)
{
    (void)in;
    const char *mode = og_attr_str(c->n, "mode", "floor");
    int frac = (int)og_attr_int(c->n, "frac", 1);
    int64_t a = og_prec_alpha(in_prec[0]);
    int64_t hi = cinn_round_value(mode, a, frac), lo = cinn_round_value(mode, -a, frac);
    int64_t m = hi > -lo ? hi : -lo;
    char what[96];
    snprintf(what, sizeof what, "%s of a value of precision %d", mode, (int)in_prec[0]);
    return prec_of_bound(c, m, what, out_prec);
}
