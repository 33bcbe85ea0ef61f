/* test_exec_soma_errors.c: every logic error of the executor's Soma primitives
 * (docs/rules.md, "Program executor rules: Soma primitives"): each names the parameter and its
 * value, and leaves the memory and the Router's stream as they were. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "somatest.h"

/* A valid P05: a 1x1 int8 copy of 4 channels from 0x0000 to 0x4000. */
static Taskir__Asm__PX5 good_px5(void)
{
    Taskir__Asm__PX5 p = TASKIR__ASM__PX5__INIT;
    p.x1_precision = p.out_precision = P_INT8;
    p.nif = p.nof = 4, p.niy = p.nix = 1, p.nky = p.nkx = 1, p.stride_y = p.stride_x = 1;
    p.x1_base_addr = 0, p.x1_addr_length = 4, p.o_base_addr = 0x4000, p.o_addr_length = 4;
    return p;
}

static void test_dispatch(void **state)
{
    (void)state;
    CoreMem *m = st_mem();
    Taskir__Asm__SomaPrim s = TASKIR__ASM__SOMA_PRIM__INIT;
    s.pic = 0x41;
    st_fail(m, &s, NULL, NULL, "prog.prim.soma", "pic is 0x41, not a Soma primitive");
    s.pic = 0x05;
    st_fail(m, &s, NULL, NULL, "prog.prim.p05", "no px5 parameters");
    s.pic = 0x06;
    st_fail(m, &s, NULL, NULL, "prog.prim.p06", "no p06 parameters");
    s.pic = 0x26;
    st_fail(m, &s, NULL, NULL, "prog.prim.p26", "no p26 parameters");
    s.pic = 0x07;
    st_fail(m, &s, NULL, NULL, "prog.prim.p07", "no p07 parameters");
    s.pic = 0x08;
    st_fail(m, &s, NULL, NULL, "prog.prim.p08", "no p08 parameters");
    Taskir__Asm__PX5 p = good_px5();
    s.pic = 0x05, s.px5 = &p;
    p.pic_mode = 2;
    st_fail(m, &s, NULL, NULL, "prog.prim.p05", "pic_mode is 2, not in 0..1");
    free(m);
}

static void test_px5_errors(void **state)
{
    (void)state;
    CoreMem *m = st_mem();
    Taskir__Asm__SomaPrim s = TASKIR__ASM__SOMA_PRIM__INIT;
    Taskir__Asm__PX5 p = good_px5();
    s.pic = 0x05, s.px5 = &p;
    st_run(m, &s, NULL, NULL);   /* the base case is valid */
    /* One int32 parameter set to a bad value each, the rest as good_px5. */
    static const struct { size_t off; int32_t v; const char *what; } bad[] = {
        {offsetof(Taskir__Asm__PX5, bit_shift_num), 16, "P05: bit_shift_num is 16, not in 0..15"},
        {offsetof(Taskir__Asm__PX5, nof), 5, "nof is 5, not in 1..4"},
        {offsetof(Taskir__Asm__PX5, nix), 0, "nix is 0"},
        {offsetof(Taskir__Asm__PX5, pad_left), -1, "pad_left is -1"},
        {offsetof(Taskir__Asm__PX5, stride_y), 0, "stride_y is 0"},
        {offsetof(Taskir__Asm__PX5, x1_addr_length), 3,
         "x1_addr_length is 3 words, but the primitive uses 4"},
        {offsetof(Taskir__Asm__PX5, o_base_addr), 0x8FFE, "o area 0x8FFE + 4 words is not inside"},
        {offsetof(Taskir__Asm__PX5, x1_base_addr), -4, "x1 area"},
        {offsetof(Taskir__Asm__PX5, o_base_addr), 0x9001, "o_base_addr is 0x9001"},
        {offsetof(Taskir__Asm__PX5, o_base_addr), 0x9000, "o streams to the Router (0x9000), but"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        p = good_px5();
        *(int32_t *)((char *)&p + bad[i].off) = bad[i].v;
        st_fail(m, &s, NULL, NULL, "prog.prim.p05", bad[i].what);
    }
    p = good_px5();
    p.x1_precision = P_TERNARY;
    st_fail(m, &s, NULL, NULL, "prog.prim.p05", "x1_precision is 8");
    p = good_px5();
    p.out_precision = P_INT16;
    st_fail(m, &s, NULL, NULL, "prog.prim.p05", "out_precision is 2");
    p = good_px5();
    int32_t two[2] = {0, 0};
    p.n_compare_init = 2, p.compare_init = two;
    st_fail(m, &s, NULL, NULL, "prog.prim.p05", "compare_init has 2 entries");
    p = good_px5();
    p.x1_base_addr = 0x9000;
    ExecStream from = {0};
    uint32_t w[3] = {0};
    assert_int_equal(exec_stream_push(&from, w, 3), ST_OK);
    st_fail(m, &s, NULL, &from, "prog.prim.p05", "x1 reads 4 words from the Router's stream, "
            "which holds 3");
    st_fail(m, &s, NULL, NULL, "prog.prim.p05", "which holds 0");
    exec_stream_free(&from);
    /* A stream carries at most a core's words: 1 pixel padded by 20000 on both sides gives
     * 40001 output pixels of 4 words. */
    p = good_px5();
    p.pad_left = p.pad_right = 20000, p.o_base_addr = 0x9000, p.o_addr_length = 200000;
    ExecStream to = {0};
    st_fail(m, &s, &to, NULL, "prog.prim.p05", "o streams 160004 words through the Router's "
            "register, more than a core's 36868");
    exec_stream_free(&to);
    /* P25 names its own rule. */
    p = good_px5();
    p.pic_mode = 1, p.nkx = 2;
    st_fail(m, &s, NULL, NULL, "prog.prim.p25", "P25: nkx is 2, not in 1..1");
    free(m);
}

static Taskir__Asm__P06 good_p06(void)
{
    Taskir__Asm__P06 p = TASKIR__ASM__P06__INIT;
    p.x1_precision = p.out_precision = P_INT8;
    p.length_in = p.length_out = 16, p.num_in = p.num_out = 1;
    p.x1_base_addr = 0, p.x1_addr_length = 4, p.o_base_addr = 0x4000, p.o_addr_length = 4;
    return p;
}

static void test_move_errors(void **state)
{
    (void)state;
    CoreMem *m = st_mem();
    Taskir__Asm__SomaPrim s = TASKIR__ASM__SOMA_PRIM__INIT;
    Taskir__Asm__P06 p = good_p06();
    s.pic = 0x06, s.p06 = &p;
    st_run(m, &s, NULL, NULL);
    p.x1_addr_length = 3;
    st_fail(m, &s, NULL, NULL, "prog.prim.p06", "P06: x1_addr_length is 3 words, but the "
            "primitive uses 4");
    p = good_p06();
    p.real_length_in_en = 1, p.real_num_in = 2;
    st_fail(m, &s, NULL, NULL, "prog.prim.p06", "real_num_in is 2, not in 1..1");
    p = good_p06();
    p.num_ciso = 1, p.length_ciso = 4, p.ciso_base_addr = 0x8FFF, p.ciso_addr_length = 4;
    st_fail(m, &s, NULL, NULL, "prog.prim.p06", "ciso area 0x8FFF + 4 words");
    p = good_p06();
    p.length_ciso = -1;
    st_fail(m, &s, NULL, NULL, "prog.prim.p06", "length_ciso is -1");

    Taskir__Asm__P26 q = TASKIR__ASM__P26__INIT;
    q.x1_precision = q.out_precision = P_INT8;
    q.length_in = q.length_out = 16, q.num_in = q.num_out = 1;
    q.x1_base_addr = 0, q.x1_addr_length = 4, q.o_base_addr = 0x9000, q.o_addr_length = 4;
    s.pic = 0x26, s.p26 = &q;
    ExecStream to = {0};
    st_run(m, &s, &to, NULL);
    assert_int_equal(to.n, 4);
    q.out_ciso_sel = 1;
    st_fail(m, &s, &to, NULL, "prog.prim.p26", "out_ciso_sel is 1, but the o area is the "
            "Router's stream");
    q.out_ciso_sel = 2;
    st_fail(m, &s, &to, NULL, "prog.prim.p26", "out_ciso_sel is 2, not in 0..1");
    q.out_ciso_sel = 0, q.num_ciso = 1, q.length_ciso = 16;
    q.o_base_addr = 0x4000, q.ciso_base_addr = 0x9000, q.ciso_addr_length = 4;
    st_fail(m, &s, &to, NULL, "prog.prim.p26", "out_ciso_sel is 0, but the ciso area");
    q.ciso_addr_length = 0;
    st_fail(m, &s, &to, NULL, "prog.prim.p26", "ciso_addr_length is 0 words");
    q.ciso_base_addr = 0x4100, q.ciso_addr_length = 4, q.x1_base_addr = 0x9000;
    st_fail(m, &s, &to, NULL, "prog.prim.p26", "x1 reads 4 words from the Router's stream");
    exec_stream_free(&to);
    free(m);
}

static void test_lut_errors(void **state)
{
    (void)state;
    CoreMem *m = st_mem();
    Taskir__Asm__P07 p = TASKIR__ASM__P07__INIT;
    p.x1_precision = p.x2_precision = P_INT8;
    p.neuron_real_num = 4, p.group_num = 1, p.lut_data_width = 1;
    p.x1_base_addr = 0, p.x1_addr_length = 4;
    p.lut_base_addr = 0x4000, p.lut_addr_length = 64;
    p.o_base_addr = 0x100, p.o_addr_length = 4;
    Taskir__Asm__SomaPrim s = TASKIR__ASM__SOMA_PRIM__INIT;
    s.pic = 0x07, s.p07 = &p;
    st_run(m, &s, NULL, NULL);
    p.lut_data_width = 4;
    st_fail(m, &s, NULL, NULL, "prog.prim.p07", "P07: lut_data_width is 4, not in 0..3");
    p.lut_data_width = 2;   /* 4096 int8 entries: 1024 words */
    st_fail(m, &s, NULL, NULL, "prog.prim.p07", "lut_addr_length is 64 words, but the "
            "primitive uses 1024");
    p.lut_data_width = 3, p.x2_precision = P_INT32, p.lut_addr_length = 65536;
    st_fail(m, &s, NULL, NULL, "prog.prim.p07", "lut area 0x4000 + 65536 words is not inside");
    p.x2_precision = P_TERNARY;
    st_fail(m, &s, NULL, NULL, "prog.prim.p07", "x2_precision is 8");
    free(m);
}

static void test_lif_errors(void **state)
{
    (void)state;
    CoreMem *m = st_mem();
    Taskir__Asm__P08 p = TASKIR__ASM__P08__INIT;
    p.neuron_num = 8, p.group_num = 1, p.fire_type = 4, p.vm_len = 8, p.vtheta_len = 8;
    p.uin_base_addr = 0, p.uin_addr_length = 8, p.v_base_addr = 0x10, p.v_addr_length = 8;
    p.vm_base_addr = 0x20, p.vm_addr_length = 8, p.vtheta_base_addr = 0x30;
    p.vtheta_addr_length = 8, p.s_base_addr = 0x40, p.s_addr_length = 4;
    Taskir__Asm__SomaPrim s = TASKIR__ASM__SOMA_PRIM__INIT;
    s.pic = 0x08, s.p08 = &p;
    st_run(m, &s, NULL, NULL);
    p.vm_len = 3;
    st_fail(m, &s, NULL, NULL, "prog.prim.p08", "P08: VM_len is 3, which does not divide the 8 "
            "neurons");
    p.vm_len = 8, p.vtheta_len = 16;
    st_fail(m, &s, NULL, NULL, "prog.prim.p08", "Vtheta_len is 16, not in 1..8");
    p.vtheta_len = 6;
    st_fail(m, &s, NULL, NULL, "prog.prim.p08", "Vtheta_len is 6, which does not divide");
    p.vtheta_len = 8, p.fire_type = 8;
    st_fail(m, &s, NULL, NULL, "prog.prim.p08", "fire_type is 8, not in 0..7");
    p.fire_type = 4, p.vth0 = 1 << 27;
    st_fail(m, &s, NULL, NULL, "prog.prim.p08", "Vth0 is 134217728, not in -134217728..134217727");
    p.vth0 = 0, p.ref_len = 16;
    st_fail(m, &s, NULL, NULL, "prog.prim.p08", "Ref_len is 16, not in 0..15");
    p.ref_len = 0, p.reset_mode = 4;
    st_fail(m, &s, NULL, NULL, "prog.prim.p08", "reset_mode is 4");
    p.reset_mode = 0, p.vleaky_alpha = 256;
    st_fail(m, &s, NULL, NULL, "prog.prim.p08", "Vleaky_alpha is 256, not in 0..255");
    p.vleaky_alpha = 0, p.s_addr_length = 3;
    st_fail(m, &s, NULL, NULL, "prog.prim.p08", "s_addr_length is 3 words, but the primitive "
            "uses 4");
    p.s_addr_length = 4, p.para_base_addr = 0x50, p.para_addr_length = 2;
    st_fail(m, &s, NULL, NULL, "prog.prim.p08", "para_addr_length is 2 words");
    p.para_addr_length = 0, p.uin_addr_length = 7;
    st_fail(m, &s, NULL, NULL, "prog.prim.p08", "uin_addr_length is 7 words");
    free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dispatch),
        cmocka_unit_test(test_px5_errors),
        cmocka_unit_test(test_move_errors),
        cmocka_unit_test(test_lut_errors),
        cmocka_unit_test(test_lif_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
