/* opgraph.h: the OpGraph, the frontends' common IR: a DAG of operator nodes over integer
 * tensors, before lowering to a TaskGraph.
 *
 * Every frontend (CVM JSON, CINN, ONNX) builds the same structure; nothing here knows a file
 * format. A node is an INPUT (a model input, fed at run time), a CONST (a parameter tensor
 * with its values) or an OP (an operator of the graph's dialect: `op` is the frontend's
 * operator code, e.g. a CvmOp for dialect "cvm", and `op_name` its name). Nodes are numbered
 * in topological order: an OP's inputs are (node, output index) pairs of earlier nodes.
 *
 * Values are int32; a tensor has 1..OG_MAX_DIMS dims and a precision of 1..32 bits (a value
 * v of precision p satisfies |v| <= 2^(p-1) - 1, the CVM formalization, "DLTensor"). Attributes are
 * typed (int, int list, bool, string, or an explicit None) and generic, so any frontend can store
 * its operators' parameters.
 *
 * One arena per graph: og_destroy frees everything at once. Builder calls that allocate
 * return NULL (or false) on out of memory and mark the arena failed (og_oom).
 */
#ifndef FRONTEND_OPGRAPH_H
#define FRONTEND_OPGRAPH_H

#include "taskir/arena.h"
#include "taskir/diag.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OG_MAX_DIMS 6
#define OG_MAX_DIM ((int64_t)1 << 24)      /* largest extent of one dim */
#define OG_MAX_VOLUME ((int64_t)1 << 30)   /* most elements in one tensor */

typedef struct OgShape {
    uint32_t ndim;
    int64_t d[OG_MAX_DIMS];
} OgShape;

/* A tensor value: shape, element count and C-order int32 data. Who owns data depends on
 * where the tensor comes from (see og_tensor_alloc / og_tensor_free). */
typedef struct OgTensor {
    OgShape shape;
    int64_t count;          /* product of the dims */
    int32_t *data;
} OgTensor;

typedef enum {
    OG_ATTR_NONE,           /* explicitly None (an Optional<T> without a value) */
    OG_ATTR_INT,            /* i */
    OG_ATTR_INTS,           /* v[0..n) */
    OG_ATTR_BOOL,           /* i is 0 or 1 */
    OG_ATTR_STR             /* s */
} OgAttrKind;

typedef struct OgAttr {
    const char *name;
    OgAttrKind kind;
    int64_t i;
    const int64_t *v;
    uint32_t n;
    const char *s;
} OgAttr;

/* One input of a node: output `index` of node `node`. */
typedef struct OgEdge {
    int32_t node;
    uint32_t index;
} OgEdge;

typedef enum { OG_INPUT, OG_CONST, OG_OP } OgNodeKind;

typedef struct OgNode {
    int32_t id;             /* index in OpGraph.nodes */
    OgNodeKind kind;
    int32_t op;             /* OG_OP: the dialect's operator code; -1 otherwise */
    const char *op_name;    /* OG_OP: "conv2d"; "null" otherwise */
    const char *name;
    int32_t src_index;      /* the node's number in the source file (for messages) */
    OgEdge *inputs;
    uint32_t ninputs;
    OgAttr *attrs;          /* in the order they were first set */
    uint32_t nattrs;
    uint32_t noutputs;
    OgShape *out_shape;     /* [noutputs] */
    int32_t *out_prec;      /* [noutputs], 1..32 once inferred; 0 = not yet known */
    OgTensor value;         /* OG_CONST: the values (arena-owned); zero otherwise */
} OgNode;

/* The element type of a model output's file (DIR/outputK.npy). */
typedef enum { OG_DT_INT32 = 0, OG_DT_INT8, OG_DT_UINT8, OG_DT_INT16 } OgDtype;

/* What a model declares of one of its outputs, where that differs from the node's output
 * value: the shape (an ONNX output folded to at most 4 dims keeps its ONNX shape here) and
 * the element type (an ONNX int8 output). Zeroed: the node's shape, int32. */
typedef struct OgDecl {
    bool has_shape;
    OgShape shape;          /* same number of elements as the node's output */
    OgDtype dtype;
} OgDecl;

typedef struct OpGraph {
    Arena *arena;
    const char *dialect;    /* "cvm", ... */
    OgNode **nodes;         /* [nnodes], in topological order; nodes[i]->id == i */
    uint32_t nnodes, cap_nodes;
    OgEdge *outputs;        /* the model outputs, in order */
    uint32_t noutputs, cap_outputs;
    OgDecl *out_decl;       /* [cap_outputs]: what the model declares of each output */
} OpGraph;

/* A new empty graph of the given dialect; NULL on out of memory. */
OpGraph *og_create(const char *dialect);
void og_destroy(OpGraph *g); /* accepts NULL */
/* True once an allocation for the graph has failed. */
bool og_oom(const OpGraph *g);

/* Appends a node with room for ninputs inputs (all {-1, 0} until set) and noutputs outputs.
 * name and op_name are copied. NULL on out of memory. */
OgNode *og_add_node(OpGraph *g, OgNodeKind kind, int32_t op, const char *op_name,
                    const char *name, uint32_t ninputs, uint32_t noutputs);
/* Appends a model output. false on out of memory. */
bool og_add_output(OpGraph *g, int32_t node, uint32_t index);
/* The declared shape of model output j: out_decl's when it has one, else the node's. */
const OgShape *og_output_shape(const OpGraph *g, uint32_t j);
/* The node with this id, or NULL when out of range. */
OgNode *og_node(const OpGraph *g, int32_t id);
/* The shape / precision of an edge's source output. The edge must be valid. */
const OgShape *og_edge_shape(const OpGraph *g, OgEdge e);
int32_t og_edge_prec(const OpGraph *g, OgEdge e);
/* The INPUT nodes, in node order: count, and the k-th one (NULL when out of range). */
uint32_t og_num_inputs(const OpGraph *g);
OgNode *og_input(const OpGraph *g, uint32_t k);
/* The position k of the INPUT node named name among og_input(g, k), or -1. */
int32_t og_find_input(const OpGraph *g, const char *name);

/* Attributes. Setters replace an attribute of the same name; they copy name, s and v.
 * false on out of memory. */
bool og_set_int(OpGraph *g, OgNode *n, const char *name, int64_t v);
bool og_set_bool(OpGraph *g, OgNode *n, const char *name, bool v);
bool og_set_ints(OpGraph *g, OgNode *n, const char *name, const int64_t *v, uint32_t count);
bool og_set_str(OpGraph *g, OgNode *n, const char *name, const char *s);
bool og_set_none(OpGraph *g, OgNode *n, const char *name);
/* The attribute called name, or NULL. */
const OgAttr *og_attr(const OgNode *n, const char *name);
/* Typed getters: the value when the attribute exists with that kind, else def. */
int64_t og_attr_int(const OgNode *n, const char *name, int64_t def);
bool og_attr_bool(const OgNode *n, const char *name, bool def);
const char *og_attr_str(const OgNode *n, const char *name, const char *def);
/* The list (and its length in *count); NULL with *count = 0 when absent or not a list. */
const int64_t *og_attr_ints(const OgNode *n, const char *name, uint32_t *count);
/* True when the attribute is absent or explicitly None. */
bool og_attr_is_none(const OgNode *n, const char *name);

/* Shapes. */
int64_t og_shape_volume(const OgShape *s);   /* product of the dims (1 for ndim 0) */
bool og_shape_eq(const OgShape *a, const OgShape *b);
/* Writes "(1, 3, 224, 224)" into buf; returns buf. */
char *og_shape_str(const OgShape *s, char *buf, size_t size);
/* Checks the tensor limits (1..OG_MAX_DIMS dims, each in 1..OG_MAX_DIM, volume at most
 * OG_MAX_VOLUME). Returns NULL when the shape is fine, else the violated rule's suffix:
 * "ndim", "dim" or "volume". */
const char *og_shape_limit(const OgShape *s);

/* Largest magnitude of a precision-p value: 2^(p-1) - 1 (p in 1..32). */
int64_t og_prec_alpha(int32_t p);
/* The largest |value| of t (0 for an empty tensor; 2^31 for INT32_MIN). */
int64_t og_tensor_absmax(const OgTensor *t);
/* True when every value of t lies within precision p. */
bool og_tensor_in_prec(const OgTensor *t, int32_t p);

/* Allocates (malloc) zeroed data for a tensor of shape s; false when the shape's volume is
 * over OG_MAX_VOLUME or on out of memory. */
bool og_tensor_alloc(OgTensor *t, const OgShape *s);
/* Frees data allocated by og_tensor_alloc and zeroes t; accepts NULL. */
void og_tensor_free(OgTensor *t);

/* "node 12 'conv1' (conv2d)" (the source file's node number) into buf; returns buf. */
char *og_node_describe(const OgNode *n, char *buf, size_t size);

#endif
