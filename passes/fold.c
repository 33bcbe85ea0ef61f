/* fold.c: a flatten that only fully connected layers read, folded into their weights
 * (docs/passes.md, "fold").
 *
 * Requires nothing; guarantees nothing new; invalidates nothing (blocks, edges and groups
 * stay: only an edge's steps and weight values change).
 *
 * A CVM multiplies its vector by its weights and sums: out[f] = sum_i W[f][i] v[i], a sum
 * whose order does not matter (int32 wrap, docs/semantics.md). So when a storage block S
 * holds a permutation of its writer's map (one edge whose steps move every value once, a
 * channel-major flatten say) and only CVMs read S, each all of it without steps and each
 * with weights of its own (an SWFC with data that no other block reads), S may as well hold
 * the map in C order: the edge's steps become one RESHAPE in C order and each CVM's weight
 * column i moves to where value i of the map now lies. The outputs are the same bit for bit.
 *
 * Why: the split pass cuts a CVM along r into ranges of the vector; in C order a range is a
 * run of whole pixels, which the writer's pieces send as they lie (runs of bytes), where a
 * channel-major range takes one channel of every pixel, a byte a packet header on the chip
 * (docs/backend.md, "Rearrangements"; random_9: a 28 x 28 x 10 map flattened into two FCs
 * took 2155 headers in a phase that holds 128).
 */
#include "passes/pass.h"
#include "taskir/edge_map.h"
#include "taskir/rearrange.h"
#include "taskir/uses.h"

#include <stdlib.h>

/* The SWFC with data that feeds CVM c's weight cluster (1) whole, without steps, and
 * nothing else, with dims [nf][n]: its position, else -1. */
static long own_weights(const Graph *g, const GraphUses *u, uint32_t c, int64_t n)
{
    const BlockUses *cu = &u->blocks[c];
    for (uint32_t j = 0; j < cu->n_in_edges; j++) {
        const Edge *e = g->edges[cu->in_edges[j]];
        const IfaceUse *iu = uses_find(u, c, true, e->id);
        if (!iu || iu->cluster != 1)
            continue;
        long w = graph_block_pos(g, e->src);
        const Block *wb = w >= 0 ? g->blocks[w] : NULL;
        const IfaceUse *ou = w >= 0 ? uses_find(u, (uint32_t)w, false, e->id) : NULL;
        if (!wb || !ou || wb->type != BT_SWFC || !wb->data || e->n_re ||
            u->blocks[w].n_out_edges != 1 || u->blocks[w].n_in_edges != 0 ||
            !iface_whole(&g->blocks[c]->in[1].ifaces[iu->iface]) ||
            !iface_whole(&wb->out[ou->cluster].ifaces[ou->iface]))
            return -1;
        const Tensor *t = wb->data;
        if (t->n_dims != 2 || t->dims[1] != n || t->dims[0] < 1 || (!t->i32 && !t->i8) ||
            (int64_t)t->n_i32 != (int64_t)t->dims[0] * n)
            return -1;
        return w;
    }
    return -1;
}

/* Whether storage block s (position) may be folded: its one in-edge moves each of its
 * writer's values once (map: s's element i takes the writer's value map[i]), and only CVMs
 * read it, each all of it through an edge without steps, with weights of their own. */
static bool foldable(const Graph *g, const GraphUses *u, uint32_t s, int32_t **map, int64_t *n,
                     Diag *d, Status *st)
{
    const Block *b = g->blocks[s];
    const BlockUses *bu = &u->blocks[s];
    *map = NULL;
    if (bt_info(b->type)->kind != BK_STORAGE || b->data || bu->n_in_edges != 1 ||
        bu->n_out_edges == 0)
        return false;
    const Edge *e = g->edges[bu->in_edges[0]];
    const IfaceUse *iu = uses_find(u, s, true, e->id);
    int32_t cd[TIR_CDIMS], wd[TIR_CDIMS];
    long w = graph_block_pos(g, e->src);
    const IfaceUse *wu = w >= 0 ? uses_find(u, (uint32_t)w, false, e->id) : NULL;
    if (!e->n_re || !iu || !wu || !iface_whole(&b->in[iu->cluster].ifaces[iu->iface]) ||
        !blk_cluster_dims(b, true, iu->cluster, cd) ||
        !blk_cluster_dims(g->blocks[w], false, wu->cluster, wd) ||
        ra_edge_keeps_order(g, u, e))
        return false;
    int64_t vol = 1, wvol = 1;
    for (int i = 0; i < TIR_CDIMS; i++) {
        vol *= cd[i] > 0 ? cd[i] : 1;
        wvol *= wd[i] > 0 ? wd[i] : 1;
    }
    if (vol != wvol || vol > INT32_MAX)
        return false;
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        const Edge *o = g->edges[bu->out_edges[j]];
        long r = graph_block_pos(g, o->dst);
        const IfaceUse *ru = r >= 0 ? uses_find(u, (uint32_t)r, true, o->id) : NULL;
        const IfaceUse *su = uses_find(u, s, false, o->id);
        for (uint32_t k = 0; k < j; k++) /* each CVM's weights permuted once */
            if (g->edges[bu->out_edges[k]]->dst == o->dst)
                return false;
        if (!ru || !su || o->n_re || g->blocks[r]->type != BT_CVM || ru->cluster != 0 ||
            !iface_whole(&g->blocks[r]->in[0].ifaces[ru->iface]) ||
            !iface_whole(&b->out[su->cluster].ifaces[su->iface]) ||
            own_weights(g, u, (uint32_t)r, vol) < 0)
            return false;
    }
    int32_t *m = malloc((size_t)vol * sizeof *m);
    bool *seen = calloc((size_t)vol, sizeof *seen);
    if (!m || !seen) {
        free(m);
        free(seen);
        *st = diag_add(d, ST_RUNTIME, "oom", NULL, "fold: out of memory");
        return false;
    }
    Diag quiet; /* an edge whose steps do not decode is no fold, and no finding here */
    diag_init(&quiet, NULL);
    bool ok = edge_element_map(g, u, e, m, vol, &quiet) == ST_OK;
    diag_finish(&quiet);
    for (int64_t i = 0; ok && i < vol; i++) {
        ok = m[i] >= 0 && m[i] < vol && !seen[m[i]];
        if (ok)
            seen[m[i]] = true;
    }
    free(seen);
    if (!ok) {
        free(m);
        return false;
    }
    *map = m;
    *n = vol;
    return true;
}

/* Block w's weights ([nf][n]) with column i moved to column map[i]: a new tensor (the old
 * one may be shared, graph.h blk_set_data_view). false when out of memory. */
static bool permute_columns(Graph *g, Block *w, const int32_t *map, int64_t n)
{
    const Tensor *t = w->data;
    int64_t nf = t->dims[0];
    int32_t dims[2] = {t->dims[0], t->dims[1]};
    int64_t *v = malloc((size_t)(nf * n) * sizeof *v);
    if (!v)
        return false;
    for (int64_t f = 0; f < nf; f++)
        for (int64_t i = 0; i < n; i++)
            v[f * n + map[i]] = tensor_i32_at(t, (size_t)(f * n + i));
    PrecisionId p = t->has_prec ? t->prec : blk_prec(w);
    bool ok = blk_set_data(g, w, p, dims, 2, v, (uint64_t)(nf * n));
    free(v);
    return ok;
}

Status pass_fold(Graph *g, const PassOptions *o, Diag *d)
{
    (void)o;
    GraphUses u;
    if (!graph_uses(g, &u))
        return diag_add(d, ST_RUNTIME, "oom", NULL, "fold: out of memory");
    Status st = ST_OK;
    for (uint32_t s = 0; s < g->n_blocks && st == ST_OK; s++) {
        int32_t *map;
        int64_t n;
        if (!foldable(g, &u, s, &map, &n, d, &st))
            continue;
        const BlockUses *bu = &u.blocks[s];
        for (uint32_t j = 0; j < bu->n_out_edges && st == ST_OK; j++) {
            long r = graph_block_pos(g, g->edges[bu->out_edges[j]]->dst);
            long w = own_weights(g, &u, (uint32_t)r, n);
            if (!permute_columns(g, g->blocks[w], map, n))
                st = diag_add(d, ST_RUNTIME, "oom", NULL, "fold: out of memory");
        }
        free(map);
        /* every value where the map's C order puts it: one RESHAPE without p */
        Edge *e = g->edges[bu->in_edges[0]];
        e->re[0] = (Rearrange){RT_RESHAPE, NULL, 0};
        e->n_re = 1;
    }
    graph_uses_finish(&u);
    return st;
}
