/* emit_early.c: a received copy that only the P06 gathering it for a CADD reads, gathered
 * straight from the receive area as soon as it lands (docs/backend.md "Memory plan",
 * "Inserted primitives").
 *
 * A gather's P06 takes the latest free Soma slot before its CADD (emit_gather.c), and a
 * received copy that lives on past its arrival moves out of the receive area in Soma2 of its
 * arrival phase when that slot is still free (emit_plan.c, plan_moves). When it is not (a
 * compute block, another inserted P06 takes it), the copy stays in the receive area over its
 * whole lifetime: to the CADD's phase, or the whole step for a stage's input that arrives
 * late in one step and is gathered early in the next (qnet.onnx). Such a copy needs the
 * receive area only until its gather has read it: its P06 takes the earliest free Soma slot
 * after the copy lands (before the CADD; for a stage's input, from its arrival to the end of
 * that step), and the copy's area lives from its arrival to that P06. The gathered area
 * lives from that P06 on (for a stage's input the whole step, as before). A copy that an
 * OUTPUT, another block or another inserted P06 reads, or that a relay forwards, stays as it
 * was. A box its writer's router gathers on its own core (emit_router_landed) is gathered so too,
 * and the first pass of moves out of the receive area leaves every such copy where it lands
 * (emit_gathered_early): the mapper plans each to wait there for its P06, in the earliest
 * free Soma slot after it lands, own-core boxes first (mapper/gather_wait.h); its area
 * starts at the first phase its routers land any of it in.
 *
 * On a core whose plan does not fit, a copy only its gather reads lies in its part of the
 * gathered area when it has that part's layout (emit_in_place), as does, on any core, one
 * whose gather found no free Soma slot for its P06 (emit_gather_pending); when the plan
 * still does not fit, one in the data banks that cannot lie there has its area end with its
 * gather's P06 rather than at the CADD (emit_gathered_ends).
 */
#include "backend/emit_internal.h"
#include "backend/emit_layout.h"
#include "taskir/lanes.h"

#include <stdlib.h>
#include <string.h>

bool emit_router_landed(const Emit *e, const ECopy *cp, int32_t *first, int32_t *last)
{
    const BlockUses *bu = &e->uses.blocks[cp->block];
    bool own = false;
    *first = INT32_MAX;
    *last = -1;
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const Edge *ed = e->g->edges[bu->in_edges[j]];
        long w = graph_block_pos(e->g, ed->src);
        int32_t p = -1;
        if (w < 0 || e->g->blocks[w]->type == BT_INPUT)
            return false;
        if (e->core_of[w] == cp->core) {
            if (!e->outs[w].gather)
                return false; /* written straight (or as rows of the writer's buffer) */
            p = e->phase_of[w] + (e->slot_of[w] == MAP_PI_SOMA2);
            own = true;
        } else {
            const MapDict *dict = emit_edge_dict(e, ed->id);
            for (uint32_t c = 0; dict && c < dict->n_coords; c++) {
                const MapCoord *mc = &dict->coords[c];
                if (mc->pi_index == MAP_PI_ROUTER_RECIEVE && mc->phase > p &&
                    emit_same_place(&e->cores[cp->core], mc))
                    p = mc->phase;
            }
            if (p < 0)
                return false;
        }
        *first = p < *first ? p : *first;
        *last = p > *last ? p : *last;
    }
    return own;
}

/* Whether copy cp's core forwards a result of writer w outside the phases cp arrives in (a
 * relay sends from its copy, or from another copy of the same values, in a later phase;
 * one in the arrival phase sends from the writer's core, docs/backend.md "Relays"), and into
 * *after the last phase it forwards in after them (-1: none; INT32_MAX: one before them,
 * data of the step before). A copy that is not received relays nothing: what its writer on
 * the core sends it sends from its own result wherever that lies (the copy, or the copy's
 * part of a gathered area: emit_route.c's writer_loc); nor does a spread copy, whose relays
 * forward each part from where the P06 of its phase moved it (the copy's area, or its part:
 * relay_loc), or as it lands, and which never ends at its gather (end_at_gather). */
static bool relays(const Emit *e, const ECopy *cp, uint32_t w, int32_t *after)
{
    int32_t first = cp->land_first, last = cp->move_phase;
    *after = -1;
    if (!cp->received || cp->spread || (e->core_of[w] == cp->core && e->outs[w].gather))
        return false; /* its own core's router's box: the writer sends from its buffer */
    if (!cp->movable && !emit_router_landed(e, cp, &first, &last))
        first = last = 0;
    const BlockUses *bu = &e->uses.blocks[w];
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        const MapDict *dict = emit_edge_dict(e, e->g->edges[bu->out_edges[j]]->id);
        for (uint32_t c = 0; dict && c < dict->n_coords; c++) {
            const MapCoord *mc = &dict->coords[c];
            if (mc->pi_index == MAP_PI_ROUTER_SEND && (mc->phase < first || mc->phase > last) &&
                emit_same_place(&e->cores[cp->core], mc) &&
                mc->phase_group == e->cores[cp->core].phase_group &&
                mc->step_group == e->cores[cp->core].step_group)
                *after = mc->phase < first ? INT32_MAX : mc->phase > *after ? mc->phase : *after;
        }
    }
    return *after >= 0;
}

/* Whether tee t writes copy ci whole through its P06 (a re-pitching tee into the whole copy,
 * with its slot): the P06 may then write the copy where it lies, its part of a gathered area
 * too (lay), and the gather needs no P06 of its own for it. */
static bool tee_fills(const Emit *e, const ETee *t, uint32_t ci)
{
    return t->to == ci && t->move && !t->failed && t->phase >= 0 && t->off == 0 &&
           t->words == e->copies[ci].feat.words;
}

/* The gather entry reading copy ci, when it is the only reader of the copy's block on its
 * core (compute blocks, inserted P06s but a tee's filling it, OUTPUTs, relays); else NULL.
 * With relay non-NULL, relays forwarding from the copy after it has all landed are let be,
 * the last phase they send in into *relay (-1: none). */
static EGather *sole_reader(Emit *e, uint32_t ci, int32_t *relay)
{
    const ECopy *cp = &e->copies[ci];
    EGather *g = NULL;
    for (size_t i = 0; i < e->n_gathers; i++)
        if (e->gathers[i].i >= 0 && e->gathers[i].copy == ci) {
            if (g)
                return NULL; /* read twice */
            g = &e->gathers[i];
        }
    for (size_t i = 0; g && i < e->n_dups; i++)
        if (e->dups[i].copy == ci)
            return NULL;
    for (size_t i = 0; g && i < e->n_tees; i++)
        if (e->tees[i].from == ci || (e->tees[i].to == ci && !tee_fills(e, &e->tees[i], ci)))
            return NULL;
    for (size_t i = 0; g && i < e->n_narrows; i++)
        if (e->narrows[i].copy == ci)
            return NULL;
    if (!g || emit_widen_of(e, ci) || emit_merge_of(e, cp))
        return NULL;
    const BlockUses *bu = &e->uses.blocks[cp->block];
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        long r = graph_block_pos(e->g, e->g->edges[bu->out_edges[j]]->dst);
        if (r < 0 || e->g->blocks[r]->type == BT_OUTPUT ||
            (e->core_of[r] == cp->core && (uint32_t)r != g->cadd))
            return NULL;
    }
    if (relay)
        *relay = -1;
    for (uint32_t j = 0; j < bu->n_in_edges; j++) { /* a relay forwarding the writer's values */
        long w = graph_block_pos(e->g, e->g->edges[bu->in_edges[j]]->src);
        int32_t after;
        if (w >= 0 && relays(e, cp, (uint32_t)w, &after)) {
            if (!relay || after == INT32_MAX)
                return NULL;
            *relay = after > *relay ? after : *relay;
        }
    }
    return g;
}

static EGather *sole_gather(Emit *e, uint32_t ci)
{
    return sole_reader(e, ci, NULL);
}

EGather *emit_sole_gather(Emit *e, uint32_t ci)
{
    return sole_gather(e, ci);
}

/* The router phases the runs of the edges into copy cp's block may take (taskir/lanes.h
 * lanes_phases): runs of pixels the first phase's P09 cannot hold all of (lanes_pixel_runs)
 * spill on into the phases after it (emit_route_spill.c, after the plan), the last landing
 * at most that many phases less one after the copy's last arrival phase; -1 when an edge
 * goes as bytes over several routers (lanes_bytes): which phase its last run lands in is
 * known only once they spill, so its gather keeps the latest slot before the CADD, which
 * the mapper places after those routers (qnet.onnx's byte moves). */
static int32_t spill_phases(const Emit *e, const ECopy *cp)
{
    const BlockUses *bu = &e->uses.blocks[cp->block];
    int32_t n = 1;
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const Edge *ed = e->g->edges[bu->in_edges[j]];
        int32_t k = lanes_phases(e->g, &e->uses, ed);
        if (k > 1 && lanes_bytes(e->g, &e->uses, ed))
            return -1;
        n = k > n ? k : n;
    }
    return n;
}

/* Whether copy ci stays in the receive area and only its gather reads it: a received copy
 * that could have moved out (ECopy.movable), or one its core's own router lands there, in
 * part or whole (emit_router_landed), which may also relay a writer's values on after it
 * has landed (gathered after the last such send); that gather (*g), where its data is in
 * place (*ms) and the first phase it may be gathered in (*lo: its last arrival phase, or
 * that of the last relay; for runs of pixels that may spill on, spill_phases, the last
 * phase they may land in, as the mapper's schedule waits for them, mapper/schedule.c
 * spill_wait: test emit_slice_spill). */
static bool candidate(Emit *e, uint32_t ci, EGather **g, EMoveSlot *ms, int32_t *lo)
{
    const ECopy *cp = &e->copies[ci];
    const ECore *c = &e->cores[cp->core];
    int32_t own = -1, own_first, relay = -1;
    if ((!cp->movable && !emit_router_landed(e, cp, &own_first, &own)) || cp->land != EMIT_NONE ||
        cp->req == EMIT_NONE || c->reqs[cp->req].kind != ALLOC_RECV)
        return false; /* moved out, merged, or not received whole in its phases */
    *g = cp->movable ? sole_gather(e, ci) : sole_reader(e, ci, &relay);
    if (!*g || (*g)->phase < 0)
        return false;
    emit_move_slot(e, cp, e->phase_of[(*g)->cadd], ms);
    *lo = cp->movable ? cp->move_phase : own;
    if (relay >= 0) { /* after the router of the last relay's phase, in this step */
        if (ms->wrap || relay >= e->phase_of[(*g)->cadd])
            return false;
        int64_t sent = (int64_t)relay * 8 + MAP_PI_ROUTER_SEND;
        ms->ready = sent > ms->ready ? sent : ms->ready;
        *lo = relay > *lo ? relay : *lo;
    }
    int32_t n = spill_phases(e, cp);
    if (n > 1) { /* in place after the router of the last phase its runs may land in */
        if (ms->wrap || *lo > INT32_MAX - n)
            return false;
        *lo += n - 1;
        int64_t at = (int64_t)*lo * 8 + MAP_PI_ROUTER_RECIEVE;
        ms->ready = at > ms->ready ? at : ms->ready;
    }
    return n > 0;
}

bool emit_gathered_early(Emit *e, uint32_t ci)
{
    EGather *g;
    EMoveSlot ms;
    int32_t lo;
    return candidate(e, ci, &g, &ms, &lo);
}

bool emit_gather_ends_soma1(Emit *e, uint32_t ci)
{
    const ECopy *cp = &e->copies[ci];
    const EGather *g = sole_gather(e, ci);
    return g && g->phase >= 0 && g->slot == MAP_PI_SOMA1 && cp->req != EMIT_NONE &&
           e->cores[cp->core].reqs[cp->req].last == g->phase;
}

/* Moves the P06 of gather g reading copy ci (data in place as ms says, from phase lo on) to
 * the earliest free Soma slot after the copy lands, and shortens the copy's area to end
 * there. */
static Status early(Emit *e, uint32_t ci, EGather *g, const EMoveSlot *ms, int32_t lo)
{
    ECopy *cp = &e->copies[ci];
    ECore *c = &e->cores[cp->core];
    int32_t hi = ms->wrap ? c->n_phases - 1 : g->phase, p, sl;
    emit_slot_free(e, cp->core, g->phase, g->slot);
    /* after the time ms->ready (phase * 8 + PIIndex) in emit_slot_when's unit */
    int64_t after = emit_slot_when((int32_t)(ms->ready / 8), (int32_t)(ms->ready % 8));
    if (!emit_slot_earliest(e, cp->core, lo, hi, after, &p, &sl))
        return emit_slot_take(e, cp->core, g->phase, g->slot, SLOT_GATHER, g->cadd);
    Status st = emit_slot_take(e, cp->core, p, sl, SLOT_GATHER, g->cadd);
    if (st != ST_OK)
        return st;
    g->phase = p;
    g->slot = sl;
    AllocReq *r = &c->reqs[cp->req]; /* in the receive area from its arrival to its P06 */
    int32_t own_first, own_last;
    if (cp->movable)
        r->first = cp->land_first;
    else if (emit_router_landed(e, cp, &own_first, &own_last) && own_first > r->first)
        r->first = own_first; /* its routers land it all: nothing in it before */
    r->last = p;
    AllocReq *a = &c->reqs[g->req]; /* the gathered area, from that P06 on */
    if (ms->wrap) {
        a->first = 0;
        a->last = c->n_phases - 1;
    } else if (p < a->first) {
        a->first = p;
    }
    cp->movable = false;
    return ST_OK;
}

/* A static map's image (copy cp, an 8-bit or int32 map) in layout to: what the gather's P06
 * writes from it, each value as it is (an 8-bit one read in its precision and widened to
 * int32), the lanes past the copy's pitch 0; NULL when out of memory. */
static uint32_t *image_as(const ECopy *cp, const EmitFeat *to)
{
    const EmitFeat *f = &cp->feat;
    uint32_t *w = calloc((size_t)to->words ? (size_t)to->words : 1, sizeof *w);
    int64_t lanes = f->c < to->c ? f->c : to->c;
    for (int64_t y = 0; w && y < f->ny; y++)
        for (int64_t x = 0; x < f->nx; x++) {
            const uint32_t *in = cp->image + emit_feat_offset(f, y, x);
            uint32_t *out = w + emit_feat_offset(to, y, x);
            for (int64_t j = 0; j < lanes; j++) {
                uint32_t b = f->per_word == 1 ? in[j] : (in[j / 4] >> (8 * (j % 4))) & 0xFFu;
                int32_t v = f->per_word == 1 || f->prec == PR_UINT_8 || b < 128
                                ? (int32_t)b : (int32_t)b - 256;
                if (to->per_word == 1)
                    out[j] = (uint32_t)v;
                else
                    emit_put_i8(out, j, v);
            }
        }
    return w;
}

/* Whether copy cp may lie in gather g's part once laid out so: its layout is the part's, or
 * it is a static map whose image the code generator writes in the part's layout (image_as:
 * an 8-bit map into an int32 part, or the same precision in another pitch). */
static bool fits_part(const ECopy *cp, const EGather *g, bool *rewrite)
{
    *rewrite = cp->feat.prec != g->feat.prec || cp->feat.c != g->feat.c ||
               cp->feat.words != g->feat.words;
    if (!*rewrite)
        return true;
    bool eight = cp->feat.prec == PR_INT_8 || cp->feat.prec == PR_UINT_8;
    return cp->is_static && cp->image && cp->feat.ny == g->feat.ny &&
           cp->feat.nx == g->feat.nx && cp->feat.nc == g->feat.nc &&
           (cp->feat.prec == g->feat.prec ? eight || cp->feat.prec == PR_INT_32
                                          : eight && g->feat.prec == PR_INT_32);
}

/* Whether copy ci may lie in part i of the area its gather g writes: it is not received
 * (or a P06 moves it out of the receive area: a whole copy in Soma2 of its arrival phase,
 * or a spread copy part by part, which moves it into its part instead; moving: one that is
 * to be moved so), only that gather reads it and it holds the part's layout (or is a static
 * map, its image then written in that layout, fits_part: *rewrite), and no other copy shares
 * its area (a tee). */
static bool may_lie(const Emit *e, uint32_t ci, const EGather *g, bool moving, bool *rewrite)
{
    const ECopy *cp = &e->copies[ci];
    const ECore *c = &e->cores[cp->core];
    bool moved = cp->received && (moving || cp->spread || cp->land != EMIT_NONE);
    if ((cp->received && !moved) || cp->view || cp->planes || cp->alias_of != EMIT_NONE ||
        cp->req == EMIT_NONE || c->reqs[cp->req].words == 0 ||
        (cp->image && (!cp->is_static || (int64_t)cp->n_image != cp->feat.words)))
        return false;
    if (memcmp(&g->box, &cp->box, sizeof cp->box) != 0 || !fits_part(cp, g, rewrite))
        return false;
    for (size_t j = 0; j < e->n_copies; j++)
        if (j != ci && e->copies[j].core == cp->core && e->copies[j].req == cp->req)
            return false;
    return true;
}

bool emit_gather_may_lie(Emit *e, const EGather *g, bool moving)
{
    bool rewrite;
    return sole_gather(e, g->copy) == g && may_lie(e, g->copy, g, moving, &rewrite);
}

/* Lays copy ci in its part of gather g's area (may_lie said it may): its writer (a compute
 * block on its core, an INPUT's dynamic blocks, the P06s moving it out of the receive area)
 * writes it there, and no P06 copies it. */
static void lay(Emit *e, uint32_t ci, EGather *g, bool rewrite)
{
    ECopy *cp = &e->copies[ci];
    ECore *c = &e->cores[cp->core];
    if (rewrite) {
        uint32_t *w = image_as(cp, &g->feat);
        if (!w)
            return; /* out of memory: the plan goes on without */
        free(cp->image);
        cp->image = w;
        cp->n_image = (size_t)g->feat.words;
        cp->feat = g->feat;
        cp->image_prec = g->feat.prec;
    }
    AllocReq *r = &c->reqs[cp->req], *a = &c->reqs[g->req];
    a->first = r->first < a->first ? r->first : a->first;
    a->last = r->last > a->last ? r->last : a->last;
    if (cp->is_static) { /* its image is loaded there before the run: no other area there */
        a->first = 0;
        a->last = c->n_phases - 1;
    }
    emit_request_drop(e, cp->core, cp->req);
    if (g->phase >= 0)
        emit_slot_free(e, cp->core, g->phase, g->slot);
    g->phase = -1; /* no P06 (emit_prim.c) */
    cp->req = g->req; /* its part's area */
    cp->req_off = 0;
}

/* Places copy ci in part i of the area its gather writes when it may (may_lie); whether it
 * did. A static map whose image the part's layout makes larger (an 8-bit map widened into
 * an int32 part) stays where it is: laid there, the part would live the whole step in the
 * larger size, where its P06 has a slot and the part lives from it to the CADD only, as the
 * mapper counts it (layout_gather_extra_bytes; test_diff_ops/broadcast_div_case_1_variant_1-4,
 * chip (0,0) core (6,4): 3816 words more in phase 21). */
static bool in_place(Emit *e, uint32_t ci)
{
    EGather *g = sole_gather(e, ci);
    bool rewrite;
    if (!g || g->phase < 0 || !may_lie(e, ci, g, false, &rewrite) ||
        (e->copies[ci].is_static && g->feat.words > e->copies[ci].feat.words))
        return false;
    lay(e, ci, g, rewrite);
    return true;
}

Status emit_gather_pending(Emit *e)
{
    for (size_t i = 0; i < e->n_gathers;) {
        const EGather *g0 = &e->gathers[i];
        size_t n = g0->i == 0 ? (size_t)g0->n : 1;
        int32_t bad = -1;
        bool pending = false, rewrite;
        for (size_t j = i; g0->i == 0 && j < i + n && bad < 0; j++) {
            const EGather *g = &e->gathers[j];
            if (g->phase != GATHER_PENDING)
                continue;
            pending = true;
            if (!emit_gather_may_lie(e, g, false))
                bad = g->i;
        }
        if (bad >= 0) {
            Status st = emit_gather_fail(e, i, n, g0->cadd, bad, GATHER_SLOT);
            if (st != ST_OK)
                return st;
            continue; /* the entries after moved down to i */
        }
        for (size_t j = i; pending && j < i + n; j++) {
            EGather *g = &e->gathers[j];
            if (g->phase == GATHER_PENDING && may_lie(e, g->copy, g, false, &rewrite))
                lay(e, g->copy, g, rewrite);
        }
        i += n;
    }
    return e->d->oom ? ST_RUNTIME : ST_OK;
}

/* Applies f to every copy on core k; whether it did something to any. */
static bool each_copy_on(Emit *e, uint32_t k, bool (*f)(Emit *, uint32_t))
{
    bool any = false;
    for (uint32_t i = 0; i < e->n_copies; i++)
        if (e->copies[i].core == k)
            any |= f(e, i);
    return any;
}

bool emit_in_place(Emit *e, uint32_t k)
{
    return each_copy_on(e, k, in_place);
}

bool emit_sends_after(const Emit *e, const ECopy *cp, uint32_t w, int32_t p)
{
    const BlockUses *bu = &e->uses.blocks[w];
    const ECore *c = &e->cores[cp->core];
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        const MapDict *dict = emit_edge_dict(e, e->g->edges[bu->out_edges[j]]->id);
        for (uint32_t k = 0; dict && k < dict->n_coords; k++) {
            const MapCoord *mc = &dict->coords[k];
            if (mc->pi_index == MAP_PI_ROUTER_SEND && mc->phase > p &&
                emit_same_place(c, mc) && mc->phase_group == c->phase_group &&
                mc->step_group == c->step_group)
                return true;
        }
    }
    return false;
}

/* Ends copy ci's area with the P06 gathering it, when that P06 is its last reader: a copy
 * that only its gather reads, with data of this step, from which nothing is sent later, in
 * an area of its own: in the data banks (not received, not static), or in the receive area
 * over its whole life (not moved out, spread or merged: one that a writer on its core
 * writes part of, which is not moved, emit_plan.c); whether it did. */
static bool end_at_gather(Emit *e, uint32_t ci)
{
    ECopy *cp = &e->copies[ci];
    ECore *c = &e->cores[cp->core];
    if (cp->is_static || cp->image || cp->view || cp->planes || cp->spread ||
        cp->alias_of != EMIT_NONE || cp->req == EMIT_NONE || c->reqs[cp->req].words == 0)
        return false;
    AllocKind kind = c->reqs[cp->req].kind;
    if (cp->received ? kind != ALLOC_RECV || cp->land != EMIT_NONE || emit_merge_of(e, cp)
                     : kind != ALLOC_DATA)
        return false;
    for (size_t j = 0; j < e->n_copies; j++) /* no other copy shares its area (a tee) */
        if (j != ci && e->copies[j].core == cp->core && e->copies[j].req == cp->req)
            return false;
    EGather *g = sole_gather(e, ci);
    EMoveSlot ms;
    if (!g || g->phase < 0)
        return false;
    emit_move_slot(e, cp, e->phase_of[g->cadd], &ms); /* its slot is the gather's now */
    if (ms.wrap)
        return false;
    AllocReq *r = &c->reqs[cp->req];
    if (r->last <= g->phase || r->first > g->phase)
        return false;
    const BlockUses *bu = &e->uses.blocks[cp->block];
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        long w = graph_block_pos(e->g, e->g->edges[bu->in_edges[j]]->src);
        if (w < 0 || emit_sends_after(e, cp, (uint32_t)w, g->phase))
            return false;
    }
    r->last = g->phase;
    return true;
}

bool emit_gathered_ends(Emit *e, uint32_t k)
{
    return each_copy_on(e, k, end_at_gather);
}

/* One copy to gather early: when its data is in place, and its gather. */
typedef struct EEarly {
    int64_t ready;
    uint32_t ci;
    EGather *g;
    EMoveSlot ms;
    int32_t lo;
    bool own; /* landed by its core's own router, in part (emit_router_landed) */
} EEarly;

/* In the order the copies' data is in place; at the same time a copy its own core's router
 * lands first, as the mapper plans those first (mapper/schedule.c own_lands, gather_wait.h:
 * each keeps the earliest free slot after it lands in the order planned). */
static int early_cmp(const void *a, const void *b)
{
    const EEarly *x = a, *y = b;
    if (x->ready != y->ready)
        return x->ready < y->ready ? -1 : 1;
    if (x->own != y->own)
        return x->own ? -1 : 1;
    return x->ci < y->ci ? -1 : x->ci > y->ci;
}

/* The gather of another input of x's CADD in Soma slot (p, sl) that may give it to x and
 * take x's later one (its copy is none of list[0..n)'s and lives to the CADD's phase: moved
 * out of the receive area, spread over phases); NULL when none. */
static EGather *yielder(Emit *e, const EEarly *list, size_t n, const EEarly *x, int32_t p,
                        int32_t sl)
{
    for (size_t i = 0; i < e->n_gathers; i++) {
        EGather *g = &e->gathers[i];
        if (g->cadd != x->g->cadd || g->i < 0 || g->phase != p || g->slot != sl)
            continue;
        for (size_t j = 0; j < n; j++)
            if (list[j].g == g)
                return NULL;
        const ECopy *cp = &e->copies[g->copy];
        if (cp->req == EMIT_NONE || e->cores[cp->core].reqs[cp->req].last < e->phase_of[g->cadd])
            return NULL;
        return g;
    }
    return NULL;
}

/* x's P06 again to the earliest Soma slot after its copy lands and before its own, free or
 * taken by another input's P06 that yields it (yielder: that one takes x's); *moved when
 * it moved. */
static Status pull_early(Emit *e, const EEarly *list, size_t n, const EEarly *x, bool *moved)
{
    EGather *g = x->g, *y = NULL;
    uint32_t k = e->copies[x->ci].core;
    int32_t was_p = g->phase, was_sl = g->slot;
    int64_t after = x->ready, was = emit_slot_when(was_p, was_sl);
    bool free_one = false; /* a free one first: early() takes the earliest */
    for (int32_t p = x->lo; p <= was_p && !y && !free_one; p++)
        for (int32_t sl = MAP_PI_SOMA1; sl <= MAP_PI_SOMA2 && !y && !free_one;
             sl += MAP_PI_SOMA2 - MAP_PI_SOMA1) {
            int64_t t = emit_slot_when(p, sl);
            if (t <= after || t >= was)
                continue;
            free_one = !emit_soma_taken(e, k, p, sl);
            /* (a copy of the step before: its slot may lie past the CADD's phase) */
            if (!free_one && !x->ms.wrap && (y = yielder(e, list, n, x, p, sl)) != NULL)
                emit_slot_free(e, k, p, sl);
        }
    Status st = early(e, x->ci, g, &x->ms, x->lo);
    if (st == ST_OK && y) {
        y->phase = was_p;
        y->slot = was_sl;
        st = emit_slot_take(e, k, was_p, was_sl, SLOT_GATHER, y->cadd);
    }
    *moved = *moved || emit_slot_when(g->phase, g->slot) < was;
    return st;
}

Status emit_early_gathers(Emit *e)
{
    /* the copies in the order their data is in place: each P06 moved takes the earliest
     * free slot, and leaves its old (later) one to the copies that land after it */
    EEarly *list = malloc((e->n_copies ? e->n_copies : 1) * sizeof *list);
    if (!list)
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    size_t n = 0;
    for (uint32_t i = 0; i < e->n_copies; i++) {
        EEarly *x = &list[n];
        if (candidate(e, i, &x->g, &x->ms, &x->lo)) {
            x->ci = i;
            x->own = !e->copies[i].movable;
            /* emit_slot_when's unit: the router's sends and receives at one time */
            x->ready = emit_slot_when((int32_t)(x->ms.ready / 8), (int32_t)(x->ms.ready % 8));
            n++;
        }
    }
    qsort(list, n, sizeof *list, early_cmp);
    Status st = ST_OK;
    for (size_t i = 0; i < n && st == ST_OK; i++)
        st = early(e, list[i].ci, list[i].g, &list[i].ms, list[i].lo);
    /* a P06 moved past slots the later copies' P06s still held before they moved, or that
     * the P06s of other inputs of its CADD (read from the data banks) took first: each
     * takes the earliest slot after its copy lands again, in the same order, until none
     * moves (each moves only earlier: the mapper plans them so, gather_wait.h;
     * test_diff_ops/cvm_precision_case_1__p_24_'s 22 inputs on core (8,2)) */
    for (bool moved = n > 0; moved && st == ST_OK;) {
        moved = false;
        for (size_t i = 0; i < n && st == ST_OK; i++)
            st = pull_early(e, list, n, &list[i], &moved);
    }
    free(list);
    return st;
}
