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

/* Whether array a may give socket s: its natural shape, its model shape, or the model shape
 * without leading 1s (sim.h's rule for a TaskGraph's INPUT). */
static bool shape_fits(const ProgSocket *s, const NpyArray *a)
{
    int64_t dims[4];
    uint32_t n = natural(s, dims);
    if (same(a->shape, a->ndim, dims, n))
        return true;
    if (s->model_rank < (int)a->ndim || a->count != prog_socket_volume(s))
        return false;
    uint32_t lead = (uint32_t)s->model_rank - a->ndim;
    for (uint32_t i = 0; i < lead; i++)
        if (s->model_dims[i] != 1)
            return false;
    return same(a->shape, a->ndim, s->model_dims + lead, a->ndim);
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

static Status take_input(const ProgSet *s, const ProgInput *in, int32_t **values, Diag *d)
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
    if (!shape_fits(sk, a))
        return diag_add(d, ST_LOGIC, "prog.input.shape", NULL, "--input %s: %lld values in "
                        "%u dims do not have socket %d's shape (its natural y x f r dims, or "
                        "its model tensor's)", in->name, (long long)a->count, a->ndim,
                        sk->socket_id);
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

static void shape_output(const ProgSocket *s, ProgOutput *o)
{
    static const struct { const char *name; NpyDtype t; } dt[] = {
        {"int8", NPY_I8}, {"uint8", NPY_U8}, {"int16", NPY_I16}, {"int32", NPY_I32}};
    o->socket_id = s->socket_id;
    o->name = s->name;
    o->dtype = NPY_I32;
    for (size_t i = 0; s->model_dtype && i < sizeof dt / sizeof *dt; i++)
        if (strcmp(s->model_dtype, dt[i].name) == 0)
            o->dtype = dt[i].t;
    o->count = prog_socket_volume(s);
    int64_t mv = 1;
    for (int i = 0; i < s->model_rank; i++)
        mv = s->model_dims[i] > 0 && mv <= PROG_MAX_SOCKET_ELEMS ? mv * s->model_dims[i] : -1;
    if (s->model_rank > 0 && s->model_rank <= NPY_MAX_DIMS && mv == o->count) {
        o->ndim = (uint32_t)s->model_rank;
        memcpy(o->shape, s->model_dims, (size_t)s->model_rank * sizeof *o->shape);
    } else {
        o->ndim = natural(s, o->shape);
    }
}

Status prog_run_arrays(const ProgSet *s, const RunOptions *opt, const ProgInput *in,
                       size_t n_in, ProgOutput **outs, size_t *n_outs, Diag *d)
{
    *outs = NULL;
    *n_outs = 0;
    int32_t **values = calloc(s->n_sockets + 1, sizeof *values);
    if (!values)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    Status st = ST_OK;
    for (size_t i = 0; !st && i < n_in; i++)
        st = take_input(s, &in[i], values, d);
    for (size_t k = 0; !st && k < s->n_sockets; k++)
        if (!s->sockets[k].is_output && !values[k])
            st = diag_add(d, ST_LOGIC, "prog.input.missing", NULL, "input socket %d ('%s') is "
                          "not given (--input %s=X.npy)", s->sockets[k].socket_id,
                          s->sockets[k].name, s->sockets[k].name);
    if (!st)
        st = prog_run(s, opt, values, d);
    size_t n = 0;
    for (size_t k = 0; k < s->n_sockets; k++)
        n += s->sockets[k].is_output;
    if (!st && !(*outs = calloc(n + 1, sizeof **outs)))
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    for (size_t k = 0; k < s->n_sockets; k++) {
        if (!s->sockets[k].is_output)
            continue;
        if (!st) {
            ProgOutput *o = &(*outs)[(*n_outs)++];
            shape_output(&s->sockets[k], o);
            o->data = values[k];
        } else {
            free(values[k]);
        }
    }
    free(values);
    return st;
}

void prog_outputs_free(ProgOutput *outs, size_t n)
{
    for (size_t i = 0; outs && i < n; i++)
        free(outs[i].data);
    free(outs);
}
