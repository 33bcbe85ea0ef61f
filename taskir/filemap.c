/* filemap.c: see filemap.h. */
#define _DEFAULT_SOURCE /* MAP_POPULATE */
#include "taskir/filemap.h"

#include "taskir/fileio.h"
#include "taskir/parallel.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MAP_POPULATE
#define MAP_POPULATE 0 /* the pages then come in as they are first read */
#endif

/* Files from this size on are brought in on threads. */
#define THREADED_BYTES ((size_t)16 << 20)

enum { PAGE = 4096, PART = 1 << 21 };

/* Files from this size on (one 2 MiB page) are mapped asking for huge pages. */
#define HUGE_BYTES ((size_t)PART)

/* Asks for the mapping at f to be backed by 2 MiB pages, before any of it is touched: the
 * file's pages then come into the system's cache as 2 MiB folios, mapped a whole folio at a
 * time (ResNet-50's 140 MB .pb, in the cache: 0.2 ms to bring in and 0.05 ms to unmap
 * against 3 ms and 6 ms in 4 KiB pages). Advice only: without it the pages come in as
 * before. Pages already in the cache as 4 KiB ones stay so. */
static void advise_huge(const TirFileBytes *f)
{
#ifdef MADV_HUGEPAGE
    madvise(f->map, f->len, MADV_HUGEPAGE); /* advice: its failure changes nothing */
#else
    (void)f;
#endif
}

/* Parts [lo, hi) of PART bytes of the mapping at ctx (a TirFileBytes): madvise's populate
 * where the system has it, else one byte read a page. */
static void populate(void *ctx, int64_t lo, int64_t hi)
{
    const TirFileBytes *f = ctx;
    size_t a = (size_t)lo * PART, b = (size_t)hi * PART < f->len ? (size_t)hi * PART : f->len;
#ifdef MADV_POPULATE_READ
    if (madvise((char *)f->map + a, b - a, MADV_POPULATE_READ) == 0)
        return;
#endif
    unsigned sum = 0;
    for (size_t i = a; i < b; i += PAGE)
        sum += ((const volatile uint8_t *)f->p)[i];
    (void)sum;
}

/* Parts [lo, hi) of PART bytes of the mapping at ctx (a TirFileBytes): its pages dropped
 * (the mapping stays, empty, until munmap). */
static void drop(void *ctx, int64_t lo, int64_t hi)
{
    const TirFileBytes *f = ctx;
    size_t a = (size_t)lo * PART, b = (size_t)hi * PART < f->len ? (size_t)hi * PART : f->len;
    madvise((char *)f->map + a, b - a, MADV_DONTNEED); /* advice: munmap drops what is left */
}

/* A file's thread bringing its pages in, a part after the other, each the next one left in
 * next (tir_file_bring_in_rest's threads take them too); stopped between parts once stop is
 * set. */
struct TirFileBg {
    pthread_t th;
    TirFileBytes f;     /* a copy of the file's map and len (bg NULL) */
    atomic_bool stop;
    atomic_int_fast64_t next; /* the next part to bring in */
};

/* Parts of g taken from g->next until none is left or g->stop is set. */
static void take_parts(struct TirFileBg *g)
{
    int64_t parts = (int64_t)((g->f.len + PART - 1) / PART);
    while (!atomic_load_explicit(&g->stop, memory_order_relaxed)) {
        int64_t i = atomic_fetch_add_explicit(&g->next, 1, memory_order_relaxed);
        if (i >= parts)
            return;
        populate(&g->f, i, i + 1);
    }
}

static void *bring_in(void *arg)
{
    take_parts(arg);
    return NULL;
}

/* Starts bringing f's pages in on a thread of its own; NULL when it cannot start. */
static struct TirFileBg *bg_start(const TirFileBytes *f)
{
    struct TirFileBg *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->f = (TirFileBytes){f->p, f->len, f->map, NULL, NULL};
    atomic_init(&g->stop, false);
    atomic_init(&g->next, 0);
    if (pthread_create(&g->th, NULL, bring_in, g) != 0) {
        free(g);
        return NULL;
    }
    return g;
}

/* Stops f's thread and waits for it. */
static void bg_finish(TirFileBytes *f)
{
    if (!f->bg)
        return;
    atomic_store_explicit(&f->bg->stop, true, memory_order_relaxed);
    pthread_join(f->bg->th, NULL);
    free(f->bg);
    f->bg = NULL;
}

/* A share of tir_file_bring_in_rest: parts of ctx (a TirFileBg) taken in turn. */
static void rest_share(void *ctx, int64_t lo, int64_t hi)
{
    (void)lo;
    (void)hi;
    take_parts(ctx);
}

void tir_file_bring_in_rest(TirFileBytes *f, uint32_t threads)
{
    if (!f || !f->bg)
        return;
    /* the file's thread goes on; this one and threads - 2 more take the parts with it */
    uint32_t more = threads > 2 ? threads - 1 : 1;
    tir_parallel(more, more, rest_share, f->bg);
    pthread_join(f->bg->th, NULL); /* its last part done: nothing is left to take */
    free(f->bg);
    f->bg = NULL;
}

Status tir_file_bytes(const char *path, size_t cap, TirFileBytes *f, Diag *d)
{
    return tir_file_bytes_threads(path, cap, 1, f, d);
}

Status tir_file_bytes_threads(const char *path, size_t cap, uint32_t threads,
                              TirFileBytes *f, Diag *d)
{
    memset(f, 0, sizeof *f);
    /* stat first: opening a FIFO to look at it would wait for a writer, and take its data */
    struct stat sb;
    bool regular = strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
    int fd = regular ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0 &&
        (uintmax_t)sb.st_size <= (uintmax_t)cap) {
        bool par = threads > 1 && (size_t)sb.st_size >= THREADED_BYTES;
        bool huge = (size_t)sb.st_size >= HUGE_BYTES;
        void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ,
                       MAP_PRIVATE | (par || huge ? 0 : MAP_POPULATE), fd, 0);
        close(fd);
        if (m != MAP_FAILED) {
            f->map = m;
            f->p = m;
            f->len = (size_t)sb.st_size;
            if (huge)
                advise_huge(f);
            if (par && !(f->bg = bg_start(f)))
                tir_parallel(threads, (int64_t)((f->len + PART - 1) / PART), populate, f);
            else if (!par && huge)
                populate(f, 0, (int64_t)((f->len + PART - 1) / PART));
            return ST_OK;
        }
    } else if (fd >= 0) {
        close(fd);
    }
    /* not a regular file, empty, over the cap, or not mappable: read it (which also gives
     * the errors their words) */
    Status st = tir_read_file(path, cap, &f->owned, &f->len, d);
    f->p = f->owned;
    return st;
}

void tir_file_release_threads(TirFileBytes *f, uint32_t threads)
{
    bg_finish(f);
    if (f->map && threads > 1 && f->len >= THREADED_BYTES)
        tir_parallel(threads, (int64_t)((f->len + PART - 1) / PART), drop, f);
    tir_file_release(f);
}

void tir_file_release_pool(TirFileBytes *f, TirPool *pool)
{
    bg_finish(f);
    if (f->map && pool && f->len >= THREADED_BYTES)
        tir_pool_run(pool, (int64_t)((f->len + PART - 1) / PART), drop, f);
    tir_file_release(f);
}

void tir_file_release(TirFileBytes *f)
{
    bg_finish(f);
    if (f->map)
        munmap(f->map, f->len);
    free(f->owned);
    memset(f, 0, sizeof *f);
}
