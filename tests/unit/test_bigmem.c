/* test_bigmem.c: taskir/bigmem.h. Small and large requests (below, at and past
 * TIR_BIG_BYTES, and sizes that are no multiple of a page) give zeroed, writable memory aligned
 * for any type, freed without complaint (the ASan build checks the bounds); a large one on
 * Linux lies in a mapping of its own that the system marks eligible for huge pages when
 * /sys/kernel/mm/transparent_hugepage/enabled allows them (smaps' THPeligible), a small one
 * does not when that setting is "madvise"; none of a large block's pages is in memory before
 * it is written (mincore), and its bytes start on a 2 MiB boundary, nor those of a large
 * allocation from an arena (arena.h: its chunks come from here); NULL frees. An arena reset
 * hands its chunks out again, zeroed. */
#define _DEFAULT_SOURCE /* mincore */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#define HAVE_MINCORE 1
#else
#define HAVE_MINCORE 0
#endif

#include "taskir/arena.h"
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

#if HAVE_MINCORE
/* No page of [p, p + bytes) (p page-aligned) is in memory; then p[0] is written, and is. */
static void check_untouched(unsigned char *p, size_t bytes)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    size_t pages = (bytes + pg - 1) / pg;
    unsigned char *vec = calloc(pages, 1);
    assert_non_null(vec);
    assert_int_equal(mincore(p, bytes, vec), 0);
    for (size_t i = 0; i < pages; i++)
        if (vec[i] & 1)
            fail_msg("page %zu of %zu is in memory before anything was written", i, pages);
    p[0] = 1;
    assert_int_equal(mincore(p, 1, vec), 0);
    assert_true(vec[0] & 1);
    free(vec);
}
#endif

/* A large block comes untouched: writing the allocator's own header does not bring in the
 * first (huge) page, which the first writer then brings in (with threads, in parallel). */
static void test_untouched(void **state)
{
    (void)state;
#if HAVE_MINCORE
    size_t bytes = TIR_BIG_BYTES + 12345;
    unsigned char *p = tir_big_calloc(bytes);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % ((uintptr_t)2 << 20), 0);
    check_untouched(p, bytes);
    tir_big_free(p);
    Arena *a = arena_create();
    assert_non_null(a);
    p = arena_alloc(a, (size_t)8 << 20, 1); /* a chunk of its own */
    assert_non_null(p);
    check_untouched(p, (size_t)8 << 20);
    arena_destroy(a);
#else
    skip();
#endif
}

/* arena_reset: the next allocations reuse the chunks (the same addresses, a small one in
 * the first chunk and a large one in its own chunk again), zeroed, and arena_used counts
 * from 0; a request larger than every chunk kept gets a new one. */
static void test_arena_reset(void **state)
{
    (void)state;
    Arena *a = arena_create();
    assert_non_null(a);
    size_t big = (size_t)8 << 20;
    unsigned char *s = arena_alloc(a, 100, 1), *b = arena_alloc(a, big, 1);
    assert_non_null(s);
    assert_non_null(b);
    memset(s, 0xab, 100);
    memset(b, 0xcd, big);
    assert_true(arena_used(a) >= big + 100);
    for (int round = 0; round < 3; round++) {
        arena_reset(a);
        assert_int_equal(arena_used(a), 0);
        unsigned char *b2 = arena_alloc(a, big, 1), *s2 = arena_alloc(a, 100, 1);
        assert_ptr_equal(b2, b); /* the spare chunk that holds it */
        assert_non_null(s2);
        for (size_t i = 0; i < big; i += 4093)
            assert_int_equal(b2[i], 0);
        for (size_t i = 0; i < 100; i++)
            assert_int_equal(s2[i], 0);
        memset(b2, 0xcd, big);
        memset(s2, 0xab, 100);
    }
    arena_reset(a);
    unsigned char *huge = arena_alloc(a, 2 * big, 1);
    assert_non_null(huge);
    assert_true(huge + 2 * big <= b || huge >= b + big);
    assert_false(arena_failed(a));
    arena_destroy(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_huge_advice),
        cmocka_unit_test(test_untouched),
        cmocka_unit_test(test_arena_reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
