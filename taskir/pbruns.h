/* pbruns.h: counting and decoding the runs of varints that pb_wire_lift lifted out of a .pb
 * (pbio.c's loader), and counting those of the pre-check's memory bound (pbwire.c), on
 * threads. */
#ifndef TASKIR_PBRUNS_H
#define TASKIR_PBRUNS_H

#include "taskir/arena.h"
#include "taskir/pbvarint.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The counts of runs counted once (pb_runs_count with keep), which pb_runs_decode takes
 * instead of counting those runs again: each run's pieces' values. */
typedef struct PbRunCounts {
    PbRun *runs;        /* the counted runs, in the order they were given */
    size_t n;
    size_t *first;      /* run i's pieces' counts: piece[first[i]] .. piece[first[i + 1]) */
    uint64_t *piece;
    bool sorted;        /* the runs start one after another in memory (a binary search finds
                           them) */
} PbRunCounts;

void pb_run_counts_free(PbRunCounts *k); /* accepts a zeroed one; zeroes it */

/* count[i] = pb_varint_count(runs[i].p, runs[i].len) for i < n, the work cut and shared as
 * pb_runs_decode's; with keep (not NULL), the runs and their pieces' counts are kept there
 * (pb_run_counts_free it; left zeroed when memory for it runs out). false when out of memory
 * (count then undefined). */
bool pb_runs_count(const PbRun *runs, size_t n, uint32_t threads, uint64_t *count,
                   PbRunCounts *keep);

/* Decodes runs[0 .. n) into new arrays of the arena: vals[i] (count[i] values, as
 * pb_varint_decode32 gives them). The work is cut into pieces of about a MiB at varint ends
 * and shared by up to threads threads, each taking the next piece left when it finished one;
 * the results do not depend on the thread count. The pieces of a run known counts (or NULL)
 * holds, the same bytes, are not counted again. false when a run is malformed (*malformed
 * set) or memory runs out (the arena then failed). */
bool pb_runs_decode(const PbRun *runs, size_t n, Arena *a, uint32_t threads, uint32_t **vals,
                    uint64_t *count, const PbRunCounts *known, bool *malformed);

/* pb_runs_decode, with the runs of narrow_min values or more (and at least one) decoded as
 * int8 into vals8[i] (vals[i] NULL) when every value of the run is in -128 .. 127 as an
 * int32 (pb_varint_decode8); the others, and those runs whose values do not all fit, into
 * vals[i] (vals8[i] NULL). A run that does not fit is decoded a second time, its int8
 * array left unused in the arena. vals8 NULL: pb_runs_decode. */
bool pb_runs_decode_narrow(const PbRun *runs, size_t n, Arena *a, uint32_t threads,
                           uint32_t **vals, int8_t **vals8, uint64_t narrow_min,
                           uint64_t *count, const PbRunCounts *known, bool *malformed);

#endif
