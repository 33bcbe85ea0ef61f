/* test_onnx_conformance.c: the ONNX backend node tests that Debian's libonnx-testdata
 * installs, through the ONNX frontend, the reference interpreter and the simulator.
 *
 * For every test directory under DATA (default /usr/share/libonnx-testdata/data/node) whose
 * nodes are all operators the frontend supports, at their opset:
 *   - the graph inputs that feed a parameter input of a node (weights, shapes, indices,
 *     scales: fe_onnx_input_is_param) are bound to their test values as initializers, as a
 *     real model holds them;
 *   - the model is loaded (float inputs that hold integers get the precision their values
 *     need), the inputs converted at the model's edges, the OpGraph run by the interpreter,
 *     lowered, verified, simulated; the two must agree bit for bit, and the interpreter's
 *     outputs, converted back at the edges, must equal the shipped expected outputs (floats
 *     bit for bit).
 * A test the frontend rejects (a type, attribute or value it does not take), or whose graph
 * the lowering rejects (a logic error: the chip's mechanisms cannot compute it exactly), is
 * skipped with the reason; expected_skips.txt lists every expected skip with its rule id, and a skip not
 * listed there (or for another rule) fails the suite, so a regression cannot hide as a skip.
 *
 * Usage: test_onnx_conformance EXPECTED_SKIPS [DATA]. Exit 0 when every test that ran
 * passed and every skip was expected, 1 otherwise, 77 when DATA does not exist.
 */
#include "frontend/interp.h"
#include "frontend/lower.h"
#include "frontend/onnx.h"
#include "frontend/onnx.pb-c.h"
#include "taskir/fileio.h"
#include "taskir/sim.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_IO 16

typedef struct Skip {
    char name[128];
    char rule[64];
    bool seen;
} Skip;

typedef struct Run {
    int ran, passed, failed, skipped, unexpected, na;
    /* the same counts over the tests whose graph inputs are all integer tensors */
    bool cur_int;           /* the test being run is one of them */
    int int_tests, int_na, int_passed, int_failed, int_skipped;
    Skip *skips;
    size_t nskips;
} Run;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0;
}

/* The first error's rule and text. */
static void first_error(const Diag *d, char *rule, size_t rs, char *msg, size_t ms)
{
    snprintf(rule, rs, "?");
    snprintf(msg, ms, "?");
    for (size_t i = 0; i < d->n; i++)
        if (d->entries[i].status != ST_OK) {
            snprintf(rule, rs, "%s", d->entries[i].rule);
            snprintf(msg, ms, "%s%s%s", d->entries[i].where ? d->entries[i].where : "",
                     d->entries[i].where && d->entries[i].where[0] ? ": " : "",
                     d->entries[i].what ? d->entries[i].what : "");
            return;
        }
}

static Skip *find_skip(Run *r, const char *name)
{
    for (size_t i = 0; i < r->nskips; i++)
        if (strcmp(r->skips[i].name, name) == 0)
            return &r->skips[i];
    return NULL;
}

static void skip(Run *r, const char *name, const char *rule, const char *msg)
{
    Skip *s = find_skip(r, name);
    r->skipped++;
    r->int_skipped += r->cur_int;
    if (s && strcmp(s->rule, rule) == 0) {
        s->seen = true;
        printf("SKIP %s [%s] %s\n", name, rule, msg);
        return;
    }
    r->unexpected++;
    printf("UNEXPECTED SKIP %s [%s] %s%s%s\n", name, rule, msg, s ? " (expected rule " : "",
           s ? s->rule : "");
    if (s)
        printf(")\n");
    printf("  expected_skips.txt line: %s %s\n", name, rule);
}

static void fail(Run *r, const char *name, const char *what, const Diag *d)
{
    char rule[64], msg[1024];
    r->failed++;
    r->int_failed += r->cur_int;
    if (d) {
        first_error(d, rule, sizeof rule, msg, sizeof msg);
        printf("FAIL %s: %s: [%s] %s\n", name, what, rule, msg);
    } else {
        printf("FAIL %s: %s\n", name, what);
    }
}

/* Does some node read graph input `name` at a parameter position? */
static bool feeds_param(const Onnx__GraphProto *g, const char *name)
{
    for (size_t i = 0; i < g->n_node; i++)
        for (size_t k = 0; k < g->node[i]->n_input; k++)
            if (g->node[i]->input[k] && strcmp(g->node[i]->input[k], name) == 0 &&
                fe_onnx_input_is_param(g->node[i]->op_type, (uint32_t)k))
                return true;
    return false;
}

static bool is_initializer(const Onnx__GraphProto *g, const char *name)
{
    for (size_t i = 0; i < g->n_initializer; i++)
        if (g->initializer[i]->name && strcmp(g->initializer[i]->name, name) == 0)
            return true;
    return false;
}

static bool is_int_type(int32_t t)
{
    return t == ONNX_T_UINT8 || t == ONNX_T_INT8 || t == ONNX_T_UINT16 || t == ONNX_T_INT16 ||
           t == ONNX_T_INT32 || t == ONNX_T_INT64 || t == ONNX_T_BOOL || t == ONNX_T_UINT32 ||
           t == ONNX_T_UINT64;
}

/* Are the graph's runtime inputs (initializers aside) all integer tensors? */
static bool integer_inputs(const Onnx__GraphProto *g)
{
    size_t n = 0;
    for (size_t i = 0; i < g->n_input; i++) {
        if (is_initializer(g, g->input[i]->name))
            continue;
        const Onnx__TypeProto *tp = g->input[i]->type;
        if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type ||
            !is_int_type(tp->tensor_type->elem_type))
            return false;
        n++;
    }
    return n > 0;
}

static int32_t prec_of(double m)
{
    int32_t p = 1;
    while (p < 32 && (double)((((int64_t)1) << (p - 1)) - 1) < m)
        p++;
    return p < 2 ? 2 : p;
}

static bool values_equal_float(float a, float b)
{
    if (a != a && b != b)
        return true;
    uint32_t x, y;
    memcpy(&x, &a, 4);
    memcpy(&y, &b, 4);
    return x == y;
}

/* Do the simulator's output and the interpreter's declared shape both have the expected
 * output's shape exactly (the leading 1 included)? */
static bool same_shape(const SimTensor *o, const OgShape *decl, const OnnxTensor *want)
{
    if (o->ndim != want->ndim || decl->ndim != want->ndim)
        return false;
    for (uint32_t i = 0; i < want->ndim; i++)
        if (o->shape[i] != want->dims[i] || decl->d[i] != want->dims[i])
            return false;
    return true;
}

/* The element type taskir-run writes for an output of ONNX type t, as onnxruntime does for
 * int8, uint8, int16 and int32 (int32 for every other type: the chip-side integers). */
static NpyDtype file_dtype(int32_t t)
{
    return t == ONNX_T_INT8 ? NPY_I8 : t == ONNX_T_UINT8 ? NPY_U8
           : t == ONNX_T_INT16 ? NPY_I16 : NPY_I32;
}

static void run_test(Run *r, const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/model.onnx", dir, name);
    uint8_t *buf = NULL;
    size_t len = 0;
    Diag d;
    diag_init(&d, path);
    if (tir_read_file(path, (size_t)256 << 20, &buf, &len, &d) != ST_OK) {
        diag_finish(&d);
        return;
    }
    Onnx__ModelProto *mp = (Onnx__ModelProto *)protobuf_c_message_unpack(
        &onnx__model_proto__descriptor, NULL, len, buf);
    if (!mp || !mp->graph) {
        if (mp)
            protobuf_c_message_free_unpacked(&mp->base, NULL);
        free(buf);
        diag_finish(&d);
        return;
    }
    int64_t opset = 0;
    for (size_t i = 0; i < mp->n_opset_import; i++)
        if (!mp->opset_import[i]->domain || !mp->opset_import[i]->domain[0])
            opset = mp->opset_import[i]->version;
    const Onnx__GraphProto *g = mp->graph;
    r->cur_int = integer_inputs(g);
    r->int_tests += r->cur_int;
    bool supported = g->n_node > 0;
    for (size_t i = 0; i < g->n_node && supported; i++)
        supported = (!g->node[i]->domain || !g->node[i]->domain[0]) &&
                    fe_onnx_op_supported(g->node[i]->op_type, opset);
    OnnxTensor in[MAX_IO], want[MAX_IO];
    memset(in, 0, sizeof in);
    memset(want, 0, sizeof want);
    OnnxBinding bind[MAX_IO];
    uint32_t nin = 0, nbind = 0, nout = (uint32_t)g->n_output;
    OnnxModel *m = NULL;
    Graph *tg = NULL;
    SimRun *run = NULL;
    OgTensor conv[MAX_IO], iout[MAX_IO];
    memset(conv, 0, sizeof conv);
    memset(iout, 0, sizeof iout);
    bool have_iout = false;
    SimResult res;
    memset(&res, 0, sizeof res);
    char rule[64], msg[1024];
    if (!supported) {
        r->na++;
        r->int_na += r->cur_int;
        goto done;
    }
    if (g->n_input > MAX_IO || nout > MAX_IO) {
        skip(r, name, "test.io", "too many inputs or outputs for the harness");
        goto done;
    }
    /* the test data: input_k for the k-th graph input that is not an initializer */
    double fmax = 0;
    for (size_t i = 0; i < g->n_input; i++) {
        const char *vn = g->input[i]->name;
        if (is_initializer(g, vn))
            continue;
        const Onnx__TypeProto *tp = g->input[i]->type;
        if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE) {
            skip(r, name, "onnx.graph.type", "a graph input is not a tensor");
            goto done;
        }
        snprintf(path, sizeof path, "%s/%s/test_data_set_0/input_%u.pb", dir, name, nin);
        if (fe_onnx_tensor_read(path, &in[nin], &d) != ST_OK) {
            /* an input that is no tensor (a sequence, an optional) */
            first_error(&d, rule, sizeof rule, msg, sizeof msg);
            skip(r, name, rule, msg);
            goto done;
        }
        in[nin].name = vn;
        if (feeds_param(g, vn)) {
            bind[nbind].name = vn;
            bind[nbind].value = &in[nin];
            nbind++;
        } else if (in[nin].f) {
            for (int64_t j = 0; j < in[nin].count; j++) {
                double v = in[nin].f[j] < 0 ? -(double)in[nin].f[j] : (double)in[nin].f[j];
                if (v == (double)(int64_t)v && v > fmax)
                    fmax = v;
            }
        }
        nin++;
    }
    for (uint32_t j = 0; j < nout; j++) {
        snprintf(path, sizeof path, "%s/%s/test_data_set_0/output_%u.pb", dir, name, j);
        if (fe_onnx_tensor_read(path, &want[j], &d) != ST_OK) {
            first_error(&d, rule, sizeof rule, msg, sizeof msg);
            skip(r, name, rule, msg);
            goto done;
        }
    }
    OnnxOptions opt = {.float_prec = prec_of(fmax), .bind = bind, .nbind = nbind};
    Status st = fe_onnx_load_mem(buf, len, &opt, &m, &d);
    if (st == ST_LOGIC) {
        first_error(&d, rule, sizeof rule, msg, sizeof msg);
        skip(r, name, rule, msg);
        goto done;
    }
    if (st != ST_OK) {
        fail(r, name, "loading", &d);
        goto done;
    }
    /* the runtime inputs, in the model's order */
    for (uint32_t k = 0; k < m->ninputs; k++) {
        const OnnxTensor *t = NULL;
        for (uint32_t i = 0; i < nin; i++)
            if (strcmp(in[i].name, m->inputs[k].name) == 0)
                t = &in[i];
        if (!t) {
            fail(r, name, "an input without test data", NULL);
            goto done;
        }
        st = fe_onnx_input_convert(m, k, t->i, t->f, t->count, &conv[k], &d);
        if (st == ST_LOGIC) {
            first_error(&d, rule, sizeof rule, msg, sizeof msg);
            skip(r, name, rule, msg);
            goto done;
        }
        if (st != ST_OK) {
            fail(r, name, "converting an input", &d);
            goto done;
        }
    }
    r->ran++;
    if (fe_interp_run(m->g, conv, m->ninputs, iout, &d) != ST_OK) {
        fail(r, name, "the interpreter", &d);
        goto done;
    }
    have_iout = true;
    st = fe_lower(m->g, NULL, &tg, &d);
    if (st == ST_LOGIC) {
        /* the chip's mechanisms cannot compute it exactly: listed like any skip */
        r->ran--;
        first_error(&d, rule, sizeof rule, msg, sizeof msg);
        skip(r, name, rule, msg);
        goto done;
    }
    if (st != ST_OK) {
        fail(r, name, "lowering", &d);
        goto done;
    }
    SimOptions so = {0};
    if (sim_create(tg, &so, &run, &d) != ST_OK) {
        fail(r, name, "planning the simulation", &d);
        goto done;
    }
    NpyArray arr[MAX_IO];
    SimInput si[MAX_IO];
    char names[MAX_IO][16];
    for (uint32_t k = 0; k < m->ninputs; k++) {
        memset(&arr[k], 0, sizeof arr[k]);
        arr[k].dtype = NPY_I32;
        arr[k].ndim = m->inputs[k].shape.ndim;
        for (uint32_t j = 0; j < arr[k].ndim; j++)
            arr[k].shape[j] = m->inputs[k].shape.d[j];
        arr[k].count = conv[k].count;
        arr[k].i32 = conv[k].data;
        snprintf(names[k], sizeof names[k], "%u", k);
        si[k].name = names[k];
        si[k].array = &arr[k];
    }
    if (sim_run(run, si, m->ninputs, &res, &d) != ST_OK) {
        fail(r, name, "the simulator", &d);
        goto done;
    }
    if (m->noutputs != nout) {
        fail(r, name, "output count", NULL);
        goto done;
    }
    for (uint32_t j = 0; j < nout; j++) {
        const SimTensor *o = NULL;
        for (uint32_t k = 0; k < res.n_outputs; k++)
            if (res.outputs[k].socket_id == (int32_t)j)
                o = &res.outputs[k];
        if (!o || o->count != iout[j].count) {
            fail(r, name, "the simulator's output differs in size from the interpreter's",
                 NULL);
            goto done;
        }
        if (!same_shape(o, og_output_shape(m->g, j), &want[j]) ||
            o->dtype != file_dtype(want[j].type)) {
            char w[256];
            snprintf(w, sizeof w, "output %u: the simulator gives %s of %u dims, the model "
                     "declares %s of %u dims (and %u dims by the interpreter)", j,
                     npy_dtype_name(o->dtype), o->ndim, fe_onnx_type_name(want[j].type),
                     want[j].ndim, og_output_shape(m->g, j)->ndim);
            fail(r, name, w, NULL);
            goto done;
        }
        for (int64_t i = 0; i < o->count; i++)
            if (o->data[i] != iout[j].data[i]) {
                char w[256];
                snprintf(w, sizeof w, "output %u element %lld: interpreter %d, simulator %d", j,
                         (long long)i, iout[j].data[i], o->data[i]);
                fail(r, name, w, NULL);
                goto done;
            }
        if (iout[j].count != want[j].count) {
            char w[256];
            snprintf(w, sizeof w, "output %u has %lld elements, expected %lld", j,
                     (long long)iout[j].count, (long long)want[j].count);
            fail(r, name, w, NULL);
            goto done;
        }
        int64_t *oi;
        float *of;
        if (fe_onnx_output_convert(m, j, iout[j].data, iout[j].count, &oi, &of, &d) != ST_OK) {
            fail(r, name, "converting an output", &d);
            goto done;
        }
        bool ok = true;
        int64_t bad = -1;
        for (int64_t i = 0; i < want[j].count && ok; i++) {
            if (want[j].f)
                ok = of ? values_equal_float(of[i], want[j].f[i])
                        : (double)oi[i] == (double)want[j].f[i];
            else
                ok = oi ? oi[i] == want[j].i[i] : (double)of[i] == (double)want[j].i[i];
            bad = ok ? -1 : i;
        }
        if (!ok) {
            char w[256];
            double got = of ? (double)of[bad] : (double)oi[bad];
            double exp = want[j].f ? (double)want[j].f[bad] : (double)want[j].i[bad];
            snprintf(w, sizeof w, "output %u element %lld is %.9g, expected %.9g", j,
                     (long long)bad, got, exp);
            free(oi);
            free(of);
            fail(r, name, w, NULL);
            goto done;
        }
        free(oi);
        free(of);
    }
    r->passed++;
    r->int_passed += r->cur_int;
    printf("PASS %s (%u blocks)\n", name, tg->n_blocks);
done:
    sim_result_free(&res);
    sim_destroy(run);
    graph_destroy(tg);
    for (uint32_t j = 0; j < MAX_IO; j++) {
        if (have_iout && m && j < m->noutputs)
            og_tensor_free(&iout[j]);
        og_tensor_free(&conv[j]);
        fe_onnx_tensor_free(&in[j]);
        fe_onnx_tensor_free(&want[j]);
    }
    fe_onnx_destroy(m);
    protobuf_c_message_free_unpacked(&mp->base, NULL);
    free(buf);
    diag_finish(&d);
}

static void load_skips(Run *r, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        Skip s;
        memset(&s, 0, sizeof s);
        if (sscanf(line, "%127s %63s", s.name, s.rule) != 2)
            continue;
        Skip *ns = realloc(r->skips, (r->nskips + 1) * sizeof *ns);
        if (!ns)
            exit(1);
        r->skips = ns;
        r->skips[r->nskips++] = s;
    }
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s EXPECTED_SKIPS [DATA]\n", argv[0]);
        return 1;
    }
    const char *dir = argc > 2 ? argv[2] : "/usr/share/libonnx-testdata/data/node";
    if (!exists(dir)) {
        printf("%s does not exist (Debian package libonnx-testdata): skipped\n", dir);
        return 77;
    }
    Run r;
    memset(&r, 0, sizeof r);
    load_skips(&r, argv[1]);
    DIR *dp = opendir(dir);
    if (!dp)
        return 1;
    char **names = NULL;
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(dp))) {
        if (de->d_name[0] == '.')
            continue;
        char **nn = realloc(names, (n + 1) * sizeof *nn);
        if (!nn || !(nn[n] = strdup(de->d_name)))
            return 1;
        names = nn;
        n++;
    }
    closedir(dp);
    qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        run_test(&r, dir, names[i]);
        free(names[i]);
    }
    free(names);
    int stale = 0;
    for (size_t i = 0; i < r.nskips; i++)
        if (!r.skips[i].seen) {
            printf("NOTE %s is listed in expected_skips.txt but was not skipped\n",
                   r.skips[i].name);
            stale++;
        }
    printf("\nonnx conformance: %zu node tests, %d of operators the frontend does not support; "
           "%d ran, %d passed, %d failed; %d skipped (%d unexpected); %d stale expected "
           "skips\n", n, r.na, r.ran, r.passed, r.failed, r.skipped, r.unexpected, stale);
    printf("onnx conformance, integer inputs: %d node tests, %d of operators the frontend does "
           "not support; %d passed (interpreter and simulator), %d failed, %d skipped\n",
           r.int_tests, r.int_na, r.int_passed, r.int_failed, r.int_skipped);
    free(r.skips);
    return r.failed || r.unexpected || stale ? 1 : 0;
}
