/* lower_block.c: what every lowering step uses to report and to build (lower_internal.h):
 * messages naming the node being lowered, block names derived from it, blocks, their data,
 * attributes and whole-cluster edges, and the lowering's entry to the edge encoder
 * (taskir/encode.h: lw_encode, lw_encode_whole). Needs only the Graph and the node being
 * lowered, so the value code (lower_value.c) builds on it.
 */
#include "frontend/lower/lower_internal.h"

#include <stdarg.h>
#include <stdio.h>

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
