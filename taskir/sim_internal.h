/* sim_internal.h: what the simulator's files share (private to taskir/sim*.c).
 *
 * sim.c plans a run (topological order, one int32 buffer per cluster, edge copies, aliasing
 * of whole-cluster copies) and executes steps; sim_kernels.c holds the twelve compute
 * kernels, dispatched through a table expanded from blocktypes.def; sim_rearrange.c applies
 * rearrangement steps; sim_parallel.c (sim_parallel.h) splits a kernel's work over threads.
 * Kernels read their input clusters and write the block's result buffer in the layouts of
 * docs/semantics.md section 1, derived from the block's shape.
 */
#ifndef TASKIR_SIM_INTERNAL_H
#define TASKIR_SIM_INTERNAL_H

#include "taskir/rearrange.h"
#include "taskir/sim.h"

#include <stdbool.h>
#include <stdint.h>

/* One edge copy into an input cluster: the source box read (and rearranged) into the
 * destination box. */
typedef struct SimCopy {
    const Edge *e;
    const struct SimCluster *src;
    int32_t src_pos[TIR_CDIMS], src_box[TIR_CDIMS];
    int32_t dst_pos[TIR_CDIMS], dst_box[TIR_CDIMS];
    bool src_whole, dst_whole;
    RaStep *steps;
    uint32_t n_steps;
} SimCopy;

typedef struct SimCluster {
    int32_t dims[TIR_CDIMS];    /* the cluster's extents as its interfaces see them */
    int32_t lay[TIR_CDIMS];     /* the layout a kernel reads (from the block's shape) */
    int64_t vol;
    int32_t *data;              /* own buffer or an alias of the source cluster's buffer */
    bool alias;                 /* fed by one whole-cluster copy: data is the source's */
    bool zero;                  /* its buffer is shared (sim_share.h) and its copies do not
                                   cover it: cleared before they run */
    SimCopy *copies;            /* input clusters: the edge copies that fill it */
    uint32_t n_copies;
} SimCluster;

/* Operands a kernel packs for itself (CC, CC2D, CVM: the int8 weights of the dot-product path,
 * sim_dot8.h), planned by sim_kernel_plan: packed at every step, or at the first step only
 * when they cannot change. */
typedef struct SimPack {
    uint32_t *data;             /* sim_kernel_pack_words(sb) words, or NULL: nothing to pack */
    bool in_place;              /* the packed weights go over the weight tensor itself
                                   (SimOptions.weights_in_place), data holds the rest */
    bool narrow;                /* in place over a tensor held narrow (Tensor.i8): the
                                   weights are packed from its bytes, and a last channel
                                   block its own rows cannot hold goes into data (tail) */
    bool tail;                  /* narrow, and the last channel block is in data */
    unsigned char *over;        /* in place: the tensor's values (Tensor.i32 or Tensor.i8) */
    int32_t *wide;              /* packed over int8 values and put back for the int32 path:
                                   the weights (the weights cluster's data), freed with the
                                   run (tir_big_free), or NULL */
    bool constant;              /* the operands come only from storage blocks nothing feeds */
    bool packed;                /* constant, and packed at an earlier step */
    bool usable;                /* once packed: the packed path applies (every weight an int8) */
} SimPack;

typedef struct SimBlock {
    const Block *b;
    uint32_t pos;               /* position in g->blocks */
    SimCluster *in, *out;
    uint32_t n_in, n_out;
    int32_t *result;            /* storage content, compute output, INPUT/OUTPUT data */
    int64_t result_vol;
    int64_t rshape[NPY_MAX_DIMS]; /* the result's natural shape (for outputs and dumps) */
    uint32_t rndim;
    int32_t *state;             /* CLIF: the membrane potentials carried between steps */
    uint32_t n_var;             /* repeats of the first input role */
    int bias;                   /* input cluster of the bias vector, or -1 (CONSTANT_B) */
    SimPack pack;               /* the kernel's packed operands */
    bool data_result;           /* a storage block whose result is its int32 data tensor
                                   itself, not a copy (set before sim_kernel_plan_in_place) */
    bool data_narrow;           /* the same with the tensor held narrow (Tensor.i8): its
                                   result is the values widened into memory of the run's own,
                                   unless packed_over */
    bool packed_over;           /* data_narrow, and the one block reading it packs its
                                   weights over the values (SimPack.narrow): no result */
} SimBlock;

struct SimRun {
    const Graph *g;
    GraphUses uses;             /* the use index of g while planning (sim_create), then empty */
    SimOptions opt;
    SimBlock *blocks;           /* indexed like g->blocks */
    uint32_t *order;            /* topological order (positions) */
    uint32_t n_order;
    uint32_t *inputs, *outputs; /* positions of INPUT / OUTPUT blocks, in graph order */
    uint32_t n_inputs, n_outputs;
    void **owned;               /* buffers to free */
    uint32_t n_owned, cap_owned;
    unsigned char *region;      /* the buffers of the clusters, results, packed operands and
                                   scratch (placed by sim_share.h), or NULL */
    size_t region_bytes;        /* its size */
    struct SimRegionPlan *rp;   /* while planning: where each buffer goes in the region */
    struct TirPool *pool;       /* the kernels' worker threads (parallel.h), or NULL */
    bool own_pool;              /* pool was made by sim_create (not SimOptions.pool) */
    int32_t *scratch[2];        /* ping-pong buffers for rearranged copies */
    int64_t scratch_vol;
    uint32_t *wscratch;         /* kernel scratch (the int8 path: its input) */
    int64_t wscratch_mid;       /* with threads: the byte of wscratch where the int8 input's
                                   second half of the threads' parts starts (sim_kernels.c,
                                   sim_share.h: each thread writes the same bytes at every
                                   layer), the middle of twice the room; 0 on one thread */
    const struct Chip *chip;    /* sim_use_chip: the chip's arithmetic (sim_chip.c), or NULL */
    int64_t wscratch_vol;
    uint32_t *wtscratch;        /* the int32 path's transposed weights (CC), in memory of its
                                   own outside the region: the threads never put its pages in
                                   place, and the int8 path never touches them */
};

/* A compute kernel: reads sb's input clusters, writes sb->result. Status for CLUT's index
 * errors. */
typedef Status (*SimKernelFn)(SimRun *run, SimBlock *sb, Diag *d);

/* The kernel of a block type (NULL for storage and I/O types). */
SimKernelFn sim_kernel(BlockType t);
/* The chip's kernel of a block type (sim_chip.c: what sim_use_chip runs), or NULL when the
 * chip computes it as the TaskGraph does. */
SimKernelFn sim_chip_kernel(BlockType t);
/* Scratch words a kernel needs for block b (0 for most). */
int64_t sim_kernel_scratch(const SimBlock *sb);
/* Words of run->wtscratch a kernel needs for block b (CC: its weights; 0 for most). */
int64_t sim_kernel_wt_words(const SimBlock *sb);
/* Words of packed operands block sb keeps for the whole run (0 for most; counted against the
 * caps before anything is allocated). */
int64_t sim_kernel_pack_words(const SimBlock *sb);
/* Decides which blocks' packed weights go over their weight tensors (SimPack.in_place), from
 * the planned copies (their readers) before the region is listed; SimOptions.weights_in_place
 * only. */
void sim_kernel_plan_in_place(SimRun *run);
/* Decides whether sb's packed operands (sb->pack.data, allocated) are constant; called once
 * every buffer of the run is planned. */
void sim_kernel_plan(const SimRun *run, SimBlock *sb);
/* Packs the operands of every block whose packed operands are constant and whose source
 * buffers are in place at planning (every buffer planned), on the run's threads; the others
 * pack at their first step. Runtime error when out of memory, logic error [data.range] when
 * weights packed in place are not all int8 (an unverified graph). */
Status sim_kernel_prepack(SimRun *run, Diag *d);
/* The operations (multiply-accumulates, comparisons) of one step of a compute block, for the
 * work cap; saturates at INT64_MAX. */
int64_t sim_kernel_work(const SimBlock *sb);
/* The int8 path's work units (sim_kernels.c): chunks of output rows times blocks of 64
 * channels, split over the threads as sim_parallel splits n units. sim_dot8_chunks: how many
 * chunks a convolution of Y output rows and F channels takes on nt threads, where a chunk
 * of at most rows rows keeps its bytes in the cache: that fewest, or when it splits unevenly
 * a multiple of nt (each thread then takes the rows the kernels split by rows give it, and
 * has their results in its cache), whichever gives the busiest thread less work (the
 * multiple on a tie); chunk k holds rows Y k / chunks up to the next chunk's.
 * sim_dot8_busiest: that busiest thread's work, in output rows times channels. */
int64_t sim_dot8_chunks(int64_t Y, int64_t F, int64_t rows, uint32_t nt);
int64_t sim_dot8_busiest(int64_t Y, int64_t F, int64_t chunks, uint32_t nt);
/* The kernel's own checks of a planned compute block (attributes it cannot run with). */
Status sim_kernel_check(const SimBlock *sb, Diag *d);
/* Applies one decoded step: in has s->in's volume, out s->out's. */
void sim_rearrange_apply(const RaStep *s, const int32_t *in, int32_t *out);

#endif
