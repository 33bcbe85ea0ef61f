/* cinn_ops.c: the CINN extension operators' table expanded from cinn_ops.def, and the
 * attribute parsing of those that have attributes (cinn_round, cinn_real, cinn_range), with
 * the schemas of cvm_ops.h so that messages and rules ([cvm.attr.<name>]) are the CVM ones.
 */
#include "frontend/cinn/cinn_ops.h"

#include <string.h>

static const CvmOpInfo cinn_table[CINN_OP_END - CINN_OP_BASE] = {
#define X(name, min_in, max_in, nout, parse, shape, prec, run, flags)                      \
    {#name, min_in, max_in, nout, parse, shape, prec, run, flags},
#include "frontend/cinn/cinn_ops.def"
#undef X
};

const CvmOpInfo *cinn_op_info(int op)
{
    if (op < CINN_OP_BASE || op >= CINN_OP_END)
        return NULL;
    return &cinn_table[op - CINN_OP_BASE];
}

bool cinn_op_from_name(const char *name, int *out)
{
    for (int i = 0; i < CINN_OP_END - CINN_OP_BASE; i++)
        if (strcmp(cinn_table[i].name, name) == 0) {
            *out = CINN_OP_BASE + i;
            return true;
        }
    return false;
}

/* ---- attributes ---- */

static const CvmAttrSpec round_attrs[] = {
    {"mode", CA_STR, NULL, 0, 0, 0, 0, "floor|ceil|trunc|round"},
    {"frac", CA_INT, NULL, 1, 31, 0, 0, NULL},
};

Status cinn_parse_round(CvmCtx *c, const CvmRawAttrs *raw)
{
    return cvm_parse_attrs(c, raw, round_attrs, sizeof round_attrs / sizeof *round_attrs);
}

Status cinn_parse_real(CvmCtx *c, const CvmRawAttrs *raw)
{
    const CvmAttrSpec spec[] = {
        {"func", CA_STR, NULL, 0, 0, 0, 0, cinn_real_choices()},
        {"in_frac", CA_INT, "0", 0, 31, 0, 0, NULL},
        {"out_frac", CA_INT, "0", 0, 31, 0, 0, NULL},
        {"precision", CA_INT, NULL, 1, 32, 0, 0, NULL},
    };
    return cvm_parse_attrs(c, raw, spec, sizeof spec / sizeof *spec);
}

static const CvmAttrSpec range_attrs[] = {
    {"precision", CA_INT, NULL, 1, 32, 0, 0, NULL},
};

Status cinn_parse_range(CvmCtx *c, const CvmRawAttrs *raw)
{
    return cvm_parse_attrs(c, raw, range_attrs, sizeof range_attrs / sizeof *range_attrs);
}

/* cinn_real, cinn_range: the declared output precision. */
Status cinn_prec_attr(CvmCtx *c, const OgShape *in, const int32_t *in_prec, int32_t *out_prec)
{
    (void)in, (void)in_prec;
    out_prec[0] = (int32_t)og_attr_int(c->n, "precision", 0);
    return ST_OK;
}
