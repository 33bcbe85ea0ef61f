/* emit_dup.c: a received copy whose values another copy on its core holds already
 * (docs/backend.md, "Transfers"). A Mapping may store two storage blocks that the same
 * writers fill with the same values on one core, and relay the second's transfer from that
 * core to itself over several phases: a map and the copy the passes made of it for another
 * reader (the division's `op/pos/in/x0` and `op/pos/in/x0/copy1`, read by its two CLUTs in
 * phases 2 and 3 of one core, the copy relayed over phases 1 and 2, each part needing a move
 * out of the receive area that no Soma slot was free for). The second then takes no
 * transfer: it shares the first's area, which lives over both lifetimes, and its edges'
 * packets are not sent.
 *
 * Requires of the two copies, cp (the one planned later) and the first: storage blocks whose
 * in-edges pair up, each pair from the same compute block into the same box, without steps,
 * each all of the writer's result (a writer on the core writes the first's area, which is
 * cp's: the same words); cp's transfers from other writers each relayed by its core to
 * itself over two phases or more; the same layout (precision, pixels, pitch) and box; none
 * of them static, a view, P81's planes or in a writer's buffer; the first's transfers landing
 * no later than cp's (its readers find the values in place when they would have found
 * theirs), both before their first readers on the core (no stage's input over the end of the
 * step). A second copy sent to its core from another, or in one phase, keeps its transfer
 * (qnet.onnx's three copies of `conv1` relayed to core (10,4) from itself each in one phase
 * would share one area too, but past them the chain stops at a gather without a Soma slot,
 * which its test forbids).
 */
#include "backend/emit_internal.h"

#include <string.h>

/* Whether core k receives edge id's data only from itself, in two phases or more (a relay
 * of the Mapping from the core to itself, the transfer spread over phases: each part would
 * need a move out of the receive area, emit_spread.c); the last phase one lands in into
 * *hi. */
static bool relayed_here(const Emit *e, int32_t id, uint32_t k, int32_t *hi)
{
    const MapDict *dict = emit_edge_dict(e, id);
    int32_t lo = -1;
    bool self = true;
    *hi = -1;
    for (uint32_t c = 0; dict && c + 1 < dict->n_coords; c++) {
        const MapCoord *cs = &dict->coords[c], *cr = &dict->coords[c + 1];
        if (cs->pi_index != MAP_PI_ROUTER_SEND || cr->pi_index != MAP_PI_ROUTER_RECIEVE)
            continue;
        bool from = emit_same_place(&e->cores[k], cs), to = emit_same_place(&e->cores[k], cr);
        if (from != to)
            self = false; /* from another core, or forwarded to one */
        if (!to)
            continue;
        lo = lo < 0 || cr->phase < lo ? cr->phase : lo;
        *hi = cr->phase > *hi ? cr->phase : *hi;
    }
    return self && lo >= 0 && *hi > lo;
}

/* The last phase core k receives edge id's data in (-1: none). */
static int32_t last_landing(const Emit *e, int32_t id, uint32_t k)
{
    const MapDict *dict = emit_edge_dict(e, id);
    int32_t hi = -1;
    for (uint32_t c = 0; dict && c + 1 < dict->n_coords; c++) {
        const MapCoord *cs = &dict->coords[c], *cr = &dict->coords[c + 1];
        if (cs->pi_index == MAP_PI_ROUTER_SEND && cr->pi_index == MAP_PI_ROUTER_RECIEVE &&
            emit_same_place(&e->cores[k], cr) && cr->phase > hi)
            hi = cr->phase;
    }
    return hi;
}

/* The first phase a compute block on core k reads storage block s in (INT32_MAX: none). */
static int32_t first_read(const Emit *e, uint32_t s, uint32_t k)
{
    int32_t first = INT32_MAX;
    ELocalReaders it = emit_local_readers(s, k);
    while (emit_local_readers_next(e, &it))
        if (it.phase < first)
            first = it.phase;
    return first;
}

/* Whether copy cp's block is written only by compute blocks, through edges without steps,
 * each all of its writer's result: on other cores (the last phase one lands on cp's core in
 * into *hi, before the block's first reader there; relayed: when `relayed`, every such
 * transfer comes from cp's core itself over several phases, relayed_here), or on its core,
 * straight into it (whose primitive writes the first's area then, the same words). */
static bool received_whole(const Emit *e, const ECopy *cp, bool relayed, int32_t *hi)
{
    const BlockUses *bu = &e->uses.blocks[cp->block];
    if (!bu->n_in_edges || cp->is_static || cp->view || cp->planes ||
        cp->alias_of != EMIT_NONE || !cp->received)
        return false;
    *hi = -1;
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const Edge *ed = e->g->edges[bu->in_edges[j]];
        long w = graph_block_pos(e->g, ed->src);
        int32_t h;
        if (w < 0 || bt_info(e->g->blocks[w]->type)->kind != BK_COMPUTE || ed->n_re ||
            !emit_whole_iface(e, (uint32_t)w, false, ed->id))
            return false;
        if (e->core_of[w] == cp->core) { /* its primitive writes it on the core */
            if (e->outs[w].gather || e->outs[w].aliased)
                return false;
            continue;
        }
        if (relayed ? !relayed_here(e, ed->id, cp->core, &h)
                    : (h = last_landing(e, ed->id, cp->core)) < 0)
            return false;
        *hi = h > *hi ? h : *hi;
    }
    return *hi >= 0 && *hi < first_read(e, cp->block, cp->core);
}

/* Whether storage s2 has an in-edge from the writer of edge ed into the same box as ed's in
 * storage s. */
static bool same_edge(const Emit *e, const Edge *ed, uint32_t s, uint32_t s2)
{
    EBox b, b2;
    const BlockUses *bu = &e->uses.blocks[s2];
    if (!emit_iface_box(e, s, true, ed->id, &b))
        return false;
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const Edge *e2 = e->g->edges[bu->in_edges[j]];
        if (e2->src == ed->src && emit_iface_box(e, s2, true, e2->id, &b2) &&
            !memcmp(&b, &b2, sizeof b))
            return true;
    }
    return false;
}

static bool same_feat(const EmitFeat *a, const EmitFeat *b)
{
    return a->prec == b->prec && a->ny == b->ny && a->nx == b->nx && a->nc == b->nc &&
           a->c == b->c && a->words == b->words;
}

uint32_t emit_dup_first(const Emit *e, const ECopy *cp)
{
    int32_t hi, fhi;
    const BlockUses *bu = &e->uses.blocks[cp->block];
    if (!received_whole(e, cp, true, &hi))
        return EMIT_NONE;
    for (uint32_t i = 0; i < e->n_copies && &e->copies[i] != cp; i++) {
        const ECopy *f = &e->copies[i];
        if (f->core != cp->core || f->block == cp->block || f->dup_of != EMIT_NONE ||
            f->req == EMIT_NONE || !same_feat(&f->feat, &cp->feat) ||
            memcmp(&f->box, &cp->box, sizeof f->box) ||
            e->uses.blocks[f->block].n_in_edges != bu->n_in_edges ||
            !received_whole(e, f, false, &fhi) || fhi > hi)
            continue;
        bool same = true;
        for (uint32_t j = 0; j < bu->n_in_edges && same; j++)
            same = same_edge(e, e->g->edges[bu->in_edges[j]], cp->block, f->block);
        if (same)
            return i;
    }
    return EMIT_NONE;
}

bool emit_dup_shares(const Emit *e, uint32_t s, uint32_t s2, uint32_t k)
{
    const ECopy *a = emit_copy_on(e, s, k), *b = emit_copy_on(e, s2, k);
    return a && b && ((a->dup_of != EMIT_NONE && &e->copies[a->dup_of] == b) ||
                      (b->dup_of != EMIT_NONE && &e->copies[b->dup_of] == a));
}
