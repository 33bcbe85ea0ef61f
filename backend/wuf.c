/* wuf.c: a weighted union-find (wuf.h). */
#include "backend/wuf.h"

uint32_t wuf_find(uint32_t *par, int64_t *pot, uint32_t x, int64_t *d)
{
    int64_t sum = 0;
    uint32_t r = x;
    while (par[r] != r) {
        sum += pot[r];
        r = par[r];
    }
    *d = sum;
    for (uint32_t y = x; y != r;) { /* every node on the way points at the root */
        uint32_t up = par[y];
        int64_t was = pot[y];
        par[y] = r;
        pot[y] = sum;
        sum -= was;
        y = up;
    }
    return r;
}

bool wuf_tie(uint32_t *par, int64_t *pot, uint32_t a, uint32_t b, int64_t want)
{
    int64_t da, db;
    uint32_t ra = wuf_find(par, pot, a, &da), rb = wuf_find(par, pot, b, &db);
    if (ra == rb)
        return db - da == want;
    par[rb] = ra;
    pot[rb] = da + want - db;
    return true;
}
