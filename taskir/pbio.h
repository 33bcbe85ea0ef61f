/* pbio.h: TaskGraph .pb files <-> the working IR, through protobuf-c.
 *
 * Loading accepts what the existing tools write (unused dims absent or -1, cluster shapes
 * absent, bias_type absent), skips any field a protobuf parser skips (pb_wire_strip), and
 * rejects with a logic error, never a crash: malformed bytes
 * (the message says where and what, [wire.*]), unknown enum values [load.enum] and sizes past
 * the documented caps [limit.*]. Saving is canonical and deterministic: fields in number
 * order, absent dims absent, the same graph gives the same bytes on every run. */
#ifndef TASKIR_PBIO_H
#define TASKIR_PBIO_H

#include "taskir/graph.h"
#include "taskir/pbvarint.h"

#include <stddef.h>
#include <stdint.h>

/* Caps enforced while loading (docs/formats.md). */
#define TIR_MAX_BLOCKS (1u << 22)
#define TIR_MAX_EDGES (1u << 22)
#define TIR_MAX_CLUSTERS 4096u      /* input or output clusters of one block */
#define TIR_MAX_IFACES 65536u       /* interfaces of one cluster */
#define TIR_MAX_ATTRS 256u          /* attributes of one block */
#define TIR_MAX_TENSOR_DIMS 16u     /* dims of one data or parameter tensor */

/* Decodes a TaskGraph from bytes. On success *out is a new graph (graph_destroy it). */
Status graph_load_pb_mem(const uint8_t *buf, size_t len, Graph **out, Diag *d);
/* How graph_load_pb_mem_opts loads. */
typedef struct LoadOptions {
    uint32_t threads;   /* threads decoding the tensor values (and counting them for the
                         * pre-check); 0 or 1: this thread only */
    bool narrow;        /* a block's int32_data of 64 values or more, all in -128 .. 127, is
                         * held as int8 (Tensor.i8, a quarter of the memory): for a tool whose
                         * every reader of the values takes tensor_i32_at (taskir-opt: the
                         * verifier, the passes, the saver, the printers) or takes int8 weights
                         * as they are (taskir-run: the simulator when sim_packs_narrow, sim.h);
                         * the mapper and the backend read Tensor.i32 and load without it */
    struct TirFileBytes *file; /* NULL, or the mapped file the bytes are (filemap.h), whose
                         * pages its own thread may still be bringing in: the rest of them
                         * are brought in on the threads before the values are read from
                         * them (tir_file_bring_in_rest; not when pb_wire_strip made a copy,
                         * which the values are then read from) */
} LoadOptions;
/* graph_load_pb_mem with options (NULL: the defaults); the graph is the same whatever they
 * say. */
Status graph_load_pb_mem_opts(const uint8_t *buf, size_t len, const LoadOptions *opt,
                              Graph **out, Diag *d);
/* Reads and decodes a file ("-" = stdin). */
Status graph_load_pb(const char *path, Graph **out, Diag *d);
/* The same with options (NULL: the defaults). */
Status graph_load_pb_opts(const char *path, const LoadOptions *opt, Graph **out, Diag *d);
/* Encodes the graph into a malloc'd buffer. */
Status graph_pack(const Graph *g, uint8_t **buf, size_t *len, Diag *d);
/* How the saver went about it: the graph goes out in parts (pbio.c "saving"), each a few
 * blocks or edges whose protobuf-c structs are built, packed and dropped together; a part
 * ends once its tensors hold PB_PART_VALUES values or its structs PB_PART_BYTES bytes. */
enum { PB_PART_VALUES = 1 << 20, PB_PART_BYTES = 4 << 20 };
typedef struct SaveStats {
    uint64_t parts;
    size_t most_bytes;      /* the structs of the largest part: the saver's working memory */
} SaveStats;
/* graph_pack, counting into *stats. */
Status graph_pack_stats(const Graph *g, uint8_t **buf, size_t *len, SaveStats *stats,
                        Diag *d);
/* Encodes and writes atomically ("-" = stdout). */
Status graph_save_pb(const Graph *g, const char *path, Diag *d);
/* The same with g's use index (uses.h) when the caller holds one (NULL: built when needed,
 * for the first RESHAPE edge), so that it is not built again. */
struct GraphUses;
Status graph_save_pb_uses(const Graph *g, const char *path, const struct GraphUses *u,
                          Diag *d);

/* Explains why bytes do not decode as a message of the given protobuf-c descriptor: walks
 * the wire format and records the first fault with its byte offset and field path
 * [wire.truncated, wire.varint, wire.wiretype, wire.length, wire.tag, wire.utf8, ...].
 * Returns ST_LOGIC when it found a fault, ST_OK when the bytes are well-formed. */
struct ProtobufCMessageDescriptor;
Status pb_wire_explain(const struct ProtobufCMessageDescriptor *desc, const uint8_t *buf,
                       size_t len, Diag *d);

/* Skips, as protobuf's own parsers do, the fields protobuf-c would refuse although they are
 * well-formed: groups (wire types 3 and 4) of any field number, and a field of the schema that
 * arrives with another wire type than its own (an unknown field, to a protobuf parser). When
 * the bytes hold such fields, *out is a malloc'd copy without them (length prefixes
 * rewritten) and *out_len its size; else *out is NULL (also for malformed bytes, left to
 * pb_wire_precheck). ST_RUNTIME only when out of memory. */
Status pb_wire_strip(const struct ProtobufCMessageDescriptor *desc, const uint8_t *buf,
                     size_t len, uint8_t **out, size_t *out_len, Diag *d);

/* Lifts the values of the given repeated int32 / uint32 fields out of bytes that
 * pb_wire_strip leaves as they are, so that protobuf-c does not decode them one by one: *out
 * is a malloc'd copy of the bytes where each occurrence of such a field (a packed run or a
 * single varint) is a marker, the field packed with one value: the index of its run in *runs
 * (malloc'd, *n_runs entries pointing into buf, in the order of the bytes; pbvarint.h), length prefixes
 * rewritten. When nothing was lifted, or the bytes are malformed (left to the unpack), *out
 * and *runs are NULL. ST_RUNTIME only when out of memory. */
struct ProtobufCFieldDescriptor;
Status pb_wire_lift(const struct ProtobufCMessageDescriptor *desc, const uint8_t *buf,
                    size_t len, const struct ProtobufCFieldDescriptor *const *fields,
                    size_t n_fields, uint8_t **out, size_t *out_len, PbRun **runs,
                    size_t *n_runs, Diag *d);

/* Unpacks a message of desc from the bytes (after pb_wire_precheck): *out is the message,
 * to free with protobuf_c_message_free_unpacked(*out, NULL). An allocation failing is a
 * runtime error [oom]; bytes protobuf-c refuses a logic error as pb_wire_explain reports
 * them, else [wire.decode] ("not a WHAT"). */
struct ProtobufCMessage;
Status pb_unpack(const struct ProtobufCMessageDescriptor *desc, const uint8_t *buf, size_t len,
                 const char *what, struct ProtobufCMessage **out, Diag *d);

/* Most memory protobuf-c may spend decoding one file (an overestimate: message structs,
 * arrays, strings, unknown fields and its scanning slabs), checked before it allocates. */
#define TIR_MAX_PB_DECODE_BYTES ((uint64_t)4 << 30)

/* A cap on a repeated field: at most max entries in one message. */
typedef struct PbFieldCap {
    const struct ProtobufCMessageDescriptor *msg;
    const char *field;      /* the field's name in the .proto */
    uint64_t max;
    const char *rule;       /* e.g. "limit.blocks" */
} PbFieldCap;

/* Walks the wire format of a message before protobuf-c unpacks it (so before anything is
 * allocated) and checks that no repeated field of caps[] has more than its max entries in
 * one message [the cap's rule], and that decoding would allocate at most max_bytes
 * [limit.decode]. Malformed bytes are refused as pb_wire_explain reports them [wire.*]
 * (including what protobuf-c would let through, e.g. a field number past 2^29 - 1).
 * ST_OK when the bytes are well-formed and within the caps. */
Status pb_wire_precheck(const struct ProtobufCMessageDescriptor *desc, const uint8_t *buf,
                        size_t len, const PbFieldCap *caps, size_t n_caps, uint64_t max_bytes,
                        Diag *d);
/* pb_wire_precheck with the exact count of the packed runs (when their bound of one value a
 * byte passes max_bytes: a 1.4 GB .pb of weights) shared by up to threads threads; the same
 * result and findings for every thread count. */
Status pb_wire_precheck_threads(const struct ProtobufCMessageDescriptor *desc,
                                const uint8_t *buf, size_t len, const PbFieldCap *caps,
                                size_t n_caps, uint64_t max_bytes, uint32_t threads, Diag *d);

/* pb_wire_precheck_threads that, when it counted the packed runs exactly, keeps their counts
 * in keep (pbruns.h; pb_run_counts_free it; zeroed when it did not count them): the loader's
 * decoding of the same runs then does not count them again. */
struct PbRunCounts;
Status pb_wire_precheck_keep(const struct ProtobufCMessageDescriptor *desc, const uint8_t *buf,
                             size_t len, const PbFieldCap *caps, size_t n_caps,
                             uint64_t max_bytes, uint32_t threads, struct PbRunCounts *keep,
                             Diag *d);

/* A message of desc from the bytes as protobuf's own parsers read them: pb_wire_strip, then
 * pb_wire_precheck with caps[0..n_caps) and TIR_MAX_PB_DECODE_BYTES, then pb_unpack (what
 * names the message in its findings). *out as pb_unpack's. */
Status pb_decode(const struct ProtobufCMessageDescriptor *desc, const uint8_t *buf, size_t len,
                 const PbFieldCap *caps, size_t n_caps, const char *what,
                 struct ProtobufCMessage **out, Diag *d);

/* The caps of this header in pb_wire_precheck's form, for a reader of a message that embeds a
 * TaskGraph (the Mapping, mapping.c): it prechecks its own bytes with these plus its own caps.
 * Sets *n to their number. */
const PbFieldCap *graph_pb_caps(size_t *n);
/* The loading path of graph_load_pb_mem past the unpack: converts a TaskGraph that protobuf-c
 * decoded (after pb_wire_precheck with graph_pb_caps) into a new graph (graph_destroy it); a
 * NULL w gives an empty graph. Logic errors [load.enum, limit.*], runtime errors [oom]; *out
 * is NULL on failure. */
struct Taskir__TaskGraph;
Status graph_from_pb(const struct Taskir__TaskGraph *w, Graph **out, Diag *d);

#endif
