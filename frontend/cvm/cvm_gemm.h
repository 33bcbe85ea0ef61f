/* cvm_gemm.h: the integer matrix product that conv2d and dense reduce to (cvm_ops_nn.c), the
 * reference interpreter's one fast kernel. Internal to frontend/cvm; not installed.
 *
 *     Y[i * yi + j * yj] = bias[i] + sum_{k < K} A[i][k] * B[j][k]      (i < M, j < N)
 *
 * A (M x K) and B (N x K) are packed (CvmPack): int16 rows, each padded with zeros to a
 * multiple of CVM_GEMM_KALIGN and the row count to a multiple of CVM_GEMM_RALIGN, so that the
 * kernel runs whole 4 x 4 blocks of Y over whole vectors of k (the zeros add nothing). Sums
 * are int32: exact, with no overflow, when cvm_gemm_exact holds for the operands' largest
 * magnitudes, which the caller checks before packing (og_tensor_absmax); when it does not, the
 * caller computes the formula in int64 itself.
 *
 * The kernel is plain C that the compiler vectorizes (int16 products summed in int32 pairs);
 * where the CPU has AVX2 (asked at run time) the same C compiled for AVX2 runs instead. Both
 * give the same bits: integer sums in any order are equal.
 */
#ifndef FRONTEND_CVM_GEMM_H
#define FRONTEND_CVM_GEMM_H

#include <stdbool.h>
#include <stdint.h>

#define CVM_GEMM_KALIGN 16  /* a row's length, in int16 values, is a multiple of this */
#define CVM_GEMM_RALIGN 4   /* the row count is a multiple of this */

/* A packed matrix: rows x k values in rows of ld int16, zero beyond k and beyond rows. */
typedef struct CvmPack {
    int16_t *v;
    int64_t rows, k;
    int64_t ld;             /* k rounded up to CVM_GEMM_KALIGN */
    int64_t prows;          /* rows rounded up to CVM_GEMM_RALIGN */
} CvmPack;

/* Allocates p for rows x k (rows, k >= 1), all zero. False when out of memory or when the
 * size does not fit memory (p is then all zero; cvm_pack_free accepts it). */
bool cvm_pack_alloc(CvmPack *p, int64_t rows, int64_t k);
void cvm_pack_free(CvmPack *p);

/* Row r of p (r < p->prows). */
static inline int16_t *cvm_pack_row(const CvmPack *p, int64_t r)
{
    return p->v + r * p->ld;
}

/* Whether A[i][k] with |A| <= amax, B[j][k] with |B| <= bmax, k < K, and a bias of magnitude at
 * most cmax give exact int32 sums: amax, bmax <= INT16_MAX (they pack) and K * amax * bmax +
 * cmax <= INT32_MAX (no partial sum can leave int32, in whatever order it is summed). */
bool cvm_gemm_exact(int64_t K, int64_t amax, int64_t bmax, int64_t cmax);

/* The product above, for A and B of the same k; bias may be NULL (0). */
void cvm_gemm(const CvmPack *a, const CvmPack *b, const int32_t *bias, int32_t *y, int64_t yi,
              int64_t yj);

/* The kernels, for the test that holds them to each other (tests/cvm/test_cvm_gemm.c): the
 * plain one (false) or the AVX2 one (true: NULL when this CPU or build has none). */
typedef void (*CvmGemmFn)(const CvmPack *a, const CvmPack *b, const int32_t *bias, int32_t *y,
                          int64_t yi, int64_t yj);
CvmGemmFn cvm_gemm_kernel(bool avx2);

#endif
