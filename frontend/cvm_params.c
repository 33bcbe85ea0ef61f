/* cvm_params.c: the cvm-runtime params file (format in cvm.h), read and written.
 *
 * The reader trusts nothing: every count and size is checked against the bytes that remain
 * before anything is allocated, shapes against the tensor limits, nbytes against the shape;
 * values are read little-endian whatever the host. Findings are logic errors [cvm.params.*,
 * cvm.limit.*] whose `where` names the file and the array or byte offset.
 */
#include "frontend/cvm_ops.h"
#include "taskir/fileio.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PARAMS_MAGIC UINT64_C(0xF7E58D4F05049CB7)
#define ARRAY_MAGIC UINT64_C(0xDD5E40F096B4A13F)
#define MAX_NAME_BYTES 65536
#define DL_INT 0      /* DLPack kDLInt */
#define DL_CPU 1      /* DLPack kDLCPU */

typedef struct Reader {
    const uint8_t *p;
    size_t len, pos;
    const char *what;
    Diag *d;
    long array;        /* the array being read, or -1 */
    const char *name;  /* its name when known */
} Reader;

static Status rfail(Reader *r, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static Status rfail(Reader *r, const char *rule, const char *fmt, ...)
{
    char where[512], what[512];
    if (r->array >= 0)
        snprintf(where, sizeof where, "params file '%s': array %ld '%s' (byte %zu)", r->what,
                 r->array, r->name ? r->name : "", r->pos);
    else
        snprintf(where, sizeof where, "params file '%s': byte %zu", r->what, r->pos);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return diag_add(r->d, ST_LOGIC, rule, where, "%s", what);
}

static bool take(Reader *r, size_t n, const uint8_t **out)
{
    if (r->len - r->pos < n)
        return false;
    *out = r->p + r->pos;
    r->pos += n;
    return true;
}

static uint64_t le64(const uint8_t *b)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

static uint32_t le32(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* Two's complement reinterpretation without implementation-defined conversions. */
static int64_t s64(uint64_t v)
{
    return v <= INT64_MAX ? (int64_t)v : -(int64_t)(~v) - 1;
}

static int32_t s32(uint32_t v)
{
    return v <= INT32_MAX ? (int32_t)v : -(int32_t)(~v) - 1;
}

static Status u64(Reader *r, uint64_t *v, const char *field)
{
    const uint8_t *b;
    if (!take(r, 8, &b))
        return rfail(r, "cvm.params.format", "the file ends inside %s", field);
    *v = le64(b);
    return ST_OK;
}

void fe_cvm_params_free(CvmParams *ps)
{
    if (!ps)
        return;
    for (size_t i = 0; i < ps->n; i++) {
        free((char *)ps->p[i].name);
        og_tensor_free(&ps->p[i].t);
    }
    free(ps->p);
    ps->p = NULL;
    ps->n = 0;
}

static Status read_array(Reader *r, CvmParam *prm)
{
    const uint8_t *b;
    uint64_t magic = 0, reserved = 0;
    Status st;
    if ((st = u64(r, &magic, "an array header")))
        return st;
    if (magic != ARRAY_MAGIC)
        return rfail(r, "cvm.params.magic", "array magic is 0x%016llx, expected 0x%016llx",
                     (unsigned long long)magic, (unsigned long long)ARRAY_MAGIC);
    if ((st = u64(r, &reserved, "an array header")))
        return st;
    if (!take(r, 16, &b))
        return rfail(r, "cvm.params.format", "the file ends inside an array header");
    int32_t device = s32(le32(b)), ndim = s32(le32(b + 8));
    if (device != DL_CPU) /* cvm-runtime's SetInput: "only supported input with `cpu` device" */
        return rfail(r, "cvm.params.device", "device type is %d; parameters are CPU arrays (%d)",
                     (int)device, DL_CPU);
    uint8_t code = b[12], bits = b[13];
    uint16_t lanes = (uint16_t)(b[14] | b[15] << 8);
    if (code != DL_INT || (bits != 8 && bits != 32) || lanes != 1)
        return rfail(r, "cvm.params.dtype", "element type (code %u, bits %u, lanes %u) is not "
                     "int8 or int32", code, bits, lanes);
    if (ndim < 1 || ndim > OG_MAX_DIMS)
        return rfail(r, "cvm.limit.ndim", "array has %d dims; tensors have 1 to %d", (int)ndim,
                     OG_MAX_DIMS);
    OgShape s = {(uint32_t)ndim, {0}};
    for (int32_t i = 0; i < ndim; i++) {
        uint64_t v = 0;
        if ((st = u64(r, &v, "the array shape")))
            return st;
        int64_t dv = s64(v);
        if (dv < 1 || dv > OG_MAX_DIM)
            return rfail(r, "cvm.limit.dim", "dim %d is %lld; each dim must be 1 to %lld", (int)i,
                         (long long)dv, (long long)OG_MAX_DIM);
        s.d[i] = dv;
    }
    int64_t vol = og_shape_volume(&s);
    if (vol > OG_MAX_VOLUME)
        return rfail(r, "cvm.limit.volume", "array has %lld elements; at most %lld are allowed",
                     (long long)vol, (long long)OG_MAX_VOLUME);
    uint64_t nbytes = 0;
    if ((st = u64(r, &nbytes, "the array size")))
        return st;
    uint64_t want = (uint64_t)vol * (bits / 8);
    if (nbytes != want)
        return rfail(r, "cvm.params.format", "array data is %llu bytes; its shape needs %llu",
                     (unsigned long long)nbytes, (unsigned long long)want);
    if (!take(r, (size_t)nbytes, &b))
        return rfail(r, "cvm.params.format", "the file ends inside the array data (%llu bytes "
                     "announced, %zu left)", (unsigned long long)nbytes, r->len - r->pos);
    if (!og_tensor_alloc(&prm->t, &s))
        return diag_add(r->d, ST_RUNTIME, "oom", NULL, "out of memory reading %s", r->what);
    prm->bits = bits;
    if (bits == 8) /* two loops, so that the 8-bit one (the weights) vectorizes */
        for (int64_t i = 0; i < vol; i++)
            prm->t.data[i] = (int32_t)b[i] - (b[i] & 0x80 ? 256 : 0);
    else
        for (int64_t i = 0; i < vol; i++)
            prm->t.data[i] = s32(le32(b + 4 * i));
    return ST_OK;
}

static int cmp_param_name(const void *a, const void *b)
{
    return strcmp((*(const CvmParam *const *)a)->name, (*(const CvmParam *const *)b)->name);
}

/* No name twice: sorted, so that many names cost n log n, not n^2. */
static Status check_unique(Reader *r, const CvmParams *ps)
{
    if (ps->n < 2)
        return ST_OK;
    const CvmParam **v = malloc(ps->n * sizeof *v);
    if (!v)
        return diag_add(r->d, ST_RUNTIME, "oom", NULL, "out of memory reading %s", r->what);
    for (size_t i = 0; i < ps->n; i++)
        v[i] = &ps->p[i];
    qsort(v, ps->n, sizeof *v, cmp_param_name);
    Status st = ST_OK;
    for (size_t i = 1; i < ps->n && st == ST_OK; i++)
        if (strcmp(v[i - 1]->name, v[i]->name) == 0)
            st = rfail(r, "cvm.params.duplicate", "name '%s' appears twice", v[i]->name);
    free(v);
    return st;
}

Status fe_cvm_params_parse(const uint8_t *buf, size_t len, const char *what, CvmParams *out,
                           Diag *d)
{
    memset(out, 0, sizeof *out);
    Reader r = {buf, len, 0, what ? what : "params", d, -1, NULL};
    uint64_t magic = 0, reserved = 0, count = 0, count2 = 0;
    Status st;
    if ((st = u64(&r, &magic, "the file header")))
        return st;
    if (magic != PARAMS_MAGIC) {
        r.pos = 0;
        return rfail(&r, "cvm.params.magic", "file magic is 0x%016llx, expected 0x%016llx",
                     (unsigned long long)magic, (unsigned long long)PARAMS_MAGIC);
    }
    if ((st = u64(&r, &reserved, "the file header")) || (st = u64(&r, &count, "the name count")))
        return st;
    if (count > (r.len - r.pos) / 8)
        return rfail(&r, "cvm.params.format", "%llu names announced, the file has room for at "
                     "most %zu", (unsigned long long)count, (r.len - r.pos) / 8);
    if (count > CVM_MAX_PARAMS)
        return rfail(&r, "cvm.limit.params", "%llu arrays announced; at most %u are allowed",
                     (unsigned long long)count, CVM_MAX_PARAMS);
    CvmParams ps = {calloc(count ? (size_t)count : 1, sizeof *ps.p), 0};
    if (!ps.p)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory reading %s", r.what);
    st = ST_OK;
    for (uint64_t i = 0; i < count && st == ST_OK; i++) {
        uint64_t nl = 0;
        const uint8_t *b;
        if ((st = u64(&r, &nl, "a name length")))
            break;
        if (nl > MAX_NAME_BYTES || !take(&r, (size_t)nl, &b)) {
            st = rfail(&r, "cvm.params.format", "name %llu is %llu bytes long, more than %s",
                       (unsigned long long)i, (unsigned long long)nl,
                       nl > MAX_NAME_BYTES ? "the 65536-byte limit" : "the file holds");
            break;
        }
        char *name = malloc((size_t)nl + 1);
        if (!name) {
            st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory reading %s", r.what);
            break;
        }
        memcpy(name, b, (size_t)nl);
        name[nl] = 0;
        ps.p[ps.n++].name = name;
        if (strlen(name) != nl)
            st = rfail(&r, "cvm.params.format", "name %llu contains a NUL byte",
                       (unsigned long long)i);
    }
    if (st == ST_OK)
        st = check_unique(&r, &ps);
    if (st == ST_OK && (st = u64(&r, &count2, "the array count")) == ST_OK && count2 != count)
        st = rfail(&r, "cvm.params.format", "%llu arrays for %llu names",
                   (unsigned long long)count2, (unsigned long long)count);
    for (size_t i = 0; st == ST_OK && i < ps.n; i++) {
        r.array = (long)i;
        r.name = ps.p[i].name;
        st = read_array(&r, &ps.p[i]);
    }
    r.array = -1;
    if (st == ST_OK && r.pos != r.len)
        st = rfail(&r, "cvm.params.format", "%zu bytes follow the last array", r.len - r.pos);
    if (st != ST_OK) {
        fe_cvm_params_free(&ps);
        return st;
    }
    *out = ps;
    return ST_OK;
}

/* ---- writer ---- */

static uint8_t *put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
    return p + 8;
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
    return p + 4;
}

Status fe_cvm_params_encode(const CvmParam *ps, size_t n, uint8_t **buf, size_t *len, Diag *d)
{
    *buf = NULL;
    *len = 0;
    size_t size = 32;
    for (size_t i = 0; i < n; i++) {
        const CvmParam *p = &ps[i];
        if ((p->bits != 8 && p->bits != 32) || p->t.shape.ndim < 1 ||
            p->t.shape.ndim > OG_MAX_DIMS || p->t.count != og_shape_volume(&p->t.shape) ||
            p->t.count > OG_MAX_VOLUME || !p->name)
            return diag_add(d, ST_RUNTIME, "cvm.params.format", p->name,
                            "parameter %zu cannot be encoded (bits, shape or count)", i);
        for (int64_t k = 0; p->bits == 8 && k < p->t.count; k++)
            if (p->t.data[k] < -128 || p->t.data[k] > 127)
                return diag_add(d, ST_RUNTIME, "cvm.params.range", p->name,
                                "value %d does not fit int8", (int)p->t.data[k]);
        size_t nl = strlen(p->name);
        size_t data = (size_t)p->t.count * (p->bits / 8);
        size_t add = 8 + nl + 40 + 8 * p->t.shape.ndim + data;
        if (add > SIZE_MAX - size)
            return diag_add(d, ST_RUNTIME, "oom", NULL, "params image too large");
        size += add;
    }
    uint8_t *b = malloc(size), *q = b;
    if (!b)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory encoding params");
    q = put64(q, PARAMS_MAGIC);
    q = put64(q, 0);
    q = put64(q, n);
    for (size_t i = 0; i < n; i++) {
        size_t nl = strlen(ps[i].name);
        q = put64(q, nl);
        memcpy(q, ps[i].name, nl);
        q += nl;
    }
    q = put64(q, n);
    for (size_t i = 0; i < n; i++) {
        const CvmParam *p = &ps[i];
        q = put64(q, ARRAY_MAGIC);
        q = put64(q, 0);
        q = put32(q, DL_CPU);
        q = put32(q, 0);
        q = put32(q, p->t.shape.ndim);
        *q++ = DL_INT;
        *q++ = p->bits;
        *q++ = 1;
        *q++ = 0;
        for (uint32_t k = 0; k < p->t.shape.ndim; k++)
            q = put64(q, (uint64_t)p->t.shape.d[k]);
        q = put64(q, (uint64_t)p->t.count * (p->bits / 8));
        for (int64_t k = 0; k < p->t.count; k++) {
            uint32_t v = (uint32_t)p->t.data[k];
            if (p->bits == 8)
                *q++ = (uint8_t)v;
            else
                q = put32(q, v);
        }
    }
    *buf = b;
    *len = (size_t)(q - b);
    return ST_OK;
}

Status fe_cvm_params_write(const char *path, const CvmParam *p, size_t n, Diag *d)
{
    uint8_t *buf;
    size_t len;
    Status st = fe_cvm_params_encode(p, n, &buf, &len, d);
    if (st != ST_OK)
        return st;
    st = tir_write_file_atomic(path, buf, len, d);
    free(buf);
    return st;
}
