/* test_verify.c: the TaskGraph verifier (taskir/verify*.c, docs/rules.md).
 *
 * A small valid graph verifies clean:
 *   INPUT -> SIC -> CC(+SW, +SB) -> SI -> CCMPB -> (RESHAPE) SIFC -> CVM(+SWFC, +SB) -> SI
 *   -> OUTPUT
 * Each negative test breaks one rule in a fresh copy of it and checks that verify_graph
 * returns ST_LOGIC with an entry of that rule about the expected block or edge (and, where
 * the break cannot spill into other rules, that nothing else is reported). Then: several
 * rules at once, garbage graphs that must not crash (run under ASan/UBSan too), big clusters
 * and long chains that must stay fast, and docs/rules.md listing every rule id.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "taskir/graph.h"
#include "taskir/pbio.h"
#include "taskir/verify.h"

/* Block ids of the valid graph. */
enum {
    B_IN = 1, B_SIC, B_SW, B_SB, B_CC, B_SI1, B_POOL, B_SIFC, B_SWFC, B_SB2, B_CVM, B_SI2,
    B_OUT
};
/* Edge ids of the valid graph (graph_connect numbers them from 0 in this order). */
enum {
    E_IN_SIC, E_SIC_CC, E_SW_CC, E_SB_CC, E_CC_SI, E_SI_POOL, E_POOL_SIFC, E_SIFC_CVM,
    E_SWFC_CVM, E_SB2_CVM, E_CVM_SI, E_SI_OUT
};

/* Every rule id of docs/rules.md. */
static const char *const all_rules[] = {
    "block.id.dup", "edge.id.dup", "block.null", "shape.required", "shape.forbidden",
    "shape.range", "shape.window", "attr.kernel", "attr.dup", "attr.forbidden",
    "attr.required", "attr.range", "attr.value", "bias.type", "cluster.count",
    "cluster.shape", "iface.bounds", "iface.edge", "cover.gap", "cover.overlap",
    "edge.endpoint", "edge.refs", "edge.size", "edge.volume", "edge.pair", "data.compute",
    "data.dims", "data.len", "data.container", "data.range", "data.missing", "io.socket",
    "io.socket.dup", "io.model", "graph.empty", "graph.cycle", "group.block", "group.dup", "limit.volume",
    "rearrange.reshape", "rearrange.scale", "shape.operand", "io.shape", "data.integer",
};
#define N_RULES (sizeof all_rules / sizeof all_rules[0])
static bool rule_seen[N_RULES]; /* which rules the tests saw reported */

static void note_rules(const Diag *d)
{
    for (size_t i = 0; i < d->n; i++) {
        bool known = false;
        for (size_t r = 0; r < N_RULES; r++)
            if (strcmp(d->entries[i].rule, all_rules[r]) == 0) {
                rule_seen[r] = true;
                known = true;
            }
        if (!known)
            fail_msg("rule id '%s' is not in the list of docs/rules.md", d->entries[i].rule);
    }
}

static Block *add(Graph *g, BlockType t, int32_t id, const char *name, int32_t y, int32_t x,
                  int32_t f, int32_t r)
{
    Block *b = graph_add_block(g, t, id, name);
    assert_non_null(b);
    b->shape.d[D_Y] = y, b->shape.d[D_X] = x, b->shape.d[D_F] = f, b->shape.d[D_R] = r;
    return b;
}

static void data(Graph *g, Block *b, PrecisionId p, const int32_t *dims, uint32_t nd)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < nd; i++)
        n *= (uint64_t)dims[i];
    int64_t *v = calloc(n ? n : 1, sizeof *v);
    assert_non_null(v);
    for (uint64_t i = 0; i < n; i++)
        v[i] = (int64_t)((i * 7) % 11) - 5;
    assert_true(blk_set_data(g, b, p, dims, nd, v, n));
    free(v);
}

static Graph *valid_graph(void)
{
    Graph *g = graph_create();
    assert_non_null(g);
    Block *in = add(g, BT_INPUT, B_IN, "data", 6, 6, 2, 0);
    in->has_socket_id = true;
    Block *sic = add(g, BT_SIC, B_SIC, "conv/in", 6, 6, 0, 2);
    Block *sw = add(g, BT_SW, B_SW, "conv/w", 0, 0, 3, 2);
    sw->shape.d[D_KY] = sw->shape.d[D_KX] = 3;
    data(g, sw, PR_INT_8, (const int32_t[]){3, 2, 3, 3}, 4);
    Block *sb = add(g, BT_SB, B_SB, "conv/b", 0, 0, 3, 0);
    data(g, sb, PR_INT_32, (const int32_t[]){3}, 1);
    Block *cc = add(g, BT_CC, B_CC, "conv", 4, 4, 3, 2);
    cc->shape.d[D_KY] = cc->shape.d[D_KX] = 3;
    cc->shape.d[D_IY] = cc->shape.d[D_IX] = 6;
    cc->bias_type = BIAS_VECTOR;
    assert_true(blk_set_attr(g, cc, AT_KERNEL_X, 3));
    assert_true(blk_set_attr(g, cc, AT_KERNEL_Y, 3));
    Block *si1 = add(g, BT_SI, B_SI1, "conv/out", 4, 4, 3, 0);
    Block *pool = add(g, BT_CCMPB, B_POOL, "pool", 2, 2, 3, 0);
    pool->shape.d[D_KY] = pool->shape.d[D_KX] = 2;
    pool->shape.d[D_IY] = pool->shape.d[D_IX] = 4;
    assert_true(blk_set_attr(g, pool, AT_KERNEL_X, 2));
    assert_true(blk_set_attr(g, pool, AT_KERNEL_Y, 2));
    assert_true(blk_set_attr(g, pool, AT_STRIDE_X, 2));
    assert_true(blk_set_attr(g, pool, AT_STRIDE_Y, 2));
    assert_true(blk_set_attr(g, pool, AT_CMP, -128));
    assert_true(blk_set_attr(g, pool, AT_BIT_SHIFT_NUM, 0));
    Block *sifc = add(g, BT_SIFC, B_SIFC, "fc/in", 0, 0, 0, 12);
    Block *swfc = add(g, BT_SWFC, B_SWFC, "fc/w", 0, 0, 5, 12);
    data(g, swfc, PR_INT_8, (const int32_t[]){5, 12}, 2);
    Block *sb2 = add(g, BT_SB, B_SB2, "fc/b", 0, 0, 5, 0);
    data(g, sb2, PR_INT_32, (const int32_t[]){5}, 1);
    Block *cvm = add(g, BT_CVM, B_CVM, "fc", 0, 0, 5, 12);
    cvm->bias_type = BIAS_VECTOR;
    Block *si2 = add(g, BT_SI, B_SI2, "fc/out", 0, 0, 5, 0);
    Block *out = add(g, BT_OUTPUT, B_OUT, "logits", 0, 0, 5, 0);
    out->has_socket_id = true;

    assert_non_null(graph_connect(g, in, 0, sic, 0));
    assert_non_null(graph_connect(g, sic, 0, cc, 0));
    assert_non_null(graph_connect(g, sw, 0, cc, 1));
    assert_non_null(graph_connect(g, sb, 0, cc, 2));
    assert_non_null(graph_connect(g, cc, 0, si1, 0));
    assert_non_null(graph_connect(g, si1, 0, pool, 0));
    Edge *re = graph_connect(g, pool, 0, sifc, 0);
    assert_non_null(re);
    Rearrange *r = edge_add_rearrange(g, re, RT_RESHAPE, 1);
    assert_non_null(r);
    assert_true(tensor_set_i32(g, &r->mats[0], (const int32_t[]){3}, 1,
                               (const int32_t[]){2, 1, 0}, 3));
    assert_non_null(graph_connect(g, sifc, 0, cvm, 0));
    assert_non_null(graph_connect(g, swfc, 0, cvm, 1));
    assert_non_null(graph_connect(g, sb2, 0, cvm, 2));
    assert_non_null(graph_connect(g, cvm, 0, si2, 0));
    Edge *last = graph_connect(g, si2, 0, out, 0);
    assert_non_null(last);
    assert_int_equal(last->id, E_SI_OUT);
    assert_false(graph_oom(g));
    return g;
}

static Block *blk(Graph *g, int32_t id)
{
    Block *b = graph_block(g, id);
    assert_non_null(b);
    return b;
}

/* Runs the verifier; the caller owns *d. */
static Status run_opts(Graph *g, bool strict, Diag *d)
{
    diag_init(d, "test.pb");
    VerifyOptions o = {.strict = strict};
    Status st = verify_graph_opts(g, &o, d);
    note_rules(d);
    if (getenv("TEST_VERBOSE"))
        diag_print(d, stderr, "taskir-dump");
    return st;
}

static Status run(Graph *g, Diag *d)
{
    return run_opts(g, false, d);
}

static void dump(const Diag *d)
{
    diag_print(d, stderr, "test_verify");
}

/* The entry of this rule about block (or edge) id, or NULL. */
static const DiagEntry *find(const Diag *d, const char *rule, bool edge, int32_t id)
{
    for (size_t i = 0; i < d->n; i++) {
        const DiagEntry *e = &d->entries[i];
        if (strcmp(e->rule, rule) != 0)
            continue;
        if (edge ? (e->has_edge && e->edge_id == id) : (e->has_block && e->block_id == id))
            return e;
    }
    return NULL;
}

/* Verifies g and checks that it breaks rule about block/edge id; with only, that every entry
 * has that rule. Returns the message of the entry (valid until the graph is destroyed: the
 * copy is static). Destroys g. */
static const char *expect_rule(Graph *g, const char *rule, bool edge, int32_t id, bool only)
{
    static char what[1024];
    Diag d;
    Status st = run(g, &d);
    const DiagEntry *e = find(&d, rule, edge, id);
    bool others = false;
    for (size_t i = 0; i < d.n; i++)
        others = others || strcmp(d.entries[i].rule, rule) != 0;
    if (st != ST_LOGIC || !e || (only && others)) {
        dump(&d);
        fail_msg("expected [%s] about %s %d%s; status %d", rule, edge ? "edge" : "block",
                 (int)id, only ? " and nothing else" : "", (int)st);
    }
    snprintf(what, sizeof what, "%s", e->what ? e->what : "");
    diag_finish(&d);
    graph_destroy(g);
    return what;
}

#define EXPECT_ONLY(g, rule, id) expect_rule(g, rule, false, id, true)
#define EXPECT_BLOCK(g, rule, id) expect_rule(g, rule, false, id, false)
#define EXPECT_ONLY_EDGE(g, rule, id) expect_rule(g, rule, true, id, true)
#define EXPECT_EDGE(g, rule, id) expect_rule(g, rule, true, id, false)

static void assert_contains(const char *s, const char *part)
{
    if (!s || !strstr(s, part))
        fail_msg("message '%s' does not contain '%s'", s ? s : "(none)", part);
}

static void expect_clean(Graph *g)
{
    Diag d;
    Status st = run(g, &d);
    if (st != ST_OK || d.n) {
        dump(&d);
        fail_msg("expected a clean graph, status %d", (int)st);
    }
    diag_finish(&d);
    graph_destroy(g);
}

/* Appends an attribute without replacing one of the same type (blk_set_attr replaces). */
static Attr *raw_attr(Graph *g, Block *b, AttrId id)
{
    Attr *a = arena_grow(g->arena, b->attrs, b->n_attrs, (size_t)b->n_attrs + 1, sizeof *a);
    assert_non_null(a);
    b->attrs = a;
    b->cap_attrs = ++b->n_attrs;
    a = &b->attrs[b->n_attrs - 1];
    memset(a, 0, sizeof *a);
    a->id = id;
    return a;
}

static Iface *iface_of(Graph *g, int32_t block, bool input, uint32_t cl, uint32_t k)
{
    Block *b = blk(g, block);
    Cluster *c = input ? &b->in[cl] : &b->out[cl];
    assert_true(k < c->n_ifaces);
    return &c->ifaces[k];
}

static void set_size(Iface *f, int32_t y, int32_t x, int32_t fdim, int32_t r)
{
    f->has_size = true;
    memset(&f->size, 0, sizeof f->size);
    f->size.d[D_Y] = y, f->size.d[D_X] = x, f->size.d[D_F] = fdim, f->size.d[D_R] = r;
}

/* ---- the valid graph ---- */

static void test_valid_graph_is_clean(void **state)
{
    (void)state;
    expect_clean(valid_graph());
}

static void test_valid_variants_are_clean(void **state)
{
    (void)state;
    /* an integral float attribute reads as that integer */
    Graph *g = valid_graph();
    Attr *a = (Attr *)blk_find_attr(blk(g, B_POOL), AT_CMP);
    a->has_value = false;
    a->has_fvalue = true;
    a->fvalue = 3.0f;
    assert_int_equal(blk_attr(blk(g, B_POOL), AT_CMP), 3);
    expect_clean(g);

    /* an input cluster tiled exactly by two interfaces (two edges), with explicit positions */
    g = valid_graph();
    Iface *src = iface_of(g, B_IN, false, 0, 0), *dst = iface_of(g, B_SIC, true, 0, 0);
    set_size(src, 3, 6, 2, 0);
    set_size(dst, 3, 6, 2, 0);
    Edge *e = graph_connect(g, blk(g, B_IN), 0, blk(g, B_SIC), 0);
    assert_non_null(e);
    src = iface_of(g, B_IN, false, 0, 1), dst = iface_of(g, B_SIC, true, 0, 1);
    set_size(src, 3, 6, 2, 0);
    set_size(dst, 3, 6, 2, 0);
    src->has_pos = dst->has_pos = true;
    src->pos.d[D_Y] = dst->pos.d[D_Y] = 3;
    expect_clean(g);

    /* cluster shapes that agree with the table (an unused dim written as 1 is the same) */
    g = valid_graph();
    Cluster *c = &blk(g, B_SI2)->in[0];
    c->has_shape = true;
    c->shape.d[D_F] = 5;
    c = &blk(g, B_CC)->in[1];
    c->has_shape = true;
    c->shape.d[D_Y] = 1, c->shape.d[D_F] = 3, c->shape.d[D_R] = 2, c->shape.d[D_KY] = 3,
    c->shape.d[D_KX] = 3;
    expect_clean(g);

    /* bias_type absent: the third cluster is the bias */
    g = valid_graph();
    blk(g, B_CC)->bias_type = BIAS_ABSENT;
    expect_clean(g);
}

/* ---- one rule at a time ---- */

static void test_block_id_dup(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    Block *b = add(g, BT_SB, B_SB, "again", 0, 0, 3, 0);
    data(g, b, PR_INT_32, (const int32_t[]){3}, 1);
    EXPECT_ONLY(g, "block.id.dup", B_SB);
}

/* A block with a taken id still names edges: its interfaces count with those of the block
 * the id finds; a NULL-typed one's do not (the verifier reads nothing else of it). */
static void test_block_id_dup_ifaces(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    Block *b = add(g, BT_SB, B_SB, "again", 0, 0, 3, 0);
    data(g, b, PR_INT_32, (const int32_t[]){3}, 1);
    Cluster *c = blk_add_output(g, b);
    assert_non_null(c);
    assert_non_null(cluster_add_iface(g, c, E_SB_CC));
    Diag d;
    assert_int_equal(run(g, &d), ST_LOGIC);
    assert_int_equal(d.n, 2);
    assert_non_null(find(&d, "block.id.dup", false, B_SB));
    const DiagEntry *e = find(&d, "edge.refs", true, E_SB_CC);
    assert_non_null(e);
    assert_contains(e->what, "named by 2 output interfaces of its src block");
    diag_finish(&d);
    graph_destroy(g);

    g = valid_graph();
    b = graph_add_block(g, BT_TASK_NULL, B_SB, NULL);
    assert_non_null(b);
    c = blk_add_output(g, b);
    assert_non_null(c);
    assert_non_null(cluster_add_iface(g, c, E_SB_CC));
    assert_int_equal(run(g, &d), ST_LOGIC);
    assert_int_equal(d.n, 2);
    assert_non_null(find(&d, "block.id.dup", false, B_SB));
    assert_non_null(find(&d, "block.null", false, B_SB));
    diag_finish(&d);
    graph_destroy(g);
}

static void test_edge_id_dup(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    assert_non_null(graph_add_edge(g, E_SB_CC, B_SB, B_CC));
    EXPECT_ONLY_EDGE(g, "edge.id.dup", E_SB_CC);
}

static void test_graph_empty(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    Diag d;
    assert_int_equal(run(g, &d), ST_LOGIC);
    assert_int_equal(d.n, 1);
    assert_string_equal(d.entries[0].rule, "graph.empty");
    diag_finish(&d);
    graph_destroy(g);
    /* what a 0-byte .pb decodes to */
    diag_init(&d, "empty.pb");
    assert_int_equal(graph_load_pb_mem((const uint8_t *)"", 0, &g, &d), ST_OK);
    diag_finish(&d);
    assert_int_equal(run(g, &d), ST_LOGIC);
    assert_true(diag_find(&d, "graph.empty") >= 0);
    diag_finish(&d);
    graph_destroy(g);
}

static void test_block_null(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    graph_add_block(g, BT_TASK_NULL, 99, NULL);
    EXPECT_ONLY(g, "block.null", 99);
}

static void test_shape_required(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    blk(g, B_SI1)->shape.d[D_F] = 0;
    const char *m = EXPECT_ONLY(g, "shape.required", B_SI1);
    assert_contains(m, "f");
}

static void test_shape_forbidden(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    blk(g, B_SB)->shape.d[D_R] = 5;
    const char *m = EXPECT_ONLY(g, "shape.forbidden", B_SB);
    assert_contains(m, "r=5");
}

static void test_shape_range(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    blk(g, B_SI2)->shape.d[D_Y] = -3;
    EXPECT_ONLY(g, "shape.range", B_SI2);

    g = valid_graph();
    blk(g, B_SI2)->shape.d[D_X] = (1 << 24) + 1;
    EXPECT_ONLY(g, "shape.range", B_SI2);

    g = valid_graph();
    blk(g, B_CC)->shape.n_branch = -2;
    const char *m = EXPECT_ONLY(g, "shape.range", B_CC);
    assert_contains(m, "n_branch=-2");
}

static void test_shape_window(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    assert_true(blk_set_attr(g, blk(g, B_CC), AT_STRIDE_Y, 2));
    const char *m = EXPECT_ONLY(g, "shape.window", B_CC);
    assert_contains(m, "y=4 but iy=6, kernel 3, stride 2, pad 0/0, dilation 1 give 2");

    g = valid_graph(); /* dilation counts for CC */
    assert_true(blk_set_attr(g, blk(g, B_CC), AT_DILATION_X, 2));
    m = EXPECT_ONLY(g, "shape.window", B_CC);
    assert_contains(m, "x=4 but ix=6, kernel 3, stride 1, pad 0/0, dilation 2 give 2");

    g = valid_graph(); /* padding */
    assert_true(blk_set_attr(g, blk(g, B_POOL), AT_PAD_LEFT, 2));
    m = EXPECT_ONLY(g, "shape.window", B_POOL);
    assert_contains(m, "pad 2/0");

    g = valid_graph(); /* a window that does not fit */
    Block *cc = blk(g, B_CC);
    cc->shape.d[D_KY] = 7;
    assert_true(blk_set_attr(g, cc, AT_KERNEL_Y, 7));
    /* the weight's ky changes too: the SW block and its data must follow to break one rule */
    Block *sw = blk(g, B_SW);
    sw->shape.d[D_KY] = 7;
    sw->data = NULL;
    data(g, sw, PR_INT_8, (const int32_t[]){3, 2, 7, 3}, 4);
    m = EXPECT_ONLY(g, "shape.window", B_CC);
    assert_contains(m, "does not fit");
}

static void test_attr_kernel(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    assert_true(blk_set_attr(g, blk(g, B_CC), AT_KERNEL_X, 5));
    const char *m = EXPECT_ONLY(g, "attr.kernel", B_CC);
    assert_contains(m, "KERNEL_X=5 but the shape gives kx=3");
}

static void test_attr_dup(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    Attr *a = raw_attr(g, blk(g, B_CC), AT_KERNEL_Y);
    a->has_value = true;
    a->value = 3;
    const char *m = EXPECT_ONLY(g, "attr.dup", B_CC);
    assert_contains(m, "KERNEL_Y");
}

static void test_attr_forbidden(void **state)
{
    (void)state;
    Graph *g = valid_graph(); /* a kernel of 3 means something CVM cannot do */
    assert_true(blk_set_attr(g, blk(g, B_CVM), AT_KERNEL_X, 3));
    const char *m = EXPECT_ONLY(g, "attr.forbidden", B_CVM);
    assert_contains(m, "CVM does not take attribute KERNEL_X");

    g = valid_graph(); /* a stride of 0 is not neutral everywhere: only 0 reads as 1 */
    assert_true(blk_set_attr(g, blk(g, B_CVM), AT_PAD_UP, 1));
    EXPECT_ONLY(g, "attr.forbidden", B_CVM);
}

/* Warnings (status ST_OK entries) of a strict run: exactly one, of this rule about block id. */
static const char *expect_warning(Graph *g, const char *rule, int32_t id)
{
    static char what[1024];
    Diag d;
    Status plain = run(g, &d);
    size_t plain_n = d.n;
    diag_finish(&d);
    Status st = run_opts(g, true, &d);
    const DiagEntry *e = find(&d, rule, false, id);
    if (plain != ST_OK || plain_n || st != ST_OK || d.n != 1 || !e || e->status != ST_OK) {
        dump(&d);
        fail_msg("expected a clean plain run and one [%s] warning about block %d; status %d/%d",
                 rule, (int)id, (int)plain, (int)st);
    }
    snprintf(what, sizeof what, "%s", e->what ? e->what : "");
    diag_finish(&d);
    graph_destroy(g);
    return what;
}

/* The existing tools write STRIDE_X/Y, PAD_* and CONSTANT_B on every compute block, at values
 * that change nothing: accepted (a warning with --strict). */
static void test_attr_neutral_accepted(void **state)
{
    (void)state;
    static const struct {
        AttrId a;
        int32_t v;
    } neutral[] = {{AT_KERNEL_X, 1}, {AT_STRIDE_Y, 1}, {AT_STRIDE_X, 0}, {AT_PAD_LEFT, 0},
                   {AT_DILATION_Y, 1}, {AT_CMP, 0}, {AT_BIT_SHIFT_NUM, 0}};
    for (size_t i = 0; i < sizeof neutral / sizeof neutral[0]; i++) {
        Graph *g = valid_graph();
        assert_true(blk_set_attr(g, blk(g, B_CVM), neutral[i].a, neutral[i].v));
        const char *m = expect_warning(g, "attr.forbidden", B_CVM);
        assert_contains(m, "neutral value is accepted and kept");
    }
}

static void test_attr_required(void **state)
{
    (void)state;
    /* bias_type CONSTANT needs CONSTANT_B (the bias cluster is then one too many) */
    Graph *g = valid_graph();
    blk(g, B_CC)->bias_type = BIAS_CONSTANT;
    const char *m = EXPECT_BLOCK(g, "attr.required", B_CC);
    assert_contains(m, "CONSTANT_B");

    /* a table-required attribute: CVS needs CONSTANT_A */
    g = valid_graph();
    Block *cvs = add(g, BT_CVS, 70, "scale", 4, 4, 3, 0);
    blk_add_output(g, cvs);
    blk_add_input(g, cvs);
    Iface *f = cluster_add_iface(g, &cvs->in[0], 71);
    assert_non_null(f);
    Edge *e = graph_add_edge(g, 71, B_SI1, 70);
    assert_non_null(e);
    assert_non_null(cluster_add_iface(g, &blk(g, B_SI1)->out[0], 71));
    m = EXPECT_ONLY(g, "attr.required", 70);
    assert_contains(m, "CONSTANT_A");
}

static void test_attr_range(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    assert_true(blk_set_attr(g, blk(g, B_POOL), AT_BIT_SHIFT_NUM, 40));
    const char *m = EXPECT_ONLY(g, "attr.range", B_POOL);
    assert_contains(m, "BIT_SHIFT_NUM=40 is outside 0..31");
}

static void test_attr_value(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    Attr *a = (Attr *)blk_find_attr(blk(g, B_POOL), AT_CMP);
    a->has_value = false;
    a->has_fvalue = true;
    a->fvalue = 2.5f;
    const char *m = EXPECT_ONLY(g, "attr.value", B_POOL);
    assert_contains(m, "2.5");

    g = valid_graph(); /* no value at all */
    a = (Attr *)blk_find_attr(blk(g, B_POOL), AT_CMP);
    a->has_value = false;
    EXPECT_ONLY(g, "attr.value", B_POOL);
}

static void test_bias_type(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    blk(g, B_SI1)->bias_type = BIAS_VECTOR;
    const char *m = EXPECT_ONLY(g, "bias.type", B_SI1);
    assert_contains(m, "SI takes no bias");
}

static void test_cluster_count(void **state)
{
    (void)state;
    Graph *g = valid_graph(); /* a fourth input cluster on CC */
    assert_non_null(blk_add_input(g, blk(g, B_CC)));
    const char *m = EXPECT_ONLY(g, "cluster.count", B_CC);
    assert_contains(m, "has 4 input clusters; CC with bias_type VECTOR takes 3 (input, weight, "
                       "bias)");

    g = valid_graph(); /* a second output cluster on CC */
    assert_non_null(blk_add_output(g, blk(g, B_CC)));
    m = EXPECT_ONLY(g, "cluster.count", B_CC);
    assert_contains(m, "has 2 output clusters; CC takes 1");

    g = valid_graph(); /* storage with data takes no input cluster that receives anything */
    assert_non_null(cluster_add_iface(g, blk_add_input(g, blk(g, B_SW)), 999));
    m = EXPECT_BLOCK(g, "cluster.count", B_SW);
    assert_contains(m, "with data takes none");

    g = valid_graph(); /* CADD: n_branch says how many inputs */
    Block *add2 = add(g, BT_CADD, 80, "add", 4, 4, 3, 0);
    add2->shape.n_branch = 3;
    add2->bias_type = BIAS_CONSTANT;
    assert_true(blk_set_attr(g, add2, AT_CONSTANT_B, 0));
    for (int i = 0; i < 2; i++) {
        Edge *e = graph_connect(g, blk(g, B_SI1), 0, add2, (uint32_t)i);
        assert_non_null(e);
    }
    assert_non_null(blk_add_output(g, add2));
    m = EXPECT_ONLY(g, "cluster.count", 80);
    assert_contains(m, "'input' 3 times (n_branch)");
}

static void test_cluster_shape(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    Cluster *c = &blk(g, B_CC)->in[0];
    c->has_shape = true;
    c->shape.d[D_Y] = 6, c->shape.d[D_X] = 6, c->shape.d[D_R] = 3;
    /* the SIC end still gives r=2, so edge.size follows; cluster.shape names both shapes */
    const char *m = EXPECT_BLOCK(g, "cluster.shape", B_CC);
    assert_contains(m, "input cluster 0 ('input') has shape y=6 x=6 r=3, the CC shape gives "
                       "y=6 x=6 r=2");
}

static void test_iface_bounds(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    Iface *f = iface_of(g, B_SI1, false, 0, 0);
    set_size(f, 4, 4, 3, 0);
    f->has_pos = true;
    f->pos.d[D_Y] = 1;
    const char *m = EXPECT_ONLY(g, "iface.bounds", B_SI1);
    assert_contains(m, "y position 1 + size 4 > y=4");

    g = valid_graph(); /* a negative position */
    f = iface_of(g, B_SI1, false, 0, 0);
    f->has_pos = true;
    f->pos.d[D_X] = -1;
    EXPECT_ONLY(g, "iface.bounds", B_SI1);

    g = valid_graph(); /* a size in a dim the cluster does not use */
    f = iface_of(g, B_SB, false, 0, 0);
    set_size(f, 0, 0, 3, 4);
    m = EXPECT_ONLY(g, "iface.bounds", B_SB);
    assert_contains(m, "r size 4");

    g = valid_graph(); /* a zero size in a used dim */
    f = iface_of(g, B_SB, false, 0, 0);
    set_size(f, 0, 0, 0, 0);
    EXPECT_ONLY(g, "iface.bounds", B_SB);
}

static void test_iface_edge(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    assert_non_null(cluster_add_iface(g, &blk(g, B_SIFC)->out[0], 999));
    const char *m = EXPECT_ONLY(g, "iface.edge", B_SIFC);
    assert_contains(m, "names edge 999, which does not exist");

    g = valid_graph(); /* an edge of other blocks */
    assert_non_null(cluster_add_iface(g, &blk(g, B_SIFC)->out[0], E_IN_SIC));
    m = EXPECT_ONLY(g, "iface.edge", B_SIFC);
    assert_contains(m, "whose src is block 1");
}

static void test_cover_gap(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    set_size(iface_of(g, B_IN, false, 0, 0), 3, 6, 2, 0);
    set_size(iface_of(g, B_SIC, true, 0, 0), 3, 6, 2, 0);
    const char *m = EXPECT_ONLY(g, "cover.gap", B_SIC);
    assert_contains(m, "cover 36 of its 72 elements");

    g = valid_graph(); /* an input cluster with no interface at all */
    Block *cc = blk(g, B_CC);
    cc->in[2].n_ifaces = 0;
    EXPECT_BLOCK(g, "cover.gap", B_CC); /* edge E_SB_CC loses its reference too */
}

static void test_cover_overlap(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    assert_non_null(graph_connect(g, blk(g, B_IN), 0, blk(g, B_SIC), 0));
    const char *m = EXPECT_ONLY(g, "cover.overlap", B_SIC);
    assert_contains(m, "interfaces 0 (edge 0) and 1 (edge 12) overlap");

    /* overlap and gap together: same total volume as the cluster */
    g = valid_graph();
    set_size(iface_of(g, B_IN, false, 0, 0), 3, 6, 2, 0);
    set_size(iface_of(g, B_SIC, true, 0, 0), 3, 6, 2, 0);
    assert_non_null(graph_connect(g, blk(g, B_IN), 0, blk(g, B_SIC), 0));
    Iface *s = iface_of(g, B_IN, false, 0, 1), *d = iface_of(g, B_SIC, true, 0, 1);
    set_size(s, 3, 6, 2, 0);
    set_size(d, 3, 6, 2, 0);
    s->has_pos = d->has_pos = true;
    s->pos.d[D_Y] = d->pos.d[D_Y] = 2;
    Diag dg;
    assert_int_equal(run(g, &dg), ST_LOGIC);
    assert_non_null(find(&dg, "cover.overlap", false, B_SIC));
    assert_non_null(find(&dg, "cover.gap", false, B_SIC));
    diag_finish(&dg);
    graph_destroy(g);
}

static void test_edge_endpoint(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    assert_non_null(graph_add_edge(g, 50, 777, B_SIC));
    const char *m = EXPECT_EDGE(g, "edge.endpoint", 50); /* and edge.refs: nothing names it */
    assert_contains(m, "src block 777 does not exist");
}

static void test_edge_refs(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    assert_non_null(cluster_add_iface(g, &blk(g, B_SI1)->out[0], E_SI_POOL));
    const char *m = EXPECT_ONLY_EDGE(g, "edge.refs", E_SI_POOL);
    assert_contains(m, "named by 2 output interfaces");
}

static void test_edge_size(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    set_size(iface_of(g, B_CC, false, 0, 0), 4, 4, 2, 0);
    const char *m = EXPECT_ONLY_EDGE(g, "edge.size", E_CC_SI);
    assert_contains(m, "src box (y=4 x=4 f=2) and the dst box (y=4 x=4 f=3) differ");
}

/* Verifies g, expects rule about block id (with the edge it names) and no edge.size finding:
 * the culprit is named instead of the edge. Returns the message. Destroys g. */
static const char *expect_culprit(Graph *g, const char *rule, int32_t id, int32_t edge)
{
    static char what[1024];
    Diag d;
    run(g, &d);
    const DiagEntry *e = find(&d, rule, false, id);
    if (!e || !e->has_edge || e->edge_id != edge || diag_find(&d, "edge.size") >= 0) {
        dump(&d);
        fail_msg("expected [%s] about block %d and edge %d, and no [edge.size]", rule, (int)id,
                 (int)edge);
    }
    snprintf(what, sizeof what, "%s", e->what ? e->what : "");
    diag_finish(&d);
    graph_destroy(g);
    return what;
}

/* A CC whose SW disagrees with its kernel; a CLUT whose LUT_DW disagrees with its table. */
static void test_shape_operand(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    blk(g, B_SW)->shape.d[D_F] = 4; /* 4 filters where the CC computes f=3 */
    const char *m = expect_culprit(g, "shape.operand", B_CC, E_SW_CC);
    assert_contains(m, "its shape gives its 'weight' f=3 r=2 ky=3 kx=3, but SW block 3 "
                       "'conv/w', which feeds its 'weight' (edge 2), holds f=4 r=2 ky=3 kx=3");

    g = valid_graph(); /* SI2 (f=5) -> CLUT with LUT_DW 4 and a 256-entry SB -> SI */
    Block *lut = add(g, BT_CLUT, 70, "act", 1, 1, 5, 0);
    Block *tab = add(g, BT_SB, 71, "act/table", 0, 0, 256, 0);
    data(g, tab, PR_INT_32, (const int32_t[]){256}, 1);
    Block *res = add(g, BT_SI, 72, "act/out", 1, 1, 5, 0);
    assert_true(blk_set_attr(g, lut, AT_LUT_DW, 4));
    blk(g, B_SI2)->shape.d[D_Y] = blk(g, B_SI2)->shape.d[D_X] = 1;
    blk(g, B_OUT)->shape.d[D_Y] = blk(g, B_OUT)->shape.d[D_X] = 1;
    assert_non_null(graph_connect(g, blk(g, B_SI2), 0, lut, 0));
    Edge *te = graph_connect(g, tab, 0, lut, 1);
    assert_non_null(te);
    assert_non_null(graph_connect(g, lut, 0, res, 0));
    m = expect_culprit(g, "shape.operand", 70, te->id);
    assert_contains(m, "LUT_DW=4 gives a table of 16 entries, but SB block 71 'act/table', "
                       "which feeds its 'lut'");
    assert_contains(m, "holds f=256");
}

/* An INPUT with a dim the file wrote as -1; an OUTPUT with a dim its producer lacks. */
static void test_io_shape(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    Block *in = blk(g, B_IN);
    in->shape.d[D_Y] = 0;
    in->shape.minus_one = 1u << D_Y;
    const char *m = expect_culprit(g, "io.shape", B_IN, E_IN_SIC);
    assert_contains(m, "its shape gives (y=1 x=6 f=2) (the file gives y as -1, read as absent");
    assert_contains(m, "but SIC block 2 'conv/in', which it feeds (edge 0), holds (y=6 x=6 f=2)");

    g = valid_graph();
    blk(g, B_OUT)->shape.d[D_R] = 3;
    m = expect_culprit(g, "io.shape", B_OUT, E_SI_OUT);
    assert_contains(m, "(y=1 x=1 f=5 r=3) (r: a dim SI block 12 'fc/out' does not have)");
}

/* Replaces block b's data by FLOAT_32 values (same count as before). */
static void set_float_data(Graph *g, Block *b, const float *vals, uint32_t n)
{
    Tensor *t = b->data;
    float *f = arena_alloc(g->arena, n, sizeof *f);
    assert_non_null(f);
    memcpy(f, vals, n * sizeof *f);
    t->i32 = NULL, t->n_i32 = 0;
    t->f32 = f, t->n_f32 = n;
    t->prec = PR_FLOAT_32, t->has_prec = true;
}

/* A FLOAT_32 data tensor of non-integers: every block computes on integers. */
static void test_data_integer(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    set_float_data(g, blk(g, B_SB2), (const float[]){1.0f, 2.5f, 3.0f, -0.5f, 4.0f}, 5);
    const char *m = EXPECT_ONLY(g, "data.integer", B_SB2);
    assert_contains(m, "FLOAT_32 data value 2.5 at index 1 is not an integer (2 values are not)");

    g = valid_graph(); /* integral floats are fine */
    set_float_data(g, blk(g, B_SB2), (const float[]){1.0f, -2.0f, 3.0f, 0.0f, 4.0f}, 5);
    expect_clean(g);
}

static void test_edge_volume(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    set_size(iface_of(g, B_POOL, false, 0, 0), 2, 2, 2, 0);
    const char *m = EXPECT_ONLY_EDGE(g, "edge.volume", E_POOL_SIFC);
    assert_contains(m, "holds 8 elements");

    /* a rearrangement that does not keep the volume: edge.volume stays silent, its own
     * parameters decide (here SCALE has none: rearrange.scale) */
    g = valid_graph();
    set_size(iface_of(g, B_POOL, false, 0, 0), 2, 2, 2, 0);
    graph_edge(g, E_POOL_SIFC)->re[0].type = RT_SCALE;
    EXPECT_ONLY_EDGE(g, "rearrange.scale", E_POOL_SIFC);
}

static void test_rearrange_params(void **state)
{
    (void)state;
    /* the RESHAPE of the valid graph with a permutation of the wrong length */
    Graph *g = valid_graph();
    Rearrange *r = &graph_edge(g, E_POOL_SIFC)->re[0];
    int32_t dims[1] = {2}, bad[2] = {1, 0};
    assert_true(tensor_set_i32(g, &r->mats[0], dims, 1, bad, 2));
    EXPECT_ONLY_EDGE(g, "rearrange.reshape", E_POOL_SIFC);
}

static void test_edge_pair(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    blk(g, B_SW)->type = BT_SW2D;
    const char *m = EXPECT_ONLY(g, "edge.pair", B_CC);
    assert_contains(m, "input cluster 1 ('weight') of CC takes SW, not SW2D (edge 2 from block "
                       "3)");

    /* storage feeding storage */
    g = valid_graph();
    blk(g, B_POOL)->type = BT_SI;
    blk(g, B_POOL)->n_attrs = 0;
    blk(g, B_POOL)->shape = blk(g, B_SI1)->shape;
    set_size(iface_of(g, B_POOL, false, 0, 0), 2, 2, 3, 0); /* inside the SI's cluster */
    Diag d;
    assert_int_equal(run(g, &d), ST_LOGIC);
    const DiagEntry *e = find(&d, "edge.pair", false, B_POOL);
    assert_non_null(e);
    assert_true(e->has_edge);
    assert_int_equal(e->edge_id, E_SI_POOL);
    diag_finish(&d);
    graph_destroy(g);
}

static void test_data_compute(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    data(g, blk(g, B_CC), PR_INT_32, (const int32_t[]){3}, 1);
    EXPECT_ONLY(g, "data.compute", B_CC);
}

static void test_data_dims(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    Tensor *t = blk(g, B_SW)->data;
    t->dims[1] = 6, t->dims[2] = 3, t->dims[3] = 1; /* [3, 6, 3, 1]: still 54 values */
    const char *m = EXPECT_ONLY(g, "data.dims", B_SW);
    assert_contains(m, "data dims [3, 6, 3, 1] differ from the block's used dims [3, 2, 3, 3]");

    g = valid_graph(); /* SI with absent y and x: dims [f] */
    Block *si2 = blk(g, B_SI2);
    int64_t v[5] = {0};
    assert_true(blk_set_data(g, si2, PR_INT_32, (const int32_t[]){1, 1, 5}, 3, v, 5));
    si2->n_in = 0; /* storage with data takes no input (edge E_CVM_SI loses its end) */
    EXPECT_BLOCK(g, "data.dims", B_SI2);
}

static void test_data_len(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    Block *sb = blk(g, B_SB);
    int64_t v[2] = {1, 2};
    assert_true(blk_set_data(g, sb, PR_INT_32, (const int32_t[]){3}, 1, v, 2));
    const char *m = EXPECT_ONLY(g, "data.len", B_SB);
    assert_contains(m, "int32_data holds 2 values, dims [3] give 3");
}

static void test_data_container(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    Tensor *t = blk(g, B_SB)->data;
    static float extra[2] = {1.0f, 2.0f};
    t->f32 = extra;
    t->n_f32 = 2;
    const char *m = EXPECT_ONLY(g, "data.container", B_SB);
    assert_contains(m, "belongs in int32_data, but float_data has 2 values");
}

static void test_data_range(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    Tensor *t = blk(g, B_SW)->data;
    t->i32[5] = 200;
    t->i32[9] = -129;
    const char *m = EXPECT_ONLY(g, "data.range", B_SW);
    assert_contains(m, "value 200 at index 5 is outside INT_8's range -128..127 (2 values");

    g = valid_graph(); /* the block's precision when the tensor has none */
    t = blk(g, B_SB)->data;
    t->has_prec = false;
    t->i32[0] = 1000; /* SB without a precision is INT_8 */
    EXPECT_ONLY(g, "data.range", B_SB);
}

/* The data.range message of block id when verifying g on threads threads ("" if none). */
static void range_message(Graph *g, int32_t id, uint32_t threads, char *buf, size_t len)
{
    Diag d;
    diag_init(&d, "test.pb");
    VerifyOptions o = {.threads = threads};
    verify_graph_opts(g, &o, &d);
    const DiagEntry *e = find(&d, "data.range", false, id);
    snprintf(buf, len, "%s", e ? e->what : "");
    diag_finish(&d);
}

/* Large tensors' values are checked on threads (in pieces): the same findings for every
 * thread count, naming the first value out of range, also in a late piece. */
static void test_data_range_threads(void **state)
{
    (void)state;
    enum { F = 1100, R = 1000 }; /* 1.1 M values: above the threshold for threads */
    int64_t *w = malloc((size_t)F * R * sizeof *w);
    assert_non_null(w);
    for (int64_t i = 0; i < (int64_t)F * R; i++)
        w[i] = (i * 7919) % 256 - 128;
    w[900001] = 128;
    w[1000003] = -300;
    Graph *g = graph_create();
    Block *bad = graph_add_block(g, BT_SW, GRAPH_AUTO_ID, "bad");
    Block *good = graph_add_block(g, BT_SW, GRAPH_AUTO_ID, "good");
    assert_true(bad && good);
    int32_t dims[] = {F, R};
    for (int k = 0; k < 2; k++) {
        Block *b = k ? good : bad;
        b->shape.d[D_F] = F, b->shape.d[D_R] = R;
        b->has_prec = true, b->prec = PR_INT_8;
        assert_true(blk_set_data(g, b, PR_INT_8, dims, 2, w, (uint64_t)F * R));
        w[900001] = 0, w[1000003] = 0;
    }
    free(w);
    char one[512], many[512];
    range_message(g, bad->id, 1, one, sizeof one);
    assert_contains(one, "value 128 at index 900001 is outside INT_8's range -128..127 (2 values");
    for (uint32_t t = 2; t <= 4; t++) {
        range_message(g, bad->id, t, many, sizeof many);
        assert_string_equal(one, many);
        range_message(g, good->id, t, many, sizeof many);
        assert_string_equal(many, "");
    }
    graph_destroy(g);
}

/* Blocks that share one array of values (the copies split and replicate make) are scanned
 * once: each sharer still gets its finding, on any thread count, and a block holding equal
 * values in an array of its own none. */
static void test_data_range_shared(void **state)
{
    (void)state;
    enum { F = 1100, R = 1000 }; /* above the threshold for threads */
    int64_t *w = malloc((size_t)F * R * sizeof *w);
    assert_non_null(w);
    for (int64_t i = 0; i < (int64_t)F * R; i++)
        w[i] = (i * 7919) % 256 - 128;
    w[700001] = 129;
    Graph *g = graph_create();
    Block *b[4];
    static const char *const names[4] = {"first", "second", "third", "other"};
    int32_t dims[] = {F, R};
    for (int k = 0; k < 4; k++) {
        b[k] = graph_add_block(g, BT_SW, GRAPH_AUTO_ID, names[k]);
        assert_non_null(b[k]);
        b[k]->shape.d[D_F] = F, b[k]->shape.d[D_R] = R;
        b[k]->has_prec = true, b[k]->prec = PR_INT_8;
    }
    assert_true(blk_set_data(g, b[0], PR_INT_8, dims, 2, w, (uint64_t)F * R));
    w[700001] = 0;
    assert_true(blk_set_data(g, b[3], PR_INT_8, dims, 2, w, (uint64_t)F * R));
    free(w);
    b[1]->data = b[0]->data;
    b[2]->data = b[0]->data;
    for (uint32_t t = 1; t <= 2; t++) {
        char m[512];
        for (int k = 0; k < 4; k++) {
            range_message(g, b[k]->id, t, m, sizeof m);
            if (k < 3)
                assert_contains(m, "value 129 at index 700001 is outside INT_8's range");
            else
                assert_string_equal(m, "");
        }
    }
    graph_destroy(g);
}

static void test_data_missing(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    add(g, BT_SI, 50, "lonely", 0, 0, 3, 0);
    EXPECT_ONLY(g, "data.missing", 50);
}

static void test_io_socket(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    blk(g, B_IN)->has_socket_id = false; /* reads as socket 0, as a proto2 reader's */
    const char *m = expect_warning(g, "io.socket", B_IN);
    assert_contains(m, "INPUT block without a socket_id has socket 0");

    g = valid_graph(); /* and 0 is then taken */
    blk(g, B_OUT)->has_socket_id = false;
    Block *out2 = add(g, BT_OUTPUT, 60, "second", 0, 0, 0, 0);
    out2->has_socket_id = true;
    EXPECT_BLOCK(g, "io.socket.dup", 60);
}

/* A storage block that holds data may carry an input cluster with no interfaces, as the
 * existing tools write their data-holding SI blocks. */
static void test_data_block_empty_input(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    assert_non_null(blk_add_input(g, blk(g, B_SW)));
    const char *m = expect_warning(g, "cluster.count", B_SW);
    assert_contains(m, "with no interfaces");
}

static void test_io_socket_dup(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    Block *in2 = add(g, BT_INPUT, 60, "data2", 0, 0, 0, 0);
    in2->has_socket_id = true;
    assert_non_null(blk_add_output(g, in2));
    const char *m = EXPECT_ONLY(g, "io.socket.dup", 60);
    assert_contains(m, "socket_id 0 is also the socket of INPUT block 1");
}

/* io.model: a model tensor on a block that is no INPUT/OUTPUT, of a float element type, or
 * whose volume is no whole number of the block's samples, a range of admitted values on an
 * OUTPUT or empty; a batch of 3 samples verifies, and an INPUT's range -127 .. 127. */
static void test_io_model(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    const int64_t batch[] = {3, 6, 6, 2}, odd[] = {3, 4};
    assert_true(blk_set_model(g, blk(g, B_IN), batch, 4, PR_INT_32, false));
    assert_true(blk_set_model(g, blk(g, B_OUT), (const int64_t[]){3, 5}, 2, PR_INT_8, true));
    expect_clean(g);
    g = valid_graph();
    assert_true(blk_set_model(g, blk(g, B_SI1), batch, 4, PR_INT_32, false));
    assert_contains(EXPECT_ONLY(g, "io.model", B_SI1), "belongs to an INPUT or OUTPUT block");
    g = valid_graph();
    assert_true(blk_set_model(g, blk(g, B_OUT), (const int64_t[]){5}, 1, PR_FLOAT_32, true));
    assert_contains(EXPECT_ONLY(g, "io.model", B_OUT), "FLOAT_32");
    g = valid_graph();
    assert_true(blk_set_model(g, blk(g, B_OUT), odd, 2, PR_INT_32, false));
    assert_contains(EXPECT_ONLY(g, "io.model", B_OUT), "12 elements, not a whole number of "
                    "the block's 5");
    /* a range of admitted values: an INPUT's, leaving some value of its precision */
    g = valid_graph();
    assert_true(blk_set_model(g, blk(g, B_IN), batch, 4, PR_INT_32, false));
    blk(g, B_IN)->has_model_range = true;
    blk(g, B_IN)->model_lo = -127;
    blk(g, B_IN)->model_hi = 127;
    expect_clean(g);
    g = valid_graph();
    assert_true(blk_set_model(g, blk(g, B_OUT), (const int64_t[]){5}, 1, PR_INT_32, false));
    blk(g, B_OUT)->has_model_range = true;
    assert_contains(EXPECT_ONLY(g, "io.model", B_OUT), "belongs to an INPUT block");
    g = valid_graph();
    assert_true(blk_set_model(g, blk(g, B_IN), batch, 4, PR_INT_32, false));
    blk(g, B_IN)->has_model_range = true;
    blk(g, B_IN)->model_lo = 5;
    blk(g, B_IN)->model_hi = 4;
    assert_contains(EXPECT_ONLY(g, "io.model", B_IN), "range 5 .. 4 leaves no value");
}

static void test_graph_cycle(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    assert_non_null(graph_connect(g, blk(g, B_SI2), 0, blk(g, B_SIC), 0));
    const char *m = EXPECT_BLOCK(g, "graph.cycle", B_SIC);
    assert_contains(m, "cycle of 7 blocks: 2 -> 5 -> 6 -> 7 -> 8 -> 11 -> 12 -> 2");

    /* a self loop */
    g = valid_graph();
    assert_non_null(graph_add_edge(g, 90, B_SI1, B_SI1));
    m = EXPECT_BLOCK(g, "graph.cycle", B_SI1);
    assert_contains(m, "cycle of 1 blocks: 6 -> 6");
}

static void test_group_block(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    g->groups = arena_alloc(g->arena, 1, sizeof *g->groups);
    assert_non_null(g->groups);
    g->n_groups = 1;
    g->groups[0].id = 1;
    static int32_t ids[3] = {B_CC, 4242, B_SW};
    g->groups[0].block_ids = ids;
    g->groups[0].n_block_ids = 3;
    Diag d;
    assert_int_equal(run(g, &d), ST_LOGIC);
    assert_int_equal(d.n, 1);
    assert_string_equal(d.entries[0].rule, "group.block");
    assert_string_equal(d.entries[0].where, "group 1");
    assert_contains(d.entries[0].what, "block 4242");
    diag_finish(&d);
    graph_destroy(g);
}

static void test_group_dup(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    g->groups = arena_alloc(g->arena, 2, sizeof *g->groups);
    assert_non_null(g->groups);
    g->n_groups = 2;
    static int32_t a[3] = {B_CC, B_SW, B_CC}, b[2] = {B_CVM, B_SW};
    g->groups[0] = (Group){.id = 1, .block_ids = a, .n_block_ids = 3};
    g->groups[1] = (Group){.id = 2, .block_ids = b, .n_block_ids = 2};
    Diag d;
    assert_int_equal(run(g, &d), ST_LOGIC);
    assert_int_equal(d.n, 2);
    assert_string_equal(d.entries[0].rule, "group.dup");
    assert_string_equal(d.entries[0].where, "group 1");
    assert_contains(d.entries[0].what, "twice");
    assert_string_equal(d.entries[1].rule, "group.dup");
    assert_string_equal(d.entries[1].where, "group 2");
    assert_contains(d.entries[1].what, "which group 1 lists too");
    diag_finish(&d);
    /* the same blocks in separate groups are fine */
    a[2] = B_SIC;
    b[1] = B_SWFC;
    assert_int_equal(run(g, &d), ST_OK);
    diag_finish(&d);
    graph_destroy(g);
}

static void test_limit_volume(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    Block *b = add(g, BT_SI, 51, "huge", 1 << 14, 1 << 14, 16, 0);
    assert_non_null(blk_add_input(g, b));
    EXPECT_ONLY(g, "limit.volume", 51);

    g = valid_graph(); /* a data tensor */
    Tensor *t = blk(g, B_SB)->data;
    static int32_t dims[3] = {1 << 16, 1 << 16, 3};
    t->dims = dims;
    t->n_dims = 3;
    EXPECT_BLOCK(g, "limit.volume", B_SB); /* and data.dims */
}

/* ---- several at once ---- */

static void test_many_rules_at_once(void **state)
{
    (void)state;
    Graph *g = valid_graph();
    assert_true(blk_set_attr(g, blk(g, B_CC), AT_STRIDE_Y, 2)); /* shape.window */
    blk(g, B_SW)->data->i32[0] = 500;                          /* data.range */
    assert_true(blk_set_attr(g, blk(g, B_CVM), AT_PAD_UP, 1));  /* attr.forbidden */
    blk(g, B_SB2)->shape.d[D_KX] = 2;                          /* shape.forbidden */
    assert_non_null(cluster_add_iface(g, &blk(g, B_SIFC)->out[0], 999)); /* iface.edge */
    assert_non_null(graph_add_edge(g, 77, B_SI2, 12345));      /* edge.endpoint, edge.refs */
    Diag d;
    assert_int_equal(run(g, &d), ST_LOGIC);
    struct {
        const char *rule;
        bool edge;
        int32_t id;
    } want[] = {
        {"shape.window", false, B_CC},  {"data.range", false, B_SW},
        {"attr.forbidden", false, B_CVM}, {"shape.forbidden", false, B_SB2},
        {"iface.edge", false, B_SIFC},  {"edge.endpoint", true, 77},
        {"edge.refs", true, 77},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!find(&d, want[i].rule, want[i].edge, want[i].id)) {
            dump(&d);
            fail_msg("[%s] missing", want[i].rule);
        }
    assert_int_equal(d.n, sizeof want / sizeof want[0]);
    diag_finish(&d);
    graph_destroy(g);
}

/* ---- robustness ---- */

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static int32_t pick(uint64_t *s)
{
    static const int32_t vals[] = {0,  1,  2,  3,        4,         6,         -1,
                                   -5, 12, 1 << 24, (1 << 24) + 1, INT32_MAX, INT32_MIN,
                                   65536};
    return vals[rng_next(s) % (sizeof vals / sizeof vals[0])];
}

static void random_shape(uint64_t *s, Shape *sh)
{
    for (int i = 0; i < TIR_NDIMS; i++)
        sh->d[i] = rng_next(s) % 3 ? pick(s) : 0;
    sh->n_branch = rng_next(s) % 4 ? 0 : pick(s);
}

/* A graph of random blocks of every type, random clusters and interfaces naming random
 * (often dangling) edges, random boxes, data and attributes. */
static Graph *garbage_graph(uint64_t seed)
{
    uint64_t s = seed * 2654435761u + 1;
    Graph *g = graph_create();
    assert_non_null(g);
    uint32_t nb = 1 + rng_next(&s) % 12, ne = rng_next(&s) % 16;
    for (uint32_t i = 0; i < nb; i++) {
        BlockType t = (BlockType)(rng_next(&s) % (BT_COUNT + 1)); /* BT_COUNT: not a type */
        int32_t id = rng_next(&s) % 4 ? (int32_t)(rng_next(&s) % 8) : pick(&s);
        Block *b = graph_add_block(g, t, id, rng_next(&s) % 2 ? "x" : NULL);
        assert_non_null(b);
        if (rng_next(&s) % 4)
            random_shape(&s, &b->shape);
        b->bias_type = (int)(rng_next(&s) % 4);
        b->has_socket_id = rng_next(&s) % 2;
        b->socket_id = (int32_t)(rng_next(&s) % 2);
        if (rng_next(&s) % 5 == 0) {
            b->has_prec = true;
            b->prec = (PrecisionId)(rng_next(&s) % (PR_COUNT + 1));
        }
        uint32_t nin = rng_next(&s) % 5, nout = rng_next(&s) % 3;
        for (uint32_t k = 0; k < nin + nout; k++) {
            Cluster *c = k < nin ? blk_add_input(g, b) : blk_add_output(g, b);
            assert_non_null(c);
            if (rng_next(&s) % 3 == 0) {
                c->has_shape = true;
                random_shape(&s, &c->shape);
            }
            uint32_t nf = rng_next(&s) % 4;
            for (uint32_t j = 0; j < nf; j++) {
                Iface *f = cluster_add_iface(g, c, rng_next(&s) % 3 ? (int32_t)(rng_next(&s) % 16)
                                                                    : pick(&s));
                assert_non_null(f);
                Shape sh;
                if (rng_next(&s) % 2) {
                    f->has_pos = true;
                    random_shape(&s, &sh);
                    assert_true(iface_set_wire(g, f, &sh, NULL));
                }
                if (rng_next(&s) % 2) {
                    f->has_size = true;
                    random_shape(&s, &sh);
                    assert_true(iface_set_wire(g, f, NULL, &sh));
                }
            }
        }
        if (rng_next(&s) % 3 == 0) {
            int32_t dims[3] = {pick(&s), pick(&s), pick(&s)};
            uint32_t nd = (uint32_t)(rng_next(&s) % 4);
            int64_t vals[7] = {0, 1, -1, 300, -300, 70000, INT32_MIN};
            assert_true(blk_set_data(g, b, (PrecisionId)(rng_next(&s) % PR_COUNT), dims, nd,
                                     vals, rng_next(&s) % 8));
            if (rng_next(&s) % 4 == 0)
                b->data->has_prec = false;
        }
        uint32_t na = rng_next(&s) % 4;
        for (uint32_t k = 0; k < na; k++) {
            Attr *a = raw_attr(g, b, (AttrId)(rng_next(&s) % (AT_COUNT + 1)));
            a->has_value = rng_next(&s) % 3;
            a->value = pick(&s);
            a->has_fvalue = rng_next(&s) % 2;
            static const float fv[] = {1.0f, 2.5f, -3.0f, 1e30f, -1e30f, 0.0f};
            a->fvalue = fv[rng_next(&s) % 6];
        }
    }
    for (uint32_t i = 0; i < ne; i++) {
        int32_t id = rng_next(&s) % 4 ? (int32_t)(rng_next(&s) % 16) : pick(&s);
        Edge *e = graph_add_edge(g, id, (int32_t)(rng_next(&s) % 9), (int32_t)(rng_next(&s) % 9));
        assert_non_null(e);
        if (rng_next(&s) % 3 == 0) {
            Rearrange *r =
                edge_add_rearrange(g, e, (RearrangeType)(rng_next(&s) % (RT_COUNT + 1)), 0);
            assert_non_null(r);
        }
    }
    if (rng_next(&s) % 2) {
        g->groups = arena_alloc(g->arena, 1, sizeof *g->groups);
        assert_non_null(g->groups);
        g->n_groups = 1;
        g->groups[0].block_ids = arena_alloc(g->arena, 2, sizeof(int32_t));
        assert_non_null(g->groups[0].block_ids);
        g->groups[0].block_ids[0] = pick(&s);
        g->groups[0].block_ids[1] = 3;
        g->groups[0].n_block_ids = 2;
    }
    assert_false(graph_oom(g));
    return g;
}

static void test_garbage_does_not_crash(void **state)
{
    (void)state;
    /* fixed absurd cases */
    Graph *g = valid_graph();
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        Block *b = g->blocks[i];
        b->shape.d[D_Y] = INT32_MAX;
        b->shape.d[D_F] = INT32_MIN;
    }
    Iface *f = iface_of(g, B_SIC, true, 0, 0);
    f->has_pos = f->has_size = true;
    f->pos.d[D_Y] = INT32_MIN, f->size.d[D_Y] = INT32_MAX, f->size.d[D_X] = INT32_MAX;
    blk(g, B_CC)->n_in = 0;      /* zero clusters */
    blk(g, B_SW)->data->n_dims = 0;
    Diag d;
    assert_int_equal(run(g, &d), ST_LOGIC);
    diag_finish(&d);
    graph_destroy(g);

    /* an empty graph breaks graph.empty only */
    g = graph_create();
    assert_non_null(g);
    Diag ed;
    assert_int_equal(run(g, &ed), ST_LOGIC);
    assert_int_equal(ed.n, 1);
    diag_finish(&ed);
    graph_destroy(g);

    /* random garbage (TEST_SEEDS graphs, 3000 by default): must not crash, and the status
     * must agree with the findings */
    uint64_t seeds = getenv("TEST_SEEDS") ? strtoull(getenv("TEST_SEEDS"), NULL, 10) : 3000;
    for (uint64_t seed = 1; seed <= seeds; seed++) {
        g = garbage_graph(seed);
        diag_init(&d, NULL);
        Status st = verify_graph(g, &d);
        assert_true(st == ST_OK || st == ST_LOGIC);
        assert_true((st == ST_LOGIC) == (d.n > 0));
        note_rules(&d);
        diag_finish(&d);
        graph_destroy(g);
    }
}

/* A cluster of 65536 interfaces, in a 256 x 256 grid (exact), then with one tile moved so two
 * tiles overlap; and 65536 copies of the whole cluster. Each must finish quickly. */
static void big_cover_case(int variant)
{
    Graph *g = graph_create();
    assert_non_null(g);
    Block *src = add(g, BT_INPUT, 1, "src", 256, 256, 1, 0);
    src->has_socket_id = true;
    Block *dst = add(g, BT_SI, 2, "dst", 256, 256, 1, 0);
    Cluster *out = blk_add_output(g, src), *in = blk_add_input(g, dst);
    assert_non_null(out);
    assert_non_null(in);
    for (int32_t k = 0; k < 65536; k++) {
        Edge *e = graph_add_edge(g, GRAPH_AUTO_ID, 1, 2);
        assert_non_null(e);
        Iface *a = cluster_add_iface(g, out, e->id), *b = cluster_add_iface(g, in, e->id);
        assert_non_null(a);
        assert_non_null(b);
        if (variant == 2)
            continue; /* whole-cluster copies */
        int32_t y = k / 256, x = k % 256;
        if (variant == 1 && k == 65535)
            y = 0, x = 0;
        a->has_pos = b->has_pos = a->has_size = b->has_size = true;
        a->pos.d[D_Y] = b->pos.d[D_Y] = y;
        a->pos.d[D_X] = b->pos.d[D_X] = x;
        a->size.d[D_Y] = b->size.d[D_Y] = 1;
        a->size.d[D_X] = b->size.d[D_X] = 1;
        a->size.d[D_F] = b->size.d[D_F] = 1;
    }
    Diag d;
    Status st = run(g, &d);
    if (variant == 0) {
        if (st != ST_OK)
            dump(&d);
        assert_int_equal(st, ST_OK);
    } else {
        assert_int_equal(st, ST_LOGIC);
        const DiagEntry *e = find(&d, "cover.overlap", false, 2);
        assert_non_null(e);
        if (variant == 1) {
            assert_contains(e->what, "interfaces 0 (edge 0) and 65535 (edge 65535) overlap");
            assert_non_null(find(&d, "cover.gap", false, 2));
        }
    }
    diag_finish(&d);
    graph_destroy(g);
}

static void test_big_cover(void **state)
{
    (void)state;
    big_cover_case(0);
    big_cover_case(1);
    big_cover_case(2);
}

/* A 3-D grid of n^3 tiles of t^3 elements: the sweep along any dim compares each tile with
 * the n^2 - 1 others of its slice (more than its budget), so the bitmap (small clusters) or
 * the full sweep (big ones) decides. moved: tile 1 sits on the last one, which the sweep
 * reaches only at its end. */
static void grid3_case(int32_t n, int32_t t, bool moved)
{
    Graph *g = graph_create();
    assert_non_null(g);
    Block *src = add(g, BT_INPUT, 1, "src", n * t, n * t, n * t, 0);
    src->has_socket_id = true;
    Block *dst = add(g, BT_SI, 2, "dst", n * t, n * t, n * t, 0);
    Cluster *out = blk_add_output(g, src), *in = blk_add_input(g, dst);
    assert_non_null(out);
    assert_non_null(in);
    int32_t k = 0, last = n * n * n - 1;
    for (int32_t y = 0; y < n; y++)
        for (int32_t x = 0; x < n; x++)
            for (int32_t f = 0; f < n; f++, k++) {
                Edge *e = graph_add_edge(g, GRAPH_AUTO_ID, 1, 2);
                assert_non_null(e);
                Iface *a = cluster_add_iface(g, out, e->id), *b = cluster_add_iface(g, in, e->id);
                assert_non_null(a);
                assert_non_null(b);
                bool away = moved && k == 1;
                a->has_pos = b->has_pos = a->has_size = b->has_size = true;
                a->pos.d[D_Y] = b->pos.d[D_Y] = away ? (n - 1) * t : y * t;
                a->pos.d[D_X] = b->pos.d[D_X] = away ? (n - 1) * t : x * t;
                a->pos.d[D_F] = b->pos.d[D_F] = away ? (n - 1) * t : f * t;
                a->size.d[D_Y] = b->size.d[D_Y] = t;
                a->size.d[D_X] = b->size.d[D_X] = t;
                a->size.d[D_F] = b->size.d[D_F] = t;
            }
    if (!moved) {
        expect_clean(g);
        return;
    }
    Diag d;
    assert_int_equal(run(g, &d), ST_LOGIC);
    const DiagEntry *e = find(&d, "cover.overlap", false, 2);
    assert_non_null(e);
    char want[96];
    snprintf(want, sizeof want, "interfaces 1 (edge 1) and %d (edge %d) overlap", (int)last,
             (int)last);
    assert_contains(e->what, want);
    assert_non_null(find(&d, "cover.gap", false, 2));
    diag_finish(&d);
    graph_destroy(g);
}

static void test_cover_3d_grid(void **state)
{
    (void)state;
    grid3_case(40, 1, false); /* bitmap */
    grid3_case(40, 1, true);
    grid3_case(40, 11, false); /* 440^3 elements: too many for the bitmap */
    grid3_case(40, 11, true);
}

/* A chain of 300000 blocks (recursion would overflow the stack), then closed into a cycle. */
static void test_long_chain(void **state)
{
    (void)state;
    for (int closed = 0; closed < 2; closed++) {
        Graph *g = graph_create();
        assert_non_null(g);
        Block *in = add(g, BT_INPUT, GRAPH_AUTO_ID, NULL, 2, 2, 2, 0);
        in->has_socket_id = true;
        Block *prev = add(g, BT_SI, GRAPH_AUTO_ID, NULL, 2, 2, 2, 0);
        Block *first = prev;
        assert_non_null(graph_connect(g, in, 0, prev, 0));
        for (int i = 0; i < 150000; i++) {
            Block *c = add(g, BT_CVS, GRAPH_AUTO_ID, NULL, 2, 2, 2, 0);
            assert_true(blk_set_attr(g, c, AT_CONSTANT_A, 1));
            Block *s = add(g, BT_SI, GRAPH_AUTO_ID, NULL, 2, 2, 2, 0);
            assert_non_null(graph_connect(g, prev, 0, c, 0));
            assert_non_null(graph_connect(g, c, 0, s, 0));
            prev = s;
        }
        Block *out = add(g, BT_OUTPUT, GRAPH_AUTO_ID, NULL, 2, 2, 2, 0);
        out->has_socket_id = true;
        assert_non_null(graph_connect(g, prev, 0, out, 0));
        if (!closed) {
            expect_clean(g);
            continue;
        }
        /* last SI -> a new CVS -> the first SI: a cycle through the whole chain */
        Block *c = add(g, BT_CVS, GRAPH_AUTO_ID, NULL, 2, 2, 2, 0);
        assert_true(blk_set_attr(g, c, AT_CONSTANT_A, 1));
        assert_non_null(graph_connect(g, prev, 0, c, 0));
        assert_non_null(graph_connect(g, c, 0, first, 0));
        Diag d;
        assert_int_equal(run(g, &d), ST_LOGIC);
        long i = diag_find(&d, "graph.cycle");
        assert_true(i >= 0);
        assert_int_equal(d.entries[i].block_id, first->id);
        assert_contains(d.entries[i].what, "cycle of 300002 blocks");
        diag_finish(&d);
        graph_destroy(g);
    }
}

/* ---- docs ---- */

static void test_rules_documented(void **state)
{
    (void)state;
    const char *src = getenv("TASKIR_SRCDIR");
    if (!src)
        skip();
    char path[4096];
    snprintf(path, sizeof path, "%s/docs/rules.md", src);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    for (size_t r = 0; r < N_RULES; r++) {
        char key[64];
        snprintf(key, sizeof key, "`%s`", all_rules[r]);
        if (!strstr(text, key))
            fail_msg("docs/rules.md does not list %s", key);
        if (!rule_seen[r])
            fail_msg("no test made the verifier report [%s]", all_rules[r]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_graph_is_clean),
        cmocka_unit_test(test_valid_variants_are_clean),
        cmocka_unit_test(test_block_id_dup),
        cmocka_unit_test(test_block_id_dup_ifaces),
        cmocka_unit_test(test_edge_id_dup),
        cmocka_unit_test(test_graph_empty),
        cmocka_unit_test(test_block_null),
        cmocka_unit_test(test_shape_required),
        cmocka_unit_test(test_shape_forbidden),
        cmocka_unit_test(test_shape_range),
        cmocka_unit_test(test_shape_window),
        cmocka_unit_test(test_attr_kernel),
        cmocka_unit_test(test_attr_dup),
        cmocka_unit_test(test_attr_forbidden),
        cmocka_unit_test(test_attr_neutral_accepted),
        cmocka_unit_test(test_attr_required),
        cmocka_unit_test(test_attr_range),
        cmocka_unit_test(test_attr_value),
        cmocka_unit_test(test_bias_type),
        cmocka_unit_test(test_cluster_count),
        cmocka_unit_test(test_cluster_shape),
        cmocka_unit_test(test_iface_bounds),
        cmocka_unit_test(test_iface_edge),
        cmocka_unit_test(test_cover_gap),
        cmocka_unit_test(test_cover_overlap),
        cmocka_unit_test(test_edge_endpoint),
        cmocka_unit_test(test_edge_refs),
        cmocka_unit_test(test_edge_size),
        cmocka_unit_test(test_shape_operand),
        cmocka_unit_test(test_io_shape),
        cmocka_unit_test(test_data_integer),
        cmocka_unit_test(test_edge_volume),
        cmocka_unit_test(test_rearrange_params),
        cmocka_unit_test(test_edge_pair),
        cmocka_unit_test(test_data_compute),
        cmocka_unit_test(test_data_dims),
        cmocka_unit_test(test_data_len),
        cmocka_unit_test(test_data_container),
        cmocka_unit_test(test_data_range),
        cmocka_unit_test(test_data_missing),
        cmocka_unit_test(test_io_socket),
        cmocka_unit_test(test_data_block_empty_input),
        cmocka_unit_test(test_io_socket_dup),
        cmocka_unit_test(test_io_model),
        cmocka_unit_test(test_graph_cycle),
        cmocka_unit_test(test_group_block),
        cmocka_unit_test(test_group_dup),
        cmocka_unit_test(test_limit_volume),
        cmocka_unit_test(test_many_rules_at_once),
        cmocka_unit_test(test_garbage_does_not_crash),
        cmocka_unit_test(test_big_cover),
        cmocka_unit_test(test_cover_3d_grid),
        cmocka_unit_test(test_long_chain),
        cmocka_unit_test(test_rules_documented),
        cmocka_unit_test(test_data_range_threads),
        cmocka_unit_test(test_data_range_shared),
    };
    if (getenv("TEST_FILTER")) /* e.g. TEST_FILTER='test_cover*' */
        cmocka_set_test_filter(getenv("TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
