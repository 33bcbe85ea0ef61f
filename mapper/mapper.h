/* mapper.h: the mapper (docs/mapper.md): a TaskGraph onto the cores, phases and slots of a
 * chip array, with the edges routed and the memory, clocks and traffic predicted.
 *
 * mapper_plan works in five steps, one file each:
 *   prim.c      primitive selection: every compute block gets its P-code and unit from the
 *               chip description, its parameters checked against the primitive [map.prim.*]
 *   problem.c   the mapping problem: clusters of blocks that must share a core (a compute
 *               block with its input storage, the graph's groups), copies of storage read by
 *               several clusters, their aligned memory, the edges that may cross cores (one
 *               transfer per copy) with their real byte counts, a topological order
 *   schedule.c  clusters onto virtual cores and compute blocks onto phases and slots (Axon,
 *               Soma1, Router, Soma2 per core and phase), transfers onto receive phases under
 *               the receive budgets (xfer_clash.c: the phases a writer's overlapping boxes
 *               may not share); stages of max_phases phases when one is not enough
 *   place.c     virtual cores onto physical cores: Scotch maps the traffic graph onto the
 *               2-D mesh of the chip array, refine.c improves it by swaps under the real
 *               cost (bytes x XY hops), deterministic for a seed
 *   route.c     XY routes, multicast chains where one source feeds several cores
 * estimate.c then fills the figures per core and phase and the cost terms (mapper_score),
 * grid.c measures placements (the one scorer), emit.c writes the Mapping, report.c the JSON
 * report, svg.c the picture; plan.c runs the steps in order; rewrite.c rewrites a graph
 * into what the primitives run before it is planned.
 *
 * A MapPlan reads the graph and the chip it was made from: both must outlive it and stay
 * unchanged. The library never prints; findings go to the Diag.
 */
#ifndef TASKIR_MAPPER_H
#define TASKIR_MAPPER_H

#include "taskir/chip.h"
#include "taskir/diag.h"
#include "taskir/graph.h"
#include "taskir/mapping.h"
#include "taskir/progress.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* How virtual cores are placed onto physical cores. */
typedef enum {
    MAP_PLACE_REFINED,  /* Scotch, then swaps under the real cost (the default) */
    MAP_PLACE_SCOTCH,   /* Scotch alone (a baseline) */
    MAP_PLACE_SNAKE     /* snake order over the cores, row by row (a baseline) */
} MapPlaceKind;

#define MAPPER_MAX_EFFORT 3

typedef struct MapperOptions {
    uint64_t seed;              /* --seed: Scotch's and the refinement's random numbers */
    int effort;                 /* 0 .. MAPPER_MAX_EFFORT: refinement work (0: none) */
    MapPlaceKind place;
    const TirProgress *progress;/* "block" units of the schedule, then "move" units of the
                                   refinement; NULL: none */
} MapperOptions;

/* The defaults: seed 1, effort 1, MAP_PLACE_REFINED, no progress. */
void mapper_options_default(MapperOptions *o);

/* The cost terms of a plan (docs/mapper.md, "Cost model"). */
typedef struct MapCost {
    int64_t traffic;            /* byte x hops of every transfer between cores (multicast
                                   chains counted link by link) */
    int64_t traffic_unicast;    /* the same with every transfer sent from its source */
    int64_t bytes_crossing;     /* bytes moved between cores (each destination once) */
    int64_t offchip_in;         /* bytes received from off chip (INPUT sockets) */
    int64_t offchip_out;        /* bytes sent off chip (OUTPUT sockets) */
    int64_t step_clock;         /* the predicted clock of one step */
    int64_t mem_bytes;          /* aligned bytes of every core together */
    uint32_t cores;             /* cores used */
    uint32_t chips;             /* chips used */
    uint32_t phases;            /* phases of a step */
    uint32_t stages;            /* phase groups (stages of the schedule) */
} MapCost;

typedef struct MapPlan MapPlan;

/* The mapper's rewrites (rewrite.c, docs/mapper.md "Rewrites"): makes g runnable by the
 * chip's primitives where a documented rewrite exists (an Axon reading an Axon's output gets
 * a Soma copy in between), keeping g's outputs bit for bit. *n_rewrites gets how many were
 * made. ST_RUNTIME when out of memory (g is then unusable). */
Status mapper_rewrite(Graph *g, const Chip *c, uint32_t *n_rewrites, Diag *d);

/* A result's storage before the OUTPUTs in its writer's shape (out_store.c, docs/mapper.md
 * "Algorithm"): an SI written through a RESHAPE in C order and read by OUTPUTs only, which
 * takes more than half a core, holds the writer's box as it is (INT_32), the RESHAPE moving
 * to the edges to the OUTPUTs, when that takes fewer bytes (7998 one-channel pixels of a
 * flatten: 86 of 93 channels).
 * Keeps g's outputs bit for bit; *n_rewrites gets how many. ST_RUNTIME when out of memory. */
Status mapper_out_store(Graph *g, const Chip *c, uint32_t *n_rewrites, Diag *d);

/* A model input's own store where a compute block writes the same map (in_store.c,
 * docs/mapper.md "Algorithm"): an INPUT edge into an 8-bit map that a compute block writes
 * too, whose values the input's dynamic blocks cannot place in the map's own layout
 * (layout_input_unplaced, taskir/layout.h), is written instead by a Soma copy (a CCMPB that
 * clips nothing) of an SI the INPUT writes whole. Keeps g's outputs bit for bit; *n_rewrites
 * gets how many INPUTs. ST_RUNTIME when out of memory. */
Status mapper_in_store(Graph *g, const Chip *c, uint32_t *n_rewrites, Diag *d);

/* A global extreme over y whose input a core cannot hold, in two stages (window.c,
 * docs/mapper.md "Algorithm"): a CCMPB / CCMPS of window ky = iy and one output row reads the
 * extremes of rows of a (a block of its kind, window a, stride a, no shift or clip) and
 * takes the window ky / a over them: the same values. *n_rewrites gets how many. ST_RUNTIME
 * when out of memory. */
Status mapper_window(Graph *g, const Chip *c, uint32_t *n_rewrites, Diag *d);

/* The chip-exactness rewrites (exact.c, docs/exactness.md "Rewrites"): where the chip's
 * arithmetic would differ from g's (taskir/exact.h), rewrites g into what the chip computes
 * exactly when the interval analysis proves it exact (a precision the chip encodes, a
 * narrowing P05, an odd shift through a CVS x 2), with one warning per kind of rewrite;
 * *n_rewrites gets how many blocks were rewritten. ST_LOGIC, naming each block and its rule
 * (map.exact.*), when a difference is left. ST_RUNTIME when out of memory. */
Status mapper_exact(Graph *g, const Chip *c, uint32_t *n_rewrites, Diag *d);

/* Maps g onto chip c: selects primitives, schedules, places and routes. g must be a verified,
 * compacted graph. ST_LOGIC (naming the block and the rule, map.* in docs/rules.md) when the
 * chip cannot run it: no primitive, a group over the core's memory, too many phases, too
 * many chips; ST_RUNTIME when out of memory or Scotch fails. *out is NULL on failure. */
Status mapper_plan(const Graph *g, const Chip *c, const MapperOptions *o, MapPlan **out,
                   Diag *d);
void mapper_plan_destroy(MapPlan *p); /* accepts NULL */

/* The cost terms of the plan (computed once by mapper_plan). */
void mapper_score(const MapPlan *p, MapCost *out);
/* The traffic (byte x hops) that the plan's virtual cores would cause under another
 * placement: MAP_PLACE_SNAKE or MAP_PLACE_SCOTCH with this seed; with multicast chains
 * routed as the plan's (the same scorer as mapper_score's traffic) or unicast (as its
 * traffic_unicast). -1 when out of memory or Scotch fails. */
int64_t mapper_baseline_traffic(const MapPlan *p, MapPlaceKind kind, uint64_t seed,
                                bool multicast);

/* The Mapping of the plan, which takes ownership of g (the graph the plan was made from; the
 * plan must not be used once the mapping is destroyed). On failure g is destroyed too. */
Status mapper_emit(const MapPlan *p, Graph *g, Mapping **out, Diag *d);
/* Writes the JSON report (docs/mapper.md, "Report") to out. ST_RUNTIME on OOM or I/O. */
Status mapper_report_json(const MapPlan *p, FILE *out, Diag *d);
/* How the SVG colours the cores. */
typedef enum { MAP_SVG_MEMORY, MAP_SVG_CLOCKS } MapSvgColour;
/* Writes the SVG picture of the chip array (docs/mapper.md, "Picture") to out. */
Status mapper_svg(const MapPlan *p, MapSvgColour colour, FILE *out, Diag *d);

#endif
