/* sim_share.h: placing a simulation run's buffers in one region so that buffers whose lives
 * do not overlap share memory (private to taskir/sim*.c; sim.c plans with it). A buffer
 * lives from the block (an index of the run's order) that first writes it to the last block
 * that reads it; while it lives, no other buffer overlaps it. Buffers that live for the whole
 * run (first 0, last SIM_SHARE_END) or are small get memory of their own. */
#ifndef TASKIR_SIM_SHARE_H
#define TASKIR_SIM_SHARE_H

#include <stdbool.h>
#include <stdint.h>

#define SIM_SHARE_END UINT32_MAX
/* Buffers below this many elements are not worth sharing (their pages are few). */
#define SIM_SHARE_MIN_ELEMS ((int64_t)1 << 14)

typedef struct SimLife {
    int64_t elems;      /* size, a multiple of 16 */
    uint32_t first;     /* order index of its first writer */
    uint32_t last;      /* order index of its last reader, or SIM_SHARE_END */
} SimLife;

/* Gives each of the n buffers (in order of first, non-decreasing) an element offset in the
 * region so that buffers alive at one index never overlap: the first gap that fits among the
 * live ones, else the top. Deterministic. shared[i]: whether buffer i takes part in sharing
 * (so may hold another buffer's values when its life starts). Returns the region's
 * elements. */
int64_t sim_share_place(const SimLife *b, uint32_t n, int64_t *offset, bool *shared);

#endif
