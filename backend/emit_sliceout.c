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

/* The headers m runs r take (freeing r): one each, a disabled header over each gap. */
static int64_t count_runs(BufRun *r, size_t m)
{
    int64_t h = 0;
    if (m > 1) /* r may be NULL when m is 0: qsort's pointer must not be */
        qsort(r, m, sizeof *r, run_lo);
    for (size_t i = 0; i < m; i++)
        h += 1 + (i && r[i].lo > r[i - 1].hi);
    free(r);
    return h;
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
    return h + count_runs(r, m);
}

/* The headers the slices of v in columns [a, b) take sent from a part of the buffer holding
 * those columns of rows r0.. (b - a pixels of pw words a row): a run a row of each slice, a
 * disabled header over each gap, one run for the rows of a slice as wide as the part (they
 * follow each other); -1 when out of memory. */
static int64_t part_heads(const SliceSend *v, long n, int64_t a, int64_t b, int64_t r0,
                          int64_t pw)
{
    int64_t runs = 0;
    for (long i = 0; i < n; i++)
        runs += v[i].slice && v[i].box.lo[1] >= a && v[i].box.lo[1] < b ? v[i].box.n[0] : 0;
    BufRun *r = malloc((size_t)(runs ? runs : 1) * sizeof *r);
    if (!r)
        return -1;
    size_t m = 0;
    for (long i = 0; i < n; i++) {
        const EBox *x = &v[i].box;
        if (!v[i].slice || x->lo[1] < a || x->lo[1] >= b)
            continue;
        if (x->n[1] == b - a) { /* one run */
            int64_t lo = (x->lo[0] - r0) * (b - a) * pw;
            r[m++] = (BufRun){lo, lo + x->n[0] * x->n[1] * pw};
            continue;
        }
        for (int64_t y = 0; y < x->n[0]; y++) {
            int64_t lo = ((x->lo[0] + y - r0) * (b - a) + x->lo[1] - a) * pw;
            r[m++] = (BufRun){lo, lo + x->n[1] * pw};
        }
    }
    return count_runs(r, m);
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

/* The phase in which writer w's router moves its boxes into copies on its own core that are
 * not whole rows of it (EOut.gather, emit_route.c's gather: after its Axon or Soma1, the next
 * after a Soma2), -1 when it moves none. */
static int32_t self_phase(const Emit *e, uint32_t w)
{
    return e->outs[w].gather ? e->phase_of[w] + (e->slot_of[w] == MAP_PI_SOMA2) : -1;
}

/* Whether out-edge j of writer w is one its router moves into the copy *dcp on its own core
 * (a self send, emit_route.c's gather_edge; an edge the Mapping gives no transfer), its box
 * in w's coordinates in *box, *s the storage. */
static bool self_send(const Emit *e, uint32_t w, uint32_t j, const Edge **ed, uint32_t *s,
                      const ECopy **dcp, EBox *box)
{
    *ed = e->g->edges[e->uses.blocks[w].out_edges[j]];
    long pos = graph_block_pos(e->g, (*ed)->dst);
    const ECopy *cp = pos >= 0 ? emit_copy_on(e, (uint32_t)pos, e->core_of[w]) : NULL;
    EBox d, part;
    if (!e->outs[w].gather || !cp || emit_edge_dict(e, (*ed)->id) || cp->alias_of == w ||
        emit_merge_of(e, cp) || !emit_iface_box(e, (uint32_t)pos, true, (*ed)->id, &d) ||
        !emit_box_meet(&d, &cp->box, &part) || emit_moves_lanes(e, *ed, w, &d) ||
        !emit_iface_box(e, w, false, (*ed)->id, box))
        return false;
    *s = (uint32_t)pos;
    *dcp = cp;
    return true;
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
        const Edge *ed = NULL;
        uint32_t s = EMIT_NONE, sk, rk, pairs = 0, dk = EMIT_NONE;
        const MapDict *dict = NULL;
        const ECopy *dcp = NULL;
        EBox box;
        Status st = ST_OK;
        /* its self send in the phase its router moves it (no transfer in the Mapping) */
        bool self = p == self_phase(e, w) && self_send(e, w, j, &ed, &s, &dcp, &box);
        if (self)
            pairs = 1;
        else if (!emit_sendbuf_edge(e, w, j, &ed, &s, &dict, &box))
            continue;
        for (uint32_t c = 0; !self && emit_dict_pair(e, dict, &c, &sk, &rk, &st); c++)
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
        if (!self)
            dcp = dk != EMIT_NONE ? emit_copy_on(e, s, dk) : NULL;
        bool own = emit_sendbuf_pitch(e, w, e->outs[w].feat.c, p, s) ||
                   (dcp && dcp->feat.prec != e->outs[w].feat.prec);
        v[n++] = (SliceSend){ed->id, s, box,
                             pairs == 1 && !own && column_slice(e, w, ed, dcp, &box), false};
    }
    *out = v;
    return (long)n;
}

/* A compact area on writer w's core for ny rows of nx of its pixels, alive from
 * phase ph (its P06 / P26) to phase p that sends it, the whole step when p's router comes in
 * the next step; its request in *req. */
static Status add_area(Emit *e, uint32_t w, int32_t p, int32_t ph, int64_t ny, int64_t nx,
                       uint32_t *req)
{
    const EOut *o = &e->outs[w];
    uint32_t k = e->core_of[w];
    const ECore *c = &e->cores[k];
    bool wrap = emit_send_time(e, w, p) >= c->n_phases;
    int64_t words = ny * nx * emit_feat_pixel_words(&o->feat);
    *req = emit_request(e, k, words, o->feat.align < 4 ? 4 : o->feat.align, wrap ? 0 : ph,
                        wrap ? c->n_phases - 1 : p, ALLOC_DATA, e->g->blocks[w]->id);
    return *req == EMIT_NONE ? ST_RUNTIME : ST_OK;
}

/* Appends a sliced send area sb (its feat: the writer's, sb.slice's rows and columns; the
 * fields every sliced area shares set here). */
static Status add_sendbuf(Emit *e, ESendBuf sb)
{
    ESendBuf *nb = emit_grow(e, e->sendbufs, &e->cap_sendbufs, e->n_sendbufs,
                             sizeof *e->sendbufs);
    if (!nb)
        return ST_RUNTIME;
    e->sendbufs = nb;
    int32_t t = emit_send_time(e, sb.writer, sb.send);
    sb.feat = e->outs[sb.writer].feat;
    sb.feat.ny = sb.slice.n[0];
    sb.feat.nx = sb.slice.n[1];
    sb.feat.words = sb.slice.n[0] * sb.slice.n[1] * emit_feat_pixel_words(&sb.feat);
    sb.first = sb.last = t;
    sb.reps = 1;
    sb.copy = EMIT_NONE;
    sb.sliced = true;
    e->sendbufs[e->n_sendbufs++] = sb;
    return ST_OK;
}

/* Frees a Soma slot of core k in phases hi down to lo whose time lies between after and
 * before by moving the gather P06 that takes it to an earlier phase (emit_gather_yield), the
 * latest such slot first; whether one was. */
static bool yield_slot(Emit *e, uint32_t k, int32_t hi, int32_t lo, int64_t after,
                       int64_t before)
{
    int32_t n = e->cores[k].n_phases;
    for (int32_t p = hi; p >= lo; p--)
        for (int32_t sl = MAP_PI_SOMA2; sl >= MAP_PI_SOMA1; sl -= MAP_PI_SOMA2 - MAP_PI_SOMA1) {
            int64_t at = emit_slot_when(p, sl);
            if (at > after && at < before && p < n && emit_gather_yield(e, k, p, sl))
                return true;
        }
    return false;
}

/* When no slices laid out alone bring writer w's sends of phase p (the n of v) to SLICE_HEADS
 * (one free Soma slot, say): a P26 in the latest free slot between the writer and the router
 * splitting the buffer's rows that slices take at a column `cut` no slice straddles, into two
 * compact parts (columns [0, cut) and [cut, the row's end)), each sent as a buffer of its own
 * (part_heads), at the cut that leaves the fewest headers, if SLICE_HEADS or fewer (one more
 * for the gap between the parts, two for each send that is no slice). Each slice's area is
 * its part's (the left part's first slice writes the P26). */
static Status plan_split(Emit *e, uint32_t w, int32_t p, const SliceSend *v, long n)
{
    const EOut *o = &e->outs[w];
    uint32_t k = e->core_of[w];
    int64_t pw = emit_feat_pixel_words(&o->feat), wd = o->box.n[1];
    int64_t r0 = INT64_MAX, r1 = 0, other = 0, best = SLICE_HEADS + 1, cut = 0;
    for (long i = 0; i < n; i++) {
        const EBox *x = &v[i].box;
        other += v[i].slice ? 0 : 2;
        r0 = v[i].slice && x->lo[0] < r0 ? x->lo[0] : r0;
        r1 = v[i].slice && x->lo[0] + x->n[0] > r1 ? x->lo[0] + x->n[0] : r1;
    }
    for (int64_t a = 1; a < wd && r0 < r1; a++) {
        bool ok = (a * pw) % 4 == 0;
        for (long i = 0; i < n && ok; i++)
            ok = !v[i].slice || v[i].box.lo[1] >= a || v[i].box.lo[1] + v[i].box.n[1] <= a;
        int64_t h0 = ok ? part_heads(v, n, 0, a, r0, pw) : 0;
        int64_t h1 = ok ? part_heads(v, n, a, wd, r0, pw) : 0;
        if (h0 < 0 || h1 < 0)
            return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
        if (h0 && h1 && h0 + h1 + 1 + other < best) {
            best = h0 + h1 + 1 + other;
            cut = a;
        }
    }
    int32_t ph, sl, t = emit_send_time(e, w, p);
    int64_t after = emit_slot_when(e->phase_of[w], e->slot_of[w]);
    int64_t before = emit_slot_when(t, MAP_PI_ROUTER_SEND);
    if (!cut || (!emit_slot_latest(e, k, t, e->phase_of[w], after, before, &ph, &sl) &&
                 (!yield_slot(e, k, t, e->phase_of[w], after, before) ||
                  !emit_slot_latest(e, k, t, e->phase_of[w], after, before, &ph, &sl))))
        return ST_OK;
    uint32_t req[2];
    Status st = add_area(e, w, p, ph, r1 - r0, cut, &req[0]);
    st = st == ST_OK ? add_area(e, w, p, ph, r1 - r0, wd - cut, &req[1]) : st;
    bool owner = true;
    for (long i = 0; i < n && st == ST_OK; i++) {
        if (!v[i].slice)
            continue;
        bool left = v[i].box.lo[1] < cut;
        EBox part = v[i].box;
        part.lo[0] = r0;
        part.n[0] = r1 - r0;
        part.lo[1] = left ? 0 : cut;
        part.n[1] = left ? cut : wd - cut;
        st = add_sendbuf(e, (ESendBuf){.writer = w, .store = v[i].s, .req = req[!left],
                                       .phase = ph, .slot = sl, .edge = v[i].edge,
                                       .send = p, .slice = part, .split = true,
                                       .ciso = left && owner ? req[1] : EMIT_NONE});
        owner = owner && !left;
    }
    return st == ST_OK ? emit_slot_take(e, k, ph, sl, SLOT_SENDBUF, w) : st;
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
    if (n > 1) /* v is NULL when no edge is sent in the phase */
        qsort(v, (size_t)n, sizeof *v, rows_desc);
    const EOut *o = &e->outs[w];
    uint32_t k = e->core_of[w];
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
        uint32_t req;
        if (!emit_slot_latest(e, k, t, e->phase_of[w], after,
                              emit_slot_when(t, MAP_PI_ROUTER_SEND), &ph, &sl))
            break;
        st = add_area(e, w, p, ph, b->n[0], b->n[1], &req);
        if (st != ST_OK)
            break;
        st = add_sendbuf(e, (ESendBuf){.writer = w, .store = v[i].s, .req = req, .phase = ph,
                                       .slot = sl, .edge = v[i].edge, .send = p,
                                       .slice = *b, .ciso = EMIT_NONE});
        st = st == ST_OK ? emit_slot_take(e, k, ph, sl, SLOT_SENDBUF, w) : st;
        v[i].laid = true;
        runs = st == ST_OK ? heads(v, n, row, pw) : runs;
        st = runs < 0 ? ST_RUNTIME : st;
    }
    for (long i = 0; i < n && runs > SLICE_HEADS && st == ST_OK; i++) /* no use: undone */
        if (v[i].laid) {
            ESendBuf *sb = &e->sendbufs[--e->n_sendbufs];
            emit_slot_free(e, k, sb->phase, sb->slot);
            emit_request_drop(e, k, sb->req);
            v[i].laid = false;
        }
    if (runs > SLICE_HEADS && st == ST_OK)
        st = plan_split(e, w, p, v, n);
    free(v);
    return st;
}

/* The phases of a core of n_phases (at most 64) in which writer w's core sends any edge
 * from its buffer, one bit a phase, into *mask: one walk over its edges' pairs rather than
 * one a phase (ResNet-50's 9669 blocks took a quarter of taskir-emit's time so). */
static Status sent_phases(Emit *e, uint32_t w, int32_t n_phases, uint64_t *mask)
{
    uint32_t k = e->core_of[w];
    const BlockUses *bu = &e->uses.blocks[w];
    int32_t own = self_phase(e, w); /* its self sends (self_send) */
    *mask = own >= 0 && own < n_phases ? UINT64_C(1) << own : 0;
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        const Edge *ed;
        uint32_t s, sk, rk;
        const MapDict *dict;
        EBox box;
        Status st = ST_OK;
        if (!emit_sendbuf_edge(e, w, j, &ed, &s, &dict, &box))
            continue;
        for (uint32_t c = 0; emit_dict_pair(e, dict, &c, &sk, &rk, &st); c++) {
            int32_t p = dict->coords[c].phase;
            if (sk == k && p >= 0 && p < n_phases)
                *mask |= UINT64_C(1) << p;
        }
        if (st != ST_OK)
            return st;
    }
    return ST_OK;
}

Status emit_sliceout_plan(Emit *e)
{
    for (uint32_t w = 0; w < e->g->n_blocks; w++) {
        const EOut *o = &e->outs[w];
        if (!o->used || o->aliased || o->over || o->req == EMIT_NONE ||
            emit_bandslice_writer(e, w))
            continue;
        const ECore *c = &e->cores[o->core];
        uint64_t mask = ~UINT64_C(0); /* past 64 phases: every phase asked */
        if (c->n_phases <= 64) {
            Status st = sent_phases(e, w, c->n_phases, &mask);
            if (st != ST_OK)
                return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
        }
        for (int32_t p = 0; p < c->n_phases; p++) {
            if (p < 64 && !(mask >> p & 1u))
                continue; /* nothing sent: plan_phase finds no run */
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
    if (sb->split) /* the left part's owner writes the P26 of both */
        return sb->ciso == EMIT_NONE
                   ? ST_OK
                   : emit_split_words(e, o->core, sb->phase, sb->slot,
                                      e->g->blocks[sb->writer]->id, x1, c->addr[sb->req], words,
                                      c->addr[sb->ciso], row - words, rows);
    Taskir__Asm__P06 *m = emit_p06_slot(e, o->core, sb->phase, sb->slot,
                                        e->g->blocks[sb->writer]->id);
    if (!m)
        return ST_RUNTIME;
    /* the last row read runs past the slice by the row's other columns: whole rows are read */
    emit_p06_rows(m, PR_INT_32, row, rows, x1, rows * row, c->addr[sb->req], rows * words);
    SET(m, length_out, (int32_t)words);
    return ST_OK;
}
