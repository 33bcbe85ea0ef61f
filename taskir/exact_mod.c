/* exact_mod.c: the one relation between values that the interval analysis keeps
 * (docs/exactness.md, "The analysis", "Wide shifts and products"): a remainder.
 *
 * A CADD r = v + n + cb whose n = c - 2^S floor(v / 2^S) is computed from the same values v
 * (a CCMPB shifting v by S without a clip acting, then a CVS of -2^S with bias c) holds
 * cb + c + (v mod 2^S), in [cb + c, cb + c + 2^S - 1], whatever v's range; its partial sums
 * (from the bias cb, the two terms in either order) are cb, cb + v, cb + n and the sum. Two
 * independent ranges would put r far past int32 for v of any int32 value. The blocks in
 * between must hold the values as the relation says: point by point (pointwise blocks of one
 * shape, each edge unrearranged and whole but v's box, which the CCMPB and the CADD read
 * alike), the storage without data and with the one writer. */
#include "taskir/exact_internal.h"

bool exact_pointwise(const Block *b)
{
    bool window = false; /* a CVS (P83) without window dims reads point by point */
    for (int d = D_KY; d <= D_IX; d++)
        window = window || b->shape.d[d] != 0;
    if (b->type == BT_CVS && !window)
        return true;
    int32_t e[TIR_NDIMS];
    blk_eff_shape(b, e);
    return e[D_KY] <= 1 && e[D_KX] <= 1 && e[D_Y] == e[D_IY] && e[D_X] == e[D_IX] &&
           blk_attr(b, AT_STRIDE_X) <= 1 && blk_attr(b, AT_STRIDE_Y) <= 1 &&
           !blk_attr(b, AT_PAD_UP) && !blk_attr(b, AT_PAD_DOWN) && !blk_attr(b, AT_PAD_LEFT) &&
           !blk_attr(b, AT_PAD_RIGHT);
}

/* The one edge into input cluster k of b, unrearranged and whole at b's end; NULL when not. */
static const Edge *one_edge(const Graph *g, const Block *b, uint32_t k)
{
    if (k >= b->n_in || b->in[k].n_ifaces != 1 || !iface_whole(&b->in[k].ifaces[0]))
        return NULL;
    const Edge *e = graph_edge(g, b->in[k].ifaces[0].edge_id);
    return e && !e->n_re ? e : NULL;
}

/* The source interface of e (its cluster in *cl); NULL when missing. */
static const Iface *src_iface(const Graph *g, const GraphUses *u, const Edge *e, uint32_t *cl)
{
    const Block *s = NULL;
    const IfaceUse *iu = uses_edge_end(g, u, e, true, &s);
    if (!iu || !s || iu->cluster >= s->n_out || iu->iface >= s->out[iu->cluster].n_ifaces)
        return NULL;
    *cl = iu->cluster;
    return &s->out[iu->cluster].ifaces[iu->iface];
}

/* The compute block that alone writes storage s (read whole through e, without data): its
 * position, or -1. */
static long sole_writer(const Graph *g, const GraphUses *u, const Edge *e)
{
    uint32_t cl;
    const Iface *f = src_iface(g, u, e, &cl);
    long sp = graph_block_pos(g, e->src);
    if (!f || !iface_whole(f) || sp < 0)
        return -1;
    const Block *s = g->blocks[sp];
    const BlockUses *bu = &u->blocks[sp];
    if (bt_info(s->type)->kind != BK_STORAGE || s->data || bu->n_in_edges != 1)
        return -1;
    const Edge *w = g->edges[bu->in_edges[0]];
    const Iface *wf = src_iface(g, u, w, &cl);
    long wp = graph_block_pos(g, w->src);
    const IfaceUse *di = uses_edge_end(g, u, w, false, NULL);
    if (!wf || !iface_whole(wf) || w->n_re || !di || di->iface >= s->in[di->cluster].n_ifaces ||
        !iface_whole(&s->in[di->cluster].ifaces[di->iface]) || wp < 0)
        return -1;
    return wp;
}

/* Do storage blocks a and b (positions) hold the same values: one block, or copies (the
 * replicate pass's: no data, the same edges in, from the same sources' boxes into the same
 * boxes, unrearranged)? */
static bool same_content(const Graph *g, const GraphUses *u, long a, long b)
{
    if (a == b)
        return a >= 0;
    if (a < 0 || b < 0)
        return false;
    const BlockUses *ua = &u->blocks[a], *ub = &u->blocks[b];
    const Block *ba = g->blocks[a], *bb = g->blocks[b];
    int32_t da[TIR_CDIMS], db[TIR_CDIMS];
    if (ba->data || bb->data || ua->n_in_edges != ub->n_in_edges || !ua->n_in_edges ||
        ba->n_in != 1 || bb->n_in != 1 || !blk_cluster_dims(ba, true, 0, da) ||
        !blk_cluster_dims(bb, true, 0, db))
        return false;
    for (int d = 0; d < TIR_CDIMS; d++)
        if (da[d] != db[d])
            return false;
    for (uint32_t k = 0; k < ua->n_in_edges; k++) {
        const Edge *ea = g->edges[ua->in_edges[k]], *eb = g->edges[ub->in_edges[k]];
        uint32_t ca, cb;
        const Iface *sa = src_iface(g, u, ea, &ca), *sb = src_iface(g, u, eb, &cb);
        const IfaceUse *ia = uses_edge_end(g, u, ea, false, NULL);
        const IfaceUse *ib = uses_edge_end(g, u, eb, false, NULL);
        if (ea->src != eb->src || ea->n_re || eb->n_re || !sa || !sb || ca != cb ||
            !iface_same_box(sa, sb) || !ia || !ib || ia->iface >= ba->in[0].n_ifaces ||
            ib->iface >= bb->in[0].n_ifaces ||
            !iface_same_box(&ba->in[0].ifaces[ia->iface], &bb->in[0].ifaces[ib->iface]))
            return false;
    }
    return true;
}

/* Do edges a and b read the same box of the same values (one storage block or copies)? */
static bool reads_same(const Graph *g, const GraphUses *u, const Edge *a, const Edge *b)
{
    uint32_t ca = 0, cb = 0;
    const Iface *fa = src_iface(g, u, a, &ca), *fb = src_iface(g, u, b, &cb);
    return fa && fb && ca == cb && iface_same_box(fa, fb) &&
           same_content(g, u, graph_block_pos(g, a->src), graph_block_pos(g, b->src));
}

/* Does edge e read, whole, 2 v (more = 1) of the values v that edge v reads: storage written
 * by one CADD x + x (the odd-shift rewrite's, docs/exactness.md) whose two inputs read v as
 * edge v does, without bias? (floor(2 v / 2^(S+1)) = floor(v / 2^S).) */
static bool reads_doubled(const Graph *g, const GraphUses *u, const Edge *v, const Edge *e,
                          int more)
{
    long dp = more == 1 ? sole_writer(g, u, e) : -1;
    const Block *d = dp >= 0 ? g->blocks[dp] : NULL;
    if (!d || d->type != BT_CADD || blk_n_variadic(d) != 2 || blk_has_bias_cluster(d) ||
        blk_attr(d, AT_CONSTANT_B) || !exact_pointwise(d))
        return false;
    const Edge *a = one_edge(g, d, 0), *b = one_edge(g, d, 1);
    return a && b && reads_same(g, u, v, a) && reads_same(g, u, v, b);
}

static bool same_yxf(const Block *a, const Block *b)
{
    int32_t ea[TIR_NDIMS], eb[TIR_NDIMS];
    blk_eff_shape(a, ea);
    blk_eff_shape(b, eb);
    return ea[D_Y] == eb[D_Y] && ea[D_X] == eb[D_X] && ea[D_F] == eb[D_F];
}

static bool in_int32(ExactRange r)
{
    return r.lo >= INT32_MIN && r.hi <= INT32_MAX;
}

static bool same_range(ExactRange a, ExactRange b)
{
    return a.lo == b.lo && a.hi == b.hi;
}

/* Is input cluster j of CADD b (at pos) the n of the remainder of the values its cluster i
 * reads? *c gets n's bias c and *sh its S. */
static bool remainder_of(const Graph *g, const GraphUses *u, const ExactBlock *xb,
                         const Block *b, uint32_t i, uint32_t j, int64_t *c, int *sh)
{
    const Edge *ev = one_edge(g, b, i), *en = one_edge(g, b, j);
    long wp = en ? sole_writer(g, u, en) : -1;
    if (!ev || wp < 0)
        return false;
    const Block *w = g->blocks[wp]; /* n = c + a h */
    int64_t a = blk_attr(w, AT_CONSTANT_A);
    if (w->type != BT_CVS || blk_has_bias_cluster(w) || !exact_pointwise(w) || a >= 0 ||
        (-a & (-a - 1)) || -a > ((int64_t)1 << 30) || !same_yxf(w, b) ||
        !in_int32(xb[wp].raw) || !in_int32(xb[wp].acc) || !same_range(xb[wp].out, xb[wp].raw))
        return false;
    const Edge *eh = one_edge(g, w, 0);
    long hp = eh ? sole_writer(g, u, eh) : -1;
    if (hp < 0)
        return false;
    const Block *h = g->blocks[hp]; /* h = floor(v / 2^S), no clip acting */
    int s = 0;
    while (((int64_t)1 << s) < -a)
        s++;
    int hs = blk_attr(h, AT_BIT_SHIFT_NUM);
    if (h->type != BT_CCMPB || !exact_pointwise(h) || (hs != s && hs != s + 1) ||
        !same_yxf(h, b) || !same_range(xb[hp].out, xb[hp].acc))
        return false;
    const Edge *ehv = one_edge(g, h, 0);
    if (!ehv || (!reads_same(g, u, ev, ehv) &&
                 !reads_doubled(g, u, ev, ehv, blk_attr(h, AT_BIT_SHIFT_NUM) - s)))
        return false;
    *c = blk_attr(w, AT_CONSTANT_B);
    *sh = s;
    return true;
}

bool exact_mod_sum(const Graph *g, const GraphUses *u, const ExactBlock *xb, uint32_t pos,
                   const ExactRange *cl, uint32_t n_cl, ExactRange *raw, ExactRange *acc)
{
    const Block *b = g->blocks[pos];
    if (b->type != BT_CADD || blk_n_variadic(b) != 2 || n_cl < 2 || blk_has_bias_cluster(b) ||
        !exact_pointwise(b))
        return false;
    int64_t cb = blk_attr(b, AT_CONSTANT_B), c = 0;
    int s = 0;
    for (uint32_t i = 0; i < 2; i++) {
        if (!remainder_of(g, u, xb, b, i, 1 - i, &c, &s))
            continue;
        int64_t lo = cb + c, hi = lo + ((int64_t)1 << s) - 1;
        *raw = (ExactRange){lo, hi};
        ExactRange p[3] = {{cb, cb},
                           {exact_add(cb, cl[0].lo), exact_add(cb, cl[0].hi)},
                           {exact_add(cb, cl[1].lo), exact_add(cb, cl[1].hi)}};
        *acc = *raw;
        for (int k = 0; k < 3; k++) {
            acc->lo = p[k].lo < acc->lo ? p[k].lo : acc->lo;
            acc->hi = p[k].hi > acc->hi ? p[k].hi : acc->hi;
        }
        return true;
    }
    return false;
}
