/* test_exec_axon_robust.c: the executor's Axon primitives on thousands of primitives drawn
 * from edge values (negative, zero, just past a group, the int32 extremes; areas at the ends
 * of the memory; precisions the chip has no code for). Every one must return ST_OK or a logic
 * error with a prog.prim rule (never crash, hang or read outside the core: run it under
 * ASan/UBSan too), a refused one must leave the memory as it was, and the whole run is
 * deterministic (the same draws give the same memory). The draws come from a fixed-seed
 * generator of our own, so the cases are the same on every machine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "axon_fixture.h"

static uint64_t rng = 0x9E3779B97F4A7C15u;

static uint32_t draw(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

static int32_t pick(const int32_t *v, size_t n)
{
    return v[draw((uint32_t)n)];
}
/* Half the primitives draw from tables of sane values only (so that many of them run), the
 * other half from the wild tables too. */
static int sane;
#define PICK(arr)                                                                              \
    (sane ? pick(arr##_sane, sizeof arr##_sane / sizeof arr##_sane[0])                         \
          : pick(arr, sizeof arr / sizeof arr[0]))

static const int32_t dims[] = {0, 0, 1, 1, 2, 3, 4, 5, 7, 15, 16, 17, 20, 31, 32, 33, 64, 100,
                               255, 256, -1, 1 << 24, (1 << 24) + 1, INT32_MAX};
static const int32_t small[] = {0, 0, 0, 1, 1, 2, 3, 255, 256, -1, INT32_MIN};
static const int32_t precs[] = {0, 0, 1, 4, 8, 2, 100, -1};
static const int32_t bases[] = {0, 0x10, 0x100, 0x2000, 0x4000, 0x8400, 0x8FF0, 0x9000,
                                0x9003, 0x9004, -4, INT32_MAX};
static const int32_t lens[] = {0, 1, 8, 32, 64, 144, 512, 4096, 0x9004, -1};
static const int32_t values[] = {0, 1, -1, 7, 127, -128, 30000000, INT32_MAX, INT32_MIN};
static const int32_t dims_sane[] = {0, 1, 1, 2, 3, 4, 5, 17, 33};
static const int32_t small_sane[] = {0, 0, 1, 1, 2};
static const int32_t precs_sane[] = {0, 1, 8, 4};
static const int32_t bases_sane[] = {0, 0x2000, 0x4000, 0x6000};
static const int32_t lens_sane[] = {0x1000};
static const int32_t values_sane[] = {0, 1, -1, 7, INT32_MAX, INT32_MIN};

static void area(protobuf_c_boolean *has_base, int32_t *base, protobuf_c_boolean *has_len,
                 int32_t *len)
{
    *has_base = sane || draw(8) != 0;
    *base = PICK(bases);
    *has_len = !sane && draw(3) != 0;
    *len = PICK(lens);
}

/* One random primitive of pic into the caller's messages. */
static void random_prim(Taskir__Asm__AxonPrim *a, Taskir__Shape *s, Taskir__Asm__P02 *p02,
                        Taskir__Asm__P03 *p03, Taskir__Asm__P04 *p04, Taskir__Asm__P41 *p41,
                        Taskir__Asm__P43 *p43, Taskir__Asm__P81 *p81, Taskir__Asm__P83 *p83)
{
    static const int pics[] = {0x02, 0x03, 0x04, 0x41, 0x43, 0x81, 0x83, 0x05, 0x00};
    sane = (int)draw(2);
    *s = (Taskir__Shape)TASKIR__SHAPE__INIT;
    s->nx = PICK(dims), s->ny = PICK(dims), s->nf = PICK(dims), s->nr = PICK(dims);
    s->nkx = PICK(small), s->nky = PICK(small), s->niy = PICK(dims), s->nix = PICK(dims);
    s->n_branch = PICK(small);
    if (sane)   /* the output extents and the branch count follow from the rest */
        s->ny = s->nx = s->n_branch = 0;
    *a = fx_prim(pics[draw(sizeof pics / sizeof pics[0])], draw(10) ? s : NULL);
    a->has_pic = draw(20) != 0;
    area(&a->has_x1_base_addr, &a->x1_base_addr, &a->has_x1_addr_length, &a->x1_addr_length);
    area(&a->has_x2_base_addr, &a->x2_base_addr, &a->has_x2_addr_length, &a->x2_addr_length);
    area(&a->has_bias_base_addr, &a->bias_base_addr, &a->has_bias_addr_length,
         &a->bias_addr_length);
    area(&a->has_o_base_addr, &a->o_base_addr, &a->has_o_addr_length, &a->o_addr_length);
    int bias = (int)draw(4);
    *p02 = (Taskir__Asm__P02)TASKIR__ASM__P02__INIT;
    p02->avg_pooling_en = draw(2), p02->x1_precision = PICK(precs), p02->bias_type = bias;
    p02->constant_b = PICK(values), p02->stride_x = PICK(small), p02->stride_y = PICK(small);
    p02->pad_top = PICK(small), p02->pad_left = PICK(small), p02->bias_length = PICK(dims);
    *p03 = (Taskir__Asm__P03)TASKIR__ASM__P03__INIT;
    p03->tensor_en = draw(2), p03->x1_precision = PICK(precs), p03->bias_type = bias;
    p03->stride_x = PICK(small), p03->nif = PICK(dims), p03->constant_b = PICK(values);
    *p04 = (Taskir__Asm__P04)TASKIR__ASM__P04__INIT;
    p04->x1_precision = PICK(precs), p04->x2_precision = PICK(precs), p04->bias_type = bias;
    p04->constant_b = PICK(values);
    *p41 = (Taskir__Asm__P41)TASKIR__ASM__P41__INIT;
    p41->x1_precision = PICK(precs), p41->x2_precision = PICK(precs), p41->bias_type = bias;
    p41->stride_x = PICK(small), p41->dilate_y = PICK(small), p41->pad_down = PICK(small);
    p41->pad_right = PICK(small), p41->has_axon_delay = draw(10) == 0, p41->axon_delay = 1;
    p41->delay_clock = PICK(values);
    *p43 = (Taskir__Asm__P43)TASKIR__ASM__P43__INIT;
    p43->tensor_en = draw(2), p43->x1_precision = PICK(precs), p43->x2_precision = PICK(precs);
    p43->bias_type = bias, p43->x2_length = PICK(dims), p43->stride_y = PICK(small);
    *p81 = (Taskir__Asm__P81)TASKIR__ASM__P81__INIT;
    p81->x1_precision = PICK(precs), p81->x2_precision = PICK(precs), p81->bias_type = bias;
    p81->pad_top = PICK(small), p81->pad_left = PICK(small), p81->stride_y = PICK(small);
    *p83 = (Taskir__Asm__P83)TASKIR__ASM__P83__INIT;
    p83->tensor_en = draw(2), p83->x1_precision = PICK(precs), p83->bias_type = bias;
    p83->constant_a = PICK(values), p83->constant_b = PICK(values);
    if (draw(12)) {
        a->p02 = p02, a->p03 = p03, a->p04 = p04, a->p41 = p41;
        a->p43 = p43, a->p81 = p81, a->p83 = p83;
    }
}

/* A checksum of the memory, to see a refused primitive left it alone and that two runs
 * agree. */
static uint64_t sum_mem(const CoreMem *m)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < ASM_CORE_WORDS; i++)
        h = (h ^ m->w[i]) * 1099511628211u;
    return h;
}

static uint64_t run_all(int n, int *n_ok)
{
    CoreMem *m = fx_mem();
    for (size_t i = 0; i < ASM_CORE_WORDS; i++)
        m->w[i] = (uint32_t)i * 2654435761u;
    *n_ok = 0;
    for (int k = 0; k < n; k++) {
        Taskir__Asm__AxonPrim a;
        Taskir__Shape s;
        Taskir__Asm__P02 p02;
        Taskir__Asm__P03 p03;
        Taskir__Asm__P04 p04;
        Taskir__Asm__P41 p41;
        Taskir__Asm__P43 p43;
        Taskir__Asm__P81 p81;
        Taskir__Asm__P83 p83;
        random_prim(&a, &s, &p02, &p03, &p04, &p41, &p43, &p81, &p83);
        uint64_t before = sum_mem(m);
        Diag d;
        diag_init(&d, "robust");
        Status st = exec_axon(m, &a, &d);
        if (st == ST_OK) {
            assert_int_equal(d.n, 0);
            (*n_ok)++;
        } else {
            assert_int_equal(st, ST_LOGIC);
            assert_int_equal(d.n, 1);
            assert_int_equal(strncmp(d.entries[0].rule, "prog.prim.", 10), 0);
            assert_true(sum_mem(m) == before);
        }
        diag_finish(&d);
    }
    uint64_t h = sum_mem(m);
    free(m);
    return h;
}

static void test_random_primitives(void **state)
{
    (void)state;
    int ok1, ok2;
    uint64_t seed = rng;
    uint64_t h1 = run_all(4000, &ok1);
    rng = seed;
    uint64_t h2 = run_all(4000, &ok2);
    assert_true(h1 == h2);
    assert_int_equal(ok1, ok2);
    print_message("%d of 4000 primitives ran, the rest were refused\n", ok1);
    assert_true(ok1 > 0);   /* some of them run */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_primitives),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
