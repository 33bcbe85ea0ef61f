/* cinn.h: the CINN-style frontend (docs/cinn.md): a C builder whose functions follow the
 * CinnBuilder primitives of the CINN primitive semantics (docs/cinn.md), and an XML program format
 * with one element per builder call, both producing an OpGraph of integer tensors with declared
 * precisions (dialect "cvm": CVM operators plus the CINN extension operators of cinn_ops.def),
 * which the CVM lowering (lower.h) compiles and the reference interpreter (interp.h) runs.
 *
 * THE table is cinn_prims.def: one row per primitive, supported (what it becomes) or rejected
 * (why). Variables are CinnVar handles. Like CinnBuilder, which throws, every builder call
 * checks its inputs at once: on a logic error it records a message in the builder's Diag and
 * returns CINN_NONE; a call given CINN_NONE returns CINN_NONE without a further message, so a
 * chain of calls reports only its first error. fe_cinn_status() gives the worst status so far.
 * Messages read
 *     prog.xml:12: Exp 'e': the input has precision 12; ... [cinn.precision]
 * (with a file set by fe_cinn_set_file or the XML reader; "call 12" otherwise), the where
 * being the XML element's line. Rule ids: docs/cinn.md. A failed call leaves no node behind.
 *
 * Every successful call is recorded (fe_cinn_get_call) with its attributes complete (defaults
 * filled in), which is what fe_cinn_write_xml writes: builder -> XML -> builder round-trips.
 */
#ifndef FRONTEND_CINN_H
#define FRONTEND_CINN_H

#include "frontend/opgraph/opgraph.h"
#include "taskir/diag.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A variable: the result of one call. */
typedef int32_t CinnVar;
#define CINN_NONE ((CinnVar)-1)

typedef enum {
#define X(Name, snake, cls, roles, attrs, build, status, how) CINN_P_##Name,
#include "frontend/cinn/cinn_prims.def"
#undef X
    CINN_P_COUNT
} CinnPrim;

#define CINN_MAX_CALLS (1u << 16)              /* most calls in one program */
#define CINN_MAX_NAME 255                      /* longest variable name */
#define CINN_MAX_LIST 32                       /* most values of a list attribute */
#define CINN_MAX_INPUTS 4096                   /* most inputs of one call (Concat) */
#define CINN_MAX_XML_BYTES ((size_t)256 << 20) /* largest XML program read */

/* One builder call, as the XML reader makes it and the program records it. */
typedef struct CinnCall {
    CinnPrim prim;
    const char *name;       /* the result variable's name ([A-Za-z_][A-Za-z0-9_.-]*); NULL:
                               generated ("add_3"); unused by Output */
    const CinnVar *inputs;  /* the variables of the row's roles, in order; a list role
                               ("inputs*") takes all of them */
    uint32_t ninputs;
    const OgAttr *attrs;    /* attributes by name, any order; absent ones take their default */
    uint32_t nattrs;
    const OgTensor *value;  /* Constant: its values (copied) */
    int32_t line;           /* the source line named in messages; 0: the call's number */
} CinnCall;

typedef struct CinnBuilder CinnBuilder;

/* A new builder with an empty program; messages go to d, which must outlive it. NULL on out
 * of memory. */
CinnBuilder *fe_cinn_create(Diag *d);
void fe_cinn_destroy(CinnBuilder *b); /* accepts NULL */
/* Names the source file in messages ("file:line"); copied. */
void fe_cinn_set_file(CinnBuilder *b, const char *file);
/* The worst status of any call so far (ST_OK when every call succeeded). */
Status fe_cinn_status(const CinnBuilder *b);
/* The OpGraph built so far (valid until fe_cinn_destroy). */
const OpGraph *fe_cinn_graph(const CinnBuilder *b);

/* The recorded program: the successful calls in order, attributes complete in schema order
 * (an optional attribute left unset is OG_ATTR_NONE), inputs as variables. */
uint32_t fe_cinn_num_calls(const CinnBuilder *b);
const CinnCall *fe_cinn_get_call(const CinnBuilder *b, uint32_t i);
/* A variable's name, shape and precision (NULL / 0 for an invalid variable). */
const char *fe_cinn_var_name(const CinnBuilder *b, CinnVar v);
const OgShape *fe_cinn_var_shape(const CinnBuilder *b, CinnVar v);
int32_t fe_cinn_var_prec(const CinnBuilder *b, CinnVar v);
/* The variable called name, or CINN_NONE. */
CinnVar fe_cinn_find_var(const CinnBuilder *b, const char *name);

/* Any call: the generic entry the XML reader and the typed functions below use. Returns the
 * result variable (Output: its input), or CINN_NONE. */
CinnVar fe_cinn_call(CinnBuilder *b, const CinnCall *call);

/* ---- the table ---- */

const char *fe_cinn_prim_name(CinnPrim p);         /* "Exp"; NULL when invalid */
bool fe_cinn_prim_from_name(const char *name, CinnPrim *out);
bool fe_cinn_prim_supported(CinnPrim p);
/* What the primitive becomes, or why it is rejected (cinn_prims.def's `how`). */
const char *fe_cinn_prim_how(CinnPrim p);

/* ---- typed builder functions (docs/cinn.md; name may be NULL) ---- */

/* A model input of the given shape (1..6 dims) and precision (1..32); axis 0 is the batch. */
CinnVar fe_cinn_input(CinnBuilder *b, const char *name, const OgShape *shape, int32_t precision);
/* A constant tensor (values copied); precision 0: the smallest that holds the values. */
CinnVar fe_cinn_constant(CinnBuilder *b, const char *name, const OgTensor *value,
                         int32_t precision);
/* Marks x as the next model output; returns x. */
CinnVar fe_cinn_output(CinnBuilder *b, CinnVar x);
/* ConstScalar(value, name): shape (1,). */
CinnVar fe_cinn_const_scalar(CinnBuilder *b, int64_t value, const char *name);

/* The fixed-point format of a real-valued unary primitive: x stands for x / 2^in_frac, the
 * result for y / 2^out_frac, saturated to precision (0: the input's precision). */
typedef struct CinnFixed {
    int32_t in_frac, out_frac, precision;
} CinnFixed;

/* Unary: fe_cinn_abs(b, x, name), ... (class UNARY); real-valued: fe_cinn_exp(b, x, fx, name)
 * with fx NULL for {0, 0, 0} (class REAL); rounding of a fixed-point value with frac fraction
 * bits (0: integers, the identity): fe_cinn_floor(b, x, frac, name) (class ROUND); binary:
 * fe_cinn_add(b, x, y, name), ... (class BINARY). */
#define CINN_API_UNARY(snake) \
    CinnVar fe_cinn_##snake(CinnBuilder *b, CinnVar x, const char *name);
#define CINN_API_REAL(snake) \
    CinnVar fe_cinn_##snake(CinnBuilder *b, CinnVar x, const CinnFixed *fx, const char *name);
#define CINN_API_ROUND(snake) \
    CinnVar fe_cinn_##snake(CinnBuilder *b, CinnVar x, int32_t frac, const char *name);
#define CINN_API_BINARY(snake) \
    CinnVar fe_cinn_##snake(CinnBuilder *b, CinnVar x, CinnVar y, const char *name);
#define CINN_API_OTHER(snake)
#define X(Name, snake, cls, roles, attrs, build, status, how) CINN_API_##cls(snake)
#include "frontend/cinn/cinn_prims.def"
#undef X
#undef CINN_API_UNARY
#undef CINN_API_REAL
#undef CINN_API_ROUND
#undef CINN_API_BINARY
#undef CINN_API_OTHER

/* BroadcastTo(x, out_shape, broadcast_axes): input axis i becomes output axis axes[i]. */
CinnVar fe_cinn_broadcast_to(CinnBuilder *b, CinnVar x, const int64_t *out_shape,
                             uint32_t nout, const int64_t *axes, uint32_t naxes,
                             const char *name);

typedef enum { CINN_CMP_EQ, CINN_CMP_NE, CINN_CMP_GE, CINN_CMP_GT, CINN_CMP_LE, CINN_CMP_LT }
    CinnCmp;
/* Compare(x, y, kind): 1 where the comparison holds, else 0. */
CinnVar fe_cinn_compare(CinnBuilder *b, CinnVar x, CinnVar y, CinnCmp kind, const char *name);
/* Concat(inputs, axis). */
CinnVar fe_cinn_concat(CinnBuilder *b, const CinnVar *inputs, uint32_t n, int64_t axis,
                       const char *name);

/* Conv's attributes; fe_cinn_conv_init sets CINN's defaults (strides, dilations 1, paddings
 * 0, groups 1, "forward", "NCHW", "EXPLICIT", no output_shape). */
typedef struct CinnConvAttrs {
    int64_t strides[2], paddings[2], dilations[2], groups;
    const char *conv_type, *data_format, *padding_algorithm;
    const int64_t *output_shape;    /* NULL: none */
    uint32_t noutput_shape;
} CinnConvAttrs;
void fe_cinn_conv_init(CinnConvAttrs *a);
/* Conv(lhs, rhs, ...): attrs NULL for the defaults. */
CinnVar fe_cinn_conv(CinnBuilder *b, CinnVar lhs, CinnVar rhs, const CinnConvAttrs *attrs,
                     const char *name);

typedef enum { CINN_REDUCE_SUM, CINN_REDUCE_PROD, CINN_REDUCE_MAX, CINN_REDUCE_MIN }
    CinnReduceKind;
CinnVar fe_cinn_reduce(CinnBuilder *b, CinnVar x, CinnReduceKind kind, const int64_t *dim,
                       uint32_t ndim, bool keep_dim, const char *name);
CinnVar fe_cinn_reshape(CinnBuilder *b, CinnVar x, const int64_t *shape, uint32_t n,
                        const char *name);
CinnVar fe_cinn_reverse(CinnBuilder *b, CinnVar x, const int64_t *axis, uint32_t n,
                        const char *name);
CinnVar fe_cinn_select(CinnBuilder *b, CinnVar condition, CinnVar true_value,
                       CinnVar false_value, const char *name);
CinnVar fe_cinn_slice(CinnBuilder *b, CinnVar x, const int64_t *axes, const int64_t *starts,
                      const int64_t *ends, uint32_t n, const char *name);
CinnVar fe_cinn_transpose(CinnBuilder *b, CinnVar x, const int64_t *axis, uint32_t n,
                          const char *name);
/* Training primitives: always a logic error [cinn.training]. */
CinnVar fe_cinn_bn_mean_variance(CinnBuilder *b, CinnVar input, const char *name);
CinnVar fe_cinn_bn_grad_bias_scale(CinnBuilder *b, CinnVar input, CinnVar grad,
                                   CinnVar save_mean, const char *name);

/* ---- XML programs (frontend/cinn/cinn.xsd) ---- */

/* Reads and validates an XML program and runs its calls into a new builder (*out; messages
 * go to d, which must outlive it). Every message names the file and the line
 * ("prog.xml:12"): malformed XML [cinn.xml.parse], a DOCTYPE [cinn.xml.dtd], a violation of
 * the schema [cinn.xml.schema], then the builder's own checks, and a program without an
 * Output [cinn.output]. On any error *out is NULL.
 * Runtime errors for I/O and out of memory. */
Status fe_cinn_read_xml(const char *path, Diag *d, CinnBuilder **out);
/* The same from memory; file names the program in messages. */
Status fe_cinn_read_xml_mem(const char *xml, size_t len, const char *file, Diag *d,
                            CinnBuilder **out);
/* The recorded program as XML (malloc'd, NUL-terminated; *len without the NUL). */
Status fe_cinn_xml_encode(const CinnBuilder *b, char **buf, size_t *len, Diag *d);
/* Writes it atomically to path ("-": stdout). */
Status fe_cinn_write_xml(const CinnBuilder *b, const char *path, Diag *d);
/* The XSD the reader validates against (NUL-terminated; also installed as
 * share/taskir/cinn.xsd). */
const char *fe_cinn_xsd(size_t *len);

#endif
