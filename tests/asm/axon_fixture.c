/* axon_fixture.c: the Axon executor tests' shared helpers (axon_fixture.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "axon_fixture.h"

CoreMem *fx_mem(void)
{
    CoreMem *m = core_mem_new();
    assert_non_null(m);
    return m;
}

void fx_i8(CoreMem *m, int64_t base, int64_t i, int v)
{
    core_mem_set_u8(m, base, i, (uint8_t)(v & 0xFF));
}

void fx_t2(CoreMem *m, int64_t base, int64_t i, int v)
{
    uint32_t *w = &m->w[base + i / 16];
    unsigned sh = (unsigned)(2 * (i % 16));
    *w = (*w & ~(3u << sh)) | (((uint32_t)v & 3u) << sh);
}

void fx_w(CoreMem *m, int64_t base, int64_t i, int32_t v)
{
    m->w[base + i] = (uint32_t)v;
}

int32_t fx_get(const CoreMem *m, int64_t base, int64_t i)
{
    uint32_t w = m->w[base + i];
    return w >= 0x80000000u ? (int32_t)((int64_t)w - 0x100000000) : (int32_t)w;
}

Taskir__Asm__AxonPrim fx_prim(int pic, Taskir__Shape *s)
{
    Taskir__Asm__AxonPrim a = TASKIR__ASM__AXON_PRIM__INIT;
    a.has_pic = 1, a.pic = pic, a.shape = s;
    return a;
}

void fx_run_ok_fresh(const Taskir__Asm__AxonPrim *a)
{
    CoreMem *m = fx_mem();
    fx_run_ok(m, a);
    free(m);
}

void fx_run_ok(CoreMem *m, const Taskir__Asm__AxonPrim *a)
{
    Diag d;
    diag_init(&d, "test");
    Status st = exec_axon(m, a, &d);
    if (st != ST_OK || d.n)
        diag_print(&d, stderr, "exec_axon");
    assert_int_equal(st, ST_OK);
    assert_int_equal(d.n, 0);
    diag_finish(&d);
}

void fx_run_refused(CoreMem *m, const Taskir__Asm__AxonPrim *a, const char *rule,
                    const char *text)
{
    CoreMem *before = fx_mem();
    memcpy(before, m, sizeof *m);
    Diag d;
    diag_init(&d, "test");
    Status st = exec_axon(m, a, &d);
    if (st != ST_LOGIC || d.n != 1 || strcmp(d.entries[0].rule, rule) != 0 ||
        !strstr(d.entries[0].what, text)) {
        diag_print(&d, stderr, "exec_axon");
        fail_msg("expected one [%s] finding containing '%s'", rule, text);
    }
    assert_int_equal(d.entries[0].status, ST_LOGIC);
    assert_memory_equal(before, m, sizeof *m);
    diag_finish(&d);
    free(before);
}
