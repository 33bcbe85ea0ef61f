/* verify.h: the TaskGraph verifier. Checks every rule listed in docs/rules.md and records
 * every violation, not only the first, each with its stable rule id and the block or edge it
 * is about: `lenet.pb: block 17 (CC 'conv1'): <what> [rule-id]`. */
#ifndef TASKIR_VERIFY_H
#define TASKIR_VERIFY_H

#include "taskir/graph.h"

/* Returns ST_OK when the graph obeys every rule, ST_LOGIC when it breaks any (all findings
 * are in d), ST_RUNTIME when the verifier ran out of memory. Never modifies the graph. */
Status verify_graph(const Graph *g, Diag *d);

typedef struct VerifyOptions {
    /* Also record, as warnings (status ST_OK, so not counted as violations), the pedantic
     * findings about conventions of the existing tools that the verifier accepts: an absent
     * socket_id, an attribute a type does not use at its neutral value, a data-holding
     * storage block's empty input cluster, a 1-D form (docs/formats.md, reading). */
    bool strict;
    /* Threads for the checks of the data tensors' values (0 or 1: this thread only). */
    uint32_t threads;
    /* With threads > 1: worker threads the caller keeps (parallel.h) that run those checks
     * instead of threads started for them; NULL: started. */
    struct TirPool *pool;
    /* g's use index (uses.h) when the caller holds one, NULL: built here. */
    const struct GraphUses *uses;
} VerifyOptions;

/* verify_graph with options; o may be NULL (no options). */
Status verify_graph_opts(const Graph *g, const VerifyOptions *o, Diag *d);

#endif
