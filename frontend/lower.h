/* lower.h: lowering an OpGraph of dialect "cvm" to a TaskGraph (docs/lowering.md).
 *
 * The TaskGraph describes ONE sample: the model input's axis 0 is the batch N, the INPUT and
 * OUTPUT blocks have the per-sample shapes, and sim_run loops over a leading batch dim, when
 * every operator keeps the samples apart (axis 0 untouched); when one mixes them (the
 * per-sample lowering finds [lower.batch]) the model is lowered again with the whole tensor
 * as the unit, and the INPUT blocks take the whole (N, ...) arrays. Every operator of
 * cvm_ops.def lowers onto compute blocks, storage blocks and edges that compute bit for bit
 * what the reference interpreter computes (frontend/interp.h); where the mechanisms cannot
 * do that for some operand precision or attribute the lowering fails with a logic error
 * naming the node and the reason, never a silently different graph. Data movement (reshape,
 * transpose, slices, concatenate, repeat, tile, upsampling, take with constant indices,
 * broadcasting) becomes interfaces and edge rearrangements, not compute blocks, wherever the
 * Task IR can express it.
 *
 * Rule ids (docs/lowering.md): lower.io, lower.precision, lower.param,
 * lower.dynamic, lower.host, lower.limit, and lower.verify (a runtime error: the lowered
 * graph failed the verifier, i.e. a bug of the lowering).
 */
#ifndef FRONTEND_LOWER_H
#define FRONTEND_LOWER_H

#include "frontend/opgraph.h"
#include "taskir/diag.h"
#include "taskir/graph.h"

#include <stdbool.h>

typedef struct LowerOptions {
    bool no_verify;     /* skip the final verify_graph (it runs by default) */
    bool allow_host;    /* fe_lower_split (host_split.h): leave the data-dependent operators
                           and what depends on them to a host remainder; fe_lower itself
                           lowers every node and ignores it */
} LowerOptions;

/* Lowers og (dialect "cvm", shapes and precisions inferred, e.g. by fe_cvm_load) to a new
 * TaskGraph. opt may be NULL (defaults). On success *out is the graph (graph_destroy it); it
 * has verified clean unless opt->no_verify. Logic errors name the node: "node 12 'conv1'
 * (conv2d): ... [lower.*]"; runtime errors for out of memory and for a graph that fails the
 * verifier ([lower.verify], followed by the verifier's findings). */
Status fe_lower(const OpGraph *og, const LowerOptions *opt, Graph **out, Diag *d);

#endif
