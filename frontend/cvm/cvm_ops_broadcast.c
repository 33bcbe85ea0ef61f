/* cvm_ops_broadcast.c: broadcast_add, _sub, _mul, _max, _div and _greater.
 *
 * Shapes follow the CVM formalization: both shapes are extended to K = max(M, N) dims by prefixing
 * 1s; each dim must be equal or 1 in one of them; Y's dim is the larger; an input's index along
 * a dim of extent 1 is 0. (the CVM design text's prose says the lower dims "must be the same", but
 * its own example broadcasts a (2, 1) against a (2, 3), which only the CVM formalization's rule
 * allows; we follow the CVM formalization here, the one place where the design text contradicts
 * itself.) broadcast_div truncates toward zero and gives 0 for a zero divisor, as cvm-runtime does
 * (the formalization says only "divide"). broadcast_greater gives 1 or 0.
 */
#include "frontend/cvm/cvm_ops.h"

Status cvm_shape_broadcast(CvmCtx *c, const OgShape *in, OgShape *out)
{
    uint32_t K = in[0].ndim > in[1].ndim ? in[0].ndim : in[1].ndim;
    out[0].ndim = K;
    for (uint32_t i = 0; i < K; i++) {
        int64_t a = i + in[0].ndim >= K ? in[0].d[i + in[0].ndim - K] : 1;
        int64_t b = i + in[1].ndim >= K ? in[1].d[i + in[1].ndim - K] : 1;
        if (a != b && a != 1 && b != 1) {
            char sa[96], sb[96];
            return cvm_fail(c, "cvm.shape.mismatch", "shapes %s and %s do not broadcast",
                            og_shape_str(&in[0], sa, sizeof sa), og_shape_str(&in[1], sb, sizeof sb));
        }
        out[0].d[i] = a > b ? a : b;
    }
    return ST_OK;
}

typedef enum { BOP_ADD, BOP_SUB, BOP_MUL, BOP_MAX, BOP_DIV, BOP_GREATER } BinOp;

static int64_t apply(BinOp op, int64_t a, int64_t b)
{
    switch (op) {
    case BOP_ADD: return a + b;
    case BOP_SUB: return a - b;
    case BOP_MUL: return a * b;
    case BOP_MAX: return a > b ? a : b;
    case BOP_DIV: return b == 0 ? 0 : a / b; /* C division truncates toward zero */
    case BOP_GREATER: return a > b;
    }
    return 0;
}

/* Walks Y in C order with an odometer, keeping the offsets into A and B (stride 0 along a
 * broadcast dim). Operands are int32, so a * b and a - b are exact in int64. */
static Status run(CvmCtx *c, BinOp op, const OgTensor *const *in, OgTensor *out)
{
    uint32_t K = out->shape.ndim;
    int64_t sa[OG_MAX_DIMS] = {0}, sb[OG_MAX_DIMS] = {0}, idx[OG_MAX_DIMS] = {0};
    for (int t = 0; t < 2; t++) {
        const OgShape *s = &in[t]->shape;
        int64_t *st = t ? sb : sa, k = 1;
        for (uint32_t j = s->ndim; j-- > 0;) {
            st[j + K - s->ndim] = s->d[j] == 1 ? 0 : k;
            k *= s->d[j];
        }
    }
    const int32_t *A = in[0]->data, *B = in[1]->data;
    int64_t oa = 0, ob = 0;
    for (int64_t i = 0; i < out->count; i++) {
        out->data[i] = cvm_i32(c, apply(op, A[oa], B[ob]));
        for (uint32_t j = K; j-- > 0;) {
            if (++idx[j] < out->shape.d[j]) {
                oa += sa[j], ob += sb[j];
                break;
            }
            oa -= sa[j] * (idx[j] - 1), ob -= sb[j] * (idx[j] - 1);
            idx[j] = 0;
        }
    }
    return ST_OK;
}

Status cvm_run_broadcast_add(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    return run(c, BOP_ADD, in, out);
}

Status cvm_run_broadcast_sub(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    return run(c, BOP_SUB, in, out);
}

Status cvm_run_broadcast_mul(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    return run(c, BOP_MUL, in, out);
}

Status cvm_run_broadcast_max(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    return run(c, BOP_MAX, in, out);
}

Status cvm_run_broadcast_div(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    return run(c, BOP_DIV, in, out);
}

Status cvm_run_broadcast_greater(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    return run(c, BOP_GREATER, in, out);
}
