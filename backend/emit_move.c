/* emit_move.c: the inserted P06 that moves a received copy out of the receive area
 * (docs/backend.md, "Inserted primitives"). The router writes what arrives into the receive
 * area only (0x8400..0x8FFF, 12 KiB); a copy that lives on past the phase it arrives in gets
 * its own area in the data banks too (emit_plan.c), and a P06 in Soma2 of that phase, after
 * the router, copies its words there: INT_32 rows of 4 words to INT_32 rows of 4, which
 * neither shifts nor clips (docs/backend.md, P06), so every bit of every value and padding
 * lane arrives as it was. The receive area then holds one phase's arrivals, as the mapper's
 * receive rule counts them. */
#include "backend/emit_internal.h"

#define SET(m, f, v) ((m)->has_##f = 1, (m)->f = (v))

enum { PI_SOMA2 = 5, ROW_WORDS = 4 };

/* The move of copy cp: words [land, land + n) to [home, home + n), n a multiple of 4 (a
 * pixel of every layout is 16 bytes or more). */
static Status move(Emit *e, const ECopy *cp)
{
    const ECore *c = &e->cores[cp->core];
    int64_t from = c->addr[cp->land], to = emit_copy_addr(e, cp);
    int64_t words = c->reqs[cp->land].words;
    const Block *b = e->g->blocks[cp->block];
    if (words % ROW_WORDS)
        return diag_add(e->d, ST_RUNTIME, "emit.internal", c->name,
                        "block %d's copy takes %lld words, not whole 16-byte rows", b->id,
                        (long long)words);
    Taskir__Asm__P06 *p = emit_p06_slot(e, cp->core, cp->move_phase, PI_SOMA2, b->id);
    if (!p)
        return ST_RUNTIME;
    int32_t wire = pr_info(PR_INT_32)->wire;
    int32_t rows = (int32_t)(words / ROW_WORDS);
    SET(p, x1_precision, wire);
    SET(p, out_precision, wire);
    SET(p, length_in, ROW_WORDS);
    SET(p, num_in, rows);
    SET(p, length_out, ROW_WORDS);
    SET(p, num_out, rows);
    SET(p, bit_shift_num, 0);
    SET(p, x1_base_addr, (int32_t)from);
    SET(p, x1_addr_length, (int32_t)words);
    SET(p, o_base_addr, (int32_t)to);
    SET(p, o_addr_length, (int32_t)words);
    return ST_OK;
}

Status emit_moves(Emit *e)
{
    for (uint32_t i = 0; i < e->n_copies; i++) {
        if (e->copies[i].land == EMIT_NONE)
            continue;
        Status st = move(e, &e->copies[i]);
        if (st != ST_OK)
            return st;
    }
    return ST_OK;
}
