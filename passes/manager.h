/* manager.h: the pass manager (docs/passes.md, "The pass manager"): a pass list parsed and
 * checked against the table, then run over a graph with the per-pass services a compiler
 * engineer expects: the verifier after each pass, a text dump after chosen passes (as LLVM's
 * -print-after), timing and a progress report.
 *
 * Properties (pass.h PROP_*): a plan starts from none (a loaded graph is assumed to have
 * none); after each pass the graph has what it had, minus what the pass invalidates, plus
 * what it guarantees. A pass whose requires are not all there at its turn makes the list a
 * usage error naming the pass, the property and a pass that guarantees it.
 */
#ifndef TASKIR_PASSES_MANAGER_H
#define TASKIR_PASSES_MANAGER_H

#include "passes/pass.h"
#include "taskir/progress.h"

#include <stdbool.h>
#include <stdio.h>

/* A checked list of passes. */
typedef struct PassPlan {
    const PassInfo **passes;   /* malloc'd */
    size_t n;
    bool *dump;                /* per entry: dump the graph after it (pass_plan_dump_after) */
} PassPlan;

/* What one pass did, measured by pass_plan_run. */
typedef struct PassStat {
    double seconds;                    /* wall clock */
    uint32_t blocks[2], edges[2], groups[2]; /* before, after */
} PassStat;

typedef struct PassRunOptions {
    bool verify_each;          /* run the verifier after each pass [pass.verify] */
    FILE *dump;                /* where the dumps go (the plan's dump flags); NULL: none */
    const TirProgress *progress; /* "pass" k of n, after each pass; may be NULL */
    PassStat *stats;           /* plan->n entries to fill, or NULL */
} PassRunOptions;

/* Parses a comma-separated list of pass names ("dce,group") into p and checks each pass's
 * requires (see the top of this file). Usage errors (ST_USAGE): an empty list or name, an
 * unknown pass [usage.passes], a requirement not met [usage.passes.requires]. p is empty on
 * failure; ST_RUNTIME when out of memory. */
Status pass_plan_parse(const char *list, PassPlan *p, Diag *d);
void pass_plan_finish(PassPlan *p);
/* The requires check of pass_plan_parse over passes[0..n): ST_OK, or a usage error
 * [usage.passes.requires] naming the first pass whose requires are not met, the property,
 * and a pass of the table that guarantees it. */
Status pass_plan_check(const PassInfo *const *passes, size_t n, Diag *d); /* leaves p empty; accepts an empty one */
/* Is a pass of this name in the plan? */
bool pass_plan_has(const PassPlan *p, const char *name);
/* Sets the dump flags from a comma list of pass names of the plan, or "all". A name that is
 * no pass of the plan is a usage error [usage.dump]. */
Status pass_plan_dump_after(PassPlan *p, const char *list, Diag *d);

/* The names of the properties in mask, comma-separated ("fits,grouped"), into buf; "-" for
 * none. */
const char *pass_props_name(unsigned mask, char *buf, size_t len);

/* Runs the plan's passes over g in order (see PassRunOptions). The first failing pass stops
 * the run; its findings say why, prefixed by nothing (a pass names itself). A failed
 * verification after a pass is a runtime error (a bug of the pass) [pass.verify], with the
 * verifier's findings. On failure the graph is unusable. */
Status pass_plan_run(const PassPlan *p, Graph *g, const PassOptions *o,
                     const PassRunOptions *r, Diag *d);

#endif
