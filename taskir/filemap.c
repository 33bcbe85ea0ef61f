/* filemap.c: see filemap.h. */
#define _DEFAULT_SOURCE /* MAP_POPULATE */
#include "taskir/filemap.h"

#include "taskir/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MAP_POPULATE
#define MAP_POPULATE 0 /* the pages then come in as they are first read */
#endif

Status tir_file_bytes(const char *path, size_t cap, TirFileBytes *f, Diag *d)
{
    memset(f, 0, sizeof *f);
    /* stat first: opening a FIFO to look at it would wait for a writer, and take its data */
    struct stat sb;
    bool regular = strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
    int fd = regular ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0 &&
        (uintmax_t)sb.st_size <= (uintmax_t)cap) {
        void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
        close(fd);
        if (m != MAP_FAILED) {
            f->map = m;
            f->p = m;
            f->len = (size_t)sb.st_size;
            return ST_OK;
        }
    } else if (fd >= 0) {
        close(fd);
    }
    /* not a regular file, empty, over the cap, or not mappable: read it (which also gives
     * the errors their words) */
    Status st = tir_read_file(path, cap, &f->owned, &f->len, d);
    f->p = f->owned;
    return st;
}

void tir_file_release(TirFileBytes *f)
{
    if (f->map)
        munmap(f->map, f->len);
    free(f->owned);
    memset(f, 0, sizeof *f);
}
