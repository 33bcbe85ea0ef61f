/* somatest.c: the Soma executor tests' shared helpers (somatest.h). */
#include "somatest.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

CoreMem *st_mem(void)
{
    CoreMem *m = core_mem_new();
    assert_non_null(m);
    return m;
}

void st_put_i8(CoreMem *m, int64_t base, const int8_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        core_mem_set_u8(m, base, (int64_t)i, (uint8_t)v[i]);
}

void st_put_i32(CoreMem *m, int64_t base, const int32_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        m->w[base + (int64_t)i] = (uint32_t)v[i];
}

void st_fill(CoreMem *m, int64_t base, size_t n, uint32_t w)
{
    for (size_t i = 0; i < n; i++)
        m->w[base + (int64_t)i] = w;
}

void st_run(CoreMem *m, const Taskir__Asm__SomaPrim *s, ExecStream *to, const ExecStream *from)
{
    Diag d;
    diag_init(&d, "t");
    Status st = exec_soma(m, s, to, from, &d);
    if (st != ST_OK)
        fail_msg("exec_soma failed: %s [%s]", d.n ? d.entries[0].what : "?",
                 d.n ? d.entries[0].rule : "?");
    assert_int_equal(d.n, 0);
    diag_finish(&d);
}

void st_fail(CoreMem *m, const Taskir__Asm__SomaPrim *s, ExecStream *to,
             const ExecStream *from, const char *rule, const char *what)
{
    CoreMem *before = st_mem();
    memcpy(before, m, sizeof *m);
    size_t n_to = to ? to->n : 0;
    Diag d;
    diag_init(&d, "t");
    Status st = exec_soma(m, s, to, from, &d);
    if (st != ST_LOGIC)
        fail_msg("expected '%s' [%s], got status %d", what, rule, (int)st);
    assert_int_equal(d.n, 1);
    assert_string_equal(d.entries[0].rule, rule);
    if (!strstr(d.entries[0].what, what))
        fail_msg("message '%s' does not say '%s'", d.entries[0].what, what);
    assert_memory_equal(before, m, sizeof *m);
    if (to)
        assert_int_equal(to->n, n_to);
    diag_finish(&d);
    free(before);
}
