/* blockbox.h: parts of a block as boxes in its eight shape dims, and the bytes an edge
 * carries: what the mapper (mapper/problem.c) and the Mapping verifier (verify_map_chip.c)
 * count alike, so that a Mapping the mapper plans within the budgets also verifies.
 *   - the part of a storage block a copy on a core holds: the bounding box of the parts its
 *     readers there read (the interfaces at the block's output clusters), the whole block
 *     when none reads it there;
 *   - its bytes: bbox_storage_bytes (a feature map in the layout table's pitch, layout.h;
 *     else chip_storage_bytes) scaled by the part's share of the block's volume;
 *   - an edge's bytes: the volume of the interface box at one end times that block's
 *     precision bits, rounded up to bytes;
 *   - the bytes an edge takes in its destination's memory (a receive area holds what arrives
 *     in the layout its reader reads, channels padded): the destination storage block's
 *     bbox_storage_bytes scaled by the share of it the interface box covers. */
#ifndef TASKIR_BLOCKBOX_H
#define TASKIR_BLOCKBOX_H

#include "taskir/chip.h"
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

/* The first compute block (in edge order) reading the storage block at pos, or NULL: the
 * consumer whose layout chip_storage_bytes gives the block. */
const Block *bbox_first_reader(const Graph *g, const GraphUses *u, uint32_t pos);
/* Bytes the storage block at pos takes in a core's memory on chip c: a feature map (SI, SIC)
 * in the pitch every primitive writing and reading it takes (layout_storage_unit,
 * taskir/layout.h: what the code generator lays out), a model input only CLIFs read as
 * int32 words (one a channel: P08's input, backend/emit_p08.c), anything else as
 * chip_storage_bytes lays it out for its first reader. -1 on overflow. */
int64_t bbox_storage_bytes(const Chip *c, const Graph *g, const GraphUses *u, uint32_t pos);
/* The bytes edge e takes in its destination storage block's memory on chip c (its
 * bbox_storage_bytes, scaled to the interface box): 0 when the destination is not a storage
 * block or the interface is missing, -1 on overflow. */
int64_t bbox_edge_layout_bytes(const Chip *c, const Graph *g, const GraphUses *u,
                               const Edge *e);

#endif
