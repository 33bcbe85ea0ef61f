/* types.c: the table rows of the .def files as const arrays, and lookups by wire value and
 * by name. Nothing here is mutable. */
#include "taskir/types.h"

#include <string.h>

const char *const tir_dim_names[TIR_NDIMS] = {"y", "x", "f", "r", "ky", "kx", "iy", "ix"};

/* Producer masks used by blocktypes.def. */
#define P_STORAGE (BTM(SI) | BTM(SW) | BTM(SIC2D) | BTM(SIFC) | BTM(SIC) | BTM(SB) | \
                   BTM(SWFC) | BTM(SW2D))
#define P_COMPUTE (BTM(CADD) | BTM(CVVH) | BTM(CVM) | BTM(CC) | BTM(CAX) | BTM(CC2D) | \
                   BTM(CVS) | BTM(CCMPB) | BTM(CAVG) | BTM(CCMPS) | BTM(CLUT) | BTM(CLIF))
#define P_PRODUCER (P_COMPUTE | BTM(INPUT))
#define P_GENERAL (BTM(SI) | BTM(SB))
#define P_VECTOR (BTM(SB) | BTM(SI))
#define P_SIC BTM(SIC)
#define P_SIC2D BTM(SIC2D)
#define P_SIFC BTM(SIFC)
#define P_SW BTM(SW)
#define P_SW2D BTM(SW2D)
#define P_SWFC BTM(SWFC)

#define DM_Y D_Y
#define DM_X D_X
#define DM_F D_F
#define DM_R D_R
#define DM_KY D_KY
#define DM_KX D_KX
#define DM_IY D_IY
#define DM_IX D_IX
#define DM_NO D_NO
#define DM_LUT D_LUT
#define C_(role, prod, y, x, f, r, ky, kx) \
    {role, prod, {DM_##y, DM_##x, DM_##f, DM_##r, DM_##ky, DM_##kx}}
#define CL(...) {__VA_ARGS__, {0, 0, {0}}}
#define NOCL {{0, 0, {0}}}

const ClusterSpec bt_bias_cluster = C_("bias", P_VECTOR, NO, NO, F, NO, NO, NO);

#define X(name, wire, kind, pcode, dims, nvar, flags, ins, outs) \
    static const ClusterSpec name##_ins[] = ins;                 \
    static const ClusterSpec name##_outs[] = outs;
#include "taskir/blocktypes.def"
#undef X

/* Arrays end in a sentinel with a NULL role. */
#define NSPEC(a) ((int)(sizeof(a) / sizeof((a)[0])) - 1)

static const BlockTypeInfo block_types[BT_COUNT] = {
#define X(name, wire, kind, pcode, dims, nvar, flags, ins, outs) \
    {#name, wire, kind, pcode, dims, nvar, flags, name##_ins, NSPEC(name##_ins), \
     name##_outs, NSPEC(name##_outs)},
#include "taskir/blocktypes.def"
#undef X
};

#define AG_WINDOW (BTM(CAVG) | BTM(CC) | BTM(CC2D) | BTM(CCMPB) | BTM(CCMPS) | BTM(CADD))
/* P02 (CADD, CAVG) and P03 (CVVH) read their inputs with a stride and padding */
#define AG_STRIDED (AG_WINDOW | BTM(CVVH))
#define AG_CONV (BTM(CC) | BTM(CC2D))
#define AG_CMP (BTM(CCMPB) | BTM(CCMPS))
#define AG_CONST_A BTM(CVS)
#define AG_CVS BTM(CVS)
#define AG_BIASED (BTM(CADD) | BTM(CVVH) | BTM(CVM) | BTM(CC) | BTM(CAX) | BTM(CC2D) | \
                   BTM(CVS) | BTM(CAVG))
#define AG_SHIFT (BTM(CCMPB) | BTM(CCMPS) | BTM(CLUT) | BTM(CLIF))
#define AG_LIF BTM(CLIF)
#define AG_LUT BTM(CLUT)

static const AttrInfo attributes[AT_COUNT] = {
#define X(name, wire, allowed, required, lo, hi, dflt) \
    {#name, wire, allowed, required, lo, hi, dflt},
#include "taskir/attributes.def"
#undef X
};

static const PrecisionInfo precisions[PR_COUNT] = {
#define X(name, wire, bits, sgn, lo, hi, cont) {#name, wire, bits, sgn, lo, hi, cont},
#include "taskir/precisions.def"
#undef X
};

static const RearrangeTypeInfo rearranges[RT_COUNT] = {
#define X(name, wire, keeps) {#name, wire, keeps},
#include "taskir/rearranges.def"
#undef X
};

const BlockTypeInfo *bt_info(BlockType t)
{
    return (unsigned)t < BT_COUNT ? &block_types[t] : NULL;
}

const PrecisionInfo *pr_info(PrecisionId p)
{
    return (unsigned)p < PR_COUNT ? &precisions[p] : NULL;
}

const AttrInfo *at_info(AttrId a)
{
    return (unsigned)a < AT_COUNT ? &attributes[a] : NULL;
}

const RearrangeTypeInfo *rt_info(RearrangeType r)
{
    return (unsigned)r < RT_COUNT ? &rearranges[r] : NULL;
}

#define FROM_WIRE(fn, Type, table, count)                 \
    bool fn(int wire, Type *out)                          \
    {                                                     \
        for (int i = 0; i < (count); i++)                 \
            if ((table)[i].wire == wire) {                \
                *out = (Type)i;                           \
                return true;                              \
            }                                             \
        return false;                                     \
    }
FROM_WIRE(bt_from_wire, BlockType, block_types, BT_COUNT)
FROM_WIRE(pr_from_wire, PrecisionId, precisions, PR_COUNT)
FROM_WIRE(at_from_wire, AttrId, attributes, AT_COUNT)
FROM_WIRE(rt_from_wire, RearrangeType, rearranges, RT_COUNT)

#define FROM_NAME(fn, Type, table, count)                 \
    bool fn(const char *name, Type *out)                  \
    {                                                     \
        for (int i = 0; i < (count); i++)                 \
            if (strcmp((table)[i].name, name) == 0) {     \
                *out = (Type)i;                           \
                return true;                              \
            }                                             \
        return false;                                     \
    }
FROM_NAME(bt_from_name, BlockType, block_types, BT_COUNT)
FROM_NAME(pr_from_name, PrecisionId, precisions, PR_COUNT)
