/* bigmem.c: see bigmem.h. Every block starts with a header saying how it was made: the
 * mapping's start and length, or a zero length for calloc'd memory. */
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

enum { HUGE = 2 << 20 };

#if HAVE_MMAP
/* A mapping of at least need bytes whose block starts on a 2 MiB boundary; NULL when mmap
 * fails. */
static Head *big_map(size_t need)
{
    if (need > SIZE_MAX - 2 * (size_t)HUGE)
        return NULL;
    size_t len = (need + HUGE - 1) / HUGE * HUGE;
    char *m = mmap(NULL, len + HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    /* keep the 2 MiB-aligned len bytes inside the mapping, give the rest back */
    size_t lead = (size_t)(-(uintptr_t)m & (HUGE - 1));
    if (lead)
        munmap(m, lead);
    if (HUGE - lead)
        munmap(m + lead + len, HUGE - lead);
    Head *h = (Head *)(m + lead);
#ifdef MADV_HUGEPAGE
    madvise(h, len, MADV_HUGEPAGE); /* advice: without it the pages are 4 KiB, still zero */
#endif
    h->map = h;
    h->len = len;
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
        h = big_map(need);
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
