/* split.h: what the files of the split pass share (docs/passes.md, "split").
 *
 *   split_geom.c   where one piece of a cut block reads and writes (halo, padding)
 *   split_feed.c   re-feeding a region of a cluster, re-routing a cut block's output
 *   split_axis.c   cutting one compute block along one axis into pieces
 *   split_slice.c  the part of a storage block's data a piece reads (shared, a view or a copy)
 *   split_spec.c   the explicit cuts of PassOptions.split_spec
 *   split_need.c   fit mode: the memory of a block's group, and of a piece before it is made
 *   split_plan.c   fit mode: the plan of cuts (f, y, x, r together) that makes a block fit
 *   split_fit.c    fit mode: the rounds that check every block and make the planned cuts
 *   split_edge.c   fit mode: cutting the edges that deliver more than a destination may take
 *   split_soma.c   fit mode: the Soma after an Axon block, counted with it and cut as it was
 *   split.c        the pass
 */
#ifndef TASKIR_PASSES_SPLIT_H
#define TASKIR_PASSES_SPLIT_H

#include "passes/pass.h"
#include "taskir/chip_cost.h"
#include "taskir/encode.h"
#include "taskir/uses.h"

typedef enum { SPLIT_Y, SPLIT_X, SPLIT_F, SPLIT_R, SPLIT_AXES } SplitAxis;

extern const char split_axis_names[SPLIT_AXES]; /* 'y' 'x' 'f' 'r' */

/* A box of a cluster: origin and extents on the six cluster dims (extent 0: unused dim). */
typedef struct SplitBox {
    int32_t pos[TIR_CDIMS], size[TIR_CDIMS];
} SplitBox;

#define SPLIT_MAX_IN 64 /* input clusters of a block the pass cuts, at most */

/* One piece of a block cut along an axis: its shape and window attributes, the box of the
 * block's output it computes and, per input cluster, the box of it that it reads. */
typedef struct SplitPiece {
    int32_t shape[TIR_NDIMS];
    int32_t pad_lo, pad_hi;          /* Y: PAD_UP/DOWN, X: PAD_LEFT/RIGHT */
    SplitBox out;
    SplitBox in[SPLIT_MAX_IN];
    bool in_whole[SPLIT_MAX_IN];     /* the piece reads the whole cluster */
} SplitPiece;

/* Can blocks of b's type be cut along ax (and is b's extent along it > 1)? */
bool split_can(const Block *b, SplitAxis ax);
/* b's extent along ax: output rows, columns or channels, or the reduction length (r). */
int32_t split_extent(const Block *b, SplitAxis ax);
/* The piece of b covering [lo, hi) along ax. false, with the reason in why, when the piece
 * would read nothing but padding. */
bool split_piece(const Block *b, SplitAxis ax, int32_t lo, int32_t hi, SplitPiece *p,
                 char *why, size_t whylen);
/* The shape of the part r (output cluster coordinates) of storage block s. */
void split_storage_shape(const Block *s, const SplitBox *r, int32_t out[TIR_NDIMS]);
/* Cuts [0, extent) into n pieces as equal as they can be in whole units of align (the
 * primitive's channel group or column group; 1 = none), the last taking the remainder:
 * bounds[0..n]. When extent has fewer than n units, in units of 1. */
void split_bounds(int32_t extent, uint32_t n, int32_t align, int32_t *bounds);
/* The unit pieces along ax are best aligned to on chip c (32 for f on P41, 4 for x ...). */
int32_t split_align(const Chip *c, const Block *b, SplitAxis ax);
/* The unit the channels of an output of precision prec travel in on c's links: along f, the
 * values of one packet (8 bytes: 2 int32, 4 int16, 8 int8 channels), since the code
 * generator can send only whole packets of a piece; 1 along any other axis. */
int32_t split_unit(const Chip *c, PrecisionId prec, SplitAxis ax);
/* Cuts b's extent along ax into n pieces (bounds[0..n]): in whole units of both
 * split_align and unit (their least common multiple) when the extent has n of them, else
 * of unit, else of split_align, else as split_bounds does. */
void split_cut_bounds(const Chip *c, const Block *b, SplitAxis ax, uint32_t n, int32_t unit,
                      int32_t *bounds);

/* The parts of data tensors given out so far (split_slice.c): a part asked for again is
 * the same tensor. Lives as long as the pass; split_slices_finish makes the copies. */
typedef struct SplitSlices SplitSlices;

/* Where split_slices_finish put the copies' values: into the memory of a tensor that only
 * they held, or into fresh memory. */
typedef struct SplitSliceStats {
    uint64_t in_place_values, fresh_values;
} SplitSliceStats;

SplitSlices *split_slices_create(void); /* NULL when out of memory */
void split_slices_destroy(SplitSlices *s); /* accepts NULL */
/* Gives c (a piece's copy of storage block s) the part r (output cluster coordinates of s)
 * of s's data tensor, whose axes are the used dims of s's shape in y x f r ky kx order: the
 * tensor itself, a view of rows of it, or a copy, shared through cache with every other
 * piece reading the same part. With a cache a copy has no values (its counts 0) until
 * split_slices_finish; without one (NULL) it is made at once in g's arena. false when out
 * of memory or when the tensor's dims are not the shape's or its values' count. */
bool split_slice_data(Graph *g, SplitSlices *cache, const Block *s, Block *c,
                      const SplitBox *r);
/* Makes the copies of s that a block of g holds (g compacted): those of a tensor that
 * nothing else in g holds go into its own memory (it is dead), the others into fresh memory
 * of g's arena. false when out of memory (g is then to be discarded). Accepts NULL. */
bool split_slices_finish(Graph *g, SplitSlices *s);
SplitSliceStats split_slices_stats(const SplitSlices *s);

/* The element map of the last rearranged edge a piece was fed through (split_feed.c): the
 * pieces of a block, and the blocks of a change set cut alike, read the same edges one after
 * the other. Valid for one change set (an edge's id and ends do not change in it). */
typedef struct SplitEdgeMap {
    bool set;
    int32_t edge_id;
    int32_t *m;
    int64_t n;
} SplitEdgeMap;

/* What the re-feeding works with: the graph, its use index (built before the change set:
 * only blocks and edges that existed then are looked up in it), the findings, the copies
 * of data parts (NULL: each made anew) and the last element map (NULL: each made anew). */
typedef struct SplitCtx {
    Graph *g;
    const GraphUses *u;
    Diag *d;
    SplitSlices *slices;
    SplitEdgeMap *map;
    const Chip *chip;    /* NULL: no output store is cut with its writer */
} SplitCtx;

/* Feeds input cluster to_idx of `to` with the content that region r (cluster coordinates)
 * of input cluster from_idx of `from` receives: for every interface of that cluster meeting
 * r, an edge from the same source for the part inside r, placed at (position - r.pos).
 * `to`'s cluster has r's extents. */
Status split_feed_region(const SplitCtx *s, const Block *from, uint32_t from_idx,
                         const SplitBox *r, Block *to, uint32_t to_idx);
/* Replaces the edges out of b's output by edges out of the pieces: piece i computes box
 * out[i] of b's output. The old edges are left for the caller to remove (with b). A storage
 * block that only OUTPUTs read, that b alone writes whole and that takes more than room
 * bytes of s->chip (what the first piece leaves of a core) is cut with b instead: each piece
 * writes its part into a block of its own, which the OUTPUTs read; its id goes into stores
 * (one per output edge of b at most; *n_stores of them), for the caller to remove. */
Status split_route_output(const SplitCtx *s, const Block *b, Block *const *pieces,
                          const SplitBox *out, uint32_t n, int64_t room, int32_t *stores,
                          uint32_t *n_stores);
/* The box of interface f of a cluster of extents cd. */
void split_iface_box(const Iface *f, const int32_t cd[TIR_CDIMS], SplitBox *out);
/* For each element of box in (C order of its used dims), its index in the C order of box
 * outer, which contains it. */
void split_box_index(const SplitBox *outer, const SplitBox *in, int64_t *idx);
/* Is the box the whole cluster cd? */
bool split_box_whole(const SplitBox *b, const int32_t cd[TIR_CDIMS]);

/* A change set of cuts: the use index of the graph as it was when the set began (the cuts
 * only add blocks and edges until the set is committed, so it stays valid for the blocks and
 * edges that were there) and the blocks to remove at the end. A cut in one set must not
 * read a storage block another writes (split_fit.c keeps them apart). */
typedef struct SplitBatch {
    GraphUses u;
    int32_t *drop;       /* ids of the blocks to remove, with their edges */
    size_t n_drop, cap_drop;
    int32_t *cut;        /* ids of the storage blocks cut: removed when they feed nothing */
    size_t n_cut, cap_cut;
    SplitSlices *slices; /* set by the caller after split_begin (NULL: none): SplitCtx */
    const Chip *chip;    /* likewise (NULL: none): SplitCtx */
    SplitEdgeMap map;    /* SplitCtx's, freed by split_commit */
} SplitBatch;

Status split_begin(Graph *g, SplitBatch *sb, Diag *d);
/* Removes the blocks the cuts replaced, compacts the graph and ends the set (also after a
 * failure: then the graph is to be discarded). */
Status split_commit(Graph *g, SplitBatch *sb, Diag *d);

/* Cuts compute block b (which was in the graph when sb began) along ax at bounds[0..n]
 * (n >= 2): the pieces (named "<b>/y0", "<b>/f1", ...; an r cut adds the CADD
 * "<b>/r<n-1>+" that joins the partial sums and takes the bias) replace b, and the storage
 * blocks b read are cut or shared with them. piece_ids (NULL: not wanted) gets the pieces'
 * ids (n of them, and the joining CADD's after them for an r cut: room for n + 1).
 * [pass.split.axis] when b cannot be cut so. */
Status split_block(Graph *g, SplitBatch *sb, Block *b, SplitAxis ax, const int32_t *bounds,
                   uint32_t n, int32_t *piece_ids, Diag *d);

/* Applies the explicit cuts "NAME:AXIS=N[,AXIS=N...][;NAME:...]" [pass.split.spec]; the
 * copies of data parts go through slices (NULL: none). */
Status split_apply_spec(Graph *g, const Chip *c, const char *spec, SplitSlices *slices,
                        Diag *d);
/* Fit mode: cuts until every group fits a core of c [pass.split.fit]; slices as above. */
Status split_fit(Graph *g, const Chip *c, SplitSlices *slices, Diag *d);
/* Fit mode: the memory a block's group needs (split_need.c): chip_group_mem's, the share
 * of input clusters fed directly by compute blocks (or INPUT), and the Soma after the block
 * that fuse will pair with it (split_soma_share). */
typedef struct SplitNeed {
    GroupMem m;
    int64_t direct;   /* input clusters fed directly by compute blocks or INPUT */
    int64_t soma;     /* the Soma after the block, fused with it (split_soma_share) */
    int64_t work;     /* the code generator's working areas (layout_work_bytes): a CADD's
                       * gathered or repeated inputs, narrowing and send areas */
    int64_t pitch;    /* what the storage it reads takes beyond its values' bytes in the
                       * pitch of the maps around it (bbox_storage_bytes, as the mapper
                       * counts it): pixels of a few channels that CLUT pieces write in rows
                       * of all theirs */
    int64_t total;
} SplitNeed;

/* The memory of b's group. false on overflow. */
bool split_need_of(const Chip *c, const Graph *g, const GraphUses *u, const Block *b,
                   SplitNeed *n);
/* Does a group of need n fit a core of c? */
bool split_fits(const Chip *c, const SplitNeed *n);
/* Is b a conv or matrix-vector block, whose f cut shares the input and divides the weights? */
bool split_weight_cut(const Block *b);
/* The need of piece pc of b (r_cut: a piece of an r cut, without the bias), figured as
 * chip_group_mem would on the piece once made. false on overflow. */
bool split_piece_need(const Chip *c, const Graph *g, const GraphUses *u, const Block *b,
                      bool r_cut, const SplitPiece *pc, SplitNeed *out);
/* The unit b's channels are cut in along ax (split_unit of b's precision and of the Soma's
 * after it; along r, of the precision of the map its input cluster 0 reads). */
int32_t split_unit_of(const Chip *c, const Graph *g, const GraphUses *u, const Block *b,
                      SplitAxis ax);
/* The need of the largest piece of b cut at bounds[0..parts] along ax (of the first two and
 * the last two: split_bounds makes the first ones the longest, the border ones may read less
 * of a padded input), and its index (largest: NULL, not wanted). false when a piece cannot
 * be made or figured. */
bool split_estimate(const Chip *c, const Graph *g, const GraphUses *u, const Block *b,
                    SplitAxis ax, const int32_t *bounds, uint32_t parts, SplitNeed *out,
                    uint32_t *largest);
/* The most pieces worth making along a (0: b cannot be cut along a, or no cut saves memory). */
uint32_t split_most(const Chip *c, const Block *b, SplitAxis a);

/* A plan of cuts (split_plan.c): n cuts, made in this order, each cutting every piece of the
 * one before along ax[i] into parts[i]; join_y > 1: the joins of its r cut are larger than a
 * core and cut into that many row bands. */
typedef struct SplitPlan {
    uint32_t n;
    SplitAxis ax[SPLIT_AXES];
    uint32_t parts[SPLIT_AXES];
    uint32_t join_y;
} SplitPlan;

/* The plan that makes b (of need n, which does not fit) fit at the least cost (split_plan.c);
 * when none does, one cut as far as an axis goes, whose pieces are planned again. false
 * when b cannot be cut at all. */
bool split_choose(const Chip *c, const Graph *g, const GraphUses *u, const Block *b,
                  const SplitNeed *n, SplitPlan *plan);

/* Fit mode: cuts every edge into a storage block (or from a compute block into a compute
 * block) that delivers more than c->dest_bytes_per_phase into edges that do not. */
Status split_edges(Graph *g, const Chip *c, Diag *d);

/* Fit mode and the Soma after an Axon block (split_soma.c). The pointwise Soma block (CCMPB,
 * CCMPS, CLUT) that reads, through one plain whole edge into its input cluster 0, the
 * storage block *s (without data) that compute block a's only edge (without rearrangement)
 * goes into, a on the Axon and the Soma on the Soma unit of c; alone: a is the only block
 * that feeds *s. NULL when there is none. */
Block *split_soma_after(const Chip *c, const Graph *g, const GraphUses *u, const Block *a,
                        bool alone, Block **s);
/* The bytes the Soma after a (split_soma_after) adds to a's group when a has this shape: its
 * output for that part, and its other storage (a CLUT's table); 0 without one. false on
 * overflow. */
bool split_soma_share(const Chip *c, const Graph *g, const GraphUses *u, const Block *a,
                      const int32_t shape[TIR_NDIMS], int64_t *bytes);
/* Is e the edge from an Axon block into the storage block its Soma reads, fed by e alone?
 * (fuse runs the two on one core: the edge is not cut to the per-destination limit.) */
bool split_soma_edge(const Chip *c, const Graph *g, const GraphUses *u, const Edge *e);
/* The storage block that Soma block m reads when every block that feeds it is an Axon block
 * whose Soma (split_soma_after) m is; NULL otherwise. */
const Block *split_soma_input(const Chip *c, const Graph *g, const GraphUses *u,
                              const Block *m);
/* The cut that makes Soma block m follow the pieces of the Axon block before it: when m's
 * input storage is fed by several compute blocks whose Soma m is, and their parts of it
 * are cut apart along one axis (no part straddles a cut), that axis and the n + 1 bounds of
 * the n pieces (*bounds, malloc'ed: the caller frees it). false otherwise or when out of
 * memory. */
bool split_soma_follow(const Chip *c, const Graph *g, const GraphUses *u, const Block *m,
                       SplitAxis *ax, int32_t **bounds, uint32_t *n);

#endif
