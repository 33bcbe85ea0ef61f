/* test_exec_axon_conv.c: the executor's convolutions P41 and P81 (backend/exec_axon_conv.c)
 * on hand-worked memory images, the expected words worked out in the comments
 * (docs/backend.md, "The executor: Axon primitives"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "axon_fixture.h"

/* P41, int8: a 3x3 input of r = 3 channels (padded to 16 a pixel), f = 40 output channels
 * (two groups of 32: fp = 64), a 3x3 kernel, stride 2, pad 1 on every side (not stored).
 * oy = (3 + 1 + 1 - 3) / 2 + 1 = 2, ox = 2; output pixel (y, x) centres on input (2y, 2x).
 *
 * Input x[y][x][j]: j0 = 10y + x + 1, j1 = 3y + x, j2 = -(y + 1); lanes 3..15 hold 99 (never
 * read). Rows and columns -1 and 3 are padding (0).
 *     j1:  0 1 2 / 3 4 5 / 6 7 8
 * Weights (all others 0):
 *   c = 0  (group 0 lane 0): w[a=1][b=1][j0] = 1 -> the centre of channel 0
 *   c = 33 (group 1 lane 1): w[0][0][j2] = 2, w[2][2][j1] = -3
 *   c = 39 (group 1 lane 7): w[a][b][j1] = 1 for every a, b -> the window sum of channel 1
 * Bias (vector, 64 words): bias[c] = 1000 + c.
 *
 *   c = 0:  1000 + {1, 3, 21, 23}                         = 1001 1003 1021 1023
 *   c = 33: (0,0): 2*pad - 3*x[1][1][1]=4  -> 1033 - 12   = 1021
 *           (0,1): x[-1][1] pad, x[1][3] pad              = 1033
 *           (1,0): x[1][-1] pad, x[3][1] pad              = 1033
 *           (1,1): 2*x[1][1][2]=-2 -> -4, x[3][3] pad     = 1029
 *   c = 39: (0,0) rows 0..1 cols 0..1: 0+1+3+4 = 8        = 1047
 *           (0,1) rows 0..1 cols 1..2: 1+2+4+5 = 12       = 1051
 *           (1,0) rows 1..2 cols 0..1: 3+4+6+7 = 20       = 1059
 *           (1,1) rows 1..2 cols 1..2: 4+5+7+8 = 24       = 1063
 *   every other channel, the padded ones 40..63 too: its bias 1000 + c.
 * Areas: x1 3*3*16/4 = 36 words, x2 2*3*3*3*8 = 432, bias 64, output 2*2*64 = 256. */
static void test_p41_channel_padding(void **state)
{
    (void)state;
    enum { X1 = 0x0100, W = 0x4000, B = 0x2000, O = 0x3000 };
    CoreMem *m = fx_mem();
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 3; x++) {
            int px = (y * 3 + x) * 16;
            fx_i8(m, X1, px + 0, 10 * y + x + 1);
            fx_i8(m, X1, px + 1, 3 * y + x);
            fx_i8(m, X1, px + 2, -(y + 1));
            for (int j = 3; j < 16; j++)
                fx_i8(m, X1, px + j, 99);
        }
#define WI(g, a, b, j, lane) (((((g) * 3 + (a)) * 3 + (b)) * 3 + (j)) * 32 + (lane))
    fx_i8(m, W, WI(0, 1, 1, 0, 0), 1);
    fx_i8(m, W, WI(1, 0, 0, 2, 1), 2);
    fx_i8(m, W, WI(1, 2, 2, 1, 1), -3);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            fx_i8(m, W, WI(1, a, b, 1, 7), 1);
#undef WI
    for (int c = 0; c < 64; c++)
        fx_w(m, B, c, 1000 + c);
    fx_w(m, O + 256, 0, (int32_t)0xDEADBEEF);   /* the word after the output */

    Taskir__Shape s = TASKIR__SHAPE__INIT;
    s.niy = 3, s.nix = 3, s.nr = 3, s.nf = 40, s.nky = 3, s.nkx = 3, s.ny = 2, s.nx = 2;
    Taskir__Asm__P41 p = TASKIR__ASM__P41__INIT;
    p.x1_precision = TASKIR__PRECISION__INT_8, p.x2_precision = TASKIR__PRECISION__INT_8;
    p.bias_type = TASKIR__BIAS_TYPE__VECTOR;
    p.stride_x = p.stride_y = 2;
    p.has_has_pad = 1, p.has_pad = 1;
    p.pad_top = p.pad_down = p.pad_left = p.pad_right = 1;
    Taskir__Asm__AxonPrim a = fx_prim(0x41, &s);
    a.p41 = &p;
    FX_AREA(&a, x1, X1, 36);
    FX_AREA(&a, x2, W, 432);
    FX_AREA(&a, bias, B, 64);
    FX_AREA(&a, o, O, 256);
    fx_run_ok(m, &a);

    static const int32_t c0[4] = {1001, 1003, 1021, 1023};
    static const int32_t c33[4] = {1021, 1033, 1033, 1029};
    static const int32_t c39[4] = {1047, 1051, 1059, 1063};
    for (int px = 0; px < 4; px++)
        for (int c = 0; c < 64; c++) {
            int32_t want = c == 0 ? c0[px] : c == 33 ? c33[px] : c == 39 ? c39[px] : 1000 + c;
            assert_int_equal(fx_get(m, O, px * 64 + c), want);
        }
    assert_int_equal(m->w[O + 256], 0xDEADBEEFu);
    assert_int_equal(m->w[O - 1], 0);
    free(m);
}

/* P41, uint8 input, ternary weights, 1x1 kernel, r = 2, one pixel: the sum saturates after
 * every multiply-accumulate, channel 0 first.
 *   x = 200, 255 (uint8: one pixel of 16 lanes, 4 words)
 *   lane 0: w = +1, -1; bias INT32_MAX - 100:
 *           MAX - 100 + 200 -> saturates to MAX; MAX - 255        = INT32_MAX - 255
 *           (one sum of all three, clipped once, would give MAX - 155)
 *   lane 1: w = -1, +1; bias INT32_MIN + 10:
 *           MIN + 10 - 200 -> MIN; MIN + 255                      = INT32_MIN + 255
 *   lanes 2..31: bias 0, weights 0                                = 0
 * Ternary weights [1][1][1][2][32]: element j * 32 + lane, 16 a word: 4 words. */
static void test_p41_saturation_ternary(void **state)
{
    (void)state;
    enum { X1 = 0x10, W = 0x4100, B = 0x20, O = 0x100 };
    CoreMem *m = fx_mem();
    fx_i8(m, X1, 0, 200);
    fx_i8(m, X1, 1, 255);
    fx_t2(m, W, 0 * 32 + 0, 1);
    fx_t2(m, W, 1 * 32 + 0, -1);
    fx_t2(m, W, 0 * 32 + 1, -1);
    fx_t2(m, W, 1 * 32 + 1, 1);
    fx_w(m, B, 0, INT32_MAX - 100);
    fx_w(m, B, 1, INT32_MIN + 10);

    Taskir__Shape s = TASKIR__SHAPE__INIT;
    s.niy = 1, s.nix = 1, s.nr = 2, s.nf = 2;
    Taskir__Asm__P41 p = TASKIR__ASM__P41__INIT;
    p.x1_precision = TASKIR__PRECISION__UINT_8, p.x2_precision = TASKIR__PRECISION__TERNARY;
    p.has_bias_type = 1, p.bias_type = TASKIR__BIAS_TYPE__VECTOR;
    Taskir__Asm__AxonPrim a = fx_prim(0x41, &s);
    a.p41 = &p;
    FX_AREA(&a, x1, X1, 4);
    FX_AREA(&a, x2, W, 4);
    FX_AREA(&a, bias, B, 32);
    FX_AREA(&a, o, O, 32);
    fx_run_ok(m, &a);
    assert_int_equal(fx_get(m, O, 0), INT32_MAX - 255);
    assert_int_equal(fx_get(m, O, 1), INT32_MIN + 255);
    for (int c = 2; c < 32; c++)
        assert_int_equal(fx_get(m, O, c), 0);
    free(m);
}

/* P41 with axon_delay: the Axon only waits; nothing is read or written, so no area or shape
 * is needed. A negative delay_clock is refused. */
static void test_p41_delay(void **state)
{
    (void)state;
    CoreMem *m = fx_mem();
    Taskir__Asm__P41 p = TASKIR__ASM__P41__INIT;
    p.has_axon_delay = 1, p.axon_delay = 1, p.has_delay_clock = 1, p.delay_clock = 500;
    Taskir__Asm__AxonPrim a = fx_prim(0x41, NULL);
    a.p41 = &p;
    fx_run_ok(m, &a);
    for (size_t i = 0; i < ASM_CORE_WORDS; i++)
        assert_int_equal(m->w[i], 0);
    p.delay_clock = -1;
    fx_run_refused(m, &a, "prog.prim.p41", "delay_clock is -1");
    free(m);
}

/* P81, int8 input with its padding stored, ternary weights. r = 2 channels of 2x3, pad 1 on
 * every side: the stored image is [2][py = 4][pxw = 16] (px = 5 padded to 16), 32 words.
 * A 3x3 kernel, stride 1: oy = (4 - 3) + 1 = 2, ox = (5 - 3) + 1 = 3.
 *   channel 0 stored:   5 0 0 0 0      (the 5 is a value in the padding: it is read)
 *                       0 1 2 3 0
 *                       0 4 5 6 0
 *                       0 0 0 0 0      columns 5..15 of every row hold 50 (never read)
 *   channel 1 stored:   0 0 0 0 0 / 0 -1 -2 -3 0 / 0 -4 -5 -6 0 / 0 0 0 0 0
 * Weights [1][2][3][3][32] ternary (element ((j*3 + a)*3 + b)*32 + lane, 36 words):
 *   c = 0: w[j0][a][b] = 1 for every a, b (the window sum of channel 0)
 *   c = 1: w[j1][1][1] = 1 (the centre of channel 1)
 * Bias vector: bias[0] = 100, bias[1] = 1, the rest 0.
 *   c = 0: (0,0) 5+0+0+0+1+2+0+4+5 = 17 -> 117; (0,1) 1+2+3+4+5+6 = 21 -> 121;
 *          (0,2) 2+3+0+5+6+0 = 16 -> 116;     (1,0) 1+2+4+5 = 12 -> 112;
 *          (1,1) 21 -> 121;                   (1,2) 16 -> 116
 *   c = 1: centre (y+1, x+1) of channel 1, plus 1: 0 -1 -2 / -3 -4 -5
 * Output [2][3][32]: 192 words. */
static void test_p81_stored_padding(void **state)
{
    (void)state;
    enum { X1 = 0x0400, W = 0x5000, B = 0x0300, O = 0x0800 };
    static const int ch0[4][5] = {{5, 0, 0, 0, 0}, {0, 1, 2, 3, 0}, {0, 4, 5, 6, 0},
                                  {0, 0, 0, 0, 0}};
    static const int ch1[4][5] = {{0, 0, 0, 0, 0}, {0, -1, -2, -3, 0}, {0, -4, -5, -6, 0},
                                  {0, 0, 0, 0, 0}};
    CoreMem *m = fx_mem();
    for (int row = 0; row < 4; row++)
        for (int col = 0; col < 16; col++) {
            fx_i8(m, X1, (0 * 4 + row) * 16 + col, col < 5 ? ch0[row][col] : 50);
            fx_i8(m, X1, (1 * 4 + row) * 16 + col, col < 5 ? ch1[row][col] : 50);
        }
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            fx_t2(m, W, ((0 * 3 + a) * 3 + b) * 32 + 0, 1);
    fx_t2(m, W, ((1 * 3 + 1) * 3 + 1) * 32 + 1, 1);
    fx_w(m, B, 0, 100);
    fx_w(m, B, 1, 1);

    Taskir__Shape s = TASKIR__SHAPE__INIT;
    s.niy = 2, s.nix = 3, s.nr = 2, s.nf = 2, s.nky = 3, s.nkx = 3;
    Taskir__Asm__P81 p = TASKIR__ASM__P81__INIT;
    p.x1_precision = TASKIR__PRECISION__INT_8, p.x2_precision = TASKIR__PRECISION__TERNARY;
    p.has_bias_type = 1, p.bias_type = TASKIR__BIAS_TYPE__VECTOR;
    p.has_pad = 1, p.pad_top = p.pad_down = p.pad_left = p.pad_right = 1;
    p.stride_x = p.stride_y = 1;
    Taskir__Asm__AxonPrim a = fx_prim(0x81, &s);
    a.p81 = &p;
    FX_AREA(&a, x1, X1, 32);
    FX_AREA(&a, x2, W, 36);
    FX_AREA(&a, bias, B, 32);
    FX_AREA(&a, o, O, 192);
    fx_run_ok(m, &a);
    static const int32_t c0[6] = {117, 121, 116, 112, 121, 116};
    static const int32_t c1[6] = {0, -1, -2, -3, -4, -5};
    for (int px = 0; px < 6; px++) {
        assert_int_equal(fx_get(m, O, px * 32 + 0), c0[px]);
        assert_int_equal(fx_get(m, O, px * 32 + 1), c1[px]);
        for (int c = 2; c < 32; c++)
            assert_int_equal(fx_get(m, O, px * 32 + c), 0);
    }
    assert_int_equal(m->w[O + 192], 0);
    free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_p41_channel_padding),
        cmocka_unit_test(test_p41_saturation_ternary),
        cmocka_unit_test(test_p41_delay),
        cmocka_unit_test(test_p81_stored_padding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
