/* emit_route_spill.c: a core's sends of one phase that its P09 cannot hold, carried on in the
 * phases after it (docs/backend.md, "Transfers", "Sends spilled into later phases"). A P09
 * holds at most 128 headers (the header table, disabled ones skipping gaps included), and
 * byte moves (a rearrangement's lanes, channels off the 8-byte units) take a header a run:
 * they pass the table (conv2d_case_3: 199 headers in a phase); and the router reads its send
 * area once, in order, so a run overlapping the one before it (a value that lands in several
 * places, rank_0) goes in a later phase. Phase by phase, each sender
 * keeps its runs in the order of its memory while the table holds them, and moves the
 * others into the next phase, when that phase is free for them (the Mapping gives the
 * phase: the reader comes after it):
 *   - the sender's area holding the run is alive then (its request's lifetime, lengthened
 *     when no other request takes its words until then), the sender starts none of that
 *     phase's own relaying chains and sends nothing overlapping it (but runs into the same
 *     copy, which spill on in turn, and that phase's own runs when the run may go on from
 *     there: the spill of that phase keeps the fixed one of the two);
 *   - the receiver's copy is alive then, does not arrive in parts (spread); a P06 moving it
 *     out of the receive area in Soma2 of the first phase goes to Soma2 of the next when
 *     that is free; no reader of it on its core runs before the router of that phase (a
 *     compute block: a later phase, or that phase's Soma2; no inserted Soma primitive reads
 *     it before: a gather of other copies does not), its core sends nothing from it in
 *     between (nor, when its move waits for Soma2 of the next phase, from its own area in
 *     that phase: the router runs before that Soma2), and its receive area is not one of that phase's own relaying chains' (a
 *     chain spilled there whole takes runs landing past its base);
 *   - both cores are in one phase group, or the receiver in a later one (a later stage: a
 *     packet sent in phase q lands in phase q there, and the receiver's readers before the
 *     router of p read the sample of the step before, so only a reader between the routers
 *     of p and q keeps the run in p; lanes_spill_stage.map.txtpb).
 * A relaying chain's run moves whole, with all its cores, or stays (emit_spill_chain.c); a
 * phase past the table where one of them cannot move has its runs joined under fewer
 * headers first (emit_spill_merge.c).
 * A phase whose runs of bytes make a word run that may not move leave a byte header's ranges
 * moves them all on first, when they all may go, and sends words (bytes_on); a run of bytes
 * that would be stuck in such phases stays in the one before them, its receiver's base
 * raised until it reaches (emit_spill_stuck.c).
 * What does not fit stays, and the P09 refuses it [emit.route] (emit_route.c); so does a
 * header past the 4 KiB reach (not spilled: the next phase's receive base is the same).
 */
#include "backend/emit_internal.h"

#include "backend/core_mem.h"
#include "taskir/lanes.h"

#include <stdlib.h>
#include <string.h>

/* A run of a core's phase in the order the spill takes them: by its first unit in the
 * sender's memory (bytes when the phase sends bytes), those that may not move first (so that
 * of two overlapping runs, a value sent to several places, the one that may move waits),
 * then by where they land. */
typedef struct SpillRun {
    ESend s;
    int64_t src, end, dst; /* in the phase's units: its first, the one after its last, where
                              it lands */
    bool fixed, checked;   /* it may not move to the next phase; whether that was asked */
} SpillRun;

static int run_cmp(const void *a, const void *b)
{
    const SpillRun *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->fixed != y->fixed)
        return x->fixed ? -1 : 1;
    return (x->dst > y->dst) - (x->dst < y->dst);
}

/* The words [lo, hi) a send's run covers in its sender's (src) or receiver's memory. */
static void words_of(const ESend *s, bool at_dst, int64_t *lo, int64_t *hi)
{
    int64_t wb = s->single ? 4 : 1, a = at_dst ? s->dst_addr : s->src;
    int64_t n = at_dst ? (s->words / s->run - 1) * s->stride + s->run : s->words;
    *lo = a / wb;
    *hi = (a + n + wb - 1) / wb;
}

/* Whether the request on core k that holds words [lo, hi) at the router of phase p may hold
 * them until phase q: it does, or no other request shares any of its words from its last
 * phase to q (the plan keeps them then: its lifetime is lengthened). A request done with
 * before that router (after the Axon or Soma1 of its last phase) is not the one: another
 * may take its words from there (a copy landing where a read one lay). */
static bool keeps(Emit *e, uint32_t k, int32_t p, int64_t lo, int64_t hi, int32_t q,
                  bool commit)
{
    ECore *c = &e->cores[k];
    for (size_t i = 0; i < c->n_reqs; i++) {
        AllocReq *r = &c->reqs[i];
        if (r->first > p || r->last < p || c->addr[i] > lo || hi > c->addr[i] + r->words ||
            (r->last == p && (r->last_axon || r->last_soma1)))
            continue;
        if (r->last >= q)
            return true;
        for (size_t j = 0; j < c->n_reqs; j++)
            if (j != i &&
                ((c->reqs[j].first <= q && c->reqs[j].last > r->last) ||
                 (c->reqs[j].again > 0 && c->reqs[j].again <= q)) &&
                c->addr[j] < c->addr[i] + r->words && c->addr[i] < c->addr[j] + c->reqs[j].words)
                return false;
        if (commit)
            r->last = q;
        return true;
    }
    return false;
}

/* Whether core k sends words overlapping [lo, hi) in phase q (in its memory), other than
 * into the copy of block id `into` (-1: none) or spilled into q from the phase before (into:
 * not -1): those that overlap (a value sent to several places) spill on from q in their
 * turn. */
static bool sends_from(const Emit *e, uint32_t k, int32_t q, int64_t lo, int64_t hi,
                       int32_t into)
{
    const EPhase *ph = &e->cores[k].ph[q];
    for (size_t i = 0; i < ph->n_sends; i++) {
        int64_t a, b;
        if (into >= 0 && (ph->sends[i].block == into || ph->sends[i].spilled))
            continue;
        words_of(&ph->sends[i], false, &a, &b);
        if (a < hi && lo < b)
            return true;
    }
    return false;
}

/* Whether Soma slot sl of phase p of copy cp's core may read cp (block position pos): an
 * inserted primitive that merges or widens copies, one that moves cp out of the receive
 * area, or a gather one of whose inputs is cp (a move of another block's reads that one
 * only, a gather of others' inputs those; a compute block is checked as a reader). */
static bool slot_reads(const Emit *e, const ECopy *cp, int32_t p, int32_t sl, uint32_t pos)
{
    ESlotUse u = emit_slot_use(e, cp->core, p, sl);
    if ((u.kind == SLOT_MOVE || u.kind == SLOT_PART) && u.block != pos)
        return false;
    if (u.kind == SLOT_GATHER)
        return emit_gathers_copy(e, cp, p, sl);
    return u.kind != SLOT_FREE && u.kind != SLOT_BLOCK && u.kind != SLOT_NARROW &&
           u.kind != SLOT_SENDBUF && u.kind != SLOT_TEE;
}

/* Whether run s may land on core dk in phase q as far as relaying chains go: dk is in none
 * then, or only in runs spilled there whole (emit_spill_chain.c), whose receive base s
 * lands at or past (words, not bytes); else *lower: whether the bases of the cores the
 * chains tie to dk, lowered alike, take it (emit_spill_lower.c). */
static Status chain_lets(Emit *e, uint32_t dk, int32_t q, const ESend *s, bool *lets,
                         bool *lower)
{
    const EPhase *ph = &e->cores[dk].ph[q];
    *lower = false;
    *lets = !ph->chained || (ph->spill_chained && !s->single && s->dst_addr >= ph->recv_base);
    if (*lets)
        return ST_OK;
    Status st = emit_spill_lower(e, q, s, false, lower);
    *lets = *lower;
    return st;
}

/* Whether core sk relays a chain in phase q that is not spilled there whole. */
static bool relays_own(const Emit *e, uint32_t sk, int32_t q)
{
    const EPhase *ph = &e->cores[sk].ph[q];
    for (size_t i = 0; i < ph->n_sends; i++)
        if (ph->sends[i].relay && !ph->sends[i].spilled)
            return true;
    return false;
}

/* Whether send s of core sk may move from phase p to phase q = p + 1; when it may, the areas
 * it reads and lands in are kept alive until q, and the P06 moving its copy out of the
 * receive area in Soma2 of p, if any, goes to Soma2 of q. A chain's part (in_chain) leaves
 * the chain's cores in q to emit_spill_chain. */
static bool movable(Emit *e, uint32_t sk, int32_t p, const ESend *s, bool commit,
                    bool in_chain, bool ahead);

bool emit_spill_movable(Emit *e, uint32_t sk, int32_t p, const ESend *s, bool commit,
                        bool in_chain)
{
    return movable(e, sk, p, s, commit, in_chain, false);
}

bool emit_spill_goes_on(Emit *e, uint32_t sk, int32_t p, const ESend *s)
{
    return movable(e, sk, p, s, false, false, true);
}

/* emit_spill_movable; ahead: as if s had just moved into p from p - 1 (asked, not committed:
 * a P06 moving its copy out of the receive area in Soma2 of p - 1 would be in Soma2 of p). */
static bool movable(Emit *e, uint32_t sk, int32_t p, const ESend *s, bool commit,
                    bool in_chain, bool ahead)
{
    int32_t q = p + 1;
    uint32_t dk = s->dst_core;
    ECore *a = &e->cores[sk], *b = &e->cores[dk];
    /* a receiver of a later stage reads what lands in this step in the next one: its
     * readers before the router of p read the sample before, so only those between that
     * router and q's keep the runs in p */
    bool staged = a->phase_group < b->phase_group, lets = true, lower = false;
    if ((s->relay && !in_chain) || q >= a->n_phases || q >= b->n_phases ||
        a->phase_group > b->phase_group || a->step_group != b->step_group ||
        relays_own(e, sk, q))
        return false;
    if (!in_chain && (chain_lets(e, dk, q, s, &lets, &lower) != ST_OK || !lets))
        return false;
    int64_t lo, hi, dlo, dhi;
    words_of(s, false, &lo, &hi);
    words_of(s, true, &dlo, &dhi);
    long pos = graph_block_pos(e->g, s->block);
    ECopy *cp = pos >= 0 ? emit_copy_on(e, (uint32_t)pos, dk) : NULL;
    /* a run overlapping one of q's own sends may go to q when it may go on from q in its
       turn (there the spill keeps the fixed one of two overlapping runs: run_cmp) */
    if ((sends_from(e, sk, q, lo, hi, s->block) &&
         (s->relay || !movable(e, sk, q, s, false, false, true))) ||
        !cp || cp->spread || cp->last < q)
        return false;
    /* a copy moved out of the receive area in Soma2 of p: its move waits for Soma2 of q */
    bool later = cp->land != EMIT_NONE && cp->move_phase < q;
    bool moved_ahead = ahead && later && cp->move_phase == p - 1; /* its move would be in p */
    if (later && (cp->move_phase != (moved_ahead ? p - 1 : p) ||
                  b->ph[cp->move_phase].soma[1].kind != SLOT_MOVE ||
                  (moved_ahead && emit_soma_taken(e, dk, p, MAP_PI_SOMA2)) ||
                  emit_soma_taken(e, dk, q, MAP_PI_SOMA2)))
        return false;
    /* a copy whose move waits for Soma2 of q: its core sends nothing from the copy's own
     * area in q either (the router of q would read it before that Soma2 writes it: the
     * step before's rows, broadcast_div_case_1_variant_2-4 on its session-19 Mapping) */
    int64_t ca = later ? emit_copy_addr(e, cp) : 0;
    if (later && sends_from(e, dk, q, ca, ca + cp->feat.words, -1))
        return false;
    /* nothing reads the copy before the router of phase q (of a later stage: after p's) */
    if (emit_reader_between(e, (uint32_t)pos, dk, staged ? p : -1, q) >= 0)
        return false;
    /* a gather reading the copy in Soma2 of p follows it to Soma2 of q (emit_gather_late.c) */
    bool gather = !later && emit_gather_later(e, cp, p, false);
    for (int32_t r = p; r <= q; r++)
        if ((r < q && !later && !gather && slot_reads(e, cp, r, MAP_PI_SOMA2, (uint32_t)pos)) ||
            (r > p && slot_reads(e, cp, r, MAP_PI_SOMA1, (uint32_t)pos)) ||
            (r > p && sends_from(e, dk, r, dlo, dhi, -1)))
            return false;
    /* the areas held at the router of p (ahead: of p - 1, not yet lengthened) until q */
    int32_t from = ahead ? p - 1 : p;
    if (!keeps(e, dk, from, dlo, dhi, q, commit) || !keeps(e, sk, from, lo, hi, q, commit))
        return false;
    if (later && commit) {
        if (!emit_soma2_next(e, dk, p))
            return false;
        cp->move_phase = q;
    }
    if (gather && commit && !emit_gather_later(e, cp, p, true))
        return false;
    bool lowered = false;
    return !lower || !commit || (emit_spill_lower(e, q, s, true, &lowered) == ST_OK && lowered);
}

/* The room the table keeps for the runs of core k's phase p that may not move, or would be
 * stuck in p + 1 (emit_spill_stuck.c), when the table cannot hold all its n runs
 * (emit_headroom.c); else none (h->n 0). */
static Status fixed_room(Emit *e, uint32_t k, int32_t p, SpillRun *runs, size_t n, int64_t per,
                         int64_t wb, EHeadRun **hr, EHeadroom *h)
{
    int64_t heads = 0, end = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t gap = i ? runs[i].src - end : runs[i].src % wb;
        heads += 1 + (gap > 0 ? (gap / per + LANES_HEAD_PACKETS - 1) / LANES_HEAD_PACKETS : 0);
        end = runs[i].end > end ? runs[i].end : end;
    }
    *h = (EHeadroom){0};
    if (heads <= LANES_HEADS)
        return ST_OK;
    int8_t push = -1;
    *hr = malloc(n * sizeof **hr);
    if (!*hr)
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        SpillRun *r = &runs[i];
        r->fixed = r->checked ? r->fixed
                              : !r->s.relay && !emit_spill_movable(e, k, p, &r->s, false, false);
        r->checked = true;
        r->fixed = r->fixed || emit_spill_stuck(e, k, p, &r->s, &push);
        (*hr)[i] = (EHeadRun){r->src, r->end, r->fixed};
    }
    return emit_headroom_init(e, h, *hr, n, per, wb);
}

/* Appends send s of core k's phase p, moved, to phase p + 1's (marked spilled), its
 * receiver's marks with it. */
static Status move_on(Emit *e, uint32_t k, int32_t p, ESend *s)
{
    EPhase *nq = &e->cores[k].ph[p + 1];
    ESend *ns = emit_grow(e, nq->sends, &nq->cap_sends, nq->n_sends, sizeof *nq->sends);
    if (!ns)
        return ST_RUNTIME;
    nq->sends = ns;
    s->spilled = true;
    nq->sends[nq->n_sends++] = *s;
    if (s->relay)
        return ST_OK;
    e->cores[s->dst_core].ph[p].recv_marks--;
    e->cores[s->dst_core].ph[p + 1].recv_marks++;
    e->cores[s->dst_core].ph[p + 1].recv_block = s->block;
    return ST_OK;
}

/* Whether the runs of bytes of core k's phase p push one of its word runs that may not move
 * out of its header's reach (sent as bytes it lands 4 KiB or more past its receiver's base
 * (base[]: words), as words it would not), while every run of bytes may move to p + 1: then
 * they move there (committed; one that a move before took the room of stays) and the phase
 * sends words when none stays. *words: whether it does. */
static Status bytes_on(Emit *e, uint32_t k, int32_t p, const int64_t *base, bool *words)
{
    EPhase *ph = &e->cores[k].ph[p];
    bool pushed = false;
    *words = false;
    for (size_t i = 0; i < ph->n_sends; i++) {
        const ESend *s = &ph->sends[i];
        if (s->single && (s->relay || !emit_spill_movable(e, k, p, s, false, false)))
            return ST_OK;
        pushed |= !s->single && !s->relay && !emit_spill_fits_bytes(s, base[s->dst_core]) &&
                  !emit_spill_movable(e, k, p, s, false, false);
    }
    if (!pushed)
        return ST_OK;
    size_t kept = 0;
    for (size_t i = 0; i < ph->n_sends; i++) {
        ESend s = ph->sends[i];
        if (!s.single) {
            ph->sends[kept++] = s;
            continue;
        }
        if (!emit_spill_movable(e, k, p, &s, true, false)) { /* one moved before took it */
            ph->sends[kept++] = s;
            continue;
        }
        Status st = move_on(e, k, p, &s);
        if (st != ST_OK)
            return st;
    }
    *words = true;
    for (size_t i = 0; i < kept; i++)
        *words &= !ph->sends[i].single;
    ph->n_sends = kept;
    return ST_OK;
}

/* Core k's sends of phase p: keeps those the header table holds, in the order of its memory,
 * whose first packet reaches its receiver from that receiver's base (base[]: words), and
 * moves the others that may go to phase p + 1 there. */
static Status spill(Emit *e, uint32_t k, int32_t p, const int64_t *base)
{
    EPhase *ph = &e->cores[k].ph[p];
    Status mst = emit_spill_merge(e, k, p); /* runs joined first (emit_spill_merge.c) */
    if (mst != ST_OK)
        return mst;
    bool single = false, words = false;
    for (size_t i = 0; i < ph->n_sends; i++)
        single |= ph->sends[i].single;
    if (single && (mst = bytes_on(e, k, p, base, &words)) != ST_OK)
        return mst;
    single = single && !words;
    int64_t per = single ? 1 : 2, wb = single ? 4 : 1; /* units a packet, a word */
    SpillRun *runs = malloc(ph->n_sends * sizeof *runs);
    if (!runs)
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    for (size_t i = 0; i < ph->n_sends; i++) {
        int64_t scale = single && !ph->sends[i].single ? 4 : 1; /* a word run sent as bytes */
        const ESend *r = &ph->sends[i];
        runs[i] = (SpillRun){*r, r->src * scale, (r->src + r->words) * scale,
                             r->dst_addr * scale, false, false};
    }
    qsort(runs, ph->n_sends, sizeof *runs, run_cmp);
    /* of the runs that overlap others, those that may not move go first */
    bool over = false;
    for (size_t i = 1, far = 0; i < ph->n_sends; i++) { /* far: the run reaching furthest */
        if (runs[far].end > runs[i].src) {
            for (size_t j = 0; j < 2; j++) {
                SpillRun *r = &runs[j ? far : i];
                r->fixed = r->checked ? r->fixed
                                      : !emit_spill_movable(e, k, p, &r->s, false, false);
                r->checked = true;
            }
            over = true;
        }
        if (runs[i].end > runs[far].end)
            far = i;
    }
    if (over)
        qsort(runs, ph->n_sends, sizeof *runs, run_cmp);
    size_t kept = 0, n = ph->n_sends;
    int64_t heads = 0, end = 0; /* headers so far; the unit after the last run kept */
    EHeadRun *hr = NULL;
    EHeadroom room;
    Status rst = fixed_room(e, k, p, runs, n, per, wb, &hr, &room);
    for (size_t i = 0; i < n && rst == ST_OK; i++) {
        ESend s = runs[i].s;
        int64_t scale = single && !s.single ? 4 : 1; /* a word run sent as bytes */
        int64_t src = runs[i].src, gap = kept ? src - end : src % wb;
        /* the run's header, and the disabled ones skipping the gap before it */
        int64_t need = 1 + (gap / per + LANES_HEAD_PACKETS - 1) / LANES_HEAD_PACKETS;
        int64_t off = s.dst_addr * scale - base[s.dst_core] * wb;
        bool near = off >= 0 && off / per < LANES_HEAD_PACKETS;
        /* a run overlapping the one kept before it (a value sent to several places) waits
         * too: the router sends its area's words once, in order */
        int64_t after = src + s.words * scale > end ? src + s.words * scale : end;
        bool moved = false;
        if (!(gap >= 0 && heads + need + emit_headroom(&room, i + 1, after, true) <= LANES_HEADS &&
              near)) {
            /* a relaying chain's run moves whole, its cores' marks with it */
            Status st = s.relay ? emit_spill_chain(e, k, p, &s, true, &moved) : ST_OK;
            if (st != ST_OK) {
                rst = st;
                break;
            }
            moved = s.relay ? moved : emit_spill_movable(e, k, p, &s, true, false);
        }
        if (!moved) {
            ph->sends[kept++] = s;
            heads += need;
            end = after;
            continue;
        }
        rst = move_on(e, k, p, &s);
    }
    if (rst == ST_OK)
        ph->n_sends = kept;
    emit_headroom_free(&room);
    free(hr);
    free(runs);
    return rst;
}

/* The receive base (word) of every core in phase p: a relaying chain's; else, when a run of
 * bytes lands there 4 KiB or more past the receive area's start, the first word the core
 * receives into in p, rounded down to an 8-byte unit (raised: every packet of p lands past
 * it); else the receive area's start. raised[k]: whether it is so. */
static void bases(Emit *e, int32_t p, int64_t *base, bool *raised, int8_t *push)
{
    for (uint32_t k = 0; k < e->n_cores; k++) {
        base[k] = p < e->cores[k].n_phases && e->cores[k].ph[p].recv_base
                      ? e->cores[k].ph[p].recv_base : 0;
        raised[k] = false;
    }
    for (int pass = 0; pass < 2; pass++) { /* the first word; then whether bytes land far */
        EPhaseSends it = emit_phase_sends(p, false);
        for (const ESend *s; (s = emit_phase_sends_next(e, &it));) {
            uint32_t d = s->dst_core;
            if (e->cores[d].ph[p].recv_base)
                continue; /* a chain's */
            int64_t w = s->dst_addr / (s->single ? 4 : 1);
            if (pass == 0 && (!base[d] || w < base[d]))
                base[d] = w / 2 * 2;
            if (pass == 1 && s->single && s->dst_addr - ASM_MEM2_RECV * 4 >= LANES_HEAD_PACKETS)
                raised[d] = true;
        }
    }
    for (uint32_t k = 0; k < e->n_cores; k++) {
        if (!raised[k] && !(p < e->cores[k].n_phases && e->cores[k].ph[p].recv_base))
            base[k] = ASM_MEM2_RECV;
        push[k] = -1;
    }
    emit_spill_raise(e, p, base, raised, push);
}

Status emit_route_spill(Emit *e)
{
    int32_t phases = emit_max_phases(e);
    size_t n = e->n_cores ? e->n_cores : 1;
    int64_t *base = malloc(n * sizeof *base);
    bool *raised = malloc(n * sizeof *raised);
    int8_t *push = malloc(n * sizeof *push);
    Status st = base && raised && push ? ST_OK
                                       : diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    /* phase by phase, over all cores: what lands in p is known once p - 1 is done (moves go
     * to p + 1 only), so each receiver's base in p is */
    for (int32_t p = 0; p < phases && st == ST_OK; p++) {
        bases(e, p, base, raised, push);
        for (uint32_t k = 0; k < e->n_cores && st == ST_OK; k++)
            if (p < e->cores[k].n_phases && e->cores[k].ph[p].n_sends)
                st = spill(e, k, p, base);
        for (uint32_t k = 0; k < e->n_cores; k++)
            if (raised[k])
                e->cores[k].ph[p].recv_base = base[k];
    }
    free(base);
    free(raised);
    free(push);
    return st;
}
