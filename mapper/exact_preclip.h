/* exact_preclip.h: the pre-clip of the chip-exactness rewrites (private to mapper/exact*.c;
 * docs/exactness.md, "Rewrites"). */
#ifndef TASKIR_MAPPER_EXACT_PRECLIP_H
#define TASKIR_MAPPER_EXACT_PRECLIP_H

#include "taskir/chip.h"
#include "taskir/diag.h"
#include "taskir/exact.h"
#include "taskir/graph.h"

/* Every CCMPB / CCMPS of g (analysed into x) that shifts INT_32 to INT_32
 * (map.exact.shift32) and whose results the outputs see only clamped to a narrower range
 * [L, H] (exact_fold_bounds) reads its input clamped to [L 2^s, (H + 1) 2^s - 1] first,
 * through a CCMPB and a CCMPS without a shift: its results then lie in [L, H], and the
 * outputs stay the same. Returns the number of blocks clipped before (*first: the id of the
 * first) or -1 when out of memory (d told; the graph may then be half rewritten). */
long exact_preclip(Graph *g, const Chip *c, const ExactInfo *x, int32_t *first, Diag *d);

#endif
