/* test_sim_rearrange.c: every rearrangement type of docs/semantics.md on a small matrix,
 * with the expected results worked out by hand, plus chains of steps, partial interface
 * boxes, parameter errors (rearrange.* rules) and the readable descriptions taskir-dump
 * prints.
 *
 * The graph is INPUT (y x f) -> [edge with the steps] -> SI (y x f) -> OUTPUT; the INPUT box
 * has the axes y, x, f (f = 1 here), so the plane ops work on axes 0 (y) and 1 (x). The
 * input is A = [[1,2,3],[4,5,6]] unless a test says otherwise. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "simtest.h"
#include "taskir/rearrange.h"
#include "taskir/verify.h"

#define V(...) ((const int32_t[]){__VA_ARGS__})
#define NV(...) (uint32_t)(sizeof((const int32_t[]){__VA_ARGS__}) / sizeof(int32_t))

static const int32_t A[6] = {1, 2, 3, 4, 5, 6};

typedef struct Mat {
    const int32_t *v;
    uint32_t n;
} Mat;

#define M(...) ((Mat){V(__VA_ARGS__), NV(__VA_ARGS__)})
#define NOMAT ((Mat){NULL, 0})

/* Builds INPUT(iy,ix,if) -edge(type, mats)-> SI(oy,ox,of) -> OUTPUT. */
static Graph *re_graph(int iy, int ix, int jf, int oy, int ox, int of, RearrangeType type,
                       const Mat *mats, uint32_t n_mats)
{
    Graph *g = graph_create();
    Block *in = st_io(g, BT_INPUT, iy, ix, jf, 0, 0, "in");
    int32_t s[TIR_NDIMS] = {oy, ox, of};
    Block *si = st_block(g, BT_SI, s, "re");
    si->has_prec = true;
    si->prec = PR_INT_32;
    Block *out = st_io(g, BT_OUTPUT, oy, ox, of, 0, 0, "out");
    Edge *e = graph_connect(g, in, 0, si, 0);
    assert_non_null(e);
    Rearrange *r = edge_add_rearrange(g, e, type, n_mats);
    assert_non_null(r);
    for (uint32_t i = 0; i < n_mats; i++) {
        int32_t dims[1] = {(int32_t)mats[i].n};
        assert_true(tensor_set_i32(g, &r->mats[i], dims, 1, mats[i].v, mats[i].n));
    }
    assert_non_null(graph_connect(g, si, 0, out, 0));
    return g;
}

/* Runs the graph on values in (n_in of them) and compares the output with want. */
static void re_check(Graph *g, const int32_t *in, int64_t n_in, const int32_t *want,
                     int64_t n_out, const char *what)
{
    SimRun *run = st_create(g, NULL);
    Diag d;
    diag_init(&d, "test");
    assert_int_equal(sim_set_input(run, 0, in, n_in, &d), ST_OK);
    assert_int_equal(sim_step(run, &d), ST_OK);
    int64_t n;
    const int32_t *got = sim_output(run, 0, &n);
    assert_int_equal(n, n_out);
    st_assert_equal(want, got, n, what);
    diag_finish(&d);
    sim_destroy(run);
}

/* One step on A (2x3x1) into an SI of oy x ox x 1. */
static void re_case(int oy, int ox, RearrangeType t, const Mat *mats, uint32_t n,
                    const int32_t *want, const char *what)
{
    Graph *g = re_graph(2, 3, 1, oy, ox, 1, t, mats, n);
    re_check(g, A, 6, want, (int64_t)oy * ox, what);
    graph_destroy(g);
}

/* The rule id sim_create reports for a bad step. */
static void re_error(int oy, int ox, RearrangeType t, const Mat *mats, uint32_t n,
                     const char *rule)
{
    Graph *g = re_graph(2, 3, 1, oy, ox, 1, t, mats, n);
    Diag d;
    diag_init(&d, "test");
    SimRun *run = NULL;
    assert_int_equal(sim_create(g, NULL, &run, &d), ST_LOGIC);
    assert_null(run);
    if (diag_find(&d, rule) < 0) {
        diag_print(&d, stderr, "test");
        fail_msg("expected rule %s", rule);
    }
    assert_true(d.entries[diag_find(&d, rule)].has_edge);
    diag_finish(&d);
    /* rearrange_check (for the verifier) agrees */
    diag_init(&d, "test");
    GraphUses u;
    assert_true(graph_uses(g, &u));
    assert_int_equal(rearrange_check(g, &u, g->edges[0], &d), ST_LOGIC);
    graph_uses_finish(&u);
    assert_true(diag_find(&d, rule) >= 0);
    diag_finish(&d);
    graph_destroy(g);
}

static void test_identity_and_reshape(void **state)
{
    (void)state;
    re_case(2, 3, RT_IDENTITY, NULL, 0, A, "IDENTITY");
    /* RESHAPE without p: C order; p = [2,1,0] (f fastest, then x, then y): C order too,
     * written into a 3x2 box */
    re_case(3, 2, RT_RESHAPE, NULL, 0, A, "RESHAPE (none)");
    Mat p1[] = {M(2, 1, 0)};
    re_case(3, 2, RT_RESHAPE, p1, 1, A, "RESHAPE [2,1,0]");
    /* p = [0,1,2]: y fastest, then x: reads 1 4 2 5 3 6 */
    Mat p2[] = {M(0, 1, 2)};
    re_case(3, 2, RT_RESHAPE, p2, 1, V(1, 4, 2, 5, 3, 6), "RESHAPE [0,1,2]");
}

static void test_permute(void **state)
{
    (void)state;
    Mat p[] = {M(1, 0, 2)};
    re_case(3, 2, RT_PERMUTE, p, 1, V(1, 4, 2, 5, 3, 6), "PERMUTE [1,0,2]");
    Mat id[] = {M(0, 1, 2)};
    re_case(2, 3, RT_PERMUTE, id, 1, A, "PERMUTE [0,1,2]");
}

static void test_shift(void **state)
{
    (void)state;
    Mat right[] = {M(0, 1, 0)};
    re_case(2, 3, RT_SHIFT, right, 1, V(3, 1, 2, 6, 4, 5), "SHIFT right cyclic");
    Mat right0[] = {M(0, 1, 0), M(1)};
    re_case(2, 3, RT_SHIFT, right0, 2, V(0, 1, 2, 0, 4, 5), "SHIFT right zero-fill");
    /* down 1, left 1, cyclic: B[i][j] = A[(i-1)%2][(j+1)%3] */
    Mat dl[] = {M(1, -1, 0), M(0)};
    re_case(2, 3, RT_SHIFT, dl, 2, V(5, 6, 4, 2, 3, 1), "SHIFT down-left cyclic");
    Mat up0[] = {M(-1, 0, 0), M(1)};
    re_case(2, 3, RT_SHIFT, up0, 2, V(4, 5, 6, 0, 0, 0), "SHIFT up zero-fill");
    Mat far[] = {M(0, -7, 0)}; /* cyclic: -7 = -1 modulo 3 (left by one) */
    re_case(2, 3, RT_SHIFT, far, 1, V(2, 3, 1, 5, 6, 4), "SHIFT left 7 cyclic");
}

static void test_rotate(void **state)
{
    (void)state;
    /* numpy.rot90: counter-clockwise */
    Mat r90[] = {M(90)};
    re_case(3, 2, RT_ROTATE, r90, 1, V(3, 6, 2, 5, 1, 4), "ROTATE 90");
    Mat r180[] = {M(180)};
    re_case(2, 3, RT_ROTATE, r180, 1, V(6, 5, 4, 3, 2, 1), "ROTATE 180");
    Mat r270[] = {M(270)};
    re_case(3, 2, RT_ROTATE, r270, 1, V(4, 1, 5, 2, 6, 3), "ROTATE 270");
    Mat rm90[] = {M(-90)};
    re_case(3, 2, RT_ROTATE, rm90, 1, V(4, 1, 5, 2, 6, 3), "ROTATE -90");
    Mat r360[] = {M(360)};
    re_case(2, 3, RT_ROTATE, r360, 1, A, "ROTATE 360");
    /* explicit axes (1,0): the other sense */
    Mat r90b[] = {M(90, 1, 0)};
    re_case(3, 2, RT_ROTATE, r90b, 1, V(4, 1, 5, 2, 6, 3), "ROTATE 90 axes (1,0)");
}

static void test_scale(void **state)
{
    (void)state;
    Mat up[] = {M(2, 1, 1)};
    re_case(4, 3, RT_SCALE, up, 1, V(1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6), "SCALE rows x2");
    Mat upx[] = {M(1, 2, 1)};
    re_case(2, 6, RT_SCALE, upx, 1, V(1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6), "SCALE cols x2");
    Mat down[] = {M(1, -2, 1)}; /* columns 0 and 2: ceil(3/2) = 2 */
    re_case(2, 2, RT_SCALE, down, 1, V(1, 3, 4, 6), "SCALE cols /2");
    Mat both[] = {M(-2, 3, -1)};
    re_case(1, 9, RT_SCALE, both, 1, V(1, 1, 1, 2, 2, 2, 3, 3, 3), "SCALE mixed");
}

static void test_shear(void **state)
{
    (void)state;
    Mat a1[] = {M(1, 0)};
    re_case(2, 4, RT_SHEAR, a1, 1, V(1, 2, 3, 0, 0, 4, 5, 6), "SHEAR a=1");
    Mat am1[] = {M(-1, 0)};
    re_case(2, 4, RT_SHEAR, am1, 1, V(0, 1, 2, 3, 4, 5, 6, 0), "SHEAR a=-1");
    Mat b1[] = {M(0, 1)};
    re_case(4, 3, RT_SHEAR, b1, 1, V(1, 0, 0, 4, 2, 0, 0, 5, 3, 0, 0, 6), "SHEAR b=1");
    Mat a2[] = {M(2, 0, 0, 1)};
    re_case(2, 5, RT_SHEAR, a2, 1, V(1, 2, 3, 0, 0, 0, 0, 4, 5, 6), "SHEAR a=2 axes (0,1)");
}

static void test_reflect(void **state)
{
    (void)state;
    Mat lr[] = {M(1)};
    re_case(2, 3, RT_REFLECT, lr, 1, V(3, 2, 1, 6, 5, 4), "REFLECT left-right");
    Mat ud[] = {M(0)};
    re_case(2, 3, RT_REFLECT, ud, 1, V(4, 5, 6, 1, 2, 3), "REFLECT up-down");
    Mat both[] = {M(0, 1)};
    re_case(2, 3, RT_REFLECT, both, 1, V(6, 5, 4, 3, 2, 1), "REFLECT both");
}

static void test_affine(void **state)
{
    (void)state;
    /* transpose as a gather: u = (o1, o0, o2) into a 3x2 output */
    Mat tr[] = {M(0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0), NOMAT, M(3, 2, 1)};
    re_case(3, 2, RT_AFFINE, tr, 3, V(1, 4, 2, 5, 3, 6), "AFFINE transpose");
    /* nearest upsampling of x by 2 through the denominator: u1 = floor(o1 / 2) */
    Mat up[] = {M(2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 2, 0), M(2), M(2, 6, 1)};
    re_case(2, 6, RT_AFFINE, up, 3, V(1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6), "AFFINE upsample");
    /* translation: u1 = o1 - 1, outside gives 0 */
    Mat sh[] = {M(1, 0, 0, 0, 0, 1, 0, -1, 0, 0, 1, 0)};
    re_case(2, 3, RT_AFFINE, sh, 1, V(0, 1, 2, 0, 4, 5), "AFFINE translate");
    /* reflection: u1 = 2 - o1 */
    Mat rf[] = {M(1, 0, 0, 0, 0, -1, 0, 2, 0, 0, 1, 0)};
    re_case(2, 3, RT_AFFINE, rf, 1, V(3, 2, 1, 6, 5, 4), "AFFINE reflect");
}

static void test_project(void **state)
{
    (void)state;
    Mat id[] = {M(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1)};
    re_case(2, 3, RT_PROJECT, id, 1, A, "PROJECT identity");
    /* w = 2, rows doubled: u0 = floor(o0 / 2), u1 = floor(2 o1 / 2) */
    Mat up[] = {M(1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2), M(4, 3, 1)};
    re_case(4, 3, RT_PROJECT, up, 2, V(1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6), "PROJECT rows x2");
    /* a true perspective: h = (o0, o1, o2, o1 + 1), u = floor(h / w):
     * B[i][j] = A[floor(i / (j+1))][floor(j / (j+1)) = 0] */
    Mat pr[] = {M(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1)};
    re_case(2, 3, RT_PROJECT, pr, 1, V(1, 1, 1, 4, 1, 1), "PROJECT perspective");
    /* w = 0 everywhere: all outside */
    Mat w0[] = {M(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0)};
    re_case(2, 3, RT_PROJECT, w0, 1, V(0, 0, 0, 0, 0, 0), "PROJECT w=0");
}

static void test_shuffle(void **state)
{
    (void)state;
    Mat flat[] = {M(5, 4, 3, 2, 1, 0)};
    re_case(2, 3, RT_SHUFFLE, flat, 1, V(6, 5, 4, 3, 2, 1), "SHUFFLE flat");
    Mat dup[] = {M(0, 0, 0, 5, 5, 5)};
    re_case(2, 3, RT_SHUFFLE, dup, 1, V(1, 1, 1, 6, 6, 6), "SHUFFLE flat duplicates");
    Mat cols[] = {M(2, 0, 1), M(1)};
    re_case(2, 3, RT_SHUFFLE, cols, 2, V(3, 1, 2, 6, 4, 5), "SHUFFLE columns");
}

static void test_chain(void **state)
{
    (void)state;
    /* PERMUTE [1,0,2] then REFLECT [1] then SCALE [1,1,1]: transpose, mirror columns */
    Graph *g = re_graph(2, 3, 1, 3, 2, 1, RT_PERMUTE, (Mat[]){M(1, 0, 2)}, 1);
    Edge *e = g->edges[0];
    Rearrange *r = edge_add_rearrange(g, e, RT_REFLECT, 1);
    assert_true(tensor_set_i32(g, &r->mats[0], V(1), 1, V(1), 1));
    r = edge_add_rearrange(g, e, RT_IDENTITY, 0);
    assert_non_null(r);
    /* transpose: [[1,4],[2,5],[3,6]], mirrored: [[4,1],[5,2],[6,3]] */
    re_check(g, A, 6, V(4, 1, 5, 2, 6, 3), 6, "chain");
    graph_destroy(g);
}

static void test_bigger_boxes(void **state)
{
    (void)state;
    /* y x f = 2x2x3: ROTATE keeps f as the innermost axis; PERMUTE [2,0,1] moves f first */
    int32_t in[12];
    for (int i = 0; i < 12; i++)
        in[i] = i;
    Graph *g = re_graph(2, 2, 3, 2, 2, 3, RT_ROTATE, (Mat[]){M(90)}, 1);
    /* pixel (i,j) of the result is pixel (j, 1-i) of the input: (0,0) <- (0,1) = 3 4 5 */
    re_check(g, in, 12, V(3, 4, 5, 9, 10, 11, 0, 1, 2, 6, 7, 8), 12, "ROTATE y x f");
    graph_destroy(g);
    g = re_graph(2, 2, 3, 3, 2, 2, RT_PERMUTE, (Mat[]){M(2, 0, 1)}, 1);
    re_check(g, in, 12, V(0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11), 12, "PERMUTE f first");
    graph_destroy(g);
}

/* Two INPUTs written into one SI through interfaces at f = 0 and f = 1 (a concatenation),
 * and the SI read by OUTPUT; then one INPUT split over two SIs by partial source boxes. */
static void test_partial_boxes(void **state)
{
    (void)state;
    Graph *g = graph_create();
    Block *a = st_io(g, BT_INPUT, 2, 2, 1, 0, 0, "a");
    Block *b = st_io(g, BT_INPUT, 2, 2, 1, 0, 1, "b");
    Block *si = st_block(g, BT_SI, (int32_t[TIR_NDIMS]){2, 2, 2}, "cat");
    si->has_prec = true;
    si->prec = PR_INT_32;
    Block *out = st_io(g, BT_OUTPUT, 2, 2, 2, 0, 0, "out");
    assert_non_null(graph_connect(g, a, 0, si, 0));
    Edge *eb = graph_add_edge(g, GRAPH_AUTO_ID, b->id, si->id);
    Cluster *bc = blk_add_output(g, b);
    assert_non_null(bc);
    assert_non_null(cluster_add_iface(g, bc, eb->id));
    Iface *fa = &si->in[0].ifaces[0];
    fa->has_size = true;
    fa->size.d[D_Y] = 2, fa->size.d[D_X] = 2, fa->size.d[D_F] = 1;
    Iface *fb = cluster_add_iface(g, &si->in[0], eb->id);
    fb->has_pos = fb->has_size = true;
    fb->pos.d[D_F] = 1;
    fb->size.d[D_Y] = 2, fb->size.d[D_X] = 2, fb->size.d[D_F] = 1;
    assert_non_null(graph_connect(g, si, 0, out, 0));
    assert_false(graph_oom(g));
    SimRun *run = st_create(g, NULL);
    Diag d;
    diag_init(&d, "test");
    assert_int_equal(sim_set_input(run, 0, V(1, 2, 3, 4), 4, &d), ST_OK);
    assert_int_equal(sim_set_input(run, 1, V(10, 20, 30, 40), 4, &d), ST_OK);
    assert_int_equal(sim_step(run, &d), ST_OK);
    int64_t n;
    const int32_t *got = sim_output(run, 0, &n);
    st_assert_equal(V(1, 10, 2, 20, 3, 30, 4, 40), got, 8, "concat");
    sim_destroy(run);
    diag_finish(&d);
    graph_destroy(g);
}

/* The source side: an SI whose output cluster has two interfaces (x halves), each feeding
 * a CADD through a rearranging edge (REFLECT x) and a plain one. */
static void test_partial_source_with_rearrange(void **state)
{
    (void)state;
    Graph *g = graph_create();
    Block *in = st_io(g, BT_INPUT, 1, 4, 1, 0, 0, "in");
    Block *si = st_block(g, BT_SI, (int32_t[TIR_NDIMS]){1, 4, 1}, "x");
    si->has_prec = true, si->prec = PR_INT_32;
    Block *add = st_block(g, BT_CADD, (int32_t[TIR_NDIMS]){1, 2, 1, 0, 1, 1}, "add");
    add->bias_type = BIAS_CONSTANT;
    add->shape.n_branch = 2;
    blk_set_attr(g, add, AT_CONSTANT_B, 0);
    Block *so = st_block(g, BT_SI, (int32_t[TIR_NDIMS]){1, 2, 1}, "sum");
    so->has_prec = true, so->prec = PR_INT_32;
    Block *out = st_io(g, BT_OUTPUT, 1, 2, 1, 0, 0, "out");
    graph_connect(g, in, 0, si, 0);
    Edge *e1 = graph_connect(g, si, 0, add, 0);
    Edge *e2 = graph_add_edge(g, GRAPH_AUTO_ID, si->id, add->id);
    Iface *f1 = &si->out[0].ifaces[0];
    f1->has_size = true;
    f1->size.d[D_Y] = 1, f1->size.d[D_X] = 2, f1->size.d[D_F] = 1;
    Iface *f2 = cluster_add_iface(g, &si->out[0], e2->id);
    f2->has_pos = f2->has_size = true;
    f2->pos.d[D_X] = 2;
    f2->size.d[D_Y] = 1, f2->size.d[D_X] = 2, f2->size.d[D_F] = 1;
    blk_add_input(g, add);
    cluster_add_iface(g, &add->in[1], e2->id);
    Rearrange *r = edge_add_rearrange(g, e2, RT_REFLECT, 1);
    tensor_set_i32(g, &r->mats[0], V(1), 1, V(1), 1);
    (void)e1;
    graph_connect(g, add, 0, so, 0);
    graph_connect(g, so, 0, out, 0);
    assert_false(graph_oom(g));
    SimRun *run = st_create(g, NULL);
    Diag d;
    diag_init(&d, "test");
    assert_int_equal(sim_set_input(run, 0, V(1, 2, 30, 40), 4, &d), ST_OK);
    assert_int_equal(sim_step(run, &d), ST_OK);
    int64_t n;
    /* [1,2] + reflect([30,40]) = [41, 32] */
    st_assert_equal(V(41, 32), sim_output(run, 0, &n), 2, "split + reflect");
    sim_destroy(run);
    diag_finish(&d);
    graph_destroy(g);
}

static void test_errors(void **state)
{
    (void)state;
    re_error(3, 2, RT_PERMUTE, (Mat[]){M(1, 1, 2)}, 1, "rearrange.permute");
    re_error(3, 2, RT_PERMUTE, (Mat[]){M(1, 0)}, 1, "rearrange.permute");
    re_error(3, 2, RT_PERMUTE, NULL, 0, "rearrange.permute");
    re_error(3, 2, RT_RESHAPE, (Mat[]){M(0, 1, 3)}, 1, "rearrange.reshape");
    re_error(2, 3, RT_ROTATE, (Mat[]){M(45)}, 1, "rearrange.rotate");
    re_error(2, 3, RT_ROTATE, (Mat[]){M(90, 1, 1)}, 1, "rearrange.rotate");
    re_error(2, 3, RT_SCALE, (Mat[]){M(1, 0, 1)}, 1, "rearrange.scale");
    re_error(2, 3, RT_SHEAR, (Mat[]){M(1, 1)}, 1, "rearrange.shear");
    re_error(2, 3, RT_REFLECT, (Mat[]){M(1, 1)}, 1, "rearrange.reflect");
    re_error(2, 3, RT_SHIFT, (Mat[]){M(1, 1, 0), M(2)}, 2, "rearrange.shift");
    re_error(2, 3, RT_AFFINE, (Mat[]){M(1, 0, 0)}, 1, "rearrange.affine");
    re_error(2, 3, RT_AFFINE, (Mat[]){M(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0), M(0)}, 2,
             "rearrange.affine");
    re_error(2, 3, RT_PROJECT, (Mat[]){M(1 << 25, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1)},
             1, "rearrange.project");
    re_error(2, 3, RT_SHUFFLE, (Mat[]){M(0, 1, 2, 3, 4, 6)}, 1, "rearrange.shuffle");
    re_error(2, 3, RT_SHUFFLE, (Mat[]){M(0, 1)}, 1, "rearrange.shuffle");
    re_error(2, 3, RT_IDENTITY, (Mat[]){M(1)}, 1, "rearrange.identity");
    /* a step whose result does not fill the destination box */
    re_error(2, 3, RT_SCALE, (Mat[]){M(2, 1, 1)}, 1, "rearrange.volume");
    re_error(3, 3, RT_RESHAPE, NULL, 0, "rearrange.volume");
}

static void test_describe(void **state)
{
    (void)state;
    struct {
        RearrangeType t;
        Mat m[3];
        uint32_t n;
        const char *want;
    } cases[] = {
        {RT_IDENTITY, {NOMAT}, 0, "IDENTITY"},
        {RT_RESHAPE, {NOMAT}, 0, "RESHAPE (C order)"},
        {RT_RESHAPE, {M(2, 1, 0)}, 1, "RESHAPE p=[2,1,0] (fastest first)"},
        {RT_PERMUTE, {M(1, 0, 2)}, 1, "PERMUTE p=[1,0,2]"},
        {RT_SHIFT, {M(0, -1, 0)}, 1, "SHIFT d=[0,-1,0] cyclic"},
        {RT_SHIFT, {M(0, 2), M(1)}, 2, "SHIFT d=[0,2] zero-fill"},
        {RT_ROTATE, {M(90)}, 1, "ROTATE 90deg ccw axes=(0,1)"},
        {RT_ROTATE, {M(-180, 2, 0)}, 1, "ROTATE -180deg ccw axes=(2,0)"},
        {RT_SCALE, {M(2, -2, 1)}, 1, "SCALE factors=[2,-2,1] (n: up, -n: down)"},
        {RT_SHEAR, {M(1, 0)}, 1, "SHEAR a=1 b=0 axes=(0,1) zero-fill"},
        {RT_REFLECT, {M(1)}, 1, "REFLECT axes=[1]"},
        {RT_AFFINE, {M(1, 0, 0, 0, 1, 2), M(2), M(4, 4)}, 3,
         "AFFINE M=[[1,0,0],[0,1,2]] den=2 out=[4,4]"},
        {RT_AFFINE, {M(1, 0, 0, 0, 1, 2)}, 1, "AFFINE M=[[1,0,0],[0,1,2]] den=1 out=source"},
        {RT_PROJECT, {M(1, 0, 0, 1)}, 1, "PROJECT M=[[1,0],[0,1]] out=source"},
        {RT_SHUFFLE, {M(2, 0, 1), M(1)}, 2, "SHUFFLE index=[2,0,1] axis=1"},
        {RT_SHUFFLE, {M(1, 0)}, 1, "SHUFFLE index=[1,0] (flat)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Graph *g = graph_create();
        Edge *e = graph_add_edge(g, 1, 1, 2);
        Rearrange *r = edge_add_rearrange(g, e, cases[i].t, cases[i].n);
        for (uint32_t k = 0; k < cases[i].n; k++) {
            int32_t dims[1] = {(int32_t)cases[i].m[k].n};
            tensor_set_i32(g, &r->mats[k], dims, 1, cases[i].m[k].v, cases[i].m[k].n);
        }
        char buf[256];
        rearrange_describe(r, buf, sizeof buf);
        assert_string_equal(buf, cases[i].want);
        char tiny[8];
        rearrange_describe(r, tiny, sizeof tiny); /* truncates, stays terminated */
        assert_true(strlen(tiny) < sizeof tiny);
        graph_destroy(g);
    }
    /* a long index is abbreviated */
    int32_t idx[40];
    for (int i = 0; i < 40; i++)
        idx[i] = 39 - i;
    Graph *g = graph_create();
    Edge *e = graph_add_edge(g, 1, 1, 2);
    Rearrange *r = edge_add_rearrange(g, e, RT_SHUFFLE, 1);
    tensor_set_i32(g, &r->mats[0], (int32_t[]){40}, 1, idx, 40);
    char buf[256];
    rearrange_describe(r, buf, sizeof buf);
    assert_non_null(strstr(buf, ",... 40 entries]"));
    graph_destroy(g);
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Random parameters for every type on random boxes: either the step is refused (by
 * ra_decode, rearrange_check and sim_create alike) or it runs (under the sanitizers: without
 * reading or writing out of bounds); the types that only move elements give a permutation of
 * the input. */
static void test_random_parameters(void **state)
{
    (void)state;
    StRng g = {8128};
    int ran = 0, refused = 0;
    for (int round = 0; round < 600; round++) {
        int y = st_range(&g, 1, 4), x = st_range(&g, 1, 4), f = st_range(&g, 1, 3);
        RearrangeType t = (RearrangeType)st_range(&g, 0, RT_COUNT - 1);
        /* the sizes each type's tensors usually have (docs/semantics.md), else anything */
        static const uint32_t natural[RT_COUNT][3] = {
            [RT_RESHAPE] = {3}, [RT_PERMUTE] = {3}, [RT_SHIFT] = {3, 1}, [RT_ROTATE] = {1},
            [RT_SCALE] = {3}, [RT_SHEAR] = {2}, [RT_REFLECT] = {1}, [RT_AFFINE] = {12, 1, 3},
            [RT_PROJECT] = {16, 3}, [RT_SHUFFLE] = {0, 1}};
        uint32_t n_mats = (uint32_t)st_range(&g, 0, 3);
        int32_t vals[3][64];
        Mat mats[3];
        for (uint32_t i = 0; i < n_mats; i++) {
            uint32_t n = natural[t][i];
            if (t == RT_SHUFFLE && i == 0)
                n = (uint32_t)(st_range(&g, 0, 1) ? y * x * f : x);
            if (st_range(&g, 0, 3) == 0)
                n = (uint32_t)st_range(&g, 0, 20);
            for (uint32_t j = 0; j < n; j++)
                vals[i][j] = st_range(&g, 0, 5) ? st_range(&g, -3, 6) : 90 * st_range(&g, -2, 2);
            if (t == RT_SHUFFLE && i == 1 && n == 1)
                vals[i][0] = 1;
            mats[i] = (Mat){vals[i], n};
        }
        if ((t == RT_PERMUTE || t == RT_RESHAPE) && n_mats && st_range(&g, 0, 1)) {
            static const int32_t perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                                {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
            mats[0] = (Mat){perms[st_range(&g, 0, 5)], 3};
        }
        RaShape in = {3, {y, x, f}};
        Rearrange r = {t, NULL, 0};
        Graph *tmp = graph_create();
        Edge *te = graph_add_edge(tmp, 1, 1, 2);
        Rearrange *tr = edge_add_rearrange(tmp, te, t, n_mats);
        for (uint32_t i = 0; i < n_mats; i++) {
            int32_t dims[1] = {(int32_t)mats[i].n};
            assert_true(tensor_set_i32(tmp, &tr->mats[i], dims, 1, mats[i].v, mats[i].n));
        }
        r = *tr;
        RaStep st;
        char why[300];
        bool ok = ra_decode(&r, &in, &st, why, sizeof why);
        char desc[256];
        rearrange_describe(&r, desc, sizeof desc);
        assert_true(strlen(desc) > 0);
        graph_destroy(tmp);
        int oy = ok ? (int)st.out.d[0] : y, ox = ok ? (int)st.out.d[1] : x;
        int of = ok ? (int)st.out.d[2] : f;
        Graph *gr = re_graph(y, x, f, oy, ox, of, t, mats, n_mats);
        Diag d;
        diag_init(&d, "test");
        SimRun *run = NULL;
        Status cs = sim_create(gr, NULL, &run, &d);
        assert_int_equal(cs, ok ? ST_OK : ST_LOGIC);
        GraphUses u;
        assert_true(graph_uses(gr, &u));
        assert_int_equal(rearrange_check(gr, &u, gr->edges[0], &d), ok ? ST_OK : ST_LOGIC);
        graph_uses_finish(&u);
        if (ok) {
            int64_t n = (int64_t)y * x * f;
            int32_t in_v[48];
            for (int64_t i = 0; i < n; i++)
                in_v[i] = (int32_t)i + 1;
            assert_int_equal(sim_set_input(run, 0, in_v, n, &d), ST_OK);
            assert_int_equal(sim_step(run, &d), ST_OK);
            int64_t m;
            const int32_t *o = sim_output(run, 0, &m);
            int32_t *out_v = malloc((size_t)(m ? m : 1) * sizeof *out_v);
            assert_non_null(out_v);
            memcpy(out_v, o, (size_t)m * sizeof *o);
            for (int64_t i = 0; i < m; i++)
                assert_true(out_v[i] >= 0 && out_v[i] <= n);
            bool moves = t == RT_IDENTITY || t == RT_RESHAPE || t == RT_PERMUTE ||
                         t == RT_ROTATE || t == RT_REFLECT || (t == RT_SHIFT && st.cyclic);
            if (moves) {
                assert_int_equal(m, n);
                qsort(out_v, (size_t)m, sizeof *out_v, cmp_i32);
                for (int64_t i = 0; i < n; i++)
                    assert_int_equal(out_v[i], i + 1);
            }
            free(out_v);
            ran++;
        } else {
            refused++;
        }
        sim_destroy(run);
        diag_finish(&d);
        graph_destroy(gr);
    }
    if (ran < 50 || refused < 50)
        fail_msg("ran %d, refused %d: the generator is off", ran, refused);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity_and_reshape),
        cmocka_unit_test(test_permute),
        cmocka_unit_test(test_shift),
        cmocka_unit_test(test_rotate),
        cmocka_unit_test(test_scale),
        cmocka_unit_test(test_shear),
        cmocka_unit_test(test_reflect),
        cmocka_unit_test(test_affine),
        cmocka_unit_test(test_project),
        cmocka_unit_test(test_shuffle),
        cmocka_unit_test(test_chain),
        cmocka_unit_test(test_bigger_boxes),
        cmocka_unit_test(test_partial_boxes),
        cmocka_unit_test(test_partial_source_with_rearrange),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_describe),
        cmocka_unit_test(test_random_parameters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
