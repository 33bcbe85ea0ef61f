/* split.c: the split pass (pass.h, docs/passes.md "split"): the explicit cuts of
 * PassOptions.split_spec, then, unless no_fit, fit mode (split_fit.c). Groups already in
 * the graph lose the blocks that were cut (the pieces are in none: group makes theirs). */
#include "passes/groups.h"
#include "passes/split.h"

Status pass_split(Graph *g, const PassOptions *o, Diag *d)
{
    Status st = ST_OK;
    if (o->split_spec && *o->split_spec)
        st = split_apply_spec(g, o->chip, o->split_spec, d);
    if (st == ST_OK && !o->no_fit)
        st = split_fit(g, o->chip, d);
    if (st == ST_OK)
        group_prune(g);
    return st;
}
