/* verify_util.c: what the verifier's passes share (verify_util.h): recording findings, and
 * the checks of shapes, cluster dims and interface boxes several passes need.
 */
#include "taskir/verify_util.h"

#include "taskir/diag_block.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int vfy_idpos_cmp(const void *a, const void *b)
{
    const VIdPos *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* ---- reporting ---- */

#define VFY_MSG 1024

static void block_finding(Verifier *v, Status st, const char *rule, const Block *b,
                          const char *fmt, va_list ap)
{
    char msg[VFY_MSG];
    vsnprintf(msg, sizeof msg, fmt, ap);
    diag_block(v->d, st, rule, b, "%s", msg);
}

void vfy_block(Verifier *v, const char *rule, const Block *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    block_finding(v, ST_LOGIC, rule, b, fmt, ap);
    va_end(ap);
    v->found++;
}

void vfy_edge(Verifier *v, const char *rule, int32_t edge_id, const char *fmt, ...)
{
    char msg[VFY_MSG];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag_edge(v->d, ST_LOGIC, rule, edge_id, "%s", msg);
    v->found++;
}

void vfy_block_edge(Verifier *v, const char *rule, const Block *b, int32_t edge_id,
                    const char *fmt, ...)
{
    char msg[VFY_MSG];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t n = v->d->n;
    diag_block(v->d, ST_LOGIC, rule, b, "%s", msg);
    if (v->d->n > n) {
        v->d->entries[n].has_edge = true;
        v->d->entries[n].edge_id = edge_id;
    }
    v->found++;
}

void vfy_add(Verifier *v, const char *rule, const char *where, const char *fmt, ...)
{
    char msg[VFY_MSG];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag_add(v->d, ST_LOGIC, rule, where, "%s", msg);
    v->found++;
}

void vfy_pedantic(Verifier *v, const char *rule, const Block *b, const char *fmt, ...)
{
    if (!v->strict)
        return;
    va_list ap;
    va_start(ap, fmt);
    block_finding(v, ST_OK, rule, b, fmt, ap);
    va_end(ap);
}

/* ---- shared helpers ---- */

bool vfy_type_ok(const Block *b)
{
    return (unsigned)b->type < BT_COUNT;
}

bool vfy_shape_ok(const Block *b)
{
    if (!vfy_type_ok(b))
        return false;
    const char *dims = bt_info(b->type)->dims;
    for (int i = 0; i < TIR_NDIMS; i++) {
        int32_t x = b->shape.d[i];
        if (x < 0 || x > VFY_MAX_DIM || (dims[i] == 'R' && x == 0))
            return false;
    }
    return b->shape.n_branch >= 0 && b->shape.n_branch <= VFY_MAX_DIM;
}

bool vfy_cluster_dims(const Block *b, bool input, uint32_t idx, int32_t out[TIR_CDIMS])
{
    if (!vfy_type_ok(b))
        return false;
    const Cluster *c = NULL;
    if (input && idx < b->n_in)
        c = &b->in[idx];
    else if (!input && idx < b->n_out)
        c = &b->out[idx];
    if (c && c->has_shape) {
        for (int i = 0; i < TIR_CDIMS; i++) {
            if (c->shape.d[i] < 0)
                return false;
            out[i] = c->shape.d[i];
        }
        return true;
    }
    const ClusterSpec *spec = input ? blk_in_spec(b, idx) : blk_out_spec(b, idx);
    return spec && vfy_shape_ok(b) && blk_spec_dims(b, spec, out);
}

void vfy_cluster_name(const Block *b, bool input, uint32_t idx, char *buf, size_t len)
{
    const ClusterSpec *spec = NULL;
    if (vfy_type_ok(b))
        spec = input ? blk_in_spec(b, idx) : blk_out_spec(b, idx);
    if (spec)
        snprintf(buf, len, "%s cluster %" PRIu32 " ('%s')", input ? "input" : "output", idx,
                 spec->role);
    else
        snprintf(buf, len, "%s cluster %" PRIu32, input ? "input" : "output", idx);
}

void vfy_dims_text(const int64_t *dims, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < TIR_CDIMS; i++) {
        if (dims[i] == 0 || at >= len)
            continue;
        int n = snprintf(buf + at, len - at, "%s%s=%" PRId64, at ? " " : "", tir_dim_names[i],
                         dims[i]);
        if (n > 0)
            at += (size_t)n;
    }
    if (!at)
        snprintf(buf, len, "(empty)");
}

bool vfy_iface_box(const int32_t cd[TIR_CDIMS], const Iface *f, int64_t pos[TIR_CDIMS],
                   int64_t size[TIR_CDIMS], char *why, size_t len)
{
    bool ok = true;
    why[0] = '\0';
    for (int i = 0; i < TIR_CDIMS; i++) {
        const char *n = tir_dim_names[i];
        int64_t c = cd[i];
        int64_t p = f->has_pos ? f->pos.d[i] : 0;
        int64_t s = f->has_size ? f->size.d[i] : c;
        pos[i] = p;
        size[i] = s;
        if (!ok)
            continue;
        if (c == 0) {
            if (p != 0) {
                snprintf(why, len, "has %s position %" PRId64 ", a dim the cluster does not use",
                         n, p);
                ok = false;
            } else if (s != 0 && s != 1) {
                snprintf(why, len, "has %s size %" PRId64 ", a dim the cluster does not use", n,
                         s);
                ok = false;
            }
        } else if (p < 0) {
            snprintf(why, len, "has a negative %s position %" PRId64, n, p);
            ok = false;
        } else if (s <= 0) {
            snprintf(why, len, "has %s size %" PRId64 ", not positive", n, s);
            ok = false;
        } else if (p + s > c) {
            snprintf(why, len,
                     "reaches past the cluster: %s position %" PRId64 " + size %" PRId64
                     " > %s=%" PRId64,
                     n, p, s, n, c);
            ok = false;
        }
    }
    Shape wp, ws;
    iface_wire_shape(f, false, &wp);
    iface_wire_shape(f, true, &ws);
    for (int i = TIR_CDIMS; ok && i < TIR_NDIMS; i++) {
        if ((f->has_pos && wp.d[i]) || (f->has_size && ws.d[i])) {
            snprintf(why, len, "gives %s, which is not a cluster dim", tir_dim_names[i]);
            ok = false;
        }
    }
    return ok;
}
