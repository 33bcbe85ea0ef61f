/* emit_spill_lower.c: a run spilled into a phase in which its receiver is in a relaying chain
 * whose receive base lies above the word the run lands at (docs/backend.md, "Transfers",
 * "Runs into a chain's receivers"). A forwarded packet keeps its address, so the cores tied
 * to the receiver by the phase's chains (its own and those spilled there whole) keep the
 * differences of their receive bases; all are lowered by one amount d, the least even one
 * that puts the receiver's base at or before the run's first word, when:
 *   - every lowered base stays inside MEM2;
 *   - no core of them receives bytes in the phase (a P09 has one packet size);
 *   - every packet those cores receive in the phase (the runs already there, the chains'
 *     forwarded ones, the spilled run) lands within a header's 4096 units of its new base.
 * The run then lands past the receiver's base like any packet of the chain's phase. A chain's
 * run spilled whole into a phase whose own chain holds its cores (emit_spill_chain.c) lowers
 * that chain's bases so (emit_chain_lower).
 */
#include "backend/emit_internal.h"

#include "backend/core_mem.h"

#include <stdlib.h>

/* Adds to tied[] the cores of the relaying chains of phase q that hold a core already in it,
 * until no chain adds one; *more: whether one did on this pass. */
static void tie_pass(const Emit *e, int32_t q, bool *tied, bool *more)
{
    *more = false;
    EPhaseSends it = emit_phase_sends(q, false);
    for (const ESend *s; (s = emit_phase_sends_next(e, &it));) {
        const EPhase *ph = it.ph;
        if (!s->relay)
            continue;
        bool any = tied[s->dst_core];
        for (size_t r = 0; r < ph->n_chain_rest && !any; r++)
            any = emit_same_run(s, &ph->chain_rest[r]) && tied[ph->chain_rest[r].dst_core];
        if (!any)
            continue;
        *more |= !tied[s->dst_core];
        tied[s->dst_core] = true;
        for (size_t r = 0; r < ph->n_chain_rest; r++)
            if (emit_same_run(s, &ph->chain_rest[r])) {
                *more |= !tied[ph->chain_rest[r].dst_core];
                tied[ph->chain_rest[r].dst_core] = true;
            }
    }
}

/* Whether packet s (words) lands within a header's reach of core c's base lowered by d. */
static bool within(const Emit *e, int32_t q, const ESend *s, int64_t d)
{
    int64_t base = e->cores[s->dst_core].ph[q].recv_base - d;
    return !s->single && base >= ASM_MEM2_BASE && s->dst_addr >= base &&
           (s->dst_addr - base) / 2 < 4096;
}

/* Whether every packet of phase q into a core of tied[] stays within reach lowered by d. */
static bool reach_all(const Emit *e, int32_t q, const bool *tied, int64_t d)
{
    EPhaseSends it = emit_phase_sends(q, true);
    for (const ESend *s; (s = emit_phase_sends_next(e, &it));)
        if (tied[s->dst_core] && !within(e, q, s, d))
            return false;
    return true;
}

Status emit_chain_lower(Emit *e, int32_t q, uint32_t k, int64_t d, bool commit, bool *ok)
{
    bool *tied = calloc(e->n_cores ? e->n_cores : 1, sizeof *tied);
    if (!tied)
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    tied[k] = true;
    for (bool more = true; more;)
        tie_pass(e, q, tied, &more);
    *ok = reach_all(e, q, tied, d);
    for (uint32_t c = 0; c < e->n_cores && *ok; c++)
        *ok = !tied[c] || e->cores[c].ph[q].recv_base - d >= ASM_MEM2_BASE;
    if (*ok && commit && d)
        for (uint32_t c = 0; c < e->n_cores; c++)
            if (tied[c])
                e->cores[c].ph[q].recv_base -= d;
    free(tied);
    return ST_OK;
}

Status emit_spill_lower(Emit *e, int32_t q, const ESend *s, bool commit, bool *ok)
{
    const EPhase *ph = &e->cores[s->dst_core].ph[q];
    *ok = false;
    if (s->single || !ph->chained || !ph->recv_base)
        return ST_OK;
    int64_t d = ph->recv_base - s->dst_addr / 2 * 2;
    d = d > 0 ? (d + 1) / 2 * 2 : 0;
    if (!within(e, q, s, d))
        return ST_OK;
    return emit_chain_lower(e, q, s->dst_core, d, commit, ok);
}
