/* proc_time: times one process for bench/run, and nothing else.
 *
 *   proc_time [--fifo PRIO] -o FILE CMD [ARG...]
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
 * --fifo PRIO starts CMD under the real-time policy SCHED_FIFO at priority PRIO (1..99, as
 * `chrt -f PRIO` would; it needs the privilege to), so that other work on the machine does
 * not take its processors while it runs (bench/run's RT_PRIO).
 * Exit status: CMD's, or 128 + the signal that ended it; 127 when CMD could not be started
 * (also for want of the privilege --fifo needs) or FILE not written, 1 for a usage error
 * (each with a message on stderr). */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
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

static int usage(void)
{
    fprintf(stderr, "usage: proc_time [--fifo PRIO] -o FILE CMD [ARG...]\n");
    return 1;
}

int main(int argc, char **argv)
{
    int a = 1, prio = 0;
    if (argc > 2 && strcmp(argv[1], "--fifo") == 0) {
        char *end;
        long v = strtol(argv[2], &end, 10);
        if (*argv[2] == '\0' || *end != '\0' || v < 1 || v > 99)
            return usage();
        prio = (int)v;
        a = 3;
    }
    if (argc < a + 3 || strcmp(argv[a], "-o") != 0)
        return usage();
    const char *out = argv[a + 1];
    char **cmd = argv + a + 2;
    posix_spawnattr_t attr;
    if ((errno = posix_spawnattr_init(&attr)) != 0) {
        fprintf(stderr, "proc_time: %s\n", strerror(errno));
        return 127;
    }
    if (prio) {
        struct sched_param sp = {.sched_priority = prio};
        if ((errno = posix_spawnattr_setschedpolicy(&attr, SCHED_FIFO)) != 0 ||
            (errno = posix_spawnattr_setschedparam(&attr, &sp)) != 0 ||
            (errno = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSCHEDULER)) != 0) {
            fprintf(stderr, "proc_time: --fifo %d: %s\n", prio, strerror(errno));
            posix_spawnattr_destroy(&attr);
            return 127;
        }
    }
    pid_t pid;
    long long t0 = now_ns();
    int e = posix_spawnp(&pid, cmd[0], NULL, &attr, cmd, environ);
    posix_spawnattr_destroy(&attr);
    if (e) {
        fprintf(stderr, "proc_time: %s: cannot start%s: %s\n", cmd[0],
                prio ? " under SCHED_FIFO" : "", strerror(e));
        return 127;
    }
    int status;
    struct rusage ru;
    pid_t w;
    while ((w = wait4(pid, &status, 0, &ru)) < 0 && errno == EINTR)
        ;
    long long t1 = now_ns();
    if (w < 0) {
        fprintf(stderr, "proc_time: %s: wait4: %s\n", cmd[0], strerror(errno));
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
