/* format.c: the format detection of format.h. */
#include "frontend/format/format.h"

#include "taskir/mapping.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Does path end in suffix (lower case), ignoring ASCII case? */
static bool ends_with(const char *path, const char *suffix)
{
    size_t n = strlen(path), k = strlen(suffix);
    if (n < k)
        return false;
    for (size_t i = 0; i < k; i++) {
        unsigned char c = (unsigned char)path[n - k + i];
        if (c >= 'A' && c <= 'Z')
            c = (unsigned char)(c - 'A' + 'a');
        if (c != (unsigned char)suffix[i])
            return false;
    }
    return true;
}

static FeFormat by_content(const uint8_t *head, size_t len)
{
    if (!head)
        return FE_FORMAT_UNKNOWN;
    size_t i = len >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF ? 3 : 0;
    if (i >= len)
        return FE_FORMAT_UNKNOWN;
    if (head[i] == '{')
        return FE_FORMAT_CVM;
    if (head[i] == '<')
        return FE_FORMAT_CINN;
    if (i == 0 && head[0] == 0x08)
        return FE_FORMAT_ONNX;
    if (i == 0 && mapping_looks_like(head, len))
        return FE_FORMAT_MAPPING;
    return FE_FORMAT_UNKNOWN;
}

static FeFormat by_suffix(const char *path)
{
    static const struct {
        const char *suffix;
        FeFormat format;
    } suffixes[] = {
        {".onnx", FE_FORMAT_ONNX}, {".json", FE_FORMAT_CVM},    {".xml", FE_FORMAT_CINN},
        {".map.pb", FE_FORMAT_MAPPING}, {".pb", FE_FORMAT_PB},
    };
    for (size_t i = 0; path && i < sizeof suffixes / sizeof *suffixes; i++)
        if (ends_with(path, suffixes[i].suffix))
            return suffixes[i].format;
    return FE_FORMAT_UNKNOWN;
}

FeFormat fe_format_detect(const char *path, const uint8_t *head, size_t len)
{
    FeFormat f = by_content(head, len);
    return f != FE_FORMAT_UNKNOWN ? f : by_suffix(path);
}

FeFormat fe_format_of_file(const char *path)
{
    uint8_t head[FE_FORMAT_HEAD];
    size_t len = 0;
    if (path && strcmp(path, "-") != 0) {
        FILE *f = fopen(path, "rb");
        if (f) {
            len = fread(head, 1, sizeof head, f);
            fclose(f);
        }
    }
    return fe_format_detect(path, len ? head : NULL, len);
}
