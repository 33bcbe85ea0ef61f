/* emit_spill_merge.c: a core's runs of one phase joined into fewer headers when they pass its
 * P09's header table (docs/backend.md, "Transfers", "Runs joined under one header"). A writer
 * whose pixel goes out in channel slices to other sets of cores (a slice to one core, the
 * next relayed to two, the next to three: copies each holding some of the slices, all in the
 * writer's pixel pitch) takes a header a slice a pixel, and a relaying chain's run moves
 * into the next phase only where that phase's own chains keep its cores' bases. Run X (its
 * cores, each with where X lands there) takes in the runs after it in the sender's memory,
 * Y, and the words between (the gap), when:
 *   - both are runs of words landing contiguously, the gap an even number of words (whole
 *     packets), and X, the gap and Y lie in one area of the sender alive in the phase;
 *   - every core Y reaches is one of X's and Y lands there where X's run, carried on, puts
 *     it (X's address there + Y's distance from X in the sender);
 *   - every word X's longer run then lands on a core that Y does not deliver there (the gap,
 *     Y on a core of X's that Y does not reach) lies inside the area X lands in there, which
 *     is planned whole (not in parts) and into whose words, over the area's life, no other
 *     run lands: a copy in its writer's pitch whose pixel holds only some of the writer's
 *     slices, whose other words nothing reads or writes (a run landing in another area does
 *     not join);
 *   - the longer run keeps within a header's 4096 packets and reach from the receive base,
 *     and each forwarding core of X's chain within 4096 forwarded packets.
 * Y's end marks and forwarded packets drop, X's forwarded packets grow. The phase then goes to
 * the spill (emit_route_spill.c) with fewer runs. Only a phase of runs of words that passes
 * the table, one of whose chains' runs the spill cannot carry whole into the next phase
 * (emit_spill_chain.c), is joined so, X a chain's run: elsewhere the spill does as before.
 */
#include "backend/emit_internal.h"

#include "backend/core_mem.h"
#include "taskir/lanes.h"

#include <stdlib.h>
#include <string.h>

enum { JOIN_RELAY_MAX = 4096, JOIN_PACKETS = 4096 };

/* A run landing on a core, of any phase (the words [lo, hi) there), and where it comes from:
 * core from's send at src in its memory, in phase. */
typedef struct Landing {
    uint32_t core, from;
    int32_t phase;
    int64_t lo, hi, src;
} Landing;

/* The landings of one phase's merge: every run of every core and phase, by receiving core,
 * then by first word. */
typedef struct Landings {
    Landing *l;
    size_t n, cap;
} Landings;

static int landing_cmp(const void *a, const void *b)
{
    const Landing *x = a, *y = b;
    if (x->core != y->core)
        return x->core < y->core ? -1 : 1;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

static Status add_landing(Emit *e, Landings *ls, uint32_t from, int32_t q, const ESend *s)
{
    Landing *nl = emit_grow(e, ls->l, &ls->cap, ls->n, sizeof *ls->l);
    if (!nl)
        return ST_RUNTIME;
    ls->l = nl;
    int64_t wb = s->single ? 4 : 1, a = s->dst_addr;
    int64_t n = (s->words / s->run - 1) * s->stride + s->run;
    ls->l[ls->n++] = (Landing){s->dst_core, from, q, a / wb, (a + n + wb - 1) / wb, s->src};
    return ST_OK;
}

static Status landings(Emit *e, Landings *ls)
{
    for (uint32_t j = 0; j < e->n_cores; j++)
        for (int32_t q = 0; q < e->cores[j].n_phases; q++) {
            const EPhase *ph = &e->cores[j].ph[q];
            for (size_t i = 0; i < ph->n_sends; i++)
                if (add_landing(e, ls, j, q, &ph->sends[i]) != ST_OK)
                    return ST_RUNTIME;
            for (size_t i = 0; i < ph->n_chain_rest; i++)
                if (add_landing(e, ls, j, q, &ph->chain_rest[i]) != ST_OK)
                    return ST_RUNTIME;
        }
    if (ls->n)
        qsort(ls->l, ls->n, sizeof *ls->l, landing_cmp);
    return ST_OK;
}

/* The request of core c alive at the router of phase p holding words [lo, hi); -1: none. */
static long area_at(const ECore *c, int32_t p, int64_t lo, int64_t hi)
{
    for (size_t i = 0; i < c->n_reqs; i++) {
        const AllocReq *r = &c->reqs[i];
        if (alloc_lives_in(r, p) && !(r->last == p && (r->last_axon || r->last_soma1)) &&
            c->addr[i] <= lo && hi <= c->addr[i] + r->words)
            return (long)i;
    }
    return -1;
}

/* The merge of phase p of core k under way: the runs X takes in come from k in p, from its
 * memory [src, end). */
typedef struct Join {
    uint32_t k;
    int32_t p;
    int64_t src, end;
    const Landings *ls;
} Join;

/* Whether words [lo, hi) of core c may take what X's longer run lands there: inside the area
 * X lands in from word at on (anchor), planned whole, and nothing else lands on them while
 * that area lives (but the runs of the join itself). */
static bool spare(const Emit *e, const Join *j, uint32_t c, int64_t at, int64_t lo, int64_t hi)
{
    const ECore *ec = &e->cores[c];
    long a = area_at(ec, j->p, at, hi);
    if (a < 0 || ec->reqs[a].next)
        return false;
    for (size_t i = 0; i < ec->n_rparts; i++)
        if (ec->rparts[i].req == (uint32_t)a)
            return false;
    const AllocReq *r = &ec->reqs[a];
    size_t i0 = 0, i1 = j->ls->n; /* the first landing on core c */
    while (i0 < i1) {
        size_t m = i0 + (i1 - i0) / 2;
        if (j->ls->l[m].core < c)
            i0 = m + 1;
        else
            i1 = m;
    }
    for (size_t i = i0; i < j->ls->n && j->ls->l[i].core == c && j->ls->l[i].lo < hi; i++) {
        const Landing *l = &j->ls->l[i];
        if (l->hi <= lo || !alloc_lives_in(r, l->phase))
            continue;
        if (l->phase == j->p && l->from == j->k && l->src >= j->src && l->src < j->end)
            continue;
        return false;
    }
    return true;
}

/* The cores run s of core k's phase ph reaches, in chain order, each as its send (s, then its
 * chain's others from chain_rest): *n of them into out (room for ph->n_chain_rest + 1). */
static void reach(const EPhase *ph, const ESend *s, const ESend **out, size_t *n)
{
    *n = 0;
    out[(*n)++] = s;
    if (!s->relay)
        return;
    for (size_t r = 0; r < ph->n_chain_rest; r++)
        if (emit_same_run(s, &ph->chain_rest[r]))
            out[(*n)++] = &ph->chain_rest[r];
}

static bool plain(const ESend *s)
{
    return !s->single && (s->run == s->stride || s->run == s->words) && s->words % 2 == 0;
}

/* Whether X (its cores xs[0..nx)) may take in Y (ys[0..ny)): see the file's head. */
static bool joins(const Emit *e, Join *j, const ESend *x, const ESend *const *xs, size_t nx,
                  const ESend *y, const ESend *const *ys, size_t ny)
{
    int64_t xend = x->src + x->words, off = y->src - x->src, yend = y->src + y->words;
    if (!plain(y) || y->src < xend || (y->src - xend) % 2 || (yend - x->src) / 2 > JOIN_PACKETS ||
        area_at(&e->cores[j->k], j->p, x->src, yend) < 0)
        return false;
    for (size_t b = 0; b < ny; b++) {
        size_t a = 0;
        while (a < nx && xs[a]->dst_core != ys[b]->dst_core)
            a++;
        if (a == nx || ys[b]->dst_addr != xs[a]->dst_addr + off)
            return false;
    }
    j->end = yend;
    for (size_t a = 0; a < nx; a++) {
        uint32_t c = xs[a]->dst_core;
        int64_t at = xs[a]->dst_addr, base = emit_recv_base(e, c, j->p);
        bool got = false;
        for (size_t b = 0; b < ny; b++)
            got |= ys[b]->dst_core == c;
        if ((at + yend - x->src - base) / 2 > JOIN_PACKETS ||
            (a + 1 < nx && e->cores[c].ph[j->p].relayed + (yend - xend) / 2 > JOIN_RELAY_MAX) ||
            !spare(e, j, c, at, at + x->words, at + (got ? off : yend - x->src)))
            return false;
    }
    return true;
}

/* X (sends[xi], its cores xs[0..nx)) takes in Y (sends[yi], ys[0..ny)): Y's marks and relays
 * drop, X's relays grow, X's sends cover Y; Y's sends go. */
static void take_in(Emit *e, uint32_t k, int32_t p, size_t xi, const ESend *const *xs,
                    size_t nx, size_t yi, const ESend *const *ys, size_t ny)
{
    EPhase *ph = &e->cores[k].ph[p];
    ESend x = ph->sends[xi], y = ph->sends[yi];
    int64_t words = y.src + y.words - x.src, more = (words - x.words) / 2;
    for (size_t b = 0; b < ny; b++) {
        EPhase *r = &e->cores[ys[b]->dst_core].ph[p];
        r->recv_marks--;
        if (b + 1 < ny)
            r->relayed -= y.words / 2;
    }
    for (size_t a = 0; a + 1 < nx; a++)
        e->cores[xs[a]->dst_core].ph[p].relayed += more;
    size_t w = 0;
    for (size_t r = 0; r < ph->n_chain_rest; r++) {
        ESend *cr = &ph->chain_rest[r];
        if (y.relay && emit_same_run(&y, cr))
            continue;
        if (x.relay && emit_same_run(&x, cr))
            cr->words = cr->run = cr->stride = words;
        ph->chain_rest[w++] = *cr;
    }
    ph->n_chain_rest = w;
    ph->sends[xi].words = ph->sends[xi].run = ph->sends[xi].stride = words;
    memmove(ph->sends + yi, ph->sends + yi + 1, (ph->n_sends - yi - 1) * sizeof *ph->sends);
    ph->n_sends--;
}

static int src_cmp(const void *a, const void *b)
{
    const ESend *x = a, *y = b;
    return (x->src > y->src) - (x->src < y->src);
}

/* Whether core k's runs of phase p pass the header table: one header a run, one more before
 * a gap in the sender's memory (*over); runs of bytes are left to the spill (*over false). */
static Status over_table(Emit *e, const EPhase *ph, bool *over)
{
    *over = false;
    for (size_t i = 0; i < ph->n_sends; i++)
        if (ph->sends[i].single)
            return ST_OK;
    if (ph->n_sends <= LANES_HEADS / 2)
        return ST_OK;
    ESend *s = malloc(ph->n_sends * sizeof *s);
    if (!s)
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    memcpy(s, ph->sends, ph->n_sends * sizeof *s);
    qsort(s, ph->n_sends, sizeof *s, src_cmp);
    int64_t n = 0;
    for (size_t i = 0; i < ph->n_sends; i++)
        n += 1 + (i && s[i].src > s[i - 1].src + s[i - 1].words);
    free(s);
    *over = n > LANES_HEADS;
    return ST_OK;
}

/* Whether a relaying chain's run of core k's phase p cannot spill whole into p + 1
 * (emit_spill_chain.c): the spill alone then leaves the phase past the table. */
static Status chain_stays(Emit *e, uint32_t k, int32_t p, bool *stays)
{
    const EPhase *ph = &e->cores[k].ph[p];
    *stays = false;
    for (size_t i = 0; i < ph->n_sends && !*stays; i++) {
        bool whole = true;
        Status st = ph->sends[i].relay ? emit_spill_chain(e, k, p, &ph->sends[i], false, &whole)
                                       : ST_OK;
        if (st != ST_OK)
            return st;
        *stays = !whole;
    }
    return ST_OK;
}

Status emit_spill_merge(Emit *e, uint32_t k, int32_t p)
{
    EPhase *ph = &e->cores[k].ph[p];
    bool over = false, stays = false;
    Status st = over_table(e, ph, &over);
    if (st == ST_OK && over)
        st = chain_stays(e, k, p, &stays);
    if (st != ST_OK || !stays)
        return st;
    const ESend **xs = malloc(2 * (ph->n_chain_rest + 1) * sizeof *xs);
    if (!xs)
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    const ESend **ys = xs + ph->n_chain_rest + 1;
    qsort(ph->sends, ph->n_sends, sizeof *ph->sends, src_cmp);
    Landings ls = {0};
    st = landings(e, &ls); /* out of memory: emit_grow said so */
    for (size_t xi = 0; st == ST_OK && xi < ph->n_sends; xi++) {
        if (!ph->sends[xi].relay || !plain(&ph->sends[xi]))
            continue;
        for (bool took = true; took && xi + 1 < ph->n_sends;) {
            size_t nx, ny;
            const ESend *x = &ph->sends[xi], *y = &ph->sends[xi + 1];
            reach(ph, x, xs, &nx);
            reach(ph, y, ys, &ny);
            Join j = {k, p, x->src, x->src + x->words, &ls};
            took = joins(e, &j, x, xs, nx, y, ys, ny);
            if (took)
                take_in(e, k, p, xi, xs, nx, xi + 1, ys, ny);
        }
    }
    free(ls.l);
    free(xs);
    return st;
}
