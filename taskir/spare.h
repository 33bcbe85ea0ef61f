/* spare.h: arrays of a graph's arena that their owner left behind when it regrew them
 * (graph.c's reserve: a cluster's interfaces, a block's clusters, the graph's pointer arrays),
 * taken again for later arrays instead of fresh arena memory. A pass that grows a graph
 * regrows many small arrays (on the 10x ResNet-50 model the split pass left 98 MB of them
 * behind), and fresh memory is slow to touch (docs/passes.md).
 *
 * An array left behind waits (spare_retire) until the graph's change set ends (graph_compact:
 * spare_release), so that a pointer into it taken before the regrowth still reads what it
 * held until then, as it did when nothing was reused; a reused array is zeroed first, as
 * arena memory is. Arrays are kept by their exact size (a regrown array doubles: a graph
 * has a few dozen sizes), and taken for a request of that size. */
#ifndef TASKIR_SPARE_H
#define TASKIR_SPARE_H

#include <stdbool.h>
#include <stddef.h>

enum { SPARE_SIZES = 64 };

typedef struct SpareVec {
    void **p;
    size_t n, cap;
} SpareVec;

typedef struct SpareSize {
    size_t bytes;                      /* 0: a free entry */
    SpareVec retired;                  /* left behind in this change set */
    SpareVec ready;                    /* to be taken */
} SpareSize;

typedef struct Spare {
    SpareSize size[SPARE_SIZES];       /* the sizes seen first kept, in that order */
    size_t reused;                     /* bytes taken again so far (tests, benchmarks) */
} Spare;

/* Keeps array p of bytes bytes (the arena's; nothing else may hold it after the next
 * spare_release). Arrays under 64 bytes, and of sizes past the first SPARE_SIZES, are not
 * kept; nor when memory runs out (correct: it is only not reused). */
void spare_retire(Spare *s, void *p, size_t bytes);
/* The arrays retired so far may be taken from now on. */
void spare_release(Spare *s);
/* A zeroed array of bytes bytes that was retired and released, or NULL. */
void *spare_take(Spare *s, size_t bytes);
/* Frees the lists (not the arrays: the arena's). Leaves s zeroed. */
void spare_finish(Spare *s);

#endif
