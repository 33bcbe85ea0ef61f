/* emit_merge.c: a copy gathered on its own core from column slices (docs/backend.md,
 * "Inserted primitives", "Gathering on a core"). The pieces of a block cut along x each write
 * some columns of every row of the storage they share; on a core that holds the whole of it,
 * the router would gather the slices into the copy in the receive area, which holds 12 KiB.
 * A copy larger than that is assembled in the data banks instead: each slice lies compact
 * (box rows of its columns' pixels: a local writer's output buffer as it writes it, a remote
 * writer's transfer in a landing area of its own in the receive area, alive from its arrival
 * to the merge), and P06s merge them row by row (x1 row i: the columns so far, ciso row i:
 * the next slice's, out row i: both side by side; docs/backend.md, P06), as INT_32 words,
 * which neither shifts nor clips: every bit, padding lanes included, arrives as it was. A
 * slice's row is whole pixels, each a whole number of 16-byte rows, so the ciso row starts
 * right after x1's. Two slices take one P06 writing the copy; k slices k - 1 of them, each
 * but the last into an area of its own holding the columns so far. Of two slices, one the
 * Mapping spreads over several phases lands in bands of whole rows, one a phase, each
 * merged with the same rows of the other slice by a P06 in Soma2 of its phase (plan_bands).
 * Column slices the Mapping brings together, the same rows of each in the same phases
 * (mapper/xfer_group.c), are a spread copy instead (emit_slices.c). They take the earliest
 * free Soma slots once every slice is in place, before every reader of the copy on its core.
 * Where that cannot be (no free slot, a reader before it, slices that are not whole columns
 * of the copy's rows, more than MERGE_MAX of them, a copy relayed or read by an inserted
 * P06), the copy stays in the receive area as before, and the memory plan refuses it when it
 * does not fit (emit.alloc). Model input slices around one slice from another core are
 * merged by emit_merge_wrap.c instead (one P06, however many input slices).
 */
#include "backend/emit_internal.h"

#include "backend/core_mem.h"
#include "taskir/premove.h"

#include <string.h>

#define SET(m, f, v) ((m)->has_##f = 1, (m)->f = (v))

enum { RECV_WORDS = ASM_MEM3_BASE - ASM_MEM2_RECV };

/* The phases of the (ROUTER_SEND, ROUTER_RECIEVE) pairs of edge eid's dict that land on
 * core k, ascending, into ph (at most max); their count. *relay: whether some pair sends it
 * on from core k. */
int emit_merge_arrivals(const Emit *e, int32_t eid, uint32_t k, int32_t *ph, int max, bool *relay)
{
    const MapDict *dict = emit_edge_dict(e, eid);
    int n = 0;
    for (uint32_t c = 0; dict && c + 1 < dict->n_coords; c++) {
        const MapCoord *cs = &dict->coords[c], *cr = &dict->coords[c + 1];
        if (cs->pi_index != MAP_PI_ROUTER_SEND || cr->pi_index != MAP_PI_ROUTER_RECIEVE)
            continue;
        if (emit_same_place(&e->cores[k], cs))
            *relay = true;
        if (!emit_same_place(&e->cores[k], cr))
            continue;
        int at = n; /* insertion, ascending, each phase once */
        for (int i = 0; i < n; i++)
            if (ph[i] >= cs->phase) {
                at = i;
                break;
            }
        if ((at < n && ph[at] == cs->phase) || n == max)
            continue;
        for (int i = n; i > at; i--)
            ph[i] = ph[i - 1];
        ph[at] = cs->phase;
        n++;
    }
    return n;
}

/* Whether an inserted P06 of another kind reads or writes copy ci (its data would be in
 * place only after the merge, which those do not wait for). */
bool emit_moved_otherwise(const Emit *e, uint32_t ci)
{
    for (size_t i = 0; i < e->n_dups; i++)
        if (e->dups[i].copy == ci)
            return true;
    for (size_t i = 0; i < e->n_gathers; i++)
        if (e->gathers[i].i >= 0 && e->gathers[i].copy == ci)
            return true;
    for (size_t i = 0; i < e->n_tees; i++)
        if (e->tees[i].from == ci || e->tees[i].to == ci)
            return true;
    for (size_t i = 0; i < e->n_narrows; i++)
        if (e->narrows[i].copy == ci)
            return true;
    return false;
}

EMergePiece *emit_merge_add(const Emit *e, const ECopy *cp, const Edge *ed, uint32_t w,
                           EMerge *m, bool *skip)
{
    EBox dbox, part;
    *skip = false;
    if (!emit_iface_box(e, cp->block, true, ed->id, &dbox))
        return NULL;
    if (!emit_box_meet(&dbox, &cp->box, &part)) {
        *skip = true;
        return NULL;
    }
    if (m->n == MERGE_MAX || memcmp(&part, &dbox, sizeof part) != 0 ||
        part.lo[0] != cp->box.lo[0] || part.n[0] != cp->box.n[0] ||
        part.lo[2] != cp->box.lo[2] || part.n[2] != cp->box.n[2])
        return NULL;
    EMergePiece *pc = &m->piece[m->n++];
    memset(pc, 0, sizeof *pc);
    pc->writer = w;
    pc->edge = ed->id;
    pc->box = part;
    pc->land = EMIT_NONE;
    return pc;
}

/* The slices of copy ci, left to right, into m (its pieces, n, and when the last is in
 * place: *ready, emit_slot_when's unit, but for a slice the Mapping spreads over several
 * phases: m->spread, which only a merge of two takes); false when they are not whole
 * columns of the copy's rows, each a local writer's whole buffer or a transfer. */
static bool slices(Emit *e, uint32_t ci, EMerge *m, int64_t *ready)
{
    const ECopy *cp = &e->copies[ci];
    const BlockUses *bu = &e->uses.blocks[cp->block];
    int unit = emit_storage_unit(e, cp->block);
    int spread = -1;
    m->n = 0;
    *ready = -1;
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const Edge *ed = e->g->edges[bu->in_edges[j]];
        long w = graph_block_pos(e->g, ed->src);
        bool skip;
        if (w < 0 || bt_info(e->g->blocks[w]->type)->kind != BK_COMPUTE || ed->n_re)
            return false;
        EMergePiece *pc = emit_merge_add(e, cp, ed, (uint32_t)w, m, &skip);
        if (skip)
            continue;
        if (!pc)
            return false;
        EBox part = pc->box;
        pc->remote = e->core_of[w] != cp->core;
        pc->nph = 0;
        int64_t at;
        if (e->core_of[w] == cp->core) { /* its buffer, as the writer writes it */
            const EOut *o = &e->outs[w];
            EBox wbox;
            if (!o->used || !o->gather || !emit_iface_box(e, (uint32_t)w, false, ed->id, &wbox) ||
                wbox.lo[0] || wbox.lo[1] || wbox.lo[2] || o->box.n[0] != part.n[0] ||
                o->box.n[1] != part.n[1] || o->box.n[2] != part.n[2] ||
                o->feat.prec != cp->feat.prec || o->feat.c != cp->feat.c)
                return false;
            pc->feat = o->feat;
            at = emit_slot_when(e->phase_of[w], e->slot_of[w]);
        } else {
            bool relay = false;
            pc->nph = emit_merge_arrivals(e, ed->id, cp->core, pc->ph, MERGE_BANDS, &relay);
            if (pc->nph < 1 || relay || !emit_feat(cp->feat.prec, part.n[0], part.n[1],
                                                   part.n[2], unit, &pc->feat) ||
                pc->feat.c != cp->feat.c)
                return false;
            at = emit_slot_when(pc->ph[0], MAP_PI_ROUTER_RECIEVE);
            if (pc->nph > 1) { /* spread over its phases: its rows in bands (plan_bands) */
                if (spread >= 0)
                    return false; /* two (together: a spread copy, emit_slices.c) */
                spread = m->n - 1;
                continue;
            }
        }
        pc->ready = at;
        *ready = at > *ready ? at : *ready;
    }
    if (m->n < 2 || (spread >= 0 && m->n != 2))
        return false;
    m->spread = spread;
    for (int a = 1; a < m->n; a++) /* left to right */
        for (int b = a; b > 0 && m->piece[b].box.lo[1] < m->piece[b - 1].box.lo[1]; b--) {
            EMergePiece t = m->piece[b];
            m->piece[b] = m->piece[b - 1];
            m->piece[b - 1] = t;
        }
    for (int a = 0; a < m->n && m->spread >= 0; a++)
        if (m->piece[a].nph > 1)
            m->spread = a;
    int64_t x = cp->box.lo[1];
    for (int a = 0; a < m->n; a++) {
        if (m->piece[a].box.lo[1] != x)
            return false;
        x += m->piece[a].box.n[1];
    }
    return x == cp->box.lo[1] + cp->box.n[1];
}

/* The Soma slots of the n - 1 merges of m on core k, in phases up to last: merge a (joining
 * slice a + 1 to the columns so far) the earliest free one once slices 0 .. a + 1 are in
 * place and merge a - 1 has run; false when there are not so many. */
static bool free_slots(const Emit *e, uint32_t k, int32_t last, EMerge *m)
{
    int64_t after = m->piece[0].ready;
    for (int a = 0; a < m->n - 1; a++) {
        if (m->piece[a + 1].ready > after)
            after = m->piece[a + 1].ready;
        if (!emit_slot_earliest(e, k, (int32_t)(after / 8), last, after, &m->phase[a],
                                &m->slot[a]))
            return false;
        after = emit_slot_when(m->phase[a], m->slot[a]);
    }
    return true;
}

/* Whether every compute block reading copy cp's block on its core runs after time t (an
 * OUTPUT reads it after its last phase). */
bool emit_read_after(const Emit *e, const ECopy *cp, int64_t t)
{
    ELocalReaders it = emit_local_readers(cp->block, cp->core);
    while (emit_local_readers_next(e, &it))
        if (premove_count(e->g, &e->uses, it.r) || emit_slot_when(it.phase, it.slot) <= t)
            return false;
    return true;
}

/* A merge of two slices, one of which (m->spread) the Mapping spreads over several phases:
 * its rows arrive in bands, each phase as many whole rows as the receive area has room for
 * beside that phase's other arrivals (the last the rest), each band in a landing area of
 * its own, and a P06 in Soma2 of that phase, after the router, merges the band with the
 * same rows of the other slice (in place from time ready) into the copy's rows. */
static Status plan_bands(Emit *e, uint32_t ci, EMerge *m, int64_t ready, bool *kept)
{
    ECopy *cp = &e->copies[ci];
    ECore *c = &e->cores[cp->core];
    EMergePiece *sp = &m->piece[m->spread], *op = &m->piece[1 - m->spread];
    int64_t pw = emit_feat_pixel_words(&cp->feat), left = cp->box.n[0];
    int64_t row = sp->box.n[1] * pw;
    int64_t other = op->remote ? op->feat.words : 0;
    m->nb = 0;
    for (int b = 0; b < sp->nph && left > 0; b++) {
        int32_t q = sp->ph[b];
        int64_t room = RECV_WORDS - emit_recv_live(e, cp->core, q, cp->req) -
                       (op->remote && q >= op->ph[0] ? other : 0);
        int64_t rows = b == sp->nph - 1 ? left : room > 0 ? room / row : 0;
        rows = rows < left ? rows : left;
        if (rows <= 0)
            continue;
        if (q > cp->last || emit_slot_when(q, MAP_PI_SOMA2) <= ready ||
            emit_soma_taken(e, cp->core, q, MAP_PI_SOMA2))
            return ST_OK;
        m->band_phase[m->nb] = q;
        m->band_row0[m->nb] = cp->box.n[0] - left;
        m->band_rows[m->nb++] = rows;
        left -= rows;
    }
    int32_t last = m->nb ? m->band_phase[m->nb - 1] : -1;
    if (left > 0 || !m->nb || !emit_read_after(e, cp, emit_slot_when(last, MAP_PI_SOMA2)))
        return ST_OK;
    int32_t tag = e->g->blocks[cp->block]->id, align = cp->feat.align < 2 ? 2 : cp->feat.align;
    for (int b = 0; b < m->nb; b++) {
        m->band_land[b] = emit_request(e, cp->core, m->band_rows[b] * row, align,
                                       m->band_phase[b], m->band_phase[b], ALLOC_RECV, tag);
        Status st = m->band_land[b] == EMIT_NONE
                        ? diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory")
                        : emit_slot_take(e, cp->core, m->band_phase[b], MAP_PI_SOMA2,
                                         SLOT_MERGE, cp->block);
        if (st != ST_OK)
            return st;
    }
    if (op->remote) {
        op->land = emit_request(e, cp->core, op->feat.words, align, op->ph[0], last, ALLOC_RECV,
                                tag);
        if (op->land == EMIT_NONE)
            return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    } else {
        AllocReq *r = &c->reqs[e->outs[op->writer].req];
        r->last = last > r->last ? last : r->last;
    }
    AllocReq *r = &c->reqs[cp->req]; /* the copy, in the data banks from the first band */
    r->kind = ALLOC_DATA;
    r->first = m->band_phase[0] > r->first ? m->band_phase[0] : r->first;
    cp->movable = false;
    m->copy = ci;
    *kept = true;
    return ST_OK;
}

/* Plans the merge of copy ci when it can be (above); m is its entry, not yet kept. */
static Status plan_merge(Emit *e, uint32_t ci, EMerge *m, bool *kept)
{
    ECopy *cp = &e->copies[ci];
    ECore *c = &e->cores[cp->core];
    int64_t ready;
    *kept = false;
    if (emit_moved_otherwise(e, ci))
        return ST_OK;
    if (!slices(e, ci, m, &ready)) /* model input slices around one received slice? */
        return emit_merge_wrap(e, ci, m, kept);
    if (m->spread >= 0)
        return plan_bands(e, ci, m, ready, kept);
    if (!free_slots(e, cp->core, cp->last, m) ||
        !emit_read_after(e, cp, emit_slot_when(m->phase[m->n - 2], m->slot[m->n - 2])))
        return ST_OK;
    int32_t tag = e->g->blocks[cp->block]->id;
    int64_t pw = emit_feat_pixel_words(&cp->feat), cols = m->piece[0].box.n[1];
    for (int a = 0; a < m->n; a++) {
        EMergePiece *pc = &m->piece[a];
        int32_t until = m->phase[a ? a - 1 : 0]; /* the merge that reads it */
        if (pc->remote) {
            pc->land = emit_request(e, cp->core, pc->feat.words, cp->feat.align < 2 ? 2
                                    : cp->feat.align, pc->ph[0], until, ALLOC_RECV, tag);
            if (pc->land == EMIT_NONE)
                return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
        } else {
            AllocReq *r = &c->reqs[e->outs[pc->writer].req];
            r->last = until > r->last ? until : r->last;
        }
        if (a == 0 || a == m->n - 1)
            continue;
        cols += pc->box.n[1]; /* the columns so far, for the next merge */
        m->acc[a] = emit_request(e, cp->core, cp->box.n[0] * cols * pw, cp->feat.align,
                                 m->phase[a - 1], m->phase[a], ALLOC_DATA, tag);
        if (m->acc[a] == EMIT_NONE)
            return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    }
    for (int a = 0; a < m->n - 1; a++) {
        Status st = emit_slot_take(e, cp->core, m->phase[a], m->slot[a], SLOT_MERGE, cp->block);
        if (st != ST_OK)
            return st;
    }
    AllocReq *r = &c->reqs[cp->req]; /* the copy, in the data banks from the last merge */
    r->kind = ALLOC_DATA;
    r->first = m->phase[m->n - 2] > r->first ? m->phase[m->n - 2] : r->first;
    cp->movable = false;
    m->copy = ci;
    *kept = true;
    return ST_OK;
}

Status emit_merges(Emit *e)
{
    for (uint32_t i = 0; i < e->n_copies; i++) {
        const ECopy *cp = &e->copies[i];
        const ECore *c = &e->cores[cp->core];
        if (cp->is_static || cp->view || cp->planes || cp->spread || cp->image ||
            cp->req == EMIT_NONE || c->reqs[cp->req].kind != ALLOC_RECV ||
            c->reqs[cp->req].words <= RECV_WORDS || cp->dup_of != EMIT_NONE)
            continue; /* only what does not fit the receive area (a copy sharing another's
                         area, emit_dup.c, takes no transfer: that one is merged) */
        EMerge m;
        memset(&m, 0, sizeof m);
        bool kept;
        Status st = plan_merge(e, i, &m, &kept);
        if (st != ST_OK)
            return st;
        if (!kept)
            continue;
        EMerge *nm = emit_grow(e, e->merges, &e->cap_merges, e->n_merges, sizeof *e->merges);
        if (!nm)
            return ST_RUNTIME;
        e->merges = nm;
        e->merges[e->n_merges++] = m;
    }
    return ST_OK;
}

const EMerge *emit_merge_of(const Emit *e, const ECopy *cp)
{
    for (size_t i = 0; i < e->n_merges; i++)
        if (&e->copies[e->merges[i].copy] == cp)
            return &e->merges[i];
    return NULL;
}

bool emit_merge_banded(const Emit *e, const ECopy *cp, int32_t eid)
{
    const EMerge *m = emit_merge_of(e, cp);
    return m && m->nb && m->piece[m->spread].edge == eid;
}

int emit_merge_slice(const Emit *e, const ECopy *cp, int32_t eid, int32_t phase, ECopy *slice,
                     int64_t *base)
{
    const EMerge *m = emit_merge_of(e, cp);
    for (int a = 0; m && a < m->n; a++) {
        const EMergePiece *pc = &m->piece[a];
        if (pc->edge != eid || !pc->remote)
            continue;
        *slice = *cp;
        slice->box = pc->box;
        slice->feat = pc->feat;
        if (!m->nb || a != m->spread) {
            *base = e->cores[cp->core].addr[pc->land];
            return 1;
        }
        for (int b = 0; b < m->nb; b++) /* this phase's band: its rows, compact */
            if (m->band_phase[b] == phase) {
                slice->box.lo[0] += m->band_row0[b];
                slice->box.n[0] = m->band_rows[b];
                slice->feat.ny = m->band_rows[b];
                slice->feat.words = m->band_rows[b] * pc->box.n[1] *
                                    emit_feat_pixel_words(&pc->feat);
                *base = e->cores[cp->core].addr[m->band_land[b]];
                return 1;
            }
        return -1;
    }
    return 0;
}

/* The word address of slice a of merge m (a local writer's buffer, or its landing area). */
static int64_t slice_addr(const Emit *e, const EMerge *m, int a)
{
    const ECore *c = &e->cores[e->copies[m->copy].core];
    const EMergePiece *pc = &m->piece[a];
    return c->addr[pc->remote ? pc->land : e->outs[pc->writer].req];
}

/* A P06 in Soma slot (p, slot) of copy cp's core joining rows rows of ci words each from
 * x1 with rows of cc words from ciso, side by side, into rows of ci + cc words at o: INT_32
 * words as they are. */
Status emit_join_rows(Emit *e, const ECopy *cp, int32_t p, int32_t slot, int64_t rows,
                        int64_t x1, int64_t ci, int64_t ciso, int64_t cc, int64_t o)
{
    Taskir__Asm__P06 *m = emit_p06_slot(e, cp->core, p, slot, e->g->blocks[cp->block]->id);
    if (!m)
        return ST_RUNTIME;
    emit_p06_rows(m, PR_INT_32, ci, rows, x1, rows * ci, o, rows * (ci + cc));
    SET(m, length_out, (int32_t)(ci + cc)); /* x1's row, then ciso's */
    SET(m, length_ciso, (int32_t)cc);
    SET(m, num_ciso, (int32_t)rows);
    SET(m, ciso_base_addr, (int32_t)ciso);
    SET(m, ciso_addr_length, (int32_t)(rows * cc));
    return e->d->oom ? ST_RUNTIME : ST_OK;
}

/* The bands of merge m: a P06 a band, in Soma2 of its phase. */
static Status band_prims(Emit *e, const EMerge *m)
{
    const ECopy *cp = &e->copies[m->copy];
    const ECore *c = &e->cores[cp->core];
    int64_t pw = emit_feat_pixel_words(&cp->feat);
    int64_t w0 = m->piece[0].box.n[1] * pw, w1 = m->piece[1].box.n[1] * pw;
    for (int b = 0; b < m->nb; b++) {
        int64_t r0 = m->band_row0[b], at[2];
        for (int a = 0; a < 2; a++)
            at[a] = a == m->spread ? c->addr[m->band_land[b]]
                                   : slice_addr(e, m, a) + r0 * (a ? w1 : w0);
        Status st = emit_join_rows(e, cp, m->band_phase[b], MAP_PI_SOMA2, m->band_rows[b],
                                   at[0], w0, at[1], w1, emit_copy_addr(e, cp) + r0 * (w0 + w1));
        if (st != ST_OK)
            return st;
    }
    return ST_OK;
}

Status emit_merge_prims(Emit *e)
{
    for (size_t i = 0; i < e->n_merges; i++) {
        const EMerge *m = &e->merges[i];
        if (m->wrap) {
            Status st = emit_merge_wrap_prim(e, m);
            if (st != ST_OK)
                return st;
            continue;
        }
        if (m->nb) {
            Status st = band_prims(e, m);
            if (st != ST_OK)
                return st;
            continue;
        }
        const ECopy *cp = &e->copies[m->copy];
        const ECore *c = &e->cores[cp->core];
        int64_t pw = emit_feat_pixel_words(&cp->feat), rows = cp->box.n[0];
        int64_t acc = slice_addr(e, m, 0), cols = m->piece[0].box.n[1];
        for (int a = 1; a < m->n; a++) {
            int64_t more = m->piece[a].box.n[1];
            int64_t to = a == m->n - 1 ? emit_copy_addr(e, cp) : c->addr[m->acc[a]];
            Status st = emit_join_rows(e, cp, m->phase[a - 1], m->slot[a - 1], rows, acc,
                                       cols * pw, slice_addr(e, m, a), more * pw, to);
            if (st != ST_OK)
                return st;
            acc = to;
            cols += more;
        }
    }
    return ST_OK;
}
