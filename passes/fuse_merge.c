/* fuse_merge.c: the fuse pass's merging of storage blocks that hold the same data
 * (fuse_internal.h, docs/passes-fuse.md).
 *
 * Two storage blocks hold the same data when they are equal blocks (type, precision, shape,
 * clusters, attributes, data tensor) whose input edges are equal one by one, in order: same
 * producer, same boxes at both ends, same rearrangement steps. A storage block's content is
 * its data tensor (else zeros) overwritten by its input edges, so such blocks hold the same
 * values at every step. The later one (in graph order) is merged into the first: its output
 * edges are moved to the first, its input edges removed. Blocks of different groups are not
 * merged (that would make one storage block feed two cores). Candidates are bucketed by a
 * hash of what is compared (of a large data tensor, a sample of its values), so the cost is
 * one pass over the blocks and edges, not one per pair, and only blocks of equal hashes are
 * compared in full; every decision is taken before the graph changes.
 */
#include "passes/fuse_internal.h"
#include "passes/groups.h"
#include "taskir/rearrange.h"
#include "taskir/uses.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { HASH_SAMPLES = 256 };

typedef struct Cand {
    uint64_t hash;
    uint32_t pos;          /* in g->blocks */
} Cand;

typedef struct Hasher {
    uint64_t h;
} Hasher;

static void mix(Hasher *s, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        s->h ^= c[i];
        s->h *= UINT64_C(1099511628211);
    }
}

static void mix_i(Hasher *s, int64_t v)
{
    mix(s, &v, sizeof v);
}

/* The hash of n values of size bytes each, n > HASH_SAMPLES: HASH_SAMPLES of them spread
 * evenly (a weight tensor of millions of values is hashed in constant time; equal hashes are
 * confirmed by comparing every value). */
static uint64_t sample_hash(const void *v, uint32_t n, size_t size)
{
    Hasher s = {UINT64_C(14695981039346656037)};
    for (uint32_t k = 0; k < HASH_SAMPLES; k++)
        mix(&s, (const char *)v + (size_t)((uint64_t)n * k / HASH_SAMPLES) * size, size);
    return s.h;
}

/* sample_hash of t's int32_data, wide or narrow (Tensor.i8): the same for equal values. */
static uint64_t sample_hash_i32(const Tensor *t)
{
    Hasher s = {UINT64_C(14695981039346656037)};
    for (uint32_t k = 0; k < HASH_SAMPLES; k++) {
        int32_t x = tensor_i32_at(t, (size_t)((uint64_t)t->n_i32 * k / HASH_SAMPLES));
        mix(&s, &x, sizeof x);
    }
    return s.h;
}

/* The sample hashes of the int32 arrays hashed so far, by array (the copies split and
 * replicate make share their values: a row band's weights are sampled once, not once a
 * band, which on a wide model is a cache miss a sample). Open addressing, at most half
 * full. */
typedef struct Memo {
    const void **p;
    uint32_t *n;
    uint64_t *h;
    size_t cap, used;
} Memo;

static bool memo_init(Memo *m, size_t most)
{
    memset(m, 0, sizeof *m);
    m->cap = 64;
    while (m->cap < 2 * most + 2)
        m->cap *= 2;
    m->p = calloc(m->cap, sizeof *m->p);
    m->n = malloc(m->cap * sizeof *m->n);
    m->h = malloc(m->cap * sizeof *m->h);
    return m->p && m->n && m->h;
}

static void memo_finish(Memo *m)
{
    free(m->p), free(m->n), free(m->h);
}

/* sample_hash_i32 of t's values, through m (NULL: computed). */
static uint64_t i32_hash(Memo *m, const Tensor *t)
{
    size_t es;
    const void *v = tensor_i32_vals(t, &es);
    uint32_t n = t->n_i32;
    if (!m || m->used * 2 + 2 > m->cap)
        return sample_hash_i32(t);
    uint64_t x = (uint64_t)(uintptr_t)v * UINT64_C(0x9e3779b97f4a7c15) ^ n;
    size_t i = (size_t)(x >> 17) & (m->cap - 1);
    for (; m->p[i]; i = (i + 1) & (m->cap - 1))
        if (m->p[i] == v && m->n[i] == n)
            return m->h[i];
    m->p[i] = v;
    m->n[i] = n;
    m->h[i] = sample_hash_i32(t);
    m->used++;
    return m->h[i];
}

/* Mixes n values of size bytes each: all of them when they are few, else their
 * sample_hash. */
static void mix_values(Hasher *s, const void *v, uint32_t n, size_t size)
{
    mix_i(s, n);
    if (n <= HASH_SAMPLES)
        mix(s, v, n * size);
    else
        mix_i(s, (int64_t)sample_hash(v, n, size));
}

/* mix_values of t's int32_data, wide or narrow alike (the sample hash through memo: NULL,
 * none). */
static void mix_i32(Hasher *s, const Tensor *t, Memo *memo)
{
    mix_i(s, t->n_i32);
    if (t->n_i32 > HASH_SAMPLES) {
        mix_i(s, (int64_t)i32_hash(memo, t));
        return;
    }
    for (uint32_t i = 0; i < t->n_i32; i++) {
        int32_t x = tensor_i32_at(t, i);
        mix(s, &x, sizeof x);
    }
}

static void mix_tensor(Hasher *s, const Tensor *t, Memo *memo)
{
    mix_i(s, t ? (int64_t)t->n_dims : -1);
    if (!t)
        return;
    mix(s, t->dims, t->n_dims * sizeof *t->dims);
    mix_i(s, t->has_prec ? (int64_t)t->prec : -1);
    mix_i32(s, t, memo);
    mix_values(s, t->u32, t->n_u32, sizeof *t->u32);
    mix_values(s, t->f32, t->n_f32, sizeof *t->f32);
}

/* Equal arrays of n bytes; the same array (a tensor shared by clones, as split and
 * replicate make them) without reading it. */
static bool same_array(const void *a, const void *b, size_t n)
{
    return n == 0 || a == b || memcmp(a, b, n) == 0;
}

/* Equal int32_data, wide or narrow (one held each way: value by value). */
static bool same_i32(const Tensor *a, const Tensor *b)
{
    if (a->n_i32 != b->n_i32)
        return false;
    size_t ea, eb;
    const void *va = tensor_i32_vals(a, &ea), *vb = tensor_i32_vals(b, &eb);
    if (ea == eb)
        return same_array(va, vb, a->n_i32 * ea);
    for (uint32_t i = 0; i < a->n_i32; i++)
        if (tensor_i32_at(a, i) != tensor_i32_at(b, i))
            return false;
    return true;
}

static bool same_tensor(const Tensor *a, const Tensor *b)
{
    if (!a || !b)
        return a == b;
    return a->n_dims == b->n_dims && same_array(a->dims, b->dims, a->n_dims * sizeof *a->dims) &&
           a->has_prec == b->has_prec && (!a->has_prec || a->prec == b->prec) &&
           same_i32(a, b) &&
           a->n_u32 == b->n_u32 && same_array(a->u32, b->u32, a->n_u32 * sizeof *a->u32) &&
           a->n_f32 == b->n_f32 && same_array(a->f32, b->f32, a->n_f32 * sizeof *a->f32);
}

static bool same_shape(const Shape *a, const Shape *b)
{
    return memcmp(a->d, b->d, sizeof a->d) == 0 && a->n_branch == b->n_branch &&
           a->n_extra == b->n_extra && same_array(a->extra, b->extra,
                                                  a->n_extra * sizeof *a->extra);
}

static bool same_attr(const Attr *a, const Attr *b)
{
    return a->id == b->id && a->has_value == b->has_value && a->value == b->value &&
           a->has_prec == b->has_prec && (!a->has_prec || a->prec == b->prec) &&
           a->has_fvalue == b->has_fvalue && same_array(&a->fvalue, &b->fvalue,
                                                        sizeof a->fvalue);
}

static bool same_clusters(const Cluster *a, const Cluster *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (a[i].has_shape != b[i].has_shape ||
            (a[i].has_shape && !same_shape(&a[i].shape, &b[i].shape)))
            return false;
    return true;
}

/* Equal blocks, apart from id, name and edges. */
static bool same_block(const Block *a, const Block *b)
{
    if (a->type != b->type || blk_prec(a) != blk_prec(b) || a->has_shape != b->has_shape ||
        !same_shape(&a->shape, &b->shape) || a->n_in != b->n_in || a->n_out != b->n_out ||
        !same_clusters(a->in, b->in, a->n_in) || !same_clusters(a->out, b->out, a->n_out) ||
        a->n_attrs != b->n_attrs || a->bias_type != b->bias_type ||
        a->is_virtual != b->is_virtual || !same_tensor(a->data, b->data))
        return false;
    for (uint32_t i = 0; i < a->n_attrs; i++)
        if (!same_attr(&a->attrs[i], &b->attrs[i]))
            return false;
    return true;
}

static void mix_ends(Hasher *s, const EdgeEnds *ee)
{
    mix_i(s, ee->src->id);
    mix_i(s, ee->src_cluster);
    mix_i(s, ee->dst_cluster);
    mix(s, ee->src_pos, sizeof ee->src_pos);
    mix(s, ee->src_box, sizeof ee->src_box);
    mix(s, ee->dst_pos, sizeof ee->dst_pos);
    mix(s, ee->dst_box, sizeof ee->dst_box);
}

static bool same_ends(const EdgeEnds *a, const EdgeEnds *b)
{
    return a->src == b->src && a->src_cluster == b->src_cluster &&
           a->dst_cluster == b->dst_cluster &&
           memcmp(a->src_pos, b->src_pos, sizeof a->src_pos) == 0 &&
           memcmp(a->src_box, b->src_box, sizeof a->src_box) == 0 &&
           memcmp(a->dst_pos, b->dst_pos, sizeof a->dst_pos) == 0 &&
           memcmp(a->dst_box, b->dst_box, sizeof a->dst_box) == 0;
}

static bool same_steps(const Edge *a, const Edge *b)
{
    if (a->n_re != b->n_re)
        return false;
    for (uint32_t i = 0; i < a->n_re; i++) {
        if (a->re[i].type != b->re[i].type || a->re[i].n_mats != b->re[i].n_mats)
            return false;
        for (uint32_t k = 0; k < a->re[i].n_mats; k++)
            if (!same_tensor(&a->re[i].mats[k], &b->re[i].mats[k]))
                return false;
    }
    return true;
}

/* The hash of the block at pos and its input edges; false when an edge's ends are not found
 * (a block the pass leaves alone). memo: the sample hashes of data arrays. */
static bool hash_block(const Graph *g, const GraphUses *u, uint32_t pos, Memo *memo,
                       uint64_t *out)
{
    const Block *b = g->blocks[pos];
    Hasher s = {UINT64_C(14695981039346656037)};
    mix_i(&s, b->type);
    mix_i(&s, blk_prec(b));
    mix(&s, b->shape.d, sizeof b->shape.d);
    mix_tensor(&s, b->data, memo);
    const BlockUses *bu = &u->blocks[pos];
    mix_i(&s, bu->n_in_edges);
    for (uint32_t i = 0; i < bu->n_in_edges; i++) {
        const Edge *e = g->edges[bu->in_edges[i]];
        EdgeEnds ee;
        char why[160];
        if (!edge_ends(g, u, e, &ee, why, sizeof why))
            return false;
        mix_ends(&s, &ee);
        mix_i(&s, e->n_re);
        for (uint32_t k = 0; k < e->n_re; k++) {
            mix_i(&s, e->re[k].type);
            for (uint32_t m = 0; m < e->re[k].n_mats; m++)
                mix_tensor(&s, &e->re[k].mats[m], NULL);
        }
    }
    *out = s.h;
    return true;
}

/* Do the blocks at positions a and b hold the same data? */
static bool same_content(const Graph *g, const GraphUses *u, uint32_t a, uint32_t b)
{
    const BlockUses *ua = &u->blocks[a], *ub = &u->blocks[b];
    if (!same_block(g->blocks[a], g->blocks[b]) || ua->n_in_edges != ub->n_in_edges)
        return false;
    for (uint32_t i = 0; i < ua->n_in_edges; i++) {
        const Edge *ea = g->edges[ua->in_edges[i]], *eb = g->edges[ub->in_edges[i]];
        EdgeEnds xa, xb;
        char why[160];
        if (!edge_ends(g, u, ea, &xa, why, sizeof why) ||
            !edge_ends(g, u, eb, &xb, why, sizeof why) || !same_ends(&xa, &xb) ||
            !same_steps(ea, eb))
            return false;
    }
    return true;
}

static int cand_cmp(const void *pa, const void *pb)
{
    const Cand *a = pa, *b = pb;
    if (a->hash != b->hash)
        return a->hash < b->hash ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* Fills into[pos] with the position of the block the storage block at pos merges into (pos
 * itself when none). */
static bool decide(const Graph *g, const GraphUses *u, const GroupMap *grp, uint32_t *into)
{
    Cand *c = malloc(((size_t)g->n_blocks + 1) * sizeof *c);
    Memo memo;
    bool have_memo = memo_init(&memo, g->n_blocks);
    if (!c) {
        memo_finish(&memo);
        return false;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        into[i] = i;
        uint64_t h;
        if (bt_info(g->blocks[i]->type)->kind == BK_STORAGE &&
            hash_block(g, u, i, have_memo ? &memo : NULL, &h))
            c[n++] = (Cand){h, i};
    }
    memo_finish(&memo);
    qsort(c, n, sizeof *c, cand_cmp);
    for (uint32_t lo = 0, hi; lo < n; lo = hi) {
        for (hi = lo + 1; hi < n && c[hi].hash == c[lo].hash; hi++)
            ;
        for (uint32_t j = lo + 1; j < hi; j++)
            for (uint32_t k = lo; k < j; k++) {
                uint32_t a = c[k].pos, b = c[j].pos;
                if (into[a] == a && grp->of[a] == grp->of[b] && same_content(g, u, a, b)) {
                    into[b] = a;
                    break;
                }
            }
    }
    free(c);
    return true;
}

/* The input edges of the merged blocks, removed together at the end (graph_remove_edges):
 * one at a time, each removal would search and shift the output cluster of the block that
 * feeds them, which on a wide layer feeds thousands of them. */
typedef struct Doomed {
    Edge **e;
    size_t n, cap;
} Doomed;

/* Moves the output edges of the block at pos to the block at pos into, adds its input edges
 * to doomed and removes the block. */
static bool merge(Graph *g, const GraphUses *u, uint32_t pos, uint32_t into, Doomed *doomed)
{
    Block *b = g->blocks[pos], *keep = g->blocks[into];
    const BlockUses *bu = &u->blocks[pos];
    for (uint32_t i = 0; i < bu->n_out_edges; i++) {
        Edge *e = g->edges[bu->out_edges[i]];
        const IfaceUse *f = uses_find(u, pos, false, e->id);
        if (!graph_retarget_edge(g, e, true, keep, f ? f->cluster : 0))
            return false;
    }
    if (doomed->cap - doomed->n < bu->n_in_edges) {
        size_t cap = doomed->cap ? doomed->cap : 256;
        while (cap - doomed->n < bu->n_in_edges)
            cap *= 2;
        Edge **ne = realloc(doomed->e, cap * sizeof *ne);
        if (!ne)
            return false;
        doomed->e = ne;
        doomed->cap = cap;
    }
    for (uint32_t i = 0; i < bu->n_in_edges; i++)
        doomed->e[doomed->n++] = g->edges[bu->in_edges[i]];
    b->removed = true;
    return true;
}

Status fuse_merge_storage(Graph *g, Diag *d, uint32_t *n)
{
    GraphUses u;
    if (!graph_uses(g, &u))
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    return fuse_merge_storage_uses(g, &u, d, n);
}

Status fuse_merge_storage_uses(Graph *g, GraphUses *uses, Diag *d, uint32_t *n)
{
    GraphUses u = *uses; /* finished here, as the graph changes */
    memset(uses, 0, sizeof *uses);
    GroupMap grp;
    bool ok = group_map_build(g, &grp);
    uint32_t *into = malloc(((size_t)g->n_blocks + 1) * sizeof *into);
    ok = ok && into && decide(g, &u, &grp, into);
    /* the first merged block is the only one its position names: merging edits no block
     * whose edges a later merge reads (the output clusters of kept blocks only grow) */
    Doomed doomed = {0};
    for (uint32_t i = 0; ok && i < g->n_blocks; i++)
        if (into[i] != i) {
            ok = merge(g, &u, i, into[i], &doomed);
            (*n)++;
        }
    ok = ok && graph_remove_edges(g, doomed.e, doomed.n);
    free(doomed.e);
    graph_uses_finish(&u);
    group_map_finish(&grp);
    free(into);
    if (!ok || !graph_compact(g) || graph_oom(g))
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    group_prune(g);
    return ST_OK;
}
