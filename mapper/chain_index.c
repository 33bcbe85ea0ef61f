/* chain_index.c: a local phase's planned transfers indexed by writer and by receiving core
 * (docs/mapper.md, "Transfers"), for the chains' check (xfer_chain.c), which looks only at
 * the transfers whose writers and cores meet the candidate's, through shared writers and
 * cores, and so on: it walks the index from the candidate's writer and core outwards.
 *
 * The index is brought up to the phase's list as asked (its positions only grow while a
 * schedule pass runs: a planned transfer keeps its phases and its vcore). Each position
 * also joins its writer and its core into one component (union-find over writers and
 * cores), which counts its positions: the check knows how many transfers a walk would meet
 * before it walks, and walks none past its bound. The walk's marks are stamps kept across
 * checks (MClash), not arrays over every task and core allocated and cleared on each.
 */
#include "mapper/chain_index.h"

#include "mapper/chain_sets.h"

#include <stdlib.h>
#include <string.h>

static uint32_t find(uint32_t *uf, uint32_t a)
{
    while (uf[a] != a)
        a = uf[a] = uf[uf[a]];
    return a;
}

/* Grows *a (old entries of size bytes each, to n), the new ones filled with byte fill;
 * false when out of memory (*a unchanged). */
static bool grow_fill(void **a, size_t old, size_t n, size_t size, int fill)
{
    void *r = realloc(*a, n * size);
    if (!r)
        return false;
    memset((char *)r + old * size, fill, (n - old) * size);
    *a = r;
    return true;
}

/* Room in l for every task and vcore of p (twice the vcores: they grow as the schedule
 * goes). */
static bool grow_nodes(const MapPlan *p, MPhaseXfers *l)
{
    size_t nt = p->n_tasks;
    if (!l->head_t && !grow_fill((void **)&l->head_t, 0, nt ? nt : 1, sizeof *l->head_t, 0xff))
        return false;
    if (l->cap_v >= (size_t)p->n_vcores)
        return true;
    size_t cap = 2 * (size_t)p->n_vcores, old = l->uf ? nt + l->cap_v : 0;
    if (nt + cap > UINT32_MAX ||
        !grow_fill((void **)&l->head_v, l->cap_v, cap, sizeof *l->head_v, 0xff) ||
        !grow_fill((void **)&l->uf, old, nt + cap, sizeof *l->uf, 0) ||
        !grow_fill((void **)&l->cnt, old, nt + cap, sizeof *l->cnt, 0) ||
        !grow_fill((void **)&l->fit_n, old, nt + cap, sizeof *l->fit_n, 0) ||
        !grow_fill((void **)&l->fit_ok, old, nt + cap, sizeof *l->fit_ok, 0))
        return false;
    for (size_t w = old; w < nt + cap; w++)
        l->uf[w] = (uint32_t)w;
    l->cap_v = cap;
    return true;
}

bool map_phase_index(const MapPlan *p, MPhaseXfers *l)
{
    if (!grow_nodes(p, l))
        return false;
    while (l->cap_next < 2 * l->n)
        if (!map_more((void **)&l->next, l->cap_next, &l->cap_next, sizeof *l->next))
            return false;
    while (l->cap_seen < l->n)
        if (!map_more((void **)&l->seen, l->cap_seen, &l->cap_seen, sizeof *l->seen))
            return false;
    for (; l->n_idx < l->n; l->n_idx++) {
        size_t i = l->n_idx;
        const MXfer *y = &p->xfers[l->list[i]];
        uint32_t yv = map_xfer_vcore(p, y);
        l->next[2 * i] = l->head_t[y->src_task];
        l->head_t[y->src_task] = (uint32_t)i;
        l->next[2 * i + 1] = yv < p->n_vcores ? l->head_v[yv] : UINT32_MAX;
        l->seen[i] = 0;
        uint32_t a = find(l->uf, y->src_task);
        if (yv < p->n_vcores) { /* else on no core's chain */
            l->head_v[yv] = (uint32_t)i;
            uint32_t b = find(l->uf, p->n_tasks + yv);
            if (b != a) { /* the larger count stays the root */
                uint32_t lo = l->cnt[a] < l->cnt[b] ? a : b, hi = lo == a ? b : a;
                l->uf[lo] = hi;
                l->cnt[hi] += l->cnt[lo];
                a = hi;
            }
        }
        l->cnt[a]++;
    }
    return true;
}

uint32_t map_phase_comp(const MapPlan *p, MPhaseXfers *l, uint32_t t, uint32_t v)
{
    if (t < p->n_tasks)
        return find(l->uf, t);
    return v < p->n_vcores && v < l->cap_v ? find(l->uf, p->n_tasks + v) : MAP_NONE;
}

size_t map_phase_reach(const MapPlan *p, MPhaseXfers *l, uint32_t t, uint32_t v)
{
    uint32_t a = map_phase_comp(p, l, t, MAP_NONE), b = map_phase_comp(p, l, MAP_NONE, v);
    return (a != MAP_NONE ? l->cnt[a] : 0) + (b != MAP_NONE && b != a ? l->cnt[b] : 0);
}

/* A fresh stamp for a walk (the marks cleared when the stamps wrap round). */
static uint32_t new_stamp(MClash *c)
{
    if (++c->stamp == 0) {
        memset(c->mark, 0, c->cap_mark * sizeof *c->mark);
        for (uint32_t k = 0; k < c->n_at; k++)
            if (c->at[k].seen)
                memset(c->at[k].seen, 0, c->at[k].cap_seen * sizeof *c->at[k].seen);
        c->stamp = 1;
    }
    return c->stamp;
}

size_t map_phase_pick(const MapPlan *p, MClash *c, MPhaseXfers *l, uint32_t t, uint32_t v,
                      uint32_t *pick)
{
    size_t nodes = p->n_tasks + l->cap_v, want = 2 * map_phase_reach(p, l, t, v) + 2;
    if (c->cap_mark < nodes) {
        if (!grow_fill((void **)&c->mark, c->cap_mark, nodes, sizeof *c->mark, 0))
            return (size_t)-1;
        c->cap_mark = nodes;
    }
    if (c->cap_queue < want) {
        uint32_t *q = realloc(c->queue, want * sizeof *q);
        if (!q)
            return (size_t)-1;
        c->queue = q;
        c->cap_queue = want;
    }
    uint32_t s = new_stamp(c), *queue = c->queue;
    size_t n = 0, qh = 0, qt = 0;
    if (t < p->n_tasks) {
        c->mark[t] = s;
        queue[qt++] = t;
    }
    if (v < p->n_vcores) {
        c->mark[p->n_tasks + v] = s;
        queue[qt++] = p->n_tasks + v;
    }
    while (qh < qt) {
        uint32_t q = queue[qh++];
        bool by_task = q < p->n_tasks;
        uint32_t i = by_task ? l->head_t[q] : l->head_v[q - p->n_tasks];
        for (; i != UINT32_MAX; i = l->next[2 * i + !by_task]) {
            if (l->seen[i] == s)
                continue;
            l->seen[i] = s;
            const MXfer *y = &p->xfers[l->list[i]];
            uint32_t yv = map_xfer_vcore(p, y);
            pick[n++] = l->list[i];
            if (c->mark[y->src_task] != s) {
                c->mark[y->src_task] = s;
                queue[qt++] = y->src_task;
            }
            if (yv < p->n_vcores && c->mark[p->n_tasks + yv] != s) {
                c->mark[p->n_tasks + yv] = s;
                queue[qt++] = p->n_tasks + yv;
            }
        }
    }
    return n;
}
