/* test_pbio.c: .pb loading and saving against protoc and against malformed bytes.
 *
 * The example files (the examples/NAME.txtpb files, encoded by protoc at build time into
 * $TASKIR_BUILDDIR/examples/NAME.pb): lenet is canonical, so load -> graph_pack gives back the
 * protoc bytes exactly; tianjic_style is written the way the existing tools write, which is
 * also how taskir writes, so it too comes back byte for byte. tests/unit/loose_style.pb is
 * written loosely (-1 dims, zero positions, no bias_type): load -> pack -> load -> pack is a
 * fixed point and both loads give the same IR but for the bias_type the save writes.
 * test_writing_conventions checks the fields the canonical form writes explicitly.
 *
 * Fields protobuf's parsers skip (groups, a known field with another wire type) are skipped.
 * Robustness: every truncation of lenet.pb, bad varints, bad wire types, lengths past the
 * end, deep nesting, random byte flips and a file over the size cap all end in ST_OK or
 * ST_LOGIC with a wire.*, load.* or limit.* rule — never a crash — and wire faults name the
 * byte offset ("byte N") where they are. Whatever loads must save and load again to the same
 * bytes, and the verifier and the printers must take it without crashing. Both examples pass
 * the verifier with no finding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "taskgraph.pb-c.h"
#include "taskir/canon.h"
#include "taskir/fileio.h"
#include "taskir/graph.h"
#include "taskir/pbio.h"
#include "taskir/print.h"
#include "taskir/uses.h"
#include "taskir/verify.h"

/* ---- helpers ---- */

/* NAME is "examples/lenet" or "tests/unit/loose_style": a .pb in the build directory. */
static char *build_path(const char *name)
{
    const char *dir = getenv("TASKIR_BUILDDIR");
    assert_non_null(dir); /* set by tests/meson.build */
    size_t n = strlen(dir) + strlen(name) + 32;
    char *p = malloc(n);
    assert_non_null(p);
    snprintf(p, n, "%s/%s.pb", dir, name);
    return p;
}

static char *example_path(const char *name)
{
    char sub[128];
    snprintf(sub, sizeof sub, "examples/%s", name);
    return build_path(sub);
}

/* Reads and frees path. */
static uint8_t *read_built(char *path, size_t *len)
{
    Diag d;
    diag_init(&d, path);
    uint8_t *buf;
    if (tir_read_file(path, TIR_MAX_FILE_BYTES, &buf, len, &d) != ST_OK) {
        diag_print(&d, stderr, "test_pbio");
        fail_msg("cannot read %s (build the examples first)", path);
    }
    diag_finish(&d);
    free(path);
    return buf;
}

static uint8_t *read_example(const char *name, size_t *len)
{
    return read_built(example_path(name), len);
}

/* Loads example NAME (its bytes in *pb, *len), which must load cleanly. */
static Graph *load_example_ok(const char *name, uint8_t **pb, size_t *len, Diag *d)
{
    *pb = read_example(name, len);
    diag_init(d, name);
    Graph *g;
    assert_int_equal(graph_load_pb_mem(*pb, *len, &g, d), ST_OK);
    assert_int_equal(d->n, 0);
    return g;
}

/* graph_pack of g gives exactly the len bytes pb. */
static void assert_packs_to(const Graph *g, const uint8_t *pb, size_t len, Diag *d)
{
    uint8_t *out;
    size_t n;
    assert_int_equal(graph_pack(g, &out, &n, d), ST_OK);
    assert_int_equal(n, len);
    assert_memory_equal(out, pb, len);
    free(out);
}

/* Step 0 of edge e is a RESHAPE whose permutation is [2, 1, 0]. */
static void assert_reshape_210(const Edge *e)
{
    assert_non_null(e);
    assert_int_equal(e->n_re, 1);
    assert_int_equal(e->re[0].type, RT_RESHAPE);
    assert_int_equal(e->re[0].n_mats, 1);
    const int32_t perm[3] = {2, 1, 0};
    assert_int_equal(e->re[0].mats[0].n_i32, 3);
    assert_memory_equal(e->re[0].mats[0].i32, perm, sizeof perm);
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Packs g, loads the bytes again and packs that: the two packs must be equal. */
static void assert_pack_fixed_point(const Graph *g)
{
    Diag d;
    diag_init(&d, NULL);
    uint8_t *b1, *b2;
    size_t n1, n2;
    assert_int_equal(graph_pack(g, &b1, &n1, &d), ST_OK);
    Graph *h;
    if (graph_load_pb_mem(b1, n1, &h, &d) != ST_OK) {
        diag_print(&d, stderr, "test_pbio");
        fail_msg("a saved graph does not load again");
    }
    assert_int_equal(graph_pack(h, &b2, &n2, &d), ST_OK);
    assert_int_equal(n1, n2);
    assert_memory_equal(b1, b2, n1);
    free(b1);
    free(b2);
    graph_destroy(h);
    diag_finish(&d);
}

/* Whatever loads, however odd, the verifier and the printers take without crashing. */
static void assert_tools_cope(const Graph *g)
{
    Diag d;
    diag_init(&d, NULL);
    Status st = verify_graph(g, &d);
    if (st != ST_OK && st != ST_LOGIC) {
        diag_print(&d, stderr, "test_pbio");
        fail_msg("verify_graph returned %d", (int)st);
    }
    FILE *null = fopen("/dev/null", "w");
    assert_non_null(null);
    const PrintFormat fmts[] = {PF_TEXT, PF_JSON, PF_DOT};
    for (int i = 0; i < 3; i++) {
        st = print_graph(g, fmts[i], null, &d);
        assert_true(st == ST_OK || st == ST_LOGIC);
    }
    st = print_summary(g, PF_TEXT, null, &d);
    assert_true(st == ST_OK || st == ST_LOGIC);
    fclose(null);
    diag_finish(&d);
}

/* Loads bytes that may be malformed. Either they load (and then save and reload to the same
 * bytes, and the verifier and printers cope) or the load fails with ST_LOGIC and a wire.*,
 * load.* or limit.* rule; a wire fault must say "byte N" with N within the data. Returns the
 * status; rule gets the first rule and what its "where: what" text. */
static Status load_clean(const uint8_t *buf, size_t len, char rule[40], char *what, size_t wl)
{
    Diag d;
    diag_init(&d, "fuzz.pb");
    static Graph not_set; /* the loader must set *out, to NULL on failure */
    Graph *g = &not_set;
    Status st = graph_load_pb_mem(buf, len, &g, &d);
    if (rule)
        rule[0] = '\0';
    if (st == ST_OK) {
        assert_non_null(g);
        assert_int_equal(d.n, 0);
        assert_pack_fixed_point(g);
        assert_tools_cope(g);
        graph_destroy(g);
        diag_finish(&d);
        return st;
    }
    assert_null(g);
    if (st != ST_LOGIC) {
        diag_print(&d, stderr, "test_pbio");
        fail_msg("status %d, expected ST_LOGIC, for %zu bytes", (int)st, len);
    }
    assert_true(d.n >= 1);
    const DiagEntry *e = &d.entries[0];
    if (!starts_with(e->rule, "wire.") && !starts_with(e->rule, "load.") &&
        !starts_with(e->rule, "limit.")) {
        diag_print(&d, stderr, "test_pbio");
        fail_msg("rule [%s] is not a wire.*, load.* or limit.* rule", e->rule);
    }
    if (starts_with(e->rule, "wire.")) {
        /* a wire fault names its byte offset, which lies within the data */
        unsigned long long off;
        char tail;
        if (!e->where || sscanf(e->where, "byte %llu%c", &off, &tail) != 1) {
            diag_print(&d, stderr, "test_pbio");
            fail_msg("wire fault [%s] does not name a byte offset: where='%s'", e->rule,
                     e->where ? e->where : "(null)");
        }
        assert_true(off <= len);
    }
    if (rule)
        snprintf(rule, 40, "%s", e->rule);
    if (what)
        snprintf(what, wl, "%s: %s", e->where ? e->where : "", e->what ? e->what : "");
    diag_finish(&d);
    return st;
}

/* Expects the bytes to fail with this rule at "byte <off>" (off < 0: any place). */
static void expect_fault(const uint8_t *buf, size_t len, const char *rule, long off,
                         const char *what_part)
{
    char got[40], what[512];
    assert_int_equal(load_clean(buf, len, got, what, sizeof what), ST_LOGIC);
    if (strcmp(got, rule) != 0)
        fail_msg("expected [%s], got [%s] (%s)", rule, got, what);
    if (off >= 0) {
        char want[48];
        snprintf(want, sizeof want, "byte %ld:", off);
        if (!starts_with(what, want))
            fail_msg("expected the fault at %s got '%s'", want, what);
    }
    if (what_part && !strstr(what, what_part))
        fail_msg("expected '%s' in '%s'", what_part, what);
}

/* ---- IR comparison (tianjic_style: the second load must give the same IR) ---- */

static void assert_shape_equal(const Shape *a, const Shape *b)
{
    assert_memory_equal(a->d, b->d, sizeof a->d);
    assert_int_equal(a->n_branch, b->n_branch);
    assert_int_equal(a->n_extra, b->n_extra);
    if (a->n_extra)
        assert_memory_equal(a->extra, b->extra, a->n_extra * sizeof *a->extra);
}

static void assert_tensor_equal(const Tensor *a, const Tensor *b)
{
    assert_int_equal(a->n_dims, b->n_dims);
    if (a->n_dims)
        assert_memory_equal(a->dims, b->dims, a->n_dims * sizeof *a->dims);
    assert_int_equal(a->has_prec, b->has_prec);
    if (a->has_prec)
        assert_int_equal(a->prec, b->prec);
    assert_int_equal(a->n_i32, b->n_i32);
    assert_int_equal(a->n_u32, b->n_u32);
    assert_int_equal(a->n_f32, b->n_f32);
    if (a->n_i32)
        assert_memory_equal(a->i32, b->i32, a->n_i32 * sizeof *a->i32);
    if (a->n_u32)
        assert_memory_equal(a->u32, b->u32, a->n_u32 * sizeof *a->u32);
    if (a->n_f32)
        assert_memory_equal(a->f32, b->f32, a->n_f32 * sizeof *a->f32);
    assert_int_equal(a->name == NULL, b->name == NULL);
    if (a->name)
        assert_string_equal(a->name, b->name);
}

static void assert_clusters_equal(const Cluster *a, const Cluster *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(a[i].has_shape, b[i].has_shape);
        if (a[i].has_shape)
            assert_shape_equal(&a[i].shape, &b[i].shape);
        assert_int_equal(a[i].n_ifaces, b[i].n_ifaces);
        for (uint32_t k = 0; k < a[i].n_ifaces; k++) {
            const Iface *x = &a[i].ifaces[k], *y = &b[i].ifaces[k];
            /* an explicit all-zero position means the same as none; the saver drops it */
            Shape xs, ys;
            iface_wire_shape(x, false, &xs);
            iface_wire_shape(y, false, &ys);
            assert_shape_equal(&xs, &ys);
            assert_int_equal(x->has_size, y->has_size);
            iface_wire_shape(x, true, &xs);
            iface_wire_shape(y, true, &ys);
            if (x->has_size)
                assert_shape_equal(&xs, &ys);
            assert_int_equal(x->edge_id, y->edge_id);
        }
    }
}

static void assert_graph_equal(const Graph *a, const Graph *b)
{
    assert_int_equal(a->n_blocks, b->n_blocks);
    for (uint32_t i = 0; i < a->n_blocks; i++) {
        const Block *x = a->blocks[i], *y = b->blocks[i];
        assert_int_equal(x->id, y->id);
        assert_int_equal(x->type, y->type);
        assert_int_equal(x->has_prec, y->has_prec);
        assert_int_equal(blk_prec(x), blk_prec(y));
        assert_shape_equal(&x->shape, &y->shape);
        assert_int_equal(x->n_in, y->n_in);
        assert_int_equal(x->n_out, y->n_out);
        assert_clusters_equal(x->in, y->in, x->n_in);
        assert_clusters_equal(x->out, y->out, x->n_out);
        assert_int_equal(x->data == NULL, y->data == NULL);
        if (x->data)
            assert_tensor_equal(x->data, y->data);
        assert_int_equal(x->n_attrs, y->n_attrs);
        for (uint32_t k = 0; k < x->n_attrs; k++) {
            assert_int_equal(x->attrs[k].id, y->attrs[k].id);
            assert_int_equal(x->attrs[k].has_value, y->attrs[k].has_value);
            assert_int_equal(x->attrs[k].value, y->attrs[k].value);
        }
        assert_int_equal(x->bias_type, y->bias_type);
        assert_int_equal(x->has_socket_id, y->has_socket_id);
        assert_int_equal(x->socket_id, y->socket_id);
        assert_int_equal(x->name == NULL, y->name == NULL);
        if (x->name)
            assert_string_equal(x->name, y->name);
        for (uint32_t k = 0; k < x->n_in; k++) {
            int32_t da[TIR_CDIMS], db[TIR_CDIMS];
            assert_int_equal(blk_cluster_dims(x, true, k, da), blk_cluster_dims(y, true, k, db));
            assert_memory_equal(da, db, sizeof da);
        }
    }
    assert_int_equal(a->n_edges, b->n_edges);
    for (uint32_t i = 0; i < a->n_edges; i++) {
        const Edge *x = a->edges[i], *y = b->edges[i];
        assert_int_equal(x->id, y->id);
        assert_int_equal(x->src, y->src);
        assert_int_equal(x->dst, y->dst);
        assert_int_equal(x->n_re, y->n_re);
        for (uint32_t k = 0; k < x->n_re; k++) {
            assert_int_equal(x->re[k].type, y->re[k].type);
            assert_int_equal(x->re[k].n_mats, y->re[k].n_mats);
            for (uint32_t m = 0; m < x->re[k].n_mats; m++)
                assert_tensor_equal(&x->re[k].mats[m], &y->re[k].mats[m]);
        }
    }
}

/* ---- the example files ---- */

static void test_lenet_canonical(void **state)
{
    (void)state;
    size_t len;
    uint8_t *pb;
    Diag d;
    Graph *g = load_example_ok("lenet", &pb, &len, &d);

    /* what the text says */
    assert_int_equal(g->n_blocks, 25);
    assert_int_equal(g->n_edges, 24);
    Block *conv1 = graph_block(g, 5);
    assert_non_null(conv1);
    assert_int_equal(conv1->type, BT_CC);
    assert_string_equal(conv1->name, "conv1");
    assert_int_equal(conv1->n_in, 3);
    assert_int_equal(conv1->bias_type, BIAS_VECTOR);
    assert_string_equal(blk_in_spec(conv1, 2)->role, "bias");
    for (uint32_t i = 0; i < g->n_blocks; i++)
        assert_non_null(g->blocks[i]->name); /* every block has its provenance */
    assert_reshape_210(graph_edge(g, 13));

    /* canonical: our saver writes the very bytes protoc encoded */
    assert_packs_to(g, pb, len, &d);
    size_t n;

    /* and so does graph_save_pb through the atomic writer */
    char dir[] = "/tmp/test_pbio.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/lenet.pb", dir);
    assert_int_equal(graph_save_pb(g, path, &d), ST_OK);
    uint8_t *back;
    assert_int_equal(tir_read_file(path, TIR_MAX_FILE_BYTES, &back, &n, &d), ST_OK);
    assert_int_equal(n, len);
    assert_memory_equal(back, pb, len);
    free(back);
    /* with the caller's use index (taskir-opt's, built once for the verifier and the saver):
     * the same verdict and the same bytes (edge 13's RESHAPE reads it) */
    GraphUses u;
    assert_true(graph_uses(g, &u));
    VerifyOptions vo = {.uses = &u};
    assert_int_equal(verify_graph_opts(g, &vo, &d), ST_OK);
    assert_int_equal(graph_save_pb_uses(g, path, &u, &d), ST_OK);
    assert_non_null(u.blocks); /* still the caller's */
    graph_uses_finish(&u);
    assert_int_equal(tir_read_file(path, TIR_MAX_FILE_BYTES, &back, &n, &d), ST_OK);
    assert_int_equal(n, len);
    assert_memory_equal(back, pb, len);
    free(back);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);

    graph_destroy(g);
    diag_finish(&d);
    free(pb);
}

/* loose_style (tests/unit/loose_style.txtpb) is written loosely: it loads, and saving it
 * reaches a fixed point after one round; the first save writes bias_type VECTOR (a writing
 * convention) and changes nothing else in the IR. */
static void test_loose_style_fixed_point(void **state)
{
    (void)state;
    size_t len;
    uint8_t *pb = read_built(build_path("tests/unit/loose_style"), &len);
    Diag d;
    diag_init(&d, "loose_style.pb");
    Graph *g1, *g2;
    assert_int_equal(graph_load_pb_mem(pb, len, &g1, &d), ST_OK);

    /* what the loose conventions read as */
    Block *add = graph_block(g1, 3);
    assert_non_null(add);
    assert_int_equal(add->type, BT_CADD);
    assert_int_equal(add->shape.d[D_R], 0);   /* -1 reads as absent */
    assert_int_equal(add->shape.d[D_Y], 4);
    assert_int_equal(add->bias_type, BIAS_ABSENT);
    assert_true(blk_has_bias_cluster(add));  /* n_branch 2 + one cluster to spare */
    assert_int_equal(blk_n_variadic(add), 2);
    assert_string_equal(blk_in_spec(add, 2)->role, "bias");
    assert_false(add->in[0].has_shape);
    const Block *si = graph_block(g1, 1);
    assert_int_equal(si->out[0].n_ifaces, 2);
    assert_true(si->out[0].ifaces[0].has_pos); /* explicit zeros */
    assert_int_equal(si->out[0].ifaces[1].pos.d[D_F], 2);

    uint8_t *b1, *b2;
    size_t n1, n2;
    assert_int_equal(graph_pack(g1, &b1, &n1, &d), ST_OK);
    assert_true(n1 < len); /* the -1 and the zero positions are not written */
    assert_int_equal(graph_load_pb_mem(b1, n1, &g2, &d), ST_OK);
    assert_int_equal(graph_pack(g2, &b2, &n2, &d), ST_OK);
    assert_int_equal(n1, n2);
    assert_memory_equal(b1, b2, n1);
    assert_int_equal(graph_block(g2, 3)->bias_type, BIAS_VECTOR);
    add->bias_type = BIAS_VECTOR;
    Shape w;   /* CADD's window dims and strides (its P02), written explicitly */
    canon_shape(add, &w);
    AttrId defaults[CANON_MAX_ATTRS];
    uint32_t n_def = canon_default_attrs(add, defaults);
    add->shape = w;
    for (uint32_t k = 0; k < n_def; k++)
        assert_true(blk_set_attr(g1, add, defaults[k], 1));
    assert_graph_equal(g1, g2);
    assert_int_equal(d.n, 0);
    free(b1);
    free(b2);
    graph_destroy(g1);
    graph_destroy(g2);
    diag_finish(&d);
    free(pb);
}

/* tianjic_style is written the way the existing tools write (BiMap's LeNet): taskir reads their
 * conventions, and since it writes the same fields, saving it gives back the same bytes. */
static void test_tianjic_style_canonical(void **state)
{
    (void)state;
    size_t len;
    uint8_t *pb;
    Diag d;
    Graph *g = load_example_ok("tianjic_style", &pb, &len, &d);
    const Block *conv = graph_block(g, 3);
    assert_int_equal(conv->type, BT_CC2D);
    assert_int_equal(conv->n_attrs, 10);
    for (uint32_t i = 0; i < conv->n_attrs; i++) {
        assert_true(conv->attrs[i].has_prec);
        assert_int_equal(conv->attrs[i].prec, PR_INT_32);
    }
    assert_int_equal(blk_attr(conv, AT_PAD_LEFT), 0);
    assert_int_equal(conv->bias_type, BIAS_VECTOR);
    const Block *rq = graph_block(g, 13);       /* the 1-D requantization */
    assert_int_equal(rq->type, BT_CCMPB);
    assert_int_equal(rq->shape.d[D_Y], 0);
    assert_int_equal(rq->shape.d[D_IY], 0);
    int32_t eff[TIR_NDIMS];
    blk_eff_shape(rq, eff);
    assert_int_equal(eff[D_IY], 1);
    assert_int_equal(eff[D_KX], 1);
    assert_reshape_210(graph_edge(g, 9));
    assert_int_equal(g->n_groups, 4);
    assert_int_equal(graph_block(g, 16)->type, BT_OUTPUT);
    assert_packs_to(g, pb, len, &d);
    assert_int_equal(d.n, 0);
    graph_destroy(g);
    diag_finish(&d);
    free(pb);
}

/* The writing conventions (docs/formats.md): fields the existing tools read as 0 when absent
 * are written. A graph that leaves them to taskir's defaults, saved and loaded again, has them
 * explicitly, and a second save gives the same bytes. */
static void test_writing_conventions(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    Block *in = graph_add_block(g, BT_SI, 1, NULL);
    Block *pool = graph_add_block(g, BT_CCMPB, 2, NULL);
    Block *fcin = graph_add_block(g, BT_SIFC, 4, NULL);
    Block *w = graph_add_block(g, BT_SWFC, 5, NULL);
    Block *bias = graph_add_block(g, BT_SB, 6, NULL);
    Block *fc = graph_add_block(g, BT_CVM, 7, NULL);
    Block *mid = graph_add_block(g, BT_SI, 3, NULL);
    Block *flat = graph_add_block(g, BT_CCMPB, 8, NULL);   /* 1-D: no y, x */
    Block *out = graph_add_block(g, BT_SI, 9, NULL);
    assert_non_null(out);
    const int32_t yxf[3] = {2, 2, 3};
    for (int i = 0; i < 3; i++)
        in->shape.d[i] = pool->shape.d[i] = yxf[i];
    fcin->shape.d[D_R] = 12;
    w->shape.d[D_F] = fc->shape.d[D_F] = bias->shape.d[D_F] = 2;
    mid->shape.d[D_F] = flat->shape.d[D_F] = out->shape.d[D_F] = 2;
    w->shape.d[D_R] = fc->shape.d[D_R] = 12;
    int64_t v[24] = {1, 2, 3};
    assert_true(blk_set_data(g, in, PR_INT_8, (const int32_t[]){2, 2, 3}, 3, v, 12));
    assert_true(blk_set_data(g, w, PR_INT_8, (const int32_t[]){2, 12}, 2, v, 24));
    assert_true(blk_set_data(g, bias, PR_INT_32, (const int32_t[]){2}, 1, v, 2));
    assert_non_null(graph_connect(g, in, 0, pool, 0));
    Edge *e = graph_connect(g, pool, 0, fcin, 0);
    assert_non_null(e);
    assert_non_null(edge_add_rearrange(g, e, RT_RESHAPE, 0));   /* C order, no p */
    assert_non_null(graph_connect(g, fcin, 0, fc, 0));
    assert_non_null(graph_connect(g, w, 0, fc, 1));
    assert_non_null(graph_connect(g, bias, 0, fc, 2));           /* no bias_type */
    assert_non_null(graph_connect(g, fc, 0, mid, 0));
    assert_non_null(graph_connect(g, mid, 0, flat, 0));
    assert_non_null(graph_connect(g, flat, 0, out, 0));
    Diag d;
    diag_init(&d, "conventions");
    Status vst = verify_graph(g, &d);
    if (vst != ST_OK)
        diag_print(&d, stderr, "conventions");
    assert_int_equal(vst, ST_OK);
    uint8_t *b1, *b2;
    size_t n1, n2;
    Graph *h;
    assert_int_equal(graph_pack(g, &b1, &n1, &d), ST_OK);
    assert_int_equal(graph_load_pb_mem(b1, n1, &h, &d), ST_OK);
    const Block *hp = graph_block(h, 2);
    assert_int_equal(hp->shape.d[D_KY], 1);       /* window dims */
    assert_int_equal(hp->shape.d[D_KX], 1);
    assert_int_equal(hp->shape.d[D_IY], 2);
    assert_int_equal(hp->shape.d[D_IX], 2);
    assert_non_null(blk_find_attr(hp, AT_STRIDE_X));
    assert_int_equal(blk_find_attr(hp, AT_STRIDE_Y)->value, 1);
    assert_null(blk_find_attr(hp, AT_DILATION_X));   /* CCMPB takes none */
    const Block *hf = graph_block(h, 8);             /* the 1-D form stays 1-D */
    assert_int_equal(hf->shape.d[D_Y], 0);
    assert_int_equal(hf->shape.d[D_KY], 0);
    assert_int_equal(graph_block(h, 7)->bias_type, BIAS_VECTOR);
    assert_reshape_210(graph_edge(h, e->id));
    assert_int_equal(verify_graph(h, &d), ST_OK);
    assert_int_equal(graph_pack(h, &b2, &n2, &d), ST_OK);
    assert_int_equal(n1, n2);
    assert_memory_equal(b1, b2, n1);
    free(b1);
    free(b2);
    graph_destroy(h);
    graph_destroy(g);
    diag_finish(&d);
}

/* Both examples obey every verifier rule, and every printer takes them. */
static void test_examples_verify(void **state)
{
    (void)state;
    const char *names[] = {"lenet", "tianjic_style"};
    for (int i = 0; i < 2; i++) {
        size_t len;
        uint8_t *pb = read_example(names[i], &len);
        Diag d;
        diag_init(&d, names[i]);
        Graph *g;
        assert_int_equal(graph_load_pb_mem(pb, len, &g, &d), ST_OK);
        Status st = verify_graph(g, &d);
        if (st != ST_OK || d.n) {
            diag_print(&d, stderr, "test_pbio");
            fail_msg("%s.pb: the verifier found %zu problems", names[i], d.n);
        }
        /* and it dumps */
        FILE *null = fopen("/dev/null", "w");
        assert_non_null(null);
        assert_int_equal(print_graph(g, PF_TEXT, null, &d), ST_OK);
        assert_int_equal(print_graph(g, PF_JSON, null, &d), ST_OK);
        assert_int_equal(print_graph(g, PF_DOT, null, &d), ST_OK);
        assert_int_equal(print_summary(g, PF_TEXT, null, &d), ST_OK);
        fclose(null);
        graph_destroy(g);
        diag_finish(&d);
        free(pb);
    }
}

/* The model tensor (extension field 101) of INPUT / OUTPUT blocks survives a save and a load:
 * dims (a scalar's none included), the element type and an INPUT's range of admitted values
 * (lo, hi) when set; without it a block has
 * none; more than 16 dims are [limit.dims]. */
static void test_model_tensor(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    Block *in = graph_add_block(g, BT_INPUT, 1, "data");
    Block *out = graph_add_block(g, BT_OUTPUT, 2, "out");
    Block *scalar = graph_add_block(g, BT_OUTPUT, 3, "scalar");
    Block *plain = graph_add_block(g, BT_OUTPUT, 4, "plain");
    assert_true(in && out && scalar && plain);
    const int64_t dims[] = {1, 2, 3, 4, 5, 6};
    assert_true(blk_set_model(g, in, dims, 6, PR_INT_32, false));
    assert_true(blk_set_model(g, out, dims + 2, 2, PR_UINT_8, true));
    assert_true(blk_set_model(g, scalar, NULL, 0, PR_INT_16, true));
    in->has_model_range = true; /* a CVM input of precision 5 */
    in->model_lo = -15;
    in->model_hi = 15;
    uint8_t *buf;
    size_t len;
    Diag d;
    diag_init(&d, "model.pb");
    assert_int_equal(graph_pack(g, &buf, &len, &d), ST_OK);
    Graph *h;
    assert_int_equal(graph_load_pb_mem(buf, len, &h, &d), ST_OK);
    const Block *b = graph_block(h, 1);
    assert_true(b->has_model && !b->has_model_prec);
    assert_true(b->has_model_range && b->model_lo == -15 && b->model_hi == 15);
    assert_false(graph_block(h, 2)->has_model_range);
    assert_int_equal(b->model_ndim, 6);
    for (int i = 0; i < 6; i++)
        assert_int_equal(b->model_dims[i], dims[i]);
    b = graph_block(h, 2);
    assert_true(b->has_model && b->has_model_prec);
    assert_int_equal(b->model_prec, PR_UINT_8);
    assert_int_equal(b->model_ndim, 2);
    assert_int_equal(b->model_dims[1], 4);
    b = graph_block(h, 3);
    assert_true(b->has_model && b->model_ndim == 0 && b->model_prec == PR_INT_16);
    assert_int_equal(blk_model_volume(b), 1);
    assert_false(graph_block(h, 4)->has_model);
    assert_int_equal(blk_model_volume(graph_block(h, 4)), -1);
    /* taskir-dump shows them */
    for (int f = 0; f < 2; f++) {
        FILE *tf = tmpfile();
        assert_non_null(tf);
        assert_int_equal(print_graph(h, f ? PF_JSON : PF_TEXT, tf, &d), ST_OK);
        char text[8192];
        rewind(tf);
        size_t got = fread(text, 1, sizeof text - 1, tf);
        text[got] = 0;
        fclose(tf);
        if (f == 0) {
            assert_non_null(strstr(text, "model (1, 2, 3, 4, 5, 6) INT_32 range -15 .. 15\n"));
            assert_non_null(strstr(text, "model (3, 4) UINT_8"));
            assert_non_null(strstr(text, "model () INT_16"));
        } else {
            assert_non_null(strstr(text, "\"model_tensor\""));
            assert_non_null(strstr(text, "\"UINT_8\""));
            assert_non_null(strstr(text, "\"lo\": -15"));
        }
    }
    graph_destroy(h);
    free(buf);
    /* 17 dims */
    int64_t many[17];
    for (int i = 0; i < 17; i++)
        many[i] = 1;
    assert_true(blk_set_model(g, plain, many, 17, PR_INT_32, false));
    assert_int_equal(graph_pack(g, &buf, &len, &d), ST_OK);
    assert_int_equal(graph_load_pb_mem(buf, len, &h, &d), ST_LOGIC);
    assert_true(diag_find(&d, "limit.dims") >= 0);
    free(buf);
    graph_destroy(g);
    diag_finish(&d);
}

/* ---- malformed bytes ---- */

static void test_every_truncation(void **state)
{
    (void)state;
    size_t len;
    uint8_t *pb = read_example("lenet", &len);
    size_t failed = 0;
    for (size_t n = 0; n < len; n++) {
        /* an exact copy, so that AddressSanitizer sees any read past the end */
        uint8_t *cut = malloc(n ? n : 1);
        assert_non_null(cut);
        memcpy(cut, pb, n);
        if (load_clean(cut, n, NULL, NULL, 0) != ST_OK)
            failed++;
        free(cut);
    }
    /* exactly the cuts between whole top-level fields decode: before each of the 25 blocks
     * and 24 edges but the first (n = 0 is the empty graph) and none at the end (n < len) */
    assert_int_equal(len - failed, 25 + 24);
    free(pb);
}

static void test_bad_varints(void **state)
{
    (void)state;
    /* a block whose id varint has 11 bytes */
    const uint8_t id11[] = {0x0a, 12, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff,
                            0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    expect_fault(id11, sizeof id11, "wire.varint", 3, "TaskGraph.blocks.id");
    /* a field tag of 11 bytes */
    const uint8_t tag11[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    expect_fault(tag11, sizeof tag11, "wire.varint", 0, NULL);
    /* a varint cut off by the end of the data */
    const uint8_t cut[] = {0x0a, 0x03, 0x08, 0x80, 0x80};
    expect_fault(cut, sizeof cut, "wire.truncated", 3, "TaskGraph.blocks.id");
    /* a varint cut off by the end of its enclosing message, though the data goes on */
    const uint8_t cut2[] = {0x0a, 0x02, 0x08, 0x80, 0x01, 0x0a, 0x00};
    expect_fault(cut2, sizeof cut2, "wire.truncated", 3, NULL);
    /* a packed int32 run (Tensor.int32_data) ending inside a varint */
    const uint8_t packed[] = {0x0a, 0x06, 0x3a, 0x04, 0x22, 0x02, 0x01, 0x80};
    expect_fault(packed, sizeof packed, "wire.truncated", 7, "int32_data");
}

/* Loads bytes that must load; returns the graph (graph_destroy it). */
static Graph *load_ok(const uint8_t *buf, size_t len)
{
    Diag d;
    diag_init(&d, "t.pb");
    Graph *g = NULL;
    Status st = graph_load_pb_mem(buf, len, &g, &d);
    if (st != ST_OK || d.n) {
        diag_print(&d, stderr, "test_pbio");
        fail_msg("expected the bytes to load cleanly, status %d", (int)st);
    }
    diag_finish(&d);
    return g;
}

/* A field of the schema with another wire type, and groups, are unknown fields to protobuf's
 * own parsers, which skip them: so does the loader (pb_wire_strip). */
static void test_wrong_wire_types_skipped(void **state)
{
    (void)state;
    /* TaskGraph.blocks (field 1, a message) sent as a varint */
    const uint8_t blocks_varint[] = {0x08, 0x01};
    Graph *g = load_ok(blocks_varint, sizeof blocks_varint);
    assert_int_equal(g->n_blocks, 0);
    graph_destroy(g);
    /* TaskBlock.id (a varint) sent as length-delimited, then type CC (11) as it should be */
    const uint8_t id_len[] = {0x0a, 0x05, 0x0a, 0x01, 0x00, 0x10, 0x0b};
    g = load_ok(id_len, sizeof id_len);
    assert_int_equal(g->n_blocks, 1);
    assert_int_equal(g->blocks[0]->id, 0);
    assert_int_equal(g->blocks[0]->type, BT_CC);
    graph_destroy(g);
    /* TaskBlock.shape sent as a 32-bit value, then id 7 */
    const uint8_t shape32[] = {0x0a, 0x07, 0x25, 0x01, 0x02, 0x03, 0x04, 0x08, 0x07};
    g = load_ok(shape32, sizeof shape32);
    assert_int_equal(g->n_blocks, 1);
    assert_int_equal(g->blocks[0]->id, 7);
    assert_false(g->blocks[0]->has_shape);
    graph_destroy(g);
    /* groups: an empty one at the top; inside a block, field 20 as a group holding a varint,
     * a nested group and a 32-bit value, before id 9 (the block's length is rewritten) */
    const uint8_t group[] = {0x0b, 0x0c};
    g = load_ok(group, sizeof group);
    assert_int_equal(g->n_blocks, 0);
    graph_destroy(g);
    const uint8_t nested[] = {0x0a, 0x11, 0xa3, 0x01, 0x08, 0x05, 0x1b, 0x1c, 0x2d, 0x01,
                              0x02, 0x03, 0x04, 0xa4, 0x01, 0x08, 0x09, 0x10, 0x0b};
    g = load_ok(nested, sizeof nested);
    assert_int_equal(g->n_blocks, 1);
    assert_int_equal(g->blocks[0]->id, 9);
    assert_int_equal(g->blocks[0]->type, BT_CC);
    graph_destroy(g);
}

/* Attributes a type does not use, at neutral values (as the existing tools write them on every
 * compute block), are kept through a save and a load; so is an OUTPUT without socket_id. */
static void test_neutral_attributes_kept(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    Block *add = graph_add_block(g, BT_CADD, 3, NULL);
    Block *out = graph_add_block(g, BT_OUTPUT, 5, NULL);
    assert_non_null(add);
    assert_non_null(out);
    add->shape.d[D_F] = 4;
    static const AttrId ids[] = {AT_STRIDE_X, AT_PAD_UP, AT_CONSTANT_B};
    static const int32_t vals[] = {1, 0, 0};
    for (int i = 0; i < 3; i++)
        assert_true(blk_set_attr(g, add, ids[i], vals[i]));
    Diag d;
    diag_init(&d, NULL);
    uint8_t *buf;
    size_t len;
    assert_int_equal(graph_pack(g, &buf, &len, &d), ST_OK);
    Graph *h = load_ok(buf, len);
    const Block *a = graph_block(h, 3);
    assert_non_null(a);
    assert_true(a->n_attrs >= 3);   /* then the canonical form's defaults (canon.h) */
    for (int i = 0; i < 3; i++) {
        assert_int_equal(a->attrs[i].id, ids[i]);
        assert_true(a->attrs[i].has_value);
        assert_int_equal(a->attrs[i].value, vals[i]);
    }
    for (uint32_t i = 3; i < a->n_attrs; i++)
        assert_true(attr_is_neutral(&a->attrs[i]));
    assert_false(graph_block(h, 5)->has_socket_id);
    assert_pack_fixed_point(h);
    free(buf);
    graph_destroy(h);
    graph_destroy(g);
    diag_finish(&d);
}

static void test_wrong_wire_types(void **state)
{
    (void)state;
    /* a group that never ends, and an end-group tag outside a group */
    const uint8_t open_group[] = {0x0b, 0x08, 0x01};
    expect_fault(open_group, sizeof open_group, "wire.wiretype", 0, NULL);
    const uint8_t stray_end[] = {0x08, 0x01, 0x0c};
    expect_fault(stray_end, sizeof stray_end, "wire.wiretype", 0, NULL);
    /* the invalid wire types 6 and 7 */
    const uint8_t wt6[] = {0x0e, 0x00};
    expect_fault(wt6, sizeof wt6, "wire.wiretype", 0, NULL);
    const uint8_t wt7[] = {0x0a, 0x02, 0x08, 0x01, 0x0f};
    expect_fault(wt7, sizeof wt7, "wire.wiretype", 4, NULL);
    /* field number 0 */
    const uint8_t field0[] = {0x02, 0x00};
    expect_fault(field0, sizeof field0, "wire.tag", 0, NULL);
    /* a 64-bit value of an unknown field (50) cut off */
    const uint8_t fixed64[] = {0x91, 0x03, 0x01, 0x02};
    expect_fault(fixed64, sizeof fixed64, "wire.truncated", 2, "<field 50>");
}

static void test_lengths_past_the_end(void **state)
{
    (void)state;
    const uint8_t top[] = {0x0a, 0x10, 0x08, 0x01};
    expect_fault(top, sizeof top, "wire.length", 1, "TaskGraph.blocks");
    /* the shape inside a block claims 5 bytes, its block has 2 left */
    const uint8_t inner[] = {0x0a, 0x04, 0x22, 0x05, 0x08, 0x01, 0x0a, 0x00, 0x00, 0x00};
    expect_fault(inner, sizeof inner, "wire.length", 3, "TaskGraph.blocks.shape");
    /* a length prefix near 2^35 */
    const uint8_t huge[] = {0x0a, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x00};
    expect_fault(huge, sizeof huge, "wire.length", 1, NULL);
    /* a length prefix of 10 bytes (2^63) */
    const uint8_t huge64[] = {0x0a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    expect_fault(huge64, sizeof huge64, "wire.length", 1, NULL);
    /* an unknown length-delimited field past the end */
    const uint8_t unknown[] = {0xfa, 0x06, 0x09, 0x00};
    expect_fault(unknown, sizeof unknown, "wire.length", 2, "<field 111>");
}

static void test_bad_enums(void **state)
{
    (void)state;
    const uint8_t type77[] = {0x0a, 0x04, 0x08, 0x07, 0x10, 77};
    expect_fault(type77, sizeof type77, "load.enum", -1, "TaskBlockType");
    const uint8_t prec_neg[] = {0x0a, 0x0f, 0x08, 0x07, 0x18, 0xff, 0xff, 0xff, 0xff,
                                0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x10, 0x00};
    expect_fault(prec_neg, sizeof prec_neg, "load.enum", -1, "Precision");
    const uint8_t mode7[] = {0x22, 0x02, 0x18, 0x07}; /* test_config { test_mode: 7 } */
    expect_fault(mode7, sizeof mode7, "load.enum", -1, "TestMode");
}

/* Prepends a varint before buf[*start]. */
static void prepend_varint(uint8_t *buf, size_t *start, uint64_t v)
{
    uint8_t tmp[10];
    size_t n = 0;
    do {
        tmp[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    assert_true(*start >= n);
    *start -= n;
    memcpy(buf + *start, tmp, n);
}

/* Wraps buf[*start..end) as the payload of a length-delimited field, in place: the tag and
 * length go in front of it (messages are built from the inside out, at a buffer's end). */
static void wrap_field(uint8_t *buf, size_t *start, size_t end, uint32_t field)
{
    prepend_varint(buf, start, end - *start);
    prepend_varint(buf, start, ((uint64_t)field << 3) | 2);
}

static void test_deep_nesting(void **state)
{
    (void)state;
    /* 100000 nested length-delimited unknown fields (field 99) inside one block: protobuf-c
     * keeps an unknown field as opaque bytes and the wire walker skips it, so neither
     * recurses; the graph loads with the unknown field dropped. */
    enum { LEVELS = 100000 };
    size_t cap = (size_t)LEVELS * 8 + 64;
    uint8_t *buf = calloc(cap, 1);
    assert_non_null(buf);
    size_t end = cap - 2, start = end; /* two spare bytes after the message */
    for (int i = 0; i < LEVELS; i++)
        wrap_field(buf, &start, end, 99);
    buf[--start] = 0x07; /* the block's id, 7 */
    buf[--start] = 0x08;
    wrap_field(buf, &start, end, 1); /* TaskGraph.blocks */
    const uint8_t *msg = buf + start;
    size_t len = end - start;

    Diag d;
    diag_init(&d, NULL);
    Graph *g;
    assert_int_equal(graph_load_pb_mem(msg, len, &g, &d), ST_OK);
    assert_int_equal(g->n_blocks, 1);
    assert_int_equal(g->blocks[0]->id, 7);
    uint8_t *out;
    size_t n;
    assert_int_equal(graph_pack(g, &out, &n, &d), ST_OK);
    const uint8_t want[] = {0x0a, 0x04, 0x08, 0x07, 0x10, 0x00}; /* id 7, type SI */
    assert_int_equal(n, sizeof want);
    assert_memory_equal(out, want, n);
    free(out);
    graph_destroy(g);
    diag_finish(&d);

    /* the same followed by a bad length: the walker must skip the nest to find the fault */
    buf[end] = 0x12, buf[end + 1] = 0x05; /* TaskGraph.edges, 5 bytes that are not there */
    char what[512];
    char rule[40];
    assert_int_equal(load_clean(msg, len + 2, rule, what, sizeof what), ST_LOGIC);
    assert_string_equal(rule, "wire.length");
    char want_at[48];
    snprintf(want_at, sizeof want_at, "byte %zu:", len + 1);
    if (!starts_with(what, want_at))
        fail_msg("expected the fault at %s got '%s'", want_at, what);

    /* nested unknown fields whose innermost length is wrong: inside an unknown field the
     * bytes are opaque, so only the outermost framing counts and the (empty) graph loads */
    end = cap;
    start = end - 2;
    buf[start] = 0x0a, buf[start + 1] = 0x7f; /* would run past the end if parsed */
    for (int i = 0; i < 5000; i++)
        wrap_field(buf, &start, end, 99);
    assert_int_equal(load_clean(buf + start, end - start, NULL, NULL, 0), ST_OK);
    free(buf);
}

/* xorshift64*: a fixed-seed generator, so the flips are the same on every run. */
static uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

static void test_random_flips(void **state)
{
    (void)state;
    size_t len;
    uint8_t *pb = read_example("lenet", &len);
    uint8_t *buf = malloc(len);
    assert_non_null(buf);
    uint64_t seed = UINT64_C(0x5eed7a5c1234abcd);
    size_t failed = 0, loaded = 0;
    for (int it = 0; it < 4000; it++) {
        memcpy(buf, pb, len);
        int flips = 1 + (int)(rnd(&seed) % 4);
        for (int k = 0; k < flips; k++) {
            uint64_t r = rnd(&seed);
            size_t at = (size_t)(r % len);
            if ((r >> 32) & 1)
                buf[at] ^= (uint8_t)(1u << ((r >> 40) & 7)); /* one bit */
            else
                buf[at] = (uint8_t)(r >> 48); /* a whole byte */
        }
        if (load_clean(buf, len, NULL, NULL, 0) == ST_OK)
            loaded++;
        else
            failed++;
    }
    /* both outcomes occur (most flips land in weights and still decode) */
    assert_true(loaded > 0);
    assert_true(failed > 0);
    free(buf);
    free(pb);
}

static void test_file_over_cap(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/test_pbio.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    assert_non_null(mkdtemp(dir));
    char path[600];
    snprintf(path, sizeof path, "%s/huge.pb", dir);

    /* a sparse regular file of twice the cap plus a few bytes: refused from its size alone
     * (the message gives the exact size, which a reader stopping at cap + 1 could not know) */
    off_t size = (off_t)TIR_MAX_FILE_BYTES * 2 + 5;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, size), 0);
    assert_int_equal(close(fd), 0);
    Diag d;
    diag_init(&d, path);
    Graph *g;
    assert_int_equal(graph_load_pb(path, &g, &d), ST_LOGIC);
    assert_null(g);
    assert_int_equal(d.n, 1);
    assert_string_equal(d.entries[0].rule, "limit.file");
    char want[64];
    snprintf(want, sizeof want, "%lld bytes", (long long)size);
    if (!strstr(d.entries[0].what, want))
        fail_msg("expected '%s' in '%s'", want, d.entries[0].what);
    diag_finish(&d);

    /* a small cap on a small file, and through a pipe (no size known: read up to cap + 1) */
    fd = open(path, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 100), 0);
    assert_int_equal(close(fd), 0);
    uint8_t *buf;
    size_t len;
    diag_init(&d, path);
    assert_int_equal(tir_read_file(path, 99, &buf, &len, &d), ST_LOGIC);
    assert_string_equal(d.entries[0].rule, "limit.file");
    assert_int_equal(tir_read_file(path, 100, &buf, &len, &d), ST_OK);
    assert_int_equal(len, 100);
    free(buf);
    int p[2];
    assert_int_equal(pipe(p), 0);
    uint8_t zeros[200] = {0};
    assert_int_equal(write(p[1], zeros, sizeof zeros), (ssize_t)sizeof zeros);
    assert_int_equal(close(p[1]), 0);
    char fdpath[64];
    snprintf(fdpath, sizeof fdpath, "/dev/fd/%d", p[0]);
    diag_finish(&d);
    diag_init(&d, fdpath);
    assert_int_equal(tir_read_file(fdpath, 150, &buf, &len, &d), ST_LOGIC);
    assert_int_equal(d.n, 1);
    assert_string_equal(d.entries[0].rule, "limit.file");
    assert_int_equal(close(p[0]), 0);
    diag_finish(&d);

    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* Parts of the saver by the bytes of their structs too (PB_PART_BYTES): 20000 storage blocks
 * without data, three boxed interfaces each, and 60000 edges go out in parts whose structs
 * stay near the cap (one part each of blocks and edges without it: some 20 MB), and the
 * parts' bytes are still the whole graph's, as protobuf-c packs it. */
static void test_save_parts_by_bytes(void **state)
{
    (void)state;
    Graph *g = graph_create();
    assert_non_null(g);
    enum { NB = 20000, NE = 60000 };
    for (int i = 0; i < NB; i++) {
        Block *b = graph_add_block(g, BT_SI, GRAPH_AUTO_ID, "s");
        assert_non_null(b);
        b->has_shape = true;
        b->shape.d[D_Y] = 2, b->shape.d[D_X] = 2, b->shape.d[D_F] = 8;
        Cluster *c = blk_add_output(g, b);
        assert_non_null(c);
        for (int k = 0; k < 3; k++) {
            Iface *f = cluster_add_iface(g, c, 3 * i + k);
            assert_non_null(f);
            f->has_pos = f->has_size = true;
            f->pos.d[D_F] = 2 * k;
            f->size.d[D_Y] = f->size.d[D_X] = f->size.d[D_F] = 2;
        }
    }
    for (int i = 0; i < NE; i++)
        assert_non_null(graph_add_edge(g, GRAPH_AUTO_ID, i % NB, (i + 1) % NB));
    Diag d;
    diag_init(&d, NULL);
    uint8_t *buf;
    size_t len;
    SaveStats st;
    assert_int_equal(graph_pack_stats(g, &buf, &len, &st, &d), ST_OK);
    assert_true(st.parts > 4);
    assert_true(st.most_bytes < (size_t)PB_PART_BYTES + 65536);
    Taskir__TaskGraph *w = taskir__task_graph__unpack(NULL, len, buf);
    assert_non_null(w);
    assert_int_equal(w->n_blocks, NB);
    assert_int_equal(w->n_edges, NE);
    size_t n = taskir__task_graph__get_packed_size(w);
    assert_int_equal(n, len);
    uint8_t *again = malloc(n);
    assert_non_null(again);
    taskir__task_graph__pack(w, again);
    assert_memory_equal(again, buf, len);
    free(again);
    taskir__task_graph__free_unpacked(w, NULL);
    free(buf);
    diag_finish(&d);
    graph_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lenet_canonical),
        cmocka_unit_test(test_loose_style_fixed_point),
        cmocka_unit_test(test_tianjic_style_canonical),
        cmocka_unit_test(test_writing_conventions),
        cmocka_unit_test(test_examples_verify),
        cmocka_unit_test(test_model_tensor),
        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_bad_varints),
        cmocka_unit_test(test_wrong_wire_types),
        cmocka_unit_test(test_wrong_wire_types_skipped),
        cmocka_unit_test(test_neutral_attributes_kept),
        cmocka_unit_test(test_lengths_past_the_end),
        cmocka_unit_test(test_bad_enums),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_random_flips),
        cmocka_unit_test(test_file_over_cap),
        cmocka_unit_test(test_save_parts_by_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
