/* sim_dot8.h: the int8 x int8 -> int32 inner step of the CC, CC2D and CVM kernels
 * (sim_kernels.c, "the int8 path") in two versions with one contract: with the AVX-512 VNNI
 * dot-product instruction (vpdpbusd), used where the CPU has it (asked at run time, so one
 * binary runs everywhere), and in plain C, the reference the tests hold it to
 * (tests/sim/test_sim_dot8.c). The caller passes one block of at most 64 channels at a time
 * (the weights of a block stay in the cache); any F is accepted. Private to taskir/sim*.c.
 *
 * Operands: x holds unsigned bytes (an int8 value plus 128), w signed bytes in groups of four
 * along the reduction: w[(q * fp + f) * 4 + j] is the weight of output channel f for
 * reduction index 4q + j, fp = F rounded up to SIM_DOT8_LANES (zero weights beyond F and
 * beyond the reduction's end). corr[f] (fp entries) is subtracted once per pixel: 128 times
 * the sum of f's weights, which undoes the +128 of x. All sums are modulo 2^32, so both
 * versions give the same bits as the int32 wrap of the exact result. */
#ifndef TASKIR_SIM_DOT8_H
#define TASKIR_SIM_DOT8_H

#include <stdbool.h>
#include <stdint.h>

#define SIM_DOT8_LANES 16

/* For n pixels i: acc[i * acc_step + f] += sum over q < nq, j < 4 of
 * x[i * x_step + 4q + j] * w[(q * fp + f) * 4 + j], minus corr[f], for f < F. */
typedef void (*SimDot8Fn)(uint32_t *acc, int64_t acc_step, const uint8_t *x, int64_t x_step,
                          int64_t n, const int8_t *w, const uint32_t *corr, int64_t nq,
                          int64_t F);

/* The plain C version. */
void sim_dot8_c(uint32_t *acc, int64_t acc_step, const uint8_t *x, int64_t x_step, int64_t n,
                const int8_t *w, const uint32_t *corr, int64_t nq, int64_t F);

/* The VNNI version when this CPU (and this build) has it, else NULL. */
SimDot8Fn sim_dot8_vnni(void);

/* Packing the weights of a 1 x 1 tap (or a CVM) for the step: for nf rows of R int32 values
 * (row f at W + f * row_step, the values contiguous), out[q * ws + f] = the values 4q ...
 * 4q + 3 of row f as four bytes (zero beyond R; q < ceil(R / 4)), read in memory order, and
 * sums[f] = the sum of row f modulo 2^32. Returns a value at most 255 exactly when every
 * value is an int8 (an OR of the values plus 128); the bytes mean nothing otherwise. */
typedef uint32_t (*SimPack8Fn)(uint32_t *out, int64_t ws, const int32_t *W, int64_t row_step,
                               int64_t R, int64_t nf, uint32_t *sums);

/* The plain C version. */
uint32_t sim_pack8_c(uint32_t *out, int64_t ws, const int32_t *W, int64_t row_step, int64_t R,
                     int64_t nf, uint32_t *sums);

/* The same from rows of int8 values (a tensor held narrow, Tensor.i8): every value is an int8,
 * so there is nothing to report; the bytes and sums are the ones sim_pack8_c gives for the
 * same values held as int32. */
void sim_pack8_i8(uint32_t *out, int64_t ws, const int8_t *W, int64_t row_step, int64_t R,
                  int64_t nf, uint32_t *sums);

/* The AVX-512 version (one vector narrowing per 16 values) where the CPU has the VNNI step
 * (the only time the packed weights are used), else NULL. */
SimPack8Fn sim_pack8_vnni(void);

#endif
