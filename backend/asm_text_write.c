/* asm_text_write.c: protobuf text format from a message's descriptor (asm_text.h). */
#include "backend/asm_text.h"

#include "backend/pbc_field.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct TextBuf {
    char *p;
    size_t n, cap;
    bool oom;
} TextBuf;

static void put(TextBuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (n + 1 > b->cap - b->n) {
        size_t cap = b->cap ? b->cap : 4096;
        while (n + 1 > cap - b->n) {
            if (cap > SIZE_MAX / 2) {
                b->oom = true;
                return;
            }
            cap *= 2;
        }
        char *np = realloc(b->p, cap);
        if (!np) {
            b->oom = true;
            return;
        }
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

static void putf(TextBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(TextBuf *b, const char *fmt, ...)
{
    char tmp[64];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (k > 0)
        put(b, tmp, (size_t)k < sizeof tmp ? (size_t)k : sizeof tmp - 1);
}

static void indent(TextBuf *b, int depth)
{
    for (int i = 0; i < depth; i++)
        put(b, "  ", 2);
}

/* A string or bytes value in double quotes, escaped as protoc's CEscape does. */
static void put_quoted(TextBuf *b, const uint8_t *s, size_t n)
{
    put(b, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        switch (c) {
        case '\n': put(b, "\\n", 2); break;
        case '\r': put(b, "\\r", 2); break;
        case '\t': put(b, "\\t", 2); break;
        case '"': put(b, "\\\"", 2); break;
        case '\'': put(b, "\\'", 2); break;
        case '\\': put(b, "\\\\", 2); break;
        default:
            if (c < 0x20 || c >= 0x7F)
                putf(b, "\\%03o", c);
            else
                put(b, (const char *)&c, 1);
        }
    }
    put(b, "\"", 1);
}

static void put_message(TextBuf *b, const ProtobufCMessage *m, int depth);

/* One value of field f stored at v. */
static void put_value(TextBuf *b, const ProtobufCFieldDescriptor *f, const void *v, int depth)
{
    switch (f->type) {
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_SFIXED32:
        putf(b, "%" PRId32, *(const int32_t *)v);
        break;
    case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_FIXED32:
        putf(b, "%" PRIu32, *(const uint32_t *)v);
        break;
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
        putf(b, "%" PRId64, *(const int64_t *)v);
        break;
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
        putf(b, "%" PRIu64, *(const uint64_t *)v);
        break;
    case PROTOBUF_C_TYPE_FLOAT:
        putf(b, "%.9g", (double)*(const float *)v);
        break;
    case PROTOBUF_C_TYPE_DOUBLE:
        putf(b, "%.17g", *(const double *)v);
        break;
    case PROTOBUF_C_TYPE_BOOL:
        put(b, *(const protobuf_c_boolean *)v ? "true" : "false",
            *(const protobuf_c_boolean *)v ? 4 : 5);
        break;
    case PROTOBUF_C_TYPE_ENUM: {
        int32_t e = *(const int32_t *)v;
        const ProtobufCEnumValue *ev =
            protobuf_c_enum_descriptor_get_value(f->descriptor, e);
        if (ev)
            put(b, ev->name, strlen(ev->name));
        else
            putf(b, "%" PRId32, e);
        break;
    }
    case PROTOBUF_C_TYPE_STRING: {
        const char *s = *(char *const *)v;
        put_quoted(b, (const uint8_t *)s, strlen(s));
        break;
    }
    case PROTOBUF_C_TYPE_BYTES: {
        const ProtobufCBinaryData *bd = v;
        put_quoted(b, bd->data, bd->len);
        break;
    }
    case PROTOBUF_C_TYPE_MESSAGE:
        put(b, "{\n", 2);
        put_message(b, *(ProtobufCMessage *const *)v, depth + 1);
        indent(b, depth);
        put(b, "}", 1);
        break;
    }
}

static void put_field(TextBuf *b, const ProtobufCMessage *m, const ProtobufCFieldDescriptor *f,
                      int depth)
{
    const char *base = (const char *)m;
    const void *v = base + f->offset;
    size_t count = 1;
    if (f->label == PROTOBUF_C_LABEL_REPEATED) {
        count = *(const size_t *)(base + f->quantifier_offset);
        v = *(void *const *)v;
    } else if (f->type == PROTOBUF_C_TYPE_MESSAGE || f->type == PROTOBUF_C_TYPE_STRING) {
        const void *p = *(void *const *)v;
        if (!p || (f->label != PROTOBUF_C_LABEL_REQUIRED && p == f->default_value))
            return;
    } else if (f->label == PROTOBUF_C_LABEL_OPTIONAL) {
        if (!*(const protobuf_c_boolean *)(base + f->quantifier_offset))
            return;
    } else if (f->label == PROTOBUF_C_LABEL_NONE) {
        return; /* proto3 implicit presence: not in our schemas */
    }
    size_t es = pbc_elem_size(f->type);
    for (size_t i = 0; i < count; i++) {
        indent(b, depth);
        put(b, f->name, strlen(f->name));
        put(b, f->type == PROTOBUF_C_TYPE_MESSAGE ? " " : ": ",
            f->type == PROTOBUF_C_TYPE_MESSAGE ? 1 : 2);
        put_value(b, f, (const char *)v + i * es, depth);
        put(b, "\n", 1);
    }
}

static void put_message(TextBuf *b, const ProtobufCMessage *m, int depth)
{
    const ProtobufCMessageDescriptor *d = m->descriptor;
    /* protoc-c lists a message's fields in field-number order */
    for (unsigned i = 0; i < d->n_fields; i++)
        put_field(b, m, &d->fields[i], depth);
}

bool asm_text_write(const ProtobufCMessage *m, char **buf, size_t *len)
{
    TextBuf b = {0};
    put(&b, "", 0);
    put_message(&b, m, 0);
    if (b.oom) {
        free(b.p);
        return false;
    }
    *buf = b.p;
    *len = b.n;
    return true;
}
