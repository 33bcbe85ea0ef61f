/* run_internal.h: what the executor's files share (run.c: the cores and the phase loop;
 * run_router.c: one phase of the router; run_io.c: the dynamic blocks). */
#ifndef TASKIR_BACKEND_RUN_INTERNAL_H
#define TASKIR_BACKEND_RUN_INTERNAL_H

#include "backend/core_mem.h"
#include "backend/exec.h"
#include "backend/run.h"

/* One core with a program. */
typedef struct RunCore {
    int chip_x, chip_y, x, y;   /* the chip and the core in it */
    int gx, gy;                 /* global core coordinates (progset_check.h) */
    const Taskir__Asm__CoreConfig *cc;
    CoreMem *mem;               /* allocated when the run starts */
    bool active;                /* runs the current phase (its step group is still stepping) */
    ExecStream to_router;       /* Soma1 -> Router words of the current phase */
    ExecStream from_router;     /* Router -> Soma2 words of the current phase */
    /* the router's counts in the current phase */
    int64_t marks;              /* end marks received */
    int64_t relayed;            /* packets forwarded */
} RunCore;

typedef struct Run {
    const ProgSet *set;
    RunCore *cores;             /* sorted by (gy, gx) */
    size_t n_cores;
} Run;

/* The core at global coordinates (gx, gy); NULL when none has a program. */
RunCore *run_core_at(const Run *r, int64_t gx, int64_t gy);
/* "chip (cx,cy) core (x,y) phase p" into buf. */
void run_where(const RunCore *c, int phase, char *buf, size_t len);
/* The router primitive of core c in phase p; NULL when it has none. */
const Taskir__Asm__P09 *run_router_prim(const RunCore *c, int phase);

/* Runs the Router slot of every core in phase p: builds the packets, routes them (relay and
 * multicast included), delivers them and checks the receive counts (run_router.c). */
Status run_router_phase(Run *r, int phase, Diag *d);

/* Writes input dynamic block b into its core from the socket's values (run_io.c). */
Status run_io_write(const Run *r, const Taskir__Asm__DynamicBlock *b, const ProgSocket *s,
                    const int32_t *values, Diag *d);
/* Reads output dynamic block b from its core into the socket's values, marking the elements
 * it covers in covered (one byte an element). */
Status run_io_read(const Run *r, const Taskir__Asm__DynamicBlock *b, const ProgSocket *s,
                   int32_t *values, uint8_t *covered, Diag *d);

/* The words dynamic block b takes in its core's memory; -1 when its layout is invalid. */
int64_t run_io_words(const Taskir__Asm__DynamicBlock *b, const ProgSocket *s);

#endif
