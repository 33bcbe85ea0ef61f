/* emit_spill_chain.c: a relaying chain's run that its sender's P09 cannot hold in a phase,
 * carried whole into the next (docs/backend.md, "Transfers", "Chains spilled whole"). The
 * sender sends the run once, under a MULTI_RELAY_CAST header, to the chain's first core;
 * every core of the chain keeps it and all but the last forward it to the next
 * (emit_chain_plan.c). The run moves from phase p to q = p + 1 with all its cores when:
 *   - every core may take its part then as emit_spill_movable says of one receiver (its copy
 *     alive and not spread, no reader before the router of q, the P06 out of the receive
 *     area able to follow), and the sender's area stays alive, not sent from otherwise;
 *   - the sender sends no bytes in q (a P09 has one packet size) and starts none of q's own
 *     chains;
 *   - no core of the chain is in one of q's own chains; a core that a run spilled whole from
 *     p before this one chained in q forwards to the same next core (p's trees stay trees);
 *   - a forwarded packet keeps its address, so the cores keep the differences of their
 *     receive bases in p; all are lowered by one amount d >= 0, the least that puts each
 *     core's base at or before every word it receives into in q (the cores chained by earlier
 *     spilled runs fix d), inside MEM2, and no core receives bytes in q;
 *   - each forwarding core's packets stay within Relay_number (4096).
 * Then in p the cores' end marks and forwarded packets drop, in q they grow, the cores are
 * chained there, and the run's sends to its other cores (EPhase.chain_rest) go with it.
 */
#include "backend/emit_internal.h"

#include "backend/core_mem.h"

#include <stdlib.h>
#include <string.h>

enum { RELAY_MAX = 4096 };

/* A chain's run as its sender starts it in phase p: s[0] the send to its first core, then
 * those to its other cores in chain order, from p's chain_rest at rest[0..m - 1). */
typedef struct SpillChain {
    uint32_t k;
    int32_t p;
    ESend *s;
    size_t m, rest;
} SpillChain;

/* The least word core c receives into in phase q (INT64_MAX: none); *bytes: whether a run of
 * bytes lands there. */
static int64_t first_word(const Emit *e, uint32_t c, int32_t q, bool *bytes)
{
    int64_t lo = INT64_MAX;
    *bytes = false;
    EPhaseSends it = emit_phase_sends(q, false);
    for (const ESend *s; (s = emit_phase_sends_next(e, &it));) {
        if (s->dst_core != c)
            continue;
        *bytes |= s->single;
        int64_t w = s->dst_addr / (s->single ? 4 : 1);
        lo = w < lo ? w : lo;
    }
    return lo;
}

/* Whether the chain's cores are free for it in q = p + 1; *d: the amount their bases of p
 * are lowered by there; *low: the amount the bases of q's chains holding its cores (*at one
 * of them, EMIT_NONE: none) are lowered by first, so that the run lands past them. */
static Status free_then(Emit *e, const SpillChain *c, int64_t *d, int64_t *low, uint32_t *at,
                        bool *ok)
{
    int32_t p = c->p, q = p + 1;
    const ECore *a = &e->cores[c->k];
    *ok = false;
    *low = 0;
    *at = EMIT_NONE;
    if (q >= a->n_phases)
        return ST_OK;
    for (size_t i = 0; i < a->ph[q].n_sends; i++)
        if (a->ph[q].sends[i].single)
            return ST_OK;
    int64_t diff = 0, under = 0; /* p's bases less q's; the most a core's p base lies past the
                                    word the run lands at there */
    for (size_t t = 0; t < c->m; t++) { /* chained in q: forwarding alike, bases one apart */
        const ESend *s = &c->s[t];
        const EPhase *cp = &e->cores[s->dst_core].ph[p], *cq = &e->cores[s->dst_core].ph[q];
        uint32_t next = t + 1 < c->m ? c->s[t + 1].dst_core : EMIT_NONE;
        if (!emit_spill_movable(e, c->k, p, s, false, true) || !cp->recv_base ||
            (t + 1 < c->m && cq->relayed + s->words / 2 > RELAY_MAX))
            return ST_OK;
        under = cp->recv_base - s->dst_addr > under ? cp->recv_base - s->dst_addr : under;
        if (!cq->chained)
            continue;
        if (cq->chain_next != next || (*at != EMIT_NONE && cp->recv_base - cq->recv_base != diff))
            return ST_OK;
        diff = cp->recv_base - cq->recv_base;
        *at = s->dst_core;
    }
    int64_t least = 0; /* the least d the other cores take */
    for (size_t t = 0; t < c->m; t++) {
        uint32_t dk = c->s[t].dst_core;
        bool bytes;
        if (e->cores[dk].ph[q].chained)
            continue;
        int64_t lo = first_word(e, dk, q, &bytes);
        int64_t need = e->cores[dk].ph[p].recv_base - lo;
        if (bytes)
            return ST_OK;
        least = lo != INT64_MAX && need > least ? need : least;
    }
    least = under > least ? under : least;
    if (*at != EMIT_NONE && least > diff) { /* q's chains' bases lowered: only those of own */
        *low = (least - diff + 1) / 2 * 2;
        Status st = emit_chain_lower(e, q, *at, *low, false, ok);
        if (st != ST_OK || !*ok)
            return st;
        *ok = false;
    }
    *d = *at != EMIT_NONE ? diff + *low : least;
    for (size_t t = 0; t < c->m; t++) {
        int64_t base = e->cores[c->s[t].dst_core].ph[p].recv_base - *d;
        if (base < ASM_MEM2_BASE || c->s[t].dst_addr < base || (c->s[t].dst_addr - base) / 2 > 4095)
            return ST_OK;
    }
    *ok = true;
    return ST_OK;
}

/* Moves the run: marks, relays, chain and bases from p to q, its other sends into q's
 * chain_rest. */
static Status move(Emit *e, const SpillChain *c, int64_t d)
{
    int32_t p = c->p, q = p + 1;
    for (size_t t = 0; t < c->m; t++)
        if (!emit_spill_movable(e, c->k, p, &c->s[t], true, true))
            return diag_add(e->d, ST_RUNTIME, "emit.internal", e->cores[c->k].name,
                            "phase %d: a relaying chain's run found free in phase %d is not",
                            p, q);
    int64_t packets = c->s[0].words / 2;
    for (size_t t = 0; t < c->m; t++) {
        const ESend *s = &c->s[t];
        EPhase *cp = &e->cores[s->dst_core].ph[p], *cq = &e->cores[s->dst_core].ph[q];
        cp->recv_marks--;
        cq->recv_marks++;
        cq->recv_block = s->block;
        if (t + 1 < c->m) {
            cp->relayed -= packets;
            cq->relayed += packets;
        }
        cq->spill_chained = cq->chained ? cq->spill_chained : true; /* q's own stay own */
        cq->chained = true;
        cq->chain_next = t + 1 < c->m ? c->s[t + 1].dst_core : EMIT_NONE;
        cq->recv_base = cp->recv_base - d;
    }
    EPhase *ap = &e->cores[c->k].ph[p], *aq = &e->cores[c->k].ph[q];
    if (emit_chain_rest_add(e, aq, c->s + 1, c->m - 1) != ST_OK)
        return ST_RUNTIME;
    memmove(ap->chain_rest + c->rest, ap->chain_rest + c->rest + c->m - 1,
            (ap->n_chain_rest - c->rest - (c->m - 1)) * sizeof *ap->chain_rest);
    ap->n_chain_rest -= c->m - 1;
    return ST_OK;
}

Status emit_spill_chain(Emit *e, uint32_t k, int32_t p, const ESend *s, bool commit,
                        bool *moved)
{
    *moved = false;
    const EPhase *ph = &e->cores[k].ph[p];
    size_t r0 = 0, m = 1;
    while (r0 < ph->n_chain_rest && !emit_same_run(s, &ph->chain_rest[r0]))
        r0++;
    while (r0 + m - 1 < ph->n_chain_rest && emit_same_run(s, &ph->chain_rest[r0 + m - 1]))
        m++;
    if (m < 2)
        return ST_OK; /* no chain recorded: it stays */
    SpillChain c = {.k = k, .p = p, .m = m, .rest = r0, .s = malloc(m * sizeof *c.s)};
    if (!c.s)
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    c.s[0] = *s;
    memcpy(c.s + 1, ph->chain_rest + r0, (m - 1) * sizeof *c.s);
    int64_t d = 0, low = 0;
    uint32_t at = EMIT_NONE;
    bool ok = false;
    Status st = free_then(e, &c, &d, &low, &at, &ok);
    if (!commit) {
        *moved = st == ST_OK && ok;
        free(c.s);
        return st;
    }
    if (st == ST_OK && ok && low)
        st = emit_chain_lower(e, c.p + 1, at, low, true, &ok);
    if (st == ST_OK && ok) {
        st = move(e, &c, d);
        *moved = st == ST_OK;
    }
    free(c.s);
    return st;
}
