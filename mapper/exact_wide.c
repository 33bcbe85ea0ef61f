/* exact_wide.c: the limb rewrites of the chip-exactness rewrites (docs/exactness.md, "Wide
 * shifts and products"): what the chip cannot compute on int32 values in one primitive,
 * computed on a shift by k more bits and the k-bit remainder, which the chip can.
 *
 *   wide shift    a CCMPB q = floor(v / 2^s) from INT_32 to INT_32 (no clip acts) whose
 *                 results fit neither 8 bits nor a table: with k = 6 (s even) or 7 (s odd),
 *                 S = s + k,
 *                   h = floor(v / 2^S)        CCMPB, shift S (a narrower wide shift)
 *                   r = v + h * (-2^S)        CVS, CADD: r = v mod 2^S, in [0, 2^S)
 *                   l = clip(r >> s, 0, 127)  CCMPB to INT_8, CMP 0: r >> s < 2^k <= 128
 *                   q = h * 2^k + l           CVS, CADD
 *                 floor(v / 2^s) = h 2^k + floor(r / 2^s) since h 2^S / 2^s = h 2^k.
 *   wide product  a CVVH p = w * y of an INT_32 operand w (P03 reads 8 bits) and an 8-bit
 *                 one y: w = h * 2^6 + l as above (s = 0, k = 6), and
 *                   p = (h * y) * 2^6 + l * y  CVVH, CVS, CVVH, CADD
 *                 where l * y is a product of 8-bit values and h * y a narrower one. Of two
 *                 INT_32 operands (a square, say) the first splits so, and the next round
 *                 splits y in h * y and l * y, whose h and l are 8-bit by then.
 * The pieces are rewritten again (the caller's next round): h narrows to 8 bits, becomes a
 * table or splits again; l's shift narrows (doubled when odd). The analysis of the rewritten
 * graph then checks every partial sum (map.exact.overflow).
 * Requires a verified, compacted graph without groups (the passes group what this adds).
 */
#include "mapper/exact_wide.h"

#include "mapper/rewrite.h"

#include <stdio.h>
#include <string.h>

/* A storage box a block reads through one plain edge: the source and its box. */
typedef struct Box {
    Block *s;
    uint32_t cl;
    int32_t pos[TIR_CDIMS], size[TIR_CDIMS];
} Box;

/* The one edge into input cluster k of b when it comes unrearranged from a storage block
 * into b's whole cluster, else NULL. */
static const Edge *plain_edge(const Graph *g, const Block *b, uint32_t k)
{
    if (k >= b->n_in || b->in[k].n_ifaces != 1 || b->in[k].ifaces[0].has_pos ||
        b->in[k].ifaces[0].has_size)
        return NULL;
    const Edge *e = graph_edge(g, b->in[k].ifaces[0].edge_id);
    const Block *s = e ? graph_block(g, e->src) : NULL;
    return s && !e->n_re && bt_info(s->type)->kind == BK_STORAGE ? e : NULL;
}

static bool box_of(Graph *g, const Block *b, uint32_t k, Box *bx)
{
    const Edge *e = plain_edge(g, b, k);
    bx->s = e ? graph_block(g, e->src) : NULL;
    const Iface *f = bx->s ? map_find_iface(bx->s, false, e->id, &bx->cl) : NULL;
    if (!f || !blk_cluster_dims(bx->s, false, bx->cl, bx->size))
        return false;
    for (int d = 0; d < TIR_CDIMS; d++)
        bx->pos[d] = f->has_pos ? f->pos.d[d] : 0;
    if (f->has_size)
        for (int d = 0; d < TIR_CDIMS; d++)
            bx->size[d] = f->size.d[d];
    return true;
}

static int64_t floor_div(int64_t v, int s)
{
    int64_t p = (int64_t)1 << s;
    return v >= 0 ? v / p : -((-v + p - 1) / p);
}

static bool inside32(int64_t lo, int64_t hi, bool half)
{
    int64_t m = half ? INT32_MIN / 2 : INT32_MIN, M = half ? INT32_MAX / 2 : INT32_MAX;
    return lo >= m && hi <= M;
}

/* Do the pieces of floor(v / 2^s) split by k more bits stay inside int32 for v in r (as the
 * analysis will see them: h, h * -2^S, r with l's doubling when s is odd)? */
static bool split_fits(ExactRange r, int s, int k)
{
    int S = s + k;
    if (S > 30 || !inside32(r.lo, r.hi, false))
        return false;
    int64_t hlo = floor_div(r.lo, S), hhi = floor_div(r.hi, S);
    int64_t rlo = r.lo - hhi * ((int64_t)1 << S), rhi = r.hi - hlo * ((int64_t)1 << S);
    return inside32(hlo * ((int64_t)1 << S), hhi * ((int64_t)1 << S), false) &&
           inside32(rlo, rhi, s % 2 != 0);
}

/* The same with the remainder's relation, which the analysis keeps (taskir/exact_mod.c: r
 * is v mod 2^S, or v mod 2^S - 2^S): h and n = -h 2^S stay inside int32, or, when -h 2^S
 * may pass it (h = -2^(31-S) for v near int32's lower end), n = -(h + 1) 2^S from the bias
 * -2^S (*off). */
static bool mod_fits(ExactRange r, int s, int k, bool *off)
{
    int S = s + k;
    if (S > 30 || !inside32(r.lo, r.hi, false))
        return false;
    int64_t p = (int64_t)1 << S, hlo = floor_div(r.lo, S), hhi = floor_div(r.hi, S);
    *off = !inside32(-hhi * p, -hlo * p, false);
    return inside32(-(hhi + *off) * p, -(hlo + *off) * p, false);
}

static int split_bits(int s)
{
    return s % 2 ? 7 : 6;
}

/* With the relation, h must come out of one CCMPB (the analysis's pattern): it narrows to 8
 * bits (S >= 24 for any int32 value), and the remainder's shift r >> s, of values 2^S times
 * narrower than v's, splits on in the next rounds when 2^k passes 8 bits. */
#define RELATED_S 24

int exact_wide_shift_how(const Graph *g, uint32_t pos, const ExactInfo *x, bool related)
{
    const Block *b = g->blocks[pos];
    ExactRange m = x->blocks[pos].in;
    int32_t s = blk_attr(b, AT_BIT_SHIFT_NUM), k = split_bits(s);
    bool off = false;
    if (g->n_groups || b->type != BT_CCMPB || blk_prec(b) != PR_INT_32 || s <= 0 || s >= 31 ||
        !exact_pointwise(b) || !plain_edge(g, b, 0) || b->n_in != 1 ||
        blk_attr(b, AT_CMP) > floor_div(m.lo, s))
        return 0;
    if (split_fits(m, s, k))
        return WIDE_SHIFT(k, false);
    if (s + k < RELATED_S)
        k = RELATED_S - s;
    return related && mod_fits(m, s, k, &off) ? WIDE_SHIFT(k, off) : 0;
}

int exact_wide_product_operand(const Chip *c, const Graph *g, uint32_t pos,
                               const ExactInfo *x)
{
    const Block *b = g->blocks[pos];
    const ChipPrim *p = chip_prim_for(c, BT_CVVH);
    if (g->n_groups || b->type != BT_CVVH || b->bias_type != BIAS_ABSENT || !p || !p->precs ||
        !exact_pointwise(b) || b->n_in != 2)
        return -1;
    bool reads[2];
    const Edge *e[2];
    for (uint32_t k = 0; k < 2; k++) {
        e[k] = plain_edge(g, b, k);
        if (!e[k])
            return -1;
        PrecisionId sp = blk_prec(graph_block(g, e[k]->src));
        reads[k] = (p->precs >> sp) & 1;
        if (!reads[k] && !chip_prec(c, sp))
            return -1; /* a precision the chip does not encode: the precision rewrite's */
    }
    if (reads[0] && reads[1])
        return -1;
    /* one INT_32 operand: it splits; two: the first does, and its pieces' products with the
     * second are rewritten again (each then has one 8-bit operand) */
    int w = reads[0] ? 1 : 0;
    long spos = graph_block_pos(g, e[w]->src);
    ExactRange r = x->blocks[spos].out;
    return exact_inside(r, -((int64_t)1 << 29), (int64_t)1 << 29) && split_fits(r, 0, 6) ? w
                                                                                          : -1;
}

/* The rewrite of one block: its graph, the block and its output extent. */
typedef struct Wide {
    Graph *g;
    const Block *b;
    bool ok;
} Wide;

/* A compute block "<b>/<tag>" of type t and precision p with b's output extent, writing a
 * new SI "<b>/<tag>.out" of precision sp (*out); NULL when out of memory. */
static Block *stage(Wide *w, const char *tag, BlockType t, PrecisionId p, PrecisionId sp,
                    Block **out)
{
    const int32_t *d = w->b->shape.d;
    char name[64];
    snprintf(name, sizeof name, "%s.out", tag);
    Block *c = map_made_from(w->g, w->b, tag, t, p, d[D_Y], d[D_X], d[D_F]);
    *out = c ? map_made_from(w->g, w->b, name, BT_SI, sp, d[D_Y], d[D_X], d[D_F]) : NULL;
    w->ok = w->ok && *out && graph_connect(w->g, c, 0, *out, 0);
    if (c && t == BT_CADD)
        c->shape.n_branch = 2;
    return w->ok ? c : NULL;
}

static void set(Wide *w, Block *c, AttrId a, int32_t v)
{
    w->ok = w->ok && c && blk_set_attr(w->g, c, a, v);
}

static void read_box(Wide *w, const Box *bx, Block *c, uint32_t k)
{
    w->ok = w->ok && c &&
            graph_connect_box(w->g, bx->s, bx->cl, bx->pos, bx->size, c, k, NULL, NULL);
}

static void read_si(Wide *w, Block *si, Block *c, uint32_t k)
{
    w->ok = w->ok && si && c && graph_connect(w->g, si, 0, c, k);
}

/* v (box bx) split by s + k bits: *hs = floor(v / 2^(s+k)), *ls = (v mod 2^(s+k)) >> s; with
 * off, *ls = (v mod 2^(s+k) - 2^(s+k)) >> s, in -2^k .. -1 (n = -(h + 1) 2^S from the bias
 * -2^S: mod_fits). l is INT_8 when k <= 7, else an INT_32 shift that later rounds split. */
static void split(Wide *w, const Box *bx, int s, int k, bool off, Block **hs, Block **ls)
{
    Block *ns = NULL, *rs = NULL;
    Block *h = stage(w, "hi", BT_CCMPB, PR_INT_32, PR_INT_32, hs);
    set(w, h, AT_CMP, INT32_MIN);
    set(w, h, AT_BIT_SHIFT_NUM, s + k);
    read_box(w, bx, h, 0);
    Block *n = stage(w, "hi.neg", BT_CVS, PR_INT_32, PR_INT_32, &ns);
    set(w, n, AT_CONSTANT_A, -(int32_t)((int64_t)1 << (s + k)));
    if (off)
        set(w, n, AT_CONSTANT_B, -(int32_t)((int64_t)1 << (s + k)));
    read_si(w, *hs, n, 0);
    Block *r = stage(w, "rem", BT_CADD, PR_INT_32, PR_INT_32, &rs);
    read_box(w, bx, r, 0);
    read_si(w, ns, r, 1);
    PrecisionId lp = k <= 7 ? PR_INT_8 : PR_INT_32;
    Block *l = stage(w, "lo", BT_CCMPB, lp, lp, ls);
    set(w, l, AT_CMP, off ? -(1 << k) : 0);
    if (s)
        set(w, l, AT_BIT_SHIFT_NUM, s);
    read_si(w, rs, l, 0);
}

Status exact_wide_split(Graph *g, int32_t id, int operand, Diag *d)
{
    Block *b = graph_block(g, id);
    Wide w = {g, b, b != NULL};
    Box v = {0}, y = {0};
    int s = b && operand < 0 ? blk_attr(b, AT_BIT_SHIFT_NUM) : 0;
    int k = operand < 0 ? WIDE_K(-operand) : 6;
    bool off = operand < 0 && WIDE_OFF(-operand);
    uint32_t wo = operand < 0 ? 0 : (uint32_t)operand, yo = 1 - wo;
    if (!w.ok || !box_of(g, b, wo, &v) || (operand >= 0 && !box_of(g, b, yo, &y)))
        return diag_add(d, ST_RUNTIME, "map.internal", NULL,
                        "block %d has no plain input box to split", id);
    Block *hs = NULL, *ls = NULL, *us = NULL;
    split(&w, &v, s, k, off, &hs, &ls);
    if (operand >= 0) { /* h * y and l * y */
        Block *phs = NULL, *pls = NULL;
        Block *ph = stage(&w, "hi.x", BT_CVVH, PR_INT_32, PR_INT_32, &phs);
        read_si(&w, hs, ph, wo);
        read_box(&w, &y, ph, yo);
        Block *pl = stage(&w, "lo.x", BT_CVVH, PR_INT_32, PR_INT_32, &pls);
        read_si(&w, ls, pl, wo);
        read_box(&w, &y, pl, yo);
        hs = phs;
        ls = pls;
    }
    Block *up = stage(&w, "hi.up", BT_CVS, PR_INT_32, PR_INT_32, &us);
    set(&w, up, AT_CONSTANT_A, (int32_t)1 << k);
    if (off) /* (h + 1) 2^k + (r - 2^S) >> s */
        set(&w, up, AT_CONSTANT_B, (int32_t)1 << k);
    read_si(&w, hs, up, 0);
    /* b becomes the sum, for its readers: its inputs go, its outputs stay */
    for (uint32_t c = 0; w.ok && c < b->n_in; c++)
        while (b->in[c].n_ifaces) {
            Edge *ie = graph_edge(g, b->in[c].ifaces[0].edge_id);
            if (!ie)
                return diag_add(d, ST_RUNTIME, "map.internal", NULL, "block %d: a dangling "
                                "interface", id);
            graph_remove_edge(g, ie);
        }
    if (w.ok) {
        b->type = BT_CADD;
        b->n_attrs = 0;
        memset(b->in, 0, b->n_in * sizeof *b->in); /* no shapes or interfaces left over */
        b->n_in = 0;
        b->bias_type = BIAS_ABSENT;
        for (int dd = D_KY; dd <= D_IX; dd++)
            b->shape.d[dd] = 0;
        b->shape.n_branch = 2;
    }
    read_si(&w, us, b, 0);
    read_si(&w, ls, b, 1);
    return w.ok ? ST_OK : diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory rewriting");
}
