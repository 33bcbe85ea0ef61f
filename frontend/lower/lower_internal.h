/* lower_internal.h: what the lowering files share (private to frontend/lower*.c).
 *
 *   lower.c          the driver: inputs, outputs, constant folding, the per-operator table
 *                    (an X-macro over cvm_ops.def: operator NAME is lowered by lw_op_NAME)
 *   lower_block.c    messages, block names, block builders (what every step uses), the
 *                    entry to the edge encoder
 *   lower_value.c    lowered values, feeding a value into a storage block
 *   taskir/encode.c turning an element map into edges: interfaces and rearrangements
 *   lower_move.c     data movement (element maps computed by the interpreter on indices),
 *                    upsampling included
 *   lower_nn.c       conv2d, dense, max_pool2d
 *   lower_elemwise.c relu, unary, binary and broadcast arithmetic, requantization, tables,
 *                    where
 *   lower_reduce.c   sum, max
 *   lower_vision.c   get_valid_counts, non_max_suppression
 *
 * A lowered value (LVal) is one CVM tensor as the TaskGraph holds it for ONE sample:
 *   LV_PROD   the output cluster of one producer (a compute block or INPUT) holds the
 *             per-sample tensor T transposed by perm, in C order: cluster element j is
 *             T.transpose(perm).flat[j];
 *   LV_CONST  a parameter (or a folded constant): its full values, known at compile time;
 *   LV_MAP    an element map: per-sample element i comes from producer srcs[msrc[i]] at flat
 *             offset moff[i] of its output cluster (data movement, grouped convolution);
 *             feeding it into a storage block turns the map into edges (taskir/encode.c).
 * Per-sample shapes: with batch N == 1 the per-sample tensor is the whole tensor (its axis 0
 * is a size-1 axis like any other); with N > 1 it is the tensor without axis 0. Constants
 * always keep their full shape, the interpreter's, even when axis 0 is the batch (the zeros
 * of cvm_left_shift on a precision-1 input or cvm_right_shift by 32, results folded from
 * them): where one sample of such a constant is taken (lw_move_map for operands and data
 * movement, a model output in lower.c) its samples must hold equal values [lower.batch].
 */
#ifndef FRONTEND_LOWER_INTERNAL_H
#define FRONTEND_LOWER_INTERNAL_H

#include "frontend/cvm/cvm_ops.h"
#include "frontend/lower/lower.h"
#include "frontend/opgraph/opgraph.h"
#include "taskir/conv_leaf.h"
#include "taskir/encode.h"
#include "taskir/graph.h"

#include <stdbool.h>
#include <stdint.h>

#define LW_MAX_DIM ENC_MAX_DIM          /* largest block dim (shape.range) */
#define LW_MAX_LEAVES ENC_MAX_LEAVES    /* most interfaces one fed cluster may get */
#define LW_MAX_IMAGES 256               /* most images of one sample a conv2d / pool computes */
#define LW_MAX_TABLE_DW 16              /* largest LUT_DW (attributes.def) */
#define LW_LUT_CORE_DW 12               /* largest LUT_DW whose int32 table a core holds */

/* A producer: the output cluster 0 of a compute block or of INPUT (taskir/encode.h). */
typedef EncSrc LwSrc;

typedef enum { LV_NONE, LV_PROD, LV_CONST, LV_MAP } LvKind;

typedef struct LVal {
    LvKind kind;
    OgShape ps;             /* per-sample shape (CONST: the full shape) */
    int32_t prec;           /* CVM precision: |v| <= 2^(prec-1) - 1 */
    /* LV_PROD */
    LwSrc src;
    int perm[OG_MAX_DIMS];
    Block *bias_sb;         /* the SB holding the producer's bias vector, or NULL */
    bool bias_ok;           /* the producer's bias may take a rounding constant */
    Block *lo_blk;          /* a CCMPB whose CMP is the lower bound of this value, or NULL */
    /* LV_CONST */
    OgTensor c;
    bool c_owned;           /* c.data is malloc'd by the lowering */
    /* LV_MAP */
    uint32_t nsrc;
    LwSrc *srcs;            /* malloc'd */
    int32_t *msrc, *moff;   /* malloc'd, one per per-sample element */
    bool has_hint;          /* hint: a good layout for this value's consumers */
    int hint[OG_MAX_DIMS];
} LVal;

typedef struct Lw {
    const OpGraph *og;
    Graph *g;
    Diag *d;
    int64_t N;              /* the batch: axis 0 of the model inputs */
    int drop;               /* 1 when N > 1: per-sample shapes drop axis 0 */
    LVal *vals;             /* one per (node, output), node-major */
    uint32_t *first;        /* slot of each node's output 0 */
    uint32_t *uses;         /* readers still to come, per slot */
    uint32_t *nuse;         /* readers in all (consumers and model outputs), per slot */
    const OgNode *cur;      /* the node being lowered */
    /* The last SI made for a producer's value within the current node, reused when the same
     * value is wanted again in the same layout (one storage block, several readers). */
    struct {
        const OgNode *node;
        const Block *src;
        OgShape ps;
        int perm[OG_MAX_DIMS];
        int32_t yxf[3];
        Block *si;
    } cache;
} Lw;

/* ---- messages, names, blocks (lower_block.c) ---- */

/* A logic error about the current node: where = "node 12 'conv1' (conv2d)". */
Status lw_fail(Lw *L, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
Status lw_oom(Lw *L);
/* "conv1" or "conv1/suffix" (suffix NULL or ""). */
void lw_name(const Lw *L, const char *suffix, char *buf, size_t len);
/* A new block named after the current node, with shape dims y x f r ky kx iy ix (0 absent)
 * and, when prec >= 0, that precision. NULL on out of memory (the graph is marked failed). */
Block *lw_block(Lw *L, BlockType t, const char *suffix, const int32_t shape[TIR_NDIMS],
                int prec);
/* Storage precision for values of CVM precision p: INT_8, INT_16 or INT_32. */
PrecisionId lw_store_prec(int32_t p);
/* Gives a storage block its data: dims = its used dims, values v (n of them). */
Status lw_set_data(Lw *L, Block *b, PrecisionId prec, const int32_t *v, int64_t n);
/* A whole-cluster edge: output cluster 0 of src -> input cluster in_idx of dst. */
Status lw_connect(Lw *L, Block *src, Block *dst, uint32_t in_idx);
/* Sets n attributes; false on out of memory. */
bool lw_set_attrs(Lw *L, Block *b, const AttrId *ids, const int32_t *vals, int n);

/* ---- values ---- */

/* The value of input k of the current node. */
LVal *lw_in(Lw *L, uint32_t k);
/* Stores v as output k of the current node (v is moved: the caller's copy is cleared). */
void lw_set_out(Lw *L, uint32_t k, LVal *v);
/* Frees what a value owns and clears it. */
void lw_val_free(LVal *v);
/* A PROD value for output cluster 0 of b. */
void lw_prod(LVal *v, Block *b, const OgShape *ps, const int *perm, int32_t prec);
/* A copy of v (owned arrays duplicated). */
Status lw_val_copy(Lw *L, const LVal *v, LVal *out);
/* The element map of v: per per-sample element, the source (index into *srcs) and the flat
 * offset. For a PROD, *srcs has one entry. Arrays malloc'd. */
Status lw_val_map(Lw *L, const LVal *v, LwSrc **srcs, uint32_t *nsrc, int32_t **msrc,
                  int32_t **moff);
/* Turns a MAP whose elements are exactly one producer's cluster in order (the identity
 * layout or the hint's) into a PROD. */
void lw_val_simplify(LVal *v);
/* The number of elements of a shape (1 for rank 0). */
int64_t lw_volume(const OgShape *s);
/* perm as the identity of n axes. */
void lw_identity(int *perm, int n);

/* The cluster-dims grouping (y, x, f) of dims d[0..k) in C order: the last dim goes to f,
 * the one before to x, the rest to y, as far as each stays within 2^24. [lower.limit] */
Status lw_group3(Lw *L, const int64_t *d, int k, int32_t out[3]);
/* The layout an elementwise consumer uses for v: its producer's (PROD), its hint (MAP) or
 * the identity; and the (y, x, f) dims of a compute block holding it. */
Status lw_layout(Lw *L, const LVal *v, const OgShape *ps, int *perm, int32_t yxf[3]);

/* Makes a constant a producer: an SI holding its values (c->c, laid out as c->ps in C order)
 * as data, then an identity CADD (one input, no bias, INT_32). */
Status lw_const_producer(Lw *L, const LVal *c, const char *suffix, LVal *out);

/* Feeds v into input cluster in_idx of storage block dst: the box (pos, size in cluster dims
 * y x f r ky kx; size NULL = the whole cluster) receives the per-sample tensor
 * T[tlo : tlo + text] transposed by dperm, in C order (tlo NULL: the whole tensor). The box
 * volume must equal the volume of text. */
Status lw_feed(Lw *L, const LVal *v, Block *dst, uint32_t in_idx, const int32_t *pos,
               const int32_t *size, const int *dperm, const int64_t *tlo, const int64_t *text);

/* An operand's SI: dims yxf, fed with v in layout perm, named "<node>/<suffix>"; reuses the
 * SI made for the same producer value and layout within the current node (Lw.cache). */
Status lw_stage_in(Lw *L, const LVal *v, const int *perm, const int32_t yxf[3],
                   const char *suffix, Block **out);
/* A compute block of type t with dims (y, x, f) fed, input cluster k, from ins[k]
 * (lower_block.c). */
Block *lw_compute(Lw *L, BlockType t, const char *suffix, const int32_t yxf[3],
                  Block *const *ins, int nins, int prec);

/* ---- encoding element maps as edges (taskir/encode.c, through lower_block.c) ---- */

/* The taskir builders' context for the current node (findings name it, added blocks are
 * named after it); where (wlen bytes) holds the place. */
void lw_enc_ctx(Lw *L, EncCtx *c, char *where, size_t wlen);
/* enc_map for the current node. */
Status lw_encode(Lw *L, Block *dst, uint32_t in_idx, const int32_t pos[TIR_CDIMS],
                 const int32_t size[TIR_CDIMS], const LwSrc *srcs, const int32_t *esrc,
                 const int32_t *eoff, int64_t n);

/* enc_whole for the current node. */
Status lw_encode_whole(Lw *L, const LwSrc *s, Block *dst, uint32_t in_idx,
                       const int32_t *pos, const int32_t *size);

/* ---- running interpreter functions at compile time (lower_move.c) ---- */

/* Runs the current node's operator function (or fn when not NULL) on tensors in (shapes as
 * given) into out (allocated here with shape oshape). */
Status lw_run(Lw *L, CvmRunFn fn, const OgTensor *const *in, const OgShape *oshape,
              OgTensor *out);
/* The per-sample element map of a data-movement function: fn (the current node's when NULL)
 * runs on tensors of the full shapes full_in, where data inputs (is_data) hold their
 * elements' global numbers and the others the values vals[k] (constant indices) or zeros.
 * The result maps each per-sample output element i to input min[i] and its element mel[i]
 * (per-sample when batched[k], else the whole tensor's). With N > 1 every sample must map to
 * itself at the same offsets [lower.batch]; for a data input that is a constant (not
 * batched, vals[k] given: vals may be NULL) equal values at other offsets will do. Arrays
 * malloc'd. */
Status lw_move_map(Lw *L, CvmRunFn fn, uint32_t nin, const OgShape *full_in,
                   const bool *is_data, const bool *batched, const OgTensor *const *vals,
                   const OgShape *full_out, int32_t **min, int64_t **mel);
/* Composes such a map (n output elements) with the values ins[k] into a new value (a MAP,
 * simplified to a PROD when it is one producer's cluster in order). Constants are first made
 * producers (lw_const_producer). */
Status lw_move_value(Lw *L, uint32_t nin, const LVal *const *ins, const int32_t *min,
                     const int64_t *mel, int64_t n, const OgShape *ps_out, int32_t prec,
                     LVal *out);
/* The value of the current data-movement node: inputs with is_data[k] are moved, the others
 * are read (constant indices, a constant condition) or only shape the result. keep_hint: the
 * output keeps input 0's axes, so input 0's layout suits its consumers. */
Status lw_move_node(Lw *L, const bool *is_data, bool keep_hint);
/* A table lookup of the current node: input kidx (computed) indexes the constant input ktab
 * (cvm_lut, take with a constant tensor; lower_elemwise.c). */
Status lw_lookup(Lw *L, uint32_t kidx, uint32_t ktab);
/* The per-sample shape of a full shape s (drop axis 0 when N > 1). */
OgShape lw_ps_of(const Lw *L, const OgShape *s);

/* The current node, a unary or a binary elementwise operator (NumPy broadcasting), as one
 * CLUT whose table is the node's own interpreter function (lower_elemwise.c). Unary: the
 * operand's precision <= 16. Binary: as broadcast_div: a constant scalar operand and the
 * other <= 16 bits, else the sum of both precisions <= 16. Otherwise [lower.precision]. */
Status lw_table_unary(Lw *L);
Status lw_table_binary(Lw *L);
/* Lowers the current node, a CINN extension operator (cinn_ops.def), with its lw_op_NAME
 * (lower_cinn.c); a runtime error [lower.internal] for a code without a row. */
Status lw_cinn_op(Lw *L);

/* ---- the per-operator functions: lw_op_NAME for each row of cvm_ops.def ---- */
#define X(name, min_in, max_in, nout, parse, shape, prec, run, flags) \
    Status lw_op_##name(Lw *L);
#include "frontend/cvm/cvm_ops.def"
#undef X

#endif
