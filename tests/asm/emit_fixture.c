/* emit_fixture.c: the hand-built Mappings of the code generator's tests (emit_fixture.h). */
#include "emit_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Places blocks[i] on core (0,0), phase 0, unit pis[i]; the input edge ein is received and
 * the output edge eout sent there in phase 0. */
static void on_core0(Mapping *m, Block *const *blocks, const int32_t *pis, int n, Edge *ein,
                     Edge *eout)
{
    for (int i = 0; i < n; i++)
        one(m, blocks[i]->id, 0, 0, 0, pis[i]);
    const int32_t r0[1][4] = {{0, 0, 0, RECV}}, s0[1][4] = {{0, 0, 0, SEND}};
    coord(m, true, ein->id, 1, r0);
    coord(m, true, eout->id, 1, s0);
}

static Block *blk(Graph *g, BlockType t, const char *name, int32_t y, int32_t x, int32_t f,
                  int32_t r)
{
    Block *b = graph_add_block(g, t, GRAPH_AUTO_ID, name);
    CHECK(b);
    b->shape.d[D_Y] = y, b->shape.d[D_X] = x, b->shape.d[D_F] = f, b->shape.d[D_R] = r;
    return b;
}

/* Gives the n blocks bs precision p. */
static void set_prec(Block *const *bs, int n, PrecisionId p)
{
    for (int i = 0; i < n; i++)
        bs[i]->has_prec = true, bs[i]->prec = p;
}

/* w[f][r][ky][kx] = (7f + 5r + 3ky + kx) mod 200 - 100 */
int64_t emit_fixture_w(int f, int r, int ky, int kx)
{
    return (7 * f + 5 * r + 3 * ky + kx) % 200 - 100;
}

/* INPUT iy x ix x r -> SIC -> CC 3x3 (pad `pad` on every side), f (+ SW, SB) -> SI int32 ->
 * CCMPB >> shift -> SI int8 -> OUTPUT, all on core (0,0), phase 0: CC on the Axon, CCMPB on
 * Soma1. */
static Mapping *conv_fixture(const char *name, int32_t iy, int32_t ix, int32_t r, int32_t f,
                             int32_t pad, int32_t shift)
{
    Mapping *m = mapping_create();
    CHECK(m);
    Graph *g = m->graph;
    int32_t oy = iy + 2 * pad - 2, ox = ix + 2 * pad - 2;
    Block *in = blk(g, BT_INPUT, "data", iy, ix, r, 0);
    Block *sic = blk(g, BT_SIC, "conv/in", iy, ix, 0, r);
    Block *sw = blk(g, BT_SW, "conv/w", 0, 0, f, r);
    Block *sb = blk(g, BT_SB, "conv/b", 0, 0, f, 0);
    Block *cc = blk(g, BT_CC, "conv", oy, ox, f, r);
    Block *si = blk(g, BT_SI, "conv/acc", oy, ox, f, 0);
    Block *cm = blk(g, BT_CCMPB, "requant", oy, ox, f, 0);
    Block *so = blk(g, BT_SI, "requant/out", oy, ox, f, 0);
    Block *out = blk(g, BT_OUTPUT, "out", oy, ox, f, 0);
    in->has_socket_id = out->has_socket_id = true;
    in->has_prec = sic->has_prec = sw->has_prec = cm->has_prec = so->has_prec = out->has_prec = true;
    in->prec = sic->prec = sw->prec = cm->prec = so->prec = out->prec = PR_INT_8;
    sb->has_prec = si->has_prec = cc->has_prec = true;
    sb->prec = si->prec = cc->prec = PR_INT_32;
    sw->shape.d[D_KY] = sw->shape.d[D_KX] = 3;
    cc->shape.d[D_KY] = cc->shape.d[D_KX] = 3;
    cc->shape.d[D_IY] = iy;
    cc->shape.d[D_IX] = ix;
    cm->shape.d[D_IY] = oy;
    cm->shape.d[D_IX] = ox;
    cm->shape.d[D_KY] = cm->shape.d[D_KX] = 1;
    cc->bias_type = BIAS_VECTOR;
    size_t nw = (size_t)f * (size_t)r * 9;
    int64_t *w = malloc(nw * sizeof *w), *b = malloc((size_t)f * sizeof *b);
    CHECK(w && b);
    for (int k = 0; k < f; k++) {
        b[k] = 1000 * k - 7;
        for (int c = 0; c < r; c++)
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    w[((k * r + c) * 3 + i) * 3 + j] = emit_fixture_w(k, c, i, j);
    }
    int32_t wd[4] = {f, r, 3, 3}, bd[1] = {f};
    CHECK(blk_set_data(g, sw, PR_INT_8, wd, 4, w, nw));
    CHECK(blk_set_data(g, sb, PR_INT_32, bd, 1, b, (size_t)f));
    free(w);
    free(b);
    CHECK(blk_set_attr(g, cc, AT_KERNEL_X, 3) && blk_set_attr(g, cc, AT_KERNEL_Y, 3));
    CHECK(blk_set_attr(g, cc, AT_PAD_UP, pad) && blk_set_attr(g, cc, AT_PAD_DOWN, pad));
    CHECK(blk_set_attr(g, cc, AT_PAD_LEFT, pad) && blk_set_attr(g, cc, AT_PAD_RIGHT, pad));
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
    Block *placed[] = {sic, sw, sb, cc, si, cm, so};
    const int32_t pis[] = {MEMORY, MEMORY, MEMORY, AXON, MEMORY, SOMA1, MEMORY};
    on_core0(m, placed, pis, 7, ei, eo);
    return verified(m, name);
}

/* INPUT 6x6x3 -> SIC -> CC 3x3 pad 1, f 40 (+ SW, SB) -> SI int32 -> CCMPB >> 8 -> SI int8
 * -> OUTPUT, all on core (0,0), phase 0: CC on the Axon, CCMPB on Soma1. shift: the CCMPB's. */
Mapping *emit_fixture_conv(int32_t shift)
{
    return conv_fixture("conv", 6, 6, 3, 40, 1, shift);
}

/* INPUT 11 x 28 x 128 int8 -> a 3x3 conv of 32 channels without padding (9 x 26 x 32 int32)
 * -> CCMPB >> 8, on one core: its memory fits only with the weights at the top of MEM1. */
Mapping *emit_fixture_conv_banks(void)
{
    return conv_fixture("conv_banks", 11, 28, 128, 32, 0, 8);
}

/* The maps of transfer(): n x n pixels of c int8 channels, sent in `phases` phases from 0. */
typedef struct XferMap {
    int32_t n, c, phases;
} XferMap;

/* INPUT -> SI a (4x4x16 int8, or d's) on core (0,0) -> CCMPB relu (Soma1, phase 0) -> SI b,
 * stored on core (2,1) only (received in phase 0, or phases 0 .. d.phases - 1, its reader
 * reads rows rows0.. and columns cols0.. of it) -> CCMPB copy (Soma2, phase 0) -> SI c ->
 * OUTPUT; with `late` copy reads b in Soma1 of phase `late` (b's copy on (2,1) then lives
 * over [0, late]); twice: a CADD (Axon, phase late) adds b's rows to themselves into an
 * int32 d, which copy reads. */
static Mapping *transfer_of(XferMap d, int32_t rows0, int32_t rows, int32_t cols0, int32_t cols,
                            int32_t late, bool twice)
{
    Mapping *m = mapping_create();
    CHECK(m);
    Graph *g = m->graph;
    Block *in = blk(g, BT_INPUT, "x", d.n, d.n, d.c, 0);
    Block *a = blk(g, BT_SI, "a", d.n, d.n, d.c, 0);
    Block *relu = blk(g, BT_CCMPB, "relu", d.n, d.n, d.c, 0);
    Block *b = blk(g, BT_SI, "b", d.n, d.n, d.c, 0);
    Block *cp = blk(g, BT_CCMPB, "copy", rows, cols, d.c, 0);
    Block *c = blk(g, BT_SI, "c", rows, cols, d.c, 0);
    Block *out = blk(g, BT_OUTPUT, "y", rows, cols, d.c, 0);
    Block *all[] = {in, a, relu, b, cp, c, out};
    for (int i = 0; i < 7; i++) {
        all[i]->has_prec = true;
        all[i]->prec = PR_INT_8;
    }
    in->has_socket_id = out->has_socket_id = true;
    relu->shape.d[D_IY] = relu->shape.d[D_IX] = d.n;
    cp->shape.d[D_IY] = rows;
    cp->shape.d[D_IX] = cols;
    CHECK(blk_set_attr(g, relu, AT_CMP, 0));
    CHECK(blk_set_attr(g, cp, AT_CMP, -128));
    Edge *e0 = graph_connect(g, in, 0, a, 0);
    CHECK(graph_connect(g, a, 0, relu, 0));
    Edge *e2 = graph_connect(g, relu, 0, b, 0);
    int32_t pos[6] = {rows0, cols0, 0, 0, 0, 0}, size[6] = {rows, cols, d.c, 0, 0, 0};
    if (twice) {
        Block *add = blk(g, BT_CADD, "twice", rows, cols, d.c, 0);
        Block *sum = blk(g, BT_SI, "d", rows, cols, d.c, 0);
        add->has_prec = sum->has_prec = true;
        add->prec = sum->prec = PR_INT_32;
        add->shape.d[D_IY] = rows;
        add->shape.d[D_IX] = cols;
        CHECK(graph_connect_box(g, b, 0, pos, size, add, 0, NULL, NULL));
        CHECK(graph_connect_box(g, b, 0, pos, size, add, 1, NULL, NULL));
        CHECK(graph_connect(g, add, 0, sum, 0) && graph_connect(g, sum, 0, cp, 0));
        one(m, add->id, 2, 1, late, AXON);
        one(m, sum->id, 2, 1, late, MEMORY);
    } else {
        CHECK(graph_connect_box(g, b, 0, pos, size, cp, 0, NULL, NULL));
    }
    CHECK(graph_connect(g, cp, 0, c, 0));
    Edge *e5 = graph_connect(g, c, 0, out, 0);
    CHECK(e0 && e2 && e5);
    one(m, a->id, 0, 0, 0, MEMORY);
    one(m, relu->id, 0, 0, 0, SOMA1);
    one(m, b->id, 2, 1, late << 8, MEMORY);
    one(m, cp->id, 2, 1, late, late ? SOMA1 : SOMA2);
    one(m, c->id, 2, 1, late, MEMORY);
    const int32_t r0[1][4] = {{0, 0, 0, RECV}}, s5[1][4] = {{2, 1, late, SEND}};
    int32_t x[8][4];
    CHECK(d.phases >= 1 && d.phases <= 4);
    for (int32_t p = 0; p < d.phases; p++) { /* a pair a phase */
        const int32_t snd[4] = {0, 0, p, SEND}, rcv[4] = {2, 1, p, RECV};
        memcpy(x[2 * p], snd, sizeof snd);
        memcpy(x[2 * p + 1], rcv, sizeof rcv);
    }
    coord(m, true, e0->id, 1, r0);
    coord(m, true, e2->id, 2 * d.phases, (const int32_t (*)[4])x);
    coord(m, true, e5->id, 1, s5);
    return verified(m, d.phases > 1 ? "spread"
                       : twice      ? "transfer_twice"
                       : late       ? "transfer_late"
                       : cols < 4   ? "slice" : "transfer");
}

static Mapping *transfer(int32_t rows0, int32_t rows, int32_t cols0, int32_t cols, int32_t late,
                         bool twice)
{
    return transfer_of((XferMap){4, 16, 1}, rows0, rows, cols0, cols, late, twice);
}

/* 16 x 16 pixels of 64 int8 channels (16 words a pixel, 4096 words in all): the Mapping
 * spreads b's transfer over phases 0 and 1, copy reads it in Soma1 of phase 2. */
Mapping *emit_fixture_spread(void)
{
    return transfer_of((XferMap){16, 64, 2}, 0, 16, 0, 16, 2, false);
}

/* 20 x 20 pixels of 64 int8 channels (6400 words): over phases 0, 1 and 2, copy reading it
 * in Soma1 of phase 3; a phase's part ends inside a row. */
Mapping *emit_fixture_spread3(void)
{
    return transfer_of((XferMap){20, 64, 3}, 0, 20, 0, 20, 3, false);
}

/* The rows of b arriving on core (2,1) by edge i: rows [at[i][0], at[i][0] + at[i][1]), in
 * the phases whose bits at[i][2] sets. */
typedef int32_t RowEdge[3];

/* INPUT -> SI a (ny x 16 pixels of 64 int8 channels: 16 words a pixel, 256 a row) on core
 * (0,0) -> CCMPB relu (Soma1, phase 0) -> SI b on core (2,1) by the n edges at[] -> CCMPB
 * copy (Soma1, phase 2) -> SI c -> OUTPUT. */
static Mapping *rows_by_edges(const char *name, int32_t ny, const RowEdge *at, int n)
{
    Mapping *m = mapping_create();
    CHECK(m && n <= 4);
    Graph *g = m->graph;
    Block *in = blk(g, BT_INPUT, "x", ny, 16, 64, 0);
    Block *a = blk(g, BT_SI, "a", ny, 16, 64, 0);
    Block *relu = blk(g, BT_CCMPB, "relu", ny, 16, 64, 0);
    Block *b = blk(g, BT_SI, "b", ny, 16, 64, 0);
    Block *cp = blk(g, BT_CCMPB, "copy", ny, 16, 64, 0);
    Block *c = blk(g, BT_SI, "c", ny, 16, 64, 0);
    Block *out = blk(g, BT_OUTPUT, "y", ny, 16, 64, 0);
    Block *all[] = {in, a, relu, b, cp, c, out};
    set_prec(all, 7, PR_INT_8);
    in->has_socket_id = out->has_socket_id = true;
    relu->shape.d[D_IY] = cp->shape.d[D_IY] = ny;
    relu->shape.d[D_IX] = cp->shape.d[D_IX] = 16;
    CHECK(blk_set_attr(g, relu, AT_CMP, 0) && blk_set_attr(g, cp, AT_CMP, -128));
    Edge *e0 = graph_connect(g, in, 0, a, 0);
    CHECK(e0 && graph_connect(g, a, 0, relu, 0));
    Edge *eb[4];
    for (int i = 0; i < n; i++) {
        int32_t pos[6] = {at[i][0], 0, 0, 0, 0, 0}, size[6] = {at[i][1], 16, 64, 0, 0, 0};
        eb[i] = graph_connect_box(g, relu, 0, pos, size, b, 0, pos, size);
        CHECK(eb[i]);
    }
    CHECK(graph_connect(g, b, 0, cp, 0) && graph_connect(g, cp, 0, c, 0));
    Edge *e5 = graph_connect(g, c, 0, out, 0);
    CHECK(e5);
    one(m, a->id, 0, 0, 0, MEMORY);
    one(m, relu->id, 0, 0, 0, SOMA1);
    one(m, b->id, 2, 1, 2 << 8, MEMORY);
    one(m, cp->id, 2, 1, 2, SOMA1);
    one(m, c->id, 2, 1, 2, MEMORY);
    const int32_t r0[1][4] = {{0, 0, 0, RECV}}, s5[1][4] = {{2, 1, 2, SEND}};
    coord(m, true, e0->id, 1, r0);
    for (int i = 0; i < n; i++) {
        int32_t x[4][4];
        int k = 0;
        for (int32_t p = 0; p < 2; p++)
            if (at[i][2] >> p & 1) {
                const int32_t snd[4] = {0, 0, p, SEND}, rcv[4] = {2, 1, p, RECV};
                memcpy(x[k++], snd, sizeof snd);
                memcpy(x[k++], rcv, sizeof rcv);
            }
        coord(m, true, eb[i]->id, k, (const int32_t (*)[4])x);
    }
    coord(m, true, e5->id, 1, s5);
    return verified(m, name);
}

/* rows_by_edges, 15 rows: row 0 in phase 1, rows 1..13 (3328 words, over the receive area's
 * 3072) over phases 0 and 1, row 14 in phase 1. Phase 1 carries row 0 and the rest of the
 * middle edge's rows beside row 14: two runs of pixels apart, whichever way the middle
 * edge's pixels go. */
Mapping *emit_fixture_spread_runs(void)
{
    const RowEdge at[3] = {{0, 1, 2}, {1, 13, 3}, {14, 1, 2}};
    return rows_by_edges("spread_runs", 15, at, 3);
}

/* rows_by_edges, 16 rows (4096 words): rows 0..11 in phase 0, rows 12..15 in phase 1, each
 * edge in one phase. */
Mapping *emit_fixture_spread_edges(void)
{
    const RowEdge at[2] = {{0, 12, 1}, {12, 4, 2}};
    return rows_by_edges("spread_edges", 16, at, 2);
}

/* SI a<n> (rows x cols of `size`'s nc int8 channels: channels at .. of INPUT in) on core
 * (i,0), received in phase 0 -> CCMPB relu<n> (Soma1, phase 0, floor cmp) there -> storage
 * b at channel `at`; the edge into b (its coordinates the caller's). */
static Edge *slice_relu(Mapping *m, Block *in, Block *b, int32_t i, int32_t n,
                        const int32_t size[6], int32_t at, int32_t cmp)
{
    Graph *g = m->graph;
    char an[16], rn[16];
    snprintf(an, sizeof an, "a%d", n);
    snprintf(rn, sizeof rn, "relu%d", n);
    Block *a = blk(g, BT_SI, an, size[0], size[1], size[2], 0);
    Block *relu = blk(g, BT_CCMPB, rn, size[0], size[1], size[2], 0);
    Block *two[] = {a, relu};
    set_prec(two, 2, PR_INT_8);
    relu->shape.d[D_IY] = size[0];
    relu->shape.d[D_IX] = size[1];
    CHECK(blk_set_attr(g, relu, AT_CMP, cmp));
    const int32_t pos[6] = {0, 0, at, 0, 0, 0}, zero[6] = {0};
    Edge *ein = graph_connect_box(g, in, 0, pos, size, a, 0, zero, size);
    CHECK(ein && graph_connect(g, a, 0, relu, 0));
    Edge *eb = graph_connect_box(g, relu, 0, zero, size, b, 0, pos, size);
    CHECK(eb);
    one(m, a->id, i, 0, 0, MEMORY);
    one(m, relu->id, i, 0, 0, SOMA1);
    const int32_t r0[1][4] = {{i, 0, 0, RECV}};
    coord(m, true, ein->id, 1, r0);
    return eb;
}

/* INPUT x (16 x 16 x 128 int8) -> SI a1 (its channels 0..63) on core (0,0), SI a2 (64..127)
 * on core (1,0) -> CCMPB relu1, relu2 (Soma1, phase 0) -> SI b (16 x 16 x 128: 32 words a
 * pixel, 8192 in all) on core (2,1), relu1 its channels 0..63, relu2 64..127, each over
 * phases 0, 1 and 2 -> CCMPB copy (Soma1, phase 3) -> SI c -> OUTPUT. */
Mapping *emit_fixture_spread_slices(void)
{
    Mapping *m = mapping_create();
    CHECK(m);
    Graph *g = m->graph;
    Block *in = blk(g, BT_INPUT, "x", 16, 16, 128, 0);
    Block *b = blk(g, BT_SI, "b", 16, 16, 128, 0);
    Block *cp = blk(g, BT_CCMPB, "copy", 16, 16, 128, 0);
    Block *c = blk(g, BT_SI, "c", 16, 16, 128, 0);
    Block *out = blk(g, BT_OUTPUT, "y", 16, 16, 128, 0);
    Block *all[] = {in, b, cp, c, out};
    set_prec(all, 5, PR_INT_8);
    in->has_socket_id = out->has_socket_id = true;
    cp->shape.d[D_IY] = 16;
    cp->shape.d[D_IX] = 16;
    CHECK(blk_set_attr(g, cp, AT_CMP, -128));
    const int32_t size[6] = {16, 16, 64, 0, 0, 0};
    for (int32_t i = 0; i < 2; i++) {
        Edge *eb = slice_relu(m, in, b, i, i + 1, size, 64 * i, 0);
        const int32_t x[6][4] = {{i, 0, 0, SEND}, {2, 1, 0, RECV}, {i, 0, 1, SEND},
                                 {2, 1, 1, RECV}, {i, 0, 2, SEND}, {2, 1, 2, RECV}};
        coord(m, true, eb->id, 6, x);
    }
    CHECK(graph_connect(g, b, 0, cp, 0) && graph_connect(g, cp, 0, c, 0));
    Edge *eo = graph_connect(g, c, 0, out, 0);
    CHECK(eo);
    one(m, b->id, 2, 1, 3 << 8, MEMORY);
    one(m, cp->id, 2, 1, 3, SOMA1);
    one(m, c->id, 2, 1, 3, MEMORY);
    const int32_t so[1][4] = {{2, 1, 3, SEND}};
    coord(m, true, eo->id, 1, so);
    return verified(m, "spread_slices");
}

/* INPUT -> SI a (13 x 16 pixels of 64 int8 channels, 3328 words) on core (0,0) -> CCMPB
 * relu (Soma1, phase 0) -> two SIs of its values on core (2,1): b1 over phases 0 and 1, b2
 * over phases 1 and 2 -> CCMPB copy1 of b1 (Soma1, phase 3) -> SI c1 -> OUTPUT, CCMPB copy2
 * of b2 (Soma1, phase 4) -> SI c2 -> OUTPUT. Phase 1 carries b1's last row and b2's first
 * rows: the parts of two copies in one phase. */
/* INPUT x -> SI a (13 x 16 pixels of 64 int8 channels) on core (0,0), received in phase 0
 * -> CCMPB relu (Soma1, phase 0) there: relu. */
static Block *relu_rows(Mapping *m, int32_t ny, int32_t nx, int32_t nf)
{
    Graph *g = m->graph;
    Block *in = blk(g, BT_INPUT, "x", ny, nx, nf, 0);
    Block *a = blk(g, BT_SI, "a", ny, nx, nf, 0);
    Block *relu = blk(g, BT_CCMPB, "relu", ny, nx, nf, 0);
    Block *all[3] = {in, a, relu};
    set_prec(all, 3, PR_INT_8);
    in->has_socket_id = true;
    relu->shape.d[D_IY] = ny;
    relu->shape.d[D_IX] = nx;
    CHECK(blk_set_attr(g, relu, AT_CMP, 0));
    Edge *e0 = graph_connect(g, in, 0, a, 0);
    CHECK(e0 && graph_connect(g, a, 0, relu, 0));
    one(m, a->id, 0, 0, 0, MEMORY);
    one(m, relu->id, 0, 0, 0, SOMA1);
    const int32_t r0[1][4] = {{0, 0, 0, RECV}};
    coord(m, true, e0->id, 1, r0);
    return relu;
}

static Block *relu_13x16(Mapping *m)
{
    return relu_rows(m, 13, 16, 64);
}

Mapping *emit_fixture_spread_two(void)
{
    Mapping *m = mapping_create();
    CHECK(m);
    Graph *g = m->graph;
    Block *relu = relu_13x16(m);
    for (int32_t i = 0; i < 2; i++) {
        char name[4][8];
        snprintf(name[0], sizeof name[0], "b%d", i + 1);
        snprintf(name[1], sizeof name[1], "copy%d", i + 1);
        snprintf(name[2], sizeof name[2], "c%d", i + 1);
        snprintf(name[3], sizeof name[3], "y%d", i + 1);
        Block *b = blk(g, BT_SI, name[0], 13, 16, 64, 0);
        Block *cp = blk(g, BT_CCMPB, name[1], 13, 16, 64, 0);
        Block *c = blk(g, BT_SI, name[2], 13, 16, 64, 0);
        Block *out = blk(g, BT_OUTPUT, name[3], 13, 16, 64, 0);
        Block *these[] = {b, cp, c, out};
        set_prec(these, 4, PR_INT_8);
        out->has_socket_id = true;
        out->socket_id = i + 1;
        cp->shape.d[D_IY] = 13;
        cp->shape.d[D_IX] = 16;
        CHECK(blk_set_attr(g, cp, AT_CMP, -128));
        Edge *eb = graph_connect(g, relu, 0, b, 0);
        CHECK(eb && graph_connect(g, b, 0, cp, 0) && graph_connect(g, cp, 0, c, 0));
        Edge *eo = graph_connect(g, c, 0, out, 0);
        CHECK(eo);
        one(m, b->id, 2, 1, i | (3 + i) << 8, MEMORY);
        one(m, cp->id, 2, 1, 3 + i, SOMA1);
        one(m, c->id, 2, 1, 3 + i, MEMORY);
        const int32_t x[4][4] = {{0, 0, i, SEND}, {2, 1, i, RECV}, {0, 0, i + 1, SEND},
                                 {2, 1, i + 1, RECV}};
        const int32_t so[1][4] = {{2, 1, 3 + i, SEND}};
        coord(m, true, eb->id, 4, x);
        coord(m, true, eo->id, 1, so);
    }
    return verified(m, "spread_two");
}

/* CCMPB r<i + 1> (floor cmp) of int8 storage b on core (2 + i, 1), Soma1 of phase p -> SI
 * c<i + 1> -> OUTPUT y<i + 1> (socket i), all of b's shape. */
static void read_out_at(Mapping *m, Block *b, int32_t i, int32_t x, int32_t p, int32_t cmp);

static void read_out(Mapping *m, Block *b, int32_t i, int32_t p, int32_t cmp)
{
    read_out_at(m, b, i, 2 + i, p, cmp);
}

/* read_out on core (x, 1). */
static void read_out_at(Mapping *m, Block *b, int32_t i, int32_t x, int32_t p, int32_t cmp)
{
    Graph *g = m->graph;
    char name[3][16];
    snprintf(name[0], sizeof name[0], "r%d", i + 1);
    snprintf(name[1], sizeof name[1], "c%d", i + 1);
    snprintf(name[2], sizeof name[2], "y%d", i + 1);
    int32_t ny = b->shape.d[D_Y], nx = b->shape.d[D_X], f = b->shape.d[D_F];
    Block *r = blk(g, BT_CCMPB, name[0], ny, nx, f, 0);
    Block *c = blk(g, BT_SI, name[1], ny, nx, f, 0);
    Block *out = blk(g, BT_OUTPUT, name[2], ny, nx, f, 0);
    Block *three[3] = {r, c, out};
    set_prec(three, 3, PR_INT_8);
    out->has_socket_id = true;
    out->socket_id = i;
    r->shape.d[D_IY] = ny;
    r->shape.d[D_IX] = nx;
    CHECK(blk_set_attr(g, r, AT_CMP, cmp));
    CHECK(graph_connect(g, b, 0, r, 0) && graph_connect(g, r, 0, c, 0));
    Edge *eo = graph_connect(g, c, 0, out, 0);
    CHECK(eo);
    one(m, r->id, x, 1, p, SOMA1);
    one(m, c->id, x, 1, p, MEMORY);
    const int32_t so[1][4] = {{x, 1, p, SEND}};
    coord(m, true, eo->id, 1, so);
}

/* INPUT -> SI a (13 x 16 pixels of 64 int8 channels, 3328 words) on core (0,0) -> CCMPB
 * relu (Soma1, phase 0) -> SI b, held by cores (2,1) and (3,1): (0,0) sends it to (2,1) over
 * phases 0 and 1, and (2,1) relays it to (3,1) over phases lag and 1 + lag, each part lag
 * phases after it lands (0: as it lands) -> CCMPB r1 on (2,1), r2 on (3,1) (Soma1, phase 3)
 * -> SI c1, c2 -> OUTPUTs y1, y2. */
Mapping *emit_fixture_relay_parts(int32_t lag)
{
    Mapping *m = mapping_create();
    CHECK(m);
    Graph *g = m->graph;
    Block *relu = relu_13x16(m);
    Block *b = blk(g, BT_SI, "b", 13, 16, 64, 0);
    set_prec(&b, 1, PR_INT_8);
    Edge *eb = graph_connect(g, relu, 0, b, 0);
    CHECK(eb);
    for (int32_t i = 0; i < 2; i++)
        read_out(m, b, i, 3, 7 * i - 5);
    const int32_t bc[2][4] = {{2, 1, 0 | 3 << 8, MEMORY}, {3, 1, lag | 3 << 8, MEMORY}};
    coord(m, false, b->id, 2, bc);
    const int32_t x[8][4] = {{0, 0, 0, SEND},   {2, 1, 0, RECV},   {0, 0, 1, SEND},
                             {2, 1, 1, RECV},   {2, 1, lag, SEND}, {3, 1, lag, RECV},
                             {2, 1, lag + 1, SEND}, {3, 1, lag + 1, RECV}};
    coord(m, true, eb->id, 8, x);
    return verified(m, lag ? "relay_parts" : "relay_parts_now");
}

/* INPUT -> SI a (20 x 16 pixels of 64 int8 channels: 256 words a row, 5120 in all) on core
 * (0,0) -> CCMPB relu (Soma1, phase 0) -> SI b1 (all of it) on core (2,1) over phases 0, 1
 * and 2, and SI b2 (its rows 4..19, 4096 words) on core (3,1) over phases 0 and 1 -> CCMPB
 * r1 on (2,1), r2 on (3,1) (Soma1, phase 3) -> SI c1, c2 -> OUTPUTs y1, y2. Both copies are
 * over the receive area (3072 words), each phase's part moved out in its Soma2. */
Mapping *emit_fixture_spread_cap(void)
{
    Mapping *m = mapping_create();
    CHECK(m);
    Graph *g = m->graph;
    Block *relu = relu_rows(m, 20, 16, 64);
    Block *b[2] = {blk(g, BT_SI, "b1", 20, 16, 64, 0), blk(g, BT_SI, "b2", 16, 16, 64, 0)};
    set_prec(b, 2, PR_INT_8);
    const int32_t zero[6] = {0}, all[6] = {20, 16, 64, 0, 0, 0};
    const int32_t at4[6] = {4, 0, 0, 0, 0, 0}, rows16[6] = {16, 16, 64, 0, 0, 0};
    Edge *e1 = graph_connect_box(g, relu, 0, zero, all, b[0], 0, zero, all);
    Edge *e2 = graph_connect_box(g, relu, 0, at4, rows16, b[1], 0, zero, rows16);
    CHECK(e1 && e2);
    for (int32_t i = 0; i < 2; i++) {
        read_out(m, b[i], i, 3, 7 * i - 5);
        one(m, b[i]->id, 2 + i, 1, 0 | 3 << 8, MEMORY);
    }
    const int32_t x1[6][4] = {{0, 0, 0, SEND}, {2, 1, 0, RECV}, {0, 0, 1, SEND},
                              {2, 1, 1, RECV}, {0, 0, 2, SEND}, {2, 1, 2, RECV}};
    const int32_t x2[4][4] = {{0, 0, 0, SEND}, {3, 1, 0, RECV}, {0, 0, 1, SEND},
                              {3, 1, 1, RECV}};
    coord(m, true, e1->id, 6, x1);
    coord(m, true, e2->id, 4, x2);
    return verified(m, "spread_cap");
}

/* The edge from relu (rows box[0] .. + box[1] - 1, all columns, channels box[2] .. +
 * box[3] - 1) into storage b at the same rows, its channels from 0, received on core (x, 1)
 * in phases p .. q (q - p at most 1). */
static void rows_to(Mapping *m, Block *relu, Block *b, const int32_t box[4], int32_t x,
                    int32_t p, int32_t q)
{
    const int32_t at[6] = {box[0], 0, box[2], 0, 0, 0};
    const int32_t size[6] = {box[1], relu->shape.d[D_X], box[3], 0, 0, 0};
    Edge *ed = graph_connect_box(m->graph, relu, 0, at, size, b, 0,
                                 (const int32_t[6]){box[0], 0, 0, 0, 0, 0}, size);
    CHECK(ed && q - p < 2);
    const int32_t x2[4][4] = {{0, 0, p, SEND}, {x, 1, p, RECV}, {0, 0, q, SEND},
                              {x, 1, q, RECV}};
    coord(m, true, ed->id, 2 * (q - p + 1), x2);
}

/* INPUT -> SI a (25 x 1 pixels of 1024 int8 channels: 256 words a row, 6400 in all) on core
 * (0,0) -> CCMPB relu (Soma1, phase 0) -> SI b1 (all of it) on core (2,1) over phases 1, 2
 * and 3; SI bA (channels 0..511: 128 words a row, 3200 in all) on (3,1) and bB (512..1023)
 * on (4,1), rows 0..5 of each in phase 0 and rows 6..24 in phase 1 (an edge each); SI e1 on
 * (3,1) and e2 on (4,1), rows 0..1, in phase 1 -> a CCMPB each (Soma1, phase 4; e1's and
 * e2's phase 5) -> OUTPUTs y1 .. y5. */
Mapping *emit_fixture_spread_cut(void)
{
    Mapping *m = mapping_create();
    CHECK(m);
    Graph *g = m->graph;
    Block *relu = relu_rows(m, 25, 1, 1024);
    Block *b[5] = {blk(g, BT_SI, "b1", 25, 1, 1024, 0), blk(g, BT_SI, "bA", 25, 1, 512, 0),
                   blk(g, BT_SI, "bB", 25, 1, 512, 0), blk(g, BT_SI, "e1", 2, 1, 1024, 0),
                   blk(g, BT_SI, "e2", 2, 1, 1024, 0)};
    set_prec(b, 5, PR_INT_8);
    const int32_t x[5] = {2, 3, 4, 3, 4};
    for (int32_t i = 0; i < 5; i++) {
        read_out_at(m, b[i], i, x[i], 4 + i / 3, 5 * i - 7);
        one(m, b[i]->id, x[i], 1, 0 | (4 + i / 3) << 8, MEMORY);
    }
    const int32_t all[6] = {25, 1, 1024, 0, 0, 0}, zero[6] = {0};
    Edge *e1 = graph_connect_box(g, relu, 0, zero, all, b[0], 0, zero, all);
    CHECK(e1);
    const int32_t x1[6][4] = {{0, 0, 1, SEND}, {2, 1, 1, RECV}, {0, 0, 2, SEND},
                              {2, 1, 2, RECV}, {0, 0, 3, SEND}, {2, 1, 3, RECV}};
    coord(m, true, e1->id, 6, x1);
    for (int32_t h = 0; h < 2; h++) {
        rows_to(m, relu, b[1 + h], (const int32_t[4]){0, 6, 512 * h, 512}, 3 + h, 0, 0);
        rows_to(m, relu, b[1 + h], (const int32_t[4]){6, 19, 512 * h, 512}, 3 + h, 1, 1);
        rows_to(m, relu, b[3 + h], (const int32_t[4]){0, 2, 0, 1024}, 3 + h, 1, 1);
    }
    return verified(m, "spread_cut");
}

/* INPUT x (8 x 8 x 256 int8) -> SI a<i> (its channels 64i .. 64i + 63) on core (i,0), i 0..3
 * -> CCMPB relu<i> (Soma1, phase 0) -> SI b (8 x 8 x 256: 64 words a pixel, 4096 in all,
 * over the receive area's 3072), held by cores (2,1) and (3,1), relu<i> its channels 64i ..
 * 64i + 63, each slice whole in one phase: on (2,1) slice 1 in phase 0, slice 0 in phase 1,
 * slices 2 and 3 in phase 2; on (3,1) slices 2 and 3 in phase 1, slice 1 in phase 2 relayed
 * by (2,1) from its copy, slice 0 in phase 3 -> CCMPB r1 on (2,1) (Soma1, phase 3), r2 on
 * (3,1) (Soma1, phase 4) -> SI c1, c2 -> OUTPUTs y1, y2. */
Mapping *emit_fixture_chmerge(void)
{
    Mapping *m = mapping_create();
    CHECK(m);
    Graph *g = m->graph;
    Block *in = blk(g, BT_INPUT, "x", 8, 8, 256, 0);
    Block *b = blk(g, BT_SI, "b", 8, 8, 256, 0);
    Block *two[2] = {in, b};
    set_prec(two, 2, PR_INT_8);
    in->has_socket_id = true;
    const int32_t size[6] = {8, 8, 64, 0, 0, 0};
    /* per slice: {phase on (2,1), phase on (3,1), relayed by (2,1)} */
    const int32_t when[4][3] = {{1, 3, 0}, {0, 2, 1}, {2, 1, 0}, {2, 1, 0}};
    for (int32_t i = 0; i < 4; i++) {
        Edge *eb = slice_relu(m, in, b, i, i, size, 64 * i, 3 * i - 4);
        int32_t via = when[i][2] ? 2 : i, vy = when[i][2] ? 1 : 0;
        const int32_t x[4][4] = {{i, 0, when[i][0], SEND}, {2, 1, when[i][0], RECV},
                                 {via, vy, when[i][1], SEND}, {3, 1, when[i][1], RECV}};
        coord(m, true, eb->id, 4, x);
    }
    for (int32_t i = 0; i < 2; i++)
        read_out(m, b, i, 3 + i, 5 * i - 128);
    const int32_t bc[2][4] = {{2, 1, 0 | 3 << 8, MEMORY}, {3, 1, 1 | 4 << 8, MEMORY}};
    coord(m, false, b->id, 2, bc);
    return verified(m, "chmerge");
}

/* b (16 x 16 pixels of 64 int8 channels: 256 words a row, 4096 in all, over the receive
 * area's 3072) on core (2,1): INPUT x's rows 0..3 -> SI a2 -> CCMPB relu2 (Soma1 of phase 0)
 * there write b's rows 0..3, its rows 4..15 -> SI a -> CCMPB relu (Soma1 of phase 0) on core
 * (0,0) are received into b's rows 4..15 in phase 0 -> CCMPB copy (Soma1, phase 1) -> SI c
 * -> OUTPUT. */
Mapping *emit_fixture_spread_local(void)
{
    Mapping *m = mapping_create();
    CHECK(m);
    Graph *g = m->graph;
    Block *in = blk(g, BT_INPUT, "x", 16, 16, 64, 0);
    Block *a = blk(g, BT_SI, "a", 12, 16, 64, 0);
    Block *relu = blk(g, BT_CCMPB, "relu", 12, 16, 64, 0);
    Block *a2 = blk(g, BT_SI, "a2", 4, 16, 64, 0);
    Block *relu2 = blk(g, BT_CCMPB, "relu2", 4, 16, 64, 0);
    Block *b = blk(g, BT_SI, "b", 16, 16, 64, 0);
    Block *cp = blk(g, BT_CCMPB, "copy", 16, 16, 64, 0);
    Block *c = blk(g, BT_SI, "c", 16, 16, 64, 0);
    Block *out = blk(g, BT_OUTPUT, "y", 16, 16, 64, 0);
    Block *all[] = {in, a, relu, a2, relu2, b, cp, c, out};
    set_prec(all, 9, PR_INT_8);
    in->has_socket_id = out->has_socket_id = true;
    relu->shape.d[D_IY] = 12;
    relu2->shape.d[D_IY] = 4;
    cp->shape.d[D_IY] = 16;
    relu->shape.d[D_IX] = relu2->shape.d[D_IX] = cp->shape.d[D_IX] = 16;
    CHECK(blk_set_attr(g, relu, AT_CMP, 0) && blk_set_attr(g, relu2, AT_CMP, 0));
    CHECK(blk_set_attr(g, cp, AT_CMP, -128));
    int32_t lo[6] = {4, 0, 0, 0, 0, 0}, n[6] = {12, 16, 64, 0, 0, 0};
    int32_t lo2[6] = {0}, n2[6] = {4, 16, 64, 0, 0, 0};
    Edge *e0 = graph_connect_box(g, in, 0, lo, n, a, 0, NULL, NULL);
    Edge *e1 = graph_connect_box(g, in, 0, lo2, n2, a2, 0, NULL, NULL);
    CHECK(e0 && e1 && graph_connect(g, a, 0, relu, 0) && graph_connect(g, a2, 0, relu2, 0));
    Edge *eb = graph_connect_box(g, relu, 0, NULL, NULL, b, 0, lo, n);
    CHECK(eb && graph_connect_box(g, relu2, 0, NULL, NULL, b, 0, lo2, n2));
    CHECK(graph_connect(g, b, 0, cp, 0) && graph_connect(g, cp, 0, c, 0));
    Edge *e5 = graph_connect(g, c, 0, out, 0);
    CHECK(e5);
    one(m, a->id, 0, 0, 0, MEMORY);
    one(m, relu->id, 0, 0, 0, SOMA1);
    one(m, a2->id, 2, 1, 0, MEMORY);
    one(m, relu2->id, 2, 1, 0, SOMA1);
    one(m, b->id, 2, 1, 1 << 8, MEMORY);
    one(m, cp->id, 2, 1, 1, SOMA1);
    one(m, c->id, 2, 1, 1, MEMORY);
    const int32_t r0[1][4] = {{0, 0, 0, RECV}}, r1[1][4] = {{2, 1, 0, RECV}};
    const int32_t x[2][4] = {{0, 0, 0, SEND}, {2, 1, 0, RECV}}, s5[1][4] = {{2, 1, 1, SEND}};
    coord(m, true, e0->id, 1, r0);
    coord(m, true, e1->id, 1, r1);
    coord(m, true, eb->id, 2, x);
    coord(m, true, e5->id, 1, s5);
    return verified(m, "spread_local");
}

/* On core (0,0): INPUT x -> SI a (16 x 16 pixels of 64 int8 channels, 4096 words) -> CCMPB
 * relu (Soma1, phase 0) -> SI b by two edges, rows 0..7 and rows 8..15 each where they are
 * -> CCMPB copy (Soma1, phase 1) -> SI c -> OUTPUT. */
Mapping *emit_fixture_pieces(void)
{
    Mapping *m = mapping_create();
    CHECK(m);
    Graph *g = m->graph;
    Block *in = blk(g, BT_INPUT, "x", 16, 16, 64, 0);
    Block *a = blk(g, BT_SI, "a", 16, 16, 64, 0);
    Block *relu = blk(g, BT_CCMPB, "relu", 16, 16, 64, 0);
    Block *b = blk(g, BT_SI, "b", 16, 16, 64, 0);
    Block *cp = blk(g, BT_CCMPB, "copy", 16, 16, 64, 0);
    Block *c = blk(g, BT_SI, "c", 16, 16, 64, 0);
    Block *out = blk(g, BT_OUTPUT, "y", 16, 16, 64, 0);
    Block *all[] = {in, a, relu, b, cp, c, out};
    set_prec(all, 7, PR_INT_8);
    in->has_socket_id = out->has_socket_id = true;
    relu->shape.d[D_IY] = relu->shape.d[D_IX] = cp->shape.d[D_IY] = cp->shape.d[D_IX] = 16;
    CHECK(blk_set_attr(g, relu, AT_CMP, 0) && blk_set_attr(g, cp, AT_CMP, -128));
    Edge *e0 = graph_connect(g, in, 0, a, 0);
    CHECK(e0 && graph_connect(g, a, 0, relu, 0));
    for (int32_t i = 0; i < 2; i++) {
        int32_t pos[6] = {8 * i, 0, 0, 0, 0, 0}, size[6] = {8, 16, 64, 0, 0, 0};
        CHECK(graph_connect_box(g, relu, 0, pos, size, b, 0, pos, size));
    }
    CHECK(graph_connect(g, b, 0, cp, 0) && graph_connect(g, cp, 0, c, 0));
    Edge *e5 = graph_connect(g, c, 0, out, 0);
    CHECK(e5);
    one(m, a->id, 0, 0, 0, MEMORY);
    one(m, relu->id, 0, 0, 0, SOMA1);
    one(m, b->id, 0, 0, 1 << 8, MEMORY);
    one(m, cp->id, 0, 0, 1, SOMA1);
    one(m, c->id, 0, 0, 1, MEMORY);
    const int32_t r0[1][4] = {{0, 0, 0, RECV}}, s5[1][4] = {{0, 0, 1, SEND}};
    coord(m, true, e0->id, 1, r0);
    coord(m, true, e5->id, 1, s5);
    return verified(m, "pieces");
}

Mapping *emit_fixture_transfer(int32_t rows0, int32_t rows)
{
    return transfer(rows0, rows, 0, 4, 0, false);
}

Mapping *emit_fixture_slice(int32_t rows0, int32_t rows, int32_t cols0, int32_t cols)
{
    return transfer(rows0, rows, cols0, cols, 0, false);
}

Mapping *emit_fixture_transfer_late(int32_t rows0, int32_t rows)
{
    return transfer(rows0, rows, 0, 4, 1, false);
}

Mapping *emit_fixture_transfer_twice(void)
{
    return transfer(0, 4, 0, 4, 1, true);
}

/* INPUT 4x4x8 int8 -> SI a -> CVS x3 + 5 (int32) -> SI -> CCMPB >> 2 (int8) -> SI -> CAVG
 * 2x2/2 (int32) -> SI -> CCMPB (int8, floor -20) -> SI -> OUTPUT, on core (0,0): phase 0
 * CVS (Axon) and the first CCMPB (Soma1), phase 1 CAVG and the second CCMPB. */
Mapping *emit_fixture_mix(void)
{
    Mapping *m = mapping_create();
    CHECK(m);
    Graph *g = m->graph;
    Block *in = blk(g, BT_INPUT, "x", 4, 4, 8, 0);
    Block *a = blk(g, BT_SI, "a", 4, 4, 8, 0);
    Block *cvs = blk(g, BT_CVS, "scale", 4, 4, 8, 0);
    Block *s1 = blk(g, BT_SI, "scaled", 4, 4, 8, 0);
    Block *q1 = blk(g, BT_CCMPB, "q1", 4, 4, 8, 0);
    Block *s2 = blk(g, BT_SI, "q1/out", 4, 4, 8, 0);
    Block *avg = blk(g, BT_CAVG, "sum", 2, 2, 8, 0);
    Block *s3 = blk(g, BT_SI, "sum/out", 2, 2, 8, 0);
    Block *q2 = blk(g, BT_CCMPB, "q2", 2, 2, 8, 0);
    Block *s4 = blk(g, BT_SI, "q2/out", 2, 2, 8, 0);
    Block *out = blk(g, BT_OUTPUT, "y", 2, 2, 8, 0);
    Block *i8[] = {in, a, q1, s2, q2, s4, out}, *i32[] = {cvs, s1, avg, s3};
    set_prec(i8, 7, PR_INT_8);
    set_prec(i32, 4, PR_INT_32);
    in->has_socket_id = out->has_socket_id = true;
    cvs->bias_type = BIAS_CONSTANT;
    CHECK(blk_set_attr(g, cvs, AT_CONSTANT_A, 3) && blk_set_attr(g, cvs, AT_CONSTANT_B, 5));
    q1->shape.d[D_IY] = q1->shape.d[D_IX] = 4;
    CHECK(blk_set_attr(g, q1, AT_BIT_SHIFT_NUM, 2) && blk_set_attr(g, q1, AT_CMP, -128));
    avg->shape.d[D_KY] = avg->shape.d[D_KX] = 2;
    avg->shape.d[D_IY] = avg->shape.d[D_IX] = 4;
    avg->bias_type = BIAS_CONSTANT;
    CHECK(blk_set_attr(g, avg, AT_KERNEL_X, 2) && blk_set_attr(g, avg, AT_KERNEL_Y, 2));
    CHECK(blk_set_attr(g, avg, AT_CONSTANT_B, -7));
    CHECK(blk_set_attr(g, avg, AT_STRIDE_X, 2) && blk_set_attr(g, avg, AT_STRIDE_Y, 2));
    q2->shape.d[D_IY] = q2->shape.d[D_IX] = 2;
    CHECK(blk_set_attr(g, q2, AT_CMP, -20));
    Edge *e0 = graph_connect(g, in, 0, a, 0);
    CHECK(e0 && graph_connect(g, a, 0, cvs, 0) && graph_connect(g, cvs, 0, s1, 0));
    CHECK(graph_connect(g, s1, 0, q1, 0) && graph_connect(g, q1, 0, s2, 0));
    CHECK(graph_connect(g, s2, 0, avg, 0) && graph_connect(g, avg, 0, s3, 0));
    CHECK(graph_connect(g, s3, 0, q2, 0) && graph_connect(g, q2, 0, s4, 0));
    Edge *eo = graph_connect(g, s4, 0, out, 0);
    CHECK(eo);
    one(m, a->id, 0, 0, 0, MEMORY);
    one(m, cvs->id, 0, 0, 0, AXON);
    one(m, s1->id, 0, 0, 0, MEMORY);
    one(m, q1->id, 0, 0, 0, SOMA1);
    one(m, s2->id, 0, 0, 0 | 1 << 8, MEMORY);
    one(m, avg->id, 0, 0, 1, AXON);
    one(m, s3->id, 0, 0, 1, MEMORY);
    one(m, q2->id, 0, 0, 1, SOMA1);
    one(m, s4->id, 0, 0, 1, MEMORY);
    const int32_t r0[1][4] = {{0, 0, 0, RECV}}, so[1][4] = {{0, 0, 1, SEND}};
    coord(m, true, e0->id, 1, r0);
    coord(m, true, eo->id, 1, so);
    return verified(m, "mix");
}

/* INPUT x 4x4x40 int8 -> SI -> CAX (alpha SB f 40 int8: 3f mod 11 - 5; bias constant 9)
 * -> SI int32 -> CCMPB >> 2 (int8) -> SI -> OUTPUT on core (0,0), phase 0 (CAX on the Axon,
 * CCMPB on Soma1): 40 channels, so P43's x2_length (channels) differs from the alpha area's
 * words (10). */
Mapping *emit_fixture_cax(void)
{
    Mapping *m = mapping_create();
    CHECK(m);
    Graph *g = m->graph;
    Block *in = blk(g, BT_INPUT, "x", 4, 4, 40, 0);
    Block *a = blk(g, BT_SI, "a", 4, 4, 40, 0);
    Block *al = blk(g, BT_SB, "alpha", 0, 0, 40, 0);
    Block *cax = blk(g, BT_CAX, "scale", 4, 4, 40, 0);
    Block *s1 = blk(g, BT_SI, "scaled", 4, 4, 40, 0);
    Block *q = blk(g, BT_CCMPB, "q", 4, 4, 40, 0);
    Block *s2 = blk(g, BT_SI, "q/out", 4, 4, 40, 0);
    Block *out = blk(g, BT_OUTPUT, "y", 4, 4, 40, 0);
    Block *i8[] = {in, a, al, q, s2, out}, *i32[] = {cax, s1};
    set_prec(i8, 6, PR_INT_8);
    set_prec(i32, 2, PR_INT_32);
    in->has_socket_id = out->has_socket_id = true;
    cax->bias_type = BIAS_CONSTANT;
    CHECK(blk_set_attr(g, cax, AT_CONSTANT_B, 9));
    int64_t alpha[40];
    for (int f = 0; f < 40; f++)
        alpha[f] = 3 * f % 11 - 5;
    int32_t ad[1] = {40};
    CHECK(blk_set_data(g, al, PR_INT_8, ad, 1, alpha, 40));
    q->shape.d[D_IY] = q->shape.d[D_IX] = 4;
    CHECK(blk_set_attr(g, q, AT_BIT_SHIFT_NUM, 2) && blk_set_attr(g, q, AT_CMP, -128));
    Edge *e0 = graph_connect(g, in, 0, a, 0);
    CHECK(e0 && graph_connect(g, a, 0, cax, 0) && graph_connect(g, al, 0, cax, 1));
    CHECK(graph_connect(g, cax, 0, s1, 0) && graph_connect(g, s1, 0, q, 0));
    CHECK(graph_connect(g, q, 0, s2, 0));
    Edge *eo = graph_connect(g, s2, 0, out, 0);
    CHECK(eo);
    Block *placed[] = {a, al, cax, s1, q, s2};
    const int32_t pis[] = {MEMORY, MEMORY, AXON, MEMORY, SOMA1, MEMORY};
    on_core0(m, placed, pis, 6, e0, eo);
    return verified(m, "cax");
}

/* INPUT f 20 int8 -> SIFC -> CVM f 40 (SWFC, SB) -> SI 1x1x40 int32 -> CCMPB >> 4 (int8)
 * -> SI -> OUTPUT on core (0,0), phase 0 (CVM on the Axon, CCMPB on Soma1); weights
 * (3f + 7r) mod 61 - 30, bias 100 f - 2000. */
Mapping *emit_fixture_fc(void)
{
    Mapping *m = mapping_create();
    CHECK(m);
    Graph *g = m->graph;
    Block *in = blk(g, BT_INPUT, "v", 0, 0, 20, 0);
    Block *sf = blk(g, BT_SIFC, "fc/in", 0, 0, 0, 20);
    Block *sw = blk(g, BT_SWFC, "fc/w", 0, 0, 40, 20);
    Block *sb = blk(g, BT_SB, "fc/b", 0, 0, 40, 0);
    Block *fc = blk(g, BT_CVM, "fc", 0, 0, 40, 20);
    Block *acc = blk(g, BT_SI, "fc/acc", 1, 1, 40, 0);
    Block *q = blk(g, BT_CCMPB, "fc/q", 1, 1, 40, 0);
    Block *so = blk(g, BT_SI, "fc/q/out", 1, 1, 40, 0);
    Block *out = blk(g, BT_OUTPUT, "w", 1, 1, 40, 0);
    Block *i8[] = {in, sf, sw, q, so, out}, *i32[] = {sb, fc, acc};
    set_prec(i8, 6, PR_INT_8);
    set_prec(i32, 3, PR_INT_32);
    in->has_socket_id = out->has_socket_id = true;
    fc->bias_type = BIAS_VECTOR;
    q->shape.d[D_IY] = q->shape.d[D_IX] = 1;
    CHECK(blk_set_attr(g, q, AT_BIT_SHIFT_NUM, 4) && blk_set_attr(g, q, AT_CMP, -128));
    int64_t w[40 * 20], b[40];
    for (int f = 0; f < 40; f++) {
        b[f] = 100 * f - 2000;
        for (int r = 0; r < 20; r++)
            w[f * 20 + r] = (3 * f + 7 * r) % 61 - 30;
    }
    int32_t wd[2] = {40, 20}, bd[1] = {40};
    CHECK(blk_set_data(g, sw, PR_INT_8, wd, 2, w, 800) && blk_set_data(g, sb, PR_INT_32, bd, 1, b, 40));
    Edge *e0 = graph_connect(g, in, 0, sf, 0);
    CHECK(e0 && graph_connect(g, sf, 0, fc, 0) && graph_connect(g, sw, 0, fc, 1));
    CHECK(graph_connect(g, sb, 0, fc, 2) && graph_connect(g, fc, 0, acc, 0));
    CHECK(graph_connect(g, acc, 0, q, 0) && graph_connect(g, q, 0, so, 0));
    Edge *eo = graph_connect(g, so, 0, out, 0);
    CHECK(eo);
    Block *placed[] = {sf, sw, sb, fc, acc, q, so};
    const int32_t pis[] = {MEMORY, MEMORY, MEMORY, AXON, MEMORY, SOMA1, MEMORY};
    on_core0(m, placed, pis, 7, e0, eo);
    return verified(m, "fc");
}

/* INPUT 6x6x16 int8 -> SI a -> CCMPB relu -> SIC b -> CC conv2 3x3 pad 1, f 64 (SW, SB) ->
 * SI int32 -> CCMPB >> 6 (int8) -> SI -> OUTPUT: a graph to cut and map (no placement:
 * relu, conv2 and the requantization on core (0,0) in phases 0, 1, 1). */
Mapping *emit_fixture_two_layer(void)
{
    Mapping *m = mapping_create();
    CHECK(m);
    Graph *g = m->graph;
    Block *in = blk(g, BT_INPUT, "x", 6, 6, 16, 0);
    Block *a = blk(g, BT_SI, "a", 6, 6, 16, 0);
    Block *relu = blk(g, BT_CCMPB, "relu", 6, 6, 16, 0);
    Block *b = blk(g, BT_SIC, "conv2/in", 6, 6, 0, 16);
    Block *sw = blk(g, BT_SW, "conv2/w", 0, 0, 64, 16);
    Block *sb = blk(g, BT_SB, "conv2/b", 0, 0, 64, 0);
    Block *cc = blk(g, BT_CC, "conv2", 6, 6, 64, 16);
    Block *acc = blk(g, BT_SI, "conv2/acc", 6, 6, 64, 0);
    Block *q = blk(g, BT_CCMPB, "conv2/q", 6, 6, 64, 0);
    Block *so = blk(g, BT_SI, "conv2/q/out", 6, 6, 64, 0);
    Block *out = blk(g, BT_OUTPUT, "y", 6, 6, 64, 0);
    Block *i8[] = {in, a, relu, b, sw, q, so, out}, *i32[] = {sb, cc, acc};
    set_prec(i8, 8, PR_INT_8);
    set_prec(i32, 3, PR_INT_32);
    in->has_socket_id = out->has_socket_id = true;
    relu->shape.d[D_IY] = relu->shape.d[D_IX] = 6;
    q->shape.d[D_IY] = q->shape.d[D_IX] = 6;
    sw->shape.d[D_KY] = sw->shape.d[D_KX] = 3;
    cc->shape.d[D_KY] = cc->shape.d[D_KX] = 3;
    cc->shape.d[D_IY] = cc->shape.d[D_IX] = 6;
    cc->bias_type = BIAS_VECTOR;
    CHECK(blk_set_attr(g, relu, AT_CMP, 0));
    CHECK(blk_set_attr(g, q, AT_BIT_SHIFT_NUM, 6) && blk_set_attr(g, q, AT_CMP, -128));
    CHECK(blk_set_attr(g, cc, AT_KERNEL_X, 3) && blk_set_attr(g, cc, AT_KERNEL_Y, 3));
    CHECK(blk_set_attr(g, cc, AT_PAD_UP, 1) && blk_set_attr(g, cc, AT_PAD_DOWN, 1));
    CHECK(blk_set_attr(g, cc, AT_PAD_LEFT, 1) && blk_set_attr(g, cc, AT_PAD_RIGHT, 1));
    static int64_t w[64 * 16 * 9];
    int64_t bias[64];
    for (int f = 0; f < 64; f++) {
        bias[f] = 50 * f - 1500;
        for (int r = 0; r < 16; r++)
            for (int k = 0; k < 9; k++)
                w[(f * 16 + r) * 9 + k] = (5 * f + 3 * r + k) % 23 - 11;
    }
    int32_t wd[4] = {64, 16, 3, 3}, bd[1] = {64};
    CHECK(blk_set_data(g, sw, PR_INT_8, wd, 4, w, 64 * 16 * 9) &&
          blk_set_data(g, sb, PR_INT_32, bd, 1, bias, 64));
    Edge *e0 = graph_connect(g, in, 0, a, 0);
    CHECK(e0 && graph_connect(g, a, 0, relu, 0) && graph_connect(g, relu, 0, b, 0));
    CHECK(graph_connect(g, b, 0, cc, 0) && graph_connect(g, sw, 0, cc, 1));
    CHECK(graph_connect(g, sb, 0, cc, 2) && graph_connect(g, cc, 0, acc, 0));
    CHECK(graph_connect(g, acc, 0, q, 0) && graph_connect(g, q, 0, so, 0));
    Edge *eo = graph_connect(g, so, 0, out, 0);
    CHECK(eo);
    one(m, a->id, 0, 0, 0, MEMORY);
    one(m, relu->id, 0, 0, 0, SOMA1);
    one(m, b->id, 0, 0, 0 | 1 << 8, MEMORY);
    one(m, sw->id, 0, 0, 0 | 1 << 8, MEMORY);
    one(m, sb->id, 0, 0, 0 | 1 << 8, MEMORY);
    one(m, cc->id, 0, 0, 1, AXON);
    one(m, acc->id, 0, 0, 1, MEMORY);
    one(m, q->id, 0, 0, 1, SOMA1);
    one(m, so->id, 0, 0, 1, MEMORY);
    const int32_t r0[1][4] = {{0, 0, 0, RECV}}, s0[1][4] = {{0, 0, 1, SEND}};
    coord(m, true, e0->id, 1, r0);
    coord(m, true, eo->id, 1, s0);
    return verified(m, "two_layer");
}

/* INPUT -> SI a (4x4x16 int8) on core (0,0) -> CCMPB relu (Soma1, phase 0) -> SI b, held by
 * cores (2,1) and (3,1): a multicast chain, (0,0) -> (2,1) in phase 0, then (2,1) relays to
 * (3,1) in phase `relay`; each reads it with a CCMPB (Soma2, in the phase its copy arrives)
 * into its own OUTPUT (sockets 0 and 1); relay -1: no relay, (0,0) sends to both in phase 0.
 * With `sibling`, relu writes two storage blocks of
 * the same values, b on (2,1) and b2 on (3,1) (one a reading core, as the mapper's copies
 * are), and (2,1) relays b2's data from its copy of b. */
Mapping *emit_fixture_relay(int32_t relay, bool sibling)
{
    Mapping *m = mapping_create();
    CHECK(m);
    Graph *g = m->graph;
    Block *in = blk(g, BT_INPUT, "x", 4, 4, 16, 0);
    Block *a = blk(g, BT_SI, "a", 4, 4, 16, 0);
    Block *relu = blk(g, BT_CCMPB, "relu", 4, 4, 16, 0);
    Block *b = blk(g, BT_SI, "b", 4, 4, 16, 0);
    Block *b2 = sibling ? blk(g, BT_SI, "b2", 4, 4, 16, 0) : b;
    Block *r1 = blk(g, BT_CCMPB, "r1", 4, 4, 16, 0);
    Block *c1 = blk(g, BT_SI, "c1", 4, 4, 16, 0);
    Block *o1 = blk(g, BT_OUTPUT, "y1", 4, 4, 16, 0);
    Block *r2 = blk(g, BT_CCMPB, "r2", 4, 4, 16, 0);
    Block *c2 = blk(g, BT_SI, "c2", 4, 4, 16, 0);
    Block *o2 = blk(g, BT_OUTPUT, "y2", 4, 4, 16, 0);
    Block *all[] = {in, a, relu, b, b2, r1, c1, o1, r2, c2, o2};
    set_prec(all, 11, PR_INT_8);
    in->has_socket_id = o1->has_socket_id = o2->has_socket_id = true;
    o2->socket_id = 1;
    Block *somas[] = {relu, r1, r2};
    for (int i = 0; i < 3; i++) {
        somas[i]->shape.d[D_IY] = somas[i]->shape.d[D_IX] = 4;
        CHECK(blk_set_attr(g, somas[i], AT_CMP, i == 0 ? 0 : 5 * i));
    }
    Edge *e0 = graph_connect(g, in, 0, a, 0);
    CHECK(e0 && graph_connect(g, a, 0, relu, 0));
    Edge *eb = graph_connect(g, relu, 0, b, 0);
    Edge *eb2 = sibling ? graph_connect(g, relu, 0, b2, 0) : eb;
    CHECK(eb && eb2 && graph_connect(g, b, 0, r1, 0) && graph_connect(g, r1, 0, c1, 0));
    CHECK(graph_connect(g, b2, 0, r2, 0) && graph_connect(g, r2, 0, c2, 0));
    Edge *eo1 = graph_connect(g, c1, 0, o1, 0), *eo2 = graph_connect(g, c2, 0, o2, 0);
    CHECK(eo1 && eo2);
    one(m, a->id, 0, 0, 0, MEMORY);
    one(m, relu->id, 0, 0, 0, SOMA1);
    bool direct = relay < 0; /* both from the source, in phase 0 */
    relay = direct ? 0 : relay;
    const int32_t bc[2][4] = {{2, 1, 0 | relay << 8, MEMORY}, {3, 1, relay, MEMORY}};
    if (sibling) {
        one(m, b->id, 2, 1, 0 | relay << 8, MEMORY);
        one(m, b2->id, 3, 1, relay, MEMORY);
    } else {
        coord(m, false, b->id, 2, bc);
    }
    one(m, r1->id, 2, 1, 0, SOMA2);
    one(m, c1->id, 2, 1, 0 | 1 << 8, MEMORY);
    one(m, r2->id, 3, 1, relay, SOMA2);
    one(m, c2->id, 3, 1, relay | 1 << 8, MEMORY);
    const int32_t r0[1][4] = {{0, 0, 0, RECV}};
    const int32_t x[4][4] = {{0, 0, 0, SEND}, {2, 1, 0, RECV}, {direct ? 0 : 2, direct ? 0 : 1,
                             relay, SEND}, {3, 1, relay, RECV}};
    const int32_t s1[1][4] = {{2, 1, 1, SEND}}, s2[1][4] = {{3, 1, 1, SEND}};
    coord(m, true, e0->id, 1, r0);
    if (sibling) {
        coord(m, true, eb->id, 2, x);
        coord(m, true, eb2->id, 2, x + 2);
    } else {
        coord(m, true, eb->id, 4, x);
    }
    coord(m, true, eo1->id, 1, s1);
    coord(m, true, eo2->id, 1, s2);
    return verified(m, sibling ? "relay_sibling" : "relay");
}

/* ns sources (at most 3), source s on core src[s], each through a CCMPB (Soma1, phase 0)
 * into a storage block (b, d, g: 4x4x16 int8, 64 words) held by those of the n cores (2,1)
 * .. (1 + n, 1) that bit k of mask[s] names, all sent to them in phase 0: relaying chains
 * through the cores the sets share. Each receiver reads its first copy in Soma1 and its
 * second in Soma2 of phase 1, a third in Soma1 of phase 2 (CCMPBs into their own OUTPUTs,
 * socket 4 s + k), the results sent out in the phase after. Source s's maps have rows[s]
 * rows (rows NULL: 4 each). */
static Mapping *chain_sets(int ns, const uint32_t *mask, const int32_t (*src)[2], int32_t n,
                           const int32_t *rows)
{
    Mapping *m = mapping_create();
    CHECK(m && ns >= 1 && ns <= 3 && n >= 1 && n <= 4);
    Graph *g = m->graph;
    static const char *const names[3][6] = {{"x", "a", "relu", "b", "r", "y"},
                                            {"z", "c", "pass", "d", "q", "w"},
                                            {"v", "e", "keep", "h", "u", "o"}};
    int copies[4] = {0};
    for (int s = 0; s < ns; s++) {
        Block *all[17], *r[4], *c[4], *o[4];
        int32_t ny = rows ? rows[s] : 4;
        Edge *eo[4];
        Block *in = blk(g, BT_INPUT, names[s][0], ny, 4, 16, 0);
        Block *a = blk(g, BT_SI, names[s][1], ny, 4, 16, 0);
        Block *relu = blk(g, BT_CCMPB, names[s][2], ny, 4, 16, 0);
        Block *b = blk(g, BT_SI, names[s][3], ny, 4, 16, 0);
        int nb = 0, nr = 0, ks[4];
        all[nb++] = in;
        all[nb++] = a;
        all[nb++] = relu;
        all[nb++] = b;
        for (int k = 0; k < n; k++) {
            if (!(mask[s] >> k & 1))
                continue;
            char nm[16];
            snprintf(nm, sizeof nm, "%s%d", names[s][4], k + 1);
            r[nr] = blk(g, BT_CCMPB, nm, ny, 4, 16, 0);
            snprintf(nm, sizeof nm, "%s%dc", names[s][4], k + 1);
            c[nr] = blk(g, BT_SI, nm, ny, 4, 16, 0);
            snprintf(nm, sizeof nm, "%s%d", names[s][5], k + 1);
            o[nr] = blk(g, BT_OUTPUT, nm, ny, 4, 16, 0);
            o[nr]->has_socket_id = true;
            o[nr]->socket_id = 4 * s + k;
            all[nb++] = r[nr];
            all[nb++] = c[nr];
            all[nb++] = o[nr];
            ks[nr++] = k;
        }
        all[nb] = NULL;
        set_prec(all, nb, PR_INT_8);
        in->has_socket_id = true;
        in->socket_id = s;
        for (int i = 0; i <= nr; i++) {
            Block *so = i ? r[i - 1] : relu;
            so->shape.d[D_IY] = ny;
            so->shape.d[D_IX] = 4;
            CHECK(blk_set_attr(g, so, AT_CMP, i == 0 ? -128 + 100 * s : 5 * i + s));
        }
        Edge *ein = graph_connect(g, in, 0, a, 0);
        CHECK(ein && graph_connect(g, a, 0, relu, 0));
        Edge *eb = graph_connect(g, relu, 0, b, 0);
        CHECK(eb);
        for (int i = 0; i < nr; i++) {
            CHECK(graph_connect(g, b, 0, r[i], 0) && graph_connect(g, r[i], 0, c[i], 0));
            eo[i] = graph_connect(g, c[i], 0, o[i], 0);
            CHECK(eo[i]);
        }
        int32_t x0 = src[s][0], y0 = src[s][1];
        one(m, a->id, x0, y0, 0, MEMORY);
        one(m, relu->id, x0, y0, 0, SOMA1);
        int32_t bc[4][4], x[8][4];
        for (int i = 0; i < nr; i++) {
            const int32_t row[4] = {2 + ks[i], 1, 0 | (1 + copies[ks[i]] / 2) << 8, MEMORY};
            const int32_t snd[4] = {x0, y0, 0, SEND}, rcv[4] = {2 + ks[i], 1, 0, RECV};
            memcpy(bc[i], row, sizeof row);
            memcpy(x[2 * i], snd, sizeof snd);
            memcpy(x[2 * i + 1], rcv, sizeof rcv);
        }
        coord(m, false, b->id, nr, (const int32_t(*)[4])bc);
        const int32_t r0[1][4] = {{x0, y0, 0, RECV}};
        coord(m, true, ein->id, 1, r0);
        coord(m, true, eb->id, 2 * nr, (const int32_t(*)[4])x);
        for (int i = 0; i < nr; i++) {
            int k = ks[i], j = copies[k]++, p = 1 + j / 2;
            one(m, r[i]->id, 2 + k, 1, p, j % 2 ? SOMA2 : SOMA1);
            one(m, c[i]->id, 2 + k, 1, p | (p + 1) << 8, MEMORY);
            const int32_t so[1][4] = {{2 + k, 1, p + 1, SEND}};
            coord(m, true, eo[i]->id, 1, so);
        }
    }
    return m;
}

Mapping *emit_fixture_chain_two(void)
{
    static const uint32_t mask[2] = {3, 3};
    static const int32_t src[2][2] = {{0, 0}, {0, 2}};
    return verified(chain_sets(2, mask, src, 2, NULL), "chain_two");
}

Mapping *emit_fixture_chain_three(void)
{
    static const uint32_t mask[2] = {7, 7};
    static const int32_t src[2][2] = {{0, 0}, {6, 2}};
    return verified(chain_sets(2, mask, src, 3, NULL), "chain_three");
}

Mapping *emit_fixture_chain_cross(void)
{
    static const uint32_t mask[3] = {3, 6, 5};
    static const int32_t src[3][2] = {{0, 0}, {0, 2}, {0, 4}};
    return verified(chain_sets(3, mask, src, 3, NULL), "chain_cross");
}

Mapping *emit_fixture_chain_apart(void)
{
    static const uint32_t mask[3] = {3, 2, 3};
    static const int32_t src[3][2] = {{0, 0}, {0, 2}, {0, 4}}, rows[3] = {12, 8, 4};
    return verified(chain_sets(3, mask, src, 2, rows), "chain_apart");
}

/* emit_fixture_relay(-1, false) on three chips: its core (0,0) is core (15,9) of chip (0,0),
 * the last of the chip; (2,1) is core (0,9) of chip (1,0), one step right past the chip's
 * edge; (3,1) is core (15,0) of chip (0,1), one step down past it. */
Mapping *emit_fixture_chips(void)
{
    Mapping *m = emit_fixture_relay(-1, false);
    static const int32_t from[3][2] = {{0, 0}, {2, 1}, {3, 1}};
    static const int32_t to[3][4] = {{0, 0, 15, 9}, {1, 0, 0, 9}, {0, 1, 15, 0}};
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < (pass ? m->n_edges : m->n_nodes); i++) {
            MapDict *d = pass ? &m->edges[i] : &m->nodes[i];
            for (uint32_t j = 0; j < d->n_coords; j++) {
                MapCoord *c = &d->coords[j];
                for (int k = 0; k < 3; k++)
                    if (c->chip.x == 0 && c->chip.y == 0 && c->core.x == from[k][0] &&
                        c->core.y == from[k][1]) {
                        c->chip.x = to[k][0], c->chip.y = to[k][1];
                        c->core.x = to[k][2], c->core.y = to[k][3];
                        break;
                    }
            }
        }
    return verified(m, "chips");
}
