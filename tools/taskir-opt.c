/* taskir-opt: runs passes over a TaskGraph (.pb) and writes the result. Argument parsing and
 * exit codes only: the passes and their table are passes/pass.h, the pass manager (requires,
 * --verify-each, --dump-after, timing) passes/manager.h, the loader and the atomic,
 * deterministic writer taskir/pbio.h.
 *
 *   taskir-opt IN.pb -o OUT.pb [--passes LIST] [--chip CHIP.xml] [--verify-each]
 *              [--dump-after PASS]
 *
 * The chip the passes fit to is the description --chip names (taskir/chip.h), else the
 * built-in default (examples/chips/tianjicx.xml).
 * The input must pass the verifier (a logic error otherwise, exit 2); so must the output (a
 * finding then is a bug of a pass: exit 3 [pass.verify]). Nothing is written when anything
 * fails.
 */
#include "cli.h"
#include "passes/manager.h"
#include "progress.h"
#include "taskir/chip.h"
#include "taskir/fileio.h"
#include "taskir/pbio.h"
#include "taskir/uses.h"
#include "taskir/verify.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef TASKIR_VERSION
#define TASKIR_VERSION "unknown"
#endif

#define TOOL "taskir-opt"

static const char usage_text[] =
    "usage: taskir-opt IN.pb [-o OUT.pb] [--passes LIST] [--chip CHIP.xml] [--split SPEC]\n"
    "                  [--no-fit] [--verify-each]\n"
    "                  [--dump-after PASS[,PASS...]|all] [--dump-to FILE] [--time-passes]\n"
    "                  [--quiet]\n"
    "       taskir-opt --list-passes | --help | --version\n"
    "\n"
    "Runs passes over a TaskGraph (docs/passes.md) and writes the result. The input must\n"
    "pass the verifier; so must the result of every pass. \"-\" reads standard input.\n"
    "\n"
    "options:\n"
    "  --passes LIST  the passes to run, comma-separated, in order (default: the default\n"
    "                list, --list-passes shows it); a pass whose requirements no pass\n"
    "                before it guarantees is a usage error\n"
    "  --chip CHIP.xml  the chip description the passes fit the graph to (taskir/chip.h);\n"
    "                default: the built-in TianjicX description\n"
    "  --split SPEC   the split pass's explicit cuts (docs/passes.md); needs split in LIST\n"
    "  --no-fit       the split pass makes only the cuts of --split, it does not cut the\n"
    "                graph to fit the chip (a group may then be larger than a core); needs\n"
    "                split in LIST\n"
    "  --verify-each  run the verifier after every pass; a finding names the pass (exit 3)\n"
    "  --dump-after PASSES  print the graph as text (taskir-dump's format) after each of\n"
    "                these passes of LIST, or after all of them, each dump preceded by\n"
    "                \"# after pass 'NAME' (K of N)\"; to standard error unless --dump-to\n"
    "  --dump-to FILE write the dumps to FILE (atomically, when the run succeeds)\n"
    "  --time-passes  print each pass's wall-clock time (ms) and the blocks, edges and groups\n"
    "                before and after it on standard error\n"
    "  -q, --quiet    no progress line: without it, a run longer than 2 seconds\n"
    "                (TASKIR_PROGRESS_AFTER) shows \"pass K of N\" on standard error, when\n"
    "                that is a terminal\n"
    "  -o FILE        write the result to FILE (atomically); without -o it goes to standard\n"
    "                output, which must then not be a terminal. Not a directory nor the input\n"
    "  --list-passes  print the table of passes (name, requires, guarantees, invalidates,\n"
    "                what it does) and the default list, and exit\n"
    "  --help         print this help and exit\n"
    "  --version      print the version and exit\n"
    "\n"
    "exit status:\n"
    "  0  success\n"
    "  1  usage error: unknown option or pass, missing input, a pass list whose requirements\n"
    "     are not met, --dump-after naming a pass not in the list, --split or --no-fit\n"
    "     without split, an option given twice, no -o with a terminal, -o a directory or\n"
    "     the input\n"
    "  2  logic error: the input is not a valid TaskGraph, the chip description is invalid,\n"
    "     or a pass cannot do its job (the message names the pass, the block and the rule,\n"
    "     docs/passes.md)\n"
    "  3  runtime error: a file cannot be read or written, out of memory, or a pass broke\n"
    "     the graph (a bug of the pass) [pass.verify]\n";

typedef struct Options {
    const char *in;
    const char *out;        /* NULL: standard output */
    const char *passes;     /* NULL: pass_default_list */
    const char *chip;       /* --chip CHIP.xml; NULL: the built-in default */
    const char *split;      /* --split SPEC */
    const char *dump_after; /* --dump-after LIST */
    const char *dump_to;    /* --dump-to FILE */
    bool verify_each, time_passes, quiet, list, no_fit;
} Options;

#define usage_error(...) cli_usage(TOOL, __VA_ARGS__)

/* A string option given once: stores it, or returns the exit code of a usage error. */
static int string_opt(const char *a, const char *v, const char *what, const char **dst,
                      bool *seen)
{
    int rc = cli_once(TOOL, a, seen);
    if (rc >= 0)
        return rc;
    if (!v || !*v)
        return usage_error("usage.args", "%s needs %s", a, what);
    *dst = v;
    return -1;
}

/* Parses argv into o. Returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, Options *o)
{
    memset(o, 0, sizeof *o);
    bool only_files = false, seen[6] = {false};
    int rc = -1;
    for (int i = 1; i < argc && rc < 0; i++) {
        const char *a = argv[i], *v;
        bool m;
        if (only_files || a[0] != '-' || strcmp(a, "-") == 0) {
            if (o->in)
                return usage_error("usage.args", "more than one input file ('%s')", a);
            o->in = a;
        } else if (strcmp(a, "--") == 0) {
            only_files = true;
        } else if (cli_is_help_version(a)) {
            return cli_help_version(TOOL, a, usage_text, TASKIR_VERSION);
        } else if (strcmp(a, "--list-passes") == 0) {
            o->list = true;
        } else if (strcmp(a, "--verify-each") == 0) {
            o->verify_each = true;
        } else if (strcmp(a, "--no-fit") == 0) {
            o->no_fit = true;
        } else if (strcmp(a, "--time-passes") == 0) {
            o->time_passes = true;
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            o->quiet = true;
        } else if ((v = cli_opt_value(argc, argv, &i, "--passes", &m)), m) {
            rc = string_opt("--passes", v, "a list of passes", &o->passes, &seen[0]);
        } else if ((v = cli_opt_value(argc, argv, &i, "--chip", &m)), m) {
            rc = string_opt("--chip", v, "a chip description (XML)", &o->chip, &seen[5]);
        } else if ((v = cli_opt_value(argc, argv, &i, "--split", &m)), m) {
            rc = string_opt("--split", v, "a split specification", &o->split, &seen[1]);
        } else if ((v = cli_opt_value(argc, argv, &i, "--dump-after", &m)), m) {
            rc = string_opt("--dump-after", v, "a list of passes or all", &o->dump_after,
                            &seen[2]);
        } else if ((v = cli_opt_value(argc, argv, &i, "--dump-to", &m)), m) {
            rc = string_opt("--dump-to", v, "a file name", &o->dump_to, &seen[3]);
        } else if ((v = cli_opt_value(argc, argv, &i, "-o", &m)), m) {
            if ((rc = cli_once(TOOL, "-o", &seen[4])) >= 0)
                return rc;
            if (!v || !*v)
                return usage_error("usage.output", "%s needs a file name", a);
            o->out = v;
        } else {
            return usage_error("usage.option", "unknown option '%s'", a);
        }
    }
    if (rc >= 0 || o->list)
        return rc;
    if (!o->in)
        return usage_error("usage.args", "no input file (give IN.pb, or - for stdin)");
    if (o->dump_to && !o->dump_after)
        return usage_error("usage.args", "--dump-to needs --dump-after");
    if ((!o->out || cli_is_std(o->out)) && isatty(STDOUT_FILENO))
        return usage_error("usage.output", "no -o FILE, and standard output is a terminal");
    if (o->dump_to && cli_is_std(o->dump_to))
        return usage_error("usage.output", "--dump-to needs a file (without it the dumps go "
                           "to standard error)");
    const char *const inputs[] = {o->in, o->chip};
    if ((rc = cli_one_stdin(TOOL, inputs, 2)) >= 0)
        return rc;
    if (o->out && (rc = cli_check_output(TOOL, o->out, inputs, 2)) >= 0)
        return rc;
    const char *const taken[] = {o->in, o->chip, o->out};
    if (o->dump_to && (rc = cli_check_output(TOOL, o->dump_to, taken, 3)) >= 0)
        return rc;
    return -1;
}

/* The plan of o, checked (usage errors print here). Returns -1 to go on, else the exit code. */
static int make_plan(const Options *o, PassPlan *plan)
{
    Diag d;
    diag_init(&d, NULL);
    Status st = pass_plan_parse(o->passes ? o->passes : pass_default_list, plan, &d);
    if (st == ST_OK && o->dump_after)
        st = pass_plan_dump_after(plan, o->dump_after, &d);
    int rc = -1;
    if (st == ST_USAGE)
        rc = usage_error(d.entries[0].rule, "%s", d.entries[0].what);
    else if (st != ST_OK)
        diag_print(&d, stderr, TOOL), rc = (int)st;
    else if (o->split && !pass_plan_has(plan, "split"))
        rc = usage_error("usage.args", "--split is for the split pass, which is not in the "
                         "pass list");
    else if (o->no_fit && !pass_plan_has(plan, "split"))
        rc = usage_error("usage.args", "--no-fit is for the split pass, which is not in the "
                         "pass list");
    diag_finish(&d);
    if (rc >= 0)
        pass_plan_finish(plan);
    return rc;
}

/* --list-passes: the table and the default list on standard output, in columns as wide as
 * their longest entry. */
static int list_passes(void)
{
    size_t n;
    const PassInfo *t = pass_table(&n);
    static const char *const head[4] = {"pass", "requires", "guarantees", "invalidates"};
    char cell[64][3][64];
    int w[4];
    for (int c = 0; c < 4; c++)
        w[c] = (int)strlen(head[c]);
    for (size_t i = 0; i < n && i < 64; i++) {
        pass_props_name(t[i].requires, cell[i][0], sizeof cell[i][0]);
        pass_props_name(t[i].guarantees, cell[i][1], sizeof cell[i][1]);
        pass_props_name(t[i].invalidates, cell[i][2], sizeof cell[i][2]);
        if ((int)strlen(t[i].name) > w[0])
            w[0] = (int)strlen(t[i].name);
        for (int c = 0; c < 3; c++)
            if ((int)strlen(cell[i][c]) > w[c + 1])
                w[c + 1] = (int)strlen(cell[i][c]);
    }
    printf("%-*s  %-*s  %-*s  %-*s  %s\n", w[0], head[0], w[1], head[1], w[2], head[2], w[3],
           head[3], "what it does");
    for (size_t i = 0; i < n && i < 64; i++)
        printf("%-*s  %-*s  %-*s  %-*s  %s\n", w[0], t[i].name, w[1], cell[i][0], w[2],
               cell[i][1], w[3], cell[i][2], t[i].summary);
    printf("default: %s\n", pass_default_list);
    return cli_stdout_done(TOOL);
}

/* --time-passes: one line a pass on standard error. */
static void print_times(const PassPlan *plan, const PassStat *s)
{
    double total = 0;
    fprintf(stderr, "%s: %-10s %10s  %-19s %-19s %s\n", TOOL, "pass", "ms", "blocks",
            "edges", "groups");
    for (size_t i = 0; i < plan->n; i++) {
        char b[32], e[32], g[32];
        snprintf(b, sizeof b, "%u -> %u", (unsigned)s[i].blocks[0], (unsigned)s[i].blocks[1]);
        snprintf(e, sizeof e, "%u -> %u", (unsigned)s[i].edges[0], (unsigned)s[i].edges[1]);
        snprintf(g, sizeof g, "%u -> %u", (unsigned)s[i].groups[0], (unsigned)s[i].groups[1]);
        fprintf(stderr, "%s: %-10s %10.3f  %-19s %-19s %s\n", TOOL, plan->passes[i]->name,
                s[i].seconds * 1e3, b, e, g);
        total += s[i].seconds;
    }
    fprintf(stderr, "%s: %-10s %10.3f\n", TOOL, "total", total * 1e3);
}

/* The chip of --chip, or the built-in one; its findings name the file (printed here). */
static Status load_chip(const Options *o, Chip **chip)
{
    Diag cd;
    diag_init(&cd, o->chip ? cli_name(o->chip, false) : NULL);
    Status st = o->chip ? chip_load(o->chip, chip, &cd) : chip_load_default(chip, &cd);
    diag_print(&cd, stderr, TOOL);
    if (st != ST_OK && cd.n == 0)
        fprintf(stderr, "%s: %s: cannot load the chip description\n", TOOL,
                o->chip ? cli_name(o->chip, false) : "the built-in default");
    diag_finish(&cd);
    return st;
}

/* Loads and verifies the input, runs the plan for chip, verifies the result. d: the
 * input's and the passes' findings. dump: where --dump-after writes (NULL: none). *u: the
 * result's use index (uses.h), built once for the verifier and the saver (empty when not
 * built). */
static Status optimize(const Options *o, const PassPlan *plan, const Chip *chip, FILE *dump,
                       PassStat *stats, Graph **out, GraphUses *u, Diag *d)
{
    /* narrow: int8 weights in a byte each; every reader here takes them so (pbio.h) */
    LoadOptions lo = {.threads = 1, .narrow = true};
    Status st = graph_load_pb_opts(o->in, &lo, out, d);
    if (st == ST_OK)
        st = verify_graph(*out, d);
    if (st != ST_OK)
        return st;
    PassOptions po = {.chip = chip, .split_spec = o->split, .no_fit = o->no_fit};
    CliProgress progress;
    cli_progress_start(&progress, TOOL, o->quiet);
    PassRunOptions ro = {.verify_each = o->verify_each, .dump = dump,
                         .progress = &progress.hook, .stats = stats};
    st = pass_plan_run(plan, *out, &po, &ro, d);
    cli_progress_end(&progress);
    if (st == ST_OK && !graph_uses(*out, u))
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    if (st == ST_OK && !o->verify_each) {
        Diag vd;
        diag_init(&vd, NULL);
        VerifyOptions vo = {.uses = u};
        Status vs = verify_graph_opts(*out, &vo, &vd);
        if (vs != ST_OK)
            st = diag_add(d, ST_RUNTIME, "pass.verify", NULL, "the passes' result breaks %zu "
                          "verifier rule(s), the first: %s: %s [%s] (--verify-each tells "
                          "which pass)", vd.n + vd.dropped, vd.n ? vd.entries[0].where : "",
                          vd.n ? vd.entries[0].what : "out of memory",
                          vd.n ? vd.entries[0].rule : "oom");
        diag_finish(&vd);
    }
    return st;
}

int main(int argc, char **argv)
{
    /* the passes build and free a use index a round (tens of MB on the 10x model), the
     * saver its payloads a part: the same pages again, not fresh ones (docs/passes.md) */
    cli_keep_freed_memory();
    Options o;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0)
        return rc;
    if (o.list)
        return list_passes();
    PassPlan plan;
    if ((rc = make_plan(&o, &plan)) >= 0)
        return rc;
    Diag d, od;
    diag_init(&d, cli_name(o.in, false));
    diag_init(&od, cli_name(o.out ? o.out : "-", true));
    PassStat *stats = calloc(plan.n, sizeof *stats);
    char *dbuf = NULL;
    size_t dlen = 0;
    FILE *dump = o.dump_to ? open_memstream(&dbuf, &dlen) : o.dump_after ? stderr : NULL;
    Graph *g = NULL;
    Chip *chip = NULL;
    GraphUses uses = {0};
    Status st;
    if (!stats || (o.dump_to && !dump))
        st = diag_add(&d, ST_RUNTIME, "oom", NULL, "out of memory: %s", strerror(errno));
    else if ((st = load_chip(&o, &chip)) == ST_OK)
        st = optimize(&o, &plan, chip, dump, stats, &g, &uses, &d);
    if (o.dump_to && dump && fclose(dump) != 0 && st == ST_OK)
        st = diag_add(&d, ST_RUNTIME, "oom", NULL, "cannot buffer the dumps");
    if (st == ST_OK)
        st = graph_save_pb_uses(g, o.out ? o.out : "-", uses.blocks ? &uses : NULL, &od);
    graph_uses_finish(&uses);
    if (st == ST_OK && o.dump_to) {
        Diag fd;
        diag_init(&fd, o.dump_to);
        st = tir_write_file_atomic(o.dump_to, dbuf ? dbuf : "", dlen, &fd);
        diag_print(&fd, stderr, TOOL);
        diag_finish(&fd);
    }
    if (st == ST_OK && o.time_passes)
        print_times(&plan, stats);
    graph_destroy(g);
    chip_destroy(chip);
    diag_print(&d, stderr, TOOL);
    diag_print(&od, stderr, TOOL);
    diag_finish(&d);
    diag_finish(&od);
    free(dbuf);
    free(stats);
    pass_plan_finish(&plan);
    return (int)st;
}
