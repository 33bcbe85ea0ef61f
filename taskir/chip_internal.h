/* chip_internal.h: what the chip reader (chip.c) hands its cross-field checks (chip_check.c):
 * the line of each element that a finding names. Not installed. */
#ifndef TASKIR_CHIP_INTERNAL_H
#define TASKIR_CHIP_INTERNAL_H

#include "taskir/chip.h"

typedef struct ChipLines {
    long chip, memory, limits, router, array;
    long bank[8], area[16], prec[16];
    long *prim;               /* per Chip.prims */
    long *run;                /* per Chip.runs */
} ChipLines;

/* The rules of docs/chip.md "Rules" that tie several values together; each finding names
 * the element's line. ST_OK when every rule holds. */
Status chip_check(const Chip *c, const ChipLines *ln, const char *name, Diag *d);

#endif
