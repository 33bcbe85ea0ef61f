/* types.h: the per-type tables of the TaskGraph, expanded from the .def files.
 *
 * Each kind of fact has one table: block types (blocktypes.def), precisions
 * (precisions.def), attributes (attributes.def) and rearrangement types (rearranges.def).
 * The internal enums below are table indices; the wire values (docs/wire.md) are a
 * column of each table and are checked against the protobuf-c enums by tests/unit/test_types.c.
 */
#ifndef TASKIR_TYPES_H
#define TASKIR_TYPES_H

#include <stdbool.h>
#include <stdint.h>

/* Shape dimensions, in the Task IR order (docs/wire.md; the wire puts x before y). */
enum {
    D_Y, D_X, D_F, D_R, D_KY, D_KX, D_IY, D_IX,
    TIR_NDIMS,              /* a block shape has 8 dims */
    TIR_CDIMS = 6,          /* a cluster / interface box has the first 6 (y x f r ky kx) */
    D_NO = -1,              /* cluster spec: this cluster dim is unused */
    D_LUT = -2              /* cluster spec: this cluster dim is 2^LUT_DW */
};

extern const char *const tir_dim_names[TIR_NDIMS]; /* "y", "x", "f", "r", "ky", "kx", "iy", "ix" */

typedef enum {
#define X(name, wire, kind, pcode, dims, nvar, flags, ins, outs) BT_##name,
#include "taskir/blocktypes.def"
#undef X
    BT_COUNT
} BlockType;

typedef enum { BK_STORAGE, BK_COMPUTE, BK_IO, BK_NULL } BlockKind;

enum {
    BF_BIAS = 1u << 0,
    BF_WINDOW = 1u << 1,
    BF_DILATE = 1u << 2,
    BF_DATA = 1u << 3
};

#define BTM(t) (UINT64_C(1) << (BT_##t))

/* One input or output cluster of a block type. */
typedef struct ClusterSpec {
    const char *role;         /* "input", "weight", "bias", ... */
    uint64_t producers;       /* BTM mask of block types that may feed it (inputs only) */
    int8_t dim[TIR_CDIMS];    /* block dim each cluster dim equals, D_NO or D_LUT */
} ClusterSpec;

typedef struct BlockTypeInfo {
    const char *name;
    int wire;
    BlockKind kind;
    int pcode;                /* 41 for P41; 0: not a primitive */
    const char *dims;         /* 'R', 'o', 'v' or '-' per shape dim (blocktypes.def) */
    int nvar;                 /* repeats of the first input role: 1 fixed, 0 any, N at most N */
    unsigned flags;           /* BF_* */
    const ClusterSpec *ins;
    int n_ins;
    const ClusterSpec *outs;
    int n_outs;
} BlockTypeInfo;

/* The bias cluster every BF_BIAS type takes last when bias_type is VECTOR. */
extern const ClusterSpec bt_bias_cluster;

const BlockTypeInfo *bt_info(BlockType t);
/* Maps a wire TaskBlockType value to the internal type; false for an unknown value. */
bool bt_from_wire(int wire, BlockType *out);
/* Finds a type by name ("CC"); false when there is none. */
bool bt_from_name(const char *name, BlockType *out);

typedef enum { TC_INT32, TC_UINT32, TC_FLOAT } TensorContainer;

typedef enum {
#define X(name, wire, bits, sgn, lo, hi, cont) PR_##name,
#include "taskir/precisions.def"
#undef X
    PR_COUNT
} PrecisionId;

typedef struct PrecisionInfo {
    const char *name;
    int wire;
    int bits;
    bool is_signed;
    int64_t lo, hi;
    TensorContainer container;
} PrecisionInfo;

const PrecisionInfo *pr_info(PrecisionId p);
bool pr_from_wire(int wire, PrecisionId *out);
bool pr_from_name(const char *name, PrecisionId *out);

typedef enum {
#define X(name, wire, allowed, required, lo, hi, dflt) AT_##name,
#include "taskir/attributes.def"
#undef X
    AT_COUNT
} AttrId;

typedef struct AttrInfo {
    const char *name;
    int wire;
    uint64_t allowed;         /* BTM mask of block types that may carry it */
    uint64_t required;        /* BTM mask of block types that must carry it */
    int64_t lo, hi;
    int32_t dflt;             /* value of an absent attribute */
} AttrInfo;

const AttrInfo *at_info(AttrId a);
bool at_from_wire(int wire, AttrId *out);

typedef enum {
#define X(name, wire, keeps) RT_##name,
#include "taskir/rearranges.def"
#undef X
    RT_COUNT
} RearrangeType;

typedef struct RearrangeTypeInfo {
    const char *name;
    int wire;
    bool keeps_volume;
} RearrangeTypeInfo;

const RearrangeTypeInfo *rt_info(RearrangeType r);
bool rt_from_wire(int wire, RearrangeType *out);

/* Wire BiasType values; 0 means the field is absent. */
enum { BIAS_ABSENT = 0, BIAS_VECTOR = 1, BIAS_CONSTANT = 2 };

#endif
