/* plain_copy.h: edges that copy a whole cluster into a whole cluster in C order, i.e. move
 * data without rearranging it (docs/passes-fuse.md). The fuse pass pairs blocks joined by
 * such edges and removes the copies they make; the replicate pass reads them too.
 */
#ifndef TASKIR_PASSES_PLAIN_COPY_H
#define TASKIR_PASSES_PLAIN_COPY_H

#include "taskir/graph.h"
#include "taskir/uses.h"

#include <stdbool.h>

/* Does e copy the whole of its source cluster into the whole of its destination cluster,
 * element i to element i in C order? True for an edge without steps between two whole
 * clusters of equal volume, and for one whose steps only re-read C order (IDENTITY, and
 * RESHAPE or PERMUTE that keep the axes in order). u is g's use index. */
bool pc_plain_whole(const Graph *g, const GraphUses *u, const Edge *e);

/* Are the two clusters' dims (y x f r ky kx) the same box, an absent dim read as 1? */
bool pc_same_dims(const int32_t a[TIR_CDIMS], const int32_t b[TIR_CDIMS]);

#endif
