/* groups.c: see groups.h. */
#include "passes/groups.h"

#include <stdlib.h>
#include <string.h>

bool group_map_build(const Graph *g, GroupMap *m)
{
    m->n_blocks = g->n_blocks;
    m->next_id = 0;
    m->cap = g->n_groups;
    for (uint32_t i = 0; i < g->n_groups; i++)
        if (g->groups[i].id >= m->next_id)
            m->next_id = g->groups[i].id == INT32_MAX ? INT32_MAX : g->groups[i].id + 1;
    m->of = calloc((size_t)g->n_blocks + 1, sizeof *m->of);
    if (!m->of) {
        m->n_blocks = 0;
        return false;
    }
    for (uint32_t i = 0; i < g->n_groups; i++)
        for (uint32_t k = 0; k < g->groups[i].n_block_ids; k++) {
            long pos = graph_block_pos(g, g->groups[i].block_ids[k]);
            if (pos >= 0 && (uint32_t)pos < m->n_blocks && !m->of[pos])
                m->of[pos] = i + 1;
        }
    return true;
}

void group_map_finish(GroupMap *m)
{
    free(m->of);
    m->of = NULL;
    m->n_blocks = 0;
}

long group_of(const Graph *g, const GroupMap *m, int32_t block_id)
{
    long pos = graph_block_pos(g, block_id);
    if (pos < 0 || (uint32_t)pos >= m->n_blocks)
        return -1;
    return (long)m->of[pos] - 1;
}

long group_add(Graph *g, GroupMap *m, const int32_t *ids, uint32_t n)
{
    if (g->n_groups == UINT32_MAX / 2)
        return -1;
    if (g->n_groups >= m->cap) {
        uint32_t cap = g->n_groups ? g->n_groups * 2 : 4;
        Group *ng = arena_grow(g->arena, g->groups, g->n_groups, cap, sizeof *ng);
        if (!ng)
            return -1;
        g->groups = ng;
        m->cap = cap;
    }
    int32_t *copy = n ? arena_alloc(g->arena, n, sizeof *copy) : NULL;
    if (n && !copy)
        return -1;
    if (n)
        memcpy(copy, ids, n * sizeof *copy);
    int32_t id = m->next_id;
    if (m->next_id < INT32_MAX)
        m->next_id++;
    uint32_t gi = g->n_groups++;
    g->groups[gi] = (Group){.id = id, .block_ids = copy, .n_block_ids = n};
    for (uint32_t k = 0; k < n; k++) {
        long pos = graph_block_pos(g, ids[k]);
        if (pos >= 0 && (uint32_t)pos < m->n_blocks)
            m->of[pos] = gi + 1;
    }
    return (long)gi;
}

bool group_append(Graph *g, GroupMap *m, uint32_t gi, int32_t id)
{
    Group *gr = &g->groups[gi];
    for (uint32_t k = 0; k < gr->n_block_ids; k++)
        if (gr->block_ids[k] == id)
            return true;
    int32_t *ids = arena_grow(g->arena, gr->block_ids, gr->n_block_ids,
                              (size_t)gr->n_block_ids + 1, sizeof *ids);
    if (!ids)
        return false;
    ids[gr->n_block_ids] = id;
    gr->block_ids = ids;
    gr->n_block_ids++;
    long pos = graph_block_pos(g, id);
    if (pos >= 0 && (uint32_t)pos < m->n_blocks)
        m->of[pos] = gi + 1;
    return true;
}

bool group_join(Graph *g, GroupMap *m, uint32_t into, uint32_t from)
{
    if (into == from)
        return true;
    for (uint32_t k = 0; k < g->groups[from].n_block_ids; k++)
        if (!group_append(g, m, into, g->groups[from].block_ids[k]))
            return false;
    g->groups[from].n_block_ids = 0;
    return true;
}

uint32_t *group_count(const Graph *g)
{
    uint32_t *counts = calloc((size_t)g->n_blocks + 1, sizeof *counts);
    if (!counts)
        return NULL;
    for (uint32_t i = 0; i < g->n_groups; i++)
        for (uint32_t k = 0; k < g->groups[i].n_block_ids; k++) {
            long pos = graph_block_pos(g, g->groups[i].block_ids[k]);
            if (pos >= 0 && counts[pos] < UINT32_MAX)
                counts[pos]++;
        }
    return counts;
}

bool group_valid(const Graph *g, uint32_t gi, const uint32_t *counts)
{
    const Group *gr = &g->groups[gi];
    bool compute = false;
    for (uint32_t k = 0; k < gr->n_block_ids; k++) {
        long pos = graph_block_pos(g, gr->block_ids[k]);
        if (pos < 0 || counts[pos] != 1)
            return false;
        compute = compute || bt_info(g->blocks[pos]->type)->kind == BK_COMPUTE;
    }
    return compute;
}

void group_filter(Graph *g, const bool *keep)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->n_groups; i++)
        if (keep[i])
            g->groups[n++] = g->groups[i];
    g->n_groups = n;
}

void group_prune(Graph *g)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->n_groups; i++) {
        Group gr = g->groups[i];
        uint32_t k2 = 0;
        bool compute = false;
        for (uint32_t k = 0; k < gr.n_block_ids; k++) {
            const Block *b = graph_block(g, gr.block_ids[k]);
            if (!b)
                continue;
            gr.block_ids[k2++] = gr.block_ids[k];
            compute = compute || bt_info(b->type)->kind == BK_COMPUTE;
        }
        gr.n_block_ids = k2;
        if (compute)
            g->groups[n++] = gr;
    }
    g->n_groups = n;
}
