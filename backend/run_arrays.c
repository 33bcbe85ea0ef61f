/* run_arrays.c: a program set's run on whole arrays, as taskir-run gives and writes them
 * (run.h): inputs matched to the input sockets by name or socket id and read in the natural
 * or the model shape; outputs in the model tensor's shape and element type, as taskir-run
 * writes a TaskGraph's outputs (sim.h), so that the two runs give the same files. */
#include "backend/run.h"

#include "backend/progset_check.h"
#include "taskir/types.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The natural shape's non-zero dims into dims; returns their number. */
static uint32_t natural(const ProgSocket *s, int64_t *dims)
{
    uint32_t n = 0;
    for (int i = 0; i < 4; i++)
        if (s->shape[i] > 0)
            dims[n++] = s->shape[i];
    return n;
}

static bool same(const int64_t *a, uint32_t na, const int64_t *b, uint32_t nb)
{
    if (na != nb)
        return false;
    for (uint32_t i = 0; i < na; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

/* The samples array a gives socket s: -1 when a has s's natural shape (one sample, no batch
 * dim), N for [N] + the natural shape or for the model tensor's shape (or that shape without
 * leading 1s) holding N samples (sim.h's rule for a TaskGraph's INPUT); 0 when it fits
 * neither. */
static int64_t samples(const ProgSocket *s, const NpyArray *a)
{
    int64_t dims[4];
    uint32_t n = natural(s, dims);
    int64_t vol = prog_socket_volume(s);
    if (same(a->shape, a->ndim, dims, n))
        return -1;
    if (a->ndim == n + 1 && same(a->shape + 1, n, dims, n))
        return a->shape[0];
    if (s->model_rank < (int)a->ndim || vol <= 0 || a->count % vol)
        return 0;
    uint32_t lead = (uint32_t)s->model_rank - a->ndim;
    for (uint32_t i = 0; i < lead; i++)
        if (s->model_dims[i] != 1)
            return 0;
    return same(a->shape, a->ndim, s->model_dims + lead, a->ndim) ? a->count / vol : 0;
}

/* The input socket name names: a decimal socket id, else a name. */
static long find_input(const ProgSet *s, const char *name)
{
    char *end;
    errno = 0;
    long id = strtol(name, &end, 10);
    bool numeric = *name && !*end && !errno && id >= 0 && id <= INT32_MAX;
    for (size_t i = 0; i < s->n_sockets; i++)
        if (!s->sockets[i].is_output &&
            (numeric ? s->sockets[i].socket_id == id : strcmp(s->sockets[i].name, name) == 0))
            return (long)i;
    return -1;
}

/* Matches in to its socket k: values[k] its values, batched[k] whether they hold a batch
 * (whose size goes to *batch, which all batched inputs share). */
static Status take_input(const ProgSet *s, const ProgInput *in, const int32_t **values,
                         bool *batched, int64_t *batch, Diag *d)
{
    long k = find_input(s, in->name);
    if (k < 0)
        return diag_add(d, ST_LOGIC, "prog.input.unknown", NULL, "--input %s: no input socket "
                        "has this name or socket id", in->name);
    const ProgSocket *sk = &s->sockets[k];
    const NpyArray *a = in->array;
    if (values[k])
        return diag_add(d, ST_LOGIC, "prog.input.duplicate", NULL, "input socket %d ('%s') is "
                        "given twice", sk->socket_id, sk->name);
    if (!a->i32)
        return diag_add(d, ST_LOGIC, "prog.input.dtype", NULL, "--input %s: got a %s array, "
                        "expected integers", in->name, npy_dtype_name(a->dtype));
    int64_t ns = samples(sk, a);
    if (ns == 0)
        return diag_add(d, ST_LOGIC, "prog.input.shape", NULL, "--input %s: %lld values in "
                        "%u dims do not have socket %d's shape (its natural y x f r dims, "
                        "[N] + those, or its model tensor's)", in->name, (long long)a->count,
                        a->ndim, sk->socket_id);
    if (ns > 0 && *batch >= 0 && ns != *batch)
        return diag_add(d, ST_LOGIC, "prog.input.batch", NULL, "--input %s: a batch of %lld "
                        "samples, another input has %lld", in->name, (long long)ns,
                        (long long)*batch);
    if (ns > 0)
        *batch = ns;
    batched[k] = ns > 0;
    PrecisionId p;
    if (pr_from_wire(sk->precision, &p))
        for (int64_t i = 0; i < a->count; i++)
            if (a->i32[i] < pr_info(p)->lo || a->i32[i] > pr_info(p)->hi)
                return diag_add(d, ST_LOGIC, "prog.input.range", NULL, "--input %s: value %d at "
                                "flat index %lld is outside %s", in->name, (int)a->i32[i],
                                (long long)i, pr_info(p)->name);
    values[k] = a->i32;
    return ST_OK;
}

/* Output o of socket s for a run of n samples (-1: no batch dim). */
static void shape_output(const ProgSocket *s, int64_t n, ProgOutput *o)
{
    static const struct { const char *name; NpyDtype t; } dt[] = {
        {"int8", NPY_I8}, {"uint8", NPY_U8}, {"int16", NPY_I16}, {"int32", NPY_I32}};
    o->socket_id = s->socket_id;
    o->name = s->name;
    o->dtype = NPY_I32;
    for (size_t i = 0; s->model_dtype && i < sizeof dt / sizeof *dt; i++)
        if (strcmp(s->model_dtype, dt[i].name) == 0)
            o->dtype = dt[i].t;
    o->count = prog_socket_volume(s) * (n > 0 ? n : 1);
    int64_t mv = 1;
    for (int i = 0; i < s->model_rank; i++)
        mv = s->model_dims[i] > 0 && mv <= PROG_MAX_SOCKET_ELEMS ? mv * s->model_dims[i] : -1;
    if (s->model_rank > 0 && s->model_rank <= NPY_MAX_DIMS && mv == o->count) {
        o->ndim = (uint32_t)s->model_rank;
        memcpy(o->shape, s->model_dims, (size_t)s->model_rank * sizeof *o->shape);
    } else {
        o->ndim = n > 0 ? 1 : 0;
        o->shape[0] = n;
        o->ndim += natural(s, o->shape + o->ndim);
    }
}

/* Runs sample j of every input; the outputs go to sample j of outs. */
static Status run_sample(const ProgSet *s, const RunOptions *opt, const int32_t **in,
                         const bool *batched, int64_t j, ProgOutput *outs, Diag *d)
{
    const int32_t **sample = calloc(s->n_sockets + 1, sizeof *sample);
    int32_t **values = calloc(s->n_sockets + 1, sizeof *values);
    if (!sample || !values) {
        free(sample);
        free(values);
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    }
    for (size_t k = 0; k < s->n_sockets; k++)
        if (!s->sockets[k].is_output)
            sample[k] = in[k] + (batched[k] ? j * prog_socket_volume(&s->sockets[k]) : 0);
    Status st = prog_run(s, opt, sample, values, d);
    size_t o = 0;
    for (size_t k = 0; k < s->n_sockets; k++) {
        if (!s->sockets[k].is_output)
            continue;
        int64_t vol = prog_socket_volume(&s->sockets[k]);
        if (!st)
            memcpy(outs[o].data + j * vol, values[k], (size_t)vol * sizeof *values[k]);
        free(values[k]);
        o++;
    }
    free(sample);
    free(values);
    return st;
}

Status prog_run_arrays(const ProgSet *s, const RunOptions *opt, const ProgInput *in,
                       size_t n_in, ProgOutput **outs, size_t *n_outs, Diag *d)
{
    *outs = NULL;
    *n_outs = 0;
    const int32_t **values = calloc(s->n_sockets + 1, sizeof *values);
    bool *batched = calloc(s->n_sockets + 1, sizeof *batched);
    int64_t batch = -1;
    Status st = values && batched ? ST_OK : diag_add(d, ST_RUNTIME, "oom", NULL,
                                                     "out of memory");
    for (size_t i = 0; !st && i < n_in; i++)
        st = take_input(s, &in[i], values, batched, &batch, d);
    for (size_t k = 0; !st && k < s->n_sockets; k++)
        if (!s->sockets[k].is_output && !values[k])
            st = diag_add(d, ST_LOGIC, "prog.input.missing", NULL, "input socket %d ('%s') is "
                          "not given (--input %s=X.npy)", s->sockets[k].socket_id,
                          s->sockets[k].name, s->sockets[k].name);
    size_t n = 0;
    for (size_t k = 0; k < s->n_sockets; k++)
        n += s->sockets[k].is_output;
    if (!st && !(*outs = calloc(n + 1, sizeof **outs)))
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    for (size_t k = 0; !st && k < s->n_sockets; k++) {
        if (!s->sockets[k].is_output)
            continue;
        ProgOutput *o = &(*outs)[(*n_outs)++];
        shape_output(&s->sockets[k], batch, o);
        if (o->count > TIR_MAX_NPY_ELEMS)
            st = diag_add(d, ST_LOGIC, "prog.input.batch", NULL, "output socket %d: %lld "
                          "samples give %lld values, more than an array holds", o->socket_id,
                          (long long)batch, (long long)o->count);
        else if (!(o->data = malloc((size_t)o->count * sizeof *o->data + 1)))
            st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory for the outputs");
    }
    for (int64_t j = 0; !st && j < (batch > 0 ? batch : 1); j++)
        st = run_sample(s, opt, values, batched, j, *outs, d);
    if (st) {
        prog_outputs_free(*outs, *n_outs);
        *outs = NULL;
        *n_outs = 0;
    }
    free(values);
    free(batched);
    return st;
}

void prog_outputs_free(ProgOutput *outs, size_t n)
{
    for (size_t i = 0; outs && i < n; i++)
        free(outs[i].data);
    free(outs);
}
