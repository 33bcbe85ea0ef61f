/* edge_map.h: what an edge copies, element by element: for each element of its destination
 * box, the element of its source's output cluster it comes from. The rewriting passes use it
 * to cut an edge that carries rearrangement steps (docs/passes.md, "split"): they restrict
 * the map to the part they keep and hand it to the encoder (encode.h).
 */
#ifndef TASKIR_EDGE_MAP_H
#define TASKIR_EDGE_MAP_H

#include "taskir/diag.h"
#include "taskir/graph.h"
#include "taskir/uses.h"

/* Fills out[i], for every element i of e's destination box (C order of its used dims;
 * n = the box's volume), with the flat C-order offset, in the whole output cluster of e's
 * source, of the element it copies, or -1 where a step fills in a zero. Logic errors when
 * the edge's ends or steps are malformed [rearrange.ends, rearrange.<type>,
 * rearrange.volume]; ST_RUNTIME when out of memory. */
Status edge_element_map(const Graph *g, const GraphUses *u, const Edge *e, int32_t *out,
                        int64_t n, Diag *d);

/* The flat C-order offset, in a cluster of extents cd (y x f r ky kx, 0 = unused), of the
 * element at coordinates c (unused dims ignored). */
int64_t cluster_offset(const int32_t cd[TIR_CDIMS], const int32_t c[TIR_CDIMS]);

#endif
