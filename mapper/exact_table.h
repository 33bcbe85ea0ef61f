/* exact_table.h: the tables' precision of the chip-exactness rewrites (private to
 * mapper/exact*.c; docs/exactness.md, "Rewrites"). */
#ifndef TASKIR_MAPPER_EXACT_TABLE_H
#define TASKIR_MAPPER_EXACT_TABLE_H

#include "taskir/chip.h"
#include "taskir/exact.h"
#include "taskir/graph.h"

/* Every INT_32 CLUT of g (analysed into x) whose maps all have one 8-bit precision p (no
 * data, only that CLUT writing them) that P07 writes and that holds each entry of its table
 * (the analysis's range of the CLUT) takes p: its clamp to p never acts, so its values stay
 * the graph's, and P07, which reads its table in the precision it writes, reads a table of
 * one byte an entry (the memory counts it so, taskir/chip_cost.c). Returns the number of
 * blocks rewritten (*first: the id of the first). */
long exact_table_narrow(Graph *g, const Chip *c, const ExactInfo *x, int32_t *first);

#endif
