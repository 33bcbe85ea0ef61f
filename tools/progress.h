/* progress.h: the progress line taskir-run shows on standard error while the simulator or
 * the interpreter runs (docs/cli.md): "taskir-run: block K of N" or "operator K of N",
 * redrawn in place at most ten times a second, from TASKIR_PROGRESS_AFTER seconds (default
 * 2) into the run on, and erased when the run ends. Nothing is shown with --quiet or when
 * standard error is not a terminal. */
#ifndef TASKIR_TOOLS_PROGRESS_H
#define TASKIR_TOOLS_PROGRESS_H

#include "taskir/progress.h"

#include <stdbool.h>
#include <time.h>

/* The default delay before the first line, in seconds. */
#define CLI_PROGRESS_AFTER 2.0

typedef struct CliProgress {
    const char *tool;
    bool enabled;               /* standard error is a terminal, and not --quiet */
    double after;               /* seconds before the first line */
    struct timespec start, last;
    bool shown;                 /* a line is on the terminal */
    TirProgress hook;           /* what to hand to the library (ctx: this) */
} CliProgress;

/* Starts the clock; p->hook reports to p. quiet: show nothing. */
void cli_progress_start(CliProgress *p, const char *tool, bool quiet);
/* Erases the line, when one is shown. */
void cli_progress_end(CliProgress *p);

#endif
