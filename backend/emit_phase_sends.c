/* emit_phase_sends.c: a walk over every core's sends of one phase (EPhaseSends), in the order
 * of the cores, then of each core's sends (and, when asked, of the sends of the relaying
 * chains it starts, EPhase.chain_rest, after its own): the loop the route's passes over a
 * phase's packets share (emit_route_chain.c, emit_route_spill.c, emit_spill_chain.c,
 * emit_spill_lower.c).
 */
#include "backend/emit_internal.h"

EPhaseSends emit_phase_sends(int32_t p, bool rest)
{
    return (EPhaseSends){.p = p, .rest = rest};
}

const ESend *emit_phase_sends_next(const Emit *e, EPhaseSends *it)
{
    for (;;) {
        if (it->ph && it->i < it->ph->n_sends)
            return &it->ph->sends[it->i++];
        if (it->ph && it->rest && it->i - it->ph->n_sends < it->ph->n_chain_rest)
            return &it->ph->chain_rest[it->i++ - it->ph->n_sends];
        while (it->next < e->n_cores && it->p >= e->cores[it->next].n_phases)
            it->next++;
        if (it->next >= e->n_cores) {
            it->ph = NULL;
            return NULL;
        }
        it->k = it->next++;
        it->ph = &e->cores[it->k].ph[it->p];
        it->i = 0;
    }
}
