/* verify_util.h: what the verifier's passes share (private to taskir/verify*.c): the
 * Verifier state, recording a finding, and the checks several passes make (verify_util.c).
 */
#ifndef TASKIR_VERIFY_UTIL_H
#define TASKIR_VERIFY_UTIL_H

#include "taskir/graph.h"
#include "taskir/uses.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest dim a shape may hold (shape.range). */
#define VFY_MAX_DIM (INT32_C(1) << 24)
/* The largest volume of a block, a cluster or a tensor (limit.volume). */
#define VFY_MAX_VOLUME INT64_C(2147483647)

/* One end of an edge: interface fi of input (dst end) or output (src end) cluster cl of b. */
typedef struct VEnd {
    const Block *b;         /* NULL: no interface references this end */
    uint32_t cl, fi;
} VEnd;

/* A block id and the block's position (sockets, duplicate block ids). */
typedef struct VIdPos {
    int32_t id;
    uint32_t pos;
} VIdPos;

/* An interface box clipped to its cluster, half-open per dim; idx is the interface index. */
typedef struct VBox {
    int32_t lo[TIR_CDIMS], hi[TIR_CDIMS];
    uint32_t idx;
} VBox;

/* The extremes of a block's int32 data (verify_values.c). */
typedef struct VExtremes {
    int32_t mn, mx;
    bool have;
} VExtremes;

typedef struct Verifier {
    const Graph *g;
    GraphUses uses;         /* the use index of g: edge ends, rearrange_check */
    Diag *d;
    bool strict;            /* record pedantic findings as warnings (VerifyOptions) */
    size_t found;           /* findings recorded by this run */
    bool oom;               /* an allocation of the verifier failed */
    VIdPos *dups;           /* the blocks whose id an earlier block has, by (id, position) */
    uint32_t n_dups;
    VBox *boxes;            /* scratch for the cover check */
    uint32_t cap_boxes;
    VExtremes *ext;         /* per block position, or NULL: vfy_values_scan */
} Verifier;

struct TirPool;
/* Finds the extremes of every block's int32 data on up to threads threads (verify_values.c;
 * pool's when not NULL, else started for it); without memory for them, leaves v->ext NULL
 * (data.range then scans each tensor itself). */
void vfy_values_scan(Verifier *v, uint32_t threads, struct TirPool *pool);
/* The extremes of block b's int32 data when vfy_values_scan found them. */
bool vfy_values_extremes(const Verifier *v, const Block *b, int32_t *mn, int32_t *mx);

/* Record one ST_LOGIC finding (and count it). */
void vfy_block(Verifier *v, const char *rule, const Block *b, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void vfy_edge(Verifier *v, const char *rule, int32_t edge_id, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* About block b and the edge it names: fills both block_id and edge_id. */
void vfy_block_edge(Verifier *v, const char *rule, const Block *b, int32_t edge_id,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void vfy_add(Verifier *v, const char *rule, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Record a pedantic finding about a convention the verifier accepts: a warning (ST_OK, not
 * counted) when v->strict, nothing otherwise. */
void vfy_pedantic(Verifier *v, const char *rule, const Block *b, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Orders VIdPos by id, then position (qsort). */
int vfy_idpos_cmp(const void *a, const void *b);

/* Does the block have a type of the table (not an out-of-range value)? */
bool vfy_type_ok(const Block *b);
/* Are all of the block's dims within 0..VFY_MAX_DIM and its required dims present, so that
 * the cluster dims the table derives from them are meaningful? */
bool vfy_shape_ok(const Block *b);
/* The dims of input (or output) cluster idx, when they are known and sane: the cluster's own
 * shape (every dim >= 0), else the table's (the type has the cluster and vfy_shape_ok). */
bool vfy_cluster_dims(const Block *b, bool input, uint32_t idx, int32_t out[TIR_CDIMS]);
/* Writes "input cluster 1 ('weight')" (the role when the type has the cluster). */
void vfy_cluster_name(const Block *b, bool input, uint32_t idx, char *buf, size_t len);
/* Writes the non-zero dims of a 6-dim box as "y=4 x=4 f=3" ("(empty)" when all are 0). */
void vfy_dims_text(const int64_t *dims, char *buf, size_t len);
/* The box of interface f in a cluster of dims cd: origin (no position: 0) and size (no size:
 * the whole cluster). Fills why and returns false when the box leaves the cluster
 * (iface.bounds). An unused cluster dim (0) has extent 1: position 0, size 0 or 1. */
bool vfy_iface_box(const int32_t cd[TIR_CDIMS], const Iface *f, int64_t pos[TIR_CDIMS],
                   int64_t size[TIR_CDIMS], char *why, size_t len);

#endif
