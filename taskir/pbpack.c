/* pbpack.c: see pbpack.h.
 *
 * The int32 encoder: a varint of the value's 64-bit two's complement (1..5 bytes for 0..2^31-1,
 * always 10 for a negative value). Values in -128..127 (int8 weights, nearly everything a
 * TaskGraph holds) come from a 256-entry table of 16-byte records (the encoding, then its
 * length in byte 15) that is copied whole and advanced by the length, so the loop has no
 * data-dependent branch; the bytes past the length are scratch, overwritten by the next value,
 * and the buffer keeps 16 bytes of slack for the last one. A payload is built behind a 5-byte
 * gap and its length prefix written into the end of the gap, so nothing moves afterwards.
 */
#include "taskir/pbpack.h"

#include <stdlib.h>
#include <string.h>

enum {
    PREFIX_GAP = 5,             /* the longest varint of a 32-bit length */
    SLACK = 16,                 /* scratch bytes behind the last value (the table records) */
    CHUNK = 64 * 1024,          /* the copies of small pieces go into chunks of this size */
    REF_MIN = 1024,             /* a deferred payload of this many bytes is kept by reference */
    KEEP_BUCKETS = 1 << 14      /* hash buckets of the shared payloads */
};

/* The most bytes of shared payloads kept at once: the later copies of a payload past it are
 * encoded again. */
#define KEEP_BUDGET ((size_t)64 << 20)

typedef struct Owned {
    struct Owned *next;
    size_t cap;
    max_align_t data[];
} Owned;

/* A shared payload (pb_pack_expect): its deferred fields' unknown-field list and bytes, in
 * one block (fields[] then the bytes), kept across resets until its last use. */
typedef struct Kept {
    struct Kept *next;          /* in its hash bucket */
    PbKey key;
    uint32_t uses;              /* deferrals still to come */
    unsigned n_fields;
    size_t bytes;               /* the block's size, counted against KEEP_BUDGET */
    Owned *block;               /* fields[] then the bytes; NULL until the first encoding */
    ProtobufCMessageUnknownField *fields;
} Kept;

typedef struct Ref {
    const uint8_t *data;
    size_t len;
} Ref;

struct PbPack {
    ProtobufCBuffer sink;       /* first member: the append callback gets the packer */
    uint8_t small[256][16];     /* the encodings of -128..127, length in byte 15 */
    Owned *owned;               /* every allocation since the last reset */
    Owned *spare;               /* the allocations before it, for reuse */
    Ref *refs;                  /* the deferred payloads, in the order they were made */
    size_t n_refs, cap_refs, next_ref;
    struct iovec *iov;          /* the pieces */
    size_t n_iov, cap_iov, total;
    uint8_t *chunk;             /* the chunk small pieces are copied into */
    size_t chunk_used, chunk_cap;
    bool oom;
    Kept **kept;                /* KEEP_BUCKETS buckets of shared payloads, or NULL */
    size_t kept_bytes;
    Owned *dead;                /* blocks of payloads used for the last time: freed at reset,
                                   once the part that references them is written */
};

/* ---- varints ---- */

static size_t put_u64(uint64_t v, uint8_t *out)
{
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

/* The 64-bit sign extension: how int32 and enum values go on the wire. */
static uint64_t sext(int32_t v)
{
    return (uint64_t)(int64_t)v;
}

static uint8_t *put_i32s(const PbPack *p, const int32_t *v, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t k = (uint32_t)v[i] + 128u;
        if (k < 256u) {
            memcpy(out, p->small[k], 16);
            out += p->small[k][15];
        } else {
            out += put_u64(sext(v[i]), out);
        }
    }
    return out;
}

/* put_i32s of int8 values: every one from the table. */
static uint8_t *put_i8s(const PbPack *p, const int8_t *v, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t k = (uint32_t)((int32_t)v[i] + 128);
        memcpy(out, p->small[k], 16);
        out += p->small[k][15];
    }
    return out;
}

static uint8_t *put_u32s(const uint32_t *v, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++)
        out += put_u64(v[i], out);
    return out;
}

static uint8_t *put_s32s(const int32_t *v, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t u = (uint32_t)v[i];
        uint32_t zz = (u << 1) ^ (v[i] < 0 ? 0xFFFFFFFFu : 0u); /* zigzag */
        out += put_u64(zz, out);
    }
    return out;
}

/* ---- ownership ---- */

static void free_list(Owned *o)
{
    for (Owned *n; o; o = n) {
        n = o->next;
        free(o);
    }
}

/* size bytes owned by p until the next reset: the smallest spare block that is large enough,
 * else a new one. Reusing blocks keeps the memory a packer touches to what one part of a
 * message needs (pages already faulted in), however many parts are packed one by one. */
static void *own(PbPack *p, size_t size)
{
    Owned **best = NULL;
    for (Owned **o = &p->spare; *o; o = &(*o)->next)
        if ((*o)->cap >= size && (!best || (*o)->cap < (*best)->cap))
            best = o;
    Owned *b;
    if (best) {
        b = *best;
        *best = b->next;
    } else {
        if (size > SIZE_MAX - sizeof(Owned))
            return NULL;
        if (!(b = malloc(sizeof(Owned) + size)))
            return NULL;
        b->cap = size;
    }
    b->next = p->owned;
    p->owned = b;
    return b->data;
}

PbPack *pb_pack_create(void)
{
    PbPack *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    for (int v = -128; v < 128; v++) {
        uint8_t *r = p->small[v + 128];
        r[15] = (uint8_t)put_u64(sext(v), r);
    }
    return p;
}

static void kept_free(PbPack *p)
{
    for (size_t i = 0; p->kept && i < KEEP_BUCKETS; i++)
        for (Kept *k = p->kept[i], *n; k; k = n) {
            n = k->next;
            free(k->block);
            free(k);
        }
    free(p->kept);
}

void pb_pack_destroy(PbPack *p)
{
    if (!p)
        return;
    kept_free(p);
    free_list(p->dead);
    free_list(p->owned);
    free_list(p->spare);
    free(p->refs);
    free(p->iov);
    free(p);
}

/* ---- deferring fields ---- */

/* Where a field's count / has flag and value live in a message. */
static const void *member(const ProtobufCMessage *m, unsigned off)
{
    return (const char *)m + off;
}

/* Whether field f of m is present (would be written), and the bound of its payload; false
 * when it is present and of a kind not handled here. */
static bool field_bound(const ProtobufCMessage *m, const ProtobufCFieldDescriptor *f,
                        const PbNarrowField *nw, bool *present, size_t *bound)
{
    if (nw && f->id == nw->field) {
        *present = nw->n > 0;
        *bound = 10 * nw->n; /* nw->n < 2^32 */
        return f->label == PROTOBUF_C_LABEL_REPEATED && f->type == PROTOBUF_C_TYPE_INT32 &&
               (f->flags & PROTOBUF_C_FIELD_FLAG_PACKED);
    }
    *present = false;
    *bound = 0;
    if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
        return false;
    if (f->label == PROTOBUF_C_LABEL_REPEATED) {
        size_t n = *(const size_t *)member(m, f->quantifier_offset);
        if (n == 0)
            return true;
        *present = true;
        if (!(f->flags & PROTOBUF_C_FIELD_FLAG_PACKED))
            return false;
        switch (f->type) {
        case PROTOBUF_C_TYPE_INT32:
        case PROTOBUF_C_TYPE_ENUM:
        case PROTOBUF_C_TYPE_UINT32:
        case PROTOBUF_C_TYPE_SINT32:
            if (n > (SIZE_MAX - PREFIX_GAP - SLACK) / 10)
                return false;
            *bound = 10 * n;
            return true;
        default:
            return false;
        }
    }
    if (f->label != PROTOBUF_C_LABEL_OPTIONAL)
        return false;
    if (f->type == PROTOBUF_C_TYPE_STRING || f->type == PROTOBUF_C_TYPE_MESSAGE) {
        const void *v = *(void *const *)member(m, f->offset);
        *present = v != NULL && v != f->default_value;
        if (*present && f->type == PROTOBUF_C_TYPE_STRING)
            *bound = strlen(v);
        return !*present || f->type == PROTOBUF_C_TYPE_STRING;
    }
    *present = *(const protobuf_c_boolean *)member(m, f->quantifier_offset) != 0;
    if (*present && f->type == PROTOBUF_C_TYPE_BYTES)
        *bound = ((const ProtobufCBinaryData *)member(m, f->offset))->len;
    return !*present || f->type == PROTOBUF_C_TYPE_BYTES;
}

/* Encodes present field f of m into [length][payload] at buf + PREFIX_GAP (room for bound
 * bytes and SLACK); returns where the field's data starts and its length in *len. */
static uint8_t *field_encode(const PbPack *p, const ProtobufCMessage *m,
                             const ProtobufCFieldDescriptor *f, const PbNarrowField *nw,
                             uint8_t *buf, size_t *len)
{
    uint8_t *start = buf + PREFIX_GAP, *end = start;
    if (nw && f->id == nw->field) {
        end = put_i8s(p, nw->v, nw->n, start);
    } else if (f->label == PROTOBUF_C_LABEL_REPEATED) {
        const void *v = *(const void *const *)member(m, f->offset);
        size_t n = *(const size_t *)member(m, f->quantifier_offset);
        switch (f->type) {
        case PROTOBUF_C_TYPE_UINT32:
            end = put_u32s(v, n, start);
            break;
        case PROTOBUF_C_TYPE_SINT32:
            end = put_s32s(v, n, start);
            break;
        default: /* INT32, ENUM */
            end = put_i32s(p, v, n, start);
            break;
        }
    } else if (f->type == PROTOBUF_C_TYPE_STRING) {
        const char *v = *(char *const *)member(m, f->offset);
        size_t n = strlen(v);
        memcpy(start, v, n);
        end = start + n;
    } else { /* BYTES */
        const ProtobufCBinaryData *b = member(m, f->offset);
        if (b->len)
            memcpy(start, b->data, b->len);
        end = start + b->len;
    }
    size_t plen = (size_t)(end - start);
    uint8_t pre[PREFIX_GAP];
    size_t k = put_u64(plen, pre);
    memcpy(start - k, pre, k);
    *len = k + plen;
    return start - k;
}

/* Clears field f of m (it is now an unknown field). */
static void field_clear(ProtobufCMessage *m, const ProtobufCFieldDescriptor *f)
{
    char *base = (char *)m;
    if (f->label == PROTOBUF_C_LABEL_REPEATED) {
        *(size_t *)(base + f->quantifier_offset) = 0;
        *(void **)(base + f->offset) = NULL;
    } else if (f->type == PROTOBUF_C_TYPE_STRING) {
        *(char **)(base + f->offset) = NULL;
    } else {
        *(protobuf_c_boolean *)(base + f->quantifier_offset) = 0;
    }
}

static bool add_ref(PbPack *p, const uint8_t *data, size_t len)
{
    if (p->n_refs == p->cap_refs) {
        size_t cap = p->cap_refs ? 2 * p->cap_refs : 64;
        Ref *r = realloc(p->refs, cap * sizeof *r);
        if (!r)
            return false;
        p->refs = r;
        p->cap_refs = cap;
    }
    p->refs[p->n_refs++] = (Ref){data, len};
    return true;
}

/* ---- shared payloads ---- */

static size_t key_hash(const PbKey *k)
{
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 5; i++) {
        h ^= (uint64_t)k->w[i];
        h *= 0xBF58476D1CE4E5B9ull;
        h ^= h >> 29;
    }
    return (size_t)(h & (KEEP_BUCKETS - 1));
}

static Kept **kept_slot(PbPack *p, const PbKey *k)
{
    Kept **s = &p->kept[key_hash(k)];
    while (*s && memcmp(&(*s)->key, k, sizeof *k))
        s = &(*s)->next;
    return s;
}

bool pb_pack_expect(PbPack *p, const PbKey *k)
{
    if (!p->kept && !(p->kept = calloc(KEEP_BUCKETS, sizeof *p->kept)))
        return false;
    Kept **s = kept_slot(p, k);
    if (*s) {
        (*s)->uses += (*s)->uses < UINT32_MAX;
        return true;
    }
    Kept *n = calloc(1, sizeof *n);
    if (!n)
        return false;
    n->key = *k;
    n->uses = 1;
    *s = n;
    return true;
}

/* Gives m the kept fields of e (the fields from `first` on, present as listed). */
static PbDeferResult kept_use(PbPack *p, ProtobufCMessage *m, const Kept *e, unsigned first,
                              const bool *present)
{
    const ProtobufCMessageDescriptor *desc = m->descriptor;
    ProtobufCMessageUnknownField *uf = own(p, e->n_fields * sizeof *uf);
    if (!uf)
        return PB_DEFER_OOM;
    size_t refs_before = p->n_refs;
    for (unsigned i = 0; i < e->n_fields; i++) {
        uf[i] = e->fields[i];
        if (uf[i].len >= REF_MIN && !add_ref(p, uf[i].data, uf[i].len)) {
            p->n_refs = refs_before;
            return PB_DEFER_OOM;
        }
    }
    for (unsigned i = first; i < desc->n_fields; i++)
        if (present[i - first])
            field_clear(m, &desc->fields[i]);
    m->n_unknown_fields = e->n_fields;
    m->unknown_fields = uf;
    return PB_DEFER_DONE;
}

/* Keeps a copy of m's deferred fields (just made) for the later uses of e, within the
 * budget; nothing when out of memory (they are then encoded again). */
static void kept_store(PbPack *p, Kept *e, const ProtobufCMessage *m)
{
    size_t bytes = m->n_unknown_fields * sizeof *e->fields;
    for (unsigned i = 0; i < m->n_unknown_fields; i++)
        bytes += m->unknown_fields[i].len;
    if (bytes > KEEP_BUDGET - p->kept_bytes)
        return;
    Owned *o = malloc(sizeof(Owned) + bytes);
    if (!o)
        return;
    o->cap = bytes;
    ProtobufCMessageUnknownField *f = (ProtobufCMessageUnknownField *)(void *)o->data;
    uint8_t *data = (uint8_t *)(f + m->n_unknown_fields);
    for (unsigned i = 0; i < m->n_unknown_fields; i++) {
        f[i] = m->unknown_fields[i];
        memcpy(data, f[i].data, f[i].len);
        f[i].data = data;
        data += f[i].len;
    }
    e->block = o;
    e->fields = f;
    e->n_fields = m->n_unknown_fields;
    e->bytes = bytes;
    p->kept_bytes += bytes;
}

/* After a use of the entry at *s: at its last, its block goes to the dead list (the part
 * being packed may reference its bytes) and the entry is dropped. */
static void kept_used(PbPack *p, Kept **s)
{
    Kept *e = *s;
    if (--e->uses)
        return;
    if (e->block) {
        e->block->next = p->dead;
        p->dead = e->block;
    }
    p->kept_bytes -= e->bytes;
    *s = e->next;
    free(e);
}

/* pb_pack_defer; with e (a shared payload, pb_pack_expect), its kept bytes are given to m,
 * or m's are kept for its later uses. */
static PbDeferResult defer(PbPack *p, ProtobufCMessage *m, uint32_t from_id, Kept *e,
                           const PbNarrowField *nw)
{
    const ProtobufCMessageDescriptor *desc = m->descriptor;
    if (m->n_unknown_fields)
        return PB_DEFER_SKIPPED;
    unsigned first = desc->n_fields;
    for (unsigned i = 0; i < desc->n_fields; i++)
        if (desc->fields[i].id >= from_id) {
            first = i;
            break;
        }
    /* every field from `first` on, in the order protobuf-c packs them */
    unsigned n_present = 0;
    size_t bounds[64];
    bool present[64];
    if (desc->n_fields - first > 64)
        return PB_DEFER_SKIPPED;
    for (unsigned i = first; i < desc->n_fields; i++) {
        if (!field_bound(m, &desc->fields[i], nw, &present[i - first], &bounds[i - first]))
            return PB_DEFER_SKIPPED;
        n_present += present[i - first];
    }
    if (n_present == 0)
        return PB_DEFER_DONE;
    if (e && e->fields)
        return kept_use(p, m, e, first, present);
    ProtobufCMessageUnknownField *uf = own(p, n_present * sizeof *uf);
    if (!uf)
        return PB_DEFER_OOM;
    unsigned k = 0;
    size_t refs_before = p->n_refs;
    for (unsigned i = first; i < desc->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &desc->fields[i];
        if (!present[i - first])
            continue;
        size_t size = PREFIX_GAP + bounds[i - first] + SLACK, len;
        uint8_t *buf = own(p, size);
        if (!buf) {
            p->n_refs = refs_before;
            return PB_DEFER_OOM;
        }
        uint8_t *data = field_encode(p, m, f, nw, buf, &len);
        if (len >= REF_MIN && !add_ref(p, data, len)) {
            p->n_refs = refs_before;
            return PB_DEFER_OOM;
        }
        uf[k++] = (ProtobufCMessageUnknownField){f->id, PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED,
                                                 len, data};
    }
    for (unsigned i = first; i < desc->n_fields; i++)
        if (present[i - first])
            field_clear(m, &desc->fields[i]);
    m->n_unknown_fields = k;
    m->unknown_fields = uf;
    if (e && e->uses > 1)
        kept_store(p, e, m);
    return PB_DEFER_DONE;
}

PbDeferResult pb_pack_defer(PbPack *p, ProtobufCMessage *m, uint32_t from_id)
{
    return defer(p, m, from_id, NULL, NULL);
}

PbDeferResult pb_pack_defer_keyed(PbPack *p, ProtobufCMessage *m, uint32_t from_id,
                                  const PbKey *k)
{
    return pb_pack_defer_narrow(p, m, from_id, k, NULL);
}

PbDeferResult pb_pack_defer_narrow(PbPack *p, ProtobufCMessage *m, uint32_t from_id,
                                   const PbKey *k, const PbNarrowField *nw)
{
    Kept **s = k && p->kept ? kept_slot(p, k) : NULL;
    if (!s || !*s)
        return defer(p, m, from_id, NULL, nw);
    PbDeferResult r = defer(p, m, from_id, *s, nw);
    kept_used(p, s);
    return r;
}

/* ---- the sink ---- */

static bool add_piece(PbPack *p, const uint8_t *data, size_t len)
{
    if (p->n_iov == p->cap_iov) {
        size_t cap = p->cap_iov ? 2 * p->cap_iov : 256;
        struct iovec *v = realloc(p->iov, cap * sizeof *v);
        if (!v)
            return false;
        p->iov = v;
        p->cap_iov = cap;
    }
    p->iov[p->n_iov++] = (struct iovec){(void *)data, len};
    return true;
}

static void sink_append(ProtobufCBuffer *buffer, size_t len, const uint8_t *data)
{
    PbPack *p = (PbPack *)buffer;
    if (p->oom || len == 0)
        return;
    p->total += len;
    if (len >= REF_MIN && p->next_ref < p->n_refs && data == p->refs[p->next_ref].data &&
        len == p->refs[p->next_ref].len) {
        p->next_ref++;
        if (!add_piece(p, data, len))
            p->oom = true;
        return;
    }
    if (p->chunk_cap - p->chunk_used < len) {
        size_t cap = len > CHUNK ? len : CHUNK;
        uint8_t *c = own(p, cap);
        if (!c) {
            p->oom = true;
            return;
        }
        p->chunk = c;
        p->chunk_cap = cap;
        p->chunk_used = 0;
    }
    uint8_t *dst = p->chunk + p->chunk_used;
    memcpy(dst, data, len);
    p->chunk_used += len;
    struct iovec *last = p->n_iov ? &p->iov[p->n_iov - 1] : NULL;
    if (last && (uint8_t *)last->iov_base + last->iov_len == dst)
        last->iov_len += len;
    else if (!add_piece(p, dst, len))
        p->oom = true;
}

void pb_pack_reset(PbPack *p)
{
    free_list(p->dead);
    p->dead = NULL;
    free_list(p->spare); /* what the part before the last did not reuse */
    p->spare = p->owned;
    p->owned = NULL;
    p->n_refs = p->next_ref = 0;
    p->n_iov = 0;
    p->total = 0;
    p->chunk = NULL;
    p->chunk_used = p->chunk_cap = 0;
}

bool pb_pack_run(PbPack *p, const ProtobufCMessage *m)
{
    p->sink.append = sink_append;
    p->n_iov = 0;
    p->total = 0;
    p->next_ref = 0;
    p->chunk = NULL;
    p->chunk_used = p->chunk_cap = 0;
    p->oom = false;
    protobuf_c_message_pack_to_buffer(m, &p->sink);
    return !p->oom;
}

const struct iovec *pb_pack_pieces(const PbPack *p, size_t *n, size_t *total)
{
    *n = p->n_iov;
    *total = p->total;
    return p->iov;
}

bool pb_pack_join(const PbPack *p, uint8_t **buf, size_t *len)
{
    *buf = malloc(p->total ? p->total : 1);
    *len = 0;
    if (!*buf)
        return false;
    uint8_t *q = *buf;
    for (size_t i = 0; i < p->n_iov; i++) {
        memcpy(q, p->iov[i].iov_base, p->iov[i].iov_len);
        q += p->iov[i].iov_len;
    }
    *len = p->total;
    return true;
}
