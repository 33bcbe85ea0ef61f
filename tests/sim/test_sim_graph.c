/* test_sim_graph.c: whole graphs. The example graphs (built into $TASKIR_BUILDDIR/examples)
 * run on deterministic inputs and are checked against an independent naive implementation of
 * the same network written here (examples/lenet.txtpb's pipeline, reading only the weights
 * from the file); batches and time steps through sim_run; CLIF state carried across steps
 * and reset between samples; every input error (missing, unknown, duplicate, shape, dtype,
 * range, batch) and planning error (cycle, socket, data, limit) with its rule id. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "simtest.h"
#include "taskir/pbio.h"
#include "taskir/verify.h"

#define V(...) ((const int32_t[]){__VA_ARGS__})

static Graph *load_example(const char *name)
{
    const char *dir = getenv("TASKIR_BUILDDIR");
    assert_non_null(dir);
    char path[1024];
    snprintf(path, sizeof path, "%s/examples/%s.pb", dir, name);
    Diag d;
    diag_init(&d, path);
    Graph *g = NULL;
    Status st = graph_load_pb(path, &g, &d);
    if (st)
        diag_print(&d, stderr, "test");
    diag_finish(&d);
    assert_int_equal(st, ST_OK);
    return g;
}

static const int32_t *weights(const Graph *g, const char *name, int64_t n)
{
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        const Block *b = g->blocks[i];
        if (b->name && strcmp(b->name, name) == 0) {
            assert_non_null(b->data);
            assert_int_equal(b->data->n_i32, n);
            return b->data->i32;
        }
    }
    fail_msg("no block '%s' in the example", name);
    return NULL;
}

static int64_t fshift(int64_t v, int s)
{
    int64_t d = (int64_t)1 << s;
    return (v - (((v % d) + d) % d)) / d;
}

static int64_t clip(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* A valid convolution [h][w][c] * W[f][c][k][k] + b[f] -> [h-k+1][w-k+1][f], int64 sums
 * (small values: no wrap can occur, which the test asserts). */
static void ref_conv(const int64_t *in, int h, int w, int c, const int32_t *W, const int32_t *b,
                     int f, int k, int64_t *out)
{
    int oh = h - k + 1, ow = w - k + 1;
    for (int y = 0; y < oh; y++)
        for (int x = 0; x < ow; x++)
            for (int o = 0; o < f; o++) {
                int64_t s = b[o];
                for (int i = 0; i < c; i++)
                    for (int ky = 0; ky < k; ky++)
                        for (int kx = 0; kx < k; kx++)
                            s += in[((y + ky) * w + x + kx) * c + i] *
                                 W[((o * c + i) * k + ky) * k + kx];
                assert_true(s >= INT32_MIN && s <= INT32_MAX);
                out[(y * ow + x) * f + o] = s;
            }
}

/* 2x2/2 max pool, then clip(m >> s, 0, 127). */
static void ref_pool(const int64_t *in, int h, int w, int c, int s, int64_t *out)
{
    for (int y = 0; y < h / 2; y++)
        for (int x = 0; x < w / 2; x++)
            for (int i = 0; i < c; i++) {
                int64_t m = INT64_MIN;
                for (int dy = 0; dy < 2; dy++)
                    for (int dx = 0; dx < 2; dx++) {
                        int64_t v = in[((2 * y + dy) * w + 2 * x + dx) * c + i];
                        m = v > m ? v : m;
                    }
                out[(y * (w / 2) + x) * c + i] = clip(fshift(m, s), 0, 127);
            }
}

static void ref_fc(const int64_t *in, int r, const int32_t *W, const int32_t *b, int f,
                   int64_t *out)
{
    for (int o = 0; o < f; o++) {
        int64_t s = b[o];
        for (int i = 0; i < r; i++)
            s += W[o * r + i] * in[i];
        assert_true(s >= INT32_MIN && s <= INT32_MAX);
        out[o] = s;
    }
}

/* examples/lenet.txtpb as gen_lenet.py describes it, on one 16x16x1 image. */
static void ref_lenet(const Graph *g, const int32_t *img, int32_t out[10])
{
    int64_t x[256], c1[12 * 12 * 4], p1[6 * 6 * 4], c2[4 * 4 * 8], p2[32], f1[16], r1[16];
    int64_t f2[10];
    for (int i = 0; i < 256; i++)
        x[i] = img[i];
    ref_conv(x, 16, 16, 1, weights(g, "conv1/w", 100), weights(g, "conv1/b", 4), 4, 5, c1);
    ref_pool(c1, 12, 12, 4, 7, p1);
    ref_conv(p1, 6, 6, 4, weights(g, "conv2/w", 288), weights(g, "conv2/b", 8), 8, 3, c2);
    ref_pool(c2, 4, 4, 8, 8, p2); /* [2][2][8] flattened in C order */
    ref_fc(p2, 32, weights(g, "fc1/w", 512), weights(g, "fc1/b", 16), 16, f1);
    for (int i = 0; i < 16; i++)
        r1[i] = clip(fshift(f1[i], 8), 0, 127);
    ref_fc(r1, 16, weights(g, "fc2/w", 160), weights(g, "fc2/b", 10), 10, f2);
    for (int i = 0; i < 10; i++)
        out[i] = (int32_t)f2[i];
}

static void image(uint32_t seed, int32_t *img, int n)
{
    StRng r = {seed};
    for (int i = 0; i < n; i++)
        img[i] = st_range(&r, -128, 127);
}

static void test_lenet_example(void **state)
{
    (void)state;
    Graph *g = load_example("lenet");
    SimRun *run = st_create(g, NULL);
    Diag d;
    diag_init(&d, "lenet");
    bool nonzero = false;
    for (uint32_t seed = 1; seed <= 20; seed++) {
        int32_t img[256], want[10];
        image(seed, img, 256);
        if (seed == 20)
            for (int i = 0; i < 256; i++)
                img[i] = i % 2 ? 127 : -128; /* extremes */
        ref_lenet(g, img, want);
        uint32_t k;
        assert_int_equal(sim_find_input(run, "data", &k, &d), ST_OK);
        assert_int_equal(sim_set_input(run, k, img, 256, &d), ST_OK);
        assert_int_equal(sim_step(run, &d), ST_OK);
        int64_t n;
        const int32_t *got = sim_output(run, 0, &n);
        assert_int_equal(n, 10);
        char what[64];
        snprintf(what, sizeof what, "lenet seed %u", seed);
        st_assert_equal(want, got, 10, what);
        for (int i = 0; i < 10; i++)
            nonzero |= want[i] != 0;
    }
    assert_true(nonzero); /* the network does not collapse to zeros */
    diag_finish(&d);
    sim_destroy(run);
    graph_destroy(g);
}

static void test_lenet_batch_and_steps(void **state)
{
    (void)state;
    Graph *g = load_example("lenet");
    int32_t imgs[3 * 256], want[3][10];
    for (int s = 0; s < 3; s++) {
        image(100 + (uint32_t)s, imgs + 256 * s, 256);
        ref_lenet(g, imgs + 256 * s, want[s]);
    }
    /* batch of 3 */
    SimOptions o = {.threads = 2, .steps = 1, .keep_all = true};
    SimRun *run = st_create(g, &o);
    NpyArray a = {NPY_I32, 4, {3, 16, 16, 1}, 3 * 256, imgs, NULL};
    SimInput in = {"0", &a};
    SimResult res;
    Diag d;
    diag_init(&d, "lenet");
    assert_int_equal(sim_run(run, &in, 1, &res, &d), ST_OK);
    assert_int_equal(res.n_outputs, 1);
    assert_int_equal(res.batch, 3);
    assert_int_equal(res.outputs[0].ndim, 2);
    assert_int_equal(res.outputs[0].shape[0], 3);
    assert_int_equal(res.outputs[0].shape[1], 10);
    assert_int_equal(res.outputs[0].socket_id, 0);
    for (int s = 0; s < 3; s++)
        st_assert_equal(want[s], res.outputs[0].data + 10 * s, 10, "batch");
    /* keep_all: every block, the weights as stored */
    assert_int_equal(res.n_blocks, g->n_blocks);
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        const Block *b = g->blocks[i];
        const SimTensor *t = &res.blocks[i];
        assert_int_equal(t->block_id, b->id);
        assert_int_equal(t->shape[0], 3);
        if (b->type == BT_SW) { /* [N][f][r][ky][kx] */
            assert_int_equal(t->ndim, 5);
            assert_int_equal(t->shape[1], b->shape.d[D_F]);
            st_assert_equal(b->data->i32, t->data + 2 * (t->count / 3), t->count / 3, "SW");
        }
        if (b->type == BT_OUTPUT)
            st_assert_equal(res.outputs[0].data, t->data, t->count, "OUTPUT block");
    }
    sim_result_free(&res);
    sim_destroy(run);

    /* two steps, one slice per step: [T]+S */
    SimOptions o2 = {.threads = 1, .steps = 2, .keep_all = false};
    run = st_create(g, &o2);
    NpyArray a2 = {NPY_I32, 4, {2, 16, 16, 1}, 2 * 256, imgs, NULL};
    SimInput in2 = {"data", &a2};
    assert_int_equal(sim_run(run, &in2, 1, &res, &d), ST_OK);
    assert_int_equal(res.outputs[0].ndim, 2);
    assert_int_equal(res.outputs[0].shape[0], 2);
    st_assert_equal(want[0], res.outputs[0].data, 10, "step 0");
    st_assert_equal(want[1], res.outputs[0].data + 10, 10, "step 1");
    sim_result_free(&res);
    /* the same image at every step: S */
    NpyArray a3 = {NPY_I32, 3, {16, 16, 1}, 256, imgs + 512, NULL};
    SimInput in3 = {"data", &a3};
    assert_int_equal(sim_run(run, &in3, 1, &res, &d), ST_OK);
    st_assert_equal(want[2], res.outputs[0].data, 10, "const step 0");
    st_assert_equal(want[2], res.outputs[0].data + 10, 10, "const step 1");
    sim_result_free(&res);
    sim_destroy(run);
    diag_finish(&d);
    graph_destroy(g);
}

static int32_t clip_shift(int64_t v, int shift)
{
    v >>= shift;   /* arithmetic: the operands are small */
    return (int32_t)(v < 0 ? 0 : v > 127 ? 127 : v);
}

/* The existing tools' conventions (examples/tianjic_style.txtpb), computed by hand:
 * INPUT 8x8x1 -> CC2D 3x3 1->2 + bias -> CCMPB 2x2/2 >>1 clip [0,127] -> RESHAPE (y x f
 * flattened) -> CVM 18->4 + bias -> CCMPB (1-D) >>2 clip [0,127] -> OUTPUT 4. */
static void test_tianjic_style_example(void **state)
{
    (void)state;
    Graph *g = load_example("tianjic_style");
    SimRun *run = st_create(g, NULL);
    const int32_t *w2 = graph_block(g, 1)->data->i32, *b2 = graph_block(g, 2)->data->i32;
    const int32_t *wf = graph_block(g, 9)->data->i32, *bf = graph_block(g, 10)->data->i32;
    int32_t in[64], conv[6][6][2], pool[18], want[4];
    StRng r = {5};
    for (int i = 0; i < 64; i++)
        in[i] = st_range(&r, -128, 127);
    for (int y = 0; y < 6; y++)
        for (int x = 0; x < 6; x++)
            for (int f = 0; f < 2; f++) {
                int32_t acc = b2[f];
                for (int ky = 0; ky < 3; ky++)
                    for (int kx = 0; kx < 3; kx++)
                        acc += in[(y + ky) * 8 + x + kx] * w2[f * 9 + ky * 3 + kx];
                conv[y][x][f] = acc;
            }
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 3; x++)
            for (int f = 0; f < 2; f++) {
                int32_t m = conv[2 * y][2 * x][f];
                for (int k = 1; k < 4; k++)
                    if (conv[2 * y + k / 2][2 * x + k % 2][f] > m)
                        m = conv[2 * y + k / 2][2 * x + k % 2][f];
                pool[(y * 3 + x) * 2 + f] = clip_shift(m, 1);
            }
    for (int f = 0; f < 4; f++) {
        int64_t acc = bf[f];
        for (int i = 0; i < 18; i++)
            acc += (int64_t)wf[f * 18 + i] * pool[i];
        want[f] = clip_shift(acc, 2);
    }
    Diag d;
    diag_init(&d, "tianjic_style");
    assert_int_equal(sim_set_input(run, 0, in, 64, &d), ST_OK);
    assert_int_equal(sim_step(run, &d), ST_OK);
    int64_t n;
    st_assert_equal(want, sim_output(run, 0, &n), 4, "tianjic_style");
    assert_int_equal(n, 4);
    int nonzero = 0;
    for (int f = 0; f < 4; f++)
        nonzero += want[f] != 0;
    assert_true(nonzero >= 2);   /* the data exercise the path, not only the clip */
    diag_finish(&d);
    sim_destroy(run);
    graph_destroy(g);
}

/* INPUT (1x1x2) -> SI -> CLIF -> SI -> OUTPUT */
static Graph *lif_graph(void)
{
    Graph *g = graph_create();
    Block *in = st_io(g, BT_INPUT, 1, 1, 2, 0, 0, "x");
    Block *si = st_block(g, BT_SI, (int32_t[TIR_NDIMS]){1, 1, 2}, "x/s");
    si->has_prec = true, si->prec = PR_INT_32;
    Block *lif = st_block(g, BT_CLIF, (int32_t[TIR_NDIMS]){1, 1, 2}, "lif");
    blk_set_attr(g, lif, AT_VTH0, 10);
    blk_set_attr(g, lif, AT_VLEAKY_BETA, -1);
    Block *so = st_block(g, BT_SI, (int32_t[TIR_NDIMS]){1, 1, 2}, "spikes");
    so->has_prec = true, so->prec = PR_INT_32;
    Block *out = st_io(g, BT_OUTPUT, 1, 1, 2, 0, 3, "s");
    graph_connect(g, in, 0, si, 0);
    graph_connect(g, si, 0, lif, 0);
    graph_connect(g, lif, 0, so, 0);
    graph_connect(g, so, 0, out, 0);
    assert_false(graph_oom(g));
    return g;
}

static void test_clif_through_sim_run(void **state)
{
    (void)state;
    Graph *g = lif_graph();
    SimOptions o = {.threads = 1, .steps = 5, .keep_all = false};
    SimRun *run = st_create(g, &o);
    /* two samples of five steps: lane 0 gets 4 every step (fires at step 3, see
     * test_sim_kernels), lane 1 gets 11 then 0 (fires at once, then leaks) */
    int32_t x[2 * 5 * 2];
    for (int s = 0; s < 2; s++)
        for (int t = 0; t < 5; t++) {
            x[(s * 5 + t) * 2] = 4;
            x[(s * 5 + t) * 2 + 1] = t == 0 ? 11 : 0;
        }
    NpyArray a = {NPY_I32, 5, {2, 5, 1, 1, 2}, 20, x, NULL};
    SimInput in = {"x", &a};
    SimResult res;
    Diag d;
    diag_init(&d, "lif");
    assert_int_equal(sim_run(run, &in, 1, &res, &d), ST_OK);
    assert_int_equal(res.outputs[0].socket_id, 3);
    assert_int_equal(res.outputs[0].ndim, 5);
    const int32_t want[10] = {0, 1, 0, 0, 0, 0, 1, 0, 0, 0};
    st_assert_equal(want, res.outputs[0].data, 10, "sample 0");
    st_assert_equal(want, res.outputs[0].data + 10, 10, "sample 1 (state reset)");
    sim_result_free(&res);
    diag_finish(&d);
    sim_destroy(run);
    graph_destroy(g);
}

/* ---- errors ---- */

static void expect_run_error(SimRun *run, const SimInput *in, uint32_t n, const char *rule)
{
    Diag d;
    diag_init(&d, "test");
    SimResult res;
    assert_int_equal(sim_run(run, in, n, &res, &d), ST_LOGIC);
    if (diag_find(&d, rule) < 0) {
        diag_print(&d, stderr, "test");
        fail_msg("expected rule %s", rule);
    }
    assert_null(res.outputs);
    diag_finish(&d);
}

static void test_input_errors(void **state)
{
    (void)state;
    Graph *g = load_example("lenet");
    SimRun *run = st_create(g, NULL);
    int32_t img[2 * 256] = {0};
    NpyArray ok = {NPY_I8, 3, {16, 16, 1}, 256, img, NULL};
    SimInput good = {"data", &ok};
    expect_run_error(run, NULL, 0, "sim.input.missing");
    SimInput unknown[] = {good, {"nosuch", &ok}};
    expect_run_error(run, unknown, 2, "sim.input.unknown");
    SimInput bad_sock[] = {{"7", &ok}};
    expect_run_error(run, bad_sock, 1, "sim.input.unknown");
    SimInput twice[] = {good, {"0", &ok}};
    expect_run_error(run, twice, 2, "sim.input.duplicate");
    NpyArray shape = {NPY_I32, 2, {16, 16}, 256, img, NULL};
    SimInput s1 = {"data", &shape};
    expect_run_error(run, &s1, 1, "sim.input.shape");
    NpyArray shape2 = {NPY_I32, 5, {1, 2, 16, 16, 1}, 512, img, NULL};
    SimInput s2 = {"data", &shape2};
    expect_run_error(run, &s2, 1, "sim.input.shape");
    float f[256] = {0};
    NpyArray fl = {NPY_F32, 3, {16, 16, 1}, 256, NULL, f};
    SimInput s3 = {"data", &fl};
    expect_run_error(run, &s3, 1, "sim.input.dtype");
    img[17] = 128; /* the INPUT block is INT_8 */
    SimInput s4 = {"data", &ok};
    expect_run_error(run, &s4, 1, "sim.input.range");
    img[17] = 0;
    /* a batch of 0 samples is fine: empty results */
    NpyArray empty = {NPY_I32, 4, {0, 16, 16, 1}, 0, img, NULL};
    SimInput s5 = {"data", &empty};
    SimResult res;
    Diag d;
    diag_init(&d, "test");
    assert_int_equal(sim_run(run, &s5, 1, &res, &d), ST_OK);
    assert_int_equal(res.outputs[0].shape[0], 0);
    assert_int_equal(res.outputs[0].count, 0);
    sim_result_free(&res);
    diag_finish(&d);
    sim_destroy(run);
    graph_destroy(g);

    /* two inputs with different batches */
    g = graph_create();
    Block *a = st_io(g, BT_INPUT, 1, 1, 2, 0, 0, "a");
    Block *b = st_io(g, BT_INPUT, 1, 1, 2, 0, 1, "b");
    Block *sa = st_block(g, BT_SI, (int32_t[TIR_NDIMS]){1, 1, 2}, NULL);
    Block *sb = st_block(g, BT_SI, (int32_t[TIR_NDIMS]){1, 1, 2}, NULL);
    sa->has_prec = sb->has_prec = true;
    sa->prec = sb->prec = PR_INT_32;
    Block *add = st_block(g, BT_CADD, (int32_t[TIR_NDIMS]){1, 1, 2, 0, 1, 1}, "add");
    add->bias_type = BIAS_CONSTANT;
    add->shape.n_branch = 2;
    blk_set_attr(g, add, AT_CONSTANT_B, 0);
    Block *so = st_block(g, BT_SI, (int32_t[TIR_NDIMS]){1, 1, 2}, NULL);
    so->has_prec = true, so->prec = PR_INT_32;
    Block *out = st_io(g, BT_OUTPUT, 1, 1, 2, 0, 0, "sum");
    graph_connect(g, a, 0, sa, 0);
    graph_connect(g, b, 0, sb, 0);
    graph_connect(g, sa, 0, add, 0);
    graph_connect(g, sb, 0, add, 1);
    graph_connect(g, add, 0, so, 0);
    graph_connect(g, so, 0, out, 0);
    run = st_create(g, NULL);
    int32_t v[6] = {1, 2, 3, 4, 5, 6};
    NpyArray b2 = {NPY_I32, 4, {2, 1, 1, 2}, 4, v, NULL};
    NpyArray b3 = {NPY_I32, 4, {3, 1, 1, 2}, 6, v, NULL};
    NpyArray one = {NPY_I32, 3, {1, 1, 2}, 2, v, NULL};
    SimInput mism[] = {{"a", &b2}, {"b", &b3}};
    expect_run_error(run, mism, 2, "sim.input.batch");
    /* an unbatched input is broadcast over the batch of the other */
    SimInput bc[] = {{"a", &b3}, {"1", &one}};
    diag_init(&d, "test");
    assert_int_equal(sim_run(run, bc, 2, &res, &d), ST_OK);
    st_assert_equal(V(2, 4, 4, 6, 6, 8), res.outputs[0].data, 6, "broadcast");
    sim_result_free(&res);
    diag_finish(&d);
    sim_destroy(run);
    /* ambiguous names */
    b->name = a->name;
    run = st_create(g, NULL);
    SimInput amb[] = {{"a", &one}};
    expect_run_error(run, amb, 1, "sim.input.name");
    sim_destroy(run);
    graph_destroy(g);
}

/* sim_create refuses g with a finding of rule whose message holds what (NULL: any). */
static void expect_create_error_what(const Graph *g, const char *rule, const char *what)
{
    Diag d;
    diag_init(&d, "test");
    SimRun *run = NULL;
    Status st = sim_create(g, NULL, &run, &d);
    assert_int_equal(st, ST_LOGIC);
    assert_null(run);
    int k = diag_find(&d, rule);
    if (k < 0 || (what && !strstr(d.entries[k].what, what))) {
        diag_print(&d, stderr, "test");
        fail_msg("expected rule %s%s%s", rule, what ? " saying " : "", what ? what : "");
    }
    diag_finish(&d);
}

static void expect_create_error(const Graph *g, const char *rule)
{
    expect_create_error_what(g, rule, NULL);
}

static void test_plan_errors(void **state)
{
    (void)state;
    /* a cycle: SI -> CADD -> SI -> CADD -> (back to the first SI) */
    Graph *g = graph_create();
    Block *s1 = st_block(g, BT_SI, (int32_t[TIR_NDIMS]){1, 1, 1}, "s1");
    Block *c1 = st_block(g, BT_CADD, (int32_t[TIR_NDIMS]){1, 1, 1, 0, 1, 1}, "c1");
    c1->bias_type = BIAS_CONSTANT;
    graph_connect(g, s1, 0, c1, 0);
    graph_connect(g, c1, 0, s1, 0);
    expect_create_error(g, "sim.cycle");
    graph_destroy(g);

    /* two OUTPUT blocks with one socket id */
    g = graph_create();
    Block *in = st_io(g, BT_INPUT, 1, 1, 1, 0, 0, "in");
    Block *si = st_block(g, BT_SI, (int32_t[TIR_NDIMS]){1, 1, 1}, NULL);
    Block *o1 = st_io(g, BT_OUTPUT, 1, 1, 1, 0, 4, "o1");
    Block *o2 = st_io(g, BT_OUTPUT, 1, 1, 1, 0, 4, "o2");
    graph_connect(g, in, 0, si, 0);
    graph_connect(g, si, 0, o1, 0);
    Edge *e = graph_add_edge(g, GRAPH_AUTO_ID, si->id, o2->id);
    cluster_add_iface(g, &si->out[0], e->id);
    cluster_add_iface(g, blk_add_input(g, o2), e->id);
    expect_create_error(g, "sim.socket");
    graph_destroy(g);

    /* a data tensor of the wrong size */
    g = graph_create();
    Block *sb = st_storage(g, BT_SB, (int32_t[TIR_NDIMS]){0, 0, 3}, V(1, 2), 2);
    (void)sb;
    expect_create_error(g, "sim.data");
    graph_destroy(g);

    /* a buffer past the cap */
    g = graph_create();
    Block *big = st_block(g, BT_SI, (int32_t[TIR_NDIMS]){1 << 15, 1 << 15, 1 << 10}, "big");
    (void)big;
    expect_create_error(g, "limit.sim");
    graph_destroy(g);

    /* all buffers together past the cap of 2^31 elements (8 GiB; the buffers of taskir-opt's
     * 2.94 GB output of the 10x model add up to 1.65 G elements), each buffer within its own
     * cap: refused by the total, before anything is allocated */
    g = graph_create();
    for (int i = 0; i < 9; i++)
        (void)st_block(g, BT_SI, (int32_t[TIR_NDIMS]){1 << 14, 1 << 14, 1}, NULL);
    expect_create_error_what(g, "limit.sim", "more than the limit of 2147483648");
    graph_destroy(g);

    /* too much work in one step: a 1024x1024x64 conv with a 64x64 kernel over 64 channels
     * (buffers are within the caps, the multiply-accumulates are not); refused before any
     * buffer is allocated */
    g = graph_create();
    Block *cc = st_block(g, BT_CC, (int32_t[TIR_NDIMS]){1024, 1024, 64, 64, 64, 64, 1087,
                                                        1087}, "huge");
    cc->bias_type = BIAS_CONSTANT;
    Block *x = st_block(g, BT_SIC, (int32_t[TIR_NDIMS]){1087, 1087, 0, 64}, NULL);
    Block *w = st_block(g, BT_SW, (int32_t[TIR_NDIMS]){0, 0, 64, 64, 64, 64}, NULL);
    graph_connect(g, x, 0, cc, 0);
    graph_connect(g, w, 0, cc, 1);
    expect_create_error(g, "limit.sim");
    graph_destroy(g);

    /* a compute block missing its weight cluster */
    g = graph_create();
    Block *cv = st_block(g, BT_CVM, (int32_t[TIR_NDIMS]){0, 0, 2, 2}, "fc");
    cv->bias_type = BIAS_CONSTANT;
    Block *xi = st_storage(g, BT_SIFC, (int32_t[TIR_NDIMS]){0, 0, 0, 2}, V(1, 2), 2);
    graph_connect(g, xi, 0, cv, 0);
    expect_create_error(g, "sim.cluster");
    graph_destroy(g);

    /* an edge whose destination names no interface */
    g = graph_create();
    Block *a = st_storage(g, BT_SI, (int32_t[TIR_NDIMS]){1, 1, 1}, V(1), 1);
    Block *c = st_block(g, BT_CVS, (int32_t[TIR_NDIMS]){1, 1, 1}, NULL);
    c->bias_type = BIAS_CONSTANT;
    Edge *ed = graph_add_edge(g, GRAPH_AUTO_ID, a->id, c->id);
    cluster_add_iface(g, blk_add_output(g, a), ed->id);
    blk_add_input(g, c);
    expect_create_error(g, "sim.edge");
    graph_destroy(g);
}

/* A storage block fed by nothing keeps its data; one fed by an edge is overwritten; an SI
 * read by two consumers gives both the same values (buffers aliased or copied). */
static void test_sharing(void **state)
{
    (void)state;
    Graph *g = graph_create();
    Block *in = st_io(g, BT_INPUT, 1, 1, 3, 0, 0, "in");
    Block *si = st_block(g, BT_SI, (int32_t[TIR_NDIMS]){1, 1, 3}, "x");
    si->has_prec = true, si->prec = PR_INT_32;
    Block *c1 = st_block(g, BT_CVS, (int32_t[TIR_NDIMS]){1, 1, 3}, "times2");
    c1->bias_type = BIAS_CONSTANT;
    blk_set_attr(g, c1, AT_CONSTANT_A, 2);
    blk_set_attr(g, c1, AT_CONSTANT_B, 0);
    Block *c2 = st_block(g, BT_CVS, (int32_t[TIR_NDIMS]){1, 1, 3}, "plus1");
    c2->bias_type = BIAS_CONSTANT;
    blk_set_attr(g, c2, AT_CONSTANT_A, 1);
    blk_set_attr(g, c2, AT_CONSTANT_B, 1);
    Block *r1 = st_block(g, BT_SI, (int32_t[TIR_NDIMS]){1, 1, 3}, NULL);
    Block *r2 = st_block(g, BT_SI, (int32_t[TIR_NDIMS]){1, 1, 3}, NULL);
    r1->has_prec = r2->has_prec = true;
    r1->prec = r2->prec = PR_INT_32;
    Block *o1 = st_io(g, BT_OUTPUT, 1, 1, 3, 0, 0, "o1");
    Block *o2 = st_io(g, BT_OUTPUT, 1, 1, 3, 0, 1, "o2");
    graph_connect(g, in, 0, si, 0);
    graph_connect(g, si, 0, c1, 0);
    Edge *e = graph_add_edge(g, GRAPH_AUTO_ID, si->id, c2->id);
    cluster_add_iface(g, &si->out[0], e->id);
    cluster_add_iface(g, blk_add_input(g, c2), e->id);
    graph_connect(g, c1, 0, r1, 0);
    graph_connect(g, c2, 0, r2, 0);
    graph_connect(g, r1, 0, o1, 0);
    graph_connect(g, r2, 0, o2, 0);
    SimRun *run = st_create(g, NULL);
    Diag d;
    diag_init(&d, "test");
    for (int rep = 0; rep < 2; rep++) {
        int32_t x[3] = {rep, 5, -7};
        assert_int_equal(sim_set_input(run, 0, x, 3, &d), ST_OK);
        assert_int_equal(sim_step(run, &d), ST_OK);
        int64_t n;
        st_assert_equal(V(2 * rep, 10, -14), sim_output(run, 0, &n), 3, "o1");
        st_assert_equal(V(rep + 1, 6, -6), sim_output(run, 1, &n), 3, "o2");
        int64_t shape[NPY_MAX_DIMS];
        uint32_t nd;
        const int32_t *xs = sim_block_result(run, 1, shape, &nd, &n);
        assert_int_equal(nd, 3);
        st_assert_equal(x, xs, 3, "SI content");
    }
    diag_finish(&d);
    sim_destroy(run);
    graph_destroy(g);
}

/* A storage block that holds an int32 data tensor and that no edge writes runs on the
 * tensor's own values (no copy: ResNet-50's weights would take another 100 MB); one that
 * an edge writes gets its own buffer, initialised from its data. */
static void test_data_in_place(void **state)
{
    (void)state;
    Graph *g = load_example("lenet");
    SimRun *run = st_create(g, NULL);
    uint32_t in_place = 0;
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        const Block *b = g->blocks[i];
        int64_t shape[NPY_MAX_DIMS], n;
        uint32_t nd;
        const int32_t *r = sim_block_result(run, i, shape, &nd, &n);
        if (b->data && b->data->n_i32) {
            assert_ptr_equal(r, b->data->i32);
            in_place++;
        }
    }
    assert_true(in_place >= 4);
    sim_destroy(run);
    graph_destroy(g);

    /* in -> SI holding data (the verifier refuses an input cluster there, the planner
     * takes it): the edge writes the block, so it has a buffer of its own */
    g = graph_create();
    Block *in = st_io(g, BT_INPUT, 1, 1, 3, 0, 0, "in");
    Block *si = st_storage(g, BT_SI, (int32_t[TIR_NDIMS]){1, 1, 3}, V(7, 8, 9), 3);
    si->has_prec = true, si->prec = PR_INT_32;
    Block *out = st_io(g, BT_OUTPUT, 1, 1, 3, 0, 0, "out");
    graph_connect(g, in, 0, si, 0);
    graph_connect(g, si, 0, out, 0);
    Diag d;
    diag_init(&d, "test");
    assert_int_equal(sim_create(g, NULL, &run, &d), ST_OK);
    assert_int_equal(sim_set_input(run, 0, V(1, 2, 3), 3, &d), ST_OK);
    assert_int_equal(sim_step(run, &d), ST_OK);
    int64_t n;
    st_assert_equal(V(1, 2, 3), sim_output(run, 0, &n), 3, "out");
    st_assert_equal(V(7, 8, 9), si->data->i32, 3, "the data tensor, unchanged");
    diag_finish(&d);
    sim_destroy(run);
    graph_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lenet_example),
        cmocka_unit_test(test_lenet_batch_and_steps),
        cmocka_unit_test(test_tianjic_style_example),
        cmocka_unit_test(test_clif_through_sim_run),
        cmocka_unit_test(test_input_errors),
        cmocka_unit_test(test_plan_errors),
        cmocka_unit_test(test_sharing),
        cmocka_unit_test(test_data_in_place),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
