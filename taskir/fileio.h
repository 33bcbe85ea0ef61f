/* fileio.h: whole-file reads with a size cap, and atomic writes (temporary file in the target
 * directory, renamed on success; no partial file is ever left behind). "-" is stdin/stdout. */
#ifndef TASKIR_FILEIO_H
#define TASKIR_FILEIO_H

#include "taskir/diag.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Largest input file any taskir tool reads (8 GiB): a larger one is a logic error. The
 * TaskGraph of bench/run's 10x-ResNet-50 model (259 M int8 weights as int32_data varints,
 * about 5.5 bytes each) is 1.42 GB, and taskir-opt's output of it 2.94 GB (docs/limits.md). */
#define TIR_MAX_FILE_BYTES ((size_t)1 << 33)

/* Reads path (or stdin for "-") into a malloc'd buffer. A file over cap bytes is a logic error
 * [limit.file]; an unreadable one a runtime error [io.read]. */
Status tir_read_file(const char *path, size_t cap, uint8_t **buf, size_t *len, Diag *d);
/* Writes len bytes to path atomically (or to stdout for "-"). Runtime error [io.write].
 * What path names decides how: a symbolic link is followed (link by link) and its final
 * target replaced atomically (the link stays); an existing device, FIFO or socket is opened
 * and written in place (/dev/null, /dev/stdout, a FIFO's reader gets the data; a write
 * error there may leave part of the content); a directory, or a path ending in '/', is
 * refused with a message saying so. Anything else (a regular file, or nothing) is replaced
 * through a temporary file beside it, renamed into place.
 * The termination signals (tir_signals_hold) are held back in the calling thread from the
 * creation of the temporary file until it is renamed or removed, so SIGINT, SIGTERM, SIGHUP
 * or SIGQUIT arriving meanwhile takes effect only when path holds the whole new content or
 * its old state. (SIGKILL cannot be held: it may leave a "path.tmp.XXXXXX" file.) */
Status tir_write_file_atomic(const char *path, const void *buf, size_t len, Diag *d);
/* The same for content given in pieces (written in order with writev, no joining copy). */
struct iovec;
Status tir_write_file_atomic_iov(const char *path, const struct iovec *iov, size_t n, Diag *d);

/* The same in steps, for content produced piece by piece: tir_atomic_open creates the
 * temporary file beside path (holding the termination signals from then on), each
 * tir_atomic_writev appends pieces (gathered in blocks of 8 MiB: with O_DIRECT where the file
 * system takes it, the blocks after the first written by a thread of the file's own while the
 * caller fills the next; a write error then shows at the next call or at close), and
 * tir_atomic_close(commit) renames the file into place,
 * or with commit false (or after a failed write) removes it; close always frees f and
 * releases the signals. "-" writes to stdout. Runtime errors [io.write]. */
typedef struct TirAtomicFile TirAtomicFile;
Status tir_atomic_open(const char *path, TirAtomicFile **f, Diag *d);
Status tir_atomic_writev(TirAtomicFile *f, const struct iovec *iov, size_t n, Diag *d);
Status tir_atomic_close(TirAtomicFile *f, bool commit, Diag *d);

/* "dir/name", malloc'd; NULL when out of memory. */
char *tir_path_join(const char *dir, const char *name);

/* Whether the output path out (an existing regular file, symbolic links followed) is the
 * same file as the input in ("-": standard input), by device and inode. */
bool tir_same_file(const char *out, const char *in);
/* Checks an output path before any work, as the tools do: "-" is fine; a directory or a path
 * ending in '/' [usage.output], the same file as one of inputs[0..n) (NULL entries skipped)
 * [usage.output], both usage errors naming the paths. */
Status tir_output_check(const char *out, const char *const *inputs, size_t n, Diag *d);

/* The signal mask to restore after tir_signals_hold. */
typedef struct TirSigHold {
    sigset_t old;
} TirSigHold;

/* Holds back SIGINT, SIGTERM, SIGHUP and SIGQUIT in the calling thread (pthread_sigmask)
 * until tir_signals_release: one arriving meanwhile stays pending and takes effect at the
 * release. A tool that writes several outputs holds them across writing them all (and
 * removing them again on an error), so that no signal leaves part of the set. Holds nest
 * (the inner release restores the outer hold). In a program with other threads, those
 * threads must hold them too (or have finished), or the signal goes to them. */
void tir_signals_hold(TirSigHold *h);
void tir_signals_release(const TirSigHold *h);

#endif
