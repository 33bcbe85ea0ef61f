/* difftest.h: helpers of the differential tests (suite diff): build a CVM model in memory,
 * run it through the reference interpreter (fe_interp_run), lower it (fe_lower, which
 * verifies the graph), run the TaskGraph through the simulator (sim_run, with the model's
 * batch as the leading dim) and compare the outputs bit for bit.
 *
 * Random data comes from a fixed-seed generator (splitmix64), so every run tests the same
 * cases. DIFF_QUICK=1 in the environment makes the grids smaller (for sanitizer builds); the
 * default run covers every value of every test-parameter grid of the CVM formalization. */
#ifndef TESTS_DIFF_DIFFTEST_H
#define TESTS_DIFF_DIFFTEST_H

#include "frontend/cvm/cvm.h"
#include "frontend/interp/interp.h"
#include "frontend/lower/lower.h"
#include "taskir/types.h"

#include <stdbool.h>
#include <stdint.h>

#include "dtrng.h"

/* A value of precision p: |v| <= 2^(p-1) - 1. */
int32_t dt_prec_value(DtRng *r, int32_t p);
/* True when DIFF_QUICK is set: tests may sample their grids more sparsely. */
bool dt_quick(void);

/* A model under construction: inputs get random values of their precision. */
typedef struct DtModel {
    OpGraph *g;
    Diag d;
    DtRng *rng;
    OgTensor in[4];         /* the values of the inputs, in order */
    uint32_t nin;
    OgNode *last;           /* the last node added */
    const int32_t *expect;  /* dt_check_expect: hand-checked values of output 0 */
    int64_t nexpect;
    uint32_t steps[RT_COUNT]; /* dt_check: rearrangement steps of the lowered graph, per type */
    uint32_t edges;           /* dt_check: edges of the lowered graph */
} DtModel;

void dt_begin(DtModel *m, DtRng *rng);
void dt_end(DtModel *m);
/* Adds an input of shape s and precision p with random values; returns its node id. */
int32_t dt_input(DtModel *m, const char *name, uint32_t ndim, const int64_t *d, int32_t p);
/* Adds a parameter of shape s with random values of precision p (or the given values). */
int32_t dt_const(DtModel *m, const char *name, uint32_t ndim, const int64_t *d, int32_t p,
                 const int32_t *values);
/* Adds an operator over inputs (node ids, their output 0) with attributes kv ("key",
 * "value", ..., NULL). dt_op fails the test when the model is invalid; dt_op_try returns -1
 * and the status instead. */
int32_t dt_op(DtModel *m, CvmOp op, const char *name, const int32_t *ins, uint32_t nin,
              const char *const *kv);
int32_t dt_op_try(DtModel *m, CvmOp op, const char *name, const int32_t *ins, uint32_t nin,
                  const char *const *kv, Status *st);
/* conv2d (weights oc x c/groups x k x k of 8 bits, a 16-bit bias; pad and stride as CVM
 * tuples "(1, 1)") -> cvm_right_shift by shift to 8 bits -> cvm_clip -> relu: the usual
 * requantized convolution. Returns the relu's node id. */
int32_t dt_conv_q(DtModel *m, const char *name, int32_t x, int64_t c, int64_t oc, int64_t k,
                  const char *pad, const char *stride, int64_t groups, int shift);
/* dense (k inputs, u units, 8-bit weights, 12-bit bias) -> cvm_right_shift by 7 to 8 bits,
 * -> relu when relu. Returns the last node's id. */
int32_t dt_dense_q(DtModel *m, const char *name, int32_t x, int64_t k, int64_t u, bool relu);
/* Marks node id's output idx as a model output. */
void dt_output(DtModel *m, int32_t id, uint32_t idx);

/* Runs the interpreter, lowers, simulates and compares every output. what names the case in
 * messages. Fails the test on any difference or error. Returns the number of blocks of the
 * lowered graph. */
uint32_t dt_check(DtModel *m, const char *what);
/* dt_check, and output 0 must also equal want (n values): a hand-checked case. */
void dt_check_expect(DtModel *m, const char *what, const int32_t *want, int64_t n);
/* Sets input k's values (instead of the random ones). */
void dt_set_input(DtModel *m, uint32_t k, const int32_t *v);
/* Lowers the model and expects a logic error with this rule whose where names `name`. */
void dt_expect_lower_error(DtModel *m, const char *rule, const char *name);

#define DT_SHP(...) ((const int64_t[]){__VA_ARGS__})
#define DT_ND(...) (uint32_t)(sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), \
    ((const int64_t[]){__VA_ARGS__})
#define DT_KV(...) ((const char *const[]){__VA_ARGS__, NULL})
#define DT_INS(...) ((const int32_t[]){__VA_ARGS__}), \
    (uint32_t)(sizeof((const int32_t[]){__VA_ARGS__}) / sizeof(int32_t))

#endif
