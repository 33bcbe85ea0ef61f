/* bigmem.h: large zeroed buffers (the loader's value arrays, a simulation run's buffers) that
 * the system may back with huge pages, and touching them on threads. A fresh page costs a
 * fault and its zeroing when it is first written; with 2 MiB pages that is one fault where
 * 4 KiB pages take 512, and the pages are freed as fast. Touching a buffer on several threads
 * (tir_big_touch) spreads that cost over them instead of leaving it to whichever thread
 * writes the buffer first. */
#ifndef TASKIR_BIGMEM_H
#define TASKIR_BIGMEM_H

#include <stddef.h>
#include <stdint.h>

/* Buffers of at least this many bytes are worth a mapping of their own. */
#define TIR_BIG_BYTES ((size_t)4 << 20)

/* bytes (> 0) of zeroed memory, aligned to 64 bytes at least; NULL when out of memory. Free
 * it with tir_big_free(p, bytes). */
void *tir_big_alloc(size_t bytes);
void tir_big_free(void *p, size_t bytes); /* accepts NULL */

/* Writes a zero byte into every page of [p, p + bytes) (memory from tir_big_alloc, not yet
 * written), split over up to threads threads, so that the pages are in place before use. */
void tir_big_touch(void *p, size_t bytes, uint32_t threads);

#endif
