/* chain_sets.c: the sets of cores a phase's runs go to, and whether relaying chains carry
 * them (docs/mapper.md, "Transfers"; docs/backend.md, "One run to several cores").
 *
 * The code generator cuts a sender's words of a phase where the parts it sends start and end
 * and sends each piece once, along a relaying chain of the cores that get it. Here, per
 * sender, the boxes of its transfers in the phase, each with the share of it the phase
 * brings as a ninth dim (a transfer over several phases brings its bytes in order, so two
 * transfers of one box meet in a phase where their shares do), cut into regions, each with
 * the set of the sender's cores whose boxes hold it; the sets of two cores or more go to
 * chain_fit.c.
 */
#include "mapper/chain_sets.h"

#include "mapper/chain_fit.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_CORES = 64 }; /* distinct cores of one sender a phase the sets are made for */
enum { XD = TIR_NDIMS + 1 };

typedef struct XBox {
    int64_t lo[XD], hi[XD];
} XBox;

typedef struct Region {
    XBox b;
    uint64_t mask; /* the sender's cores (their index among its items) that get it */
} Region;

bool map_more(void **a, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return true;
    size_t c = *cap ? 2 * *cap : 16;
    void *r = realloc(*a, c * size);
    if (!r)
        return false;
    *a = r;
    *cap = c;
    return true;
}

bool map_box_meets(const MBox *a, const MBox *b)
{
    for (int d = 0; d < TIR_NDIMS; d++)
        if (a->lo[d] >= b->hi[d] || b->lo[d] >= a->hi[d])
            return false;
    return true;
}

static bool meets(const XBox *a, const XBox *b)
{
    for (int d = 0; d < XD; d++)
        if (a->lo[d] >= b->hi[d] || b->lo[d] >= a->hi[d])
            return false;
    return true;
}

/* a less b (b meets a) as boxes appended to *out (n, cap); false when out of memory. */
static bool subtract(XBox a, const XBox *b, XBox **out, size_t *n, size_t *cap)
{
    for (int d = 0; d < XD; d++) {
        if (a.lo[d] < b->lo[d]) {
            if (!map_more((void **)out, *n, cap, sizeof **out))
                return false;
            (*out)[*n] = a;
            (*out)[(*n)++].hi[d] = b->lo[d];
            a.lo[d] = b->lo[d];
        }
        if (a.hi[d] > b->hi[d]) {
            if (!map_more((void **)out, *n, cap, sizeof **out))
                return false;
            (*out)[*n] = a;
            (*out)[(*n)++].lo[d] = b->hi[d];
            a.hi[d] = b->hi[d];
        }
    }
    return true;
}

typedef struct Work {
    Region *reg;
    size_t n_reg, cap_reg;
    XBox *rem, *tmp;
    size_t n_rem, cap_rem, n_tmp, cap_tmp;
    uint32_t *cores; /* the sets, flat */
    size_t n_cores, cap_cores;
    size_t *off;     /* n_sets + 1 */
    size_t n_sets, cap_off;
} Work;

/* Box b to the writer's core of index bit: the regions cut where it starts and ends. */
static bool add_box(Work *w, const XBox *b, uint32_t bit)
{
    w->n_rem = 0;
    if (!map_more((void **)&w->rem, 0, &w->cap_rem, sizeof *w->rem))
        return false;
    w->rem[w->n_rem++] = *b;
    size_t n0 = w->n_reg;
    for (size_t r = 0; r < n0; r++) {
        XBox rb = w->reg[r].b;
        if (!meets(&rb, b))
            continue;
        w->n_tmp = 0; /* what of b no region holds yet */
        for (size_t i = 0; i < w->n_rem; i++)
            if (!meets(&w->rem[i], &rb)) {
                if (!map_more((void **)&w->tmp, w->n_tmp, &w->cap_tmp, sizeof *w->tmp))
                    return false;
                w->tmp[w->n_tmp++] = w->rem[i];
            } else if (!subtract(w->rem[i], &rb, &w->tmp, &w->n_tmp, &w->cap_tmp)) {
                return false;
            }
        XBox *t = w->rem;
        w->rem = w->tmp;
        w->tmp = t;
        size_t c = w->cap_rem;
        w->cap_rem = w->cap_tmp;
        w->cap_tmp = c;
        w->n_rem = w->n_tmp;
        if (w->reg[r].mask & (1ull << bit))
            continue;
        w->n_tmp = 0; /* the region: its part in b gets the core, the rest stays */
        if (!subtract(rb, b, &w->tmp, &w->n_tmp, &w->cap_tmp))
            return false;
        uint64_t mask = w->reg[r].mask;
        for (int d = 0; d < XD; d++) { /* the region: its part in b */
            w->reg[r].b.lo[d] = rb.lo[d] > b->lo[d] ? rb.lo[d] : b->lo[d];
            w->reg[r].b.hi[d] = rb.hi[d] < b->hi[d] ? rb.hi[d] : b->hi[d];
        }
        w->reg[r].mask |= 1ull << bit;
        for (size_t i = 0; i < w->n_tmp; i++) {
            if (!map_more((void **)&w->reg, w->n_reg, &w->cap_reg, sizeof *w->reg))
                return false;
            w->reg[w->n_reg++] = (Region){w->tmp[i], mask};
        }
    }
    for (size_t i = 0; i < w->n_rem; i++) {
        if (!map_more((void **)&w->reg, w->n_reg, &w->cap_reg, sizeof *w->reg))
            return false;
        w->reg[w->n_reg++] = (Region){w->rem[i], 1ull << bit};
    }
    return true;
}

static int mask_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* One sender's items it[0..n): its sets of two cores or more appended to w. */
static bool key_sets(Work *w, const MChainItem *it, size_t n)
{
    uint32_t v[MAX_CORES], nv = 0;
    w->n_reg = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t k = 0;
        while (k < nv && v[k] != it[i].v)
            k++;
        if (k == nv) {
            if (nv == MAX_CORES)
                return true; /* past the bound on the work: no sets */
            v[nv++] = it[i].v;
        }
        XBox b;
        memcpy(b.lo, it[i].box->lo, sizeof it[i].box->lo);
        memcpy(b.hi, it[i].box->hi, sizeof it[i].box->hi);
        b.lo[TIR_NDIMS] = it[i].lo;
        b.hi[TIR_NDIMS] = it[i].hi;
        if (b.lo[TIR_NDIMS] < b.hi[TIR_NDIMS] && !add_box(w, &b, k))
            return false;
    }
    if (nv < 2)
        return true;
    uint64_t *masks = malloc((w->n_reg ? w->n_reg : 1) * sizeof *masks);
    if (!masks)
        return false;
    size_t nm = 0;
    for (size_t r = 0; r < w->n_reg; r++)
        if (w->reg[r].mask & (w->reg[r].mask - 1))
            masks[nm++] = w->reg[r].mask;
    qsort(masks, nm, sizeof *masks, mask_cmp);
    bool ok = true;
    for (size_t i = 0; ok && i < nm; i++) {
        if (i && masks[i] == masks[i - 1])
            continue;
        for (uint32_t k = 0; ok && k < nv; k++)
            if (masks[i] & (1ull << k)) {
                ok = map_more((void **)&w->cores, w->n_cores, &w->cap_cores, sizeof *w->cores);
                if (ok)
                    w->cores[w->n_cores++] = v[k];
            }
        ok = ok && map_more((void **)&w->off, w->n_sets + 1, &w->cap_off, sizeof *w->off);
        if (ok)
            w->off[++w->n_sets] = w->n_cores;
    }
    free(masks);
    return ok;
}

/* The share of its bytes planned transfer y receives in local phase l, in 1 / MAP_PART_UNIT:
 * from the bytes of its phases before the first in l to the end of the last in l. */
void map_xfer_share(const MapPlan *p, const MXfer *y, uint32_t l, int64_t *lo, int64_t *hi)
{
    int64_t at = 0, a = -1, b = 0;
    for (uint32_t j = 0; j < y->n_chunks; j++) {
        const MChunk *k = &p->chunks[y->chunk0 + j];
        if (map_local(p, k->phase) == l && k->bytes > 0) {
            a = a < 0 ? at : a;
            b = at + k->bytes;
        }
        at += k->bytes;
    }
    /* of the bytes its chunks bring (its bytes, or as they land: map_land_bytes) */
    *lo = a < 0 || !at ? 0 : a * MAP_PART_UNIT / at;
    *hi = a < 0 || !at ? 0 : b * MAP_PART_UNIT / at;
}

static bool item_less(const MChainItem *x, const MChainItem *y)
{
    return x->key != y->key ? x->key < y->key : x->v < y->v;
}

int map_items_fit(MChainItem *it, size_t n)
{
    /* by key, then core, in place and stable: a check has 65 items at most, and qsort
     * allocated for them (xfer_chain.c asks this some 10^5 times on bench/map's synth) */
    for (size_t i = 1; i < n; i++) {
        MChainItem m = it[i];
        size_t j = i;
        for (; j > 0 && item_less(&m, &it[j - 1]); j--)
            it[j] = it[j - 1];
        it[j] = m;
    }
    Work w = {0};
    int ok = map_more((void **)&w.off, 0, &w.cap_off, sizeof *w.off) ? 1 : -1;
    if (ok == 1)
        w.off[0] = 0;
    for (size_t i = 0, j; ok == 1 && i < n; i = j) {
        for (j = i + 1; j < n && it[j].key == it[i].key; j++)
            ;
        if (!key_sets(&w, it + i, j - i))
            ok = -1;
    }
    if (ok == 1)
        ok = map_chain_fit(w.cores, w.off, w.n_sets);
    free(w.reg);
    free(w.rem);
    free(w.tmp);
    free(w.cores);
    free(w.off);
    return ok;
}
