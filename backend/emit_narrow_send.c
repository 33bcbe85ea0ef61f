/* emit_narrow_send.c: a copy of another layout sent from its writer's int32 area, or from
 * a second copy of its buffer (docs/backend.md, "One run to several cores", "Copies of two
 * layouts on one chain"). A
 * forwarded packet keeps its address, so a relaying chain's cores must take each of its runs
 * at one offset from their receive bases; where one sender's runs land in the same two areas
 * at other distances (a copy of 32 words a pixel on one core, one of 8 words a pixel in rows
 * of another length on the other), no receive bases and no placing of the areas
 * (emit_pin.c) tie them [emit.route]. An Axon primitive writing an int32 map of a larger
 * pitch than it writes on its core writes an int32 area of its own first, which a P06
 * re-pitches into the map (emit_narrow.c); when the copy the chain cannot carry has that
 * area's pitch, the pass records the writer and that copy's storage (EPinRaw), and in the
 * next pass the area lives on to the last phase the writer sends to that storage in, and
 * the router sends that storage's runs from it: whole rows of the area's pixels rather than
 * a header a pixel from the map, apart from the other copies' runs, so that no chain is cut
 * out of the two. Where the writer has no such area (the copies' pitch is the map's: a
 * P83's rows of 18 pixels on one core, its column slices of 3 on the others), the later
 * storage of the two is recorded to take the writer's words from a second copy of its
 * buffer (emit_senddup.c, "A buffer sent twice"), under headers of its own.
 */
#include "backend/emit_internal.h"

bool emit_narrow_send_of(const Emit *e, uint32_t w, uint32_t s)
{
    for (size_t i = 0; i < emit_pins_n(e, EPIN_RAW); i++) {
        const EPinRaw *r = emit_pin_at(e, EPIN_RAW, i);
        if (r->w == w && r->s == s)
            return true;
    }
    return false;
}

/* Whether sends a, a2 land in one area of their core in phase p (emit_pin_area). */
static bool one_area(const Emit *e, int32_t p, const ESend *a, const ESend *a2)
{
    uint32_t ra = emit_pin_area(e, a->dst_core, p, a->dst_addr);
    return a->dst_core == a2->dst_core && a->block == a2->block && ra != EMIT_NONE &&
           ra == emit_pin_area(e, a2->dst_core, p, a2->dst_addr);
}

/* The compute block on core k writing storage block position s through a narrowing of its
 * int32 area (an ENarrow with an area) of copy cp's pitch, other than the pitch of the map
 * it narrows into; -1: none. */
static long raw_writer(const Emit *e, uint32_t k, uint32_t s, const ECopy *cp)
{
    const BlockUses *bu = &e->uses.blocks[s];
    for (uint32_t j = 0; cp->feat.prec == PR_INT_32 && j < bu->n_in_edges; j++) {
        long w = graph_block_pos(e->g, e->g->edges[bu->in_edges[j]]->src);
        const ENarrow *n = w >= 0 && e->core_of[w] == k ? emit_narrow_of(e, (uint32_t)w) : NULL;
        if (n && n->req != EMIT_NONE && n->feat.c == cp->feat.c &&
            e->copies[n->copy].feat.c != cp->feat.c)
            return w;
    }
    return -1;
}

Status emit_narrow_send_note(Emit *e, uint32_t k, int32_t p, const ESend *a, const ESend *b,
                             const ESend *a2, const ESend *b2, bool *noted)
{
    *noted = false;
    if (!e->pins || !one_area(e, p, a, a2) || !one_area(e, p, b, b2) ||
        b->dst_addr - a->dst_addr == b2->dst_addr - a2->dst_addr)
        return ST_OK; /* not two layouts: the areas' places may tie them (emit_pin.c) */
    const ESend *pair[2] = {b, a};
    for (int i = 0; i < 2; i++) {
        long s = graph_block_pos(e->g, pair[i]->block);
        const ECopy *cp = s >= 0 ? emit_copy_on(e, (uint32_t)s, pair[i]->dst_core) : NULL;
        long w = cp ? raw_writer(e, k, (uint32_t)s, cp) : -1;
        if (w < 0 || emit_narrow_send_of(e, (uint32_t)w, (uint32_t)s))
            continue;
        Status st = emit_pin_add(e, EPIN_RAW, &(EPinRaw){(uint32_t)w, (uint32_t)s}, 1);
        *noted = st == ST_OK;
        return st;
    }
    /* no such area: b's storage takes the words from a second copy of the buffer of the
       writer of both (emit_senddup.c), unless an earlier pass recorded it so already */
    size_t had = emit_pins_n(e, EPIN_DUP);
    Status st = emit_senddup_note(e, k, a, b);
    *noted = emit_pins_n(e, EPIN_DUP) > had;
    return st;
}

int32_t emit_narrow_send_last(Emit *e, uint32_t w, int32_t p)
{
    int32_t last = p;
    uint32_t k = e->core_of[w];
    const BlockUses *bu = &e->uses.blocks[w];
    for (uint32_t j = 0; e->pins && j < bu->n_out_edges; j++) {
        const Edge *ed = e->g->edges[bu->out_edges[j]];
        long s = graph_block_pos(e->g, ed->dst);
        const MapDict *dict = emit_edge_dict(e, ed->id);
        if (s < 0 || !dict || !emit_narrow_send_of(e, w, (uint32_t)s))
            continue;
        for (uint32_t c = 0; c < dict->n_coords; c++) {
            const MapCoord *mc = &dict->coords[c];
            if (mc->pi_index == MAP_PI_ROUTER_SEND && emit_core(e, mc) == k && mc->phase > last &&
                mc->phase < e->cores[k].n_phases)
                last = mc->phase;
        }
    }
    return last;
}

const ENarrow *emit_narrow_send_area(const Emit *e, uint32_t w, uint32_t s, int32_t p,
                                     const EmitFeat *df)
{
    const ENarrow *n = emit_narrow_of(e, w);
    if (!n || n->req == EMIT_NONE || p < n->phase || p > n->last || df->prec != PR_INT_32 ||
        df->c != n->feat.c || !emit_narrow_send_of(e, w, s))
        return NULL;
    return n;
}
