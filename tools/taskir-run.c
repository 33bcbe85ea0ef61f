/* taskir-run: runs a TaskGraph .pb in the functional simulator (taskir/sim.h) on NumPy inputs
 * and writes one int32 .npy per OUTPUT block. Argument parsing, file handling and exit codes
 * only: loading is pbio.h, checking verify.h, execution sim.h, the .npy format npy.h.
 *
 * Every result is computed in memory before any file is written; outputs are written
 * atomically, and when one cannot be written the ones this run already wrote are removed, so
 * an error never leaves a partial set of outputs. */
#include "taskir/fileio.h"
#include "taskir/npy.h"
#include "taskir/pbio.h"
#include "taskir/sim.h"
#include "taskir/verify.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef TASKIR_VERSION
#define TASKIR_VERSION "unknown"
#endif

#define TOOL "taskir-run"
#define MAX_STEPS 1000000L
#define MAX_THREADS 64L

static const char usage_text[] =
    "usage: taskir-run GRAPH.pb --input NAME=X.npy ... [-o DIR] [--dump-all] [--steps T]\n"
    "                  [--threads N]\n"
    "       taskir-run --help | --version\n"
    "\n"
    "Runs a TaskGraph (.pb; \"-\" reads standard input) in the bit-exact functional\n"
    "simulator. The graph is verified first.\n"
    "\n"
    "options:\n"
    "  --input NAME=X.npy  the value of an INPUT block: NAME is its socket id or its name;\n"
    "                      X.npy holds int8, uint8, int16 or int32 values in the block's\n"
    "                      shape (its non-zero dims in y x f r order), or with a leading\n"
    "                      batch dim N; with --steps T also [T]+shape (one slice per step)\n"
    "                      or [N,T]+shape. Give every INPUT block exactly once.\n"
    "  -o DIR              write DIR/outputK.npy (int32) for the OUTPUT block with socket id\n"
    "                      K; DIR is created if missing. Without -o the outputs are printed.\n"
    "  --dump-all          also write DIR/blockID.npy with every block's result (needs -o)\n"
    "  --steps T           run T time steps per sample, carrying CLIF membrane potentials\n"
    "                      from step to step; results get a leading dim T when T > 1\n"
    "  --threads N         use N threads for the large kernels (default 1)\n"
    "  --help              print this help and exit\n"
    "  --version           print the version and exit\n"
    "\n"
    "exit status:\n"
    "  0  success\n"
    "  1  usage error: unknown option, missing graph, malformed --input, bad number\n"
    "  2  logic error: the graph fails the verifier, an input is missing, extra, of the\n"
    "     wrong shape or dtype, a value is out of range, a LUT index is out of range\n"
    "  3  runtime error: a file cannot be read or written, out of memory\n";

typedef struct Options {
    const char *file;
    const char *dir;
    SimInput *inputs;
    const char **paths;
    uint32_t n_inputs;
    SimOptions sim;
} Options;

static int usage_error(const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int usage_error(const char *rule, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: %s [%s]\ntry 'taskir-run --help'\n", TOOL, msg, rule);
    return ST_USAGE;
}

static int stdout_done(void)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return ST_OK;
    fprintf(stderr, "%s: cannot write to stdout: %s [io.write]\n", TOOL, strerror(errno));
    return ST_RUNTIME;
}

static const char *opt_value(int argc, char **argv, int *i, const char *name, bool *matched)
{
    size_t n = strlen(name);
    const char *a = argv[*i];
    *matched = false;
    if (strncmp(a, name, n) != 0)
        return NULL;
    if (a[n] == '=') {
        *matched = true;
        return a + n + 1;
    }
    if (a[n] != 0)
        return NULL;
    *matched = true;
    return *i + 1 < argc ? argv[++*i] : NULL;
}

static bool parse_count(const char *v, long max, uint32_t *out)
{
    char *end;
    errno = 0;
    long n = v ? strtol(v, &end, 10) : 0;
    if (!v || !*v || *end || errno || n < 1 || n > max)
        return false;
    *out = (uint32_t)n;
    return true;
}

/* Parses argv into o. Returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, Options *o)
{
    bool only_files = false, dump_all = false;
    memset(o, 0, sizeof *o);
    o->sim.steps = 1;
    o->sim.threads = 1;
    o->inputs = calloc((size_t)argc + 1, sizeof *o->inputs);
    o->paths = calloc((size_t)argc + 1, sizeof *o->paths);
    if (!o->inputs || !o->paths) {
        fprintf(stderr, "%s: out of memory [oom]\n", TOOL);
        return ST_RUNTIME;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool m;
        const char *v;
        if (only_files || a[0] != '-' || strcmp(a, "-") == 0) {
            if (o->file)
                return usage_error("usage.args", "more than one graph file ('%s')", a);
            o->file = a;
        } else if (strcmp(a, "--") == 0) {
            only_files = true;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage_text, stdout);
            return stdout_done();
        } else if (strcmp(a, "--version") == 0) {
            printf("%s %s\n", TOOL, TASKIR_VERSION);
            return stdout_done();
        } else if (strcmp(a, "--dump-all") == 0) {
            dump_all = true;
        } else if ((v = opt_value(argc, argv, &i, "--input", &m)), m) {
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
        } else if ((v = opt_value(argc, argv, &i, "--steps", &m)), m) {
            if (!parse_count(v, MAX_STEPS, &o->sim.steps))
                return usage_error("usage.steps", "--steps needs a count 1..%ld, not '%s'",
                                   MAX_STEPS, v ? v : "");
        } else if ((v = opt_value(argc, argv, &i, "--threads", &m)), m) {
            if (!parse_count(v, MAX_THREADS, &o->sim.threads))
                return usage_error("usage.threads", "--threads needs a count 1..%ld, not '%s'",
                                   MAX_THREADS, v ? v : "");
        } else if ((v = opt_value(argc, argv, &i, "-o", &m)), m) {
            if (!v || !*v)
                return usage_error("usage.output", "-o needs a directory");
            o->dir = v;
        } else {
            return usage_error("usage.option", "unknown option '%s'", a);
        }
    }
    if (!o->file)
        return usage_error("usage.args", "no graph file (give GRAPH.pb, or - for stdin)");
    if (dump_all && !o->dir)
        return usage_error("usage.args", "--dump-all needs -o DIR");
    o->sim.keep_all = dump_all;
    return -1;
}

/* Creates dir and its missing parents. */
static Status make_dir(const char *dir, Diag *d)
{
    char *p = strdup(dir);
    if (!p)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    Status st = ST_OK;
    for (char *s = p + 1;; s++) {
        bool end = *s == 0;
        if (*s == '/' || end) {
            char c = *s;
            *s = 0;
            struct stat sb;
            if (stat(p, &sb) != 0 && mkdir(p, 0777) != 0 && errno != EEXIST) {
                st = diag_add(d, ST_RUNTIME, "io.write", NULL, "cannot create the "
                              "directory '%s': %s", p, strerror(errno));
                break;
            }
            *s = c;
        }
        if (end)
            break;
    }
    if (!st) {
        struct stat sb;
        if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
            st = diag_add(d, ST_RUNTIME, "io.write", NULL, "not a directory");
    }
    free(p);
    return st;
}

/* Writes the tensors; on failure removes the files written so far. */
static Status write_all(const char *dir, const SimResult *res, Diag *d)
{
    uint32_t n = res->n_outputs + res->n_blocks, done = 0;
    char **names = calloc((size_t)n + 1, sizeof *names);
    if (!names)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    free(d->file);
    d->file = strdup(dir);
    Status st = make_dir(dir, d);
    for (uint32_t i = 0; i < n && !st; i++) {
        bool out = i < res->n_outputs;
        const SimTensor *t = out ? &res->outputs[i] : &res->blocks[i - res->n_outputs];
        size_t len = strlen(dir) + 64;
        if (!(names[i] = malloc(len))) {
            st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
            break;
        }
        if (out)
            snprintf(names[i], len, "%s/output%d.npy", dir, (int)t->socket_id);
        else
            snprintf(names[i], len, "%s/block%d.npy", dir, (int)t->block_id);
        free(d->file);
        d->file = strdup(names[i]);
        if ((st = npy_write_i32(names[i], t->data, t->shape, t->ndim, d)))
            break;
        done = i + 1;
    }
    if (st)
        for (uint32_t i = 0; i < done; i++)
            unlink(names[i]);
    for (uint32_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return st;
}

static void print_tensor(const char *what, const SimTensor *t)
{
    printf("%s (block %d): int32 (", what, (int)t->block_id);
    for (uint32_t i = 0; i < t->ndim; i++)
        printf("%s%" PRId64, i ? ", " : "", t->shape[i]);
    printf("%s)\n", t->ndim == 1 ? "," : "");
    int64_t row = t->ndim ? t->shape[t->ndim - 1] : 1;
    for (int64_t i = 0; i < t->count; i++)
        printf("%d%s", (int)t->data[i], (row && (i + 1) % row == 0) ? "\n" : " ");
}

int main(int argc, char **argv)
{
    Options o;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) {
        for (uint32_t i = 0; i < o.n_inputs; i++)
            free((char *)o.inputs[i].name);
        free(o.inputs);
        free(o.paths);
        return rc;
    }
    Diag d;
    diag_init(&d, o.file);
    Graph *g = NULL;
    SimRun *run = NULL;
    SimResult res = {0};
    NpyArray *arrays = calloc((size_t)o.n_inputs + 1, sizeof *arrays);
    Status st = arrays ? ST_OK : diag_add(&d, ST_RUNTIME, "oom", NULL, "out of memory");
    if (!st)
        st = graph_load_pb(o.file, &g, &d);
    if (!st)
        st = verify_graph(g, &d);
    if (!st)
        st = sim_create(g, &o.sim, &run, &d);
    for (uint32_t i = 0; i < o.n_inputs && !st; i++) {
        /* .npy findings name the .npy file; the input's block findings the graph. */
        Diag nd;
        diag_init(&nd, o.paths[i]);
        st = npy_read(o.paths[i], &arrays[i], &nd);
        diag_print(&nd, stderr, TOOL);
        diag_finish(&nd);
        o.inputs[i].array = &arrays[i];
    }
    if (!st)
        st = sim_run(run, o.inputs, o.n_inputs, &res, &d);
    if (!st && o.dir) {
        st = write_all(o.dir, &res, &d);
    } else if (!st) {
        char what[64];
        for (uint32_t k = 0; k < res.n_outputs; k++) {
            snprintf(what, sizeof what, "output%d", (int)res.outputs[k].socket_id);
            print_tensor(what, &res.outputs[k]);
        }
        if (stdout_done())
            st = ST_RUNTIME;
    }
    diag_print(&d, stderr, TOOL);
    if (!st && d.oom)
        st = ST_RUNTIME;
    diag_finish(&d);
    sim_result_free(&res);
    sim_destroy(run);
    graph_destroy(g);
    for (uint32_t i = 0; i < o.n_inputs; i++) {
        if (arrays)
            npy_free(&arrays[i]);
        free((char *)o.inputs[i].name);
    }
    free(arrays);
    free(o.inputs);
    free(o.paths);
    return (int)st;
}
