/* xfer_cap.h: a transfer's part in one phase cut to what the phase's relaying chains carry
 * (mapper/xfer_cap.c; docs/mapper.md, "Parts cut to the chains"). Internal to mapper/. */
#ifndef TASKIR_MAPPER_XFER_CAP_H
#define TASKIR_MAPPER_XFER_CAP_H

#include "mapper/plan.h"
#include "mapper/xfer_clash.h"

/* The most bytes of transfer xi into vcore v, from its byte `from` on and at most `take`,
 * that may receive in global phase ph: 0 when a transfer of the same box into another
 * storage block on v receives there (map_xfer_twice), else the longest part
 * [from, from + t), t a multiple of 8 bytes (a packet) or all of take, that keeps the
 * phase's relaying chains fitting (map_xfer_chains: the chains of a phase that fit without
 * it fit with it), found by halving. */
int64_t map_xfer_cap(const MapPlan *p, MClash *c, uint32_t xi, uint32_t v, int32_t ph,
                     int64_t from, int64_t take);

#endif
