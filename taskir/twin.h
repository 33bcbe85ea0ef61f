/* twin.h: two storage blocks that hold the same values (docs/backend.md, "Memory plan"): each
 * is filled whole by one edge without rearrangement steps, both edges from the same writer
 * and the same box of its output, and the two have the same precision and shape. A writer
 * multicasting one result to several readers on one core gives such twins (the division's
 * divisor copied to the CADD of every quotient bit: `div_32_by_relu_32_`); the code
 * generator lands the copies of twins that arrive on a core in the same phases in one area
 * of the receive area (backend/emit_twin.c). */
#ifndef TASKIR_TWIN_H
#define TASKIR_TWIN_H

#include "taskir/graph.h"
#include "taskir/uses.h"

#include <stdbool.h>
#include <stdint.h>

/* The one edge (an index into g->edges) that fills the storage block at pos whole, without
 * rearrangement steps; -1 when there is none (static data, several writers, a part). */
long twin_fill_edge(const Graph *g, const GraphUses *u, uint32_t pos);
/* Whether the storage blocks at positions a and b (a != b) are twins (above). */
bool storage_twins(const Graph *g, const GraphUses *u, uint32_t a, uint32_t b);

#endif
