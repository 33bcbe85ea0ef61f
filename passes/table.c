/* table.c: the table of passes (pass.h), one row a pass in pipeline order, and the default
 * list (docs/passes.md, "The passes" and "The default list").
 *
 * The pipeline order, and why: dce first, so no later pass splits, fuses or copies blocks
 * whose results nobody reads; fold before split, so split cuts a fully connected layer
 * along its vector in C order (runs of whole pixels, not one channel of each); split (fit mode) before fuse, so fuse joins pieces that already
 * fit a core; fuse before replicate, so the copies are made per fused group; group last, as
 * it records the units that the earlier passes shaped.
 */
#include "passes/pass.h"

#include <string.h>

static const PassInfo passes[] = {
    {"dce", "remove the blocks that reach no OUTPUT block (INPUT blocks stay)",
     0, PROP_NO_DEAD, PROP_GROUPED, pass_dce},
    {"fold", "fold a flatten that only fully connected layers read into their weights: the "
     "vector holds the map in C order, each CVM's weight columns permuted to match",
     0, 0, 0, pass_fold},
    {"split", "cut compute blocks (y, x, f, r) until every group fits a core of the chip and "
     "every edge the per-destination limit (fit mode), after the explicit cuts of --split",
     0, PROP_FITS, PROP_GROUPED | PROP_FUSED | PROP_REPLICATED, pass_split},
    {"fuse", "join each Axon block and the Soma block after it into one group where a core "
     "runs both in one phase; remove blocks that only copy; merge storage of equal data",
     0, PROP_FUSED, PROP_REPLICATED | PROP_GROUPED, pass_fuse},
    {"replicate", "copy each storage block read by several groups (or ungrouped compute "
     "blocks), one copy per reader",
     0, PROP_REPLICATED, 0, pass_replicate},
    {"group", "fill the groups field: one group per compute block with the storage it reads "
     "(valid groups already there are kept)",
     0, PROP_GROUPED, 0, pass_group},
};

const char pass_default_list[] = "dce,fold,split,fuse,replicate,group";

const PassInfo *pass_table(size_t *n)
{
    *n = sizeof passes / sizeof passes[0];
    return passes;
}

const PassInfo *pass_find(const char *name)
{
    for (size_t i = 0; i < sizeof passes / sizeof passes[0]; i++)
        if (strcmp(passes[i].name, name) == 0)
            return &passes[i];
    return NULL;
}
