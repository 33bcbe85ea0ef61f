/* emit_route_chain.c: one run sent whole to several cores in one phase (docs/backend.md,
 * "Transfers", "One run to several cores"). The router sends its area's words once, in order,
 * so a core cannot send the same words under two headers; the chip's relaying router does
 * it instead: the sender sends the run once, under a MULTI_RELAY_CAST header, to the first
 * core of a chain; every core of the chain but the last keeps the packets and forwards a
 * copy to the next (its P09 in multicast mode: CXY 1, Nx / Ny the step to the next core,
 * Relay_number the packets it forwards). Here: the first word each core receives into in a
 * phase, the sends cut where they overlap in part, and each core's runs to several cores;
 * emit_chain_plan.c orders a phase's runs together (a core forwards every relayed packet of a
 * phase to one next core) and sets the bases; each run then keeps one send, to its chain's
 * first core.
 */
#include "backend/emit_internal.h"

#include "backend/core_mem.h"

#include <stdlib.h>
#include <string.h>

int64_t emit_recv_base(const Emit *e, uint32_t k, int32_t p)
{
    int64_t b = e->cores[k].ph[p].recv_base;
    return b ? b : ASM_MEM2_RECV;
}

Status emit_chain_rest_add(Emit *e, EPhase *ph, const ESend *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ESend *nr = emit_grow(e, ph->chain_rest, &ph->cap_chain_rest, ph->n_chain_rest,
                              sizeof *ph->chain_rest);
        if (!nr)
            return ST_RUNTIME;
        ph->chain_rest = nr;
        nr[ph->n_chain_rest++] = s[i];
    }
    return ST_OK;
}

/* Sends of one run, together: by source, length, pattern, then receiving core. */
static int run_cmp(const void *a, const void *b)
{
    const ESend *x = a, *y = b;
    const int64_t kx[5] = {x->src, x->words, x->run, x->stride, x->dst_core};
    const int64_t ky[5] = {y->src, y->words, y->run, y->stride, y->dst_core};
    for (int i = 0; i < 5; i++)
        if (kx[i] != ky[i])
            return kx[i] < ky[i] ? -1 : 1;
    return 0;
}

bool emit_same_run(const ESend *a, const ESend *b)
{
    return a->src == b->src && a->words == b->words && a->run == b->run &&
           a->stride == b->stride;
}

static int i64_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The first of the nb sorted bounds b[] past v. */
static size_t bound_past(const int64_t *b, size_t nb, int64_t v)
{
    size_t lo = 0, hi = nb;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (b[mid] <= v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Where piece [b0, b1) of send s may start: at a run's start when s has several runs. */
static bool cuttable(const ESend *s, int64_t b)
{
    return b > s->src && b < s->src + s->words && (b - s->src) % 2 == 0 &&
           (s->run == s->stride || (b - s->src) % s->run == 0);
}

/* Cuts the sends of ph where another send starts or ends inside them, so that the words two
 * sends share (the shared rows of overlapping pieces) become sends of their own, which
 * chain() joins; each piece is a header of its own, with its end mark. A send that cannot be
 * cut there stays whole (send_part refuses the overlap). */
static Status cut_overlaps(Emit *e, EPhase *ph, int32_t p)
{
    size_t n = ph->n_sends, nb = 2 * n, cuts = 0;
    int64_t *b = malloc(nb * sizeof *b);
    if (!b)
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        b[2 * i] = ph->sends[i].src;
        b[2 * i + 1] = ph->sends[i].src + ph->sends[i].words;
    }
    qsort(b, nb, sizeof *b, i64_cmp);
    /* a send is cut only inside it (cuttable): the bounds past its start, before its end */
    for (size_t i = 0; i < n; i++)
        for (size_t j = bound_past(b, nb, ph->sends[i].src);
             j < nb && b[j] < ph->sends[i].src + ph->sends[i].words; j++)
            cuts += (j == 0 || b[j] != b[j - 1]) && cuttable(&ph->sends[i], b[j]);
    ESend *out = cuts ? malloc((n + cuts) * sizeof *out) : NULL;
    if (cuts && !out) {
        free(b);
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    }
    size_t m = 0;
    for (size_t i = 0; cuts && i < n; i++) {
        const ESend *s = &ph->sends[i];
        int64_t from = s->src;
        /* the bounds inside s (from j0 to before j1), then its end */
        size_t j0 = bound_past(b, nb, s->src), j1 = bound_past(b, nb, s->src + s->words - 1);
        for (size_t j = j0;; j++) {
            bool last = j >= j1;
            int64_t to = last ? s->src + s->words : b[j];
            if (!last && ((j && b[j] == b[j - 1]) || !cuttable(s, to)))
                continue;
            ESend piece = *s;
            int64_t skip = from - s->src;
            piece.src = from;
            piece.words = to - from;
            piece.dst_addr = s->dst_addr + (s->run == s->stride ? skip : skip / s->run * s->stride);
            if (s->run == s->stride || piece.words == s->run)
                piece.run = piece.stride = piece.words;
            if (from > s->src) /* one end mark a header */
                e->cores[s->dst_core].ph[p].recv_marks++;
            out[m++] = piece;
            from = to;
            if (last)
                break;
        }
    }
    free(b);
    if (cuts) {
        free(ph->sends);
        ph->sends = out;
        ph->n_sends = ph->cap_sends = m;
    }
    return ST_OK;
}

/* The sends of one run to several cores: g[i..*j) (j the end of i's group). */
static size_t group_end(const EPhase *ph, size_t i)
{
    size_t j = i + 1;
    while (j < ph->n_sends && emit_same_run(&ph->sends[i], &ph->sends[j]))
        j++;
    return j;
}

/* Whether the sends g[i..j) of one run all go to one core: not a chain but one value in
 * several places there (an upsampling gathered on its core), which the router sends once a
 * phase: emit_route_spill.c carries the others into the phases after. */
static bool one_core(const EPhase *ph, size_t i, size_t j)
{
    for (size_t r = i + 1; r < j; r++)
        if (ph->sends[r].dst_core != ph->sends[i].dst_core)
            return false;
    return true;
}

static bool has_bytes(const EPhase *ph)
{
    for (size_t i = 0; i < ph->n_sends; i++)
        if (ph->sends[i].single)
            return true;
    return false;
}

/* Core k's runs of phase p sent to several cores, appended to *runs (n, cap); compacted:
 * with keep, only the first send of each such run stays (the one to its chain's first core,
 * emit_chain_plan.c), the others go to the phase's chain_rest (a run spilled into the next
 * phase takes them along, emit_spill_chain.c). */
static Status phase_runs(Emit *e, uint32_t k, int32_t p, EChainRun **runs, size_t *n,
                         size_t *cap, bool keep)
{
    EPhase *ph = &e->cores[k].ph[p];
    size_t out = 0;
    if (ph->n_sends < 2 || has_bytes(ph))
        return ST_OK; /* runs of bytes go in 1-byte packets, never to a chain */
    for (size_t i = 0, j; i < ph->n_sends; i = j) {
        j = group_end(ph, i);
        if (j - i > 1 && one_core(ph, i, j)) { /* kept apart: spilled one a phase */
            for (size_t r = i; keep && r < j; r++)
                ph->sends[out++] = ph->sends[r];
            continue;
        }
        if (!keep && j - i > 1) {
            EChainRun *nr = emit_grow(e, *runs, cap, *n, sizeof **runs);
            if (!nr)
                return ST_RUNTIME;
            *runs = nr;
            nr[(*n)++] = (EChainRun){.k = k, .i = i, .m = j - i};
        }
        if (keep && emit_chain_rest_add(e, ph, ph->sends + i + 1, j - i - 1) != ST_OK)
            return ST_RUNTIME; /* its other cores, in chain order */
        if (keep)
            ph->sends[out++] = ph->sends[i];
    }
    if (keep)
        ph->n_sends = out;
    return ST_OK;
}

Status emit_route_chains(Emit *e)
{
    int32_t n_phases = emit_max_phases(e);
    for (int32_t p = 0; p < n_phases; p++) { /* the first word each core receives into */
        EPhaseSends it = emit_phase_sends(p, false);
        for (const ESend *s; (s = emit_phase_sends_next(e, &it));) {
            EPhase *q = &e->cores[s->dst_core].ph[p];
            int64_t w = s->dst_addr / (s->single ? 4 : 1);
            if (!q->recv_lo || w < q->recv_lo)
                q->recv_lo = w;
        }
    }
    for (uint32_t k = 0; k < e->n_cores; k++) /* cut and sort */
        for (int32_t p = 0; p < e->cores[k].n_phases; p++) {
            EPhase *ph = &e->cores[k].ph[p];
            if (ph->n_sends < 2 || has_bytes(ph))
                continue;
            Status cst = cut_overlaps(e, ph, p);
            if (cst != ST_OK)
                return cst;
            qsort(ph->sends, ph->n_sends, sizeof *ph->sends, run_cmp);
        }
    EChainRun *runs = NULL;
    size_t cap = 0;
    Status st = ST_OK;
    for (int32_t p = 0; st == ST_OK && p < n_phases; p++) { /* a phase's chains together */
        size_t n = 0;
        for (uint32_t k = 0; st == ST_OK && k < e->n_cores; k++)
            if (p < e->cores[k].n_phases)
                st = phase_runs(e, k, p, &runs, &n, &cap, false);
        if (st == ST_OK)
            st = emit_chain_plan(e, p, runs, n);
        for (uint32_t k = 0; st == ST_OK && k < e->n_cores; k++)
            if (p < e->cores[k].n_phases)
                st = phase_runs(e, k, p, &runs, &n, &cap, true);
    }
    free(runs);
    return st;
}
