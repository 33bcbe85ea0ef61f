/* passtest.h: helpers of the pass tests (suite passes): simulate a graph on deterministic
 * inputs, run a pass step, and check that the graph still verifies and simulates to the
 * same bits. */
#ifndef TASKIR_TESTS_PASSTEST_H
#define TASKIR_TESTS_PASSTEST_H

#include "taskir/graph.h"

#include <stdint.h>

/* Every OUTPUT's values after one step on inputs made from seed (each INPUT block filled
 * with values of its precision, at most 8 bits), concatenated in graph order; *n gets the
 * count. The graph must verify. malloc'd. */
int32_t *pt_simulate(const Graph *g, uint32_t seed, int64_t *n);
/* Fails the test unless g verifies. */
void pt_verify(const Graph *g);
/* Fails the test unless the graph's outputs on a few seeds equal want (from pt_simulate
 * with the same seeds, seed 1 .. n_seeds, each *n values, one after another). */
void pt_assert_same(const Graph *g, const int32_t *const *want, const int64_t *n,
                    int n_seeds, const char *what);
/* A block of type t with shape y x f (0 = absent), precision INT_8 for INPUT, else INT_32. */
Block *pt_blk(Graph *g, BlockType t, int32_t y, int32_t x, int32_t f, const char *name);
/* INPUT (named "x") or OUTPUT of shape y x f with this socket id. */
Block *pt_io(Graph *g, BlockType t, int32_t y, int32_t x, int32_t f, int32_t socket);
/* Joins output cluster 0 of a to input cluster in_idx of b. */
void pt_link(Graph *g, Block *a, Block *b, uint32_t in_idx);
/* Gives edge e one more step of type t with one parameter tensor of n values p. */
void pt_step(Graph *g, Edge *e, RearrangeType t, const int32_t *p, uint32_t n);
/* Replaces g's groups by n groups, ids first_id, first_id + 1, ...: group k lists sizes[k]
 * blocks, by name, taken in order from names. */
void pt_set_groups(Graph *g, const char *const *names, const uint32_t *sizes, uint32_t n,
                   int32_t first_id);
/* The first edge a -> b, or NULL. */
const Edge *pt_edge_between(const Graph *g, const Block *a, const Block *b);
/* The first block of this name, or NULL. */
Block *pt_by_name(const Graph *g, const char *name);
/* Blocks of type t. */
uint32_t pt_count(const Graph *g, BlockType t);

#endif
