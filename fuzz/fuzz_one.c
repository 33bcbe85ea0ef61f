/* fuzz_one.c: the bodies of the fuzz targets (see fuzz_one.h). Plain C against the public
 * library API; nothing here knows libFuzzer, so the regression test links the same code. */
#include "fuzz_one.h"

#include "frontend/cinn/cinn.h"
#include "frontend/cvm/cvm.h"
#include "frontend/onnx/onnx.h"
#include "taskir/chip_cost.h"
#include "taskir/mapping.h"
#include "taskir/npy.h"
#include "taskir/pbio.h"
#include "taskir/print.h"
#include "taskir/print_chip.h"
#include "taskir/verify.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static FzResult broken(FzCtx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static FzResult broken(FzCtx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof c->why, fmt, ap);
    va_end(ap);
    return FZ_BROKEN;
}

/* Classifies what a library call returned: ST_OK accepted; a logic error with well-formed
 * diagnostics rejected; anything else broken. Prints the diagnostics to the sink. */
static FzResult settle(FzCtx *c, Status st, const Diag *d, const char *call)
{
    if (c->sink)
        diag_print(d, c->sink, "fuzz");
    if (st == ST_OK)
        return FZ_ACCEPTED;
    if (st != ST_LOGIC)
        return broken(c, "%s: status %d on an in-memory input (%s: %s) [%s]", call, (int)st,
                      d->n ? d->entries[0].rule : "-", d->n ? d->entries[0].what : "-",
                      d->n ? d->entries[0].rule : "no diagnostic");
    if (d->n == 0 && d->dropped == 0)
        return broken(c, "%s: a logic error without a diagnostic", call);
    if (d->worst != st)
        return broken(c, "%s: returned %d, the diagnostics' worst status is %d", call, (int)st,
                      (int)d->worst);
    for (size_t i = 0; i < d->n; i++)
        if (!d->entries[i].rule[0] || !d->entries[i].what)
            return broken(c, "%s: diagnostic %zu has no rule id or no text", call, i);
    return FZ_REJECTED;
}

/* ---- TaskGraph ---- */

/* The printers must accept any graph the loader accepts (taskir-dump prints unverified
 * graphs); a logic error is tolerated only when properly reported. */
static FzResult print_all(FzCtx *c, const Graph *g)
{
    if (!c->sink)
        return FZ_ACCEPTED;
    static const struct {
        const char *name;
        int kind; /* 0 graph, 1 summary, 2 first block */
        PrintFormat f;
    } runs[] = {
        {"print_graph(text)", 0, PF_TEXT},   {"print_graph(json)", 0, PF_JSON},
        {"print_graph(dot)", 0, PF_DOT},     {"print_summary(text)", 1, PF_TEXT},
        {"print_summary(json)", 1, PF_JSON}, {"print_block(text)", 2, PF_TEXT},
        {"print_block(json)", 2, PF_JSON},   {"print_block(dot)", 2, PF_DOT},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        Diag d;
        diag_init(&d, "fuzz.pb");
        Status st;
        if (runs[i].kind == 0)
            st = print_graph(g, runs[i].f, c->sink, &d);
        else if (runs[i].kind == 1)
            st = print_summary(g, runs[i].f, c->sink, &d);
        else if (g->n_blocks)
            st = print_block(g, g->blocks[0]->id, runs[i].f, c->sink, &d);
        else
            st = ST_OK;
        FzResult r = settle(c, st, &d, runs[i].name);
        diag_finish(&d);
        if (r == FZ_BROKEN)
            return r;
    }
    return FZ_ACCEPTED;
}

/* pack(load(pack(g))) must equal pack(g). */
static FzResult round_trip(FzCtx *c, const Graph *g)
{
    Diag d;
    diag_init(&d, "fuzz.pb");
    uint8_t *b1 = NULL, *b2 = NULL;
    size_t n1 = 0, n2 = 0;
    Graph *g2 = NULL;
    FzResult r = FZ_ACCEPTED;
    if (graph_pack(g, &b1, &n1, &d) != ST_OK)
        r = broken(c, "graph_pack failed on a loaded graph");
    else if (graph_load_pb_mem(b1, n1, &g2, &d) != ST_OK)
        r = broken(c, "graph_load_pb_mem rejects what graph_pack wrote: %s [%s]",
                   d.n ? d.entries[0].what : "-", d.n ? d.entries[0].rule : "-");
    else if (graph_pack(g2, &b2, &n2, &d) != ST_OK)
        r = broken(c, "graph_pack failed on a reloaded graph");
    else if (n1 != n2 || memcmp(b1, b2, n1) != 0)
        r = broken(c, "graph_pack round trip differs: %zu bytes, then %zu bytes", n1, n2);
    graph_destroy(g2);
    free(b1);
    free(b2);
    diag_finish(&d);
    return r;
}

FzResult fz_taskgraph(FzCtx *c, const uint8_t *data, size_t len)
{
    Diag d;
    diag_init(&d, "fuzz.pb");
    Graph *g = NULL;
    Status st = graph_load_pb_mem(data, len, &g, &d);
    FzResult r = settle(c, st, &d, "graph_load_pb_mem");
    diag_finish(&d);
    if (r == FZ_ACCEPTED && !g)
        r = broken(c, "graph_load_pb_mem: ST_OK without a graph");
    if (r != FZ_ACCEPTED) {
        if (g && r != FZ_BROKEN)
            r = broken(c, "graph_load_pb_mem: a graph left behind on failure");
        graph_destroy(g);
        return r;
    }
    diag_init(&d, "fuzz.pb");
    st = verify_graph(g, &d);
    r = settle(c, st, &d, "verify_graph");
    diag_finish(&d);
    if (r != FZ_BROKEN)
        r = print_all(c, g);
    if (r != FZ_BROKEN)
        r = round_trip(c, g);
    graph_destroy(g);
    return r;
}

/* ---- Mapping ---- */

/* The printers must accept any mapping the loader accepts (taskir-dump prints unverified
 * ones). */
static FzResult print_mapping_all(FzCtx *c, const Mapping *m)
{
    if (!c->sink)
        return FZ_ACCEPTED;
    static const struct {
        const char *name;
        int kind; /* 0 mapping, 1 summary, 2 first block */
        PrintFormat f;
    } runs[] = {
        {"print_mapping(text)", 0, PF_TEXT},    {"print_mapping(json)", 0, PF_JSON},
        {"print_mapping(dot)", 0, PF_DOT},      {"print_map_summary(text)", 1, PF_TEXT},
        {"print_map_summary(json)", 1, PF_JSON}, {"print_mapping(text, block)", 2, PF_TEXT},
        {"print_mapping(json, block)", 2, PF_JSON},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        Diag d;
        diag_init(&d, "fuzz.map.pb");
        Status st;
        if (runs[i].kind == 0)
            st = print_mapping(m, runs[i].f, false, 0, c->sink, &d);
        else if (runs[i].kind == 1)
            st = print_map_summary(m, runs[i].f, c->sink, &d);
        else if (m->graph->n_blocks)
            st = print_mapping(m, runs[i].f, true, m->graph->blocks[0]->id, c->sink, &d);
        else
            st = ST_OK;
        FzResult r = settle(c, st, &d, runs[i].name);
        diag_finish(&d);
        if (r == FZ_BROKEN)
            return r;
    }
    return FZ_ACCEPTED;
}

/* mapping_pack(load(mapping_pack(m))) must equal mapping_pack(m). */
static FzResult map_round_trip(FzCtx *c, const Mapping *m)
{
    Diag d;
    diag_init(&d, "fuzz.map.pb");
    uint8_t *b1 = NULL, *b2 = NULL;
    size_t n1 = 0, n2 = 0;
    Mapping *m2 = NULL;
    FzResult r = FZ_ACCEPTED;
    if (mapping_pack(m, &b1, &n1, &d) != ST_OK)
        r = broken(c, "mapping_pack failed on a loaded mapping");
    else if (mapping_load_pb_mem(b1, n1, &m2, &d) != ST_OK)
        r = broken(c, "mapping_load_pb_mem rejects what mapping_pack wrote: %s [%s]",
                   d.n ? d.entries[0].what : "-", d.n ? d.entries[0].rule : "-");
    else if (mapping_pack(m2, &b2, &n2, &d) != ST_OK)
        r = broken(c, "mapping_pack failed on a reloaded mapping");
    else if (n1 != n2 || memcmp(b1, b2, n1) != 0)
        r = broken(c, "mapping_pack round trip differs: %zu bytes, then %zu bytes", n1, n2);
    mapping_destroy(m2);
    free(b1);
    free(b2);
    diag_finish(&d);
    return r;
}

FzResult fz_mapping(FzCtx *c, const uint8_t *data, size_t len)
{
    Diag d;
    diag_init(&d, "fuzz.map.pb");
    Mapping *m = NULL;
    Status st = mapping_load_pb_mem(data, len, &m, &d);
    FzResult r = settle(c, st, &d, "mapping_load_pb_mem");
    diag_finish(&d);
    if (r == FZ_ACCEPTED && (!m || !m->graph))
        r = broken(c, "mapping_load_pb_mem: ST_OK without a mapping or its graph");
    if (r != FZ_ACCEPTED) {
        if (m && r != FZ_BROKEN)
            r = broken(c, "mapping_load_pb_mem: a mapping left behind on failure");
        mapping_destroy(m);
        return r;
    }
    diag_init(&d, "fuzz.map.pb");
    st = verify_mapping(m, &d);
    r = settle(c, st, &d, "verify_mapping");
    diag_finish(&d);
    if (r != FZ_BROKEN)
        r = print_mapping_all(c, m);
    if (r != FZ_BROKEN)
        r = map_round_trip(c, m);
    mapping_destroy(m);
    return r;
}

/* ---- .npy ---- */

FzResult fz_npy(FzCtx *c, const uint8_t *data, size_t len)
{
    Diag d;
    diag_init(&d, "fuzz.npy");
    NpyArray a;
    Status st = npy_read_mem(data, len, &a, &d);
    FzResult r = settle(c, st, &d, "npy_read_mem");
    if (r != FZ_ACCEPTED) {
        if (r != FZ_BROKEN && (a.i32 || a.f32))
            r = broken(c, "npy_read_mem: data left behind on failure");
        npy_free(&a);
        diag_finish(&d);
        return r;
    }
    int64_t count = 1;
    for (uint32_t i = 0; i < a.ndim; i++)
        count *= a.shape[i];
    if (a.ndim > NPY_MAX_DIMS || count != a.count || count > TIR_MAX_NPY_ELEMS)
        r = broken(c, "npy_read_mem: ndim %u, count %lld inconsistent with the shape",
                   (unsigned)a.ndim, (long long)a.count);
    else if ((a.dtype == NPY_F32) != (a.f32 != NULL) || (a.dtype == NPY_F32) == (a.i32 != NULL))
        r = broken(c, "npy_read_mem: dtype %s but i32=%p f32=%p", npy_dtype_name(a.dtype),
                   (void *)a.i32, (void *)a.f32);
    if (r == FZ_ACCEPTED && a.i32) {
        uint8_t *buf = NULL;
        size_t blen = 0;
        NpyArray b;
        memset(&b, 0, sizeof b);
        if (npy_encode_i32(a.i32, a.shape, a.ndim, &buf, &blen, &d) != ST_OK)
            r = broken(c, "npy_encode_i32 failed on an array that was read");
        else if (npy_read_mem(buf, blen, &b, &d) != ST_OK)
            r = broken(c, "npy_read_mem rejects what npy_encode_i32 wrote: %s [%s]",
                       d.n ? d.entries[d.n - 1].what : "-", d.n ? d.entries[d.n - 1].rule : "-");
        else if (b.dtype != NPY_I32 || b.ndim != a.ndim || b.count != a.count ||
                 memcmp(b.shape, a.shape, sizeof a.shape) != 0 || !b.i32 ||
                 memcmp(b.i32, a.i32, (size_t)a.count * sizeof *a.i32) != 0)
            r = broken(c, "npy round trip differs (dtype %s, ndim %u/%u, count %lld/%lld)",
                       npy_dtype_name(b.dtype), (unsigned)a.ndim, (unsigned)b.ndim,
                       (long long)a.count, (long long)b.count);
        npy_free(&b);
        free(buf);
    }
    npy_free(&a);
    diag_finish(&d);
    return r;
}

/* ---- CVM ---- */

/* parse(encode(parse(x))) must equal parse(x). */
static FzResult params_round_trip(FzCtx *c, const uint8_t *p, size_t len)
{
    Diag d;
    diag_init(&d, "fuzz.params");
    CvmParams a = {0}, b = {0};
    Status st = fe_cvm_params_parse(p, len, "fuzz.params", &a, &d);
    FzResult r = settle(c, st, &d, "fe_cvm_params_parse");
    if (r == FZ_ACCEPTED) {
        uint8_t *buf = NULL;
        size_t blen = 0;
        if (fe_cvm_params_encode(a.p, a.n, &buf, &blen, &d) != ST_OK)
            r = broken(c, "fe_cvm_params_encode failed on parsed params");
        else if (fe_cvm_params_parse(buf, blen, "re-encoded", &b, &d) != ST_OK)
            r = broken(c, "fe_cvm_params_parse rejects what fe_cvm_params_encode wrote");
        else if (b.n != a.n)
            r = broken(c, "params round trip: %zu arrays, then %zu", a.n, b.n);
        for (size_t i = 0; r == FZ_ACCEPTED && i < a.n; i++) {
            const CvmParam *x = &a.p[i], *y = &b.p[i];
            if (strcmp(x->name, y->name) != 0 || x->bits != y->bits ||
                !og_shape_eq(&x->t.shape, &y->t.shape) || x->t.count != y->t.count ||
                memcmp(x->t.data, y->t.data, (size_t)x->t.count * sizeof *x->t.data) != 0)
                r = broken(c, "params round trip: array %zu differs", i);
        }
        free(buf);
    }
    fe_cvm_params_free(&a);
    fe_cvm_params_free(&b);
    diag_finish(&d);
    return r;
}

/* What a frontend promises about a graph it accepted. */
static FzResult check_opgraph(FzCtx *c, const OpGraph *g)
{
    if (og_oom(g))
        return broken(c, "ST_OK on a graph whose allocation failed");
    if (g->noutputs == 0)
        return broken(c, "ST_OK on a graph without outputs");
    for (uint32_t i = 0; i < g->nnodes; i++) {
        const OgNode *n = g->nodes[i];
        if (!n || n->id != (int32_t)i)
            return broken(c, "node %u: missing or misnumbered", (unsigned)i);
        for (uint32_t k = 0; k < n->ninputs; k++)
            if (n->inputs[k].node < 0 || n->inputs[k].node >= (int32_t)i ||
                n->inputs[k].index >= g->nodes[n->inputs[k].node]->noutputs)
                return broken(c, "node %u: input %u is not an earlier node's output",
                              (unsigned)i, (unsigned)k);
        for (uint32_t k = 0; k < n->noutputs; k++) {
            const char *lim = og_shape_limit(&n->out_shape[k]);
            if (lim)
                return broken(c, "node %u output %u: shape breaks the %s limit", (unsigned)i,
                              (unsigned)k, lim);
            if (n->out_prec[k] < 1 || n->out_prec[k] > 32)
                return broken(c, "node %u output %u: precision %d outside 1..32", (unsigned)i,
                              (unsigned)k, (int)n->out_prec[k]);
        }
    }
    for (uint32_t k = 0; k < g->noutputs; k++)
        if (g->outputs[k].node < 0 || (uint32_t)g->outputs[k].node >= g->nnodes)
            return broken(c, "output %u names no node", (unsigned)k);
    return FZ_ACCEPTED;
}

FzResult fz_cvm(FzCtx *c, const uint8_t *data, size_t len)
{
    const uint8_t *nul = memchr(data, 0, len);
    size_t jlen = nul ? (size_t)(nul - data) : len;
    const uint8_t *params = nul ? nul + 1 : NULL;
    size_t plen = nul ? len - jlen - 1 : 0;
    FzResult r = FZ_ACCEPTED;
    if (params && (r = params_round_trip(c, params, plen)) == FZ_BROKEN)
        return r;
    Diag d;
    diag_init(&d, "fuzz.json");
    OpGraph *g = NULL;
    Status st = fe_cvm_load_mem((const char *)data, jlen, params, plen, "fuzz.params", &g, &d);
    r = settle(c, st, &d, "fe_cvm_load_mem");
    diag_finish(&d);
    if (r == FZ_ACCEPTED)
        r = g ? check_opgraph(c, g) : broken(c, "fe_cvm_load_mem: ST_OK without a graph");
    else if (r == FZ_REJECTED && g)
        r = broken(c, "fe_cvm_load_mem: a graph left behind on failure");
    og_destroy(g);
    return r;
}

/* ---- ONNX ---- */

FzResult fz_onnx(FzCtx *c, const uint8_t *data, size_t len)
{
    Diag d;
    diag_init(&d, "fuzz.onnx");
    OnnxModel *m = NULL;
    Status st = fe_onnx_load_mem(data, len, NULL, &m, &d);
    FzResult r = settle(c, st, &d, "fe_onnx_load_mem");
    diag_finish(&d);
    if (r == FZ_ACCEPTED)
        r = m && m->g ? check_opgraph(c, m->g)
                      : broken(c, "fe_onnx_load_mem: ST_OK without a model");
    else if (r == FZ_REJECTED && m)
        r = broken(c, "fe_onnx_load_mem: a model left behind on failure");
    fe_onnx_destroy(m);
    if (r == FZ_BROKEN)
        return r;
    diag_init(&d, "fuzz.pb");
    OnnxTensor t;
    memset(&t, 0, sizeof t);
    st = fe_onnx_tensor_read_mem(data, len, "fuzz.pb", &t, &d);
    FzResult rt = settle(c, st, &d, "fe_onnx_tensor_read_mem");
    diag_finish(&d);
    if (rt == FZ_ACCEPTED) {
        int64_t count = 1;
        for (uint32_t i = 0; i < t.ndim && i < OG_MAX_DIMS; i++)
            count *= t.dims[i];
        if (t.ndim > OG_MAX_DIMS || count != t.count || (t.i && t.f) ||
            (t.count > 0 && !t.i && !t.f))
            rt = broken(c, "fe_onnx_tensor_read_mem: ndim %u, count %lld, i=%p f=%p "
                        "inconsistent", (unsigned)t.ndim, (long long)t.count, (void *)t.i,
                        (void *)t.f);
    }
    fe_onnx_tensor_free(&t);
    return rt == FZ_BROKEN ? rt : r;
}

/* ---- CINN XML ---- */

FzResult fz_cinn_xml(FzCtx *c, const uint8_t *data, size_t len)
{
    Diag d;
    diag_init(&d, "fuzz.xml");
    CinnBuilder *b = NULL;
    Status st = fe_cinn_read_xml_mem((const char *)data, len, "fuzz.xml", &d, &b);
    FzResult r = settle(c, st, &d, "fe_cinn_read_xml_mem");
    if (r == FZ_ACCEPTED && !b)
        r = broken(c, "fe_cinn_read_xml_mem: ST_OK without a program");
    else if (r != FZ_ACCEPTED && b && r != FZ_BROKEN)
        r = broken(c, "fe_cinn_read_xml_mem: a program left behind on failure");
    if (r == FZ_ACCEPTED) {
        char *x1 = NULL, *x2 = NULL;
        size_t n1 = 0, n2 = 0;
        Diag d2;
        diag_init(&d2, "re-read.xml");
        CinnBuilder *b2 = NULL;
        if (fe_cinn_xml_encode(b, &x1, &n1, &d) != ST_OK)
            r = broken(c, "fe_cinn_xml_encode failed on a program that was read");
        else if (fe_cinn_read_xml_mem(x1, n1, "re-read.xml", &d2, &b2) != ST_OK)
            r = broken(c, "fe_cinn_read_xml_mem rejects what fe_cinn_xml_encode wrote: %s [%s]",
                       d2.n ? d2.entries[0].what : "-", d2.n ? d2.entries[0].rule : "-");
        else if (fe_cinn_xml_encode(b2, &x2, &n2, &d2) != ST_OK)
            r = broken(c, "fe_cinn_xml_encode failed on a re-read program");
        else if (n1 != n2 || memcmp(x1, x2, n1) != 0)
            r = broken(c, "CINN XML round trip differs: %zu bytes, then %zu bytes", n1, n2);
        fe_cinn_destroy(b2);
        diag_finish(&d2);
        free(x1);
        free(x2);
    }
    fe_cinn_destroy(b);
    diag_finish(&d);
    return r;
}

/* ---- chip descriptions ---- */

/* A block of type t with every dim of the shape s, for costing. */
static Block *fz_block(Graph *g, BlockType t, const int32_t s[TIR_NDIMS])
{
    Block *b = graph_add_block(g, t, GRAPH_AUTO_ID, NULL);
    if (b)
        memcpy(b->shape.d, s, sizeof b->shape.d);
    return b;
}

static FzResult chip_costs(FzCtx *c, const Chip *chip)
{
    Graph *g = graph_create();
    if (!g)
        return broken(c, "out of memory");
    static const int32_t s[TIR_NDIMS] = {7, 9, 40, 20, 3, 3, 9, 11};
    FzResult r = FZ_ACCEPTED;
    for (int t = 0; t < BT_COUNT && r == FZ_ACCEPTED; t++) {
        Block *b = fz_block(g, (BlockType)t, s);
        if (!b)
            r = broken(c, "out of memory");
        else if (bt_info((BlockType)t)->kind == BK_COMPUTE && !chip_prim_for(chip, (BlockType)t))
            r = broken(c, "an accepted chip runs %s on no primitive", bt_info((BlockType)t)->name);
        else if (chip_block_clocks(chip, b) < -1 || chip_output_bytes(chip, b) < -1 ||
                 chip_storage_bytes(chip, b, NULL) < -1)
            r = broken(c, "a negative figure for %s", bt_info((BlockType)t)->name);
    }
    for (uint32_t i = 0; i < g->n_blocks && r == FZ_ACCEPTED; i++)
        for (uint32_t k = 0; k < g->n_blocks && r == FZ_ACCEPTED; k++)
            if (chip_storage_bytes(chip, g->blocks[i], g->blocks[k]) < -1)
                r = broken(c, "a negative storage figure");
    graph_destroy(g);
    return r;
}

FzResult fz_chip(FzCtx *c, const uint8_t *data, size_t len)
{
    Diag d;
    diag_init(&d, "fuzz.xml");
    Chip *chip = NULL;
    Status st = chip_load_mem((const char *)data, len, "fuzz.xml", &chip, &d);
    FzResult r = settle(c, st, &d, "chip_load_mem");
    if (r == FZ_ACCEPTED && !chip)
        r = broken(c, "chip_load_mem: ST_OK without a chip");
    else if (r != FZ_ACCEPTED && chip && r != FZ_BROKEN)
        r = broken(c, "chip_load_mem: a chip left behind on failure");
    if (r == FZ_ACCEPTED && c->sink) {
        Diag pd;
        diag_init(&pd, "fuzz.xml");
        if (print_chip(chip, PF_TEXT, c->sink, &pd) != ST_OK ||
            print_chip(chip, PF_JSON, c->sink, &pd) != ST_OK)
            r = broken(c, "print_chip failed on an accepted chip");
        diag_finish(&pd);
    }
    if (r == FZ_ACCEPTED)
        r = chip_costs(c, chip);
    chip_destroy(chip);
    diag_finish(&d);
    return r;
}
