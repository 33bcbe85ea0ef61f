/* rearrange.h: the rearrangement steps an edge may carry (RearrangeInfo), decoded from their
 * parameter tensors, checked, and described readably. docs/semantics.md defines each type.
 *
 * Model: an edge reads its source interface box as a tensor whose axes are the box's used
 * dims (the non-zero dims of the source cluster, in y x f r ky kx order). Each rearrangement
 * step maps a tensor to a new tensor (RaStep: the decoded parameters and both shapes); the
 * result of the last step is written into the destination box in C order, so its volume must
 * equal the destination box's volume. The simulator applies the steps (sim_rearrange.c).
 */
#ifndef TASKIR_REARRANGE_H
#define TASKIR_REARRANGE_H

#include "taskir/graph.h"
#include "taskir/uses.h"

#include <stddef.h>
#include <stdint.h>

/* Largest extent of one axis and volume of one tensor a rearrangement may produce. */
#define RA_MAX_ELEMS ((int64_t)1 << 28)
/* Largest magnitude of an AFFINE / PROJECT matrix entry (keeps the int64 sums exact). */
#define RA_MAX_COEF (1 << 24)

typedef struct RaShape {
    int k;                       /* number of axes, 0..TIR_CDIMS */
    int64_t d[TIR_CDIMS];        /* extents, each >= 1 */
} RaShape;

/* One decoded rearrangement step. Only the fields of its type are meaningful. */
typedef struct RaStep {
    RearrangeType type;
    RaShape in, out;
    int perm[TIR_CDIMS];         /* RESHAPE, PERMUTE: out axis j = in axis perm[j] */
    int64_t shift[TIR_CDIMS];    /* SHIFT: per-axis displacement */
    int cyclic;                  /* SHIFT: 1 cyclic, 0 zero-fill */
    int turns;                   /* ROTATE: quarter turns counter-clockwise, 0..3 */
    int ax0, ax1;                /* ROTATE, SHEAR: the plane (row axis, column axis) */
    int32_t factor[TIR_CDIMS];   /* SCALE: >1 upsample, <-1 downsample, +-1 keep */
    int64_t shear_a, shear_b;    /* SHEAR: column shift per row / row shift per column */
    int flip[TIR_CDIMS];         /* REFLECT: 1 = reverse this axis */
    int32_t mat[(TIR_CDIMS + 1) * (TIR_CDIMS + 1)]; /* AFFINE [k][k+1], PROJECT [k+1][k+1] */
    int32_t den;                 /* AFFINE: the common denominator (>= 1) */
    const Tensor *index;         /* SHUFFLE: the index table */
    int axis;                    /* SHUFFLE: the axis it permutes, -1 = whole tensor */
} RaStep;

/* The used dims of a box: the axes of the tensor an edge reads (box[i] == 0: unused). */
void ra_shape_of_box(const int32_t box[TIR_CDIMS], RaShape *out);
int64_t ra_volume(const RaShape *s);

/* Decodes one rearrangement applied to a tensor of shape in. On failure returns false and
 * writes the reason into why (e.g. "PERMUTE: p has 2 entries, the box has 3 axes"). */
bool ra_decode(const Rearrange *r, const RaShape *in, RaStep *out, char *why, size_t whylen);

/* Writes a readable one-line form of the step's parameters, independent of any shape, e.g.
 * "PERMUTE p=[1,0,2]", "SHIFT d=[0,-1,0] cyclic", "ROTATE 90deg axes=(0,1)",
 * "AFFINE M=[[1,0,0],[0,1,2]] den=1 out=[4,4]". Malformed parameters are printed as they are,
 * followed by " (invalid: ...)" when ra_decode would reject them for every shape. */
void rearrange_describe(const Rearrange *r, char *buf, size_t len);

/* The source and destination interfaces of an edge (found through the use index u of g,
 * uses.h) and their box extents (y x f r ky kx; 0 = unused dim). false, with the reason in
 * why, when an end or its interface is missing or a box does not fit its cluster. */
typedef struct EdgeEnds {
    const Block *src, *dst;
    uint32_t src_cluster, dst_cluster;   /* output cluster of src, input cluster of dst */
    const Iface *src_if, *dst_if;
    int32_t src_cdims[TIR_CDIMS], dst_cdims[TIR_CDIMS]; /* whole cluster extents */
    int32_t src_pos[TIR_CDIMS], dst_pos[TIR_CDIMS];     /* box origins */
    int32_t src_box[TIR_CDIMS], dst_box[TIR_CDIMS];     /* box extents */
} EdgeEnds;
bool edge_ends(const Graph *g, const GraphUses *u, const Edge *e, EdgeEnds *out, char *why,
               size_t whylen);

/* Whether edge ed's steps keep the C order of its values: none, a RESHAPE or PERMUTE whose
 * axes longer than 1 keep their order (whatever it does with axes of extent 1), a SHUFFLE
 * whose index is the identity, IDENTITY; false when a step does not decode. */
bool ra_edge_keeps_order(const Graph *g, const GraphUses *u, const Edge *ed);

/* Checks the edge's rearrangement chain against its boxes: every step's parameters decode
 * [rearrange.<type>], and the last step's volume equals the destination box's volume
 * [rearrange.volume] (for an edge without steps: equal volumes, [rearrange.volume]). Missing
 * ends are reported as [rearrange.ends]. ST_OK or ST_LOGIC; findings go to d. */
Status rearrange_check(const Graph *g, const GraphUses *u, const Edge *e, Diag *d);

#endif
