/* premove.h: the P06s the code generator inserts into Soma slots between the moment a
 * compute block's inputs are in place on its core and the block's own slot, so that the
 * mapper's schedule keeps as many Soma slots free for them as the code generator then takes
 * (docs/mapper.md "Schedule", docs/backend.md "Inserted primitives"): one fact, which
 * mapper/schedule.c and backend/emit_plan.c, emit_gather.c both ask here.
 *
 * A CADD of n >= 2 inputs runs as P02, which reads its n inputs back to back in one area:
 * one P06 repeats the box when every input is the same box of one storage block (the
 * mapper's x + x, layout_repeats) that P83 cannot scale where it lies (none when it can,
 * layout_repeat_scales), else one P06 a different input copies it into its part of the area
 * (a gather).
 */
#ifndef TASKIR_PREMOVE_H
#define TASKIR_PREMOVE_H

#include "taskir/graph.h"
#include "taskir/uses.h"

#include <stdint.h>

/* The P06s inserted before compute block pos: 1 for a CADD adding one box to itself that
 * runs as P02 (0 when it runs as P83, layout_repeat_scales), n for a
 * CADD of n >= 2 different inputs (input i's P06 copies input cluster i), 0 for any other
 * block. */
uint32_t premove_count(const Graph *g, const GraphUses *u, uint32_t pos);

#endif
