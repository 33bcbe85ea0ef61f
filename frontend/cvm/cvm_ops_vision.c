/* cvm_ops_vision.c: get_valid_counts and non_max_suppression (the CVM formalization, "NMS
 Operator"). *
 * get_valid_counts(X (B, N, K)): valid_count[b] = #{q : X[b,q,1] > score_threshold}; Y[b]
 * holds those rows in order, then rows of -1.
 * non_max_suppression(X (B, N, 6), valid_count (B,)): rows are [class id, score, x1, y1, x2,
 * y2] (id_index 0, score_index 1, coord_start 2 are the only positions cvm-runtime accepts);
 * the first T = max(min(N, valid_count[b]), 0) rows are stably sorted by score, descending;
 * among the first min(top_k, T) of them, a row with class id >= 0 is kept unless an already
 * kept row (of the same class, or any with force_suppress) overlaps it by iou >= iou_threshold,
 * where iou is the overlap ratio in percent, computed in integers exactly as cvm-runtime does
 * (iou_threshold 50 means 0.5); at most max_output_size rows are kept; the rest are -1.
 * Negative top_k / max_output_size mean no limit.
 */
#include "frontend/cvm/cvm_ops.h"

#include <stdlib.h>
#include <string.h>

/* ---- get_valid_counts ---- */

/* cvm-runtime's GetValidCountsParam has score_threshold only: the score is always at index 1
 * (TVM's id_index / score_index do not exist there and are refused) */
static const CvmAttrSpec gvc_attrs[] = {
    {"score_threshold", CA_INT, "0", CVM_I32_LO, CVM_I32_HI, 0, 0, NULL},
};

Status cvm_parse_get_valid_counts(CvmCtx *c, const CvmRawAttrs *raw)
{
    return cvm_parse_attrs(c, raw, gvc_attrs, sizeof gvc_attrs / sizeof *gvc_attrs);
}

/* K in [2, 32): the CVM formalization needs K >= 2, cvm-runtime also K < 32. */
Status cvm_shape_get_valid_counts(CvmCtx *c, const OgShape *in, OgShape *out)
{
    Status st = cvm_want_rank(c, in, 0, 3);
    if (st != ST_OK)
        return st;
    if (in[0].d[2] < 2 || in[0].d[2] >= 32)
        return cvm_fail(c, "cvm.shape.mismatch", "rows have %lld values; get_valid_counts needs "
                        "2 to 31", (long long)in[0].d[2]);
    out[0].ndim = 1;
    out[0].d[0] = in[0].d[0];
    out[1] = in[0];
    return ST_OK;
}

/* cvm-runtime: valid_count gets GetNumberPrecision(N * K), Y keeps X's precision. */
Status cvm_prec_get_valid_counts(CvmCtx *c, const OgShape *in, const int32_t *in_prec,
                                 int32_t *out_prec)
{
    (void)c;
    out_prec[0] = cvm_number_prec(in[0].d[1] * in[0].d[2]);
    out_prec[1] = in_prec[0];
    return ST_OK;
}

Status cvm_run_get_valid_counts(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    int64_t thr = og_attr_int(c->n, "score_threshold", 0);
    const OgTensor *x = in[0];
    int64_t B = x->shape.d[0], N = x->shape.d[1], K = x->shape.d[2];
    for (int64_t b = 0; b < B; b++) {
        const int32_t *xb = x->data + b * N * K;
        int32_t *yb = out[1].data + b * N * K;
        int64_t n = 0;
        for (int64_t q = 0; q < N; q++)
            if (xb[q * K + 1] > thr)
                memcpy(yb + n++ * K, xb + q * K, (size_t)K * sizeof *yb);
        out[0].data[b] = cvm_i32(c, n);
        for (int64_t i = n * K; i < N * K; i++)
            yb[i] = -1;
    }
    return ST_OK;
}

/* ---- non_max_suppression ---- */

static const CvmAttrSpec nms_attrs[] = {
    {"iou_threshold", CA_INT, "50", 1, CVM_I32_HI, 0, 0, NULL},
    {"max_output_size", CA_INT, "-1", CVM_I32_LO, CVM_I32_HI, 0, 0, NULL},
    {"force_suppress", CA_BOOL, "false", 0, 0, 0, 0, NULL},
    {"top_k", CA_INT, "-1", CVM_I32_LO, CVM_I32_HI, 0, 0, NULL},
    {"coord_start", CA_INT, "2", 2, 2, 0, 0, NULL},
    {"score_index", CA_INT, "1", 1, 1, 0, 0, NULL},
    {"id_index", CA_INT, "0", 0, 0, 0, 0, NULL},
    {"return_indices", CA_BOOL, "false", 0, 0, 0, 0, NULL},
    {"invalid_to_bottom", CA_BOOL, "true", 0, 0, 0, 0, NULL},
};

Status cvm_parse_nms(CvmCtx *c, const CvmRawAttrs *raw)
{
    Status st = cvm_parse_attrs(c, raw, nms_attrs, sizeof nms_attrs / sizeof *nms_attrs);
    if (st != ST_OK)
        return st;
    if (og_attr_bool(c->n, "return_indices", false))
        return cvm_fail_attr(c, "return_indices", "= true is not supported (cvm-runtime accepts "
                             "only false)");
    if (!og_attr_bool(c->n, "invalid_to_bottom", true))
        return cvm_fail_attr(c, "invalid_to_bottom", "= false is not supported (cvm-runtime "
                             "accepts only true)");
    return ST_OK;
}

Status cvm_shape_nms(CvmCtx *c, const OgShape *in, OgShape *out)
{
    Status st;
    if ((st = cvm_want_rank(c, in, 0, 3)) || (st = cvm_want_rank(c, in, 1, 1)))
        return st;
    if (in[0].d[2] != 6)
        return cvm_fail(c, "cvm.shape.mismatch", "rows have %lld values; non_max_suppression "
                        "needs 6 (id, score, x1, y1, x2, y2)", (long long)in[0].d[2]);
    if (in[1].d[0] != in[0].d[0])
        return cvm_fail(c, "cvm.shape.mismatch", "valid_count has %lld values for a batch of %lld",
                        (long long)in[1].d[0], (long long)in[0].d[0]);
    out[0] = in[0];
    return ST_OK;
}

/* cvm-runtime limits the data to 30 bits so that box areas cannot overflow int64. */
Status cvm_prec_nms(CvmCtx *c, const OgShape *in, const int32_t *in_prec, int32_t *out_prec)
{
    (void)in;
    if (in_prec[0] > 30)
        return cvm_fail(c, "cvm.precision.input", "the data has precision %d; "
                        "non_max_suppression takes at most 30 bits", (int)in_prec[0]);
    out_prec[0] = in_prec[0];
    return ST_OK;
}

/* Overlap of two corner-format boxes in percent, as cvm-runtime's iou(): 0 when the summed
 * area or the union is not positive; overlap * 100 / union (or overlap / (union / 100) when
 * overlap * 100 would leave int64). int64 throughout: coordinates are int32. */
static int64_t iou_percent(const int32_t *r1, const int32_t *r2)
{
    /* precision <= 30 bounds every coordinate by 2^29; the clamp only keeps the products
     * below provably within int64 whatever the caller passes */
    const int64_t lim = (int64_t)1 << 30;
    int64_t x1a = cvm_clamp64(r1[0], -lim, lim), y1a = cvm_clamp64(r1[1], -lim, lim);
    int64_t x1b = cvm_clamp64(r1[2], -lim, lim), y1b = cvm_clamp64(r1[3], -lim, lim);
    int64_t x2a = cvm_clamp64(r2[0], -lim, lim), y2a = cvm_clamp64(r2[1], -lim, lim);
    int64_t x2b = cvm_clamp64(r2[2], -lim, lim), y2b = cvm_clamp64(r2[3], -lim, lim);
    int64_t sum = (x1b - x1a) * (y1b - y1a) + (x2b - x2a) * (y2b - y2a);
    if (sum <= 0)
        return 0;
    int64_t w = (x1b < x2b ? x1b : x2b) - (x1a > x2a ? x1a : x2a);
    int64_t h = (y1b < y2b ? y1b : y2b) - (y1a > y2a ? y1a : y2a);
    w = w > 0 ? w : 0;
    h = h > 0 ? h : 0;
    int64_t ov = w * h, uni = sum - ov;
    if (uni <= 0)
        return 0;
    if (INT64_MAX / 100 < ov)
        uni /= 100;
    else
        ov *= 100;
    return uni ? ov / uni : 0;
}

typedef struct { const int32_t *row; int64_t pos; } Cand;

static int by_score(const void *a, const void *b)
{
    const Cand *x = a, *y = b;
    if (x->row[1] != y->row[1])
        return x->row[1] > y->row[1] ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos; /* stable: original order on ties */
}

Status cvm_run_nms(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    const OgNode *n = c->n;
    int64_t thr = og_attr_int(n, "iou_threshold", 50);
    int64_t mos = og_attr_int(n, "max_output_size", -1), topk = og_attr_int(n, "top_k", -1);
    bool force = og_attr_bool(n, "force_suppress", false);
    const OgTensor *x = in[0], *vc = in[1];
    int64_t B = x->shape.d[0], N = x->shape.d[1], K = x->shape.d[2];
    Cand *r = malloc((size_t)(N ? N : 1) * sizeof *r);
    if (!r)
        return cvm_oom(c);
    for (int64_t b = 0; b < B; b++) {
        int64_t T = vc->data[b] < N ? vc->data[b] : N;
        T = T > 0 ? T : 0;
        for (int64_t i = 0; i < T; i++)
            r[i] = (Cand){x->data + (b * N + i) * K, i};
        qsort(r, (size_t)T, sizeof *r, by_score);
        int64_t nmax = mos >= 0 && mos < T ? mos : T, pmax = topk >= 0 && topk < T ? topk : T;
        int32_t *yb = out->data + b * N * K;
        int64_t kept = 0;
        for (int64_t p = 0; kept < nmax && p < pmax; p++) {
            const int32_t *row = r[p].row;
            if (row[0] < 0)
                continue;
            bool suppressed = false;
            for (int64_t i = 0; i < kept && !suppressed; i++)
                if (force || yb[i * K] == row[0])
                    suppressed = iou_percent(yb + i * K + 2, row + 2) >= thr;
            if (!suppressed)
                memcpy(yb + kept++ * K, row, (size_t)K * sizeof *yb);
        }
        for (int64_t i = kept * K; i < N * K; i++)
            yb[i] = -1;
    }
    free(r);
    return ST_OK;
}
