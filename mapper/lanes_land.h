/* lanes_land.h: a transfer into another core whose bytes the code generator's router sends
 * over several phases (taskir/lanes.h lanes_phases; backend/emit_route_spill.c) keeps its
 * landing area in the receiver's receive area from the first of them to the last, and the
 * P06 moving the copy out takes Soma2 of the last (docs/mapper.md "Runs of bytes"). The
 * schedule counts both (mapper/schedule.c ready_one), so that no other transfer lands there
 * in between over the same bytes (test_diff_chain/yolo_head: a stage's result sent to a core
 * of the next stage over phases 20..31, where the next stage's other input landed in phase
 * 31). Internal to mapper/. */
#ifndef TASKIR_MAPPER_LANES_LAND_H
#define TASKIR_MAPPER_LANES_LAND_H

#include "mapper/plan.h"

#include <stdbool.h>
#include <stdint.h>

/* Transfer xi, planned to land in global phase ph (its one part) on vcore v (MAP_NONE: a
 * fresh core) of M phases a stage, whose bytes the router sends on to global phase last
 * (map_lanes_last, > ph): adds its landing bytes to recv (v's receive budget by local
 * phase) for the phases after ph to last, and, when commit and v is known, keeps v's Soma2
 * of last for the move. */
void map_lanes_land(MapPlan *p, uint32_t xi, int32_t ph, int32_t last, uint32_t v,
                    int64_t *recv, uint32_t M, bool commit);

#endif
