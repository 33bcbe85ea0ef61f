/* lanes_exact.h: the code generator's exact test of an edge whose values the router moves
 * between lanes (docs/backend.md "Bytes between lanes"), asked by the code generator
 * (backend/emit_route.c emit_moves_lanes) and by the mapper's routes (mapper/route.c: such a
 * transfer goes from its writer's core, never from a relay's copy). lanes_moved
 * (taskir/lanes.h) is broader: it also counts extents that change as whole rows flow.
 */
#ifndef TASKIR_LANES_EXACT_H
#define TASKIR_LANES_EXACT_H

#include "taskir/graph.h"
#include "taskir/uses.h"

#include <stdbool.h>
#include <stdint.h>

/* The box of one interface of a map block as the code generator reads it: lo / n per
 * y, x and channel (f, else r). false when the interface or its cluster is unknown. */
bool lanes_map_box(const Graph *g, const GraphUses *u, uint32_t pos, bool input,
                   int32_t edge_id, int64_t lo[3], int64_t n[3]);

/* Whether the box of writer w (lo wlo, extents wn) that edge ed (with steps) reshapes into
 * extents dn only flows its pixels into other rows: the steps keep the C order and the
 * channels, the pixels' count stays, and the box is one row of w's result or whole rows of
 * it (the sender then steps through them in the receiver's rows, backend/emit_route.c). */
bool lanes_flat_rows(const Graph *g, const GraphUses *u, const Edge *ed, uint32_t w,
                     const int64_t wlo[3], const int64_t wn[3], const int64_t dn[3]);

/* Whether edge ed, from compute block w into storage block s, moves values between lanes:
 * it has steps, and they change the C order, or they reshape the writer's box into other
 * extents other than as lanes_flat_rows. The router then moves its bytes in 1-byte packets
 * from the writer's core (backend/emit_lanes.c). false when either box is unknown. */
bool lanes_exact(const Graph *g, const GraphUses *u, const Edge *ed);

#endif
