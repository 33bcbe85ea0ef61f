/* test_alloc.c: the code generator's memory plan of a core (backend/alloc.h) on hand-worked
 * cases: bank preference by kind, alignment, sharing between areas whose lifetimes do not
 * overlap, spilling into the next bank, the receive area, a plan that fits only with the
 * weights at the top of MEM1, and a plan that does not fit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "backend/alloc.h"

static Status plan(const AllocReq *r, size_t n, int32_t *addr, Diag *d)
{
    diag_init(d, "t.map.pb");
    return alloc_core(r, n, addr, "chip (0,0) core (1,2)", d);
}

/* Plans r[0..n) (it must fit) and checks each address against want[]. */
static void plan_as(const AllocReq *r, size_t n, const int32_t *want)
{
    int32_t a[16];
    Diag d;
    assert_true(n <= 16);
    assert_int_equal(plan(r, n, a, &d), ST_OK);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(a[i], want[i]);
    assert_int_equal(d.n, 0);
    diag_finish(&d);
}

/* Weights go to MEM1 (0x4000) first; the second area starts at the first's end rounded up
 * to its alignment: 0x4000 + 100 = 0x4064 -> 0x4068 (multiple of 8). */
static void test_static_in_mem1(void **state)
{
    (void)state;
    AllocReq r[] = {
        {100, 8, 0, 4, ALLOC_STATIC, 1, false, false, 0, false, false, 0},
        {100, 8, 0, 4, ALLOC_STATIC, 2, false, false, 0, false, false, 0},
    };
    int32_t a[2];
    Diag d;
    assert_int_equal(plan(r, 2, a, &d), ST_OK);
    assert_int_equal(a[0], 0x4000);
    assert_int_equal(a[1], 0x4068);
    diag_finish(&d);
}

/* A [0,1] and B [2,3] never live together: both at 0. C [1,2] meets both: B is placed
 * before C (larger), C first fits after A's 0x1000 words (B's 0x800 end before that). */
static void test_lifetimes_share(void **state)
{
    (void)state;
    AllocReq r[] = {
        {0x1000, 4, 0, 1, ALLOC_DATA, 10, false, false, 0, false, false, 0},
        {0x800, 4, 2, 3, ALLOC_DATA, 11, false, false, 0, false, false, 0},
        {0x100, 4, 1, 2, ALLOC_DATA, 12, false, false, 0, false, false, 0},
    };
    int32_t a[3];
    Diag d;
    assert_int_equal(plan(r, 3, a, &d), ST_OK);
    assert_int_equal(a[0], 0x0000);
    assert_int_equal(a[1], 0x0000);
    assert_int_equal(a[2], 0x1000);
    diag_finish(&d);
}

/* Halves of one phase (alloc.h): in phase 4, a gathered area of 16512 words that the CADD's
 * Axon reads last (last_axon), the CADD's result of 8256 words, and a Soma1's output buffer
 * of 8256 words sent on over phases 4..6 (first_soma): 33024 words live in phase 4 against
 * the 32768 of MEM0 and MEM1, but the buffer is written after the Axon, so it takes the
 * gathered area's first words (placed largest first: the area at 0, the result at 16512,
 * the buffer at 0). Without either flag it does not fit (broadcast_greater_case_0's core:
 * 256 words over). */
static void test_phase_halves(void **state)
{
    (void)state;
    AllocReq r[] = {
        {16512, 4, 3, 4, ALLOC_DATA, 1, true, false, 0, false, false, 0},
        {8256, 4, 4, 4, ALLOC_DATA, 2, false, false, 0, false, false, 0},
        {8256, 4, 4, 6, ALLOC_DATA, 3, false, true, 0, false, false, 0},
    };
    int32_t a[3];
    Diag d;
    assert_int_equal(plan(r, 3, a, &d), ST_OK);
    assert_int_equal(a[0], 0);
    assert_int_equal(a[1], 16512);
    assert_int_equal(a[2], 0);
    diag_finish(&d);
    for (int half = 0; half < 2; half++) {
        r[0].last_axon = half == 1;
        r[2].first_soma = half == 0;
        assert_int_equal(plan(r, 3, a, &d), ST_LOGIC);
        assert_int_equal(diag_find(&d, "emit.alloc"), 0);
        diag_finish(&d);
    }
    /* an area that ends with the Axon of phase 3 meets one that begins in phase 3's Soma1
     * only there: one living [3, 4] from Soma1 on meets one ending with phase 4's Axon */
    AllocReq s[] = {
        {0x5000, 4, 3, 4, ALLOC_DATA, 1, true, false, 0, false, false, 0},
        {0x5000, 4, 3, 4, ALLOC_DATA, 2, false, true, 0, false, false, 0},
    };
    assert_int_equal(plan(s, 2, a, &d), ST_LOGIC);
    diag_finish(&d);
}

/* The receive area (3072 words from 0x8400 = 33792): a landing area of 1024 words [2, 3]
 * that a P06 in Soma1 of phase 3 moves out (last_soma1) and a copy of 2560 words the router
 * lands in phase 3 (first_router) share words in phase 3 (the larger at 33792, the landing
 * area there too); without either flag, or with the landing area ending with phase 3's
 * router or later, 3584 words do not fit. Ending with phase 3's Axon shares too; beginning
 * with Soma1 (first_soma) does not share with one ending with Soma1. */
static void test_router_halves(void **state)
{
    (void)state;
    AllocReq r[] = {
        {1024, 2, 2, 3, ALLOC_RECV, 1, false, false, 0, true, false, 0},
        {2560, 2, 3, 3, ALLOC_RECV, 2, false, false, 0, false, true, 0},
    };
    int32_t a[2];
    Diag d;
    assert_int_equal(plan(r, 2, a, &d), ST_OK);
    assert_int_equal(a[0], 33792);
    assert_int_equal(a[1], 33792);
    diag_finish(&d);
    for (int half = 0; half < 2; half++) {
        r[0].last_soma1 = half == 1;
        r[1].first_router = half == 0;
        assert_int_equal(plan(r, 2, a, &d), ST_LOGIC);
        assert_int_equal(diag_find(&d, "emit.alloc"), 0);
        diag_finish(&d);
    }
    r[0].last_axon = true; /* ends with the Axon, before the router */
    r[1].first_router = true;
    assert_int_equal(plan(r, 2, a, &d), ST_OK);
    diag_finish(&d);
    r[0].last_axon = false;
    r[0].last_soma1 = true;
    r[1].first_router = false;
    r[1].first_soma = true; /* both in Soma1 of phase 3 */
    assert_int_equal(plan(r, 2, a, &d), ST_LOGIC);
    diag_finish(&d);
}

/* Data fills MEM0 first and runs on into MEM1 (one run of data words): 0x3000 + 0x2000 words
 * put the second area at 0x3000..0x4FFF. A weight area then takes the first free words of
 * MEM1: 0x5000. */
static void test_data_runs_into_mem1(void **state)
{
    (void)state;
    AllocReq r[] = {
        {0x3000, 4, 0, 0, ALLOC_DATA, 1, false, false, 0, false, false, 0},
        {0x2000, 4, 0, 0, ALLOC_DATA, 2, false, false, 0, false, false, 0},
        {0x100, 8, 0, 0, ALLOC_STATIC, 3, false, false, 0, false, false, 0},
    };
    int32_t a[3];
    Diag d;
    assert_int_equal(plan(r, 3, a, &d), ST_OK);
    assert_int_equal(a[0], 0x0000);
    assert_int_equal(a[1], 0x3000);
    assert_int_equal(a[2], 0x5000);
    diag_finish(&d);
}

/* Weights that MEM1 cannot hold go below it: MEM1 holds 0x3F00 words of weights, the next
 * 0x200 words do not fit in its last 0x100 and take the first free words from 0: 0x0000. */
static void test_static_falls_back(void **state)
{
    (void)state;
    AllocReq r[] = {
        {0x3F00, 8, 0, 3, ALLOC_STATIC, 1, false, false, 0, false, false, 0},
        {0x200, 8, 0, 3, ALLOC_STATIC, 2, false, false, 0, false, false, 0},
    };
    int32_t a[2];
    Diag d;
    assert_int_equal(plan(r, 2, a, &d), ST_OK);
    assert_int_equal(a[0], 0x4000);
    assert_int_equal(a[1], 0x0000);
    diag_finish(&d);
}

/* Received data goes to the receive area 0x8400..0x8FFF (0xC00 words) and nowhere else: a
 * full-size area fills it exactly; an area living at another time shares it; one living at
 * the same time does not fit. */
static void test_receive_area(void **state)
{
    (void)state;
    AllocReq r[] = {
        {0xC00, 2, 1, 2, ALLOC_RECV, 1, false, false, 0, false, false, 0},
        {0x10, 2, 3, 3, ALLOC_RECV, 3, false, false, 0, false, false, 0},
    };
    int32_t a[3];
    Diag d;
    assert_int_equal(plan(r, 2, a, &d), ST_OK);
    assert_int_equal(a[0], 0x8400);
    assert_int_equal(a[1], 0x8400); /* phase 3: the big area is dead by then */
    diag_finish(&d);
    AllocReq r2[] = {
        {0xC00, 2, 1, 2, ALLOC_RECV, 1, false, false, 0, false, false, 0},
        {0x10, 2, 2, 3, ALLOC_RECV, 4, false, false, 0, false, false, 0},
    };
    assert_int_equal(plan(r2, 2, a, &d), ST_LOGIC);
    assert_non_null(strstr(d.entries[0].what, "block 4 needs 16 words"));
    assert_non_null(strstr(d.entries[0].what, "3088 words are live in phase 2 against the 3072"));
    diag_finish(&d);
}

/* The words live are counted at the parts of a phase, as the areas share them: a received
 * copy waiting from phase 5 to the Soma1 of phase 14 (its gather), a part of another copy
 * landing over the whole receive area with the router of phase 14, and a part of 2304 words
 * landing in phase 12 (test_diff_ops/broadcast_div_case_1_variant_2-4, chip (0,0) core
 * (3,2)). Phase 14 holds 3072 words at a time (1008 to its Soma1, then 3072); phase 12 holds
 * 1008 + 2304 = 3312, the phase the message names. Before: "4080 words are live in phase
 * 14", the two areas of phase 14 counted together though they take the same words. */
static void test_peak_parts(void **state)
{
    (void)state;
    AllocReq r[] = {
        {1008, 8, 5, 14, ALLOC_RECV, 1346, false, false, 0, true, true, 0},
        {3072, 2, 14, 14, ALLOC_RECV, 40, false, false, 0, false, true, 0},
        {2304, 2, 12, 12, ALLOC_RECV, 1345, false, false, 0, false, true, 0},
    };
    int32_t a[3];
    Diag d;
    assert_int_equal(plan(r, 3, a, &d), ST_LOGIC);
    assert_int_equal(diag_find(&d, "emit.alloc"), 0);
    assert_non_null(strstr(d.entries[0].what, "3312 words are live in phase 12 against the 3072"));
    diag_finish(&d);
    r[2].first = r[2].last = 11; /* no phase over the receive area: the plan fits */
    r[2].words = 2064;
    assert_int_equal(plan(r, 3, a, &d), ST_OK);
    assert_int_equal(a[1], 0x8400);
    diag_finish(&d);
}

/* Alignment: the larger area (3 words) takes 0; the 2-word area aligned to 32 goes to 32. */
static void test_alignment(void **state)
{
    (void)state;
    AllocReq r[] = {
        {2, 32, 0, 0, ALLOC_DATA, 1, false, false, 0, false, false, 0},
        {3, 1, 0, 0, ALLOC_DATA, 2, false, false, 0, false, false, 0},
    };
    int32_t a[2];
    Diag d;
    assert_int_equal(plan(r, 2, a, &d), ST_OK);
    assert_int_equal(a[0], 32);
    assert_int_equal(a[1], 0);
    diag_finish(&d);
}

/* Three data areas of 0x4000 words live in phase 5: MEM0 and MEM1 take two, the third does
 * not fit: 3 x 16384 = 49152 words live against the 32768 words of MEM0 and MEM1. */
static void test_does_not_fit(void **state)
{
    (void)state;
    AllocReq r[] = {
        {0x4000, 4, 5, 5, ALLOC_DATA, 7, false, false, 0, false, false, 0},
        {0x4000, 4, 4, 5, ALLOC_DATA, 8, false, false, 0, false, false, 0},
        {0x4000, 4, 5, 6, ALLOC_DATA, 9, false, false, 0, false, false, 0},
    };
    int32_t a[3];
    Diag d;
    assert_int_equal(plan(r, 3, a, &d), ST_LOGIC);
    assert_int_equal(diag_find(&d, "emit.alloc"), 0);
    assert_string_equal(d.entries[0].where, "chip (0,0) core (1,2)");
    assert_non_null(strstr(d.entries[0].what, "block 9 needs 16384 words (65536 B"));
    assert_non_null(strstr(d.entries[0].what, "49152 words are live in phase 5"));
    assert_non_null(strstr(d.entries[0].what, "against the 32768 words"));
    diag_finish(&d);
}

/* An area larger than the whole core (a pixel of 40000 int32 channels) is the plan's
 * finding, a logic error naming the block, not a malformed request (it was a runtime error,
 * and taskir-emit exited 3 saying only that it failed). */
static void test_larger_than_core(void **state)
{
    (void)state;
    AllocReq r[] = {{40000, 4, 2, 3, ALLOC_DATA, 12, false, false, 0, false, false, 0}};
    int32_t a[1];
    Diag d;
    assert_int_equal(plan(r, 1, a, &d), ST_LOGIC);
    assert_int_equal(diag_find(&d, "emit.alloc"), 0);
    assert_non_null(strstr(d.entries[0].what, "block 12 needs 40000 words"));
    assert_non_null(strstr(d.entries[0].what, "more than the 36868 words a core has"));
    diag_finish(&d);
}

/* Weights at the bottom of MEM1 cut the data words in two: a 9856-word input at 0, 9216
 * words of weights at 0x4000 (16384), and a 7488-word accumulator (aligned to 32) fits
 * neither below them (9856 .. 16384: 6528 words) nor above (25600 .. 32768: 7168), though
 * the 28464 words live fit the 32768. The plan is tried again with the static areas from
 * the top of MEM1 down: the weights at 32768 - 9216 = 23552, the 32 words of bias below
 * them at 23520, the accumulator at 9856 and a 1872-word result at 17344. Before: refused
 * [emit.alloc] (ResNet-50's layer2_*_conv2 pieces: 24 of its 30 cores whose data banks
 * overflowed). */
static void test_static_on_top(void **state)
{
    (void)state;
    AllocReq r[] = {
        {9856, 4, 0, 0, ALLOC_DATA, 1, false, false, 0, false, false, 0},
        {9216, 4, 0, 0, ALLOC_STATIC, 2, false, false, 0, false, false, 0},
        {32, 8, 0, 0, ALLOC_STATIC, 3, false, false, 0, false, false, 0},
        {7488, 32, 0, 0, ALLOC_DATA, 4, false, false, 0, false, false, 0},
        {1872, 4, 0, 0, ALLOC_DATA, 5, false, false, 0, false, false, 0},
    };
    int32_t a[5];
    Diag d;
    assert_int_equal(plan(r, 5, a, &d), ST_OK);
    assert_int_equal(a[0], 0);
    assert_int_equal(a[1], 23552);
    assert_int_equal(a[2], 23520);
    assert_int_equal(a[3], 9856);
    assert_int_equal(a[4], 17344);
    assert_int_equal(d.n, 0);
    diag_finish(&d);
}

/* ResNet-50's chip (1,0) core (12,3) (its six areas that matter), worked by hand: 29728 words
 * live at most (phase 6), but largest first leaves no 3584 words for area 5 over phases
 * [6, 9]: areas 1 and 4 at 0 (phases 6, 13..15), area 2 at 14336 (beside 4 in phase 13),
 * the weights 3 above it at 22400, the whole-step area 0 at 27008, and 5 meets 1 at 0 (phase
 * 6), 2 at 14336 (phase 9), 3, then 0: 30592 + 3584 is past 32768; with the weights on top
 * (28160) area 0 goes to 22400 and 5 meets 3. By first phase, weights on top: 0 at 0, 1
 * (phase 6) at 3584, 5 (phase 6) at 17920, 2 (phase 9, after 1) at 3584, 4 (phase 13,
 * beside 2, after 5) at 11648. */
static void test_phase_order(void **state)
{
    (void)state;
    AllocReq r[] = {
        {3584, 8, 0, 31, ALLOC_DATA, 1167, false, false, 0, false, false, 0},
        {14336, 32, 6, 6, ALLOC_DATA, 4119, false, false, 0, false, false, 0},
        {8064, 4, 9, 13, ALLOC_DATA, 7984, false, false, 0, false, false, 0},
        {4608, 8, 0, 31, ALLOC_STATIC, 17196, false, false, 0, false, false, 0},
        {14336, 32, 13, 15, ALLOC_DATA, 7983, false, false, 0, false, false, 0},
        {3584, 4, 6, 9, ALLOC_DATA, 4118, false, false, 0, false, false, 0},
    };
    int32_t a[6];
    Diag d;
    assert_int_equal(plan(r, 6, a, &d), ST_OK);
    assert_int_equal(a[0], 0);
    assert_int_equal(a[1], 3584);
    assert_int_equal(a[2], 3584);
    assert_int_equal(a[3], 28160);
    assert_int_equal(a[4], 11648);
    assert_int_equal(a[5], 17920);
    assert_int_equal(d.n, 0);
    diag_finish(&d);
}

/* A chain of areas (AllocReq.next: a gathered area's parts) is placed back to back, each
 * part with its own lifetime: parts A (phases 0..7) and B (5..7) of 256 words at 0 and 256;
 * E (0..4) meets A but not B, so it shares B's words at 256 (one area of A's and B's words
 * over 0..7 would have put it at 512). A chain that loops is the caller's bug. */
static void test_chain(void **state)
{
    (void)state;
    AllocReq r[] = {
        {256, 8, 0, 7, ALLOC_DATA, 1, false, false, 2, false, false, 0},
        {256, 8, 5, 7, ALLOC_DATA, 1, false, false, 0, false, false, 0},
        {256, 8, 0, 4, ALLOC_DATA, 2, false, false, 0, false, false, 0},
    };
    int32_t a[3];
    Diag d;
    assert_int_equal(plan(r, 3, a, &d), ST_OK);
    assert_int_equal(a[0], 0);
    assert_int_equal(a[1], 256);
    assert_int_equal(a[2], 256);
    diag_finish(&d);
    r[1].next = 1; /* B -> A -> B */
    assert_int_equal(plan(r, 3, a, &d), ST_RUNTIME);
    assert_int_equal(diag_find(&d, "emit.alloc.req"), 0);
    diag_finish(&d);
}

/* Long-lived areas from the top down, placed first (ResNet-50's chip (1,1) core (10,1),
 * session 14): weights of 6144 words and a CADD's gathered area (two parts of 3584, a chain)
 * alive the whole step, beside a 14336-word int32 map of phase 0, a P05's 3584-word buffer
 * over phases 0..4, a received 12544-word map over 2..8 and a conv's 5376 words over 8..9:
 * at most 31232 words live in a phase, but largest first (or by first phase) the map of
 * phase 0 at 0, the gathered area at 14336, the weights beside it, and the conv's result
 * finds no run of 5376 words beside the received map (its 1792 words below 14336 or the
 * words past the weights). The areas alive over more than half the plan go first, from the
 * top: the gathered area at 32768 - 7168 = 25600, the weights below it at 19456; then largest
 * first from 0: the map at 0, the received map at 0 (phases apart), the conv's result above
 * it at 12544 (aligned to 32), the P05's buffer above the map of phase 0 at 14336. */
static void test_long_top(void **state)
{
    (void)state;
    AllocReq r[] = {
        {6144, 8, 0, 31, ALLOC_STATIC, 17732, false, false, 0, false, false, 0},
        {3584, 8, 0, 31, ALLOC_DATA, 2013, false, false, 3, false, false, 0},
        {3584, 8, 0, 31, ALLOC_DATA, 2013, false, false, 0, false, false, 0},
        {14336, 32, 0, 0, ALLOC_DATA, 5229, false, false, 0, false, false, 0},
        {3584, 8, 0, 4, ALLOC_DATA, 5228, false, false, 0, false, false, 0},
        {12544, 4, 2, 8, ALLOC_DATA, 11050, false, false, 0, false, false, 0},
        {5376, 32, 8, 9, ALLOC_DATA, 11049, false, false, 0, false, false, 0},
    };
    const int32_t want[7] = {19456, 25600, 29184, 0, 14336, 0, 12544};
    plan_as(r, 7, want);
}

/* Chains placed before the other areas (ResNet-50's chip (1,0) core (12,0), session 14): a
 * CADD's gathered area of two parts of 6720 words, the first alive over phases 9..14, the
 * second over 11..14, beside a 16128-word map over 0..9, 4480 words over 9..10, the CADD's
 * 6720-word result over 14..17 and 4192 words of weights: at most 31520 words live in phase
 * 9, but placed after the map at 0 the gathered area finds no run of 13440 words whose first
 * part clears the map and whose second the weights at the top. First, at 0, its second part
 * (6720..13440, phases 11..14) takes words the map (phases 0..9) may share: the map at 6720,
 * the CADD's result at 13440 (after the parts, alive in phase 14), the 4480 words at 22848;
 * the weights at the top of MEM1, 28672 and 28576. */
static void test_chains_first(void **state)
{
    (void)state;
    AllocReq r[] = {
        {96, 8, 0, 31, ALLOC_STATIC, 17464, false, false, 0, false, false, 0},
        {4096, 8, 0, 31, ALLOC_STATIC, 17821, false, false, 0, false, false, 0},
        {16128, 4, 0, 9, ALLOC_DATA, 17754, false, false, 0, false, false, 0},
        {4480, 32, 9, 10, ALLOC_DATA, 11310, false, false, 0, false, false, 0},
        {6720, 32, 9, 14, ALLOC_DATA, 11181, false, false, 6, false, false, 0},
        {6720, 32, 11, 14, ALLOC_DATA, 11181, false, false, 0, false, false, 0},
        {6720, 32, 14, 17, ALLOC_DATA, 11181, false, false, 0, false, false, 0},
    };
    const int32_t want[7] = {28576, 28672, 6720, 22848, 0, 6720, 13440};
    plan_as(r, 7, want);
}

/* A plan that fits no try though the words live fit the banks: 16448 words aligned to 8192
 * and 16000 aligned to 16384, both in phase 0 (32448 words of 32768): the larger at 0 ends
 * past 16384 and leaves the other no aligned run (nor does the other order: 16000 at 0, then
 * 16448 at 16384 ends past 32768). The refusal names the area the first try could not place
 * and says that the words live fit, not that they are over the banks. Where a later try
 * fails at an area whose banks are over (the first try at a 6016-word data area, the phase
 * order at a copy of 6016 words landing in the receive area's 3072: div_9x9_all_pairs's
 * chip (0,1) core (14,3) in session 13), that area is named. */
static void test_no_run(void **state)
{
    (void)state;
    AllocReq r[] = {
        {16448, 8192, 0, 0, ALLOC_DATA, 7, false, false, 0, false, false, 0},
        {16000, 16384, 0, 0, ALLOC_DATA, 8, false, false, 0, false, false, 0},
    };
    int32_t a[5];
    Diag d;
    assert_int_equal(plan(r, 2, a, &d), ST_LOGIC);
    assert_non_null(strstr(d.entries[0].what, "block 8 needs 16000 words"));
    assert_non_null(strstr(d.entries[0].what, "at most 32448 words are live in a phase (phase 0), "
                                              "within the 32768 words"));
    diag_finish(&d);
    AllocReq q[] = {
        {24064, 32, 0, 0, ALLOC_DATA, 97, false, false, 0, false, false, 0},
        {6016, 128, 2, 21, ALLOC_DATA, 196, false, false, 0, false, false, 0},
        {6016, 128, 0, 2, ALLOC_DATA, 96, false, false, 0, false, false, 0},
        {24064, 512, 21, 24, ALLOC_DATA, 195, false, false, 0, false, false, 0},
        {6016, 128, 2, 3, ALLOC_RECV, 196, false, false, 0, false, false, 0},
    };
    assert_int_equal(plan(q, 5, a, &d), ST_LOGIC);
    assert_non_null(strstr(d.entries[0].what, "block 196 needs 6016 words"));
    assert_non_null(strstr(d.entries[0].what, "6016 words are live in phase 2 against the 3072"));
    diag_finish(&d);
}

/* A request that is not one (size 0, alignment not a power of two, lifetime backwards) is
 * the caller's bug: a runtime error. */
static void test_bad_request(void **state)
{
    (void)state;
    AllocReq bad[] = {
        {0, 1, 0, 0, ALLOC_DATA, 1, false, false, 0, false, false, 0},
        {4, 3, 0, 0, ALLOC_DATA, 1, false, false, 0, false, false, 0},
        {4, 1, 2, 1, ALLOC_DATA, 1, false, false, 0, false, false, 0},
    };
    for (size_t i = 0; i < 3; i++) {
        int32_t a[1];
        Diag d;
        assert_int_equal(plan(&bad[i], 1, a, &d), ST_RUNTIME);
        assert_int_equal(diag_find(&d, "emit.alloc.req"), 0);
        diag_finish(&d);
    }
}

/* An area that lives again (alloc.h again): a stage's input of 1472 words landing in the
 * receive area in phase 31 and read in phase 0 of the next step lives [0, 0] and from 31
 * on; a spread copy's part of 3072 words landing in phase 18 takes the whole receive area
 * beside it (0x8400), and one of 2048 in phase 31 does not fit. Over the whole step (its
 * lifetime before, [0, 31]) the part of phase 18 did not fit either
 * (test_diff_ops/broadcast_div_case_2_variant_1-4, core (6,4): 4544 words live in phase 18).
 * The fullest phase named is 31. */
static void test_lives_again(void **state)
{
    (void)state;
    AllocReq r[] = {
        {1472, 8, 0, 0, ALLOC_RECV, 243, false, false, 0, false, false, 31},
        {3072, 8, 18, 18, ALLOC_RECV, 139, false, false, 0, false, false, 0},
    };
    int32_t a[2];
    Diag d;
    assert_int_equal(plan(r, 2, a, &d), ST_OK);
    assert_int_equal(a[1], 0x8400);
    diag_finish(&d);
    r[0].again = 0;
    r[0].last = 31;
    assert_int_equal(plan(r, 2, a, &d), ST_LOGIC);
    diag_finish(&d);
    r[0].last = 0;
    r[0].again = 31;
    r[1].words = 2048;
    r[1].first = r[1].last = 31;
    assert_int_equal(plan(r, 2, a, &d), ST_LOGIC);
    assert_non_null(strstr(d.entries[0].what, "3520 words are live in phase 31"));
    diag_finish(&d);
    r[1].first = r[1].last = 20; /* from 20 to the step's end: meets phase 31 too */
    r[1].again = 25;
    assert_int_equal(plan(r, 2, a, &d), ST_LOGIC);
    diag_finish(&d);
    r[1].again = 0;
    assert_int_equal(plan(r, 2, a, &d), ST_OK);
    diag_finish(&d);
    r[0].again = 0; /* a lifetime that lives again must do so after its last phase */
    r[1].again = 20;
    assert_int_equal(plan(r, 2, a, &d), ST_RUNTIME);
    diag_finish(&d);
}

/* The receive area's areas of test_diff_ops/cvm_precision_case_2__p_24_'s chip (0,0) core
 * (3,5): copies of 368 words (u) and 736 (2u) landing over phases 3 to 14, each waiting
 * for the P06 gathering it into a CADD's area. At most 8u (2944 of the 3072 words) are
 * live in a phase, 8u in phases 4, 5, 10, 11 and 12, so those phases leave no run of u
 * free. No order of placement fits them (largest first puts the 2u areas at the bottom and
 * the u areas of phases 4..9 around them; by first phase, the two u areas 165 and 166 of
 * phases [5, 8] land where 169..171 would need two runs of 2u): refused emit.alloc before.
 * By hand: 159, 160 at 0u, 1u; 165, 166 at 2u, 3u; 169 at 4u; 167 at 6u; 170 at 0u; 171 at
 * 2u; 172, 173 at 4u, 6u; 174, 175 at 0u, 2u; 176, 177 at 4u, 6u; 161, 162 at 4u, 5u;
 * 163, 164 at 6u, 7u; 157, 158 at 2u, 3u; 168, 178 and 52 at 0u. The search (alloc.c
 * recv_search) finds a plan: checked here for its bank and for every two areas whose
 * lifetimes meet. */
static void test_recv_search(void **state)
{
    (void)state;
    static const int32_t area[][4] = {
        {157, 368, 4, 4},  {158, 368, 3, 4},  {159, 368, 4, 7},  {160, 368, 4, 7},
        {161, 368, 4, 6},  {162, 368, 4, 6},  {163, 368, 4, 5},  {164, 368, 4, 5},
        {165, 368, 5, 8},  {166, 368, 5, 8},  {167, 368, 6, 9},  {168, 736, 3, 3},
        {169, 736, 7, 9},  {170, 736, 8, 10}, {171, 736, 9, 10}, {172, 736, 10, 11},
        {173, 736, 10, 11}, {174, 736, 11, 12}, {175, 736, 11, 12}, {176, 736, 12, 13},
        {177, 736, 12, 13}, {178, 368, 13, 14}, {52, 1472, 15, 17},
    };
    enum { N = sizeof area / sizeof area[0] };
    AllocReq r[N];
    for (size_t i = 0; i < N; i++)
        r[i] = (AllocReq){area[i][1], 8, area[i][2], area[i][3], ALLOC_RECV, area[i][0],
                          false, false, 0, false, i != 11 && i != 22, 0};
    int32_t a[N];
    Diag d;
    assert_int_equal(plan(r, N, a, &d), ST_OK);
    diag_finish(&d);
    for (size_t i = 0; i < N; i++) {
        assert_true(a[i] >= 0x8400 && a[i] + r[i].words <= 0x9000 && a[i] % 8 == 0);
        for (size_t j = 0; j < i; j++)
            if (r[i].first <= r[j].last && r[j].first <= r[i].last)
                assert_true(a[i] + r[i].words <= a[j] || a[j] + r[j].words <= a[i]);
    }
}

/* The data banks of test_diff_ops/broadcast_div_case_1_variant_1-4's chip (0,0) core (13,4),
 * u = 2544 words: three CADDs' gathered areas, chains of two parts each, one part of each
 * holding an input alive the whole step (phases 0..31) and the other alive a few phases
 * (A: whole, then [2, 3]; B: [3, 4], then whole; C: [21, 22], then whole), an input of u and
 * a table of 1944 words alive the whole step, and in phase 12 a CVS's int32 buffer P of
 * 15264 words (aligned to 32) beside its input Q of 3816: 4u + 1944 + 15264 + 3816 = 31200
 * of the 32768 words. A chain's short part is a hole only the areas of other phases use,
 * and the orders of placement leave the holes apart: P and Q need 19080 words in two runs,
 * and of the 32768 - 4u - 1944 = 20648 words the long-lived areas leave, one hole of u
 * lies apart wherever a chain's short part faces none. By hand: S, T, A at the bottom (A's
 * short part upwards) and C next to it (its short part downwards: A's and C's holes are one
 * run of 2u, where Q goes), B at the top (its short part downwards, joined to the run
 * above C): P fits the 15560 words from C's end to B's long part. The data banks' search
 * (alloc.c data_search) finds a plan: checked here for its bank, the chains back to back
 * and every two areas whose lifetimes meet. */
static void test_data_search(void **state)
{
    (void)state;
    enum { U = 2544, N = 10 };
    AllocReq r[N] = {
        {U, 8, 0, 31, ALLOC_DATA, 1, false, false, 0, false, false, 0},     /* S */
        {1944, 8, 0, 31, ALLOC_STATIC, 2, false, false, 0, false, false, 0}, /* T */
        {U, 8, 0, 31, ALLOC_DATA, 3, false, false, 4, false, false, 0},     /* A0 -> A1 */
        {U, 8, 2, 3, ALLOC_DATA, 3, false, false, 0, false, false, 0},      /* A1 */
        {U, 8, 3, 4, ALLOC_DATA, 4, false, false, 6, false, false, 0},      /* B0 -> B1 */
        {U, 8, 0, 31, ALLOC_DATA, 4, false, false, 0, false, false, 0},     /* B1 */
        {U, 8, 21, 22, ALLOC_DATA, 5, false, false, 8, false, false, 0},    /* C0 -> C1 */
        {U, 8, 0, 31, ALLOC_DATA, 5, false, false, 0, false, false, 0},     /* C1 */
        {15264, 32, 12, 13, ALLOC_DATA, 6, false, false, 0, false, false, 0}, /* P */
        {3816, 8, 10, 12, ALLOC_DATA, 7, false, false, 0, false, false, 0},   /* Q */
    };
    int32_t a[N];
    Diag d;
    assert_int_equal(plan(r, N, a, &d), ST_OK);
    assert_int_equal(d.n, 0);
    diag_finish(&d);
    for (size_t i = 0; i < N; i++) {
        assert_true(a[i] >= 0 && a[i] + r[i].words <= 0x8000 && a[i] % r[i].align == 0);
        if (r[i].next)
            assert_int_equal(a[r[i].next - 1], a[i] + r[i].words);
        for (size_t j = 0; j < i; j++)
            if (alloc_lives_meet(&r[i], &r[j]))
                assert_true(a[i] + r[i].words <= a[j] || a[j] + r[j].words <= a[i]);
    }
}

/* Areas at fixed addresses (alloc_core_at, backend/emit_pin.c: the areas a relaying chain
 * lands in, at one address on each of its cores): F (64 words, fixed at 0x8440) is placed
 * first; then B (128 words), largest first, fits at 0x8400 no more (it would meet F) and
 * goes after F, at 0x8480, and A (64) at 0x8400 below F. G, fixed too but alive only in
 * phase 3, shares F's words. Without fixed addresses: B 0x8400, A 0x8480, F 0x84c0. */
static void test_fixed(void **state)
{
    (void)state;
    AllocReq r[] = {
        {64, 2, 0, 1, ALLOC_RECV, 1, false, false, 0, false, false, 0},
        {128, 2, 0, 1, ALLOC_RECV, 2, false, false, 0, false, false, 0},
        {64, 2, 0, 1, ALLOC_RECV, 3, false, false, 0, false, false, 0},
        {32, 2, 3, 3, ALLOC_RECV, 4, false, false, 0, false, false, 0},
    };
    const int32_t at[4] = {0, 0, 0x8440, 0x8440};
    int32_t a[4];
    Diag d;
    diag_init(&d, "t.map.pb");
    assert_int_equal(alloc_core_at(r, 4, at, a, "chip (0,0) core (1,2)", &d), ST_OK);
    assert_int_equal(a[0], 0x8400);
    assert_int_equal(a[1], 0x8480);
    assert_int_equal(a[2], 0x8440);
    assert_int_equal(a[3], 0x8440);
    assert_int_equal(d.n, 0);
    diag_finish(&d);
    const int32_t want[3] = {0x8480, 0x8400, 0x84c0};
    plan_as(r, 3, want);
}

/* Fixed areas whose words and lifetimes meet fit nowhere [emit.alloc]; a fixed address off
 * the area's alignment, or outside its banks (a received area in MEM0), is a malformed
 * request [emit.alloc.req]. */
static void test_fixed_bad(void **state)
{
    (void)state;
    AllocReq r[] = {
        {64, 4, 0, 1, ALLOC_RECV, 1, false, false, 0, false, false, 0},
        {64, 4, 1, 2, ALLOC_RECV, 2, false, false, 0, false, false, 0},
    };
    const int32_t meet[2] = {0x8400, 0x8420}, odd[2] = {0x8402, 0}, low[2] = {0x100, 0};
    const int32_t *const at[3] = {meet, odd, low};
    const Status want[3] = {ST_LOGIC, ST_RUNTIME, ST_RUNTIME};
    const char *const rule[3] = {"emit.alloc", "emit.alloc.req", "emit.alloc.req"};
    for (int i = 0; i < 3; i++) {
        int32_t a[2];
        Diag d;
        diag_init(&d, "t.map.pb");
        assert_int_equal(alloc_core_at(r, 2, at[i], a, "chip (0,0) core (1,2)", &d), want[i]);
        assert_int_equal(d.n, 1);
        assert_string_equal(d.entries[0].rule, rule[i]);
        diag_finish(&d);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_static_in_mem1), cmocka_unit_test(test_lifetimes_share),
        cmocka_unit_test(test_data_runs_into_mem1), cmocka_unit_test(test_static_falls_back),
        cmocka_unit_test(test_receive_area), cmocka_unit_test(test_phase_halves),
        cmocka_unit_test(test_router_halves), cmocka_unit_test(test_peak_parts),
        cmocka_unit_test(test_alignment),      cmocka_unit_test(test_does_not_fit),
        cmocka_unit_test(test_bad_request),     cmocka_unit_test(test_static_on_top),
        cmocka_unit_test(test_larger_than_core), cmocka_unit_test(test_phase_order),
        cmocka_unit_test(test_chain),         cmocka_unit_test(test_long_top),
        cmocka_unit_test(test_chains_first),  cmocka_unit_test(test_no_run),
        cmocka_unit_test(test_lives_again),   cmocka_unit_test(test_recv_search),
        cmocka_unit_test(test_data_search),
        cmocka_unit_test(test_fixed),         cmocka_unit_test(test_fixed_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
