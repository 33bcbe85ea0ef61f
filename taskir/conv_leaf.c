/* conv_leaf.c: building a convolution leaf (conv_leaf.h). */
#include "taskir/conv_leaf.h"

#include <stdio.h>

Status enc_set_data(const EncCtx *c, Block *b, PrecisionId prec, const int32_t *v, int64_t n)
{
    int32_t dims[TIR_CDIMS];
    uint32_t nd = 0;
    for (int i = 0; i < TIR_CDIMS; i++)
        if (b->shape.d[i] > 0)
            dims[nd++] = b->shape.d[i];
    if (n > UINT32_MAX || pr_info(prec)->container != TC_INT32)
        return diag_add(c->d, ST_RUNTIME, "lower.internal", NULL,
                        "data of %lld values of precision %s", (long long)n,
                        pr_info(prec)->name);
    /* tensor_set_i32 copies into the graph's arena; the precision is then set */
    Tensor *t = arena_alloc(c->g->arena, 1, sizeof *t);
    if (!t || !tensor_set_i32(c->g, t, dims, nd, v, (uint32_t)n))
        return diag_add(c->d, ST_RUNTIME, "oom", c->where, "out of memory");
    t->prec = prec;
    b->data = t;
    return ST_OK;
}

/* "<pre>/<what>", or "<what>" when pre is empty (what "" gives "<pre>"). */
static void leaf_name(const char *pre, const char *what, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s", pre, *pre && *what ? "/" : "", what);
}

static Status leaf_oom(const EncCtx *c)
{
    return diag_add(c->d, ST_RUNTIME, "oom", c->where, "out of memory");
}

Status conv_leaf_begin(const EncCtx *c, const ConvLeafSpec *s, const char *pre, ConvLeaf *out)
{
    char n_in[64], n_w[64];
    leaf_name(pre, "in", n_in, sizeof n_in);
    leaf_name(pre, "w", n_w, sizeof n_w);
    *out = (ConvLeaf){0};
    int32_t shp_in[TIR_NDIMS] = {s->h, s->w, 0, s->ic};
    int32_t shp_w[TIR_NDIMS] = {0, 0, s->oc, s->ic, s->kh, s->kw};
    int32_t shp_c[TIR_NDIMS] = {s->oh, s->ow, s->oc, s->ic, s->kh, s->kw, s->h, s->w};
    out->in = enc_block(c->g, s->grouped ? BT_SIC2D : BT_SIC, c->name, n_in, shp_in,
                        (int)s->in_prec);
    out->w = enc_block(c->g, s->grouped ? BT_SW2D : BT_SW, c->name, n_w, shp_w,
                       (int)s->w_prec);
    out->cc = enc_block(c->g, s->grouped ? BT_CC2D : BT_CC, c->name, pre, shp_c, PR_INT_32);
    if (!out->in || !out->w || !out->cc)
        return leaf_oom(c);
    int64_t wn = (int64_t)s->oc * s->ic * s->kh * s->kw;
    Status st = enc_set_data(c, out->w, s->w_prec, s->weights, wn);
    if (st != ST_OK)
        return st;
    static const AttrId ids[] = {AT_KERNEL_Y, AT_KERNEL_X, AT_STRIDE_Y, AT_STRIDE_X,
                                 AT_PAD_UP, AT_PAD_DOWN, AT_PAD_LEFT, AT_PAD_RIGHT,
                                 AT_DILATION_Y, AT_DILATION_X};
    int32_t vals[] = {s->kh, s->kw, s->stride[0], s->stride[1], s->pad[0], s->pad[1],
                      s->pad[2], s->pad[3], s->dilation[0], s->dilation[1]};
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
        if (!blk_set_attr(c->g, out->cc, ids[i], vals[i]))
            return leaf_oom(c);
    return ST_OK;
}

Status conv_leaf_end(const EncCtx *c, const ConvLeafSpec *s, const char *pre, ConvLeaf *leaf)
{
    if (!graph_connect(c->g, leaf->in, 0, leaf->cc, 0) ||
        !graph_connect(c->g, leaf->w, 0, leaf->cc, 1))
        return leaf_oom(c);
    if (!s->bias)
        return ST_OK;
    char n_b[64];
    leaf_name(pre, "b", n_b, sizeof n_b);
    int32_t shp_b[TIR_NDIMS] = {0, 0, s->oc};
    if (!(leaf->b = enc_block(c->g, BT_SB, c->name, n_b, shp_b, (int)s->b_prec)))
        return leaf_oom(c);
    Status st = enc_set_data(c, leaf->b, s->b_prec, s->bias, s->oc);
    if (st != ST_OK)
        return st;
    if (!graph_connect(c->g, leaf->b, 0, leaf->cc, 2))
        return leaf_oom(c);
    leaf->cc->bias_type = BIAS_VECTOR;
    return ST_OK;
}
