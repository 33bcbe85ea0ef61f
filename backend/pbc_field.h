/* pbc_field.h: what the descriptor-driven readers and printers of protobuf-c messages
 * (asm_text_read.c, print_prog.c) need to know of a field's C storage. */
#ifndef TASKIR_BACKEND_PBC_FIELD_H
#define TASKIR_BACKEND_PBC_FIELD_H

#include <protobuf-c/protobuf-c.h>
#include <stddef.h>

/* The bytes one element of a repeated field of type t takes in its C array. */
size_t pbc_elem_size(ProtobufCType t);

#endif
