/* sim_dot8.c: the int8 dot-product step of the convolution kernel (sim_dot8.h). */
#include "taskir/sim_dot8.h"

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

/* Output channels are taken four vectors (64 channels) at a time, so that four independent
 * chains of vpdpbusd hide its latency; then one vector at a time, the last one masked. */
VNNI static void dot8_vnni(uint32_t *acc, int64_t acc_step, const uint8_t *x, int64_t x_step,
                           int64_t n, const int8_t *w, const uint32_t *corr, int64_t nq,
                           int64_t F)
{
    int64_t fp = round_lanes(F);
    int64_t F64 = F - F % (4 * SIM_DOT8_LANES);
    for (int64_t i = 0; i < n; i++) {
        uint32_t *a = acc + i * acc_step;
        const uint8_t *xi = x + i * x_step;
        int64_t f0 = 0;
        for (; f0 < F64; f0 += 4 * SIM_DOT8_LANES) {
            __m512i t0 = _mm512_loadu_si512(a + f0), t1 = _mm512_loadu_si512(a + f0 + 16);
            __m512i t2 = _mm512_loadu_si512(a + f0 + 32), t3 = _mm512_loadu_si512(a + f0 + 48);
            const int8_t *wq = w + f0 * 4;
            for (int64_t q = 0; q < nq; q++, wq += fp * 4) {
                __m512i g = group(xi, q);
                t0 = _mm512_dpbusd_epi32(t0, g, _mm512_loadu_si512(wq));
                t1 = _mm512_dpbusd_epi32(t1, g, _mm512_loadu_si512(wq + 64));
                t2 = _mm512_dpbusd_epi32(t2, g, _mm512_loadu_si512(wq + 128));
                t3 = _mm512_dpbusd_epi32(t3, g, _mm512_loadu_si512(wq + 192));
            }
            _mm512_storeu_si512(a + f0, _mm512_sub_epi32(t0, _mm512_loadu_si512(corr + f0)));
            _mm512_storeu_si512(a + f0 + 16,
                                _mm512_sub_epi32(t1, _mm512_loadu_si512(corr + f0 + 16)));
            _mm512_storeu_si512(a + f0 + 32,
                                _mm512_sub_epi32(t2, _mm512_loadu_si512(corr + f0 + 32)));
            _mm512_storeu_si512(a + f0 + 48,
                                _mm512_sub_epi32(t3, _mm512_loadu_si512(corr + f0 + 48)));
        }
        for (; f0 < F; f0 += SIM_DOT8_LANES) {
            int64_t left = F - f0;
            __mmask16 m = left >= SIM_DOT8_LANES ? (__mmask16)0xffff
                                                 : (__mmask16)((1u << left) - 1);
            __m512i t = _mm512_maskz_loadu_epi32(m, a + f0);
            const int8_t *wq = w + f0 * 4;
            for (int64_t q = 0; q < nq; q++, wq += fp * 4)
                t = _mm512_dpbusd_epi32(t, group(xi, q), _mm512_loadu_si512(wq));
            t = _mm512_sub_epi32(t, _mm512_loadu_si512(corr + f0));
            _mm512_mask_storeu_epi32(a + f0, m, t);
        }
    }
}

SimDot8Fn sim_dot8_vnni(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vnni"))
        return dot8_vnni;
    return 0;
}
#else
SimDot8Fn sim_dot8_vnni(void)
{
    return 0;
}
#endif
