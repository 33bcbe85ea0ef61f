/* format.h: which reader an input file is for: the one format detection every tool uses
 * (taskir-compile, taskir-run; docs/cli.md, "Input formats").
 *
 * By content first: after an optional UTF-8 byte order mark, a first byte '{' is a CVM graph
 * JSON (0x7b would open a protobuf group, which no message here uses), '<' a CINN XML
 * program (0x3c is an end-group tag, which no message starts with), 0x08 an ONNX ModelProto
 * (field 1 ir_version as a varint, what ONNX writers put first; a TaskGraph's and a
 * Mapping's field 1 is a message, 0x0a), and a Mapping's first field (mapping_looks_like) a
 * Mapping .map.pb. Blanks are not skipped: a .pb may start with 0x0a ('\n'). Then by the
 * path's suffix, ignoring ASCII case: ".onnx", ".json", ".xml", ".map.pb", ".pb". Else
 * unknown: each tool has its default (taskir-compile a CVM model, taskir-run a TaskGraph).
 */
#ifndef FRONTEND_FORMAT_FORMAT_H
#define FRONTEND_FORMAT_FORMAT_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    FE_FORMAT_UNKNOWN,
    FE_FORMAT_PB,       /* a TaskGraph .pb */
    FE_FORMAT_MAPPING,  /* a Mapping .map.pb */
    FE_FORMAT_CVM,      /* a CVM graph JSON */
    FE_FORMAT_CINN,     /* a CINN XML program */
    FE_FORMAT_ONNX      /* an ONNX model */
} FeFormat;

/* The bytes of a file's beginning that decide (more are ignored). */
#define FE_FORMAT_HEAD 16

/* The format of the input at path (may be NULL) whose first len bytes are head (may be NULL
 * when len is 0): by content, then by suffix. */
FeFormat fe_format_detect(const char *path, const uint8_t *head, size_t len);

/* The same, reading the head of the file itself; "-" (standard input, not consumed) and a
 * file that cannot be read are judged by the path alone (the reader then reports why it
 * cannot read it). */
FeFormat fe_format_of_file(const char *path);

#endif
