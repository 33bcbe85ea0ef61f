/* rearrange.c: decoding, checking and describing rearrangement steps (see rearrange.h and
 * docs/semantics.md "Rearrangements"). The per-type decoders and describers are one table
 * expanded from rearranges.def, so a new type is one row there plus its two functions here.
 *
 * Parameter tensors hold integers: int32_data, uint32_data (<= INT32_MAX) or float_data whose
 * values are integral; their dims are not looked at, only the values in order. An absent or
 * empty optional tensor takes its default.
 */
#include "taskir/rearrange.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- parameter tensors ---- */

static uint64_t t_count(const Tensor *t)
{
    if (!t)
        return 0;
    if (t->n_i32)
        return t->n_i32;
    if (t->n_u32)
        return t->n_u32;
    return t->n_f32;
}

/* Value i of t as an int64; false when it is not an integer in int32 range. */
static bool t_val(const Tensor *t, uint64_t i, int64_t *v)
{
    if (t->n_i32) {
        *v = t->i32[i];
        return true;
    }
    if (t->n_u32) {
        *v = t->u32[i];
        return t->u32[i] <= INT32_MAX;
    }
    float f = t->f32[i];
    if (!(f >= -2147483648.0f && f < 2147483648.0f) || floorf(f) != f)
        return false;
    *v = (int64_t)f;
    return true;
}

static const Tensor *mat(const Rearrange *r, uint32_t i)
{
    return i < r->n_mats ? &r->mats[i] : NULL;
}

static bool fail(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return false;
}

/* Reads exactly n integers of tensor m (n > 0) in [lo, hi] into out. */
static bool read_ints(const Tensor *m, const char *what, uint64_t n, int64_t lo, int64_t hi,
                      int64_t *out, char *why, size_t len)
{
    uint64_t c = t_count(m);
    if (c != n)
        return fail(why, len, "%s has %" PRIu64 " entries, %" PRIu64 " expected", what, c, n);
    for (uint64_t i = 0; i < n; i++) {
        int64_t v;
        if (!t_val(m, i, &v))
            return fail(why, len, "%s entry %" PRIu64 " is not an int32 integer", what, i);
        if (v < lo || v > hi)
            return fail(why, len, "%s entry %" PRIu64 " is %" PRId64 ", outside %" PRId64
                        "..%" PRId64, what, i, v, lo, hi);
        out[i] = v;
    }
    return true;
}

void ra_shape_of_box(const int32_t box[TIR_CDIMS], RaShape *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < TIR_CDIMS; i++)
        if (box[i] > 0)
            out->d[out->k++] = box[i];
}

int64_t ra_volume(const RaShape *s)
{
    int64_t v = 1;
    for (int i = 0; i < s->k; i++) {
        if (s->d[i] <= 0 || v > INT64_MAX / s->d[i])
            return -1;
        v *= s->d[i];
    }
    return v;
}

/* The output shape must stay within RA_MAX_ELEMS. */
static bool out_ok(RaStep *s, char *why, size_t len)
{
    int64_t v = 1;
    for (int i = 0; i < s->out.k; i++) {
        if (s->out.d[i] < 1 || s->out.d[i] > RA_MAX_ELEMS || v > RA_MAX_ELEMS / s->out.d[i])
            return fail(why, len, "the result would have more than %" PRId64 " elements",
                        (int64_t)RA_MAX_ELEMS);
        v *= s->out.d[i];
    }
    return true;
}

/* Reads a permutation of 0..k-1 from m into p. */
static bool read_perm(const Tensor *m, int k, int *p, char *why, size_t len)
{
    int64_t v[TIR_CDIMS];
    if (k == 0) {
        if (t_count(m) != 0)
            return fail(why, len, "p has %" PRIu64 " entries, the box has no axes",
                        t_count(m));
        return true;
    }
    if (!read_ints(m, "p", (uint64_t)k, 0, k - 1, v, why, len))
        return false;
    bool seen[TIR_CDIMS] = {false};
    for (int i = 0; i < k; i++) {
        if (seen[v[i]])
            return fail(why, len, "p names axis %d twice", (int)v[i]);
        seen[v[i]] = true;
        p[i] = (int)v[i];
    }
    return true;
}

/* Reads the optional plane axes (entries first..first+1 of m, when m has them). */
static bool plane(RaStep *s, const int64_t *v, bool given, char *why, size_t len)
{
    if (s->in.k < 2)
        return fail(why, len, "needs a box with at least 2 axes, it has %d", s->in.k);
    s->ax0 = given ? (int)v[0] : 0;
    s->ax1 = given ? (int)v[1] : 1;
    if (s->ax0 < 0 || s->ax0 >= s->in.k || s->ax1 < 0 || s->ax1 >= s->in.k ||
        s->ax0 == s->ax1)
        return fail(why, len, "the plane axes (%d,%d) must be two different axes of 0..%d",
                    s->ax0, s->ax1, s->in.k - 1);
    return true;
}

static bool no_more(const Rearrange *r, uint32_t used, char *why, size_t len)
{
    for (uint32_t i = used; i < r->n_mats; i++)
        if (t_count(&r->mats[i]))
            return fail(why, len, "has %u parameter tensors, at most %u expected", r->n_mats,
                        used);
    return true;
}

/* ---- decoders, one per type ---- */

typedef bool (*RaDecodeFn)(const Rearrange *r, RaStep *s, char *why, size_t len);

static bool dec_IDENTITY(const Rearrange *r, RaStep *s, char *why, size_t len)
{
    s->out = s->in;
    return no_more(r, 0, why, len);
}

static bool dec_RESHAPE(const Rearrange *r, RaStep *s, char *why, size_t len)
{
    const Tensor *m = mat(r, 0);
    int k = s->in.k;
    if (!t_count(m)) {
        for (int j = 0; j < k; j++)
            s->perm[j] = j;
    } else {
        int p[TIR_CDIMS];
        if (!read_perm(m, k, p, why, len))
            return false;
        for (int j = 0; j < k; j++) /* p lists the axes fastest first */
            s->perm[j] = p[k - 1 - j];
    }
    s->out.k = k;
    for (int j = 0; j < k; j++)
        s->out.d[j] = s->in.d[s->perm[j]];
    return no_more(r, 1, why, len);
}

static bool dec_PERMUTE(const Rearrange *r, RaStep *s, char *why, size_t len)
{
    const Tensor *m = mat(r, 0);
    if (!t_count(m) && s->in.k > 0)
        return fail(why, len, "needs the permutation p");
    if (!read_perm(m, s->in.k, s->perm, why, len))
        return false;
    s->out.k = s->in.k;
    for (int j = 0; j < s->in.k; j++)
        s->out.d[j] = s->in.d[s->perm[j]];
    return no_more(r, 1, why, len);
}

static bool dec_SHIFT(const Rearrange *r, RaStep *s, char *why, size_t len)
{
    int k = s->in.k;
    if (k == 0)
        return fail(why, len, "needs a box with at least 1 axis");
    if (!read_ints(mat(r, 0), "d", (uint64_t)k, INT32_MIN, INT32_MAX, s->shift, why, len))
        return false;
    s->cyclic = 1;
    if (t_count(mat(r, 1))) {
        int64_t mode;
        if (!read_ints(mat(r, 1), "mode", 1, 0, 1, &mode, why, len))
            return false;
        s->cyclic = mode == 0;
    }
    s->out = s->in;
    return no_more(r, 2, why, len);
}

static bool dec_ROTATE(const Rearrange *r, RaStep *s, char *why, size_t len)
{
    const Tensor *m = mat(r, 0);
    uint64_t c = t_count(m);
    int64_t v[3];
    if (c != 1 && c != 3)
        return fail(why, len, "needs [degrees] or [degrees, row axis, column axis], got %"
                    PRIu64 " entries", c);
    if (!read_ints(m, "the rotation", c, INT32_MIN, INT32_MAX, v, why, len))
        return false;
    if (v[0] % 90 != 0)
        return fail(why, len, "the angle %" PRId64 " is not a multiple of 90 degrees", v[0]);
    s->turns = (int)(((v[0] / 90) % 4 + 4) % 4);
    if (!plane(s, v + 1, c == 3, why, len))
        return false;
    s->out = s->in;
    if (s->turns % 2) {
        s->out.d[s->ax0] = s->in.d[s->ax1];
        s->out.d[s->ax1] = s->in.d[s->ax0];
    }
    return no_more(r, 1, why, len);
}

static bool dec_SCALE(const Rearrange *r, RaStep *s, char *why, size_t len)
{
    int k = s->in.k;
    int64_t v[TIR_CDIMS];
    if (k == 0)
        return fail(why, len, "needs a box with at least 1 axis");
    if (!read_ints(mat(r, 0), "the factors", (uint64_t)k, -RA_MAX_ELEMS, RA_MAX_ELEMS, v, why,
                   len))
        return false;
    s->out = s->in;
    for (int i = 0; i < k; i++) {
        if (v[i] == 0)
            return fail(why, len, "factor %d is 0 (use n > 0 to upsample, -n to downsample)",
                        i);
        s->factor[i] = (int32_t)v[i];
        if (v[i] > 1) {
            if (s->in.d[i] > RA_MAX_ELEMS / v[i])
                return fail(why, len, "the result would have more than %" PRId64 " elements",
                            (int64_t)RA_MAX_ELEMS);
            s->out.d[i] = s->in.d[i] * v[i];
        } else if (v[i] < -1) {
            s->out.d[i] = (s->in.d[i] + (-v[i]) - 1) / -v[i];
        }
    }
    return out_ok(s, why, len) && no_more(r, 1, why, len);
}

static bool dec_SHEAR(const Rearrange *r, RaStep *s, char *why, size_t len)
{
    const Tensor *m = mat(r, 0);
    uint64_t c = t_count(m);
    int64_t v[4];
    if (c != 2 && c != 4)
        return fail(why, len, "needs [a, b] or [a, b, row axis, column axis], got %" PRIu64
                    " entries", c);
    if (!read_ints(m, "the shear", c, -RA_MAX_ELEMS, RA_MAX_ELEMS, v, why, len))
        return false;
    if (v[0] != 0 && v[1] != 0)
        return fail(why, len, "a=%" PRId64 " and b=%" PRId64 ": at most one may be non-zero "
                    "(chain two SHEAR steps)", v[0], v[1]);
    if (!plane(s, v + 2, c == 4, why, len))
        return false;
    s->shear_a = v[0];
    s->shear_b = v[1];
    s->out = s->in;
    int64_t m0 = s->in.d[s->ax0], n1 = s->in.d[s->ax1];
    int64_t a = v[0] < 0 ? -v[0] : v[0], b = v[1] < 0 ? -v[1] : v[1];
    if ((a && m0 - 1 > RA_MAX_ELEMS / a) || (b && n1 - 1 > RA_MAX_ELEMS / b))
        return fail(why, len, "the result would have more than %" PRId64 " elements",
                    (int64_t)RA_MAX_ELEMS);
    s->out.d[s->ax1] = n1 + a * (m0 - 1);
    s->out.d[s->ax0] = m0 + b * (n1 - 1);
    return out_ok(s, why, len) && no_more(r, 1, why, len);
}

static bool dec_REFLECT(const Rearrange *r, RaStep *s, char *why, size_t len)
{
    const Tensor *m = mat(r, 0);
    uint64_t c = t_count(m);
    int64_t v[TIR_CDIMS];
    if (c < 1 || c > (uint64_t)s->in.k)
        return fail(why, len, "needs 1..%d axes to reverse, got %" PRIu64 " entries", s->in.k,
                    c);
    if (!read_ints(m, "the axes", c, 0, s->in.k - 1, v, why, len))
        return false;
    for (uint64_t i = 0; i < c; i++) {
        if (s->flip[v[i]])
            return fail(why, len, "axis %d is listed twice", (int)v[i]);
        s->flip[v[i]] = 1;
    }
    s->out = s->in;
    return no_more(r, 1, why, len);
}

/* The optional output shape of AFFINE / PROJECT in tensor i (default: the input shape). */
static bool out_shape(const Rearrange *r, uint32_t i, RaStep *s, char *why, size_t len)
{
    s->out = s->in;
    if (!t_count(mat(r, i)))
        return true;
    int64_t v[TIR_CDIMS];
    if (!read_ints(mat(r, i), "the output shape", (uint64_t)s->in.k, 1, RA_MAX_ELEMS, v, why,
                   len))
        return false;
    for (int j = 0; j < s->in.k; j++)
        s->out.d[j] = v[j];
    return out_ok(s, why, len);
}

static bool read_matrix(const Rearrange *r, RaStep *s, uint64_t n, const char *form, char *why,
                        size_t len)
{
    int64_t v[(TIR_CDIMS + 1) * (TIR_CDIMS + 1)];
    if (t_count(mat(r, 0)) != n)
        return fail(why, len, "M has %" PRIu64 " entries, a %s matrix (%" PRIu64 ") expected",
                    t_count(mat(r, 0)), form, n);
    if (!read_ints(mat(r, 0), "M", n, -RA_MAX_COEF, RA_MAX_COEF, v, why, len))
        return false;
    for (uint64_t i = 0; i < n; i++)
        s->mat[i] = (int32_t)v[i];
    return true;
}

static bool dec_AFFINE(const Rearrange *r, RaStep *s, char *why, size_t len)
{
    int k = s->in.k;
    char form[32];
    snprintf(form, sizeof form, "%dx%d", k, k + 1);
    if (!read_matrix(r, s, (uint64_t)k * (uint64_t)(k + 1), form, why, len))
        return false;
    s->den = 1;
    if (t_count(mat(r, 1))) {
        int64_t den;
        if (!read_ints(mat(r, 1), "den", 1, 1, RA_MAX_COEF, &den, why, len))
            return false;
        s->den = (int32_t)den;
    }
    return out_shape(r, 2, s, why, len) && no_more(r, 3, why, len);
}

static bool dec_PROJECT(const Rearrange *r, RaStep *s, char *why, size_t len)
{
    int k = s->in.k;
    char form[32];
    snprintf(form, sizeof form, "%dx%d", k + 1, k + 1);
    if (!read_matrix(r, s, (uint64_t)(k + 1) * (uint64_t)(k + 1), form, why, len))
        return false;
    return out_shape(r, 1, s, why, len) && no_more(r, 2, why, len);
}

static bool dec_SHUFFLE(const Rearrange *r, RaStep *s, char *why, size_t len)
{
    const Tensor *m = mat(r, 0);
    s->out = s->in;
    s->axis = -1;
    if (t_count(mat(r, 1))) {
        int64_t a;
        if (!read_ints(mat(r, 1), "axis", 1, 0, s->in.k - 1, &a, why, len))
            return false;
        s->axis = (int)a;
    }
    int64_t n = s->axis < 0 ? ra_volume(&s->in) : s->in.d[s->axis];
    uint64_t c = t_count(m);
    if (c != (uint64_t)n)
        return fail(why, len, "the index has %" PRIu64 " entries, %" PRId64 " expected", c, n);
    for (uint64_t i = 0; i < c; i++) {
        int64_t v;
        if (!t_val(m, i, &v) || v < 0 || v >= n)
            return fail(why, len, "index entry %" PRIu64 " is not in 0..%" PRId64, i, n - 1);
    }
    s->index = m;
    return no_more(r, 2, why, len);
}

static const RaDecodeFn ra_decoders[RT_COUNT] = {
#define X(name, wire, keeps) dec_##name,
#include "taskir/rearranges.def"
#undef X
};

bool ra_decode(const Rearrange *r, const RaShape *in, RaStep *out, char *why, size_t whylen)
{
    memset(out, 0, sizeof *out);
    out->in = *in;
    out->type = r->type;
    const RearrangeTypeInfo *ri = rt_info(r->type);
    if (!ri)
        return fail(why, whylen, "unknown rearrangement type %d", (int)r->type);
    char sub[200];
    if (!ra_decoders[r->type](r, out, sub, sizeof sub))
        return fail(why, whylen, "%s: %s", ri->name, sub);
    return true;
}

/* ---- describing ---- */

typedef struct Buf {
    char *p;
    size_t len, n;
} Buf;

static void bprintf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bprintf(Buf *b, const char *fmt, ...)
{
    if (b->n >= b->len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b->p + b->n, b->len - b->n, fmt, ap);
    va_end(ap);
    if (k > 0)
        b->n += (size_t)k < b->len - b->n ? (size_t)k : b->len - b->n;
}

/* Prints the values of t as [a,b,...], at most 16, or rows of width w when w > 0. */
static void bvals(Buf *b, const Tensor *t, uint64_t w)
{
    uint64_t c = t_count(t), show = c > 16 && !w ? 16 : c;
    bprintf(b, "[");
    for (uint64_t i = 0; i < show; i++) {
        if (w && i % w == 0)
            bprintf(b, "%s[", i ? ",": "");
        else if (i)
            bprintf(b, ",");
        int64_t v;
        if (t_val(t, i, &v))
            bprintf(b, "%" PRId64, v);
        else if (t->n_u32)
            bprintf(b, "%" PRIu32, t->u32[i]);
        else
            bprintf(b, "%g", (double)t->f32[i]);
        if (w && (i % w == w - 1 || i + 1 == show))
            bprintf(b, "]");
    }
    if (show < c)
        bprintf(b, ",... %" PRIu64 " entries", c);
    bprintf(b, "]");
}

static int64_t val0(const Tensor *t, uint64_t i, int64_t dflt)
{
    int64_t v;
    return t && i < t_count(t) && t_val(t, i, &v) ? v : dflt;
}

/* Extra parameter tensors that the type does not use. */
static void bextra(Buf *b, const Rearrange *r, uint32_t used)
{
    for (uint32_t i = used; i < r->n_mats; i++) {
        bprintf(b, " extra%u=", i);
        bvals(b, &r->mats[i], 0);
    }
}

typedef void (*RaDescribeFn)(const Rearrange *r, Buf *b);

static void desc_IDENTITY(const Rearrange *r, Buf *b)
{
    bextra(b, r, 0);
}

static void desc_RESHAPE(const Rearrange *r, Buf *b)
{
    if (!t_count(mat(r, 0)))
        bprintf(b, " (C order)");
    else {
        bprintf(b, " p=");
        bvals(b, mat(r, 0), 0);
        bprintf(b, " (fastest first)");
    }
    bextra(b, r, 1);
}

static void desc_PERMUTE(const Rearrange *r, Buf *b)
{
    bprintf(b, " p=");
    bvals(b, mat(r, 0), 0);
    bextra(b, r, 1);
}

static void desc_SHIFT(const Rearrange *r, Buf *b)
{
    bprintf(b, " d=");
    bvals(b, mat(r, 0), 0);
    bprintf(b, " %s", val0(mat(r, 1), 0, 0) == 1 ? "zero-fill" : "cyclic");
    bextra(b, r, 2);
}

static void desc_ROTATE(const Rearrange *r, Buf *b)
{
    const Tensor *m = mat(r, 0);
    bprintf(b, " %" PRId64 "deg ccw axes=(%" PRId64 ",%" PRId64 ")", val0(m, 0, 0),
            val0(m, 1, 0), val0(m, 2, 1));
    bextra(b, r, 1);
}

static void desc_SCALE(const Rearrange *r, Buf *b)
{
    bprintf(b, " factors=");
    bvals(b, mat(r, 0), 0);
    bprintf(b, " (n: up, -n: down)");
    bextra(b, r, 1);
}

static void desc_SHEAR(const Rearrange *r, Buf *b)
{
    const Tensor *m = mat(r, 0);
    bprintf(b, " a=%" PRId64 " b=%" PRId64 " axes=(%" PRId64 ",%" PRId64 ") zero-fill",
            val0(m, 0, 0), val0(m, 1, 0), val0(m, 2, 0), val0(m, 3, 1));
    bextra(b, r, 1);
}

static void desc_REFLECT(const Rearrange *r, Buf *b)
{
    bprintf(b, " axes=");
    bvals(b, mat(r, 0), 0);
    bextra(b, r, 1);
}

/* The matrix width w with w*(w-1) == c (AFFINE) or w*w == c (PROJECT); 0 when none. */
static uint64_t mat_width(uint64_t c, bool affine)
{
    for (uint64_t w = 1; w <= TIR_CDIMS + 1; w++)
        if ((affine ? w * (w - 1) : w * w) == c)
            return w;
    return 0;
}

static void desc_AFFINE(const Rearrange *r, Buf *b)
{
    bprintf(b, " M=");
    bvals(b, mat(r, 0), mat_width(t_count(mat(r, 0)), true));
    bprintf(b, " den=%" PRId64 " out=", val0(mat(r, 1), 0, 1));
    if (t_count(mat(r, 2)))
        bvals(b, mat(r, 2), 0);
    else
        bprintf(b, "source");
    bextra(b, r, 3);
}

static void desc_PROJECT(const Rearrange *r, Buf *b)
{
    bprintf(b, " M=");
    bvals(b, mat(r, 0), mat_width(t_count(mat(r, 0)), false));
    bprintf(b, " out=");
    if (t_count(mat(r, 1)))
        bvals(b, mat(r, 1), 0);
    else
        bprintf(b, "source");
    bextra(b, r, 2);
}

static void desc_SHUFFLE(const Rearrange *r, Buf *b)
{
    bprintf(b, " index=");
    bvals(b, mat(r, 0), 0);
    if (t_count(mat(r, 1)))
        bprintf(b, " axis=%" PRId64, val0(mat(r, 1), 0, 0));
    else
        bprintf(b, " (flat)");
    bextra(b, r, 2);
}

static const RaDescribeFn ra_describers[RT_COUNT] = {
#define X(name, wire, keeps) desc_##name,
#include "taskir/rearranges.def"
#undef X
};

void rearrange_describe(const Rearrange *r, char *buf, size_t len)
{
    if (!len)
        return;
    Buf b = {buf, len, 0};
    buf[0] = 0;
    const RearrangeTypeInfo *ri = rt_info(r->type);
    if (!ri) {
        bprintf(&b, "UNKNOWN(%d)", (int)r->type);
        return;
    }
    bprintf(&b, "%s", ri->name);
    ra_describers[r->type](r, &b);
}

/* ---- edges ---- */

/* The interface of the edge's end found through the use index, with its cluster. */
static bool find_iface(const Graph *g, const GraphUses *u, const Edge *e, bool src,
                       uint32_t *cl, const Iface **f)
{
    const Block *b;
    const IfaceUse *use = uses_edge_end(g, u, e, src, &b);
    if (!use)
        return false;
    *cl = use->cluster;
    *f = src ? &b->out[use->cluster].ifaces[use->iface] : &b->in[use->cluster].ifaces[use->iface];
    return true;
}

/* The box of interface f in a cluster of dims cd. */
static bool iface_box(const int32_t cd[TIR_CDIMS], const Iface *f, int32_t pos[TIR_CDIMS],
                      int32_t box[TIR_CDIMS], const char *end, char *why, size_t len)
{
    for (int i = 0; i < TIR_CDIMS; i++) {
        if (cd[i] < 0)
            return fail(why, len, "the %s cluster has a negative dim", end);
        if (cd[i] == 0) {
            pos[i] = 0;
            box[i] = 0;
            continue;
        }
        int64_t p = f->has_pos ? f->pos.d[i] : 0;
        int64_t s = f->has_size ? f->size.d[i] : cd[i];
        if (p < 0 || s < 1 || p + s > cd[i])
            return fail(why, len, "the %s interface box %s=[%" PRId64 ",+%" PRId64
                        ") does not fit the cluster's %s=%d", end, tir_dim_names[i], p, s,
                        tir_dim_names[i], (int)cd[i]);
        pos[i] = (int32_t)p;
        box[i] = (int32_t)s;
    }
    return true;
}

bool edge_ends(const Graph *g, const GraphUses *u, const Edge *e, EdgeEnds *o, char *why,
               size_t len)
{
    memset(o, 0, sizeof *o);
    o->src = graph_block(g, e->src);
    o->dst = graph_block(g, e->dst);
    if (!o->src || !o->dst)
        return fail(why, len, "its %s block %d does not exist", o->src ? "destination" :
                    "source", (int)(o->src ? e->dst : e->src));
    if (!find_iface(g, u, e, true, &o->src_cluster, &o->src_if))
        return fail(why, len, "no output interface of block %d names it", (int)e->src);
    if (!find_iface(g, u, e, false, &o->dst_cluster, &o->dst_if))
        return fail(why, len, "no input interface of block %d names it", (int)e->dst);
    if (!blk_cluster_dims(o->src, false, o->src_cluster, o->src_cdims))
        return fail(why, len, "block %d has no output cluster %u", (int)e->src,
                    o->src_cluster);
    if (!blk_cluster_dims(o->dst, true, o->dst_cluster, o->dst_cdims))
        return fail(why, len, "block %d has no input cluster %u", (int)e->dst,
                    o->dst_cluster);
    return iface_box(o->src_cdims, o->src_if, o->src_pos, o->src_box, "source", why, len) &&
           iface_box(o->dst_cdims, o->dst_if, o->dst_pos, o->dst_box, "destination", why,
                     len);
}

Status rearrange_check(const Graph *g, const GraphUses *u, const Edge *e, Diag *d)
{
    char why[300];
    EdgeEnds ends;
    if (!edge_ends(g, u, e, &ends, why, sizeof why))
        return diag_edge(d, ST_LOGIC, "rearrange.ends", e->id, "%s", why);
    RaShape cur, dst;
    ra_shape_of_box(ends.src_box, &cur);
    ra_shape_of_box(ends.dst_box, &dst);
    for (uint32_t i = 0; i < e->n_re; i++) {
        RaStep st;
        if (!ra_decode(&e->re[i], &cur, &st, why, sizeof why)) {
            const RearrangeTypeInfo *ri = rt_info(e->re[i].type);
            char rule[40] = "rearrange.type";
            if (ri) {
                size_t n = (size_t)snprintf(rule, sizeof rule, "rearrange.");
                for (size_t k = 0; ri->name[k] && n + 1 < sizeof rule; k++, n++)
                    rule[n] = (char)(ri->name[k] >= 'A' && ri->name[k] <= 'Z'
                                         ? ri->name[k] - 'A' + 'a' : ri->name[k]);
                rule[n] = 0;
            }
            return diag_edge(d, ST_LOGIC, rule, e->id, "rearrangement step %u: %s", i, why);
        }
        cur = st.out;
    }
    int64_t vs = ra_volume(&cur), vd = ra_volume(&dst);
    if (vs != vd)
        return diag_edge(d, ST_LOGIC, "rearrange.volume", e->id,
                         "%s %" PRId64 " elements, the destination box holds %" PRId64,
                         e->n_re ? "the rearranged source has" : "the source box has", vs,
                         vd);
    return ST_OK;
}

bool ra_edge_keeps_order(const Graph *g, const GraphUses *u, const Edge *ed)
{
    if (ed->n_re == 0)
        return true;
    EdgeEnds ends;
    char why[160];
    if (!edge_ends(g, u, ed, &ends, why, sizeof why))
        return false;
    RaShape sh;
    ra_shape_of_box(ends.src_box, &sh);
    for (uint32_t r = 0; r < ed->n_re; r++) {
        RaStep st;
        if (!ra_decode(&ed->re[r], &sh, &st, why, sizeof why))
            return false;
        if (st.type == RT_RESHAPE || st.type == RT_PERMUTE) {
            /* a transposition keeps the C order when the axes longer than 1 keep theirs */
            int last = -1;
            for (int j = 0; j < st.in.k; j++) {
                if (st.in.d[st.perm[j]] == 1)
                    continue;
                if (st.perm[j] < last)
                    return false;
                last = st.perm[j];
            }
        } else if (st.type == RT_SHUFFLE) { /* the identity index keeps every value */
            const Tensor *t = st.index;
            int64_t n = st.axis < 0 ? ra_volume(&st.in) : st.in.d[st.axis];
            if (!t || (int64_t)(t->i32 ? t->n_i32 : t->n_u32) != n)
                return false;
            for (int64_t i = 0; i < n; i++)
                if ((t->i32 ? (int64_t)t->i32[i] : (int64_t)t->u32[i]) != i)
                    return false;
        } else if (st.type != RT_IDENTITY) {
            return false;
        }
        sh = st.out;
    }
    return true;
}
