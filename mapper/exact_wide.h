/* exact_wide.h: the limb rewrites of the chip-exactness rewrites (private to mapper/exact*.c;
 * docs/exactness.md, "Rewrites", "Wide shifts and products"). */
#ifndef TASKIR_MAPPER_EXACT_WIDE_H
#define TASKIR_MAPPER_EXACT_WIDE_H

#include "taskir/chip.h"
#include "taskir/diag.h"
#include "taskir/exact.h"
#include "taskir/graph.h"

/* Does b read its inputs point by point: a 1 x 1 window (or none), stride 1, no padding,
 * each output position from the same input position? */
bool exact_pointwise(const Block *b);

/* Can CCMPB b (at position pos of g, analysed into x) be split into a shift by more bits and
 * its 8-bit remainder: a pure floor shift (INT_32 output, a CMP below every shifted value,
 * pointwise, one plain input box) whose pieces stay inside int32? */
bool exact_wide_shift_ok(const Graph *g, uint32_t pos, const ExactInfo *x);

/* The operand (0 or 1) of CVVH block b (at position pos) that comes from storage of a
 * precision chip c encodes but P03 does not read (INT_32), the other one being one P03
 * reads, when the product can be split into limbs of the wide operand; -1 when not. */
int exact_wide_product_operand(const Chip *c, const Graph *g, uint32_t pos,
                               const ExactInfo *x);

/* Rewrites block id: operand < 0, the shift (exact_wide_shift_ok); else the product of that
 * operand (exact_wide_product_operand). Leaves removed blocks for graph_compact. ST_RUNTIME
 * when out of memory. */
Status exact_wide_split(Graph *g, int32_t id, int operand, Diag *d);

#endif
