/* place_chain.c: refines a placement under the traffic its routes really make, multicast
 * chains included (docs/mapper.md, "Algorithm", step 5).
 *
 * First the refinement (refine.c) under the unicast traffic graph: every transfer from its
 * source (and nothing else when no box goes to two cores). Then, when some box goes to two cores or more (a multicast set, route.c), rounds:
 * route the sets under the current placement (map_route_where), take the chains' links as
 * the traffic graph (a transfer from the core that sends it: its source or the destination
 * that relays it), refine under that graph, route again. The placement whose routes cost
 * least is kept (the start and the unicast one included: never worse than Scotch's under
 * the routes' measure), so what the mapper reports, multicast chains
 * counted link by link, is what it optimises. Under unicast a piece of a layer is pulled
 * towards every piece of the next layer it feeds; along a chain only towards the core it
 * receives from and the one it relays to, so the pieces line up along their chains.
 * Every refinement anneals from a high temperature (HEAT): each round may reshape the layout
 * for its own traffic graph, and the best routed placement is kept.
 */
#include "mapper/plan.h"

#include <stdlib.h>
#include <string.h>

/* Rounds of routing and refining after the unicast refinement. ResNet-50 (1495 cores):
 * 372.6 M byte x hops after the unicast refinement, 361.7 M, 359.0 M, 358.3 M after the
 * rounds (effort 1, seed 1); a fourth gained less than 0.1 %. */
#define CHAIN_ROUNDS 3

/* The annealing's start temperature, in mean edge costs (refine.c): hot, so that the
 * annealing reshapes Scotch's layout at large, not only its details. ResNet-50 (1880
 * cores, at least 1024 moves a core): 0.3 gave 0.855x of plain Scotch's routed traffic
 * (more moves did not help: 0.849x with three times as many), 3 gave 0.819x with the moves
 * of effort 1 and 0.800x with twice as many, 10 gives 0.792x (seeds 2 and 3: 0.784x,
 * 0.783x), 30 0.788x (0.786x, 0.800x); the 10,240-group synthetic graph 0.697x at 0.3,
 * 0.645x at 3, 0.636x at 10 and 30. */
#define HEAT 10.0

/* Keeps where[] in best[] when its routes cost less than *best_cost; relay[] gets its
 * relays. false when out of memory. */
static bool keep_best(const MapPlan *p, const uint32_t *where, uint32_t *relay, uint32_t *best,
                      int64_t *best_cost)
{
    int64_t c = map_route_where(p, where, relay, NULL);
    if (c >= 0 && (*best_cost < 0 || c < *best_cost)) {
        *best_cost = c;
        memcpy(best, where, (size_t)p->n_vcores * sizeof *best);
    }
    return c >= 0;
}

Status map_refine_chains(MapPlan *p, uint32_t *where, uint64_t moves, Diag *d)
{
    uint32_t nv = p->n_vcores;
    bool multicast = p->n_mc < p->mc_start[p->n_mc]; /* a set of two cores or more */
    if (!multicast || nv < 2) /* the chains are the unicast graph */
        return map_refine(p, where, moves, HEAT, d);
    VEdge *uni = p->vedges;
    uint32_t n_uni = p->n_vedges;
    uint32_t *relay = malloc(((size_t)p->n_xfers + 1) * sizeof *relay);
    uint32_t *best = malloc((size_t)nv * sizeof *best);
    int64_t best_cost = -1;
    Status st = ST_OK;
    bool ok = relay && best && keep_best(p, where, relay, best, &best_cost); /* the start */
    if (ok)
        st = map_refine(p, where, moves, HEAT, d);
    if (ok && st == ST_OK)
        ok = keep_best(p, where, relay, best, &best_cost);
    p->vedges = NULL; /* the unicast graph, restored below */
    p->n_vedges = 0;
    for (int r = 0; r < CHAIN_ROUNDS && ok && st == ST_OK; r++) {
        /* relay[]: the routes of the placement refined last */
        st = map_build_vedges(p, relay, d);
        if (st == ST_OK)
            st = map_refine(p, where, moves, HEAT, d);
        if (st == ST_OK)
            ok = keep_best(p, where, relay, best, &best_cost);
    }
    if (!ok && st == ST_OK)
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory placing cores");
    if (st == ST_OK)
        memcpy(where, best, (size_t)nv * sizeof *best);
    free(p->vedges);
    p->vedges = uni;
    p->n_vedges = n_uni;
    free(relay);
    free(best);
    return st;
}
