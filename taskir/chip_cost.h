/* chip_cost.h: what a block costs on a core of a described chip (CHIP.md §1-2, docs/chip.md):
 * the memory it really takes (aligned as the primitives lay it out) and the clocks of one run
 * (the resource model's formulas, as intended). The passes fit groups with these figures, the
 * mapper places and schedules with them, the backend's memory plan must agree with them.
 */
#ifndef TASKIR_CHIP_COST_H
#define TASKIR_CHIP_COST_H

#include "taskir/chip.h"
#include "taskir/graph.h"
#include "taskir/uses.h"

/* The memory of one group (a compute block, the storage blocks it reads, its output buffer),
 * in bytes, aligned. */
typedef struct GroupMem {
    int64_t input;    /* input storage (SI, SIC, SIC2D, SIFC) read by the compute block */
    int64_t weight;   /* SW, SW2D, SWFC and CLUT tables */
    int64_t bias;     /* SB */
    int64_t output;   /* the compute block's output buffer */
    int64_t total;    /* the sum; -1 when a figure overflows */
} GroupMem;

/* Bytes storage block b takes in a core's memory, aligned for the primitive of consumer
 * (the compute block it feeds; NULL: the storage type's default layout). -1 on overflow. */
int64_t chip_storage_bytes(const Chip *c, const Block *b, const Block *consumer);
/* Bytes of compute block b's output buffer (an Axon's int32 output padded to
 * align_axon_out per pixel; a Soma's in its precision padded to align_input). -1 on
 * overflow. */
int64_t chip_output_bytes(const Chip *c, const Block *b);
/* Bytes compute block pos's output buffer is counted as wherever memory is counted (the
 * split, fuse, the mapper, map.mem.core, chip_group_mem): the larger of the chip
 * description's (chip_output_bytes: 16-byte rows, int32 Axon rows, a CLIF's neuron states
 * beside its output) and the code generator's layout (layout_buffer_bytes_as,
 * taskir/layout_buf.h). as: a stand-in for pos with another shape (a split piece before it
 * is made, the part of a Soma a piece computes), its pitch that of pos; NULL for pos
 * itself. -1 on overflow. */
int64_t chip_buffer_held(const Chip *c, const Graph *g, const GraphUses *u, uint32_t pos,
                         const Block *as);
/* The memory of the group of compute block b: b, every storage block with an edge into b,
 * b's output buffer. false when b is not a compute block or a figure overflows. */
bool chip_group_mem(const Chip *c, const Graph *g, const GraphUses *u, const Block *b,
                    GroupMem *out);
/* Clocks of one run of compute block b on its primitive, -1 when the chip has no primitive
 * for it or on overflow. The formulas that depend on the input's precision (g_f, write_v,
 * d) take it as INT_8 here; chip_block_clocks_in and chip_group_clocks give the real one. */
int64_t chip_block_clocks(const Chip *c, const Block *b);
/* The same with input precision in (-1 also when the formula needs it and the chip does not
 * encode it). */
int64_t chip_block_clocks_in(const Chip *c, const Block *b, PrecisionId in);
/* The same with the precision of the block that feeds b's first input cluster (INT_8 when
 * nothing does). */
int64_t chip_group_clocks(const Chip *c, const Graph *g, const GraphUses *u, const Block *b);

#endif
