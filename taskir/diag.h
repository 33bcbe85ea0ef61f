/* diag.h: diagnostics. Library code never prints or exits; it records what went wrong in a
 * Diag and returns a Status. Tools print the entries as
 *     tool: file: where: what [rule-id]
 * and exit with the worst status (README.md, taskir-dump: "Exit status"). Rule ids are stable
 * and listed in docs/rules.md; tests match them. */
#ifndef TASKIR_DIAG_H
#define TASKIR_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum {
    ST_OK = 0,
    ST_USAGE = 1,   /* the command line is wrong */
    ST_LOGIC = 2,   /* the user's input is wrong (README.md's exit status 2) */
    ST_RUNTIME = 3  /* I/O, out of memory, a broken internal invariant */
} Status;

typedef struct DiagEntry {
    Status status;
    char rule[40];      /* stable rule id, e.g. "shape.cc.y" */
    int32_t block_id;   /* the block it is about, when has_block */
    bool has_block;
    int32_t edge_id;    /* the edge it is about, when has_edge */
    bool has_edge;
    char *where;        /* "block 17 (CC 'conv1')", "edge 4", "byte 120" or "" */
    char *what;
} DiagEntry;

typedef struct Diag {
    char *file;         /* the input named in every message; may be NULL */
    DiagEntry *entries;
    size_t n, cap;
    size_t limit;       /* entries kept at most; the rest are counted in dropped */
    size_t dropped;
    Status worst;
    bool oom;           /* an entry could not be recorded */
} Diag;

void diag_init(Diag *d, const char *file);
void diag_finish(Diag *d);
/* Records one finding. where may be NULL. Returns status (so callers can `return diag_..`). */
Status diag_add(Diag *d, Status status, const char *rule, const char *where,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Same, about an edge: fills edge_id and the where text "edge N". (About a block:
 * diag_block, diag_block.h.) */
Status diag_edge(Diag *d, Status status, const char *rule, int32_t edge_id,
                 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* What diag_add, diag_edge and diag_block record through: one entry, taking ownership of where
 * (may be NULL), with block_id / edge_id when has_block / has_edge. Returns status. */
Status diag_vadd(Diag *d, Status status, const char *rule, char *where, bool has_block,
                 int32_t block_id, bool has_edge, int32_t edge_id, const char *fmt, va_list ap);
/* Puts prefix before the where of the entries from index from on ("prefix: where", or prefix
 * alone for an entry without one): e.g. which --input NAME a .npy file's findings are about.
 * Out of memory leaves an entry's where as it was and sets d->oom. */
void diag_prefix_where(Diag *d, size_t from, const char *prefix);
/* Prints every entry, one line each, prefixed "tool: file: ". */
void diag_print(const Diag *d, FILE *out, const char *tool);
/* Index of the first entry with this rule id, or -1. */
long diag_find(const Diag *d, const char *rule);

#endif
