/* exact.c: the chip-exactness rewrites of the mapper (docs/exactness.md, "Rewrites"): where
 * the chip's arithmetic and the TaskGraph's would differ (taskir/exact.h), the graph is
 * rewritten into one the chip computes exactly, keeping its outputs bit for bit, when the
 * interval analysis proves the rewrite exact; what remains is a logic error naming the block.
 *
 *   precision   a block of a precision the chip does not encode takes one it does when no
 *               value changes: a storage block (whose content never saturates) INT_8,
 *               UINT_8 or INT_32, the first that holds its values (within the container of
 *               its data); when its precision's clamp never acts, an Axon block INT_32, a
 *               CLUT or CLIF the first of INT_8, UINT_8, INT_32 that holds its values
 *   widening    a storage block of a precision the chip encodes whose writers (compute
 *               blocks) give values outside it (the graph's storage keeps them) takes the
 *               first of INT_8, UINT_8, INT_32 that holds them, when its readers read it
 *   CCMPB/CCMPS the first of: its output precision (its own, INT_8, UINT_8, INT_32), its CMP
 *               (its own, or moved into [-128, 127] or [-1, 1]) and reading doubled values
 *               (when the shift is odd) with which the TaskGraph gives the same values and
 *               the chip too (exact_cmp_agrees); an INT_32 to INT_32 shift thus becomes a
 *               narrowing one when its values fit 8 bits; a storage block that only such
 *               narrowed blocks write becomes INT_8
 *   CLUT        else a CCMPB / CCMPS with a 1 x 1 window, stride 1 and no padding whose
 *               shifted values fit a table index (4, 8 or 12 bits: 16 to 4096 entries)
 *               becomes a CLUT with the same shift and the table clip(i): P07 shifts from
 *               int32 whatever its output
 *   clamp       an Axon block whose precision the chip does not encode and whose clamp acts
 *               writes INT_32 (its maps too), and a CCMPB of that precision from its lower
 *               bound goes between each map and each reader: the next round makes it a table
 *               or splits it ("bound")
 *   bound       else a CCMPB / CCMPS clipping to a precision the chip does not encode (or to
 *               TERNARY into a map of another precision) takes one it encodes that holds its
 *               values before the precision's bound, its maps that one too, and a CCMPS to
 *               the precision's upper bound (a CCMPB from its lower bound) goes between each
 *               map and each reader: min(clip(v, CMP, hi'), hi) = clip(v, CMP, hi) for hi <= hi'
 *   halving     else a CCMPB / CCMPS with a 1 x 1 window shifting by an odd 2k + 1 bits
 *               values no doubling holds, but whose values shifted by 2k fit 8 bits, reads
 *               them through a block of its kind shifting by 2k without a clip
 *               ("<storage>/even.eN.fK", INT_32) and shifts by 1: the next round narrows
 *               the first and doubles the second
 *   odd shift   a Soma block shifting by 2k + 1 bits reads its values doubled by a CADD
 *               (the box read twice, "<storage>/x2.eN.fK") and shifts by 2k + 2:
 *               floor(2v / 2^(2k+2)) = floor(v / 2^(2k+1)), exact when every doubled value
 *               fits int32 and 2k + 2 is a Soma shift
 *   overflow    no rewrite: partial sums that may leave int32 are an error
 * The checks then run again on the rewritten graph: a finding left is a logic error.
 * Requires a verified, compacted graph; leaves it compacted (the caller verifies it).
 */
#include "mapper/exact_fold.h"
#include "mapper/exact_preclip.h"
#include "mapper/exact_table.h"
#include "mapper/exact_wide.h"
#include "mapper/mapper.h"
#include "mapper/rewrite.h"
#include "taskir/diag_block.h"
#include "taskir/exact.h"
#include "taskir/uses.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* x + x: a CADD, which may read an Axon's output as it is */
static const MapThrough through_double = {BT_CADD, "x2", AT_CONSTANT_B, 0, true, true};

/* The kinds of rewrite, each counted with its first block (for the warnings). */
enum {
    MADE_PREC, MADE_CLAMP, MADE_WIDEN, MADE_CMP, MADE_LUT, MADE_ODD, MADE_FOLD, MADE_WIDE,
    MADE_BOUND, MADE_HALVE, MADE_TABLE, MADE_PRECLIP, MADE_KINDS
};

/* Rounds of rewrites at most: each wide split narrows its shift or operand by 6 bits or
 * more, so 6 rounds end every chain of them on int32 values. */
#define MAX_ROUNDS 8

typedef struct Made {
    uint32_t n[MADE_KINDS];
    int32_t first[MADE_KINDS];
    const char *rule[MADE_KINDS];   /* the rule the first one broke */
} Made;

/* What the pass decided for each block (per position). */
enum {
    TODO_NONE, TODO_NARROWED = 1, TODO_DOUBLE = 2, TODO_LUT = 4, TODO_BOUND = 8, TODO_CLAMP = 16,
    TODO_HALVE = 32
};

typedef struct Ctx {
    Graph *g;
    const Chip *c;
    ExactInfo x;
    uint8_t *todo;
    int32_t *lut_dw;                /* TODO_LUT: the table's LUT_DW; TODO_BOUND: the bound;
                                       TODO_CLAMP: the old precision */
    int32_t *wide_id;               /* the blocks to split (exact_wide.c), by id */
    int8_t *wide_op;                /* their operand (-1: a shift) */
    uint32_t n_wide;
    uint32_t n_bound;               /* TODO_BOUND, TODO_CLAMP: clips put after blocks;
                                       TODO_HALVE: shifts put before them (a round more) */
    Made m;
    Diag *d;
    bool related;                   /* wide shifts split with the remainder's relation the
                                       analysis keeps (exact_wide_shift_how) */
} Ctx;

/* The analysis of the graph as it is (exact_analyse), kept from one step to the next while
 * none rewrites anything: each step counts what it rewrites (Made), and one that counts
 * nothing leaves the graph as it was, so the next analyses it again for nothing (bench/map's
 * synthetic graph, which needs no rewrite, was analysed seven times). */
typedef struct Analysis {
    ExactInfo x;
    bool valid;
} Analysis;

static Status analysis_get(const Graph *g, Analysis *a, Diag *d)
{
    if (a->valid)
        return ST_OK;
    Status st = exact_analyse(g, &a->x, d);
    a->valid = st == ST_OK;
    return st;
}

static void analysis_drop(Analysis *a)
{
    if (a->valid)
        exact_finish(&a->x);
    a->valid = false;
}

static void made(Made *m, int kind, const Block *b, const char *rule)
{
    if (!m->n[kind]++) {
        m->first[kind] = b->id;
        m->rule[kind] = rule;
    }
}

static bool is_soma(const Chip *c, const Block *b)
{
    const ChipPrim *p = chip_prim_for(c, b->type);
    return p && p->unit == UNIT_SOMA;
}

static bool is_cmp(const Block *b)
{
    return b->type == BT_CCMPB || b->type == BT_CCMPS;
}

static void set_prec(Block *b, PrecisionId p)
{
    b->prec = p;
    b->has_prec = true;
}

/* The first of cands (n of them) the chip encodes whose range holds r and whose container
 * is same (when same >= 0); PR_COUNT when none. */
static PrecisionId fitting(const Chip *c, ExactRange r, const PrecisionId *cands, int n,
                           int same)
{
    for (int k = 0; k < n; k++) {
        ExactRange p = exact_prec_range(cands[k]);
        if (chip_prec(c, cands[k]) && exact_inside(r, p.lo, p.hi) &&
            (same < 0 || (int)pr_info(cands[k])->container == same))
            return cands[k];
    }
    return PR_COUNT;
}

/* A precision the chip encodes for block b (not a CCMPB / CCMPS: attr_rewrites plans those)
 * with the same values, or PR_COUNT. */
static PrecisionId encodable(const Chip *c, const Block *b, const ExactBlock *x)
{
    static const PrecisionId any[] = {PR_INT_8, PR_UINT_8, PR_INT_32};
    static const PrecisionId axon[] = {PR_INT_32};
    ExactRange old = exact_prec_range(blk_prec(b));
    if (bt_info(b->type)->kind == BK_STORAGE)
        return fitting(c, x->out, any, 3, b->data ? (int)pr_info(blk_prec(b))->container : -1);
    if (is_cmp(b) || !exact_inside(x->raw, old.lo, old.hi))
        return PR_COUNT; /* planned below; or the clamp acts */
    return is_soma(c, b) ? fitting(c, x->raw, any, 3, -1) : fitting(c, x->raw, axon, 1, -1);
}

/* A storage block without data that only compute blocks write, of a precision the chip
 * encodes but whose values leave it (the graph's storage keeps them as they are; the
 * chip's map of that precision would not hold them): the first of INT_8, UINT_8, INT_32
 * that holds them and that every reader reads (its primitive's input precisions; an
 * OUTPUT reads any), or PR_COUNT. */
static PrecisionId widened(const Chip *c, const Graph *g, const Block *b, const ExactBlock *x)
{
    static const PrecisionId any[] = {PR_INT_8, PR_UINT_8, PR_INT_32};
    ExactRange own = exact_prec_range(blk_prec(b));
    if (bt_info(b->type)->kind != BK_STORAGE || b->type == BT_SB || b->data ||
        exact_inside(x->out, own.lo, own.hi) || !x->visited)
        return PR_COUNT;
    for (uint32_t k = 0; k < b->n_in; k++)
        for (uint32_t j = 0; j < b->in[k].n_ifaces; j++) {
            const Edge *e = graph_edge(g, b->in[k].ifaces[j].edge_id);
            const Block *w = e ? graph_block(g, e->src) : NULL;
            if (!w || bt_info(w->type)->kind != BK_COMPUTE)
                return PR_COUNT;
        }
    PrecisionId p = fitting(c, x->out, any, 3, -1);
    for (uint32_t k = 0; p != PR_COUNT && k < b->n_out; k++)
        for (uint32_t j = 0; j < b->out[k].n_ifaces; j++) {
            const Edge *e = graph_edge(g, b->out[k].ifaces[j].edge_id);
            const Block *r = e ? graph_block(g, e->dst) : NULL;
            const ChipPrim *pr = r ? chip_prim_for(c, r->type) : NULL;
            if (!r || (r->type != BT_OUTPUT && (bt_info(r->type)->kind != BK_COMPUTE || !pr ||
                                               (pr->precs && !(pr->precs >> p & 1)))))
                return PR_COUNT;
        }
    return p;
}

/* Can b read its first role's values doubled: every edge into those clusters a plain copy
 * (map_insert_through copies boxes, not rearrangements) from a storage block? */
static bool plain_inputs(const Graph *g, const Block *b)
{
    uint32_t nv = blk_n_variadic(b);
    for (uint32_t k = 0; k < nv && k < b->n_in; k++)
        for (uint32_t j = 0; j < b->in[k].n_ifaces; j++) {
            const Edge *e = graph_edge(g, b->in[k].ifaces[j].edge_id);
            const Block *s = e ? graph_block(g, e->src) : NULL;
            if (!s || e->n_re || bt_info(s->type)->kind != BK_STORAGE)
                return false;
        }
    return true;
}

static int32_t clamp32(int32_t v, int32_t lo, int32_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* A CCMPB / CCMPS whose chip value differs: the first precision, CMP and doubling with
 * which both the TaskGraph and the chip give its values (file comment); false when none.
 * An 8-bit precision other than the 8-bit map's (P05 writes its 8 bits as the map's) only
 * when the maps may take it (free_map) and its values vals fit it. */
static bool plan_cmp(const Chip *c, const ExactCmp *ref, ExactRange m, bool plain,
                     PrecisionId map, bool free_map, ExactRange vals, ExactCmp *out)
{
    PrecisionId precs[] = {ref->out, PR_INT_8, PR_UINT_8, PR_INT_32};
    int32_t cmps[] = {ref->cmp, clamp32(ref->cmp, -128, 127), clamp32(ref->cmp, -1, 1)};
    bool odd = ref->shift % 2 != 0 && plain;
    for (int dbl = 0; dbl <= (odd ? 1 : 0); dbl++)
        for (size_t p = 0; p < sizeof precs / sizeof precs[0]; p++)
            for (size_t q = 0; q < sizeof cmps / sizeof cmps[0]; q++) {
                ExactCmp k = *ref;
                k.out = precs[p];
                k.cmp = cmps[q];
                k.in = dbl ? PR_INT_32 : ref->in;
                k.shift = ref->shift + dbl;
                k.scale = dbl;
                if (!chip_prec(c, k.out) || !chip_prec(c, k.in) ||
                    (k.out == PR_TERNARY && map != PR_TERNARY) || /* P05 clips to the map */
                    (k.out != map && chip_prec(c, map) && pr_info(k.out)->bits == 8 &&
                     pr_info(map)->bits == 8 && /* it writes its 8 bits as the map's */
                     !(free_map && exact_inside(vals, exact_prec_range(k.out).lo,
                                                exact_prec_range(k.out).hi))) ||
                    (k.shift && (!exact_narrows(c, k.in, k.out) ||
                                 !chip_soma_shift(c, k.shift, NULL))) ||
                    (dbl && !exact_inside(m, INT32_MIN / 2, INT32_MAX / 2)))
                    continue;
                if (exact_cmp_agrees(NULL, ref, &k, m, NULL) &&
                    exact_cmp_agrees(c, ref, &k, m, NULL)) {
                    *out = k;
                    return true;
                }
            }
    return false;
}

/* The LUT_DW of a CLUT that can stand for CCMPB / CCMPS block b (file comment), or 0. */
static int32_t lut_for(const Chip *c, const Graph *g, const Block *b, const ExactBlock *x,
                       PrecisionId in)
{
    const ChipPrim *lut = chip_prim_for(c, BT_CLUT);
    int32_t s = blk_attr(b, AT_BIT_SHIFT_NUM);
    bool odd = !chip_soma_shift(c, s, NULL);
    if (!exact_pointwise(b) || !lut || lut->unit != UNIT_SOMA ||
        !(lut->precs & (UINT64_C(1) << (odd ? PR_INT_32 : in))) ||
        (odd && (s >= 31 || !chip_soma_shift(c, s + 1, NULL) || !plain_inputs(g, b) ||
                 !exact_inside(x->in, INT32_MIN / 2, INT32_MAX / 2))))
        return 0;
    for (int32_t dw = 4; dw <= 12; dw += 4)
        if (exact_inside(x->acc, -((int64_t)1 << (dw - 1)), ((int64_t)1 << (dw - 1)) - 1))
            return dw;
    return 0;
}

/* Does storage block s hold only what block w writes into it (no data, every writer w)? */
static bool only_written_by(const Graph *g, const Block *s, int32_t w)
{
    if (bt_info(s->type)->kind != BK_STORAGE || s->data)
        return false;
    for (uint32_t k = 0; k < s->n_in; k++)
        for (uint32_t j = 0; j < s->in[k].n_ifaces; j++) {
            const Edge *e = graph_edge(g, s->in[k].ifaces[j].edge_id);
            if (!e || e->src != w)
                return false;
        }
    return true;
}

/* Does b write maps only it writes (maps_free: they may take another precision)? */
static bool maps_free(const Graph *g, const Block *b)
{
    if (!b->n_out || !b->out[0].n_ifaces)
        return false;
    for (uint32_t j = 0; j < b->out[0].n_ifaces; j++) {
        const Edge *e = graph_edge(g, b->out[0].ifaces[j].edge_id);
        const Block *s = e ? graph_block(g, e->dst) : NULL;
        if (!s || !only_written_by(g, s, b->id))
            return false;
    }
    return true;
}

/* Every map b writes takes precision p. */
static void set_maps(Graph *g, const Block *b, PrecisionId p)
{
    for (uint32_t j = 0; b->n_out && j < b->out[0].n_ifaces; j++) {
        const Edge *e = graph_edge(g, b->out[0].ifaces[j].edge_id);
        Block *s = e ? graph_block(g, e->dst) : NULL;
        if (s)
            set_prec(s, p);
    }
}

/* A CCMPB (CCMPS) at pos clipping to a precision p the chip cannot give it (file comment,
 * "bound"): the precision *q it takes instead (the first of its map's, INT_8, UINT_8, INT_32
 * the chip encodes whose upper (lower) bound is at or beyond p's and which holds the values
 * it then writes) and *bound, p's upper (lower) bound that the block put after it clips to.
 * A 1-D block or map (docs/semantics.md 3.8: its bounds at most 127, at least -128) must
 * keep the values between the two blocks inside -128 .. 127 where it would cut them. false
 * when none fits, or when a map it writes holds anything else (data, another writer). */
static bool bound_plan(const Chip *c, const Graph *g, uint32_t pos, const ExactBlock *xb,
                       PrecisionId map, PrecisionId *q, int32_t *bound)
{
    const Block *b = g->blocks[pos];
    ExactCmp k;
    exact_cmp_of(b, exact_input_prec(g, pos), &k);
    ExactRange p = exact_prec_range(k.out);
    if (k.one_d) {
        p.lo = p.lo < -128 ? -128 : p.lo;
        p.hi = p.hi > 127 ? 127 : p.hi;
    }
    bool one = k.one_d;
    if (!maps_free(g, b))
        return false;
    for (uint32_t j = 0; j < b->out[0].n_ifaces; j++) {
        const Block *s = graph_block(g, graph_edge(g, b->out[0].ifaces[j].edge_id)->dst);
        one = one || (!s->shape.d[D_Y] && !s->shape.d[D_X]);
    }
    /* the values it writes with q reach from lo (CCMPB) or up to hi (CCMPS); q's bound on
       the other side is at or beyond p's */
    int64_t lo = xb->acc.lo > k.cmp ? xb->acc.lo : k.cmp, hi = xb->acc.hi < k.cmp ? xb->acc.hi
                                                                                 : k.cmp;
    lo = k.big ? (lo > p.hi ? p.hi : lo) : p.lo;
    hi = k.big ? p.hi : (hi < p.lo ? p.lo : hi);
    if (one && (k.big ? lo < -128 : hi > 127))
        return false;
    const PrecisionId cands[] = {map, PR_INT_8, PR_UINT_8, PR_INT_32};
    for (size_t j = 0; j < sizeof cands / sizeof cands[0]; j++) {
        ExactRange r = exact_prec_range(cands[j]);
        if (chip_prec(c, cands[j]) && cands[j] != PR_TERNARY && r.lo <= lo && r.hi >= hi) {
            *q = cands[j];
            *bound = (int32_t)(k.big ? p.hi : p.lo);
            return true;
        }
    }
    return false;
}

/* An Axon block b of a precision the chip does not encode whose clamp acts (file comment,
 * "clamp"): it may write INT_32 into maps only it writes, its exact result inside int32 (so
 * that the clamp after it sees the values the TaskGraph clamps). */
static bool clamp_after(const Chip *c, const Graph *g, const Block *b, const ExactBlock *x)
{
    const ChipPrim *p = chip_prim_for(c, b->type);
    return bt_info(b->type)->kind == BK_COMPUTE && p && p->unit == UNIT_AXON &&
           exact_inside(x->raw, INT32_MIN, INT32_MAX) && maps_free(g, b);
}

static int64_t floor_shift(int64_t v, int32_t n)
{
    return v >= 0 ? v >> n : -((-v - 1) >> n) - 1;
}

/* A CCMPB / CCMPS shifting by an odd 2k + 1 >= 3 bits whose values no doubling holds (file
 * comment, "halving"): a 1 x 1 window over plain inputs, 2k a Soma shift, and the values
 * shifted by 2k inside 8 bits (so that the first piece narrows, and the second doubles, in
 * the next round). */
static bool halves(const Chip *c, const Graph *g, const Block *b, const ExactBlock *xb)
{
    int32_t s = blk_attr(b, AT_BIT_SHIFT_NUM);
    return is_cmp(b) && exact_pointwise(b) && plain_inputs(g, b) && s >= 3 &&
           !chip_soma_shift(c, s, NULL) && chip_soma_shift(c, s - 1, NULL) &&
           !exact_inside(xb->in, INT32_MIN / 2, INT32_MAX / 2) &&
           floor_shift(xb->in.lo, s - 1) >= -128 && floor_shift(xb->in.hi, s - 1) <= 127;
}

/* The attribute rewrites: precisions, then each CCMPB / CCMPS the chip would run otherwise
 * (a plan, else a CLUT for later); then storage that only narrowed blocks write. */
static Status attr_rewrites(Ctx *x)
{
    Graph *g = x->g;
    const Chip *c = x->c;
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        Block *b = g->blocks[i];
        BlockKind kind = bt_info(b->type)->kind;
        PrecisionId p = PR_COUNT;
        if ((kind == BK_STORAGE || kind == BK_COMPUTE) && !chip_prec(c, blk_prec(b))) {
            if ((p = encodable(c, b, &x->x.blocks[i])) != PR_COUNT) {
                made(&x->m, MADE_PREC, b, "map.exact.prec");
            } else if (clamp_after(c, g, b, &x->x.blocks[i])) {
                x->lut_dw[i] = (int32_t)blk_prec(b); /* the clamp takes it */
                x->todo[i] |= TODO_CLAMP;
                x->n_bound++;
                set_maps(g, b, PR_INT_32);
                made(&x->m, MADE_CLAMP, b, "map.exact.prec");
                p = PR_INT_32;
            }
        } else if ((p = widened(c, g, b, &x->x.blocks[i])) != PR_COUNT) {
            made(&x->m, MADE_WIDEN, b, "emit.prec");
        }
        if (p != PR_COUNT)
            set_prec(b, p);
    }
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        Block *b = g->blocks[i];
        const ExactBlock *xb = &x->x.blocks[i];
        PrecisionId in = exact_input_prec(g, i);
        if (!is_cmp(b) || !is_soma(c, b))
            continue;
        PrecisionId map = exact_output_prec(g, i);
        const char *rule = exact_soma_rule(c, b, in, map, xb->in);
        int how;
        if (!rule && chip_prec(c, blk_prec(b)))
            continue;
        ExactCmp ref, k;
        PrecisionId q;
        exact_cmp_of(b, in, &ref);
        bool free_map = maps_free(g, b);
        if (plan_cmp(c, &ref, xb->in, plain_inputs(g, b), map, free_map, xb->out, &k)) {
            if (k.cmp != ref.cmp && !blk_set_attr(g, b, AT_CMP, k.cmp))
                return diag_add(x->d, ST_RUNTIME, "oom", NULL, "out of memory rewriting");
            set_prec(b, k.out);
            if (k.out != map && pr_info(k.out)->bits == 8 && pr_info(map)->bits == 8)
                set_maps(g, b, k.out); /* free_map: its values fit k.out */
            x->todo[i] |= (k.out == PR_INT_8 && ref.out != PR_INT_8 ? TODO_NARROWED : 0) |
                          (k.scale ? TODO_DOUBLE : 0);
            made(&x->m, MADE_CMP, b, rule ? rule : "map.exact.prec");
        } else if ((x->lut_dw[i] = lut_for(c, g, b, xb, in)) != 0) {
            x->todo[i] |= TODO_LUT;
            made(&x->m, MADE_LUT, b, rule ? rule : "map.exact.prec");
        } else if ((!chip_prec(c, blk_prec(b)) || (blk_prec(b) == PR_TERNARY &&
                                                    map != PR_TERNARY)) &&
                   bound_plan(c, g, i, xb, map, &q, &x->lut_dw[i])) {
            /* clip to an encodable precision, then to the old one's bound after it */
            set_prec(b, q);
            set_maps(g, b, q);
            x->todo[i] |= TODO_BOUND;
            x->n_bound++;
            made(&x->m, MADE_BOUND, b, rule ? rule : "map.exact.prec");
        } else if (rule && !strcmp(rule, "map.exact.shift32") &&
                   (how = exact_wide_shift_how(g, i, &x->x, x->related)) != 0) {
            x->wide_id[x->n_wide] = b->id;
            x->wide_op[x->n_wide++] = (int8_t)-how;
            made(&x->m, MADE_WIDE, b, rule);
        } else if (rule && halves(c, g, b, xb)) {
            x->todo[i] |= TODO_HALVE;
            x->n_bound++;
            made(&x->m, MADE_HALVE, b, rule);
        }
    }
    GraphUses u;
    if (!graph_uses(g, &u))
        return diag_add(x->d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        const BlockUses *bu = &u.blocks[i];
        bool only = g->blocks[i]->type == BT_SI && !g->blocks[i]->data && bu->n_in_edges &&
                    blk_prec(g->blocks[i]) == PR_INT_32 &&
                    exact_inside(x->x.blocks[i].out, -128, 127);
        for (uint32_t k = 0; only && k < bu->n_in_edges; k++) {
            long w = graph_block_pos(g, g->edges[bu->in_edges[k]]->src);
            only = w >= 0 && (x->todo[w] & TODO_NARROWED);
        }
        if (only)
            set_prec(g->blocks[i], PR_INT_8);
    }
    graph_uses_finish(&u);
    /* then the products of what is still INT_32 */
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        int w = exact_wide_product_operand(c, g, i, &x->x);
        if (w >= 0) {
            x->wide_id[x->n_wide] = g->blocks[i]->id;
            x->wide_op[x->n_wide++] = (int8_t)w;
            made(&x->m, MADE_WIDE, g->blocks[i], "map.prim.prec");
        }
    }
    return graph_oom(g) ? diag_add(x->d, ST_RUNTIME, "oom", NULL, "out of memory rewriting "
                                   "the graph") : ST_OK;
}

/* CCMPB / CCMPS block b becomes a CLUT with LUT_DW dw and the table of its clip. */
static Status to_lut(Ctx *x, Block *b, int32_t dw, PrecisionId in)
{
    Graph *g = x->g;
    ExactCmp k;
    exact_cmp_of(b, in, &k);
    k.shift = 0; /* the table maps the shifted value */
    int64_t n = (int64_t)1 << dw, *t = malloc((size_t)n * sizeof *t);
    if (!t)
        return diag_add(x->d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
    ExactRange own = exact_prec_range(blk_prec(b));
    /* P07 writes no TERNARY: a TERNARY clip's table goes into INT_8 (its values fit) */
    bool tern = blk_prec(b) == PR_TERNARY, keep = chip_prec(x->c, blk_prec(b)) != NULL;
    bool int8 = true;
    for (int64_t i = 0; i < n; i++) {
        t[i] = exact_graph_cmp(&k, i < n / 2 ? i : i - n);
        keep = keep && t[i] >= own.lo && t[i] <= own.hi;
        int8 = int8 && t[i] >= -128 && t[i] <= 127;
    }
    if (!keep || tern) /* the table holds values the clamp of its precision would change */
        set_prec(b, tern && int8 ? PR_INT_8 : PR_INT_32);
    int32_t s = blk_attr(b, AT_BIT_SHIFT_NUM), dims[1] = {(int32_t)n};
    char name[256];
    snprintf(name, sizeof name, "%s/lut", b->name ? b->name : "block");
    Block *sb = graph_add_block(g, BT_SB, GRAPH_AUTO_ID, name);
    bool ok = sb != NULL;
    if (ok) {
        set_prec(sb, PR_INT_32);
        sb->shape.d[D_F] = (int32_t)n;
        sb->has_shape = true;
        ok = blk_set_data(g, sb, PR_INT_32, dims, 1, t, (uint64_t)n);
    }
    free(t);
    if (ok) {
        b->type = BT_CLUT;
        for (int d = D_KY; d <= D_IX; d++)
            b->shape.d[d] = 0;
        b->n_attrs = 0;
        if (b->n_in)
            b->in[0].has_shape = false;
        ok = blk_set_attr(g, b, AT_LUT_DW, dw) && (!s || blk_set_attr(g, b, AT_BIT_SHIFT_NUM, s))
             && graph_connect(g, sb, 0, b, 1) && map_group_add(g, map_group_of(g, b->id), sb->id);
    }
    return ok ? ST_OK : diag_add(x->d, ST_RUNTIME, "oom", NULL, "out of memory rewriting");
}

/* A Soma block with an odd shift that reading doubled values makes exact (CLUT, CLIF; the
 * CCMPB / CCMPS ones are planned by attr_rewrites). */
static bool doubles(const Chip *c, const Graph *g, const Block *b, const ExactBlock *x)
{
    int32_t s = blk_attr(b, AT_BIT_SHIFT_NUM);
    return (b->type == BT_CLUT || b->type == BT_CLIF) && is_soma(c, b) && plain_inputs(g, b) &&
           !exact_shift_ok(c, b) && s < 31 && chip_soma_shift(c, s + 1, NULL) &&
           exact_inside(x->in, INT32_MIN / 2, INT32_MAX / 2);
}

/* Every edge into the first role's clusters of b goes through a CADD x + x; b shifts a bit
 * more. */
static Status double_inputs(Ctx *x, Block *b)
{
    Graph *g = x->g;
    uint32_t nv = blk_n_variadic(b), n = 0;
    for (uint32_t k = 0; k < nv && k < b->n_in; k++)
        n += b->in[k].n_ifaces;
    int32_t *ids = malloc((n ? n : 1) * sizeof *ids);
    if (!ids)
        return diag_add(x->d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
    n = 0;
    for (uint32_t k = 0; k < nv && k < b->n_in; k++)
        for (uint32_t j = 0; j < b->in[k].n_ifaces; j++)
            ids[n++] = b->in[k].ifaces[j].edge_id;
    Status st = ST_OK;
    for (uint32_t j = 0; j < n && st == ST_OK; j++) {
        const Edge *e = graph_edge(g, ids[j]);
        Block *s = e ? graph_block(g, e->src) : NULL;
        if (s && bt_info(s->type)->kind == BK_STORAGE)
            st = map_insert_through(g, s, ids[j], 0, &through_double, x->d); /* whole: the
                                                 split pass cuts it, as the block it feeds */
    }
    free(ids);
    if (st == ST_OK && !blk_set_attr(g, b, AT_BIT_SHIFT_NUM, blk_attr(b, AT_BIT_SHIFT_NUM) + 1))
        st = diag_add(x->d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
    return st;
}

/* TODO_HALVE: every edge into b's input goes through a block of b's kind shifting by 2k
 * without a clip (CMP at int32's end), written INT_32; b shifts by 1 (floor(floor(v / 2^2k)
 * / 2) = floor(v / 2^(2k+1)), and the extreme of one value is the value). */
static Status halve_inputs(Ctx *x, Block *b)
{
    Graph *g = x->g;
    uint32_t n = b->n_in ? b->in[0].n_ifaces : 0;
    int32_t *ids = malloc((n ? n : 1) * sizeof *ids);
    if (!ids)
        return diag_add(x->d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
    for (uint32_t j = 0; j < n; j++)
        ids[j] = b->in[0].ifaces[j].edge_id;
    const MapThrough t = {b->type, "even", AT_BIT_SHIFT_NUM, blk_attr(b, AT_BIT_SHIFT_NUM) - 1,
                          true, false};
    int32_t none = b->type == BT_CCMPB ? INT32_MIN : INT32_MAX;
    Status st = ST_OK;
    for (uint32_t j = 0; j < n && st == ST_OK; j++) {
        const Edge *e = graph_edge(g, ids[j]);
        Block *s = e ? graph_block(g, e->src) : NULL;
        if (!s)
            continue;
        st = map_insert_through(g, s, ids[j], 0, &t, x->d);
        /* budget 0: one block and its map, the last two added */
        Block *made_b = g->n_blocks >= 2 ? g->blocks[g->n_blocks - 2] : NULL;
        if (st == ST_OK && made_b && made_b->type == t.type &&
            !blk_set_attr(g, made_b, AT_CMP, none))
            st = diag_add(x->d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
    }
    free(ids);
    if (st == ST_OK && !blk_set_attr(g, b, AT_BIT_SHIFT_NUM, 1))
        st = diag_add(x->d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
    return st;
}

/* Block kind t (its precision prec, PR_COUNT: INT_32) between each map b writes and each of
 * that map's readers: the bound of clip b (TODO_BOUND: a CCMPS to it after a CCMPB, a CCMPB
 * from it after a CCMPS; the next round gives it the precision P25 / P05 compute it in), or
 * the clamp after Axon block b (TODO_CLAMP: a CCMPB from the old precision's lower bound,
 * of that precision, which the next round splits or makes a table). */
static Status through_maps(Ctx *x, Block *b, const MapThrough *t, PrecisionId prec)
{
    Graph *g = x->g;
    uint32_t nw = b->n_out ? b->out[0].n_ifaces : 0, n = 0;
    int32_t *maps = malloc((nw ? nw : 1) * sizeof *maps), *ids = NULL;
    for (uint32_t k = 0; maps && k < nw; k++) { /* the maps first: inserting moves clusters */
        const Edge *e = graph_edge(g, b->out[0].ifaces[k].edge_id);
        const Block *s = e ? graph_block(g, e->dst) : NULL;
        maps[k] = s && bt_info(s->type)->kind == BK_STORAGE ? s->id : -1;
    }
    Status st = maps ? ST_OK : ST_RUNTIME;
    for (uint32_t k = 0; st == ST_OK && k < nw; k++) {
        Block *s = maps[k] >= 0 ? graph_block(g, maps[k]) : NULL;
        n = s && s->n_out ? s->out[0].n_ifaces : 0;
        free(ids);
        ids = malloc((n ? n : 1) * sizeof *ids);
        if (!ids) {
            st = ST_RUNTIME;
            break;
        }
        for (uint32_t j = 0; j < n; j++)
            ids[j] = s->out[0].ifaces[j].edge_id;
        for (uint32_t j = 0; j < n && st == ST_OK; j++) {
            st = map_insert_through(g, s, ids[j], 0, t, x->d);
            /* budget 0: one block and its map, the last two added */
            Block *made_b = g->n_blocks >= 2 ? g->blocks[g->n_blocks - 2] : NULL;
            if (st == ST_OK && prec != PR_COUNT && made_b && made_b->type == t->type)
                set_prec(made_b, prec);
        }
    }
    free(maps);
    free(ids);
    return st == ST_RUNTIME && !x->d->oom
               ? diag_add(x->d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph")
               : st;
}

/* The structural rewrites: the CLUTs, then the doubled inputs. */
static Status struct_rewrites(Ctx *x)
{
    Graph *g = x->g;
    uint32_t nb = g->n_blocks, n = 0;
    int32_t *ids = malloc((nb ? nb : 1) * sizeof *ids);
    if (!ids)
        return diag_add(x->d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
    Status st = ST_OK;
    for (uint32_t i = 0; i < nb && st == ST_OK; i++) {
        Block *b = g->blocks[i];
        bool lut_odd = false;
        if (x->todo[i] & TODO_LUT) {
            lut_odd = !exact_shift_ok(x->c, b);
            st = to_lut(x, b, x->lut_dw[i], exact_input_prec(g, i));
        }
        if (st == ST_OK && (x->todo[i] & TODO_BOUND)) {
            const MapThrough t = {b->type == BT_CCMPB ? BT_CCMPS : BT_CCMPB,
                                  b->type == BT_CCMPB ? "ceil" : "floor", AT_CMP, x->lut_dw[i],
                                  false, false};
            st = through_maps(x, b, &t, PR_COUNT);
        }
        if (st == ST_OK && (x->todo[i] & TODO_CLAMP)) {
            PrecisionId p = (PrecisionId)x->lut_dw[i];
            const MapThrough t = {BT_CCMPB, "clamp", AT_CMP, (int32_t)exact_prec_range(p).lo,
                                  true, false};
            st = through_maps(x, b, &t, p);
        }
        if (st == ST_OK && (x->todo[i] & TODO_HALVE))
            st = halve_inputs(x, b);
        if ((x->todo[i] & TODO_DOUBLE) || lut_odd || doubles(x->c, g, b, &x->x.blocks[i])) {
            if (!(x->todo[i] & (TODO_DOUBLE | TODO_LUT)))
                made(&x->m, MADE_ODD, b, "map.exact.oddshift");
            ids[n++] = b->id;
        }
    }
    for (uint32_t k = 0; k < n && st == ST_OK; k++)
        st = double_inputs(x, graph_block(g, ids[k]));
    for (uint32_t k = 0; k < x->n_wide && st == ST_OK; k++)
        st = exact_wide_split(g, x->wide_id[k], x->wide_op[k], x->d);
    free(ids);
    if (st == ST_OK && !graph_compact(g))
        st = diag_add(x->d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
    return st;
}

static uint32_t made_total(const Made *m)
{
    uint32_t n = 0;
    for (int k = 0; k < MADE_KINDS; k++)
        n += m->n[k];
    return n;
}

/* One round of the rewrites: the analysis (an's), the attribute rewrites, the structural
 * ones; *wide (when not NULL) gets the number of blocks split into limbs. */
static Status round_rewrites(Graph *g, const Chip *c, Made *m, uint32_t *wide, bool related,
                             Analysis *an, Diag *d)
{
    Status st = analysis_get(g, an, d);
    if (st != ST_OK)
        return st;
    Ctx x = {g, c, an->x, NULL, NULL, NULL, NULL, 0, 0, *m, d, related};
    size_t nb = g->n_blocks ? g->n_blocks : 1;
    x.todo = calloc(nb, sizeof *x.todo);
    x.lut_dw = calloc(nb, sizeof *x.lut_dw);
    x.wide_id = calloc(nb, sizeof *x.wide_id);
    x.wide_op = calloc(nb, sizeof *x.wide_op);
    if (!x.todo || !x.lut_dw || !x.wide_id || !x.wide_op)
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
    if (st == ST_OK)
        st = attr_rewrites(&x);
    if (st == ST_OK)
        st = struct_rewrites(&x);
    free(x.todo);
    free(x.lut_dw);
    free(x.wide_id);
    free(x.wide_op);
    if (st != ST_OK || made_total(&x.m) != made_total(m))
        analysis_drop(an); /* the graph changed */
    *m = x.m;
    if (wide) /* the pieces split, and the clips split in two, take a round more */
        *wide = x.n_wide + x.n_bound;
    return st;
}

/* A rewrite over the whole analysed graph (exact_fold, exact_table_narrow), counted as kind
 * for rule; *n gets the blocks it rewrote. */
typedef long (*WholeFn)(Graph *g, const Chip *c, const ExactInfo *x, int32_t *first);

static Status whole_rewrite(Graph *g, const Chip *c, WholeFn fn, int kind, const char *rule,
                            Made *m, long *n, Analysis *an, Diag *d)
{
    Status st = analysis_get(g, an, d);
    if (st != ST_OK)
        return st;
    int32_t first = -1;
    *n = fn(g, c, &an->x, &first);
    if (*n)
        analysis_drop(an);
    if (*n < 0)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
    if (*n) {
        m->n[kind] += (uint32_t)*n;
        m->first[kind] = first;
        m->rule[kind] = rule;
    }
    return ST_OK;
}

/* The rounds: one, and more while the pieces split. */
static Status rounds(Graph *g, const Chip *c, Made *m, bool related, Analysis *an, Diag *d)
{
    uint32_t wide = 0;
    Status st = round_rewrites(g, c, m, &wide, related, an, d);
    for (int r = 1; st == ST_OK && wide && r < MAX_ROUNDS; r++) /* the pieces split */
        st = round_rewrites(g, c, m, &wide, related, an, d);
    return st;
}

/* The shift fold (exact_fold.c) of what a round left, then rounds more for the blocks
 * after the folded ones (which now read INT_8), while they rewrite some: a block narrowed
 * there changes what its readers read. */
static Status fold_rewrites(Graph *g, const Chip *c, Made *m, Analysis *an, Diag *d)
{
    long n = 0;
    Status st = whole_rewrite(g, c, exact_fold, MADE_FOLD, "map.exact.shift32", m, &n, an, d);
    for (int r = 0; st == ST_OK && n && r < MAX_ROUNDS; r++) {
        uint32_t before = made_total(m);
        st = round_rewrites(g, c, m, NULL, false, an, d);
        n = made_total(m) > before;
    }
    return st;
}

/* The pre-clip (exact_preclip.c) of what the fold left, then the rounds and the fold again
 * on the clipped blocks. */
static Status preclip_rewrites(Graph *g, const Chip *c, Made *m, Analysis *an, Diag *d)
{
    Status st = analysis_get(g, an, d);
    if (st != ST_OK)
        return st;
    int32_t first = -1;
    long n = exact_preclip(g, c, &an->x, &first, d);
    if (n)
        analysis_drop(an);
    if (n < 0)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
    if (!n)
        return ST_OK;
    m->n[MADE_PRECLIP] += (uint32_t)n;
    m->first[MADE_PRECLIP] = first;
    m->rule[MADE_PRECLIP] = "map.exact.shift32";
    if (!graph_compact(g))
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
    st = rounds(g, c, m, false, an, d);
    return st == ST_OK ? fold_rewrites(g, c, m, an, d) : st;
}

/* Last, the wide shifts that no rewrite before took, split with the remainder's relation
 * (exact_wide_shift_how; a floor shift by 19 of any int32 value, say), then the rounds for
 * their pieces and the fold again. Last, so that what the earlier ones map stays as it was. */
static Status related_rewrites(Graph *g, const Chip *c, Made *m, Analysis *an, Diag *d)
{
    uint32_t before = m->n[MADE_WIDE];
    Status st = rounds(g, c, m, true, an, d);
    return st == ST_OK && m->n[MADE_WIDE] != before ? fold_rewrites(g, c, m, an, d) : st;
}

Status mapper_exact(Graph *g, const Chip *c, uint32_t *n_rewrites, Diag *d)
{
    static const char *const what[MADE_KINDS] = {
        "took a precision the chip encodes with the same values",
        "an Axon block clamping to a precision the chip does not encode wrote INT_32, and a "
        "CCMPB of that precision after it clamps",
        "a map whose writers give values outside its precision took one that holds them",
        "CCMPB / CCMPS took an output precision, a CMP or doubled inputs on which the chip "
        "and the TaskGraph agree",
        "CCMPB / CCMPS became a CLUT with the table of its clip",
        "read doubled inputs (CADD x + x) and shift one bit more",
        "CCMPB / CCMPS shifting from INT_32 to INT_32 narrowed to INT_8 where only clips "
        "into 8 bits read its results",
        "a CCMPB shifting INT_32 to INT_32 values, or a CVVH of an INT_32 operand, split into "
        "a shift by 6 or 7 bits more and the remainder below them (8 bits)",
        "a CCMPB / CCMPS clipping to a precision the chip does not give it took one it does, "
        "and a CCMPS / CCMPB after it the old precision's bound",
        "a CCMPB / CCMPS shifting by an odd 2k + 1 bits values no doubling holds read them "
        "shifted by 2k first, and shift by 1",
        "a CLUT took the 8-bit precision of the maps it writes, in which P07 reads its table",
        "a CCMPB / CCMPS shifting from INT_32 to INT_32 reads its input clamped first to what "
        "its readers let through"};
    *n_rewrites = 0;
    Made m = {{0}, {0}, {NULL}};
    Analysis an = {{NULL, 0}, false};
    Status st = rounds(g, c, &m, false, &an, d);
    if (st == ST_OK)
        st = fold_rewrites(g, c, &m, &an, d);
    if (st == ST_OK)
        st = preclip_rewrites(g, c, &m, &an, d);
    if (st == ST_OK)
        st = related_rewrites(g, c, &m, &an, d);
    long nt = 0; /* last, the CLUTs take their maps' 8-bit precision (exact_table.c) */
    if (st == ST_OK)
        st = whole_rewrite(g, c, exact_table_narrow, MADE_TABLE, "map.exact.prec", &m, &nt, &an,
                           d);
    if (st != ST_OK) {
        analysis_drop(&an);
        return st;
    }
    for (int k = 0; k < MADE_KINDS; k++) {
        if (!m.n[k])
            continue;
        diag_block(d, ST_OK, m.rule[k], graph_block(g, m.first[k]), "rewrote %u block%s: "
                   "%s (docs/exactness.md); this is the first", m.n[k],
                   m.n[k] > 1 ? "s" : "", what[k]);
        *n_rewrites += m.n[k];
    }
    /* what is left after the rewrites is an error */
    if ((st = analysis_get(g, &an, d)) != ST_OK)
        return st;
    size_t left = exact_check(g, c, &an.x, ST_LOGIC, d);
    analysis_drop(&an);
    return d->oom ? ST_RUNTIME : left ? ST_LOGIC : ST_OK;
}
