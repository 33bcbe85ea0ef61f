/* layout_buf.h: a compute block's output buffer as the code generator lays it out
 * (docs/backend.md "What goes where", output buffers; backend/emit_plan.c make_outs asks
 * these), which the one count of it (chip_buffer_held, taskir/chip_cost.h) that the split,
 * fuse, the mapper's memory rule and the verifier's map.mem.core read takes when larger
 * than the chip description's 16-byte rows (chip_output_bytes): a P07 writing rows of its
 * input's pitch (4 times for one int32 channel read from 16-byte int8 pixels). */
#ifndef TASKIR_LAYOUT_BUF_H
#define TASKIR_LAYOUT_BUF_H

#include "taskir/graph.h"
#include "taskir/types.h"
#include "taskir/uses.h"

#include <stdbool.h>
#include <stdint.h>

/* Whether compute block pos, whose output takes pitch unit own, writes rows of another pitch
 * than unit gives: a P07 writes the row it reads, a P02, P03, P43 or P83 the channel groups
 * it reads, so where the storage it writes takes another pitch it keeps its own in a buffer
 * and the router re-pitches what it sends. */
bool layout_own_row(const Graph *g, const GraphUses *u, uint32_t pos, int unit, int own);
/* The precision (*prec) and the pitch unit of compute block pos's output buffer: an Axon's
 * int32, else the precision of the storage it writes (the last); the pitch of the receivers'
 * copies (the first storage's, in that precision), else its output's own. A P02 / P03 / P43
 * / P83 writes the pitch it reads, and a P07 the row it reads where the storage takes
 * another (layout_own_row): its own. */
int layout_buffer_unit(const Graph *g, const GraphUses *u, uint32_t pos, PrecisionId *prec);
/* Bytes of compute block pos's output buffer so laid out (its output cluster's pixels and
 * channels); 0 when it has no layout, -1 on overflow. */
int64_t layout_buffer_bytes(const Graph *g, const GraphUses *u, uint32_t pos);
/* layout_buffer_bytes with as standing for block pos (a stand-in of another shape: a split
 * piece before it is made, in pos's pitch; NULL: pos itself). */
int64_t layout_buffer_bytes_as(const Graph *g, const GraphUses *u, uint32_t pos,
                               const Block *as);
#endif
