/* sim_rearrange.c: applying decoded rearrangement steps (rearrange.h) to int32 tensors, for
 * the simulator's edge copies. One apply function per type, dispatched through a table
 * expanded from rearranges.def. Most types are gathers: for every destination index o (C
 * order) a map gives the source index u, or "outside" for a zero; docs/semantics.md gives
 * each map. Steps were validated by ra_decode, so no map can index out of range.
 */
#include "sim_internal.h"

#include <string.h>

/* Floor division for a positive or negative divisor (q = floor(a / b), b != 0). */
static int64_t floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;
    return q;
}

static int64_t mod_pos(int64_t a, int64_t m)
{
    int64_t r = a % m;
    return r < 0 ? r + m : r;
}

/* A gather map: fills u from the destination index o; false means "outside" (zero). */
typedef bool (*RaMapFn)(const RaStep *s, const int64_t *o, int64_t *u);

static void gather(const RaStep *s, const int32_t *in, int32_t *out, RaMapFn map)
{
    int k = s->out.k;
    int64_t st[TIR_CDIMS], o[TIR_CDIMS] = {0}, u[TIR_CDIMS];
    int64_t n = ra_volume(&s->out);
    int64_t acc = 1;
    for (int a = s->in.k - 1; a >= 0; a--) {
        st[a] = acc;
        acc *= s->in.d[a];
    }
    for (int64_t i = 0; i < n; i++) {
        if (map(s, o, u)) {
            int64_t off = 0;
            for (int a = 0; a < s->in.k; a++)
                off += u[a] * st[a];
            out[i] = in[off];
        } else {
            out[i] = 0;
        }
        for (int a = k - 1; a >= 0; a--) {
            if (++o[a] < s->out.d[a])
                break;
            o[a] = 0;
        }
    }
}

static bool map_SHIFT(const RaStep *s, const int64_t *o, int64_t *u)
{
    for (int a = 0; a < s->in.k; a++) {
        int64_t v = o[a] - s->shift[a];
        if (s->cyclic)
            v = mod_pos(v, s->in.d[a]);
        else if (v < 0 || v >= s->in.d[a])
            return false;
        u[a] = v;
    }
    return true;
}

static bool map_ROTATE(const RaStep *s, const int64_t *o, int64_t *u)
{
    for (int a = 0; a < s->in.k; a++)
        u[a] = o[a];
    int64_t i = o[s->ax0], j = o[s->ax1];
    int64_t m = s->in.d[s->ax0], n = s->in.d[s->ax1];
    switch (s->turns) {
    case 1:
        u[s->ax0] = j;
        u[s->ax1] = n - 1 - i;
        break;
    case 2:
        u[s->ax0] = m - 1 - i;
        u[s->ax1] = n - 1 - j;
        break;
    case 3:
        u[s->ax0] = m - 1 - j;
        u[s->ax1] = i;
        break;
    default:
        break;
    }
    return true;
}

static bool map_SCALE(const RaStep *s, const int64_t *o, int64_t *u)
{
    for (int a = 0; a < s->in.k; a++) {
        int32_t f = s->factor[a];
        u[a] = f > 1 ? o[a] / f : f < -1 ? o[a] * -(int64_t)f : o[a];
    }
    return true;
}

static bool map_SHEAR(const RaStep *s, const int64_t *o, int64_t *u)
{
    for (int a = 0; a < s->in.k; a++)
        u[a] = o[a];
    int64_t m = s->in.d[s->ax0], n = s->in.d[s->ax1];
    if (s->shear_a) {
        int64_t off = s->shear_a < 0 ? -s->shear_a * (m - 1) : 0;
        int64_t j = o[s->ax1] - s->shear_a * o[s->ax0] - off;
        if (j < 0 || j >= n)
            return false;
        u[s->ax1] = j;
    } else if (s->shear_b) {
        int64_t off = s->shear_b < 0 ? -s->shear_b * (n - 1) : 0;
        int64_t i = o[s->ax0] - s->shear_b * o[s->ax1] - off;
        if (i < 0 || i >= m)
            return false;
        u[s->ax0] = i;
    }
    return true;
}

static bool map_REFLECT(const RaStep *s, const int64_t *o, int64_t *u)
{
    for (int a = 0; a < s->in.k; a++)
        u[a] = s->flip[a] ? s->in.d[a] - 1 - o[a] : o[a];
    return true;
}

static bool map_AFFINE(const RaStep *s, const int64_t *o, int64_t *u)
{
    int k = s->in.k;
    for (int a = 0; a < k; a++) {
        const int32_t *row = &s->mat[a * (k + 1)];
        int64_t h = row[k];
        for (int j = 0; j < k; j++)
            h += (int64_t)row[j] * o[j];
        u[a] = floordiv(h, s->den);
        if (u[a] < 0 || u[a] >= s->in.d[a])
            return false;
    }
    return true;
}

static bool map_PROJECT(const RaStep *s, const int64_t *o, int64_t *u)
{
    int k = s->in.k;
    int64_t h[TIR_CDIMS + 1] = {0};
    for (int a = 0; a <= k; a++) {
        const int32_t *row = &s->mat[a * (k + 1)];
        h[a] = row[k];
        for (int j = 0; j < k; j++)
            h[a] += (int64_t)row[j] * o[j];
    }
    if (h[k] == 0)
        return false;
    for (int a = 0; a < k; a++) {
        u[a] = floordiv(h[a], h[k]);
        if (u[a] < 0 || u[a] >= s->in.d[a])
            return false;
    }
    return true;
}

static int64_t index_at(const Tensor *t, int64_t i)
{
    if (t->n_i32)
        return t->i32[i];
    if (t->n_u32)
        return t->u32[i];
    return (int64_t)t->f32[i];
}

static bool map_SHUFFLE(const RaStep *s, const int64_t *o, int64_t *u)
{
    for (int a = 0; a < s->in.k; a++)
        u[a] = o[a];
    u[s->axis] = index_at(s->index, o[s->axis]);
    return true;
}

/* ---- apply functions, one per type ---- */

typedef void (*RaApplyFn)(const RaStep *s, const int32_t *in, int32_t *out);

static void app_IDENTITY(const RaStep *s, const int32_t *in, int32_t *out)
{
    memcpy(out, in, (size_t)ra_volume(&s->in) * sizeof *out);
}

/* out = in.transpose(perm): an odometer over the destination with the source offset kept
 * incrementally; the innermost axis is a strided loop. */
static void transpose(const RaStep *s, const int32_t *in, int32_t *out)
{
    int k = s->in.k;
    if (k == 0) {
        out[0] = in[0];
        return;
    }
    int64_t st_in[TIR_CDIMS], st[TIR_CDIMS], o[TIR_CDIMS] = {0};
    int64_t acc = 1;
    for (int a = k - 1; a >= 0; a--) {
        st_in[a] = acc;
        acc *= s->in.d[a];
    }
    for (int j = 0; j < k; j++)
        st[j] = st_in[s->perm[j]];
    int64_t n = ra_volume(&s->out), inner = s->out.d[k - 1], sin = st[k - 1];
    int64_t off = 0;
    for (int64_t i = 0; i < n; i += inner) {
        for (int64_t t = 0; t < inner; t++)
            out[i + t] = in[off + t * sin];
        for (int a = k - 2; a >= 0; a--) {
            off += st[a];
            if (++o[a] < s->out.d[a])
                break;
            off -= st[a] * o[a];
            o[a] = 0;
        }
    }
}

static void app_RESHAPE(const RaStep *s, const int32_t *in, int32_t *out)
{
    transpose(s, in, out);
}

static void app_PERMUTE(const RaStep *s, const int32_t *in, int32_t *out)
{
    transpose(s, in, out);
}

static void app_SHIFT(const RaStep *s, const int32_t *in, int32_t *out)
{
    gather(s, in, out, map_SHIFT);
}

static void app_ROTATE(const RaStep *s, const int32_t *in, int32_t *out)
{
    gather(s, in, out, map_ROTATE);
}

static void app_SCALE(const RaStep *s, const int32_t *in, int32_t *out)
{
    gather(s, in, out, map_SCALE);
}

static void app_SHEAR(const RaStep *s, const int32_t *in, int32_t *out)
{
    gather(s, in, out, map_SHEAR);
}

static void app_REFLECT(const RaStep *s, const int32_t *in, int32_t *out)
{
    gather(s, in, out, map_REFLECT);
}

static void app_AFFINE(const RaStep *s, const int32_t *in, int32_t *out)
{
    gather(s, in, out, map_AFFINE);
}

static void app_PROJECT(const RaStep *s, const int32_t *in, int32_t *out)
{
    gather(s, in, out, map_PROJECT);
}

static void app_SHUFFLE(const RaStep *s, const int32_t *in, int32_t *out)
{
    if (s->axis >= 0) {
        gather(s, in, out, map_SHUFFLE);
        return;
    }
    int64_t n = ra_volume(&s->out);
    for (int64_t i = 0; i < n; i++)
        out[i] = in[index_at(s->index, i)];
}

static const RaApplyFn ra_apply_fns[RT_COUNT] = {
#define X(name, wire, keeps) app_##name,
#include "taskir/rearranges.def"
#undef X
};

void sim_rearrange_apply(const RaStep *s, const int32_t *in, int32_t *out)
{
    ra_apply_fns[s->type](s, in, out);
}
