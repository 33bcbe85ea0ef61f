/* verify_map.c: verify_mapping, the map.* rules of docs/rules.md.
 *
 * The embedded graph is checked by verify_graph first (every graph rule, with its own ids);
 * then the mapping's own rules, which need no chip description:
 *   map.node.unknown, map.node.dup   a node dict names an existing block; one dict per block
 *   map.edge.unknown, map.edge.dup   an edge dict names an existing edge (by Edge.id); one each
 *   map.unmapped                     every compute and storage block has a coordinate
 *   map.coord.range                  coordinates are non-negative
 *   map.coord.pi                     a given pi_index is a PIIndex value
 *   map.coord.phase                  end_phase, when given, is not before phase
 *   map.slot                         no two coordinates of compute blocks share a slot
 *                                    (chip_array, chip, core, step, phase, pi_index)
 *   map.clock                        prediction_clock, when given, is not negative
 *   map.place.input, map.route       verify_map_place.c: a compute block on its inputs' core,
 *                                    edges between cores routed, no receive without a send
 *   map.order.read                   verify_map_order.c: a block reads storage after its
 *                                    writers' data is there
 * and, given a chip description (verify_mapping_on), the rules of verify_map_chip.c: cores,
 * phases and groups the chip has, a core's memory in every phase, the receive limits; and
 * the chip-exactness rules map.exact.* (taskir/exact.h) on a graph that verifies.
 * Like the graph verifier it reports every finding, never trusts ids, and runs in time linear
 * in the mapping plus a sort of the compute coordinates. */
#include "taskir/mapping.h"

#include "taskir/diag_block.h"
#include "taskir/exact.h"
#include "taskir/verify.h"
#include "taskir/verify_map_chip.h"
#include "taskir/verify_map_order.h"
#include "taskir/verify_map_place.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct MapVerifier {
    const Mapping *m;
    const Graph *g;
    Diag *d;
    size_t found;
    bool oom;
} MapVerifier;

#define MSG_LEN 1024

/* Records a finding about block b (when not NULL), else at where; block_id / edge_id are set
 * as given (a dict that names a missing block or edge is about that id). */
static void report(MapVerifier *v, const char *rule, const Block *b, const char *where,
                   bool has_block, int32_t block_id, bool has_edge, int32_t edge_id,
                   const char *fmt, ...) __attribute__((format(printf, 9, 10)));
static void report(MapVerifier *v, const char *rule, const Block *b, const char *where,
                   bool has_block, int32_t block_id, bool has_edge, int32_t edge_id,
                   const char *fmt, ...)
{
    char msg[MSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t n = v->d->n;
    if (b)
        diag_block(v->d, ST_LOGIC, rule, b, "%s", msg);
    else if (has_edge && !where)
        diag_edge(v->d, ST_LOGIC, rule, edge_id, "%s", msg);
    else
        diag_add(v->d, ST_LOGIC, rule, where, "%s", msg);
    if (v->d->n > n) {
        DiagEntry *e = &v->d->entries[n];
        if (has_block) {
            e->has_block = true;
            e->block_id = block_id;
        }
        if (has_edge) {
            e->has_edge = true;
            e->edge_id = edge_id;
        }
    }
    v->found++;
}

/* "chip_array 0,0 chip 0,0 core 1,0 step 0 phase 2 AXON" (the slot's fields). */
static void slot_text(const MapCoord *c, char *buf, size_t len)
{
    const char *pi = c->has_pi_index ? mapping_pi_name(c->pi_index) : "pi_index absent";
    char unknown[32];
    if (!pi) {
        snprintf(unknown, sizeof unknown, "pi_index %" PRId32, c->pi_index);
        pi = unknown;
    }
    snprintf(buf, len,
             "chip_array %" PRId32 ",%" PRId32 " chip %" PRId32 ",%" PRId32 " core %" PRId32
             ",%" PRId32 " step %" PRId32 " phase %" PRId32 " %s",
             c->chip_array.x, c->chip_array.y, c->chip.x, c->chip.y, c->core.x, c->core.y,
             c->step, c->phase, pi);
}

/* What a finding about one dict is about: a block, an edge, or (a missing one) the dict. */
typedef struct Subject {
    const Block *b;        /* the block of a node dict, when it exists */
    bool edge;             /* an edge dict */
    int32_t task_id;
    const char *where;     /* "node_map_dicts[3] (task_id 99)" for a missing block or edge */
} Subject;

static void report_on(MapVerifier *v, const char *rule, const Subject *s, const char *fmt,
                      ...) __attribute__((format(printf, 4, 5)));
static void report_on(MapVerifier *v, const char *rule, const Subject *s, const char *fmt, ...)
{
    char msg[MSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    report(v, rule, s->b, s->where, !s->edge, s->task_id, s->edge, s->task_id, "%s", msg);
}

/* map.coord.range, map.coord.pi, map.coord.phase for every coordinate of one dict. */
static void check_coords(MapVerifier *v, const Subject *s, const char *list, uint32_t di,
                         const MapDict *dict)
{
    for (uint32_t k = 0; k < dict->n_coords; k++) {
        const MapCoord *c = &dict->coords[k];
        const struct {
            const char *name;
            int32_t value;
        } fields[] = {
            {"chip_array.x", c->chip_array.x}, {"chip_array.y", c->chip_array.y},
            {"chip.x", c->chip.x},             {"chip.y", c->chip.y},
            {"core.x", c->core.x},             {"core.y", c->core.y},
            {"step_group", c->step_group},     {"phase_group", c->phase_group},
            {"step", c->step},                 {"phase", c->phase},
            {"end_phase", c->has_end_phase ? c->end_phase : 0},
        };
        for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
            if (fields[f].value < 0) {
                report_on(v, "map.coord.range", s,
                          "%s[%" PRIu32 "] coordinate %" PRIu32 ": %s is %" PRId32
                          ", a coordinate is never negative",
                          list, di, k, fields[f].name, fields[f].value);
                break; /* one report a coordinate */
            }
        if (c->has_pi_index && !mapping_pi_name(c->pi_index))
            report_on(v, "map.coord.pi", s,
                      "%s[%" PRIu32 "] coordinate %" PRIu32 ": pi_index %" PRId32
                      " is not a PIIndex (AXON=1 .. MEMORY=6)",
                      list, di, k, c->pi_index);
        if (c->has_end_phase && c->end_phase < c->phase)
            report_on(v, "map.coord.phase", s,
                      "%s[%" PRIu32 "] coordinate %" PRIu32 ": end_phase %" PRId32
                      " is before phase %" PRId32,
                      list, di, k, c->end_phase, c->phase);
    }
}

/* The node dicts: unknown, dup, coordinates. first[pos] gets the index + 1 of the first dict
 * naming the block at position pos; dups[i] marks dict i as a later duplicate. */
static void check_nodes(MapVerifier *v, uint32_t *first, bool *dups)
{
    const Mapping *m = v->m;
    for (uint32_t i = 0; i < m->n_nodes; i++) {
        const MapDict *dict = &m->nodes[i];
        long pos = graph_block_pos(v->g, dict->task_id);
        char where[80];
        snprintf(where, sizeof where, "node_map_dicts[%" PRIu32 "] (task_id %" PRId32 ")", i,
                 dict->task_id);
        Subject s = {pos >= 0 ? v->g->blocks[pos] : NULL, false, dict->task_id, where};
        if (pos < 0) {
            report_on(v, "map.node.unknown", &s, "names block %" PRId32 ", which does not exist",
                      dict->task_id);
        } else if (first[pos]) {
            dups[i] = true;
            report_on(v, "map.node.dup", &s,
                      "node_map_dicts[%" PRIu32 "] maps this block again; node_map_dicts[%" PRIu32
                      "] already does (one dict a block)",
                      i, first[pos] - 1);
        } else {
            first[pos] = i + 1;
        }
        check_coords(v, &s, "node_map_dicts", i, dict);
    }
}

/* map.unmapped: a compute or storage block with no coordinate in any dict naming it. */
static void check_unmapped(MapVerifier *v, const uint32_t *n_coords)
{
    const Graph *g = v->g;
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        const Block *b = g->blocks[i];
        if ((unsigned)b->type >= BT_COUNT)
            continue;
        BlockKind k = bt_info(b->type)->kind;
        if (k != BK_COMPUTE && k != BK_STORAGE)
            continue;
        long pos = graph_block_pos(g, b->id);
        if (pos >= 0 && n_coords[pos])
            continue;
        report(v, "map.unmapped", b, NULL, false, 0, false, 0,
               "has no space-time coordinate: every %s block must be placed",
               k == BK_COMPUTE ? "compute" : "storage");
    }
}

static void check_edges(MapVerifier *v, uint32_t *first)
{
    const Mapping *m = v->m;
    for (uint32_t i = 0; i < m->n_edges; i++) {
        const MapDict *dict = &m->edges[i];
        long pos = graph_edge_pos(v->g, dict->task_id);
        char where[80];
        snprintf(where, sizeof where, "edge_map_dicts[%" PRIu32 "] (task_id %" PRId32 ")", i,
                 dict->task_id);
        Subject s = {NULL, true, dict->task_id, pos >= 0 ? NULL : where};
        if (pos < 0)
            report_on(v, "map.edge.unknown", &s, "names edge %" PRId32 ", which does not exist",
                      dict->task_id);
        else if (first[pos])
            report_on(v, "map.edge.dup", &s,
                      "edge_map_dicts[%" PRIu32 "] maps this edge again; edge_map_dicts[%" PRIu32
                      "] already does (one dict an edge)",
                      i, first[pos] - 1);
        else
            first[pos] = i + 1;
        check_coords(v, &s, "edge_map_dicts", i, dict);
    }
}

/* ---- map.slot ---- */

typedef struct SlotRef {
    int32_t key[9];        /* chip_array x y, chip x y, core x y, step, phase, pi */
    uint32_t dict, coord;
} SlotRef;

static int slot_cmp(const void *a, const void *b)
{
    const SlotRef *x = a, *y = b;
    for (int i = 0; i < 9; i++)
        if (x->key[i] != y->key[i])
            return x->key[i] < y->key[i] ? -1 : 1;
    if (x->dict != y->dict)
        return x->dict < y->dict ? -1 : 1;
    return x->coord < y->coord ? -1 : x->coord > y->coord;
}

static void check_slots(MapVerifier *v, const bool *dups)
{
    const Mapping *m = v->m;
    uint64_t n = 0;
    for (uint32_t i = 0; i < m->n_nodes; i++) {
        const Block *b = graph_block(v->g, m->nodes[i].task_id);
        if (!dups[i] && b && (unsigned)b->type < BT_COUNT &&
            bt_info(b->type)->kind == BK_COMPUTE)
            n += m->nodes[i].n_coords;
    }
    if (n < 2)
        return;
    if (n > SIZE_MAX / sizeof(SlotRef)) {
        v->oom = true;
        return;
    }
    SlotRef *refs = malloc((size_t)n * sizeof *refs);
    if (!refs) {
        v->oom = true;
        return;
    }
    size_t k = 0;
    for (uint32_t i = 0; i < m->n_nodes; i++) {
        const Block *b = graph_block(v->g, m->nodes[i].task_id);
        if (dups[i] || !b || (unsigned)b->type >= BT_COUNT ||
            bt_info(b->type)->kind != BK_COMPUTE)
            continue;
        for (uint32_t c = 0; c < m->nodes[i].n_coords; c++) {
            const MapCoord *p = &m->nodes[i].coords[c];
            SlotRef *r = &refs[k++];
            int32_t key[9] = {p->chip_array.x, p->chip_array.y, p->chip.x, p->chip.y,
                              p->core.x,       p->core.y,       p->step,   p->phase,
                              p->has_pi_index ? p->pi_index : 0};
            memcpy(r->key, key, sizeof key);
            r->dict = i;
            r->coord = c;
        }
    }
    qsort(refs, k, sizeof *refs, slot_cmp);
    size_t run = 0; /* the first entry of the current run of equal keys */
    for (size_t i = 1; i < k; i++) {
        if (memcmp(refs[i].key, refs[run].key, sizeof refs[i].key) != 0) {
            run = i;
            continue;
        }
        const MapDict *a = &m->nodes[refs[run].dict], *b = &m->nodes[refs[i].dict];
        const Block *ba = graph_block(v->g, a->task_id), *bb = graph_block(v->g, b->task_id);
        char slot[200];
        slot_text(&b->coords[refs[i].coord], slot, sizeof slot);
        if (ba == bb)
            report(v, "map.slot", bb, NULL, false, 0, false, 0,
                   "node_map_dicts[%" PRIu32 "] coordinates %" PRIu32 " and %" PRIu32
                   " both put it on the slot %s",
                   refs[i].dict, refs[run].coord, refs[i].coord, slot);
        else
            report(v, "map.slot", bb, NULL, false, 0, false, 0,
                   "node_map_dicts[%" PRIu32 "] coordinate %" PRIu32
                   " puts it on the slot of block %" PRId32 " (node_map_dicts[%" PRIu32
                   "] coordinate %" PRIu32 "): %s; a slot runs one compute block",
                   refs[i].dict, refs[i].coord, ba->id, refs[run].dict, refs[run].coord, slot);
    }
    free(refs);
}

/* The chip-exactness rules (map.exact.*, docs/exactness.md) on a verified graph, as
 * taskir-map checks them before it plans; adds their number to *found. false when out of
 * memory. */
static bool check_exact(const Graph *g, const Chip *chip, Diag *d, size_t *found)
{
    ExactInfo x;
    if (exact_analyse(g, &x, d) != ST_OK)
        return false;
    *found += exact_check(g, chip, &x, ST_LOGIC, d);
    exact_finish(&x);
    return !d->oom;
}

Status verify_mapping(const Mapping *m, Diag *d)
{
    return verify_mapping_on(m, NULL, d);
}

Status verify_mapping_on(const Mapping *m, const Chip *chip, Diag *d)
{
    MapVerifier v = {.m = m, .g = m->graph, .d = d};
    Status gst = verify_graph(m->graph, d);
    const Graph *g = m->graph;
    uint32_t *first = calloc(g->n_blocks ? g->n_blocks : 1, sizeof *first);
    uint32_t *n_coords = calloc(g->n_blocks ? g->n_blocks : 1, sizeof *n_coords);
    uint32_t *first_edge = calloc(g->n_edges ? g->n_edges : 1, sizeof *first_edge);
    bool *dups = calloc(m->n_nodes ? m->n_nodes : 1, sizeof *dups);
    if (!first || !n_coords || !first_edge || !dups) {
        v.oom = true;
    } else {
        check_nodes(&v, first, dups);
        for (uint32_t i = 0; i < m->n_nodes; i++) {
            long pos = graph_block_pos(g, m->nodes[i].task_id);
            if (pos >= 0 && n_coords[pos] < UINT32_MAX - m->nodes[i].n_coords)
                n_coords[pos] += m->nodes[i].n_coords;
            else if (pos >= 0)
                n_coords[pos] = UINT32_MAX;
        }
        check_unmapped(&v, n_coords);
        check_edges(&v, first_edge);
        check_slots(&v, dups);
        if (verify_map_place(m, first, d, &v.found) != ST_OK)
            v.oom = true;
        if (!v.oom && verify_map_order(m, first, d, &v.found) != ST_OK)
            v.oom = true;
        if (chip && !v.oom && verify_map_chip(m, chip, first, d, &v.found) != ST_OK)
            v.oom = true;
        if (chip && !v.oom && gst == ST_OK && !check_exact(m->graph, chip, d, &v.found))
            v.oom = true;
        if (m->has_prediction_clock && m->prediction_clock < 0)
            report(&v, "map.clock", NULL, NULL, false, 0, false, 0,
                   "prediction_clock is %" PRId32 ", a number of clock cycles is never negative",
                   m->prediction_clock);
    }
    free(first);
    free(n_coords);
    free(first_edge);
    free(dups);
    if (v.oom || gst == ST_RUNTIME)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory while verifying the mapping");
    return v.found || gst != ST_OK ? ST_LOGIC : ST_OK;
}
