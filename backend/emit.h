/* emit.h: the code generator (docs/backend.md, "The code generator"): a Mapping becomes a
 * program set (progset.h) of per-core programs in the Assembly IR: per core and phase the
 * primitives of the blocks the Mapping places there (P-codes from the chip description), the
 * moves and router transfers the TaskGraph does not spell out, the memory plan of every core
 * (alloc.h), the static data images in the primitives' layouts (emit_layout.h) and the
 * dynamic blocks and sockets of the model's inputs and outputs.
 */
#ifndef TASKIR_BACKEND_EMIT_H
#define TASKIR_BACKEND_EMIT_H

#include <stdbool.h>

#include "backend/progset.h"
#include "taskir/chip.h"
#include "taskir/mapping.h"
#include "taskir/progress.h"

/* Writes the program set of m for chip into *out (zeroed first; free with progset_free).
 * m must verify (verify_mapping). Logic errors (emit.* of docs/rules.md: a plan that does not
 * fit a core, a block or transfer the code generator cannot express) name the core, block or
 * edge; ST_RUNTIME for out of memory. */
Status emit_program(const Mapping *m, const Chip *chip, ProgSet *out, Diag *d);
/* The same, reporting progress after each of its stages ("stage K of N": the cores, the
 * memory plan, the primitives, the moves, the routes, the router primitives, the data, the
 * configuration) to progress (NULL: nobody listens). */
Status emit_program_progress(const Mapping *m, const Chip *chip, ProgSet *out, Diag *d,
                             const TirProgress *progress);

/* Whether progset_save may write dir: it does not exist, or it is a directory holding only a
 * program set's files (program.pb, program.txt, sockets.json, data/ *.bin). (progset_save.c) */
bool progset_dir_replaceable(const char *dir);

#endif
