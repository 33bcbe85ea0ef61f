/* rewrite.c: the mapper's rewrites of a graph before it is planned (docs/mapper.md,
 * "Rewrites"): what a block needs that no primitive does, made into what the chip runs,
 * keeping the graph's outputs bit for bit.
 *
 * Axon into Axon (CHIP.md §1: an Axon's int32 output feeds another Axon only into CADD):
 * when SI block S, written by an Axon block, is read by an Axon block other than CADD, the
 * reads go through a Soma copy instead: S -> CCMPB "<S>/soma" -> SI "<S>/soma.out" -> the
 * Axon readers. The CCMPB has a 1 x 1 window, no shift, floor CMP = INT32_MIN and an INT_32
 * output: clip(x >> 0, INT32_MIN, 2^31 - 1) = x, the Soma's plain move (P05 runs it; the
 * backend may use P06). Readers that are Soma blocks or CADD keep reading S. Storage of
 * other types (SIC, SIFC) written by an Axon is left alone: prim.c reports it
 * [map.prim.axon].
 * Requires a verified, compacted graph. Guarantees: compacted again, verified by the caller.
 */
#include "mapper/mapper.h"

#include "taskir/uses.h"

#include <stdlib.h>
#include <string.h>

static bool is_axon(const Chip *c, const Block *b)
{
    const ChipPrim *p = b ? chip_prim_for(c, b->type) : NULL;
    return p && p->unit == UNIT_AXON && bt_info(b->type)->kind == BK_COMPUTE;
}

/* Does S (an SI) have a writer on the Axon unit? */
static bool axon_written(const Graph *g, const GraphUses *u, const Chip *c, uint32_t s)
{
    const BlockUses *bu = &u->blocks[s];
    for (uint32_t k = 0; k < bu->n_in_edges; k++)
        if (is_axon(c, graph_block(g, g->edges[bu->in_edges[k]]->src)))
            return true;
    return false;
}

/* Inserts the Soma copy after S and moves the edges of list[0..n) (edge ids, S -> an Axon
 * reader) to the copy. */
static Status insert_copy(Graph *g, Block *s, const int32_t *list, uint32_t n, Diag *d)
{
    Block *cmp = graph_clone_block(g, s, "soma");
    Block *out = graph_clone_block(g, s, "soma.out");
    if (!cmp || !out)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
    /* the clone is an SI; make cmp the CCMPB of the same (y, x, f) */
    cmp->type = BT_CCMPB;
    cmp->data = NULL;
    cmp->prec = PR_INT_32;
    cmp->has_prec = true;
    cmp->attrs = NULL;
    cmp->n_attrs = cmp->cap_attrs = 0;
    cmp->in = cmp->out = NULL;
    cmp->n_in = cmp->cap_in = cmp->n_out = cmp->cap_out = 0;
    cmp->bias_type = BIAS_ABSENT;
    int32_t keep[3] = {s->shape.d[D_Y], s->shape.d[D_X], s->shape.d[D_F]};
    memset(cmp->shape.d, 0, sizeof cmp->shape.d);
    cmp->shape.d[D_Y] = keep[0];
    cmp->shape.d[D_X] = keep[1];
    cmp->shape.d[D_F] = keep[2];
    cmp->has_shape = true;
    out->prec = PR_INT_32;
    out->has_prec = true;
    out->data = NULL;
    if (!blk_set_attr(g, cmp, AT_CMP, INT32_MIN))
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
    for (uint32_t i = 0; i < n; i++) {
        Edge *e = graph_edge(g, list[i]);
        if (!e || !graph_retarget_edge(g, e, true, out, 0))
            return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
    }
    if (!graph_connect(g, s, 0, cmp, 0) || !graph_connect(g, cmp, 0, out, 0))
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
    return ST_OK;
}

Status mapper_rewrite(Graph *g, const Chip *c, uint32_t *n_rewrites, Diag *d)
{
    *n_rewrites = 0;
    GraphUses u;
    if (!graph_uses(g, &u))
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
    uint32_t nb = g->n_blocks;
    int32_t *list = malloc(((size_t)g->n_edges + 1) * sizeof *list);
    /* collect first (the index goes stale once the graph changes): per SI, its edges */
    int32_t *todo_block = malloc(((size_t)nb + 1) * sizeof *todo_block);
    uint32_t *todo_start = malloc(((size_t)nb + 2) * sizeof *todo_start);
    Status st = ST_OK;
    if (!list || !todo_block || !todo_start) {
        graph_uses_finish(&u);
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
        goto out;
    }
    uint32_t nt = 0, ne = 0;
    for (uint32_t i = 0; i < nb; i++) {
        const Block *s = g->blocks[i];
        if (s->type != BT_SI || !axon_written(g, &u, c, i))
            continue;
        const BlockUses *bu = &u.blocks[i];
        uint32_t first = ne;
        for (uint32_t k = 0; k < bu->n_out_edges; k++) {
            const Edge *e = g->edges[bu->out_edges[k]];
            const Block *r = graph_block(g, e->dst);
            if (is_axon(c, r) && r->type != BT_CADD)
                list[ne++] = e->id;
        }
        if (ne > first) {
            todo_block[nt] = s->id;
            todo_start[nt++] = first;
        }
    }
    todo_start[nt] = ne;
    graph_uses_finish(&u);
    for (uint32_t k = 0; k < nt && st == ST_OK; k++) {
        Block *s = graph_block(g, todo_block[k]);
        st = insert_copy(g, s, list + todo_start[k], todo_start[k + 1] - todo_start[k], d);
    }
    if (st == ST_OK && nt && !graph_compact(g))
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
    if (st == ST_OK && graph_oom(g))
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
    *n_rewrites = nt;
out:
    free(list);
    free(todo_block);
    free(todo_start);
    return st;
}
