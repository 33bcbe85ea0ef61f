/* graphbuild.c: building TaskGraphs by hand in the CMocka tests (graphbuild.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "graphbuild.h"

Block *tg_blk(Graph *g, BlockType t, const char *name, PrecisionId p,
              const int32_t s[TIR_NDIMS])
{
    Block *b = graph_add_block(g, t, GRAPH_AUTO_ID, name);
    assert_non_null(b);
    memcpy(b->shape.d, s, sizeof b->shape.d);
    b->has_shape = true;
    b->prec = p;
    b->has_prec = true;
    return b;
}

void tg_join(Graph *g, Block *a, uint32_t out, Block *b, uint32_t in)
{
    assert_non_null(graph_connect(g, a, out, b, in));
}
