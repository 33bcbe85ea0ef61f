/* test_pbvarint.c: the loader's fast path for large tensors (taskir/pbvarint.c and
 * pb_wire_lift): counting and decoding runs of varints against a byte-at-a-time reference on
 * random runs (every length 1..10, non-canonical forms, sizes around the 64-byte blocks,
 * extreme values), malformed runs refused, and graphs whose tensors carry their values in
 * several runs, packed and not, in int32_data and uint32_data, in a block twice (protobuf
 * merges the two), loading with exactly the values protobuf-c's own unpack gives, on any
 * number of threads; the pre-check's memory bound deciding as an exact count would, its
 * count shared by threads (pb_runs_count) with the same findings for every thread count;
 * runs decoded narrow (pb_varint_decode8, LoadOptions.narrow: int8 values in a byte each)
 * giving the same values, the same saved bytes, and the wide form where a value does not
 * fit; a graph loaded from its mapped file with LoadOptions.file stops the file's page
 * thread. Decoded narrow with no counts known, the pieces are counted and placed one after
 * another as they are decoded (pbruns.c): several runs of several pieces each in one graph
 * give the same values on 1 to 4 threads, each held as before (narrow from 64 values, wide
 * below or with a value past int8). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <fcntl.h>
#include <unistd.h>

#include "taskir/filemap.h"
#include "taskir/graph.h"
#include "taskir/pbio.h"
#include "taskir/pbruns.h"
#include "taskir/pbvarint.h"
#include "taskgraph.pb-c.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Appends v as a varint of at least min_len bytes (non-canonical padding when longer than
 * needed; at most 10). */
static size_t put(uint8_t *out, uint64_t v, int min_len)
{
    size_t n = 0;
    do {
        uint8_t b = v & 0x7f;
        v >>= 7;
        if (v || (int)n + 1 < min_len)
            b |= 0x80;
        out[n++] = b;
    } while (v || (int)n < min_len);
    return n;
}

/* A random value: small or large, positive or negative (10 bytes as an int32), extremes. */
static uint64_t value(void)
{
    switch (rnd() % 6) {
    case 0: return rnd() % 128;
    case 1: return (uint64_t)(int64_t)(int32_t)(-(int32_t)(rnd() % 129));
    case 2: return (uint32_t)rnd();
    case 3: return (uint64_t)(int64_t)(int32_t)rnd();
    case 4: return rnd() % 2 ? 0x80000000u : (uint64_t)(int64_t)INT32_MIN;
    default: return rnd(); /* 64 bits: protobuf reads the low 32 */
    }
}

static void test_random_runs(void **state)
{
    (void)state;
    enum { MAXV = 400 };
    uint8_t buf[MAXV * 10 + 16];
    uint32_t want[MAXV], got[MAXV + 1];
    for (int iter = 0; iter < 3000; iter++) {
        int nv = (int)(rnd() % MAXV);
        size_t n = 0;
        for (int i = 0; i < nv; i++) {
            uint64_t v = value();
            want[i] = (uint32_t)v;
            n += put(buf + n, v, rnd() % 8 ? 1 : (int)(1 + rnd() % 10));
        }
        assert_int_equal(pb_varint_count(buf, n), (uint64_t)nv);
        for (int path = PB_VARINT_BYTES; path <= PB_VARINT_BEST; path++) {
            memset(got, 0, sizeof got);
            got[nv] = 0xdeadbeef;
            assert_true(pb_varint_decode32_by((PbVarintPath)path, buf, n, got, (uint64_t)nv));
            assert_memory_equal(got, want, (size_t)nv * sizeof *got);
            assert_int_equal(got[nv], 0xdeadbeef);
            /* the run cut short by one byte: the last varint is unfinished */
            if (n >= 2 && (buf[n - 2] & 0x80))
                assert_false(pb_varint_decode32_by((PbVarintPath)path, buf, n - 1, got,
                                                   pb_varint_count(buf, n - 1)));
        }
    }
}

/* A value that fits int8 as an int32: -128 .. 127, negative ones in 10 bytes. */
static uint64_t small_value(void)
{
    return (uint64_t)(int64_t)(int32_t)(rnd() % 256) - 128;
}

/* pb_varint_decode8 by its one-pass path (BMI2, where the CPU has it) and by its chunks:
 * the same answer, and the same values when they fit; the answer. */
static PbNarrow decode8_both(const uint8_t *p, size_t n, int8_t *out, uint64_t count)
{
    int8_t *other = malloc(count + 1);
    assert_non_null(other);
    PbNarrow a = pb_varint_decode8_by(PB_VARINT_BMI2, p, n, out, count);
    PbNarrow b = pb_varint_decode8_by(PB_VARINT_BYTES, p, n, other, count);
    assert_int_equal(a, b);
    assert_int_equal(pb_varint_decode8(p, n, other, count), a);
    if (a == PB_NARROW_OK && count)
        assert_memory_equal(out, other, count);
    free(other);
    return a;
}

/* pb_varint_decode8 against pb_varint_decode32 on runs of small values (across its 4 KiB
 * chunks and its 64-byte blocks, some varints in their longer forms), by both its paths: the
 * same values in a byte each; one value out of -128 .. 127 anywhere makes the run wide, a cut
 * one malformed. */
static void test_decode8(void **state)
{
    (void)state;
    enum { MAXV = 12000 };
    uint8_t *buf = malloc(MAXV * 10 + 16);
    uint32_t *want = malloc(MAXV * sizeof *want);
    int8_t *got = malloc(MAXV + 1);
    assert_true(buf && want && got);
    static const uint64_t outside[] = {128, (uint64_t)(int64_t)-129, 0x80000000u, 255, 1u << 20};
    for (int iter = 0; iter < 300; iter++) {
        int nv = (int)(rnd() % MAXV);
        size_t n = 0;
        for (int i = 0; i < nv; i++) {
            uint64_t v = small_value();
            want[i] = (uint32_t)v;
            n += put(buf + n, v, rnd() % 8 ? 1 : (int)(1 + rnd() % 10));
        }
        got[nv] = 0x5a;
        assert_int_equal(decode8_both(buf, n, got, (uint64_t)nv), PB_NARROW_OK);
        for (int i = 0; i < nv; i++)
            assert_int_equal((int32_t)got[i], (int32_t)want[i]);
        assert_int_equal(got[nv], 0x5a);
        if (n >= 2 && (buf[n - 2] & 0x80))
            assert_int_equal(decode8_both(buf, n - 1, got, pb_varint_count(buf, n - 1)),
                             PB_NARROW_MALFORMED);
        if (nv == 0)
            continue;
        /* one value replaced by one that does not fit */
        int at = (int)(rnd() % (uint64_t)nv);
        size_t m = 0;
        uint8_t *wide = malloc(MAXV * 10 + 16);
        assert_non_null(wide);
        for (int i = 0; i < nv; i++)
            m += put(wide + m, i == at ? outside[rnd() % 5] : (uint64_t)(int64_t)(int32_t)want[i],
                     1);
        assert_int_equal(decode8_both(wide, m, got, (uint64_t)nv), PB_NARROW_WIDE);
        free(wide);
    }
    /* 11 bytes of varint: malformed, not wide */
    memset(buf, 0xff, 10);
    buf[10] = 1;
    assert_int_equal(decode8_both(buf, 11, got, 1), PB_NARROW_MALFORMED);
    free(buf);
    free(want);
    free(got);
}

/* Which paths this machine runs (all of them are held to the reference above). */
static void test_paths(void **state)
{
    (void)state;
    assert_true(pb_varint_path_ok(PB_VARINT_BYTES));
    assert_true(pb_varint_path_ok(PB_VARINT_BEST));
    printf("pbvarint paths: words %s, bmi2 %s\n", pb_varint_path_ok(PB_VARINT_WORDS) ? "yes" : "no",
           pb_varint_path_ok(PB_VARINT_BMI2) ? "yes" : "no");
}

static void malformed_by(PbVarintPath path)
{
    uint8_t buf[300];
    uint32_t out[300];
    for (size_t at = 0; at < 200; at += 7) {
        /* an 11-byte varint at byte at, among one-byte ones */
        memset(buf, 0x05, sizeof buf);
        memset(buf + at, 0xff, 10);
        buf[at + 10] = 0x01;
        uint64_t c = pb_varint_count(buf, sizeof buf);
        assert_int_equal(c, sizeof buf - 10);
        assert_false(pb_varint_decode32_by(path, buf, sizeof buf, out, c));
        /* ten bytes are the most: that one decodes */
        buf[at + 9] = 0x01;
        c = pb_varint_count(buf, sizeof buf);
        assert_true(pb_varint_decode32_by(path, buf, sizeof buf, out, c));
        assert_int_equal(out[at], 0xffffffffu);
        /* a count smaller than the run's: refused, nothing written past it */
        out[c - 1] = 7;
        assert_false(pb_varint_decode32_by(path, buf, sizeof buf, out, c - 1));
        assert_int_equal(out[c - 1], 7);
    }
    /* the last varint cut off */
    memset(buf, 0x05, sizeof buf);
    buf[sizeof buf - 1] = 0x85;
    assert_false(pb_varint_decode32_by(path, buf, sizeof buf, out,
                                       pb_varint_count(buf, sizeof buf)));
    assert_true(pb_varint_decode32_by(path, buf, 0, out, 0));
}

static void test_malformed_runs(void **state)
{
    (void)state;
    for (int path = PB_VARINT_BYTES; path <= PB_VARINT_BEST; path++)
        malformed_by((PbVarintPath)path);
}

/* ---- graphs: the loader against protobuf-c's own unpack ---- */

typedef struct Buf {
    uint8_t *p;
    size_t n, cap;
} Buf;

static void grow(Buf *b, size_t more)
{
    if (b->n + more > b->cap) {
        b->cap = (b->n + more) * 2;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
}

static void add_varint(Buf *b, uint64_t v, int min_len)
{
    grow(b, 10);
    b->n += put(b->p + b->n, v, min_len);
}

static void add_bytes(Buf *b, uint32_t field, const Buf *body)
{
    add_varint(b, (uint64_t)field << 3 | 2, 1);
    add_varint(b, body->n, 1);
    grow(b, body->n);
    if (body->n)
        memcpy(b->p + b->n, body->p, body->n);
    b->n += body->n;
}

/* A Tensor with its int32_data (field 4) and uint32_data (5) in random runs: packed runs of
 * up to 300 values (some empty) and single varints; with small, every value fits int8 in
 * some tensors (as the weights of a model). */
static void random_tensor(Buf *t, bool small)
{
    bool fits = small && rnd() % 2;
    add_varint(t, 1 << 3, 1); /* dims: 7 */
    add_varint(t, 7, 1);
    int runs = (int)(rnd() % 5);
    for (int r = 0; r < runs; r++) {
        uint32_t field = rnd() % 3 ? 4 : 5;
        if (rnd() % 3 == 0) {
            add_varint(t, (uint64_t)field << 3, 1);
            add_varint(t, fits ? small_value() : value(), 1);
            continue;
        }
        Buf run = {0};
        int nv = rnd() % 4 == 0 ? 0 : (int)(rnd() % 300);
        for (int i = 0; i < nv; i++)
            add_varint(&run, fits ? small_value() : value(), rnd() % 16 ? 1 : 10);
        add_bytes(t, field, &run);
        free(run.p);
    }
}

static void check_tensor(const Tensor *t, const Taskir__Tensor *w)
{
    assert_int_equal(t->n_i32, w->n_int32_data);
    assert_int_equal(t->n_u32, w->n_uint32_data);
    if (t->i8) { /* held narrow: 64 values or more, each in -128 .. 127 */
        assert_null(t->i32);
        assert_true(t->n_i32 >= 64);
        for (uint32_t i = 0; i < t->n_i32; i++)
            assert_int_equal(tensor_i32_at(t, i), w->int32_data[i]);
    } else if (t->n_i32)
        assert_memory_equal(t->i32, w->int32_data, t->n_i32 * sizeof(int32_t));
    if (t->n_u32)
        assert_memory_equal(t->u32, w->uint32_data, t->n_u32 * sizeof(uint32_t));
}

/* One packed run of int32_data of 64 to 363 values, all in -128 .. 127: what a narrow load
 * holds as int8 (the payload's bytes from the tensor's field 4). */
static Buf narrow_run(uint32_t *nv)
{
    Buf run = {0};
    *nv = 64 + (uint32_t)(rnd() % 300);
    for (uint32_t i = 0; i < *nv; i++)
        add_varint(&run, small_value(), rnd() % 16 ? 1 : 10);
    return run;
}

static void test_lifted_graphs(void **state)
{
    (void)state;
    for (int iter = 0; iter < 400; iter++) {
        bool narrow = iter % 2;
        Buf g = {0};
        int nb = 1 + (int)(rnd() % 6);
        bool expect8[6] = {false};
        for (int i = 0; i < nb; i++) {
            Buf b = {0};
            add_varint(&b, 1 << 3, 1); /* id */
            add_varint(&b, (uint64_t)i, 1);
            int ndata = (int)(rnd() % 3); /* a second data field merges into the first */
            for (int k = 0; k < ndata; k++) {
                Buf t = {0};
                random_tensor(&t, narrow);
                add_bytes(&b, 7, &t);
                free(t.p);
            }
            if (narrow && ndata == 0 && rnd() % 2) { /* a tensor a narrow load holds so */
                uint32_t nv;
                Buf run = narrow_run(&nv), t = {0};
                add_varint(&t, 1 << 3, 1); /* dims: nv */
                add_varint(&t, nv, 1);
                add_bytes(&t, 4, &run);
                add_bytes(&b, 7, &t);
                free(run.p);
                free(t.p);
                expect8[i] = true;
            }
            add_bytes(&g, 1, &b);
            free(b.p);
        }
        Taskir__TaskGraph *w = taskir__task_graph__unpack(NULL, g.n, g.p);
        assert_non_null(w);
        Diag d;
        diag_init(&d, "t.pb");
        Graph *graph = NULL, *wide = NULL;
        LoadOptions lo = {.threads = 1, .narrow = narrow};
        assert_int_equal(graph_load_pb_mem_opts(g.p, g.n, &lo, &graph, &d), ST_OK);
        assert_int_equal(graph->n_blocks, w->n_blocks);
        for (uint32_t i = 0; i < graph->n_blocks; i++) {
            const Block *bl = graph->blocks[i];
            assert_int_equal(bl->data != NULL, w->blocks[i]->data != NULL);
            if (bl->data)
                check_tensor(bl->data, w->blocks[i]->data);
            if (!narrow && bl->data)
                assert_null(bl->data->i8);
            if (expect8[i]) /* its one packed run of small values: held narrow */
                assert_non_null(bl->data->i8);
        }
        /* the same bytes saved either way */
        assert_int_equal(graph_load_pb_mem(g.p, g.n, &wide, &d), ST_OK);
        uint8_t *b0, *b1;
        size_t l0, l1;
        assert_int_equal(graph_pack(graph, &b0, &l0, &d), ST_OK);
        assert_int_equal(graph_pack(wide, &b1, &l1, &d), ST_OK);
        assert_int_equal(l0, l1);
        assert_memory_equal(b0, b1, l0);
        free(b0);
        free(b1);
        graph_destroy(wide);
        graph_destroy(graph);
        diag_finish(&d);
        taskir__task_graph__free_unpacked(w, NULL);
        free(g.p);
    }
}

/* A malformed run inside a lifted field is the fault of the file's bytes, at its offset. */
static void test_lifted_fault(void **state)
{
    (void)state;
    Buf run = {0}, t = {0}, b = {0}, g = {0};
    for (int i = 0; i < 100; i++)
        add_varint(&run, 1, 1);
    grow(&run, 11);
    memset(run.p + run.n, 0xff, 10);
    run.p[run.n + 10] = 0x01;
    run.n += 11;
    add_bytes(&t, 4, &run);
    add_bytes(&b, 7, &t);
    add_bytes(&g, 1, &b);
    Diag d;
    diag_init(&d, "t.pb");
    Graph *graph = NULL;
    assert_int_equal(graph_load_pb_mem(g.p, g.n, &graph, &d), ST_LOGIC);
    assert_null(graph);
    assert_true(d.n >= 1);
    assert_non_null(strstr(d.entries[0].rule, "wire."));
    diag_finish(&d);
    free(run.p);
    free(t.p);
    free(b.p);
    free(g.p);
}

/* The first finding of d as "rule where what": kept in first (len bytes) on one thread, equal
 * to it on the others. */
static void same_finding(const Diag *d, uint32_t threads, char *first, size_t len)
{
    char msg[512];
    snprintf(msg, sizeof msg, "%s %s %s", d->entries[0].rule, d->entries[0].where,
             d->entries[0].what);
    if (threads == 1)
        snprintf(first, len, "%s", msg);
    assert_string_equal(msg, first);
}

/* A tensor large enough to be cut into pieces and shared by threads loads the same whatever
 * the thread count; a fault in a late piece is the same finding. */
/* g's bytes, with an 11-byte varint in a run, refused on 1 to 4 threads with the same
 * finding [wire.varint]. */
static void refused_alike(const Buf *g, bool narrow)
{
    char first[512] = "";
    for (uint32_t threads = 1; threads <= 4; threads++) {
        LoadOptions lo = {.threads = threads, .narrow = narrow};
        Diag d;
        diag_init(&d, "t.pb");
        Graph *graph = NULL;
        assert_int_equal(graph_load_pb_mem_opts(g->p, g->n, &lo, &graph, &d), ST_LOGIC);
        assert_null(graph);
        same_finding(&d, threads, first, sizeof first);
        diag_finish(&d);
    }
    assert_non_null(strstr(first, "wire.varint"));
}

/* The graph of g's bytes loaded narrow on threads threads (graph_destroy it). */
static Graph *load_narrow(const Buf *g, uint32_t threads)
{
    LoadOptions lo = {.threads = threads, .narrow = true};
    Diag d;
    diag_init(&d, "t.pb");
    Graph *graph = NULL;
    assert_int_equal(graph_load_pb_mem_opts(g->p, g->n, &lo, &graph, &d), ST_OK);
    diag_finish(&d);
    return graph;
}

/* A run of 3 M int8 values, decoded narrow on 1 to 4 threads (pieces of a MiB): the same
 * values in a byte each; with one value past int8 at its end, the same values wide. */
static void test_threads_narrow(void **state)
{
    (void)state;
    for (int last_wide = 0; last_wide < 2; last_wide++) {
        Buf run = {0}, t = {0}, b = {0}, g = {0};
        for (int i = 0; i < 3000000; i++)
            add_varint(&run, i == 2999999 && last_wide ? 200 : small_value(), 1);
        add_bytes(&t, 4, &run);
        add_bytes(&b, 7, &t);
        add_bytes(&g, 1, &b);
        Taskir__TaskGraph *w = taskir__task_graph__unpack(NULL, g.n, g.p);
        assert_non_null(w);
        for (uint32_t threads = 1; threads <= 4; threads++) {
            Graph *graph = load_narrow(&g, threads);
            const Tensor *x = graph->blocks[0]->data;
            assert_int_equal(x->i8 != NULL, !last_wide);
            check_tensor(x, w->blocks[0]->data);
            graph_destroy(graph);
        }
        taskir__task_graph__free_unpacked(w, NULL);
        free(run.p), free(t.p), free(b.p), free(g.p);
    }
}

/* Three blocks whose data tensors are one packed run each, loaded narrow on 1 to 4 threads:
 * 1.5 M int8 values of one and ten bytes (pieces of a MiB, a place each after the piece
 * before it), held narrow; 50 negative values (500 bytes, more than 64, but 50 values),
 * held wide; 2 M values with one past int8 amid them, held wide. An 11-byte varint near the
 * end of the first run: the same finding on every thread count. */
static void test_threads_narrow_runs(void **state)
{
    (void)state;
    Buf g = {0};
    size_t end0 = 0; /* where the first block's bytes end */
    static const int nv[3] = {1500000, 50, 2000000};
    for (int k = 0; k < 3; k++) {
        Buf run = {0}, t = {0}, b = {0};
        for (int i = 0; i < nv[k]; i++) {
            uint64_t v = k == 1 ? (uint64_t)(int64_t)-(1 + i) : small_value();
            if (k == 2 && i == 1234567)
                v = 300;
            add_varint(&run, v, k == 1 || rnd() % 4 ? 1 : 10);
        }
        add_bytes(&t, 4, &run);
        add_bytes(&b, 7, &t);
        add_bytes(&g, 1, &b);
        free(run.p), free(t.p), free(b.p);
        if (k == 0)
            end0 = g.n;
    }
    Taskir__TaskGraph *w = taskir__task_graph__unpack(NULL, g.n, g.p);
    assert_non_null(w);
    for (uint32_t threads = 1; threads <= 4; threads++) {
        Graph *graph = load_narrow(&g, threads);
        for (int k = 0; k < 3; k++) {
            const Tensor *x = graph->blocks[k]->data;
            assert_int_equal(x->i8 != NULL, k == 0);
            check_tensor(x, w->blocks[k]->data);
        }
        graph_destroy(graph);
    }
    taskir__task_graph__free_unpacked(w, NULL);
    size_t at = end0 - 1000;
    while (g.p[at - 1] & 0x80)
        at++;
    memset(g.p + at, 0xff, 10);
    refused_alike(&g, true);
    free(g.p);
}

/* g: a graph of one block whose data tensor holds n values of value() in one packed run
 * (run, t, b: the run, the tensor, the block; free all four). */
static void values_graph(int n, Buf *run, Buf *t, Buf *b, Buf *g)
{
    for (int i = 0; i < n; i++)
        add_varint(run, value(), 1);
    add_bytes(t, 4, run);
    add_bytes(b, 7, t);
    add_bytes(g, 1, b);
}

static void test_threads(void **state)
{
    (void)state;
    Buf run = {0}, t = {0}, b = {0}, g = {0};
    values_graph(3000000, &run, &t, &b, &g);
    assert_true(run.n > ((size_t)12 << 20));
    Taskir__TaskGraph *w = taskir__task_graph__unpack(NULL, g.n, g.p);
    assert_non_null(w);
    for (uint32_t threads = 0; threads <= 8; threads += threads < 4 ? 1 : 4) {
        LoadOptions lo = {.threads = threads};
        Diag d;
        diag_init(&d, "t.pb");
        Graph *graph = NULL;
        assert_int_equal(graph_load_pb_mem_opts(g.p, g.n, &lo, &graph, &d), ST_OK);
        check_tensor(graph->blocks[0]->data, w->blocks[0]->data);
        graph_destroy(graph);
        diag_finish(&d);
    }
    taskir__task_graph__free_unpacked(w, NULL);
    /* an 11-byte varint near the end of the run */
    size_t at = g.n - 1000;
    while (g.p[at - 1] & 0x80)
        at++;
    memset(g.p + at, 0xff, 10);
    refused_alike(&g, false);
    free(run.p);
    free(t.p);
    free(b.p);
    free(g.p);
}

/* A graph of 17 MiB or more loaded from its file mapped with a thread bringing the pages in
 * (tir_file_bytes_threads, 2 threads), dropped from the cache first so that the thread is
 * still reading it from the disk: with LoadOptions.file the load brings the rest in with the
 * thread and ends it (filemap.h, tir_file_bring_in_rest: f.bg NULL after it, with the same
 * values as protobuf-c's unpack); without, the thread is left to the release. */
static void test_load_file_rest(void **state)
{
    (void)state;
    Buf run = {0}, t = {0}, b = {0}, g = {0};
    values_graph(4200000, &run, &t, &b, &g);
    assert_true(g.n > ((size_t)17 << 20));
    Taskir__TaskGraph *w = taskir__task_graph__unpack(NULL, g.n, g.p);
    assert_non_null(w);
    const char *dir = getenv("TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/tir_rest_XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, g.p, g.n), (ssize_t)g.n);
    for (int with = 0; with < 2; with++) {
        fdatasync(fd);
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED); /* advice: the test holds either way */
        Diag d;
        diag_init(&d, "t.pb");
        TirFileBytes f;
        assert_int_equal(tir_file_bytes_threads(path, g.n, 2, &f, &d), ST_OK);
        assert_non_null(f.bg);
        LoadOptions lo = {.threads = 2, .file = with ? &f : NULL};
        Graph *graph = NULL;
        assert_int_equal(graph_load_pb_mem_opts(f.p, f.len, &lo, &graph, &d), ST_OK);
        assert_true(with ? f.bg == NULL : f.bg != NULL);
        check_tensor(graph->blocks[0]->data, w->blocks[0]->data);
        graph_destroy(graph);
        tir_file_release(&f);
        diag_finish(&d);
    }
    close(fd);
    unlink(path);
    taskir__task_graph__free_unpacked(w, NULL);
    free(run.p), free(t.p), free(b.p), free(g.p);
}

/* pb_wire_precheck's memory estimate takes a packed run of an uncapped field at one value a
 * byte, and counts exactly only when that bound passes the limit: the decision is the exact
 * one. A run of 100 ten-byte varints (1000 bytes, 400 bytes of values): the smallest limit
 * that accepts it lies below the bound's 4000 bytes of values. */
static void test_precheck_bound(void **state)
{
    (void)state;
    Buf run = {0}, t = {0}, b = {0}, g = {0};
    for (int i = 0; i < 100; i++)
        add_varint(&run, (uint64_t)(int64_t)-1, 1);
    assert_int_equal(run.n, 1000);
    add_bytes(&t, 4, &run);
    add_bytes(&b, 7, &t);
    add_bytes(&g, 1, &b);
    uint64_t lo = 0, hi = 1 << 20; /* lo refused, hi accepted */
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        Diag d;
        diag_init(&d, "t.pb");
        Status st = pb_wire_precheck(&taskir__task_graph__descriptor, g.p, g.n, NULL, 0, mid, &d);
        if (st == ST_OK) {
            hi = mid;
        } else {
            assert_int_equal(st, ST_LOGIC);
            assert_string_equal(d.entries[0].rule, "limit.decode");
            lo = mid;
        }
        diag_finish(&d);
    }
    assert_true(hi >= 400);
    assert_true(hi < 4000);
    free(run.p);
    free(t.p);
    free(b.p);
    free(g.p);
}

/* pb_runs_count against pb_varint_count, run by run: odd numbers of runs of odd sizes (empty,
 * one byte, a varint cut off at the end, several pieces of a MiB), on 1 to 5 threads; with
 * the counts kept, pb_runs_decode taking them gives what it gives counting itself. */
static void test_runs_count(void **state)
{
    (void)state;
    Buf all = {0};
    size_t sizes[] = {0, 1, 3, 255, 256, 1000, (size_t)1 << 20, ((size_t)5 << 20) + 7, 17};
    size_t n = sizeof sizes / sizeof sizes[0];
    size_t at[sizeof sizes / sizeof sizes[0]];
    for (size_t i = 0; i < n; i++) {
        at[i] = all.n;
        while (all.n - at[i] < sizes[i])
            add_varint(&all, value(), rnd() % 8 ? 1 : 10);
        all.n = at[i] + sizes[i]; /* cut: the last varint may end unfinished */
    }
    PbRun runs[sizeof sizes / sizeof sizes[0]];
    uint64_t want[sizeof sizes / sizeof sizes[0]], got[sizeof sizes / sizeof sizes[0]];
    for (size_t i = 0; i < n; i++) {
        runs[i] = (PbRun){all.p + at[i], sizes[i]};
        want[i] = pb_varint_count(runs[i].p, runs[i].len);
    }
    for (size_t k = 1; k <= n; k += 2) /* the first k runs: odd counts */
        for (uint32_t threads = 1; threads <= 5; threads++) {
            memset(got, 0xff, sizeof got);
            assert_true(pb_runs_count(runs, k, threads, got, NULL));
            for (size_t i = 0; i < k; i++)
                assert_int_equal(got[i], want[i]);
        }
    /* kept, the decoding takes the counts of the runs it finds there (the same bytes) and
     * counts the others: the same values and counts as without them, on 1 to 3 threads */
    for (uint32_t threads = 1; threads <= 3; threads++) {
        PbRunCounts keep;
        assert_true(pb_runs_count(runs + 1, n - 2, threads, got, &keep)); /* not the ends */
        assert_int_equal(keep.n, n - 2);
        assert_true(keep.sorted);
        for (size_t i = 0; i < keep.n; i++) {
            uint64_t sum = 0;
            for (size_t q = keep.first[i]; q < keep.first[i + 1]; q++)
                sum += keep.piece[q];
            assert_int_equal(sum, want[i + 1]);
            assert_true(keep.first[i + 1] > keep.first[i]);
        }
        Arena *a = arena_create(), *b = arena_create();
        assert_true(a && b);
        uint32_t *va[sizeof sizes / sizeof sizes[0]], *vb[sizeof sizes / sizeof sizes[0]];
        uint64_t ca[sizeof sizes / sizeof sizes[0]], cb[sizeof sizes / sizeof sizes[0]];
        bool bad = true;
        /* runs of the same sizes not cut (the decoding refuses a cut varint), the first and
         * the last not kept */
        Buf wb = {0};
        size_t wat[sizeof sizes / sizeof sizes[0]];
        for (size_t i = 0; i < n; i++) {
            wat[i] = wb.n;
            while (wb.n - wat[i] < sizes[i])
                add_varint(&wb, value(), rnd() % 8 ? 1 : 10);
        }
        PbRun whole[sizeof sizes / sizeof sizes[0]];
        uint64_t wc[sizeof sizes / sizeof sizes[0]];
        size_t m = n;
        for (size_t i = 0; i < n; i++) {
            whole[i] = (PbRun){wb.p + wat[i], (i + 1 < n ? wat[i + 1] : wb.n) - wat[i]};
            wc[i] = pb_varint_count(whole[i].p, whole[i].len);
        }
        pb_run_counts_free(&keep);
        assert_true(pb_runs_count(whole + 1, n - 2, threads, got, &keep));
        assert_true(pb_runs_decode(whole, m, a, threads, va, ca, NULL, &bad));
        assert_false(bad);
        assert_true(pb_runs_decode(whole, m, b, threads, vb, cb, &keep, &bad));
        assert_false(bad);
        for (size_t i = 0; i < m; i++) {
            assert_int_equal(ca[i], wc[i]);
            assert_int_equal(cb[i], wc[i]);
            assert_memory_equal(va[i], vb[i], ca[i] * sizeof *va[i]);
        }
        free(wb.p);
        arena_destroy(a);
        arena_destroy(b);
        pb_run_counts_free(&keep);
        assert_int_equal(keep.n, 0);
    }
    free(all.p);
}

/* The pre-check's exact count on threads (pb_wire_precheck_threads): a graph whose packed
 * runs pass the bound, long ones (counted on the threads) between short ones (counted in the
 * walk), decides at the same limit and with the same finding on 1 to 4 threads; a capped
 * field past its cap after the bound is found by the exact walk, as on one thread. */
static void test_precheck_threads(void **state)
{
    (void)state;
    Buf g = {0};
    for (int blk = 0; blk < 5; blk++) {
        Buf run = {0}, t = {0}, b = {0};
        int nv = blk % 2 ? 3 : 400000 + blk * 77777;
        for (int i = 0; i < nv; i++)
            add_varint(&run, (uint64_t)(int64_t)-(int64_t)(rnd() % 3), 1);
        add_bytes(&t, 4, &run);
        add_bytes(&b, 7, &t);
        add_bytes(&g, 1, &b);
        free(run.p);
        free(t.p);
        free(b.p);
    }
    /* the smallest limit that accepts it, on one thread */
    uint64_t lo = 0, hi = (uint64_t)1 << 32;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        Diag d;
        diag_init(&d, "t.pb");
        if (pb_wire_precheck(&taskir__task_graph__descriptor, g.p, g.n, NULL, 0, mid, &d) == ST_OK)
            hi = mid;
        else
            lo = mid;
        diag_finish(&d);
    }
    assert_true(hi < g.n * 4); /* below the bound: the exact count decided */
    char first[512] = "";
    for (uint32_t threads = 1; threads <= 4; threads++) {
        Diag d;
        diag_init(&d, "t.pb");
        assert_int_equal(pb_wire_precheck_threads(&taskir__task_graph__descriptor, g.p, g.n,
                                                  NULL, 0, hi, threads, &d), ST_OK);
        assert_int_equal(pb_wire_precheck_threads(&taskir__task_graph__descriptor, g.p, g.n,
                                                  NULL, 0, hi - 1, threads, &d), ST_LOGIC);
        assert_int_equal(d.n, 1);
        same_finding(&d, threads, first, sizeof first);
        diag_finish(&d);
    }
    assert_non_null(strstr(first, "limit.decode"));
    /* then a block of 300 attributes (cap 256): past the bound, found by the exact walk */
    Buf b = {0}, attr = {0};
    for (int i = 0; i < 300; i++)
        add_bytes(&b, 8, &attr);
    add_bytes(&g, 1, &b);
    size_t n_caps;
    const PbFieldCap *caps = graph_pb_caps(&n_caps);
    for (uint32_t threads = 1; threads <= 3; threads++) {
        Diag d;
        diag_init(&d, "t.pb");
        assert_int_equal(pb_wire_precheck_threads(&taskir__task_graph__descriptor, g.p, g.n,
                                                  caps, n_caps, hi + (1 << 20), threads, &d),
                         ST_LOGIC);
        assert_int_equal(d.n, 1);
        assert_string_equal(d.entries[0].rule, "limit.attrs");
        diag_finish(&d);
        diag_init(&d, "t.pb");
        assert_int_equal(pb_wire_precheck_threads(&taskir__task_graph__descriptor, g.p, g.n,
                                                  caps, n_caps, lo - 4096, threads, &d),
                         ST_LOGIC);
        assert_int_equal(d.n, 1);
        assert_string_equal(d.entries[0].rule, "limit.decode");
        diag_finish(&d);
    }
    free(b.p);
    free(g.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_random_runs),
        cmocka_unit_test(test_decode8),
        cmocka_unit_test(test_threads_narrow),
        cmocka_unit_test(test_threads_narrow_runs),
        cmocka_unit_test(test_malformed_runs),
        cmocka_unit_test(test_lifted_graphs),
        cmocka_unit_test(test_lifted_fault),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_load_file_rest),
        cmocka_unit_test(test_precheck_bound),
        cmocka_unit_test(test_runs_count),
        cmocka_unit_test(test_precheck_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
