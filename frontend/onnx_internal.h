/* onnx_internal.h: what the ONNX frontend's files share (private to frontend/onnx_*.c).
 *
 *   onnx_tensor.c    TensorProto -> OnnxTensor
 *   onnx_read.c      ModelProto: wire precheck, decode, graph inputs / initializers / outputs,
 *                    the node walk with the operator table, model edges
 *   onnx_ops.def     THE table of ONNX operators (X-macro): name, first opset, parameter
 *                    inputs, flags, mapping function
 *   onnx_util.c      values by name, attributes, building CVM nodes, constants, element maps
 *   onnx_map_move.c  data movement (Identity, Reshape, ..., Resize)
 *   onnx_map_arith.c elementwise arithmetic, Clip, Relu, Where, BitShift, reductions, the
 *                    Div -> Floor pattern
 *   onnx_map_cast.c  Cast, CastLike
 *   onnx_map_nn.c    Conv, ConvInteger, Gemm, MatMul, MatMulInteger (constant B), MaxPool
 *   onnx_map_pool.c  AveragePool, GlobalAveragePool (exact floored averages; onnx_nn.h)
 *   onnx_map_matmul_dyn.c  MatMul, MatMulInteger, QLinearMatMul of a computed B
 *   onnx_map_quant.c QuantizeLinear, DequantizeLinear, QLinearConv, QLinearMatMul
 *   onnx_bind.c      OnnxOptions: inputs bound to constants, declared input ranges
 *   onnx_edge.c      host-side conversions at the model's edges, the reference rounding
 *   onnx_run.c       fe_onnx_run (taskir-run MODEL.onnx)
 *   onnx_build.c     a small ModelProto writer (onnx_build.h: examples, tests)
 *
 * A value of the ONNX graph (by name) is, while mapping, one of
 *   OV_CONST    a tensor known at compile time (initializer, Constant, folded), host values;
 *   OV_RUN      an OpGraph output (edge) holding the tensor, in the ONNX shape;
 *   OV_DIV      float x / 2^s not yet floored (only Floor may read it: the open toolchain's
 *               Div -> Floor -> Clip pattern);
 *   OV_DEQ      DequantizeLinear of a runtime value (only a graph output may take it).
 */
#ifndef FRONTEND_ONNX_INTERNAL_H
#define FRONTEND_ONNX_INTERNAL_H

#include "frontend/cvm.h"
#include "frontend/onnx.h"
#include "frontend/onnx.pb-c.h"
#include "frontend/opgraph.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef enum { OV_NONE, OV_CONST, OV_RUN, OV_DIV, OV_DEQ } OvKind;

typedef struct OnnxVal {
    const char *name;
    OvKind kind;
    int32_t type;           /* ONNX element type */
    OnnxTensor c;           /* OV_CONST (owned by the context) */
    OgEdge e;               /* OV_RUN, OV_DIV, OV_DEQ: the integer tensor */
    OgShape shape;          /* OV_RUN, OV_DIV, OV_DEQ: the ONNX shape (ndim >= 1) */
    int shift;              /* OV_DIV: s */
    bool avg;               /* OV_DIV: an AveragePool / GlobalAveragePool average (messages,
                               [onnx.float.avg]), else a float Div by 2^s */
    /* OV_DEQ: the quantization of the integer tensor */
    int32_t q_type, q_axis;
    uint32_t nq;
    float *q_scale;         /* arena */
    int32_t *q_zp;          /* arena */
    int32_t graph_input;    /* the graph input it is (position among OG inputs), or -1 */
} OnnxVal;

typedef struct OnnxCtx {
    OnnxModel *m;
    OpGraph *g;
    Diag *d;
    const OnnxOptions *opt;
    int64_t opset;
    bool float_bits;
    /* values by name: open addressing over vals */
    OnnxVal *vals;
    uint32_t nvals, capvals;
    uint32_t *slots;        /* index + 1 into vals, 0 = empty */
    uint32_t nslots;
    /* the node being mapped */
    const Onnx__NodeProto *node;
    uint32_t node_index;
    const char *node_name;  /* node's name, or "<op_type>_<index>" when it has none */
    uint32_t uniq;          /* counter for generated OpGraph node names */
    int64_t map_entries;    /* element-map entries reserved so far (onnx_map_reserve) */
} OnnxCtx;

/* Most entries of the element maps (data movement, pooling windows, slabs of a batched
 * MatMul, constants folded by data movement) the frontend derives for one model: 2^25. Declared
 * shapes cost a file nothing, so without it a model of a few hundred bytes could make the
 * frontend build maps of gigabytes [onnx.limit.map]. */
#define ONNX_MAX_MAP_ENTRIES ((int64_t)1 << 25)

/* Reserves n more element-map entries, before they are allocated: a logic error
 * [onnx.limit.map] naming the node when the model's total would pass ONNX_MAX_MAP_ENTRIES. */
Status onnx_map_reserve(OnnxCtx *c, int64_t n);
/* The i-th contiguous block of x (C order) of volume(slab) elements, as a tensor of shape
 * slab: e.g. matrix i of a batch of matrices with slab (1, M, K). An element map (edges, no
 * compute), reserved with onnx_map_reserve. x must hold at least (i + 1) blocks. */
Status onnx_take_slab(OnnxCtx *c, OgEdge x, const OgShape *slab, int64_t i, OgEdge *out);

typedef Status (*OnnxMapFn)(OnnxCtx *c);

enum {
    ONNX_OPF_MOVE = 1u << 0,    /* moves data only: float tensors may carry bit patterns */
};

typedef struct OnnxOpInfo {
    const char *name;
    int since;              /* first opset version of the default domain it is read for */
    uint32_t params;        /* bit k: input k must be known at compile time */
    unsigned flags;
    OnnxMapFn map;
} OnnxOpInfo;

#define X(name, since, params, flags, fn) Status fn(OnnxCtx *c);
#include "frontend/onnx_ops.def"
#undef X

/* The row of an operator type, or NULL. */
const OnnxOpInfo *onnx_op_find(const char *op_type);

bool onnx_type_is_float(int32_t t);
/* The OpGraph precision for values of an integer ONNX type (0: not an accepted type). */
int32_t onnx_type_prec(int32_t t);
/* The value range of an integer ONNX type (int64: int32's). */
void onnx_type_range(int32_t t, int64_t *lo, int64_t *hi);

Status onnx_tensor_from_proto(const Onnx__TensorProto *p, const char *where, OnnxTensor *t,
                              Diag *d);
/* *out <- src's dims and name with element type `type` and room for its values (f for
 * float, i otherwise; not filled). False on out of memory (out then holds no memory). */
bool onnx_tensor_retype(const OnnxTensor *src, int32_t type, OnnxTensor *out);

/* ---- OnnxOptions (onnx_bind.c) ---- */

/* The declared range of graph input name, or NULL. */
const OnnxInputRange *onnx_input_range(const OnnxOptions *opt, const char *name);
/* The bound value b of a graph input (where: "graph input 'w'") converted to the input's
 * declared element type (0: b's own) and checked against its declared shape (NULL: none
 * declared; a -1 dim matches any extent) into *out [onnx.input.shape, .value, onnx.type]. */
Status onnx_bind_value(OnnxCtx *c, const char *where, int32_t type, const OgShape *declared,
                       const OnnxTensor *b, OnnxTensor *out);
/* Every bound or ranged name is a graph input, none both, every range well-formed
 * [onnx.input.unknown, .range]. */
Status onnx_check_options(OnnxCtx *c, const Onnx__GraphProto *gr);

/* ---- errors (onnx_util.c) ---- */

/* A logic error about the current node: where = "node 3 'conv1' (Conv, opset 13)". */
Status onnx_fail(OnnxCtx *c, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
Status onnx_oom(OnnxCtx *c);
/* A logic error about two shapes that do not fit: "<what>: (2, 3) and (4,)". */
Status onnx_fail_shapes(OnnxCtx *c, const char *rule, const char *what, const OgShape *a,
                        const OgShape *b);
/* "node 3 'conv1' (Conv, opset 13)" */
void onnx_node_where(const OnnxCtx *c, char *buf, size_t size);

/* ---- values ---- */

/* The value called name, or NULL. */
OnnxVal *onnx_val(OnnxCtx *c, const char *name);
/* Adds a value (name copied into the arena); NULL on out of memory or a duplicate name (the
 * caller reports [onnx.graph.name]; *dup tells which). */
OnnxVal *onnx_val_add(OnnxCtx *c, const char *name, bool *dup);
/* Input k of the current node: NULL when absent or "" (an omitted optional input). A name
 * that is no known value is a logic error [onnx.graph.input] (st set). */
OnnxVal *onnx_in(OnnxCtx *c, uint32_t k, Status *st);
/* Requires input k as OV_RUN or OV_CONST (other kinds are logic errors); NULL + st when
 * absent. */
OnnxVal *onnx_need(OnnxCtx *c, uint32_t k, Status *st);
/* Output k of the current node, as a runtime value / a constant (t is moved). */
Status onnx_out_run(OnnxCtx *c, uint32_t k, OgEdge e, int32_t type);
Status onnx_out_const(OnnxCtx *c, uint32_t k, OnnxTensor *t);
/* Output k is input value v itself (Identity). */
Status onnx_out_alias(OnnxCtx *c, uint32_t k, const OnnxVal *v);
/* Output k gets a value of another kind (filled by the caller); NULL + st on error. */
OnnxVal *onnx_out_val(OnnxCtx *c, uint32_t k, Status *st);

/* The runtime edge of a value: an OV_CONST is added as an OpGraph parameter (float values
 * must be integers unless the model carries float bits [onnx.float.weights]). */
Status onnx_edge(OnnxCtx *c, OnnxVal *v, OgEdge *out);
/* The shape of a value (OV_CONST: its dims, rank 0 allowed). */
OgShape onnx_shape(const OnnxVal *v);

/* ---- attributes ---- */

const Onnx__AttributeProto *onnx_attr(OnnxCtx *c, const char *name);
/* Typed getters: ST_OK with the default when absent, a logic error [onnx.attr] for a wrong
 * type or a value out of [lo, hi]. */
Status onnx_attr_int(OnnxCtx *c, const char *name, int64_t def, int64_t lo, int64_t hi,
                     int64_t *out);
Status onnx_attr_float(OnnxCtx *c, const char *name, float def, float *out);
/* A list (NULL, *n = 0 when absent), at most max elements. */
Status onnx_attr_ints(OnnxCtx *c, const char *name, uint32_t max, const int64_t **v,
                      uint32_t *n);
Status onnx_attr_floats(OnnxCtx *c, const char *name, uint32_t max, const float **v,
                        uint32_t *n);
/* A string (def when absent), copied into buf. */
Status onnx_attr_str(OnnxCtx *c, const char *name, const char *def, char *buf, size_t size);
/* Every attribute of the node must be in the NULL-terminated list [onnx.attr.unknown]. */
Status onnx_attrs_known(OnnxCtx *c, const char *const *known);

/* ---- building ---- */

/* Adds a CVM node over ins with attributes kv ("key", "value", ..., NULL), named after the
 * current node ("<node>/<what>"); *out = its output 0. A CVM logic error is reported under
 * the ONNX node. */
Status onnx_cvm(OnnxCtx *c, CvmOp op, const char *what, const OgEdge *ins, uint32_t nin,
                const char *const *kv, OgEdge *out);
/* A CVM parameter from int values (count = volume of s; rank-0 s is stored as (1)). */
Status onnx_const_i32(OnnxCtx *c, const char *what, const OgShape *s, const int32_t *v,
                      OgEdge *out);
/* Reshapes e (any shape) to s. */
Status onnx_reshape(OnnxCtx *c, OgEdge e, const OgShape *s, OgEdge *out);
/* The element map: out element i = data element idx[i] (flat, C order); out has shape s. */
Status onnx_gather_flat(OnnxCtx *c, OgEdge data, const OgShape *s, const int32_t *idx,
                        OgEdge *out);
/* A result shape within the OpGraph's limits (OG_MAX_*) [onnx.shape.rank, .dims, .volume]. */
Status onnx_check_shape(OnnxCtx *c, const OgShape *s);
/* Broadcasts e of shape from to shape to (numpy rules; the caller checked them). */
Status onnx_broadcast_to(OnnxCtx *c, OgEdge e, const OgShape *from, const OgShape *to,
                         OgEdge *out);
/* numpy broadcasting of a and b into *out; false when they do not broadcast. */
bool onnx_bcast_shape(const OgShape *a, const OgShape *b, OgShape *out);
/* ONNX wrap-around arithmetic: when e's precision can exceed the ONNX integer type t, the
 * value is wrapped modulo 2^bits into t's range (exactly what ONNX's integer types do). */
Status onnx_wrap(OnnxCtx *c, OgEdge e, int32_t t, OgEdge *out);
/* floor(e / 2^s) (s >= 1). */
Status onnx_floor_shift(OnnxCtx *c, OgEdge e, int s, OgEdge *out);
/* e * 2^s (a left shift whose result precision is e's plus s; more than 32 is a logic
 * error [onnx.precision]). */
Status onnx_shl(OnnxCtx *c, OgEdge e, int s, OgEdge *out);
/* Adds a scalar constant k to e (k may be 0: e itself). */
Status onnx_add_scalar(OnnxCtx *c, OgEdge e, int64_t k, OgEdge *out);
/* clip(e, lo, hi). */
Status onnx_clip(OnnxCtx *c, OgEdge e, int64_t lo, int64_t hi, OgEdge *out);
/* cvm_lut(e, tab[0..n)) for a table built by the caller (a constant named what; in_dim = n,
 * as cvm-runtime requires). */
Status onnx_lut(OnnxCtx *c, const char *what, OgEdge e, const int32_t *tab, int64_t n,
                OgEdge *out);

/* Normalizes an axis of a rank-r tensor from [-r, r) [onnx.attr]. */
Status onnx_axis(OnnxCtx *c, const char *what, int64_t axis, uint32_t r, uint32_t *out);
/* Reads a constant int input as int64 values (NULL *v when absent). */
Status onnx_const_ints(OnnxCtx *c, uint32_t k, const int64_t **v, int64_t *n, bool *present);
/* Reads a constant float input (scales) into floats (NULL when absent). */
Status onnx_const_floats(OnnxCtx *c, uint32_t k, const float **v, int64_t *n, bool *present);

/* Element maps of data movement: C-order strides of s. */
void onnx_strides(const OgShape *s, int64_t *st);

/* ---- the host-side reference arithmetic (onnx_edge.c) ---- */
float onnx_rne(float x);

/* floor and ceil without libm (values beyond +-2^62 are returned unchanged; NaN too). */
static inline double onnx_floor(double x)
{
    if (!(x > -4.6e18 && x < 4.6e18))
        return x;
    int64_t i = (int64_t)x;
    if ((double)i > x)
        i--;
    return (double)i;
}

static inline double onnx_ceil(double x)
{
    return -onnx_floor(-x);
}

/* True when x is an integer (and finite). */
static inline bool onnx_is_int(double x)
{
    return x > -4.6e18 && x < 4.6e18 && onnx_floor(x) == x;
}

#endif
