/* difftest.c: see difftest.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "difftest.h"
#include "passcheck.h"

#include "taskir/pbio.h"
#include "taskir/sim.h"
#include "taskir/verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int32_t dt_prec_value(DtRng *r, int32_t p)
{
    int64_t a = og_prec_alpha(p);
    /* mostly uniform, sometimes the extremes (where requantization is decided) */
    uint64_t k = dt_next(r) % 16;
    if (k == 0)
        return (int32_t)a;
    if (k == 1)
        return (int32_t)-a;
    if (k == 2)
        return 0;
    return (int32_t)dt_range(r, -a, a);
}

bool dt_quick(void)
{
    const char *q = getenv("DIFF_QUICK");
    return q && *q && strcmp(q, "0") != 0;
}

void dt_begin(DtModel *m, DtRng *rng)
{
    memset(m, 0, sizeof *m);
    m->rng = rng;
    m->g = og_create("cvm");
    assert_non_null(m->g);
    diag_init(&m->d, "model.json");
}

void dt_end(DtModel *m)
{
    for (uint32_t i = 0; i < m->nin; i++)
        og_tensor_free(&m->in[i]);
    og_destroy(m->g);
    diag_finish(&m->d);
    memset(m, 0, sizeof *m);
}

static void fail_diag(DtModel *m, const char *what)
{
    diag_print(&m->d, stderr, what);
    fail_msg("%s: unexpected error", what);
}

int32_t dt_input(DtModel *m, const char *name, uint32_t ndim, const int64_t *d, int32_t p)
{
    OgShape s = {ndim, {0}};
    for (uint32_t i = 0; i < ndim; i++)
        s.d[i] = d[i];
    OgNode *n;
    if (fe_cvm_add_input(m->g, name, &s, p, &n, &m->d) != ST_OK)
        fail_diag(m, name);
    assert_true(m->nin < 4);
    OgTensor *t = &m->in[m->nin++];
    assert_true(og_tensor_alloc(t, &s));
    for (int64_t i = 0; i < t->count; i++)
        t->data[i] = dt_prec_value(m->rng, p);
    m->last = n;
    return n->id;
}

int32_t dt_const(DtModel *m, const char *name, uint32_t ndim, const int64_t *d, int32_t p,
                 const int32_t *values)
{
    OgShape s = {ndim, {0}};
    for (uint32_t i = 0; i < ndim; i++)
        s.d[i] = d[i];
    OgTensor t;
    assert_true(og_tensor_alloc(&t, &s));
    for (int64_t i = 0; i < t.count; i++)
        t.data[i] = values ? values[i] : dt_prec_value(m->rng, p);
    OgNode *n;
    Status st = fe_cvm_add_const(m->g, name, &t, p, &n, &m->d);
    og_tensor_free(&t);
    if (st != ST_OK)
        fail_diag(m, name);
    m->last = n;
    return n->id;
}

int32_t dt_op_try(DtModel *m, CvmOp op, const char *name, const int32_t *ins, uint32_t nin,
                  const char *const *kv, Status *st)
{
    OgEdge e[16];
    assert_true(nin <= 16);
    for (uint32_t i = 0; i < nin; i++) {
        e[i].node = ins[i];
        e[i].index = 0;
    }
    CvmKV attrs[16];
    size_t na = 0;
    for (; kv && kv[2 * na]; na++) {
        assert_true(na < 16);
        attrs[na].key = kv[2 * na];
        attrs[na].value = kv[2 * na + 1];
    }
    OgNode *n = NULL;
    *st = fe_cvm_add_op(m->g, op, name, e, nin, attrs, na, &n, &m->d);
    if (*st != ST_OK)
        return -1;
    m->last = n;
    return n->id;
}

int32_t dt_op(DtModel *m, CvmOp op, const char *name, const int32_t *ins, uint32_t nin,
              const char *const *kv)
{
    Status st;
    int32_t id = dt_op_try(m, op, name, ins, nin, kv, &st);
    if (st != ST_OK)
        fail_diag(m, name);
    return id;
}

void dt_output(DtModel *m, int32_t id, uint32_t idx)
{
    assert_true(og_add_output(m->g, id, idx));
}

static void shape_text(const int64_t *d, uint32_t n, char *buf, size_t len)
{
    size_t k = (size_t)snprintf(buf, len, "(");
    for (uint32_t i = 0; i < n && k < len; i++)
        k += (size_t)snprintf(buf + k, len - k, i ? ", %lld" : "%lld", (long long)d[i]);
    if (k < len)
        snprintf(buf + k, len - k, ")");
}

void dt_set_input(DtModel *m, uint32_t k, const int32_t *v)
{
    assert_true(k < m->nin);
    memcpy(m->in[k].data, v, (size_t)m->in[k].count * sizeof *v);
}

void dt_check_expect(DtModel *m, const char *what, const int32_t *want, int64_t n)
{
    m->expect = want;
    m->nexpect = n;
    dt_check(m, what);
    m->expect = NULL;
}

/* With DIFF_SAVE=DIR: the lowered graph tg of case `what` into DIR/NAME.pb, NAME what with
 * every character outside [A-Za-z0-9_.-] a '_' (and -2, -3 ... when taken), so that the whole
 * chain can run it (tests/asm/emit_graphs.sh). */
static void save_graph(const Graph *tg, const char *what)
{
    const char *dir = getenv("DIFF_SAVE");
    if (!dir || !*dir)
        return;
    char name[96], path[4096];
    size_t n = 0;
    for (const char *c = what; *c && n + 1 < sizeof name; c++)
        name[n++] = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                            (*c >= '0' && *c <= '9') || *c == '-' || *c == '.' ? *c : '_';
    name[n] = 0;
    for (int k = 1; k < 1000; k++) {
        int len = k == 1 ? snprintf(path, sizeof path, "%s/%s.pb", dir, name)
                         : snprintf(path, sizeof path, "%s/%s-%d.pb", dir, name, k);
        assert_true(len > 0 && (size_t)len < sizeof path);
        FILE *f = fopen(path, "rb");
        if (!f)
            break;
        fclose(f);
    }
    Diag d;
    diag_init(&d, path);
    if (graph_save_pb(tg, path, &d) != ST_OK) {
        diag_print(&d, stderr, "DIFF_SAVE");
        fail_msg("%s: cannot write %s", what, path);
    }
    diag_finish(&d);
}

/* Every CLUT's table must fit a core on the chip (frontend/lower, lut): P07 reads 2^16
 * entries for an index of more than 12 bits, 256 KiB as int32, so such a table must hold
 * bytes (INT_8 or UINT_8 values: 64 KiB). */
static void assert_tables_fit(const Graph *tg, const char *what)
{
    for (uint32_t i = 0; i < tg->n_blocks; i++) {
        const Block *b = tg->blocks[i];
        if (!b || b->type != BT_CLUT || blk_attr(b, AT_LUT_DW) <= 12)
            continue;
        assert_true(b->n_in == 2 && b->in[1].n_ifaces == 1);
        const Edge *e = graph_edge(tg, b->in[1].ifaces[0].edge_id);
        const Block *t = e ? graph_block(tg, e->src) : NULL;
        assert_true(t && t->data);
        bool i8 = true, u8 = true;
        for (uint32_t k = 0; k < t->data->n_i32; k++) {
            i8 = i8 && t->data->i32[k] >= -128 && t->data->i32[k] <= 127;
            u8 = u8 && t->data->i32[k] >= 0 && t->data->i32[k] <= 255;
        }
        if (!i8 && !u8)
            fail_msg("%s: CLUT '%s' reads a table of %u entries that do not fit a byte", what,
                     b->name ? b->name : "", t->data->n_i32);
    }
}

uint32_t dt_check(DtModel *m, const char *what)
{
    OpGraph *g = m->g;
    if (g->noutputs == 0)
        dt_output(m, m->last->id, 0);
    OgTensor want[8];
    assert_true(g->noutputs <= 8);
    if (fe_interp_run(g, m->in, m->nin, want, &m->d) != ST_OK)
        fail_diag(m, what);
    Graph *tg = NULL;
    if (fe_lower(g, NULL, &tg, &m->d) != ST_OK)
        fail_diag(m, what);
    assert_tables_fit(tg, what);
    /* the verifier again, independently of fe_lower's own check */
    Diag vd;
    diag_init(&vd, what);
    if (verify_graph(tg, &vd) != ST_OK) {
        diag_print(&vd, stderr, "verify");
        fail_msg("%s: the lowered graph does not verify", what);
    }
    diag_finish(&vd);
    SimOptions so = {0};
    SimRun *run = NULL;
    if (sim_create(tg, &so, &run, &m->d) != ST_OK)
        fail_diag(m, what);
    NpyArray arr[4];
    SimInput si[4];
    char names[4][16];
    for (uint32_t i = 0; i < m->nin; i++) {
        memset(&arr[i], 0, sizeof arr[i]);
        arr[i].dtype = NPY_I32;
        arr[i].ndim = m->in[i].shape.ndim;
        for (uint32_t j = 0; j < arr[i].ndim; j++)
            arr[i].shape[j] = m->in[i].shape.d[j];
        arr[i].count = m->in[i].count;
        arr[i].i32 = m->in[i].data;
        snprintf(names[i], sizeof names[i], "%u", i);
        si[i].name = names[i];
        si[i].array = &arr[i];
    }
    SimResult res;
    memset(&res, 0, sizeof res);
    if (sim_run(run, si, m->nin, &res, &m->d) != ST_OK)
        fail_diag(m, what);
    assert_int_equal(res.n_outputs, g->noutputs);
    for (uint32_t j = 0; j < g->noutputs; j++) {
        const SimTensor *o = NULL;
        for (uint32_t k = 0; k < res.n_outputs; k++)
            if (res.outputs[k].socket_id == (int32_t)j)
                o = &res.outputs[k];
        assert_non_null(o);
        const OgTensor *w = &want[j];
        char a[128], b[128];
        shape_text(w->shape.d, w->shape.ndim, a, sizeof a);
        shape_text(o->shape, o->ndim, b, sizeof b);
        if (o->count != w->count)
            fail_msg("%s: output %u: the interpreter gives %s, the simulator %s", what, j, a, b);
        /* The simulator gives the model's shape: the OUTPUT block's model tensor. */
        if (strcmp(a, b) != 0)
            fail_msg("%s: output %u: the interpreter gives shape %s, the simulator %s", what,
                     j, a, b);
        if (j == 0 && m->expect) {
            assert_int_equal(o->count, m->nexpect);
            for (int64_t i = 0; i < m->nexpect; i++)
                if (o->data[i] != m->expect[i])
                    fail_msg("%s: element %lld is %d, the hand-checked value %d", what,
                             (long long)i, o->data[i], m->expect[i]);
        }
        for (int64_t i = 0; i < w->count; i++)
            if (o->data[i] != w->data[i])
                fail_msg("%s: output %u element %lld: the interpreter gives %d, the "
                         "simulator %d (shape %s)", what, j, (long long)i, w->data[i],
                         o->data[i], a);
    }
    uint32_t nb = tg->n_blocks;
    uint32_t *rt = m->steps;
    memset(m->steps, 0, sizeof m->steps);
    m->edges = tg->n_edges;
    for (uint32_t i = 0; i < tg->n_edges; i++)
        for (uint32_t k = 0; k < tg->edges[i]->n_re; k++)
            rt[tg->edges[i]->re[k].type]++;
    if (getenv("DIFF_VERBOSE")) {
        /* what the lowering made: blocks per type, rearrangement steps per type */
        uint32_t bt[BT_COUNT] = {0};
        for (uint32_t i = 0; i < tg->n_blocks; i++)
            bt[tg->blocks[i]->type]++;
        fprintf(stderr, "%s:", what);
        for (int t = 0; t < BT_COUNT; t++)
            if (bt[t])
                fprintf(stderr, " %s=%u", bt_info((BlockType)t)->name, bt[t]);
        fprintf(stderr, " |");
        for (int t = 0; t < RT_COUNT; t++)
            if (rt[t])
                fprintf(stderr, " %s=%u", rt_info((RearrangeType)t)->name, rt[t]);
        fprintf(stderr, " | edges=%u\n", tg->n_edges);
    }
    sim_result_free(&res);
    sim_destroy(run);
    save_graph(tg, what);
    pc_check_default(tg, what); /* the default passes keep the outputs; destroys tg */
    for (uint32_t j = 0; j < g->noutputs; j++)
        og_tensor_free(&want[j]);
    return nb;
}

void dt_expect_lower_error(DtModel *m, const char *rule, const char *name)
{
    if (m->g->noutputs == 0)
        dt_output(m, m->last->id, 0);
    Graph *tg = NULL;
    Status st = fe_lower(m->g, NULL, &tg, &m->d);
    if (st == ST_OK) {
        graph_destroy(tg);
        fail_msg("lowering succeeded; expected [%s]", rule);
    }
    assert_int_equal(st, ST_LOGIC);
    long i = diag_find(&m->d, rule);
    if (i < 0) {
        diag_print(&m->d, stderr, "test");
        fail_msg("expected rule [%s]", rule);
    }
    const DiagEntry *e = &m->d.entries[i];
    if (name && !(e->where && strstr(e->where, name))) {
        diag_print(&m->d, stderr, "test");
        fail_msg("the finding does not name '%s'", name);
    }
}

int32_t dt_conv_q(DtModel *m, const char *name, int32_t x, int64_t c, int64_t oc,
                      int64_t k, const char *pad, const char *stride, int64_t groups, int shift)
{
    char n[64], ch[16], ks[32], g[16], sb[8];
    snprintf(n, sizeof n, "%s_w", name);
    int32_t w = dt_const(m, n, DT_ND(oc, c / groups, k, k), 8, NULL);
    snprintf(n, sizeof n, "%s_b", name);
    int32_t b = dt_const(m, n, DT_ND(oc), 16, NULL);
    snprintf(ch, sizeof ch, "%lld", (long long)oc);
    snprintf(ks, sizeof ks, "(%lld, %lld)", (long long)k, (long long)k);
    snprintf(g, sizeof g, "%lld", (long long)groups);
    snprintf(sb, sizeof sb, "%d", shift);
    int32_t y = dt_op(m, CVM_OP_conv2d, name, DT_INS(x, w, b),
                      DT_KV("channels", ch, "kernel_size", ks, "padding", pad, "strides", stride,
                            "groups", g));
    snprintf(n, sizeof n, "%s_rs", name);
    y = dt_op(m, CVM_OP_cvm_right_shift, n, DT_INS(y),
              DT_KV("precision", "8", "shift_bit", sb));
    snprintf(n, sizeof n, "%s_clip", name);
    y = dt_op(m, CVM_OP_cvm_clip, n, DT_INS(y), DT_KV("precision", "8"));
    snprintf(n, sizeof n, "%s_relu", name);
    return dt_op(m, CVM_OP_relu, n, DT_INS(y), NULL);
}

int32_t dt_dense_q(DtModel *m, const char *name, int32_t x, int64_t k, int64_t u, bool relu)
{
    char n[64], us[16];
    snprintf(n, sizeof n, "%s_w", name);
    int32_t w = dt_const(m, n, DT_ND(u, k), 8, NULL);
    snprintf(n, sizeof n, "%s_b", name);
    int32_t b = dt_const(m, n, DT_ND(u), 12, NULL);
    snprintf(us, sizeof us, "%lld", (long long)u);
    int32_t y = dt_op(m, CVM_OP_dense, name, DT_INS(x, w, b), DT_KV("units", us));
    snprintf(n, sizeof n, "%s_rs", name);
    y = dt_op(m, CVM_OP_cvm_right_shift, n, DT_INS(y), DT_KV("precision", "8", "shift_bit", "7"));
    if (!relu)
        return y;
    snprintf(n, sizeof n, "%s_relu", name);
    return dt_op(m, CVM_OP_relu, n, DT_INS(y), NULL);
}
