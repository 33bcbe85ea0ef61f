/* verify_map_chip.h: the rules of a Mapping that need the chip description (docs/rules.md,
 * "Mappings on a chip"): cores and phases the chip has, a core's memory budget in every
 * phase, and the receive limits. Called by verify_mapping_on after the chip-free rules. */
#ifndef TASKIR_VERIFY_MAP_CHIP_H
#define TASKIR_VERIFY_MAP_CHIP_H

#include "taskir/chip.h"
#include "taskir/mapping.h"

#include <stddef.h>
#include <stdint.h>

/* first[pos]: the index + 1 of the first node dict naming the block at position pos, 0 when
 * none. Records each finding in d and adds their number to *found; ST_RUNTIME when out of
 * memory, else ST_OK. */
Status verify_map_chip(const Mapping *m, const Chip *chip, const uint32_t *first, Diag *d,
                       size_t *found);

#endif
