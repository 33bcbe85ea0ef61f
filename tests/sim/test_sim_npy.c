/* test_sim_npy.c: the .npy reader and writer (taskir/npy.h): the round trip, the header
 * forms numpy writes (versions 1, 2 and 3, either quote, any key order, trailing commas,
 * one-element tuples, scalars), each supported dtype with negative values, and every
 * rejection with its rule id. Images are written byte by byte here, independently of
 * npy.c. Also how taskir-run's output tensors are named and printed (taskir/outdir.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <unistd.h>

#include "taskir/npy.h"
#include "taskir/outdir.h"

/* An .npy image: magic, version major.0, header padded to 64 bytes, data. */
static uint8_t *image(int major, const char *hdr, const void *data, size_t dlen, size_t *len)
{
    size_t hl = strlen(hdr), pre = major == 1 ? 10 : 12;
    size_t pad = (64 - (pre + hl + 1) % 64) % 64, total_h = hl + pad + 1;
    uint8_t *b = malloc(pre + total_h + dlen + 1);
    assert_non_null(b);
    memcpy(b, "\x93NUMPY", 6);
    b[6] = (uint8_t)major;
    b[7] = 0;
    if (major == 1) {
        b[8] = (uint8_t)total_h;
        b[9] = (uint8_t)(total_h >> 8);
    } else {
        for (int i = 0; i < 4; i++)
            b[8 + i] = (uint8_t)(total_h >> (8 * i));
    }
    memcpy(b + pre, hdr, hl);
    memset(b + pre + hl, ' ', pad);
    b[pre + total_h - 1] = '\n';
    if (dlen)
        memcpy(b + pre + total_h, data, dlen);
    *len = pre + total_h + dlen;
    return b;
}

static Status parse(int major, const char *hdr, const void *data, size_t dlen, NpyArray *a,
                    const char *want_rule)
{
    size_t len;
    uint8_t *b = image(major, hdr, data, dlen, &len);
    Diag d;
    diag_init(&d, "x.npy");
    Status st = npy_read_mem(b, len, a, &d);
    if (want_rule) {
        assert_int_equal(st, ST_LOGIC);
        if (diag_find(&d, want_rule) < 0) {
            diag_print(&d, stderr, "test");
            fail_msg("expected rule %s", want_rule);
        }
        assert_null(a->i32);
        assert_null(a->f32);
    } else if (st) {
        diag_print(&d, stderr, "test");
    }
    diag_finish(&d);
    free(b);
    return st;
}

/* npy_encode writes int8, uint8 and int16 files whose values are the int32 values narrowed as
 * a C cast does; reading them back gives the narrowed values. */
static void test_write_dtypes(void **state)
{
    (void)state;
    const int32_t v[] = {-128, 127, 255, -1, 300, -32768};
    const int64_t shape[] = {2, 3};
    struct {
        NpyDtype t;
        const char *descr;
        int32_t want[6];
    } cases[] = {
        {NPY_I8, "'descr': '|i1'", {-128, 127, -1, -1, 44, 0}},
        {NPY_U8, "'descr': '|u1'", {128, 127, 255, 255, 44, 0}},
        {NPY_I16, "'descr': '<i2'", {-128, 127, 255, -1, 300, -32768}},
        {NPY_I32, "'descr': '<i4'", {-128, 127, 255, -1, 300, -32768}},
    };
    for (int k = 0; k < 4; k++) {
        uint8_t *buf;
        size_t len;
        Diag d;
        diag_init(&d, "x.npy");
        assert_int_equal(npy_encode(cases[k].t, v, shape, 2, &buf, &len, &d), ST_OK);
        size_t hlen = (size_t)buf[8] | (size_t)buf[9] << 8;
        assert_int_equal((10 + hlen) % 64, 0);
        size_t dl = strlen(cases[k].descr);
        bool found = false;
        for (size_t i = 0; i + dl <= 10 + hlen && !found; i++)
            found = memcmp(buf + i, cases[k].descr, dl) == 0;
        assert_true(found);
        NpyArray a;
        assert_int_equal(npy_read_mem(buf, len, &a, &d), ST_OK);
        assert_int_equal(a.dtype, cases[k].t);
        assert_int_equal(a.ndim, 2);
        assert_int_equal(a.shape[1], 3);
        for (int i = 0; i < 6; i++)
            assert_int_equal(a.i32[i], cases[k].want[i]);
        npy_free(&a);
        free(buf);
        diag_finish(&d);
    }
}

static void test_dtypes(void **state)
{
    (void)state;
    NpyArray a;
    const uint8_t i1[] = {0x80, 0xff, 0x00, 0x7f};
    assert_int_equal(parse(1, "{'descr': '|i1', 'fortran_order': False, 'shape': (2, 2), }",
                           i1, 4, &a, NULL), ST_OK);
    assert_int_equal(a.dtype, NPY_I8);
    assert_int_equal(a.ndim, 2);
    assert_int_equal(a.count, 4);
    assert_int_equal(a.i32[0], -128);
    assert_int_equal(a.i32[1], -1);
    assert_int_equal(a.i32[3], 127);
    npy_free(&a);
    assert_null(a.i32);
    assert_int_equal(parse(1, "{'descr': '|u1', 'fortran_order': False, 'shape': (4,), }", i1,
                           4, &a, NULL), ST_OK);
    assert_int_equal(a.dtype, NPY_U8);
    assert_int_equal(a.i32[0], 128);
    assert_int_equal(a.i32[1], 255);
    npy_free(&a);
    const uint8_t i2[] = {0x00, 0x80, 0xff, 0xff, 0x34, 0x12};
    assert_int_equal(parse(1, "{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }", i2,
                           6, &a, NULL), ST_OK);
    assert_int_equal(a.i32[0], -32768);
    assert_int_equal(a.i32[1], -1);
    assert_int_equal(a.i32[2], 0x1234);
    npy_free(&a);
    const uint8_t i4[] = {0, 0, 0, 0x80, 0xff, 0xff, 0xff, 0x7f, 0xfe, 0xff, 0xff, 0xff};
    assert_int_equal(parse(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }", i4,
                           12, &a, NULL), ST_OK);
    assert_int_equal(a.i32[0], INT32_MIN);
    assert_int_equal(a.i32[1], INT32_MAX);
    assert_int_equal(a.i32[2], -2);
    npy_free(&a);
    const uint8_t f4[] = {0, 0, 0xc0, 0xbf}; /* -1.5f */
    assert_int_equal(parse(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", f4, 4,
                           &a, NULL), ST_OK);
    assert_int_equal(a.dtype, NPY_F32);
    assert_int_equal(a.ndim, 0);
    assert_int_equal(a.count, 1);
    assert_null(a.i32);
    assert_true(a.f32[0] == -1.5f);
    npy_free(&a);
    const uint8_t u2[] = {0x00, 0x80, 0xff, 0xff, 0x34, 0x12};
    assert_int_equal(parse(1, "{'descr': '<u2', 'fortran_order': False, 'shape': (3,), }", u2,
                           6, &a, NULL), ST_OK);
    assert_int_equal(a.dtype, NPY_U16);
    assert_int_equal(a.i32[0], 32768);
    assert_int_equal(a.i32[1], 65535);
    assert_int_equal(a.i32[2], 0x1234);
    npy_free(&a);
    /* int64 (numpy's default integer): INT32_MIN, INT32_MAX, -2, 5 */
    const uint8_t i8[] = {0, 0, 0, 0x80, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0, 0,
                          0, 0, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 5, 0, 0, 0, 0,
                          0, 0, 0};
    assert_int_equal(parse(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 2), }",
                           i8, 32, &a, NULL), ST_OK);
    assert_int_equal(a.dtype, NPY_I64);
    assert_int_equal(a.count, 4);
    assert_int_equal(a.i32[0], INT32_MIN);
    assert_int_equal(a.i32[1], INT32_MAX);
    assert_int_equal(a.i32[2], -2);
    assert_int_equal(a.i32[3], 5);
    npy_free(&a);
    assert_string_equal(npy_dtype_name(NPY_U16), "uint16");
    assert_string_equal(npy_dtype_name(NPY_I64), "int64");
    assert_string_equal(npy_dtype_name(NPY_I16), "int16");
    assert_string_equal(npy_dtype_name(NPY_F32), "float32");
}

static void test_header_forms(void **state)
{
    (void)state;
    NpyArray a;
    const uint8_t v[6] = {1, 2, 3, 4, 5, 6};
    /* version 2 and 3, other key order, double quotes, no trailing comma, spaces */
    assert_int_equal(parse(2, "{\"shape\": ( 2 , 3 ), \"fortran_order\": False, "
                              "\"descr\": \"|u1\"}", v, 6, &a, NULL), ST_OK);
    assert_int_equal(a.ndim, 2);
    assert_int_equal(a.shape[0], 2);
    assert_int_equal(a.shape[1], 3);
    assert_int_equal(a.i32[5], 6);
    npy_free(&a);
    assert_int_equal(parse(3, "{'descr':'|i1','fortran_order':False,'shape':(6,)}", v, 6, &a,
                           NULL), ST_OK);
    assert_int_equal(a.ndim, 1);
    npy_free(&a);
    /* an empty array */
    assert_int_equal(parse(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (0, 5), }",
                           NULL, 0, &a, NULL), ST_OK);
    assert_int_equal(a.count, 0);
    npy_free(&a);
}

static void test_rejections(void **state)
{
    (void)state;
    NpyArray a;
    const uint8_t v[16] = {0};
    parse(1, "{'descr': '<i4', 'fortran_order': True, 'shape': (1,), }", v, 4, &a, "npy.order");
    parse(1, "{'descr': '>i4', 'fortran_order': False, 'shape': (1,), }", v, 4, &a, "npy.dtype");
    parse(1, "{'descr': '<u8', 'fortran_order': False, 'shape': (1,), }", v, 8, &a, "npy.dtype");
    parse(1, "{'descr': '>i8', 'fortran_order': False, 'shape': (1,), }", v, 8, &a, "npy.dtype");
    parse(1, "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (1,), }", v, 4, &a,
          "npy.dtype");
    parse(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", v, 4, &a, "npy.size");
    parse(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }", v, 8, &a, "npy.size");
    parse(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }", v, 4,
          &a, "npy.shape");
    parse(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (65536, 65536), }", v, 4, &a,
          "limit.npy");
    parse(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (99999999999999999999,), }", v,
          4, &a, "npy.header");
    parse(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (-1,), }", v, 4, &a,
          "npy.header");
    parse(1, "{'descr': '<i4', 'fortran_order': False}", v, 4, &a, "npy.header");
    parse(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), 'x': 1}", v, 4, &a,
          "npy.header");
    parse(1, "{'descr': '<i4', 'descr': '<i4', 'fortran_order': False, 'shape': (1,)}", v, 4,
          &a, "npy.header");
    parse(1, "['descr', '<i4']", v, 4, &a, "npy.header");
    parse(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), } x", v, 4, &a,
          "npy.header");
    parse(1, "{'descr': '<i4', 'fortran_order': Maybe, 'shape': (1,), }", v, 4, &a,
          "npy.header");
    parse(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (1,", v, 4, &a, "npy.header");
    parse(1, "{'descr': '<i4, 'fortran_order': False, 'shape': (1,)}", v, 4, &a, "npy.dtype");
    /* byte-level damage */
    Diag d;
    diag_init(&d, "x.npy");
    assert_int_equal(npy_read_mem((const uint8_t *)"\x93NUMPX\x01\x00\x00\x00", 10, &a, &d),
                     ST_LOGIC);
    assert_true(diag_find(&d, "npy.magic") >= 0);
    assert_int_equal(npy_read_mem((const uint8_t *)"\x93NUMPY\x04\x00\x00\x00", 10, &a, &d),
                     ST_LOGIC);
    assert_true(diag_find(&d, "npy.version") >= 0);
    assert_int_equal(npy_read_mem((const uint8_t *)"\x93NUMPY\x01\x00\xff\x00{}", 12, &a, &d),
                     ST_LOGIC);
    assert_int_equal(npy_read_mem((const uint8_t *)"\x93NUMPY\x02\x00\x00\x00", 10, &a, &d),
                     ST_LOGIC);
    assert_int_equal(npy_read_mem((const uint8_t *)"\x93NU", 4, &a, &d), ST_LOGIC);
    diag_finish(&d);
}

/* An int64 value that int32 cannot hold (so no precision can) is a logic error naming the
 * element: 2^31, -2^31 - 1, 2^32, INT64_MIN. */
static void test_int64_range(void **state)
{
    (void)state;
    static const uint8_t bad[4][8] = {
        {0, 0, 0, 0x80, 0, 0, 0, 0},
        {0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff, 0xff},
        {0, 0, 0, 0, 1, 0, 0, 0},
        {0, 0, 0, 0, 0, 0, 0, 0x80},
    };
    static const char *what[4] = {"2147483648", "-2147483649", "4294967296",
                                  "-9223372036854775808"};
    for (int k = 0; k < 4; k++) {
        uint8_t v[16] = {7, 0, 0, 0, 0, 0, 0, 0};
        memcpy(v + 8, bad[k], 8);
        size_t len;
        uint8_t *b = image(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", v,
                           16, &len);
        NpyArray a;
        Diag d;
        diag_init(&d, "x.npy");
        assert_int_equal(npy_read_mem(b, len, &a, &d), ST_LOGIC);
        long e = diag_find(&d, "npy.range");
        assert_true(e >= 0);
        assert_string_equal(d.entries[e].where, "element 1");
        assert_non_null(strstr(d.entries[e].what, what[k]));
        assert_null(a.i32);
        diag_finish(&d);
        free(b);
    }
}

/* Every truncation of a valid image is rejected cleanly. */
static void test_truncations(void **state)
{
    (void)state;
    const uint8_t v[8] = {1, 0, 0, 0, 2, 0, 0, 0};
    size_t len;
    uint8_t *b = image(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", v, 8,
                       &len);
    for (size_t n = 0; n < len; n++) {
        NpyArray a;
        Diag d;
        diag_init(&d, "x.npy");
        uint8_t *c = malloc(n ? n : 1);
        memcpy(c, b, n);
        assert_int_equal(npy_read_mem(c, n, &a, &d), ST_LOGIC);
        free(c);
        diag_finish(&d);
    }
    free(b);
}

static void test_round_trip(void **state)
{
    (void)state;
    int32_t data[24];
    for (int i = 0; i < 24; i++)
        data[i] = (i - 12) * 178956970;
    int64_t shapes[][3] = {{24, 0, 0}, {2, 3, 4}, {0, 0, 0}};
    uint32_t ndims[] = {1, 3, 0};
    for (int k = 0; k < 3; k++) {
        uint8_t *buf;
        size_t len;
        Diag d;
        diag_init(&d, "x.npy");
        assert_int_equal(npy_encode_i32(data, shapes[k], ndims[k], &buf, &len, &d), ST_OK);
        size_t hlen = (size_t)buf[8] | (size_t)buf[9] << 8;
        assert_int_equal((10 + hlen) % 64, 0);
        assert_int_equal(buf[10 + hlen - 1], '\n');
        bool found = false;
        for (size_t i = 0; i + 14 <= len && !found; i++)
            found = memcmp(buf + i, "'descr': '<i4'", 14) == 0;
        assert_true(found);
        NpyArray a;
        assert_int_equal(npy_read_mem(buf, len, &a, &d), ST_OK);
        assert_int_equal(a.dtype, NPY_I32);
        assert_int_equal(a.ndim, ndims[k]);
        for (uint32_t i = 0; i < ndims[k]; i++)
            assert_int_equal(a.shape[i], shapes[k][i]);
        for (int64_t i = 0; i < a.count; i++)
            assert_int_equal(a.i32[i], data[i]);
        npy_free(&a);
        free(buf);
        diag_finish(&d);
    }
    /* through a file */
    char path[] = "/tmp/taskir-npy-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    Diag d;
    diag_init(&d, path);
    int64_t shape[2] = {4, 6};
    assert_int_equal(npy_write_i32(path, data, shape, 2, &d), ST_OK);
    NpyArray a;
    assert_int_equal(npy_read(path, &a, &d), ST_OK);
    assert_int_equal(a.count, 24);
    assert_int_equal(a.i32[23], data[23]);
    npy_free(&a);
    unlink(path);
    assert_int_equal(npy_read(path, &a, &d), ST_RUNTIME);
    assert_true(diag_find(&d, "io.read") >= 0);
    diag_finish(&d);
    npy_free(NULL);
}

/* A simulated OUTPUT tensor and a --dump-all one: file names, labels, and the text
 * printed for them (values narrowed to the file's element type, a 1-dim shape with its
 * comma). */
static void test_out_tensors(void **state)
{
    (void)state;
    int32_t data[6] = {1, -2, 300, 4, 5, 6};
    SimTensor out = {.block_id = 25, .socket_id = 0, .dtype = NPY_I8, .ndim = 2,
                     .shape = {2, 3}, .count = 6, .data = data};
    SimTensor blk = {.block_id = 3, .dtype = NPY_I32, .ndim = 1, .shape = {6}, .count = 6,
                     .data = data};
    OutFile o[2];
    outdir_sim_tensor(&o[0], &out, true);
    outdir_sim_tensor(&o[1], &blk, false);
    assert_string_equal(o[0].file, "output0.npy");
    assert_string_equal(o[0].label, "output0 (block 25)");
    assert_string_equal(o[1].file, "block3.npy");
    assert_string_equal(o[1].label, "block 3");
    assert_true(outdir_is_ours(o[0].file) && outdir_is_ours(o[1].file));
    FILE *f = tmpfile();
    assert_non_null(f);
    outdir_print(f, &o[0]);
    outdir_print(f, &o[1]);
    char text[256] = {0};
    rewind(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    assert_string_equal(text, "output0 (block 25): int8 (2, 3)\n1 -2 44\n4 5 6\n"
                              "block 3: int32 (6,)\n1 -2 300 4 5 6\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dtypes),
        cmocka_unit_test(test_write_dtypes),
        cmocka_unit_test(test_header_forms),
        cmocka_unit_test(test_rejections),
        cmocka_unit_test(test_int64_range),
        cmocka_unit_test(test_truncations),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_out_tensors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
