/* passcheck.h: the passes checked by the simulator (docs/passes.md, "Testing"): a graph's
 * outputs over two time steps (one when it has no CLIF block, whose state carries over), on
 * inputs made from each INPUT block's socket id inside its
 * precision, must be the same after a pass as before the passes. Each pass runs on a copy
 * made by saving and loading the graph (pc_check_orders; pc_check_default runs them in place),
 * so groups and everything a pass writes also go through the .pb writer and reader; its
 * result must pass the verifier. A result that
 * saves to its input's bytes, groups aside (the simulator does not read them), runs as the
 * input did and is not simulated again.
 *
 * pc_check_orders runs every order of the table's passes that the requirements allow, as a
 * tree sharing prefixes, checking after every pass; where two orders reach the same graph
 * (the same bytes, groups included) with the same passes run and properties, the rest of
 * the tree is walked once; pc_check_default runs the default list,
 * checking after every pass (what difftest.c's dt_check does to every graph of the diff
 * suite). Both fail the test at the first difference, naming the passes run. A graph that
 * cannot fit the chip (split refuses it: [pass.split.fit], a block that no cut makes fit)
 * ends its path there: the passes after split have nothing to work on. */
#ifndef TESTS_DIFF_PASSCHECK_H
#define TESTS_DIFF_PASSCHECK_H

#include "taskir/graph.h"

#include <stdint.h>

void pc_check_orders(const Graph *g, const char *what);
void pc_check_default(Graph *g, const char *what); /* takes g, runs the passes in place */
/* pc_check_default runs only with DIFF_PASSES=1 in the environment, and leaves out graphs
 * of more edges than this (destroying them unchecked): with split in the default list the
 * operator grids take far longer than the suite's budget (split's removal of interfaces,
 * graph_remove_edge, is linear in a cluster's interfaces each time, and some elementwise
 * tables and gathers lower to thousands of edges). test_diff_passes checks the example
 * graphs and the random graphs in every order, always. */
#define PC_DEFAULT_MAX_EDGES 1000
/* Graphs pc_check_default left out so far. */
uint32_t pc_default_skipped(void);
/* Pass runs checked so far by this process; *simulated (when not NULL): those whose result
 * was simulated (the others saved to their input's bytes, groups aside, so they run as it
 * did); *refused (when not NULL): runs of split that refused a graph that cannot fit. */
uint32_t pc_passes_run(uint32_t *simulated, uint32_t *refused);

#endif
