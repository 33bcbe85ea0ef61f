/* verify_culprit.c: when the two ends of an edge differ in size, names the block that is
 * wrong instead of the edge, where the table tells which end fixes the shape:
 *   shape.operand  a compute block's weight, alpha, lut or bias cluster (its shape follows from
 *                  the compute block's shape and attributes) fed by a storage block that holds
 *                  another shape: a CC whose SW disagrees with its kernel, a CLUT whose LUT_DW
 *                  disagrees with its table;
 *   io.shape       an INPUT whose shape is not that of the storage block it feeds (e.g. a dim
 *                  the file wrote as -1, read as absent), an OUTPUT whose shape is not that of
 *                  the storage block it reads (e.g. a dim that block does not have).
 * Only whole-cluster ends are judged (an interface with its own size is the edge's choice).
 * The ends are those verify_edge.c resolves through the use index.
 */
#include "taskir/verify_impl.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static bool whole(const VEnd *end, bool input)
{
    const Cluster *c = input ? &end->b->in[end->cl] : &end->b->out[end->cl];
    return !c->ifaces[end->fi].has_size;
}

/* Does the cluster spec follow from the block alone, not from the data it computes on: no y,
 * x, iy or ix among its dims (weight [f r ky kx], alpha [f], lut [2^LUT_DW], bias [f])? */
static bool is_operand(const BlockTypeInfo *ti, const ClusterSpec *spec)
{
    if (!spec || spec == &ti->ins[0])
        return false;
    for (int i = 0; i < TIR_CDIMS; i++)
        if (spec->dim[i] == D_Y || spec->dim[i] == D_X || spec->dim[i] == D_IY ||
            spec->dim[i] == D_IX)
            return false;
    return true;
}

static void name_of(const Block *b, char *buf, size_t len)
{
    if (b->name)
        snprintf(buf, len, "%s block %d '%s'", bt_info(b->type)->name, (int)b->id, b->name);
    else
        snprintf(buf, len, "%s block %d", bt_info(b->type)->name, (int)b->id);
}

/* The names of the dims set in mask: "y and r". */
static void mask_dims(unsigned mask, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < TIR_NDIMS && at < len; i++)
        if (mask & (1u << i))
            at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "", tir_dim_names[i]);
}

static bool operand_culprit(Verifier *v, const Edge *e, const VEnd *src, const VEnd *dst,
                            const int64_t d0[TIR_CDIMS], const char *st, const char *dt)
{
    const Block *b = dst->b;
    const BlockTypeInfo *ti = bt_info(b->type);
    const ClusterSpec *spec = blk_in_spec(b, dst->cl);
    if (ti->kind != BK_COMPUTE || bt_info(src->b->type)->kind != BK_STORAGE ||
        b->in[dst->cl].has_shape || !is_operand(ti, spec))
        return false;
    char who[192], what[256];
    name_of(src->b, who, sizeof who);
    bool lut = false;
    for (int i = 0; i < TIR_CDIMS; i++)
        lut = lut || spec->dim[i] == D_LUT;
    if (lut)
        snprintf(what, sizeof what, "LUT_DW=%d gives a table of %" PRId64 " entries",
                 (int)blk_attr(b, AT_LUT_DW), d0[D_F]);
    else
        snprintf(what, sizeof what, "its shape gives its '%s' %s", spec->role, dt);
    vfy_block_edge(v, "shape.operand", b, e->id, "%s, but %s, which feeds its '%s' (edge %d), "
                   "holds %s", what, who, spec->role, (int)e->id, st);
    return true;
}

static bool io_culprit(Verifier *v, const Edge *e, const VEnd *src, const VEnd *dst,
                       const int64_t s0[TIR_CDIMS], const int64_t d0[TIR_CDIMS], const char *st,
                       const char *dt)
{
    bool in = src->b->type == BT_INPUT;
    if (!in && dst->b->type != BT_OUTPUT)
        return false;
    const Block *io = in ? src->b : dst->b, *other = in ? dst->b : src->b;
    const int64_t *mine = in ? s0 : d0, *theirs = in ? d0 : s0;
    char who[192], why[320] = "", dims[64];
    name_of(other, who, sizeof who);
    unsigned extra = 0;
    for (int i = 0; i < TIR_CDIMS; i++)
        if (mine[i] > 1 && theirs[i] == 0)
            extra |= 1u << i;
    if (io->shape.minus_one) {
        mask_dims(io->shape.minus_one, dims, sizeof dims);
        snprintf(why, sizeof why, " (the file gives %s as -1, read as absent; a dim is never "
                 "negative)", dims);
    } else if (extra) {
        mask_dims(extra, dims, sizeof dims);
        snprintf(why, sizeof why, " (%s: a dim %s does not have)", dims, who);
    }
    if (in)
        vfy_block_edge(v, "io.shape", io, e->id, "its shape gives (%s)%s, but %s, which it "
                       "feeds (edge %d), holds (%s)", st, why, who, (int)e->id, dt);
    else
        vfy_block_edge(v, "io.shape", io, e->id, "its shape gives (%s)%s, but %s, which it "
                       "reads (edge %d), holds (%s)", dt, why, who, (int)e->id, st);
    return true;
}

bool verify_size_culprit(Verifier *v, const Edge *e, const VEnd *src, const VEnd *dst,
                         const int64_t s0[TIR_CDIMS], const int64_t d0[TIR_CDIMS])
{
    if (!src->b || !dst->b || !vfy_type_ok(src->b) || !vfy_type_ok(dst->b) ||
        !whole(src, false) || !whole(dst, true))
        return false;
    char st[160], dt[160];
    vfy_dims_text(s0, st, sizeof st);
    vfy_dims_text(d0, dt, sizeof dt);
    return operand_culprit(v, e, src, dst, d0, st, dt) ||
           io_culprit(v, e, src, dst, s0, d0, st, dt);
}
