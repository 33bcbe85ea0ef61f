/* report.c: the JSON report of a plan (docs/mapper.md, "Report"): the totals and cost terms,
 * per core (in grid order) its place, phase group, memory by bank and, per phase it works
 * in, the block of each slot with its P-code and clocks, the router's clocks and the bytes
 * sent and received; then every compute block's primitive and place. Written with json-c;
 * numbers are integers, the order fixed: the report of a plan is deterministic. */
#include "mapper/plan.h"

#include <json-c/json.h>
#include <stdlib.h>

typedef struct Jw {
    bool oom;
} Jw;

static json_object *chk(Jw *j, json_object *o)
{
    if (!o)
        j->oom = true;
    return o;
}

static void put(Jw *j, json_object *obj, const char *key, json_object *v)
{
    if (!v || !obj || json_object_object_add(obj, key, v) != 0) {
        json_object_put(v);
        j->oom = true;
    }
}

static void push(Jw *j, json_object *arr, json_object *v)
{
    if (!v || !arr || json_object_array_add(arr, v) != 0) {
        json_object_put(v);
        j->oom = true;
    }
}

static json_object *jint(Jw *j, int64_t v)
{
    return chk(j, json_object_new_int64(v));
}

static json_object *jstr(Jw *j, const char *s)
{
    return chk(j, json_object_new_string(s ? s : ""));
}

static json_object *jpair(Jw *j, int64_t a, int64_t b)
{
    json_object *o = chk(j, json_object_new_array());
    push(j, o, jint(j, a));
    push(j, o, jint(j, b));
    return o;
}

static void core_place(const MapPlan *p, uint32_t v, int64_t out[4])
{
    uint32_t x, y;
    map_core_xy(p, p->vcores[v].core, &x, &y);
    out[0] = x / p->chip->cores_x;
    out[1] = y / p->chip->cores_y;
    out[2] = x % p->chip->cores_x;
    out[3] = y % p->chip->cores_y;
}

static const char *slot_name(int slot)
{
    return slot == MS_AXON ? "AXON" : slot == MS_SOMA1 ? "SOMA1" : "SOMA2";
}

static json_object *slot_obj(Jw *j, const MapPlan *p, uint32_t t)
{
    json_object *o = chk(j, json_object_new_object());
    put(j, o, "block", jint(j, p->g->blocks[p->tasks[t].pos]->id));
    put(j, o, "pcode", jint(j, p->tasks[t].prim->pcode));
    put(j, o, "clocks", jint(j, p->tasks[t].clocks));
    return o;
}

static json_object *totals(Jw *j, const MapPlan *p)
{
    const MapCost *c = &p->cost;
    json_object *o = chk(j, json_object_new_object());
    put(j, o, "cores", jint(j, c->cores));
    put(j, o, "chips", jint(j, c->chips));
    put(j, o, "phases", jint(j, c->phases));
    put(j, o, "phase_groups", jint(j, c->stages));
    put(j, o, "step_clock", jint(j, c->step_clock));
    put(j, o, "mem_bytes", jint(j, c->mem_bytes));
    put(j, o, "bytes_crossing", jint(j, c->bytes_crossing));
    put(j, o, "offchip_in_bytes", jint(j, c->offchip_in));
    put(j, o, "offchip_out_bytes", jint(j, c->offchip_out));
    return o;
}

static json_object *cost(Jw *j, const MapPlan *p)
{
    json_object *o = chk(j, json_object_new_object());
    put(j, o, "traffic_byte_hops", jint(j, p->cost.traffic));
    put(j, o, "traffic_unicast_byte_hops", jint(j, p->cost.traffic_unicast));
    put(j, o, "baseline_scotch_byte_hops", jint(j, p->traffic_scotch));
    put(j, o, "baseline_snake_byte_hops", jint(j, mapper_baseline_traffic(p, MAP_PLACE_SNAKE, 0)));
    put(j, o, "step_clock", jint(j, p->cost.step_clock));
    return o;
}

static json_object *core_obj(Jw *j, const MapPlan *p, uint32_t v)
{
    const VCore *vc = &p->vcores[v];
    int64_t pl[4], banks[8];
    core_place(p, v, pl);
    map_banks(p, v, banks);
    json_object *o = chk(j, json_object_new_object());
    put(j, o, "chip", jpair(j, pl[0], pl[1]));
    put(j, o, "core", jpair(j, pl[2], pl[3]));
    put(j, o, "phase_group", jint(j, vc->stage));
    json_object *mem = chk(j, json_object_new_object());
    for (uint32_t b = 0; b < p->chip->n_banks && b < 8; b++)
        put(j, mem, p->chip->banks[b].name, jint(j, banks[b]));
    put(j, o, "mem", mem);
    put(j, o, "mem_static", jint(j, vc->mem_weight));
    put(j, o, "mem_data", jint(j, vc->mem_data));
    json_object *phs = chk(j, json_object_new_array());
    for (uint32_t l = 0; l < p->n_phases; l++) {
        const MPhase *ph = &p->phase[(size_t)v * p->n_phases + l];
        if (ph->axon == MAP_NONE && ph->soma1 == MAP_NONE && ph->soma2 == MAP_NONE &&
            !ph->sent && !ph->received)
            continue;
        json_object *q = chk(j, json_object_new_object());
        put(j, q, "phase", jint(j, l));
        if (ph->axon != MAP_NONE)
            put(j, q, "axon", slot_obj(j, p, ph->axon));
        if (ph->soma1 != MAP_NONE)
            put(j, q, "soma1", slot_obj(j, p, ph->soma1));
        if (ph->soma2 != MAP_NONE)
            put(j, q, "soma2", slot_obj(j, p, ph->soma2));
        put(j, q, "router_clocks", jint(j, ph->clk_router));
        put(j, q, "clocks",
            jint(j, ph->clk_axon + ph->clk_soma1 + ph->clk_router + ph->clk_soma2));
        put(j, q, "sent", jint(j, ph->sent));
        put(j, q, "received", jint(j, ph->received));
        push(j, phs, q);
    }
    put(j, o, "phases", phs);
    return o;
}

static int by_core(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

Status mapper_report_json(const MapPlan *p, FILE *out, Diag *d)
{
    Jw j = {false};
    json_object *root = chk(&j, json_object_new_object());
    put(&j, root, "chip", jstr(&j, p->chip->name));
    put(&j, root, "seed", chk(&j, json_object_new_uint64(p->opt.seed)));
    put(&j, root, "effort", jint(&j, p->opt.effort));
    json_object *grid = chk(&j, json_object_new_object());
    put(&j, grid, "chips", jpair(&j, p->chips_x, p->chips_y));
    put(&j, grid, "cores_per_chip", jpair(&j, p->chip->cores_x, p->chip->cores_y));
    put(&j, root, "grid", grid);
    put(&j, root, "totals", totals(&j, p));
    put(&j, root, "cost", cost(&j, p));
    /* cores in grid order: pairs (core index, vcore) */
    uint32_t *ord = malloc(((size_t)p->n_vcores + 1) * 2 * sizeof *ord);
    json_object *cores = chk(&j, json_object_new_array());
    if (!ord) {
        j.oom = true;
    } else {
        for (uint32_t v = 0; v < p->n_vcores; v++) {
            ord[2 * v] = p->vcores[v].core;
            ord[2 * v + 1] = v;
        }
        qsort(ord, p->n_vcores, 2 * sizeof *ord, by_core);
        for (uint32_t i = 0; i < p->n_vcores && !j.oom; i++)
            push(&j, cores, core_obj(&j, p, ord[2 * i + 1]));
    }
    free(ord);
    put(&j, root, "cores", cores);
    json_object *blocks = chk(&j, json_object_new_array());
    for (uint32_t t = 0; t < p->n_tasks && !j.oom; t++) {
        const MTask *tk = &p->tasks[t];
        const Block *b = p->g->blocks[tk->pos];
        int64_t pl[4];
        core_place(p, map_task_vcore(p, t), pl);
        json_object *o = chk(&j, json_object_new_object());
        put(&j, o, "block", jint(&j, b->id));
        put(&j, o, "name", jstr(&j, b->name));
        put(&j, o, "type", jstr(&j, bt_info(b->type)->name));
        put(&j, o, "pcode", jint(&j, tk->prim->pcode));
        put(&j, o, "unit", jstr(&j, tk->prim->unit == UNIT_AXON ? "axon" : "soma"));
        put(&j, o, "chip", jpair(&j, pl[0], pl[1]));
        put(&j, o, "core", jpair(&j, pl[2], pl[3]));
        put(&j, o, "phase", jint(&j, map_local(p, tk->phase)));
        put(&j, o, "slot", jstr(&j, slot_name(tk->slot)));
        put(&j, o, "clocks", jint(&j, tk->clocks));
        push(&j, blocks, o);
    }
    put(&j, root, "blocks", blocks);
    Status st = ST_OK;
    const char *s = j.oom ? NULL
                          : json_object_to_json_string_ext(
                                root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                                          JSON_C_TO_STRING_NOSLASHESCAPE);
    if (!s)
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory writing the report");
    else if (fputs(s, out) < 0 || fputc('\n', out) == EOF)
        st = diag_add(d, ST_RUNTIME, "io.write", NULL, "cannot write the report");
    json_object_put(root);
    return st;
}
