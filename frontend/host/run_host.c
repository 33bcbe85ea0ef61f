/* run_host.c: the host remainder on the simulator's outputs (run_host.h). The chip tensors
 * are handed to fe_run_model as int32 arrays in the remainder's declared input shapes, without
 * copying (same values in C order; only the shape is read differently).
 */
#include "frontend/host/run_host.h"

#include "frontend/host/compile.h"
#include "frontend/interp/run_model.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Status fe_run_host(const OpGraph *host, const SimResult *chip, OgTensor *outputs,
                   const TirProgress *progress, Diag *d)
{
    uint32_t n = og_num_inputs(host);
    if (chip->steps > 1)
        return diag_add(d, ST_LOGIC, "host.steps", NULL, "the chip graph ran %u time steps; "
                        "its host remainder takes one", chip->steps);
    NpyArray *arrays = calloc((size_t)n + 1, sizeof *arrays);
    FeModelInput *in = calloc((size_t)n + 1, sizeof *in);
    char (*names)[64] = calloc((size_t)n + 1, sizeof *names);
    Status st = arrays && in && names ? ST_OK
                : diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    for (uint32_t k = 0; st == ST_OK && k < n; k++) {
        const OgNode *x = og_input(host, k);
        char where[320];
        snprintf(where, sizeof where, "input '%s'", x->name);
        int32_t sock = fe_host_input_socket(x->name);
        const SimTensor *t = NULL;
        for (uint32_t q = 0; sock >= 0 && q < chip->n_outputs && !t; q++)
            if (chip->outputs[q].socket_id == sock)
                t = &chip->outputs[q];
        if (!t) {
            st = diag_add(d, ST_LOGIC, "host.input", where, "the chip graph has no OUTPUT "
                          "block with socket %d for this input of the host remainder",
                          (int)sock);
            break;
        }
        const OgShape *s = &x->out_shape[0];
        int64_t vol = og_shape_volume(s);
        char sb[96];
        if (t->count != vol) {
            st = diag_add(d, ST_LOGIC, "host.batch", where, "chip output %d holds %" PRId64
                          " values, the host remainder takes shape %s (%" PRId64 "): run the "
                          "graph on the model's input shape, batch included", (int)sock,
                          t->count, og_shape_str(s, sb, sizeof sb), vol);
            break;
        }
        arrays[k].dtype = NPY_I32;
        arrays[k].ndim = s->ndim;
        for (uint32_t i = 0; i < s->ndim; i++)
            arrays[k].shape[i] = s->d[i];
        arrays[k].count = vol;
        arrays[k].i32 = t->data;
        snprintf(names[k], sizeof names[k], "chip output %d", (int)sock);
        in[k] = (FeModelInput){x->name, &arrays[k], names[k]};
    }
    if (st == ST_OK)
        st = fe_run_model_progress(host, in, n, outputs, progress, d);
    free(arrays);
    free(in);
    free(names);
    return st;
}
