/* dce.c: dead code elimination (docs/passes.md, "dce").
 *
 * Requires nothing. Guarantees PROP_NO_DEAD: every block but the INPUT blocks reaches an
 * OUTPUT block along the edges. Invalidates PROP_GROUPED: a removed compute block's group
 * goes, and with it the place of the storage it shared with a live compute block.
 *
 * Live blocks are found backward from every OUTPUT block (one walk over the use index,
 * O(blocks + edges)); the others are removed with the edges that touch them. An edge into a
 * removed block leaves its live source with one output interface less (an output cluster
 * may leave data unused); an input cluster never loses an interface, as a live block's
 * producers are live. INPUT blocks stay whatever they feed, so the graph keeps its sockets
 * and takes the same inputs (one that fed only dead blocks is left without an edge). A graph
 * without an OUTPUT block computes nothing anyone reads: a logic error [pass.dce.output].
 */
#include "passes/groups.h"
#include "passes/pass.h"
#include "taskir/uses.h"

#include <stdlib.h>

/* Marks live[pos] for every block that reaches an OUTPUT block. false when out of memory. */
static bool mark_live(const Graph *g, const GraphUses *u, bool *live)
{
    uint32_t *stack = malloc(((size_t)g->n_blocks + 1) * sizeof *stack), n = 0;
    if (!stack)
        return false;
    for (uint32_t i = 0; i < g->n_blocks; i++)
        if (g->blocks[i]->type == BT_OUTPUT && !live[i]) {
            live[i] = true;
            stack[n++] = i;
        }
    while (n > 0) {
        const BlockUses *bu = &u->blocks[stack[--n]];
        for (uint32_t k = 0; k < bu->n_in_edges; k++) {
            long pos = graph_block_pos(g, g->edges[bu->in_edges[k]]->src);
            if (pos >= 0 && !live[pos]) {
                live[pos] = true;
                stack[n++] = (uint32_t)pos;
            }
        }
    }
    free(stack);
    return true;
}

Status pass_dce(Graph *g, const PassOptions *o, Diag *d)
{
    (void)o;
    bool any_output = false;
    for (uint32_t i = 0; i < g->n_blocks && !any_output; i++)
        any_output = g->blocks[i]->type == BT_OUTPUT;
    if (!any_output)
        return diag_add(d, ST_LOGIC, "pass.dce.output", NULL, "dce: the graph has no OUTPUT "
                        "block, so no block computes anything that is read: dce would leave "
                        "nothing");
    GraphUses u;
    bool *live = calloc((size_t)g->n_blocks + 1, sizeof *live);
    if (!live || !graph_uses(g, &u)) {
        free(live);
        return diag_add(d, ST_RUNTIME, "oom", NULL, "dce: out of memory");
    }
    bool ok = mark_live(g, &u, live);
    graph_uses_finish(&u);
    if (!ok) {
        free(live);
        return diag_add(d, ST_RUNTIME, "oom", NULL, "dce: out of memory");
    }
    bool changed = false;
    for (uint32_t i = 0; i < g->n_edges; i++) {
        Edge *e = g->edges[i];
        long s = graph_block_pos(g, e->src), t = graph_block_pos(g, e->dst);
        if ((s >= 0 && !live[s] && g->blocks[s]->type != BT_INPUT) || (t >= 0 && !live[t]))
            graph_remove_edge(g, e);
    }
    /* Every edge of a dead block is gone: marking it is what graph_remove_block would do
     * after its O(edges) search for them. */
    for (uint32_t i = 0; i < g->n_blocks; i++)
        if (!live[i] && g->blocks[i]->type != BT_INPUT) {
            g->blocks[i]->removed = true;
            changed = true;
        }
    free(live);
    if (changed)
        group_prune(g);
    if (!graph_compact(g) || graph_oom(g))
        return diag_add(d, ST_RUNTIME, "oom", NULL, "dce: out of memory");
    return ST_OK;
}
