/* test_pbpack.c: the fast packer (taskir/pbpack.h) gives exactly protobuf-c's bytes.
 *
 *  - pb_pack_defer + pb_pack_run on Tensor messages with every mix of deferred fields
 *    (int32_data with values over the whole int32 range, uint32_data, name, empty ones) and
 *    both cut points, against protobuf_c_message_pack of the same message;
 *  - graph_pack on graphs with large tensors (int8-range, full-range, UINT_* data, named
 *    tensors, rearrangement matrices; more values than one saver part holds) against
 *    protobuf-c's own pack of the unpacked bytes, and graph_save_pb's file against
 *    graph_pack's buffer;
 *  - a message whose deferred field is of a kind the packer does not handle is left alone;
 *  - messages under one key (tensors several blocks share, in the graphs above too) get one
 *    encoding, across resets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <unistd.h>

#include "taskir/fileio.h"
#include "taskir/graph.h"
#include "taskir/pbio.h"
#include "taskir/pbpack.h"
#include "taskgraph.pb-c.h"

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A value of one of several kinds: int8 range, 7/14/21/28-bit boundaries, full range. */
static int32_t rng_value(uint64_t *s)
{
    static const int32_t edge[] = {0, 1, -1, 127, 128, -128, -129, 16383, 16384, 2097151,
                                   2097152, 268435455, 268435456, INT32_MAX, INT32_MIN};
    uint64_t r = rng_next(s);
    switch (r % 4) {
    case 0:
        return (int32_t)(r >> 8) % 128 - (int32_t)((r >> 40) & 1) * 128;
    case 1:
        return edge[(r >> 8) % (sizeof edge / sizeof *edge)];
    default:
        return (int32_t)(uint32_t)(r >> 16);
    }
}

static uint8_t *reference_pack(const ProtobufCMessage *m, size_t *len)
{
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t *b = malloc(n ? n : 1);
    assert_non_null(b);
    *len = protobuf_c_message_pack(m, b);
    assert_int_equal(*len, n);
    return b;
}

static void check_tensor(size_t n_i32, size_t n_u32, const char *name, uint32_t from,
                         uint64_t seed)
{
    int32_t *iv = calloc(n_i32 + 1, sizeof *iv);
    uint32_t *uv = calloc(n_u32 + 1, sizeof *uv);
    assert_non_null(iv);
    assert_non_null(uv);
    for (size_t i = 0; i < n_i32; i++)
        iv[i] = rng_value(&seed);
    for (size_t i = 0; i < n_u32; i++)
        uv[i] = (uint32_t)rng_value(&seed);
    int32_t dims[2] = {3, (int32_t)n_i32};
    float fv[3] = {1.5f, -2.0f, 0.25f};
    Taskir__Tensor t = TASKIR__TENSOR__INIT;
    t.n_dims = 2;
    t.dims = dims;
    t.has_precision = 1;
    t.precision = TASKIR__PRECISION__INT_32;
    t.n_float_data = 3;
    t.float_data = fv;
    t.n_int32_data = n_i32;
    t.int32_data = iv;
    t.n_uint32_data = n_u32;
    t.uint32_data = uv;
    t.name = (char *)name;
    size_t want_len;
    uint8_t *want = reference_pack(&t.base, &want_len);

    PbPack *p = pb_pack_create();
    assert_non_null(p);
    assert_int_equal(pb_pack_defer(p, &t.base, from), PB_DEFER_DONE);
    assert_true(pb_pack_run(p, &t.base));
    uint8_t *got;
    size_t got_len;
    assert_true(pb_pack_join(p, &got, &got_len));
    if (got_len != want_len || memcmp(got, want, want_len) != 0) {
        size_t k = 0;
        while (k < got_len && k < want_len && got[k] == want[k])
            k++;
        fail_msg("tensor (%zu int32, %zu uint32, name %s, from field %u): %zu bytes, protobuf-c "
                 "gives %zu (first difference at %zu)", n_i32, n_u32, name ? name : "-", from,
                 got_len, want_len, k);
    }
    /* the message itself packs to the same bytes with protobuf-c too (unknown fields) */
    size_t again_len;
    uint8_t *again = reference_pack(&t.base, &again_len);
    assert_int_equal(again_len, want_len);
    assert_memory_equal(again, want, want_len);
    free(again);
    free(got);
    pb_pack_destroy(p);
    free(want);
    free(iv);
    free(uv);
}

static void test_tensor_fields(void **state)
{
    (void)state;
    static const size_t sizes[] = {0, 1, 5, 17, 200, 3000, 70000};
    uint64_t seed = 1;
    for (size_t a = 0; a < sizeof sizes / sizeof *sizes; a++)
        for (size_t b = 0; b < 3; b++)
            for (int nm = 0; nm < 3; nm++) {
                const char *name = nm == 0 ? NULL : nm == 1 ? "" : "conv1/w";
                check_tensor(sizes[a], sizes[b], name, 4, seed++);
                check_tensor(sizes[a], sizes[b], name, 5, seed++);
                check_tensor(sizes[a], sizes[b], name, 6, seed++);
            }
    /* a 128-byte payload (1-byte / 2-byte length prefix boundary) and 16384 */
    check_tensor(127, 0, NULL, 4, 99);
    check_tensor(128, 0, NULL, 4, 99);
    check_tensor(16383, 0, NULL, 4, 98);
}

static void test_skipped(void **state)
{
    (void)state;
    /* float_data (field 3) is packed float: not handled, the message must stay as it was */
    float fv[2] = {1.0f, 2.0f};
    int32_t iv[2] = {-1, 5};
    Taskir__Tensor t = TASKIR__TENSOR__INIT;
    t.n_float_data = 2;
    t.float_data = fv;
    t.n_int32_data = 2;
    t.int32_data = iv;
    PbPack *p = pb_pack_create();
    assert_int_equal(pb_pack_defer(p, &t.base, 3), PB_DEFER_SKIPPED);
    assert_int_equal(t.n_float_data, 2);
    assert_int_equal(t.n_int32_data, 2);
    assert_int_equal(t.base.n_unknown_fields, 0);
    /* a message field (Shape inside TaskBlock) is not handled either */
    Taskir__Shape sh = TASKIR__SHAPE__INIT;
    Taskir__TaskBlock b = TASKIR__TASK_BLOCK__INIT;
    b.shape = &sh;
    assert_int_equal(pb_pack_defer(p, &b.base, 1), PB_DEFER_SKIPPED);
    assert_ptr_equal(b.shape, &sh);
    pb_pack_destroy(p);
}

/* A graph with large data tensors of every container and rearrangement matrices. */
static Graph *big_graph(uint64_t seed)
{
    Graph *g = graph_create();
    assert_non_null(g);
    static const struct {
        BlockType t;
        PrecisionId p;
        uint32_t n;
        int kind; /* 0 int8 range, 1 full range */
    } spec[] = {
        {BT_SW, PR_INT_8, 40000, 0}, {BT_SB, PR_INT_32, 5000, 1}, {BT_SWFC, PR_INT_8, 63, 0},
        {BT_SI, PR_UINT_8, 3000, 0}, {BT_SI, PR_INT_16, 100000, 1}, {BT_SB, PR_INT_32, 64, 1},
        /* past 2^20 values: the saver's second part (pbio.c packs the graph in parts) */
        {BT_SW, PR_INT_8, 700000, 0}, {BT_SW, PR_INT_8, 600000, 0}, {BT_SB, PR_INT_32, 100, 1},
    };
    for (size_t k = 0; k < sizeof spec / sizeof *spec; k++) {
        Block *b = graph_add_block(g, spec[k].t, GRAPH_AUTO_ID, k % 2 ? "blk" : NULL);
        assert_non_null(b);
        int64_t *v = malloc(spec[k].n * sizeof *v);
        assert_non_null(v);
        for (uint32_t i = 0; i < spec[k].n; i++) {
            int32_t x = rng_value(&seed);
            if (spec[k].p == PR_UINT_8)
                v[i] = (uint8_t)x;
            else
                v[i] = spec[k].kind == 0 ? (int8_t)x : x;
        }
        int32_t dims[1] = {(int32_t)spec[k].n};
        assert_true(blk_set_data(g, b, spec[k].p, dims, 1, v, spec[k].n));
        free(v);
        if (k == 4)
            b->data->name = "named";
    }
    /* blocks that share a tensor (as the split and replicate passes' copies do): the first
     * block's, in a later part than it; the named one; and two views of the same rows */
    Block *sh[4];
    for (int k = 0; k < 4; k++)
        assert_non_null(sh[k] = graph_add_block(g, BT_SW, GRAPH_AUTO_ID, NULL));
    sh[0]->data = g->blocks[0]->data;
    sh[1]->data = g->blocks[4]->data;
    assert_true(blk_set_data_view(g, sh[2], g->blocks[6]->data, 1000, 5000));
    assert_true(blk_set_data_view(g, sh[3], g->blocks[6]->data, 1000, 5000));
    Edge *e = graph_add_edge(g, GRAPH_AUTO_ID, 0, 1);
    assert_non_null(e);
    Rearrange *r = edge_add_rearrange(g, e, RT_SHUFFLE, 2);
    assert_non_null(r);
    int32_t *idx = malloc(20000 * sizeof *idx);
    assert_non_null(idx);
    for (int i = 0; i < 20000; i++)
        idx[i] = rng_value(&seed);
    int32_t d1[1] = {20000}, d2[1] = {3};
    assert_true(tensor_set_i32(g, &r->mats[0], d1, 1, idx, 20000));
    assert_true(tensor_set_i32(g, &r->mats[1], d2, 1, idx, 3));
    free(idx);
    return g;
}

static void test_graph_pack(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        Graph *g = big_graph(seed);
        Diag d;
        diag_init(&d, "big");
        uint8_t *buf;
        size_t len;
        assert_int_equal(graph_pack(g, &buf, &len, &d), ST_OK);
        Taskir__TaskGraph *w = taskir__task_graph__unpack(NULL, len, buf);
        assert_non_null(w);
        assert_int_equal(w->n_blocks, 13);
        assert_int_equal(w->blocks[9]->data->n_int32_data, 40000);
        assert_string_equal(w->blocks[10]->data->name, "named");
        assert_int_equal(w->blocks[12]->data->n_int32_data, 5000);
        assert_int_equal(w->blocks[0]->data->n_int32_data, 40000);
        assert_int_equal(w->blocks[3]->data->n_uint32_data, 3000);
        assert_string_equal(w->blocks[4]->data->name, "named");
        size_t want_len;
        uint8_t *want = reference_pack(&w->base, &want_len);
        assert_int_equal(len, want_len);
        assert_memory_equal(buf, want, len);
        /* the file holds the same bytes */
        char path[] = "/tmp/test_pbpack.XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        close(fd);
        assert_int_equal(graph_save_pb(g, path, &d), ST_OK);
        uint8_t *file;
        size_t flen;
        assert_int_equal(tir_read_file(path, TIR_MAX_FILE_BYTES, &file, &flen, &d), ST_OK);
        unlink(path);
        assert_int_equal(flen, len);
        assert_memory_equal(file, buf, len);
        free(file);
        free(want);
        taskir__task_graph__free_unpacked(w, NULL);
        free(buf);
        diag_finish(&d);
        graph_destroy(g);
    }
}

/* Messages under one key (pb_pack_expect, pb_pack_defer_keyed) share one encoding, across a
 * reset, and each packs to protobuf-c's bytes. */
static void test_keyed(void **state)
{
    (void)state;
    uint64_t seed = 7;
    int32_t iv[5000];
    for (size_t i = 0; i < 5000; i++)
        iv[i] = rng_value(&seed);
    Taskir__Tensor t[3];
    PbPack *p = pb_pack_create();
    assert_non_null(p);
    PbKey k = {{(uintptr_t)iv, 5000, 0, 0, 0}}, other = {{(uintptr_t)iv, 4999, 0, 0, 0}};
    for (int i = 0; i < 3; i++)
        assert_true(pb_pack_expect(p, &k));
    assert_true(pb_pack_expect(p, &other));
    const uint8_t *first = NULL;
    for (int i = 0; i < 3; i++) {
        t[i] = (Taskir__Tensor)TASKIR__TENSOR__INIT;
        t[i].n_int32_data = 5000;
        t[i].int32_data = iv;
        t[i].name = "w";
        size_t want_len;
        uint8_t *want = reference_pack(&t[i].base, &want_len);
        assert_int_equal(pb_pack_defer_keyed(p, &t[i].base, 4, &k), PB_DEFER_DONE);
        assert_int_equal(t[i].base.n_unknown_fields, 2);
        /* encoded for the first, whose bytes are kept for the other two */
        if (i == 1)
            first = t[i].base.unknown_fields[0].data;
        if (i == 2)
            assert_ptr_equal(t[i].base.unknown_fields[0].data, first);
        assert_true(pb_pack_run(p, &t[i].base));
        uint8_t *got;
        size_t got_len;
        assert_true(pb_pack_join(p, &got, &got_len));
        assert_int_equal(got_len, want_len);
        assert_memory_equal(got, want, want_len);
        free(got);
        free(want);
        if (i == 1)
            pb_pack_reset(p);
    }
    pb_pack_destroy(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tensor_fields),
        cmocka_unit_test(test_skipped),
        cmocka_unit_test(test_graph_pack),
        cmocka_unit_test(test_keyed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
