/* pbwire.c: a walker over the protobuf wire format that explains, with a byte offset and a
 * field path, why bytes do not decode (protobuf-c's unpack only says that they do not). It is
 * driven by protobuf-c's descriptors, so it knows every message of our schemas. It runs only
 * after a failed unpack, so it favours clear messages over speed. */
#include "taskir/pbio.h"

#include "taskir/pbruns.h"
#include "taskir/pbvarint.h"

#include <protobuf-c/protobuf-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DEPTH = 64 };

typedef struct Walk {
    const uint8_t *base;
    Diag *d;
    char path[512];
} Walk;

static Status fault(Walk *w, const uint8_t *at, const char *rule, const char *fmt,
                    const char *a, unsigned long long x, unsigned long long y)
{
    char where[48], what[1024];
    snprintf(where, sizeof where, "byte %lld", (long long)(at - w->base));
    char msg[256];
    snprintf(msg, sizeof msg, fmt, a, x, y);
    snprintf(what, sizeof what, "%s: %s", w->path, msg);
    return diag_add(w->d, ST_LOGIC, rule, where, "%s", what);
}

/* Reads a varint at *p (< end). 0 on success, 1 truncated, 2 longer than 10 bytes. */
static int varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    uint64_t r = 0;
    for (int i = 0; i < 10; i++) {
        if (*p >= end)
            return 1;
        uint8_t b = *(*p)++;
        r |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *v = r;
            return 0;
        }
    }
    return 2;
}

static int wire_type_of(const ProtobufCFieldDescriptor *f)
{
    switch (f->type) {
    case PROTOBUF_C_TYPE_FIXED32:
    case PROTOBUF_C_TYPE_SFIXED32:
    case PROTOBUF_C_TYPE_FLOAT:
        return 5;
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
        return 1;
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_BYTES:
    case PROTOBUF_C_TYPE_MESSAGE:
        return 2;
    default:
        return 0;
    }
}

static const char *wire_type_name(int wt)
{
    static const char *const names[8] = {"varint", "64-bit", "length-delimited", "start-group",
                                         "end-group", "32-bit", "invalid (6)", "invalid (7)"};
    return names[wt & 7];
}

static Status walk(Walk *w, const ProtobufCMessageDescriptor *desc, const uint8_t *p,
                   const uint8_t *end, int depth)
{
    if (depth > MAX_DEPTH)
        return fault(w, p, "wire.depth", "messages nested deeper than %s%llu levels", "",
                     MAX_DEPTH, 0);
    size_t plen = strlen(w->path);
    while (p < end) {
        const uint8_t *at = p;
        uint64_t tag;
        int r = varint(&p, end, &tag);
        if (r)
            return fault(w, at, r == 1 ? "wire.truncated" : "wire.varint",
                         r == 1 ? "%sfield tag cut off by the end of the data"
                                : "%sfield tag varint longer than 10 bytes",
                         "", 0, 0);
        uint64_t num = tag >> 3;
        int wt = (int)(tag & 7);
        if (num == 0 || num > 536870911u)
            return fault(w, at, "wire.tag", "%sinvalid field number %llu", "", num, 0);
        const ProtobufCFieldDescriptor *f =
            desc ? protobuf_c_message_descriptor_get_field(desc, (unsigned)num) : NULL;
        if (f) {
            snprintf(w->path + plen, sizeof w->path - plen, ".%s", f->name);
            int want = wire_type_of(f);
            bool packed_ok = f->label == PROTOBUF_C_LABEL_REPEATED && want != 2 && wt == 2;
            if (wt != want && !packed_ok) {
                char msg[128];
                snprintf(msg, sizeof msg, "wire type %d (%s) where the schema has %s", wt,
                         wire_type_name(wt), wire_type_name(want));
                return fault(w, at, "wire.wiretype", "%s", msg, 0, 0);
            }
        } else {
            snprintf(w->path + plen, sizeof w->path - plen, ".<field %llu>",
                     (unsigned long long)num);
        }
        switch (wt) {
        case 0: {
            uint64_t v;
            const uint8_t *vat = p;
            r = varint(&p, end, &v);
            if (r)
                return fault(w, vat, r == 1 ? "wire.truncated" : "wire.varint",
                             r == 1 ? "%svarint value cut off by the end of the data"
                                    : "%svarint value longer than 10 bytes",
                             "", 0, 0);
            break;
        }
        case 1:
        case 5: {
            size_t n = wt == 1 ? 8 : 4;
            if ((size_t)(end - p) < n)
                return fault(w, p, "wire.truncated", "%s%llu-byte value cut off by the end of "
                             "the data", "", n, 0);
            p += n;
            break;
        }
        case 2: {
            uint64_t n;
            const uint8_t *lat = p;
            r = varint(&p, end, &n);
            if (r)
                return fault(w, lat, r == 1 ? "wire.truncated" : "wire.varint",
                             r == 1 ? "%slength prefix cut off by the end of the data"
                                    : "%slength prefix longer than 10 bytes",
                             "", 0, 0);
            if (n > (uint64_t)(end - p))
                return fault(w, lat, "wire.length", "%slength prefix %llu runs past the end "
                             "(%llu bytes left)", "", n, (unsigned long long)(end - p));
            const uint8_t *sub_end = p + n;
            if (f && f->type == PROTOBUF_C_TYPE_MESSAGE) {
                Status st = walk(w, f->descriptor, p, sub_end, depth + 1);
                if (st != ST_OK)
                    return st;
            } else if (f && wire_type_of(f) != 2) {
                /* a packed run of scalars */
                const uint8_t *q = p;
                while (q < sub_end) {
                    const uint8_t *eat = q;
                    if (wire_type_of(f) == 0) {
                        uint64_t v;
                        r = varint(&q, sub_end, &v);
                        if (r)
                            return fault(w, eat, r == 1 ? "wire.truncated" : "wire.varint",
                                         r == 1 ? "%spacked varint cut off by the end of its run"
                                                : "%spacked varint longer than 10 bytes",
                                         "", 0, 0);
                    } else {
                        size_t sz = wire_type_of(f) == 1 ? 8 : 4;
                        if ((size_t)(sub_end - q) < sz)
                            return fault(w, eat, "wire.length", "%spacked run of %llu-byte "
                                         "values has a ragged end", "", sz, 0);
                        q += sz;
                    }
                }
            }
            p = sub_end;
            break;
        }
        case 3:
        case 4:
            return fault(w, at, "wire.wiretype", "%sgroup wire types are not used by this "
                         "format", "", 0, 0);
        default:
            return fault(w, at, "wire.wiretype", "%sinvalid wire type %llu", "",
                         (unsigned long long)wt, 0);
        }
        w->path[plen] = '\0';
    }
    return ST_OK;
}

Status pb_wire_explain(const ProtobufCMessageDescriptor *desc, const uint8_t *buf, size_t len,
                       Diag *d)
{
    Walk w = {buf, d, ""};
    snprintf(w.path, sizeof w.path, "%s", desc->short_name);
    return walk(&w, desc, buf, buf + len, 0);
}

/* ---- caps checked before unpacking (pb_wire_precheck) ----
 *
 * protobuf-c allocates a message's structs, arrays and strings as it decodes, before our
 * loader can look at a count: a file of empty sub-messages costs two bytes of input each and
 * a few hundred bytes of memory each. This walk counts what the unpack would allocate (an
 * overestimate) and the entries of the capped repeated fields, on the bytes alone. */

/* protobuf-c scans a message's fields into slabs of 32-byte entries before decoding them:
 * the first 16 on the stack, then heap slabs of 32, 64, 128, ... entries, each allocated
 * whole when the one before is full. */
enum { MAX_CAPS = 32, SCAN_FIRST = 16, SCAN_ENTRY = 32 };

/* The shortest run the first walk notes (shorter ones the second walk counts itself): the
 * notes then take at most 1/16 of the bytes. */
enum { NOTE_MIN = 256 };

typedef struct Pre {
    const uint8_t *base;
    Diag *d;
    const PbFieldCap *caps;
    const ProtobufCFieldDescriptor *cap_field[MAX_CAPS];
    size_t n_caps;
    uint64_t bytes, max_bytes;
    bool stop; /* malformed bytes: left to the unpack, which fails */
    /* A packed varint run of a field without a cap costs at most one value a byte: the first
     * walk takes that bound instead of counting (a pass over every value), and only when the
     * bound passes max_bytes does a second, exact walk decide (redo). The first walk notes
     * those runs, in the order both walks meet them (past the bound too, to the end or to
     * the first finding, which it then leaves to the second walk); they are counted on
     * threads between the walks, and the second walk takes their counts in turn (the runs
     * past the noted ones it counts itself). */
    bool exact, redo;
    PbRun *runs;
    size_t n_runs, cap_runs;
    bool runs_full;     /* out of memory noting them: the later ones are not noted */
    uint64_t *counts;   /* the noted runs' counts (NULL: none) */
    size_t next;        /* the second walk's next noted run */
} Pre;

/* Notes the run [p, p + n) in the first walk. */
static void note_run(Pre *P, const uint8_t *p, size_t n)
{
    if (P->runs_full)
        return;
    if (P->n_runs == P->cap_runs) {
        size_t cap = P->cap_runs ? P->cap_runs * 2 : 64;
        PbRun *r = cap <= SIZE_MAX / sizeof *r ? realloc(P->runs, cap * sizeof *r) : NULL;
        if (!r) {
            P->runs_full = true;
            return;
        }
        P->runs = r;
        P->cap_runs = cap;
    }
    P->runs[P->n_runs++] = (PbRun){p, n};
}

/* The values of the packed varint run [p, p + n) of an uncapped field: the bound (first
 * walk, noting the run), or the exact count. */
static uint64_t uncapped_run(Pre *P, const uint8_t *p, size_t n)
{
    if (!P->exact) {
        if (n >= NOTE_MIN)
            note_run(P, p, n);
        return n;
    }
    if (n >= NOTE_MIN && P->counts && P->next < P->n_runs)
        return P->counts[P->next++];
    return pb_varint_count(p, n);
}

static void cost(Pre *P, uint64_t n)
{
    P->bytes = n > UINT64_MAX - P->bytes ? UINT64_MAX : P->bytes + n;
}

/* The bytes protobuf-c stores one value of a scalar, string or message field in. */
static size_t value_size(const ProtobufCFieldDescriptor *f)
{
    switch (f->type) {
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
        return 8;
    case PROTOBUF_C_TYPE_BYTES:
        return sizeof(ProtobufCBinaryData);
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_MESSAGE:
        return sizeof(void *);
    default:
        return 4;
    }
}

static Status pre_walk(Pre *P, const ProtobufCMessageDescriptor *desc, const uint8_t *p,
                       const uint8_t *end, int depth)
{
    if (depth > MAX_DEPTH) {
        P->stop = true;
        return ST_OK;
    }
    cost(P, desc->sizeof_message);
    uint64_t counts[MAX_CAPS] = {0};
    uint64_t fields = 0, slab_end = SCAN_FIRST;
    while (p < end) {
        const uint8_t *at = p;
        uint64_t tag, v;
        if (varint(&p, end, &tag) || (tag >> 3) == 0 || (tag >> 3) > 536870911u) {
            P->stop = true;
            return ST_OK;
        }
        int wt = (int)(tag & 7);
        const ProtobufCFieldDescriptor *f =
            protobuf_c_message_descriptor_get_field(desc, (unsigned)(tag >> 3));
        const uint8_t *next;
        uint64_t entries = 1;
        if (++fields > slab_end) {
            cost(P, (uint64_t)SCAN_ENTRY * (slab_end + SCAN_FIRST)); /* the next slab */
            slab_end = slab_end * 2 + SCAN_FIRST;
        }
        if (!f)
            cost(P, sizeof(ProtobufCMessageUnknownField));
        switch (wt) {
        case 0:
            if (varint(&p, end, &v)) {
                P->stop = true;
                return ST_OK;
            }
            next = p;
            cost(P, f ? value_size(f) : (uint64_t)(next - at));
            break;
        case 1:
        case 5:
            if ((size_t)(end - p) < (wt == 1 ? 8u : 4u)) {
                P->stop = true;
                return ST_OK;
            }
            next = p + (wt == 1 ? 8 : 4);
            cost(P, f ? value_size(f) : (uint64_t)(next - at));
            break;
        case 2:
            if (varint(&p, end, &v) || v > (uint64_t)(end - p)) {
                P->stop = true;
                return ST_OK;
            }
            next = p + v;
            if (!f || f->type == PROTOBUF_C_TYPE_STRING || f->type == PROTOBUF_C_TYPE_BYTES) {
                cost(P, v + 1 + (f ? value_size(f) : 0));
            } else if (f->type == PROTOBUF_C_TYPE_MESSAGE) {
                cost(P, sizeof(void *));
                Status st = pre_walk(P, f->descriptor, p, next, depth + 1);
                if (st != ST_OK || P->stop)
                    return st;
            } else {
                /* a packed run: count its values */
                bool capped = false;
                for (size_t i = 0; i < P->n_caps; i++)
                    capped |= P->cap_field[i] == f;
                if (wire_type_of(f) == 0) {
                    entries = capped ? pb_varint_count(p, (size_t)v)
                                     : uncapped_run(P, p, (size_t)v);
                } else {
                    entries = v / (wire_type_of(f) == 1 ? 8 : 4);
                }
                cost(P, entries * value_size(f));
            }
            break;
        default:
            P->stop = true;
            return ST_OK;
        }
        for (size_t i = 0; f && i < P->n_caps; i++) {
            if (P->cap_field[i] != f)
                continue;
            counts[i] += entries;
            if (counts[i] > P->caps[i].max && P->redo)
                return ST_LOGIC; /* past the bound: the second walk decides */
            if (counts[i] > P->caps[i].max) {
                char where[48];
                snprintf(where, sizeof where, "byte %lld", (long long)(at - P->base));
                return diag_add(P->d, ST_LOGIC, P->caps[i].rule, where,
                                "%s.%s: more than %llu entries in one %s", desc->short_name,
                                f->name, (unsigned long long)P->caps[i].max,
                                desc->short_name);
            }
        }
        if (P->bytes > P->max_bytes && !P->exact)
            P->redo = true; /* on to note the runs */
        if (P->bytes > P->max_bytes && P->exact) {
            char where[48];
            snprintf(where, sizeof where, "byte %lld", (long long)(at - P->base));
            return diag_add(P->d, ST_LOGIC, "limit.decode", where,
                            "decoding would take more than the %llu-byte limit of memory",
                            (unsigned long long)P->max_bytes);
        }
        p = next;
    }
    return ST_OK;
}

Status pb_wire_precheck(const ProtobufCMessageDescriptor *desc, const uint8_t *buf, size_t len,
                        const PbFieldCap *caps, size_t n_caps, uint64_t max_bytes, Diag *d)
{
    return pb_wire_precheck_threads(desc, buf, len, caps, n_caps, max_bytes, 1, d);
}

Status pb_wire_precheck_threads(const ProtobufCMessageDescriptor *desc, const uint8_t *buf,
                                size_t len, const PbFieldCap *caps, size_t n_caps,
                                uint64_t max_bytes, uint32_t threads, Diag *d)
{
    return pb_wire_precheck_keep(desc, buf, len, caps, n_caps, max_bytes, threads, NULL, d);
}

Status pb_wire_precheck_keep(const ProtobufCMessageDescriptor *desc, const uint8_t *buf,
                             size_t len, const PbFieldCap *caps, size_t n_caps,
                             uint64_t max_bytes, uint32_t threads, PbRunCounts *keep, Diag *d)
{
    if (keep)
        memset(keep, 0, sizeof *keep);
    Pre P;
    memset(&P, 0, sizeof P);
    P.base = buf;
    P.d = d;
    P.caps = caps;
    P.n_caps = n_caps;
    P.max_bytes = max_bytes;
    if (n_caps > MAX_CAPS)
        return diag_add(d, ST_RUNTIME, "internal", NULL, "%zu field caps, more than %d",
                        n_caps, MAX_CAPS);
    for (size_t i = 0; i < n_caps; i++) {
        P.cap_field[i] = protobuf_c_message_descriptor_get_field_by_name(caps[i].msg,
                                                                         caps[i].field);
        if (!P.cap_field[i])
            return diag_add(d, ST_RUNTIME, "internal", NULL, "no field %s in message %s",
                            caps[i].field, caps[i].msg->short_name);
    }
    Status st = pre_walk(&P, desc, buf, buf + len, 0);
    if (P.redo) {
        P.counts = P.n_runs ? malloc(P.n_runs * sizeof *P.counts) : NULL;
        if (P.counts && !pb_runs_count(P.runs, P.n_runs, threads, P.counts, keep)) {
            free(P.counts); /* out of memory: the walk counts them */
            P.counts = NULL;
        }
        P.bytes = 0;
        P.stop = P.redo = false;
        P.exact = true;
        st = pre_walk(&P, desc, buf, buf + len, 0);
    }
    free(P.runs);
    free(P.counts);
    /* Malformed bytes: protobuf-c is laxer in places (it wraps a field number past 2^29 - 1
     * into 32 bits), so the count above may have stopped short of what it would decode:
     * refuse them here, as pb_wire_explain names them. */
    if (st == ST_OK && P.stop)
        st = pb_wire_explain(desc, buf, len, d);
    return st;
}

/* ---- skipping what a protobuf parser skips (pb_wire_strip) ----
 *
 * protobuf's own parsers skip any field they cannot read as the schema says: an unknown field
 * of any wire type, groups included, and a known field number that arrives with another wire
 * type. protobuf-c refuses groups and mismatched wire types, so the fields are cut out of a
 * copy of the bytes first, and the length prefixes of the messages around them rewritten.
 * strip_msg returns the size the message [p, end) has without them (writing it to out when
 * out is not NULL), or -1 when the bytes are malformed (they are then left to the checks). */

static size_t varint_len(uint64_t v)
{
    size_t n = 1;
    while (v > 0x7f) {
        v >>= 7;
        n++;
    }
    return n;
}

static uint8_t *put_varint(uint8_t *out, uint64_t v)
{
    do {
        *out++ = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return out;
}

/* Moves *p past the rest of a group opened by field num (its fields and its end tag). */
static bool skip_group(const uint8_t **p, const uint8_t *end, uint64_t num, int depth)
{
    if (depth > MAX_DEPTH)
        return false;
    while (*p < end) {
        uint64_t tag, v;
        if (varint(p, end, &tag))
            return false;
        switch (tag & 7) {
        case 0:
            if (varint(p, end, &v))
                return false;
            break;
        case 1:
        case 5:
            if ((size_t)(end - *p) < ((tag & 7) == 1 ? 8u : 4u))
                return false;
            *p += (tag & 7) == 1 ? 8 : 4;
            break;
        case 2:
            if (varint(p, end, &v) || v > (uint64_t)(end - *p))
                return false;
            *p += v;
            break;
        case 3:
            if (!skip_group(p, end, tag >> 3, depth + 1))
                return false;
            break;
        case 4:
            return (tag >> 3) == num;
        default:
            return false;
        }
    }
    return false;
}

/* The fields that pb_wire_lift lifts out, and the runs it found (writing pass only). */
typedef struct Lift {
    const ProtobufCFieldDescriptor *const *fields;
    size_t n_fields;
    PbRun *runs;
    size_t n_runs, cap_runs;
    bool oom;
} Lift;

/* The bytes of a marker: the field's tag as a packed run, the length 5, then the run's index
 * as a five-byte varint (a fixed width, so that sizing needs no index). */
enum { MARK_BYTES = 6 };

static bool lifted(const Lift *L, const ProtobufCFieldDescriptor *f)
{
    for (size_t i = 0; L && f && i < L->n_fields; i++)
        if (L->fields[i] == f)
            return true;
    return false;
}

/* Writes the marker of the next run [body, end) of field f at out; NULL when out of memory
 * or past the index range. */
static uint8_t *lift_run(Lift *L, const ProtobufCFieldDescriptor *f, const uint8_t *body,
                         const uint8_t *end, uint8_t *out)
{
    if (L->n_runs == L->cap_runs) {
        size_t cap = L->cap_runs ? L->cap_runs * 2 : 256;
        PbRun *r = cap < (size_t)INT32_MAX ? realloc(L->runs, cap * sizeof *r) : NULL;
        if (!r) {
            L->oom = true;
            return NULL;
        }
        L->runs = r;
        L->cap_runs = cap;
    }
    uint32_t idx = (uint32_t)L->n_runs;
    L->runs[L->n_runs++] = (PbRun){body, (size_t)(end - body)};
    out = put_varint(out, (uint64_t)f->id << 3 | 2);
    *out++ = MARK_BYTES - 1;
    for (int i = 0; i < 4; i++)
        *out++ = (uint8_t)((idx >> (7 * i) & 0x7f) | 0x80);
    *out++ = (uint8_t)(idx >> 28);
    return out;
}

static int64_t strip_msg(Lift *L, const ProtobufCMessageDescriptor *desc, const uint8_t *p,
                         const uint8_t *end, int depth, uint8_t *out)
{
    if (depth > MAX_DEPTH)
        return -1;
    int64_t size = 0;
    while (p < end) {
        const uint8_t *at = p;
        uint64_t tag, v;
        if (varint(&p, end, &tag) || (tag >> 3) == 0 || (tag >> 3) > 536870911u)
            return -1;
        int wt = (int)(tag & 7);
        const ProtobufCFieldDescriptor *f =
            protobuf_c_message_descriptor_get_field(desc, (unsigned)(tag >> 3));
        bool keep = true;
        if (f) {
            int want = wire_type_of(f);
            keep = wt == want || (f->label == PROTOBUF_C_LABEL_REPEATED && want != 2 && wt == 2);
        }
        const uint8_t *body = p;
        switch (wt) {
        case 0:
            if (varint(&p, end, &v))
                return -1;
            break;
        case 1:
        case 5:
            if ((size_t)(end - p) < (wt == 1 ? 8u : 4u))
                return -1;
            p += wt == 1 ? 8 : 4;
            break;
        case 2:
            if (varint(&p, end, &v) || v > (uint64_t)(end - p))
                return -1;
            body = p;
            p += v;
            break;
        case 3:
            if (!skip_group(&p, end, tag >> 3, depth + 1))
                return -1;
            keep = false;
            break;
        default: /* an end-group tag outside a group, or wire type 6 or 7 */
            return -1;
        }
        if (!keep)
            continue;
        if (lifted(L, f)) {
            size_t head = varint_len((uint64_t)f->id << 3 | 2);
            if (out && lift_run(L, f, body, p, out + size) != out + size + head + MARK_BYTES)
                return -1;
            size += (int64_t)(head + MARK_BYTES);
        } else if (wt == 2 && f && f->type == PROTOBUF_C_TYPE_MESSAGE) {
            int64_t n = strip_msg(L, f->descriptor, body, p, depth + 1, NULL);
            if (n < 0)
                return -1;
            size_t head = varint_len(tag) + varint_len((uint64_t)n);
            if (out) {
                uint8_t *q = put_varint(put_varint(out + size, tag), (uint64_t)n);
                if (strip_msg(L, f->descriptor, body, p, depth + 1, q) != n)
                    return -1;
            }
            size += (int64_t)head + n;
        } else {
            if (out)
                memcpy(out + size, at, (size_t)(p - at));
            size += p - at;
        }
    }
    return size;
}

Status pb_wire_strip(const ProtobufCMessageDescriptor *desc, const uint8_t *buf, size_t len,
                     uint8_t **out, size_t *out_len, Diag *d)
{
    *out = NULL;
    *out_len = 0;
    int64_t n = strip_msg(NULL, desc, buf, buf + len, 0, NULL);
    if (n < 0 || (uint64_t)n == len)
        return ST_OK;
    uint8_t *copy = malloc(n ? (size_t)n : 1);
    if (!copy)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory skipping unknown fields");
    if (strip_msg(NULL, desc, buf, buf + len, 0, copy) != n) {
        free(copy);
        return diag_add(d, ST_RUNTIME, "internal", NULL, "skipping unknown fields went wrong");
    }
    *out = copy;
    *out_len = (size_t)n;
    return ST_OK;
}

Status pb_wire_lift(const ProtobufCMessageDescriptor *desc, const uint8_t *buf, size_t len,
                    const struct ProtobufCFieldDescriptor *const *fields, size_t n_fields,
                    uint8_t **out, size_t *out_len, PbRun **runs, size_t *n_runs, Diag *d)
{
    *out = NULL;
    *out_len = 0;
    *runs = NULL;
    *n_runs = 0;
    for (size_t i = 0; i < n_fields; i++)
        if (fields[i]->label != PROTOBUF_C_LABEL_REPEATED ||
            (fields[i]->type != PROTOBUF_C_TYPE_INT32 && fields[i]->type != PROTOBUF_C_TYPE_UINT32))
            return diag_add(d, ST_RUNTIME, "internal", NULL,
                            "field %s is not a repeated int32 or uint32", fields[i]->name);
    Lift L = {fields, n_fields, NULL, 0, 0, false};
    int64_t n = strip_msg(&L, desc, buf, buf + len, 0, NULL);
    if (n < 0)
        return ST_OK;
    uint8_t *copy = malloc(n ? (size_t)n : 1);
    if (!copy)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory lifting the tensor values");
    if (strip_msg(&L, desc, buf, buf + len, 0, copy) != n || L.n_runs == 0) {
        free(copy);
        free(L.runs);
        if (L.oom)
            return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory lifting the tensor values");
        return ST_OK;
    }
    *out = copy;
    *out_len = (size_t)n;
    *runs = L.runs;
    *n_runs = L.n_runs;
    return ST_OK;
}
