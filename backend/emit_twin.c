/* emit_twin.c: copies of twin storage blocks (taskir/twin.h: the same values, each filled
 * whole by one edge from the same writer and box) that arrive on a core in the same phases
 * share one area of the receive area (docs/backend.md, "Memory plan"). The router lands the
 * same words at the same addresses for each: the first copy's area takes them all, alive
 * over all their lifetimes, and the words of the others are not asked for. Only copies that
 * stay in the receive area qualify (received whole by the router, not moved out, spread or
 * gathered in place), so nothing on the core writes one of them but the router. */
#include "backend/emit_internal.h"

#include "taskir/twin.h"

#include <stdlib.h>
#include <string.h>

/* The send phases of the transfers of edge position ep into core k, in the Mapping's order,
 * into ph (room n); their count, or n + 1 when there are more. */
static uint32_t arrive_phases(const Emit *e, uint32_t ep, const ECore *k, int32_t *ph,
                              uint32_t n)
{
    const MapDict *dict = emit_edge_dict(e, e->g->edges[ep]->id);
    uint32_t m = 0;
    for (uint32_t c = 0; dict && c + 1 < dict->n_coords; c++) {
        const MapCoord *cs = &dict->coords[c], *cr = &dict->coords[c + 1];
        if (cs->pi_index != MAP_PI_ROUTER_SEND || cr->pi_index != MAP_PI_ROUTER_RECIEVE ||
            !emit_same_place(k, cr))
            continue;
        if (m == n)
            return n + 1;
        ph[m++] = cs->phase;
    }
    return m;
}

/* The area of core k's receive area that copy cp lands in when only the router writes it
 * there and no other copy takes it (refs[i]: how many copies on k take request i as their
 * area or landing area; chained[i]: whether request i is a part of a chain): its landing
 * area, when it is moved out, else its own area when it stays; EMIT_NONE otherwise. */
static uint32_t landing(const Emit *e, const ECopy *cp, uint32_t k, const uint32_t *refs,
                        const bool *chained)
{
    const ECore *c = &e->cores[k];
    if (cp->core != k || !cp->received || cp->spread || cp->is_static || cp->image ||
        cp->view || cp->planes || cp->alias_of != EMIT_NONE || cp->req == EMIT_NONE ||
        cp->req_off != 0 || cp->land_pitch) /* a chain's pitch: an area of its own */
        return EMIT_NONE;
    uint32_t i = cp->land != EMIT_NONE ? cp->land : cp->req;
    if (i >= c->n_reqs)
        return EMIT_NONE;
    const AllocReq *r = &c->reqs[i];
    return r->kind == ALLOC_RECV && r->words > 0 && !r->next && !chained[i] && refs[i] == 1
               ? i
               : EMIT_NONE;
}

static bool same_feat(const EmitFeat *a, const EmitFeat *b)
{
    return a->prec == b->prec && a->per_word == b->per_word && a->ny == b->ny &&
           a->nx == b->nx && a->nc == b->nc && a->c == b->c && a->words == b->words &&
           a->align == b->align;
}

/* Whether copies a and b (both alone in the receive area of core k) hold the same words,
 * landing in the same phases. */
static bool twin_copies(const Emit *e, const ECopy *a, const ECopy *b, uint32_t k)
{
    if (!same_feat(&a->feat, &b->feat) || memcmp(&a->box, &b->box, sizeof a->box) != 0 ||
        !storage_twins(e->g, &e->uses, a->block, b->block))
        return false;
    enum { MAX_ARRIVALS = 8 };
    int32_t pa[MAX_ARRIVALS], pb[MAX_ARRIVALS];
    long ea = twin_fill_edge(e->g, &e->uses, a->block), eb = twin_fill_edge(e->g, &e->uses, b->block);
    uint32_t na = arrive_phases(e, (uint32_t)ea, &e->cores[k], pa, MAX_ARRIVALS);
    uint32_t nb = arrive_phases(e, (uint32_t)eb, &e->cores[k], pb, MAX_ARRIVALS);
    return na == nb && na > 0 && na <= MAX_ARRIVALS && memcmp(pa, pb, na * sizeof *pa) == 0;
}

bool emit_twin_leads(const Emit *e, uint32_t k, uint32_t *lead)
{
    const ECore *c = &e->cores[k];
    size_t n = c->n_reqs ? c->n_reqs : 1;
    uint32_t *refs = calloc(n, sizeof *refs), *mine = malloc(e->n_copies ? e->n_copies * sizeof *mine : 1);
    bool *chained = calloc(n, sizeof *chained);
    if (!refs || !mine || !chained) {
        free(refs);
        free(mine);
        free(chained);
        return false;
    }
    for (size_t i = 0; i < c->n_reqs; i++) {
        lead[i] = (uint32_t)i;
        if (c->reqs[i].next)
            chained[c->reqs[i].next - 1] = true;
    }
    uint32_t m = 0;
    for (uint32_t i = 0; i < e->n_copies; i++) {
        const ECopy *cp = &e->copies[i];
        if (cp->core != k)
            continue;
        if (cp->req < c->n_reqs)
            refs[cp->req]++;
        if (cp->land < c->n_reqs)
            refs[cp->land]++;
        mine[m++] = i;
    }
    for (uint32_t i = 0; i < m; i++) {
        const ECopy *a = &e->copies[mine[i]];
        uint32_t ra = landing(e, a, k, refs, chained);
        if (ra == EMIT_NONE || lead[ra] != ra)
            continue;
        for (uint32_t j = i + 1; j < m; j++) {
            const ECopy *b = &e->copies[mine[j]];
            uint32_t rb = landing(e, b, k, refs, chained);
            if (rb != EMIT_NONE && lead[rb] == rb && twin_copies(e, a, b, k))
                lead[rb] = ra;
        }
    }
    free(refs);
    free(mine);
    free(chained);
    return true;
}

void emit_twin_join(AllocReq *r, const AllocReq *t, int32_t n_phases)
{
    r->words = t->words > r->words ? t->words : r->words;
    r->align = t->align > r->align ? t->align : r->align;
    /* landing areas: from the router of the first's phase, to Soma1 of the last's */
    r->first_router = t->first < r->first    ? t->first_router
                      : t->first == r->first ? r->first_router && t->first_router
                                             : r->first_router;
    r->last_soma1 = t->last > r->last    ? t->last_soma1
                    : t->last == r->last ? r->last_soma1 && t->last_soma1
                                         : r->last_soma1;
    int32_t again = r->again && t->again ? (r->again < t->again ? r->again : t->again)
                                         : r->again ? r->again : t->again;
    r->first = t->first < r->first ? t->first : r->first;
    r->last = t->last > r->last ? t->last : r->last;
    r->last_axon = r->first_soma = false;
    if (again && again <= r->last) { /* the twins' lives meet: the whole rest */
        r->last = n_phases - 1;
        again = 0;
    }
    r->again = again;
}

/* The order of sends by every field that says where their words go. */
static int send_key_cmp(const ESend *x, const ESend *y)
{
    const int64_t kx[7] = {x->src, x->words, x->run, x->stride, x->dst_core, x->dst_addr,
                           x->single};
    const int64_t ky[7] = {y->src, y->words, y->run, y->stride, y->dst_core, y->dst_addr,
                           y->single};
    for (int i = 0; i < 7; i++)
        if (kx[i] != ky[i])
            return kx[i] < ky[i] ? -1 : 1;
    return 0;
}

/* qsort's view of send_key_cmp over indexes into one phase's sends (the sends through
 * a pointer pair: qsort passes no context). */
typedef struct SendAt {
    const ESend *s;
    size_t i;
} SendAt;

static int send_at_cmp(const void *a, const void *b)
{
    const SendAt *x = a, *y = b;
    int c = send_key_cmp(x->s, y->s);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

Status emit_twin_sends(Emit *e)
{
    for (uint32_t k = 0; k < e->n_cores; k++)
        for (int32_t p = 0; p < e->cores[k].n_phases; p++) {
            EPhase *ph = &e->cores[k].ph[p];
            if (ph->n_sends < 2)
                continue;
            SendAt *at = malloc(ph->n_sends * sizeof *at);
            bool *dup = calloc(ph->n_sends, sizeof *dup);
            if (!at || !dup) {
                free(at);
                free(dup);
                return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
            }
            for (size_t i = 0; i < ph->n_sends; i++)
                at[i] = (SendAt){&ph->sends[i], i};
            qsort(at, ph->n_sends, sizeof *at, send_at_cmp);
            for (size_t i = 1; i < ph->n_sends; i++)
                if (!send_key_cmp(at[i - 1].s, at[i].s))
                    dup[at[i].i] = true; /* the same words to the same place: a twin's */
            size_t out = 0;
            for (size_t i = 0; i < ph->n_sends; i++) {
                if (dup[i])
                    e->cores[ph->sends[i].dst_core].ph[p].recv_marks--;
                else
                    ph->sends[out++] = ph->sends[i];
            }
            ph->n_sends = out;
            free(at);
            free(dup);
        }
    return ST_OK;
}

bool emit_twin_stays(const Emit *e, const ECopy *cp)
{
    const ECore *c = &e->cores[cp->core];
    for (uint32_t i = 0; i < e->n_copies; i++) {
        const ECopy *b = &e->copies[i];
        if (b != cp && b->core == cp->core && b->received && !b->spread &&
            b->land == EMIT_NONE && b->req < c->n_reqs && c->reqs[b->req].kind == ALLOC_RECV &&
            twin_copies(e, cp, b, cp->core))
            return true;
    }
    return false;
}
