/* asm_text_read.c: protobuf text format into a protobuf-c message (asm_text_read.h). A
 * recursive-descent reader over the message's descriptor: each field is found by name and
 * set through its offset in the C struct, so the result is what protobuf-c's unpack would
 * give (and protobuf_c_message_free_unpacked frees it). The message is consistent after every
 * step, so an error part way frees cleanly. */
#include "backend/asm_text_read.h"

#include "backend/pbc_field.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

typedef struct Lex {
    const char *p, *end;
    long line;
    int depth;
    Diag *d;
} Lex;

__attribute__((format(printf, 2, 3)))
static Status bad(Lex *L, const char *fmt, ...)
{
    char where[32];
    snprintf(where, sizeof where, "line %ld", L->line);
    va_list ap;
    va_start(ap, fmt);
    Status st = diag_vadd(L->d, ST_LOGIC, "prog.text.parse", strdup(where), false, 0, false, 0,
                          fmt, ap);
    va_end(ap);
    return st;
}

static Status oom(Lex *L)
{
    return diag_add(L->d, ST_RUNTIME, "oom", NULL, "out of memory reading the text form");
}

static void skip_ws(Lex *L)
{
    while (L->p < L->end) {
        char c = *L->p;
        if (c == '\n') {
            L->line++;
            L->p++;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            L->p++;
        } else if (c == '#') {
            while (L->p < L->end && *L->p != '\n')
                L->p++;
        } else {
            break;
        }
    }
}

static bool is_ident(char c, bool first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           (!first && ((c >= '0' && c <= '9')));
}

/* An identifier (or a number token: [-+.0-9A-Za-z_]) into buf; false when there is none or
 * it is longer than n - 1. */
static bool token(Lex *L, char *buf, size_t n, bool number)
{
    size_t k = 0;
    while (L->p + k < L->end &&
           (number ? (is_ident(L->p[k], false) || L->p[k] == '-' || L->p[k] == '+' ||
                      L->p[k] == '.')
                   : is_ident(L->p[k], k == 0)))
        k++;
    if (k == 0 || k >= n)
        return false;
    memcpy(buf, L->p, k);
    buf[k] = '\0';
    L->p += k;
    return true;
}

/* An integer token in [lo, hi] (hi as unsigned when lo is 0). */
static Status integer(Lex *L, const ProtobufCFieldDescriptor *f, int64_t lo, uint64_t hi,
                      uint64_t *mag, bool *neg)
{
    char tok[80];
    if (!token(L, tok, sizeof tok, true))
        return bad(L, "field '%s': expected a number", f->name);
    const char *s = tok;
    *neg = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    char *end;
    errno = 0;
    *mag = *s >= '0' && *s <= '9' ? strtoull(s, &end, 0) : 0;
    if (!(*s >= '0' && *s <= '9') || *end || errno)
        return bad(L, "field '%s': '%s' is not an integer", f->name, tok);
    if (*neg ? (lo == 0 && *mag) || *mag > (uint64_t)(-(lo + 1)) + 1 : *mag > hi)
        return bad(L, "field '%s': %s is outside its type's range", f->name, tok);
    return ST_OK;
}

/* One quoted string (or several adjacent ones) into a malloc'd buffer. */
static Status string_value(Lex *L, const ProtobufCFieldDescriptor *f, char **out, size_t *n)
{
    size_t cap = 16, len = 0;
    char *b = malloc(cap);
    if (!b)
        return oom(L);
    bool any = false;
    for (;;) {
        skip_ws(L);
        if (L->p >= L->end || (*L->p != '"' && *L->p != '\''))
            break;
        any = true;
        char q = *L->p++;
        while (L->p < L->end && *L->p != q) {
            char c = *L->p++;
            if (c == '\n') {
                free(b);
                return bad(L, "field '%s': a string runs to the end of its line", f->name);
            }
            if (c == '\\' && L->p < L->end) {
                char e = *L->p++;
                static const char from[] = "ntrabfv\\'\"?", to[] = "\n\t\r\a\b\f\v\\'\"?";
                const char *k = strchr(from, e);
                if (e && k) {
                    c = to[k - from];
                } else if (e >= '0' && e <= '7') {
                    int v = e - '0';
                    for (int i = 0; i < 2 && L->p < L->end && *L->p >= '0' && *L->p <= '7'; i++)
                        v = v * 8 + (*L->p++ - '0');
                    c = (char)(unsigned char)v;
                } else if (e == 'x') {
                    int v = 0, i = 0;
                    for (; i < 2 && L->p < L->end && strchr("0123456789abcdefABCDEF", *L->p) &&
                           *L->p; i++) {
                        char h = *L->p++;
                        v = v * 16 + (h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
                    }
                    if (!i) {
                        free(b);
                        return bad(L, "field '%s': \\x without hex digits", f->name);
                    }
                    c = (char)(unsigned char)v;
                } else {
                    free(b);
                    return bad(L, "field '%s': unknown escape '\\%c'", f->name, e ? e : '0');
                }
            }
            if (len + 2 > cap) {
                char *nb = realloc(b, cap *= 2);
                if (!nb) {
                    free(b);
                    return oom(L);
                }
                b = nb;
            }
            b[len++] = c;
        }
        if (L->p >= L->end) {
            free(b);
            return bad(L, "field '%s': a string is not closed", f->name);
        }
        L->p++;
    }
    if (!any) {
        free(b);
        return bad(L, "field '%s': expected a quoted string", f->name);
    }
    b[len] = '\0';
    *out = b;
    *n = len;
    return ST_OK;
}

static Status parse_message(Lex *L, ProtobufCMessage *m, char close);

/* One value of field f into the storage at p (an element or the optional member). */
static Status value(Lex *L, const ProtobufCFieldDescriptor *f, void *p)
{
    uint64_t mag;
    bool neg;
    Status st;
    char tok[80];
    switch (f->type) {
    case PROTOBUF_C_TYPE_INT32: case PROTOBUF_C_TYPE_SINT32: case PROTOBUF_C_TYPE_SFIXED32:
        if (!(st = integer(L, f, INT32_MIN, INT32_MAX, &mag, &neg)))
            *(int32_t *)p = neg ? (int32_t)(-(int64_t)mag) : (int32_t)mag;
        return st;
    case PROTOBUF_C_TYPE_UINT32: case PROTOBUF_C_TYPE_FIXED32:
        if (!(st = integer(L, f, 0, UINT32_MAX, &mag, &neg)))
            *(uint32_t *)p = (uint32_t)mag;
        return st;
    case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64: case PROTOBUF_C_TYPE_SFIXED64:
        if (!(st = integer(L, f, INT64_MIN, INT64_MAX, &mag, &neg)))
            *(int64_t *)p = neg ? (mag == (uint64_t)1 << 63 ? INT64_MIN : -(int64_t)mag)
                                : (int64_t)mag;
        return st;
    case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_FIXED64:
        if (!(st = integer(L, f, 0, UINT64_MAX, &mag, &neg)))
            *(uint64_t *)p = mag;
        return st;
    case PROTOBUF_C_TYPE_FLOAT: case PROTOBUF_C_TYPE_DOUBLE: {
        char *end;
        if (!token(L, tok, sizeof tok, true))
            return bad(L, "field '%s': expected a number", f->name);
        double v = strtod(tok, &end);
        if (*end && !(*end == 'f' && !end[1]))
            return bad(L, "field '%s': '%s' is not a number", f->name, tok);
        if (f->type == PROTOBUF_C_TYPE_FLOAT)
            *(float *)p = (float)v;
        else
            *(double *)p = v;
        return ST_OK;
    }
    case PROTOBUF_C_TYPE_BOOL: {
        static const char *const yes[] = {"true", "True", "t", "1"}, *const no[] = {"false",
                                                                                  "False", "f",
                                                                                  "0"};
        if (!token(L, tok, sizeof tok, true))
            return bad(L, "field '%s': expected true or false", f->name);
        for (int i = 0; i < 4; i++)
            if (strcmp(tok, yes[i]) == 0 || strcmp(tok, no[i]) == 0) {
                *(protobuf_c_boolean *)p = strcmp(tok, yes[i]) == 0;
                return ST_OK;
            }
        return bad(L, "field '%s': '%s' is not true or false", f->name, tok);
    }
    case PROTOBUF_C_TYPE_ENUM: {
        const ProtobufCEnumDescriptor *e = f->descriptor;
        const ProtobufCEnumValue *v = NULL;
        if (L->p < L->end && is_ident(*L->p, true)) {
            if (!token(L, tok, sizeof tok, false))
                return bad(L, "field '%s': an enum name too long", f->name);
            v = protobuf_c_enum_descriptor_get_value_by_name(e, tok);
        } else {
            if ((st = integer(L, f, INT32_MIN, INT32_MAX, &mag, &neg)))
                return st;
            v = protobuf_c_enum_descriptor_get_value(e, neg ? (int)(-(int64_t)mag) : (int)mag);
            snprintf(tok, sizeof tok, "%s%llu", neg ? "-" : "", (unsigned long long)mag);
        }
        if (!v)
            return bad(L, "field '%s': %s is not a value of %s", f->name, tok, e->name);
        *(int *)p = v->value;
        return ST_OK;
    }
    case PROTOBUF_C_TYPE_STRING: case PROTOBUF_C_TYPE_BYTES: {
        char *s = NULL;
        size_t n = 0;
        if ((st = string_value(L, f, &s, &n)))
            return st;
        if (f->type == PROTOBUF_C_TYPE_BYTES) {
            ((ProtobufCBinaryData *)p)->data = (uint8_t *)s;
            ((ProtobufCBinaryData *)p)->len = n;
        } else if (strlen(s) != n) {
            free(s);
            return bad(L, "field '%s': a string with a NUL byte", f->name);
        } else {
            *(char **)p = s;
        }
        return ST_OK;
    }
    case PROTOBUF_C_TYPE_MESSAGE: {
        const ProtobufCMessageDescriptor *md = f->descriptor;
        if (L->p >= L->end || (*L->p != '{' && *L->p != '<'))
            return bad(L, "field '%s': expected '{'", f->name);
        char close = *L->p++ == '{' ? '}' : '>';
        ProtobufCMessage *sub = malloc(md->sizeof_message);
        if (!sub)
            return oom(L);
        protobuf_c_message_init(md, sub);
        *(ProtobufCMessage **)p = sub;   /* owned by the parent from now on */
        if (++L->depth > MAX_DEPTH)
            return bad(L, "messages nested deeper than %d", MAX_DEPTH);
        st = parse_message(L, sub, close);
        L->depth--;
        return st;
    }
    default:
        return bad(L, "field '%s': its type is not read", f->name);
    }
}

/* Appends one value to repeated field f of m. */
static Status append(Lex *L, ProtobufCMessage *m, const ProtobufCFieldDescriptor *f)
{
    size_t *n = (size_t *)((char *)m + f->quantifier_offset);
    void **arr = (void **)((char *)m + f->offset);
    size_t sz = pbc_elem_size(f->type);
    if (*n == 0 || (*n & (*n - 1)) == 0) {  /* capacity: the next power of two */
        size_t cap = *n ? 2 * *n : 1;
        if (cap > SIZE_MAX / sz)
            return oom(L);
        void *na = realloc(*arr, cap * sz);
        if (!na)
            return oom(L);
        *arr = na;
    }
    char *slot = (char *)*arr + *n * sz;
    memset(slot, 0, sz);
    if (f->type == PROTOBUF_C_TYPE_MESSAGE || f->type == PROTOBUF_C_TYPE_STRING ||
        f->type == PROTOBUF_C_TYPE_BYTES) {
        (*n)++;   /* a pointer (or NULL data) the free can take even if the value fails */
        return value(L, f, slot);
    }
    Status st = value(L, f, slot);
    if (!st)
        (*n)++;
    return st;
}

/* One value of non-repeated field f of m. */
static Status set_once(Lex *L, ProtobufCMessage *m, const ProtobufCFieldDescriptor *f)
{
    char *base = (char *)m;
    bool ptr = f->type == PROTOBUF_C_TYPE_MESSAGE || f->type == PROTOBUF_C_TYPE_STRING;
    void *now = ptr ? *(void **)(base + f->offset) : NULL;
    bool given = ptr ? now != NULL && now != f->default_value
                     : *(protobuf_c_boolean *)(base + f->quantifier_offset);
    if (given)
        return bad(L, "field '%s' is given twice", f->name);
    Status st = value(L, f, base + f->offset);
    if (!ptr && !st)
        *(protobuf_c_boolean *)(base + f->quantifier_offset) = 1;
    return st;
}

/* Fields until close ('}' or '>'), or to the end for the top message (close 0). */
static Status parse_message(Lex *L, ProtobufCMessage *m, char close)
{
    const ProtobufCMessageDescriptor *desc = m->descriptor;
    for (;;) {
        skip_ws(L);
        if (L->p >= L->end)
            return close ? bad(L, "a message is not closed: expected '%c'", close) : ST_OK;
        if (close && *L->p == close) {
            L->p++;
            return ST_OK;
        }
        char name[128];
        if (!token(L, name, sizeof name, false))
            return bad(L, "expected a field name of %s, not '%c'", desc->name, *L->p);
        const ProtobufCFieldDescriptor *f =
            protobuf_c_message_descriptor_get_field_by_name(desc, name);
        if (!f)
            return bad(L, "%s has no field '%s'", desc->name, name);
        skip_ws(L);
        bool colon = L->p < L->end && *L->p == ':';
        if (colon) {
            L->p++;
            skip_ws(L);
        }
        if (!colon && f->type != PROTOBUF_C_TYPE_MESSAGE)
            return bad(L, "field '%s': expected ':'", name);
        bool repeated = f->label == PROTOBUF_C_LABEL_REPEATED;
        Status st;
        if (L->p < L->end && *L->p == '[') {
            if (!repeated)
                return bad(L, "field '%s' is not repeated: no list", name);
            L->p++;
            skip_ws(L);
            bool first = true;
            while (L->p < L->end && *L->p != ']') {
                if (!first) {
                    if (*L->p != ',')
                        return bad(L, "field '%s': expected ',' or ']'", name);
                    L->p++;
                    skip_ws(L);
                }
                if ((st = append(L, m, f)))
                    return st;
                skip_ws(L);
                first = false;
            }
            if (L->p >= L->end)
                return bad(L, "field '%s': a list is not closed", name);
            L->p++;
        } else if ((st = repeated ? append(L, m, f) : set_once(L, m, f))) {
            return st;
        }
        skip_ws(L);
        if (L->p < L->end && (*L->p == ',' || *L->p == ';'))
            L->p++;
    }
}

Status asm_text_read(const ProtobufCMessageDescriptor *desc, const char *text, size_t len,
                     ProtobufCMessage **out, Diag *d)
{
    Lex L = {text, text + len, 1, 0, d};
    *out = malloc(desc->sizeof_message);
    if (!*out)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory reading the text form");
    protobuf_c_message_init(desc, *out);
    Status st = parse_message(&L, *out, 0);
    if (st) {
        protobuf_c_message_free_unpacked(*out, NULL);
        *out = NULL;
    }
    return st;
}
