/* prim.c: primitive selection (CHIP.md §1, docs/mapper.md "Primitives").
 *
 * Every compute block gets the primitive the chip description names for its type
 * (chip_prim_for), hence its P-code and unit (Axon or Soma). What the block needs and the
 * primitive cannot do is a logic error naming the block:
 *   map.prim.none    no primitive of the chip runs this block type, or one of another unit
 *   map.prim.prec    an input storage block's precision is one the chip encodes but the
 *                    primitive does not read (INT_32 into P41, say); a precision the chip
 *                    does not encode at all is left to the chip-exactness checks
 *   map.prim.axon    an Axon block reads the output of another Axon block (Axon output is
 *                    int32 and only CADD may take it directly; a Soma must narrow it first)
 *   map.prim.clock   the clock formula overflows for this block
 * P81 (CC2D) reads its padding from memory: the backend stores it, chip_storage_bytes counts
 * it, so padding by attributes is no error here.
 * Requires: a verified, compacted graph and its use index. Guarantees: p->tasks holds every
 * compute block in graph order with its primitive and clocks.
 */
#include "mapper/plan.h"

#include "taskir/diag_block.h"

#include <stdlib.h>

int32_t map_slot_pi(int slot)
{
    switch (slot) {
    case MS_AXON: return 1;   /* AXON */
    case MS_SOMA1: return 2;  /* SOMA1 */
    case MS_SOMA2: return 5;  /* SOMA2 */
    default: return 6;        /* MEMORY */
    }
}

/* The block of the edge's other end, or NULL. */
static const Block *edge_src(const MapPlan *p, uint32_t epos)
{
    return graph_block(p->g, p->g->edges[epos]->src);
}

/* Checks one compute block against its primitive. */
static void check_block(MapPlan *p, const Block *b, const ChipPrim *pr, Diag *d)
{
    long pos = graph_block_pos(p->g, b->id);
    const BlockUses *bu = &p->uses.blocks[pos];
    for (uint32_t i = 0; i < bu->n_in_edges; i++) {
        const Block *s = edge_src(p, bu->in_edges[i]);
        if (!s || bt_info(s->type)->kind != BK_STORAGE || s->type == BT_SB)
            continue;
        PrecisionId sp = blk_prec(s);
        /* a precision the chip does not encode at all (INT_16, INT_9, ...) is the business
         * of the chip-exactness checks (docs/mapper.md, "Primitives"), not of this one */
        if (pr->precs && !(pr->precs & (UINT64_C(1) << sp)) && chip_prec(p->chip, sp))
            diag_block(d, ST_LOGIC, "map.prim.prec", b,
                       "reads block %d (%s) of precision %s, which P%02d does not read", s->id,
                       bt_info(s->type)->name, pr_info(sp)->name, pr->pcode);
        if (pr->unit != UNIT_AXON || b->type == BT_CADD)
            continue;
        /* the producers of this input: an Axon among them feeds this Axon directly */
        long spos = graph_block_pos(p->g, s->id);
        const BlockUses *su = &p->uses.blocks[spos];
        for (uint32_t k = 0; k < su->n_in_edges; k++) {
            const Block *a = edge_src(p, su->in_edges[k]);
            const ChipPrim *ap = a ? chip_prim_for(p->chip, a->type) : NULL;
            if (ap && ap->unit == UNIT_AXON && bt_info(a->type)->kind == BK_COMPUTE) {
                diag_block(d, ST_LOGIC, "map.prim.axon", b,
                           "reads the int32 output of Axon block %d (%s) through block %d; "
                           "an Axon feeds an Axon only into CADD (a Soma must narrow it first)",
                           a->id, bt_info(a->type)->name, s->id);
                break;
            }
        }
    }
}

Status map_select_prims(MapPlan *p, Diag *d)
{
    const Graph *g = p->g;
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->n_blocks; i++)
        n += bt_info(g->blocks[i]->type)->kind == BK_COMPUTE;
    p->tasks = calloc(n ? n : 1, sizeof *p->tasks);
    p->task_of = malloc((g->n_blocks ? g->n_blocks : 1) * sizeof *p->task_of);
    if (!p->tasks || !p->task_of)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory selecting primitives");
    size_t before = d->n;
    Status worst = ST_OK;
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        const Block *b = g->blocks[i];
        p->task_of[i] = MAP_NONE;
        if (bt_info(b->type)->kind != BK_COMPUTE)
            continue;
        const ChipPrim *pr = chip_prim_for(p->chip, b->type);
        if (!pr || (pr->unit != UNIT_AXON && pr->unit != UNIT_SOMA)) {
            worst = diag_block(d, ST_LOGIC, "map.prim.none", b,
                               "the chip '%s' has no Axon or Soma primitive for %s blocks",
                               p->chip->name ? p->chip->name : "", bt_info(b->type)->name);
            continue;
        }
        check_block(p, b, pr, d);
        /* with the real input precision; one the chip does not encode counts as INT_8 */
        int64_t clk = chip_group_clocks(p->chip, g, &p->uses, b);
        if (clk < 0)
            clk = chip_block_clocks(p->chip, b);
        if (clk < 0)
            worst = diag_block(d, ST_LOGIC, "map.prim.clock", b,
                               "its clock count on P%02d overflows", pr->pcode);
        MTask *t = &p->tasks[p->n_tasks];
        t->pos = i;
        t->prim = pr;
        t->clocks = clk < 0 ? 0 : clk;
        t->phase = -1;
        p->task_of[i] = p->n_tasks++;
    }
    if (d->n > before && worst == ST_OK)
        worst = ST_LOGIC;
    return d->oom ? ST_RUNTIME : worst;
}
