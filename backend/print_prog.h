/* print_prog.h: a program set made readable (taskir-dump DIR; docs/backend.md "Reading a
 * program set"): per core and phase its slots, each with its P-code and every parameter the
 * program sets (memory addresses in hex), and per core its memory map (the areas of its
 * static blocks, dynamic blocks and primitives, by bank, with the blocks' ids and the phases
 * that use them). */
#ifndef TASKIR_BACKEND_PRINT_PROG_H
#define TASKIR_BACKEND_PRINT_PROG_H

#include <stdbool.h>
#include <stdio.h>

#include "backend/progset.h"

/* Prints s as text, or with json as one JSON document. ST_RUNTIME when out of memory. */
Status print_progset(FILE *out, const ProgSet *s, bool json, Diag *d);

#endif
