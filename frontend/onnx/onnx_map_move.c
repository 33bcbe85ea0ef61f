/* onnx_map_move.c: the data-movement operators. Each computes, at compile time, where every
 * output element comes from (a flat index into its input), following the operator's ONNX
 * definition; the element map becomes a CVM reshape (when it is the identity) or a CVM take
 * with constant indices, which the lowering turns into edges and rearrangements, never
 * compute blocks. A constant input is moved on the host instead. These operators never look
 * at values, so float tensors pass as bit patterns.
 */
#include "frontend/onnx/onnx_internal.h"

#include <stdlib.h>
#include <string.h>

/* Output 0 = x moved by idx (NULL: x's elements in order, reshaped) into shape os. */
static Status move_out(OnnxCtx *c, OnnxVal *x, const OgShape *os, const int32_t *idx)
{
    Status cs = onnx_check_shape(c, os);
    if (cs != ST_OK)
        return cs;
    int64_t n = og_shape_volume(os);
    if (n == 0)
        return onnx_fail(c, "onnx.shape.empty", "the result is empty (a zero dim): not "
                         "supported");
    if (x->kind == OV_CONST) {
        OnnxTensor t;
        memset(&t, 0, sizeof t);
        t.type = x->c.type;
        t.ndim = os->ndim;
        for (uint32_t k = 0; k < os->ndim; k++)
            t.dims[k] = os->d[k];
        t.count = n;
        Status rst = onnx_map_reserve(c, n);
        if (rst != ST_OK)
            return rst;
        if (x->c.i && !(t.i = malloc((size_t)n * sizeof *t.i)))
            return onnx_oom(c);
        if (x->c.f && !(t.f = malloc((size_t)n * sizeof *t.f)))
            return onnx_oom(c);
        for (int64_t i = 0; i < n; i++) {
            int64_t j = idx ? idx[i] : i;
            if (t.i)
                t.i[i] = x->c.i[j];
            else
                t.f[i] = x->c.f[j];
        }
        return onnx_out_const(c, 0, &t);
    }
    int32_t type = x->type;
    OgEdge e;
    Status st = idx ? onnx_gather_flat(c, x->e, os, idx, &e) : onnx_reshape(c, x->e, os, &e);
    if (st != ST_OK)
        return st;
    return onnx_out_run(c, 0, e, type);
}

/* An index array for the elements of os; NULL with *st set (shape limits or memory). */
static int32_t *alloc_idx(OnnxCtx *c, const OgShape *os, Status *st)
{
    if ((*st = onnx_check_shape(c, os)) != ST_OK)
        return NULL;
    int64_t n = og_shape_volume(os);
    if ((*st = onnx_map_reserve(c, n)) != ST_OK)
        return NULL;
    int32_t *idx = malloc((size_t)(n ? n : 1) * sizeof *idx);
    if (!idx)
        *st = onnx_oom(c);
    return idx;
}

static Status check_limits(OnnxCtx *c, const OgShape *s)
{
    if (s->ndim > OG_MAX_DIMS)
        return onnx_fail(c, "onnx.shape.rank", "the result has %u dims, at most %d are "
                         "supported", s->ndim, OG_MAX_DIMS);
    int64_t v = 1;
    for (uint32_t k = 0; k < s->ndim; k++) {
        if (s->d[k] < 0 || s->d[k] > OG_MAX_DIM)
            return onnx_fail(c, "onnx.shape.dims", "dim %u of the result is %lld, not in "
                             "0..%lld", k, (long long)s->d[k], (long long)OG_MAX_DIM);
        v *= s->d[k];
        if (v > OG_MAX_VOLUME)
            return onnx_fail(c, "onnx.shape.volume", "the result has more than %lld elements",
                             (long long)OG_MAX_VOLUME);
    }
    return ST_OK;
}

/* Output element i's multi-index under shape s. */
static void unflatten(const OgShape *s, int64_t i, int64_t *ix)
{
    for (uint32_t k = s->ndim; k-- > 0;) {
        ix[k] = i % s->d[k];
        i /= s->d[k];
    }
}

static const char *const no_attrs[] = {NULL};

Status onnx_map_identity(OnnxCtx *c)
{
    Status st = onnx_attrs_known(c, no_attrs);
    OnnxVal *x = st == ST_OK ? onnx_in(c, 0, &st) : NULL;
    if (st != ST_OK)
        return st;
    if (!x)
        return onnx_fail(c, "onnx.node.inputs", "input 0 is required");
    return onnx_out_alias(c, 0, x);
}

Status onnx_map_reshape(OnnxCtx *c)
{
    static const char *const ok[] = {"allowzero", NULL};
    int64_t allowzero;
    Status st = onnx_attrs_known(c, ok);
    if (st == ST_OK)
        st = onnx_attr_int(c, "allowzero", 0, 0, 1, &allowzero);
    OnnxVal *x = st == ST_OK ? onnx_need(c, 0, &st) : NULL;
    if (st != ST_OK)
        return st;
    const int64_t *sv;
    int64_t n;
    bool present;
    if ((st = onnx_const_ints(c, 1, &sv, &n, &present)) != ST_OK)
        return st;
    if (!present)
        return onnx_fail(c, "onnx.node.inputs", "input 1 (the shape) is required");
    OgShape in = onnx_shape(x), os = {0, {0}};
    if (n > OG_MAX_DIMS)
        return onnx_fail(c, "onnx.shape.rank", "the shape has %lld dims, at most %d are "
                         "supported", (long long)n, OG_MAX_DIMS);
    os.ndim = (uint32_t)n;
    int infer = -1;
    int64_t known = 1;
    for (uint32_t k = 0; k < os.ndim; k++) {
        int64_t v = sv[k];
        if (v == 0 && !allowzero) {
            if (k >= in.ndim)
                return onnx_fail(c, "onnx.shape.reshape", "shape[%u] = 0 copies a dim the "
                                 "input does not have", k);
            v = in.d[k];
        }
        if (v == -1) {
            if (infer >= 0)
                return onnx_fail(c, "onnx.shape.reshape", "the shape has two -1 entries");
            infer = (int)k;
            continue;
        }
        if (v < 0 || v > OG_MAX_DIM)
            return onnx_fail(c, "onnx.shape.reshape", "shape[%u] = %lld is invalid", k,
                             (long long)sv[k]);
        os.d[k] = v;
        known *= v;
        if (known > OG_MAX_VOLUME)
            return onnx_fail(c, "onnx.shape.volume", "the shape has too many elements");
    }
    int64_t vol = og_shape_volume(&in);
    if (infer >= 0) {
        if (known == 0 || vol % known)
            return onnx_fail(c, "onnx.shape.reshape", "the -1 dim cannot be inferred: %lld "
                             "elements into blocks of %lld", (long long)vol, (long long)known);
        os.d[infer] = vol / known;
    } else if (known != vol) {
        char sa[128], sb[128];
        return onnx_fail(c, "onnx.shape.reshape", "the shape %s has %lld elements, the input %s "
                         "%lld", og_shape_str(&os, sa, sizeof sa), (long long)known,
                         og_shape_str(&in, sb, sizeof sb), (long long)vol);
    }
    return move_out(c, x, &os, NULL);
}

Status onnx_map_flatten(OnnxCtx *c)
{
    static const char *const ok[] = {"axis", NULL};
    Status st = onnx_attrs_known(c, ok);
    OnnxVal *x = st == ST_OK ? onnx_need(c, 0, &st) : NULL;
    if (st != ST_OK)
        return st;
    OgShape in = onnx_shape(x);
    int64_t axis;
    if ((st = onnx_attr_int(c, "axis", 1, -(int64_t)in.ndim, in.ndim, &axis)) != ST_OK)
        return st;
    if (axis < 0)
        axis += in.ndim;
    OgShape os = {2, {1, 1}};
    for (uint32_t k = 0; k < in.ndim; k++)
        os.d[(int64_t)k < axis ? 0 : 1] *= in.d[k];
    return move_out(c, x, &os, NULL);
}

Status onnx_map_transpose(OnnxCtx *c)
{
    static const char *const ok[] = {"perm", NULL};
    const int64_t *perm;
    uint32_t np;
    Status st = onnx_attrs_known(c, ok);
    if (st == ST_OK)
        st = onnx_attr_ints(c, "perm", OG_MAX_DIMS, &perm, &np);
    OnnxVal *x = st == ST_OK ? onnx_need(c, 0, &st) : NULL;
    if (st != ST_OK)
        return st;
    OgShape in = onnx_shape(x), os = in;
    int64_t p[OG_MAX_DIMS];
    if (perm && np != in.ndim)
        return onnx_fail(c, "onnx.attr", "perm has %u entries for rank %u", np, in.ndim);
    bool seen[OG_MAX_DIMS] = {false};
    for (uint32_t k = 0; k < in.ndim; k++) {
        p[k] = perm ? perm[k] : (int64_t)(in.ndim - 1 - k);
        if (p[k] < 0 || p[k] >= (int64_t)in.ndim || seen[p[k]])
            return onnx_fail(c, "onnx.attr", "perm is not a permutation of 0..%u",
                             in.ndim - 1);
        seen[p[k]] = true;
        os.d[k] = in.d[p[k]];
    }
    int32_t *idx = alloc_idx(c, &os, &st);
    if (!idx)
        return st;
    int64_t ist[OG_MAX_DIMS], ix[OG_MAX_DIMS];
    onnx_strides(&in, ist);
    for (int64_t i = 0; i < og_shape_volume(&os); i++) {
        unflatten(&os, i, ix);
        int64_t src = 0;
        for (uint32_t k = 0; k < os.ndim; k++)
            src += ix[k] * ist[p[k]];
        idx[i] = (int32_t)src;
    }
    st = move_out(c, x, &os, idx);
    free(idx);
    return st;
}

Status onnx_map_concat(OnnxCtx *c)
{
    static const char *const ok[] = {"axis", NULL};
    Status st = onnx_attrs_known(c, ok);
    if (st != ST_OK)
        return st;
    uint32_t n = (uint32_t)c->node->n_input;
    if (n == 0)
        return onnx_fail(c, "onnx.node.inputs", "Concat needs at least one input");
    OnnxVal *x0 = onnx_need(c, 0, &st);
    if (st != ST_OK)
        return st;
    OgShape s0 = onnx_shape(x0);
    int32_t type = x0->type;
    int64_t a;
    if ((st = onnx_attr_int(c, "axis", 0, -(int64_t)s0.ndim, (int64_t)s0.ndim - 1, &a)) !=
        ST_OK)
        return st;
    if (!onnx_attr(c, "axis"))
        return onnx_fail(c, "onnx.attr", "attribute 'axis' is required");
    uint32_t axis = (uint32_t)(a < 0 ? a + s0.ndim : a);
    OgShape os = s0;
    os.d[axis] = 0;
    bool all_const = true;
    for (uint32_t k = 0; k < n; k++) {
        OnnxVal *x = onnx_need(c, k, &st);
        if (st != ST_OK)
            return st;
        OgShape s = onnx_shape(x);
        if (x->type != type || s.ndim != s0.ndim)
            return onnx_fail(c, "onnx.shape.concat", "input %u has type %s and rank %u, input 0 "
                             "%s and rank %u", k, fe_onnx_type_name(x->type), s.ndim,
                             fe_onnx_type_name(type), s0.ndim);
        for (uint32_t j = 0; j < s.ndim; j++)
            if (j != axis && s.d[j] != s0.d[j]) {
                char sa[128], sb[128];
                return onnx_fail(c, "onnx.shape.concat", "input %u %s differs from input 0 %s "
                                 "in dim %u", k, og_shape_str(&s, sa, sizeof sa),
                                 og_shape_str(&s0, sb, sizeof sb), j);
            }
        os.d[axis] += s.d[axis];
        all_const = all_const && x->kind == OV_CONST;
    }
    if ((st = check_limits(c, &os)) != ST_OK)
        return st;
    if (og_shape_volume(&os) == 0)
        return onnx_fail(c, "onnx.shape.empty", "the result is empty: not supported");
    if (all_const) {
        /* on the host: element i of the result from input k at (outer, j, inner) */
        OnnxTensor t;
        memset(&t, 0, sizeof t);
        t.type = type;
        t.ndim = os.ndim;
        for (uint32_t j = 0; j < os.ndim; j++)
            t.dims[j] = os.d[j];
        t.count = og_shape_volume(&os);
        bool fl = x0->c.f != NULL;
        if (!(fl ? (void *)(t.f = malloc((size_t)t.count * sizeof *t.f))
                 : (void *)(t.i = malloc((size_t)t.count * sizeof *t.i))))
            return onnx_oom(c);
        int64_t outer = 1, inner = 1, pos = 0;
        for (uint32_t j = 0; j < axis; j++)
            outer *= os.d[j];
        for (uint32_t j = axis + 1; j < os.ndim; j++)
            inner *= os.d[j];
        for (int64_t o = 0; o < outer; o++)
            for (uint32_t k = 0; k < n; k++) {
                OnnxVal *x = onnx_val(c, c->node->input[k]);
                int64_t blk = x->c.dims[axis] * inner;
                for (int64_t q = 0; q < blk; q++, pos++) {
                    if (fl)
                        t.f[pos] = x->c.f[o * blk + q];
                    else
                        t.i[pos] = x->c.i[o * blk + q];
                }
            }
        return onnx_out_const(c, 0, &t);
    }
    OgEdge *ins = malloc(n * sizeof *ins);
    if (!ins)
        return onnx_oom(c);
    for (uint32_t k = 0; k < n && st == ST_OK; k++)
        st = onnx_edge(c, onnx_val(c, c->node->input[k]), &ins[k]);
    char ab[16];
    snprintf(ab, sizeof ab, "%u", axis);
    OgEdge e;
    if (st == ST_OK)
        st = onnx_cvm(c, CVM_OP_concatenate, "concat", ins, n,
                      (const char *const[]){"axis", ab, NULL}, &e);
    free(ins);
    if (st != ST_OK)
        return st;
    return onnx_out_run(c, 0, e, type);
}

/* An int list from attribute `name` (opset < from) or constant input k (opset >= from). */
static Status ints_param(OnnxCtx *c, int from, const char *name, uint32_t k,
                         const int64_t **v, int64_t *n, bool *present)
{
    if (c->opset < from) {
        uint32_t cnt;
        Status st = onnx_attr_ints(c, name, ONNX_MAX_ATTR_LIST, v, &cnt);
        *n = cnt;
        *present = *v != NULL;
        return st;
    }
    if (onnx_attr(c, name))
        return onnx_fail(c, "onnx.attr", "'%s' is an input from opset %d on, not an attribute",
                         name, from);
    return onnx_const_ints(c, k, v, n, present);
}

Status onnx_map_slice(OnnxCtx *c)
{
    static const char *const ok[] = {"starts", "ends", "axes", NULL};
    Status st = onnx_attrs_known(c, ok);
    OnnxVal *x = st == ST_OK ? onnx_need(c, 0, &st) : NULL;
    if (st != ST_OK)
        return st;
    OgShape in = onnx_shape(x);
    const int64_t *sv, *ev, *av = NULL, *pv = NULL;
    int64_t ns, ne, na = 0, np = 0;
    bool ps, pe, pa, pp = false;
    if ((st = ints_param(c, 10, "starts", 1, &sv, &ns, &ps)) != ST_OK ||
        (st = ints_param(c, 10, "ends", 2, &ev, &ne, &pe)) != ST_OK ||
        (st = ints_param(c, 10, "axes", 3, &av, &na, &pa)) != ST_OK)
        return st;
    if (c->opset >= 10 && (st = onnx_const_ints(c, 4, &pv, &np, &pp)) != ST_OK)
        return st;
    if (!ps || !pe || ns != ne || (pa && na != ns) || (pp && np != ns) || ns > in.ndim)
        return onnx_fail(c, "onnx.slice", "starts, ends, axes and steps must have one entry "
                         "per sliced axis");
    int64_t start[OG_MAX_DIMS], step[OG_MAX_DIMS];
    OgShape os = in;
    bool done[OG_MAX_DIMS] = {false};
    for (uint32_t k = 0; k < in.ndim; k++)
        start[k] = 0, step[k] = 1;
    for (int64_t i = 0; i < ns; i++) {
        uint32_t ax;
        if ((st = onnx_axis(c, "a slice axis", pa ? av[i] : i, in.ndim, &ax)) != ST_OK)
            return st;
        if (done[ax])
            return onnx_fail(c, "onnx.slice", "axis %u is sliced twice", ax);
        done[ax] = true;
        int64_t dim = in.d[ax], s = pp ? pv[i] : 1, b = sv[i], e = ev[i];
        if (s == 0)
            return onnx_fail(c, "onnx.slice", "a step is 0");
        if (b < 0)
            b = b < -dim ? 0 : b + dim;
        if (e < 0)
            e = e < -dim ? -1 : e + dim;
        if (s > 0) {
            b = b > dim ? dim : b;
            e = e < 0 ? 0 : e > dim ? dim : e;
        } else {
            b = b > dim - 1 ? dim - 1 : b;
            e = e > dim - 1 ? dim - 1 : e;
        }
        int64_t len = s > 0 ? (e - b + s - 1) / s : (b - e + (-s) - 1) / (-s);
        if (s < 0 && b < 0)
            len = 0;
        os.d[ax] = len > 0 ? len : 0;
        start[ax] = b;
        step[ax] = s;
    }
    if (og_shape_volume(&os) == 0)
        return onnx_fail(c, "onnx.shape.empty", "the slice is empty: not supported");
    int32_t *idx = alloc_idx(c, &os, &st);
    if (!idx)
        return st;
    int64_t ist[OG_MAX_DIMS], ix[OG_MAX_DIMS];
    onnx_strides(&in, ist);
    for (int64_t i = 0; i < og_shape_volume(&os); i++) {
        unflatten(&os, i, ix);
        int64_t src = 0;
        for (uint32_t k = 0; k < os.ndim; k++)
            src += (start[k] + ix[k] * step[k]) * ist[k];
        idx[i] = (int32_t)src;
    }
    st = move_out(c, x, &os, idx);
    free(idx);
    return st;
}

Status onnx_map_gather(OnnxCtx *c)
{
    static const char *const ok[] = {"axis", NULL};
    Status st = onnx_attrs_known(c, ok);
    OnnxVal *x = st == ST_OK ? onnx_need(c, 0, &st) : NULL;
    if (st != ST_OK)
        return st;
    OgShape in = onnx_shape(x);
    if (in.ndim == 0)
        return onnx_fail(c, "onnx.shape.rank", "the data is a scalar");
    int64_t a;
    if ((st = onnx_attr_int(c, "axis", 0, -(int64_t)in.ndim, (int64_t)in.ndim - 1, &a)) !=
        ST_OK)
        return st;
    uint32_t axis = (uint32_t)(a < 0 ? a + in.ndim : a);
    const int64_t *iv;
    int64_t ni;
    bool present;
    if ((st = onnx_const_ints(c, 1, &iv, &ni, &present)) != ST_OK)
        return st;
    if (!present)
        return onnx_fail(c, "onnx.node.inputs", "input 1 (the indices) is required");
    OgShape is = onnx_shape(onnx_val(c, c->node->input[1])), os = {0, {0}};
    for (uint32_t k = 0; k < axis; k++)
        os.d[os.ndim++] = in.d[k];
    if (in.ndim - 1 + is.ndim > OG_MAX_DIMS)
        return onnx_fail(c, "onnx.shape.rank", "the result has more than %d dims", OG_MAX_DIMS);
    for (uint32_t k = 0; k < is.ndim; k++)
        os.d[os.ndim++] = is.d[k];
    for (uint32_t k = axis + 1; k < in.ndim; k++)
        os.d[os.ndim++] = in.d[k];
    int64_t outer = 1, inner = 1, n = in.d[axis];
    for (uint32_t k = 0; k < axis; k++)
        outer *= in.d[k];
    for (uint32_t k = axis + 1; k < in.ndim; k++)
        inner *= in.d[k];
    for (int64_t j = 0; j < ni; j++)
        if (iv[j] < -n || iv[j] >= n)
            return onnx_fail(c, "onnx.gather.index", "index %lld (element %lld) is out of range "
                             "for an axis of %lld", (long long)iv[j], (long long)j,
                             (long long)n);
    if (os.ndim == 0) {   /* a scalar from a 1-D tensor: keep it 1-D on the chip side */
        os.ndim = 1;
        os.d[0] = 1;
    }
    int32_t *idx = alloc_idx(c, &os, &st);
    if (!idx)
        return st;
    int64_t pos = 0;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t j = 0; j < ni; j++) {
            int64_t r = iv[j] < 0 ? iv[j] + n : iv[j];
            for (int64_t q = 0; q < inner; q++)
                idx[pos++] = (int32_t)((o * n + r) * inner + q);
        }
    st = move_out(c, x, &os, idx);
    free(idx);
    return st;
}

Status onnx_map_tile(OnnxCtx *c)
{
    Status st = onnx_attrs_known(c, no_attrs);
    OnnxVal *x = st == ST_OK ? onnx_need(c, 0, &st) : NULL;
    if (st != ST_OK)
        return st;
    OgShape in = onnx_shape(x), os = in;
    const int64_t *rv;
    int64_t nr;
    bool present;
    if ((st = onnx_const_ints(c, 1, &rv, &nr, &present)) != ST_OK)
        return st;
    if (!present || nr != in.ndim)
        return onnx_fail(c, "onnx.tile", "repeats must have one entry per dim (%u)", in.ndim);
    for (uint32_t k = 0; k < in.ndim; k++) {
        if (rv[k] < 0 || rv[k] > OG_MAX_DIM)
            return onnx_fail(c, "onnx.tile", "repeats[%u] = %lld is invalid", k,
                             (long long)rv[k]);
        os.d[k] = in.d[k] * rv[k];
    }
    if ((st = check_limits(c, &os)) != ST_OK)
        return st;
    int32_t *idx = alloc_idx(c, &os, &st);
    if (!idx)
        return st;
    int64_t ist[OG_MAX_DIMS], ix[OG_MAX_DIMS];
    onnx_strides(&in, ist);
    for (int64_t i = 0; i < og_shape_volume(&os); i++) {
        unflatten(&os, i, ix);
        int64_t src = 0;
        for (uint32_t k = 0; k < os.ndim; k++)
            src += (ix[k] % in.d[k]) * ist[k];
        idx[i] = (int32_t)src;
    }
    st = move_out(c, x, &os, idx);
    free(idx);
    return st;
}

Status onnx_map_squeeze(OnnxCtx *c)
{
    static const char *const ok[] = {"axes", NULL};
    Status st = onnx_attrs_known(c, ok);
    OnnxVal *x = st == ST_OK ? onnx_need(c, 0, &st) : NULL;
    if (st != ST_OK)
        return st;
    OgShape in = onnx_shape(x), os = {0, {0}};
    const int64_t *av;
    int64_t na;
    bool present;
    if ((st = ints_param(c, 13, "axes", 1, &av, &na, &present)) != ST_OK)
        return st;
    bool drop[OG_MAX_DIMS] = {false};
    for (int64_t i = 0; i < na; i++) {
        uint32_t ax;
        if ((st = onnx_axis(c, "a squeezed axis", av[i], in.ndim, &ax)) != ST_OK)
            return st;
        if (in.d[ax] != 1)
            return onnx_fail(c, "onnx.shape.squeeze", "axis %u has extent %lld, not 1", ax,
                             (long long)in.d[ax]);
        drop[ax] = true;
    }
    for (uint32_t k = 0; k < in.ndim; k++)
        if (!(na ? drop[k] : in.d[k] == 1))
            os.d[os.ndim++] = in.d[k];
    return move_out(c, x, &os, NULL);
}

Status onnx_map_unsqueeze(OnnxCtx *c)
{
    static const char *const ok[] = {"axes", NULL};
    Status st = onnx_attrs_known(c, ok);
    OnnxVal *x = st == ST_OK ? onnx_need(c, 0, &st) : NULL;
    if (st != ST_OK)
        return st;
    OgShape in = onnx_shape(x), os = {0, {0}};
    const int64_t *av;
    int64_t na;
    bool present;
    if ((st = ints_param(c, 13, "axes", 1, &av, &na, &present)) != ST_OK)
        return st;
    if (!present || na < 1 || in.ndim + na > OG_MAX_DIMS)
        return onnx_fail(c, "onnx.shape.unsqueeze", "axes must have 1 to %lld entries",
                         (long long)(OG_MAX_DIMS - in.ndim));
    uint32_t r = in.ndim + (uint32_t)na;
    bool add[OG_MAX_DIMS] = {false};
    for (int64_t i = 0; i < na; i++) {
        uint32_t ax;
        if ((st = onnx_axis(c, "an inserted axis", av[i], r, &ax)) != ST_OK)
            return st;
        if (add[ax])
            return onnx_fail(c, "onnx.shape.unsqueeze", "axis %u is given twice", ax);
        add[ax] = true;
    }
    uint32_t j = 0;
    for (uint32_t k = 0; k < r; k++)
        os.d[os.ndim++] = add[k] ? 1 : in.d[j++];
    return move_out(c, x, &os, NULL);
}

Status onnx_map_expand(OnnxCtx *c)
{
    Status st = onnx_attrs_known(c, no_attrs);
    OnnxVal *x = st == ST_OK ? onnx_need(c, 0, &st) : NULL;
    if (st != ST_OK)
        return st;
    const int64_t *sv;
    int64_t ns;
    bool present;
    if ((st = onnx_const_ints(c, 1, &sv, &ns, &present)) != ST_OK)
        return st;
    if (!present || ns > OG_MAX_DIMS)
        return onnx_fail(c, "onnx.shape.expand", "the shape must have at most %d entries",
                         OG_MAX_DIMS);
    OgShape in = onnx_shape(x), want = {(uint32_t)ns, {0}}, os;
    for (int64_t k = 0; k < ns; k++) {
        if (sv[k] < 1 || sv[k] > OG_MAX_DIM)
            return onnx_fail(c, "onnx.shape.expand", "shape[%lld] = %lld is invalid",
                             (long long)k, (long long)sv[k]);
        want.d[k] = sv[k];
    }
    if (!onnx_bcast_shape(&in, &want, &os))
        return onnx_fail_shapes(c, "onnx.shape.expand", "the input does not broadcast to the "
                                "shape", &in, &want);
    if ((st = check_limits(c, &os)) != ST_OK)
        return st;
    int32_t *idx = alloc_idx(c, &os, &st);
    if (!idx)
        return st;
    int64_t ist[OG_MAX_DIMS], ix[OG_MAX_DIMS];
    onnx_strides(&in, ist);
    uint32_t off = os.ndim - in.ndim;
    for (int64_t i = 0; i < og_shape_volume(&os); i++) {
        unflatten(&os, i, ix);
        int64_t src = 0;
        for (uint32_t k = off; k < os.ndim; k++)
            if (in.d[k - off] != 1)
                src += ix[k] * ist[k - off];
        idx[i] = (int32_t)src;
    }
    st = move_out(c, x, &os, idx);
    free(idx);
    return st;
}

/* ---- nearest-neighbour resizing ---- */

typedef enum { CT_HALF_PIXEL, CT_PYTORCH, CT_ALIGN, CT_ASYM, CT_TF_NN } CoordMode;
typedef enum { NM_PREFER_FLOOR, NM_PREFER_CEIL, NM_FLOOR, NM_CEIL } NearestMode;

/* The input coordinate of output coordinate x along an axis (ONNX Resize). */
static int64_t nearest_src(int64_t x, int64_t in_len, int64_t out_len, double scale,
                           CoordMode cm, NearestMode nm)
{
    double o;
    switch (cm) {
    case CT_HALF_PIXEL: o = ((double)x + 0.5) / scale - 0.5; break;
    case CT_PYTORCH: o = out_len > 1 ? ((double)x + 0.5) / scale - 0.5 : 0.0; break;
    case CT_ALIGN:
        o = out_len == 1 ? 0.0 : (double)x * (double)(in_len - 1) / (double)(out_len - 1);
        break;
    case CT_TF_NN: o = ((double)x + 0.5) / scale; break;
    default: o = (double)x / scale; break;
    }
    double r;
    switch (nm) {
    case NM_FLOOR: r = onnx_floor(o); break;
    case NM_CEIL: r = onnx_ceil(o); break;
    case NM_PREFER_CEIL:
        r = o - onnx_floor(o) == 0.5 ? onnx_ceil(o) : onnx_floor(o + 0.5);
        break;
    default: r = o - onnx_floor(o) == 0.5 ? onnx_floor(o) : onnx_floor(o + 0.5); break;
    }
    if (!(r >= 0))
        return 0;
    return r > (double)(in_len - 1) ? in_len - 1 : (int64_t)r;
}

static Status resize_out(OnnxCtx *c, OnnxVal *x, const OgShape *os, const double *scale,
                         CoordMode cm, NearestMode nm)
{
    Status st = check_limits(c, os);
    if (st != ST_OK)
        return st;
    OgShape in = onnx_shape(x);
    int32_t *idx = alloc_idx(c, os, &st);
    if (!idx)
        return st;
    int64_t ist[OG_MAX_DIMS], ix[OG_MAX_DIMS];
    onnx_strides(&in, ist);
    for (int64_t i = 0; i < og_shape_volume(os); i++) {
        unflatten(os, i, ix);
        int64_t src = 0;
        for (uint32_t k = 0; k < os->ndim; k++)
            src += nearest_src(ix[k], in.d[k], os->d[k], scale[k], cm, nm) * ist[k];
        idx[i] = (int32_t)src;
    }
    st = move_out(c, x, os, idx);
    free(idx);
    return st;
}

static Status output_size(OnnxCtx *c, const OgShape *in, const float *sc, int64_t nsc,
                          OgShape *os, double *scale)
{
    if (nsc != in->ndim)
        return onnx_fail(c, "onnx.resize", "scales has %lld entries for rank %u",
                         (long long)nsc, in->ndim);
    *os = *in;
    for (uint32_t k = 0; k < in->ndim; k++) {
        if (!(sc[k] > 0) || sc[k] > (float)OG_MAX_DIM)
            return onnx_fail(c, "onnx.resize", "scale %u is %g", k, (double)sc[k]);
        scale[k] = sc[k];
        double v = onnx_floor((double)in->d[k] * (double)sc[k]);
        if (v < 1 || v > (double)OG_MAX_DIM)
            return onnx_fail(c, "onnx.resize", "dim %u would become %g", k, v);
        os->d[k] = (int64_t)v;
    }
    return ST_OK;
}

Status onnx_map_upsample(OnnxCtx *c)
{
    static const char *const ok[] = {"mode", "scales", NULL};
    char mode[32];
    Status st = onnx_attrs_known(c, ok);
    if (st == ST_OK)
        st = onnx_attr_str(c, "mode", "nearest", mode, sizeof mode);
    OnnxVal *x = st == ST_OK ? onnx_need(c, 0, &st) : NULL;
    if (st != ST_OK)
        return st;
    if (strcmp(mode, "nearest") != 0)
        return onnx_fail(c, "onnx.resize", "mode '%s': only 'nearest' moves data exactly", mode);
    const float *sc;
    int64_t nsc;
    if (c->opset < 9) {
        uint32_t n;
        if ((st = onnx_attr_floats(c, "scales", OG_MAX_DIMS, &sc, &n)) != ST_OK)
            return st;
        nsc = n;
    } else {
        bool present;
        if ((st = onnx_const_floats(c, 1, &sc, &nsc, &present)) != ST_OK)
            return st;
    }
    OgShape in = onnx_shape(x), os;
    double scale[OG_MAX_DIMS];
    if ((st = output_size(c, &in, sc, nsc, &os, scale)) != ST_OK)
        return st;
    return resize_out(c, x, &os, scale, CT_ASYM, NM_FLOOR);
}

Status onnx_map_resize(OnnxCtx *c)
{
    static const char *const ok[] = {"mode", "coordinate_transformation_mode", "nearest_mode",
                                     "cubic_coeff_a", "exclude_outside", "extrapolation_value",
                                     NULL};
    char mode[32], ctm[32], nmode[32];
    Status st = onnx_attrs_known(c, ok);
    if (st == ST_OK)
        st = onnx_attr_str(c, "mode", "nearest", mode, sizeof mode);
    if (st == ST_OK)
        st = onnx_attr_str(c, "coordinate_transformation_mode",
                           c->opset >= 11 ? "half_pixel" : "asymmetric", ctm, sizeof ctm);
    if (st == ST_OK)
        st = onnx_attr_str(c, "nearest_mode", c->opset >= 11 ? "round_prefer_floor" : "floor",
                           nmode, sizeof nmode);
    OnnxVal *x = st == ST_OK ? onnx_need(c, 0, &st) : NULL;
    if (st != ST_OK)
        return st;
    if (strcmp(mode, "nearest") != 0)
        return onnx_fail(c, "onnx.resize", "mode '%s': only 'nearest' moves data exactly", mode);
    static const char *const cms[] = {"half_pixel", "pytorch_half_pixel", "align_corners",
                                      "asymmetric", "tf_half_pixel_for_nn"};
    static const char *const nms[] = {"round_prefer_floor", "round_prefer_ceil", "floor",
                                      "ceil"};
    int cm = -1, nm = -1;
    for (int k = 0; k < 5; k++)
        cm = strcmp(ctm, cms[k]) == 0 ? k : cm;
    for (int k = 0; k < 4; k++)
        nm = strcmp(nmode, nms[k]) == 0 ? k : nm;
    if (cm < 0)
        return onnx_fail(c, "onnx.resize", "coordinate_transformation_mode '%s' is not "
                         "supported", ctm);
    if (nm < 0)
        return onnx_fail(c, "onnx.resize", "nearest_mode '%s' is not supported", nmode);
    OgShape in = onnx_shape(x), os;
    double scale[OG_MAX_DIMS];
    const float *sc;
    int64_t nsc;
    bool has_sc;
    uint32_t kscales = c->opset >= 11 ? 2 : 1;
    if ((st = onnx_const_floats(c, kscales, &sc, &nsc, &has_sc)) != ST_OK)
        return st;
    const int64_t *sz = NULL;
    int64_t nsz = 0;
    bool has_sz = false;
    if (c->opset >= 11 && (st = onnx_const_ints(c, 3, &sz, &nsz, &has_sz)) != ST_OK)
        return st;
    if (has_sz && nsz > 0) {
        if ((has_sc && nsc > 0) || nsz != in.ndim)
            return onnx_fail(c, "onnx.resize", "give either scales or sizes (one per dim)");
        os = in;
        for (uint32_t k = 0; k < in.ndim; k++) {
            if (sz[k] < 1 || sz[k] > OG_MAX_DIM)
                return onnx_fail(c, "onnx.resize", "sizes[%u] = %lld is invalid", k,
                                 (long long)sz[k]);
            os.d[k] = sz[k];
            scale[k] = (double)sz[k] / (double)in.d[k];
        }
    } else if ((st = output_size(c, &in, sc, nsc, &os, scale)) != ST_OK) {
        return st;
    }
    return resize_out(c, x, &os, scale, (CoordMode)cm, (NearestMode)nm);
}
