/* emit_chain_plan.c: the relaying chains of one phase, planned together (docs/backend.md,
 * "Transfers", "One run to several cores"). A core forwards every MULTI_RELAY_CAST packet it
 * gets in a phase to one next core (its P09's Nx / Ny), so the chains of a phase form trees
 * whose edges point to the next core: every chain runs from its first core to the root of
 * its tree, and two runs whose sets of cores meet share the path from where they meet to
 * the root. The planner finds such an order for all the phase's runs at once: the runs
 * whose sets meet (a component) all end with the cores every one of them reaches (their
 * intersection, the shared tail); without those, the runs' remaining cores form components
 * again, each ending on the first core of the tail after it, and so on. A component whose
 * runs share no core cannot be carried in one phase (runs to X and E, Y and E, and to X
 * alone: E would have to forward to X and to Y) [emit.route].
 *
 * Then the receive bases: a forwarded packet keeps its address A, and each core counts it
 * from its own base, so the cores of a run have base = copy - 2 A; cores that several runs
 * join have their bases tied by the differences of their copies' addresses (a weighted
 * union-find over the phase's cores, wuf.h). Each group of tied cores takes the highest bases that
 * put none past the first word its core receives into in the phase (the least A); every base
 * inside MEM2, every A within 12 bits, else [emit.route].
 *
 * Orders: a tail is laid nearest first from the sender of the component's first run (by the
 * runs' order: sender, then words); a run alone keeps all its cores nearest first from its
 * sender, and a tail with nothing after it that several runs share ends on its core of the
 * least index.
 */
#include "backend/emit_internal.h"

#include "backend/core_mem.h"
#include "backend/wuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct Plan {
    Emit *e;
    int32_t p;
    const EChainRun *runs;
    size_t n;
    uint32_t *ord;  /* run r's cores at off[r]: its chain's order, filled from the back */
    size_t *off;
    size_t *left;   /* run r's cores not placed yet: ord[off[r] .. off[r] + left[r]) */
    size_t *root;   /* per run: union-find over the runs of a level */
    int32_t *seen;  /* per core: the run that has it (-1: none), a mark */
    size_t *cnt;    /* per core: the runs of a component that have it */
    uint32_t *par;  /* per core: union-find over tied receive bases */
    int64_t *pot;   /* per core: its base - its parent's */
    int64_t *base;  /* per core: its receive base, as planned */
} Plan;

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

static ESend *run_send(const Plan *pl, size_t r, size_t t)
{
    const EChainRun *c = &pl->runs[r];
    return &pl->e->cores[c->k].ph[pl->p].sends[c->i + t];
}

static Status refuse(const Plan *pl, size_t r, uint32_t at, const char *why)
{
    const ESend *s = run_send(pl, r, 0);
    return diag_add(pl->e->d, ST_LOGIC, "emit.route", pl->e->cores[pl->runs[r].k].name,
                    "phase %d: sends words %lld..%lld to %zu cores, which a relaying chain "
                    "through %s cannot carry: %s", pl->p, (long long)s->src,
                    (long long)(s->src + s->words - 1), pl->runs[r].m, pl->e->cores[at].name,
                    why);
}

#define LAID_OUT                                                                           \
    "the copies are laid out differently on the chain's cores (the runs land at other "   \
    "offsets from one receive base on each)"

static size_t find_run(size_t *root, size_t r)
{
    while (root[r] != r)
        r = root[r] = root[root[r]];
    return r;
}

/* Lays the cores of tail[0..nt) out nearest first from core `from`; with `last` set, the
 * core of least index goes last. */
static void lay_tail(const Emit *e, uint32_t from, uint32_t *tail, size_t nt, bool last)
{
    if (last && nt > 1) {
        size_t lo = 0;
        for (size_t i = 1; i < nt; i++)
            if (tail[i] < tail[lo])
                lo = i;
        uint32_t t = tail[lo];
        memmove(tail + lo, tail + lo + 1, (nt - lo - 1) * sizeof *tail);
        tail[nt - 1] = t;
        nt--;
    }
    uint32_t at = from;
    for (size_t i = 0; i < nt; i++) {
        size_t best = i;
        for (size_t j = i + 1; j < nt; j++)
            if (hops(e, at, tail[j]) < hops(e, at, tail[best]))
                best = j;
        uint32_t t = tail[i];
        tail[i] = tail[best];
        tail[best] = t;
        at = tail[i];
    }
}

static Status oom(const Plan *pl)
{
    return diag_add(pl->e->d, ST_RUNTIME, "oom", NULL, "out of memory");
}

static Status level(Plan *pl, const size_t *rs, size_t nr, uint32_t after);

/* One component comp[0..nc) of a level: its shared tail, then what is left of its runs. */
static Status component(Plan *pl, const size_t *comp, size_t nc, uint32_t after)
{
    Emit *e = pl->e;
    for (size_t a = 0; a < nc; a++)
        for (size_t t = 0; t < pl->left[comp[a]]; t++)
            pl->cnt[pl->ord[pl->off[comp[a]] + t]]++;
    size_t r0 = comp[0], nt = 0;
    uint32_t *tail = malloc(pl->left[r0] * sizeof *tail);
    if (!tail)
        return oom(pl);
    for (size_t t = 0; t < pl->left[r0]; t++) {
        uint32_t c = pl->ord[pl->off[r0] + t];
        if (pl->cnt[c] == nc)
            tail[nt++] = c;
    }
    for (size_t a = 0; a < nc; a++)
        for (size_t t = 0; t < pl->left[comp[a]]; t++)
            pl->cnt[pl->ord[pl->off[comp[a]] + t]] = 0;
    if (!nt) {
        free(tail);
        for (size_t a = 0; a < nc; a++) /* parts to cut in the next pass (emit_spreadcap.c) */
            for (size_t t = 0; t < pl->runs[comp[a]].m; t++)
                if (emit_spread_cap_hint(e, pl->p, run_send(pl, comp[a], t)) != ST_OK)
                    return oom(pl);
        return refuse(pl, r0, pl->ord[pl->off[r0]],
                      "the runs sent to several cores in this phase that reach it go to sets "
                      "of cores with no core in common, which their chains would all end on "
                      "(a core forwards every relayed packet of a phase to one next core)");
    }
    lay_tail(e, pl->runs[r0].k, tail, nt, after == EMIT_NONE && nc > 1);
    for (size_t i = 0; i < nt; i++) {
        EPhase *q = &e->cores[tail[i]].ph[pl->p];
        uint32_t next = i + 1 < nt ? tail[i + 1] : after;
        if (q->chained && q->chain_next != next) { /* placed once a phase: never */
            uint32_t k = tail[i];
            free(tail);
            return refuse(pl, r0, k, "it is in another relaying chain in this phase "
                          "that goes on to another core");
        }
        q->chained = true;
        q->chain_next = next;
        pl->seen[tail[i]] = 1;
    }
    size_t *rest = malloc(nc * sizeof *rest), nrest = 0;
    if (!rest) {
        free(tail);
        return oom(pl);
    }
    for (size_t a = 0; a < nc; a++) { /* the tail to the back of each run's unplaced cores */
        size_t r = comp[a], kept = 0;
        uint32_t *o = pl->ord + pl->off[r];
        for (size_t t = 0; t < pl->left[r]; t++)
            if (pl->seen[o[t]] != 1)
                o[kept++] = o[t];
        memcpy(o + kept, tail, nt * sizeof *tail);
        pl->left[r] = kept;
        if (kept)
            rest[nrest++] = r;
    }
    for (size_t i = 0; i < nt; i++)
        pl->seen[tail[i]] = -1;
    uint32_t head = tail[0];
    free(tail);
    Status st = nrest ? level(pl, rest, nrest, head) : ST_OK;
    free(rest);
    return st;
}

/* The runs rs[0..nr) with cores left, each to end on core `after` (EMIT_NONE: a root). */
static Status level(Plan *pl, const size_t *rs, size_t nr, uint32_t after)
{
    for (size_t a = 0; a < nr; a++)
        pl->root[rs[a]] = rs[a];
    for (size_t a = 0; a < nr; a++)
        for (size_t t = 0; t < pl->left[rs[a]]; t++) {
            uint32_t c = pl->ord[pl->off[rs[a]] + t];
            if (pl->seen[c] < 0)
                pl->seen[c] = (int32_t)rs[a];
            else
                pl->root[find_run(pl->root, rs[a])] = find_run(pl->root, (size_t)pl->seen[c]);
        }
    for (size_t a = 0; a < nr; a++)
        for (size_t t = 0; t < pl->left[rs[a]]; t++)
            pl->seen[pl->ord[pl->off[rs[a]] + t]] = -1;
    size_t *comp = malloc(nr * sizeof *comp);
    bool *done = calloc(nr, sizeof *done);
    Status st = comp && done ? ST_OK : oom(pl);
    for (size_t a = 0; st == ST_OK && a < nr; a++) {
        if (done[a])
            continue;
        size_t nc = 0, ra = find_run(pl->root, rs[a]);
        for (size_t b = a; b < nr; b++)
            if (!done[b] && find_run(pl->root, rs[b]) == ra) {
                done[b] = true;
                comp[nc++] = rs[b];
            }
        st = component(pl, comp, nc, after);
    }
    free(comp);
    free(done);
    return st;
}

/* Refuses run r (through core at, why) as refuse does, having recorded the runs whose cores
 * meet its own, directly or through others (their bases are tied), for the emitter's next
 * pass, which lays the areas they land in out at one address on every core of each run
 * (emit_pin.c). */
static Status refuse_tied(Plan *pl, size_t r, uint32_t at, const char *why)
{
    Emit *e = pl->e;
    for (size_t a = 0; a < pl->n; a++)
        pl->root[a] = a;
    for (size_t a = 0; a < pl->n; a++)
        for (size_t t = 0; t < pl->runs[a].m; t++) {
            uint32_t c = run_send(pl, a, t)->dst_core;
            if (pl->seen[c] < 0)
                pl->seen[c] = (int32_t)a;
            else
                pl->root[find_run(pl->root, a)] = find_run(pl->root, (size_t)pl->seen[c]);
        }
    for (size_t a = 0; a < pl->n; a++)
        for (size_t t = 0; t < pl->runs[a].m; t++)
            pl->seen[run_send(pl, a, t)->dst_core] = -1;
    size_t m = 0;
    for (size_t a = 0; a < pl->n; a++)
        m = pl->runs[a].m > m ? pl->runs[a].m : m;
    uint32_t *cores = malloc(m * sizeof *cores);
    int64_t *dst = malloc(m * sizeof *dst);
    Status st = cores && dst ? ST_OK : oom(pl);
    for (size_t a = 0; st == ST_OK && a < pl->n; a++) {
        if (find_run(pl->root, a) != find_run(pl->root, r))
            continue;
        for (size_t t = 0; t < pl->runs[a].m; t++) {
            cores[t] = run_send(pl, a, t)->dst_core;
            dst[t] = run_send(pl, a, t)->dst_addr;
        }
        st = emit_pin_run(e, pl->p, cores, dst, pl->runs[a].m);
    }
    free(cores);
    free(dst);
    return st == ST_OK ? refuse(pl, r, at, why) : st;
}

/* The root of core c among the tied bases; *d: c's base less the root's. */
static uint32_t find_base(Plan *pl, uint32_t c, int64_t *d)
{
    return wuf_find(pl->par, pl->pot, c, d);
}

static int64_t base_of(Plan *pl, uint32_t c)
{
    int64_t d;
    uint32_t r = find_base(pl, c, &d);
    return pl->e->cores[r].ph[pl->p].recv_base + d;
}

/* The send of run r to core c, or NULL. */
static const ESend *send_to(const Plan *pl, size_t r, uint32_t c)
{
    for (size_t t = 0; t < pl->runs[r].m; t++)
        if (run_send(pl, r, t)->dst_core == c)
            return run_send(pl, r, t);
    return NULL;
}

/* Run r's sends s0 and s, which no tie of receive bases puts at one offset: when another run
 * of its sender to the same two cores shows their copies laid out differently, records that
 * one of them takes its words from its writer's int32 area in the next pass
 * (emit_narrow_send.c); *noted. */
static Status two_layouts(Plan *pl, size_t r, const ESend *s0, const ESend *s, bool *noted)
{
    *noted = false;
    for (size_t r2 = 0; r2 < pl->n && !*noted; r2++) {
        const ESend *a2, *b2;
        if (r2 == r || pl->runs[r2].k != pl->runs[r].k ||
            !(a2 = send_to(pl, r2, s0->dst_core)) || !(b2 = send_to(pl, r2, s->dst_core)))
            continue;
        Status st = emit_narrow_send_note(pl->e, pl->runs[r].k, pl->p, s0, s, a2, b2, noted);
        if (st != ST_OK)
            return st;
    }
    return ST_OK;
}

/* Run r, which no receive base serves though an earlier pass laid its areas out for it
 * (emit_pin.c): its sends that land further past their core's other packets of the phase
 * than on another core of the run are recorded for the next pass to land first in their
 * part, when they land behind other pixels of it (emit_partfirst.c). */
static Status first_hints(Plan *pl, size_t r)
{
    Emit *e = pl->e;
    int64_t least = INT64_MAX;
    for (size_t t = 0; t < pl->runs[r].m; t++) {
        const ESend *s = run_send(pl, r, t);
        int64_t off = s->dst_addr - e->cores[s->dst_core].ph[pl->p].recv_lo;
        least = off < least ? off : least;
    }
    Status st = ST_OK;
    for (size_t t = 0; t < pl->runs[r].m && st == ST_OK; t++) {
        const ESend *s = run_send(pl, r, t);
        if (s->dst_addr - e->cores[s->dst_core].ph[pl->p].recv_lo > least)
            st = emit_part_first_hint(e, pl->p, s);
    }
    return st;
}

/* The receive bases of the phase's chain cores: tied by the runs, then the highest each
 * group of tied cores takes. Runs of copies of two layouts are each recorded (two_layouts)
 * before the phase is refused. */
static Status bases(Plan *pl)
{
    Emit *e = pl->e;
    int32_t p = pl->p;
    for (size_t r = 0; r < pl->n; r++)
        for (size_t t = 0; t < pl->runs[r].m; t++) {
            uint32_t c = pl->ord[pl->off[r] + t];
            pl->par[c] = c;
            pl->pot[c] = 0;
        }
    size_t first = pl->n; /* the first run refused for two layouts */
    uint32_t at = 0;
    for (size_t r = 0; r < pl->n; r++) {
        const ESend *s0 = run_send(pl, r, 0);
        for (size_t t = 1; t < pl->runs[r].m; t++) {
            const ESend *s = run_send(pl, r, t);
            bool noted = false;
            if (wuf_tie(pl->par, pl->pot, s0->dst_core, s->dst_core,
                        s->dst_addr - s0->dst_addr))
                continue;
            Status st = two_layouts(pl, r, s0, s, &noted);
            if (st != ST_OK)
                return st;
            if (!noted && first == pl->n)
                return refuse_tied(pl, r, s->dst_core, LAID_OUT);
            if (first == pl->n) {
                first = r;
                at = s->dst_core;
            }
        }
    }
    if (first < pl->n)
        return refuse(pl, first, at, LAID_OUT);
    for (size_t r = 0; r < pl->n; r++) /* each root's base: the least of its cores' bounds */
        for (size_t t = 0; t < pl->runs[r].m; t++) {
            uint32_t c = pl->ord[pl->off[r] + t];
            int64_t d;
            uint32_t rt = find_base(pl, c, &d);
            EPhase *q = &e->cores[rt].ph[p];
            if (!q->recv_base || e->cores[c].ph[p].recv_lo - d < q->recv_base)
                q->recv_base = e->cores[c].ph[p].recv_lo - d;
        }
    for (size_t r = 0; r < pl->n; r++)
        for (size_t t = 0; t < pl->runs[r].m; t++) {
            uint32_t c = pl->ord[pl->off[r] + t];
            int64_t b = base_of(pl, c);
            const ESend *s0 = run_send(pl, r, 0);
            int64_t twice_a = s0->dst_addr - base_of(pl, s0->dst_core);
            if (b < ASM_MEM2_BASE || b > e->cores[c].ph[p].recv_lo || twice_a / 2 > 4095) {
                uint32_t had = e->pins ? e->pins->runs : 0;
                Status st = refuse_tied(pl, r, c, "no receive base puts the shared address on "
                                        "every core's copy, inside MEM2 and before the core's "
                                        "other packets of the phase");
                /* the areas were laid out for these runs already: their parts' order next */
                if (e->pins && e->pins->runs == had && first_hints(pl, r) != ST_OK)
                    return oom(pl);
                return st;
            }
        }
    return ST_OK;
}

/* What the plan gives: each run's sends in its chain's order (the first, to the chain's
 * first core, the one the sender keeps, relay), the bases, the packets each core forwards. */
static void apply(Plan *pl)
{
    Emit *e = pl->e;
    int32_t p = pl->p;
    int64_t *base = pl->base; /* all first: base_of reads the roots' */
    for (size_t r = 0; r < pl->n; r++)
        for (size_t t = 0; t < pl->runs[r].m; t++)
            base[pl->ord[pl->off[r] + t]] = base_of(pl, pl->ord[pl->off[r] + t]);
    for (size_t r = 0; r < pl->n; r++) {
        const uint32_t *o = pl->ord + pl->off[r];
        size_t m = pl->runs[r].m;
        for (size_t t = 0; t < m; t++) {
            for (size_t u = t; u < m; u++)
                if (run_send(pl, r, u)->dst_core == o[t]) {
                    ESend s = *run_send(pl, r, t);
                    *run_send(pl, r, t) = *run_send(pl, r, u);
                    *run_send(pl, r, u) = s;
                    break;
                }
            if (t + 1 < m)
                e->cores[o[t]].ph[p].relayed += run_send(pl, r, 0)->words / 2;
        }
        run_send(pl, r, 0)->relay = true;
    }
    for (size_t r = 0; r < pl->n; r++)
        for (size_t t = 0; t < pl->runs[r].m; t++) {
            uint32_t c = pl->ord[pl->off[r] + t];
            e->cores[c].ph[p].recv_base = base[c];
        }
}

Status emit_chain_plan(Emit *e, int32_t p, const EChainRun *runs, size_t n)
{
    if (!n)
        return ST_OK;
    Plan pl = {.e = e, .p = p, .runs = runs, .n = n};
    size_t total = 0;
    for (size_t r = 0; r < n; r++)
        total += runs[r].m;
    pl.ord = malloc(total * sizeof *pl.ord);
    pl.off = malloc(n * sizeof *pl.off);
    pl.left = malloc(n * sizeof *pl.left);
    pl.root = malloc(n * sizeof *pl.root);
    pl.seen = malloc(e->n_cores * sizeof *pl.seen);
    pl.cnt = calloc(e->n_cores, sizeof *pl.cnt);
    pl.base = malloc(e->n_cores * sizeof *pl.base);
    pl.par = malloc(e->n_cores * sizeof *pl.par);
    pl.pot = malloc(e->n_cores * sizeof *pl.pot);
    size_t *all = malloc(n * sizeof *all);
    Status st = pl.ord && pl.off && pl.left && pl.root && pl.seen && pl.cnt && pl.par &&
                pl.pot && pl.base && all ? ST_OK : oom(&pl);
    for (uint32_t c = 0; st == ST_OK && c < e->n_cores; c++)
        pl.seen[c] = -1;
    for (size_t r = 0, at = 0; st == ST_OK && r < n; r++) {
        pl.off[r] = at;
        pl.left[r] = runs[r].m;
        all[r] = r;
        for (size_t t = 0; t < runs[r].m; t++, at++) {
            uint32_t c = run_send(&pl, r, t)->dst_core;
            if (pl.seen[c] == (int32_t)r) {
                const ESend *s = run_send(&pl, r, t);
                st = diag_add(e->d, ST_LOGIC, "emit.route", e->cores[runs[r].k].name,
                              "phase %d: sends words %lld..%lld twice to %s", p,
                              (long long)s->src, (long long)(s->src + s->words - 1),
                              e->cores[c].name);
                break;
            }
            pl.seen[c] = (int32_t)r;
            pl.ord[at] = c;
        }
        for (size_t t = 0; t < runs[r].m; t++)
            pl.seen[run_send(&pl, r, t)->dst_core] = -1;
    }
    if (st == ST_OK)
        st = level(&pl, all, n, EMIT_NONE);
    if (st == ST_OK)
        st = bases(&pl);
    if (st == ST_OK)
        apply(&pl);
    free(pl.ord);
    free(pl.off);
    free(pl.left);
    free(pl.root);
    free(pl.seen);
    free(pl.cnt);
    free(pl.par);
    free(pl.pot);
    free(pl.base);
    free(all);
    return st;
}
