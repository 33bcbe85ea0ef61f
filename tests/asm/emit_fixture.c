/* emit_fixture.c: the hand-built Mappings of the code generator's tests (emit_fixture.h). */
#include "emit_fixture.h"

#include <stdio.h>
#include <stdlib.h>

/* Gives up on a failed step: the fixtures are built from constants, so a failure is out of
 * memory or a broken library call; either way the test cannot go on. */
#define CHECK(x) do { if (!(x)) { fprintf(stderr, "emit_fixture: %s failed (line %d)\n", #x, __LINE__); exit(3); } } while (0)

static Mapping *verified(Mapping *m, const char *name)
{
    Diag d;
    diag_init(&d, name);
    Status st = verify_mapping(m, &d);
    if (st != ST_OK) {
        diag_print(&d, stderr, "emit_fixture");
        exit(3);
    }
    diag_finish(&d);
    return m;
}

enum { AXON = 1, SOMA1 = 2, RECV = 3, SEND = 4, SOMA2 = 5, MEMORY = 6 };

static void coord(Mapping *m, bool edge, int32_t id, int n, const int32_t (*c)[4])
{
    MapDict *d = mapping_add_dict(m, edge, id, (uint32_t)n);
    CHECK(d);
    for (int i = 0; i < n; i++) {
        /* {core x, core y, phase, pi}; end_phase = phase, or c[i][2] >> 8 when set */
        d->coords[i].core.x = c[i][0];
        d->coords[i].core.y = c[i][1];
        d->coords[i].phase = c[i][2] & 0xFF;
        d->coords[i].end_phase = c[i][2] >> 8 ? c[i][2] >> 8 : c[i][2] & 0xFF;
        d->coords[i].has_end_phase = true;
        d->coords[i].pi_index = c[i][3];
        d->coords[i].has_pi_index = true;
    }
}

static void one(Mapping *m, int32_t id, int32_t x, int32_t y, int32_t phase, int32_t pi)
{
    const int32_t c[1][4] = {{x, y, phase, pi}};
    coord(m, false, id, 1, c);
}

static Block *blk(Graph *g, BlockType t, const char *name, int32_t y, int32_t x, int32_t f,
                  int32_t r)
{
    Block *b = graph_add_block(g, t, GRAPH_AUTO_ID, name);
    CHECK(b);
    b->shape.d[D_Y] = y, b->shape.d[D_X] = x, b->shape.d[D_F] = f, b->shape.d[D_R] = r;
    return b;
}

/* w[f][r][ky][kx] = (7f + 5r + 3ky + kx) mod 200 - 100 */
int64_t emit_fixture_w(int f, int r, int ky, int kx)
{
    return (7 * f + 5 * r + 3 * ky + kx) % 200 - 100;
}

/* INPUT 6x6x3 -> SIC -> CC 3x3 pad 1, f 40 (+ SW, SB) -> SI int32 -> CCMPB >> 8 -> SI int8
 * -> OUTPUT, all on core (0,0), phase 0: CC on the Axon, CCMPB on Soma1. shift: the CCMPB's. */
Mapping *emit_fixture_conv(int32_t shift)
{
    Mapping *m = mapping_create();
    CHECK(m);
    Graph *g = m->graph;
    Block *in = blk(g, BT_INPUT, "data", 6, 6, 3, 0);
    Block *sic = blk(g, BT_SIC, "conv/in", 6, 6, 0, 3);
    Block *sw = blk(g, BT_SW, "conv/w", 0, 0, 40, 3);
    Block *sb = blk(g, BT_SB, "conv/b", 0, 0, 40, 0);
    Block *cc = blk(g, BT_CC, "conv", 6, 6, 40, 3);
    Block *si = blk(g, BT_SI, "conv/acc", 6, 6, 40, 0);
    Block *cm = blk(g, BT_CCMPB, "requant", 6, 6, 40, 0);
    Block *so = blk(g, BT_SI, "requant/out", 6, 6, 40, 0);
    Block *out = blk(g, BT_OUTPUT, "out", 6, 6, 40, 0);
    in->has_socket_id = out->has_socket_id = true;
    in->has_prec = sic->has_prec = sw->has_prec = cm->has_prec = so->has_prec = out->has_prec = true;
    in->prec = sic->prec = sw->prec = cm->prec = so->prec = out->prec = PR_INT_8;
    sb->has_prec = si->has_prec = cc->has_prec = true;
    sb->prec = si->prec = cc->prec = PR_INT_32;
    sw->shape.d[D_KY] = sw->shape.d[D_KX] = 3;
    cc->shape.d[D_KY] = cc->shape.d[D_KX] = 3;
    cc->shape.d[D_IY] = cc->shape.d[D_IX] = 6;
    cm->shape.d[D_IY] = cm->shape.d[D_IX] = 6;
    cm->shape.d[D_KY] = cm->shape.d[D_KX] = 1;
    cc->bias_type = BIAS_VECTOR;
    int64_t w[40 * 3 * 9], b[40];
    for (int f = 0; f < 40; f++) {
        b[f] = 1000 * f - 7;
        for (int r = 0; r < 3; r++)
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    w[((f * 3 + r) * 3 + i) * 3 + j] = emit_fixture_w(f, r, i, j);
    }
    int32_t wd[4] = {40, 3, 3, 3}, bd[1] = {40};
    CHECK(blk_set_data(g, sw, PR_INT_8, wd, 4, w, 40 * 27));
    CHECK(blk_set_data(g, sb, PR_INT_32, bd, 1, b, 40));
    CHECK(blk_set_attr(g, cc, AT_KERNEL_X, 3) && blk_set_attr(g, cc, AT_KERNEL_Y, 3));
    CHECK(blk_set_attr(g, cc, AT_PAD_UP, 1) && blk_set_attr(g, cc, AT_PAD_DOWN, 1));
    CHECK(blk_set_attr(g, cc, AT_PAD_LEFT, 1) && blk_set_attr(g, cc, AT_PAD_RIGHT, 1));
    CHECK(blk_set_attr(g, cm, AT_BIT_SHIFT_NUM, shift) && blk_set_attr(g, cm, AT_CMP, -128));
    CHECK(graph_connect(g, in, 0, sic, 0));
    CHECK(graph_connect(g, sic, 0, cc, 0));
    CHECK(graph_connect(g, sw, 0, cc, 1));
    CHECK(graph_connect(g, sb, 0, cc, 2));
    CHECK(graph_connect(g, cc, 0, si, 0));
    CHECK(graph_connect(g, si, 0, cm, 0));
    CHECK(graph_connect(g, cm, 0, so, 0));
    Edge *eo = graph_connect(g, so, 0, out, 0);
    Edge *ei = g->edges[0];
    CHECK(eo);
    one(m, sic->id, 0, 0, 0, MEMORY);
    one(m, sw->id, 0, 0, 0, MEMORY);
    one(m, sb->id, 0, 0, 0, MEMORY);
    one(m, cc->id, 0, 0, 0, AXON);
    one(m, si->id, 0, 0, 0, MEMORY);
    one(m, cm->id, 0, 0, 0, SOMA1);
    one(m, so->id, 0, 0, 0, MEMORY);
    const int32_t rin[1][4] = {{0, 0, 0, RECV}}, sout[1][4] = {{0, 0, 0, SEND}};
    coord(m, true, ei->id, 1, rin);
    coord(m, true, eo->id, 1, sout);
    return verified(m, "conv");
}

/* INPUT -> SI a (4x4x16 int8) on core (0,0) -> CCMPB relu (Soma1, phase 0) -> SI b, stored
 * on core (2,1) only (received in phase 0, its reader reads rows rows0.. of it) -> CCMPB
 * copy (Soma2, phase 0) -> SI c -> OUTPUT. */
Mapping *emit_fixture_transfer(int32_t rows0, int32_t rows)
{
    Mapping *m = mapping_create();
    CHECK(m);
    Graph *g = m->graph;
    Block *in = blk(g, BT_INPUT, "x", 4, 4, 16, 0);
    Block *a = blk(g, BT_SI, "a", 4, 4, 16, 0);
    Block *relu = blk(g, BT_CCMPB, "relu", 4, 4, 16, 0);
    Block *b = blk(g, BT_SI, "b", 4, 4, 16, 0);
    Block *cp = blk(g, BT_CCMPB, "copy", rows, 4, 16, 0);
    Block *c = blk(g, BT_SI, "c", rows, 4, 16, 0);
    Block *out = blk(g, BT_OUTPUT, "y", rows, 4, 16, 0);
    Block *all[] = {in, a, relu, b, cp, c, out};
    for (int i = 0; i < 7; i++) {
        all[i]->has_prec = true;
        all[i]->prec = PR_INT_8;
    }
    in->has_socket_id = out->has_socket_id = true;
    relu->shape.d[D_IY] = relu->shape.d[D_IX] = 4;
    cp->shape.d[D_IY] = rows;
    cp->shape.d[D_IX] = 4;
    CHECK(blk_set_attr(g, relu, AT_CMP, 0));
    CHECK(blk_set_attr(g, cp, AT_CMP, -128));
    Edge *e0 = graph_connect(g, in, 0, a, 0);
    CHECK(graph_connect(g, a, 0, relu, 0));
    Edge *e2 = graph_connect(g, relu, 0, b, 0);
    int32_t pos[6] = {rows0, 0, 0, 0, 0, 0}, size[6] = {rows, 4, 16, 0, 0, 0};
    CHECK(graph_connect_box(g, b, 0, pos, size, cp, 0, NULL, NULL));
    CHECK(graph_connect(g, cp, 0, c, 0));
    Edge *e5 = graph_connect(g, c, 0, out, 0);
    CHECK(e0 && e2 && e5);
    one(m, a->id, 0, 0, 0, MEMORY);
    one(m, relu->id, 0, 0, 0, SOMA1);
    one(m, b->id, 2, 1, 0, MEMORY);
    one(m, cp->id, 2, 1, 0, SOMA2);
    one(m, c->id, 2, 1, 0, MEMORY);
    const int32_t r0[1][4] = {{0, 0, 0, RECV}}, x[2][4] = {{0, 0, 0, SEND}, {2, 1, 0, RECV}},
                  s5[1][4] = {{2, 1, 0, SEND}};
    coord(m, true, e0->id, 1, r0);
    coord(m, true, e2->id, 2, x);
    coord(m, true, e5->id, 1, s5);
    return verified(m, "transfer");
}

