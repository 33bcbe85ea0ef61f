/* cinn_build_nn.c: the structural calls (Input, Constant, Output, ConstScalar), the rejected
 * primitives, and the primitives that are convolution, matrix product, reduction or data
 * movement: Conv, Dot, Reduce, BroadcastTo, Concat, Reshape, Reverse, Slice, Transpose
 * (docs/cinn.md). Each checks what CINN requires of its attributes with CINN's names in the
 * message, then states the primitive with CVM operators (data movement is free in the
 * lowering: it becomes interfaces and edge rearrangements).
 */
#include "frontend/cinn/cinn_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static Status op1kv(CinnCtx *c, int op, const char *suffix, OgEdge a, const CvmKV *kv,
                    OgEdge *out)
{
    return cinn_node(c, op, suffix, &a, 1, kv, 0, out);
}

static Status reshape(CinnCtx *c, const char *suffix, OgEdge x, const int64_t *d, uint32_t n,
                      OgEdge *out)
{
    CvmKV kv[] = {{"shape", cinn_tuple(c, d, n)}, {NULL, NULL}};
    return op1kv(c, CVM_OP_reshape, suffix, x, kv, out);
}

static Status transpose(CinnCtx *c, const char *suffix, OgEdge x, const int64_t *perm,
                        uint32_t n, OgEdge *out)
{
    CvmKV kv[] = {{"axes", cinn_tuple(c, perm, n)}, {NULL, NULL}};
    return op1kv(c, CVM_OP_transpose, suffix, x, kv, out);
}

static Status shape_fail(CinnCtx *c, const char *what, const OgShape *s)
{
    char sb[96];
    return cinn_fail(c, "cinn.shape", "%s (shape %s)", what, og_shape_str(s, sb, sizeof sb));
}

/* Normalizes and checks a list of distinct axes of an n-dim tensor. */
static Status axes_ok(CinnCtx *c, const char *attr, const int64_t *ax, uint32_t k, uint32_t n,
                      int64_t *out)
{
    bool seen[OG_MAX_DIMS] = {false};
    for (uint32_t i = 0; i < k; i++) {
        int64_t a = ax[i] < 0 ? ax[i] + n : ax[i];
        if (a < 0 || a >= (int64_t)n)
            return cinn_fail(c, "cinn.attr", "attribute '%s': axis %lld does not exist in a "
                             "tensor of %u dims", attr, (long long)ax[i], n);
        if (seen[a])
            return cinn_fail(c, "cinn.attr", "attribute '%s' names axis %lld twice", attr,
                             (long long)a);
        seen[a] = true;
        out[i] = a;
    }
    return ST_OK;
}

/* ---- structural calls ---- */

Status cinn_b_input(CinnCtx *c)
{
    uint32_t n;
    const int64_t *d = cinn_ints(c, "shape", &n);
    OgShape s = {n, {0}};
    for (uint32_t i = 0; i < n; i++)
        s.d[i] = d[i];
    return cinn_input_node(c, &s, (int32_t)cinn_int(c, "precision"), &c->out);
}

Status cinn_b_constant(CinnCtx *c)
{
    uint32_t n;
    const int64_t *d = cinn_ints(c, "shape", &n);
    OgShape s = {n, {0}};
    for (uint32_t i = 0; i < n; i++)
        s.d[i] = d[i];
    if (!c->value)
        return cinn_fail(c, "cinn.const.values", "a Constant needs its values");
    int64_t vol = og_shape_volume(&s);
    if (og_shape_limit(&s))
        return shape_fail(c, "the shape is over the tensor limits", &s);
    if (c->value->count != vol) {
        char sb[96];
        return cinn_fail(c, "cinn.const.values", "%lld values for shape %s, which holds %lld",
                         (long long)c->value->count, og_shape_str(&s, sb, sizeof sb),
                         (long long)vol);
    }
    OgTensor t = *c->value;
    t.shape = s;
    int32_t p = cinn_has(c, "precision") ? (int32_t)cinn_int(c, "precision") : 0;
    Status st = cinn_const_node(c, NULL, &t, p, &c->out);
    if (st == ST_OK && !p)
        cinn_set_int(c, "precision", cinn_prec(c, c->out));
    c->ranged = t.count > 0;
    c->lo = c->hi = t.count ? t.data[0] : 0;
    for (int64_t i = 1; i < t.count; i++) {
        c->lo = t.data[i] < c->lo ? t.data[i] : c->lo;
        c->hi = t.data[i] > c->hi ? t.data[i] : c->hi;
    }
    return st;
}

Status cinn_b_output(CinnCtx *c)
{
    if (!og_add_output(c->b->g, c->in[0].node, c->in[0].index))
        return cinn_oom(c);
    return ST_OK;
}

Status cinn_b_const_scalar(CinnCtx *c)
{
    c->ranged = true;
    c->lo = c->hi = cinn_int(c, "value");
    return cinn_scalar_node(c, NULL, cinn_int(c, "value"), &c->out);
}

/* Never reached for a REJECTED row (fe_cinn_call refuses it first); here for the table. */
Status cinn_b_reject(CinnCtx *c)
{
    return cinn_fail(c, "cinn.training", "%s", c->pi->how);
}

/* ---- BroadcastTo ---- */

Status cinn_b_broadcast_to(CinnCtx *c)
{
    OgEdge x = c->in[0];
    const OgShape *s = cinn_shape(c, x);
    uint32_t m, k;
    const int64_t *o = cinn_ints(c, "out_shape", &m);
    const int64_t *ax = cinn_ints(c, "broadcast_axes", &k);
    if (k != s->ndim)
        return cinn_fail(c, "cinn.attr", "attribute 'broadcast_axes' has %u values; the input "
                         "has %u dims, one axis each", k, s->ndim);
    int64_t a[OG_MAX_DIMS];
    Status st = axes_ok(c, "broadcast_axes", ax, k, m, a);
    if (st != ST_OK)
        return st;
    for (uint32_t i = 0; i < k; i++)
        if (s->d[i] != 1 && s->d[i] != o[a[i]]) {
            char sb[96];
            return cinn_fail(c, "cinn.shape", "input axis %u has extent %lld, output axis %lld "
                             "has %lld: an input extent must be 1 or the output's (input %s)",
                             i, (long long)s->d[i], (long long)a[i], (long long)o[a[i]],
                             og_shape_str(s, sb, sizeof sb));
        }
    /* axes out of order: transpose the input so that they increase */
    int64_t perm[OG_MAX_DIMS], sd[OG_MAX_DIMS], sa[OG_MAX_DIMS];
    bool sorted = true;
    for (uint32_t i = 0; i < k; i++)
        perm[i] = i;
    for (uint32_t i = 1; i < k; i++)
        for (uint32_t j = i; j > 0 && a[perm[j - 1]] > a[perm[j]]; j--) {
            int64_t t = perm[j];
            perm[j] = perm[j - 1];
            perm[j - 1] = t;
            sorted = false;
        }
    for (uint32_t i = 0; i < k; i++) {
        sd[i] = s->d[perm[i]];
        sa[i] = a[perm[i]];
    }
    OgEdge t = x;
    if (!sorted && (st = transpose(c, "order", x, perm, k, &t)))
        return st;
    int64_t r[OG_MAX_DIMS], reps[OG_MAX_DIMS];
    bool tiled = false;
    for (uint32_t j = 0; j < m; j++)
        r[j] = 1;
    for (uint32_t i = 0; i < k; i++)
        r[sa[i]] = sd[i];
    for (uint32_t j = 0; j < m; j++) {
        reps[j] = o[j] / r[j];
        tiled = tiled || reps[j] != 1;
    }
    if (!tiled)
        return reshape(c, NULL, t, r, m, &c->out);
    OgEdge rs;
    if ((st = reshape(c, "expand", t, r, m, &rs)))
        return st;
    CvmKV kv[] = {{"reps", cinn_tuple(c, reps, m)}, {NULL, NULL}};
    return op1kv(c, CVM_OP_tile, NULL, rs, kv, &c->out);
}

/* ---- Concat, Reshape, Reverse, Slice, Transpose ---- */

Status cinn_b_concat(CinnCtx *c)
{
    CvmKV kv[] = {{"axis", cinn_itoa(c, cinn_int(c, "axis"))}, {NULL, NULL}};
    return cinn_node(c, CVM_OP_concatenate, NULL, c->in, c->nin, kv, 0, &c->out);
}

Status cinn_b_reshape(CinnCtx *c)
{
    uint32_t n;
    const int64_t *d = cinn_ints(c, "shape", &n);
    int infer = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (d[i] == 0)
            return cinn_fail(c, "cinn.attr", "attribute 'shape': value 0 at position %u is no "
                             "extent (Reshape takes positive extents and at most one -1)", i);
        infer += d[i] == -1;
    }
    if (infer > 1)
        return cinn_fail(c, "cinn.attr", "attribute 'shape' has %d values -1; at most one may "
                         "be inferred", infer);
    return reshape(c, NULL, c->in[0], d, n, &c->out);
}

/* strided_slice over every dim of x: begin, end, stride per dim. */
static Status slice_all(CinnCtx *c, OgEdge x, const int64_t *b, const int64_t *e,
                        const int64_t *s, uint32_t n)
{
    CvmKV kv[] = {{"begin", cinn_tuple(c, b, n)}, {"end", cinn_tuple(c, e, n)},
                  {"stride", cinn_tuple(c, s, n)}, {NULL, NULL}};
    return op1kv(c, CVM_OP_strided_slice, NULL, x, kv, &c->out);
}

Status cinn_b_reverse(CinnCtx *c)
{
    const OgShape *s = cinn_shape(c, c->in[0]);
    uint32_t k;
    const int64_t *ax = cinn_ints(c, "axis", &k);
    int64_t a[OG_MAX_DIMS], b[OG_MAX_DIMS], e[OG_MAX_DIMS], st[OG_MAX_DIMS];
    Status r = axes_ok(c, "axis", ax, k, s->ndim, a);
    if (r != ST_OK)
        return r;
    for (uint32_t i = 0; i < s->ndim; i++) {
        b[i] = 0;
        e[i] = s->d[i];
        st[i] = 1;
    }
    for (uint32_t i = 0; i < k; i++) { /* from n - 1 down to 0: end -n - 1 normalizes to -1 */
        b[a[i]] = s->d[a[i]] - 1;
        e[a[i]] = -s->d[a[i]] - 1;
        st[a[i]] = -1;
    }
    return slice_all(c, c->in[0], b, e, st, s->ndim);
}

Status cinn_b_slice(CinnCtx *c)
{
    const OgShape *s = cinn_shape(c, c->in[0]);
    uint32_t na, ns, ne;
    const int64_t *ax = cinn_ints(c, "axes", &na);
    const int64_t *sv = cinn_ints(c, "starts", &ns);
    const int64_t *ev = cinn_ints(c, "ends", &ne);
    if (ns != na || ne != na)
        return cinn_fail(c, "cinn.attr", "attributes 'axes', 'starts' and 'ends' have %u, %u "
                         "and %u values: one start and one end per axis", na, ns, ne);
    int64_t a[OG_MAX_DIMS], b[OG_MAX_DIMS], e[OG_MAX_DIMS], st[OG_MAX_DIMS];
    Status r = axes_ok(c, "axes", ax, na, s->ndim, a);
    if (r != ST_OK)
        return r;
    for (uint32_t i = 0; i < s->ndim; i++) {
        b[i] = 0;
        e[i] = s->d[i];
        st[i] = 1;
    }
    for (uint32_t i = 0; i < na; i++) {
        int64_t n = s->d[a[i]];
        if (!(sv[i] >= 0 && sv[i] < ev[i] && ev[i] <= n))
            return cinn_fail(c, "cinn.attr", "axis %lld (extent %lld): start %lld and end %lld "
                             "must satisfy 0 <= start < end <= extent", (long long)a[i],
                             (long long)n, (long long)sv[i], (long long)ev[i]);
        b[a[i]] = sv[i];
        e[a[i]] = ev[i];
    }
    return slice_all(c, c->in[0], b, e, st, s->ndim);
}

Status cinn_b_transpose(CinnCtx *c)
{
    const OgShape *s = cinn_shape(c, c->in[0]);
    uint32_t k;
    const int64_t *ax = cinn_ints(c, "axis", &k);
    if (k != s->ndim)
        return cinn_fail(c, "cinn.attr", "attribute 'axis' has %u values; the input has %u dims "
                         "and the permutation names each once", k, s->ndim);
    int64_t a[OG_MAX_DIMS];
    Status st = axes_ok(c, "axis", ax, k, s->ndim, a);
    return st ? st : transpose(c, NULL, c->in[0], a, k, &c->out);
}

/* ---- Conv ---- */

/* SAME padding of one spatial dim: the total the output ceil(n / s) needs; odd totals would
 * pad one side more, which conv2d (and the chip's CC) cannot. */
static Status same_pad(CinnCtx *c, const char *dim, int64_t n, int64_t k, int64_t s,
                       int64_t d, int64_t *pad)
{
    int64_t out = (n + s - 1) / s, total = (out - 1) * s + (k - 1) * d + 1 - n;
    if (total < 0)
        total = 0;
    if (total % 2)
        return cinn_fail(c, "cinn.conv.padding", "padding_algorithm SAME needs %lld padding "
                         "rows along %s, an odd total: conv2d pads both sides equally (give "
                         "EXPLICIT paddings)", (long long)total, dim);
    *pad = total / 2;
    return ST_OK;
}

Status cinn_b_conv(CinnCtx *c)
{
    const char *type = cinn_str(c, "conv_type");
    if (strcmp(type, "forward") != 0)
        return cinn_fail(c, "cinn.training", "conv_type %s computes a gradient: a training "
                         "primitive, which an inference chip does not run", type);
    OgEdge x = c->in[0], w = c->in[1];
    const OgShape *xs = cinn_shape(c, x), *ws = cinn_shape(c, w);
    if (xs->ndim != 4)
        return shape_fail(c, "lhs (the input) must have 4 dims", xs);
    if (ws->ndim != 4)
        return shape_fail(c, "rhs (the filter) must have 4 dims: out channels, in channels per "
                          "group, kernel height, kernel width", ws);
    bool nhwc = strcmp(cinn_str(c, "data_format"), "NHWC") == 0;
    uint32_t n;
    const int64_t *sd = cinn_ints(c, "strides", &n);
    const int64_t *pd = cinn_ints(c, "paddings", &n);
    const int64_t *dl = cinn_ints(c, "dilations", &n);
    int64_t H = nhwc ? xs->d[1] : xs->d[2], W = nhwc ? xs->d[2] : xs->d[3];
    int64_t pad[2] = {pd[0], pd[1]};
    const char *alg = cinn_str(c, "padding_algorithm");
    Status st;
    if (strcmp(alg, "VALID") == 0) {
        pad[0] = pad[1] = 0;
    } else if (strcmp(alg, "SAME") == 0) {
        if ((st = same_pad(c, "the height", H, ws->d[2], sd[0], dl[0], &pad[0])) ||
            (st = same_pad(c, "the width", W, ws->d[3], sd[1], dl[1], &pad[1])))
            return st;
    }
    OgEdge in = x, y;
    static const int64_t to_nchw[4] = {0, 3, 1, 2}, to_nhwc[4] = {0, 2, 3, 1};
    if (nhwc && (st = transpose(c, "nchw", x, to_nchw, 4, &in)))
        return st;
    CvmKV kv[] = {{"channels", cinn_itoa(c, ws->d[0])},
                  {"kernel_size", cinn_tuple(c, ws->d + 2, 2)},
                  {"strides", cinn_tuple(c, sd, 2)},
                  {"padding", cinn_tuple(c, pad, 2)},
                  {"dilation", cinn_tuple(c, dl, 2)},
                  {"groups", cinn_itoa(c, cinn_int(c, "groups"))},
                  {"use_bias", "false"},
                  {NULL, NULL}};
    OgEdge ins[2] = {in, w};
    if ((st = cinn_node(c, CVM_OP_conv2d, nhwc ? "conv" : NULL, ins, 2, kv, 0, &y)))
        return st;
    if (nhwc && (st = transpose(c, NULL, y, to_nhwc, 4, &y)))
        return st;
    c->out = y;
    uint32_t no;
    const int64_t *os = cinn_ints(c, "output_shape", &no);
    if (cinn_has(c, "output_shape") && no > 0) {
        OgShape want = {no, {0}};
        for (uint32_t i = 0; i < no; i++)
            want.d[i] = os[i];
        if (!og_shape_eq(&want, cinn_shape(c, y))) {
            char a[96], b[96];
            return cinn_fail(c, "cinn.shape", "attribute 'output_shape' is %s, the convolution "
                             "gives %s", og_shape_str(&want, a, sizeof a),
                             og_shape_str(cinn_shape(c, y), b, sizeof b));
        }
    }
    return ST_OK;
}

/* ---- Dot ---- */

/* Dot(x, y) = x y for 1-D and 2-D operands: dense(x, y^T), 1-D operands as one row. */
Status cinn_b_dot(CinnCtx *c)
{
    OgEdge x = c->in[0], y = c->in[1];
    const OgShape *xs = cinn_shape(c, x), *ys = cinn_shape(c, y);
    if (xs->ndim > 2 || ys->ndim > 2) {
        char a[96], b[96];
        return cinn_fail(c, "cinn.shape", "operands of shapes %s and %s: Dot takes 1-D and 2-D "
                         "operands", og_shape_str(xs, a, sizeof a), og_shape_str(ys, b, sizeof b));
    }
    int64_t K = xs->d[xs->ndim - 1], Ky = ys->d[0];
    if (K != Ky) {
        char a[96], b[96];
        return cinn_fail(c, "cinn.shape", "operands of shapes %s and %s: x's last extent must "
                         "equal y's first", og_shape_str(xs, a, sizeof a),
                         og_shape_str(ys, b, sizeof b));
    }
    Status st;
    OgEdge xr = x, wt, d;
    int64_t row[2] = {1, K};
    if (xs->ndim == 1 && (st = reshape(c, "row", x, row, 2, &xr)))
        return st;
    int64_t units;
    if (ys->ndim == 1) {
        units = 1;
        if ((st = reshape(c, "col", y, row, 2, &wt)))
            return st;
    } else {
        static const int64_t swap[2] = {1, 0};
        units = ys->d[1];
        if ((st = transpose(c, "t", y, swap, 2, &wt)))
            return st;
    }
    bool last = xs->ndim == 2 && ys->ndim == 2;
    CvmKV kv[] = {{"units", cinn_itoa(c, units)}, {"use_bias", "false"}, {NULL, NULL}};
    OgEdge ins[2] = {xr, wt};
    if ((st = cinn_node(c, CVM_OP_dense, last ? NULL : "dense", ins, 2, kv, 0, &d)))
        return st;
    if (last) {
        c->out = d;
        return ST_OK;
    }
    int64_t fin = xs->ndim == 2 ? xs->d[0] : ys->ndim == 2 ? ys->d[1] : 1;
    return reshape(c, NULL, d, &fin, 1, &c->out);
}

/* ---- Reduce ---- */

/* The product of the k values v[0..k) (each of precision p, |v| <= ax): a balanced tree of
 * broadcast_mul, each partial product narrowed to the precision of its true bound. */
static Status product(CinnCtx *c, OgEdge *v, int64_t k, int64_t ax, OgEdge *out)
{
    int64_t *cnt = calloc((size_t)k, sizeof *cnt);
    if (!cnt)
        return cinn_oom(c);
    for (int64_t i = 0; i < k; i++)
        cnt[i] = 1;
    Status st = ST_OK;
    for (int level = 0; k > 1 && st == ST_OK; level++) {
        int64_t m = 0;
        for (int64_t i = 0; i < k && st == ST_OK; i += 2) {
            if (i + 1 == k) {
                v[m] = v[i];
                cnt[m++] = cnt[i];
                continue;
            }
            char s1[48], s2[48];
            snprintf(s1, sizeof s1, "mul%d.%lld", level, (long long)(i / 2));
            snprintf(s2, sizeof s2, "prod%d.%lld", level, (long long)(i / 2));
            OgEdge ins[2] = {v[i], v[i + 1]}, t;
            int64_t j = cnt[i] + cnt[i + 1];
            int32_t p = cvm_bits((uint64_t)cinn_power_bound(ax, j)) + 1;
            st = cinn_node(c, CVM_OP_broadcast_mul, s1, ins, 2, NULL, 0, &t);
            if (st == ST_OK)
                st = cinn_narrow(c, s2, t, p, &v[m]);
            cnt[m++] = j;
        }
        k = m;
    }
    free(cnt);
    *out = v[0];
    return st;
}

#define CINN_MAX_PROD 4096 /* most factors of a kProd reduction */

static Status reduce_prod(CinnCtx *c, OgEdge x, const bool *red, bool keep)
{
    const OgShape *s = cinn_shape(c, x);
    uint32_t N = s->ndim, nk = 0;
    int64_t perm[OG_MAX_DIMS], flat[OG_MAX_DIMS], fin[OG_MAX_DIMS], k = 1;
    uint32_t nf = 0;
    for (uint32_t i = 0; i < N; i++)
        if (!red[i]) {
            perm[nk++] = i;
            flat[nf++] = s->d[i];
        }
    for (uint32_t i = 0, j = nk; i < N; i++)
        if (red[i]) {
            perm[j++] = i;
            k *= s->d[i];
        }
    uint32_t nfin = 0;
    for (uint32_t i = 0; i < N; i++)
        if (keep || !red[i])
            fin[nfin++] = red[i] ? 1 : s->d[i];
    if (nfin == 0)
        fin[nfin++] = 1;
    if (k == 1)
        return reshape(c, NULL, x, fin, nfin, &c->out);
    int64_t ax = og_prec_alpha(cinn_prec(c, x));
    if (cinn_power_bound(ax, k) > INT32_MAX)
        return cinn_fail(c, "cinn.precision", "the product of %lld values of precision %d can "
                         "reach %lld^%lld, beyond 2^31 - 1", (long long)k, (int)cinn_prec(c, x),
                         (long long)ax, (long long)k);
    if (k > CINN_MAX_PROD)
        return cinn_fail(c, "cinn.limit", "a kProd reduction of %lld values per result: at "
                         "most %d", (long long)k, CINN_MAX_PROD);
    Status st;
    OgEdge t = x, r;
    bool ident = true;
    for (uint32_t i = 0; i < N; i++)
        ident = ident && perm[i] == i;
    if (!ident && (st = transpose(c, "order", x, perm, N, &t)))
        return st;
    flat[nf++] = k;
    if ((st = reshape(c, "flat", t, flat, nf, &r)))
        return st;
    OgEdge *f = calloc((size_t)k, sizeof *f);
    if (!f)
        return cinn_oom(c);
    int64_t b[OG_MAX_DIMS], e[OG_MAX_DIMS];
    for (uint32_t i = 0; i + 1 < nf; i++) {
        b[i] = 0;
        e[i] = flat[i];
    }
    st = ST_OK;
    for (int64_t j = 0; j < k && st == ST_OK; j++) {
        b[nf - 1] = j;
        e[nf - 1] = j + 1;
        char sfx[32];
        snprintf(sfx, sizeof sfx, "at%lld", (long long)j);
        CvmKV kv[] = {{"begin", cinn_tuple(c, b, nf)}, {"end", cinn_tuple(c, e, nf)},
                      {NULL, NULL}};
        st = op1kv(c, CVM_OP_strided_slice, sfx, r, kv, &f[j]);
    }
    OgEdge p = {-1, 0};
    if (st == ST_OK)
        st = product(c, f, k, ax, &p);
    free(f);
    return st ? st : reshape(c, NULL, p, fin, nfin, &c->out);
}

Status cinn_b_reduce(CinnCtx *c)
{
    OgEdge x = c->in[0];
    const OgShape *s = cinn_shape(c, x);
    uint32_t k;
    const int64_t *dim = cinn_ints(c, "dim", &k);
    int64_t a[OG_MAX_DIMS];
    Status st = axes_ok(c, "dim", dim, k, s->ndim, a);
    if (st != ST_OK)
        return st;
    bool red[OG_MAX_DIMS] = {false}, keep = cinn_bool(c, "keep_dim");
    for (uint32_t i = 0; i < k; i++)
        red[a[i]] = true;
    const char *kind = cinn_str(c, "kind");
    if (strcmp(kind, "prod") == 0)
        return reduce_prod(c, x, red, keep);
    CvmKV kv[] = {{"axis", cinn_tuple(c, a, k)}, {"keepdims", keep ? "true" : "false"},
                  {NULL, NULL}};
    if (strcmp(kind, "sum") == 0)
        return op1kv(c, CVM_OP_sum, NULL, x, kv, &c->out);
    if (strcmp(kind, "max") == 0)
        return op1kv(c, CVM_OP_max, NULL, x, kv, &c->out);
    /* min = -max(-x): exact, precisions are symmetric */
    OgEdge nx, m;
    if ((st = cinn_node(c, CVM_OP_negative, "neg", &x, 1, NULL, 0, &nx)) ||
        (st = op1kv(c, CVM_OP_max, "max", nx, kv, &m)))
        return st;
    return cinn_node(c, CVM_OP_negative, NULL, &m, 1, NULL, 0, &c->out);
}
