/* graph.h: the working IR of a TaskGraph (docs/semantics.md), apart from the wire structs.
 *
 * A Graph owns one arena; blocks and edges are arena objects addressed by id through an O(1)
 * index, and listed in the order they were added (file order after a load). Passes grow a
 * graph cheaply: the arrays of pointers blocks[] and edges[] are regrown in the arena, and a
 * Block or an Edge never moves, so pointers to them stay valid until graph_destroy. The
 * arrays inside them do move when they grow: a block's clusters (blk_add_input/output), a
 * cluster's interfaces (cluster_add_iface), a block's attributes (blk_set_attr) and an
 * edge's rearrangements (edge_add_rearrange). Across such a call, hold an index (cluster,
 * interface, step), not a pointer. The array a regrowth leaves behind keeps its values until
 * the change set ends (graph_compact); after that it may be another array (spare.h).
 *
 * Rewriting (graph_edit.c): a change set removes blocks, edges and interfaces, retargets
 * edge ends, clones blocks and adds edges; removed blocks and edges stay in the arrays,
 * marked, until graph_compact drops them (ids unchanged). Lookups by id skip removed ones.
 * Everything that reads a whole graph (verifier, printers, simulator, saving, graph_uses)
 * expects a compacted one: end every change set with graph_compact.
 *
 * Shapes hold the eight dims in the Task IR order y x f r ky kx iy ix (docs/wire.md); 0 means
 * "absent". The loader reads the existing tools' -1 for an unused dim as absent, and the saver
 * writes absent dims as absent fields. A Shape used as a cluster box uses the first six dims.
 *
 * Fields that the wire format can leave out where 0 is also a meaningful value carry a has_
 * flag, so that a graph saved after loading keeps what the file said.
 */
#ifndef TASKIR_GRAPH_H
#define TASKIR_GRAPH_H

#include "taskir/arena.h"
#include "taskir/diag.h"
#include "taskir/spare.h"
#include "taskir/types.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct Shape {
    int32_t d[TIR_NDIMS];   /* 0 = absent */
    uint8_t minus_one;      /* bit i: the file wrote d[i] as -1 (read as absent; for findings) */
    int32_t n_branch;       /* wire field 10; CADD's number of summed inputs when set */
    int32_t *extra;         /* extra_dimensions, kept for the round trip */
    uint32_t n_extra;
} Shape;

typedef struct Tensor {
    int32_t *dims;
    uint32_t n_dims;
    PrecisionId prec;
    bool has_prec;          /* absent: the block's precision */
    int32_t *i32;           /* int32_data  (INT_*, TERNARY) */
    uint32_t n_i32;
    int8_t *i8;             /* or the n_i32 int32_data values held in a byte each (i32 NULL):
                               a block's data loaded narrow (LoadOptions.narrow), and its parts;
                               read them with tensor_i32_at */
    uint32_t *u32;          /* uint32_data (UINT_*) */
    uint32_t n_u32;
    float *f32;             /* float_data  (FLOAT_*) */
    uint32_t n_f32;
    const char *name;       /* NULL when absent */
} Tensor;

/* Value k of t's int32_data, held wide (i32) or narrow (i8). */
static inline int32_t tensor_i32_at(const Tensor *t, size_t k)
{
    return t->i8 ? t->i8[k] : t->i32[k];
}

/* The first int32_data value of t, wide or narrow, and the bytes of one (1 or 4); NULL when
 * it has none. */
static inline const void *tensor_i32_vals(const Tensor *t, size_t *elem)
{
    *elem = t->i8 ? 1 : 4;
    return !t->n_i32 ? NULL : t->i8 ? (const void *)t->i8 : (const void *)t->i32;
}

typedef struct Attr {
    AttrId id;
    int32_t value;          /* int_value */
    bool has_value;
    PrecisionId prec;
    bool has_prec;
    float fvalue;           /* float_value */
    bool has_fvalue;
} Attr;

/* An interface's box corner or extent: the six cluster dims y x f r ky kx (0 = absent). */
typedef struct IfaceBox {
    int32_t d[TIR_CDIMS];
} IfaceBox;

/* What a file's interface position and size said beyond the six cluster dims (iy, ix,
 * n_branch, extra_dimensions; their first six dims are not read from here), kept for the
 * round trip and for the verifier's findings (iface_wire_shape). */
typedef struct IfaceWire {
    Shape pos, size;
} IfaceWire;

/* 64 bytes, not the 120 of two whole Shapes: a graph the split pass has cut holds two
 * interfaces an edge, hundreds of thousands on a wide model, and every reader of the use
 * index walks them (test_graph's iface_size). */
typedef struct Iface {
    IfaceBox pos;           /* box origin in cluster coordinates (y x f r ky kx) */
    IfaceBox size;          /* box size; meaningful only when has_size */
    int32_t edge_id;
    bool has_pos;
    bool has_size;          /* no size: the whole cluster */
    const IfaceWire *wire;  /* NULL: nothing beyond the six dims (an interface a pass makes) */
} Iface;

typedef struct Cluster {
    Shape shape;            /* meaningful only when has_shape; else derived (blk_cluster_dims) */
    bool has_shape;
    Iface *ifaces;
    uint32_t n_ifaces, cap_ifaces;
} Cluster;

typedef struct Block {
    int32_t id;
    BlockType type;
    PrecisionId prec;
    bool has_prec;
    Shape shape;
    bool has_shape;
    Cluster *in;
    uint32_t n_in, cap_in;
    Cluster *out;
    uint32_t n_out, cap_out;
    Tensor *data;           /* NULL when absent */
    Attr *attrs;
    uint32_t n_attrs, cap_attrs;
    int bias_type;          /* BIAS_ABSENT, BIAS_VECTOR or BIAS_CONSTANT */
    bool is_virtual, has_is_virtual;
    int32_t major_task_id;
    bool has_major_task_id;
    int32_t pipeline_num;
    bool has_pipeline_num;
    int32_t socket_id;      /* INPUT/OUTPUT: which model input or output */
    bool has_socket_id;
    const char *name;       /* provenance (extension field 100); NULL when absent */
    /* INPUT / OUTPUT: the model tensor of the socket (extension field 101): its declared
     * shape (model_ndim dims in model_dims, in the graph's arena) and element type */
    bool has_model;
    uint32_t model_ndim;
    int64_t *model_dims;
    PrecisionId model_prec;
    bool has_model_prec;
    /* INPUT: the values the model admits, model_lo .. model_hi (ModelTensor lo, hi) */
    bool has_model_range;
    int32_t model_lo, model_hi;
    bool removed;           /* graph_remove_block: dropped by graph_compact */
} Block;

typedef struct Rearrange {
    RearrangeType type;
    Tensor *mats;           /* the transform's parameters (docs/semantics.md) */
    uint32_t n_mats;
} Rearrange;

typedef struct Edge {
    int32_t id;
    int32_t src, dst;       /* block ids */
    Rearrange *re;
    uint32_t n_re;
    bool removed;           /* graph_remove_edge: dropped by graph_compact */
} Edge;

typedef struct Group {
    int32_t id;
    int32_t *block_ids;
    uint32_t n_block_ids;
} Group;

typedef struct TestConfig {
    bool present;
    int64_t random_seed;
    bool has_random_seed;
    const char *test_case_name;
    int test_mode;
    bool has_test_mode;
} TestConfig;

/* Map from an id to a position in blocks[] or edges[]. While the ids lie in a range not
 * much wider than their number (builders, the existing tools, and a graph compacted after
 * a pass, whose ids only have gaps), it is a table indexed by id - base: a lookup or an
 * insert is one access. Otherwise it is an open-addressing hash. While the ids come one
 * after another (position p holds id base + p, no repeats), a lookup is a subtraction. */
typedef struct IdMap {
    int32_t *keys;          /* hash: the key of each slot; dense: unused (NULL) */
    uint32_t *vals;         /* position + 1; 0 = empty slot (dense: indexed by id - base) */
    uint32_t cap, n;
    int32_t base;           /* seq, dense: the first id put */
    bool seq;               /* the ids so far are base, base + 1, ... in position order */
    bool dense;             /* vals is the table by id - base */
} IdMap;

typedef struct Graph {
    Arena *arena;
    Spare spare;            /* arrays regrowth left behind, taken again (spare.h) */
    Block **blocks;
    uint32_t n_blocks, cap_blocks;
    Edge **edges;
    uint32_t n_edges, cap_edges;
    Group *groups;
    uint32_t n_groups;
    TestConfig test_config;
    IdMap block_index, edge_index; /* the first block/edge with each id */
    int32_t next_block_id, next_edge_id; /* one past the largest id seen */
} Graph;

#define GRAPH_AUTO_ID INT32_MIN /* pass as id: take the next free id */

/* An empty graph; NULL when out of memory. */
Graph *graph_create(void);
void graph_destroy(Graph *g); /* accepts NULL */
/* True once any allocation of this graph has failed: the graph is then incomplete. */
bool graph_oom(const Graph *g);

/* Adds a block of this type. id GRAPH_AUTO_ID takes the next free id. name (provenance) is
 * copied, with every byte that is not part of valid UTF-8 replaced by U+FFFD (a .pb holds
 * UTF-8 names only: protobuf readers refuse others); it may be NULL. NULL when out of
 * memory. A duplicate id is kept (the verifier
 * reports it); lookups find the first. */
Block *graph_add_block(Graph *g, BlockType type, int32_t id, const char *name);
/* Adds an edge src -> dst (block ids). NULL when out of memory. */
Edge *graph_add_edge(Graph *g, int32_t id, int32_t src, int32_t dst);
/* The first block / edge with this id, or NULL. O(1). */
Block *graph_block(const Graph *g, int32_t id);
Edge *graph_edge(const Graph *g, int32_t id);
/* The position in blocks[] / edges[] of the first block / edge with this id, or -1. O(1). */
long graph_block_pos(const Graph *g, int32_t id);
long graph_edge_pos(const Graph *g, int32_t id);

/* Appends an empty input / output cluster; NULL when out of memory. */
Cluster *blk_add_input(Graph *g, Block *b);
Cluster *blk_add_output(Graph *g, Block *b);
/* Makes room for more interfaces in c at once (the array is regrown as cluster_add_iface
 * regrows it, to the power of two that holds them, not by each doubling on the way); the
 * interfaces' pointers move as when one is added. false when out of memory. */
bool cluster_reserve_ifaces(Graph *g, Cluster *c, uint32_t more);
/* Appends an interface joined to edge_id covering the whole cluster (no position, no size). */
Iface *cluster_add_iface(Graph *g, Cluster *c, int32_t edge_id);
/* Sets f's position (pos) and size (size; NULL: leave either alone) from whole Shapes, as
 * a file gives them: the six cluster dims into f->pos / f->size, what lies beyond them into
 * f->wire (from g's arena, only when there is any; the has_ flags are the caller's). false
 * when out of memory. */
bool iface_set_wire(Graph *g, Iface *f, const Shape *pos, const Shape *size);
/* f's position (size false) or size as a whole Shape: the six dims and what f->wire keeps
 * beyond them (extra points into the wire's array). */
void iface_wire_shape(const Iface *f, bool size, Shape *out);
/* Is f's box its whole cluster (no position, no size)? */
bool iface_whole(const Iface *f);
/* Do a and b name the same box of their clusters (the same position and size, each given
 * or not)? */
bool iface_same_box(const Iface *a, const Iface *b);
/* Sets (or replaces) an attribute's int value. false when out of memory. */
bool blk_set_attr(Graph *g, Block *b, AttrId id, int32_t value);
/* The attribute if the block carries it, else NULL. */
const Attr *blk_find_attr(const Block *b, AttrId id);
/* The attribute's integer value: int_value, else float_value when it is integral (and fits
 * int32). false when it has neither. */
bool attr_int_value(const Attr *a, int32_t *out);
/* The attribute's value (attr_int_value), or its table default when absent or without an
 * integer value (0 read as 1 for stride/dilation). */
int32_t blk_attr(const Block *b, AttrId id);
/* Does the attribute hold the value an absent one takes (its table default; 0 for a stride
 * or dilation)? Such an attribute changes nothing, whichever block carries it. */
bool attr_is_neutral(const Attr *a);
/* Gives the block a data tensor of precision prec with these dims and int values, stored in
 * the precision's container. false when out of memory. */
bool blk_set_data(Graph *g, Block *b, PrecisionId prec, const int32_t *dims, uint32_t n_dims,
                  const int64_t *values, uint64_t n_values);
/* Gives an INPUT / OUTPUT block its model tensor: ndim dims (copied) and, when has_prec, the
 * element type prec. false when out of memory. */
bool blk_set_model(Graph *g, Block *b, const int64_t *dims, uint32_t ndim, PrecisionId prec,
                   bool has_prec);
/* The number of elements of the block's model tensor (1 for a scalar), or -1 when it has
 * none or the count passes 2^62. */
int64_t blk_model_volume(const Block *b);
/* The values an INPUT block admits: its precision's range (int32 without one) cut to its
 * model tensor's declared range; *lo > *hi when the two leave no value. */
void blk_input_range(const Block *b, int64_t *lo, int64_t *hi);
/* Adds a rearrangement step to an edge; its parameter tensors are added with
 * tensor_create. NULL when out of memory. */
Rearrange *edge_add_rearrange(Graph *g, Edge *e, RearrangeType type, uint32_t n_mats);
/* Fills t as an INT_32 tensor with these dims and values (arena copies). */
bool tensor_set_i32(Graph *g, Tensor *t, const int32_t *dims, uint32_t n_dims,
                    const int32_t *values, uint32_t n_values);

/* Joins output cluster out_idx of src to input cluster in_idx of dst with a new edge, and
 * whole-cluster interfaces at both ends (clusters are created up to the index as needed).
 * Returns the edge, or NULL when out of memory or a block is missing. */
Edge *graph_connect(Graph *g, Block *src, uint32_t out_idx, Block *dst, uint32_t in_idx);

/* ---- Rewriting (graph_edit.c); see the top of this file for change sets ---- */

/* Joins output cluster out_idx of src to input cluster in_idx of dst with a new edge, like
 * graph_connect, with box interfaces: the source box at spos of extent ssize in the output
 * cluster and the destination box at dpos of extent dsize in the input cluster (y x f r ky
 * kx; the dims the cluster does not use are ignored; NULL position or size: the whole
 * cluster). A box that covers its whole cluster is written as a whole-cluster interface.
 * NULL when out of memory or a block is missing. */
Edge *graph_connect_box(Graph *g, Block *src, uint32_t out_idx, const int32_t *spos,
                        const int32_t *ssize, Block *dst, uint32_t in_idx,
                        const int32_t *dpos, const int32_t *dsize);
/* Removes interface idx of cluster c (the later ones shift down). Its edge keeps its other
 * end until it is removed or retargeted. */
void cluster_remove_iface(Cluster *c, uint32_t idx);
/* Removes edge e and every interface naming it at its two ends. */
void graph_remove_edge(Graph *g, Edge *e);
/* Removes the n edges es and the interfaces naming them, at once: O(n log n) plus the
 * interfaces of their end blocks (graph_remove_edge one by one is O(k) an edge for a
 * cluster of k interfaces). false when out of memory (nothing is removed then). */
bool graph_remove_edges(Graph *g, Edge *const *es, size_t n);
/* Removes block b and every edge that starts or ends at it (graph_remove_edge). O(edges). */
void graph_remove_block(Graph *g, Block *b);
/* Moves the source (src true) or destination end of e to cluster idx (an output cluster for
 * the source) of block nb, creating clusters up to idx as needed: the interface naming e at
 * the old end moves, box and all, or a whole-cluster one is made when there was none. Returns
 * the interface at the new end (valid until that cluster grows), NULL when out of memory. */
Iface *graph_retarget_edge(Graph *g, Edge *e, bool src, Block *nb, uint32_t idx);
/* Drops removed blocks and edges from blocks[] and edges[], keeping the order of the others
 * and every id, and rebuilds the id index. false when out of memory. */
bool graph_compact(Graph *g);
/* Adds a copy of b with the next free id and the provenance name "<b's name>/<suffix>"
 * ("block<id>/<suffix>" when b has none): type, precision, shape, attributes, flags and
 * cluster shapes are copied; the clusters get no interfaces (edges are not copied); the data
 * tensor is shared (tensors are not written after they are built). NULL when out of memory. */
Block *graph_clone_block(Graph *g, const Block *b, const char *suffix);
/* Gives b a view of rows [start, start + count) of parent along its first dim, without
 * copying the values: the view's dims are the parent's with the first set to count, and its
 * values point into the parent's container. false when parent has no dims, the rows do not
 * fit, the parent's container does not hold dims' volume, or out of memory. */
bool blk_set_data_view(Graph *g, Block *b, const Tensor *parent, uint32_t start,
                       uint32_t count);

/* ---- Per-type facts of one block, from the block type table ---- */

/* The block's precision, INT_32 when absent for compute blocks, INT_8 for storage. */
PrecisionId blk_prec(const Block *b);
/* The effective shape: absent optional dims take their defaults (y, x, ky, kx: 1; iy: y;
 * ix: x); absent required dims stay 0. */
void blk_eff_shape(const Block *b, int32_t out[TIR_NDIMS]);
/* Is the block a storage block that holds its own data and also carries one input cluster
 * with no interfaces (as the existing tools write)? That cluster receives nothing. */
bool blk_idle_input(const Block *b);
/* Does input cluster idx hold the bias (bias_type VECTOR, or absent with a cluster to spare)? */
bool blk_has_bias_cluster(const Block *b);
/* How many times the first input role repeats, given the block's cluster count. */
uint32_t blk_n_variadic(const Block *b);
/* The spec of input / output cluster idx, or NULL when the type has no such cluster. */
const ClusterSpec *blk_in_spec(const Block *b, uint32_t idx);
const ClusterSpec *blk_out_spec(const Block *b, uint32_t idx);
/* The cluster's dims (y x f r ky kx, 0 = unused) as the type table derives them from the
 * block's shape. false when the type has no such cluster. */
bool blk_spec_dims(const Block *b, const ClusterSpec *spec, int32_t out[TIR_CDIMS]);
/* The cluster's dims: its own shape when the file gives one, else derived. */
bool blk_cluster_dims(const Block *b, bool input, uint32_t idx, int32_t out[TIR_CDIMS]);
/* Window geometry of a BF_WINDOW block: the output extent along one axis. Returns false when
 * the window does not fit (extent < 1) or overflows. */
bool tir_window_out(int64_t in, int64_t pad_lo, int64_t pad_hi, int64_t kernel, int64_t stride,
                    int64_t dilation, int64_t *out);
/* Multiply-accumulates of one run of a compute block (0 for others); saturates at INT64_MAX. */
int64_t blk_macs(const Block *b);
/* Writes "block 17 (CC 'conv1')" into buf. */
void blk_describe(const Block *b, char *buf, size_t len);
/* The product of the non-zero dims of a box (n dims), or -1 on overflow past INT64_MAX. */
int64_t tir_volume(const int32_t *dims, int n);

#endif
