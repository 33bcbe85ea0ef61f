/* alloc.h: the code generator's memory plan of one core (docs/backend.md, "The code
 * generator"): every storage area the Mapping puts on a core gets a word address inside the
 * core's banks, aligned as its layout needs, and areas whose lifetimes [first, last] (phases)
 * do not overlap may share words.
 *
 * Where an area goes, by kind, in order of preference:
 *   ALLOC_STATIC  weights, biases, tables: MEM1 (0x4000..0x7FFF), then anywhere in MEM0
 *                 and MEM1
 *   ALLOC_DATA    feature maps and buffers: MEM0 and MEM1 (0x0000..0x7FFF) from the start
 *   ALLOC_RECV    data that arrives by router packets: the receive area (0x8400..0x8FFF)
 *                 only (the router writes received packets into MEM2 alone)
 * MEM0 and MEM1 are one run of data words: an area may cross from one into the other. Inside
 * a range the first fit from the range's start wins.
 * Areas are placed largest first (ties: in the order given), so the plan depends only on the
 * requests: deterministic. A plan that does not fit so is tried with the static areas from
 * the top of MEM1 down, then both ways again with the areas in the order of their first
 * phases (each phase's largest first); then, in either order, with the areas alive over more
 * than half the plan (long-lived: of the phases from the first of the data banks' areas to
 * the last) placed first, from the top of their banks down, longest-lived first; then so with
 * the chains of areas placed before the others. Only a plan that no earlier try fits gets a
 * later one: a plan that fits is the one it always was. A chain of areas (AllocReq.next) is placed as one:
 * its first area where every one of them fits at its offset, each beside the areas whose
 * lifetimes meet its own; its first area's alignment, and each other's offset a multiple of
 * its own.
 */
#ifndef TASKIR_BACKEND_ALLOC_H
#define TASKIR_BACKEND_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "taskir/diag.h"

typedef enum AllocKind {
    ALLOC_STATIC = 0,
    ALLOC_DATA = 1,
    ALLOC_RECV = 2,
} AllocKind;

/* One area to place. A phase runs Axon, Soma1, Router and Soma2 one after the other (the
 * code generator sets no row pipelining, CHIP.md §2): an area that ends with the Axon of
 * its last phase (last_axon) and one that begins with Soma1 of its first (first_soma) may
 * share words when that is the same phase, as may one that ends with the Axon or Soma1
 * (last_soma1) and one that begins with the router (first_router). */
typedef struct AllocReq {
    int64_t words;       /* size in 32-bit words (> 0) */
    int32_t align;       /* address alignment in words: a power of two, >= 1 */
    int32_t first, last; /* lifetime in phases, first <= last */
    AllocKind kind;
    int32_t tag;         /* the caller's name of the area (a block id), for messages */
    bool last_axon;      /* nothing reads or writes it after the Axon of phase last */
    bool first_soma;     /* nothing reads or writes it before Soma1 of phase first */
    size_t next;         /* 1 + the index of the area that starts where this one ends (the
                            parts of one area, each with a lifetime of its own: a gathered
                            area's inputs), 0: none; each area follows one at most */
    bool last_soma1;     /* nothing reads or writes it after Soma1 of phase last */
    bool first_router;   /* nothing reads or writes it before the router of phase first */
    int32_t again;       /* 0, or a phase after last: it lives again from that phase to the
                            step's end (data landing late in one step for the first phases
                            of the next), not in the phases between */
} AllocReq;

/* Whether area r lives in phase p: in [first, last], or from again on. */
bool alloc_lives_in(const AllocReq *r, int32_t p);
/* Whether the lifetimes of areas a and b meet: they share a phase, but the one phase where
 * one ends before the other begins (last_axon / first_soma, last_soma1 / first_router); a
 * phase from again on met whole. Areas whose lifetimes meet take different words. */
bool alloc_lives_meet(const AllocReq *a, const AllocReq *b);

/* Places reqs[0..n) on one core; addr[i] receives the word address of reqs[i]. A plan that
 * does not fit is a logic error [emit.alloc] naming core (e.g. "chip (0,0) core (3,1)"), the
 * area that did not fit (tag, words, lifetime) and the words live in the fullest phase
 * against the words the banks hold; a malformed request (size, alignment, lifetime) is a
 * runtime error [emit.alloc.req] (a bug of the caller). Out of memory: ST_RUNTIME. */
Status alloc_core(const AllocReq *reqs, size_t n, int32_t *addr, const char *core, Diag *d);
/* The same, with some areas at fixed addresses: at[i] (0: anywhere; at NULL: none), each in
 * the first range of its kind (the order of preference above), aligned, in no chain of
 * areas (else [emit.alloc.req]). They are placed first, as they are, in every try; the
 * others around them. Fixed areas whose words and lifetimes meet fit nowhere [emit.alloc]. */
Status alloc_core_at(const AllocReq *reqs, size_t n, const int32_t *at, int32_t *addr,
                     const char *core, Diag *d);

#endif
