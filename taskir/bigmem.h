/* bigmem.h: zeroed memory for the large arrays of loading and simulating (a graph's decoded
 * weights, a run's buffers), in 2 MiB pages where the system gives them. Fresh memory costs
 * the system a page fault for every 4 KiB page first written (a third of a ResNet-50 run's
 * time, and faults of several threads contend for the same locks): a request of
 * TIR_BIG_BYTES or more is mapped on its own, aligned to 2 MiB and marked for transparent
 * huge pages (madvise MADV_HUGEPAGE, which Linux honours when
 * /sys/kernel/mm/transparent_hugepage/enabled says "madvise" or "always"), so that it
 * faults 512 times less often. None of its pages is touched before the caller writes it (the
 * block's header lies in a page of its own before it), so that with threads each page is
 * brought in by the thread that first writes it. Smaller requests, and every request where
 * mmap is missing or fails, come from calloc. The contents are the same either way: zero.
 *
 * On a virtual machine whose host takes back free memory (virtio-balloon's free page
 * reporting, which reports free blocks of 2 MiB), a huge page taken from a block the host took
 * back costs the host's faults when it is first written: the first run after the memory has
 * lain free for a few seconds can then be slower than with 4 KiB pages (ResNet-50's taskir-run
 * on one thread: 0.27 to 0.44 s after 4 s idle, 0.15 s back to back, 0.21 s with 4 KiB pages
 * either way, on the development machine). */
#ifndef TASKIR_BIGMEM_H
#define TASKIR_BIGMEM_H

#include <stddef.h>

/* Requests from this size on are mapped (4 MiB: two huge pages at least). */
#define TIR_BIG_BYTES ((size_t)4 << 20)

/* bytes of zeroed memory aligned for any type (bytes 0 reads as 1); NULL when out of
 * memory. Free it with tir_big_free. */
void *tir_big_calloc(size_t bytes);
void tir_big_free(void *p); /* accepts NULL */

#endif
