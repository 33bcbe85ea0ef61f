/* chain_fit.c: whether a phase's sets of cores can all be relaying chains (docs/mapper.md,
 * "Transfers"). A core forwards every relayed packet of a phase to one next core, so the
 * chains of a phase form trees and every chain ends on its tree's root: the sets whose cores
 * meet (a component) all end with the cores every one of them reaches, and what is left of
 * them, without those, forms components again, each ending on the tail after it. This is the
 * code generator's plan (backend/emit_chain_plan.c) without the orders and addresses: a
 * component whose sets share no core is what it refuses [emit.route].
 */
#include "mapper/chain_fit.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct Fit {
    uint32_t *c;   /* the sets' cores, dense ids; set i at beg[i], its len[i] first kept */
    size_t *beg, *len;
    size_t *root;  /* per set: union-find over the sets of a level */
    int64_t *seen; /* per core: the set that has it (-1: none) */
    size_t *cnt;   /* per core: the sets of a component that have it */
} Fit;

static size_t find(size_t *root, size_t r)
{
    while (root[r] != r)
        r = root[r] = root[root[r]];
    return r;
}

static int level(Fit *f, const size_t *rs, size_t nr);

/* One component comp[0..nc): its shared tail off every set, then what is left. */
static int component(Fit *f, const size_t *comp, size_t nc)
{
    for (size_t a = 0; a < nc; a++)
        for (size_t t = 0; t < f->len[comp[a]]; t++)
            f->cnt[f->c[f->beg[comp[a]] + t]]++;
    size_t r0 = comp[0], nt = 0;
    uint32_t *tail = malloc(f->len[r0] * sizeof *tail);
    size_t *rest = malloc(nc * sizeof *rest), nrest = 0;
    for (size_t t = 0; tail && t < f->len[r0]; t++)
        if (f->cnt[f->c[f->beg[r0] + t]] == nc)
            tail[nt++] = f->c[f->beg[r0] + t];
    for (size_t a = 0; tail && rest && nt && a < nc; a++) { /* the tail off each set */
        size_t r = comp[a], kept = 0;
        uint32_t *o = f->c + f->beg[r];
        for (size_t t = 0; t < f->len[r]; t++)
            if (f->cnt[o[t]] != nc)
                o[kept++] = o[t];
        f->len[r] = kept;
        if (kept)
            rest[nrest++] = r;
    }
    for (size_t a = 0; a < nc; a++) /* the counts cleared: what is left, then the tail */
        for (size_t t = 0; t < f->len[comp[a]]; t++)
            f->cnt[f->c[f->beg[comp[a]] + t]] = 0;
    for (size_t i = 0; i < nt; i++)
        f->cnt[tail[i]] = 0;
    int ok = !tail || !rest ? -1 : !nt ? 0 : nrest ? level(f, rest, nrest) : 1;
    free(tail);
    free(rest);
    return ok;
}

static int level(Fit *f, const size_t *rs, size_t nr)
{
    for (size_t a = 0; a < nr; a++)
        f->root[rs[a]] = rs[a];
    for (size_t a = 0; a < nr; a++)
        for (size_t t = 0; t < f->len[rs[a]]; t++) {
            uint32_t c = f->c[f->beg[rs[a]] + t];
            if (f->seen[c] < 0)
                f->seen[c] = (int64_t)rs[a];
            else
                f->root[find(f->root, rs[a])] = find(f->root, (size_t)f->seen[c]);
        }
    for (size_t a = 0; a < nr; a++)
        for (size_t t = 0; t < f->len[rs[a]]; t++)
            f->seen[f->c[f->beg[rs[a]] + t]] = -1;
    size_t *comp = malloc(nr * sizeof *comp);
    bool *done = calloc(nr, sizeof *done);
    int ok = comp && done ? 1 : -1;
    for (size_t a = 0; ok == 1 && a < nr; a++) {
        if (done[a])
            continue;
        size_t nc = 0, ra = find(f->root, rs[a]);
        for (size_t b = a; b < nr; b++)
            if (!done[b] && find(f->root, rs[b]) == ra) {
                done[b] = true;
                comp[nc++] = rs[b];
            }
        ok = component(f, comp, nc);
    }
    free(comp);
    free(done);
    return ok;
}

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

int map_chain_fit(const uint32_t *cores, const size_t *off, size_t n_sets)
{
    size_t total = off[n_sets];
    if (!n_sets || !total)
        return 1;
    Fit f = {0};
    uint32_t *ids = malloc(total * sizeof *ids);
    size_t *all = malloc(n_sets * sizeof *all);
    f.c = malloc(total * sizeof *f.c);
    f.beg = malloc(n_sets * sizeof *f.beg);
    f.len = malloc(n_sets * sizeof *f.len);
    f.root = malloc(n_sets * sizeof *f.root);
    f.seen = malloc(total * sizeof *f.seen);
    f.cnt = calloc(total, sizeof *f.cnt);
    int ok = ids && all && f.c && f.beg && f.len && f.root && f.seen && f.cnt ? 1 : -1;
    if (ok == 1) {
        memcpy(ids, cores + off[0], total * sizeof *ids);
        qsort(ids, total, sizeof *ids, u32_cmp);
        size_t m = 0; /* the distinct cores: dense ids 0..m */
        for (size_t i = 0; i < total; i++)
            if (!m || ids[i] != ids[m - 1])
                ids[m++] = ids[i];
        for (size_t i = 0; i < total; i++) {
            const uint32_t *at = bsearch(&cores[off[0] + i], ids, m, sizeof *ids, u32_cmp);
            f.c[i] = (uint32_t)(at - ids);
            f.seen[i] = -1;
        }
        size_t n = 0;
        for (size_t r = 0; r < n_sets; r++) {
            f.beg[r] = off[r] - off[0];
            f.len[r] = off[r + 1] - off[r];
            if (f.len[r])
                all[n++] = r;
        }
        ok = level(&f, all, n);
    }
    free(ids);
    free(all);
    free(f.c);
    free(f.beg);
    free(f.len);
    free(f.root);
    free(f.seen);
    free(f.cnt);
    return ok;
}
