/* canon.c: the explicit fields of the canonical form (canon.h, docs/formats.md). */
#include "taskir/canon.h"

#include "taskir/rearrange.h"

#include <string.h>

void canon_shape(const Block *b, Shape *out)
{
    *out = b->shape;
    if (!(bt_info(b->type)->flags & BF_WINDOW) || !b->shape.d[D_Y] || !b->shape.d[D_X])
        return;
    int32_t eff[TIR_NDIMS];
    blk_eff_shape(b, eff);
    static const int window[] = {D_KY, D_KX, D_IY, D_IX};
    for (size_t i = 0; i < sizeof window / sizeof *window; i++)
        if (!out->d[window[i]])
            out->d[window[i]] = eff[window[i]];
}

void canon_box(const Block *b, bool input, uint32_t idx, int32_t box[TIR_CDIMS])
{
    const Cluster *c = input ? (idx < b->n_in ? &b->in[idx] : NULL)
                             : (idx < b->n_out ? &b->out[idx] : NULL);
    const ClusterSpec *spec = input ? blk_in_spec(b, idx) : blk_out_spec(b, idx);
    if ((c && c->has_shape) || !spec)
        return;
    Shape w;
    canon_shape(b, &w);
    for (int i = 0; i < TIR_CDIMS; i++)
        if (spec->dim[i] >= 0 && spec->dim[i] < TIR_NDIMS && !w.d[spec->dim[i]])
            box[i] = 0;
}

uint32_t canon_default_attrs(const Block *b, AttrId out[CANON_MAX_ATTRS])
{
    static const AttrId explicit_attrs[CANON_MAX_ATTRS] = {AT_STRIDE_X, AT_STRIDE_Y,
                                                           AT_DILATION_X, AT_DILATION_Y};
    uint32_t n = 0;
    for (int i = 0; i < CANON_MAX_ATTRS; i++) {
        AttrId a = explicit_attrs[i];
        if ((at_info(a)->allowed & (UINT64_C(1) << b->type)) && !blk_find_attr(b, a))
            out[n++] = a;
    }
    return n;
}

int canon_bias_type(const Block *b)
{
    if (b->bias_type)
        return b->bias_type;
    return blk_has_bias_cluster(b) ? BIAS_VECTOR : BIAS_ABSENT;
}

static bool has_values(const Tensor *t)
{
    return t->n_i32 || t->n_u32 || t->n_f32;
}

uint32_t canon_reshape_p(const Graph *g, const GraphUses *u, const Edge *e, uint32_t i,
                         int32_t p[TIR_CDIMS])
{
    if (i >= e->n_re || e->re[i].type != RT_RESHAPE ||
        (e->re[i].n_mats && has_values(&e->re[i].mats[0])))
        return 0;
    EdgeEnds ends;
    char why[300];
    if (!edge_ends(g, u, e, &ends, why, sizeof why))
        return 0;
    RaShape cur;
    ra_shape_of_box(ends.src_box, &cur);
    for (uint32_t k = 0; k < i; k++) {
        RaStep st;
        if (!ra_decode(&e->re[k], &cur, &st, why, sizeof why))
            return 0;
        cur = st.out;
    }
    for (int a = 0; a < cur.k; a++)
        p[a] = cur.k - 1 - a;
    return (uint32_t)cur.k;
}
