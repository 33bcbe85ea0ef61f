/* cvm_gemm.c: the interpreter's integer matrix product (cvm_gemm.h).
 *
 * Y is computed in 4 x 4 blocks: 16 sums over the whole of k in one pass, each A row and B row
 * loaded once per block, which the compiler turns into vector multiply-adds of int16 pairs
 * (pmaddwd and its AVX2 form). For the cache, A is taken in bands of rows that fit in about
 * 256 KiB; each band meets every block of B rows in turn.
 */
#include "frontend/cvm/cvm_gemm.h"

#include <stdlib.h>

#define BAND_BYTES (256 * 1024)

bool cvm_pack_alloc(CvmPack *p, int64_t rows, int64_t k)
{
    *p = (CvmPack){0};
    if (rows < 1 || k < 1 || rows > INT64_MAX / 2 || k > INT64_MAX / 2)
        return false;
    int64_t ld = (k + CVM_GEMM_KALIGN - 1) / CVM_GEMM_KALIGN * CVM_GEMM_KALIGN;
    int64_t prows = (rows + CVM_GEMM_RALIGN - 1) / CVM_GEMM_RALIGN * CVM_GEMM_RALIGN;
    if ((uint64_t)prows > SIZE_MAX / sizeof(int16_t) / (uint64_t)ld)
        return false;
    int16_t *v = calloc((size_t)(prows * ld), sizeof *v);
    if (!v)
        return false;
    *p = (CvmPack){v, rows, k, ld, prows};
    return true;
}

void cvm_pack_free(CvmPack *p)
{
    free(p->v);
    *p = (CvmPack){0};
}

bool cvm_gemm_exact(int64_t K, int64_t amax, int64_t bmax, int64_t cmax)
{
    if (K < 0 || amax < 0 || bmax < 0 || cmax < 0 || amax > INT16_MAX || bmax > INT16_MAX ||
        cmax > INT32_MAX)
        return false;
    int64_t prod = amax * bmax; /* < 2^30 */
    return prod == 0 || K <= (INT32_MAX - cmax) / prod;
}

/* s[i][j] = sum_{k < ld} a[i][k] * b[j][k] for the 4 x 4 block at rows a, b. */
static inline __attribute__((always_inline)) void block(const int16_t *a, const int16_t *b,
                                                        int64_t ld, int32_t s[4][4])
{
    int32_t t[4][4] = {{0}};
    for (int64_t k = 0; k < ld; k++)
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++)
                t[i][j] += a[i * ld + k] * b[j * ld + k];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            s[i][j] = t[i][j];
}

static inline __attribute__((always_inline)) void gemm(const CvmPack *a, const CvmPack *b,
                                                       const int32_t *bias, int32_t *y,
                                                       int64_t yi, int64_t yj)
{
    int64_t ld = a->ld;
    int64_t band = BAND_BYTES / (ld * (int64_t)sizeof(int16_t));
    band = band < CVM_GEMM_RALIGN ? CVM_GEMM_RALIGN : band / CVM_GEMM_RALIGN * CVM_GEMM_RALIGN;
    for (int64_t i0 = 0; i0 < a->prows; i0 += band) {
        int64_t i1 = i0 + band < a->prows ? i0 + band : a->prows;
        for (int64_t j = 0; j < b->prows; j += 4)
            for (int64_t i = i0; i < i1; i += 4) {
                int32_t s[4][4];
                block(cvm_pack_row(a, i), cvm_pack_row(b, j), ld, s);
                for (int64_t u = 0; u < 4 && i + u < a->rows; u++)
                    for (int64_t v = 0; v < 4 && j + v < b->rows; v++)
                        y[(i + u) * yi + (j + v) * yj] = (bias ? bias[i + u] : 0) + s[u][v];
            }
    }
}

static void gemm_plain(const CvmPack *a, const CvmPack *b, const int32_t *bias, int32_t *y,
                       int64_t yi, int64_t yj)
{
    gemm(a, b, bias, y, yi, yj);
}

#if defined(__GNUC__) && defined(__x86_64__)
__attribute__((target("avx2"))) static void gemm_avx2(const CvmPack *a, const CvmPack *b,
                                                      const int32_t *bias, int32_t *y,
                                                      int64_t yi, int64_t yj)
{
    gemm(a, b, bias, y, yi, yj);
}

CvmGemmFn cvm_gemm_kernel(bool avx2)
{
    if (!avx2)
        return gemm_plain;
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? gemm_avx2 : NULL;
}
#else
CvmGemmFn cvm_gemm_kernel(bool avx2)
{
    return avx2 ? NULL : gemm_plain;
}
#endif

void cvm_gemm(const CvmPack *a, const CvmPack *b, const int32_t *bias, int32_t *y, int64_t yi,
              int64_t yj)
{
    CvmGemmFn f = cvm_gemm_kernel(true);
    (f ? f : gemm_plain)(a, b, bias, y, yi, yj);
}
