/* npy.c: a small reader and writer of NumPy .npy files (see npy.h).
 *
 * Layout: the magic "\x93NUMPY", a major and a minor version byte, the header length (uint16
 * little-endian in version 1, uint32 in versions 2 and 3), the header (a Python dict literal
 * with exactly the keys 'descr', 'fortran_order' and 'shape', padded with spaces and a final
 * newline), then the raw data in C order. The header is parsed by a tiny tokenizer of the
 * Python literal subset numpy writes (strings in single or double quotes, True/False, tuples
 * of non-negative integers); anything else is a logic error. All multi-byte values are
 * decoded and encoded byte by byte, so the code does not depend on the host's byte order.
 */
#include "taskir/npy.h"

#include "taskir/fileio.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

const char *npy_dtype_name(NpyDtype t)
{
    switch (t) {
    case NPY_I8:
        return "int8";
    case NPY_U8:
        return "uint8";
    case NPY_I16:
        return "int16";
    case NPY_I32:
        return "int32";
    case NPY_F32:
        return "float32";
    case NPY_U16:
        return "uint16";
    case NPY_I64:
        return "int64";
    }
    return "?";
}

void npy_free(NpyArray *a)
{
    if (!a)
        return;
    free(a->i32);
    free(a->f32);
    memset(a, 0, sizeof *a);
}

/* ---- header parsing ---- */

typedef struct HdrParser {
    const char *s;
    size_t n, i;
    Diag *d;
} HdrParser;

static Status hdr_err(HdrParser *p, const char *what)
{
    char where[64];
    snprintf(where, sizeof where, "header byte %zu", p->i);
    return diag_add(p->d, ST_LOGIC, "npy.header", where, "%s", what);
}

static void hdr_ws(HdrParser *p)
{
    while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' ||
                           p->s[p->i] == '\r'))
        p->i++;
}

static bool hdr_eat(HdrParser *p, char c)
{
    hdr_ws(p);
    if (p->i < p->n && p->s[p->i] == c) {
        p->i++;
        return true;
    }
    return false;
}

/* A quoted string without escapes, copied into out (at most cap - 1 chars). */
static bool hdr_string(HdrParser *p, char *out, size_t cap)
{
    hdr_ws(p);
    if (p->i >= p->n || (p->s[p->i] != '\'' && p->s[p->i] != '"'))
        return false;
    char q = p->s[p->i++];
    size_t k = 0;
    while (p->i < p->n && p->s[p->i] != q) {
        if (p->s[p->i] == '\\' || k + 1 >= cap)
            return false;
        out[k++] = p->s[p->i++];
    }
    if (p->i >= p->n)
        return false;
    p->i++;
    out[k] = 0;
    return true;
}

static bool hdr_word(HdrParser *p, const char *w)
{
    hdr_ws(p);
    size_t l = strlen(w);
    if (p->n - p->i >= l && memcmp(p->s + p->i, w, l) == 0) {
        p->i += l;
        return true;
    }
    return false;
}

/* A non-negative integer (Python may write a trailing L in old files). */
static bool hdr_int(HdrParser *p, int64_t *out)
{
    hdr_ws(p);
    if (p->i >= p->n || p->s[p->i] < '0' || p->s[p->i] > '9')
        return false;
    int64_t v = 0;
    while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') {
        int dgt = p->s[p->i++] - '0';
        if (v > (INT64_MAX - dgt) / 10)
            return false;
        v = v * 10 + dgt;
    }
    if (p->i < p->n && p->s[p->i] == 'L')
        p->i++;
    *out = v;
    return true;
}

static Status parse_descr(HdrParser *p, const char *descr, NpyDtype *t)
{
    static const struct {
        const char *descr;
        NpyDtype t;
    } known[] = {
        {"|i1", NPY_I8},  {"<i1", NPY_I8},  {"i1", NPY_I8},   {"|u1", NPY_U8},
        {"<u1", NPY_U8},  {"u1", NPY_U8},   {"|b1", NPY_U8},  {"<i2", NPY_I16},
        {"<u2", NPY_U16}, {"<i4", NPY_I32}, {"<i8", NPY_I64}, {"<f4", NPY_F32},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(descr, known[i].descr) == 0) {
            *t = known[i].t;
            return ST_OK;
        }
    (void)p;
    return diag_add(p->d, ST_LOGIC, "npy.dtype", NULL,
                    "unsupported dtype '%s' (supported: int8, uint8, int16, uint16, int32, "
                    "int64, float32, little-endian)", descr);
}

static Status parse_header(HdrParser *p, NpyArray *a)
{
    bool have_descr = false, have_order = false, have_shape = false;
    if (!hdr_eat(p, '{'))
        return hdr_err(p, "the header is not a dict literal");
    for (;;) {
        if (hdr_eat(p, '}'))
            break;
        char key[32];
        if (!hdr_string(p, key, sizeof key))
            return hdr_err(p, "expected a quoted key");
        if (!hdr_eat(p, ':'))
            return hdr_err(p, "expected ':' after a key");
        if (strcmp(key, "descr") == 0 && !have_descr) {
            char descr[32];
            if (!hdr_string(p, descr, sizeof descr))
                return diag_add(p->d, ST_LOGIC, "npy.dtype", NULL,
                                "'descr' is not a simple dtype string (structured arrays are "
                                "not supported)");
            Status st = parse_descr(p, descr, &a->dtype);
            if (st)
                return st;
            have_descr = true;
        } else if (strcmp(key, "fortran_order") == 0 && !have_order) {
            if (hdr_word(p, "True"))
                return diag_add(p->d, ST_LOGIC, "npy.order", NULL,
                                "Fortran-order arrays are not supported; save in C order");
            if (!hdr_word(p, "False"))
                return hdr_err(p, "'fortran_order' must be True or False");
            have_order = true;
        } else if (strcmp(key, "shape") == 0 && !have_shape) {
            if (!hdr_eat(p, '('))
                return hdr_err(p, "'shape' must be a tuple");
            a->ndim = 0;
            for (;;) {
                if (hdr_eat(p, ')'))
                    break;
                int64_t v;
                if (!hdr_int(p, &v))
                    return hdr_err(p, "a shape entry must be a non-negative integer");
                if (a->ndim >= NPY_MAX_DIMS)
                    return diag_add(p->d, ST_LOGIC, "npy.shape", NULL,
                                    "more than %d dimensions", NPY_MAX_DIMS);
                a->shape[a->ndim++] = v;
                if (!hdr_eat(p, ',')) {
                    if (!hdr_eat(p, ')'))
                        return hdr_err(p, "expected ',' or ')' in the shape");
                    break;
                }
            }
            have_shape = true;
        } else {
            return diag_add(p->d, ST_LOGIC, "npy.header", NULL,
                            "unexpected or repeated key '%s' in the header", key);
        }
        if (!hdr_eat(p, ',')) {
            if (!hdr_eat(p, '}'))
                return hdr_err(p, "expected ',' or '}' after a value");
            break;
        }
    }
    hdr_ws(p);
    if (p->i != p->n)
        return hdr_err(p, "trailing characters after the header dict");
    if (!have_descr || !have_order || !have_shape)
        return diag_add(p->d, ST_LOGIC, "npy.header", NULL,
                        "the header lacks one of 'descr', 'fortran_order', 'shape'");
    return ST_OK;
}

static size_t dtype_size(NpyDtype t)
{
    switch (t) {
    case NPY_I8:
    case NPY_U8:
        return 1;
    case NPY_I16:
    case NPY_U16:
        return 2;
    case NPY_I32:
    case NPY_F32:
        return 4;
    case NPY_I64:
        return 8;
    }
    return 1;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

Status npy_read_mem(const uint8_t *buf, size_t len, NpyArray *out, Diag *d)
{
    memset(out, 0, sizeof *out);
    if (len < 10 || memcmp(buf, npy_magic, sizeof npy_magic) != 0)
        return diag_add(d, ST_LOGIC, "npy.magic", NULL, "not a .npy file (bad magic)");
    int major = buf[6];
    size_t hlen, hstart;
    if (major == 1) {
        hlen = (size_t)buf[8] | (size_t)buf[9] << 8;
        hstart = 10;
    } else if (major == 2 || major == 3) {
        if (len < 12)
            return diag_add(d, ST_LOGIC, "npy.header", NULL, "truncated header length");
        hlen = le32(buf + 8);
        hstart = 12;
    } else {
        return diag_add(d, ST_LOGIC, "npy.version", NULL,
                        "unsupported .npy format version %d.%d", major, buf[7]);
    }
    if (hlen > len - hstart)
        return diag_add(d, ST_LOGIC, "npy.header", NULL,
                        "header of %zu bytes runs past the end of the file", hlen);
    HdrParser p = {(const char *)buf + hstart, hlen, 0, d};
    NpyArray a;
    memset(&a, 0, sizeof a);
    Status st = parse_header(&p, &a);
    if (st)
        return st;
    a.count = 1;
    for (uint32_t i = 0; i < a.ndim; i++) {
        if (a.shape[i] > TIR_MAX_NPY_ELEMS ||
            (a.shape[i] && a.count > TIR_MAX_NPY_ELEMS / a.shape[i]))
            return diag_add(d, ST_LOGIC, "limit.npy", NULL,
                            "the array has more than %" PRId64 " elements",
                            (int64_t)TIR_MAX_NPY_ELEMS);
        a.count *= a.shape[i];
    }
    size_t isz = dtype_size(a.dtype);
    size_t data_len = len - hstart - hlen;
    size_t want = (size_t)a.count * isz;
    if (data_len != want)
        return diag_add(d, ST_LOGIC, "npy.size", NULL,
                        "the data has %zu bytes, the shape and dtype need %zu", data_len,
                        want);
    const uint8_t *src = buf + hstart + hlen;
    size_t n = a.count ? (size_t)a.count : 1;
    if (a.dtype == NPY_F32) {
        a.f32 = malloc(n * sizeof *a.f32);
        if (!a.f32)
            return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory for the array");
        for (int64_t i = 0; i < a.count; i++) {
            uint32_t u = le32(src + 4 * i);
            memcpy(&a.f32[i], &u, 4);
        }
    } else {
        a.i32 = malloc(n * sizeof *a.i32);
        if (!a.i32)
            return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory for the array");
        for (int64_t i = 0; i < a.count; i++) {
            switch (a.dtype) {
            case NPY_I8:
                a.i32[i] = src[i] < 128 ? src[i] : (int32_t)src[i] - 256;
                break;
            case NPY_U8:
                a.i32[i] = src[i];
                break;
            case NPY_I16: {
                int32_t v = (int32_t)src[2 * i] | (int32_t)src[2 * i + 1] << 8;
                a.i32[i] = v < 32768 ? v : v - 65536;
                break;
            }
            case NPY_U16:
                a.i32[i] = (int32_t)src[2 * i] | (int32_t)src[2 * i + 1] << 8;
                break;
            case NPY_I64: {
                uint64_t u = (uint64_t)le32(src + 8 * i) | (uint64_t)le32(src + 8 * i + 4) << 32;
                /* two's complement: in int32 range when the top 33 bits are all equal */
                uint64_t top = u >> 31;
                if (top != 0 && top != ((uint64_t)1 << 33) - 1) {
                    int64_t v = u <= INT64_MAX ? (int64_t)u : -(int64_t)(~u) - 1;
                    free(a.i32);
                    char where[48];
                    snprintf(where, sizeof where, "element %" PRId64, i);
                    return diag_add(d, ST_LOGIC, "npy.range", where,
                                    "the int64 value %" PRId64 " does not fit 32 bits (no "
                                    "input's precision holds it)", v);
                }
                uint32_t lo = (uint32_t)u;
                a.i32[i] = lo <= INT32_MAX ? (int32_t)lo : -(int32_t)(~lo) - 1;
                break;
            }
            default: {
                uint32_t u = le32(src + 4 * i);
                a.i32[i] = u <= INT32_MAX ? (int32_t)u : -(int32_t)(~u) - 1;
                break;
            }
            }
        }
    }
    *out = a;
    return ST_OK;
}

Status npy_read(const char *path, NpyArray *out, Diag *d)
{
    uint8_t *buf;
    size_t len;
    memset(out, 0, sizeof *out);
    Status st = tir_read_file(path, TIR_MAX_FILE_BYTES, &buf, &len, d);
    if (st)
        return st;
    st = npy_read_mem(buf, len, out, d);
    free(buf);
    return st;
}

/* The descr and the size of one value of a dtype npy_encode writes. */
static const char *write_descr(NpyDtype t, size_t *size)
{
    switch (t) {
    case NPY_I8:
        *size = 1;
        return "|i1";
    case NPY_U8:
        *size = 1;
        return "|u1";
    case NPY_I16:
        *size = 2;
        return "<i2";
    default:
        *size = 4;
        return "<i4";
    }
}

Status npy_encode_i32(const int32_t *data, const int64_t *shape, uint32_t ndim, uint8_t **buf,
                      size_t *len, Diag *d)
{
    return npy_encode(NPY_I32, data, shape, ndim, buf, len, d);
}

Status npy_encode(NpyDtype dtype, const int32_t *data, const int64_t *shape, uint32_t ndim,
                  uint8_t **buf, size_t *len, Diag *d)
{
    *buf = NULL;
    *len = 0;
    if (ndim > NPY_MAX_DIMS)
        return diag_add(d, ST_RUNTIME, "npy.shape", NULL, "more than %d dimensions",
                        NPY_MAX_DIMS);
    char hdr[512];
    size_t vsize;
    const char *descr = write_descr(dtype, &vsize);
    int n = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                     descr);
    int64_t count = 1;
    for (uint32_t i = 0; i < ndim; i++) {
        if (shape[i] < 0 || (shape[i] && count > TIR_MAX_NPY_ELEMS / shape[i]))
            return diag_add(d, ST_RUNTIME, "npy.shape", NULL, "bad or too large shape");
        count *= shape[i];
        n += snprintf(hdr + n, sizeof hdr - (size_t)n, "%" PRId64 "%s", shape[i],
                      ndim == 1 ? "," : (i + 1 < ndim ? ", " : ""));
    }
    n += snprintf(hdr + n, sizeof hdr - (size_t)n, "), }");
    /* Pad with spaces so that magic + version + length + header is a multiple of 64, and end
     * the header with a newline, as numpy does. */
    size_t total = 10 + (size_t)n + 1;
    size_t pad = (64 - total % 64) % 64;
    size_t hlen = (size_t)n + pad + 1;
    size_t dlen = (size_t)count * vsize;
    uint8_t *b = malloc(10 + hlen + dlen);
    if (!b)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory encoding the array");
    memcpy(b, npy_magic, sizeof npy_magic);
    b[6] = 1;
    b[7] = 0;
    b[8] = (uint8_t)(hlen & 0xff);
    b[9] = (uint8_t)(hlen >> 8);
    memcpy(b + 10, hdr, (size_t)n);
    memset(b + 10 + n, ' ', pad);
    b[10 + hlen - 1] = '\n';
    uint8_t *o = b + 10 + hlen;
    /* little-endian, each value narrowed as a C cast to an unsigned type does (mod 2^bits) */
    for (int64_t i = 0; i < count; i++) {
        uint32_t u = (uint32_t)data[i];
        for (size_t k = 0; k < vsize; k++)
            o[(size_t)i * vsize + k] = (uint8_t)(u >> (8 * k));
    }
    *buf = b;
    *len = 10 + hlen + dlen;
    return ST_OK;
}

Status npy_write_i32(const char *path, const int32_t *data, const int64_t *shape,
                     uint32_t ndim, Diag *d)
{
    return npy_write(path, NPY_I32, data, shape, ndim, d);
}

Status npy_write(const char *path, NpyDtype dtype, const int32_t *data, const int64_t *shape,
                 uint32_t ndim, Diag *d)
{
    uint8_t *buf;
    size_t len;
    Status st = npy_encode(dtype, data, shape, ndim, &buf, &len, d);
    if (st)
        return st;
    st = tir_write_file_atomic(path, buf, len, d);
    free(buf);
    return st;
}
