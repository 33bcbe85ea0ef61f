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

#include <stdbool.h>
#include <stdint.h>

/* Whether compute block w's result into storage block s may need a P06 of its own on w's
 * core (a tee re-pitching the area w's primitive writes into s's, backend/emit_tee.c): w
 * writes a storage block before s (in the order of its out edges) in another layout
 * (precision, or pitch unit: layout_storage_unit), or before s when other blocks write the
 * rest of s (the P06 copies w's result into its part). w's primitive writes the first of them
 * on its core; one in the same layout shares its area (no P06). The mapper keeps a Soma slot
 * between w and the reader of s on w's core for it (one too many when that earlier block has
 * no copy there). */
bool premove_tee(const Graph *g, const GraphUses *u, uint32_t w, uint32_t s);

/* The P06s inserted before compute block pos: 1 for a CADD adding one box to itself that
 * runs as P02 (0 when it runs as P83, layout_repeat_scales), n for a
 * CADD of n >= 2 different inputs (input i's P06 copies input cluster i), 0 for any other
 * block. */
uint32_t premove_count(const Graph *g, const GraphUses *u, uint32_t pos);

#endif
