/* canon.h: the fields taskir's canonical form writes explicitly although they equal taskir's
 * own defaults, because the existing open Task IR tools read an absent field as 0
 * (docs/formats.md, "Writing conventions"). graph_pack (pbio.c) asks these functions what to
 * write; the working IR is not changed, so loading a saved file and saving it again gives the
 * same bytes. */
#ifndef TASKIR_CANON_H
#define TASKIR_CANON_H

#include "taskir/graph.h"
#include "taskir/uses.h"

#include <stdint.h>

/* The shape to write for block b: its own dims, plus, on a window block (BF_WINDOW) that has
 * its y and x, the window dims it leaves absent at their values (ky, kx = 1; iy = y;
 * ix = x). A block without y and x (an SI or CCMPB over f alone) is the existing tools'
 * 1-D form and is written as it is, like every other optional dim left absent. */
void canon_shape(const Block *b, Shape *out);

/* A box of b's input (or output) cluster idx as the existing tools see it once written:
 * zeroes the dims of box[] that come from a block dim canon_shape leaves absent (taskir reads
 * an absent y or x as 1, they as no axis: an SI of f = 64 has the box y=1 x=1 f=64 in taskir
 * and f = 64 in their tools). */
void canon_box(const Block *b, bool input, uint32_t idx, int32_t box[TIR_CDIMS]);

/* The attributes b does not carry that are written with their default value: STRIDE_X/Y on
 * the types that take them, DILATION_X/Y likewise (1, where the existing tools read 0). Fills
 * out (room for CANON_MAX_ATTRS) in AttributeType order; returns the count. */
enum { CANON_MAX_ATTRS = 4 };
uint32_t canon_default_attrs(const Block *b, AttrId out[CANON_MAX_ATTRS]);

/* The bias_type to write: b's own, else VECTOR when b has a bias cluster (the existing tools
 * count a block's inputs by its clusters and bias_type), else BIAS_ABSENT. */
int canon_bias_type(const Block *b);

/* The permutation to write for step i of edge e when it is a RESHAPE without one: C order,
 * p = [k-1, ..., 1, 0] over the k axes the step receives (its input shape found through g's
 * use index u). Returns k (its entries in p), or 0 when the step is not such a RESHAPE or its
 * input shape cannot be found (an edge the verifier refuses: it is written as it is). */
uint32_t canon_reshape_p(const Graph *g, const GraphUses *u, const Edge *e, uint32_t i,
                         int32_t p[TIR_CDIMS]);

#endif
