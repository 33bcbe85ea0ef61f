/* split_axis.c: cutting one compute block along one axis (split.h, docs/passes.md "split").
 *
 * Each piece is a clone of the block with the piece's shape and padding. Per input cluster:
 * a storage block that feeds it whole is cut to the part the piece reads (its data sliced,
 * or its own feeding restricted, split_feed.c) when the piece reads a part, shared when the
 * piece reads it all and it is fed by edges (an f cut's input), and copied when it holds
 * data the piece reads whole (weights on a y cut, a CLUT's table); a cluster fed some other
 * way is fed the piece's part directly. The block's output edges are re-routed from the
 * pieces; an r cut instead joins the pieces' int32 partial sums (each in an SI "<piece>/sum")
 * in a new CADD that takes the bias and the block's output edges. The storage blocks cut and the block are removed. */
#include "passes/split.h"
#include "taskir/diag_block.h"
#include "taskir/layout.h"
#include "taskir/rearrange.h"

#include <stdlib.h>
#include <string.h>

static Status oom(Diag *d)
{
    return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
}

static void clear_cluster_shapes(Block *b)
{
    for (uint32_t i = 0; i < b->n_in; i++)
        b->in[i].has_shape = false;
    for (uint32_t i = 0; i < b->n_out; i++)
        b->out[i].has_shape = false;
}

static Block *clone(Graph *g, const Block *b, const char *suf)
{
    Block *c = graph_clone_block(g, b, suf);
    if (c)
        clear_cluster_shapes(c);
    return c;
}

/* The storage block that feeds cluster k of b whole with one plain edge, or NULL. */
static Block *whole_feeder(const SplitCtx *s, const Block *b, uint32_t k, uint32_t *src_cl)
{
    const Cluster *cl = &b->in[k];
    if (cl->n_ifaces != 1)
        return NULL;
    const Edge *e = graph_edge(s->g, cl->ifaces[0].edge_id);
    EdgeEnds en;
    char why[8];
    if (!e || e->n_re || !edge_ends(s->g, s->u, e, &en, why, sizeof why))
        return NULL;
    Block *src = graph_block(s->g, e->src);
    if (!src || bt_info(src->type)->kind != BK_STORAGE)
        return NULL;
    SplitBox sb, db;
    memcpy(sb.pos, en.src_pos, sizeof sb.pos);
    memcpy(sb.size, en.src_box, sizeof sb.size);
    memcpy(db.pos, en.dst_pos, sizeof db.pos);
    memcpy(db.size, en.dst_box, sizeof db.size);
    if (!split_box_whole(&sb, en.src_cdims) || !split_box_whole(&db, en.dst_cdims) ||
        memcmp(en.src_cdims, en.dst_cdims, sizeof en.src_cdims))
        return NULL;
    *src_cl = en.src_cluster;
    return src;
}

static bool holds_data(const Block *s)
{
    return s->data && (s->n_in == 0 || blk_idle_input(s));
}

/* The box of storage block s's input cluster holding what box r of its output cluster
 * holds: both enumerate one content, their used dims pair up in order. */
static bool to_input_box(const Block *s, const SplitBox *r, SplitBox *out)
{
    int32_t oc[TIR_CDIMS], ic[TIR_CDIMS];
    if (!blk_cluster_dims(s, false, 0, oc) || !blk_cluster_dims(s, true, 0, ic))
        return false;
    memset(out, 0, sizeof *out);
    int j = 0;
    for (int i = 0; i < TIR_CDIMS; i++) {
        if (oc[i] <= 0)
            continue;
        while (j < TIR_CDIMS && ic[j] <= 0)
            j++;
        if (j == TIR_CDIMS || ic[j] != oc[i])
            return false;
        out->pos[j] = r->pos[i];
        out->size[j] = r->size[i];
        j++;
    }
    return true;
}

typedef struct Cut {
    Block **cut;         /* storage blocks cut into pieces: removed at the end */
    uint32_t n_cut, cap_cut;
    int32_t *stores;     /* ids of output stores cut with the block (split_route_output):
                            removed with it */
    uint32_t n_stores;
} Cut;

static bool note_cut(Cut *c, Block *s)
{
    for (uint32_t i = 0; i < c->n_cut; i++)
        if (c->cut[i] == s)
            return true;
    if (c->n_cut == c->cap_cut) {
        uint32_t cap = c->cap_cut ? 2 * c->cap_cut : 8;
        Block **n = realloc(c->cut, cap * sizeof *n);
        if (!n)
            return false;
        c->cut = n;
        c->cap_cut = cap;
    }
    c->cut[c->n_cut++] = s;
    return true;
}

/* Feeds input cluster k of piece p (geometry pc) of block b. */
static Status feed_input(const SplitCtx *s, Cut *cut, const Block *b, uint32_t k,
                         const SplitPiece *pc, Block *p, const char *suf)
{
    Graph *g = s->g;
    uint32_t scl = 0;
    Block *S = whole_feeder(s, b, k, &scl);
    if (!S || scl != 0)
        return split_feed_region(s, b, k, &pc->in[k], p, k);
    bool data = holds_data(S);
    if (pc->in_whole[k]) { /* data copied (S goes once it feeds nothing), input shared */
        Block *src = data ? clone(g, S, suf) : S;
        if (!src || !graph_connect(g, src, 0, p, k) || (data && !note_cut(cut, S)))
            return oom(s->d);
        return ST_OK;
    }
    Block *c = clone(g, S, suf);
    if (!c)
        return oom(s->d);
    split_storage_shape(S, &pc->in[k], c->shape.d);
    c->has_shape = true;
    if (data) {
        if (!split_slice_data(g, s->slices, S, c, &pc->in[k]))
            return diag_block(s->d, ST_RUNTIME, "oom", S, "cannot slice its data: out of memory"
                              " or its tensor's dims are not its shape's");
        c->n_in = 0; /* the idle input cluster: the slice holds the data */
    } else {
        SplitBox r;
        if (!to_input_box(S, &pc->in[k], &r))
            return split_feed_region(s, b, k, &pc->in[k], p, k);
        Status st = split_feed_region(s, S, 0, &r, c, 0);
        if (st != ST_OK)
            return st;
    }
    if (!graph_connect(g, c, 0, p, k) || !note_cut(cut, S))
        return oom(s->d);
    return ST_OK;
}

/* The CADD that joins the r pieces: sums their partial sums, adds b's bias, feeds what b
 * fed. */
static Status join(const SplitCtx *s, Block *b, Block **pieces, uint32_t n, int bias_k,
                   int32_t *join_id)
{
    Graph *g = s->g;
    int32_t es[TIR_NDIMS], sh[TIR_NDIMS] = {0};
    blk_eff_shape(b, es);
    sh[D_F] = es[D_F];
    if (b->type != BT_CVM) {
        sh[D_Y] = es[D_Y];
        sh[D_X] = es[D_X];
    }
    char base[64], suf[24];
    if (!b->name)
        snprintf(base, sizeof base, "block%d", (int)b->id);
    snprintf(suf, sizeof suf, "r%u+", n - 1);
    Block *j = enc_block(g, BT_CADD, b->name ? b->name : base, suf, sh,
                         b->has_prec ? (int)b->prec : -1);
    if (!j)
        return oom(s->d);
    *join_id = j->id;
    j->shape.n_branch = (int32_t)n;
    for (uint32_t i = 0; i < n; i++) { /* each partial sum through an int32 SI */
        Block *sum = enc_block(g, BT_SI, pieces[i]->name, "sum", sh, PR_INT_32);
        if (!sum || !graph_connect(g, pieces[i], 0, sum, 0) || !graph_connect(g, sum, 0, j, i))
            return oom(s->d);
    }
    if (bias_k >= 0) {
        j->bias_type = BIAS_VECTOR;
        while (b->in[bias_k].n_ifaces) {
            Edge *e = graph_edge(g, b->in[bias_k].ifaces[0].edge_id);
            if (!e || !graph_retarget_edge(g, e, false, j, n))
                return oom(s->d);
        }
    } else if (b->bias_type == BIAS_CONSTANT) {
        j->bias_type = BIAS_CONSTANT;
        if (!blk_set_attr(g, j, AT_CONSTANT_B, blk_attr(b, AT_CONSTANT_B)))
            return oom(s->d);
    }
    while (b->n_out && b->out[0].n_ifaces) {
        Edge *e = graph_edge(g, b->out[0].ifaces[0].edge_id);
        if (!e || !graph_retarget_edge(g, e, true, j, 0))
            return oom(s->d);
    }
    return ST_OK;
}

static Status make_pieces(const SplitCtx *s, Cut *cut, Block *b, SplitAxis ax,
                          const SplitPiece *pc, uint32_t n, Block **pieces, int32_t *join_id)
{
    Graph *g = s->g;
    int bias_k = ax == SPLIT_R && blk_has_bias_cluster(b) ? (int)b->n_in - 1 : -1;
    uint32_t n_in = bias_k >= 0 ? (uint32_t)bias_k : b->n_in;
    for (uint32_t i = 0; i < n; i++) {
        char suf[24];
        snprintf(suf, sizeof suf, "%c%u", split_axis_names[ax], i);
        Block *p = pieces[i] = clone(g, b, suf);
        if (!p)
            return oom(s->d);
        memcpy(p->shape.d, pc[i].shape, sizeof p->shape.d);
        p->has_shape = true;
        if (ax == SPLIT_Y || ax == SPLIT_X) {
            AttrId lo = ax == SPLIT_Y ? AT_PAD_UP : AT_PAD_LEFT;
            AttrId hi = ax == SPLIT_Y ? AT_PAD_DOWN : AT_PAD_RIGHT;
            if ((blk_find_attr(p, lo) || pc[i].pad_lo) && !blk_set_attr(g, p, lo, pc[i].pad_lo))
                return oom(s->d);
            if ((blk_find_attr(p, hi) || pc[i].pad_hi) && !blk_set_attr(g, p, hi, pc[i].pad_hi))
                return oom(s->d);
        }
        if (ax == SPLIT_R) {
            /* partial sums: int32, without the bias (the joining CADD adds it) */
            p->prec = PR_INT_32;
            p->has_prec = true;
            if (bias_k >= 0)
                p->n_in = (uint32_t)bias_k;
            if (bias_k >= 0 || p->bias_type == BIAS_CONSTANT) {
                p->bias_type = BIAS_CONSTANT;
                if (!blk_set_attr(g, p, AT_CONSTANT_B, 0))
                    return oom(s->d);
            }
        }
        for (uint32_t k = 0; k < n_in; k++) {
            Status st = feed_input(s, cut, b, k, &pc[i], p, suf);
            if (st != ST_OK)
                return st;
        }
    }
    if (ax == SPLIT_R)
        return join(s, b, pieces, n, bias_k, join_id);
    SplitBox *outs = malloc(n * sizeof *outs);
    uint32_t no = b->n_out ? b->out[0].n_ifaces : 0;
    cut->stores = malloc((no ? no : 1) * sizeof *cut->stores);
    if (!outs || !cut->stores) {
        free(outs);
        return oom(s->d);
    }
    for (uint32_t i = 0; i < n; i++)
        outs[i] = pc[i].out;
    /* what the first piece leaves of a core: an output store no compute block reads joins it
     * there whole (mapper/problem.c), in place of its output buffer */
    int64_t room = INT64_MAX;
    SplitNeed need;
    if (s->chip && split_piece_need(s->chip, g, s->u, b, false, &pc[0], &need))
        room = (int64_t)s->chip->core_budget_bytes - (need.total - need.m.output);
    Status st = split_route_output(s, b, pieces, outs, n, room, cut->stores, &cut->n_stores);
    free(outs);
    return st;
}

static bool push_id(int32_t **a, size_t *n, size_t *cap, int32_t id)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 64;
        int32_t *m = realloc(*a, c * sizeof *m);
        if (!m)
            return false;
        *a = m;
        *cap = c;
    }
    (*a)[(*n)++] = id;
    return true;
}

/* Collects the edges, among those the use index knows, that still touch block b into
 * *es, and marks b removed (its edges go with graph_remove_edges). */
static bool remove_old(Graph *g, const GraphUses *u, Block *b, Edge ***es, size_t *n,
                       size_t *cap)
{
    long pos = graph_block_pos(g, b->id);
    if (pos < 0 || (uint32_t)pos >= u->n_blocks)
        return true;
    const BlockUses *bu = &u->blocks[pos];
    for (int side = 0; side < 2; side++) {
        const uint32_t *ps = side ? bu->out_edges : bu->in_edges;
        uint32_t ne = side ? bu->n_out_edges : bu->n_in_edges;
        for (uint32_t k = 0; k < ne; k++) {
            Edge *e = g->edges[ps[k]];
            if (e->removed || (e->src != b->id && e->dst != b->id))
                continue;
            if (*n == *cap) {
                size_t c = *cap ? 2 * *cap : 256;
                Edge **m = realloc(*es, c * sizeof *m);
                if (!m)
                    return false;
                *es = m;
                *cap = c;
            }
            (*es)[(*n)++] = e;
        }
    }
    return true;
}

static bool feeds_nothing(const Block *s)
{
    for (uint32_t c = 0; c < s->n_out; c++)
        if (s->out[c].n_ifaces)
            return false;
    return true;
}

Status split_begin(Graph *g, SplitBatch *sb, Diag *d)
{
    memset(sb, 0, sizeof *sb);
    if (!graph_uses(g, &sb->u))
        return oom(d);
    layout_memo_begin(&sb->u); /* the cuts only add blocks: the pitches stay (split.h) */
    return ST_OK;
}

Status split_commit(Graph *g, SplitBatch *sb, Diag *d)
{
    Edge **es = NULL;
    size_t n = 0, cap = 0;
    bool ok = true;
    for (size_t i = 0; i < sb->n_drop && ok; i++) {
        Block *b = graph_block(g, sb->drop[i]);
        ok = !b || remove_old(g, &sb->u, b, &es, &n, &cap);
    }
    ok = ok && graph_remove_edges(g, es, n);
    /* a storage block cut for every block that read it now feeds nothing */
    size_t from = n;
    for (size_t i = 0; i < sb->n_cut && ok; i++) {
        Block *s = graph_block(g, sb->cut[i]);
        if (s && feeds_nothing(s)) {
            ok = remove_old(g, &sb->u, s, &es, &n, &cap);
            s->removed = true;
        }
    }
    ok = ok && graph_remove_edges(g, es + from, n - from);
    for (size_t i = 0; i < sb->n_drop; i++) {
        Block *b = graph_block(g, sb->drop[i]);
        if (b)
            b->removed = true;
    }
    free(es);
    graph_uses_finish(&sb->u);
    free(sb->drop);
    free(sb->cut);
    free(sb->map.m);
    memset(sb, 0, sizeof *sb);
    if (!ok || !graph_compact(g) || graph_oom(g))
        return oom(d);
    return ST_OK;
}

Status split_block(Graph *g, SplitBatch *sb, Block *b, SplitAxis ax, const int32_t *bounds,
                   uint32_t n, int32_t *piece_ids, Diag *d)
{
    char why[256];
    if (!split_can(b, ax))
        return diag_block(d, ST_LOGIC, "pass.split.axis", b,
                          "cannot be cut along %c (its type does not split so, or its extent "
                          "along it is 1)", split_axis_names[ax]);
    int32_t ext = split_extent(b, ax);
    if (n < 2 || (int64_t)n > ext || b->n_in > SPLIT_MAX_IN || b->n_out != 1 ||
        (ax == SPLIT_R && n > SPLIT_MAX_IN - 1))
        return diag_block(d, ST_LOGIC, "pass.split.axis", b,
                          "cannot be cut into %u pieces along %c: its extent is %d%s", n,
                          split_axis_names[ax], (int)ext,
                          b->n_in > SPLIT_MAX_IN || ax == SPLIT_R
                              ? " (at most 64 input clusters or r pieces)" : "");
    SplitPiece *pc = calloc(n, sizeof *pc);
    Block **pieces = calloc(n, sizeof *pieces);
    if (!pc || !pieces) {
        free(pc), free(pieces);
        return oom(d);
    }
    Status st = ST_OK;
    for (uint32_t i = 0; i < n && st == ST_OK; i++)
        if (!split_piece(b, ax, bounds[i], bounds[i + 1], &pc[i], why, sizeof why))
            st = diag_block(d, ST_LOGIC, "pass.split.axis", b, "cannot be cut along %c: %s",
                            split_axis_names[ax], why);
    SplitCtx s = {.g = g, .u = &sb->u, .d = d, .slices = sb->slices, .map = &sb->map,
                  .chip = sb->chip};
    Cut cut = {0};
    int32_t join_id = 0;
    if (st == ST_OK)
        st = make_pieces(&s, &cut, b, ax, pc, n, pieces, &join_id);
    if (st == ST_OK) {
        for (uint32_t i = 0; piece_ids && i < n; i++)
            piece_ids[i] = pieces[i]->id;
        if (piece_ids && ax == SPLIT_R)
            piece_ids[n] = join_id;
        for (uint32_t i = 0; i < cut.n_cut && st == ST_OK; i++)
            if (!push_id(&sb->cut, &sb->n_cut, &sb->cap_cut, cut.cut[i]->id))
                st = oom(d);
        if (st == ST_OK && !push_id(&sb->drop, &sb->n_drop, &sb->cap_drop, b->id))
            st = oom(d);
        for (uint32_t i = 0; i < cut.n_stores && st == ST_OK; i++)
            if (!push_id(&sb->drop, &sb->n_drop, &sb->cap_drop, cut.stores[i]))
                st = oom(d);
    }
    free(cut.cut), free(cut.stores), free(pc), free(pieces);
    if (st == ST_OK && graph_oom(g))
        st = oom(d);
    return st;
}
