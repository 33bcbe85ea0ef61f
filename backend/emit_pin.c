/* emit_pin.c: the receive areas a relaying chain's runs land in, at one address on every
 * core of the chain (docs/backend.md, "One run to several cores"). A forwarded packet keeps
 * its address, so the copies a chain carries must lie at one offset from the receive base on
 * each of its cores; the memory plan places each core's areas on its own, and a phase whose
 * chains find them at other offsets (or needing bases below MEM2, or past a core's other
 * packets) is refused by emit_chain_plan.c. Such runs are recorded here (EPinTie: the area
 * each core's copy of the run lands in, and where in it), and the emitter runs again
 * (emit.c): this time the areas the recorded runs tie are placed first, at fixed addresses
 * (alloc_core_at) where each run lands at one address on all its cores, so that every core
 * of a chain takes one receive base. Runs are named by core and request indices, which a
 * pass makes the same way from the same Mapping. Likewise a copy that a sender's words reach
 * whole while a chain carries them in another pitch in the same phase (emit_route.c) is
 * recorded with the chain's pitch (EPinPitch), and lands in it in the next pass
 * (ECopy.land_pitch, emit_plan.c; its P06 re-pitches, emit_move.c).
 */
#include "backend/emit_internal.h"

#include "backend/core_mem.h"
#include "backend/wuf.h"

#include <stdlib.h>
#include <string.h>

uint32_t emit_pin_area(const Emit *e, uint32_t k, int32_t p, int64_t w)
{
    const ECore *c = &e->cores[k];
    uint32_t best = EMIT_NONE;
    for (size_t i = 0; c->addr && i < c->n_reqs; i++) {
        const AllocReq *r = &c->reqs[i];
        if (r->kind != ALLOC_RECV || r->words <= 0 || !alloc_lives_in(r, p) ||
            c->addr[i] > w || c->addr[i] + r->words <= w)
            continue;
        bool gone = r->last == p && r->again == 0 && (r->last_axon || r->last_soma1);
        if (!gone)
            return (uint32_t)i;
        if (best == EMIT_NONE)
            best = (uint32_t)i; /* done with before the router: only when nothing else */
    }
    return best;
}

static int tie_cmp(const void *a, const void *b)
{
    const EPinTie *x = a, *y = b;
    if (x->k != y->k)
        return x->k < y->k ? -1 : 1;
    if (x->req != y->req)
        return x->req < y->req ? -1 : 1;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* Whether the run ties t[0..m) (sorted) is recorded already. */
static bool recorded(const EPins *pins, const EPinTie *t, size_t m)
{
    const EPinTie *ties = pins->of[EPIN_TIE].recs;
    size_t n = pins->of[EPIN_TIE].n;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && ties[j].run == ties[i].run)
            j++;
        bool same = j - i == m;
        for (size_t u = 0; same && u < m; u++)
            same = ties[i + u].k == t[u].k && ties[i + u].req == t[u].req &&
                   ties[i + u].off == t[u].off;
        if (same)
            return true;
        i = j;
    }
    return false;
}

Status emit_pin_run(Emit *e, int32_t p, const uint32_t *cores, const int64_t *dst, size_t m)
{
    EPins *pins = e->pins;
    if (!pins || m < 2)
        return ST_OK;
    EPinTie *t = malloc(m * sizeof *t);
    if (!t)
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    for (size_t i = 0; i < m; i++) {
        uint32_t req = emit_pin_area(e, cores[i], p, dst[i]);
        if (req == EMIT_NONE) {
            free(t);
            return ST_OK;
        }
        t[i] = (EPinTie){pins->runs, cores[i], req, dst[i] - e->cores[cores[i]].addr[req]};
    }
    qsort(t, m, sizeof *t, tie_cmp);
    bool have = recorded(pins, t, m);
    Status st = have ? ST_OK : emit_pin_add(e, EPIN_TIE, t, m);
    pins->runs += !have && st == ST_OK;
    free(t);
    return st;
}

Status emit_pin_pitch(Emit *e, uint32_t k, uint32_t pos, int64_t pitch)
{
    if (!e->pins || emit_pin_pitch_of(e, k, pos))
        return ST_OK;
    return emit_pin_add(e, EPIN_PITCH, &(EPinPitch){k, pos, pitch}, 1);
}

int64_t emit_pin_pitch_of(const Emit *e, uint32_t k, uint32_t pos)
{
    for (size_t i = 0; i < emit_pins_n(e, EPIN_PITCH); i++) {
        const EPinPitch *pp = emit_pin_at(e, EPIN_PITCH, i);
        if (pp->k == k && pp->pos == pos)
            return pp->pitch;
    }
    return 0;
}

const ECopy *emit_copy_landed(const ECopy *cp, ECopy *tmp)
{
    if (cp->land == EMIT_NONE || !cp->land_pitch)
        return cp;
    *tmp = *cp;
    tmp->feat.c = cp->land_pitch * cp->feat.per_word;
    tmp->feat.words = cp->feat.ny * cp->feat.nx * cp->land_pitch;
    return tmp;
}

/* The areas the ties name (nodes: core and request, the lead's of twins), tied by a
 * weighted union-find (wuf.h): each node's address less its parent's. */
typedef struct Pin {
    Emit *e;
    uint32_t *k, *req;  /* per node */
    AllocReq *life;     /* per node: its area as the plan places it (over its twins') */
    uint32_t n;
    uint32_t *par;
    int64_t *pot;
    bool *bad;          /* per root: ties that contradict, or an area that cannot be fixed */
    uint32_t *node;     /* per tie: its node */
    uint32_t **leads;   /* per core: emit_twin_leads, made for the cores of the nodes */
} Pin;

/* Whether request i of core c may take a fixed address: a received area, alone (in no chain
 * of areas). */
static bool fixable(const ECore *c, uint32_t i)
{
    if (i >= c->n_reqs || c->reqs[i].kind != ALLOC_RECV || c->reqs[i].words <= 0 ||
        c->reqs[i].next)
        return false;
    for (size_t j = 0; j < c->n_reqs; j++)
        if (c->reqs[j].next == (size_t)i + 1)
            return false;
    return true;
}

/* Whether node v fits at address a beside the nodes fixed so far (fixed[0..nf)). */
static bool fits_at(const Pin *pn, uint32_t v, int64_t a, const uint32_t *fixed, size_t nf,
                    const int64_t *addr)
{
    const AllocReq *r = &pn->life[v];
    if (a < ASM_MEM2_RECV || a + r->words > ASM_MEM3_BASE || a % r->align != 0)
        return false;
    for (size_t i = 0; i < nf; i++) {
        uint32_t o = fixed[i];
        const AllocReq *q = &pn->life[o];
        if (pn->k[o] == pn->k[v] && alloc_lives_meet(q, r) && addr[o] < a + r->words &&
            addr[o] + q->words > a)
            return false;
    }
    return true;
}

static int iv_cmp(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Whether area u (of the core of node v, as it lies fixed[0..nf) with v among them) still
 * has a run of the receive area, aligned, that no fixed area whose lifetime meets its own
 * takes: what the memory plan needs of it, wherever the others go (spans: room for nf
 * pairs). */
static bool leaves_run(const Pin *pn, uint32_t v, const AllocReq *u, const uint32_t *fixed,
                       size_t nf, const int64_t *addr, int64_t *spans)
{
    size_t m = 0;
    for (size_t i = 0; i < nf; i++)
        if (pn->k[fixed[i]] == pn->k[v] && alloc_lives_meet(&pn->life[fixed[i]], u)) {
            spans[2 * m] = addr[fixed[i]];
            spans[2 * m++ + 1] = addr[fixed[i]] + pn->life[fixed[i]].words;
        }
    qsort(spans, m, 2 * sizeof *spans, iv_cmp);
    int64_t at = ASM_MEM2_RECV;
    for (size_t i = 0; i <= m; i++) {
        int64_t end = i < m ? spans[2 * i] : ASM_MEM3_BASE;
        int64_t a = (at + u->align - 1) / u->align * u->align;
        if (a + u->words <= end)
            return true;
        at = i < m && spans[2 * i + 1] > at ? spans[2 * i + 1] : at;
    }
    return false;
}

/* Whether node v, just fixed (the last of fixed[0..nf)), leaves each received area of its
 * core that its lifetime meets and that is no node's, no twin led by another and in no chain
 * of areas a run to go to (leaves_run). */
static bool leaves_room(const Pin *pn, uint32_t v, const uint32_t *fixed, size_t nf,
                        const int64_t *addr, int64_t *spans)
{
    const ECore *c = &pn->e->cores[pn->k[v]];
    const uint32_t *lead = pn->leads[pn->k[v]];
    for (uint32_t i = 0; i < c->n_reqs; i++) {
        const AllocReq *u = &c->reqs[i];
        if (lead[i] != i || u->kind != ALLOC_RECV || u->words <= 0 || u->next ||
            !alloc_lives_meet(u, &pn->life[v]) || !fixable(c, i))
            continue;
        bool node = false;
        for (uint32_t w = 0; w < pn->n && !node; w++)
            node = pn->k[w] == pn->k[v] && pn->req[w] == i;
        if (node)
            continue;
        if (!leaves_run(pn, v, u, fixed, nf, addr, spans))
            return false;
    }
    return true;
}

/* How far above its root's address + its d a node of a set may lie (place_set's last
 * try): the runs then land at addresses that differ by as much on the chain's cores, and
 * the receive bases differ so too (emit_chain_plan.c), each at most its core's first
 * received word and at least MEM2's start: the receive area begins PIN_SLACK words past
 * it. */
#define PIN_SLACK (ASM_MEM2_RECV - ASM_MEM2_BASE)
/* The tries of an area at an address the last way makes at most for a set (its work: a
 * set of many areas on busy cores gives up rather than take minutes). */
#define PIN_SLACK_TRIES ((int64_t)1 << 22)

/* Places the set of root rt (its nodes mem[0..nm), each at its root's address + its d):
 * the lowest root address where every node fits and leaves the other received areas its
 * lifetime meets a run each (leaves_room: the lowest alone may cut the receive area of a
 * core where an area of that phase fits neither below nor above it), else the lowest where
 * every node fits; else (an area that one run ties at its end on one core and at its start
 * on another, past the receive area's end) the lowest root address where each node fits
 * at most PIN_SLACK words above its place, the lowest such (within PIN_SLACK_TRIES tries);
 * appended to fixed (none where no way fits). spans: room for 2 (nf + nm) words. */
static void place_set(Pin *pn, const uint32_t *mem, const int64_t *d, size_t nm,
                      uint32_t *fixed, size_t *nf, int64_t *addr, int64_t *spans)
{
    int64_t lo = INT64_MIN;
    for (size_t i = 0; i < nm; i++)
        lo = ASM_MEM2_RECV - d[i] > lo ? ASM_MEM2_RECV - d[i] : lo;
    int64_t tries = PIN_SLACK_TRIES;
    for (int way = 0; way < 3; way++) /* room, exact; exact; slack */
        for (int64_t s = way < 2 ? lo : lo - PIN_SLACK; s < ASM_MEM3_BASE && tries > 0; s++) {
            size_t ok = 0;
            for (; ok < nm; ok++) {
                int32_t al = pn->life[mem[ok]].align;
                int64_t a = s + d[ok], top = way < 2 ? a : a + PIN_SLACK;
                if (way == 2) /* aligned, inside the receive area */
                    a = (a > ASM_MEM2_RECV ? a : ASM_MEM2_RECV) + al - 1;
                a = way < 2 ? a : a / al * al;
                while (a <= top && (way < 2 || --tries > 0) &&
                       !fits_at(pn, mem[ok], a, fixed, *nf + ok, addr))
                    a += way < 2 ? 1 : al;
                if (a > top || tries <= 0) /* no place, or the last way's work done */
                    break;
                addr[mem[ok]] = a;
                fixed[*nf + ok] = mem[ok];
            }
            for (size_t i = 0; way == 0 && ok == nm && i < nm; i++)
                if (!leaves_room(pn, mem[i], fixed, *nf + nm, addr, spans))
                    ok = 0;
            if (ok == nm) {
                *nf += nm;
                return;
            }
        }
}

/* The area request *req of core k takes in the plan: *req becomes the lead of its twins
 * (emit_twin_leads, made once a core into leads[k]), *life that area alive over all their
 * lifetimes, as place_core places it. Out of memory: ST_RUNTIME. */
static Status twin_area(Emit *e, uint32_t **leads, uint32_t k, uint32_t *req, AllocReq *life)
{
    const ECore *c = &e->cores[k];
    if (!leads[k] && (!(leads[k] = malloc(c->n_reqs * sizeof *leads[k])) ||
                      !emit_twin_leads(e, k, leads[k]))) {
        free(leads[k]);
        leads[k] = NULL;
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    }
    const uint32_t *lead = leads[k];
    uint32_t l = lead[*req];
    *life = c->reqs[l];
    for (size_t i = 0; i < c->n_reqs; i++)
        if (i != l && lead[i] == l && c->reqs[i].words > 0)
            emit_twin_join(life, &c->reqs[i], c->n_phases);
    *req = l;
    return ST_OK;
}

static Status fix(Pin *pn)
{
    Emit *e = pn->e;
    uint32_t n = pn->n;
    uint32_t *mem = malloc(n * sizeof *mem), *fixed = malloc(n * sizeof *fixed);
    size_t nf = 0;
    int64_t *d = malloc(n * sizeof *d), *addr = calloc(n, sizeof *addr);
    int64_t *spans = malloc(2 * n * sizeof *spans);
    bool *done = calloc(n, sizeof *done);
    Status st = mem && fixed && d && addr && spans && done
                    ? ST_OK
                    : diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    for (uint32_t v = 0; st == ST_OK && v < n; v++) { /* the sets in the order of their nodes */
        int64_t dv;
        uint32_t rt = wuf_find(pn->par, pn->pot, v, &dv);
        if (done[rt] || pn->bad[rt])
            continue;
        done[rt] = true;
        size_t nm = 0;
        for (uint32_t u = v; u < n; u++) {
            int64_t du;
            if (wuf_find(pn->par, pn->pot, u, &du) == rt) {
                mem[nm] = u;
                d[nm++] = du;
            }
        }
        size_t before = nf;
        place_set(pn, mem, d, nm, fixed, &nf, addr, spans);
        for (size_t i = before; i < nf; i++) {
            ECore *c = &e->cores[pn->k[fixed[i]]];
            if (!c->at && !(c->at = calloc(c->n_reqs ? c->n_reqs : 1, sizeof *c->at))) {
                st = diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
                break;
            }
            c->at[pn->req[fixed[i]]] = (int32_t)addr[fixed[i]];
        }
    }
    free(mem);
    free(fixed);
    free(d);
    free(addr);
    free(spans);
    free(done);
    return st;
}

Status emit_pin_place(Emit *e)
{
    size_t nt = emit_pins_n(e, EPIN_TIE);
    if (!nt)
        return ST_OK;
    const EPinTie *ties = e->pins->of[EPIN_TIE].recs;
    Pin pn = {.e = e};
    pn.k = malloc(nt * sizeof *pn.k);
    pn.req = malloc(nt * sizeof *pn.req);
    pn.par = malloc(nt * sizeof *pn.par);
    pn.pot = malloc(nt * sizeof *pn.pot);
    pn.bad = calloc(nt, sizeof *pn.bad);
    pn.node = malloc(nt * sizeof *pn.node);
    pn.life = malloc(nt * sizeof *pn.life);
    uint32_t **leads = calloc(e->n_cores ? e->n_cores : 1, sizeof *leads); /* per core */
    Status st = pn.k && pn.req && pn.par && pn.pot && pn.bad && pn.node && pn.life && leads
                    ? ST_OK
                    : diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    for (size_t i = 0; st == ST_OK && i < nt; i++) { /* the nodes, in order of first tie */
        const EPinTie *t = &ties[i];
        bool known = t->k < e->n_cores && t->req < e->cores[t->k].n_reqs;
        uint32_t req = t->req;
        AllocReq life = {0};
        if (known && (st = twin_area(e, leads, t->k, &req, &life)) != ST_OK)
            break;
        uint32_t v = 0;
        while (v < pn.n && (pn.k[v] != t->k || pn.req[v] != req))
            v++;
        if (v == pn.n) {
            pn.k[v] = t->k;
            pn.req[v] = req;
            pn.life[v] = life;
            pn.par[v] = v;
            pn.pot[v] = 0;
            pn.bad[v] = !known || !fixable(&e->cores[t->k], req);
            pn.n++;
        }
        pn.node[i] = v;
    }
    for (size_t i = 0; st == ST_OK && i < nt;) { /* each run: its areas + offs at one address */
        size_t j = i + 1;
        for (int64_t d; j < nt && ties[j].run == ties[i].run; j++) {
            uint32_t r0 = wuf_find(pn.par, pn.pot, pn.node[i], &d);
            uint32_t rt = wuf_find(pn.par, pn.pot, pn.node[j], &d);
            /* j's address less i's */
            bool ok = wuf_tie(pn.par, pn.pot, pn.node[i], pn.node[j],
                              ties[i].off - ties[j].off);
            pn.bad[r0] |= pn.bad[rt] || !ok;
        }
        i = j;
    }
    pn.leads = leads;
    if (st == ST_OK)
        st = fix(&pn);
    free(pn.k);
    free(pn.req);
    free(pn.par);
    free(pn.pot);
    free(pn.bad);
    free(pn.node);
    free(pn.life);
    for (uint32_t k = 0; leads && k < e->n_cores; k++)
        free(leads[k]);
    free(leads);
    return st;
}
