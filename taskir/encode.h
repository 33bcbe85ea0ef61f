/* encode.h: the element-map encoder: "element i of a box of a storage block's input cluster
 * comes from this producer at this flat offset of its output cluster" becomes edges,
 * interfaces and rearrangements (docs/lowering.md, "Feeding a storage block"). It needs only
 * the Graph, so the lowering and the passes that rewrite a graph share it.
 */
#ifndef TASKIR_ENCODE_H
#define TASKIR_ENCODE_H

#include "taskir/graph.h"

#define ENC_MAX_DIM (1 << 24)      /* largest block dim (shape.range) */
#define ENC_MAX_LEAVES 65536       /* most interfaces one fed cluster may get */

/* A producer: the output cluster 0 of a compute block or of INPUT, and its dims. */
typedef struct EncSrc {
    Block *b;
    int32_t cd[TIR_CDIMS];  /* its cluster dims, y x f r ky kx (0 = unused) */
} EncSrc;

/* Where the encoder works: the graph, the findings, the place findings name ("node 12
 * 'conv1' (conv2d)"; NULL: none) and the provenance base of the blocks it adds ("conv1":
 * "conv1/stage"; NULL or empty: "graph"). */
typedef struct EncCtx {
    Graph *g;
    Diag *d;
    const char *where;
    const char *name;
} EncCtx;

/* Connects the elements of the box (pos, size: cluster dims; the elements in C order of the
 * box's used dims) of input cluster in_idx of dst: element i comes from srcs[esrc[i]] at
 * flat offset eoff[i] of its output cluster. Logic errors [lower.limit]; [oom];
 * [lower.internal]. */
Status enc_map(const EncCtx *c, Block *dst, uint32_t in_idx, const int32_t pos[TIR_CDIMS],
               const int32_t size[TIR_CDIMS], const EncSrc *srcs, const int32_t *esrc,
               const int32_t *eoff, int64_t n);

/* One edge from the whole cluster of s into the box (NULL: whole) of dst's input cluster,
 * with a RESHAPE when the two boxes have different extents. */
Status enc_whole(const EncCtx *c, const EncSrc *s, Block *dst, uint32_t in_idx,
                 const int32_t *pos, const int32_t *size);

/* Adds a block of type t named "<base>/<suffix>" (base NULL or empty: "graph"; suffix NULL
 * or empty: "<base>"), with this shape (NULL: none) and precision (< 0: none); compute and
 * INPUT blocks get their output cluster. NULL when out of memory. */
Block *enc_block(Graph *g, BlockType t, const char *base, const char *suffix,
                 const int32_t shape[TIR_NDIMS], int prec);

#endif
