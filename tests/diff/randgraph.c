/* randgraph.c: see randgraph.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "difftest.h"
#include "randgraph.h"
#include "taskir/uses.h"
#include "taskir/verify.h"

#include <stdio.h>
#include <string.h>

/* The model's value: node id, channels, height, width. */
typedef struct RgVal {
    int32_t id;
    int64_t c, h, w;
} RgVal;

/* Appends a word to the description. */
static void say(char *what, size_t len, const char *word)
{
    size_t at = strlen(what);
    if (at < len)
        snprintf(what + at, len - at, " %s", word);
}

/* One random layer on v; returns false when the chain ends (after a dense layer). */
static bool layer(DtModel *m, DtRng *r, RgVal *v, int k, char *what, size_t len)
{
    char name[32];
    snprintf(name, sizeof name, "l%d", k);
    switch (dt_range(r, 0, 5)) {
    case 0:
    case 1: { /* a requantized convolution */
        int64_t ks = dt_range(r, 0, 1) ? 3 : 1, p = ks == 3 ? dt_range(r, 0, 1) : 0;
        int64_t s = v->h >= 6 && v->w >= 6 ? dt_range(r, 1, 2) : 1;
        if (v->h + 2 * p < ks || v->w + 2 * p < ks)
            ks = 1, p = 0;
        int64_t oc = dt_range(r, 1, 12);
        char pad[48], st[48];
        snprintf(pad, sizeof pad, "(%lld, %lld)", (long long)p, (long long)p);
        snprintf(st, sizeof st, "(%lld, %lld)", (long long)s, (long long)s);
        v->id = dt_conv_q(m, name, v->id, v->c, oc, ks, pad, st, 1, (int)dt_range(r, 4, 9));
        v->c = oc;
        v->h = (v->h + 2 * p - ks) / s + 1;
        v->w = (v->w + 2 * p - ks) / s + 1;
        say(what, len, ks == 3 ? "conv3" : "conv1");
        return true;
    }
    case 2: /* max pooling */
        if (v->h < 2 || v->w < 2)
            return true;
        v->id = dt_op(m, CVM_OP_max_pool2d, name, DT_INS(v->id),
                      DT_KV("pool_size", "(2, 2)", "strides", "(2, 2)"));
        v->h /= 2;
        v->w /= 2;
        say(what, len, "pool");
        return true;
    case 3: { /* a residual block: conv (same shape), add, clip */
        char c[40];
        snprintf(c, sizeof c, "%s_conv", name);
        int32_t y = dt_conv_q(m, c, v->id, v->c, v->c, 3, "(1, 1)", "(1, 1)", 1, 8);
        snprintf(c, sizeof c, "%s_add", name);
        y = dt_op(m, CVM_OP_elemwise_add, c, DT_INS(y, v->id), NULL);
        v->id = dt_op(m, CVM_OP_cvm_clip, name, DT_INS(y), DT_KV("precision", "8"));
        say(what, len, "add");
        return true;
    }
    case 4: { /* an elementwise table: division by a constant scalar */
        char c[40];
        snprintf(c, sizeof c, "%s_c", name);
        int32_t d = (int32_t)dt_range(r, 2, 9) * (dt_range(r, 0, 1) ? 1 : -1);
        int32_t cid = dt_const(m, c, DT_ND(1), 8, &d);
        v->id = dt_op(m, CVM_OP_broadcast_div, name, DT_INS(v->id, cid), NULL);
        say(what, len, "lut");
        return true;
    }
    default: { /* flatten, dense: the end of the chain */
        char c[40];
        snprintf(c, sizeof c, "%s_flat", name);
        int64_t n = v->c * v->h * v->w;
        int32_t y = dt_op(m, CVM_OP_flatten, c, DT_INS(v->id), NULL);
        v->id = dt_dense_q(m, name, y, n, dt_range(r, 1, 16), dt_range(r, 0, 1));
        say(what, len, "dense");
        return false;
    }
    }
}

/* The whole output cluster 0 of a and the whole input cluster 0 of b have the same dims. */
static bool same_dims(const Block *a, const Block *b)
{
    int32_t x[TIR_CDIMS], y[TIR_CDIMS];
    return blk_cluster_dims(a, false, 0, x) && blk_cluster_dims(b, true, 0, y) &&
           memcmp(x, y, sizeof x) == 0;
}

/* The one-input compute block b, the block src it reads and the block dst it writes, when
 * both edges join whole clusters of equal dims without a rearrangement. */
static bool plain(const Graph *g, Block *b, Block **src, Block **dst)
{
    if (bt_info(b->type)->kind != BK_COMPUTE || b->n_in != 1 || b->in[0].n_ifaces != 1 ||
        b->n_out != 1 || b->out[0].n_ifaces != 1)
        return false;
    const Edge *in = graph_edge(g, b->in[0].ifaces[0].edge_id);
    const Edge *out = graph_edge(g, b->out[0].ifaces[0].edge_id);
    if (!in || !out || in->n_re || out->n_re)
        return false;
    *src = graph_block(g, in->src);
    *dst = graph_block(g, out->dst);
    return *src && *dst && same_dims(*src, b) && same_dims(b, *dst) &&
           (*dst)->n_in == 1 && (*dst)->in[0].n_ifaces == 1;
}

/* Adds a dead copy of a one-input compute block and of the storage it writes, reading what
 * the original reads. Returns false when the graph has no such block. */
static bool add_dead_branch(Graph *g, DtRng *r)
{
    uint32_t n = 0;
    Block *src, *dst;
    for (uint32_t i = 0; i < g->n_blocks; i++)
        n += plain(g, g->blocks[i], &src, &dst);
    if (n == 0)
        return false;
    uint32_t pick = (uint32_t)dt_range(r, 0, n - 1);
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        Block *b = g->blocks[i];
        if (!plain(g, b, &src, &dst) || pick-- != 0)
            continue;
        Block *c = graph_clone_block(g, b, "dead");
        Block *s = graph_clone_block(g, dst, "dead");
        assert_non_null(c);
        assert_non_null(s);
        assert_non_null(graph_connect(g, src, 0, c, 0));
        assert_non_null(graph_connect(g, c, 0, s, 0));
        return true;
    }
    return false;
}

static void assert_valid(const Graph *g, const char *what)
{
    Diag d;
    diag_init(&d, what);
    if (verify_graph(g, &d) != ST_OK) {
        diag_print(&d, stderr, "randgraph");
        fail_msg("%s does not verify", what);
    }
    diag_finish(&d);
}

Graph *rg_random_graph(uint64_t seed, char *what, size_t what_len)
{
    DtRng r = {seed * 0x9e3779b97f4a7c15u + 1};
    char buf[256];
    if (!what)
        what = buf, what_len = sizeof buf;
    snprintf(what, what_len, "seed %llu:", (unsigned long long)seed);
    DtModel m;
    dt_begin(&m, &r);
    /* one graph in ten is larger than a core holds (a conv's int32 output alone takes
     * 128 B a pixel: 32 x 32 pixels fill the 128 KiB budget), so split's fit mode cuts it */
    bool big = seed % 10 == 9;
    RgVal v = {0, dt_range(&r, 1, 8), dt_range(&r, big ? 24 : 3, big ? 40 : 12),
               dt_range(&r, big ? 24 : 3, big ? 40 : 12)};
    if (big)
        say(what, what_len, "big");
    v.id = dt_input(&m, "data", DT_ND(1, v.c, v.h, v.w), 8);
    int layers = (int)dt_range(&r, 1, 5);
    int32_t mid = -1;
    for (int k = 0; k < layers; k++) {
        if (k > 0 && mid < 0 && dt_range(&r, 0, 3) == 0)
            mid = v.id;   /* a second output, read also by the layers after it */
        if (!layer(&m, &r, &v, k, what, what_len))
            break;
    }
    dt_output(&m, v.id, 0);
    if (mid >= 0 && mid != v.id) {
        dt_output(&m, mid, 0);
        say(what, what_len, "+output");
    }
    Graph *g = NULL;
    if (fe_lower(m.g, NULL, &g, &m.d) != ST_OK) {
        diag_print(&m.d, stderr, "randgraph");
        fail_msg("%s: the model does not lower", what);
    }
    dt_end(&m);
    int dead = (int)dt_range(&r, 0, 2), made = 0;
    for (int k = 0; k < dead; k++)
        made += add_dead_branch(g, &r);
    if (made) {
        char w[32];
        snprintf(w, sizeof w, "+%d dead", made);
        say(what, what_len, w);
    }
    assert_false(graph_oom(g));
    assert_valid(g, what);
    return g;
}

/* A block with dims y x f (r, kernel absent) and precision p. */
static Block *blk(Graph *g, BlockType t, int32_t n, PrecisionId p, const char *name)
{
    Block *b = graph_add_block(g, t, GRAPH_AUTO_ID, name);
    assert_non_null(b);
    b->shape.d[0] = 1, b->shape.d[1] = 1, b->shape.d[2] = n;
    b->has_prec = true;
    b->prec = p;
    return b;
}

/* A CLIF with a threshold, a reset and a leak. */
static Block *lif(Graph *g, int32_t n, const char *name)
{
    Block *c = blk(g, BT_CLIF, n, PR_INT_32, name);
    assert_true(blk_set_attr(g, c, AT_VTH0, 10));
    assert_true(blk_set_attr(g, c, AT_VR, 0));
    assert_true(blk_set_attr(g, c, AT_VLEAKY_BETA, -1));
    return c;
}

Graph *rg_lif_graph(int32_t n)
{
    Graph *g = graph_create();
    assert_non_null(g);
    Block *in = blk(g, BT_INPUT, n, PR_INT_8, "spikes");
    in->has_socket_id = true;
    Block *si = blk(g, BT_SI, n, PR_INT_8, "lif/in");
    Block *c = lif(g, n, "lif");
    Block *so = blk(g, BT_SI, n, PR_INT_32, "lif/out");
    Block *out = blk(g, BT_OUTPUT, n, PR_INT_32, "out");
    out->has_socket_id = true;
    Block *dc = lif(g, n, "lif/dead");
    Block *ds = blk(g, BT_SI, n, PR_INT_32, "lif/dead/out");
    assert_non_null(graph_connect(g, in, 0, si, 0));
    assert_non_null(graph_connect(g, si, 0, c, 0));
    assert_non_null(graph_connect(g, c, 0, so, 0));
    assert_non_null(graph_connect(g, so, 0, out, 0));
    assert_non_null(graph_connect(g, si, 0, dc, 0));
    assert_non_null(graph_connect(g, dc, 0, ds, 0));
    assert_false(graph_oom(g));
    assert_valid(g, "lif graph");
    return g;
}
