/* run_model.c: matching named NumPy arrays to a CVM model's inputs, checking them and running
 * the reference interpreter (run_model.h). Every check names the model input and gives what
 * was expected next to what was found, so that taskir-run's message says what to fix.
 */
#include "frontend/interp/run_model.h"

#include "frontend/interp/interp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The position of the model input called name: its name, else a decimal position. */
static int32_t find_input(const OpGraph *g, const char *name)
{
    int32_t k = og_find_input(g, name);
    if (k >= 0)
        return k;
    char *end;
    errno = 0;
    long v = strtol(name, &end, 10);
    if (*name >= '0' && *name <= '9' && !*end && !errno && v >= 0 &&
        v < (long)og_num_inputs(g))
        return (int32_t)v;
    return -1;
}

static void input_where(const char *name, char *buf, size_t size)
{
    snprintf(buf, size, "input '%s'", name);
}

/* The names of the model's inputs, "data" or "data, mask", into buf. */
static const char *input_names(const OpGraph *g, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = 0;
    for (uint32_t k = 0; k < og_num_inputs(g) && used < size; k++) {
        int n = snprintf(buf + used, size - used, "%s%s", k ? ", " : "", og_input(g, k)->name);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    return buf;
}

/* Fills views[k] for every model input k from the arrays, checking each. */
static Status match(const OpGraph *g, const FeModelInput *in, uint32_t n, OgTensor *views,
                    const FeModelInput **given, Diag *d)
{
    uint32_t nin = og_num_inputs(g);
    char where[320], names[256];
    for (uint32_t i = 0; i < n; i++) {
        int32_t k = find_input(g, in[i].name);
        input_where(in[i].name, where, sizeof where);
        if (k < 0)
            return diag_add(d, ST_LOGIC, "cvm.input.unknown", where,
                            "the model has no input of that name (its inputs: %s)",
                            input_names(g, names, sizeof names));
        const OgNode *node = og_input(g, (uint32_t)k);
        input_where(node->name, where, sizeof where);
        if (given[k])
            return diag_add(d, ST_LOGIC, "cvm.input.duplicate", where, "given twice (as '%s' "
                            "and '%s')", given[k]->name, in[i].name);
        given[k] = &in[i];
        const NpyArray *a = in[i].array;
        const char *file = in[i].file ? in[i].file : "the array";
        if (!a->i32)
            return diag_add(d, ST_LOGIC, "cvm.input.dtype", where, "%s holds %s values; a model "
                            "input takes int8, uint8, int16, uint16, int32 or int64", file,
                            npy_dtype_name(a->dtype));
        OgShape got = {0, {0}};
        bool fits = a->ndim >= 1 && a->ndim <= OG_MAX_DIMS;
        if (fits) {
            got.ndim = a->ndim;
            for (uint32_t j = 0; j < a->ndim; j++)
                got.d[j] = a->shape[j];
        }
        if (!fits || !og_shape_eq(&got, &node->out_shape[0])) {
            char want[128], have[160];
            og_shape_str(&node->out_shape[0], want, sizeof want);
            if (fits) {
                og_shape_str(&got, have, sizeof have);
            } else {
                snprintf(have, sizeof have, "%u dims", a->ndim);
            }
            return diag_add(d, ST_LOGIC, "cvm.input.shape", where, "%s has shape %s, the model "
                            "expects %s", file, have, want);
        }
        Diag sub;
        diag_init(&sub, NULL);
        Status st = fe_tensor_from_npy(a, where, &views[k], &sub);
        diag_finish(&sub);
        if (st != ST_OK) /* cannot happen after the checks above */
            return diag_add(d, ST_RUNTIME, "cvm.interp.invariant", where,
                            "the checked array could not be viewed as a tensor");
    }
    for (uint32_t k = 0; k < nin; k++)
        if (!given[k]) {
            input_where(og_input(g, k)->name, where, sizeof where);
            return diag_add(d, ST_LOGIC, "cvm.input.missing", where, "no array given for this "
                            "model input");
        }
    return ST_OK;
}

Status fe_run_model(const OpGraph *g, const FeModelInput *inputs, uint32_t ninputs,
                    OgTensor *outputs, Diag *d)
{
    return fe_run_model_progress(g, inputs, ninputs, outputs, NULL, d);
}

Status fe_run_model_progress(const OpGraph *g, const FeModelInput *inputs, uint32_t ninputs,
                             OgTensor *outputs, const TirProgress *progress, Diag *d)
{
    for (uint32_t j = 0; j < g->noutputs; j++)
        memset(&outputs[j], 0, sizeof outputs[j]);
    uint32_t nin = og_num_inputs(g);
    OgTensor *views = calloc(nin ? nin : 1, sizeof *views);
    const FeModelInput **given = calloc(nin ? nin : 1, sizeof *given);
    Status st = views && given ? ST_OK : diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    if (st == ST_OK)
        st = match(g, inputs, ninputs, views, given, d);
    if (st == ST_OK)
        st = fe_interp_run_progress(g, views, nin, outputs, progress, d);
    free(views);
    free(given);
    return st;
}
