/* plain_copy.c: recognising edges that copy a whole cluster unchanged (plain_copy.h). */
#include "passes/plain_copy.h"

#include "taskir/rearrange.h"

bool pc_same_dims(const int32_t a[TIR_CDIMS], const int32_t b[TIR_CDIMS])
{
    for (int i = 0; i < TIR_CDIMS; i++)
        if ((a[i] > 0 ? a[i] : 1) != (b[i] > 0 ? b[i] : 1))
            return false;
    return true;
}

/* Is the box the whole cluster? */
static bool whole(const int32_t pos[TIR_CDIMS], const int32_t box[TIR_CDIMS],
                  const int32_t cd[TIR_CDIMS])
{
    for (int i = 0; i < TIR_CDIMS; i++)
        if (pos[i] != 0 || box[i] != cd[i])
            return false;
    return true;
}

bool pc_plain_whole(const Graph *g, const GraphUses *u, const Edge *e)
{
    EdgeEnds ee;
    char why[160];
    if (!edge_ends(g, u, e, &ee, why, sizeof why) ||
        !whole(ee.src_pos, ee.src_box, ee.src_cdims) ||
        !whole(ee.dst_pos, ee.dst_box, ee.dst_cdims))
        return false;
    RaShape s, d;
    ra_shape_of_box(ee.src_box, &s);
    ra_shape_of_box(ee.dst_box, &d);
    if (ra_volume(&s) != ra_volume(&d))
        return false;
    for (uint32_t i = 0; i < e->n_re; i++) {
        RaStep st;
        if (!ra_decode(&e->re[i], &s, &st, why, sizeof why))
            return false;
        if (st.type == RT_RESHAPE || st.type == RT_PERMUTE) {
            for (int j = 0; j < st.in.k; j++)
                if (st.perm[j] != j)
                    return false;
        } else if (st.type != RT_IDENTITY) {
            return false;
        }
        s = st.out;
    }
    return ra_volume(&s) == ra_volume(&d);
}
