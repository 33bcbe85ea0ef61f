/* blockbox.h: parts of a block as boxes in its eight shape dims, and the bytes an edge
 * carries: what the mapper (mapper/problem.c) and the Mapping verifier (verify_map_chip.c)
 * count alike, so that a Mapping the mapper plans within the budgets also verifies.
 *   - the part of a storage block a copy on a core holds: the bounding box of the parts its
 *     readers there read (the interfaces at the block's output clusters), the whole block
 *     when none reads it there;
 *   - its bytes: chip_storage_bytes scaled by the part's share of the block's volume;
 *   - an edge's bytes: the volume of the interface box at one end times that block's
 *     precision bits, rounded up to bytes. */
#ifndef TASKIR_BLOCKBOX_H
#define TASKIR_BLOCKBOX_H

#include "taskir/graph.h"
#include "taskir/uses.h"

#include <stdbool.h>
#include <stdint.h>

/* [lo, hi) per shape dim. */
typedef struct BlockBox {
    int64_t lo[TIR_NDIMS], hi[TIR_NDIMS];
} BlockBox;

/* The whole of block b (a dim without size counts 1). */
void bbox_full(const Block *b, BlockBox *x);
/* The part of the block at position pos that the interface naming edge id at its input
 * (input true) or output clusters covers; the whole block when there is none, the interface
 * has no size, or the box would leave the block. */
void bbox_of_iface(const Graph *g, const GraphUses *u, uint32_t pos, bool input, int32_t id,
                   BlockBox *x);
/* The volume (product of hi - lo; 0 when any is empty). */
int64_t bbox_volume(const BlockBox *x);
/* a becomes the bounding box of a and b; *empty true means a holds nothing yet. */
void bbox_union(BlockBox *a, const BlockBox *b, bool *empty);
/* a becomes a ∩ b (possibly empty). */
void bbox_inter(BlockBox *a, const BlockBox *b);
/* bytes scaled by volume(part) / volume(whole), rounded up; bytes itself when the part is the
 * whole (or larger) or the whole has no volume. */
int64_t bbox_scale_bytes(int64_t bytes, const BlockBox *part, const BlockBox *whole);
/* The bytes edge e carries, counted at its source (at_src) or destination end: 0 when that
 * end or its interface is missing, -1 on overflow. */
int64_t bbox_edge_bytes(const Graph *g, const GraphUses *u, const Edge *e, bool at_src);

#endif
