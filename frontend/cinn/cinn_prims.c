/* cinn_prims.c: the primitive table (cinn_prims.def) expanded, the attribute schemas its rows
 * name (cinn_attrs_<attrs>), and the attribute text syntax shared by the XML reader, the
 * builder's defaults and the writer: ints "3" / "-1", lists of ints separated by blanks
 * "1 64 112 112" (possibly empty), booleans "true" / "false" / "1" / "0", strings from a
 * fixed choice. frontend/cinn/cinn.xsd states the same schemas; the round-trip tests check that
 * every call the builder records validates against it.
 */
#include "frontend/cinn/cinn_internal.h"
#include "frontend/cvm/cvm_ops.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define I32 ((int64_t)INT32_MAX)
#define DIM OG_MAX_DIM
#define ND OG_MAX_DIMS
#define WIN 4095 /* the CVM formalization's max_attr - 1: strides, paddings, dilations */

static const CinnAttrSpec cinn_attrs_none[1] = {{NULL, CT_INT, NULL, 0, 0, 0, 0, NULL}};
static const CinnAttrSpec cinn_attrs_input[] = {
    {"shape", CT_INTS, NULL, 1, DIM, 1, ND, NULL},
    {"precision", CT_INT, NULL, 1, 32, 0, 0, NULL},
    {NULL, CT_INT, NULL, 0, 0, 0, 0, NULL},
};
static const CinnAttrSpec cinn_attrs_constant[] = {
    {"shape", CT_INTS, NULL, 1, DIM, 1, ND, NULL},
    {"precision", CT_INT, "?", 1, 32, 0, 0, NULL},
    {NULL, CT_INT, NULL, 0, 0, 0, 0, NULL},
};
static const CinnAttrSpec cinn_attrs_scalar[] = {
    {"value", CT_SCALAR, NULL, -I32, I32, 0, 0, NULL},
    {NULL, CT_INT, NULL, 0, 0, 0, 0, NULL},
};
static const CinnAttrSpec cinn_attrs_real[] = {
    {"in_frac", CT_INT, "0", 0, 31, 0, 0, NULL},
    {"out_frac", CT_INT, "0", 0, 31, 0, 0, NULL},
    {"precision", CT_INT, "?", 1, 32, 0, 0, NULL},
    {NULL, CT_INT, NULL, 0, 0, 0, 0, NULL},
};
static const CinnAttrSpec cinn_attrs_round[] = {
    {"frac", CT_INT, "0", 0, 31, 0, 0, NULL},
    {NULL, CT_INT, NULL, 0, 0, 0, 0, NULL},
};
static const CinnAttrSpec cinn_attrs_broadcast_to[] = {
    {"out_shape", CT_INTS, NULL, 1, DIM, 1, ND, NULL},
    {"broadcast_axes", CT_INTS, NULL, 0, ND - 1, 0, ND, NULL},
    {NULL, CT_INT, NULL, 0, 0, 0, 0, NULL},
};
static const CinnAttrSpec cinn_attrs_compare[] = {
    {"kind", CT_STR, NULL, 0, 0, 0, 0, "eq|ne|ge|gt|le|lt"},
    {NULL, CT_INT, NULL, 0, 0, 0, 0, NULL},
};
static const CinnAttrSpec cinn_attrs_concat[] = {
    {"axis", CT_INT, "0", -ND, ND - 1, 0, 0, NULL},
    {NULL, CT_INT, NULL, 0, 0, 0, 0, NULL},
};
static const CinnAttrSpec cinn_attrs_conv[] = {
    {"strides", CT_INTS, "1 1", 1, WIN, 2, 2, NULL},
    {"paddings", CT_INTS, "0 0", 0, WIN, 2, 2, NULL},
    {"dilations", CT_INTS, "1 1", 1, WIN, 2, 2, NULL},
    {"groups", CT_INT, "1", 1, I32, 0, 0, NULL},
    {"conv_type", CT_STR, "forward", 0, 0, 0, 0, "forward|backward_data|backward_filter"},
    {"data_format", CT_STR, "NCHW", 0, 0, 0, 0, "NCHW|NHWC"},
    {"padding_algorithm", CT_STR, "EXPLICIT", 0, 0, 0, 0, "EXPLICIT|SAME|VALID"},
    {"output_shape", CT_INTS, "?", 1, DIM, 0, ND, NULL},
    {NULL, CT_INT, NULL, 0, 0, 0, 0, NULL},
};
static const CinnAttrSpec cinn_attrs_reduce[] = {
    {"kind", CT_STR, NULL, 0, 0, 0, 0, "sum|prod|max|min"},
    {"dim", CT_INTS, NULL, 0, ND - 1, 1, ND, NULL},
    {"keep_dim", CT_BOOL, "false", 0, 0, 0, 0, NULL},
    {NULL, CT_INT, NULL, 0, 0, 0, 0, NULL},
};
static const CinnAttrSpec cinn_attrs_reshape[] = {
    {"shape", CT_INTS, NULL, -1, DIM, 1, ND, NULL},
    {NULL, CT_INT, NULL, 0, 0, 0, 0, NULL},
};
static const CinnAttrSpec cinn_attrs_reverse[] = {
    {"axis", CT_INTS, NULL, -ND, ND - 1, 0, ND, NULL},
    {NULL, CT_INT, NULL, 0, 0, 0, 0, NULL},
};
static const CinnAttrSpec cinn_attrs_slice[] = {
    {"axes", CT_INTS, NULL, 0, ND - 1, 1, ND, NULL},
    {"starts", CT_INTS, NULL, 0, DIM, 1, ND, NULL},
    {"ends", CT_INTS, NULL, 0, DIM, 1, ND, NULL},
    {NULL, CT_INT, NULL, 0, 0, 0, 0, NULL},
};
static const CinnAttrSpec cinn_attrs_transpose[] = {
    {"axis", CT_INTS, NULL, 0, ND - 1, 1, ND, NULL},
    {NULL, CT_INT, NULL, 0, 0, 0, 0, NULL},
};

/* Every schema ends with a NULL-named sentinel (so that "none" can be empty). */
#define NATTRS(a) ((uint32_t)(sizeof a / sizeof *a) - 1)

static const CinnPrimInfo prim_table[CINN_P_COUNT] = {
#define X(Name, snake, cls, roles, attrs, build, status, how)                               \
    {#Name, #snake, CC_##cls, roles, cinn_attrs_##attrs, NATTRS(cinn_attrs_##attrs), build,  \
     CINN_##status, how},
#include "frontend/cinn/cinn_prims.def"
#undef X
};

const CinnPrimInfo *cinn_prim_info(CinnPrim p)
{
    return (unsigned)p < CINN_P_COUNT ? &prim_table[p] : NULL;
}

const char *fe_cinn_prim_name(CinnPrim p)
{
    return (unsigned)p < CINN_P_COUNT ? prim_table[p].name : NULL;
}

bool fe_cinn_prim_from_name(const char *name, CinnPrim *out)
{
    for (int i = 0; i < CINN_P_COUNT; i++)
        if (strcmp(prim_table[i].name, name) == 0) {
            *out = (CinnPrim)i;
            return true;
        }
    return false;
}

bool fe_cinn_prim_supported(CinnPrim p)
{
    return (unsigned)p < CINN_P_COUNT && prim_table[p].status == CINN_SUPPORTED;
}

const char *fe_cinn_prim_how(CinnPrim p)
{
    return (unsigned)p < CINN_P_COUNT ? prim_table[p].how : NULL;
}

uint32_t cinn_nroles(const CinnPrimInfo *pi, bool *list)
{
    uint32_t n = 0;
    *list = false;
    for (const char *s = pi->roles; *s;) {
        while (*s == ' ')
            s++;
        if (!*s)
            break;
        n++;
        while (*s && *s != ' ') {
            if (*s == '*')
                *list = true;
            s++;
        }
    }
    return n;
}

const char *cinn_role(const CinnPrimInfo *pi, uint32_t k, char *buf, size_t size)
{
    uint32_t i = 0;
    for (const char *s = pi->roles; *s;) {
        while (*s == ' ')
            s++;
        if (!*s)
            break;
        size_t len = 0;
        while (s[len] && s[len] != ' ' && s[len] != '*')
            len++;
        if (i++ == k) {
            snprintf(buf, size, "%.*s", (int)len, s);
            return buf;
        }
        while (*s && *s != ' ')
            s++;
    }
    return NULL;
}

int cinn_attr_index(const CinnPrimInfo *pi, const char *name)
{
    for (uint32_t i = 0; i < pi->nattrs; i++)
        if (strcmp(pi->attrs[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* ---- text syntax ---- */

static const char *skip_blank(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    return s;
}

/* One decimal integer at *ps (optional sign); advances past it. */
static bool read_int(const char **ps, int64_t *out)
{
    const char *s = *ps;
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
    *out = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    *ps = s;
    return true;
}

static bool is_blank_end(const char *s)
{
    return *skip_blank(s) == 0;
}

bool cinn_attr_check(const CinnAttrSpec *spec, const OgAttr *a, char *err, size_t errsize)
{
    switch (spec->type) {
    case CT_INT:
    case CT_SCALAR:
        if (a->kind != OG_ATTR_INT) {
            snprintf(err, errsize, "must be an integer");
            return false;
        }
        if (a->i < spec->lo || a->i > spec->hi) {
            snprintf(err, errsize, "= %lld is out of range [%lld, %lld]", (long long)a->i,
                     (long long)spec->lo, (long long)spec->hi);
            return false;
        }
        return true;
    case CT_INTS:
        if (a->kind != OG_ATTR_INTS) {
            snprintf(err, errsize, "must be a list of integers");
            return false;
        }
        if (a->n < spec->min_len || a->n > spec->max_len) {
            if (spec->min_len == spec->max_len)
                snprintf(err, errsize, "has %u values, expected %u", a->n, spec->max_len);
            else
                snprintf(err, errsize, "has %u values, expected %u to %u", a->n, spec->min_len,
                         spec->max_len);
            return false;
        }
        for (uint32_t i = 0; i < a->n; i++)
            if (a->v[i] < spec->lo || a->v[i] > spec->hi) {
                snprintf(err, errsize, "value %lld is out of range [%lld, %lld]",
                         (long long)a->v[i], (long long)spec->lo, (long long)spec->hi);
                return false;
            }
        return true;
    case CT_BOOL:
        if (a->kind != OG_ATTR_BOOL) {
            snprintf(err, errsize, "must be a boolean");
            return false;
        }
        return true;
    case CT_STR:
        if (a->kind != OG_ATTR_STR || !a->s) {
            snprintf(err, errsize, "must be a string");
            return false;
        }
        if (spec->choices && !cvm_choice_ok(spec->choices, a->s)) {
            snprintf(err, errsize, "= \"%.40s\" is not one of %s", a->s, spec->choices);
            return false;
        }
        return true;
    }
    snprintf(err, errsize, "has an unknown type");
    return false;
}

/* A float: what strtod accepts whole (used only to give the reason for a ConstScalar). */
static bool looks_float(const char *s)
{
    s = skip_blank(s);
    if (!*s)
        return false;
    char *end;
    errno = 0;
    (void)strtod(s, &end);
    return end != s && is_blank_end(end);
}

bool cinn_attr_parse(const CinnAttrSpec *spec, const char *text, Arena *arena, OgAttr *out,
                     bool *is_float, char *err, size_t errsize)
{
    memset(out, 0, sizeof *out);
    out->name = spec->name;
    if (is_float)
        *is_float = false;
    const char *s = skip_blank(text);
    switch (spec->type) {
    case CT_SCALAR:
        if (strncmp(s, "true", 4) == 0 && is_blank_end(s + 4)) {
            out->kind = OG_ATTR_INT;
            out->i = 1;
            return true;
        }
        if (strncmp(s, "false", 5) == 0 && is_blank_end(s + 5)) {
            out->kind = OG_ATTR_INT;
            out->i = 0;
            return true;
        }
        /* fall through */
    case CT_INT: {
        int64_t v;
        if (!read_int(&s, &v) || !is_blank_end(s)) {
            if (spec->type == CT_SCALAR && is_float && looks_float(text))
                *is_float = true;
            snprintf(err, errsize, "= \"%.40s\" is not an integer", text);
            return false;
        }
        out->kind = OG_ATTR_INT;
        out->i = v;
        break;
    }
    case CT_INTS: {
        int64_t v[CINN_MAX_LIST];
        uint32_t n = 0;
        for (;;) {
            s = skip_blank(s);
            if (!*s)
                break;
            if (n >= CINN_MAX_LIST) {
                snprintf(err, errsize, "has more than %d values", CINN_MAX_LIST);
                return false;
            }
            if (!read_int(&s, &v[n]) || (*s && !strchr(" \t\r\n", *s))) {
                snprintf(err, errsize, "= \"%.40s\" is not a list of integers", text);
                return false;
            }
            n++;
        }
        out->kind = OG_ATTR_INTS;
        out->n = n;
        int64_t *copy = arena_alloc(arena, n ? n : 1, sizeof *copy);
        if (!copy) {
            snprintf(err, errsize, "out of memory");
            return false;
        }
        memcpy(copy, v, n * sizeof *v);
        out->v = copy;
        break;
    }
    case CT_BOOL: {
        static const char *const yes[] = {"true", "1"}, *const no[] = {"false", "0"};
        out->kind = OG_ATTR_BOOL;
        for (int i = 0; i < 2; i++) {
            size_t ly = strlen(yes[i]), ln = strlen(no[i]);
            if (strncmp(s, yes[i], ly) == 0 && is_blank_end(s + ly)) {
                out->i = 1;
                break;
            }
            if (strncmp(s, no[i], ln) == 0 && is_blank_end(s + ln)) {
                out->i = 0;
                break;
            }
            if (i == 1) {
                snprintf(err, errsize, "= \"%.40s\" is not a boolean (true, false, 1, 0)", text);
                return false;
            }
        }
        break;
    }
    case CT_STR: {
        size_t len = strlen(s);
        while (len && strchr(" \t\r\n", s[len - 1]))
            len--;
        out->kind = OG_ATTR_STR;
        out->s = arena_strndup(arena, s, len);
        if (!out->s) {
            snprintf(err, errsize, "out of memory");
            return false;
        }
        break;
    }
    }
    return cinn_attr_check(spec, out, err, errsize);
}
