/* pbpack.h: packing a protobuf-c message fast, with exactly the bytes protobuf_c_message_pack
 * gives (private to taskir/: pbio.c saves TaskGraphs with it).
 *
 * protobuf-c's own pack walks a message twice (get_packed_size, then pack), encodes packed
 * repeated fields one element at a time through its generic per-type code, and moves each
 * nested message's bytes once per nesting level to make room for the length prefix. For a
 * ResNet-50 TaskGraph that is 25 M int8 weights, 140 MB on the wire, most of the compile time.
 * Two devices remove that cost and leave the bytes as they are:
 *
 *  1. pb_pack_defer: the last fields of a message (every field from a given number on, in
 *     the descriptor's order, which is field-number order) are encoded here, packed int32 by
 *     a table-driven varint encoder, and handed to protobuf-c as the message's unknown fields
 *     (tag + pre-encoded value). protobuf-c writes a message's unknown fields after its known
 *     fields, as given: the same bytes in the same place, because they were its last fields.
 *     A payload several messages share (a tensor that several blocks hold: the copies the
 *     split and replicate passes make share their values) is encoded once and its bytes given
 *     to the others (pb_pack_expect, pb_pack_defer_keyed).
 *  2. pb_pack_run: protobuf_c_message_pack_to_buffer into a sink that copies the small pieces
 *     into chunks and keeps the deferred payloads by reference, giving the message as a list
 *     of pieces: no whole-message buffer, no moves. pbio.c packs a TaskGraph a few blocks at a
 *     time (pb_pack_reset between parts, so the encoding memory is reused) and appends each
 *     part's pieces to the file with writev (tir_atomic_writev), or to one buffer.
 *
 * protobuf-c still lays out every message, field and length prefix; only the values of the
 * deferred fields are encoded here (varints of the 64-bit sign extension for int32, as
 * protobuf-c and every other protobuf library write them). tests/unit/test_pbpack.c checks
 * the result against protobuf_c_message_pack byte for byte.
 */
#ifndef TASKIR_PBPACK_H
#define TASKIR_PBPACK_H

#include <protobuf-c/protobuf-c.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

typedef struct PbPack PbPack;

/* A new packer; NULL on out of memory. */
PbPack *pb_pack_create(void);
/* Frees the packer and everything it encoded (the pieces too). Accepts NULL. */
void pb_pack_destroy(PbPack *p);

/* What pb_pack_defer did. */
typedef enum {
    PB_DEFER_DONE,      /* the fields are now m's unknown fields (their members cleared) */
    PB_DEFER_SKIPPED,   /* m is unchanged: a present field of a kind not handled here (only
                           packed repeated int32 / sint32 / uint32 / enum and optional
                           string / bytes are), or m already has unknown fields */
    PB_DEFER_OOM        /* out of memory; m is unchanged */
} PbDeferResult;

/* Moves the fields of m whose number is at least from_id into pre-encoded unknown fields of
 * m, owned by p (so m must be packed before p is destroyed). Fields that are absent or empty
 * stay absent. */
PbDeferResult pb_pack_defer(PbPack *p, ProtobufCMessage *m, uint32_t from_id);

/* The identity of the values of a message's deferred fields, chosen by the caller (the
 * addresses and counts of the arrays the fields are encoded from, say): two messages with
 * equal keys must have equal deferred fields. */
typedef struct PbKey {
    uintptr_t w[5];
} PbKey;

/* Announces one message to come whose deferred fields key k identifies (before
 * pb_pack_destroy): when several are announced under one key, the first encoding is kept,
 * within a memory budget, and given to the later ones without encoding the values again,
 * across resets, until the last. false on out of memory (nothing is then kept for k:
 * correct, only slower). */
bool pb_pack_expect(PbPack *p, const PbKey *k);
/* As pb_pack_defer, for a message whose deferred fields key k identifies (pb_pack_expect). */
PbDeferResult pb_pack_defer_keyed(PbPack *p, ProtobufCMessage *m, uint32_t from_id,
                                  const PbKey *k);

/* A packed int32 field whose values are given as int8 (a tensor held narrow, graph.h
 * Tensor.i8) instead of by the message, whose member for it is empty: encoded as the int32
 * values would be. */
typedef struct PbNarrowField {
    uint32_t field;             /* its number */
    const int8_t *v;
    size_t n;                   /* < 2^32 */
} PbNarrowField;
/* pb_pack_defer_keyed (k NULL: pb_pack_defer) with field nw->field (from_id or later; a
 * packed repeated int32) taken from nw (NULL: none). When it returns PB_DEFER_SKIPPED or
 * PB_DEFER_OOM, m does not hold nw's values: the caller must give them to it. */
PbDeferResult pb_pack_defer_narrow(PbPack *p, ProtobufCMessage *m, uint32_t from_id,
                                   const PbKey *k, const PbNarrowField *nw);

/* Packs m into p's pieces (replacing any earlier pieces). The deferred payloads of m's
 * messages are referenced, not copied. false on out of memory. */
bool pb_pack_run(PbPack *p, const ProtobufCMessage *m);
/* Forgets the pieces and everything deferred since the last reset (messages deferred before
 * must not be packed again), keeping the memory for the next part: a message too large to
 * hold at once is packed part by part (e.g. a TaskGraph as TaskGraphs of a few blocks each,
 * whose bytes concatenate to the whole one's), each part deferred, run, written, reset. */
void pb_pack_reset(PbPack *p);
/* The pieces of the last pb_pack_run, in order (*n of them, *total bytes in all). */
const struct iovec *pb_pack_pieces(const PbPack *p, size_t *n, size_t *total);
/* The pieces joined into one malloc'd buffer (at least 1 byte allocated). false on out of
 * memory. */
bool pb_pack_join(const PbPack *p, uint8_t **buf, size_t *len);

#endif
