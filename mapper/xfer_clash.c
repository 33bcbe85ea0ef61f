/* xfer_clash.c: which receive phases a transfer may not share with another transfer from the
 * same writer (docs/mapper.md, "Transfers"; docs/backend.md, "One run to several cores").
 *
 * The router sends a phase's words once: where a writer sends overlapping parts of its result
 * to several cores in one phase, the code generator cuts the parts where the others start and
 * end and relays each shared piece along a chain of the cores that want it
 * (backend/emit_chain_plan.c). A core forwards every relayed packet of a phase to one next
 * core, so the pieces' sets of cores must all meet in a core their chains end on. A transfer
 * received in parts (over several phases, or into a copy over the receive area: each phase
 * brings some of its pixels, backend/emit_spread.c) meets the others' boxes only in part: its
 * phase's piece goes to its core and the others', the rest of theirs to theirs alone, and
 * when two such others go to different cores (ResNet-50's `layerN_0`: a row's channel halves
 * to the projection's copies cut along r0 and along r1, the whole row in parts to the first
 * convolution's) the chains would need that core to forward to both: `emit.route`. So a
 * transfer does not take a receive phase in which a transfer from the same writer into
 * another core receives, when their boxes of the writer's result overlap but differ and
 * either of them arrives in parts. Transfers of the same box (copies of one storage block,
 * the multicast sets of route.c) take the same phases as before. Runs of bytes (1-byte
 * packets, lanes_bytes) go to no relaying chain at all (backend/emit_lanes.c): where either
 * arrives in parts, a transfer of bytes and another from the same writer to another core
 * whose boxes meet (the same box too) never share a receive phase (test_diff_chain/
 * yolo_head's head_rs: channels 0..13 and 4..17 of its result to two stages, `emit.route`
 * "which overlap" before); nor do two whose parts are cut to what a phase's header table
 * holds (lanes_part_cap, schedule.c plan_parts), whatever their boxes: the sender's table
 * holds one such part a phase.
 */
#include "mapper/xfer_clash.h"

#include "taskir/lanes.h"

#include <stdlib.h>
#include <string.h>

bool map_xfer_over_recv(const MapPlan *p, uint32_t xi)
{
    const MXfer *x = &p->xfers[xi];
    uint32_t r = xi - p->xfer_of[x->edge];
    return r < p->rep_n[x->store] &&
           p->rep_bytes[p->rep_first[x->store] + r] > (int64_t)p->chip->recv_bytes_per_phase;
}

Status map_clash_init(MClash *c, const MapPlan *p)
{
    memset(c, 0, sizeof *c);
    c->start = calloc((size_t)p->n_tasks + 1, sizeof *c->start);
    c->list = malloc((p->n_xfers ? p->n_xfers : 1) * sizeof *c->list);
    c->box = malloc((p->n_xfers ? p->n_xfers : 1) * sizeof *c->box);
    c->run_box = malloc((p->n_xfers ? p->n_xfers : 1) * sizeof *c->run_box);
    c->n_at = p->chip->max_phases ? p->chip->max_phases : 1;
    c->at = calloc(c->n_at, sizeof *c->at);
    if (!c->start || !c->list || !c->box || !c->run_box || !c->at) {
        map_clash_finish(c);
        return ST_RUNTIME;
    }
    for (uint32_t i = 0; i < p->n_xfers; i++)
        if (p->xfers[i].kind == XF_CORE)
            c->start[p->xfers[i].src_task + 1]++;
    for (uint32_t t = 0; t < p->n_tasks; t++)
        c->start[t + 1] += c->start[t];
    uint32_t *at = malloc(((size_t)p->n_tasks + 1) * sizeof *at);
    if (!at) {
        map_clash_finish(c);
        return ST_RUNTIME;
    }
    memcpy(at, c->start, ((size_t)p->n_tasks + 1) * sizeof *at);
    for (uint32_t i = 0; i < p->n_xfers; i++) {
        const MXfer *x = &p->xfers[i];
        if (x->kind != XF_CORE)
            continue;
        c->list[at[x->src_task]++] = i;
        bbox_of_iface(p->g, &p->uses, p->tasks[x->src_task].pos, false,
                      p->g->edges[x->edge]->id, &c->box[i]);
        map_run_box(p, x, &c->box[i], &c->run_box[i]);
    }
    free(at);
    return ST_OK;
}

void map_clash_finish(MClash *c)
{
    for (uint32_t l = 0; c->at && l < c->n_at; l++) {
        free(c->at[l].list);
        free(c->at[l].head_t);
        free(c->at[l].head_v);
        free(c->at[l].next);
        free(c->at[l].uf);
        free(c->at[l].cnt);
        free(c->at[l].seen);
        free(c->at[l].fit_n);
        free(c->at[l].fit_ok);
    }
    free(c->mark);
    free(c->queue);
    free(c->memo);
    free(c->at);
    free(c->start);
    free(c->list);
    free(c->box);
    free(c->run_box);
    memset(c, 0, sizeof *c);
}

static bool same(const MBox *a, const MBox *b)
{
    return memcmp(a->lo, b->lo, sizeof a->lo) == 0 && memcmp(a->hi, b->hi, sizeof a->hi) == 0;
}

bool map_clash_same_box(const MClash *c, uint32_t xi, uint32_t yi)
{
    return same(&c->box[xi], &c->box[yi]);
}

static bool meet(const MBox *a, const MBox *b)
{
    MBox m = *a;
    bbox_inter(&m, b);
    return bbox_volume(&m) > 0;
}

bool map_clash_in_phase(const MapPlan *p, const MXfer *y, int32_t ph)
{
    if (!y->planned || !y->cross)
        return false;
    for (uint32_t j = 0; j < y->n_chunks; j++)
        if (p->chunks[y->chunk0 + j].phase == ph && p->chunks[y->chunk0 + j].bytes > 0)
            return true;
    return false;
}

/* How many cores other than v receive box b of task t's result in global phase ph (the
 * planned transfers of that box). */
static uint32_t box_cores(const MapPlan *p, const MClash *c, uint32_t t, const MBox *b,
                          uint32_t v, int32_t ph)
{
    uint32_t n = 0;
    for (uint32_t k = c->start[t]; k < c->start[t + 1]; k++) {
        const MXfer *z = &p->xfers[c->list[k]];
        n += same(b, &c->box[c->list[k]]) && map_xfer_vcore(p, z) != v && map_clash_in_phase(p, z, ph);
    }
    return n;
}

/* Whether transfer x's parts are cut to what a phase's header table holds (runs of bytes
 * over LANES_HEADS - LANES_CUT_HEADS headers: lanes_part_cap, mapper/schedule.c). */
static bool capped(const MapPlan *p, const MXfer *x)
{
    return lanes_part_cap(p->lanes_heads[x->edge], x->bytes > 0 ? x->bytes : 1) > 0;
}

bool map_xfer_clash(const MapPlan *p, const MClash *c, uint32_t xi, uint32_t v, int32_t ph,
                    bool part)
{
    const MXfer *x = &p->xfers[xi];
    if (!c->start || x->kind != XF_CORE)
        return false;
    const MBox *bx = &c->box[xi];
    for (uint32_t k = c->start[x->src_task]; k < c->start[x->src_task + 1]; k++) {
        uint32_t yi = c->list[k];
        const MXfer *y = &p->xfers[yi];
        if (yi == xi || map_xfer_vcore(p, y) == v || !map_clash_in_phase(p, y, ph))
            continue;
        if (!part && y->n_chunks < 2 && !map_xfer_over_recv(p, yi))
            continue;
        /* parts cut to what one phase's header table holds (lanes_part_cap): two fill it */
        if (capped(p, x) && capped(p, y))
            return true;
        if (!meet(bx, &c->box[yi]))
            continue;
        /* runs of bytes go to no relaying chain (backend/emit_lanes.c): the router would
           send the bytes both take twice in the phase */
        if (p->lanes_byte[x->edge] || p->lanes_byte[y->edge])
            return true;
        if (same(bx, &c->box[yi]))
            continue;
        /* a relaying chain only where a box goes to several cores in the phase */
        if (box_cores(p, c, x->src_task, &c->box[yi], MAP_NONE, ph) > 1 ||
            box_cores(p, c, x->src_task, bx, v, ph) > 0)
            return true;
    }
    return false;
}

int32_t map_copy_last_phase(const MapPlan *p, uint32_t xi)
{
    const MXfer *x = &p->xfers[xi];
    uint32_t r = xi - p->xfer_of[x->edge];
    const BlockUses *su = &p->uses.blocks[x->store];
    int32_t last = -1;
    for (uint32_t j = 0; j < su->n_in_edges; j++) {
        uint32_t k = p->xfer_of[su->in_edges[j]];
        if (k == MAP_NONE || k + r >= p->n_xfers || p->xfers[k + r].edge != su->in_edges[j])
            continue;
        const MXfer *y = &p->xfers[k + r];
        if (k + r == xi || !y->planned || !y->cross || !y->n_chunks)
            continue;
        int32_t ph = p->chunks[y->chunk0 + y->n_chunks - 1].phase;
        last = ph > last ? ph : last;
    }
    return last;
}
