/* conv_fixture.c: the small convolution graph of conv_fixture.h. */
#include "conv_fixture.h"

#include <string.h>

Graph *conv_fixture(int32_t hw)
{
    Graph *g = graph_create();
    if (!g)
        return NULL;
    int32_t o = hw - 2;
    Block *in = graph_add_block(g, BT_INPUT, GRAPH_AUTO_ID, "data");
    Block *sic = graph_add_block(g, BT_SIC, GRAPH_AUTO_ID, "conv/in");
    Block *sw = graph_add_block(g, BT_SW, GRAPH_AUTO_ID, "conv/w");
    Block *sb = graph_add_block(g, BT_SB, GRAPH_AUTO_ID, "conv/b");
    Block *cc = graph_add_block(g, BT_CC, GRAPH_AUTO_ID, "conv");
    Block *si = graph_add_block(g, BT_SI, GRAPH_AUTO_ID, "conv/out");
    Block *out = graph_add_block(g, BT_OUTPUT, GRAPH_AUTO_ID, "out");
    if (!in || !sic || !sw || !sb || !cc || !si || !out)
        goto fail;
    in->shape.d[D_Y] = hw, in->shape.d[D_X] = hw, in->shape.d[D_F] = 2;
    in->has_socket_id = true;
    sic->shape.d[D_Y] = hw, sic->shape.d[D_X] = hw, sic->shape.d[D_R] = 2;
    sw->shape.d[D_F] = 3, sw->shape.d[D_R] = 2, sw->shape.d[D_KY] = 3, sw->shape.d[D_KX] = 3;
    sb->shape.d[D_F] = 3;
    int64_t bias[3] = {1, -2, 3};
    int32_t bd[1] = {3};
    int32_t s[TIR_NDIMS] = {o, o, 3, 2, 3, 3, hw, hw};
    memcpy(cc->shape.d, s, sizeof s);
    cc->bias_type = BIAS_VECTOR;
    cc->has_prec = true;
    cc->prec = PR_INT_32;
    si->shape.d[D_Y] = o, si->shape.d[D_X] = o, si->shape.d[D_F] = 3;
    out->shape.d[D_Y] = o, out->shape.d[D_X] = o, out->shape.d[D_F] = 3;
    out->has_socket_id = true;
    if (!blk_set_data(g, sb, PR_INT_32, bd, 1, bias, 3) ||
        !blk_set_attr(g, cc, AT_KERNEL_X, 3) || !blk_set_attr(g, cc, AT_KERNEL_Y, 3) ||
        !graph_connect(g, in, 0, sic, 0) || !graph_connect(g, sic, 0, cc, 0) ||
        !graph_connect(g, sw, 0, cc, 1) || !graph_connect(g, sb, 0, cc, 2) ||
        !graph_connect(g, cc, 0, si, 0) || !graph_connect(g, si, 0, out, 0) || graph_oom(g))
        goto fail;
    return g;
fail:
    graph_destroy(g);
    return NULL;
}
