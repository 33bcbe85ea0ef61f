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

/* The placements a range's search (recv_search, data_search) tries at most, the areas it
 * takes at most, the candidate addresses it keeps at most (2 + 2 n x the longest chain a
 * level), and the checks of a candidate against a placed area it makes at most (about a
 * second's work). */
#define SEARCH_BUDGET 100000L
#define SEARCH_AREAS 512u
#define SEARCH_CANDS ((size_t)1 << 21)
#define SEARCH_WORK ((int64_t)1 << 28)

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
/* The part of its last phase an area lives to (1 Axon, 2 Soma1, 4 Soma2) and of its first
 * phase it lives from (0 Axon, 2 Soma1, 3 router): one that ends before the other begins
 * in the same phase shares its words. */
static int end_part(const AllocReq *a)
{
    return a->last_axon ? 1 : a->last_soma1 ? 2 : 4;
}

static int begin_part(const AllocReq *b)
{
    return b->first_router ? 3 : b->first_soma ? 2 : 0;
}

static bool ends_before(const AllocReq *a, const AllocReq *b)
{
    return a->last == b->first && end_part(a) < begin_part(b);
}

/* Whether area r lives at part k (as end_part, begin_part count) of phase p. */
static bool lives_at(const AllocReq *r, int32_t p, int k)
{
    if (r->again > 0 && p >= r->again)
        return true;
    return r->first <= p && p <= r->last && (p > r->first || k >= begin_part(r)) &&
           (p < r->last || k <= end_part(r));
}

bool alloc_lives_in(const AllocReq *r, int32_t p)
{
    return (r->first <= p && p <= r->last) || (r->again > 0 && p >= r->again);
}

bool alloc_lives_meet(const AllocReq *a, const AllocReq *b)
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
        if (alloc_lives_meet(o, r) && oa < at + r->words && oa + o->words > at)
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

/* The words of the area of the chain from r that starts off words into it. */
static int64_t part_words(const AllocReq *reqs, const AllocReq *r, int64_t off)
{
    for (; r && off > 0; r = r->next ? &reqs[r->next - 1] : NULL)
        off -= r->words;
    return r ? r->words : 0;
}

/* The highest aligned address of bank where the chain from r fits beside the areas placed so
 * far, or -1: static areas (and, in the last tries, the areas alive over the whole plan)
 * placed from the top of their bank down leave the data words below in one run. */
static int64_t last_fit(const AllocReq *reqs, const int32_t *addr, const size_t *placed,
                        size_t n_placed, const AllocReq *r, const AllocBank *bank)
{
    int64_t words = chain_words(reqs, r), off;
    if (bank->hi - words < bank->lo)
        return -1;
    for (int64_t at = (bank->hi - words) / r->align * r->align; at >= bank->lo;) {
        long o = chain_meets(reqs, addr, placed, n_placed, r, at, &off);
        if (o < 0)
            return at;
        /* below o: the part that met it ends where o begins */
        int64_t below = addr[o] - off - part_words(reqs, r, off);
        if (below < bank->lo)
            return -1;
        below = below / r->align * r->align;
        at = below < at ? below : at - r->align;
    }
    return -1;
}

/* The largest sum of words live at one time among the areas that share r's banks (received
 * areas, or the others), and its phase: at the parts of a phase each area may begin in, so
 * that an area ending with Soma1 and one beginning with the router of the same phase are
 * not counted together (their words may be the same, alloc_lives_meet). */
static int64_t peak_live(const AllocReq *reqs, size_t n, const AllocReq *r, int32_t *phase)
{
    static const int parts[] = {0, 2, 3};
    int64_t best = 0;
    *phase = 0;
    for (size_t i = 0; i < 2 * n; i++) { /* each area's first phase, and its again */
        const AllocReq *q = &reqs[i / 2];
        int32_t p = i % 2 ? q->again : q->first;
        if ((q->kind == ALLOC_RECV) != (r->kind == ALLOC_RECV) || (i % 2 && p == 0))
            continue;
        for (size_t t = 0; t < sizeof parts / sizeof parts[0]; t++) {
            int64_t sum = 0;
            for (size_t k = 0; k < n; k++)
                if ((reqs[k].kind == ALLOC_RECV) == (r->kind == ALLOC_RECV) &&
                    lives_at(&reqs[k], p, parts[t]))
                    sum += reqs[k].words;
            if (sum > best) {
                best = sum;
                *phase = p;
            }
        }
    }
    return best;
}

/* Which areas go from the top of their banks down: none, the static ones (not chained), or
 * those and every area (chain) alive over more than half the plan (long-lived: of the phases
 * from the first of any area of the data banks to the last). */
typedef enum { TOP_NONE, TOP_STATIC, TOP_LONG } AllocTop;

/* The first and last phase of the chain from r. */
static void chain_life(const AllocReq *reqs, const AllocReq *r, int32_t *first, int32_t *last)
{
    *first = r->first;
    *last = r->last;
    for (; r; r = r->next ? &reqs[r->next - 1] : NULL) {
        *first = r->first < *first ? r->first : *first;
        *last = r->last > *last ? r->last : *last;
    }
}

/* The phases of the chain from r in mode top when it goes from the top down (span: the
 * first and last phase of the areas in the data banks), else 0. */
static int64_t top_life(const AllocReq *reqs, const AllocReq *r, AllocTop top,
                        const int32_t span[2])
{
    int32_t first, last;
    chain_life(reqs, r, &first, &last);
    int64_t life = (int64_t)last - first + 1;
    if (top == TOP_NONE || r->kind == ALLOC_RECV)
        return 0;
    if (r->kind == ALLOC_STATIC && !r->next)
        return life;
    return top == TOP_LONG && 2 * life > (int64_t)span[1] - span[0] + 1 ? life : 0;
}

/* Sorting the order of placement: in mode TOP_LONG the areas going from the top down first,
 * longest-lived first, then largest; then the chains first when asked (chain 1); then
 * largest first (first 0), or the earliest first phase first and then largest (first: that
 * phase), then in the order given. */
typedef struct AllocOrder {
    int64_t top;      /* top_life */
    int chain;
    int32_t first;
    int64_t words;
    size_t i;
} AllocOrder;

static int order_cmp(const void *a, const void *b)
{
    const AllocOrder *x = a, *y = b;
    if (x->top != y->top)
        return x->top > y->top ? -1 : 1;
    if (x->chain != y->chain)
        return x->chain > y->chain ? -1 : 1;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    if (x->words != y->words)
        return x->words > y->words ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* The phases of the areas of reqs in the data banks: span[0] the first, span[1] the last. */
static void data_span(const AllocReq *reqs, size_t n, int32_t span[2])
{
    span[0] = INT32_MAX;
    span[1] = INT32_MIN;
    for (size_t i = 0; i < n; i++)
        if (reqs[i].kind != ALLOC_RECV) {
            span[0] = reqs[i].first < span[0] ? reqs[i].first : span[0];
            span[1] = reqs[i].last > span[1] ? reqs[i].last : span[1];
        }
}

/* The order of placement into ord: largest first, or (by_phase) the areas of the earliest
 * first phase first, each phase's largest first; in mode TOP_LONG the long-lived areas
 * before them (top_life), and with chains the chains of areas (placed as one, at offsets
 * fixed) before the other areas. */
static void order(const AllocReq *reqs, size_t n, bool by_phase, AllocTop top, bool chains,
                  AllocOrder *ord)
{
    int32_t span[2];
    data_span(reqs, n, span);
    for (size_t i = 0; i < n; i++) {
        int32_t first, last;
        chain_life(reqs, &reqs[i], &first, &last);
        int64_t t = top == TOP_LONG ? top_life(reqs, &reqs[i], top, span) : 0;
        int ch = chains && !t && reqs[i].next;
        ord[i] = (AllocOrder){t, ch, by_phase && !t && !ch ? first : 0,
                              chain_words(reqs, &reqs[i]), i};
    }
    qsort(ord, n, sizeof *ord, order_cmp);
}

/* The words of the banks area r may use: the receive area, or MEM0 and MEM1. */
static int64_t bank_words(const AllocReq *r)
{
    return r->kind == ALLOC_RECV ? ASM_MEM3_BASE - ASM_MEM2_RECV : ASM_MEM2_BASE - ASM_MEM0_BASE;
}

/* Whether more words are live in some phase than the banks r may use hold (peak_live). */
static bool over_banks(const AllocReq *reqs, size_t n, const AllocReq *r)
{
    int32_t ph;
    return peak_live(reqs, n, r, &ph) > bank_words(r);
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

/* Places the areas in the order ord[0..n_ord), each at the lowest address that fits (one
 * that goes from the top down in mode top, top_life, at the highest), after the areas at
 * fixed addresses (at_fixed[i] non-zero; at_fixed NULL: none); the index of the first that
 * fits nowhere, or n. */
static size_t place_all(const AllocReq *reqs, size_t n, const AllocOrder *ord, size_t n_ord,
                        AllocTop top, const bool *follows, const int32_t *at_fixed,
                        int32_t *addr, size_t *placed)
{
    int32_t span[2];
    data_span(reqs, n, span);
    size_t n_placed = 0;
    for (size_t i = 0; at_fixed && i < n; i++) { /* the areas at fixed addresses first */
        if (!at_fixed[i])
            continue;
        if (meets(reqs, addr, placed, n_placed, &reqs[i], at_fixed[i]) >= 0)
            return i;
        addr[i] = at_fixed[i];
        placed[n_placed++] = i;
    }
    for (size_t k = 0; k < n_ord; k++) {
        size_t i = ord[k].i;
        const AllocReq *r = &reqs[i];
        if (follows[i] || (at_fixed && at_fixed[i]))
            continue; /* placed with the chain it follows, or at its address */
        int64_t at = -1;
        bool high = top_life(reqs, r, top, span) > 0;
        for (const AllocBank *const *b = prefs[r->kind]; *b && at < 0; b++)
            at = high ? last_fit(reqs, addr, placed, n_placed, r, *b)
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

/* The bounded search of one range (recv_search, data_search): the heads of its chains of
 * areas (list[0..n)) in the order tried, their addresses (addr[], by index in reqs), every
 * area placed so far, chained ones too (placed[0..n_placed)), the candidate addresses of
 * each level (per_level each) and the placements it may still try. */
typedef struct AreaSearch {
    const AllocReq *reqs;
    const AllocBank *bank;
    const size_t *list;
    size_t n;
    int32_t *addr;
    size_t *placed;
    size_t n_placed;
    int64_t *cand;
    size_t per_level;
    long budget;
    int64_t work;
} AreaSearch;

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The candidate addresses of the chain from r (words w) beside the areas placed so far: the
 * range's ends, and each of its areas just above or just below a placed area whose lifetime
 * meets its own; their number. */
static size_t search_cands(const AreaSearch *S, const AllocReq *r, int64_t w, int64_t *cand)
{
    size_t nc = 0;
    cand[nc++] = align_up(S->bank->lo, r->align);
    cand[nc++] = (S->bank->hi - w) / r->align * r->align;
    int64_t off = 0;
    for (const AllocReq *p = r; p; off += p->words, p = p->next ? &S->reqs[p->next - 1] : NULL)
        for (size_t j = 0; j < S->n_placed; j++) {
            const AllocReq *o = &S->reqs[S->placed[j]];
            int64_t at = S->addr[S->placed[j]] - off;
            if (!alloc_lives_meet(o, p))
                continue;
            cand[nc++] = align_up(at + o->words, r->align);
            cand[nc++] = at - p->words >= 0 ? (at - p->words) / r->align * r->align : -1;
        }
    return nc;
}

/* Places the chains from list[k..n) beside those placed: each against an end of the range or
 * with one of its areas against an edge of a placed area whose lifetime meets it (just above
 * its end, or just below its start), the lowest address first, backtracking while the budget
 * and the work last; whether all fit. */
static bool search_place(AreaSearch *S, size_t k)
{
    if (k == S->n)
        return true;
    const AllocReq *r = &S->reqs[S->list[k]];
    int64_t w = chain_words(S->reqs, r), off;
    int64_t *cand = S->cand + k * S->per_level;
    size_t nc = search_cands(S, r, w, cand), n_before = S->n_placed;
    qsort(cand, nc, sizeof *cand, cmp_i64);
    for (size_t c = 0; c < nc; c++) {
        if ((c > 0 && cand[c] == cand[c - 1]) || cand[c] < S->bank->lo ||
            cand[c] + w > S->bank->hi)
            continue;
        S->work -= (int64_t)S->n_placed + 1;
        if (S->work < 0)
            return false;
        if (chain_meets(S->reqs, S->addr, S->placed, S->n_placed, r, cand[c], &off) >= 0)
            continue;
        if (--S->budget < 0)
            return false;
        int64_t at = cand[c];
        for (size_t j = S->list[k];; j = S->reqs[j].next - 1) {
            S->addr[j] = (int32_t)at;
            S->placed[S->n_placed++] = j;
            at += S->reqs[j].words;
            if (!S->reqs[j].next)
                break;
        }
        if (search_place(S, k + 1))
            return true;
        S->n_placed = n_before;
        if (S->budget < 0 || S->work < 0)
            return false;
    }
    return false;
}

/* The order the search places the receive area's areas in: the earliest first phase first,
 * then the largest, then the longest-lived (AllocOrder.top: its phases), then as given. */
static int recv_cmp(const void *a, const void *b)
{
    const AllocOrder *x = a, *y = b;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    if (x->words != y->words)
        return x->words > y->words ? -1 : 1;
    if (x->top != y->top)
        return x->top > y->top ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* The areas of one range among reqs[0..n) placed by a bounded search (into addr[]): the
 * receive area's (recv), or the data banks' (static areas too, anywhere in them). The areas
 * at fixed addresses (at[i] non-zero; at NULL: none) keep theirs, and the search places the
 * chains of the others around them, in the order cmp sorts ord (AllocOrder.top: the
 * chain's phases, long-lived ones only for the data banks; words: the chain's). Whether they
 * fit into *fits (false when they are more than SEARCH_AREAS or the candidates would take
 * more than SEARCH_CANDS words); ST_RUNTIME when out of memory. */
static Status area_search(const AllocReq *reqs, size_t n, const int32_t *at, bool recv,
                          int (*cmp)(const void *, const void *), int32_t *addr, bool *fits)
{
    AllocOrder *ord = malloc((n ? n : 1) * sizeof *ord);
    size_t *list = malloc((n ? n : 1) * sizeof *list), m = 0, nf = 0, all = 0, maxlen = 1;
    size_t *placed = malloc((n ? n : 1) * sizeof *placed);
    bool *follows = calloc(n ? n : 1, sizeof *follows), ok = ord && list && placed && follows;
    int32_t span[2];
    data_span(reqs, n, span);
    for (size_t i = 0; ok && i < n; i++)
        if (reqs[i].next)
            follows[reqs[i].next - 1] = true;
    for (size_t i = 0; ok && i < n; i++) {
        if ((reqs[i].kind == ALLOC_RECV) != recv)
            continue;
        all++;
        if (at && at[i]) { /* fixed: placed first, as they are */
            addr[i] = at[i];
            placed[nf++] = i;
        } else if (!follows[i]) {
            int32_t first, last;
            chain_life(reqs, &reqs[i], &first, &last);
            size_t len = 0;
            for (const AllocReq *r = &reqs[i]; r; r = r->next ? &reqs[r->next - 1] : NULL)
                len++;
            maxlen = len > maxlen ? len : maxlen;
            ord[m++] = (AllocOrder){recv ? last - first : top_life(reqs, &reqs[i], TOP_LONG, span),
                                    0, recv ? reqs[i].first : 0, chain_words(reqs, &reqs[i]),
                                    i};
        }
    }
    size_t per_level = 2 + 2 * all * maxlen;
    bool tries = ok && m > 0 && all <= SEARCH_AREAS && per_level <= SEARCH_CANDS / m;
    int64_t *cand = tries ? malloc(m * per_level * sizeof *cand) : NULL;
    ok = ok && (!tries || cand);
    *fits = false;
    if (ok && tries) {
        qsort(ord, m, sizeof *ord, cmp);
        for (size_t k = 0; k < m; k++)
            list[k] = ord[k].i;
        AreaSearch S = {reqs, recv ? &bank_recv : &bank_data, list, m, addr, placed, nf,
                        cand, per_level, SEARCH_BUDGET, SEARCH_WORK};
        *fits = search_place(&S, 0);
    }
    free(cand);
    free(ord);
    free(list);
    free(placed);
    free(follows);
    return ok ? ST_OK : ST_RUNTIME;
}

/* The areas of the receive area placed by a bounded search: the orders of placement can
 * leave no run for one of them though the words live in each phase fit (areas of a few
 * sizes over staggered phases, a phase full to the last run). The router alone writes
 * there: these areas meet no others. By first phase, then largest, then longest-lived. */
static Status recv_search(const AllocReq *reqs, size_t n, const int32_t *at, int32_t *addr,
                          bool *fits)
{
    return area_search(reqs, n, at, true, recv_cmp, addr, fits);
}

/* The areas of the data banks placed by a bounded search: the chains of a CADD's gathered
 * area whose parts live the whole step beside parts of a few phases leave holes that only
 * some orders put side by side (test_alloc's test_data_search). The long-lived chains first
 * (longest-lived first), then the largest (order_cmp). */
static Status data_search(const AllocReq *reqs, size_t n, const int32_t *at, int32_t *addr,
                          bool *fits)
{
    return area_search(reqs, n, at, false, order_cmp, addr, fits);
}

/* The areas of reqs[0..n) of one range, the receive area's (recv) or the others, placed in
 * the order ord (those first in it, the other range's after them, unplaced), and whether
 * place_all places them all. */
static bool place_range(const AllocReq *reqs, size_t n, bool recv, AllocOrder *ord,
                        AllocTop top, const bool *follows, const int32_t *at, int32_t *addr,
                        size_t *placed)
{
    size_t m = 0;
    for (size_t k = 0; k < n; k++)
        if ((reqs[ord[k].i].kind == ALLOC_RECV) == recv) {
            AllocOrder t = ord[k];
            ord[k] = ord[m];
            ord[m++] = t;
        }
    return place_all(reqs, n, ord, m, top, follows, at, addr, placed) == n;
}

Status alloc_core(const AllocReq *reqs, size_t n, int32_t *addr, const char *core, Diag *d)
{
    return alloc_core_at(reqs, n, NULL, addr, core, d);
}

/* Whether fixed address at suits area r: inside the first range of its kind, aligned, and
 * neither in a chain of areas nor followed by one (follows). */
static bool fixed_fits(const AllocReq *r, int64_t at, bool follows)
{
    const AllocBank *b = prefs[r->kind][0];
    return at >= b->lo && at + r->words <= b->hi && at % r->align == 0 && !r->next && !follows;
}

Status alloc_core_at(const AllocReq *reqs, size_t n, const int32_t *at, int32_t *addr,
                     const char *core, Diag *d)
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
    for (size_t i = 0; at && i < n && chk == ST_OK; i++)
        if (at[i] && !fixed_fits(&reqs[i], at[i], follows[i]))
            chk = diag_add(d, ST_RUNTIME, "emit.alloc.req", core,
                           "area %zu (block %" PRId32 "): %" PRId64 " words at the fixed "
                           "address %" PRId32 ": outside its banks, off its alignment %" PRId32
                           " or in a chain of areas", i, reqs[i].tag, reqs[i].words, at[i],
                           reqs[i].align);
    if (chk != ST_OK) {
        free(ord);
        free(placed);
        free(follows);
        return chk;
    }
    /* the tries after the first two: the order (by first phase, or largest first), which
     * areas go from the top down, chains first */
    static const struct {
        bool by_phase;
        AllocTop top;
        bool chains;
    } tries[] = {{true, TOP_NONE, false}, {true, TOP_STATIC, false}, {false, TOP_LONG, false},
                 {true, TOP_LONG, false}, {false, TOP_LONG, true}, {true, TOP_LONG, true}};
    order(reqs, n, false, TOP_NONE, false, ord);
    Status st = ST_OK;
    /* a plan whose static areas at the bottom of MEM1 cut the data words in two that no
     * area fits in is tried again with them at its top; then both again with the areas in
     * the order of their first phases (largest first leaves holes that an area living
     * across them fits in none of: test_alloc's test_phase_order); then both orders with
     * the long-lived areas at the top too, placed first (below them, the areas of a few
     * phases each pack into one run: test_alloc's test_long_top), then so with the chains
     * of areas placed before the other areas (test_alloc's test_chains_first). A plan none
     * fits names the area the first try could not place, or one a later try could not
     * whose banks hold less than is live in some phase (test_alloc's test_no_run) */
    size_t bad = place_all(reqs, n, ord, n, TOP_NONE, follows, at, addr, placed), worst = bad;
    bool fits = bad == n;
    for (size_t t = 0; t <= sizeof tries / sizeof tries[0] && !fits; t++) {
        if (t > 0)
            order(reqs, n, tries[t - 1].by_phase, tries[t - 1].top, tries[t - 1].chains, ord);
        size_t b = place_all(reqs, n, ord, n, t ? tries[t - 1].top : TOP_STATIC, follows, at,
                             addr, placed);
        fits = b == n;
        if (!fits && over_banks(reqs, n, &reqs[b]) && !over_banks(reqs, n, &reqs[worst]))
            worst = b; /* an area whose banks hold less than is live: the one to name */
    }
    /* the receive area, whose words live fit it though no order above leaves a run for
     * one of its areas: its areas by a bounded search, the others in the order of the
     * first try that places them all (test_alloc's test_recv_search) */
    if (!fits && reqs[worst].kind == ALLOC_RECV && !over_banks(reqs, n, &reqs[worst])) {
        bool others = false;
        for (size_t t = 0; t <= sizeof tries / sizeof tries[0] && !others; t++) {
            order(reqs, n, t && tries[t - 1].by_phase, t ? tries[t - 1].top : TOP_NONE,
                  t ? tries[t - 1].chains : false, ord);
            others = place_range(reqs, n, false, ord, t ? tries[t - 1].top : TOP_NONE,
                                 follows, at, addr, placed);
        }
        if (others && recv_search(reqs, n, at, addr, &fits) != ST_OK)
            st = diag_add(d, ST_RUNTIME, "oom", core, "out of memory planning the memory");
    }
    /* the data banks, likewise: their areas by a bounded search, then the receive area's in
     * the order of the first try that places them all, or by its search (test_alloc's
     * test_data_search) */
    if (!fits && st == ST_OK && reqs[worst].kind != ALLOC_RECV &&
        !over_banks(reqs, n, &reqs[worst])) {
        bool data = false;
        if (data_search(reqs, n, at, addr, &data) != ST_OK)
            st = diag_add(d, ST_RUNTIME, "oom", core, "out of memory planning the memory");
        for (size_t t = 0; t <= sizeof tries / sizeof tries[0] && data && !fits; t++) {
            order(reqs, n, t && tries[t - 1].by_phase, t ? tries[t - 1].top : TOP_NONE,
                  t ? tries[t - 1].chains : false, ord);
            fits = place_range(reqs, n, true, ord, t ? tries[t - 1].top : TOP_NONE, follows,
                               at, addr, placed);
        }
        if (data && !fits && st == ST_OK && recv_search(reqs, n, at, addr, &fits) != ST_OK)
            st = diag_add(d, ST_RUNTIME, "oom", core, "out of memory planning the memory");
    }
    if (!fits && st == ST_OK) {
        const AllocReq *r = &reqs[worst];
        int32_t ph;
        int64_t peak = peak_live(reqs, n, r, &ph), have = bank_words(r);
        if (peak > have)
            st = diag_add(d, ST_LOGIC, "emit.alloc", core,
                          "block %" PRId32 " needs %" PRId64 " words (%" PRId64
                          " B, aligned to %" PRId32 ") in phases [%" PRId32 ", %" PRId32
                          "] and does not fit: %" PRId64 " words are live in phase %" PRId32
                          " against the %" PRId64 " words of the banks it may use",
                          r->tag, r->words, r->words * 4, r->align, r->first, r->last, peak,
                          ph, have);
        else
            st = diag_add(d, ST_LOGIC, "emit.alloc", core,
                          "block %" PRId32 " needs %" PRId64 " words (%" PRId64
                          " B, aligned to %" PRId32 ") in phases [%" PRId32 ", %" PRId32
                          "] and does not fit: at most %" PRId64 " words are live in a phase "
                          "(phase %" PRId32 "), within the %" PRId64 " words of the banks it "
                          "may use, but no order of placement the plan tries leaves a run of "
                          "them free for it (alignments, the areas of other lifetimes beside "
                          "it)", r->tag, r->words, r->words * 4, r->align, r->first, r->last,
                          peak, ph, have);
    }
    free(ord);
    free(placed);
    free(follows);
    return st;
}
