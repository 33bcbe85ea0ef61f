/* emit_sliceout.c: send areas laid out slice by slice (docs/backend.md, "Transfers", "Column
 * slices sent from compact areas"). The router reads its send area once, in order, and its
 * headers take the packets in order, so a writer that sends column slices of its rows to
 * several cores in one phase (rows of 18 pixels, 3 to each of 6 cores) sends a run, and a
 * header, a row and slice: more than the header table's 128 when the rows are many
 * [emit.route]. A P06 whose input rows are the buffer's rows and whose output rows are the
 * slice's width keeps the first words of each row it reads: from the slice's first column,
 * it writes the slice compact, its rows one after the other, and the router sends it in one
 * run (the receiving copy holds the slice's rows at one stride: one header). The P06 copies
 * INT_32 words as they are (x1_precision = out_precision INT_32, length_in the buffer's row
 * in words, length_out the slice's, num_in = num_out its rows), so any precision's pixels
 * go so. Each such P06 takes a free Soma slot between the writer and the router (latest
 * first), its area lives from there to the phase that sends it. Only where the writer's
 * sends of the phase take more headers than the table holds (a run a row of each slice left
 * in the buffer, a disabled header over each gap between them) are slices laid out, those of
 * the most rows first, until they take SLICE_HEADS or fewer; where the slots run out first,
 * none is (the phase stays as it was: the spill, else the refusal). The mapper does not
 * count the areas: the memory plan finds them, else [emit.alloc]. */
#include "backend/emit_internal.h"

#include "backend/core_mem.h"

#include <stdlib.h>

#define SET(m, f, v) ((m)->has_##f = 1, (m)->f = (v))

/* The headers a P09's table holds; the count the slices laid out must bring a phase to (a
 * few left for what the estimate does not see). */
enum { TABLE_HEADS = 128, SLICE_HEADS = 120 };

/* One edge of a writer sent in one phase: its box in the writer's coordinates, its storage,
 * and whether it is a column slice a compact area may send. */
typedef struct SliceSend {
    int32_t edge;
    uint32_t s;
    EBox box;
    bool slice;
    bool laid;                      /* sent from a compact area of its own */
} SliceSend;

/* A run of the buffer: its first word and the one after its last. */
typedef struct BufRun {
    int64_t lo, hi;
} BufRun;

static int run_lo(const void *a, const void *b)
{
    const BufRun *x = a, *y = b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

/* The headers the n sends v take: a run a row of each slice left in the buffer (row words
 * apart, pw a pixel), a disabled header over each gap between them, and for each other send
 * (a compact area, an edge that is no slice) one run and one gap; -1 when out of memory. */
static int64_t heads(const SliceSend *v, long n, int64_t row, int64_t pw)
{
    int64_t runs = 0, h = 0;
    for (long i = 0; i < n; i++)
        runs += v[i].slice && !v[i].laid ? v[i].box.n[0] : 0;
    BufRun *r = malloc((size_t)(runs ? runs : 1) * sizeof *r);
    if (!r)
        return -1;
    size_t m = 0;
    for (long i = 0; i < n; i++) {
        if (!v[i].slice || v[i].laid) {
            h += 2;
            continue;
        }
        for (int64_t y = 0; y < v[i].box.n[0]; y++) {
            int64_t lo = (v[i].box.lo[0] + y) * row + v[i].box.lo[1] * pw;
            r[m++] = (BufRun){lo, lo + v[i].box.n[1] * pw};
        }
    }
    qsort(r, m, sizeof *r, run_lo);
    for (size_t i = 0; i < m; i++)
        h += 1 + (i && r[i].lo > r[i - 1].hi);
    free(r);
    return h;
}

static int rows_desc(const void *a, const void *b)
{
    const SliceSend *x = a, *y = b;
    if (x->slice != y->slice)
        return x->slice ? -1 : 1;
    if (x->box.n[0] != y->box.n[0])
        return x->box.n[0] > y->box.n[0] ? -1 : 1;
    return (x->edge > y->edge) - (x->edge < y->edge);
}

/* Whether writer w's edge ed, sent from its core in phase p by its only send-receive pair of
 * that phase into copy dcp, is a column slice of the buffer (several rows, not all columns,
 * all channels) that a compact area may hold: the copy of the buffer's precision and pitch,
 * the receiver's box the writer's (no pixels flowing into other rows), 16-byte rows. */
static bool column_slice(const Emit *e, uint32_t w, const Edge *ed, const ECopy *dcp,
                         const EBox *box)
{
    const EOut *o = &e->outs[w];
    int64_t pw = emit_feat_pixel_words(&o->feat);
    EBox d;
    if (!dcp || dcp->view || dcp->planes || dcp->dup_of != EMIT_NONE || dcp->spread ||
        dcp->feat.prec != o->feat.prec || dcp->feat.c != o->feat.c ||
        !emit_iface_box(e, dcp->block, true, ed->id, &d))
        return false;
    bool same = d.n[0] == box->n[0] && d.n[1] == box->n[1] && d.n[2] == box->n[2];
    return same && box->n[0] > 1 && box->n[1] < o->box.n[1] && box->lo[2] == 0 &&
           box->n[2] == o->box.n[2] && (box->n[1] * pw) % 4 == 0 &&
           (box->lo[1] * pw) % 4 == 0 && (o->box.n[1] * pw) % 4 == 0 &&
           o->box.n[1] * pw <= ASM_MEM3_BASE - ASM_MEM2_BASE; /* the last row's over-read
                                                                 stays in the core's memory */
}

/* The edges writer w's core sends from its buffer in phase p into *out (malloc'd): their
 * count, -1 when out of memory. An edge sent to several cores in that phase (a chain) or
 * through a send area of its own (another precision or pitch) is no slice. */
static long phase_sends(Emit *e, uint32_t w, int32_t p, SliceSend **out)
{
    uint32_t k = e->core_of[w];
    const BlockUses *bu = &e->uses.blocks[w];
    SliceSend *v = NULL;
    size_t n = 0, cap = 0;
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        const Edge *ed;
        uint32_t s, sk, rk, pairs = 0, dk = EMIT_NONE;
        const MapDict *dict;
        EBox box;
        Status st = ST_OK;
        if (!emit_sendbuf_edge(e, w, j, &ed, &s, &dict, &box))
            continue;
        for (uint32_t c = 0; emit_dict_pair(e, dict, &c, &sk, &rk, &st); c++)
            if (sk == k && dict->coords[c].phase == p) {
                pairs++;
                dk = rk;
            }
        if (st != ST_OK) {
            free(v);
            return -1;
        }
        if (!pairs)
            continue;
        SliceSend *nv = emit_grow(e, v, &cap, n, sizeof *v);
        if (!nv) {
            free(v);
            return -1;
        }
        v = nv;
        const ECopy *dcp = dk != EMIT_NONE ? emit_copy_on(e, s, dk) : NULL;
        bool own = emit_sendbuf_pitch(e, w, e->outs[w].feat.c, p, s) ||
                   (dcp && dcp->feat.prec != e->outs[w].feat.prec);
        v[n++] = (SliceSend){ed->id, s, box,
                             pairs == 1 && !own && column_slice(e, w, ed, dcp, &box), false};
    }
    *out = v;
    return (long)n;
}

/* Lays out the slices writer w sends in phase p, when they take more headers than the table
 * holds, while they take more than SLICE_HEADS and free Soma slots are left; none when the
 * slots run out first. */
static Status plan_phase(Emit *e, uint32_t w, int32_t p)
{
    SliceSend *v = NULL;
    long n = phase_sends(e, w, p, &v);
    if (n < 0)
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    qsort(v, (size_t)n, sizeof *v, rows_desc);
    const EOut *o = &e->outs[w];
    uint32_t k = e->core_of[w];
    const ECore *c = &e->cores[k];
    int64_t pw = emit_feat_pixel_words(&o->feat), row = o->box.n[1] * pw;
    int64_t runs = heads(v, n, row, pw);
    int32_t t = emit_send_time(e, w, p);
    int64_t after = emit_slot_when(e->phase_of[w], e->slot_of[w]);
    Status st = runs < 0 ? ST_RUNTIME : ST_OK;
    if (runs <= TABLE_HEADS) { /* it fits: as before */
        free(v);
        return st;
    }
    for (long i = 0; i < n && runs > SLICE_HEADS && v[i].slice && st == ST_OK; i++) {
        const EBox *b = &v[i].box;
        int32_t ph, sl;
        if (!emit_slot_latest(e, k, t, e->phase_of[w], after,
                              emit_slot_when(t, MAP_PI_ROUTER_SEND), &ph, &sl))
            break;
        EmitFeat f = o->feat;
        f.ny = b->n[0];
        f.nx = b->n[1];
        f.words = b->n[0] * b->n[1] * pw;
        ESendBuf *nb = emit_grow(e, e->sendbufs, &e->cap_sendbufs, e->n_sendbufs,
                                 sizeof *e->sendbufs);
        if (!nb) {
            st = ST_RUNTIME;
            break;
        }
        e->sendbufs = nb;
        bool wrap = t >= c->n_phases; /* sent in the next step: the area lives the whole step */
        uint32_t req = emit_request(e, k, f.words, f.align < 4 ? 4 : f.align, wrap ? 0 : ph,
                                    wrap ? c->n_phases - 1 : p, ALLOC_DATA, e->g->blocks[w]->id);
        if (req == EMIT_NONE) {
            st = ST_RUNTIME;
            break;
        }
        e->sendbufs[e->n_sendbufs++] =
            (ESendBuf){.writer = w, .store = v[i].s, .feat = f, .req = req, .phase = ph,
                       .slot = sl, .first = t, .last = t, .reps = 1, .copy = EMIT_NONE,
                       .sliced = true, .edge = v[i].edge, .send = p, .slice = *b};
        st = emit_slot_take(e, k, ph, sl, SLOT_SENDBUF, w);
        v[i].laid = true;
        runs = st == ST_OK ? heads(v, n, row, pw) : runs;
        st = runs < 0 ? ST_RUNTIME : st;
    }
    for (long i = 0; i < n && runs > SLICE_HEADS && st == ST_OK; i++) /* no use: undone */
        if (v[i].laid) {
            ESendBuf *sb = &e->sendbufs[--e->n_sendbufs];
            emit_slot_free(e, k, sb->phase, sb->slot);
            emit_request_drop(e, k, sb->req);
        }
    free(v);
    return st;
}

Status emit_sliceout_plan(Emit *e)
{
    for (uint32_t w = 0; w < e->g->n_blocks; w++) {
        const EOut *o = &e->outs[w];
        if (!o->used || o->gather || o->aliased || o->over || o->req == EMIT_NONE ||
            emit_bandslice_writer(e, w))
            continue;
        const ECore *c = &e->cores[o->core];
        for (int32_t p = 0; p < c->n_phases; p++) {
            Status st = plan_phase(e, w, p);
            if (st != ST_OK)
                return st;
        }
    }
    return ST_OK;
}

const ESendBuf *emit_sliceout_of(const Emit *e, uint32_t w, int32_t eid, int32_t p)
{
    for (size_t i = 0; i < e->n_sendbufs; i++) {
        const ESendBuf *sb = &e->sendbufs[i];
        if (sb->sliced && sb->writer == w && sb->edge == eid && sb->send == p)
            return sb;
    }
    return NULL;
}

Status emit_sliceout_prim(Emit *e, const ESendBuf *sb)
{
    const EOut *o = &e->outs[sb->writer];
    const ECore *c = &e->cores[o->core];
    int64_t pw = emit_feat_pixel_words(&o->feat), row = o->box.n[1] * pw;
    int64_t rows = sb->slice.n[0], words = sb->slice.n[1] * pw;
    int64_t x1 = c->addr[o->req] + (sb->slice.lo[0] * o->box.n[1] + sb->slice.lo[1]) * pw;
    Taskir__Asm__P06 *m = emit_p06_slot(e, o->core, sb->phase, sb->slot,
                                        e->g->blocks[sb->writer]->id);
    if (!m)
        return ST_RUNTIME;
    /* the last row read runs past the slice by the row's other columns: whole rows are read */
    emit_p06_rows(m, PR_INT_32, row, rows, x1, rows * row, c->addr[sb->req], rows * words);
    SET(m, length_out, (int32_t)words);
    return ST_OK;
}
