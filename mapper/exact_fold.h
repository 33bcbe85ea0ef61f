/* exact_fold.h: the shift fold of the chip-exactness rewrites (private to mapper/exact*.c;
 * docs/exactness.md, "Rewrites"). */
#ifndef TASKIR_MAPPER_EXACT_FOLD_H
#define TASKIR_MAPPER_EXACT_FOLD_H

#include "taskir/chip.h"
#include "taskir/diag.h"
#include "taskir/exact.h"
#include "taskir/graph.h"

/* Every CCMPB / CCMPS of g (analysed into x) that shifts from INT_32 to INT_32
 * (map.exact.shift32) and whose results only reach the graph's outputs through CCMPB /
 * CCMPS blocks that clip them into 8 bits anyway becomes a narrowing INT_8 one (its output
 * storage INT_8 too): the TaskGraph then gives the same outputs and the chip too. Returns
 * the number of blocks folded (*first: the id of the first) or -1 when out of memory (the
 * graph may then be half rewritten). */
long exact_fold(Graph *g, const Chip *c, const ExactInfo *x, int32_t *first);

/* The narrowest clamp [lh->lo, lh->hi] (with 0) of the results of the block at position pos
 * of g (analysed into x) that no output of g sees: every storage it writes has no data, it
 * alone writes it, and only CCMPB / CCMPS clips and affine blocks read it, up to a clip that
 * hides the clamp (file comment of exact_fold.c). 1 found (the analysis's range when none
 * narrower is), 0 when not even that one is hidden, -1 out of memory. */
int exact_fold_bounds(const Graph *g, const Chip *c, const ExactInfo *x, uint32_t pos,
                      ExactRange *lh);

#endif
