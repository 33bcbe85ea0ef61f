/* arena.c: chunked bump allocation. Chunks grow geometrically up to 64 MiB; a request larger
 * than a chunk gets a chunk of its own. Chunks come from tir_big_calloc (bigmem.h: the large
 * ones in huge pages) and no byte is handed out twice (until arena_reset, which clears the
 * bytes used and keeps the chunks), so every allocation is zero without a memset: large chunks are fresh pages that the kernel zeroes when they are first touched,
 * and a weight tensor copied into the arena is written once, not cleared and then written.
 * A chunk's header lives apart from its bytes, so that a chunk's first page is first touched
 * by whoever writes what is allocated there (the loader's threads decoding values), not by
 * the allocation. */
#include "taskir/arena.h"

#include "taskir/bigmem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct Chunk {
    struct Chunk *next;
    size_t cap, used;
    unsigned char *data; /* cap bytes from tir_big_calloc */
} Chunk;

struct Arena {
    Chunk *head;
    Chunk *spare;        /* chunks taken back by arena_reset, zeroed, for reuse */
    size_t next_cap;
    size_t total;
    bool failed;
};

enum { ALIGN = sizeof(max_align_t) };

Arena *arena_create(void)
{
    Arena *a = calloc(1, sizeof *a);
    if (a)
        a->next_cap = 64 * 1024;
    return a;
}

void arena_destroy(Arena *a)
{
    if (!a)
        return;
    for (int list = 0; list < 2; list++)
        for (Chunk *c = list ? a->spare : a->head, *n; c; c = n) {
            n = c->next;
            tir_big_free(c->data);
            free(c);
        }
    free(a);
}

static void *fail(Arena *a)
{
    a->failed = true;
    return NULL;
}

void *arena_alloc(Arena *a, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return fail(a);
    size_t bytes = n * size;
    if (bytes > SIZE_MAX - ALIGN)
        return fail(a);
    bytes = (bytes + ALIGN - 1) / ALIGN * ALIGN;
    if (bytes == 0)
        bytes = ALIGN;
    Chunk *c = a->head;
    if ((!c || c->cap - c->used < bytes) && a->spare) { /* a spare chunk that holds it */
        Chunk **pp = &a->spare;
        while (*pp && (*pp)->cap < bytes)
            pp = &(*pp)->next;
        if (*pp) {
            c = *pp;
            *pp = c->next;
            c->next = a->head;
            a->head = c;
        }
    }
    if (!c || c->cap - c->used < bytes) {
        size_t cap = a->next_cap;
        if (cap < bytes)
            cap = bytes;
        c = malloc(sizeof *c);
        if (!c)
            return fail(a);
        if (!(c->data = tir_big_calloc(cap))) {
            free(c);
            return fail(a);
        }
        c->cap = cap;
        c->used = 0;
        c->next = a->head;
        a->head = c;
        if (a->next_cap < 64u * 1024 * 1024)
            a->next_cap *= 2;
    }
    void *p = c->data + c->used;
    c->used += bytes;
    a->total += bytes; /* p is zero: the chunk was calloc'd and p was never handed out */
    return p;
}

void *arena_grow(Arena *a, const void *old, size_t old_n, size_t new_n, size_t size)
{
    void *p = arena_alloc(a, new_n, size);
    if (p && old && old_n)
        memcpy(p, old, (old_n < new_n ? old_n : new_n) * size);
    return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n)
{
    if (n == SIZE_MAX)
        return fail(a);
    char *p = arena_alloc(a, n + 1, 1);
    if (p)
        memcpy(p, s, n);
    return p;
}

char *arena_strdup(Arena *a, const char *s)
{
    return s ? arena_strndup(a, s, strlen(s)) : NULL;
}

void arena_reset(Arena *a)
{
    while (a->head) {
        Chunk *c = a->head;
        a->head = c->next;
        memset(c->data, 0, c->used);
        c->used = 0;
        c->next = a->spare;
        a->spare = c;
    }
    a->total = 0;
}

void arena_set_failed(Arena *a)
{
    a->failed = true;
}

bool arena_failed(const Arena *a)
{
    return a->failed;
}

size_t arena_used(const Arena *a)
{
    return a->total;
}
