/* fileio.c: see fileio.h. */
#define _GNU_SOURCE /* O_DIRECT */
#include "taskir/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
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
    if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        if (!is_stdin)
            fclose(f);
        return diag_add(d, ST_RUNTIME, "io.read", NULL, "is a directory, not a file");
    }
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
/* The temporary file is written in whole blocks of STAGE bytes, gathered in a buffer of that
 * size aligned to STAGE_ALIGN, with O_DIRECT where the file system takes it (where it does
 * not, the pieces are written as given after the first block): the bytes
 * go from the one buffer to the disk instead of into fresh page-cache pages (on a virtual
 * machine, allocating and copying into those took seconds of system time for a file of a few
 * GB: writing 2.4 GB took 0.3 s of system time this way against 1.5 to 3 s through the page
 * cache). The last, partial block is written through the page cache. */
enum { STAGE = 8 << 20, STAGE_ALIGN = 4096 };

/* Once the first block went with O_DIRECT, the whole blocks after it are written by a thread
 * of the file's own, so that the disk's time overlaps the caller's filling the next block
 * (a write with O_DIRECT returns when the disk has the bytes: the pace of the disk, 1 GB/s
 * on the machines the project is built on, while the saver produces its bytes faster): two
 * buffers of STAGE bytes, one being filled, one being written. Started with the termination
 * signals held (tir_atomic_open), the thread holds them too. */
typedef struct StageWriter {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct TirAtomicFile *f;
    const uint8_t *block;   /* the block being written (STAGE bytes); NULL: idle */
    bool quit;
    int err;                /* the first write error (errno), 0 when none */
} StageWriter;

struct TirAtomicFile {
    char *tmp;              /* the temporary file; NULL for stdout or a direct write */
    char *target;           /* path with its symbolic links followed (what is replaced) */
    bool direct;            /* a device, FIFO or socket: written in place through fd */
    int fd;
    int err;                /* the first write error (errno), 0 when none */
    TirSigHold hold;
    uint8_t *stage;         /* the temporary file's next bytes (STAGE of room), or NULL */
    size_t staged;
    bool no_stage;          /* the buffer could not be had: pieces written as given */
    bool tried_odirect, odirect;
    StageWriter *w;         /* the writer thread (odirect only; read odirect after it ends) */
    uint8_t *spare;         /* with w: the buffer w writes or wrote last */
    bool no_writer;         /* it could not be started: blocks written by the caller */
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

/* The file a write to path lands in: path with its symbolic links followed, link by link
 * (a relative target is relative to the link's directory), up to 40 of them; the last one
 * may name a file that does not exist yet. Malloc'd, or NULL with errno set (ELOOP, ENOMEM,
 * or readlink's). */
static char *follow_links(const char *path)
{
    char *cur = strdup(path);
    for (int hops = 0; cur; hops++) {
        struct stat sb;
        if (lstat(cur, &sb) != 0 || !S_ISLNK(sb.st_mode))
            return cur;
        if (hops == 40) {
            free(cur);
            errno = ELOOP;
            return NULL;
        }
        /* st_size is the target's length for most file systems, 0 for some (procfs) */
        size_t cap = sb.st_size > 0 && (uintmax_t)sb.st_size < 65536 ? (size_t)sb.st_size + 1
                                                                       : 4096;
        char *link = malloc(cap);
        ssize_t n = link ? readlink(cur, link, cap) : -1;
        if (n < 0 || (size_t)n >= cap) {
            int e = !link ? ENOMEM : n < 0 ? errno : ENAMETOOLONG;
            free(link);
            free(cur);
            errno = e;
            return NULL;
        }
        link[n] = '\0';
        const char *slash = strrchr(cur, '/');
        size_t dl = link[0] == '/' || !slash ? 0 : (size_t)(slash - cur) + 1;
        char *next = malloc(dl + (size_t)n + 1);
        if (next) {
            memcpy(next, cur, dl);
            memcpy(next + dl, link, (size_t)n + 1);
        } else {
            errno = ENOMEM;
        }
        free(link);
        free(cur);
        cur = next;
    }
    return NULL;
}

/* The reason path cannot be a file to write, naming it, or NULL when it can be: a path
 * ending in '/' or naming a directory. (The tools refuse these before any work, as usage
 * errors: tir_output_check.) */
static const char *not_a_file(const char *path)
{
    size_t n = strlen(path);
    struct stat sb;
    if (n && path[n - 1] == '/')
        return "ends in '/': it names a directory, give a file name";
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return "is a directory: give a file name";
    return NULL;
}

Status tir_atomic_open(const char *path, TirAtomicFile **out, Diag *d)
{
    *out = NULL;
    if (strcmp(path, "-") != 0 && not_a_file(path))
        return diag_add(d, ST_RUNTIME, "io.write", NULL, "cannot write '%s': it %s", path,
                        not_a_file(path));
    TirAtomicFile *f = calloc(1, sizeof *f);
    if (!f)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    f->fd = -1;
    if (strcmp(path, "-") == 0) {
        *out = f;
        return ST_OK;
    }
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode)) {
        /* a device, FIFO or socket (also through a link such as /dev/stdout, whose target
         * /proc/self/fd/1 may name a pipe that no path reaches): written in place; renaming
         * a file over it would replace the device node, and a FIFO's reader would never see
         * the data */
        f->direct = true;
        f->fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
        if (f->fd < 0) {
            Status st = diag_add(d, ST_RUNTIME, "io.write", NULL, "cannot open '%s': %s",
                                 path, strerror(errno));
            free(f);
            return st;
        }
        *out = f;
        return ST_OK;
    }
    f->target = follow_links(path);
    if (!f->target) {
        int e = errno;
        free(f);
        if (e == ENOMEM)
            return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
        return diag_add(d, ST_RUNTIME, "io.write", NULL, "cannot follow the link '%s': %s",
                        path, strerror(e));
    }
    const char *why = not_a_file(f->target);
    if (why) {
        Status st = diag_add(d, ST_RUNTIME, "io.write", NULL, "cannot write '%s': its target "
                             "'%s' %s", path, f->target, why);
        free(f->target);
        free(f);
        return st;
    }
    size_t pl = strlen(f->target);
    f->tmp = malloc(pl + 32);
    if (!f->tmp) {
        free(f->target);
        free(f);
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    }
    tir_signals_hold(&f->hold);
    f->fd = create_beside(f->target, f->tmp, pl + 32);
    if (f->fd < 0) {
        Status st = diag_add(d, ST_RUNTIME, "io.write", NULL,
                             "cannot create a file beside %s: %s", f->target, strerror(errno));
        tir_signals_release(&f->hold);
        free(f->tmp);
        free(f->target);
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

/* Sets or clears O_DIRECT on f's descriptor; false when the file system refuses it. */
static bool set_odirect(TirAtomicFile *f, bool on)
{
#ifdef O_DIRECT
    int fl = fcntl(f->fd, F_GETFL);
    if (fl < 0 || fcntl(f->fd, F_SETFL, on ? fl | O_DIRECT : fl & ~O_DIRECT) != 0)
        return false;
    f->odirect = on;
    return true;
#else
    (void)f;
    (void)on;
    return false;
#endif
}

/* Writes len bytes of buf to f's file: with O_DIRECT when set, the rest through the page
 * cache when the file system refuses it. Returns 0 or an errno value. */
static int write_block(TirAtomicFile *f, const uint8_t *buf, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(f->fd, buf + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0 || (f->odirect && (size_t)w != len - done)) {
            /* refused with O_DIRECT (or cut short, leaving an unaligned rest): the rest
             * through the page cache */
            if (f->odirect && set_odirect(f, false)) {
                done += w > 0 ? (size_t)w : 0;
                continue;
            }
            return w < 0 ? errno : EIO;
        }
        done += (size_t)w;
    }
    return 0;
}

static void *writer_main(void *arg)
{
    StageWriter *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->block && !w->quit)
            pthread_cond_wait(&w->cv, &w->mu);
        if (!w->block)
            break;
        const uint8_t *b = w->block;
        pthread_mutex_unlock(&w->mu);
        int e = w->err ? 0 : write_block(w->f, b, STAGE);
        pthread_mutex_lock(&w->mu);
        if (!w->err)
            w->err = e;
        w->block = NULL;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* Starts f's writer thread and its second buffer; false (and blocks written by the caller
 * from then on) when either cannot be had. */
static bool writer_start(TirAtomicFile *f)
{
    StageWriter *w = calloc(1, sizeof *w);
    f->spare = aligned_alloc(STAGE_ALIGN, STAGE);
    bool ok = w && f->spare && pthread_mutex_init(&w->mu, NULL) == 0;
    if (ok && pthread_cond_init(&w->cv, NULL) != 0) {
        pthread_mutex_destroy(&w->mu);
        ok = false;
    }
    if (w)
        w->f = f;
    if (ok && pthread_create(&w->th, NULL, writer_main, w) != 0) {
        pthread_cond_destroy(&w->cv);
        pthread_mutex_destroy(&w->mu);
        ok = false;
    }
    if (!ok) {
        free(w);
        free(f->spare);
        f->spare = NULL;
        f->no_writer = true;
        return false;
    }
    f->w = w;
    return true;
}

/* Waits for f's writer thread to write what it was given and ends it; its first error. */
static int writer_stop(TirAtomicFile *f)
{
    StageWriter *w = f->w;
    if (!w)
        return 0;
    pthread_mutex_lock(&w->mu);
    w->quit = true;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->th, NULL);
    int e = w->err;
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w);
    f->w = NULL;
    return e;
}

/* Gives the full staging buffer to the writer thread once it has written the one before,
 * and stages into that one. Returns 0 or the writer's first error. */
static int writer_put(TirAtomicFile *f)
{
    StageWriter *w = f->w;
    pthread_mutex_lock(&w->mu);
    while (w->block)
        pthread_cond_wait(&w->cv, &w->mu);
    int e = w->err;
    if (!e) {
        w->block = f->stage;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    if (e)
        return e;
    uint8_t *next = f->spare;
    f->spare = f->stage;
    f->stage = next;
    f->staged = 0;
    return 0;
}

/* Writes the staged bytes: a whole block with O_DIRECT when the file system takes it (tried
 * once; after the first, by the writer thread), the last one (last: not a whole block)
 * through the page cache, after the writer thread has written the blocks before it. Returns
 * 0 or an errno value. */
static int flush_stage(TirAtomicFile *f, bool last)
{
    if (!last && f->odirect && (f->w || (!f->no_writer && writer_start(f))))
        return writer_put(f);
    int e = writer_stop(f);
    if (e)
        return e;
    if (!f->tried_odirect && !last) {
        f->tried_odirect = true;
        set_odirect(f, true);
    }
    if (last && f->odirect && !set_odirect(f, false))
        return errno ? errno : EIO;
    e = write_block(f, f->stage, f->staged);
    if (!e)
        f->staged = 0;
    return e;
}

/* Appends the pieces to the staging buffer, writing it out each time it fills. */
static int stage_pieces(TirAtomicFile *f, const struct iovec *iov, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = iov[i].iov_base;
        size_t left = iov[i].iov_len;
        while (left) {
            size_t k = STAGE - f->staged < left ? STAGE - f->staged : left;
            memcpy(f->stage + f->staged, p, k);
            f->staged += k;
            p += k;
            left -= k;
            int e = f->staged == STAGE ? flush_stage(f, false) : 0;
            if (e)
                return e;
        }
    }
    return 0;
}

Status tir_atomic_writev(TirAtomicFile *f, const struct iovec *iov, size_t n, Diag *d)
{
    if (f->fd < 0) {
        for (size_t i = 0; i < n && !ferror(stdout); i++)
            if (fwrite(iov[i].iov_base, 1, iov[i].iov_len, stdout) != iov[i].iov_len)
                f->err = errno ? errno : EIO;
        if (f->err || ferror(stdout))
            return diag_add(d, ST_RUNTIME, "io.write", NULL, "cannot write to stdout: %s",
                            strerror(f->err ? f->err : EIO));
        return ST_OK;
    }
    if (!f->direct && !f->stage && !f->no_stage)
        f->no_stage = !(f->stage = aligned_alloc(STAGE_ALIGN, STAGE));
    if (!f->err && f->stage && !f->w && f->tried_odirect && !f->odirect) {
        /* no O_DIRECT here: gathering only costs a copy; the pieces go as given */
        f->err = flush_stage(f, true);
        free(f->stage);
        f->stage = NULL;
        f->no_stage = true;
    }
    if (!f->err)
        f->err = f->stage ? stage_pieces(f, iov, n) : write_pieces(f->fd, iov, n);
    if (f->err)
        return diag_add(d, ST_RUNTIME, "io.write", NULL, "cannot write: %s", strerror(f->err));
    return ST_OK;
}

Status tir_atomic_close(TirAtomicFile *f, bool commit, Diag *d)
{
    Status st = ST_OK;
    if (f->fd < 0) {
        if (commit && fflush(stdout) != 0)
            st = diag_add(d, ST_RUNTIME, "io.write", NULL, "cannot write to stdout: %s",
                          strerror(errno));
        free(f);
        return st;
    }
    if (commit && !f->err && f->stage)
        f->err = flush_stage(f, true);
    int we = writer_stop(f);
    if (!f->err)
        f->err = we;
    free(f->stage);
    free(f->spare);
    int err = f->err;
    if (close(f->fd) != 0 && !err)
        err = errno;
    if (f->direct) {
        if (commit && err)
            st = diag_add(d, ST_RUNTIME, "io.write", NULL, "cannot write: %s", strerror(err));
        free(f->target);
        free(f);
        return st;
    }
    if (commit && !err && rename(f->tmp, f->target) != 0)
        err = errno;
    if (!commit || err) {
        unlink(f->tmp);
        if (commit)
            st = diag_add(d, ST_RUNTIME, "io.write", NULL, "cannot write: %s", strerror(err));
    }
    tir_signals_release(&f->hold);
    free(f->tmp);
    free(f->target);
    free(f);
    return st;
}

Status tir_output_check(const char *out, const char *const *inputs, size_t n, Diag *d)
{
    if (strcmp(out, "-") == 0)
        return ST_OK;
    const char *why = not_a_file(out);
    if (why)
        return diag_add(d, ST_USAGE, "usage.output", NULL, "-o '%s' %s", out, why);
    for (size_t i = 0; i < n; i++)
        if (inputs[i] && tir_same_file(out, inputs[i]))
            return diag_add(d, ST_USAGE, "usage.output", NULL, "-o '%s' is the input '%s': "
                            "writing it would destroy the input", out, inputs[i]);
    return ST_OK;
}

/* fstat of standard input for "-", else stat of path. */
static int stat_input(const char *path, struct stat *sb)
{
    return strcmp(path, "-") == 0 ? fstat(STDIN_FILENO, sb) : stat(path, sb);
}

bool tir_same_file(const char *out, const char *in)
{
    struct stat so, si;
    if (strcmp(out, "-") == 0 || stat(out, &so) != 0 || stat_input(in, &si) != 0)
        return false;
    return S_ISREG(so.st_mode) && so.st_dev == si.st_dev && so.st_ino == si.st_ino;
}

char *tir_path_join(const char *dir, const char *name)
{
    size_t len = strlen(dir) + strlen(name) + 2;
    char *p = malloc(len);
    if (p)
        snprintf(p, len, "%s/%s", dir, name);
    return p;
}
