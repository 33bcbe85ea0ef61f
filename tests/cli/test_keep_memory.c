/* cli_keep_freed_memory (tools/cli.h): after it, a large block is carved from the heap
 * rather than mapped on its own (glibc's mallinfo2: no mapped block), and once freed its
 * memory stays with the process for the next allocation: the heap keeps it (not trimmed),
 * and a block of the same size is taken from it again. Without the call, glibc maps a block
 * of 48 MiB on its own and unmaps it when freed (the heap stays at a few pages). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cli.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

/* glibc's heap is the one measured: a sanitizer build's allocator is its own (mallinfo2
 * then says nothing of it) */
#if defined(__SANITIZE_ADDRESS__)
#define GLIBC_HEAP 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GLIBC_HEAP 0
#endif
#endif
#ifndef GLIBC_HEAP
#ifdef __GLIBC__
#define GLIBC_HEAP 1
#else
#define GLIBC_HEAP 0
#endif
#endif

enum { BIG = 48 << 20 };

static void test_freed_memory_kept(void **state)
{
    (void)state;
#if GLIBC_HEAP
    cli_keep_freed_memory();
    unsigned char *p = malloc(BIG);
    assert_non_null(p);
    assert_int_equal(mallinfo2().hblks, 0); /* not a mapping of its own */
    memset(p, 1, BIG);
    free(p);
    struct mallinfo2 m = mallinfo2();
    assert_true(m.arena >= BIG);            /* kept by the heap */
    assert_true(m.fordblks >= BIG);
    unsigned char *q = malloc(BIG);
    assert_non_null(q);
    assert_int_equal(mallinfo2().arena, m.arena); /* from what the heap kept */
    assert_int_equal(mallinfo2().hblks, 0);
    free(q);
#else
    skip();
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_freed_memory_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
