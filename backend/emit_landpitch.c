/* emit_landpitch.c: a spread copy's part landing in its sender's pitch (docs/backend.md,
 * "Transfers", "Parts in the sender's pitch"). A relay forwarding pixels of its own copy into
 * a spread copy of fewer words a pixel (47 int32 channels from a copy of 64 a pixel into one
 * of 48) would send a run a pixel, each under a header of its own, and a disabled header
 * over each gap: a phase of 64 such pixels and one other run needs 129 headers against the
 * 128 a router holds [emit.route]. A part of one run (its phase's pixels of one copy, moved
 * by a P06) whose every arrival in that phase comes from one relay holding a copy of the
 * same precision in a wider pitch lands in that pitch instead: its landing area holds the
 * pixels at the relay's pitch, the router sends whole rows under one header, and the part's
 * P06 re-pitches them into the copy (`length_in` the relay's pitch, `length_out` the copy's,
 * INT_32 words as they are, the first `length_out` of each pixel kept). Only where a run a
 * pixel would fill the copy's pixels (its channels in 8-byte units are its pitch): the words
 * the copy keeps are the relay's words, as such runs would have carried them. The cut
 * (emit_spread.c cut_edges) counts such a phase's pixels in the relay's pitch, unless the
 * last phase's rest would then not fit; the landing area grows only where the phase's
 * receive area has room for it once every spread copy is planned (emit_recv_live), else
 * the part keeps the copy's pitch, as before. */
#include "backend/emit_internal.h"

#include "backend/core_mem.h"

#include <stdlib.h>
#include <string.h>

#define SET(m, f, v) ((m)->has_##f = 1, (m)->f = (v))

enum { RECV_WORDS = ASM_MEM3_BASE - ASM_MEM2_RECV, ROW_WORDS = 4 };

/* The pitch (words a pixel) of the copy relay sk forwards writer w's pixels from in phase
 * p, as emit_route.c's relay_loc picks it: the first of w's readers (in w's edge order) with
 * a copy on sk that is not static, keeps the writer's order and has received its data
 * before p; 0: none, or one in another precision or storage than cp. */
static int64_t held_pitch(Emit *e, uint32_t w, uint32_t sk, int32_t p, const ECopy *cp)
{
    ELocalOuts it = emit_local_outs(w, sk);
    for (const ECopy *rc; (rc = emit_local_outs_next(e, &it));) {
        const Edge *le = it.ed;
        if (rc->is_static || !emit_keeps_order(e, le) || emit_first_receive(e, le, sk) >= p)
            continue;
        bool same = rc->feat.prec == cp->feat.prec && rc->feat.per_word == cp->feat.per_word;
        return same ? emit_feat_pixel_words(&rc->feat) : 0;
    }
    return 0;
}

/* Whether writer w sends to a copy of pitch `pitch` (words a pixel) of a storage block other
 * than `local` on another core (as the mapper asks, mapper/run_box.c). */
static bool pitch_elsewhere(const Emit *e, uint32_t w, uint32_t local, int64_t pitch)
{
    const BlockUses *wu = &e->uses.blocks[w];
    for (uint32_t j = 0; j < wu->n_out_edges; j++) {
        long s = graph_block_pos(e->g, e->g->edges[wu->out_edges[j]]->dst);
        if (s < 0 || (uint32_t)s == local)
            continue;
        for (uint32_t i = 0; i < e->n_copies; i++)
            if (e->copies[i].block == (uint32_t)s && e->copies[i].core != e->core_of[w] &&
                emit_feat_pixel_words(&e->copies[i].feat) == pitch)
                return true;
    }
    return false;
}

/* The pitch (words a pixel) of the copy writer w's router sends its pixels from, when it
 * writes no output buffer but copies on its own core (emit_plan.c make_outs) and sends from
 * the first of them (emit_route.c writer_loc), and sends to copies of that pitch on other
 * cores too (its parts to them reach its pixel end, those to narrower copies do not: runs
 * to two sets of cores): that copy whole, the writer's pixels in their order, not static;
 * 0: none, or one in another precision or storage than cp. */
static int64_t writer_pitch(Emit *e, uint32_t w, const ECopy *cp)
{
    uint32_t k = e->core_of[w];
    if (e->outs[w].gather || e->outs[w].aliased)
        return 0; /* a buffer its router gathers from */
    ELocalOuts it = emit_local_outs(w, k);
    for (const ECopy *rc; (rc = emit_local_outs_next(e, &it));) {
        const Edge *le = it.ed;
        uint32_t s = it.s;
        EBox lbox, lw;
        if (!emit_iface_box(e, s, true, le->id, &lbox) ||
            !emit_iface_box(e, w, false, le->id, &lw))
            continue;
        bool same = rc->feat.prec == cp->feat.prec && rc->feat.per_word == cp->feat.per_word;
        int64_t pitch = emit_feat_pixel_words(&rc->feat);
        return same && !rc->is_static && !rc->view && !rc->planes &&
                       emit_whole_iface(e, w, false, le->id) &&
                       !memcmp(&lbox, &rc->box, sizeof lbox) &&
                       pitch_elsewhere(e, w, s, pitch)
                   ? pitch : 0;
    }
    return 0;
}

int64_t emit_land_pitch(Emit *e, const ECopy *cp, int32_t p)
{
    const BlockUses *bu = &e->uses.blocks[cp->block];
    int64_t pitch = 0, dpx = emit_feat_pixel_words(&cp->feat), pw = cp->feat.per_word;
    uint32_t from = EMIT_NONE;
    if (cp->unit || ((cp->box.n[2] + pw - 1) / pw + 1) / 2 * 2 != dpx)
        return 0; /* runs of a pixel's words; a run a pixel leaves words of the copy's
                     pixels unwritten */
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const Edge *ed = e->g->edges[bu->in_edges[j]];
        long w = graph_block_pos(e->g, ed->src);
        const MapDict *dict = emit_edge_dict(e, ed->id);
        for (uint32_t c = 0; dict && c + 1 < dict->n_coords; c++) {
            const MapCoord *cs = &dict->coords[c], *cr = &dict->coords[c + 1];
            if (cs->pi_index != MAP_PI_ROUTER_SEND || cr->pi_index != MAP_PI_ROUTER_RECIEVE ||
                cr->phase != p || !emit_same_place(&e->cores[cp->core], cr))
                continue;
            uint32_t sk = emit_core(e, cs);
            EBox dbox;
            if (w < 0 || sk == EMIT_NONE || (from != EMIT_NONE && sk != from) ||
                emit_slice_kind(e, cp, ed) != 0 ||
                !emit_iface_box(e, cp->block, true, ed->id, &dbox) ||
                emit_moves_lanes(e, ed, (uint32_t)w, &dbox))
                return 0; /* two senders, channel slices, 1-byte packets */
            /* a writer sending from a wider copy: every part of the chains it starts
               lands in that pitch, the relays' too */
            int64_t wp = writer_pitch(e, (uint32_t)w, cp);
            int64_t held = sk == e->core_of[w] || wp > dpx
                               ? wp : held_pitch(e, (uint32_t)w, sk, p, cp);
            if (held == 0 || (pitch && held != pitch))
                return 0;
            from = sk;
            pitch = held;
        }
    }
    return pitch > dpx && pitch % ROW_WORDS == 0 ? pitch : 0;
}

/* The compute block writing all of spread copy cp (its position), or -1: none, several. */
static long copy_writer(const Emit *e, const ECopy *cp)
{
    const BlockUses *bu = &e->uses.blocks[cp->block];
    long w = -1;
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        long s = graph_block_pos(e->g, e->g->edges[bu->in_edges[j]]->src);
        if (s < 0 || (w >= 0 && s != w))
            return -1;
        w = s;
    }
    return w;
}

/* The writer whose copy's pitch part pt lands in (writer_pitch), or -1: a relay's, or none. */
static long wide_writer(Emit *e, const EPart *pt)
{
    const ECopy *cp = &e->copies[pt->copy[0]];
    long w = copy_writer(e, cp);
    return w >= 0 && writer_pitch(e, (uint32_t)w, cp) > emit_feat_pixel_words(&cp->feat) ? w
                                                                                         : -1;
}

Status emit_part_pitches(Emit *e)
{
    bool *grown = calloc(e->n_parts ? e->n_parts : 1, sizeof *grown);
    if (!grown)
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    for (size_t i = 0; i < e->n_parts; i++) {
        EPart *pt = &e->parts[i];
        const ECopy *cp = &e->copies[pt->copy[0]];
        if (pt->nq[1] > 0 || pt->land == EMIT_NONE)
            continue; /* two runs: the P26 splits them in the copies' pitch */
        int64_t pitch = emit_land_pitch(e, cp, pt->phase);
        AllocReq *land = &e->cores[pt->core].reqs[pt->land];
        int64_t more = pt->nq[0] * pitch - land->words;
        if (pitch == 0)
            continue;
        if (emit_recv_live(e, pt->core, pt->phase, EMIT_NONE) + more > RECV_WORDS) {
            pt->pitch = -1; /* wanted, no room: below */
            continue;
        }
        pt->pitch = pitch;
        land->words += more;
        grown[i] = true;
    }
    /* the parts of one phase a writer sends from its copy land in its pitch all or none (a
     * relaying chain lands one run at one offset on each of its cores): where one of the
     * parts of that writer's copies in that phase does not, the others keep their copies'
     * pitch */
    for (size_t j = 0; j < e->n_parts; j++) {
        long w = grown[j] ? wide_writer(e, &e->parts[j]) : -1;
        bool all = true;
        for (size_t i = 0; w >= 0 && all && i < e->n_parts; i++) {
            const EPart *pt = &e->parts[i];
            const ECopy *cp = &e->copies[pt->copy[0]];
            all = pt->phase != e->parts[j].phase || copy_writer(e, cp) != w ||
                  (pt->nq[1] == 0 && (grown[i] || (pt->pitch == 0 && emit_spread_unit(cp) ==
                                                                       e->parts[j].pitch)));
        }
        for (size_t i = 0; !all && i < e->n_parts; i++) {
            EPart *pt = &e->parts[i];
            if (!grown[i] || pt->phase != e->parts[j].phase ||
                copy_writer(e, &e->copies[pt->copy[0]]) != w)
                continue;
            e->cores[pt->core].reqs[pt->land].words =
                pt->nq[0] * emit_spread_unit(&e->copies[pt->copy[0]]);
            pt->pitch = 0;
            grown[i] = false;
        }
    }
    for (size_t i = 0; i < e->n_parts; i++)
        e->parts[i].pitch = e->parts[i].pitch < 0 ? 0 : e->parts[i].pitch;
    free(grown);
    return ST_OK;
}

const ECopy *emit_part_landed(const EPart *pt, const ECopy *cp, ECopy *tmp)
{
    if (!pt || pt->pitch == 0 || pt->copy[0] != pt->copy[1] || pt->nq[1] > 0)
        return cp;
    *tmp = *cp;
    tmp->feat.c = pt->pitch * cp->feat.per_word;
    tmp->feat.words = tmp->feat.ny * tmp->feat.nx * pt->pitch;
    return tmp;
}

int64_t emit_part_pitch(const Emit *e, const EPart *pt, int r)
{
    return pt->pitch && r == 0 ? pt->pitch : emit_spread_unit(&e->copies[pt->copy[r]]);
}

Status emit_part_repitch(Emit *e, const EPart *pt)
{
    const ECopy *cp = &e->copies[pt->copy[0]];
    const ECore *c = &e->cores[pt->core];
    int64_t pw = emit_feat_pixel_words(&cp->feat);
    Taskir__Asm__P06 *m = emit_p06_slot(e, pt->core, pt->move_phase, pt->move_slot,
                                        e->g->blocks[cp->block]->id);
    if (!m)
        return ST_RUNTIME;
    emit_p06_rows(m, PR_INT_32, pt->pitch, pt->nq[0], c->addr[pt->land], pt->nq[0] * pt->pitch,
                  emit_copy_addr(e, cp) + pt->q0[0] * pw, pt->nq[0] * pw);
    SET(m, length_out, (int32_t)pw);
    return ST_OK;
}
