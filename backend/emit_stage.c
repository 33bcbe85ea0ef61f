/* emit_stage.c: an 8-bit map that model inputs write into channels from lanes that are no
 * word's first (docs/backend.md "Inserted primitives"; taskir/layout.h, layout_staged): a
 * concatenation of inputs after 47 channels, one input value broadcast along the channels. A
 * dynamic block writes each piece of a socket from a word's first lane, and a P06 keeps each
 * value's lane; but in INT_32 every lane is a word's first. So the dynamic blocks write the
 * inputs one value a word into an int32 area of the map's pixels, each pixel's channels
 * rounded up to 4 words (16-byte rows), zeroed first by a static block of zeros (in every step
 * of a pipeline, before the inputs, as P81's stored padding is); an inserted P06 then narrows
 * that area into the map (`x1_precision` INT_32, `out_precision` the map's, `length_in` the
 * area's pitch, `length_out` the map's, `num_in` = `num_out` the pixels: each value clipped
 * to the map's precision, which holds it, the lanes past the area's 0), in the earliest free
 * Soma slot from the copy's first phase on that comes before the map's first use on its core
 * (a compute block reading it, or the router sending it). The mapper keeps a Soma slot free
 * before each reader of such a map (mapper/schedule.c) and counts the area
 * (layout_stage_bytes). No such slot: emit.slot.
 */
#include "backend/emit_internal.h"

#include "taskir/diag_block.h"
#include "taskir/layout.h"

#include <stdlib.h>

/* The slot order of the first use of copy cp on its core: a compute block reading it there,
 * or its core's router sending any of it; INT64_MAX when only OUTPUTs read it. */
static int64_t first_use(Emit *e, const ECopy *cp)
{
    const BlockUses *bu = &e->uses.blocks[cp->block];
    int64_t first = INT64_MAX;
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        uint32_t ep = bu->out_edges[j];
        long r = graph_block_pos(e->g, e->g->edges[ep]->dst);
        if (r >= 0 && e->g->blocks[r]->type != BT_OUTPUT && e->core_of[r] == cp->core) {
            int64_t at = emit_slot_when(e->phase_of[r], e->slot_of[r]);
            first = at < first ? at : first;
        }
        uint32_t di = e->dict_of_edge[ep];
        const MapDict *dict = di == EMIT_NONE ? NULL : &e->m->edges[di];
        for (uint32_t c = 0; dict && c < dict->n_coords; c++)
            if (dict->coords[c].pi_index == MAP_PI_ROUTER_SEND &&
                emit_core(e, &dict->coords[c]) == cp->core) {
                int64_t at = emit_slot_when(dict->coords[c].phase, MAP_PI_ROUTER_SEND);
                first = at < first ? at : first;
            }
    }
    return first;
}

static Status plan(Emit *e, uint32_t ci)
{
    const ECopy *cp = &e->copies[ci];
    const ECore *c = &e->cores[cp->core];
    const Block *b = e->g->blocks[cp->block];
    EStage sg = {ci, {0}, -1, 0, EMIT_NONE};
    if (cp->alias_of != EMIT_NONE || cp->received || cp->req == EMIT_NONE ||
        !emit_feat(PR_INT_32, cp->feat.ny, cp->feat.nx, cp->feat.nc, 4, &sg.feat))
        return diag_block(e->d, ST_LOGIC, "emit.layout", b,
                          "model inputs write channels of its copy on core %s from lanes that "
                          "are no word's first, and that copy is no map of its own the inputs "
                          "could be staged for", c->name);
    int64_t before = first_use(e, cp);
    if (!emit_slot_earliest(e, cp->core, cp->first, c->n_phases - 1,
                            (int64_t)cp->first * 8, &sg.phase, &sg.slot) ||
        emit_slot_when(sg.phase, sg.slot) >= before)
        return diag_block(e->d, ST_LOGIC, "emit.slot", b,
                          "model inputs write channels of its copy on core %s from lanes that "
                          "are no word's first: a P06 narrowing them from int32 words needs a "
                          "free Soma slot from phase %d on, before the map's first use, and "
                          "there is none", c->name, cp->first);
    Status st = emit_slot_take(e, cp->core, sg.phase, sg.slot, SLOT_STAGE, cp->block);
    if (st != ST_OK)
        return st;
    sg.req = emit_request(e, cp->core, sg.feat.words, sg.feat.align, cp->first, sg.phase,
                          ALLOC_DATA, b->id);
    EStage *ns = emit_grow(e, e->stagings, &e->cap_stagings, e->n_stagings, sizeof *ns);
    if (sg.req == EMIT_NONE || !ns)
        return ST_RUNTIME;
    e->stagings = ns;
    e->stagings[e->n_stagings++] = sg;
    return ST_OK;
}

Status emit_stagings(Emit *e)
{
    for (uint32_t ci = 0; ci < e->n_copies; ci++) {
        const ECopy *cp = &e->copies[ci];
        if (cp->view || cp->planes || cp->image || !layout_staged(e->g, &e->uses, cp->block))
            continue;
        Status st = plan(e, ci);
        if (st != ST_OK)
            return st;
    }
    return ST_OK;
}

const EStage *emit_stage_of(const Emit *e, uint32_t ci)
{
    for (size_t i = 0; i < e->n_stagings; i++)
        if (e->stagings[i].copy == ci)
            return &e->stagings[i];
    return NULL;
}

ECopy emit_stage_copy(const Emit *e, const EStage *sg)
{
    ECopy v = e->copies[sg->copy];
    v.feat = sg->feat;
    v.req = sg->req;
    v.land = EMIT_NONE;
    return v;
}

Status emit_stage_prims(Emit *e)
{
    for (size_t i = 0; i < e->n_stagings; i++) {
        const EStage *sg = &e->stagings[i];
        const ECopy *cp = &e->copies[sg->copy];
        Taskir__Asm__P06 *p = emit_p06_slot(e, cp->core, sg->phase, sg->slot,
                                            e->g->blocks[cp->block]->id);
        if (!p)
            return ST_RUNTIME;
        emit_p06_rows(p, PR_INT_32, sg->feat.c, sg->feat.ny * sg->feat.nx,
                      e->cores[cp->core].addr[sg->req], sg->feat.words, emit_copy_addr(e, cp),
                      cp->feat.words);
        p->out_precision = pr_info(cp->feat.prec)->wire;
        p->length_out = (int32_t)cp->feat.c;
    }
    return e->d->oom ? ST_RUNTIME : ST_OK;
}

uint32_t *emit_stage_zeros(const EStage *sg, size_t *n)
{
    *n = (size_t)sg->feat.words;
    return calloc(*n ? *n : 1, sizeof(uint32_t));
}
