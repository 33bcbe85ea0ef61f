/* groups.h: the TaskGraph's groups (Graph.groups) as the passes build them: which group
 * holds a block, and adding one. A group is the mapper's unit, the share of one core: a
 * compute block (fuse: an Axon block and the Soma block after it) and the storage blocks it
 * reads (docs/passes.md, "group"). The verifier's rules: every listed block exists
 * [group.block], a block is in one group at most [group.dup].
 *
 * A GroupMap indexes the groups by block position (g->blocks must be compacted, and stay
 * unchanged while the map is used); group_add keeps it up to date. Groups live in the
 * graph's arena: the groups array doubles when full (the map knows its room), so adding n
 * groups one by one copies O(n) entries in all.
 */
#ifndef TASKIR_PASSES_GROUPS_H
#define TASKIR_PASSES_GROUPS_H

#include "taskir/graph.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct GroupMap {
    uint32_t *of;         /* per block position: index in g->groups + 1, 0 = in no group */
    uint32_t n_blocks;
    int32_t next_id;      /* the id group_add gives: one past the largest group id */
    uint32_t cap;         /* groups g->groups has room for (a loaded graph's: exactly its
                             count; group_add doubles it) */
} GroupMap;

/* Indexes g's groups. A block listed by several groups maps to the first; a missing id is
 * skipped (group_valid tells such groups apart). false when out of memory (m empty). */
bool group_map_build(const Graph *g, GroupMap *m);
void group_map_finish(GroupMap *m); /* leaves m empty; accepts an empty one */

/* The index in g->groups of the group holding block id, or -1. */
long group_of(const Graph *g, const GroupMap *m, int32_t block_id);

/* Appends a group of the n blocks ids (copied) with the id m->next_id, and maps them to it. The caller makes sure none of them is in a group yet.
 * Returns the new group's index, or -1 when out of memory (the arena is then failed). */
long group_add(Graph *g, GroupMap *m, const int32_t *ids, uint32_t n);

/* Appends block id to group gi, unless the group lists it already, and maps it to gi.
 * false when out of memory. */
bool group_append(Graph *g, GroupMap *m, uint32_t gi, int32_t id);
/* Moves the blocks of group from to the end of group into (those it lists already aside),
 * maps them to into and leaves from empty (group_prune drops it). false when out of memory. */
bool group_join(Graph *g, GroupMap *m, uint32_t into, uint32_t from);

/* Is group gi valid: every id exists, no block of it is listed by another group or twice,
 * and it holds a compute block? counts[pos] is how many times all the groups list the block
 * at position pos (group_count). */
bool group_valid(const Graph *g, uint32_t gi, const uint32_t *counts);
/* counts[pos] = listings of the block at position pos in all the groups; malloc'd
 * (n_blocks entries, at least one), NULL when out of memory. */
uint32_t *group_count(const Graph *g);

/* Keeps the groups for which keep[i] is true (in order, ids unchanged), drops the others. */
void group_filter(Graph *g, const bool *keep);
/* Drops from every group the ids of blocks that do not exist (removed ones included: usable
 * in a change set before graph_compact), then the groups left without a compute block. */
void group_prune(Graph *g);

#endif
