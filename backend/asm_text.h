/* asm_text.h: protobuf text format of a protobuf-c message, written from its descriptor
 * (docs/formats.md, "Assembly IR as we write it"): program.txt of a program set.
 *
 * The form is the one `protoc --decode` prints: fields in field-number order, one per line,
 * "name: value" for scalars (enums by name, bools true/false, strings in double quotes with
 * C escapes, bytes outside printable ASCII as three-digit octal escapes), "name {" ... "}"
 * for messages, two spaces of indent per level, a repeated field as one line per element.
 * So `protoc --decode=taskir.asm.Config` of program.pb gives program.txt byte for byte
 * (tests/asm/emit_text.sh checks it).
 */
#ifndef TASKIR_BACKEND_ASM_TEXT_H
#define TASKIR_BACKEND_ASM_TEXT_H

#include <protobuf-c/protobuf-c.h>
#include <stdbool.h>
#include <stddef.h>

/* Writes m as text into a malloc'd buffer (*buf, *len; NUL-terminated, not counted).
 * false when out of memory (nothing allocated then). */
bool asm_text_write(const ProtobufCMessage *m, char **buf, size_t *len);

#endif
