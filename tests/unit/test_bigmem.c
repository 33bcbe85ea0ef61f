/* test_bigmem.c: taskir/bigmem.h. Small and large requests (below, at and past
 * TIR_BIG_BYTES, and sizes that are no multiple of a page) give zeroed, writable memory aligned
 * for any type, freed without complaint (the ASan build checks the bounds); a large one on
 * Linux lies in a mapping of its own that the system marks eligible for huge pages when
 * /sys/kernel/mm/transparent_hugepage/enabled allows them (smaps' THPeligible), a small one
 * does not when that setting is "madvise"; NULL frees. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "taskir/bigmem.h"

static void check_zero_and_write(unsigned char *p, size_t n)
{
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % _Alignof(max_align_t), 0);
    for (size_t i = 0; i < n; i++)
        if (p[i])
            fail_msg("byte %zu of %zu is %d", i, n, p[i]);
    memset(p, 0xa5, n);
    assert_int_equal(p[n - 1], 0xa5);
}

static void test_sizes(void **state)
{
    (void)state;
    const size_t sizes[] = {1, 17, 4096, 100000, TIR_BIG_BYTES - 1, TIR_BIG_BYTES,
                            TIR_BIG_BYTES + 1, ((size_t)9 << 20) + 12345};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        for (int rep = 0; rep < 3; rep++) { /* again: memory given back and taken again */
            unsigned char *p = tir_big_calloc(sizes[k]);
            check_zero_and_write(p, sizes[k]);
            tir_big_free(p);
        }
    }
    unsigned char *z = tir_big_calloc(0); /* reads as 1 byte */
    check_zero_and_write(z, 1);
    tir_big_free(z);
    tir_big_free(NULL);
    assert_null(tir_big_calloc(SIZE_MAX));
    assert_null(tir_big_calloc(SIZE_MAX - 8));
}

/* The system's THP setting: 0 never, 1 madvise, 2 always; -1 when it cannot be read. */
static int thp_mode(void)
{
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!f)
        return -1;
    char line[128] = "";
    bool ok = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    return !ok ? -1 : strstr(line, "[never]") ? 0 : strstr(line, "[madvise]") ? 1 : 2;
}

/* smaps' THPeligible of the mapping holding p: 0 or 1, -1 when not found. */
static int thp_eligible(const void *p)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return -1;
    char line[512];
    bool in = false;
    int found = -1;
    uintptr_t a = (uintptr_t)p;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
            in = a >= lo && a < hi;
        int v;
        if (in && sscanf(line, "THPeligible: %d", &v) == 1) {
            found = v;
            break;
        }
    }
    fclose(f);
    return found;
}

static void test_huge_advice(void **state)
{
    (void)state;
    int mode = thp_mode();
    if (mode < 0 || thp_eligible(&mode) < 0) {
        /* no THP setting or no smaps to read: nothing to observe here */
        skip();
    }
    unsigned char *big = tir_big_calloc(TIR_BIG_BYTES);
    unsigned char *small = tir_big_calloc(64 * 1024);
    assert_non_null(big);
    assert_non_null(small);
    assert_int_equal(thp_eligible(big), mode > 0);
    if (mode == 1) /* only what is advised */
        assert_int_equal(thp_eligible(small), 0);
    tir_big_free(big);
    tir_big_free(small);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_huge_advice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
