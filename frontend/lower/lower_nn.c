/* lower_nn.c: conv2d, dense and max_pool2d (docs/lowering.md).
 *
 * conv2d: the NCHW data goes to an SIC laid out [y=H][x=W][r=C] (the edge from its producer
 * carries the transposition), the OIHW weight to an SW ([f][r][ky][kx] is OIHW's C order),
 * the bias to an SB, and a CC computes the convolution with the CVM padding on both sides,
 * strides and dilations; its output [y][x][f] is the NCHW result transposed to HWC. With
 * groups > 1 each group is its own CC2D (SIC2D + SW2D + SB) reading its channel slice of
 * the data through the interfaces; the groups' outputs together form the result. A sample
 * holding several images along axis 0 (an ONNX tensor [N, C, H, W]) gets one convolution
 * per image and group, each reading its image through the interfaces.
 * dense: SIFC [r=K] + SWFC [f=units][r=K] (the weight's C order) + SB -> CVM.
 * max_pool2d: SI [H][W][C] -> CCMPB with the window, strides and padding (padding taps count
 * as zeros in both, the CVM formalization's pad()), CMP = INT32_MIN so nothing is clipped;
 * ceil_mode extends the bottom/right padding so that the window formula gives the ceil'd extent.
 * Several images in one sample are one CCMPB over [H][W][N * C]: their channels side by side.
 * All arithmetic is exact: the precision rules bound every result within int32.
 */
#include "frontend/lower/lower_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The per-sample layout HWC of an NCHW tensor: with N == 1 the per-sample shape is
 * (1, C, H, W), else (C, H, W). */
static int hwc_perm(const Lw *L, int *perm)
{
    if (L->drop) {
        perm[0] = 1, perm[1] = 2, perm[2] = 0;
        return 0;
    }
    perm[0] = 0, perm[1] = 2, perm[2] = 3, perm[3] = 1;
    return 1;
}

/* The images in one sample of an NCHW x: 1 with a batch N > 1 (axis 0 is the batch), else
 * x's axis 0 (an ONNX model's whole tensor [N, C, H, W] is one sample, docs/onnx.md). */
static int64_t images_of(const Lw *L, const OgShape *xs)
{
    return L->drop ? 1 : xs->d[0];
}

static Status want_params(Lw *L, const char *op, const LVal *w, const LVal *b)
{
    if (w->kind != LV_CONST)
        return lw_fail(L, "lower.param", "the weight (input 1) is computed by the graph; %s "
                       "lowers with a weight that is a parameter", op);
    if (b && b->kind != LV_CONST)
        return lw_fail(L, "lower.param", "the bias (input 2) is computed by the graph; %s "
                       "lowers with a bias that is a parameter", op);
    return ST_OK;
}

Status lw_op_conv2d(Lw *L)
{
    const OgNode *n = L->cur;
    LVal *x = lw_in(L, 0), *w = lw_in(L, 1), *b = n->ninputs == 3 ? lw_in(L, 2) : NULL;
    Status st = want_params(L, "conv2d", w, b);
    if (st != ST_OK)
        return st;
    uint32_t cnt;
    const int64_t *sd = og_attr_ints(n, "strides", &cnt);
    const int64_t *pd = og_attr_ints(n, "padding", &cnt);
    const int64_t *dl = og_attr_ints(n, "dilation", &cnt);
    int64_t G = og_attr_int(n, "groups", 1);
    const OgShape *xs = og_edge_shape(L->og, n->inputs[0]);
    int64_t NI = images_of(L, xs);
    if (NI > LW_MAX_IMAGES)
        return lw_fail(L, "lower.limit", "conv2d over %lld images along axis 0 of one sample: "
                       "at most %d are lowered (each image is its own CC, holding the weight)",
                       (long long)NI, LW_MAX_IMAGES);
    if (G > LW_MAX_LEAVES / NI)
        return lw_fail(L, "lower.limit", "%lld groups over %lld images: at most %d convolutions "
                       "are lowered", (long long)G, (long long)NI, LW_MAX_LEAVES);
    int64_t H = xs->d[2], W = xs->d[3];
    int64_t OC = w->c.shape.d[0], IC = w->c.shape.d[1], KH = w->c.shape.d[2],
            KW = w->c.shape.d[3];
    int64_t OH = n->out_shape[0].d[2], OW = n->out_shape[0].d[3], OPG = OC / G;
    int perm[OG_MAX_DIMS];
    int o = hwc_perm(L, perm);
    OgShape ps_out = lw_ps_of(L, &n->out_shape[0]);
    /* One convolution (a leaf) per image and group: leaf img * G + gi. */
    int64_t NL = NI * G;
    Block **cc = calloc((size_t)NL, sizeof *cc);
    if (!cc)
        return lw_oom(L);
    Block *sb0 = NULL;
    char where[320];
    EncCtx ec;
    lw_enc_ctx(L, &ec, where, sizeof where);
    ConvLeafSpec spec = {
        .grouped = G != 1, .h = (int32_t)H, .w = (int32_t)W, .ic = (int32_t)IC,
        .oc = (int32_t)OPG, .kh = (int32_t)KH, .kw = (int32_t)KW, .oh = (int32_t)OH,
        .ow = (int32_t)OW, .stride = {(int32_t)sd[0], (int32_t)sd[1]},
        .pad = {(int32_t)pd[0], (int32_t)pd[0], (int32_t)pd[1], (int32_t)pd[1]},
        .dilation = {(int32_t)dl[0], (int32_t)dl[1]}, .in_prec = lw_store_prec(x->prec),
        .w_prec = lw_store_prec(w->prec), .b_prec = b ? lw_store_prec(b->prec) : PR_INT_32};
    for (int64_t li = 0; li < NL && st == ST_OK; li++) {
        int64_t img = li / G, gi = li % G;
        char pre[32] = "";
        if (NI > 1)
            snprintf(pre, sizeof pre, "i%lld%s", (long long)img, G > 1 ? "/" : "");
        if (G > 1)
            snprintf(pre + strlen(pre), sizeof pre - strlen(pre), "g%lld", (long long)gi);
        spec.weights = w->c.data + gi * OPG * IC * KH * KW;
        spec.bias = b ? b->c.data + gi * OPG : NULL;
        ConvLeaf leaf;
        if ((st = conv_leaf_begin(&ec, &spec, pre, &leaf)) != ST_OK)
            break;
        /* The image's channel slice: axis 0 (with N == 1) picks the image. */
        int64_t lo[OG_MAX_DIMS] = {0}, ext[OG_MAX_DIMS];
        for (uint32_t a = 0; a < x->ps.ndim; a++)
            ext[a] = x->ps.d[a];
        if (o) {
            lo[0] = img;
            ext[0] = 1;
        }
        lo[o] = gi * IC;
        ext[o] = IC;
        if ((st = lw_feed(L, x, leaf.in, 0, NULL, NULL, perm, lo, ext)) != ST_OK ||
            (st = conv_leaf_end(&ec, &spec, pre, &leaf)) != ST_OK)
            break;
        if (leaf.b)
            sb0 = leaf.b;
        cc[li] = leaf.cc;
    }
    if (st != ST_OK) {
        free(cc);
        return st;
    }
    LVal v;
    memset(&v, 0, sizeof v);
    if (NL == 1) {
        lw_prod(&v, cc[0], &ps_out, perm, n->out_prec[0]);
        v.bias_sb = sb0;
        v.bias_ok = true;
    } else {
        /* The leaves together: output (img, oc, y, x) comes from leaf img * G + oc / OPG. */
        int64_t vol = lw_volume(&ps_out);
        v.kind = LV_MAP;
        v.ps = ps_out;
        v.prec = n->out_prec[0];
        v.nsrc = (uint32_t)NL;
        v.srcs = calloc((size_t)NL, sizeof *v.srcs);
        v.msrc = malloc((size_t)vol * sizeof *v.msrc);
        v.moff = malloc((size_t)vol * sizeof *v.moff);
        if (!v.srcs || !v.msrc || !v.moff) {
            lw_val_free(&v);
            free(cc);
            return lw_oom(L);
        }
        for (int64_t li = 0; li < NL; li++) {
            v.srcs[li].b = cc[li];
            blk_cluster_dims(cc[li], false, 0, v.srcs[li].cd);
        }
        int64_t i = 0;
        for (int64_t img = 0; img < NI; img++)
            for (int64_t oc = 0; oc < OC; oc++)
                for (int64_t y = 0; y < OH; y++)
                    for (int64_t xx = 0; xx < OW; xx++, i++) {
                        v.msrc[i] = (int32_t)(img * G + oc / OPG);
                        v.moff[i] = (int32_t)((y * OW + xx) * OPG + oc % OPG);
                    }
        v.has_hint = true;
        memcpy(v.hint, perm, sizeof v.hint);
    }
    free(cc);
    lw_set_out(L, 0, &v);
    return ST_OK;
}

Status lw_op_dense(Lw *L)
{
    const OgNode *n = L->cur;
    LVal *x = lw_in(L, 0), *w = lw_in(L, 1), *b = n->ninputs == 3 ? lw_in(L, 2) : NULL;
    Status st = want_params(L, "dense", w, b);
    if (st != ST_OK)
        return st;
    int64_t U = w->c.shape.d[0], K = w->c.shape.d[1];
    /* Rows: with N > 1 the per-sample input is one row (K); with N == 1 it is (M, K). */
    int64_t M = L->drop ? 1 : x->ps.d[0];
    OgShape ps_out = lw_ps_of(L, &n->out_shape[0]);
    if (M > LW_MAX_LEAVES)
        return lw_fail(L, "lower.limit", "%lld rows: at most %d are lowered", (long long)M,
                       LW_MAX_LEAVES);
    int32_t shp_w[TIR_NDIMS] = {0, 0, (int32_t)U, (int32_t)K};
    Block *sw = lw_block(L, BT_SWFC, "w", shp_w, (int)lw_store_prec(w->prec));
    if (!sw)
        return lw_oom(L);
    if ((st = lw_set_data(L, sw, lw_store_prec(w->prec), w->c.data, U * K)) != ST_OK)
        return st;
    Block *sb = NULL;
    if (b) {
        int32_t shp_b[TIR_NDIMS] = {0, 0, (int32_t)U};
        if (!(sb = lw_block(L, BT_SB, "b", shp_b, (int)lw_store_prec(b->prec))))
            return lw_oom(L);
        if ((st = lw_set_data(L, sb, lw_store_prec(b->prec), b->c.data, U)) != ST_OK)
            return st;
    }
    Block **cv = calloc((size_t)M, sizeof *cv);
    if (!cv)
        return lw_oom(L);
    int ident[OG_MAX_DIMS];
    lw_identity(ident, (int)x->ps.ndim);
    for (int64_t m = 0; m < M && st == ST_OK; m++) {
        char s_in[48], s_c[48];
        snprintf(s_in, sizeof s_in, M == 1 ? "in" : "row%lld/in", (long long)m);
        snprintf(s_c, sizeof s_c, M == 1 ? "" : "row%lld", (long long)m);
        int32_t shp_in[TIR_NDIMS] = {0, 0, 0, (int32_t)K};
        int32_t shp_c[TIR_NDIMS] = {0, 0, (int32_t)U, (int32_t)K};
        Block *si = lw_block(L, BT_SIFC, s_in, shp_in, (int)lw_store_prec(x->prec));
        Block *c = lw_block(L, BT_CVM, s_c, shp_c, PR_INT_32);
        if (!si || !c) {
            st = lw_oom(L);
            break;
        }
        int64_t lo[OG_MAX_DIMS] = {0}, ext[OG_MAX_DIMS];
        for (uint32_t a = 0; a < x->ps.ndim; a++)
            ext[a] = x->ps.d[a];
        if (!L->drop) {
            lo[0] = m;
            ext[0] = 1;
        }
        if ((st = lw_feed(L, x, si, 0, NULL, NULL, ident, lo, ext)) != ST_OK ||
            (st = lw_connect(L, si, c, 0)) != ST_OK || (st = lw_connect(L, sw, c, 1)) != ST_OK)
            break;
        if (sb) {
            if ((st = lw_connect(L, sb, c, 2)) != ST_OK)
                break;
            c->bias_type = BIAS_VECTOR;
        }
        cv[m] = c;
    }
    if (st != ST_OK) {
        free(cv);
        return st;
    }
    LVal v;
    memset(&v, 0, sizeof v);
    if (M == 1) {
        lw_prod(&v, cv[0], &ps_out, NULL, n->out_prec[0]);
        v.bias_sb = sb;
        v.bias_ok = true;
    } else {
        int64_t vol = M * U;
        v.kind = LV_MAP;
        v.ps = ps_out;
        v.prec = n->out_prec[0];
        v.nsrc = (uint32_t)M;
        v.srcs = calloc((size_t)M, sizeof *v.srcs);
        v.msrc = malloc((size_t)vol * sizeof *v.msrc);
        v.moff = malloc((size_t)vol * sizeof *v.moff);
        if (!v.srcs || !v.msrc || !v.moff) {
            lw_val_free(&v);
            free(cv);
            return lw_oom(L);
        }
        for (int64_t m = 0; m < M; m++) {
            v.srcs[m].b = cv[m];
            blk_cluster_dims(cv[m], false, 0, v.srcs[m].cd);
            for (int64_t u = 0; u < U; u++) {
                v.msrc[m * U + u] = (int32_t)m;
                v.moff[m * U + u] = (int32_t)u;
            }
        }
    }
    free(cv);
    lw_set_out(L, 0, &v);
    return ST_OK;
}

Status lw_op_max_pool2d(Lw *L)
{
    const OgNode *n = L->cur;
    LVal *x = lw_in(L, 0);
    uint32_t cnt;
    const int64_t *ps = og_attr_ints(n, "pool_size", &cnt);
    const int64_t *sd = og_attr_ints(n, "strides", &cnt);
    const int64_t *pv = og_attr_ints(n, "padding", &cnt);
    int64_t ph = pv[0], pw = cnt == 2 ? pv[1] : pv[0];
    const OgShape *xs = og_edge_shape(L->og, n->inputs[0]);
    int64_t NI = images_of(L, xs), C = xs->d[1], H = xs->d[2], W = xs->d[3];
    if (NI * C > LW_MAX_DIM)
        return lw_fail(L, "lower.limit", "%lld images of %lld channels: side by side in one "
                       "block they need a dim of %lld, more than 2^24", (long long)NI,
                       (long long)C, (long long)(NI * C));
    int64_t OH = n->out_shape[0].d[2], OW = n->out_shape[0].d[3];
    /* ceil_mode: extra bottom/right padding so that floor((H + up + down - k) / s) + 1 = OH;
     * the extra taps read 0, as the CVM formalization's pad() does. */
    int64_t pdn = (OH - 1) * sd[0] + ps[0] - H - ph, prt = (OW - 1) * sd[1] + ps[1] - W - pw;
    if (pdn < ph)
        pdn = ph;
    if (prt < pw)
        prt = pw;
    /* The images' channels side by side: the SI is [H][W][NI * C], (H, W, NI, C) in C order;
     * the window never mixes channels. */
    int perm[OG_MAX_DIMS];
    if (NI > 1)
        perm[0] = 2, perm[1] = 3, perm[2] = 0, perm[3] = 1;
    else
        hwc_perm(L, perm);
    int32_t yxf[3] = {(int32_t)H, (int32_t)W, (int32_t)(NI * C)};
    Block *si;
    Status st = lw_stage_in(L, x, perm, yxf, "in", &si);
    if (st != ST_OK)
        return st;
    int32_t shp[TIR_NDIMS] = {(int32_t)OH, (int32_t)OW, (int32_t)(NI * C), 0,
                              (int32_t)ps[0], (int32_t)ps[1], (int32_t)H, (int32_t)W};
    Block *c = lw_block(L, BT_CCMPB, NULL, shp, PR_INT_32);
    if (!c)
        return lw_oom(L);
    static const AttrId ids[] = {AT_KERNEL_Y, AT_KERNEL_X, AT_STRIDE_Y, AT_STRIDE_X, AT_PAD_UP,
                                 AT_PAD_DOWN, AT_PAD_LEFT, AT_PAD_RIGHT, AT_CMP};
    int32_t vals[] = {(int32_t)ps[0], (int32_t)ps[1], (int32_t)sd[0], (int32_t)sd[1],
                      (int32_t)ph, (int32_t)pdn, (int32_t)pw, (int32_t)prt, INT32_MIN};
    if (!lw_set_attrs(L, c, ids, vals, 9))
        return lw_oom(L);
    if ((st = lw_connect(L, si, c, 0)) != ST_OK)
        return st;
    OgShape ps_out = lw_ps_of(L, &n->out_shape[0]);
    LVal v;
    lw_prod(&v, c, &ps_out, perm, n->out_prec[0]);
    v.lo_blk = c;
    lw_set_out(L, 0, &v);
    return ST_OK;
}
