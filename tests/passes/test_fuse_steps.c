/* test_fuse_steps.c: the storage merge and copy removal of the fuse pass
 * (passes/fuse_merge.c, passes/fuse_copy.c) and the replicate pass (passes/replicate.c) on
 * small hand-built graphs: what changes, what does not and why, each graph verified and
 * simulated to the same outputs before and after. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "passes/fuse_internal.h"
#include "passes/pass.h"
#include "passtest.h"
#include "taskir/uses.h"

enum { SEEDS = 3 };

/* The outputs of g on seeds 1..SEEDS, to compare after a pass. */
typedef struct Before {
    int32_t *v[SEEDS];
    int64_t n[SEEDS];
} Before;

static void before(const Graph *g, Before *b)
{
    for (int k = 0; k < SEEDS; k++)
        b->v[k] = pt_simulate(g, (uint32_t)k + 1, &b->n[k]);
}

static void after(const Graph *g, Before *b, const char *what)
{
    pt_verify(g);
    pt_assert_same(g, (const int32_t *const *)b->v, b->n, SEEDS, what);
    for (int k = 0; k < SEEDS; k++)
        free(b->v[k]);
}

static Block *bias(Graph *g, const int64_t *v, int32_t f, const char *name)
{
    Block *b = pt_blk(g, BT_SB, 0, 0, f, name);
    int32_t dims[1] = {f};
    assert_true(blk_set_data(g, b, PR_INT_32, dims, 1, v, (uint64_t)f));
    return b;
}

/* c -> SI -> OUTPUT socket. */
static void to_output(Graph *g, Block *c, int32_t socket)
{
    Block *s = pt_blk(g, BT_SI, c->shape.d[D_Y], c->shape.d[D_X], c->shape.d[D_F], NULL);
    Block *o = pt_io(g, BT_OUTPUT, c->shape.d[D_Y], c->shape.d[D_X], c->shape.d[D_F], socket);
    pt_link(g, c, s, 0);
    pt_link(g, s, o, 0);
}

/* CVS x * a reading storage s, its result to OUTPUT socket. */
static Block *scale(Graph *g, Block *s, int32_t a, int32_t socket, const char *name)
{
    Block *c = pt_blk(g, BT_CVS, s->shape.d[D_Y], s->shape.d[D_X], s->shape.d[D_F], name);
    assert_true(blk_set_attr(g, c, AT_CONSTANT_A, a));
    pt_link(g, s, c, 0);
    to_output(g, c, socket);
    return c;
}

/* CADD of storage s and bias b, its result to OUTPUT socket. */
static Block *add_bias(Graph *g, Block *s, Block *b, int32_t socket, const char *name)
{
    Block *c = pt_blk(g, BT_CADD, s->shape.d[D_Y], s->shape.d[D_X], s->shape.d[D_F], name);
    c->bias_type = BIAS_VECTOR;
    pt_link(g, s, c, 0);
    pt_link(g, b, c, 1);
    to_output(g, c, socket);
    return c;
}

/* Runs one step of a pass on g; its findings are printed when it fails. */
static Status step(Graph *g, Status (*fn)(Graph *, Diag *, uint32_t *))
{
    Diag d;
    diag_init(&d, "test");
    uint32_t n = 0;
    Status st = fn(g, &d, &n);
    if (st != ST_OK)
        diag_print(&d, stderr, "test");
    diag_finish(&d);
    return st;
}

static Status replicate_step(Graph *g, Diag *d, uint32_t *n)
{
    (void)n;
    PassOptions o = {0};
    return pass_replicate(g, &o, d);
}

static Status merge(Graph *g)
{
    return step(g, fuse_merge_storage);
}

static Status drop_copies(Graph *g)
{
    return step(g, fuse_drop_copies);
}

static Status replicate(Graph *g)
{
    return step(g, replicate_step);
}

/* Runs fn on g, which must then verify, simulate to the outputs it had and have delta
 * blocks more. */
static void check(Graph *g, Status (*fn)(Graph *), int delta, const char *what)
{
    Before b;
    before(g, &b);
    int64_t n0 = g->n_blocks;
    assert_int_equal(fn(g), ST_OK);
    after(g, &b, what);
    assert_int_equal((int64_t)g->n_blocks, n0 + delta);
}

static const int64_t B1234[4] = {1, 2, 3, 4}, B1235[4] = {1, 2, 3, 5};

/* INPUT -> SI a -> three CADDs with biases b1, b2 (equal to b1) and b3 (one value differs). */
static Graph *three_biases(void)
{
    Graph *g = graph_create();
    assert_non_null(g);
    Block *in = pt_io(g, BT_INPUT, 1, 2, 4, 0), *a = pt_blk(g, BT_SI, 1, 2, 4, "a");
    pt_link(g, in, a, 0);
    add_bias(g, a, bias(g, B1234, 4, "b1"), 0, "c1");
    add_bias(g, a, bias(g, B1234, 4, "b2"), 1, "c2");
    add_bias(g, a, bias(g, B1235, 4, "b3"), 2, "c3");
    return g;
}

/* Only the storage block of equal data goes; its reader reads the first. */
static void test_merge_data(void **state)
{
    (void)state;
    Graph *g = three_biases();
    uint32_t n0 = g->n_blocks;
    check(g, merge, -1, "merge data");
    assert_null(pt_by_name(g, "b2"));
    assert_non_null(pt_by_name(g, "b3"));
    const Block *b1 = pt_by_name(g, "b1"), *c2 = pt_by_name(g, "c2");
    GraphUses u;
    assert_true(graph_uses(g, &u));
    assert_int_equal(u.blocks[graph_block_pos(g, b1->id)].n_out_edges, 2);
    bool reads_b1 = false;
    const BlockUses *cu = &u.blocks[graph_block_pos(g, c2->id)];
    for (uint32_t i = 0; i < cu->n_in_edges; i++)
        reads_b1 |= g->edges[cu->in_edges[i]]->src == b1->id;
    assert_true(reads_b1);
    graph_uses_finish(&u);
    /* a second run finds nothing more */
    assert_int_equal(merge(g), ST_OK);
    assert_int_equal(g->n_blocks, n0 - 1);
    graph_destroy(g);
}

/* Large data tensors (hashed from a sample of their values) are still compared in full: a
 * bias that differs from another in one value the sample skips is not merged with it. */
static void test_merge_large(void **state)
{
    (void)state;
    enum { F = 1000 };
    int64_t *v = malloc(F * sizeof *v);
    assert_non_null(v);
    for (int i = 0; i < F; i++)
        v[i] = i % 7 - 3;
    Graph *g = graph_create();
    assert_non_null(g);
    Block *in = pt_io(g, BT_INPUT, 1, 1, F, 0), *a = pt_blk(g, BT_SI, 1, 1, F, "a");
    pt_link(g, in, a, 0);
    add_bias(g, a, bias(g, v, F, "b1"), 0, "c1");
    add_bias(g, a, bias(g, v, F, "b2"), 1, "c2");
    v[1] += 1;
    add_bias(g, a, bias(g, v, F, "b3"), 2, "c3");
    free(v);
    check(g, merge, -1, "merge large");
    assert_null(pt_by_name(g, "b2"));
    assert_non_null(pt_by_name(g, "b3"));
    graph_destroy(g);
}

/* Equal storage blocks of different groups stay apart (one would feed two cores); in one
 * group they merge and the group loses the merged block. */
static void test_merge_groups(void **state)
{
    (void)state;
    Graph *g = three_biases();
    pt_set_groups(g, (const char *[]){"c1", "b1", "c2", "b2"}, (const uint32_t[]){2, 2}, 2, 0);
    uint32_t n0 = g->n_blocks;
    assert_int_equal(merge(g), ST_OK);
    assert_int_equal(g->n_blocks, n0);
    graph_destroy(g);

    g = three_biases();
    pt_set_groups(g, (const char *[]){"c1", "b1", "c2", "b2"}, (const uint32_t[]){4}, 1, 0);
    Before b;
    before(g, &b);
    assert_int_equal(merge(g), ST_OK);
    after(g, &b, "merge in a group");
    assert_int_equal(g->n_blocks, n0 - 1);
    assert_int_equal(g->n_groups, 1);
    assert_int_equal(g->groups[0].n_block_ids, 3);
    graph_destroy(g);
}

/* SI p and q fed the whole INPUT: merged; r fed a part of it, and s the whole through a
 * rearrangement: kept. */
static void test_merge_fed(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    Block *in = pt_io(g, BT_INPUT, 1, 2, 4, 0);
    Block *p = pt_blk(g, BT_SI, 1, 2, 4, "p"), *q = pt_blk(g, BT_SI, 1, 2, 4, "q");
    Block *r = pt_blk(g, BT_SI, 1, 1, 4, "r"), *s = pt_blk(g, BT_SI, 1, 2, 4, "s");
    pt_link(g, in, p, 0);
    pt_link(g, in, q, 0);
    const int32_t pos[TIR_CDIMS] = {0, 1, 0, 0, 0, 0}, size[TIR_CDIMS] = {1, 1, 4, 0, 0, 0};
    assert_non_null(graph_connect_box(g, in, 0, pos, size, r, 0, NULL, NULL));
    const int32_t d[3] = {0, 1, 0};
    pt_step(g, graph_connect(g, in, 0, s, 0), RT_SHIFT, d, 3);
    scale(g, p, 2, 0, "vp");
    scale(g, q, 3, 1, "vq");
    scale(g, r, 5, 2, "vr");
    scale(g, s, 7, 3, "vs");
    check(g, merge, -1, "merge fed");
    assert_null(pt_by_name(g, "q"));
    assert_non_null(pt_by_name(g, "r"));
    assert_non_null(pt_by_name(g, "s"));
    graph_destroy(g);
}

/* INPUT -> s1 -> COPY -> s2 -> CVS x3; s1 -> CVS x(-1). copy is made by make_copy. */
static Graph *copy_chain(Block *(*make_copy)(Graph *), BlockType s2_type)
{
    Graph *g = graph_create();
    assert_non_null(g);
    Block *in = pt_io(g, BT_INPUT, 2, 2, 4, 0), *s1 = pt_blk(g, BT_SI, 2, 2, 4, "s1");
    pt_link(g, in, s1, 0);
    Block *c = make_copy(g);
    pt_link(g, s1, c, 0);
    Block *s2 = pt_blk(g, s2_type, 2, 2, 4, "s2");
    if (s2_type == BT_SIC) { /* [y][x][r] for a 1x1 convolution */
        s2->shape.d[D_F] = 0;
        s2->shape.d[D_R] = 4;
        Block *w = pt_blk(g, BT_SW, 0, 0, 3, "w");
        w->shape.d[D_R] = 4;
        w->shape.d[D_KY] = w->shape.d[D_KX] = 1;
        const int32_t wd[4] = {3, 4, 1, 1};
        const int64_t wv[12] = {1, -2, 3, 0, 2, 2, -1, 1, 0, 1, 1, -3};
        assert_true(blk_set_data(g, w, PR_INT_32, wd, 4, wv, 12));
        Block *cc = pt_blk(g, BT_CC, 2, 2, 3, "conv");
        int32_t *sd = cc->shape.d;
        sd[D_R] = 4, sd[D_KY] = sd[D_KX] = 1, sd[D_IY] = sd[D_IX] = 2;
        pt_link(g, c, s2, 0);
        pt_link(g, s2, cc, 0);
        pt_link(g, w, cc, 1);
        to_output(g, cc, 0);
    } else {
        pt_link(g, c, s2, 0);
        scale(g, s2, 3, 0, "v");
        scale(g, s1, -1, 1, "w");
    }
    return g;
}

static Block *copy_cadd(Graph *g)
{
    return pt_blk(g, BT_CADD, 2, 2, 4, "copy");
}

static Block *copy_cvs(Graph *g)
{
    Block *c = pt_blk(g, BT_CVS, 2, 2, 4, "copy");
    assert_true(blk_set_attr(g, c, AT_CONSTANT_A, 1));
    return c;
}

static Block *copy_ccmpb(Graph *g)
{
    Block *c = pt_blk(g, BT_CCMPB, 2, 2, 4, "copy");
    assert_true(blk_set_attr(g, c, AT_CMP, INT32_MIN));
    return c;
}

static Block *scale_two(Graph *g)
{
    Block *c = pt_blk(g, BT_CVS, 2, 2, 4, "copy");
    assert_true(blk_set_attr(g, c, AT_CONSTANT_A, 2));
    return c;
}

static Block *relu(Graph *g)
{
    Block *c = pt_blk(g, BT_CCMPB, 2, 2, 4, "copy");
    assert_true(blk_set_attr(g, c, AT_CMP, 0));
    return c;
}

static Block *narrow_cadd(Graph *g)
{
    Block *c = copy_cadd(g);
    c->prec = PR_INT_8; /* clamps: not a copy */
    return c;
}

/* An identity CADD, CVS or CCMPB between two SI: the second SI and the copy go, the readers
 * of the second read the first. */
static void test_copy_same_type(void **state)
{
    (void)state;
    Block *(*makers[])(Graph *) = {copy_cadd, copy_cvs, copy_ccmpb};
    for (size_t k = 0; k < sizeof makers / sizeof *makers; k++) {
        Graph *g = copy_chain(makers[k], BT_SI);
        check(g, drop_copies, -2, "copy removed");
        assert_null(pt_by_name(g, "copy"));
        assert_null(pt_by_name(g, "s2"));
        assert_non_null(pt_edge_between(g, pt_by_name(g, "s1"), pt_by_name(g, "v")));
        graph_destroy(g);
    }
}

/* SI -> identity CADD -> SIC -> CC: the SIC takes the SI's place (it is fed by the INPUT). */
static void test_copy_other_type(void **state)
{
    (void)state;
    Graph *g = copy_chain(copy_cadd, BT_SIC);
    check(g, drop_copies, -2, "copy into SIC removed");
    assert_null(pt_by_name(g, "copy"));
    assert_null(pt_by_name(g, "s1"));
    assert_non_null(pt_edge_between(g, pt_by_name(g, "x"), pt_by_name(g, "s2")));
    graph_destroy(g);
}

/* Blocks that change values are no copies: a CVS by 2, a ReLU, an INT_8 CADD (clamps). */
static void test_not_copies(void **state)
{
    (void)state;
    Block *(*makers[])(Graph *) = {scale_two, relu, narrow_cadd};
    for (size_t k = 0; k < sizeof makers / sizeof *makers; k++) {
        Graph *g = copy_chain(makers[k], BT_SI);
        uint32_t n0 = g->n_blocks;
        assert_int_equal(drop_copies(g), ST_OK);
        assert_int_equal(g->n_blocks, n0);
        graph_destroy(g);
    }
}

/* A chain of two copies goes in two rounds. */
static void test_copy_chain_of_two(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    Block *in = pt_io(g, BT_INPUT, 2, 2, 4, 0), *s1 = pt_blk(g, BT_SI, 2, 2, 4, "s1");
    Block *c1 = copy_cadd(g), *s2 = pt_blk(g, BT_SI, 2, 2, 4, "s2");
    Block *c2 = copy_cvs(g), *s3 = pt_blk(g, BT_SI, 2, 2, 4, "s3");
    pt_link(g, in, s1, 0);
    pt_link(g, s1, c1, 0);
    pt_link(g, c1, s2, 0);
    pt_link(g, s2, c2, 0);
    pt_link(g, c2, s3, 0);
    scale(g, s3, 3, 0, "v");
    check(g, drop_copies, -4, "two copies removed");
    graph_destroy(g);
}

/* INPUT -> SI s read by CVS v1, CVS v2 and an OUTPUT. */
static Graph *shared_si(void)
{
    Graph *g = graph_create();
    assert_non_null(g);
    Block *in = pt_io(g, BT_INPUT, 1, 2, 4, 0), *s = pt_blk(g, BT_SI, 1, 2, 4, "s");
    pt_link(g, in, s, 0);
    scale(g, s, 2, 0, "v1");
    scale(g, s, 3, 1, "v2");
    pt_link(g, s, pt_io(g, BT_OUTPUT, 1, 2, 4, 2), 0);
    return g;
}

/* The use index fuse_drop_copies_uses hands on (to fuse_pairs_uses and
 * fuse_merge_storage_uses, saving two builds of it) is the one a fresh graph_uses builds on
 * the graph it leaves, after rounds that removed blocks too; merge finishes it. */
static void test_copy_hands_on_uses(void **state)
{
    (void)state;
    for (int chain = 0; chain < 2; chain++) {
        Graph *g = chain ? copy_chain(copy_cadd, BT_SI) : shared_si();
        Diag d;
        diag_init(&d, "test");
        uint32_t n = 0;
        GraphUses u, fresh;
        assert_int_equal(fuse_drop_copies_uses(g, &d, &n, &u), ST_OK);
        assert_int_equal(n, chain ? 1u : 0u);
        assert_true(graph_uses(g, &fresh));
        assert_int_equal(u.n_blocks, g->n_blocks);
        assert_int_equal(fresh.n_blocks, g->n_blocks);
        for (uint32_t p = 0; p < g->n_blocks; p++) {
            const BlockUses *a = &u.blocks[p], *b = &fresh.blocks[p];
            assert_int_equal(a->n_in, b->n_in);
            assert_int_equal(a->n_out, b->n_out);
            assert_int_equal(a->n_in_edges, b->n_in_edges);
            assert_int_equal(a->n_out_edges, b->n_out_edges);
            if (a->n_in)
                assert_memory_equal(a->in, b->in, a->n_in * sizeof *a->in);
            if (a->n_out)
                assert_memory_equal(a->out, b->out, a->n_out * sizeof *a->out);
            if (a->n_in_edges)
                assert_memory_equal(a->in_edges, b->in_edges, a->n_in_edges * sizeof *a->in_edges);
            if (a->n_out_edges)
                assert_memory_equal(a->out_edges, b->out_edges,
                                    a->n_out_edges * sizeof *a->out_edges);
        }
        graph_uses_finish(&fresh);
        Chip *chip;
        assert_int_equal(chip_load_default(&chip, &d), ST_OK);
        assert_int_equal(fuse_pairs_uses(g, chip, &u, &d, &n), ST_OK);
        chip_destroy(chip);
        assert_non_null(u.blocks);
        assert_int_equal(fuse_merge_storage_uses(g, &u, &d, &n), ST_OK);
        assert_null(u.blocks); /* finished by merge */
        pt_verify(g);
        diag_finish(&d);
        graph_destroy(g);
    }
}

/* One copy per consumer unit beyond the first, its input edge duplicated; the OUTPUT stays
 * with the original. */
static void test_replicate_si(void **state)
{
    (void)state;
    Graph *g = shared_si();
    uint32_t n0 = g->n_blocks;
    check(g, replicate, 1, "replicate");
    const Block *s = pt_by_name(g, "s"), *c = pt_by_name(g, "s/copy1");
    assert_non_null(c);
    assert_non_null(pt_edge_between(g, pt_by_name(g, "x"), c));
    assert_non_null(pt_edge_between(g, c, pt_by_name(g, "v2")));
    assert_non_null(pt_edge_between(g, s, pt_by_name(g, "v1")));
    assert_null(pt_edge_between(g, s, pt_by_name(g, "v2")));
    /* every storage block now feeds one unit: a second run adds nothing */
    assert_int_equal(replicate(g), ST_OK);
    assert_int_equal(g->n_blocks, n0 + 1);
    graph_destroy(g);
}

/* Readers in one group share the block; readers in two groups get a copy each, and the copy
 * joins its reader's group. */
static void test_replicate_groups(void **state)
{
    (void)state;
    Graph *g = shared_si();
    pt_set_groups(g, (const char *[]){"s", "v1", "v2"}, (const uint32_t[]){3}, 1, 0);
    uint32_t n0 = g->n_blocks;
    assert_int_equal(replicate(g), ST_OK);
    assert_int_equal(g->n_blocks, n0);
    graph_destroy(g);

    g = shared_si();
    pt_set_groups(g, (const char *[]){"v1", "v2", "s"}, (const uint32_t[]){1, 2}, 2, 0);
    assert_int_equal(replicate(g), ST_OK);
    assert_int_equal(g->n_blocks, n0 + 1);
    const Block *c = pt_by_name(g, "s/copy1");
    assert_non_null(c);
    /* s stays with its own group's reader v2, the copy joins v1's group */
    assert_non_null(pt_edge_between(g, pt_by_name(g, "s"), pt_by_name(g, "v2")));
    assert_non_null(pt_edge_between(g, c, pt_by_name(g, "v1")));
    assert_int_equal(g->groups[0].n_block_ids, 2);
    assert_int_equal(g->groups[0].block_ids[1], c->id);
    graph_destroy(g);
}

/* A weight block read by two convolutions: the copy shares the data tensor; an edge with a
 * box and a rearrangement into a shared SIC is duplicated as it is. */
static void test_replicate_weights(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    Block *in = pt_io(g, BT_INPUT, 2, 3, 4, 0);
    Block *sic = pt_blk(g, BT_SIC, 2, 2, 0, "in");
    sic->shape.d[D_R] = 4;
    const int32_t pos[TIR_CDIMS] = {0, 1, 0, 0, 0, 0}, size[TIR_CDIMS] = {2, 2, 4, 0, 0, 0};
    Edge *e = graph_connect_box(g, in, 0, pos, size, sic, 0, NULL, NULL);
    assert_non_null(e);
    Rearrange *re = edge_add_rearrange(g, e, RT_REFLECT, 1);
    const int32_t dims[1] = {1}, ax[1] = {1};
    assert_true(tensor_set_i32(g, &re->mats[0], dims, 1, ax, 1));
    Block *w = pt_blk(g, BT_SW, 0, 0, 3, "w");
    w->shape.d[D_R] = 4;
    w->shape.d[D_KY] = w->shape.d[D_KX] = 1;
    const int32_t wd[4] = {3, 4, 1, 1};
    const int64_t wv[12] = {1, -2, 3, 0, 2, 2, -1, 1, 0, 1, 1, -3};
    assert_true(blk_set_data(g, w, PR_INT_32, wd, 4, wv, 12));
    for (int k = 0; k < 2; k++) {
        Block *cc = pt_blk(g, BT_CC, 2, 2, 3, k ? "conv2" : "conv1");
        int32_t *sd = cc->shape.d;
        sd[D_R] = 4, sd[D_KY] = sd[D_KX] = 1, sd[D_IY] = sd[D_IX] = 2;
        pt_link(g, sic, cc, 0);
        pt_link(g, w, cc, 1);
        to_output(g, cc, k);
    }
    check(g, replicate, 2, "replicate weights");
    const Block *wc = pt_by_name(g, "w/copy1"), *ic = pt_by_name(g, "in/copy1");
    assert_non_null(wc);
    assert_non_null(ic);
    assert_ptr_equal(wc->data, pt_by_name(g, "w")->data);
    const Edge *ce = pt_edge_between(g, pt_by_name(g, "x"), ic);
    assert_non_null(ce);
    assert_int_equal(ce->n_re, 1);
    assert_int_equal(ce->re[0].type, RT_REFLECT);
    graph_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merge_data),
        cmocka_unit_test(test_merge_large),
        cmocka_unit_test(test_merge_groups),
        cmocka_unit_test(test_merge_fed),
        cmocka_unit_test(test_copy_same_type),
        cmocka_unit_test(test_copy_other_type),
        cmocka_unit_test(test_not_copies),
        cmocka_unit_test(test_copy_chain_of_two),
        cmocka_unit_test(test_copy_hands_on_uses),
        cmocka_unit_test(test_replicate_si),
        cmocka_unit_test(test_replicate_groups),
        cmocka_unit_test(test_replicate_weights),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
