/* taskir-run: runs a TaskGraph .pb in the functional simulator (taskir/sim.h), or a CVM model
 * (graph JSON + params) in the reference interpreter (frontend/interp/run_model.h), on NumPy inputs,
 * and writes one .npy per output: DIR/outputK.npy for OUTPUT socket K of a graph or head K
 * of a model, in the model's shape and element type (docs/semantics.md), so that a model and
 * the TaskGraph compiled from it give byte-identical directories. Argument parsing, file
 * handling and exit codes only: loading is pbio.h and cvm.h, checking verify.h, execution
 * sim.h and run_model.h, the .npy format npy.h.
 *
 * The input kind: --format cvm|cinn|onnx|pb|mapping, else what frontend/format/format.h
 * detects (by content, then suffix): an ONNX model (frontend/onnx/onnx.h), a CVM model, a CINN
 * program (frontend/cinn/cinn.h, run in the same interpreter), a Mapping .map.pb, whose
 * embedded graph runs exactly as the graph would once the whole Mapping verifies (mapping.h),
 * and anything else a TaskGraph .pb. A directory (or --format asm) is a program set
 * (backend/progset.h), run by the per-core executor (backend/run.h).
 *
 * The XML readers (--chip-exact's chip description, CINN programs) come from a module opened
 * when one is needed (xmlmod.h): taskir-run does not link libxml2.
 *
 * Every result is computed in memory before any file is written; outputs are written
 * atomically, and when one cannot be written the ones this run already wrote are removed, so
 * an error never leaves a partial set of outputs; nor the directories -o made for them (the
 * ones this run created are removed again when they are empty). */
#include "frontend/cinn/cinn.h"
#include "frontend/cvm/cvm.h"
#include "frontend/format/format.h"
#include "frontend/host/compile.h"
#include "frontend/host/run_host.h"
#include "frontend/interp/run_model.h"
#include "frontend/onnx/onnx.h"
#include "backend/run.h"
#include "cli.h"
#include "onnx_cli.h"
#include "progress.h"
#include "xmlmod.h"
#include "taskir/chip.h"
#include "taskir/fileio.h"
#include "taskir/filemap.h"
#include "taskir/mapping.h"
#include "taskir/npy.h"
#include "taskir/outdir.h"
#include "taskir/parallel.h"
#include "taskir/pbio.h"
#include "taskir/sim.h"
#include "taskir/verify.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#ifndef TASKIR_VERSION
#define TASKIR_VERSION "unknown"
#endif

#define TOOL "taskir-run"
#define MAX_STEPS 1000000L

/* The graph, the run and the mapped file are left to the process exit, which tears a
 * process's memory down faster than freeing it piece by piece (ResNet-50: 140 MB of file and
 * some 250 MB of values and buffers); under AddressSanitizer they are freed, so that it sees
 * no leak. With --threads N the mapped file's pages come in on a thread of their own while
 * the graph's structure is read (filemap.h), those it has not reached by the time the values
 * are read on the N threads (LoadOptions.file), and the file is released after the run, its
 * pages dropped on the run's N threads (tir_file_release_pool): the exit would unmap them on
 * one. */
#if defined(__SANITIZE_ADDRESS__)
#define FREE_AT_EXIT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FREE_AT_EXIT 1
#endif
#endif
#ifndef FREE_AT_EXIT
#define FREE_AT_EXIT 0
#endif

static const char usage_text[] =
    "usage: taskir-run GRAPH.pb --input NAME=X.npy ... [-o DIR] [--dump-all] [--steps T]\n"
    "                  [--threads N] [--no-host] [--chip-exact] [--quiet] [--time-phases]\n"
    "       taskir-run MAP.pb --input NAME=X.npy ... (the options of GRAPH.pb)\n"
    "       taskir-run MODEL.json --params MODEL.params --input data=X.npy [-o DIR]\n"
    "       taskir-run PROG.xml --input NAME=X.npy ... [-o DIR]\n"
    "       taskir-run MODEL.onnx --input NAME=X.npy ... [-o DIR]\n"
    "                  [--input-range NAME=LO..HI] [--const NAME=X.npy]\n"
    "       taskir-run PROGDIR --input NAME=X.npy ... [-o DIR]\n"
    "       taskir-run --help | --version\n"
    "\n"
    "Runs a TaskGraph (.pb; \"-\" reads standard input) in the bit-exact functional\n"
    "simulator, after verifying it; or a CVM model (cvm-runtime graph JSON + params) in the\n"
    "reference interpreter. For a model and the TaskGraph compiled from it, the output files\n"
    "are byte-identical. A Mapping (MAP.pb, the mapper's output) runs its embedded graph,\n"
    "with the same outputs as the graph, after the graph and its map.* rules verify.\n"
    "A directory PROGDIR is a program set (taskir-emit's output: program.pb, data/,\n"
    "sockets.json; docs/backend.md): the per-core executor runs its programs phase by\n"
    "phase, primitives on each core's memory and packets through the router, and writes\n"
    "the outputs as the TaskGraph's run would.\n"
    "\n"
    "A GRAPH.pb compiled with taskir-compile --allow-host has a host remainder beside it:\n"
    "GRAPH.host.json + GRAPH.host.params (GRAPH.pb without .pb). When that file exists, the\n"
    "remainder (a CVM model) runs in the reference interpreter after the simulator, its input\n"
    "output<S> fed with the chip's OUTPUT socket S, and DIR/outputK.npy is the remainder's\n"
    "K-th output: the model's K-th output, as taskir-run MODEL.json writes it (give the input\n"
    "in the model's shape, batch included). --no-host runs the chip graph alone.\n"
    "\n"
    "options:\n"
    "  --input NAME=X.npy  the value of an input, given exactly once each.\n"
    "                      GRAPH.pb: NAME is an INPUT block's socket id or name; X.npy holds\n"
    "                      int8, uint8, int16, uint16, int32 or int64 values (int64 within\n"
    "                      int32) in the block's shape (its non-zero dims in y x f r order),\n"
    "                      or with a leading batch dim N; with --steps T also [T]+shape (one\n"
    "                      slice per step) or [N,T]+shape; a compiled model's INPUT also\n"
    "                      takes the model input's own shape.\n"
    "                      PROGDIR: NAME is an input socket's id or name (sockets.json),\n"
    "                      X.npy holds its natural shape or its model tensor's.\n"
    "                      MODEL.json: NAME is the model input's name (data); X.npy holds\n"
    "                      integer values of those types in the input's declared shape\n"
    "                      (NCHW, batch included), within the input's precision.\n"
    "  --params FILE       the model's params file (CVM models only)\n"
    "  --format cvm|cinn|onnx|pb|mapping|asm  the input's kind (asm: a program set\n"
    "                      directory, the default for any directory); by default a .json\n"
    "                      path or a file starting with '{' is a CVM model, a .xml path or a\n"
    "                      file starting with '<' a CINN program (docs/cinn.md; NAME is an\n"
    "                      Input's name), a .map.pb path or a .pb whose first field is a\n"
    "                      Mapping's a Mapping, anything else a TaskGraph .pb; a .onnx path\n"
    "                      is an ONNX model\n"
    "                      (--format onnx; docs/onnx.md: NAME is a graph input's name, X.npy\n"
    "                      an integer or float32 array of its ONNX shape; the outputs are the\n"
    "                      chip-side integers, as the compiled TaskGraph gives them)\n"
    "  -o DIR              write DIR/outputK.npy for the OUTPUT block with socket id K, or\n"
    "                      the model's K-th output (head), in the model's declared shape and\n"
    "                      element type (int32; int8, uint8 or int16 for such ONNX outputs;\n"
    "                      an OUTPUT block without a model tensor: int32 in its natural\n"
    "                      shape); DIR is created if missing (and removed again if a write\n"
    "                      fails). The outputK.npy / blockID.npy files of an earlier run that\n"
    "                      this run does not write are removed. Without -o, or with -o -, the\n"
    "                      outputs are printed.\n"
    "  --input-range NAME=LO..HI  ONNX: graph input NAME holds integers in LO..HI (as\n"
    "                      taskir-compile --input-range; other values are refused)\n"
    "  --const NAME=X.npy  ONNX: graph input NAME is the constant X.npy (as taskir-compile\n"
    "                      --const)\n"
    "  --dump-all          also write DIR/blockID.npy with every block's result (needs -o;\n"
    "                      TaskGraphs only)\n"
    "  --steps T           run T time steps per sample, carrying CLIF membrane potentials\n"
    "                      from step to step; results get a leading dim T when T > 1\n"
    "                      (TaskGraphs only)\n"
    "  --threads N         use N threads to read the .pb and decode its tensor values, to\n"
    "                      check the values, to pack the weights and for the simulator's\n"
    "                      large kernels (default 1; TaskGraphs only: a model runs on one\n"
    "                      thread); the results are the same for every N\n"
    "  --chip-exact        simulate with the chip's arithmetic where it differs from the\n"
    "                      TaskGraph's (docs/exactness.md): int32 sums saturate after every\n"
    "                      multiply-accumulate, CCMPB/CCMPS shift only when they narrow, in\n"
    "                      2-bit steps, and clip as P05 does (TaskGraphs and Mappings)\n"
    "  --no-host           GRAPH.pb: ignore a host remainder beside it; the outputs are the\n"
    "                      chip graph's OUTPUT blocks (TaskGraphs only)\n"
    "  -q, --quiet         no progress line: without it, a run longer than 2 seconds\n"
    "                      (TASKIR_PROGRESS_AFTER) shows \"block K of N\" (simulator) or\n"
    "                      \"operator K of N\" (interpreter) on standard error, when that\n"
    "                      is a terminal\n"
    "  --time-phases       print the wall-clock and CPU time (ms; CPU: all threads\n"
    "                      together) of each phase on standard error: read (the file),\n"
    "                      load, verify, plan, inputs (waiting for them), run, release\n"
    "                      (dropping the file's pages), write (the outputs), total; a\n"
    "                      model: read, run, write, total; a program set: run, write,\n"
    "                      total\n"
    "  --help              print this help and exit\n"
    "  --version           print the version and exit\n"
    "\n"
    "exit status:\n"
    "  0  success\n"
    "  1  usage error: unknown option, missing graph, malformed --input, bad number, an\n"
    "     option that does not fit the input's kind or is given twice, -o DIR a file or\n"
    "     holding an input among its outputK.npy / blockID.npy files\n"
    "  2  logic error: the graph fails the verifier, the model is invalid, an input is\n"
    "     missing, extra, of the wrong shape or dtype, a value is out of range, a LUT index\n"
    "     is out of range\n"
    "  3  runtime error: a file cannot be read or written, out of memory\n"
    "No output file is written unless all of them are.\n";

/* --time-phases: the clocks at the end of the last phase, and each phase's times. */
enum { MAX_PHASES = 12 };

typedef struct Phases {
    bool on;
    double wall0, cpu0, wall, cpu;
    const char *name[MAX_PHASES];
    double ms[MAX_PHASES][2];   /* wall, CPU */
    uint32_t n;
} Phases;

static double clock_ms(clockid_t id)
{
    struct timespec t;
    if (clock_gettime(id, &t) != 0)
        return 0;
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static void phases_start(Phases *p, bool on)
{
    memset(p, 0, sizeof *p);
    p->on = on;
    if (on) {
        p->wall = p->wall0 = clock_ms(CLOCK_MONOTONIC);
        p->cpu = p->cpu0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
    }
}

/* Ends phase name (begun at the end of the last one). */
static void phase_end(Phases *p, const char *name)
{
    if (!p || !p->on || p->n == MAX_PHASES)
        return;
    double w = clock_ms(CLOCK_MONOTONIC), c = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
    p->name[p->n] = name;
    p->ms[p->n][0] = w - p->wall;
    p->ms[p->n][1] = c - p->cpu;
    p->n++;
    p->wall = w;
    p->cpu = c;
}

static void phases_print(const Phases *p)
{
    if (!p->on)
        return;
    fprintf(stderr, "%s: %-8s %10s %10s\n", TOOL, "phase", "wall ms", "cpu ms");
    for (uint32_t i = 0; i < p->n; i++)
        fprintf(stderr, "%s: %-8s %10.3f %10.3f\n", TOOL, p->name[i], p->ms[i][0], p->ms[i][1]);
    fprintf(stderr, "%s: %-8s %10.3f %10.3f\n", TOOL, "total", p->wall - p->wall0,
            p->cpu - p->cpu0);
}

typedef enum { KIND_AUTO, KIND_PB, KIND_CVM, KIND_CINN, KIND_ONNX, KIND_MAP, KIND_ASM } Kind;

typedef struct Options {
    const char *file;
    const char *dir;
    const char *params;
    Kind kind;
    bool steps_given;
    bool threads_given;
    bool no_host;           /* --no-host: ignore GRAPH.host.json (compile.h) */
    bool chip_exact;        /* --chip-exact: the built-in chip's arithmetic (sim_chip.c) */
    bool quiet;             /* --quiet: no progress line */
    bool time_phases;       /* --time-phases */
    Phases *phases;         /* the phases' times (main's) */
    CliProgress *progress;  /* the progress line (main's) */
    SimInput *inputs;
    const char **paths;
    uint32_t n_inputs;
    SimOptions sim;
    OnnxCli onnx_cli;       /* --input-range, --const (ONNX models) */
} Options;

/* What a run produced: the owners of the data and the list of tensors. */
typedef struct Results {
    SimResult sim;
    OgTensor *model;
    uint32_t n_model;
    OutFile *outs;
    uint32_t n_outs;
    ProgOutput *prog;       /* a program set's outputs */
    size_t n_prog;
} Results;

#define usage_error(...) cli_usage(TOOL, __VA_ARGS__)

/* The input files: standard input read once at most, none of them a file the run would
 * write or remove in -o DIR, DIR not a file. Returns -1 or the exit code. */
static int check_files(const Options *o)
{
    size_t n = (size_t)o->n_inputs + 2 + o->onnx_cli.nbind;
    const char **files = calloc(n, sizeof *files);
    if (!files) {
        fprintf(stderr, "%s: out of memory [oom]\n", TOOL);
        return ST_RUNTIME;
    }
    files[0] = o->file;
    files[1] = o->params;
    for (uint32_t i = 0; i < o->n_inputs; i++)
        files[i + 2] = o->paths[i];
    for (uint32_t k = 0; k < o->onnx_cli.nbind; k++)
        files[o->n_inputs + 2 + k] = o->onnx_cli.paths[k];
    int rc = cli_one_stdin(TOOL, files, n);
    if (rc < 0 && o->dir) {
        Diag d;
        diag_init(&d, NULL);
        Status st = outdir_check(o->dir, files, n, &d);
        diag_print(&d, stderr, TOOL);
        diag_finish(&d);
        if (st == ST_USAGE)
            fprintf(stderr, "try '%s --help'\n", TOOL);
        rc = st == ST_OK ? -1 : (int)st;
    }
    free(files);
    return rc;
}

/* Parses argv into o. Returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, Options *o)
{
    bool only_files = false, dump_all = false, seen_params = false, seen_format = false;
    bool seen_out = false;
    int rc;
    memset(o, 0, sizeof *o);
    o->sim.steps = 1;
    o->sim.threads = 1;
    o->sim.share_buffers = true; /* only the outputs are read (--dump-all: keep_all) */
    o->inputs = calloc((size_t)argc + 1, sizeof *o->inputs);
    o->paths = calloc((size_t)argc + 1, sizeof *o->paths);
    if (!o->inputs || !o->paths) {
        fprintf(stderr, "%s: out of memory [oom]\n", TOOL);
        return ST_RUNTIME;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool m;
        const char *v, *rule;
        char err[512];
        if (only_files || a[0] != '-' || strcmp(a, "-") == 0) {
            if (o->file)
                return usage_error("usage.args", "more than one graph file ('%s')", a);
            o->file = a;
        } else if (strcmp(a, "--") == 0) {
            only_files = true;
        } else if (cli_is_help_version(a)) {
            return cli_help_version(TOOL, a, usage_text, TASKIR_VERSION);
        } else if (strcmp(a, "--dump-all") == 0) {
            dump_all = true;
        } else if (strcmp(a, "--no-host") == 0) {
            o->no_host = true;
        } else if (strcmp(a, "--chip-exact") == 0) {
            o->chip_exact = true;
        } else if ((rule = onnx_cli_option(&o->onnx_cli, argc, argv, &i, &m, err, sizeof err)),
                   m) {
            if (rule)
                return usage_error(rule, "%s", err);
        } else if (strcmp(a, "--time-phases") == 0) {
            o->time_phases = true;
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            o->quiet = true;
        } else if ((v = cli_opt_value(argc, argv, &i, "--input", &m)), m) {
            const char *eq = v ? strchr(v, '=') : NULL;
            if (!eq || eq == v || !eq[1])
                return usage_error("usage.input", "--input needs NAME=FILE.npy, not '%s'",
                                   v ? v : "");
            char *name = strndup(v, (size_t)(eq - v));
            if (!name) {
                fprintf(stderr, "%s: out of memory [oom]\n", TOOL);
                return ST_RUNTIME;
            }
            o->inputs[o->n_inputs].name = name;
            o->paths[o->n_inputs++] = eq + 1;
        } else if ((v = cli_opt_value(argc, argv, &i, "--params", &m)), m) {
            if ((rc = cli_once(TOOL, "--params", &seen_params)) >= 0)
                return rc;
            if (!v || !*v)
                return usage_error("usage.params", "--params needs a file");
            o->params = v;
        } else if ((v = cli_opt_value(argc, argv, &i, "--format", &m)), m) {
            if ((rc = cli_once(TOOL, "--format", &seen_format)) >= 0)
                return rc;
            if (v && strcmp(v, "cvm") == 0)
                o->kind = KIND_CVM;
            else if (v && strcmp(v, "pb") == 0)
                o->kind = KIND_PB;
            else if (v && strcmp(v, "cinn") == 0)
                o->kind = KIND_CINN;
            else if (v && strcmp(v, "onnx") == 0)
                o->kind = KIND_ONNX;
            else if (v && strcmp(v, "mapping") == 0)
                o->kind = KIND_MAP;
            else if (v && strcmp(v, "asm") == 0)
                o->kind = KIND_ASM;
            else
                return usage_error("usage.format", "--format takes cvm, cinn, onnx or pb, "
                                   "mapping for a Mapping .map.pb, or asm for a program set "
                                   "directory, not '%s'", v ? v : "");
        } else if ((v = cli_opt_value(argc, argv, &i, "--steps", &m)), m) {
            if ((rc = cli_once(TOOL, "--steps", &o->steps_given)) >= 0)
                return rc;
            if (!cli_count(v, MAX_STEPS, &o->sim.steps))
                return usage_error("usage.steps", "--steps needs a count 1..%ld, not '%s'",
                                   MAX_STEPS, v ? v : "");
        } else if ((v = cli_opt_value(argc, argv, &i, "--threads", &m)), m) {
            if ((rc = cli_once(TOOL, "--threads", &o->threads_given)) >= 0)
                return rc;
            if (!cli_count(v, CLI_MAX_THREADS, &o->sim.threads))
                return usage_error("usage.threads", "--threads needs a count 1..%ld, not '%s'",
                                   CLI_MAX_THREADS, v ? v : "");
        } else if ((v = cli_opt_value(argc, argv, &i, "-o", &m)), m) {
            if ((rc = cli_once(TOOL, "-o", &seen_out)) >= 0)
                return rc;
            if (!v || !*v)
                return usage_error("usage.output", "-o needs a directory, or - for standard "
                                   "output");
            o->dir = cli_is_std(v) ? NULL : v; /* "-": printed, as without -o */
        } else {
            return usage_error("usage.option", "unknown option '%s'", a);
        }
    }
    if (!o->file)
        return usage_error("usage.args", "no graph file (give GRAPH.pb or MODEL.json, or - "
                           "for stdin)");
    if (dump_all && !o->dir)
        return usage_error("usage.args", "--dump-all needs -o DIR");
    o->sim.keep_all = dump_all;
    /* the graph's weights are read by the run alone (--chip-exact's kernels read them
     * unpacked) */
    o->sim.weights_in_place = !o->chip_exact;
    return check_files(o);
}

static void results_free(Results *r)
{
    sim_result_free(&r->sim);
    for (uint32_t j = 0; j < r->n_model; j++)
        og_tensor_free(&r->model[j]);
    free(r->model);
    free(r->outs);
    prog_outputs_free(r->prog, r->n_prog);
    memset(r, 0, sizeof *r);
}

static OutFile *out_list(Results *r, uint32_t n, Diag *d)
{
    r->outs = calloc((size_t)n + 1, sizeof *r->outs);
    if (!r->outs)
        diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    r->n_outs = r->outs ? n : 0;
    return r->outs;
}

/* Output j of a model (or of a host remainder): the tensor v, written with element type dt. */
static void out_model(OutFile *t, uint32_t j, const OgTensor *v, NpyDtype dt)
{
    snprintf(t->file, sizeof t->file, "output%u.npy", j);
    t->data = v->data;
    t->dtype = dt;
    t->ndim = v->shape.ndim;
    for (uint32_t i = 0; i < v->shape.ndim; i++)
        t->shape[i] = v->shape.d[i];
    t->count = v->count;
}

/* Reads --input i into arrays[i], its findings into nd (initialized here): .npy findings
 * name the .npy file, and those about its content the --input NAME too. */
static Status read_input(const Options *o, uint32_t i, NpyArray *arrays, Diag *nd)
{
    diag_init(nd, cli_name(o->paths[i], false));
    Status st = npy_read(o->paths[i], &arrays[i], nd);
    char where[320];
    snprintf(where, sizeof where, "--input %s", o->inputs[i].name);
    if (st == ST_LOGIC) /* what the file holds: which input it is for, too */
        diag_prefix_where(nd, 0, where);
    o->inputs[i].array = &arrays[i];
    return st;
}

/* Reads every --input .npy, up to the first that fails (its findings printed here). */
static Status read_inputs(const Options *o, NpyArray *arrays)
{
    Status st = ST_OK;
    for (uint32_t i = 0; i < o->n_inputs && !st; i++) {
        Diag nd;
        st = read_input(o, i, arrays, &nd);
        diag_print(&nd, stderr, TOOL);
        diag_finish(&nd);
    }
    return st;
}

/* read_inputs on a thread of its own while a graph loads (--threads N > 1: the load's first
 * passes over the structure run on one thread, about as long as reading ResNet-50's input);
 * its findings are kept and printed, or dropped, when ahead_finish says whether the run got
 * to reading the inputs, so the messages are those of read_inputs in its place. */
typedef struct Ahead {
    const Options *o;
    NpyArray *arrays;
    Diag *nd;           /* the findings of inputs 0 .. n - 1 */
    uint32_t n;
    Status st;
    pthread_t th;
    bool on;            /* the thread was started */
} Ahead;

static void *ahead_main(void *p)
{
    Ahead *a = p;
    for (uint32_t i = 0; i < a->o->n_inputs && !a->st; i++) {
        a->st = read_input(a->o, i, a->arrays, &a->nd[i]);
        a->n = i + 1;
    }
    return NULL;
}

static void ahead_start(Ahead *a, const Options *o, NpyArray *arrays)
{
    *a = (Ahead){.o = o, .arrays = arrays};
    if (o->sim.threads > 1 && o->n_inputs && (a->nd = calloc(o->n_inputs, sizeof *a->nd)))
        a->on = pthread_create(&a->th, NULL, ahead_main, a) == 0;
    if (!a->on) {
        free(a->nd);
        a->nd = NULL;
    }
}

/* The inputs' status where read_inputs would have read them (report), printing their
 * findings; without report only the thread's end (the run stopped before the inputs). */
static Status ahead_finish(Ahead *a, bool report)
{
    if (!a->on)
        return report ? read_inputs(a->o, a->arrays) : ST_OK;
    pthread_join(a->th, NULL);
    for (uint32_t i = 0; i < a->n; i++) {
        if (report)
            diag_print(&a->nd[i], stderr, TOOL);
        diag_finish(&a->nd[i]);
    }
    free(a->nd);
    a->on = false;
    return report ? a->st : ST_OK;
}

/* A TaskGraph (or a Mapping's graph): load, verify, plan, read the inputs, simulate. The
 * worker threads of the verifier, the plan and the run (NULL: none) are made after the load
 * into *pool, which the caller destroys after this returns (or leaves to the exit, as the
 * run). */
static Status run_graph(const Options *o, TirFileBytes *file, NpyArray *arrays, Results *res,
                        TirPool **pool, Diag *d)
{
    Graph *g = NULL;
    Mapping *map = NULL;    /* a Mapping: it owns g */
    SimRun *run = NULL;
    OpGraph *host = NULL;   /* the host remainder beside the .pb (compile.h), if any */
    Chip *chip = NULL;      /* --chip-exact: the built-in description */
    const TirXml *xml = NULL; /* its reader */
    Status st = o->chip_exact ? tir_xml_open(&xml, d) : ST_OK;
    if (!st && xml)
        st = xml->chip_load_default(&chip, d);
    if (st)
        return st;
    Ahead ahead;
    ahead_start(&ahead, o, arrays);
    if (o->kind == KIND_MAP) {
        st = mapping_load_pb_mem(file->p, file->len, &map, d);
        g = map ? map->graph : NULL;
        if (!st)
            st = verify_mapping(map, d);
    } else {
        /* int8 weights in a byte each when the run packs them over their own bytes */
        LoadOptions lo = {.threads = o->sim.threads, .narrow = sim_packs_narrow(&o->sim),
                          .file = file};
        st = graph_load_pb_mem_opts(file->p, file->len, &lo, &g, d);
        phase_end(o->phases, "load");
        /* the pool from the verifier on (the load's passes start their own threads: with
         * the pool's worker alive during the load it took longer, README) */
        if (!st)
            *pool = tir_pool_create(o->sim.threads);
        VerifyOptions vo = {.threads = o->sim.threads, .pool = *pool};
        if (!st)
            st = verify_graph_opts(g, &vo, d);
    }
    phase_end(o->phases, "verify");
    if (!st && !o->no_host)
        st = fe_host_load(o->file, &host, d);
    SimOptions so = o->sim; /* the run's pool is the caller's, for the file's release too */
    if (!st && !*pool) /* a Mapping's graph: made here */
        *pool = tir_pool_create(o->sim.threads);
    so.pool = *pool;
    if (!st)
        st = sim_create(g, &so, &run, d);
    if (!st)
        sim_use_chip(run, chip);
    phase_end(o->phases, "plan");
    Status in_st = ahead_finish(&ahead, !st);
    if (!st)
        st = in_st;
    phase_end(o->phases, "inputs");
    if (!st)
        st = sim_run_progress(run, o->inputs, o->n_inputs, &res->sim, &o->progress->hook, d);
    phase_end(o->phases, "run");
    cli_progress_end(o->progress);
    if (xml)
        xml->chip_destroy(chip);
    if (FREE_AT_EXIT || st) {
        sim_destroy(run);
        if (map)
            mapping_destroy(map);
        else
            graph_destroy(g);
    }
    if (!st && host && !(res->model = calloc((size_t)host->noutputs + 1, sizeof *res->model)))
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    if (!st && host &&
        !(st = fe_run_host(host, &res->sim, res->model, &o->progress->hook, d)))
        res->n_model = host->noutputs;
    cli_progress_end(o->progress);
    /* the outputs: the chip's, or with a host remainder the remainder's (the model's) */
    uint32_t n_out = host ? res->n_model : res->sim.n_outputs;
    if (!st && out_list(res, n_out + res->sim.n_blocks, d)) {
        for (uint32_t k = 0; !host && k < n_out; k++)
            outdir_sim_tensor(&res->outs[k], &res->sim.outputs[k], true);
        for (uint32_t j = 0; host && j < n_out; j++) {
            OutFile *t = &res->outs[j];
            const OgNode *n = og_node(host, host->outputs[j].node);
            out_model(t, j, &res->model[j], NPY_I32);
            snprintf(t->label, sizeof t->label, "output%u (host node '%s')", j, n->name);
        }
        for (uint32_t k = 0; k < res->sim.n_blocks; k++)
            outdir_sim_tensor(&res->outs[n_out + k], &res->sim.blocks[k], false);
    }
    og_destroy(host);
    return st ? st : res->outs ? ST_OK : ST_RUNTIME;
}

/* A CVM model (graph JSON + params) or a CINN program (XML): load, read the inputs,
 * interpret. */
static Status run_model(const Options *o, const uint8_t *buf, size_t len, NpyArray *arrays,
                        Results *res, Diag *d)
{
    if (o->kind != KIND_CINN && len > CVM_MAX_JSON_BYTES)
        return diag_add(d, ST_LOGIC, "limit.file", NULL, "a graph JSON of %zu bytes is larger "
                        "than the %zu-byte limit", len, CVM_MAX_JSON_BYTES);
    uint8_t *params = NULL;
    size_t plen = 0;
    Status st = ST_OK;
    if (o->params) {
        Diag pd;
        diag_init(&pd, cli_name(o->params, false));
        st = tir_read_file(o->params, TIR_MAX_FILE_BYTES, &params, &plen, &pd);
        diag_print(&pd, stderr, TOOL);
        diag_finish(&pd);
    }
    OpGraph *g = NULL;
    CinnBuilder *cinn = NULL;   /* a CINN program: its builder owns g */
    Diag cd;                    /* the CINN reader's messages name "PROG.xml:LINE" */
    diag_init(&cd, NULL);
    if (!st && o->kind == KIND_CINN) {
        const TirXml *xml = NULL;
        st = tir_xml_open(&xml, d);
        if (!st)
            st = xml->cinn_read_xml_mem((const char *)buf, len, o->file, &cd, &cinn);
        g = cinn ? (OpGraph *)fe_cinn_graph(cinn) : NULL;
    } else if (!st) {
        st = fe_cvm_load_mem((const char *)buf, len, params, plen, o->params, &g, d);
    }
    diag_print(&cd, stderr, TOOL);
    free(params);
    if (!st)
        st = read_inputs(o, arrays);
    FeModelInput *in = calloc((size_t)o->n_inputs + 1, sizeof *in);
    if (!st && !(res->model = calloc((size_t)g->noutputs + 1, sizeof *res->model)))
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    if (!st && !in)
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    for (uint32_t i = 0; !st && i < o->n_inputs; i++)
        in[i] = (FeModelInput){o->inputs[i].name, &arrays[i], o->paths[i]};
    if (!st && !(st = fe_run_model_progress(g, in, o->n_inputs, res->model,
                                            &o->progress->hook, d)))
        res->n_model = g->noutputs;
    cli_progress_end(o->progress);
    if (!st && out_list(res, res->n_model, d)) {
        for (uint32_t j = 0; j < res->n_model; j++) {
            OutFile *t = &res->outs[j];
            const OgNode *n = og_node(g, g->outputs[j].node);
            out_model(t, j, &res->model[j], NPY_I32);
            snprintf(t->label, sizeof t->label, "output%u (node %d '%s')", j,
                     (int)n->src_index, n->name);
        }
    }
    free(in);
    if (cinn)
        fe_cinn_destroy(cinn);
    else
        og_destroy(g);
    diag_finish(&cd);
    return st ? st : res->outs ? ST_OK : ST_RUNTIME;
}

/* An ONNX model (frontend/onnx/onnx.h): load, read the inputs, convert them at the model's
 * edges, interpret; the outputs are the chip-side integers in the compiled graph's shapes. */
static Status run_onnx(Options *o, const uint8_t *buf, size_t len, NpyArray *arrays,
                       Results *res, Diag *d)
{
    OnnxModel *m = NULL;
    OnnxOptions opt;
    Status st = onnx_cli_load(&o->onnx_cli, TOOL, &opt);
    if (!st)
        st = fe_onnx_load_mem(buf, len, &opt, &m, d);
    if (!st)
        st = read_inputs(o, arrays);
    FeModelInput *in = calloc((size_t)o->n_inputs + 1, sizeof *in);
    if (!st && (!in || !(res->model = calloc((size_t)m->noutputs + 1, sizeof *res->model))))
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    for (uint32_t i = 0; !st && i < o->n_inputs; i++)
        in[i] = (FeModelInput){o->inputs[i].name, &arrays[i], o->paths[i]};
    if (!st && !(st = fe_onnx_run_progress(m, in, o->n_inputs, res->model, &o->progress->hook,
                                           d)))
        res->n_model = m->noutputs;
    cli_progress_end(o->progress);
    if (!st && out_list(res, res->n_model, d)) {
        for (uint32_t j = 0; j < res->n_model; j++) {
            OutFile *t = &res->outs[j];
            out_model(t, j, &res->model[j], fe_onnx_output_dtype(m, j));
            snprintf(t->label, sizeof t->label, "output%u ('%s')", j, m->outputs[j].name);
        }
    }
    free(in);
    fe_onnx_destroy(m);
    return st ? st : res->outs ? ST_OK : ST_RUNTIME;
}

/* A program set directory (backend/progset.h): load, read the inputs, run the per-core
 * executor; the outputs as a TaskGraph's (outputK.npy for output socket K). */
static Status run_asm(const Options *o, NpyArray *arrays, Results *res, Diag *d)
{
    ProgSet set;
    Status st = progset_load(o->file, &set, d);
    if (!st)
        st = read_inputs(o, arrays);
    ProgInput *in = calloc((size_t)o->n_inputs + 1, sizeof *in);
    if (!st && !in)
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    for (uint32_t i = 0; !st && i < o->n_inputs; i++)
        in[i] = (ProgInput){o->inputs[i].name, &arrays[i]};
    if (!st)
        st = prog_run_arrays(&set, NULL, in, o->n_inputs, &res->prog, &res->n_prog, d);
    free(in);
    if (!st && out_list(res, (uint32_t)res->n_prog, d)) {
        for (size_t k = 0; k < res->n_prog; k++) {
            const ProgOutput *p = &res->prog[k];
            OutFile *t = &res->outs[k];
            snprintf(t->file, sizeof t->file, "output%d.npy", p->socket_id);
            snprintf(t->label, sizeof t->label, "output%d (socket '%.200s')", p->socket_id,
                     p->name);
            t->data = p->data;
            t->dtype = p->dtype;
            t->ndim = p->ndim;
            memcpy(t->shape, p->shape, sizeof t->shape);
            t->count = p->count;
        }
    }
    progset_free(&set);
    return st ? st : res->outs ? ST_OK : ST_RUNTIME;
}

/* Options that do not fit the input's kind. Returns -1 when they fit, else the exit code. */
static int check_kind(const Options *o)
{
    bool model = o->kind == KIND_CVM || o->kind == KIND_CINN || o->kind == KIND_ONNX;
    if (model && o->no_host)
        return usage_error("usage.args", "--no-host is for TaskGraphs; '%s' is a model, run "
                           "whole in the interpreter", o->file);
    if (model && o->chip_exact)
        return usage_error("usage.args", "--chip-exact is for TaskGraphs (the simulator); '%s' "
                           "is a model, run in the interpreter", o->file);
    if (model && o->threads_given)
        return usage_error("usage.args", "--threads is for TaskGraphs (the simulator); '%s' "
                           "is a model, run on one thread in the interpreter", o->file);
    if (o->kind == KIND_ONNX && (o->sim.keep_all || o->steps_given || o->params))
        return usage_error("usage.args", "--dump-all, --steps and --params do not apply to an "
                           "ONNX model ('%s')", o->file);
    if (o->kind != KIND_ONNX && o->kind != KIND_AUTO && onnx_cli_given(&o->onnx_cli))
        return usage_error("usage.args", "--input-range and --const are for ONNX models; '%s' "
                           "is not one", o->file);
    if (o->kind == KIND_ASM && (o->params || o->sim.keep_all || o->steps_given ||
                                o->threads_given || o->no_host || onnx_cli_given(&o->onnx_cli)))
        return usage_error("usage.args", "--params, --dump-all, --steps, --threads, --no-host, "
                           "--input-range and --const do not apply to a program set ('%s')",
                           o->file);
    const char *what = o->kind == KIND_CINN ? "a CINN program" : "a CVM model";
    if ((o->kind == KIND_CVM || o->kind == KIND_CINN) && o->sim.keep_all)
        return usage_error("usage.args", "--dump-all is for TaskGraphs; '%s' is %s", o->file,
                           what);
    if ((o->kind == KIND_CVM || o->kind == KIND_CINN) && o->steps_given)
        return usage_error("usage.args", "--steps is for TaskGraphs; '%s' is %s", o->file, what);
    if (o->kind == KIND_CINN && o->params)
        return usage_error("usage.args", "--params is for CVM models; '%s' is a CINN program "
                           "(it holds its constants)", o->file);
    if ((o->kind == KIND_PB || o->kind == KIND_MAP) && o->params)
        return usage_error("usage.args", "--params is for CVM models; '%s' is read as a "
                           "%s (--format cvm reads it as a model)", o->file,
                           o->kind == KIND_MAP ? "Mapping .map.pb" : "TaskGraph .pb");
    return -1;
}

/* The kind of a model format (format.h); KIND_AUTO for the others. */
static Kind model_kind(FeFormat f)
{
    return f == FE_FORMAT_CVM ? KIND_CVM : f == FE_FORMAT_CINN ? KIND_CINN
           : f == FE_FORMAT_ONNX ? KIND_ONNX : KIND_AUTO;
}

static void options_free(Options *o)
{
    for (uint32_t i = 0; i < o->n_inputs; i++)
        free((char *)o->inputs[i].name);
    free(o->inputs);
    free(o->paths);
    onnx_cli_free(&o->onnx_cli);
}

int main(int argc, char **argv)
{
    Options o;
    int rc = parse_args(argc, argv, &o);
    struct stat sb;
    if (rc < 0 && o.kind == KIND_AUTO && !cli_is_std(o.file) && stat(o.file, &sb) == 0 &&
        S_ISDIR(sb.st_mode))
        o.kind = KIND_ASM;
    if (rc < 0 && o.kind == KIND_AUTO) /* a model's options are checked before reading it */
        o.kind = model_kind(fe_format_of_file(o.file));
    if (rc < 0)
        rc = check_kind(&o);
    if (rc >= 0) {
        options_free(&o);
        return rc;
    }
    CliProgress progress;
    cli_progress_start(&progress, TOOL, o.quiet);
    o.progress = &progress;
    Phases phases;
    phases_start(&phases, o.time_phases);
    o.phases = &phases;
    Diag d;
    diag_init(&d, cli_name(o.file, false));
    TirFileBytes file = {0};
    const uint8_t *buf = NULL;
    size_t len = 0;
    Results res = {0};
    TirPool *pool = NULL; /* the run's worker threads (run_graph) */
    NpyArray *arrays = calloc((size_t)o.n_inputs + 1, sizeof *arrays);
    Status st = arrays ? ST_OK : diag_add(&d, ST_RUNTIME, "oom", NULL, "out of memory");
    if (!st && o.kind == KIND_ASM)
        st = run_asm(&o, arrays, &res, &d);
    else if (!st)
        st = tir_file_bytes_threads(o.file, TIR_MAX_FILE_BYTES, o.sim.threads, &file, &d);
    buf = file.p;
    len = file.len;
    phase_end(&phases, o.kind == KIND_ASM ? "run" : "read");
    if (!st && o.kind == KIND_AUTO) {
        FeFormat f = fe_format_detect(o.file, buf, len);
        o.kind = f == FE_FORMAT_MAPPING ? KIND_MAP : model_kind(f);
        if (o.kind == KIND_AUTO)
            o.kind = KIND_PB;
        if ((rc = check_kind(&o)) >= 0)
            st = (Status)rc;
    }
    if (!st && rc < 0 && o.kind != KIND_ASM)
        st = o.kind == KIND_ONNX ? run_onnx(&o, buf, len, arrays, &res, &d)
             : o.kind != KIND_PB && o.kind != KIND_MAP ? run_model(&o, buf, len, arrays, &res, &d)
                                                       : run_graph(&o, &file, arrays, &res, &pool, &d);
    if (o.kind != KIND_PB && o.kind != KIND_MAP && o.kind != KIND_ASM)
        phase_end(&phases, "run");
    if (pool) /* its pages dropped on the run's threads: no thread started after the plan */
        tir_file_release_pool(&file, pool);
    else if (FREE_AT_EXIT || st || o.sim.threads > 1) /* threads: its pages dropped on all */
        tir_file_release_threads(&file, o.sim.threads);
    if (FREE_AT_EXIT || st)
        tir_pool_destroy(pool);
    if (o.kind == KIND_PB || o.kind == KIND_MAP)
        phase_end(&phases, "release");
    if (!st && o.dir) {
        st = outdir_write(o.dir, res.outs, res.n_outs, &d);
    } else if (!st) {
        for (uint32_t k = 0; k < res.n_outs; k++)
            outdir_print(stdout, &res.outs[k]);
        if (cli_stdout_done(TOOL))
            st = ST_RUNTIME;
    }
    phase_end(&phases, "write");
    phases_print(&phases);
    diag_print(&d, stderr, TOOL);
    if (!st && d.oom)
        st = ST_RUNTIME;
    diag_finish(&d);
    results_free(&res);
    for (uint32_t i = 0; arrays && i < o.n_inputs; i++)
        npy_free(&arrays[i]);
    free(arrays);
    options_free(&o);
    return (int)st;
}
