/* pass.h: the passes over a TaskGraph (docs/passes.md) and the table of them (table.c).
 *
 * A pass rewrites a Graph in place through graph_edit.c's change sets and ends compacted; it
 * keeps the graph's outputs bit for bit (the diff suite simulates before and after every
 * pass), keeps provenance names ("conv1/y0", "conv1/r1+") and is deterministic. A pass that
 * cannot do its job reports a logic error naming the block and the numbers and leaves the
 * graph as it was or unusable (the caller then discards it; taskir-opt writes nothing).
 */
#ifndef TASKIR_PASSES_PASS_H
#define TASKIR_PASSES_PASS_H

#include "taskir/chip.h"
#include "taskir/diag.h"
#include "taskir/graph.h"

#include <stdbool.h>

/* Properties a graph has after a pass (PassInfo.guarantees) or must have before one
 * (PassInfo.requires); a pass that may break one lists it in PassInfo.invalidates. */
enum {
    PROP_FITS = 1u << 0,        /* every group fits one core of the chip (split, fit mode) */
    PROP_FUSED = 1u << 1,       /* Soma blocks joined to their Axon where a core can (fuse) */
    PROP_REPLICATED = 1u << 2,  /* a storage block feeds compute blocks of one group only */
    PROP_NO_DEAD = 1u << 3,     /* every block reaches an OUTPUT (dce) */
    PROP_GROUPED = 1u << 4      /* the groups field is filled (group) */
};

typedef struct PassOptions {
    const Chip *chip;           /* never NULL: the chip the passes fit to */
    /* split: explicit cuts "NAME:AXIS=N[,AXIS=N...][;NAME:...]" by block name or id (axes y
     * x f r); NULL: fit mode alone chooses */
    const char *split_spec;
    bool no_fit;                /* split: only the explicit cuts, no fit mode */
} PassOptions;

typedef Status (*PassRun)(Graph *g, const PassOptions *o, Diag *d);

typedef struct PassInfo {
    const char *name;           /* "split" */
    const char *summary;        /* one line for --help and docs/passes.md */
    unsigned requires;          /* PROP_* the graph must have */
    unsigned guarantees;        /* PROP_* it has afterwards */
    unsigned invalidates;       /* PROP_* it may break */
    PassRun run;
} PassInfo;

/* The passes, in the table's order; *n is set to their count. */
const PassInfo *pass_table(size_t *n);
/* The pass of this name, or NULL. */
const PassInfo *pass_find(const char *name);
/* The list a user wants before mapping, comma-separated. */
extern const char pass_default_list[];

/* The passes, one file each. */
Status pass_split(Graph *g, const PassOptions *o, Diag *d);
Status pass_fuse(Graph *g, const PassOptions *o, Diag *d);
Status pass_replicate(Graph *g, const PassOptions *o, Diag *d);
Status pass_dce(Graph *g, const PassOptions *o, Diag *d);
Status pass_fold(Graph *g, const PassOptions *o, Diag *d);
Status pass_group(Graph *g, const PassOptions *o, Diag *d);

#endif
