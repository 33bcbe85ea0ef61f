/* taskir-dump: prints a TaskGraph .pb as text, JSON or Graphviz DOT, its summary, one block,
 * or checks it against the verifier's rules; the same for a Mapping .map.pb (the graph plus
 * every block's space-time coordinates), and the summary of a chip description (.xml,
 * docs/chip.md). Argument parsing and exit codes only: the printers are print.h, mapping.h
 * and print_chip.h, the loaders pbio.h, mapping.h and chip.h, the verifiers verify.h and
 * mapping.h.
 *
 * A Mapping is told from a TaskGraph by --input-format, else by a path ending in ".map.pb",
 * else by the first field of the bytes (mapping_looks_like; docs/formats.md). A chip
 * description by --input-format chip, else by its text (chip_looks_like: its first element
 * is <chip>). A directory (or --input-format asm) is a program set (backend/progset.h),
 * printed per core and phase with each core's memory map (backend/print_prog.h).
 *
 * The output is built in memory (open_memstream) and written in one atomic step, so -o never
 * leaves a partial file. Without --verify the dump does not require a valid graph. */
#include "backend/print_prog.h"
#include "cli.h"
#include "taskir/chip.h"
#include "taskir/fileio.h"
#include "taskir/filemap.h"
#include "taskir/mapping.h"
#include "taskir/pbio.h"
#include "taskir/print.h"
#include "taskir/print_chip.h"
#include "taskir/verify.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef TASKIR_VERSION
#define TASKIR_VERSION "unknown"
#endif

#define TOOL "taskir-dump"

static const char usage_text[] =
    "usage: taskir-dump GRAPH.pb|MAP.pb|CHIP.xml [--format text|json|dot] [--full-data]\n"
    "                   [--summary] [--block ID] [--verify [--strict]]\n"
    "                   [--input-format graph|mapping|chip|asm] [--chip CHIP.xml] [-o FILE]\n"
    "                   [--threads N]\n"
    "       taskir-dump PROGDIR [--format text|json] [--verify] [-o FILE]\n"
    "       taskir-dump --help | --version\n"
    "\n"
    "Prints a TaskGraph (.pb) or a Mapping (.map.pb: the graph placed on cores); \"-\" reads\n"
    "standard input. A Mapping prints as its graph followed by every dict's space-time\n"
    "coordinates (text), or as {\"graph\": ..., \"mapping\": ...} (json); dot shows the graph.\n"
    "A chip description (docs/chip.md) prints as its summary: array, cores, memory banks,\n"
    "budgets, limits, precisions and the primitives with their clock formulas (text or json).\n"
    "A directory PROGDIR is a program set (taskir-emit's output, docs/backend.md): it prints\n"
    "per core and phase each primitive slot with its P-code and the parameters the program\n"
    "sets (addresses in hex), and each core's memory map: the areas by bank with the ids of\n"
    "the blocks in them (text or json); --verify checks that it loads.\n"
    "\n"
    "options:\n"
    "  --format FMT  output format: text (default), json or dot; a data tensor shows its\n"
    "                first 8 values, their count and a checksum (json: \"abridged\": true)\n"
    "  --full-data   with --format json: every value of every data tensor\n"
    "  --summary     print the summary instead of the graph: blocks per type, weight bytes,\n"
    "                MACs per compute block and in total, precisions (text or json only);\n"
    "                for a Mapping also the cores, steps and phases it uses, mapped and\n"
    "                unmapped blocks, and prediction_clock\n"
    "  --block ID    print only block ID and the edges that touch it (and their dicts)\n"
    "  --verify      check the graph (and a Mapping's map.* rules) and list each violation;\n"
    "                alone it prints \"GRAPH.pb: ok (N blocks, M edges)\" (a Mapping adds its\n"
    "                dicts), with --format, --summary or --block the dump follows (and the\n"
    "                ok line goes to standard error); with --format json alone the findings\n"
    "                (rule, block, edge, where, message) print as JSON, also when none\n"
    "  --chip FILE   with --verify on a Mapping, check the rules that need the chip (cores,\n"
    "                phases and groups it has, a core's memory in every phase, the receive\n"
    "                limits, whether it computes what the graph does: docs/rules.md)\n"
    "                against this chip description; default: the built-in TianjicX\n"
    "                description (examples/chips/tianjicx.xml)\n"
    "  --strict      with --verify (implies it), a graph's pedantic findings too: the\n"
    "                conventions of the existing tools that --verify accepts (an absent\n"
    "                socket_id, unused attributes at neutral values, a data block's empty\n"
    "                input cluster, 1-D forms), printed as warnings; they do not change the\n"
    "                exit status, and the ok line counts them\n"
    "  --input-format KIND  read the input as a graph (TaskGraph), a mapping (Mapping), a\n"
    "                chip (description) or asm (a program set directory, the default for a\n"
    "                directory); by default a text whose first element is <chip>\n"
    "                is a chip description, a path ending in .map.pb a Mapping, else the\n"
    "                first field of the file decides (docs/formats.md)\n"
    "  --threads N   use N threads to read a TaskGraph .pb, decode its tensor values and\n"
    "                check them (default 1; a Mapping, a chip description or a program set\n"
    "                is read on one thread); the output is the same for every N\n"
    "  -o FILE       write the output to FILE (atomically) instead of standard output;\n"
    "                a link is followed, a device or FIFO written in place; not a directory\n"
    "                nor the input (docs/cli.md)\n"
    "  --help        print this help and exit\n"
    "  --version     print the version and exit\n"
    "\n"
    "exit status:\n"
    "  0  success\n"
    "  1  usage error: unknown option, missing file argument, bad --format or\n"
    "     --input-format, --summary with dot, bad --block ID or --threads N, an option\n"
    "     given twice, -o a directory or the input; dot, --block or --full-data for a chip\n"
    "     description\n"
    "  2  logic error: the file is not a valid TaskGraph (or Mapping, or chip description),\n"
    "     --block names no block, or --verify found violations\n"
    "  3  runtime error: the input cannot be read or the output written, out of memory\n";

typedef enum { IN_AUTO, IN_GRAPH, IN_MAPPING, IN_CHIP, IN_ASM } InputKind;

typedef struct Options {
    const char *file;
    InputKind input;
    const char *out;     /* NULL: standard output */
    PrintFormat format;
    bool format_given;
    bool summary;
    bool has_block;
    int32_t block;
    bool verify;
    bool full_data;      /* --full-data: PF_JSON_FULL */
    bool strict;         /* --strict: verify_graph_opts(.strict) */
    const char *chip;    /* --chip: the chip a Mapping is verified on (NULL: built-in) */
    uint32_t threads;    /* --threads: reading, decoding and checking a graph's values */
} Options;

/* Parses argv into o. Returns -1 to go on, else the exit code (--help, --version, errors). */
static int parse_args(int argc, char **argv, Options *o)
{
    int rc = -1;
    bool only_files = false;
    bool seen_format = false, seen_input = false, seen_block = false, seen_out = false;
    bool seen_chip = false, seen_threads = false;
    memset(o, 0, sizeof *o);
    o->threads = 1;
    for (int i = 1; i < argc && rc < 0; i++) {
        const char *a = argv[i];
        bool m;
        const char *v;
        if (only_files || a[0] != '-' || strcmp(a, "-") == 0) {
            if (o->file)
                rc = cli_usage(TOOL, "usage.args", "more than one input file ('%s')", a);
            o->file = a;
        } else if (strcmp(a, "--") == 0) {
            only_files = true;
        } else if (cli_is_help_version(a)) {
            rc = cli_help_version(TOOL, a, usage_text, TASKIR_VERSION);
        } else if (strcmp(a, "--summary") == 0) {
            o->summary = true;
        } else if (strcmp(a, "--verify") == 0) {
            o->verify = true;
        } else if (strcmp(a, "--full-data") == 0) {
            o->full_data = true;
        } else if (strcmp(a, "--strict") == 0) {
            o->verify = o->strict = true;
        } else if ((v = cli_opt_value(argc, argv, &i, "--format", &m)), m) {
            o->format_given = true;
            if ((rc = cli_once(TOOL, "--format", &seen_format)) >= 0)
                break;
            if (!v)
                rc = cli_usage(TOOL, "usage.format", "%s needs a value: text, json or dot", a);
            else if (strcmp(v, "text") == 0)
                o->format = PF_TEXT;
            else if (strcmp(v, "json") == 0)
                o->format = PF_JSON;
            else if (strcmp(v, "dot") == 0)
                o->format = PF_DOT;
            else
                rc = cli_usage(TOOL, "usage.format",
                                 "unknown format '%s' (text, json or dot)", v);
        } else if ((v = cli_opt_value(argc, argv, &i, "--input-format", &m)), m) {
            if ((rc = cli_once(TOOL, "--input-format", &seen_input)) >= 0)
                break;
            if (v && strcmp(v, "graph") == 0)
                o->input = IN_GRAPH;
            else if (v && strcmp(v, "mapping") == 0)
                o->input = IN_MAPPING;
            else if (v && strcmp(v, "chip") == 0)
                o->input = IN_CHIP;
            else if (v && strcmp(v, "asm") == 0)
                o->input = IN_ASM;
            else
                rc = cli_usage(TOOL, "usage.format",
                                 "--input-format takes graph, mapping, chip or asm, not '%s'",
                                 v ? v : "");
        } else if ((v = cli_opt_value(argc, argv, &i, "--block", &m)), m) {
            char *end;
            errno = 0;
            long long id = v ? strtoll(v, &end, 10) : 0;
            if ((rc = cli_once(TOOL, "--block", &seen_block)) >= 0)
                break;
            if (!v || !*v || *end || errno || id < INT32_MIN || id > INT32_MAX)
                rc = cli_usage(TOOL, "usage.block", "--block needs a block id, not '%s'",
                                 v ? v : "");
            o->has_block = true;
            o->block = (int32_t)id;
        } else if ((v = cli_opt_value(argc, argv, &i, "--chip", &m)), m) {
            if ((rc = cli_once(TOOL, "--chip", &seen_chip)) >= 0)
                break;
            if (!v || !*v)
                rc = cli_usage(TOOL, "usage.args", "%s needs a chip description file", a);
            o->chip = v;
        } else if ((v = cli_opt_value(argc, argv, &i, "--threads", &m)), m) {
            if ((rc = cli_once(TOOL, "--threads", &seen_threads)) >= 0)
                break;
            if (!cli_count(v, CLI_MAX_THREADS, &o->threads))
                rc = cli_usage(TOOL, "usage.threads", "--threads needs a count 1..%ld, not '%s'",
                               CLI_MAX_THREADS, v ? v : "");
        } else if ((v = cli_opt_value(argc, argv, &i, "-o", &m)), m) {
            if ((rc = cli_once(TOOL, "-o", &seen_out)) >= 0)
                break;
            if (!v || !*v)
                rc = cli_usage(TOOL, "usage.output", "%s needs a file name", a);
            o->out = v;
        } else {
            rc = cli_usage(TOOL, "usage.option", "unknown option '%s'", a);
        }
    }
    if (rc < 0 && !o->file)
        rc = cli_usage(TOOL, "usage.args", "no input file (give GRAPH.pb, or - for stdin)");
    else if (rc < 0 && o->summary && o->format == PF_DOT)
        rc = cli_usage(TOOL, "usage.format", "--summary prints text or json, not dot");
    else if (rc < 0 && o->summary && o->has_block)
        rc = cli_usage(TOOL, "usage.args", "--summary and --block exclude each other");
    else if (rc < 0 && o->full_data && (o->format != PF_JSON || o->summary))
        rc = cli_usage(TOOL, "usage.args", "--full-data is for the JSON dump (--format json), "
                       "which then holds every data value; the %s has none abridged",
                       o->summary ? "summary" : "text and dot output");
    else if (rc < 0 && o->chip && !o->verify)
        rc = cli_usage(TOOL, "usage.args", "--chip is for --verify on a Mapping");
    else if (rc < 0 && o->full_data && o->verify && !o->has_block)
        rc = cli_usage(TOOL, "usage.args", "--full-data is for the JSON dump; --verify "
                       "--format json prints the findings instead");
    if (rc < 0 && o->out)
        rc = cli_check_output(TOOL, o->out, &o->file, 1);
    return rc;
}

/* Writes len bytes of buf to o's output (od: its findings). */
static Status emit(const Options *o, const char *buf, size_t len, Diag *od)
{
    return tir_write_file_atomic(o->out ? o->out : "-", buf, len, od);
}

/* --verify --format json: the findings of d as JSON (print_findings_json) to the output;
 * counts NULL when the file did not load. */
static Status report(const Options *o, const char *name, const Diag *d, const uint32_t *counts,
                     Diag *od)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *ms = open_memstream(&buf, &len);
    if (!ms)
        return diag_add(od, ST_RUNTIME, "oom", NULL, "cannot buffer the output: %s",
                        strerror(errno));
    Status st = print_findings_json(name, d, counts, ms, od);
    if (fclose(ms) != 0 && st == ST_OK)
        st = diag_add(od, ST_RUNTIME, "oom", NULL, "cannot buffer the output");
    if (st == ST_OK)
        st = emit(o, buf, len, od);
    free(buf);
    return st;
}

/* The output, built in memory and written in one step. */
typedef struct OutBuf {
    char *buf;
    size_t len;
    FILE *ms;
} OutBuf;

static Status outbuf_open(OutBuf *b, Diag *d)
{
    b->buf = NULL;
    b->len = 0;
    b->ms = open_memstream(&b->buf, &b->len);
    return b->ms ? ST_OK : diag_add(d, ST_RUNTIME, "oom", NULL, "cannot buffer the output: %s",
                                    strerror(errno));
}

/* Closes b and, when st is ST_OK, writes it to o's output. Returns the worst status. */
static Status outbuf_emit(const Options *o, OutBuf *b, Status st, Diag *d, Diag *od)
{
    if (fclose(b->ms) != 0 && st == ST_OK)
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "cannot buffer the output");
    if (st == ST_OK)
        st = emit(o, b->buf, b->len, od);
    free(b->buf);
    return st;
}

/* A chip description (the text in[0..len)): loaded (which checks every rule), then its
 * summary printed as o asks; --verify prints "NAME: ok (chip N: C cores, P primitives)". */
static Status run_chip(const Options *o, const char *name, const uint8_t *in, size_t len,
                       Diag *d, Diag *od, bool *reported)
{
    if (o->format == PF_DOT || o->has_block || o->full_data)
        return diag_add(d, ST_USAGE, "usage.format", NULL, "a chip description prints as text "
                        "or json (its summary), without %s",
                        o->format == PF_DOT ? "dot" : o->has_block ? "--block" : "--full-data");
    Chip *c = NULL;
    Status st = chip_load_mem((const char *)in, len, name, &c, d);
    bool json_report = o->verify && o->format == PF_JSON && !o->summary;
    if (json_report && st != ST_RUNTIME) {
        Status rst = report(o, name, d, NULL, od);
        *reported = rst == ST_OK;
        chip_destroy(c);
        return rst == ST_OK ? st : rst;
    }
    OutBuf ob;
    if (st == ST_OK)
        st = outbuf_open(&ob, d);
    if (st != ST_OK) {
        chip_destroy(c);
        return st;
    }
    FILE *ms = ob.ms;
    bool dump = !o->verify || o->format_given || o->summary;
    if (o->verify)
        fprintf(dump ? stderr : ms, "%s: ok (chip %s: %u cores, %u primitives)\n", name, c->name,
                (unsigned)chip_total_cores(c), (unsigned)c->n_prims);
    if (dump)
        st = print_chip(c, o->format, ms, d);
    chip_destroy(c);
    return outbuf_emit(o, &ob, st, d, od);
}

/* A program set directory: loaded (which checks it), then printed; --verify prints
 * "NAME: ok (program set: N cores)". */
static Status run_asm(const Options *o, const char *name, Diag *d, Diag *od)
{
    if (o->format == PF_DOT || o->has_block || o->full_data || o->summary || o->strict)
        return diag_add(d, ST_USAGE, "usage.format", NULL, "a program set prints as text or "
                        "json, without dot, --block, --full-data, --summary or --strict");
    ProgSet s;
    OutBuf ob;
    Status st = progset_load(o->file, &s, d);
    if (st != ST_OK || (st = outbuf_open(&ob, d)) != ST_OK) {
        progset_free(&s);
        return st;
    }
    FILE *ms = ob.ms;
    bool dump = !o->verify || o->format_given;
    if (o->verify) {
        size_t cores = 0;
        const Taskir__Asm__BehaviorConfig *bc = s.config->behavior_config;
        for (size_t i = 0; bc && i < bc->n_step_config; i++)
            for (size_t j = 0; j < bc->step_config[i]->n_phase_group_config; j++)
                cores += bc->step_config[i]->phase_group_config[j]->n_core_config;
        fprintf(dump ? stderr : ms, "%s: ok (program set: %zu cores, %zu sockets)\n", name,
                cores, s.n_sockets);
    }
    if (dump)
        st = print_progset(ms, &s, o->format == PF_JSON, d);
    progset_free(&s);
    return outbuf_emit(o, &ob, st, d, od);
}

/* Loads, verifies and prints as o asks. Findings about the input go to d, about writing the
 * output to od; *reported says they went to the output as JSON instead (--verify --format
 * json), not to be printed again. */
static Status run(const Options *o, const char *name, Diag *d, Diag *od, Diag *cd,
                  bool *reported)
{
    TirFileBytes file;
    *reported = false;
    struct stat sb;
    if (o->input == IN_ASM || (o->input == IN_AUTO && strcmp(o->file, "-") != 0 &&
                               stat(o->file, &sb) == 0 && S_ISDIR(sb.st_mode)))
        return run_asm(o, name, d, od);
    Status st = tir_file_bytes_threads(o->file, TIR_MAX_FILE_BYTES, o->threads, &file, d);
    if (st != ST_OK)
        return st;
    const uint8_t *in = file.p;
    size_t in_len = file.len;
    if (o->input == IN_CHIP || (o->input == IN_AUTO && chip_looks_like(in, in_len))) {
        st = run_chip(o, name, in, in_len, d, od, reported);
        tir_file_release(&file);
        return st;
    }
    bool is_map = o->input == IN_MAPPING ||
                  (o->input == IN_AUTO &&
                   (mapping_path_looks_like(o->file) || mapping_looks_like(in, in_len)));
    Graph *g = NULL;
    Mapping *m = NULL;
    if (is_map) {
        st = mapping_load_pb_mem(in, in_len, &m, d);
        g = m ? m->graph : NULL;
    } else {
        LoadOptions lo = {.threads = o->threads, .file = &file};
        st = graph_load_pb_mem_opts(in, in_len, &lo, &g, d);
    }
    tir_file_release_threads(&file, o->threads);
    /* --verify --format json alone reports the findings as JSON; --format text dumps */
    bool json_report = o->verify && (o->format == PF_JSON || o->format == PF_JSON_FULL) &&
                       o->format_given && !o->summary && !o->has_block;
    if (st == ST_LOGIC && json_report) {
        Status rst = report(o, name, d, NULL, od);
        *reported = rst == ST_OK;
        return rst == ST_OK ? st : rst;
    }
    if (st != ST_OK)
        return st;
    bool dump = !json_report && (!o->verify || o->format_given || o->summary || o->has_block);
    VerifyOptions vo = {.strict = o->strict, .threads = o->threads};
    size_t before = d->n;
    if (o->verify && m) {
        Chip *chip = NULL;
        st = o->chip ? chip_load(o->chip, &chip, cd) : chip_load_default(&chip, cd);
        if (st == ST_OK)
            st = verify_mapping_on(m, chip, d);
        chip_destroy(chip);
    } else if (o->verify) {
        st = verify_graph_opts(g, &vo, d);
    }
    if (json_report && st != ST_RUNTIME) {
        uint32_t counts[2] = {g->n_blocks, g->n_edges};
        Status rst = report(o, name, d, counts, od);
        *reported = rst == ST_OK;
        st = rst == ST_OK ? st : rst;
    }
    if (json_report || st != ST_OK) {
        if (m)
            mapping_destroy(m);
        else
            graph_destroy(g);
        return st;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *ms = open_memstream(&buf, &len);
    if (!ms) {
        if (m)
            mapping_destroy(m);
        else
            graph_destroy(g);
        return diag_add(d, ST_RUNTIME, "oom", NULL, "cannot buffer the output: %s",
                        strerror(errno));
    }
    if (o->verify && m)
        fprintf(dump ? stderr : ms, "%s: ok (%u blocks, %u edges, %u node dicts, %u edge dicts)\n",
                name, (unsigned)g->n_blocks, (unsigned)g->n_edges, (unsigned)m->n_nodes,
                (unsigned)m->n_edges);
    else if (o->verify && o->strict)
        fprintf(dump ? stderr : ms, "%s: ok (%u blocks, %u edges, %zu warnings)\n", name,
                (unsigned)g->n_blocks, (unsigned)g->n_edges, d->n - before + d->dropped);
    else if (o->verify)
        fprintf(dump ? stderr : ms, "%s: ok (%u blocks, %u edges)\n", name,
                (unsigned)g->n_blocks, (unsigned)g->n_edges);
    PrintFormat f = o->full_data ? PF_JSON_FULL : o->format;
    if (!dump)
        st = ST_OK;
    else if (m && o->summary)
        st = print_map_summary(m, f, ms, d);
    else if (m)
        st = print_mapping(m, f, o->has_block, o->block, ms, d);
    else if (o->summary)
        st = print_summary(g, f, ms, d);
    else if (o->has_block)
        st = print_block(g, o->block, f, ms, d);
    else
        st = print_graph(g, f, ms, d);
    if (m)
        mapping_destroy(m);
    else
        graph_destroy(g);
    if (fclose(ms) != 0 && st == ST_OK)
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "cannot buffer the output");
    if (st == ST_OK)
        st = emit(o, buf, len, od);
    free(buf);
    return st;
}

int main(int argc, char **argv)
{
    Options o;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0)
        return rc;
    const char *name = cli_name(o.file, false);
    Diag d, od, cd;
    diag_init(&d, name);
    diag_init(&od, cli_name(o.out ? o.out : "-", true));
    diag_init(&cd, o.chip ? cli_name(o.chip, false) : "(built-in chip)");
    bool reported;
    Status st = run(&o, name, &d, &od, &cd, &reported);
    if (!reported)
        diag_print(&d, stderr, TOOL);
    diag_print(&cd, stderr, TOOL);
    diag_print(&od, stderr, TOOL);
    if (st != ST_OK && !reported && d.n == 0 && od.n == 0 && cd.n == 0)
        fprintf(stderr, "%s: %s: failed\n", TOOL, name);
    diag_finish(&d);
    diag_finish(&od);
    diag_finish(&cd);
    return (int)st;
}
