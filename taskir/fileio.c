/* fileio.c: see fileio.h. */
#include "taskir/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

Status tir_read_file(const char *path, size_t cap, uint8_t **buf, size_t *len, Diag *d)
{
    *buf = NULL;
    *len = 0;
    bool is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f)
        return diag_add(d, ST_RUNTIME, "io.read", NULL, "cannot open: %s", strerror(errno));
    /* A regular file says its size: refuse one over the cap before reading a byte of it.
     * Pipes and devices are read up to cap + 1 bytes below. */
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size >= 0 &&
        (uintmax_t)sb.st_size > (uintmax_t)cap) {
        Status st = diag_add(d, ST_LOGIC, "limit.file", NULL,
                             "file has %jd bytes, more than the %zu-byte limit",
                             (intmax_t)sb.st_size, cap);
        if (!is_stdin)
            fclose(f);
        return st;
    }
    size_t n = 0, size = 0;
    uint8_t *p = NULL;
    Status st = ST_OK;
    for (;;) {
        if (n == size) {
            if (size > cap) {
                st = diag_add(d, ST_LOGIC, "limit.file", NULL,
                              "file is larger than the %zu-byte limit", cap);
                break;
            }
            size_t ns = size ? size * 2 : 65536;
            if (ns > cap + 1)
                ns = cap + 1;
            uint8_t *q = realloc(p, ns);
            if (!q) {
                st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory reading the file");
                break;
            }
            p = q;
            size = ns;
        }
        size_t got = fread(p + n, 1, size - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f))
                st = diag_add(d, ST_RUNTIME, "io.read", NULL, "read error: %s", strerror(errno));
            break;
        }
    }
    if (st == ST_OK && n > cap)
        st = diag_add(d, ST_LOGIC, "limit.file", NULL, "file is larger than the %zu-byte limit",
                      cap);
    if (!is_stdin)
        fclose(f);
    if (st != ST_OK) {
        free(p);
        return st;
    }
    *buf = p;
    *len = n;
    return ST_OK;
}

void tir_signals_hold(TirSigHold *h)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGQUIT);
    pthread_sigmask(SIG_BLOCK, &set, &h->old);
}

void tir_signals_release(const TirSigHold *h)
{
    pthread_sigmask(SIG_SETMASK, &h->old, NULL);
}

/* An atomic write in progress. The temporary file exists only while the termination signals
 * are held (see fileio.h). */
struct TirAtomicFile {
    char *tmp;              /* the temporary file; NULL for stdout */
    const char *path;
    int fd;
    int err;                /* the first write error (errno), 0 when none */
    TirSigHold hold;
};

Status tir_write_file_atomic(const char *path, const void *buf, size_t len, Diag *d)
{
    struct iovec v = {(void *)buf, len};
    return tir_write_file_atomic_iov(path, &v, 1, d);
}

Status tir_write_file_atomic_iov(const char *path, const struct iovec *iov, size_t n, Diag *d)
{
    TirAtomicFile *f;
    Status st = tir_atomic_open(path, &f, d);
    if (st != ST_OK)
        return st;
    st = tir_atomic_writev(f, iov, n, d);
    Status cst = tir_atomic_close(f, st == ST_OK, d);
    return st != ST_OK ? st : cst;
}

/* Creates a new temporary file "PATH.tmp.XXXXXX" beside path with O_CREAT | O_EXCL and mode
 * 0666, so the kernel applies the process's umask as it does for any new file (mkstemp's 0600
 * would need the umask read with umask(2), which is process-wide and races with other
 * threads). The six letters come from the time, the pid and a counter; up to 1000 names are
 * tried. Writes the name into tmp (tmpsize bytes) and returns the descriptor, or -1 with
 * errno set. */
static int create_beside(const char *path, char *tmp, size_t tmpsize)
{
    static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t v = ((uint64_t)ts.tv_nsec << 16) ^ (uint64_t)ts.tv_sec ^
                 ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)tmp;
    for (int attempt = 0; attempt < 1000; attempt++) {
        char suffix[7];
        uint64_t x = v + (uint64_t)attempt * 0x9e3779b97f4a7c15u;
        x ^= x >> 29;
        x *= 0xbf58476d1ce4e5b9u;
        x ^= x >> 32;
        for (int i = 0; i < 6; i++) {
            suffix[i] = letters[x % 62];
            x /= 62;
        }
        suffix[6] = '\0';
        snprintf(tmp, tmpsize, "%s.tmp.%s", path, suffix);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

Status tir_atomic_open(const char *path, TirAtomicFile **out, Diag *d)
{
    *out = NULL;
    TirAtomicFile *f = calloc(1, sizeof *f);
    if (!f)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    f->path = path;
    f->fd = -1;
    if (strcmp(path, "-") == 0) {
        *out = f;
        return ST_OK;
    }
    size_t pl = strlen(path);
    f->tmp = malloc(pl + 32);
    if (!f->tmp) {
        free(f);
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    }
    tir_signals_hold(&f->hold);
    f->fd = create_beside(path, f->tmp, pl + 32);
    if (f->fd < 0) {
        Status st = diag_add(d, ST_RUNTIME, "io.write", NULL,
                             "cannot create a file beside %s: %s", path, strerror(errno));
        tir_signals_release(&f->hold);
        free(f->tmp);
        free(f);
        return st;
    }
    *out = f;
    return ST_OK;
}

/* Writes the pieces with writev, 64 pieces a call, resuming after a partial write. Returns 0
 * or an errno value. */
static int write_pieces(int fd, const struct iovec *iov, size_t n)
{
    struct iovec cur[64];
    size_t i = 0, done = 0; /* piece i, of which done bytes are written */
    while (i < n) {
        int k = 0;
        size_t want = 0;
        for (size_t j = i; j < n && k < 64; j++, k++) {
            cur[k] = iov[j];
            if (j == i) {
                cur[k].iov_base = (char *)cur[k].iov_base + done;
                cur[k].iov_len -= done;
            }
            want += cur[k].iov_len;
        }
        ssize_t w = writev(fd, cur, k);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (w == 0 && want)
            return EIO;
        size_t left = (size_t)w;
        while (i < n && left >= iov[i].iov_len - done) {
            left -= iov[i].iov_len - done;
            done = 0;
            i++;
        }
        done += left;
    }
    return 0;
}

Status tir_atomic_writev(TirAtomicFile *f, const struct iovec *iov, size_t n, Diag *d)
{
    if (!f->tmp) {
        for (size_t i = 0; i < n && !ferror(stdout); i++)
            if (fwrite(iov[i].iov_base, 1, iov[i].iov_len, stdout) != iov[i].iov_len)
                f->err = errno ? errno : EIO;
        if (f->err || ferror(stdout))
            return diag_add(d, ST_RUNTIME, "io.write", NULL, "cannot write to stdout: %s",
                            strerror(f->err ? f->err : EIO));
        return ST_OK;
    }
    if (!f->err)
        f->err = write_pieces(f->fd, iov, n);
    if (f->err)
        return diag_add(d, ST_RUNTIME, "io.write", NULL, "cannot write: %s", strerror(f->err));
    return ST_OK;
}

Status tir_atomic_close(TirAtomicFile *f, bool commit, Diag *d)
{
    Status st = ST_OK;
    if (!f->tmp) {
        if (commit && fflush(stdout) != 0)
            st = diag_add(d, ST_RUNTIME, "io.write", NULL, "cannot write to stdout: %s",
                          strerror(errno));
        free(f);
        return st;
    }
    int err = f->err;
    if (close(f->fd) != 0 && !err)
        err = errno;
    if (commit && !err && rename(f->tmp, f->path) != 0)
        err = errno;
    if (!commit || err) {
        unlink(f->tmp);
        if (commit)
            st = diag_add(d, ST_RUNTIME, "io.write", NULL, "cannot write: %s", strerror(err));
    }
    tir_signals_release(&f->hold);
    free(f->tmp);
    free(f);
    return st;
}
