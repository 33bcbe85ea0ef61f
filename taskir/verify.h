/* verify.h: the TaskGraph verifier. Checks every rule listed in docs/rules.md and records
 * every violation, not only the first, each with its stable rule id and the block or edge it
 * is about: `lenet.pb: block 17 (CC 'conv1'): <what> [rule-id]`. */
#ifndef TASKIR_VERIFY_H
#define TASKIR_VERIFY_H

#include "taskir/graph.h"

/* Returns ST_OK when the graph obeys every rule, ST_LOGIC when it breaks any (all findings
 * are in d), ST_RUNTIME when the verifier ran out of memory. Never modifies the graph. */
Status verify_graph(const Graph *g, Diag *d);

#endif
