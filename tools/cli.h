/* cli.h: command-line helpers shared by the taskir tools (argument parsing, usage errors,
 * output checks; the library never sees them).
 *
 * One definition of "-" for every tool (docs/cli.md): as an input file (a model, graph,
 * --params or --input file) it is standard input, named "<stdin>" in messages, and at most
 * one argument may use it; as an output (-o) it is standard output, named "<stdout>", which
 * is also where the output goes without -o. */
#ifndef TASKIR_TOOLS_CLI_H
#define TASKIR_TOOLS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The value of argv[*i] given as "NAME VALUE" (advancing *i) or "NAME=VALUE"; *matched says
 * whether argv[*i] is the option NAME at all. NULL when it is not, or has no value. */
const char *cli_opt_value(int argc, char **argv, int *i, const char *name, bool *matched);
/* Flushes what --help or --version printed: 0, or 3 (with a message naming tool) when
 * stdout cannot be written. */
int cli_stdout_done(const char *tool);
/* Is a "--help", "-h" or "--version"? */
bool cli_is_help_version(const char *a);
/* Answers a (cli_is_help_version): the usage text, or "tool version", on stdout; returns
 * cli_stdout_done's status. */
int cli_help_version(const char *tool, const char *a, const char *usage, const char *version);

/* Prints "tool: MESSAGE [rule]" and "try 'tool --help'" on stderr; returns 1 (the exit code
 * of a usage error). */
int cli_usage(const char *tool, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Whether path is "-" (standard input or output). */
bool cli_is_std(const char *path);
/* path as messages name it: "<stdin>" (input) or "<stdout>" (output) for "-", else path. */
const char *cli_name(const char *path, bool output);
/* A single-value option given once only: *seen says whether it was given before. Returns -1
 * the first time (and sets *seen), else a usage error [usage.repeated] naming opt. */
int cli_once(const char *tool, const char *opt, bool *seen);
/* A count 1..max in v ("N", decimal); false when v is NULL, empty, not a number or out of
 * range. */
bool cli_count(const char *v, long max, uint32_t *out);
/* The most --threads a tool takes. */
#define CLI_MAX_THREADS 64L
/* Standard input read by at most one argument: inputs[0..n) (NULL entries skipped). Returns
 * -1, or a usage error [usage.stdin]. */
int cli_one_stdin(const char *tool, const char *const *inputs, size_t n);
/* The output file out (not NULL) checked before any work (tir_output_check): -1 when it can
 * be written, else a usage error [usage.output]: a directory, or one of inputs[0..n). */
int cli_check_output(const char *tool, const char *out, const char *const *inputs, size_t n);

/* Keeps the memory a tool frees for its later allocations (glibc: no block of up to 1 GiB
 * mapped on its own, the heap not trimmed) instead of handing each large block back to the
 * kernel and taking fresh pages for the next one, each page faulted and cleared again: a
 * tool that frees and allocates large buffers over and over (taskir-opt's use index a
 * round, its saver's payloads a part) saves those faults. Nothing where malloc has no such
 * settings. Call it first in main. */
void cli_keep_freed_memory(void);

#endif
