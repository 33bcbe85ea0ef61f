/* onnx_map_cast.c: Cast and CastLike between the integer types, bool and float, with
 * onnxruntime's semantics (its CPU kernel converts element by element as a C++ static_cast
 * does):
 *   - integer to integer: the value modulo 2^bits of the target, read in its two's
 *     complement (200 as int8 is -56, -1 as uint8 is 255), as a C cast wraps;
 *   - float to integer: truncation toward zero, then as above; a float that is no integer of
 *     int64's range (NaN, infinities) is undefined in ONNX and refused in a constant;
 *   - to bool: 0 for 0, else 1; from bool: 0 or 1;
 *   - integer to float: the nearest float (exact below 2^24).
 * A constant is cast at compile time. A computed tensor holds integers whatever its ONNX
 * type (float tensors of a computing model hold integer values, docs/onnx.md section 2), so
 * a cast to float or from float is the value itself, a cast to a narrower integer type is
 * onnx_wrap (no operator when the value's precision fits the target), and a cast to bool is
 * clip(|x|, 0, 1).
 */
#include "frontend/onnx/onnx_internal.h"

#include <stdlib.h>

/* The target types a cast may produce here. */
static bool cast_target(int32_t t)
{
    return t == ONNX_T_FLOAT || onnx_type_prec(t);
}

/* v converted to integer type t as C converts to a type of that width: modulo 2^bits, in
 * the type's range. int64 and uint64 (the caller refuses negative values for it) stay as they
 * are. */
static int64_t wrap_int(int64_t v, int32_t t)
{
    if (t == ONNX_T_BOOL)
        return v != 0;
    int bits = t == ONNX_T_INT8 || t == ONNX_T_UINT8     ? 8
               : t == ONNX_T_INT16 || t == ONNX_T_UINT16 ? 16
               : t == ONNX_T_INT32 || t == ONNX_T_UINT32 ? 32
                                                         : 64;
    if (bits == 64)
        return v;
    uint64_t m = ((uint64_t)1 << bits) - 1, u = (uint64_t)v & m;
    bool is_signed = t == ONNX_T_INT8 || t == ONNX_T_INT16 || t == ONNX_T_INT32;
    if (is_signed && (u >> (bits - 1)))
        return (int64_t)u - ((int64_t)1 << bits);
    return (int64_t)u;
}

/* The constant x cast to type t on the host. */
static Status cast_const(OnnxCtx *c, const OnnxVal *x, int32_t t, OnnxTensor *out)
{
    if (!onnx_tensor_retype(&x->c, t, out))
        return onnx_oom(c);
    for (int64_t k = 0; k < x->c.count; k++) {
        if (t == ONNX_T_FLOAT) {
            out->f[k] = x->c.f ? x->c.f[k] : (float)x->c.i[k];
            continue;
        }
        int64_t v;
        if (x->c.f && t == ONNX_T_BOOL) {
            v = x->c.f[k] != 0;   /* NaN too: nonzero */
        } else if (x->c.f) {
            double f = x->c.f[k];
            if (!(f > -9.2e18 && f < 9.2e18)) {
                free(out->i);
                out->i = NULL;
                return onnx_fail(c, "onnx.value.range", "element %lld of the constant is %g: "
                                 "a cast of it to %s is undefined", (long long)k, f,
                                 fe_onnx_type_name(t));
            }
            v = (int64_t)f;   /* toward zero, within int64 */
        } else {
            v = x->c.i[k];
        }
        if (t == ONNX_T_UINT64 && v < 0) {   /* 2^64 + v: no int64 holds it */
            free(out->i);
            out->i = NULL;
            return onnx_fail(c, "onnx.value.range", "element %lld of the constant is %lld: as "
                             "uint64 it is 2^64 + (%lld), beyond the values the frontend holds",
                             (long long)k, (long long)v, (long long)v);
        }
        out->i[k] = wrap_int(v, t);
    }
    return ST_OK;
}

/* The computed x cast to type t. */
static Status cast_run(OnnxCtx *c, OnnxVal *x, int32_t t)
{
    OgEdge e = x->e, r;
    Status st = ST_OK;
    if (t == ONNX_T_BOOL) {
        if (x->type == ONNX_T_BOOL)
            return onnx_out_run(c, 0, e, t);
        st = onnx_cvm(c, CVM_OP_abs, "abs", &e, 1, NULL, &r);
        if (st == ST_OK)
            st = onnx_clip(c, r, 0, 1, &r);
    } else if (t == ONNX_T_FLOAT) {
        r = e;
    } else {
        st = onnx_wrap(c, e, t, &r);
    }
    return st == ST_OK ? onnx_out_run(c, 0, r, t) : st;
}

static Status cast_to(OnnxCtx *c, int32_t t)
{
    Status st;
    OnnxVal *x = onnx_need(c, 0, &st);
    if (!x)
        return st;
    if (!cast_target(t))
        return onnx_fail(c, "onnx.type", "a cast to %s is not supported: the targets are bool, "
                         "uint8, int8, uint16, int16, int32, int64, uint32, uint64 and float",
                         fe_onnx_type_name(t));
    if (x->kind == OV_CONST) {
        OnnxTensor out;
        if ((st = cast_const(c, x, t, &out)) != ST_OK)
            return st;
        return onnx_out_const(c, 0, &out);
    }
    if (x->type != ONNX_T_FLOAT && !onnx_type_prec(x->type))
        return onnx_fail(c, "onnx.type", "a cast from %s is not supported",
                         fe_onnx_type_name(x->type));
    return cast_run(c, x, t);
}

Status onnx_map_cast(OnnxCtx *c)
{
    static const char *const known[] = {"to", "saturate", NULL};
    Status st = onnx_attrs_known(c, known);
    if (st != ST_OK)
        return st;
    if (!onnx_attr(c, "to"))
        return onnx_fail(c, "onnx.attr", "Cast needs the attribute 'to'");
    int64_t to;
    if ((st = onnx_attr_int(c, "to", 0, 0, 64, &to)) != ST_OK)
        return st;
    return cast_to(c, (int32_t)to);
}

Status onnx_map_castlike(OnnxCtx *c)
{
    static const char *const known[] = {"saturate", NULL};
    Status st = onnx_attrs_known(c, known);
    if (st != ST_OK)
        return st;
    OnnxVal *like = onnx_need(c, 1, &st);
    if (!like)
        return st;
    return cast_to(c, like->type);
}
