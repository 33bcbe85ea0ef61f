/* print_chip.h: the summary of a chip description (docs/chip.md, "taskir-dump"), as text or
 * as one JSON object; deterministic (description order, fixed number formats). */
#ifndef TASKIR_PRINT_CHIP_H
#define TASKIR_PRINT_CHIP_H

#include "taskir/chip.h"
#include "taskir/print.h"

/* Prints c's summary in format f (PF_TEXT or PF_JSON; PF_DOT is a usage error of the
 * caller). ST_RUNTIME on a write error [io.write] or out of memory. */
Status print_chip(const Chip *c, PrintFormat f, FILE *out, Diag *d);

#endif
