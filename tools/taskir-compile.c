/* taskir-compile: compiles a model into a TaskGraph (.pb). Argument parsing and exit codes
 * only: the CVM reader is frontend/cvm.h, the lowering frontend/lower.h (which verifies the
 * graph: a finding there is a bug of the compiler, reported as a runtime error with the
 * verifier's findings), the writer taskir/pbio.h (atomic, deterministic).
 *
 *   taskir-compile MODEL.json [--params MODEL.params] [--format cvm] [-o OUT.pb]
 */
#include "frontend/cvm.h"
#include "frontend/lower.h"
#include "taskir/pbio.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef TASKIR_VERSION
#define TASKIR_VERSION "unknown"
#endif

#define TOOL "taskir-compile"

static const char usage_text[] =
    "usage: taskir-compile MODEL.json [--params MODEL.params] [--format cvm] [-o OUT.pb]\n"
    "       taskir-compile --help | --version\n"
    "\n"
    "Compiles a model into a TaskGraph (.pb) that describes one sample: the model input's\n"
    "axis 0 is the batch, which taskir-run loops over. The graph is checked against every\n"
    "verifier rule before it is written.\n"
    "\n"
    "options:\n"
    "  --params P    the model's parameters (cvm-runtime params file); without it the model\n"
    "                may have no parameters\n"
    "  --format FMT  the model format: cvm (cvm-runtime graph JSON, the default)\n"
    "  -o FILE       write the TaskGraph to FILE (atomically); without -o it goes to\n"
    "                standard output, which must then not be a terminal\n"
    "  --help        print this help and exit\n"
    "  --version     print the version and exit\n"
    "\n"
    "exit status:\n"
    "  0  success\n"
    "  1  usage error: unknown option, missing model, bad --format, no -o with a terminal\n"
    "  2  logic error: the model is invalid, or an operator cannot be lowered (the message\n"
    "     names the node and the rule, docs/lowering.md)\n"
    "  3  runtime error: a file cannot be read or written, out of memory, or the compiled\n"
    "     graph fails the verifier (a bug of the compiler)\n";

typedef struct Options {
    const char *model;
    const char *params;
    const char *out;     /* NULL: standard output */
} Options;

static int usage_error(const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int usage_error(const char *rule, const char *fmt, ...)
{
    Diag d;
    diag_init(&d, NULL);
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag_add(&d, ST_USAGE, rule, NULL, "%s", msg);
    diag_print(&d, stderr, TOOL);
    diag_finish(&d);
    fputs("try 'taskir-compile --help'\n", stderr);
    return ST_USAGE;
}

static int stdout_done(void)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return ST_OK;
    fprintf(stderr, "%s: cannot write to stdout: %s [io.write]\n", TOOL, strerror(errno));
    return ST_RUNTIME;
}

/* The value of "--opt VALUE" or "--opt=VALUE" (matched set), else NULL. */
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

/* Parses argv into o. Returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, Options *o)
{
    memset(o, 0, sizeof *o);
    bool only_files = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        bool m;
        if (only_files || a[0] != '-' || strcmp(a, "-") == 0) {
            if (o->model)
                return usage_error("usage.args", "more than one model ('%s')", a);
            o->model = a;
        } else if (strcmp(a, "--") == 0) {
            only_files = true;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage_text, stdout);
            return stdout_done();
        } else if (strcmp(a, "--version") == 0) {
            printf("%s %s\n", TOOL, TASKIR_VERSION);
            return stdout_done();
        } else if ((v = opt_value(argc, argv, &i, "--params", &m)), m) {
            if (!v || !*v)
                return usage_error("usage.params", "%s needs a file name", a);
            o->params = v;
        } else if ((v = opt_value(argc, argv, &i, "--format", &m)), m) {
            if (!v)
                return usage_error("usage.format", "%s needs a value: cvm", a);
            if (strcmp(v, "cvm") != 0)
                return usage_error("usage.format", "unknown format '%s' (cvm)", v);
        } else if (strcmp(a, "--allow-host") == 0) {
            return usage_error("usage.option", "--allow-host (a chip graph plus a host "
                               "remainder for get_valid_counts / non_max_suppression) is not "
                               "implemented yet");
        } else if ((v = opt_value(argc, argv, &i, "-o", &m)), m) {
            if (!v || !*v)
                return usage_error("usage.output", "%s needs a file name", a);
            o->out = v;
        } else {
            return usage_error("usage.option", "unknown option '%s'", a);
        }
    }
    if (!o->model)
        return usage_error("usage.args", "no model (give MODEL.json)");
    if ((!o->out || strcmp(o->out, "-") == 0) && isatty(STDOUT_FILENO))
        return usage_error("usage.output", "no -o FILE, and standard output is a terminal");
    return -1;
}

int main(int argc, char **argv)
{
    Options o;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0)
        return rc;
    Diag d, od;
    diag_init(&d, o.model);
    diag_init(&od, o.out ? o.out : "<stdout>");
    OpGraph *g = NULL;
    Graph *tg = NULL;
    Status st = fe_cvm_load(o.model, o.params, &g, &d);
    if (st == ST_OK)
        st = fe_lower(g, NULL, &tg, &d);
    og_destroy(g);
    if (st == ST_OK)
        st = graph_save_pb(tg, o.out ? o.out : "-", &od);
    graph_destroy(tg);
    diag_print(&d, stderr, TOOL);
    diag_print(&od, stderr, TOOL);
    if (st != ST_OK && d.n == 0 && od.n == 0)
        fprintf(stderr, "%s: %s: failed\n", TOOL, o.model);
    diag_finish(&d);
    diag_finish(&od);
    return (int)st;
}
