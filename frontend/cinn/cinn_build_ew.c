/* cinn_build_ew.c: the elementwise primitives (docs/cinn.md, "Semantics"): unary, real-valued,
 * rounding, binary, Compare, the logical ones and Select. Where a CVM operator computes the
 * primitive exactly it is used as is; where a short composition of CVM operators does, that
 * composition (its intermediate nodes are named "<name>/<step>"); the rest become the CINN
 * extension operators of cinn_ops.def. 0/1 results (comparisons, logical operators) are
 * narrowed to precision 2 by cinn_range, which lowers to nothing.
 */
#include "frontend/cinn/cinn_internal.h"

#include <stdio.h>
#include <string.h>

/* ---- small pieces ---- */

static Status op2(CinnCtx *c, int op, const char *suffix, OgEdge a, OgEdge b, OgEdge *out)
{
    OgEdge ins[2] = {a, b};
    return cinn_node(c, op, suffix, ins, 2, NULL, 0, out);
}

static Status op1(CinnCtx *c, int op, const char *suffix, OgEdge a, OgEdge *out)
{
    return cinn_node(c, op, suffix, &a, 1, NULL, 0, out);
}

/* A copy of x under the variable's name (CVM reshape to its own shape). */
static Status identity(CinnCtx *c, OgEdge x)
{
    const OgShape *s = cinn_shape(c, x);
    CvmKV kv[] = {{"shape", cinn_tuple(c, s->d, s->ndim)}, {NULL, NULL}};
    return cinn_node(c, CVM_OP_reshape, NULL, &x, 1, kv, 0, &c->out);
}

/* [a > b] with precision 2. */
static Status gt01(CinnCtx *c, const char *suffix, OgEdge a, OgEdge b, OgEdge *out)
{
    char s1[64];
    snprintf(s1, sizeof s1, "%s.raw", suffix);
    OgEdge g;
    Status st = op2(c, CVM_OP_broadcast_greater, s1, a, b, &g);
    return st ? st : cinn_narrow(c, suffix, g, 2, out);
}

/* [a != b] = [a > b] + [b > a], precision 2 (suffix NULL: the variable itself). */
static Status ne01(CinnCtx *c, const char *suffix, OgEdge a, OgEdge b, OgEdge *out)
{
    char s1[48], s2[48], s3[48];
    const char *base = suffix ? suffix : "ne";
    snprintf(s1, sizeof s1, "%s.gt", base);
    snprintf(s2, sizeof s2, "%s.lt", base);
    snprintf(s3, sizeof s3, "%s.sum", base);
    OgEdge g1, g2, sum;
    Status st;
    if ((st = gt01(c, s1, a, b, &g1)) || (st = gt01(c, s2, b, a, &g2)) ||
        (st = op2(c, CVM_OP_broadcast_add, s3, g1, g2, &sum)))
        return st;
    return cinn_narrow(c, suffix, sum, 2, out);
}

/* 1 - v for v in {0, 1}, precision 2. */
static Status not01(CinnCtx *c, const char *suffix, OgEdge v, OgEdge *out)
{
    char s1[48], s2[48];
    const char *base = suffix ? suffix : "not";
    snprintf(s1, sizeof s1, "%s.one", base);
    snprintf(s2, sizeof s2, "%s.raw", base);
    OgEdge one, d;
    Status st;
    if ((st = cinn_scalar_node(c, s1, 1, &one)) ||
        (st = op2(c, CVM_OP_broadcast_sub, s2, one, v, &d)))
        return st;
    return cinn_narrow(c, suffix, d, 2, out);
}

/* [x != 0]. */
static Status nz01(CinnCtx *c, const char *suffix, OgEdge x, OgEdge *out)
{
    char s0[48];
    snprintf(s0, sizeof s0, "%s.zero", suffix);
    OgEdge zero;
    Status st = cinn_scalar_node(c, s0, 0, &zero);
    return st ? st : ne01(c, suffix, x, zero, out);
}

/* All values of a constant e, when it is one (NULL otherwise). */
static const OgTensor *const_value(const CinnCtx *c, OgEdge e)
{
    const OgNode *n = cinn_const_of(c, e);
    return n ? &n->value : NULL;
}

/* A constant scalar operand y (one value, no more dims than x, so the result has x's shape):
 * its value in *v. */
static bool scalar_operand(const CinnCtx *c, OgEdge x, OgEdge y, int64_t *v)
{
    const OgTensor *t = const_value(c, y);
    if (!t || t->count != 1 || t->shape.ndim > cinn_shape(c, x)->ndim)
        return false;
    *v = t->data[0];
    return true;
}

/* A divisor that is a constant holding 0: a logic error now rather than 0 at run time. */
static Status check_divisor(CinnCtx *c, OgEdge y)
{
    const OgTensor *t = const_value(c, y);
    for (int64_t i = 0; t && i < t->count; i++)
        if (t->data[i] == 0) {
            char sb[96];
            return cinn_fail(c, "cinn.div.zero", "the divisor '%s' is a constant holding 0 "
                             "(element %lld of shape %s): a division by zero",
                             fe_cinn_var_name(c->b, c->vin[1]), (long long)i,
                             og_shape_str(&t->shape, sb, sizeof sb));
        }
    return ST_OK;
}

/* ---- unary ---- */

Status cinn_b_cvm_unary(CinnCtx *c)
{
    OgEdge x = c->in[0];
    switch (c->prim) {
    case CINN_P_Abs:
        return op1(c, CVM_OP_abs, NULL, x, &c->out);
    case CINN_P_Negative:
        return op1(c, CVM_OP_negative, NULL, x, &c->out);
    case CINN_P_Sign: {
        CvmKV kv[] = {{"a_min", "-1"}, {"a_max", "1"}, {NULL, NULL}};
        c->ranged = true, c->lo = -1, c->hi = 1;
        return cinn_node(c, CVM_OP_clip, NULL, &x, 1, kv, 0, &c->out);
    }
    default:
        return cinn_fail(c, "cinn.internal", "not a CVM unary primitive");
    }
}

Status cinn_b_identity(CinnCtx *c)
{
    return identity(c, c->in[0]);
}

/* ~x = -1 - x (two's complement), exact; precision P + 1 (-2^(P-1) needs it). */
Status cinn_b_bitwise_not(CinnCtx *c)
{
    OgEdge m1;
    Status st = cinn_scalar_node(c, "minus1", -1, &m1);
    return st ? st : op2(c, CVM_OP_broadcast_sub, NULL, m1, c->in[0], &c->out);
}

/* Integers are never NaN or infinite: zeros (clip to precision 1) or, for IsFinite, ones. */
Status cinn_b_is_class(CinnCtx *c)
{
    CvmKV kv[] = {{"precision", "1"}, {NULL, NULL}};
    OgEdge z, one, s;
    Status st;
    if (c->prim != CINN_P_IsFinite)
        return cinn_node(c, CVM_OP_cvm_clip, NULL, &c->in[0], 1, kv, 0, &c->out);
    if ((st = cinn_node(c, CVM_OP_cvm_clip, "zero", &c->in[0], 1, kv, 0, &z)) ||
        (st = cinn_scalar_node(c, "one", 1, &one)) ||
        (st = op2(c, CVM_OP_broadcast_add, "ones", z, one, &s)))
        return st;
    return cinn_narrow(c, NULL, s, 2, &c->out);
}

Status cinn_b_logical(CinnCtx *c)
{
    OgEdge a, b, t;
    Status st;
    switch (c->prim) {
    case CINN_P_LogicalNot: {
        OgEdge zero;
        if ((st = cinn_scalar_node(c, "zero", 0, &zero)) || (st = ne01(c, "nz", c->in[0], zero, &a)))
            return st;
        return not01(c, NULL, a, &c->out);
    }
    case CINN_P_LogicalAnd:
        if ((st = nz01(c, "nzx", c->in[0], &a)) || (st = nz01(c, "nzy", c->in[1], &b)) ||
            (st = op2(c, CVM_OP_broadcast_mul, "and", a, b, &t)))
            return st;
        return cinn_narrow(c, NULL, t, 2, &c->out);
    case CINN_P_LogicalOr: {
        OgEdge zero;
        if ((st = nz01(c, "nzx", c->in[0], &a)) || (st = nz01(c, "nzy", c->in[1], &b)) ||
            (st = op2(c, CVM_OP_broadcast_add, "count", a, b, &t)) ||
            (st = cinn_scalar_node(c, "zero", 0, &zero)) ||
            (st = gt01(c, "any", t, zero, &a)))
            return st;
        return cinn_narrow(c, NULL, a, 2, &c->out);
    }
    case CINN_P_LogicalXor:
        if ((st = nz01(c, "nzx", c->in[0], &a)) || (st = nz01(c, "nzy", c->in[1], &b)))
            return st;
        return ne01(c, NULL, a, b, &c->out);
    default:
        return cinn_fail(c, "cinn.internal", "not a logical primitive");
    }
}

/* Ceil, Floor, Round, Trunc: the identity on integers; of a fixed-point value with frac
 * fraction bits, cinn_round (the result in the same format). */
Status cinn_b_round(CinnCtx *c)
{
    int64_t frac = cinn_int(c, "frac");
    if (frac == 0)
        return identity(c, c->in[0]);
    const char *mode = c->prim == CINN_P_Floor ? "floor" : c->prim == CINN_P_Ceil ? "ceil"
                       : c->prim == CINN_P_Trunc ? "trunc" : "round";
    CvmKV kv[] = {{"mode", mode}, {"frac", cinn_itoa(c, frac)}, {NULL, NULL}};
    return cinn_node(c, CINN_OP_cinn_round, NULL, &c->in[0], 1, kv, 0, &c->out);
}

/* Real-valued functions: a table over every input value, so at most 8 input bits. */
Status cinn_b_real(CinnCtx *c)
{
    int32_t p = cinn_prec(c, c->in[0]);
    if (p > 8)
        return cinn_fail(c, "cinn.precision", "the input '%s' has precision %d; %s is a "
                         "real-valued function computed by a CLUT table over every input value, "
                         "which needs input precision <= 8 (requantize the input first, e.g. "
                         "RightShift)", fe_cinn_var_name(c->b, c->vin[0]), (int)p, c->pi->name);
    if (!cinn_has(c, "precision"))
        cinn_set_int(c, "precision", p);
    CvmKV kv[] = {{"func", c->pi->snake},
                  {"in_frac", cinn_itoa(c, cinn_int(c, "in_frac"))},
                  {"out_frac", cinn_itoa(c, cinn_int(c, "out_frac"))},
                  {"precision", cinn_itoa(c, cinn_int(c, "precision"))},
                  {NULL, NULL}};
    return cinn_node(c, CINN_OP_cinn_real, NULL, &c->in[0], 1, kv, 0, &c->out);
}

/* ---- binary ---- */

/* Max: CVM broadcast_max; Min = -max(-x, -y). The result lies in [max(lo0, lo1), max(hi0,
 * hi1)] (Min: the mins), which can be much narrower than CVM's precision rule says (a clamp
 * Min(Max(x, -127), 127) is 8 bits whatever x was): then the result is narrowed to it. */
static Status min_max(CinnCtx *c, OgEdge x, OgEdge y)
{
    int64_t l0, h0, l1, h1;
    cinn_in_range(c, 0, &l0, &h0);
    cinn_in_range(c, 1, &l1, &h1);
    bool mx = c->prim == CINN_P_Max;
    c->ranged = true;
    c->lo = mx ? (l0 > l1 ? l0 : l1) : (l0 < l1 ? l0 : l1);
    c->hi = mx ? (h0 > h1 ? h0 : h1) : (h0 < h1 ? h0 : h1);
    int32_t p = cinn_range_prec(c->lo, c->hi);
    bool narrow = p < (cinn_prec(c, x) > cinn_prec(c, y) ? cinn_prec(c, x) : cinn_prec(c, y));
    OgEdge m;
    Status st;
    if (mx) {
        if (!narrow)
            return op2(c, CVM_OP_broadcast_max, NULL, x, y, &c->out);
        if ((st = op2(c, CVM_OP_broadcast_max, "max", x, y, &m)))
            return st;
        return cinn_narrow(c, NULL, m, p, &c->out);
    }
    OgEdge nx, ny, mm;
    int64_t k;
    bool ks = scalar_operand(c, x, y, &k), kx = !ks && scalar_operand(c, y, x, &k);
    OgEdge v = ks ? x : y;
    int64_t av = og_prec_alpha(cinn_prec(c, v));
    if ((ks || kx) && k > -av) {
        /* min(v, k) = clip(v, -alpha, k) for v within its precision: one CCMPB */
        CvmKV kv[] = {{"a_min", cinn_itoa(c, -av)}, {"a_max", cinn_itoa(c, k)}, {NULL, NULL}};
        if (!narrow)
            return cinn_node(c, CVM_OP_clip, NULL, &v, 1, kv, 0, &c->out);
        if ((st = cinn_node(c, CVM_OP_clip, "clip", &v, 1, kv, 0, &mm)))
            return st;
        return cinn_narrow(c, NULL, mm, p, &c->out);
    }
    if ((st = op1(c, CVM_OP_negative, "negx", x, &nx)) ||
        (st = op1(c, CVM_OP_negative, "negy", y, &ny)) ||
        (st = op2(c, CVM_OP_broadcast_max, "max", nx, ny, &m)))
        return st;
    if (!narrow)
        return op1(c, CVM_OP_negative, NULL, m, &c->out);
    if ((st = op1(c, CVM_OP_negative, "min", m, &mm)))
        return st;
    return cinn_narrow(c, NULL, mm, p, &c->out);
}

Status cinn_b_cvm_binary(CinnCtx *c)
{
    OgEdge x = c->in[0], y = c->in[1];
    bool same = og_shape_eq(cinn_shape(c, x), cinn_shape(c, y));
    Status st;
    switch (c->prim) {
    case CINN_P_Add:
        return op2(c, same ? CVM_OP_elemwise_add : CVM_OP_broadcast_add, NULL, x, y, &c->out);
    case CINN_P_Sub:
        return op2(c, same ? CVM_OP_elemwise_sub : CVM_OP_broadcast_sub, NULL, x, y, &c->out);
    case CINN_P_Mul:
        return op2(c, CVM_OP_broadcast_mul, NULL, x, y, &c->out);
    case CINN_P_Max:
    case CINN_P_Min:
        return min_max(c, x, y);
    case CINN_P_Div:
        if ((st = check_divisor(c, y)))
            return st;
        return op2(c, CVM_OP_broadcast_div, NULL, x, y, &c->out);
    default:
        return cinn_fail(c, "cinn.internal", "not a CVM binary primitive");
    }
}

Status cinn_b_table2(CinnCtx *c)
{
    int op;
    Status st;
    switch (c->prim) {
    case CINN_P_FloorDiv: op = CINN_OP_cinn_floor_div; break;
    case CINN_P_Mod: op = CINN_OP_cinn_mod; break;
    case CINN_P_FloorMod: op = CINN_OP_cinn_floor_mod; break;
    case CINN_P_BitwiseAnd: op = CINN_OP_cinn_bitwise_and; break;
    case CINN_P_BitwiseOr: op = CINN_OP_cinn_bitwise_or; break;
    case CINN_P_BitwiseXor: op = CINN_OP_cinn_bitwise_xor; break;
    default: return cinn_fail(c, "cinn.internal", "not a table primitive");
    }
    if (op == CINN_OP_cinn_floor_div || op == CINN_OP_cinn_mod || op == CINN_OP_cinn_floor_mod)
        if ((st = check_divisor(c, c->in[1])))
            return st;
    return op2(c, op, NULL, c->in[0], c->in[1], &c->out);
}

/* x << s, x >> s: a constant scalar amount uses CVM's shifts (exactly: no clipping), a
 * computed one cinn_left_shift / cinn_right_shift. */
Status cinn_b_shift(CinnCtx *c)
{
    OgEdge x = c->in[0], y = c->in[1];
    bool left = c->prim == CINN_P_LeftShift;
    int64_t s;
    if (!scalar_operand(c, x, y, &s))
        return op2(c, left ? CINN_OP_cinn_left_shift : CINN_OP_cinn_right_shift, NULL, x, y,
                   &c->out);
    if (s < 0 || s > 31)
        return cinn_fail(c, "cinn.shift.range", "the shift amount is the constant %lld; "
                         "amounts lie in [0, 31]", (long long)s);
    if (s == 0)
        return identity(c, x);
    int32_t p = cinn_prec(c, x);
    if (left) {
        CvmKV kv[] = {{"precision", cinn_itoa(c, p + s)}, {"shift_bit", cinn_itoa(c, s)},
                      {NULL, NULL}};
        return cinn_node(c, CVM_OP_cvm_left_shift, NULL, &x, 1, kv, 0, &c->out);
    }
    if (s >= p) {
        /* |x| < 2^(p-1) <= 2^s: floor(x / 2^s) is -1 for x < 0, else 0 */
        OgEdge zero, neg;
        Status st;
        if ((st = cinn_scalar_node(c, "zero", 0, &zero)) || (st = gt01(c, "neg", zero, x, &neg)))
            return st;
        return op1(c, CVM_OP_negative, NULL, neg, &c->out);
    }
    if (p >= 32)
        return cinn_fail(c, "cinn.precision", "a right shift of a 32-bit operand: floor(x / 2^s) "
                         "is cvm_right_shift(x - 2^(s-1)), and x - 2^(s-1) needs 33 bits");
    /* cvm_right_shift rounds half up: floor((t + 2^(s-1)) / 2^s); t = x - 2^(s-1) makes it
     * floor(x / 2^s), in [floor(lo / 2^s), floor(hi / 2^s)]: its precision is the clip's, so
     * nothing is clipped */
    OgEdge off, t;
    Status st;
    int64_t lo, hi;
    cinn_in_range(c, 0, &lo, &hi);
    c->ranged = true;
    c->lo = cvm_floor_shr(lo, (int)s);
    c->hi = cvm_floor_shr(hi, (int)s);
    if ((st = cinn_scalar_node(c, "offset", -((int64_t)1 << (s - 1)), &off)) ||
        (st = op2(c, CVM_OP_broadcast_add, "biased", x, off, &t)))
        return st;
    CvmKV kv[] = {{"precision", cinn_itoa(c, cinn_range_prec(c->lo, c->hi))},
                  {"shift_bit", cinn_itoa(c, s)}, {NULL, NULL}};
    return cinn_node(c, CVM_OP_cvm_right_shift, NULL, &t, 1, kv, 0, &c->out);
}

/* x^k for a constant scalar k >= 0: square and multiply with CVM broadcast_mul, each partial
 * power narrowed to the precision of its true bound; otherwise cinn_power. */
Status cinn_b_power(CinnCtx *c)
{
    OgEdge x = c->in[0], y = c->in[1];
    int64_t k;
    if (!scalar_operand(c, x, y, &k) || k < 0)
        return op2(c, CINN_OP_cinn_power, NULL, x, y, &c->out);
    int64_t ax = og_prec_alpha(cinn_prec(c, x));
    Status st;
    if (k == 0) { /* x^0 = 1, 0^0 included */
        CvmKV kv[] = {{"precision", "1"}, {NULL, NULL}};
        OgEdge z, one, s;
        if ((st = cinn_node(c, CVM_OP_cvm_clip, "zero", &x, 1, kv, 0, &z)) ||
            (st = cinn_scalar_node(c, "one", 1, &one)) ||
            (st = op2(c, CVM_OP_broadcast_add, "ones", z, one, &s)))
            return st;
        return cinn_narrow(c, NULL, s, 2, &c->out);
    }
    if (k == 1)
        return identity(c, x);
    if (cinn_power_bound(ax, k) > INT32_MAX)
        return cinn_fail(c, "cinn.precision", "x^%lld with x of precision %d can reach "
                         "%lld^%lld, beyond 2^31 - 1", (long long)k, (int)cinn_prec(c, x),
                         (long long)ax, (long long)k);
    /* acc = x^ja, base = x^jb, consuming k's bits from the lowest */
    OgEdge base = x, acc = {-1, 0};
    int64_t jb = 1, ja = 0, rem = k;
    for (int step = 0; rem > 0; step++) {
        char s[32], s2[32];
        if (rem & 1) {
            if (ja == 0) {
                acc = base;
                ja = jb;
            } else {
                OgEdge m;
                ja += jb;
                snprintf(s, sizeof s, "acc%d", step);
                snprintf(s2, sizeof s2, "pow%lld", (long long)ja);
                int32_t p = cvm_bits((uint64_t)cinn_power_bound(ax, ja)) + 1;
                if ((st = op2(c, CVM_OP_broadcast_mul, s, acc, base, &m)) ||
                    (st = cinn_narrow(c, s2, m, p, &acc)))
                    return st;
            }
        }
        rem >>= 1;
        if (rem > 0) {
            OgEdge m;
            jb *= 2;
            snprintf(s, sizeof s, "sq%d", step);
            snprintf(s2, sizeof s2, "base%lld", (long long)jb);
            int32_t p = cvm_bits((uint64_t)cinn_power_bound(ax, jb)) + 1;
            if ((st = op2(c, CVM_OP_broadcast_mul, s, base, base, &m)) ||
                (st = cinn_narrow(c, s2, m, p, &base)))
                return st;
        }
    }
    return cinn_narrow(c, NULL, acc, cinn_prec(c, acc), &c->out);
}

/* ---- Compare, Select ---- */

Status cinn_b_compare(CinnCtx *c)
{
    OgEdge x = c->in[0], y = c->in[1], g;
    const char *kind = cinn_str(c, "kind");
    Status st;
    if (strcmp(kind, "gt") == 0 || strcmp(kind, "lt") == 0) {
        bool gt = kind[0] == 'g';
        if ((st = op2(c, CVM_OP_broadcast_greater, "raw", gt ? x : y, gt ? y : x, &g)))
            return st;
        return cinn_narrow(c, NULL, g, 2, &c->out);
    }
    if (strcmp(kind, "ge") == 0 || strcmp(kind, "le") == 0) {
        bool ge = kind[0] == 'g'; /* x >= y = 1 - [y > x] */
        if ((st = gt01(c, "strict", ge ? y : x, ge ? x : y, &g)))
            return st;
        return not01(c, NULL, g, &c->out);
    }
    if (strcmp(kind, "ne") == 0)
        return ne01(c, NULL, x, y, &c->out);
    if ((st = ne01(c, "ne", x, y, &g)))
        return st;
    return not01(c, NULL, g, &c->out);
}

Status cinn_b_select(CinnCtx *c)
{
    const OgShape *sc = cinn_shape(c, c->in[0]), *st = cinn_shape(c, c->in[1]),
                  *sf = cinn_shape(c, c->in[2]);
    if (!og_shape_eq(sc, st) || !og_shape_eq(st, sf)) {
        char a[96], b[96], d[96];
        return cinn_fail(c, "cinn.shape", "condition %s, true_value %s and false_value %s must "
                         "have one shape", og_shape_str(sc, a, sizeof a),
                         og_shape_str(st, b, sizeof b), og_shape_str(sf, d, sizeof d));
    }
    return cinn_node(c, CVM_OP_where, NULL, c->in, 3, NULL, 0, &c->out);
}
