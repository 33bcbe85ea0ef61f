/* fuse_internal.h: the three steps of the fuse pass (fuse.c runs them in this order, each
 * ending with a compacted graph): copies removed (fuse_copy.c), Axon + Soma pairs grouped
 * (fuse.c), storage holding the same data merged (fuse_merge.c). Each adds the number of things
 * it did to *n. ST_RUNTIME [oom] when out of memory (the graph is then unusable).
 */
#ifndef TASKIR_PASSES_FUSE_INTERNAL_H
#define TASKIR_PASSES_FUSE_INTERNAL_H

#include "taskir/chip.h"
#include "taskir/diag.h"
#include "taskir/graph.h"

#include <stdint.h>

/* Removes compute blocks that only copy (an identity CADD, CAVG, CVS, CCMPB or CCMPS between
 * two storage blocks that hold the same layout) with the storage block on one side. */
Status fuse_drop_copies(Graph *g, Diag *d, uint32_t *n);
/* Merges storage blocks that hold the same data: equal blocks with equal data tensors, or
 * fed by the same edges of the same producers. */
Status fuse_merge_storage(Graph *g, Diag *d, uint32_t *n);
/* Writes a group for each Axon block and the Soma block after it that one core can run in
 * one phase. */
Status fuse_pairs(Graph *g, const Chip *chip, Diag *d, uint32_t *n);

#endif
