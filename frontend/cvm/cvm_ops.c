/* cvm_ops.c: what the CVM operators (cvm_ops.def) share: the attribute value syntax and
 * schema-driven parsing, error helpers, and the shape/precision rules several operators share.
 *
 * Attribute syntax (cvm-runtime's dmlc parameters, as written by its model tools): ints
 * "3" / "-1" (an 'L' suffix is accepted), tuples "(1, 1)", "[1,1]", "()", "(1,)" or a single
 * int "3", booleans "true" / "True" / "1" / "false" / "False" / "0", optional ints "None".
 */
#include "frontend/cvm/cvm_ops.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors ---- */

static Status vfail(CvmCtx *c, Status st, const char *rule, const char *fmt, va_list ap)
{
    char where[320], what[768];
    og_node_describe(c->n, where, sizeof where);
    vsnprintf(what, sizeof what, fmt, ap);
    return diag_add(c->d, st, rule, where, "%s", what);
}

Status cvm_fail(CvmCtx *c, const char *rule, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    Status st = vfail(c, ST_LOGIC, rule, fmt, ap);
    va_end(ap);
    return st;
}

Status cvm_fail_attr(CvmCtx *c, const char *attr, const char *fmt, ...)
{
    char rule[40], what[640];
    snprintf(rule, sizeof rule, "cvm.attr.%s", attr);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return cvm_fail(c, rule, "attribute '%s' %s", attr, what);
}

Status cvm_oom(CvmCtx *c)
{
    char where[320];
    og_node_describe(c->n, where, sizeof where);
    return diag_add(c->d, ST_RUNTIME, "oom", where, "out of memory");
}

/* ---- attribute value syntax ---- */

static const char *skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    return s;
}

/* Reads one int at *ps (spaces before it skipped); advances *ps past it and an 'L'. */
static bool read_int(const char **ps, int64_t *out)
{
    const char *s = skip_ws(*ps);
    bool neg = false;
    if (*s == '-' || *s == '+')
        neg = *s++ == '-';
    if (!isdigit((unsigned char)*s))
        return false;
    uint64_t v = 0;
    const uint64_t lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    while (isdigit((unsigned char)*s)) {
        unsigned dig = (unsigned)(*s++ - '0');
        if (v > (lim - dig) / 10)
            return false;
        v = v * 10 + dig;
    }
    if (*s == 'L' || *s == 'l')
        s++;
    if (neg)
        *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    else
        *out = (int64_t)v;
    *ps = s;
    return true;
}

bool cvm_parse_int_text(const char *s, int64_t *out)
{
    int64_t v;
    if (!read_int(&s, &v))
        return false;
    if (*skip_ws(s))
        return false;
    *out = v;
    return true;
}

bool cvm_parse_tuple_text(const char *s, int64_t *v, uint32_t max, uint32_t *count)
{
    *count = 0;
    s = skip_ws(s);
    char close = *s == '(' ? ')' : *s == '[' ? ']' : 0;
    if (!close) {
        int64_t x;
        if (!cvm_parse_int_text(s, &x) || max < 1)
            return false;
        v[0] = x;
        *count = 1;
        return true;
    }
    s = skip_ws(s + 1);
    uint32_t n = 0;
    if (*s == close) {
        s++;
    } else {
        for (;;) {
            int64_t x;
            if (n >= max || !read_int(&s, &x))
                return false;
            v[n++] = x;
            s = skip_ws(s);
            if (*s == ',') {
                s = skip_ws(s + 1);
                if (*s == close) {
                    s++;
                    break;
                }
                continue;
            }
            if (*s != close)
                return false;
            s++;
            break;
        }
    }
    if (*skip_ws(s))
        return false;
    *count = n;
    return true;
}

bool cvm_parse_bool_text(const char *s, bool *out)
{
    static const char *const yes[] = {"true", "True", "1"}, *const no[] = {"false", "False", "0"};
    s = skip_ws(s);
    size_t len = strlen(s);
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    for (int i = 0; i < 3; i++) {
        if (strlen(yes[i]) == len && strncmp(s, yes[i], len) == 0)
            return *out = true, true;
        if (strlen(no[i]) == len && strncmp(s, no[i], len) == 0)
            return *out = false, true;
    }
    return false;
}

static bool is_none_text(const char *s)
{
    s = skip_ws(s);
    if (strncmp(s, "None", 4) != 0)
        return false;
    return *skip_ws(s + 4) == 0;
}

/* The value as shown in messages: quoted, cut at 48 characters. */
static const char *show(const char *v, char *buf, size_t size)
{
    size_t len = strlen(v);
    if (len > 48)
        snprintf(buf, size, "\"%.48s...\"", v);
    else
        snprintf(buf, size, "\"%s\"", v);
    return buf;
}

bool cvm_choice_ok(const char *choices, const char *v)
{
    size_t vl = strlen(v);
    for (const char *p = choices; *p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == vl && strncmp(p, v, len) == 0)
            return true;
        if (!bar)
            break;
        p = bar + 1;
    }
    return false;
}

static Status parse_one(CvmCtx *c, const CvmAttrSpec *sp, const char *v)
{
    char sb[64];
    switch (sp->type) {
    case CA_OPT_INT:
        if (is_none_text(v))
            return og_set_none(c->g, c->n, sp->name) ? ST_OK : cvm_oom(c);
        /* fall through */
    case CA_INT: {
        int64_t x;
        if (!cvm_parse_int_text(v, &x))
            return cvm_fail_attr(c, sp->name, "= %s is not an integer", show(v, sb, sizeof sb));
        if (x < sp->lo || x > sp->hi)
            return cvm_fail_attr(c, sp->name, "= %lld is out of range [%lld, %lld]",
                                 (long long)x, (long long)sp->lo, (long long)sp->hi);
        return og_set_int(c->g, c->n, sp->name, x) ? ST_OK : cvm_oom(c);
    }
    case CA_INTS: {
        int64_t vals[CVM_MAX_ATTR_LIST];
        uint32_t n, max = sp->max_len ? sp->max_len : CVM_MAX_ATTR_LIST;
        if (!cvm_parse_tuple_text(v, vals, CVM_MAX_ATTR_LIST, &n))
            return cvm_fail_attr(c, sp->name, "= %s is not a tuple of at most %d integers",
                                 show(v, sb, sizeof sb), CVM_MAX_ATTR_LIST);
        if (n < sp->min_len || n > max) {
            if (sp->min_len == max)
                return cvm_fail_attr(c, sp->name, "= %s has %u values, expected %u",
                                     show(v, sb, sizeof sb), n, max);
            return cvm_fail_attr(c, sp->name, "= %s has %u values, expected %u to %u",
                                 show(v, sb, sizeof sb), n, sp->min_len, max);
        }
        for (uint32_t i = 0; i < n; i++)
            if (vals[i] < sp->lo || vals[i] > sp->hi)
                return cvm_fail_attr(c, sp->name, "= %s: value %lld is out of range [%lld, %lld]",
                                     show(v, sb, sizeof sb), (long long)vals[i],
                                     (long long)sp->lo, (long long)sp->hi);
        return og_set_ints(c->g, c->n, sp->name, vals, n) ? ST_OK : cvm_oom(c);
    }
    case CA_BOOL: {
        bool b;
        if (!cvm_parse_bool_text(v, &b))
            return cvm_fail_attr(c, sp->name, "= %s is not a boolean (true/True/1/false/False/0)",
                                 show(v, sb, sizeof sb));
        return og_set_bool(c->g, c->n, sp->name, b) ? ST_OK : cvm_oom(c);
    }
    case CA_STR:
        if (sp->choices && !cvm_choice_ok(sp->choices, v))
            return cvm_fail_attr(c, sp->name, "= %s is not supported (accepted: %s)",
                                 show(v, sb, sizeof sb), sp->choices);
        return og_set_str(c->g, c->n, sp->name, v) ? ST_OK : cvm_oom(c);
    }
    return cvm_fail_attr(c, sp->name, "has an unknown type");
}

static bool hidden_key(const char *k)
{
    size_t n = strlen(k);
    return n >= 4 && k[0] == '_' && k[1] == '_' && k[n - 1] == '_' && k[n - 2] == '_';
}

Status cvm_parse_attrs(CvmCtx *c, const CvmRawAttrs *raw, const CvmAttrSpec *spec, size_t n)
{
    for (size_t i = 0; i < raw->n; i++) {
        const char *k = raw->kv[i].key;
        bool known = false;
        for (size_t j = 0; j < n && !known; j++)
            known = strcmp(spec[j].name, k) == 0;
        if (!known && !hidden_key(k)) {
            char kb[64];
            return cvm_fail(c, "cvm.attr.unknown", "unknown attribute %s for %s",
                            show(k, kb, sizeof kb), c->n->op_name);
        }
    }
    for (size_t j = 0; j < n; j++) {
        const char *v = spec[j].def;
        for (size_t i = 0; i < raw->n; i++)
            if (strcmp(raw->kv[i].key, spec[j].name) == 0)
                v = raw->kv[i].value;
        if (!v)
            return cvm_fail_attr(c, spec[j].name, "is required");
        Status st = parse_one(c, &spec[j], v);
        if (st != ST_OK)
            return st;
    }
    return ST_OK;
}

Status cvm_want_inputs(CvmCtx *c, uint32_t want)
{
    if (c->n->ninputs != want)
        return cvm_fail(c, "cvm.op.inputs", "%s takes %u inputs here, the node has %u",
                        c->n->op_name, want, c->n->ninputs);
    return ST_OK;
}

Status cvm_parse_none(CvmCtx *c, const CvmRawAttrs *raw)
{
    return cvm_parse_attrs(c, raw, NULL, 0);
}

/* ---- shape and precision helpers ---- */

Status cvm_want_rank(CvmCtx *c, const OgShape *in, uint32_t k, uint32_t ndim)
{
    if (in[k].ndim != ndim) {
        char sb[96];
        return cvm_fail(c, "cvm.shape.rank", "input %u has shape %s; %s needs %u dims", k,
                        og_shape_str(&in[k], sb, sizeof sb), c->n->op_name, ndim);
    }
    return ST_OK;
}

bool cvm_axis(int64_t axis, int64_t n, int64_t extra, int64_t *out)
{
    if (axis < -n - extra || axis >= n + extra)
        return false;
    *out = axis < 0 ? axis + n + extra : axis;
    return true;
}

int32_t cvm_bits(uint64_t v)
{
    int32_t b = 0;
    while (v) {
        b++;
        v >>= 1;
    }
    return b;
}

int32_t cvm_number_prec(int64_t n)
{
    return cvm_bits((uint64_t)n + 1) + 1;
}

int32_t cvm_prec_of(const OgTensor *t)
{
    return cvm_bits((uint64_t)og_tensor_absmax(t)) + 1;
}

void cvm_strides(const OgShape *s, int64_t *st)
{
    int64_t k = 1;
    for (uint32_t i = s->ndim; i-- > 0;) {
        st[i] = k;
        k *= s->d[i];
    }
}

void cvm_unflatten(const OgShape *s, int64_t i, int64_t *idx)
{
    for (uint32_t j = s->ndim; j-- > 0;) {
        idx[j] = i % s->d[j];
        i /= s->d[j];
    }
}

Status cvm_shape_same(CvmCtx *c, const OgShape *in, OgShape *out)
{
    (void)c;
    out[0] = in[0];
    return ST_OK;
}

/* cvm-runtime's SamePrecision: the output holds input values (or values bounded by them),
 * so it takes the largest input precision. */
Status cvm_prec_same(CvmCtx *c, const OgShape *in, const int32_t *in_prec, int32_t *out_prec)
{
    (void)in;
    int32_t p = 0;
    for (uint32_t i = 0; i < c->n->ninputs; i++)
        if (in_prec[i] > p)
            p = in_prec[i];
    out_prec[0] = p;
    return ST_OK;
}

/* Data-movement operators whose further inputs are indices or shapes: input 0's precision. */
Status cvm_prec_first(CvmCtx *c, const OgShape *in, const int32_t *in_prec, int32_t *out_prec)
{
    (void)c, (void)in;
    out_prec[0] = in_prec[0];
    return ST_OK;
}

/* BinaryPlusPrecision: max(a, b) + 1. */
Status cvm_prec_add(CvmCtx *c, const OgShape *in, const int32_t *in_prec, int32_t *out_prec)
{
    (void)c, (void)in;
    out_prec[0] = (in_prec[0] > in_prec[1] ? in_prec[0] : in_prec[1]) + 1;
    return ST_OK;
}

/* BinaryMultiplyPrecision: a + b. */
Status cvm_prec_mul(CvmCtx *c, const OgShape *in, const int32_t *in_prec, int32_t *out_prec)
{
    (void)c, (void)in;
    out_prec[0] = in_prec[0] + in_prec[1];
    return ST_OK;
}

/* flatten, reshape, squeeze, expand_dims: C order is unchanged, the values are copied. */
Status cvm_run_copy(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    (void)c;
    memcpy(out->data, in[0]->data, (size_t)out->count * sizeof *out->data);
    return ST_OK;
}
