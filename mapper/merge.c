/* merge.c: fewer cores by memory lifetimes (docs/mapper.md, "Algorithm", step 4).
 *
 * The schedule gives every cluster a core while it runs; what a core holds is then known
 * phase by phase: its static data (weights, biases, tables) all the time, every other
 * storage copy over its life on the core (lifetime.c, the MEMORY coordinates the Mapping
 * writes) and a block's output buffer in the block's phase, the memory the verifier counts
 * (docs/rules.md, map.mem.core). Two virtual cores of one stage (one phase group) become one
 * when, in every phase, their slots are disjoint, their receives fit the receive budget
 * together, their memory fits the core's budget together and their routers' sends can go
 * as one router's (merge_router.h: no runs of bytes beside a part of words a header cannot
 * carry as bytes), and when they exchange no bytes and hold no copy of the same storage
 * block (so nothing about their transfers, lives or parts changes: the merged core does
 * exactly what the two did).
 * Only when the plan needs more cores than the description's chip array has: merging pulls
 * unrelated work onto one core, which costs traffic (ResNet-50: 9 % more byte x hops for 26 %
 * fewer cores), so a plan that fits keeps a core per cluster set. Which core: in the order
 * the schedule made them, each core joins, among the kept cores near it in a sketch placement
 * (Scotch on the cores before merging, place.c) that it fits, the one where its own
 * transfers would cost least in the sketch (its partners where their kept cores are), the
 * nearest on a tie, else stays; the result is deterministic. Joining the nearest core
 * instead pulled a core two ways (ResNet-50, seed 1: 336.3 M byte x hops against plain
 * Scotch's 388.9 M, 0.865x; choosing by cost 298.0 M against 366.2 M, 0.814x).
 * How far: merging without a limit gives the fewest cores, hence the chips the plan needs
 * (place.c's array for that many cores); then the shortest reach (1, 2, 3, 4, 6 or 8 hops in
 * the sketch, else none) whose merging needs no more chips is kept, so the chips are used to
 * their cores and work is pulled together only from nearby (ResNet-50: 2330 cores at a
 * reach of 2 instead of 1925 on the same 15 chips).
 * Afterwards a core's mem_data is its peak over the phases (what the
 * estimates and the report show), no longer the sum.
 */
#include "mapper/merge_router.h"
#include "mapper/plan.h"

#include <stdlib.h>
#include <string.h>

typedef struct Merge {
    MapPlan *p;
    uint32_t nv, L, M;
    int64_t *prof;        /* nv x L: data bytes per local phase */
    uint32_t *root;       /* per vcore: the vcore it was merged into (itself when kept) */
    uint32_t *adj_start;  /* nv + 1: partners (vcores exchanging bytes), original ids */
    uint32_t *adj;
    int64_t *adj_bytes;   /* per entry of adj: the bytes of that transfer */
    uint32_t *st_start;   /* nv + 1: the storage blocks each vcore holds a copy of */
    uint32_t *st;
    uint8_t *sends;       /* nv x M: what each vcore's router sends (merge_router.h) */
} Merge;

static uint32_t find(uint32_t *root, uint32_t v)
{
    while (root[v] != v) {
        root[v] = root[root[v]];
        v = root[v];
    }
    return v;
}

/* The per-phase data of every vcore, as the verifier counts it (each copy its part): a
 * compute block's output buffer from its phase to the last phase its core sends from it
 * (map_buffer_life), its working areas in its phase. false: out of memory. */
static bool profiles(Merge *m)
{
    MapPlan *p = m->p;
    for (uint32_t pos = 0; pos < p->g->n_blocks; pos++)
        for (uint32_t r = 0; r < p->rep_n[pos]; r++) {
            uint32_t e = p->rep_first[pos] + r;
            uint32_t v = p->clusters[p->reps[e]].vcore;
            if (map_is_static(p->g->blocks[pos], &p->uses.blocks[pos]) || v == MAP_NONE)
                continue; /* static: in mem_weight, every phase */
            uint32_t first, last;
            map_lifetime(p, pos, v, &first, &last);
            for (uint32_t l = first; l <= last && l < m->L; l++)
                m->prof[(size_t)v * m->L + l] += p->rep_bytes[e];
        }
    int32_t *send = map_last_sends(p);
    if (!send)
        return false;
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        int64_t *row = m->prof + (size_t)map_task_vcore(p, t) * m->L;
        uint32_t l = map_local(p, p->tasks[t].phase);
        if (p->tasks[t].work_bytes && l < m->L)
            row[l] += p->tasks[t].work_bytes;
        uint32_t first, last;
        if (!p->tasks[t].remote_out || !p->tasks[t].out_bytes)
            continue;
        map_buffer_life(p, t, send[t], &first, &last);
        for (uint32_t k = first; k <= last && k < m->L; k++)
            row[k] += p->tasks[t].out_bytes;
    }
    free(send);
    return true;
}

/* Lists per vcore (CSR): partners from the cross transfers, storage blocks from the copies. */
static bool lists(Merge *m)
{
    MapPlan *p = m->p;
    uint32_t nv = m->nv;
    m->adj_start = calloc((size_t)nv + 2, sizeof *m->adj_start);
    m->st_start = calloc((size_t)nv + 2, sizeof *m->st_start);
    if (!m->adj_start || !m->st_start)
        return false;
    size_t na = 0, ns = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < p->n_xfers; i++) {
            const MXfer *x = &p->xfers[i];
            if (!x->cross)
                continue;
            uint32_t a = map_task_vcore(p, x->src_task), b = map_xfer_vcore(p, x);
            if (pass == 0) {
                m->adj_start[a + 2]++;
                m->adj_start[b + 2]++;
            } else {
                m->adj_bytes[m->adj_start[a + 1]] = x->bytes;
                m->adj[m->adj_start[a + 1]++] = b;
                m->adj_bytes[m->adj_start[b + 1]] = x->bytes;
                m->adj[m->adj_start[b + 1]++] = a;
            }
        }
        for (uint32_t pos = 0; pos < p->g->n_blocks; pos++)
            for (uint32_t r = 0; r < p->rep_n[pos]; r++) {
                uint32_t v = p->clusters[p->reps[p->rep_first[pos] + r]].vcore;
                if (v == MAP_NONE)
                    continue;
                if (pass == 0)
                    m->st_start[v + 2]++;
                else
                    m->st[m->st_start[v + 1]++] = pos;
            }
        if (pass == 0) {
            for (uint32_t v = 0; v < nv; v++) {
                m->adj_start[v + 2] += m->adj_start[v + 1];
                m->st_start[v + 2] += m->st_start[v + 1];
            }
            na = m->adj_start[nv + 1];
            ns = m->st_start[nv + 1];
            m->adj = malloc((na ? na : 1) * sizeof *m->adj);
            m->adj_bytes = malloc((na ? na : 1) * sizeof *m->adj_bytes);
            m->st = malloc((ns ? ns : 1) * sizeof *m->st);
            if (!m->adj || !m->adj_bytes || !m->st)
                return false;
        }
    }
    return true;
}

/* Can b (never merged into yet) join a (kept)? */
static bool fits(Merge *m, uint32_t a, uint32_t b)
{
    MapPlan *p = m->p;
    const VCore *A = &p->vcores[a], *B = &p->vcores[b];
    if (A->stage != B->stage)
        return false;
    int64_t per_phase = p->chip->recv_bytes_per_phase;
    if (p->chip->dest_bytes_per_phase && p->chip->dest_bytes_per_phase < per_phase)
        per_phase = p->chip->dest_bytes_per_phase;
    for (uint32_t l = 0; l < m->M; l++)
        if ((A->slots[l] & B->slots[l]) || A->recv[l] + B->recv[l] > per_phase ||
            map_router_mix(m->sends[(size_t)a * m->M + l], m->sends[(size_t)b * m->M + l]))
            return false;
    int64_t stat = A->mem_weight + B->mem_weight;
    for (uint32_t l = 0; l < m->L; l++)
        if (stat + m->prof[(size_t)a * m->L + l] + m->prof[(size_t)b * m->L + l] >
            (int64_t)p->chip->core_budget_bytes)
            return false;
    for (uint32_t i = m->adj_start[b]; i < m->adj_start[b + 1]; i++)
        if (find(m->root, m->adj[i]) == a)
            return false;
    for (uint32_t i = m->st_start[b]; i < m->st_start[b + 1]; i++) {
        uint32_t pos = m->st[i];
        for (uint32_t r = 0; r < p->rep_n[pos]; r++) {
            uint32_t v = p->clusters[p->reps[p->rep_first[pos] + r]].vcore;
            if (v != MAP_NONE && v != b && find(m->root, v) == a)
                return false;
        }
    }
    return true;
}

static void join(Merge *m, uint32_t a, uint32_t b)
{
    MapPlan *p = m->p;
    VCore *A = &p->vcores[a], *B = &p->vcores[b];
    for (uint32_t l = 0; l < m->M; l++) {
        A->slots[l] |= B->slots[l];
        A->recv[l] += B->recv[l];
        m->sends[(size_t)a * m->M + l] |= m->sends[(size_t)b * m->M + l];
    }
    for (uint32_t l = 0; l < m->L; l++)
        m->prof[(size_t)a * m->L + l] += m->prof[(size_t)b * m->L + l];
    A->mem_weight += B->mem_weight;
    m->root[b] = a;
}

/* Renumbers the kept vcores 0, 1, ... in order, frees the others, points the clusters at
 * their new cores and sets every core's mem_data to its peak over the phases. */
static Status compact(Merge *m, Diag *d)
{
    MapPlan *p = m->p;
    uint32_t *idx = malloc(((size_t)m->nv + 1) * sizeof *idx);
    if (!idx)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory merging cores");
    uint32_t k = 0;
    for (uint32_t v = 0; v < m->nv; v++) {
        if (find(m->root, v) != v) {
            free(p->vcores[v].slots);
            free(p->vcores[v].recv);
            continue;
        }
        int64_t peak = 0;
        for (uint32_t l = 0; l < m->L; l++)
            if (m->prof[(size_t)v * m->L + l] > peak)
                peak = m->prof[(size_t)v * m->L + l];
        p->vcores[v].mem_data = peak;
        idx[v] = k;
        p->vcores[k++] = p->vcores[v];
    }
    for (uint32_t c = 0; c < p->n_clusters; c++)
        if (p->clusters[c].vcore != MAP_NONE)
            p->clusters[c].vcore = idx[find(m->root, p->clusters[c].vcore)];
    p->n_vcores = k;
    free(idx);
    return ST_OK;
}

/* The state the joins change (slots, receives and static bytes per vcore, the data
 * profiles), kept so that merging can start over with another reach. */
typedef struct Saved {
    uint8_t *slots, *sends;
    int64_t *recv, *weight, *prof;
} Saved;

static void saved_free(Saved *s)
{
    free(s->slots);
    free(s->sends);
    free(s->recv);
    free(s->weight);
    free(s->prof);
}

static bool save(const Merge *m, Saved *s)
{
    const MapPlan *p = m->p;
    s->slots = malloc((size_t)m->nv * m->M);
    s->sends = malloc((size_t)m->nv * m->M);
    s->recv = malloc((size_t)m->nv * m->M * sizeof *s->recv);
    s->weight = malloc((size_t)m->nv * sizeof *s->weight);
    s->prof = malloc((size_t)m->nv * m->L * sizeof *s->prof);
    if (!s->slots || !s->sends || !s->recv || !s->weight || !s->prof)
        return false;
    memcpy(s->sends, m->sends, (size_t)m->nv * m->M);
    for (uint32_t v = 0; v < m->nv; v++) {
        memcpy(s->slots + (size_t)v * m->M, p->vcores[v].slots, m->M);
        memcpy(s->recv + (size_t)v * m->M, p->vcores[v].recv, m->M * sizeof *s->recv);
        s->weight[v] = p->vcores[v].mem_weight;
    }
    memcpy(s->prof, m->prof, (size_t)m->nv * m->L * sizeof *s->prof);
    return true;
}

static void restore(Merge *m, const Saved *s)
{
    MapPlan *p = m->p;
    for (uint32_t v = 0; v < m->nv; v++) {
        memcpy(p->vcores[v].slots, s->slots + (size_t)v * m->M, m->M);
        memcpy(p->vcores[v].recv, s->recv + (size_t)v * m->M, m->M * sizeof *s->recv);
        p->vcores[v].mem_weight = s->weight[v];
        m->root[v] = v;
    }
    memcpy(m->prof, s->prof, (size_t)m->nv * m->L * sizeof *s->prof);
    memcpy(m->sends, s->sends, (size_t)m->nv * m->M);
}

/* What b's transfers cost more in the sketch (bytes x hops, each partner where its kept core
 * is) when b's work runs at core k instead of its own place. */
static int64_t pull(Merge *m, const uint32_t *sketch, uint32_t b, uint32_t k)
{
    int64_t dl = 0;
    for (uint32_t j = m->adj_start[b]; j < m->adj_start[b + 1]; j++) {
        uint32_t w = sketch[find(m->root, m->adj[j])];
        dl += m->adj_bytes[j] * (map_hops(m->p, k, w) - map_hops(m->p, sketch[b], w));
    }
    return dl;
}

/* One merging: in the order the schedule made them, each vcore joins, among the kept vcores
 * at most reach hops away in the sketch that it fits, the one where its transfers cost least
 * (pull; the nearest on a tie), else stays. Returns the vcores kept. */
static uint32_t merge_within(Merge *m, const uint32_t *sketch, uint32_t *kept, int64_t reach)
{
    MapPlan *p = m->p;
    uint32_t n_kept = 0;
    for (uint32_t b = 0; b < m->nv; b++) {
        if ((b & 255) == 0)
            tir_progress(p->opt.progress, "core", b, m->nv);
        uint32_t a = MAP_NONE;
        int64_t best = INT64_MAX, best_h = INT64_MAX;
        for (uint32_t i = 0; i < n_kept; i++) {
            int64_t h = map_hops(p, sketch[kept[i]], sketch[b]);
            if (h > reach)
                continue;
            int64_t dl = pull(m, sketch, b, sketch[kept[i]]);
            if ((dl < best || (dl == best && h < best_h)) && fits(m, kept[i], b)) {
                best = dl;
                best_h = h;
                a = kept[i];
            }
        }
        if (a != MAP_NONE)
            join(m, a, b);
        else
            kept[n_kept++] = b;
    }
    return n_kept;
}

/* The reaches tried, shortest first, before the unlimited one. */
static const int64_t REACHES[] = {1, 2, 3, 4, 6, 8};

Status map_merge_cores(MapPlan *p, Diag *d)
{
    Merge m = {.p = p, .nv = p->n_vcores, .L = p->n_phases ? p->n_phases : 1,
               .M = p->chip->max_phases ? p->chip->max_phases : 1};
    const Chip *c = p->chip;
    uint64_t per_chip = (uint64_t)c->cores_x * c->cores_y;
    uint64_t have = (uint64_t)(c->chips_x ? c->chips_x : 1) * (c->chips_y ? c->chips_y : 1) *
                    per_chip;
    if (m.nv <= have)
        return ST_OK; /* the chip array holds the plan: one cluster set a core, least traffic */
    Saved saved = {0};
    m.prof = calloc((size_t)m.nv * m.L, sizeof *m.prof);
    m.root = malloc((size_t)m.nv * sizeof *m.root);
    uint32_t *kept = malloc((size_t)m.nv * sizeof *kept);
    uint32_t *sketch = malloc((size_t)m.nv * sizeof *sketch);
    m.sends = calloc((size_t)m.nv * m.M, 1);
    Status st = ST_OK;
    if (!m.prof || !m.root || !kept || !sketch || !m.sends || !lists(&m)) {
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory merging cores");
        goto out;
    }
    if ((st = map_place_sketch(p, sketch, d)) != ST_OK)
        goto out;
    for (uint32_t v = 0; v < m.nv; v++)
        m.root[v] = v;
    map_router_sends(p, m.sends, m.M);
    if (!profiles(&m) || !save(&m, &saved)) {
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory merging cores");
        goto out;
    }
    /* as many chips as merging without limit needs, then the shortest reach that needs no
     * more: fewer joins of far-apart work, less traffic, the same chips */
    uint64_t n = merge_within(&m, sketch, kept, INT64_MAX);
    uint32_t cx, cy;
    map_grid_chips(c, n, &cx, &cy);
    uint64_t cores = (uint64_t)cx * cy * per_chip;
    size_t r = 0;
    for (; r < sizeof REACHES / sizeof *REACHES; r++) {
        restore(&m, &saved);
        if (merge_within(&m, sketch, kept, REACHES[r]) <= cores)
            break;
    }
    if (r == sizeof REACHES / sizeof *REACHES) {
        restore(&m, &saved);
        merge_within(&m, sketch, kept, INT64_MAX);
    }
    st = compact(&m, d);
out:
    saved_free(&saved);
    free(m.prof);
    free(m.root);
    free(m.adj_start);
    free(m.adj);
    free(m.adj_bytes);
    free(m.st_start);
    free(m.st);
    free(m.sends);
    free(kept);
    free(sketch);
    return st;
}
