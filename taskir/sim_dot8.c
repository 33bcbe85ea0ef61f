/* sim_dot8.c: the int8 dot-product step of the convolution kernel (sim_dot8.h). */
#include "taskir/sim_dot8.h"

#include <stddef.h>

static inline int64_t round_lanes(int64_t F)
{
    return (F + SIM_DOT8_LANES - 1) / SIM_DOT8_LANES * SIM_DOT8_LANES;
}

void sim_dot8_c(uint32_t *acc, int64_t acc_step, const uint8_t *x, int64_t x_step, int64_t n,
                const int8_t *w, const uint32_t *corr, int64_t nq, int64_t F)
{
    int64_t fp = round_lanes(F);
    for (int64_t i = 0; i < n; i++) {
        uint32_t *a = acc + i * acc_step;
        const uint8_t *xi = x + i * x_step;
        for (int64_t f = 0; f < F; f++) {
            uint32_t t = a[f];
            for (int64_t q = 0; q < nq; q++)
                for (int j = 0; j < 4; j++)
                    t += (uint32_t)xi[4 * q + j] * (uint32_t)(int32_t)w[(q * fp + f) * 4 + j];
            a[f] = t - corr[f];
        }
    }
}

uint32_t sim_pack8_c(uint32_t *out, int64_t ws, const int32_t *W, int64_t row_step, int64_t R,
                     int64_t nf, uint32_t *sums)
{
    uint32_t bits = 0;
    for (int64_t f = 0; f < nf; f++) {
        const int32_t *wf = W + f * row_step;
        uint32_t sum = 0;
        for (int64_t q = 0; 4 * q < R; q++) {
            uint8_t g[4] = {0, 0, 0, 0};
            for (int64_t j = 0; j < 4 && 4 * q + j < R; j++) {
                uint32_t u = (uint32_t)wf[4 * q + j];
                bits |= u + 128u;
                sum += u;
                g[j] = (uint8_t)u;
            }
            __builtin_memcpy(&out[q * ws + f], g, sizeof g);
        }
        sums[f] = sum;
    }
    return bits;
}

void sim_pack8_i8(uint32_t *out, int64_t ws, const int8_t *W, int64_t row_step, int64_t R,
                  int64_t nf, uint32_t *sums)
{
    int64_t whole = R / 4; /* groups of four values; a last one of R % 4 is padded with 0 */
    for (int64_t f = 0; f < nf; f++) {
        const int8_t *wf = W + f * row_step;
        uint32_t sum = 0;
        for (int64_t r = 0; r < R; r++)
            sum += (uint32_t)(int32_t)wf[r];
        for (int64_t q = 0; q < whole; q++)
            __builtin_memcpy(&out[q * ws + f], wf + 4 * q, 4);
        if (R % 4) {
            uint8_t g[4] = {0, 0, 0, 0};
            __builtin_memcpy(g, wf + 4 * whole, (size_t)(R % 4));
            __builtin_memcpy(&out[whole * ws + f], g, sizeof g);
        }
        sums[f] = sum;
    }
}

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>

#define VNNI __attribute__((target("avx512f,avx512vnni")))

/* The four-byte group q of x, broadcast to every lane. */
VNNI static inline __m512i group(const uint8_t *x, int64_t q)
{
    int32_t v;
    __builtin_memcpy(&v, x + 4 * q, sizeof v);
    return _mm512_set1_epi32(v);
}

/* A register tile: P pixels (at x, x + x_step, ...) by NV vectors of 16 output channels (the
 * last one masked by m), accumulated over the nq groups of the weight block w (ws bytes per
 * group). P * NV accumulators stay in registers; each weight vector loaded serves the P
 * pixels, each broadcast group the NV vectors. Called with constant P and NV only, so that
 * the loops unroll and the arrays become registers. */
#define TILE(P, NV)                                                                           \
    VNNI static void tile_##P##_##NV(uint32_t *acc, int64_t acc_step, const uint8_t *x,       \
                                     int64_t x_step, const int8_t *w, int64_t ws,             \
                                     const uint32_t *corr, int64_t nq, __mmask16 m)           \
    {                                                                                         \
        __m512i t[P][NV], wv[NV];                                                             \
        _Pragma("GCC unroll 4") for (int p = 0; p < P; p++)                                   \
            _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)                              \
                t[p][v] = _mm512_maskz_loadu_epi32(v == NV - 1 ? m : (__mmask16)0xffff,       \
                                                   acc + p * acc_step + 16 * v);              \
        for (int64_t q = 0; q < nq; q++, w += ws) {                                           \
            _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)                              \
                wv[v] = _mm512_loadu_si512(w + 64 * v);                                       \
            _Pragma("GCC unroll 4") for (int p = 0; p < P; p++) {                             \
                __m512i g = group(x + p * x_step, q);                                         \
                _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)                          \
                    t[p][v] = _mm512_dpbusd_epi32(t[p][v], g, wv[v]);                         \
            }                                                                                 \
        }                                                                                     \
        _Pragma("GCC unroll 4") for (int p = 0; p < P; p++)                                   \
            _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)                              \
                _mm512_mask_storeu_epi32(                                                     \
                    acc + p * acc_step + 16 * v, v == NV - 1 ? m : (__mmask16)0xffff,         \
                    _mm512_sub_epi32(t[p][v], _mm512_loadu_si512(corr + 16 * v)));            \
    }
#define TILES(P) TILE(P, 1) TILE(P, 2) TILE(P, 3) TILE(P, 4)
TILES(1)
TILES(2)
TILES(3)
TILES(4)
#undef TILES
#undef TILE

typedef void (*TileFn)(uint32_t *acc, int64_t acc_step, const uint8_t *x, int64_t x_step,
                       const int8_t *w, int64_t ws, const uint32_t *corr, int64_t nq,
                       __mmask16 m);

/* tiles[P - 1][NV - 1] */
static const TileFn tiles[4][4] = {
    {tile_1_1, tile_1_2, tile_1_3, tile_1_4},
    {tile_2_1, tile_2_2, tile_2_3, tile_2_4},
    {tile_3_1, tile_3_2, tile_3_3, tile_3_4},
    {tile_4_1, tile_4_2, tile_4_3, tile_4_4},
};

/* Output channels in blocks of four vectors (64 channels, whose weights for all nq groups
 * stay in the cache while every pixel passes), pixels four at a time: a 4 x 4 tile of
 * accumulators, 16 vpdpbusd for 4 weight loads and 4 broadcasts. The tile is chosen once per
 * tile, never per element. */
VNNI static void dot8_vnni(uint32_t *acc, int64_t acc_step, const uint8_t *x, int64_t x_step,
                           int64_t n, const int8_t *w, const uint32_t *corr, int64_t nq,
                           int64_t F)
{
    int64_t ws = round_lanes(F) * 4;
    for (int64_t f0 = 0; f0 < F; f0 += 4 * SIM_DOT8_LANES) {
        int64_t left = F - f0 < 4 * SIM_DOT8_LANES ? F - f0 : 4 * SIM_DOT8_LANES;
        int nv = (int)((left + SIM_DOT8_LANES - 1) / SIM_DOT8_LANES);
        int64_t last = left - (nv - 1) * SIM_DOT8_LANES;
        __mmask16 m = last == SIM_DOT8_LANES ? (__mmask16)0xffff
                                             : (__mmask16)((1u << last) - 1);
        for (int64_t i = 0; i < n; i += 4) {
            int p = n - i < 4 ? (int)(n - i) : 4;
            tiles[p - 1][nv - 1](acc + i * acc_step + f0, acc_step, x + i * x_step, x_step,
                                 w + f0 * 4, ws, corr + f0, nq, m);
        }
    }
}

/* The sum of the 16 lanes modulo 2^32 (GCC's _mm512_reduce_add_epi32 adds them as int, which
 * may overflow). */
VNNI static inline uint32_t lanes_sum(__m512i v)
{
    uint32_t l[16], s = 0;
    _mm512_storeu_si512(l, v);
    for (int i = 0; i < 16; i++)
        s += l[i];
    return s;
}

/* Sixteen values of a row at a time: one masked load, the OR and sum in vectors, one
 * narrowing to 16 bytes (vpmovdb) whose four words go to their groups. */
VNNI static uint32_t pack8_vnni(uint32_t *out, int64_t ws, const int32_t *W, int64_t row_step,
                                int64_t R, int64_t nf, uint32_t *sums)
{
    __m512i bits = _mm512_setzero_si512(), c128 = _mm512_set1_epi32(128);
    for (int64_t f = 0; f < nf; f++) {
        const int32_t *wf = W + f * row_step;
        __m512i sum = _mm512_setzero_si512();
        for (int64_t i = 0; i < R; i += 16) {
            int64_t n = R - i < 16 ? R - i : 16;
            __mmask16 m = n == 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1);
            __m512i v = _mm512_maskz_loadu_epi32(m, wf + i);
            bits = _mm512_or_si512(bits, _mm512_add_epi32(v, c128));
            sum = _mm512_add_epi32(sum, v);
            uint32_t w4[4];
            _mm_storeu_si128((__m128i *)w4, _mm512_cvtepi32_epi8(v));
            for (int64_t t = 0; t < (n + 3) / 4; t++)
                out[(i / 4 + t) * ws + f] = w4[t];
        }
        sums[f] = lanes_sum(sum);
    }
    uint32_t l[16], b = 0;
    _mm512_storeu_si512(l, bits);
    for (int i = 0; i < 16; i++)
        b |= l[i];
    return b;
}

static bool has_vnni(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vnni");
}

SimDot8Fn sim_dot8_vnni(void)
{
    return has_vnni() ? dot8_vnni : 0;
}

SimPack8Fn sim_pack8_vnni(void)
{
    return has_vnni() ? pack8_vnni : 0;
}
#else
SimDot8Fn sim_dot8_vnni(void)
{
    return 0;
}

SimPack8Fn sim_pack8_vnni(void)
{
    return 0;
}
#endif
