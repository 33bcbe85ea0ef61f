/* onnx_map_arith.c: elementwise arithmetic, Relu, Clip, Where, BitShift, the reductions and
 * the open toolchain's quantization pattern Div by 2^s -> Floor (-> Clip).
 *
 * Integer tensors compute exactly; where an ONNX integer type of 8 or 16 bits would wrap
 * around, the result is wrapped the same way (onnx_wrap); an int32 result that might leave
 * int32 is refused (CVM precision inference, [cvm.precision.range]). Float tensors hold
 * integers (a float model with integral weights): Add, Sub, Mul, Max, Min, Relu and Clip are
 * exact on them; a Div must be by a constant 2^s and be followed by Floor, which together are
 * floor(x / 2^s), an arithmetic right shift.
 */
#include "frontend/onnx_internal.h"

#include <stdlib.h>
#include <string.h>

static const char *const no_attrs[] = {NULL};

static Status two_inputs(OnnxCtx *c, OnnxVal **a, OnnxVal **b)
{
    Status st = onnx_attrs_known(c, no_attrs);
    if (st == ST_OK)
        *a = onnx_need(c, 0, &st);
    if (st == ST_OK)
        *b = onnx_need(c, 1, &st);
    if (st != ST_OK)
        return st;
    if ((*a)->type != (*b)->type)
        return onnx_fail(c, "onnx.type", "the inputs have types %s and %s",
                         fe_onnx_type_name((*a)->type), fe_onnx_type_name((*b)->type));
    OgShape sa = onnx_shape(*a), sb = onnx_shape(*b), so;
    if (!onnx_bcast_shape(&sa, &sb, &so))
        return onnx_fail_shapes(c, "onnx.shape.broadcast", "the inputs' shapes do not "
                                "broadcast", &sa, &sb);
    return ST_OK;
}

static Status check_type(OnnxCtx *c, int32_t t)
{
    if (t == ONNX_T_FLOAT || onnx_type_prec(t))
        return ST_OK;
    return onnx_fail(c, "onnx.type", "element type %s is not supported here",
                     fe_onnx_type_name(t));
}

static Status binary(OnnxCtx *c, CvmOp op)
{
    OnnxVal *a, *b;
    Status st = two_inputs(c, &a, &b);
    if (st == ST_OK)
        st = check_type(c, a->type);
    if (st != ST_OK)
        return st;
    int32_t type = a->type;
    OgEdge ea, eb, r;
    if ((st = onnx_edge(c, a, &ea)) != ST_OK || (st = onnx_edge(c, onnx_val(c,
                                                  c->node->input[1]), &eb)) != ST_OK)
        return st;
    if ((st = onnx_cvm(c, op, "op", (OgEdge[]){ea, eb}, 2, NULL, &r)) != ST_OK)
        return st;
    if (type != ONNX_T_FLOAT && (st = onnx_wrap(c, r, type, &r)) != ST_OK)
        return st;
    return onnx_out_run(c, 0, r, type);
}

Status onnx_map_add(OnnxCtx *c)
{
    return binary(c, CVM_OP_broadcast_add);
}

Status onnx_map_sub(OnnxCtx *c)
{
    return binary(c, CVM_OP_broadcast_sub);
}

Status onnx_map_mul(OnnxCtx *c)
{
    return binary(c, CVM_OP_broadcast_mul);
}

Status onnx_map_div(OnnxCtx *c)
{
    OnnxVal *a, *b;
    Status st = two_inputs(c, &a, &b);
    if (st == ST_OK)
        st = check_type(c, a->type);
    if (st != ST_OK)
        return st;
    if (a->type != ONNX_T_FLOAT)
        return binary(c, CVM_OP_broadcast_div);   /* integer division truncates */
    /* float: x / 2^s, to be floored */
    if (b->kind != OV_CONST || b->c.count < 1)
        return onnx_fail(c, "onnx.float.div", "a float Div needs a constant divisor 2^s (the "
                         "Div -> Floor -> Clip pattern)");
    float v = b->c.f[0];
    for (int64_t i = 1; i < b->c.count; i++)
        if (b->c.f[i] != v)
            return onnx_fail(c, "onnx.float.div", "a float Div needs one divisor 2^s for all "
                             "elements");
    int sh = 0;
    if (v >= 1.0f && v <= 2147483648.0f && onnx_is_int(v)) {
        int64_t iv = (int64_t)v;
        while (((int64_t)1 << sh) < iv)
            sh++;
        sh = ((int64_t)1 << sh) == iv ? sh + 1 : 0;
    }
    if (sh < 1 || sh > 32)
        return onnx_fail(c, "onnx.float.div", "the divisor %.9g is not 2^s with 0 <= s <= 31: "
                         "a float model must be quantized first", (double)v);
    OgShape sa = onnx_shape(a), sb = onnx_shape(b), so;
    onnx_bcast_shape(&sa, &sb, &so);
    OgEdge ea;
    if ((st = onnx_edge(c, a, &ea)) != ST_OK)
        return st;
    if (!og_shape_eq(&sa, &so) && (st = onnx_broadcast_to(c, ea, &sa, &so, &ea)) != ST_OK)
        return st;
    if (sh == 1)   /* division by 1 */
        return onnx_out_run(c, 0, ea, ONNX_T_FLOAT);
    OnnxVal *o = onnx_out_val(c, 0, &st);
    if (!o)
        return st;
    o->kind = OV_DIV;
    o->type = ONNX_T_FLOAT;
    o->e = ea;
    o->shape = *og_edge_shape(c->g, ea);
    o->shift = sh - 1;
    return ST_OK;
}

Status onnx_map_floor(OnnxCtx *c)
{
    Status st = onnx_attrs_known(c, no_attrs);
    OnnxVal *x = st == ST_OK ? onnx_in(c, 0, &st) : NULL;
    if (st != ST_OK)
        return st;
    if (!x)
        return onnx_fail(c, "onnx.node.inputs", "input 0 is required");
    if (x->type != ONNX_T_FLOAT)
        return onnx_fail(c, "onnx.type", "Floor takes float, not %s",
                         fe_onnx_type_name(x->type));
    if (x->kind != OV_DIV) {
        if ((x = onnx_need(c, 0, &st)) == NULL)
            return st;
        if (x->kind == OV_CONST) {
            for (int64_t i = 0; i < x->c.count; i++)
                if (!onnx_is_int(x->c.f[i]))
                    return onnx_fail(c, "onnx.float.weights", "'%s' holds %.9g, not an "
                                     "integer: quantize the model first", x->name,
                                     (double)x->c.f[i]);
        }
        return onnx_out_alias(c, 0, x);  /* the values are integers already */
    }
    OgEdge r;
    if ((st = onnx_floor_shift(c, x->e, x->shift, &r)) != ST_OK)
        return st;
    return onnx_out_run(c, 0, r, ONNX_T_FLOAT);
}

/* Max / Min of one or more inputs (Min(a, b) = -Max(-a, -b)). */
static Status extremum(OnnxCtx *c, bool is_min)
{
    Status st = onnx_attrs_known(c, no_attrs);
    if (st != ST_OK)
        return st;
    uint32_t n = (uint32_t)c->node->n_input;
    if (n < 1)
        return onnx_fail(c, "onnx.node.inputs", "at least one input is required");
    OnnxVal *x0 = onnx_need(c, 0, &st);
    if (!x0)
        return st;
    int32_t type = x0->type;
    if ((st = check_type(c, type)) != ST_OK)
        return st;
    OgShape acc_shape = onnx_shape(x0);
    OgEdge acc;
    if ((st = onnx_edge(c, x0, &acc)) != ST_OK)
        return st;
    if (is_min && (st = onnx_cvm(c, CVM_OP_negative, "neg", &acc, 1, NULL, &acc)) != ST_OK)
        return st;
    for (uint32_t k = 1; k < n; k++) {
        OnnxVal *x = onnx_need(c, k, &st);
        if (!x)
            return st;
        OgShape s = onnx_shape(x), so;
        if (x->type != type)
            return onnx_fail(c, "onnx.type", "input %u has type %s, input 0 %s", k,
                             fe_onnx_type_name(x->type), fe_onnx_type_name(type));
        if (!onnx_bcast_shape(&acc_shape, &s, &so))
            return onnx_fail_shapes(c, "onnx.shape.broadcast", "input 0 .. input k - 1 "
                                    "broadcast together and input k do not", &acc_shape, &s);
        OgEdge e;
        if ((st = onnx_edge(c, x, &e)) != ST_OK)
            return st;
        if (is_min && (st = onnx_cvm(c, CVM_OP_negative, "neg", &e, 1, NULL, &e)) != ST_OK)
            return st;
        if ((st = onnx_cvm(c, CVM_OP_broadcast_max, "max", (OgEdge[]){acc, e}, 2, NULL,
                           &acc)) != ST_OK)
            return st;
        acc_shape = so;
    }
    if (is_min && (st = onnx_cvm(c, CVM_OP_negative, "neg", &acc, 1, NULL, &acc)) != ST_OK)
        return st;
    return onnx_out_run(c, 0, acc, type);
}

Status onnx_map_max(OnnxCtx *c)
{
    return extremum(c, false);
}

Status onnx_map_min(OnnxCtx *c)
{
    return extremum(c, true);
}

Status onnx_map_relu(OnnxCtx *c)
{
    Status st = onnx_attrs_known(c, no_attrs);
    OnnxVal *x = st == ST_OK ? onnx_need(c, 0, &st) : NULL;
    if (!x)
        return st;
    if ((st = check_type(c, x->type)) != ST_OK)
        return st;
    OgEdge e, r;
    if ((st = onnx_edge(c, x, &e)) != ST_OK ||
        (st = onnx_cvm(c, CVM_OP_relu, "relu", &e, 1, NULL, &r)) != ST_OK)
        return st;
    return onnx_out_run(c, 0, r, x->type);
}

/* A Clip bound: from attribute (opset < 11) or a constant scalar input. */
static Status clip_bound(OnnxCtx *c, OnnxVal *x, const char *attr, uint32_t k, bool upper,
                         int64_t *out)
{
    int64_t lo, hi;
    onnx_type_range(x->type, &lo, &hi);
    *out = upper ? hi : lo;
    double v;
    if (c->opset < 11) {
        const Onnx__AttributeProto *a = onnx_attr(c, attr);
        if (!a)
            return ST_OK;
        float f;
        Status st = onnx_attr_float(c, attr, 0, &f);
        if (st != ST_OK)
            return st;
        v = f;
    } else {
        Status st;
        OnnxVal *b = onnx_in(c, k, &st);
        if (st != ST_OK || !b)
            return st;
        if (b->kind != OV_CONST || b->c.count != 1)
            return onnx_fail(c, "onnx.param", "input %u of Clip must be a constant scalar", k);
        v = b->c.f ? (double)b->c.f[0] : (double)b->c.i[0];
    }
    if (v != v)
        return onnx_fail(c, "onnx.attr", "a Clip bound is NaN");
    /* on integers, clip(x, lo, hi) = clip(x, ceil(lo), floor(hi)) */
    v = upper ? onnx_floor(v) : onnx_ceil(v);
    if (v < (double)lo)
        v = (double)lo;
    if (v > (double)hi)
        v = (double)hi;
    *out = (int64_t)v;
    return ST_OK;
}

Status onnx_map_clip(OnnxCtx *c)
{
    static const char *const ok[] = {"min", "max", NULL};
    Status st = onnx_attrs_known(c, ok);
    OnnxVal *x = st == ST_OK ? onnx_need(c, 0, &st) : NULL;
    if (!x)
        return st;
    if ((st = check_type(c, x->type)) != ST_OK)
        return st;
    int64_t lo, hi;
    if ((st = clip_bound(c, x, "min", 1, false, &lo)) != ST_OK ||
        (st = clip_bound(c, x, "max", 2, true, &hi)) != ST_OK)
        return st;
    if (lo > hi)     /* ONNX: every value becomes max */
        lo = hi;
    OgEdge e, r;
    if ((st = onnx_edge(c, x, &e)) != ST_OK || (st = onnx_clip(c, e, lo, hi, &r)) != ST_OK)
        return st;
    return onnx_out_run(c, 0, r, x->type);
}

/* BitShift by a computed amount y (uint8 / uint16 of `bits` bits): amounts of bits or more
 * give 0, as onnxruntime's C++ shifts of the promoted value do. y is clipped to 0..bits and
 * the shift is done in stages of at most 8 bits, so that every product stays within 27 bits:
 * stage j shifts by k_j = clip(y - 8j, 0, 8), with 2^k_j (LEFT) or 2^(8 - k_j) (RIGHT) looked
 * up in a table of bits + 1 entries indexed by y; LEFT multiplies and wraps to the type,
 * RIGHT multiplies and floors by 2^8. */
static Status bitshift_computed(OnnxCtx *c, OnnxVal *x, OnnxVal *y, bool left, int bits)
{
    OgEdge r, ey, m;
    Status st = onnx_edge(c, x, &r);
    if (st == ST_OK)
        st = onnx_edge(c, y, &ey);
    if (st == ST_OK)
        st = onnx_clip(c, ey, 0, bits, &ey);
    for (int j = 0; st == ST_OK && j < bits / 8; j++) {
        int32_t tab[17];
        for (int k = 0; k <= bits; k++) {
            int kj = k - 8 * j < 0 ? 0 : k - 8 * j > 8 ? 8 : k - 8 * j;
            tab[k] = (int32_t)1 << (left ? kj : 8 - kj);
        }
        st = onnx_lut(c, "pow2", ey, tab, bits + 1, &m);
        if (st == ST_OK)
            st = onnx_cvm(c, CVM_OP_broadcast_mul, "shift", (OgEdge[]){r, m}, 2, NULL, &r);
        if (st == ST_OK && left)
            st = onnx_wrap(c, r, x->type, &r);
        if (st == ST_OK && !left)
            st = onnx_floor_shift(c, r, 8, &r);
    }
    if (st == ST_OK && !left)   /* states the type's precision; no value changes */
        st = onnx_clip(c, r, 0, bits == 8 ? 255 : 65535, &r);
    return st == ST_OK ? onnx_out_run(c, 0, r, x->type) : st;
}

Status onnx_map_bitshift(OnnxCtx *c)
{
    static const char *const ok[] = {"direction", NULL};
    char dir[16];
    Status st = onnx_attrs_known(c, ok);
    if (st == ST_OK)
        st = onnx_attr_str(c, "direction", "", dir, sizeof dir);
    OnnxVal *x = st == ST_OK ? onnx_need(c, 0, &st) : NULL;
    if (!x)
        return st;
    bool left = strcmp(dir, "LEFT") == 0;
    if (!left && strcmp(dir, "RIGHT") != 0)
        return onnx_fail(c, "onnx.attr", "direction must be LEFT or RIGHT");
    if (x->type != ONNX_T_UINT8 && x->type != ONNX_T_UINT16)
        return onnx_fail(c, "onnx.type", "BitShift is supported on uint8 and uint16, not %s",
                         fe_onnx_type_name(x->type));
    OnnxVal *y = onnx_need(c, 1, &st);
    if (!y)
        return st;
    if (y->type != x->type)
        return onnx_fail(c, "onnx.type", "the shift amounts have type %s, the input %s",
                         fe_onnx_type_name(y->type), fe_onnx_type_name(x->type));
    OgShape sx = onnx_shape(x), sy = onnx_shape(y), so;
    if (!onnx_bcast_shape(&sx, &sy, &so))
        return onnx_fail_shapes(c, "onnx.shape.broadcast", "the inputs' shapes do not "
                                "broadcast", &sx, &sy);
    int bits = x->type == ONNX_T_UINT8 ? 8 : 16;
    if (y->kind != OV_CONST)
        return bitshift_computed(c, x, y, left, bits);
    /* x << y = x * 2^y, wrapped; x >> y = floor(x * 2^(S - y) / 2^S) with S the largest
     * shift: one multiply by constants and one arithmetic right shift, exact */
    OgShape ps = sy;
    int64_t n = og_shape_volume(&ps), S = 0;
    for (int64_t i = 0; i < n; i++) {
        if (y->c.i[i] < 0 || y->c.i[i] >= bits)
            return onnx_fail(c, "onnx.bitshift", "shift amount %lld is not in 0..%d",
                             (long long)y->c.i[i], bits - 1);
        S = y->c.i[i] > S ? y->c.i[i] : S;
    }
    int32_t *pw = malloc((size_t)(n ? n : 1) * sizeof *pw);
    if (!pw)
        return onnx_oom(c);
    for (int64_t i = 0; i < n; i++)
        pw[i] = (int32_t)((int64_t)1 << (left ? y->c.i[i] : S - y->c.i[i]));
    OgEdge ex, ep, r;
    st = onnx_edge(c, x, &ex);
    if (st == ST_OK)
        st = onnx_const_i32(c, "pow2", &ps, pw, &ep);
    free(pw);
    if (st == ST_OK)
        st = onnx_cvm(c, CVM_OP_broadcast_mul, "shift", (OgEdge[]){ex, ep}, 2, NULL, &r);
    if (st == ST_OK && left)
        st = onnx_wrap(c, r, x->type, &r);
    if (st == ST_OK && !left && S > 0)
        st = onnx_floor_shift(c, r, (int)S, &r);
    if (st == ST_OK && !left)   /* states the type's precision; no value changes */
        st = onnx_clip(c, r, 0, bits == 8 ? 255 : 65535, &r);
    if (st != ST_OK)
        return st;
    return onnx_out_run(c, 0, r, x->type);
}

Status onnx_map_where(OnnxCtx *c)
{
    Status st = onnx_attrs_known(c, no_attrs);
    OnnxVal *v[3];
    for (uint32_t k = 0; k < 3 && st == ST_OK; k++)
        v[k] = onnx_need(c, k, &st);
    if (st != ST_OK)
        return st;
    if (v[0]->type != ONNX_T_BOOL)
        return onnx_fail(c, "onnx.type", "the condition must be bool, not %s",
                         fe_onnx_type_name(v[0]->type));
    if (v[1]->type != v[2]->type || (st = check_type(c, v[1]->type)) != ST_OK)
        return st != ST_OK ? st : onnx_fail(c, "onnx.type", "X and Y have types %s and %s",
                                            fe_onnx_type_name(v[1]->type),
                                            fe_onnx_type_name(v[2]->type));
    OgShape s[3], so, t;
    for (int k = 0; k < 3; k++)
        s[k] = onnx_shape(v[k]);
    if (!onnx_bcast_shape(&s[0], &s[1], &t))
        return onnx_fail_shapes(c, "onnx.shape.broadcast", "the condition and X do not "
                                "broadcast", &s[0], &s[1]);
    if (!onnx_bcast_shape(&t, &s[2], &so))
        return onnx_fail_shapes(c, "onnx.shape.broadcast", "the condition and X broadcast "
                                "together and Y do not", &t, &s[2]);
    if (so.ndim == 0)
        so.ndim = 1, so.d[0] = 1;
    OgEdge e[3], r;
    for (int k = 0; k < 3 && st == ST_OK; k++) {
        st = onnx_edge(c, v[k], &e[k]);
        OgShape es = *og_edge_shape(c->g, e[k]);
        if (st == ST_OK && !og_shape_eq(&es, &so))
            st = onnx_broadcast_to(c, e[k], &es, &so, &e[k]);
    }
    if (st == ST_OK)
        st = onnx_cvm(c, CVM_OP_where, "where", e, 3, NULL, &r);
    if (st != ST_OK)
        return st;
    return onnx_out_run(c, 0, r, v[1]->type);
}

static Status reduce(OnnxCtx *c, CvmOp op, int axes_input_from)
{
    static const char *const ok[] = {"axes", "keepdims", "noop_with_empty_axes", NULL};
    int64_t keep, noop;
    Status st = onnx_attrs_known(c, ok);
    if (st == ST_OK)
        st = onnx_attr_int(c, "keepdims", 1, 0, 1, &keep);
    if (st == ST_OK)
        st = onnx_attr_int(c, "noop_with_empty_axes", 0, 0, 1, &noop);
    OnnxVal *x = st == ST_OK ? onnx_need(c, 0, &st) : NULL;
    if (!x)
        return st;
    if ((st = check_type(c, x->type)) != ST_OK)
        return st;
    const int64_t *av;
    int64_t na;
    bool present;
    if (c->opset < axes_input_from) {
        uint32_t n;
        st = onnx_attr_ints(c, "axes", OG_MAX_DIMS, &av, &n);
        na = n;
    } else {
        st = onnx_const_ints(c, 1, &av, &na, &present);
    }
    if (st != ST_OK)
        return st;
    OgShape in = onnx_shape(x);
    if (na == 0 && noop)
        return onnx_out_alias(c, 0, x);
    if (na > in.ndim)
        return onnx_fail(c, "onnx.attr", "more axes than dims");
    char buf[128] = "(";
    size_t used = 1;
    bool red[OG_MAX_DIMS] = {false};
    for (int64_t i = 0; i < (na ? na : in.ndim); i++) {
        uint32_t ax = (uint32_t)i;
        if (na && (st = onnx_axis(c, "a reduced axis", av[i], in.ndim, &ax)) != ST_OK)
            return st;
        if (red[ax])
            return onnx_fail(c, "onnx.attr", "axis %u is given twice", ax);
        red[ax] = true;
        used += (size_t)snprintf(buf + used, sizeof buf - used, "%u, ", ax);
    }
    snprintf(buf + used, sizeof buf - used, ")");
    OgEdge e, r;
    if ((st = onnx_edge(c, x, &e)) != ST_OK)
        return st;
    if ((st = onnx_cvm(c, op, "reduce", &e, 1,
                       (const char *const[]){"axis", buf, "keepdims", keep ? "true" : "false",
                                             NULL}, &r)) != ST_OK)
        return st;
    if (op == CVM_OP_sum && x->type != ONNX_T_FLOAT && (st = onnx_wrap(c, r, x->type, &r)) !=
        ST_OK)
        return st;
    return onnx_out_run(c, 0, r, x->type);
}

Status onnx_map_reduce_sum(OnnxCtx *c)
{
    return reduce(c, CVM_OP_sum, 13);
}

Status onnx_map_reduce_max(OnnxCtx *c)
{
    return reduce(c, CVM_OP_max, 18);
}
