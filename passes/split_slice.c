/* split_slice.c: the part of a storage block's data that a piece reads (split.h).
 *
 * A part that is the whole tensor is the tensor itself, a run of whole rows along its first
 * axis a view into it (blk_set_data_view); any other part (an r cut of a conv's weights
 * [f r ky kx], a cut of a matrix's columns) is a copy. Equal parts of one tensor are one
 * copy: the pieces of a y or x cut share their weights, and when each of them is cut along r
 * again their slices would be equal copies (on the 10x ResNet-50 model a third of the bytes
 * copied). SplitSlices remembers every part it gave out by the tensor it came from (its
 * root: a tensor the pass did not make) and the part's box in that tensor's axes, so that a
 * part of a part (an r slice of a view of f rows) is a box of the root too.
 *
 * The copies are made at the end of the pass (split_slices_finish), when it is known which
 * of them the graph still holds and which tensors nothing else holds: a tensor read only
 * through copies of its parts is dead once they are made, so its parts are written into
 * its own memory, one after the other (through a scratch copy of it), and no fresh memory
 * is taken for them. On the 10x model that is a gigabyte of fresh pages, whose first
 * touch costs more than the copying (docs/passes.md, "Where the 10x model's time goes").
 * Until then a copy is a tensor without values (its counts 0): nothing in the pass reads
 * values. Without a SplitSlices every copy is made at once, in fresh memory. */
#include "passes/split.h"

#include <stdlib.h>
#include <string.h>

/* What a copy is made of: zeroed before it is filled, so that it compares and hashes as
 * bytes. src, n_src, kind, dims: the root's values; lo, ext: the box in the root's axes. */
typedef struct SliceKey {
    const void *src;                       /* the values' first element */
    uint32_t n_src, n_dims;
    uint8_t kind, has_prec;                /* kind: 0 int32, 1 uint32, 2 float, 3 int8 */
    int32_t prec;
    int32_t dims[TIR_CDIMS];
    int64_t lo[TIR_CDIMS], ext[TIR_CDIMS];
} SliceKey;

/* A tensor the pass made: a view (values set) or a copy (values set by finish). */
typedef struct Part {
    Tensor *t;
    const Tensor *root;
    uint32_t root_ord;                     /* the order of the root's first part */
    bool copy, live;                       /* live: a block of the graph holds it (finish) */
    int64_t lo[TIR_CDIMS], ext[TIR_CDIMS]; /* the box in the root's axes */
} Part;

/* Open addressing: keys to part index + 1 (0: a free slot). */
typedef struct KeySlot {
    SliceKey key;
    uint32_t part;
} KeySlot;

typedef struct PtrSlot {
    const void *p;
    uint32_t val;                          /* + 1; 0: a free slot */
} PtrSlot;

typedef struct PtrMap {
    PtrSlot *slot;
    size_t n, cap;                         /* cap: 0 or a power of two */
} PtrMap;

struct SplitSlices {
    KeySlot *slot;
    size_t n, cap;                         /* cap: 0 or a power of two */
    Part *part;
    size_t n_part, cap_part;
    PtrMap made;                           /* Part.t -> part */
    PtrMap roots;                          /* Part.root -> root_ord */
    uint32_t n_roots;
    SplitSliceStats stats;
};

SplitSlices *split_slices_create(void)
{
    return calloc(1, sizeof(SplitSlices));
}

void split_slices_destroy(SplitSlices *s)
{
    if (!s)
        return;
    free(s->slot);
    free(s->part);
    free(s->made.slot);
    free(s->roots.slot);
    free(s);
}

SplitSliceStats split_slices_stats(const SplitSlices *s)
{
    return s->stats;
}

static uint64_t key_hash(const SliceKey *k)
{
    const unsigned char *p = (const unsigned char *)k;
    uint64_t h = 14695981039346656037u; /* FNV-1a */
    for (size_t i = 0; i < sizeof *k; i++)
        h = (h ^ p[i]) * 1099511628211u;
    return h;
}

/* The slot of key k: the one holding it, or the free slot where it goes. */
static KeySlot *slot_of(const SplitSlices *s, const SliceKey *k)
{
    size_t mask = s->cap - 1, i = (size_t)key_hash(k) & mask;
    while (s->slot[i].part && memcmp(&s->slot[i].key, k, sizeof *k))
        i = (i + 1) & mask;
    return &s->slot[i];
}

/* Records part index i as the copy k names; false when out of memory. */
static bool remember(SplitSlices *s, const SliceKey *k, uint32_t i)
{
    if (2 * (s->n + 1) > s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        if (cap > SIZE_MAX / sizeof(KeySlot))
            return false;
        KeySlot *old = s->slot, *ns = calloc(cap, sizeof *ns);
        if (!ns)
            return false;
        size_t ocap = s->cap;
        s->slot = ns;
        s->cap = cap;
        for (size_t j = 0; j < ocap; j++)
            if (old[j].part)
                *slot_of(s, &old[j].key) = old[j];
        free(old);
    }
    KeySlot *e = slot_of(s, k);
    e->key = *k;
    e->part = i + 1;
    s->n++;
    return true;
}

static PtrSlot *ptr_slot(const PtrMap *m, const void *p)
{
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15u;
    size_t mask = m->cap - 1, i = (size_t)(h >> 20) & mask;
    while (m->slot[i].val && m->slot[i].p != p)
        i = (i + 1) & mask;
    return &m->slot[i];
}

/* The value p maps to (+ 1), 0 when none. */
static uint32_t ptr_get(const PtrMap *m, const void *p)
{
    return m->cap ? ptr_slot(m, p)->val : 0;
}

/* Maps p to val (+ 1); false when out of memory. */
static bool ptr_put(PtrMap *m, const void *p, uint32_t val)
{
    if (2 * (m->n + 1) > m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 64;
        if (cap > SIZE_MAX / sizeof(PtrSlot))
            return false;
        PtrSlot *old = m->slot, *ns = calloc(cap, sizeof *ns);
        if (!ns)
            return false;
        size_t ocap = m->cap;
        m->slot = ns;
        m->cap = cap;
        for (size_t j = 0; j < ocap; j++)
            if (old[j].val)
                *ptr_slot(m, old[j].p) = old[j];
        free(old);
    }
    PtrSlot *e = ptr_slot(m, p);
    if (!e->val)
        m->n++;
    e->p = p;
    e->val = val;
    return true;
}

/* The tensor's values: the first element, their count and kind (0 int32, 1 uint32, 2
 * float, 3 int32 held as int8: Tensor.i8). */
static const char *values_of(const Tensor *t, uint32_t *n, uint8_t *kind)
{
    *kind = t->i8 ? 3 : t->n_i32 ? 0 : t->n_u32 ? 1 : 2;
    *n = t->n_i32 ? t->n_i32 : t->n_u32 ? t->n_u32 : t->n_f32;
    return t->i8 ? (const char *)t->i8 : t->n_i32 ? (const char *)t->i32
                                     : t->n_u32  ? (const char *)t->u32
                                                 : (const char *)t->f32;
}

/* The bytes of an element of kind: 4, 1 for int8. */
static size_t es_of(uint8_t kind)
{
    return kind == 3 ? 1 : 4;
}

/* Gives t the values at dst: vol elements of kind. */
static void set_values(Tensor *t, uint8_t kind, char *dst, int64_t vol)
{
    t->i32 = kind == 0 ? (int32_t *)(void *)dst : NULL;
    t->i8 = kind == 3 ? (int8_t *)dst : NULL;
    t->n_i32 = kind == 0 || kind == 3 ? (uint32_t)vol : 0;
    t->u32 = kind == 1 ? (uint32_t *)(void *)dst : NULL;
    t->n_u32 = kind == 1 ? (uint32_t)vol : 0;
    t->f32 = kind == 2 ? (float *)(void *)dst : NULL;
    t->n_f32 = kind == 2 ? (uint32_t)vol : 0;
}

/* Copies the box lo/ext of the k-axis array src of dims (elements of es bytes) into dst, in
 * C order, in runs: the axes after the last one cut are whole, so each run is contiguous in
 * both. */
static void copy_box(char *dst, const char *src, size_t es, const int32_t *dims, int k,
                     const int64_t *lo, const int64_t *ext)
{
    int64_t vol = 1, stride[TIR_CDIMS] = {0};
    for (int a = k - 1; a >= 0; a--) {
        stride[a] = a == k - 1 ? 1 : stride[a + 1] * dims[a + 1];
        vol *= ext[a];
    }
    int last = k - 1;
    while (last > 0 && lo[last] == 0 && ext[last] == dims[last])
        last--;
    int64_t run = ext[last] * stride[last];
    int64_t c0[TIR_CDIMS] = {0};
    for (int64_t i = 0; i < vol; i += run) {
        int64_t off = 0;
        for (int a = 0; a <= last; a++)
            off += (lo[a] + c0[a]) * stride[a];
        memcpy(dst + (size_t)i * es, src + (size_t)off * es, (size_t)run * es);
        for (int a = last - 1; a >= 0; a--) {
            if (++c0[a] < ext[a])
                break;
            c0[a] = 0;
        }
    }
}

static int64_t box_volume(int k, const int64_t *ext)
{
    int64_t vol = 1;
    for (int a = 0; a < k; a++)
        vol *= ext[a];
    return vol;
}

/* A tensor like t with dims ext (k of them) and no values yet, in g's arena. */
static Tensor *header(Graph *g, const Tensor *t, int k, const int64_t *ext)
{
    Tensor *n = arena_alloc(g->arena, 1, sizeof *n);
    if (!n || !(n->dims = arena_alloc(g->arena, (size_t)k, sizeof *n->dims)))
        return NULL;
    int32_t *dims = n->dims;
    *n = *t;
    n->dims = dims;
    n->name = NULL;
    for (int a = 0; a < k; a++)
        dims[a] = (int32_t)ext[a];
    set_values(n, 0, NULL, 0);
    return n;
}

/* The copy of the part lo/ext of t, made now in g's arena. */
static Tensor *copy_now(Graph *g, const Tensor *t, int k, const int64_t *lo,
                        const int64_t *ext)
{
    Tensor *n = header(g, t, k, ext);
    int64_t vol = box_volume(k, ext);
    uint32_t have;
    uint8_t kind;
    const char *src = values_of(t, &have, &kind);
    char *dst = n ? arena_alloc(g->arena, (size_t)vol, es_of(kind)) : NULL;
    if (!dst)
        return NULL;
    copy_box(dst, src, es_of(kind), t->dims, k, lo, ext);
    set_values(n, kind, dst, vol);
    return n;
}

/* Records t as a part (a copy or not) of root at lo/ext; its index in *i. */
static bool add_part(SplitSlices *s, Tensor *t, const Tensor *root, bool copy, int k,
                     const int64_t *lo, const int64_t *ext, uint32_t *i)
{
    if (s->n_part == s->cap_part) {
        size_t cap = s->cap_part ? 2 * s->cap_part : 64;
        if (cap > UINT32_MAX - 1 || cap > SIZE_MAX / sizeof(Part))
            return false;
        Part *np = realloc(s->part, cap * sizeof *np);
        if (!np)
            return false;
        s->part = np;
        s->cap_part = cap;
    }
    uint32_t ord = ptr_get(&s->roots, root);
    if (!ord) {
        if (!ptr_put(&s->roots, root, ++s->n_roots))
            return false;
        ord = s->n_roots;
    }
    Part *p = &s->part[s->n_part];
    memset(p, 0, sizeof *p);
    p->t = t, p->root = root, p->root_ord = ord - 1, p->copy = copy;
    for (int a = 0; a < k; a++)
        p->lo[a] = lo[a], p->ext[a] = ext[a];
    *i = (uint32_t)s->n_part;
    if (!ptr_put(&s->made, t, *i + 1))
        return false;
    s->n_part++;
    return true;
}

bool split_slice_data(Graph *g, SplitSlices *cache, const Block *s, Block *c,
                      const SplitBox *r)
{
    const Tensor *t = s->data;
    int dim[TIR_CDIMS], k = 0;
    for (int j = 0; j < TIR_CDIMS; j++)
        if (s->shape.d[j] > 0)
            dim[k++] = j;
    if ((uint32_t)k != t->n_dims)
        return false;
    int cut = 0, first = -1;
    int64_t lo[TIR_CDIMS], ext[TIR_CDIMS];
    for (int a = 0; a < k; a++) {
        lo[a] = r->size[dim[a]] > 0 ? r->pos[dim[a]] : 0;
        ext[a] = r->size[dim[a]] > 0 ? r->size[dim[a]] : t->dims[a];
        if (lo[a] != 0 || ext[a] != t->dims[a]) {
            cut++;
            if (first < 0)
                first = a;
        }
    }
    if (cut == 0) {
        c->data = s->data;
        return true;
    }
    uint32_t pi = cache ? ptr_get(&cache->made, t) : 0;
    const Part *from = pi ? &cache->part[pi - 1] : NULL;
    if (!from) { /* t is a root: its values must be its dims' volume */
        uint32_t have;
        uint8_t kind;
        values_of(t, &have, &kind);
        if (tir_volume(t->dims, k) != (int64_t)have)
            return false;
        for (int a = 0; a < k; a++)
            if (t->dims[a] <= 0)
                return false;
    }
    const Tensor *root = from ? from->root : t;
    bool rows = true; /* the part, in the root's axes: whole rows of it? */
    for (int a = 0; a < k; a++) {
        lo[a] += from ? from->lo[a] : 0;
        rows = rows && (a == 0 || (lo[a] == 0 && ext[a] == root->dims[a]));
    }
    if (!cache) {
        if (cut == 1 && first == 0)
            return blk_set_data_view(g, c, t, (uint32_t)lo[0], (uint32_t)ext[0]);
        return (c->data = copy_now(g, t, k, lo, ext)) != NULL;
    }
    uint32_t i;
    if (rows) {
        if (!blk_set_data_view(g, c, root, (uint32_t)lo[0], (uint32_t)ext[0]))
            return false;
        return add_part(cache, c->data, root, false, k, lo, ext, &i);
    }
    SliceKey key;
    memset(&key, 0, sizeof key);
    key.src = values_of(root, &key.n_src, &key.kind);
    key.n_dims = (uint32_t)k;
    key.has_prec = root->has_prec;
    key.prec = (int32_t)root->prec;
    for (int a = 0; a < k; a++) {
        key.dims[a] = root->dims[a];
        key.lo[a] = lo[a];
        key.ext[a] = ext[a];
    }
    const KeySlot *e = cache->cap ? slot_of(cache, &key) : NULL;
    if (e && e->part) {
        c->data = cache->part[e->part - 1].t;
        return true;
    }
    Tensor *n = header(g, root, k, ext);
    if (!n || !add_part(cache, n, root, true, k, lo, ext, &i) || !remember(cache, &key, i))
        return false;
    c->data = n;
    return true;
}

/* ---- making the copies ---- */

/* A range of memory the graph holds: the values of a tensor a block holds (root UINT32_MAX)
 * or of the root of ordinal root whose copies the graph holds. */
typedef struct Range {
    uintptr_t lo, hi;
    uint32_t root;
} Range;

static int range_cmp(const void *x, const void *y)
{
    const Range *a = x, *b = y;
    return a->lo < b->lo ? -1 : a->lo > b->lo ? 1 : a->root < b->root ? -1 : a->root > b->root;
}

static bool add_range(Range **r, size_t *n, size_t *cap, const Tensor *t, uint32_t root)
{
    uint32_t cnt;
    uint8_t kind;
    const char *v = values_of(t, &cnt, &kind);
    if (!cnt)
        return true;
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 256;
        if (c > SIZE_MAX / sizeof **r)
            return false;
        Range *nr = realloc(*r, c * sizeof *nr);
        if (!nr)
            return false;
        *r = nr;
        *cap = c;
    }
    (*r)[(*n)++] = (Range){(uintptr_t)v, (uintptr_t)v + (uintptr_t)cnt * es_of(kind), root};
    return true;
}

/* free[ord]: the root of ordinal ord holds no memory any other range of r holds (r sorted). */
static void mark_free(const Range *r, size_t n, bool *free_root)
{
    uintptr_t hi = 0;
    for (size_t i = 0; i < n; i++) {
        bool over = (i > 0 && r[i].lo < hi) || (i + 1 < n && r[i + 1].lo < r[i].hi);
        if (r[i].root != UINT32_MAX)
            free_root[r[i].root] = !over;
        if (r[i].hi > hi)
            hi = r[i].hi;
    }
}

/* The live copies ordered by root, then by their first row in it, then as made. */
static int by_root(const void *x, const void *y)
{
    const Part *a = *(const Part *const *)x, *b = *(const Part *const *)y;
    if (a->root_ord != b->root_ord)
        return a->root_ord < b->root_ord ? -1 : 1;
    if (a->lo[0] != b->lo[0])
        return a->lo[0] < b->lo[0] ? -1 : 1;
    return a < b ? -1 : a > b;
}

typedef struct Scratch {
    char *p;
    size_t cap;
} Scratch;

/* Fills the copies p[0..n) of one root whose parts read its rows [a, b) and no other copy
 * of it reads these rows: when the root is free, into those rows' memory (from a scratch
 * copy of them), else (and for what does not fit there) in fresh memory of g's arena. */
static bool fill_rows(Graph *g, SplitSlices *s, Part **p, size_t n, int64_t a, int64_t b,
                      bool free_root, Scratch *sc)
{
    const Tensor *root = p[0]->root;
    uint32_t have;
    uint8_t kind;
    const char *src = values_of(root, &have, &kind);
    size_t es = es_of(kind);
    int k = (int)root->n_dims;
    int32_t dims[TIR_CDIMS];
    int64_t row = 1, lo[TIR_CDIMS];
    for (int i = 0; i < k; i++) {
        dims[i] = root->dims[i];
        row *= i ? dims[i] : 1;
    }
    char *own = NULL;
    size_t bytes = (size_t)((b - a) * row) * es;
    if (free_root) {
        if (bytes > sc->cap) {
            char *np = realloc(sc->p, bytes);
            if (!np)
                return false;
            sc->p = np, sc->cap = bytes;
        }
        own = (char *)(uintptr_t)src + (size_t)(a * row) * es; /* nothing else holds it */
        memcpy(sc->p, own, bytes);
        src = sc->p;
        dims[0] = (int32_t)(b - a);
    }
    int64_t off = 0, room = (b - a) * row;
    for (size_t i = 0; i < n; i++) {
        int64_t vol = box_volume(k, p[i]->ext);
        char *dst;
        if (own && off + vol <= room) {
            dst = own + (size_t)off * es;
            off += vol;
            s->stats.in_place_values += (uint64_t)vol;
        } else {
            if (!(dst = arena_alloc(g->arena, (size_t)vol, es)))
                return false;
            s->stats.fresh_values += (uint64_t)vol;
        }
        memcpy(lo, p[i]->lo, sizeof lo);
        lo[0] -= own ? a : 0;
        copy_box(dst, src, es, dims, k, lo, p[i]->ext);
        set_values(p[i]->t, kind, dst, vol);
    }
    return true;
}

/* Fills the copies p[0..n) of one root (by_root's order), a run of overlapping rows at a
 * time: a copy's rows are then read before the copies are written over them. */
static bool fill_root(Graph *g, SplitSlices *s, Part **p, size_t n, bool free_root,
                      Scratch *sc)
{
    for (size_t i = 0, j; i < n; i = j) {
        int64_t a = p[i]->lo[0], b = a + p[i]->ext[0];
        for (j = i + 1; j < n && p[j]->lo[0] < b; j++)
            if (p[j]->lo[0] + p[j]->ext[0] > b)
                b = p[j]->lo[0] + p[j]->ext[0];
        if (!fill_rows(g, s, p + i, j - i, a, b, free_root, sc))
            return false;
    }
    return true;
}

bool split_slices_finish(Graph *g, SplitSlices *s)
{
    if (!s || !s->n_part)
        return true;
    Range *r = NULL;
    size_t nr = 0, cr = 0, nl = 0;
    Part **live = malloc(s->n_part * sizeof *live);
    bool *free_root = calloc(s->n_roots ? s->n_roots : 1, sizeof *free_root);
    bool *has_live = calloc(s->n_roots ? s->n_roots : 1, sizeof *has_live);
    bool ok = live && free_root && has_live;
    /* what the graph holds: the copies (once each) and the values of every other tensor */
    for (uint32_t i = 0; ok && i < g->n_blocks; i++) {
        const Block *b = g->blocks[i];
        if (b->removed || !b->data)
            continue;
        uint32_t pi = ptr_get(&s->made, b->data);
        Part *p = pi ? &s->part[pi - 1] : NULL;
        if (p && p->copy) {
            if (!p->live)
                live[nl++] = p;
            p->live = true;
            has_live[p->root_ord] = true;
        } else {
            ok = add_range(&r, &nr, &cr, b->data, UINT32_MAX);
        }
    }
    for (size_t i = 0; ok && i < nl; i++)
        if (has_live[live[i]->root_ord]) {
            has_live[live[i]->root_ord] = false; /* once a root */
            ok = add_range(&r, &nr, &cr, live[i]->root, live[i]->root_ord);
        }
    if (ok && nr) {
        qsort(r, nr, sizeof *r, range_cmp);
        mark_free(r, nr, free_root);
    }
    Scratch sc = {NULL, 0};
    if (ok)
        qsort(live, nl, sizeof *live, by_root);
    for (size_t i = 0, j; ok && i < nl; i = j) {
        for (j = i + 1; j < nl && live[j]->root_ord == live[i]->root_ord; j++)
            ;
        ok = fill_root(g, s, live + i, j - i, free_root[live[i]->root_ord], &sc);
    }
    free(sc.p);
    free(r);
    free(live);
    free(free_root);
    free(has_live);
    return ok;
}
