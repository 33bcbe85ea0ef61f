/* verify_map_order.h: the order of a Mapping's reads (verify_map_order.c; docs/rules.md
 * map.order.read): a compute block reads a storage copy on its core only after every writer
 * of that storage has put its data there. Part of verify_mapping (no chip needed). */
#ifndef TASKIR_VERIFY_MAP_ORDER_H
#define TASKIR_VERIFY_MAP_ORDER_H

#include "taskir/mapping.h"

#include <stddef.h>
#include <stdint.h>

/* first[pos]: the index + 1 of the first node dict naming the block at position pos, 0 when
 * none. Records each finding in d and adds their number to *found; ST_RUNTIME when out of
 * memory, else ST_OK. */
Status verify_map_order(const Mapping *m, const uint32_t *first, Diag *d, size_t *found);

#endif
