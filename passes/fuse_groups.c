/* fuse_groups.c: editing the groups field (fuse_groups.h). Groups are few next to blocks; a
 * group's id list is regrown in the arena when a block joins it. */
#include "passes/fuse_groups.h"

#include <stdlib.h>

int32_t *fg_membership(const Graph *g)
{
    int32_t *m = malloc(((size_t)g->n_blocks + 1) * sizeof *m);
    if (!m)
        return NULL;
    for (uint32_t i = 0; i < g->n_blocks; i++)
        m[i] = -1;
    for (uint32_t k = 0; k < g->n_groups; k++)
        for (uint32_t j = 0; j < g->groups[k].n_block_ids; j++) {
            long pos = graph_block_pos(g, g->groups[k].block_ids[j]);
            if (pos >= 0 && m[pos] < 0)
                m[pos] = (int32_t)k;
        }
    return m;
}

bool fg_add(Graph *g, const int32_t *ids, uint32_t n, uint32_t *gi)
{
    int32_t id = 0;
    for (uint32_t k = 0; k < g->n_groups; k++)
        if (g->groups[k].id >= id)
            id = g->groups[k].id == INT32_MAX ? INT32_MAX : g->groups[k].id + 1;
    Group *gs = arena_grow(g->arena, g->groups, g->n_groups, (size_t)g->n_groups + 1,
                           sizeof *gs);
    int32_t *list = n ? arena_grow(g->arena, ids, n, n, sizeof *list) : NULL;
    if (!gs || (n && !list))
        return false;
    g->groups = gs;
    gs[g->n_groups] = (Group){.id = id, .block_ids = list, .n_block_ids = n};
    if (gi)
        *gi = g->n_groups;
    g->n_groups++;
    return true;
}

bool fg_append(Graph *g, uint32_t gi, int32_t id)
{
    Group *gr = &g->groups[gi];
    for (uint32_t j = 0; j < gr->n_block_ids; j++)
        if (gr->block_ids[j] == id)
            return true;
    int32_t *list = arena_grow(g->arena, gr->block_ids, gr->n_block_ids,
                               (size_t)gr->n_block_ids + 1, sizeof *list);
    if (!list)
        return false;
    list[gr->n_block_ids] = id;
    gr->block_ids = list;
    gr->n_block_ids++;
    return true;
}

bool fg_join(Graph *g, uint32_t into, uint32_t from)
{
    if (into == from)
        return true;
    Group *f = &g->groups[from];
    for (uint32_t j = 0; j < f->n_block_ids; j++)
        if (!fg_append(g, into, f->block_ids[j]))
            return false;
    g->groups[from].n_block_ids = 0;
    return true;
}

void fg_drop_removed(Graph *g)
{
    int32_t *seen = fg_membership(g);
    uint32_t ng = 0;
    for (uint32_t k = 0; k < g->n_groups; k++) {
        Group *gr = &g->groups[k];
        uint32_t n = 0;
        for (uint32_t j = 0; j < gr->n_block_ids; j++) {
            long pos = graph_block_pos(g, gr->block_ids[j]);
            /* without the membership table (out of memory) duplicates are kept */
            if (pos < 0 || (seen && seen[pos] != (int32_t)k))
                continue;
            if (seen)
                seen[pos] = -2; /* listed: a later mention is a duplicate */
            gr->block_ids[n++] = gr->block_ids[j];
        }
        gr->n_block_ids = n;
        if (n)
            g->groups[ng++] = *gr;
    }
    g->n_groups = ng;
    free(seen);
}
