/* cvm_ops_transform.c: repeat, tile, flatten, reshape, squeeze, expand_dims, transpose,
 * strided_slice, slice_like, concatenate, take and where (the CVM formalization, "Transform
 Operator"). *
 * Where the CVM formalization is silent or evidently mistaken we behave as cvm-runtime does
 * (each point is in docs/cvm-divergences.md):
 *  - negative axes are accepted wherever cvm-runtime accepts them (repeat, concatenate);
 *  - flatten keeps the batch dim: (n0, n1 * ... * n_{N-1});
 *  - reshape takes MXNet's special values 0, -1, -2, -3, -4;
 *  - expand_dims maps a negative axis to axis + N + 1 (the CVM formalization's axis + N would give
 *    -1 for its own lower bound -N-1);
 *  - strided_slice clips end to [b_range, e_range] (not e_range - 1): a full slice keeps
 *    every element; begin likewise; an empty slice is a logic error;
 *  - slice_like without axes slices the first min(M, N) dims;
 *  - where takes a condition of X's shape, or 1-D with X's first extent (selecting rows).
 */
#include "frontend/cvm/cvm_ops.h"

#include <string.h>

static Status fail_ndim(CvmCtx *c, uint64_t ndim)
{
    return cvm_fail(c, "cvm.limit.ndim", "the output would have %llu dims; at most %d are allowed",
                    (unsigned long long)ndim, OG_MAX_DIMS);
}

/* ---- repeat ---- */

static const CvmAttrSpec repeat_attrs[] = {
    {"repeats", CA_INT, NULL, 1, CVM_I32_HI, 0, 0, NULL},
    {"axis", CA_INT, "0", CVM_I32_LO, CVM_I32_HI, 0, 0, NULL},
};

Status cvm_parse_repeat(CvmCtx *c, const CvmRawAttrs *raw)
{
    return cvm_parse_attrs(c, raw, repeat_attrs, sizeof repeat_attrs / sizeof *repeat_attrs);
}

static Status get_axis(CvmCtx *c, const char *name, int64_t N, int64_t extra, int64_t *ax)
{
    int64_t a = og_attr_int(c->n, name, 0);
    if (!cvm_axis(a, N, extra, ax))
        return cvm_fail_attr(c, name, "= %lld is out of range [%lld, %lld)", (long long)a,
                             (long long)(-N - extra), (long long)(N + extra));
    return ST_OK;
}

Status cvm_shape_repeat(CvmCtx *c, const OgShape *in, OgShape *out)
{
    int64_t ax;
    Status st = get_axis(c, "axis", in[0].ndim, 0, &ax);
    if (st != ST_OK)
        return st;
    out[0] = in[0];
    out[0].d[ax] *= og_attr_int(c->n, "repeats", 1);
    return ST_OK;
}

/* Y[.., d_axis, ..] = X[.., d_axis / repeats, ..]. */
Status cvm_run_repeat(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    int64_t ax, r = og_attr_int(c->n, "repeats", 1);
    get_axis(c, "axis", in[0]->shape.ndim, 0, &ax);
    int64_t outer = 1, inner = 1, n = in[0]->shape.d[ax];
    for (int64_t j = 0; j < ax; j++)
        outer *= in[0]->shape.d[j];
    for (uint32_t j = (uint32_t)ax + 1; j < in[0]->shape.ndim; j++)
        inner *= in[0]->shape.d[j];
    int32_t *y = out->data;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t k = 0; k < n * r; k++) {
            memcpy(y, in[0]->data + (o * n + k / r) * inner, (size_t)inner * sizeof *y);
            y += inner;
        }
    return ST_OK;
}

/* ---- tile ---- */

static const CvmAttrSpec tile_attrs[] = {
    {"reps", CA_INTS, NULL, 1, CVM_MAX_ATTR - 1, 1, 0, NULL},
};

Status cvm_parse_tile(CvmCtx *c, const CvmRawAttrs *raw)
{
    return cvm_parse_attrs(c, raw, tile_attrs, sizeof tile_attrs / sizeof *tile_attrs);
}

Status cvm_shape_tile(CvmCtx *c, const OgShape *in, OgShape *out)
{
    uint32_t M, N = in[0].ndim;
    const int64_t *reps = og_attr_ints(c->n, "reps", &M);
    uint32_t K = M > N ? M : N;
    if (K > OG_MAX_DIMS)
        return fail_ndim(c, K);
    out[0].ndim = K;
    for (uint32_t i = 0; i < K; i++) {
        int64_t sx = i + N >= K ? in[0].d[i + N - K] : 1;
        int64_t sr = i + M >= K ? reps[i + M - K] : 1;
        out[0].d[i] = sx * sr;
    }
    return ST_OK;
}

/* Y[k_0, .., k_{K-1}] = X[k_{K-N} mod n_0, .., k_{K-1} mod n_{N-1}]. */
Status cvm_run_tile(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    (void)c;
    const OgShape *xs = &in[0]->shape, *ys = &out->shape;
    uint32_t K = ys->ndim, N = xs->ndim;
    int64_t xst[OG_MAX_DIMS], idx[OG_MAX_DIMS];
    cvm_strides(xs, xst);
    for (int64_t i = 0; i < out->count; i++) {
        cvm_unflatten(ys, i, idx);
        int64_t off = 0;
        for (uint32_t j = 0; j < N; j++)
            off += (idx[j + K - N] % xs->d[j]) * xst[j];
        out->data[i] = in[0]->data[off];
    }
    return ST_OK;
}

/* ---- flatten ---- */

Status cvm_shape_flatten(CvmCtx *c, const OgShape *in, OgShape *out)
{
    (void)c;
    int64_t rest = 1;
    for (uint32_t i = 1; i < in[0].ndim; i++)
        rest *= in[0].d[i];
    out[0].ndim = 2;
    out[0].d[0] = in[0].d[0];
    out[0].d[1] = rest;
    return ST_OK;
}

/* ---- reshape ---- */

static const CvmAttrSpec reshape_attrs[] = {
    {"shape", CA_INTS, NULL, -4, OG_MAX_DIM, 1, 0, NULL},
};

Status cvm_parse_reshape(CvmCtx *c, const CvmRawAttrs *raw)
{
    return cvm_parse_attrs(c, raw, reshape_attrs, sizeof reshape_attrs / sizeof *reshape_attrs);
}

/* MXNet/NNVM reshape: >0 a dim; 0 copy the input dim; -1 infer (at most one); -2 copy the
 * remaining input dims; -3 merge two input dims; -4 split one input dim into the next two
 * values (one may be -1). */
Status cvm_shape_reshape(CvmCtx *c, const OgShape *in, OgShape *out)
{
    uint32_t M, N = in[0].ndim, src = 0;
    const int64_t *t = og_attr_ints(c->n, "shape", &M);
    int64_t o[2 * CVM_MAX_ATTR_LIST + OG_MAX_DIMS];
    uint32_t k = 0;
    int infer = -1;
#define NEED_SRC(cnt)                                                                        \
    if (src + (cnt) > N)                                                                     \
        return cvm_fail_attr(c, "shape", "value %lld at position %u has no input dim left",  \
                             (long long)t[i], i)
    for (uint32_t i = 0; i < M; i++) {
        if (t[i] > 0) {
            o[k++] = t[i];
            src++;
        } else if (t[i] == 0) {
            NEED_SRC(1);
            o[k++] = in[0].d[src++];
        } else if (t[i] == -1) {
            if (infer >= 0)
                return cvm_fail_attr(c, "shape", "has more than one -1");
            infer = (int)k;
            o[k++] = 1;
            src++;
        } else if (t[i] == -2) {
            while (src < N)
                o[k++] = in[0].d[src++];
        } else if (t[i] == -3) {
            NEED_SRC(2);
            o[k++] = in[0].d[src] * in[0].d[src + 1];
            src += 2;
        } else { /* -4 */
            NEED_SRC(1);
            if (i + 2 >= M)
                return cvm_fail_attr(c, "shape", "-4 at position %u needs two values after it", i);
            int64_t d0 = in[0].d[src++], d1 = t[++i], d2 = t[++i];
            if ((d1 == -1 && d2 == -1) || (d1 < 1 && d1 != -1) || (d2 < 1 && d2 != -1))
                return cvm_fail_attr(c, "shape", "-4 splits into (%lld, %lld): each must be "
                                     "positive, at most one -1", (long long)d1, (long long)d2);
            if (d1 == -1)
                d1 = d0 / d2;
            if (d2 == -1)
                d2 = d0 / d1;
            if (d1 * d2 != d0)
                return cvm_fail_attr(c, "shape", "-4 splits %lld into %lld x %lld",
                                     (long long)d0, (long long)d1, (long long)d2);
            o[k++] = d1;
            o[k++] = d2;
        }
        if (k > OG_MAX_DIMS)
            return fail_ndim(c, k);
    }
#undef NEED_SRC
    int64_t vin = og_shape_volume(&in[0]), rest = 1;
    for (uint32_t i = 0; i < k; i++)
        if (o[i] > OG_MAX_DIM || rest > OG_MAX_VOLUME)
            rest = OG_MAX_VOLUME + 1;
        else
            rest *= o[i];
    if (infer >= 0 && rest > 0 && rest <= OG_MAX_VOLUME)
        o[infer] = vin / rest;
    out[0].ndim = k;
    for (uint32_t i = 0; i < k; i++)
        out[0].d[i] = o[i];
    if (k == 0 || og_shape_volume(&out[0]) != vin) {
        char a[96], b[96];
        return cvm_fail_attr(c, "shape", "gives %s, which does not hold the %s input",
                             og_shape_str(&out[0], a, sizeof a), og_shape_str(&in[0], b, sizeof b));
    }
    return ST_OK;
}

/* ---- squeeze ---- */

static const CvmAttrSpec squeeze_attrs[] = {
    {"axis", CA_INTS, "()", CVM_I32_LO, CVM_I32_HI, 0, 0, NULL},
};

Status cvm_parse_squeeze(CvmCtx *c, const CvmRawAttrs *raw)
{
    return cvm_parse_attrs(c, raw, squeeze_attrs, sizeof squeeze_attrs / sizeof *squeeze_attrs);
}

Status cvm_shape_squeeze(CvmCtx *c, const OgShape *in, OgShape *out)
{
    uint32_t M, N = in[0].ndim;
    const int64_t *ax = og_attr_ints(c->n, "axis", &M);
    bool drop[OG_MAX_DIMS] = {false};
    for (uint32_t i = 0; i < N; i++)
        drop[i] = M == 0 && in[0].d[i] == 1;
    for (uint32_t i = 0; i < M; i++) {
        int64_t a;
        if (!cvm_axis(ax[i], N, 0, &a))
            return cvm_fail_attr(c, "axis", "value %lld is out of range [%d, %u)",
                                 (long long)ax[i], -(int)N, N);
        if (in[0].d[a] != 1)
            return cvm_fail_attr(c, "axis", "names dim %lld of extent %lld; only dims of extent 1 "
                                 "can be squeezed", (long long)a, (long long)in[0].d[a]);
        drop[a] = true;
    }
    out[0].ndim = 0;
    for (uint32_t i = 0; i < N; i++)
        if (!drop[i])
            out[0].d[out[0].ndim++] = in[0].d[i];
    if (out[0].ndim == 0) {
        out[0].ndim = 1;
        out[0].d[0] = 1;
    }
    return ST_OK;
}

/* ---- expand_dims ---- */

static const CvmAttrSpec expand_dims_attrs[] = {
    {"axis", CA_INT, NULL, CVM_I32_LO, CVM_I32_HI, 0, 0, NULL},
    {"num_newaxis", CA_INT, "1", 1, CVM_MAX_ATTR - 1, 0, 0, NULL},
};

Status cvm_parse_expand_dims(CvmCtx *c, const CvmRawAttrs *raw)
{
    return cvm_parse_attrs(c, raw, expand_dims_attrs,
                           sizeof expand_dims_attrs / sizeof *expand_dims_attrs);
}

Status cvm_shape_expand_dims(CvmCtx *c, const OgShape *in, OgShape *out)
{
    uint32_t N = in[0].ndim;
    int64_t a = og_attr_int(c->n, "axis", 0), k = og_attr_int(c->n, "num_newaxis", 1), ax;
    if (a < -(int64_t)N - 1 || a > (int64_t)N)
        return cvm_fail_attr(c, "axis", "= %lld is out of range [%d, %u]", (long long)a,
                             -(int)N - 1, N);
    ax = a < 0 ? a + N + 1 : a;
    if (N + k > OG_MAX_DIMS)
        return fail_ndim(c, (uint64_t)(N + k));
    out[0].ndim = 0;
    for (uint32_t i = 0; i <= N; i++) {
        if ((int64_t)i == ax)
            for (int64_t j = 0; j < k; j++)
                out[0].d[out[0].ndim++] = 1;
        if (i < N)
            out[0].d[out[0].ndim++] = in[0].d[i];
    }
    return ST_OK;
}

/* ---- transpose ---- */

static const CvmAttrSpec transpose_attrs[] = {
    {"axes", CA_INTS, "()", CVM_I32_LO, CVM_I32_HI, 0, 0, NULL},
};

Status cvm_parse_transpose(CvmCtx *c, const CvmRawAttrs *raw)
{
    return cvm_parse_attrs(c, raw, transpose_attrs, sizeof transpose_attrs / sizeof *transpose_attrs);
}

/* The permutation: Y's dim i is X's dim perm[i] (reversed when no axes are given). */
static Status transpose_perm(CvmCtx *c, uint32_t N, int64_t *perm)
{
    uint32_t M;
    const int64_t *ax = og_attr_ints(c->n, "axes", &M);
    if (M == 0) {
        for (uint32_t i = 0; i < N; i++)
            perm[i] = N - 1 - i;
        return ST_OK;
    }
    if (M != N)
        return cvm_fail_attr(c, "axes", "has %u values, the input %u dims", M, N);
    bool seen[OG_MAX_DIMS] = {false};
    for (uint32_t i = 0; i < N; i++) {
        if (!cvm_axis(ax[i], N, 0, &perm[i]))
            return cvm_fail_attr(c, "axes", "value %lld is out of range [%d, %u)",
                                 (long long)ax[i], -(int)N, N);
        if (seen[perm[i]])
            return cvm_fail_attr(c, "axes", "names axis %lld twice", (long long)perm[i]);
        seen[perm[i]] = true;
    }
    return ST_OK;
}

Status cvm_shape_transpose(CvmCtx *c, const OgShape *in, OgShape *out)
{
    int64_t perm[OG_MAX_DIMS];
    Status st = transpose_perm(c, in[0].ndim, perm);
    if (st != ST_OK)
        return st;
    out[0].ndim = in[0].ndim;
    for (uint32_t i = 0; i < in[0].ndim; i++)
        out[0].d[i] = in[0].d[perm[i]];
    return ST_OK;
}

Status cvm_run_transpose(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    int64_t perm[OG_MAX_DIMS], xst[OG_MAX_DIMS], idx[OG_MAX_DIMS];
    Status st = transpose_perm(c, in[0]->shape.ndim, perm);
    if (st != ST_OK)
        return st;
    cvm_strides(&in[0]->shape, xst);
    for (int64_t i = 0; i < out->count; i++) {
        cvm_unflatten(&out->shape, i, idx);
        int64_t off = 0;
        for (uint32_t j = 0; j < out->shape.ndim; j++)
            off += idx[j] * xst[perm[j]];
        out->data[i] = in[0]->data[off];
    }
    return ST_OK;
}

/* ---- strided_slice ---- */

static const CvmAttrSpec slice_attrs[] = {
    {"begin", CA_INTS, NULL, INT64_MIN, INT64_MAX, 0, 0, NULL},
    {"end", CA_INTS, NULL, INT64_MIN, INT64_MAX, 0, 0, NULL},
    {"stride", CA_INTS, "()", INT64_MIN, INT64_MAX, 0, 0, NULL},
};

Status cvm_parse_strided_slice(CvmCtx *c, const CvmRawAttrs *raw)
{
    return cvm_parse_attrs(c, raw, slice_attrs, sizeof slice_attrs / sizeof *slice_attrs);
}

/* Per dim: the first index b and the step s; returns the extent through *len. */
static Status slice_dims(CvmCtx *c, const OgShape *x, int64_t *b, int64_t *s, int64_t *len)
{
    static const char *const names[3] = {"begin", "end", "stride"};
    uint32_t cnt[3], N = x->ndim;
    const int64_t *v[3];
    for (int k = 0; k < 3; k++) {
        v[k] = og_attr_ints(c->n, names[k], &cnt[k]);
        if (cnt[k] > N)
            return cvm_fail_attr(c, names[k], "has %u values, the input %u dims", cnt[k], N);
    }
    const int64_t big = (int64_t)1 << 40; /* beyond any dim: clipping below is unchanged */
    for (uint32_t i = 0; i < N; i++) {
        int64_t n = x->d[i];
        int64_t st = i < cnt[2] ? v[2][i] : 1;
        if (st == 0)
            return cvm_fail_attr(c, "stride", "is 0 for axis %u", i);
        int64_t bg = i < cnt[0] ? cvm_clamp64(v[0][i], -big, big) : 0;
        int64_t en = i < cnt[1] ? cvm_clamp64(v[1][i], -big, big) : n;
        st = cvm_clamp64(st, -big, big);
        int64_t lo = st < 0 ? -1 : 0, hi = st < 0 ? n - 1 : n;
        bg = cvm_clamp64(bg < 0 ? bg + n : bg, lo, hi);
        en = cvm_clamp64(en < 0 ? en + n : en, lo, hi);
        if (st > 0 ? bg >= en : en >= bg)
            return cvm_fail_attr(c, "end", "gives an empty slice of axis %u (begin %lld, end %lld, "
                                 "stride %lld)", i, (long long)bg, (long long)en, (long long)st);
        int64_t as = st < 0 ? -st : st, iv = st < 0 ? bg - en : en - bg;
        b[i] = bg;
        s[i] = st;
        len[i] = (iv + as - 1) / as;
    }
    return ST_OK;
}

Status cvm_shape_strided_slice(CvmCtx *c, const OgShape *in, OgShape *out)
{
    int64_t b[OG_MAX_DIMS], s[OG_MAX_DIMS];
    out[0].ndim = in[0].ndim;
    return slice_dims(c, &in[0], b, s, out[0].d);
}

/* Y[d] = X[b + s * d] per dim. */
Status cvm_run_strided_slice(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    int64_t b[OG_MAX_DIMS], s[OG_MAX_DIMS], len[OG_MAX_DIMS], xst[OG_MAX_DIMS], idx[OG_MAX_DIMS];
    Status st = slice_dims(c, &in[0]->shape, b, s, len);
    if (st != ST_OK)
        return st;
    cvm_strides(&in[0]->shape, xst);
    for (int64_t i = 0; i < out->count; i++) {
        cvm_unflatten(&out->shape, i, idx);
        int64_t off = 0;
        for (uint32_t j = 0; j < out->shape.ndim; j++)
            off += (b[j] + s[j] * idx[j]) * xst[j];
        out->data[i] = in[0]->data[off];
    }
    return ST_OK;
}

/* ---- slice_like ---- */

static const CvmAttrSpec slice_like_attrs[] = {
    {"axis", CA_INTS, "()", CVM_I32_LO, CVM_I32_HI, 0, 0, NULL},
};

Status cvm_parse_slice_like(CvmCtx *c, const CvmRawAttrs *raw)
{
    return cvm_parse_attrs(c, raw, slice_like_attrs,
                           sizeof slice_like_attrs / sizeof *slice_like_attrs);
}

Status cvm_shape_slice_like(CvmCtx *c, const OgShape *in, OgShape *out)
{
    uint32_t K, N = in[0].ndim, M = in[1].ndim;
    const int64_t *ax = og_attr_ints(c->n, "axis", &K);
    if (K == 0 && N != M) /* cvm-runtime refuses it */
        return cvm_fail(c, "cvm.shape.mismatch", "without axis the inputs need the same number "
                        "of dims; they have %u and %u", N, M);
    bool sl[OG_MAX_DIMS] = {false};
    for (uint32_t j = 0; K == 0 && j < N && j < M; j++)
        sl[j] = true;
    for (uint32_t i = 0; i < K; i++) {
        int64_t a = ax[i] < 0 ? ax[i] + N : ax[i];
        if (ax[i] < -(int64_t)N || a < 0 || a >= (int64_t)M || a >= (int64_t)N)
            return cvm_fail_attr(c, "axis", "value %lld does not name a dim of both inputs "
                                 "(%u and %u dims)", (long long)ax[i], N, M);
        sl[a] = true;
    }
    out[0] = in[0];
    for (uint32_t j = 0; j < N; j++) {
        if (!sl[j])
            continue;
        if (in[1].d[j] > in[0].d[j])
            return cvm_fail(c, "cvm.shape.mismatch", "dim %u: the shape_like input has extent "
                            "%lld, more than the data's %lld", j, (long long)in[1].d[j],
                            (long long)in[0].d[j]);
        out[0].d[j] = in[1].d[j];
    }
    return ST_OK;
}

/* Y[d] = X[d] over Y's box. */
Status cvm_run_slice_like(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    (void)c;
    int64_t xst[OG_MAX_DIMS], idx[OG_MAX_DIMS];
    cvm_strides(&in[0]->shape, xst);
    for (int64_t i = 0; i < out->count; i++) {
        cvm_unflatten(&out->shape, i, idx);
        int64_t off = 0;
        for (uint32_t j = 0; j < out->shape.ndim; j++)
            off += idx[j] * xst[j];
        out->data[i] = in[0]->data[off];
    }
    return ST_OK;
}

/* ---- concatenate ---- */

static const CvmAttrSpec concat_attrs[] = {
    {"axis", CA_INT, "1", CVM_I32_LO, CVM_I32_HI, 0, 0, NULL},
};

Status cvm_parse_concatenate(CvmCtx *c, const CvmRawAttrs *raw)
{
    return cvm_parse_attrs(c, raw, concat_attrs, sizeof concat_attrs / sizeof *concat_attrs);
}

Status cvm_shape_concatenate(CvmCtx *c, const OgShape *in, OgShape *out)
{
    uint32_t N = in[0].ndim;
    int64_t ax;
    Status st = get_axis(c, "axis", N, 0, &ax);
    if (st != ST_OK)
        return st;
    out[0] = in[0];
    out[0].d[ax] = 0;
    for (uint32_t k = 0; k < c->n->ninputs; k++) {
        if ((st = cvm_want_rank(c, in, k, N)))
            return st;
        for (uint32_t j = 0; j < N; j++)
            if ((int64_t)j != ax && in[k].d[j] != in[0].d[j]) {
                char a[96], b[96];
                return cvm_fail(c, "cvm.shape.mismatch", "input %u has shape %s, input 0 %s: "
                                "they differ off axis %lld", k, og_shape_str(&in[k], a, sizeof a),
                                og_shape_str(&in[0], b, sizeof b), (long long)ax);
            }
        if (out[0].d[ax] <= OG_MAX_VOLUME)
            out[0].d[ax] += in[k].d[ax];
    }
    return ST_OK;
}

Status cvm_run_concatenate(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    int64_t ax;
    get_axis(c, "axis", out->shape.ndim, 0, &ax);
    int64_t outer = 1, inner = 1;
    for (int64_t j = 0; j < ax; j++)
        outer *= out->shape.d[j];
    for (uint32_t j = (uint32_t)ax + 1; j < out->shape.ndim; j++)
        inner *= out->shape.d[j];
    int32_t *y = out->data;
    for (int64_t o = 0; o < outer; o++)
        for (uint32_t k = 0; k < c->n->ninputs; k++) {
            int64_t blk = in[k]->shape.d[ax] * inner;
            memcpy(y, in[k]->data + o * blk, (size_t)blk * sizeof *y);
            y += blk;
        }
    return ST_OK;
}

/* ---- take ---- */

static const CvmAttrSpec take_attrs[] = {
    {"axis", CA_OPT_INT, "None", CVM_I32_LO, CVM_I32_HI, 0, 0, NULL},
};

Status cvm_parse_take(CvmCtx *c, const CvmRawAttrs *raw)
{
    return cvm_parse_attrs(c, raw, take_attrs, sizeof take_attrs / sizeof *take_attrs);
}

/* Y's shape: the indices' shape (axis None), or X's dims with dim `axis` replaced by the
 * indices' dims. */
Status cvm_shape_take(CvmCtx *c, const OgShape *in, OgShape *out)
{
    if (og_attr_is_none(c->n, "axis")) {
        out[0] = in[1];
        return ST_OK;
    }
    uint32_t N = in[0].ndim, M = in[1].ndim;
    int64_t ax;
    Status st = get_axis(c, "axis", N, 0, &ax);
    if (st != ST_OK)
        return st;
    if (N - 1 + M > OG_MAX_DIMS)
        return fail_ndim(c, N - 1 + M);
    out[0].ndim = 0;
    for (uint32_t j = 0; j < N; j++) {
        if ((int64_t)j != ax) {
            out[0].d[out[0].ndim++] = in[0].d[j];
            continue;
        }
        for (uint32_t k = 0; k < M; k++)
            out[0].d[out[0].ndim++] = in[1].d[k];
    }
    return ST_OK;
}

/* Indices are clipped to [0, n - 1] (the CVM formalization). */
Status cvm_run_take(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    const OgTensor *x = in[0], *ind = in[1];
    if (og_attr_is_none(c->n, "axis")) {
        for (int64_t i = 0; i < out->count; i++)
            out->data[i] = x->data[cvm_clamp64(ind->data[i], 0, x->count - 1)];
        return ST_OK;
    }
    int64_t ax;
    get_axis(c, "axis", x->shape.ndim, 0, &ax);
    int64_t outer = 1, inner = 1, n = x->shape.d[ax];
    for (int64_t j = 0; j < ax; j++)
        outer *= x->shape.d[j];
    for (uint32_t j = (uint32_t)ax + 1; j < x->shape.ndim; j++)
        inner *= x->shape.d[j];
    int32_t *y = out->data;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t k = 0; k < ind->count; k++) {
            int64_t r = cvm_clamp64(ind->data[k], 0, n - 1);
            memcpy(y, x->data + (o * n + r) * inner, (size_t)inner * sizeof *y);
            y += inner;
        }
    return ST_OK;
}

/* ---- where ---- */

Status cvm_shape_where(CvmCtx *c, const OgShape *in, OgShape *out)
{
    char a[96], b[96];
    if (!og_shape_eq(&in[1], &in[2]))
        return cvm_fail(c, "cvm.shape.mismatch", "x has shape %s, y %s: they must be equal",
                        og_shape_str(&in[1], a, sizeof a), og_shape_str(&in[2], b, sizeof b));
    if (!og_shape_eq(&in[0], &in[1]) && !(in[0].ndim == 1 && in[0].d[0] == in[1].d[0]))
        return cvm_fail(c, "cvm.shape.mismatch", "the condition has shape %s; it must be x's "
                        "shape %s or 1-D of x's first extent",
                        og_shape_str(&in[0], a, sizeof a), og_shape_str(&in[1], b, sizeof b));
    out[0] = in[1];
    return ST_OK;
}

Status cvm_prec_where(CvmCtx *c, const OgShape *in, const int32_t *in_prec, int32_t *out_prec)
{
    (void)c, (void)in;
    out_prec[0] = in_prec[1] > in_prec[2] ? in_prec[1] : in_prec[2];
    return ST_OK;
}

/* Y = cond != 0 ? x : y, elementwise or (1-D condition) by rows. */
Status cvm_run_where(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    (void)c;
    const OgTensor *cond = in[0], *x = in[1], *y = in[2];
    bool rows = cond->count != out->count;
    int64_t row = rows ? out->count / cond->count : 1;
    for (int64_t i = 0; i < out->count; i++) {
        int32_t cv = cond->data[rows ? i / row : i];
        out->data[i] = cv != 0 ? x->data[i] : y->data[i];
    }
    return ST_OK;
}
