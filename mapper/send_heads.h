/* send_heads.h: the router headers a core's sends of one phase take, as the schedule plans
 * its transfers (mapper/send_heads.c; docs/mapper.md, "Transfers"). Internal to mapper/. */
#ifndef TASKIR_MAPPER_SEND_HEADS_H
#define TASKIR_MAPPER_SEND_HEADS_H

#include "mapper/xfer_clash.h"

/* Per vcore and local phase, the headers of the transfers planned to be sent from it
 * (n[v * M + l]; cap_v vcores' room), kept by one schedule pass. */
typedef struct MSendHeads {
    int32_t *n;
    uint32_t M, cap_v;
} MSendHeads;

/* The runs the sender's router sends transfer xi in (one header each): the rows of its box
 * of the writer's result when that is a column slice of several rows (whole pixels, some
 * of each row's: the rows lie apart in the writer's map), else 1. */
int64_t map_xfer_runs(const MapPlan *p, const MClash *c, uint32_t xi);
/* The runs of writer task t's transfers that are column slices of several rows (of more
 * than one run each, map_xfer_runs), in all. */
int64_t map_writer_runs(const MapPlan *p, const MClash *c, uint32_t t);
/* Whether the schedule keeps writer task t's sends within its core's header tables: its
 * column slices take more runs in all (map_writer_runs) than three tables hold
 * (3 x 124). */
bool map_heads_ruled(const MapPlan *p, const MClash *c, uint32_t t);
/* The headers a part of `take` of a transfer's `total` (any unit) in `runs` runs takes: a
 * run and the disabled header over the gap after it (1 for a single run), its share of
 * the runs and one more when it is a part cut inside a run. */
int64_t map_part_heads(int64_t runs, int64_t take, int64_t total);
/* Whether vcore v (a sender) that already sends headers in local phase l has no room there
 * for `heads` more within LANES_HEADS - LANES_CUT_HEADS (a sender's first sends of a
 * phase always have room: the code generator spills what one table does not hold). */
bool map_heads_full(const MSendHeads *h, uint32_t v, uint32_t l, int64_t heads);
/* Counts `heads` more sent by vcore v in local phase l; false when out of memory. */
bool map_heads_add(MSendHeads *h, uint32_t v, uint32_t l, int64_t heads);
/* Frees what h holds. */
void map_heads_finish(MSendHeads *h);

#endif
