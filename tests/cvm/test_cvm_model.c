/* test_cvm_model.c: the cvm-runtime model reader. A small model (data -> conv2d with a
 * params weight -> cvm_right_shift) written by the test itself (JSON text + params encoded
 * by fe_cvm_params_encode) loads and runs to hand-computed values; one invalid variant per
 * reader rule fails with that rule id and the node's name; the params format round-trips and
 * rejects each malformation; truncated, corrupted, garbage, deeply nested and oversized
 * inputs give logic errors and never crash (this suite also runs under ASan/UBSan). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cvm_test_util.h"
#include "taskir/fileio.h"

#include <unistd.h>

static const char base_json[] =
    "{\n"
    " \"nodes\": [\n"
    "  {\"op\": \"null\", \"name\": \"data\", \"inputs\": []},\n"
    "  {\"op\": \"null\", \"name\": \"w\", \"inputs\": []},\n"
    "  {\"op\": \"cvm_op\", \"name\": \"conv1\", \"attrs\": {\"func_name\": \"conv2d\", "
    "\"num_inputs\": \"2\", \"num_outputs\": \"1\", \"flatten_data\": \"0\"}, "
    "\"inputs\": [[0, 0, 0], [1, 0, 0]]},\n"
    "  {\"op\": \"cvm_op\", \"name\": \"shift1\", \"attrs\": {\"func_name\": \"cvm_right_shift\", "
    "\"num_inputs\": \"1\", \"num_outputs\": \"1\", \"flatten_data\": \"0\"}, "
    "\"inputs\": [[2, 0, 0]]}\n"
    " ],\n"
    " \"arg_nodes\": [0, 1],\n"
    " \"heads\": [[3, 0, 0]],\n"
    " \"node_row_ptr\": [0, 1, 2, 3, 4],\n"
    " \"attrs\": {\n"
    "  \"dltype\": [\"list_str\", [\"int32\", \"int32\", \"int32\", \"int32\"]],\n"
    "  \"shape\": [\"list_shape\", [[1, 1, 3, 3], [1, 1, 2, 2], [1, 1, 2, 2], [1, 1, 2, 2]]],\n"
    "  \"precision\": [\"list_int\", [8, 8, 19, 8]],\n"
    "  \"storage_id\": [\"list_int\", [0, 1, 2, 3]],\n"
    "  \"op_attrs\": [\"list_str\", [\"{}\", \"{}\", "
    "\"{\\\"channels\\\": \\\"1\\\", \\\"kernel_size\\\": \\\"(2, 2)\\\", "
    "\\\"use_bias\\\": \\\"False\\\"}\", "
    "\"{\\\"precision\\\": \\\"8\\\", \\\"shift_bit\\\": \\\"2\\\"}\"]]\n"
    " },\n"
    " \"version\": \"cvm_1.0.0\"\n"
    "}\n";

static int32_t w_vals[4] = {1, 0, 0, 1};

static void encode_params(const CvmParam *p, size_t n, uint8_t **buf, size_t *len)
{
    Diag d;
    diag_init(&d, NULL);
    assert_int_equal(fe_cvm_params_encode(p, n, buf, len, &d), ST_OK);
    diag_finish(&d);
}

static void base_params(uint8_t **buf, size_t *len)
{
    CvmParam p = {"w", {{4, {1, 1, 2, 2}}, 4, w_vals}, 8};
    encode_params(&p, 1, buf, len);
}

/* json with the first occurrence of `find` replaced (find NULL: unchanged); malloc'd. */
static char *patched(const char *json, const char *find, const char *repl)
{
    const char *at = find ? strstr(json, find) : NULL;
    if (find && !at) {
        fprintf(stderr, "test bug: '%s' not in the model\n", find);
        fail();
    }
    size_t n = strlen(json), fl = find ? strlen(find) : 0, rl = repl ? strlen(repl) : 0;
    char *s = malloc(n - fl + rl + 1);
    assert_non_null(s);
    if (!at) {
        memcpy(s, json, n + 1);
        return s;
    }
    size_t pre = (size_t)(at - json);
    memcpy(s, json, pre);
    memcpy(s + pre, repl, rl);
    memcpy(s + pre + rl, at + fl, n - pre - fl + 1);
    return s;
}

static Status load(const char *json, size_t jlen, const uint8_t *params, size_t plen,
                   OpGraph **g, Diag *d)
{
    diag_init(d, "model.json");
    Status st = fe_cvm_load_mem(json, jlen, params, plen, "model.params", g, d);
    if (st == ST_OK)
        assert_non_null(*g);
    else
        assert_null(*g);
    return st;
}

static void test_load_and_run(void **state)
{
    (void)state;
    uint8_t *pb;
    size_t pl;
    base_params(&pb, &pl);
    OpGraph *g;
    Diag d;
    Status st = load(base_json, strlen(base_json), pb, pl, &g, &d);
    if (st != ST_OK)
        diag_print(&d, stderr, "test");
    assert_int_equal(st, ST_OK);
    assert_string_equal(g->dialect, "cvm");
    assert_int_equal(g->nnodes, 4);
    assert_int_equal(og_num_inputs(g), 1);
    assert_int_equal(og_find_input(g, "data"), 0);
    assert_int_equal(g->nodes[1]->kind, OG_CONST);
    assert_int_equal(g->nodes[1]->out_prec[0], 8);
    assert_int_equal(g->nodes[1]->value.data[0], 1);
    assert_int_equal(g->nodes[2]->op, CVM_OP_conv2d);
    assert_int_equal(g->nodes[2]->out_prec[0], 19);
    assert_int_equal(g->nodes[3]->inputs[0].node, 2);
    assert_int_equal(g->noutputs, 1);
    assert_int_equal(g->outputs[0].node, 3);
    /* conv: 1+5, 2+6, 4+8, 5+9 = 6 8 12 14; right shift 2, round half up: 2 2 3 4 */
    int32_t x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    OgTensor in = {{4, {1, 1, 3, 3}}, 9, x}, out;
    assert_int_equal(fe_interp_run(g, &in, 1, &out, &d), ST_OK);
    assert_int_equal(out.count, 4);
    assert_int_equal(out.data[0], 2);
    assert_int_equal(out.data[1], 2);
    assert_int_equal(out.data[2], 3);
    assert_int_equal(out.data[3], 4);
    og_tensor_free(&out);
    og_destroy(g);
    diag_finish(&d);
    /* the same from files, with a node's own precision (cvm-runtime reads and ignores it)
     * and an int32 params array */
    char dir[] = "/tmp/cvmtestXXXXXX";
    assert_non_null(mkdtemp(dir));
    char jpath[64], ppath[64];
    snprintf(jpath, sizeof jpath, "%s/m.json", dir);
    snprintf(ppath, sizeof ppath, "%s/m.params", dir);
    char *j = patched(base_json, "\"name\": \"shift1\"", "\"name\": \"shift1\", \"precision\": 8");
    diag_init(&d, jpath);
    assert_int_equal(tir_write_file_atomic(jpath, j, strlen(j), &d), ST_OK);
    CvmParam p = {"w", {{4, {1, 1, 2, 2}}, 4, w_vals}, 32};
    assert_int_equal(fe_cvm_params_write(ppath, &p, 1, &d), ST_OK);
    assert_int_equal(fe_cvm_load(jpath, ppath, &g, &d), ST_OK);
    assert_int_equal(g->nodes[1]->out_prec[0], 8);
    og_destroy(g);
    assert_int_equal(fe_cvm_load(jpath, "/nonexistent/none.params", &g, &d), ST_RUNTIME);
    expect_rule(&d, "io.read", NULL);
    assert_null(g);
    diag_finish(&d);
    unlink(jpath);
    unlink(ppath);
    rmdir(dir);
    free(j);
    free(pb);
}

/* ---- invalid models: one per reader rule ---- */

typedef struct Bad {
    const char *find, *repl;
    const char *rule;
    const char *name;       /* expected in where or message; NULL: not checked */
} Bad;

#define SHAPES "[[1, 1, 3, 3], [1, 1, 2, 2], [1, 1, 2, 2], [1, 1, 2, 2]]"
#define DLTYPES "[\"int32\", \"int32\", \"int32\", \"int32\"]"
#define STORAGE "  \"storage_id\": [\"list_int\", [0, 1, 2, 3]],\n"
#define SHIFT_ATTRS "\"num_inputs\": \"1\", \"num_outputs\": \"1\""
#define CONV_OPATTRS                                                                       \
    "\"{\\\"channels\\\": \\\"1\\\", \\\"kernel_size\\\": \\\"(2, 2)\\\", "              \
    "\\\"use_bias\\\": \\\"False\\\"}\""
#define SHIFT_OPATTRS "\"{\\\"precision\\\": \\\"8\\\", \\\"shift_bit\\\": \\\"2\\\"}\""

static const Bad bads[] = {
    {"\"version\": \"cvm_1.0.0\"", "\"version\": \"cvm_1.0.0\",,", "cvm.json.syntax", NULL},
    {"{\n \"nodes\"", "[\n \"nodes\"", "cvm.json.syntax", NULL},
    {"\"inputs\": [[0, 0, 0], [1, 0, 0]]", "\"inputs\": 5", "cvm.json.type", "'conv1'"},
    {"\"arg_nodes\": [0, 1]", "\"arg_nodes\": [0, 1.5]", "cvm.json.type", "arg_nodes"},
    {"\"name\": \"w\", ", "", "cvm.json.missing", "node 1"},
    {"\"heads\": [[3, 0, 0]],", "", "cvm.json.missing", "heads"},
    {"\"func_name\": \"cvm_right_shift\", ", "", "cvm.json.missing", "'shift1'"},
    {"cvm_1.0.0", "cvm_2.0.0", "cvm.json.version", "cvm_2.0.0"},
    {"\"op\": \"cvm_op\", \"name\": \"shift1\"", "\"op\": \"tvm_op\", \"name\": \"shift1\"",
     "cvm.json.op", "'shift1'"},
    {"\"inputs\": [[2, 0, 0]]", "\"inputs\": [[3, 0, 0]]", "cvm.json.input", "'shift1'"},
    {"\"inputs\": [[2, 0, 0]]", "\"inputs\": [[2, 1, 0]]", "cvm.json.input", "'shift1'"},
    {"\"inputs\": [[2, 0, 0]]", "\"inputs\": [[2]]", "cvm.json.input", "'shift1'"},
    {"\"name\": \"w\", \"inputs\": []", "\"name\": \"w\", \"inputs\": [[0, 0, 0]]",
     "cvm.json.input", "'w'"},
    {"\"heads\": [[3, 0, 0]]", "\"heads\": [[4, 0, 0]]", "cvm.json.heads", "heads"},
    {"\"heads\": [[3, 0, 0]]", "\"heads\": []", "cvm.json.heads", "heads"},
    {"\"arg_nodes\": [0, 1]", "\"arg_nodes\": [0]", "cvm.json.arg_nodes", "'w'"},
    {"\"arg_nodes\": [0, 1]", "\"arg_nodes\": [0, 1, 2]", "cvm.json.arg_nodes", "node 2"},
    {"[0, 1, 2, 3, 4]", "[0, 1, 2, 3, 5]", "cvm.json.row_ptr", "node_row_ptr"},
    {"[0, 1, 2, 3, 4]", "[0, 1, 2, 3]", "cvm.json.row_ptr", "node_row_ptr"},
    {"[8, 8, 19, 8]", "[8, 8, 19]", "cvm.json.attrs", "precision"},
    {"\"list_int\", [8, 8", "\"list_str\", [8, 8", "cvm.json.attrs", "precision"},
    {"\"list_int\", [0, 1, 2, 3]", "\"list_int\", [0, 1, \"2\", 3]", "cvm.json.type",
     "storage_id"},
    {"\"list_int\", [0, 1, 2, 3]", "\"list_int\", [0, 1, -2, 3]", "cvm.json.storage",
     "storage_id"},
    {CONV_OPATTRS, "\"[]\"", "cvm.json.attrs", "'conv1'"},
    {"\"{}\", \"{}\"", "\"{}\", 7", "cvm.json.attrs", "op_attrs"},
    {SHIFT_OPATTRS, "\"{\\\"precision\\\": 8,\"", "cvm.json.syntax", "'shift1'"},
    {SHIFT_ATTRS, SHIFT_ATTRS ", \"precision\": \"7\"", "cvm.json.key", "'shift1'"},
    {SHIFT_ATTRS, "\"num_inputs\": 1, \"num_outputs\": \"1\"", "cvm.json.type", "'shift1'"},
    {DLTYPES, "[\"int32\", \"int8\", \"int32\", \"int32\"]", "cvm.json.dltype", "dltype"},
    {DLTYPES, "[\"int32\", \"float32\", \"int32\", \"int32\"]", "cvm.json.dltype", "dltype"},
    {"cvm_right_shift", "softmax", "cvm.op.unknown", "'shift1'"},
    {SHIFT_ATTRS, "\"num_inputs\": \"2\", \"num_outputs\": \"1\"", "cvm.op.inputs", "'shift1'"},
    {SHIFT_ATTRS, "\"num_inputs\": \"1\", \"num_outputs\": \"2\"", "cvm.op.outputs", "'shift1'"},
    {"\\\"use_bias\\\": \\\"False\\\"", "\\\"use_bias\\\": \\\"False\\\", \\\"padding\\\": "
     "\\\"(5000, 0)\\\"", "cvm.attr.padding", "'conv1'"},
    {SHIFT_ATTRS, SHIFT_ATTRS ", \"bogus\": \"1\"", "cvm.json.key", "'shift1'"},
    {SHIFT_OPATTRS, "\"{\\\"precision\\\": \\\"8\\\", \\\"shift_bit\\\": \\\"2\\\", "
     "\\\"bogus\\\": \\\"1\\\"}\"", "cvm.attr.unknown", "'shift1'"},
    {SHIFT_OPATTRS, "\"{}\"", "cvm.attr.precision", "'shift1'"},
    {"\\\"use_bias\\\": \\\"False\\\"", "\\\"use_bias\\\": \\\"True\\\"", "cvm.op.inputs",
     "'conv1'"},
    {SHAPES, "[[1, 1, 3, 3], [1, 1, 2, 2], [1, 1, 3, 3], [1, 1, 2, 2]]", "cvm.shape", "'conv1'"},
    {SHAPES, "[[1, 1, 3, 3], [1, 2, 2], [1, 1, 2, 2], [1, 1, 2, 2]]", "cvm.shape", "'w'"},
    {SHAPES, "[[1, 1, 1, 1], [1, 1, 2, 2], [1, 1, 2, 2], [1, 1, 2, 2]]", "cvm.shape.empty",
     "'conv1'"},
    {SHAPES, "[[1, 3, 3], [1, 1, 2, 2], [1, 1, 2, 2], [1, 1, 2, 2]]", "cvm.shape.rank", "'conv1'"},
    {SHAPES, "[[1, 2, 3, 3], [1, 1, 2, 2], [1, 1, 2, 2], [1, 1, 2, 2]]", "cvm.shape.mismatch",
     "'conv1'"},
    {"[8, 8, 19, 8]", "[8, 8, 18, 8]", "cvm.precision", "'conv1'"},
    {"[8, 8, 19, 8]", "[-1, 8, 19, 8]", "cvm.precision.missing", "'data'"},
    {"[8, 8, 19, 8]", "[40, 8, 19, 8]", "cvm.precision.range", "precision"},
    {"[8, 8, 19, 8]", "[9, 8, 19, 8]", "cvm.precision.input", "'conv1'"},
    {"[8, 8, 19, 8]", "[8, 1, 19, 8]", "cvm.params.range", "'w'"},
    {"\"name\": \"w\"", "\"name\": \"w2\"", "cvm.params.missing", "'w2'"},
    {"\"name\": \"w\"", "\"name\": \"data\"", "cvm.json.duplicate", "'data'"},
    {SHAPES, "[[1, 1, 1, 1, 1, 1, 3, 3], [1, 1, 2, 2], [1, 1, 2, 2], [1, 1, 2, 2]]",
     "cvm.limit.ndim", "shape"},
    {SHAPES, "[[1, 1, 3, 16777217], [1, 1, 2, 2], [1, 1, 2, 2], [1, 1, 2, 2]]", "cvm.limit.dim",
     "shape"},
    {SHAPES, "[[2048, 1, 1024, 1024], [1, 1, 2, 2], [1, 1, 2, 2], [1, 1, 2, 2]]",
     "cvm.limit.volume", "'data'"},
    /* what cvm-runtime's loader refuses (graph_runtime.h, graph_runtime.cc, infer_attr.cc;
     * docs/cvm-rules.md has the table) */
    {"\"arg_nodes\": [0, 1]", "\"arg_nodes\": [0, 1,]", "cvm.json.syntax", NULL},
    {"\"flatten_data\": \"0\"}", "\"flatten_data\": \"0\",}", "cvm.json.syntax", NULL},
    {"\"arg_nodes\": [0, 1]", "\"arg_nodes\": [0, 1] // the inputs", "cvm.json.syntax", NULL},
    {"\"name\": \"w\"", "'name': \"w\"", "cvm.json.syntax", NULL},
    {"\"name\": \"w\"", "\"name\": 'w'", "cvm.json.syntax", NULL},
    {"[8, 8, 19, 8]", "[8, 8, 19, NaN]", "cvm.json.syntax", NULL},
    {"[8, 8, 19, 8]", "[8, 8, 19, 8.]", "cvm.json.syntax", NULL},
    {"[8, 8, 19, 8]", "[8, 8, 19, Infinity]", "cvm.json.syntax", NULL},
    {"\"name\": \"w\"", "\"name\": \"w\tx\"", "cvm.json.syntax", NULL},
    /* escapes cvm-runtime's reader does not know */
    {"\"name\": \"shift1\"", "\"name\": \"shift\\u00e91\"", "cvm.json.syntax", NULL},
    {"\"name\": \"shift1\"", "\"name\": \"shift\\/1\"", "cvm.json.syntax", NULL},
    {SHIFT_OPATTRS, "\"{\\\"precision\\\": \\\"\\\\u0038\\\", \\\"shift_bit\\\": \\\"2\\\"}\"",
     "cvm.json.syntax", "'shift1'"},
    {SHIFT_OPATTRS, "\"{\\\"precision\\\": \\\"8\\\", \\\"shift_bit\\\": \\\"2\\\",}\"",
     "cvm.json.syntax", "'shift1'"},
    {"\"name\": \"w\"", "\"name\": \"w\xff\"", "cvm.json.utf8", NULL},
    {"\"name\": \"shift1\"", "\"name\": \"shift\xc3\x28" "1\"", "cvm.json.utf8", NULL},
    {"\"arg_nodes\": [0, 1]", "\"arg_nodes\": [0, 1], \"extra\": 1", "cvm.json.key", "extra"},
    {"\"name\": \"w\", ", "\"name\": \"w\", \"shape\": [1], ", "cvm.json.key", "'w'"},
    {STORAGE, STORAGE "  \"layout\": [\"list_str\", []],\n", "cvm.json.key", "layout"},
    {STORAGE, STORAGE "  \"device_index\": [\"list_int\", [1, 1, 1, 1]],\n",
     "cvm.json.device", "device_index"},
    {STORAGE, STORAGE "  \"device_index\": [\"list_str\", []],\n", "cvm.json.attrs",
     "device_index"},
    {STORAGE, STORAGE "  \"dtype\": [\"list_float\", []],\n", "cvm.json.attrs", "dtype"},
    {STORAGE, STORAGE "  \"device_index\": 5,\n", "cvm.json.attrs", "device_index"},
    {STORAGE, STORAGE "  \"device_index\": null,\n", "cvm.json.attrs", "device_index"},
    {STORAGE, STORAGE "  \"device_index\": [\"list_int\", null],\n", "cvm.json.attrs",
     "device_index"},
    {STORAGE, STORAGE "  \"dtype\": {\"list_int\": []},\n", "cvm.json.attrs", "dtype"},
    {STORAGE, STORAGE "  \"dtype\": [\"list_str\", null],\n", "cvm.json.attrs", "dtype"},
    {STORAGE, STORAGE "  \"dtype\": [\"list_str\", [\"int32\"]],\n", "cvm.json.attrs", "dtype"},
    {" \"attrs\": {\n", " \"postprocess\": 3,\n \"attrs\": {\n", "cvm.json.type", "postprocess"},
    {STORAGE, "", "cvm.json.missing", "storage_id"},
    {"[\"list_int\", [0, 1, 2, 3]]", "null", "cvm.json.attrs", "storage_id"},
    {"[\"list_str\", [\"{}\", \"{}\", " CONV_OPATTRS ", " SHIFT_OPATTRS "]]", "null",
     "cvm.json.attrs", "op_attrs"},
    {"[0, 1, 2, 3]],\n  \"op_attrs\": [\"list_str\", [\"{}\", \"{}\", " CONV_OPATTRS ", "
     SHIFT_OPATTRS "]]", "[0, 1, 2, 3]]", "cvm.json.missing", "op_attrs"},
    {"  \"shape\": [\"list_shape\", " SHAPES "],\n", "", "cvm.json.missing", "shape"},
    {"  \"precision\": [\"list_int\", [8, 8, 19, 8]],\n", "", "cvm.json.missing", "precision"},
    {"  \"dltype\": [\"list_str\", " DLTYPES "],\n", "", "cvm.json.missing", "dltype"},
    {"\"node_row_ptr\": [0, 1, 2, 3, 4],", "", "cvm.json.missing", "node_row_ptr"},
    {"\"arg_nodes\": [0, 1],", "", "cvm.json.missing", "arg_nodes"},
    {"\"arg_nodes\": [0, 1]", "\"arg_nodes\": [1, 0]", "cvm.json.arg_nodes", "arg_nodes"},
    {"\"arg_nodes\": [0, 1]", "\"arg_nodes\": [0, 1, 1]", "cvm.json.arg_nodes", "arg_nodes"},
    {"\"list_int\", [0, 1, 2, 3]", "\"list_int\", [0, 1, 0, 3]", "cvm.json.storage", "'conv1'"},
    {"\"list_int\", [0, 1, 2, 3]", "\"list_int\", [0, 1, 2, -1]", "cvm.json.storage",
     "storage_id"},
    {"\"num_inputs\": \"2\"", "\"num_inputs\": 2", "cvm.json.type", "'conv1'"},
    {"\"flatten_data\": \"0\"}", "\"flatten_data\": false}", "cvm.json.type", "'conv1'"},
    {SHIFT_OPATTRS, "\"{\\\"precision\\\": 8, \\\"shift_bit\\\": \\\"2\\\"}\"",
     "cvm.json.type", "'shift1'"},
    {SHIFT_OPATTRS, "\"{\\\"precision\\\": \\\"8\\\", \\\"shift_bit\\\": [2]}\"",
     "cvm.json.type", "'shift1'"},
    {"\"name\": \"w\", \"inputs\": []", "\"name\": \"w\", \"inputs\": [], \"attrs\": {}",
     "cvm.json.missing", "'w'"},
    {"\"name\": \"w\"", "\"name\": \"w\", \"precision\": \"8\"", "cvm.json.type", "'w'"},
    {"[8, 8, 19, 8]", "[8, -1, 19, 8]", "cvm.precision.missing", "'w'"},
    {"[8, 8, 19, 8]", "[8, 0, 19, 8]", "cvm.precision.range", "precision"},
    {"conv2d", "conv2d_x", "cvm.op.unknown", "conv2d_x"},
    /* the taskir input mark: w an input, data (unmarked) a parameter without params */
    {"\"{}\", \"{}\"", "\"{}\", \"{\\\"taskir_input\\\": \\\"1\\\"}\"",
     "cvm.params.missing", "'data'"},
};

static void test_invalid_models(void **state)
{
    (void)state;
    uint8_t *pb;
    size_t pl;
    base_params(&pb, &pl);
    for (size_t i = 0; i < sizeof bads / sizeof *bads; i++) {
        char *j = patched(base_json, bads[i].find, bads[i].repl);
        OpGraph *g;
        Diag d;
        Status st = load(j, strlen(j), pb, pl, &g, &d);
        if (st != ST_LOGIC) {
            fprintf(stderr, "case %zu (%s): status %d\n", i, bads[i].rule, (int)st);
            diag_print(&d, stderr, "test");
        }
        assert_int_equal(st, ST_LOGIC);
        expect_rule(&d, bads[i].rule, bads[i].name);
        og_destroy(g);
        diag_finish(&d);
        free(j);
    }
    free(pb);
}

/* Variants cvm-runtime's loader accepts load here too. */
static const Bad goods[] = {
    {"\"version\": \"cvm_1.0.0\"", "\"postprocess\": \"detection\"", NULL, NULL},
    {"\"name\": \"w\"", "\"name\": \"w\", \"precision\": 8", NULL, NULL},
    {"\"inputs\": [[2, 0, 0]]", "\"inputs\": [[2, 0]]", NULL, NULL},
    {"\"list_int\", [0, 1, 2, 3]", "\"list_int\", [0, 1, 2, 2]", NULL, NULL},
    {"\"list_int\", [0, 1, 2, 3]", "\"list_int\", [0, 1, 2, 1]", NULL, NULL},
    {"\"list_int\", [0, 1, 2, 3]", "\"list_int\", [3, 1, 2, 0]", NULL, NULL},
    {STORAGE, STORAGE "  \"device_index\": [\"list_int\", []],\n", NULL, NULL},
    {STORAGE, STORAGE "  \"dtype\": [\"list_int\", [4, 4, 4, 4]],\n", NULL, NULL},
    {STORAGE, STORAGE "  \"dtype\": [\"list_str\", 4],\n", NULL, NULL},
    {"\"func_name\": \"conv2d\"", "\"func_name\": \"conv2d_12\"", NULL, NULL},
    {"\"func_name\": \"cvm_right_shift\"", "\"func_name\": \"cvm_right_shift_\"", NULL, NULL},
    {"\"flatten_data\": \"0\"}", "\"flatten_data\": \"0\", \"op_attrs\": \"{}\"}", NULL, NULL},
    {"\"name\": \"w\", \"inputs\": []",
     "\"name\": \"w\", \"inputs\": [], \"attrs\": {\"func_name\": \"null\"}", NULL, NULL},
    {"\"name\": \"shift1\"", "\"name\": \"shift\xc3\xa9 \\\"1\\\" \\\\ \\t\"", NULL, NULL},
    /* a mark only in an entry of at most 64 bytes: w stays a parameter */
    {"\"{}\", \"{}\"", "\"{}\", \"{\\\"taskir_input\\\": \\\"1\\\", \\\"note\\\": "
     "\\\"a long entry of a null node, which cvm-runtime ignores\\\"}\"", NULL, NULL},
    /* cvm_1.1.0: cvm-runtime derives arg_nodes and ignores dltype (node_row_ptr it needs:
     * without one it crashes) */
    {"cvm_1.0.0", "cvm_1.1.0", NULL, NULL},
};

static const Bad goods_v110[] = {
    {"\"arg_nodes\": [0, 1],", "", NULL, NULL},
    {"  \"dltype\": [\"list_str\", " DLTYPES "],\n", "", NULL, NULL},
    {DLTYPES, "[\"int32\", \"int8\", \"int32\", \"int32\"]", NULL, NULL},
};

static void test_valid_variants(void **state)
{
    (void)state;
    uint8_t *pb;
    size_t pl;
    base_params(&pb, &pl);
    char *v110 = patched(base_json, "cvm_1.0.0", "cvm_1.1.0");
    size_t ng = sizeof goods / sizeof *goods, n = ng + sizeof goods_v110 / sizeof *goods_v110;
    for (size_t i = 0; i < n; i++) {
        const Bad *c = i < ng ? &goods[i] : &goods_v110[i - ng];
        char *j = patched(i < ng ? base_json : v110, c->find, c->repl);
        OpGraph *g;
        Diag d;
        Status st = load(j, strlen(j), pb, pl, &g, &d);
        if (st != ST_OK) {
            fprintf(stderr, "valid case %zu: status %d\n", i, (int)st);
            diag_print(&d, stderr, "test");
        }
        assert_int_equal(st, ST_OK);
        og_destroy(g);
        diag_finish(&d);
        free(j);
    }
    free(v110);
    free(pb);
}

/* More nodes than CVM_MAX_NODES; more containers than CVM_MAX_JSON_CONTAINERS. */
static void test_size_limits(void **state)
{
    (void)state;
    const char *node = "{\"op\":\"null\",\"name\":\"a\",\"inputs\":[]},";
    size_t n = (size_t)CVM_MAX_NODES + 1, nl = strlen(node);
    char *j = malloc(n * nl + 128);
    assert_non_null(j);
    char *p = j + sprintf(j, "{\"version\":\"cvm_1.0.0\",\"nodes\":[");
    for (size_t i = 0; i < n; i++, p += nl)
        memcpy(p, node, nl);
    p[-1] = ']';
    strcpy(p, ",\"arg_nodes\":[],\"heads\":[]}");
    OpGraph *g;
    Diag d;
    assert_int_equal(load(j, strlen(j), NULL, 0, &g, &d), ST_LOGIC);
    expect_rule(&d, "cvm.limit.nodes", NULL);
    diag_finish(&d);
    free(j);
    size_t c = (size_t)CVM_MAX_JSON_CONTAINERS + 1;
    j = malloc(3 * c + 8);
    assert_non_null(j);
    j[0] = '[';
    for (size_t i = 0; i < c - 1; i++)
        memcpy(j + 1 + 3 * i, "[],", 3);
    j[3 * (c - 1)] = ']';
    assert_int_equal(load(j, 3 * (c - 1) + 1, NULL, 0, &g, &d), ST_LOGIC);
    expect_rule(&d, "cvm.limit.json", NULL);
    diag_finish(&d);
    free(j);
}

/* More null nodes marked inputs (the taskir extension) than CVM_MAX_MODEL_INPUTS. */
static void test_too_many_inputs(void **state)
{
    (void)state;
    size_t n = CVM_MAX_MODEL_INPUTS + 1, cap = n * 170 + 256, at = 0;
    char *j = malloc(cap);
    assert_non_null(j);
#define PUT(...) (at += (size_t)snprintf(j + at, cap - at, __VA_ARGS__))
    PUT("{\"version\": \"cvm_1.1.0\", \"heads\": [[0, 0, 0]], \"nodes\": [");
    for (size_t i = 0; i < n; i++)
        PUT("%s{\"op\": \"null\", \"name\": \"in%zu\", \"inputs\": []}", i ? ", " : "", i);
    PUT("], \"node_row_ptr\": [");
    for (size_t i = 0; i <= n; i++)
        PUT("%s%zu", i ? ", " : "", i);
    PUT("], \"attrs\": {\"shape\": [\"list_shape\", [");
    for (size_t i = 0; i < n; i++)
        PUT("%s[1]", i ? ", " : "");
    PUT("]], \"precision\": [\"list_int\", [");
    for (size_t i = 0; i < n; i++)
        PUT("%s8", i ? ", " : "");
    PUT("]], \"storage_id\": [\"list_int\", [");
    for (size_t i = 0; i < n; i++)
        PUT("%s%zu", i ? ", " : "", i);
    PUT("]], \"op_attrs\": [\"list_str\", [");
    for (size_t i = 0; i < n; i++)
        PUT("%s\"{\\\"taskir_input\\\": \\\"1\\\"}\"", i ? ", " : "");
    PUT("]]}}");
#undef PUT
    assert_true(at < cap);
    OpGraph *g;
    Diag d;
    assert_int_equal(load(j, at, NULL, 0, &g, &d), ST_LOGIC);
    expect_rule(&d, "cvm.limit.inputs", NULL);
    diag_finish(&d);
    /* one fewer is a model with 256 inputs */
    char *last = strstr(j, "\"in256\"");
    assert_non_null(last);
    memcpy(last, "\"in2x6\"", 7);
    char *mark = strrchr(j, '{');
    assert_non_null(mark);
    strcpy(mark, "{}\"]]}}"); /* the last entry (at the end of the text) unmarked */
    assert_int_equal(load(j, strlen(j), NULL, 0, &g, &d), ST_LOGIC);
    expect_rule(&d, "cvm.params.missing", "in2x6");
    diag_finish(&d);
    free(j);
}

/* No null node named data: the model has no input (here every null node is a parameter). */
static void test_no_input(void **state)
{
    (void)state;
    int32_t x[9] = {0};
    CvmParam p[2] = {{"w", {{4, {1, 1, 2, 2}}, 4, w_vals}, 8},
                     {"input", {{4, {1, 1, 3, 3}}, 9, x}, 8}};
    uint8_t *pb;
    size_t pl;
    encode_params(p, 2, &pb, &pl);
    char *j = patched(base_json, "\"name\": \"data\"", "\"name\": \"input\"");
    OpGraph *g;
    Diag d;
    assert_int_equal(load(j, strlen(j), pb, pl, &g, &d), ST_LOGIC);
    expect_rule(&d, "cvm.input.missing", "'data'");
    diag_finish(&d);
    free(j);
    free(pb);
}

/* ---- params ---- */

static void test_params_roundtrip(void **state)
{
    (void)state;
    int32_t a[6] = {-128, 127, 0, -1, 5, 99}, b[3] = {INT32_MIN + 1, INT32_MAX, -7};
    CvmParam in[2] = {{"conv1_weight", {{2, {2, 3}}, 6, a}, 8}, {"bias", {{1, {3}}, 3, b}, 32}};
    uint8_t *buf;
    size_t len;
    encode_params(in, 2, &buf, &len);
    assert_int_equal(len, 32 + (8 + 12 + 40 + 16 + 6) + (8 + 4 + 40 + 8 + 12));
    CvmParams out;
    Diag d;
    diag_init(&d, NULL);
    assert_int_equal(fe_cvm_params_parse(buf, len, "p", &out, &d), ST_OK);
    assert_int_equal(out.n, 2);
    for (int k = 0; k < 2; k++) {
        assert_string_equal(out.p[k].name, in[k].name);
        assert_int_equal(out.p[k].bits, in[k].bits);
        assert_true(og_shape_eq(&out.p[k].t.shape, &in[k].t.shape));
        assert_memory_equal(out.p[k].t.data, in[k].t.data, (size_t)in[k].t.count * 4);
    }
    fe_cvm_params_free(&out);
    fe_cvm_params_free(&out); /* idempotent */
    /* little-endian on the wire: the int32 -7 is F9 FF FF FF, last in the file */
    assert_int_equal(buf[len - 4], 0xF9);
    assert_int_equal(buf[len - 1], 0xFF);
    /* an empty params file is valid */
    free(buf);
    encode_params(NULL, 0, &buf, &len);
    assert_int_equal(len, 32);
    assert_int_equal(fe_cvm_params_parse(buf, len, "p", &out, &d), ST_OK);
    assert_int_equal(out.n, 0);
    fe_cvm_params_free(&out);
    free(buf);
    diag_finish(&d);
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

typedef struct BadParam {
    size_t off;             /* byte to patch in the base params image */
    int width;              /* 1, 4 or 8 bytes; 0: truncate to off; -1: append a byte */
    uint64_t value;
    const char *rule;
} BadParam;

/* Base image layout: 0 magic, 8 reserved, 16 name count, 24 name length, 32 "w", 33 array
 * count, 41 array magic, 49 reserved, 57 device type, 61 device id, 65 ndim, 69 type code,
 * 70 bits, 71 lanes, 73 shape[4], 105 nbytes, 113 data (4 bytes), 117 end. */
static const BadParam bad_params[] = {
    {0, 1, 0x00, "cvm.params.magic"},
    {41, 1, 0x00, "cvm.params.magic"},
    {16, 8, UINT64_C(1) << 60, "cvm.params.format"},
    {16, 8, 2, "cvm.params.format"},
    {24, 8, UINT64_C(0xFFFFFFFFFFFFFFFF), "cvm.params.format"},
    {33, 8, 2, "cvm.params.format"},
    {105, 8, 5, "cvm.params.format"},
    {105, 8, UINT64_C(1) << 62, "cvm.params.format"},
    {117, -1, 0, "cvm.params.format"},
    {60, 0, 0, "cvm.params.format"},
    {115, 0, 0, "cvm.params.format"},
    {57, 4, 2, "cvm.params.device"},  /* kDLGPU */
    {57, 4, 0, "cvm.params.device"},
    {69, 1, 2, "cvm.params.dtype"},
    {70, 1, 16, "cvm.params.dtype"},
    {71, 1, 2, "cvm.params.dtype"},
    {65, 4, 0, "cvm.limit.ndim"},
    {65, 4, 7, "cvm.limit.ndim"},
    {65, 4, 0x80000000u, "cvm.limit.ndim"},
    {73, 8, 0, "cvm.limit.dim"},
    {73, 8, UINT64_C(0xFFFFFFFFFFFFFFFF), "cvm.limit.dim"},
    {73, 8, 1 << 24, "cvm.params.format"}, /* dim 2^24 is fine; nbytes no longer matches */
};

static void test_params_invalid(void **state)
{
    (void)state;
    uint8_t *pb;
    size_t pl;
    base_params(&pb, &pl);
    assert_int_equal(pl, 117);
    for (size_t i = 0; i < sizeof bad_params / sizeof *bad_params; i++) {
        const BadParam *b = &bad_params[i];
        uint8_t img[128];
        size_t len = pl;
        memcpy(img, pb, pl);
        if (b->width == 0)
            len = b->off;
        else if (b->width == -1)
            img[len++] = 0;
        else if (b->width == 1)
            img[b->off] = (uint8_t)b->value;
        else if (b->width == 4)
            for (int k = 0; k < 4; k++)
                img[b->off + k] = (uint8_t)(b->value >> (8 * k));
        else
            put64(img + b->off, b->value);
        CvmParams out;
        Diag d;
        diag_init(&d, NULL);
        Status st = fe_cvm_params_parse(img, len, "model.params", &out, &d);
        const char *rule = b->rule;
        if (st != ST_LOGIC || diag_find(&d, rule) < 0) {
            fprintf(stderr, "params case %zu (%s): status %d\n", i, rule, (int)st);
            diag_print(&d, stderr, "test");
        }
        assert_int_equal(st, ST_LOGIC);
        expect_rule(&d, rule, "model.params");
        assert_null(out.p);
        diag_finish(&d);
    }
    /* duplicate names */
    CvmParam two[2] = {{"w", {{1, {1}}, 1, w_vals}, 8}, {"w", {{1, {1}}, 1, w_vals}, 8}};
    uint8_t *buf;
    size_t len;
    encode_params(two, 2, &buf, &len);
    CvmParams out;
    Diag d;
    diag_init(&d, NULL);
    assert_int_equal(fe_cvm_params_parse(buf, len, "model.params", &out, &d), ST_LOGIC);
    expect_rule(&d, "cvm.params.duplicate", "'w'");
    diag_finish(&d);
    free(buf);
    /* every params entry is a parameter of the graph (cvm-runtime's LoadParams refuses a
     * name that is no graph variable): not an unknown name, not the input */
    static const char *const extra[] = {"zz", "data"};
    for (size_t k = 0; k < 2; k++) {
        CvmParam wz[2] = {{"w", {{4, {1, 1, 2, 2}}, 4, w_vals}, 8},
                          {extra[k], {{1, {1}}, 1, w_vals}, 8}};
        encode_params(wz, 2, &buf, &len);
        OpGraph *g;
        assert_int_equal(load(base_json, strlen(base_json), buf, len, &g, &d), ST_LOGIC);
        expect_rule(&d, "cvm.params.unknown", extra[k]);
        diag_finish(&d);
        free(buf);
    }
    /* the model reader reports the params file's findings */
    pb[0] ^= 1;
    OpGraph *g;
    assert_int_equal(load(base_json, strlen(base_json), pb, pl, &g, &d), ST_LOGIC);
    expect_rule(&d, "cvm.params.magic", "model.params");
    diag_finish(&d);
    free(pb);
}

/* ---- run-time rules ---- */

static void test_run_rules(void **state)
{
    (void)state;
    uint8_t *pb;
    size_t pl;
    base_params(&pb, &pl);
    OpGraph *g;
    Diag d;
    assert_int_equal(load(base_json, strlen(base_json), pb, pl, &g, &d), ST_OK);
    int32_t x[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    OgTensor out = {{0}, 0, NULL};
    OgTensor bad_shape = {{4, {1, 1, 3, 4}}, 12, x};
    assert_int_equal(fe_interp_run(g, &bad_shape, 1, &out, &d), ST_LOGIC);
    expect_rule(&d, "cvm.input.shape", "'data'");
    assert_null(out.data);
    x[4] = 128; /* outside precision 8 */
    OgTensor bad_val = {{4, {1, 1, 3, 3}}, 9, x};
    assert_int_equal(fe_interp_run(g, &bad_val, 1, &out, &d), ST_LOGIC);
    expect_rule(&d, "cvm.input.range", "'data'");
    assert_int_equal(fe_interp_run(g, NULL, 0, &out, &d), ST_LOGIC);
    expect_rule(&d, "cvm.input.missing", NULL);
    /* a precision smaller than the values breaks the interpreter's invariant check */
    x[4] = 5;
    g->nodes[3]->out_prec[0] = 2;
    assert_int_equal(fe_interp_run(g, &bad_val, 1, &out, &d), ST_RUNTIME);
    expect_rule(&d, "cvm.interp.invariant", "'shift1'");
    assert_null(out.data);
    og_destroy(g);
    OpGraph *other = og_create("onnx");
    assert_int_equal(fe_interp_run(other, NULL, 0, NULL, &d), ST_RUNTIME);
    expect_rule(&d, "interp.dialect", NULL);
    og_destroy(other);
    diag_finish(&d);
    free(pb);
}

/* An .npy input, as taskir-run will feed it. */
static void test_npy_input(void **state)
{
    (void)state;
    uint8_t *pb, *nb;
    size_t pl, nl;
    base_params(&pb, &pl);
    OpGraph *g;
    Diag d;
    assert_int_equal(load(base_json, strlen(base_json), pb, pl, &g, &d), ST_OK);
    int32_t x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    int64_t shape[4] = {1, 1, 3, 3};
    assert_int_equal(npy_encode_i32(x, shape, 4, &nb, &nl, &d), ST_OK);
    NpyArray a;
    assert_int_equal(npy_read_mem(nb, nl, &a, &d), ST_OK);
    OgTensor in, out;
    assert_int_equal(fe_tensor_from_npy(&a, "data", &in, &d), ST_OK);
    int32_t k = og_find_input(g, "data");
    assert_int_equal(k, 0);
    assert_int_equal(fe_interp_run(g, &in, 1, &out, &d), ST_OK);
    assert_int_equal(out.data[3], 4);
    og_tensor_free(&out);
    npy_free(&a);
    free(nb);
    int64_t seven[7] = {1, 1, 1, 1, 1, 3, 3};
    assert_int_equal(npy_encode_i32(x, seven, 7, &nb, &nl, &d), ST_OK);
    assert_int_equal(npy_read_mem(nb, nl, &a, &d), ST_OK);
    assert_int_equal(fe_tensor_from_npy(&a, "data", &in, &d), ST_LOGIC);
    expect_rule(&d, "cvm.input.shape", "data");
    npy_free(&a);
    free(nb);
    og_destroy(g);
    diag_finish(&d);
    free(pb);
}

/* ---- robustness: nothing crashes, everything malformed is a logic error ---- */

static void test_truncated(void **state)
{
    (void)state;
    uint8_t *pb;
    size_t pl;
    base_params(&pb, &pl);
    size_t jl = strlen(base_json);
    for (size_t n = 0; n < jl; n++) {
        OpGraph *g;
        Diag d;
        Status st = load(base_json, n, pb, pl, &g, &d);
        /* a prefix that ends inside trailing whitespace is the whole document */
        if (n >= jl - 1 && st == ST_OK) {
            og_destroy(g);
        } else {
            if (st != ST_LOGIC)
                fprintf(stderr, "json prefix %zu: status %d\n", n, (int)st);
            assert_int_equal(st, ST_LOGIC);
        }
        diag_finish(&d);
    }
    for (size_t n = 0; n < pl; n++) {
        OpGraph *g;
        Diag d;
        assert_int_equal(load(base_json, jl, pb, n, &g, &d), ST_LOGIC);
        diag_finish(&d);
    }
    free(pb);
}

static uint32_t rng(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static void test_corrupted(void **state)
{
    (void)state;
    uint8_t *pb;
    size_t pl;
    base_params(&pb, &pl);
    size_t jl = strlen(base_json);
    /* every byte of the params, changed */
    for (size_t i = 0; i < pl; i++)
        for (int m = 0; m < 3; m++) {
            static const uint8_t masks[3] = {0x01, 0x80, 0xFF};
            pb[i] ^= masks[m];
            OpGraph *g;
            Diag d;
            Status st = load(base_json, jl, pb, pl, &g, &d);
            assert_true(st == ST_OK || st == ST_LOGIC);
            og_destroy(g);
            diag_finish(&d);
            pb[i] ^= masks[m];
        }
    /* every byte of the JSON, replaced by a few troublesome characters */
    char *j = malloc(jl + 1);
    assert_non_null(j);
    static const char repl[] = {'"', '[', '{', '}', '0', '-', '\\', '\0', ',', 'x'};
    for (size_t i = 0; i < jl; i++)
        for (size_t m = 0; m < sizeof repl; m++) {
            memcpy(j, base_json, jl + 1);
            j[i] = repl[m];
            OpGraph *g;
            Diag d;
            Status st = load(j, jl, pb, pl, &g, &d);
            assert_true(st == ST_OK || st == ST_LOGIC);
            og_destroy(g);
            diag_finish(&d);
        }
    free(j);
    /* random garbage */
    uint32_t seed = 12345;
    uint8_t junk[512];
    for (int t = 0; t < 500; t++) {
        size_t n = rng(&seed) % sizeof junk;
        for (size_t i = 0; i < n; i++)
            junk[i] = (uint8_t)rng(&seed);
        OpGraph *g;
        Diag d;
        assert_int_equal(load((const char *)junk, n, NULL, 0, &g, &d), ST_LOGIC);
        diag_finish(&d);
        CvmParams ps;
        diag_init(&d, NULL);
        assert_int_equal(fe_cvm_params_parse(junk, n, "junk", &ps, &d), ST_LOGIC);
        diag_finish(&d);
    }
    free(pb);
}

static void test_nesting_and_big_numbers(void **state)
{
    (void)state;
    size_t n = 100000;
    char *deep = malloc(2 * n + 1);
    assert_non_null(deep);
    memset(deep, '[', n);
    memset(deep + n, ']', n);
    deep[2 * n] = 0;
    OpGraph *g;
    Diag d;
    assert_int_equal(load(deep, 2 * n, NULL, 0, &g, &d), ST_LOGIC);
    expect_rule(&d, "cvm.json.syntax", NULL);
    diag_finish(&d);
    /* nesting inside an op_attrs string */
    char nested[600] = "\"{";
    for (int i = 0; i < 40; i++)
        strcat(nested, "\\\"a\\\": {");
    strcat(nested, "\"");
    char *j = patched(base_json, SHIFT_OPATTRS, nested);
    uint8_t *pb;
    size_t pl;
    base_params(&pb, &pl);
    assert_int_equal(load(j, strlen(j), pb, pl, &g, &d), ST_LOGIC);
    expect_rule(&d, "cvm.json.syntax", "'shift1'");
    diag_finish(&d);
    free(j);
    /* numbers json-c cannot hold, and non-integers */
    static const char *const nums[] = {"99999999999999999999999", "1e308", "-0.5", "true",
                                       "null", "\"3\""};
    for (size_t i = 0; i < sizeof nums / sizeof *nums; i++) {
        char rep[64];
        snprintf(rep, sizeof rep, "[[%s, 0, 0]]", nums[i]);
        j = patched(base_json, "[[2, 0, 0]]", rep);
        assert_int_equal(load(j, strlen(j), pb, pl, &g, &d), ST_LOGIC);
        diag_finish(&d);
        free(j);
        snprintf(rep, sizeof rep, "[1, 1, 3, %s]", nums[i]);
        j = patched(base_json, "[1, 1, 3, 3]", rep);
        assert_int_equal(load(j, strlen(j), pb, pl, &g, &d), ST_LOGIC);
        diag_finish(&d);
        free(j);
    }
    /* a tuple attribute longer than any allowed */
    j = patched(base_json, "\\\"shift_bit\\\": \\\"2\\\"",
                "\\\"shift_bit\\\": \\\"(1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,"
                "1,1,1,1,1,1,1,1,1,1,1,1,1)\\\"");
    assert_int_equal(load(j, strlen(j), pb, pl, &g, &d), ST_LOGIC);
    expect_rule(&d, "cvm.attr.shift_bit", "'shift1'");
    diag_finish(&d);
    free(j);
    free(deep);
    free(pb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_and_run),
        cmocka_unit_test(test_invalid_models),
        cmocka_unit_test(test_valid_variants),
        cmocka_unit_test(test_size_limits),
        cmocka_unit_test(test_no_input),
        cmocka_unit_test(test_too_many_inputs),
        cmocka_unit_test(test_params_roundtrip),
        cmocka_unit_test(test_params_invalid),
        cmocka_unit_test(test_run_rules),
        cmocka_unit_test(test_npy_input),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_corrupted),
        cmocka_unit_test(test_nesting_and_big_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
