/* chain_fit.h: whether the sets of cores a phase's runs go to can all be relaying chains
 * (mapper/chain_fit.c; docs/mapper.md, "Transfers"; docs/backend.md, "One run to several
 * cores"). Internal to mapper/. */
#ifndef TASKIR_MAPPER_CHAIN_FIT_H
#define TASKIR_MAPPER_CHAIN_FIT_H

#include <stddef.h>
#include <stdint.h>

/* Set i of n_sets is cores[off[i] .. off[i + 1]) (ids of any range, none twice in a set;
 * off has n_sets + 1 entries). 1 when the code generator's chain plan carries them all in one
 * phase (every set whose cores meet others' ends, with them, on the cores they all reach, and
 * so on for what is left, backend/emit_chain_plan.c), 0 when it does not, -1 when out of
 * memory. */
int map_chain_fit(const uint32_t *cores, const size_t *off, size_t n_sets);

#endif
