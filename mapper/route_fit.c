/* route_fit.c: relays that keep each phase's relaying chains possible (docs/mapper.md,
 * "Routing"; docs/backend.md, "Relays", "One run to several cores").
 *
 * route.c lets a destination that holds a box from an earlier phase forward it from its
 * copy: the code generator then writes that core's own sends, so the multicast set's cores
 * of that phase are cut in two, those the writer's chain reaches and those the relay's
 * reaches. Where another writer's chain reaches cores of both (ResNet-50: a row to the five
 * pieces of a convolution, beside another row sent to two of them by its writer and to the
 * other two by a core that held it), the phase has sets no chain order carries (chain_fit.c,
 * [emit.route]). So once routed, the sets of each local phase are made as the code generator
 * will send them (chain_sets.c; the sender of a transfer: its writer, or the first relay up
 * its chain that forwards from its copy), and in a phase whose sets do not fit, such relays
 * are dropped one by one (the writer sends, as for a set without a relay) until they fit or
 * none is left; then the phases again, until no relay changes.
 */
#include "mapper/chain_sets.h"

#include <stdlib.h>
#include <string.h>

/* The sender of transfer xi: its writer's task, or n_tasks + the transfer whose core
 * forwards it from its copy. *hold: that transfer (MAP_NONE for the writer). */
static uint32_t sender(const MapPlan *p, uint32_t xi, uint32_t *hold)
{
    const MXfer *y = &p->xfers[xi];
    for (uint32_t hop = 0; y->relay != MAP_NONE && hop < p->n_xfers; hop++) {
        const MXfer *r = &p->xfers[y->relay];
        if (!map_xfer_same_chunks(p, r, y)) {
            *hold = xi;
            return p->n_tasks + y->relay;
        }
        xi = y->relay;
        y = r;
    }
    *hold = MAP_NONE;
    return p->xfers[xi].src_task;
}

typedef struct Fit {
    MapPlan *p;
    MBox *box;        /* per transfer: its box of the writer's result */
    uint32_t *start;  /* per local phase l: its transfers list[start[l] .. start[l + 1]) */
    uint32_t *list;
    MChainItem *it;
} Fit;

/* The phase's items; 1 when they fit, 0 when not, -1 out of memory. */
static int phase_fits(Fit *f, uint32_t l)
{
    MapPlan *p = f->p;
    size_t n = 0;
    for (uint32_t k = f->start[l]; k < f->start[l + 1]; k++) {
        uint32_t xi = f->list[k], hold;
        const MXfer *x = &p->xfers[xi];
        MChainItem *t = &f->it[n++];
        t->key = sender(p, xi, &hold);
        t->v = p->vcores[map_xfer_vcore(p, x)].core;
        t->box = &f->box[xi];
        map_xfer_share(p, x, l, &t->lo, &t->hi);
    }
    return map_items_fit(f->it, n);
}

/* Drops the relays from a copy of phase l's transfers one by one until its sets fit;
 * *changed when it dropped any. */
static int fix_phase(Fit *f, uint32_t l, bool *changed)
{
    MapPlan *p = f->p;
    int ok = phase_fits(f, l);
    for (uint32_t k = f->start[l]; ok == 0 && k < f->start[l + 1]; k++) {
        uint32_t hold;
        sender(p, f->list[k], &hold);
        if (hold == MAP_NONE)
            continue;
        MXfer *x = &p->xfers[hold];
        x->relay = MAP_NONE; /* its writer sends it */
        x->hops = map_hops(p, p->vcores[map_task_vcore(p, x->src_task)].core,
                           p->vcores[map_xfer_vcore(p, x)].core);
        *changed = true;
        ok = phase_fits(f, l);
    }
    return ok;
}

Status map_route_fit(MapPlan *p, Diag *d)
{
    uint32_t M = p->chip->max_phases ? p->chip->max_phases : 1;
    Fit f = {.p = p};
    f.box = malloc((p->n_xfers ? p->n_xfers : 1) * sizeof *f.box);
    f.start = calloc((size_t)M + 1, sizeof *f.start);
    for (uint32_t pass = 0; pass < 2 && f.box && f.start; pass++) { /* count, then fill */
        uint32_t *at = pass ? malloc(((size_t)M + 1) * sizeof *at) : NULL;
        if (pass && !at)
            break;
        if (pass) {
            for (uint32_t l = 0; l < M; l++)
                f.start[l + 1] += f.start[l];
            memcpy(at, f.start, ((size_t)M + 1) * sizeof *at);
            f.list = malloc((f.start[M] ? f.start[M] : 1) * sizeof *f.list);
            f.it = malloc((f.start[M] ? f.start[M] : 1) * sizeof *f.it);
            if (!f.list || !f.it) {
                free(at);
                break;
            }
        }
        for (uint32_t i = 0; i < p->n_xfers; i++) {
            const MXfer *x = &p->xfers[i];
            if (x->kind != XF_CORE || !x->cross)
                continue;
            if (pass)
                bbox_of_iface(p->g, &p->uses, p->tasks[x->src_task].pos, false,
                              p->g->edges[x->edge]->id, &f.box[i]);
            uint32_t last = M; /* a local phase once per transfer */
            for (uint32_t j = 0; j < x->n_chunks; j++) {
                const MChunk *c = &p->chunks[x->chunk0 + j];
                uint32_t l = map_local(p, c->phase);
                if (c->bytes <= 0 || l == last)
                    continue;
                last = l;
                if (pass)
                    f.list[at[l]++] = i;
                else
                    f.start[l + 1]++;
            }
        }
        free(at);
    }
    int ok = f.box && f.start && f.list && f.it ? 1 : -1;
    for (bool changed = true; ok >= 0 && changed;) {
        changed = false;
        for (uint32_t l = 0; ok >= 0 && l < M; l++)
            ok = fix_phase(&f, l, &changed);
    }
    free(f.box);
    free(f.start);
    free(f.list);
    free(f.it);
    return ok < 0 ? diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory routing") : ST_OK;
}
