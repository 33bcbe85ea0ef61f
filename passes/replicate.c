/* replicate.c: the replicate pass (docs/passes-fuse.md).
 *
 * Requires nothing. Guarantees PROP_REPLICATED: every storage block feeds the compute blocks
 * of one unit only, a unit being a group (the groups field, e.g. written by fuse) or, for a
 * compute block in no group, the block alone (it will sit on a core of its own). A storage
 * block read by k units is copied k - 1 times ("x/copy1", "x/copy2", ... in the order its
 * output edges name the units): each copy gets the block's input edges again (the producer
 * then sends to every copy: same boxes, same rearrangement steps) and the output edges into
 * its unit; a copy of a block that holds data shares the data tensor (graph_clone_block). The
 * original keeps the unit of its own group when it is in one of them, else the first unit,
 * and every edge into a block that is no compute block (an OUTPUT). A copy joins its unit's
 * group. Outputs never change: every reader reads a block with the same content.
 * Invalidates nothing: a group's memory stays what it was (one copy where the original was).
 */
#include "passes/pass.h"

#include "passes/groups.h"
#include "taskir/rearrange.h"
#include "taskir/uses.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct Replicator {
    Graph *g;
    GraphUses u;
    GroupMap groups;       /* of the original blocks; copies are added as they are made */
    int64_t *unit;         /* per output edge of the current block: its unit, -1 none */
    int64_t *units;        /* the distinct units, in order */
} Replicator;

/* The unit of the block at the other end of edge e: its group, or n_groups + its position
 * for a compute block in no group; -1 for a block that is not a compute block. */
static int64_t unit_of(const Replicator *r, const Edge *e)
{
    long pos = graph_block_pos(r->g, e->dst);
    if (pos < 0 || bt_info(r->g->blocks[pos]->type)->kind != BK_COMPUTE)
        return -1;
    long k = (long)r->groups.of[pos] - 1;
    return k >= 0 ? k : (int64_t)r->g->n_groups + pos;
}

/* A copy of edge e with its source end and steps, into cluster e's of block to. */
static bool copy_in_edge(Graph *g, const GraphUses *u, const Edge *e, Block *to)
{
    EdgeEnds ee;
    char why[160];
    if (!edge_ends(g, u, e, &ee, why, sizeof why))
        return true; /* an edge without ends carries nothing to copy */
    Edge *ne = graph_connect_box(g, graph_block(g, e->src), ee.src_cluster, ee.src_pos,
                                 ee.src_box, to, ee.dst_cluster, ee.dst_pos, ee.dst_box);
    if (!ne)
        return false;
    for (uint32_t i = 0; i < e->n_re; i++) {
        Rearrange *re = edge_add_rearrange(g, ne, e->re[i].type, e->re[i].n_mats);
        if (!re)
            return false;
        for (uint32_t k = 0; k < e->re[i].n_mats; k++)
            re->mats[k] = e->re[i].mats[k]; /* shared: tensors are not written once built */
    }
    return true;
}

/* Can the block's input edges be copied with the index as it is? They can when no producer
 * is a storage block (whose output interfaces this pass moves); the verifier forbids such
 * edges anyway. */
static bool producers_ok(const Replicator *r, const BlockUses *bu)
{
    for (uint32_t i = 0; i < bu->n_in_edges; i++) {
        const Block *p = graph_block(r->g, r->g->edges[bu->in_edges[i]]->src);
        if (!p || bt_info(p->type)->kind == BK_STORAGE)
            return false;
    }
    return true;
}

/* Copies the storage block at pos once per unit it feeds beyond the first; *n counts. */
static bool replicate_block(Replicator *r, uint32_t pos, uint32_t *n)
{
    Graph *g = r->g;
    Block *s = g->blocks[pos];
    const BlockUses *bu = &r->u.blocks[pos];
    if (bt_info(s->type)->kind != BK_STORAGE || bu->n_out_edges < 2 || !producers_ok(r, bu))
        return true;
    uint32_t k = 0;
    int64_t keep = -1;
    for (uint32_t i = 0; i < bu->n_out_edges; i++) {
        int64_t un = r->unit[i] = unit_of(r, g->edges[bu->out_edges[i]]);
        bool seen = un < 0;
        for (uint32_t j = 0; j < k && !seen; j++)
            seen = r->units[j] == un;
        if (!seen)
            r->units[k++] = un;
        if (un >= 0 && un == (int64_t)r->groups.of[pos] - 1)
            keep = un;
    }
    if (k < 2)
        return true;
    if (keep < 0)
        keep = r->units[0];
    uint32_t copy = 0;
    for (uint32_t j = 0; j < k; j++) {
        if (r->units[j] == keep)
            continue;
        char suffix[24];
        snprintf(suffix, sizeof suffix, "copy%u", ++copy);
        Block *c = graph_clone_block(g, s, suffix);
        if (!c)
            return false;
        for (uint32_t i = 0; i < bu->n_in_edges; i++)
            if (!copy_in_edge(g, &r->u, g->edges[bu->in_edges[i]], c))
                return false;
        for (uint32_t i = 0; i < bu->n_out_edges; i++) {
            if (r->unit[i] != r->units[j])
                continue;
            Edge *e = g->edges[bu->out_edges[i]];
            const IfaceUse *f = uses_find(&r->u, pos, false, e->id);
            if (!graph_retarget_edge(g, e, true, c, f ? f->cluster : 0))
                return false;
        }
        if (r->units[j] < (int64_t)g->n_groups &&
            !group_append(g, &r->groups, (uint32_t)r->units[j], c->id))
            return false;
        (*n)++;
    }
    return true;
}

Status pass_replicate(Graph *g, const PassOptions *o, Diag *d)
{
    (void)o;
    Replicator r = {.g = g};
    if (!graph_uses(g, &r.u))
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    uint32_t most = 1, n0 = g->n_blocks, n = 0;
    for (uint32_t i = 0; i < n0; i++)
        if (r.u.blocks[i].n_out_edges > most)
            most = r.u.blocks[i].n_out_edges;
    bool ok = group_map_build(g, &r.groups);
    r.unit = malloc((size_t)most * sizeof *r.unit);
    r.units = malloc((size_t)most * sizeof *r.units);
    ok = ok && r.unit && r.units;
    for (uint32_t i = 0; ok && i < n0; i++)
        ok = replicate_block(&r, i, &n);
    graph_uses_finish(&r.u);
    group_map_finish(&r.groups);
    free(r.unit);
    free(r.units);
    if (!ok || !graph_compact(g) || graph_oom(g))
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    return ST_OK;
}
