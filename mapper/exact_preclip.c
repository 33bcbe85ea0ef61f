/* exact_preclip.c: the pre-clip of the chip-exactness rewrites (exact_preclip.h;
 * docs/exactness.md, "Rewrites").
 *
 * A CCMPB A shifting from INT_32 to INT_32 by s gives a(v) = max(floor(v / 2^s), C) of its
 * window's extreme v; the chip shifts only when it narrows (map.exact.shift32). When the
 * graph's outputs see its results only clamped to [L, H] (exact_fold_bounds: L <= 0 <= H,
 * H >= C), A may read its input clamped first:
 *
 *   floor(clamp(v, L 2^s, (H + 1) 2^s - 1) / 2^s) = clamp(floor(v / 2^s), L, H)
 *
 * (floor is nondecreasing, floor(L 2^s / 2^s) = L, floor(((H + 1) 2^s - 1) / 2^s) = H), so
 * A then gives clamp(a(v), max(L, C), H) = clamp(a(v), L, H) (a(v) >= C), which no output
 * sees. The mirror for a CCMPS (min(., C), L <= C). The clamp commutes with the window's
 * extreme (monotone) and keeps padding's zeros (L 2^s <= 0 <= (H + 1) 2^s - 1).
 *
 * The clamp before A is a CCMPB from L 2^s and a CCMPS to (H + 1) 2^s - 1 (each only where
 * A's input may pass it), without a shift, INT_32 to INT_32: P05 / P25 then compare whole
 * int32 values, as the TaskGraph does. A's shifted values then lie in [L, H]: the next round
 * narrows A when they fit 8 bits, makes it a table when they fit a table's index, or splits
 * it into limbs (exact_wide.c), whose remainder the analysis now bounds closely.
 * Requires a verified, compacted graph without groups; leaves removed blocks for
 * graph_compact.
 */
#include "mapper/exact_preclip.h"

#include "mapper/exact_fold.h"
#include "mapper/rewrite.h"

#include <stdlib.h>
#include <string.h>

/* A block to clip before: its id and the clamp of its input (lo > INT32_MIN, hi <
 * INT32_MAX: the sides to clip). */
typedef struct Pre {
    int32_t id;
    int32_t lo, hi;
} Pre;

static bool inputs_from_storage(const Graph *g, const Block *b)
{
    if (b->n_in != 1 || !b->in[0].n_ifaces)
        return false;
    for (uint32_t j = 0; j < b->in[0].n_ifaces; j++) {
        const Edge *e = graph_edge(g, b->in[0].ifaces[j].edge_id);
        const Block *s = e ? graph_block(g, e->src) : NULL;
        if (!s || bt_info(s->type)->kind != BK_STORAGE)
            return false;
    }
    return true;
}

/* Is the block at position pos one to clip before (file comment): 1 with *p, 0 not, -1
 * out of memory. */
static int plan(const Graph *g, const Chip *c, const ExactInfo *x, uint32_t pos, Pre *p)
{
    const Block *b = g->blocks[pos];
    const ChipPrim *cp = chip_prim_for(c, b->type);
    if ((b->type != BT_CCMPB && b->type != BT_CCMPS) || !cp || cp->unit != UNIT_SOMA ||
        blk_prec(b) != PR_INT_32 || exact_input_prec(g, pos) != PR_INT_32 ||
        !inputs_from_storage(g, b))
        return 0;
    const ExactBlock *xb = &x->blocks[pos];
    const char *rule = exact_soma_rule(c, b, PR_INT_32, exact_output_prec(g, pos), xb->in);
    int32_t s = blk_attr(b, AT_BIT_SHIFT_NUM), cmp = blk_attr(b, AT_CMP);
    if (!rule || strcmp(rule, "map.exact.shift32") != 0 || s < 1 || s > 30)
        return 0;
    ExactRange lh;
    int ok = exact_fold_bounds(g, c, x, pos, &lh);
    if (ok <= 0)
        return ok;
    if ((b->type == BT_CCMPB && lh.hi < cmp) || (b->type == BT_CCMPS && lh.lo > cmp))
        return 0;
    int64_t lo = lh.lo * ((int64_t)1 << s), hi = (lh.hi + 1) * ((int64_t)1 << s) - 1;
    p->id = b->id;
    p->lo = lo > xb->in.lo && lo > INT32_MIN ? (int32_t)lo : INT32_MIN;
    p->hi = hi < xb->in.hi && hi < INT32_MAX ? (int32_t)hi : INT32_MAX;
    return p->lo != INT32_MIN || p->hi != INT32_MAX;
}

/* Every edge into b goes through a block t first. */
static Status through(Graph *g, Block *b, const MapThrough *t, Diag *d)
{
    uint32_t n = b->in[0].n_ifaces;
    int32_t *ids = malloc((n ? n : 1) * sizeof *ids);
    if (!ids)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
    for (uint32_t j = 0; j < n; j++)
        ids[j] = b->in[0].ifaces[j].edge_id;
    Status st = ST_OK;
    for (uint32_t j = 0; j < n && st == ST_OK; j++) {
        const Edge *e = graph_edge(g, ids[j]);
        Block *s = e ? graph_block(g, e->src) : NULL;
        if (s)
            st = map_insert_through(g, s, ids[j], 0, t, d);
    }
    free(ids);
    return st;
}

long exact_preclip(Graph *g, const Chip *c, const ExactInfo *x, int32_t *first, Diag *d)
{
    Pre *pre = malloc((g->n_blocks ? g->n_blocks : 1) * sizeof *pre);
    if (!pre)
        return -1;
    long n = 0;
    Status st = ST_OK;
    for (uint32_t i = 0; i < g->n_blocks && i < x->n_blocks; i++) {
        int r = plan(g, c, x, i, &pre[n]);
        if (r < 0) {
            free(pre);
            return -1;
        }
        n += r;
    }
    for (long k = 0; k < n && st == ST_OK; k++) {
        Block *b = graph_block(g, pre[k].id);
        const MapThrough lo = {BT_CCMPB, "pre.lo", AT_CMP, pre[k].lo, true, false};
        const MapThrough hi = {BT_CCMPS, "pre.hi", AT_CMP, pre[k].hi, true, false};
        if (pre[k].lo != INT32_MIN)
            st = through(g, b, &lo, d);
        if (st == ST_OK && pre[k].hi != INT32_MAX)
            st = through(g, b, &hi, d);
    }
    if (n)
        *first = pre[0].id;
    free(pre);
    return st == ST_OK && !graph_oom(g) ? n : -1;
}
