/* onnx_nn.h: what the neural-network mappings share (private to frontend/onnx_map_*.c).
 *
 *   onnx_map_nn.c          windows, zero padding (these helpers), Conv, Gemm,
 *                          MatMul with a constant B, MaxPool
 *   onnx_map_pool.c        AveragePool, GlobalAveragePool; exact floor division by constants
 *   onnx_map_matmul_dyn.c  MatMul / MatMulInteger / QLinearMatMul whose B is computed
 *   onnx_zero_point.c      the zero points of quantized inputs
 */
#ifndef FRONTEND_ONNX_NN_H
#define FRONTEND_ONNX_NN_H

#include "frontend/onnx/onnx_internal.h"

/* A pooling / convolution window as the node's attributes give it (auto_pad resolved into
 * pads). nd = 1: the values are in index 0. */
typedef struct OnnxWin {
    uint32_t nd;            /* spatial dims: 1 or 2 */
    int64_t k[2], s[2], dl[2], pb[2], pe[2];   /* kernel, stride, dilation, pads begin/end */
    int64_t ceil_mode;
} OnnxWin;

/* Reads kernel_shape (required), strides, pads, auto_pad, ceil_mode of the current node for
 * an input of shape xs (3 or 4 dims); dilations other than 1 are refused [onnx.attr]. */
Status onnx_nn_read_window(OnnxCtx *c, const OgShape *xs, OnnxWin *w);
/* x (N C W or N C H W) as 4 dims (N C 1 W for 1-D); and back to the ONNX rank (nd). */
Status onnx_nn_as4d(OnnxCtx *c, OgEdge x, OgEdge *out);
Status onnx_nn_from4d(OnnxCtx *c, OgEdge y, uint32_t nd, OgEdge *out);
/* Zero padding of a 4-D tensor: pb (top, left) before, pe (bottom, right) after (>= 0). */
Status onnx_nn_pad_zeros(OnnxCtx *c, OgEdge x, const int64_t pb[2], const int64_t pe[2],
                         OgEdge *out);
/* The zero point of input k (absent: 0): a scalar, or one per entry along a dim of n > 0;
 * *zp has max(1, n) entries; its type must be want_type (0: any) [onnx.param, onnx.type,
 * onnx.quant.axis]. k == ONNX_NO_ZP: none (all 0). */
#define ONNX_NO_ZP UINT32_MAX
Status onnx_nn_zero_points(OnnxCtx *c, uint32_t k, int64_t n, int32_t *zp, int32_t want_type);

/* A[..., M, K] x B[..., K, N] (numpy matmul, batch dims broadcast; 1-D operands as ONNX
 * treats them) of inputs ka and kb, each minus its zero point (kazp, kbzp; ONNX_NO_ZP =
 * none; B's per column), where B (or A) is computed at run time: an elementwise product
 * over [..., M, K, N] summed over K (onnx_map_matmul_dyn.c). */
Status onnx_matmul_dyn(OnnxCtx *c, uint32_t ka, uint32_t kazp, uint32_t kb, uint32_t kbzp,
                       OgEdge *out);

/* floor(v / d) exactly, d >= 1 a constant per position of pattern shape ps (which
 * broadcasts to v's shape; rank 0: one d for all), for every v with |v| <= bound: CVM
 * multiplications by constants, right shifts, subtractions and clips whose every
 * intermediate is proven within int32 at compile time (onnx_map_pool.c). The result is
 * pending: floor(*e / 2^*s) is the quotient (*s >= 1), for an OV_DIV that Floor completes.
 * A divisor for which no exact form fits is a logic error [onnx.float.avg] naming what. */
Status onnx_floor_div_const(OnnxCtx *c, OgEdge v, int64_t bound, const OgShape *ps,
                            const int64_t *d, const char *what, OgEdge *e, int *s);

#endif
