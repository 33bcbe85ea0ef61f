/* progress.c: see progress.h. */
#include "progress.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static double since(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void report(void *ctx, const char *unit, uint64_t done, uint64_t total)
{
    CliProgress *p = ctx;
    if (!p->enabled)
        return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (since(&p->start, &now) < p->after || (p->shown && since(&p->last, &now) < 0.1))
        return;
    p->last = now;
    p->shown = true;
    /* \r back to the line's start, ESC [K erases what a longer line left */
    fprintf(stderr, "\r%s: %s %" PRIu64 " of %" PRIu64 "\033[K", p->tool, unit, done, total);
    fflush(stderr);
}

/* TASKIR_PROGRESS_AFTER as seconds >= 0, or the default when unset or not such a number. */
static double delay(void)
{
    const char *s = getenv("TASKIR_PROGRESS_AFTER");
    char *end;
    double v = s && *s ? strtod(s, &end) : -1;
    return s && *s && !*end && v >= 0 && v < 1e9 ? v : CLI_PROGRESS_AFTER;
}

void cli_progress_start(CliProgress *p, const char *tool, bool quiet)
{
    p->tool = tool;
    p->enabled = !quiet && isatty(STDERR_FILENO);
    p->after = delay();
    p->shown = false;
    clock_gettime(CLOCK_MONOTONIC, &p->start);
    p->last = p->start;
    p->hook = (TirProgress){report, p};
}

void cli_progress_end(CliProgress *p)
{
    if (p->shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    p->shown = false;
}
