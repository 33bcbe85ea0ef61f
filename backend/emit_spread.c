/* emit_spread.c: a received copy whose transfers the Mapping spreads over several phases
 * (docs/backend.md, "Transfers", "Inserted primitives"). The mapper spreads the bytes of a
 * transfer over as many phases as the receive budget needs (12 KiB arrive in a phase), and
 * writes one ROUTER_SEND / ROUTER_RECIEVE pair a phase, without saying which bytes each
 * carries. The code generator cuts the part of every edge into whole rows of the copy: each
 * phase takes as many rows as the receive area has room for beside that phase's other
 * arrivals (the last phase the rest), as the mapper fills the phases, earliest first; the
 * copies of a core in the order their last parts land (last_arrival); a part a relaying
 * chain refused in an earlier pass ends where its writer's runs to other cores begin
 * (emit_spreadcap.c); pixels a relaying chain refused behind others of their part land
 * first in it (emit_partfirst.c). The
 * rows arriving in a phase land in a landing area of their own in the receive area, alive in
 * that phase only, and a P06 in Soma2 of that phase (after the router) moves them into the
 * copy's area in the data banks (emit_move.c), where the copy's readers find it whole from
 * the next phase on. Each edge's pixels go forwards or mirrored (its first phase taking its
 * last pixels), the first choice that makes every phase's pixels adjacent, else the first
 * that makes them two runs at most: a P26 splits such a part into its two places. The
 * spread copies of a core share the move of a phase: two copies' runs in one phase land
 * back to back, and the P26 splits them into the two copies; a third copy's runs land as a
 * part of their own, moved by a second P06 or P26 in the other Soma slot after the router
 * (Soma1 of the next phase). A copy received whole in one
 * phase, which a P06 of its own would move out of the receive area in Soma2 of that phase
 * (emit_plan.c), joins the part of a spread copy that takes that slot as its second run
 * (emit_joins_part): the P26 moves both.
 *
 * A copy over the receive area is planned so too when each transfer into it arrives in one
 * phase, or when writers on its own core write their rows of it straight: its received rows
 * part by part, beside theirs; rows its own core's router gathers from a writer there
 * (EOut.gather) arrive in that router's phase like the others (arrivals_of). Another copy that
 * a writer on its own core writes part of, or one whose parts are not whole rows of it (all
 * its columns and channels: one move a phase) or channel or column slices of rows that
 * arrive together (emit_slices.c), is not spread: it lives in the receive area
 * from its first arrival, as any received copy (emit_plan.c), and each transfer goes whole
 * in its first phase. The Mapping puts every arrival before the copy's
 * readers (after the Soma2 of the last, mapper/schedule.c): a part arriving in the first
 * reader's phase or later arrives in the step before (a stage's input, over the end of the
 * step: then the copy's area lives the whole step). Refused (logic errors naming the block,
 * not written yet): parts in a phase that are three runs apart or more, of one copy, or of
 * the core's spread copies together when no second Soma slot is free to move them
 * [emit.alloc]; a Soma2 that runs a block or another inserted move in a phase a part
 * arrives in, and Soma1 of the next phase too [emit.slot].
 */
#include "backend/emit_internal.h"

#include "backend/core_mem.h"
#include "taskir/diag_block.h"
#include "taskir/lanes.h"

#include <stdlib.h>
#include <string.h>

enum { RECV_WORDS = ASM_MEM3_BASE - ASM_MEM2_RECV, ROW_WORDS = 4 };

/* The phases edge dict dict's transfers land in on core k (its ROUTER_SEND /
 * ROUTER_RECIEVE pairs there, in the Mapping's order) into ph (room for n_coords); their
 * count. */
uint32_t emit_arrival_phases(const Emit *e, const MapDict *dict, uint32_t k, int32_t *ph)
{
    uint32_t n = 0;
    for (uint32_t c = 0; dict && c + 1 < dict->n_coords; c++) {
        const MapCoord *cs = &dict->coords[c], *cr = &dict->coords[c + 1];
        if (cs->pi_index == MAP_PI_ROUTER_SEND && cr->pi_index == MAP_PI_ROUTER_RECIEVE &&
            emit_same_place(&e->cores[k], cr))
            ph[n++] = cr->phase;
    }
    return n;
}

/* The phase the router of copy cp's core gathers writer w's rows into it (EOut.gather): the
 * writer's, or the next after a Soma2 (emit_route.c); -1 when w does not write cp's block
 * so. */
static int32_t own_gather_phase(const Emit *e, const ECopy *cp, long w)
{
    if (w < 0 || e->core_of[w] != cp->core || !e->outs[w].gather || e->outs[w].aliased)
        return -1;
    return e->phase_of[w] + (e->slot_of[w] == MAP_PI_SOMA2 ? 1 : 0);
}

/* The phases edge ed lands in on spread copy cp's core (into ph, their count): its
 * ROUTER_RECIEVE coordinates there, or the phase its writer's own router gathers it in. */
static uint32_t arrivals_of(const Emit *e, const ECopy *cp, const Edge *ed, int32_t *ph)
{
    int32_t g = own_gather_phase(e, cp, graph_block_pos(e->g, ed->src));
    if (g >= 0) {
        ph[0] = g;
        return 1;
    }
    return emit_arrival_phases(e, emit_edge_dict(e, ed->id), cp->core, ph);
}

bool emit_spread_of(const Emit *e, const ECopy *cp)
{
    const BlockUses *bu = &e->uses.blocks[cp->block];
    bool spread = false, local = false, slices = false, columns = false;
    int32_t own = -1; /* the phase its own router lands rows of it in */
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const Edge *ed = e->g->edges[bu->in_edges[j]];
        long w = graph_block_pos(e->g, ed->src);
        if (w >= 0 && e->core_of[w] == cp->core) {
            int32_t g = own_gather_phase(e, cp, w);
            if (g >= 0 && cp->feat.words > RECV_WORDS && emit_slice_kind(e, cp, ed) == 0) {
                /* its rows landed by its own router: an arrival in that phase (a copy the
                 * receive area cannot hold, which staying there whole never fits) */
                spread |= own >= 0 && own != g;
                own = g;
                continue;
            }
            if (e->outs[w].gather || e->outs[w].aliased)
                return false; /* its buffer moved by the router: the copy stays received */
            local = true; /* its primitive writes its rows of the copy straight */
            continue;
        }
        const MapDict *dict = emit_edge_dict(e, ed->id);
        int32_t first = -1;
        bool here = false;
        for (uint32_t c = 0; dict && c + 1 < dict->n_coords; c++) {
            const MapCoord *cs = &dict->coords[c], *cr = &dict->coords[c + 1];
            if (cs->pi_index != MAP_PI_ROUTER_SEND || cr->pi_index != MAP_PI_ROUTER_RECIEVE ||
                !emit_same_place(&e->cores[cp->core], cr))
                continue;
            here = true;
            spread |= (first >= 0 && cr->phase != first) || (own >= 0 && cr->phase != own);
            first = cr->phase;
        }
        int kind = here ? emit_slice_kind(e, cp, ed) : 0;
        if (kind < 0)
            return false; /* one move a phase moves whole rows only */
        slices |= kind > 0;
        columns |= kind == 2;
    }
    /* channel or column slices of rows: spread when the slices of the same rows arrive
     * together (emit_slices.c) and nothing on its core writes the copy; column slices of a
     * copy the receive area holds only when they arrive over several phases (in one, it
     * stays there whole, as before) */
    if (slices && (local || (columns && cp->feat.words <= RECV_WORDS && !spread) ||
                   !emit_slices_ok(e, cp)))
        return false;
    /* a copy too large for the receive area (each transfer whole in one phase, or a writer
     * on its core writing rows of it): its received rows land and move part by part likewise,
     * beside the rows written there; one that fits stays there whole when a writer on its
     * core writes part of it */
    return cp->feat.words > RECV_WORDS || (spread && !local);
}

/* Whether part pt holds a run of copy ci. */
static bool part_of(const EPart *pt, uint32_t ci)
{
    return pt->copy[0] == ci || (pt->nq[1] > 0 && pt->copy[1] == ci);
}

const EPart *emit_part_at(const Emit *e, const ECopy *cp, int32_t p)
{
    uint32_t ci = (uint32_t)(cp - e->copies);
    EOnCore on = emit_parts_on(e, cp->core);
    for (const EPart *pt; (pt = emit_parts_next(e, &on));)
        if (pt->phase == p && part_of(pt, ci))
            return pt;
    return NULL;
}

int32_t emit_spread_moved(const Emit *e, const ECopy *cp, const EBox *b)
{
    uint32_t ci = (uint32_t)(cp - e->copies);
    int64_t nx = cp->box.n[1], y0 = b->lo[0] - cp->box.lo[0], x0 = b->lo[1] - cp->box.lo[1];
    int64_t y1 = y0 + b->n[0], x1 = x0 + b->n[1];
    y0 = y0 > 0 ? y0 : 0;
    x0 = x0 > 0 ? x0 : 0;
    y1 = y1 < cp->box.n[0] ? y1 : cp->box.n[0];
    x1 = x1 < nx ? x1 : nx;
    if (cp->unit) { /* the units b's channels meet, as the pixels of one row */
        nx = emit_feat_pixel_words(&cp->feat) / cp->unit;
        y0 = 0;
        y1 = 1;
        if (!emit_unit_range(cp, b, &x0, &x1))
            return -1;
    }
    if (y1 <= y0 || x1 <= x0)
        return -1; /* none of its pixels */
    int64_t covered = 0;
    int32_t last = -1;
    EOnCore on = emit_parts_on(e, cp->core);
    for (const EPart *pt; (pt = emit_parts_next(e, &on));) {
        for (int r = 0; r < 2; r++) {
            if (pt->nq[r] <= 0 || pt->copy[r] != ci)
                continue;
            /* the run's pixels q0 .. q0 + nq met with each of b's rows it reaches */
            int64_t a = pt->q0[r], z = a + pt->nq[r];
            int64_t ya = a / nx > y0 ? a / nx : y0;
            int64_t yz = (z - 1) / nx < y1 - 1 ? (z - 1) / nx : y1 - 1;
            for (int64_t y = ya; y <= yz; y++) {
                int64_t lo = y * nx + x0 > a ? y * nx + x0 : a;
                int64_t hi = y * nx + x1 < z ? y * nx + x1 : z;
                if (hi > lo) {
                    covered += hi - lo;
                    last = pt->phase > last ? pt->phase : last;
                }
            }
        }
    }
    return covered == (y1 - y0) * (x1 - x0) ? last : INT32_MAX;
}

/* A part of core k landing in phase p: with room, the first that holds one run (it takes a
 * second beside it), else the first; NULL when none. */
static EPart *part_on(const Emit *e, uint32_t k, int32_t p, bool room)
{
    EOnCore on = emit_parts_on(e, k);
    for (EPart *pt; (pt = emit_parts_next(e, &on));)
        if (pt->phase == p && (!room || pt->nq[1] == 0))
            return pt;
    return NULL;
}

/* The part of core k that Soma slot (p, slot) moves, or NULL. */
static EPart *part_moved(const Emit *e, uint32_t k, int32_t p, int32_t slot)
{
    EOnCore on = emit_parts_on(e, k);
    for (EPart *pt; (pt = emit_parts_next(e, &on));)
        if (pt->move_phase == p && pt->move_slot == slot)
            return pt;
    return NULL;
}

int64_t emit_recv_live(const Emit *e, uint32_t k, int32_t p, uint32_t skip)
{
    const ECore *c = &e->cores[k];
    int64_t sum = 0;
    for (size_t i = 0; i < c->n_reqs; i++)
        if (i != skip && c->reqs[i].kind == ALLOC_RECV && alloc_lives_in(&c->reqs[i], p))
            sum += c->reqs[i].words;
    /* a copy that moves out in Soma2 of its arrival phase (plan_moves, later) holds the
     * receive area in its arrival phases only, as the mapper counts it */
    EOnCore on = emit_copies_on(e, k);
    for (const ECopy *cp; (cp = emit_copies_next(e, &on));) {
        if (cp->movable && cp->land == EMIT_NONE && cp->req != skip &&
            cp->req < c->n_reqs && c->reqs[cp->req].kind == ALLOC_RECV &&
            c->reqs[cp->req].first <= p && p <= c->reqs[cp->req].last &&
            (p < cp->land_first || p > cp->move_phase))
            sum -= c->reqs[cp->req].words;
    }
    return sum;
}

/* Pixels [q0, q0 + nq) of one edge's part arriving in a phase (edge: its index in the
 * cut's edges). */
typedef struct ESeg {
    int32_t phase;
    int64_t q0, nq;
    uint32_t edge;
} ESeg;

static int seg_cmp(const void *a, const void *b)
{
    const ESeg *x = a, *y = b;
    if (x->phase != y->phase)
        return x->phase < y->phase ? -1 : 1;
    return x->q0 < y->q0 ? -1 : x->q0 > y->q0;
}

/* The first phase a compute block on spread copy cp's core reads it in (n_phases: none).
 * The Mapping puts every part's arrival before its readers: a part arriving in that phase
 * or later arrives in the step before (a stage's input, docs/backend.md "Stages"). */
static int32_t first_reader(const Emit *e, const ECopy *cp)
{
    int32_t first = e->cores[cp->core].n_phases;
    ELocalReaders it = emit_local_readers(cp->block, cp->core);
    while (emit_local_readers_next(e, &it))
        if (it.phase < first)
            first = it.phase;
    return first;
}

/* The phase at which the order of time cuts the step for spread copy cp's arrivals: its
 * first reader's (first_reader), a phase at or after which comes in the step before. A copy
 * no compute block on its core reads (an OUTPUT's, one relayed on) has none; its arrivals
 * are then ordered as the mapper plans them, in global phases (a writer's stage times the
 * chip's phases, plus the writer's phase, plus the phases from it to the arrival, past the
 * end of the writer's step when the arrival's phase comes before the writer's), and the cut
 * falls after the latest (test_diff_ops/broadcast_div_case_1_variant_2-4's op/out: rows
 * 27..52 from writers of stage 4 in phases 31 and 0, rows 0..26 from writers of stage 5 in
 * phases 0 and 1: phase 31 comes first, as the mapper filled it). With fill (the order the
 * copy's own phases are filled in), so is a copy whose reader reads the step before's data
 * whole (emit_wraps_whole: its parts are one batch, which the mapper fills in its writers'
 * order); the order of the copies among themselves (last_arrival) keeps the reader's cut,
 * one frame for all (ResNet-50's chip (1,0) core (5,8), four copies read in phase 2, landing
 * over phases 25..31 and 0..1 one after the other). ph: room for the phases of any edge into
 * cp. */
static int32_t time_cut(const Emit *e, const ECopy *cp, int32_t *ph, bool fill)
{
    int32_t np = e->cores[cp->core].n_phases, reader = first_reader(e, cp), cut = reader;
    int64_t m = e->chip && e->chip->max_phases ? e->chip->max_phases : 1, latest = -1;
    if (reader < np && !(fill && emit_wraps_whole(e, cp, reader)))
        return reader;
    const BlockUses *bu = &e->uses.blocks[cp->block];
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const Edge *ed = e->g->edges[bu->in_edges[j]];
        long w = graph_block_pos(e->g, ed->src);
        if (w < 0 || bt_info(e->g->blocks[w]->type)->kind != BK_COMPUTE ||
            e->core_of[w] == cp->core)
            continue;
        const ECore *wc = &e->cores[e->core_of[w]];
        int64_t wp = e->phase_of[w], base = wc->phase_group * m + wp;
        uint32_t n = emit_arrival_phases(e, emit_edge_dict(e, ed->id), cp->core, ph);
        for (uint32_t i = 0; i < n; i++) {
            int64_t t = base + ph[i] - wp + (ph[i] < wp ? wc->n_phases : 0);
            if (t > latest) {
                latest = t;
                cut = ph[i] + 1;
            }
        }
    }
    return cut;
}

/* Whether a compute block on copy cp's core reads it in phase p (its Axon only: axon). */
static bool reads_in(const Emit *e, const ECopy *cp, int32_t p, bool axon)
{
    ELocalReaders it = emit_local_readers(cp->block, cp->core);
    while (emit_local_readers_next(e, &it))
        if (it.phase == p && (!axon || it.slot == MAP_PI_AXON))
            return true;
    return false;
}

/* An edge's pixels [lo, hi) of a spread copy (whole rows), and the first and last phases
 * it arrives in, in the order of time. */
typedef struct ERows {
    const Edge *ed;
    int64_t lo, hi;
    int64_t first, last;
} ERows;

/* The edges in the order they start arriving in; of those that start together, the ones
 * that end sooner first (an edge of one phase takes all its pixels there, whatever room
 * is left: the mapper fills the phases so, its edges of one phase whole, the edge that
 * goes on to the next phase taking the room they leave), then by pixels. */
static int rows_cmp(const void *a, const void *b)
{
    const ERows *x = a, *y = b;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    if (x->last != y->last)
        return x->last < y->last ? -1 : 1;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The phases ph[0..n) into the order of time (insertion): a phase at or after the first
 * reader's comes in the step before. */
static void time_order(int32_t *ph, uint32_t n, int32_t reader, int32_t np)
{
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t m = i; m > 0; m--) {
            int64_t a = ph[m - 1] >= reader ? ph[m - 1] - np : ph[m - 1];
            int64_t b = ph[m] >= reader ? ph[m] - np : ph[m];
            if (a <= b)
                break;
            int32_t t = ph[m - 1];
            ph[m - 1] = ph[m];
            ph[m] = t;
        }
}

/* The segments of the parts of the edges into spread copy cp, into segs (room for
 * *n_segs, grown): the edges in the order they start arriving in, each edge's pixels in
 * order to the phases the Mapping gives it in the order of time, each phase as many as the
 * receive area has room for (words: per phase, the words given to this copy so far) and, for
 * runs of bytes, the sender's header table (lanes_part_cap, as the mapper cuts them), an
 * edge's last phase the rest. */
static Status cut_edges(Emit *e, const ECopy *cp, ESeg **segs, size_t *n_segs, size_t *cap,
                        int64_t *words, int32_t *ph, ERows *er, size_t *n_er, bool wide,
                        const ESpreadHeads *heads)
{
    const BlockUses *bu = &e->uses.blocks[cp->block];
    uint32_t k = cp->core;
    int32_t np = e->cores[k].n_phases, reader = time_cut(e, cp, ph, true);
    int64_t pw = emit_spread_unit(cp), nx = cp->box.n[1];
    size_t ne = 0;
    Status st = ST_OK;
    for (uint32_t j = 0; j < bu->n_in_edges && st == ST_OK; j++) {
        const Edge *ed = e->g->edges[bu->in_edges[j]];
        EBox dbox;
        uint32_t n = arrivals_of(e, cp, ed, ph);
        if (n == 0 || !emit_iface_box(e, cp->block, true, ed->id, &dbox) ||
            emit_slice_follower(e, cp, ed))
            continue; /* (a slice after the first of its rows lands in their parts) */
        time_order(ph, n, reader, np);
        for (uint32_t i = 0; i < n; i++)
            if (ph[i] < 0 || ph[i] >= np)
                st = diag_edge(e->d, ST_RUNTIME, "emit.internal", ed->id,
                               "arrives in phase %d, past its core's %d", ph[i], np);
        /* its pixels: whole rows, or (emit_slice_kind) a run of columns of a copy of one
         * row; the first column slice of its rows: the copy's whole rows (whole rows a
         * phase: the others land their columns of them, emit_slices.c) */
        EBox part;
        if (emit_box_meet(&dbox, &cp->box, &part) && part.n[0] > 0 && part.n[1] > 0) {
            if (emit_slice_kind(e, cp, ed) == 2) {
                part.lo[1] = cp->box.lo[1];
                part.n[1] = nx;
            }
            int64_t lo = (part.lo[0] - cp->box.lo[0]) * nx + part.lo[1] - cp->box.lo[1];
            int64_t hi = lo + (part.n[0] - 1) * nx + part.n[1];
            if (cp->unit) /* its units (emit_spreadunit.c) */
                emit_unit_range(cp, &part, &lo, &hi);
            er[ne++] = (ERows){ed, lo, hi, ph[0] >= reader ? ph[0] - np : ph[0],
                               ph[n - 1] >= reader ? ph[n - 1] - np : ph[n - 1]};
        }
    }
    qsort(er, ne, sizeof *er, rows_cmp);
    for (size_t j = 0; j < ne && st == ST_OK; j++) {
        uint32_t n = arrivals_of(e, cp, er[j].ed, ph);
        time_order(ph, n, reader, np);
        int64_t left = er[j].hi - er[j].lo, q = er[j].lo;
        /* pixels (units) a phase: what one phase's header table holds of runs of bytes */
        int64_t hcap = lanes_part_cap(lanes_heads(e->g, &e->uses, er[j].ed), left);
        for (uint32_t i = 0; i < n && left > 0; i++) {
            int64_t room = RECV_WORDS - emit_recv_live(e, k, ph[i], EMIT_NONE) +
                           emit_recv_waiting(e, k, ph[i]) - words[ph[i]];
            int64_t lw = wide ? emit_land_pitch(e, cp, ph[i]) : 0; /* emit_landpitch.c */
            lw = lw > pw ? lw : pw;
            int64_t px = i + 1 == n ? left : room > 0 ? room / lw : 0;
            px = i + 1 < n && hcap > 0 && px > hcap ? hcap : px;
            if (i + 1 < n) /* its sender's header table (emit_spreadheads.c) */
                px = emit_spread_heads_cap(e, heads, cp, er[j].ed, ph[i], px);
            px = px < left ? px : left;
            if (i + 1 < n) /* where its writer's runs to other cores begin (emit_spreadcap.c) */
                px = emit_spread_cap(e, cp, er[j].ed, ph[i], q, px);
            if (i + 1 < n && emit_slice_kind(e, cp, er[j].ed) == 2)
                px = px / nx * nx; /* column slices: whole rows */
            px = px < left ? px : left;
            if (px == 0)
                continue;
            if (wide && px * lw > room)
                return ST_LOGIC; /* the rest over the room in the wider pitch: cut as before */
            ESeg *ns = emit_grow(e, *segs, cap, *n_segs, sizeof **segs);
            if (!ns) {
                st = ST_RUNTIME;
                break;
            }
            *segs = ns;
            (*segs)[(*n_segs)++] = (ESeg){ph[i], q, px, (uint32_t)j};
            words[ph[i]] += px * lw;
            q += px;
            left -= px;
        }
    }
    *n_er = ne;
    return st;
}

/* Places the segments of the edges whose bit is set in mask (edges 0..31) mirrored in their edge's pixels
 * (its first phase taking its last pixels), the others as cut: from[] the segments as cut,
 * into segs sorted by phase and pixel; the most runs of adjacent pixels in one phase. */
static int place_segs(const ESeg *from, ESeg *segs, size_t n, const ERows *er, uint32_t mask)
{
    for (size_t i = 0; i < n; i++) {
        segs[i] = from[i];
        if (from[i].edge < 32 && (mask >> from[i].edge & 1u))
            segs[i].q0 = er[from[i].edge].lo + er[from[i].edge].hi - from[i].q0 - from[i].nq;
    }
    qsort(segs, n, sizeof *segs, seg_cmp);
    int most = n ? 1 : 0, runs = 1;
    for (size_t i = 1; i < n; i++) {
        if (segs[i].phase != segs[i - 1].phase)
            runs = 1;
        else if (segs[i].q0 != segs[i - 1].q0 + segs[i - 1].nq)
            runs++;
        most = runs > most ? runs : most;
    }
    return most;
}

/* The parts of spread copy cp: its segments joined phase by phase into runs of adjacent
 * pixels, at most two a phase with those of the core's other spread copies (one move a
 * phase: a P06, or a P26 for two runs), a landing area each part. */
static Status plan_parts(Emit *e, ECopy *cp, ESeg *segs, size_t n)
{
    int32_t reader = first_reader(e, cp);
    const Block *b = e->g->blocks[cp->block];
    uint32_t k = cp->core, ci = (uint32_t)(cp - e->copies);
    int64_t pw = emit_spread_unit(cp);
    if (pw % ROW_WORDS)
        return diag_block(e->d, ST_RUNTIME, "emit.internal", b,
                          "pixels of %lld words, not whole 16-byte rows", (long long)pw);
    for (size_t i = 0; i < n;) {
        int32_t p = segs[i].phase;
        int64_t q0[2] = {segs[i].q0, 0}, nq[2] = {0, 0};
        int r = 0;
        size_t j = i;
        for (; j < n && segs[j].phase == p; j++) {
            if (j > i && segs[j].q0 != q0[r] + nq[r]) {
                if (++r == 2)
                    return diag_block(e->d, ST_LOGIC, "emit.alloc", b,
                                      "arrives on %s in phase %d as three or more runs of "
                                      "pixels that are not adjacent (%lld.., %lld.., "
                                      "%lld..): not written yet (a phase's move splits what "
                                      "arrives into two runs at most)", e->cores[k].name, p,
                                      (long long)q0[0], (long long)q0[1],
                                      (long long)segs[j].q0);
                q0[r] = segs[j].q0;
            }
            nq[r] += segs[j].nq;
        }
        /* a part of the phase holding one run takes this one as its second; else (each
           holds two, or these pixels are two runs) they are a part of their own, which the
           phase's other free Soma slot after its router moves (a second P06 or P26) */
        EPart *pt = r == 0 ? part_on(e, k, p, true) : NULL;
        bool beside = !pt && part_on(e, k, p, false);
        /* pixels a relaying chain refused behind others of the part land first
           (emit_partfirst.c): one run cut in two there, the later pixels first */
        int64_t qf = emit_part_first(e, k, cp->block, p);
        if (!pt && r == 0 && qf > q0[0] && qf < q0[0] + nq[0]) {
            q0[1] = q0[0];
            nq[1] = qf - q0[0];
            q0[0] = qf;
            nq[0] -= nq[1];
        }
        if (pt) { /* a second run beside another copy's: the P26 splits them; the first
                     when a relaying chain refused it second (emit_partfirst.c) */
            int r1 = pt->copy[0] != ci && qf >= 0 ? 0 : 1;
            if (r1 == 0) {
                pt->copy[1] = pt->copy[0];
                pt->q0[1] = pt->q0[0];
                pt->nq[1] = pt->nq[0];
            }
            pt->copy[r1] = ci;
            pt->q0[r1] = q0[0];
            pt->nq[r1] = nq[0];
            e->cores[k].reqs[pt->land].words += nq[0] * pw;
        } else {
            /* Soma2 of the phase it lands in, after the router; else Soma1 of the next phase,
               before that router lands more, when no block on its core reads the copy in
               the phase it lands in or in the next one's Axon (its readers come later, or
               in the step after) */
            int32_t mp = p, ms = MAP_PI_SOMA2;
            if (emit_soma_taken(e, k, p, MAP_PI_SOMA2)) {
                if (p + 1 >= e->cores[k].n_phases || emit_soma_taken(e, k, p + 1, MAP_PI_SOMA1) ||
                    reads_in(e, cp, p, false) || reads_in(e, cp, p + 1, true))
                    return beside ? diag_block(e->d, ST_LOGIC, "emit.alloc", b,
                                               "arrives on %s in phase %d beside other spread "
                                               "copies' parts, in three or more runs of "
                                               "pixels apart, and no free Soma slot after "
                                               "the router moves a second part: not written "
                                               "yet (a move splits what arrives into two runs "
                                               "at most)", e->cores[k].name, p)
                                  : diag_block(e->d, ST_LOGIC, "emit.slot", b,
                                      "arrives on %s over several phases: the rows arriving "
                                      "in phase %d must move out of the receive area by a "
                                      "P06 in Soma2 of that phase or Soma1 of the next, which "
                                      "are taken", e->cores[k].name, p);
                mp = p + 1;
                ms = MAP_PI_SOMA1;
            }
            EPart *np = emit_grow(e, e->parts, &e->cap_parts, e->n_parts, sizeof *e->parts);
            if (!np)
                return ST_RUNTIME;
            e->parts = np;
            EPart part = {k, p, {ci, ci}, {q0[0], q0[1]}, {nq[0], nq[1]}, EMIT_NONE, mp, ms, 0};
            part.land = emit_request(e, k, pw * (nq[0] + nq[1]), ROW_WORDS, p, mp, ALLOC_RECV,
                                     b->id);
            if (part.land == EMIT_NONE)
                return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
            e->parts[e->n_parts++] = part;
            Status st = emit_slot_take(e, k, mp, ms, SLOT_PART, cp->block);
            if (st != ST_OK)
                return st;
        }
        AllocReq *rq = &e->cores[k].reqs[cp->req]; /* its area is alive from the first move */
        if (p < rq->first)
            rq->first = cp->first = p;
        if (p > rq->last)
            rq->last = cp->last = p;
        if (p >= reader) { /* it arrives in the step before its readers: the whole step */
            rq->first = cp->first = 0;
            rq->last = cp->last = e->cores[k].n_phases - 1;
        }
        i = j;
    }
    return ST_OK;
}

/* Cuts spread copy cp's transfers into parts and plans them (cut_edges, plan_parts); segs
 * (room for *cap) is scratch space. */
static Status plan_spread(Emit *e, ECopy *cp, ESeg **segs, size_t *cap, ESpreadHeads *heads)
{
    Status st = ST_OK;
    const ECore *c = &e->cores[cp->core];
    size_t n = 0;
    int64_t *words = calloc((size_t)c->n_phases, sizeof *words);
    const MapDict *most = NULL; /* room for the phases of the longest dict */
    const BlockUses *bu = &e->uses.blocks[cp->block];
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const MapDict *d = emit_edge_dict(e, e->g->edges[bu->in_edges[j]]->id);
        if (d && (!most || d->n_coords > most->n_coords))
            most = d;
    }
    int32_t *ph = malloc(((most ? most->n_coords : 0) + 1) * sizeof *ph);
    if (!words || !ph)
        st = diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    ERows *er = malloc((bu->n_in_edges ? bu->n_in_edges : 1) * sizeof *er);
    size_t ne = 0;
    if (st == ST_OK && !er)
        st = diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    /* the phases' pixels counted in the pitch they land in when a relay sends them from a
     * wider one (emit_landpitch.c), if every phase then holds its share; else in the copy's */
    if (st == ST_OK)
        st = cut_edges(e, cp, segs, &n, cap, words, ph, er, &ne, true, heads);
    if (st == ST_LOGIC) {
        memset(words, 0, (size_t)c->n_phases * sizeof *words);
        n = 0;
        st = cut_edges(e, cp, segs, &n, cap, words, ph, er, &ne, false, heads);
    }
    /* one pixel over the room of the phase it lands in: cut into runs of its words */
    if (st == ST_OK && emit_unit_wanted(e, cp, words)) {
        cp->unit = ROW_WORDS;
        memset(words, 0, (size_t)c->n_phases * sizeof *words);
        n = 0;
        st = cut_edges(e, cp, segs, &n, cap, words, ph, er, &ne, false, heads);
    }
    /* the edges' pixels forwards or mirrored, the first way that makes every phase's pixels
     * adjacent (a P06 moves them), else the first that makes them two runs at most (a P26
     * splits them) */
    ESeg *placed = st == ST_OK ? malloc((n ? n : 1) * sizeof *placed) : NULL;
    if (st == ST_OK && !placed)
        st = diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    uint32_t mask = 0, masks = ne < 12 ? 1u << ne : 1u;
    for (int runs = 1; st == ST_OK && runs <= 2; runs++) {
        for (mask = 0; mask < masks && place_segs(*segs, placed, n, er, mask) > runs;)
            mask++;
        if (mask < masks)
            break;
    }
    if (st == ST_OK && mask == masks) /* none: as cut, refused by plan_parts */
        place_segs(*segs, placed, n, er, 0);
    if (st == ST_OK)
        st = plan_parts(e, cp, placed, n);
    for (size_t i = 0; st == ST_OK && i < n; i++)
        st = emit_spread_heads_add(e, heads, cp, er[placed[i].edge].ed, placed[i].phase,
                                   placed[i].nq);
    free(placed);
    free(er);
    free(words);
    free(ph);
    return st;
}

/* Whether movable copy cp (received whole in one phase, moved out of the receive area in
 * Soma2 of it: plan_moves) may join the part a spread copy lands in that phase, as its second
 * run: every transfer into it from another core, whole rows of it (emit_slice_kind) or
 * column slices of the same rows that tile them (emit_slices_ok: they land side by side as
 * its rows), in 8-byte packets (no values moved between lanes), in that phase only, its
 * pixels whole 16-byte rows, and no relay sending it on from its core; slices: any channel
 * or column slices of its rows too (emit_slices.c: each lands in its place of the run, as in
 * the copy; a gather's two inputs landing as one part, emit_gather_pair.c). */
bool emit_joins_part(const Emit *e, const ECopy *cp, bool slices)
{
    const BlockUses *bu = &e->uses.blocks[cp->block];
    if (cp->land_first != cp->move_phase || emit_feat_pixel_words(&cp->feat) % ROW_WORDS)
        return false;
    bool tile = emit_slices_ok(e, cp);
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const Edge *ed = e->g->edges[bu->in_edges[j]];
        long w = graph_block_pos(e->g, ed->src);
        EBox dbox;
        int kind = emit_slice_kind(e, cp, ed);
        if (w < 0 || e->core_of[w] == cp->core ||
            (kind != 0 && !(slices && kind > 0) && (kind != 2 || !tile)) ||
            !emit_iface_box(e, cp->block, true, ed->id, &dbox) ||
            emit_moves_lanes(e, ed, (uint32_t)w, &dbox))
            return false; /* (1-byte packets go whole into one copy: emit_lanes.c) */
        const MapDict *dict = emit_edge_dict(e, ed->id);
        for (uint32_t c = 0; dict && c + 1 < dict->n_coords; c++) {
            const MapCoord *cs = &dict->coords[c], *cr = &dict->coords[c + 1];
            if (cs->pi_index != MAP_PI_ROUTER_SEND || cr->pi_index != MAP_PI_ROUTER_RECIEVE)
                continue;
            if (emit_same_place(&e->cores[cp->core], cs) ||
                (emit_same_place(&e->cores[cp->core], cr) && cr->phase != cp->move_phase))
                return false; /* relayed on, or landing in another phase too */
        }
    }
    return true;
}

/* A spread copy and the last phase a part of it may land in, in the order of time. */
typedef struct ELast {
    int64_t last;
    uint32_t ci;
} ELast;

static int last_cmp(const void *a, const void *b)
{
    const ELast *x = a, *y = b;
    if (x->last != y->last)
        return x->last < y->last ? -1 : 1;
    return x->ci < y->ci ? -1 : x->ci > y->ci;
}

/* The last phase a transfer into spread copy cp lands in, in the order of time (a phase at
 * or after its first reader's counts in the step before); ph: room for the phases of any
 * edge dict. */
static int64_t last_arrival(const Emit *e, const ECopy *cp, int32_t *ph)
{
    const BlockUses *bu = &e->uses.blocks[cp->block];
    int32_t np = e->cores[cp->core].n_phases, reader = time_cut(e, cp, ph, false);
    int64_t last = INT64_MIN;
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        uint32_t n = arrivals_of(e, cp, e->g->edges[bu->in_edges[j]], ph);
        for (uint32_t i = 0; i < n; i++) {
            int64_t t = ph[i] >= reader ? (int64_t)ph[i] - np : ph[i];
            last = t > last ? t : last;
        }
    }
    return last;
}

Status emit_spreads(Emit *e)
{
    Status st = ST_OK;
    ESeg *segs = NULL;
    size_t cap = 0;
    /* the copies whose last part lands sooner first: that part takes the rest, whatever room
     * the phase has left, so the copies landing later leave it what it needs (the mapper
     * fills the phases in the order of time too) */
    uint32_t most = 1; /* room for the phases of the longest edge dict */
    for (uint32_t i = 0; i < e->m->n_edges; i++)
        most = e->m->edges[i].n_coords > most ? e->m->edges[i].n_coords : most;
    ELast *order = malloc((e->n_copies ? e->n_copies : 1) * sizeof *order);
    int32_t *ph = malloc(2 * (size_t)most * sizeof *ph);
    uint8_t *done = calloc(e->n_copies ? e->n_copies : 1, 1);
    uint8_t *held = calloc(e->n_cores ? e->n_cores : 1, 1);
    if (!order || !ph || !done || !held) {
        free(order);
        free(ph);
        free(done);
        free(held);
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    }
    ESpreadHeads hs = {0}, *heads = &hs; /* the parts planned so far, at their senders */
    size_t n_order = 0;
    for (uint32_t i = 0; i < e->n_copies; i++)
        if (e->copies[i].spread)
            order[n_order++] = (ELast){last_arrival(e, &e->copies[i], ph), i};
    qsort(order, n_order, sizeof *order, last_cmp);
    /* in that order on each core (the order matters on one core only: the room of a phase
     * is its core's), a copy after the copies on other cores it waits for, whose parts may
     * end its own (emit_spreadcap.c); when every copy left waits, the first in order */
    for (size_t left = n_order; left > 0 && st == ST_OK;) {
        size_t before = left;
        memset(held, 0, e->n_cores);
        for (size_t o = 0; o < n_order && st == ST_OK; o++) {
            ECopy *cp = &e->copies[order[o].ci];
            if (done[order[o].ci] || held[cp->core])
                continue;
            if (emit_spread_waits(e, cp, time_cut(e, cp, ph, true), done, ph, ph + most)) {
                held[cp->core] = 1; /* the core's later copies wait with it */
                continue;
            }
            st = plan_spread(e, cp, &segs, &cap, heads);
            if (st == ST_OK) /* its parts: the walks over a core's (emit_bycore.c) */
                st = emit_index_parts(e);
            done[order[o].ci] = 1;
            left--;
        }
        if (left == before && st == ST_OK) { /* all wait: the first in order */
            size_t o = 0;
            while (done[order[o].ci])
                o++;
            st = plan_spread(e, &e->copies[order[o].ci], &segs, &cap, heads);
            done[order[o].ci] = 1;
            left--;
        }
    }
    free(ph);
    free(done);
    free(held);
    free(order);
    /* a whole copy that would move out of the receive area in Soma2 of a phase whose part
     * takes that slot lands beside the part instead, as its second run: the part's P26 moves
     * both (the mapper counts it there, moved out in its arrival phase) */
    for (uint32_t i = 0; i < e->n_copies && st == ST_OK; i++) {
        ECopy *cp = &e->copies[i];
        const EPart *pt = cp->movable && !cp->spread && cp->land == EMIT_NONE &&
                                  emit_slot_use(e, cp->core, cp->move_phase,
                                                MAP_PI_SOMA2).kind == SLOT_PART
                              ? part_moved(e, cp->core, cp->move_phase, MAP_PI_SOMA2)
                              : NULL;
        if (!pt || pt->nq[1] > 0 || !emit_joins_part(e, cp, false))
            continue;
        cp->spread = true;
        cp->movable = false;
        e->cores[cp->core].reqs[cp->req].kind = ALLOC_DATA;
        st = plan_spread(e, cp, &segs, &cap, heads);
    }
    free(segs);
    free(hs.v);
    return st;
}
