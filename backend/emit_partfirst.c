/* emit_partfirst.c: a spread copy's pixels a relaying chain carries landing first in their
 * part (docs/backend.md, "Transfers", "Chained pixels landing first in their part").
 *
 * The parts of a spread copy land phase by phase in a landing area of the receive area
 * (emit_spread.c): a phase's pixels of the copy in one run (several edges' pixels side by
 * side), or in two runs, of one copy or of two copies of the core, back to back, which a
 * P26 splits. A relaying chain lands its runs at one offset from one receive base on each of
 * its cores (emit_chain_plan.c); when its words land behind other pixels of the part on one
 * core and at the start of the landing area on another, no receive base inside MEM2 and
 * before the core's other packets may make up for it. test_diff_ops/
 * broadcast_div_case_1_variant_2-4: core (6,6) phase 12 sends 24 words to (14,5)'s copy,
 * 672 words into its area, and to (11,1)'s part, 2928 words in, behind 90 pixels of 32 words
 * of another copy; core (4,4) phase 18 sends rows 27..35 of op/bit2/sub/in0 to (3,4)'s
 * copy at the start of its part and to (7,5)'s behind rows 14..26 from another writer. The
 * refusing pass records the copy and the first pixel the run lands on (EPinFirst); the next
 * lands the pixels from there first: the second copy's run before the first's, or a run of
 * one copy cut in two at that pixel, the later pixels first (a P26 moves the two runs to
 * their places, as for a part of two runs; emit_move.c and emit_route.c read a part's runs
 * in their order).
 */
#include "backend/emit_internal.h"

int64_t emit_part_first(const Emit *e, uint32_t k, uint32_t pos, int32_t p)
{
    for (size_t i = 0; i < emit_pins_n(e, EPIN_FIRST); i++) {
        const EPinFirst *f = emit_pin_at(e, EPIN_FIRST, i);
        if (f->k == k && f->pos == pos && f->p == p)
            return f->q;
    }
    return -1;
}

/* Records copy c's pixels from q on to land first in its part of phase p. */
static Status note(Emit *e, const ECopy *c, int32_t p, int64_t q)
{
    if (emit_part_first(e, c->core, c->block, p) >= 0)
        return ST_OK;
    return emit_pin_add(e, EPIN_FIRST, &(EPinFirst){c->core, c->block, p, q}, 1);
}

Status emit_part_first_hint(Emit *e, int32_t p, const ESend *s)
{
    if (!e->pins || s->single)
        return ST_OK;
    const ECore *c = &e->cores[s->dst_core];
    for (size_t i = 0; i < e->n_parts; i++) {
        const EPart *pt = &e->parts[i];
        if (pt->core != s->dst_core || pt->phase != p || pt->pitch || pt->land == EMIT_NONE)
            continue;
        const ECopy *c0 = &e->copies[pt->copy[0]], *c1 = &e->copies[pt->copy[1]];
        int64_t at = c->addr[pt->land], off = s->dst_addr - at, w0 = emit_spread_unit(c0);
        if (off <= 0 || off >= c->reqs[pt->land].words || c0->unit || c1->unit)
            continue;
        if (pt->nq[1] > 0 && pt->copy[0] != pt->copy[1] && off >= pt->nq[0] * w0)
            return note(e, c1, p, pt->q0[1]); /* the second copy's run */
        if (pt->nq[1] == 0 && off % w0 == 0) /* inside the one run: cut it there */
            return note(e, c0, p, pt->q0[0] + off / w0);
    }
    return ST_OK;
}
