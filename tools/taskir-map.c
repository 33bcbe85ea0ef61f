/* taskir-map: maps a TaskGraph onto a chip: a Mapping (.map.pb), and on request a JSON report
 * and an SVG picture. Argument parsing and exit codes only: the mapper is mapper/mapper.h,
 * the passes passes/manager.h (the default list, run first on a graph without groups unless
 * --no-passes), the chip description taskir/chip.h, the writers taskir/mapping.h and taskir/fileio.h
 * (atomic: a failed run leaves no partial file).
 *
 *   taskir-map IN.pb [--chip CHIP.xml] [-o OUT.map.pb] [--report R.json] [--svg CHIP.svg]
 *              [--svg-colour memory|clocks] [--seed N] [--effort LEVEL] [--no-passes]
 *              [--quiet]
 */
#include "cli.h"
#include "mapper/mapper.h"
#include "passes/manager.h"
#include "progress.h"
#include "taskir/chip.h"
#include "taskir/fileio.h"
#include "taskir/mapping.h"
#include "taskir/pbio.h"
#include "taskir/verify.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef TASKIR_VERSION
#define TASKIR_VERSION "unknown"
#endif

#define TOOL "taskir-map"

static const char usage_text[] =
    "usage: taskir-map IN.pb [--chip CHIP.xml] [-o OUT.map.pb] [--report R.json]\n"
    "                  [--svg CHIP.svg] [--svg-colour memory|clocks] [--seed N]\n"
    "                  [--effort LEVEL] [--no-passes] [--quiet]\n"
    "       taskir-map --help | --version\n"
    "\n"
    "Maps a TaskGraph onto the cores of a chip (docs/mapper.md): selects every compute\n"
    "block's primitive, schedules the blocks into phases and slots, places the groups onto\n"
    "cores (Scotch, then refinement under the traffic cost), routes the edges and predicts\n"
    "memory, clocks and traffic. Writes the Mapping (.map.pb), which taskir-dump and\n"
    "taskir-run read. Where the chip's arithmetic would give other values than the graph\n"
    "(docs/exactness.md), it first rewrites the graph when that is provably exact (with a\n"
    "warning), else it refuses the graph naming the block [map.exact.*].\n"
    "\n"
    "options:\n"
    "  --chip FILE     the chip description (XML, docs/chip.md); default: the built-in\n"
    "                  TianjicX description (examples/chips/tianjicx.xml)\n"
    "  -o FILE         write the Mapping to FILE (atomically); without -o it goes to\n"
    "                  standard output, which must then not be a terminal\n"
    "  --report FILE   write a JSON report: per core and phase figures, totals, cost terms\n"
    "  --svg FILE      write an SVG picture of the chip array: cores coloured by memory (or\n"
    "                  clocks), the busiest routes drawn, a legend\n"
    "  --svg-colour memory|clocks  what colours the cores of the picture (default memory)\n"
    "  --seed N        seed of the placement's random choices (default 1); one seed, one\n"
    "                  mapping\n"
    "  --effort LEVEL  0 (Scotch's placement alone) to 3 (most refinement); default 1\n"
    "  --no-passes     map the graph as it is, without running the default passes (those\n"
    "                  of taskir-opt, docs/passes.md) first on a graph that has no groups\n"
    "  --quiet         no progress line on standard error\n"
    "  --help          print this help and exit\n"
    "  --version       print the version and exit\n"
    "\n"
    "exit status:\n"
    "  0  success\n"
    "  1  usage error: unknown option, missing input, bad value, an option given twice,\n"
    "     no -o with a terminal, an output that is a directory or an input (docs/cli.md)\n"
    "  2  logic error: the graph or the chip description is invalid, or the chip cannot\n"
    "     run the graph (the message names the block and the rule, docs/rules.md map.*)\n"
    "  3  runtime error: a file cannot be read or written, out of memory\n";

typedef struct Options {
    const char *in, *chip, *out, *report, *svg;
    MapperOptions map;
    MapSvgColour colour;
    bool no_passes, quiet;
} Options;

#define usage_error(...) cli_usage(TOOL, __VA_ARGS__)

/* An unsigned decimal number that fits max; false otherwise. */
static bool parse_num(const char *s, uint64_t max, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+')
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > max)
        return false;
    *out = v;
    return true;
}

/* An option that names a file, given once. */
typedef struct FileOpt {
    const char *name;
    const char *rule;    /* of a missing value */
    const char **value;
    bool seen;
} FileOpt;

/* argv[*i] as one of the file options of opts (NULL-terminated): *matched says whether it is
 * one; returns -1 to go on, else the exit code of a usage error. */
static int file_opt(int argc, char **argv, int *i, FileOpt *opts, bool *matched)
{
    for (FileOpt *f = opts; f->name; f++) {
        const char *v = cli_opt_value(argc, argv, i, f->name, matched);
        if (!*matched)
            continue;
        int rc = cli_once(TOOL, f->name, &f->seen);
        if (rc >= 0)
            return rc;
        if (!v || !*v)
            return usage_error(f->rule, "%s needs a file name", f->name);
        *f->value = v;
        return -1;
    }
    return -1;
}

static int parse_args(int argc, char **argv, Options *o)
{
    memset(o, 0, sizeof *o);
    mapper_options_default(&o->map);
    bool only_files = false, s_seed = false, s_eff = false, s_col = false;
    FileOpt files[] = {{"--chip", "usage.args", &o->chip, false},
                       {"-o", "usage.output", &o->out, false},
                       {"--report", "usage.output", &o->report, false},
                       {"--svg", "usage.output", &o->svg, false},
                       {NULL, NULL, NULL, false}};
    int rc;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        bool m;
        uint64_t n;
        if (only_files || a[0] != '-' || strcmp(a, "-") == 0) {
            if (o->in)
                return usage_error("usage.args", "more than one input graph ('%s')", a);
            o->in = a;
        } else if (strcmp(a, "--") == 0) {
            only_files = true;
        } else if (cli_is_help_version(a)) {
            return cli_help_version(TOOL, a, usage_text, TASKIR_VERSION);
        } else if ((rc = file_opt(argc, argv, &i, files, &m)), m) {
            if (rc >= 0)
                return rc;
        } else if ((v = cli_opt_value(argc, argv, &i, "--svg-colour", &m)), m) {
            if ((rc = cli_once(TOOL, "--svg-colour", &s_col)) >= 0)
                return rc;
            if (v && strcmp(v, "memory") == 0)
                o->colour = MAP_SVG_MEMORY;
            else if (v && strcmp(v, "clocks") == 0)
                o->colour = MAP_SVG_CLOCKS;
            else
                return usage_error("usage.value", "--svg-colour takes memory or clocks, not "
                                   "'%s'", v ? v : "");
        } else if ((v = cli_opt_value(argc, argv, &i, "--seed", &m)), m) {
            if ((rc = cli_once(TOOL, "--seed", &s_seed)) >= 0)
                return rc;
            if (!parse_num(v, UINT64_MAX, &n))
                return usage_error("usage.value", "--seed takes a number 0 .. 2^64-1, not "
                                   "'%s'", v ? v : "");
            o->map.seed = n;
        } else if ((v = cli_opt_value(argc, argv, &i, "--effort", &m)), m) {
            if ((rc = cli_once(TOOL, "--effort", &s_eff)) >= 0)
                return rc;
            if (!parse_num(v, MAPPER_MAX_EFFORT, &n))
                return usage_error("usage.value", "--effort takes 0 .. %d, not '%s'",
                                   MAPPER_MAX_EFFORT, v ? v : "");
            o->map.effort = (int)n;
        } else if (strcmp(a, "--no-passes") == 0) {
            o->no_passes = true;
        } else if (strcmp(a, "--quiet") == 0) {
            o->quiet = true;
        } else {
            return usage_error("usage.option", "unknown option '%s'", a);
        }
    }
    if (!o->in)
        return usage_error("usage.args", "no input graph (give IN.pb)");
    if (s_col && !o->svg)
        return usage_error("usage.args", "--svg-colour needs --svg");
    if ((!o->out || cli_is_std(o->out)) && isatty(STDOUT_FILENO))
        return usage_error("usage.output", "no -o FILE, and standard output is a terminal");
    const char *inputs[] = {o->in, o->chip};
    if ((rc = cli_one_stdin(TOOL, inputs, 2)) >= 0)
        return rc;
    const char *outs[] = {o->out, o->report, o->svg};
    for (size_t k = 0; k < 3; k++) {
        if (!outs[k])
            continue;
        if ((rc = cli_check_output(TOOL, outs[k], inputs, 2)) >= 0)
            return rc;
        for (size_t j = 0; j < k; j++)
            if (outs[j] && (strcmp(outs[j], outs[k]) == 0 || tir_same_file(outs[j], outs[k])))
                return usage_error("usage.output", "'%s' is given for two outputs", outs[k]);
    }
    return -1;
}

/* What fn prints, into a malloc'd buffer *buf of *len bytes. */
static Status print_to(Status (*fn)(const MapPlan *, const void *, FILE *, Diag *),
                       const MapPlan *p, const void *arg, char **buf, size_t *len, Diag *d)
{
    FILE *f = open_memstream(buf, len);
    if (!f)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    Status st = fn(p, arg, f, d);
    if (fclose(f) != 0 && st == ST_OK)
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    return st;
}

static Status report_fn(const MapPlan *p, const void *arg, FILE *f, Diag *d)
{
    (void)arg;
    return mapper_report_json(p, f, d);
}

static Status svg_fn(const MapPlan *p, const void *arg, FILE *f, Diag *d)
{
    return mapper_svg(p, *(const MapSvgColour *)arg, f, d);
}

/* Writes the outputs all or none: each into a temporary file beside it, and only when every
 * one is written are they renamed into place (fileio.h). Messages name the file and are
 * printed here. */
static Status write_all(const char *const *path, const void *const *buf, const size_t *len,
                        size_t n)
{
    TirAtomicFile *f[3] = {NULL, NULL, NULL};
    Diag d[3];
    Status st = ST_OK;
    for (size_t k = 0; k < n; k++)
        diag_init(&d[k], path[k] ? cli_name(path[k], true) : NULL);
    for (size_t k = 0; k < n && st == ST_OK; k++) {
        if (!path[k])
            continue;
        struct iovec iov = {(void *)buf[k], len[k]};
        st = tir_atomic_open(path[k], &f[k], &d[k]);
        if (st == ST_OK)
            st = tir_atomic_writev(f[k], &iov, 1, &d[k]);
    }
    for (size_t k = 0; k < n; k++) {
        if (f[k]) {
            Status c = tir_atomic_close(f[k], st == ST_OK, &d[k]);
            if (st == ST_OK)
                st = c;
        }
        diag_print(&d[k], stderr, TOOL);
        diag_finish(&d[k]);
    }
    return st;
}

/* The default passes (pass_default_list) over g, fitted to chip. */
static Status run_passes(Graph *g, const Chip *chip, Diag *d)
{
    PassPlan plan;
    Status st = pass_plan_parse(pass_default_list, &plan, d);
    if (st != ST_OK)
        return st == ST_USAGE ? ST_RUNTIME : st; /* the default list is ours: a bug */
    PassOptions po = {.chip = chip};
    PassRunOptions ro = {0};
    st = pass_plan_run(&plan, g, &po, &ro, d);
    pass_plan_finish(&plan);
    if (st == ST_OK && verify_graph(g, d) != ST_OK)
        st = diag_add(d, ST_RUNTIME, "map.internal", NULL,
                      "the graph fails the verifier after the default passes");
    return st;
}

int main(int argc, char **argv)
{
    Options o;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0)
        return rc;
    Diag d, cd; /* the graph's findings, the chip description's */
    diag_init(&d, cli_name(o.in, false));
    diag_init(&cd, o.chip ? cli_name(o.chip, false) : "(built-in chip)");
    Graph *g = NULL;
    Chip *chip = NULL;
    MapPlan *plan = NULL;
    Mapping *m = NULL;
    CliProgress prog;
    Status st = graph_load_pb(o.in, &g, &d);
    if (st == ST_OK)
        st = verify_graph(g, &d);
    if (st == ST_OK)
        st = o.chip ? chip_load(o.chip, &chip, &cd) : chip_load_default(&chip, &cd);
    /* the results' stores before the OUTPUTs in their writers' shape, the model inputs'
     * own stores where a compute block writes their maps too, the windows taller than a
     * core in two stages, before the chip-exactness rewrites, which check what they add */
    uint32_t n_store = 0, n_window = 0, n_in = 0;
    if (st == ST_OK && (st = mapper_out_store(g, chip, &n_store, &d)) == ST_OK &&
        (st = mapper_in_store(g, chip, &n_in, &d)) == ST_OK)
        st = mapper_window(g, chip, &n_window, &d);
    if (st == ST_OK && n_store + n_in + n_window && verify_graph(g, &d) != ST_OK) /* a bug */
        st = diag_add(&d, ST_RUNTIME, "map.internal", NULL,
                      "the rewritten graph fails the verifier (a bug of the mapper)");
    /* the chip-exactness rewrites and checks (docs/exactness.md), before the passes so that
     * the split pass sizes what they add; a difference left is a logic error, reported with
     * whatever planning finds besides */
    uint32_t n_rewrites = 0, n_exact = 0;
    Status xst = ST_OK;
    if (st == ST_OK && (xst = mapper_exact(g, chip, &n_exact, &d)) != ST_LOGIC)
        st = xst;
    if (st == ST_OK && n_exact && verify_graph(g, &d) != ST_OK) /* a mapper bug */
        st = diag_add(&d, ST_RUNTIME, "map.internal", NULL,
                      "the rewritten graph fails the verifier (a bug of the mapper)");
    if (st == ST_OK && !o.no_passes && g->n_groups == 0)
        st = run_passes(g, chip, &d);
    if (st == ST_OK)
        st = mapper_rewrite(g, chip, &n_rewrites, &d);
    if (st == ST_OK && n_rewrites && verify_graph(g, &d) != ST_OK) /* a mapper bug */
        st = diag_add(&d, ST_RUNTIME, "map.internal", NULL,
                      "the rewritten graph fails the verifier (a bug of the mapper)");
    if (st == ST_OK) {
        cli_progress_start(&prog, TOOL, o.quiet);
        o.map.progress = &prog.hook;
        st = mapper_plan(g, chip, &o.map, &plan, &d);
        cli_progress_end(&prog);
    }
    if (st == ST_OK)
        st = xst;
    char *rep = NULL, *svg = NULL;
    uint8_t *pb = NULL;
    size_t rep_len = 0, svg_len = 0, pb_len = 0;
    if (st == ST_OK && o.report)
        st = print_to(report_fn, plan, NULL, &rep, &rep_len, &d);
    if (st == ST_OK && o.svg)
        st = print_to(svg_fn, plan, &o.colour, &svg, &svg_len, &d);
    if (st == ST_OK) {
        st = mapper_emit(plan, g, &m, &d);
        g = NULL; /* the mapping owns it (or it is gone) */
    }
    if (st == ST_OK) {
        Diag vd;
        diag_init(&vd, cli_name(o.in, false));
        if (verify_mapping_on(m, chip, &vd) != ST_OK) { /* a mapper bug: say what, exit 3 */
            diag_print(&vd, stderr, TOOL);
            st = diag_add(&d, ST_RUNTIME, "map.internal", NULL,
                          "the mapping fails the verifier (a bug of the mapper)");
        }
        diag_finish(&vd);
    }
    if (st == ST_OK)
        st = mapping_pack(m, &pb, &pb_len, &d);
    bool written = false; /* write_all printed its messages */
    if (st == ST_OK) {
        const char *paths[3] = {o.out ? o.out : "-", o.report, o.svg};
        const void *bufs[3] = {pb, rep, svg};
        size_t lens[3] = {pb_len, rep_len, svg_len};
        st = write_all(paths, bufs, lens, 3);
        written = true;
    }
    free(rep);
    free(svg);
    free(pb);
    diag_print(&cd, stderr, TOOL);
    diag_print(&d, stderr, TOOL);
    if (st != ST_OK && d.n == 0 && cd.n == 0 && !written)
        fprintf(stderr, "%s: %s: failed\n", TOOL, cli_name(o.in, false));
    mapping_destroy(m);
    mapper_plan_destroy(plan);
    graph_destroy(g);
    chip_destroy(chip);
    diag_finish(&d);
    diag_finish(&cd);
    return (int)st;
}
