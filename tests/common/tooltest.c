/* tooltest.c: running programs from tests, reading files, the scratch directory (tooltest.h).
 *
 * A program runs by fork + exec. The child sets itself up (working directory, redirections,
 * file size limit) and, when a step or the exec fails, writes the step and errno down a
 * close-on-exec pipe before _exit(127): the parent reads that pipe until it closes (the exec
 * succeeded) and so tells "could not start" (the test fails, naming the reason) from "ran and
 * exited 127". Captured streams go to files in the scratch directory, not pipes: nothing to
 * drain while waiting, and the tools see regular files as they would from a shell redirect.
 *
 * The scratch directory is this test program's one piece of global state (tests, not the
 * library: the no-global-state rule is about the library). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "taskir/fileio.h"
#include "tooltest.h"

extern char **environ;

static char scratch[1024]; /* "" until tt_tmpdir_make */

/* ---- running ---- */

/* The steps of the child's setup, for the parent's message. */
enum { STEP_CWD, STEP_STDIN, STEP_STDOUT, STEP_STDERR, STEP_FSIZE, STEP_AS, STEP_EXEC };
static const char *const step_name[] = {"cannot change to its directory",
                                        "cannot open its standard input",
                                        "cannot open its standard output",
                                        "cannot open its standard error",
                                        "cannot set RLIMIT_FSIZE", "cannot set RLIMIT_AS",
                                        "cannot execute it"};

/* In the child: reports the step and errno to the parent, exits. Async-signal-safe only. */
static void child_fail(int fd, int step)
{
    int msg[2] = {step, errno};
    ssize_t w = write(fd, msg, sizeof msg);
    (void)w;
    _exit(127);
}

/* In the child: opens path on fd (flags, mode 0644), or reports step. */
static void child_redirect(int report, int fd, const char *path, int flags, int step)
{
    int f = open(path, flags, 0644);
    if (f < 0)
        child_fail(report, step);
    if (f != fd) {
        if (dup2(f, fd) < 0)
            child_fail(report, step);
        close(f);
    }
}

void tt_run_argv(TtRun *r, const TtOpts *o, char *const argv[])
{
    static const TtOpts none;
    if (!o)
        o = &none;
    assert_non_null(argv[0]);
    if (o->search && o->env)
        fail_msg("tt_run_argv: search and env together are not supported");
    memset(r, 0, sizeof *r);
    char outp[1200], errp[1200];
    const char *out_to = o->out_file, *err_to = o->err_file;
    if (!out_to)
        out_to = tt_path(outp, sizeof outp, "run.out");
    if (!err_to)
        err_to = tt_path(errp, sizeof errp, "run.err");
    const char *in = o->in ? o->in : "/dev/null";
    char *const *env = o->env ? o->env : environ;

    int report[2];
    assert_int_equal(pipe(report), 0);
    assert_int_equal(fcntl(report[1], F_SETFD, FD_CLOEXEC), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(report[0]);
        if (o->cwd && chdir(o->cwd) != 0)
            child_fail(report[1], STEP_CWD);
        if (!o->inherit_stdin)
            child_redirect(report[1], 0, in, O_RDONLY, STEP_STDIN);
        child_redirect(report[1], 1, out_to, O_WRONLY | O_CREAT | O_TRUNC, STEP_STDOUT);
        child_redirect(report[1], 2, err_to, O_WRONLY | O_CREAT | O_TRUNC, STEP_STDERR);
        if (o->fsize > 0) {
            signal(SIGXFSZ, SIG_IGN); /* a write past the limit fails with EFBIG instead */
            struct rlimit rl = {(rlim_t)o->fsize, (rlim_t)o->fsize};
            if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
                child_fail(report[1], STEP_FSIZE);
        }
        if (o->as > 0) {
            struct rlimit rl = {(rlim_t)o->as, (rlim_t)o->as};
            if (setrlimit(RLIMIT_AS, &rl) != 0)
                child_fail(report[1], STEP_AS);
        }
        if (o->search)
            execvp(argv[0], argv);
        else
            execve(argv[0], argv, env);
        child_fail(report[1], STEP_EXEC);
    }
    close(report[1]);
    int msg[2];
    size_t got = 0;
    while (got < sizeof msg) {
        ssize_t n = read(report[0], (char *)msg + got, sizeof msg - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(report[0]);
    int ws;
    while (waitpid(pid, &ws, 0) < 0)
        assert_int_equal(errno, EINTR);
    if (got == sizeof msg) {
        int step = msg[0] >= 0 && msg[0] <= STEP_EXEC ? msg[0] : STEP_EXEC;
        fail_msg("cannot run %s: %s: %s", argv[0], step_name[step], strerror(msg[1]));
    }
    r->signal = WIFSIGNALED(ws) ? WTERMSIG(ws) : 0;
    r->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + r->signal;
    if (o->out_file) {
        r->out = calloc(1, 1);
    } else {
        r->out = tt_slurp(outp, &r->out_len);
        unlink(outp);
    }
    if (o->err_file) {
        r->err = calloc(1, 1);
    } else {
        r->err = tt_slurp(errp, &r->err_len);
        unlink(errp);
    }
    assert_non_null(r->out);
    assert_non_null(r->err);
}

void tt_run_va(TtRun *r, const TtOpts *o, const char *exe, va_list ap)
{
    char *argv[TT_MAX_ARGS];
    int n = 0;
    argv[n++] = (char *)exe;
    const char *a;
    while ((a = va_arg(ap, const char *)) != NULL) {
        if (n >= TT_MAX_ARGS - 1)
            fail_msg("tt_run: more than %d arguments for %s", TT_MAX_ARGS - 1, exe);
        argv[n++] = (char *)a;
    }
    argv[n] = NULL;
    tt_run_argv(r, o, argv);
}

void tt_run(TtRun *r, const TtOpts *o, const char *exe, ...)
{
    va_list ap;
    va_start(ap, exe);
    tt_run_va(r, o, exe, ap);
    va_end(ap);
}

void tt_run_free(TtRun *r)
{
    free(r->out);
    free(r->err);
    memset(r, 0, sizeof *r);
}

/* ---- files ---- */

/* Reads path into a NUL-terminated buffer; NULL on failure, the reason printed when loud. */
static char *slurp(const char *path, size_t *len, bool loud)
{
    uint8_t *buf = NULL;
    size_t n = 0;
    Diag d;
    diag_init(&d, path);
    Status st = tir_read_file(path, TIR_MAX_FILE_BYTES, &buf, &n, &d);
    if (st != ST_OK && loud)
        diag_print(&d, stderr, "tooltest");
    diag_finish(&d);
    if (st != ST_OK)
        return NULL;
    char *s = realloc(buf, n + 1);
    if (!s) {
        free(buf);
        fail_msg("out of memory reading %s", path);
    }
    s[n] = 0;
    if (len)
        *len = n;
    return s;
}

char *tt_slurp(const char *path, size_t *len)
{
    return slurp(path, len, false);
}

char *tt_slurp_or_fail(const char *path, size_t *len)
{
    char *s = slurp(path, len, true);
    if (!s)
        fail_msg("cannot read %s", path);
    return s;
}

void tt_write_file(const char *path, const void *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        fail_msg("cannot create %s: %s", path, strerror(errno));
    bool ok = fwrite(buf, 1, len, f) == len;
    if (fclose(f) != 0 || !ok)
        fail_msg("cannot write %s", path);
}

/* ---- the scratch directory ---- */

const char *tt_tmpdir_make(const char *prefix)
{
    const char *t = getenv("TMPDIR");
    char want[sizeof scratch];
    int n = snprintf(want, sizeof want, "%s/%sXXXXXX", t && *t ? t : "/tmp", prefix);
    if (n <= 0 || (size_t)n >= sizeof want) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    if (!mkdtemp(want))
        return NULL;
    if (!tt_absolute(want, scratch, sizeof scratch)) { /* a relative TMPDIR */
        rmdir(want);
        scratch[0] = 0;
        errno = ENAMETOOLONG;
        return NULL;
    }
    return scratch;
}

const char *tt_tmpdir(void)
{
    if (!scratch[0])
        fail_msg("tooltest: no scratch directory (tt_tmpdir_make was not called)");
    return scratch;
}

const char *tt_path(char *buf, size_t size, const char *name)
{
    return tt_join(buf, size, tt_tmpdir(), "%s", name);
}

const char *tt_join(char *buf, size_t size, const char *dir, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(buf, size, "%s/", dir);
    int m = n > 0 && (size_t)n < size ? vsnprintf(buf + n, size - (size_t)n, fmt, ap) : -1;
    va_end(ap);
    if (n <= 0 || m < 0 || (size_t)n + (size_t)m >= size)
        fail_msg("path %s/%s... does not fit in %zu bytes", dir, fmt, size);
    return buf;
}

size_t tt_rm_tree(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb) != 0)
        return 0;
    if (!S_ISDIR(sb.st_mode))
        return unlink(path) == 0;
    size_t removed = 0, plen = strlen(path);
    DIR *dp = opendir(path);
    if (dp) {
        struct dirent *e;
        while ((e = readdir(dp))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            size_t len = plen + strlen(e->d_name) + 2;
            char *sub = malloc(len);
            if (!sub)
                continue;
            snprintf(sub, len, "%s/%s", path, e->d_name);
            removed += tt_rm_tree(sub);
            free(sub);
        }
        closedir(dp);
    }
    return removed + (rmdir(path) == 0);
}

size_t tt_tmpdir_remove(void)
{
    if (!scratch[0])
        return 0;
    size_t n = tt_rm_tree(scratch);
    struct stat sb;
    if (n > 0 && lstat(scratch, &sb) != 0)
        n--; /* the directory itself */
    scratch[0] = 0;
    return n;
}

int tt_count_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

bool tt_absolute(const char *path, char *out, size_t size)
{
    if (path[0] == '/')
        return snprintf(out, size, "%s", path) < (int)size;
    char cwd[4096];
    return getcwd(cwd, sizeof cwd) && snprintf(out, size, "%s/%s", cwd, path) < (int)size;
}

void tt_golden(const char *dir, const char *name, const char *text, size_t len)
{
    const char *src = getenv("TASKIR_SRCDIR");
    if (!src)
        fail_msg("TASKIR_SRCDIR is not set (run through meson test)");
    char path[4096];
    tt_join(path, sizeof path, src, "%s/%s", dir, name);
    const char *upd = getenv("TASKIR_UPDATE_GOLDEN");
    if (upd && *upd && strcmp(upd, "0") != 0) {
        tt_write_file(path, text, len);
        return;
    }
    size_t glen;
    char *want = tt_slurp(path, &glen);
    if (!want)
        fail_msg("no golden file %s (TASKIR_UPDATE_GOLDEN=1 writes it)", path);
    if (glen != len || memcmp(want, text, len) != 0) {
        size_t i = 0;
        while (i < len && i < glen && want[i] == text[i])
            i++;
        size_t line = 1;
        for (size_t k = 0; k < i; k++)
            line += want[k] == '\n';
        fail_msg("%s differs from the output at line %zu (got %zu bytes, want %zu)", path,
                 line, len, glen);
    }
    free(want);
}
