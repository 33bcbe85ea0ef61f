/* gen_cvm: writes the example CVM models (cvm-runtime format: graph JSON + params) with an
 * input and the expected output of each, deterministically from a fixed-seed PRNG, so that
 * no binary model needs to live in git. examples/README.md describes the models.
 *
 *   gen_cvm -o DIR [--no-expected] [MODEL ...]
 *   gen_cvm --list
 *
 * MODEL is one of the examples (default: all five) or a benchmark model, never made by
 * default: "resnet50" (bench/compile, bench/run) or "resnet50x10", the same network 3.28x
 * wider, 10x the weights and multiply-accumulates (bench/run). For each model it writes
 * DIR/MODEL.json, DIR/MODEL.params, DIR/MODEL.input.npy (int32, the model's input shape) and,
 * unless --no-expected (or for a benchmark model, whose interpretation takes minutes),
 * DIR/MODEL.outputK.npy for every head K: the reference interpreter's result on that input,
 * exactly the file `taskir-run MODEL.json --params MODEL.params --input
 * data=MODEL.input.npy -o OUT` writes as OUT/outputK.npy.
 *
 * Every model is built with the checked builder (fe_cvm_add_input/_const/_op), so our own
 * validator checks each node as it is added; then it is written (fe_cvm_save), read back
 * (fe_cvm_load) and compared node by node with what was built (fe_og_same), and the expected
 * output is computed from the model as read back. The models are quantized as CVM models
 * are: int8 data and weights, int32 biases, and after every conv2d / dense a requantization
 * cvm_right_shift (round half up, precision 8) + cvm_clip (precision 8); the shift amount is
 * chosen from an integer estimate of the accumulator's second moment so that values keep
 * about 5 bits of spread instead of saturating.
 *
 * The PRNG is splitmix64 seeded with the FNV-1a hash of the model's name, so each model is
 * the same on every machine whatever the other models are. Exit status 0, 1 usage, 2 a model
 * failed validation (a bug here), 3 I/O or out of memory.
 */
#include "frontend/cvm.h"
#include "frontend/cvm_save.h"
#include "frontend/run_model.h"
#include "taskir/npy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL "gen_cvm"
#define W_M2 5419   /* E[w^2] of a uniform int in [-127, 127] */

/* ---- the builder state ---- */

typedef struct Gen {
    OpGraph *g;
    Diag *d;
    Status st;
    uint64_t rng;
} Gen;

/* A tensor: an edge and an estimate of the second moment E[x^2] of its values. */
typedef struct T {
    OgEdge e;
    int64_t m2;
} T;

static const T NONE = {{-1, 0}, 0};

static uint64_t next(Gen *G)
{
    uint64_t z = (G->rng += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* A uniform int in [lo, hi] (the modulo bias is below 2^-40: irrelevant here). */
static int32_t uniform(Gen *G, int32_t lo, int32_t hi)
{
    uint64_t span = (uint64_t)((int64_t)hi - lo + 1);
    return (int32_t)(lo + (int64_t)(next(G) % span));
}

static uint64_t fnv1a(const char *s)
{
    uint64_t h = UINT64_C(0xCBF29CE484222325);
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * UINT64_C(0x100000001B3);
    return h;
}

static int64_t isqrt(int64_t v)
{
    int64_t r = 0;
    while ((r + 1) * (r + 1) <= v)
        r++;
    return r;
}

static OgShape shape_of(Gen *G, T x)
{
    return *og_edge_shape(G->g, x.e);
}

static OgShape shp(uint32_t n, int64_t a, int64_t b, int64_t c, int64_t d)
{
    OgShape s = {n, {a, b, c, d, 0, 0}};
    return s;
}

static T input(Gen *G, const OgShape *s, int64_t m2)
{
    OgNode *n;
    if (G->st || (G->st = fe_cvm_add_input(G->g, "data", s, 8, &n, G->d)))
        return NONE;
    return (T){{n->id, 0}, m2};
}

/* A parameter of shape s with uniform values in [lo, hi], its precision inferred. */
static T param(Gen *G, const char *name, const OgShape *s, int32_t lo, int32_t hi)
{
    if (G->st)
        return NONE;
    OgTensor t = {0};
    if (!og_tensor_alloc(&t, s)) {
        G->st = diag_add(G->d, ST_RUNTIME, "oom", name, "out of memory");
        return NONE;
    }
    for (int64_t i = 0; i < t.count; i++)
        t.data[i] = uniform(G, lo, hi);
    OgNode *n;
    G->st = fe_cvm_add_const(G->g, name, &t, 0, &n, G->d);
    og_tensor_free(&t);
    return G->st ? NONE : (T){{n->id, 0}, 0};
}

/* An operator node; kv is "key", "value", ..., NULL. Output 0, with second moment m2. */
static T op(Gen *G, CvmOp o, const char *name, const T *in, uint32_t nin, const char *const *kv,
            int64_t m2)
{
    if (G->st)
        return NONE;
    OgEdge e[8];
    CvmKV attrs[16];
    size_t na = 0;
    for (uint32_t i = 0; i < nin && i < 8; i++)
        e[i] = in[i].e;
    for (; kv && kv[2 * na] && na < 16; na++)
        attrs[na] = (CvmKV){kv[2 * na], kv[2 * na + 1]};
    OgNode *n;
    if ((G->st = fe_cvm_add_op(G->g, o, name, e, nin, attrs, na, &n, G->d)))
        return NONE;
    return (T){{n->id, 0}, m2 > 0 ? m2 : 1};
}

#define KV(...) ((const char *const[]){__VA_ARGS__, NULL})

static void name2(char *buf, size_t size, const char *a, const char *b)
{
    snprintf(buf, size, "%s_%s", a, b);
}

/* cvm_right_shift to precision 8 by the shift that brings E[x^2] to about 2^10, then
 * cvm_clip to precision 8. */
static T requant(Gen *G, const char *name, T x)
{
    int s = 1;
    while (s < 24 && (x.m2 >> (2 * s)) > 1024)
        s++;
    char nm[160], sb[16];
    snprintf(sb, sizeof sb, "%d", s);
    name2(nm, sizeof nm, name, "shift");
    T y = op(G, CVM_OP_cvm_right_shift, nm, &x, 1, KV("precision", "8", "shift_bit", sb),
             x.m2 >> (2 * s));
    name2(nm, sizeof nm, name, "clip");
    return op(G, CVM_OP_cvm_clip, nm, &y, 1, KV("precision", "8"), y.m2);
}

static T relu(Gen *G, const char *name, T x)
{
    return op(G, CVM_OP_relu, name, &x, 1, NULL, x.m2 / 2);
}

/* conv2d (with bias) k x k, stride, padding pad, groups; then requant. */
static T conv(Gen *G, const char *name, T x, int64_t oc, int k, int stride, int pad,
              int64_t groups)
{
    if (G->st)
        return NONE;
    OgShape xs = shape_of(G, x);
    int64_t ic = xs.d[1] / groups;
    char nm[160], a[4][48];
    OgShape ws = shp(4, oc, ic, k, k), bs = shp(1, oc, 0, 0, 0);
    int64_t acc = ic * k * k * W_M2 * x.m2;
    int32_t bias = (int32_t)(isqrt(acc) / 2);
    name2(nm, sizeof nm, name, "weight");
    T w = param(G, nm, &ws, -127, 127);
    name2(nm, sizeof nm, name, "bias");
    T b = param(G, nm, &bs, -bias, bias);
    snprintf(a[0], sizeof a[0], "%lld", (long long)oc);
    snprintf(a[1], sizeof a[1], "(%d, %d)", k, k);
    snprintf(a[2], sizeof a[2], "(%d, %d)", stride, stride);
    snprintf(a[3], sizeof a[3], "(%d, %d)", pad, pad);
    char gs[24];
    snprintf(gs, sizeof gs, "%lld", (long long)groups);
    T in[3] = {x, w, b};
    T y = op(G, CVM_OP_conv2d, name, in, 3,
             KV("channels", a[0], "kernel_size", a[1], "strides", a[2], "padding", a[3],
                "dilation", "(1, 1)", "groups", gs, "use_bias", "true"),
             acc + (int64_t)bias * bias / 3);
    return requant(G, name, y);
}

/* dense (with bias) to units; then requant. */
static T dense(Gen *G, const char *name, T x, int64_t units)
{
    if (G->st)
        return NONE;
    OgShape xs = shape_of(G, x);
    int64_t acc = xs.d[1] * W_M2 * x.m2;
    int32_t bias = (int32_t)(isqrt(acc) / 2);
    char nm[160], u[24];
    OgShape ws = shp(2, units, xs.d[1], 0, 0), bs = shp(1, units, 0, 0, 0);
    name2(nm, sizeof nm, name, "weight");
    T w = param(G, nm, &ws, -127, 127);
    name2(nm, sizeof nm, name, "bias");
    T b = param(G, nm, &bs, -bias, bias);
    snprintf(u, sizeof u, "%lld", (long long)units);
    T in[3] = {x, w, b};
    T y = op(G, CVM_OP_dense, name, in, 3, KV("units", u, "use_bias", "true"),
             acc + (int64_t)bias * bias / 3);
    return requant(G, name, y);
}

static T max_pool(Gen *G, const char *name, T x, int k, int stride, int pad)
{
    char a[3][32];
    snprintf(a[0], sizeof a[0], "(%d, %d)", k, k);
    snprintf(a[1], sizeof a[1], "(%d, %d)", stride, stride);
    snprintf(a[2], sizeof a[2], "(%d, %d)", pad, pad);
    return op(G, CVM_OP_max_pool2d, name, &x, 1,
              KV("pool_size", a[0], "strides", a[1], "padding", a[2], "ceil_mode", "false"),
              x.m2 * 2);
}

/* elemwise_add (precision 9) clipped back to 8 bits, then relu: a residual join. */
static T add_relu(Gen *G, const char *name, T a, T b)
{
    char nm[160];
    T in[2] = {a, b};
    name2(nm, sizeof nm, name, "add");
    T s = op(G, CVM_OP_elemwise_add, nm, in, 2, NULL, a.m2 + b.m2);
    name2(nm, sizeof nm, name, "clip");
    s = op(G, CVM_OP_cvm_clip, nm, &s, 1, KV("precision", "8"), s.m2);
    name2(nm, sizeof nm, name, "relu");
    return relu(G, nm, s);
}

static void output(Gen *G, T x)
{
    if (!G->st && !og_add_output(G->g, x.e.node, x.e.index))
        G->st = diag_add(G->d, ST_RUNTIME, "oom", NULL, "out of memory");
}

/* ---- the models ---- */

/* LeNet-5 for MNIST: 1x28x28 (values 0..127) -> conv 5x5 pad 2 (6) -> relu -> pool 2/2 ->
 * conv 5x5 (16) -> relu -> pool -> flatten (400) -> fc 120 -> relu -> fc 84 -> relu ->
 * fc 10. */
static void build_lenet(Gen *G)
{
    OgShape s = shp(4, 1, 1, 28, 28);
    T x = input(G, &s, 5400);
    x = relu(G, "relu1", conv(G, "conv1", x, 6, 5, 1, 2, 1));
    x = max_pool(G, "pool1", x, 2, 2, 0);
    x = relu(G, "relu2", conv(G, "conv2", x, 16, 5, 1, 0, 1));
    x = max_pool(G, "pool2", x, 2, 2, 0);
    x = op(G, CVM_OP_flatten, "flatten", &x, 1, NULL, x.m2);
    x = relu(G, "relu3", dense(G, "fc1", x, 120));
    x = relu(G, "relu4", dense(G, "fc2", x, 84));
    output(G, dense(G, "fc3", x, 10));
}

/* A ResNet basic block: 8x16x16 -> conv 3x3 (8) -> relu -> conv 3x3 (8), + the input,
 * clip, relu. */
static void build_resnet_block(Gen *G)
{
    OgShape s = shp(4, 1, 8, 16, 16);
    T x = input(G, &s, W_M2);
    T y = relu(G, "relu1", conv(G, "conv1", x, 8, 3, 1, 1, 1));
    y = conv(G, "conv2", y, 8, 3, 1, 1, 1);
    output(G, add_relu(G, "join", y, x));
}

/* A MobileNet depthwise-separable block: 16x16x16 -> depthwise 3x3 stride 2 (groups 16)
 * -> relu -> pointwise 1x1 (32) -> relu. */
static void build_mobilenet_block(Gen *G)
{
    OgShape s = shp(4, 1, 16, 16, 16);
    T x = input(G, &s, W_M2);
    x = relu(G, "dw_relu", conv(G, "dw", x, 16, 3, 2, 1, 16));
    output(G, relu(G, "pw_relu", conv(G, "pw", x, 32, 1, 1, 0, 1)));
}

/* A YOLOv3-style two-scale head: 8x16x16 -> conv 3x3/2 (16) = the deep 8x8 feature; head 0:
 * conv 1x1 (21 = 3 anchors x (5 + 2 classes)) on it; the route: conv 1x1 (8) -> upsampling x2
 * -> concatenate with conv 3x3 (8) of the input -> conv 3x3 (16) -> head 1: conv 1x1 (21)
 * at 16x16. */
static void build_yolo_head(Gen *G)
{
    OgShape s = shp(4, 1, 8, 16, 16);
    T x = input(G, &s, W_M2);
    T deep = relu(G, "down_relu", conv(G, "down", x, 16, 3, 2, 1, 1));
    output(G, conv(G, "head0", deep, 21, 1, 1, 0, 1));
    T r = relu(G, "route_relu", conv(G, "route", deep, 8, 1, 1, 0, 1));
    r = op(G, CVM_OP_upsampling, "upsample", &r, 1, KV("scale", "2"), r.m2);
    T lat = relu(G, "lateral_relu", conv(G, "lateral", x, 8, 3, 1, 1, 1));
    T cat[2] = {r, lat};
    T c = op(G, CVM_OP_concatenate, "concat", cat, 2, KV("axis", "1"), (r.m2 + lat.m2) / 2);
    c = relu(G, "fuse_relu", conv(G, "fuse", c, 16, 3, 1, 1, 1));
    output(G, conv(G, "head1", c, 21, 1, 1, 0, 1));
}

/* An MLP on a batch of 4: 4x64 -> fc 32 -> relu -> fc 10. */
static void build_mlp(Gen *G)
{
    OgShape s = shp(2, 4, 64, 0, 0);
    T x = input(G, &s, W_M2);
    x = relu(G, "relu1", dense(G, "fc1", x, 32));
    output(G, dense(G, "fc2", x, 10));
}

/* Statistics over a batch of 4 images, nodes that mix the samples (so the whole 4x3x8x8
 * tensor is the unit the TaskGraph computes): conv 3x3 (4) -> relu; head 0 = the sum over
 * the batch (axis 0), 4x8x8; head 1 = each image's sum, (4,); head 2 = that sum divided by
 * the image's maximum (precisions 17 and 8: a restoring division), (4,). */
static void build_batch_stats(Gen *G)
{
    OgShape s = shp(4, 4, 3, 8, 8);
    T x = input(G, &s, W_M2);
    T y = relu(G, "relu", conv(G, "conv", x, 4, 3, 1, 1, 1));
    output(G, op(G, CVM_OP_sum, "batch_sum", &y, 1, KV("axis", "(0,)"), y.m2 * 4));
    T tot = op(G, CVM_OP_sum, "image_sum", &y, 1, KV("axis", "(1, 2, 3)"), y.m2 * 256);
    output(G, tot);
    T mx = op(G, CVM_OP_max, "image_max", &y, 1, KV("axis", "(1, 2, 3)"), y.m2);
    T q[2] = {tot, mx};
    output(G, op(G, CVM_OP_broadcast_div, "ratio", q, 2, NULL, 1));
}

/* ResNet-50 (v1.5: the stride on the 3x3 conv) at its real layer shapes, scaled in width
 * by w0 / 64: 3x224x224 -> conv 7x7/2 (w0) -> relu -> max pool 3x3/2 pad 1 -> 3, 4, 6, 3
 * bottlenecks (1x1, 3x3, 1x1 at widths w0, 2 w0, 4 w0, 8 w0, x4 out; projection shortcut 1x1
 * in each stage's first block) -> global average as sum over 7x7 + right shift 6 (CVM has no
 * average pool) -> fc 1000. w0 = 64 is ResNet-50 itself. */
static void resnet_v15(Gen *G, int64_t w0)
{
    OgShape s = shp(4, 1, 3, 224, 224);
    T x = input(G, &s, W_M2);
    x = relu(G, "stem_relu", conv(G, "stem", x, w0, 7, 2, 3, 1));
    x = max_pool(G, "stem_pool", x, 3, 2, 1);
    static const int blocks[4] = {3, 4, 6, 3};
    for (int st = 0; st < 4; st++) {
        int64_t width = w0 << st;
        for (int b = 0; b < blocks[st]; b++) {
            char p[32], nm[64];
            int stride = (st > 0 && b == 0) ? 2 : 1;
            snprintf(p, sizeof p, "layer%d_%d", st + 1, b);
            T sc = x;
            if (b == 0) {
                snprintf(nm, sizeof nm, "%s_proj", p);
                sc = conv(G, nm, x, width * 4, 1, stride, 0, 1);
            }
            snprintf(nm, sizeof nm, "%s_conv1", p);
            T y = conv(G, nm, x, width, 1, 1, 0, 1);
            snprintf(nm, sizeof nm, "%s_relu1", p);
            y = relu(G, nm, y);
            snprintf(nm, sizeof nm, "%s_conv2", p);
            y = conv(G, nm, y, width, 3, stride, 1, 1);
            snprintf(nm, sizeof nm, "%s_relu2", p);
            y = relu(G, nm, y);
            snprintf(nm, sizeof nm, "%s_conv3", p);
            y = conv(G, nm, y, width * 4, 1, 1, 0, 1);
            x = add_relu(G, p, y, sc);
        }
    }
    /* the 49 summed values are all >= 0 (after relu): they add up coherently */
    x = op(G, CVM_OP_sum, "gap_sum", &x, 1, KV("axis", "(2, 3)", "keepdims", "false"),
           x.m2 * 49 * 49);
    x = op(G, CVM_OP_cvm_right_shift, "gap_shift", &x, 1, KV("precision", "8", "shift_bit", "6"),
           x.m2 >> 12);
    output(G, dense(G, "fc", x, 1000));
}

/* ResNet-50: 25.5 M weights, 4.09 G multiply-accumulates (convolutions and fc). */
static void build_resnet50(Gen *G)
{
    resnet_v15(G, 64);
}

/* The 10x-larger synthetic benchmark model: ResNet-50 with every width x 3.28 (stem 210,
 * stages 210, 420, 840, 1680, outputs 840 .. 6720), the same 16 bottleneck blocks and 246
 * operators: 259.2 M weights (10.2x) and 43.1 G multiply-accumulates (10.5x). Wider rather
 * than deeper, so that both grow alike (both go with the square of the width). */
static void build_resnet50x10(Gen *G)
{
    resnet_v15(G, 210);
}

typedef struct Model {
    const char *name;
    void (*build)(Gen *G);
    int32_t in_lo, in_hi;   /* input values */
    bool by_default;        /* one of the examples */
} Model;

static const Model models[] = {
    {"lenet", build_lenet, 0, 127, true},
    {"resnet_block", build_resnet_block, -127, 127, true},
    {"mobilenet_block", build_mobilenet_block, -127, 127, true},
    {"yolo_head", build_yolo_head, -127, 127, true},
    {"mlp", build_mlp, -127, 127, true},
    {"batch_stats", build_batch_stats, -127, 127, true},
    {"resnet50", build_resnet50, -127, 127, false},
    {"resnet50x10", build_resnet50x10, -127, 127, false},
};
#define NMODELS (sizeof models / sizeof *models)

/* ---- writing one model ---- */

static Status path_of(char *buf, size_t size, const char *dir, const char *name, const char *ext,
                      Diag *d)
{
    int n = snprintf(buf, size, "%s/%s%s", dir, name, ext);
    if (n < 0 || (size_t)n >= size)
        return diag_add(d, ST_RUNTIME, "io.write", NULL, "path too long");
    return ST_OK;
}

/* Writes the input array (values in [lo, hi], the model input's shape). */
static Status write_input(Gen *G, const OgNode *in, const char *path, int32_t lo, int32_t hi)
{
    OgTensor t = {0};
    if (!og_tensor_alloc(&t, &in->out_shape[0]))
        return diag_add(G->d, ST_RUNTIME, "oom", NULL, "out of memory");
    for (int64_t i = 0; i < t.count; i++)
        t.data[i] = uniform(G, lo, hi);
    Status st = npy_write_i32(path, t.data, t.shape.d, t.shape.ndim, G->d);
    og_tensor_free(&t);
    return st;
}

/* Reads the input back, runs the model as read back, writes every head. */
static Status write_expected(const OpGraph *g, const char *dir, const char *name,
                             const char *in_path, Diag *d)
{
    NpyArray a = {0};
    OgTensor *out = calloc(g->noutputs, sizeof *out);
    Status st = out ? npy_read(in_path, &a, d) : diag_add(d, ST_RUNTIME, "oom", NULL, "oom");
    FeModelInput in = {"data", &a, in_path};
    if (st == ST_OK)
        st = fe_run_model(g, &in, 1, out, d);
    for (uint32_t k = 0; st == ST_OK && k < g->noutputs; k++) {
        char ext[32], path[4096];
        snprintf(ext, sizeof ext, ".output%u.npy", k);
        if ((st = path_of(path, sizeof path, dir, name, ext, d)) == ST_OK)
            st = npy_write_i32(path, out[k].data, out[k].shape.d, out[k].shape.ndim, d);
    }
    for (uint32_t k = 0; out && k < g->noutputs; k++)
        og_tensor_free(&out[k]);
    free(out);
    npy_free(&a);
    return st;
}

static Status generate(const Model *m, const char *dir, bool expected, Diag *d)
{
    Gen G = {og_create("cvm"), d, ST_OK, fnv1a(m->name)};
    if (!G.g)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    m->build(&G);
    char json[4096], params[4096], in_path[4096];
    Status st = G.st;
    if (st == ST_OK && (st = path_of(json, sizeof json, dir, m->name, ".json", d)) == ST_OK &&
        (st = path_of(params, sizeof params, dir, m->name, ".params", d)) == ST_OK &&
        (st = path_of(in_path, sizeof in_path, dir, m->name, ".input.npy", d)) == ST_OK)
        st = fe_cvm_save(G.g, json, params, d);
    OpGraph *back = NULL;
    if (st == ST_OK)
        st = fe_cvm_load(json, params, &back, d);
    char why[512];
    if (st == ST_OK && !fe_og_same(G.g, back, why, sizeof why))
        st = diag_add(d, ST_RUNTIME, "gen.roundtrip", NULL, "%s reads back differently: %s",
                      json, why);
    if (st == ST_OK)
        st = write_input(&G, og_input(back, 0), in_path, m->in_lo, m->in_hi);
    if (st == ST_OK && expected)
        st = write_expected(back, dir, m->name, in_path, d);
    og_destroy(back);
    og_destroy(G.g);
    return st;
}

static const char usage_text[] =
    "usage: gen_cvm -o DIR [--no-expected] [MODEL ...]\n"
    "       gen_cvm --list\n"
    "Writes DIR/MODEL.json, .params, .input.npy and .outputK.npy (the expected result) for\n"
    "each MODEL (default: every example; the benchmark models resnet50 and resnet50x10 only\n"
    "when named, without expected output).\n";

int main(int argc, char **argv)
{
    const char *dir = NULL;
    bool expected = true, want[NMODELS] = {false}, any = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-o") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else if (strcmp(a, "--no-expected") == 0) {
            expected = false;
        } else if (strcmp(a, "--list") == 0) {
            for (size_t k = 0; k < NMODELS; k++)
                printf("%s%s\n", models[k].name, models[k].by_default ? "" : " (benchmark)");
            return 0;
        } else if (strcmp(a, "--help") == 0) {
            fputs(usage_text, stdout);
            return 0;
        } else {
            size_t k = 0;
            while (k < NMODELS && strcmp(models[k].name, a) != 0)
                k++;
            if (k == NMODELS) {
                fprintf(stderr, "%s: unknown model or option '%s'\n%s", TOOL, a, usage_text);
                return 1;
            }
            want[k] = any = true;
        }
    }
    if (!dir) {
        fprintf(stderr, "%s: no output directory (-o DIR)\n%s", TOOL, usage_text);
        return 1;
    }
    Status st = ST_OK;
    for (size_t k = 0; k < NMODELS && st == ST_OK; k++) {
        if (any ? !want[k] : !models[k].by_default)
            continue;
        Diag d;
        diag_init(&d, models[k].name);
        st = generate(&models[k], dir, expected && models[k].by_default, &d);
        diag_print(&d, stderr, TOOL);
        diag_finish(&d);
    }
    return (int)st;
}
