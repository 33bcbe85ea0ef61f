/* own_gather.h: the edges from a compute block into a copy on its own core that the code
 * generator fills through that core's router (backend/emit_plan.c copy_box: the writer's
 * primitive cannot write the copy straight, so it writes its output buffer and the router
 * gathers the copy's box from there into the receive area), which the schedule counts in
 * the core's receive budget (mapper/schedule.c own_moved; docs/mapper.md, "Transfers").
 * Internal to mapper/. */
#ifndef TASKIR_MAPPER_OWN_GATHER_H
#define TASKIR_MAPPER_OWN_GATHER_H

#include "taskir/graph.h"
#include "taskir/uses.h"

#include <stdbool.h>

/* Whether edge ed, from a compute block of one output cluster into a storage block, carries
 * a box of the writer's result that is neither all of it (its primitive writes the storage
 * straight), nor one of pieces of it all into that storage (written straight too), nor
 * whole rows of it with all their channels and no steps (which the copy may alias in the
 * writer's buffer, or a P05 write as a run): the router gathers it. */
bool map_own_gathered(const Graph *g, const GraphUses *u, const Edge *ed);

#endif
