/* bench_sim.c: throughput of the functional simulator (taskir/sim.h).
 *
 *   bench_sim [--threads N] [--reps R] [EXAMPLE.pb ...]
 *
 * Prints, one line each:
 *   - the 3x3 convolution 56x56x64 -> 64 (padding 1, int8-valued data) as GMAC/s, best of R
 *     time steps, for 1 thread and, with --threads N > 1, for N threads;
 *   - the same for a vector-matrix product (CVM) 4096 -> 4096;
 *   - the same for the elementwise products CVVH (x * y) and CAX (x * alpha[f]) on
 *     56x56x256 int8-valued data (one multiply-accumulate per result);
 *   - planning (sim_create) and verifying a block with 40000 incoming edges (INPUT [40000]
 *     -> SI by one-element edges -> OUTPUT), best of R, then the same with 160000: both
 *     linear in the fan-in (the same time per edge);
 *   - for every EXAMPLE.pb: the end-to-end time of load + verify + plan + one step on an
 *     all-ones input, best of R.
 * Built by meson (bench/meson.build), never run by `meson test`; bench/sim runs it. */
#include "taskir/graph.h"
#include "taskir/pbio.h"
#include "taskir/sim.h"
#include "taskir/verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, Diag *d)
{
    fprintf(stderr, "bench_sim: %s failed\n", what);
    if (d)
        diag_print(d, stderr, "bench_sim");
    exit(3);
}

/* Plans g on threads threads, sets INPUT 0 to x (n values) and prints the best of reps steps
 * as GMAC/s of macs multiply-accumulates, on a line starting with label. */
static void time_steps(const char *label, Graph *g, uint32_t threads, const int32_t *x,
                       int64_t n, double macs, int reps)
{
    Diag d;
    diag_init(&d, label);
    SimOptions o = {.threads = threads, .steps = 1, .keep_all = false};
    SimRun *run;
    if (graph_oom(g) || verify_graph(g, &d) || sim_create(g, &o, &run, &d))
        die("planning the benchmark graph", &d);
    if (sim_set_input(run, 0, x, n, &d))
        die("sim_set_input", &d);
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        if (sim_step(run, &d))
            die("sim_step", &d);
        double t = now() - t0;
        if (t < best)
            best = t;
    }
    printf("%-21s threads=%-2u  %.1f MMAC  best %.2f ms  %.2f GMAC/s\n", label, threads,
           macs * 1e-6, best * 1e3, macs / best * 1e-9);
    sim_destroy(run);
    diag_finish(&d);
}

/* INPUT HxWxC -> SIC -> CC KxK pad K/2 (+SW, +SB) -> SI -> OUTPUT, int8-valued data. */
static Graph *conv_graph(int H, int W, int C, int F, int K)
{
    Graph *g = graph_create();
    if (!g)
        die("graph_create", NULL);
    Block *in = graph_add_block(g, BT_INPUT, GRAPH_AUTO_ID, "data");
    in->shape.d[D_Y] = H, in->shape.d[D_X] = W, in->shape.d[D_F] = C;
    in->has_socket_id = true;
    Block *sic = graph_add_block(g, BT_SIC, GRAPH_AUTO_ID, "conv/in");
    sic->shape.d[D_Y] = H, sic->shape.d[D_X] = W, sic->shape.d[D_R] = C;
    Block *sw = graph_add_block(g, BT_SW, GRAPH_AUTO_ID, "conv/w");
    sw->shape.d[D_F] = F, sw->shape.d[D_R] = C, sw->shape.d[D_KY] = K, sw->shape.d[D_KX] = K;
    int64_t nw = (int64_t)F * C * K * K;
    int64_t *w = malloc((size_t)nw * sizeof *w);
    if (!w)
        die("malloc", NULL);
    uint32_t st = 12345;
    for (int64_t i = 0; i < nw; i++) {
        st = st * 1664525u + 1013904223u;
        w[i] = (int64_t)(st >> 24) - 128;
    }
    int32_t wd[4] = {F, C, K, K};
    blk_set_data(g, sw, PR_INT_8, wd, 4, w, (uint64_t)nw);
    free(w);
    Block *sb = graph_add_block(g, BT_SB, GRAPH_AUTO_ID, "conv/b");
    sb->shape.d[D_F] = F;
    int64_t *bias = calloc((size_t)F, sizeof *bias);
    int32_t bd[1] = {F};
    blk_set_data(g, sb, PR_INT_32, bd, 1, bias, (uint64_t)F);
    free(bias);
    Block *cc = graph_add_block(g, BT_CC, GRAPH_AUTO_ID, "conv");
    int32_t s[TIR_NDIMS] = {H, W, F, C, K, K, H, W};
    memcpy(cc->shape.d, s, sizeof s);
    cc->bias_type = BIAS_VECTOR;
    blk_set_attr(g, cc, AT_KERNEL_X, K);
    blk_set_attr(g, cc, AT_KERNEL_Y, K);
    int32_t pads[] = {AT_PAD_UP, AT_PAD_DOWN, AT_PAD_LEFT, AT_PAD_RIGHT};
    for (int i = 0; i < 4; i++)
        blk_set_attr(g, cc, (AttrId)pads[i], K / 2);
    Block *si = graph_add_block(g, BT_SI, GRAPH_AUTO_ID, "conv/out");
    si->shape.d[D_Y] = H, si->shape.d[D_X] = W, si->shape.d[D_F] = F;
    si->has_prec = true, si->prec = PR_INT_32;
    Block *out = graph_add_block(g, BT_OUTPUT, GRAPH_AUTO_ID, "out");
    out->shape.d[D_Y] = H, out->shape.d[D_X] = W, out->shape.d[D_F] = F;
    out->has_socket_id = true;
    graph_connect(g, in, 0, sic, 0);
    graph_connect(g, sic, 0, cc, 0);
    graph_connect(g, sw, 0, cc, 1);
    graph_connect(g, sb, 0, cc, 2);
    graph_connect(g, cc, 0, si, 0);
    graph_connect(g, si, 0, out, 0);
    if (graph_oom(g))
        die("building the graph", NULL);
    return g;
}

static void bench_conv(uint32_t threads, int reps)
{
    const int H = 56, W = 56, C = 64, F = 64, K = 3;
    Graph *g = conv_graph(H, W, C, F, K);
    int64_t n = (int64_t)H * W * C;
    int32_t *x = malloc((size_t)n * sizeof *x);
    if (!x)
        die("malloc", NULL);
    uint32_t st = 777;
    for (int64_t i = 0; i < n; i++) {
        st = st * 1664525u + 1013904223u;
        x[i] = (int32_t)(st >> 24) - 128;
    }
    time_steps("conv3x3 56x56x64->64", g, threads, x, n, (double)H * W * F * C * K * K, reps);
    free(x);
    graph_destroy(g);
}

/* INPUT [R] -> SIFC -> CVM R -> F (+SWFC) -> SI -> OUTPUT. */
static void bench_cvm(uint32_t threads, int reps)
{
    const int R = 4096, F = 4096;
    Graph *g = graph_create();
    if (!g)
        die("graph_create", NULL);
    Block *in = graph_add_block(g, BT_INPUT, GRAPH_AUTO_ID, "x");
    in->shape.d[D_F] = R; /* SIFC takes [r] through an input cluster (f = r) */
    in->has_socket_id = true;
    Block *sifc = graph_add_block(g, BT_SIFC, GRAPH_AUTO_ID, "fc/in");
    sifc->shape.d[D_R] = R;
    Block *sw = graph_add_block(g, BT_SWFC, GRAPH_AUTO_ID, "fc/w");
    sw->shape.d[D_F] = F, sw->shape.d[D_R] = R;
    int64_t nw = (int64_t)F * R;
    int64_t *w = malloc((size_t)nw * sizeof *w);
    if (!w)
        die("malloc", NULL);
    uint32_t st = 99;
    for (int64_t i = 0; i < nw; i++) {
        st = st * 1664525u + 1013904223u;
        w[i] = (int64_t)(st >> 24) - 128;
    }
    int32_t wd[2] = {F, R};
    blk_set_data(g, sw, PR_INT_8, wd, 2, w, (uint64_t)nw);
    free(w);
    Block *fc = graph_add_block(g, BT_CVM, GRAPH_AUTO_ID, "fc");
    fc->shape.d[D_F] = F, fc->shape.d[D_R] = R;
    fc->bias_type = BIAS_CONSTANT;
    blk_set_attr(g, fc, AT_CONSTANT_B, 0);
    Block *si = graph_add_block(g, BT_SI, GRAPH_AUTO_ID, "fc/out");
    si->shape.d[D_F] = F;
    si->has_prec = true, si->prec = PR_INT_32;
    Block *out = graph_add_block(g, BT_OUTPUT, GRAPH_AUTO_ID, "out");
    out->shape.d[D_F] = F;
    out->has_socket_id = true;
    graph_connect(g, in, 0, sifc, 0);
    graph_connect(g, sifc, 0, fc, 0);
    graph_connect(g, sw, 0, fc, 1);
    graph_connect(g, fc, 0, si, 0);
    graph_connect(g, si, 0, out, 0);
    int32_t *x = malloc((size_t)R * sizeof *x);
    if (!x)
        die("malloc", NULL);
    for (int i = 0; i < R; i++)
        x[i] = i % 255 - 127;
    time_steps("cvm 4096->4096", g, threads, x, R, (double)F * R, reps);
    free(x);
    graph_destroy(g);
}

/* INPUT HxWxC -> SI -> t (CVVH: the same SI twice; CAX: an SB alpha [C]) -> SI -> OUTPUT,
 * constant bias 1. */
static Graph *elementwise_graph(BlockType t, int H, int W, int C)
{
    Graph *g = graph_create();
    if (!g)
        die("graph_create", NULL);
    int32_t s[TIR_NDIMS] = {H, W, C};
    Block *in = graph_add_block(g, BT_INPUT, GRAPH_AUTO_ID, "x");
    Block *x = graph_add_block(g, BT_SI, GRAPH_AUTO_ID, "x/si");
    Block *op = graph_add_block(g, t, GRAPH_AUTO_ID, "op");
    Block *si = graph_add_block(g, BT_SI, GRAPH_AUTO_ID, "op/out");
    Block *out = graph_add_block(g, BT_OUTPUT, GRAPH_AUTO_ID, "out");
    if (!in || !x || !op || !si || !out)
        die("building the graph", NULL);
    Block *all[] = {in, x, op, si, out};
    for (int i = 0; i < 5; i++)
        memcpy(all[i]->shape.d, s, sizeof s);
    if (t == BT_CVVH)
        op->shape.d[D_IY] = H, op->shape.d[D_IX] = W;
    in->has_socket_id = out->has_socket_id = true;
    si->has_prec = true, si->prec = PR_INT_32;
    op->bias_type = BIAS_CONSTANT;
    blk_set_attr(g, op, AT_CONSTANT_B, 1);
    Block *y = x;
    if (t == BT_CAX) {
        y = graph_add_block(g, BT_SB, GRAPH_AUTO_ID, "alpha");
        int64_t *a = malloc((size_t)C * sizeof *a);
        if (!y || !a)
            die("building the graph", NULL);
        y->shape.d[D_F] = C;
        for (int f = 0; f < C; f++)
            a[f] = f % 255 - 127;
        int32_t ad[1] = {C};
        blk_set_data(g, y, PR_INT_8, ad, 1, a, (uint64_t)C);
        free(a);
    }
    graph_connect(g, in, 0, x, 0);
    graph_connect(g, x, 0, op, 0);
    graph_connect(g, y, 0, op, 1);
    graph_connect(g, op, 0, si, 0);
    graph_connect(g, si, 0, out, 0);
    if (graph_oom(g))
        die("building the graph", NULL);
    return g;
}

static void bench_elementwise(BlockType t, int reps)
{
    const int H = 56, W = 56, C = 256;
    Graph *g = elementwise_graph(t, H, W, C);
    int64_t n = (int64_t)H * W * C;
    int32_t *x = malloc((size_t)n * sizeof *x);
    if (!x)
        die("malloc", NULL);
    for (int64_t i = 0; i < n; i++)
        x[i] = (int32_t)(i % 251) - 125;
    time_steps(t == BT_CAX ? "cax 56x56x256" : "cvvh 56x56x256", g, 1, x, n, (double)n, reps);
    free(x);
    graph_destroy(g);
}

/* INPUT [N] -> SI [N] by N one-element edges (element i to N-1-i) -> OUTPUT. */
static void bench_fan_in(int reps, int32_t N)
{
    Graph *g = graph_create();
    if (!g)
        die("graph_create", NULL);
    Block *in = graph_add_block(g, BT_INPUT, GRAPH_AUTO_ID, "x");
    in->shape.d[D_F] = N;
    in->has_socket_id = true;
    Block *si = graph_add_block(g, BT_SI, GRAPH_AUTO_ID, "gather");
    si->shape.d[D_F] = N;
    Block *out = graph_add_block(g, BT_OUTPUT, GRAPH_AUTO_ID, "out");
    out->shape.d[D_F] = N;
    out->has_socket_id = true;
    int32_t one[TIR_CDIMS] = {1, 1, 1, 1, 1, 1};
    for (int32_t i = 0; i < N; i++) {
        int32_t s[TIR_CDIMS] = {0, 0, i}, t[TIR_CDIMS] = {0, 0, N - 1 - i};
        graph_connect_box(g, in, 0, s, one, si, 0, t, one);
    }
    graph_connect(g, si, 0, out, 0);
    if (graph_oom(g))
        die("building the fan-in graph", NULL);
    double plan = 1e30, vfy = 1e30;
    for (int r = 0; r < reps; r++) {
        Diag d;
        diag_init(&d, "fan-in");
        double t0 = now();
        if (verify_graph(g, &d))
            die("verifying the fan-in graph", &d);
        double t1 = now();
        SimRun *run;
        if (sim_create(g, NULL, &run, &d))
            die("planning the fan-in graph", &d);
        double t2 = now();
        if (t1 - t0 < vfy)
            vfy = t1 - t0;
        if (t2 - t1 < plan)
            plan = t2 - t1;
        sim_destroy(run);
        diag_finish(&d);
    }
    printf("fan-in %d edges    plan best %.2f ms  verify best %.2f ms\n", (int)N, plan * 1e3,
           vfy * 1e3);
    graph_destroy(g);
}

static void bench_example(const char *path, uint32_t threads, int reps)
{
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        Diag d;
        diag_init(&d, path);
        double t0 = now();
        Graph *g;
        SimRun *run;
        if (graph_load_pb(path, &g, &d) || verify_graph(g, &d))
            die("loading the example", &d);
        SimOptions o = {.threads = threads, .steps = 1, .keep_all = false};
        if (sim_create(g, &o, &run, &d))
            die("planning the example", &d);
        for (uint32_t k = 0; k < sim_n_inputs(run); k++) {
            int64_t shape[NPY_MAX_DIMS], n = 1;
            uint32_t nd = sim_input_shape(run, k, shape);
            for (uint32_t i = 0; i < nd; i++)
                n *= shape[i];
            int32_t *x = malloc((size_t)(n ? n : 1) * sizeof *x);
            for (int64_t i = 0; x && i < n; i++)
                x[i] = 1;
            if (!x || sim_set_input(run, k, x, n, &d))
                die("setting an input", &d);
            free(x);
        }
        if (sim_step(run, &d))
            die("running the example", &d);
        double t = now() - t0;
        if (t < best)
            best = t;
        sim_destroy(run);
        graph_destroy(g);
        diag_finish(&d);
    }
    printf("example %-40s best %.3f ms end to end\n", path, best * 1e3);
}

int main(int argc, char **argv)
{
    uint32_t threads = 1;
    int reps = 5, first = argc;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = (uint32_t)atoi(argv[++i]);
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else {
            first = i;
            break;
        }
    }
    if (reps < 1)
        reps = 1;
    bench_conv(1, reps);
    if (threads > 1)
        bench_conv(threads, reps);
    bench_cvm(1, reps);
    if (threads > 1)
        bench_cvm(threads, reps);
    bench_elementwise(BT_CVVH, reps);
    bench_elementwise(BT_CAX, reps);
    bench_fan_in(reps, 40000);
    bench_fan_in(reps, 160000);
    for (int i = first; i < argc; i++)
        bench_example(argv[i], 1, reps);
    return 0;
}
