/* gather_wait.h: a CADD's gathered input that lands in the receive area waits there for the
 * P06 gathering it (backend/emit_early.c: that P06 takes the earliest free Soma slot after
 * the copy lands, in the order the copies land, and the copy's area lives from its arrival
 * to that P06). The schedule plans such an input with its P06: as the transfer is planned,
 * the input takes the earliest free Soma slot after it lands and keeps it, and its bytes
 * count in the receive budget of every phase until then (mapper/schedule.c ready_one;
 * docs/mapper.md "Transfers"). Internal to mapper/. */
#ifndef TASKIR_MAPPER_GATHER_WAIT_H
#define TASKIR_MAPPER_GATHER_WAIT_H

#include "mapper/plan.h"

#include <stdbool.h>
#include <stdint.h>

/* Whether transfer xi from another core brings a whole input of CADD task t that the code
 * generator gathers (premove_count >= 2) straight from the receive area: its storage block
 * is input cluster i's, has no other writer and no other reader. */
bool map_gather_waits(const MapPlan *p, uint32_t t, uint32_t xi);

/* The earliest Soma slot (time in slots) after time after, inside the M phases of stage
 * from global phase lo on, that is free in slots (local phases; NULL: all free) and not
 * among taken[0..n); -1 when there is none. */
int64_t map_gather_slot(const uint8_t *slots, int64_t lo, uint32_t M, int64_t after,
                        const int64_t *taken, uint32_t n);

#endif
