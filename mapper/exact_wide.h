/* exact_wide.h: the limb rewrites of the chip-exactness rewrites (private to mapper/exact*.c;
 * docs/exactness.md, "Rewrites", "Wide shifts and products"). */
#ifndef TASKIR_MAPPER_EXACT_WIDE_H
#define TASKIR_MAPPER_EXACT_WIDE_H

#include "taskir/chip.h"
#include "taskir/diag.h"
#include "taskir/exact.h"
#include "taskir/graph.h"

/* How CCMPB b (at position pos of g, analysed into x) splits into a shift by k more bits and
 * its remainder, when it is a pure floor shift (INT_32 output, a CMP below every shifted
 * value, pointwise, one plain input box) whose pieces stay inside int32: WIDE_SHIFT(k, off),
 * off when the remainder is taken 2^S lower (so that -(h + 1) 2^S stays inside int32), or 0.
 * Without related, the remainder's range is what two independent ranges give (k 6 or 7);
 * with it, the relation the analysis keeps (taskir/exact_mod.c; S = s + k at least 24). */
#define WIDE_SHIFT(k, off) ((k) * 2 + ((off) ? 1 : 0))
#define WIDE_K(how) ((how) / 2)
#define WIDE_OFF(how) ((how) % 2 != 0)
int exact_wide_shift_how(const Graph *g, uint32_t pos, const ExactInfo *x, bool related);

/* The operand (0 or 1) of CVVH block b (at position pos) that comes from storage of a
 * precision chip c encodes but P03 does not read (INT_32), the other one being one P03
 * reads, when the product can be split into limbs of the wide operand; -1 when not. */
int exact_wide_product_operand(const Chip *c, const Graph *g, uint32_t pos,
                               const ExactInfo *x);

/* Rewrites block id: operand < 0, the shift as -operand says (exact_wide_shift_how);
 * else the product of that operand (exact_wide_product_operand). Leaves removed blocks for graph_compact. ST_RUNTIME
 * when out of memory. */
Status exact_wide_split(Graph *g, int32_t id, int operand, Diag *d);

#endif
