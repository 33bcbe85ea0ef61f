/* split_fixture.h: one compute block with its storage, fed by INPUT blocks and read by an
 * OUTPUT, built for the split pass's tests, and running such a graph over several time
 * steps (passtest.h has the rest: verifying, finding blocks). */
#ifndef TESTS_PASSES_SPLIT_FIXTURE_H
#define TESTS_PASSES_SPLIT_FIXTURE_H

#include "taskir/graph.h"

/* A graph around one compute block 'op' of type t, shape s (y x f r ky kx iy ix, 0 =
 * absent), precision prec, bias_type bias, attributes attrs[0..n_attrs) (pairs id, value):
 * each activation input cluster is fed by an INPUT through its storage block (SIC, SIC2D,
 * SIFC or SI, named 'op/inK'); weights, alpha, table and bias are storage blocks holding
 * pseudo-random data ('op/w', 'op/a', 'op/lut', 'op/b'); the output goes through an SI
 * ('op/out') to an OUTPUT. n_in: the number of activation inputs (CADD, CLIF; else 0 for
 * the type's). Fails the test when something cannot be built. */
Graph *fx_block(BlockType t, const int32_t s[TIR_NDIMS], PrecisionId prec, int bias,
                const int32_t *attrs, int n_attrs, int n_in);
/* Runs g for steps time steps on pseudo-random inputs (seeded) and returns every output's
 * values, concatenated (malloc'd; *n their count). */
int32_t *fx_run(const Graph *g, int steps, uint32_t seed, int64_t *n);

#endif
