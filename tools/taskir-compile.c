/* taskir-compile: compiles a model into a TaskGraph (.pb). Argument parsing and exit codes
 * only: the CVM reader is frontend/cvm/cvm.h, the CINN XML reader frontend/cinn/cinn.h (a path ending
 * in ".xml" or --format cinn), the lowering frontend/lower/lower.h (which verifies the
 * graph: a finding there is a bug of the compiler, reported as a runtime error with the
 * verifier's findings), the writer taskir/pbio.h (atomic, deterministic).
 *
 *   taskir-compile MODEL.json [--params MODEL.params] [--format cvm] [-o OUT.pb]
 *   taskir-compile PROG.xml [--format cinn] [-o OUT.pb]
 *   taskir-compile MODEL.onnx [--format onnx] [-o OUT.pb]   (frontend/onnx/onnx.h)
 */
#include "frontend/cinn/cinn.h"
#include "frontend/cvm/cvm.h"
#include "frontend/format/format.h"
#include "frontend/host/compile.h"
#include "frontend/lower/lower.h"
#include "frontend/onnx/onnx.h"
#include "cli.h"
#include "onnx_cli.h"
#include "taskir/fileio.h"
#include "taskir/pbio.h"

#include <errno.h>
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
    "                      [--allow-host]\n"
    "       taskir-compile PROG.xml [--format cinn] [-o OUT.pb]\n"
    "       taskir-compile MODEL.onnx [--format onnx] [-o OUT.pb]\n"
    "                      [--input-range NAME=LO..HI] [--const NAME=X.npy]\n"
    "       taskir-compile --help | --version\n"
    "\n"
    "Compiles a model into a TaskGraph (.pb) that describes one sample: the model input's\n"
    "axis 0 is the batch, which taskir-run loops over. The graph is checked against every\n"
    "verifier rule before it is written.\n"
    "\n"
    "options:\n"
    "  --params P    the model's parameters (cvm-runtime params file); without it the model\n"
    "                may have no parameters\n"
    "  --format FMT  the model format: cvm (cvm-runtime graph JSON, the default) or cinn\n"
    "                (a CINN-style XML program, docs/cinn.md; the default for a .xml path)\n"
    "                or onnx (an ONNX model, docs/onnx.md; the default for a .onnx path)\n"
    "  -o FILE       write the TaskGraph to FILE (atomically); without -o it goes to\n"
    "                standard output, which must then not be a terminal. A link is\n"
    "                followed, a device or FIFO written in place. A stale host\n"
    "                remainder beside FILE (below) is removed.\n"
    "  --input-range NAME=LO..HI  ONNX: graph input NAME holds integers in LO..HI: a\n"
    "                float input holding integers (assumed 16-bit without it) or an integer\n"
    "                input; it gets the least precision that holds them (docs/onnx.md)\n"
    "  --const NAME=X.npy  ONNX: graph input NAME is the constant X.npy, as if it were an\n"
    "                initializer (weights given as graph inputs)\n"
    "  --allow-host  get_valid_counts / non_max_suppression (data-dependent) and everything\n"
    "                after them run on the host: FILE gets the chip graph, and FILE without\n"
    "                .pb plus .host.json / .host.params a CVM model of the rest, whose inputs\n"
    "                output<S> are the chip's OUTPUT socket S; taskir-run FILE runs both\n"
    "                (docs/lowering.md section 7). Needs -o FILE. Without it such a node is\n"
    "                a logic error [lower.host].\n"
    "  --help        print this help and exit\n"
    "  --version     print the version and exit\n"
    "\n"
    "exit status:\n"
    "  0  success\n"
    "  1  usage error: unknown option, missing model, bad --format, no -o with a terminal,\n"
    "     an option given twice, -o a directory or an input (docs/cli.md)\n"
    "  2  logic error: the model is invalid, or an operator cannot be lowered (the message\n"
    "     names the node and the rule, docs/lowering.md)\n"
    "  3  runtime error: a file cannot be read or written, out of memory, or the compiled\n"
    "     graph fails the verifier (a bug of the compiler)\n";

typedef struct Options {
    const char *model;
    const char *params;
    const char *out;     /* NULL: standard output */
    bool cinn;           /* a CINN XML program */
    bool onnx;           /* an ONNX model */
    bool allow_host;     /* --allow-host: chip graph + host remainder (compile.h) */
    OnnxCli onnx_cli;    /* --input-range, --const (ONNX models) */
} Options;

#define usage_error(...) cli_usage(TOOL, __VA_ARGS__)

/* The files -o OUT writes or removes: OUT, and its host remainder pair (compile.h),
 * none of which may be a directory or an input. Returns -1 or the exit code. */
static int check_outputs(const char *out, const char *const *inputs, size_t n)
{
    int rc = cli_check_output(TOOL, out, inputs, n);
    if (rc >= 0 || cli_is_std(out))
        return rc;
    Diag d;
    diag_init(&d, out);
    char *json = NULL, *params = NULL;
    if (fe_host_paths(out, &json, &params, &d) != ST_OK) {
        diag_print(&d, stderr, TOOL);
        rc = ST_RUNTIME;
    }
    const char *host[] = {json, params};
    for (size_t h = 0; rc < 0 && h < 2; h++)
        for (size_t i = 0; rc < 0 && i < n; i++)
            if (inputs[i] && tir_same_file(host[h], inputs[i]))
                rc = usage_error("usage.output", "-o '%s' writes or removes '%s' beside it (a "
                                 "host remainder), which is the input '%s'", out, host[h],
                                 inputs[i]);
    diag_finish(&d);
    free(json);
    free(params);
    return rc;
}

/* Parses argv into o. Returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, Options *o)
{
    memset(o, 0, sizeof *o);
    bool only_files = false, format_given = false, seen_params = false, seen_out = false;
    int rc;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v, *rule;
        char err[512];
        bool m;
        if (only_files || a[0] != '-' || strcmp(a, "-") == 0) {
            if (o->model)
                return usage_error("usage.args", "more than one model ('%s')", a);
            o->model = a;
        } else if (strcmp(a, "--") == 0) {
            only_files = true;
        } else if (cli_is_help_version(a)) {
            return cli_help_version(TOOL, a, usage_text, TASKIR_VERSION);
        } else if ((v = cli_opt_value(argc, argv, &i, "--params", &m)), m) {
            if ((rc = cli_once(TOOL, "--params", &seen_params)) >= 0)
                return rc;
            if (!v || !*v)
                return usage_error("usage.params", "%s needs a file name", a);
            o->params = v;
        } else if ((v = cli_opt_value(argc, argv, &i, "--format", &m)), m) {
            if ((rc = cli_once(TOOL, "--format", &format_given)) >= 0)
                return rc;
            if (!v)
                return usage_error("usage.format", "%s needs a value: cvm, cinn or onnx", a);
            if (strcmp(v, "cvm") != 0 && strcmp(v, "cinn") != 0 && strcmp(v, "onnx") != 0)
                return usage_error("usage.format", "unknown format '%s' (cvm, cinn, onnx)", v);
            o->cinn = strcmp(v, "cinn") == 0;
            o->onnx = strcmp(v, "onnx") == 0;
        } else if (strcmp(a, "--allow-host") == 0) {
            o->allow_host = true;
        } else if ((rule = onnx_cli_option(&o->onnx_cli, argc, argv, &i, &m, err, sizeof err)),
                   m) {
            if (rule)
                return usage_error(rule, "%s", err);
        } else if ((v = cli_opt_value(argc, argv, &i, "-o", &m)), m) {
            if ((rc = cli_once(TOOL, "-o", &seen_out)) >= 0)
                return rc;
            if (!v || !*v)
                return usage_error("usage.output", "%s needs a file name", a);
            o->out = v;
        } else {
            return usage_error("usage.option", "unknown option '%s'", a);
        }
    }
    if (!o->model)
        return usage_error("usage.args", "no model (give MODEL.json or PROG.xml)");
    if (!format_given) { /* by content, then suffix (format.h); anything else: CVM JSON */
        FeFormat f = fe_format_of_file(o->model);
        o->cinn = f == FE_FORMAT_CINN;
        o->onnx = f == FE_FORMAT_ONNX;
    }
    if (o->onnx && o->params)
        return usage_error("usage.params", "--params is for CVM models; an ONNX model holds "
                           "its initializers");
    if (!o->onnx && onnx_cli_given(&o->onnx_cli))
        return usage_error("usage.args", "--input-range and --const are for ONNX models");
    if (o->cinn && o->params)
        return usage_error("usage.params", "--params is for CVM models; a CINN program holds "
                           "its constants");
    if (o->allow_host && (!o->out || strcmp(o->out, "-") == 0))
        return usage_error("usage.output", "--allow-host needs -o FILE: a host remainder is "
                           "written beside it (FILE without .pb, plus .host.json and "
                           ".host.params)");
    if ((!o->out || cli_is_std(o->out)) && isatty(STDOUT_FILENO))
        return usage_error("usage.output", "no -o FILE, and standard output is a terminal");
    /* The model, its params and the --const arrays: none may be the output. */
    size_t n = 2 + (size_t)o->onnx_cli.nbind;
    const char **inputs = malloc(n * sizeof *inputs);
    if (!inputs) {
        fprintf(stderr, "%s: out of memory [oom]\n", TOOL);
        return ST_RUNTIME;
    }
    inputs[0] = o->model;
    inputs[1] = o->params;
    for (uint32_t k = 0; k < o->onnx_cli.nbind; k++)
        inputs[2 + k] = o->onnx_cli.paths[k];
    if ((rc = cli_one_stdin(TOOL, inputs, n)) < 0 && o->out)
        rc = check_outputs(o->out, inputs, n);
    free(inputs);
    return rc;
}

/* Reads a CVM model: the graph JSON (messages name it, through d) and the params file
 * (its read errors name the params file, printed here: *said). */
static Status load_cvm(const Options *o, OpGraph **g, Diag *d, bool *said)
{
    uint8_t *json = NULL, *params = NULL;
    size_t jlen = 0, plen = 0;
    Status st = tir_read_file(o->model, CVM_MAX_JSON_BYTES, &json, &jlen, d);
    if (st == ST_OK && o->params) {
        Diag pd;
        diag_init(&pd, cli_name(o->params, false));
        st = tir_read_file(o->params, TIR_MAX_FILE_BYTES, &params, &plen, &pd);
        diag_print(&pd, stderr, TOOL);
        *said = pd.n > 0;
        diag_finish(&pd);
    }
    if (st == ST_OK)
        st = fe_cvm_load_mem((const char *)json, jlen, params, plen, o->params, g, d);
    free(json);
    free(params);
    return st;
}

int main(int argc, char **argv)
{
    /* the compiler frees the model's parameters (100 MB for ResNet-50) and then allocates
     * as much for the TaskGraph's copy: the same pages again (bench/compile) */
    cli_keep_freed_memory();
    Options o;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) {
        onnx_cli_free(&o.onnx_cli);
        return rc;
    }
    Diag d, od;
    diag_init(&d, cli_name(o.model, false));
    diag_init(&od, cli_name(o.out ? o.out : "-", true));
    OpGraph *g = NULL, *host = NULL;
    Graph *tg = NULL;
    LowerOptions lo = {.allow_host = o.allow_host};
    Status st;
    bool said = false;   /* the CINN reader printed its messages */
    if (o.cinn) { /* the reader's messages carry "PROG.xml:LINE" themselves */
        Diag cd;
        diag_init(&cd, NULL);
        CinnBuilder *b = NULL;
        st = fe_cinn_read_xml(o.model, &cd, &b);
        if (st == ST_OK)
            st = fe_compile(fe_cinn_graph(b), &lo, &tg, &host, &d);
        fe_cinn_destroy(b);
        diag_print(&cd, stderr, TOOL);
        said = cd.n > 0;
        diag_finish(&cd);
    } else if (o.onnx) {
        OnnxModel *m = NULL;
        OnnxOptions opt;
        st = onnx_cli_load(&o.onnx_cli, TOOL, &opt);
        if (st == ST_OK)
            st = fe_onnx_load(o.model, &opt, &m, &d);
        said = st != ST_OK && d.n == 0;   /* an .npy finding, printed */
        if (st == ST_OK)
            st = fe_compile(m->g, &lo, &tg, &host, &d);
        fe_onnx_destroy(m);
    } else {
        st = load_cvm(&o, &g, &d, &said);
        if (st == ST_OK)
            st = fe_compile(g, &lo, &tg, &host, &d);
        og_destroy(g);
    }
    if (st == ST_OK) /* also removes a stale OUT.host.* pair when there is no remainder */
        st = fe_save(tg, host, o.out ? o.out : "-", &od);
    og_destroy(host);
    graph_destroy(tg);
    diag_print(&d, stderr, TOOL);
    diag_print(&od, stderr, TOOL);
    if (st != ST_OK && !said && d.n == 0 && od.n == 0)
        fprintf(stderr, "%s: %s: failed\n", TOOL, o.model);
    diag_finish(&d);
    diag_finish(&od);
    onnx_cli_free(&o.onnx_cli);
    return (int)st;
}
