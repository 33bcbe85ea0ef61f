/* emit_spreadheads.c: the headers a sender's parts of spread copies take in a phase
 * (docs/backend.md, "Transfers", "Parts of narrow copies under the header table").
 *
 * A spread copy's parts are cut by the room of the receive area (emit_spread.c); its rows
 * narrower than its writer's on another core go a run and a disabled header a row (the gap
 * to the next row), and the spill does not carry a spread copy's runs into a later phase
 * (emit_route_spill.c). Two such copies on two cores, each with room for all its rows in the
 * first of its phases, then took 211 headers of one sender in one phase
 * (cvm_precision_case_1__p_24_: the CCMPS op/in7/ceil.e57.f0's column slices 0..1 and 4..5
 * of 2 pixels by 53 rows into op/in7/ceil.e57.f0.out/x0 and x2, each planned over two phases
 * by the Mapping). The parts planned so far count their rows' headers per sender and phase,
 * and a part that is not its edge's last takes no more rows than leave the sender's count
 * within LANES_HEADS - LANES_CUT_HEADS: the rest goes in its edge's next phases, as the
 * mapper planned. A part whose columns of the writer's rows touch those of a part counted in
 * the same phase is not counted and not cut: the router's runs of the two join under the
 * same headers (emit_spill_merge.c joins them when the table is passed:
 * broadcast_div_case_1_variant_2, three slices of 3 columns of a 53 x 9 map). */
#include "backend/emit_internal.h"

#include "taskir/lanes.h"

#include <stdlib.h>

/* The writer of edge ed into spread copy cp when it is on another core, its rows wider
 * than cp's (a run and the gap after it a row) and the box ed takes of its result its
 * columns [*clo, *chi), with the writer's core in *sk; else -1. */
static long narrow_writer(const Emit *e, const ECopy *cp, const Edge *ed, uint32_t *sk,
                          int64_t *clo, int64_t *chi)
{
    long w = graph_block_pos(e->g, ed->src);
    if (w < 0 || cp->unit || e->core_of[w] == cp->core)
        return -1;
    const IfaceUse *u = uses_find(&e->uses, (uint32_t)w, false, ed->id);
    int32_t cd[TIR_CDIMS];
    EBox sb;
    if (!u || !blk_cluster_dims(e->g->blocks[w], false, u->cluster, cd) ||
        cd[D_X] <= cp->box.n[1] || !emit_iface_box(e, (uint32_t)w, false, ed->id, &sb))
        return -1;
    *sk = e->core_of[w];
    *clo = sb.lo[1];
    *chi = sb.lo[1] + sb.n[1];
    return w;
}

/* The headers counted for core sk's phase p; *joins: whether columns [clo, chi) of writer
 * w touch a part counted there. */
static int64_t counted(const ESpreadHeads *h, uint32_t sk, int32_t p, long w, int64_t clo,
                       int64_t chi, bool *joins)
{
    int64_t n = 0;
    *joins = false;
    for (size_t i = 0; i < h->n; i++) {
        const ESpreadHead *x = &h->v[i];
        if (x->sk != sk || x->p != p)
            continue;
        n += x->heads;
        *joins = *joins || (x->w == w && x->clo <= chi && clo <= x->chi);
    }
    return n;
}

int64_t emit_spread_heads_cap(const Emit *e, const ESpreadHeads *h, const ECopy *cp,
                              const Edge *ed, int32_t p, int64_t px)
{
    uint32_t sk = 0;
    int64_t clo = 0, chi = 0, nx = cp->box.n[1];
    long w = h ? narrow_writer(e, cp, ed, &sk, &clo, &chi) : -1;
    bool joins;
    if (w < 0 || nx <= 0)
        return px;
    int64_t avail = LANES_HEADS - LANES_CUT_HEADS - counted(h, sk, p, w, clo, chi, &joins);
    int64_t most = avail > 0 ? avail / 2 * nx : 0;
    return joins || px < most ? px : most;
}

Status emit_spread_heads_add(Emit *e, ESpreadHeads *h, const ECopy *cp, const Edge *ed,
                             int32_t p, int64_t px)
{
    uint32_t sk = 0;
    int64_t clo = 0, chi = 0, nx = cp->box.n[1];
    long w = h ? narrow_writer(e, cp, ed, &sk, &clo, &chi) : -1;
    bool joins;
    if (w < 0 || nx <= 0 || px <= 0)
        return ST_OK;
    counted(h, sk, p, w, clo, chi, &joins);
    ESpreadHead *v = emit_grow(e, h->v, &h->cap, h->n, sizeof *h->v);
    if (!v)
        return ST_RUNTIME;
    h->v = v;
    h->v[h->n++] = (ESpreadHead){sk, p, w, clo, chi, joins ? 0 : (px + nx - 1) / nx * 2};
    return ST_OK;
}
