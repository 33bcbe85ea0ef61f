/* exact_table.c: a CLUT takes the 8-bit precision of the maps it writes (exact_table.h;
 * docs/exactness.md, "Rewrites").
 *
 * P07 has one precision for what it writes and for the table it reads (x2): the code
 * generator writes an int32 table's image in the precision of the map the CLUT writes,
 * clipped to it (backend/emit_plan.c). A CLUT lowered as INT_32 (the frontends' tables hold
 * int32 entries) that writes an 8-bit map therefore costs a quarter of its int32 table on
 * the core, which the memory counts only once the CLUT states that precision: a division
 * table of 2^16 quotients of 0 .. 255 is 64 KiB, not 256. The rewrite is exact when the
 * CLUT's clamp to that precision never acts (every table entry, the analysis's range of the
 * CLUT, inside it) and every map it writes holds its values alone, in that precision. */
#include "mapper/exact_table.h"

/* The one precision of the maps CLUT b writes, each holding only what b writes (no data,
 * b its only writer); PR_COUNT when they differ, when there is none or another writer. */
static PrecisionId maps_prec(const Graph *g, const Block *b)
{
    PrecisionId p = PR_COUNT;
    for (uint32_t j = 0; b->n_out && j < b->out[0].n_ifaces; j++) {
        const Edge *e = graph_edge(g, b->out[0].ifaces[j].edge_id);
        const Block *s = e ? graph_block(g, e->dst) : NULL;
        if (!s || bt_info(s->type)->kind != BK_STORAGE || s->data ||
            (p != PR_COUNT && blk_prec(s) != p))
            return PR_COUNT;
        for (uint32_t k = 0; k < s->n_in; k++)
            for (uint32_t i = 0; i < s->in[k].n_ifaces; i++) {
                const Edge *w = graph_edge(g, s->in[k].ifaces[i].edge_id);
                if (!w || w->src != b->id)
                    return PR_COUNT;
            }
        p = blk_prec(s);
    }
    return p;
}

long exact_table_narrow(Graph *g, const Chip *c, const ExactInfo *x, int32_t *first)
{
    const ChipPrim *lut = chip_prim_for(c, BT_CLUT);
    long n = 0;
    for (uint32_t i = 0; lut && i < g->n_blocks && i < x->n_blocks; i++) {
        Block *b = g->blocks[i];
        if (b->type != BT_CLUT || blk_prec(b) != PR_INT_32 || !x->blocks[i].visited)
            continue;
        PrecisionId p = maps_prec(g, b);
        if (p == PR_COUNT || pr_info(p)->bits != 8 || !chip_prec(c, p) ||
            !(lut->precs & (UINT64_C(1) << p)))
            continue;
        ExactRange r = exact_prec_range(p);
        if (!exact_inside(x->blocks[i].out, r.lo, r.hi))
            continue;
        b->prec = p;
        b->has_prec = true;
        if (!n++)
            *first = b->id;
    }
    return n;
}
