/* fileio.h: whole-file reads with a size cap, and atomic writes (temporary file in the target
 * directory, renamed on success; no partial file is ever left behind). "-" is stdin/stdout. */
#ifndef TASKIR_FILEIO_H
#define TASKIR_FILEIO_H

#include "taskir/diag.h"

#include <stddef.h>
#include <stdint.h>

/* Largest input file any taskir tool reads (1 GiB): a larger one is a logic error. */
#define TIR_MAX_FILE_BYTES ((size_t)1 << 30)

/* Reads path (or stdin for "-") into a malloc'd buffer. A file over cap bytes is a logic error
 * [limit.file]; an unreadable one a runtime error [io.read]. */
Status tir_read_file(const char *path, size_t cap, uint8_t **buf, size_t *len, Diag *d);
/* Writes len bytes to path atomically (or to stdout for "-"). Runtime error [io.write]. */
Status tir_write_file_atomic(const char *path, const void *buf, size_t len, Diag *d);

#endif
