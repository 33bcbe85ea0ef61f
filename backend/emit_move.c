/* emit_move.c: the inserted P06 that moves a received copy out of the receive area
 * (docs/backend.md, "Inserted primitives"). The router writes what arrives into the receive
 * area only (0x8400..0x8FFF, 12 KiB); a copy that lives on past the phase it arrives in gets
 * its own area in the data banks too (emit_plan.c), and a P06 in Soma2 of that phase, after
 * the router, copies its words there: INT_32 rows of 4 words to INT_32 rows of 4, which
 * neither shifts nor clips (docs/backend.md, P06), so every bit of every value and padding
 * lane arrives as it was. The receive area then holds one phase's arrivals, as the mapper's
 * receive rule counts them. The parts of a copy the Mapping spreads over several phases
 * (emit_spread.c) move the same way, each in Soma2 of the phase it arrives in, into its
 * pixels of the copy; a part of two runs apart by a P26 that splits it into the two. */
#include "backend/emit_internal.h"

#include <stdio.h>
#include <stdlib.h>

#define SET(m, f, v) ((m)->has_##f = 1, (m)->f = (v))

enum { ROW_WORDS = 4 };

/* A P06 in Soma slot `slot` (PIIndex SOMA1 / SOMA2) of phase p of core k moving words [from, from + words) to [to, to +
 * words), words a multiple of 4 (a pixel of every layout is 16 bytes or more); block: the
 * block whose data it moves. */
static Status move_words(Emit *e, uint32_t k, int32_t p, int32_t slot, int32_t block,
                         int64_t from, int64_t to, int64_t words)
{
    if (words % ROW_WORDS)
        return diag_add(e->d, ST_RUNTIME, "emit.internal", e->cores[k].name,
                        "block %d's copy takes %lld words, not whole 16-byte rows", block,
                        (long long)words);
    Taskir__Asm__P06 *m = emit_p06_slot(e, k, p, slot, block);
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

/* A P26 in Soma slot `slot` of phase p of core k splitting the words from `from` (rows
 * INT_32 rows of words0 + words1, both multiples of 4) into rows of words0 from to0 (its out
 * rows) and of words1 from to1 (its ciso rows): the two runs of a spread copy's part
 * (emit_spread.c), the two column parts of a send area (emit_sliceout.c). As the P06,
 * INT_32 to INT_32 unshifted, every bit as it was; the ciso row starts at the padded end of
 * the out row, which words0 is. */
Status emit_split_words(Emit *e, uint32_t k, int32_t p, int32_t slot, int32_t block,
                        int64_t from, int64_t to0, int64_t words0, int64_t to1, int64_t words1,
                        int64_t rows)
{
    if (words0 % ROW_WORDS || words1 % ROW_WORDS)
        return diag_add(e->d, ST_RUNTIME, "emit.internal", e->cores[k].name,
                        "block %d's part takes %lld + %lld words, not whole 16-byte rows",
                        block, (long long)words0, (long long)words1);
    Taskir__Asm__StaticPrimList *l = emit_slot_list(e, k, p);
    Taskir__Asm__SomaPrim *s =
        l ? emit_msg(e, sizeof *s, (void (*)(void *))taskir__asm__soma_prim__init) : NULL;
    Taskir__Asm__P26 *m =
        s ? emit_msg(e, sizeof *m, (void (*)(void *))taskir__asm__p26__init) : NULL;
    char id[32];
    snprintf(id, sizeof id, "b%d", block);
    if (m)
        s->x1_block = emit_strdup(e, id);
    if (!m || !s->x1_block) {
        free(m);
        free(s);
        return ST_RUNTIME;
    }
    if (slot == MAP_PI_SOMA1)
        l->soma1 = s;
    else
        l->soma2 = s;
    s->p26 = m;
    SET(s, pic, 0x26);
    int32_t wire = pr_info(PR_INT_32)->wire;
    SET(m, x1_precision, wire);
    SET(m, out_precision, wire);
    SET(m, length_in, (int32_t)(words0 + words1));
    SET(m, num_in, (int32_t)rows);
    SET(m, length_out, (int32_t)words0);
    SET(m, num_out, (int32_t)rows);
    SET(m, length_ciso, (int32_t)words1);
    SET(m, num_ciso, (int32_t)rows);
    SET(m, bit_shift_num, 0);
    SET(m, out_ciso_sel, 0);
    SET(m, x1_base_addr, (int32_t)from);
    SET(m, x1_addr_length, (int32_t)((words0 + words1) * rows));
    SET(m, o_base_addr, (int32_t)to0);
    SET(m, o_addr_length, (int32_t)(words0 * rows));
    SET(m, ciso_base_addr, (int32_t)to1);
    SET(m, ciso_addr_length, (int32_t)(words1 * rows));
    return ST_OK;
}

Status emit_moves(Emit *e)
{
    for (uint32_t i = 0; i < e->n_copies; i++) {
        const ECopy *cp = &e->copies[i];
        if (cp->land == EMIT_NONE)
            continue;
        const ECore *c = &e->cores[cp->core];
        if (cp->land_pitch) { /* landed in a relaying chain's pitch (emit_pin.c) */
            Taskir__Asm__P06 *m = emit_p06_slot(e, cp->core, cp->move_phase, cp->move_slot,
                                                e->g->blocks[cp->block]->id);
            if (!m)
                return ST_RUNTIME;
            int64_t px = cp->feat.ny * cp->feat.nx, pw = emit_feat_pixel_words(&cp->feat);
            emit_p06_rows(m, PR_INT_32, cp->land_pitch, px, c->addr[cp->land],
                          px * cp->land_pitch, emit_copy_addr(e, cp), px * pw);
            SET(m, length_out, (int32_t)pw);
            continue;
        }
        Status st = move_words(e, cp->core, cp->move_phase, cp->move_slot,
                               e->g->blocks[cp->block]->id,
                               c->addr[cp->land], emit_copy_addr(e, cp),
                               c->reqs[cp->land].words);
        if (st != ST_OK)
            return st;
    }
    for (size_t i = 0; i < e->n_parts; i++) { /* spread copies' parts (emit_spread.c) */
        const EPart *pt = &e->parts[i];
        const ECopy *c0 = &e->copies[pt->copy[0]], *c1 = &e->copies[pt->copy[1]];
        const ECore *c = &e->cores[pt->core];
        int64_t to0 = emit_copy_addr(e, c0) + pt->q0[0] * emit_spread_unit(c0);
        int64_t to1 = emit_copy_addr(e, c1) + pt->q0[1] * emit_spread_unit(c1);
        int64_t w0 = pt->nq[0] * emit_spread_unit(c0);
        int32_t block = e->g->blocks[c0->block]->id;
        const EBandSlice *bs = emit_bandslice_copy(e, pt->copy[0]);
        if (bs && bs->win) { /* its landed rows of win pixels split in halves (emit_bandslice.c) */
            int64_t half = bs->win / 2 * emit_spread_unit(c0);
            Status st = emit_split_words(e, pt->core, pt->move_phase, pt->move_slot, block,
                                         c->addr[pt->land], to0, half, to0 + w0 / 2, half,
                                         pt->nq[0] / bs->win);
            if (st != ST_OK)
                return st;
            continue;
        }
        Status st = pt->pitch ? emit_part_repitch(e, pt) /* emit_landpitch.c */
                    : pt->nq[1] == 0
                        ? move_words(e, pt->core, pt->move_phase, pt->move_slot, block,
                                     c->addr[pt->land], to0, w0)
                        : emit_split_words(e, pt->core, pt->move_phase, pt->move_slot,
                                           block, c->addr[pt->land], to0, w0, to1,
                                           c->reqs[pt->land].words - w0, 1);
        if (st != ST_OK)
            return st;
    }
    return ST_OK;
}
