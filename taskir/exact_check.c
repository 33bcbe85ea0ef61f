/* exact_check.c: where the chip's arithmetic may differ from the TaskGraph's (exact.h,
 * docs/exactness.md "Rules"), block by block, from the interval analysis:
 *   map.exact.prec      a block of a precision the chip does not encode (INT_16, INT_9,
 *                       UINT_4, ...): it has no layout in the chip's memory; a CCMPB / CCMPS
 *                       of TERNARY writing a map of another precision (P05 clips to that)
 *   map.exact.overflow  an Axon block whose partial sums may leave int32: the chip saturates
 *                       after every multiply-accumulate where the TaskGraph wraps
 *   map.exact.shift32   a CCMPB / CCMPS with a shift that does not narrow (an INT_32 output):
 *                       P05 shifts only when it narrows, so the chip would not shift
 *   map.exact.oddshift  a Soma block whose BIT_SHIFT_NUM is no whole number of the Soma's
 *                       shift steps (2 bits on TianjicX: it divides by 4^k)
 *   map.exact.clip      a CCMPB / CCMPS whose clip differs on the chip over its values
 *                       (exact_soma.c: P05 saturates to 8 bits before it compares with CMP's
 *                       low bits, and keeps the output's low bits); a CLUT whose index,
 *                       never negative, may pass the N/2 - 1 P07 saturates it to, onto
 *                       another entry
 * INPUT and OUTPUT blocks are off chip and not checked. */
#include "taskir/diag_block.h"
#include "taskir/exact_internal.h"
#include "taskir/layout.h"

#include <inttypes.h>
#include <string.h>

bool exact_shift_ok(const Chip *c, const Block *b)
{
    return chip_soma_shift(c, blk_attr(b, AT_BIT_SHIFT_NUM), NULL);
}

bool exact_narrows(const Chip *c, PrecisionId in, PrecisionId out)
{
    const ChipPrec *pi = chip_prec(c, in), *po = chip_prec(c, out);
    return pi && po && po->code > pi->code;
}

PrecisionId exact_output_prec(const Graph *g, uint32_t pos)
{
    const Block *b = g->blocks[pos];
    if (b->n_out && b->out[0].n_ifaces) {
        const Edge *e = graph_edge(g, b->out[0].ifaces[0].edge_id);
        const Block *s = e ? graph_block(g, e->dst) : NULL;
        if (s && bt_info(s->type)->kind == BK_STORAGE)
            return blk_prec(s);
    }
    return blk_prec(b);
}

PrecisionId exact_input_prec(const Graph *g, uint32_t pos)
{
    const Block *b = g->blocks[pos];
    if (b->n_in && b->in[0].n_ifaces) {
        const Edge *e = graph_edge(g, b->in[0].ifaces[0].edge_id);
        const Block *s = e ? graph_block(g, e->src) : NULL;
        if (s)
            return blk_prec(s);
    }
    return blk_prec(b);
}

static bool is_unit(const Chip *c, const Block *b, ChipUnit unit)
{
    const ChipPrim *p = chip_prim_for(c, b->type);
    return p && p->unit == unit && bt_info(b->type)->kind == BK_COMPUTE;
}

/* Entry k of table block t's data into *v; false when it has none there. */
static bool lut_entry(const Block *t, int64_t k, int64_t *v)
{
    const Tensor *d = t ? t->data : NULL;
    if (!d || k < 0)
        return false;
    if (k < (int64_t)d->n_i32)
        *v = tensor_i32_at(d, (size_t)k);
    else if (!d->n_i32 && k < (int64_t)d->n_u32)
        *v = d->u32[k];
    else
        return false;
    return true;
}

/* Whether CLUT b, whose index is never negative (a table read unsigned), reads what the
 * TaskGraph reads for its input values m. P07 saturates a shifted index to -N/2 .. N/2 - 1
 * (N = layout_lut_entries) and reads entry i, or N + i when negative; the TaskGraph reads
 * entry i, or n + i, for any index of -n .. n - 1 (n = 2^LUT_DW; one outside is an error
 * there, sim.lut). The two differ only where N = n (LUT_DW 4, 8, 12 or 16), for an index past
 * N/2 - 1 whose entry is not entry N/2 - 1's: a 2^16-entry quotient table read at a * 256 + b
 * for 8-bit magnitudes reads entry 32767 for every a of 128 and more on the chip. A signed
 * index (a range below 0 too) is the table's own: the analysis bounds it loosely (the
 * chip-exactness rewrites' tables, the long division's bits read -2174 .. 2175 where their
 * values stay inside -2048 .. 2047), and it is not checked. */
static bool lut_index_agrees(const Graph *g, const Block *b, ExactRange m)
{
    int32_t dw = blk_attr(b, AT_LUT_DW);
    int64_t big = layout_lut_entries(dw), n = dw >= 1 && dw <= 16 ? (int64_t)1 << dw : 0;
    int32_t sh = blk_attr(b, AT_BIT_SHIFT_NUM);
    sh = sh < 0 ? 0 : sh > 31 ? 31 : sh;
    int64_t lo = m.lo >= 0 ? m.lo >> sh : ~(~m.lo >> sh), hi = m.hi >= 0 ? m.hi >> sh
                                                                       : ~(~m.hi >> sh);
    lo = lo < -n ? -n : lo; /* what the TaskGraph reads at all */
    hi = hi > n - 1 ? n - 1 : hi;
    if (big < 2 || lo > hi || lo < 0 || hi <= big / 2 - 1)
        return true;
    const Edge *ed = b->n_in > 1 && b->in[1].n_ifaces == 1
                         ? graph_edge(g, b->in[1].ifaces[0].edge_id) : NULL;
    const Block *t = ed ? graph_block(g, ed->src) : NULL;
    int64_t top, v;
    if (!lut_entry(t, big / 2 - 1, &top))
        return false;
    for (int64_t i = lo > big / 2 ? lo : big / 2; i <= hi; i++)
        if (!lut_entry(t, i, &v) || v != top)
            return false;
    return true;
}

const char *exact_soma_rule(const Chip *c, const Block *b, PrecisionId in, PrecisionId out,
                            ExactRange m)
{
    int32_t sh = blk_attr(b, AT_BIT_SHIFT_NUM);
    bool cmp = b->type == BT_CCMPB || b->type == BT_CCMPS;
    if (!is_unit(c, b, UNIT_SOMA) || (cmp && (!chip_prec(c, blk_prec(b)) || !chip_prec(c, in))))
        return NULL; /* not a Soma block, or map.exact.prec */
    if (cmp && blk_prec(b) == PR_TERNARY && out != PR_TERNARY)
        return "map.exact.prec"; /* P05 clips to the map it writes, not to TERNARY */
    if (cmp && sh && !exact_narrows(c, in, blk_prec(b)))
        return "map.exact.shift32";
    if (sh && !exact_shift_ok(c, b))
        return "map.exact.oddshift";
    ExactCmp k;
    if (cmp) {
        exact_cmp_of(b, in, &k);
        if (!exact_cmp_agrees(c, &k, &k, m, NULL))
            return "map.exact.clip";
    }
    return NULL;
}

size_t exact_check(const Graph *g, const Chip *c, const ExactInfo *x, Status st, Diag *d)
{
    size_t n = 0;
    for (uint32_t i = 0; i < g->n_blocks && i < x->n_blocks; i++) {
        const Block *b = g->blocks[i];
        const ExactBlock *xb = &x->blocks[i];
        BlockKind kind = bt_info(b->type)->kind;
        if (kind != BK_STORAGE && kind != BK_COMPUTE)
            continue;
        PrecisionId p = blk_prec(b);
        if (!chip_prec(c, p)) {
            n++;
            diag_block(d, st, "map.exact.prec", b, "its precision %s has no encoding on the "
                       "chip '%s' (values %" PRId64 " .. %" PRId64 ")", pr_info(p)->name,
                       c->name ? c->name : "", xb->out.lo, xb->out.hi);
        }
        if (kind != BK_COMPUTE)
            continue;
        if (is_unit(c, b, UNIT_AXON) && !exact_inside(xb->acc, INT32_MIN, INT32_MAX)) {
            n++;
            diag_block(d, st, "map.exact.overflow", b, "its int32 accumulation may reach %"
                       PRId64 " .. %" PRId64 ", outside int32, from inputs of %" PRId64 " .. %"
                       PRId64 ": the chip saturates where the TaskGraph wraps", xb->acc.lo,
                       xb->acc.hi, xb->in.lo, xb->in.hi);
        }
        if (!is_unit(c, b, UNIT_SOMA))
            continue;
        PrecisionId in = exact_input_prec(g, i);
        PrecisionId out = exact_output_prec(g, i);
        const char *rule = exact_soma_rule(c, b, in, out, xb->in);
        if (!rule && b->type == BT_CLUT && !lut_index_agrees(g, b, xb->in))
            rule = "map.exact.clip";
        if (!rule)
            continue;
        n++;
        int32_t sh = blk_attr(b, AT_BIT_SHIFT_NUM);
        if (strcmp(rule, "map.exact.shift32") == 0) {
            diag_block(d, st, rule, b, "shifts by %d bits from %s to %s: P%02d shifts only "
                       "when it narrows (INT_32 in, 8-bit out), so the chip would not shift "
                       "(the shifted values, %" PRId64 " .. %" PRId64 ", fit neither 8 bits "
                       "nor a table of 4096)", (int)sh, pr_info(in)->name, pr_info(p)->name,
                       chip_prim_for(c, b->type)->pcode, xb->acc.lo, xb->acc.hi);
        } else if (strcmp(rule, "map.exact.prec") == 0) {
            diag_block(d, st, rule, b, "clips to TERNARY and writes an %s map: P%02d clips to "
                       "the map it writes only (values %" PRId64 " .. %" PRId64 ")",
                       pr_info(out)->name, chip_prim_for(c, b->type)->pcode, xb->out.lo,
                       xb->out.hi);
        } else if (strcmp(rule, "map.exact.oddshift") == 0) {
            diag_block(d, st, rule, b, "shifts by %d bits: the Soma shifts in steps of %u bits "
                       "(at most %u steps)", (int)sh, c->soma_shift_bits, c->soma_shift_max);
        } else if (b->type == BT_CLUT) {
            int64_t big = layout_lut_entries(blk_attr(b, AT_LUT_DW));
            diag_block(d, st, rule, b, "reads its table at indices %" PRId64 " .. %" PRId64
                       " (shifted by %d bits): P07 saturates an index to %" PRId64 " .. %"
                       PRId64 " (a table of %" PRId64 " entries), where the TaskGraph reads "
                       "the entry, another", xb->in.lo, xb->in.hi, (int)sh, -big / 2,
                       big / 2 - 1, big);
        } else {
            ExactCmp k;
            exact_cmp_of(b, in, &k);
            int64_t w = 0, chip = 0;
            exact_cmp_agrees(c, &k, &k, xb->in, &w);
            exact_chip_cmp(c, &k, w, &chip);
            diag_block(d, st, rule, b, "on the window value %" PRId64 " the chip gives %" PRId64
                       ", the TaskGraph %" PRId64 " (P%02d saturates to 8 bits before it "
                       "compares with CMP's low bits, and keeps the output's low bits)", w,
                       chip, exact_graph_cmp(&k, w), chip_prim_for(c, b->type)->pcode);
        }
    }
    return n;
}
