/* lower_value.c: lowered values (LVal, lower_internal.h), the block builders every operator
 * uses, and feeding a value into a storage block.
 *
 * Feeding (lw_feed) is where data movement disappears into edges: a storage block's input
 * cluster asks for a sub-tensor of a value in some layout (a transposition of the tensor's
 * axes, read in C order); when the value is a producer's cluster already in that order the
 * feed is one plain edge, otherwise the element map (which producer and offset feeds each
 * element of the cluster) goes to lw_encode, which finds interfaces and rearrangements.
 */
#include "frontend/lower_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- messages, names, blocks ---- */

static void where_of(const Lw *L, char *buf, size_t len)
{
    if (L->cur)
        og_node_describe(L->cur, buf, len);
    else
        snprintf(buf, len, "graph");
}

Status lw_fail(Lw *L, const char *rule, const char *fmt, ...)
{
    char where[320], what[1024];
    where_of(L, where, sizeof where);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return diag_add(L->d, ST_LOGIC, rule, where, "%s", what);
}

Status lw_oom(Lw *L)
{
    char where[320];
    where_of(L, where, sizeof where);
    return diag_add(L->d, ST_RUNTIME, "oom", where, "out of memory");
}

void lw_name(const Lw *L, const char *suffix, char *buf, size_t len)
{
    const char *base = L->cur && L->cur->name && *L->cur->name ? L->cur->name : "graph";
    if (suffix && *suffix)
        snprintf(buf, len, "%s/%s", base, suffix);
    else
        snprintf(buf, len, "%s", base);
}

Block *lw_block(Lw *L, BlockType t, const char *suffix, const int32_t shape[TIR_NDIMS],
                int prec)
{
    return enc_block(L->g, t, L->cur ? L->cur->name : NULL, suffix, shape, prec);
}

void lw_enc_ctx(Lw *L, EncCtx *c, char *where, size_t wlen)
{
    where_of(L, where, wlen);
    *c = (EncCtx){L->g, L->d, where, L->cur ? L->cur->name : NULL};
}

Status lw_encode(Lw *L, Block *dst, uint32_t in_idx, const int32_t pos[TIR_CDIMS],
                 const int32_t size[TIR_CDIMS], const LwSrc *srcs, const int32_t *esrc,
                 const int32_t *eoff, int64_t n)
{
    char where[320];
    EncCtx c;
    lw_enc_ctx(L, &c, where, sizeof where);
    return enc_map(&c, dst, in_idx, pos, size, srcs, esrc, eoff, n);
}

Status lw_encode_whole(Lw *L, const LwSrc *s, Block *dst, uint32_t in_idx,
                       const int32_t *pos, const int32_t *size)
{
    char where[320];
    EncCtx c;
    lw_enc_ctx(L, &c, where, sizeof where);
    return enc_whole(&c, s, dst, in_idx, pos, size);
}

PrecisionId lw_store_prec(int32_t p)
{
    return p <= 8 ? PR_INT_8 : p <= 16 ? PR_INT_16 : PR_INT_32;
}

Status lw_set_data(Lw *L, Block *b, PrecisionId prec, const int32_t *v, int64_t n)
{
    char where[320];
    EncCtx c;
    lw_enc_ctx(L, &c, where, sizeof where);
    return enc_set_data(&c, b, prec, v, n);
}

Status lw_connect(Lw *L, Block *src, Block *dst, uint32_t in_idx)
{
    return graph_connect(L->g, src, 0, dst, in_idx) ? ST_OK : lw_oom(L);
}

bool lw_set_attrs(Lw *L, Block *b, const AttrId *ids, const int32_t *vals, int n)
{
    for (int i = 0; i < n; i++)
        if (!blk_set_attr(L->g, b, ids[i], vals[i]))
            return false;
    return true;
}

/* ---- values ---- */

LVal *lw_in(Lw *L, uint32_t k)
{
    OgEdge e = L->cur->inputs[k];
    return &L->vals[L->first[e.node] + e.index];
}

void lw_val_free(LVal *v)
{
    if (v->kind == LV_CONST && v->c_owned)
        free(v->c.data);
    free(v->srcs);
    free(v->msrc);
    free(v->moff);
    memset(v, 0, sizeof *v);
}

void lw_set_out(Lw *L, uint32_t k, LVal *v)
{
    LVal *slot = &L->vals[L->first[L->cur->id] + k];
    lw_val_free(slot);
    *slot = *v;
    memset(v, 0, sizeof *v);
}

int64_t lw_volume(const OgShape *s)
{
    return og_shape_volume(s);
}

void lw_identity(int *perm, int n)
{
    for (int i = 0; i < n; i++)
        perm[i] = i;
}

void lw_prod(LVal *v, Block *b, const OgShape *ps, const int *perm, int32_t prec)
{
    memset(v, 0, sizeof *v);
    v->kind = LV_PROD;
    v->ps = *ps;
    v->prec = prec;
    v->src.b = b;
    blk_cluster_dims(b, false, 0, v->src.cd);
    for (uint32_t i = 0; i < ps->ndim; i++)
        v->perm[i] = perm ? perm[i] : (int)i;
}

static void *dup_mem(const void *p, size_t n)
{
    if (!p)
        return NULL;
    void *q = malloc(n ? n : 1);
    if (q)
        memcpy(q, p, n);
    return q;
}

Status lw_val_copy(Lw *L, const LVal *v, LVal *out)
{
    *out = *v;
    out->srcs = NULL;
    out->msrc = out->moff = NULL;
    if (v->kind == LV_CONST && v->c_owned) {
        out->c.data = dup_mem(v->c.data, (size_t)v->c.count * sizeof *v->c.data);
        if (!out->c.data) {
            memset(out, 0, sizeof *out);
            return lw_oom(L);
        }
    }
    if (v->kind == LV_MAP) {
        int64_t n = lw_volume(&v->ps);
        out->srcs = dup_mem(v->srcs, v->nsrc * sizeof *v->srcs);
        out->msrc = dup_mem(v->msrc, (size_t)n * sizeof *v->msrc);
        out->moff = dup_mem(v->moff, (size_t)n * sizeof *v->moff);
        if (!out->srcs || !out->msrc || !out->moff) {
            lw_val_free(out);
            return lw_oom(L);
        }
    }
    return ST_OK;
}

/* Strides, in the producer's cluster, of each tensor axis of a PROD: the cluster holds
 * T.transpose(perm) in C order. */
static void prod_strides(const LVal *v, int64_t *st)
{
    int64_t k = 1;
    for (int j = (int)v->ps.ndim - 1; j >= 0; j--) {
        st[v->perm[j]] = k;
        k *= v->ps.d[v->perm[j]];
    }
}

Status lw_val_map(Lw *L, const LVal *v, LwSrc **srcs, uint32_t *nsrc, int32_t **msrc,
                  int32_t **moff)
{
    int64_t n = lw_volume(&v->ps);
    *srcs = NULL;
    *msrc = *moff = NULL;
    *nsrc = 0;
    if (v->kind == LV_MAP) {
        *srcs = dup_mem(v->srcs, v->nsrc * sizeof *v->srcs);
        *msrc = dup_mem(v->msrc, (size_t)n * sizeof **msrc);
        *moff = dup_mem(v->moff, (size_t)n * sizeof **moff);
        *nsrc = v->nsrc;
    } else if (v->kind == LV_PROD) {
        *srcs = dup_mem(&v->src, sizeof v->src);
        *msrc = calloc((size_t)(n ? n : 1), sizeof **msrc);
        *moff = malloc((size_t)(n ? n : 1) * sizeof **moff);
        *nsrc = 1;
        if (*moff) {
            int64_t st[OG_MAX_DIMS], idx[OG_MAX_DIMS] = {0}, off = 0;
            prod_strides(v, st);
            int nd = (int)v->ps.ndim;
            for (int64_t i = 0; i < n; i++) {
                (*moff)[i] = (int32_t)off;
                for (int j = nd - 1; j >= 0; j--) {
                    if (++idx[j] < v->ps.d[j]) {
                        off += st[j];
                        break;
                    }
                    off -= st[j] * (idx[j] - 1);
                    idx[j] = 0;
                }
            }
        }
    } else {
        return diag_add(L->d, ST_RUNTIME, "lower.internal", NULL,
                        "an element map of a value of kind %d was asked for", (int)v->kind);
    }
    if (!*srcs || !*msrc || !*moff) {
        free(*srcs);
        free(*msrc);
        free(*moff);
        *srcs = NULL;
        *msrc = *moff = NULL;
        return lw_oom(L);
    }
    return ST_OK;
}

static int64_t src_volume(const LwSrc *s)
{
    int64_t v = 1;
    for (int i = 0; i < TIR_CDIMS; i++)
        if (s->cd[i] > 0)
            v *= s->cd[i];
    return v;
}

/* Does the MAP equal a PROD of its single source with this perm? */
static bool map_is_prod(const LVal *v, const int *perm)
{
    int64_t n = lw_volume(&v->ps);
    if (v->nsrc < 1 || src_volume(&v->srcs[v->msrc ? v->msrc[0] : 0]) != n)
        return false;
    LVal p = *v;
    for (uint32_t i = 0; i < v->ps.ndim; i++)
        p.perm[i] = perm[i];
    int64_t st[OG_MAX_DIMS], idx[OG_MAX_DIMS] = {0}, off = 0;
    prod_strides(&p, st);
    int nd = (int)v->ps.ndim;
    int32_t s0 = v->msrc[0];
    for (int64_t i = 0; i < n; i++) {
        if (v->msrc[i] != s0 || v->moff[i] != off)
            return false;
        for (int j = nd - 1; j >= 0; j--) {
            if (++idx[j] < v->ps.d[j]) {
                off += st[j];
                break;
            }
            off -= st[j] * (idx[j] - 1);
            idx[j] = 0;
        }
    }
    return true;
}

void lw_val_simplify(LVal *v)
{
    if (v->kind != LV_MAP || !v->msrc)
        return;
    int perm[OG_MAX_DIMS];
    bool ok = false;
    if (v->has_hint && map_is_prod(v, v->hint)) {
        memcpy(perm, v->hint, sizeof perm);
        ok = true;
    } else {
        lw_identity(perm, (int)v->ps.ndim);
        ok = map_is_prod(v, perm);
    }
    if (!ok)
        return;
    LwSrc s = v->srcs[v->msrc[0]];
    OgShape ps = v->ps;
    int32_t prec = v->prec;
    lw_val_free(v);
    lw_prod(v, s.b, &ps, perm, prec);
}

/* ---- layouts ---- */

static bool split3(const int64_t *pre, int k, int i, int j, int32_t out[3])
{
    int64_t y = pre[i], x = pre[j] / pre[i], f = pre[k] / pre[j];
    if (y > LW_MAX_DIM || x > LW_MAX_DIM || f > LW_MAX_DIM)
        return false;
    out[0] = (int32_t)y, out[1] = (int32_t)x, out[2] = (int32_t)f;
    return true;
}

Status lw_group3(Lw *L, const int64_t *d, int k, int32_t out[3])
{
    int64_t pre[OG_MAX_DIMS + 1];
    pre[0] = 1;
    for (int i = 0; i < k; i++)
        pre[i + 1] = pre[i] * d[i];
    /* Split points (i, j): y = d[0..i), x = d[i..j), f = d[j..k). The natural one first,
     * then the others, f as large as the limit allows. */
    if (split3(pre, k, k >= 2 ? k - 2 : 0, k >= 1 ? k - 1 : 0, out))
        return ST_OK;
    for (int j = k; j >= 0; j--)
        for (int i = j; i >= 0; i--)
            if (split3(pre, k, i, j, out))
                return ST_OK;
    char sb[128];
    OgShape s = {(uint32_t)k, {0}};
    for (int i = 0; i < k; i++)
        s.d[i] = d[i];
    return lw_fail(L, "lower.limit", "a tensor of per-sample shape %s cannot be laid out as "
                   "y, x, f with each dim at most 2^24", og_shape_str(&s, sb, sizeof sb));
}

Status lw_layout(Lw *L, const LVal *v, const OgShape *ps, int *perm, int32_t yxf[3])
{
    int nd = (int)ps->ndim;
    if (v && v->kind == LV_PROD && og_shape_eq(&v->ps, ps)) {
        memcpy(perm, v->perm, sizeof v->perm);
        int64_t used[TIR_CDIMS];
        int m = 0;
        for (int i = 0; i < TIR_CDIMS; i++)
            if (v->src.cd[i] > 0)
                used[m++] = v->src.cd[i];
        if (m <= 3) {
            for (int i = 0; i < 3; i++)
                yxf[i] = i < 3 - m ? 1 : (int32_t)used[i - (3 - m)];
            return ST_OK;
        }
        return lw_group3(L, used, m, yxf);
    }
    if (v && v->kind == LV_MAP && v->has_hint && og_shape_eq(&v->ps, ps))
        memcpy(perm, v->hint, sizeof v->hint);
    else
        lw_identity(perm, nd);
    int64_t d[OG_MAX_DIMS];
    for (int i = 0; i < nd; i++)
        d[i] = ps->d[perm[i]];
    return lw_group3(L, d, nd, yxf);
}

/* ---- feeding ---- */

/* Do two layouts read the tensor in the same order (size-1 axes do not count)? */
static bool same_order(const int *a, const int *b, const OgShape *ps)
{
    int i = 0, j = 0, n = (int)ps->ndim;
    for (;;) {
        while (i < n && ps->d[a[i]] == 1)
            i++;
        while (j < n && ps->d[b[j]] == 1)
            j++;
        if (i == n || j == n)
            return i == n && j == n;
        if (a[i++] != b[j++])
            return false;
    }
}

Status lw_feed(Lw *L, const LVal *v, Block *dst, uint32_t in_idx, const int32_t *pos,
               const int32_t *size, const int *dperm, const int64_t *tlo, const int64_t *text)
{
    int nd = (int)v->ps.ndim;
    int64_t lo[OG_MAX_DIMS], ext[OG_MAX_DIMS];
    bool whole = true;
    for (int a = 0; a < nd; a++) {
        lo[a] = tlo ? tlo[a] : 0;
        ext[a] = text ? text[a] : v->ps.d[a];
        whole = whole && lo[a] == 0 && ext[a] == v->ps.d[a];
    }
    if (v->kind != LV_PROD && v->kind != LV_MAP)
        return diag_add(L->d, ST_RUNTIME, "lower.internal", NULL,
                        "a value of kind %d cannot feed a storage block", (int)v->kind);
    int64_t n = 1;
    for (int a = 0; a < nd; a++)
        n *= ext[a];
    int32_t *esrc = NULL, *eoff = NULL;
    Status st = ST_OK;
    if (v->kind == LV_PROD && whole && same_order(v->perm, dperm, &v->ps))
        /* The producer holds the tensor in the wanted order: one plain edge. */
        return lw_encode_whole(L, &v->src, dst, in_idx, pos, size);
    esrc = malloc((size_t)(n ? n : 1) * sizeof *esrc);
    eoff = malloc((size_t)(n ? n : 1) * sizeof *eoff);
    if (!esrc || !eoff) {
        st = lw_oom(L);
        goto out;
    }
    /* Walk the destination in C order of ext transposed by dperm; t is the tensor index. */
    int64_t tst[OG_MAX_DIMS];
    {
        int64_t k = 1;
        for (int a = nd - 1; a >= 0; a--) {
            tst[a] = k;
            k *= v->ps.d[a];
        }
    }
    int64_t pst[OG_MAX_DIMS] = {0};
    if (v->kind == LV_PROD)
        prod_strides(v, pst);
    int64_t q[OG_MAX_DIMS] = {0}, te = 0, po = 0;
    for (int a = 0; a < nd; a++) {
        te += lo[a] * tst[a];
        po += lo[a] * pst[a];
    }
    for (int64_t j = 0; j < n; j++) {
        if (v->kind == LV_PROD) {
            esrc[j] = 0;
            eoff[j] = (int32_t)po;
        } else {
            esrc[j] = v->msrc[te];
            eoff[j] = v->moff[te];
        }
        for (int i = nd - 1; i >= 0; i--) {
            int a = dperm[i];
            if (++q[i] < ext[a]) {
                te += tst[a];
                po += pst[a];
                break;
            }
            te -= tst[a] * (q[i] - 1);
            po -= pst[a] * (q[i] - 1);
            q[i] = 0;
        }
    }
    if (v->kind == LV_PROD)
        st = lw_encode(L, dst, in_idx, pos, size, &v->src, esrc, eoff, n);
    else
        st = lw_encode(L, dst, in_idx, pos, size, v->srcs, esrc, eoff, n);
out:
    free(esrc);
    free(eoff);
    return st;
}

Status lw_stage_in(Lw *L, const LVal *v, const int *perm, const int32_t yxf[3],
                   const char *suffix, Block **out)
{
    bool cacheable = v->kind == LV_PROD;
    if (cacheable && L->cache.node == L->cur && L->cache.src == v->src.b &&
        og_shape_eq(&L->cache.ps, &v->ps) && memcmp(L->cache.perm, perm, v->ps.ndim * sizeof *perm) == 0 &&
        memcmp(L->cache.yxf, yxf, sizeof L->cache.yxf) == 0) {
        *out = L->cache.si;
        return ST_OK;
    }
    int32_t shape[TIR_NDIMS] = {yxf[0], yxf[1], yxf[2]};
    Block *si = lw_block(L, BT_SI, suffix, shape, (int)lw_store_prec(v->prec));
    if (!si)
        return lw_oom(L);
    *out = si;
    Status st = lw_feed(L, v, si, 0, NULL, NULL, perm, NULL, NULL);
    if (st == ST_OK && cacheable) {
        L->cache.node = L->cur;
        L->cache.src = v->src.b;
        L->cache.ps = v->ps;
        memcpy(L->cache.perm, perm, v->ps.ndim * sizeof *perm);
        memcpy(L->cache.yxf, yxf, sizeof L->cache.yxf);
        L->cache.si = si;
    }
    return st;
}

Block *lw_compute(Lw *L, BlockType t, const char *suffix, const int32_t yxf[3],
                  Block *const *ins, int nins, int prec)
{
    int32_t shape[TIR_NDIMS] = {yxf[0], yxf[1], yxf[2]};
    Block *c = lw_block(L, t, suffix, shape, prec);
    if (!c)
        return NULL;
    for (int k = 0; k < nins; k++)
        if (lw_connect(L, ins[k], c, (uint32_t)k) != ST_OK)
            return NULL;
    return c;
}

Status lw_const_producer(Lw *L, const LVal *c, const char *suffix, LVal *out)
{
    int perm[OG_MAX_DIMS];
    int32_t yxf[3];
    Status st = lw_layout(L, NULL, &c->ps, perm, yxf);
    if (st != ST_OK)
        return st;
    char sub[64];
    snprintf(sub, sizeof sub, "%s/const", suffix && *suffix ? suffix : "param");
    int32_t shape[TIR_NDIMS] = {yxf[0], yxf[1], yxf[2]};
    Block *si = lw_block(L, BT_SI, sub, shape, (int)lw_store_prec(c->prec));
    if (!si)
        return lw_oom(L);
    if ((st = lw_set_data(L, si, lw_store_prec(c->prec), c->c.data, c->c.count)) != ST_OK)
        return st;
    Block *id = lw_compute(L, BT_CADD, suffix && *suffix ? suffix : "param", yxf, &si, 1,
                           PR_INT_32);
    if (!id)
        return lw_oom(L);
    lw_prod(out, id, &c->ps, perm, c->prec);
    return ST_OK;
}
