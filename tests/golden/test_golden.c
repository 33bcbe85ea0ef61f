/* test_golden.c: the printers' output, byte for byte, against files in tests/golden/.
 *
 * For each example graph NAME (the arguments "NAME", built by examples/meson.build into
 * $TASKIR_BUILDDIR/examples/NAME.pb) print_graph in text, JSON and DOT and print_summary in
 * text and JSON must give tests/golden/NAME.txt, NAME.json, NAME.dot, NAME.summary and
 * NAME.summary.json. The graph "built" is made
 * here with the builder API and is deliberately odd (names that need escaping, float and
 * unsigned data, given cluster dims that disagree with the table, rearrangements with named
 * and nested parameter tensors, a missing block, groups, test_config): the dump must print
 * an invalid graph too; its goldens are built.*, and built.block.* for print_block.
 * For each argument "bad:NAME" ($TASKIR_BUILDDIR/tests/golden/NAME.pb, encoded from
 * tests/golden/NAME.txtpb) the verifier's messages, as taskir-dump prints them, must give
 * tests/golden/NAME.err.
 *
 * To accept new output after an intended change, run the suite with TASKIR_UPDATE_GOLDEN=1:
 *     TASKIR_UPDATE_GOLDEN=1 meson test -C BUILD --suite golden
 * which rewrites the golden files instead of comparing (then review them with git diff). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <json-c/json.h>

#include "taskir/fileio.h"
#include "taskir/pbio.h"
#include "taskir/print.h"
#include "taskir/print_internal.h"
#include "taskir/verify.h"

typedef enum {
    K_TEXT, K_JSON, K_DOT, K_SUMMARY, K_SUMMARY_JSON, K_BLOCK_TEXT, K_BLOCK_JSON, K_ERR
} Kind;

typedef struct Case {
    char name[64];    /* graph name: an example, "built" or a bad_* graph */
    Kind kind;
    char label[96];   /* the test's name */
} Case;

static const char *const kind_ext[] = {"txt",          "json",      "dot",        "summary",
                                       "summary.json", "block.txt", "block.json", "err"};

/* The block print_block shows in the built graph's goldens. */
#define BUILT_BLOCK 4

static const char *env_dir(const char *var)
{
    const char *v = getenv(var);
    if (!v || !*v)
        fail_msg("%s is not set (run the test through meson test)", var);
    return v;
}

/* ---- the built graph ---- */

static Block *add(Graph *g, BlockType t, int32_t id, const char *name, int32_t y, int32_t x,
                  int32_t f, int32_t r)
{
    Block *b = graph_add_block(g, t, id, name);
    assert_non_null(b);
    b->has_shape = true;
    b->shape.d[D_Y] = y, b->shape.d[D_X] = x, b->shape.d[D_F] = f, b->shape.d[D_R] = r;
    return b;
}

static Tensor *param(Graph *g, Rearrange *r, uint32_t k, const int32_t *dims, uint32_t nd,
                     const int32_t *v, uint32_t nv, const char *name)
{
    Tensor *t = &r->mats[k];
    assert_true(tensor_set_i32(g, t, dims, nd, v, nv));
    if (name)
        assert_non_null(t->name = arena_strdup(g->arena, name));
    return t;
}

static Graph *built_graph(void)
{
    Graph *g = graph_create();
    assert_non_null(g);
    Block *in = add(g, BT_INPUT, 1, "in \"quoted\" \\ back\nslash", 4, 4, 3, 0);
    in->has_socket_id = true;
    in->has_prec = true, in->prec = PR_UINT_8;
    Block *si = add(g, BT_SI, 2, "\xe8\xbe\x93\xe5\x85\xa5/\xff-bad-utf8", 4, 4, 3, 0);
    si->has_prec = true, si->prec = PR_INT_8;
    Block *sic = add(g, BT_SIC, 3, "conv/in", 6, 6, 0, 3);
    sic->has_is_virtual = true, sic->is_virtual = true;
    sic->has_major_task_id = true, sic->major_task_id = 7;
    sic->has_pipeline_num = true, sic->pipeline_num = 2;
    Block *cc = add(g, BT_CC, BUILT_BLOCK, "conv", 4, 4, 2, 3);
    cc->shape.d[D_KY] = 3, cc->shape.d[D_KX] = 3, cc->shape.d[D_IY] = 6, cc->shape.d[D_IX] = 6;
    cc->bias_type = BIAS_CONSTANT;
    cc->has_prec = true, cc->prec = PR_INT_32;
    assert_true(blk_set_attr(g, cc, AT_KERNEL_X, 3));
    assert_true(blk_set_attr(g, cc, AT_KERNEL_Y, 3));
    assert_true(blk_set_attr(g, cc, AT_CONSTANT_B, -5));
    Block *sw = add(g, BT_SW, 5, "conv/w", 0, 0, 2, 3);
    sw->shape.d[D_KY] = 3, sw->shape.d[D_KX] = 3;
    int64_t w[54];
    for (int i = 0; i < 54; i++)
        w[i] = (i * 5) % 9 - 4;
    int32_t wd[4] = {2, 3, 3, 3};
    assert_true(blk_set_data(g, sw, PR_INT_8, wd, 4, w, 54));
    sw->data->has_prec = false; /* the block's precision applies */
    Block *sb = add(g, BT_SB, 6, NULL, 0, 0, 2, 0);
    int64_t fb[2] = {0, 0};
    int32_t fbd[1] = {2};
    assert_true(blk_set_data(g, sb, PR_FLOAT_32, fbd, 1, fb, 2));
    sb->data->f32[0] = 0.1f, sb->data->f32[1] = -2.5e-7f;
    assert_non_null(sb->data->name = arena_strdup(g->arena, "bias'v"));
    Block *out = add(g, BT_SI, 8, "conv/out", 4, 4, 2, 0);
    Block *lif = add(g, BT_CLIF, 9, "lif", 4, 4, 2, 0);
    assert_true(blk_set_attr(g, lif, AT_VTH0, 10));
    Attr *a = (Attr *)blk_find_attr(lif, AT_VTH0);
    a->has_fvalue = true, a->fvalue = 1.5f, a->has_prec = true, a->prec = PR_INT_16;
    assert_true(blk_set_attr(g, lif, AT_VLEAKY_ALPHA, 0));
    ((Attr *)blk_find_attr(lif, AT_VLEAKY_ALPHA))->has_value = false;
    Block *lut = add(g, BT_SB, 10, "table", 0, 0, 4, 0);
    int64_t lv[4] = {0, 1, 4000000000LL, 7};
    int32_t ld[1] = {4};
    assert_true(blk_set_data(g, lut, PR_UINT_32, ld, 1, lv, 4));
    Block *cadd = add(g, BT_CADD, 11, "sum", 4, 4, 2, 0);
    cadd->shape.n_branch = 2;
    int32_t extra[2] = {9, 8};
    assert_non_null(cadd->shape.extra = arena_grow(g->arena, extra, 2, 2, sizeof *extra));
    cadd->shape.n_extra = 2;
    Block *nul = graph_add_block(g, BT_TASK_NULL, 12, NULL);
    assert_non_null(nul);

    assert_non_null(graph_connect(g, in, 0, si, 0));
    Edge *e = graph_connect(g, si, 0, sic, 0);
    assert_non_null(e);
    Rearrange *r = edge_add_rearrange(g, e, RT_RESHAPE, 1);
    assert_non_null(r);
    int32_t perm[3] = {2, 1, 0}, pd[1] = {3};
    param(g, r, 0, pd, 1, perm, 3, "perm");
    r = edge_add_rearrange(g, e, RT_AFFINE, 2);
    assert_non_null(r);
    int32_t m[6] = {1, 0, 1, 0, 1, -1}, md[2] = {2, 3};
    param(g, r, 0, md, 2, m, 6, NULL);
    int32_t odd[3] = {5, 6, 7}, od[2] = {2, 2};
    Tensor *t = param(g, r, 1, od, 2, odd, 3, NULL); /* dims disagree with the values */
    t->prec = PR_INT_8;
    e = graph_connect(g, sic, 0, cc, 0);
    assert_non_null(e);
    assert_non_null(edge_add_rearrange(g, e, RT_IDENTITY, 0));
    assert_non_null(graph_connect(g, sw, 0, cc, 1));
    assert_non_null(graph_connect(g, cc, 0, out, 0));
    /* the output interface covers a box at an offset */
    Iface *f = &out->in[0].ifaces[0];
    f->has_pos = true, f->pos.d[D_Y] = 1;
    f->has_size = true, f->size.d[D_Y] = 3, f->size.d[D_X] = 4, f->size.d[D_F] = 2;
    /* a given cluster shape that disagrees with the table */
    cc->out[0].has_shape = true;
    cc->out[0].shape.d[D_Y] = 4, cc->out[0].shape.d[D_X] = 5, cc->out[0].shape.d[D_F] = 2;
    assert_non_null(graph_connect(g, out, 0, lif, 0));
    assert_non_null(graph_connect(g, sb, 0, cadd, 2));
    /* an edge to a block that does not exist, and one no interface names */
    assert_non_null(graph_add_edge(g, 40, 8, 99));
    assert_non_null(graph_add_edge(g, 41, 10, 11));
    /* a cluster beyond the type's roles */
    assert_non_null(blk_add_input(g, cc));
    assert_non_null(blk_add_input(g, cc));
    assert_non_null(cluster_add_iface(g, &cc->in[3], 77));

    g->groups = arena_alloc(g->arena, 2, sizeof *g->groups);
    assert_non_null(g->groups);
    g->n_groups = 2;
    int32_t g0[3] = {2, 3, 4};
    g->groups[0].id = 0;
    assert_non_null(g->groups[0].block_ids = arena_grow(g->arena, g0, 3, 3, sizeof *g0));
    g->groups[0].n_block_ids = 3;
    g->groups[1].id = 5;
    g->test_config.present = true;
    g->test_config.has_random_seed = true;
    g->test_config.random_seed = -1234567890123LL;
    assert_non_null(g->test_config.test_case_name = arena_strdup(g->arena, "case 1"));
    g->test_config.has_test_mode = true;
    g->test_config.test_mode = 2;
    assert_false(graph_oom(g));
    return g;
}

/* ---- rendering and comparing ---- */

static void path_of(char *buf, size_t len, const char *dir, const char *sub, const char *name,
                    const char *ext)
{
    int n = snprintf(buf, len, "%s/%s/%s.%s", dir, sub, name, ext);
    assert_true(n > 0 && (size_t)n < len);
}

static Graph *load(const Case *c, bool bad, Diag *d)
{
    if (strcmp(c->name, "built") == 0)
        return built_graph();
    char path[4096];
    path_of(path, sizeof path, env_dir("TASKIR_BUILDDIR"), bad ? "tests/golden" : "examples",
            c->name, "pb");
    Graph *g = NULL;
    Status st = graph_load_pb(path, &g, d);
    if (st != ST_OK) {
        diag_print(d, stderr, "test_golden");
        fail_msg("cannot load %s", path);
    }
    return g;
}

/* Renders the case into a malloc'd buffer. */
static char *render(const Case *c, size_t *len)
{
    char *buf = NULL;
    FILE *ms = open_memstream(&buf, len);
    assert_non_null(ms);
    char shown[80];
    snprintf(shown, sizeof shown, "%s.pb", c->name);
    Diag d;
    diag_init(&d, shown);
    Graph *g = load(c, c->kind == K_ERR, &d);
    Status st = ST_OK;
    switch (c->kind) {
    case K_TEXT:
        st = print_graph(g, PF_TEXT, ms, &d);
        break;
    case K_JSON:
        st = print_graph(g, PF_JSON, ms, &d);
        break;
    case K_DOT:
        st = print_graph(g, PF_DOT, ms, &d);
        break;
    case K_SUMMARY:
        st = print_summary(g, PF_TEXT, ms, &d);
        break;
    case K_SUMMARY_JSON:
        st = print_summary(g, PF_JSON, ms, &d);
        break;
    case K_BLOCK_TEXT:
        st = print_block(g, BUILT_BLOCK, PF_TEXT, ms, &d);
        break;
    case K_BLOCK_JSON:
        st = print_block(g, BUILT_BLOCK, PF_JSON, ms, &d);
        break;
    case K_ERR:
        /* a bad graph must fail verification; its messages are the golden */
        assert_int_equal(verify_graph(g, &d), ST_LOGIC);
        diag_print(&d, ms, "taskir-dump");
        break;
    }
    if (c->kind != K_ERR) {
        if (st != ST_OK)
            diag_print(&d, stderr, "test_golden");
        assert_int_equal(st, ST_OK);
        assert_int_equal(d.n, 0);
    }
    graph_destroy(g);
    diag_finish(&d);
    assert_int_equal(fclose(ms), 0);
    return buf;
}

/* Fails with the first line where got and want differ. */
static void compare(const char *path, const char *got, size_t glen, const char *want,
                    size_t wlen)
{
    if (glen == wlen && memcmp(got, want, glen) == 0)
        return;
    size_t i = 0, line = 1, start = 0;
    while (i < glen && i < wlen && got[i] == want[i]) {
        if (got[i] == '\n')
            line++, start = i + 1;
        i++;
    }
    const char *ge = memchr(got + start, '\n', glen - start);
    const char *we = memchr(want + start, '\n', wlen - start);
    int gl = (int)((ge ? (size_t)(ge - got) : glen) - start);
    int wl = (int)((we ? (size_t)(we - want) : wlen) - start);
    fail_msg("%s differs at line %zu:\n  want: %.*s\n  got:  %.*s\n"
             "(TASKIR_UPDATE_GOLDEN=1 rewrites the golden files)",
             path, line, wl, want + start, gl, got + start);
}

static void run_case(void **state)
{
    const Case *c = *state;
    size_t len;
    char *got = render(c, &len);
    if (c->kind == K_JSON || c->kind == K_SUMMARY_JSON || c->kind == K_BLOCK_JSON) {
        json_object *j = json_tokener_parse(got);
        if (!j)
            fail_msg("%s: the JSON output does not parse", c->label);
        json_object_put(j);
    }
    char path[4096];
    path_of(path, sizeof path, env_dir("TASKIR_SRCDIR"), "tests/golden", c->name,
            kind_ext[c->kind]);
    const char *upd = getenv("TASKIR_UPDATE_GOLDEN");
    if (upd && strcmp(upd, "1") == 0) {
        Diag d;
        diag_init(&d, path);
        Status st = tir_write_file_atomic(path, got, len, &d);
        diag_print(&d, stderr, "test_golden");
        diag_finish(&d);
        free(got);
        assert_int_equal(st, ST_OK);
        return;
    }
    uint8_t *want = NULL;
    size_t wlen = 0;
    Diag d;
    diag_init(&d, path);
    Status st = tir_read_file(path, TIR_MAX_FILE_BYTES, &want, &wlen, &d);
    if (st != ST_OK) {
        diag_print(&d, stderr, "test_golden");
        diag_finish(&d);
        free(got);
        fail_msg("no golden file %s (TASKIR_UPDATE_GOLDEN=1 writes it)", path);
    }
    diag_finish(&d);
    compare(path, got, len, (const char *)want, wlen);
    free(want);
    free(got);
}

/* Printing is deterministic: the same graph twice gives the same bytes. */
static void test_deterministic(void **state)
{
    (void)state;
    for (int k = K_TEXT; k <= K_BLOCK_JSON; k++) {
        Case c = {"built", (Kind)k, "det"};
        size_t l1, l2;
        char *a = render(&c, &l1);
        char *b = render(&c, &l2);
        assert_int_equal(l1, l2);
        assert_memory_equal(a, b, l1);
        free(a);
        free(b);
    }
}

/* print_block names a missing id with [dump.block]; print_summary refuses DOT. */
static void test_block_missing_and_summary_dot(void **state)
{
    (void)state;
    Graph *g = built_graph();
    Diag d;
    diag_init(&d, "built.pb");
    assert_int_equal(print_block(g, 12345, PF_TEXT, stdout, &d), ST_LOGIC);
    assert_true(diag_find(&d, "dump.block") >= 0);
    assert_int_equal(print_summary(g, PF_DOT, stdout, &d), ST_USAGE);
    diag_finish(&d);
    graph_destroy(g);
}

/* The checksum is FNV-1a 64 over little-endian bytes (values from a reference computation),
 * and text that is not UTF-8 is escaped or replaced, never passed through. */
static void test_checksum_and_strings(void **state)
{
    (void)state;
    int32_t abcd = 0x64636261; /* the bytes "abcd" */
    assert_true(print_fnv1a_i32(&abcd, 1) == UINT64_C(0xfc179f83ee0724dd));
    uint32_t uabcd = 0x64636261u;
    assert_true(print_fnv1a_u32(&uabcd, 1) == UINT64_C(0xfc179f83ee0724dd));
    int32_t two[2] = {-1, 1};
    assert_true(print_fnv1a_i32(two, 2) == UINT64_C(0xaec0017df5913650));
    assert_true(print_fnv1a_f32(NULL, 0) == UINT64_C(0xcbf29ce484222325));
    char *c = utf8_clean("a\xff\xc3\xa9\xed\xa0\x80z");
    assert_non_null(c);
    /* a valid e-acute stays; 0xff and the encoded surrogate become U+FFFD */
    assert_string_equal(c, "a\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdz");
    free(c);
    char *buf = NULL;
    size_t len = 0;
    FILE *ms = open_memstream(&buf, &len);
    assert_non_null(ms);
    print_quoted(ms, "it's\t\x01\xc3\xa9\\");
    assert_int_equal(fclose(ms), 0);
    assert_string_equal(buf, "'it\\'s\\t\\x01\xc3\xa9\\\\'");
    free(buf);
}

static void add_case(struct CMUnitTest *t, Case *c, size_t *n, const char *name, Kind k)
{
    Case *x = &c[*n];
    snprintf(x->name, sizeof x->name, "%s", name);
    x->kind = k;
    snprintf(x->label, sizeof x->label, "%s.%s", name, kind_ext[k]);
    t[*n] = (struct CMUnitTest){x->label, run_case, NULL, NULL, x};
    (*n)++;
}

int main(int argc, char **argv)
{
    size_t cap = (size_t)argc * 5 + 20, n = 0;
    struct CMUnitTest *tests = calloc(cap, sizeof *tests);
    Case *cases = calloc(cap, sizeof *cases);
    if (!tests || !cases)
        return 1;
    for (int k = K_TEXT; k <= K_BLOCK_JSON; k++)
        add_case(tests, cases, &n, "built", (Kind)k);
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "bad:", 4) == 0) {
            add_case(tests, cases, &n, argv[i] + 4, K_ERR);
            continue;
        }
        for (int k = K_TEXT; k <= K_SUMMARY_JSON; k++)
            add_case(tests, cases, &n, argv[i], (Kind)k);
    }
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_deterministic);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_block_missing_and_summary_dot);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_checksum_and_strings);
    int rc = _cmocka_run_group_tests("golden", tests, n, NULL, NULL);
    free(tests);
    free(cases);
    return rc;
}
