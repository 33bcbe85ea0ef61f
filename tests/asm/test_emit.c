/* test_emit.c: the code generator (backend/emit.h) on hand-built Mappings, checked against
 * words and parameters worked out by hand:
 *   - a one-core convolution: a 3 x 3 CC with r = 3 input channels (padded to 16 in memory)
 *     and f = 40 output channels (two groups of 32), then a CCMPB requantizing by 2^8: the
 *     weight image words, the bias image, the memory plan, P41 and P05 parameters, the
 *     dynamic blocks;
 *   - a two-core transfer: a Soma result sent from core (0,0) to core (2,1), part of it
 *     (rows 2..3): the header (dx, dy, address, packet count), the send and receive areas;
 *     read a phase later, the P06 that moves it out of the receive area;
 *     a column slice of it: runs apart in the sender's memory, the gaps skipped by disabled
 *     headers; relays (a phase later, from a copy of a block of the same values) and relaying
 *     chains (one run to two cores in one phase, or a relay in the phase it receives), on one
 *     chip and across chip edges;
 *   - a transfer the Mapping spreads over two phases: each phase's rows, each moved out of
 *     the receive area; a phase whose pixels are two runs apart, or parts of two copies,
 *     split by a P26; a copy over the receive area written in part on its core, or
 *     received by edges each whole in one phase, its received rows moved likewise; a copy
 *     over the receive area from channel slices each whole in a phase of its own: each
 *     phase's slices joined to the channels so far, and a slice relayed from where they are;
 *   - a result written into a map on its core by several edges, each where it is: straight;
 *   - the errors: an odd shift [emit.shift], a plan that does not fit [emit.alloc];
 *   - the alignment of a map whose pitch unit is no power of two (a P07 row).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "backend/emit.h"
#include "backend/emit_layout.h"
#include "emit_fixture.h"

/* One code generator run on a fixture, and what it leaves to check and free. */
typedef struct Run {
    Mapping *m;
    Chip *chip;
    Diag d;
    ProgSet s;
} Run;

static void run(Run *r, Mapping *m, Status want)
{
    r->m = m;
    diag_init(&r->d, "fixture");
    assert_int_equal(chip_load_default(&r->chip, &r->d), ST_OK);
    Status st = emit_program(m, r->chip, &r->s, &r->d);
    if (st != want)
        diag_print(&r->d, stderr, "test_emit");
    assert_int_equal(st, want);
}

static void done(Run *r)
{
    progset_free(&r->s);
    chip_destroy(r->chip);
    mapping_destroy(r->m);
    diag_finish(&r->d);
}

static const Taskir__Asm__CoreConfig *only_core(const ProgSet *s)
{
    const Taskir__Asm__BehaviorConfig *bc = s->config->behavior_config;
    assert_int_equal(bc->n_step_config, 1);
    assert_int_equal(bc->step_config[0]->n_phase_group_config, 1);
    assert_int_equal(bc->step_config[0]->phase_group_config[0]->n_core_config, 1);
    return bc->step_config[0]->phase_group_config[0]->core_config[0];
}

static void test_conv_one_core(void **state)
{
    (void)state;
    Run r;
    run(&r, emit_fixture_conv(8), ST_OK);
    const ProgSet s = r.s;
    /* the static blocks: the weights (SW, block 2) and the bias (SB, block 3) */
    const Taskir__Asm__DataConfig *dc = s.config->data_config;
    assert_int_equal(dc->n_static_blocks, 2);
    assert_int_equal(s.n_data, 2);
    assert_string_equal(dc->static_blocks[0]->id, "b2.0.0.0.0");
    assert_string_equal(dc->static_blocks[1]->id, "b3.0.0.0.0");
    /* weights: [ceil(40/32) = 2][ky 3][kx 3][r 3][32] bytes = 2*9*3*32 / 4 = 432 words */
    const ProgData *w = &s.data[0];
    assert_int_equal(w->n, 432);
    /* word 0: group 0, ky 0, kx 0, r 0, f 0..3: w = -100, -93, -86, -79 -> 9C A3 AA B1 */
    assert_int_equal(w->w[0], 0xB1AAA39Cu);
    /* group 0, ky 1, kx 2, r 1, f 4..7: byte (((1*3+2)*3+1)*32 + 4 = 516, word 129;
     * w = 7f + 5 + 3 + 2 - 100: 38-100 = -62 (C2), -55 (C9), -48 (D0), -41 (D7) */
    assert_int_equal(w->w[129], 0xD7D0C9C2u);
    /* group 1 starts at byte 9*3*32 = 864, word 216: f 32..35, r 0, ky 0, kx 0:
     * 224, 231, 238, 245 mod 200 - 100 = -76 (B4), -69 (BB), -62 (C2), -55 (C9) */
    assert_int_equal(w->w[216], 0xC9C2BBB4u);
    /* f 36..39 next (word 217), then f 40..63 are padding: words 218..223 are zero */
    assert_int_equal(w->w[217], (uint32_t)((uint8_t)emit_fixture_w(36, 0, 0, 0) |
                                           (uint8_t)emit_fixture_w(37, 0, 0, 0) << 8 |
                                           (uint8_t)emit_fixture_w(38, 0, 0, 0) << 16 |
                                           (uint32_t)(uint8_t)emit_fixture_w(39, 0, 0, 0) << 24));
    for (int k = 218; k < 224; k++)
        assert_int_equal(w->w[k], 0);
    /* bias: 40 int32 padded to 64 words */
    assert_int_equal(s.data[1].n, 64);
    assert_int_equal((int32_t)s.data[1].w[39], 38993);
    assert_int_equal(s.data[1].w[40], 0);
    /* memory plan: static MEM1 largest first: weights 0x4000, bias 0x4000 + 432 = 0x41B0;
     * data from 0, largest first: the int32 map 6*6*64 = 2304 words at 0, the int8 result
     * 6*6*(48/4) = 432 words at 0x900, the input 6*6*(16/4) = 144 words at 0xAB0 */
    assert_int_equal(dc->static_blocks[0]->start_addr, 0x4000);
    assert_int_equal(dc->static_blocks[1]->start_addr, 0x41B0);
    const Taskir__Asm__CoreConfig *cc = only_core(&s);
    assert_int_equal(cc->n_static_prim_list, 1);
    const Taskir__Asm__AxonPrim *a = cc->static_prim_list[0]->axon;
    assert_non_null(a);
    assert_int_equal(a->pic, 0x41);
    assert_int_equal(a->x1_base_addr, 0xAB0);
    assert_int_equal(a->x1_addr_length, 144);
    assert_int_equal(a->x2_base_addr, 0x4000);
    assert_int_equal(a->x2_addr_length, 432);
    assert_int_equal(a->bias_base_addr, 0x41B0);
    assert_int_equal(a->bias_addr_length, 64);
    assert_int_equal(a->o_base_addr, 0);
    assert_int_equal(a->o_addr_length, 2304);
    assert_int_equal(a->shape->nf, 40);
    assert_int_equal(a->shape->nr, 3);
    assert_int_equal(a->shape->nix, 6);
    assert_int_equal(a->p41->pad_top, 1);
    assert_true(a->p41->has_pad);
    assert_int_equal(a->p41->x1_precision, TASKIR__PRECISION__INT_8);
    const Taskir__Asm__SomaPrim *so = cc->static_prim_list[0]->soma1;
    assert_non_null(so);
    assert_int_equal(so->pic, 0x05);
    /* 2^8 = 4^4: four Soma steps; the input pitch 64 int32 channels; the output pitch 48
     * int8 channels (40 rounded up to 16) */
    assert_int_equal(so->px5->bit_shift_num, 4);
    assert_int_equal(so->px5->nif, 64);
    assert_int_equal(so->px5->nof, 48);
    assert_int_equal(so->px5->x1_base_addr, 0);
    assert_int_equal(so->px5->o_base_addr, 0x900);
    assert_int_equal(so->px5->o_addr_length, 432);
    assert_int_equal(so->px5->n_compare_init, 4); /* one byte a lane of the 8-bit output */
    assert_int_equal(so->px5->compare_init[0], -128);
    assert_int_equal(so->px5->compare_init[3], -128);
    /* the input and the output */
    assert_int_equal(dc->n_dynamic_blocks, 2);
    assert_int_equal(dc->dynamic_blocks[0]->io_type, TASKIR__ASM__IOTYPE__INPUT_DATA);
    assert_int_equal(dc->dynamic_blocks[0]->start_addr, 0xAB0);
    assert_int_equal(dc->dynamic_blocks[0]->length, 144);
    assert_int_equal(dc->dynamic_blocks[0]->shape->nf, 3);
    assert_int_equal(dc->dynamic_blocks[1]->io_type, TASKIR__ASM__IOTYPE__OUTPUT_DATA);
    assert_int_equal(dc->dynamic_blocks[1]->start_addr, 0x900);
    assert_int_equal(dc->dynamic_blocks[1]->length, 432);
    assert_int_equal(s.n_sockets, 2);
    assert_string_equal(s.sockets[0].name, "data");
    assert_int_equal(s.sockets[1].is_output, 1);
    done(&r);
}

/* emit_fixture_conv_banks: the input 11 x 28 x 128 int8 (9856 words), the weights [1 group
 * of 32][ky 3][kx 3][r 128][32] bytes (9216 words), the 32 words of bias, the accumulator
 * 9 x 26 x 32 int32 (7488 words, aligned to 32) and the result 9 x 26 x 32 int8 (1872
 * words): 28464 words in phase 0. With the weights at 0x4000 the accumulator fits neither
 * between the input and them nor above them, so the plan puts the static areas at the top
 * of MEM1 (test_alloc's test_static_on_top): the weights at 23552, the bias at 23520, the
 * input at 0, the accumulator at 9856, the result at 17344. Before: refused [emit.alloc]. */
static void test_conv_banks(void **state)
{
    (void)state;
    Run r;
    run(&r, emit_fixture_conv_banks(), ST_OK);
    const Taskir__Asm__CoreConfig *cc = only_core(&r.s);
    const Taskir__Asm__AxonPrim *a = cc->static_prim_list[0]->axon;
    assert_int_equal(a->x1_base_addr, 0);
    assert_int_equal(a->x1_addr_length, 9856);
    assert_int_equal(a->x2_base_addr, 23552);
    assert_int_equal(a->x2_addr_length, 9216);
    assert_int_equal(a->bias_base_addr, 23520);
    assert_int_equal(a->o_base_addr, 9856);
    assert_int_equal(a->o_addr_length, 7488);
    const Taskir__Asm__SomaPrim *so = cc->static_prim_list[0]->soma1;
    assert_int_equal(so->px5->x1_base_addr, 9856);
    assert_int_equal(so->px5->o_base_addr, 17344);
    assert_int_equal(so->px5->o_addr_length, 1872);
    done(&r);
}

/* An odd shift (2^7) is no Soma shift: [emit.shift], naming the block. */
static void test_odd_shift(void **state)
{
    (void)state;
    Run r;
    run(&r, emit_fixture_conv(7), ST_LOGIC);
    assert_true(diag_find(&r.d, "emit.shift") >= 0);
    assert_non_null(strstr(r.d.entries[0].what, "shifts by 7 bits"));
    assert_null(r.s.config);
    done(&r);
}

/* Core (x, y) of chip (cx, cy). */
static const Taskir__Asm__CoreConfig *chip_core_at(const ProgSet *s, int cx, int cy, int x, int y)
{
    const Taskir__Asm__BehaviorConfig *bc = s->config->behavior_config;
    for (size_t c = 0; c < bc->n_step_config; c++) {
        const Taskir__Asm__StepConfig *sc = bc->step_config[c];
        const Taskir__Asm__PhaseGroupConfig *pg = sc->phase_group_config[0];
        for (size_t i = 0; sc->chip_x == cx && sc->chip_y == cy && i < pg->n_core_config; i++)
            if (pg->core_config[i]->core_x == x && pg->core_config[i]->core_y == y)
                return pg->core_config[i];
    }
    fail_msg("no core (%d,%d) on chip (%d,%d)", x, y, cx, cy);
    return NULL;
}

static const Taskir__Asm__CoreConfig *core_at(const ProgSet *s, int x, int y)
{
    return chip_core_at(s, 0, 0, x, y);
}

static void test_two_core_transfer(void **state)
{
    (void)state;
    Run r;
    run(&r, emit_fixture_transfer(2, 2), ST_OK);
    const ProgSet s = r.s;
    /* core (0,0): a (16 pixels x 4 words = 64 words) at 0; relu's result goes to no storage
     * of its own core: an output buffer of 64 words after it, at 64. Rows 2..3 of it (words
     * 64 + 2*4*4 = 96 .. 127) go to core (2,1): one run of 32 words = 16 packets of 8 B. */
    const Taskir__Asm__CoreConfig *c0 = core_at(&s, 0, 0);
    assert_int_equal(c0->n_static_prim_list, 1);
    const Taskir__Asm__SomaPrim *relu = c0->static_prim_list[0]->soma1;
    assert_int_equal(relu->px5->o_base_addr, 64);
    const Taskir__Asm__P09 *snd = c0->static_prim_list[0]->router->p09;
    assert_true(snd->send_en);
    assert_int_equal(snd->addr_dout_base, 96);
    assert_int_equal(snd->addr_dout_length, 32 / 4 - 1);   /* 16-byte units, minus one */
    assert_int_equal(snd->send_number, 16 - 1);             /* packets, minus one */
    assert_int_equal(snd->router_head_mode, TASKIR__ASM__ROUTER_HEAD_MODE__MULTI_USE);
    assert_int_equal(snd->addr_rhead_base, 0x300);
    assert_int_equal(snd->addr_rhead_length, 0);
    assert_int_equal(snd->n_router_heads, 1);
    const Taskir__Asm__RouterHead *h = snd->router_heads[0];
    assert_int_equal(h->dx, 2);
    assert_int_equal(h->dy, 1);
    assert_int_equal(h->destination_addr, 0);          /* the start of the receive area */
    assert_int_equal(h->pack_per_router_head, 16 - 1);
    assert_int_equal(h->destination_offset, 0);   /* packet k lands at unit A + k */
    assert_int_equal(h->destination_const, 0);
    assert_true(h->is_packet_finish);
    /* core (2,1): b's copy holds rows 2..3 (32 words) in the receive area at 0x8400; it
     * waits for one end mark; copy reads it there */
    const Taskir__Asm__CoreConfig *c1 = core_at(&s, 2, 1);
    const Taskir__Asm__P09 *rcv = c1->static_prim_list[0]->router->p09;
    assert_true(rcv->receive_en);
    assert_false(rcv->has_send_en);
    assert_int_equal(rcv->receive_number, 0);
    assert_int_equal(rcv->addr_din_base, 0x400);      /* 0x8400, counted from MEM2 */
    assert_int_equal(rcv->addr_din_length, 3072 / 2 - 1);
    const Taskir__Asm__SomaPrim *cp = c1->static_prim_list[0]->soma2;
    assert_int_equal(cp->px5->x1_base_addr, 0x8400);
    assert_int_equal(cp->px5->x1_addr_length, 32);
    done(&r);
}

/* A column slice: core (2,1) reads columns 1..2 of b, rows 1..3. Its copy holds those 3 x 2
 * pixels (8 words a row) from 0x8400. The relu's buffer (64 words at 64, 16 words a row)
 * holds them at words 64 + 16 y + 4 .. + 11 for y = 1..3: runs of 8 words that do not follow
 * each other. The router sends one area, from word 84 to 84 + 2 * 16 + 8 = 124 (40 words:
 * 20 packets, 10 16-byte units), under five headers: a run of 4 packets to unit 0, a
 * disabled header skipping the 4 packets (8 words) to the next row, 4 packets to unit 4,
 * skip 4, 4 packets to unit 8. The receiver waits for 3 end marks. */
static void test_column_slice(void **state)
{
    (void)state;
    Run r;
    run(&r, emit_fixture_slice(1, 3, 1, 2), ST_OK);
    const Taskir__Asm__P09 *snd = core_at(&r.s, 0, 0)->static_prim_list[0]->router->p09;
    assert_int_equal(snd->addr_dout_base, 84);
    assert_int_equal(snd->addr_dout_length, 40 / 4 - 1);
    assert_int_equal(snd->send_number, 20 - 1);
    assert_int_equal(snd->addr_rhead_length, 5 - 1);
    assert_int_equal(snd->n_router_heads, 5);
    for (int i = 0; i < 5; i++) {
        const Taskir__Asm__RouterHead *h = snd->router_heads[i];
        assert_int_equal(h->pack_per_router_head, 4 - 1);
        assert_int_equal(h->enable, i % 2 == 0);
        assert_int_equal(h->is_packet_finish, i % 2 == 0);
        if (i % 2 == 0) {
            assert_int_equal(h->dx, 2);
            assert_int_equal(h->dy, 1);
            assert_int_equal(h->destination_addr, 4 * (i / 2));
        }
    }
    const Taskir__Asm__P09 *rcv = core_at(&r.s, 2, 1)->static_prim_list[0]->router->p09;
    assert_int_equal(rcv->receive_number, 3 - 1);
    done(&r);
}

/* The whole of b to core (2,1) is 64 words; with rows 0..3 read the run is 32 packets. */
static void test_transfer_whole(void **state)
{
    (void)state;
    Run r;
    run(&r, emit_fixture_transfer(0, 4), ST_OK);
    const Taskir__Asm__P09 *snd = core_at(&r.s, 0, 0)->static_prim_list[0]->router->p09;
    assert_int_equal(snd->addr_dout_base, 64);
    assert_int_equal(snd->send_number, 31);
    assert_int_equal(snd->router_heads[0]->pack_per_router_head, 31);
    done(&r);
}

/* Read a phase after it arrives (copy in Soma1 of phase 1), b's copy leaves the receive
 * area: its 32 words land at 0x8400 in phase 0, and a P06 in Soma2 of phase 0 (after the
 * router) moves them, 8 INT_32 rows of 4 words (no shift: the bits as they are), to b's
 * area in the data banks at 0x0000 (c, 32 words alive in phase 1 as b is, follows at 0x0020),
 * where copy reads them in phase 1. */
static void test_receive_move(void **state)
{
    (void)state;
    Run r;
    run(&r, emit_fixture_transfer_late(2, 2), ST_OK);
    const Taskir__Asm__CoreConfig *c1 = core_at(&r.s, 2, 1);
    assert_int_equal(c1->n_static_prim_list, 2);
    const Taskir__Asm__P09 *rcv = c1->static_prim_list[0]->router->p09;
    assert_true(rcv->receive_en);
    assert_int_equal(rcv->addr_din_base, 0x400);
    const Taskir__Asm__SomaPrim *mv = c1->static_prim_list[0]->soma2;
    assert_non_null(mv);
    assert_int_equal(mv->pic, 0x06);
    assert_string_equal(mv->x1_block, "b3");
    const Taskir__Asm__P06 *p = mv->p06;
    assert_non_null(p);
    assert_int_equal(p->x1_precision, TASKIR__PRECISION__INT_32);
    assert_int_equal(p->out_precision, TASKIR__PRECISION__INT_32);
    assert_int_equal(p->length_in, 4);
    assert_int_equal(p->num_in, 8);
    assert_int_equal(p->length_out, 4);
    assert_int_equal(p->num_out, 8);
    assert_int_equal(p->bit_shift_num, 0);
    assert_int_equal(p->x1_base_addr, 0x8400);
    assert_int_equal(p->x1_addr_length, 32);
    assert_int_equal(p->o_base_addr, 0);
    assert_int_equal(p->o_addr_length, 32);
    const Taskir__Asm__SomaPrim *cp = c1->static_prim_list[1]->soma1;
    assert_int_equal(cp->px5->x1_base_addr, 0);
    assert_int_equal(cp->px5->x1_addr_length, 32);
    assert_int_equal(cp->px5->o_base_addr, 0x20);
    /* the sender is as before: rows 2..3 to the start of the receive area */
    const Taskir__Asm__P09 *snd = core_at(&r.s, 0, 0)->static_prim_list[0]->router->p09;
    assert_int_equal(snd->router_heads[0]->destination_addr, 0);
    done(&r);
}

/* A received copy that a CADD adds to itself a phase later: the CADD runs as P83 doubling
 * it where it lies (taskir/layout.h, layout_repeat_scales: b's pitch, 32 int8 channels, is a
 * 32-byte group), so b is moved out of the receive area like any other copy read later. b (16
 * pixels of 16 int8 channels, read by the CADD: a pitch of 32, 8 words) lands at 0x8400; the
 * P06 in Soma2 of its phase moves its 128 words into the data banks (int32 rows of 4 words),
 * and the P83 of the next phase reads them there (constant_a 2) and writes 32 int32 channels a
 * pixel. */
static void test_receive_twice(void **state)
{
    (void)state;
    Run r;
    run(&r, emit_fixture_transfer_twice(), ST_OK);
    const Taskir__Asm__CoreConfig *c1 = core_at(&r.s, 2, 1);
    const Taskir__Asm__SomaPrim *mv = c1->static_prim_list[0]->soma2;
    assert_non_null(mv);
    assert_non_null(mv->p06);
    assert_int_equal(mv->p06->x1_base_addr, 0x8400);
    assert_int_equal(mv->p06->x1_addr_length, 128);
    assert_int_equal(mv->p06->length_in, 4);
    assert_int_equal(mv->p06->num_in, 32);
    assert_int_equal(mv->p06->o_addr_length, 128);
    assert_true(mv->p06->o_base_addr < 0x8000); /* the data banks */
    const Taskir__Asm__AxonPrim *add = c1->static_prim_list[1]->axon;
    assert_non_null(add);
    assert_int_equal(add->pic, 0x83);
    assert_non_null(add->p83);
    assert_int_equal(add->p83->constant_a, 2);
    assert_int_equal(add->x1_base_addr, mv->p06->o_base_addr);
    assert_int_equal(add->x1_addr_length, 128);
    assert_int_equal(add->shape->nf, 32);
    assert_int_equal(add->o_addr_length, 16 * 32);
    done(&r);
}

/* Relayed a phase later, from the relay's copy: (2,1) sends its 64 words from the receive
 * area (0x8400) to (3,1), one core right. */
static void test_relay_next_phase(void **state)
{
    (void)state;
    Run r;
    run(&r, emit_fixture_relay(1, false), ST_OK);
    const Taskir__Asm__P09 *snd = core_at(&r.s, 2, 1)->static_prim_list[1]->router->p09;
    assert_int_equal(snd->addr_dout_base, 0x8400);
    assert_int_equal(snd->send_number, 31);
    assert_int_equal(snd->router_heads[0]->dx, 1);
    assert_int_equal(snd->router_heads[0]->dy, 0);
    done(&r);
}

/* The relay holds another storage block of the same values (b, not the b2 it forwards): it
 * sends from its copy of b, the same 64 words from 0x8400. */
static void test_relay_sibling(void **state)
{
    (void)state;
    Run r;
    run(&r, emit_fixture_relay(1, true), ST_OK);
    const Taskir__Asm__P09 *snd = core_at(&r.s, 2, 1)->static_prim_list[1]->router->p09;
    assert_int_equal(snd->addr_dout_base, 0x8400);
    assert_int_equal(snd->send_number, 31);
    assert_int_equal(snd->n_router_heads, 1);
    assert_int_equal(snd->router_heads[0]->dx, 1);
    done(&r);
}

/* Source (x, y) of a relaying chain in phase 0: its 64 words once, under one
 * MULTI_RELAY_CAST header to (x + dx, y + dy), landing at unit addr (addr < 0: unchecked). */
static void check_chain_send(const ProgSet *s, int x, int y, int dx, int dy, int addr)
{
    const Taskir__Asm__P09 *snd = core_at(s, x, y)->static_prim_list[0]->router->p09;
    assert_int_equal(snd->send_number, 31);
    assert_int_equal(snd->n_router_heads, 1);
    const Taskir__Asm__RouterHead *h = snd->router_heads[0];
    assert_int_equal(h->relay_type, TASKIR__ASM__RELAY_TYPE__MULTI_RELAY_CAST);
    assert_int_equal(h->dx, dx);
    assert_int_equal(h->dy, dy);
    if (addr >= 0)
        assert_int_equal(h->destination_addr, addr);
}

/* Core (x, y) of a relaying chain in phase 0: forwarding to (x + nx, y + ny) relay + 1
 * packets (relay < 0: the chain's last, forwarding nothing), waiting for recv + 1 end
 * marks, its receive area at 0x8400. */
static void check_chain_core(const ProgSet *s, int x, int y, int nx, int ny, int relay,
                             int recv)
{
    const Taskir__Asm__P09 *r = core_at(s, x, y)->static_prim_list[0]->router->p09;
    if (relay < 0) {
        assert_false(r->has_cxy);
    } else {
        assert_int_equal(r->cxy, 1);
        assert_int_equal(r->nx, nx);
        assert_int_equal(r->ny, ny);
        assert_int_equal(r->relay_number, relay);
    }
    assert_int_equal(r->receive_number, recv);
    assert_int_equal(r->addr_din_base, 0x400);
}

/* The source sends its 64 words to (2,1) and (3,1) in one phase: the router sends an area's
 * words once, so the code generator makes a relaying chain, nearest first: (0,0) sends the
 * 32 packets once, MULTI_RELAY_CAST, to (2,1) (dx 2, dy 1, unit 0); (2,1) keeps them and
 * forwards a copy one core right (CXY 1, Nx 1, Ny 0, Relay_number 31); both copies lie at
 * 0x8400, so both receive areas start there (Addr_Din_base 0x400) and each waits for one
 * end mark. The same with two storage blocks of the same values, and when the Mapping makes
 * (2,1) relay in the phase it receives (relay 0: it holds nothing yet, so the source sends
 * and the chain relays). */
static void test_chain_one_phase(void **state)
{
    (void)state;
    for (int c = 0; c < 4; c++) {
        Run r;
        run(&r, emit_fixture_relay(c < 2 ? -1 : 0, c % 2), ST_OK);
        const Taskir__Asm__P09 *snd = core_at(&r.s, 0, 0)->static_prim_list[0]->router->p09;
        assert_int_equal(snd->addr_dout_base, 64);
        assert_int_equal(snd->send_number, 31);
        assert_int_equal(snd->n_router_heads, 1);
        const Taskir__Asm__RouterHead *h = snd->router_heads[0];
        assert_int_equal(h->relay_type, TASKIR__ASM__RELAY_TYPE__MULTI_RELAY_CAST);
        assert_int_equal(h->dx, 2);
        assert_int_equal(h->dy, 1);
        assert_int_equal(h->destination_addr, 0);
        assert_int_equal(h->pack_per_router_head, 31);
        check_chain_core(&r.s, 2, 1, 1, 0, 31, 0);
        check_chain_core(&r.s, 3, 1, 0, 0, -1, 0);
        done(&r);
    }
}

/* The same chain on three chips (cores of all chips side by side: chip (cx, cy) core (x, y)
 * at (16 cx + x, 10 cy + y)): the source, core (15,9) of chip (0,0), sends to core (0,9) of
 * chip (1,0), dx 1 past the chip's edge; that core forwards to core (15,0) of chip (0,1),
 * Nx -1 and Ny 1. */
static void test_chain_chips(void **state)
{
    (void)state;
    Run r;
    run(&r, emit_fixture_chips(), ST_OK);
    assert_int_equal(r.s.config->behavior_config->n_step_config, 3);
    const Taskir__Asm__P09 *snd = chip_core_at(&r.s, 0, 0, 15, 9)->static_prim_list[0]->router->p09;
    assert_int_equal(snd->n_router_heads, 1);
    assert_int_equal(snd->router_heads[0]->dx, 1);
    assert_int_equal(snd->router_heads[0]->dy, 0);
    assert_int_equal(snd->router_heads[0]->relay_type, TASKIR__ASM__RELAY_TYPE__MULTI_RELAY_CAST);
    const Taskir__Asm__P09 *mid = chip_core_at(&r.s, 1, 0, 0, 9)->static_prim_list[0]->router->p09;
    assert_int_equal(mid->cxy, 1);
    assert_int_equal(mid->nx, -1);
    assert_int_equal(mid->ny, 1);
    assert_true(chip_core_at(&r.s, 0, 1, 15, 0)->static_prim_list[0]->router->p09->receive_en);
    done(&r);
}

/* Two sources each send their 64 words to (2,1) and (3,1) in phase 0 (emit_fixture_chain_two):
 * two relaying chains through the same two cores. Both end at (2,1), the one of least index
 * of the cores both runs share (emit_chain_plan.c), so (3,1) forwards
 * every relayed packet of the phase to it: CXY 1, Nx -1, Ny 0, Relay_number 63 (32 packets
 * of each source). d (block 13, read in phase 1) lies at 0x8400 on both, b (block 3, moved
 * out in Soma2 of phase 0) at 0x8440: (0,0)'s header lands at unit 32 (64 words), (0,2)'s
 * at unit 0, both bases 0x400, each receiver waiting for two end marks. Before, the second
 * chain was refused [emit.route]: a core was in one chain a phase. */
static void test_chain_two(void **state)
{
    (void)state;
    Run r;
    run(&r, emit_fixture_chain_two(), ST_OK);
    check_chain_send(&r.s, 0, 0, 3, 1, 32);
    check_chain_send(&r.s, 0, 2, 3, -1, 0);
    check_chain_core(&r.s, 3, 1, -1, 0, 63, 1);
    check_chain_core(&r.s, 2, 1, 0, 0, -1, 1);
    done(&r);
}

/* Two sources, (0,0) and (6,2), each send their 64 words to (2,1), (3,1) and (4,1) in phase
 * 0 (emit_fixture_chain_three). Nearest first from each source the chains would take the
 * cores in two orders ((3,1) on to (4,1) for the one, on to (2,1) for the other), which a
 * core's one forwarding cannot carry; planned together (emit_chain_plan.c) both take one:
 * (3,1), (4,1), then (2,1), the core of least index, last. (0,0) sends to (3,1) (dx 3, dy
 * 1), (6,2) too (dx -3, dy -1); (3,1) forwards the 64 packets of the phase one right, (4,1)
 * two left; (2,1) forwards nothing. Every copy lies alike, so every base is 0x400. Before,
 * the second chain was refused [emit.route]. */
static void test_chain_three(void **state)
{
    (void)state;
    Run r;
    run(&r, emit_fixture_chain_three(), ST_OK);
    check_chain_send(&r.s, 0, 0, 3, 1, -1);
    check_chain_send(&r.s, 6, 2, -3, -1, -1);
    check_chain_core(&r.s, 3, 1, 1, 0, 63, 1);
    check_chain_core(&r.s, 4, 1, -2, 0, 63, 1);
    check_chain_core(&r.s, 2, 1, 0, 0, -1, 1);
    done(&r);
}

/* Three sources send in phase 0 (emit_fixture_chain_apart): (0,0) its 192 words to (2,1) and
 * (3,1), (0,2) its 128 to (3,1) alone, (0,4) its 64 to both again. Each core's memory plan,
 * largest first, would put (0,4)'s copy after (0,0)'s on (2,1) (0x84c0) but after (0,2)'s
 * too on (3,1) (0x8540): one chain through both cores lands each packet at one offset from
 * each base, so the first pass is refused [emit.route: laid out differently], and the next
 * (emit_pin.c) places the areas both runs land in first, at one address on both: (0,0)'s at
 * 0x8400, (0,4)'s at 0x84c0, (0,2)'s on (3,1) after them. (0,0) sends its 96 packets to
 * (3,1) at unit 0, (0,4) its 32 at unit 96, (0,2) its 64 by a header of its own at unit
 * 128; (3,1) forwards the 128 relayed packets to (2,1); both bases 0x400. */
static void test_chain_apart(void **state)
{
    (void)state;
    Run r;
    run(&r, emit_fixture_chain_apart(), ST_OK);
    assert_int_equal(r.d.n, 0);
    const Taskir__Asm__P09 *big = core_at(&r.s, 0, 0)->static_prim_list[0]->router->p09;
    assert_int_equal(big->send_number, 95);
    assert_int_equal(big->router_heads[0]->relay_type, TASKIR__ASM__RELAY_TYPE__MULTI_RELAY_CAST);
    assert_int_equal(big->router_heads[0]->dx, 3);
    assert_int_equal(big->router_heads[0]->dy, 1);
    assert_int_equal(big->router_heads[0]->destination_addr, 0);
    check_chain_send(&r.s, 0, 4, 3, -3, 96);
    const Taskir__Asm__P09 *one = core_at(&r.s, 0, 2)->static_prim_list[0]->router->p09;
    assert_int_equal(one->router_heads[0]->relay_type, TASKIR__ASM__RELAY_TYPE__UNI_CAST);
    assert_int_equal(one->router_heads[0]->destination_addr, 128);
    check_chain_core(&r.s, 3, 1, -1, 0, 127, 2);
    check_chain_core(&r.s, 2, 1, 0, 0, -1, 1);
    done(&r);
}

/* Three sources each send their 64 words to two of (2,1), (3,1) and (4,1) in phase 0, each
 * pair another (emit_fixture_chain_cross): the three runs meet pairwise, so their chains
 * would all end on one core that all three reach, and there is none: [emit.route], naming
 * the first source and nothing written. */
static void test_chain_cross(void **state)
{
    (void)state;
    Run r;
    run(&r, emit_fixture_chain_cross(), ST_LOGIC);
    assert_true(diag_find(&r.d, "emit.route") >= 0);
    assert_non_null(strstr(r.d.entries[0].what, "no core in common"));
    assert_non_null(strstr(r.d.entries[0].where, "core (0,0)"));
    assert_null(r.s.config);
    done(&r);
}

/* A transfer the Mapping spreads over phases 0 and 1 (emit_fixture_spread: 16 x 16 pixels of
 * 64 int8 channels, 16 words a pixel, 256 words a row, 4096 in all against the receive
 * area's 3072). Core (2,1): b's area in the data banks at 0 (4096 words, alive over [0, 2]),
 * c after it at 4096. Phase 0 carries the rows the receive area has room for, 12 (3072
 * words), into 0x8400, and a P06 in Soma2 of phase 0 moves them to word 0 (768 rows of 4
 * words); phase 1 the other 4 rows (1024 words), into 0x8400 again, moved to word 3072.
 * Core (0,0): a at 0, relu's buffer at 4096 (alive in both phases: it sends in both), sent
 * from word 4096 in phase 0 (1536 packets) and from 7168 in phase 1 (512 packets), each
 * to unit 0 of the receive area. copy reads b whole in Soma1 of phase 2. */
static void test_spread(void **state)
{
    (void)state;
    Run r;
    run(&r, emit_fixture_spread(), ST_OK);
    const Taskir__Asm__CoreConfig *c0 = core_at(&r.s, 0, 0), *c1 = core_at(&r.s, 2, 1);
    const int64_t from[2] = {4096, 7168}, words[2] = {3072, 1024}, to[2] = {0, 3072};
    for (int p = 0; p < 2; p++) {
        const Taskir__Asm__P09 *snd = c0->static_prim_list[p]->router->p09;
        assert_int_equal(snd->addr_dout_base, from[p]);
        assert_int_equal(snd->send_number, words[p] / 2 - 1);
        assert_int_equal(snd->n_router_heads, 1);
        assert_int_equal(snd->router_heads[0]->destination_addr, 0);
        assert_int_equal(snd->router_heads[0]->pack_per_router_head, words[p] / 2 - 1);
        const Taskir__Asm__P09 *rcv = c1->static_prim_list[p]->router->p09;
        assert_true(rcv->receive_en);
        assert_int_equal(rcv->receive_number, 0);
        const Taskir__Asm__SomaPrim *mv = c1->static_prim_list[p]->soma2;
        assert_non_null(mv);
        assert_int_equal(mv->pic, 0x06);
        const Taskir__Asm__P06 *m = mv->p06;
        assert_int_equal(m->x1_precision, TASKIR__PRECISION__INT_32);
        assert_int_equal(m->length_in, 4);
        assert_int_equal(m->num_in, words[p] / 4);
        assert_int_equal(m->num_out, words[p] / 4);
        assert_int_equal(m->x1_base_addr, 0x8400);
        assert_int_equal(m->x1_addr_length, words[p]);
        assert_int_equal(m->o_base_addr, to[p]);
        assert_int_equal(m->o_addr_length, words[p]);
    }
    const Taskir__Asm__SomaPrim *cp = c1->static_prim_list[2]->soma1;
    assert_int_equal(cp->px5->x1_base_addr, 0);
    assert_int_equal(cp->px5->x1_addr_length, 4096);
    assert_int_equal(cp->px5->o_base_addr, 4096);
    done(&r);
}

/* emit_fixture_spread3: 20 x 20 pixels of 64 int8 channels (16 words a pixel, 6400 words)
 * over phases 0, 1 and 2. The receive area takes 192 pixels a phase (3072 words): pixels
 * 0..191 (rows 0..8 and 12 pixels of row 9) in phase 0, 192..383 in phase 1, the last 16 in
 * phase 2, each landing at 0x8400 and moved to word 16 x its first pixel of b's area (at
 * 0): 0, 3072, 6144. The sender's buffer (at 6400, after a) sends them from 6400, 9472 and
 * 12544, each one run to unit 0 (the pieces of rows follow each other). */
static void test_spread_pixels(void **state)
{
    (void)state;
    Run r;
    run(&r, emit_fixture_spread3(), ST_OK);
    const Taskir__Asm__CoreConfig *c0 = core_at(&r.s, 0, 0), *c1 = core_at(&r.s, 2, 1);
    const int64_t words[3] = {3072, 3072, 256};
    for (int p = 0; p < 3; p++) {
        const Taskir__Asm__P09 *snd = c0->static_prim_list[p]->router->p09;
        assert_int_equal(snd->addr_dout_base, 6400 + 3072 * p);
        assert_int_equal(snd->send_number, words[p] / 2 - 1);
        assert_int_equal(snd->n_router_heads, 1);
        assert_int_equal(snd->router_heads[0]->destination_addr, 0);
        const Taskir__Asm__P06 *m = c1->static_prim_list[p]->soma2->p06;
        assert_int_equal(m->num_in, words[p] / 4);
        assert_int_equal(m->x1_base_addr, 0x8400);
        assert_int_equal(m->o_base_addr, 3072 * p);
        assert_int_equal(m->o_addr_length, words[p]);
    }
    assert_int_equal(c1->static_prim_list[3]->soma1->px5->x1_base_addr, 0);
    done(&r);
}

/* emit_fixture_spread_runs: b (15 rows of 16 pixels of 64 int8 channels: 256 words a row)
 * arrives on (2,1) by three edges: rows 1..13 over phases 0 and 1, rows 0 and 14 in phase 1.
 * Phase 0 takes the middle edge's first 12 rows (3072 words: rows 1..12), phase 1 row 0,
 * row 13 and row 14: two runs of pixels apart (rows 0, and 13..14) whichever way the middle
 * edge's pixels go (mirrored, phase 1 would hold rows 0..1 and 14). The core's areas: b at
 * 0, c at 3840. Phase 1's part lands at 0x8400, row 0 first (units 0..127), rows 13..14
 * after it (units 128..383), and a P26 in Soma2 of phase 1 splits that one row of 768 int32
 * words: its first 256 (the out row) to b's row 0 at word 0, the other 512 (the ciso row) to
 * b's row 13 at word 3328. The sender (relu's buffer at 3840 on (0,0)) sends phase 1's rows
 * from 3840: row 0 (128 packets) to unit 0, a disabled header over rows 1..12 (1536
 * packets), rows 13..14 (256 packets) to unit 128. Before, refused [emit.alloc]. */
static void test_spread_runs(void **state)
{
    (void)state;
    Run r;
    run(&r, emit_fixture_spread_runs(), ST_OK);
    const Taskir__Asm__CoreConfig *c0 = core_at(&r.s, 0, 0), *c1 = core_at(&r.s, 2, 1);
    const Taskir__Asm__P06 *m0 = c1->static_prim_list[0]->soma2->p06;
    assert_int_equal(m0->x1_base_addr, 0x8400);
    assert_int_equal(m0->num_in, 768);
    assert_int_equal(m0->o_base_addr, 256);
    const Taskir__Asm__SomaPrim *sp = c1->static_prim_list[1]->soma2;
    assert_int_equal(sp->pic, 0x26);
    assert_null(sp->p06);
    const Taskir__Asm__P26 *m = sp->p26;
    assert_int_equal(m->x1_precision, TASKIR__PRECISION__INT_32);
    assert_int_equal(m->out_precision, TASKIR__PRECISION__INT_32);
    assert_int_equal(m->num_in, 1);
    assert_int_equal(m->length_in, 768);
    assert_int_equal(m->x1_base_addr, 0x8400);
    assert_int_equal(m->x1_addr_length, 768);
    assert_int_equal(m->length_out, 256);
    assert_int_equal(m->num_out, 1);
    assert_int_equal(m->o_base_addr, 0);
    assert_int_equal(m->o_addr_length, 256);
    assert_int_equal(m->length_ciso, 512);
    assert_int_equal(m->num_ciso, 1);
    assert_int_equal(m->ciso_base_addr, 3328);
    assert_int_equal(m->ciso_addr_length, 512);
    assert_int_equal(m->bit_shift_num, 0);
    const Taskir__Asm__P09 *snd = c0->static_prim_list[1]->router->p09;
    assert_int_equal(snd->addr_dout_base, 3840);
    assert_int_equal(snd->send_number, 128 + 1536 + 256 - 1);
    assert_int_equal(snd->n_router_heads, 3);
    const int32_t pack[3] = {127, 1535, 255}, dest[3] = {0, 0, 128}, on[3] = {1, 0, 1};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(snd->router_heads[i]->pack_per_router_head, pack[i]);
        assert_int_equal(snd->router_heads[i]->destination_addr, dest[i]);
        assert_int_equal(snd->router_heads[i]->enable, on[i]);
    }
    assert_int_equal(c1->static_prim_list[1]->router->p09->receive_number, 1);
    done(&r);
}

/* emit_fixture_spread_two: relu's 13 x 16 pixels of 64 int8 channels (256 words a row,
 * 3328 in all) go to two storage blocks on (2,1), b1 over phases 0 and 1 (12 rows, then row
 * 12) and b2 over phases 1 and 2 (the 11 rows beside b1's in phase 1's 3072 words, then 2).
 * Core (2,1): b1 at 0, c1 at 3328, b2 at 6656. Phase 1's part holds b1's row 12 (units
 * 0..127 of the receive area) and b2's rows 0..10 (units 128..1535): one P26 in Soma2 of
 * phase 1 splits the 3072 words, 256 to b1's row 12 (word 3072), 2816 to b2's row 0 (word
 * 6656). The sender (relu's buffer at 3328 on (0,0)) sends from its row 0 in phase 1: rows
 * 0..10 (1408 packets) to unit 128, a disabled header over row 11 (128), row 12 (128) to
 * unit 0. Before, b2's part was refused [emit.slot]: phase 1's Soma2 moved b1's. */
static void test_spread_two(void **state)
{
    (void)state;
    Run r;
    run(&r, emit_fixture_spread_two(), ST_OK);
    const Taskir__Asm__CoreConfig *c0 = core_at(&r.s, 0, 0), *c1 = core_at(&r.s, 2, 1);
    const Taskir__Asm__P26 *m = c1->static_prim_list[1]->soma2->p26;
    assert_non_null(m);
    assert_int_equal(m->length_in, 3072);
    assert_int_equal(m->x1_base_addr, 0x8400);
    assert_int_equal(m->length_out, 256);
    assert_int_equal(m->o_base_addr, 3072);
    assert_int_equal(m->length_ciso, 2816);
    assert_int_equal(m->ciso_base_addr, 6656);
    const Taskir__Asm__P06 *m0 = c1->static_prim_list[0]->soma2->p06; /* b1's rows 0..11 */
    assert_int_equal(m0->o_base_addr, 0);
    assert_int_equal(m0->num_in, 768);
    const Taskir__Asm__P06 *m2 = c1->static_prim_list[2]->soma2->p06; /* b2's rows 11..12 */
    assert_int_equal(m2->o_base_addr, 6656 + 11 * 256);
    assert_int_equal(m2->num_in, 128);
    const Taskir__Asm__P09 *snd = c0->static_prim_list[1]->router->p09;
    assert_int_equal(snd->addr_dout_base, 3328);
    assert_int_equal(snd->send_number, 1408 + 128 + 128 - 1);
    assert_int_equal(snd->n_router_heads, 3);
    const int32_t pack[3] = {1407, 127, 127}, dest[3] = {128, 0, 0}, on[3] = {1, 0, 1};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(snd->router_heads[i]->pack_per_router_head, pack[i]);
        assert_int_equal(snd->router_heads[i]->destination_addr, dest[i]);
        assert_int_equal(snd->router_heads[i]->enable, on[i]);
    }
    done(&r);
}

/* emit_fixture_relay_parts: relu's 13 x 16 pixels of 64 int8 channels (256 words a row,
 * 3328 in all, over the receive area's 3072) reach (2,1) over phases 0 and 1 (rows 0..11,
 * then row 12), and (2,1) relays them to (3,1) over phases 1 and 2. b is spread on both
 * (c1 / c2 at 0, b at 3328): Soma2 of phase 0 moves rows 0..11 from the receive area
 * (0x8400) to 3328, so (2,1)'s router of phase 1 sends them from there (3072 words, 1536
 * packets, to unit 0 of (3,1)) while row 12 lands; Soma2 of phase 1 moves row 12 to 6400,
 * and phase 2 sends it from there (128 packets). (3,1) moves its parts likewise in phases 1
 * and 2. (0,0) sends phase 1 only row 12. Before, refused [emit.route]: a relay waited for
 * the spread copy's last part. */
static void test_relay_parts(void **state)
{
    (void)state;
    Run r;
    run(&r, emit_fixture_relay_parts(1), ST_OK);
    const Taskir__Asm__CoreConfig *c0 = core_at(&r.s, 0, 0), *c1 = core_at(&r.s, 2, 1);
    const Taskir__Asm__CoreConfig *c2 = core_at(&r.s, 3, 1);
    const int32_t from[2] = {3328, 6400}, packets[2] = {1536, 128}, words[2] = {768, 64};
    for (int p = 0; p < 2; p++) {
        const Taskir__Asm__P09 *snd = c1->static_prim_list[p + 1]->router->p09;
        assert_true(snd->send_en);
        assert_int_equal(snd->addr_dout_base, from[p]);
        assert_int_equal(snd->send_number, packets[p] - 1);
        assert_int_equal(snd->n_router_heads, 1);
        assert_int_equal(snd->router_heads[0]->dx, 1);
        assert_int_equal(snd->router_heads[0]->dy, 0);
        assert_int_equal(snd->router_heads[0]->destination_addr, 0);
        for (int k = 0; k < 2; k++) { /* each core's part moves out in Soma2 */
            const Taskir__Asm__P06 *m = (k ? c2 : c1)->static_prim_list[p + k]->soma2->p06;
            assert_non_null(m);
            assert_int_equal(m->x1_base_addr, 0x8400);
            assert_int_equal(m->num_in, words[p]);
            assert_int_equal(m->o_base_addr, from[p]);
        }
    }
    assert_int_equal(c0->static_prim_list[1]->router->p09->send_number, 127);
    assert_int_equal(c0->static_prim_list[1]->router->p09->addr_dout_base, 3328 + 3072);
    done(&r);
}

/* emit_fixture_spread_local: b (16 x 16 pixels of 64 int8 channels, 4096 words, over the
 * receive area's 3072) on (2,1), whose rows 0..3 relu2 writes there and rows 4..15 arrive
 * from (0,0) in phase 0. It cannot live in the receive area, so its received rows land
 * there as a part (3072 words at 0x8400) and a P06 in Soma2 of phase 0 moves them to b's row
 * 4 (word 1024); relu2's P05 (Soma1 of phase 0) writes rows 0..3 straight into b at word 0
 * (a2 at 4096). Core (0,0): a at 0, relu's buffer at 3072, sent whole (1536 packets) to
 * unit 0. Before, refused [emit.alloc]: b kept whole in the receive area. */
static void test_spread_local(void **state)
{
    (void)state;
    Run r;
    run(&r, emit_fixture_spread_local(), ST_OK);
    const Taskir__Asm__CoreConfig *c0 = core_at(&r.s, 0, 0), *c1 = core_at(&r.s, 2, 1);
    const Taskir__Asm__SomaPrim *w = c1->static_prim_list[0]->soma1;
    assert_int_equal(w->px5->x1_base_addr, 4096);
    assert_int_equal(w->px5->o_base_addr, 0);
    assert_int_equal(w->px5->o_addr_length, 1024);
    const Taskir__Asm__P06 *m = c1->static_prim_list[0]->soma2->p06;
    assert_non_null(m);
    assert_int_equal(m->x1_base_addr, 0x8400);
    assert_int_equal(m->num_in, 768);
    assert_int_equal(m->o_base_addr, 1024);
    assert_int_equal(m->o_addr_length, 3072);
    const Taskir__Asm__P09 *rcv = c1->static_prim_list[0]->router->p09;
    assert_true(rcv->receive_en);
    const Taskir__Asm__P09 *snd = c0->static_prim_list[0]->router->p09;
    assert_int_equal(snd->addr_dout_base, 3072);
    assert_int_equal(snd->send_number, 1535);
    assert_int_equal(snd->router_heads[0]->destination_addr, 0);
    assert_int_equal(c1->static_prim_list[1]->soma1->px5->x1_base_addr, 0);
    done(&r);
}

/* emit_fixture_spread_edges: b (16 rows of 256 words, 4096 in all) arrives on (2,1) by two
 * edges, rows 0..11 in phase 0 and rows 12..15 in phase 1, each whole in its phase. Over the
 * receive area, its rows land part by part: phase 0's 3072 words at 0x8400, moved to b's
 * word 0 by a P06 in Soma2 of phase 0, phase 1's 1024 to word 3072. Before, refused
 * [emit.alloc]: b kept whole in the receive area. */
static void test_spread_edges(void **state)
{
    (void)state;
    Run r;
    run(&r, emit_fixture_spread_edges(), ST_OK);
    const Taskir__Asm__CoreConfig *c1 = core_at(&r.s, 2, 1);
    const int64_t rows[2] = {768, 256}, to[2] = {0, 3072};
    for (int p = 0; p < 2; p++) {
        const Taskir__Asm__P06 *m = c1->static_prim_list[p]->soma2->p06;
        assert_non_null(m);
        assert_int_equal(m->x1_base_addr, 0x8400);
        assert_int_equal(m->num_in, rows[p]);
        assert_int_equal(m->o_base_addr, to[p]);
    }
    done(&r);
}

/* emit_fixture_relay_parts(0): the same 13 rows reach (2,1) as 12 rows in phase 0 and row 12
 * in phase 1, and (2,1) relays each part to (3,1) in the phase it lands, where it holds
 * nothing yet: (0,0) sends each phase's rows once (from its buffer at 3328: 3072 words, 1536
 * packets, then row 12 from 6400, 128 packets), MULTI_RELAY_CAST to (2,1), which keeps them
 * and forwards a copy one core right (CXY 1, Relay_number 1535, then 127); each core moves
 * its part out of the receive area (0x8400) in Soma2 of the phase. Before, refused
 * [emit.route]: a relay of row 12 in phase 1 held rows 0..11 only. */
static void test_relay_parts_now(void **state)
{
    (void)state;
    Run r;
    run(&r, emit_fixture_relay_parts(0), ST_OK);
    const Taskir__Asm__CoreConfig *c0 = core_at(&r.s, 0, 0), *c1 = core_at(&r.s, 2, 1);
    const Taskir__Asm__CoreConfig *c2 = core_at(&r.s, 3, 1);
    const int32_t from[2] = {3328, 6400}, packets[2] = {1536, 128}, words[2] = {768, 64};
    for (int p = 0; p < 2; p++) {
        const Taskir__Asm__P09 *snd = c0->static_prim_list[p]->router->p09;
        assert_int_equal(snd->addr_dout_base, from[p]);
        assert_int_equal(snd->send_number, packets[p] - 1);
        assert_int_equal(snd->n_router_heads, 1);
        const Taskir__Asm__RouterHead *h = snd->router_heads[0];
        assert_int_equal(h->relay_type, TASKIR__ASM__RELAY_TYPE__MULTI_RELAY_CAST);
        assert_int_equal(h->dx, 2);
        assert_int_equal(h->dy, 1);
        assert_int_equal(h->pack_per_router_head, packets[p] - 1);
        const Taskir__Asm__P09 *mid = c1->static_prim_list[p]->router->p09;
        assert_false(mid->send_en);
        assert_int_equal(mid->cxy, 1);
        assert_int_equal(mid->nx, 1);
        assert_int_equal(mid->ny, 0);
        assert_int_equal(mid->relay_number, packets[p] - 1);
        for (int k = 0; k < 2; k++) {
            const Taskir__Asm__P06 *m = (k ? c2 : c1)->static_prim_list[p]->soma2->p06;
            assert_non_null(m);
            assert_int_equal(m->x1_base_addr, 0x8400);
            assert_int_equal(m->num_in, words[p]);
        }
    }
    done(&r);
}

/* emit_fixture_spread_cap: relu's 20 rows (256 words a row) reach b1 on (2,1) over phases 0,
 * 1 and 2, its rows 4..19 reach b2 on (3,1) over phases 0 and 1 (b2 at 4096 there). Each
 * phase's part fills the receive area's room: b2 rows 4..15 then 16..19; b1 rows 0..11 (3072
 * words, a P06 of 768 16-byte rows from 0x8400 to b1 at 5120), then 12..19 (2048 words, 512
 * rows, to 5120 + 3072), phase 2 none. b1's part of phase 1 meets b2's (rows 16..19), a
 * relaying chain carrying them to both cores; no chain refused it, so it is not
 * cut where b2's begins (emit_spreadcap.c: only a part a chain refused in an earlier pass;
 * cut always, b1 took rows 0..3 in phase 0, where b2's part begins at row 4, and the
 * parts planned so in the diff graphs overran their last phase's receive area). */
static void test_spread_cap_fits(void **state)
{
    (void)state;
    Run r;
    run(&r, emit_fixture_spread_cap(), ST_OK);
    const Taskir__Asm__CoreConfig *c1 = core_at(&r.s, 2, 1), *c2 = core_at(&r.s, 3, 1);
    const int32_t rows[2][2] = {{768, 512}, {768, 256}}, to[2][2] = {{5120, 8192}, {4096, 7168}};
    for (int k = 0; k < 2; k++)
        for (int p = 0; p < 2; p++) {
            const Taskir__Asm__P06 *m = (k ? c2 : c1)->static_prim_list[p]->soma2->p06;
            assert_non_null(m);
            assert_int_equal(m->x1_base_addr, 0x8400);
            assert_int_equal(m->num_in, rows[k][p]);
            assert_int_equal(m->o_base_addr, to[k][p]);
        }
    done(&r);
}

/* emit_fixture_spread_cut: relu's 25 rows of one 1024-channel pixel (256 words a row) reach
 * b1 on (2,1) over phases 1..3; channels 0..511 (bA, on (3,1)) and 512..1023 (bB, (4,1)) of
 * rows 6..24 arrive in phase 1; rows 0..1 whole (e1, e2) reach (3,1) and (4,1) in phase 1.
 * Filling phase 1's room, b1's part would be rows 0..11: its rows 6..11 would go to (2,1)
 * and (3,1) (channels 0..511) and to (2,1) and (4,1) (512..1023), rows 0..1 to all three:
 * sets that no one core ends, refused in the first pass (emit_chain_plan.c). The next pass
 * ends b1's part of phase 1 where the halves' begin (emit_spreadcap.c): rows 0..5 (1536
 * words, a P06 of 384 16-byte rows to b1 at 6400), then rows 6..17 in phase 2 (3072 words,
 * 768, to 6400 + 1536), rows 18..24 in phase 3 (1792 words, 448, to 6400 + 4608). */
static void test_spread_cut(void **state)
{
    (void)state;
    Run r;
    run(&r, emit_fixture_spread_cut(), ST_OK);
    const Taskir__Asm__CoreConfig *c1 = core_at(&r.s, 2, 1);
    const int32_t rows[3] = {384, 768, 448}, to[3] = {6400, 7936, 11008};
    for (int p = 0; p < 3; p++) {
        const Taskir__Asm__P06 *m = c1->static_prim_list[p + 1]->soma2->p06;
        assert_non_null(m);
        assert_int_equal(m->num_in, rows[p]);
        assert_int_equal(m->o_base_addr, to[p]);
    }
    done(&r);
}

/* The P06 in Soma2 of phase p of core cr: rows of `in` words from x1 (and of `ci` words from
 * ciso, 0: none) into rows of `out` words at o, 64 rows. */
static void joins(const Taskir__Asm__CoreConfig *cr, int p, int64_t x1, int in, int64_t ciso,
                  int ci, int64_t o)
{
    const Taskir__Asm__P06 *m = cr->static_prim_list[p]->soma2->p06;
    assert_non_null(m);
    assert_int_equal(m->x1_base_addr, x1);
    assert_int_equal(m->length_in, in);
    assert_int_equal(m->num_in, 64);
    assert_int_equal(m->length_ciso, ci);
    assert_int_equal(m->num_ciso, ci ? 64 : 0);
    if (ci)
        assert_int_equal(m->ciso_base_addr, ciso);
    assert_int_equal(m->length_out, in + ci);
    assert_int_equal(m->num_out, 64);
    assert_int_equal(m->o_base_addr, o);
}

/* emit_fixture_chmerge: b (8 x 8 pixels of 256 int8 channels, 64 words a pixel, 4096 in all,
 * over the receive area's 3072) from four slices of 64 channels (16 words a pixel, 1024 a
 * slice), each whole in one phase. On (2,1), b's area at B (the address r1 reads): slice 1
 * lands in phase 0 and moves to the area's last 1024 words (B + 3072); slice 0 lands in phase
 * 1 and joins before it (x1 the landing area, ciso B + 3072) into rows of 32 words ending at
 * the area's end (B + 2048); slices 2 and 3 land in phase 2 side by side (32 words a pixel:
 * slice 2's 16 words at unit 0 of a pixel, slice 3's at unit 8, runs of 8 packets 16 units
 * apart) and join after channels 0..127 (x1 B + 2048, ciso the landing area) into b's whole
 * pixels at B. In phase 2 (2,1) relays slice 1 to (3,1) from where phase 1's join put it: 16
 * words of each 32-word pixel of B + 2048, from its word 16 on: a header a pixel, 8 packets
 * each, landing 8 units apart (compact on (3,1)). On (3,1), b at B': slices 2 and 3 (phase 1)
 * move to B' + 2048, slice 1 (phase 2) joins before them into B' + 1024 (48 words a row),
 * slice 0 (phase 3) into B'. Before, b stayed in the receive area [emit.alloc]. */
static void test_chmerge(void **state)
{
    (void)state;
    Run r;
    run(&r, emit_fixture_chmerge(), ST_OK);
    const Taskir__Asm__CoreConfig *c1 = core_at(&r.s, 2, 1), *c2 = core_at(&r.s, 3, 1);
    const Taskir__Asm__PX5 *r1 = c1->static_prim_list[3]->soma1->px5;
    const Taskir__Asm__PX5 *r2 = c2->static_prim_list[4]->soma1->px5;
    int64_t b = r1->x1_base_addr, b2 = r2->x1_base_addr;
    assert_true(b + 4096 <= 0x8000 && b2 + 4096 <= 0x8000);
    assert_int_equal(r1->x1_addr_length, 4096);
    int64_t land[3];
    for (int p = 0; p < 3; p++) {
        const Taskir__Asm__P09 *rcv = c1->static_prim_list[p]->router->p09;
        assert_true(rcv->receive_en);
        land[p] = 0x8000 + rcv->addr_din_base;
        assert_true(land[p] >= 0x8400);
    }
    joins(c1, 0, land[0], 16, 0, 0, b + 3072);
    joins(c1, 1, land[1], 16, b + 3072, 16, b + 2048);
    joins(c1, 2, b + 2048, 32, land[2], 32, b);
    for (int i = 2; i < 4; i++) { /* slices 2 and 3 side by side in phase 2's landing area */
        const Taskir__Asm__P09 *snd = core_at(&r.s, i, 0)->static_prim_list[2]->router->p09;
        assert_int_equal(snd->n_router_heads, 1);
        const Taskir__Asm__RouterHead *h = snd->router_heads[0];
        assert_int_equal(h->destination_addr, 8 * (i - 2));
        assert_int_equal(h->pack_per_router_head, 64 * 8 - 1);
        assert_int_equal(h->destination_const, 7);
        assert_int_equal(h->destination_offset, 8);
    }
    /* the relay: from word 16 of pixel 0 to the end of pixel 63's slice (63 x 32 + 16 words,
     * 1016 packets), a header a pixel (8 packets to unit 8q) and a disabled one skipping
     * each gap of 16 words between them */
    const Taskir__Asm__P09 *relay = c1->static_prim_list[2]->router->p09;
    assert_true(relay->send_en);
    assert_int_equal(relay->addr_dout_base, b + 2048 + 16);
    assert_int_equal(relay->send_number, (63 * 32 + 16) / 2 - 1);
    assert_int_equal(relay->n_router_heads, 64 + 63);
    for (int q = 0; q < 64; q++) {
        const Taskir__Asm__RouterHead *h = relay->router_heads[2 * q];
        assert_true(h->enable);
        assert_int_equal(h->dx, 1);
        assert_int_equal(h->dy, 0);
        assert_int_equal(h->destination_addr, 8 * q);
        assert_int_equal(h->pack_per_router_head, 7);
        if (q < 63)
            assert_false(relay->router_heads[2 * q + 1]->enable);
    }
    int64_t land2[3];
    for (int p = 1; p < 4; p++)
        land2[p - 1] = 0x8000 + c2->static_prim_list[p]->router->p09->addr_din_base;
    joins(c2, 1, land2[0], 32, 0, 0, b2 + 2048);
    joins(c2, 2, land2[1], 16, b2 + 2048, 32, b2 + 1024);
    joins(c2, 3, land2[2], 16, b2 + 1024, 48, b2);
    done(&r);
}

/* emit_fixture_spread_slices: b (16 x 16 pixels of 128 int8 channels: 32 words a pixel,
 * 8192 in all) on (2,1) assembled from relu1's channels 0..63 (from (0,0)) and relu2's
 * 64..127 (from (1,0)), both over phases 0, 1 and 2. The parts are cut by whole pixels of b,
 * as many as the receive area holds (96 pixels, 3072 words), the last phase the rest (64
 * pixels, 2048 words): both slices of pixels 96p .. in phase p, so each phase's pixels are
 * whole. Each sender's buffer (its 16 x 16 x 64 result, 16 words a pixel: a at 0, the
 * buffer at 4096) sends its 16 words of each of the phase's pixels from 4096 + 16 x the
 * first pixel (1536 words, 768 packets: 1024 in phase 2), one MULTI_USE header: runs of 8
 * packets (destination_const 7), 8 units apart (destination_offset 8: the other slice's
 * 64 bytes), from unit 0 (relu1) or 8 (relu2) of the landing area at 0x8400. (2,1) waits
 * for the two end marks and moves the whole pixels out with a P06 in Soma2 of the phase to
 * 32 x the first pixel of b's area (at 0). */
static void test_spread_slices(void **state)
{
    (void)state;
    Run r;
    run(&r, emit_fixture_spread_slices(), ST_OK);
    const Taskir__Asm__CoreConfig *c1 = core_at(&r.s, 2, 1);
    const int64_t px[3] = {96, 96, 64}, first[3] = {0, 96, 192};
    for (int p = 0; p < 3; p++) {
        for (int i = 0; i < 2; i++) {
            const Taskir__Asm__P09 *snd = core_at(&r.s, i, 0)->static_prim_list[p]->router->p09;
            assert_int_equal(snd->addr_dout_base, 4096 + 16 * first[p]);
            assert_int_equal(snd->send_number, px[p] * 8 - 1);
            assert_int_equal(snd->n_router_heads, 1);
            const Taskir__Asm__RouterHead *h = snd->router_heads[0];
            assert_int_equal(h->dx, 2 - i);
            assert_int_equal(h->dy, 1);
            assert_int_equal(h->destination_addr, 8 * i);
            assert_int_equal(h->pack_per_router_head, px[p] * 8 - 1);
            assert_int_equal(h->destination_const, 7);
            assert_int_equal(h->destination_offset, 8);
        }
        const Taskir__Asm__P09 *rcv = c1->static_prim_list[p]->router->p09;
        assert_true(rcv->receive_en);
        assert_int_equal(rcv->receive_number, 1);
        assert_int_equal(rcv->addr_din_base, 0x400);
        const Taskir__Asm__P06 *m = c1->static_prim_list[p]->soma2->p06;
        assert_non_null(m);
        assert_int_equal(m->x1_base_addr, 0x8400);
        assert_int_equal(m->num_in, px[p] * 8);
        assert_int_equal(m->o_base_addr, 32 * first[p]);
        assert_int_equal(m->o_addr_length, 32 * px[p]);
    }
    const Taskir__Asm__PX5 *cp = c1->static_prim_list[3]->soma1->px5;
    assert_int_equal(cp->x1_base_addr, 0);
    assert_int_equal(cp->x1_addr_length, 8192);
    done(&r);
}

/* emit_fixture_pieces: relu writes its 16 x 16 pixels of 64 int8 channels (4096 words) into
 * b on its own core by two edges, rows 0..7 and 8..15, each at the same place. Its P05
 * writes straight into b (at 4096, after a at 0): o_addr_length 4096, no router; copy reads
 * b in phase 1 into c (at 0, a's words: a is dead by then). Before, relu wrote a buffer that
 * its router sent to b in the receive area, which 4096 words overflow [emit.alloc]. */
static void test_pieces(void **state)
{
    (void)state;
    Run r;
    run(&r, emit_fixture_pieces(), ST_OK);
    const Taskir__Asm__CoreConfig *c0 = core_at(&r.s, 0, 0);
    const Taskir__Asm__PX5 *w = c0->static_prim_list[0]->soma1->px5;
    assert_int_equal(w->x1_base_addr, 0);
    assert_int_equal(w->o_base_addr, 4096);
    assert_int_equal(w->o_addr_length, 4096);
    assert_null(c0->static_prim_list[0]->router);
    const Taskir__Asm__PX5 *rd = c0->static_prim_list[1]->soma1->px5;
    assert_int_equal(rd->x1_base_addr, 4096);
    assert_int_equal(rd->o_base_addr, 0);
    done(&r);
}

/* A CLUT reading 96 int8 channels a pixel writes rows of 96 (layout.h): a pitch unit of 24
 * words, so every pixel starts 8-word aligned, and so is the map. The test_diff_ops graphs
 * abs_case_0__p_8_, cvm_precision_case_0__p_8_ ... asked the allocator for an alignment of
 * 24 words (the unit itself), which it refuses as a malformed request [emit.alloc.req]. */
static void test_feat_align(void **state)
{
    (void)state;
    EmitFeat f;
    assert_true(emit_feat(PR_INT_8, 2, 3, 96, 96, &f));
    assert_int_equal(f.c, 96);
    assert_int_equal(f.words, 2 * 3 * 24);
    assert_int_equal(f.align, 8);
    assert_true(emit_feat(PR_INT_8, 1, 1, 40, 48, &f)); /* 12 words a pixel: 4 */
    assert_int_equal(f.align, 4);
    assert_true(emit_feat(PR_INT_32, 1, 1, 40, 32, &f)); /* an Axon's rows: 128 B */
    assert_int_equal(f.align, 32);
    assert_int_equal(f.words, 64);
    assert_true(emit_feat(PR_INT_8, 1, 1, 3, 16, &f)); /* a Soma row: 16 B */
    assert_int_equal(f.align, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_one_core),
        cmocka_unit_test(test_odd_shift),
        cmocka_unit_test(test_two_core_transfer),
        cmocka_unit_test(test_transfer_whole),
        cmocka_unit_test(test_receive_move),
        cmocka_unit_test(test_receive_twice),
        cmocka_unit_test(test_column_slice),
        cmocka_unit_test(test_relay_next_phase),
        cmocka_unit_test(test_relay_sibling),
        cmocka_unit_test(test_chain_one_phase),
        cmocka_unit_test(test_chain_chips),
        cmocka_unit_test(test_chain_two),
        cmocka_unit_test(test_chain_three),
        cmocka_unit_test(test_chain_cross),
        cmocka_unit_test(test_chain_apart),
        cmocka_unit_test(test_feat_align),
        cmocka_unit_test(test_spread),
        cmocka_unit_test(test_spread_pixels),
        cmocka_unit_test(test_spread_runs),
        cmocka_unit_test(test_spread_two),
        cmocka_unit_test(test_relay_parts),
        cmocka_unit_test(test_spread_cap_fits),
        cmocka_unit_test(test_spread_cut),
        cmocka_unit_test(test_relay_parts_now),
        cmocka_unit_test(test_conv_banks),
        cmocka_unit_test(test_spread_local),
        cmocka_unit_test(test_spread_edges),
        cmocka_unit_test(test_spread_slices),
        cmocka_unit_test(test_chmerge),
        cmocka_unit_test(test_pieces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
