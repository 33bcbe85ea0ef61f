/* exec_soma.h: what the Soma primitives of the executor share (exec_soma.c): the
 * primitive's context, its memory areas (read from the core or from the Router's stream,
 * written to the core or to the Router's stream), element lanes, the 2-bit-step shift and
 * the checks of parameters. docs/backend.md, "The executor: Soma primitives", gives every
 * layout. Internal to backend/: one file per family (exec_soma_pool.c P05/P25,
 * exec_soma_move.c P06/P26, exec_soma_lut.c P07, exec_soma_lif.c P08).
 */
#ifndef TASKIR_BACKEND_EXEC_SOMA_H
#define TASKIR_BACKEND_EXEC_SOMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/exec.h"

/* The largest element count a Soma parameter may name: the 8-bit elements of a whole core.
 * Products of three such counts stay far inside int64_t. */
#define SOMA_MAX_N ((int64_t)ASM_CORE_WORDS * 4)

typedef struct SomaCtx {
    CoreMem *m;
    ExecStream *to_router;          /* may be NULL */
    const ExecStream *from_router;  /* may be NULL */
    Diag *d;
    const char *rule;               /* "prog.prim.p05", ... */
    const char *name;               /* "P05", ... */
} SomaCtx;

/* An area read by a primitive: n words from w (the core's memory or the Router's words). */
typedef struct SomaIn {
    const uint32_t *w;
    int64_t n;
} SomaIn;

/* An area written by a primitive: a zeroed buffer of n words, committed when the primitive
 * is done to the core's memory from base, or to the Router's stream when stream. */
typedef struct SomaOut {
    uint32_t *w;
    int64_t n, base;
    bool stream;
} SomaOut;

/* A logic error of the primitive (rule c->rule), message "NAME: what". Returns ST_LOGIC. */
Status soma_bad(const SomaCtx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* ST_OK when lo <= v <= hi, else a logic error naming param and its range. */
Status soma_range(const SomaCtx *c, const char *param, int64_t v, int64_t lo, int64_t hi);
/* One parameter's value and range; soma_limits checks a list of them in order and stops at
 * the first out of range. */
typedef struct SomaLimit {
    const char *param;
    int64_t v, lo, hi;
} SomaLimit;
Status soma_limits(const SomaCtx *c, const SomaLimit *l, size_t n);
#define SOMA_NLIM(a) (sizeof (a) / sizeof (a)[0])
/* The hardware code of the IR precision ir of parameter param: INT_32, INT_8 or UINT_8
 * (the Soma executor reads and writes no other); a logic error otherwise. */
Status soma_prec(const SomaCtx *c, const char *param, int ir, int *hw);
/* soma_prec of two parameters, in order. */
Status soma_precs(const SomaCtx *c, const char *pa, int a, const char *pb, int b, int *ha,
                  int *hb);

/* Words of a row of n elements of hardware precision hw padded to 16 bytes (4 words). */
int64_t soma_row_words(int hw, int64_t n);
/* Element i of hardware precision hw of the words w (int32; int8 / uint8 lane i % 4 of
 * word i / 4, little-endian). */
int32_t soma_get(const uint32_t *w, int hw, int64_t i);
/* Stores v (already in the precision's range) as element i; the other lanes stay. */
void soma_set(uint32_t *w, int hw, int64_t i, int32_t v);
/* The value range of hardware precision hw (INT_32, INT_8, UINT_8). */
void soma_bounds(int hw, int32_t *lo, int32_t *hi);
/* floor(v / 4^k), k in 0..15 (the Soma shift: 2-bit steps). */
int64_t soma_shift(int64_t v, int k);
/* The Soma's narrowing of one element read in precision x1 to precision out: shifted by
 * 4^k when x1's hardware code is below out's (int32 -> 8 bit, int8 -> uint8), then clipped
 * to out's range. */
int32_t soma_narrow(int64_t v, int x1, int out, int k);

/* The area [base, base + len) of parameter param (its name without _base_addr), of which
 * the primitive reads need words. An area starting in MEM3 is the Router's stream: base
 * must be 0x9000 and the Router must hand at least need words. Logic errors name param. */
Status soma_in(const SomaCtx *c, const char *param, int64_t base, int64_t len, int64_t need,
               SomaIn *in);
/* The same for an area the primitive writes: a zeroed buffer of need words; an area
 * starting at 0x9000 streams to the Router (c->to_router must be set). ST_RUNTIME when out
 * of memory. */
Status soma_out(const SomaCtx *c, const char *param, int64_t base, int64_t len, int64_t need,
                SomaOut *o);
/* Writes o to the core's memory or appends it to the Router's stream, and frees it. */
Status soma_commit(const SomaCtx *c, SomaOut *o);
void soma_out_free(SomaOut *o);

/* The families (exec_soma_pool.c, exec_soma_move.c, exec_soma_lut.c, exec_soma_lif.c). */
Status soma_px5(SomaCtx *c, const Taskir__Asm__PX5 *p, bool min_mode);
Status soma_p06(SomaCtx *c, const Taskir__Asm__P06 *p);
Status soma_p26(SomaCtx *c, const Taskir__Asm__P26 *p);
Status soma_p07(SomaCtx *c, const Taskir__Asm__P07 *p);
Status soma_p08(SomaCtx *c, const Taskir__Asm__P08 *p);

#endif
