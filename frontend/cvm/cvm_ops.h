/* cvm_ops.h: internal interface between the operator table (frontend/ops/op_table.c), the
 * shared helpers (cvm_ops.c), the operator families (cvm_ops_*.c), the reader and the
 * interpreter. Not installed.
 *
 * Each operator contributes four functions named in its cvm_ops.def row. They share a
 * CvmCtx naming the node being processed, so that every error is reported as
 *     node 12 'conv1' (conv2d): attribute 'padding' ... [cvm.attr.padding]
 * Attributes are parsed once from strings into typed OpGraph attributes with defaults
 * filled in; later stages read them with og_attr_*.
 */
#ifndef FRONTEND_CVM_OPS_H
#define FRONTEND_CVM_OPS_H

#include "frontend/cvm/cvm.h"
#include "frontend/opgraph/opgraph.h"
#include "taskir/diag.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct CvmCtx {
    OpGraph *g;
    OgNode *n;              /* the node being parsed, inferred or run */
    Diag *d;
    bool overflow;          /* run: a result left int32 (checked after each operator) */
} CvmCtx;

typedef struct CvmRawAttrs {
    const CvmKV *kv;
    size_t n;
} CvmRawAttrs;

enum {
    CVM_OPF_FILL = 1u << 0,
    CVM_OPF_HOST = 1u << 1  /* data-dependent: no TaskGraph lowering on computed inputs
                               ([lower.host]); taskir-compile --allow-host leaves it, and what
                               depends on it, to the host (compile.h) */
};

typedef Status (*CvmParseFn)(CvmCtx *c, const CvmRawAttrs *raw);
typedef Status (*CvmShapeFn)(CvmCtx *c, const OgShape *in, OgShape *out);
typedef Status (*CvmPrecFn)(CvmCtx *c, const OgShape *in, const int32_t *in_prec,
                            int32_t *out_prec);
typedef Status (*CvmRunFn)(CvmCtx *c, const OgTensor *const *in, OgTensor *out);

typedef struct CvmOpInfo {
    const char *name;
    int min_in, max_in, nout;
    CvmParseFn parse;
    CvmShapeFn shape;
    CvmPrecFn prec;
    CvmRunFn run;
    unsigned flags;
    const char *dialect;    /* whose operator: "cvm" (cvm_ops.def) or "cinn" (cinn_ops.def) */
} CvmOpInfo;

/* The table row of op (op < CVM_OP_COUNT), or of a CINN frontend operator (cinn_ops.h:
 * CINN_OP_BASE <= op < CINN_OP_END); NULL for any other code. The one table of both
 * dialects and its lookups are in frontend/ops/op_table.c. */
const CvmOpInfo *cvm_op_info(CvmOp op);

#define X(name, min_in, max_in, nout, parse, shape, prec, run, flags)                      \
    Status parse(CvmCtx *c, const CvmRawAttrs *raw);                                       \
    Status shape(CvmCtx *c, const OgShape *in, OgShape *out);                              \
    Status prec(CvmCtx *c, const OgShape *in, const int32_t *in_prec, int32_t *out_prec);  \
    Status run(CvmCtx *c, const OgTensor *const *in, OgTensor *out);
#include "frontend/cvm/cvm_ops.def"
#undef X

/* conv2d and dense computed by their formula in int64 (cvm_ops_nn.c): what cvm_run_conv2d and
 * cvm_run_dense compute when the operands do not prove their int32 matrix product exact
 * (cvm_gemm.h); tests hold the two paths to each other. Same contract as the run functions. */
Status cvm_run_conv2d_formula(CvmCtx *c, const OgTensor *const *in, OgTensor *out);
Status cvm_run_dense_formula(CvmCtx *c, const OgTensor *const *in, OgTensor *out);

/* ---- errors ---- */

/* A logic error about the current node: where = "node N 'name' (op)". Returns ST_LOGIC. */
Status cvm_fail(CvmCtx *c, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* An attribute's error: rule "cvm.attr.<name>", message "attribute '<name>' ...". */
Status cvm_fail_attr(CvmCtx *c, const char *attr, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Out of memory (runtime error [oom]). */
Status cvm_oom(CvmCtx *c);

/* ---- attribute schemas ---- */

typedef enum {
    CA_INT,                 /* an int (int32 range unless lo/hi say otherwise) */
    CA_INTS,                /* a tuple of ints */
    CA_BOOL,
    CA_OPT_INT,             /* an int or None */
    CA_STR                  /* a string, optionally one of `choices` */
} CvmAttrType;

typedef struct CvmAttrSpec {
    const char *name;
    CvmAttrType type;
    const char *def;        /* default, in attribute syntax; NULL: required */
    int64_t lo, hi;         /* inclusive bounds of the int / of each tuple element */
    uint32_t min_len, max_len; /* CA_INTS: element count bounds (max 0: CVM_MAX_ATTR_LIST) */
    const char *choices;    /* CA_STR: accepted values separated by '|'; NULL: any */
} CvmAttrSpec;

/* Bounds shorthands. */
#define CVM_I32_LO ((int64_t)INT32_MIN)
#define CVM_I32_HI ((int64_t)INT32_MAX)

/* Parses raw against the schema: every key known (or hidden "__x__"), every value of its
 * type and within bounds, defaults for absent keys, required keys present. Stores typed
 * attributes on c->n. Errors [cvm.attr.<name>], [cvm.attr.unknown]. */
Status cvm_parse_attrs(CvmCtx *c, const CvmRawAttrs *raw, const CvmAttrSpec *spec, size_t n);

/* Checks c->n's input count: exactly want. [cvm.op.inputs] */
Status cvm_want_inputs(CvmCtx *c, uint32_t want);

/* ---- shape and precision helpers ---- */

/* Input k's shape must have ndim dims [cvm.shape.rank]. */
Status cvm_want_rank(CvmCtx *c, const OgShape *in, uint32_t k, uint32_t ndim);
/* Normalizes axis from [-n, n) (plus extra: [-n-extra, n+extra)) to [0, n+extra);
 * false when out of range. */
bool cvm_axis(int64_t axis, int64_t n, int64_t extra, int64_t *out);
/* Number of bits of v (0 for 0): cvm-runtime's GetReduceSumBit. */
int32_t cvm_bits(uint64_t v);
/* cvm-runtime's GetNumberPrecision(n): bits(n + 1) + 1. */
int32_t cvm_number_prec(int64_t n);
/* The smallest precision holding every value of t (1..33; 33 = does not fit). */
int32_t cvm_prec_of(const OgTensor *t);
/* C-order strides of s into st[]. */
void cvm_strides(const OgShape *s, int64_t *st);
/* The multi-index of flat index i in shape s. */
void cvm_unflatten(const OgShape *s, int64_t i, int64_t *idx);

/* Shared shape/precision rules used by several rows. */
Status cvm_shape_same(CvmCtx *c, const OgShape *in, OgShape *out);
Status cvm_prec_same(CvmCtx *c, const OgShape *in, const int32_t *in_prec, int32_t *out_prec);
Status cvm_prec_first(CvmCtx *c, const OgShape *in, const int32_t *in_prec, int32_t *out_prec);
Status cvm_prec_add(CvmCtx *c, const OgShape *in, const int32_t *in_prec, int32_t *out_prec);
Status cvm_prec_mul(CvmCtx *c, const OgShape *in, const int32_t *in_prec, int32_t *out_prec);
Status cvm_parse_none(CvmCtx *c, const CvmRawAttrs *raw);
Status cvm_run_copy(CvmCtx *c, const OgTensor *const *in, OgTensor *out);

/* Signed shifts without relying on implementation-defined behaviour: floor(x / 2^k). */
static inline int64_t cvm_floor_shr(int64_t x, int k)
{
    if (k <= 0)
        return x;
    if (k >= 63)
        return x < 0 ? -1 : 0;
    return x >= 0 ? x >> k : -((-(x + 1)) >> k) - 1;
}

/* A result for an int32 tensor; a value outside int32 marks the context (the interpreter then
 * reports a broken invariant) instead of being converted. */
static inline int32_t cvm_i32(CvmCtx *c, int64_t v)
{
    if (v < INT32_MIN || v > INT32_MAX) {
        c->overflow = true;
        return 0;
    }
    return (int32_t)v;
}

static inline int64_t cvm_clamp64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Whether v is one of choices, values separated by '|' ("NCHW|NHWC"). */
bool cvm_choice_ok(const char *choices, const char *v);

#endif
