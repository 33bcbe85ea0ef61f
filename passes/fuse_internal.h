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
#include "taskir/uses.h"

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

/* The same three steps handing on the use index (uses.h) they read: a step that leaves the
 * blocks, edges and interfaces as they are keeps the index valid for the next, and building
 * it is a walk over every interface of the graph (on the 10x ResNet-50 model, tens of
 * milliseconds each). drop_copies returns in *u the index of the graph it leaves (the one its
 * last round read: that round found nothing to drop); pairs only writes groups and reads *u;
 * merge reads *u and finishes it. u is empty after a step that fails. */
Status fuse_drop_copies_uses(Graph *g, Diag *d, uint32_t *n, GraphUses *u);
Status fuse_pairs_uses(Graph *g, const Chip *chip, GraphUses *u, Diag *d, uint32_t *n);
Status fuse_merge_storage_uses(Graph *g, GraphUses *u, Diag *d, uint32_t *n);

#endif
