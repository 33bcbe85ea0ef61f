/* verify_impl.h: the verifier's passes (private to taskir/verify*.c).
 *
 * verify.c runs the passes in a fixed order and owns the Verifier state:
 *   verify_block.c  rules about one block alone (shape, window, attributes, bias, cluster
 *                   counts and shapes, data, volumes);
 *   verify_iface.c  interfaces (bounds, the edge they name, exact cover of input clusters);
 *   verify_edge.c   rules about edges (ids, endpoints, references, producer pairs, box sizes
 *                   and volumes: the interfaces naming an edge come from the use index) and
 *                   the cycle check;
 *   verify_culprit.c which block to blame when an edge's two ends differ in size.
 * The Verifier state and the helpers the passes share are in verify_util.h. Every finding
 * goes through vfy_block / vfy_edge / vfy_add, which count it, so verify_graph can tell its
 * own findings from what the Diag held before.
 */
#ifndef TASKIR_VERIFY_IMPL_H
#define TASKIR_VERIFY_IMPL_H

#include "taskir/verify_util.h"

/* When edge e joins whole clusters (its first interfaces src and dst) of sizes s0 (src) and
 * d0 (dst) that differ, reports the block the type table says is wrong [shape.operand,
 * io.shape] and returns true; false when it cannot tell (edge.size then speaks).
 * verify_culprit.c. */
bool verify_size_culprit(Verifier *v, const Edge *e, const VEnd *src, const VEnd *dst,
                         const int64_t s0[TIR_CDIMS], const int64_t d0[TIR_CDIMS]);

/* The passes, in the order verify_graph runs them. */
void verify_block_local(Verifier *v, const Block *b);
void verify_block_ifaces(Verifier *v, const Block *b);
void verify_edges(Verifier *v);
void verify_cycles(Verifier *v);

#endif
