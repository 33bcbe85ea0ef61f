/* test_exec_soma_lif.c: the executor's P08 leaky integrate-and-fire step on hand-worked
 * words (docs/backend.md, "P08"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "somatest.h"

enum { UIN = 0x0000, V = 0x0100, VTH = 0x0200, S = 0x0300, PARA = 0x0400 };

/* A P08 of n neurons a group, g groups, no random mask (VM_const 0), threshold offsets
 * constant 0, VL at the 28-bit minimum, areas at UIN, V, S. */
static Taskir__Asm__P08 p08(int n, int g, int fire_type)
{
    Taskir__Asm__P08 p = TASKIR__ASM__P08__INIT;
    p.neuron_num = n, p.group_num = g, p.fire_type = fire_type;
    p.vm_const_en = 1, p.vm_const = 0;
    p.vtheta_const_en = 1, p.vtheta_const = 0;
    p.vl = -(1 << 27);
    p.uin_base_addr = UIN, p.uin_addr_length = n * g;
    p.v_base_addr = V, p.v_addr_length = n * g;
    p.s_base_addr = S, p.s_addr_length = 64;
    return p;
}

/* Threshold 100, reset to VR 0, leak by Vleaky_beta -5, fire type 4 (spikes as int8):
 *   n0: V 50 + 40 = 90, not above 100 -> 90 - 5 = 85
 *   n1: V 90 + 5 = 95 -> 90
 *   n2: V 2^27 - 10 + 100 saturates to 2^27 - 1 > 100: spike -> VR 0 -> -5: state
 *       0x0FFFFFFB (28-bit two's complement, refractory count 0)
 *   n3: refractory count 2 (state 0x2FFFFFFD: V -3): the input 1000 is ignored -> V -3,
 *       no spike -> -8, count 1: state 0x1FFFFFF8
 * Spikes 0 0 1 0 as int8: word 0x00010000, the row padded to 16 bytes (4 words). With fire
 * type 5 the spike is a 2-bit lane: 1 << 4. */
static void test_p08_lif_step(void **state)
{
    (void)state;
    for (int ft = 4; ft <= 5; ft++) {
        CoreMem *m = st_mem();
        static const int32_t uin[4] = {40, 5, 100, 1000};
        st_put_i32(m, UIN, uin, 4);
        m->w[V + 0] = 50, m->w[V + 1] = 90, m->w[V + 2] = (1u << 27) - 10;
        m->w[V + 3] = 0x2FFFFFFDu;
        st_fill(m, S, 5, 0xDEADBEEFu);
        Taskir__Asm__P08 p = p08(4, 1, ft);
        p.vth0 = 100, p.vr = 0, p.vleaky_beta = -5;
        Taskir__Asm__SomaPrim s = TASKIR__ASM__SOMA_PRIM__INIT;
        s.pic = 0x08, s.p08 = &p;
        st_run(m, &s, NULL, NULL);
        assert_int_equal(m->w[V + 0], 85);
        assert_int_equal(m->w[V + 1], 90);
        assert_int_equal(m->w[V + 2], 0x0FFFFFFBu);
        assert_int_equal(m->w[V + 3], 0x1FFFFFF8u);
        assert_int_equal(m->w[S], ft == 4 ? 0x00010000u : 0x10u);
        assert_int_equal(m->w[S + 1], 0);
        assert_int_equal(m->w[S + 3], 0);
        assert_int_equal(m->w[S + 4], 0xDEADBEEFu);
        free(m);
    }
}

/* Adaptive leak (Vleaky_alpha 128: halve), reset by subtraction (reset_mode 2, dV 30), a floor
 * VL -20, threshold offsets from memory (Vtheta_len 2: neuron i uses entry i % 2, 0 and 50)
 * updated by Vth_beta 1 and Vth_Incre 10 on a spike, fire type 1 (the new potential, int32);
 * 2 groups of 2 neurons, threshold Vth0 100:
 *   n0: Vth 100, V 150 spikes -> 150 - 30 = 120 -> floor(120 * 128 / 256) = 60;
 *       offset 0 + 1 + 10 = 11
 *   n1: Vth 150, V -100 -> floor(-50) = -50 -> VL -20; offset 50 + 1 = 51
 *   n2: Vth 100, V 101 spikes -> 71 -> floor(35.5) = 35 (offsets past Vtheta_len not written)
 *   n3: Vth 150, V -41 -> floor(-20.5) = -21 -> -20
 * para: the LFSR from seed 0 stays 0; (100 << 8 | Tw_cnt 0), (Vth_beta 1 << 12), (Vth_Incre
 * 10 << 8): 0, 0x6400, 0x1000, 0xA00. */
static void test_p08_adaptive_leak_vtheta(void **state)
{
    (void)state;
    CoreMem *m = st_mem();
    static const int32_t uin[4] = {150, -100, 101, -41}, vth[2] = {0, 50};
    st_put_i32(m, UIN, uin, 4);
    st_put_i32(m, VTH, vth, 2);
    Taskir__Asm__P08 p = p08(2, 2, 1);
    p.vth0 = 100, p.vl = -20;
    p.vleaky_adpt_en = 1, p.vleaky_alpha = 128;
    p.reset_mode = 2, p.dv = 30;
    p.vtheta_const_en = 0, p.vtheta_len = 2;
    p.vtheta_base_addr = VTH, p.vtheta_addr_length = 2;
    p.vth_beta = 1, p.vth_incre = 10;
    p.para_base_addr = PARA, p.para_addr_length = 4;
    Taskir__Asm__SomaPrim s = TASKIR__ASM__SOMA_PRIM__INIT;
    s.pic = 0x08, s.p08 = &p;
    st_run(m, &s, NULL, NULL);
    static const int32_t vnew[4] = {60, -20, 35, -20};
    for (int i = 0; i < 4; i++) {
        assert_int_equal((int32_t)m->w[S + i], vnew[i]);
        assert_int_equal(m->w[V + i], (uint32_t)vnew[i] & 0x0FFFFFFFu);
    }
    assert_int_equal(m->w[VTH], 11);
    assert_int_equal(m->w[VTH + 1], 51);
    static const uint32_t para[4] = {0, 0x6400u, 0x1000u, 0xA00u};
    for (int i = 0; i < 4; i++)
        assert_int_equal(m->w[PARA + i], para[i]);
    free(m);
}

/* The random threshold: seed 1, VM all ones (VM_const -1). Neuron 0: the LFSR steps to
 * 0x80000000 (feedback bit 1), negative, so the mask is ~(~l & VM) + 1 = 0x80000001, whose
 * low 28 bits add 1 to the threshold: Vth0 0 -> 1, V 1 does not spike (state 1). Neuron 1:
 * the LFSR steps to 0x40000000, mask 0x40000000, low 28 bits 0: Vth 0, V 1 spikes -> VR 7.
 * Fire type 6 writes the masks; para's first word is the last LFSR value. Then fire type 7
 * (the mask's low byte as int8: 1 and 0) and fire type 2 (floor(V / 4^k), k = 1, int8: V 1
 * -> 0 for both). */
static void test_p08_lfsr_threshold(void **state)
{
    (void)state;
    CoreMem *m = st_mem();
    static const int32_t uin[2] = {1, 1};
    st_put_i32(m, UIN, uin, 2);
    Taskir__Asm__P08 p = p08(2, 1, 6);
    p.seed = 1, p.vm_const = -1, p.vr = 7;
    p.para_base_addr = PARA, p.para_addr_length = 4;
    Taskir__Asm__SomaPrim s = TASKIR__ASM__SOMA_PRIM__INIT;
    s.pic = 0x08, s.p08 = &p;
    st_run(m, &s, NULL, NULL);
    assert_int_equal(m->w[S], 0x80000001u);
    assert_int_equal(m->w[S + 1], 0x40000000u);
    assert_int_equal(m->w[V], 1);
    assert_int_equal(m->w[V + 1], 7);
    assert_int_equal(m->w[PARA], 0x40000000u);
    m->w[V] = m->w[V + 1] = 0;
    p.fire_type = 7;
    st_run(m, &s, NULL, NULL);
    assert_int_equal(m->w[S], 0x00000001u);
    m->w[V] = m->w[V + 1] = 0;
    p.fire_type = 2, p.bit_shift_num = 1;
    st_run(m, &s, NULL, NULL);
    assert_int_equal(m->w[S], 0);
    free(m);
}

/* The time window: Tw_en with Tw_cnt 3 >= Tw_len 3 resets the potential to Vinit 42 and the
 * count wraps to 0 (para word 1's low byte); with Tw_cnt 1 it counts up to 2 and the neuron
 * integrates (V 5 + 0). */
static void test_p08_time_window(void **state)
{
    (void)state;
    CoreMem *m = st_mem();
    m->w[V] = 5;
    Taskir__Asm__P08 p = p08(1, 1, 0);
    p.vth0 = 100, p.tw_en = 1, p.tw_len = 3, p.tw_cnt = 3, p.vinit = 42;
    p.para_base_addr = PARA, p.para_addr_length = 4;
    Taskir__Asm__SomaPrim s = TASKIR__ASM__SOMA_PRIM__INIT;
    s.pic = 0x08, s.p08 = &p;
    st_run(m, &s, NULL, NULL);
    assert_int_equal(m->w[V], 42);
    assert_int_equal(m->w[S], 5);   /* fire type 0: the potential before the update */
    assert_int_equal(m->w[PARA + 1], 0x6400u);
    m->w[V] = 5;
    p.tw_cnt = 1;
    st_run(m, &s, NULL, NULL);
    assert_int_equal(m->w[V], 5);
    assert_int_equal(m->w[PARA + 1], 0x6402u);
    free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_p08_lif_step),
        cmocka_unit_test(test_p08_adaptive_leak_vtheta),
        cmocka_unit_test(test_p08_lfsr_threshold),
        cmocka_unit_test(test_p08_time_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
