/* test_exec_axon_ref.c: the executor's convolutions and vector-matrix product against a plain
 * reference written here from the formulas of docs/backend.md ("The executor: Axon
 * primitives"): random shapes, strides, dilations, pads and precisions, random data packed by
 * this file into the documented layouts, biases near the int32 limits now and then (so that
 * both the saturating and the unchecked paths of the executor run). The reference keeps the
 * logical arrays (input [y][x][r] without padding, weights [f][ky][kx][r]) and clips after
 * every multiply-accumulate in the documented order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "axon_fixture.h"

static uint64_t rng = 0x2545F4914F6CDD1Du;

static int32_t draw(int32_t lo, int32_t hi)   /* lo .. hi */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return lo + (int32_t)(rng % (uint64_t)((int64_t)hi - lo + 1));
}

static int32_t clip_add(int32_t acc, int64_t p)
{
    int64_t v = acc + p;
    return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

/* A value of IR precision prec, and its writing as element i of an area. */
static int32_t value_of(int prec)
{
    return prec == TASKIR__PRECISION__TERNARY ? draw(-1, 1)
           : prec == TASKIR__PRECISION__UINT_8 ? draw(0, 255) : draw(-128, 127);
}

static void put(CoreMem *m, int64_t base, int64_t i, int prec, int32_t v)
{
    if (prec == TASKIR__PRECISION__TERNARY)
        fx_t2(m, base, i, v);
    else
        fx_i8(m, base, i, v);
}

static int32_t bias_value(void)
{
    int k = draw(0, 9);
    return k == 0 ? INT32_MAX - draw(0, 3000) : k == 1 ? INT32_MIN + draw(0, 3000)
                                                       : draw(-5000, 5000);
}

/* One random P41 (p81 false) or P81 against the reference. */
static void conv_case(bool p81)
{
    static const int precs[] = {TASKIR__PRECISION__INT_8, TASKIR__PRECISION__UINT_8,
                                TASKIR__PRECISION__TERNARY};
    int px1 = precs[draw(0, p81 ? 1 : 2)], pw = precs[draw(0, 2)];
    int iy = draw(1, 6), ix = draw(1, 7), r = draw(1, p81 ? 4 : 20), f = draw(1, 40);
    int ky = draw(1, 3), kx = draw(1, 3), sy = draw(1, 2), sx = draw(1, 3);
    int dy = draw(1, 2), dx = draw(1, 2), pt = draw(0, 2), pd = draw(0, 2), pl = draw(0, 2),
        pr = draw(0, 1);
    int oy = (iy + pt + pd - ((ky - 1) * dy + 1)), ox = (ix + pl + pr - ((kx - 1) * dx + 1));
    if (oy < 0 || ox < 0)
        return;   /* the window does not fit: refusals are test_exec_axon_err's */
    oy = oy / sy + 1, ox = ox / sx + 1;
    int g = (f + 31) / 32, fp = g * 32;
    int32_t *in = malloc(sizeof *in * (size_t)(iy * ix * r));
    int32_t *w = malloc(sizeof *w * (size_t)(f * ky * kx * r));
    int32_t *b = malloc(sizeof *b * (size_t)fp);
    assert_true(in && w && b);
    for (int i = 0; i < iy * ix * r; i++)
        in[i] = value_of(px1);
    for (int i = 0; i < f * ky * kx * r; i++)
        w[i] = value_of(pw);
    for (int c = 0; c < fp; c++)
        b[c] = c < f ? bias_value() : 0;

    /* The layouts of docs/backend.md. */
    enum { X1 = 0x0000, W = 0x4000, B = 0x3000, O = 0x6000 };
    CoreMem *m = fx_mem();
    int64_t x_words;
    int64_t w_words = (int64_t)g * ky * kx * r * (pw == TASKIR__PRECISION__TERNARY ? 2 : 8);
    int py = iy + pt + pd, pxw = (ix + pl + pr + 15) / 16 * 16;
    int rp = px1 == TASKIR__PRECISION__TERNARY ? (r + 63) / 64 * 64 : (r + 15) / 16 * 16;
    for (int y = 0; y < iy; y++)
        for (int x = 0; x < ix; x++)
            for (int j = 0; j < r; j++) {
                int32_t v = in[(y * ix + x) * r + j];
                if (p81)
                    put(m, X1, ((int64_t)j * py + y + pt) * pxw + x + pl, px1, v);
                else
                    put(m, X1, ((int64_t)y * ix + x) * rp + j, px1, v);
            }
    x_words = p81 ? (int64_t)r * py * pxw / 4
                  : (int64_t)iy * ix * rp / (px1 == TASKIR__PRECISION__TERNARY ? 16 : 4);
    for (int c = 0; c < f; c++)
        for (int a = 0; a < ky; a++)
            for (int e = 0; e < kx; e++)
                for (int j = 0; j < r; j++) {
                    int64_t i = p81 ? ((((int64_t)(c / 32) * r + j) * ky + a) * kx + e) * 32
                                    : ((((int64_t)(c / 32) * ky + a) * kx + e) * r + j) * 32;
                    put(m, W, i + c % 32, pw, w[((c * ky + a) * kx + e) * r + j]);
                }
    for (int c = 0; c < fp; c++)
        fx_w(m, B, c, b[c]);

    Taskir__Shape s = TASKIR__SHAPE__INIT;
    s.niy = iy, s.nix = ix, s.nr = r, s.nf = f, s.nky = ky, s.nkx = kx, s.ny = oy, s.nx = ox;
    Taskir__Asm__P41 p4 = TASKIR__ASM__P41__INIT;
    Taskir__Asm__P81 p8 = TASKIR__ASM__P81__INIT;
    p4.x1_precision = p8.x1_precision = px1, p4.x2_precision = p8.x2_precision = pw;
    p4.stride_y = p8.stride_y = sy, p4.stride_x = p8.stride_x = sx;
    p4.dilate_y = p8.dilate_y = dy, p4.dilate_x = p8.dilate_x = dx;
    p4.pad_top = p8.pad_top = pt, p4.pad_down = p8.pad_down = pd;
    p4.pad_left = p8.pad_left = pl, p4.pad_right = p8.pad_right = pr;
    Taskir__Asm__AxonPrim ap = fx_prim(p81 ? 0x81 : 0x41, &s);
    if (p81)
        ap.p81 = &p8;
    else
        ap.p41 = &p4;
    FX_AREA(&ap, x1, X1, (int32_t)x_words);
    FX_AREA(&ap, x2, W, (int32_t)w_words);
    FX_AREA(&ap, bias, B, fp);
    FX_AREA(&ap, o, O, oy * ox * fp);
    fx_run_ok(m, &ap);

    for (int y = 0; y < oy; y++)
        for (int x = 0; x < ox; x++)
            for (int c = 0; c < fp; c++) {
                int32_t acc = b[c];
                for (int j = 0; j < r && c < f; j++)
                    for (int a = 0; a < ky; a++)
                        for (int e = 0; e < kx; e++) {
                            int yy = y * sy + a * dy - pt, xx = x * sx + e * dx - pl;
                            if (yy < 0 || yy >= iy || xx < 0 || xx >= ix)
                                continue;
                            acc = clip_add(acc, (int64_t)in[(yy * ix + xx) * r + j] *
                                                    w[((c * ky + a) * kx + e) * r + j]);
                        }
                assert_int_equal(fx_get(m, O, ((int64_t)y * ox + x) * fp + c), acc);
            }
    free(in);
    free(w);
    free(b);
    free(m);
}

static void test_p41_p81_reference(void **state)
{
    (void)state;
    for (int k = 0; k < 300; k++)
        conv_case(k % 2 == 1);
}

/* One random P04 against the reference. */
static void mv_case(void)
{
    static const int precs[] = {TASKIR__PRECISION__INT_8, TASKIR__PRECISION__UINT_8,
                                TASKIR__PRECISION__TERNARY};
    int px1 = precs[draw(0, 2)], pw = precs[draw(0, 2)];
    int r = draw(1, 150), f = draw(1, 200);
    int lanes = pw == TASKIR__PRECISION__TERNARY ? 128 : 32, g = (f + lanes - 1) / lanes;
    int fp = g * lanes;
    int rp = px1 == TASKIR__PRECISION__TERNARY ? (r + 63) / 64 * 64 : (r + 15) / 16 * 16;
    int32_t x[150], *w = malloc(sizeof *w * (size_t)(r * f)), b[256];
    assert_non_null(w);
    enum { X1 = 0x0000, W = 0x4000, B = 0x0100, O = 0x0200 };
    CoreMem *m = fx_mem();
    for (int j = 0; j < r; j++)
        put(m, X1, j, px1, x[j] = value_of(px1));
    for (int j = 0; j < r; j++)
        for (int c = 0; c < f; c++)
            put(m, W, ((int64_t)(c / lanes) * r + j) * lanes + c % lanes, pw,
                w[j * f + c] = value_of(pw));
    for (int c = 0; c < fp; c++)
        fx_w(m, B, c, b[c] = c < f ? bias_value() : 0);
    Taskir__Shape s = TASKIR__SHAPE__INIT;
    s.nr = r, s.nf = f;
    Taskir__Asm__P04 p = TASKIR__ASM__P04__INIT;
    p.x1_precision = px1, p.x2_precision = pw;
    Taskir__Asm__AxonPrim a = fx_prim(0x04, &s);
    a.p04 = &p;
    FX_AREA(&a, x1, X1, rp / (px1 == TASKIR__PRECISION__TERNARY ? 16 : 4));
    FX_AREA(&a, x2, W, g * r * 8);
    FX_AREA(&a, bias, B, fp);
    FX_AREA(&a, o, O, fp);
    fx_run_ok(m, &a);
    for (int c = 0; c < fp; c++) {
        int32_t acc = b[c];
        for (int j = 0; j < r && c < f; j++)
            acc = clip_add(acc, (int64_t)x[j] * w[j * f + c]);
        assert_int_equal(fx_get(m, O, c), acc);
    }
    free(w);
    free(m);
}

static void test_p04_reference(void **state)
{
    (void)state;
    for (int k = 0; k < 300; k++)
        mv_case();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_p41_p81_reference),
        cmocka_unit_test(test_p04_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
