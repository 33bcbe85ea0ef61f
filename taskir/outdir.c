/* outdir.c: see outdir.h. */
#include "taskir/outdir.h"

#include "taskir/fileio.h"
#include "taskir/npy.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool outdir_is_ours(const char *name)
{
    const char *p = strncmp(name, "output", 6) == 0 ? name + 6
                    : strncmp(name, "block", 5) == 0 ? name + 5
                                                     : NULL;
    if (!p)
        return false;
    if (*p == '-')
        p++;
    const char *digits = p;
    while (*p >= '0' && *p <= '9')
        p++;
    return p > digits && strcmp(p, ".npy") == 0;
}

void outdir_sim_tensor(OutFile *o, const SimTensor *t, bool is_output)
{
    if (is_output) {
        snprintf(o->file, sizeof o->file, "output%d.npy", (int)t->socket_id);
        snprintf(o->label, sizeof o->label, "output%d (block %d)", (int)t->socket_id,
                 (int)t->block_id);
    } else {
        snprintf(o->file, sizeof o->file, "block%d.npy", (int)t->block_id);
        snprintf(o->label, sizeof o->label, "block %d", (int)t->block_id);
    }
    o->data = t->data;
    o->dtype = t->dtype;
    o->ndim = t->ndim;
    memcpy(o->shape, t->shape, sizeof o->shape);
    o->count = t->count;
}

void outdir_print(FILE *f, const OutFile *t)
{
    fprintf(f, "%s: %s (", t->label, npy_dtype_name(t->dtype));
    for (uint32_t i = 0; i < t->ndim; i++)
        fprintf(f, "%s%" PRId64, i ? ", " : "", t->shape[i]);
    fprintf(f, "%s)\n", t->ndim == 1 ? "," : "");
    int64_t row = t->ndim ? t->shape[t->ndim - 1] : 1;
    for (int64_t i = 0; i < t->count; i++) {
        int32_t v = t->data[i];   /* as the file holds it */
        v = t->dtype == NPY_I8 ? (int8_t)v : t->dtype == NPY_U8 ? (uint8_t)v
            : t->dtype == NPY_I16 ? (int16_t)v : v;
        fprintf(f, "%d%s", (int)v, (row && (i + 1) % row == 0) ? "\n" : " ");
    }
}

/* Calls fn(path, ctx) for each of our files in dir until it returns non-zero (returned).
 * 0 also when dir cannot be opened (a missing dir has none). -1 on out of memory. */
static int each_ours(const char *dir, int (*fn)(const char *path, void *ctx), void *ctx)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return 0;
    int r = 0;
    struct dirent *e;
    while (!r && (e = readdir(dp)) != NULL) {
        if (!outdir_is_ours(e->d_name))
            continue;
        char *path = tir_path_join(dir, e->d_name);
        r = path ? fn(path, ctx) : -1;
        free(path);
    }
    closedir(dp);
    return r;
}

typedef struct CheckCtx {
    const char *const *inputs;
    size_t n;
    Diag *d;
} CheckCtx;

static int check_one(const char *path, void *ctx)
{
    CheckCtx *c = ctx;
    for (size_t i = 0; i < c->n; i++)
        if (c->inputs[i] && tir_same_file(path, c->inputs[i])) {
            diag_add(c->d, ST_USAGE, "usage.output", NULL, "the input '%s' is '%s', which "
                     "this run would overwrite or remove: give another -o DIR",
                     c->inputs[i], path);
            return 1;
        }
    return 0;
}

Status outdir_check(const char *dir, const char *const *inputs, size_t n, Diag *d)
{
    struct stat sb;
    if (stat(dir, &sb) == 0 && !S_ISDIR(sb.st_mode))
        return diag_add(d, ST_USAGE, "usage.output", NULL, "-o '%s' is not a directory", dir);
    CheckCtx c = {inputs, n, d};
    int r = each_ours(dir, check_one, &c);
    if (r < 0)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    return r ? ST_USAGE : ST_OK;
}

/* The directories make_dir created, outermost first, so that a failed run can remove them. */
typedef struct MadeDirs {
    char **paths;
    size_t n;
} MadeDirs;

/* Removes the directories of made, innermost first, when remove is true and each only if it
 * is empty (rmdir refuses any other), and forgets them. */
static void unmake_dirs(MadeDirs *made, bool remove)
{
    for (size_t i = made->n; i-- > 0;) {
        if (remove)
            rmdir(made->paths[i]);
        free(made->paths[i]);
    }
    free(made->paths);
    made->paths = NULL;
    made->n = 0;
}

/* Creates dir and its missing parents, recording in made each one this call created. */
static Status make_dir(const char *dir, MadeDirs *made, Diag *d)
{
    char *p = strdup(dir);
    if (!p)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    Status st = ST_OK;
    for (char *s = p + 1;; s++) {
        bool end = *s == 0;
        if (*s == '/' || end) {
            char c = *s;
            *s = 0;
            struct stat sb;
            if (stat(p, &sb) != 0) {
                if (mkdir(p, 0777) == 0) {
                    char **v = realloc(made->paths, (made->n + 1) * sizeof *v);
                    char *copy = strdup(p);
                    if (v)
                        made->paths = v;
                    if (!v || !copy) {
                        free(copy);
                        rmdir(p);
                        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
                        break;
                    }
                    made->paths[made->n++] = copy;
                } else if (errno != EEXIST) {
                    st = diag_add(d, ST_RUNTIME, "io.write", NULL, "cannot create the "
                                  "directory '%s': %s", p, strerror(errno));
                    break;
                }
            }
            *s = c;
        }
        if (end)
            break;
    }
    if (!st) {
        struct stat sb;
        if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
            st = diag_add(d, ST_RUNTIME, "io.write", NULL, "not a directory");
    }
    free(p);
    return st;
}

typedef struct StaleCtx {
    const OutFile *outs;
    uint32_t n;
    const char *dir;
    Diag *d;
} StaleCtx;

/* Removes path unless this run wrote it. */
static int remove_stale(const char *path, void *ctx)
{
    StaleCtx *c = ctx;
    const char *name = path + strlen(c->dir) + 1;
    for (uint32_t i = 0; i < c->n; i++)
        if (strcmp(c->outs[i].file, name) == 0)
            return 0;
    if (unlink(path) != 0 && errno != ENOENT) {
        diag_add(c->d, ST_RUNTIME, "io.write", NULL, "cannot remove the stale '%s' of an "
                 "earlier run: %s", path, strerror(errno));
        return 1;
    }
    return 0;
}

Status outdir_write(const char *dir, const OutFile *outs, uint32_t n, Diag *d)
{
    uint32_t done = 0;
    char **names = calloc((size_t)n + 1, sizeof *names);
    if (!names)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    free(d->file);
    d->file = strdup(dir);
    TirSigHold hold;
    tir_signals_hold(&hold);
    MadeDirs made = {NULL, 0};
    Status st = make_dir(dir, &made, d);
    for (uint32_t i = 0; i < n && !st; i++) {
        if (!(names[i] = tir_path_join(dir, outs[i].file))) {
            st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
            break;
        }
        free(d->file);
        d->file = strdup(names[i]);
        if ((st = npy_write(names[i], outs[i].dtype, outs[i].data, outs[i].shape, outs[i].ndim, d)))
            break;
        done = i + 1;
    }
    if (st)
        for (uint32_t i = 0; i < done; i++)
            unlink(names[i]);
    unmake_dirs(&made, st != ST_OK);
    if (!st) {
        free(d->file);
        d->file = strdup(dir);
        StaleCtx c = {outs, n, dir, d};
        int r = each_ours(dir, remove_stale, &c);
        if (r < 0)
            st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
        else if (r > 0)
            st = ST_RUNTIME;
    }
    tir_signals_release(&hold);
    for (uint32_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return st;
}
