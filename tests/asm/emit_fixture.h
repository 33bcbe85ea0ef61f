/* emit_fixture.h: hand-built Mappings for the code generator's tests (tests/asm/test_emit.c,
 * emit_fixture_write.c):
 *   emit_fixture_conv(shift)   INPUT 6x6x3 -> SIC -> CC 3x3 (pad 1, r 3, f 40; SW, SB) ->
 *                              SI int32 -> CCMPB >> shift -> SI int8 -> OUTPUT, one core (0,0),
 *                              phase 0 (CC on the Axon, CCMPB on Soma1); weights
 *                              emit_fixture_w(f, r, ky, kx), bias 1000 f - 7
 *   emit_fixture_transfer(y0, n)  INPUT -> SI a 4x4x16 int8 on core (0,0) -> CCMPB relu
 *                              (Soma1) -> SI b on core (2,1) (received in phase 0) -> CCMPB
 *                              copy of its rows y0 .. y0+n-1 (Soma2) -> SI c -> OUTPUT
 * Both verify (verify_mapping); they exit(3) when out of memory. */
#ifndef TASKIR_TESTS_EMIT_FIXTURE_H
#define TASKIR_TESTS_EMIT_FIXTURE_H

#include <stdint.h>

#include "taskir/mapping.h"

Mapping *emit_fixture_conv(int32_t shift);
Mapping *emit_fixture_transfer(int32_t rows0, int32_t rows);
/* The fixture's weight w[f][r][ky][kx] = (7f + 5r + 3ky + kx) mod 200 - 100. */
int64_t emit_fixture_w(int f, int r, int ky, int kx);

#endif
