/* bigmem.c: see bigmem.h. On Linux a buffer is an anonymous mapping of its own, marked for
 * huge pages (madvise MADV_HUGEPAGE: the system's "madvise" mode of transparent huge pages
 * then gives them); elsewhere calloc. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, madvise */
#include "taskir/bigmem.h"

#include "taskir/parallel.h"

#include <stdlib.h>

#if defined(__linux__)
#include <sys/mman.h>
#define BIG_MMAP 1
#else
#define BIG_MMAP 0
#endif

enum { PAGE = 4096 };

void *tir_big_alloc(size_t bytes)
{
    if (bytes == 0)
        return NULL;
#if BIG_MMAP
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
#ifdef MADV_HUGEPAGE
    (void)madvise(p, bytes, MADV_HUGEPAGE); /* a hint: without it, 4 KiB pages */
#endif
    return p;
#else
    return calloc(1, bytes);
#endif
}

void tir_big_free(void *p, size_t bytes)
{
    if (!p)
        return;
#if BIG_MMAP
    munmap(p, bytes);
#else
    (void)bytes;
    free(p);
#endif
}

typedef struct Touch {
    volatile unsigned char *p;
    size_t bytes;
} Touch;

/* Pages [lo, hi) of the buffer. */
static void touch_pages(void *ctx, int64_t lo, int64_t hi)
{
    const Touch *t = ctx;
    for (int64_t i = lo; i < hi; i++)
        t->p[(size_t)i * PAGE] = 0;
}

void tir_big_touch(void *p, size_t bytes, uint32_t threads)
{
    if (!p || bytes == 0)
        return;
    Touch t = {p, bytes};
    tir_parallel(threads, (int64_t)((bytes + PAGE - 1) / PAGE), touch_pages, &t);
}
