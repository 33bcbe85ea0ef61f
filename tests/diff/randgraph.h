/* randgraph.h: a generator of random TaskGraphs for the pass tests (test_diff_passes.c),
 * deterministic by seed. Each graph is valid and simulatable: a random CVM model (difftest.h)
 * of the shapes passes cut and join (one in ten with a larger image, 24 to 40 pixels a side,
 * so that it does not fit a core) — chains of requantized convolutions (kernel 1 or 3,
 * padding, stride 1 or 2), max pooling, residual additions, elementwise tables (CLUT, from a
 * division by a constant), a dense layer at the end, sometimes a second output — lowered by
 * fe_lower, then given by hand what no lowering makes: branches that reach no OUTPUT (a copy
 * of a one-input compute block and its result storage) for dce. rg_lif_graph builds the
 * spiking case (CLIF), which no frontend lowers to. */
#ifndef TESTS_DIFF_RANDGRAPH_H
#define TESTS_DIFF_RANDGRAPH_H

#include "taskir/graph.h"

#include <stdint.h>

/* The random graph of this seed; fails the test when it cannot be built. *what (when not
 * NULL) gets a one-line description ("seed 5: conv3 pool add lut dense, 2 dead branches"). */
Graph *rg_random_graph(uint64_t seed, char *what, size_t what_len);
/* INPUT (f = n) -> SI -> CLIF (threshold, leak, reset) -> SI -> OUTPUT, and a dead CLIF
 * beside it; n neurons. */
Graph *rg_lif_graph(int32_t n);

#endif
