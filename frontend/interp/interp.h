/* interp.h: the reference interpreter over an OpGraph (dialect "cvm": the CVM formalization and
 * design text exactly, where they disagree the design text; docs/cvm-divergences.md lists where
 * cvm-runtime's own CPU code differs and what we do). It is the oracle the simulator is checked
 against. *
 * Arithmetic is exact: int64 wherever an intermediate can leave int32, shift amounts checked,
 * no undefined behaviour; conv2d and dense run as an int32 matrix product where the operands'
 * magnitudes prove it exact (frontend/cvm/cvm_gemm.h), else by their int64 formula. Inputs are checked against the model (shape [cvm.input.shape],
 * values within the input's precision [cvm.input.range]); after every operator the results
 * are checked against the inferred precision (an internal invariant [cvm.interp.invariant]).
 * Intermediate tensors are freed as soon as their last consumer has run.
 */
#ifndef FRONTEND_INTERP_H
#define FRONTEND_INTERP_H

#include "frontend/opgraph/opgraph.h"
#include "taskir/diag.h"
#include "taskir/npy.h"
#include "taskir/progress.h"

/* Runs g. inputs[k] feeds og_input(g, k) for k < ninputs == og_num_inputs(g); inputs are
 * only read. outputs must have room for g->noutputs tensors: outputs[j] receives the j-th
 * model output (malloc'd data: og_tensor_free each). On failure no output is left allocated.
 * Logic errors for bad inputs; runtime errors for out of memory or a broken invariant. */
Status fe_interp_run(const OpGraph *g, const OgTensor *inputs, uint32_t ninputs,
                     OgTensor *outputs, Diag *d);
/* fe_interp_run reporting each operator it runs to progress (may be NULL): "operator" k of
 * the graph's operators (inputs and constants not counted). */
Status fe_interp_run_progress(const OpGraph *g, const OgTensor *inputs, uint32_t ninputs,
                              OgTensor *outputs, const TirProgress *progress, Diag *d);

/* Views an .npy array (any integer dtype; npy_read widens it to int32) as an interpreter
 * input without copying: t->data points into a. what names the input in messages. Logic
 * error [cvm.input.shape] for float data or a shape outside 1..OG_MAX_DIMS dims.
 * taskir-run MODEL.json: og_find_input(g, NAME) gives the position of `--input NAME=X.npy`;
 * the j-th output is written with npy_write_i32(path, t.data, t.shape.d, t.shape.ndim). */
Status fe_tensor_from_npy(const NpyArray *a, const char *what, OgTensor *t, Diag *d);

#endif
