/* graphbuild.h: building TaskGraphs by hand in the CMocka tests (tests/unit/test_layout.c,
 * tests/mapper/test_mapper.c, tests/exact/test_exact.c): a block of a type, name, precision
 * and shape, an edge between two blocks, and a run of the graph. A failure (out of memory, a connection the
 * graph refuses) fails the running test through CMocka. Include it after <cmocka.h>.
 *
 * Meson: graphbuild_dep (tests/meson.build). */
#ifndef TASKIR_TESTS_GRAPHBUILD_H
#define TASKIR_TESTS_GRAPHBUILD_H

#include <stdint.h>

#include "taskir/chip.h"
#include "taskir/graph.h"

/* A block of type t named name (NULL: none) holding precision p, its shape s (y, x, f, r,
 * ky, kx, iy, ix: Shape's dims) given. */
Block *tg_blk(Graph *g, BlockType t, const char *name, PrecisionId p,
              const int32_t s[TIR_NDIMS]);

/* tg_blk's INPUT or OUTPUT block (t) carrying socket k. */
Block *tg_io(Graph *g, BlockType t, const char *name, PrecisionId p,
             const int32_t s[TIR_NDIMS], uint32_t k);

/* An edge from output cluster out of a to input cluster in of b. */
void tg_join(Graph *g, Block *a, uint32_t out, Block *b, uint32_t in);

/* Edges from output cluster 0 of each block to input cluster 0 of the next, up to NULL:
 * tg_chain(g, a, b, c, NULL) is tg_join(g, a, 0, b, 0) then tg_join(g, b, 0, c, 0). */
void tg_chain(Graph *g, Block *first, ...);

/* Runs g one step on the n values in (INPUT socket 0) with the TaskGraph's arithmetic (c
 * NULL) or chip c's (sim_use_chip), into its m output values (OUTPUT socket 0). */
void tg_run(const Graph *g, const Chip *c, const int32_t *in, int64_t n, int32_t *out,
            int64_t m);

#endif
