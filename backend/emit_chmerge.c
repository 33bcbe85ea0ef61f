/* emit_chmerge.c: a copy assembled on its core from channel slices that arrive in several
 * phases, over the receive area (docs/backend.md, "Inserted primitives", "Channel slices
 * joined phase by phase"). The pieces of a layer cut along f each send some channels of
 * every pixel of the rows they hold; a slice that goes to several cores (a multicast set)
 * is planned alone by the mapper, so the slices of the same rows arrive in phases of their
 * own, and the copy's pixels are whole only once the last has come: the copy cannot move out
 * of the receive area part by part (emit_spread.c, emit_slices.c), and it holds more than the
 * 12 KiB there. Instead, each phase's slices land in a landing area of their own in the
 * receive area (the band's pixels, the phase's channels side by side, the router's runs and
 * strides placing each), alive in that phase only, and a P06 in Soma2 of that phase joins
 * them to the band's channels so far (x1 row i and ciso row i side by side into out row i, a
 * row a pixel; before or after them, as the channels come), INT_32 words as they are. The
 * band's channels so far lie at the end of the band's part of the copy's area, and every
 * join writes its longer rows ending there too, so the band grows in place towards its start
 * and the last join leaves it whole where the copy's readers find it: out row i ends at or
 * before where the next input row starts, so a P06 reading row by row before writing it
 * never overwrites a row it has still to read, and no area beyond the copy's is needed.
 * A relay forwarding a slice in a later phase sends it from where the joins have put it by
 * then (emit_chmerge_at, emit_route.c relay_loc).
 * Planned when every input of the copy is such a slice: from another core, whole rows (of a
 * copy of one row, runs of its columns: its bands then cut the columns, a band's pixels
 * following each other as a band's rows do), each whole in one phase; the slices of a
 * band's rows tile its channels; a phase's slices of one band only, their channels together
 * next to the band's so far; a free Soma2 in each phase (the mapper keeps it for a transfer
 * into a copy over the receive area); every reader on the core after the last join; 16-byte
 * rows, no padding lanes but the copy's own after its last channel (joined last of its
 * band, after the channels before them); no other inserted P06 on the copy. Else the copy
 * stays in the receive area as before, and the memory plan refuses it (emit.alloc).
 */
#include "backend/emit_internal.h"

#include "backend/core_mem.h"

#include <string.h>

enum { RECV_WORDS = ASM_MEM3_BASE - ASM_MEM2_RECV, ROW_WORDS = 4 };

/* A slice: rows (columns, along the merge's bd) y0 .. y0 + ny and channels c0 .. c0 + nc of
 * the copy, landing in phase. */
typedef struct Slice {
    int64_t y0, ny, c0, nc;
    int32_t phase;
} Slice;

/* The one phase edge ed lands in on core k; -1 when it lands in none or in several. */
static int32_t one_phase(const Emit *e, const Edge *ed, uint32_t k)
{
    const MapDict *dict = emit_edge_dict(e, ed->id);
    int32_t ph = -1;
    int n = 0;
    for (uint32_t c = 0; dict && c + 1 < dict->n_coords; c++) {
        const MapCoord *cs = &dict->coords[c], *cr = &dict->coords[c + 1];
        if (cs->pi_index == MAP_PI_ROUTER_SEND && cr->pi_index == MAP_PI_ROUTER_RECIEVE &&
            emit_same_place(&e->cores[k], cr)) {
            ph = cr->phase;
            n++;
        }
    }
    return n == 1 ? ph : -1;
}

/* The slices of copy cp into s (room CHM_STEPS), *n, bands along dim bd (0: whole rows; 1:
 * runs of the columns of a copy of one row); false when an input is not one. */
static bool collect(const Emit *e, const ECopy *cp, int bd, Slice *s, int *n)
{
    const BlockUses *bu = &e->uses.blocks[cp->block];
    *n = 0;
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const Edge *ed = e->g->edges[bu->in_edges[j]];
        long w = graph_block_pos(e->g, ed->src);
        EBox d, part;
        if (w < 0 || bt_info(e->g->blocks[w]->type)->kind != BK_COMPUTE ||
            e->core_of[w] == cp->core || (ed->n_re && !emit_keeps_order(e, ed)) ||
            !emit_iface_box(e, cp->block, true, ed->id, &d))
            return false;
        if (!emit_box_meet(&d, &cp->box, &part))
            continue;
        int32_t ph = one_phase(e, ed, cp->core);
        if (ph < 0 || *n == CHM_STEPS ||
            (bd == 0 && (part.lo[1] != cp->box.lo[1] || part.n[1] != cp->box.n[1])))
            return false;
        s[(*n)++] = (Slice){part.lo[bd], part.n[bd], part.lo[2], part.n[2], ph};
    }
    return *n >= 2;
}

/* The bands of m from the slices: their rows (columns, along m->bd), disjoint, tiling the
 * copy's; false when slices cross. */
static bool bands(const ECopy *cp, const Slice *s, int n, EChMerge *m)
{
    m->nb = 0;
    for (int64_t y = cp->box.lo[m->bd]; y < cp->box.lo[m->bd] + cp->box.n[m->bd];) {
        int64_t ny = -1;
        for (int i = 0; i < n; i++)
            if (s[i].y0 == y)
                ny = s[i].ny;
        if (ny <= 0 || m->nb == CHM_BANDS)
            return false;
        for (int i = 0; i < n; i++)
            if (s[i].y0 < y + ny && s[i].y0 + s[i].ny > y && (s[i].y0 != y || s[i].ny != ny))
                return false;
        m->y0[m->nb] = y;
        m->ny[m->nb++] = ny;
        y += ny;
    }
    return true;
}

/* The steps of m: per phase, the slices of one band there, their channels together next to
 * the band's so far; false when they are not so, or a band's channels are not tiled. */
static bool steps(const ECopy *cp, Slice *s, int n, EChMerge *m)
{
    for (int i = 1; i < n; i++) /* by phase, then channel */
        for (int j = i; j > 0 && (s[j - 1].phase > s[j].phase ||
                                  (s[j - 1].phase == s[j].phase && s[j - 1].c0 > s[j].c0));
             j--) {
            Slice t = s[j];
            s[j] = s[j - 1];
            s[j - 1] = t;
        }
    int64_t a0[CHM_BANDS] = {0}, an[CHM_BANDS] = {0};
    int64_t end = cp->box.lo[2] + cp->box.n[2];
    /* the landing areas and the channels so far in 16-byte units (the last step's must be
       the copy's pitch, below: a table's 127 int8 channels a pixel of 128, slices of 32) */
    int unit = ROW_WORDS * cp->feat.per_word;
    m->n = 0;
    for (int i = 0; i < n;) {
        int b = 0;
        while (b < m->nb - 1 && m->y0[b] != s[i].y0)
            b++;
        int64_t c0 = s[i].c0, c1 = s[i].c0 + s[i].nc;
        int j = i + 1;
        for (; j < n && s[j].phase == s[i].phase; j++) {
            if (s[j].y0 != s[i].y0 || s[j].c0 != c1)
                return false; /* two bands in a phase, or channels apart */
            c1 += s[j].nc;
        }
        EChStep *st = &m->step[m->n++];
        memset(st, 0, sizeof *st);
        st->phase = s[i].phase;
        st->band = b;
        st->c0 = c0;
        st->nc = c1 - c0;
        st->land = EMIT_NONE;
        if (an[b] == 0) {
            a0[b] = c0;
        } else if (c1 == a0[b]) {
            st->before = true;
            a0[b] = c0;
        } else if (c0 != a0[b] + an[b]) {
            return false;
        }
        an[b] += c1 - c0;
        st->a0 = a0[b];
        st->an = an[b];
        int64_t bny = m->bd ? 1 : m->ny[b], bnx = m->bd ? m->ny[b] : cp->box.n[1];
        /* whole 16-byte rows a pixel, no padding between slices: but after the copy's last
           channels, the copy's own padding, joined after the band's channels so far */
        if (!emit_feat(cp->feat.prec, bny, bnx, st->nc, unit, &st->feat) ||
            !emit_feat(cp->feat.prec, bny, bnx, st->an, unit, &st->acc) ||
            (st->feat.c != st->nc && (c1 != end || st->before)) ||
            (st->acc.c != st->an && st->a0 + st->an != end) ||
            emit_feat_pixel_words(&st->feat) % ROW_WORDS ||
            (st->an == cp->box.n[2] &&
             emit_feat_pixel_words(&st->acc) != emit_feat_pixel_words(&cp->feat)))
            return false;
        i = j;
    }
    for (int b = 0; b < m->nb; b++)
        if (a0[b] != cp->box.lo[2] || an[b] != cp->box.n[2])
            return false;
    return true;
}

/* Plans copy ci when it can be (above): the landing areas, the Soma2 slots, the copy's
 * area in the data banks from the first join. */
static Status plan(Emit *e, uint32_t ci, EChMerge *m, bool *kept)
{
    ECopy *cp = &e->copies[ci];
    ECore *c = &e->cores[cp->core];
    Slice s[CHM_STEPS];
    int n = 0;
    *kept = false;
    m->bd = cp->box.n[0] == 1 ? 1 : 0;
    if (emit_moved_otherwise(e, ci) || !collect(e, cp, m->bd, s, &n) || !bands(cp, s, n, m) ||
        !steps(cp, s, n, m))
        return ST_OK;
    int32_t first = m->step[0].phase, last = m->step[m->n - 1].phase;
    for (int i = 0; i < m->n; i++)
        if (emit_soma_taken(e, cp->core, m->step[i].phase, MAP_PI_SOMA2))
            return ST_OK;
    if (!emit_read_after(e, cp, emit_slot_when(last, MAP_PI_SOMA2)))
        return ST_OK;
    int32_t tag = e->g->blocks[cp->block]->id, align = cp->feat.align < 2 ? 2 : cp->feat.align;
    for (int i = 0; i < m->n; i++) {
        EChStep *st = &m->step[i];
        st->land = emit_request(e, cp->core, st->feat.words, align, st->phase, st->phase,
                                ALLOC_RECV, tag);
        Status r = st->land == EMIT_NONE
                       ? diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory")
                       : emit_slot_take(e, cp->core, st->phase, MAP_PI_SOMA2, SLOT_MERGE,
                                        cp->block);
        if (r != ST_OK)
            return r;
    }
    AllocReq *r = &c->reqs[cp->req]; /* the copy, in the data banks from the first join */
    r->kind = ALLOC_DATA;
    r->first = first < r->first ? first : r->first;
    r->last = last > r->last ? last : r->last;
    cp->movable = false;
    m->copy = ci;
    *kept = true;
    return ST_OK;
}

Status emit_chmerges(Emit *e)
{
    for (uint32_t i = 0; i < e->n_copies; i++) {
        const ECopy *cp = &e->copies[i];
        const ECore *c = &e->cores[cp->core];
        if (cp->is_static || cp->view || cp->planes || cp->spread || cp->image ||
            cp->req == EMIT_NONE || c->reqs[cp->req].kind != ALLOC_RECV ||
            c->reqs[cp->req].words <= RECV_WORDS || emit_merge_of(e, cp) ||
            cp->dup_of != EMIT_NONE)
            continue; /* only what does not fit the receive area (not a copy sharing
                         another's area, emit_dup.c: that one is joined) */
        EChMerge m;
        memset(&m, 0, sizeof m);
        bool kept;
        Status st = plan(e, i, &m, &kept);
        if (st != ST_OK)
            return st;
        if (!kept)
            continue;
        EChMerge *nm = emit_grow(e, e->chmerges, &e->cap_chmerges, e->n_chmerges,
                                 sizeof *e->chmerges);
        if (!nm)
            return ST_RUNTIME;
        e->chmerges = nm;
        e->chmerges[e->n_chmerges++] = m;
    }
    return ST_OK;
}

const EChMerge *emit_chmerge_of(const Emit *e, const ECopy *cp)
{
    for (size_t i = 0; i < e->n_chmerges; i++)
        if (&e->copies[e->chmerges[i].copy] == cp)
            return &e->chmerges[i];
    return NULL;
}

int emit_chmerge_land(const Emit *e, const ECopy *cp, int32_t eid, int32_t phase,
                      ECopy *slice, int64_t *base)
{
    (void)eid; /* every input of the copy is a slice: the phase names the step */
    const EChMerge *m = emit_chmerge_of(e, cp);
    if (!m)
        return 0;
    for (int i = 0; i < m->n; i++) {
        const EChStep *st = &m->step[i];
        if (st->phase != phase)
            continue;
        *slice = *cp;
        slice->box.lo[m->bd] = m->y0[st->band];
        slice->box.n[m->bd] = m->ny[st->band];
        slice->box.lo[2] = st->c0;
        slice->box.n[2] = st->nc;
        slice->feat = st->feat;
        *base = e->cores[cp->core].addr[st->land];
        return 1;
    }
    return -1;
}

/* The word the band's part of copy cp's area ends at. */
static int64_t band_end(const Emit *e, const ECopy *cp, const EChMerge *m, int b)
{
    int64_t row = (m->bd ? 1 : cp->box.n[1]) * emit_feat_pixel_words(&cp->feat);
    return emit_copy_addr(e, cp) + (m->y0[b] - cp->box.lo[m->bd] + m->ny[b]) * row;
}

/* The pixels of band b of m. */
static int64_t band_pixels(const ECopy *cp, const EChMerge *m, int b)
{
    return m->bd ? m->ny[b] : m->ny[b] * cp->box.n[1];
}

bool emit_chmerge_at(const Emit *e, const ECopy *cp, const EBox *b, int32_t p,
                     const EmitFeat **feat, EBox *box, int64_t *base, int64_t *row)
{
    const EChMerge *m = emit_chmerge_of(e, cp);
    const EChStep *at = NULL;
    for (int i = 0; m && i < m->n && m->step[i].phase < p; i++) {
        int bn = m->step[i].band;
        if (b->lo[m->bd] >= m->y0[bn] && b->lo[m->bd] + b->n[m->bd] <= m->y0[bn] + m->ny[bn])
            at = &m->step[i];
    }
    if (!at || b->lo[2] < at->a0 || b->lo[2] + b->n[2] > at->a0 + at->an)
        return false;
    *feat = &at->acc;
    *box = cp->box;
    box->lo[m->bd] = m->y0[at->band];
    box->n[m->bd] = m->ny[at->band];
    box->lo[2] = at->a0;
    box->n[2] = at->an;
    *base = band_end(e, cp, m, at->band) - at->acc.words;
    *row = box->n[1] * emit_feat_pixel_words(&at->acc);
    return true;
}

Status emit_chmerge_prims(Emit *e)
{
    for (size_t i = 0; i < e->n_chmerges; i++) {
        const EChMerge *m = &e->chmerges[i];
        const ECopy *cp = &e->copies[m->copy];
        const ECore *c = &e->cores[cp->core];
        int32_t block = e->g->blocks[cp->block]->id;
        int64_t had[CHM_BANDS] = {0}; /* words a pixel so far, per band */
        for (int s = 0; s < m->n; s++) {
            const EChStep *st = &m->step[s];
            int64_t px = band_pixels(cp, m, st->band), lw = emit_feat_pixel_words(&st->feat);
            int64_t land = c->addr[st->land], end = band_end(e, cp, m, st->band);
            int64_t acc = end - px * had[st->band], to = end - st->acc.words;
            Status r = ST_OK;
            if (!had[st->band]) {
                Taskir__Asm__P06 *p = emit_p06_slot(e, cp->core, st->phase, MAP_PI_SOMA2, block);
                if (!p)
                    return ST_RUNTIME;
                emit_p06_rows(p, PR_INT_32, lw, px, land, px * lw, to, px * lw);
            } else if (st->before) {
                r = emit_join_rows(e, cp, st->phase, MAP_PI_SOMA2, px, land, lw, acc,
                                   had[st->band], to);
            } else {
                r = emit_join_rows(e, cp, st->phase, MAP_PI_SOMA2, px, acc, had[st->band],
                                   land, lw, to);
            }
            if (r != ST_OK)
                return r;
            had[st->band] += lw;
        }
    }
    return e->d->oom ? ST_RUNTIME : ST_OK;
}
