/* lower_block.c: what every lowering step uses to report and to build (lower_internal.h):
 * messages naming the node being lowered, block names derived from it, blocks, their data,
 * attributes and whole-cluster edges. Needs only the Graph and the node being lowered, so
 * the value code (lower_value.c) and the edge encoder (lower_encode.c) both build on it.
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
    char name[512];
    lw_name(L, suffix, name, sizeof name);
    Block *b = graph_add_block(L->g, t, GRAPH_AUTO_ID, name);
    if (!b)
        return NULL;
    if (shape) {
        for (int i = 0; i < TIR_NDIMS; i++)
            b->shape.d[i] = shape[i];
        b->has_shape = true;
    }
    if (prec >= 0) {
        b->prec = (PrecisionId)prec;
        b->has_prec = true;
    }
    /* Producers always have their output cluster, consumed or not. */
    BlockKind k = bt_info(t)->kind;
    if ((k == BK_COMPUTE || t == BT_INPUT) && !blk_add_output(L->g, b))
        return NULL;
    return b;
}

PrecisionId lw_store_prec(int32_t p)
{
    return p <= 8 ? PR_INT_8 : p <= 16 ? PR_INT_16 : PR_INT_32;
}

Status lw_set_data(Lw *L, Block *b, PrecisionId prec, const int32_t *v, int64_t n)
{
    int32_t dims[TIR_CDIMS];
    uint32_t nd = 0;
    for (int i = 0; i < TIR_CDIMS; i++)
        if (b->shape.d[i] > 0)
            dims[nd++] = b->shape.d[i];
    if (n > UINT32_MAX || pr_info(prec)->container != TC_INT32)
        return diag_add(L->d, ST_RUNTIME, "lower.internal", NULL,
                        "data of %lld values of precision %s", (long long)n,
                        pr_info(prec)->name);
    /* tensor_set_i32 copies into the graph's arena; the precision is then set */
    Tensor *t = arena_alloc(L->g->arena, 1, sizeof *t);
    if (!t || !tensor_set_i32(L->g, t, dims, nd, v, (uint32_t)n))
        return lw_oom(L);
    t->prec = prec;
    b->data = t;
    return ST_OK;
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
