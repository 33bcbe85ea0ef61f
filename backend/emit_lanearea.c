/* emit_lanearea.c: a send area in the receivers' pitch for a rearranging writer's lanes
 * moves (docs/backend.md, "Bytes between lanes", "Lanes moves from a re-pitched area"). A
 * writer whose edges move values between pixels (PERMUTE, SHUFFLE, AFFINE: emit_lanes.c)
 * into copies of its precision with fewer words a pixel than its buffer's sends them from
 * the buffer in 1-byte packets: a run of 4 bytes a single int32 value, under a header of its
 * own and a disabled one over the gap to the next value. When every such send goes in a
 * phase with a Soma slot between the writer and its router, and the edges it sends so in one
 * phase take more headers together (taskir/lanes.h lanes_heads, each edge once) than the
 * router's table holds (LANES_HEADS), those copies take their values from a send area in
 * their pitch that a P06 re-pitches the buffer into (emit_sendbuf.c): each value then lies
 * in its lane of a pixel of the copies' words, and emit_lanes.c sends whole pixels in 8-byte
 * packets, one header for pixels that follow each other in the area and land one after
 * another (test_diff_ops/cvm_precision_case_1__p_24_'s `op/abs/x0` on chip (0,0) core
 * (13,3), phase 9: 215 headers before). No free Soma slot: they go as before. */
#include "backend/emit_internal.h"

#include "taskir/lanes.h"

#include <stdlib.h>

/* One lanes send of the writer's core: edge ed into a copy of storage s of pitch c in
 * phase p, its edge's headers. */
typedef struct LaneSend {
    uint32_t s;
    int32_t p, edge;
    int64_t c, heads;
} LaneSend;

/* Whether copy dcp may take lanes moves of a writer whose buffer is laid out as sf from a
 * send area in dcp's pitch: the buffer's precision, of whole bytes, fewer words a pixel, an
 * even count of them (whole pixels in 8-byte packets), an area of its own. */
static bool narrower(const EmitFeat *sf, const ECopy *dcp)
{
    return dcp && !dcp->view && !dcp->planes && dcp->dup_of == EMIT_NONE &&
           dcp->feat.prec == sf->prec && dcp->feat.c < sf->c &&
           emit_value_bytes(sf->prec) > 0 && emit_feat_pixel_words(&dcp->feat) % 2 == 0;
}

/* Whether a Soma slot lies after writer w's and before the router of phase p (its send
 * time): a P06 may write the area there (emit_slot_latest); none for the router right after
 * a writer in Soma1. */
static bool slot_before(const Emit *e, uint32_t w, int32_t p)
{
    int64_t after = emit_slot_when(e->phase_of[w], e->slot_of[w]);
    int64_t before = emit_slot_when(p, MAP_PI_ROUTER_SEND);
    for (int32_t q = e->phase_of[w]; q <= p; q++)
        for (int sl = MAP_PI_SOMA1; sl <= MAP_PI_SOMA2; sl += MAP_PI_SOMA2 - MAP_PI_SOMA1)
            if (emit_slot_when(q, sl) > after && emit_slot_when(q, sl) < before)
                return true;
    return false;
}

/* Writer w's lanes sends from its core into copies narrower() takes, into *out (malloc'd):
 * their count, -1 when out of memory; 0 when one of them goes in a phase with no Soma slot
 * before its router (slot_before): those bytes would stay, and what of them does not fit
 * its phase is carried into the phases after (emit_route_spill.c), where bytes beside the
 * area's whole pixels would send every word of both as bytes (test_diff_ops/
 * broadcast_div_case_1_variant_0-4's `op/mag0/x1`, chip (0,1) core (1,8): 92420 bytes in
 * phase 11, over the packet count). */
static long lane_sends(Emit *e, uint32_t w, const EmitFeat *sf, LaneSend **out)
{
    LaneSend *v = NULL;
    size_t n = 0, cap = 0;
    int32_t last = -1; /* the edge whose headers are counted */
    int64_t heads = 0;
    bool lanes = false;
    *out = NULL;
    for (ESendWalk it = {.w = w}; emit_sendbuf_walk(e, &it, false);) {
        if (it.ed->id != last) {
            last = it.ed->id;
            lanes = emit_moves_lanes(e, it.ed, w, &it.box);
            heads = lanes ? lanes_heads(e->g, &e->uses, it.ed) : 0;
        }
        int32_t p = emit_send_time(e, w, it.cs->phase);
        if (!lanes || !narrower(sf, it.dcp))
            continue;
        if (!slot_before(e, w, p)) {
            free(v);
            return 0;
        }
        LaneSend *nv = emit_grow(e, v, &cap, n, sizeof *v);
        if (!nv) {
            free(v);
            return -1;
        }
        v = nv;
        v[n++] = (LaneSend){it.s, p, it.ed->id, it.dcp->feat.c, heads};
    }
    *out = v;
    return (long)n;
}

Status emit_lanearea_scan(Emit *e, uint32_t w)
{
    EOut src;
    if (!e->outs[w].used || !emit_sendbuf_rows_source(e, w, &src))
        return ST_OK;
    LaneSend *v;
    long n = lane_sends(e, w, &src.feat, &v);
    if (n < 0)
        return ST_RUNTIME; /* emit_grow said so */
    /* the phase's edges, each counted once: at its first send in the phase */
    for (long b = 0; b < n; b++)
        for (long d = 0; d < b; d++)
            if (v[d].p == v[b].p && v[d].edge == v[b].edge) {
                v[b].heads = 0;
                break;
            }
    Status st = ST_OK;
    for (long a = 0; a < n && st == ST_OK; a++) {
        int64_t heads = 0;
        for (long b = 0; b < n; b++)
            heads += v[b].p == v[a].p ? v[b].heads : 0;
        if (heads > LANES_HEADS)
            st = emit_sendbuf_need_pitch(e, w, v[a].s, v[a].c, v[a].p);
    }
    free(v);
    return st;
}
