/* test_allow_host.c: taskir-compile --allow-host and taskir-run on its output, as a user runs
 * them (tt_run, tests/common/tooltest.h), on YOLO-like models that end in get_valid_counts +
 * non_max_suppression with computed inputs (frontend/host_split.h, docs/lowering.md
 * section 7):
 *  - without --allow-host: exit 2 naming the node [lower.host], nothing written;
 *  - chip-only models whose outputs are not the per-sample blocks' shapes (a head (64,), a
 *    batch mixed by a transpose, rank 6): both taskir-run paths write the model's shape;
 *  - with it: the chip .pb verifies and holds no host node, the host remainder (OUT.host.json
 *    + OUT.host.params) is a CVM model with inputs output<S>, and `taskir-run OUT.pb` writes
 *    the same files, byte for byte, as `taskir-run MODEL.json` on several random inputs, for
 *    batches 1 and 2; the chip graph alone (--no-host) then the remainder on its outputs gives
 *    them too;
 *  - a node after the NMS pair that the chip could compute stays on the host (and reads a chip
 *    value that is no head: an extra OUTPUT socket);
 *  - every head chip-only (no host node, or a dead one): no host files, the .pb identical to a
 *    compile without --allow-host;
 *  - a stale OUT.host.* pair is removed by a compile that needs none (with or without
 *    --allow-host), and taskir-run then runs the chip graph alone;
 *  - usage: --allow-host without -o FILE; a batch other than the model's at taskir-run; a
 *    remainder whose inputs do not name chip sockets;
 *  - the CVM reader / writer extension the remainder uses: graph attrs input_names.
 *
 * Arguments (tests/diff/meson.build): the taskir-compile and taskir-run binaries. DIFF_KEEP=1
 * keeps the temporary directory (its name is printed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "difftest.h"

#include "frontend/cvm_save.h"
#include "frontend/host_split.h"
#include "taskir/fileio.h"
#include "taskir/npy.h"
#include "taskir/pbio.h"
#include "taskir/verify.h"
#include "tooltest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *compile_tool, *run_tool;

/* "<tmpdir>/<name>" into a static ring of 16 buffers: several in one call are fine, but
 * copy a path that must outlive 16 more calls. */
static const char *tp(const char *name)
{
    static char ring[16][512];
    static int next;
    return tt_path(ring[next++ % 16], sizeof ring[0], name);
}

static bool exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* Runs tool with the arguments (NULL-terminated); stdout to run.out, stderr kept. */
static void run(TtRun *r, const char *tool, ...)
{
    va_list ap;
    va_start(ap, tool);
    tt_run_va(r, &(TtOpts){.out_file = tp("run.out")}, tool, ap);
    va_end(ap);
    free(r->out); /* "": stdout went to the file */
    r->out = NULL;
}

static void expect(TtRun *r, int status, const char *in_err)
{
    if (r->status != status || (in_err && !strstr(r->err, in_err)))
        fail_msg("exit %d (want %d), stderr:\n%s\n(want it to contain: %s)", r->status, status,
                 r->err, in_err ? in_err : "-");
    free(r->err);
    r->err = NULL;
}

/* ---- models ---- */

enum {
    M_YOLO,         /* batch 1: conv -> rows -> get_valid_counts -> nms, with a post-NMS add */
    M_YOLO_B2,      /* the same with batch 2 */
    M_CHIP_ONLY,    /* the rows and the feature, no host node */
    M_DEAD_HOST,    /* a get_valid_counts nothing reads */
};

static int32_t add_op(DtModel *m, CvmOp op, const char *name, const OgEdge *in, uint32_t n,
                      const CvmKV *kv, size_t nkv)
{
    OgNode *node = NULL;
    if (fe_cvm_add_op(m->g, op, name, in, n, kv, nkv, &node, &m->d) != ST_OK) {
        diag_print(&m->d, stderr, "model");
        fail_msg("cannot add %s", name);
    }
    m->last = node;
    return node->id;
}

/* Writes <name>.json + <name>.params. Heads of M_YOLO*: 0 nms (host), 1 relu of the conv
 * feature (chip), 2 nms + rows (host, reads a chip value that is no head), 3 the valid counts
 * (host, output 0 of get_valid_counts). */
static void write_model(const char *name, int which)
{
    DtRng rng = {1234};
    DtModel m;
    dt_begin(&m, &rng);
    int64_t N = which == M_YOLO_B2 ? 2 : 1;
    int32_t x = dt_input(&m, "data", DT_ND(N, 3, 8, 8), 8);
    int32_t w = dt_const(&m, "conv_w", DT_ND(6, 3, 3, 3), 8, NULL);
    int32_t y = dt_op(&m, CVM_OP_conv2d, "conv", DT_INS(x, w),
                      DT_KV("channels", "6", "kernel_size", "(3, 3)", "padding", "(1, 1)",
                            "strides", "(2, 2)", "use_bias", "false"));
    int32_t feat = dt_op(&m, CVM_OP_cvm_right_shift, "conv_rs", DT_INS(y),
                         DT_KV("precision", "8", "shift_bit", "8"));
    char shape[32];
    snprintf(shape, sizeof shape, "(%d, 6, 16)", (int)N);
    int32_t r = dt_op(&m, CVM_OP_reshape, "rows_r", DT_INS(feat), DT_KV("shape", shape));
    int32_t rows = dt_op(&m, CVM_OP_transpose, "rows", DT_INS(r), DT_KV("axes", "(0, 2, 1)"));
    int32_t relu = dt_op(&m, CVM_OP_relu, "feat_relu", DT_INS(feat), NULL);
    if (which == M_CHIP_ONLY) {
        dt_output(&m, rows, 0);
        dt_output(&m, relu, 0);
    } else {
        CvmKV gkv[] = {{"score_threshold", "0"}};
        int32_t gvc = add_op(&m, CVM_OP_get_valid_counts, "gvc", (OgEdge[]){{rows, 0}}, 1,
                             gkv, 1);
        if (which == M_DEAD_HOST) {
            dt_output(&m, rows, 0);
            dt_output(&m, relu, 0);
        } else {
            CvmKV nkv[] = {{"iou_threshold", "40"}, {"force_suppress", "false"},
                           {"top_k", "12"}, {"max_output_size", "9"}};
            int32_t nms = add_op(&m, CVM_OP_non_max_suppression, "nms",
                                 (OgEdge[]){{gvc, 1}, {gvc, 0}}, 2, nkv, 4);
            int32_t post = dt_op(&m, CVM_OP_broadcast_add, "post", DT_INS(nms, rows), NULL);
            dt_output(&m, nms, 0);
            dt_output(&m, relu, 0);
            dt_output(&m, post, 0);
            dt_output(&m, gvc, 0);
        }
    }
    char json[512], params[512];
    snprintf(json, sizeof json, "%s.json", tp(name));
    snprintf(params, sizeof params, "%s.params", tp(name));
    if (fe_cvm_save(m.g, json, params, &m.d) != ST_OK) {
        diag_print(&m.d, stderr, "save");
        fail_msg("cannot write the model %s", name);
    }
    dt_end(&m);
}

/* A random int8 input of the model's shape, as <name>. */
static void write_input(const char *name, int64_t N, uint64_t seed)
{
    DtRng rng = {seed};
    int64_t shape[4] = {N, 3, 8, 8};
    int64_t n = N * 3 * 8 * 8;
    int32_t *v = malloc((size_t)n * sizeof *v);
    assert_non_null(v);
    for (int64_t i = 0; i < n; i++)
        v[i] = dt_prec_value(&rng, 8);
    Diag d;
    diag_init(&d, name);
    assert_int_equal(npy_write_i32(tp(name), v, shape, 4, &d), ST_OK);
    diag_finish(&d);
    free(v);
}

/* The output*.npy files of dir a and dir b are the same set with the same bytes; returns
 * their number. */
static int same_outputs(const char *a, const char *b)
{
    int n = 0;
    for (int k = 0; k < 64; k++) {
        char pa[600], pb[600];
        snprintf(pa, sizeof pa, "%s/output%d.npy", a, k);
        snprintf(pb, sizeof pb, "%s/output%d.npy", b, k);
        bool ea = exists(pa), eb = exists(pb);
        if (ea != eb)
            fail_msg("%s exists in one directory only", ea ? pa : pb);
        if (!ea)
            continue;
        size_t la, lb;
        char *ba = tt_slurp(pa, &la), *bb = tt_slurp(pb, &lb);
        assert_non_null(ba);
        assert_non_null(bb);
        if (la != lb || memcmp(ba, bb, la) != 0)
            fail_msg("%s and %s differ", pa, pb);
        free(ba);
        free(bb);
        n++;
    }
    return n;
}

static int setup(void **state)
{
    (void)state;
    return tt_tmpdir_make("taskir-allow-host.") ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    if (getenv("DIFF_KEEP")) { /* DIFF_KEEP=1: leave the files for a look */
        fprintf(stderr, "test_allow_host: files kept in %s\n", tt_tmpdir());
        return 0;
    }
    tt_tmpdir_remove();
    return 0;
}

/* Loads and verifies a .pb; returns it. */
static Graph *load_verified(const char *path)
{
    Graph *g = NULL;
    Diag d;
    diag_init(&d, path);
    if (graph_load_pb(path, &g, &d) != ST_OK || verify_graph(g, &d) != ST_OK) {
        diag_print(&d, stderr, "test");
        fail_msg("%s does not load and verify", path);
    }
    diag_finish(&d);
    return g;
}

/* ---- tests ---- */

static void test_needs_allow_host(void **state)
{
    (void)state;
    write_model("yolo", M_YOLO);
    TtRun r;
    run(&r, compile_tool, tp("yolo.json"), "--params", tp("yolo.params"), "-o",
        tp("never.pb"), NULL);
    expect(&r, 2, "'gvc' (get_valid_counts): ");
    run(&r, compile_tool, tp("yolo.json"), "--params", tp("yolo.params"), "-o",
        tp("never.pb"), NULL);
    expect(&r, 2, "[lower.host]");
    assert_false(exists(tp("never.pb")));
    assert_false(exists(tp("never.host.json")));
    /* usage: the remainder is written beside -o FILE */
    run(&r, compile_tool, tp("yolo.json"), "--params", tp("yolo.params"), "--allow-host",
        NULL);
    expect(&r, 1, "--allow-host needs -o FILE");
    run(&r, compile_tool, tp("yolo.json"), "--allow-host", "-o", "-", NULL);
    expect(&r, 1, "[usage.output]");
}

/* Compiles model <name> with --allow-host to <name>.pb, checks the split, and compares
 * taskir-run on the .pb with taskir-run on the model for nseeds random inputs. */
static void check_split(const char *name, int64_t N, int nseeds)
{
    char json[512], params[512], pb[512], hjson[512], hparams[512];
    snprintf(json, sizeof json, "%s.json", tp(name));
    snprintf(params, sizeof params, "%s.params", tp(name));
    snprintf(pb, sizeof pb, "%s.pb", tp(name));
    snprintf(hjson, sizeof hjson, "%s.host.json", tp(name));
    snprintf(hparams, sizeof hparams, "%s.host.params", tp(name));
    TtRun r;
    run(&r, compile_tool, json, "--params", params, "-o", pb, "--allow-host", NULL);
    expect(&r, 0, NULL);
    assert_true(exists(hjson));
    assert_true(exists(hparams));

    /* the chip graph: verifies, holds nothing of the host nodes, and has OUTPUT sockets 1
     * (head 1, the relu) and 4 (the rows, which the host reads; 4 = the number of heads) */
    Graph *g = load_verified(pb);
    bool sock[8] = {false};
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        const Block *b = g->blocks[i];
        if (b->name)
            assert_true(strncmp(b->name, "gvc", 3) != 0 && strncmp(b->name, "nms", 3) != 0 &&
                        strncmp(b->name, "post", 4) != 0);
        if (b->type == BT_OUTPUT) {
            assert_true(b->socket_id >= 0 && b->socket_id < 8);
            sock[b->socket_id] = true;
        }
    }
    assert_false(sock[0]);
    assert_true(sock[1]);
    assert_false(sock[2]);
    assert_false(sock[3]);
    assert_true(sock[4]);
    graph_destroy(g);

    /* the remainder: a CVM model with inputs output1 and output4, the model's four heads */
    OpGraph *h = NULL;
    Diag d;
    diag_init(&d, hjson);
    if (fe_host_load(pb, &h, &d) != ST_OK) {
        diag_print(&d, stderr, "test");
        fail_msg("the host remainder does not load");
    }
    diag_finish(&d);
    assert_non_null(h);
    assert_int_equal(og_num_inputs(h), 2);
    assert_string_equal(og_input(h, 0)->name, "output1");
    assert_string_equal(og_input(h, 1)->name, "output4");
    assert_int_equal(og_input(h, 1)->out_shape[0].d[0], N);
    assert_int_equal(h->noutputs, 4);
    uint32_t ops = 0;
    for (uint32_t i = 0; i < h->nnodes; i++)
        ops += h->nodes[i]->kind == OG_OP;
    assert_int_equal(ops, 3); /* gvc, nms, post */
    og_destroy(h);

    for (int s = 0; s < nseeds; s++) {
        char x[64], dm[64], dc[64], dchip[64], dh[64];
        snprintf(x, sizeof x, "%s_x%d.npy", name, s);
        snprintf(dm, sizeof dm, "%s_model%d", name, s);
        snprintf(dc, sizeof dc, "%s_pb%d", name, s);
        snprintf(dchip, sizeof dchip, "%s_chip%d", name, s);
        snprintf(dh, sizeof dh, "%s_host%d", name, s);
        write_input(x, N, 1000 + (uint64_t)s);
        char arg[600];
        snprintf(arg, sizeof arg, "data=%s", tp(x));
        run(&r, run_tool, json, "--params", params, "--input", arg, "-o", tp(dm), NULL);
        expect(&r, 0, NULL);
        run(&r, run_tool, pb, "--input", arg, "-o", tp(dc), NULL);
        expect(&r, 0, NULL);
        assert_int_equal(same_outputs(tp(dm), tp(dc)), 4);
        /* by hand: the chip graph alone, then the remainder on its outputs */
        run(&r, run_tool, pb, "--no-host", "--input", arg, "-o", tp(dchip), NULL);
        expect(&r, 0, NULL);
        char in1[700], in4[700];
        snprintf(in1, sizeof in1, "output1=%s/output1.npy", tp(dchip));
        snprintf(in4, sizeof in4, "output4=%s/output4.npy", tp(dchip));
        run(&r, run_tool, hjson, "--params", hparams, "--input", in1, "--input", in4, "-o",
            tp(dh), NULL);
        expect(&r, 0, NULL);
        assert_int_equal(same_outputs(tp(dm), tp(dh)), 4);
    }
}

static void test_split_batch1(void **state)
{
    (void)state;
    write_model("yolo", M_YOLO);
    check_split("yolo", 1, dt_quick() ? 2 : 5);
}

static void test_split_batch2(void **state)
{
    (void)state;
    write_model("yolo2", M_YOLO_B2);
    check_split("yolo2", 2, dt_quick() ? 2 : 4);
    /* one sample for a model of two: the remainder takes the model's batch */
    write_input("one.npy", 1, 7);
    char arg[600];
    snprintf(arg, sizeof arg, "data=%s", tp("one.npy"));
    char pb[512];
    snprintf(pb, sizeof pb, "%s.pb", tp("yolo2"));
    TtRun r;
    run(&r, run_tool, pb, "--input", arg, "-o", tp("one_out"), NULL);
    expect(&r, 2, "[host.batch]");
    assert_false(exists(tp("one_out/output0.npy")));
}

/* No head depends on a host node: no host files, the same .pb as without --allow-host. */
static void check_chip_only(const char *name)
{
    char json[512], params[512], a[512], b[512];
    snprintf(json, sizeof json, "%s.json", tp(name));
    snprintf(params, sizeof params, "%s.params", tp(name));
    snprintf(a, sizeof a, "%s_a.pb", tp(name));
    snprintf(b, sizeof b, "%s_b.pb", tp(name));
    TtRun r;
    run(&r, compile_tool, json, "--params", params, "-o", a, "--allow-host", NULL);
    expect(&r, 0, NULL);
    char h[600];
    snprintf(h, sizeof h, "%s_a.host.json", tp(name));
    assert_false(exists(h));
    snprintf(h, sizeof h, "%s_a.host.params", tp(name));
    assert_false(exists(h));
    graph_destroy(load_verified(a));
    run(&r, compile_tool, json, "--params", params, "-o", b, NULL);
    size_t la, lb;
    char *ba = tt_slurp(a, &la);
    if (strcmp(name, "dead") == 0) { /* without --allow-host the dead node still fails */
        expect(&r, 2, "[lower.host]");
        free(ba);
        return;
    }
    expect(&r, 0, NULL);
    char *bb = tt_slurp(b, &lb);
    assert_non_null(ba);
    assert_non_null(bb);
    assert_int_equal(la, lb);
    assert_memory_equal(ba, bb, la);
    free(ba);
    free(bb);
}

static void test_chip_only(void **state)
{
    (void)state;
    write_model("chiponly", M_CHIP_ONLY);
    check_chip_only("chiponly");
    write_model("dead", M_DEAD_HOST);
    check_chip_only("dead");
}

/* taskir-run MODEL.json and taskir-run OUT.pb write byte-identical files in the model's own
 * shapes: a head (64,) from a (1, 64, 5) input, a batch of 2 mixed by a transpose (the
 * whole tensor as the unit), a rank-6 input and output. */
static void test_model_shapes_both_paths(void **state)
{
    (void)state;
    static const struct {
        const char *name, *shape;
        uint32_t nd;
        int64_t in[6];
    } cases[] = {
        {"head64", "'shape': (64,)", 3, {1, 64, 5}},
        {"mixed2", "'shape': (3, 2, 4)", 3, {2, 3, 4}},
        {"rank6", "'shape': (1, 2, 3, 2, 2, 3)", 6, {1, 2, 3, 2, 2, 3}},
    };
    for (int k = 0; k < 3; k++) {
        DtRng rng = {900 + (uint64_t)k};
        DtModel m;
        dt_begin(&m, &rng);
        int32_t x = dt_input(&m, "data", cases[k].nd, cases[k].in, 8);
        if (k == 0) {
            x = dt_op(&m, CVM_OP_reshape, "rows", DT_INS(x), DT_KV("shape", "(64, 5)"));
            dt_op(&m, CVM_OP_sum, "total", DT_INS(x), DT_KV("axis", "(1,)"));
        } else if (k == 1) {
            dt_op(&m, CVM_OP_transpose, "mix", DT_INS(x), DT_KV("axes", "(1, 0, 2)"));
        } else {
            dt_op(&m, CVM_OP_relu, "relu", DT_INS(x), NULL);
        }
        dt_output(&m, m.last->id, 0);
        char json[600], params[600], pb[600], in[600], da[600], db[600];
        snprintf(json, sizeof json, "%s.json", tp(cases[k].name));
        snprintf(params, sizeof params, "%s.params", tp(cases[k].name));
        snprintf(pb, sizeof pb, "%s.pb", tp(cases[k].name));
        snprintf(in, sizeof in, "%s.in.npy", tp(cases[k].name));
        snprintf(da, sizeof da, "%s.model", tp(cases[k].name));
        snprintf(db, sizeof db, "%s.graph", tp(cases[k].name));
        assert_int_equal(fe_cvm_save(m.g, json, params, &m.d), ST_OK);
        assert_int_equal(npy_write_i32(in, m.in[0].data, cases[k].in, cases[k].nd, &m.d),
                         ST_OK);
        dt_end(&m);
        char arg[700];
        snprintf(arg, sizeof arg, "data=%s", in);
        TtRun r;
        run(&r, compile_tool, json, "--params", params, "-o", pb, NULL);
        expect(&r, 0, NULL);
        run(&r, run_tool, json, "--params", params, "--input", arg, "-o", da, NULL);
        expect(&r, 0, NULL);
        run(&r, run_tool, pb, "--input", arg, "-o", db, NULL);
        expect(&r, 0, NULL);
        assert_int_equal(same_outputs(da, db), 1);
        char out[700];
        snprintf(out, sizeof out, "%s/output0.npy", db);
        size_t len;
        char *b = tt_slurp(out, &len);
        assert_non_null(b);
        if (!strstr(b + 10, cases[k].shape))
            fail_msg("%s: %s has not %s", cases[k].name, out, cases[k].shape);
        free(b);
    }
}

/* A take with computed indices into a computed tensor (a data-dependent gather): without
 * --allow-host [lower.dynamic]; with it the take and what follows go to the host, the rest
 * to the chip, and both taskir-run paths write the same files. Likewise a take along an axis
 * of a constant whose other axes have extent > 1. */
static void test_dynamic_take(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        DtRng rng = {950 + (uint64_t)k};
        DtModel m;
        dt_begin(&m, &rng);
        int32_t x = dt_input(&m, "data", DT_ND(1, 6, 4), 8);
        int32_t sel = dt_input(&m, "sel", DT_ND(1, 3), 4);
        int32_t src = k == 0 ? dt_op(&m, CVM_OP_relu, "feat", DT_INS(x), NULL)
                             : dt_const(&m, "table", DT_ND(1, 6, 4), 8, NULL);
        int32_t t = dt_op(&m, CVM_OP_take, "gather", DT_INS(src, sel), DT_KV("axis", "1"));
        dt_output(&m, dt_op(&m, CVM_OP_negative, "after", DT_INS(t), NULL), 0);
        dt_output(&m, dt_op(&m, CVM_OP_relu, "chip", DT_INS(x), NULL), 0);
        char json[600], params[600], pb[600], in0[600], in1[600], da[600], db[600];
        const char *name = k == 0 ? "dyn_take" : "dyn_take_const";
        snprintf(json, sizeof json, "%s.json", tp(name));
        snprintf(params, sizeof params, "%s.params", tp(name));
        snprintf(pb, sizeof pb, "%s.pb", tp(name));
        snprintf(in0, sizeof in0, "data=%s.data.npy", tp(name));
        snprintf(in1, sizeof in1, "sel=%s.sel.npy", tp(name));
        snprintf(da, sizeof da, "%s.model", tp(name));
        snprintf(db, sizeof db, "%s.graph", tp(name));
        assert_int_equal(fe_cvm_save(m.g, json, params, &m.d), ST_OK);
        assert_int_equal(npy_write_i32(in0 + 5, m.in[0].data, DT_SHP(1, 6, 4), 3, &m.d), ST_OK);
        assert_int_equal(npy_write_i32(in1 + 4, m.in[1].data, DT_SHP(1, 3), 2, &m.d), ST_OK);
        dt_end(&m);
        TtRun r;
        run(&r, compile_tool, json, "--params", params, "-o", pb, NULL);
        expect(&r, 2, "'gather' (take)");
        run(&r, compile_tool, json, "--params", params, "-o", pb, "--allow-host", NULL);
        expect(&r, 0, NULL);
        char h[700];
        snprintf(h, sizeof h, "%s.host.json", tp(name));
        assert_true(exists(h));
        run(&r, run_tool, json, "--params", params, "--input", in0, "--input", in1, "-o", da,
            NULL);
        expect(&r, 0, NULL);
        run(&r, run_tool, pb, "--input", in0, "--input", in1, "-o", db, NULL);
        expect(&r, 0, NULL);
        assert_int_equal(same_outputs(da, db), 2);
    }
}

/* A stale OUT.host.* pair goes when a compile to OUT.pb needs none. */
static void test_stale_removed(void **state)
{
    (void)state;
    write_model("yolo", M_YOLO);
    write_model("chiponly", M_CHIP_ONLY);
    char pb[600], hj[600], hp[600];
    snprintf(pb, sizeof pb, "%s", tp("same.pb"));
    snprintf(hj, sizeof hj, "%s", tp("same.host.json"));
    snprintf(hp, sizeof hp, "%s", tp("same.host.params"));
    for (int with = 0; with < 2; with++) {
        char json[512], params[512];
        snprintf(json, sizeof json, "%s", tp("yolo.json"));
        snprintf(params, sizeof params, "%s", tp("yolo.params"));
        TtRun r;
        run(&r, compile_tool, json, "--params", params, "-o", pb, "--allow-host", NULL);
        expect(&r, 0, NULL);
        assert_true(exists(hj));
        assert_true(exists(hp));
        snprintf(json, sizeof json, "%s", tp("chiponly.json"));
        snprintf(params, sizeof params, "%s", tp("chiponly.params"));
        if (with)
            run(&r, compile_tool, json, "--params", params, "-o", pb, "--allow-host", NULL);
        else
            run(&r, compile_tool, json, "--params", params, "-o", pb, NULL);
        expect(&r, 0, NULL);
        assert_false(exists(hj));
        assert_false(exists(hp));
        /* taskir-run on the .pb now runs the chip graph alone, like the model */
        char x[64], dm[64], dc[64], arg[600];
        snprintf(x, sizeof x, "stale_x%d.npy", with);
        snprintf(dm, sizeof dm, "stale_model%d", with);
        snprintf(dc, sizeof dc, "stale_pb%d", with);
        write_input(x, 1, 55 + (uint64_t)with);
        snprintf(arg, sizeof arg, "data=%s", tp(x));
        run(&r, run_tool, json, "--params", params, "--input", arg, "-o", tp(dm), NULL);
        expect(&r, 0, NULL);
        run(&r, run_tool, pb, "--input", arg, "-o", tp(dc), NULL);
        expect(&r, 0, NULL);
        assert_int_equal(same_outputs(tp(dm), tp(dc)), 2);
    }
}

/* A remainder whose input is not named output<S> is refused; one naming a socket the chip
 * graph lacks too. */
static void test_bad_remainder(void **state)
{
    (void)state;
    write_model("yolo", M_YOLO);
    char pb[600];
    snprintf(pb, sizeof pb, "%s", tp("bad.pb"));
    TtRun r;
    run(&r, compile_tool, tp("yolo.json"), "--params", tp("yolo.params"), "-o", pb,
        "--allow-host", NULL);
    expect(&r, 0, NULL);
    size_t len;
    char *text = tt_slurp(tp("bad.host.json"), &len);
    assert_non_null(text);
    char *at = strstr(text, "\"output4\"");
    assert_non_null(at);
    write_input("bad_x.npy", 1, 3);
    char arg[600];
    snprintf(arg, sizeof arg, "data=%s", tp("bad_x.npy"));
    static const char *const repl[] = {"\"output7\"", "\"boxes_0\""};
    static const char *const want[] = {"[host.input]", "[host.input]"};
    for (int k = 0; k < 2; k++) {
        char *t2 = strdup(text);
        assert_non_null(t2);
        /* rename the input everywhere it appears (its node's name) */
        for (char *p = strstr(t2, "\"output4\""); p; p = strstr(p + 1, "\"output4\""))
            memcpy(p, repl[k], 9);
        Diag d;
        diag_init(&d, "bad");
        assert_int_equal(tir_write_file_atomic(tp("bad.host.json"), t2, len, &d), ST_OK);
        diag_finish(&d);
        run(&r, run_tool, pb, "--input", arg, "-o", tp("bad_out"), NULL);
        expect(&r, 2, want[k]);
        free(t2);
    }
    free(text);
}

/* The reader / writer extension the remainder uses: inputs marked in op_attrs. */
static void expect_load(const char *json, const char *rule)
{
    OpGraph *g = NULL;
    Diag d;
    diag_init(&d, "m.json");
    Status st = fe_cvm_load_mem(json, strlen(json), NULL, 0, NULL, &g, &d);
    if (rule) {
        assert_int_equal(st, ST_LOGIC);
        if (diag_find(&d, rule) < 0) {
            diag_print(&d, stderr, "test");
            fail_msg("no [%s]", rule);
        }
    } else {
        assert_int_equal(st, ST_OK);
    }
    og_destroy(g);
    diag_finish(&d);
}

/* text with the first occurrence of from replaced by to (malloc'd). */
static char *replace(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    assert_non_null(at);
    size_t n = strlen(text) - strlen(from) + strlen(to);
    char *r = malloc(n + 1);
    assert_non_null(r);
    snprintf(r, n + 1, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return r;
}

#define MARK "\"{\\\"taskir_input\\\":\\\"1\\\"}\""

static void test_input_names(void **state)
{
    (void)state;
    DtRng rng = {5};
    DtModel m;
    dt_begin(&m, &rng);
    int32_t a = dt_input(&m, "a", DT_ND(1, 4), 8);
    int32_t b = dt_input(&m, "b", DT_ND(1, 4), 8);
    int32_t c = dt_const(&m, "c", DT_ND(1, 4), 8, NULL);
    int32_t s1 = dt_op(&m, CVM_OP_elemwise_add, "s1", DT_INS(a, b), NULL);
    dt_op(&m, CVM_OP_elemwise_add, "s2", DT_INS(s1, c), NULL);
    dt_output(&m, m.last->id, 0);
    char *json;
    size_t len;
    assert_int_equal(fe_cvm_graph_json(m.g, &json, &len, &m.d), ST_OK);
    /* the inputs' op_attrs entries mark them (cvm-runtime does not read a null node's entry,
     * and refuses unknown graph attrs: no input_names there any more) */
    assert_non_null(strstr(json, "[\"list_str\",[" MARK "," MARK ",\"{}\","));
    assert_null(strstr(json, "input_names"));
    assert_null(strstr(json, "int8"));
    /* round trip (params through the file format) */
    CvmParam p = {"c", m.g->nodes[c]->value, 8};
    uint8_t *pbuf;
    size_t plen;
    assert_int_equal(fe_cvm_params_encode(&p, 1, &pbuf, &plen, &m.d), ST_OK);
    OpGraph *g = NULL;
    assert_int_equal(fe_cvm_load_mem(json, len, pbuf, plen, "m.params", &g, &m.d), ST_OK);
    char why[256];
    if (!fe_og_same(m.g, g, why, sizeof why))
        fail_msg("the model does not read back the same: %s", why);
    assert_int_equal(og_num_inputs(g), 2);
    og_destroy(g);
    free(pbuf);
    /* without params, "c" is a missing parameter; marked, it is an input */
    expect_load(json, "cvm.params.missing");
    char *t = replace(json, MARK "," MARK ",\"{}\"", MARK "," MARK "," MARK);
    expect_load(t, NULL);
    free(t);
    /* unmarked, "a" is a parameter again; another value of the key marks nothing */
    t = replace(json, MARK "," MARK, "\"{}\",\"{}\"");
    expect_load(t, "cvm.params.missing");
    free(t);
    t = replace(json, MARK "," MARK, "\"{\\\"taskir_input\\\":\\\"0\\\"}\"," MARK);
    expect_load(t, "cvm.params.missing");
    free(t);
    free(json);
    /* a parameter may not take an input's name (cvm-runtime refuses two variables of one
     * name) */
    m.g->nodes[c]->name = "b";
    assert_int_equal(fe_cvm_graph_json(m.g, &json, &len, &m.d), ST_LOGIC);
    assert_true(diag_find(&m.d, "cvm.json.duplicate") >= 0);
    dt_end(&m);
    /* one input named data: a cvm-runtime model, no mark */
    dt_begin(&m, &rng);
    int32_t x = dt_input(&m, "data", DT_ND(1, 4), 8);
    dt_op(&m, CVM_OP_relu, "r", DT_INS(x), NULL);
    dt_output(&m, m.last->id, 0);
    assert_int_equal(fe_cvm_graph_json(m.g, &json, &len, &m.d), ST_OK);
    assert_null(strstr(json, "taskir_input"));
    free(json);
    dt_end(&m);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_allow_host TASKIR-COMPILE TASKIR-RUN\n");
        return 1;
    }
    compile_tool = argv[1];
    run_tool = argv[2];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_needs_allow_host),
        cmocka_unit_test(test_split_batch1),
        cmocka_unit_test(test_split_batch2),
        cmocka_unit_test(test_chip_only),
        cmocka_unit_test(test_model_shapes_both_paths),
        cmocka_unit_test(test_dynamic_take),
        cmocka_unit_test(test_stale_removed),
        cmocka_unit_test(test_bad_remainder),
        cmocka_unit_test(test_input_names),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
