/* split_edge.c: the per-destination limit of fit mode (split.h, docs/passes.md "split"). An
 * edge into a storage block (or a compute block's input fed directly by a compute block)
 * that delivers more than one destination may receive in a phase (dest_bytes_per_phase:
 * its destination box's elements in the destination's precision) is replaced by edges over
 * parts of that box: the box is cut along its first used dim into as many parts as
 * the bytes need (a part of one row too large is cut along the next dim), each part fed as
 * the edge fed it (the same sub-box of the source for an edge without rearrangement, else
 * the part of its element map, encoded again). An Axon block's edge into the storage block
 * that its Soma reads stays whole (split_soma.c: fused, it stays on the core). The edges replaced are removed at the end,
 * so the use index built at the start serves for all of them. */
#include "passes/split.h"
#include "taskir/diag_block.h"
#include "taskir/edge_map.h"
#include "taskir/rearrange.h"

#include <stdlib.h>
#include <string.h>

typedef struct EdgeCut {
    Graph *g;
    Diag *d;
    const Edge *e;
    EdgeEnds en;
    Block *src, *dst;
    const int32_t *map;      /* element map over the destination box; NULL: a plain edge */
    int64_t limit;
} EdgeCut;

static int64_t vol(const int32_t *box)
{
    int64_t v = 1;
    for (int i = 0; i < TIR_CDIMS; i++)
        if (box[i] > 0)
            v *= box[i];
    return v;
}

static int64_t bytes_of(const Block *dst, const int32_t *box)
{
    int64_t bits = pr_info(blk_prec(dst))->bits;
    return (vol(box) * bits + 7) / 8;
}

static Status oom(Diag *d)
{
    return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
}

/* Feeds part p (destination cluster coordinates) of the edge's destination box. */
static Status emit(const EdgeCut *x, const SplitBox *p)
{
    const EdgeEnds *en = &x->en;
    if (!x->map) {
        int32_t spos[TIR_CDIMS], ssize[TIR_CDIMS];
        for (int i = 0; i < TIR_CDIMS; i++) {
            bool cut = p->size[i] > 0;
            spos[i] = en->src_pos[i] + (cut ? p->pos[i] - en->dst_pos[i] : 0);
            ssize[i] = cut ? p->size[i] : en->src_box[i];
        }
        if (!graph_connect_box(x->g, x->src, en->src_cluster, spos, ssize, x->dst,
                               en->dst_cluster, p->pos, p->size))
            return oom(x->d);
        return ST_OK;
    }
    int64_t n = vol(p->size);
    int32_t *esrc = calloc((size_t)n, sizeof *esrc), *eoff = malloc((size_t)n * sizeof *eoff);
    int64_t *idx = malloc((size_t)n * sizeof *idx);
    if (!esrc || !eoff || !idx) {
        free(esrc), free(eoff), free(idx);
        return oom(x->d);
    }
    SplitBox db;
    memcpy(db.pos, en->dst_pos, sizeof db.pos);
    memcpy(db.size, en->dst_box, sizeof db.size);
    split_box_index(&db, p, idx);
    for (int64_t j = 0; j < n; j++)
        eoff[j] = x->map[idx[j]];
    free(idx);
    char where[160];
    blk_describe(x->dst, where, sizeof where);
    EncCtx ec = {.g = x->g, .d = x->d, .where = where, .name = x->dst->name};
    EncSrc es = {.b = x->src};
    memcpy(es.cd, en->src_cdims, sizeof es.cd);
    Status st = ST_OK;
    for (int64_t j = 0; j < n && st == ST_OK; j++)
        if (eoff[j] < 0)
            st = diag_edge(x->d, ST_LOGIC, "pass.split.edge", x->e->id,
                           "its rearrangement fills in zeros; a cut through it is not "
                           "supported");
    if (st == ST_OK)
        st = enc_map(&ec, x->dst, en->dst_cluster, p->pos, p->size, &es, esrc, eoff, n);
    free(esrc), free(eoff);
    return st;
}

/* Cuts part p until each piece is within the limit. */
static Status chunk(const EdgeCut *x, const SplitBox *p)
{
    int64_t b = bytes_of(x->dst, p->size);
    if (b <= x->limit)
        return emit(x, p);
    int j = 0;
    while (j < TIR_CDIMS && p->size[j] <= 1)
        j++;
    if (j == TIR_CDIMS) /* one element over the limit: cannot happen with a sane chip */
        return emit(x, p);
    int64_t m = (b + x->limit - 1) / x->limit;
    if (m > p->size[j])
        m = p->size[j];
    int32_t bounds[2];
    for (int64_t k = 0; k < m; k++) {
        bounds[0] = (int32_t)(p->size[j] * k / m);
        bounds[1] = (int32_t)(p->size[j] * (k + 1) / m);
        SplitBox q = *p;
        q.pos[j] = p->pos[j] + bounds[0];
        q.size[j] = bounds[1] - bounds[0];
        Status st = chunk(x, &q);
        if (st != ST_OK)
            return st;
    }
    return ST_OK;
}

static bool plain(const Edge *e)
{
    for (uint32_t i = 0; i < e->n_re; i++)
        if (e->re[i].type != RT_IDENTITY)
            return false;
    return true;
}

Status split_edges(Graph *g, const Chip *c, Diag *d)
{
    GraphUses u;
    if (!graph_uses(g, &u))
        return oom(d);
    uint32_t n_edges = g->n_edges;
    bool *gone = calloc(n_edges ? n_edges : 1, sizeof *gone);
    Status st = gone ? ST_OK : oom(d);
    for (uint32_t i = 0; i < n_edges && st == ST_OK; i++) {
        const Edge *e = g->edges[i];
        EdgeCut x = {.g = g, .d = d, .e = e, .limit = c->dest_bytes_per_phase};
        char why[256];
        if (!edge_ends(g, &u, e, &x.en, why, sizeof why))
            continue; /* the verifier reports it */
        x.src = graph_block(g, e->src);
        x.dst = graph_block(g, e->dst);
        BlockKind sk = bt_info(x.src->type)->kind, dk = bt_info(x.dst->type)->kind;
        if (!(dk == BK_STORAGE || (dk == BK_COMPUTE && sk == BK_COMPUTE)) ||
            bytes_of(x.dst, x.en.dst_box) <= x.limit || split_soma_edge(c, g, &u, e))
            continue;
        int32_t *map = NULL;
        if (!plain(e)) {
            int64_t n = vol(x.en.dst_box);
            if (!(map = malloc((size_t)n * sizeof *map))) {
                st = oom(d);
                break;
            }
            st = edge_element_map(g, &u, e, map, n, d);
            x.map = map;
        }
        SplitBox whole;
        memcpy(whole.pos, x.en.dst_pos, sizeof whole.pos);
        memcpy(whole.size, x.en.dst_box, sizeof whole.size);
        if (st == ST_OK)
            st = chunk(&x, &whole);
        free(map);
        gone[i] = true;
    }
    Edge **es = st == ST_OK ? malloc((n_edges ? n_edges : 1) * sizeof *es) : NULL;
    size_t ne = 0;
    if (st == ST_OK && !es)
        st = oom(d);
    for (uint32_t i = 0; i < n_edges && es; i++)
        if (gone[i])
            es[ne++] = g->edges[i];
    if (st == ST_OK)
        graph_remove_edges(g, es, ne);
    free(es);
    free(gone);
    graph_uses_finish(&u);
    if (!graph_compact(g) && st == ST_OK)
        st = oom(d);
    return st;
}
