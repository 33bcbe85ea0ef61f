/* xfer_group.c: the transfers into one copy that bring channel slices of the same pixels
 * (docs/mapper.md, "Transfers"). A copy larger than the receive area moves out of it part
 * by part, each phase's part by a P06 of whole pixels in Soma2 of that phase
 * (backend/emit_spread.c): when the copy is assembled from pieces of its channels (the
 * pieces of a layer cut along f, each writing some channels of every pixel), a pixel can
 * move only once all its channels have arrived, so the schedule brings the pieces of the
 * same pixels in the same phases, the same share of them in each (schedule.c). The
 * column slices of the same rows (a layer cut along x; two or more) go so too, each phase
 * whole rows of all of them, which the code generator lands side by side and moves out in
 * Soma2 of that phase (backend/emit_slices.c); those of a copy the receive area holds too
 * (schedule.c, group_of). */
#include "mapper/plan.h"

#include <stdlib.h>
#include <string.h>

/* The part of its copy transfer xi brings: its interface box met with the copy's. */
static void xfer_box(const MapPlan *p, uint32_t xi, MBox *b)
{
    const MXfer *x = &p->xfers[xi];
    bbox_of_iface(p->g, &p->uses, x->store, true, p->g->edges[x->edge]->id, b);
    bbox_inter(b, &p->rep_box[p->rep_first[x->store] + (xi - p->xfer_of[x->edge])]);
}

/* map_xfer_group worked out from the transfers' boxes. */
static uint32_t group_of(const MapPlan *p, uint32_t xi, uint32_t *out, uint32_t room)
{
    const MXfer *x = &p->xfers[xi];
    if (x->kind != XF_CORE || !x->bytes || room < 2)
        return 0;
    uint32_t r = xi - p->xfer_of[x->edge];
    if (r >= p->rep_n[x->store])
        return 0;
    const MBox *copy = &p->rep_box[p->rep_first[x->store] + r];
    MBox mine;
    xfer_box(p, xi, &mine);
    /* the channel dim it slices: F or R, all other dims but Y whole; or X, of a copy of
     * several rows that no other core holds (its slices landing side by side row band by
     * row band, backend/emit_slices.c; a multicast slice's relaying chain would land its
     * runs at one offset on every core of the chain, compact here and strided there) */
    int c = -1;
    for (int i = 0; i < TIR_NDIMS; i++)
        if (i != D_Y && (mine.lo[i] != copy->lo[i] || mine.hi[i] != copy->hi[i])) {
            if (c >= 0 || (i != D_F && i != D_R && i != D_X))
                return 0;
            c = i;
        }
    if (c < 0 || mine.hi[c] <= mine.lo[c] ||
        (c == D_X && (p->rep_n[x->store] != 1 || copy->hi[D_Y] - copy->lo[D_Y] < 2)))
        return 0;
    /* the others into the copy with the same box but for dim c, in the order of dim c */
    const BlockUses *su = &p->uses.blocks[x->store];
    uint32_t n = 0;
    for (uint32_t j = 0; j < su->n_in_edges; j++) {
        uint32_t x0 = p->xfer_of[su->in_edges[j]];
        if (x0 == MAP_NONE || p->xfers[x0].kind != XF_CORE)
            continue;
        uint32_t xj = x0 + r;
        MBox o;
        xfer_box(p, xj, &o);
        bool same = p->xfers[xj].bytes > 0 && o.hi[c] > o.lo[c];
        for (int i = 0; i < TIR_NDIMS && same; i++)
            same = i == c || (o.lo[i] == mine.lo[i] && o.hi[i] == mine.hi[i]);
        if (!same)
            continue;
        if (n == room)
            return 0;
        uint32_t k = n++;
        for (MBox ok; k > 0; k--) { /* insertion by dim c */
            xfer_box(p, out[k - 1], &ok);
            if (ok.lo[c] <= o.lo[c])
                break;
            out[k] = out[k - 1];
        }
        out[k] = xj;
    }
    /* they must tile the copy's channels, one after another */
    int64_t at = copy->lo[c];
    for (uint32_t k = 0; k < n; k++) {
        MBox o;
        xfer_box(p, out[k], &o);
        if (o.lo[c] != at)
            return 0;
        at = o.hi[c];
    }
    return n >= 2 && at == copy->hi[c] ? n : 0;
}

Status map_xfer_groups(MapPlan *p)
{
    p->group_start = malloc(((size_t)p->n_xfers + 1) * sizeof *p->group_start);
    if (!p->group_start)
        return ST_RUNTIME;
    uint32_t m[MAP_GROUP_MAX], cap = 0, n = 0;
    for (uint32_t xi = 0; xi < p->n_xfers; xi++) {
        p->group_start[xi] = n;
        uint32_t k = group_of(p, xi, m, MAP_GROUP_MAX);
        if (!k)
            continue;
        if (k > cap - n) {
            if (n > UINT32_MAX / 4)
                return ST_RUNTIME;
            uint32_t want = 2 * (n + k) + 64;
            uint32_t *grown = realloc(p->group, (size_t)want * sizeof *grown);
            if (!grown)
                return ST_RUNTIME;
            p->group = grown;
            cap = want;
        }
        memcpy(p->group + n, m, k * sizeof *m);
        n += k;
    }
    p->group_start[p->n_xfers] = n;
    return ST_OK;
}

uint32_t map_xfer_group(const MapPlan *p, uint32_t xi, uint32_t *out, uint32_t room)
{
    if (!p->group_start || room > MAP_GROUP_MAX)
        return group_of(p, xi, out, room);
    uint32_t n = p->group_start[xi + 1] - p->group_start[xi];
    if (n > room)
        return 0; /* as group_of: more than room holds */
    if (n) /* the table is empty (NULL) when no transfer has a group */
        memcpy(out, p->group + p->group_start[xi], n * sizeof *out);
    return n;
}
