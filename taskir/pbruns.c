/* pbruns.c: counting and decoding the runs of varints that pb_wire_lift lifted out of a
 * .pb, on threads (pbruns.h). Three passes: the runs are cut into pieces of about a MiB,
 * each ending where a varint ends (so that every piece is whole varints, and a piece is
 * malformed exactly when its run is); the threads count the values of their pieces; the
 * arrays are allocated (one per run, in this thread: the arena is not shared); the threads
 * decode their pieces into them. The threads take the pieces in order, each the next one
 * left when it finished one (tir_parallel_items): a piece's cost is not its bytes alone (a
 * MiB of one-byte varints writes ten times the values of a MiB of ten-byte ones, into fresh
 * pages), so equal shares of the bytes would leave one thread working while the others wait.
 * pb_runs_count stops after the second pass, and may keep the pieces' counts for
 * pb_runs_decode, whose second pass then counts only the pieces of runs not counted before
 * (the pre-check of a file past the decode cap counts its runs exactly, pbwire.c).
 *
 * Decoding narrow with no counts known, the second and third passes are one: the values go
 * one after another into one block of the arena as large as the runs' bytes (a value takes
 * a byte at least; the pages past the values are never touched), each piece's from where
 * the piece before it ends. A thread that takes a piece counts it (the bytes then stay in
 * its cache), waits until the piece before it has its place (that piece was taken earlier,
 * and its thread only counted it first), gives the next piece its place, and decodes. The
 * runs of fewer than narrow_min values are widened into arrays of their own afterwards. */
#include "taskir/pbruns.h"

#include "taskir/arena.h"
#include "taskir/parallel.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { PIECE = 1 << 20 };

typedef struct Piece {
    size_t run;
    const uint8_t *p;
    size_t len;
    uint64_t count, at;         /* its values, and where they go in its run's array */
    bool known;                 /* count was counted before (PbRunCounts) */
    bool wide;                  /* decoded narrow, a value did not fit int8 */
} Piece;

/* The fused pass's places: ends[i] is 1 + where piece i's values end in the block, 0 until
 * it is known. */
typedef atomic_uint_fast64_t PieceEnd;

typedef struct Pieces {
    Piece *v;
    size_t n;
    size_t bytes;               /* of all pieces */
    uint32_t threads;           /* taking the pieces */
    uint32_t **vals;
    int8_t **vals8;             /* NULL, or per run: its int8 array (NULL: vals has it) */
    bool counting;              /* pass 2 (count) or 3 (decode) */
    atomic_bool bad;            /* a piece did not decode (set by any thread) */
    int8_t *block;              /* the fused pass: every value, piece after piece, or NULL */
    PieceEnd *ends;             /* the fused pass: per piece */
} Pieces;

/* Where piece i's values start in the fused pass's block, once the piece before it has its
 * place. */
static uint64_t fused_start(Pieces *P, size_t i)
{
    uint64_t e;
    unsigned spins = 0;
    if (i == 0)
        return 0;
    while (!(e = atomic_load_explicit(&P->ends[i - 1], memory_order_acquire)))
        if (++spins >= 256) /* its thread is off the processor: give it ours */
            sched_yield(), spins = 0;
    return e - 1;
}

/* Piece i in the fused pass: counted (unless known), placed, decoded narrow into the block;
 * c->at is its place in the block until pb_runs_decode_narrow makes it its run's. */
static void fused_piece(Pieces *P, size_t i)
{
    Piece *c = &P->v[i];
    if (!c->known)
        c->count = pb_varint_count(c->p, c->len);
    c->at = fused_start(P, i);
    atomic_store_explicit(&P->ends[i], c->at + c->count + 1, memory_order_release);
    PbNarrow r = pb_varint_decode8(c->p, c->len, P->block + c->at, c->count);
    c->wide = r == PB_NARROW_WIDE;
    if (r == PB_NARROW_MALFORMED)
        atomic_store_explicit(&P->bad, true, memory_order_relaxed);
}

/* Pieces [lo, hi) of ctx (a Pieces): counted or decoded. */
static void work(void *ctx, int64_t lo, int64_t hi)
{
    Pieces *P = ctx;
    for (size_t i = (size_t)lo; i < (size_t)hi; i++) {
        Piece *c = &P->v[i];
        if (P->block) {
            fused_piece(P, i);
        } else if (P->counting) {
            if (!c->known)
                c->count = pb_varint_count(c->p, c->len);
        } else if (P->vals8 && P->vals8[c->run]) {
            PbNarrow r = pb_varint_decode8(c->p, c->len, P->vals8[c->run] + c->at, c->count);
            c->wide = r == PB_NARROW_WIDE;
            if (r == PB_NARROW_MALFORMED)
                atomic_store_explicit(&P->bad, true, memory_order_relaxed);
        } else if (!pb_varint_decode32(c->p, c->len, P->vals[c->run] + c->at, c->count))
            atomic_store_explicit(&P->bad, true, memory_order_relaxed);
    }
}

/* Cuts run [p, p + len) into pieces appended to P (P->v has room for them). */
static void cut(Pieces *P, size_t run, const uint8_t *p, size_t len)
{
    size_t o = 0;
    do {
        size_t e = len - o > PIECE ? o + PIECE : len;
        while (e < len && (p[e - 1] & 0x80)) /* end after the end of a varint */
            e++;
        P->v[P->n++] = (Piece){run, p + o, e - o, 0, 0, false, false};
        P->bytes += e - o;
        o = e;
    } while (o < len);
}

/* The index of the run of k that is [p, p + len), or k->n. */
static size_t find_known(const PbRunCounts *k, const uint8_t *p, size_t len)
{
    size_t lo = 0, hi = k->n;
    if (!k->sorted)
        return k->n;
    while (lo < hi) { /* the first run starting at p or later */
        size_t mid = lo + (hi - lo) / 2;
        if (k->runs[mid].p < p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < k->n && k->runs[lo].p == p && k->runs[lo].len == len ? lo : k->n;
}

/* Marks the pieces of run i (from piece j on) counted when known has its counts. */
static void take_known(Pieces *P, const PbRunCounts *known, const PbRun *run, size_t j)
{
    size_t r = find_known(known, run->p, run->len);
    if (r == known->n || known->first[r + 1] - known->first[r] != P->n - j)
        return; /* not counted, or cut otherwise (never: the same bytes) */
    for (size_t q = 0; q < P->n - j; q++)
        P->v[j + q].count = known->piece[known->first[r] + q], P->v[j + q].known = true;
}

/* Passes 1 and 2 into P: the pieces of runs[0 .. n) and their counts (those of known, when
 * not NULL, taken from it); count[i] the values of run i, and each piece's place in it. false
 * when out of memory. */
static bool cut_pieces(Pieces *P, const PbRun *runs, size_t n, uint32_t threads,
                       const PbRunCounts *known)
{
    size_t cap = 0;
    for (size_t i = 0; i < n; i++)
        cap += runs[i].len / PIECE + 1; /* <= every byte + 1 per run: no overflow */
    *P = (Pieces){calloc(cap ? cap : 1, sizeof(Piece)), 0, 0, 1, NULL, NULL, true, false, NULL, NULL};
    if (!P->v)
        return false;
    for (size_t i = 0; i < n; i++) {
        size_t j = P->n;
        cut(P, i, runs[i].p, runs[i].len);
        if (known && known->n)
            take_known(P, known, &runs[i], j);
    }
    /* a thread for every 4 MiB at most: fewer bytes are not worth one */
    uint64_t most = P->bytes / ((size_t)4 << 20) + 1;
    P->threads = threads < 1 ? 1 : threads < most ? threads : (uint32_t)most;
    return true;
}

/* Each piece's place in its run and count[i], the values of run i, from the pieces' counts. */
static void place_pieces(Pieces *P, size_t n, uint64_t *count)
{
    for (size_t i = 0; i < n; i++)
        count[i] = 0;
    for (size_t i = 0; i < P->n; i++) {
        P->v[i].at = count[P->v[i].run];
        count[P->v[i].run] += P->v[i].count;
    }
}

static bool count_pieces(Pieces *P, const PbRun *runs, size_t n, uint32_t threads,
                         uint64_t *count, const PbRunCounts *known)
{
    if (!cut_pieces(P, runs, n, threads, known))
        return false;
    bool left = false; /* a piece not known */
    for (size_t i = 0; i < P->n && !left; i++)
        left = !P->v[i].known;
    if (left)
        tir_parallel_items(P->threads, (int64_t)P->n, work, P);
    place_pieces(P, n, count);
    return true;
}

void pb_run_counts_free(PbRunCounts *k)
{
    free(k->runs);
    free(k->first);
    free(k->piece);
    memset(k, 0, sizeof *k);
}

/* Keeps the runs and their pieces' counts of P in k (left zeroed when out of memory). */
static void keep_counts(const Pieces *P, const PbRun *runs, size_t n, PbRunCounts *k)
{
    memset(k, 0, sizeof *k);
    k->runs = malloc((n ? n : 1) * sizeof *k->runs);
    k->first = malloc((n + 1) * sizeof *k->first);
    k->piece = malloc((P->n ? P->n : 1) * sizeof *k->piece);
    if (!k->runs || !k->first || !k->piece) {
        pb_run_counts_free(k);
        return;
    }
    memcpy(k->runs, runs, n * sizeof *runs);
    k->n = n;
    k->sorted = true;
    for (size_t i = 1; i < n; i++)
        k->sorted &= runs[i - 1].p + runs[i - 1].len <= runs[i].p;
    for (size_t i = 0, q = 0; i <= n; i++) {
        while (q < P->n && P->v[q].run < i)
            q++;
        k->first[i] = q;
    }
    for (size_t q = 0; q < P->n; q++)
        k->piece[q] = P->v[q].count;
}

bool pb_runs_count(const PbRun *runs, size_t n, uint32_t threads, uint64_t *count,
                   PbRunCounts *keep)
{
    Pieces P;
    if (!count_pieces(&P, runs, n, threads, count, NULL))
        return false;
    if (keep)
        keep_counts(&P, runs, n, keep);
    free(P.v);
    return true;
}

bool pb_runs_decode(const PbRun *runs, size_t n, Arena *a, uint32_t threads, uint32_t **vals,
                    uint64_t *count, const PbRunCounts *known, bool *malformed)
{
    return pb_runs_decode_narrow(runs, n, a, threads, vals, NULL, 0, count, known, malformed);
}

/* The runs of P that decoded narrow with a value that did not fit: their int8 arrays
 * dropped, uint32 ones allocated and their pieces decoded again into them (P->v then keeps
 * the pieces of those runs only). false when out of memory. */
static bool widen_runs(Pieces *P, size_t n, Arena *a)
{
    bool *redo = calloc(n ? n : 1, sizeof *redo);
    uint64_t *c = calloc(n ? n : 1, sizeof *c);
    bool ok = redo && c;
    for (size_t i = 0; ok && i < P->n; i++) {
        redo[P->v[i].run] |= P->v[i].wide;
        c[P->v[i].run] += P->v[i].count;
    }
    for (size_t i = 0; ok && i < n; i++)
        if (redo[i]) {
            P->vals8[i] = NULL; /* its memory stays in the arena, unused */
            ok = (P->vals[i] = arena_alloc(a, (size_t)c[i], sizeof(uint32_t))) != NULL;
        }
    size_t k = 0;
    for (size_t i = 0; ok && i < P->n; i++)
        if (redo[P->v[i].run])
            P->v[k++] = P->v[i];
    if (ok)
        P->n = k;
    free(redo);
    free(c);
    return ok;
}

/* The runs of P decoded narrow with a value that did not fit, decoded again wide
 * (widen_runs). false when out of memory (the arena then failed) or malformed. */
static bool redo_wide(Pieces *P, size_t n, Arena *a, bool *malformed)
{
    bool again = false;
    for (size_t i = 0; i < P->n; i++)
        again = again || P->v[i].wide;
    if (!again)
        return true;
    if (!widen_runs(P, n, a)) {
        arena_set_failed(a);
        return false;
    }
    tir_parallel_items(P->threads, (int64_t)P->n, work, P);
    *malformed = atomic_load(&P->bad);
    return !*malformed;
}

/* After the fused pass: each run's values (and count[i]) where its first piece's start;
 * the pieces' places made their runs'; the runs of fewer than narrow_min values (or none)
 * widened into arrays of their own, unless a value did not fit (widen_runs decodes those
 * again). false when out of memory. */
static bool fused_runs(Pieces *P, size_t n, Arena *a, uint64_t narrow_min, uint64_t *count)
{
    bool *wide = calloc(n ? n : 1, sizeof *wide);
    if (!wide)
        return false;
    for (size_t i = 0; i < n; i++)
        count[i] = 0, P->vals8[i] = NULL, P->vals[i] = NULL;
    for (size_t i = 0; i < P->n; i++) {
        Piece *c = &P->v[i];
        if (!count[c->run])
            P->vals8[c->run] = P->block + c->at;
        c->at = count[c->run];
        count[c->run] += c->count;
        wide[c->run] |= c->wide;
    }
    bool ok = true;
    for (size_t i = 0; ok && i < n; i++) {
        if (wide[i] || (count[i] >= narrow_min && count[i] > 0))
            continue;
        uint32_t *v = arena_alloc(a, (size_t)count[i], sizeof *v);
        ok = v != NULL;
        for (uint64_t k = 0; ok && k < count[i]; k++)
            v[k] = (uint32_t)(int32_t)P->vals8[i][k];
        P->vals[i] = v;
        P->vals8[i] = NULL;
    }
    free(wide);
    return ok;
}

/* pb_runs_decode_narrow with no counts known: the fused pass. */
static bool decode_fused(Pieces *P, size_t n, Arena *a, uint64_t narrow_min, uint64_t *count,
                         bool *malformed)
{
    bool ok = (P->block = arena_alloc(a, P->bytes ? P->bytes : 1, 1)) != NULL &&
              (P->ends = malloc((P->n ? P->n : 1) * sizeof *P->ends)) != NULL;
    for (size_t i = 0; ok && i < P->n; i++)
        atomic_init(&P->ends[i], 0);
    if (ok) {
        tir_parallel_items(P->threads, (int64_t)P->n, work, P);
        *malformed = atomic_load(&P->bad);
        ok = !*malformed;
    }
    free(P->ends);
    P->ends = NULL;
    if (ok && !fused_runs(P, n, a, narrow_min, count)) {
        arena_set_failed(a);
        ok = false;
    }
    P->block = NULL; /* from here on work() decodes as pass 3 */
    return ok;
}

bool pb_runs_decode_narrow(const PbRun *runs, size_t n, Arena *a, uint32_t threads,
                           uint32_t **vals, int8_t **vals8, uint64_t narrow_min,
                           uint64_t *count, const PbRunCounts *known, bool *malformed)
{
    *malformed = false;
    Pieces P;
    if (vals8 && !(known && known->n)) {
        if (!cut_pieces(&P, runs, n, threads, NULL)) {
            arena_set_failed(a);
            return false;
        }
        P.vals = vals;
        P.vals8 = vals8;
        P.counting = false;
        bool ok = decode_fused(&P, n, a, narrow_min, count, malformed) &&
                  redo_wide(&P, n, a, malformed);
        free(P.v);
        return ok;
    }
    if (!count_pieces(&P, runs, n, threads, count, known)) {
        arena_set_failed(a);
        return false;
    }
    P.vals = vals;
    P.vals8 = vals8;
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        vals[i] = NULL;
        if (vals8)
            vals8[i] = NULL;
        if (vals8 && count[i] >= narrow_min && count[i] > 0) {
            ok = (vals8[i] = arena_alloc(a, (size_t)count[i], 1)) != NULL;
        } else {
            ok = (vals[i] = arena_alloc(a, (size_t)count[i], sizeof(uint32_t))) != NULL;
        }
    }
    if (ok) {
        P.counting = false;
        tir_parallel_items(P.threads, (int64_t)P.n, work, &P);
        *malformed = atomic_load(&P.bad);
        ok = !*malformed;
    }
    ok = ok && redo_wide(&P, n, a, malformed);
    free(P.v);
    return ok;
}
