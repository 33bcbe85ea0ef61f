/* dtrng.h: the diff suite's random numbers (splitmix64), seeded per case so every run draws
 * the same values. Shared by difftest.c and passcheck.c. */
#ifndef TESTS_DIFF_DTRNG_H
#define TESTS_DIFF_DTRNG_H

#include <stdint.h>

typedef struct DtRng {
    uint64_t s;
} DtRng;

uint64_t dt_next(DtRng *r);
/* A value in [lo, hi]. */
int64_t dt_range(DtRng *r, int64_t lo, int64_t hi);

#endif
