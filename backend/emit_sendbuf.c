/* emit_sendbuf.c: send areas a P06 writes before the router reads them (docs/backend.md,
 * "Transfers", "Inserted primitives"). The router moves bytes as they are, so a result sent
 * to a copy of another precision than its output buffer's (an int32 CADD whose values go
 * into an int8 map on another core; an int8 map into an int32 one) goes through a send
 * area: a P06 on the writer's core rewrites the buffer's pixels in the receivers' precision
 * and pitch (x1_precision the buffer's, out_precision the receivers', length_in /
 * length_out the two pitches, num_in = num_out the pixels, bit_shift_num 0: the Soma then
 * only clips, CHIP.md §1), in the latest free Soma slot after the writer and before the
 * router of the first phase that sends from it; the router sends those receivers' parts
 * from the send area. The area lives from the P06's phase to the last such send. In time: a
 * phase whose router comes before the writer in the step sends in the next step (a stage's
 * result the Mapping sends past the end of its step), the P06 may then run in the next
 * step's first phases, and the area lives the whole step. The output buffer lives to the
 * last router that sends from it, but to the last P06 reading it when every send of its
 * core goes from send areas whose P06s run after it in its step (trim_buffers). The send
 * areas take their slots before the moves that may go without one (emit_plan.c). No free
 * slot: [emit.slot].
 *
 * A narrowing P06 clips; the graph's storage keeps what it is given (docs/semantics.md), so
 * the change is exact only when every value of the writer's result lies in the receivers'
 * precision: the interval analysis (taskir/exact.h) decides, else [emit.prec].
 *
 * The router reads its area once, in order, so a value its router sends to several places
 * of a copy on its own core (pixels of a map upsampled by edges, each to 9 places) needs
 * its words several times: the send area then holds the buffer's pixels as many times as
 * the edges' boxes of the result overlap (emit_sendbuf_reps), the P06 writing them with
 * real_length_in_en (out row i from buffer pixel i mod the pixels), and each edge is sent
 * from its own repeat (emit_route.c).
 */
#include "backend/emit_internal.h"

#include "taskir/diag_block.h"
#include "taskir/exact.h"
#include "taskir/lanes.h"
#include "taskir/layout.h"

#include <stdlib.h>
#include <string.h>

#define SET(m, f, v) ((m)->has_##f = 1, (m)->f = (v))


/* Writer w's result as a box of pixels [y][x] with its channels (its cluster's dims), on
 * its core *k; false when it has no core or no dims. */
static bool result_box(const Emit *e, uint32_t w, uint32_t *k, EBox *box)
{
    int32_t cd[TIR_CDIMS];
    *k = e->core_of[w];
    if (*k == EMIT_NONE || !blk_cluster_dims(e->g->blocks[w], false, 0, cd))
        return false;
    *box = (EBox){{0}, {cd[D_Y] > 0 ? cd[D_Y] : 1, cd[D_X] > 0 ? cd[D_X] : 1,
                        cd[D_F] > 0 ? cd[D_F] : 1, 1}};
    return true;
}

/* A copy on the writer's core that a send area may take its words from, as the source *src
 * (the writer's result box `box` on core k): a view of the whole result (pick_view), or a
 * copy of whole rows of it (pick_rows, src->off its first row's word). */
typedef bool (*PickSource)(const Emit *e, uint32_t w, uint32_t k, const EBox *box,
                           const ELocalOuts *it, const ECopy *cp, EOut *src);

static bool pick_view(const Emit *e, uint32_t w, uint32_t k, const EBox *box,
                      const ELocalOuts *it, const ECopy *cp, EOut *src)
{
    if (!cp->view || cp->planes || cp->alias_of != EMIT_NONE || cp->req == EMIT_NONE ||
        cp->req_off || !emit_whole_iface(e, w, false, it->ed->id))
        return false;
    *src = (EOut){.core = k, .feat = cp->feat, .req = cp->req, .used = true, .box = *box};
    return true;
}

static bool pick_rows(const Emit *e, uint32_t w, uint32_t k, const EBox *box,
                      const ELocalOuts *it, const ECopy *cp, EOut *src)
{
    const Edge *ed = it->ed;
    EBox lbox, lw;
    if (cp->view || cp->planes || cp->alias_of != EMIT_NONE || cp->req == EMIT_NONE ||
        cp->req_off || cp->land_pitch || !emit_whole_iface(e, w, false, ed->id) ||
        !emit_iface_box(e, it->s, true, ed->id, &lbox) ||
        !emit_iface_box(e, w, false, ed->id, &lw) || lbox.n[0] != lw.n[0] ||
        lbox.lo[1] != cp->box.lo[1] || lbox.n[1] != cp->box.n[1] || lw.n[1] != lbox.n[1] ||
        lbox.lo[2] != cp->box.lo[2] || lbox.n[2] != cp->box.n[2] || lw.n[2] != lbox.n[2])
        return false;
    *src = (EOut){.core = k, .feat = cp->feat, .req = cp->req, .used = true,
                  .off = emit_feat_addr(&cp->feat, &cp->box, 0, lbox.lo[0], lbox.lo[1]),
                  .box = *box};
    src->feat.words = src->box.n[0] * src->box.n[1] * emit_feat_pixel_words(&cp->feat);
    return true;
}

/* The first of w's local out-copies (emit_local_outs) that pick takes, as *src. */
static bool local_source(const Emit *e, uint32_t w, PickSource pick, EOut *src)
{
    uint32_t k;
    EBox box;
    if (!result_box(e, w, &k, &box))
        return false;
    ELocalOuts it = emit_local_outs(w, k);
    for (const ECopy *cp; (cp = emit_local_outs_next(e, &it));)
        if (pick(e, w, k, &box, &it, cp, src))
            return true;
    return false;
}

bool emit_sendbuf_source(const Emit *e, uint32_t w, EOut *src)
{
    if (e->outs[w].used) {
        *src = e->outs[w];
        return true;
    }
    return local_source(e, w, pick_view, src);
}

bool emit_sendbuf_rows_source(const Emit *e, uint32_t w, EOut *src)
{
    return emit_sendbuf_source(e, w, src) || local_source(e, w, pick_rows, src);
}

ESendBuf *emit_sendbuf_of(const Emit *e, uint32_t w, PrecisionId prec)
{
    for (size_t i = 0; i < e->n_sendbufs; i++)
        if (e->sendbufs[i].writer == w && e->sendbufs[i].feat.prec == prec &&
            !e->sendbufs[i].sliced)
            return &e->sendbufs[i];
    return NULL;
}

bool emit_sendbuf_reps(const Emit *e, uint32_t w, int32_t *rep, int32_t *n)
{
    const BlockUses *bu = &e->uses.blocks[w];
    EBox *box = malloc((bu->n_out_edges ? bu->n_out_edges : 1) * sizeof *box);
    bool *used = malloc((bu->n_out_edges + 1) * sizeof *used);
    *n = 1;
    if (!box || !used) {
        free(box);
        free(used);
        return false;
    }
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        const Edge *ed = e->g->edges[bu->out_edges[j]];
        rep[j] = -1;
        if (!emit_iface_box(e, w, false, ed->id, &box[j]))
            continue;
        for (uint32_t r = 0; r <= j; r++)
            used[r] = false;
        for (uint32_t i = 0; i < j; i++) {
            EBox m;
            if (rep[i] >= 0 && e->g->edges[bu->out_edges[i]]->dst == ed->dst &&
                emit_box_meet(&box[i], &box[j], &m))
                used[rep[i]] = true;
        }
        rep[j] = 0;
        while (used[rep[j]])
            rep[j]++;
        *n = rep[j] + 1 > *n ? rep[j] + 1 : *n;
    }
    free(box);
    free(used);
    return true;
}

int32_t emit_send_time(const Emit *e, uint32_t w, int32_t p)
{
    bool next = emit_slot_when(p, MAP_PI_ROUTER_SEND) <= emit_slot_when(e->phase_of[w],
                                                                          e->slot_of[w]);
    return next ? p + e->cores[e->core_of[w]].n_phases : p;
}

/* Notes that writer w sends, in phase p, to a copy of storage s in precision prec, reading
 * reps repeats of its buffer. */
static Status need(Emit *e, uint32_t w, uint32_t s, PrecisionId prec, int32_t p, int32_t reps)
{
    p = emit_send_time(e, w, p);
    ESendBuf *sb = emit_sendbuf_of(e, w, prec);
    if (sb) {
        sb->first = p < sb->first ? p : sb->first;
        sb->last = p > sb->last ? p : sb->last;
        sb->reps = reps > sb->reps ? reps : sb->reps;
        return ST_OK;
    }
    EOut src;
    const EOut *o = &src;
    if (!emit_sendbuf_source(e, w, &src))
        return diag_block(e->d, ST_RUNTIME, "emit.internal", e->g->blocks[w], "no source");
    EmitFeat f;
    if (!emit_feat(prec, o->box.n[0], o->box.n[1], o->box.n[2], emit_storage_unit(e, s), &f))
        return diag_block(e->d, ST_LOGIC, "emit.prec", e->g->blocks[s],
                          "holds %s values, which the chip has no memory layout for",
                          pr_info(prec)->name);
    ESendBuf *n = emit_grow(e, e->sendbufs, &e->cap_sendbufs, e->n_sendbufs,
                            sizeof *e->sendbufs);
    if (!n)
        return ST_RUNTIME;
    e->sendbufs = n;
    e->sendbufs[e->n_sendbufs++] =
        (ESendBuf){.writer = w, .store = s, .feat = f, .req = EMIT_NONE, .phase = -1,
                   .first = p, .last = p, .reps = reps, .copy = EMIT_NONE};
    return ST_OK;
}

/* Whether writer w's buffer goes to copy cp of storage s, of its precision, through a send
 * area of cp's pitch: s lies in the Soma's rows whatever w carries (layout_soma_rows), so
 * a run a pixel would take a header and a disabled one a pixel. */
static bool soma_rows(const Emit *e, uint32_t w, uint32_t s, const ECopy *cp)
{
    return cp->feat.prec == e->outs[w].feat.prec && cp->feat.c < e->outs[w].feat.c &&
           !cp->view && !cp->planes && layout_soma_rows(e->g, &e->uses, s);
}

/* The transfers of edge dict `dict` that the writer sends itself from its output buffer into
 * a copy of another precision, or of a map in the Soma's rows (soma_rows). */
static Status scan_dict(Emit *e, const MapDict *dict)
{
    const Edge *ed = graph_edge(e->g, dict->task_id);
    long w = ed ? graph_block_pos(e->g, ed->src) : -1, s = ed ? graph_block_pos(e->g, ed->dst) : -1;
    if (w < 0 || s < 0 || bt_info(e->g->blocks[w]->type)->kind != BK_COMPUTE ||
        bt_info(e->g->blocks[s]->type)->kind != BK_STORAGE)
        return ST_OK;
    EOut src; /* its buffer, or the view on its core that holds its map (emit_rearr.c) */
    if (!emit_sendbuf_source(e, (uint32_t)w, &src))
        return ST_OK;
    uint32_t sk, rk;
    Status st = ST_OK;
    for (uint32_t i = 0; emit_dict_pair(e, dict, &i, &sk, &rk, &st); i++) {
        const ECopy *dcp = emit_copy_on(e, (uint32_t)s, rk);
        if (sk != e->core_of[w] || !dcp)
            continue;
        if (dcp->feat.prec == src.feat.prec) {
            if (e->outs[w].used && soma_rows(e, (uint32_t)w, (uint32_t)s, dcp))
                st = emit_sendbuf_need_pitch(e, (uint32_t)w, (uint32_t)s, dcp->feat.c,
                                emit_send_time(e, (uint32_t)w, dict->coords[i].phase));
            if (st != ST_OK)
                return st;
            continue;
        }
        st = need(e, (uint32_t)w, (uint32_t)s, dcp->feat.prec, dict->coords[i].phase, 1);
        if (st != ST_OK)
            return st;
    }
    return st;
}

const ESendBuf *emit_sendbuf_pitch(const Emit *e, uint32_t w, int64_t c, int32_t p,
                                   uint32_t s)
{
    EOut src = {0};
    bool have = false;
    for (size_t i = 0; i < e->n_sendbufs; i++) {
        const ESendBuf *sb = &e->sendbufs[i];
        if (sb->writer != w || sb->copy != EMIT_NONE || sb->compact)
            continue;
        if (!have && !emit_sendbuf_rows_source(e, w, &src))
            return NULL;
        have = true;
        if (sb->feat.prec == src.feat.prec &&
            sb->feat.c == c && (c != src.feat.c || sb->store == s) &&
            sb->req != EMIT_NONE && !sb->sliced &&
            p >= sb->first && p <= sb->last)
            return sb;
    }
    return NULL;
}

/* Notes that writer w sends, in phase p, to a copy of storage s in its own precision but in
 * pitch c, from a send area in that pitch; in the buffer's own pitch: a second copy of the
 * buffer for storage s's copies alone (emit_senddup.c). */
static Status need_pitch_in(Emit *e, uint32_t w, uint32_t s, int64_t c, int32_t p, bool alone);

Status emit_sendbuf_need_pitch(Emit *e, uint32_t w, uint32_t s, int64_t c, int32_t p)
{
    return need_pitch_in(e, w, s, c, p, false);
}

/* emit_sendbuf_need_pitch; alone: an area for phase p's sends only (another of that pitch is
 * taken only when it sends in p: each phase's area finds its own slot before that phase's
 * router). */
static Status need_pitch_in(Emit *e, uint32_t w, uint32_t s, int64_t c, int32_t p, bool alone)
{
    EOut src; /* its buffer, or the view on its core that holds its map */
    const EOut *o = &src;
    if (!emit_sendbuf_rows_source(e, w, &src))
        return ST_OK;
    for (size_t i = 0; i < e->n_sendbufs; i++) {
        ESendBuf *sb = &e->sendbufs[i];
        if (sb->writer == w && sb->copy == EMIT_NONE && sb->feat.prec == o->feat.prec &&
            sb->feat.c == c && (c != o->feat.c || sb->store == s) && !sb->sliced &&
            sb->compact == alone && (!alone || (p >= sb->first && p <= sb->last))) {
            sb->first = p < sb->first ? p : sb->first;
            sb->last = p > sb->last ? p : sb->last;
            return ST_OK;
        }
    }
    EmitFeat f;
    if (!emit_feat(o->feat.prec, o->box.n[0], o->box.n[1], o->box.n[2],
                   alone ? (int)c : emit_storage_unit(e, s), &f) || f.c != c)
        return ST_OK; /* not a pitch a storage unit gives: its sends stay as they are */
    ESendBuf *n = emit_grow(e, e->sendbufs, &e->cap_sendbufs, e->n_sendbufs,
                            sizeof *e->sendbufs);
    if (!n)
        return ST_RUNTIME;
    e->sendbufs = n;
    e->sendbufs[e->n_sendbufs++] =
        (ESendBuf){.writer = w, .store = s, .feat = f, .req = EMIT_NONE, .phase = -1,
                   .first = p, .last = p, .reps = 1, .copy = EMIT_NONE, .compact = alone};
    return ST_OK;
}

const ESendBuf *emit_sendbuf_compact(const Emit *e, uint32_t w, int32_t p)
{
    for (size_t i = 0; i < e->n_sendbufs; i++) {
        const ESendBuf *sb = &e->sendbufs[i];
        if (sb->writer == w && sb->compact && sb->req != EMIT_NONE && p >= sb->first &&
            p <= sb->last)
            return sb;
    }
    return NULL;
}

bool emit_sendbuf_edge(const Emit *e, uint32_t w, uint32_t j, const Edge **ed, uint32_t *s,
                       const MapDict **dict, EBox *box)
{
    *ed = e->g->edges[e->uses.blocks[w].out_edges[j]];
    long pos = graph_block_pos(e->g, (*ed)->dst);
    *dict = emit_edge_dict(e, (*ed)->id);
    *s = pos >= 0 ? (uint32_t)pos : EMIT_NONE;
    return pos >= 0 && *dict && emit_iface_box(e, w, false, (*ed)->id, box);
}

bool emit_sendbuf_walk(Emit *e, ESendWalk *it, bool any)
{
    const BlockUses *bu = &e->uses.blocks[it->w];
    for (; it->j < bu->n_out_edges; it->j++, it->c = 0) {
        if (it->c == 0 && !emit_sendbuf_edge(e, it->w, it->j, &it->ed, &it->s, &it->dict,
                                             &it->box))
            continue;
        while (it->c + 1 < it->dict->n_coords) {
            const MapCoord *cs = &it->dict->coords[it->c], *cr = &it->dict->coords[it->c + 1];
            it->c++;
            if (cs->pi_index != MAP_PI_ROUTER_SEND || cr->pi_index != MAP_PI_ROUTER_RECIEVE ||
                (!any && emit_core(e, cs) != e->core_of[it->w]))
                continue;
            uint32_t rk = emit_core(e, cr);
            it->cs = cs;
            it->cr = cr;
            it->dcp = rk != EMIT_NONE ? emit_copy_on(e, it->s, rk) : NULL;
            return true;
        }
    }
    return false;
}

/* One transfer writer w's core sends from w's buffer: an out-edge's box of w's result into
 * a copy of storage s of pitch c in phase p, spread over phases or not. */
typedef struct PitchSend {
    uint32_t s;
    int32_t p;
    int64_t c;
    EBox box;
    bool spread;
} PitchSend;

/* The transfers writer w's core sends from its buffer into copies of the buffer's precision
 * (not views, planes or copies sharing another's area) into *out (malloc'd); their count, -1
 * when out of memory. any: also those the Mapping gives from another core (a copy the code
 * generator may send from the writer's buffer instead, emit_route.c). */
static long pitch_sends(Emit *e, uint32_t w, bool any, PitchSend **out)
{
    EOut src = {0};
    const EOut *o = &src;
    *out = NULL;
    if (!emit_sendbuf_rows_source(e, w, &src))
        return 0;
    PitchSend *v = NULL;
    size_t n = 0, cap = 0;
    for (ESendWalk it = {.w = w}; emit_sendbuf_walk(e, &it, any);) {
        const ECopy *dcp = it.dcp;
        if (!dcp || dcp->view || dcp->planes || dcp->dup_of != EMIT_NONE ||
            dcp->feat.prec != o->feat.prec)
            continue;
        PitchSend *nv = emit_grow(e, v, &cap, n, sizeof *v);
        if (!nv) {
            free(v);
            return -1;
        }
        v = nv;
        v[n++] = (PitchSend){it.s, it.cs->phase, dcp->feat.c, it.box, dcp->spread};
    }
    *out = v;
    return (long)n;
}

/* Writer w's router sends boxes of its buffer that meet, in one phase, into copies of two
 * pitches: the router reads its area once, in order, so the words cannot go as two runs,
 * and when both copies are spread over phases (emit_spread.c) neither waits for the next
 * phase (emit_route_spill.c): the copies of a pitch other than the buffer's take theirs
 * from a send area a P06 re-pitches the buffer into (of two pitches neither the buffer's,
 * the wider). */
static Status scan_pitches(Emit *e, uint32_t w)
{
    PitchSend *v = NULL;
    long n = pitch_sends(e, w, false, &v);
    if (n < 0)
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    int64_t own = e->outs[w].feat.c;
    Status st = ST_OK;
    for (long a = 0; a < n && st == ST_OK; a++)
        for (long b = a + 1; b < n && st == ST_OK; b++) {
            EBox m;
            if (v[a].p != v[b].p || v[a].c == v[b].c || !v[a].spread || !v[b].spread ||
                !emit_box_meet(&v[a].box, &v[b].box, &m))
                continue;
            bool later = v[a].c == own || (v[b].c != own && v[a].c < v[b].c);
            const PitchSend *x = later ? &v[b] : &v[a];
            st = emit_sendbuf_need_pitch(e, w, x->s, x->c, x->p);
        }
    free(v);
    return st;
}

/* Writer w's router sends, in one phase, pixels of its buffer into copies of its precision
 * and fewer channels a pixel than the buffer's: a run a pixel (the pixel's first words),
 * each a header and a disabled one over the gap to the next pixel. When those runs would
 * take more headers than one table holds (LANES_HEADS), the copies take them from a send
 * area in their pitch a P06 re-pitches the buffer into (emit_sendbuf_need_pitch): the rows
 * of a copy's box then go as whole runs, one header for rows that land one stride apart (a
 * CVS's 1 x 1 int32 pixels of 32 words sent as 2-word pieces to copies of 8-word pixels,
 * broadcast_div_case_1_variant_2-4). No slot or no such pitch: they go as before. */
static Status scan_heads(Emit *e, uint32_t w)
{
    PitchSend *v = NULL;
    EOut src;
    long n = emit_sendbuf_rows_source(e, w, &src) ? pitch_sends(e, w, false, &v) : 0;
    if (n < 0)
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    int64_t own = n ? src.feat.c : 0;
    Status st = ST_OK;
    for (long a = 0; a < n && st == ST_OK; a++) {
        int64_t heads = 0;
        bool apart = true; /* no two of the phase's boxes meet unless the same */
        for (long b = 0; b < n; b++) {
            EBox m;
            if (v[b].p != v[a].p || v[b].c >= own)
                continue;
            heads += v[b].spread ? 0 : 2 * v[b].box.n[0] * v[b].box.n[1];
            for (long d = 0; d < b; d++)
                if (v[d].p == v[a].p && v[d].c < own &&
                    emit_box_meet(&v[b].box, &v[d].box, &m) &&
                    memcmp(&v[b].box, &v[d].box, sizeof m) != 0)
                    apart = false;
        }
        if (v[a].c < own && !v[a].spread && heads > LANES_HEADS && apart)
            st = need_pitch_in(e, w, v[a].s, 4 * src.feat.per_word,
                               emit_send_time(e, w, v[a].p), true);
    }
    free(v);
    return st;
}

/* The copies an earlier pass found taking writer w's words at another row stride than
 * another storage's in the same phase take them from a second copy of its buffer
 * (emit_senddup.c). */
static Status scan_dups(Emit *e, uint32_t w)
{
    PitchSend *v = NULL;
    long n = pitch_sends(e, w, true, &v);
    if (n < 0)
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    Status st = ST_OK;
    for (long i = 0; i < n && st == ST_OK; i++)
        if (v[i].c == e->outs[w].feat.c && emit_senddup_of(e, w, v[i].s))
            st = emit_sendbuf_need_pitch(e, w, v[i].s, v[i].c, emit_send_time(e, w, v[i].p));
    free(v);
    return st;
}

/* A writer's own-core copies its router fills from the buffer (EOut.gather, emit_route.c). */
static Status scan_gather(Emit *e, uint32_t w)
{
    uint32_t k = e->core_of[w];
    int32_t p = e->phase_of[w] + (e->slot_of[w] == MAP_PI_SOMA2 ? 1 : 0);
    const BlockUses *bu = &e->uses.blocks[w];
    int32_t reps = 0; /* the repeats its edges need, once a send area is */
    ELocalOuts it = emit_local_outs(w, k);
    for (const ECopy *cp; (cp = emit_local_outs_next(e, &it));) {
        uint32_t s = it.s;
        if (cp->alias_of != w && soma_rows(e, w, s, cp)) {
            Status st = emit_sendbuf_need_pitch(e, w, s, cp->feat.c, p);
            if (st != ST_OK)
                return st;
            continue;
        }
        if (cp->alias_of == w || cp->feat.prec == e->outs[w].feat.prec)
            continue;
        int32_t *rep = reps ? NULL : malloc(bu->n_out_edges * sizeof *rep);
        if (!reps && (!rep || !emit_sendbuf_reps(e, w, rep, &reps))) {
            free(rep);
            return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
        }
        free(rep);
        Status st = need(e, w, s, cp->feat.prec, p, reps);
        if (st != ST_OK)
            return st;
    }
    return ST_OK;
}

static bool soma_prec(PrecisionId p)
{
    return p == PR_INT_32 || p == PR_INT_8 || p == PR_UINT_8;
}

/* Whether writer w's edges into storage s1 and into s2 send boxes of its result that meet. */
static bool stores_meet(const Emit *e, uint32_t w, uint32_t s1, uint32_t s2)
{
    const BlockUses *bu = &e->uses.blocks[w];
    for (uint32_t i = 0; i < bu->n_out_edges; i++) {
        const Edge *a = e->g->edges[bu->out_edges[i]];
        EBox x, y, m;
        if (graph_block_pos(e->g, a->dst) != (long)s1 || !emit_iface_box(e, w, false, a->id, &x))
            continue;
        for (uint32_t j = 0; j < bu->n_out_edges; j++) {
            const Edge *b = e->g->edges[bu->out_edges[j]];
            if (graph_block_pos(e->g, b->dst) == (long)s2 &&
                (!emit_iface_box(e, w, false, b->id, &y) || emit_box_meet(&x, &y, &m)))
                return true;
        }
    }
    return false;
}

/* Whether send area sb may be sent from host h's own copy of the buffer (its first repeat)
 * rather than a repeat of its own: both hold the buffer once, and none of sb's boxes meets
 * those of h or of another guest sent from that copy (the router sends each word of its area
 * once a phase). */
static bool shares(const Emit *e, const ESendBuf *sb, const ESendBuf *h)
{
    if (sb->reps != 1 || h->reps != 1 || stores_meet(e, sb->writer, h->store, sb->store))
        return false;
    for (size_t i = 0; i < e->n_sendbufs; i++) {
        const ESendBuf *g = &e->sendbufs[i];
        if (g != sb && g->guest && g->req == h->req && g->off == 0 &&
            stores_meet(e, sb->writer, g->store, sb->store))
            return false;
    }
    return true;
}

/* A second copy of writer w's buffer in its own pitch (a send area of its own for one
 * storage's copies, emit_senddup.c) that found no free Soma slot between the writer and its
 * first send (after, before) becomes one more repeat of another such area of w whose P06
 * runs there (its area one buffer longer, alive to the later of the two last sends, its P06
 * writing the buffer's pixels once more, after its own repeats: real_num_in, ESendBuf.more),
 * or is sent from that area's own copy where their boxes do not meet (shares: the area keeps
 * its size); else it stays without an area. One that found a slot gives its area and slot
 * up for such a shared copy only. Not where either's last send is in the next step: the
 * grown area would be held the whole step (broadcast_div_case_1_variant_1-4's core (7,4),
 * 5088 words more, emit.alloc), while its sends from the buffer may yet go without overlap
 * (the spill). */
static void host(Emit *e, ESendBuf *sb)
{
    uint32_t w = sb->writer, k = e->core_of[w];
    ECore *c = &e->cores[k];
    EOut src = {0};
    bool own = sb->req != EMIT_NONE; /* an area of its own: given up only for a shared copy */
    for (size_t i = 0; own && i < e->n_sendbufs; i++)
        if (e->sendbufs[i].guest && e->sendbufs[i].req == sb->req)
            return; /* a host itself */
    if (sb->copy != EMIT_NONE || sb->sliced || sb->guest ||
        !emit_sendbuf_source(e, w, &src) || src.feat.prec != sb->feat.prec ||
        !soma_prec(src.feat.prec))
        return;
    int64_t after = emit_slot_when(e->phase_of[w], e->slot_of[w]);
    int64_t before = emit_slot_when(sb->first, MAP_PI_ROUTER_SEND);
    for (size_t i = 0; i < e->n_sendbufs; i++) {
        ESendBuf *h = &e->sendbufs[i];
        int64_t at = h->req != EMIT_NONE ? emit_slot_when(h->phase, h->slot) : 0;
        if (h == sb || h->writer != w || h->req == EMIT_NONE || h->copy != EMIT_NONE ||
            h->sliced || h->guest || h->feat.prec != sb->feat.prec || h->feat.c != sb->feat.c ||
            h->feat.words != sb->feat.words || at <= after || at >= before ||
            h->last >= c->n_phases || sb->last >= c->n_phases)
            continue;
        AllocReq *r = &c->reqs[h->req];
        bool share = shares(e, sb, h);
        if (own && !share)
            continue;
        if (own) {
            emit_request_drop(e, k, sb->req);
            emit_slot_free(e, k, sb->phase, sb->slot);
        }
        sb->guest = true;
        sb->off = share ? 0 : h->feat.words * (h->reps + h->more);
        sb->req = h->req;
        sb->phase = h->phase;
        sb->slot = h->slot;
        h->more += !share;
        r->words = h->feat.words * (h->reps + h->more);
        if (sb->last > r->last)
            r->last = sb->last;
        return;
    }
}

/* Whether area req of core c, or a part of it kept for one writer's rows (its next ones,
 * emit_keeprows.c), lives in phase p. */
static bool rows_alive(const ECore *c, uint32_t req, int32_t p)
{
    if (alloc_lives_in(&c->reqs[req], p))
        return true;
    for (size_t n = c->reqs[req].next; n; n = c->reqs[n - 1].next)
        if (alloc_lives_in(&c->reqs[n - 1], p))
            return true;
    return false;
}

/* Checks the change of send area sb, finds its slot and requests its area; a send area of
 * another pitch (the buffer's precision: no change of values) is left without one (req
 * EMIT_NONE) where a P06 cannot write it or no slot is free. */
static Status place(Emit *e, ESendBuf *sb, const ExactInfo *x)
{
    const Block *b = e->g->blocks[sb->writer], *s = e->g->blocks[sb->store];
    EOut src = {0};
    const EOut *o = &src;
    if (sb->copy != EMIT_NONE) /* a second copy of a copy (emit_senddup.c) */
        src.feat = e->copies[sb->copy].feat;
    else if (!emit_sendbuf_rows_source(e, sb->writer, &src))
        return diag_block(e->d, ST_RUNTIME, "emit.internal", b, "no source");
    uint32_t k = e->core_of[sb->writer];
    const ECore *c = &e->cores[k];
    ExactRange to = exact_prec_range(sb->feat.prec), r = x->blocks[sb->writer].out;
    bool pitch = sb->feat.prec == o->feat.prec; /* a send area of another pitch */
    if (pitch && !soma_prec(o->feat.prec))
        return ST_OK; /* its sends go from the buffer, as before (emit.route, "overlap") */
    if (!soma_prec(o->feat.prec) || !soma_prec(sb->feat.prec))
        return diag_block(e->d, ST_LOGIC, "emit.prec", b,
                          "sends %s values to block %d's copy in %s: the router moves bytes as "
                          "they are, and a P06 reads and writes INT_32, INT_8 and UINT_8 only",
                          pr_info(o->feat.prec)->name, s->id, pr_info(sb->feat.prec)->name);
    if (!pitch && !exact_inside(r, to.lo, to.hi))
        return diag_block(e->d, ST_LOGIC, "emit.prec", b,
                          "sends its %s values (%lld .. %lld) to block %d's copy in %s: the "
                          "graph's storage keeps them as they are, a P06 narrowing them would "
                          "clip to %lld .. %lld", pr_info(o->feat.prec)->name, (long long)r.lo,
                          (long long)r.hi, s->id, pr_info(sb->feat.prec)->name,
                          (long long)to.lo, (long long)to.hi);
    /* from the writer to the first send in time, which may be in the next step (then the
     * slot too may be: emit_slot_latest counts phases past the last so) */
    int64_t after = emit_slot_when(e->phase_of[sb->writer], e->slot_of[sb->writer]);
    int64_t before = emit_slot_when(sb->first, MAP_PI_ROUTER_SEND);
    bool slot = emit_slot_latest(e, k, sb->first, e->phase_of[sb->writer], after, before,
                                 &sb->phase, &sb->slot);
    if (!slot && pitch)
        return ST_OK; /* a repeat of another's area (host), or its sends go from the buffer,
                         as before (emit.route, "overlap") */
    if (!slot)
        return diag_block(e->d, ST_LOGIC, "emit.slot", b,
                          "sends its %s values to block %d's copy in %s of %lld channels a "
                          "pixel in phase %d%s: a P06 changes the %s into a send area, and %s "
                          "has no free Soma slot after the block (phase %d) and before that "
                          "router", pr_info(o->feat.prec)->name, s->id,
                          pr_info(sb->feat.prec)->name, (long long)sb->feat.c,
                          sb->first % c->n_phases,
                          sb->first >= c->n_phases ? " of the next step" : "",
                          sb->feat.prec == o->feat.prec ? "pitch" : "precision", c->name,
                          e->phase_of[sb->writer]);
    if (pitch && o->off && !rows_alive(c, o->req, sb->phase))
        return ST_OK; /* a rows source no longer alive when the P06 would read it */
    /* the area lives from the P06 to the last send; the whole step when that is in the next
     * step (the writer runs again after it) */
    bool wrap = sb->last >= c->n_phases;
    sb->req = emit_request(e, k, sb->feat.words * sb->reps,
                           sb->feat.align < 4 ? 4 : sb->feat.align, wrap ? 0 : sb->phase,
                           wrap ? c->n_phases - 1 : sb->last, ALLOC_DATA, b->id);
    if (sb->req == EMIT_NONE)
        return ST_RUNTIME;
    return emit_slot_take(e, k, sb->phase, sb->slot, SLOT_SENDBUF, sb->writer);
}

/* Whether every send of writer w's core out of w's result goes into a copy of another
 * precision than its buffer's, from a send area whose P06 runs after w in the same step:
 * then nothing reads the buffer past the last of those P06s. */
static bool sends_from_areas(Emit *e, uint32_t w, int32_t *last)
{
    const EOut *o = &e->outs[w];
    uint32_t k = e->core_of[w];
    const BlockUses *bu = &e->uses.blocks[w];
    int64_t after = emit_slot_when(e->phase_of[w], e->slot_of[w]);
    bool any = false;
    *last = e->phase_of[w];
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        const Edge *ed = e->g->edges[bu->out_edges[j]];
        long s = graph_block_pos(e->g, ed->dst);
        const MapDict *dict = emit_edge_dict(e, ed->id);
        uint32_t sk, rk;
        Status st = ST_OK;
        for (uint32_t i = 0; s >= 0 && dict && emit_dict_pair(e, dict, &i, &sk, &rk, &st); i++) {
            if (sk != k)
                continue; /* a relay sends from its own copy */
            const ECopy *dcp = rk != k ? emit_copy_on(e, (uint32_t)s, rk) : NULL;
            const ESendBuf *sb = dcp && dcp->feat.prec != o->feat.prec
                                     ? emit_sendbuf_of(e, w, dcp->feat.prec) : NULL;
            if (!sb || sb->req == EMIT_NONE || emit_slot_when(sb->phase, sb->slot) <= after)
                return false;
            *last = sb->phase > *last ? sb->phase : *last;
            any = true;
        }
        if (st != ST_OK)
            return false;
    }
    return any;
}

/* The output buffers whose every send goes from send areas (sends_from_areas) live from
 * their writer to the last P06 reading them, not to the last send (make_outs, emit_plan.c:
 * the whole step when that send is in the next step). test_diff_ops/
 * broadcast_div_case_1_variant_2-4: CVVH op/x0/y1 in phase 31 of core (3,6), its int32
 * result of 7488 words narrowed to int8 in Soma1 of phase 31 and sent in phases 31 and 0,
 * lived the whole step (33840 words live in phase 9 against 32768). */
static void trim_buffers(Emit *e)
{
    for (uint32_t w = 0; w < e->g->n_blocks; w++) {
        const EOut *o = &e->outs[w];
        int32_t last;
        if (!o->used || o->gather || o->aliased || o->over || o->req == EMIT_NONE ||
            !sends_from_areas(e, w, &last))
            continue;
        AllocReq *r = &e->cores[o->core].reqs[o->req];
        if (r->first <= e->phase_of[w] && last <= r->last) {
            r->first = e->phase_of[w];
            r->last = last;
        }
    }
}

/* Column slices a writer's router sends: copies laid out band by band (emit_bandslice.c),
 * then compact areas (emit_sliceout.c). */
static Status emit_slices_out(Emit *e)
{
    Status st = emit_bandslice_plan(e);
    return st == ST_OK ? emit_sliceout_plan(e) : st;
}

Status emit_sendbufs(Emit *e)
{
    Status st = ST_OK;
    for (uint32_t i = 0; i < e->m->n_edges && st == ST_OK; i++)
        st = scan_dict(e, &e->m->edges[i]);
    for (uint32_t w = 0; w < e->g->n_blocks && st == ST_OK; w++)
        if (e->outs[w].used && e->outs[w].gather)
            st = scan_gather(e, w);
    for (uint32_t w = 0; w < e->g->n_blocks && st == ST_OK; w++)
        if (e->outs[w].used)
            st = scan_pitches(e, w);
    for (uint32_t w = 0; w < e->g->n_blocks && st == ST_OK; w++)
        if (e->core_of[w] != EMIT_NONE &&
            bt_info(e->g->blocks[w]->type)->kind == BK_COMPUTE)
            st = scan_heads(e, w);
    for (uint32_t w = 0; w < e->g->n_blocks && st == ST_OK; w++)
        st = emit_lanearea_scan(e, w);
    for (uint32_t w = 0; w < e->g->n_blocks && st == ST_OK; w++)
        if (e->outs[w].used)
            st = scan_dups(e, w);
    if (st == ST_OK)
        st = emit_senddup_copies(e);
    if (st != ST_OK || !e->n_sendbufs)
        return st == ST_OK ? emit_slices_out(e) : st;
    ExactInfo x = {0};
    st = exact_analyse(e->g, &x, e->d);
    for (size_t i = 0; i < e->n_sendbufs && st == ST_OK; i++)
        st = place(e, &e->sendbufs[i], &x);
    exact_finish(&x);
    for (size_t i = 0; i < e->n_sendbufs && st == ST_OK; i++)
        host(e, &e->sendbufs[i]);
    if (st == ST_OK)
        trim_buffers(e);
    return st == ST_OK ? emit_slices_out(e) : st;
}

Status emit_sendbuf_prims(Emit *e)
{
    for (size_t i = 0; i < e->n_sendbufs; i++) {
        const ESendBuf *sb = &e->sendbufs[i];
        EOut src;
        const EOut *o = &src;
        if (sb->copy != EMIT_NONE || sb->sliced) {
            if (sb->req != EMIT_NONE && (sb->sliced ? emit_sliceout_prim(e, sb)
                                                    : emit_senddup_prim(e, sb)) != ST_OK)
                return ST_RUNTIME;
            continue;
        }
        if (!emit_sendbuf_rows_source(e, sb->writer, &src))
            return diag_block(e->d, ST_RUNTIME, "emit.internal", e->g->blocks[sb->writer],
                              "no source");
        const ECore *c = &e->cores[o->core];
        if (sb->req == EMIT_NONE || sb->guest)
            continue; /* a send area of another pitch without a free slot; a repeat of
                         another's, which that one's P06 writes */
        Taskir__Asm__P06 *p = emit_p06_slot(e, o->core, sb->phase, sb->slot,
                                            e->g->blocks[sb->writer]->id);
        if (!p)
            return ST_RUNTIME;
        int64_t pix = o->box.n[0] * o->box.n[1], reps = sb->reps + sb->more;
        emit_p06_rows(p, o->feat.prec, o->feat.c, pix * reps, c->addr[o->req] + o->off,
                      o->feat.words, c->addr[sb->req], sb->feat.words * reps);
        SET(p, out_precision, pr_info(sb->feat.prec)->wire);
        SET(p, length_out, (int32_t)sb->feat.c);
        if (reps > 1) { /* out row i is buffer pixel i mod pix: the pixels reps times */
            SET(p, real_length_in_en, 1);
            SET(p, real_num_in, (int32_t)pix);
        }
    }
    return e->d->oom ? ST_RUNTIME : ST_OK;
}
