/* cvm_compare: one CVM model on up to three engines, timed inside one process: taskir's
 * reference interpreter, taskir's simulator on the TaskGraph compiled from the model, and
 * cvm-runtime's CPU executor, loaded at run time from a library the user built (bench/run's
 * comparison line, README.md "Benchmarks"). The repository never fetches or builds
 * cvm-runtime; this program only opens the library it is given.
 *
 *   cvm_compare [-n N] [--threads T] [--runtime LIB] [--graph GRAPH.pb] [--only ENGINE]
 *               MODEL.json MODEL.params INPUT.npy
 *
 * LIB is cvm-runtime's shared library libcvm_runtime.so (its CMake target cvm_runtime, CPU
 * executor on: ENABLE_CPU); its C API (CVMAPILoadModel, CVMAPIInference, ...) is looked up
 * with dlopen/dlsym. GRAPH.pb is `taskir-compile MODEL.json --params MODEL.params` 's
 * output; the simulator runs on T threads (default 1, taskir-run --threads), cvm-runtime on
 * as many as its OpenMP build takes (OMP_NUM_THREADS). --only interpreter|simulator|
 * cvm-runtime runs that engine alone (bench/run times the whole process of
 * `--only cvm-runtime -n 1` as cvm-runtime's).
 *
 * Prints one line per engine: its name, the set-up time in seconds (interpreter: reading and
 * checking the model and params; simulator: loading, verifying and planning the .pb;
 * cvm-runtime: reading the files and CVMAPILoadModel), the best wall time of N inferences of
 * INPUT.npy (default N = 3), the best process CPU time of one (the wall time again on one
 * thread of an idle machine; on a busy one what the engine itself spent, the figure to
 * compare; with several threads the sum of theirs) and whether its output equals the
 * interpreter's ("reference" for the interpreter itself, "same", "differs" or "-" when
 * there is nothing to compare with), e.g.
 *     interpreter 0.121034 0.248215 0.248001 reference
 *     cvm-runtime 0.184310 0.653017 0.652870 same
 * cvm-runtime's output is read as its API gives it: int8 values when the model's output
 * precision is at most 8 bits, else int32; a model with postprocess "argmax" or "detection",
 * or with several outputs, is not compared ("-").
 * Exit 0; 1 usage; 2 a model, graph or input that an engine refuses (cvm-runtime's API
 * error codes included); 3 I/O, out of memory, or a library that does not open.
 */
#include "frontend/cvm/cvm.h"
#include "frontend/interp/interp.h"
#include "taskir/fileio.h"
#include "taskir/graph.h"
#include "taskir/npy.h"
#include "taskir/pbio.h"
#include "taskir/sim.h"
#include "taskir/verify.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TOOL "cvm_compare"

static double seconds(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now(void)
{
    return seconds(CLOCK_MONOTONIC);
}

/* What one engine gave: its times and output 0 as int32 (NULL when not comparable). */
typedef struct Engine {
    double setup, best, best_cpu;
    int32_t *out;
    int64_t count;
} Engine;

/* The start of one inference: wall and process CPU time. */
typedef struct Start {
    double wall, cpu;
} Start;

static Start start(void)
{
    return (Start){now(), seconds(CLOCK_PROCESS_CPUTIME_ID)};
}

/* Ends inference r (0-based) begun at s: keeps the best wall and CPU times. */
static void finish(Engine *e, int r, Start s)
{
    double wall = now() - s.wall, cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - s.cpu;
    e->best = r == 0 || wall < e->best ? wall : e->best;
    e->best_cpu = r == 0 || cpu < e->best_cpu ? cpu : e->best_cpu;
}

typedef struct Options {
    int reps;
    uint32_t threads;
    const char *runtime, *graph, *only;
    const char *json, *params, *input;
} Options;

static void report(const char *name, const Engine *e, const Engine *ref)
{
    const char *same = "-";
    if (e == ref)
        same = "reference";
    else if (e->out && ref && ref->out)
        same = e->count == ref->count &&
                       memcmp(e->out, ref->out, (size_t)e->count * sizeof *e->out) == 0
                   ? "same"
                   : "differs";
    printf("%s %.6f %.6f %.6f %s\n", name, e->setup, e->best, e->best_cpu, same);
}

/* ---- the interpreter ---- */

static Status run_interp(const Options *o, const NpyArray *x, Engine *e, Diag *d)
{
    double t0 = now();
    OpGraph *g = NULL;
    Status st = fe_cvm_load(o->json, o->params, &g, d);
    e->setup = now() - t0;
    OgTensor in;
    if (!st && og_num_inputs(g) != 1)
        st = diag_add(d, ST_LOGIC, "bench.model", NULL, "the model has %u inputs; this "
                      "benchmark gives one", og_num_inputs(g));
    if (!st)
        st = fe_tensor_from_npy(x, o->input, &in, d);
    OgTensor *outs = st ? NULL : calloc((size_t)g->noutputs + 1, sizeof *outs);
    if (!st && !outs)
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    for (int r = 0; !st && r < o->reps; r++) {
        Start s = start();
        st = fe_interp_run(g, &in, 1, outs, d);
        finish(e, r, s);
        if (!st && r + 1 == o->reps && g->noutputs == 1) {
            e->out = outs[0].data; /* kept: freed by main */
            e->count = outs[0].count;
            outs[0].data = NULL;
        }
        for (uint32_t j = 0; !st && j < g->noutputs; j++)
            og_tensor_free(&outs[j]);
    }
    free(outs);
    og_destroy(g);
    return st;
}

/* ---- the simulator ---- */

static Status run_sim(const Options *o, const NpyArray *x, Engine *e, Diag *d)
{
    double t0 = now();
    Graph *g = NULL;
    SimRun *run = NULL;
    SimOptions opt = {.threads = o->threads, .steps = 1, .keep_all = false};
    Status st = graph_load_pb(o->graph, &g, d);
    if (!st)
        st = verify_graph(g, d);
    if (!st)
        st = sim_create(g, &opt, &run, d);
    e->setup = now() - t0;
    if (!st && sim_n_inputs(run) != 1)
        st = diag_add(d, ST_LOGIC, "bench.model", NULL, "the graph has %u INPUT blocks; this "
                      "benchmark gives one", sim_n_inputs(run));
    char name[32] = "0";
    if (!st) {
        const Block *b = sim_input_block(run, 0);
        if (b->has_socket_id)
            snprintf(name, sizeof name, "%d", (int)b->socket_id);
    }
    SimInput in = {name, x};
    for (int r = 0; !st && r < o->reps; r++) {
        SimResult res = {0};
        Start s = start();
        st = sim_run(run, &in, 1, &res, d);
        finish(e, r, s);
        if (!st && r + 1 == o->reps && res.n_outputs == 1) {
            e->out = res.outputs[0].data;
            e->count = res.outputs[0].count;
            res.outputs[0].data = NULL;
        }
        sim_result_free(&res);
    }
    sim_destroy(run);
    graph_destroy(g);
    return st;
}

/* ---- cvm-runtime's CPU executor (include/cvm/c_api.h of cvm-runtime) ---- */

typedef int (*LoadFn)(const char *, int, const char *, int, void **, int, int);
typedef int (*FreeFn)(void *);
typedef int (*InferFn)(void *, char *, int, char *);
typedef int (*SizeFn)(void *, unsigned long long *);
typedef int (*StrFn)(void *, char *);

typedef struct Api {
    LoadFn load;
    FreeFn free;
    InferFn infer;
    SizeFn in_len, out_len, in_type, out_type;
    StrFn postprocess;
} Api;

static bool sym(void *lib, const char *name, void *fn, size_t size, Diag *d, const char *path)
{
    void *p = dlsym(lib, name);
    if (!p) {
        diag_add(d, ST_RUNTIME, "bench.runtime", path, "no symbol %s: not cvm-runtime's "
                 "library", name);
        return false;
    }
    memcpy(fn, &p, size); /* POSIX: a data pointer from dlsym converts to the function's */
    return true;
}

static Status run_runtime(const Options *o, const NpyArray *x, Engine *e, Diag *d)
{
    void *lib = dlopen(o->runtime, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return diag_add(d, ST_RUNTIME, "bench.runtime", o->runtime, "%s", dlerror());
    Api a;
    if (!sym(lib, "CVMAPILoadModel", &a.load, sizeof a.load, d, o->runtime) ||
        !sym(lib, "CVMAPIFreeModel", &a.free, sizeof a.free, d, o->runtime) ||
        !sym(lib, "CVMAPIInference", &a.infer, sizeof a.infer, d, o->runtime) ||
        !sym(lib, "CVMAPIGetInputLength", &a.in_len, sizeof a.in_len, d, o->runtime) ||
        !sym(lib, "CVMAPIGetOutputLength", &a.out_len, sizeof a.out_len, d, o->runtime) ||
        !sym(lib, "CVMAPIGetInputTypeSize", &a.in_type, sizeof a.in_type, d, o->runtime) ||
        !sym(lib, "CVMAPIGetOutputTypeSize", &a.out_type, sizeof a.out_type, d, o->runtime) ||
        !sym(lib, "CVMAPIGetPreprocessMethod", &a.postprocess, sizeof a.postprocess, d,
             o->runtime)) {
        dlclose(lib);
        return ST_RUNTIME;
    }
    double t0 = now();
    uint8_t *json = NULL, *params = NULL;
    size_t jlen = 0, plen = 0;
    void *net = NULL;
    Status st = tir_read_file(o->json, TIR_MAX_FILE_BYTES, &json, &jlen, d);
    if (!st)
        st = tir_read_file(o->params, TIR_MAX_FILE_BYTES, &params, &plen, d);
    if (!st && (jlen > INT32_MAX || plen > INT32_MAX))
        st = diag_add(d, ST_LOGIC, "bench.runtime", NULL, "cvm-runtime takes files below 2 GiB");
    int rc = 0;
    if (!st && (rc = a.load((const char *)json, (int)jlen, (const char *)params, (int)plen, &net,
                            0, 0)) != 0)
        st = diag_add(d, ST_LOGIC, "bench.runtime", o->json, "CVMAPILoadModel failed (%d)", rc);
    e->setup = now() - t0;
    free(json);
    free(params);
    unsigned long long in_len = 0, out_len = 0, in_type = 0, out_type = 0;
    char post[64] = "";
    if (!st && (a.in_len(net, &in_len) || a.out_len(net, &out_len) ||
                a.in_type(net, &in_type) || a.out_type(net, &out_type) ||
                a.postprocess(net, post)))
        st = diag_add(d, ST_LOGIC, "bench.runtime", o->json, "cvm-runtime does not describe "
                      "the model's input and output");
    if (!st && (in_type != 1 && in_type != 4))
        st = diag_add(d, ST_LOGIC, "bench.runtime", NULL, "input element size %llu", in_type);
    if (!st && (out_type != 1 && out_type != 4))
        st = diag_add(d, ST_LOGIC, "bench.runtime", NULL, "output element size %llu", out_type);
    if (!st && (in_len != (unsigned long long)x->count * in_type || in_len > INT32_MAX))
        st = diag_add(d, ST_LOGIC, "bench.runtime", o->input, "%lld values; cvm-runtime "
                      "takes %llu", (long long)x->count, in_len / (in_type ? in_type : 1));
    char *in = NULL, *out = NULL;
    if (!st && (!(in = malloc(in_len + 1)) || !(out = malloc(out_len + 1))))
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    for (int64_t i = 0; !st && i < x->count; i++) {
        if (in_type == 1) {
            in[i] = (char)(int8_t)x->i32[i];
        } else {
            memcpy(in + 4 * i, &x->i32[i], 4);
        }
    }
    for (int r = 0; !st && r < o->reps; r++) {
        Start s = start();
        rc = a.infer(net, in, (int)in_len, out);
        finish(e, r, s);
        if (rc != 0)
            st = diag_add(d, ST_LOGIC, "bench.runtime", o->input, "CVMAPIInference failed (%d)",
                          rc);
    }
    /* the output as int32, when it is the plain output tensor */
    int64_t n = (int64_t)(out_len / (out_type ? out_type : 1));
    if (!st && !strcmp(post, "") && (e->out = malloc((size_t)n * sizeof *e->out + 1))) {
        e->count = n;
        for (int64_t i = 0; i < n; i++) {
            int32_t v;
            if (out_type == 1) {
                v = (int8_t)out[i];
            } else {
                memcpy(&v, out + 4 * i, 4);
            }
            e->out[i] = v;
        }
    }
    free(in);
    free(out);
    if (net)
        a.free(net);
    dlclose(lib);
    return st;
}

/* ---- main ---- */

static int usage(void)
{
    fprintf(stderr, "usage: %s [-n N] [--threads T] [--runtime LIB] [--graph GRAPH.pb] "
            "[--only ENGINE] MODEL.json MODEL.params INPUT.npy\n", TOOL);
    return 1;
}

/* A decimal count in 1..max. */
static bool count(const char *s, long max, long *out)
{
    char *end;
    *out = strtol(s, &end, 10);
    return *s && !*end && *out >= 1 && *out <= max;
}

static bool wanted(const Options *o, const char *engine)
{
    return !o->only || !strcmp(o->only, engine);
}

int main(int argc, char **argv)
{
    Options o = {3, 1, NULL, NULL, NULL, NULL, NULL, NULL};
    int pos = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        long v;
        if (!strcmp(a, "-n") && i + 1 < argc) {
            if (!count(argv[++i], 1000, &v))
                return usage();
            o.reps = (int)v;
        } else if (!strcmp(a, "--threads") && i + 1 < argc) {
            if (!count(argv[++i], 256, &v))
                return usage();
            o.threads = (uint32_t)v;
        } else if (!strcmp(a, "--runtime") && i + 1 < argc) {
            o.runtime = argv[++i];
        } else if (!strcmp(a, "--graph") && i + 1 < argc) {
            o.graph = argv[++i];
        } else if (!strcmp(a, "--only") && i + 1 < argc) {
            o.only = argv[++i];
            if (strcmp(o.only, "interpreter") && strcmp(o.only, "simulator") &&
                strcmp(o.only, "cvm-runtime"))
                return usage();
        } else if (a[0] == '-' && a[1]) {
            return usage();
        } else if (pos == 0) {
            o.json = a, pos++;
        } else if (pos == 1) {
            o.params = a, pos++;
        } else if (pos == 2) {
            o.input = a, pos++;
        } else {
            return usage();
        }
    }
    if (pos != 3 || (o.only && !strcmp(o.only, "simulator") && !o.graph) ||
        (o.only && !strcmp(o.only, "cvm-runtime") && !o.runtime))
        return usage();
    Diag d;
    diag_init(&d, NULL);
    NpyArray x = {0};
    Engine ei = {0}, es = {0}, er = {0};
    Status st = npy_read(o.input, &x, &d);
    if (!st && !x.i32)
        st = diag_add(&d, ST_LOGIC, "bench.input", o.input, "float data; the model takes "
                      "integers");
    if (!st && wanted(&o, "interpreter") && !(st = run_interp(&o, &x, &ei, &d)))
        report("interpreter", &ei, &ei);
    const Engine *ref = wanted(&o, "interpreter") ? &ei : NULL;
    if (!st && o.graph && wanted(&o, "simulator") && !(st = run_sim(&o, &x, &es, &d)))
        report("simulator", &es, ref);
    if (!st && o.runtime && wanted(&o, "cvm-runtime") && !(st = run_runtime(&o, &x, &er, &d)))
        report("cvm-runtime", &er, ref);
    diag_print(&d, stderr, TOOL);
    diag_finish(&d);
    npy_free(&x);
    free(ei.out);
    free(es.out);
    free(er.out);
    return (int)st;
}
