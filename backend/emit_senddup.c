/* emit_senddup.c: a buffer sent twice (docs/backend.md, "Transfers", "A buffer sent
 * twice"). The router reads its area once, in order, and a relaying chain lands its runs
 * at one offset on each of its cores, so a writer's words going in one phase to copies of
 * two storage blocks at two row strides (a CADD's rows of 3 pixels into a map of rows of 9
 * pixels on one core and into one of 18 on another) would need two headers over the same
 * words [emit.route]. A pass that meets such an overlap records the writer and the later
 * storage (the earlier where only its copy is one a second copy may serve: serves); the
 * next pass gives that storage's copies a send area of the buffer's own
 * precision and pitch (emit_sendbuf.c: a P06 copies the buffer there after the writer and
 * before the router), and the router sends their runs from it, the others' from the
 * buffer. A writer with no output buffer, which writes a copy on its own core and sends from
 * it (emit_route.c writer_loc), gets a send area holding a second copy of that copy, a P06
 * after the writer copying its pixels as they are (INT_32 words, the copy's pitch in and
 * out). A second copy of a buffer left without a Soma slot rides on one of the same
 * writer's that has one (emit_senddup_fold): that P06 writes the buffer once more, after
 * its own repeats, into its grown area. */
#include "backend/emit_internal.h"


#define SET(m, f, v) ((m)->has_##f = 1, (m)->f = (v))

/* The one compute block on core k writing into both storage block positions sa and sb, or
 * -1: none, or several. */
static long writer_of_both(const Emit *e, uint32_t k, uint32_t sa, uint32_t sb)
{
    long found = -1;
    const BlockUses *bu = &e->uses.blocks[sa];
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        long w = graph_block_pos(e->g, e->g->edges[bu->in_edges[j]]->src);
        if (w < 0 || w == found || e->core_of[w] != k)
            continue;
        const BlockUses *wu = &e->uses.blocks[w];
        bool to_b = false;
        for (uint32_t i = 0; i < wu->n_out_edges && !to_b; i++)
            to_b = graph_block_pos(e->g, e->g->edges[wu->out_edges[i]]->dst) == (long)sb;
        if (!to_b)
            continue;
        if (found >= 0)
            return -1;
        found = w;
    }
    return found;
}

bool emit_senddup_of(const Emit *e, uint32_t w, uint32_t s)
{
    for (size_t i = 0; i < emit_pins_n(e, EPIN_DUP); i++) {
        const EPinDup *d = emit_pin_at(e, EPIN_DUP, i);
        if (d->w == w && d->s == s)
            return true;
    }
    return false;
}

Status emit_senddup_hint(Emit *e, uint32_t k, const ESend *a, const ESend *b)
{
    return a->stride == b->stride && a->run == b->run ? ST_OK : emit_senddup_note(e, k, a, b);
}

/* Whether a second copy of the buffer of the writer on core k may serve send s: s goes to
 * another core (a writer's router fills its own-core copies from the buffer, EOut.gather,
 * emit_route.c) into a copy of the buffer's pitch (emit_sendbuf.c scan_dups), or the writer
 * has no buffer (a second copy of the copy it sends from serves any). */
static bool serves(const Emit *e, uint32_t k, const ESend *s)
{
    long pos = graph_block_pos(e->g, s->block);
    const ECopy *cp = pos >= 0 ? emit_copy_on(e, (uint32_t)pos, s->dst_core) : NULL;
    const BlockUses *bu = pos >= 0 ? &e->uses.blocks[pos] : NULL;
    if (!cp || s->dst_core == k)
        return false;
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        long w = graph_block_pos(e->g, e->g->edges[bu->in_edges[j]]->src);
        if (w >= 0 && e->core_of[w] == k && e->outs[w].used)
            return cp->feat.c == e->outs[w].feat.c;
    }
    return true;
}

Status emit_senddup_note(Emit *e, uint32_t k, const ESend *a, const ESend *b)
{
    long sa = graph_block_pos(e->g, a->block), sb = graph_block_pos(e->g, b->block);
    if (sa >= 0 && sb >= 0 && !serves(e, k, b) && serves(e, k, a)) {
        long t = sa;
        sa = sb;
        sb = t;
    }
    if (!e->pins || a->single || b->single || a->relay || b->relay || a->spilled ||
        b->spilled || sa < 0 || sb < 0 || sa == sb)
        return ST_OK;
    long w = writer_of_both(e, k, (uint32_t)sa, (uint32_t)sb);
    if (w < 0 || emit_senddup_of(e, (uint32_t)w, (uint32_t)sb))
        return ST_OK;
    return emit_pin_add(e, EPIN_DUP, &(EPinDup){(uint32_t)w, (uint32_t)sb}, 1);
}

/* The copy writer w writes on its own core and sends from (emit_route.c writer_loc: the first
 * of its out-edges' storages with a copy there), when a P06 may copy its area as it is (not
 * a view, planes, or an area shared with another); EMIT_NONE: none. */
static uint32_t sent_copy(const Emit *e, uint32_t w)
{
    uint32_t k = e->core_of[w];
    ELocalOuts it = emit_local_outs(w, k);
    for (const ECopy *cp; (cp = emit_local_outs_next(e, &it));) {
        const Edge *le = it.ed;
        uint32_t s = it.s;
        EBox lbox, lw;
        if (!emit_iface_box(e, s, true, le->id, &lbox) ||
            !emit_iface_box(e, w, false, le->id, &lw))
            continue;
        bool plain = !cp->view && !cp->planes && cp->alias_of == EMIT_NONE &&
                     cp->dup_of == EMIT_NONE && cp->req != EMIT_NONE && !cp->req_off &&
                     cp->feat.prec == PR_INT_32;
        return plain ? (uint32_t)(cp - e->copies) : EMIT_NONE;
    }
    return EMIT_NONE;
}

Status emit_senddup_copies(Emit *e)
{
    for (size_t i = 0; i < emit_pins_n(e, EPIN_DUP); i++) {
        const EPinDup *dup = emit_pin_at(e, EPIN_DUP, i);
        uint32_t w = dup->w, s = dup->s, ci;
        if (e->outs[w].used || (ci = sent_copy(e, w)) == EMIT_NONE)
            continue; /* a buffer's (emit_sendbuf.c), or none */
        uint32_t k = e->core_of[w];
        int32_t first = INT32_MAX, last = -1;
        const BlockUses *bu = &e->uses.blocks[w];
        for (uint32_t j = 0; j < bu->n_out_edges; j++) {
            const Edge *ed = e->g->edges[bu->out_edges[j]];
            const MapDict *dict = emit_edge_dict(e, ed->id);
            uint32_t sk, rk;
            Status st = ST_OK;
            if (graph_block_pos(e->g, ed->dst) != (long)s)
                continue;
            for (uint32_t c = 0; dict && emit_dict_pair(e, dict, &c, &sk, &rk, &st); c++) {
                int32_t t = emit_send_time(e, w, dict->coords[c].phase);
                first = sk == k && t < first ? t : first;
                last = sk == k && t > last ? t : last;
            }
            if (st != ST_OK)
                return st;
        }
        if (last < 0)
            continue;
        ESendBuf *n = emit_grow(e, e->sendbufs, &e->cap_sendbufs, e->n_sendbufs,
                                sizeof *e->sendbufs);
        if (!n)
            return ST_RUNTIME;
        e->sendbufs = n;
        e->sendbufs[e->n_sendbufs++] =
            (ESendBuf){.writer = w, .store = s, .feat = e->copies[ci].feat, .req = EMIT_NONE,
                       .phase = -1, .first = first, .last = last, .reps = 1, .copy = ci};
    }
    return ST_OK;
}

/* Whether send area sb is a second copy of its writer's buffer (its own precision and pitch)
 * for one storage's copies (emit_sendbuf.c need_pitch). */
static bool buffer_dup(const Emit *e, const ESendBuf *sb)
{
    const EOut *o = &e->outs[sb->writer];
    return sb->copy == EMIT_NONE && !sb->sliced && !sb->rides && o->used &&
           sb->feat.prec == o->feat.prec && sb->feat.c == o->feat.c;
}

Status emit_senddup_fold(Emit *e)
{
    for (size_t i = 0; i < e->n_sendbufs; i++) {
        ESendBuf *sb = &e->sendbufs[i];
        if (sb->req != EMIT_NONE || !buffer_dup(e, sb))
            continue;
        for (size_t j = 0; j < e->n_sendbufs; j++) {
            ESendBuf *h = &e->sendbufs[j];
            uint32_t k = e->core_of[h->writer];
            if (j == i || h->writer != sb->writer || h->req == EMIT_NONE || !buffer_dup(e, h) ||
                emit_slot_when(h->phase, h->slot) >= emit_slot_when(sb->first,
                                                                    MAP_PI_ROUTER_SEND))
                continue;
            /* one more repeat of the buffer in h's area, which lives to sb's last send too
             * (the whole step when that is in the next step) */
            ECore *c = &e->cores[k];
            AllocReq *r = &c->reqs[h->req];
            r->words += h->feat.words;
            if (sb->last >= c->n_phases) {
                r->first = 0;
                r->last = c->n_phases - 1;
            } else if (r->last < sb->last) {
                r->last = sb->last;
            }
            sb->rides = true;
            sb->off = h->feat.words * (h->reps + h->more++);
            sb->req = h->req;
            sb->phase = h->phase;
            sb->slot = h->slot;
            break;
        }
    }
    return ST_OK;
}

const ESendBuf *emit_senddup_copy(const Emit *e, uint32_t w, uint32_t ci, uint32_t s,
                                  int32_t p)
{
    int32_t t = emit_send_time(e, w, p);
    for (size_t i = 0; i < e->n_sendbufs; i++) {
        const ESendBuf *sb = &e->sendbufs[i];
        if (sb->writer == w && sb->copy == ci && sb->store == s && sb->req != EMIT_NONE &&
            t >= sb->first && t <= sb->last)
            return sb;
    }
    return NULL;
}

Status emit_senddup_prim(Emit *e, const ESendBuf *sb)
{
    const ECopy *cp = &e->copies[sb->copy];
    const ECore *c = &e->cores[cp->core];
    Taskir__Asm__P06 *m = emit_p06_slot(e, cp->core, sb->phase, sb->slot,
                                        e->g->blocks[sb->writer]->id);
    if (!m)
        return ST_RUNTIME;
    emit_p06_rows(m, cp->feat.prec, cp->feat.c, cp->feat.ny * cp->feat.nx,
                  emit_copy_addr(e, cp), cp->feat.words, c->addr[sb->req], sb->feat.words);
    SET(m, length_out, (int32_t)cp->feat.c);
    return ST_OK;
}
