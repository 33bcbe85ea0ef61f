/* split_fit.c: fit mode (split.h, docs/passes.md "split"). Every compute block, in graph
 * order and then the pieces as they are made, is checked: its group (split_need_of: the
 * block, the storage it reads, its output buffer, the share of an input cluster that a
 * compute block feeds directly, the Soma after it) must fit the core budget. A block that
 * does not is planned (split_plan.c: the counts of pieces along f, y, x and r together) and
 * cut along the plan's first axis; each piece carries the rest of the plan and is cut along
 * the next axis in the next round, if it does not fit by then. An r cut's join larger than
 * a core is cut into the row bands its plan gives it (join_y). A piece without a plan (any
 * other join, the pieces of a plan that did not fit) is planned anew.
 *
 * Cuts run in rounds: one change set a round (split.h, SplitBatch), so the use index and
 * the compaction are paid once a round, not once a cut. */
#include "passes/split.h"
#include "taskir/chip_cost.h"
#include "taskir/diag_block.h"
#include "taskir/rearrange.h"

#include <stdlib.h>
#include <string.h>

static Status no_fit(const Chip *c, const Block *b, const SplitNeed *n, Diag *d)
{
    char soma[64] = "";
    if (n->soma)
        snprintf(soma, sizeof soma, ", the Soma after it %lld", (long long)n->soma);
    return diag_block(d, ST_LOGIC, "pass.split.fit", b,
                      "its group needs %lld bytes (input %lld, weights %lld, bias %lld, "
                      "output %lld%s), more than a core's budget of %u bytes, and it cannot "
                      "be cut further", (long long)n->total,
                      (long long)(n->m.input + n->direct + n->pitch), (long long)n->m.weight,
                      (long long)n->m.bias, (long long)n->m.output, soma,
                      c->core_budget_bytes);
}

/* The worklist: the ids of the compute blocks to check, the pieces appended as made, each
 * with the cuts still planned for it (n 0: none). */
typedef struct Work {
    int32_t *id;
    SplitPlan *plan;
    size_t n, cap;
} Work;

static bool push(Work *w, int32_t id, const SplitPlan *plan)
{
    if (w->n == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 256;
        int32_t *n = realloc(w->id, cap * sizeof *n);
        if (!n)
            return false;
        w->id = n;
        SplitPlan *p = realloc(w->plan, cap * sizeof *p);
        if (!p)
            return false;
        w->plan = p;
        w->cap = cap;
    }
    w->id[w->n] = id;
    if (plan)
        w->plan[w->n] = *plan;
    else
        memset(&w->plan[w->n], 0, sizeof w->plan[w->n]);
    w->n++;
    return true;
}

/* The rest of plan p after its first cut. */
static SplitPlan rest_of(const SplitPlan *p)
{
    SplitPlan r = {0};
    for (uint32_t i = 1; i < p->n; i++) {
        r.ax[r.n] = p->ax[i];
        r.parts[r.n++] = p->parts[i];
    }
    r.join_y = p->join_y;
    return r;
}

static Status oom(Diag *d)
{
    return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
}

enum { READ = 1, WRITTEN = 2 };

/* The storage blocks a cut touches: those b reads (cut or shared) and those it writes
 * (re-fed from the pieces). Cuts of one round may read the same storage blocks (each cuts
 * its own copies) and write the same ones (each re-feeds its own part), but a block whose cut
 * would read what another cut writes, or write what another reads, waits for the next round:
 * its re-feeding would see the edges the other cut replaces. set: record b's. */
static bool touches(const Graph *g, const GraphUses *u, const Block *b, uint8_t *mark,
                    bool set)
{
    long pos = graph_block_pos(g, b->id);
    const BlockUses *bu = &u->blocks[pos];
    for (int side = 0; side < 2; side++) {
        const uint32_t *es = side ? bu->out_edges : bu->in_edges;
        uint32_t ne = side ? bu->n_out_edges : bu->n_in_edges;
        for (uint32_t k = 0; k < ne; k++) {
            const Edge *e = g->edges[es[k]];
            long p = graph_block_pos(g, side ? e->dst : e->src);
            if (p < 0 || (uint32_t)p >= u->n_blocks)
                continue;
            if (set)
                mark[p] |= side ? WRITTEN : READ;
            else if (mark[p] & (side ? READ : WRITTEN))
                return true;
        }
    }
    return false;
}

/* Does Soma block m wait for the Axon blocks before it, one of which does not fit yet
 * (with m's share): m is then cut as they are (split_soma_follow), not on its own. */
static Status axon_waits(const Chip *c, const Graph *g, const GraphUses *u, const Block *m,
                         bool *wait, Diag *d)
{
    *wait = false;
    const Block *S = split_soma_input(c, g, u, m);
    if (!S)
        return ST_OK;
    const BlockUses *su = &u->blocks[graph_block_pos(g, S->id)];
    for (uint32_t i = 0; i < su->n_in_edges && !*wait; i++) {
        const Block *a = graph_block(g, g->edges[su->in_edges[i]]->src);
        SplitNeed n;
        if (!split_need_of(c, g, u, a, &n))
            return diag_block(d, ST_LOGIC, "pass.split.fit", a,
                              "its memory cannot be figured (a size overflows)");
        *wait = !split_fits(c, &n);
    }
    return ST_OK;
}

/* One round: every block of the worklist that does not fit and touches nothing this
 * round's cuts touched is cut; the pieces and the blocks that waited go to next. */
static Status round_of(Graph *g, const Chip *c, SplitSlices *slices, Work *w, Work *next,
                       Diag *d)
{
    SplitBatch sb;
    Status st = split_begin(g, &sb, d);
    if (st != ST_OK)
        return st;
    sb.slices = slices;
    sb.chip = c;
    uint8_t *mark = calloc(sb.u.n_blocks ? sb.u.n_blocks : 1, 1);
    if (!mark) {
        split_commit(g, &sb, d);
        return oom(d);
    }
    for (size_t i = 0; i < w->n && st == ST_OK; i++) {
        Block *b = graph_block(g, w->id[i]);
        if (!b)
            continue;
        SplitNeed n;
        SplitPlan plan = w->plan[i];
        SplitAxis ax = SPLIT_Y;
        uint32_t parts = 0;
        int32_t *bounds = NULL;
        /* a block next to a cut of this round is looked at in the next, with the use index
         * of the graph the cut leaves (a Soma whose Axon block is being cut along r would
         * see the joins that are not in the index yet, and not follow them) */
        if (touches(g, &sb.u, b, mark, false)) {
            if (!push(next, b->id, &plan))
                st = oom(d);
            continue;
        }
        /* a Soma whose Axon block was cut is cut as it was, fitting or not */
        bool follow = split_soma_follow(c, g, &sb.u, b, &ax, &bounds, &parts);
        bool wait = false;
        if (!follow && (st = axon_waits(c, g, &sb.u, b, &wait, d)) != ST_OK)
            break;
        if (wait) { /* its Axon block is still to be cut: then it follows */
            if (!push(next, b->id, &plan))
                st = oom(d);
            continue;
        }
        if (!follow) {
            if (!split_need_of(c, g, &sb.u, b, &n)) {
                st = diag_block(d, ST_LOGIC, "pass.split.fit", b,
                                "its memory cannot be figured (a size overflows)");
                break;
            }
            if (split_fits(c, &n))
                continue;
        }
        if (follow) {
            plan.n = 0, plan.join_y = 0;
        } else if (!plan.n || split_most(c, b, plan.ax[0]) < plan.parts[0]) {
            if (!split_choose(c, g, &sb.u, b, &n, &plan)) {
                st = no_fit(c, b, &n, d);
                break;
            }
        }
        if (!follow)
            ax = plan.ax[0], parts = plan.parts[0];
        SplitPlan rest = rest_of(&plan);
        /* the joins of an r cut: in the row bands planned for them, if any */
        SplitPlan join = {.n = 1, .ax = {SPLIT_Y}, .parts = {plan.join_y}};
        const SplitPlan *join_plan = plan.join_y > 1 ? &join : NULL;
        touches(g, &sb.u, b, mark, true);
        if (!bounds)
            bounds = malloc(((size_t)parts + 1) * sizeof *bounds);
        int32_t *ids = malloc(((size_t)parts + 1) * sizeof *ids);
        if (!bounds || !ids) {
            free(bounds), free(ids);
            st = oom(d);
            break;
        }
        if (!follow)
            split_cut_bounds(c, b, ax, parts, split_unit_of(c, g, &sb.u, b, ax), bounds);
        st = split_block(g, &sb, b, ax, bounds, parts, ids, d);
        for (uint32_t k = 0; st == ST_OK && k < parts + (ax == SPLIT_R); k++)
            if (!push(next, ids[k], k < parts ? &rest : join_plan))
                st = oom(d);
        free(bounds), free(ids);
    }
    free(mark);
    Status cs = split_commit(g, &sb, d);
    return st != ST_OK ? st : cs;
}

Status split_fit(Graph *g, const Chip *c, SplitSlices *slices, Diag *d)
{
    Work w = {0}, next = {0};
    Status st = ST_OK;
    for (uint32_t i = 0; i < g->n_blocks && st == ST_OK; i++)
        if (bt_info(g->blocks[i]->type)->kind == BK_COMPUTE &&
            !push(&w, g->blocks[i]->id, NULL))
            st = oom(d);
    while (st == ST_OK && w.n) {
        next.n = 0;
        st = round_of(g, c, slices, &w, &next, d);
        Work t = w;
        w = next;
        next = t;
    }
    free(w.id), free(w.plan);
    free(next.id), free(next.plan);
    return st;
}
