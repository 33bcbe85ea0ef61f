/* exact_const.c: the constant values of a cluster (weights, biases) for the exactness
 * analysis (exact_internal.h), and its saturating bound arithmetic.
 *
 * An edge copies its source box, read in C order of the source cluster's used dims, into its
 * destination box in C order (docs/semantics.md, "Edges"): two odometers over the two boxes
 * advance together, each keeping the flat offset of its element in its cluster. */
#include "taskir/exact_internal.h"

int64_t exact_add(int64_t a, int64_t b)
{
    int64_t s = a + b; /* |a|, |b| <= 2^61: no overflow */
    return s < -EXACT_INF ? -EXACT_INF : s > EXACT_INF ? EXACT_INF : s;
}

int64_t exact_mul(int64_t a, int64_t b)
{
    if (a == 0 || b == 0)
        return 0;
    int64_t ua = a < 0 ? -a : a, ub = b < 0 ? -b : b;
    bool neg = (a < 0) != (b < 0);
    if (ua > EXACT_INF / ub)
        return neg ? -EXACT_INF : EXACT_INF;
    return neg ? -(ua * ub) : ua * ub;
}

bool exact_inside(ExactRange r, int64_t lo, int64_t hi)
{
    return r.lo >= lo && r.hi <= hi;
}

/* A walk over the elements of a box of a cluster in C order. */
typedef struct Odo {
    int n;                      /* used dims */
    int64_t ext[TIR_CDIMS];     /* the box's extent along each */
    int64_t stride[TIR_CDIMS];  /* the cluster's stride along each */
    int64_t at[TIR_CDIMS];
    int64_t off;                /* the current element's flat index in the cluster */
    int64_t vol;
} Odo;

static bool odo_init(Odo *o, const int32_t dims[TIR_CDIMS], const Iface *f)
{
    o->n = 0;
    o->vol = 1;
    o->off = 0;
    int64_t st = 1;
    int idx[TIR_CDIMS];
    for (int i = 0; i < TIR_CDIMS; i++)
        if (dims[i] > 0)
            idx[o->n++] = i;
    for (int k = o->n - 1; k >= 0; k--) {
        int i = idx[k];
        int64_t p = f->has_pos ? f->pos.d[i] : 0;
        int64_t e = f->has_size ? f->size.d[i] : dims[i];
        if (p < 0 || e < 1 || p + e > dims[i])
            return false;
        o->ext[k] = e;
        o->stride[k] = st;
        o->at[k] = 0;
        o->off += p * st;
        o->vol *= e;
        st *= dims[i];
    }
    return true;
}

static void odo_next(Odo *o)
{
    for (int k = o->n - 1; k >= 0; k--) {
        o->off += o->stride[k];
        if (++o->at[k] < o->ext[k])
            return;
        o->off -= o->ext[k] * o->stride[k];
        o->at[k] = 0;
    }
}

/* Value i of a data tensor, false when it has no such value or it is not an int32 integer. */
static bool tensor_at(const Tensor *t, int64_t i, int64_t *v)
{
    if (i < 0)
        return false;
    if (t->n_i32) {
        if ((uint64_t)i >= t->n_i32)
            return false;
        *v = tensor_i32_at(t, (size_t)i);
    } else if (t->n_u32) {
        if ((uint64_t)i >= t->n_u32 || t->u32[i] > INT32_MAX)
            return false;
        *v = t->u32[i];
    } else {
        if ((uint64_t)i >= t->n_f32)
            return false;
        float f = t->f32[i];
        if (!(f >= -2147483648.0f && f < 2147483648.0f) || (float)(int64_t)f != f)
            return false;
        *v = (int64_t)f;
    }
    return true;
}

/* One edge's values into the cluster: false when they are not constant. */
static bool walk_edge(const Graph *g, const GraphUses *u, const Edge *e, const Block *b,
                      uint32_t cl, const IfaceUse *di, ExactConstFn fn, void *arg)
{
    const Block *s = NULL;
    const IfaceUse *si = uses_edge_end(g, u, e, true, &s);
    if (e->n_re || !si || !s || bt_info(s->type)->kind != BK_STORAGE || !s->data)
        return false;
    long spos = graph_block_pos(g, s->id);
    if (spos < 0 || u->blocks[spos].n_in_edges)
        return false;
    int32_t sd[TIR_CDIMS], dd[TIR_CDIMS];
    Odo so, dst;
    if (!blk_cluster_dims(s, false, si->cluster, sd) || !blk_cluster_dims(b, true, cl, dd) ||
        !odo_init(&so, sd, &s->out[si->cluster].ifaces[si->iface]) ||
        !odo_init(&dst, dd, &b->in[cl].ifaces[di->iface]) || so.vol != dst.vol)
        return false;
    for (int64_t k = 0; k < so.vol; k++) {
        int64_t v;
        if (!tensor_at(s->data, so.off, &v))
            return false;
        fn(arg, dst.off, v);
        odo_next(&so);
        odo_next(&dst);
    }
    return true;
}

bool exact_const_walk(const Graph *g, const GraphUses *u, uint32_t pos, uint32_t cl,
                      ExactConstFn fn, void *arg)
{
    const Block *b = g->blocks[pos];
    const BlockUses *bu = &u->blocks[pos];
    bool any = false;
    for (uint32_t i = 0; i < bu->n_in_edges; i++) {
        const Edge *e = g->edges[bu->in_edges[i]];
        const IfaceUse *di = uses_edge_end(g, u, e, false, NULL);
        if (!di)
            return false;
        if (di->cluster != cl)
            continue;
        if (!walk_edge(g, u, e, b, cl, di, fn, arg))
            return false;
        any = true;
    }
    return any;
}
