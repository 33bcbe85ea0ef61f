/* print_map.c: a Mapping for taskir-dump: the graph as the graph printers print it, then the
 * space-time coordinates of every dict, in file order; and the summary.
 *
 * Text (after print_graph's text, or print_block's with --block):
 *   <blank>
 *   mapping: N node dicts, M edge dicts, C coordinates, prediction_clock P|absent
 *   <blank>
 *   node_map_dicts[I] -> block ID TYPE 'name': K coordinates     (or: block ID (no such block))
 *     J: chip_array X,Y chip X,Y core X,Y step_group G phase_group H step S phase P
 *        end_phase E|- pi NAME|-|VALUE                             (one line a coordinate)
 *   edge_map_dicts[I] -> edge ID (SRC -> DST): K coordinates     (or: edge ID (no such edge))
 *   unmapped: block 1 INPUT 'data', block 25 OUTPUT 'logits'      (or: unmapped: none)
 * JSON: {"graph": <print_graph's (or print_block's) JSON>,
 *        "mapping": {"prediction_clock": P|null,
 *                    "node_map_dicts": [{"index", "task_id", "block": {"type", "name"}|null,
 *                                        "coordinates": [COORD]}],
 *                    "edge_map_dicts": [{"index", "task_id", "edge": {"src", "dst"}|null,
 *                                        "coordinates": [COORD]}],
 *                    "unmapped_blocks": [ID...]}}
 *   COORD: {"chip_array": {"x", "y"}, "chip": {"x", "y"}, "step_group", "phase_group",
 *           "core": {"x", "y"}, "step", "phase", "end_phase": E|null,
 *           "pi_index": "AXON"|null|VALUE (a number when it is not a PIIndex)}
 * With --block ID only the node dicts naming ID and the edge dicts of the edges that touch
 * it; "unmapped" then says whether that block is. DOT shows the graph alone.
 *
 * Summary: the graph's (print_summary), then what the node coordinates use:
 *   mapping
 *     node_map_dicts N / edge_map_dicts M / node coordinates C / edge coordinates E
 *     mapped blocks K / unmapped blocks U    (blocks with / without a coordinate)
 *     cores K      distinct (chip_array, chip, core)
 *     steps K      distinct step values
 *     phases K     distinct phase values
 *     prediction_clock P|absent
 * JSON: {"graph": <summary JSON>, "mapping": {"node_map_dicts", "edge_map_dicts",
 *        "node_coordinates", "edge_coordinates", "mapped_blocks", "unmapped_blocks", "cores",
 *        "steps", "phases", "prediction_clock"}}.
 * Like the graph printers these print any mapping the loader accepts (ids may dangle). */
#include "taskir/mapping.h"

#include "taskir/print_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

/* ---- shared ---- */

/* The graph's printed output (print_graph / print_block / print_summary) in a buffer. */
typedef struct Captured {
    char *buf;
    size_t len;
} Captured;

static Status capture(const Mapping *m, PrintFormat f, int what, int32_t block, Captured *c,
                      Diag *d)
{
    c->buf = NULL;
    c->len = 0;
    FILE *ms = open_memstream(&c->buf, &c->len);
    if (!ms)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "cannot buffer the output: %s",
                        strerror(errno));
    Status st = what == 0   ? print_graph(m->graph, f, ms, d)
                : what == 1 ? print_block(m->graph, block, f, ms, d)
                            : print_summary(m->graph, f, ms, d);
    if (fclose(ms) != 0 && st == ST_OK)
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "cannot buffer the output");
    if (st != ST_OK) {
        free(c->buf);
        c->buf = NULL;
    }
    return st;
}

/* Writes a captured JSON document as a value nested one level (2 spaces) deep, without its
 * final newline. json-c escapes newlines inside strings, so each raw one is a line break. */
static void put_nested(FILE *out, const Captured *c)
{
    size_t len = c->len;
    if (len && c->buf[len - 1] == '\n')
        len--;
    const char *s = c->buf, *end = c->buf + len;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        size_t n = nl ? (size_t)(nl - s) + 1 : (size_t)(end - s);
        fwrite(s, 1, n, out);
        if (nl)
            fputs("  ", out);
        s += n;
    }
}

/* Total coordinates of dicts that name block position pos, per position. */
static uint32_t *coords_per_block(const Mapping *m)
{
    const Graph *g = m->graph;
    uint32_t *n = calloc(g->n_blocks ? g->n_blocks : 1, sizeof *n);
    for (uint32_t i = 0; n && i < m->n_nodes; i++) {
        long pos = graph_block_pos(g, m->nodes[i].task_id);
        if (pos >= 0)
            n[pos] = m->nodes[i].n_coords > UINT32_MAX - n[pos] ? UINT32_MAX
                                                                 : n[pos] + m->nodes[i].n_coords;
    }
    return n;
}

static bool block_mapped(const Mapping *m, const uint32_t *per, const Block *b)
{
    long pos = graph_block_pos(m->graph, b->id);
    return pos >= 0 && per[pos] > 0;
}

static uint64_t total_coords(const MapDict *v, uint32_t n)
{
    uint64_t t = 0;
    for (uint32_t i = 0; i < n; i++)
        t += v[i].n_coords;
    return t;
}

/* With a block filter: does node dict i / edge dict i belong to the block? */
static bool node_shown(const Mapping *m, bool has_block, int32_t block, uint32_t i)
{
    return !has_block || m->nodes[i].task_id == block;
}

static bool edge_shown(const Mapping *m, bool has_block, int32_t block, uint32_t i)
{
    if (!has_block)
        return true;
    const Edge *e = graph_edge(m->graph, m->edges[i].task_id);
    return e && (e->src == block || e->dst == block);
}

/* ---- text ---- */

static void text_block_ref(FILE *out, const Block *b)
{
    fprintf(out, "block %d %s", (int)b->id, bt_info(b->type)->name);
    if (b->name) {
        fputc(' ', out);
        print_quoted(out, b->name);
    }
}

static void text_coord(FILE *out, uint32_t k, const MapCoord *c)
{
    fprintf(out,
            "  %" PRIu32 ": chip_array %" PRId32 ",%" PRId32 " chip %" PRId32 ",%" PRId32
            " core %" PRId32 ",%" PRId32 " step_group %" PRId32 " phase_group %" PRId32
            " step %" PRId32 " phase %" PRId32,
            k, c->chip_array.x, c->chip_array.y, c->chip.x, c->chip.y, c->core.x, c->core.y,
            c->step_group, c->phase_group, c->step, c->phase);
    if (c->has_end_phase)
        fprintf(out, " end_phase %" PRId32, c->end_phase);
    else
        fputs(" end_phase -", out);
    if (!c->has_pi_index)
        fputs(" pi -\n", out);
    else if (mapping_pi_name(c->pi_index))
        fprintf(out, " pi %s\n", mapping_pi_name(c->pi_index));
    else
        fprintf(out, " pi %" PRId32 "\n", c->pi_index);
}

static void text_dict(FILE *out, const MapDict *dict)
{
    fprintf(out, ": %" PRIu32 " coordinate%s\n", dict->n_coords, dict->n_coords == 1 ? "" : "s");
    for (uint32_t k = 0; k < dict->n_coords; k++)
        text_coord(out, k, &dict->coords[k]);
}

static void text_mapping(const Mapping *m, bool has_block, int32_t block, const uint32_t *per,
                         FILE *out)
{
    fprintf(out, "\nmapping: %" PRIu32 " node dicts, %" PRIu32 " edge dicts, %" PRIu64
                 " coordinates, prediction_clock ",
            m->n_nodes, m->n_edges,
            total_coords(m->nodes, m->n_nodes) + total_coords(m->edges, m->n_edges));
    if (m->has_prediction_clock)
        fprintf(out, "%" PRId32 "\n\n", m->prediction_clock);
    else
        fputs("absent\n\n", out);
    for (uint32_t i = 0; i < m->n_nodes; i++) {
        if (!node_shown(m, has_block, block, i))
            continue;
        const MapDict *dict = &m->nodes[i];
        fprintf(out, "node_map_dicts[%" PRIu32 "] -> ", i);
        const Block *b = graph_block(m->graph, dict->task_id);
        if (b)
            text_block_ref(out, b);
        else
            fprintf(out, "block %" PRId32 " (no such block)", dict->task_id);
        text_dict(out, dict);
    }
    for (uint32_t i = 0; i < m->n_edges; i++) {
        if (!edge_shown(m, has_block, block, i))
            continue;
        const MapDict *dict = &m->edges[i];
        fprintf(out, "edge_map_dicts[%" PRIu32 "] -> edge %" PRId32, i, dict->task_id);
        const Edge *e = graph_edge(m->graph, dict->task_id);
        if (e)
            fprintf(out, " (%" PRId32 " -> %" PRId32 ")", e->src, e->dst);
        else
            fputs(" (no such edge)", out);
        text_dict(out, dict);
    }
    fputs("unmapped:", out);
    bool any = false;
    for (uint32_t i = 0; i < m->graph->n_blocks; i++) {
        const Block *b = m->graph->blocks[i];
        if ((has_block && b->id != block) || block_mapped(m, per, b))
            continue;
        fputs(any ? ", " : " ", out);
        text_block_ref(out, b);
        any = true;
    }
    fputs(any ? "\n" : " none\n", out);
}

/* ---- JSON ---- */

static json_object *json_xy(PrintJson *J, MapXY v)
{
    json_object *o = pj_obj(J);
    pj_set(J, o, "x", pj_int(J, v.x));
    pj_set(J, o, "y", pj_int(J, v.y));
    return o;
}

static json_object *json_coord(PrintJson *J, const MapCoord *c)
{
    json_object *o = pj_obj(J);
    pj_set(J, o, "chip_array", json_xy(J, c->chip_array));
    pj_set(J, o, "chip", json_xy(J, c->chip));
    pj_set(J, o, "step_group", pj_int(J, c->step_group));
    pj_set(J, o, "phase_group", pj_int(J, c->phase_group));
    pj_set(J, o, "core", json_xy(J, c->core));
    pj_set(J, o, "step", pj_int(J, c->step));
    pj_set(J, o, "phase", pj_int(J, c->phase));
    if (c->has_end_phase)
        pj_set(J, o, "end_phase", pj_int(J, c->end_phase));
    else
        pj_set_null(J, o, "end_phase");
    if (!c->has_pi_index)
        pj_set_null(J, o, "pi_index");
    else if (mapping_pi_name(c->pi_index))
        pj_set(J, o, "pi_index", pj_str(J, mapping_pi_name(c->pi_index)));
    else
        pj_set(J, o, "pi_index", pj_int(J, c->pi_index));
    return o;
}

static json_object *json_dict(PrintJson *J, const Mapping *m, bool edge, uint32_t i)
{
    const MapDict *dict = edge ? &m->edges[i] : &m->nodes[i];
    json_object *o = pj_obj(J);
    pj_set(J, o, "index", pj_int(J, i));
    pj_set(J, o, "task_id", pj_int(J, dict->task_id));
    if (edge) {
        const Edge *e = graph_edge(m->graph, dict->task_id);
        if (e) {
            json_object *eo = pj_obj(J);
            pj_set(J, eo, "src", pj_int(J, e->src));
            pj_set(J, eo, "dst", pj_int(J, e->dst));
            pj_set(J, o, "edge", eo);
        } else {
            pj_set_null(J, o, "edge");
        }
    } else {
        const Block *b = graph_block(m->graph, dict->task_id);
        if (b) {
            json_object *bo = pj_obj(J);
            pj_set(J, bo, "type", pj_str(J, bt_info(b->type)->name));
            pj_set_str(J, bo, "name", b->name);
            pj_set(J, o, "block", bo);
        } else {
            pj_set_null(J, o, "block");
        }
    }
    json_object *cs = pj_arr(J);
    for (uint32_t k = 0; k < dict->n_coords && !J->oom; k++)
        pj_push(J, cs, json_coord(J, &dict->coords[k]));
    pj_set(J, o, "coordinates", cs);
    return o;
}

/* The dict list streamed one dict at a time (as print_json_graph streams its blocks). */
static void json_dicts(PrintJson *J, const Mapping *m, bool edge, bool has_block,
                       int32_t block, FILE *out)
{
    fprintf(out, "    \"%s\": [", edge ? "edge_map_dicts" : "node_map_dicts");
    bool first = true;
    uint32_t n = edge ? m->n_edges : m->n_nodes;
    for (uint32_t i = 0; i < n && !J->oom; i++) {
        if (edge ? !edge_shown(m, has_block, block, i) : !node_shown(m, has_block, block, i))
            continue;
        fputs(first ? "\n      " : ",\n      ", out);
        first = false;
        pj_emit(J, json_dict(J, m, edge, i), out, 6);
    }
    fputs(first ? "],\n" : "\n    ],\n", out);
}

static void json_mapping(PrintJson *J, const Mapping *m, bool has_block, int32_t block,
                         const uint32_t *per, FILE *out)
{
    fputs("  \"mapping\": {\n    \"prediction_clock\": ", out);
    if (m->has_prediction_clock)
        fprintf(out, "%" PRId32 ",\n", m->prediction_clock);
    else
        fputs("null,\n", out);
    json_dicts(J, m, false, has_block, block, out);
    json_dicts(J, m, true, has_block, block, out);
    json_object *um = pj_arr(J);
    for (uint32_t i = 0; i < m->graph->n_blocks && !J->oom; i++) {
        const Block *b = m->graph->blocks[i];
        if ((!has_block || b->id == block) && !block_mapped(m, per, b))
            pj_push(J, um, pj_int(J, b->id));
    }
    fputs("    \"unmapped_blocks\": ", out);
    pj_emit(J, um, out, 4);
    fputs("\n  }\n", out);
}

Status print_mapping(const Mapping *m, PrintFormat f, bool has_block, int32_t block, FILE *out,
                     Diag *d)
{
    if (f == PF_DOT)
        return has_block ? print_block(m->graph, block, f, out, d)
                         : print_graph(m->graph, f, out, d);
    Captured c;
    Status st = capture(m, f, has_block ? 1 : 0, block, &c, d);
    if (st != ST_OK)
        return st;
    uint32_t *per = coords_per_block(m);
    if (!per) {
        free(c.buf);
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory printing the mapping");
    }
    PrintJson J = {false};
    if (f == PF_TEXT) {
        fwrite(c.buf, 1, c.len, out);
        text_mapping(m, has_block, block, per, out);
    } else {
        fputs("{\n  \"graph\": ", out);
        put_nested(out, &c);
        fputs(",\n", out);
        json_mapping(&J, m, has_block, block, per, out);
        fputs("}\n", out);
    }
    free(per);
    free(c.buf);
    if (J.oom)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory building the JSON output");
    return print_check_stream(out, d);
}

/* ---- summary ---- */

typedef struct MapSummary {
    uint64_t node_coords, edge_coords;
    uint32_t mapped, unmapped;
    uint64_t cores, steps, phases;
} MapSummary;

static int cmp_i32x6(const void *a, const void *b)
{
    return memcmp(a, b, 6 * sizeof(int32_t)); /* equality is all that matters */
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

/* Distinct elements of a sorted array of n elements of size bytes. */
static uint64_t distinct(const void *v, size_t n, size_t size)
{
    const char *p = v;
    uint64_t k = n ? 1 : 0;
    for (size_t i = 1; i < n; i++)
        k += memcmp(p + (i - 1) * size, p + i * size, size) != 0;
    return k;
}

static bool summarize_map(const Mapping *m, MapSummary *s)
{
    memset(s, 0, sizeof *s);
    s->node_coords = total_coords(m->nodes, m->n_nodes);
    s->edge_coords = total_coords(m->edges, m->n_edges);
    uint32_t *per = coords_per_block(m);
    if (!per)
        return false;
    for (uint32_t i = 0; i < m->graph->n_blocks; i++) {
        if (block_mapped(m, per, m->graph->blocks[i]))
            s->mapped++;
        else
            s->unmapped++;
    }
    free(per);
    size_t n = (size_t)s->node_coords;
    if (s->node_coords > SIZE_MAX / (6 * sizeof(int32_t)))
        return false;
    int32_t *cores = malloc((n ? n : 1) * 6 * sizeof *cores);
    int32_t *steps = malloc((n ? n : 1) * sizeof *steps);
    int32_t *phases = malloc((n ? n : 1) * sizeof *phases);
    bool ok = cores && steps && phases;
    size_t k = 0;
    for (uint32_t i = 0; ok && i < m->n_nodes; i++)
        for (uint32_t j = 0; j < m->nodes[i].n_coords; j++, k++) {
            const MapCoord *c = &m->nodes[i].coords[j];
            int32_t *key = &cores[k * 6];
            key[0] = c->chip_array.x, key[1] = c->chip_array.y, key[2] = c->chip.x;
            key[3] = c->chip.y, key[4] = c->core.x, key[5] = c->core.y;
            steps[k] = c->step;
            phases[k] = c->phase;
        }
    if (ok) {
        qsort(cores, n, 6 * sizeof *cores, cmp_i32x6);
        qsort(steps, n, sizeof *steps, cmp_i32);
        qsort(phases, n, sizeof *phases, cmp_i32);
        s->cores = distinct(cores, n, 6 * sizeof *cores);
        s->steps = distinct(steps, n, sizeof *steps);
        s->phases = distinct(phases, n, sizeof *phases);
    }
    free(cores);
    free(steps);
    free(phases);
    return ok;
}

Status print_map_summary(const Mapping *m, PrintFormat f, FILE *out, Diag *d)
{
    if (f == PF_DOT)
        return diag_add(d, ST_USAGE, "usage.format", NULL,
                        "the summary is printed as text or JSON, not DOT");
    MapSummary s;
    if (!summarize_map(m, &s))
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory summarizing the mapping");
    Captured c;
    Status st = capture(m, f, 2, 0, &c, d);
    if (st != ST_OK)
        return st;
    if (f == PF_TEXT) {
        fwrite(c.buf, 1, c.len, out);
        fprintf(out,
                "mapping\n  node_map_dicts %" PRIu32 "\n  edge_map_dicts %" PRIu32
                "\n  node coordinates %" PRIu64 "\n  edge coordinates %" PRIu64
                "\n  mapped blocks %" PRIu32 "\n  unmapped blocks %" PRIu32 "\n  cores %" PRIu64
                "\n  steps %" PRIu64 "\n  phases %" PRIu64 "\n",
                m->n_nodes, m->n_edges, s.node_coords, s.edge_coords, s.mapped, s.unmapped,
                s.cores, s.steps, s.phases);
        if (m->has_prediction_clock)
            fprintf(out, "  prediction_clock %" PRId32 "\n", m->prediction_clock);
        else
            fputs("  prediction_clock absent\n", out);
    } else {
        fputs("{\n  \"graph\": ", out);
        put_nested(out, &c);
        fprintf(out,
                ",\n  \"mapping\": {\n    \"node_map_dicts\": %" PRIu32
                ",\n    \"edge_map_dicts\": %" PRIu32 ",\n    \"node_coordinates\": %" PRIu64
                ",\n    \"edge_coordinates\": %" PRIu64 ",\n    \"mapped_blocks\": %" PRIu32
                ",\n    \"unmapped_blocks\": %" PRIu32 ",\n    \"cores\": %" PRIu64
                ",\n    \"steps\": %" PRIu64 ",\n    \"phases\": %" PRIu64
                ",\n    \"prediction_clock\": ",
                m->n_nodes, m->n_edges, s.node_coords, s.edge_coords, s.mapped, s.unmapped,
                s.cores, s.steps, s.phases);
        if (m->has_prediction_clock)
            fprintf(out, "%" PRId32 "\n  }\n}\n", m->prediction_clock);
        else
            fputs("null\n  }\n}\n", out);
    }
    free(c.buf);
    return print_check_stream(out, d);
}
