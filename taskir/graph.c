/* graph.c: building the working IR, the id index, and the per-block facts that come from the
 * type table (effective shape, cluster roles and dims, window geometry, MACs). */
#include "taskir/graph.h"
#include "taskir/utf8.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Graph *graph_create(void)
{
    Graph *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->arena = arena_create();
    if (!g->arena) {
        free(g);
        return NULL;
    }
    return g;
}

void graph_destroy(Graph *g)
{
    if (!g)
        return;
    arena_destroy(g->arena);
    spare_finish(&g->spare);
    free(g->block_index.keys);
    free(g->block_index.vals);
    free(g->edge_index.keys);
    free(g->edge_index.vals);
    free(g);
}

bool graph_oom(const Graph *g)
{
    return arena_failed(g->arena);
}

/* ---- id index ---- */

static uint32_t hash_id(int32_t id)
{
    uint32_t h = (uint32_t)id;
    h ^= h >> 16;
    h *= 0x7feb352dU;
    h ^= h >> 15;
    h *= 0x846ca68bU;
    h ^= h >> 16;
    return h;
}

static bool idmap_put(IdMap *m, int32_t key, uint32_t pos);

static void idmap_free(IdMap *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

/* Notes key -> pos in the seq flag (m->n counts the keys before this one). */
static void idmap_note(IdMap *m, int32_t key, uint32_t pos)
{
    if (m->n == 0) {
        m->base = key;
        m->seq = pos == 0;
    } else {
        m->seq = m->seq && pos == m->n && (int64_t)key == (int64_t)m->base + pos;
    }
    m->n++;
}

/* The entries of m into a hash of cap slots (a power of two) in place of m. */
static bool idmap_rehash(IdMap *m, uint32_t cap)
{
    IdMap n = {calloc(cap, sizeof(int32_t)), calloc(cap, sizeof(uint32_t)), cap, 0, 0, false,
               false};
    if (!n.keys || !n.vals) {
        free(n.keys);
        free(n.vals);
        return false;
    }
    for (uint32_t i = 0; i < m->cap; i++)
        if (m->vals[i])
            idmap_put(&n, m->dense ? (int32_t)((int64_t)m->base + i) : m->keys[i],
                      m->vals[i] - 1);
    n.base = m->base; /* the puts above went in slot order, not position order */
    n.seq = m->seq;
    n.n = m->n;
    free(m->keys);
    free(m->vals);
    *m = n;
    return true;
}

/* How wide the range of a dense map of n ids may grow: up to 4 table slots an id (a hash
 * takes about 11 bytes an id, a table 4 bytes a slot). */
static int64_t dense_span(uint32_t n)
{
    return 4 * (int64_t)n + 1024;
}

/* Inserts key -> pos in a dense map; false when the key does not suit it (the caller then
 * makes the map a hash) or out of memory (*oom). */
static bool dense_put(IdMap *m, int32_t key, uint32_t pos, bool *oom)
{
    int64_t p = m->n == 0 && !m->cap ? 0 : (int64_t)key - m->base;
    if (p < 0 || p >= dense_span(m->n + 1))
        return false;
    if (p >= m->cap) {
        int64_t cap = m->cap ? 2 * (int64_t)m->cap : 64;
        while (cap <= p)
            cap *= 2;
        if (cap > dense_span(m->n + 1) && p < dense_span(m->n + 1))
            cap = p + 1;
        uint32_t *v = realloc(m->vals, (size_t)cap * sizeof *v);
        if (!v) {
            *oom = true;
            return false;
        }
        memset(v + m->cap, 0, (size_t)(cap - m->cap) * sizeof *v);
        m->vals = v;
        m->cap = (uint32_t)cap;
    }
    if (m->vals[p]) {
        m->seq = false; /* a repeated id: its position is not base + pos */
        return true;
    }
    m->vals[p] = pos + 1;
    idmap_note(m, key, pos);
    return true;
}

/* Inserts key -> pos unless key is present (the first one wins). */
static bool idmap_put(IdMap *m, int32_t key, uint32_t pos)
{
    if (m->dense || (m->n == 0 && !m->cap)) {
        bool oom = false;
        m->dense = true;
        if (dense_put(m, key, pos, &oom))
            return true;
        if (oom)
            return false;
        /* the key is out of the range a table may cover: a hash from now on */
        uint32_t cap = 64;
        while (cap < UINT32_MAX / 4 && (uint64_t)(m->n + 1) * 4 > (uint64_t)cap * 3)
            cap *= 2;
        if (!idmap_rehash(m, cap))
            return false;
    }
    if ((uint64_t)(m->n + 1) * 4 > (uint64_t)m->cap * 3) {
        if (m->cap > UINT32_MAX / 4)
            return false;
        if (!idmap_rehash(m, m->cap ? m->cap * 2 : 64))
            return false;
    }
    uint32_t mask = m->cap - 1;
    for (uint32_t i = hash_id(key) & mask;; i = (i + 1) & mask) {
        if (!m->vals[i]) {
            m->keys[i] = key;
            m->vals[i] = pos + 1;
            idmap_note(m, key, pos);
            return true;
        }
        if (m->keys[i] == key) {
            m->seq = false; /* a repeated id: its position is not base + pos */
            return true;
        }
    }
}

static long idmap_get(const IdMap *m, int32_t key)
{
    if (m->seq) {
        int64_t p = (int64_t)key - m->base;
        return p >= 0 && p < (int64_t)m->n ? (long)p : -1;
    }
    if (m->dense) {
        int64_t p = (int64_t)key - m->base;
        return p >= 0 && p < (int64_t)m->cap ? (long)m->vals[p] - 1 : -1;
    }
    if (!m->cap)
        return -1;
    uint32_t mask = m->cap - 1;
    for (uint32_t i = hash_id(key) & mask;; i = (i + 1) & mask) {
        if (!m->vals[i])
            return -1;
        if (m->keys[i] == key)
            return (long)m->vals[i] - 1;
    }
}

long graph_block_pos(const Graph *g, int32_t id)
{
    long i = idmap_get(&g->block_index, id);
    return i < 0 || g->blocks[i]->removed ? -1 : i;
}

long graph_edge_pos(const Graph *g, int32_t id)
{
    long i = idmap_get(&g->edge_index, id);
    return i < 0 || g->edges[i]->removed ? -1 : i;
}

Block *graph_block(const Graph *g, int32_t id)
{
    long i = graph_block_pos(g, id);
    return i < 0 ? NULL : g->blocks[i];
}

Edge *graph_edge(const Graph *g, int32_t id)
{
    long i = graph_edge_pos(g, id);
    return i < 0 ? NULL : g->edges[i];
}

/* Rebuilds the index of blocks[] (blocks true) or edges[] (the first id wins). */
static bool idmap_rebuild(Graph *g, bool blocks)
{
    IdMap fresh = {0};
    uint32_t n = blocks ? g->n_blocks : g->n_edges;
#define ID_AT(i) (blocks ? g->blocks[i]->id : g->edges[i]->id)
    /* ids rising with the position (a compacted graph): the table in one sweep */
    bool rising = n > 0;
    for (uint32_t i = 1; i < n && rising; i++)
        rising = ID_AT(i) > ID_AT(i - 1);
    int64_t span = rising ? (int64_t)ID_AT(n - 1) - ID_AT(0) + 1 : 0;
    if (rising && span <= dense_span(n)) {
        if (!(fresh.vals = calloc((size_t)span, sizeof *fresh.vals)))
            return false;
        fresh.cap = (uint32_t)span;
        fresh.base = ID_AT(0);
        fresh.dense = true;
        fresh.n = n;
        fresh.seq = span == n;
        for (uint32_t i = 0; i < n; i++)
            fresh.vals[(int64_t)ID_AT(i) - fresh.base] = i + 1;
    }
#undef ID_AT
    for (uint32_t i = fresh.n; i < n; i++)
        if (!idmap_put(&fresh, blocks ? g->blocks[i]->id : g->edges[i]->id, i)) {
            idmap_free(&fresh);
            return false;
        }
    IdMap *m = blocks ? &g->block_index : &g->edge_index;
    idmap_free(m);
    *m = fresh;
    return true;
}

/* Is n a power of two (the capacities reserve_for makes)? */
static bool pow2(uint32_t n)
{
    return n && !(n & (n - 1));
}

/* Hands the arrays of a block being dropped (its interface arrays and cluster arrays) to g's
 * spare, of the sizes reserve_for asks for (a power of two elements; a loaded block's exact
 * ones are left, as they would only take sizes' places): once the graph is compacted nothing
 * reaches them, and a pass that removes blocks and then adds some (the split's rounds,
 * replicate after fuse) takes them again instead of fresh memory. The block is left with no
 * clusters. */
static void retire_block_arrays(Graph *g, Block *b)
{
    for (int side = 0; side < 2; side++) {
        Cluster *cs = side ? b->out : b->in;
        uint32_t n = side ? b->n_out : b->n_in, cap = side ? b->cap_out : b->cap_in;
        for (uint32_t c = 0; c < n; c++)
            if (pow2(cs[c].cap_ifaces))
                spare_retire(&g->spare, cs[c].ifaces, (size_t)cs[c].cap_ifaces * sizeof(Iface));
        if (pow2(cap))
            spare_retire(&g->spare, cs, (size_t)cap * sizeof(Cluster));
    }
    b->in = b->out = NULL;
    b->n_in = b->cap_in = b->n_out = b->cap_out = 0;
}

bool graph_compact(Graph *g)
{
    uint32_t nb = 0, ne = 0;
    for (uint32_t i = 0; i < g->n_blocks; i++)
        if (!g->blocks[i]->removed)
            g->blocks[nb++] = g->blocks[i];
        else
            retire_block_arrays(g, g->blocks[i]);
    for (uint32_t i = 0; i < g->n_edges; i++)
        if (!g->edges[i]->removed)
            g->edges[ne++] = g->edges[i];
    g->n_blocks = nb;
    g->n_edges = ne;
    spare_release(&g->spare); /* the change set is over: what it left behind may be reused */
    if (!idmap_rebuild(g, true) || !idmap_rebuild(g, false)) {
        arena_set_failed(g->arena);
        return false;
    }
    return true;
}

/* ---- building ---- */

/* Makes room for more elements in an arena array of pointers or structs, n of them held:
 * for one more, a doubled array (the first of one element: most clusters hold one or two
 * interfaces, and an interface is 64 bytes); for want, the power of two that holds them
 * (a caller that knows how many come takes it once, not each doubling on the way). From the
 * arrays left behind (spare.h) when one is ready, the old one left behind. */
static bool reserve_for(Graph *g, void **arr, uint32_t n, uint32_t *cap, size_t size,
                        uint32_t want)
{
    if (want <= *cap)
        return true;
    if (*cap > UINT32_MAX / 2 || want > UINT32_MAX / 2)
        return false;
    uint32_t ncap = *cap ? *cap * 2 : 1;
    while (ncap < want)
        ncap *= 2;
    void *p = spare_take(&g->spare, (size_t)ncap * size);
    if (p && *arr && n)
        memcpy(p, *arr, (size_t)n * size);
    else if (!p)
        p = arena_grow(g->arena, *arr, n, ncap, size);
    if (!p)
        return false;
    if (*arr && *cap)
        spare_retire(&g->spare, *arr, (size_t)*cap * size);
    *arr = p;
    *cap = ncap;
    return true;
}

static bool reserve(Graph *g, void **arr, uint32_t n, uint32_t *cap, size_t size)
{
    return n < UINT32_MAX && reserve_for(g, arr, n, cap, size, n + 1);
}

static int32_t take_id(int32_t id, int32_t *next)
{
    if (id == GRAPH_AUTO_ID)
        id = *next;
    if (id >= *next && id < INT32_MAX)
        *next = id + 1;
    return id;
}

Block *graph_add_block(Graph *g, BlockType type, int32_t id, const char *name)
{
    if (!reserve(g, (void **)&g->blocks, g->n_blocks, &g->cap_blocks, sizeof(Block *)))
        return NULL;
    Block *b = arena_alloc(g->arena, 1, sizeof *b);
    if (!b)
        return NULL;
    b->id = take_id(id, &g->next_block_id);
    b->type = type;
    if (name && utf8_valid(name)) {
        if (!(b->name = arena_strdup(g->arena, name)))
            return NULL;
    } else if (name) {   /* a .pb holds UTF-8 names only: a bad byte becomes U+FFFD */
        char *clean = utf8_clean(name);
        b->name = clean ? arena_strdup(g->arena, clean) : NULL;
        free(clean);
        if (!b->name) {
            arena_set_failed(g->arena);
            return NULL;
        }
    }
    if (!idmap_put(&g->block_index, b->id, g->n_blocks)) {
        arena_set_failed(g->arena);
        return NULL;
    }
    g->blocks[g->n_blocks++] = b;
    return b;
}

Edge *graph_add_edge(Graph *g, int32_t id, int32_t src, int32_t dst)
{
    if (!reserve(g, (void **)&g->edges, g->n_edges, &g->cap_edges, sizeof(Edge *)))
        return NULL;
    Edge *e = arena_alloc(g->arena, 1, sizeof *e);
    if (!e)
        return NULL;
    e->id = take_id(id, &g->next_edge_id);
    e->src = src;
    e->dst = dst;
    if (!idmap_put(&g->edge_index, e->id, g->n_edges)) {
        arena_set_failed(g->arena);
        return NULL;
    }
    g->edges[g->n_edges++] = e;
    return e;
}

Cluster *blk_add_input(Graph *g, Block *b)
{
    if (!reserve(g, (void **)&b->in, b->n_in, &b->cap_in, sizeof(Cluster)))
        return NULL;
    return &b->in[b->n_in++];
}

Cluster *blk_add_output(Graph *g, Block *b)
{
    if (!reserve(g, (void **)&b->out, b->n_out, &b->cap_out, sizeof(Cluster)))
        return NULL;
    return &b->out[b->n_out++];
}

bool cluster_reserve_ifaces(Graph *g, Cluster *c, uint32_t more)
{
    if (more > UINT32_MAX - c->n_ifaces || !reserve_for(g, (void **)&c->ifaces, c->n_ifaces,
                                                         &c->cap_ifaces, sizeof(Iface),
                                                         c->n_ifaces + more)) {
        arena_set_failed(g->arena);
        return false;
    }
    return true;
}

Iface *cluster_add_iface(Graph *g, Cluster *c, int32_t edge_id)
{
    if (!reserve(g, (void **)&c->ifaces, c->n_ifaces, &c->cap_ifaces, sizeof(Iface)))
        return NULL;
    Iface *f = &c->ifaces[c->n_ifaces++];
    memset(f, 0, sizeof *f); /* the slot may hold a removed interface (cluster_remove_iface) */
    f->edge_id = edge_id;
    return f;
}

bool iface_whole(const Iface *f)
{
    return !f->has_pos && !f->has_size;
}

/* Does s give anything beyond the six cluster dims (iy, ix, n_branch, extra_dimensions)? */
static bool beyond_six(const Shape *s)
{
    for (int i = TIR_CDIMS; i < TIR_NDIMS; i++)
        if (s->d[i])
            return true;
    return s->n_branch != 0 || s->n_extra != 0;
}

bool iface_set_wire(Graph *g, Iface *f, const Shape *pos, const Shape *size)
{
    if (pos)
        memcpy(f->pos.d, pos->d, sizeof f->pos.d);
    if (size)
        memcpy(f->size.d, size->d, sizeof f->size.d);
    bool more_pos = pos && beyond_six(pos), more_size = size && beyond_six(size);
    if (!more_pos && !more_size && !f->wire)
        return true;
    IfaceWire *w = arena_alloc(g->arena, 1, sizeof *w);
    if (!w)
        return false;
    if (f->wire)
        *w = *f->wire;
    if (pos)
        w->pos = more_pos ? *pos : (Shape){0};
    if (size)
        w->size = more_size ? *size : (Shape){0};
    f->wire = beyond_six(&w->pos) || beyond_six(&w->size) ? w : NULL;
    return true;
}

void iface_wire_shape(const Iface *f, bool size, Shape *out)
{
    const IfaceBox *b = size ? &f->size : &f->pos;
    if (f->wire)
        *out = size ? f->wire->size : f->wire->pos;
    else
        memset(out, 0, sizeof *out);
    memcpy(out->d, b->d, sizeof b->d);
    out->minus_one = 0;
}

/* Dim i (of TIR_NDIMS) of f's position or size: the box's, or beyond it the wire's. */
static int32_t iface_dim(const Iface *f, bool size, int i)
{
    if (i < TIR_CDIMS)
        return size ? f->size.d[i] : f->pos.d[i];
    return !f->wire ? 0 : size ? f->wire->size.d[i] : f->wire->pos.d[i];
}

static bool same_dims(const Iface *a, const Iface *b, bool size)
{
    const IfaceBox *x = size ? &a->size : &a->pos, *y = size ? &b->size : &b->pos;
    if (memcmp(x->d, y->d, sizeof x->d) != 0)
        return false;
    if (!a->wire && !b->wire)
        return true;
    for (int i = TIR_CDIMS; i < TIR_NDIMS; i++)
        if (iface_dim(a, size, i) != iface_dim(b, size, i))
            return false;
    return true;
}

bool iface_same_box(const Iface *a, const Iface *b)
{
    return a->has_pos == b->has_pos && a->has_size == b->has_size &&
           (!a->has_pos || same_dims(a, b, false)) && (!a->has_size || same_dims(a, b, true));
}

const Attr *blk_find_attr(const Block *b, AttrId id)
{
    for (uint32_t i = 0; i < b->n_attrs; i++)
        if (b->attrs[i].id == id)
            return &b->attrs[i];
    return NULL;
}

bool blk_set_attr(Graph *g, Block *b, AttrId id, int32_t value)
{
    Attr *a = (Attr *)blk_find_attr(b, id);
    if (!a) {
        if (!reserve(g, (void **)&b->attrs, b->n_attrs, &b->cap_attrs, sizeof(Attr)))
            return false;
        a = &b->attrs[b->n_attrs++];
        a->id = id;
    }
    a->value = value;
    a->has_value = true;
    return true;
}

bool blk_set_model(Graph *g, Block *b, const int64_t *dims, uint32_t ndim, PrecisionId prec,
                   bool has_prec)
{
    int64_t *d = arena_alloc(g->arena, ndim ? ndim : 1, sizeof *d);
    if (!d)
        return false;
    for (uint32_t i = 0; i < ndim; i++)
        d[i] = dims[i];
    b->has_model = true;
    b->model_ndim = ndim;
    b->model_dims = d;
    b->model_prec = prec;
    b->has_model_prec = has_prec;
    return true;
}

void blk_input_range(const Block *b, int64_t *lo, int64_t *hi)
{
    *lo = INT32_MIN;
    *hi = INT32_MAX;
    const PrecisionInfo *pi = b->has_prec ? pr_info(b->prec) : NULL;
    if (pi && pi->lo > *lo)
        *lo = pi->lo;
    if (pi && pi->hi < *hi)
        *hi = pi->hi;
    if (b->has_model && b->has_model_range) {
        if (b->model_lo > *lo)
            *lo = b->model_lo;
        if (b->model_hi < *hi)
            *hi = b->model_hi;
    }
}

int64_t blk_model_volume(const Block *b)
{
    if (!b->has_model)
        return -1;
    int64_t v = 1;
    for (uint32_t i = 0; i < b->model_ndim; i++) {
        int64_t n = b->model_dims[i];
        if (n < 0 || (n && v > ((int64_t)1 << 62) / n))
            return -1;
        v *= n;
    }
    return v;
}

bool attr_int_value(const Attr *a, int32_t *out)
{
    if (a->has_value) {
        *out = a->value;
        return true;
    }
    /* The range test comes first: converting an out-of-range float to int is undefined. */
    double f = a->fvalue;
    if (a->has_fvalue && f >= -2147483648.0 && f <= 2147483647.0 && f == (double)(int32_t)f) {
        *out = (int32_t)f;
        return true;
    }
    return false;
}

/* The existing tools write 0 for "unset" stride and dilation: it reads as 1. */
static bool zero_reads_as_one(AttrId id)
{
    return id == AT_STRIDE_X || id == AT_STRIDE_Y || id == AT_DILATION_X || id == AT_DILATION_Y;
}

int32_t blk_attr(const Block *b, AttrId id)
{
    const Attr *a = blk_find_attr(b, id);
    const AttrInfo *ai = at_info(id);
    int32_t v;
    if (!a || !attr_int_value(a, &v))
        return ai->dflt;
    if (v == 0 && zero_reads_as_one(id))
        return 1;
    return v;
}

bool attr_is_neutral(const Attr *a)
{
    const AttrInfo *ai = at_info(a->id);
    int32_t v;
    if (!ai || !attr_int_value(a, &v))
        return false;
    return v == ai->dflt || (v == 0 && zero_reads_as_one(a->id));
}

bool tensor_set_i32(Graph *g, Tensor *t, const int32_t *dims, uint32_t n_dims,
                    const int32_t *values, uint32_t n_values)
{
    t->dims = arena_grow(g->arena, dims, n_dims, n_dims, sizeof *dims);
    t->i32 = arena_grow(g->arena, values, n_values, n_values, sizeof *values);
    if ((n_dims && !t->dims) || (n_values && !t->i32))
        return false;
    t->n_dims = n_dims;
    t->n_i32 = n_values;
    t->i8 = NULL;
    t->prec = PR_INT_32;
    t->has_prec = true;
    return true;
}

bool blk_set_data(Graph *g, Block *b, PrecisionId prec, const int32_t *dims, uint32_t n_dims,
                  const int64_t *values, uint64_t n_values)
{
    if (n_values > UINT32_MAX)
        return false;
    Tensor *t = arena_alloc(g->arena, 1, sizeof *t);
    if (!t)
        return false;
    t->prec = prec;
    t->has_prec = true;
    t->dims = arena_grow(g->arena, dims, n_dims, n_dims, sizeof *dims);
    if (n_dims && !t->dims)
        return false;
    t->n_dims = n_dims;
    switch (pr_info(prec)->container) {
    case TC_INT32:
        if (!(t->i32 = arena_alloc(g->arena, n_values, sizeof *t->i32)))
            return false;
        for (uint64_t i = 0; i < n_values; i++)
            t->i32[i] = (int32_t)values[i];
        t->n_i32 = (uint32_t)n_values;
        break;
    case TC_UINT32:
        if (!(t->u32 = arena_alloc(g->arena, n_values, sizeof *t->u32)))
            return false;
        for (uint64_t i = 0; i < n_values; i++)
            t->u32[i] = (uint32_t)values[i];
        t->n_u32 = (uint32_t)n_values;
        break;
    case TC_FLOAT:
        if (!(t->f32 = arena_alloc(g->arena, n_values, sizeof *t->f32)))
            return false;
        for (uint64_t i = 0; i < n_values; i++)
            t->f32[i] = (float)values[i];
        t->n_f32 = (uint32_t)n_values;
        break;
    }
    b->data = t;
    return true;
}

Rearrange *edge_add_rearrange(Graph *g, Edge *e, RearrangeType type, uint32_t n_mats)
{
    Rearrange *r = arena_grow(g->arena, e->re, e->n_re, (size_t)e->n_re + 1, sizeof *r);
    if (!r)
        return NULL;
    e->re = r;
    r = &e->re[e->n_re++];
    r->type = type;
    if (n_mats) {
        r->mats = arena_alloc(g->arena, n_mats, sizeof *r->mats);
        if (!r->mats)
            return NULL;
        r->n_mats = n_mats;
    }
    return r;
}

/* ---- per-type facts ---- */

PrecisionId blk_prec(const Block *b)
{
    if (b->has_prec)
        return b->prec;
    return bt_info(b->type)->kind == BK_COMPUTE ? PR_INT_32 : PR_INT_8;
}

void blk_eff_shape(const Block *b, int32_t out[TIR_NDIMS])
{
    const char *dims = bt_info(b->type)->dims;
    for (int i = 0; i < TIR_NDIMS; i++)
        out[i] = b->shape.d[i];
    for (int i = 0; i < TIR_NDIMS; i++) {
        if (out[i] != 0 || (dims[i] != 'o' && dims[i] != 'v'))
            continue;
        if (i == D_IY)
            out[i] = out[D_Y] ? out[D_Y] : 1;
        else if (i == D_IX)
            out[i] = out[D_X] ? out[D_X] : 1;
        else if (i == D_Y || i == D_X || i == D_KY || i == D_KX)
            out[i] = 1;
    }
}

/* Clusters of the type besides the bias and the repeats of the first role. */
static uint32_t fixed_inputs(const BlockTypeInfo *ti)
{
    return (uint32_t)ti->n_ins;
}

bool blk_idle_input(const Block *b)
{
    return (unsigned)b->type < BT_COUNT && bt_info(b->type)->kind == BK_STORAGE &&
           (bt_info(b->type)->flags & BF_DATA) && b->data && b->n_in == 1 &&
           b->in[0].n_ifaces == 0;
}

bool blk_has_bias_cluster(const Block *b)
{
    const BlockTypeInfo *ti = bt_info(b->type);
    if (!(ti->flags & BF_BIAS))
        return false;
    if (b->bias_type == BIAS_VECTOR)
        return true;
    if (b->bias_type == BIAS_CONSTANT)
        return false;
    /* bias_type absent (proto2 reads it as VECTOR): a bias cluster when there is one to
     * spare beyond the inputs the type needs. */
    if (ti->nvar == 1)
        return b->n_in == fixed_inputs(ti) + 1;
    if (b->shape.n_branch > 0)
        return b->n_in == (uint32_t)b->shape.n_branch + fixed_inputs(ti);
    return false;
}

uint32_t blk_n_variadic(const Block *b)
{
    const BlockTypeInfo *ti = bt_info(b->type);
    if (ti->nvar == 1 || ti->n_ins == 0)
        return 1;
    uint32_t others = fixed_inputs(ti) - 1 + (blk_has_bias_cluster(b) ? 1 : 0);
    return b->n_in > others ? b->n_in - others : 0;
}

const ClusterSpec *blk_in_spec(const Block *b, uint32_t idx)
{
    const BlockTypeInfo *ti = bt_info(b->type);
    if (ti->n_ins == 0)
        return NULL;
    uint32_t nvar = blk_n_variadic(b);
    if (idx < nvar)
        return &ti->ins[0];
    uint32_t k = idx - nvar + 1;
    if (k < (uint32_t)ti->n_ins)
        return &ti->ins[k];
    if (k == (uint32_t)ti->n_ins && blk_has_bias_cluster(b))
        return &bt_bias_cluster;
    return NULL;
}

const ClusterSpec *blk_out_spec(const Block *b, uint32_t idx)
{
    const BlockTypeInfo *ti = bt_info(b->type);
    return idx < (uint32_t)ti->n_outs ? &ti->outs[idx] : NULL;
}

bool blk_spec_dims(const Block *b, const ClusterSpec *spec, int32_t out[TIR_CDIMS])
{
    if (!spec)
        return false;
    int32_t s[TIR_NDIMS];
    blk_eff_shape(b, s);
    for (int i = 0; i < TIR_CDIMS; i++) {
        int d = spec->dim[i];
        if (d == D_NO)
            out[i] = 0;
        else if (d == D_LUT) {
            int32_t dw = blk_attr(b, AT_LUT_DW);
            out[i] = dw >= 0 && dw <= 30 ? (int32_t)1 << dw : 0;
        } else
            out[i] = s[d];
    }
    return true;
}

bool blk_cluster_dims(const Block *b, bool input, uint32_t idx, int32_t out[TIR_CDIMS])
{
    const Cluster *c = NULL;
    if (input && idx < b->n_in)
        c = &b->in[idx];
    else if (!input && idx < b->n_out)
        c = &b->out[idx];
    if (c && c->has_shape) {
        for (int i = 0; i < TIR_CDIMS; i++)
            out[i] = c->shape.d[i];
        return true;
    }
    return blk_spec_dims(b, input ? blk_in_spec(b, idx) : blk_out_spec(b, idx), out);
}

bool tir_window_out(int64_t in, int64_t pad_lo, int64_t pad_hi, int64_t kernel, int64_t stride,
                    int64_t dilation, int64_t *out)
{
    /* All operands are int32 ranged, so these int64 sums cannot overflow. */
    if (stride < 1 || dilation < 1 || kernel < 1 || in < 1 || pad_lo < 0 || pad_hi < 0)
        return false;
    int64_t span = dilation * (kernel - 1) + 1;
    int64_t padded = in + pad_lo + pad_hi;
    if (padded < span)
        return false;
    *out = (padded - span) / stride + 1;
    return true;
}

static int64_t mul_sat(int64_t a, int64_t b)
{
    if (a <= 0 || b <= 0)
        return 0;
    return a > INT64_MAX / b ? INT64_MAX : a * b;
}

int64_t blk_macs(const Block *b)
{
    int32_t s[TIR_NDIMS];
    blk_eff_shape(b, s);
    int64_t yxf = mul_sat(mul_sat(s[D_Y], s[D_X]), s[D_F]);
    switch (b->type) {
    case BT_CC:
    case BT_CC2D:
        return mul_sat(mul_sat(mul_sat(yxf, s[D_R]), s[D_KY]), s[D_KX]);
    case BT_CVM:
        return mul_sat(s[D_F], s[D_R]);
    case BT_CAVG:
        return mul_sat(mul_sat(yxf, s[D_KY]), s[D_KX]);
    case BT_CADD:
        return mul_sat(mul_sat(mul_sat(yxf, blk_n_variadic(b)), s[D_KY]), s[D_KX]);
    case BT_CVVH:
    case BT_CAX:
    case BT_CVS:
        return yxf;
    default:
        return 0;
    }
}

void blk_describe(const Block *b, char *buf, size_t len)
{
    if (!b) {
        snprintf(buf, len, "graph");
        return;
    }
    const BlockTypeInfo *ti = bt_info(b->type);
    if (b->name)
        snprintf(buf, len, "block %d (%s '%s')", (int)b->id, ti ? ti->name : "?", b->name);
    else
        snprintf(buf, len, "block %d (%s)", (int)b->id, ti ? ti->name : "?");
}

int64_t tir_volume(const int32_t *dims, int n)
{
    int64_t v = 1;
    for (int i = 0; i < n; i++) {
        if (dims[i] == 0)
            continue;
        if (dims[i] < 0 || v > INT64_MAX / dims[i])
            return -1;
        v *= dims[i];
    }
    return v;
}
