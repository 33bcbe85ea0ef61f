/* lower_reduce.c: sum and max (docs/lowering.md).
 *
 * The reduced axes R and kept axes K are those the interpreter computes (the CVM design text: the
 * axes, exclude, no axes = all). The edge into the SI transposes the tensor so that the reduced
 * axes come first, laid out [y = prod R][x][f] (the kept axes, in order, split over x and f);
 * a window covering all of y then reduces: CAVG sums it (exactly, in int64 / modulo 2^32,
 * and the precision rule bounds the sum within int32), CCMPB takes its maximum (CMP =
 * INT32_MIN, no shift, no padding: nothing is clipped). The output [1][x][f] holds the kept
 * axes in C order, which is the result's C order. With N > 1 axis 0 is the batch and may not
 * be reduced [lower.batch]; with no reduced axis at all the result is the input.
 */
#include "frontend/lower/lower_internal.h"

#include <string.h>

static Status reduce(Lw *L, bool is_max)
{
    const OgNode *n = L->cur;
    LVal *x = lw_in(L, 0);
    const OgShape *fs = og_edge_shape(L->og, n->inputs[0]);
    uint32_t m, N = fs->ndim;
    const int64_t *ax = og_attr_ints(n, "axis", &m);
    bool exclude = og_attr_bool(n, "exclude", false), in_t[OG_MAX_DIMS] = {false};
    for (uint32_t i = 0; i < m; i++) {
        int64_t a;
        if (cvm_axis(ax[i], N, 0, &a))
            in_t[a] = true;
    }
    bool red[OG_MAX_DIMS];
    for (uint32_t i = 0; i < N; i++)
        red[i] = m == 0 ? true : exclude ? !in_t[i] : in_t[i];
    if (L->drop && red[0])
        return lw_fail(L, "lower.batch", "%s reduces over axis 0, the batch of %lld samples: "
                       "one sample cannot be computed on its own", n->op_name,
                       (long long)L->N);
    OgShape ps_out = lw_ps_of(L, &n->out_shape[0]);
    int nd = (int)x->ps.ndim, nred = 0, nkeep = 0, perm[OG_MAX_DIMS];
    int64_t kd[OG_MAX_DIMS], ry = 1;
    for (int a = 0; a < nd; a++)
        if (red[a + L->drop]) {
            perm[nred++] = a;
            ry *= x->ps.d[a];
        }
    for (int a = 0; a < nd; a++)
        if (!red[a + L->drop]) {
            kd[nkeep] = x->ps.d[a];
            perm[nred + nkeep++] = a;
        }
    LVal v;
    if (nred == 0) {
        Status st = lw_val_copy(L, x, &v);
        if (st != ST_OK)
            return st;
        v.ps = ps_out;
        v.prec = n->out_prec[0];
        if (L->nuse[L->first[n->inputs[0].node] + n->inputs[0].index] > 1) {
            v.bias_ok = false;
            v.lo_blk = NULL;
        }
        lw_set_out(L, 0, &v);
        return ST_OK;
    }
    if (ry > LW_MAX_DIM)
        return lw_fail(L, "lower.limit", "%s reduces %lld elements per output element: a "
                       "window holds at most 2^24", n->op_name, (long long)ry);
    /* kept axes: x = kd[0..s), f = kd[s..nkeep), f as large as the limit allows */
    int64_t X = 1, F = 1;
    bool found = false;
    for (int s = 0; s <= nkeep && !found; s++) {
        X = 1, F = 1;
        for (int i = 0; i < s; i++)
            X *= kd[i];
        for (int i = s; i < nkeep; i++)
            F *= kd[i];
        found = X <= LW_MAX_DIM && F <= LW_MAX_DIM;
    }
    if (!found)
        return lw_fail(L, "lower.limit", "the kept axes of %s hold too many elements to lay "
                       "out as x, f of at most 2^24 each", n->op_name);
    int32_t yxf[3] = {(int32_t)ry, (int32_t)X, (int32_t)F};
    Block *si;
    Status st = lw_stage_in(L, x, perm, yxf, "in", &si);
    if (st != ST_OK)
        return st;
    int32_t shp[TIR_NDIMS] = {1, (int32_t)X, (int32_t)F, 0, (int32_t)ry, 1, (int32_t)ry,
                              (int32_t)X};
    Block *c = lw_block(L, is_max ? BT_CCMPB : BT_CAVG, NULL, shp, PR_INT_32);
    if (!c || !blk_set_attr(L->g, c, AT_KERNEL_Y, (int32_t)ry) ||
        !blk_set_attr(L->g, c, AT_KERNEL_X, 1) ||
        (is_max && !blk_set_attr(L->g, c, AT_CMP, INT32_MIN)))
        return lw_oom(L);
    if ((st = lw_connect(L, si, c, 0)) != ST_OK)
        return st;
    lw_prod(&v, c, &ps_out, NULL, n->out_prec[0]);
    if (is_max)
        v.lo_blk = c;
    lw_set_out(L, 0, &v);
    return ST_OK;
}

Status lw_op_sum(Lw *L)
{
    return reduce(L, false);
}

Status lw_op_max(Lw *L)
{
    return reduce(L, true);
}
