/* onnx_cli.c: see onnx_cli.h. */
#include "onnx_cli.h"

#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copies name (n bytes) into a new string. */
static char *dup_name(const char *name, size_t n)
{
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, name, n);
        s[n] = 0;
    }
    return s;
}

static bool parse_int(const char *s, const char *end, int64_t *out)
{
    if (s == end)
        return false;
    char buf[32];
    size_t n = (size_t)(end - s);
    if (n >= sizeof buf)
        return false;
    memcpy(buf, s, n);
    buf[n] = 0;
    char *e;
    errno = 0;
    long long v = strtoll(buf, &e, 10);
    if (*e || errno || v < -(long long)INT32_MAX || v > INT32_MAX)
        return false;
    *out = v;
    return true;
}

static bool name_taken(const OnnxCli *oc, const char *name)
{
    for (uint32_t k = 0; k < oc->nranges; k++)
        if (strcmp(oc->ranges[k].name, name) == 0)
            return true;
    for (uint32_t k = 0; k < oc->nbind; k++)
        if (strcmp(oc->bind[k].name, name) == 0)
            return true;
    return false;
}

const char *onnx_cli_option(OnnxCli *oc, int argc, char **argv, int *i, bool *matched,
                            char *err, size_t errsize)
{
    const char *opt = argv[*i];
    bool range = true;
    const char *v = cli_opt_value(argc, argv, i, "--input-range", matched);
    if (!*matched) {
        range = false;
        v = cli_opt_value(argc, argv, i, "--const", matched);
    }
    if (!*matched)
        return NULL;
    const char *rule = range ? "usage.input-range" : "usage.const";
    const char *form = range ? "NAME=LO..HI (integers within int32, LO <= HI)" : "NAME=X.npy";
    const char *eq = v ? strchr(v, '=') : NULL;
    if (!eq || eq == v || !eq[1]) {
        snprintf(err, errsize, "%s needs %s, not '%s'", opt, form, v ? v : "");
        return rule;
    }
    int64_t lo = 0, hi = 0;
    const char *dots = range ? strstr(eq + 1, "..") : NULL;
    if (range && (!dots || !parse_int(eq + 1, dots, &lo) ||
                  !parse_int(dots + 2, dots + 2 + strlen(dots + 2), &hi) || lo > hi)) {
        snprintf(err, errsize, "%s needs %s, not '%s'", opt, form, v);
        return rule;
    }
    char *name = dup_name(v, (size_t)(eq - v));
    if (!name) {
        snprintf(err, errsize, "out of memory");
        return "oom";
    }
    if (name_taken(oc, name)) {
        snprintf(err, errsize, "input '%s' is given a range or a constant twice", name);
        free(name);
        return rule;
    }
    if (range) {
        OnnxInputRange *r = realloc(oc->ranges, (oc->nranges + 1) * sizeof *r);
        if (!r) {
            free(name);
            snprintf(err, errsize, "out of memory");
            return "oom";
        }
        oc->ranges = r;
        oc->ranges[oc->nranges++] = (OnnxInputRange){name, lo, hi};
        return NULL;
    }
    OnnxBinding *b = realloc(oc->bind, (oc->nbind + 1) * sizeof *b);
    if (b)
        oc->bind = b;
    const char **p = b ? realloc(oc->paths, (oc->nbind + 1) * sizeof *p) : NULL;
    if (p)
        oc->paths = p;
    if (!b || !p) {
        free(name);
        snprintf(err, errsize, "out of memory");
        return "oom";
    }
    oc->bind[oc->nbind] = (OnnxBinding){name, NULL};
    oc->paths[oc->nbind++] = eq + 1;
    return NULL;
}

bool onnx_cli_given(const OnnxCli *oc)
{
    return oc->nranges || oc->nbind;
}

Status onnx_cli_load(OnnxCli *oc, const char *tool, OnnxOptions *opt)
{
    memset(opt, 0, sizeof *opt);
    Status st = ST_OK;
    if (oc->nbind && !(oc->values = calloc(oc->nbind, sizeof *oc->values))) {
        fprintf(stderr, "%s: out of memory [oom]\n", tool);
        return ST_RUNTIME;
    }
    for (uint32_t k = 0; k < oc->nbind && st == ST_OK; k++) {
        Diag d;
        diag_init(&d, oc->paths[k]);
        NpyArray a;
        memset(&a, 0, sizeof a);
        st = npy_read(oc->paths[k], &a, &d);
        if (st == ST_OK)
            st = fe_onnx_tensor_from_npy(&a, NULL, &oc->values[k], &d);
        npy_free(&a);
        diag_print(&d, stderr, tool);
        diag_finish(&d);
        oc->bind[k].value = &oc->values[k];
    }
    opt->ranges = oc->ranges;
    opt->nranges = oc->nranges;
    opt->bind = oc->bind;
    opt->nbind = oc->nbind;
    return st;
}

void onnx_cli_free(OnnxCli *oc)
{
    for (uint32_t k = 0; k < oc->nranges; k++)
        free((char *)oc->ranges[k].name);
    for (uint32_t k = 0; k < oc->nbind; k++) {
        free((char *)oc->bind[k].name);
        if (oc->values)
            fe_onnx_tensor_free(&oc->values[k]);
    }
    free(oc->ranges);
    free(oc->bind);
    free(oc->paths);
    free(oc->values);
    memset(oc, 0, sizeof *oc);
}
