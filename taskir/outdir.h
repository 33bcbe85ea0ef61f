/* outdir.h: taskir-run's output tensors: named after what they are, and written into its
 * output directory (-o DIR) as a set, or printed as text (no -o, or -o -). Writing creates the
 * directory if missing (and removes it again when a write fails), and removes the files of an
 * earlier run that this run does not write, so that what DIR holds is this run's
 * (docs/cli.md). "Our" files are DIR/outputK.npy and DIR/blockID.npy (K a socket or head
 * number, ID a block id): what taskir-run writes; DIR's other files are never touched. */
#ifndef TASKIR_OUTDIR_H
#define TASKIR_OUTDIR_H

#include "taskir/diag.h"
#include "taskir/npy.h"
#include "taskir/sim.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One tensor to write or print: its file name in DIR, its label in printed output, and its
 * data (not owned). */
typedef struct OutFile {
    char file[32];          /* "output0.npy", "block3.npy" */
    char label[320];        /* "output0 (block 25)", "output0 (host node 'fc3_clip')" */
    const int32_t *data;
    NpyDtype dtype;         /* the file's element type (values narrowed as a C cast) */
    int64_t shape[NPY_MAX_DIMS];
    uint32_t ndim;
    int64_t count;          /* elements in data */
} OutFile;

/* o names and points at a simulated tensor: an OUTPUT block's (is_output: "output<socket>.npy",
 * "output<socket> (block <id>)") or any block's (--dump-all: "block<id>.npy", "block <id>"). */
void outdir_sim_tensor(OutFile *o, const SimTensor *t, bool is_output);

/* Prints t as text: "label: dtype (shape)", then its values as the file holds them (narrowed
 * to its element type), one line per last-dim row. */
void outdir_print(FILE *f, const OutFile *t);

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
