/* emit_fixture.h: hand-built Mappings for the code generator's tests (tests/asm/test_emit.c,
 * emit_fixture_write.c):
 *   emit_fixture_conv(shift)   INPUT 6x6x3 -> SIC -> CC 3x3 (pad 1, r 3, f 40; SW, SB) ->
 *                              SI int32 -> CCMPB >> shift -> SI int8 -> OUTPUT, one core (0,0),
 *                              phase 0 (CC on the Axon, CCMPB on Soma1); weights
 *                              emit_fixture_w(f, r, ky, kx), bias 1000 f - 7
 *   emit_fixture_conv_banks()  INPUT 11x28x128 -> CC 3x3 (no pad, r 128, f 32) -> SI int32
 *                              -> CCMPB >> 8 -> SI int8 -> OUTPUT on (0,0), phase 0: its
 *                              areas fit only with the weights at the top of MEM1
 *   emit_fixture_transfer(y0, n)  INPUT -> SI a 4x4x16 int8 on core (0,0) -> CCMPB relu
 *                              (Soma1) -> SI b on core (2,1) (received in phase 0) -> CCMPB
 *                              copy of its rows y0 .. y0+n-1 (Soma2) -> SI c -> OUTPUT
 *   emit_fixture_transfer_late(y0, n)  the same, copy reading b in phase 1 (Soma1): b's
 *                              copy lives on past the phase it arrives in
 *   emit_fixture_transfer_twice()  the same, all of b, a CADD (Axon, phase 1) adding b to
 *                              itself into an int32 d that copy reads
 *   emit_fixture_spread()      a 16x16x64 int8 relu result on core (0,0) sent to (2,1) over
 *                              phases 0 and 1 (16 KiB: the Mapping spreads it), read in
 *                              Soma1 of phase 2
 *   emit_fixture_spread3()     the same, 20x20x64 over phases 0, 1 and 2, read in phase 3
 *   emit_fixture_spread_runs() a 15x16x64 relu result sent to (2,1) by three edges of rows
 *                              (0; 1..13 over phases 0 and 1; 14), read in phase 2: phase 1
 *                              carries two runs of pixels apart
 *   emit_fixture_spread_two()  a 13x16x64 relu result sent to (2,1) into two storage
 *                              blocks, over phases 0-1 and 1-2: phase 1 carries parts of both
 *   emit_fixture_spread_local() a 16x16x64 map on (2,1) (16 KiB), rows 0..3 written there,
 *                              rows 4..15 received from (0,0) in phase 0, read in phase 1
 *   emit_fixture_spread_edges() a 16x16x64 relu result sent to (2,1) by two edges of rows,
 *                              0..11 in phase 0 and 12..15 in phase 1, read in phase 2
 *   emit_fixture_spread_slices() a 16x16x128 int8 map on (2,1) (32 KiB) assembled from two
 *                              channel slices of 64, relu1's from (0,0) and relu2's from
 *                              (1,0), both over phases 0, 1 and 2, read in phase 3
 *   emit_fixture_pieces()      a 16x16x64 relu result written into a map on its own core by
 *                              two edges (rows 0..7, 8..15), read in phase 1
 *   emit_fixture_slice(y0, n, x0, m)  the same, the copy of rows y0.. and columns x0..x0+m-1
 *   emit_fixture_mix()         CVS (P83), CCMPB, CAVG (P02), CCMPB on one core, two phases
 *   emit_fixture_fc()          a 20 -> 40 CVM (P04) and its requantization on one core
 *   emit_fixture_cax()         a 40-channel CAX (P43) and its requantization on one core
 *   emit_fixture_two_layer()   a ReLU (P05) into a 3x3 conv of 16 channels into 64 and its
 *                              requantization, on one core in two phases (to cut and map)
 *   emit_fixture_relay(p, sib) a Soma result multicast to cores (2,1) and (3,1), (2,1)
 *                              relaying it in phase p (1: from its copy; 0: as it arrives;
 *                              -1: no relay, (0,0) sends to both in phase 0);
 *                              sib: two storage blocks of the same values, one a core
 *   emit_fixture_relay_parts(lag) a 13x16x64 relu result sent to (2,1) over phases 0 and
 *                              1, which relays each part to (3,1) lag phases later (1:
 *                              phases 1 and 2; 0: as it lands); read on both in phase 3
 *   emit_fixture_spread_cap()  a 20x16x64 relu result sent whole to (2,1) over phases 0..2
 *                              and its rows 4..19 to (3,1) over phases 0 and 1: (2,1)'s part
 *                              of phase 1 stays whole (the chain carrying it fits)
 *   emit_fixture_spread_cut()  a 25x1x1024 relu result sent whole to (2,1) over phases
 *                              1..3, its channel halves to (3,1) and (4,1) (rows 0..5 in
 *                              phase 0, 6..24 in phase 1) and rows 0..1 to both (phase
 *                              1): (2,1)'s part of phase 1 ends where the halves' begin
 *   emit_fixture_chmerge()     an 8x8x256 int8 map (16 KiB) on (2,1) and (3,1), assembled
 *                              from four slices of 64 channels, each whole in one phase:
 *                              on (2,1) 1, 0, then 2 and 3 (phases 0..2), on (3,1) 2 and 3,
 *                              1 relayed by (2,1), 0 (phases 1..3); read in phases 3 and 4
 *   emit_fixture_chain_two()   two sources, (0,0) and (0,2), each multicasting a Soma
 *                              result to cores (2,1) and (3,1) in phase 0: two relaying
 *                              chains through the same cores, read there in phase 1
 *   emit_fixture_chain_three() the same with three receivers, (2,1), (3,1) and (4,1), and
 *                              the second source on (6,2): nearest first from each source,
 *                              the chains would take the cores in different orders
 *   emit_fixture_chain_cross() three sources, (0,0), (0,2) and (0,4), each multicasting to
 *                              two of (2,1), (3,1) and (4,1): {(2,1),(3,1)},
 *                              {(3,1),(4,1)}, {(2,1),(4,1)}, which no chains carry in one
 *                              phase (no core all three reach, to end on)
 *   emit_fixture_chain_apart() three sources, (0,0), (0,2) and (0,4), multicasting to
 *                              (2,1) and (3,1), to (3,1) alone, and to both again: the
 *                              copies of the first and third land apart by the second's
 *                              on (3,1) alone, unless laid out for the chains (emit_pin.c)
 *   emit_fixture_chips()       emit_fixture_relay(-1, false) on three chips: the source on
 *                              the corner core of chip (0,0), its receivers one step right
 *                              and one step down, on chips (1,0) and (0,1)
 * All verify (verify_mapping); they exit(3) when out of memory. */
#ifndef TASKIR_TESTS_EMIT_FIXTURE_H
#define TASKIR_TESTS_EMIT_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "taskir/mapping.h"

Mapping *emit_fixture_conv(int32_t shift);
Mapping *emit_fixture_conv_banks(void);
Mapping *emit_fixture_transfer(int32_t rows0, int32_t rows);
Mapping *emit_fixture_transfer_late(int32_t rows0, int32_t rows);
Mapping *emit_fixture_transfer_twice(void);
Mapping *emit_fixture_spread(void);
Mapping *emit_fixture_spread3(void);
Mapping *emit_fixture_spread_runs(void);
Mapping *emit_fixture_spread_two(void);
Mapping *emit_fixture_spread_local(void);
Mapping *emit_fixture_spread_edges(void);
Mapping *emit_fixture_spread_slices(void);
Mapping *emit_fixture_pieces(void);
Mapping *emit_fixture_slice(int32_t rows0, int32_t rows, int32_t cols0, int32_t cols);
Mapping *emit_fixture_mix(void);
Mapping *emit_fixture_fc(void);
Mapping *emit_fixture_cax(void);
Mapping *emit_fixture_two_layer(void);
Mapping *emit_fixture_relay(int32_t relay, bool sibling);
Mapping *emit_fixture_relay_parts(int32_t lag);
Mapping *emit_fixture_spread_cap(void);
Mapping *emit_fixture_spread_cut(void);
Mapping *emit_fixture_chmerge(void);
Mapping *emit_fixture_chain_two(void);
Mapping *emit_fixture_chain_three(void);
Mapping *emit_fixture_chain_cross(void);
Mapping *emit_fixture_chain_apart(void);
Mapping *emit_fixture_chips(void);
/* The fixture's weight w[f][r][ky][kx] = (7f + 5r + 3ky + kx) mod 200 - 100. */
int64_t emit_fixture_w(int f, int r, int ky, int kx);

#endif
