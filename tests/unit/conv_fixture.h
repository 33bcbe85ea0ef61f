/* conv_fixture.h: the small convolution graph the unit tests of the working IR share. */
#ifndef TESTS_UNIT_CONV_FIXTURE_H
#define TESTS_UNIT_CONV_FIXTURE_H

#include "taskir/graph.h"

/* INPUT hw x hw x 2 -> SIC -> CC 3x3 (+SW 'conv/w', +SB 'conv/b' {1, -2, 3}) -> SI -> OUTPUT
 * hw-2 x hw-2 x 3 (blocks in that order: data, conv/in, conv/w, conv/b, conv, conv/out, out).
 * The SW block has no data yet: the caller gives it 54 weights [3, 2, 3, 3]. NULL when out of
 * memory. */
Graph *conv_fixture(int32_t hw);

#endif
