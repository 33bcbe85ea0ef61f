/* dtrng.c: splitmix64 (dtrng.h). */
#include "dtrng.h"

uint64_t dt_next(DtRng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int64_t dt_range(DtRng *r, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)(hi - lo) + 1;
    return lo + (int64_t)(span ? dt_next(r) % span : dt_next(r));
}
