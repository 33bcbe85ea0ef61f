/* xfer_chain.c: whether a transfer's receive phase keeps the phase's relaying chains
 * possible (docs/mapper.md, "Transfers"; docs/backend.md, "One run to several cores").
 *
 * The code generator sends each part of a writer's result that goes to several cores in a
 * phase once, along a relaying chain of those cores, and a core forwards every relayed packet
 * of a phase to one next core: the chains of a phase, over all writers, must fit the trees
 * chain_fit.c checks. Writers on different cores meet there too: a row one writer sends to
 * a convolution's pieces A and B, in parts that another writer's row also reaches core X
 * with (ResNet-50: the sets A, B, A + X, B + X in one phase), needs X to forward to A and to
 * B. The sets of a phase (chain_sets.c): per writer, the parts of its result that the boxes
 * of its planned transfers receiving in the phase (any global phase of that local one: the
 * stages run pipelined) cut it into, each going to the cores whose boxes hold it. A transfer
 * does not take a phase whose sets fit without it and do not with it.
 */
#include "mapper/chain_index.h"
#include "mapper/chain_sets.h"
#include "mapper/xfer_clash.h"

#include <stdlib.h>
#include <string.h>

/* The most transfers of the writers a check looks at (a bound on the work: the schedule
 * asks for every phase a transfer may take; past it, no phase is kept from it). */
enum { MAX_ITEMS = 64 };
/* The answers kept (a table indexed by a hash of the question): the schedule asks the same
 * question again when it plans a transfer for real after trying it, and for each core a
 * block tries. An answer holds while its phase's list is as long as it was (planned
 * transfers only join the lists, and keep their phases and cores). */
enum { MEMO_SIZE = 1 << 12 };

typedef struct MChainMemo {
    int64_t from, bytes;
    size_t n;      /* the phase's list's length it was given at */
    uint32_t xi, v, lp;
    bool full, answer;
} MChainMemo;

/* Whether another planned transfer of x's writer into a core other than v receives in
 * local phase lp a box of the writer's result that meets x's: found among the writer's
 * transfers (c->start), not the whole phase's. */
static bool other_meets(const MapPlan *p, const MClash *c, uint32_t xi, uint32_t v, uint32_t lp)
{
    uint32_t t = p->xfers[xi].src_task;
    for (uint32_t k = c->start[t]; k < c->start[t + 1]; k++) {
        uint32_t yi = c->list[k];
        const MXfer *y = &p->xfers[yi];
        if (yi == xi || !y->planned || !y->cross || map_xfer_vcore(p, y) == v ||
            !map_box_meets(&c->run_box[xi], &c->run_box[yi]))
            continue;
        for (uint32_t j = 0; j < y->n_chunks; j++) {
            const MChunk *ch = &p->chunks[y->chunk0 + j];
            if (ch->bytes > 0 && map_local(p, ch->phase) == lp)
                return true;
        }
    }
    return false;
}

/* The items of the transfers pick[0..n) receiving in local phase lp into it. */
static void fill_items(const MapPlan *p, const MClash *c, const uint32_t *pick, size_t n,
                       uint32_t lp, MChainItem *it)
{
    for (size_t i = 0; i < n; i++) {
        const MXfer *y = &p->xfers[pick[i]];
        it[i] = (MChainItem){y->src_task, map_xfer_vcore(p, y), &c->run_box[pick[i]], 0, 0};
        map_xfer_share(p, y, lp, &it[i].lo, &it[i].hi);
    }
}

/* Whether the planned transfers of one component of l (writer t's, or with t MAP_NONE vcore
 * v's) fit relaying chains (map_items_fit), kept at its root while it holds as many: two
 * components share no writer and no core, so their sets meet nowhere and they fit together
 * when each does. 1, 0, -1 when out of memory; 2 when one of them goes to no core yet (the
 * sets of two such would meet there: the components are then asked together). */
static int comp_fits(const MapPlan *p, MClash *c, MPhaseXfers *l, uint32_t lp, uint32_t t,
                     uint32_t v)
{
    uint32_t r = map_phase_comp(p, l, t, v);
    if (r == MAP_NONE || !l->cnt[r])
        return 1;
    if (l->fit_n[r] == l->cnt[r])
        return l->fit_ok[r];
    uint32_t pick[MAX_ITEMS];
    MChainItem it[MAX_ITEMS];
    size_t n = map_phase_pick(p, c, l, t, v, pick);
    if (n == (size_t)-1)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (map_xfer_vcore(p, &p->xfers[pick[i]]) >= p->n_vcores)
            return 2;
    fill_items(p, c, pick, n, lp, it);
    int ok = map_items_fit(it, n);
    if (ok >= 0) {
        l->fit_n[r] = l->cnt[r];
        l->fit_ok[r] = (uint8_t)ok;
    }
    return ok;
}

/* map_xfer_chains without the kept answers; c->oom set when out of memory. */
static bool chains_break(const MapPlan *p, MClash *c, uint32_t xi, uint32_t v, uint32_t lp,
                         int64_t from, int64_t bytes)
{
    const MXfer *x = &p->xfers[xi];
    if (!other_meets(p, c, xi, v, lp))
        return false;
    /* only the writers whose runs meet the candidate's, through shared cores, and so on:
     * the other components of the phase fit or not whatever it does; past MAX_ITEMS not
     * checked, as if they did not fit before */
    MPhaseXfers *l = &c->at[lp];
    if (!map_phase_index(p, l)) {
        c->oom = true;
        return false;
    }
    if (map_phase_reach(p, l, x->src_task, v) > MAX_ITEMS)
        return false;
    uint32_t pick[MAX_ITEMS];
    MChainItem it[MAX_ITEMS + 1];
    size_t n = 0;
    /* before: the writer's component and the core's, each as kept */
    int before = comp_fits(p, c, l, lp, x->src_task, MAP_NONE);
    uint32_t ra = map_phase_comp(p, l, x->src_task, MAP_NONE);
    uint32_t rb = map_phase_comp(p, l, MAP_NONE, v);
    if (before == 1 && rb != MAP_NONE && rb != ra)
        before = comp_fits(p, c, l, lp, MAP_NONE, v);
    if (before == 2) { /* asked together */
        n = map_phase_pick(p, c, l, x->src_task, v, pick);
        before = n == (size_t)-1 ? -1 : (fill_items(p, c, pick, n, lp, it), map_items_fit(it, n));
    }
    int after = -1;
    if (before == 1) { /* the walk from both, and the candidate */
        n = map_phase_pick(p, c, l, x->src_task, v, pick);
        if (n != (size_t)-1) {
            fill_items(p, c, pick, n, lp, it);
            int64_t b = map_land_bytes(p, xi);
            b = b > 0 ? b : 1;
            it[n] = (MChainItem){x->src_task, v, &c->run_box[xi], from * MAP_PART_UNIT / b,
                                 (from + bytes) * MAP_PART_UNIT / b};
            after = map_items_fit(it, n + 1);
        }
    }
    if (before < 0 || (before == 1 && after < 0)) {
        c->oom = true;
        return false;
    }
    return before == 1 && after == 0;
}

static size_t memo_slot(uint32_t xi, uint32_t v, uint32_t lp, int64_t from, int64_t bytes)
{
    uint64_t h = xi;
    h = h * 0x9E3779B97F4A7C15ull + v;
    h = h * 0x9E3779B97F4A7C15ull + lp;
    h = h * 0x9E3779B97F4A7C15ull + (uint64_t)from;
    h = h * 0x9E3779B97F4A7C15ull + (uint64_t)bytes;
    return (size_t)(h >> 40) % MEMO_SIZE;
}

bool map_xfer_chains(const MapPlan *p, MClash *c, uint32_t xi, uint32_t v, int32_t ph,
                     int64_t from, int64_t bytes)
{
    const MXfer *x = &p->xfers[xi];
    if (!c->at || x->kind != XF_CORE || c->oom)
        return false;
    if (!c->memo && !(c->memo = calloc(MEMO_SIZE, sizeof *c->memo))) {
        c->oom = true;
        return false;
    }
    uint32_t lp = map_local(p, ph);
    MChainMemo *m = &c->memo[memo_slot(xi, v, lp, from, bytes)];
    if (m->full && m->xi == xi && m->v == v && m->lp == lp && m->from == from &&
        m->bytes == bytes && m->n == c->at[lp].n)
        return m->answer;
    bool answer = chains_break(p, c, xi, v, lp, from, bytes);
    if (!c->oom)
        *m = (MChainMemo){from, bytes, c->at[lp].n, xi, v, lp, true, answer};
    return answer;
}

/* Transfer xi, planned into its writer's own core, may change the pixel its writer sends
 * from (run_box.c): the run boxes of the writer's transfers made again, and where any
 * changed, every kept answer forgotten (they were given for the boxes before). */
static void local_copy(const MapPlan *p, MClash *c, uint32_t xi)
{
    uint32_t t = p->xfers[xi].src_task;
    bool changed = false;
    if (p->uses.blocks[p->tasks[t].pos].n_out_edges < 2)
        return; /* the pixel stays the output's (run_box.c local_unit) */
    for (uint32_t k = c->start[t]; k < c->start[t + 1]; k++) {
        uint32_t yi = c->list[k];
        MBox b;
        map_run_box(p, &p->xfers[yi], &c->box[yi], &b);
        if (memcmp(&b, &c->run_box[yi], sizeof b) != 0) {
            c->run_box[yi] = b;
            changed = true;
        }
    }
    if (!changed)
        return;
    if (c->memo)
        memset(c->memo, 0, MEMO_SIZE * sizeof *c->memo);
    for (uint32_t l = 0; l < c->n_at; l++)
        if (c->at[l].fit_n)
            memset(c->at[l].fit_n, 0, (p->n_tasks + c->at[l].cap_v) * sizeof *c->at[l].fit_n);
}

Status map_clash_note(MClash *c, const MapPlan *p, uint32_t xi)
{
    const MXfer *x = &p->xfers[xi];
    if (c->at && x->kind == XF_CORE && !x->cross && x->planned &&
        map_xfer_vcore(p, x) == map_task_vcore(p, x->src_task))
        local_copy(p, c, xi);
    if (!c->at || x->kind != XF_CORE || !x->cross)
        return ST_OK;
    for (uint32_t j = 0; j < x->n_chunks; j++) {
        const MChunk *k = &p->chunks[x->chunk0 + j];
        if (k->bytes <= 0)
            continue;
        MPhaseXfers *l = &c->at[map_local(p, k->phase)];
        if (l->n && l->list[l->n - 1] == xi)
            continue;
        if (!map_more((void **)&l->list, l->n, &l->cap, sizeof *l->list))
            return ST_RUNTIME;
        l->list[l->n++] = xi;
    }
    return ST_OK;
}

