/* verify_iface.c: the interfaces of one block: iface.bounds, iface.edge, and the exact cover
 * of each input cluster (cover.gap, cover.overlap). Which interfaces name each edge is the
 * use index's (verify_edge.c reads it).
 *
 * Cover check of a cluster of volume V with k interface boxes (k <= 65536 after loading):
 * the boxes are clipped to the cluster and their volumes summed (S). Then one overlapping pair
 * is searched for by a sweep along the dim where the boxes overlap least (sorted by start;
 * each box is compared only with the boxes that start before it ends), which is about linear
 * for tilings along one or two dims. If that search passes a budget of pair tests, a bitmap
 * of the cluster finds the first doubly covered element instead when V is small enough, and
 * otherwise the sweep runs to the end (O(k^2) at worst). Then S < V means a gap; S == V with
 * an overlap also means a gap; S == V without one is an exact cover. When S > V and there is
 * an overlap, whether a gap remains is not decided (the overlap is reported).
 */
#include "taskir/verify_impl.h"
#include "taskir/verify_util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SWEEP_BUDGET (UINT64_C(1) << 24)    /* pair tests before the bitmap fallback */
#define BITMAP_MAX_BITS (INT64_C(1) << 26)   /* 8 MiB */
#define BITMAP_MAX_MARKS (INT64_C(1) << 28)  /* sum of box volumes the bitmap may mark */

/* A cluster being checked, and its name for messages, written only when one is needed. */
typedef struct CRef {
    const Block *b;
    bool input;
    uint32_t ci;
    char name[96];
} CRef;

static const char *cref_name(CRef *r)
{
    if (!r->name[0])
        vfy_cluster_name(r->b, r->input, r->ci, r->name, sizeof r->name);
    return r->name;
}

/* iface.edge: the interface names an edge that exists and ends at this block. */
static void check_iface_edge(Verifier *v, CRef *cr, uint32_t fi)
{
    const Block *b = cr->b;
    bool input = cr->input;
    uint32_t ci = cr->ci;
    const Iface *f = input ? &b->in[ci].ifaces[fi] : &b->out[ci].ifaces[fi];
    long pos = graph_edge_pos(v->g, f->edge_id);
    if (pos < 0) {
        vfy_block_edge(v, "iface.edge", b, f->edge_id,
                       "%s interface %" PRIu32 " names edge %d, which does not exist",
                       cref_name(cr), fi,
                       (int)f->edge_id);
        return;
    }
    const Edge *e = v->g->edges[pos];
    int32_t end = input ? e->dst : e->src;
    if (end != b->id)
        vfy_block_edge(v, "iface.edge", b, f->edge_id,
                       "%s interface %" PRIu32 " names edge %d, whose %s is block %d, not this "
                       "block",
                       cref_name(cr), fi, (int)f->edge_id, input ? "dst" : "src", (int)end);
}

/* ---- overlap search ---- */

static bool boxes_meet(const VBox *a, const VBox *b)
{
    for (int i = 0; i < TIR_CDIMS; i++)
        if (a->hi[i] <= b->lo[i] || b->hi[i] <= a->lo[i])
            return false;
    return true;
}

/* Sorts by lo[d] then interface index, with a plain merge sort (qsort has no context). */
static bool sort_boxes(Verifier *v, VBox *box, uint32_t n, int d)
{
    if (n < 2)
        return true;
    VBox *tmp = malloc((size_t)n * sizeof *tmp);
    if (!tmp) {
        v->oom = true;
        return false;
    }
    for (uint32_t w = 1; w < n; w *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * w) {
            uint32_t mid = lo + w < n ? lo + w : n;
            uint32_t hi = mid + w < n ? mid + w : n;
            uint32_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                bool left = box[i].lo[d] < box[j].lo[d] ||
                            (box[i].lo[d] == box[j].lo[d] && box[i].idx <= box[j].idx);
                tmp[k++] = left ? box[i++] : box[j++];
            }
            while (i < mid)
                tmp[k++] = box[i++];
            while (j < hi)
                tmp[k++] = box[j++];
        }
        memcpy(box, tmp, (size_t)n * sizeof *box);
        if (w > UINT32_MAX / 2)
            break;
    }
    free(tmp);
    return true;
}

enum { FOUND, NONE, BUDGET };

/* Finds an overlapping pair among boxes sorted by lo[d]; *a < *b are interface indexes. */
static int sweep(const VBox *box, uint32_t n, int d, uint64_t budget, uint32_t *a, uint32_t *b)
{
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n && box[j].lo[d] < box[i].hi[d]; j++) {
            if (budget && !--budget)
                return BUDGET;
            if (boxes_meet(&box[i], &box[j])) {
                *a = box[i].idx < box[j].idx ? box[i].idx : box[j].idx;
                *b = box[i].idx < box[j].idx ? box[j].idx : box[i].idx;
                return FOUND;
            }
        }
    return NONE;
}

/* Marks the boxes in a bitmap of the cluster until an element is marked twice. */
static int bitmap_overlap(Verifier *v, const VBox *box, uint32_t n, const int64_t e[TIR_CDIMS],
                          int64_t vol, uint32_t *a, uint32_t *b)
{
    uint8_t *bits = calloc((size_t)(vol + 7) / 8, 1);
    if (!bits) {
        v->oom = true;
        return NONE;
    }
    int result = NONE;
    int64_t at[TIR_CDIMS] = {0};
    for (uint32_t k = 0; k < n && result == NONE; k++) {
        const VBox *x = &box[k];
        int64_t c[TIR_CDIMS];
        for (int i = 0; i < TIR_CDIMS; i++)
            c[i] = x->lo[i];
        for (;;) {
            int64_t lin = 0;
            for (int i = 0; i < TIR_CDIMS; i++)
                lin = lin * e[i] + c[i];
            if (bits[lin / 8] & (1u << (lin % 8))) {
                memcpy(at, c, sizeof at);
                result = FOUND;
                break;
            }
            bits[lin / 8] |= (uint8_t)(1u << (lin % 8));
            int i = TIR_CDIMS - 1;
            while (i >= 0 && ++c[i] == x->hi[i]) {
                c[i] = x->lo[i];
                i--;
            }
            if (i < 0)
                break;
        }
    }
    free(bits);
    if (result == FOUND) {
        /* name the two first boxes (by interface index) that hold the element */
        uint32_t m0 = UINT32_MAX, m1 = UINT32_MAX;
        for (uint32_t k = 0; k < n; k++) {
            bool in = true;
            for (int i = 0; i < TIR_CDIMS; i++)
                in = in && box[k].lo[i] <= at[i] && at[i] < box[k].hi[i];
            if (!in)
                continue;
            if (box[k].idx < m0) {
                m1 = m0;
                m0 = box[k].idx;
            } else if (box[k].idx < m1) {
                m1 = box[k].idx;
            }
        }
        *a = m0;
        *b = m1;
    }
    return result;
}

/* cover.gap / cover.overlap for input cluster ci whose valid boxes are v->boxes[0..n). */
static void check_cover(Verifier *v, CRef *cr, const int32_t cd[TIR_CDIMS], uint32_t n)
{
    const Block *b = cr->b;
    const Cluster *c = &b->in[cr->ci];
    int64_t e[TIR_CDIMS], vol = 1;
    for (int i = 0; i < TIR_CDIMS; i++) {
        e[i] = cd[i] ? cd[i] : 1;
        if (vol > VFY_MAX_VOLUME / e[i])
            return; /* limit.volume */
        vol *= e[i];
    }
    VBox *box = v->boxes;
    int64_t sum = 0;
    double cover[TIR_CDIMS] = {0};
    for (uint32_t k = 0; k < n; k++) {
        int64_t bv = 1;
        for (int i = 0; i < TIR_CDIMS; i++) {
            bv *= box[k].hi[i] - box[k].lo[i];
            cover[i] += (double)(box[k].hi[i] - box[k].lo[i]) / (double)e[i];
        }
        sum += bv; /* each bv <= vol < 2^31 and n <= 2^32: no overflow */
    }
    uint32_t a = 0, bb = 0;
    int r = NONE;
    if (n >= 2) {
        int d = 0;
        for (int i = 1; i < TIR_CDIMS; i++)
            if (cover[i] < cover[d])
                d = i;
        if (!sort_boxes(v, box, n, d))
            return;
        r = sweep(box, n, d, SWEEP_BUDGET, &a, &bb);
        if (r == BUDGET) {
            if (vol <= BITMAP_MAX_BITS && sum <= BITMAP_MAX_MARKS)
                r = bitmap_overlap(v, box, n, e, vol, &a, &bb);
            else
                r = sweep(box, n, d, 0, &a, &bb);
        }
    }
    if (r == FOUND)
        vfy_block(v, "cover.overlap", b,
                  "%s: interfaces %" PRIu32 " (edge %d) and %" PRIu32
                  " (edge %d) overlap; an input cluster must be covered exactly once",
                  cref_name(cr), a, (int)c->ifaces[a].edge_id, bb, (int)c->ifaces[bb].edge_id);
    if (sum < vol)
        vfy_block(v, "cover.gap", b,
                  "%s: its %" PRIu32 " interfaces cover %s%" PRId64 " of its %" PRId64
                  " elements",
                  cref_name(cr), c->n_ifaces, r == FOUND ? "less than " : "", sum, vol);
    else if (sum == vol && r == FOUND)
        vfy_block(v, "cover.gap", b,
                  "%s: its interfaces overlap, so they leave part of its %" PRId64
                  " elements uncovered",
                  cref_name(cr), vol);
}

static bool reserve_boxes(Verifier *v, uint32_t n)
{
    if (n <= v->cap_boxes)
        return true;
    VBox *p = realloc(v->boxes, (size_t)n * sizeof *p);
    if (!p) {
        v->oom = true;
        return false;
    }
    v->boxes = p;
    v->cap_boxes = n;
    return true;
}

static void check_cluster(Verifier *v, const Block *b, bool input, uint32_t ci)
{
    const Cluster *c = input ? &b->in[ci] : &b->out[ci];
    CRef cr = {.b = b, .input = input, .ci = ci};
    int32_t cd[TIR_CDIMS];
    bool known = vfy_cluster_dims(b, input, ci, cd);
    bool cover = input && known && !blk_idle_input(b) && reserve_boxes(v, c->n_ifaces);
    uint32_t n = 0;
    for (uint32_t k = 0; k < c->n_ifaces; k++) {
        check_iface_edge(v, &cr, k);
        if (!known)
            continue;
        int64_t pos[TIR_CDIMS], size[TIR_CDIMS];
        char why[160];
        if (!vfy_iface_box(cd, &c->ifaces[k], pos, size, why, sizeof why))
            vfy_block_edge(v, "iface.bounds", b, c->ifaces[k].edge_id,
                           "%s interface %" PRIu32 " (edge %d) %s", cref_name(&cr), k,
                           (int)c->ifaces[k].edge_id, why);
        if (!cover)
            continue;
        /* clip to the cluster; an empty box takes no part in the cover */
        VBox *x = &v->boxes[n];
        bool empty = false;
        for (int i = 0; i < TIR_CDIMS; i++) {
            int64_t e = cd[i] ? cd[i] : 1;
            int64_t s = cd[i] ? size[i] : (c->ifaces[k].has_size && size[i] > 1 ? size[i] : 1);
            int64_t lo = pos[i] < 0 ? 0 : pos[i];
            int64_t hi = pos[i] + s > e ? e : pos[i] + s;
            if (hi <= lo)
                empty = true;
            x->lo[i] = (int32_t)(lo > e ? e : lo);
            x->hi[i] = (int32_t)(hi < 0 ? 0 : hi);
        }
        x->idx = k;
        if (!empty)
            n++;
    }
    if (cover)
        check_cover(v, &cr, cd, n);
}

void verify_block_ifaces(Verifier *v, const Block *b)
{
    for (uint32_t i = 0; i < b->n_in && !v->oom; i++)
        check_cluster(v, b, true, i);
    for (uint32_t i = 0; i < b->n_out && !v->oom; i++)
        check_cluster(v, b, false, i);
}
