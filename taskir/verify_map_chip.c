/* verify_map_chip.c: the rules of a Mapping that need the chip description (verify_map_chip.h,
 * docs/rules.md "Mappings on a chip").
 *
 *   map.core.range     a coordinate names a core the chip does not have
 *   map.phases.limit   a coordinate's phase or end_phase is past the chip's phases a step
 *   map.phases.groups  a phase group or step group the chip does not have
 *   map.core.group     one core in two phase groups (or step groups)
 *   map.mem.core       a core holds more than its budget in some phase
 *   map.recv.dest      a receiving core gets more of one edge than one destination may take
 *                      in the edge's receive phases
 *   map.recv.phase     a core's receives cannot be spread over their phases within the
 *                      receive area a phase
 *
 * Memory of a core in a phase: every storage block with a coordinate on the core whose
 * [phase, end_phase] covers the phase, counted once however many coordinates say so, as
 * bbox_storage_bytes lays it out (layout.h), scaled to the part the core holds (the
 * bounding box of what its readers on the core read; the whole block when none reads it there:
 * blockbox.h); plus, in its phase, the part of each compute block's output buffer
 * (chip_buffer_held, chip_cost.h) that its output storage on other cores takes (the
 * interfaces of its output clusters whose storage its core does not hold: what it writes is
 * staged there for the router; what lands in storage of its own core is that storage), and
 * the area a CADD that adds one box to itself reads (the box n times), the int32 area an Axon writing an
 * 8-bit map writes before a P06 narrows it and the send areas of a result written into
 * storage of another precision (layout_work_bytes). The mapper
 * counts no less.
 *
 * Receives: per edge and receiving core (a ROUTER_RECIEVE coordinate on a core that holds a
 * copy of the edge's destination storage), the bytes the part of the edge's interface box
 * that the copy holds takes in the copy's layout (channels padded as its reader reads them:
 * bbox_edge_layout_bytes); the Mapping does not say how many of them arrive in which of the edge's
 * receive phases, so the rule asks whether ANY split fits: a maximum flow from the edges
 * through their phases (at most dest_bytes_per_phase an edge and phase) to the phases (at
 * most recv_bytes_per_phase each) must carry every byte. Off-chip input (from INPUT sockets)
 * arrives before the step and is not counted. */
#include "taskir/verify_map_chip.h"

#include "taskir/blockbox.h"
#include "taskir/chip_cost.h"
#include "taskir/diag_block.h"
#include "taskir/layout.h"
#include "taskir/uses.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_PHASES_CHECKED = 4096 };  /* per-phase arrays: a chip with more is refused earlier */

/* A core in one step: chip_array x y, chip x y, core x y, step. */
typedef struct CoreKey {
    int32_t v[7];
} CoreKey;

static CoreKey key_of(const MapCoord *c)
{
    CoreKey k = {{c->chip_array.x, c->chip_array.y, c->chip.x, c->chip.y, c->core.x,
                  c->core.y, c->step}};
    return k;
}

static int key_cmp(const CoreKey *a, const CoreKey *b)
{
    for (int i = 0; i < 7; i++)
        if (a->v[i] != b->v[i])
            return a->v[i] < b->v[i] ? -1 : 1;
    return 0;
}

static bool same_place(const CoreKey *a, const CoreKey *b)
{
    for (int i = 0; i < 6; i++)
        if (a->v[i] != b->v[i])
            return false;
    return true;
}

static void core_text(const CoreKey *k, char *buf, size_t len)
{
    snprintf(buf, len,
             "chip_array %" PRId32 ",%" PRId32 " chip %" PRId32 ",%" PRId32 " core %" PRId32
             ",%" PRId32 " step %" PRId32,
             k->v[0], k->v[1], k->v[2], k->v[3], k->v[4], k->v[5], k->v[6]);
}

static BlockKind kind_of(const Block *b)
{
    return (unsigned)b->type < BT_COUNT ? bt_info(b->type)->kind : BK_NULL;
}

static int32_t end_of(const MapCoord *c)
{
    return c->has_end_phase && c->end_phase > c->phase ? c->end_phase : c->phase;
}

typedef struct Checker {
    const Mapping *m;
    const Graph *g;
    const Chip *chip;
    const uint32_t *first;
    GraphUses u;
    Diag *d;
    size_t *found;
    uint32_t phases;            /* phases checked per core: min(max_phases, cap) */
} Checker;

/* ---- coordinates against the chip ---- */

static void coord_rules(Checker *k, const Block *b, bool edge, int32_t edge_id, uint32_t di,
                        uint32_t ci, const MapCoord *c)
{
    const Chip *chip = k->chip;
    const char *list = edge ? "edge_map_dicts" : "node_map_dicts";
    char where[64];
    snprintf(where, sizeof where, "%s[%" PRIu32 "] coordinate %" PRIu32, list, di, ci);
#define REPORT(rule, ...)                                                                  \
    do {                                                                                   \
        if (b)                                                                             \
            diag_block(k->d, ST_LOGIC, rule, b, __VA_ARGS__);                              \
        else                                                                               \
            diag_edge(k->d, ST_LOGIC, rule, edge_id, __VA_ARGS__);                         \
        ++*k->found;                                                                       \
    } while (0)
    if ((uint32_t)c->core.x >= chip->cores_x || (uint32_t)c->core.y >= chip->cores_y)
        REPORT("map.core.range",
               "%s: core %" PRId32 ",%" PRId32 " is not a core of chip '%s' (%" PRIu32
               " x %" PRIu32 " cores)",
               where, c->core.x, c->core.y, chip->name, chip->cores_x, chip->cores_y);
    if ((uint32_t)c->phase >= chip->max_phases || (uint32_t)end_of(c) >= chip->max_phases)
        REPORT("map.phases.limit",
               "%s: phase %" PRId32 "..%" PRId32 " is past the %" PRIu32
               " phases of a step on chip '%s' (phases 0..%" PRIu32 ")",
               where, c->phase, end_of(c), chip->max_phases, chip->name, chip->max_phases - 1);
    if ((uint32_t)c->phase_group >= chip->max_phase_groups)
        REPORT("map.phases.groups",
               "%s: phase group %" PRId32 ", but chip '%s' has %" PRIu32 " phase groups (0..%" PRIu32
               ")",
               where, c->phase_group, chip->name, chip->max_phase_groups,
               chip->max_phase_groups - 1);
    if ((uint32_t)c->step_group >= chip->max_step_groups)
        REPORT("map.phases.groups",
               "%s: step group %" PRId32 ", but chip '%s' has %" PRIu32 " step groups (0..%" PRIu32
               ")",
               where, c->step_group, chip->name, chip->max_step_groups,
               chip->max_step_groups - 1);
#undef REPORT
}

/* Negative fields are map.coord.range's; the chip rules look at the others only. */
static bool non_negative(const MapCoord *c)
{
    return c->chip_array.x >= 0 && c->chip_array.y >= 0 && c->chip.x >= 0 && c->chip.y >= 0 &&
           c->core.x >= 0 && c->core.y >= 0 && c->step_group >= 0 && c->phase_group >= 0 &&
           c->step >= 0 && c->phase >= 0 && (!c->has_end_phase || c->end_phase >= 0);
}

/* ---- one core, one phase group ---- */

typedef struct GroupUse {
    CoreKey key;
    int32_t phase_group, step_group;
    uint32_t dict;               /* where it was seen: node (edge false) or edge dict */
    bool edge;
    int32_t task;
} GroupUse;

static int group_use_cmp(const void *a, const void *b)
{
    const GroupUse *x = a, *y = b;
    int r = key_cmp(&x->key, &y->key);
    if (r)
        return r;
    if (x->edge != y->edge)
        return x->edge ? 1 : -1;
    return x->dict < y->dict ? -1 : x->dict > y->dict;
}

static Status core_groups(Checker *k)
{
    const Mapping *m = k->m;
    size_t n = 0;
    for (uint32_t i = 0; i < m->n_nodes; i++)
        n += m->nodes[i].n_coords;
    for (uint32_t i = 0; i < m->n_edges; i++)
        n += m->edges[i].n_coords;
    GroupUse *u = n <= SIZE_MAX / sizeof *u ? malloc((n ? n : 1) * sizeof *u) : NULL;
    if (!u)
        return ST_RUNTIME;
    size_t j = 0;
    for (int edge = 0; edge < 2; edge++) {
        const MapDict *ds = edge ? m->edges : m->nodes;
        uint32_t nd = edge ? m->n_edges : m->n_nodes;
        for (uint32_t i = 0; i < nd; i++)
            for (uint32_t c = 0; c < ds[i].n_coords; c++) {
                const MapCoord *mc = &ds[i].coords[c];
                if (!non_negative(mc))
                    continue;
                GroupUse g = {key_of(mc), mc->phase_group, mc->step_group, i, edge != 0,
                              ds[i].task_id};
                g.key.v[6] = 0; /* a core's group holds for every step */
                u[j++] = g;
            }
    }
    qsort(u, j, sizeof *u, group_use_cmp);
    for (size_t a = 0; a < j;) {
        size_t b = a + 1;
        while (b < j && !key_cmp(&u[a].key, &u[b].key))
            b++;
        for (size_t x = a + 1; x < b; x++) {
            if (u[x].phase_group == u[a].phase_group && u[x].step_group == u[a].step_group)
                continue;
            char core[160];
            core_text(&u[a].key, core, sizeof core);
            *strrchr(core, ' ') = '\0'; /* no step */
            *strrchr(core, ' ') = '\0';
            const char *list = u[x].edge ? "edge_map_dicts" : "node_map_dicts";
            const char *list0 = u[a].edge ? "edge_map_dicts" : "node_map_dicts";
            diag_add(k->d, ST_LOGIC, "map.core.group", NULL,
                     "%s[%" PRIu32 "] puts %s in phase group %" PRId32 " of step group %" PRId32
                     ", %s[%" PRIu32 "] in phase group %" PRId32 " of step group %" PRId32
                     ": a core belongs to one phase group",
                     list, u[x].dict, core, u[x].phase_group, u[x].step_group, list0, u[a].dict,
                     u[a].phase_group, u[a].step_group);
            ++*k->found;
            break; /* one report a core */
        }
        a = b;
    }
    free(u);
    return ST_OK;
}

/* ---- memory ---- */

typedef struct MemUse {
    CoreKey key;
    uint32_t pos;                /* the block's position */
    int32_t lo, hi;              /* phases */
    int64_t bytes;
    bool once;                   /* a storage copy: counted once a phase however many
                                    coordinates name it */
} MemUse;

static int mem_use_cmp(const void *a, const void *b)
{
    const MemUse *x = a, *y = b;
    int r = key_cmp(&x->key, &y->key);
    if (r)
        return r;
    if (x->pos != y->pos)
        return x->pos < y->pos ? -1 : 1;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The first coordinate of the block at pos (its first dict's), or NULL. */
static const MapCoord *first_coord(const Checker *k, uint32_t pos)
{
    if (!k->first[pos])
        return NULL;
    const MapDict *dict = &k->m->nodes[k->first[pos] - 1];
    return dict->n_coords ? &dict->coords[0] : NULL;
}

static bool placed_at(const Checker *k, uint32_t pos, const CoreKey *key)
{
    const MapCoord *c = first_coord(k, pos);
    if (!c)
        return false;
    CoreKey ck = key_of(c);
    return same_place(&ck, key);
}

/* Does the block at pos have a coordinate on the core of key? */
static bool held_at(const Checker *k, uint32_t pos, const CoreKey *key)
{
    if (!k->first[pos])
        return false;
    const MapDict *dict = &k->m->nodes[k->first[pos] - 1];
    for (uint32_t c = 0; c < dict->n_coords; c++) {
        CoreKey ck = key_of(&dict->coords[c]);
        if (same_place(&ck, key))
            return true;
    }
    return false;
}

/* The part of storage block pos that the core of key holds (blockbox.h). */
static void held_part(const Checker *k, uint32_t pos, const CoreKey *key, BlockBox *part)
{
    const Graph *g = k->g;
    const BlockUses *bu = &k->u.blocks[pos];
    bool empty = true;
    for (uint32_t e = 0; e < bu->n_out_edges; e++) {
        const Edge *ed = g->edges[bu->out_edges[e]];
        long t = graph_block_pos(g, ed->dst);
        if (t < 0 || kind_of(g->blocks[t]) != BK_COMPUTE || !placed_at(k, (uint32_t)t, key))
            continue;
        BlockBox rd;
        bbox_of_iface(g, &k->u, pos, false, ed->id, &rd);
        bbox_union(part, &rd, &empty);
    }
    if (empty)
        bbox_full(g->blocks[pos], part);
}

static int32_t clamp_phase(const Checker *k, int32_t p)
{
    return p < 0 ? 0 : (uint32_t)p >= k->phases ? (int32_t)k->phases - 1 : p;
}

/* The phases compute block pos's output buffer lives in on the core of key: from its phase
 * to the last ROUTER_SEND coordinate there of an edge it writes (edict: per edge position,
 * its dict's index + 1), the whole step when that wraps past the step's end (a send before
 * its phase: in the next step), as the code generator keeps it (backend/emit_plan.c). */
static void buffer_life(const Checker *k, const uint32_t *edict, uint32_t pos,
                        const CoreKey *key, int32_t phase, int32_t *lo, int32_t *hi)
{
    const BlockUses *bu = &k->u.blocks[pos];
    int32_t last = phase;
    bool wrap = false;
    for (uint32_t e = 0; e < bu->n_out_edges; e++) {
        uint32_t di = edict[bu->out_edges[e]];
        const MapDict *dict = di ? &k->m->edges[di - 1] : NULL;
        for (uint32_t c = 0; dict && c < dict->n_coords; c++) {
            const MapCoord *mc = &dict->coords[c];
            CoreKey ck = key_of(mc);
            if (!mc->has_pi_index || mc->pi_index != MAP_PI_ROUTER_SEND ||
                !non_negative(mc) || !same_place(&ck, key))
                continue;
            int32_t p = clamp_phase(k, mc->phase);
            wrap |= p < phase;
            last = p > last ? p : last;
        }
    }
    *lo = wrap ? 0 : phase;
    *hi = wrap ? (int32_t)k->phases - 1 : last;
}

/* The bytes of storage block pos (bbox_storage_bytes: the layout table's pitch). */
static int64_t storage_bytes(const Checker *k, uint32_t pos)
{
    return bbox_storage_bytes(k->chip, k->g, &k->u, pos);
}

static Status mem_collect(Checker *k, MemUse **out, size_t *n_out)
{
    const Graph *g = k->g;
    size_t n = 0;
    for (uint32_t i = 0; i < g->n_blocks; i++)
        if (k->first[i])
            n += k->m->nodes[k->first[i] - 1].n_coords;
    MemUse *mu = n <= SIZE_MAX / sizeof *mu - 1 ? malloc((n + 1) * 2 * sizeof *mu) : NULL;
    uint32_t *edict = calloc((size_t)g->n_edges + 1, sizeof *edict);
    if (!mu || !edict) {
        free(mu);
        free(edict);
        return ST_RUNTIME;
    }
    for (uint32_t i = 0; i < k->m->n_edges; i++) {
        long ep = graph_edge_pos(g, k->m->edges[i].task_id);
        if (ep >= 0 && !edict[ep])
            edict[ep] = i + 1;
    }
    size_t j = 0;
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        const Block *b = g->blocks[i];
        if (!k->first[i] || b->removed)
            continue;
        const MapDict *dict = &k->m->nodes[k->first[i] - 1];
        if (kind_of(b) == BK_STORAGE) {
            int64_t base = storage_bytes(k, i);
            if (base < 0)
                continue; /* map.mem.size is the mapper's; the graph rules cover sizes */
            BlockBox whole;
            bbox_full(b, &whole);
            for (uint32_t c = 0; c < dict->n_coords; c++) {
                const MapCoord *mc = &dict->coords[c];
                if (!non_negative(mc) || (mc->has_pi_index && mc->pi_index != MAP_PI_MEMORY))
                    continue;
                CoreKey key = key_of(mc);
                BlockBox part;
                held_part(k, i, &key, &part);
                mu[j++] = (MemUse){key, i, clamp_phase(k, mc->phase), clamp_phase(k, end_of(mc)),
                                   bbox_scale_bytes(base, &part, &whole), true};
            }
        } else if (kind_of(b) == BK_COMPUTE && dict->n_coords && non_negative(&dict->coords[0])) {
            const MapCoord *mc = &dict->coords[0];
            CoreKey key = key_of(mc);
            const BlockUses *bu = &k->u.blocks[i];
            BlockBox whole, part;
            bbox_full(b, &whole);
            double remote = 0, all = (double)bbox_volume(&whole);
            for (uint32_t e = 0; e < bu->n_out_edges; e++) {
                const Edge *ed = g->edges[bu->out_edges[e]];
                long t = graph_block_pos(g, ed->dst);
                if (t < 0 || kind_of(g->blocks[t]) != BK_STORAGE || held_at(k, (uint32_t)t, &key))
                    continue;
                bbox_of_iface(g, &k->u, i, false, ed->id, &part);
                remote += (double)bbox_volume(&part);
            }
            int64_t bytes = 0;
            if (remote > 0 && all > 0) { /* the staging part of the output buffer */
                int64_t out = chip_buffer_held(k->chip, g, &k->u, i, NULL);
                double x = remote >= all ? (double)out : (double)out * remote / all;
                bytes = out < 0 ? 0 : (int64_t)x + ((double)(int64_t)x < x);
            }
            int32_t ph = clamp_phase(k, mc->phase), lo, hi;
            buffer_life(k, edict, i, &key, ph, &lo, &hi);
            if (bytes > 0)
                mu[j++] = (MemUse){key, i, lo, hi, bytes, false};
            int64_t work = layout_work_bytes(g, &k->u, i); /* x + x, narrowing, send areas */
            if (work > 0)
                mu[j++] = (MemUse){key, i, ph, ph, work, false};
        }
    }
    free(edict);
    qsort(mu, j, sizeof *mu, mem_use_cmp);
    *out = mu;
    *n_out = j;
    return ST_OK;
}

static Status mem_rules(Checker *k)
{
    MemUse *mu = NULL;
    size_t n = 0;
    if (mem_collect(k, &mu, &n) != ST_OK)
        return ST_RUNTIME;
    int64_t *sum = calloc(k->phases, sizeof *sum);
    int64_t *last = malloc(k->phases * sizeof *last); /* the block last counted in a phase */
    if (!sum || !last) {
        free(mu), free(sum), free(last);
        return ST_RUNTIME;
    }
    const int64_t budget = k->chip->core_budget_bytes;
    for (size_t a = 0; a < n;) {
        size_t b = a + 1;
        while (b < n && !key_cmp(&mu[a].key, &mu[b].key))
            b++;
        memset(sum, 0, k->phases * sizeof *sum);
        for (uint32_t p = 0; p < k->phases; p++)
            last[p] = -1;
        for (size_t x = a; x < b; x++)
            for (int32_t p = mu[x].lo; p <= mu[x].hi; p++) {
                if (mu[x].once && last[p] == (int64_t)mu[x].pos)
                    continue; /* the same storage block on the same core: once */
                if (mu[x].once)
                    last[p] = mu[x].pos;
                sum[p] = sum[p] > INT64_MAX - mu[x].bytes ? INT64_MAX : sum[p] + mu[x].bytes;
            }
        for (uint32_t p = 0; p < k->phases; p++) {
            if (sum[p] <= budget)
                continue;
            /* name the largest holder of this phase */
            size_t big = a;
            int64_t bigb = -1;
            for (size_t x = a; x < b; x++)
                if (mu[x].lo <= (int32_t)p && (int32_t)p <= mu[x].hi && mu[x].bytes > bigb) {
                    big = x;
                    bigb = mu[x].bytes;
                }
            char core[160];
            core_text(&mu[a].key, core, sizeof core);
            diag_block(k->d, ST_LOGIC, "map.mem.core", k->g->blocks[mu[big].pos],
                       "%s holds %" PRId64 " bytes in phase %" PRIu32
                       " (this block %" PRId64 " of them), more than the %" PRId64
                       " bytes of a core's budget",
                       core, sum[p], p, bigb, budget);
            ++*k->found;
            break; /* one report a core */
        }
        a = b;
    }
    free(mu), free(sum), free(last);
    return ST_OK;
}

/* ---- receives ---- */

typedef struct Recv {
    CoreKey key;
    uint32_t edge;               /* position in g->edges */
    int64_t bytes;
    uint64_t phases_lo;          /* bit p: the edge is received in phase p (p < 64) */
    uint32_t n_phases;
} Recv;

static int recv_cmp(const void *a, const void *b)
{
    const Recv *x = a, *y = b;
    int r = key_cmp(&x->key, &y->key);
    if (r)
        return r;
    return x->edge < y->edge ? -1 : x->edge > y->edge;
}

/* Maximum flow of the bipartite problem edges -> phases -> sink (Dinic's algorithm over arc
 * lists: a core's receiving edges times at most 64 phases). */
typedef struct Arc {
    uint32_t to, next;           /* next: the node's next arc, UINT32_MAX at the end */
    int64_t cap;                 /* residual; arc i ^ 1 is its reverse */
} Arc;

typedef struct Flow {
    uint32_t n, n_arcs;
    Arc *arc;
    uint32_t *head, *it, *queue;
    int32_t *level;
} Flow;

static void flow_arc(Flow *f, uint32_t a, uint32_t b, int64_t cap)
{
    f->arc[f->n_arcs] = (Arc){b, f->head[a], cap};
    f->head[a] = f->n_arcs++;
    f->arc[f->n_arcs] = (Arc){a, f->head[b], 0};
    f->head[b] = f->n_arcs++;
}

static int64_t flow_push(Flow *f, uint32_t v, uint32_t t, int64_t up)
{
    if (v == t)
        return up;
    for (; f->it[v] != UINT32_MAX; f->it[v] = f->arc[f->it[v]].next) {
        Arc *a = &f->arc[f->it[v]];
        if (a->cap <= 0 || f->level[a->to] != f->level[v] + 1)
            continue;
        int64_t got = flow_push(f, a->to, t, up < a->cap ? up : a->cap);
        if (got > 0) {
            a->cap -= got;
            f->arc[f->it[v] ^ 1].cap += got;
            return got;
        }
    }
    return 0;
}

static int64_t flow_max(Flow *f, uint32_t s, uint32_t t)
{
    int64_t total = 0;
    for (;;) {
        for (uint32_t i = 0; i < f->n; i++)
            f->level[i] = -1;
        uint32_t qh = 0, qt = 0;
        f->level[s] = 0;
        f->queue[qt++] = s;
        while (qh < qt) {
            uint32_t v = f->queue[qh++];
            for (uint32_t i = f->head[v]; i != UINT32_MAX; i = f->arc[i].next)
                if (f->level[f->arc[i].to] < 0 && f->arc[i].cap > 0) {
                    f->level[f->arc[i].to] = f->level[v] + 1;
                    f->queue[qt++] = f->arc[i].to;
                }
        }
        if (f->level[t] < 0)
            return total;
        memcpy(f->it, f->head, f->n * sizeof *f->it);
        int64_t got;
        while ((got = flow_push(f, s, t, INT64_MAX)) > 0)
            total = total > INT64_MAX - got ? INT64_MAX : total + got;
    }
}

static void flow_free(Flow *f)
{
    free(f->arc), free(f->head), free(f->it), free(f->queue), free(f->level);
}

/* The receives of one core r[0..n): can every byte arrive within the limits? */
static Status recv_core(Checker *k, const Recv *r, size_t n)
{
    const int64_t per_phase = k->chip->recv_bytes_per_phase;
    const int64_t per_dest = k->chip->dest_bytes_per_phase ? k->chip->dest_bytes_per_phase
                                                           : per_phase;
    int64_t want = 0;
    uint64_t used = 0;
    size_t n_arcs = 0;
    for (size_t i = 0; i < n; i++) {
        want = want > INT64_MAX - r[i].bytes ? INT64_MAX : want + r[i].bytes;
        used |= r[i].phases_lo;
        n_arcs += 1 + r[i].n_phases;
    }
    if (want == 0)
        return ST_OK;
    size_t nodes = n + 64 + 2;
    n_arcs = 2 * (n_arcs + 64);
    Flow f = {(uint32_t)nodes, 0,
              n_arcs <= SIZE_MAX / sizeof(Arc) ? malloc(n_arcs * sizeof(Arc)) : NULL,
              malloc(nodes * sizeof(uint32_t)), malloc(nodes * sizeof(uint32_t)),
              malloc(nodes * sizeof(uint32_t)), malloc(nodes * sizeof(int32_t))};
    if (nodes > UINT32_MAX / 2 || !f.arc || !f.head || !f.it || !f.queue || !f.level) {
        flow_free(&f);
        return ST_RUNTIME;
    }
    memset(f.head, 0xff, nodes * sizeof *f.head);
    uint32_t sink = (uint32_t)nodes - 1, ph0 = (uint32_t)n + 1;
    for (uint32_t p = 0; p < 64; p++)
        if (used >> p & 1)
            flow_arc(&f, ph0 + p, sink, per_phase);
    for (size_t i = 0; i < n; i++) {
        flow_arc(&f, 0, (uint32_t)(1 + i), r[i].bytes);
        for (uint32_t p = 0; p < 64; p++)
            if (r[i].phases_lo >> p & 1)
                flow_arc(&f, (uint32_t)(1 + i), ph0 + p, per_dest);
    }
    int64_t got = flow_max(&f, 0, sink);
    flow_free(&f);
    if (got >= want)
        return ST_OK;
    char core[160], ph[200];
    core_text(&r[0].key, core, sizeof core);
    size_t len = 0;
    ph[0] = '\0';
    for (uint32_t p = 0; p < 64 && len + 8 < sizeof ph; p++)
        if (used >> p & 1)
            len += (size_t)snprintf(ph + len, sizeof ph - len, "%s%" PRIu32, len ? "," : "", p);
    diag_add(k->d, ST_LOGIC, "map.recv.phase", NULL,
             "%s receives %" PRId64 " bytes over phases {%s} (%zu edges), but at most %" PRId64
             " of them fit: a core receives at most %" PRId64 " bytes a phase",
             core, want, ph, n, got, per_phase);
    ++*k->found;
    return ST_OK;
}

/* The bytes of edge e (compute -> storage) that the copy of its destination on the core of
 * key holds; -1 when the core holds no copy. */
static int64_t recv_bytes(const Checker *k, const Edge *e, const CoreKey *key)
{
    const Graph *g = k->g;
    long t = graph_block_pos(g, e->dst);
    if (t < 0 || kind_of(g->blocks[t]) != BK_STORAGE || !held_at(k, (uint32_t)t, key))
        return -1;
    int64_t all = bbox_edge_layout_bytes(k->chip, g, &k->u, e);
    if (all <= 0)
        return all;
    BlockBox wr, part;
    bbox_of_iface(g, &k->u, (uint32_t)t, true, e->id, &wr);
    held_part(k, (uint32_t)t, key, &part);
    BlockBox x = wr;
    bbox_inter(&x, &part);
    return bbox_volume(&x) <= 0 ? 0 : bbox_scale_bytes(all, &x, &wr);
}

static Status recv_rules(Checker *k)
{
    const Mapping *m = k->m;
    const Graph *g = k->g;
    size_t n = 0;
    for (uint32_t i = 0; i < m->n_edges; i++)
        n += m->edges[i].n_coords;
    Recv *rv = n <= SIZE_MAX / sizeof *rv ? malloc((n ? n : 1) * sizeof *rv) : NULL;
    if (!rv)
        return ST_RUNTIME;
    size_t j = 0;
    bool *seen = calloc(g->n_edges ? g->n_edges : 1, sizeof *seen);
    if (!seen) {
        free(rv);
        return ST_RUNTIME;
    }
    for (uint32_t i = 0; i < m->n_edges; i++) {
        const MapDict *dict = &m->edges[i];
        long pos = graph_edge_pos(g, dict->task_id);
        if (pos < 0 || seen[pos])
            continue; /* map.edge.unknown / map.edge.dup */
        seen[pos] = true;
        const Edge *e = g->edges[pos];
        const Block *src = graph_block(g, e->src);
        if (!src || kind_of(src) != BK_COMPUTE)
            continue; /* off-chip input arrives before the step */
        size_t from = j;
        for (uint32_t c = 0; c < dict->n_coords; c++) {
            const MapCoord *mc = &dict->coords[c];
            if (!mc->has_pi_index || mc->pi_index != MAP_PI_ROUTER_RECIEVE || !non_negative(mc))
                continue;
            CoreKey key = key_of(mc);
            size_t x = from;
            while (x < j && key_cmp(&rv[x].key, &key))
                x++;
            if (x == j) {
                int64_t bytes = recv_bytes(k, e, &key);
                if (bytes < 0)
                    continue; /* a relay that holds no copy */
                rv[j++] = (Recv){key, (uint32_t)pos, bytes, 0, 0};
            }
            for (int32_t p = mc->phase; p <= end_of(mc) && p < 64; p++)
                if (!(rv[x].phases_lo >> p & 1)) {
                    rv[x].phases_lo |= 1ull << p;
                    rv[x].n_phases++;
                }
        }
        for (size_t x = from; x < j; x++) {
            int64_t cap = (int64_t)rv[x].n_phases *
                          (k->chip->dest_bytes_per_phase ? k->chip->dest_bytes_per_phase
                                                         : k->chip->recv_bytes_per_phase);
            if (rv[x].bytes <= cap)
                continue;
            char core[160];
            core_text(&rv[x].key, core, sizeof core);
            diag_edge(k->d, ST_LOGIC, "map.recv.dest", e->id,
                      "%s receives %" PRId64 " bytes of it in %" PRIu32
                      " phase(s), more than the %" PRIu32
                      " bytes one destination takes a phase",
                      core, rv[x].bytes, rv[x].n_phases, k->chip->dest_bytes_per_phase);
            ++*k->found;
        }
    }
    free(seen);
    qsort(rv, j, sizeof *rv, recv_cmp);
    Status st = ST_OK;
    for (size_t a = 0; a < j && st == ST_OK;) {
        size_t b = a + 1;
        while (b < j && !key_cmp(&rv[a].key, &rv[b].key))
            b++;
        st = recv_core(k, rv + a, b - a);
        a = b;
    }
    free(rv);
    return st;
}

Status verify_map_chip(const Mapping *m, const Chip *chip, const uint32_t *first, Diag *d,
                       size_t *found)
{
    Checker k = {.m = m, .g = m->graph, .chip = chip, .first = first, .d = d, .found = found};
    k.phases = chip->max_phases < MAX_PHASES_CHECKED ? chip->max_phases : MAX_PHASES_CHECKED;
    if (k.phases == 0)
        k.phases = 1;
    for (int edge = 0; edge < 2; edge++) {
        const MapDict *ds = edge ? m->edges : m->nodes;
        uint32_t nd = edge ? m->n_edges : m->n_nodes;
        for (uint32_t i = 0; i < nd; i++) {
            const Block *b = edge ? NULL : graph_block(m->graph, ds[i].task_id);
            if (!edge && !b)
                continue; /* map.node.unknown */
            for (uint32_t c = 0; c < ds[i].n_coords; c++)
                if (non_negative(&ds[i].coords[c]))
                    coord_rules(&k, b, edge != 0, ds[i].task_id, i, c, &ds[i].coords[c]);
        }
    }
    if (!graph_uses(m->graph, &k.u))
        return ST_RUNTIME;
    /* the rules ask the pitch of the same maps block after block: the walk's facts are kept
       while they run (the graph keeps still); without memory they are worked out anew */
    (void)layout_memo_begin(&k.u);
    Status st = core_groups(&k);
    if (st == ST_OK)
        st = mem_rules(&k);
    if (st == ST_OK)
        st = recv_rules(&k);
    graph_uses_finish(&k.u);
    return st;
}
