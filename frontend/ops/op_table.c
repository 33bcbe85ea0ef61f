/* op_table.c: THE operator table of the OpGraph dialect "cvm": the rows of the CVM operators
 * (frontend/cvm/cvm_ops.def) followed by those of the CINN frontend's extension operators
 * (frontend/cinn/cinn_ops.def), each with its dialect column ("cvm" or "cinn"), and the
 * lookups that cvm_ops.h and cinn_ops.h declare. The row of CVM code op is row op; the row of
 * CINN code op (CINN_OP_BASE <= op < CINN_OP_END) is row CVM_OP_COUNT + op - CINN_OP_BASE.
 * Names are looked up within one dialect: the CVM model reader knows only the CVM rows.
 */
#include "frontend/cinn/cinn_ops.h"
#include "frontend/cvm/cvm_ops.h"

#include <string.h>

enum { CINN_ROWS = CINN_OP_END - CINN_OP_BASE, ROWS = CVM_OP_COUNT + CINN_ROWS };

static const CvmOpInfo op_table[ROWS] = {
#define X(name, min_in, max_in, nout, parse, shape, prec, run, flags)                      \
    {#name, min_in, max_in, nout, parse, shape, prec, run, flags, "cvm"},
#include "frontend/cvm/cvm_ops.def"
#undef X
#define X(name, min_in, max_in, nout, parse, shape, prec, run, flags)                      \
    {#name, min_in, max_in, nout, parse, shape, prec, run, flags, "cinn"},
#include "frontend/cinn/cinn_ops.def"
#undef X
};

/* The row of code op, or NULL for a code of neither dialect. */
static const CvmOpInfo *row(int op)
{
    if (op >= 0 && op < CVM_OP_COUNT)
        return &op_table[op];
    if (op >= CINN_OP_BASE && op < CINN_OP_END)
        return &op_table[CVM_OP_COUNT + (op - CINN_OP_BASE)];
    return NULL;
}

/* The code of row i. */
static int code_of(int i)
{
    return i < CVM_OP_COUNT ? i : CINN_OP_BASE + (i - CVM_OP_COUNT);
}

/* The code of the row of dialect dialect named name; false when there is none. */
static bool find(const char *dialect, const char *name, int *out)
{
    for (int i = 0; i < ROWS; i++)
        if (strcmp(op_table[i].dialect, dialect) == 0 && strcmp(op_table[i].name, name) == 0) {
            *out = code_of(i);
            return true;
        }
    return false;
}

const CvmOpInfo *cvm_op_info(CvmOp op)
{
    return row((int)op);
}

const char *cvm_op_name(CvmOp op)
{
    return (unsigned)op < CVM_OP_COUNT ? op_table[op].name : NULL;
}

bool cvm_op_from_name(const char *name, CvmOp *out)
{
    int op;
    if (!find("cvm", name, &op))
        return false;
    *out = (CvmOp)op;
    return true;
}

int cvm_op_min_inputs(CvmOp op)
{
    return (unsigned)op < CVM_OP_COUNT ? op_table[op].min_in : 0;
}

int cvm_op_max_inputs(CvmOp op)
{
    return (unsigned)op < CVM_OP_COUNT ? op_table[op].max_in : 0;
}

int cvm_op_num_outputs(CvmOp op)
{
    return (unsigned)op < CVM_OP_COUNT ? op_table[op].nout : 0;
}

const CvmOpInfo *cinn_op_info(int op)
{
    return op >= CINN_OP_BASE ? row(op) : NULL;
}

bool cinn_op_from_name(const char *name, int *out)
{
    return find("cinn", name, out);
}
