/* test_exec_soma_pool.c: the executor's P05 (window max from a floor) and P25 (window min to a
 * ceiling) on hand-worked words (docs/backend.md, "P05 and P25"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "somatest.h"

/* A PX5 on an niy x nix image of nif channels, window ky x kx, stride sy x sx, no padding,
 * x1 at word 0x0000 and o at word 0x4000 (lengths set by the test). */
static Taskir__Asm__PX5 px5(Taskir__Precision x1p, Taskir__Precision outp, int nif, int niy,
                            int nix, int k, int s)
{
    Taskir__Asm__PX5 p = TASKIR__ASM__PX5__INIT;
    p.x1_precision = x1p, p.out_precision = outp;
    p.nif = p.nof = nif, p.niy = niy, p.nix = nix;
    p.nky = p.nkx = k, p.stride_y = p.stride_x = s;
    p.x1_base_addr = 0x0000, p.o_base_addr = 0x4000;
    return p;
}

/* A 2x2 max pool, stride 2, int32 -> int8 with a shift of 4^2 = 16, saturating. The image is
 * 2 rows x 4 columns of 2 channels; an int32 pixel of 2 channels is padded to 4 words, so pixel
 * (y, x) starts at word (y*4 + x)*4. The output is 1 x 2 pixels of 2 int8 channels padded to 16
 * bytes: 4 words a pixel.
 *   channel 0, window 0: 100 -20 / 7 300 -> 6 -2 / 0 18 (floor of /16) -> max 18
 *   channel 0, window 1: 5000 -3 / -100000 0 -> 312 -1 / -6250 0 -> clip 127 -1 / -128 0
 *                        -> 127
 *   channel 1, window 0: -17 -33 / -16 -5000 -> -2 -3 / -1 -313 -> clip ... -128 -> -1
 *   channel 1, window 1: -4000 -2100 / -2048 -2049 -> -250 -132 / -128 -129 -> all -128
 * compare_init four times -128: no floor. Pixel 0's word 0 holds the bytes 18, -1, 0, 0:
 * 0x0000FF12; pixel 1's: 127, -128: 0x0000807F. The padding words are written 0. */
static void test_p05_max_pool_shift_narrow(void **state)
{
    (void)state;
    CoreMem *m = st_mem();
    /* [y][x][c] */
    static const int32_t img[2][4][2] = {
        {{100, -17}, {-20, -33}, {5000, -4000}, {-3, -2100}},
        {{7, -16}, {300, -5000}, {-100000, -2048}, {0, -2049}},
    };
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 4; x++)
            st_put_i32(m, (y * 4 + x) * 4, img[y][x], 2);
    st_fill(m, 0x4000, 9, 0xDEADBEEFu);
    Taskir__Asm__PX5 p = px5(P_INT32, P_INT8, 2, 2, 4, 2, 2);
    int32_t cmp[4] = {-128, -128, -128, -128};
    p.n_compare_init = 4, p.compare_init = cmp;
    p.bit_shift_num = 2;
    p.x1_addr_length = 32, p.o_addr_length = 8;
    Taskir__Asm__SomaPrim s = TASKIR__ASM__SOMA_PRIM__INIT;
    s.pic = 0x05, s.px5 = &p;
    st_run(m, &s, NULL, NULL);
    assert_int_equal(m->w[0x4000], 0x0000FF12u);
    assert_int_equal(m->w[0x4001], 0);
    assert_int_equal(m->w[0x4002], 0);
    assert_int_equal(m->w[0x4003], 0);
    assert_int_equal(m->w[0x4004], 0x0000807Fu);
    assert_int_equal(m->w[0x4007], 0);
    assert_int_equal(m->w[0x4008], 0xDEADBEEFu);   /* past the output: untouched */
    free(m);
}

/* INT_32 in, INT_32 out: the shift is not applied (the chip shifts only when it narrows).
 * One 2x2 window of 2 channels, bit_shift_num 2, compare_init one entry 0 (ReLU):
 *   channel 0: 100 -20 7 300 -> max 300 (not 300/16 = 18)
 *   channel 1: -17 -33 -16 -5000 -> max -16 -> max(0, -16) = 0 */
static void test_p05_int32_out_no_shift(void **state)
{
    (void)state;
    CoreMem *m = st_mem();
    static const int32_t px[4][2] = {{100, -17}, {-20, -33}, {7, -16}, {300, -5000}};
    for (int i = 0; i < 4; i++)
        st_put_i32(m, i * 4, px[i], 2);
    Taskir__Asm__PX5 p = px5(P_INT32, P_INT32, 2, 2, 2, 2, 2);
    int32_t cmp = 0;
    p.n_compare_init = 1, p.compare_init = &cmp;
    p.bit_shift_num = 2;
    p.x1_addr_length = 16, p.o_addr_length = 4;
    Taskir__Asm__SomaPrim s = TASKIR__ASM__SOMA_PRIM__INIT;
    s.pic = 0x05, s.px5 = &p;
    st_run(m, &s, NULL, NULL);
    assert_int_equal(m->w[0x4000], 300);
    assert_int_equal(m->w[0x4001], 0);
    free(m);
}

/* Four compare_init entries pack first-in-highest-byte, so channel f compares with entry
 * 3 - f % 4: int8 -> int8 (no shift), one pixel of 4 channels all -5, entries 1 2 3 4:
 * channel 0 max(-5, 4) = 4, channel 1: 3, channel 2: 2, channel 3: 1 -> 0x01020304. */
static void test_p05_compare_init_lanes(void **state)
{
    (void)state;
    CoreMem *m = st_mem();
    m->w[0] = 0xFBFBFBFBu;   /* four int8 -5 */
    Taskir__Asm__PX5 p = px5(P_INT8, P_INT8, 4, 1, 1, 1, 1);
    int32_t cmp[4] = {1, 2, 3, 4};
    p.n_compare_init = 4, p.compare_init = cmp;
    p.x1_addr_length = 4, p.o_addr_length = 4;
    Taskir__Asm__SomaPrim s = TASKIR__ASM__SOMA_PRIM__INIT;
    s.pic = 0x05, s.px5 = &p;
    st_run(m, &s, NULL, NULL);
    assert_int_equal(m->w[0x4000], 0x01020304u);
    free(m);
}

/* P25, the min mode, with a ceiling compare_init 3 (four entries) and a left padding of 1
 * (padding reads 0). int8 in and out, 1 row of 2 pixels, 2 channels, window 1 x 2, stride 1:
 * the padded row is [pad, p0, p1], two outputs.
 *   channel 0: p0 5, p1 -7: out 0 = min(0, 5) = 0 -> min(3, 0) = 0; out 1 = min(5, -7) = -7
 *   channel 1: p0 9, p1 8: out 0 = min(0, 9) = 0; out 1 = min(9, 8) = 8 -> min(3, 8) = 3
 * Output pixel 1 word 0 = bytes -7, 3: 0x000003F9 (BiMap's Task Rabbit would take a max). The
 * same with pic 0x25. */
static void test_p25_min_ceiling(void **state)
{
    (void)state;
    for (int form = 0; form < 2; form++) {
        CoreMem *m = st_mem();
        static const int8_t p0[2] = {5, 9}, p1[2] = {-7, 8};
        st_put_i8(m, 0, p0, 2);
        st_put_i8(m, 4, p1, 2);   /* pixels padded to 16 bytes */
        Taskir__Asm__PX5 p = px5(P_INT8, P_INT8, 2, 1, 2, 1, 1);
        p.nkx = 2, p.pad_left = 1;
        int32_t cmp[4] = {3, 3, 3, 3};
        p.n_compare_init = 4, p.compare_init = cmp;
        p.x1_addr_length = 8, p.o_addr_length = 8;
        Taskir__Asm__SomaPrim s = TASKIR__ASM__SOMA_PRIM__INIT;
        if (form == 0)
            s.pic = 0x05, p.pic_mode = 1;
        else
            s.pic = 0x25;
        s.px5 = &p;
        st_run(m, &s, NULL, NULL);
        assert_int_equal(m->w[0x4000], 0);
        assert_int_equal(m->w[0x4004], 0x000003F9u);
        free(m);
    }
}

/* UINT_8 output: the values clip to 0..255 and the compare value is an unsigned byte.
 * int32 in, k = 1: 1000 / 4 = 250; -8 / 4 = -2 -> 0; 2000 / 4 = 500 -> 255. Floor 10 (four
 * entries): max(10, 250) = 250, max(10, 0) = 10, 255. Bytes 250, 10, 255: 0x00FF0AFA. */
static void test_p05_uint8_out(void **state)
{
    (void)state;
    CoreMem *m = st_mem();
    static const int32_t v[3] = {1000, -8, 2000};
    st_put_i32(m, 0, v, 3);
    Taskir__Asm__PX5 p = px5(P_INT32, P_UINT8, 3, 1, 1, 1, 1);
    int32_t cmp[4] = {10, 10, 10, 10};
    p.n_compare_init = 4, p.compare_init = cmp;
    p.bit_shift_num = 1;
    p.x1_addr_length = 4, p.o_addr_length = 4;
    Taskir__Asm__SomaPrim s = TASKIR__ASM__SOMA_PRIM__INIT;
    s.pic = 0x05, s.px5 = &p;
    st_run(m, &s, NULL, NULL);
    assert_int_equal(m->w[0x4000], 0x00FF0AFAu);
    free(m);
}

/* An output area at 0x9000 streams to the Router: the words follow those already there.
 * One int8 pixel of 4 channels copied (1x1 window): the stream gets its 4 words. */
static void test_p05_to_router(void **state)
{
    (void)state;
    CoreMem *m = st_mem();
    m->w[0] = 0x04030201u;
    Taskir__Asm__PX5 p = px5(P_INT8, P_INT8, 4, 1, 1, 1, 1);
    int32_t cmp[4] = {-128, -128, -128, -128};
    p.n_compare_init = 4, p.compare_init = cmp;
    p.x1_addr_length = 4, p.o_base_addr = 0x9000, p.o_addr_length = 4;
    Taskir__Asm__SomaPrim s = TASKIR__ASM__SOMA_PRIM__INIT;
    s.pic = 0x05, s.px5 = &p;
    ExecStream to = {0};
    uint32_t first = 0xAAu;
    assert_int_equal(exec_stream_push(&to, &first, 1), ST_OK);
    st_run(m, &s, &to, NULL);
    assert_int_equal(to.n, 5);
    assert_int_equal(to.w[0], 0xAAu);
    assert_int_equal(to.w[1], 0x04030201u);
    assert_int_equal(to.w[2], 0);
    assert_int_equal(m->w[0x9000], 0);   /* MEM3 is not written as memory */
    exec_stream_free(&to);
    free(m);
}

/* A window wholly in the padding reads one 0: an int32 pixel -5 with pad_left 2, a 1x1
 * window, stride 1, gives 3 outputs 0, 0, -5 (floor -100: no effect), 4 words a pixel. */
static void test_p05_window_in_padding(void **state)
{
    (void)state;
    CoreMem *m = st_mem();
    m->w[0] = (uint32_t)-5;
    Taskir__Asm__PX5 p = px5(P_INT32, P_INT32, 1, 1, 1, 1, 1);
    p.pad_left = 2;
    int32_t cmp = -100;
    p.n_compare_init = 1, p.compare_init = &cmp;
    p.x1_addr_length = 4, p.o_addr_length = 12;
    st_fill(m, 0x4000, 12, 0xDEADBEEFu);
    Taskir__Asm__SomaPrim s = TASKIR__ASM__SOMA_PRIM__INIT;
    s.pic = 0x05, s.px5 = &p;
    st_run(m, &s, NULL, NULL);
    assert_int_equal(m->w[0x4000], 0);
    assert_int_equal(m->w[0x4004], 0);
    assert_int_equal((int32_t)m->w[0x4008], -5);
    assert_int_equal(m->w[0x4009], 0);
    free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_p05_max_pool_shift_narrow),
        cmocka_unit_test(test_p05_int32_out_no_shift),
        cmocka_unit_test(test_p05_compare_init_lanes),
        cmocka_unit_test(test_p25_min_ceiling),
        cmocka_unit_test(test_p05_uint8_out),
        cmocka_unit_test(test_p05_to_router),
        cmocka_unit_test(test_p05_window_in_padding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
