/* lower_cinn.c: lowering the CINN extension operators (cinn_ops.def): lw_op_NAME for each
 * row, dispatched by lw_cinn_op (called by lower.c for codes >= CINN_OP_BASE).
 *
 *   integer binary functions (floor_div, mod, floor_mod, bitwise, power, shifts): one CLUT
 *       whose table is the operator's own interpreter function (lw_table_binary): over the
 *       computed operand when the other is a constant scalar (its precision <= 16), else over
 *       the index a * 2^pb + b (pa + pb <= 16) — docs/lowering.md "Lookup tables" gives the
 *       exactness argument; wider operands are [lower.precision], the message naming the
 *       operator and the precision it would need;
 *   cinn_round, cinn_real: one CLUT over the input (lw_table_unary; precision <= 16; the
 *       builder already limits cinn_real to 8-bit inputs);
 *   cinn_range: no block: the input's value with the narrower precision.
 * A node whose inputs are all constants never gets here: lower.c folds it with the same
 * interpreter function.
 */
#include "frontend/cinn/cinn_ops.h"
#include "frontend/lower/lower_internal.h"

#include <stdlib.h>

typedef Status (*LwCinnFn)(Lw *L);

/* A constant input all of whose values are equal (a scalar after broadcasting). */
static bool const_scalar(Lw *L, uint32_t k)
{
    const LVal *v = lw_in(L, k);
    if (v->kind != LV_CONST)
        return false;
    for (int64_t i = 1; i < v->c.count; i++)
        if (v->c.data[i] != v->c.data[0])
            return false;
    return true;
}

static Status table_binary(Lw *L)
{
    int32_t p0 = lw_in(L, 0)->prec, p1 = lw_in(L, 1)->prec;
    bool ok = (const_scalar(L, 1) && p0 <= LW_MAX_TABLE_DW) ||
              (const_scalar(L, 0) && p1 <= LW_MAX_TABLE_DW) || p0 + p1 <= LW_MAX_TABLE_DW;
    if (!ok)
        return lw_fail(L, "lower.precision", "%s of operands of precisions %d and %d: it lowers "
                       "only to a lookup table (CLUT) whose index holds at most %d bits, here "
                       "%d (the sum of both precisions; with a constant scalar operand, the "
                       "other's precision)", L->cur->op_name, (int)p0, (int)p1,
                       LW_MAX_TABLE_DW, (int)(p0 + p1));
    return lw_table_binary(L);
}

static Status lw_op_cinn_floor_div(Lw *L)
{
    return table_binary(L);
}

static Status lw_op_cinn_mod(Lw *L)
{
    return table_binary(L);
}

static Status lw_op_cinn_floor_mod(Lw *L)
{
    return table_binary(L);
}

static Status lw_op_cinn_bitwise_and(Lw *L)
{
    return table_binary(L);
}

static Status lw_op_cinn_bitwise_or(Lw *L)
{
    return table_binary(L);
}

static Status lw_op_cinn_bitwise_xor(Lw *L)
{
    return table_binary(L);
}

static Status lw_op_cinn_power(Lw *L)
{
    return table_binary(L);
}

static Status lw_op_cinn_left_shift(Lw *L)
{
    return table_binary(L);
}

static Status lw_op_cinn_right_shift(Lw *L)
{
    return table_binary(L);
}

static Status lw_op_cinn_round(Lw *L)
{
    return lw_table_unary(L);
}

static Status lw_op_cinn_real(Lw *L)
{
    return lw_table_unary(L);
}

/* The input's value itself, with the node's (narrower, proven) precision. When the input is
 * also read elsewhere the copy may not take folds into its producer (a rounding constant into
 * the bias, a relu into the clip's CMP): the other readers would see them. */
static Status lw_op_cinn_range(Lw *L)
{
    const OgNode *n = L->cur;
    LVal out;
    Status st = lw_val_copy(L, lw_in(L, 0), &out);
    if (st != ST_OK)
        return st;
    out.prec = n->out_prec[0];
    if (L->nuse[L->first[n->inputs[0].node] + n->inputs[0].index] > 1) {
        out.lo_blk = NULL;
        out.bias_ok = false;
    }
    lw_set_out(L, 0, &out);
    return ST_OK;
}

static const LwCinnFn cinn_lw_ops[CINN_OP_END - CINN_OP_BASE] = {
#define X(name, min_in, max_in, nout, parse, shape, prec, run, flags) lw_op_##name,
#include "frontend/cinn/cinn_ops.def"
#undef X
};

Status lw_cinn_op(Lw *L)
{
    int op = L->cur->op;
    if (op < CINN_OP_BASE || op >= CINN_OP_END)
        return diag_add(L->d, ST_RUNTIME, "lower.internal", NULL, "unknown operator code %d", op);
    return cinn_lw_ops[op - CINN_OP_BASE](L);
}
