/* cinn_api.c: the typed builder functions of cinn.h. Each fills a CinnCall with typed
 * attributes (OgAttr) and goes through fe_cinn_call, exactly like a call read from XML; the
 * UNARY, REAL, ROUND and BINARY functions are generated from cinn_prims.def.
 */
#include "frontend/cinn/cinn_internal.h"

#include <string.h>

static OgAttr a_int(const char *name, int64_t v)
{
    OgAttr a = {name, OG_ATTR_INT, v, NULL, 0, NULL};
    return a;
}

static OgAttr a_ints(const char *name, const int64_t *v, uint32_t n)
{
    static const int64_t none[1] = {0};
    OgAttr a = {name, OG_ATTR_INTS, 0, v ? v : none, v ? n : 0, NULL};
    return a;
}

static OgAttr a_bool(const char *name, bool v)
{
    OgAttr a = {name, OG_ATTR_BOOL, v, NULL, 0, NULL};
    return a;
}

static OgAttr a_str(const char *name, const char *s)
{
    OgAttr a = {name, OG_ATTR_STR, 0, NULL, 0, s};
    return a;
}

static CinnVar call(CinnBuilder *b, CinnPrim p, const char *name, const CinnVar *in,
                    uint32_t nin, const OgAttr *attrs, uint32_t nattrs)
{
    CinnCall c = {p, name, in, nin, attrs, nattrs, NULL, 0};
    return fe_cinn_call(b, &c);
}

#define API_UNARY(Name, snake)                                                              \
    CinnVar fe_cinn_##snake(CinnBuilder *b, CinnVar x, const char *name)                    \
    {                                                                                       \
        return call(b, CINN_P_##Name, name, &x, 1, NULL, 0);                                \
    }
#define API_REAL(Name, snake)                                                               \
    CinnVar fe_cinn_##snake(CinnBuilder *b, CinnVar x, const CinnFixed *fx,                 \
                            const char *name)                                               \
    {                                                                                       \
        OgAttr at[3] = {a_int("in_frac", fx ? fx->in_frac : 0),                             \
                        a_int("out_frac", fx ? fx->out_frac : 0),                           \
                        a_int("precision", fx ? fx->precision : 0)};                        \
        return call(b, CINN_P_##Name, name, &x, 1, at, fx && fx->precision ? 3 : 2);        \
    }
#define API_ROUND(Name, snake)                                                              \
    CinnVar fe_cinn_##snake(CinnBuilder *b, CinnVar x, int32_t frac, const char *name)      \
    {                                                                                       \
        OgAttr at = a_int("frac", frac);                                                    \
        return call(b, CINN_P_##Name, name, &x, 1, &at, 1);                                 \
    }
#define API_BINARY(Name, snake)                                                             \
    CinnVar fe_cinn_##snake(CinnBuilder *b, CinnVar x, CinnVar y, const char *name)         \
    {                                                                                       \
        CinnVar in[2] = {x, y};                                                             \
        return call(b, CINN_P_##Name, name, in, 2, NULL, 0);                                \
    }
#define API_OTHER(Name, snake)
#define X(Name, snake, cls, roles, attrs, build, status, how) API_##cls(Name, snake)
#include "frontend/cinn/cinn_prims.def"
#undef X

CinnVar fe_cinn_input(CinnBuilder *b, const char *name, const OgShape *shape, int32_t precision)
{
    OgAttr at[2] = {a_ints("shape", shape->d, shape->ndim), a_int("precision", precision)};
    return call(b, CINN_P_Input, name, NULL, 0, at, 2);
}

CinnVar fe_cinn_constant(CinnBuilder *b, const char *name, const OgTensor *value,
                         int32_t precision)
{
    OgAttr at[2] = {a_ints("shape", value->shape.d, value->shape.ndim),
                    a_int("precision", precision)};
    CinnCall c = {CINN_P_Constant, name, NULL, 0, at, precision ? 2 : 1, value, 0};
    return fe_cinn_call(b, &c);
}

CinnVar fe_cinn_output(CinnBuilder *b, CinnVar x)
{
    return call(b, CINN_P_Output, NULL, &x, 1, NULL, 0);
}

CinnVar fe_cinn_const_scalar(CinnBuilder *b, int64_t value, const char *name)
{
    OgAttr at = a_int("value", value);
    return call(b, CINN_P_ConstScalar, name, NULL, 0, &at, 1);
}

CinnVar fe_cinn_broadcast_to(CinnBuilder *b, CinnVar x, const int64_t *out_shape,
                             uint32_t nout, const int64_t *axes, uint32_t naxes,
                             const char *name)
{
    OgAttr at[2] = {a_ints("out_shape", out_shape, nout), a_ints("broadcast_axes", axes, naxes)};
    return call(b, CINN_P_BroadcastTo, name, &x, 1, at, 2);
}

CinnVar fe_cinn_compare(CinnBuilder *b, CinnVar x, CinnVar y, CinnCmp kind, const char *name)
{
    static const char *const kinds[] = {"eq", "ne", "ge", "gt", "le", "lt"};
    CinnVar in[2] = {x, y};
    OgAttr at = a_str("kind", (unsigned)kind < 6 ? kinds[kind] : "?");
    return call(b, CINN_P_Compare, name, in, 2, &at, 1);
}

CinnVar fe_cinn_concat(CinnBuilder *b, const CinnVar *inputs, uint32_t n, int64_t axis,
                       const char *name)
{
    OgAttr at = a_int("axis", axis);
    return call(b, CINN_P_Concat, name, inputs, n, &at, 1);
}

void fe_cinn_conv_init(CinnConvAttrs *a)
{
    memset(a, 0, sizeof *a);
    a->strides[0] = a->strides[1] = 1;
    a->dilations[0] = a->dilations[1] = 1;
    a->groups = 1;
    a->conv_type = "forward";
    a->data_format = "NCHW";
    a->padding_algorithm = "EXPLICIT";
}

CinnVar fe_cinn_conv(CinnBuilder *b, CinnVar lhs, CinnVar rhs, const CinnConvAttrs *attrs,
                     const char *name)
{
    CinnConvAttrs def;
    if (!attrs) {
        fe_cinn_conv_init(&def);
        attrs = &def;
    }
    CinnVar in[2] = {lhs, rhs};
    OgAttr at[8] = {a_ints("strides", attrs->strides, 2),
                    a_ints("paddings", attrs->paddings, 2),
                    a_ints("dilations", attrs->dilations, 2),
                    a_int("groups", attrs->groups),
                    a_str("conv_type", attrs->conv_type ? attrs->conv_type : "forward"),
                    a_str("data_format", attrs->data_format ? attrs->data_format : "NCHW"),
                    a_str("padding_algorithm",
                          attrs->padding_algorithm ? attrs->padding_algorithm : "EXPLICIT"),
                    a_ints("output_shape", attrs->output_shape, attrs->noutput_shape)};
    return call(b, CINN_P_Conv, name, in, 2, at, attrs->output_shape ? 8 : 7);
}

CinnVar fe_cinn_reduce(CinnBuilder *b, CinnVar x, CinnReduceKind kind, const int64_t *dim,
                       uint32_t ndim, bool keep_dim, const char *name)
{
    static const char *const kinds[] = {"sum", "prod", "max", "min"};
    OgAttr at[3] = {a_str("kind", (unsigned)kind < 4 ? kinds[kind] : "?"),
                    a_ints("dim", dim, ndim), a_bool("keep_dim", keep_dim)};
    return call(b, CINN_P_Reduce, name, &x, 1, at, 3);
}

CinnVar fe_cinn_reshape(CinnBuilder *b, CinnVar x, const int64_t *shape, uint32_t n,
                        const char *name)
{
    OgAttr at = a_ints("shape", shape, n);
    return call(b, CINN_P_Reshape, name, &x, 1, &at, 1);
}

CinnVar fe_cinn_reverse(CinnBuilder *b, CinnVar x, const int64_t *axis, uint32_t n,
                        const char *name)
{
    OgAttr at = a_ints("axis", axis, n);
    return call(b, CINN_P_Reverse, name, &x, 1, &at, 1);
}

CinnVar fe_cinn_select(CinnBuilder *b, CinnVar condition, CinnVar true_value,
                       CinnVar false_value, const char *name)
{
    CinnVar in[3] = {condition, true_value, false_value};
    return call(b, CINN_P_Select, name, in, 3, NULL, 0);
}

CinnVar fe_cinn_slice(CinnBuilder *b, CinnVar x, const int64_t *axes, const int64_t *starts,
                      const int64_t *ends, uint32_t n, const char *name)
{
    OgAttr at[3] = {a_ints("axes", axes, n), a_ints("starts", starts, n),
                    a_ints("ends", ends, n)};
    return call(b, CINN_P_Slice, name, &x, 1, at, 3);
}

CinnVar fe_cinn_transpose(CinnBuilder *b, CinnVar x, const int64_t *axis, uint32_t n,
                          const char *name)
{
    OgAttr at = a_ints("axis", axis, n);
    return call(b, CINN_P_Transpose, name, &x, 1, &at, 1);
}

CinnVar fe_cinn_bn_mean_variance(CinnBuilder *b, CinnVar input, const char *name)
{
    return call(b, CINN_P_BnMeanVariance, name, &input, 1, NULL, 0);
}

CinnVar fe_cinn_bn_grad_bias_scale(CinnBuilder *b, CinnVar input, CinnVar grad,
                                   CinnVar save_mean, const char *name)
{
    CinnVar in[3] = {input, grad, save_mean};
    return call(b, CINN_P_BnGradBiasScale, name, in, 3, NULL, 0);
}
