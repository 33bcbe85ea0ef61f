/* rewrite.c: the mapper's rewrites of a graph before it is planned (docs/mapper.md,
 * "Rewrites"): what a block needs that no primitive does, made into what the chip runs,
 * keeping the graph's outputs bit for bit.
 *
 * Axon into Axon (CHIP.md §1: an Axon's int32 output feeds another Axon only into CADD):
 * when SI block S, written by an Axon block, is read by an Axon block other than CADD, each
 * such read goes through a Soma copy of the box it reads instead: S -[box]-> CCMPB
 * "<S>/soma.eN" -> SI "<S>/soma.eN.out" -> the reader (N: the edge's id). The CCMPB has a
 * 1 x 1 window, no shift, floor CMP = INT32_MIN and an INT_32 output: clip(x >> 0,
 * INT32_MIN, 2^31 - 1) = x, the Soma's plain move (P05 runs it; the backend may use P06).
 * A copy per read, of the read box only, in the reader's group (the reader's core holds S
 * already; the copy adds the box). Readers that are Soma blocks or CADD keep reading S. Storage of
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

/* The interface of edge id at block b's output clusters, or NULL. */
static Iface *out_iface(Block *b, int32_t id)
{
    for (uint32_t c = 0; c < b->n_out; c++)
        for (uint32_t k = 0; k < b->out[c].n_ifaces; k++)
            if (b->out[c].ifaces[k].edge_id == id)
                return &b->out[c].ifaces[k];
    return NULL;
}

/* Adds blocks a and b to the group that holds block id, if one does. false when out of
 * memory. */
static bool join_group(Graph *g, int32_t id, int32_t a, int32_t b)
{
    for (uint32_t k = 0; k < g->n_groups; k++) {
        Group *gr = &g->groups[k];
        for (uint32_t i = 0; i < gr->n_block_ids; i++) {
            if (gr->block_ids[i] != id)
                continue;
            int32_t *ids = arena_grow(g->arena, gr->block_ids, gr->n_block_ids,
                                      (size_t)gr->n_block_ids + 2, sizeof *ids);
            if (!ids)
                return false;
            ids[gr->n_block_ids] = a;
            ids[gr->n_block_ids + 1] = b;
            gr->block_ids = ids;
            gr->n_block_ids += 2;
            return true;
        }
    }
    return true;
}

/* Puts a Soma copy of the box that edge id reads from S between S and the edge's reader:
 * S -[box]-> CCMPB -> SI -> reader (the edge, now from the whole new SI). The two new blocks
 * join the reader's group: the copy runs on the reader's core, which holds S already. */
static Status insert_copy(Graph *g, Block *s, int32_t id, Diag *d)
{
    const Iface *f = out_iface(s, id);
    Edge *e = graph_edge(g, id);
    int32_t pos[TIR_CDIMS] = {0}, size[TIR_CDIMS];
    if (!f || !e || !blk_cluster_dims(s, false, 0, size))
        return diag_add(d, ST_RUNTIME, "map.internal", NULL,
                        "edge %d has no interface at block %d", id, s->id);
    if (f->has_pos)
        memcpy(pos, f->pos.d, sizeof pos);
    if (f->has_size)
        memcpy(size, f->size.d, sizeof size);
    char suffix[32];
    snprintf(suffix, sizeof suffix, "soma.e%d", id);
    Block *cmp = graph_clone_block(g, s, suffix);
    snprintf(suffix, sizeof suffix, "soma.e%d.out", id);
    Block *out = graph_clone_block(g, s, suffix);
    if (!cmp || !out)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
    /* both are clones of the SI: cmp becomes the CCMPB, both take the box's (y, x, f) */
    cmp->type = BT_CCMPB;
    cmp->data = NULL;
    cmp->prec = PR_INT_32;
    cmp->has_prec = true;
    cmp->attrs = NULL;
    cmp->n_attrs = cmp->cap_attrs = 0;
    cmp->in = cmp->out = NULL;
    cmp->n_in = cmp->cap_in = cmp->n_out = cmp->cap_out = 0;
    cmp->bias_type = BIAS_ABSENT;
    out->data = NULL;
    out->in = out->out = NULL;
    out->n_in = out->cap_in = out->n_out = out->cap_out = 0;
    Block *both[2] = {cmp, out};
    for (int k = 0; k < 2; k++) {
        memset(both[k]->shape.d, 0, sizeof both[k]->shape.d);
        both[k]->shape.minus_one = 0;
        both[k]->shape.d[D_Y] = s->shape.d[D_Y] ? size[0] : 0;
        both[k]->shape.d[D_X] = s->shape.d[D_X] ? size[1] : 0;
        both[k]->shape.d[D_F] = size[2];
        both[k]->has_shape = true;
    }
    if (!blk_set_attr(g, cmp, AT_CMP, INT32_MIN))
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
    Iface *moved = graph_retarget_edge(g, e, true, out, 0);
    if (!moved)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
    moved->has_pos = moved->has_size = false; /* the whole copy */
    if (!graph_connect_box(g, s, 0, pos, size, cmp, 0, NULL, NULL) ||
        !graph_connect(g, cmp, 0, out, 0) || !join_group(g, e->dst, cmp->id, out->id))
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
        for (uint32_t j = todo_start[k]; j < todo_start[k + 1] && st == ST_OK; j++)
            st = insert_copy(g, s, list[j], d);
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
