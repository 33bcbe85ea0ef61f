/* emit_gather.c: a CADD of several different inputs (docs/backend.md, "Inserted primitives";
 * resnet_block's elementwise add). P02 reads its n inputs back to back, [n][y][x][c], in one
 * area: the code generator requests an area of n times the box on the CADD's core (n parts
 * placed back to back, each alive from its P06 to the CADD, alloc.h's chains) and, for
 * each input, inserts a P06 that copies the input's box from its copy into part i, in the
 * latest free Soma slot before the CADD's phase in which the copy holds its data
 * (emit_move_slot: for a stage's input, after it arrives in the step before); an input
 * that finds none may still lie in its part, written there by its writer or by the P06s
 * moving it out of the receive area (emit_early.c, emit_gather_pending). The inputs
 * must have the same extents (each read as whole rows of its copy, a static map too). The
 * area holds them in their precision, or in INT_32 when they differ (a P06 widens 8-bit
 * values as they are), in the pitch the CADD reads and writes (layout_output_unit: its
 * input 0's), each P06 re-pitching its input (the lanes past the input's pitch 0): the
 * precision and bytes the mapper and the split count (layout_gather_prec,
 * layout_gather_bytes in taskir/layout.h). When the slots are too few, so that an input that
 * may not lie in its part finds none while one that may took one, the gather takes its slots
 * again: two inputs landing whole in one phase as one part first (emit_gather_pair.c), then
 * the inputs that may not lie, and none for those that may (short_of_slots).
 */
#include "backend/emit_internal.h"

#include "taskir/layout.h"
#include "taskir/premove.h"

#include <string.h>

/* The copy on core k and the box input cluster i of CADD b reads, or NULL. */
static ECopy *input_copy(const Emit *e, const Block *b, uint32_t i, uint32_t k, EBox *box)
{
    if (i >= b->n_in || b->in[i].n_ifaces != 1)
        return NULL;
    const Edge *ed = graph_edge(e->g, b->in[i].ifaces[0].edge_id);
    long s = ed ? graph_block_pos(e->g, ed->src) : -1;
    if (s < 0 || ed->n_re || !emit_iface_box(e, (uint32_t)s, false, ed->id, box))
        return NULL;
    ECopy *cp = emit_copy_on(e, (uint32_t)s, k);
    return cp && (!cp->image || cp->feat.words) && !cp->planes && !cp->view ? cp : NULL;
}

Status emit_gather_fail(Emit *e, size_t start, size_t n, uint32_t pos, int32_t input,
                        int32_t why)
{
    uint32_t k = e->core_of[pos];
    for (size_t g = start; g < start + n; g++) {
        const EGather *gi = &e->gathers[g];
        if (gi->phase >= 0)
            emit_slot_free(e, e->copies[gi->copy].core, gi->phase, gi->slot);
        if (gi->req != EMIT_NONE)
            emit_request_drop(e, k, gi->req);
    }
    memmove(e->gathers + start, e->gathers + start + n,
            (e->n_gathers - start - n) * sizeof *e->gathers);
    e->n_gathers -= n;
    EGather *ng = emit_grow(e, e->gathers, &e->cap_gathers, e->n_gathers, sizeof *e->gathers);
    if (!ng)
        return ST_RUNTIME;
    e->gathers = ng;
    e->gathers[e->n_gathers++] = (EGather){pos, -1, why, (uint32_t)input, {{0}, {0}}, -1, 0,
                                           EMIT_NONE, {0}};
    return ST_OK;
}

bool emit_gathers_copy(const Emit *e, const ECopy *cp, int32_t p, int32_t sl)
{
    for (size_t i = 0; i < e->n_gathers; i++) {
        const EGather *g = &e->gathers[i];
        if (g->i >= 0 && g->phase == p && g->slot == sl && &e->copies[g->copy] == cp)
            return true;
    }
    return false;
}

/* Drops the entries of a gather from start (the last ones) and records why it failed. */
static Status failed(Emit *e, size_t start, uint32_t pos, int32_t input, int32_t why)
{
    return emit_gather_fail(e, start, e->n_gathers - start, pos, input, why);
}

/* Whether input a's P06 finds its slot before input b's: the one whose data is in place
 * later first (its slots are among the other's; data from the step before, the most slots,
 * last), so the latest free slot each takes leaves the others theirs. */
static bool sooner(const EMoveSlot *a, const EMoveSlot *b)
{
    if (a->wrap != b->wrap)
        return b->wrap;
    return a->ready > b->ready;
}

/* Whether a Soma slot of copy cp's window before phase pc (emit_move_slot's, data of this
 * step: after ms->ready) that a re-pitching tee takes is made free by moving the tee to
 * another of its own (emit_tee_yield): the tee took the latest free slot before the gathers
 * looked, and a tee's window (from its writer to its copy's first reader) is often wider
 * than a gathered input's (from its arrival to the CADD). */
static bool tee_room(Emit *e, const ECopy *cp, int32_t pc, const EMoveSlot *ms)
{
    for (int32_t p = pc - 1; !ms->wrap && p >= ms->from; p--)
        for (int32_t sl = MAP_PI_SOMA2; sl >= MAP_PI_SOMA1; sl -= MAP_PI_SOMA2 - MAP_PI_SOMA1)
            if ((int64_t)p * 8 + sl > ms->ready && emit_tee_yield(e, cp->core, p, sl))
                return true;
    return false;
}

/* Finds the Soma slots of gather entries g[0..n) of CADD pos (on core k, in phase pc) in
 * order (sooner first, order[]), those that may lie in their part (emit_gather_may_lie) only
 * when lie is 1, the others only when 0, all when -1: each the latest free one after its data
 * is in place (emit_move_slot, when[]: its part's lifetime); one without any is pending (it
 * may lie in its part, emit_gather_pending), its part alive in phase pc. */
static Status take_slots(Emit *e, uint32_t pos, uint32_t k, int32_t pc, EGather *g, uint32_t n,
                         const uint32_t *order, EMoveSlot *when, int lie)
{
    for (uint32_t o = 0; o < n; o++) {
        EGather *gi = &g[order[o]];
        EMoveSlot ms;
        ECopy *cp = &e->copies[gi->copy];
        if (lie >= 0 && emit_gather_may_lie(e, gi, false) != (lie == 1))
            continue;
        if (lie == 1 || (!emit_move_slot(e, cp, pc, &ms) &&
            (!tee_room(e, cp, pc, &ms) || !emit_move_slot(e, cp, pc, &ms)))) {
            gi->phase = GATHER_PENDING; /* it may lie in its part (emit_gather_pending) */
            when[order[o]].first = when[order[o]].last = pc;
            continue;
        }
        gi->phase = ms.phase;
        gi->slot = ms.slot;
        when[order[o]] = ms;
        Status st = emit_slot_take(e, k, ms.phase, ms.slot, SLOT_GATHER, pos);
        if (st != ST_OK)
            return st;
    }
    return ST_OK;
}

/* Whether gather entries g[0..n) left an input pending that cannot lie in its part, even
 * once the P06 in Soma2 of its arrival phase moves it out of the receive area where that
 * slot is free (emit_plan.c plan_moves), while one that may lie there took a slot: the slots
 * are too few for all (taken again: those last, emit_gather_pairs first). */
static bool short_of_slots(Emit *e, EGather *g, uint32_t n)
{
    bool stuck = false, yields = false;
    for (uint32_t i = 0; i < n; i++) {
        const ECopy *cp = &e->copies[g[i].copy];
        bool moves = cp->movable && cp->land == EMIT_NONE &&
                     !emit_soma_taken(e, cp->core, cp->move_phase, MAP_PI_SOMA2);
        stuck |= g[i].phase == GATHER_PENDING && !emit_gather_may_lie(e, &g[i], moves);
        yields |= g[i].phase >= 0 && emit_gather_may_lie(e, &g[i], false);
    }
    return stuck && yields;
}

/* Plans the gather of CADD pos (n inputs, on core k, in phase pc): its n entries in input
 * order, their slots found in the order of sooner. */
static Status plan_gather(Emit *e, uint32_t pos, uint32_t n, uint32_t k, int32_t pc)
{
    const Block *b = e->g->blocks[pos];
    EBox box0;
    ECopy *cp0 = input_copy(e, b, 0, k, &box0);
    size_t start = e->n_gathers;
    PrecisionId prec; /* the inputs', or INT_32 when they differ: as the mapper counts it */
    if (!layout_gather_prec(e->g, &e->uses, pos, &prec))
        return failed(e, start, pos, 0, GATHER_LAYOUT);
    for (uint32_t i = 0; i < n; i++) {
        EBox box;
        ECopy *cp = input_copy(e, b, i, k, &box);
        if (!cp || !cp0 || box.n[0] != box0.n[0] || box.n[1] != box0.n[1] ||
            box.n[2] != box0.n[2])
            return failed(e, start, pos, (int32_t)i, GATHER_LAYOUT);
    }
    /* the area is the bytes the mapper counts (layout_gather_bytes), its parts laid out so */
    EmitFeat feat;
    int64_t bytes = layout_gather_bytes(e->g, &e->uses, pos);
    if (!emit_feat(prec, box0.n[0], box0.n[1], box0.n[2],
                   layout_output_unit(e->g, &e->uses, pos, prec), &feat) ||
        bytes != feat.words * 4 * (int64_t)n)
        return failed(e, start, pos, 0, GATHER_LAYOUT);
    for (uint32_t i = 0; i < n; i++) { /* the entries, slots not yet found (phase -1) */
        EBox box;
        ECopy *cp = input_copy(e, b, i, k, &box);
        EGather *ng = emit_grow(e, e->gathers, &e->cap_gathers, e->n_gathers,
                                sizeof *e->gathers);
        if (!ng)
            return ST_RUNTIME;
        e->gathers = ng;
        e->gathers[e->n_gathers++] = (EGather){pos, (int32_t)i, (int32_t)n,
                                               (uint32_t)(cp - e->copies), box, -1, 0,
                                               EMIT_NONE, feat};
    }
    EGather *g = e->gathers + start;
    EMoveSlot *when = malloc(n * sizeof *when);
    uint32_t *order = malloc(n * sizeof *order);
    Status st = when && order ? ST_OK : diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    for (uint32_t i = 0; i < n && st == ST_OK; i++) {
        emit_move_slot(e, &e->copies[g[i].copy], pc, &when[i]);
        uint32_t j = i; /* insertion: a stable order, sooner first */
        for (; j > 0 && sooner(&when[i], &when[order[j - 1]]); j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    if (st == ST_OK)
        st = take_slots(e, pos, k, pc, g, n, order, when, -1);
    if (st == ST_OK && short_of_slots(e, g, n)) { /* those that may lie in their part last */
        for (uint32_t i = 0; i < n; i++) {
            if (g[i].phase >= 0)
                emit_slot_free(e, k, g[i].phase, g[i].slot);
            g[i].phase = -1;
        }
        st = emit_gather_pairs(e, g, n, pc); /* two landing together: one P26 */
        for (uint32_t i = 0; i < n && st == ST_OK; i++)
            emit_move_slot(e, &e->copies[g[i].copy], pc, &when[i]);
        if (st == ST_OK)
            st = take_slots(e, pos, k, pc, g, n, order, when, 0);
        if (st == ST_OK)
            st = take_slots(e, pos, k, pc, g, n, order, when, 1);
    }
    /* the parts, one area each in input order, each from its P06 to the CADD (a part whose
     * input comes in the step before: the whole step), placed back to back (a chain) */
    uint32_t prev = EMIT_NONE;
    for (uint32_t i = 0; i < n && st == ST_OK; i++) {
        uint32_t req = emit_request(e, k, feat.words, feat.align, when[i].first, when[i].last,
                                    ALLOC_DATA, b->id);
        if (req == EMIT_NONE)
            st = diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
        else if (prev != EMIT_NONE)
            e->cores[k].reqs[prev].next = (size_t)req + 1;
        e->gathers[start + i].req = prev = req;
    }
    free(when);
    free(order);
    return st;
}

Status emit_gathers(Emit *e)
{
    for (uint32_t pos = 0; pos < e->g->n_blocks; pos++) {
        uint32_t k = e->core_of[pos];
        uint32_t n = premove_count(e->g, &e->uses, pos); /* the mapper keeps their slots */
        if (n < 2 || k == EMIT_NONE || emit_dup_of(e, pos))
            continue;
        Status st = plan_gather(e, pos, n, k, e->phase_of[pos]);
        if (st != ST_OK)
            return st;
    }
    return ST_OK;
}

int32_t emit_gather_failed(const Emit *e, uint32_t pos, int32_t *input)
{
    for (size_t i = 0; i < e->n_gathers; i++)
        if (e->gathers[i].cadd == pos && e->gathers[i].i < 0) {
            *input = (int32_t)e->gathers[i].copy;
            return e->gathers[i].n;
        }
    return 0;
}

const EGather *emit_gather_of(const Emit *e, uint32_t pos)
{
    for (size_t i = 0; i < e->n_gathers; i++)
        if (e->gathers[i].cadd == pos && e->gathers[i].i == 0)
            return &e->gathers[i];
    return NULL;
}

bool emit_gather_yield(Emit *e, uint32_t k, int32_t phase, int32_t slot)
{
    ESlotUse u = emit_slot_use(e, k, phase, slot);
    for (size_t i = 0; u.kind == SLOT_GATHER && i < e->n_gathers; i++) {
        EGather *g = &e->gathers[i];
        const ECopy *cp = &e->copies[g->copy];
        EMoveSlot ms;
        if (g->i < 0 || g->cadd != u.block || g->phase != phase || g->slot != slot ||
            cp->core != k || g->req == EMIT_NONE)
            continue;
        /* the latest free slot of an earlier phase after its data is in place; for data of
         * the step before, its part alive over the whole step already (emit_move_slot) */
        AllocReq *r = &e->cores[k].reqs[g->req];
        bool ok = emit_move_slot(e, cp, phase, &ms);
        if (!ok || (ms.wrap ? r->first > 0 || r->last < e->cores[k].n_phases - 1
                            : ms.phase >= phase))
            return false;
        if (emit_slot_take(e, k, ms.phase, ms.slot, SLOT_GATHER, g->cadd) != ST_OK)
            return false;
        emit_slot_free(e, k, phase, slot);
        g->phase = ms.phase;
        g->slot = ms.slot;
        if (ms.phase < r->first) /* its part lives from its P06 on */
            r->first = ms.phase;
        return true;
    }
    return false;
}
