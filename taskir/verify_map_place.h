/* verify_map_place.h: the placement rules of a Mapping that relate blocks and edges to each
 * other (docs/rules.md): map.place.input (a compute block runs on a core that holds its input
 * storage) and map.route (an edge between two cores has the router's send and receive
 * coordinates; no receive without a send). Called by verify_mapping after the per-dict rules. */
#ifndef TASKIR_VERIFY_MAP_PLACE_H
#define TASKIR_VERIFY_MAP_PLACE_H

#include "taskir/mapping.h"

#include <stddef.h>
#include <stdint.h>

/* first[pos]: the index + 1 of the first node dict naming the block at position pos, 0 when
 * none. Records each finding in d and adds their number to *found; ST_RUNTIME when out of
 * memory, else ST_OK. */
Status verify_map_place(const Mapping *m, const uint32_t *first, Diag *d, size_t *found);

/* The edge dict of each edge (per position in m->graph->edges: the first dict naming it, or
 * NULL), malloc'd (free it); NULL when out of memory. */
const MapDict **verify_map_edge_dicts(const Mapping *m);

#endif
