/* progset_check.h: what a loaded program set must satisfy before it runs or prints
 * (docs/backend.md "The program set", rules prog.* in docs/rules.md), and the coordinates it
 * uses: a chip of PROG_CHIP_W x PROG_CHIP_H cores (CHIP.md §3), a core's place in the chip
 * array as global core coordinates (chip_x * 16 + core_x, chip_y * 10 + core_y), in which a
 * router header's dx, dy run past a chip's edge into its neighbour. */
#ifndef TASKIR_BACKEND_PROGSET_CHECK_H
#define TASKIR_BACKEND_PROGSET_CHECK_H

#include "backend/progset.h"

enum {
    PROG_CHIP_W = 16,        /* cores along x in a chip */
    PROG_CHIP_H = 10,        /* cores along y */
    PROG_MAX_CHIPS = 64,     /* chips along x or y of the array */
    PROG_MAX_PHASES = 32,    /* phases in a step (CHIP.md §3) */
};
/* Elements a socket may hold. */
#define PROG_MAX_SOCKET_ELEMS ((int64_t)1 << 28)

/* The volume of socket k's natural shape (absent dims count 1). */
int64_t prog_socket_volume(const ProgSocket *k);

/* Checks the Config against the sockets: coordinates in range, no core programmed twice, at
 * most PROG_MAX_PHASES phases a core, step counts in range, static block ids
 * ([A-Za-z0-9_.-]+, not "." or "..", unique) on cores with a program, dynamic blocks of an
 * input or output socket listed in sockets.json on cores with a program, phases in range.
 * Logic errors with prog.* rules. */
Status progset_check(const ProgSet *s, Diag *d);

/* The index in s->sockets of the socket with this direction and socket id; -1 when none. */
long prog_find_socket(const ProgSet *s, int is_output, int socket_id);

#endif
