/* emit_slices.c: a spread copy assembled from channel slices (docs/backend.md,
 * "Transfers"). The pieces of a layer cut along its channels each send some channels of
 * every pixel of a copy; when the copy is larger than the receive area it moves out of the
 * receive area part by part, a P06 of whole pixels in Soma2 of each phase (emit_spread.c),
 * so a pixel may move only once all its channels are there. The mapper brings the slices of
 * the same pixels in the same phases, the same share of each (mapper/xfer_group.c): the
 * slices of the same rows form a group, whose first slice (its lowest channels) the copy's
 * parts are cut by, and every slice of the group lands its channels of the part's pixels at
 * their place in the copy's pixels (the router's runs and strides, emit_route.c), so the
 * part's pixels are whole when its P06 moves them. */
#include "backend/emit_internal.h"

enum { SLICE_PHASES = 64 };

int emit_slice_kind(const Emit *e, const ECopy *cp, const Edge *ed)
{
    EBox d;
    if (!emit_iface_box(e, cp->block, true, ed->id, &d))
        return -1;
    for (int i = 0; i < 3; i++)
        if (d.lo[i] >= cp->box.lo[i] + cp->box.n[i] || cp->box.lo[i] >= d.lo[i] + d.n[i])
            return 0; /* misses it */
    bool all_c = d.lo[2] <= cp->box.lo[2] && d.lo[2] + d.n[2] >= cp->box.lo[2] + cp->box.n[2];
    if (d.lo[1] > cp->box.lo[1] || d.lo[1] + d.n[1] < cp->box.lo[1] + cp->box.n[1])
        return (cp->box.n[0] == 1 || d.n[0] == 1) && all_c ? 0 : -1; /* some columns of
                                                                     one row: a pixel run */
    return all_c ? 0 : 1;
}

/* Edge ed's box met with copy cp's (rows y0 .. y1, channels c0 .. c1). */
static bool met(const Emit *e, const ECopy *cp, const Edge *ed, int64_t *y0, int64_t *y1,
                int64_t *c0, int64_t *c1)
{
    EBox d;
    if (!emit_iface_box(e, cp->block, true, ed->id, &d))
        return false;
    *y0 = d.lo[0] > cp->box.lo[0] ? d.lo[0] : cp->box.lo[0];
    *y1 = d.lo[0] + d.n[0] < cp->box.lo[0] + cp->box.n[0] ? d.lo[0] + d.n[0]
                                                          : cp->box.lo[0] + cp->box.n[0];
    *c0 = d.lo[2] > cp->box.lo[2] ? d.lo[2] : cp->box.lo[2];
    *c1 = d.lo[2] + d.n[2] < cp->box.lo[2] + cp->box.n[2] ? d.lo[2] + d.n[2]
                                                          : cp->box.lo[2] + cp->box.n[2];
    return *y1 > *y0 && *c1 > *c0;
}

/* The sorted phases edge ed lands in on cp's core into ph (room SLICE_PHASES); their count,
 * -1 when there are more. */
static int phases_of(const Emit *e, const ECopy *cp, const Edge *ed, int32_t *ph)
{
    const MapDict *dict = emit_edge_dict(e, ed->id);
    if (dict && dict->n_coords > SLICE_PHASES)
        return -1;
    int n = (int)emit_arrival_phases(e, dict, cp->core, ph);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && ph[j - 1] > ph[j]; j--) {
            int32_t t = ph[j];
            ph[j] = ph[j - 1];
            ph[j - 1] = t;
        }
    return n;
}

/* Whether edge in-edge j of cp's block is a slice from another core. */
static bool remote_slice(const Emit *e, const ECopy *cp, const Edge *ed)
{
    long w = graph_block_pos(e->g, ed->src);
    return w >= 0 && e->core_of[w] != cp->core && emit_slice_kind(e, cp, ed) == 1;
}

bool emit_slices_ok(const Emit *e, const ECopy *cp)
{
    const BlockUses *bu = &e->uses.blocks[cp->block];
    int32_t pa[SLICE_PHASES], pb[SLICE_PHASES];
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const Edge *a = e->g->edges[bu->in_edges[j]];
        int64_t y0, y1, c0, c1;
        if (!remote_slice(e, cp, a) || !met(e, cp, a, &y0, &y1, &c0, &c1))
            continue;
        int na = phases_of(e, cp, a, pa);
        if (na <= 0)
            return false;
        /* the slices of the same rows: the same phases, channels that tile the copy's */
        int64_t width = 0;
        for (uint32_t i = 0; i < bu->n_in_edges; i++) {
            const Edge *b = e->g->edges[bu->in_edges[i]];
            int64_t z0, z1, d0, d1;
            if (!met(e, cp, b, &z0, &z1, &d0, &d1) || z1 <= y0 || z0 >= y1)
                continue;
            if (z0 != y0 || z1 != y1 || !remote_slice(e, cp, b))
                return false; /* other rows across them, or the rows whole */
            if (i != j && d0 < c1 && c0 < d1)
                return false; /* channels twice */
            width += d1 - d0;
            if (phases_of(e, cp, b, pb) != na)
                return false;
            for (int k = 0; k < na; k++)
                if (pa[k] != pb[k])
                    return false;
        }
        if (width != cp->box.n[2])
            return false;
    }
    return true;
}

bool emit_slice_follower(const Emit *e, const ECopy *cp, const Edge *ed)
{
    int64_t y0, y1, c0, c1;
    if (!remote_slice(e, cp, ed) || !met(e, cp, ed, &y0, &y1, &c0, &c1))
        return false;
    const BlockUses *bu = &e->uses.blocks[cp->block];
    for (uint32_t i = 0; i < bu->n_in_edges; i++) {
        const Edge *b = e->g->edges[bu->in_edges[i]];
        int64_t z0, z1, d0, d1;
        if (b != ed && remote_slice(e, cp, b) && met(e, cp, b, &z0, &z1, &d0, &d1) &&
            z0 == y0 && z1 == y1 && d0 < c0)
            return true;
    }
    return false;
}
