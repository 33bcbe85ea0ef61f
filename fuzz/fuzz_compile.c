/* fuzz_compile.c: the compile targets (fz_compile, fz_compile_onnx in fuzz_one.h): a CVM
 * model in fuzz_cvm's framing, or an ONNX model, goes through the whole compiler, and the two
 * ends must agree.
 *
 *   load (fe_cvm_load_mem / fe_onnx_load_mem) -> lower (fe_lower, which runs the verifier) -> sim_create
 *   inputs: pseudo-random values within each input's precision, drawn from a hash of the bytes
 *   fe_interp_run == sim_run, output for output, value for value
 *
 * A model the frontend or the lowering rejects with a logic error is a clean rejection. A
 * lowered graph the simulator cannot plan or run, a runtime error of the lowering (a graph
 * that fails the verifier is [lower.verify]) or any differing value is a broken promise. Big
 * models are only lowered, not run, and huge ones only loaded, so one input stays well
 * inside libFuzzer's time limit (10 s, under ASan, UBSan and coverage instrumentation, which
 * slow the lowering 20-fold): the run needs Σ over operators of (output elements × input
 * elements) ≤ 2^26, the lowering Σ over operators of output elements ≤ 2^22 (lower_work's
 * weights: a broadcast_div 256, a batch that may be lowered twice 2). (The lowering's
 * work grows with the elements: an ONNX MaxPool with pads over 112 × 13 × 96 × 28, 12.5 M
 * elements over its three nodes, compiles in 0.93 s in the debug build and took over 10 s
 * here. Its speed on big models is bench/run's to measure, not a finding.) */
#include "fuzz_one.h"

#include "frontend/cvm.h"
#include "frontend/interp.h"
#include "frontend/lower.h"
#include "frontend/onnx.h"
#include "frontend/opgraph.h"
#include "taskir/sim.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define FZC_MAX_WORK ((int64_t)1 << 26)
#define FZC_MAX_LOWER ((int64_t)1 << 22)
#define FZC_DIV_WEIGHT 256

static FzResult fail(FzCtx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static FzResult fail(FzCtx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof c->why, fmt, ap);
    va_end(ap);
    return FZ_BROKEN;
}

/* ST_OK: go on; a logic error: rejected; anything else: broken. */
static FzResult judge(FzCtx *c, Status st, const Diag *d, const char *call)
{
    if (st == ST_OK)
        return FZ_ACCEPTED;
    if (st == ST_LOGIC && (d->n || d->dropped))
        return FZ_REJECTED;
    return fail(c, "%s: status %d (%s: %s)", call, (int)st, d->n ? d->entries[0].rule : "-",
                d->n && d->entries[0].what ? d->entries[0].what : "no diagnostic");
}

/* A crude bound on the interpreter's and the simulator's work, or -1 past FZC_MAX_WORK. */
static int64_t run_work(const OpGraph *g)
{
    int64_t work = 0;
    for (uint32_t i = 0; i < g->nnodes; i++) {
        const OgNode *n = g->nodes[i];
        int64_t in = 1;
        for (uint32_t k = 0; k < n->ninputs; k++) {
            const OgNode *src = g->nodes[n->inputs[k].node];
            /* each volume is at most OG_MAX_VOLUME = 2^30 */
            in += og_shape_volume(&src->out_shape[n->inputs[k].index]);
            if (in > FZC_MAX_WORK)
                return -1;
        }
        for (uint32_t k = 0; k < n->noutputs; k++) {
            int64_t v = og_shape_volume(&n->out_shape[k]);
            if (v > FZC_MAX_WORK / in)
                return -1;
            work += v * in;
            if (work > FZC_MAX_WORK)
                return -1;
        }
    }
    return work;
}

/* Σ over operators of their output elements, or -1 past FZC_MAX_LOWER. A broadcast_div
 * counts FZC_DIV_WEIGHT times (a restoring division makes about 8 blocks a dividend bit), and
 * the whole sum twice when an input has a batch (the lowering may run twice: per sample, then
 * with the whole tensor as the unit). */
static int64_t lower_work(const OpGraph *g)
{
    int64_t work = 0, twice = 1;
    for (uint32_t i = 0; i < g->nnodes; i++) {
        const OgNode *n = g->nodes[i];
        if (n->kind == OG_INPUT && n->out_shape[0].ndim && n->out_shape[0].d[0] > 1)
            twice = 2;
        int64_t weight = n->kind == OG_OP && n->op == CVM_OP_broadcast_div ? FZC_DIV_WEIGHT : 1;
        for (uint32_t k = 0; k < n->noutputs; k++) {
            /* at most OG_MAX_VOLUME = 2^30 */
            int64_t v = og_shape_volume(&n->out_shape[k]);
            if (v > FZC_MAX_LOWER / weight)
                return -1;
            work += v * weight;
            if (work > FZC_MAX_LOWER / twice)
                return -1;
        }
    }
    return work * twice;
}

static uint64_t next(uint64_t *s)
{
    uint64_t x = (*s += 0x9e3779b97f4a7c15u);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

/* Fills t (shape of input node n) with values in ±(2^(p−1) − 1), p its precision; every
 * eighth value is an extreme. Returns false when out of memory. */
static bool make_input(const OgNode *n, uint64_t *seed, OgTensor *t, NpyArray *a)
{
    memset(t, 0, sizeof *t);
    memset(a, 0, sizeof *a);
    t->shape = n->out_shape[0];
    t->count = 1;
    for (uint32_t j = 0; j < t->shape.ndim; j++)
        t->count *= t->shape.d[j];
    t->data = malloc((size_t)(t->count ? t->count : 1) * sizeof *t->data);
    if (!t->data)
        return false;
    int32_t p = n->out_prec[0];
    int64_t hi = p >= 32 ? INT32_MAX : ((int64_t)1 << (p - 1)) - 1;
    for (int64_t i = 0; i < t->count; i++) {
        uint64_t r = next(seed);
        int64_t v;
        if ((r & 7) == 0)
            v = (r & 8) ? hi : -hi;
        else
            v = (int64_t)((r >> 4) % (uint64_t)(2 * hi + 1)) - hi;
        t->data[i] = (int32_t)v;
    }
    a->dtype = NPY_I32;
    a->ndim = t->shape.ndim;
    for (uint32_t j = 0; j < t->shape.ndim; j++)
        a->shape[j] = t->shape.d[j];
    a->count = t->count;
    a->i32 = t->data;
    return true;
}

/* Runs g on pseudo-random inputs through the interpreter and the simulator on lowered. */
static FzResult differ(FzCtx *c, const OpGraph *g, const Graph *lowered, uint64_t seed)
{
    uint32_t nin = og_num_inputs(g);
    OgTensor *in = calloc(nin ? nin : 1, sizeof *in);
    NpyArray *arr = calloc(nin ? nin : 1, sizeof *arr);
    SimInput *sin = calloc(nin ? nin : 1, sizeof *sin);
    char (*names)[16] = calloc(nin ? nin : 1, sizeof *names);
    OgTensor *out = calloc(g->noutputs ? g->noutputs : 1, sizeof *out);
    FzResult r = FZ_ACCEPTED;
    SimRun *run = NULL;
    SimResult res;
    memset(&res, 0, sizeof res);
    if (!in || !arr || !sin || !names || !out) {
        r = fail(c, "out of memory in the harness");
        goto done;
    }
    for (uint32_t k = 0; k < nin; k++) {
        if (!make_input(og_input(g, k), &seed, &in[k], &arr[k])) {
            r = fail(c, "out of memory in the harness");
            goto done;
        }
        snprintf(names[k], sizeof names[k], "%u", (unsigned)k);
        sin[k].name = names[k]; /* the socket id: lower.c numbers INPUT blocks so */
        sin[k].array = &arr[k];
    }
    Diag d;
    diag_init(&d, "fuzz.json");
    Status st = fe_interp_run(g, in, nin, out, &d);
    r = judge(c, st, &d, "fe_interp_run");
    diag_finish(&d);
    if (r != FZ_ACCEPTED)
        goto done;
    diag_init(&d, "fuzz.pb");
    st = sim_create(lowered, NULL, &run, &d);
    if (st == ST_OK)
        st = sim_run(run, sin, nin, &res, &d);
    if (st != ST_OK) {
        r = fail(c, "the lowered graph does not run where the interpreter does: %s [%s]",
                 d.n && d.entries[0].what ? d.entries[0].what : "-",
                 d.n ? d.entries[0].rule : "-");
        diag_finish(&d);
        goto done;
    }
    diag_finish(&d);
    for (uint32_t j = 0; j < g->noutputs && r == FZ_ACCEPTED; j++) {
        const SimTensor *t = NULL;
        for (uint32_t k = 0; k < res.n_outputs; k++)
            if (res.outputs[k].socket_id == (int32_t)j)
                t = &res.outputs[k];
        if (!t)
            r = fail(c, "output %u: no OUTPUT block with socket id %u", (unsigned)j,
                     (unsigned)j);
        else if (t->count != out[j].count)
            r = fail(c, "output %u: %lld values simulated, %lld interpreted", (unsigned)j,
                     (long long)t->count, (long long)out[j].count);
        else
            for (int64_t i = 0; i < t->count; i++)
                if (t->data[i] != out[j].data[i]) {
                    r = fail(c, "output %u differs at %lld: simulator %d, interpreter %d",
                             (unsigned)j, (long long)i, (int)t->data[i], (int)out[j].data[i]);
                    break;
                }
    }
done:
    sim_result_free(&res);
    sim_destroy(run);
    if (out)
        for (uint32_t j = 0; j < g->noutputs; j++)
            og_tensor_free(&out[j]);
    if (in)
        for (uint32_t k = 0; k < nin; k++)
            free(in[k].data);
    free(in);
    free(arr);
    free(sin);
    free(names);
    free(out);
    return r;
}

/* Lowers g and, when small enough, compares the interpreter with the simulator. */
static FzResult compile_and_compare(FzCtx *c, const OpGraph *g, const uint8_t *data, size_t len)
{
    if (lower_work(g) < 0)
        return FZ_ACCEPTED;
    Graph *lowered = NULL;
    Diag d;
    diag_init(&d, "fuzz.model");
    Status st = fe_lower(g, NULL, &lowered, &d);
    FzResult r = judge(c, st, &d, "fe_lower");
    diag_finish(&d);
    if (r == FZ_ACCEPTED && !lowered)
        r = fail(c, "fe_lower: ST_OK without a graph");
    if (r == FZ_ACCEPTED && run_work(g) >= 0) {
        uint64_t seed = 0xcbf29ce484222325u;
        for (size_t i = 0; i < len; i++)
            seed = (seed ^ data[i]) * 0x100000001b3u;
        r = differ(c, g, lowered, seed);
    }
    graph_destroy(lowered);
    return r;
}

FzResult fz_compile(FzCtx *c, const uint8_t *data, size_t len)
{
    const uint8_t *nul = memchr(data, 0, len);
    size_t jlen = nul ? (size_t)(nul - data) : len;
    const uint8_t *params = nul ? nul + 1 : NULL;
    size_t plen = nul ? len - jlen - 1 : 0;
    Diag d;
    diag_init(&d, "fuzz.json");
    OpGraph *g = NULL;
    Status st = fe_cvm_load_mem((const char *)data, jlen, params, plen, "fuzz.params", &g, &d);
    FzResult r = judge(c, st, &d, "fe_cvm_load_mem");
    diag_finish(&d);
    if (r == FZ_ACCEPTED)
        r = compile_and_compare(c, g, data, len);
    og_destroy(g);
    return r;
}

FzResult fz_compile_onnx(FzCtx *c, const uint8_t *data, size_t len)
{
    Diag d;
    diag_init(&d, "fuzz.onnx");
    OnnxModel *m = NULL;
    Status st = fe_onnx_load_mem(data, len, NULL, &m, &d);
    FzResult r = judge(c, st, &d, "fe_onnx_load_mem");
    diag_finish(&d);
    if (r == FZ_ACCEPTED)
        r = compile_and_compare(c, m->g, data, len);
    fe_onnx_destroy(m);
    return r;
}
