/* cli.c: see cli.h. */
#include "cli.h"

#include "taskir/diag.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

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
