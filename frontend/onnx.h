/* onnx.h: the ONNX frontend: a ModelProto (decoded with protobuf-c from the onnx.proto of
 * Debian's libonnx-dev, generated at build time) mapped onto an OpGraph of dialect "cvm", so
 * that the reference interpreter (interp.h) and the lowering (lower.h) serve ONNX models
 * unchanged. docs/onnx.md gives the operator mapping, the rounding and the exactness limits.
 *
 * What the chip computes is integers. The model's edges carry the conversions a host does:
 *   - an integer graph input / output (int8, uint8, int16, uint16, int32, bool; int64 whose
 *     values fit int32) is passed as is;
 *   - a float32 graph input that only data-movement operators touch (the whole model moves
 *     bits) carries float32 bit patterns as int32 (ONNX_EDGE_FLOAT_BITS);
 *   - in any other model a float32 tensor holds integer values (the quantized-float style of
 *     the existing open toolchain: Div by 2^s -> Floor -> Clip): inputs must hold integers
 *     within the input's precision, outputs are converted back (ONNX_EDGE_FLOAT_INT);
 *   - QuantizeLinear on a graph input is done by the host (round half to even, saturate:
 *     ONNX_EDGE_QUANT), DequantizeLinear on a graph output likewise (ONNX_EDGE_DEQUANT); the
 *     OpGraph's input / output is the quantized integer tensor.
 * The OpGraph's inputs are the ONNX inputs with a leading axis of 1 (the lowering's batch),
 * reshaped to the ONNX shape by the first node; its outputs have the ONNX shapes.
 *
 * Every failure is a logic error naming the node ("node 3 'conv1' (Conv, opset 13)") and a
 * rule [onnx.*] (docs/onnx.md), or a runtime error (I/O, out of memory). Operators the
 * frontend does not support are reported all at once [onnx.unsupported], one entry a node.
 * No input makes the reader crash or allocate without bound: the wire format is walked and
 * capped before protobuf-c decodes it, every count and size is checked.
 */
#ifndef FRONTEND_ONNX_H
#define FRONTEND_ONNX_H

#include "frontend/opgraph.h"
#include "taskir/diag.h"
#include "taskir/npy.h"
#include "taskir/progress.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ONNX_MAX_FILE_BYTES ((size_t)256 << 20)   /* largest .onnx read */
#define ONNX_MAX_NODES 65536u                     /* nodes of the main graph */
#define ONNX_MAX_NODE_IO 4096u                    /* inputs or outputs of one node */
#define ONNX_MAX_ATTRS 256u                       /* attributes of one node */
#define ONNX_MAX_ATTR_LIST 4096u                  /* elements of a list attribute */

/* ONNX TensorProto.DataType codes the frontend knows. */
typedef enum {
    ONNX_T_UNDEFINED = 0, ONNX_T_FLOAT = 1, ONNX_T_UINT8 = 2, ONNX_T_INT8 = 3,
    ONNX_T_UINT16 = 4, ONNX_T_INT16 = 5, ONNX_T_INT32 = 6, ONNX_T_INT64 = 7,
    ONNX_T_STRING = 8, ONNX_T_BOOL = 9, ONNX_T_FLOAT16 = 10, ONNX_T_DOUBLE = 11,
    ONNX_T_UINT32 = 12, ONNX_T_UINT64 = 13
} OnnxType;

/* "float", "uint8", ... ("type N" for others, into a static table: never NULL). */
const char *fe_onnx_type_name(int32_t t);

/* A decoded tensor (an initializer, a Constant, a test's TensorProto). Integer types are in
 * i (uint64 values above INT64_MAX are refused), float and double in f (double rounded to
 * float is refused unless exact); the other array is NULL. ndim may be 0 (a scalar). */
typedef struct OnnxTensor {
    int32_t type;           /* OnnxType */
    uint32_t ndim;
    int64_t dims[OG_MAX_DIMS];
    int64_t count;
    int64_t *i;
    float *f;
    const char *name;       /* "" when the proto has none */
} OnnxTensor;

/* Decodes a serialized TensorProto (the test data's input_N.pb / output_N.pb). On success
 * t owns malloc'd memory: fe_onnx_tensor_free it. what names the bytes in messages.
 * Logic errors [onnx.tensor.*]. */
Status fe_onnx_tensor_read_mem(const uint8_t *buf, size_t len, const char *what,
                               OnnxTensor *t, Diag *d);
Status fe_onnx_tensor_read(const char *path, OnnxTensor *t, Diag *d);
/* An .npy array (npy.h) as a tensor of the matching type (int8, uint8, int16, int32, float),
 * for OnnxBinding. what names the array in messages. */
Status fe_onnx_tensor_from_npy(const NpyArray *a, const char *what, OnnxTensor *t, Diag *d);
void fe_onnx_tensor_free(OnnxTensor *t); /* accepts NULL; leaves it zeroed */

typedef enum {
    ONNX_EDGE_INT,          /* integer values, passed as is */
    ONNX_EDGE_FLOAT_BITS,   /* float32 bit patterns carried as int32 */
    ONNX_EDGE_FLOAT_INT,    /* float32 holding integers */
    ONNX_EDGE_QUANT,        /* graph input: float32, quantized by the host */
    ONNX_EDGE_DEQUANT       /* graph output: float32, dequantized by the host */
} OnnxEdgeKind;

/* One graph input or output as the host sees it. */
typedef struct OnnxEdge {
    const char *name;       /* the ONNX value's name */
    OnnxEdgeKind kind;
    int32_t onnx_type;      /* the ONNX tensor's element type */
    int32_t int_type;       /* the integer type the chip side holds (QUANT/DEQUANT: the
                               quantized type; FLOAT_*: INT32) */
    OgShape shape;          /* the ONNX shape (ndim >= 1) */
    int32_t prec;           /* the OpGraph precision of the chip-side tensor */
    int64_t lo, hi;         /* inputs: the values accepted at the edge (INT: the type's range;
                               FLOAT_INT: the precision's; or the declared OnnxInputRange) */
    /* QUANT / DEQUANT: per-tensor (nq == 1) or per-channel along axis (nq = its extent) */
    int32_t axis;
    uint32_t nq;
    const float *scale;
    const int32_t *zero_point;
} OnnxEdge;

typedef struct OnnxModel {
    OpGraph *g;             /* dialect "cvm"; owns everything below */
    OnnxEdge *inputs;       /* [ninputs], the OpGraph's inputs in order */
    uint32_t ninputs;
    OnnxEdge *outputs;      /* [noutputs], the OpGraph's outputs in order */
    uint32_t noutputs;
    int64_t ir_version;
    int64_t opset;          /* of the default domain */
    bool float_bits;        /* float tensors carry bit patterns (a pure data-movement model) */
} OnnxModel;

/* A graph input bound to a constant at compile time (as if it were an initializer). */
typedef struct OnnxBinding {
    const char *name;
    const OnnxTensor *value;
} OnnxBinding;

/* The values a graph input will hold (taskir-compile / taskir-run --input-range): the
 * OpGraph input gets the least precision that holds lo..hi, and the host refuses other
 * values. For integer inputs (within the type's range) and float inputs holding integers. */
typedef struct OnnxInputRange {
    const char *name;
    int64_t lo, hi;
} OnnxInputRange;

typedef struct OnnxOptions {
    int32_t float_prec;     /* precision of float-holding-integer inputs (0: 16) */
    const OnnxBinding *bind;    /* graph inputs bound to constants (--const) */
    uint32_t nbind;
    const OnnxInputRange *ranges;   /* declared ranges of graph inputs (--input-range) */
    uint32_t nranges;
} OnnxOptions;

/* Reads a model (path "-" = stdin) / decodes one from memory. opt may be NULL. On success
 * *out is a new model (fe_onnx_destroy it). The caller's Diag names the file. A bound input
 * becomes a constant of its declared element type and must have its declared shape
 * [onnx.input.shape, .value]; a name bound or given a range that is no graph input is
 * [onnx.input.unknown], a range that does not fit the input [onnx.input.range]. */
Status fe_onnx_load(const char *path, const OnnxOptions *opt, OnnxModel **out, Diag *d);
Status fe_onnx_load_mem(const uint8_t *buf, size_t len, const OnnxOptions *opt,
                        OnnxModel **out, Diag *d);
void fe_onnx_destroy(OnnxModel *m); /* accepts NULL */

/* True when the frontend maps operator op_type of the default domain at this opset (the
 * table onnx_ops.def, plus Constant). */
bool fe_onnx_op_supported(const char *op_type, int64_t opset);
/* The first opset from which op_type is mapped, or -1 when it is not supported. */
int fe_onnx_op_since(const char *op_type);
/* The supported operators: name and first opset of the k-th row (k < count); false past the
 * end. */
bool fe_onnx_op_row(uint32_t k, const char **name, int *since);

/* True when input k of an ONNX operator of this type is a parameter (weights, a shape,
 * indices, a scale...) that must be an initializer; false for data inputs and unknown ops. */
bool fe_onnx_input_is_param(const char *op_type, uint32_t k);

/* True when a taskir-compile / taskir-run model path names an ONNX model (ends in .onnx). */
bool fe_looks_like_onnx(const char *path);

/* Host side of the edges. fe_onnx_input_convert: the chip-side values of input k from the
 * ONNX-side values (n of them; ints or floats, exactly one non-NULL) into a malloc'd tensor
 * of the OpGraph input's shape. Logic errors [onnx.input.*] for a wrong count, a float that
 * is not an integer (FLOAT_INT), or a value outside the chip-side type. */
Status fe_onnx_input_convert(const OnnxModel *m, uint32_t k, const int64_t *ints,
                             const float *floats, int64_t n, OgTensor *out, Diag *d);
/* fe_onnx_output_convert: the ONNX-side values of output j from the chip-side values
 * (n of them) into a malloc'd array: int64 for integer outputs (*ints), float for float
 * outputs (*floats); the other pointer is set to NULL. */
Status fe_onnx_output_convert(const OnnxModel *m, uint32_t j, const int32_t *v, int64_t n,
                              int64_t **ints, float **floats, Diag *d);

/* Runs an ONNX model in the reference interpreter on named arrays: what `taskir-run
 * MODEL.onnx --input NAME=X.npy -o DIR` does. Each array (int8/uint8/int16/int32 or float32)
 * goes to the graph input of that name (or decimal position), must have its ONNX shape and
 * is converted at the edge (fe_onnx_input_convert: an integer array for a quantized input is
 * taken as already quantized). outputs[j] (room for m->noutputs) receives the chip-side
 * integer values of output j in its ONNX shape (leading 1 included), which the compiled
 * TaskGraph's OUTPUT block declares as its model tensor, with the ONNX element type
 * (m->g->out_decl[j].dtype), so that taskir-run writes the same files for the model and for
 * the TaskGraph compiled from it. Logic errors [onnx.input.unknown, .duplicate,
 * .missing, .shape, .dtype, .value] naming the input, then the interpreter's. */
struct FeModelInput;
/* The element type of output j's file: the ONNX type for an int8, uint8 or int16 output (as
 * onnxruntime writes it), else int32 (the chip-side integers). */
NpyDtype fe_onnx_output_dtype(const OnnxModel *m, uint32_t j);
/* Is a graph input of this ONNX shape (four dims led by 1: an ONNX batch of 1) the OpGraph's
 * batch axis itself, instead of getting a leading axis of 1 added? Its INPUT block is then
 * the three other dims, y x f (docs/onnx.md). */
bool fe_onnx_batch_folded(const OgShape *onnx_shape);
Status fe_onnx_run(const OnnxModel *m, const struct FeModelInput *inputs, uint32_t ninputs,
                   OgTensor *outputs, Diag *d);
/* fe_onnx_run reporting the interpreter's progress (fe_interp_run_progress; may be NULL). */
Status fe_onnx_run_progress(const OnnxModel *m, const struct FeModelInput *inputs,
                            uint32_t ninputs, OgTensor *outputs, const TirProgress *progress,
                            Diag *d);

/* The reference arithmetic (docs/onnx.md), exposed for tests: QuantizeLinear's
 * saturate(round_half_even(x / scale) + zp), and onnxruntime's requantization
 * saturate(round_half_even(float32(acc) * float32(multiplier)) + zp) into [lo, hi]. */
int32_t fe_onnx_quantize(float x, float scale, int32_t zp, int32_t lo, int32_t hi);
int32_t fe_onnx_requantize(int64_t acc, float multiplier, int32_t zp, int32_t lo, int32_t hi);

#endif
