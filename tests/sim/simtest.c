/* simtest.c: see simtest.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "simtest.h"
#include "taskir/verify.h"

#define S(...) ((const int32_t[TIR_NDIMS]){__VA_ARGS__})

uint32_t st_next(StRng *r)
{
    uint32_t x = r->s ? r->s : 0x9e3779b9u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    r->s = x;
    return x;
}

int32_t st_range(StRng *r, int32_t lo, int32_t hi)
{
    uint64_t span = (uint64_t)((int64_t)hi - lo) + 1;
    uint64_t v = ((uint64_t)st_next(r) << 32 | st_next(r)) % span;
    return (int32_t)((int64_t)lo + (int64_t)v);
}

Block *st_block(Graph *g, BlockType t, const int32_t shape[TIR_NDIMS], const char *name)
{
    Block *b = graph_add_block(g, t, GRAPH_AUTO_ID, name);
    assert_non_null(b);
    if (shape)
        memcpy(b->shape.d, shape, sizeof b->shape.d);
    return b;
}

Block *st_storage(Graph *g, BlockType t, const int32_t shape[TIR_NDIMS], const int32_t *v,
                  int64_t n)
{
    Block *b = st_block(g, t, shape, NULL);
    b->has_prec = true;
    b->prec = PR_INT_32;
    int64_t *w = malloc((size_t)(n ? n : 1) * sizeof *w);
    assert_non_null(w);
    for (int64_t i = 0; i < n; i++)
        w[i] = v[i];
    int32_t dims[TIR_NDIMS];
    uint32_t nd = 0;
    for (int i = 0; i < TIR_NDIMS; i++)
        if (shape[i])
            dims[nd++] = shape[i];
    assert_true(blk_set_data(g, b, PR_INT_32, dims, nd, w, (uint64_t)n));
    free(w);
    return b;
}

Block *st_io(Graph *g, BlockType t, int32_t y, int32_t x, int32_t f, int32_t r, int32_t socket,
             const char *name)
{
    int32_t s[TIR_NDIMS] = {y, x, f, r, 0, 0, 0, 0};
    Block *b = st_block(g, t, s, name);
    b->has_socket_id = true;
    b->socket_id = socket;
    b->has_prec = true;
    b->prec = PR_INT_32;
    return b;
}

int32_t *st_values(StRng *r, int64_t n, int32_t lo, int32_t hi)
{
    int32_t *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    assert_non_null(v);
    for (int64_t i = 0; i < n; i++)
        v[i] = st_range(r, lo, hi);
    return v;
}

void st_window(Graph *g, Block *c, int32_t K)
{
    static const AttrId at[] = {AT_KERNEL_Y, AT_KERNEL_X, AT_PAD_UP, AT_PAD_DOWN, AT_PAD_LEFT,
                                AT_PAD_RIGHT};
    int32_t av[] = {K, K, K / 2, K / 2, K / 2, K / 2};
    for (int i = 0; i < 6; i++)
        assert_true(blk_set_attr(g, c, at[i], av[i]));
}

Block *st_conv_layer(Graph *g, StRng *r, Block *in, int32_t H, int32_t R, int32_t F, int32_t K,
                     PrecisionId prec)
{
    int64_t nw = (int64_t)F * R * K * K;
    int32_t *w = st_values(r, nw, -128, 127), *bias = st_values(r, F, -5000, 5000);
    Block *sw = st_storage(g, BT_SW, S(0, 0, F, R, K, K), w, nw);
    Block *sb = st_storage(g, BT_SB, S(0, 0, F), bias, F);
    free(w), free(bias);
    Block *c = st_block(g, BT_CC, S(H, H, F, R, K, K, H, H), "conv");
    c->has_prec = true;
    c->prec = prec;
    c->bias_type = BIAS_VECTOR;
    st_window(g, c, K);
    Block *out = st_block(g, prec == PR_INT_8 ? BT_SIC : BT_SI,
                          prec == PR_INT_8 ? S(H, H, 0, F) : S(H, H, F), "conv/out");
    out->has_prec = true;
    out->prec = prec;
    assert_non_null(graph_connect(g, in, 0, c, 0));
    assert_non_null(graph_connect(g, sw, 0, c, 1));
    assert_non_null(graph_connect(g, sb, 0, c, 2));
    assert_non_null(graph_connect(g, c, 0, out, 0));
    return out;
}

SimRun *st_create(const Graph *g, const SimOptions *o)
{
    Diag d;
    diag_init(&d, "test");
    Status st = verify_graph(g, &d);
    SimRun *run = NULL;
    if (!st)
        st = sim_create(g, o, &run, &d);
    if (st)
        diag_print(&d, stderr, "test");
    diag_finish(&d);
    assert_int_equal(st, ST_OK);
    return run;
}

Block *st_out(Graph *g, Block *c, int32_t socket, const char *name)
{
    int32_t s[TIR_NDIMS] = {c->shape.d[D_Y], c->shape.d[D_X], c->shape.d[D_F], 0, 0, 0, 0, 0};
    Block *si = st_block(g, BT_SI, s, "result");
    si->has_prec = true;
    si->prec = blk_prec(c);
    Block *o = st_io(g, BT_OUTPUT, s[D_Y], s[D_X], s[D_F], 0, socket, name);
    o->prec = blk_prec(c);
    assert_non_null(graph_connect(g, c, 0, si, 0));
    assert_non_null(graph_connect(g, si, 0, o, 0));
    return o;
}

Status st_run_block(Graph *g, Block *c, Block *const *operands, int n_operands, int steps,
                    int32_t *out, int64_t n, Diag *d)
{
    for (int i = 0; i < n_operands; i++)
        assert_non_null(graph_connect(g, operands[i], 0, c, (uint32_t)i));
    if (c->bias_type == BIAS_CONSTANT && !blk_find_attr(c, AT_CONSTANT_B))
        assert_true(blk_set_attr(g, c, AT_CONSTANT_B, 0)); /* the verifier wants it */
    st_out(g, c, 0, "out");
    assert_false(graph_oom(g));
    Diag own;
    Diag *dd = d ? d : &own;
    if (!d)
        diag_init(&own, "test");
    SimOptions opt = {.threads = 1, .steps = 1, .keep_all = false};
    SimRun *run = NULL;
    Status st = verify_graph(g, dd);
    if (!st)
        st = sim_create(g, &opt, &run, dd);
    for (int t = 0; t < steps && !st; t++) {
        st = sim_step(run, dd);
        if (!st) {
            int64_t cnt;
            const int32_t *r = sim_output(run, 0, &cnt);
            assert_int_equal(cnt, n);
            memcpy(out + (int64_t)t * n, r, (size_t)n * sizeof *out);
        }
    }
    sim_destroy(run);
    if (!d) {
        if (st)
            diag_print(&own, stderr, "test");
        diag_finish(&own);
        assert_int_equal(st, ST_OK);
    }
    return st;
}

void st_conv_ref(const StConv *c, const int32_t *in, const int32_t *w, const int32_t *bias,
                 int32_t lo, int32_t hi, int32_t *out)
{
    for (int32_t oy = 0; oy < c->Y; oy++)
        for (int32_t ox = 0; ox < c->X; ox++)
            for (int32_t f = 0; f < c->F; f++) {
                int64_t s = bias[f];
                for (int32_t r = 0; r < c->R; r++)
                    for (int32_t ky = 0; ky < c->KY; ky++)
                        for (int32_t kx = 0; kx < c->KX; kx++) {
                            int32_t iy = oy * c->sy + ky * c->dy - c->pu;
                            int32_t ix = ox * c->sx + kx * c->dx - c->pl;
                            if (iy >= 0 && iy < c->IY && ix >= 0 && ix < c->IX)
                                s += (int64_t)in[((int64_t)iy * c->IX + ix) * c->R + r] *
                                     w[(((int64_t)f * c->R + r) * c->KY + ky) * c->KX + kx];
                        }
                int32_t v = (int32_t)(uint32_t)(uint64_t)s;
                out[((int64_t)oy * c->X + ox) * c->F + f] = v < lo ? lo : v > hi ? hi : v;
            }
}

void st_assert_equal(const int32_t *want, const int32_t *got, int64_t n, const char *what)
{
    for (int64_t i = 0; i < n; i++)
        if (want[i] != got[i]) {
            fprintf(stderr, "%s: first difference at flat index %lld: want %d, got %d\n", what,
                    (long long)i, (int)want[i], (int)got[i]);
            fail();
        }
}
