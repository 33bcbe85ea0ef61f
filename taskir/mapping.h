/* mapping.h: a Mapping (.map.pb) — a TaskGraph placed on cores in space and time — as a small
 * working structure apart from the wire structs: the embedded graph in the ordinary Graph IR,
 * the space-time coordinates of blocks (node_map_dicts) and edges (edge_map_dicts), and the
 * predicted clock. Loading (mapping.c) goes through the TaskGraph loading path of pbio.h with the
 * same discipline: caps, nesting, counts and decode memory checked on the bytes before
 * protobuf-c allocates; malformed bytes are logic errors naming the byte offset and the field
 * path [wire.*]. Saving is canonical and deterministic (docs/formats.md, "Mapping .map.pb").
 * verify_map.c checks the map.* rules of docs/rules.md; print_map.c prints a Mapping for
 * taskir-dump. */
#ifndef TASKIR_MAPPING_H
#define TASKIR_MAPPING_H

#include "taskir/graph.h"
#include "taskir/print.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Caps enforced while loading (docs/limits.md), besides the TaskGraph caps of pbio.h. */
#define MAP_MAX_DICTS (1u << 22)    /* node_map_dicts, and edge_map_dicts, of one Mapping */
#define MAP_MAX_COORDS 65536u       /* space-time coordinates of one dict */
#define MAP_MAX_TOTAL_COORDS (1u << 24) /* space-time coordinates of all dicts together */

/* PIIndex, the phase slot a coordinate occupies (wire values of docs/wire.md; the
 * unit test checks them against protobuf-c's generated enum). X(NAME, wire value). */
#define MAP_PI_TABLE(X) \
    X(AXON, 1)          \
    X(SOMA1, 2)         \
    X(ROUTER_RECIEVE, 3) /* sic: the existing tools' spelling */ \
    X(ROUTER_SEND, 4)   \
    X(SOMA2, 5)         \
    X(MEMORY, 6)

/* The PIIndex wire values as constants: MAP_PI_AXON, MAP_PI_SOMA1, MAP_PI_ROUTER_RECIEVE,
 * MAP_PI_ROUTER_SEND, MAP_PI_SOMA2, MAP_PI_MEMORY. */
enum {
#define MAP_PI_ENUM(name, wire) MAP_PI_##name = wire,
    MAP_PI_TABLE(MAP_PI_ENUM)
#undef MAP_PI_ENUM
};

/* The name of a PIIndex wire value, or NULL when it is not one. */
const char *mapping_pi_name(int32_t wire);
/* The wire value of a PIIndex name; false when there is no such name. */
bool mapping_pi_from_name(const char *name, int32_t *wire);

typedef struct MapXY {
    int32_t x, y;
} MapXY;

/* One SpaceTimeCoordinate. Absent fields read as 0, except the two with has_ flags. */
typedef struct MapCoord {
    MapXY chip_array, chip, core;
    int32_t step_group, phase_group;
    int32_t step, phase;
    int32_t end_phase;          /* meaningful when has_end_phase; absent: the same as phase */
    bool has_end_phase;
    int32_t pi_index;           /* the PIIndex wire value as read (the verifier checks it) */
    bool has_pi_index;
} MapCoord;

/* One MappingDict: the coordinates of one task. A node dict's task_id is a block id; an edge
 * dict's task_id is an edge id (Edge.id, the number interfaces name an edge by). */
typedef struct MapDict {
    int32_t task_id;            /* absent reads as 0 */
    MapCoord *coords;
    uint32_t n_coords;
} MapDict;

typedef struct Mapping {
    Graph *graph;               /* never NULL; an absent graph field is an empty graph */
    Arena *arena;               /* the dicts and coordinates */
    MapDict *nodes;             /* node_map_dicts, in file order */
    uint32_t n_nodes, cap_nodes;
    MapDict *edges;             /* edge_map_dicts, in file order */
    uint32_t n_edges, cap_edges;
    int32_t prediction_clock;   /* estimated clock cycles of one step */
    bool has_prediction_clock;
} Mapping;

/* An empty mapping (an empty graph, no dicts); NULL when out of memory. */
Mapping *mapping_create(void);
void mapping_destroy(Mapping *m); /* accepts NULL */
/* Appends a dict to m's node (edge false) or edge dicts with n_coords zeroed coordinates.
 * NULL when out of memory. */
MapDict *mapping_add_dict(Mapping *m, bool edge, int32_t task_id, uint32_t n_coords);

/* Decodes a Mapping from bytes. On success *out is a new mapping (mapping_destroy it). */
Status mapping_load_pb_mem(const uint8_t *buf, size_t len, Mapping **out, Diag *d);
/* Reads and decodes a file ("-" = stdin). */
Status mapping_load_pb(const char *path, Mapping **out, Diag *d);
/* Encodes the mapping into a malloc'd buffer: the graph as graph_pack writes it, then the
 * space-time mapping and the clock (canonical form, docs/formats.md). */
Status mapping_pack(const Mapping *m, uint8_t **buf, size_t *len, Diag *d);
/* Encodes and writes atomically ("-" = stdout). */
Status mapping_save_pb(const Mapping *m, const char *path, Diag *d);

/* Do the bytes look like a Mapping rather than a TaskGraph? Decided by the first field alone
 * (docs/formats.md, "Telling a Mapping from a TaskGraph"); never fails, reads at most the
 * first few bytes. */
bool mapping_looks_like(const uint8_t *buf, size_t len);
/* Does the path name a Mapping by its suffix (".map.pb")? */
bool mapping_path_looks_like(const char *path);

/* Checks the mapping: the graph against every rule of verify_graph, then the map.* rules of
 * docs/rules.md. Records every finding; ST_OK, ST_LOGIC when any rule is broken, ST_RUNTIME
 * when out of memory. Never modifies the mapping. */
Status verify_mapping(const Mapping *m, Diag *d);
/* The same, and when chip is not NULL also the rules that need the chip description
 * (verify_map_chip.h): the cores, phases and groups it has, memory and receive budgets. */
struct Chip;
Status verify_mapping_on(const Mapping *m, const struct Chip *chip, Diag *d);

/* Prints the graph (print_graph) and then every dict's coordinates: PF_TEXT appends a
 * "mapping" section, PF_JSON writes {"graph": ..., "mapping": ...}, PF_DOT the graph alone.
 * With has_block, only that block (print_block) and its node dicts [dump.block]. */
Status print_mapping(const Mapping *m, PrintFormat f, bool has_block, int32_t block, FILE *out,
                     Diag *d);
/* The graph's summary (print_summary) and what the mapping uses: cores, steps, phases,
 * mapped and unmapped blocks, prediction_clock. PF_TEXT or PF_JSON. */
Status print_map_summary(const Mapping *m, PrintFormat f, FILE *out, Diag *d);

#endif
