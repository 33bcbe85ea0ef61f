/* exact_internal.h: what the files of the exactness analysis share (private to
 * taskir/exact*.c): saturating bound arithmetic and the walk over the constant values of a
 * cluster. */
#ifndef TASKIR_EXACT_INTERNAL_H
#define TASKIR_EXACT_INTERNAL_H

#include "taskir/exact.h"
#include "taskir/uses.h"

/* a + b and a * b for bounds in [-EXACT_INF, EXACT_INF], saturating there. */
int64_t exact_add(int64_t a, int64_t b);
int64_t exact_mul(int64_t a, int64_t b);

/* Calls fn(arg, index, value) for every value of input cluster cl of the block at position
 * pos (index: the flat C-order index in the cluster) when every edge into the cluster copies
 * unchanged (no rearrangement) from a storage block that holds data and that nothing writes,
 * so that the values are the same at every step; false otherwise, or when the cluster has no
 * edge (fn may then have been called for some values). */
typedef void (*ExactConstFn)(void *arg, int64_t index, int64_t value);
bool exact_const_walk(const Graph *g, const GraphUses *u, uint32_t pos, uint32_t cl,
                      ExactConstFn fn, void *arg);

/* CADD block pos (its input clusters' ranges cl, n_cl of them) when it sums values v and
 * c - 2^S floor(v / 2^S) computed from the same v (exact_mod.c): *raw gets its exact result,
 * cb + c + (v mod 2^S), *acc its partial sums; false when it does not. */
bool exact_mod_sum(const Graph *g, const GraphUses *u, const ExactBlock *xb, uint32_t pos,
                   const ExactRange *cl, uint32_t n_cl, ExactRange *raw, ExactRange *acc);

#endif
