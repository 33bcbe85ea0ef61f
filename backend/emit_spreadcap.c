/* emit_spreadcap.c: a spread copy's part ending where its writer's runs to other cores in
 * that phase begin (docs/backend.md, "Transfers", "Parts cut where other cores' runs
 * begin").
 *
 * The parts of a spread copy (emit_spread.c) fill each phase with as many pixels as the
 * receive area has room for, as the mapper fills its receive budget. Where that would make
 * the writer's runs of a phase go to sets of cores that no relaying chain carries, the
 * mapper cuts the part shorter (mapper/xfer_cap.c: ResNet-50's `layer3_1_clip` row y8, all
 * its channels to `layer3_2_add`'s core, a channel half to each piece of `layer3_2_conv1`,
 * whose parts take the row's last pixels in the same phase): the part then ends where the
 * pieces' runs of that phase begin, the rest in a later phase. The Mapping gives a spread
 * transfer's phases, not each phase's bytes, so the code generator finds the cut again:
 * when a relaying chain of a phase is refused for want of a core all its sets share
 * (emit_chain_plan.c), the spread copies its runs reach are recorded (EPinCap) and the
 * emitter runs again (emit.c); this time, in that phase, if it is not the edge's last, each
 * recorded copy's part ends before the first pixel past its start that the same writer
 * sends there to a copy of another box of its result (other channels or pixels) on another
 * core. Those copies are planned first (emit_spreads keeps each core's order: the room of
 * a phase is its core's), so their parts are known. A part no chain refused is cut as
 * before (the mapper cuts only where the chains would not fit). Only edges whose boxes keep
 * their extents (no reshaping steps) and copies cut into whole pixels are looked at.
 */
#include "backend/emit_internal.h"

#include <string.h>

/* Edge ed's box into storage pos (d) and out of its writer (s), when the two have the same
 * extents (a box placed as it is, at an offset); false otherwise. */
static bool edge_boxes(const Emit *e, uint32_t pos, const Edge *ed, EBox *d, EBox *s)
{
    long w = graph_block_pos(e->g, ed->src);
    if (w < 0 || !emit_iface_box(e, pos, true, ed->id, d) ||
        !emit_iface_box(e, (uint32_t)w, false, ed->id, s))
        return false;
    for (int i = 0; i < 3; i++)
        if (d->n[i] != s->n[i])
            return false;
    return true;
}

static bool same_box(const EBox *a, const EBox *b)
{
    return memcmp(a->lo, b->lo, sizeof a->lo) == 0 && memcmp(a->n, b->n, sizeof a->n) == 0;
}

/* The box b (storage coordinates of an edge whose boxes are d and s) in the writer's. */
static void to_writer(EBox *b, const EBox *d, const EBox *s, int sign)
{
    for (int i = 0; i < 3; i++)
        b->lo[i] += sign * (s->lo[i] - d->lo[i]);
}

/* The first pixel of spread copy cp (in its C order) that run [a, a + nq) of copy c2 (its
 * edge ed2 from the writer, boxes d2 and s2) meets, through the writer's result (cp's edge:
 * boxes d and s); -1 when none. */
static int64_t first_met(const ECopy *cp, const EBox *d, const EBox *s, const ECopy *c2,
                         const EBox *d2, const EBox *s2, int64_t a, int64_t nq)
{
    int64_t nx2 = c2->box.n[1], best = -1;
    for (int64_t y = a / nx2; y * nx2 < a + nq; y++) {
        int64_t x0 = a > y * nx2 ? a - y * nx2 : 0;
        int64_t x1 = a + nq < (y + 1) * nx2 ? a + nq - y * nx2 : nx2;
        EBox r = c2->box, m, m2;
        r.lo[0] += y;
        r.n[0] = 1;
        r.lo[1] += x0;
        r.n[1] = x1 - x0;
        if (!emit_box_meet(&r, d2, &m))
            continue;
        to_writer(&m, d2, s2, 1);
        to_writer(&m, d, s, -1);
        if (!emit_box_meet(&m, d, &m2) || !emit_box_meet(&m2, &cp->box, &m))
            continue;
        int64_t q = (m.lo[0] - cp->box.lo[0]) * cp->box.n[1] + m.lo[1] - cp->box.lo[1];
        if (best < 0 || q < best)
            best = q;
    }
    return best;
}

/* Whether an earlier pass recorded spread copy cp's part of phase p (any phase: p < 0). */
static bool recorded(const Emit *e, const ECopy *cp, int32_t p)
{
    for (size_t i = 0; i < emit_pins_n(e, EPIN_CAP); i++) {
        const EPinCap *c = emit_pin_at(e, EPIN_CAP, i);
        if (c->k == cp->core && c->pos == cp->block && (p < 0 || c->p == p))
            return true;
    }
    return false;
}

Status emit_spread_cap_hint(Emit *e, int32_t p, const ESend *s)
{
    long pos = graph_block_pos(e->g, s->block);
    const ECopy *cp = pos < 0 ? NULL : emit_copy_on(e, (uint32_t)pos, s->dst_core);
    if (!e->pins || !cp || !cp->spread || recorded(e, cp, p))
        return ST_OK;
    return emit_pin_add(e, EPIN_CAP, &(EPinCap){s->dst_core, (uint32_t)pos, p}, 1);
}

int64_t emit_spread_cap(const Emit *e, const ECopy *cp, const Edge *ed, int32_t p, int64_t q,
                        int64_t px)
{
    EBox d, s;
    if (cp->unit || px <= 1 || !recorded(e, cp, p) || !edge_boxes(e, cp->block, ed, &d, &s))
        return px;
    int64_t end = q + px;
    for (size_t i = 0; i < e->n_parts; i++) {
        const EPart *pt = &e->parts[i];
        if (pt->phase != p || pt->core == cp->core)
            continue;
        for (int r = 0; r < 2; r++) {
            const ECopy *c2 = &e->copies[pt->copy[r]];
            if (pt->nq[r] <= 0 || c2->unit)
                continue;
            const BlockUses *bu = &e->uses.blocks[c2->block];
            for (uint32_t j = 0; j < bu->n_in_edges; j++) {
                const Edge *ed2 = e->g->edges[bu->in_edges[j]];
                EBox d2, s2;
                if (ed2->src != ed->src || !edge_boxes(e, c2->block, ed2, &d2, &s2) ||
                    same_box(&s2, &s))
                    continue; /* another writer's, or the same box */
                int64_t f = first_met(cp, &d, &s, c2, &d2, &s2, pt->q0[r], pt->nq[r]);
                if (f > q && f < end)
                    end = f;
            }
        }
    }
    return end - q;
}

/* Whether edge ed2 into spread copy c2 lands on c2's core in one of the phases ph[0..n). */
static bool lands_in(const Emit *e, const ECopy *c2, const Edge *ed2, const int32_t *ph,
                     uint32_t n, int32_t *tmp)
{
    uint32_t m = emit_arrival_phases(e, emit_edge_dict(e, ed2->id), c2->core, tmp);
    for (uint32_t i = 0; i < m; i++)
        for (uint32_t j = 0; j < n; j++)
            if (tmp[i] == ph[j])
                return true;
    return false;
}

/* Whether writer edge ed's other edges reach a spread copy not planned yet (done) on another
 * core, of another box of the writer's result that meets ed's (s), landing in one of the
 * phases ph[0..n). */
static bool other_waits(const Emit *e, const ECopy *a, const Edge *ed, const EBox *s,
                        const uint8_t *done, const int32_t *ph, uint32_t n, int32_t *tmp)
{
    long w = graph_block_pos(e->g, ed->src);
    const BlockUses *wu = &e->uses.blocks[w];
    for (uint32_t j = 0; j < wu->n_out_edges; j++) {
        const Edge *ed2 = e->g->edges[wu->out_edges[j]];
        long t = graph_block_pos(e->g, ed2->dst);
        if (t < 0)
            continue;
        for (uint32_t c = 0; c < e->n_copy[t]; c++) {
            uint32_t ci = e->first_copy[t] + c;
            const ECopy *c2 = &e->copies[ci];
            EBox d2, s2, m;
            if (!c2->spread || done[ci] || c2->core == a->core ||
                !edge_boxes(e, c2->block, ed2, &d2, &s2) || !emit_box_meet(&s2, s, &m) ||
                same_box(&s2, s))
                continue;
            if (lands_in(e, c2, ed2, ph, n, tmp))
                return true;
        }
    }
    return false;
}

bool emit_spread_waits(const Emit *e, const ECopy *a, int32_t reader, const uint8_t *done,
                       int32_t *ph, int32_t *tmp)
{
    const BlockUses *bu = &e->uses.blocks[a->block];
    int32_t np = e->cores[a->core].n_phases;
    if (!recorded(e, a, -1))
        return false;
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const Edge *ed = e->g->edges[bu->in_edges[j]];
        long w = graph_block_pos(e->g, ed->src);
        EBox d, s;
        if (w < 0 || e->core_of[w] == a->core || !edge_boxes(e, a->block, ed, &d, &s))
            continue;
        uint32_t n = emit_arrival_phases(e, emit_edge_dict(e, ed->id), a->core, ph);
        if (n < 2)
            continue;
        /* its phases but the last in the order of time (a phase at or after the first
         * reader's comes in the step before) */
        uint32_t last = 0;
        for (uint32_t i = 1; i < n; i++)
            if ((ph[i] >= reader ? ph[i] - np : ph[i]) >
                (ph[last] >= reader ? ph[last] - np : ph[last]))
                last = i;
        ph[last] = ph[n - 1];
        if (other_waits(e, a, ed, &s, done, ph, n - 1, tmp))
            return true;
    }
    return false;
}
