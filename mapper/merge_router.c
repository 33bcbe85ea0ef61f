/* merge_router.c: what each virtual core's router sends, phase by phase, for merge.c's
 * rule that two routers become one only where their sends can go as one (docs/mapper.md,
 * "Algorithm", step 4).
 *
 * A core's router sends a phase's packets in one mode: when any of its runs is one of bytes
 * (a rearrangement's lanes, channels off the 8-byte units: taskir/lanes.h lanes_bytes), the
 * phase sends everything in 1-byte packets, its runs of words four packets a word
 * (backend/emit_route.c), and a header carries at most 4096 packets. Two vcores that each
 * fit their phases alone may not once merged: test_diff_ops/broadcast_div_case_1_variant_1-4
 * merged a staging CADD's 318 int32 values sent as bytes in parts over phases 0..3 with a
 * CVVH's 1872 words sent whole in phase 1, 7488 packets as bytes ([emit.route] at its core
 * (4,8), phase 1). The schedule keeps each vcore's own phases apart; this file only says
 * what each sends, merge.c refuses the pairs that would mix.
 */
#include "mapper/merge_router.h"

#include "taskir/lanes.h"

/* Marks bit on vcore v's local phases of global phases [lo, hi]. */
static void mark(const MapPlan *p, uint8_t *sends, uint32_t M, uint32_t v, int32_t lo,
                 int32_t hi, uint8_t bit)
{
    if (v == MAP_NONE || v >= p->n_vcores)
        return;
    for (int32_t ph = lo; ph <= hi && ph - lo < (int32_t)M; ph++)
        sends[(size_t)v * M + map_local(p, ph)] |= bit;
}

void map_router_sends(const MapPlan *p, uint8_t *sends, uint32_t M)
{
    for (uint32_t i = 0; i < p->n_xfers; i++) {
        const MXfer *x = &p->xfers[i];
        if (x->kind != XF_CORE || !x->bytes)
            continue;
        uint32_t v = map_task_vcore(p, x->src_task);
        bool bytes = p->lanes_byte[x->edge];
        if (!x->cross) {
            /* runs of bytes its router lands on its own core (backend/emit_lanes.c) */
            int32_t send = map_send_phase(&p->tasks[x->src_task]);
            if (bytes && map_xfer_vcore(p, x) == v)
                mark(p, sends, M, v, send, map_lanes_last(p, x->edge, send), MAP_SENDS_BYTES);
            continue;
        }
        for (uint32_t k = 0; k < x->n_chunks; k++) {
            const MChunk *c = &p->chunks[x->chunk0 + k];
            if (c->bytes <= 0)
                continue;
            if (bytes) /* and the phases its runs spill on in (emit_route_spill.c) */
                mark(p, sends, M, v, c->phase, map_lanes_last(p, x->edge, c->phase),
                     MAP_SENDS_BYTES);
            else if (c->bytes > LANES_HEAD_PACKETS)
                mark(p, sends, M, v, c->phase, c->phase, MAP_SENDS_WIDE);
        }
    }
}
