/* cvm_ops_reduce.c: sum and max (the CVM design text, "Reduce Operators").
 *
 * T = the axes, normalized from [-N, N) and distinct; R = U - T when exclude, else T; no axes
 * at all reduces every axis. With R = U the result has shape (1,) or, with keepdims, N ones;
 * with R empty Y = X; otherwise the R dims are dropped (or kept as 1 with keepdims).
 * sum's precision is P + bits(|X| / |Y|) (cvm-runtime); max keeps P. max is the true maximum
 * of the reduced elements (cvm-runtime's CPU code starts from 0 when reducing over all axes;
 * docs/cvm-divergences.md).
 */
#include "frontend/cvm/cvm_ops.h"

#include <stdlib.h>

static const CvmAttrSpec reduce_attrs[] = {
    {"axis", CA_INTS, "()", CVM_I32_LO, CVM_I32_HI, 0, 0, NULL},
    {"keepdims", CA_BOOL, "false", 0, 0, 0, 0, NULL},
    {"exclude", CA_BOOL, "false", 0, 0, 0, 0, NULL},
    {"dtype", CA_STR, "int32", 0, 0, 0, 0, "int32"},
};

Status cvm_parse_reduce(CvmCtx *c, const CvmRawAttrs *raw)
{
    return cvm_parse_attrs(c, raw, reduce_attrs, sizeof reduce_attrs / sizeof *reduce_attrs);
}

/* Marks the reduced dims of an N-dim input in red[]. */
static Status reduced_dims(CvmCtx *c, uint32_t N, bool *red)
{
    uint32_t m;
    const int64_t *ax = og_attr_ints(c->n, "axis", &m);
    bool exclude = og_attr_bool(c->n, "exclude", false);
    bool in_t[OG_MAX_DIMS] = {false};
    for (uint32_t i = 0; i < m; i++) {
        int64_t a;
        if (!cvm_axis(ax[i], N, 0, &a))
            return cvm_fail_attr(c, "axis", "value %lld is out of range [%d, %u)",
                                 (long long)ax[i], -(int)N, N);
        if (in_t[a])
            return cvm_fail_attr(c, "axis", "names axis %lld twice", (long long)a);
        in_t[a] = true;
    }
    for (uint32_t i = 0; i < N; i++)
        red[i] = m == 0 ? true : exclude ? !in_t[i] : in_t[i];
    return ST_OK;
}

Status cvm_shape_reduce(CvmCtx *c, const OgShape *in, OgShape *out)
{
    bool red[OG_MAX_DIMS];
    Status st = reduced_dims(c, in[0].ndim, red);
    if (st != ST_OK)
        return st;
    bool keep = og_attr_bool(c->n, "keepdims", false);
    uint32_t r = 0;
    for (uint32_t i = 0; i < in[0].ndim; i++)
        r += red[i];
    out[0].ndim = 0;
    if (r == in[0].ndim && !keep) {
        out[0].ndim = 1;
        out[0].d[0] = 1;
        return ST_OK;
    }
    for (uint32_t i = 0; i < in[0].ndim; i++) {
        if (red[i] && !keep)
            continue;
        out[0].d[out[0].ndim++] = red[i] ? 1 : in[0].d[i];
    }
    return ST_OK;
}

Status cvm_prec_sum(CvmCtx *c, const OgShape *in, const int32_t *in_prec, int32_t *out_prec)
{
    OgShape o;
    Status st = cvm_shape_reduce(c, in, &o);
    if (st != ST_OK)
        return st;
    int64_t k = og_shape_volume(&in[0]) / og_shape_volume(&o);
    out_prec[0] = in_prec[0] + cvm_bits((uint64_t)k);
    return ST_OK;
}

/* Walks X in C order; ostr[j] is the output stride of dim j, 0 for a reduced dim. */
static Status run(CvmCtx *c, bool is_max, const OgTensor *x, OgTensor *out)
{
    bool red[OG_MAX_DIMS];
    Status st = reduced_dims(c, x->shape.ndim, red);
    if (st != ST_OK)
        return st;
    uint32_t N = x->shape.ndim;
    int64_t ostr[OG_MAX_DIMS], idx[OG_MAX_DIMS] = {0}, k = 1;
    for (uint32_t j = N; j-- > 0;) {
        ostr[j] = red[j] ? 0 : k;
        if (!red[j])
            k *= x->shape.d[j];
    }
    int64_t *acc = malloc((size_t)out->count * sizeof *acc);
    if (!acc)
        return cvm_oom(c);
    for (int64_t i = 0; i < out->count; i++)
        acc[i] = is_max ? INT64_MIN : 0;
    int64_t o = 0;
    for (int64_t i = 0; i < x->count; i++) {
        int64_t v = x->data[i];
        if (is_max)
            acc[o] = v > acc[o] ? v : acc[o];
        else
            acc[o] += v;
        for (uint32_t j = N; j-- > 0;) {
            if (++idx[j] < x->shape.d[j]) {
                o += ostr[j];
                break;
            }
            o -= ostr[j] * (idx[j] - 1);
            idx[j] = 0;
        }
    }
    for (int64_t i = 0; i < out->count; i++)
        out->data[i] = cvm_i32(c, acc[i]);
    free(acc);
    return ST_OK;
}

Status cvm_run_sum(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    return run(c, false, in[0], out);
}

Status cvm_run_max(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    return run(c, true, in[0], out);
}
