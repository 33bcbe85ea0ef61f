/* group.c: fills the TaskGraph's groups field (docs/passes.md, "group").
 *
 * Requires nothing. Guarantees PROP_GROUPED: every compute block is in exactly one group,
 * with the storage blocks it reads that no other group holds. Invalidates nothing.
 *
 * A group is the mapper's unit, one core's share (CHIP.md §2: a compute block and all of its
 * input storage sit on one core). The groups already in the graph are kept when valid (every
 * id exists, no block in two groups or twice, a compute block among them: what fuse writes
 * for an Axon block, its input storage, the intermediate storage and the Soma block); an
 * invalid one is dropped and its blocks grouped anew. Then each compute block in no group, in
 * graph order, gets a new group: the compute block first, then the storage blocks feeding it
 * (in the order of its input edges) that are in no group yet. A storage block read by two
 * compute blocks goes with the first (replicate gives each consumer its own copy first).
 * Kept groups keep their ids; new ones take the ids after the largest.
 */
#include "passes/groups.h"
#include "passes/pass.h"
#include "taskir/uses.h"

#include <stdlib.h>

/* Drops the invalid groups (group_valid). false when out of memory. */
static bool drop_invalid(Graph *g)
{
    if (g->n_groups == 0)
        return true;
    uint32_t *counts = group_count(g);
    bool *keep = malloc((size_t)g->n_groups * sizeof *keep);
    if (!counts || !keep) {
        free(counts);
        free(keep);
        return false;
    }
    for (uint32_t i = 0; i < g->n_groups; i++)
        keep[i] = group_valid(g, i, counts);
    group_filter(g, keep);
    free(counts);
    free(keep);
    return true;
}

/* Adds the group of compute block b (at position pos) and the storage feeding it that is
 * in no group; ids is scratch of at least 1 + its input edges. false when out of memory. */
static bool add_group(Graph *g, const GraphUses *u, GroupMap *m, uint32_t pos, int32_t *ids)
{
    const BlockUses *bu = &u->blocks[pos];
    uint32_t n = 0;
    ids[n++] = g->blocks[pos]->id;
    m->of[pos] = UINT32_MAX; /* taken, until group_add maps it */
    for (uint32_t k = 0; k < bu->n_in_edges; k++) {
        long s = graph_block_pos(g, g->edges[bu->in_edges[k]]->src);
        if (s < 0 || m->of[s] || bt_info(g->blocks[s]->type)->kind != BK_STORAGE)
            continue;
        m->of[s] = UINT32_MAX;
        ids[n++] = g->blocks[s]->id;
    }
    return group_add(g, m, ids, n) >= 0;
}

Status pass_group(Graph *g, const PassOptions *o, Diag *d)
{
    (void)o;
    GraphUses u;
    GroupMap m = {0};
    int32_t *ids = NULL;
    bool ok = drop_invalid(g) && graph_uses(g, &u);
    if (!ok)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "group: out of memory");
    uint32_t most = 0;
    for (uint32_t i = 0; i < g->n_blocks; i++)
        if (u.blocks[i].n_in_edges > most)
            most = u.blocks[i].n_in_edges;
    ok = group_map_build(g, &m) && (ids = malloc(((size_t)most + 1) * sizeof *ids)) != NULL;
    for (uint32_t i = 0; ok && i < g->n_blocks; i++)
        if (!m.of[i] && bt_info(g->blocks[i]->type)->kind == BK_COMPUTE)
            ok = add_group(g, &u, &m, i, ids);
    free(ids);
    group_map_finish(&m);
    graph_uses_finish(&u);
    if (!ok || graph_oom(g))
        return diag_add(d, ST_RUNTIME, "oom", NULL, "group: out of memory");
    return ST_OK;
}
