/* mapping.c: Mapping .map.pb <-> Mapping. With pbio.c and pbwire.c the only file that touches the
 * generated Taskir__* structs.
 *
 * Loading: the bytes are prechecked as a whole Mapping (pb_wire_precheck with the TaskGraph caps
 * of pbio.h plus the dict and coordinate caps below, and the decode-memory estimate), unpacked
 * once by protobuf-c, and the embedded TaskGraph goes through pbio.c's own loading path
 * (graph_from_pb): so every message about the graph is the one a TaskGraph file would get, and
 * byte offsets and field paths count from the start of the Mapping file.
 *
 * Saving (canonical form, docs/formats.md): field 1, the graph, always, as graph_pack encodes
 * it; field 2, the space-time mapping, always; field 3, prediction_clock, when set. Dicts and
 * coordinates in their order; each dict with every coordinate, then task_id; each coordinate
 * with space {chip_array {x y} chip {x y} step_group phase_group core {x y}} and time {step
 * phase [pi_index] [end_phase]}: every field written, pi_index and end_phase only when set.
 * The graph's bytes come from graph_pack, the rest from protobuf-c's pack; they are joined
 * behind the graph field's tag and length. */
#include "taskir/mapping.h"

#include "taskir/fileio.h"
#include "taskir/pbio.h"
#include "mapping.pb-c.h"

#include <stdlib.h>
#include <string.h>

/* ---- PIIndex ---- */

const char *mapping_pi_name(int32_t wire)
{
#define X(name, value) \
    if (wire == value) \
        return #name;
    MAP_PI_TABLE(X)
#undef X
    return NULL;
}

bool mapping_pi_from_name(const char *name, int32_t *wire)
{
#define X(n, value)                \
    if (strcmp(name, #n) == 0) {   \
        *wire = value;             \
        return true;               \
    }
    MAP_PI_TABLE(X)
#undef X
    return false;
}

/* ---- the structure ---- */

Mapping *mapping_create(void)
{
    Mapping *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->graph = graph_create();
    m->arena = arena_create();
    if (!m->graph || !m->arena) {
        mapping_destroy(m);
        return NULL;
    }
    return m;
}

void mapping_destroy(Mapping *m)
{
    if (!m)
        return;
    graph_destroy(m->graph);
    arena_destroy(m->arena);
    free(m);
}

MapDict *mapping_add_dict(Mapping *m, bool edge, int32_t task_id, uint32_t n_coords)
{
    MapDict **v = edge ? &m->edges : &m->nodes;
    uint32_t *n = edge ? &m->n_edges : &m->n_nodes;
    uint32_t *cap = edge ? &m->cap_edges : &m->cap_nodes;
    if (*n == *cap) {
        if (*cap >= UINT32_MAX / 2)
            return NULL;
        uint32_t nc = *cap ? *cap * 2 : 8;
        MapDict *g = arena_grow(m->arena, *v, *n, nc, sizeof **v);
        if (!g)
            return NULL;
        *v = g;
        *cap = nc;
    }
    MapDict *dict = &(*v)[*n];
    memset(dict, 0, sizeof *dict);
    dict->task_id = task_id;
    if (n_coords) {
        dict->coords = arena_alloc(m->arena, n_coords, sizeof *dict->coords);
        if (!dict->coords)
            return NULL;
        dict->n_coords = n_coords;
    }
    ++*n;
    return dict;
}

/* ---- telling a Mapping from a TaskGraph ---- */

/* Reads a varint at *p (< end); false when cut off or longer than 10 bytes. */
static bool rd_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    uint64_t r = 0;
    for (int i = 0; i < 10 && *p < end; i++) {
        uint8_t b = *(*p)++;
        r |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *v = r;
            return true;
        }
    }
    return false;
}

/* The first field decides. A Mapping's fields are graph (1) and space_time_mapping (2), both
 * messages whose own fields are all messages (blocks, edges, groups, test_config; node and
 * edge dicts), and prediction_clock (3), a varint. A TaskGraph's are blocks (1) and edges (2),
 * messages that start with a varint (their id, which the existing tools and taskir always
 * write), groups (3) and test_config (4), both length-delimited. */
bool mapping_looks_like(const uint8_t *buf, size_t len)
{
    const uint8_t *p = buf, *end = buf + len;
    uint64_t tag, n, inner;
    if (!buf || !rd_varint(&p, end, &tag))
        return false;
    uint64_t num = tag >> 3, wt = tag & 7;
    if (num == 3 && wt == 0)
        return true;
    if ((num != 1 && num != 2) || wt != 2 || !rd_varint(&p, end, &n) || n == 0)
        return false;
    if (n < (uint64_t)(end - p))
        end = p + n;
    return rd_varint(&p, end, &inner) && (inner & 7) == 2;
}

bool mapping_path_looks_like(const char *path)
{
    static const char suffix[] = ".map.pb";
    size_t n = path ? strlen(path) : 0, k = sizeof suffix - 1;
    return n > k && strcmp(path + n - k, suffix) == 0;
}

/* ---- loading ---- */

static const PbFieldCap map_caps[] = {
    {&taskir__space_time_mapping__descriptor, "node_map_dicts", MAP_MAX_DICTS, "limit.map"},
    {&taskir__space_time_mapping__descriptor, "edge_map_dicts", MAP_MAX_DICTS, "limit.map"},
    {&taskir__mapping_dict__descriptor, "space_time_coordinates", MAP_MAX_COORDS,
     "limit.coords"},
};

static MapXY xy_in(const Taskir__BiTuple *w)
{
    MapXY v = {0, 0};
    if (w) {
        v.x = w->has_x ? w->x : 0;
        v.y = w->has_y ? w->y : 0;
    }
    return v;
}

static void coord_in(const Taskir__SpaceTimeCoordinate *w, MapCoord *c)
{
    memset(c, 0, sizeof *c);
    const Taskir__SpaceCoordinate *s = w->space;
    const Taskir__TimeCoordinate *t = w->time;
    if (s) {
        c->chip_array = xy_in(s->chip_array);
        c->chip = xy_in(s->chip);
        c->core = xy_in(s->core);
        c->step_group = s->has_step_group ? s->step_group : 0;
        c->phase_group = s->has_phase_group ? s->phase_group : 0;
    }
    if (t) {
        c->step = t->has_step ? t->step : 0;
        c->phase = t->has_phase ? t->phase : 0;
        c->has_end_phase = t->has_end_phase;
        c->end_phase = t->has_end_phase ? t->end_phase : 0;
        c->has_pi_index = t->has_pi_index;
        c->pi_index = t->has_pi_index ? (int32_t)t->pi_index : 0;
    }
}

/* Copies n wire dicts into m's node (edge false) or edge dicts. */
static Status dicts_in(Mapping *m, bool edge, Taskir__MappingDict **w, size_t n, Diag *d)
{
    const char *what = edge ? "edge_map_dicts" : "node_map_dicts";
    if (n > MAP_MAX_DICTS)
        return diag_add(d, ST_LOGIC, "limit.map", NULL, "%zu %s, more than the limit of %u",
                        n, what, MAP_MAX_DICTS);
    if (!n)
        return ST_OK;
    MapDict *v = arena_alloc(m->arena, n, sizeof *v);
    if (!v)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory loading the mapping");
    for (size_t i = 0; i < n; i++) {
        const Taskir__MappingDict *wd = w[i];
        MapDict *dict = &v[i];
        dict->task_id = wd->has_task_id ? wd->task_id : 0;
        if (wd->n_space_time_coordinates > MAP_MAX_COORDS) {
            char where[48];
            snprintf(where, sizeof where, "%s[%zu]", what, i);
            return diag_add(d, ST_LOGIC, "limit.coords", where,
                            "%zu coordinates, more than the limit of %u",
                            wd->n_space_time_coordinates, MAP_MAX_COORDS);
        }
        if (!wd->n_space_time_coordinates)
            continue;
        dict->coords = arena_alloc(m->arena, wd->n_space_time_coordinates, sizeof(MapCoord));
        if (!dict->coords)
            return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory loading the mapping");
        dict->n_coords = (uint32_t)wd->n_space_time_coordinates;
        for (uint32_t k = 0; k < dict->n_coords; k++)
            coord_in(wd->space_time_coordinates[k], &dict->coords[k]);
    }
    if (edge) {
        m->edges = v;
        m->n_edges = m->cap_edges = (uint32_t)n;
    } else {
        m->nodes = v;
        m->n_nodes = m->cap_nodes = (uint32_t)n;
    }
    return ST_OK;
}

Status mapping_load_pb_mem(const uint8_t *buf, size_t len, Mapping **out, Diag *d)
{
    *out = NULL;
    if (len > TIR_MAX_FILE_BYTES)
        return diag_add(d, ST_LOGIC, "limit.file", NULL, "%zu bytes, more than the limit %zu",
                        len, TIR_MAX_FILE_BYTES);
    size_t n_graph_caps;
    const PbFieldCap *graph_caps = graph_pb_caps(&n_graph_caps);
    enum { N_MAP_CAPS = sizeof map_caps / sizeof map_caps[0], MAX_CAPS = 32 };
    PbFieldCap caps[MAX_CAPS];
    if (n_graph_caps + N_MAP_CAPS > MAX_CAPS)
        return diag_add(d, ST_RUNTIME, "internal", NULL, "%zu field caps, more than %d",
                        n_graph_caps + N_MAP_CAPS, MAX_CAPS);
    memcpy(caps, graph_caps, n_graph_caps * sizeof *caps);
    memcpy(caps + n_graph_caps, map_caps, sizeof map_caps);
    ProtobufCMessage *msg = NULL;
    Status st = pb_decode(&taskir__mapping__descriptor, buf, len, caps,
                          n_graph_caps + N_MAP_CAPS, "Mapping", &msg, d);
    if (st != ST_OK)
        return st;
    Taskir__Mapping *w = (Taskir__Mapping *)msg;
    Mapping *m = calloc(1, sizeof *m);
    if (!m || !(m->arena = arena_create())) {
        free(m);
        taskir__mapping__free_unpacked(w, NULL);
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory loading the mapping");
    }
    st = graph_from_pb(w->graph, &m->graph, d);
    const Taskir__SpaceTimeMapping *stm = w->space_time_mapping;
    /* the total, before the coordinates are copied (each dict's count is capped already) */
    uint64_t total = 0;
    for (size_t i = 0; stm && i < stm->n_node_map_dicts; i++)
        total += stm->node_map_dicts[i]->n_space_time_coordinates;
    for (size_t i = 0; stm && i < stm->n_edge_map_dicts; i++)
        total += stm->edge_map_dicts[i]->n_space_time_coordinates;
    if (st == ST_OK && total > MAP_MAX_TOTAL_COORDS)
        st = diag_add(d, ST_LOGIC, "limit.coords", NULL,
                      "%llu space-time coordinates in all, more than the limit of %u",
                      (unsigned long long)total, MAP_MAX_TOTAL_COORDS);
    if (st == ST_OK && stm)
        st = dicts_in(m, false, stm->node_map_dicts, stm->n_node_map_dicts, d);
    if (st == ST_OK && stm)
        st = dicts_in(m, true, stm->edge_map_dicts, stm->n_edge_map_dicts, d);
    m->has_prediction_clock = w->has_prediction_clock;
    m->prediction_clock = w->has_prediction_clock ? w->prediction_clock : 0;
    taskir__mapping__free_unpacked(w, NULL);
    if (st != ST_OK) {
        mapping_destroy(m);
        return st;
    }
    *out = m;
    return ST_OK;
}

Status mapping_load_pb(const char *path, Mapping **out, Diag *d)
{
    uint8_t *buf;
    size_t len;
    *out = NULL;
    Status st = tir_read_file(path, TIR_MAX_FILE_BYTES, &buf, &len, d);
    if (st != ST_OK)
        return st;
    st = mapping_load_pb_mem(buf, len, out, d);
    free(buf);
    return st;
}

/* ---- saving ---- */

#define NEW(a, T, init) map_new(a, sizeof(T), &(T)init)
static void *map_new(Arena *a, size_t size, const void *init)
{
    void *p = arena_alloc(a, 1, size);
    if (p)
        memcpy(p, init, size);
    return p;
}

static Taskir__BiTuple *xy_out(Arena *a, MapXY v)
{
    Taskir__BiTuple *w = NEW(a, Taskir__BiTuple, TASKIR__BI_TUPLE__INIT);
    if (w) {
        w->has_x = w->has_y = 1;
        w->x = v.x;
        w->y = v.y;
    }
    return w;
}

static Taskir__SpaceTimeCoordinate *coord_out(Arena *a, const MapCoord *c)
{
    Taskir__SpaceTimeCoordinate *w =
        NEW(a, Taskir__SpaceTimeCoordinate, TASKIR__SPACE_TIME_COORDINATE__INIT);
    Taskir__SpaceCoordinate *s = NEW(a, Taskir__SpaceCoordinate, TASKIR__SPACE_COORDINATE__INIT);
    Taskir__TimeCoordinate *t = NEW(a, Taskir__TimeCoordinate, TASKIR__TIME_COORDINATE__INIT);
    if (!w || !s || !t)
        return NULL;
    w->space = s;
    w->time = t;
    if (!(s->chip_array = xy_out(a, c->chip_array)) || !(s->chip = xy_out(a, c->chip)) ||
        !(s->core = xy_out(a, c->core)))
        return NULL;
    s->has_step_group = s->has_phase_group = 1;
    s->step_group = c->step_group;
    s->phase_group = c->phase_group;
    t->has_step = t->has_phase = 1;
    t->step = c->step;
    t->phase = c->phase;
    t->has_pi_index = c->has_pi_index;
    t->pi_index = (Taskir__PIIndex)c->pi_index;
    t->has_end_phase = c->has_end_phase;
    t->end_phase = c->end_phase;
    return w;
}

static Taskir__MappingDict **dicts_out(Arena *a, const MapDict *v, uint32_t n)
{
    Taskir__MappingDict **w = arena_alloc(a, n ? n : 1, sizeof *w);
    for (uint32_t i = 0; w && i < n; i++) {
        Taskir__MappingDict *wd = NEW(a, Taskir__MappingDict, TASKIR__MAPPING_DICT__INIT);
        if (!wd)
            return NULL;
        w[i] = wd;
        wd->has_task_id = 1;
        wd->task_id = v[i].task_id;
        wd->n_space_time_coordinates = v[i].n_coords;
        wd->space_time_coordinates =
            arena_alloc(a, v[i].n_coords ? v[i].n_coords : 1, sizeof *wd->space_time_coordinates);
        if (!wd->space_time_coordinates)
            return NULL;
        for (uint32_t k = 0; k < v[i].n_coords; k++)
            if (!(wd->space_time_coordinates[k] = coord_out(a, &v[i].coords[k])))
                return NULL;
    }
    return w;
}

static size_t put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    do {
        p[n++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return n;
}

Status mapping_pack(const Mapping *m, uint8_t **buf, size_t *len, Diag *d)
{
    *buf = NULL;
    *len = 0;
    uint8_t *gb = NULL;
    size_t gl = 0;
    Status st = graph_pack(m->graph, &gb, &gl, d);
    if (st != ST_OK)
        return st;
    Arena *a = arena_create();
    Taskir__Mapping w = TASKIR__MAPPING__INIT;
    Taskir__SpaceTimeMapping stm = TASKIR__SPACE_TIME_MAPPING__INIT;
    w.space_time_mapping = &stm;
    w.has_prediction_clock = m->has_prediction_clock;
    w.prediction_clock = m->prediction_clock;
    stm.n_node_map_dicts = m->n_nodes;
    stm.n_edge_map_dicts = m->n_edges;
    uint8_t *out = NULL;
    if (a && (stm.node_map_dicts = dicts_out(a, m->nodes, m->n_nodes)) &&
        (stm.edge_map_dicts = dicts_out(a, m->edges, m->n_edges))) {
        size_t rest = taskir__mapping__get_packed_size(&w);
        uint8_t head[11];
        head[0] = 0x0a; /* field 1 (graph), length-delimited */
        size_t hl = 1 + put_varint(head + 1, gl);
        if (gl <= SIZE_MAX - hl - rest - 1 && (out = malloc(hl + gl + rest + 1))) {
            memcpy(out, head, hl);
            if (gl)
                memcpy(out + hl, gb, gl);
            size_t packed = taskir__mapping__pack(&w, out + hl + gl);
            *len = hl + gl + packed;
            if (packed != rest) {
                free(out);
                out = NULL;
                st = diag_add(d, ST_RUNTIME, "internal", NULL,
                              "protobuf-c packed %zu bytes of the %zu it announced", packed,
                              rest);
            }
        }
    }
    if (!out && st == ST_OK)
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory saving the mapping");
    arena_destroy(a);
    free(gb);
    if (st != ST_OK) {
        *len = 0;
        return st;
    }
    *buf = out;
    return ST_OK;
}

Status mapping_save_pb(const Mapping *m, const char *path, Diag *d)
{
    uint8_t *buf;
    size_t len;
    Status st = mapping_pack(m, &buf, &len, d);
    if (st != ST_OK)
        return st;
    st = tir_write_file_atomic(path, buf, len, d);
    free(buf);
    return st;
}
