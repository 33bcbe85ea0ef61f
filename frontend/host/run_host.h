/* run_host.h: what `taskir-run OUT.pb` does after the simulator when OUT.pb has a host
 * remainder (taskir-compile --allow-host, compile.h): the remainder, a CVM model, runs in
 * the reference interpreter on the chip graph's outputs, and its heads are the model's
 * outputs. So `taskir-run OUT.pb` and `taskir-run MODEL.json` write the same files.
 */
#ifndef FRONTEND_RUN_HOST_H
#define FRONTEND_RUN_HOST_H

#include "frontend/opgraph/opgraph.h"
#include "taskir/diag.h"
#include "taskir/progress.h"
#include "taskir/sim.h"

/* Runs host on the simulator's result chip: the remainder's input "output<S>" takes the
 * chip's OUTPUT socket S, its values in C order read in the input's declared shape (the
 * model's full shape, batch included), which must hold as many values: a batch other than
 * the model's, or more than one time step, is a logic error [host.batch, host.steps]; a
 * socket the chip graph lacks is [host.input]. outputs must have room for host->noutputs
 * tensors; outputs[j] receives head j (og_tensor_free each). Then the interpreter's own
 * errors (run_model.h). On failure no output is left allocated. progress (may be NULL) hears
 * of each operator the interpreter runs (fe_run_model_progress). */
Status fe_run_host(const OpGraph *host, const SimResult *chip, OgTensor *outputs,
                   const TirProgress *progress, Diag *d);

#endif
