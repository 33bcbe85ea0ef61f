/* alloc.c: the memory plan of one core (alloc.h, docs/backend.md "The code generator"). */
#include "backend/alloc.h"

#include "backend/core_mem.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>

/* The banks an area may go to: one table, [lo, hi) in words. */
typedef struct AllocBank {
    const char *name;
    int64_t lo, hi;
} AllocBank;

static const AllocBank bank_mem1 = {"MEM1", ASM_MEM1_BASE, ASM_MEM2_BASE};
static const AllocBank bank_data = {"MEM0 and MEM1", ASM_MEM0_BASE, ASM_MEM2_BASE};
static const AllocBank bank_recv = {"receive area", ASM_MEM2_RECV, ASM_MEM3_BASE};

/* The ranges an area of each kind may go to, in order of preference (NULL-terminated). MEM0
 * and MEM1 are one run of data words: an area may cross from one into the other (a 28 x 28
 * int32 map of 32 channels takes 100 KB). */
static const AllocBank *const prefs[3][3] = {
    [ALLOC_STATIC] = {&bank_mem1, &bank_data, NULL},
    [ALLOC_DATA] = {&bank_data, NULL, NULL},
    [ALLOC_RECV] = {&bank_recv, NULL, NULL},
};

static int64_t align_up(int64_t a, int32_t al)
{
    return (a + al - 1) / al * al;
}

/* Whether area a is done with in phase a->last before area b begins in that phase (alloc.h):
 * a ends with the Axon (1) or Soma1 (2), b begins with Soma1 (2) or the router (3). */
static bool ends_before(const AllocReq *a, const AllocReq *b)
{
    int end = a->last_axon ? 1 : a->last_soma1 ? 2 : 4;
    int begin = b->first_router ? 3 : b->first_soma ? 2 : 0;
    return a->last == b->first && end < begin;
}

bool alloc_lives_in(const AllocReq *r, int32_t p)
{
    return (r->first <= p && p <= r->last) || (r->again > 0 && p >= r->again);
}

/* Whether two lifetimes meet: they share a phase, but the one phase where one ends before
 * the other begins (ends_before); a phase from again on met whole. */
static bool lives_overlap(const AllocReq *a, const AllocReq *b)
{
    if ((a->again > 0 && (b->again > 0 || b->last >= a->again)) ||
        (b->again > 0 && a->last >= b->again))
        return true;
    if (a->first > b->last || b->first > a->last)
        return false;
    return !ends_before(a, b) && !ends_before(b, a);
}

/* A placed area (placed[0..n_placed), addresses addr[]) whose words and lifetime meet r's
 * at address at: its index in reqs, or -1. */
static long meets(const AllocReq *reqs, const int32_t *addr, const size_t *placed,
                  size_t n_placed, const AllocReq *r, int64_t at)
{
    for (size_t k = 0; k < n_placed; k++) {
        const AllocReq *o = &reqs[placed[k]];
        int64_t oa = addr[placed[k]];
        if (lives_overlap(o, r) && oa < at + r->words && oa + o->words > at)
            return (long)placed[k];
    }
    return -1;
}

/* The words of the chain from r on (r and the areas that follow it). */
static int64_t chain_words(const AllocReq *reqs, const AllocReq *r)
{
    int64_t w = 0;
    for (; r; r = r->next ? &reqs[r->next - 1] : NULL)
        w += r->words;
    return w;
}

/* A placed area that meets the chain from r placed at at (each of its areas at its offset),
 * and into *off the offset of the one of the chain it meets: its index, or -1. */
static long chain_meets(const AllocReq *reqs, const int32_t *addr, const size_t *placed,
                        size_t n_placed, const AllocReq *r, int64_t at, int64_t *off)
{
    for (*off = 0; r; *off += r->words, r = r->next ? &reqs[r->next - 1] : NULL) {
        long o = meets(reqs, addr, placed, n_placed, r, at + *off);
        if (o >= 0)
            return o;
    }
    return -1;
}

/* The lowest aligned address of bank where the chain from r fits beside the areas placed so
 * far (placed[], addresses addr[]), or -1. */
static int64_t first_fit(const AllocReq *reqs, const int32_t *addr, const size_t *placed,
                         size_t n_placed, const AllocReq *r, const AllocBank *bank)
{
    int64_t words = chain_words(reqs, r), off;
    for (int64_t at = align_up(bank->lo, r->align); at + words <= bank->hi;) {
        long o = chain_meets(reqs, addr, placed, n_placed, r, at, &off);
        if (o < 0)
            return at;
        int64_t next = align_up(addr[o] + reqs[o].words - off, r->align);
        at = next > at ? next : at + r->align;
    }
    return -1;
}

/* The highest aligned address of bank where r fits beside the areas placed so far, or -1:
 * static areas placed from the top of MEM1 down leave the data words below in one run. */
static int64_t last_fit(const AllocReq *reqs, const int32_t *addr, const size_t *placed,
                        size_t n_placed, const AllocReq *r, const AllocBank *bank)
{
    for (int64_t at = (bank->hi - r->words) / r->align * r->align; at >= bank->lo;) {
        long o = meets(reqs, addr, placed, n_placed, r, at);
        if (o < 0)
            return at;
        if (addr[o] - r->words < bank->lo)
            return -1;
        at = (addr[o] - r->words) / r->align * r->align;
    }
    return -1;
}

/* The largest sum of words live in one phase among the areas that share r's banks (received
 * areas, or the others), and that phase. */
static int64_t peak_live(const AllocReq *reqs, size_t n, const AllocReq *r, int32_t *phase)
{
    int64_t best = 0;
    *phase = 0;
    for (size_t i = 0; i < 2 * n; i++) { /* each area's first phase, and its again */
        const AllocReq *q = &reqs[i / 2];
        int32_t p = i % 2 ? q->again : q->first;
        if ((q->kind == ALLOC_RECV) != (r->kind == ALLOC_RECV) || (i % 2 && p == 0))
            continue;
        int64_t sum = 0;
        for (size_t k = 0; k < n; k++)
            if ((reqs[k].kind == ALLOC_RECV) == (r->kind == ALLOC_RECV) && alloc_lives_in(&reqs[k], p))
                sum += reqs[k].words;
        if (sum > best) {
            best = sum;
            *phase = p;
        }
    }
    return best;
}

/* Sorting the order of placement: largest first (first 0), or the earliest first phase
 * first and then largest (first: that phase), then in the order given. */
typedef struct AllocOrder {
    int32_t first;
    int64_t words;
    size_t i;
} AllocOrder;

static int order_cmp(const void *a, const void *b)
{
    const AllocOrder *x = a, *y = b;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    if (x->words != y->words)
        return x->words > y->words ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* The order of placement into ord: largest first, or (by_phase) the areas of the earliest
 * first phase first, each phase's largest first. */
static void order(const AllocReq *reqs, size_t n, bool by_phase, AllocOrder *ord)
{
    for (size_t i = 0; i < n; i++) {
        int32_t first = reqs[i].first;
        for (const AllocReq *r = &reqs[i]; r; r = r->next ? &reqs[r->next - 1] : NULL)
            first = r->first < first ? r->first : first;
        ord[i] = (AllocOrder){by_phase ? first : 0, chain_words(reqs, &reqs[i]), i};
    }
    qsort(ord, n, sizeof *ord, order_cmp);
}

static Status check_req(const AllocReq *reqs, size_t n, size_t i, const char *core, Diag *d)
{
    const AllocReq *r = &reqs[i];
    /* an area larger than the core is the plan's finding, not a malformed request */
    if (r->words > ASM_CORE_WORDS && r->align >= 1 && r->first <= r->last && r->first >= 0)
        return diag_add(d, ST_LOGIC, "emit.alloc", core,
                        "block %" PRId32 " needs %" PRId64 " words (%" PRId64
                        " B) in phases %" PRId32 "..%" PRId32 ", more than the %d words a "
                        "core has",
                        r->tag, r->words, r->words * 4, r->first, r->last, ASM_CORE_WORDS);
    if (r->words <= 0 || r->align < 1 || r->align > 0x4000 ||
        (r->align & (r->align - 1)) || r->first > r->last || r->first < 0 ||
        (r->again != 0 && r->again <= r->last) ||
        (unsigned)r->kind > ALLOC_RECV || r->next > n || r->next == i + 1 ||
        (r->next && (reqs[r->next - 1].kind != r->kind ||
                     (r->words % reqs[r->next - 1].align) != 0)))
        return diag_add(d, ST_RUNTIME, "emit.alloc.req", core,
                        "area %zu (block %" PRId32 "): %" PRId64 " words, alignment %" PRId32
                        ", phases [%" PRId32 ", %" PRId32 "]: not a request the plan takes",
                        i, r->tag, r->words, r->align, r->first, r->last);
    return ST_OK;
}

/* Places the areas largest first, each at the lowest address that fits (top_static: a
 * static area at the highest); the index of the first that fits nowhere, or n. */
static size_t place_all(const AllocReq *reqs, size_t n, const AllocOrder *ord, bool top_static,
                        const bool *follows, int32_t *addr, size_t *placed)
{
    size_t n_placed = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = ord[k].i;
        const AllocReq *r = &reqs[i];
        if (follows[i])
            continue; /* placed with the chain it follows */
        int64_t at = -1;
        for (const AllocBank *const *b = prefs[r->kind]; *b && at < 0; b++)
            at = top_static && r->kind == ALLOC_STATIC && !r->next
                     ? last_fit(reqs, addr, placed, n_placed, r, *b)
                     : first_fit(reqs, addr, placed, n_placed, r, *b);
        if (at < 0)
            return i;
        for (size_t j = i;; j = reqs[j].next - 1) {
            addr[j] = (int32_t)at;
            placed[n_placed++] = j;
            at += reqs[j].words;
            if (!reqs[j].next)
                break;
        }
    }
    return n;
}

Status alloc_core(const AllocReq *reqs, size_t n, int32_t *addr, const char *core, Diag *d)
{
    for (size_t i = 0; i < n; i++) {
        Status st = check_req(reqs, n, i, core, d);
        if (st != ST_OK)
            return st;
    }
    if (n == 0)
        return ST_OK;
    AllocOrder *ord = malloc(n * sizeof *ord);
    size_t *placed = malloc(n * sizeof *placed);
    bool *follows = calloc(n, sizeof *follows);
    if (!ord || !placed || !follows) {
        free(ord);
        free(placed);
        free(follows);
        return diag_add(d, ST_RUNTIME, "oom", core, "out of memory planning the memory");
    }
    /* each area follows one at most, and every chain ends (a chain of n areas at most) */
    Status chk = ST_OK;
    for (size_t i = 0; i < n && chk == ST_OK; i++) {
        size_t len = 0;
        for (const AllocReq *r = &reqs[i]; r && len <= n; r = r->next ? &reqs[r->next - 1] : NULL)
            len++;
        if (reqs[i].next && follows[reqs[i].next - 1])
            len = n + 1;
        if (reqs[i].next)
            follows[reqs[i].next - 1] = true;
        if (len > n)
            chk = diag_add(d, ST_RUNTIME, "emit.alloc.req", core,
                           "area %zu (block %" PRId32 "): a chain of areas that loops or joins "
                           "another", i, reqs[i].tag);
    }
    if (chk != ST_OK) {
        free(ord);
        free(placed);
        free(follows);
        return chk;
    }
    order(reqs, n, false, ord);
    Status st = ST_OK;
    /* a plan whose static areas at the bottom of MEM1 cut the data words in two that no
     * area fits in is tried again with them at its top; then both again with the areas in
     * the order of their first phases (largest first leaves holes that an area living
     * across them fits in none of: test_alloc's test_phase_order) */
    size_t bad = place_all(reqs, n, ord, false, follows, addr, placed);
    bool fits = bad == n || place_all(reqs, n, ord, true, follows, addr, placed) == n;
    if (!fits) {
        order(reqs, n, true, ord);
        fits = place_all(reqs, n, ord, false, follows, addr, placed) == n ||
               place_all(reqs, n, ord, true, follows, addr, placed) == n;
    }
    if (!fits) {
        const AllocReq *r = &reqs[bad];
        int32_t ph;
        int64_t peak = peak_live(reqs, n, r, &ph);
        int64_t have = r->kind == ALLOC_RECV ? ASM_MEM3_BASE - ASM_MEM2_RECV
                                             : ASM_MEM2_BASE - ASM_MEM0_BASE;
        st = diag_add(d, ST_LOGIC, "emit.alloc", core,
                      "block %" PRId32 " needs %" PRId64 " words (%" PRId64
                      " B, aligned to %" PRId32 ") in phases [%" PRId32 ", %" PRId32
                      "] and does not fit: %" PRId64 " words are live in phase %" PRId32
                      " against the %" PRId64 " words of the banks it may use",
                      r->tag, r->words, r->words * 4, r->align, r->first, r->last, peak,
                      ph, have);
    }
    free(ord);
    free(placed);
    free(follows);
    return st;
}
