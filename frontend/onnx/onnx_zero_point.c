/* onnx_zero_point.c: the zero point of a quantized operator's input (onnx_nn.h), which the
 * convolutions and products of onnx_map_nn.c and onnx_map_matmul_dyn.c subtract.
 */
#include "frontend/onnx/onnx_nn.h"

Status onnx_nn_zero_points(OnnxCtx *c, uint32_t k, int64_t n, int32_t *zp, int32_t want_type)
{
    Status st = ST_OK;
    int64_t cnt = n > 0 ? n : 1;
    for (int64_t i = 0; i < cnt; i++)
        zp[i] = 0;
    if (k == ONNX_NO_ZP)
        return ST_OK;
    OnnxVal *z = onnx_in(c, k, &st);
    if (st != ST_OK || !z)
        return st;
    if (z->kind != OV_CONST || !z->c.i)
        return onnx_fail(c, "onnx.param", "zero point '%s' must be an integer constant", z->name);
    if (want_type && z->type != want_type)
        return onnx_fail(c, "onnx.type", "zero point '%s' has type %s, its tensor %s", z->name,
                         fe_onnx_type_name(z->type), fe_onnx_type_name(want_type));
    if (z->c.count != 1 && z->c.count != n)
        return onnx_fail(c, "onnx.quant.axis", "zero point '%s' has %lld values: one, or one "
                         "per channel (%lld)", z->name, (long long)z->c.count, (long long)n);
    for (int64_t i = 0; i < cnt; i++)
        zp[i] = (int32_t)z->c.i[z->c.count == 1 ? 0 : i];
    return ST_OK;
}
