/* plan.h: the mapper's working structures (internal to mapper/): the problem problem.c
 * builds from a graph, and what schedule.c, place.c, route.c and estimate.c fill in.
 *
 * Time inside a step is counted in slots: time = phase * MS_PER_PHASE + slot, with the slots
 * of a phase in the chip's order Axon, Soma1, Router, Soma2 (CHIP.md §2). Phases are global
 * while scheduling (0, 1, 2, ... without bound); stage k is phases [k*M, (k+1)*M) for
 * M = chip max_phases and runs as its own phase group, pipelined with the others, so a
 * core's local phase is the global phase mod M.
 */
#ifndef TASKIR_MAPPER_PLAN_H
#define TASKIR_MAPPER_PLAN_H

#include "mapper/mapper.h"
#include "taskir/blockbox.h"
#include "taskir/chip_cost.h"
#include "taskir/uses.h"

enum { MS_AXON, MS_SOMA1, MS_ROUTER, MS_SOMA2, MS_PER_PHASE };

#define MAP_NONE UINT32_MAX
/* The most transfers map_xfer_group's table keeps for one (schedule.c asks for as many). */
#define MAP_GROUP_MAX 32

/* One compute block. */
typedef struct MTask {
    uint32_t pos;             /* position in g->blocks */
    const ChipPrim *prim;
    int64_t clocks;           /* chip_block_clocks */
    uint32_t cluster;
    int64_t out_bytes;        /* its output buffer (chip_buffer_held) */
    int64_t work_bytes;       /* the area a CADD adding one box to itself reads (the box n
                                 times) and an Axon's int32 area before a P06 narrows it
                                 into an 8-bit map (layout_work_bytes), in its phase */
    uint32_t remote_out;      /* transfers it writes into storage of other cores (or not yet
                                 placed); at 0 its output buffer is that storage itself */
    int32_t phase;            /* global phase (schedule.c) */
    int slot;                 /* MS_AXON, MS_SOMA1 or MS_SOMA2 */
    bool widens;              /* a Soma block writing storage of a wider precision than its
                                 own: its router sends from a send area a P06 rewrites its
                                 result into after it (backend/emit_sendbuf.c), so in Soma1
                                 it keeps Soma2 of its phase for that P06 and sends from the
                                 next phase (map_send_phase) */
    bool lanes_area;          /* a Soma block whose single values moved as bytes into copies
                                 of fewer words a pixel take more headers together
                                 (lanes_heads) than a router holds and go alike to several
                                 blocks (problem.c lanes_area): its router sends them from a
                                 send area in the copies' pitch a P06 writes after it
                                 (backend/emit_lanearea.c), so in Soma1 it keeps Soma2 of its
                                 phase and sends from the next phase, as one that widens */
} MTask;

/* A box of a block in its eight shape dims: [lo, hi) per dim (taskir/blockbox.h: the
 * verifier counts the parts of blocks with the same functions). */
typedef BlockBox MBox;

/* What an edge carries between cores. */
typedef enum {
    XF_CORE,                  /* compute block -> storage block: the router when they differ */
    XF_IN,                    /* INPUT -> storage: received from off chip */
    XF_OUT                    /* storage -> OUTPUT: sent off chip */
} XferKind;

/* Bytes received in one phase. */
typedef struct MChunk {
    int32_t phase;            /* global phase */
    int64_t bytes;
} MChunk;

typedef struct MXfer {
    uint32_t edge;            /* position in g->edges */
    XferKind kind;
    uint32_t src_task;        /* XF_CORE: the producing task */
    uint32_t store;           /* position of the storage block (destination; XF_OUT: source) */
    uint32_t dst_cluster;     /* the cluster holding the copy it fills (XF_OUT: the home) */
    int64_t bytes;            /* real bytes: the interface's volume x the element size */
    bool cross;               /* XF_CORE between two cores (schedule.c) */
    uint32_t chunk0, n_chunks;/* its receive phases in MapPlan.chunks (cross only) */
    uint32_t relay;           /* route.c: the xfer whose destination forwards it, or MAP_NONE
                                 (sent by the source's core) */
    int64_t hops;             /* route.c: XY hops from the sending core */
    bool planned;             /* schedule.c: its receive phases are fixed */
    int64_t ready;            /* schedule.c: the time (in slots) its data is in place */
    int32_t own_next;         /* schedule.c: from a block on the copy's core through its
                                 own router: the first phase its bytes are not yet counted
                                 in that core's receive budget in (0: none counted) */
    int64_t held;             /* schedule.c: 1 + the time of the Soma slot kept for the P06
                                 gathering it out of the receive area (gather_wait.h), 0:
                                 none */
} MXfer;

/* Blocks that must share a core. */
typedef struct MCluster {
    int64_t mem_weight;       /* SW, SW2D, SWFC, SB and other storage holding its own data */
    int64_t mem_data;         /* other storage, and the compute blocks' output buffers */
    uint32_t vcore;           /* schedule.c */
    uint32_t first_block;     /* position of its first block (for messages) */
} MCluster;

/* A core as the schedule sees it, before it has a place. */
typedef struct VCore {
    int64_t mem_weight, mem_data;
    int32_t stage;            /* its phase group */
    uint8_t *slots;           /* per phase of its stage: bit s = slot s is taken */
    int64_t *recv;            /* per local phase: bytes received */
    uint32_t core;            /* place.c: index in the global grid (y * grid_w + x) */
} VCore;

/* Per core and local phase figures (estimate.c). */
typedef struct MPhase {
    int64_t clk_axon, clk_soma1, clk_soma2, clk_router;
    int64_t sent, received;
    uint32_t axon, soma1, soma2;  /* the tasks in those slots, MAP_NONE when free */
} MPhase;

/* Traffic between two virtual cores (the graph Scotch and the refinement see). */
typedef struct VEdge {
    uint32_t a, b;
    int64_t bytes;
} VEdge;

struct MapPlan {
    const Graph *g;
    const Chip *chip;
    MapperOptions opt;
    GraphUses uses;
    bool has_uses;
    /* problem.c */
    MTask *tasks;
    uint32_t n_tasks;
    uint32_t *task_of;        /* per block position: its task or MAP_NONE */
    uint32_t *cluster_of;     /* per block position: its cluster or MAP_NONE (sockets) */
    MCluster *clusters;
    uint32_t n_clusters;
    MXfer *xfers;
    uint32_t n_xfers;
    uint32_t *xfer_of;        /* per edge position: its first xfer or MAP_NONE; an edge into a
                                 storage block with k copies has k, one per copy in rep order */
    int32_t *lanes_n;         /* per edge position: the router phases its bytes take
                                 (taskir/lanes.h lanes_phases; 1 for an edge sent whole) */
    int64_t *lanes_heads;     /* per edge position: the router headers its moves take
                                 (taskir/lanes.h lanes_heads; 0: none counted) */
    bool *lanes_byte;         /* per edge position: taskir/lanes.h lanes_bytes (its bytes go
                                 as runs of 1-byte packets), asked once (xfer_clash.c asks
                                 it for every pair of transfers it weighs) */
    uint32_t *reps;           /* the clusters holding a copy of a storage block: */
    MBox *rep_box;     /* per entry of reps: the part of the block that copy holds */
    int64_t *rep_bytes;       /* per entry of reps: that part's bytes as the chip lays it out */
    uint32_t *rep_first;      /* per block position: its first entry in reps (home first) */
    uint32_t *rep_n;          /* per block position: how many (0 for non-storage) */
    uint32_t *order;          /* tasks in topological order */
    uint32_t *group_start;    /* n_xfers + 1: transfer xi's group (map_xfer_group) is */
    uint32_t *group;          /* group[group_start[xi] .. group_start[xi + 1]) (xfer_group.c) */
    /* schedule.c */
    VCore *vcores;
    uint32_t n_vcores, cap_vcores;
    MChunk *chunks;
    uint32_t n_chunks, cap_chunks;
    int32_t n_global_phases;  /* 1 + the last global phase used */
    uint32_t n_stages;
    uint32_t n_phases;        /* local phases of a step: min(M, n_global_phases) */
    /* place.c */
    uint32_t grid_w, grid_h;  /* the global core grid: chips side by side */
    uint32_t chips_x, chips_y;/* chips in the array used */
    VEdge *vedges;
    uint32_t n_vedges;
    int64_t traffic_scotch;   /* unicast traffic after Scotch, before refinement */
    int64_t traffic_scotch_mc;/* the same with multicast chains (map_route_where) */
    /* route.c: the multicast sets (map_route_sets), independent of the placement */
    uint32_t *mc_xfer;        /* the cross transfers, set by set, each set in route order */
    uint32_t *mc_start;       /* n_mc + 1: set s is mc_xfer[mc_start[s] .. mc_start[s + 1]) */
    int64_t *mc_lo, *mc_hi;   /* per entry: the global phases its copy may forward in */
    uint32_t n_mc, mc_max;    /* sets, and the size of the largest */
    /* estimate.c */
    MPhase *phase;            /* n_vcores x n_phases */
    MapCost cost;
};

/* prim.c: the primitive of every compute block, checked [map.prim.*]. Fills p->tasks. */
Status map_select_prims(MapPlan *p, Diag *d);
/* problem.c: clusters, memory, transfers, order (after map_select_prims). */
Status map_build_problem(MapPlan *p, Diag *d);
/* problem.c: is storage block b static data (weights, biases, tables, or data nothing
 * writes), resident for the whole step? */
bool map_is_static(const Block *b, const BlockUses *bu);
/* problem.c: the index (among its copies) of storage block pos's copy in cluster (0, its
 * home, when it has none there). */
uint32_t map_rep_of(const MapPlan *p, uint32_t pos, uint32_t cluster);
/* problem.c: calls fn(xfer, arg) for every transfer (any kind) into the copy in t's cluster
 * of a storage block that task t reads (once, however many edges read it), in edge order; stops at the first non-zero fn returns and returns it. */
int map_each_in_xfer(const MapPlan *p, uint32_t t, int (*fn)(uint32_t xfer, void *arg),
                     void *arg);
/* route.c: whether transfers a and b carry the same box of the same block's output (a
 * multicast set: one may relay the other). */
bool map_xfer_same_box(const MapPlan *p, const MXfer *a, const MXfer *b);
/* schedule.c */
Status map_schedule(MapPlan *p, Diag *d);
/* xfer_group.c: the transfers into the copy transfer xi fills that bring the same pixels of
 * it as xi, each some of its channels (dim F or R), together all of them, one after another:
 * into out (room for room) in the order of their channels, xi among them; their count, 0
 * when xi brings all the copy's channels or the others do not tile the rest. Or two
 * column slices (dim X) of the same rows of a copy of several rows that no other core
 * holds. */
uint32_t map_xfer_group(const MapPlan *p, uint32_t xi, uint32_t *out, uint32_t room);
/* xfer_group.c: map_xfer_group's answers for room MAP_GROUP_MAX, every transfer's, into
 * MapPlan.group_start and group (the schedule asks them again and again; transfers, copies
 * and boxes keep still from map_build_problem on); map_xfer_group then looks them up for
 * any room up to MAP_GROUP_MAX. ST_RUNTIME when out of memory. */
Status map_xfer_groups(MapPlan *p);
/* merge.c: joins virtual cores of one stage whose phases, receive budgets and memory in
 * every phase (storage lifetimes) leave room for both, whose routers' sends can go as one
 * (merge_router.h), and which exchange no bytes. */
Status map_merge_cores(MapPlan *p, Diag *d);
/* lifetime.c: the local [first, last] phases storage block pos is live in on vcore v (its
 * copies there: what arrives into them or is written, what reads them there, what is sent
 * off chip from there); the whole step for static data or a span that wraps past the
 * stage. v MAP_NONE: on every core together. */
void map_lifetime(const MapPlan *p, uint32_t pos, uint32_t v, uint32_t *first, uint32_t *last);
/* lifetime.c: the same life as global phases [*lo, *hi]; false when it is the whole step
 * (static data, no event, or a span that wraps past the stage). */
bool map_lifetime_span(const MapPlan *p, uint32_t pos, uint32_t v, int64_t *lo, int64_t *hi);
/* lifetime.c: per task, the last global phase a cross transfer from it is sent in (its
 * last receive chunk; the task's phase when none): n_tasks entries to free, NULL when out of
 * memory. */
int32_t *map_last_sends(const MapPlan *p);
/* lifetime.c: the local [first, last] phases task t's output buffer lives in: from its phase
 * to send (its last send, map_last_sends), the code generator's buffer (backend/emit_plan.c
 * make_outs); the whole step when that span wraps past the stage. */
void map_buffer_life(const MapPlan *p, uint32_t t, int32_t send, uint32_t *first,
                     uint32_t *last);
/* place.c: Scotch's placement of the virtual cores as they are now into where[] (n_vcores
 * entries), a sketch for merge.c; leaves no traffic graph behind. */
Status map_place_sketch(MapPlan *p, uint32_t *where, Diag *d);
/* grid.c: the traffic graph into p->vedges (replacing it): every cross transfer from its
 * source's virtual core, or from its relay's (relay[x] per transfer, route.c) when given. */
Status map_build_vedges(MapPlan *p, const uint32_t *relay, Diag *d);
/* place_chain.c: refines where[] under the multicast chains' traffic (map_route_where), with
 * this many annealing moves in each refinement. */
Status map_refine_chains(MapPlan *p, uint32_t *where, uint64_t moves, Diag *d);
/* place.c: the traffic graph between virtual cores, then the placement opt.place asks for. */
Status map_place(MapPlan *p, Diag *d);
/* grid.c: the grid coordinates of core index k. */
void map_core_xy(const MapPlan *p, uint32_t k, uint32_t *x, uint32_t *y);
/* grid.c: XY hops between two core indices. */
int64_t map_hops(const MapPlan *p, uint32_t a, uint32_t b);
/* grid.c: unicast traffic (bytes x hops) of the virtual cores placed at where[v]. */
int64_t map_vedge_traffic(const MapPlan *p, const uint32_t *where);
/* place.c: Scotch's placement into where[] (n_vcores entries), collisions resolved; with
 * Scotch's default strategy when imbalance < 0 (the baseline), else with a mapping strategy
 * that lets a mesh vertex take that share more than its load (the refinement's start). */
Status map_place_scotch(const MapPlan *p, uint64_t seed, double imbalance, uint32_t *where,
                        Diag *d);
/* place.c: the chip array (chips_x x chips_y) that holds n cores: the description's array,
 * grown by a column or a row of chips on its narrower side while it is too small. */
void map_grid_chips(const Chip *c, uint64_t n, uint32_t *chips_x, uint32_t *chips_y);
/* place.c: snake-order placement into where[]. */
void map_place_snake(const MapPlan *p, uint32_t *where);
/* refine.c: the annealing moves of effort opt.effort. */
uint64_t map_refine_moves(const MapPlan *p);
/* refine.c: swaps and moves under bytes x hops over p->vedges, in place: iters annealing
 * moves from a temperature of heat x the mean cost of an edge, then descent sweeps. */
Status map_refine(MapPlan *p, uint32_t *where, uint64_t iters, double heat, Diag *d);
/* route.c: the multicast sets of the cross transfers (after map_merge_cores). */
Status map_route_sets(MapPlan *p, Diag *d);
/* route.c: routes every multicast set with the virtual cores placed at where[v]: returns the
 * traffic (bytes x hops, chains link by link), -1 when out of memory; relay[x] and hops[x]
 * per cross transfer x when not NULL (n_xfers entries). */
int64_t map_route_where(const MapPlan *p, const uint32_t *where, uint32_t *relay, int64_t *hops);
/* route.c: relays and hops of every cross transfer (map_route_fit after it). */
Status map_route(MapPlan *p, Diag *d);
/* route.c: whether x's bytes arrive in the phases y's do, as many in each (y may forward
 * each part as it lands). */
bool map_xfer_same_chunks(const MapPlan *p, const MXfer *y, const MXfer *x);
/* route_fit.c: drops the relays from a copy that leave a local phase with runs no relaying
 * chains carry (their writers send instead), hops updated; ST_RUNTIME when out of memory. */
Status map_route_fit(MapPlan *p, Diag *d);
/* estimate.c: per core and phase figures, the cost terms. */
Status map_estimate(MapPlan *p, Diag *d);
/* The phase task a's router sends its result in: its phase; the next after a Soma2 (which
 * runs after the router) or after a Soma1 that widens (MTask.widens) or sends its bytes
 * from a lanes area (MTask.lanes_area). */
int32_t map_send_phase(const MTask *a);
/* estimate.c: the global phase an XF_OUT transfer leaves its core in (after its writers). */
int32_t map_out_phase(const MapPlan *p, const MXfer *x);
/* The last phase of the router sending the bytes of the edge at position e (global phase
 * `send` its first): for an edge moved as bytes, or as runs a writer sends to several places,
 * whose headers take several phases (taskir/lanes.h: lanes_bytes, lanes_pixel_runs,
 * lanes_phases; MapPlan.lanes_n), the last of them when it lies in send's stage, else (and
 * for any other edge) send: the code generator sends on in the next phases
 * (backend/emit_route_spill.c) or refuses. */
int32_t map_lanes_last(const MapPlan *p, uint32_t e, int32_t send);
/* estimate.c: the vcore whose router sends a cross transfer (its relay's, or its source's). */
uint32_t map_xfer_sender(const MapPlan *p, const MXfer *x);
/* estimate.c: the bytes of vcore v in each bank of the chip (out[b] for banks[b]). */
void map_banks(const MapPlan *p, uint32_t v, int64_t out[8]);

/* The vcore holding the storage block's home copy / a task / the copy a transfer fills. */
static inline uint32_t map_store_vcore(const MapPlan *p, uint32_t pos)
{
    return p->clusters[p->cluster_of[pos]].vcore;
}
static inline uint32_t map_task_vcore(const MapPlan *p, uint32_t t)
{
    return p->clusters[p->tasks[t].cluster].vcore;
}
static inline uint32_t map_xfer_vcore(const MapPlan *p, const MXfer *x)
{
    return p->clusters[x->dst_cluster].vcore;
}
/* The local phase of a global phase. */
static inline uint32_t map_local(const MapPlan *p, int32_t global)
{
    return (uint32_t)global % p->chip->max_phases;
}
/* The slot's PIIndex wire value. */
int32_t map_slot_pi(int slot);

#endif
