/* emit_route_chain.c: one run sent whole to several cores in one phase (docs/backend.md,
 * "Transfers", "One run to several cores"). The router sends its area's words once, in order,
 * so a core cannot send the same words under two headers; the chip's relaying router does
 * it instead: the sender sends the run once, under a MULTI_RELAY_CAST header, to the first
 * core of a chain; every core of the chain but the last keeps the packets and forwards a
 * copy to the next (its P09 in multicast mode: CXY 1, Nx / Ny the step to the next core,
 * Relay_number the packets it forwards). A forwarded packet keeps its destination address A,
 * and each core's packets land from its own receive base (Addr_Din_base), so every core of
 * the chain gets its base such that A lands on its copy: base = copy - 2 A, with the least A
 * that puts no base past the first word its core receives into in the phase (its other
 * packets land after the base), every base inside MEM2. A core forwards every
 * MULTI_RELAY_CAST packet it gets in the phase to one core, so the chains it forwards in
 * during a phase (runs of one sender, or of several senders through the same cores) all go
 * on to the same next core, and keep their order and bases. Cores of a chain: nearest first from the sender, then
 * from the core before (ties: the order of the cores).
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

static int64_t gx(const Emit *e, uint32_t k)
{
    return (int64_t)e->cores[k].chip.x * e->chip->cores_x + e->cores[k].core.x;
}

static int64_t gy(const Emit *e, uint32_t k)
{
    return (int64_t)e->cores[k].chip.y * e->chip->cores_y + e->cores[k].core.y;
}

static int64_t hops(const Emit *e, uint32_t a, uint32_t b)
{
    return llabs(gx(e, a) - gx(e, b)) + llabs(gy(e, a) - gy(e, b));
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

static bool same_run(const ESend *a, const ESend *b)
{
    return a->src == b->src && a->words == b->words && a->run == b->run &&
           a->stride == b->stride;
}

/* The m sends g[0..m) of core k in phase p carry one run to m cores: orders them into a
 * chain, sets the cores' bases and relays, and makes g[0] the one send to the chain's first
 * core. ord, dst: room for m entries. A core a phase either forwards, to one next core (the
 * cores of one chain, however many runs it carries), or is the last of its chains; their
 * receive bases must agree. The last core: the one in the most runs sent to several cores
 * this phase (so a core two chains share ends both), else the farthest by the greedy order. */
static Status chain(Emit *e, uint32_t k, int32_t p, ESend *g, size_t m, uint32_t *ord,
                    int64_t *dst)
{
    const char *name = e->cores[k].name;
    size_t last = 0;
    for (size_t i = 0; i < m; i++) {
        if (i && g[i].dst_core == g[i - 1].dst_core)
            return diag_add(e->d, ST_LOGIC, "emit.route", name, "phase %d: sends words "
                            "%lld..%lld twice to %s", p, (long long)g[i].src,
                            (long long)(g[i].src + g[i].words - 1), e->cores[g[i].dst_core].name);
        if (e->cores[g[i].dst_core].ph[p].n_groups > e->cores[g[last].dst_core].ph[p].n_groups)
            last = i;
    }
    if (e->cores[g[last].dst_core].ph[p].n_groups > 1) { /* it goes last */
        ESend t = g[m - 1];
        g[m - 1] = g[last];
        g[last] = t;
    }
    size_t free_n = e->cores[g[m - 1].dst_core].ph[p].n_groups > 1 ? m - 1 : m;
    uint32_t at = k; /* nearest first */
    for (size_t i = 0; i < m; i++) {
        size_t best = i;
        for (size_t j = i + 1; j < free_n; j++)
            if (hops(e, at, g[j].dst_core) < hops(e, at, g[best].dst_core))
                best = j;
        ESend t = g[i];
        g[i] = g[best];
        g[best] = t;
        ord[i] = at = g[i].dst_core;
        dst[i] = g[i].dst_addr;
    }
    int64_t twice_a = -1; /* 2 A, in words: from a core whose base is set, else the least
                             that puts no base past the first word its core receives into */
    for (size_t i = 0; i < m && twice_a < 0; i++)
        if (e->cores[ord[i]].ph[p].recv_base)
            twice_a = dst[i] - e->cores[ord[i]].ph[p].recv_base;
    if (twice_a < 0) {
        twice_a = 0;
        for (size_t j = 0; j < m; j++)
            if (dst[j] - e->cores[ord[j]].ph[p].recv_lo > twice_a)
                twice_a = dst[j] - e->cores[ord[j]].ph[p].recv_lo;
    }
    for (size_t i = 0; i < m; i++) {
        const EPhase *q = &e->cores[ord[i]].ph[p];
        uint32_t next = i + 1 < m ? ord[i + 1] : EMIT_NONE;
        int64_t base = dst[i] - twice_a;
        const char *why = NULL;
        if (q->chained && q->chain_next != next)
            why = "it is in another relaying chain in this phase that goes on to another core "
                  "(a core forwards every relayed packet of a phase to one next core)";
        else if (q->recv_base && q->recv_base != base)
            why = "the copies are laid out differently on the chain's cores (the runs land at "
                  "other offsets from one receive base on each)";
        else if (base > q->recv_lo || base < ASM_MEM2_BASE || twice_a / 2 > 4095)
            why = "no receive base puts the shared address on every core's copy, inside MEM2 "
                  "and before the core's other packets of the phase";
        if (why)
            return diag_add(e->d, ST_LOGIC, "emit.route", name,
                            "phase %d: sends words %lld..%lld to %zu cores, which a relaying "
                            "chain through %s cannot carry: %s", p, (long long)g[0].src,
                            (long long)(g[0].src + g[0].words - 1), m, e->cores[ord[i]].name,
                            why);
    }
    for (size_t i = 0; i < m; i++) {
        EPhase *q = &e->cores[ord[i]].ph[p];
        q->chained = true;
        q->chain_next = i + 1 < m ? ord[i + 1] : EMIT_NONE;
        q->recv_base = dst[i] - twice_a;
        if (i + 1 < m)
            q->relayed += g[0].words / 2;
    }
    g[0].relay = true;
    return ST_OK;
}

static int i64_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
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
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < nb; j++)
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
        for (size_t j = 0; j <= nb; j++) {
            int64_t to = j < nb ? b[j] : s->src + s->words;
            if (j < nb && ((j && b[j] == b[j - 1]) || !cuttable(s, to)))
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
    while (j < ph->n_sends && same_run(&ph->sends[i], &ph->sends[j]))
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

Status emit_route_chains(Emit *e)
{
    for (uint32_t k = 0; k < e->n_cores; k++) /* the first word each core receives into */
        for (int32_t p = 0; p < e->cores[k].n_phases; p++) {
            const EPhase *ph = &e->cores[k].ph[p];
            for (size_t i = 0; i < ph->n_sends; i++) {
                EPhase *q = &e->cores[ph->sends[i].dst_core].ph[p];
                int64_t w = ph->sends[i].dst_addr / (ph->sends[i].single ? 4 : 1);
                if (!q->recv_lo || w < q->recv_lo)
                    q->recv_lo = w;
            }
        }
    for (uint32_t k = 0; k < e->n_cores; k++) /* cut, sort and count the groups */
        for (int32_t p = 0; p < e->cores[k].n_phases; p++) {
            EPhase *ph = &e->cores[k].ph[p];
            if (ph->n_sends < 2 || has_bytes(ph))
                continue; /* runs of bytes go in 1-byte packets, never to a chain */
            Status cst = cut_overlaps(e, ph, p);
            if (cst != ST_OK)
                return cst;
            qsort(ph->sends, ph->n_sends, sizeof *ph->sends, run_cmp);
            for (size_t i = 0, j; i < ph->n_sends; i = j) {
                j = group_end(ph, i);
                for (size_t r = i; j - i > 1 && !one_core(ph, i, j) && r < j; r++)
                    e->cores[ph->sends[r].dst_core].ph[p].n_groups++;
            }
        }
    for (uint32_t k = 0; k < e->n_cores; k++)
        for (int32_t p = 0; p < e->cores[k].n_phases; p++) {
            EPhase *ph = &e->cores[k].ph[p];
            size_t out = 0;
            if (has_bytes(ph))
                continue;
            for (size_t i = 0, j; i < ph->n_sends && ph->n_sends > 1; i = j) {
                j = group_end(ph, i);
                if (j - i > 1 && one_core(ph, i, j)) { /* kept apart: spilled one a phase */
                    for (size_t r = i; r < j; r++)
                        ph->sends[out++] = ph->sends[r];
                    continue;
                }
                if (j - i > 1) {
                    uint32_t *ord = malloc((j - i) * sizeof *ord);
                    int64_t *dst = malloc((j - i) * sizeof *dst);
                    Status st = ord && dst ? chain(e, k, p, &ph->sends[i], j - i, ord, dst)
                                           : diag_add(e->d, ST_RUNTIME, "oom", NULL,
                                                      "out of memory");
                    free(ord);
                    free(dst);
                    if (st != ST_OK)
                        return st;
                }
                ph->sends[out++] = ph->sends[i];
            }
            if (ph->n_sends > 1)
                ph->n_sends = out;
        }
    return ST_OK;
}
