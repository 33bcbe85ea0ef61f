/* test_cinn_ew.c: every elementwise primitive of the CINN primitive semantics (docs/cinn.md; unary,
 * real-valued, rounding, binary, Compare, Select) through the whole path of cinn_test.h: builder ->
 * XML -> read back -> interpreter -> lowering -> simulator, against values this file computes on
 * its own (double-precision libm and C arithmetic, written independently of frontend/cinn_ops_*.c).
 * Operands: computed (model inputs, with a batch of 2 or 3 on axis 0), broadcast, constant
 * tensors and constant scalars, so that every lowering path runs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <math.h>

#include "cinn_test.h"

/* Every value of precision 8 (-127 .. 127), as a (3, 85) tensor: 3 samples. */
static int32_t all8[255];

static void fill_all8(void)
{
    for (int i = 0; i < 255; i++)
        all8[i] = i - 127;
}

/* ---- unary ---- */

typedef CinnVar (*Unary)(CinnBuilder *, CinnVar, const char *);

static int64_t r_abs(int64_t x) { return x < 0 ? -x : x; }
static int64_t r_not(int64_t x) { return (int32_t)~(uint32_t)(int32_t)x; }
static int64_t r_id(int64_t x) { return x; }
static int64_t r_one(int64_t x) { (void)x; return 1; }
static int64_t r_zero(int64_t x) { (void)x; return 0; }
static int64_t r_lnot(int64_t x) { return !x; }
static int64_t r_neg(int64_t x) { return -x; }
static int64_t r_sign(int64_t x) { return (x > 0) - (x < 0); }

static const struct {
    const char *name;
    Unary fn;
    int64_t (*ref)(int64_t);
} unaries[] = {
    {"Abs", fe_cinn_abs, r_abs},
    {"BitwiseNot", fe_cinn_bitwise_not, r_not},
    {"Identity", fe_cinn_identity, r_id},
    {"IsFinite", fe_cinn_is_finite, r_one},
    {"IsInf", fe_cinn_is_inf, r_zero},
    {"IsNan", fe_cinn_is_nan, r_zero},
    {"LogicalNot", fe_cinn_logical_not, r_lnot},
    {"Negative", fe_cinn_negative, r_neg},
    {"Sign", fe_cinn_sign, r_sign},
};

static void test_unary(void **state)
{
    (void)state;
    fill_all8();
    for (size_t u = 0; u < sizeof unaries / sizeof *unaries; u++) {
        /* every 8-bit value, and random 20-bit values (the wide lowerings) */
        for (int wide = 0; wide < 2; wide++) {
            CtCase c;
            ct_begin(&c, 100 + u);
            CinnVar x = wide ? ct_input(&c, "x", CT_SHP(2, 4, 16), 20, NULL)
                             : ct_input(&c, "x", CT_SHP(3, 85), 8, all8);
            CinnVar y = unaries[u].fn(c.b, x, "y");
            int64_t n = wide ? 128 : 255;
            int32_t want[255];
            for (int64_t i = 0; i < n; i++)
                want[i] = (int32_t)unaries[u].ref(ct_in(&c, 0)[i]);
            ct_output(&c, y, want);
            char what[64];
            snprintf(what, sizeof what, "%s (%s)", unaries[u].name, wide ? "20 bits" : "8 bits");
            ct_check(&c, what);
            ct_end(&c);
        }
    }
}

/* ---- rounding of fixed-point values ---- */

typedef CinnVar (*RoundFn)(CinnBuilder *, CinnVar, int32_t, const char *);

static int64_t ref_round(const char *mode, int64_t x, int f)
{
    double one = ldexp(1.0, f), q = (double)x / one;
    double r = strcmp(mode, "Floor") == 0 ? floor(q) : strcmp(mode, "Ceil") == 0 ? ceil(q)
               : strcmp(mode, "Trunc") == 0 ? trunc(q) : round(q); /* C round: half away */
    return (int64_t)(r * one);
}

static void test_round(void **state)
{
    (void)state;
    fill_all8();
    static const struct {
        const char *name;
        RoundFn fn;
    } fns[] = {{"Ceil", fe_cinn_ceil}, {"Floor", fe_cinn_floor}, {"Round", fe_cinn_round},
               {"Trunc", fe_cinn_trunc}};
    static const int fracs[] = {0, 1, 3, 7};
    for (size_t k = 0; k < 4; k++)
        for (size_t f = 0; f < 4; f++) {
            CtCase c;
            ct_begin(&c, 7);
            CinnVar x = ct_input(&c, "x", CT_SHP(3, 85), 8, all8);
            CinnVar y = fns[k].fn(c.b, x, fracs[f], "y");
            int32_t want[255];
            for (int i = 0; i < 255; i++)
                want[i] = (int32_t)ref_round(fns[k].name, all8[i], fracs[f]);
            ct_output(&c, y, want);
            char what[64];
            snprintf(what, sizeof what, "%s frac %d", fns[k].name, fracs[f]);
            ct_check(&c, what);
            ct_end(&c);
        }
}

/* ---- real-valued functions ---- */

typedef CinnVar (*RealFnApi)(CinnBuilder *, CinnVar, const CinnFixed *, const char *);

static double d_rsqrt(double t)
{
    return 1.0 / sqrt(t);
}

static const struct {
    const char *name;
    RealFnApi fn;
    double (*ref)(double);
} reals[] = {
    {"Acos", fe_cinn_acos, acos},   {"Acosh", fe_cinn_acosh, acosh}, {"Asin", fe_cinn_asin, asin},
    {"Asinh", fe_cinn_asinh, asinh}, {"Atan", fe_cinn_atan, atan},  {"Atanh", fe_cinn_atanh, atanh},
    {"Cos", fe_cinn_cos, cos},      {"Cosh", fe_cinn_cosh, cosh},    {"Erf", fe_cinn_erf, erf},
    {"Exp", fe_cinn_exp, exp},      {"Log", fe_cinn_log, log},       {"Log10", fe_cinn_log10, log10},
    {"Log2", fe_cinn_log2, log2},   {"Rsqrt", fe_cinn_rsqrt, d_rsqrt}, {"Sin", fe_cinn_sin, sin},
    {"Sinh", fe_cinn_sinh, sinh},   {"Sqrt", fe_cinn_sqrt, sqrt},    {"Tan", fe_cinn_tan, tan},
    {"Tanh", fe_cinn_tanh, tanh},
};

/* f(x / 2^fi) * 2^fo, ties to even (rint in the default rounding mode), saturated; NaN: 0. */
static int32_t ref_real(double (*f)(double), int32_t x, const CinnFixed *fx, int32_t pin)
{
    int32_t p = fx->precision ? fx->precision : pin;
    double alpha = ldexp(1.0, p - 1) - 1.0;
    double y = f(ldexp((double)x, -fx->in_frac));
    if (isnan(y))
        return 0;
    double v = ldexp(y, fx->out_frac);
    if (v >= alpha)
        return (int32_t)alpha;
    if (v <= -alpha)
        return (int32_t)-alpha;
    return (int32_t)rint(v);
}

static void test_real(void **state)
{
    (void)state;
    fill_all8();
    static const CinnFixed fmts[] = {{0, 0, 0}, {4, 6, 12}, {7, 10, 16}, {5, 3, 8}, {2, 12, 14}};
    for (size_t r = 0; r < sizeof reals / sizeof *reals; r++)
        for (size_t f = 0; f < sizeof fmts / sizeof *fmts; f++) {
            CtCase c;
            ct_begin(&c, 11);
            CinnVar x = ct_input(&c, "x", CT_SHP(3, 85), 8, all8);
            CinnVar y = reals[r].fn(c.b, x, &fmts[f], "y");
            int32_t want[255];
            for (int i = 0; i < 255; i++)
                want[i] = ref_real(reals[r].ref, all8[i], &fmts[f], 8);
            ct_output(&c, y, want);
            char what[96];
            snprintf(what, sizeof what, "%s in_frac %d out_frac %d precision %d", reals[r].name,
                     fmts[f].in_frac, fmts[f].out_frac, fmts[f].precision);
            ct_check(&c, what);
            ct_end(&c);
        }
}

/* Narrower inputs work too (a 5-bit input: a 32-entry table). */
static void test_real_narrow(void **state)
{
    (void)state;
    CtCase c;
    ct_begin(&c, 12);
    int32_t v[31];
    for (int i = 0; i < 31; i++)
        v[i] = i - 15;
    CinnVar x = ct_input(&c, "x", CT_SHP(1, 31), 5, v);
    CinnFixed fx = {3, 7, 9};
    CinnVar y = fe_cinn_tanh(c.b, x, &fx, "y");
    int32_t want[31];
    for (int i = 0; i < 31; i++)
        want[i] = ref_real(tanh, v[i], &fx, 5);
    ct_output(&c, y, want);
    ct_check(&c, "Tanh of a 5-bit input");
    ct_end(&c);
}

/* ---- binary ---- */

typedef CinnVar (*Binary)(CinnBuilder *, CinnVar, CinnVar, const char *);

static int64_t b_add(int64_t x, int64_t y) { return x + y; }
static int64_t b_sub(int64_t x, int64_t y) { return x - y; }
static int64_t b_mul(int64_t x, int64_t y) { return x * y; }
static int64_t b_max(int64_t x, int64_t y) { return x > y ? x : y; }
static int64_t b_min(int64_t x, int64_t y) { return x < y ? x : y; }
static int64_t b_div(int64_t x, int64_t y) { return y ? (int64_t)trunc((double)x / y) : 0; }
static int64_t b_fdiv(int64_t x, int64_t y) { return y ? (int64_t)floor((double)x / y) : 0; }
static int64_t b_mod(int64_t x, int64_t y) { return y ? (int64_t)fmod((double)x, (double)y) : 0; }
static int64_t b_fmod(int64_t x, int64_t y)
{
    return y ? x - y * (int64_t)floor((double)x / y) : 0;
}
static int64_t b_and(int64_t x, int64_t y) { return (int32_t)((uint32_t)x & (uint32_t)y); }
static int64_t b_or(int64_t x, int64_t y) { return (int32_t)((uint32_t)x | (uint32_t)y); }
static int64_t b_xor(int64_t x, int64_t y) { return (int32_t)((uint32_t)x ^ (uint32_t)y); }
static int64_t b_land(int64_t x, int64_t y) { return x && y; }
static int64_t b_lor(int64_t x, int64_t y) { return x || y; }
static int64_t b_lxor(int64_t x, int64_t y) { return !x != !y; }
static int64_t b_pow(int64_t x, int64_t y)
{
    if (y < 0)
        return x == 0 ? 0 : (int64_t)trunc(pow((double)x, (double)y));
    int64_t r = 1;
    for (int64_t i = 0; i < y; i++)
        r *= x;
    return r;
}
static int64_t b_shl(int64_t x, int64_t y) { return y < 0 || y > 31 ? 0 : x * ((int64_t)1 << y); }
static int64_t b_shr(int64_t x, int64_t y)
{
    return y < 0 ? 0 : (int64_t)floor(ldexp((double)x, -(int)(y > 60 ? 60 : y)));
}

static const struct {
    const char *name;
    Binary fn;
    int64_t (*ref)(int64_t, int64_t);
    int px, py;             /* operand precisions of the computed cases */
    int64_t cy;             /* the constant scalar of the scalar case */
} binaries[] = {
    {"Add", fe_cinn_add, b_add, 12, 9, -5},
    {"BitwiseAnd", fe_cinn_bitwise_and, b_and, 8, 8, 0x35},
    {"BitwiseOr", fe_cinn_bitwise_or, b_or, 8, 8, -6},
    {"BitwiseXor", fe_cinn_bitwise_xor, b_xor, 8, 8, 77},
    {"Div", fe_cinn_div, b_div, 8, 8, -3},
    {"FloorDiv", fe_cinn_floor_div, b_fdiv, 8, 8, 4},
    {"FloorMod", fe_cinn_floor_mod, b_fmod, 8, 8, -7},
    {"LeftShift", fe_cinn_left_shift, b_shl, 8, 3, 5},
    {"LogicalAnd", fe_cinn_logical_and, b_land, 3, 3, 2},
    {"LogicalOr", fe_cinn_logical_or, b_lor, 3, 3, 0},
    {"LogicalXor", fe_cinn_logical_xor, b_lxor, 3, 3, -1},
    {"Max", fe_cinn_max, b_max, 12, 9, 17},
    {"Min", fe_cinn_min, b_min, 12, 9, -17},
    {"Mod", fe_cinn_mod, b_mod, 8, 8, 5},
    {"Mul", fe_cinn_mul, b_mul, 10, 9, -9},
    {"Power", fe_cinn_power, b_pow, 3, 3, 3},
    {"RightShift", fe_cinn_right_shift, b_shr, 12, 4, 3},
    {"Sub", fe_cinn_sub, b_sub, 12, 9, 300},
};

/* Random values of precision p with zeros now and then (divisors, logical operands). */
static void values(CtCase *c, int32_t *v, int64_t n, int p)
{
    int64_t a = og_prec_alpha(p);
    for (int64_t i = 0; i < n; i++)
        v[i] = ct_range(c, 0, 6) == 0 ? 0 : (int32_t)ct_range(c, -a, a);
}

enum { SAME, BCAST, CONST_T, CONST_S, CONST_X };

static void binary_case(size_t k, int mode)
{
    CtCase c;
    ct_begin(&c, 1000 + 10 * k + (uint64_t)mode);
    int px = binaries[k].px, py = binaries[k].py;
    int32_t xv[256], yv[256], want[256];
    values(&c, xv, 256, px);
    values(&c, yv, 256, py);
    if (mode == CONST_T || mode == BCAST)
        for (int i = 0; i < 16; i++)
            if (yv[i] == 0 && (k == 4 || k == 5 || k == 6 || k == 13))
                yv[i] = 1; /* a constant zero divisor is an error; a computed one gives 0 */
    CinnVar x, y;
    switch (mode) {
    case SAME:
        x = ct_input(&c, "x", CT_SHP(2, 8, 16), px, xv);
        y = ct_input(&c, "y", CT_SHP(2, 8, 16), py, yv);
        break;
    case BCAST: /* y (2, 1, 16) against x (2, 8, 16) */
        x = ct_input(&c, "x", CT_SHP(2, 8, 16), px, xv);
        y = ct_input(&c, "y", CT_SHP(2, 1, 16), py, yv);
        break;
    case CONST_T: /* y a constant (16,) */
        x = ct_input(&c, "x", CT_SHP(2, 8, 16), px, xv);
        y = ct_const(&c, "y", CT_SHP(16), yv, py);
        break;
    case CONST_S: /* y a ConstScalar */
        x = ct_input(&c, "x", CT_SHP(2, 8, 16), px, xv);
        yv[0] = (int32_t)binaries[k].cy;
        y = fe_cinn_const_scalar(c.b, binaries[k].cy, "y");
        break;
    default: /* CONST_X: x a constant (8, 16), y computed */
        x = ct_const(&c, "x", CT_SHP(8, 16), xv, px);
        y = ct_input(&c, "y", CT_SHP(2, 8, 16), py, yv);
        break;
    }
    CinnVar z = binaries[k].fn(c.b, x, y, "z");
    for (int64_t b = 0; b < 2; b++)
        for (int64_t r = 0; r < 8; r++)
            for (int64_t col = 0; col < 16; col++) {
                int64_t i = (b * 8 + r) * 16 + col;
                int64_t xi = mode == CONST_X ? r * 16 + col : i;
                int64_t yi = mode == SAME || mode == CONST_X ? i : mode == BCAST ? b * 16 + col
                             : mode == CONST_T ? col : 0;
                want[i] = (int32_t)binaries[k].ref(xv[xi], yv[yi]);
            }
    ct_output(&c, z, want);
    static const char *const modes[] = {"same shape", "broadcast", "constant tensor y",
                                        "constant scalar y", "constant x"};
    char what[96];
    snprintf(what, sizeof what, "%s (%s)", binaries[k].name, modes[mode]);
    ct_check(&c, what);
    ct_end(&c);
}

static void test_binary(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof binaries / sizeof *binaries; k++)
        for (int mode = SAME; mode <= CONST_X; mode++)
            binary_case(k, mode);
}

/* Operands wider than a table allows: the arithmetic lowerings (and their limits). */
static void test_binary_wide(void **state)
{
    (void)state;
    static const size_t wide[] = {0, 11, 12, 14, 17}; /* Add Max Min Mul Sub */
    for (size_t w = 0; w < sizeof wide / sizeof *wide; w++) {
        CtCase c;
        ct_begin(&c, 77 + w);
        CinnVar x = ct_input(&c, "x", CT_SHP(2, 64), 24, NULL);
        CinnVar y = ct_input(&c, "y", CT_SHP(2, 64), wide[w] == 14 ? 7 : 24, NULL);
        CinnVar z = binaries[wide[w]].fn(c.b, x, y, "z");
        int32_t want[128];
        for (int i = 0; i < 128; i++)
            want[i] = (int32_t)binaries[wide[w]].ref(ct_in(&c, 0)[i], ct_in(&c, 1)[i]);
        ct_output(&c, z, want);
        ct_check(&c, binaries[wide[w]].name);
        ct_end(&c);
    }
}

/* Power with a constant exponent: square and multiply (wide operands allowed). */
static void test_power_const(void **state)
{
    (void)state;
    static const struct {
        int p;
        int64_t k;
    } cases[] = {{8, 0}, {8, 1}, {8, 2}, {8, 3}, {4, 7}, {2, 100}, {3, 13}, {11, 2}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        CtCase c;
        ct_begin(&c, 300 + i);
        CinnVar x = ct_input(&c, "x", CT_SHP(2, 32), cases[i].p, NULL);
        CinnVar k = fe_cinn_const_scalar(c.b, cases[i].k, "k");
        CinnVar y = fe_cinn_power(c.b, x, k, "y");
        int32_t want[64];
        for (int j = 0; j < 64; j++)
            want[j] = (int32_t)b_pow(ct_in(&c, 0)[j], cases[i].k);
        ct_output(&c, y, want);
        char what[64];
        snprintf(what, sizeof what, "Power x^%lld (precision %d)", (long long)cases[i].k,
                 cases[i].p);
        ct_check(&c, what);
        ct_end(&c);
    }
}

/* Shifts by constants across the range, on wide operands. */
static void test_shift_const(void **state)
{
    (void)state;
    static const int64_t amounts[] = {0, 1, 4, 11, 12, 20, 31};
    for (size_t i = 0; i < sizeof amounts / sizeof *amounts; i++)
        for (int left = 0; left < 2; left++) {
            /* a left shift by 31 leaves room for precision 1 (zeros) only; the lowering makes
             * such an output a constant, which takes one sample */
            int p = left && amounts[i] > 20 ? 1 : 12;
            CtCase c;
            ct_begin(&c, 400 + i);
            CinnVar x = p == 1 ? ct_input(&c, "x", CT_SHP(1, 64), p, NULL)
                               : ct_input(&c, "x", CT_SHP(2, 32), p, NULL);
            CinnVar s = fe_cinn_const_scalar(c.b, amounts[i], "s");
            CinnVar y = left ? fe_cinn_left_shift(c.b, x, s, "y")
                             : fe_cinn_right_shift(c.b, x, s, "y");
            int32_t want[64];
            for (int j = 0; j < 64; j++)
                want[j] = (int32_t)(left ? b_shl : b_shr)(ct_in(&c, 0)[j], amounts[i]);
            ct_output(&c, y, want);
            char what[64];
            snprintf(what, sizeof what, "%s by %lld", left ? "LeftShift" : "RightShift",
                     (long long)amounts[i]);
            ct_check(&c, what);
            ct_end(&c);
        }
}

/* ---- Compare, Select ---- */

static void test_compare(void **state)
{
    (void)state;
    static const char *const names[] = {"eq", "ne", "ge", "gt", "le", "lt"};
    for (int kind = CINN_CMP_EQ; kind <= CINN_CMP_LT; kind++)
        for (int mode = SAME; mode <= CONST_S; mode++)
            for (int wide = 0; wide < 2; wide++) {
                CtCase c;
                ct_begin(&c, 500 + (uint64_t)kind);
                int p = wide ? 24 : 4;
                int32_t xv[256], yv[256], want[256];
                values(&c, xv, 256, p);
                for (int i = 0; i < 256; i++) /* many equal pairs */
                    yv[i] = ct_range(&c, 0, 2) == 0 ? xv[i] : (int32_t)ct_range(&c, -7, 7);
                CinnVar x = ct_input(&c, "x", CT_SHP(2, 8, 16), p, xv), y;
                if (mode == SAME)
                    y = ct_input(&c, "y", CT_SHP(2, 8, 16), p, yv);
                else if (mode == BCAST)
                    y = ct_input(&c, "y", CT_SHP(2, 1, 16), p, yv);
                else if (mode == CONST_T)
                    y = ct_const(&c, "y", CT_SHP(16), yv, 0);
                else
                    y = fe_cinn_const_scalar(c.b, yv[0], "y");
                CinnVar z = fe_cinn_compare(c.b, x, y, (CinnCmp)kind, "z");
                for (int i = 0; i < 256; i++) {
                    int b = i / 128, col = i % 16;
                    int32_t a = xv[i], bb = mode == SAME ? yv[i] : mode == BCAST ? yv[b * 16 + col]
                                          : mode == CONST_T ? yv[col] : yv[0];
                    want[i] = kind == CINN_CMP_EQ ? a == bb : kind == CINN_CMP_NE ? a != bb
                              : kind == CINN_CMP_GE ? a >= bb : kind == CINN_CMP_GT ? a > bb
                              : kind == CINN_CMP_LE ? a <= bb : a < bb;
                }
                ct_output(&c, z, want);
                assert_int_equal(fe_cinn_var_prec(c.b, z), 2);
                char what[64];
                snprintf(what, sizeof what, "Compare %s (mode %d, %d bits)", names[kind], mode, p);
                ct_check(&c, what);
                ct_end(&c);
            }
}

static void test_select(void **state)
{
    (void)state;
    for (int cst = 0; cst < 2; cst++) {
        CtCase c;
        ct_begin(&c, 600 + (uint64_t)cst);
        /* Select takes three tensors of one shape; with a batch of N > 1 a constant would
         * have to hold N samples (the whole tensor would be the unit): one sample here */
        int32_t cv[96];
        for (int i = 0; i < 96; i++)
            cv[i] = (int32_t)ct_range(&c, -1, 1);
        CinnVar cond = cst ? ct_const(&c, "c", CT_SHP(1, 6, 16), cv, 0)
                           : ct_input(&c, "c", CT_SHP(2, 3, 16), 2, cv);
        CinnVar t = cst ? ct_input(&c, "t", CT_SHP(1, 6, 16), 10, NULL)
                        : ct_input(&c, "t", CT_SHP(2, 3, 16), 10, NULL);
        CinnVar f = cst ? ct_input(&c, "f", CT_SHP(1, 6, 16), 6, NULL)
                        : ct_input(&c, "f", CT_SHP(2, 3, 16), 6, NULL);
        CinnVar s = fe_cinn_select(c.b, cond, t, f, "s");
        int32_t want[96];
        uint32_t kt = cst ? 0 : 1, kf = cst ? 1 : 2;
        for (int i = 0; i < 96; i++)
            want[i] = cv[i] ? ct_in(&c, kt)[i] : ct_in(&c, kf)[i];
        ct_output(&c, s, want);
        ct_check(&c, cst ? "Select (constant condition)" : "Select");
        ct_end(&c);
    }
}

/* Chains: results feed further primitives (a 0/1 result into Select, a real function's output
 * into arithmetic), two outputs. */
static void test_chain(void **state)
{
    (void)state;
    CtCase c;
    ct_begin(&c, 700);
    CinnVar x = ct_input(&c, "x", CT_SHP(2, 4, 8), 8, NULL);
    CinnVar zero = fe_cinn_const_scalar(c.b, 0, "zero");
    CinnVar pos = fe_cinn_compare(c.b, x, zero, CINN_CMP_GT, "pos");
    CinnFixed fx = {5, 7, 8};
    CinnVar e = fe_cinn_exp(c.b, x, &fx, "e");
    CinnVar s = fe_cinn_select(c.b, pos, x, e, "elu");
    CinnVar m = fe_cinn_mul(c.b, s, pos, "m");
    int32_t want_s[64], want_m[64];
    for (int i = 0; i < 64; i++) {
        int32_t v = ct_in(&c, 0)[i];
        int32_t ev = ref_real(exp, v, &fx, 8);
        want_s[i] = v > 0 ? v : ev;
        want_m[i] = v > 0 ? v : 0;
    }
    ct_output(&c, s, want_s);
    ct_output(&c, m, want_m);
    ct_check(&c, "chain");
    ct_end(&c);
}

/* Clamping a wide value with Max and Min of constant scalars narrows its precision to the
 * clamp's range (value ranges, docs/cinn.md section 1), so it can feed a real function. */
static void test_clamp(void **state)
{
    (void)state;
    CtCase c;
    ct_begin(&c, 800);
    CinnVar x = ct_input(&c, "x", CT_SHP(2, 64), 20, NULL);
    CinnVar lo = fe_cinn_const_scalar(c.b, -100, "lo");
    CinnVar hi = fe_cinn_const_scalar(c.b, 127, "hi");
    CinnVar a = fe_cinn_max(c.b, x, lo, "a");
    CinnVar k = fe_cinn_min(c.b, hi, a, "k"); /* the constant first */
    assert_int_equal(fe_cinn_var_prec(c.b, a), 20);
    assert_int_equal(fe_cinn_var_prec(c.b, k), 8);
    CinnFixed fx = {4, 6, 0};
    CinnVar t = fe_cinn_atan(c.b, k, &fx, "t");
    int32_t want_k[128], want_t[128];
    for (int i = 0; i < 128; i++) {
        int32_t v = ct_in(&c, 0)[i];
        want_k[i] = v < -100 ? -100 : v > 127 ? 127 : v;
        want_t[i] = ref_real(atan, want_k[i], &fx, 8);
    }
    ct_output(&c, k, want_k);
    ct_output(&c, t, want_t);
    ct_check(&c, "clamp then Atan");
    ct_end(&c);
}

/* Every elementwise primitive of the table (and Compare, Select) went the whole way. */
static bool elementwise(CinnPrim p)
{
    if (!fe_cinn_prim_supported(p))
        return false;
    static const CinnPrim others[] = {CINN_P_Input, CINN_P_Output, CINN_P_Compare,
                                      CINN_P_Select};
    for (size_t i = 0; i < sizeof others / sizeof *others; i++)
        if (p == others[i])
            return true;
    /* everything else: the unary, real, rounding and binary primitives (Dot and the
     * structural calls are test_cinn_nn's) */
    static const CinnPrim nn[] = {CINN_P_Dot, CINN_P_Constant, CINN_P_ConstScalar,
                                  CINN_P_BroadcastTo, CINN_P_Concat, CINN_P_Conv,
                                  CINN_P_Reduce, CINN_P_Reshape, CINN_P_Reverse,
                                  CINN_P_Slice, CINN_P_Transpose};
    for (size_t i = 0; i < sizeof nn / sizeof *nn; i++)
        if (p == nn[i])
            return false;
    return true;
}

static void test_coverage(void **state)
{
    (void)state;
    ct_expect_covered(elementwise);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unary),
        cmocka_unit_test(test_round),
        cmocka_unit_test(test_real),
        cmocka_unit_test(test_real_narrow),
        cmocka_unit_test(test_binary),
        cmocka_unit_test(test_binary_wide),
        cmocka_unit_test(test_power_const),
        cmocka_unit_test(test_shift_const),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_select),
        cmocka_unit_test(test_chain),
        cmocka_unit_test(test_clamp),
        cmocka_unit_test(test_coverage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
