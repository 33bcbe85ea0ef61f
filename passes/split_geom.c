/* split_geom.c: where one piece of a cut block reads and writes (split.h). A piece along y
 * or x computes output rows (columns) [lo, hi); it reads the input rows its windows touch:
 * from lo*stride - pad to (hi-1)*stride + (k-1)*dilation - pad, clipped to the input, and
 * keeps as padding only the part of that range outside the input (so only a piece at the
 * border keeps the border's padding). Along f it reads the channels it computes of an
 * elementwise input and the rows of the weights and bias; along r the reduction's slice of
 * the input and of the weights. */
#include "passes/split.h"
#include "taskir/chip.h"

#include <string.h>

const char split_axis_names[SPLIT_AXES] = {'y', 'x', 'f', 'r'};

int32_t split_extent(const Block *b, SplitAxis ax)
{
    int32_t s[TIR_NDIMS];
    blk_eff_shape(b, s);
    static const int dim[SPLIT_AXES] = {D_Y, D_X, D_F, D_R};
    return s[dim[ax]];
}

bool split_can(const Block *b, SplitAxis ax)
{
    const BlockTypeInfo *ti = bt_info(b->type);
    if (!ti || ti->kind != BK_COMPUTE)
        return false;
    if (ax == SPLIT_R && b->type != BT_CC && b->type != BT_CC2D && b->type != BT_CVM)
        return false;
    if ((ax == SPLIT_Y || ax == SPLIT_X) && b->type == BT_CVM)
        return false;
    if ((ax == SPLIT_Y && b->shape.d[D_Y] == 0) || (ax == SPLIT_X && b->shape.d[D_X] == 0))
        return false; /* a 1-D form, or an absent optional y/x: extent 1 */
    return split_extent(b, ax) > 1;
}

int32_t split_align(const Chip *c, const Block *b, SplitAxis ax)
{
    const ChipPrim *p = c ? chip_prim_for(c, b->type) : NULL;
    if (!p)
        return 1;
    uint32_t a = ax == SPLIT_F ? p->chan_group : ax == SPLIT_X ? p->x_group
               : ax == SPLIT_R ? p->r_pad : 1;
    return a > 1 && a < (1u << 24) ? (int32_t)a : 1;
}

int32_t split_unit(const Chip *c, PrecisionId prec, SplitAxis ax)
{
    if (ax != SPLIT_F || !c || !c->packet_bytes || c->packet_bytes > 1024)
        return 1;
    int32_t bits = 1, want = pr_info(prec)->bits; /* held in a power-of-two width */
    while (bits < want)
        bits *= 2;
    int32_t u = (int32_t)c->packet_bytes * 8 / bits;
    return u > 1 ? u : 1;
}

static int64_t units_of(int32_t extent, int32_t align)
{
    return align > 1 ? ((int64_t)extent + align - 1) / align : extent;
}

static int32_t gcd(int32_t a, int32_t b)
{
    while (b) {
        int32_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

void split_cut_bounds(const Chip *c, const Block *b, SplitAxis ax, uint32_t n, int32_t unit,
                      int32_t *bounds)
{
    int32_t ext = split_extent(b, ax), a = split_align(c, b, ax);
    if (unit < 1)
        unit = 1;
    int64_t both = (int64_t)a / gcd(a, unit) * unit;
    int32_t tries[3] = {both < (1 << 24) ? (int32_t)both : a, unit, a};
    for (int i = 0; i < 3; i++)
        if (units_of(ext, tries[i]) >= (int64_t)n) {
            split_bounds(ext, n, tries[i], bounds);
            return;
        }
    split_bounds(ext, n, 1, bounds);
}

void split_bounds(int32_t extent, uint32_t n, int32_t align, int32_t *bounds)
{
    int64_t units = units_of(extent, align);
    if (align <= 1 || units < (int64_t)n) {
        align = 1;
        units = extent;
    }
    int64_t ub = units / n, ur = units % n;
    bounds[0] = 0;
    for (uint32_t i = 0; i < n; i++) {
        int64_t hi = bounds[i] + (ub + ((int64_t)i < ur)) * align;
        bounds[i + 1] = (int32_t)(hi < extent ? hi : extent);
    }
    bounds[n] = extent;
}

static void whole(SplitBox *b, const int32_t cd[TIR_CDIMS])
{
    memset(b->pos, 0, sizeof b->pos);
    memcpy(b->size, cd, sizeof b->size);
}

bool split_piece(const Block *b, SplitAxis ax, int32_t lo, int32_t hi, SplitPiece *p,
                 char *why, size_t whylen)
{
    int32_t s[TIR_NDIMS], cd[TIR_CDIMS];
    blk_eff_shape(b, s);
    memset(p, 0, sizeof *p);
    memcpy(p->shape, b->shape.d, sizeof p->shape);
    if (!blk_cluster_dims(b, false, 0, cd)) {
        snprintf(why, whylen, "it has no output cluster");
        return false;
    }
    whole(&p->out, cd);
    for (uint32_t k = 0; k < b->n_in && k < SPLIT_MAX_IN; k++) {
        int32_t ck[TIR_CDIMS] = {0};
        blk_cluster_dims(b, true, k, ck);
        whole(&p->in[k], ck);
        p->in_whole[k] = true;
    }
    if (ax == SPLIT_F || ax == SPLIT_R) {
        int cdim = ax == SPLIT_F ? 2 : 3, bdim = ax == SPLIT_F ? D_F : D_R;
        p->shape[bdim] = hi - lo;
        if (ax == SPLIT_F) {
            p->out.pos[2] = lo;
            p->out.size[2] = hi - lo;
        }
        for (uint32_t k = 0; k < b->n_in && k < SPLIT_MAX_IN; k++) {
            const ClusterSpec *sp = blk_in_spec(b, k);
            if (sp && sp->dim[cdim] == bdim && p->in[k].size[cdim] > 0) {
                p->in[k].pos[cdim] = lo;
                p->in[k].size[cdim] = hi - lo;
                p->in_whole[k] = false;
            }
        }
        return true;
    }
    /* y or x: the window along one axis */
    bool y = ax == SPLIT_Y;
    unsigned fl = bt_info(b->type)->flags;
    bool win = fl & BF_WINDOW;
    int64_t k = s[y ? D_KY : D_KX], st = win ? blk_attr(b, y ? AT_STRIDE_Y : AT_STRIDE_X) : 1;
    int64_t dl = (fl & BF_DILATE) ? blk_attr(b, y ? AT_DILATION_Y : AT_DILATION_X) : 1;
    int64_t pad = win ? blk_attr(b, y ? AT_PAD_UP : AT_PAD_LEFT) : 0;
    int64_t in = s[y ? D_IY : D_IX];
    if (!win || k < 1) /* CVVH's window has no kernel dims: 1 */
        k = 1;
    if (!win) {
        in = s[y ? D_Y : D_X];
    }
    int64_t start = lo * st - pad, end = (hi - 1) * st + (k - 1) * dl + 1 - pad;
    int64_t a = start > 0 ? start : 0, z = end < in ? end : in;
    if (a >= z) {
        snprintf(why, whylen, "its %s %d..%d read only padding", y ? "rows" : "columns",
                 (int)lo, (int)hi - 1);
        return false;
    }
    int c = y ? 0 : 1;
    p->shape[y ? D_Y : D_X] = hi - lo;
    if (win && (b->shape.d[y ? D_IY : D_IX] != 0 || z - a != hi - lo))
        p->shape[y ? D_IY : D_IX] = (int32_t)(z - a);
    p->pad_lo = (int32_t)(a - start);
    p->pad_hi = (int32_t)(end - z);
    p->out.pos[c] = lo;
    p->out.size[c] = hi - lo;
    for (uint32_t q = 0; q < b->n_in && q < SPLIT_MAX_IN; q++) {
        const ClusterSpec *sp = blk_in_spec(b, q);
        int want = win ? (y ? D_IY : D_IX) : (y ? D_Y : D_X);
        if (sp && sp->dim[c] == want && p->in[q].size[c] > 0) {
            p->in[q].pos[c] = (int32_t)a;
            p->in[q].size[c] = (int32_t)(z - a);
            p->in_whole[q] = false;
        }
    }
    return true;
}

void split_storage_shape(const Block *s, const SplitBox *r, int32_t out[TIR_NDIMS])
{
    int32_t oc[TIR_CDIMS] = {0};
    memcpy(out, s->shape.d, TIR_NDIMS * sizeof *out);
    blk_cluster_dims(s, false, 0, oc);
    for (int j = 0; j < TIR_CDIMS; j++)
        if (oc[j] > 0) /* a storage block's output cluster dims are its shape's */
            out[j] = s->shape.d[j] == 0 && r->size[j] == 1 ? 0 : r->size[j];
}
