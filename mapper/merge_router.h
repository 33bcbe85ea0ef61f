/* merge_router.h: what a virtual core's router sends in each local phase, as far as two
 * routers may not become one (mapper/merge_router.c; docs/mapper.md, "Algorithm", step 4).
 * Internal to mapper/. */
#ifndef TASKIR_MAPPER_MERGE_ROUTER_H
#define TASKIR_MAPPER_MERGE_ROUTER_H

#include "mapper/plan.h"

/* Per local phase, bits of what a vcore's router sends. */
enum {
    MAP_SENDS_BYTES = 1, /* runs of bytes (1-byte packets: taskir/lanes.h lanes_bytes) */
    MAP_SENDS_WIDE = 2,  /* a part of a transfer of words that, sent as bytes, passes a
                            header's 4096 packets (LANES_HEAD_PACKETS) */
};

/* Fills sends[v * M + l] (n_vcores x M, zeroed by the caller) for every vcore v and local
 * phase l of p's schedule: the transfers between cores from v's tasks in the phases their
 * parts are received in (and, for runs of bytes landing whole, the phases after it they
 * spill on in, map_lanes_last), and the runs of bytes a task's router lands on its own
 * core from its send phase through map_lanes_last. */
void map_router_sends(const MapPlan *p, uint8_t *sends, uint32_t M);

/* Whether two routers' sends of one phase (map_router_sends bits) may not go as one: one
 * sends runs of bytes, so the phase goes in 1-byte packets, and the other a part of words
 * that passes a header's packets so (backend/emit_route.c refuses it, [emit.route]). */
static inline bool map_router_mix(uint8_t a, uint8_t b)
{
    return ((a & MAP_SENDS_BYTES) && (b & MAP_SENDS_WIDE)) ||
           ((a & MAP_SENDS_WIDE) && (b & MAP_SENDS_BYTES));
}

#endif
