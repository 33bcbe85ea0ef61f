/* edge_map.c: the element map of an edge (edge_map.h). The source box's elements are
 * numbered by their offset in the source cluster (plus one, so that the zero a step fills in
 * stays recognisable) and run through the edge's steps exactly as the simulator runs values
 * (sim_rearrange.c), so the map is what a simulated copy does. */
#include "taskir/edge_map.h"
#include "taskir/rearrange.h"
#include "taskir/sim_internal.h"

#include <stdlib.h>

int64_t cluster_offset(const int32_t cd[TIR_CDIMS], const int32_t c[TIR_CDIMS])
{
    int64_t off = 0;
    for (int i = 0; i < TIR_CDIMS; i++)
        if (cd[i] > 0)
            off = off * cd[i] + c[i];
    return off;
}

static Status oom(Diag *d, const Edge *e)
{
    return diag_edge(d, ST_RUNTIME, "oom", e->id, "out of memory");
}

/* buf[j] = 1 + the cluster offset of element j of the box (pos, box) of a cluster cd. */
static void number_box(const int32_t cd[TIR_CDIMS], const int32_t pos[TIR_CDIMS],
                       const int32_t box[TIR_CDIMS], int32_t *buf, int64_t vol)
{
    int32_t c[TIR_CDIMS];
    for (int i = 0; i < TIR_CDIMS; i++)
        c[i] = pos[i];
    for (int64_t j = 0; j < vol; j++) {
        buf[j] = (int32_t)(cluster_offset(cd, c) + 1);
        for (int i = TIR_CDIMS - 1; i >= 0; i--) {
            if (cd[i] <= 0)
                continue;
            if (++c[i] < pos[i] + (box[i] > 0 ? box[i] : 1))
                break;
            c[i] = pos[i];
        }
    }
}

Status edge_element_map(const Graph *g, const GraphUses *u, const Edge *e, int32_t *out,
                        int64_t n, Diag *d)
{
    EdgeEnds ends;
    char why[256];
    Status st = rearrange_check(g, u, e, d);
    if (st != ST_OK)
        return st;
    if (!edge_ends(g, u, e, &ends, why, sizeof why))
        return diag_edge(d, ST_LOGIC, "rearrange.ends", e->id, "%s", why);
    RaShape cur;
    ra_shape_of_box(ends.src_box, &cur);
    int64_t vol = ra_volume(&cur);
    if (vol < 0 || vol > RA_MAX_ELEMS)
        return diag_edge(d, ST_LOGIC, "rearrange.volume", e->id,
                         "the source box holds more than 2^28 elements");
    int32_t *buf = malloc((size_t)(vol ? vol : 1) * sizeof *buf);
    if (!buf)
        return oom(d, e);
    number_box(ends.src_cdims, ends.src_pos, ends.src_box, buf, vol);
    for (uint32_t k = 0; k < e->n_re; k++) {
        RaStep rs;
        if (!ra_decode(&e->re[k], &cur, &rs, why, sizeof why)) { /* rearrange_check passed */
            free(buf);
            return diag_edge(d, ST_RUNTIME, "internal", e->id, "step %u: %s", k, why);
        }
        int64_t ov = ra_volume(&rs.out);
        int32_t *nb = ov >= 0 && ov <= RA_MAX_ELEMS ? malloc((size_t)(ov ? ov : 1) * sizeof *nb)
                                                    : NULL;
        if (!nb) {
            free(buf);
            return ov >= 0 && ov <= RA_MAX_ELEMS
                       ? oom(d, e)
                       : diag_edge(d, ST_LOGIC, "rearrange.volume", e->id,
                                   "step %u makes more than 2^28 elements", k);
        }
        sim_rearrange_apply(&rs, buf, nb);
        free(buf);
        buf = nb;
        cur = rs.out;
        vol = ov;
    }
    if (vol != n) {
        free(buf);
        return diag_edge(d, ST_LOGIC, "rearrange.volume", e->id,
                         "the steps make %lld elements, the destination box holds %lld",
                         (long long)vol, (long long)n);
    }
    for (int64_t i = 0; i < n; i++)
        out[i] = buf[i] - 1;
    free(buf);
    return ST_OK;
}
