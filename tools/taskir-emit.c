/* taskir-emit: the code generator's tool: a Mapping (.map.pb) becomes a program set, the
 * per-core programs in the Assembly IR with their data (docs/backend.md, "The code
 * generator"). Argument parsing and exit codes only: the code generator is backend/emit.h,
 * the writer backend/progset.h (all files or none).
 *
 *   taskir-emit MAP.pb -o DIR [--format pb|text] [--chip CHIP.xml] [--quiet]
 */
#include "backend/emit.h"
#include "cli.h"
#include "progress.h"
#include "taskir/fileio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef TASKIR_VERSION
#define TASKIR_VERSION "unknown"
#endif

#define TOOL "taskir-emit"

static const char usage_text[] =
    "usage: taskir-emit MAP.pb -o DIR [--format pb|text] [--chip CHIP.xml] [--quiet]\n"
    "       taskir-emit --help | --version\n"
    "\n"
    "Writes the programs of a Mapping (what taskir-map writes): per core and phase the\n"
    "primitives of its Axon, Soma and Router with their parameters and memory addresses\n"
    "(the Assembly IR), each core's memory plan, the weights, biases and tables in the\n"
    "primitives' layouts, and the model's inputs and outputs (docs/backend.md, \"The code\n"
    "generator\"). DIR gets program.pb (or program.txt), data/ID.bin and sockets.json, all\n"
    "of them or none; an existing DIR must hold nothing but such a set, which is replaced.\n"
    "\n"
    "options:\n"
    "  -o DIR          the program set's directory (required)\n"
    "  --format pb     write program.pb, the binary Assembly IR (default)\n"
    "  --format text   write program.txt, the same in protobuf text form\n"
    "  --chip FILE     the chip description the Mapping was made for (XML, docs/chip.md);\n"
    "                  default: the built-in TianjicX description\n"
    "  --quiet         no progress line on standard error (shown after 2 s on a terminal:\n"
    "                  \"stage K of N\", docs/cli.md)\n"
    "  --help          print this help and exit\n"
    "  --version       print the version and exit\n"
    "\n"
    "exit status:\n"
    "  0  success\n"
    "  1  usage error: unknown option, missing input or -o, bad value, an option given\n"
    "     twice, an output that is not a directory or holds other files (docs/cli.md)\n"
    "  2  logic error: the Mapping or the chip description is invalid, or its programs\n"
    "     cannot be written (a core's plan does not fit, ...: docs/rules.md emit.*)\n"
    "  3  runtime error: a file cannot be read or written, out of memory\n";

#define usage_error(...) cli_usage(TOOL, __VA_ARGS__)

typedef struct Options {
    const char *in, *out, *chip;
    bool text, quiet;
} Options;

static int parse_args(int argc, char **argv, Options *o)
{
    memset(o, 0, sizeof *o);
    bool only_files = false, s_out = false, s_chip = false, s_fmt = false;
    int rc;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        bool m;
        if (only_files || a[0] != '-' || strcmp(a, "-") == 0) {
            if (o->in)
                return usage_error("usage.args", "more than one input mapping ('%s')", a);
            o->in = a;
        } else if (strcmp(a, "--") == 0) {
            only_files = true;
        } else if (cli_is_help_version(a)) {
            return cli_help_version(TOOL, a, usage_text, TASKIR_VERSION);
        } else if ((v = cli_opt_value(argc, argv, &i, "-o", &m)), m) {
            if ((rc = cli_once(TOOL, "-o", &s_out)) >= 0)
                return rc;
            if (!v || !*v)
                return usage_error("usage.output", "-o needs a directory name");
            o->out = v;
        } else if ((v = cli_opt_value(argc, argv, &i, "--chip", &m)), m) {
            if ((rc = cli_once(TOOL, "--chip", &s_chip)) >= 0)
                return rc;
            if (!v || !*v)
                return usage_error("usage.args", "--chip needs a file name");
            o->chip = v;
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            o->quiet = true;
        } else if ((v = cli_opt_value(argc, argv, &i, "--format", &m)), m) {
            if ((rc = cli_once(TOOL, "--format", &s_fmt)) >= 0)
                return rc;
            if (v && strcmp(v, "pb") == 0)
                o->text = false;
            else if (v && strcmp(v, "text") == 0)
                o->text = true;
            else
                return usage_error("usage.format", "--format takes pb or text, not '%s'",
                                   v ? v : "");
        } else {
            return usage_error("usage.option", "unknown option '%s'", a);
        }
    }
    if (!o->in)
        return usage_error("usage.args", "no input mapping (give MAP.pb)");
    if (!o->out)
        return usage_error("usage.output", "no output directory (give -o DIR)");
    const char *inputs[] = {o->in, o->chip};
    if ((rc = cli_one_stdin(TOOL, inputs, 2)) >= 0)
        return rc;
    if (cli_is_std(o->out))
        return usage_error("usage.output", "-o names a directory; standard output cannot hold "
                           "a program set");
    struct stat st;
    if (stat(o->out, &st) == 0 && !S_ISDIR(st.st_mode))
        return usage_error("usage.output", "'%s' exists and is not a directory: not replaced",
                           o->out);
    if (!progset_dir_replaceable(o->out))
        return usage_error("usage.output", "'%s' holds files that are not a program set's "
                           "(program.pb, program.txt, sockets.json, data/*.bin): not replaced",
                           o->out);
    return -1;
}

int main(int argc, char **argv)
{
    Options o;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0)
        return rc;
    Diag d, cd, od; /* the mapping's findings, the chip description's, the output's */
    diag_init(&d, cli_name(o.in, false));
    diag_init(&cd, o.chip ? cli_name(o.chip, false) : "(built-in chip)");
    diag_init(&od, o.out);
    Mapping *m = NULL;
    Chip *chip = NULL;
    ProgSet set = {0};
    Status st = mapping_load_pb(o.in, &m, &d);
    if (st == ST_OK)
        st = verify_mapping(m, &d);
    if (st == ST_OK)
        st = o.chip ? chip_load(o.chip, &chip, &cd) : chip_load_default(&chip, &cd);
    if (st == ST_OK) {
        CliProgress prog;
        cli_progress_start(&prog, TOOL, o.quiet);
        st = emit_program_progress(m, chip, &set, &d, &prog.hook);
        cli_progress_end(&prog);
    }
    if (st == ST_OK)
        st = progset_save(o.out, &set, o.text, &od);
    diag_print(&cd, stderr, TOOL);
    diag_print(&d, stderr, TOOL);
    diag_print(&od, stderr, TOOL);
    if (st != ST_OK && d.n == 0 && cd.n == 0 && od.n == 0)
        fprintf(stderr, "%s: %s: failed\n", TOOL, cli_name(o.in, false));
    progset_free(&set);
    mapping_destroy(m);
    chip_destroy(chip);
    diag_finish(&d);
    diag_finish(&cd);
    diag_finish(&od);
    return (int)st;
}
