/* xfer_chain.c: whether a transfer's receive phase keeps the phase's relaying chains
 * possible (docs/mapper.md, "Transfers"; docs/backend.md, "One run to several cores").
 *
 * The code generator sends each part of a writer's result that goes to several cores in a
 * phase once, along a relaying chain of those cores, and a core forwards every relayed packet
 * of a phase to one next core: the chains of a phase, over all writers, must fit the trees
 * chain_fit.c checks. Writers on different cores meet there too: a row one writer sends to
 * a convolution's pieces A and B, in parts that another writer's row also reaches core X
 * with (ResNet-50: the sets A, B, A + X, B + X in one phase), needs X to forward to A and to
 * B. The sets of a phase: per writer, the parts of its result that the boxes of its planned
 * transfers receiving in the phase (any global phase of that local one: the stages run
 * pipelined) cut it into, each going to the cores whose boxes hold it. A transfer does not
 * take a phase whose sets fit without it and do not with it.
 */
#include "mapper/chain_fit.h"
#include "mapper/xfer_clash.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_CORES = 64 }; /* distinct cores of one writer a phase the sets are made for */

/* A box of a writer's result, and in dim TIR_NDIMS the share of it a phase brings (in
 * 1 / PART_UNIT of the transfer's bytes: a transfer over several phases brings its bytes in
 * order, so transfers of the same box meet in a phase where their shares of it do). */
enum { XD = TIR_NDIMS + 1 };
#define PART_UNIT ((int64_t)1 << 24)
typedef struct XBox {
    int64_t lo[XD], hi[XD];
} XBox;

typedef struct Item {
    uint32_t task, xi, v;
    int64_t lo, hi; /* its share in the phase, in 1 / PART_UNIT */
} Item;

typedef struct Region {
    XBox b;
    uint64_t mask; /* the writer's cores (their index among its items) that get it */
} Region;

/* A growing array: n used of cap, size bytes each; false when out of memory. */
static bool more(void **a, size_t n, size_t *cap, size_t size)
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

static bool box_meets(const MBox *a, const MBox *b)
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
            if (!more((void **)out, *n, cap, sizeof **out))
                return false;
            (*out)[*n] = a;
            (*out)[(*n)++].hi[d] = b->lo[d];
            a.lo[d] = b->lo[d];
        }
        if (a.hi[d] > b->hi[d]) {
            if (!more((void **)out, *n, cap, sizeof **out))
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
    if (!more((void **)&w->rem, 0, &w->cap_rem, sizeof *w->rem))
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
                if (!more((void **)&w->tmp, w->n_tmp, &w->cap_tmp, sizeof *w->tmp))
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
            if (!more((void **)&w->reg, w->n_reg, &w->cap_reg, sizeof *w->reg))
                return false;
            w->reg[w->n_reg++] = (Region){w->tmp[i], mask};
        }
    }
    for (size_t i = 0; i < w->n_rem; i++) {
        if (!more((void **)&w->reg, w->n_reg, &w->cap_reg, sizeof *w->reg))
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

/* One writer's items it[0..n): its sets of two cores or more appended to w. */
static bool writer_sets(Work *w, const MClash *c, const Item *it, size_t n)
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
        memcpy(b.lo, c->box[it[i].xi].lo, sizeof c->box[it[i].xi].lo);
        memcpy(b.hi, c->box[it[i].xi].hi, sizeof c->box[it[i].xi].hi);
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
                ok = more((void **)&w->cores, w->n_cores, &w->cap_cores, sizeof *w->cores);
                if (ok)
                    w->cores[w->n_cores++] = v[k];
            }
        ok = ok && more((void **)&w->off, w->n_sets + 1, &w->cap_off, sizeof *w->off);
        if (ok)
            w->off[++w->n_sets] = w->n_cores;
    }
    free(masks);
    return ok;
}

/* The share of its bytes planned transfer y receives in local phase l, in 1 / PART_UNIT:
 * from the bytes of its phases before the first in l to the end of the last in l. */
static void share(const MapPlan *p, const MXfer *y, uint32_t l, int64_t *lo, int64_t *hi)
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
    *lo = a < 0 || !y->bytes ? 0 : a * PART_UNIT / y->bytes;
    *hi = a < 0 || !y->bytes ? 0 : b * PART_UNIT / y->bytes;
}

static int item_cmp(const void *a, const void *b)
{
    const Item *x = a, *y = b;
    if (x->task != y->task)
        return x->task < y->task ? -1 : 1;
    return x->xi < y->xi ? -1 : x->xi > y->xi;
}

/* Whether the sets of items it[0..n) (sorted by writer) fit: 1, 0, -1 out of memory. */
static int items_fit(Work *w, const MClash *c, const Item *it, size_t n)
{
    w->n_cores = w->n_sets = 0;
    if (!more((void **)&w->off, 0, &w->cap_off, sizeof *w->off))
        return -1;
    w->off[0] = 0;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && it[j].task == it[i].task; j++)
            ;
        if (!writer_sets(w, c, it + i, j - i))
            return -1;
    }
    return map_chain_fit(w->cores, w->off, w->n_sets);
}

bool map_xfer_chains(const MapPlan *p, MClash *c, uint32_t xi, uint32_t v, int32_t ph,
                     int64_t from, int64_t bytes)
{
    const MXfer *x = &p->xfers[xi];
    if (!c->at || x->kind != XF_CORE || c->oom)
        return false;
    const MPhaseXfers *l = &c->at[map_local(p, ph)];
    bool other = false; /* a box of its writer's that another core gets there, meeting its */
    for (size_t i = 0; !other && i < l->n; i++) {
        const MXfer *y = &p->xfers[l->list[i]];
        other = l->list[i] != xi && y->src_task == x->src_task && map_xfer_vcore(p, y) != v &&
                box_meets(&c->box[xi], &c->box[l->list[i]]);
    }
    if (!other)
        return false;
    Item *it = malloc((l->n + 1) * sizeof *it);
    Work w = {0};
    int before = -1, after = -1;
    if (it) {
        for (size_t i = 0; i < l->n; i++) {
            const MXfer *y = &p->xfers[l->list[i]];
            it[i] = (Item){y->src_task, l->list[i], map_xfer_vcore(p, y), 0, 0};
            share(p, y, map_local(p, ph), &it[i].lo, &it[i].hi);
        }
        qsort(it, l->n, sizeof *it, item_cmp);
        before = items_fit(&w, c, it, l->n);
        if (before == 1) {
            int64_t b = x->bytes > 0 ? x->bytes : 1;
            it[l->n] = (Item){x->src_task, xi, v, from * PART_UNIT / b,
                              (from + bytes) * PART_UNIT / b};
            qsort(it, l->n + 1, sizeof *it, item_cmp);
            after = items_fit(&w, c, it, l->n + 1);
        }
    }
    free(it);
    free(w.reg);
    free(w.rem);
    free(w.tmp);
    free(w.cores);
    free(w.off);
    if (before < 0 || (before == 1 && after < 0)) {
        c->oom = true;
        return false;
    }
    return before == 1 && after == 0;
}

Status map_clash_note(MClash *c, const MapPlan *p, uint32_t xi)
{
    const MXfer *x = &p->xfers[xi];
    if (!c->at || x->kind != XF_CORE || !x->cross)
        return ST_OK;
    for (uint32_t j = 0; j < x->n_chunks; j++) {
        const MChunk *k = &p->chunks[x->chunk0 + j];
        if (k->bytes <= 0)
            continue;
        MPhaseXfers *l = &c->at[map_local(p, k->phase)];
        if (l->n && l->list[l->n - 1] == xi)
            continue;
        if (!more((void **)&l->list, l->n, &l->cap, sizeof *l->list))
            return ST_RUNTIME;
        l->list[l->n++] = xi;
    }
    return ST_OK;
}

