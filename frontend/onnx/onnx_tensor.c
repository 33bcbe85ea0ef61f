/* onnx_tensor.c: ONNX TensorProto -> OnnxTensor (onnx.h), for initializers, Constant nodes,
 * tensor attributes and the conformance data's input_N.pb / output_N.pb files.
 *
 * Values come from raw_data (little-endian, exactly count * element size bytes) or from the
 * typed field the ONNX spec assigns to the type (float_data; int32_data for int8..uint16,
 * int32, bool and float16; int64_data; uint64_data for uint32/uint64; double_data). Dims are
 * checked (0..OG_MAX_DIMS of them, each in 0..OG_MAX_DIM, volume at most OG_MAX_VOLUME)
 * before anything is allocated; external data and segments are refused.
 */
#include "frontend/onnx/onnx_internal.h"

#include "taskir/fileio.h"
#include "taskir/pbio.h"

#include <stdlib.h>
#include <string.h>

const char *fe_onnx_type_name(int32_t t)
{
    static const char *const names[] = {
        "undefined", "float", "uint8", "int8", "uint16", "int16", "int32", "int64",
        "string", "bool", "float16", "double", "uint32", "uint64", "complex64", "complex128",
        "bfloat16",
    };
    if (t >= 0 && (size_t)t < sizeof names / sizeof *names)
        return names[t];
    return "unknown type";
}

/* Bytes of one element in raw_data; 0 for types the frontend does not decode. */
static size_t elem_size(int32_t t)
{
    switch (t) {
    case ONNX_T_UINT8: case ONNX_T_INT8: case ONNX_T_BOOL: return 1;
    case ONNX_T_UINT16: case ONNX_T_INT16: case ONNX_T_FLOAT16: return 2;
    case ONNX_T_FLOAT: case ONNX_T_INT32: case ONNX_T_UINT32: return 4;
    case ONNX_T_INT64: case ONNX_T_UINT64: case ONNX_T_DOUBLE: return 8;
    default: return 0;
    }
}

bool onnx_type_is_float(int32_t t)
{
    return t == ONNX_T_FLOAT || t == ONNX_T_DOUBLE || t == ONNX_T_FLOAT16;
}

bool onnx_tensor_retype(const OnnxTensor *src, int32_t type, OnnxTensor *out)
{
    *out = *src;
    out->type = type;
    out->i = NULL;
    out->f = NULL;
    size_t n = src->count > 0 ? (size_t)src->count : 1;
    if (type == ONNX_T_FLOAT)
        out->f = malloc(n * sizeof *out->f);
    else
        out->i = malloc(n * sizeof *out->i);
    return out->f || out->i;
}

void fe_onnx_tensor_free(OnnxTensor *t)
{
    if (!t)
        return;
    free(t->i);
    free(t->f);
    memset(t, 0, sizeof *t);
}

static Status tfail(Diag *d, const char *where, const char *rule, const char *what,
                    const char *detail)
{
    return diag_add(d, ST_LOGIC, rule, where, "%s%s", what, detail ? detail : "");
}

/* Float16 bits -> float (exact), by building the float32 bits. */
static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, bits;
    if (e == 0 && m == 0) {
        bits = sign;
    } else if (e == 0) {            /* subnormal: normalize */
        int sh = 0;
        while (!(m & 0x400)) {
            m <<= 1;
            sh++;
        }
        bits = sign | ((uint32_t)(127 - 15 + 1 - sh) << 23) | ((m & 0x3ff) << 13);
    } else if (e == 31) {
        bits = sign | 0x7f800000u | (m << 13);
    } else {
        bits = sign | ((e + 127 - 15) << 23) | (m << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static uint64_t le(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t k = 0; k < n; k++)
        v |= (uint64_t)p[k] << (8 * k);
    return v;
}

/* Converts an unsigned raw element of type t (n bytes) to the tensor's arrays at index i. */
static bool put_raw(OnnxTensor *t, int64_t i, uint64_t u)
{
    switch (t->type) {
    case ONNX_T_UINT8: case ONNX_T_UINT16: case ONNX_T_UINT32: t->i[i] = (int64_t)u; return true;
    case ONNX_T_BOOL: t->i[i] = u != 0; return true;
    case ONNX_T_INT8: t->i[i] = (int8_t)(uint8_t)u; return true;
    case ONNX_T_INT16: t->i[i] = (int16_t)(uint16_t)u; return true;
    case ONNX_T_INT32: t->i[i] = (int32_t)(uint32_t)u; return true;
    case ONNX_T_INT64: t->i[i] = (int64_t)u; return true;
    case ONNX_T_UINT64:
        if (u > (uint64_t)INT64_MAX)
            return false;
        t->i[i] = (int64_t)u;
        return true;
    case ONNX_T_FLOAT: {
        uint32_t b = (uint32_t)u;
        memcpy(&t->f[i], &b, sizeof b);
        return true;
    }
    case ONNX_T_FLOAT16: t->f[i] = half_to_float((uint16_t)u); return true;
    case ONNX_T_DOUBLE: {
        double x;
        memcpy(&x, &u, sizeof x);
        t->f[i] = (float)x;
        return x != x || (double)t->f[i] == x;
    }
    default: return false;
    }
}

Status onnx_tensor_from_proto(const Onnx__TensorProto *p, const char *where, OnnxTensor *t,
                              Diag *d)
{
    memset(t, 0, sizeof *t);
    t->name = p->name ? p->name : "";
    t->type = p->has_data_type ? p->data_type : ONNX_T_UNDEFINED;
    size_t es = elem_size(t->type);
    if (!es) {
        diag_add(d, ST_LOGIC, "onnx.tensor.type", where, "the tensor has element type %s (code "
                 "%d), which the frontend does not read", fe_onnx_type_name(t->type),
                 (int)t->type);
        return ST_LOGIC;
    }
    if (p->has_data_location && p->data_location != ONNX__TENSOR_PROTO__DATA_LOCATION__DEFAULT)
        return tfail(d, where, "onnx.tensor.external", "the tensor's data is external; "
                     "only data inside the model file is read", NULL);
    if (p->segment)
        return tfail(d, where, "onnx.tensor.segment", "the tensor is a segment of a larger "
                     "one; segmented tensors are not read", NULL);
    if (p->n_dims > OG_MAX_DIMS) {
        diag_add(d, ST_LOGIC, "onnx.tensor.dims", where, "the tensor has %zu dims, at most %d "
                 "are read", p->n_dims, OG_MAX_DIMS);
        return ST_LOGIC;
    }
    t->ndim = (uint32_t)p->n_dims;
    int64_t count = 1;
    for (uint32_t k = 0; k < t->ndim; k++) {
        int64_t v = p->dims[k];
        if (v < 0 || v > OG_MAX_DIM) {
            diag_add(d, ST_LOGIC, "onnx.tensor.dims", where, "dim %u is %lld, not in 0..%lld",
                     k, (long long)v, (long long)OG_MAX_DIM);
            return ST_LOGIC;
        }
        t->dims[k] = v;
        count *= v;
        if (count > OG_MAX_VOLUME) {
            diag_add(d, ST_LOGIC, "onnx.tensor.volume", where, "the tensor has more than %lld "
                     "elements", (long long)OG_MAX_VOLUME);
            return ST_LOGIC;
        }
    }
    t->count = count;
    /* which typed field holds the values, and how many it has */
    size_t have;
    if (p->has_raw_data) {
        if (p->raw_data.len / es != (size_t)count || p->raw_data.len % es) {
            diag_add(d, ST_LOGIC, "onnx.tensor.size", where, "raw_data has %zu bytes, the "
                     "shape needs %lld elements of %zu bytes", p->raw_data.len,
                     (long long)count, es);
            return ST_LOGIC;
        }
        have = (size_t)count;
    } else {
        switch (t->type) {
        case ONNX_T_FLOAT: have = p->n_float_data; break;
        case ONNX_T_INT64: have = p->n_int64_data; break;
        case ONNX_T_UINT32: case ONNX_T_UINT64: have = p->n_uint64_data; break;
        case ONNX_T_DOUBLE: have = p->n_double_data; break;
        default: have = p->n_int32_data; break;
        }
        if (have != (size_t)count) {
            diag_add(d, ST_LOGIC, "onnx.tensor.size", where, "the tensor holds %zu values, its "
                     "shape has %lld elements", have, (long long)count);
            return ST_LOGIC;
        }
    }
    size_t n = count ? (size_t)count : 1;
    if (onnx_type_is_float(t->type))
        t->f = malloc(n * sizeof *t->f);
    else
        t->i = malloc(n * sizeof *t->i);
    if (!t->f && !t->i)
        return diag_add(d, ST_RUNTIME, "oom", where, "out of memory");
    bool ok = true;
    for (int64_t i = 0; i < count && ok; i++) {
        if (p->has_raw_data) {
            ok = put_raw(t, i, le(p->raw_data.data + (size_t)i * es, es));
            continue;
        }
        switch (t->type) {
        case ONNX_T_FLOAT: t->f[i] = p->float_data[i]; break;
        case ONNX_T_INT64: t->i[i] = p->int64_data[i]; break;
        case ONNX_T_UINT32:
            ok = p->uint64_data[i] <= UINT32_MAX;
            t->i[i] = (int64_t)(p->uint64_data[i] & 0xffffffffu);
            break;
        case ONNX_T_UINT64: ok = put_raw(t, i, p->uint64_data[i]); break;
        case ONNX_T_DOUBLE: {
            uint64_t u;
            memcpy(&u, &p->double_data[i], sizeof u);
            ok = put_raw(t, i, u);
            break;
        }
        default:
            /* int32_data holds the value (float16: its bits) */
            ok = put_raw(t, i, (uint64_t)(uint32_t)p->int32_data[i]);
            if (ok && t->type != ONNX_T_INT32 && t->type != ONNX_T_FLOAT16 &&
                t->type != ONNX_T_BOOL)
                ok = (int64_t)p->int32_data[i] == t->i[i];
            break;
        }
    }
    if (!ok) {
        fe_onnx_tensor_free(t);
        return tfail(d, where, "onnx.tensor.value", "a value does not fit the tensor's type "
                     "(or is a double that float32 cannot hold exactly)", NULL);
    }
    return ST_OK;
}

Status fe_onnx_tensor_read_mem(const uint8_t *buf, size_t len, const char *what,
                               OnnxTensor *t, Diag *d)
{
    memset(t, 0, sizeof *t);
    Status st = pb_wire_precheck(&onnx__tensor_proto__descriptor, buf, len, NULL, 0,
                                 (uint64_t)ONNX_MAX_FILE_BYTES * 4, d);
    if (st != ST_OK)
        return st;
    ProtobufCMessage *msg;
    if ((st = pb_unpack(&onnx__tensor_proto__descriptor, buf, len, "TensorProto", &msg, d)) !=
        ST_OK)
        return st;
    Onnx__TensorProto *p = (Onnx__TensorProto *)msg;
    st = onnx_tensor_from_proto(p, what, t, d);
    t->name = ""; /* it pointed into the proto */
    protobuf_c_message_free_unpacked(&p->base, NULL);
    return st;
}

Status fe_onnx_tensor_read(const char *path, OnnxTensor *t, Diag *d)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    memset(t, 0, sizeof *t);
    Status st = tir_read_file(path, ONNX_MAX_FILE_BYTES, &buf, &len, d);
    if (st != ST_OK)
        return st;
    st = fe_onnx_tensor_read_mem(buf, len, path, t, d);
    free(buf);
    return st;
}
