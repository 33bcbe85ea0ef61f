/* fileio.c: see fileio.h. */
#include "taskir/fileio.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

Status tir_write_file_atomic(const char *path, const void *buf, size_t len, Diag *d)
{
    if (strcmp(path, "-") == 0) {
        if (fwrite(buf, 1, len, stdout) != len || fflush(stdout) != 0)
            return diag_add(d, ST_RUNTIME, "io.write", NULL, "cannot write to stdout: %s",
                            strerror(errno));
        return ST_OK;
    }
    size_t pl = strlen(path);
    char *tmp = malloc(pl + 16);
    if (!tmp)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    snprintf(tmp, pl + 16, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        Status st = diag_add(d, ST_RUNTIME, "io.write", NULL,
                             "cannot create a file beside %s: %s", path, strerror(errno));
        free(tmp);
        return st;
    }
    mode_t um = umask(0);
    umask(um);
    (void)fchmod(fd, 0666 & ~um);
    const char *p = buf;
    size_t left = len;
    int err = 0;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            err = errno;
            break;
        }
        p += w;
        left -= (size_t)w;
    }
    if (close(fd) != 0 && !err)
        err = errno;
    if (!err && rename(tmp, path) != 0)
        err = errno;
    if (err) {
        unlink(tmp);
        free(tmp);
        return diag_add(d, ST_RUNTIME, "io.write", NULL, "cannot write: %s", strerror(err));
    }
    free(tmp);
    return ST_OK;
}
