/* split.c: the split pass (pass.h, docs/passes.md "split"): the explicit cuts of
 * PassOptions.split_spec, then, unless no_fit, fit mode (split_fit.c, split_edge.c). Groups
 * already in the graph lose the blocks that were cut (the pieces are in none: group makes
 * theirs). */
#include "passes/groups.h"
#include "passes/split.h"

static uint32_t compute_blocks(const Graph *g)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->n_blocks; i++)
        n += bt_info(g->blocks[i]->type)->kind == BK_COMPUTE;
    return n;
}

Status pass_split(Graph *g, const PassOptions *o, Diag *d)
{
    SplitSlices *slices = split_slices_create();
    if (!slices)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    Status st = ST_OK;
    if (o->split_spec && *o->split_spec)
        st = split_apply_spec(g, o->chip, o->split_spec, slices, d);
    /* fit the groups, then the edges; cutting an edge with a rearrangement may stage it
     * through a new CADD (encode.h), which must fit too: again until no block is added */
    for (int round = 0; st == ST_OK && !o->no_fit; round++) {
        st = split_fit(g, o->chip, slices, d);
        uint32_t n = compute_blocks(g);
        if (st == ST_OK)
            st = split_edges(g, o->chip, d);
        if (st != ST_OK || compute_blocks(g) == n)
            break;
        if (round == 8) {
            st = diag_add(d, ST_LOGIC, "pass.split.fit", NULL, "the edges cut to the "
                          "per-destination limit keep adding blocks that do not fit");
            break;
        }
    }
    if (!split_slices_finish(g, slices) && st == ST_OK)
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    split_slices_destroy(slices);
    if (st == ST_OK)
        group_prune(g);
    return st;
}
