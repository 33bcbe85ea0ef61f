/* proc_time: times one process for bench/run, and nothing else.
 *
 *   proc_time -o FILE CMD [ARG...]
 *
 * Starts CMD (looked up in PATH, standard streams inherited) with posix_spawn, waits for it
 * with wait4 and writes FILE:
 *
 *   wall_ns N      CLOCK_MONOTONIC from just before the spawn to wait4's return
 *   max_rss_kib N  the process's peak resident set (wait4's ru_maxrss, KiB: what GNU time
 *                  -v calls "Maximum resident set size")
 *   user_us N      its user CPU time, all its threads
 *   sys_us N       its system CPU time
 *
 * bench/run used GNU time inside two `date +%s%N` calls, so each reading also held the
 * start of /usr/bin/time and of a second `date`; here the clock holds the process alone.
 * Exit status: CMD's, or 128 + the signal that ended it; 127 when CMD could not be started
 * or FILE not written, 1 for a usage error (both with a message on stderr). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long long tv_us(struct timeval t)
{
    return (long long)t.tv_sec * 1000000LL + t.tv_usec;
}

int main(int argc, char **argv)
{
    if (argc < 4 || strcmp(argv[1], "-o") != 0) {
        fprintf(stderr, "usage: proc_time -o FILE CMD [ARG...]\n");
        return 1;
    }
    const char *out = argv[2];
    pid_t pid;
    long long t0 = now_ns();
    int e = posix_spawnp(&pid, argv[3], NULL, NULL, argv + 3, environ);
    if (e) {
        fprintf(stderr, "proc_time: %s: cannot start: %s\n", argv[3], strerror(e));
        return 127;
    }
    int status;
    struct rusage ru;
    pid_t w;
    while ((w = wait4(pid, &status, 0, &ru)) < 0 && errno == EINTR)
        ;
    long long t1 = now_ns();
    if (w < 0) {
        fprintf(stderr, "proc_time: %s: wait4: %s\n", argv[3], strerror(errno));
        return 127;
    }
    FILE *f = fopen(out, "w");
    if (!f) {
        fprintf(stderr, "proc_time: %s: %s\n", out, strerror(errno));
        return 127;
    }
    fprintf(f, "wall_ns %lld\nmax_rss_kib %ld\nuser_us %lld\nsys_us %lld\n", t1 - t0,
            ru.ru_maxrss, tv_us(ru.ru_utime), tv_us(ru.ru_stime));
    if (fclose(f) != 0) {
        fprintf(stderr, "proc_time: %s: %s\n", out, strerror(errno));
        return 127;
    }
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}
