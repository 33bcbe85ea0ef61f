/* emit_spread.c: a received copy whose transfers the Mapping spreads over several phases
 * (docs/backend.md, "Transfers", "Inserted primitives"). The mapper spreads the bytes of a
 * transfer over as many phases as the receive budget needs (12 KiB arrive in a phase), and
 * writes one ROUTER_SEND / ROUTER_RECIEVE pair a phase, without saying which bytes each
 * carries. The code generator cuts the part of every edge into whole rows of the copy: each
 * phase takes as many rows as the receive area has room for beside that phase's other
 * arrivals (the last phase the rest), as the mapper fills the phases, earliest first. The
 * rows arriving in a phase land in a landing area of their own in the receive area, alive in
 * that phase only, and a P06 in Soma2 of that phase (after the router) moves them into the
 * copy's area in the data banks (emit_move.c), where the copy's readers find it whole from
 * the next phase on.
 *
 * A copy that a writer on its own core writes part of, or whose parts are not whole rows of
 * it (all its columns and channels: one move a phase), is not spread: it lives in the
 * receive area from its first arrival, as any received copy (emit_plan.c), and each
 * transfer goes whole in its first phase. Refused (logic errors naming the block, not
 * written yet): parts of several edges in a phase that are not adjacent rows, phases that
 * wrap past the end of the step [emit.alloc]; a Soma2 that runs a block in a phase a part
 * arrives in [emit.slot]; a reader on the core before the last part's move [emit.alloc].
 */
#include "backend/emit_internal.h"

#include "backend/core_mem.h"
#include "taskir/diag_block.h"

#include <stdlib.h>
#include <string.h>

enum { PI_RECV = 3, PI_SEND = 4, PI_SOMA2 = 5 };
enum { RECV_WORDS = ASM_MEM3_BASE - ASM_MEM2_RECV, ROW_WORDS = 4 };

/* The phases edge dict dict's transfers land in on core k (its ROUTER_SEND /
 * ROUTER_RECIEVE pairs there, in the Mapping's order) into ph (room for n_coords); their
 * count. */
static uint32_t arrival_phases(const Emit *e, const MapDict *dict, uint32_t k, int32_t *ph)
{
    uint32_t n = 0;
    for (uint32_t c = 0; dict && c + 1 < dict->n_coords; c++) {
        const MapCoord *cs = &dict->coords[c], *cr = &dict->coords[c + 1];
        if (cs->pi_index == PI_SEND && cr->pi_index == PI_RECV &&
            emit_same_place(&e->cores[k], cr))
            ph[n++] = cr->phase;
    }
    return n;
}

/* Whether edge ed's part of copy cp is whole rows of it (all its columns and channels), or
 * misses it. */
static bool whole_rows(const Emit *e, const ECopy *cp, const Edge *ed)
{
    EBox d;
    if (!emit_iface_box(e, cp->block, true, ed->id, &d))
        return false;
    for (int i = 0; i < 3; i++)
        if (d.lo[i] >= cp->box.lo[i] + cp->box.n[i] || cp->box.lo[i] >= d.lo[i] + d.n[i])
            return true; /* misses it */
    return d.lo[1] <= cp->box.lo[1] && d.lo[1] + d.n[1] >= cp->box.lo[1] + cp->box.n[1] &&
           d.lo[2] <= cp->box.lo[2] && d.lo[2] + d.n[2] >= cp->box.lo[2] + cp->box.n[2];
}

bool emit_spread_of(const Emit *e, const ECopy *cp)
{
    const BlockUses *bu = &e->uses.blocks[cp->block];
    bool spread = false;
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const Edge *ed = e->g->edges[bu->in_edges[j]];
        long w = graph_block_pos(e->g, ed->src);
        if (w >= 0 && e->core_of[w] == cp->core)
            return false; /* a writer on its core: the copy stays in the receive area */
        const MapDict *dict = emit_edge_dict(e, ed->id);
        int32_t first = -1;
        bool here = false;
        for (uint32_t c = 0; dict && c + 1 < dict->n_coords; c++) {
            const MapCoord *cs = &dict->coords[c], *cr = &dict->coords[c + 1];
            if (cs->pi_index != PI_SEND || cr->pi_index != PI_RECV ||
                !emit_same_place(&e->cores[cp->core], cr))
                continue;
            here = true;
            spread |= first >= 0 && cr->phase != first;
            first = cr->phase;
        }
        if (here && !whole_rows(e, cp, ed))
            return false; /* one move a phase moves whole rows only */
    }
    return spread;
}

const EPart *emit_part_at(const Emit *e, const ECopy *cp, int32_t p)
{
    uint32_t ci = (uint32_t)(cp - e->copies);
    for (size_t i = 0; i < e->n_parts; i++)
        if (e->parts[i].copy == ci && e->parts[i].phase == p)
            return &e->parts[i];
    return NULL;
}

int32_t emit_spread_last(const Emit *e, const ECopy *cp)
{
    uint32_t ci = (uint32_t)(cp - e->copies);
    int32_t last = -1;
    for (size_t i = 0; i < e->n_parts; i++)
        if (e->parts[i].copy == ci && e->parts[i].phase > last)
            last = e->parts[i].phase;
    return last;
}

/* Words of core k's receive area requested for phase p so far. */
static int64_t recv_live(const Emit *e, uint32_t k, int32_t p)
{
    const ECore *c = &e->cores[k];
    int64_t sum = 0;
    for (size_t i = 0; i < c->n_reqs; i++)
        if (c->reqs[i].kind == ALLOC_RECV && c->reqs[i].first <= p && p <= c->reqs[i].last)
            sum += c->reqs[i].words;
    return sum;
}

/* Rows [y0, y0 + ny) of one edge's part arriving in a phase. */
typedef struct ESeg {
    int32_t phase;
    int64_t y0, ny;
} ESeg;

static int seg_cmp(const void *a, const void *b)
{
    const ESeg *x = a, *y = b;
    if (x->phase != y->phase)
        return x->phase < y->phase ? -1 : 1;
    return x->y0 < y->y0 ? -1 : x->y0 > y->y0;
}

/* The segments of the parts of the edges into spread copy cp: each edge's rows cut over
 * the phases it arrives in, into segs (room for *n_segs, grown); words: per phase, the
 * words given to this copy so far. */
static Status cut_edges(Emit *e, const ECopy *cp, ESeg **segs, size_t *n_segs, size_t *cap,
                        int64_t *words, int32_t *ph)
{
    const Block *b = e->g->blocks[cp->block];
    const BlockUses *bu = &e->uses.blocks[cp->block];
    uint32_t k = cp->core;
    int64_t row = cp->box.n[1] * emit_feat_pixel_words(&cp->feat);
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const Edge *ed = e->g->edges[bu->in_edges[j]];
        long w = graph_block_pos(e->g, ed->src);
        const MapDict *dict = emit_edge_dict(e, ed->id);
        uint32_t n = arrival_phases(e, dict, k, ph);
        EBox dbox;
        if (n == 0 || (w >= 0 && e->core_of[w] == k) ||
            !emit_iface_box(e, cp->block, true, ed->id, &dbox))
            continue; /* emit_spread_of: no writer on its core */
        int64_t lo = dbox.lo[0] > cp->box.lo[0] ? dbox.lo[0] : cp->box.lo[0];
        int64_t hi1 = dbox.lo[0] + dbox.n[0], hi2 = cp->box.lo[0] + cp->box.n[0];
        int64_t hi = hi1 < hi2 ? hi1 : hi2;
        if (hi <= lo)
            continue;
        int64_t left = hi - lo, y = lo;
        for (uint32_t i = 0; i < n && left > 0; i++) {
            if (ph[i] < 0 || ph[i] >= e->cores[k].n_phases || (i > 0 && ph[i] <= ph[i - 1]))
                return diag_edge(e->d, ST_LOGIC, "emit.alloc", ed->id,
                                 "the Mapping spreads its transfer into block %d on %s over "
                                 "phases %d..%d, which wrap past the end of the step: not "
                                 "written yet", b->id, e->cores[k].name, ph[0], ph[n - 1]);
            int64_t room = RECV_WORDS - recv_live(e, k, ph[i]) - words[ph[i]];
            int64_t rows = i + 1 == n ? left : room > 0 ? room / row : 0;
            rows = rows < left ? rows : left;
            if (rows == 0)
                continue;
            ESeg *ns = emit_grow(e, *segs, cap, *n_segs, sizeof **segs);
            if (!ns)
                return ST_RUNTIME;
            *segs = ns;
            (*segs)[(*n_segs)++] = (ESeg){ph[i], y, rows};
            words[ph[i]] += rows * row;
            y += rows;
            left -= rows;
        }
    }
    return ST_OK;
}

/* The readers of spread copy cp on its core run after its last part's move (Soma2 of the
 * last phase a part arrives in). */
static Status readers_after(Emit *e, const ECopy *cp, int32_t last)
{
    const BlockUses *bu = &e->uses.blocks[cp->block];
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        long t = graph_block_pos(e->g, e->g->edges[bu->out_edges[j]]->dst);
        if (t < 0 || e->core_of[t] != cp->core || e->phase_of[t] > last ||
            bt_info(e->g->blocks[t]->type)->kind != BK_COMPUTE)
            continue;
        return diag_block(e->d, ST_LOGIC, "emit.alloc", e->g->blocks[t],
                          "reads block %d on %s in phase %d, whose transfer the Mapping "
                          "spreads over phases up to %d: its last part moves out of the "
                          "receive area in Soma2 of phase %d, so a reader must run in a "
                          "later phase", e->g->blocks[cp->block]->id, e->cores[cp->core].name,
                          e->phase_of[t], last, last);
    }
    return ST_OK;
}

/* The parts of spread copy cp: its segments joined phase by phase, a landing area each. */
static Status plan_parts(Emit *e, ECopy *cp, ESeg *segs, size_t n)
{
    const Block *b = e->g->blocks[cp->block];
    uint32_t k = cp->core;
    int64_t row = cp->box.n[1] * emit_feat_pixel_words(&cp->feat);
    qsort(segs, n, sizeof *segs, seg_cmp);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        int64_t ny = segs[i].ny;
        for (; j < n && segs[j].phase == segs[i].phase; j++) {
            if (segs[j].y0 != segs[i].y0 + ny)
                return diag_block(e->d, ST_LOGIC, "emit.alloc", b,
                                  "arrives on %s in phase %d as rows %lld.. and %lld.., "
                                  "not adjacent: not written yet (one move a phase)",
                                  e->cores[k].name, segs[i].phase, (long long)segs[i].y0,
                                  (long long)segs[j].y0);
            ny += segs[j].ny;
        }
        int32_t p = segs[i].phase;
        if (emit_soma_taken(e, k, p, PI_SOMA2))
            return diag_block(e->d, ST_LOGIC, "emit.slot", b,
                              "arrives on %s over several phases: the rows arriving in phase "
                              "%d must move out of the receive area by a P06 in Soma2 of "
                              "that phase, which is taken", e->cores[k].name, p);
        if (row * ny % ROW_WORDS)
            return diag_block(e->d, ST_RUNTIME, "emit.internal", b,
                              "rows of %lld words, not whole 16-byte rows", (long long)row);
        EPart *np = emit_grow(e, e->parts, &e->cap_parts, e->n_parts, sizeof *e->parts);
        if (!np)
            return ST_RUNTIME;
        e->parts = np;
        uint32_t land = emit_request(e, k, row * ny, ROW_WORDS, p, p, ALLOC_RECV, b->id);
        if (land == EMIT_NONE)
            return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
        e->parts[e->n_parts++] = (EPart){(uint32_t)(cp - e->copies), p, segs[i].y0, ny, land};
        AllocReq *r = &e->cores[k].reqs[cp->req]; /* its area is alive from the first move */
        if (p < r->first)
            r->first = cp->first = p;
        i = j;
    }
    return n ? readers_after(e, cp, segs[n - 1].phase) : ST_OK;
}

Status emit_spreads(Emit *e)
{
    Status st = ST_OK;
    ESeg *segs = NULL;
    size_t cap = 0;
    for (uint32_t i = 0; i < e->n_copies && st == ST_OK; i++) {
        ECopy *cp = &e->copies[i];
        if (!cp->spread)
            continue;
        const ECore *c = &e->cores[cp->core];
        size_t n = 0;
        int64_t *words = calloc((size_t)c->n_phases, sizeof *words);
        const MapDict *most = NULL; /* room for the phases of the longest dict */
        const BlockUses *bu = &e->uses.blocks[cp->block];
        for (uint32_t j = 0; j < bu->n_in_edges; j++) {
            const MapDict *d = emit_edge_dict(e, e->g->edges[bu->in_edges[j]]->id);
            if (d && (!most || d->n_coords > most->n_coords))
                most = d;
        }
        int32_t *ph = malloc(((most ? most->n_coords : 0) + 1) * sizeof *ph);
        if (!words || !ph)
            st = diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
        if (st == ST_OK)
            st = cut_edges(e, cp, &segs, &n, &cap, words, ph);
        if (st == ST_OK)
            st = plan_parts(e, cp, segs, n);
        free(words);
        free(ph);
    }
    free(segs);
    return st;
}
