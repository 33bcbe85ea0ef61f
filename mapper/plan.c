/* plan.c: mapper_plan and its life cycle (mapper.h): the steps in their order, each in its
 * own file, and the cost queries over a finished plan. */
#include "mapper/plan.h"

#include "taskir/layout.h"

#include <stdlib.h>
#include <string.h>

void mapper_options_default(MapperOptions *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->effort = 1;
    o->place = MAP_PLACE_REFINED;
}

void mapper_plan_destroy(MapPlan *p)
{
    if (!p)
        return;
    if (p->has_uses)
        graph_uses_finish(&p->uses);
    for (uint32_t v = 0; v < p->n_vcores; v++) {
        free(p->vcores[v].slots);
        free(p->vcores[v].recv);
    }
    free(p->vcores);
    free(p->tasks);
    free(p->task_of);
    free(p->cluster_of);
    free(p->clusters);
    free(p->xfers);
    free(p->xfer_of);
    free(p->lanes_n);
    free(p->lanes_heads);
    free(p->lanes_byte);
    free(p->reps);
    free(p->rep_box);
    free(p->rep_bytes);
    free(p->rep_first);
    free(p->rep_n);
    free(p->order);
    free(p->group_start);
    free(p->group);
    free(p->chunks);
    free(p->vedges);
    free(p->mc_xfer);
    free(p->mc_start);
    free(p->mc_lo);
    free(p->mc_hi);
    free(p->phase);
    free(p);
}

Status mapper_plan(const Graph *g, const Chip *c, const MapperOptions *o, MapPlan **out,
                   Diag *d)
{
    *out = NULL;
    if (!c->max_phases || !c->cores_x || !c->cores_y)
        return diag_add(d, ST_LOGIC, "map.chips", NULL,
                        "the chip description has no phases or no cores");
    MapPlan *p = calloc(1, sizeof *p);
    if (!p)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory planning the mapping");
    p->g = g;
    p->chip = c;
    if (o)
        p->opt = *o;
    else
        mapper_options_default(&p->opt);
    if (p->opt.effort < 0)
        p->opt.effort = 0;
    if (p->opt.effort > MAPPER_MAX_EFFORT)
        p->opt.effort = MAPPER_MAX_EFFORT;
    Status st = ST_OK;
    if (!graph_uses(g, &p->uses))
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory indexing the graph");
    else
        p->has_uses = true;
    /* the mapper never changes g: the pitch walk's facts are kept for every question of the
       plan (taskir/layout.h); without memory for them each question walks anew */
    if (st == ST_OK)
        (void)layout_memo_begin(&p->uses);
    if (st == ST_OK)
        st = map_select_prims(p, d);
    if (st == ST_OK)
        st = map_build_problem(p, d);
    if (st == ST_OK)
        st = map_schedule(p, d);
    if (st == ST_OK)
        st = map_merge_cores(p, d);
    if (st == ST_OK)
        st = map_route_sets(p, d);
    if (st == ST_OK)
        st = map_place(p, d);
    if (st == ST_OK)
        st = map_route(p, d);
    if (st == ST_OK)
        st = map_route_fit(p, d); /* after route.c: route_fit.c reads its hops */
    if (st == ST_OK)
        st = map_estimate(p, d);
    if (st != ST_OK) {
        mapper_plan_destroy(p);
        return st;
    }
    *out = p;
    return ST_OK;
}

void mapper_score(const MapPlan *p, MapCost *out)
{
    *out = p->cost;
}

int64_t mapper_baseline_traffic(const MapPlan *p, MapPlaceKind kind, uint64_t seed,
                                bool multicast)
{
    uint32_t *where = malloc(((size_t)p->n_vcores + 1) * sizeof *where);
    if (!where)
        return -1;
    int64_t t = -1;
    if (kind == MAP_PLACE_SNAKE) {
        map_place_snake(p, where);
        t = multicast ? map_route_where(p, where, NULL, NULL) : map_vedge_traffic(p, where);
    } else {
        Diag d;
        diag_init(&d, NULL);
        if (map_place_scotch(p, seed, -1, where, &d) == ST_OK)
            t = multicast ? map_route_where(p, where, NULL, NULL) : map_vedge_traffic(p, where);
        diag_finish(&d);
    }
    free(where);
    return t;
}
