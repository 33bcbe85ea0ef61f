/* verify_block.c: the rules about one block on its own, all read from the type table
 * (blocktypes.def, attributes.def, precisions.def) rather than from per-type code:
 * shape.*, attr.*, bias.type, cluster.count, cluster.shape, data.* (data.integer: a float
 * tensor's non-integral values), limit.volume.
 * Requires a block whose type is in the table and is not TASK_NULL (verify.c sees to it).
 */
#include "taskir/verify_impl.h"
#include "taskir/verify_util.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

_Static_assert(AT_COUNT <= 64, "attribute sets are 64-bit masks");

/* The extent of a cluster dim: an unused dim (0) has extent 1. */
static int64_t ext(int64_t x)
{
    return x == 0 ? 1 : x;
}

/* ---- shape ---- */

static void check_shape(Verifier *v, const Block *b)
{
    const BlockTypeInfo *ti = bt_info(b->type);
    for (int i = 0; i < TIR_NDIMS; i++) {
        int32_t x = b->shape.d[i];
        const char *n = tir_dim_names[i];
        if (x < 0 || x > VFY_MAX_DIM)
            vfy_block(v, "shape.range", b, "%s=%d is outside 0..%d (2^24)", n, (int)x,
                      (int)VFY_MAX_DIM);
        if (ti->dims[i] == 'R' && x == 0)
            vfy_block(v, "shape.required", b, "%s needs dim %s, which is absent", ti->name, n);
        else if (ti->dims[i] == '-' && x != 0)
            vfy_block(v, "shape.forbidden", b, "%s does not use dim %s, but the shape gives %s=%d",
                      ti->name, n, n, (int)x);
    }
    bool no_y = ti->dims[D_Y] == 'v' && !b->shape.d[D_Y];
    bool no_x = ti->dims[D_X] == 'v' && !b->shape.d[D_X];
    if (no_y || no_x)
        vfy_pedantic(v, "shape.required", b, "%s without %s (its 1-D form): read as 1",
                     ti->name, no_y && no_x ? "y and x" : no_y ? "y" : "x");
    if (b->shape.n_branch < 0 || b->shape.n_branch > VFY_MAX_DIM)
        vfy_block(v, "shape.range", b, "n_branch=%d is outside 0..%d (2^24)",
                  (int)b->shape.n_branch, (int)VFY_MAX_DIM);
}

/* One axis of a window: out = window(in, pads, kernel, stride, dilation). */
static void check_window_axis(Verifier *v, const Block *b, const int32_t s[TIR_NDIMS], int od,
                              int id, int kd, AttrId plo, AttrId phi, AttrId st, AttrId dl)
{
    int64_t lo = blk_attr(b, plo), hi = blk_attr(b, phi), stride = blk_attr(b, st);
    int64_t dil = (bt_info(b->type)->flags & BF_DILATE) ? blk_attr(b, dl) : 1;
    int64_t k = s[kd] ? s[kd] : 1; /* no kernel dim (CVVH): 1 */
    int64_t out;
    if (!tir_window_out(s[id], lo, hi, k, stride, dil, &out))
        vfy_block(v, "shape.window", b,
                  "%s=%d, kernel %d, stride %" PRId64 ", pad %" PRId64 "/%" PRId64
                  ", dilation %" PRId64 " give no window (it does not fit)",
                  tir_dim_names[id], (int)s[id], (int)s[kd], stride, lo, hi, dil);
    else if (out != s[od])
        vfy_block(v, "shape.window", b,
                  "%s=%d but %s=%d, kernel %d, stride %" PRId64 ", pad %" PRId64 "/%" PRId64
                  ", dilation %" PRId64 " give %" PRId64,
                  tir_dim_names[od], (int)s[od], tir_dim_names[id], (int)s[id], (int)s[kd],
                  stride, lo, hi, dil, out);
}

static void check_window(Verifier *v, const Block *b)
{
    if (!(bt_info(b->type)->flags & BF_WINDOW) || !vfy_shape_ok(b))
        return;
    int32_t s[TIR_NDIMS];
    blk_eff_shape(b, s);
    check_window_axis(v, b, s, D_Y, D_IY, D_KY, AT_PAD_UP, AT_PAD_DOWN, AT_STRIDE_Y,
                      AT_DILATION_Y);
    check_window_axis(v, b, s, D_X, D_IX, D_KX, AT_PAD_LEFT, AT_PAD_RIGHT, AT_STRIDE_X,
                      AT_DILATION_X);
    static const struct {
        AttrId a;
        int d;
    } kernels[] = {{AT_KERNEL_X, D_KX}, {AT_KERNEL_Y, D_KY}};
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        const Attr *a = blk_find_attr(b, kernels[i].a);
        int32_t k;
        if (a && attr_int_value(a, &k) && k != ext(s[kernels[i].d]))
            vfy_block(v, "attr.kernel", b, "%s=%d but the shape gives %s=%d",
                      at_info(kernels[i].a)->name, (int)k, tir_dim_names[kernels[i].d],
                      (int)s[kernels[i].d]);
    }
}

/* ---- attributes and bias ---- */

static void check_attrs(Verifier *v, const Block *b)
{
    const BlockTypeInfo *ti = bt_info(b->type);
    uint64_t tmask = UINT64_C(1) << b->type;
    uint64_t seen = 0, dup = 0;
    for (uint32_t i = 0; i < b->n_attrs; i++) {
        const Attr *a = &b->attrs[i];
        const AttrInfo *ai = at_info(a->id);
        if (!ai) {
            vfy_block(v, "attr.forbidden", b, "attribute %d is not an attribute type",
                      (int)a->id);
            continue;
        }
        uint64_t bit = UINT64_C(1) << a->id;
        if ((seen & bit) && !(dup & bit)) {
            vfy_block(v, "attr.dup", b, "attribute %s is given more than once", ai->name);
            dup |= bit;
        }
        seen |= bit;
        if (!(ai->allowed & tmask) && attr_is_neutral(a))
            vfy_pedantic(v, "attr.forbidden", b, "%s does not use attribute %s; its neutral "
                         "value is accepted and kept", ti->name, ai->name);
        else if (!(ai->allowed & tmask))
            vfy_block(v, "attr.forbidden", b, "%s does not take attribute %s", ti->name,
                      ai->name);
        int32_t val;
        if (!attr_int_value(a, &val)) {
            if (a->has_fvalue)
                vfy_block(v, "attr.value", b, "attribute %s has float_value %g, not an integer",
                          ai->name, (double)a->fvalue);
            else
                vfy_block(v, "attr.value", b, "attribute %s has no value", ai->name);
        } else if (val < ai->lo || val > ai->hi) {
            vfy_block(v, "attr.range", b, "%s=%d is outside %" PRId64 "..%" PRId64, ai->name,
                      (int)val, ai->lo, ai->hi);
        }
    }
    for (int id = 0; id < AT_COUNT; id++) {
        const AttrInfo *ai = at_info((AttrId)id);
        if ((ai->required & tmask) && !(seen & (UINT64_C(1) << id)))
            vfy_block(v, "attr.required", b, "%s needs attribute %s", ti->name, ai->name);
    }
    if (b->bias_type == BIAS_CONSTANT && (ti->flags & BF_BIAS) &&
        !(seen & (UINT64_C(1) << AT_CONSTANT_B)) && !(at_info(AT_CONSTANT_B)->required & tmask))
        vfy_block(v, "attr.required", b, "bias_type CONSTANT needs attribute CONSTANT_B");
}

static const char *bias_name(int t)
{
    return t == BIAS_VECTOR ? "VECTOR" : t == BIAS_CONSTANT ? "CONSTANT" : "absent";
}

static void check_bias(Verifier *v, const Block *b)
{
    const BlockTypeInfo *ti = bt_info(b->type);
    if (b->bias_type != BIAS_ABSENT && b->bias_type != BIAS_VECTOR &&
        b->bias_type != BIAS_CONSTANT)
        vfy_block(v, "bias.type", b, "bias_type %d is neither VECTOR nor CONSTANT",
                  b->bias_type);
    else if (b->bias_type != BIAS_ABSENT && !(ti->flags & BF_BIAS))
        vfy_block(v, "bias.type", b, "%s takes no bias, but bias_type is %s", ti->name,
                  bias_name(b->bias_type));
}

/* ---- clusters ---- */

/* What the type takes as input clusters, in words: "CC with bias_type VECTOR takes 3
 * (input, weight, bias)". */
static void describe_inputs(const Block *b, char *buf, size_t len)
{
    const BlockTypeInfo *ti = bt_info(b->type);
    bool opt_bias = (ti->flags & BF_BIAS) && b->bias_type == BIAS_ABSENT;
    bool bias = (ti->flags & BF_BIAS) && b->bias_type == BIAS_VECTOR;
    char roles[256] = "";
    size_t at = 0;
    for (int i = ti->nvar == 1 ? 0 : 1; i < ti->n_ins && at < sizeof roles; i++)
        at += (size_t)snprintf(roles + at, sizeof roles - at, "%s%s", at ? ", " : "",
                               ti->ins[i].role);
    if (at < sizeof roles && (bias || opt_bias))
        snprintf(roles + at, sizeof roles - at, "%s", opt_bias ? (at ? "[, bias]" : "[bias]")
                                                              : (at ? ", bias" : "bias"));
    const char *with = b->bias_type ? " with bias_type " : "";
    const char *bt = b->bias_type ? bias_name(b->bias_type) : "";
    if (ti->n_ins == 0) {
        snprintf(buf, len, "%s takes none", ti->name);
    } else if (ti->nvar == 1) {
        unsigned n = (unsigned)ti->n_ins + (bias ? 1u : 0u);
        if (opt_bias)
            snprintf(buf, len, "%s takes %u or %u (%s)", ti->name, n, n + 1, roles);
        else
            snprintf(buf, len, "%s%s%s takes %u (%s)", ti->name, with, bt, n, roles);
    } else {
        char times[64];
        if (ti->nvar == 0 && b->shape.n_branch > 0)
            snprintf(times, sizeof times, "%d times (n_branch)", (int)b->shape.n_branch);
        else if (ti->nvar == 0)
            snprintf(times, sizeof times, "1 or more times");
        else
            snprintf(times, sizeof times, "1 to %d times", ti->nvar);
        snprintf(buf, len, "%s%s%s takes '%s' %s%s%s", ti->name, with, bt, ti->ins[0].role,
                 times, roles[0] ? ", then " : "", roles);
    }
}

static void check_cluster_count(Verifier *v, const Block *b)
{
    const BlockTypeInfo *ti = bt_info(b->type);
    char want[384];
    bool in_ok;
    uint32_t out_lo, out_hi;
    if (ti->kind == BK_STORAGE) {
        bool by_data = (ti->flags & BF_DATA) && b->data;
        in_ok = b->n_in == (by_data ? 0u : 1u);
        if (blk_idle_input(b)) {
            in_ok = true;
            vfy_pedantic(v, "cluster.count", b, "has 1 input cluster, with no interfaces; a %s "
                         "with data takes none", ti->name);
        } else if (!by_data && b->n_in == 0)
            in_ok = true; /* data.missing says it better */
        else if (!in_ok && by_data)
            snprintf(want, sizeof want, "a %s with data takes none", ti->name);
        else if (!in_ok)
            snprintf(want, sizeof want, "a %s without data takes 1 (its content arrives "
                                        "along an edge)", ti->name);
        out_lo = 0;
        out_hi = 1;
    } else {
        int64_t bias = blk_has_bias_cluster(b) ? 1 : 0;
        int64_t others = ti->n_ins ? ti->n_ins - 1 + bias : 0;
        int64_t nv = (int64_t)b->n_in - others;
        if (ti->n_ins == 0)
            in_ok = b->n_in == 0;
        else if (ti->nvar == 1)
            in_ok = nv == 1;
        else if (ti->nvar == 0)
            in_ok = nv >= 1 && (b->shape.n_branch <= 0 || nv == b->shape.n_branch);
        else
            in_ok = nv >= 1 && nv <= ti->nvar;
        if (!in_ok)
            describe_inputs(b, want, sizeof want);
        out_lo = out_hi = (uint32_t)ti->n_outs;
    }
    if (!in_ok)
        vfy_block(v, "cluster.count", b, "has %" PRIu32 " input clusters; %s", b->n_in, want);
    if (b->n_out < out_lo || b->n_out > out_hi) {
        if (out_lo == out_hi)
            vfy_block(v, "cluster.count", b, "has %" PRIu32 " output clusters; %s takes %" PRIu32,
                      b->n_out, ti->name, out_lo);
        else
            vfy_block(v, "cluster.count", b,
                      "has %" PRIu32 " output clusters; %s takes %" PRIu32 " or %" PRIu32,
                      b->n_out, ti->name, out_lo, out_hi);
    }
}

/* cluster.shape, and limit.volume of each cluster. */
static void check_cluster_shapes(Verifier *v, const Block *b)
{
    const char *tname = bt_info(b->type)->name;
    bool shape_ok = vfy_shape_ok(b);
    for (int dir = 0; dir < 2; dir++) {
        bool input = dir == 0;
        uint32_t n = input ? b->n_in : b->n_out;
        for (uint32_t i = 0; i < n; i++) {
            const Cluster *c = input ? &b->in[i] : &b->out[i];
            const ClusterSpec *spec = input ? blk_in_spec(b, i) : blk_out_spec(b, i);
            char name[96];
            int32_t want[TIR_CDIMS];
            if (c->has_shape && spec && shape_ok && blk_spec_dims(b, spec, want)) {
                bool same = true;
                int64_t have64[TIR_CDIMS], want64[TIR_CDIMS];
                for (int k = 0; k < TIR_CDIMS; k++) {
                    have64[k] = c->shape.d[k];
                    want64[k] = want[k];
                    same = same && ext(have64[k]) == ext(want64[k]);
                }
                if (!same) {
                    char h[160], w[160];
                    vfy_cluster_name(b, input, i, name, sizeof name);
                    vfy_dims_text(have64, h, sizeof h);
                    vfy_dims_text(want64, w, sizeof w);
                    vfy_block(v, "cluster.shape", b, "%s has shape %s, the %s shape gives %s",
                              name, h, tname, w);
                }
            }
            int32_t cd[TIR_CDIMS];
            if (vfy_cluster_dims(b, input, i, cd)) {
                int64_t vol = tir_volume(cd, TIR_CDIMS);
                if (vol < 0 || vol > VFY_MAX_VOLUME) {
                    vfy_cluster_name(b, input, i, name, sizeof name);
                    vfy_block(v, "limit.volume", b,
                              "%s holds more than 2^31-1 elements", name);
                }
            }
        }
    }
}

/* ---- data ---- */

static const char *const container_names[3] = {"int32_data", "uint32_data", "float_data"};

static void ints_text(const int32_t *x, uint32_t n, char *buf, size_t len)
{
    size_t at = (size_t)snprintf(buf, len, "[");
    for (uint32_t i = 0; i < n && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%d", i ? ", " : "", (int)x[i]);
    if (at < len)
        snprintf(buf + at, len - at, "]");
}

/* data.range over the precision's container. */
static void check_data_range(Verifier *v, const Block *b, const Tensor *t,
                             const PrecisionInfo *pi)
{
    uint64_t bad = 0, first = 0;
    char val[48] = "";
    switch (pi->container) {
    case TC_INT32: {
        /* first the extremes (found on threads beforehand, else a loop the compiler
         * vectorizes: this reads every weight) */
        int32_t mn = INT32_MAX, mx = INT32_MIN;
        if (!vfy_values_extremes(v, b, &mn, &mx))
            for (uint32_t i = 0; i < t->n_i32; i++) {
                int32_t x = tensor_i32_at(t, i);
                mn = x < mn ? x : mn;
                mx = x > mx ? x : mx;
            }
        if (t->n_i32 == 0 || (mn >= pi->lo && mx <= pi->hi))
            break;
        for (uint32_t i = 0; i < t->n_i32; i++)
            if (tensor_i32_at(t, i) < pi->lo || tensor_i32_at(t, i) > pi->hi) {
                if (!bad++) {
                    first = i;
                    snprintf(val, sizeof val, "%d", (int)tensor_i32_at(t, i));
                }
            }
        break;
    }
    case TC_UINT32:
        for (uint32_t i = 0; i < t->n_u32; i++)
            if ((int64_t)t->u32[i] < pi->lo || (int64_t)t->u32[i] > pi->hi) {
                if (!bad++) {
                    first = i;
                    snprintf(val, sizeof val, "%" PRIu32, t->u32[i]);
                }
            }
        break;
    case TC_FLOAT: {
        uint64_t frac = 0, frac_at = 0;
        for (uint32_t i = 0; i < t->n_f32; i++) {
            double x = t->f32[i];
            if (isnan(x) || x < (double)pi->lo || x > (double)pi->hi) {
                if (!bad++) {
                    first = i;
                    snprintf(val, sizeof val, "%g", x);
                }
            } else if (x != floor(x) && !frac++) {
                frac_at = i;
            }
        }
        /* every block computes on integers (docs/semantics.md): the simulator refuses such a
         * value when it loads the data [sim.data]; say it here first */
        if (frac)
            vfy_block(v, "data.integer", b,
                      "%s data value %.9g at index %" PRIu64 " is not an integer (%" PRIu64
                      " values are not); the blocks it feeds compute on integers",
                      pi->name, (double)t->f32[frac_at], frac_at, frac);
        break;
    }
    }
    if (bad)
        vfy_block(v, "data.range", b,
                  "data value %s at index %" PRIu64 " is outside %s's range %" PRId64
                  "..%" PRId64 " (%" PRIu64 " values are out of range)",
                  val, first, pi->name, pi->lo, pi->hi, bad);
}

static void check_data(Verifier *v, const Block *b)
{
    const BlockTypeInfo *ti = bt_info(b->type);
    const Tensor *t = b->data;
    if (ti->kind != BK_STORAGE) {
        if (t)
            vfy_block(v, "data.compute", b, "%s blocks carry no data, but this one has a tensor",
                      ti->kind == BK_COMPUTE ? "compute" : "INPUT/OUTPUT");
        return;
    }
    if (!t) {
        if (b->n_in == 0)
            vfy_block(v, "data.missing", b,
                      "has neither data nor an input cluster: it would never hold anything");
        return;
    }
    /* data.dims: the type's used dims that the shape gives, in y x f r ky kx order */
    int32_t want[TIR_NDIMS];
    uint32_t nw = 0;
    for (int i = 0; i < TIR_NDIMS; i++)
        if (ti->dims[i] != '-' && b->shape.d[i] != 0)
            want[nw++] = b->shape.d[i];
    bool dims_bad = nw != t->n_dims || (nw && memcmp(want, t->dims, nw * sizeof *want) != 0);
    if (dims_bad) {
        char h[160], w[160];
        ints_text(t->dims, t->n_dims, h, sizeof h);
        ints_text(want, nw, w, sizeof w);
        vfy_block(v, "data.dims", b, "data dims %s differ from the block's used dims %s", h, w);
    }
    PrecisionId prec = t->has_prec ? t->prec : blk_prec(b);
    const PrecisionInfo *pi = pr_info(prec);
    uint32_t count[3] = {t->n_i32, t->n_u32, t->n_f32};
    if (!pi) {
        vfy_block(v, "data.container", b, "data precision %d is not a precision", (int)prec);
        return;
    }
    for (int c = 0; c < 3; c++)
        if (c != (int)pi->container && count[c])
            vfy_block(v, "data.container", b,
                      "data of precision %s belongs in %s, but %s has %" PRIu32 " values",
                      pi->name, container_names[pi->container], container_names[c], count[c]);
    /* data.len and limit.volume: the product of the dims (a 0 dim means no elements) */
    int64_t prod = 1;
    bool negative = false, overflow = false;
    for (uint32_t i = 0; i < t->n_dims; i++) {
        if (t->dims[i] < 0)
            negative = true;
        else if (t->dims[i] > 0 && prod > VFY_MAX_VOLUME / t->dims[i])
            overflow = true;
        else
            prod *= t->dims[i];
    }
    for (uint32_t i = 0; i < t->n_dims; i++)
        if (t->dims[i] == 0)
            prod = 0, overflow = false;
    uint32_t have = count[pi->container];
    if (negative) {
        if (!dims_bad)
            vfy_block(v, "data.dims", b, "data dims include a negative value");
    } else if (overflow || have > VFY_MAX_VOLUME) {
        vfy_block(v, "limit.volume", b, "data tensor holds more than 2^31-1 elements");
    } else if ((int64_t)have != prod) {
        char h[160];
        ints_text(t->dims, t->n_dims, h, sizeof h);
        vfy_block(v, "data.len", b, "%s holds %" PRIu32 " values, dims %s give %" PRId64,
                  container_names[pi->container], have, h, prod);
    }
    check_data_range(v, b, t, pi);
}

/* limit.volume of the block's own shape: storage and IO blocks (their content). A compute
 * block's shape is its loop nest; the tensors it touches are its clusters, checked there. */
static void check_volume(Verifier *v, const Block *b)
{
    BlockKind k = bt_info(b->type)->kind;
    if ((k != BK_STORAGE && k != BK_IO) || !vfy_shape_ok(b))
        return;
    int32_t s[TIR_NDIMS];
    blk_eff_shape(b, s);
    int64_t vol = tir_volume(s, TIR_CDIMS);
    if (vol < 0 || vol > VFY_MAX_VOLUME)
        vfy_block(v, "limit.volume", b, "the shape holds more than 2^31-1 elements");
}

void verify_block_local(Verifier *v, const Block *b)
{
    check_shape(v, b);
    check_window(v, b);
    check_attrs(v, b);
    check_bias(v, b);
    check_cluster_count(v, b);
    check_cluster_shapes(v, b);
    check_data(v, b);
    check_volume(v, b);
}
