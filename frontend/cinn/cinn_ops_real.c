/* cinn_ops_real.c: cinn_real, the real-valued unary primitives of the CINN primitive semantics
 * (docs/cinn.md) on fixed-point integers (docs/cinn.md, "Real-valued functions").
 *
 * A value x with in_frac fraction bits stands for x / 2^in_frac. The result is
 *     y = sat(rne(f(x / 2^in_frac) * 2^out_frac)),
 * rne = round to nearest, ties to even; sat = clamp to +-(2^(precision-1) - 1); a NaN (an
 * argument outside f's domain: log of a negative number, acos(2), ...) gives 0, +-infinity
 * (log 0, atanh 1, rsqrt 0) saturates. Scaling by powers of two is exact; f is evaluated in
 * long double (x86-64: 64-bit significand, glibc's long double functions are within a few
 * ulp). A rounding decision could then only be wrong when the exact value lies within a few
 * ulp of a tie k + 1/2; such a value (closer than 2^-56 relative) is reported instead of
 * rounded (cinn_real_value returns false). For sqrt and rsqrt an exact tie is a true tie
 * (sqrtl is correctly rounded, and 1 / sqrt(t) is a half-integer times 2^-out_frac only when
 * it is a power of two, computed exactly); for the transcendental functions an exact tie can
 * only be a rounding artefact (their values at dyadic rationals other than the trivial points,
 * which give integers, are irrational), so it is reported too. The tests evaluate every 8-bit
 * input of every function over a grid of formats against an independent double computation.
 */
#include "frontend/cinn/cinn_ops.h"

#include <math.h>
#include <string.h>

typedef long double (*RealFn)(long double);

static long double rsqrt_l(long double t)
{
    return 1.0L / sqrtl(t);
}

typedef struct RealInfo {
    const char *name;
    RealFn fn;
    bool exact_ties;        /* an exact tie in long double is a true tie */
} RealInfo;

static const RealInfo reals[] = {
    {"acos", acosl, false},   {"acosh", acoshl, false}, {"asin", asinl, false},
    {"asinh", asinhl, false}, {"atan", atanl, false},   {"atanh", atanhl, false},
    {"cos", cosl, false},     {"cosh", coshl, false},   {"erf", erfl, false},
    {"exp", expl, false},     {"log", logl, false},     {"log10", log10l, false},
    {"log2", log2l, false},   {"rsqrt", rsqrt_l, true}, {"sin", sinl, false},
    {"sinh", sinhl, false},   {"sqrt", sqrtl, true},    {"tan", tanl, false},
    {"tanh", tanhl, false},
};

#define NREALS (sizeof reals / sizeof *reals)

static const RealInfo *find(const char *func)
{
    for (size_t i = 0; i < NREALS; i++)
        if (strcmp(reals[i].name, func) == 0)
            return &reals[i];
    return NULL;
}

bool cinn_real_known(const char *func)
{
    return find(func) != NULL;
}

const char *cinn_real_choices(void)
{
    return "acos|acosh|asin|asinh|atan|atanh|cos|cosh|erf|exp|log|log10|log2|rsqrt|sin|sinh|"
           "sqrt|tan|tanh";
}

bool cinn_real_value(const char *func, int64_t x, int in_frac, int out_frac, int prec,
                     int64_t *out)
{
    *out = 0;
    const RealInfo *ri = find(func);
    if (!ri)
        return false;
    int64_t alpha = og_prec_alpha(prec);
    long double y = ri->fn(ldexpl((long double)x, -in_frac));
    if (isnan(y))
        return true;
    long double v = ldexpl(y, out_frac);
    if (v >= (long double)alpha) {
        *out = alpha;
        return true;
    }
    if (v <= -(long double)alpha) {
        *out = -alpha;
        return true;
    }
    long double r = floorl(v), d = v - r; /* |v| < 2^31: r and d are exact */
    long double gap = fabsl(d - 0.5L), tol = ldexpl(fabsl(v) > 1.0L ? fabsl(v) : 1.0L, -56);
    if (gap < tol && !(gap == 0.0L && ri->exact_ties))
        return false;
    int64_t k = (int64_t)r;
    if (d > 0.5L || (d == 0.5L && (k & 1)))
        k++;
    *out = k;
    return true;
}

Status cinn_run_real(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    const char *func = og_attr_str(c->n, "func", "");
    int fi = (int)og_attr_int(c->n, "in_frac", 0), fo = (int)og_attr_int(c->n, "out_frac", 0);
    int prec = (int)og_attr_int(c->n, "precision", 32);
    for (int64_t i = 0; i < out->count; i++) {
        int64_t v;
        if (!cinn_real_value(func, in[0]->data[i], fi, fo, prec, &v)) {
            char where[320];
            og_node_describe(c->n, where, sizeof where);
            return diag_add(c->d, ST_RUNTIME, "cinn.real.tie", where, "%s(%d / 2^%d) * 2^%d "
                            "lies too close to a rounding tie to round it correctly in long "
                            "double", func, (int)in[0]->data[i], fi, fo);
        }
        out->data[i] = (int32_t)v;
    }
    return ST_OK;
}
