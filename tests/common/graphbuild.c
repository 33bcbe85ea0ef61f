/* graphbuild.c: building TaskGraphs by hand in the CMocka tests (graphbuild.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "graphbuild.h"

#include "taskir/sim.h"

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

Block *tg_io(Graph *g, BlockType t, const char *name, PrecisionId p,
             const int32_t s[TIR_NDIMS], uint32_t k)
{
    Block *b = tg_blk(g, t, name, p, s);
    b->socket_id = k;
    b->has_socket_id = true;
    return b;
}

void tg_join(Graph *g, Block *a, uint32_t out, Block *b, uint32_t in)
{
    assert_non_null(graph_connect(g, a, out, b, in));
}

void tg_chain(Graph *g, Block *first, ...)
{
    va_list ap;
    va_start(ap, first);
    for (Block *a = first, *b; (b = va_arg(ap, Block *)) != NULL; a = b)
        tg_join(g, a, 0, b, 0);
    va_end(ap);
}

void tg_run(const Graph *g, const Chip *c, const int32_t *in, int64_t n, int32_t *out, int64_t m)
{
    Diag d;
    diag_init(&d, "t");
    SimRun *r = NULL;
    SimOptions o = {.threads = 1, .steps = 1, .keep_all = false};
    assert_int_equal(sim_create(g, &o, &r, &d), ST_OK);
    if (c)
        sim_use_chip(r, c);
    assert_int_equal(sim_set_input(r, 0, in, n, &d), ST_OK);
    assert_int_equal(sim_step(r, &d), ST_OK);
    int64_t count = 0;
    const int32_t *y = sim_output(r, 0, &count);
    assert_int_equal(count, m);
    memcpy(out, y, (size_t)m * sizeof *out);
    sim_destroy(r);
    diag_finish(&d);
}
