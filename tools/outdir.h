/* outdir.h: taskir-run's output directory (-o DIR): the tensors written as a set, the
 * directory created if missing (and removed again when a write fails), and the files of an
 * earlier run that this run does not write removed, so that what DIR holds is this run's
 * (docs/cli.md). "Our" files are DIR/outputK.npy and DIR/blockID.npy (K a socket or head
 * number, ID a block id): what taskir-run writes; DIR's other files are never touched. */
#ifndef TASKIR_TOOLS_OUTDIR_H
#define TASKIR_TOOLS_OUTDIR_H

#include "taskir/diag.h"
#include "taskir/npy.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One tensor to write: its file name in DIR ("output0.npy", "block3.npy") and its data. */
typedef struct OutFile {
    const char *file;
    const int32_t *data;
    NpyDtype dtype;         /* the file's element type (values narrowed as a C cast) */
    const int64_t *shape;
    uint32_t ndim;
} OutFile;

/* Whether name is one of taskir-run's file names: "output" or "block", an optional '-' and
 * decimal digits, ".npy". */
bool outdir_is_ours(const char *name);

/* Checks DIR before the run: a usage error [usage.output] when it exists and is not a
 * directory, or when one of our files in it is one of inputs[0..n) (NULL entries skipped;
 * "-" is standard input), which the run would overwrite or remove. */
Status outdir_check(const char *dir, const char *const *inputs, size_t n, Diag *d);

/* Writes the n tensors into dir (created with its missing parents), then removes our files
 * in dir that are not among them. On a failure removes the files written so far and the
 * directories this call created (when empty), and removes no old file. The termination
 * signals are held meanwhile. Messages name the file. */
Status outdir_write(const char *dir, const OutFile *outs, uint32_t n, Diag *d);

#endif
