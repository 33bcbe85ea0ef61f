/* exact.h: chip exactness (docs/exactness.md): an interval analysis of the values a
 * TaskGraph can hold, and the checks of the places where the chip's arithmetic differs from
 * the TaskGraph semantics the simulator implements (CHIP.md §7).
 *
 * exact_analyse propagates a range [lo, hi] through every block in a topological order,
 * from the INPUT blocks' precisions and the storage blocks' data (weights, biases, tables):
 * for each block the range of its result under the TaskGraph semantics
 * (docs/semantics.md), and for a compute block the range of its accumulator: every partial
 * sum of the chip's accumulation (from the bias, one multiply-accumulate at a time, in any
 * order), the value before the clip of CCMPB / CCMPS (window extreme >> shift). Where a
 * block's weights or bias come unchanged from storage blocks holding data, their real values
 * count (per output channel, the sum of the positive and of the negative weights times the
 * input's bounds); elsewhere the ranges of the clusters. Bounds are computed in int64 and
 * saturate at +-EXACT_INF, so the analysis itself never overflows.
 *
 * exact_check (exact_check.c) reports, with the chip description, the blocks where the chip
 * and the TaskGraph may compute different values, with rules map.exact.* (docs/rules.md).
 */
#ifndef TASKIR_EXACT_H
#define TASKIR_EXACT_H

#include "taskir/chip.h"
#include "taskir/diag.h"
#include "taskir/graph.h"

#include <stdbool.h>
#include <stdint.h>

/* The saturation bound of a range: far beyond int32, far inside int64. */
#define EXACT_INF ((int64_t)1 << 61)

typedef struct ExactRange {
    int64_t lo, hi;             /* lo <= hi; +-EXACT_INF: unbounded */
} ExactRange;

typedef struct ExactBlock {
    ExactRange out;             /* every value of the block's result: storage content,
                                   compute output, INPUT values, OUTPUT values */
    ExactRange acc;             /* compute blocks: Axon, every partial sum of the
                                   accumulation; CCMPB / CCMPS, the window extreme shifted
                                   (before the clip); CLUT, the table's values; CLIF, the
                                   shifted sum of its inputs */
    ExactRange raw;             /* compute blocks: the exact result before the wrap to int32
                                   and the precision's clamp (CCMPB / CCMPS: acc; CLIF:
                                   its spikes, 0 .. 1) */
    ExactRange in;              /* compute blocks: the values of the first input role's
                                   clusters (CLIF: each of them); CCMPB / CCMPS: the window
                                   extremes (with 0 when the window may reach padding) */
    bool visited;               /* reached in the topological order (false: on a cycle;
                                   its ranges are then unbounded) */
} ExactBlock;

typedef struct ExactInfo {
    ExactBlock *blocks;         /* per position in g->blocks */
    uint32_t n_blocks;
} ExactInfo;

/* Analyses g (a verified, compacted graph) into x. ST_RUNTIME when out of memory (x is then
 * empty). */
Status exact_analyse(const Graph *g, ExactInfo *x, Diag *d);
void exact_finish(ExactInfo *x); /* leaves x empty; accepts an empty one */

/* Does r lie inside [lo, hi]? */
bool exact_inside(ExactRange r, int64_t lo, int64_t hi);
/* The values of precision p, within int32 (docs/semantics.md, "Precision clamp"). */
ExactRange exact_prec_range(PrecisionId p);

/* Does b read its inputs point by point: a 1 x 1 window (or none), stride 1, no padding,
 * each output position from the same input position (a CVS without window dims does)?
 * (exact_mod.c) */
bool exact_pointwise(const Block *b);

/* The chip's view of a block (exact_check.c). */
/* Is b's BIT_SHIFT_NUM one the Soma of c runs as it is (a whole number of shift steps)? */
bool exact_shift_ok(const Chip *c, const Block *b);
/* Does CCMPB / CCMPS block b narrow on the chip (P05 applies its shift only then): the
 * hardware code of its output precision above its input's (INT_32 in, 8-bit out)? in is the
 * precision of the storage it reads. */
bool exact_narrows(const Chip *c, PrecisionId in, PrecisionId out);
/* The precision of the storage feeding input cluster 0 of the block at position pos (the
 * first edge's source), or the block's own when none. */
PrecisionId exact_input_prec(const Graph *g, uint32_t pos);
/* The precision of the storage the block at position pos writes (its first out edge's
 * destination), or the block's own when none. */
PrecisionId exact_output_prec(const Graph *g, uint32_t pos);

/* A CCMPB / CCMPS as P05 / P25 run it (exact_soma.c): on a window extreme m, the TaskGraph
 * gives clip(m >> shift, ...) (docs/semantics.md 3.8, 3.9), the chip what CHIP.md §7 says
 * (narrowing, shift in whole Soma steps, saturation to 8 bits, CMP's low bits, the output's
 * low bits). */
typedef struct ExactCmp {
    bool big;                   /* CCMPB (max); false: CCMPS (min) */
    PrecisionId in, out;        /* the storage it reads, its output */
    int32_t cmp;                /* CMP */
    int32_t shift;              /* BIT_SHIFT_NUM */
    int32_t scale;              /* exact_cmp_agrees: it reads m * 2^scale where ref reads m */
    bool one_d;                 /* the 1-D form (hi at most 127, lo at least -128) */
} ExactCmp;

void exact_cmp_of(const Block *b, PrecisionId in, ExactCmp *k);
int64_t exact_graph_cmp(const ExactCmp *k, int64_t m);
/* false when the chip does not encode k's input or output precision. */
bool exact_chip_cmp(const Chip *c, const ExactCmp *k, int64_t m, int64_t *out);
/* For every extreme m in range: is ref's TaskGraph value at m what k gives at m * 2^scale, on
 * the chip c, or (c NULL) in the TaskGraph? *witness (when not NULL) gets an m where not. */
bool exact_cmp_agrees(const Chip *c, const ExactCmp *ref, const ExactCmp *k, ExactRange m,
                      int64_t *witness);

/* The rule a Soma block b (reading storage of precision in, writing storage of precision
 * out, window extremes or input values m: ExactBlock.in) breaks on chip c:
 * "map.exact.shift32", "map.exact.oddshift", "map.exact.clip", "map.exact.prec" (a CCMPB /
 * CCMPS of TERNARY writing a map of another precision: P05 writes the map's precision and
 * clips to it only), or NULL (none, or not a Soma block, or a precision the chip does not
 * encode: map.exact.prec). */
const char *exact_soma_rule(const Chip *c, const Block *b, PrecisionId in, PrecisionId out,
                            ExactRange m);

/* Reports every block of g where the chip's arithmetic may differ from the TaskGraph's
 * (rules map.exact.prec, map.exact.overflow, map.exact.shift32, map.exact.oddshift,
 * map.exact.clip), with
 * status st (ST_LOGIC: errors; ST_OK: warnings). Returns the number of findings (d->oom is
 * set when one could not be recorded). */
size_t exact_check(const Graph *g, const Chip *c, const ExactInfo *x, Status st, Diag *d);

#endif
