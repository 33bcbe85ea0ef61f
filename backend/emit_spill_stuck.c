/* emit_spill_stuck.c: runs of bytes the spill (emit_route_spill.c) would carry into a phase
 * they may not leave, where they make the phase send bytes and push its word runs out of a
 * byte header's reach (docs/backend.md "Sends spilled into later phases", "Runs of bytes kept
 * back"). Such a run is kept in the phase before it: the table keeps room for it there, and
 * its receiver's base in that phase is raised until it reaches, the runs landing below the
 * raised base going on instead.
 */
#include "backend/emit_internal.h"

#include "taskir/lanes.h"

/* The phases a run of bytes is followed through phases that must send words. */
enum { STUCK_AHEAD = 4 };

bool emit_spill_fits_bytes(const ESend *s, int64_t base)
{
    return (s->dst_addr - base) * 4 < LANES_HEAD_PACKETS && s->words * 4 <= 4096 &&
           (s->run == s->stride || (s->run * 4 <= 128 && (s->stride - s->run) * 4 < 4096));
}

/* Whether core k's phase q holds a word run that may not move to q + 1 and, sent as bytes,
 * would leave a header's reach from its receiver's base in q (as far as it is known). */
static bool pushed(Emit *e, uint32_t k, int32_t q)
{
    if (q >= e->cores[k].n_phases)
        return false;
    const EPhase *ph = &e->cores[k].ph[q];
    for (size_t i = 0; i < ph->n_sends; i++) {
        const ESend *s = &ph->sends[i];
        if (!s->single && !s->relay &&
            !emit_spill_fits_bytes(s, emit_recv_base(e, s->dst_core, q)) &&
            !emit_spill_movable(e, k, q, s, false, false))
            return true;
    }
    return false;
}

bool emit_spill_stuck(Emit *e, uint32_t k, int32_t p, const ESend *s, int8_t *push)
{
    if (!s->single || s->relay)
        return false;
    if (*push < 0)
        *push = pushed(e, k, p + 1);
    /* carried on through the phases that must send words, it stops in one it may not leave
     * (each asked as if the run had just moved into it from the one before: a copy's move
     * out of the receive area that would have to follow it more than one phase, or areas
     * held from an earlier router, count it stuck, so the table keeps it earlier) */
    for (int32_t q = p + 1; q <= p + STUCK_AHEAD; q++) {
        if (q > p + 1 ? !pushed(e, k, q) : !*push)
            return false;
        if (!emit_spill_goes_on(e, k, q, s))
            return true;
    }
    return false;
}

/* Whether run s of core k (phase p) may not stay past a receive base's reach: it may not
 * move to p + 1, or it is stuck there. */
static bool held(Emit *e, uint32_t k, int32_t p, const ESend *s, int8_t *push)
{
    return !emit_spill_movable(e, k, p, s, false, false) || emit_spill_stuck(e, k, p, s, push + k);
}

void emit_spill_raise(Emit *e, int32_t p, int64_t *base, const bool *raised, int8_t *push)
{
    for (uint32_t d = 0; d < e->n_cores; d++) {
        if (!raised[d])
            continue;
        int64_t need = -1, lo = -1; /* the word the base must pass; the first byte held */
        EPhaseSends it = emit_phase_sends(p, false);
        for (const ESend *s; (s = emit_phase_sends_next(e, &it));)
            if (s->dst_core == d && s->single && !s->relay &&
                s->dst_addr - base[d] * 4 >= LANES_HEAD_PACKETS && held(e, it.k, p, s, push)) {
                int64_t w = (s->dst_addr - LANES_HEAD_PACKETS) / 4 + 1;
                need = w > need ? w : need;
                lo = lo < 0 || s->dst_addr < lo ? s->dst_addr : lo;
            }
        if (need < 0)
            continue;
        int64_t nb = (need + 1) / 2 * 2;
        bool ok = nb * 4 <= lo;
        /* every run landing below the raised base goes on, and every held one reaches */
        it = emit_phase_sends(p, false);
        for (const ESend *s; ok && (s = emit_phase_sends_next(e, &it));) {
            if (s->dst_core != d)
                continue;
            int64_t at = s->single ? s->dst_addr : s->dst_addr * 4;
            if (s->relay)
                ok = false;
            else if (at < nb * 4)
                ok = !held(e, it.k, p, s, push);
            else if (s->single && s->dst_addr - nb * 4 >= LANES_HEAD_PACKETS)
                ok = !held(e, it.k, p, s, push);
        }
        if (ok)
            base[d] = nb;
    }
}
