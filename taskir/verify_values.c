/* verify_values.c: the extremes of every storage block's int32 data tensor, found before the
 * per-block rules run, on threads (verify_util.h, vfy_values_scan). The data.range rule then
 * reads two numbers per block instead of every value, and walks the values only when they
 * leave the range (to name the first offender). The tensors are cut into pieces of at most
 * PIECE values; each piece's extremes are its own entry, merged per block in order, so the
 * results do not depend on the thread count. The threads take the next piece in turn (the
 * pieces are of very different sizes: a bias of 64 values is a piece, as are 2^18 weights).
 * Blocks that hold the same values (the same array, as the copies split and replicate make
 * share: a row band's weights) are scanned once and given the same extremes. */
#include "taskir/verify_util.h"

#include "taskir/parallel.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

enum { PIECE = 1 << 18 };

typedef struct Piece {
    const char *p;      /* n values of es bytes (Tensor.i32, or i8 when held narrow) */
    uint8_t es;
    uint32_t n;
    uint32_t pos;       /* the block's position */
    int32_t mn, mx;
} Piece;

typedef struct Scan {
    Piece *pc;
    size_t n;
    atomic_size_t next;
} Scan;

static void scan(void *ctx, int64_t lo, int64_t hi)
{
    (void)lo, (void)hi;
    Scan *S = ctx;
    Piece *pc = S->pc;
    for (size_t k; (k = atomic_fetch_add_explicit(&S->next, 1, memory_order_relaxed)) < S->n;) {
        int32_t mn = INT32_MAX, mx = INT32_MIN;
        if (pc[k].es == 1) {
            const int8_t *p = (const int8_t *)pc[k].p;
            for (uint32_t i = 0; i < pc[k].n; i++) {
                mn = p[i] < mn ? p[i] : mn;
                mx = p[i] > mx ? p[i] : mx;
            }
        } else {
            const int32_t *p = (const int32_t *)(const void *)pc[k].p;
            for (uint32_t i = 0; i < pc[k].n; i++) {
                mn = p[i] < mn ? p[i] : mn;
                mx = p[i] > mx ? p[i] : mx;
            }
        }
        pc[k].mn = mn;
        pc[k].mx = mx;
    }
}

/* Does block b hold int32 data worth scanning here? */
static const Tensor *i32_data(const Block *b)
{
    const Tensor *t = b->data;
    return t && t->n_i32 ? t : NULL;
}

/* A block with int32 data, by its array: blocks of equal arrays sit side by side once sorted. */
typedef struct Holder {
    const char *p;
    uint8_t es;
    uint32_t n;
    uint32_t pos;
} Holder;

static int holder_cmp(const void *pa, const void *pb)
{
    const Holder *a = pa, *b = pb;
    if (a->p != b->p)
        return (uintptr_t)a->p < (uintptr_t)b->p ? -1 : 1;
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

void vfy_values_scan(Verifier *v, uint32_t threads, TirPool *pool)
{
    const Graph *g = v->g;
    size_t nh = 0;
    for (uint32_t i = 0; i < g->n_blocks; i++)
        nh += i32_data(g->blocks[i]) != NULL;
    if (!nh || !(v->ext = calloc(g->n_blocks, sizeof *v->ext)))
        return; /* nothing to scan, or the rule scans as it goes */
    Holder *h = malloc(nh * sizeof *h);
    if (!h) {
        free(v->ext);
        v->ext = NULL;
        return;
    }
    nh = 0;
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        const Tensor *t = i32_data(g->blocks[i]);
        if (t) {
            size_t es;
            const char *p = tensor_i32_vals(t, &es);
            h[nh++] = (Holder){p, (uint8_t)es, t->n_i32, i};
        }
    }
    qsort(h, nh, sizeof *h, holder_cmp);
    /* the pieces of each distinct array, in the order of the sorted holders */
    size_t n = 0;
    uint64_t total = 0;
    for (size_t j = 0; j < nh; j++)
        if (!j || h[j].p != h[j - 1].p || h[j].n != h[j - 1].n) {
            n += (h[j].n + PIECE - 1) / PIECE;
            total += h[j].n;
        }
    Piece *pc = malloc(n * sizeof *pc);
    if (!pc) {
        free(h);
        free(v->ext);
        v->ext = NULL;
        return;
    }
    size_t k = 0;
    for (size_t j = 0; j < nh; j++) {
        if (j && h[j].p == h[j - 1].p && h[j].n == h[j - 1].n)
            continue;
        for (uint32_t o = 0; o < h[j].n; o += PIECE) {
            uint32_t m = h[j].n - o < PIECE ? h[j].n - o : PIECE;
            pc[k++] = (Piece){h[j].p + (size_t)o * h[j].es, h[j].es, m, h[j].pos, 0, 0};
        }
    }
    /* below about a million values, a thread costs more than it saves */
    uint32_t nt = total < ((uint64_t)1 << 20) ? 1 : threads < 1 ? 1 : threads;
    Scan S = {.pc = pc, .n = n};
    atomic_init(&S.next, 0);
    if (pool && nt > 1) /* the pool's threads: none started */
        tir_pool_run(pool, tir_pool_threads(pool), scan, &S);
    else
        tir_parallel(nt, nt, scan, &S);
    for (size_t j = 0; j < n; j++) {
        VExtremes *e = &v->ext[pc[j].pos];
        if (!e->have || pc[j].mn < e->mn)
            e->mn = pc[j].mn;
        if (!e->have || pc[j].mx > e->mx)
            e->mx = pc[j].mx;
        e->have = true;
    }
    /* the other holders of each array take the extremes of its first */
    for (size_t j = 1; j < nh; j++)
        if (h[j].p == h[j - 1].p && h[j].n == h[j - 1].n)
            v->ext[h[j].pos] = v->ext[h[j - 1].pos];
    free(pc);
    free(h);
}

bool vfy_values_extremes(const Verifier *v, const Block *b, int32_t *mn, int32_t *mx)
{
    if (!v->ext)
        return false;
    long pos = graph_block_pos(v->g, b->id);
    if (pos < 0 || v->g->blocks[pos] != b || !v->ext[pos].have)
        return false;
    *mn = v->ext[pos].mn;
    *mx = v->ext[pos].mx;
    return true;
}
