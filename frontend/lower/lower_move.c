/* lower_move.c: data movement (repeat, tile, flatten, reshape, squeeze, expand_dims,
 * transpose, strided_slice, slice_like, concatenate, upsampling, and take with constant
 * indices, which lw_op_take in lower_elemwise.c hands here) and the compile-time use of the
 * interpreter's operator functions.
 *
 * A data-movement node creates no block. Its element map — which input element each output
 * element copies — is computed by running the interpreter's own function for the operator
 * on index tensors (input k's elements hold their global numbers), so the lowering moves
 * exactly the elements the interpreter moves. The map is composed with the inputs' values
 * (lower_internal.h: LV_PROD / LV_MAP) into a new value; the consumer's storage block later
 * receives it through interfaces and edge rearrangements (taskir/encode.c). With a batch
 * N > 1 the map must send each sample's elements to the same sample at the same offsets;
 * otherwise the node mixes samples [lower.batch].
 */
#include "frontend/lower/lower_internal.h"

#include <stdlib.h>
#include <string.h>

OgShape lw_ps_of(const Lw *L, const OgShape *s)
{
    OgShape p = *s;
    if (L->drop && s->ndim >= 1) {
        p.ndim = s->ndim - 1;
        for (uint32_t i = 0; i < p.ndim; i++)
            p.d[i] = s->d[i + 1];
        p.d[p.ndim] = 0;
    }
    return p;
}

Status lw_run(Lw *L, CvmRunFn fn, const OgTensor *const *in, const OgShape *oshape,
              OgTensor *out)
{
    memset(out, 0, sizeof *out);
    if (!og_tensor_alloc(out, oshape))
        return lw_oom(L);
    if (!fn)
        fn = cvm_op_info((CvmOp)L->cur->op)->run;
    CvmCtx c = {(OpGraph *)L->og, (OgNode *)L->cur, L->d, false};
    Status st = fn(&c, in, out);
    if (st == ST_OK && c.overflow)
        st = lw_fail(L, "lower.internal", "a compile-time evaluation left int32");
    if (st != ST_OK)
        og_tensor_free(out);
    return st;
}

/* The data input whose global numbers [base[k], base[k] + vol[k]) hold g, or -1. */
static int find_input(const int64_t *base, const int64_t *vol, const bool *is_data, uint32_t nin,
                      int64_t g)
{
    uint32_t lo = 0, hi = nin;
    while (lo < hi) { /* inputs are numbered in order: binary search on base */
        uint32_t mid = (lo + hi) / 2;
        if (!is_data[mid]) {
            /* fall back to a linear scan when a non-data input sits in the range */
            for (uint32_t k = 0; k < nin; k++)
                if (is_data[k] && g >= base[k] && g < base[k] + vol[k])
                    return (int)k;
            return -1;
        }
        if (g < base[mid])
            hi = mid;
        else if (g >= base[mid] + vol[mid])
            lo = mid + 1;
        else
            return (int)mid;
    }
    return -1;
}

/* Elements a and b of input k hold the same known value: k is a constant (not batched) whose
 * values are given. A constant keeps the full shape, so one of shape (N, ...) (the lowering's
 * zeros, a folded result, a parameter) gives sample b elements of its own slice; sample 0's
 * elements stand for them when the values are equal. */
static bool same_value(const OgTensor *const *vals, const bool *batched, int k, int64_t a,
                       int64_t b)
{
    const OgTensor *t = vals ? vals[k] : NULL;
    return !batched[k] && t && a >= 0 && b >= 0 && a < t->count && b < t->count &&
           t->data[a] == t->data[b];
}

Status lw_move_map(Lw *L, CvmRunFn fn, uint32_t nin, const OgShape *full_in,
                   const bool *is_data, const bool *batched, const OgTensor *const *vals,
                   const OgShape *full_out, int32_t **min, int64_t **mel)
{
    *min = NULL;
    *mel = NULL;
    int64_t *base = calloc(nin ? nin : 1, sizeof *base), *vol = calloc(nin ? nin : 1, sizeof *vol);
    OgTensor *tin = calloc(nin ? nin : 1, sizeof *tin);
    const OgTensor **tp = calloc(nin ? nin : 1, sizeof *tp);
    OgTensor tout = {0};
    Status st = ST_OK;
    if (!base || !vol || !tin || !tp) {
        st = lw_oom(L);
        goto out;
    }
    int64_t total = 0;
    for (uint32_t k = 0; k < nin; k++) {
        vol[k] = og_shape_volume(&full_in[k]);
        if (is_data[k]) {
            base[k] = total;
            total += vol[k];
        }
    }
    if (total > INT32_MAX) {
        st = lw_fail(L, "lower.limit", "the inputs hold %lld elements; data movement is "
                     "lowered for at most 2^31-1", (long long)total);
        goto out;
    }
    for (uint32_t k = 0; k < nin; k++) {
        if (!og_tensor_alloc(&tin[k], &full_in[k])) {
            st = lw_oom(L);
            goto out;
        }
        if (is_data[k])
            for (int64_t i = 0; i < vol[k]; i++)
                tin[k].data[i] = (int32_t)(base[k] + i);
        else if (vals && vals[k])
            memcpy(tin[k].data, vals[k]->data, (size_t)vol[k] * sizeof *tin[k].data);
        tp[k] = &tin[k];
    }
    if ((st = lw_run(L, fn, tp, full_out, &tout)) != ST_OK)
        goto out;
    int64_t vout = tout.count, nsamp = 1;
    if (L->drop) {
        if (full_out->ndim < 1 || full_out->d[0] != L->N) {
            char sb[96];
            st = lw_fail(L, "lower.batch", "the output has shape %s: its axis 0 is not the batch "
                         "of %lld samples, so one sample cannot be computed on its own",
                         og_shape_str(full_out, sb, sizeof sb), (long long)L->N);
            goto out;
        }
        nsamp = L->N;
    }
    int64_t vo = vout / nsamp;
    *min = malloc((size_t)(vo ? vo : 1) * sizeof **min);
    *mel = malloc((size_t)(vo ? vo : 1) * sizeof **mel);
    if (!*min || !*mel) {
        st = lw_oom(L);
        goto out;
    }
    for (int64_t o = 0; o < vout; o++) {
        int64_t g = tout.data[o];
        int k = find_input(base, vol, is_data, nin, g);
        if (k < 0) {
            st = diag_add(L->d, ST_RUNTIME, "lower.internal", NULL,
                          "a data-movement map produced the unknown element %lld", (long long)g);
            goto out;
        }
        int64_t f = g - base[k], b = o / vo, i = o % vo, el = f;
        if (batched[k] && L->drop) {
            int64_t vk = vol[k] / L->N;
            if (f / vk != b) {
                st = lw_fail(L, "lower.batch", "output element %lld of sample %lld comes from "
                             "sample %lld of input %d: the node mixes the samples of the batch",
                             (long long)i, (long long)b, (long long)(f / vk), k);
                goto out;
            }
            el = f % vk;
        }
        if (b == 0) {
            (*min)[i] = k;
            (*mel)[i] = el;
        } else if ((*min)[i] != k || ((*mel)[i] != el && !same_value(vals, batched, k,
                                                                     (*mel)[i], el))) {
            st = lw_fail(L, "lower.batch", "output element %lld differs between samples 0 and "
                         "%lld in where it comes from: the node mixes the samples of the batch",
                         (long long)i, (long long)b);
            goto out;
        }
    }
out:
    if (st != ST_OK) {
        free(*min);
        free(*mel);
        *min = NULL;
        *mel = NULL;
    }
    for (uint32_t k = 0; tin && k < nin; k++)
        og_tensor_free(&tin[k]);
    og_tensor_free(&tout);
    free(base);
    free(vol);
    free(tin);
    free(tp);
    return st;
}

Status lw_move_value(Lw *L, uint32_t nin, const LVal *const *ins, const int32_t *min,
                     const int64_t *mel, int64_t n, const OgShape *ps_out, int32_t prec,
                     LVal *out)
{
    memset(out, 0, sizeof *out);
    bool *used = calloc(nin ? nin : 1, sizeof *used);
    LwSrc **ks = calloc(nin ? nin : 1, sizeof *ks);
    int32_t **kms = calloc(nin ? nin : 1, sizeof *kms), **kmo = calloc(nin ? nin : 1, sizeof *kmo);
    uint32_t *kn = calloc(nin ? nin : 1, sizeof *kn), *kbase = calloc(nin ? nin : 1, sizeof *kbase);
    Status st = ST_OK;
    if (!used || !ks || !kms || !kmo || !kn || !kbase) {
        st = lw_oom(L);
        goto out;
    }
    for (int64_t i = 0; i < n; i++)
        used[min[i]] = true;
    uint32_t nsrc = 0;
    for (uint32_t k = 0; k < nin; k++) {
        if (!used[k])
            continue;
        const LVal *v = ins[k];
        LVal tmp = {0};
        if (v->kind == LV_CONST) {
            char sub[32];
            snprintf(sub, sizeof sub, "in%u", k);
            LVal c = *v;
            c.ps = v->c.shape; /* the map indexes the whole constant */
            if ((st = lw_const_producer(L, &c, sub, &tmp)) != ST_OK)
                goto out;
            v = &tmp;
        }
        st = lw_val_map(L, v, &ks[k], &kn[k], &kms[k], &kmo[k]);
        lw_val_free(&tmp);
        if (st != ST_OK)
            goto out;
        kbase[k] = nsrc;
        nsrc += kn[k];
    }
    out->kind = LV_MAP;
    out->ps = *ps_out;
    out->prec = prec;
    out->srcs = malloc((nsrc ? nsrc : 1) * sizeof *out->srcs);
    out->msrc = malloc((size_t)(n ? n : 1) * sizeof *out->msrc);
    out->moff = malloc((size_t)(n ? n : 1) * sizeof *out->moff);
    if (!out->srcs || !out->msrc || !out->moff) {
        st = lw_oom(L);
        goto out;
    }
    /* Merge the producers of all inputs, each once. */
    int32_t *remap = NULL;
    if (nsrc && !(remap = malloc(nsrc * sizeof *remap))) {
        st = lw_oom(L);
        goto out;
    }
    uint32_t m = 0;
    for (uint32_t k = 0; k < nin; k++)
        for (uint32_t j = 0; used[k] && j < kn[k]; j++) {
            uint32_t t = 0;
            while (t < m && out->srcs[t].b != ks[k][j].b)
                t++;
            if (t == m)
                out->srcs[m++] = ks[k][j];
            remap[kbase[k] + j] = (int32_t)t;
        }
    out->nsrc = m;
    for (int64_t i = 0; i < n; i++) {
        uint32_t k = (uint32_t)min[i];
        out->msrc[i] = remap[kbase[k] + (uint32_t)kms[k][mel[i]]];
        out->moff[i] = kmo[k][mel[i]];
    }
    free(remap);
    lw_val_simplify(out);
out:
    if (st != ST_OK)
        lw_val_free(out);
    for (uint32_t k = 0; ks && k < nin; k++) {
        free(ks[k]);
        free(kms[k]);
        free(kmo[k]);
    }
    free(used);
    free(ks);
    free(kms);
    free(kmo);
    free(kn);
    free(kbase);
    return st;
}

Status lw_move_node(Lw *L, const bool *is_data, bool keep_hint)
{
    const OgNode *n = L->cur;
    uint32_t nin = n->ninputs;
    OgShape *full = calloc(nin, sizeof *full);
    bool *bat = calloc(nin, sizeof *bat);
    const OgTensor **vals = calloc(nin, sizeof *vals);
    const LVal **ins = calloc(nin, sizeof *ins);
    int32_t *min = NULL;
    int64_t *mel = NULL;
    Status st = ST_OK;
    if (!full || !bat || !vals || !ins) {
        st = lw_oom(L);
        goto out;
    }
    for (uint32_t k = 0; k < nin; k++) {
        LVal *v = lw_in(L, k);
        full[k] = *og_edge_shape(L->og, n->inputs[k]);
        bat[k] = is_data[k] && v->kind != LV_CONST;
        vals[k] = v->kind == LV_CONST ? &v->c : NULL;
        ins[k] = v;
    }
    OgShape ps_out = lw_ps_of(L, &n->out_shape[0]);
    if ((st = lw_move_map(L, NULL, nin, full, is_data, bat, vals, &n->out_shape[0], &min,
                          &mel)) != ST_OK)
        goto out;
    LVal v;
    if ((st = lw_move_value(L, nin, ins, min, mel, lw_volume(&ps_out), &ps_out,
                            n->out_prec[0], &v)) != ST_OK)
        goto out;
    const LVal *x = ins[0];
    if (keep_hint && v.kind == LV_MAP && x->ps.ndim == ps_out.ndim) {
        if (x->kind == LV_PROD) {
            v.has_hint = true;
            memcpy(v.hint, x->perm, sizeof v.hint);
        } else if (x->kind == LV_MAP && x->has_hint) {
            v.has_hint = true;
            memcpy(v.hint, x->hint, sizeof v.hint);
        }
    }
    lw_set_out(L, 0, &v);
out:
    free(full);
    free(bat);
    free(vals);
    free(ins);
    free(min);
    free(mel);
    return st;
}

static const bool first_only[2] = {true, false};
static const bool all_data[1] = {true};

Status lw_op_repeat(Lw *L)
{
    return lw_move_node(L, all_data, true);
}

Status lw_op_tile(Lw *L)
{
    return lw_move_node(L, all_data, true);
}

Status lw_op_flatten(Lw *L)
{
    return lw_move_node(L, all_data, false);
}

Status lw_op_reshape(Lw *L)
{
    return lw_move_node(L, all_data, false);
}

Status lw_op_squeeze(Lw *L)
{
    return lw_move_node(L, all_data, false);
}

Status lw_op_expand_dims(Lw *L)
{
    return lw_move_node(L, all_data, false);
}

Status lw_op_transpose(Lw *L)
{
    return lw_move_node(L, all_data, false);
}

Status lw_op_strided_slice(Lw *L)
{
    return lw_move_node(L, all_data, true);
}

Status lw_op_upsampling(Lw *L)
{
    return lw_move_node(L, all_data, true);
}

/* slice_like: input 1 only gives the shape. */
Status lw_op_slice_like(Lw *L)
{
    return lw_move_node(L, first_only, true);
}

Status lw_op_concatenate(Lw *L)
{
    uint32_t nin = L->cur->ninputs;
    bool *d = malloc(nin * sizeof *d);
    if (!d)
        return lw_oom(L);
    for (uint32_t k = 0; k < nin; k++)
        d[k] = true;
    Status st = lw_move_node(L, d, true);
    free(d);
    return st;
}

