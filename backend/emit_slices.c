/* emit_slices.c: a spread copy assembled from channel or column slices (docs/backend.md,
 * "Transfers"). The pieces of a layer cut along its channels each send some channels of
 * every pixel of a copy, the pieces of one cut along x some columns of every row; when the
 * copy is larger than the receive area it moves out of the receive area part by part, a
 * P06 of whole pixels in Soma2 of each phase (emit_spread.c), so a pixel may move only once
 * all its channels are there, and a row once all its columns are. The mapper brings the
 * slices of the same rows in the same phases, the same share of each (mapper/xfer_group.c):
 * the slices of the same rows form a group, whose first slice (its lowest channels or
 * columns) the copy's parts are cut by (whole rows of the copy for column slices), and
 * every slice of the group lands its channels or columns of the part's pixels at their
 * place in the copy's pixels (the router's runs and strides, emit_route.c), so the part's
 * pixels are whole when its P06 moves them. Two column slices of all the copy's rows are
 * left to the merge of emit_merge.c, which joins their bands in Soma2 as they land. */
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
    if (d.lo[1] > cp->box.lo[1] || d.lo[1] + d.n[1] < cp->box.lo[1] + cp->box.n[1]) {
        if (!all_c)
            return -1;
        return cp->box.n[0] == 1 || d.n[0] == 1 ? 0 : 2; /* some columns of one row: a
                                                            pixel run; of rows: a slice */
    }
    return all_c ? 0 : 1;
}

/* Edge ed's box met with copy cp's along dim i (0 rows, 1 columns, 2 channels): [*a, *b). */
static void meet_dim(const EBox *d, const ECopy *cp, int i, int64_t *a, int64_t *b)
{
    *a = d->lo[i] > cp->box.lo[i] ? d->lo[i] : cp->box.lo[i];
    *b = d->lo[i] + d->n[i] < cp->box.lo[i] + cp->box.n[i] ? d->lo[i] + d->n[i]
                                                            : cp->box.lo[i] + cp->box.n[i];
}

/* Edge ed's box met with copy cp's: rows y0 .. y1, and c0 .. c1 along the dim its slices
 * cut (slice kind 1: channels, 2: columns). */
static bool met(const Emit *e, const ECopy *cp, const Edge *ed, int kind, int64_t *y0,
                int64_t *y1, int64_t *c0, int64_t *c1)
{
    EBox d;
    if (!emit_iface_box(e, cp->block, true, ed->id, &d))
        return false;
    meet_dim(&d, cp, 0, y0, y1);
    meet_dim(&d, cp, kind == 2 ? 1 : 2, c0, c1);
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

/* What edge ed brings of cp's block when it is a slice from another core: its slice kind
 * (1 channels, 2 columns), else 0. */
static int remote_slice(const Emit *e, const ECopy *cp, const Edge *ed)
{
    long w = graph_block_pos(e->g, ed->src);
    int kind = w >= 0 && e->core_of[w] != cp->core ? emit_slice_kind(e, cp, ed) : 0;
    return kind > 0 ? kind : 0;
}

bool emit_slices_ok(const Emit *e, const ECopy *cp)
{
    const BlockUses *bu = &e->uses.blocks[cp->block];
    int32_t pa[SLICE_PHASES], pb[SLICE_PHASES];
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const Edge *a = e->g->edges[bu->in_edges[j]];
        int kind = remote_slice(e, cp, a);
        int64_t y0, y1, c0, c1;
        if (!kind || !met(e, cp, a, kind, &y0, &y1, &c0, &c1))
            continue;
        int na = phases_of(e, cp, a, pa);
        if (na <= 0)
            return false;
        /* the slices of the same rows: of one kind, the same phases, channels (columns)
         * that tile the copy's */
        int64_t width = 0;
        int n = 0;
        for (uint32_t i = 0; i < bu->n_in_edges; i++) {
            const Edge *b = e->g->edges[bu->in_edges[i]];
            int64_t z0, z1, d0, d1;
            if (!met(e, cp, b, kind, &z0, &z1, &d0, &d1) || z1 <= y0 || z0 >= y1)
                continue;
            if (z0 != y0 || z1 != y1 || remote_slice(e, cp, b) != kind)
                return false; /* other rows across them, the rows whole, or other slices */
            if (i != j && d0 < c1 && c0 < d1)
                return false; /* channels (columns) twice */
            width += d1 - d0;
            n++;
            if (phases_of(e, cp, b, pb) != na)
                return false;
            for (int k = 0; k < na; k++)
                if (pa[k] != pb[k])
                    return false;
        }
        if (width != cp->box.n[kind == 2 ? 1 : 2])
            return false;
    }
    return true;
}

bool emit_slice_follower(const Emit *e, const ECopy *cp, const Edge *ed)
{
    int kind = remote_slice(e, cp, ed);
    int64_t y0, y1, c0, c1;
    if (!kind || !met(e, cp, ed, kind, &y0, &y1, &c0, &c1))
        return false;
    const BlockUses *bu = &e->uses.blocks[cp->block];
    for (uint32_t i = 0; i < bu->n_in_edges; i++) {
        const Edge *b = e->g->edges[bu->in_edges[i]];
        int64_t z0, z1, d0, d1;
        if (b != ed && remote_slice(e, cp, b) == kind &&
            met(e, cp, b, kind, &z0, &z1, &d0, &d1) && z0 == y0 && z1 == y1 && d0 < c0)
            return true;
    }
    return false;
}
