/* verify_map_place.c: map.place.input and map.route (verify_map_place.h).
 *
 * A block's place is the (chip_array, chip, core) of the coordinates of its first node dict;
 * a later dict of the same block is map.node.dup's business. Every storage block may be held
 * by several cores (one coordinate each); a compute block runs where its first coordinate
 * says. INPUT and OUTPUT sockets are off-chip: edges from or to them need no route here. */
#include "taskir/verify_map_place.h"

#include "taskir/diag_block.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct Place {
    int32_t v[6];
} Place;

static Place place_of(const MapCoord *c)
{
    Place p = {{c->chip_array.x, c->chip_array.y, c->chip.x, c->chip.y, c->core.x, c->core.y}};
    return p;
}

/* The first node dict of block id with at least one coordinate, else NULL. */
static const MapDict *dict_of(const Mapping *m, const uint32_t *first, int32_t id,
                              const Block **b)
{
    long pos = graph_block_pos(m->graph, id);
    if (pos < 0 || !first[pos])
        return NULL;
    const MapDict *dict = &m->nodes[first[pos] - 1];
    if (!dict->n_coords)
        return NULL;
    *b = m->graph->blocks[pos];
    return dict;
}

static BlockKind kind_of(const Block *b)
{
    return (unsigned)b->type < BT_COUNT ? bt_info(b->type)->kind : BK_NULL;
}

/* A compute or storage block (sockets are off chip). */
static bool on_chip(const Block *b)
{
    return kind_of(b) == BK_STORAGE || kind_of(b) == BK_COMPUTE;
}

/* Where blocks are: (block position, place) of every coordinate of the first dict of every
 * compute and storage block, sorted, so that a reader's check is a binary search (the
 * verifier stays n log n however many copies and readers a block has). */
typedef struct Held {
    uint32_t pos;
    Place p;
} Held;

static int held_cmp(const void *a, const void *b)
{
    const Held *x = a, *y = b;
    if (x->pos != y->pos)
        return x->pos < y->pos ? -1 : 1;
    for (int i = 0; i < 6; i++)
        if (x->p.v[i] != y->p.v[i])
            return x->p.v[i] < y->p.v[i] ? -1 : 1;
    return 0;
}

static Held *held_index(const Mapping *m, const uint32_t *first, size_t *n_out)
{
    const Graph *g = m->graph;
    size_t n = 0;
    for (uint32_t i = 0; i < g->n_blocks; i++)
        if (first[i] && on_chip(g->blocks[i]))
            n += m->nodes[first[i] - 1].n_coords;
    Held *h = n <= SIZE_MAX / sizeof *h ? malloc((n ? n : 1) * sizeof *h) : NULL;
    if (!h)
        return NULL;
    size_t k = 0;
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        if (!first[i] || !on_chip(g->blocks[i]))
            continue;
        const MapDict *dict = &m->nodes[first[i] - 1];
        for (uint32_t c = 0; c < dict->n_coords; c++)
            h[k++] = (Held){i, place_of(&dict->coords[c])};
    }
    qsort(h, k, sizeof *h, held_cmp);
    *n_out = k;
    return h;
}

static bool holds(const Held *h, size_t n, uint32_t pos, Place p)
{
    Held key = {pos, p};
    return bsearch(&key, h, n, sizeof *h, held_cmp) != NULL;
}

/* Does the edge dict hold a coordinate with this pi_index, anywhere (when !h) or on a place
 * of block a or of block b (positions in h)? */
static bool has_pi(const MapDict *dict, int32_t pi, const Held *h, size_t n, uint32_t a,
                   uint32_t b)
{
    for (uint32_t k = 0; dict && k < dict->n_coords; k++) {
        const MapCoord *c = &dict->coords[k];
        if (!c->has_pi_index || c->pi_index != pi)
            continue;
        if (!h || holds(h, n, a, place_of(c)) || holds(h, n, b, place_of(c)))
            return true;
    }
    return false;
}

static void place_text(Place p, char *buf, size_t len)
{
    snprintf(buf, len,
             "chip_array %" PRId32 ",%" PRId32 " chip %" PRId32 ",%" PRId32 " core %" PRId32
             ",%" PRId32,
             p.v[0], p.v[1], p.v[2], p.v[3], p.v[4], p.v[5]);
}


const MapDict **verify_map_edge_dicts(const Mapping *m)
{
    const Graph *g = m->graph;
    const MapDict **edict = calloc(g->n_edges ? g->n_edges : 1, sizeof *edict);
    for (uint32_t i = 0; edict && i < m->n_edges; i++) {
        long pos = graph_edge_pos(g, m->edges[i].task_id);
        if (pos >= 0 && !edict[pos])
            edict[pos] = &m->edges[i];
    }
    return edict;
}

Status verify_map_place(const Mapping *m, const uint32_t *first, Diag *d, size_t *found)
{
    const Graph *g = m->graph;
    const MapDict **edict = verify_map_edge_dicts(m);
    size_t n_held = 0;
    Held *held = edict ? held_index(m, first, &n_held) : NULL;
    if (!held) {
        free(edict);
        return ST_RUNTIME;
    }
    for (uint32_t e = 0; e < g->n_edges; e++) {
        const Edge *ed = g->edges[e];
        if (!ed || ed->removed)
            continue;
        const Block *src = NULL, *dst = NULL;
        const MapDict *ds = dict_of(m, first, ed->src, &src);
        const MapDict *dd = dict_of(m, first, ed->dst, &dst);
        const MapDict *ep = edict[e];
        char a[96], b[96];
        if (ds && dd && kind_of(src) == BK_STORAGE && kind_of(dst) == BK_COMPUTE) {
            Place p = place_of(&dd->coords[0]);
            if (!holds(held, n_held, (uint32_t)graph_block_pos(g, src->id), p)) {
                place_text(p, a, sizeof a);
                diag_block(d, ST_LOGIC, "map.place.input", dst,
                           "runs on %s, but its input block %" PRId32
                           " is not stored there (edge %" PRId32
                           "): a compute block reads its inputs from its own core's memory",
                           a, src->id, ed->id);
                ++*found;
            }
        } else if (ds && dd && on_chip(src) && on_chip(dst)) {
            uint32_t ps = (uint32_t)graph_block_pos(g, src->id);
            uint32_t pd = (uint32_t)graph_block_pos(g, dst->id);
            Place p = place_of(&dd->coords[0]);
            if (!holds(held, n_held, ps, p) &&
                (!has_pi(ep, MAP_PI_ROUTER_SEND, NULL, 0, 0, 0) ||
                 !has_pi(ep, MAP_PI_ROUTER_RECIEVE, held, n_held, pd, pd))) {
                place_text(place_of(&ds->coords[0]), a, sizeof a);
                place_text(p, b, sizeof b);
                diag_edge(d, ST_LOGIC, "map.route", ed->id,
                          "goes from block %" PRId32 " on %s to block %" PRId32
                          " on %s without a ROUTER_SEND coordinate (on the source's core or a relay's) "
                          "and a ROUTER_RECIEVE coordinate on a core of the destination",
                          src->id, a, dst->id, b);
                ++*found;
                continue;
            }
        }
        /* a receive with no send: the source is on chip but nothing sends */
        if (ds && on_chip(src) && has_pi(ep, MAP_PI_ROUTER_RECIEVE, NULL, 0, 0, 0) &&
            !has_pi(ep, MAP_PI_ROUTER_SEND, NULL, 0, 0, 0)) {
            diag_edge(d, ST_LOGIC, "map.route", ed->id,
                      "has a ROUTER_RECIEVE coordinate but no ROUTER_SEND coordinate, and its "
                      "source block %" PRId32 " is on chip: a receive with no send",
                      src->id);
            ++*found;
        }
    }
    free(edict);
    free(held);
    return ST_OK;
}
