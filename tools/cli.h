/* cli.h: command-line helpers shared by the taskir tools (argument parsing and stdout
 * checks only; the library never sees them). */
#ifndef TASKIR_TOOLS_CLI_H
#define TASKIR_TOOLS_CLI_H

#include <stdbool.h>

/* The value of argv[*i] given as "NAME VALUE" (advancing *i) or "NAME=VALUE"; *matched says
 * whether argv[*i] is the option NAME at all. NULL when it is not, or has no value. */
const char *cli_opt_value(int argc, char **argv, int *i, const char *name, bool *matched);
/* Flushes what --help or --version printed: 0, or 3 (with a message naming tool) when
 * stdout cannot be written. */
int cli_stdout_done(const char *tool);

#endif
