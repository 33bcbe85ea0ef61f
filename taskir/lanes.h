/* lanes.h: which edges move values between pixels or between the lanes of a pixel, so that
 * no primitive writes their result straight and the code generator's router moves the bytes
 * (docs/backend.md "Rearrangements", "Bytes between lanes"): one fact, which the mapper's
 * schedule (mapper/schedule.c: a reader on the writer's core runs after that router) and
 * the code generator (backend/emit_plan.c, emit_lanes.c) both ask here.
 */
#ifndef TASKIR_LANES_H
#define TASKIR_LANES_H

#include "taskir/graph.h"
#include "taskir/uses.h"

#include <stdbool.h>

/* Whether edge ed, from a compute block into a storage block whose readers are not all
 * CVMs or OUTPUTs (which may read it as a view of the writer's map, backend/emit_rearr.c),
 * has steps that change the C order of its values (ra_edge_keeps_order, taskir/rearrange.h), or its pixels' count or channels: the
 * router then moves its bytes on the writer's core (a self send), so a reader there runs
 * after the router of the writer's phase. */
bool lanes_moved(const Graph *g, const GraphUses *u, const Edge *ed);

/* Whether storage block s may be held one value a word (docs/backend.md "Rearrangements",
 * "Rearrangements"): an 8-bit SI without data that one INPUT writes, by edges of which one
 * at least has steps, and that only OUTPUTs read, when no view of the socket held as it is
 * fits in its own layout (one value a word, the socket takes more bytes than the map's own
 * layout, or the one edge reads a box of it: a view is then the code generator's choice,
 * backend/emit_rearr.c, counted as the map's own bytes), and the dynamic blocks of one of
 * its edges cannot place the socket in its own layout (sockbox_edge_fits). The code generator
 * holds it so, unpadded in INT_32 words, when the INPUT's dynamic blocks cannot place the
 * socket in its own layout (a value in several lanes, a lane that is no word's first) and
 * no view of the socket holds it; the mapper counts the larger of the two layouts
 * (bbox_storage_bytes, taskir/blockbox.c). */
bool lanes_wide_input(const Graph *g, const GraphUses *u, uint32_t s);
/* The bytes of storage block s held one value a word (lanes_wide_input): its values times
 * 4; 0 when it is not, -1 on overflow. */
int64_t lanes_wide_bytes(const Graph *g, const GraphUses *u, uint32_t s);

#endif
