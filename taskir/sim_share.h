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
    int64_t split;      /* with two threads: where the second thread's part of the buffer
                           starts (elements, a multiple of 16, at most elems: elems when the
                           first thread writes all of it) */
} SimLife;

/* Gives each of the n buffers (in order of first, non-decreasing) an element offset in the
 * region so that buffers alive at one index never overlap: the first gap that fits among the
 * live ones, else the top. Deterministic. shared[i]: whether buffer i takes part in sharing
 * (so may hold another buffer's values when its life starts). Returns the region's
 * elements. */
int64_t sim_share_place(const SimLife *b, uint32_t n, int64_t *offset, bool *shared);

/* sim_share_place for a run on two threads, where each kernel's first thread writes the
 * elements of its result below the result's split and the second thread those from it on:
 * every shared buffer is placed with its split on one of a few fixed points of the region
 * (anchors, one per buffer alive at once), its first thread's part below the anchor and the
 * second's above. A byte of the shared area is then written by the same thread whichever
 * buffer holds it, so no cache line passes from one thread's cache to the other's when a
 * later buffer reuses the memory (on a machine whose two cores share no cache, each such
 * line crosses the chip). A new buffer takes the free anchor that has to grow least (then the
 * tightest), or a new anchor. Deterministic; the same own area and the same guarantees as
 * sim_share_place. */
int64_t sim_share_place_split(const SimLife *b, uint32_t n, int64_t *offset, bool *shared);

#endif
