/* cli.c: see cli.h. */
#include "cli.h"

#include "taskir/diag.h"
#include "taskir/fileio.h"

#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cli_keep_freed_memory(void)
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

const char *cli_opt_value(int argc, char **argv, int *i, const char *name, bool *matched)
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

int cli_stdout_done(const char *tool)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return ST_OK;
    fprintf(stderr, "%s: cannot write to stdout: %s [io.write]\n", tool, strerror(errno));
    return ST_RUNTIME;
}

bool cli_is_help_version(const char *a)
{
    return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0 || strcmp(a, "--version") == 0;
}

int cli_help_version(const char *tool, const char *a, const char *usage, const char *version)
{
    if (strcmp(a, "--version") == 0)
        printf("%s %s\n", tool, version);
    else
        fputs(usage, stdout);
    return cli_stdout_done(tool);
}

int cli_usage(const char *tool, const char *rule, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: %s [%s]\ntry '%s --help'\n", tool, msg, rule, tool);
    return ST_USAGE;
}

bool cli_is_std(const char *path)
{
    return path && strcmp(path, "-") == 0;
}

const char *cli_name(const char *path, bool output)
{
    return cli_is_std(path) ? (output ? "<stdout>" : "<stdin>") : path;
}

int cli_once(const char *tool, const char *opt, bool *seen)
{
    if (*seen)
        return cli_usage(tool, "usage.repeated", "%s given more than once", opt);
    *seen = true;
    return -1;
}

bool cli_count(const char *v, long max, uint32_t *out)
{
    char *end;
    errno = 0;
    long n = v ? strtol(v, &end, 10) : 0;
    if (!v || !*v || *end || errno || n < 1 || n > max)
        return false;
    *out = (uint32_t)n;
    return true;
}

int cli_one_stdin(const char *tool, const char *const *inputs, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += cli_is_std(inputs[i]);
    if (k > 1)
        return cli_usage(tool, "usage.stdin", "standard input ('-') is given for %zu inputs; "
                         "it can be read once", k);
    return -1;
}

int cli_check_output(const char *tool, const char *out, const char *const *inputs, size_t n)
{
    Diag d;
    diag_init(&d, NULL);
    Status st = tir_output_check(out, inputs, n, &d);
    diag_print(&d, stderr, tool);
    diag_finish(&d);
    if (st == ST_OK)
        return -1;
    if (st == ST_USAGE)
        fprintf(stderr, "try '%s --help'\n", tool);
    return (int)st;
}
