/* bigmem.c: see bigmem.h. Every block starts with a header saying how it was made: the
 * mapping's start and length, or a zero length for calloc'd memory. A mapped block's header
 * lies in a 4 KiB page of its own just before the 2 MiB boundary where the caller's bytes
 * start: writing it does not bring in (and clear) the first huge page, which is left to
 * whoever first writes there (with threads, one of them, in parallel with the others). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, madvise */
#include "taskir/bigmem.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>

#if defined(__linux__)
#include <sys/mman.h>
#define HAVE_MMAP 1
#else
#define HAVE_MMAP 0
#endif

typedef struct Head {
    void *map;          /* the mapping, or NULL: calloc'd */
    size_t len;         /* its bytes */
    alignas(max_align_t) unsigned char data[]; /* what the caller gets */
} Head;

enum { HUGE = 2 << 20, PAGE = 4096 };

#if HAVE_MMAP
/* A mapping of a header page and at least bytes bytes starting on a 2 MiB boundary right
 * after it, the header at the end of that page; NULL when mmap fails. */
static Head *big_map(size_t bytes)
{
    if (bytes > SIZE_MAX - 2 * (size_t)HUGE - PAGE)
        return NULL;
    size_t len = (bytes + HUGE - 1) / HUGE * HUGE;
    size_t total = PAGE + len + HUGE;
    char *m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    /* keep the header page and the 2 MiB-aligned len bytes after it, give the rest back */
    size_t lead = (size_t)(-(uintptr_t)(m + PAGE) & (HUGE - 1));
    char *data = m + lead + PAGE;
    if (lead)
        munmap(m, lead);
    if (total - lead - PAGE - len)
        munmap(data + len, total - lead - PAGE - len);
#ifdef MADV_HUGEPAGE
    madvise(data, len, MADV_HUGEPAGE); /* advice: without it the pages are 4 KiB, still zero */
#endif
    Head *h = (Head *)(data - offsetof(Head, data));
    h->map = data - PAGE;
    h->len = PAGE + len;
    return h;
}
#endif

void *tir_big_calloc(size_t bytes)
{
    if (bytes > SIZE_MAX - sizeof(Head))
        return NULL;
    size_t need = sizeof(Head) + (bytes ? bytes : 1);
    Head *h = NULL;
#if HAVE_MMAP
    if (bytes >= TIR_BIG_BYTES)
        h = big_map(bytes);
#endif
    if (!h) {
        h = calloc(1, need);
        if (!h)
            return NULL;
    }
    return h->data;
}

void tir_big_free(void *p)
{
    if (!p)
        return;
    Head *h = (Head *)((unsigned char *)p - offsetof(Head, data));
#if HAVE_MMAP
    if (h->map) {
        munmap(h->map, h->len);
        return;
    }
#endif
    free(h);
}
