/* fuse_groups.h: the TaskGraph `groups` field as the fuse and replicate passes edit it
 * (docs/passes-fuse.md): which group a block belongs to, a new group, a block added to a
 * group, groups joined, and the ids of removed blocks dropped.
 *
 * A group lists block ids; a block listed by several groups belongs to the first (the
 * verifier does not forbid it; the passes never make one). Group arrays live in the graph's
 * arena. Every function that allocates returns false when out of memory (the arena is then
 * marked failed).
 */
#ifndef TASKIR_PASSES_FUSE_GROUPS_H
#define TASKIR_PASSES_FUSE_GROUPS_H

#include "taskir/graph.h"

#include <stdbool.h>
#include <stdint.h>

/* Per position in g->blocks, the index in g->groups of the first group listing the block,
 * or -1. malloc'd (free it); NULL when out of memory. */
int32_t *fg_membership(const Graph *g);
/* Adds a group of the n block ids with the next free group id; *gi (when not NULL) gets its
 * index in g->groups. */
bool fg_add(Graph *g, const int32_t *ids, uint32_t n, uint32_t *gi);
/* Appends block id to group gi (nothing when it lists it already). */
bool fg_append(Graph *g, uint32_t gi, int32_t id);
/* Moves every block of group from into group into (keeping into's order, then from's) and
 * leaves from empty; fg_drop_removed then drops it. */
bool fg_join(Graph *g, uint32_t into, uint32_t from);
/* Drops from every group the ids of blocks that do not exist (graph_block is NULL: call it
 * after graph_compact) or are listed twice, then the groups left empty. Order is kept. */
void fg_drop_removed(Graph *g);

#endif
