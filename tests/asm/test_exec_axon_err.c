/* test_exec_axon_err.c: every refusal of the executor's Axon primitives (docs/rules.md,
 * "Program executor rules: Axon primitives"): each case breaks one parameter, shape dim or
 * area of a valid primitive and expects one logic error with the primitive's rule, a message
 * naming the parameter and its value, and the core's memory unchanged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "axon_fixture.h"

/* A valid P41 (the 3x3, r = 3, f = 40, stride 2, pad 1 convolution of test_exec_axon_conv.c:
 * x1 36 words, x2 432, bias 64, output 256). */
typedef struct P41Case {
    Taskir__Shape s;
    Taskir__Asm__P41 p;
    Taskir__Asm__AxonPrim a;
} P41Case;

static void p41_case(P41Case *k)
{
    k->s = (Taskir__Shape)TASKIR__SHAPE__INIT;
    k->s.niy = 3, k->s.nix = 3, k->s.nr = 3, k->s.nf = 40, k->s.nky = 3, k->s.nkx = 3;
    k->s.ny = 2, k->s.nx = 2;
    k->p = (Taskir__Asm__P41)TASKIR__ASM__P41__INIT;
    k->p.stride_x = k->p.stride_y = 2;
    k->p.pad_top = k->p.pad_down = k->p.pad_left = k->p.pad_right = 1;
    k->a = fx_prim(0x41, &k->s);
    k->a.p41 = &k->p;
    FX_AREA(&k->a, x1, 0x0100, 36);
    FX_AREA(&k->a, x2, 0x4000, 432);
    FX_AREA(&k->a, bias, 0x2000, 64);
    FX_AREA(&k->a, o, 0x3000, 256);
}

/* Runs the case broken by one change: expects rule and text. */
#define P41_REFUSED(change, text)                                                             \
    do {                                                                                      \
        P41Case k;                                                                            \
        p41_case(&k);                                                                         \
        change;                                                                               \
        fx_run_refused(m, &k.a, "prog.prim.p41", text);                                       \
    } while (0)

static void test_p41(void **state)
{
    (void)state;
    CoreMem *m = fx_mem();
    m->w[0x0100] = 0x01020304u;   /* some input, so that "unchanged" means something */
    P41Case ok;
    p41_case(&ok);
    fx_run_ok_fresh(&ok.a);    /* the unbroken case runs */

    P41_REFUSED(k.p.x1_precision = TASKIR__PRECISION__INT_32,
                "x1_precision is INT_32; it takes INT_8, UINT_8, TERNARY");
    P41_REFUSED(k.p.x2_precision = TASKIR__PRECISION__INT_16,
                "x2_precision is 2, a precision the chip has no code for");
    P41_REFUSED(k.s.nr = 0, "shape nr is absent (0)");
    P41_REFUSED(k.s.nf = -1, "shape nf is -1, not in 0..16777216");
    P41_REFUSED(k.s.nky = 256, "shape nky is 256, not in 1..255");
    P41_REFUSED(k.p.stride_x = 300, "stride_x is 300, not in 1..255 (0 or absent: 1)");
    P41_REFUSED(k.p.dilate_y = -1, "dilate_y is -1, not in 1..255");
    P41_REFUSED(k.p.pad_left = 256, "pad_left is 256, not in 0..255");
    P41_REFUSED(k.p.pad_top = -2, "pad_top is -2, not in 0..255");
    P41_REFUSED((k.s.nky = 9, k.s.ny = 0), "the window along y (kernel 9, dilation 1: 9 wide) "
                "is wider than the padded input (3 + 1 + 1)");
    P41_REFUSED((k.p.dilate_x = 3, k.s.nx = 0), "the window along x (kernel 3, dilation 3: 7 "
                "wide)");
    P41_REFUSED(k.s.ny = 3, "shape ny is 3, but the input 3, kernel 3, stride 2, dilation 1 "
                "and pads 1/1 give 2");
    P41_REFUSED(k.a.has_x1_base_addr = 0, "x1_base_addr is absent; the x1 area takes 36 words");
    P41_REFUSED(k.a.x1_addr_length = 35, "x1_addr_length is 35 words, but the primitive uses 36");
    P41_REFUSED(k.a.x2_addr_length = 431, "x2_addr_length is 431 words, but the primitive "
                "uses 432");
    P41_REFUSED(k.a.x2_base_addr = 0x9000, "x2 area 0x9000 + 432 words is not inside the "
                "core's memory (0x0000..0x9003)");
    P41_REFUSED(k.a.o_base_addr = -1, "o area 0xFFFFFFFF + 256 words is not inside");
    P41_REFUSED(k.a.o_base_addr = 0x8F80, "o area 0x8F80 + 256 words is not inside");
    P41_REFUSED(k.a.o_addr_length = 255, "o_addr_length is 255 words, but the primitive uses 256");
    P41_REFUSED(k.p.bias_type = 3, "bias_type is 3, neither VECTOR (1) nor CONSTANT (2)");
    P41_REFUSED(k.a.has_bias_base_addr = 0, "bias_base_addr is absent; the bias area takes 64");
    P41_REFUSED(k.a.bias_addr_length = 40, "bias_addr_length is 40 words, but the primitive "
                "uses 64");
    P41_REFUSED(k.a.p41 = NULL, "P41: the primitive has no p41 parameters");
    /* Sizes past any memory: the products saturate, the area check refuses them. */
    P41_REFUSED((k.s.niy = k.s.nix = k.s.nr = 1 << 24, k.s.ny = k.s.nx = 0,
                 k.a.has_x1_addr_length = 0), "x1 area 0x100 + ");
    /* A constant bias reads no bias area (P41 has no constant_b: 0). */
    P41Case c;
    p41_case(&c);
    c.p.has_bias_type = 1, c.p.bias_type = TASKIR__BIAS_TYPE__CONSTANT;
    c.a.has_bias_base_addr = 0;
    fx_run_ok_fresh(&c.a);
    free(m);
}

static void test_p81(void **state)
{
    (void)state;
    CoreMem *m = fx_mem();
    Taskir__Shape s = TASKIR__SHAPE__INIT;
    s.niy = 2, s.nix = 3, s.nr = 2, s.nf = 2, s.nky = 3, s.nkx = 3;
    Taskir__Asm__P81 p = TASKIR__ASM__P81__INIT;
    p.x1_precision = TASKIR__PRECISION__TERNARY;
    p.pad_top = p.pad_down = p.pad_left = p.pad_right = 1;
    Taskir__Asm__AxonPrim a = fx_prim(0x81, &s);
    a.p81 = &p;
    FX_AREA(&a, x1, 0x0400, 32);
    FX_AREA(&a, x2, 0x5000, 144);
    FX_AREA(&a, bias, 0x0300, 32);
    FX_AREA(&a, o, 0x0800, 192);
    fx_run_refused(m, &a, "prog.prim.p81", "P81: x1_precision is TERNARY; it takes INT_8, "
                   "UINT_8");
    p.x1_precision = TASKIR__PRECISION__INT_32;
    fx_run_refused(m, &a, "prog.prim.p81", "x1_precision is INT_32");
    p.x1_precision = TASKIR__PRECISION__UINT_8;
    /* The stored input is [2][4][16] bytes: 32 words (the pads count in it). */
    a.x1_addr_length = 31;
    fx_run_refused(m, &a, "prog.prim.p81", "x1_addr_length is 31 words, but the primitive uses 32");
    a.x1_addr_length = 32;
    s.niy = 0;
    fx_run_refused(m, &a, "prog.prim.p81", "shape niy is absent (0)");
    s.niy = 2;
    fx_run_ok_fresh(&a);
    free(m);
}

static void test_p04(void **state)
{
    (void)state;
    CoreMem *m = fx_mem();
    Taskir__Shape s = TASKIR__SHAPE__INIT;
    s.nr = 20, s.nf = 40;   /* x1 8 words; weights 2 groups * 20 * 8 = 320 words */
    Taskir__Asm__P04 p = TASKIR__ASM__P04__INIT;
    p.x1_precision = TASKIR__PRECISION__INT_32;
    p.has_bias_type = 1, p.bias_type = TASKIR__BIAS_TYPE__CONSTANT;
    Taskir__Asm__AxonPrim a = fx_prim(0x04, &s);
    a.p04 = &p;
    FX_AREA(&a, x1, 0x0000, 8);
    FX_AREA(&a, x2, 0x4000, 319);
    FX_AREA(&a, o, 0x0100, 64);
    fx_run_refused(m, &a, "prog.prim.p04", "P04: x1_precision is INT_32; it takes INT_8, "
                   "UINT_8, TERNARY");
    p.x1_precision = TASKIR__PRECISION__INT_8;
    fx_run_refused(m, &a, "prog.prim.p04", "x2_addr_length is 319 words, but the primitive "
                   "uses 320");
    a.x2_addr_length = 320;
    s.nr = 0;
    fx_run_refused(m, &a, "prog.prim.p04", "shape nr is absent (0)");
    s.nr = 20;
    a.has_o_base_addr = 0;
    fx_run_refused(m, &a, "prog.prim.p04", "o_base_addr is absent; the o area takes 64 words");
    a.has_o_base_addr = 1;
    fx_run_ok_fresh(&a);
    free(m);
}

static void test_p02(void **state)
{
    (void)state;
    CoreMem *m = fx_mem();
    Taskir__Shape s = TASKIR__SHAPE__INIT;
    s.nix = 2, s.nf = 2, s.nkx = 3, s.nky = 1, s.n_branch = 4;
    Taskir__Asm__P02 p = TASKIR__ASM__P02__INIT;
    p.x1_precision = TASKIR__PRECISION__INT_32;
    p.has_bias_type = 1, p.bias_type = TASKIR__BIAS_TYPE__CONSTANT;
    Taskir__Asm__AxonPrim a = fx_prim(0x02, &s);
    a.p02 = &p;
    FX_AREA(&a, x1, 0x6000, 48);
    FX_AREA(&a, o, 0x6200, 16);
    fx_run_refused(m, &a, "prog.prim.p02", "P02: shape n_branch is 4, but nky * nkx = 3 inputs "
                   "are summed");
    s.n_branch = 3;
    p.stride_x = 2;
    fx_run_refused(m, &a, "prog.prim.p02", "stride_x is 2: it has no meaning in the vector sum");
    p.stride_x = 1;
    p.pad_left = 1;
    fx_run_refused(m, &a, "prog.prim.p02", "pad_left is 1: it has no meaning in the vector sum");
    p.pad_left = 0;
    s.nx = 3;
    fx_run_refused(m, &a, "prog.prim.p02", "shape nx is 3, but nix 2 and stride 1 give 2");
    s.nx = 0;
    p.bias_length = 9;
    fx_run_refused(m, &a, "prog.prim.p02", "bias_length is 9, not in 2..8");
    p.bias_length = 0;
    p.x1_precision = TASKIR__PRECISION__UINT_4;
    fx_run_refused(m, &a, "prog.prim.p02", "x1_precision is 10, a precision the chip has no "
                   "code for; it takes INT_32, INT_8, UINT_8, TERNARY");
    p.x1_precision = TASKIR__PRECISION__INT_32;
    fx_run_ok_fresh(&a);
    /* The window sum: a 2x2 window on a 1x1 input without padding does not fit. */
    p.has_avg_pooling_en = 1, p.avg_pooling_en = 1;
    s.niy = 1, s.nix = 1, s.nky = 2, s.nkx = 2, s.n_branch = 0;
    fx_run_refused(m, &a, "prog.prim.p02", "the window along y (kernel 2, dilation 1: 2 wide) "
                   "is wider than the padded input (1 + 0 + 0)");
    p.pad_down = p.pad_right = 1;
    fx_run_ok_fresh(&a);
    free(m);
}

static void test_p03_p43_p83(void **state)
{
    (void)state;
    CoreMem *m = fx_mem();
    Taskir__Shape s = TASKIR__SHAPE__INIT;
    s.niy = 1, s.nix = 1, s.nf = 20;   /* fp 32: 8 words a pixel */
    Taskir__Asm__P03 p3 = TASKIR__ASM__P03__INIT;
    p3.x1_precision = TASKIR__PRECISION__TERNARY, p3.tensor_en = 1;
    p3.has_bias_type = 1, p3.bias_type = TASKIR__BIAS_TYPE__CONSTANT;
    Taskir__Asm__AxonPrim a = fx_prim(0x03, &s);
    a.p03 = &p3;
    FX_AREA(&a, x1, 0x9000, 8);
    FX_AREA(&a, x2, 0x0100, 8);
    FX_AREA(&a, o, 0x0200, 32);
    fx_run_refused(m, &a, "prog.prim.p03", "P03: x1_precision is TERNARY; it takes INT_8, "
                   "UINT_8");
    p3.x1_precision = TASKIR__PRECISION__INT_8;
    fx_run_refused(m, &a, "prog.prim.p03", "x1 area 0x9000 + 8 words is not inside the core's "
                   "memory (0x0000..0x9003)");
    a.x1_base_addr = 0;
    p3.nif = 33;
    fx_run_refused(m, &a, "prog.prim.p03", "nif is 33, not in 20..32");
    p3.nif = 20;
    p3.tensor_en = 0;
    p3.stride_y = 2;
    fx_run_refused(m, &a, "prog.prim.p03", "stride_y is 2: it has no meaning without tensor_en");
    p3.stride_y = 0;
    p3.tensor_en = 1;
    fx_run_ok_fresh(&a);

    Taskir__Asm__P43 p4 = TASKIR__ASM__P43__INIT;
    p4.x1_precision = TASKIR__PRECISION__INT_8, p4.x2_precision = TASKIR__PRECISION__TERNARY;
    p4.tensor_en = 1, p4.has_bias_type = 1, p4.bias_type = TASKIR__BIAS_TYPE__CONSTANT;
    a.pic = 0x43, a.p43 = &p4;
    fx_run_refused(m, &a, "prog.prim.p43", "P43: x2_precision is TERNARY; it takes INT_8, "
                   "UINT_8");
    p4.x2_precision = TASKIR__PRECISION__UINT_8;
    p4.x2_length = 40;
    fx_run_refused(m, &a, "prog.prim.p43", "x2_length is 40, not in 20..32");
    p4.x2_length = 20;
    s.ny = 2;
    fx_run_refused(m, &a, "prog.prim.p43", "shape ny is 2, but niy 1 and stride 1 give 1");
    s.ny = 0;
    fx_run_ok_fresh(&a);

    Taskir__Asm__P83 p8 = TASKIR__ASM__P83__INIT;
    p8.x1_precision = TASKIR__PRECISION__TERNARY, p8.tensor_en = 1;
    a.pic = 0x83, a.p83 = &p8;   /* bias_type absent: VECTOR */
    fx_run_refused(m, &a, "prog.prim.p83", "P83: x1_precision is TERNARY; it takes INT_32, "
                   "INT_8, UINT_8");
    p8.x1_precision = TASKIR__PRECISION__INT_8;
    fx_run_refused(m, &a, "prog.prim.p83", "bias_base_addr is absent; the bias area takes 32 "
                   "words");
    FX_AREA(&a, bias, 0x0300, 32);
    s.n_branch = -1, p8.tensor_en = 0;
    fx_run_refused(m, &a, "prog.prim.p83", "shape n_branch is -1, not in 0..16777216");
    s.n_branch = 0;
    fx_run_ok_fresh(&a);
    free(m);
}

static void test_pic(void **state)
{
    (void)state;
    CoreMem *m = fx_mem();
    Taskir__Asm__AxonPrim a = TASKIR__ASM__AXON_PRIM__INIT;
    fx_run_refused(m, &a, "prog.prim.axon", "Axon: the primitive has no pic");
    a.has_pic = 1, a.pic = 0x05;
    fx_run_refused(m, &a, "prog.prim.axon", "Axon: pic is 0x05, not an Axon primitive (0x02, "
                   "0x03, 0x04, 0x41, 0x43, 0x81, 0x83)");
    a.pic = 0x02;
    fx_run_refused(m, &a, "prog.prim.p02", "P02: the primitive has no p02 parameters");
    a.pic = 0x81;
    fx_run_refused(m, &a, "prog.prim.p81", "P81: the primitive has no p81 parameters");
    free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_p41),
        cmocka_unit_test(test_p81),
        cmocka_unit_test(test_p04),
        cmocka_unit_test(test_p02),
        cmocka_unit_test(test_p03_p43_p83),
        cmocka_unit_test(test_pic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
