/* chain_sets.h: the sets of cores a phase's runs go to, from the boxes of the transfers
 * receiving in it, and whether relaying chains carry them all (mapper/chain_sets.c;
 * docs/mapper.md, "Transfers"). Internal to mapper/. */
#ifndef TASKIR_MAPPER_CHAIN_SETS_H
#define TASKIR_MAPPER_CHAIN_SETS_H

#include "mapper/plan.h"

/* Shares of a transfer's bytes, in 1 / MAP_PART_UNIT of them. */
#define MAP_PART_UNIT ((int64_t)1 << 24)

/* One transfer receiving in a phase: its sender (key: the writer, or a core that forwards
 * from its copy), the core it goes to, its box of the writer's result and its share of it in
 * the phase, [lo, hi) in 1 / MAP_PART_UNIT. */
typedef struct MChainItem {
    uint32_t key, v;
    const MBox *box;
    int64_t lo, hi;
} MChainItem;

/* Whether the runs of items it[0..n) fit relaying chains (chain_fit.c): per key, the parts
 * of the result its boxes (and shares) cut it into, each to the cores whose boxes hold it;
 * 1, 0, or -1 when out of memory. Sorts it. */
int map_items_fit(MChainItem *it, size_t n);
/* The share of its bytes planned transfer y receives in local phase l: from its bytes
 * before its first phase in l to the end of its last in l ([0, 0) when none). */
void map_xfer_share(const MapPlan *p, const MXfer *y, uint32_t l, int64_t *lo, int64_t *hi);
/* Room for one more element in *a (n used of *cap, size bytes each), doubling from 16;
 * false when out of memory. */
bool map_more(void **a, size_t n, size_t *cap, size_t size);
/* Whether boxes a and b have a cell in common. */
bool map_box_meets(const MBox *a, const MBox *b);

#endif
