/* verify.c: verify_graph, the verifier's shared helpers, and the graph-wide rules that need
 * no pass of their own (duplicate block ids, placeholder blocks, socket ids, groups).
 *
 * The verifier reads the graph only. It reports every finding (docs/rules.md lists the rule
 * ids), never stops at the first, and never trusts the graph: ids may dangle, dims may be
 * negative or huge, clusters may be missing. Checks that depend on a fact another rule found
 * broken (e.g. cluster boxes derived from a shape with a missing dim) are skipped rather than
 * reported twice. Time is linear in the size of the graph, plus sorting, plus the overlap
 * search of verify_iface.c.
 */
#include "taskir/verify.h"

#include "taskir/verify_impl.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    for (int i = TIR_CDIMS; ok && i < TIR_NDIMS; i++) {
        if ((f->has_pos && f->pos.d[i]) || (f->has_size && f->size.d[i])) {
            snprintf(why, len, "gives %s, which is not a cluster dim", tir_dim_names[i]);
            ok = false;
        }
    }
    return ok;
}

/* ---- graph-wide rules ---- */

static void check_block_ids(Verifier *v, const Block *b, uint32_t pos)
{
    long first = graph_block_pos(v->g, b->id);
    if (first != (long)pos && first >= 0)
        vfy_block(v, "block.id.dup", b, "block id %d is also the id of the block at position %ld",
                  (int)b->id, first);
    if (!vfy_type_ok(b))
        vfy_block(v, "block.null", b, "type %d is not a block type", (int)b->type);
    else if (bt_info(b->type)->kind == BK_NULL)
        vfy_block(v, "block.null", b, "a TASK_NULL placeholder has no meaning in a graph");
}

typedef struct Socket {
    int32_t id;
    uint32_t pos;
} Socket;

static int socket_cmp(const void *a, const void *b)
{
    const Socket *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* io.socket, io.socket.dup: sorts the socket ids of each kind and reports repeats on the later
 * block (file order). */
static void check_sockets(Verifier *v)
{
    const Graph *g = v->g;
    Socket *s = malloc((g->n_blocks ? g->n_blocks : 1) * sizeof *s);
    if (!s) {
        v->oom = true;
        return;
    }
    for (int kind = 0; kind < 2; kind++) {
        BlockType t = kind ? BT_OUTPUT : BT_INPUT;
        uint32_t n = 0;
        for (uint32_t i = 0; i < g->n_blocks; i++) {
            const Block *b = g->blocks[i];
            if (b->type != t)
                continue;
            if (!b->has_socket_id)
                vfy_pedantic(v, "io.socket", b, "an %s block without a socket_id has socket 0",
                             bt_info(t)->name);
            s[n].id = b->socket_id; /* absent: 0, as a proto2 reader reads it */
            s[n++].pos = i;
        }
        qsort(s, n, sizeof *s, socket_cmp);
        uint32_t run = 0; /* the first entry of the current run of equal ids */
        for (uint32_t i = 1; i < n; i++) {
            if (s[i].id != s[run].id) {
                run = i;
                continue;
            }
            vfy_block(v, "io.socket.dup", g->blocks[s[i].pos],
                      "socket_id %d is also the socket of %s block %d", (int)s[i].id,
                      bt_info(t)->name, (int)g->blocks[s[run].pos]->id);
        }
    }
    free(s);
}

/* io.model: a model tensor (extension field 101) only on INPUT / OUTPUT blocks, with an
 * integer element type a .npy file holds, and a shape whose volume is a whole number of the
 * block's samples (the block holds one sample of it, or all of it). */
static void check_model(Verifier *v, const Block *b)
{
    if (!b->has_model)
        return;
    if (b->type != BT_INPUT && b->type != BT_OUTPUT) {
        vfy_block(v, "io.model", b, "a model tensor belongs to an INPUT or OUTPUT block");
        return;
    }
    PrecisionId p = b->model_prec;
    if (b->has_model_prec && p != PR_INT_8 && p != PR_UINT_8 && p != PR_INT_16 &&
        p != PR_INT_32) {
        vfy_block(v, "io.model", b, "the model tensor's element type %s is none of INT_8, "
                  "UINT_8, INT_16, INT_32", pr_info(p)->name);
        return;
    }
    int64_t mv = blk_model_volume(b), bv = 1;
    for (int i = 0; i < 4; i++)
        if (b->shape.d[i] > 0)
            bv *= b->shape.d[i];
    if (mv < 0 || (bv ? mv % bv != 0 : mv != 0))
        vfy_block(v, "io.model", b, "the model tensor's shape holds %lld elements, not a whole "
                  "number of the block's %lld", (long long)mv, (long long)bv);
}

static void check_groups(Verifier *v)
{
    const Graph *g = v->g;
    for (uint32_t i = 0; i < g->n_groups; i++) {
        const Group *gr = &g->groups[i];
        char where[48];
        snprintf(where, sizeof where, "group %d", (int)gr->id);
        for (uint32_t k = 0; k < gr->n_block_ids; k++)
            if (!graph_block(g, gr->block_ids[k]))
                vfy_add(v, "group.block", where, "lists block %d, which does not exist",
                        (int)gr->block_ids[k]);
    }
}

Status verify_graph(const Graph *g, Diag *d)
{
    return verify_graph_opts(g, NULL, d);
}

Status verify_graph_opts(const Graph *g, const VerifyOptions *o, Diag *d)
{
    Verifier v = {.g = g, .d = d, .strict = o && o->strict};
    size_t ne = g->n_edges ? g->n_edges : 1;
    v.out_refs = calloc(ne, sizeof *v.out_refs);
    v.in_refs = calloc(ne, sizeof *v.in_refs);
    v.src_end = calloc(ne, sizeof *v.src_end);
    v.dst_end = calloc(ne, sizeof *v.dst_end);
    if (!v.out_refs || !v.in_refs || !v.src_end || !v.dst_end) {
        v.oom = true;
    } else {
        if (g->n_blocks == 0) /* also what a 0-byte file decodes to */
            vfy_add(&v, "graph.empty", NULL, "the graph has no blocks: nothing to run");
        for (uint32_t i = 0; i < g->n_blocks; i++) {
            const Block *b = g->blocks[i];
            check_block_ids(&v, b, i);
            if (!vfy_type_ok(b) || bt_info(b->type)->kind == BK_NULL)
                continue;
            verify_block_local(&v, b);
            verify_block_ifaces(&v, b);
            check_model(&v, b);
        }
        check_sockets(&v);
        check_groups(&v);
        verify_edges(&v);
        verify_cycles(&v);
    }
    free(v.out_refs);
    free(v.in_refs);
    free(v.src_end);
    free(v.dst_end);
    free(v.boxes);
    if (v.oom)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory while verifying the graph");
    return v.found ? ST_LOGIC : ST_OK;
}
