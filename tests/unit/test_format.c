/* test_format.c: the one format detection of every tool (frontend/format/format.h): content
 * first, then the path's suffix ignoring case; unknown otherwise. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "frontend/format/format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static FeFormat of(const char *path, const char *head, size_t len)
{
    return fe_format_detect(path, (const uint8_t *)head, len);
}

static void test_content_first(void **state)
{
    (void)state;
    assert_int_equal(of("m.onnx", "{\"nodes\"", 8), FE_FORMAT_CVM);
    assert_int_equal(of("m.json", "<program", 8), FE_FORMAT_CINN);
    assert_int_equal(of("m.json", "\xEF\xBB\xBF<p", 5), FE_FORMAT_CINN);   /* after a BOM */
    assert_int_equal(of("m.pb", "\x08\x07\x12\x04", 4), FE_FORMAT_ONNX);   /* ir_version */
    assert_int_equal(of("model", "\x08\x08", 2), FE_FORMAT_ONNX);
    /* a Mapping: field 1 (graph) whose first field (blocks) is a message */
    assert_int_equal(of("g.pb", "\x0a\x04\x0a\x02\x08\x01", 6), FE_FORMAT_MAPPING);
}

static void test_suffix_any_case(void **state)
{
    (void)state;
    /* a TaskGraph starts with a block (field 1) whose first field is a varint: no verdict */
    const char *pb = "\x0a\x04\x08\x01\x10\x02";
    assert_int_equal(of("CNN.XML", pb, 6), FE_FORMAT_CINN);
    assert_int_equal(of("Net.Onnx", NULL, 0), FE_FORMAT_ONNX);
    assert_int_equal(of("a/MODEL.JSON", NULL, 0), FE_FORMAT_CVM);
    assert_int_equal(of("g.Map.PB", pb, 6), FE_FORMAT_MAPPING);
    assert_int_equal(of("g.PB", pb, 6), FE_FORMAT_PB);
    assert_int_equal(of("g", pb, 6), FE_FORMAT_UNKNOWN);
    assert_int_equal(of(NULL, "\n<", 2), FE_FORMAT_UNKNOWN); /* no blanks skipped: a .pb may */
    assert_int_equal(of(NULL, NULL, 0), FE_FORMAT_UNKNOWN);
    assert_int_equal(of("xml", NULL, 0), FE_FORMAT_UNKNOWN);
}

static void test_of_file(void **state)
{
    (void)state;
    char path[] = "/tmp/test_format.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "\x08\x07", 2), 2);
    close(fd);
    assert_int_equal(fe_format_of_file(path), FE_FORMAT_ONNX); /* no suffix: the content */
    unlink(path);
    assert_int_equal(fe_format_of_file(path), FE_FORMAT_UNKNOWN); /* gone: the path only */
    assert_int_equal(fe_format_of_file("/nonexistent/dir/p.XML"), FE_FORMAT_CINN);
    assert_int_equal(fe_format_of_file("-"), FE_FORMAT_UNKNOWN); /* stdin is not read */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_content_first),
        cmocka_unit_test(test_suffix_any_case),
        cmocka_unit_test(test_of_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
