/* test_exec_axon_vec.c: the executor's channel-wise Axon primitives P02, P03, P43, P83
 * (backend/exec_axon_vec.c) and the vector-matrix product P04 (exec_axon_mv.c) on
 * hand-worked memory images, the expected words worked out in the comments
 * (docs/backend.md, "The executor: Axon primitives"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "axon_fixture.h"

/* P02 window sum, int8, f = 3 (padded to 32: 8 words a pixel), a 3x3 input, 2x2 window,
 * stride 2, pad_down = pad_right = 1 (not stored): oy = (3 + 1 - 2) / 2 + 1 = 2, ox = 2.
 *   channel 0: x[y][x] = 10y + x     0 1 2 / 10 11 12 / 20 21 22
 *   channel 1: -100 everywhere; channel 2: 0
 * constant bias 3.
 *   c0: (0,0) 0+1+10+11 = 22 -> 25; (0,1) columns 2..3: 2+12 = 14 -> 17;
 *       (1,0) rows 2..3: 20+21 = 41 -> 44; (1,1) 22 -> 25
 *   c1: four, two, two, one cells of -100: -397, -197, -197, -97
 *   c2 and the padded channels 3..31: 3
 * Areas: x1 9 * 8 = 72 words, output 2 * 2 * 32 = 128. */
static void test_p02_window_sum(void **state)
{
    (void)state;
    enum { X1 = 0x0200, O = 0x0400 };
    CoreMem *m = fx_mem();
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 3; x++) {
            fx_i8(m, X1, (y * 3 + x) * 32 + 0, 10 * y + x);
            fx_i8(m, X1, (y * 3 + x) * 32 + 1, -100);
        }
    Taskir__Shape s = TASKIR__SHAPE__INIT;
    s.niy = 3, s.nix = 3, s.nf = 3, s.nky = 2, s.nkx = 2, s.ny = 2, s.nx = 2;
    Taskir__Asm__P02 p = TASKIR__ASM__P02__INIT;
    p.has_avg_pooling_en = 1, p.avg_pooling_en = 1;
    p.x1_precision = TASKIR__PRECISION__INT_8;
    p.has_bias_type = 1, p.bias_type = TASKIR__BIAS_TYPE__CONSTANT, p.constant_b = 3;
    p.stride_x = p.stride_y = 2, p.pad_down = p.pad_right = 1, p.bias_length = 3;
    Taskir__Asm__AxonPrim a = fx_prim(0x02, &s);
    a.p02 = &p;
    FX_AREA(&a, x1, X1, 72);
    FX_AREA(&a, o, O, 128);
    fx_run_ok(m, &a);
    static const int32_t c0[4] = {25, 17, 44, 25}, c1[4] = {-397, -197, -197, -97};
    for (int px = 0; px < 4; px++)
        for (int c = 0; c < 32; c++)
            assert_int_equal(fx_get(m, O, px * 32 + c), c == 0 ? c0[px] : c == 1 ? c1[px] : 3);
    assert_int_equal(m->w[O + 128], 0);
    free(m);
}

/* P02 vector sum (CADD) of n = 3 int32 inputs [1][2][f = 2] (padded to 8 channels: 16 words
 * each, 48 in all, back to back), with a bias vector bias[c] = 1000c (8 words).
 *   x = 0, c0: MAX - 1, then + 5 saturates to MAX, then - 10         = INT32_MAX - 10
 *              (clipped once at the end it would be MAX - 6)
 *   x = 0, c1: 1000 + 1 + 2 + 3                                       = 1006
 *   x = 1, c0: 0 - 7 - 7 - 7                                          = -21
 *   x = 1, c1: 1000 + 100 - 200 + 50                                  = 950
 *   padded channels 2..7: their bias 1000c. */
static void test_p02_vector_sum(void **state)
{
    (void)state;
    enum { X1 = 0x6000, B = 0x6100, O = 0x6200 };
    CoreMem *m = fx_mem();
#define XI(k, x, c) (((k) * 2 + (x)) * 8 + (c))
    fx_w(m, X1, XI(0, 0, 0), INT32_MAX - 1);
    fx_w(m, X1, XI(1, 0, 0), 5);
    fx_w(m, X1, XI(2, 0, 0), -10);
    for (int k = 0; k < 3; k++) {
        fx_w(m, X1, XI(k, 0, 1), k + 1);
        fx_w(m, X1, XI(k, 1, 0), -7);
    }
    fx_w(m, X1, XI(0, 1, 1), 100);
    fx_w(m, X1, XI(1, 1, 1), -200);
    fx_w(m, X1, XI(2, 1, 1), 50);
#undef XI
    for (int c = 0; c < 8; c++)
        fx_w(m, B, c, 1000 * c);
    Taskir__Shape s = TASKIR__SHAPE__INIT;
    s.nix = 2, s.nf = 2, s.nkx = 3, s.nky = 1, s.n_branch = 3;
    Taskir__Asm__P02 p = TASKIR__ASM__P02__INIT;
    p.x1_precision = TASKIR__PRECISION__INT_32;
    p.has_bias_type = 1, p.bias_type = TASKIR__BIAS_TYPE__VECTOR;
    Taskir__Asm__AxonPrim a = fx_prim(0x02, &s);
    a.p02 = &p;
    FX_AREA(&a, x1, X1, 48);
    FX_AREA(&a, bias, B, 8);
    FX_AREA(&a, o, O, 16);
    fx_run_ok(m, &a);
    static const int32_t want[2][2] = {{INT32_MAX - 10, 1006}, {-21, 950}};
    for (int x = 0; x < 2; x++)
        for (int c = 0; c < 8; c++)
            assert_int_equal(fx_get(m, O, x * 8 + c), c < 2 ? want[x][c] : 1000 * c);
    free(m);
}

/* P03 (tensor_en), int8, one row of 3 pixels, stride_x 2: ox = (3 - 1) / 2 + 1 = 2, output
 * pixels from input pixels 0 and 2 (pixel 1 holds 99s, never read). f = 2 (fp 32).
 *   x1: px0 [100, -2], px2 [3, 4];  x2: px0 [100, 5], px2 [-7, 8]
 *   bias vector [MAX - 5000, 10, 0, ...]
 *   out px0: c0 MAX - 5000 + 10000 -> INT32_MAX; c1 10 - 10 = 0
 *   out px1: c0 MAX - 5000 - 21 = INT32_MAX - 5021; c1 10 + 32 = 42; other channels 0. */
static void test_p03_saturation(void **state)
{
    (void)state;
    enum { X1 = 0x0000, X2 = 0x0100, B = 0x0200, O = 0x0300 };
    CoreMem *m = fx_mem();
    static const int v1[3][2] = {{100, -2}, {99, 99}, {3, 4}};
    static const int v2[3][2] = {{100, 5}, {99, 99}, {-7, 8}};
    for (int px = 0; px < 3; px++)
        for (int c = 0; c < 2; c++) {
            fx_i8(m, X1, px * 32 + c, v1[px][c]);
            fx_i8(m, X2, px * 32 + c, v2[px][c]);
        }
    fx_w(m, B, 0, INT32_MAX - 5000);
    fx_w(m, B, 1, 10);
    Taskir__Shape s = TASKIR__SHAPE__INIT;
    s.niy = 1, s.nix = 3, s.nf = 2, s.nx = 2;
    Taskir__Asm__P03 p = TASKIR__ASM__P03__INIT;
    p.has_tensor_en = 1, p.tensor_en = 1, p.x1_precision = TASKIR__PRECISION__INT_8;
    p.has_bias_type = 1, p.bias_type = TASKIR__BIAS_TYPE__VECTOR, p.stride_x = 2, p.nif = 2;
    Taskir__Asm__AxonPrim a = fx_prim(0x03, &s);
    a.p03 = &p;
    FX_AREA(&a, x1, X1, 24);
    FX_AREA(&a, x2, X2, 24);
    FX_AREA(&a, bias, B, 32);
    FX_AREA(&a, o, O, 64);
    fx_run_ok(m, &a);
    assert_int_equal(fx_get(m, O, 0), INT32_MAX);
    assert_int_equal(fx_get(m, O, 1), 0);
    assert_int_equal(fx_get(m, O, 32), INT32_MAX - 5021);
    assert_int_equal(fx_get(m, O, 33), 42);
    for (int c = 2; c < 32; c++) {
        assert_int_equal(fx_get(m, O, c), 0);
        assert_int_equal(fx_get(m, O, 32 + c), 0);
    }
    free(m);
}

/* P43 without tensor_en: n_branch = 2 vectors of f = 2, uint8 x1, int8 alpha, constant
 * bias MAX - 10 (fp 32: x1 2 * 8 words, alpha 32 / 4 = 8 words).
 *   x1 = [255, 200], [1, 0];  alpha = [127, -100]
 *   [0][0] MAX - 10 + 32385 -> INT32_MAX      [0][1] MAX - 10 - 20000 = INT32_MAX - 20010
 *   [1][0] MAX - 10 + 127 -> INT32_MAX        [1][1] MAX - 10 + 0     = INT32_MAX - 10
 *   padded channels 2..31: INT32_MAX - 10. (As int8, 255 and 200 would be -1 and -56.) */
static void test_p43_uint8_saturation(void **state)
{
    (void)state;
    enum { X1 = 0x7000, X2 = 0x7100, O = 0x7200 };
    CoreMem *m = fx_mem();
    fx_i8(m, X1, 0, 255);
    fx_i8(m, X1, 1, 200);
    fx_i8(m, X1, 32 + 0, 1);
    fx_i8(m, X2, 0, 127);
    fx_i8(m, X2, 1, -100);
    Taskir__Shape s = TASKIR__SHAPE__INIT;
    s.nf = 2, s.n_branch = 2;
    Taskir__Asm__P43 p = TASKIR__ASM__P43__INIT;
    p.x1_precision = TASKIR__PRECISION__UINT_8, p.x2_precision = TASKIR__PRECISION__INT_8;
    p.has_bias_type = 1, p.bias_type = TASKIR__BIAS_TYPE__CONSTANT;
    p.has_constant_b = 1, p.constant_b = INT32_MAX - 10, p.x2_length = 32;
    Taskir__Asm__AxonPrim a = fx_prim(0x43, &s);
    a.p43 = &p;
    FX_AREA(&a, x1, X1, 16);
    FX_AREA(&a, x2, X2, 8);
    FX_AREA(&a, o, O, 64);
    fx_run_ok(m, &a);
    assert_int_equal(fx_get(m, O, 0), INT32_MAX);
    assert_int_equal(fx_get(m, O, 1), INT32_MAX - 20010);
    assert_int_equal(fx_get(m, O, 32), INT32_MAX);
    assert_int_equal(fx_get(m, O, 33), INT32_MAX - 10);
    for (int c = 2; c < 32; c++)
        assert_int_equal(fx_get(m, O, 32 + c), INT32_MAX - 10);
    free(m);
}

/* P43 with ternary x1: one pixel of f = 3, padded to 128 (8 words: 16 lanes a word), alpha
 * int8 [5, 6, 7] (128 bytes, 32 words), constant bias absent (0).
 *   x1 = [1, -1, 0]: out = [5, -6, 0], the padded channels 0. */
static void test_p43_ternary(void **state)
{
    (void)state;
    enum { X1 = 0x0010, X2 = 0x0020, O = 0x0100 };
    CoreMem *m = fx_mem();
    fx_t2(m, X1, 0, 1);
    fx_t2(m, X1, 1, -1);
    for (int c = 0; c < 3; c++)
        fx_i8(m, X2, c, 5 + c);
    Taskir__Shape s = TASKIR__SHAPE__INIT;
    s.niy = 1, s.nix = 1, s.nf = 3;
    Taskir__Asm__P43 p = TASKIR__ASM__P43__INIT;
    p.has_tensor_en = 1, p.tensor_en = 1;
    p.x1_precision = TASKIR__PRECISION__TERNARY, p.x2_precision = TASKIR__PRECISION__INT_8;
    p.has_bias_type = 1, p.bias_type = TASKIR__BIAS_TYPE__CONSTANT;
    Taskir__Asm__AxonPrim a = fx_prim(0x43, &s);
    a.p43 = &p;
    FX_AREA(&a, x1, X1, 8);
    FX_AREA(&a, x2, X2, 32);
    FX_AREA(&a, o, O, 128);
    fx_run_ok(m, &a);
    assert_int_equal(fx_get(m, O, 0), 5);
    assert_int_equal(fx_get(m, O, 1), -6);
    for (int c = 2; c < 128; c++)
        assert_int_equal(fx_get(m, O, c), 0);
    free(m);
}

/* P83, int8, two rows of one pixel, f = 3, constant_a = 30000000, bias vector [0, 0, 5, ..]:
 * the product is taken in 64 bits, then clipped once.
 *   row 0: x1 = [100, -100, 7]: 3e9 -> INT32_MAX; -3e9 -> INT32_MIN; 210000000 + 5
 *   row 1: x1 = [1, 0, -1]: 30000000; 0; -30000000 + 5 = -29999995 */
static void test_p83_saturation(void **state)
{
    (void)state;
    enum { X1 = 0x1000, B = 0x1100, O = 0x1200 };
    CoreMem *m = fx_mem();
    static const int v[2][3] = {{100, -100, 7}, {1, 0, -1}};
    for (int y = 0; y < 2; y++)
        for (int c = 0; c < 3; c++)
            fx_i8(m, X1, y * 32 + c, v[y][c]);
    fx_w(m, B, 2, 5);
    Taskir__Shape s = TASKIR__SHAPE__INIT;
    s.niy = 2, s.nix = 1, s.nf = 3, s.ny = 2;
    Taskir__Asm__P83 p = TASKIR__ASM__P83__INIT;
    p.has_tensor_en = 1, p.tensor_en = 1, p.x1_precision = TASKIR__PRECISION__INT_8;
    p.has_bias_type = 1, p.bias_type = TASKIR__BIAS_TYPE__VECTOR;
    p.has_constant_a = 1, p.constant_a = 30000000, p.bias_length = 32;
    Taskir__Asm__AxonPrim a = fx_prim(0x83, &s);
    a.p83 = &p;
    FX_AREA(&a, x1, X1, 16);
    FX_AREA(&a, bias, B, 32);
    FX_AREA(&a, o, O, 64);
    fx_run_ok(m, &a);
    static const int32_t want[2][3] = {{INT32_MAX, INT32_MIN, 210000005},
                                       {30000000, 0, -29999995}};
    for (int y = 0; y < 2; y++)
        for (int c = 0; c < 32; c++)
            assert_int_equal(fx_get(m, O, y * 32 + c), c < 3 ? want[y][c] : 0);
    free(m);
}

/* P83, int32, two pixels, f = 3 in one 32-byte group of 8 int32 channels (its padding lanes
 * 3..7 hold 9 and are computed like the others), constant_a = -1, constant bias 2: the
 * product in 64 bits, clipped once.
 *   pixel 0: x1 = [5, INT32_MIN, 100]:  -3; 2^31 + 2 -> INT32_MAX; -98
 *   pixel 1: x1 = [-7, INT32_MAX, 0]:   9; -2147483645; 2
 *   lanes 3..7: -9 + 2 = -7 */
static void test_p83_int32(void **state)
{
    (void)state;
    enum { X1 = 0x1000, O = 0x1200 };
    CoreMem *m = fx_mem();
    static const int32_t v[2][3] = {{5, INT32_MIN, 100}, {-7, INT32_MAX, 0}};
    static const int32_t want[2][3] = {{-3, INT32_MAX, -98}, {9, -2147483645, 2}};
    for (int y = 0; y < 2; y++)
        for (int c = 0; c < 8; c++)
            fx_w(m, X1, y * 8 + c, c < 3 ? v[y][c] : 9);
    Taskir__Shape s = TASKIR__SHAPE__INIT;
    s.niy = 1, s.nix = 2, s.nf = 3;
    Taskir__Asm__P83 p = TASKIR__ASM__P83__INIT;
    p.has_tensor_en = 1, p.tensor_en = 1, p.x1_precision = TASKIR__PRECISION__INT_32;
    p.has_bias_type = 1, p.bias_type = TASKIR__BIAS_TYPE__CONSTANT;
    p.has_constant_a = 1, p.constant_a = -1, p.has_constant_b = 1, p.constant_b = 2;
    Taskir__Asm__AxonPrim a = fx_prim(0x83, &s);
    a.p83 = &p;
    FX_AREA(&a, x1, X1, 16);
    FX_AREA(&a, o, O, 16);
    fx_run_ok(m, &a);
    for (int y = 0; y < 2; y++)
        for (int c = 0; c < 8; c++)
            assert_int_equal(fx_get(m, O, y * 8 + c), c < 3 ? want[y][c] : -7);
    free(m);
}

/* P04, int8, r = 20 (padded to 32: 8 words; lanes 20..31 hold 77, never read), f = 3 (one
 * group of 32: weights [1][20][32] = 160 words), constant bias 7.
 *   x[j] = j - 10 (-10 .. 9)
 *   c0: w[j] = 1 for all j: sum of -10..9 = -10          -> -3
 *   c1: w[19] = 2: 2 * 9 = 18                             -> 25
 *   c2: w[0] = -128: -128 * -10 = 1280                    -> 1287
 *   c3..31: 7
 * The 96 words after the weights hold int8 ones: a product that ran past r = 20 rows
 * would read them. */
static void test_p04_padding16(void **state)
{
    (void)state;
    enum { X1 = 0x0040, W = 0x4400, O = 0x0080 };
    CoreMem *m = fx_mem();
    for (int j = 0; j < 32; j++)
        fx_i8(m, X1, j, j < 20 ? j - 10 : 77);
    for (int j = 0; j < 20; j++)
        fx_i8(m, W, j * 32 + 0, 1);
    fx_i8(m, W, 19 * 32 + 1, 2);
    fx_i8(m, W, 0 * 32 + 2, -128);
    for (int i = 160; i < 256; i++)
        fx_w(m, W, i, 0x01010101);
    Taskir__Shape s = TASKIR__SHAPE__INIT;
    s.nr = 20, s.nf = 3;
    Taskir__Asm__P04 p = TASKIR__ASM__P04__INIT;
    p.x1_precision = TASKIR__PRECISION__INT_8, p.x2_precision = TASKIR__PRECISION__INT_8;
    p.has_bias_type = 1, p.bias_type = TASKIR__BIAS_TYPE__CONSTANT;
    p.has_constant_b = 1, p.constant_b = 7;
    Taskir__Asm__AxonPrim a = fx_prim(0x04, &s);
    a.p04 = &p;
    FX_AREA(&a, x1, X1, 8);
    FX_AREA(&a, x2, W, 160);
    FX_AREA(&a, o, O, 32);
    fx_run_ok(m, &a);
    assert_int_equal(fx_get(m, O, 0), -3);
    assert_int_equal(fx_get(m, O, 1), 25);
    assert_int_equal(fx_get(m, O, 2), 1287);
    for (int c = 3; c < 32; c++)
        assert_int_equal(fx_get(m, O, c), 7);
    free(m);
}

/* P04, ternary input and weights: r = 3 (padded to 64: 4 words), f = 2 in one group of 128
 * lanes (weights [1][3][128]: 24 words), bias vector of 128 words.
 *   x = [1, -1, 1]
 *   c0: w = [-1, -1, 1], bias INT32_MIN: - 1 -> MIN (saturates); + 1 -> MIN + 1; + 1
 *       -> INT32_MIN + 2 (clipped once at the end: MIN + 1)
 *   c1: w = [0, 1, 1], bias 50: 0 - 1 + 1 -> 50
 *   c2..127: 0 */
static void test_p04_ternary(void **state)
{
    (void)state;
    enum { X1 = 0x0000, W = 0x0010, B = 0x0100, O = 0x0200 };
    CoreMem *m = fx_mem();
    fx_t2(m, X1, 0, 1);
    fx_t2(m, X1, 1, -1);
    fx_t2(m, X1, 2, 1);
    static const int w0[3] = {-1, -1, 1}, w1[3] = {0, 1, 1};
    for (int j = 0; j < 3; j++) {
        fx_t2(m, W, j * 128 + 0, w0[j]);
        fx_t2(m, W, j * 128 + 1, w1[j]);
    }
    fx_w(m, B, 0, INT32_MIN);
    fx_w(m, B, 1, 50);
    Taskir__Shape s = TASKIR__SHAPE__INIT;
    s.nr = 3, s.nf = 2;
    Taskir__Asm__P04 p = TASKIR__ASM__P04__INIT;
    p.x1_precision = TASKIR__PRECISION__TERNARY, p.x2_precision = TASKIR__PRECISION__TERNARY;
    Taskir__Asm__AxonPrim a = fx_prim(0x04, &s);
    a.p04 = &p;   /* bias_type absent: VECTOR */
    FX_AREA(&a, x1, X1, 4);
    FX_AREA(&a, x2, W, 24);
    FX_AREA(&a, bias, B, 128);
    FX_AREA(&a, o, O, 128);
    fx_run_ok(m, &a);
    assert_int_equal(fx_get(m, O, 0), INT32_MIN + 2);
    assert_int_equal(fx_get(m, O, 1), 50);
    for (int c = 2; c < 128; c++)
        assert_int_equal(fx_get(m, O, c), 0);
    free(m);
}

/* The output may overlap an operand: the primitive reads everything first. P83 in place:
 * x1 = [2, -3] at word 0x10 (int8), constant_a 4, constant bias 1; the output [32] int32
 * from 0x10 over it: [9, -11, 1, 1, ...]. */
static void test_in_place(void **state)
{
    (void)state;
    CoreMem *m = fx_mem();
    fx_i8(m, 0x10, 0, 2);
    fx_i8(m, 0x10, 1, -3);
    Taskir__Shape s = TASKIR__SHAPE__INIT;
    s.nf = 2;
    Taskir__Asm__P83 p = TASKIR__ASM__P83__INIT;
    p.x1_precision = TASKIR__PRECISION__INT_8, p.constant_a = 4;
    p.has_bias_type = 1, p.bias_type = TASKIR__BIAS_TYPE__CONSTANT, p.constant_b = 1;
    Taskir__Asm__AxonPrim a = fx_prim(0x83, &s);
    a.p83 = &p;
    FX_AREA(&a, x1, 0x10, 8);
    FX_AREA(&a, o, 0x10, 32);
    fx_run_ok(m, &a);
    assert_int_equal(fx_get(m, 0x10, 0), 9);
    assert_int_equal(fx_get(m, 0x10, 1), -11);
    for (int c = 2; c < 32; c++)
        assert_int_equal(fx_get(m, 0x10, c), 1);
    free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_p02_window_sum),
        cmocka_unit_test(test_p02_vector_sum),
        cmocka_unit_test(test_p03_saturation),
        cmocka_unit_test(test_p43_uint8_saturation),
        cmocka_unit_test(test_p43_ternary),
        cmocka_unit_test(test_p83_saturation),
        cmocka_unit_test(test_p83_int32),
        cmocka_unit_test(test_p04_padding16),
        cmocka_unit_test(test_p04_ternary),
        cmocka_unit_test(test_in_place),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
