/* emit_move.c: the inserted P06 that moves a received copy out of the receive area
 * (docs/backend.md, "Inserted primitives"). The router writes what arrives into the receive
 * area only (0x8400..0x8FFF, 12 KiB); a copy that lives on past the phase it arrives in gets
 * its own area in the data banks too (emit_plan.c), and a P06 in Soma2 of that phase, after
 * the router, copies its words there: INT_32 rows of 4 words to INT_32 rows of 4, which
 * neither shifts nor clips (docs/backend.md, P06), so every bit of every value and padding
 * lane arrives as it was. The receive area then holds one phase's arrivals, as the mapper's
 * receive rule counts them. The parts of a copy the Mapping spreads over several phases
 * (emit_spread.c) move the same way, each in Soma2 of the phase it arrives in, into its
 * pixels of the copy. */
#include "backend/emit_internal.h"

#define SET(m, f, v) ((m)->has_##f = 1, (m)->f = (v))

enum { PI_SOMA2 = 5, ROW_WORDS = 4 };

/* A P06 in Soma2 of phase p of core k moving words [from, from + words) to [to, to +
 * words), words a multiple of 4 (a pixel of every layout is 16 bytes or more); block: the
 * block whose data it moves. */
static Status move_words(Emit *e, uint32_t k, int32_t p, int32_t block, int64_t from,
                         int64_t to, int64_t words)
{
    if (words % ROW_WORDS)
        return diag_add(e->d, ST_RUNTIME, "emit.internal", e->cores[k].name,
                        "block %d's copy takes %lld words, not whole 16-byte rows", block,
                        (long long)words);
    Taskir__Asm__P06 *m = emit_p06_slot(e, k, p, PI_SOMA2, block);
    if (!m)
        return ST_RUNTIME;
    int32_t wire = pr_info(PR_INT_32)->wire;
    int32_t rows = (int32_t)(words / ROW_WORDS);
    SET(m, x1_precision, wire);
    SET(m, out_precision, wire);
    SET(m, length_in, ROW_WORDS);
    SET(m, num_in, rows);
    SET(m, length_out, ROW_WORDS);
    SET(m, num_out, rows);
    SET(m, bit_shift_num, 0);
    SET(m, x1_base_addr, (int32_t)from);
    SET(m, x1_addr_length, (int32_t)words);
    SET(m, o_base_addr, (int32_t)to);
    SET(m, o_addr_length, (int32_t)words);
    return ST_OK;
}

Status emit_moves(Emit *e)
{
    for (uint32_t i = 0; i < e->n_copies; i++) {
        const ECopy *cp = &e->copies[i];
        if (cp->land == EMIT_NONE)
            continue;
        const ECore *c = &e->cores[cp->core];
        Status st = move_words(e, cp->core, cp->move_phase, e->g->blocks[cp->block]->id,
                               c->addr[cp->land], emit_copy_addr(e, cp),
                               c->reqs[cp->land].words);
        if (st != ST_OK)
            return st;
    }
    for (size_t i = 0; i < e->n_parts; i++) { /* a spread copy's parts (emit_spread.c) */
        const EPart *pt = &e->parts[i];
        const ECopy *cp = &e->copies[pt->copy];
        const ECore *c = &e->cores[cp->core];
        Status st = move_words(e, cp->core, pt->phase, e->g->blocks[cp->block]->id,
                               c->addr[pt->land],
                               emit_copy_addr(e, cp) + pt->q0 * emit_feat_pixel_words(&cp->feat),
                               c->reqs[pt->land].words);
        if (st != ST_OK)
            return st;
    }
    return ST_OK;
}
