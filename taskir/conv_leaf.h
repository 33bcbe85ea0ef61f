/* conv_leaf.h: one convolution leaf, the blocks a 2-D convolution of one image (or one group
 * of its channels) becomes: an input storage block SIC, the weights SW, the CC, and the bias
 * SB, or their grouped forms SIC2D, SW2D, CC2D. The lowering builds every conv2d from leaves;
 * a pass that splits a convolution builds its parts the same way.
 *
 * Two calls, so that the caller feeds the input block in between: conv_leaf_begin adds the
 * input block, the weights and the CC; conv_leaf_end joins them and adds the bias. Block and
 * edge ids follow that order.
 */
#ifndef TASKIR_CONV_LEAF_H
#define TASKIR_CONV_LEAF_H

#include "taskir/encode.h"

typedef struct ConvLeafSpec {
    bool grouped;             /* the 2D types SIC2D, SW2D, CC2D */
    int32_t h, w, ic;         /* the input image: rows, columns, channels */
    int32_t oc, kh, kw;       /* the filters: count, rows, columns */
    int32_t oh, ow;           /* the output image */
    int32_t stride[2];        /* y, x */
    int32_t pad[4];           /* up, down, left, right */
    int32_t dilation[2];      /* y, x */
    PrecisionId in_prec, w_prec, b_prec; /* storage precisions (int32 containers) */
    const int32_t *weights;   /* oc * ic * kh * kw values, [oc][ic][kh][kw] */
    const int32_t *bias;      /* oc values, or NULL: no bias */
} ConvLeafSpec;

typedef struct ConvLeaf {
    Block *in, *w, *cc, *b;   /* b: NULL without a bias */
} ConvLeaf;

/* Adds the input block "<c->name>/<pre>/in" (pre empty: "<c->name>/in"), the weights ".../w"
 * holding s->weights, and the CC "<c->name>/<pre>" (INT_32, kernel, stride, padding and
 * dilation attributes). The input block's cluster 0 is left for the caller to feed. [oom],
 * [lower.internal] (values not in an int32 container, more than 2^32). */
Status conv_leaf_begin(const EncCtx *c, const ConvLeafSpec *s, const char *pre, ConvLeaf *out);
/* Joins leaf->in to input cluster 0 of leaf->cc and leaf->w to cluster 1; with s->bias, adds
 * the SB ".../b" holding it, joined to cluster 2 (bias_type VECTOR). [oom], [lower.internal]. */
Status conv_leaf_end(const EncCtx *c, const ConvLeafSpec *s, const char *pre, ConvLeaf *leaf);

/* Gives b a data tensor of precision prec (an int32 container) with b's non-zero dims (in
 * shape order) and these n values. [oom], [lower.internal]. */
Status enc_set_data(const EncCtx *c, Block *b, PrecisionId prec, const int32_t *v, int64_t n);

#endif
