/* exact_fold.c: the shift fold (exact_fold.h; docs/exactness.md, "Rewrites").
 *
 * A CCMPB / CCMPS A shifting from INT_32 to INT_32 gives a(m) = clip(m >> s); the chip
 * shifts only when it narrows. Narrowed to INT_8 (its CMP moved into [-128, 127]) it gives
 * clamp(a(m), -128, 127) in the TaskGraph, and the chip gives that too when
 * exact_cmp_agrees says so. The fold is exact when that clamp never reaches the outputs:
 *
 * every value of A's output storage becomes clamp(old, L, H) with [L, H] = [-128, 127].
 * A reader B of that storage (a CCMPB / CCMPS reading nothing else) computes a monotone
 * nondecreasing function b of its window's extreme (shift, clip and precision clamp each
 * are; the extreme commutes with a monotone function, padding taps and zero fills stay 0
 * when 0 lies in [L, H]), and b(clamp(x, L, H)) = clamp(b(x), b(L), b(H)): B's output
 * storage holds clamp(old, b(L), b(H)) in turn. Once that clamp never acts on the old
 * values (b(L) <= b(lo) and b(hi) <= b(H) for the old range [lo, hi]) nothing differs any
 * more. Until then every storage block on the way has no data, is written by that one block
 * only and is read by such CCMPB / CCMPS blocks only (an OUTPUT, or anything else, would see
 * the difference). The range is the analysis's (with 0: initial content, padding), its
 * images through each b a superset of the real values.
 *
 * The walk also goes through affine readers: a CVS v -> a v + c or a CADD v -> v + c of one
 * input, pointwise, exact (inside int32), whose bias c is one constant (absent, CONSTANT_B,
 * or a bias cluster of one value): a clamp(v, L, H) + c = clamp(a v + c, a L + c, a H + c)
 * (the bounds swap when a < 0), then the precision's clamp, monotone too.
 *
 * exact_fold_bounds finds the narrowest clamp [L, H] of a block's results that no output
 * sees, for the pre-clip (exact_preclip.c). */
#include "mapper/exact_fold.h"
#include "mapper/exact_wide.h"
#include "taskir/uses.h"

#include <stdlib.h>
#include <string.h>

/* Deeper chains of clips are not followed (the fold is then refused). */
#define FOLD_DEPTH 64

/* The images of the old range's ends and of the clamp's bounds. */
typedef struct Img {
    int64_t lo, l, h, hi;
} Img;

typedef struct Walk {
    const Graph *g;
    const Chip *c;
    const GraphUses *u;
    const ExactInfo *x;
    uint32_t *seen;             /* per position: the walk (its block's position + 1) that
                                   reached it; a storage has one writer and a reader one
                                   source, so only a repeated edge reaches a block again,
                                   with the same images: checked once */
    uint32_t walk;
} Walk;

/* Was the block at position pos reached before in this walk (marks it)? */
static bool again(Walk *w, uint32_t pos)
{
    if (w->seen[pos] == w->walk)
        return true;
    w->seen[pos] = w->walk;
    return false;
}

static bool is_soma_cmp(const Chip *c, const Block *b)
{
    const ChipPrim *p = chip_prim_for(c, b->type);
    return (b->type == BT_CCMPB || b->type == BT_CCMPS) && p && p->unit == UNIT_SOMA;
}

static bool storage_ok(Walk *w, uint32_t pos, int32_t writer, Img y, int depth);

/* v -> a v + c, then the clamp to the precision range p. */
static int64_t affine(int64_t a, int64_t c, ExactRange p, int64_t v)
{
    v = v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : v; /* the ends: in int32 */
    int64_t r = a * v + c;
    return r < p.lo ? p.lo : r > p.hi ? p.hi : r;
}

/* The block at position pos, reading storage id src, is an affine reader (file comment):
 * *z gets y's images through it. */
static bool affine_img(const Walk *w, uint32_t pos, int32_t src, const Img *y, Img *z)
{
    const Graph *g = w->g;
    const Block *b = g->blocks[pos];
    if ((b->type != BT_CVS && (b->type != BT_CADD || blk_n_variadic(b) != 1)) ||
        !exact_pointwise(b) ||
        !exact_inside(w->x->blocks[pos].raw, INT32_MIN, INT32_MAX))
        return false;
    int64_t a = b->type == BT_CVS ? blk_attr(b, AT_CONSTANT_A) : 1;
    int64_t c = blk_attr(b, AT_CONSTANT_B);
    uint32_t bias = blk_has_bias_cluster(b) && b->n_in ? b->n_in - 1 : b->n_in;
    for (uint32_t cl = 0; cl < b->n_in; cl++)
        for (uint32_t j = 0; j < b->in[cl].n_ifaces; j++) {
            const Edge *e = graph_edge(g, b->in[cl].ifaces[j].edge_id);
            long sp = e ? graph_block_pos(g, e->src) : -1;
            if (sp < 0 || (cl != bias && e->src != src))
                return false;
            ExactRange r = w->x->blocks[sp].out; /* a bias of one value */
            if (cl == bias && (r.lo != r.hi || (j && r.lo != c)))
                return false;
            c = cl == bias ? r.lo : c;
        }
    ExactRange p = exact_prec_range(blk_prec(b));
    int64_t v[4] = {y->lo, y->l, y->h, y->hi};
    for (int k = 0; k < 4; k++)
        v[k] = affine(a, c, p, v[k]);
    *z = a >= 0 ? (Img){v[0], v[1], v[2], v[3]} : (Img){v[3], v[2], v[1], v[0]};
    return true;
}

/* Block at position pos reads storage id src only; its outputs hold the clamp of y's
 * images through it. */
static bool reader_ok(Walk *w, uint32_t pos, int32_t src, Img y, int depth)
{
    const Graph *g = w->g;
    const Block *b = g->blocks[pos];
    const BlockUses *bu = &w->u->blocks[pos];
    if (again(w, pos))
        return true;
    Img z;
    if (!is_soma_cmp(w->c, b)) {
        if (!affine_img(w, pos, src, &y, &z))
            return false;
    } else {
        for (uint32_t k = 0; k < bu->n_in_edges; k++)
            if (g->edges[bu->in_edges[k]]->src != src)
                return false;
        ExactCmp k;
        exact_cmp_of(b, PR_INT_32, &k); /* the TaskGraph's value does not depend on the
                                           input */
        z = (Img){exact_graph_cmp(&k, y.lo), exact_graph_cmp(&k, y.l),
                  exact_graph_cmp(&k, y.h), exact_graph_cmp(&k, y.hi)};
    }
    for (uint32_t k2 = 0; k2 < bu->n_out_edges; k2++) {
        long d = graph_block_pos(g, g->edges[bu->out_edges[k2]]->dst);
        if (d < 0 || !storage_ok(w, (uint32_t)d, b->id, z, depth + 1))
            return false;
    }
    return true;
}

/* Storage at position pos, written by block id writer, holds clamp(old, y.l, y.h) for old
 * values in [y.lo, y.hi]: does no output see a difference? */
static bool storage_ok(Walk *w, uint32_t pos, int32_t writer, Img y, int depth)
{
    const Graph *g = w->g;
    const Block *s = g->blocks[pos];
    const BlockUses *su = &w->u->blocks[pos];
    y.lo = y.lo < 0 ? y.lo : 0; /* its initial content, zero fills */
    y.hi = y.hi > 0 ? y.hi : 0;
    if (y.l <= y.lo && y.hi <= y.h)
        return true; /* the clamp never acts */
    if (again(w, pos))
        return true;
    if (depth > FOLD_DEPTH || bt_info(s->type)->kind != BK_STORAGE || s->data || y.l > 0 ||
        y.h < 0)
        return false;
    for (uint32_t k = 0; k < su->n_in_edges; k++)
        if (g->edges[su->in_edges[k]]->src != writer)
            return false;
    for (uint32_t k = 0; k < su->n_out_edges; k++) {
        long d = graph_block_pos(g, g->edges[su->out_edges[k]]->dst);
        if (d < 0 || !reader_ok(w, (uint32_t)d, s->id, y, depth))
            return false;
    }
    return true;
}

/* The storage blocks that the block at position pos writes hold clamp(old, y.l, y.h) for
 * old values in [y.lo, y.hi]: does no output see a difference? */
static bool outputs_ok(Walk *w, uint32_t pos, Img y)
{
    const Graph *g = w->g;
    const BlockUses *bu = &w->u->blocks[pos];
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        long d = graph_block_pos(g, g->edges[bu->out_edges[j]]->dst);
        if (d < 0 || bt_info(g->blocks[d]->type)->kind != BK_STORAGE ||
            !storage_ok(w, (uint32_t)d, g->blocks[pos]->id, y, 0))
            return false;
    }
    return true;
}

/* Can the block at position pos (A) be folded: its narrowed form k, which the chip computes
 * as the TaskGraph does, and every storage it writes checked? */
static bool foldable(Walk *w, const ExactInfo *x, uint32_t pos, ExactCmp *k)
{
    const Graph *g = w->g;
    const Block *b = g->blocks[pos];
    PrecisionId in = exact_input_prec(g, pos);
    const char *rule = exact_soma_rule(w->c, b, in, exact_output_prec(w->g, pos),
                                       x->blocks[pos].in);
    if (!is_soma_cmp(w->c, b) || !rule || strcmp(rule, "map.exact.shift32") != 0 ||
        blk_prec(b) != PR_INT_32 || in != PR_INT_32)
        return false;
    exact_cmp_of(b, in, k);
    k->out = PR_INT_8;
    k->cmp = k->cmp < -128 ? -128 : k->cmp > 127 ? 127 : k->cmp;
    if (!exact_narrows(w->c, in, PR_INT_8) || !chip_soma_shift(w->c, k->shift, NULL) ||
        !exact_cmp_agrees(w->c, k, k, x->blocks[pos].in, NULL))
        return false;
    ExactRange r = x->blocks[pos].out;
    w->walk = pos + 1;
    return outputs_ok(w, pos, (Img){r.lo, -128, 127, r.hi});
}

long exact_fold(Graph *g, const Chip *c, const ExactInfo *x, int32_t *first)
{
    GraphUses u;
    if (!graph_uses(g, &u))
        return -1;
    Walk w = {g, c, &u, x, calloc(g->n_blocks ? g->n_blocks : 1, sizeof(uint32_t)), 0};
    long n = 0;
    bool ok = w.seen != NULL;
    for (uint32_t i = 0; i < g->n_blocks && i < x->n_blocks && ok; i++) {
        ExactCmp k;
        if (!foldable(&w, x, i, &k))
            continue;
        Block *b = g->blocks[i];
        if (!n++)
            *first = b->id;
        b->prec = PR_INT_8;
        b->has_prec = true;
        ok = k.cmp == blk_attr(b, AT_CMP) || blk_set_attr(g, b, AT_CMP, k.cmp);
        const BlockUses *bu = &u.blocks[i];
        for (uint32_t j = 0; j < bu->n_out_edges; j++) {
            Block *s = graph_block(g, g->edges[bu->out_edges[j]]->dst);
            s->prec = PR_INT_8; /* written by b only (storage_ok) */
            s->has_prec = true;
        }
    }
    graph_uses_finish(&u);
    free(w.seen);
    return ok && !graph_oom(g) ? n : -1;
}

/* One trial of exact_fold_bounds: a walk of its own. */
static bool clamp_free(Walk *w, uint32_t pos, ExactRange r, int64_t l, int64_t h)
{
    w->walk++;
    return outputs_ok(w, pos, (Img){r.lo, l, h, r.hi});
}

int exact_fold_bounds(const Graph *g, const Chip *c, const ExactInfo *x, uint32_t pos,
                      ExactRange *lh)
{
    GraphUses u;
    if (!graph_uses(g, &u))
        return -1;
    Walk w = {g, c, &u, x, calloc(g->n_blocks ? g->n_blocks : 1, sizeof(uint32_t)), 0};
    ExactRange r = x->blocks[pos].out;
    int64_t lo = r.lo < 0 ? r.lo : 0, hi = r.hi > 0 ? r.hi : 0;
    *lh = (ExactRange){lo, hi};
    /* the walk's answer only narrows as the clamp does: the largest L, then the least H */
    for (int64_t a = lo, b = 0; w.seen && a < b;) {
        int64_t mid = a + (b - a + 1) / 2;
        if (clamp_free(&w, pos, r, mid, hi))
            a = lh->lo = mid;
        else
            b = mid - 1;
    }
    for (int64_t a = 0, b = hi; w.seen && a < b;) {
        int64_t mid = a + (b - a) / 2;
        if (clamp_free(&w, pos, r, lh->lo, mid))
            b = lh->hi = mid;
        else
            a = mid + 1;
    }
    /* checked as a whole (the search assumes the answer monotone) */
    int ok = !w.seen ? -1 : clamp_free(&w, pos, r, lh->lo, lh->hi) ? 1 : 0;
    graph_uses_finish(&u);
    free(w.seen);
    return ok;
}
