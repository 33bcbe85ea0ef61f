/* filemap.h: a whole input file's bytes, read-only, without copying them where the system
 * allows: a regular file is mapped into memory (its pages are the system's file cache, not a
 * copy; a 140 MB .pb is in memory in a fraction of the time reading it takes; from 2 MiB on
 * with MADV_HUGEPAGE, so that what is not yet cached comes in as 2 MiB pages), anything else
 * (stdin "-", a pipe, a device) is read as tir_read_file reads it. The same caps and errors as
 * tir_read_file. A mapped file must not be truncated by another program while it is in use
 * (the system would then stop the reader, as it would any program reading a mapped file). */
#ifndef TASKIR_FILEMAP_H
#define TASKIR_FILEMAP_H

#include "taskir/diag.h"

#include <stddef.h>
#include <stdint.h>

struct TirFileBg;

typedef struct TirFileBytes {
    const uint8_t *p;
    size_t len;
    void *map;          /* the mapping (len bytes), or NULL */
    uint8_t *owned;     /* the bytes read, or NULL */
    struct TirFileBg *bg; /* a thread of its own bringing the mapping's pages in, or NULL */
} TirFileBytes;

/* The bytes of path ("-" = stdin) in *f, to release with tir_file_release (also when it
 * fails, which leaves *f empty). A file over cap bytes is a logic error [limit.file], an
 * unreadable one a runtime error [io.read]. */
Status tir_file_bytes(const char *path, size_t cap, TirFileBytes *f, Diag *d);
/* tir_file_bytes with the pages of a large mapped file brought in, from threads 2 on, on a
 * thread of its own (f->bg) while the caller goes on: what the caller reads first (the
 * structure of a .pb, walked on one thread before its values are decoded on threads) no
 * longer waits for the whole file, and a page the caller reaches first is brought in by the
 * caller. On one thread they are brought in before it returns. */
Status tir_file_bytes_threads(const char *path, size_t cap, uint32_t threads,
                              TirFileBytes *f, Diag *d);
/* Brings in the pages f's thread, if any, has not reached, on that thread and this one (and
 * up to threads in all), which take them 2 MiB after 2 MiB, each the next left, and ends the
 * thread (threads filling the page
 * table of the same 2 MiB wait for each other: the pages of a file cached in 4 KiB pages came
 * in no faster on two threads taking 1 MiB pieces in turn, and twice as fast in two halves,
 * when both threads had a processor). For the caller's
 * threads about to read the whole file (a .pb's values): on a file cached in 2 MiB pages the
 * thread has long finished; on one cached in 4 KiB pages (resnet50: 13 ms on one thread) it
 * had brought in a few of them while the caller walked the structure, and the readers would
 * otherwise fault the rest in themselves, no faster than the thread alone. */
void tir_file_bring_in_rest(TirFileBytes *f, uint32_t threads);
/* Stops f's thread, if any, then unmaps or frees f's bytes. */
void tir_file_release(TirFileBytes *f);
/* tir_file_release with the pages of a large mapped file dropped on up to threads threads
 * first: unmapping costs the system about half of what bringing the pages in did (ResNet-50's
 * 140 MB: 6 ms), all on one thread, in munmap or at the process's exit. */
void tir_file_release_threads(TirFileBytes *f, uint32_t threads);
/* tir_file_release_threads on the pool's threads and this one (parallel.h; NULL: as one
 * thread, the pages left to munmap): no thread is started for it. */
struct TirPool;
void tir_file_release_pool(TirFileBytes *f, struct TirPool *pool);

#endif
