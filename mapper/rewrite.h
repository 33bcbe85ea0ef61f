/* rewrite.h: what the mapper's rewrites share (private to mapper/rewrite.c, exact*.c,
 * out_store.c and window.c): putting a compute block between a storage block and one of its
 * readers, and the box an edge flattens from. */
#ifndef TASKIR_MAPPER_REWRITE_H
#define TASKIR_MAPPER_REWRITE_H

#include "mapper/mapper.h"
#include "taskir/uses.h"

/* The block put in between: its type, the tag of its name, one attribute it gets, whether
 * the storage it writes is INT_32 (else of the source's precision), and whether it reads
 * the box twice (a CADD of two inputs and no bias: the box doubled). */
typedef struct MapThrough {
    BlockType type;
    const char *tag;
    AttrId attr;
    int32_t value;
    bool out_int32;
    bool twice;
} MapThrough;

/* The group holding block id, or -1. */
long map_group_of(const Graph *g, int32_t id);
/* Adds block id to group k (k < 0: none). false when out of memory. */
bool map_group_add(Graph *g, long k, int32_t id);

/* The interface of edge id in block b's input (or output) clusters, and its cluster; NULL
 * when none. */
Iface *map_find_iface(Block *b, bool input, int32_t id, uint32_t *cluster);
/* Makes a clone of s named "<s>/<suffix>" into a block of type t, precision prec, shape
 * (y, x, f: 0 leaves the dim absent) and no clusters, attributes or data. NULL when out of
 * memory. */
Block *map_made_from(Graph *g, const Block *s, const char *suffix, BlockType t,
                     PrecisionId prec, int32_t y, int32_t x, int32_t f);

/* The Soma copy of rewrite.c: a CCMPB with a 1 x 1 window, no shift, floor INT32_MIN. */
extern const MapThrough map_through_soma_copy;

/* Puts blocks of kind t between storage block s and the reader of edge id: s -[box slice
 * k]-> T "<s>/<tag>.eN.fK" -> SI "<s>/<tag>.eN.fK.out" -> the reader (into the slice's place
 * in its box); the box cut along f into slices that fit half of budget bytes (one slice when
 * the edge rearranges or budget is 0). The SIs join the reader's group; s leaves it when nothing there reads
 * it any more. Leaves removed blocks and edges for graph_compact. ST_RUNTIME when out of
 * memory. */
Status map_insert_through(Graph *g, Block *s, int32_t id, uint32_t budget,
                          const MapThrough *t, Diag *d);

/* The box (y, x, f extents; 1 for an unused dim) from which edge e flattens: e has steps,
 * they keep the C order (ra_edge_keeps_order), and its source box uses y, x, f only (a
 * flatten or reshape the lowering writes); false otherwise (out_store.c). */
bool map_flatten_box(const Graph *g, const GraphUses *u, const Edge *e, int32_t box[3]);

#endif
