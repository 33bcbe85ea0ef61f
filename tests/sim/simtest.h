/* simtest.h: helpers shared by the simulator tests (suite sim): building small graphs with
 * the builder API of graph.h and running them in process.
 *
 * The usual harness is one compute block fed by storage blocks that hold their values as data
 * tensors (no INPUT blocks), whose result goes through an SI block to an OUTPUT block:
 *     st_operand(...) x n  ->  COMPUTE  ->  SI  ->  OUTPUT
 * st_run_block() builds the rest, verifies the graph, runs one step and returns the output. */
#ifndef TASKIR_TESTS_SIMTEST_H
#define TASKIR_TESTS_SIMTEST_H

#include "taskir/graph.h"
#include "taskir/sim.h"

#include <stdbool.h>
#include <stdint.h>

/* A deterministic generator for test data (xorshift32). */
typedef struct StRng {
    uint32_t s;
} StRng;
uint32_t st_next(StRng *r);
/* A value in [lo, hi]. */
int32_t st_range(StRng *r, int32_t lo, int32_t hi);
/* n values in [lo, hi] in a new array (free it). */
int32_t *st_values(StRng *r, int64_t n, int32_t lo, int32_t hi);

/* A block with shape dims y x f r ky kx iy ix (0 = absent). */
Block *st_block(Graph *g, BlockType t, const int32_t shape[TIR_NDIMS], const char *name);
/* A storage block of type t and shape holding n values as an INT_32 data tensor. */
Block *st_storage(Graph *g, BlockType t, const int32_t shape[TIR_NDIMS], const int32_t *v,
                  int64_t n);
/* INPUT / OUTPUT with shape dims y x f r (0 = absent) and a socket id. */
Block *st_io(Graph *g, BlockType t, int32_t y, int32_t x, int32_t f, int32_t r, int32_t socket,
             const char *name);

/* Adds c -> SI -> OUTPUT (the SI and OUTPUT of c's y x f and precision; the OUTPUT's socket
 * and name as given); returns the OUTPUT. */
Block *st_out(Graph *g, Block *c, int32_t socket, const char *name);
/* Connects each operand i to input cluster i of c, adds c -> SI -> OUTPUT (socket 0), checks
 * the graph with the verifier, runs steps time steps and copies the output of step t (n
 * values, c's output shape) to out + t * n. Returns the status of the run; diagnostics go to
 * d when non-NULL (else any error fails the test). */
Status st_run_block(Graph *g, Block *c, Block *const *operands, int n_operands, int steps,
                    int32_t *out, int64_t n, Diag *d);

/* K x K taps with padding K / 2 on every side, as c's attributes. */
void st_window(Graph *g, Block *c, int32_t K);
/* A convolution of K x K taps (padding K / 2) from storage in into a new storage block out
 * of F channels, with random int8 weights and bias; prec: its result's precision. Returns the
 * result's storage block. */
Block *st_conv_layer(Graph *g, StRng *r, Block *in, int32_t H, int32_t R, int32_t F, int32_t K,
                     PrecisionId prec);

/* Creates a run (verifying first), failing the test on any error. */
SimRun *st_create(const Graph *g, const SimOptions *o);

/* A convolution's geometry (the CC / CC2D window, docs/semantics.md section 3.4). */
typedef struct StConv {
    int32_t Y, X, F, R, KY, KX, IY, IX, sy, sx, dy, dx, pu, pl;
} StConv;

/* The loop nest of section 3.4 in int64: out[oy][ox][f] = bias[f] + the sum over r, ky, kx
 * of in[iy][ix][r] * w[f][r][ky][kx] (zero padding), wrapped to int32, then clamped to
 * [lo, hi]. A CVM is the 1 x 1 convolution of one pixel. */
void st_conv_ref(const StConv *c, const int32_t *in, const int32_t *w, const int32_t *bias,
                 int32_t lo, int32_t hi, int32_t *out);

/* Prints the first difference of two arrays and fails the test if they differ. */
void st_assert_equal(const int32_t *want, const int32_t *got, int64_t n, const char *what);

#endif
