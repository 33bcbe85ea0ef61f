/* split_slice.c: the part of a storage block's data that a piece reads (split.h).
 *
 * A part that is the whole tensor is the tensor itself, a run of whole rows along its first
 * axis a view into it (blk_set_data_view); any other part (an r cut of a conv's weights
 * [f r ky kx], a cut of a matrix's columns) is a copy, made in runs. Tensors are never changed
 * once made, so equal parts of one tensor are one copy: the pieces of a y or x cut share their
 * weights, and when each of them is cut along r again their slices would be equal copies (on
 * the 10x ResNet-50 model a third of the bytes copied). SplitSlices remembers each copy by
 * the tensor it came from (its values' address, dims and precision) and the box. */
#include "passes/split.h"

#include <stdlib.h>
#include <string.h>

/* What a copy is made of: zeroed before it is filled, so that it compares and hashes as
 * bytes. */
typedef struct SliceKey {
    const void *src;                       /* the values' first element */
    uint32_t n_src, n_dims;
    uint8_t kind, has_prec;                /* kind: 0 int32, 1 uint32, 2 float */
    int32_t prec;
    int32_t dims[TIR_CDIMS];
    int64_t lo[TIR_CDIMS], ext[TIR_CDIMS];
} SliceKey;

typedef struct SliceEntry {
    SliceKey key;
    Tensor *t; /* NULL: a free slot */
} SliceEntry;

struct SplitSlices {
    SliceEntry *slot;
    size_t n, cap; /* cap: 0 or a power of two */
};

SplitSlices *split_slices_create(void)
{
    return calloc(1, sizeof(SplitSlices));
}

void split_slices_destroy(SplitSlices *s)
{
    if (s)
        free(s->slot);
    free(s);
}

static uint64_t key_hash(const SliceKey *k)
{
    const unsigned char *p = (const unsigned char *)k;
    uint64_t h = 14695981039346656037u; /* FNV-1a */
    for (size_t i = 0; i < sizeof *k; i++)
        h = (h ^ p[i]) * 1099511628211u;
    return h;
}

/* The slot of key k: the entry holding it, or the free slot where it goes. */
static SliceEntry *slot_of(const SplitSlices *s, const SliceKey *k)
{
    size_t mask = s->cap - 1, i = (size_t)key_hash(k) & mask;
    while (s->slot[i].t && memcmp(&s->slot[i].key, k, sizeof *k))
        i = (i + 1) & mask;
    return &s->slot[i];
}

/* Records t as the copy k names; false when out of memory (t is then not shared). */
static bool remember(SplitSlices *s, const SliceKey *k, Tensor *t)
{
    if (2 * (s->n + 1) > s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        if (cap > SIZE_MAX / sizeof(SliceEntry))
            return false;
        SliceEntry *old = s->slot, *ns = calloc(cap, sizeof *ns);
        if (!ns)
            return false;
        size_t ocap = s->cap;
        s->slot = ns;
        s->cap = cap;
        for (size_t i = 0; i < ocap; i++)
            if (old[i].t)
                *slot_of(s, &old[i].key) = old[i];
        free(old);
    }
    SliceEntry *e = slot_of(s, k);
    e->key = *k;
    e->t = t;
    s->n++;
    return true;
}

/* The copy of the part lo/ext (per tensor axis) of t, in g's arena. */
static Tensor *copy_part(Graph *g, const Tensor *t, int k, const int64_t *lo,
                         const int64_t *ext)
{
    Tensor *n = arena_alloc(g->arena, 1, sizeof *n);
    if (!n)
        return NULL;
    *n = *t;
    n->name = NULL;
    if (!(n->dims = arena_alloc(g->arena, (size_t)k, sizeof *n->dims)))
        return NULL;
    int64_t vol = 1, stride[TIR_CDIMS];
    for (int a = k - 1; a >= 0; a--) {
        stride[a] = a == k - 1 ? 1 : stride[a + 1] * t->dims[a + 1];
        n->dims[a] = (int32_t)ext[a];
        vol *= ext[a];
    }
    size_t es = t->n_i32 ? sizeof *t->i32 : t->n_u32 ? sizeof *t->u32 : sizeof *t->f32;
    const char *src = t->n_i32 ? (const char *)t->i32 : t->n_u32 ? (const char *)t->u32
                                                                 : (const char *)t->f32;
    char *dst = arena_alloc(g->arena, (size_t)vol, es);
    if (!dst)
        return NULL;
    /* copied in runs: the axes after the last one cut are whole, so each run is contiguous
     * in both tensors */
    int last = k - 1;
    while (last > 0 && lo[last] == 0 && ext[last] == t->dims[last])
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
    n->i32 = t->n_i32 ? (int32_t *)(void *)dst : NULL;
    n->n_i32 = t->n_i32 ? (uint32_t)vol : 0;
    n->u32 = !t->n_i32 && t->n_u32 ? (uint32_t *)(void *)dst : NULL;
    n->n_u32 = n->u32 ? (uint32_t)vol : 0;
    n->f32 = !t->n_i32 && !t->n_u32 ? (float *)(void *)dst : NULL;
    n->n_f32 = n->f32 ? (uint32_t)vol : 0;
    return n;
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
    for (int a = 0; a < k; a++)
        if (r->size[dim[a]] > 0 && (r->pos[dim[a]] != 0 || r->size[dim[a]] != t->dims[a])) {
            cut++;
            if (first < 0)
                first = a;
        }
    if (cut == 0) {
        c->data = s->data;
        return true;
    }
    if (cut == 1 && first == 0)
        return blk_set_data_view(g, c, t, (uint32_t)r->pos[dim[0]], (uint32_t)r->size[dim[0]]);
    SliceKey key;
    memset(&key, 0, sizeof key);
    key.src = t->n_i32 ? (const void *)t->i32 : t->n_u32 ? (const void *)t->u32
                                                         : (const void *)t->f32;
    key.n_src = t->n_i32 ? t->n_i32 : t->n_u32 ? t->n_u32 : t->n_f32;
    key.kind = t->n_i32 ? 0 : t->n_u32 ? 1 : 2;
    key.n_dims = (uint32_t)k;
    key.has_prec = t->has_prec;
    key.prec = (int32_t)t->prec;
    for (int a = 0; a < k; a++) {
        key.dims[a] = t->dims[a];
        key.lo[a] = r->size[dim[a]] > 0 ? r->pos[dim[a]] : 0;
        key.ext[a] = r->size[dim[a]] > 0 ? r->size[dim[a]] : t->dims[a];
    }
    const SliceEntry *e = cache && cache->cap ? slot_of(cache, &key) : NULL;
    if (e && e->t) {
        c->data = e->t;
        return true;
    }
    Tensor *n = copy_part(g, t, k, key.lo, key.ext);
    if (!n)
        return false;
    c->data = n;
    return !cache || remember(cache, &key, n);
}
