/* test_sim_random.c: randomized property tests. Random shapes, windows (kernel sizes from 1
 * to the whole padded input, padding, stride, dilation), precisions and values (small ones
 * and the int32 extremes) run through the simulator and through an independent naive
 * implementation written here from the loop nests of docs/semantics.md:
 * products in int64, sums modulo 2^64 (uint64_t), then the int32 wrap and the precision
 * clamp; padding by an explicit bounds test per tap; shifts by floor division. The two must
 * agree bit for bit, with one thread and with several. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "simtest.h"

#define ROUNDS 60

/* ---- the naive reference ---- */

static int32_t wrap32(uint64_t v)
{
    uint32_t u = (uint32_t)v;
    return u <= INT32_MAX ? (int32_t)u : (int32_t)(u - 0x80000000u) + INT32_MIN;
}

static int32_t clampi(int64_t v, int64_t lo, int64_t hi)
{
    return (int32_t)(v < lo ? lo : v > hi ? hi : v);
}

static int64_t floor_shift(int64_t v, int s)
{
    int64_t d = (int64_t)1 << s;
    int64_t r = ((v % d) + d) % d;
    return (v - r) / d;
}

static void prec_lohi(PrecisionId p, int64_t *lo, int64_t *hi)
{
    *lo = pr_info(p)->lo < INT32_MIN ? INT32_MIN : pr_info(p)->lo;
    *hi = pr_info(p)->hi > INT32_MAX ? INT32_MAX : pr_info(p)->hi;
}

typedef struct Geo {
    int Y, X, F, R, KY, KX, IY, IX, sy, sx, dy, dx, pu, pd, pl, pr;
} Geo;

/* Random window geometry with an output of at least 1 along each axis. */
static void random_geo(StRng *g, Geo *o, bool dilate, int maxc)
{
    for (;;) {
        o->IY = st_range(g, 1, 9), o->IX = st_range(g, 1, 9);
        o->KY = st_range(g, 1, 4), o->KX = st_range(g, 1, 4);
        o->sy = st_range(g, 1, 3), o->sx = st_range(g, 1, 3);
        o->dy = dilate ? st_range(g, 1, 3) : 1, o->dx = dilate ? st_range(g, 1, 3) : 1;
        o->pu = st_range(g, 0, 3), o->pd = st_range(g, 0, 3);
        o->pl = st_range(g, 0, 3), o->pr = st_range(g, 0, 3);
        if (st_range(g, 0, 4) == 0) { /* a kernel as large as the padded input */
            o->dy = o->dx = 1;
            o->KY = o->IY + o->pu + o->pd;
            o->KX = o->IX + o->pl + o->pr;
        }
        int spy = o->dy * (o->KY - 1) + 1, spx = o->dx * (o->KX - 1) + 1;
        int py = o->IY + o->pu + o->pd, px = o->IX + o->pl + o->pr;
        if (py < spy || px < spx)
            continue;
        o->Y = (py - spy) / o->sy + 1;
        o->X = (px - spx) / o->sx + 1;
        o->F = st_range(g, 1, maxc);
        o->R = st_range(g, 1, maxc);
        return;
    }
}

static void set_window_attrs(Graph *gr, Block *c, const Geo *o, bool dilate)
{
    blk_set_attr(gr, c, AT_KERNEL_Y, o->KY);
    blk_set_attr(gr, c, AT_KERNEL_X, o->KX);
    blk_set_attr(gr, c, AT_STRIDE_Y, o->sy);
    blk_set_attr(gr, c, AT_STRIDE_X, o->sx);
    blk_set_attr(gr, c, AT_PAD_UP, o->pu);
    blk_set_attr(gr, c, AT_PAD_DOWN, o->pd);
    blk_set_attr(gr, c, AT_PAD_LEFT, o->pl);
    blk_set_attr(gr, c, AT_PAD_RIGHT, o->pr);
    if (dilate) {
        blk_set_attr(gr, c, AT_DILATION_Y, o->dy);
        blk_set_attr(gr, c, AT_DILATION_X, o->dx);
    }
}

/* A value: mostly int8-sized, sometimes anything, sometimes an extreme. */
static int32_t rval(StRng *g, bool wide)
{
    int k = st_range(g, 0, 9);
    if (!wide || k < 6)
        return st_range(g, -128, 127);
    if (k < 8)
        return st_range(g, INT32_MIN, INT32_MAX);
    static const int32_t ext[] = {INT32_MIN, INT32_MAX, INT32_MIN + 1, -1, 0, 1, 65536};
    return ext[st_range(g, 0, 6)];
}

static int32_t *rvals(StRng *g, int64_t n, bool wide)
{
    int32_t *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    assert_non_null(v);
    for (int64_t i = 0; i < n; i++)
        v[i] = rval(g, wide);
    return v;
}

static PrecisionId rprec(StRng *g)
{
    static const PrecisionId p[] = {PR_INT_32, PR_INT_32, PR_INT_8, PR_INT_16, PR_UINT_8,
                                    PR_TERNARY, PR_INT_28};
    return p[st_range(g, 0, 6)];
}

/* Runs one harness graph with 1 and with 3 threads; both must equal want. */
static void check_both(Graph *gr, Block *c, Block *const *ops, int n_ops, const int32_t *want,
                       int64_t n, const char *what)
{
    int32_t *got = malloc((size_t)n * sizeof *got);
    assert_non_null(got);
    st_run_block(gr, c, ops, n_ops, 1, got, n, NULL);
    st_assert_equal(want, got, n, what);
    SimOptions o = {.threads = 3, .steps = 1, .keep_all = false};
    SimRun *run = st_create(gr, &o);
    Diag d;
    diag_init(&d, "test");
    assert_int_equal(sim_step(run, &d), ST_OK);
    int64_t cnt;
    const int32_t *r = sim_output(run, 0, &cnt);
    assert_int_equal(cnt, n);
    st_assert_equal(want, r, n, what);
    diag_finish(&d);
    sim_destroy(run);
    free(got);
}

/* ---- convolution ---- */

static void test_conv_random(void **state)
{
    (void)state;
    StRng g = {12345};
    for (int round = 0; round < ROUNDS; round++) {
        Geo o;
        random_geo(&g, &o, true, 20);
        bool cc2d = st_range(&g, 0, 1), wide = st_range(&g, 0, 1), vbias = st_range(&g, 0, 1);
        PrecisionId p = rprec(&g);
        int64_t nin = (int64_t)o.IY * o.IX * o.R, nw = (int64_t)o.F * o.R * o.KY * o.KX;
        int64_t nout = (int64_t)o.Y * o.X * o.F;
        int32_t *in = rvals(&g, nin, wide), *w = rvals(&g, nw, wide), *b = rvals(&g, o.F, wide);
        int32_t cb = rval(&g, wide);
        /* naive: the loop nest of docs/semantics.md with its padding, stride and dilation */
        int32_t *want = malloc((size_t)nout * sizeof *want);
        int64_t lo, hi;
        prec_lohi(p, &lo, &hi);
        for (int oy = 0; oy < o.Y; oy++)
            for (int ox = 0; ox < o.X; ox++)
                for (int f = 0; f < o.F; f++) {
                    uint64_t acc = (uint64_t)(int64_t)(vbias ? b[f] : cb);
                    for (int r = 0; r < o.R; r++)
                        for (int kx = 0; kx < o.KX; kx++)
                            for (int ky = 0; ky < o.KY; ky++) {
                                int iy = oy * o.sy + ky * o.dy - o.pu;
                                int ix = ox * o.sx + kx * o.dx - o.pl;
                                if (iy < 0 || iy >= o.IY || ix < 0 || ix >= o.IX)
                                    continue;
                                int64_t prod = (int64_t)in[(iy * o.IX + ix) * o.R + r] *
                                               w[((f * o.R + r) * o.KY + ky) * o.KX + kx];
                                acc += (uint64_t)prod;
                            }
                    want[(oy * o.X + ox) * o.F + f] = clampi(wrap32(acc), lo, hi);
                }
        Graph *gr = graph_create();
        int32_t cs[TIR_NDIMS] = {o.Y, o.X, o.F, o.R, o.KY, o.KX, o.IY, o.IX};
        Block *c = st_block(gr, cc2d ? BT_CC2D : BT_CC, cs, "conv");
        c->has_prec = true;
        c->prec = p;
        c->bias_type = vbias ? BIAS_VECTOR : BIAS_CONSTANT;
        if (!vbias)
            blk_set_attr(gr, c, AT_CONSTANT_B, cb);
        set_window_attrs(gr, c, &o, true);
        Block *ops[3];
        ops[0] = st_storage(gr, cc2d ? BT_SIC2D : BT_SIC,
                            (int32_t[TIR_NDIMS]){o.IY, o.IX, 0, o.R}, in, nin);
        ops[1] = st_storage(gr, cc2d ? BT_SW2D : BT_SW,
                            (int32_t[TIR_NDIMS]){0, 0, o.F, o.R, o.KY, o.KX}, w, nw);
        ops[2] = st_storage(gr, BT_SB, (int32_t[TIR_NDIMS]){0, 0, o.F}, b, o.F);
        char what[160];
        snprintf(what, sizeof what, "round %d conv in %dx%dx%d k %dx%d s %d,%d d %d,%d "
                 "pad %d,%d,%d,%d f %d", round, o.IY, o.IX, o.R, o.KY, o.KX, o.sy, o.sx, o.dy,
                 o.dx, o.pu, o.pd, o.pl, o.pr, o.F);
        check_both(gr, c, ops, vbias ? 3 : 2, want, nout, what);
        graph_destroy(gr);
        free(in), free(w), free(b), free(want);
    }
}

/* ---- pooling: CAVG, CCMPB, CCMPS ---- */

static void test_pool_random(void **state)
{
    (void)state;
    StRng g = {777};
    for (int round = 0; round < 3 * ROUNDS; round++) {
        Geo o;
        random_geo(&g, &o, false, 12);
        static const BlockType types[] = {BT_CAVG, BT_CCMPB, BT_CCMPS};
        BlockType t = types[round % 3];
        bool wide = st_range(&g, 0, 1);
        PrecisionId p = rprec(&g);
        int shift = st_range(&g, 0, 3) == 0 ? 31 : st_range(&g, 0, 9);
        int32_t cmp = st_range(&g, 0, 2) == 0 ? rval(&g, true) : st_range(&g, -50, 50);
        int64_t nin = (int64_t)o.IY * o.IX * o.F, nout = (int64_t)o.Y * o.X * o.F;
        int32_t *in = rvals(&g, nin, wide), *b = rvals(&g, o.F, wide);
        int32_t *want = malloc((size_t)nout * sizeof *want);
        int64_t lo, hi;
        prec_lohi(p, &lo, &hi);
        for (int oy = 0; oy < o.Y; oy++)
            for (int ox = 0; ox < o.X; ox++)
                for (int f = 0; f < o.F; f++) {
                    uint64_t sum = (uint64_t)(int64_t)b[f];
                    int64_t mx = INT64_MIN, mn = INT64_MAX;
                    for (int kx = 0; kx < o.KX; kx++)
                        for (int ky = 0; ky < o.KY; ky++) {
                            int iy = oy * o.sy + ky - o.pu, ix = ox * o.sx + kx - o.pl;
                            int64_t v = iy < 0 || iy >= o.IY || ix < 0 || ix >= o.IX
                                            ? 0 : in[(iy * o.IX + ix) * o.F + f];
                            sum += (uint64_t)v;
                            mx = v > mx ? v : mx;
                            mn = v < mn ? v : mn;
                        }
                    int64_t r;
                    if (t == BT_CAVG) {
                        r = clampi(wrap32(sum), lo, hi);
                    } else if (t == BT_CCMPB) { /* clip(v, CMP, hi) = min(max(v, CMP), hi) */
                        r = floor_shift(mx, shift);
                        r = r < cmp ? cmp : r;
                        r = r > hi ? hi : r;
                    } else { /* clip(v, lo, CMP) = max(min(v, CMP), lo) */
                        r = floor_shift(mn, shift);
                        r = r > cmp ? cmp : r;
                        r = r < lo ? lo : r;
                    }
                    want[(oy * o.X + ox) * o.F + f] = (int32_t)r;
                }
        Graph *gr = graph_create();
        int32_t cs[TIR_NDIMS] = {o.Y, o.X, o.F, 0, o.KY, o.KX, o.IY, o.IX};
        Block *c = st_block(gr, t, cs, "pool");
        c->has_prec = true;
        c->prec = p;
        set_window_attrs(gr, c, &o, false);
        if (t == BT_CAVG)
            c->bias_type = BIAS_VECTOR;
        else {
            blk_set_attr(gr, c, AT_CMP, cmp);
            blk_set_attr(gr, c, AT_BIT_SHIFT_NUM, shift);
        }
        Block *ops[2];
        ops[0] = st_storage(gr, BT_SI, (int32_t[TIR_NDIMS]){o.IY, o.IX, o.F}, in, nin);
        ops[1] = st_storage(gr, BT_SB, (int32_t[TIR_NDIMS]){0, 0, o.F}, b, o.F);
        char what[160];
        snprintf(what, sizeof what, "round %d %s in %dx%dx%d k %dx%d s %d,%d pad %d,%d,%d,%d "
                 "shift %d cmp %d", round, bt_info(t)->name, o.IY, o.IX, o.F, o.KY, o.KX, o.sy,
                 o.sx, o.pu, o.pd, o.pl, o.pr, shift, (int)cmp);
        check_both(gr, c, ops, t == BT_CAVG ? 2 : 1, want, nout, what);
        graph_destroy(gr);
        free(in), free(b), free(want);
    }
}

/* ---- vector-matrix and elementwise ---- */

static void test_cvm_random(void **state)
{
    (void)state;
    StRng g = {99};
    for (int round = 0; round < ROUNDS; round++) {
        int F = st_range(&g, 1, 70), R = st_range(&g, 1, 300);
        bool wide = st_range(&g, 0, 1);
        PrecisionId p = rprec(&g);
        int32_t *x = rvals(&g, R, wide), *w = rvals(&g, (int64_t)F * R, wide);
        int32_t *b = rvals(&g, F, wide), *want = malloc((size_t)F * sizeof *want);
        int64_t lo, hi;
        prec_lohi(p, &lo, &hi);
        for (int f = 0; f < F; f++) {
            uint64_t acc = (uint64_t)(int64_t)b[f];
            for (int r = 0; r < R; r++)
                acc += (uint64_t)((int64_t)w[(int64_t)f * R + r] * x[r]);
            want[f] = clampi(wrap32(acc), lo, hi);
        }
        Graph *gr = graph_create();
        Block *c = st_block(gr, BT_CVM, (int32_t[TIR_NDIMS]){0, 0, F, R}, "fc");
        c->has_prec = true;
        c->prec = p;
        c->bias_type = BIAS_VECTOR;
        Block *ops[] = {st_storage(gr, BT_SIFC, (int32_t[TIR_NDIMS]){0, 0, 0, R}, x, R),
                        st_storage(gr, BT_SWFC, (int32_t[TIR_NDIMS]){0, 0, F, R}, w,
                                   (int64_t)F * R),
                        st_storage(gr, BT_SB, (int32_t[TIR_NDIMS]){0, 0, F}, b, F)};
        check_both(gr, c, ops, 3, want, F, "CVM");
        graph_destroy(gr);
        free(x), free(w), free(b), free(want);
    }
}

static void test_elementwise_random(void **state)
{
    (void)state;
    StRng g = {4242};
    static const BlockType types[] = {BT_CADD, BT_CVVH, BT_CAX, BT_CVS};
    for (int round = 0; round < 2 * ROUNDS; round++) {
        BlockType t = types[round % 4];
        int Y = st_range(&g, 1, 5), X = st_range(&g, 1, 5), F = st_range(&g, 1, 9);
        int nv = t == BT_CADD ? st_range(&g, 1, 4) : 1;
        int64_t n = (int64_t)Y * X * F;
        PrecisionId p = rprec(&g);
        int32_t *in[4];
        for (int i = 0; i < 4; i++)
            in[i] = rvals(&g, n, true);
        int32_t *alpha = rvals(&g, F, true), *b = rvals(&g, F, true);
        int32_t ca = rval(&g, true);
        int32_t *want = malloc((size_t)n * sizeof *want);
        int64_t lo, hi;
        prec_lohi(p, &lo, &hi);
        for (int64_t i = 0; i < n; i++) {
            int f = (int)(i % F);
            uint64_t acc = (uint64_t)(int64_t)b[f];
            if (t == BT_CADD)
                for (int v = 0; v < nv; v++)
                    acc += (uint64_t)(int64_t)in[v][i];
            else if (t == BT_CVVH)
                acc += (uint64_t)((int64_t)in[0][i] * in[1][i]);
            else if (t == BT_CAX)
                acc += (uint64_t)((int64_t)in[0][i] * alpha[f]);
            else
                acc += (uint64_t)((int64_t)in[0][i] * ca);
            want[i] = clampi(wrap32(acc), lo, hi);
        }
        Graph *gr = graph_create();
        Block *c = st_block(gr, t, (int32_t[TIR_NDIMS]){Y, X, F}, "ew");
        c->has_prec = true;
        c->prec = p;
        c->bias_type = BIAS_VECTOR;
        if (t == BT_CADD)
            c->shape.n_branch = nv;
        if (t == BT_CVS)
            blk_set_attr(gr, c, AT_CONSTANT_A, ca);
        Block *ops[6];
        int k = 0;
        int nin = t == BT_CADD ? nv : t == BT_CVVH ? 2 : 1;
        for (int v = 0; v < nin; v++)
            ops[k++] = st_storage(gr, BT_SI, (int32_t[TIR_NDIMS]){Y, X, F}, in[v], n);
        if (t == BT_CAX)
            ops[k++] = st_storage(gr, BT_SB, (int32_t[TIR_NDIMS]){0, 0, F}, alpha, F);
        ops[k++] = st_storage(gr, BT_SB, (int32_t[TIR_NDIMS]){0, 0, F}, b, F);
        check_both(gr, c, ops, k, want, n, bt_info(t)->name);
        graph_destroy(gr);
        for (int i = 0; i < 4; i++)
            free(in[i]);
        free(alpha), free(b), free(want);
    }
}

/* Kernels large enough for the worker threads (the small cases above run in one thread):
 * the same results with 1 and 2 threads, and a spot check against the naive loop. */
static void test_threads_large(void **state)
{
    (void)state;
    StRng g = {31337};
    Geo o = {40, 40, 32, 16, 3, 3, 40, 40, 1, 1, 1, 1, 1, 1, 1, 1};
    int64_t nin = (int64_t)o.IY * o.IX * o.R, nw = (int64_t)o.F * o.R * 9, nout = 40 * 40 * 32;
    int32_t *in = rvals(&g, nin, true), *w = rvals(&g, nw, true);
    int32_t *want = malloc((size_t)nout * sizeof *want);
    for (int oy = 0; oy < o.Y; oy++)
        for (int ox = 0; ox < o.X; ox++)
            for (int f = 0; f < o.F; f++) {
                uint64_t acc = 0;
                for (int r = 0; r < o.R; r++)
                    for (int ky = 0; ky < 3; ky++)
                        for (int kx = 0; kx < 3; kx++) {
                            int iy = oy + ky - 1, ix = ox + kx - 1;
                            if (iy >= 0 && iy < o.IY && ix >= 0 && ix < o.IX)
                                acc += (uint64_t)((int64_t)in[(iy * o.IX + ix) * o.R + r] *
                                                  w[((f * o.R + r) * 3 + ky) * 3 + kx]);
                        }
                want[(oy * o.X + ox) * o.F + f] = wrap32(acc);
            }
    Graph *gr = graph_create();
    Block *c = st_block(gr, BT_CC, (int32_t[TIR_NDIMS]){40, 40, 32, 16, 3, 3, 40, 40}, "conv");
    c->bias_type = BIAS_CONSTANT;
    blk_set_attr(gr, c, AT_CONSTANT_B, 0);
    set_window_attrs(gr, c, &o, true);
    Block *ops[] = {st_storage(gr, BT_SIC, (int32_t[TIR_NDIMS]){40, 40, 0, 16}, in, nin),
                    st_storage(gr, BT_SW, (int32_t[TIR_NDIMS]){0, 0, 32, 16, 3, 3}, w, nw)};
    check_both(gr, c, ops, 2, want, nout, "threaded conv");
    graph_destroy(gr);
    free(in), free(w), free(want);

    int F = 1100, R = 1000;
    int32_t *x = rvals(&g, R, true), *m = rvals(&g, (int64_t)F * R, true);
    int32_t *wv = malloc((size_t)F * sizeof *wv);
    for (int f = 0; f < F; f++) {
        uint64_t acc = 0;
        for (int r = 0; r < R; r++)
            acc += (uint64_t)((int64_t)m[(int64_t)f * R + r] * x[r]);
        wv[f] = wrap32(acc);
    }
    gr = graph_create();
    c = st_block(gr, BT_CVM, (int32_t[TIR_NDIMS]){0, 0, F, R}, "fc");
    c->bias_type = BIAS_CONSTANT;
    Block *ops2[] = {st_storage(gr, BT_SIFC, (int32_t[TIR_NDIMS]){0, 0, 0, R}, x, R),
                     st_storage(gr, BT_SWFC, (int32_t[TIR_NDIMS]){0, 0, F, R}, m,
                                (int64_t)F * R)};
    check_both(gr, c, ops2, 2, wv, F, "threaded CVM");
    graph_destroy(gr);
    free(x), free(m), free(wv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_random),
        cmocka_unit_test(test_pool_random),
        cmocka_unit_test(test_cvm_random),
        cmocka_unit_test(test_elementwise_random),
        cmocka_unit_test(test_threads_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
