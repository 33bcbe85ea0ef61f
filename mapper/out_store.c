/* out_store.c: a result's store before the OUTPUTs in its writer's shape (docs/mapper.md,
 * "Algorithm").
 *
 * A lowering writes a flatten or reshape before an OUTPUT as a RESHAPE in C order on the edge
 * into the result's storage block S (CVS (1, 86, 93) -RESHAPE-> SI (7998, 1, 1) -> OUTPUT):
 * S then holds 7998 one-channel pixels, each in a row of its own in a core's memory (32 bytes
 * for INT_8: 256 KB), where the writer's 86 pixels of 93 channels take 8 KB (33 KB as
 * int32), and no core holds S beside its writer (map.mem.group). The values of S in C order
 * are the writer's box in C order, so S may hold them in that box's shape instead, the
 * RESHAPE moving to the edges from S to the OUTPUTs, which read the same values in the same
 * C order (their own shapes stay: a batch's outputs keep theirs). S takes INT_32 (storage
 * keeps whatever its writers give, so the values stay), one value a word, from which the
 * code generator's dynamic output block reads each value the OUTPUT's pixel order asks for.
 * Done when S (an SI) holds no data, its one writer's edge keeps the C order
 * (ra_edge_keeps_order) into the whole of S from a box of y, x, f only, only OUTPUTs read
 * it, each whole and keeping the order, and S, which takes more than half a core's budget
 * (bbox_storage_bytes, as the mapper lays it out), takes fewer bytes so. Requires a verified
 * graph; the caller verifies it again.
 */
#include "mapper/mapper.h"
#include "mapper/rewrite.h"

#include "taskir/blockbox.h"
#include "taskir/rearrange.h"

bool map_flatten_box(const Graph *g, const GraphUses *u, const Edge *e, int32_t box[3])
{
    EdgeEnds en;
    char why[8];
    if (!e->n_re || !edge_ends(g, u, e, &en, why, sizeof why) || !ra_edge_keeps_order(g, u, e))
        return false;
    for (int d = D_R; d < TIR_CDIMS; d++)
        if (en.src_box[d] > 1)
            return false;
    for (int d = D_Y; d <= D_F; d++)
        box[d] = en.src_box[d] > 0 ? en.src_box[d] : 1;
    return true;
}

/* The writer's box extents (y, x, f) when S at pos may take them (the conditions above,
 * but for the bytes); false otherwise. */
static bool movable(const Graph *g, const GraphUses *u, uint32_t pos, int32_t box[3])
{
    const Block *s = g->blocks[pos];
    const BlockUses *bu = &u->blocks[pos];
    if (s->type != BT_SI || s->data || s->n_in != 1 || s->in[0].n_ifaces != 1 ||
        !iface_whole(&s->in[0].ifaces[0]) || bu->n_in_edges != 1 || !bu->n_out_edges)
        return false;
    const Edge *e = g->edges[bu->in_edges[0]];
    const Block *w = graph_block(g, e->src);
    if (!w || bt_info(w->type)->kind != BK_COMPUTE || !map_flatten_box(g, u, e, box))
        return false;
    for (uint32_t k = 0; k < bu->n_out_edges; k++) {
        const Edge *o = g->edges[bu->out_edges[k]];
        const Block *r = graph_block(g, o->dst);
        const IfaceUse *iu = uses_edge_end(g, u, o, true, NULL);
        if (!r || r->type != BT_OUTPUT || !iu || iu->cluster >= s->n_out ||
            iu->iface >= s->out[iu->cluster].n_ifaces ||
            !iface_whole(&s->out[iu->cluster].ifaces[iu->iface]) || !ra_edge_keeps_order(g, u, o))
            return false;
    }
    return true;
}

/* S (at pos) takes the extents box and INT_32; its edge in loses its steps, its edges out get
 * one RESHAPE in C order. false when out of memory. */
static bool move_shape(Graph *g, const GraphUses *u, uint32_t pos, const int32_t box[3])
{
    Block *s = g->blocks[pos];
    const BlockUses *bu = &u->blocks[pos];
    for (int d = D_Y; d <= D_F; d++)
        s->shape.d[d] = box[d];
    for (uint32_t k = 0; k < s->n_in; k++)
        s->in[k].has_shape = false;
    for (uint32_t k = 0; k < s->n_out; k++)
        s->out[k].has_shape = false;
    s->prec = PR_INT_32;
    s->has_prec = true;
    g->edges[bu->in_edges[0]]->n_re = 0;
    for (uint32_t k = 0; k < bu->n_out_edges; k++) {
        Edge *o = g->edges[bu->out_edges[k]];
        o->n_re = 0;
        if (!edge_add_rearrange(g, o, RT_RESHAPE, 0))
            return false;
    }
    return true;
}

/* S at pos (movable into box) in box's shape and INT_32: its bytes then, or -1. */
static int64_t bytes_in(Graph *g, const Chip *c, uint32_t pos, const int32_t box[3], bool *oom)
{
    Block *s = g->blocks[pos];
    int32_t old[3];
    PrecisionId p = s->prec;
    bool hp = s->has_prec;
    s->prec = PR_INT_32;
    s->has_prec = true;
    for (int k = D_Y; k <= D_F; k++) {
        old[k] = s->shape.d[k];
        s->shape.d[k] = box[k];
    }
    GraphUses u;
    int64_t n = -1;
    *oom = !graph_uses(g, &u);
    if (!*oom) {
        n = bbox_storage_bytes(c, g, &u, pos);
        graph_uses_finish(&u);
    }
    for (int k = D_Y; k <= D_F; k++)
        s->shape.d[k] = old[k];
    s->prec = p;
    s->has_prec = hp;
    return n;
}

Status mapper_out_store(Graph *g, const Chip *c, uint32_t *n_rewrites, Diag *d)
{
    *n_rewrites = 0;
    GraphUses u;
    if (!graph_uses(g, &u))
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        int32_t box[3];
        if (!movable(g, &u, i, box))
            continue;
        int64_t before = bbox_storage_bytes(c, g, &u, i);
        if (before <= (int64_t)c->core_budget_bytes / 2)
            continue; /* it fits beside its writer: left as the lowering wrote it */
        graph_uses_finish(&u);
        bool oom = false;
        int64_t after = bytes_in(g, c, i, box, &oom);
        if (oom || !graph_uses(g, &u))
            return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
        if (after < 0 || before < 0 || after >= before)
            continue;
        if (!move_shape(g, &u, i, box)) {
            graph_uses_finish(&u);
            return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory rewriting the graph");
        }
        (*n_rewrites)++;
    }
    graph_uses_finish(&u);
    return ST_OK;
}
