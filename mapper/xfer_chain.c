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
#include "mapper/chain_sets.h"
#include "mapper/xfer_clash.h"

#include <stdlib.h>

/* The most transfers of the writers a check looks at (a bound on the work: the schedule
 * asks for every phase a transfer may take; past it, no phase is kept from it). */
enum { MAX_ITEMS = 64 };

/* Brings l's index (xfer_clash.h) up to its list: the positions added since, each put at
 * the head of its writer's and its vcore's chains (a planned transfer keeps its vcore); false
 * when out of memory. Rescanning the phase's transfers from p on every check cost bench/map's
 * synth seconds in cache misses. */
static bool phase_index(const MapPlan *p, MPhaseXfers *l)
{
    if (!l->head_t) {
        l->head_t = malloc((p->n_tasks ? p->n_tasks : 1) * sizeof *l->head_t);
        if (!l->head_t)
            return false;
        for (uint32_t t = 0; t < p->n_tasks; t++)
            l->head_t[t] = UINT32_MAX;
    }
    if (l->cap_v < (size_t)p->n_vcores) {
        size_t cap = 2 * (size_t)p->n_vcores;
        uint32_t *h = realloc(l->head_v, cap * sizeof *h);
        if (!h)
            return false;
        for (size_t w = l->cap_v; w < cap; w++)
            h[w] = UINT32_MAX;
        l->head_v = h;
        l->cap_v = cap;
    }
    while (l->cap_next < 2 * l->n)
        if (!map_more((void **)&l->next, l->cap_next, &l->cap_next, sizeof *l->next))
            return false;
    for (; l->n_idx < l->n; l->n_idx++) {
        size_t i = l->n_idx;
        const MXfer *y = &p->xfers[l->list[i]];
        uint32_t yv = map_xfer_vcore(p, y);
        l->next[2 * i] = l->head_t[y->src_task];
        l->head_t[y->src_task] = (uint32_t)i;
        l->next[2 * i + 1] = yv < p->n_vcores ? l->head_v[yv] : UINT32_MAX;
        if (yv < p->n_vcores) /* else on no core's chain */
            l->head_v[yv] = (uint32_t)i;
    }
    return true;
}

bool map_xfer_chains(const MapPlan *p, MClash *c, uint32_t xi, uint32_t v, int32_t ph,
                     int64_t from, int64_t bytes)
{
    const MXfer *x = &p->xfers[xi];
    if (!c->at || x->kind != XF_CORE || c->oom)
        return false;
    const MPhaseXfers *l = &c->at[map_local(p, ph)];
    /* a box of its writer's that another core gets there, meeting its: among the writer's
     * transfers (c->start), not the whole phase's */
    uint32_t lp = map_local(p, ph);
    bool other = false;
    for (uint32_t k = c->start[x->src_task]; !other && k < c->start[x->src_task + 1]; k++) {
        uint32_t yi = c->list[k];
        const MXfer *y = &p->xfers[yi];
        if (yi == xi || !y->planned || !y->cross || map_xfer_vcore(p, y) == v ||
            !map_box_meets(&c->box[xi], &c->box[yi]))
            continue;
        for (uint32_t j = 0; !other && j < y->n_chunks; j++) {
            const MChunk *ch = &p->chunks[y->chunk0 + j];
            other = ch->bytes > 0 && map_local(p, ch->phase) == lp;
        }
    }
    if (!other)
        return false;
    /* only the writers whose runs meet the candidate's, through shared cores, and so on:
     * the other components of the phase fit or not whatever it does */
    size_t n = 0;
    uint32_t *pick = malloc((l->n ? l->n : 1) * sizeof *pick);
    bool *task = calloc(p->n_tasks ? p->n_tasks : 1, sizeof *task);
    bool *core = calloc((size_t)p->n_vcores + 1, sizeof *core);
    bool *in = calloc(l->n ? l->n : 1, sizeof *in);
    MChainItem *it = malloc((l->n + 1) * sizeof *it);
    uint32_t *queue = malloc(((size_t)p->n_tasks + p->n_vcores + 2) * sizeof *queue);
    int before = -1, after = -1;
    MPhaseXfers *lw = &c->at[lp];
    bool got = pick && task && core && in && it && queue && phase_index(p, lw);
    if (got) {
        /* walked from the candidate's writer and core outwards, each transfer once */
        size_t qh = 0, qt = 0;
        task[x->src_task] = true;
        queue[qt++] = x->src_task;
        if (v < p->n_vcores) {
            core[v] = true;
            queue[qt++] = p->n_tasks + v;
        }
        while (qh < qt && n <= MAX_ITEMS) {
            uint32_t q = queue[qh++];
            bool by_task = q < p->n_tasks;
            uint32_t i = by_task ? lw->head_t[q] : lw->head_v[q - p->n_tasks];
            for (; i != UINT32_MAX && n <= MAX_ITEMS; i = lw->next[2 * i + !by_task]) {
                if (in[i])
                    continue;
                const MXfer *y = &p->xfers[l->list[i]];
                uint32_t yv = map_xfer_vcore(p, y);
                in[i] = true;
                pick[n++] = l->list[i]; /* past MAX_ITEMS: not checked */
                if (!task[y->src_task]) {
                    task[y->src_task] = true;
                    queue[qt++] = y->src_task;
                }
                if (yv < p->n_vcores && !core[yv]) {
                    core[yv] = true;
                    queue[qt++] = p->n_tasks + yv;
                }
            }
        }
    }
    free(queue);
    bool ok = got;
    if (ok && n > MAX_ITEMS)
        before = 0; /* not checked: as if it did not fit before */
    for (int pass = 0; ok && n <= MAX_ITEMS && pass < 2 && (pass == 0 || before == 1); pass++) {
        for (size_t i = 0; i < n; i++) { /* map_items_fit sorts them: filled again */
            const MXfer *y = &p->xfers[pick[i]];
            it[i] = (MChainItem){y->src_task, map_xfer_vcore(p, y), &c->box[pick[i]], 0, 0};
            map_xfer_share(p, y, map_local(p, ph), &it[i].lo, &it[i].hi);
        }
        int64_t b = x->bytes > 0 ? x->bytes : 1;
        it[n] = (MChainItem){x->src_task, v, &c->box[xi], from * MAP_PART_UNIT / b,
                             (from + bytes) * MAP_PART_UNIT / b};
        if (pass == 0)
            before = map_items_fit(it, n);
        else
            after = map_items_fit(it, n + 1);
    }
    free(pick);
    free(task);
    free(core);
    free(in);
    free(it);
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
        if (!map_more((void **)&l->list, l->n, &l->cap, sizeof *l->list))
            return ST_RUNTIME;
        l->list[l->n++] = xi;
    }
    return ST_OK;
}

