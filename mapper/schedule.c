/* schedule.c: clusters onto virtual cores, compute blocks onto phases and slots, transfers
 * onto receive phases (docs/mapper.md, "Algorithm", steps 2-3).
 *
 * One pass over the compute blocks in topological order (list scheduling). A block whose
 * cluster has no core yet chooses one: the core of each block it reads from (most bytes
 * first) when the cluster's memory still fits there, or a fresh core; it takes the candidate
 * where it can start earliest, the earlier candidate on a tie, so a chain of layers stays on
 * one core (no traffic, and no later than on two: between cores a chain advances a phase per
 * layer as well) while parallel pieces (one Axon slot per core and phase) spread out.
 * Then the block takes the earliest free slot of its unit after its inputs are in place:
 *   - from its own core: after the writer's slot (an Axon's output feeds Soma1 in the same
 *     phase), or after the router of the writer's phase when that router moves the result's
 *     bytes between lanes (taskir/lanes.h: Soma2, or a later phase);
 *   - from another core: the writer's router sends in its phase (in the next one when the
 *     writer is a Soma2, which runs after the router), the bytes arrive over as many phases
 *     as the receive budget (recv_bytes_per_phase, dest_bytes_per_phase a phase) needs, and
 *     the block runs in Soma2 of the last of them or in a later phase (over several phases:
 *     in a later phase, as each phase's part moves out of the receive area in its Soma2);
 *   - from off chip (INPUT): before the step.
 * An Axon block writing an 8-bit map keeps a Soma slot of its phase for the P06 that narrows
 * its int32 result (layout_narrows; Soma1, else Soma2), so its readers there run after it.
 * A transfer received over several phases, or into a copy larger than the receive area,
 * keeps Soma2 of each of them (on the receiving core) for the P06 that moves that phase's
 * part out of the receive area, so it arrives only in phases whose Soma2 is free. A block
 * the code generator inserts P06s before (premove.h: a
 * CADD's inputs gathered, or its box repeated) runs only where as many free Soma slots lie
 * between its inputs' arrivals and its slot, and keeps them: a phase later, or more, when
 * there are not (inside its stage, else map.phases).
 * Memory: a core holds its clusters; a block's output buffer is dropped once every block it
 * writes to sits on its core (the buffer is then the reader's storage itself).
 * A core belongs to one stage, phases [k*M, (k+1)*M) of the global schedule; a stage is a
 * phase group, and all of them run pipelined, so a core's local phase is the global one mod M
 * and a core's receive budget is kept per local phase. A block that cannot run inside its
 * core's stage is a logic error [map.phases]; a cluster over the core's memory budget is one
 * too [map.mem.group].
 * Requires map_build_problem. Guarantees: every task has (phase, slot), every cluster a
 * virtual core, every XF_CORE transfer between two cores its receive chunks.
 */
#include "mapper/gather_wait.h"
#include "mapper/lanes_land.h"
#include "mapper/own_gather.h"
#include "mapper/plan.h"
#include "mapper/send_heads.h"
#include "mapper/xfer_cap.h"
#include "mapper/xfer_clash.h"

#include "taskir/diag_block.h"
#include "taskir/lanes.h"
#include "taskir/layout.h"
#include "taskir/premove.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* A transfer longer than this many phases is refused (a bound on the work, not a chip fact). */
#define MAX_XFER_PHASES (1 << 20)
/* The most transfers of channel slices of the same pixels planned together (xfer_group.c),
 * and the most phases they take: bounds on the work (a larger group is planned transfer by
 * transfer). */
enum { GROUP_MAX = 32, GROUP_PHASES = 64 };

typedef struct Sched {
    MapPlan *p;
    uint32_t M;
    int64_t *scratch;        /* a candidate's receive budget while it is tried */
    int64_t *dry;            /* a transfer's receive budget while its parts are tried */
    uint8_t *fresh;          /* a fresh core's Soma slots while a block is tried (premove_fresh) */
    uint32_t *ntasks;        /* per cluster: its compute blocks */
    uint32_t *cand;          /* candidate vcores of one block */
    int64_t *cand_bytes;
    bool delay;              /* keep the inserted P06s' slots even at a later time */
    bool delayed;            /* it did so somewhere */
    bool chains;             /* keep a phase's relaying chains whole (xfer_chain.c) */
    uint32_t cap;            /* the most stages (0: any; see How) */
    bool capped;             /* a block needed a stage past cap */
    uint32_t *xl;            /* the transfers into one block's inputs (in_order) */
    int64_t *xkey;           /* and where each lands (land_key) */
    uint32_t n_xl, cap_xl;
    MClash clash;            /* the transfers by writer (xfer_clash.c) */
    MSendHeads heads;        /* the headers each core sends a phase (send_heads.c) */
} Sched;

static Status oom(Diag *d)
{
    return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory while scheduling");
}

/* Room for one more element in *arr (n used of *cap, size bytes each), doubling from first. */
static bool grow(void **arr, uint32_t n, uint32_t *cap, size_t size, uint32_t first)
{
    if (n < *cap)
        return true;
    if (*cap > UINT32_MAX / 2)
        return false;
    uint32_t c = *cap ? 2 * *cap : first;
    void *a = realloc(*arr, (size_t)c * size);
    if (!a)
        return false;
    *arr = a;
    *cap = c;
    return true;
}

static uint32_t new_vcore(Sched *s, int32_t stage)
{
    MapPlan *p = s->p;
    if (!grow((void **)&p->vcores, p->n_vcores, &p->cap_vcores, sizeof *p->vcores, 64))
        return MAP_NONE;
    VCore *v = &p->vcores[p->n_vcores];
    memset(v, 0, sizeof *v);
    v->slots = calloc(s->M, 1);
    v->recv = calloc(s->M, sizeof *v->recv);
    if (!v->slots || !v->recv) {
        free(v->slots);
        free(v->recv);
        return MAP_NONE;
    }
    v->stage = stage;
    v->core = MAP_NONE;
    return p->n_vcores++;
}

static bool add_chunk(MapPlan *p, int32_t phase, int64_t bytes)
{
    if (!grow((void **)&p->chunks, p->n_chunks, &p->cap_chunks, sizeof *p->chunks, 256))
        return false;
    p->chunks[p->n_chunks++] = (MChunk){phase, bytes};
    return true;
}

/* When the writer's data leaves its core: the phase its router sends in. */
static int32_t send_phase(const MTask *a)
{
    return map_send_phase(a);
}

/* Whether transfer x from task a goes as bytes over several phases (map_lanes_last); when
 * the bytes of x are in place when the router moves them: after the router of a's send
 * phase, or, over several phases, after Soma2 of the last of them, which the P06 moving the
 * copy out of the receive area may take. */
static bool lanes_spread(const MapPlan *p, const MTask *a, const MXfer *x)
{
    return map_lanes_last(p, x->edge, send_phase(a)) > send_phase(a);
}

/* Whether transfer x from task a goes as runs of pixels over several phases (lanes_spread,
 * taskir/lanes.h lanes_pixel_runs, not byte moves): the runs its sender's P09 cannot hold
 * spill on (backend/emit_route_spill.c), and the code generator gathers the copy after the
 * last phase they may land in when its plan needs it (backend/emit_early.c); byte moves
 * keep their gathers in the latest slot before the CADD. */
static bool runs_spill(const MapPlan *p, const MTask *a, const MXfer *x)
{
    return lanes_spread(p, a, x) && !lanes_bytes(p->g, &p->uses, p->g->edges[x->edge]);
}

static int64_t lanes_ready(const MapPlan *p, const MTask *a, const MXfer *x)
{
    int32_t send = send_phase(a), last = map_lanes_last(p, x->edge, send);
    return (int64_t)last * MS_PER_PHASE + (last > send ? MS_SOMA2 : MS_ROUTER);
}

/* What a trial of inputs_ready on a fresh core learns of each of t's input storage blocks
 * (premove_fresh): when its transfers have it in place, and the Soma slot the P06 gathering
 * it keeps (hold_gather). */
typedef struct InTimes {
    uint32_t st[64];
    int64_t r[64];
    int64_t held[64];    /* 1 + the time of the slot kept, 0: none */
    uint32_t n;
} InTimes;

/* The entry of storage st in it (*k), a new one (in place at -1, nothing kept) when it has
 * none; false when it is full. */
static bool times_of(InTimes *it, uint32_t st, uint32_t *k)
{
    for (*k = 0; *k < it->n && it->st[*k] != st; ++*k)
        ;
    if (*k == it->n) {
        if (it->n == sizeof it->st / sizeof it->st[0])
            return false;
        it->st[it->n] = st;
        it->r[it->n] = -1;
        it->held[it->n++] = 0;
    }
    return true;
}

/* What inputs_ready works with, for each transfer into t's inputs. */
typedef struct Ready {
    Sched *s;
    uint32_t v;          /* the core tried (MAP_NONE: a fresh one) */
    int64_t *recv;       /* its receive budget (or a scratch copy) */
    bool commit;
    int64_t per_phase;   /* bytes one phase may bring */
    int64_t ready;       /* the latest time an input is in place */
    Status st;
    Diag *d;
    uint32_t joint[GROUP_MAX]; /* transfers planned with a group (plan_group) in this call */
    int64_t joint_ready[GROUP_MAX];
    uint32_t n_joint;
    int pass;            /* 0: what v's own router lands on it (own_lands); 1: the rest */
    uint32_t task;       /* the task whose inputs these are */
    int64_t held[64];    /* the Soma slots its gathered inputs keep (gather_wait.h) */
    uint32_t n_held;
    InTimes *times;      /* each input's time in place, when asked (premove_fresh) */
} Ready;

/* A planned transfer of the same edge into another copy on vcore v, or MAP_NONE. */
static uint32_t planned_twin(const MapPlan *p, uint32_t xi, uint32_t v)
{
    const MXfer *x = &p->xfers[xi];
    uint32_t first = p->xfer_of[x->edge], n = p->rep_n[x->store];
    for (uint32_t k = first; k < first + n; k++)
        if (k != xi && p->xfers[k].planned && map_xfer_vcore(p, &p->xfers[k]) == v)
            return k;
    return MAP_NONE;
}

/* Whether phase ph's part of a transfer of several parts waits for a later phase: when the
 * schedule keeps the inserted P06s' slots (delay) and Soma2 of local phase l, where the part
 * would move out, is taken. */
static bool part_waits(Ready *R, uint32_t l)
{
    const uint8_t *slots = R->v == MAP_NONE ? NULL : R->s->p->vcores[R->v].slots;
    if (!slots || !R->s->delay || !(slots[l] & (1u << MS_SOMA2)))
        return false;
    R->s->delayed = true;
    return true;
}

/* Plans the n transfers m[] (channel slices of the same pixels of one copy over the receive
 * area, xfer_group.c) together: from the phase the last of their writers sends in, each
 * phase brings the same share of every slice, as many pixels as the receive budget has
 * room for (the last phase the rest), so that each phase's pixels arrive whole and its
 * Soma2 moves them out (backend/emit_spread.c). The time they are in place (after the
 * Soma2 of the last phase), or -2 when they take more than GROUP_PHASES phases (planned
 * one by one then). */
static int64_t plan_group(Ready *R, const uint32_t *m, uint32_t n)
{
    MapPlan *p = R->s->p;
    int32_t ph = 0;
    int64_t total = 0;
    int64_t end = INT64_MAX; /* the first writer's stage to end: no clash moves past it */
    for (uint32_t i = 0; i < n; i++) {
        int32_t s = send_phase(&p->tasks[p->xfers[m[i]].src_task]);
        ph = s > ph ? s : ph;
        total += p->xfers[m[i]].bytes;
        int64_t e = ((int64_t)p->vcores[map_task_vcore(p, p->xfers[m[i]].src_task)].stage + 1) *
                    R->s->M;
        end = e < end ? e : end;
    }
    /* pixels: the copy's pixels the group brings (the first slice's box without its
     * channels), each total / px bytes */
    MBox pix;
    uint32_t xi0 = m[0];
    bbox_of_iface(p->g, &p->uses, p->xfers[xi0].store, true, p->g->edges[p->xfers[xi0].edge]->id,
                  &pix);
    bbox_inter(&pix, &p->rep_box[p->rep_first[p->xfers[xi0].store] +
                                 (xi0 - p->xfer_of[p->xfers[xi0].edge])]);
    pix.lo[D_F] = pix.lo[D_R] = 0;
    pix.hi[D_F] = pix.hi[D_R] = 1;
    MBox other; /* column slices (xfer_group.c): whole rows of all of them a phase */
    bbox_of_iface(p->g, &p->uses, p->xfers[m[1]].store, true, p->g->edges[p->xfers[m[1]].edge]->id,
                  &other);
    if (other.lo[D_X] != pix.lo[D_X]) {
        pix.lo[D_X] = 0;
        pix.hi[D_X] = 1;
    }
    int64_t px = bbox_volume(&pix);
    int64_t per_px = px > 0 ? (total + px - 1) / px : 0;
    if (px <= 0 || per_px <= 0 || per_px > R->per_phase)
        return -2; /* a pixel larger than a phase's budget: no phase brings one whole */
    int32_t phs[GROUP_PHASES];
    int64_t cum[GROUP_PHASES]; /* pixels brought up to and including each phase */
    uint32_t k = 0;
    int64_t done = 0;
    for (int32_t ph0 = ph; done < px; ph++) {
        if (k == GROUP_PHASES || ph >= INT32_MAX - 1 || ph - ph0 > MAX_XFER_PHASES)
            return -2;
        uint32_t l = (uint32_t)ph % R->s->M;
        int64_t room = R->per_phase - R->recv[l];
        if (room > 0 && part_waits(R, l))
            room = 0;
        for (uint32_t i = 0; room > 0 && ph + 1 < end && i < n; i++)
            if (map_xfer_clash(p, &R->s->clash, m[i], R->v, ph, true) ||
                map_xfer_twice(p, &R->s->clash, m[i], R->v, ph) ||
                (R->s->chains && ph + 2 < end &&
                 map_xfer_chains(p, &R->s->clash, m[i], R->v, ph, 0, p->xfers[m[i]].bytes)))
                room = 0; /* a phase of another box of a writer's (xfer_clash.c), of its
                             box into another block of its core (xfer_twice.c), or one
                             whose chains it would break (xfer_chain.c) before the stage's
                             last phase */
        /* each slice's share rounds up by a byte at most: n bytes spare */
        int64_t fit = room > (int64_t)n ? (room - (int64_t)n) / per_px : 0;
        int64_t take = fit < px - done ? fit : px - done;
        if (take <= 0)
            continue;
        phs[k] = ph;
        cum[k++] = done += take;
    }
    /* each slice's bytes in each phase: its share of the pixels brought so far */
    for (uint32_t j = 0; j < k; j++) {
        uint32_t l = (uint32_t)phs[j] % R->s->M;
        for (uint32_t i = 0; i < n; i++) {
            int64_t b = p->xfers[m[i]].bytes;
            R->recv[l] += b * cum[j] / px - (j ? b * cum[j - 1] / px : 0);
        }
    }
    int64_t r = (int64_t)phs[k - 1] * MS_PER_PHASE + MS_SOMA2;
    for (uint32_t i = 0; R->commit && i < n; i++) {
        MXfer *x = &p->xfers[m[i]];
        x->chunk0 = p->n_chunks;
        for (uint32_t j = 0; j < k; j++) {
            int64_t b = x->bytes, part = b * cum[j] / px - (j ? b * cum[j - 1] / px : 0);
            if (!add_chunk(p, phs[j], part) ||
                !map_heads_add(&R->s->heads, map_task_vcore(p, x->src_task),
                               map_local(p, phs[j]),
                               map_part_heads(map_xfer_runs(p, &R->s->clash, m[i]), part, b))) {
                R->st = oom(R->d);
                return r;
            }
            if (R->v != MAP_NONE)
                p->vcores[R->v].slots[map_local(p, phs[j])] |= (uint8_t)(1u << MS_SOMA2);
        }
        x->cross = true;
        x->n_chunks = k;
        x->planned = true;
        x->ready = r;
        if (map_clash_note(&R->s->clash, p, m[i]) != ST_OK) {
            R->st = oom(R->d);
            return r;
        }
    }
    for (uint32_t i = 0; i < n && R->n_joint < GROUP_MAX; i++) {
        R->joint[R->n_joint] = m[i];
        R->joint_ready[R->n_joint++] = r;
    }
    return r;
}

/* Whether group m (xfer_group.c) brings column slices of its copy: its first two slices
 * start at different columns. */
static bool columns_of(const MapPlan *p, const uint32_t *m)
{
    MBox a, b;
    bbox_of_iface(p->g, &p->uses, p->xfers[m[0]].store, true, p->g->edges[p->xfers[m[0]].edge]->id,
                  &a);
    bbox_of_iface(p->g, &p->uses, p->xfers[m[1]].store, true, p->g->edges[p->xfers[m[1]].edge]->id,
                  &b);
    return a.lo[D_X] != b.lo[D_X];
}

/* Whether transfer xi into R's core goes with a group of channel slices of the same pixels
 * (xfer_group.c), all from other cores and none planned: their members into m (room
 * GROUP_MAX), their count, else 0. Of a copy over the receive area; column slices of one it
 * holds too (the code generator keeps such a copy there whole from its first arrival unless
 * its slices arrive together, backend/emit_spread.c). A slice that goes to several cores
 * (a multicast set, route.c) goes with its group too: the copies of the set that receive it
 * in the same phases, as many bytes each, relay it each phase as it lands (route.c,
 * same_chunks). */
static uint32_t group_of(const Ready *R, uint32_t xi, uint32_t *m)
{
    MapPlan *p = R->s->p;
    if (R->v == MAP_NONE || planned_twin(p, xi, R->v) != MAP_NONE)
        return 0;
    uint32_t n = map_xfer_group(p, xi, m, GROUP_MAX);
    if (n > 0 && !map_xfer_over_recv(p, xi) && !columns_of(p, m))
        return 0; /* channel slices of a copy the receive area holds: each on its own */
    for (uint32_t i = 0; i < n; i++) {
        const MXfer *x = &p->xfers[m[i]];
        if (x->planned || map_task_vcore(p, x->src_task) == R->v ||
            planned_twin(p, m[i], R->v) != MAP_NONE)
            return 0;
    }
    return n;
}

/* Whether transfer xi, not yet planned, goes from a block on R's core to that core through
 * its own router (lanes_moved: bytes between lanes; lanes_spread: over several phases;
 * map_own_gathered: a box of the writer's result its primitive cannot write straight):
 * the router lands its bytes in the core's receive area (backend/emit_route.c), alive from
 * the writer's send phase through the last router phase, so they take room in the receive
 * budget of each of those phases as other cores' transfers do. */
static bool own_moved(const MapPlan *p, const MXfer *x, uint32_t v)
{
    if (x->kind != XF_CORE || !x->bytes || v == MAP_NONE || map_task_vcore(p, x->src_task) != v)
        return false;
    const MTask *a = &p->tasks[x->src_task];
    const Edge *ed = p->g->edges[x->edge];
    return lanes_moved(p->g, &p->uses, ed) || lanes_spread(p, a, x) ||
           map_own_gathered(p->g, &p->uses, ed);
}

static bool own_lands(const Ready *R, uint32_t xi)
{
    const MXfer *x = &R->s->p->xfers[xi];
    return !x->planned && own_moved(R->s->p, x, R->v);
}

/* Counts x's bytes in recv (a core's receive budget) in the phases [from, to] its own
 * router's landing is not counted in yet (x->own_next on). */
static void own_count(const Sched *s, const MXfer *x, int64_t *recv, int32_t from, int32_t to)
{
    if (from < x->own_next)
        from = x->own_next;
    for (int32_t ph = from; ph <= to; ph++)
        recv[(uint32_t)ph % s->M] += x->bytes;
}

/* Task t placed on v in phase ph: what v's own router landed for it stays in the receive
 * area until t reads it (backend/emit_route.c gathers into the copy there), so its bytes
 * count in the budget of every phase up to ph; a box its writer's router gathers whole
 * (map_own_gathered) that t gathers (premove_count) leaves with the P06 gathering it,
 * which the schedule keeps a Soma slot for after it lands (counted in its landing phases
 * only, as a transfer from another core). */
static int keep_one(uint32_t xi, void *arg)
{
    const void **a = arg;
    Sched *s = (Sched *)a[0];
    const uint32_t *v = a[1];
    const int32_t *ph = a[2];
    const uint32_t *t = a[3];
    MapPlan *p = s->p;
    MXfer *x = &p->xfers[xi];
    if (x->own_next > 0 && own_moved(p, x, *v) && x->own_next <= *ph) {
        if (premove_count(p->g, &p->uses, p->tasks[*t].pos) > 0 &&
            !lanes_moved(p->g, &p->uses, p->g->edges[x->edge]) &&
            !lanes_spread(p, &p->tasks[x->src_task], x))
            return 0;
        own_count(s, x, p->vcores[*v].recv, x->own_next, *ph);
        x->own_next = *ph + 1;
    }
    return 0;
}

static void own_keep(Sched *s, uint32_t t, uint32_t v, int32_t ph)
{
    const void *a[4] = {s, &v, &ph, &t};
    map_each_in_xfer(s->p, t, keep_one, a);
}

/* The Soma slot (time in slots) that transfer xi, landing whole on R's core in phase ph (in
 * place at time r), keeps for the P06 gathering it when it is an input CADD R->task gathers
 * straight from the receive area (gather_wait.h): the earliest free one after r in the
 * core's stage; -1 when it is no such input or there is none. */
static int64_t hold_slot(const Ready *R, uint32_t xi, int32_t ph, int64_t r)
{
    const MapPlan *p = R->s->p;
    if (R->n_held >= sizeof R->held / sizeof R->held[0] || !map_gather_waits(p, R->task, xi))
        return -1;
    uint32_t M = R->s->M;
    int64_t lo = R->v == MAP_NONE ? ph : (int64_t)p->vcores[R->v].stage * M;
    return map_gather_slot(R->v == MAP_NONE ? NULL : p->vcores[R->v].slots, lo, M, r,
                           R->held, R->n_held);
}

/* Whether transfer xi, landing whole in phase ph on recv (R's budget or a copy of it, its
 * landing counted), keeps its bytes within the receive budget of every phase after ph up to
 * the slot it keeps (hold_slot; true when it keeps none). */
static bool hold_fits(const Ready *R, const int64_t *recv, uint32_t xi, int32_t ph)
{
    const MXfer *x = &R->s->p->xfers[xi];
    int64_t at = hold_slot(R, xi, ph, (int64_t)ph * MS_PER_PHASE + MS_ROUTER);
    for (int64_t q = (int64_t)ph + 1; at >= 0 && q <= at / MS_PER_PHASE; q++)
        if (recv[(uint64_t)q % R->s->M] + x->bytes > R->per_phase)
            return false;
    return true;
}

/* Transfer xi, landing whole on R's core in phase ph (in place at time r), into an input
 * CADD R->task gathers straight from the receive area (gather_wait.h): it keeps the earliest
 * free Soma slot after r for its P06 (on commit in the core's slots, x->held), and its bytes
 * count in the receive budget of the phases after ph up to that slot's. None when there is
 * no such slot in the core's stage (the P06 is then placed with the others, with_premoves). */
static void hold_gather(Ready *R, uint32_t xi, int32_t ph, int64_t r)
{
    MapPlan *p = R->s->p;
    MXfer *x = &p->xfers[xi];
    int64_t at = hold_slot(R, xi, ph, r);
    uint32_t M = R->s->M;
    if (at < 0)
        return;
    R->held[R->n_held++] = at;
    uint32_t k;
    if (R->times && times_of(R->times, x->store, &k))
        R->times->held[k] = at + 1;
    if (at > R->ready)
        R->ready = at; /* its P06 comes before t */
    for (int64_t q = (int64_t)ph + 1; q <= at / MS_PER_PHASE; q++)
        R->recv[(uint64_t)q % M] += x->bytes;
    if (R->commit) {
        x->held = at + 1;
        if (R->v != MAP_NONE)
            p->vcores[R->v].slots[(uint64_t)(at / MS_PER_PHASE) % M] |=
                (uint8_t)(1u << (at % MS_PER_PHASE));
    }
}

/* Transfer xi, landing whole on R's core in phase ph (in place at *r), whose runs may spill
 * on over the routers of its edge's lanes phases after ph (map_lanes_last; backend/
 * emit_route_spill.c): its copy waits in the receive area until the last of them lands
 * (backend/emit_early.c gathers it no earlier), so its bytes count in the receive budget of
 * each of those phases, and in place after that router (*r) it keeps a Soma slot for its
 * gather as a copy landing whole then does (hold_gather). */
static void spill_wait(Ready *R, uint32_t xi, int32_t ph, int64_t *r)
{
    MapPlan *p = R->s->p;
    const MXfer *x = &p->xfers[xi];
    int32_t last = map_lanes_last(p, x->edge, ph);
    if (last <= ph)
        return;
    for (int64_t q = (int64_t)ph + 1; q <= last; q++)
        R->recv[(uint64_t)q % R->s->M] += x->bytes;
    int64_t at = (int64_t)last * MS_PER_PHASE + MS_ROUTER;
    if (at > *r)
        *r = at;
    hold_gather(R, xi, last, at);
}

/* Whether transfer xi, landing whole in phase ph on recv (R's budget or a copy of it, its
 * landing counted), keeps its bytes within the receive budget of every phase it waits in
 * after ph: for the runs that spill on (spill_wait) and for its P06 (hold_fits). */
static bool wait_fits(const Ready *R, const int64_t *recv, uint32_t xi, int32_t ph)
{
    const MapPlan *p = R->s->p;
    const MXfer *x = &p->xfers[xi];
    int32_t last = runs_spill(p, &p->tasks[x->src_task], x) ? map_lanes_last(p, x->edge, ph)
                                                             : ph;
    for (int64_t q = (int64_t)ph + 1; q <= last; q++)
        if (recv[(uint64_t)q % R->s->M] + x->bytes > R->per_phase)
            return false;
    return hold_fits(R, recv, xi, last);
}

/* Plans transfer xi from another core into R's core part by part on recv (R's budget or a
 * copy of it) from its writer's send phase (or from phase from, when later): each phase
 * takes what the receive budget has room for; with rules, not before the last phase of the
 * parts planned before it into its copy when that copy is over the receive area
 * (map_copy_last_phase), nor in a phase that clashes (map_xfer_clash; rules 2: or whose
 * chains it would break, map_xfer_chains; nor, for a writer of many runs, where its runs
 * would overfill its sender's header table, send_heads.c) while the writer's stage (ending
 * at global phase end) has a later one. commit: records the chunks and the sender's
 * headers. The last phase (its parts in *n), -1 on an error (R->st). */
static int32_t plan_parts(Ready *R, uint32_t xi, int rules, int64_t end, int32_t from,
                          int64_t *recv, bool commit, uint32_t *n)
{
    MapPlan *p = R->s->p;
    const MXfer *x = &p->xfers[xi];
    const MTask *a = &p->tasks[x->src_task];
    int64_t total = map_land_bytes(p, xi), left = total;
    int64_t runs = map_xfer_runs(p, &R->s->clash, xi);
    int ruled = -1; /* map_heads_ruled, asked once, when a table is full */
    uint32_t va = map_task_vcore(p, x->src_task);
    int32_t ph = send_phase(a);
    bool big = map_xfer_over_recv(p, xi);
    int32_t after = rules && big ? map_copy_last_phase(p, xi) : -1;
    if (after > ph && after < end)
        ph = after;
    if (from > ph)
        ph = from;
    *n = 0;
    for (;;) {
        uint32_t l = (uint32_t)ph % R->s->M;
        int64_t room = R->per_phase - recv[l];
        /* a part of several (not all of it here) moves out in Soma2 of its phase */
        bool part = big || *n > 0 || left > room;
        if (part && room > 0 && part_waits(R, l))
            room = 0;
        /* a part of runs of bytes: what one phase's header table holds (lanes.h) */
        int64_t hcap = lanes_part_cap(p->lanes_heads[x->edge], total);
        if (part && hcap > 0 && room > hcap)
            room = hcap;
        if (rules == 3 && ph >= end)
            return ph; /* past the stage: the caller drops the rules */
        if (rules && rules < 3 && room > 0 && ph + 1 < end &&
            (map_xfer_clash(p, &R->s->clash, xi, R->v, ph, part) ||
             map_xfer_twice(p, &R->s->clash, xi, R->v, ph) ||
             (R->s->chains && rules > 1 &&
              map_xfer_chains(p, &R->s->clash, xi, R->v, ph, total - left,
                              left < room ? left : room))))
            room = 0; /* a phase of another box of its writer's (xfer_clash.c), of its box
                         into another block of its core (xfer_twice.c), or one whose
                         chains it would break (xfer_chain.c) */
        else if (rules == 3 && room > 0) /* the part its chains carry (xfer_cap.c) */
            room = map_xfer_cap(p, &R->s->clash, xi, R->v, ph, total - left,
                                left < room ? left : room);
        if (rules && room > 0 && ph + 1 < end &&
            map_heads_full(&R->s->heads, va, l,
                           map_part_heads(runs, left < room ? left : room, total)) &&
            (ruled >= 0 ? ruled : (ruled = map_heads_ruled(p, &R->s->clash, x->src_task))))
            room = 0; /* its runs past its sender's header table (send_heads.c) */
        if (room > 0 || left == 0) {
            int64_t take = left < room ? left : (room > 0 ? room : 0);
            recv[l] += take;
            left -= take;
            if (commit && (!add_chunk(p, ph, take) ||
                           (take > 0 &&
                            !map_heads_add(&R->s->heads, va, l,
                                           map_part_heads(runs, take, total))))) {
                R->st = oom(R->d);
                return -1;
            }
            ++*n;
            if (left == 0)
                return ph;
        }
        if (ph >= INT32_MAX - 1 || ph - send_phase(a) > MAX_XFER_PHASES) {
            R->st = diag_edge(R->d, ST_LOGIC, "map.phases", p->g->edges[x->edge]->id,
                              "its %lld bytes need more than %d receive phases",
                              (long long)x->bytes, MAX_XFER_PHASES);
            return -1;
        }
        ph++;
    }
}

/* The phase from which transfer xi (from another core, its writer's stage ending at global
 * phase end) is planned: -1 (its writer's send phase) unless it is an input a CADD gathers
 * straight from the receive area (hold_slot), or one whose runs spill on (spill_wait), that
 * would land whole in a phase whose wait for its last runs or its P06 overruns the receive
 * budget of a later phase (wait_fits), or one whose runs spill on that would land in parts
 * (its parts' rows land whole in the receive area, and their runs spill on): then the first
 * later phase from which it lands whole in one phase and its wait fits, inside the writer's
 * stage (none: -1, as before). */
static int32_t hold_from(Ready *R, uint32_t xi, int64_t end)
{
    MapPlan *p = R->s->p;
    const MXfer *x = &p->xfers[xi];
    const MTask *a = &p->tasks[x->src_task];
    bool spread = runs_spill(p, a, x);
    if (map_xfer_over_recv(p, xi) || R->n_held >= sizeof R->held / sizeof R->held[0] ||
        (lanes_spread(p, a, x) && !spread) || (!spread && !map_gather_waits(p, R->task, xi)))
        return -1;
    for (int32_t from = -1; from < end; from = (from < 0 ? send_phase(a) : from) + 1) {
        uint32_t n = 0;
        memcpy(R->s->dry, R->recv, R->s->M * sizeof *R->s->dry);
        int32_t ph = plan_parts(R, xi, 2, end, from, R->s->dry, false, &n);
        if (ph < 0 || ph + 1 >= end || (from < 0 && n != 1 && !spread))
            return -1; /* (not landing whole anyway: no wait) */
        if (n == 1 && wait_fits(R, R->s->dry, xi, ph))
            return from;
    }
    return -1;
}

/* Plans one transfer into a Ready's core: the time its data is in place. */
static int ready_one(uint32_t xi, void *arg)
{
    Ready *R = arg;
    MapPlan *p = R->s->p;
    MXfer *x = &p->xfers[xi];
    if ((R->pass == 0) != own_lands(R, xi))
        return 0; /* planned in the other pass */
    int64_t r = -1;
    uint32_t m[GROUP_MAX], n_m = 0, j = 0;
    while (j < R->n_joint && R->joint[j] != xi)
        j++;
    if (j < R->n_joint) {
        r = R->joint_ready[j]; /* planned with its group in this call */
    } else if (x->kind == XF_CORE && x->bytes && !x->planned &&
               (n_m = group_of(R, xi, m)) > 0 && (r = plan_group(R, m, n_m)) != -2) {
        if (R->st != ST_OK)
            return 1;
    } else if (x->kind != XF_CORE) {
        r = -1; /* from off chip: before the step */
    } else if (!x->bytes) {
        r = -1; /* writes nothing of the part this copy holds */
        if (R->commit)
            x->planned = true;
    } else if (x->planned) {
        r = x->ready;
    } else {
        const MTask *a = &p->tasks[x->src_task];
        uint32_t va = map_task_vcore(p, x->src_task);
        uint32_t twin = R->v == MAP_NONE ? MAP_NONE : planned_twin(p, xi, R->v);
        if (va == R->v && R->v != MAP_NONE) {
            r = (int64_t)a->phase * MS_PER_PHASE + a->slot;
            if (own_lands(R, xi)) { /* its bytes moved by the router, into the receive area */
                r = lanes_ready(p, a, x);
                int32_t send = send_phase(a), last = map_lanes_last(p, x->edge, send);
                own_count(R->s, x, R->recv, send, last);
                if (R->commit)
                    x->own_next = last + 1;
                if (!lanes_moved(p->g, &p->uses, p->g->edges[x->edge]) &&
                    !lanes_spread(p, a, x))
                    hold_gather(R, xi, last, r); /* a box its router gathers (own_gather.h) */
            }
        } else if (twin != MAP_NONE) {
            r = p->xfers[twin].ready; /* another copy on this core got the bytes already */
        } else {
            uint32_t n = 0;
            bool big = map_xfer_over_recv(p, xi); /* each part moves out, however few */
            /* the rules of xfer_clash.h (a clash, the order of a copy's parts) only where
             * the parts still end inside the writer's stage (its output buffer lives no
             * later), and the chains' (xfer_chain.c) only where they end before its last
             * phase (a reader there would run past the stage): tried on a copy of the
             * budget first */
            int64_t end = ((int64_t)p->vcores[va].stage + 1) * R->s->M;
            int32_t from = hold_from(R, xi, end);
            if (R->st != ST_OK)
                return 1;
            memcpy(R->s->dry, R->recv, R->s->M * sizeof *R->s->dry);
            int rules = 2;
            int32_t ph = plan_parts(R, xi, rules, end, from, R->s->dry, false, &n);
            if (ph >= 0 && ph + 1 >= end && send_phase(a) < end) {
                memcpy(R->s->dry, R->recv, R->s->M * sizeof *R->s->dry);
                ph = plan_parts(R, xi, rules = 1, end, from, R->s->dry, false, &n);
            }
            if (ph < 0)
                return 1;
            if (ph + 1 >= end && send_phase(a) < end && R->s->chains &&
                !lanes_bytes(p->g, &p->uses, p->g->edges[x->edge]) &&
                lanes_part_cap(p->lanes_heads[x->edge], x->bytes > 0 ? x->bytes : 1) == 0) {
                /* into the stage's last phase or past it without the chains' rule: each
                 * phase's part cut to what its chains carry (rules 3, xfer_cap.c), when
                 * that ends inside the stage; not for runs of bytes, which go to no
                 * relaying chain (the clash rule keeps them apart) */
                memcpy(R->s->dry, R->recv, R->s->M * sizeof *R->s->dry);
                uint32_t n3 = 0;
                int32_t ph3 = plan_parts(R, xi, 3, end, from, R->s->dry, false, &n3);
                if (R->st != ST_OK)
                    return 1;
                if (ph3 >= 0 && ph3 < end) {
                    ph = ph3;
                    n = n3;
                    rules = 3;
                }
            }
            if (ph >= end && send_phase(a) < end)
                rules = 0;
            ph = plan_parts(R, xi, rules, end, from, R->recv, R->commit, &n);
            if (ph < 0)
                return 1;
            /* over several phases (or into a copy over the receive area), each phase's
             * part moves out of the receive area in Soma2 of its phase
             * (backend/emit_spread.c): a reader comes after the last */
            bool moved = n > 1 || big;
            r = (int64_t)ph * MS_PER_PHASE + (moved ? MS_SOMA2 : MS_ROUTER);
            if (lanes_spread(p, a, x) && lanes_ready(p, a, x) > r) {
                r = lanes_ready(p, a, x); /* byte moves past one phase's headers */
                if (!moved && !runs_spill(p, a, x)) /* bytes: landing until the last */
                    map_lanes_land(p, xi, ph, map_lanes_last(p, x->edge, send_phase(a)),
                                   R->v, R->recv, R->s->M, R->commit); /* (lanes_land.h) */
            }
            if (!moved && runs_spill(p, a, x))
                spill_wait(R, xi, ph, &r);
            else if (!moved && !lanes_spread(p, a, x))
                hold_gather(R, xi, ph, r);
            if (R->commit) {
                x->cross = true;
                x->chunk0 = p->n_chunks - n;
                x->n_chunks = n;
                for (uint32_t k = 0; moved && R->v != MAP_NONE && k < n; k++)
                    p->vcores[R->v].slots[map_local(p, p->chunks[x->chunk0 + k].phase)] |=
                        (uint8_t)(1u << MS_SOMA2); /* the part's move (emit_spread.c) */
            }
        }
        if (R->commit) {
            x->planned = true;
            x->ready = r;
            if (map_clash_note(&R->s->clash, p, xi) != ST_OK) {
                R->st = oom(R->d);
                return 1;
            }
        }
    }
    if (r > R->ready)
        R->ready = r;
    uint32_t k;
    if (R->times && times_of(R->times, x->store, &k) && r > R->times->r[k])
        R->times->r[k] = r;
    if (x->planned && x->held - 1 > R->ready)
        R->ready = x->held - 1; /* its P06 comes before t (gather_wait.h) */
    return 0;
}

/* The time t's inputs are in place on vcore v (MAP_NONE: a fresh core), planning the
 * transfers into it on recv (v's budget, or a scratch copy). commit: record the chunks. */
static Ready ready_init(Sched *s, uint32_t v, int64_t *recv, bool commit, Diag *d)
{
    const Chip *c = s->p->chip;
    Ready R = {.s = s, .v = v, .recv = recv, .commit = commit,
               .per_phase = c->recv_bytes_per_phase, .ready = -1, .st = ST_OK, .d = d};
    if (c->dest_bytes_per_phase && c->dest_bytes_per_phase < R.per_phase)
        R.per_phase = c->dest_bytes_per_phase;
    if (R.per_phase <= 0)
        R.per_phase = 1;
    return R;
}

/* Swaps entries j - 1 and j of the parallel arrays id[] and key[] (the insertion sorts). */
static void swap_down(uint32_t *id, int64_t *key, uint32_t j)
{
    uint32_t t = id[j];
    int64_t k = key[j];
    id[j] = id[j - 1];
    key[j] = key[j - 1];
    id[j - 1] = t;
    key[j - 1] = k;
}

static int list_one(uint32_t xi, void *arg)
{
    Sched *s = arg;
    uint32_t cap = s->cap_xl;
    if (!grow((void **)&s->xl, s->n_xl, &cap, sizeof *s->xl, 64) ||
        !grow((void **)&s->xkey, s->n_xl, &s->cap_xl, sizeof *s->xkey, 64))
        return 1;
    s->xl[s->n_xl++] = xi;
    return 0;
}

/* The rows [*y0, *y1) of its storage block that transfer xi lands on, and the first pixel,
 * in C order (*px). */
static void land_rows(const MapPlan *p, uint32_t xi, int64_t *y0, int64_t *y1, int64_t *px)
{
    const MXfer *x = &p->xfers[xi];
    MBox b, whole;
    bbox_of_iface(p->g, &p->uses, x->store, true, p->g->edges[x->edge]->id, &b);
    bbox_full(p->g->blocks[x->store], &whole);
    *y0 = b.lo[D_Y];
    *y1 = b.hi[D_Y];
    *px = b.lo[D_Y] * (whole.hi[D_X] - whole.lo[D_X]) + b.lo[D_X];
}

static int32_t xfer_send(const MapPlan *p, uint32_t xi)
{
    const MXfer *x = &p->xfers[xi];
    return x->src_task == MAP_NONE ? 0 : send_phase(&p->tasks[x->src_task]);
}

/* Whether transfers xi and xj fill the same copy. */
static bool same_copy(const MapPlan *p, uint32_t xi, uint32_t xj)
{
    return p->xfers[xi].store == p->xfers[xj].store &&
           p->xfers[xi].dst_cluster == p->xfers[xj].dst_cluster;
}

/* Where transfer xi comes in its copy's order, among the transfers xl[0..n) (all of p's
 * when xl is NULL): by the latest phase the writers of the transfers into the same copy
 * that land on any of its rows send in (pieces of a row that alternate along it come in the
 * row's order, whichever writer sends first), then by the first pixel it lands on in its
 * storage block, in C order. */
static int64_t land_key_among(const MapPlan *p, uint32_t xi, const uint32_t *xl, uint32_t n)
{
    int64_t y0, y1, px;
    land_rows(p, xi, &y0, &y1, &px);
    int32_t ph = xfer_send(p, xi);
    for (uint32_t j = 0; j < n; j++) {
        uint32_t xj = xl ? xl[j] : j;
        int64_t z0, z1, q;
        if (xj == xi || p->xfers[xj].kind == XF_OUT || !same_copy(p, xi, xj))
            continue;
        land_rows(p, xj, &z0, &z1, &q);
        int32_t pj = xfer_send(p, xj);
        if (z0 < y1 && y0 < z1 && pj > ph)
            ph = pj;
    }
    const int64_t span = (int64_t)1 << 32;
    return ph * span + (px < 0 ? 0 : px < span ? px : span - 1);
}

/* land_key_among for s->xl[i] among a task's inputs (s->xl). */
static int64_t land_key(const Sched *s, uint32_t i)
{
    return land_key_among(s->p, s->xl[i], s->xl, s->n_xl);
}

/* The transfers into task t's inputs (s->xl, s->n_xl) in the order inputs_ready plans them:
 * as map_each_in_xfer gives them, but those into one copy over the receive area by the phase
 * their writers send in (the latest of a row's), then in the order of the pixels they land
 * on, so that the pixels a phase brings lie side by side where they can: the code generator
 * moves each phase's pixels out of the receive area as two runs at most
 * (backend/emit_spread.c, which cuts the edges in the order they start arriving in, then by
 * pixel), and the edges of two pieces of a reshaped row that alternate along it
 * (test_diff_ops/cvm_precision_case_1__p_24_) came in one piece's order, its pixels of a
 * phase runs apart; so did those of two writers sending in different phases
 * (broadcast_div_case_1_variant_0's op/mpick/in/x0). false when out of memory. */
static bool in_order(Sched *s, uint32_t t)
{
    const MapPlan *p = s->p;
    s->n_xl = 0;
    if (map_each_in_xfer(p, t, list_one, s))
        return false;
    for (uint32_t i = 0; i < s->n_xl; i++) {
        const MXfer *x = &p->xfers[s->xl[i]];
        s->xkey[i] = x->kind == XF_OUT || !map_xfer_over_recv(p, s->xl[i]) ? -1 : land_key(s, i);
    }
    for (uint32_t i = 1; i < s->n_xl; i++) /* insertion: stable, within one copy */
        for (uint32_t j = i; j > 0 && s->xkey[j] >= 0 && s->xkey[j - 1] > s->xkey[j] &&
                             same_copy(p, s->xl[j - 1], s->xl[j]);
             j--)
            swap_down(s->xl, s->xkey, j);
    return true;
}

static Status inputs_ready(Sched *s, uint32_t t, uint32_t v, int64_t *recv, bool commit,
                           InTimes *times, int64_t *ready, Diag *d)
{
    Ready R = ready_init(s, v, recv, commit, d);
    R.task = t;
    R.times = times;
    if (!in_order(s, t))
        return oom(d);
    for (R.pass = 0; R.pass < 2; R.pass++) /* first what v's own router lands */
        for (uint32_t i = 0; i < s->n_xl && R.st == ST_OK; i++)
            ready_one(s->xl[i], &R);
    *ready = R.ready;
    return R.st;
}

/* The earliest (phase, slot) after ready for a block of unit u on v (MAP_NONE: fresh, no
 * window, no taken slot). INT64_MAX when there is none inside v's stage. */
static int64_t earliest(const Sched *s, uint32_t v, ChipUnit u, int64_t ready)
{
    const MapPlan *p = s->p;
    int64_t lo = 0, hi = INT64_MAX / 8;
    const uint8_t *slots = NULL;
    if (v != MAP_NONE) {
        lo = (int64_t)p->vcores[v].stage * s->M;
        hi = lo + s->M;
        slots = p->vcores[v].slots;
    }
    int64_t ph = (ready + 1) / MS_PER_PHASE; /* ready >= -1 */
    if (ph < lo)
        ph = lo;
    for (; ph < hi; ph++) {
        uint8_t used = slots ? slots[ph - lo] : 0;
        if (u == UNIT_AXON) {
            if (ph * MS_PER_PHASE + MS_AXON > ready && !(used & (1u << MS_AXON)))
                return ph * MS_PER_PHASE + MS_AXON;
        } else {
            if (ph * MS_PER_PHASE + MS_SOMA1 > ready && !(used & (1u << MS_SOMA1)))
                return ph * MS_PER_PHASE + MS_SOMA1;
            if (ph * MS_PER_PHASE + MS_SOMA2 > ready && !(used & (1u << MS_SOMA2)))
                return ph * MS_PER_PHASE + MS_SOMA2;
        }
    }
    return INT64_MAX;
}

static int64_t premove_fresh(Sched *s, uint32_t t, const InTimes *it, int64_t T);

/* Tries t on v (MAP_NONE: fresh): the time it could start, or INT64_MAX. */
static Status try_on(Sched *s, uint32_t t, uint32_t v, int64_t *time, Diag *d)
{
    MapPlan *p = s->p;
    if (v == MAP_NONE)
        memset(s->scratch, 0, s->M * sizeof *s->scratch);
    else
        memcpy(s->scratch, p->vcores[v].recv, s->M * sizeof *s->scratch);
    int64_t ready;
    InTimes times = {.n = 0};
    Status st = inputs_ready(s, t, v, s->scratch, false, v == MAP_NONE ? &times : NULL, &ready,
                             d);
    if (st != ST_OK)
        return st;
    *time = earliest(s, v, p->tasks[t].prim->unit, ready);
    if (v == MAP_NONE && *time != INT64_MAX && s->ntasks[p->tasks[t].cluster] > 1) {
        /* a fresh core for a cluster of k blocks: start a new stage rather than leave too
         * few phases in this one for the rest of the cluster */
        int64_t ph = *time / MS_PER_PHASE, k = s->ntasks[p->tasks[t].cluster];
        if (ph % s->M + k > s->M && k <= s->M)
            *time = (ph / s->M + 1) * s->M * MS_PER_PHASE +
                    (p->tasks[t].prim->unit == UNIT_AXON ? MS_AXON : MS_SOMA1);
    }
    if (v == MAP_NONE && *time != INT64_MAX)
        *time = premove_fresh(s, t, &times, *time);
    return ST_OK;
}

static int64_t vcore_mem(const VCore *v)
{
    return v->mem_weight + v->mem_data;
}

/* Calls fn for every transfer not yet planned into t's input storage from a block on v. */
typedef struct Pending {
    Sched *s;
    uint32_t v;
    void (*fn)(Sched *, uint32_t xfer, void *);
    void *arg;
} Pending;

static int pending_one(uint32_t xi, void *arg)
{
    Pending *P = arg;
    const MapPlan *p = P->s->p;
    if (p->xfers[xi].kind == XF_CORE && !p->xfers[xi].planned &&
        map_task_vcore(p, p->xfers[xi].src_task) == P->v)
        P->fn(P->s, xi, P->arg);
    return 0;
}

static void each_pending_in(Sched *s, uint32_t t, uint32_t v,
                            void (*fn)(Sched *, uint32_t xfer, void *), void *arg)
{
    Pending P = {s, v, fn, arg};
    map_each_in_xfer(s->p, t, pending_one, &P);
}

/* The pending transfers into one cluster, counted per writer. */
typedef struct Saving {
    uint32_t writer[64];
    uint32_t count[64];
    uint32_t n;
} Saving;

static void count_writer(Sched *s, uint32_t xi, void *arg)
{
    Saving *sv = arg;
    uint32_t a = s->p->xfers[xi].src_task, i = 0;
    while (i < sv->n && sv->writer[i] != a)
        i++;
    if (i == sv->n) {
        if (sv->n == 64)
            return;
        sv->writer[sv->n] = a;
        sv->count[sv->n++] = 0;
    }
    sv->count[i]++;
}

/* Bytes of output buffers on v that t's cluster joining v makes unnecessary. */
static int64_t saving(Sched *s, uint32_t t, uint32_t v)
{
    Saving sv = {.n = 0};
    each_pending_in(s, t, v, count_writer, &sv);
    int64_t b = 0;
    for (uint32_t i = 0; i < sv.n; i++)
        if (s->p->tasks[sv.writer[i]].remote_out == sv.count[i])
            b += s->p->tasks[sv.writer[i]].out_bytes;
    return b;
}

static void make_local(Sched *s, uint32_t xi, void *arg)
{
    (void)arg;
    MTask *a = &s->p->tasks[s->p->xfers[xi].src_task];
    if (a->remote_out && --a->remote_out == 0)
        s->p->vcores[map_task_vcore(s->p, s->p->xfers[xi].src_task)].mem_data -= a->out_bytes;
}

/* Collects one candidate core for t's cluster from a transfer into t's inputs. */
typedef struct Cands {
    Sched *s;
    uint32_t t;
    int64_t need;     /* the cluster's bytes */
    uint32_t n;
} Cands;

/* Whether transfer xi is a channel slice of a copy over the receive area (a group,
 * xfer_group.c) whose other slices are written on other cores than v: on v it would be
 * written there while the others arrive, a copy the code generator cannot assemble (it
 * brings every slice of such a copy by the router, the same pixels in the same phases,
 * backend/emit_slices.c, and keeps a copy a writer on its core writes a slice of in the
 * receive area whole). */
static bool slice_among_remote(const MapPlan *p, uint32_t xi, uint32_t v)
{
    uint32_t m[GROUP_MAX];
    uint32_t n = map_xfer_over_recv(p, xi) ? map_xfer_group(p, xi, m, GROUP_MAX) : 0;
    for (uint32_t i = 0; i < n; i++)
        if (m[i] != xi && map_task_vcore(p, p->xfers[m[i]].src_task) != v)
            return true;
    return false;
}

/* Whether transfer xi, from a block on v, would land on v through v's own router (own_moved)
 * more bytes than one phase may receive: the code generator keeps such a copy in the
 * receive area whole while its bytes land (backend/emit_route.c), which no phase holds, so
 * its reader's cluster takes another core, where the bytes arrive in parts over the phases
 * the receive budget gives them (backend/emit_spread.c). */
static bool own_over_recv(const MapPlan *p, uint32_t xi, uint32_t v)
{
    const MXfer *x = &p->xfers[xi];
    return own_moved(p, x, v) && x->bytes > (int64_t)p->chip->recv_bytes_per_phase;
}

/* Whether transfer xi, from a block on v, writes some columns of a copy over the receive area
 * (not whole rows of it) whose other parts other cores write: on v its router would gather
 * them into the copy, which the code generator then keeps in the receive area whole
 * (backend/emit_plan.c, EOut.gather), while from another core they arrive with the others in
 * the order of the copy's pixels, each phase's part moved out (backend/emit_spread.c). */
static bool piece_among_remote(const MapPlan *p, uint32_t xi, uint32_t v)
{
    const MXfer *x = &p->xfers[xi];
    if (x->kind != XF_CORE || !map_xfer_over_recv(p, xi) || map_task_vcore(p, x->src_task) != v)
        return false;
    uint32_t r = xi - p->xfer_of[x->edge];
    MBox wr;
    bbox_of_iface(p->g, &p->uses, x->store, true, p->g->edges[x->edge]->id, &wr);
    const MBox *cb = &p->rep_box[p->rep_first[x->store] + r];
    if (wr.lo[D_X] <= cb->lo[D_X] && wr.hi[D_X] >= cb->hi[D_X])
        return false;
    const BlockUses *bu = &p->uses.blocks[x->store];
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        uint32_t e2 = bu->in_edges[j], k = p->xfer_of[e2];
        if (e2 == x->edge || k == MAP_NONE)
            continue;
        const MXfer *y = &p->xfers[k + r];
        if (y->kind == XF_CORE && y->bytes && map_task_vcore(p, y->src_task) != v)
            return true;
    }
    return false;
}

static int cand_one(uint32_t xi, void *arg)
{
    Cands *C = arg;
    Sched *s = C->s;
    MapPlan *p = s->p;
    if (p->xfers[xi].kind != XF_CORE || p->xfers[xi].planned)
        return 0;
    uint32_t v = map_task_vcore(p, p->xfers[xi].src_task);
    if (v == MAP_NONE || slice_among_remote(p, xi, v) || own_over_recv(p, xi, v) ||
        piece_among_remote(p, xi, v) ||
        vcore_mem(&p->vcores[v]) + C->need - saving(s, C->t, v) > p->chip->core_budget_bytes)
        return 0;
    uint32_t i = 0;
    while (i < C->n && s->cand[i] != v)
        i++;
    if (i == C->n) {
        if (C->n == 64)
            return 0; /* enough candidates */
        s->cand[C->n] = v;
        s->cand_bytes[C->n++] = 0;
    }
    s->cand_bytes[i] += p->xfers[xi].bytes;
    return 0;
}

/* The candidate cores for t's cluster: the cores of the blocks it reads from, most bytes
 * first, where the cluster still fits; *n gets their count. */
static void candidates(Sched *s, uint32_t t, uint32_t *n)
{
    const MCluster *cl = &s->p->clusters[s->p->tasks[t].cluster];
    Cands C = {s, t, cl->mem_weight + cl->mem_data, 0};
    map_each_in_xfer(s->p, t, cand_one, &C);
    uint32_t k = C.n;
    /* most bytes first, ties by the order found (insertion sort: k is small) */
    for (uint32_t i = 1; i < k; i++)
        for (uint32_t j = i; j > 0 && s->cand_bytes[j] > s->cand_bytes[j - 1]; j--)
            swap_down(s->cand, s->cand_bytes, j);
    *n = k;
}

static Status give_core(Sched *s, uint32_t c, uint32_t v)
{
    MapPlan *p = s->p;
    p->clusters[c].vcore = v;
    p->vcores[v].mem_weight += p->clusters[c].mem_weight;
    p->vcores[v].mem_data += p->clusters[c].mem_data;
    return ST_OK;
}

/* The time input storage st of task t is in place on its core: its transfers' (planned:
 * after inputs_ready committed them), -1 from off chip or with nothing to bring. */
typedef struct InReady {
    const MapPlan *p;
    uint32_t st;
    int64_t r;
    bool held;           /* its transfer keeps the slot of its gather's P06 (hold_gather) */
} InReady;

static int in_ready_one(uint32_t xi, void *arg)
{
    InReady *I = arg;
    const MXfer *x = &I->p->xfers[xi];
    if (x->store == I->st && x->kind == XF_CORE && x->bytes && x->planned && x->ready > I->r)
        I->r = x->ready;
    if (x->store == I->st && x->kind == XF_CORE && x->planned && x->held)
        I->held = true;
    return 0;
}

/* The core the P06s inserted before a block are looked for on: vcore v with its Soma slots
 * and stage, its inputs' times from their planned transfers; or a fresh core (v MAP_NONE)
 * that a block is tried on (premove_fresh), its slots and stage given, its inputs' times
 * those the trial found (it). */
typedef struct PmCore {
    uint32_t v;
    const uint8_t *slots;
    int32_t stage;
    const InTimes *it;
} PmCore;

static PmCore pm_core(const Sched *s, uint32_t v)
{
    return (PmCore){v, s->p->vcores[v].slots, s->p->vcores[v].stage, NULL};
}

/* When input storage st (MAP_NONE: none) of task t is in place on c from other cores (-1:
 * from off chip, or nothing to bring); *held: whether the P06 gathering it keeps its slot
 * already (hold_gather). */
static int64_t in_time(const MapPlan *p, uint32_t t, uint32_t st, const PmCore *c, bool *held)
{
    if (c->it) {
        for (uint32_t k = 0; k < c->it->n; k++)
            if (c->it->st[k] == st) {
                *held = c->it->held[k] > 0;
                return c->it->r[k];
            }
        *held = false;
        return -1;
    }
    InReady I = {p, st, -1, false};
    map_each_in_xfer(p, t, in_ready_one, &I);
    *held = I.held;
    return I.r;
}

/* Free Soma slots on v for the nm P06s inserted before task t at time T (premove.h), one an
 * input: each input's after the time its data is in place on v (r[i]) and before T, on v's
 * local phases (each once), and not taken; the latest for the input that arrives last first
 * (as the code generator places them, backend/emit_gather.c). Their times into got[]; false
 * when there are not enough. An input from off chip counts from the stage's first phase; one
 * from the stage before from its arrival in the step before when that local phase is not
 * before t's, else from that local phase in t's step (the code generator's reading of a
 * stage's input, docs/backend.md "Stages"). */
static bool premove_slots(const Sched *s, const uint8_t *slots, int32_t stage, const int64_t *r,
                          uint32_t nm, int64_t T, bool any, int64_t *got)
{
    int64_t lo = (int64_t)stage * s->M * MS_PER_PHASE;
    int64_t pc = T / MS_PER_PHASE - (int64_t)stage * s->M;
    bool done[64] = {false};
    for (uint32_t k = 0; k < nm; k++) {
        uint32_t i = nm; /* the input not yet placed whose data comes last */
        for (uint32_t j = 0; j < nm; j++)
            if (!done[j] && (i == nm || r[j] > r[i]))
                i = j;
        done[i] = true;
        int64_t from = r[i];
        if (from < lo) { /* from off chip, or from the stage before */
            int64_t a = from < 0 ? -1 : (from / MS_PER_PHASE) % s->M;
            from = a < 0 ? lo - 1 : a < pc ? lo + a * MS_PER_PHASE + from % MS_PER_PHASE : from;
        }
        if (from < T - (int64_t)s->M * MS_PER_PHASE) /* each local slot once */
            from = T - (int64_t)s->M * MS_PER_PHASE;
        got[k] = -1;
        for (int64_t at = T - 1; at > from && got[k] < 0; at--) {
            int sl = (int)(at % MS_PER_PHASE);
            bool mine = false;
            for (uint32_t j = 0; j < k; j++)
                mine |= got[j] == at;
            if ((sl == MS_SOMA1 || sl == MS_SOMA2) && !mine &&
                (any || !(slots[(at / MS_PER_PHASE) % s->M] & (1u << sl))))
                got[k] = at;
        }
        if (got[k] < 0)
            return false;
    }
    return true;
}

/* When storage st (a block position, -1: none) is in place on v after its writers there:
 * the latest of r (its transfers') and the times of the tasks on v that write it (a Soma
 * block in the slot before a CADD's Axon: the P06 gathering its result comes after it,
 * backend/emit_gather.c); *local: whether such a task gives that time. */
static int64_t local_ready(const MapPlan *p, long st, uint32_t v, int64_t r, bool *local)
{
    const BlockUses *su = st >= 0 && v != MAP_NONE ? &p->uses.blocks[st] : NULL;
    *local = false; /* a fresh core (MAP_NONE) has no writer */
    for (uint32_t i = 0; su && i < su->n_in_edges; i++) {
        long w = graph_block_pos(p->g, p->g->edges[su->in_edges[i]]->src);
        uint32_t tw = w >= 0 ? p->task_of[w] : MAP_NONE;
        int64_t at = tw != MAP_NONE && map_task_vcore(p, tw) == v
                         ? (int64_t)p->tasks[tw].phase * MS_PER_PHASE + p->tasks[tw].slot
                         : -1;
        *local |= at > r;
        r = at > r ? at : r;
    }
    return r;
}

/* The tees before task t on v (premove_tee): for each storage block t reads that a writer on
 * v writes in another layout than another storage block it writes, the writer's time into
 * r (at most room); their count. Each is a P06 after the writer and before t. */
static uint32_t tee_readies(const MapPlan *p, uint32_t t, uint32_t v, int64_t *r, uint32_t room)
{
    const BlockUses *bu = &p->uses.blocks[p->tasks[t].pos];
    uint32_t n = 0;
    for (uint32_t j = 0; v != MAP_NONE && j < bu->n_in_edges; j++) { /* none on a fresh core */
        long st = graph_block_pos(p->g, p->g->edges[bu->in_edges[j]]->src);
        if (st < 0 || bt_info(p->g->blocks[st]->type)->kind != BK_STORAGE)
            continue;
        const BlockUses *su = &p->uses.blocks[st];
        for (uint32_t i = 0; i < su->n_in_edges && n < room; i++) {
            long w = graph_block_pos(p->g, p->g->edges[su->in_edges[i]]->src);
            uint32_t tw = w >= 0 ? p->task_of[w] : MAP_NONE;
            if (tw != MAP_NONE && map_task_vcore(p, tw) == v &&
                premove_tee(p->g, &p->uses, (uint32_t)w, (uint32_t)st))
                r[n++] = (int64_t)p->tasks[tw].phase * MS_PER_PHASE + p->tasks[tw].slot;
        }
    }
    return n;
}

/* The staged maps task t reads (layout_staged: a P06 narrows the int32 area the inputs
 * are written into before t reads the map): each one's time in place into r (at most room),
 * as an input's (in_ready_one); their count. */
static uint32_t stage_readies(const MapPlan *p, uint32_t t, const PmCore *c, int64_t *r,
                              uint32_t room)
{
    const BlockUses *bu = &p->uses.blocks[p->tasks[t].pos];
    uint32_t n = 0;
    for (uint32_t j = 0; j < bu->n_in_edges && n < room; j++) {
        long st = graph_block_pos(p->g, p->g->edges[bu->in_edges[j]]->src);
        if (st < 0 || !layout_staged(p->g, &p->uses, (uint32_t)st))
            continue;
        bool held;
        r[n++] = in_time(p, t, (uint32_t)st, c, &held);
    }
    return n;
}

/* The times by which the data of the P06s inserted before task t on v at time T is in place
 * (premove.h): nm is 1 (one box repeated) or every input of a CADD, then the tees and staged
 * maps before it. Into r (room 64); their count. */
static uint32_t premove_readies(Sched *s, uint32_t t, const PmCore *c, uint32_t nm, int64_t T,
                                int64_t *r)
{
    MapPlan *p = s->p;
    const Block *b = p->g->blocks[p->tasks[t].pos];
    int64_t got[64];
    uint32_t n = 0;
    for (uint32_t i = 0; i < nm; i++) { /* nm is 1 (one box repeated) or every input */
        const Edge *ed = i < b->n_in && b->in[i].n_ifaces
                             ? graph_edge(p->g, b->in[i].ifaces[0].edge_id) : NULL;
        long st = ed ? graph_block_pos(p->g, ed->src) : -1;
        bool held, local;
        int64_t in = in_time(p, t, st >= 0 ? (uint32_t)st : MAP_NONE, c, &held);
        if (held)
            continue; /* its P06 has its slot already (hold_gather) */
        r[n] = local_ready(p, st, c->v, in, &local);
        /* without s->delay, one that its writer on v, or the P06s moving its parts out of
         * the receive area, leave no Soma slot before T for and that may lie in its part of
         * the gathered area: they write it there, no P06 (layout_gather_lies) */
        bool moved = !local && in >= 0 && in % MS_PER_PHASE == MS_SOMA2;
        if (!(!s->delay && (local || moved) &&
              layout_gather_lies(p->g, &p->uses, p->tasks[t].pos, i) &&
              !premove_slots(s, c->slots, c->stage, &r[n], 1, T, true, got)))
            n++;
    }
    n += tee_readies(p, t, c->v, r + n, 64 - n);
    n += stage_readies(p, t, c, r + n, 64 - n);
    return n;
}

/* The earliest time from T on at which task t on v has free Soma slots for its nm inserted
 * P06s whose data is in place at r[] (premove_slots; their times into got, *keep): T itself
 * unless s->delay, or when no Soma slot at all lies between an input's data and T (taken or
 * not: the code generator could never place the P06 there); without those, T keeping none
 * (*keep false) when its slots are taken; INT64_MAX when it waits and there are none in v's
 * stage. */
static int64_t premove_at(Sched *s, uint32_t t, uint32_t v, const int64_t *r, uint32_t nm,
                          int64_t T, int64_t *got, bool *keep)
{
    const VCore *c = &s->p->vcores[v];
    bool wait = s->delay || !premove_slots(s, c->slots, c->stage, r, nm, T, true, got);
    int64_t at = T;
    while (at != INT64_MAX && !premove_slots(s, c->slots, c->stage, r, nm, at, false, got))
        at = wait ? earliest(s, v, s->p->tasks[t].prim->unit, at) : INT64_MAX;
    *keep = at != INT64_MAX;
    return !wait && at == INT64_MAX ? T : at;
}

/* Whether task t on v at time T finds the Soma slots of the P06s inserted before it inside
 * v's stage, as with_premoves looks for them (nothing kept): a candidate core where it does
 * not is passed over (place_task), its block elsewhere (qnet.onnx's fc/d.133, whose input a
 * CLUT writes in the Soma2 just before the last phase of its stage). Inputs from other
 * cores count from the stage's start (their transfers are not planned yet). */
static bool premoves_fit(Sched *s, uint32_t t, uint32_t v, int64_t T)
{
    MapPlan *p = s->p;
    uint32_t nm = premove_count(p->g, &p->uses, p->tasks[t].pos);
    int64_t r[64], got[64];
    if (nm > 64)
        return true;
    bool keep;
    PmCore c = pm_core(s, v);
    nm = premove_readies(s, t, &c, nm, T, r);
    return !nm || premove_at(s, t, v, r, nm, T, got, &keep) != INT64_MAX;
}

/* The earliest time from T on at which task t on v has free Soma slots for the P06s inserted
 * before it (premove_at), which it then keeps: T itself unless s->delay; T, keeping none,
 * when there is none (in v's stage): the code generator refuses it then (emit.slot). */
static int64_t with_premoves(Sched *s, uint32_t t, uint32_t v, uint32_t nm, int64_t T)
{
    MapPlan *p = s->p;
    int64_t r[64], got[64];
    if (nm > 64)
        return T; /* more inputs than it keeps track of: none kept (emit.slot if need be) */
    PmCore c = pm_core(s, v);
    nm = premove_readies(s, t, &c, nm, T, r);
    if (!nm)
        return T;
    bool keep;
    int64_t at = premove_at(s, t, v, r, nm, T, got, &keep);
    if (!keep)
        return T; /* none inside its stage: the code generator refuses it (emit.slot) */
    s->delayed |= at > T;
    for (uint32_t k = 0; k < nm; k++)
        p->vcores[v].slots[(got[k] / MS_PER_PHASE) % s->M] |=
            (uint8_t)(1u << (got[k] % MS_PER_PHASE));
    return at;
}

/* The earliest time from T on at which task t, tried on a fresh core (try_on, which found
 * its inputs' times it), has Soma slots there for the P06s inserted before it (premove_slots:
 * all free but those its gathered inputs keep, hold_gather), in T's stage or the next: an
 * input that lands in the Soma2 just before T leaves its P06 none, nor do two that land in
 * one phase with T in the next (one Soma2 for two P06s), and the code generator would refuse
 * the block (emit.slot: broadcast_div_case_0_variant_2-4's op/bit4/shift at the end of a
 * stage, broadcast_div_case_1_variant_0's op/index/y4/y0). T when there is none there
 * either. */
static int64_t premove_fresh(Sched *s, uint32_t t, const InTimes *it, int64_t T)
{
    MapPlan *p = s->p;
    uint32_t nm = premove_count(p->g, &p->uses, p->tasks[t].pos);
    int64_t r[64], got[64], span = (int64_t)s->M * MS_PER_PHASE;
    if (!nm || nm > 64)
        return T;
    memset(s->fresh, 0, s->M);
    for (uint32_t k = 0; k < it->n; k++)
        if (it->held[k] > 0)
            s->fresh[((it->held[k] - 1) / MS_PER_PHASE) % s->M] |=
                (uint8_t)(1u << ((it->held[k] - 1) % MS_PER_PHASE));
    for (int64_t at = T; at != INT64_MAX && at / span <= T / span + 1;
         at = earliest(s, MAP_NONE, p->tasks[t].prim->unit, at)) {
        PmCore c = {MAP_NONE, s->fresh, (int32_t)(at / span), it};
        uint32_t n = premove_readies(s, t, &c, nm, at, r);
        if (!n || premove_slots(s, s->fresh, c.stage, r, n, at, false, got))
            return at;
    }
    return T;
}

static Status place_task(Sched *s, uint32_t t, Diag *d)
{
    MapPlan *p = s->p;
    MTask *tk = &p->tasks[t];
    MCluster *cl = &p->clusters[tk->cluster];
    const Block *b = p->g->blocks[tk->pos];
    int64_t time, fresh = -1;
    Status st;
    uint32_t v = cl->vcore;
    if (v == MAP_NONE) {
        int64_t need = cl->mem_weight + cl->mem_data;
        if (need > p->chip->core_budget_bytes)
            return diag_block(d, ST_LOGIC, "map.mem.group", b,
                              "its group needs %lld bytes (static %lld, data %lld), more than "
                              "the %u bytes of a core: split it first (taskir-opt --passes "
                              "split)",
                              (long long)need, (long long)cl->mem_weight,
                              (long long)cl->mem_data, p->chip->core_budget_bytes);
        uint32_t n;
        candidates(s, t, &n);
        int64_t best = INT64_MAX;
        uint32_t best_v = MAP_NONE;
        for (uint32_t i = 0; i <= n; i++) {
            uint32_t cv = i < n ? s->cand[i] : MAP_NONE;
            if ((st = try_on(s, t, cv, &time, d)) != ST_OK)
                return st;
            if (cv != MAP_NONE && time != INT64_MAX && !premoves_fit(s, t, cv, time))
                time = INT64_MAX; /* its inserted P06s find no slots there */
            if (time < best) {
                best = time;
                best_v = cv;
            }
        }
        if (best == INT64_MAX)
            return diag_block(d, ST_LOGIC, "map.phases", b, "finds no phase to run in");
        if (best_v == MAP_NONE && s->cap && best / MS_PER_PHASE / s->M >= s->cap) {
            s->capped = true;
            return diag_block(d, ST_LOGIC, "map.phases", b, "needs phase group %lld, past %u",
                              (long long)(best / MS_PER_PHASE / s->M), s->cap);
        }
        if (best_v == MAP_NONE) {
            best_v = new_vcore(s, (int32_t)(best / MS_PER_PHASE / s->M));
            if (best_v == MAP_NONE)
                return oom(d);
            fresh = best; /* not before its trial's time (premove_fresh) */
        }
        give_core(s, tk->cluster, best_v);
        each_pending_in(s, t, best_v, make_local, NULL);
        v = best_v;
    }
    int64_t ready;
    if ((st = inputs_ready(s, t, v, p->vcores[v].recv, true, NULL, &ready, d)) != ST_OK)
        return st;
    time = earliest(s, v, tk->prim->unit, ready > fresh - 1 ? ready : fresh - 1);
    uint32_t nm = premove_count(p->g, &p->uses, tk->pos);
    if (time != INT64_MAX) /* a CADD's P06s, tees (premove.h) */
        time = with_premoves(s, t, v, nm, time);
    if (time == INT64_MAX)
        return diag_block(d, ST_LOGIC, "map.phases", b,
                          "cannot run inside the %u phases of its core's phase group %d: its "
                          "inputs are ready only at phase %lld",
                          s->M, p->vcores[v].stage, (long long)(ready / MS_PER_PHASE));
    if (time / MS_PER_PHASE > INT32_MAX / 2)
        return diag_block(d, ST_LOGIC, "map.phases", b, "its phase passes the int32 range");
    tk->phase = (int32_t)(time / MS_PER_PHASE);
    tk->slot = (int)(time % MS_PER_PHASE);
    own_keep(s, t, v, tk->phase);
    uint8_t *used = &p->vcores[v].slots[(uint32_t)tk->phase % s->M];
    *used |= (uint8_t)(1u << tk->slot);
    if (layout_narrows(p->g, &p->uses, tk->pos)) /* the P06 narrowing its int32 result */
        *used |= (uint8_t)(1u << ((*used & (1u << MS_SOMA1)) ? MS_SOMA2 : MS_SOMA1));
    /* the P06 writing its send area (a wider precision's, or a lanes area's) */
    if ((tk->widens || tk->lanes_area) && tk->slot == MS_SOMA1)
        *used |= (uint8_t)(1u << MS_SOMA2);
    return ST_OK;
}

/* A transfer the schedule plans after the tasks, and where it comes (rest_order). */
typedef struct RestKey {
    uint32_t xi, group;
    int64_t key;
} RestKey;

static int rest_cmp(const void *a, const void *b)
{
    const RestKey *x = a, *y = b;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->xi < y->xi ? -1 : x->xi > y->xi;
}

/* The transfers no task read planned (into storage only OUTPUTs read), into *out (*n of
 * them, malloc'd): in transfer order, but those into one copy over the receive area
 * together, at the first of them, in its order (land_key, as in_order gives a task's
 * inputs): the pixels a phase brings then lie side by side where they can (an output store
 * on a core of its own that pieces of a reshaped row write, out_home in problem.c). false
 * when out of memory. */
static bool rest_order(const MapPlan *p, uint32_t **out, uint32_t *n)
{
    RestKey *r = malloc((p->n_xfers ? p->n_xfers : 1) * sizeof *r);
    *out = malloc((p->n_xfers ? p->n_xfers : 1) * sizeof **out);
    if (!r || !*out) {
        free(r);
        free(*out);
        *out = NULL;
        return false;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < p->n_xfers; i++) {
        const MXfer *x = &p->xfers[i];
        if (x->kind != XF_CORE || x->planned)
            continue;
        r[k] = (RestKey){i, k, -1};
        if (map_xfer_over_recv(p, i)) {
            r[k].key = land_key_among(p, i, NULL, p->n_xfers);
            for (uint32_t j = 0; j < k; j++) {
                const MXfer *y = &p->xfers[r[j].xi];
                if (r[j].key >= 0 && y->store == x->store && y->dst_cluster == x->dst_cluster) {
                    r[k].group = r[j].group;
                    break;
                }
            }
        }
        k++;
    }
    qsort(r, k, sizeof *r, rest_cmp);
    for (uint32_t i = 0; i < k; i++)
        (*out)[i] = r[i].xi;
    *n = k;
    free(r);
    return true;
}

/* How a schedule is made: keeping relaying chains whole (xfer_chain.c) or not, and in at
 * most cap stages (0: any): a pass that needs more stops there with a logic error
 * (map.phases), capped set. */
typedef struct How {
    bool chains;
    uint32_t cap;
    bool capped;
} How;

/* One pass of the schedule (above); delay: whether a block waits for the Soma slots of the
 * P06s inserted before it, and a transfer over several phases for the Soma2 of each;
 * *delayed: whether that made anything later; how->capped set when it stopped at the cap. */
static Status schedule_pass(MapPlan *p, bool delay, How *how, bool *delayed, Diag *d)
{
    Sched s = {.p = p, .M = p->chip->max_phases ? p->chip->max_phases : 1, .delay = delay,
               .chains = how->chains, .cap = how->cap};
    s.heads.M = s.M;
    s.scratch = malloc(s.M * sizeof *s.scratch);
    s.dry = malloc(s.M * sizeof *s.dry);
    s.fresh = malloc(s.M);
    s.ntasks = calloc(p->n_clusters ? p->n_clusters : 1, sizeof *s.ntasks);
    s.cand = malloc(64 * sizeof *s.cand);
    s.cand_bytes = malloc(64 * sizeof *s.cand_bytes);
    Status st = ST_OK;
    if (!s.scratch || !s.dry || !s.fresh || !s.ntasks || !s.cand || !s.cand_bytes ||
        map_clash_init(&s.clash, p) != ST_OK)
        st = oom(d);
    for (uint32_t t = 0; st == ST_OK && t < p->n_tasks; t++)
        s.ntasks[p->tasks[t].cluster]++;
    for (uint32_t i = 0; st == ST_OK && i < p->n_tasks; i++) {
        if ((i & 255) == 0)
            tir_progress(p->opt.progress, "block", i, p->n_tasks);
        st = place_task(&s, p->order[i], d);
    }
    /* clusters without a compute block (storage between two sockets): a core each */
    for (uint32_t c = 0; st == ST_OK && c < p->n_clusters; c++)
        if (p->clusters[c].vcore == MAP_NONE) {
            uint32_t v = new_vcore(&s, 0);
            if (v == MAP_NONE)
                st = oom(d);
            else
                give_core(&s, c, v);
        }
    /* transfers no task read planned: into storage only OUTPUT reads (an output several
     * pieces write, the split pass's), received like any other, after their writers;
     * first what a core's own router lands on it, as inputs_ready does; those into one copy
     * over the receive area in its order (rest_order) */
    uint32_t *rest = NULL, n_rest = 0;
    if (st == ST_OK && !rest_order(p, &rest, &n_rest))
        st = oom(d);
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t k = 0; st == ST_OK && k < n_rest; k++) {
            uint32_t i = rest[k], v = map_xfer_vcore(p, &p->xfers[i]);
            Ready R = ready_init(&s, v, p->vcores[v].recv, true, d);
            R.pass = pass;
            ready_one(i, &R);
            st = R.st;
        }
    free(rest);
    if (st == ST_OK) {
        int32_t last = 0;
        uint32_t local = 0;
        for (uint32_t t = 0; t < p->n_tasks; t++) {
            if (p->tasks[t].phase + 1 > last)
                last = p->tasks[t].phase + 1;
            if (map_local(p, p->tasks[t].phase) + 1 > local)
                local = map_local(p, p->tasks[t].phase) + 1;
        }
        for (uint32_t k = 0; k < p->n_chunks; k++) {
            if (p->chunks[k].phase + 1 > last)
                last = p->chunks[k].phase + 1;
            if (map_local(p, p->chunks[k].phase) + 1 > local)
                local = map_local(p, p->chunks[k].phase) + 1;
        }
        for (uint32_t i = 0; i < p->n_xfers; i++) { /* sends off chip after their writers */
            if (p->xfers[i].kind != XF_OUT)
                continue;
            int32_t ph = map_out_phase(p, &p->xfers[i]);
            if (ph + 1 > last)
                last = ph + 1;
            if (map_local(p, ph) + 1 > local)
                local = map_local(p, ph) + 1;
        }
        uint32_t stages = 0;
        for (uint32_t v = 0; v < p->n_vcores; v++)
            if ((uint32_t)p->vcores[v].stage + 1 > stages)
                stages = (uint32_t)p->vcores[v].stage + 1;
        p->n_global_phases = last;
        p->n_stages = stages ? stages : 1;
        p->n_phases = local ? local : 1;
    }
    free(s.scratch);
    free(s.xl);
    free(s.xkey);
    free(s.dry);
    free(s.fresh);
    free(s.ntasks);
    free(s.cand);
    free(s.cand_bytes);
    if (st == ST_OK && s.clash.oom)
        st = oom(d); /* a chain check ran out of memory (xfer_chain.c) */
    map_clash_finish(&s.clash);
    map_heads_finish(&s.heads);
    *delayed = s.delayed;
    how->capped = s.capped && st == ST_LOGIC;
    return st;
}

/* What a schedule pass changes in the plan (the rest it only reads). */
typedef struct SchedState {
    MTask *tasks;
    MCluster *clusters;
    MXfer *xfers;
    VCore *vcores;
    uint32_t n_vcores, cap_vcores;
    MChunk *chunks;
    uint32_t n_chunks, cap_chunks;
    int32_t n_global_phases;
    uint32_t n_stages, n_phases;
} SchedState;

static void *dup_array(const void *a, size_t n, size_t size)
{
    void *c = malloc(n ? n * size : 1);
    if (c && n)
        memcpy(c, a, n * size);
    return c;
}

/* Moves p's schedule state into *out and gives p a fresh copy of tasks, clusters and
 * transfers from *init (no vcores, no chunks); false when out of memory (p unchanged). */
static bool swap_out(MapPlan *p, const SchedState *init, SchedState *out)
{
    MTask *t = dup_array(init->tasks, p->n_tasks, sizeof *t);
    MCluster *c = dup_array(init->clusters, p->n_clusters, sizeof *c);
    MXfer *x = dup_array(init->xfers, p->n_xfers, sizeof *x);
    if (!t || !c || !x) {
        free(t);
        free(c);
        free(x);
        return false;
    }
    *out = (SchedState){p->tasks, p->clusters, p->xfers, p->vcores, p->n_vcores, p->cap_vcores,
                        p->chunks, p->n_chunks, p->cap_chunks, p->n_global_phases,
                        p->n_stages, p->n_phases};
    p->tasks = t;
    p->clusters = c;
    p->xfers = x;
    p->vcores = NULL;
    p->n_vcores = p->cap_vcores = 0;
    p->chunks = NULL;
    p->n_chunks = p->cap_chunks = 0;
    return true;
}

static void state_free(SchedState *s)
{
    for (uint32_t v = 0; v < s->n_vcores; v++) {
        free(s->vcores[v].slots);
        free(s->vcores[v].recv);
    }
    free(s->vcores);
    free(s->chunks);
    free(s->tasks);
    free(s->clusters);
    free(s->xfers);
}

/* Puts state s back into p (p's own freed). */
static void swap_in(MapPlan *p, SchedState *s)
{
    SchedState mine = {p->tasks, p->clusters, p->xfers, p->vcores, p->n_vcores, p->cap_vcores,
                       p->chunks, p->n_chunks, p->cap_chunks, 0, 0, 0};
    state_free(&mine);
    p->tasks = s->tasks;
    p->clusters = s->clusters;
    p->xfers = s->xfers;
    p->vcores = s->vcores;
    p->n_vcores = s->n_vcores;
    p->cap_vcores = s->cap_vcores;
    p->chunks = s->chunks;
    p->n_chunks = s->n_chunks;
    p->cap_chunks = s->cap_chunks;
    p->n_global_phases = s->n_global_phases;
    p->n_stages = s->n_stages;
    p->n_phases = s->n_phases;
}

/* The schedule keeps the inserted P06s' slots even where that makes blocks later, unless that
 * costs stages or fails (map.phases): when it made anything later, the schedule that keeps
 * them only where they are free anyway is made too, and wins when it has fewer stages
 * (ResNet-50: 12 against 13) or the first failed. how: as each pass is made; how->capped
 * when the result failed where a pass stopped at the cap (a second pass that stops there
 * after a first that did not has more stages: the first is kept, as without a cap). */
static Status schedule_both(MapPlan *p, const SchedState *init, How *how, Diag *d)
{
    Diag d1;
    diag_init(&d1, NULL);
    bool delayed = false, again = false, capped = false;
    Status st = ST_OK;
    Status st1 = schedule_pass(p, true, how, &delayed, &d1);
    capped = how->capped;
    if (st1 == ST_RUNTIME && st == ST_OK)
        st = oom(d);
    if (st == ST_OK && (st1 != ST_OK || delayed)) {
        SchedState first = {0};
        if (!swap_out(p, init, &first))
            st = oom(d);
        if (st == ST_OK)
            st = schedule_pass(p, false, how, &again, d);
        capped = capped || how->capped;
        if (st1 == ST_OK && ((st == ST_LOGIC && how->capped) ||
                             (st == ST_OK && p->n_stages >= first.n_stages))) {
            swap_in(p, &first); /* the first pass costs no stage: keep it */
            st = ST_OK;
        } else {
            state_free(&first);
        }
    }
    diag_finish(&d1);
    how->capped = capped && st == ST_LOGIC;
    return st;
}

/* Replaces p's schedule state with a fresh one from init; false when out of memory. */
static bool start_again(MapPlan *p, const SchedState *init)
{
    SchedState old = {0};
    if (!swap_out(p, init, &old))
        return false;
    state_free(&old);
    return true;
}

/* The schedule when the one keeping relaying chains whole in one stage failed (capped: where
 * it needed a second): without the chain rule; when that takes several stages too, or fails,
 * and the first stopped only at the cap, with the chain rule in full too, which wins unless
 * it takes more stages (or fails). */
static Status several_stages(MapPlan *p, const SchedState *init, bool capped, Diag *d)
{
    How free = {false, 0, false}, all = {true, 0, false};
    if (!start_again(p, init))
        return oom(d);
    if (!capped)
        return schedule_both(p, init, &free, d); /* the chain rule's fails: without it */
    Diag dn, dc;
    diag_init(&dn, NULL);
    Status sn = schedule_both(p, init, &free, &dn);
    diag_finish(&dn);
    if (sn == ST_RUNTIME)
        return oom(d);
    if (sn == ST_OK && p->n_stages <= 1)
        return ST_OK;
    SchedState loose = {0};
    if (!swap_out(p, init, &loose))
        return oom(d);
    diag_init(&dc, NULL);
    Status sc = schedule_both(p, init, &all, &dc);
    diag_finish(&dc);
    if (sc == ST_OK && !(sn == ST_OK && loose.n_stages < p->n_stages)) {
        state_free(&loose);
        return ST_OK;
    }
    if (sc == ST_RUNTIME) {
        state_free(&loose);
        return oom(d);
    }
    if (sn == ST_OK) {
        swap_in(p, &loose);
        return ST_OK;
    }
    state_free(&loose); /* both fail: without the chain rule again, for its messages */
    return start_again(p, init) ? schedule_both(p, init, &free, d) : oom(d);
}

/* The schedule (schedule_both) keeping relaying chains whole; when that fails on a logic
 * rule (a stage's phases run out: the chain rule only makes transfers later), made again
 * without the chain rule, the code generator then refusing the runs it cannot chain
 * (emit.route) rather than the mapping failing. When it takes more than one stage, it is
 * made without the chain rule too, which wins when it takes fewer: a transfer the rule
 * keeps out of a phase makes its reader a phase later, and its readers' readers, so that a
 * few such in a layer spread through the layers after it (bench/map's synthetic graph: 4
 * blocks of the second layer a phase late, 24 of the third, ..., 32 phases and a second
 * stage where 20 phases and one stage hold it without the rule, on 587 cores for 512). A
 * stage is a whole set of cores more; the runs the rule would have chained, the code
 * generator refuses (emit.route) instead. The schedule with the rule is made first in one
 * stage at most: most graphs fit one, and the synthetic graph's stops half way
 * (several_stages). */
Status map_schedule(MapPlan *p, Diag *d)
{
    if (p->n_vcores || p->n_chunks)
        return diag_add(d, ST_RUNTIME, "map.internal", NULL, "scheduled twice");
    SchedState init = {.tasks = dup_array(p->tasks, p->n_tasks, sizeof *p->tasks),
                       .clusters = dup_array(p->clusters, p->n_clusters, sizeof *p->clusters),
                       .xfers = dup_array(p->xfers, p->n_xfers, sizeof *p->xfers)};
    Status st = init.tasks && init.clusters && init.xfers ? ST_OK : oom(d);
    if (st == ST_OK) {
        Diag dc;
        diag_init(&dc, NULL);
        How one = {true, 1, false};
        st = schedule_both(p, &init, &one, &dc);
        if (st == ST_LOGIC)
            st = several_stages(p, &init, one.capped, d);
        else if (st != ST_OK)
            st = oom(d);
        diag_finish(&dc);
    }
    free(init.tasks);
    free(init.clusters);
    free(init.xfers);
    return st;
}
