/* asm_text_read.h: a protobuf-c message read from protobuf text format, driven by its
 * descriptor (program.txt of a program set; the writer is asm_text.h). It reads what protoc
 * --encode reads for the field types of our schemas: "name: value" and "name { ... }" (or
 * "name < ... >", or "name: { ... }"), a repeated field given line by line or as a list
 * "name: [a, b]", separators "," or ";" after a field, "#" comments; integers in decimal, hex
 * (0x) or octal (0), bools as true / false / t / f / 1 / 0 (True, False too), enums by name
 * or number, strings in single or double quotes with C escapes, adjacent strings joined.
 * Unknown fields, a non-repeated field given twice, a value out of its type's range, an enum
 * value the schema does not have, a string holding a NUL byte and messages nested deeper than
 * 64 are logic errors [prog.text.parse] at "line N"; out of memory [oom].
 */
#ifndef TASKIR_BACKEND_ASM_TEXT_READ_H
#define TASKIR_BACKEND_ASM_TEXT_READ_H

#include <protobuf-c/protobuf-c.h>
#include <stddef.h>

#include "taskir/diag.h"

/* Parses text[0..len) as a message of desc into *out (free with
 * protobuf_c_message_free_unpacked(*out, NULL)); *out is NULL on error. */
Status asm_text_read(const ProtobufCMessageDescriptor *desc, const char *text, size_t len,
                     ProtobufCMessage **out, Diag *d);

#endif
