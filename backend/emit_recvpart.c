/* emit_recvpart.c: a received copy that stays in the receive area and whose rows arrive in
 * several phases, its area planned part by part (docs/backend.md, "Memory plan").
 *
 * A copy whose transfers each arrive whole in one phase, but not all in the same one (two
 * writers sending their rows in phases 0 and 1), and that stays in the receive area (no
 * free Soma slot moves it out, emit_plan.c) gets one area there from its first arrival on.
 * The rows that arrive later hold nothing before the router of their phase writes them, and
 * the mapper counts them in that phase only (its receive budget counts what arrives a
 * phase). On a core whose plan fits none of the other ways, such an area is placed as a
 * chain of parts (alloc.h, AllocReq.next): the words of the rows of each arrival phase, in
 * the order of the copy's words, each alive from the router of its phase to the copy's end,
 * so that what lands first and leaves before the later rows come may take their words.
 * Fixture emit_lay_recv_parts; test_diff_ops/div_9x9_all_pairs: on chip (0,1) core (1,1) an
 * int32 map of 2560 words lands in phase 0 and moves out in Soma2 of it, beside an 8-bit map
 * of 640 words whose first 3 pixels land in phase 0 and last 2 in phase 1 (3200 words of the
 * receive area's 3072 in phase 0 before, 2944 so).
 */
#include "backend/emit_internal.h"

#include <stdlib.h>
#include <string.h>

/* One edge's rows of a copy: words [off, end) of its area, landing in phase `phase`. */
typedef struct ERowRun {
    int64_t off, end;
    int32_t phase;
} ERowRun;

static int run_cmp(const void *a, const void *b)
{
    const ERowRun *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* Whether request req of core k is a copy's and that copy's alone. */
static bool own_request(const Emit *e, uint32_t k, uint32_t req, const ECopy *cp)
{
    for (uint32_t i = 0; i < e->n_copies; i++) {
        const ECopy *o = &e->copies[i];
        if (o != cp && o->core == k && (o->req == req || o->land == req))
            return false;
        if (o != cp && o->dup_of != EMIT_NONE && &e->copies[o->dup_of] == cp)
            return false;
    }
    for (uint32_t pos = 0; pos < e->g->n_blocks; pos++)
        if (e->outs[pos].used && e->outs[pos].core == k && e->outs[pos].req == req)
            return false;
    for (size_t i = 0; i < e->n_gathers; i++)
        if (e->gathers[i].req == req && e->core_of[e->gathers[i].cadd] == k)
            return false;
    const ECore *c = &e->cores[k];
    for (size_t i = 0; i < c->n_reqs; i++)
        if (c->reqs[i].next == (size_t)req + 1)
            return false;
    return true;
}

/* The words of edge ed's rows of copy cp and the phase they land in, into *run: false when
 * they are not whole pixels in one run of its words, or do not land on its core in one
 * phase. *none: the edge brings none of its pixels. */
static bool edge_run(const Emit *e, const ECopy *cp, const Edge *ed, int32_t *ph,
                     ERowRun *run, bool *none)
{
    EBox dbox, part;
    *none = false;
    if (!emit_iface_box(e, cp->block, true, ed->id, &dbox))
        return false;
    if (!emit_box_meet(&dbox, &cp->box, &part)) {
        *none = true;
        return true;
    }
    if (emit_arrival_phases(e, emit_edge_dict(e, ed->id), cp->core, ph) != 1)
        return false; /* nothing lands here (written on its core), or it is spread */
    if (part.lo[2] != cp->box.lo[2] || part.n[2] != cp->box.n[2] ||
        (part.n[0] > 1 && part.n[1] != cp->box.n[1]))
        return false; /* channel slices, or columns of several rows */
    int64_t y0 = part.lo[0] - cp->box.lo[0], x0 = part.lo[1] - cp->box.lo[1];
    run->off = emit_feat_offset(&cp->feat, y0, x0);
    run->end = emit_feat_offset(&cp->feat, y0 + part.n[0] - 1, x0 + part.n[1] - 1) +
               emit_feat_pixel_words(&cp->feat);
    run->phase = ph[0];
    return run->off >= 0 && run->end > run->off;
}

/* The runs of copy cp's rows (room for its block's in-edges in runs, for any dict's phases
 * in ph) sorted by word, one a phase of arrival where adjacent ones share it; their count,
 * 0 when the copy is not planned in parts. */
static size_t copy_runs(const Emit *e, const ECopy *cp, const AllocReq *r, ERowRun *runs,
                        int32_t *ph)
{
    const BlockUses *bu = &e->uses.blocks[cp->block];
    size_t n = 0;
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const Edge *ed = e->g->edges[bu->in_edges[j]];
        long w = graph_block_pos(e->g, ed->src);
        bool none;
        if (w < 0 || e->core_of[w] == cp->core || !edge_run(e, cp, ed, ph, &runs[n], &none))
            return 0; /* a writer on its core, or rows not in one run */
        if (none)
            continue;
        if (runs[n].phase < r->first || runs[n].phase > r->last)
            return 0; /* data of the step before */
        n++;
    }
    qsort(runs, n, sizeof *runs, run_cmp);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && runs[i].off < runs[i - 1].end)
            return 0; /* rows that two edges bring */
        if (runs[i].off % 2)
            return 0; /* a part begins at an 8-byte unit (the router's) */
        if (m > 0 && runs[i].phase == runs[m - 1].phase)
            runs[m - 1].end = runs[i].end;
        else
            runs[m++] = runs[i];
    }
    bool later = false;
    for (size_t i = 1; i < m; i++)
        later |= runs[i].phase > runs[0].phase;
    return later ? m : 0;
}

/* The area received copy cp on core k lands in, whole and its own (the area it stays in, or
 * its landing area when a P06 moves it out: not spread, merged, gathered in place or
 * sharing words), or EMIT_NONE. */
static uint32_t landing_req(const Emit *e, const ECopy *cp, uint32_t k)
{
    const ECore *c = &e->cores[k];
    if (cp->core != k || !cp->received || cp->spread || cp->req == EMIT_NONE ||
        cp->req_off != 0 || cp->view || cp->planes || cp->alias_of != EMIT_NONE ||
        cp->dup_of != EMIT_NONE || emit_merge_of(e, cp))
        return EMIT_NONE;
    uint32_t req = cp->land != EMIT_NONE ? cp->land : cp->req;
    const AllocReq *r = &c->reqs[req];
    return r->kind == ALLOC_RECV && r->words > 0 && !r->next && !r->again &&
                   own_request(e, k, req, cp)
               ? req : EMIT_NONE;
}

Status emit_recv_parts(Emit *e, uint32_t k, bool *any)
{
    ECore *c = &e->cores[k];
    *any = false;
    c->n_rparts = 0;
    uint32_t most = 1, most_in = 1; /* room for any dict's phases, any block's in-edges */
    for (uint32_t i = 0; i < e->m->n_edges; i++)
        most = e->m->edges[i].n_coords > most ? e->m->edges[i].n_coords : most;
    for (uint32_t i = 0; i < e->n_copies; i++) {
        uint32_t n = e->uses.blocks[e->copies[i].block].n_in_edges;
        most_in = e->copies[i].core == k && n > most_in ? n : most_in;
    }
    int32_t *ph = malloc(most * sizeof *ph);
    ERowRun *runs = malloc(most_in * sizeof *runs);
    Status st = ph && runs ? ST_OK : diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    for (uint32_t i = 0; i < e->n_copies && st == ST_OK; i++) {
        const ECopy *cp = &e->copies[i];
        uint32_t req = landing_req(e, cp, k);
        if (req == EMIT_NONE)
            continue;
        size_t n = copy_runs(e, cp, &c->reqs[req], runs, ph);
        for (size_t j = 0; j < n && st == ST_OK; j++) {
            EReqPart *np = emit_grow(e, c->rparts, &c->cap_rparts, c->n_rparts,
                                     sizeof *c->rparts);
            if (!np) {
                st = diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
                break;
            }
            c->rparts = np;
            /* the first part from the area's start, the others from their rows' first word */
            c->rparts[c->n_rparts++] = (EReqPart){req, j ? runs[j].off : 0, runs[j].phase};
            *any = true;
        }
    }
    free(ph);
    free(runs);
    return st;
}

size_t emit_recv_parts_apply(const ECore *c, const uint32_t *lead, const size_t *at,
                             AllocReq *kept, size_t n)
{
    for (size_t a = 0; a < c->n_rparts;) {
        size_t b = a + 1;
        uint32_t req = c->rparts[a].req;
        while (b < c->n_rparts && c->rparts[b].req == req)
            b++;
        bool twin = !at[req];
        for (size_t i = 0; i < c->n_reqs && !twin; i++)
            twin = i != req && lead[i] == req && c->reqs[i].words > 0;
        if (twin) { /* an area twins share lives over all their lives: whole */
            a = b;
            continue;
        }
        AllocReq *head = &kept[at[req] - 1];
        int64_t words = head->words;
        if (c->rparts[a].first > head->first) { /* nothing in it before its rows land */
            head->first = c->rparts[a].first;
            head->first_router = true;
            head->first_soma = false;
        }
        AllocReq *prev = head;
        for (size_t j = a + 1; j < b; j++) {
            const EReqPart *rp = &c->rparts[j];
            int64_t end = j + 1 < b ? c->rparts[j + 1].off : words;
            kept[n] = *head;
            kept[n].words = end - rp->off;
            kept[n].align = 2; /* the router's 8-byte units */
            kept[n].first = rp->first;
            kept[n].first_router = true;
            kept[n].first_soma = false;
            kept[n].next = 0;
            prev->words = rp->off - (prev == head ? 0 : c->rparts[j - 1].off);
            prev->next = n + 1;
            prev = &kept[n++];
        }
        a = b;
    }
    return n;
}
