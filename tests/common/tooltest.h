/* tooltest.h: what the test programs that run the taskir tools as child processes share:
 * running a program with argv and options (working directory, standard input, where standard
 * output and error go, environment, RLIMIT_FSIZE, RLIMIT_AS) and capturing its exit status,
 * standard output and standard error; reading a whole file; one scratch directory per test
 * program, paths in it, and removing a tree.
 *
 * Used by the CMocka programs of tests/cli, sim, cvm, diff, robust, examples and cinn (meson:
 * tooltest_dep, tests/meson.build). Include it after <cmocka.h>. The test's own machinery
 * failing (a file it cannot create, a program it cannot start, a path too long for its buffer)
 * fails the running test through CMocka; what the program run does (its exit status, its
 * output) is only reported, for the test to judge.
 *
 * Not here, on purpose: starting a child and returning at once (test_signals.c kills its
 * children at random moments and keeps its own fork). */
#ifndef TASKIR_TESTS_TOOLTEST_H
#define TASKIR_TESTS_TOOLTEST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* What one run of a program gave. */
typedef struct TtRun {
    int status;              /* exit code; 128 + the signal number when killed by a signal */
    int signal;              /* that signal number; 0 when it exited */
    char *out, *err;         /* captured standard output / error, NUL-terminated; "" when
                                TtOpts sent the stream to a file */
    size_t out_len, err_len; /* their lengths (without the NUL) */
} TtRun;

/* How to run it. A NULL TtOpts, or every field zero, is: this process's working directory and
 * environment, standard input from /dev/null, standard output and error captured. */
typedef struct TtOpts {
    const char *cwd;       /* the child's working directory; NULL: this process's */
    const char *in;        /* standard input read from this file; NULL: /dev/null */
    bool inherit_stdin;    /* standard input left as this process's (in then unused) */
    const char *out_file;  /* standard output written to this file (created or truncated,
                              relative to cwd when relative) instead of captured */
    const char *err_file;  /* the same for standard error */
    char *const *env;      /* the child's environment; NULL: environ */
    long fsize;            /* > 0: RLIMIT_FSIZE of the child in bytes, SIGXFSZ ignored (a
                              write past it fails with EFBIG) */
    long as;               /* > 0: RLIMIT_AS of the child in bytes (its allocations past it
                              fail; not with AddressSanitizer, which needs terabytes of
                              address space) */
    bool search;           /* argv[0] is looked up in PATH when it has no '/' (not with env) */
} TtOpts;

/* Most arguments tt_run / tt_run_va take (argv[0] included). */
enum { TT_MAX_ARGS = 64 };

/* Runs argv (argv[0] the program, NULL-terminated) as TtOpts o says (NULL: the defaults) and
 * waits for it; *r gets its exit status and what it printed (free with tt_run_free). Captured
 * streams go through the files run.out / run.err of the scratch directory (tt_tmpdir_make
 * first), removed again before returning. Fails the test when the program cannot be started
 * (not found, not executable, cwd or a redirection failing, setrlimit refused), with the
 * reason. */
void tt_run_argv(TtRun *r, const TtOpts *o, char *const argv[]);

/* tt_run_argv on exe followed by the arguments of ap up to a NULL (at most TT_MAX_ARGS - 1
 * in all, more fail the test). */
void tt_run_va(TtRun *r, const TtOpts *o, const char *exe, va_list ap);

/* tt_run_argv on exe followed by the arguments given, NULL-terminated. */
void tt_run(TtRun *r, const TtOpts *o, const char *exe, ...);

/* Frees what *r holds and zeroes it (a zeroed TtRun is fine). */
void tt_run_free(TtRun *r);

/* The whole file at path (at most TIR_MAX_FILE_BYTES), NUL-terminated (the NUL not counted
 * in *len; len may be NULL); the caller frees it. NULL when it cannot be read. */
char *tt_slurp(const char *path, size_t *len);

/* tt_slurp, failing the test (naming the file and why) when it cannot be read. */
char *tt_slurp_or_fail(const char *path, size_t *len);

/* Writes len bytes of buf to path (created or truncated); fails the test when it cannot. */
void tt_write_file(const char *path, const void *buf, size_t len);

/* Fails the test, showing hay, when the string hay does not contain needle. */
#define tt_assert_contains(hay, needle)                                                   \
    do {                                                                                  \
        if (!strstr((hay), (needle)))                                                     \
            fail_msg("expected %s to contain \"%s\"; it is:\n%s", #hay, (needle), (hay)); \
    } while (0)

/* Creates this program's scratch directory $TMPDIR/<prefix>XXXXXX ($TMPDIR unset or empty:
 * /tmp) and returns its path (also tt_tmpdir()), or NULL (errno set) when it cannot. Call it
 * once, before tests use the directory; does not use CMocka, so a main() or a group setup may
 * call it. */
const char *tt_tmpdir_make(const char *prefix);

/* The scratch directory's path; fails the test when tt_tmpdir_make has not made one. */
const char *tt_tmpdir(void);

/* buf <- "<scratch directory>/<name>"; returns buf. Fails the test when it does not fit. */
const char *tt_path(char *buf, size_t size, const char *name);

/* buf <- "<dir>/<fmt ...>"; returns buf. Fails the test when it does not fit. */
const char *tt_join(char *buf, size_t size, const char *dir, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Removes path: a file (or symbolic link, not followed), or a directory with everything below
 * it. Returns how many entries it removed, path included (0: there was nothing). Best effort:
 * what cannot be removed stays. No CMocka. */
size_t tt_rm_tree(const char *path);

/* Removes the scratch directory with everything in it (nothing when there is none). Returns
 * how many entries there were in it (0: it was empty). No CMocka. */
size_t tt_tmpdir_remove(void);

/* The number of entries of dir not starting with '.'; -1 when dir cannot be opened. */
int tt_count_files(const char *dir);

/* Compares text (len bytes) with the golden file $TASKIR_SRCDIR/<dir>/<name>, failing the
 * test at the first line that differs; with TASKIR_UPDATE_GOLDEN set (and not "0") rewrites
 * the file instead. */
void tt_golden(const char *dir, const char *name, const char *text, size_t len);

/* out <- path made absolute against the current directory (tools run with another cwd need
 * that). False when the current directory is unknown or out is too small. */
bool tt_absolute(const char *path, char *out, size_t size);

#endif
