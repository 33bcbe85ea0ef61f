/* cinn_ops.c: the attribute parsing of the CINN extension operators (cinn_ops.def) that have
 * attributes (cinn_round, cinn_real, cinn_range), with the schemas of cvm_ops.h so that
 * messages and rules ([cvm.attr.<name>]) are the CVM ones. Their table rows are in
 * frontend/ops/op_table.c.
 */
#include "frontend/cinn/cinn_ops.h"

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
