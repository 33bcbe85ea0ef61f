/* arena.h: a bump allocator. One arena per graph; everything a graph owns lives in it and is
 * freed at once by arena_destroy. Allocation failure returns NULL and is sticky (arena_failed),
 * so a builder can run many steps and check once. Sizes are checked before they are added or
 * multiplied. */
#ifndef TASKIR_ARENA_H
#define TASKIR_ARENA_H

#include <stdbool.h>
#include <stddef.h>

typedef struct Arena Arena;

Arena *arena_create(void);
void arena_destroy(Arena *a); /* accepts NULL */
/* Zeroed memory for n elements of size bytes each, aligned for any type; NULL on overflow or
 * out of memory. */
void *arena_alloc(Arena *a, size_t n, size_t size);
/* A copy of old (old_n elements) in a new block of new_n elements, the rest zeroed. */
void *arena_grow(Arena *a, const void *old, size_t old_n, size_t new_n, size_t size);
char *arena_strdup(Arena *a, const char *s);
char *arena_strndup(Arena *a, const char *s, size_t n);
/* Takes back everything handed out, keeping the chunks for the allocations to come (their
 * pages are touched already: a builder that makes and drops a part at a time, the saver,
 * takes fresh memory once, not once a part). The bytes handed out again are zero, as
 * always: reset clears what was used. Every pointer into the arena is invalid after it;
 * arena_used counts from 0 again. A failed arena stays failed. */
void arena_reset(Arena *a);
/* Marks the arena failed (a caller's own allocation for the arena's owner failed). */
void arena_set_failed(Arena *a);
/* True once any allocation from this arena has failed. */
bool arena_failed(const Arena *a);
/* Bytes handed out so far, since the last reset (for benchmarks and caps). */
size_t arena_used(const Arena *a);

#endif
