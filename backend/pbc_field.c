/* pbc_field.c: a protobuf-c field's C storage (pbc_field.h). */
#include "backend/pbc_field.h"

size_t pbc_elem_size(ProtobufCType t)
{
    switch (t) {
    case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64: case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_FIXED64:
        return sizeof(int64_t);
    case PROTOBUF_C_TYPE_DOUBLE:
        return sizeof(double);
    case PROTOBUF_C_TYPE_STRING: case PROTOBUF_C_TYPE_MESSAGE:
        return sizeof(void *);
    case PROTOBUF_C_TYPE_BYTES:
        return sizeof(ProtobufCBinaryData);
    case PROTOBUF_C_TYPE_BOOL:
        return sizeof(protobuf_c_boolean);
    case PROTOBUF_C_TYPE_ENUM:
        return sizeof(int);
    case PROTOBUF_C_TYPE_FLOAT:
        return sizeof(float);
    default:    /* the 32-bit integers */
        return sizeof(int32_t);
    }
}
