/* rewrite.c: the mapper's rewrites of a graph before it is planned (docs/mapper.md,
 * "Rewrites"): what a block needs that no primitive does, made into what the chip runs,
 * keeping the graph's outputs bit for bit.
 *
 * Axon into Axon (CHIP.md §1: an Axon's int32 output feeds another Axon only into CADD):
 * when SI block S, written by an Axon block, is read by an Axon block other than CADD, each
 * such read goes through Soma copies of the box it reads instead: S -[box]-> CCMPB
 * "<S>/soma.eN.fK" -> SI "<S>/soma.eN.fK.out" -> the reader (N: the edge's id, K: the first
 * channel of the slice). The CCMPB has a
 * 1 x 1 window, no shift, floor CMP = INT32_MIN and an INT_32 output: clip(x >> 0,
 * INT32_MIN, 2^31 - 1) = x, the Soma's plain move (P05 runs it; the backend may use P06).
 * A copy per read, of the read box only, cut along f into slices small enough that each
 * copy fits a core beside the slice of S it reads (insert_copy); the copied SIs join the
 * reader's group. Readers that are Soma blocks or CADD keep reading S. Storage of
 * other types (SIC, SIFC) written by an Axon is left alone: prim.c reports it
 * [map.prim.axon].
 * Requires a verified, compacted graph. Guarantees: compacted again, verified by the caller.
 */
#include "mapper/rewrite.h"

#include "taskir/uses.h"

#include <stdio.h>
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

long map_group_of(const Graph *g, int32_t id)
{
    for (uint32_t k = 0; k < g->n_groups; k++)
        for (uint32_t i = 0; i < g->groups[k].n_block_ids; i++)
            if (g->groups[k].block_ids[i] == id)
                return (long)k;
    return -1;
}

bool map_group_add(Graph *g, long k, int32_t id)
{
    if (k < 0)
        return true;
    Group *gr = &g->groups[k];
    int32_t *ids = arena_grow(g->arena, gr->block_ids, gr->n_block_ids,
                              (size_t)gr->n_block_ids + 1, sizeof *ids);
    if (!ids)
        return false;
    ids[gr->n_block_ids++] = id;
    gr->block_ids = ids;
    return true;
}

/* Drops storage block s from group k when no compute block of the group reads it any more
 * (its reader now reads the copies). */
static void group_drop_unread(Graph *g, long k, const Block *s)
{
    if (k < 0)
        return;
    Group *gr = &g->groups[k];
    for (uint32_t i = 0; i < g->n_edges; i++) {
        const Edge *e = g->edges[i];
        if (e->removed || e->src != s->id)
            continue;
        for (uint32_t j = 0; j < gr->n_block_ids; j++)
            if (gr->block_ids[j] == e->dst)
                return;
    }
    uint32_t n = 0;
    for (uint32_t j = 0; j < gr->n_block_ids; j++)
        if (gr->block_ids[j] != s->id)
            gr->block_ids[n++] = gr->block_ids[j];
    gr->n_block_ids = n;
}

Iface *map_find_iface(Block *b, bool input, int32_t id, uint32_t *cluster)
{
    uint32_t n = input ? b->n_in : b->n_out;
    for (uint32_t c = 0; c < n; c++) {
        Cluster *cl = input ? &b->in[c] : &b->out[c];
        for (uint32_t k = 0; k < cl->n_ifaces; k++)
            if (cl->ifaces[k].edge_id == id) {
                *cluster = c;
                return &cl->ifaces[k];
            }
    }
    return NULL;
}

Block *map_made_from(Graph *g, const Block *s, const char *suffix, BlockType t,
                     PrecisionId prec, int32_t y, int32_t x, int32_t f)
{
    Block *b = graph_clone_block(g, s, suffix);
    if (!b)
        return NULL;
    b->type = t;
    b->data = NULL;
    b->prec = prec;
    b->has_prec = true;
    b->attrs = NULL;
    b->n_attrs = b->cap_attrs = 0;
    b->in = b->out = NULL;
    b->n_in = b->cap_in = b->n_out = b->cap_out = 0;
    b->bias_type = BIAS_ABSENT;
    memset(b->shape.d, 0, sizeof b->shape.d);
    b->shape.minus_one = 0;
    b->shape.d[D_Y] = y;
    b->shape.d[D_X] = x;
    b->shape.d[D_F] = f;
    b->has_shape = true;
    return b;
}

const MapThrough map_through_soma_copy = {BT_CCMPB, "soma", AT_CMP, INT32_MIN, false, false};

/* Puts blocks of type t->type (Soma copies) on the box that edge id reads from S between S
 * and the edge's reader B: S -[box slice k]-> T -> SI_k -> B (into the slice's place in B's
 * box). The box is cut
 * along f into as few slices as keep each copy (the slice of S it reads and its int32
 * output buffer) within half a core's budget, so that the copies spread over cores as the
 * split pass's pieces do (an edge that rearranges is copied whole). The SI_k join B's group,
 * and S leaves it when B was its only reader there. */
Status map_insert_through(Graph *g, Block *s, int32_t id, uint32_t budget,
                          const MapThrough *t, Diag *d)
{
    Edge *e = graph_edge(g, id);
    Block *b = e ? graph_block(g, e->dst) : NULL;
    uint32_t scl = 0, bcl = 0;
    const Iface *fs = map_find_iface(s, false, id, &scl);
    const Iface *fb = b ? map_find_iface(b, true, id, &bcl) : NULL;
    int32_t pos[TIR_CDIMS] = {0}, size[TIR_CDIMS], dpos[TIR_CDIMS] = {0}, dsize[TIR_CDIMS];
    if (!fs || !fb || !blk_cluster_dims(s, false, scl, size) ||
        !blk_cluster_dims(b, true, bcl, dsize))
        return diag_add(d, ST_RUNTIME, "map.internal", NULL,
                        "edge %d has no interface at block %d or its reader", id, s->id);
    if (fs->has_pos)
        memcpy(pos, fs->pos.d, sizeof pos);
    if (fs->has_size)
        memcpy(size, fs->size.d, sizeof size);
    if (fb->has_pos)
        memcpy(dpos, fb->pos.d, sizeof dpos);
    if (fb->has_size)
        memcpy(dsize, fb->size.d, sizeof dsize);
    int64_t px = (int64_t)(size[0] > 0 ? size[0] : 1) * (size[1] > 0 ? size[1] : 1);
    int64_t f = size[2] > 0 ? size[2] : 1;
    int64_t per_f = px * ((pr_info(blk_prec(s))->bits + 7) / 8 + 4);
    int64_t k = per_f * f / (budget / 2 ? budget / 2 : 1) + 1, slice = (f + k - 1) / k;
    if (slice > 32)
        slice = (slice + 31) / 32 * 32;
    if (e->n_re || dsize[2] != size[2] || budget == 0)
        slice = f; /* a rearranging edge, or no budget: one copy of the whole box */
    long grp = map_group_of(g, b->id);
    int32_t reader = b->id;
    graph_remove_edge(g, e);
    for (int64_t f0 = 0; f0 < f; f0 += slice) {
        int32_t fk = (int32_t)(f - f0 < slice ? f - f0 : slice);
        char suffix[48];
        snprintf(suffix, sizeof suffix, "%s.e%d.f%lld", t->tag, id, (long long)f0);
        Block *cmp = map_made_from(g, s, suffix, t->type, PR_INT_32,
                                   s->shape.d[D_Y] ? size[0] : 0,
                                   s->shape.d[D_X] ? size[1] : 0, fk);
        snprintf(suffix, sizeof suffix, "%s.e%d.f%lld.out", t->tag, id, (long long)f0);
        Block *out = map_made_from(g, s, suffix, BT_SI, t->out_int32 ? PR_INT_32 : blk_prec(s),
                                   s->shape.d[D_Y] ? size[0] : 0,
                                   s->shape.d[D_X] ? size[1] : 0, fk);
        b = graph_block(g, reader); /* blocks never move; looked up again for clarity */
        int32_t sp[TIR_CDIMS], ss[TIR_CDIMS], tp[TIR_CDIMS], ts[TIR_CDIMS];
        memcpy(sp, pos, sizeof sp);
        memcpy(ss, size, sizeof ss);
        memcpy(tp, dpos, sizeof tp);
        memcpy(ts, dsize, sizeof ts);
        sp[2] += (int32_t)f0;
        ss[2] = fk;
        tp[2] += (int32_t)f0;
        ts[2] = fk;
        if (cmp && t->twice) { /* CADD: the box twice, a constant bias (t->attr) */
            cmp->shape.n_branch = 2;
            cmp->bias_type = BIAS_CONSTANT;
        }
        if (!cmp || !out || !blk_set_attr(g, cmp, t->attr, t->value) ||
            !graph_connect_box(g, s, scl, sp, ss, cmp, 0, NULL, NULL) ||
            (t->twice && !graph_connect_box(g, s, scl, sp, ss, cmp, 1, NULL, NULL)) ||
            !graph_connect(g, cmp, 0, out, 0) ||
            !graph_connect_box(g, out, 0, NULL, NULL, b, bcl, tp, ts) ||
            !map_group_add(g, grp, out->id))
            return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
    }
    group_drop_unread(g, grp, s);
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
            st = map_insert_through(g, s, list[j], c->core_budget_bytes,
                                    &map_through_soma_copy, d);
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
