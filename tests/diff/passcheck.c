/* passcheck.c: see passcheck.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "dtrng.h"
#include "passcheck.h"
#include "passes/manager.h"
#include "taskir/pbio.h"
#include "taskir/sim.h"
#include "taskir/verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEPS 2

/* The default chip (fuse pairs what one of its cores runs), loaded on first use and freed at
 * exit. */
static Chip *chip;

static void free_chip(void)
{
    chip_destroy(chip);
}

static const PassOptions *pass_options(void)
{
    static PassOptions o;
    if (!chip) {
        Diag d;
        diag_init(&d, "passcheck");
        Status st = chip_load_default(&chip, &d);
        if (st != ST_OK)
            diag_print(&d, stderr, "passcheck");
        diag_finish(&d);
        assert_int_equal(st, ST_OK);
        atexit(free_chip);
        o.chip = chip;
    }
    return &o;
}

/* The outputs of a run: every OUTPUT's values after each step, by socket id order. */
typedef struct Outs {
    int32_t *v;
    int64_t n;
    int range;          /* the input range they were computed on (ranges[]) */
} Outs;

/* Input value ranges, widest first, each cut to the INPUT block's precision: a graph that
 * indexes a table with an input may take only part of its precision's range. */
static const int32_t ranges[][2] = {{-50, 50}, {0, 3}, {0, 0}};
#define N_RANGES (sizeof ranges / sizeof ranges[0])

static uint32_t count_passes, count_simulated; /* pass runs checked, and simulated */
static uint32_t count_skipped; /* graphs pc_check_default left out (PC_DEFAULT_MAX_EDGES) */
static uint32_t count_refused; /* pass runs refused: the graph cannot fit the chip */

/* Sets every INPUT of run to values of range r (by socket id, inside what it admits). */
static void set_inputs(SimRun *run, int r, Diag *d)
{
    for (uint32_t k = 0; k < sim_n_inputs(run); k++) {
        const Block *in = sim_input_block(run, k);
        int64_t lo, hi; /* what it admits: its precision, its declared range */
        blk_input_range(in, &lo, &hi);
        lo = lo < ranges[r][0] ? ranges[r][0] : lo;
        hi = hi > ranges[r][1] ? ranges[r][1] : hi;
        int64_t shape[NPY_MAX_DIMS], n = 1;
        uint32_t nd = sim_input_shape(run, k, shape);
        for (uint32_t i = 0; i < nd; i++)
            n *= shape[i];
        int32_t *v = malloc((size_t)n * sizeof *v + 1);
        assert_non_null(v);
        DtRng rng = {(uint64_t)in->socket_id * 7919u + 17};
        for (int64_t i = 0; i < n; i++)
            v[i] = (int32_t)dt_range(&rng, lo, hi);
        assert_int_equal(sim_set_input(run, k, v, n, d), ST_OK);
        free(v);
    }
}

/* The outputs of g over STEPS steps (one when no CLIF carries state) on inputs of range r
 * into *o. A logic error of the run
 * (say a table index out of range) is returned when may_fail, else fails the test. */
static Status simulate_range(const Graph *g, const char *what, int r, bool may_fail, Outs *o)
{
    Diag d;
    diag_init(&d, what);
    SimRun *run = NULL;
    if (sim_create(g, &(SimOptions){0}, &run, &d) != ST_OK) {
        diag_print(&d, stderr, "passcheck");
        fail_msg("%s: the simulator refuses the graph", what);
    }
    set_inputs(run, r, &d);
    /* the OUTPUT blocks by socket id */
    uint32_t no = sim_n_outputs(run), order[64];
    assert_true(no <= 64);
    for (uint32_t k = 0; k < no; k++) {
        uint32_t at = k;
        while (at > 0 && sim_output_block(run, order[at - 1])->socket_id >
                             sim_output_block(run, k)->socket_id) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = k;
    }
    *o = (Outs){.range = r};
    Status st = ST_OK;
    int steps = 1; /* a second step only matters where state carries over */
    for (uint32_t i = 0; i < g->n_blocks; i++)
        if (g->blocks[i]->type == BT_CLIF)
            steps = STEPS;
    for (int s = 0; s < steps && st == ST_OK; s++) {
        st = sim_step(run, &d);
        if (st != ST_OK && !may_fail) {
            diag_print(&d, stderr, "passcheck");
            fail_msg("%s: the simulation fails", what);
        }
        for (uint32_t k = 0; k < no && st == ST_OK; k++) {
            int64_t n;
            const int32_t *v = sim_output(run, order[k], &n);
            int32_t *nv = realloc(o->v, (size_t)(o->n + n) * sizeof *nv + 1);
            assert_non_null(nv);
            o->v = nv;
            memcpy(o->v + o->n, v, (size_t)n * sizeof *v);
            o->n += n;
        }
    }
    sim_destroy(run);
    diag_finish(&d);
    if (st != ST_OK) {
        free(o->v);
        *o = (Outs){0};
    }
    return st;
}

/* What the passes must keep: the outputs of the graph before them, on the widest range it
 * runs on, simulated when first needed. */
/* A state of the walk over pass orders: the graph's bytes (with groups), the passes run and
 * the properties they left. Two orders that reach one state have the same future. */
typedef struct Seen {
    uint8_t *bytes;
    size_t len;
    uint64_t used;              /* bit i: pass i of the table has run */
    unsigned props;
} Seen;

typedef struct Want {
    Seen *seen;                 /* pc_check_orders: the states reached so far */
    size_t n_seen;
    const Graph *before;        /* the graph before the passes, or NULL: */
    const uint8_t *bytes;       /* its bytes (pack_sim) */
    size_t len;
    const char *what;
    Outs outs;
    bool done;
} Want;

static Graph *load(const uint8_t *buf, size_t len, const char *what);

static const Outs *want_outs(Want *w)
{
    Graph *loaded = w->before || w->done ? NULL : load(w->bytes, w->len, w->what);
    const Graph *g = w->before ? w->before : loaded;
    for (int r = 0; r < (int)N_RANGES && !w->done; r++)
        w->done = simulate_range(g, w->what, r, r + 1 < (int)N_RANGES, &w->outs) == ST_OK;
    graph_destroy(loaded);
    if (!w->done)
        fail_msg("%s: the simulation fails", w->what);
    return &w->outs;
}

/* A copy of g, through the .pb writer and reader. */
static Graph *copy(const Graph *g, const char *what)
{
    Diag d;
    diag_init(&d, what);
    uint8_t *buf = NULL;
    size_t len = 0;
    if (graph_pack(g, &buf, &len, &d) != ST_OK) {
        diag_print(&d, stderr, "passcheck");
        fail_msg("%s: the graph does not save", what);
    }
    diag_finish(&d);
    Graph *c = load(buf, len, what);
    free(buf);
    return c;
}

/* The graph these bytes hold. */
static Graph *load(const uint8_t *buf, size_t len, const char *what)
{
    Diag d;
    diag_init(&d, what);
    Graph *c = NULL;
    if (graph_load_pb_mem(buf, len, &c, &d) != ST_OK) {
        diag_print(&d, stderr, "passcheck");
        fail_msg("%s: the graph does not load", what);
    }
    diag_finish(&d);
    return c;
}

/* The bytes of g as saved, without its groups (which the simulator does not read); malloc'd. */
static uint8_t *pack_sim(Graph *g, size_t *len, const char *what)
{
    Diag d;
    diag_init(&d, what);
    uint32_t ng = g->n_groups;
    uint8_t *buf = NULL;
    g->n_groups = 0;
    Status st = graph_pack(g, &buf, len, &d);
    g->n_groups = ng;
    if (st != ST_OK) {
        diag_print(&d, stderr, "passcheck");
        fail_msg("%s: the graph does not save", what);
    }
    diag_finish(&d);
    return buf;
}

/* Runs pass path[depth] on c in place (path[0..depth) the passes run before it) and checks
 * the result against w. *bytes (*len) are c's bytes before the pass (pack_sim); they become
 * its bytes after it. A result with the same bytes runs as its input did: it is not
 * simulated again. false when the pass refuses the graph because it cannot fit the chip
 * (split's [pass.split.fit]: a block no cut makes fit, such as a CLUT of 65536 int32
 * entries): then there is nothing after it to check. */
static bool run_checked(Graph *c, Want *w, const PassInfo *const *path, size_t depth,
                        uint8_t **bytes, size_t *len)
{
    char where[512];
    int at = snprintf(where, sizeof where, "%s, after", w->what);
    for (size_t k = 0; k <= depth && at > 0 && (size_t)at < sizeof where; k++)
        at += snprintf(where + at, sizeof where - (size_t)at, " %s", path[k]->name);
    Diag d;
    diag_init(&d, where);
    Status st = path[depth]->run(c, pass_options(), &d);
    if (st == ST_LOGIC && d.n == 1 && !strcmp(d.entries[0].rule, "pass.split.fit")) {
        diag_finish(&d);
        count_refused++;
        return false;
    }
    if (st != ST_OK || verify_graph(c, &d) != ST_OK) {
        diag_print(&d, stderr, "passcheck");
        fail_msg("%s: the pass fails or breaks the graph", where);
    }
    diag_finish(&d);
    count_passes++;
    size_t lb;
    uint8_t *b = pack_sim(c, &lb, where);
    bool same = *len == lb && memcmp(*bytes, b, lb) == 0;
    free(*bytes);
    *bytes = b;
    *len = lb;
    if (same)
        return true;
    count_simulated++;
    const Outs *want = want_outs(w);
    Outs got;
    simulate_range(c, where, want->range, false, &got);
    if (got.n != want->n)
        fail_msg("%s: %lld output values, before the passes %lld", where, (long long)got.n,
                 (long long)want->n);
    for (int64_t k = 0; k < got.n; k++)
        if (got.v[k] != want->v[k])
            fail_msg("%s: output value %lld is %d, before the passes %d", where, (long long)k,
                     got.v[k], want->v[k]);
    free(got.v);
    return true;
}

/* Runs pass path[depth] on a copy of g (made through the .pb writer and reader) and checks
 * it (run_checked); returns the copy, or NULL when the pass refused it. */
static Graph *run_one(const Graph *g, Want *w, const PassInfo *const *path, size_t depth)
{
    Graph *c = copy(g, w->what);
    size_t len;
    uint8_t *bytes = pack_sim(c, &len, w->what);
    if (!run_checked(c, w, path, depth, &bytes, &len)) {
        graph_destroy(c);
        c = NULL;
    }
    free(bytes);
    return c;
}

/* Records the state of c (used, props); false when an earlier order reached it already. */
static bool first_visit(Want *w, Graph *c, uint64_t used, unsigned props)
{
    Diag d;
    diag_init(&d, w->what);
    Seen s = {.used = used, .props = props};
    assert_int_equal(graph_pack(c, &s.bytes, &s.len, &d), ST_OK);
    diag_finish(&d);
    for (size_t i = 0; i < w->n_seen; i++)
        if (w->seen[i].used == used && w->seen[i].props == props && w->seen[i].len == s.len &&
            memcmp(w->seen[i].bytes, s.bytes, s.len) == 0) {
            free(s.bytes);
            return false;
        }
    Seen *ns = realloc(w->seen, (w->n_seen + 1) * sizeof *ns);
    assert_non_null(ns);
    w->seen = ns;
    w->seen[w->n_seen++] = s;
    return true;
}

/* Runs every pass allowed after the passes of path[0..depth) (used: their bits; props: what
 * they left) on copies of g, checks each result and goes on from it, unless another order
 * reached that graph with the same passes run already (it went on from there). */
static void walk(const Graph *g, Want *w, const PassInfo **path, size_t depth, uint64_t used,
                 unsigned props)
{
    size_t n;
    const PassInfo *t = pass_table(&n);
    for (size_t i = 0; i < n; i++) {
        if ((used >> i & 1) || (t[i].requires & ~props))
            continue;
        path[depth] = &t[i];
        Graph *c = run_one(g, w, path, depth);
        if (!c)
            continue;
        unsigned np = (props & ~t[i].invalidates) | t[i].guarantees;
        if (first_visit(w, c, used | (uint64_t)1 << i, np))
            walk(c, w, path, depth + 1, used | (uint64_t)1 << i, np);
        graph_destroy(c);
    }
}

void pc_check_orders(const Graph *g, const char *what)
{
    size_t n;
    pass_table(&n);
    assert_true(n <= 64);
    const PassInfo **path = calloc(n + 1, sizeof *path);
    assert_non_null(path);
    Want w = {.before = g, .what = what};
    walk(g, &w, path, 0, 0, 0);
    for (size_t i = 0; i < w.n_seen; i++)
        free(w.seen[i].bytes);
    free(w.seen);
    free(w.outs.v);
    free(path);
}

void pc_check_default(Graph *g, const char *what)
{
    const char *on = getenv("DIFF_PASSES");
    if (!on || strcmp(on, "1") != 0 || g->n_edges > PC_DEFAULT_MAX_EDGES) {
        count_skipped++;
        graph_destroy(g);
        return;
    }
    PassPlan p;
    Diag d;
    diag_init(&d, what);
    assert_int_equal(pass_plan_parse(pass_default_list, &p, &d), ST_OK);
    diag_finish(&d);
    size_t len;
    uint8_t *bytes = pack_sim(g, &len, what);
    uint8_t *before = malloc(len + 1);
    assert_non_null(before);
    memcpy(before, bytes, len);
    Want w = {.bytes = before, .len = len, .what = what};
    for (size_t i = 0; i < p.n; i++)
        if (!run_checked(g, &w, p.passes, i, &bytes, &len))
            break;
    graph_destroy(g);
    free(bytes);
    free(before);
    free(w.outs.v);
    pass_plan_finish(&p);
}

uint32_t pc_passes_run(uint32_t *simulated, uint32_t *refused)
{
    if (simulated)
        *simulated = count_simulated;
    if (refused)
        *refused = count_refused;
    return count_passes;
}
