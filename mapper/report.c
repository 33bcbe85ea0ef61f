/* report.c: the JSON report of a plan (docs/mapper.md, "Report"): the totals and cost terms,
 * per core (in grid order) its place, phase group, memory by bank and, per phase it works
 * in, the block of each slot with its P-code and clocks, the router's clocks and the bytes
 * sent and received; then every compute block's primitive and place. Built with the JSON
 * helpers of taskir's printers (print_internal.h: every allocation checked, one format);
 * numbers are integers, the order fixed: the report of a plan is deterministic. */
#include "mapper/plan.h"
#include "taskir/print_internal.h"

#include <json-c/json.h>
#include <stdlib.h>

static json_object *jpair(PrintJson *j, int64_t a, int64_t b)
{
    json_object *o = pj_arr(j);
    pj_push(j, o, pj_int(j, a));
    pj_push(j, o, pj_int(j, b));
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

static json_object *slot_obj(PrintJson *j, const MapPlan *p, uint32_t t)
{
    json_object *o = pj_obj(j);
    pj_set(j, o, "block", pj_int(j, p->g->blocks[p->tasks[t].pos]->id));
    pj_set(j, o, "pcode", pj_int(j, p->tasks[t].prim->pcode));
    pj_set(j, o, "clocks", pj_int(j, p->tasks[t].clocks));
    return o;
}

static json_object *totals(PrintJson *j, const MapPlan *p)
{
    const MapCost *c = &p->cost;
    json_object *o = pj_obj(j);
    pj_set(j, o, "groups", pj_int(j, p->g->n_groups));
    pj_set(j, o, "compute_blocks", pj_int(j, p->n_tasks));
    pj_set(j, o, "cores", pj_int(j, c->cores));
    pj_set(j, o, "chips", pj_int(j, c->chips));
    pj_set(j, o, "phases", pj_int(j, c->phases));
    pj_set(j, o, "phase_groups", pj_int(j, c->stages));
    pj_set(j, o, "step_clock", pj_int(j, c->step_clock));
    pj_set(j, o, "mem_bytes", pj_int(j, c->mem_bytes));
    pj_set(j, o, "bytes_crossing", pj_int(j, c->bytes_crossing));
    pj_set(j, o, "offchip_in_bytes", pj_int(j, c->offchip_in));
    pj_set(j, o, "offchip_out_bytes", pj_int(j, c->offchip_out));
    return o;
}

static json_object *cost(PrintJson *j, const MapPlan *p)
{
    json_object *o = pj_obj(j);
    pj_set(j, o, "traffic_byte_hops", pj_int(j, p->cost.traffic));
    pj_set(j, o, "traffic_unicast_byte_hops", pj_int(j, p->cost.traffic_unicast));
    pj_set(j, o, "baseline_scotch_byte_hops", pj_int(j, p->traffic_scotch_mc));
    pj_set(j, o, "baseline_snake_byte_hops",
           pj_int(j, mapper_baseline_traffic(p, MAP_PLACE_SNAKE, 0, true)));
    pj_set(j, o, "baseline_scotch_unicast_byte_hops", pj_int(j, p->traffic_scotch));
    pj_set(j, o, "baseline_snake_unicast_byte_hops",
           pj_int(j, mapper_baseline_traffic(p, MAP_PLACE_SNAKE, 0, false)));
    pj_set(j, o, "step_clock", pj_int(j, p->cost.step_clock));
    return o;
}

static json_object *core_obj(PrintJson *j, const MapPlan *p, uint32_t v)
{
    const VCore *vc = &p->vcores[v];
    int64_t pl[4], banks[8];
    core_place(p, v, pl);
    map_banks(p, v, banks);
    json_object *o = pj_obj(j);
    pj_set(j, o, "chip", jpair(j, pl[0], pl[1]));
    pj_set(j, o, "core", jpair(j, pl[2], pl[3]));
    pj_set(j, o, "phase_group", pj_int(j, vc->stage));
    json_object *mem = pj_obj(j);
    for (uint32_t b = 0; b < p->chip->n_banks && b < 8; b++)
        pj_set(j, mem, p->chip->banks[b].name, pj_int(j, banks[b]));
    pj_set(j, o, "mem", mem);
    pj_set(j, o, "mem_static", pj_int(j, vc->mem_weight));
    pj_set(j, o, "mem_data", pj_int(j, vc->mem_data));
    json_object *phs = pj_arr(j);
    for (uint32_t l = 0; l < p->n_phases; l++) {
        const MPhase *ph = &p->phase[(size_t)v * p->n_phases + l];
        if (ph->axon == MAP_NONE && ph->soma1 == MAP_NONE && ph->soma2 == MAP_NONE &&
            !ph->sent && !ph->received)
            continue;
        json_object *q = pj_obj(j);
        pj_set(j, q, "phase", pj_int(j, l));
        if (ph->axon != MAP_NONE)
            pj_set(j, q, "axon", slot_obj(j, p, ph->axon));
        if (ph->soma1 != MAP_NONE)
            pj_set(j, q, "soma1", slot_obj(j, p, ph->soma1));
        if (ph->soma2 != MAP_NONE)
            pj_set(j, q, "soma2", slot_obj(j, p, ph->soma2));
        pj_set(j, q, "router_clocks", pj_int(j, ph->clk_router));
        pj_set(j, q, "clocks",
            pj_int(j, ph->clk_axon + ph->clk_soma1 + ph->clk_router + ph->clk_soma2));
        pj_set(j, q, "sent", pj_int(j, ph->sent));
        pj_set(j, q, "received", pj_int(j, ph->received));
        pj_push(j, phs, q);
    }
    pj_set(j, o, "phases", phs);
    return o;
}

static int by_core(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

Status mapper_report_json(const MapPlan *p, FILE *out, Diag *d)
{
    PrintJson j = {0};
    json_object *root = pj_obj(&j);
    pj_set_str(&j, root, "chip", p->chip->name);
    pj_set(&j, root, "seed", pj_int(&j, (int64_t)(p->opt.seed & INT64_MAX)));
    pj_set(&j, root, "effort", pj_int(&j, p->opt.effort));
    json_object *grid = pj_obj(&j);
    pj_set(&j, grid, "chips", jpair(&j, p->chips_x, p->chips_y));
    pj_set(&j, grid, "cores_per_chip", jpair(&j, p->chip->cores_x, p->chip->cores_y));
    pj_set(&j, root, "grid", grid);
    pj_set(&j, root, "totals", totals(&j, p));
    pj_set(&j, root, "cost", cost(&j, p));
    /* cores in grid order: pairs (core index, vcore) */
    uint32_t *ord = malloc(((size_t)p->n_vcores + 1) * 2 * sizeof *ord);
    json_object *cores = pj_arr(&j);
    if (!ord) {
        j.oom = true;
    } else {
        for (uint32_t v = 0; v < p->n_vcores; v++) {
            ord[2 * v] = p->vcores[v].core;
            ord[2 * v + 1] = v;
        }
        qsort(ord, p->n_vcores, 2 * sizeof *ord, by_core);
        for (uint32_t i = 0; i < p->n_vcores && !j.oom; i++)
            pj_push(&j, cores, core_obj(&j, p, ord[2 * i + 1]));
    }
    free(ord);
    pj_set(&j, root, "cores", cores);
    json_object *blocks = pj_arr(&j);
    for (uint32_t t = 0; t < p->n_tasks && !j.oom; t++) {
        const MTask *tk = &p->tasks[t];
        const Block *b = p->g->blocks[tk->pos];
        int64_t pl[4];
        core_place(p, map_task_vcore(p, t), pl);
        json_object *o = pj_obj(&j);
        pj_set(&j, o, "block", pj_int(&j, b->id));
        pj_set_str(&j, o, "name", b->name);
        pj_set(&j, o, "type", pj_str(&j, bt_info(b->type)->name));
        pj_set(&j, o, "pcode", pj_int(&j, tk->prim->pcode));
        pj_set(&j, o, "unit", pj_str(&j, tk->prim->unit == UNIT_AXON ? "axon" : "soma"));
        pj_set(&j, o, "chip", jpair(&j, pl[0], pl[1]));
        pj_set(&j, o, "core", jpair(&j, pl[2], pl[3]));
        pj_set(&j, o, "phase", pj_int(&j, map_local(p, tk->phase)));
        pj_set(&j, o, "slot", pj_str(&j, slot_name(tk->slot)));
        pj_set(&j, o, "clocks", pj_int(&j, tk->clocks));
        pj_push(&j, blocks, o);
    }
    pj_set(&j, root, "blocks", blocks);
    return pj_write(&j, root, out, d);
}
