/* lower.c: the driver of the lowering OpGraph -> TaskGraph (lower.h, docs/lowering.md).
 *
 * Nodes are lowered in graph (topological) order:
 *   - a model input becomes an INPUT block (per-sample shape, socket = its position among the
 *     inputs) whose output cluster is the input's value;
 *   - a parameter is a constant value (no block until a consumer needs one);
 *   - an operator whose inputs are all constants is evaluated now with the interpreter's own
 *     function (constant folding); any other runs its row of the operator table, lw_op_NAME
 *     for each row of cvm_ops.def (an X-macro: adding an operator without a lowering function
 *     does not link);
 *   - each model output goes through an SI to an OUTPUT block (socket = its position); a
 *     constant output is one sample of the constant (its data in the SI).
 * A value is freed once its last reader is lowered. The result is checked by verify_graph:
 * a finding there is a bug of the lowering, reported as a runtime error [lower.verify].
 */
#include "frontend/lower/lower.h"

#include "frontend/lower/lower_internal.h"
#include "taskir/sim.h"
#include "taskir/verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef Status (*LwOpFn)(Lw *L);

static const LwOpFn lw_ops[CVM_OP_COUNT] = {
#define X(name, min_in, max_in, nout, parse, shape, prec, run, flags) lw_op_##name,
#include "frontend/cvm/cvm_ops.def"
#undef X
};

/* The natural (INPUT / OUTPUT) shape of a value of per-sample shape ps: with N == 1 the
 * per-sample shape is the whole tensor, whose leading 1 (the batch) is left out. */
static OgShape natural_shape(const Lw *L, const OgShape *ps)
{
    OgShape s = *ps;
    if (!L->drop && s.ndim >= 2 && s.d[0] == 1) {
        for (uint32_t i = 0; i + 1 < s.ndim; i++)
            s.d[i] = s.d[i + 1];
        s.d[--s.ndim] = 0;
    }
    return s;
}

/* d[i] * d[i + 1], INT64_MAX when it would pass it. */
static int64_t pair_product(const OgShape *s, uint32_t i)
{
    int64_t a = s->d[i], b = s->d[i + 1];
    return b && a > INT64_MAX / b ? INT64_MAX : a * b;
}

/* Block dims y x f r for a natural shape: the last r of (y, x, f), or all four. A shape of
 * more than max dims (4; 3 for an INPUT, which the existing tools' format gives no r) is
 * carried in C order: its size-1 dims left out, then the two adjacent dims of the smallest
 * product merged until max remain (within the 2^28 elements of a sample every dim then
 * stays within 2^24); false when a dim passes 2^24. */
static bool io_dims(const OgShape *ns, uint32_t max, int32_t shape[TIR_NDIMS])
{
    memset(shape, 0, TIR_NDIMS * sizeof *shape);
    OgShape s = *ns;
    if (s.ndim > max) {
        uint32_t k = 0;
        for (uint32_t i = 0; i < ns->ndim; i++)
            if (ns->d[i] != 1)
                s.d[k++] = ns->d[i];
        s.ndim = k;
        while (s.ndim > max) {
            uint32_t m = 0;
            for (uint32_t i = 1; i + 1 < s.ndim; i++)
                if (pair_product(&s, i) < pair_product(&s, m))
                    m = i;
            if (pair_product(&s, m) > LW_MAX_DIM)
                return false;
            s.d[m] *= s.d[m + 1];
            memmove(s.d + m + 1, s.d + m + 2, (s.ndim - m - 2) * sizeof *s.d);
            s.d[--s.ndim] = 0;
        }
        if (s.ndim == 0)
            s.d[s.ndim++] = 1;
    }
    int first = s.ndim == 4 ? 0 : 3 - (int)s.ndim;
    for (uint32_t i = 0; i < s.ndim; i++) {
        if (s.d[i] > LW_MAX_DIM)
            return false;
        shape[first + (int)i] = (int32_t)s.d[i];
    }
    return true;
}

/* The model's element type of output j as a Precision: INT_32 unless the model declares
 * another (an ONNX int8 output). */
static PrecisionId decl_prec(const Lw *L, uint32_t j)
{
    switch (L->og->out_decl[j].dtype) {
    case OG_DT_INT8:
        return PR_INT_8;
    case OG_DT_UINT8:
        return PR_UINT_8;
    case OG_DT_INT16:
        return PR_INT_16;
    default:
        return PR_INT_32;
    }
}

static Status lower_input(Lw *L, const OgNode *n, uint32_t k)
{
    const OgShape *full = &n->out_shape[0];
    OgShape ps = lw_ps_of(L, full), nat = natural_shape(L, &ps);
    int32_t shape[TIR_NDIMS];
    char sb[96];
    if (!io_dims(&nat, 3, shape))
        return lw_fail(L, "lower.io", "the input has shape %s: one sample cannot be carried "
                       "in the 3 dims y, x, f of an INPUT block, each at most 2^24",
                       og_shape_str(full, sb, sizeof sb));
    Block *b = lw_block(L, BT_INPUT, NULL, shape, (int)lw_store_prec(n->out_prec[0]));
    if (!b || !blk_set_model(L->g, b, full->d, full->ndim, PR_INT_32, false))
        return lw_oom(L);
    b->socket_id = (int32_t)k;
    b->has_socket_id = true;
    /* the values of precision p the model admits, [-(2^(p-1)-1), 2^(p-1)-1] (the CVM
     * design's strong constraint; the interpreter refuses others: cvm.input.range) */
    int32_t p = n->out_prec[0];
    if (p >= 1 && p <= 32) {
        b->has_model_range = true;
        b->model_hi = (int32_t)og_prec_alpha(p);
        b->model_lo = -b->model_hi;
    }
    LVal v;
    lw_prod(&v, b, &ps, NULL, n->out_prec[0]);
    lw_set_out(L, 0, &v);
    return ST_OK;
}

/* One sample of a constant model output v: its per-sample shape *ps and the number *n of its
 * values, sample 0's (the first *n of v->c). A constant keeps its full shape; with N > 1 the
 * OUTPUT block holds one sample, which sim_run gives for every sample, so v's axis 0 must be
 * the batch and its samples equal [lower.batch]. */
static Status const_sample(Lw *L, const LVal *v, uint32_t j, OgShape *ps, int64_t *n)
{
    *ps = v->ps;
    *n = v->c.count;
    if (!L->drop)
        return ST_OK;
    char sb[96];
    if (v->ps.ndim < 1 || v->ps.d[0] != L->N)
        return lw_fail(L, "lower.batch", "model output %u is a constant of shape %s: its axis 0 "
                       "is not the batch of %lld samples, so one sample cannot be computed on "
                       "its own", j, og_shape_str(&v->ps, sb, sizeof sb), (long long)L->N);
    int64_t per = v->c.count / L->N;
    for (int64_t i = per; i < v->c.count; i++)
        if (v->c.data[i] != v->c.data[i % per])
            return lw_fail(L, "lower.batch", "model output %u is a constant whose samples "
                           "differ (element %lld of sample %lld is %d, of sample 0 %d): the "
                           "graph gives every sample the same value", j, (long long)(i % per),
                           (long long)(i / per), v->c.data[i], v->c.data[i % per]);
    *ps = lw_ps_of(L, &v->ps);
    *n = per;
    return ST_OK;
}

static Status lower_output(Lw *L, OgEdge e, uint32_t j)
{
    LVal *v = &L->vals[L->first[e.node] + e.index];
    OgShape ps = v->ps;
    int64_t nc = 0;
    Status st = v->kind == LV_CONST ? const_sample(L, v, j, &ps, &nc) : ST_OK;
    if (st != ST_OK)
        return st;
    OgShape nat = natural_shape(L, &ps);
    int32_t shape[TIR_NDIMS], yxf[3];
    char sb[96], sub[48], osub[48];
    if (!io_dims(&nat, 4, shape))
        return lw_fail(L, "lower.io", "model output %u has per-sample shape %s: it cannot be "
                       "carried in the 4 dims y, x, f, r of an OUTPUT block, each at most 2^24",
                       j, og_shape_str(&ps, sb, sizeof sb));
    int64_t d[OG_MAX_DIMS];
    for (uint32_t i = 0; i < ps.ndim; i++)
        d[i] = ps.d[i];
    st = lw_group3(L, d, (int)ps.ndim, yxf);
    if (st != ST_OK)
        return st;
    if (L->cur->noutputs > 1) {
        snprintf(sub, sizeof sub, "out%u", e.index);
        snprintf(osub, sizeof osub, "output%u", e.index);
    } else {
        snprintf(sub, sizeof sub, "out");
        snprintf(osub, sizeof osub, "output");
    }
    int32_t sshape[TIR_NDIMS] = {yxf[0], yxf[1], yxf[2]};
    Block *si = lw_block(L, BT_SI, sub, sshape, (int)lw_store_prec(v->prec));
    Block *ob = lw_block(L, BT_OUTPUT, osub, shape, -1);
    const OgShape *decl = og_output_shape(L->og, j);
    PrecisionId dt = decl_prec(L, j);
    if (!si || !ob || !blk_set_model(L->g, ob, decl->d, decl->ndim, dt, dt != PR_INT_32))
        return lw_oom(L);
    ob->socket_id = (int32_t)j;
    ob->has_socket_id = true;
    if (v->kind == LV_CONST) {
        st = lw_set_data(L, si, lw_store_prec(v->prec), v->c.data, nc);
    } else {
        int perm[OG_MAX_DIMS];
        lw_identity(perm, (int)v->ps.ndim);
        st = lw_feed(L, v, si, 0, NULL, NULL, perm, NULL, NULL);
    }
    if (st != ST_OK)
        return st;
    LwSrc s = {si, {0}};
    blk_cluster_dims(si, false, 0, s.cd);
    return lw_encode_whole(L, &s, ob, 0, NULL, NULL);
}

/* Evaluates a node whose inputs are all constants with the interpreter's function. */
static Status fold(Lw *L, const OgNode *n)
{
    const CvmOpInfo *info = cvm_op_info((CvmOp)n->op);
    const OgTensor **in = calloc(n->ninputs ? n->ninputs : 1, sizeof *in);
    OgTensor *out = calloc(n->noutputs, sizeof *out);
    Status st = ST_OK;
    if (!in || !out) {
        st = lw_oom(L);
        goto done;
    }
    for (uint32_t k = 0; k < n->ninputs; k++)
        in[k] = &lw_in(L, k)->c;
    for (uint32_t k = 0; k < n->noutputs && st == ST_OK; k++)
        if (!og_tensor_alloc(&out[k], &n->out_shape[k]))
            st = lw_oom(L);
    if (st == ST_OK) {
        CvmCtx c = {(OpGraph *)L->og, (OgNode *)n, L->d, false};
        st = info->run(&c, in, out);
        if (st == ST_OK && c.overflow)
            st = lw_fail(L, "lower.internal", "a compile-time evaluation left int32");
    }
    for (uint32_t k = 0; k < n->noutputs; k++) {
        if (st == ST_OK) {
            LVal v;
            memset(&v, 0, sizeof v);
            v.kind = LV_CONST;
            v.ps = n->out_shape[k];
            v.prec = n->out_prec[k];
            v.c = out[k];
            v.c_owned = true;
            lw_set_out(L, k, &v);
        } else {
            og_tensor_free(&out[k]);
        }
    }
done:
    free(in);
    free(out);
    return st;
}

static Status lower_node(Lw *L, const OgNode *n, uint32_t *k_input)
{
    /* Before any element map of the node is made (8 bytes an element, and the encoder's
     * work): a block cluster holding the value could not be simulated (SIM_MAX_BUFFER_ELEMS),
     * nor rearranged by one edge (RA_MAX_ELEMS). Parameters are bounded by the readers. */
    for (uint32_t k = 0; n->kind != OG_CONST && k < n->noutputs; k++) {
        OgShape ps = lw_ps_of(L, &n->out_shape[k]);
        int64_t vol = lw_volume(&ps);
        if (vol > SIM_MAX_BUFFER_ELEMS)
            return lw_fail(L, "lower.limit", "output %u holds %lld elements per sample: a "
                           "block holds at most 2^28", k, (long long)vol);
    }
    if (n->kind == OG_INPUT)
        return lower_input(L, n, (*k_input)++);
    if (n->kind == OG_CONST) {
        LVal v;
        memset(&v, 0, sizeof v);
        v.kind = LV_CONST;
        v.ps = n->out_shape[0];
        v.prec = n->out_prec[0];
        v.c = n->value;
        lw_set_out(L, 0, &v);
        return ST_OK;
    }
    if (!cvm_op_info((CvmOp)n->op))
        return diag_add(L->d, ST_RUNTIME, "lower.internal", NULL, "unknown operator code %d",
                        (int)n->op);
    bool all_const = true;
    for (uint32_t k = 0; k < n->ninputs; k++)
        all_const = all_const && lw_in(L, k)->kind == LV_CONST;
    Status st = all_const ? fold(L, n)
                : (unsigned)n->op < CVM_OP_COUNT ? lw_ops[n->op](L)
                : lw_cinn_op(L); /* CINN extension operators (cinn_ops.def) */
    if (st != ST_OK)
        return st;
    for (uint32_t k = 0; k < n->noutputs; k++)
        if (L->nuse[L->first[n->id] + k] && L->vals[L->first[n->id] + k].kind == LV_NONE)
            return diag_add(L->d, ST_RUNTIME, "lower.internal", NULL,
                            "node %d '%s' (%s): output %u was not lowered", (int)n->src_index,
                            n->name, n->op_name, k);
    return ST_OK;
}

/* The batch N: axis 0 of the model inputs, the same for all. whole: the whole tensor is the
 * unit (N = 1 whatever axis 0 holds). */
static Status find_batch(Lw *L, bool whole)
{
    L->N = 1;
    L->drop = 0;
    bool seen = false;
    if (whole)
        return ST_OK;
    for (uint32_t i = 0; i < L->og->nnodes; i++) {
        const OgNode *n = L->og->nodes[i];
        if (n->kind != OG_INPUT)
            continue;
        int64_t b = n->out_shape[0].ndim ? n->out_shape[0].d[0] : 1;
        if (seen && b != L->N) {
            L->cur = n;
            return lw_fail(L, "lower.batch", "axis 0 (the batch) has extent %lld here, %lld in "
                           "the first input: the inputs must have one batch", (long long)b,
                           (long long)L->N);
        }
        L->N = b;
        seen = true;
    }
    L->drop = L->N > 1;
    return ST_OK;
}

static Status check_graph(Lw *L, Graph *g)
{
    Diag vd;
    diag_init(&vd, NULL);
    Status st = verify_graph(g, &vd);
    if (st == ST_LOGIC) {
        diag_add(L->d, ST_RUNTIME, "lower.verify", NULL,
                 "the lowered graph breaks %zu verifier rules: a bug of the lowering",
                 vd.n + vd.dropped);
        for (size_t i = 0; i < vd.n; i++)
            diag_add(L->d, ST_RUNTIME, vd.entries[i].rule, vd.entries[i].where, "%s",
                     vd.entries[i].what);
        st = ST_RUNTIME;
    } else if (st != ST_OK) {
        st = diag_add(L->d, ST_RUNTIME, "oom", NULL, "out of memory while verifying");
    }
    diag_finish(&vd);
    return st;
}

/* One lowering of og: per sample (whole false: axis 0 of the inputs is the batch), or with
 * the whole tensor as the unit the TaskGraph computes (whole true). */
static Status lower_graph(const OpGraph *og, const LowerOptions *opt, bool whole, Graph **out,
                          Diag *d)
{
    Lw L;
    memset(&L, 0, sizeof L);
    L.og = og;
    L.d = d;
    uint32_t nn = og->nnodes;
    L.first = calloc(nn ? nn : 1, sizeof *L.first);
    uint64_t nslots = 0;
    for (uint32_t i = 0; L.first && i < nn; i++) {
        L.first[i] = (uint32_t)nslots;
        nslots += og->nodes[i]->noutputs;
    }
    L.vals = calloc(nslots ? nslots : 1, sizeof *L.vals);
    L.uses = calloc(nslots ? nslots : 1, sizeof *L.uses);
    L.nuse = calloc(nslots ? nslots : 1, sizeof *L.nuse);
    L.g = graph_create();
    Status st = ST_OK;
    if (!L.first || !L.vals || !L.uses || !L.nuse || !L.g) {
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < nn; i++)
        for (uint32_t k = 0; k < og->nodes[i]->ninputs; k++) {
            OgEdge e = og->nodes[i]->inputs[k];
            L.nuse[L.first[e.node] + e.index]++;
        }
    for (uint32_t j = 0; j < og->noutputs; j++)
        L.nuse[L.first[og->outputs[j].node] + og->outputs[j].index]++;
    memcpy(L.uses, L.nuse, nslots * sizeof *L.uses);
    if ((st = find_batch(&L, whole)) != ST_OK)
        goto done;
    uint32_t k_input = 0;
    for (uint32_t i = 0; i < nn && st == ST_OK; i++) {
        const OgNode *n = og->nodes[i];
        L.cur = n;
        st = lower_node(&L, n, &k_input);
        if (st == ST_OK && graph_oom(L.g))
            st = lw_oom(&L);
        for (uint32_t k = 0; st == ST_OK && k < n->ninputs; k++) {
            uint32_t s = L.first[n->inputs[k].node] + n->inputs[k].index;
            if (L.uses[s] && --L.uses[s] == 0)
                lw_val_free(&L.vals[s]);
        }
    }
    for (uint32_t j = 0; st == ST_OK && j < og->noutputs; j++) {
        L.cur = og->nodes[og->outputs[j].node];
        st = lower_output(&L, og->outputs[j], j);
        if (st == ST_OK && graph_oom(L.g))
            st = lw_oom(&L);
    }
    L.cur = NULL;
    if (st == ST_OK && !(opt && opt->no_verify))
        st = check_graph(&L, L.g);
done:
    for (uint64_t s = 0; L.vals && s < nslots; s++)
        lw_val_free(&L.vals[s]);
    free(L.vals);
    free(L.uses);
    free(L.nuse);
    free(L.first);
    if (st != ST_OK) {
        graph_destroy(L.g);
        return st;
    }
    *out = L.g;
    return ST_OK;
}

/* Is axis 0 of the model inputs a batch of more than one sample? */
static bool has_batch(const OpGraph *og)
{
    for (uint32_t i = 0; i < og->nnodes; i++) {
        const OgNode *n = og->nodes[i];
        if (n->kind == OG_INPUT && n->out_shape[0].ndim && n->out_shape[0].d[0] > 1)
            return true;
    }
    return false;
}

Status fe_lower(const OpGraph *og, const LowerOptions *opt, Graph **out, Diag *d)
{
    *out = NULL;
    if (!og->dialect || strcmp(og->dialect, "cvm") != 0)
        return diag_add(d, ST_RUNTIME, "lower.dialect", NULL,
                        "the lowering takes dialect \"cvm\", not \"%s\"",
                        og->dialect ? og->dialect : "(none)");
    if (!has_batch(og))
        return lower_graph(og, opt, true, out, d);
    /* A batch: one sample per run when the samples can be kept apart; when a node mixes
     * them ([lower.batch] in the per-sample lowering), the whole tensor is the unit. */
    Diag first;
    diag_init(&first, d->file);
    Status st = lower_graph(og, opt, false, out, &first);
    if (st == ST_LOGIC && diag_find(&first, "lower.batch") >= 0) {
        diag_finish(&first);
        return lower_graph(og, opt, true, out, d);
    }
    for (size_t i = 0; i < first.n; i++)
        diag_add(d, first.entries[i].status, first.entries[i].rule, first.entries[i].where,
                 "%s", first.entries[i].what);
    d->dropped += first.dropped;
    d->oom = d->oom || first.oom;
    diag_finish(&first);
    return st;
}
