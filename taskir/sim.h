/* sim.h: the functional simulator of TaskGraphs, bit-exact with the semantics of
 * docs/semantics.md. It is the toolchain's oracle:
 * lowerings, passes and mappings are accepted when its results stay bit-identical.
 *
 * A SimRun is planned once from a graph (sim_create) and then runs samples in process, no
 * files needed:
 *   - high level: sim_run() takes whole arrays per INPUT block (optionally with a leading
 *     batch dim and/or a leading time dim) and returns one array per OUTPUT block;
 *   - low level: sim_set_input() one sample per INPUT, sim_step() one time step,
 *     sim_output() / sim_block_result() read results, sim_reset() restarts CLIF state.
 * Every value is an int32; accumulation is exact (64-bit or, equivalently, modulo 2^32) and
 * each compute block wraps and clamps as documented. The graph must stay alive and unchanged
 * while the run exists. The library never prints: errors go to the Diag, with rule ids
 * sim.* (docs/semantics.md "Errors").
 */
#ifndef TASKIR_SIM_H
#define TASKIR_SIM_H

#include "taskir/graph.h"
#include "taskir/npy.h"
#include "taskir/progress.h"

#include <stdbool.h>
#include <stdint.h>

/* Caps checked before anything is allocated (limit.sim): elements of one buffer, of all
 * buffers of a run, of all result arrays of sim_run, and the work (multiply-accumulates,
 * comparisons and copied elements) of one time step. */
#define SIM_MAX_BUFFER_ELEMS ((int64_t)1 << 28)
#define SIM_MAX_TOTAL_ELEMS ((int64_t)1 << 31)
#define SIM_MAX_STEP_WORK ((int64_t)1 << 38)

typedef struct SimOptions {
    uint32_t threads;   /* worker threads for the large kernels; 0 or 1: this thread only */
    uint32_t steps;     /* time steps per sample for sim_run (0 reads as 1) */
    bool keep_all;      /* sim_run also returns every block's result (--dump-all) */
    bool share_buffers; /* buffers that are not in use at once share memory (a run then
                           needs about its largest live set); after a step sim_block_result
                           then holds only for INPUT and OUTPUT blocks, storage blocks that no
                           edge writes and the blocks whose result an OUTPUT reads whole.
                           Ignored with keep_all. */
    bool weights_in_place; /* the int8 path's packed weights (sim_dot8.h) of a CC, CC2D or
                           CVM go over its weight tensor instead of into the run's memory,
                           when that tensor is the graph's INT_8 data of a storage block
                           nothing else reads: the graph's data then no longer holds those
                           values (the caller has verified the graph, reads none of its data
                           tensors while or after the run, and does not sim_use_chip the run,
                           whose kernels read the weights as they are). Ignored with keep_all
                           and on a CPU without the int8 dot-product instruction. */
    struct TirPool *pool; /* worker threads the caller made (parallel.h), borrowed for the
                           run's planning and kernels instead of a pool of its own (the
                           caller destroys it after sim_destroy, and may use it for its own
                           work meanwhile: taskir-run drops the file's pages on it); NULL: a
                           pool of threads threads is made. */
} SimOptions;

typedef struct SimRun SimRun;
struct Chip; /* taskir/chip.h */

/* Does a run with these options take a graph's int8 weights held narrow (LoadOptions.narrow,
 * Tensor.i8) without widening them? True when the int8 path packs weights in place
 * (weights_in_place, no keep_all, a CPU with the int8 dot-product instruction): a weight
 * tensor it packs over is then never an int32 array. Any graph loaded narrow runs with the
 * same results; a narrow tensor no block packs over is widened into memory of the run's own. */
bool sim_packs_narrow(const SimOptions *opt);

/* Plans a run: checks what execution needs (cluster counts and volumes, data tensors, edge
 * ends, rearrangement parameters, no cycle, unique socket ids, caps) and allocates every
 * buffer. It does not run the verifier; tools run verify_graph first. On success *out is a
 * new run (sim_destroy it); ST_LOGIC names the block or edge at fault. */
Status sim_create(const Graph *g, const SimOptions *opt, SimRun **out, Diag *d);
void sim_destroy(SimRun *run); /* accepts NULL */
/* From now on, runs the blocks with the chip's arithmetic where it differs from the
 * TaskGraph's (saturating accumulation, P05's shifts and clips: sim_chip.c,
 * docs/exactness.md); NULL: the TaskGraph's again. The chip must outlive the run. */
void sim_use_chip(SimRun *run, const struct Chip *chip);

/* ---- one sample at a time ---- */

/* INPUT and OUTPUT blocks, in graph order. */
uint32_t sim_n_inputs(const SimRun *run);
uint32_t sim_n_outputs(const SimRun *run);
const Block *sim_input_block(const SimRun *run, uint32_t k);
const Block *sim_output_block(const SimRun *run, uint32_t k);
/* The natural shape of INPUT k / OUTPUT k: the block's non-zero dims in y x f r order. */
uint32_t sim_input_shape(const SimRun *run, uint32_t k, int64_t shape[NPY_MAX_DIMS]);
uint32_t sim_output_shape(const SimRun *run, uint32_t k, int64_t shape[NPY_MAX_DIMS]);
/* Finds the INPUT block named by name: a decimal socket id, else a block name. Logic error
 * [sim.input.unknown] when none matches, [sim.input.name] when the name is ambiguous. */
Status sim_find_input(const SimRun *run, const char *name, uint32_t *k, Diag *d);
/* Sets INPUT k to count values (C order of its natural shape). Logic error when count is
 * wrong [sim.input.shape] or a value is outside the block's precision [sim.input.range]. */
Status sim_set_input(SimRun *run, uint32_t k, const int32_t *values, int64_t count, Diag *d);
/* Sets every CLIF membrane potential to its VINIT (also done by sim_create). */
void sim_reset(SimRun *run);
/* Runs one time step over every block in topological order. Logic error for a CLUT index
 * out of range [sim.lut]. */
Status sim_step(SimRun *run, Diag *d);
/* OUTPUT k's values after the last step (count from sim_output_shape). */
const int32_t *sim_output(const SimRun *run, uint32_t k, int64_t *count);
/* The result of the block at position pos of g->blocks after the last step: storage content,
 * compute output, INPUT or OUTPUT data; its natural shape goes to shape/ndim. */
const int32_t *sim_block_result(const SimRun *run, uint32_t pos, int64_t shape[NPY_MAX_DIMS],
                                uint32_t *ndim, int64_t *count);

/* ---- whole arrays ---- */

typedef struct SimInput {
    const char *name;           /* socket id or block name, as for sim_find_input */
    const NpyArray *array;      /* int8/uint8/int16/int32 values (i32 filled) */
} SimInput;

typedef struct SimTensor {
    int32_t block_id;
    int32_t socket_id;          /* OUTPUT blocks */
    NpyDtype dtype;             /* the element type of its file: the OUTPUT block's model
                                   tensor's (INT_8 -> NPY_I8, UINT_8, INT_16), else NPY_I32 */
    uint32_t ndim;
    int64_t shape[NPY_MAX_DIMS];
    int64_t count;
    int32_t *data;              /* malloc'd, C order */
} SimTensor;

typedef struct SimResult {
    SimTensor *outputs;         /* one per OUTPUT block, in graph order */
    uint32_t n_outputs;
    SimTensor *blocks;          /* keep_all: one per block, in graph order; else NULL */
    uint32_t n_blocks;
    uint32_t batch;             /* samples run (0: the inputs had no batch dim) */
    uint32_t steps;
} SimResult;

/* Runs whole arrays. Each INPUT block must be given exactly once. An array of the block's
 * natural shape S is one sample, applied at every time step. With steps T > 1 an array of
 * shape [T]+S gives one slice per step and [N,T]+S a batch of N; with T == 1, [N]+S is a
 * batch. An array of the shape of the INPUT block's model tensor (extension field 101, e.g. a
 * rank-6 model input carried in 4 dims) is read as [N]+S with N = its volume / S's. Every
 * sample starts from sim_reset. Results have shape [N]? [T]? S: N when any input has a batch
 * dim, T when T > 1; with T == 1 an OUTPUT with a model tensor holding exactly the result's
 * number of values (the model's batch) gets the model tensor's shape instead. Logic errors:
 * [sim.input.missing], [sim.input.unknown], [sim.input.duplicate], [sim.input.dtype],
 * [sim.input.shape], [sim.input.batch], [sim.input.range], [sim.lut], [limit.sim]. On error
 * res is left empty. */
Status sim_run(SimRun *run, const SimInput *inputs, uint32_t n_inputs, SimResult *res,
               Diag *d);
/* sim_run reporting each block it runs to progress (may be NULL): "block" k of samples x
 * steps x blocks. */
Status sim_run_progress(SimRun *run, const SimInput *inputs, uint32_t n_inputs,
                        SimResult *res, const TirProgress *progress, Diag *d);
void sim_result_free(SimResult *res); /* accepts NULL; leaves it empty */

#endif
