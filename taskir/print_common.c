/* print_common.c: helpers every printer uses (see print_internal.h): the edge-end index,
 * the FNV-1a checksum of tensor values, UTF-8 checking and quoting, dims and names. */
#include "taskir/print_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- edge ends ---- */

static int ref_cmp(const void *pa, const void *pb)
{
    const PrintIfaceRef *a = pa, *b = pb;
    if (a->edge_id != b->edge_id)
        return a->edge_id < b->edge_id ? -1 : 1;
    if (a->out != b->out)
        return a->out ? 1 : -1;
    if (a->block_id != b->block_id)
        return a->block_id < b->block_id ? -1 : 1;
    if (a->block_pos != b->block_pos)
        return a->block_pos < b->block_pos ? -1 : 1;
    if (a->cluster != b->cluster)
        return a->cluster < b->cluster ? -1 : 1;
    if (a->iface != b->iface)
        return a->iface < b->iface ? -1 : 1;
    return 0;
}

static void add_refs(PrintIndex *ix, const Block *b, uint32_t pos, const Cluster *c,
                     uint32_t nc, bool out)
{
    for (uint32_t k = 0; k < nc; k++)
        for (uint32_t i = 0; i < c[k].n_ifaces; i++)
            ix->refs[ix->n++] = (PrintIfaceRef){c[k].ifaces[i].edge_id, out, b->id, pos, k, i};
}

Status print_index_build(const Graph *g, PrintIndex *ix, Diag *d)
{
    ix->refs = NULL;
    ix->n = 0;
    size_t total = 0;
    for (uint32_t p = 0; p < g->n_blocks; p++) {
        const Block *b = g->blocks[p];
        for (uint32_t k = 0; k < b->n_in; k++)
            total += b->in[k].n_ifaces;
        for (uint32_t k = 0; k < b->n_out; k++)
            total += b->out[k].n_ifaces;
    }
    if (!total)
        return ST_OK;
    if (total > SIZE_MAX / sizeof *ix->refs ||
        !(ix->refs = malloc(total * sizeof *ix->refs)))
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory indexing the interfaces");
    for (uint32_t p = 0; p < g->n_blocks; p++) {
        const Block *b = g->blocks[p];
        add_refs(ix, b, p, b->in, b->n_in, false);
        add_refs(ix, b, p, b->out, b->n_out, true);
    }
    qsort(ix->refs, ix->n, sizeof *ix->refs, ref_cmp);
    return ST_OK;
}

void print_index_finish(PrintIndex *ix)
{
    free(ix->refs);
    ix->refs = NULL;
    ix->n = 0;
}

void print_edge_end(const Graph *g, const PrintIndex *ix, const Edge *e, bool src, PrintEnd *end)
{
    memset(end, 0, sizeof *end);
    int32_t id = src ? e->src : e->dst;
    end->block = graph_block(g, id);
    if (!end->block)
        return;
    /* lower bound of (edge id, end, block id) */
    size_t lo = 0, hi = ix->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const PrintIfaceRef *r = &ix->refs[mid];
        int c = r->edge_id != e->id ? (r->edge_id < e->id ? -1 : 1)
                : r->out != src     ? (r->out ? 1 : -1)
                : r->block_id != id ? (r->block_id < id ? -1 : 1)
                                    : 0;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == ix->n)
        return;
    const PrintIfaceRef *r = &ix->refs[lo];
    if (r->edge_id != e->id || r->out != src || r->block_id != id)
        return;
    /* With duplicate block ids, the end is the first block with the id (graph_block); a
     * later duplicate's interface does not count. */
    if (g->blocks[r->block_pos] != end->block)
        return;
    const Block *b = end->block;
    end->cluster_idx = r->cluster;
    end->iface_idx = r->iface;
    end->cluster = src ? &b->out[r->cluster] : &b->in[r->cluster];
    end->iface = &end->cluster->ifaces[r->iface];
    if (end->iface->has_size) {
        for (int i = 0; i < TIR_CDIMS; i++)
            end->box[i] = end->iface->size.d[i];
        end->has_box = true;
    } else {
        end->has_box = blk_cluster_dims(b, !src, r->cluster, end->box);
    }
}

bool print_edge_touches(const Edge *e, const Block *b)
{
    return e->src == b->id || e->dst == b->id;
}

/* ---- checksum ---- */

#define FNV_OFFSET UINT64_C(0xcbf29ce484222325)
#define FNV_PRIME UINT64_C(0x100000001b3)

static uint64_t fnv_word(uint64_t h, uint32_t w)
{
    for (int i = 0; i < 4; i++) {
        h ^= (w >> (8 * i)) & 0xffu;
        h *= FNV_PRIME;
    }
    return h;
}

uint64_t print_fnv1a_i32(const int32_t *v, uint32_t n)
{
    uint64_t h = FNV_OFFSET;
    for (uint32_t i = 0; i < n; i++)
        h = fnv_word(h, (uint32_t)v[i]); /* conversion to unsigned is modular: well defined */
    return h;
}

uint64_t print_fnv1a_u32(const uint32_t *v, uint32_t n)
{
    uint64_t h = FNV_OFFSET;
    for (uint32_t i = 0; i < n; i++)
        h = fnv_word(h, v[i]);
    return h;
}

uint64_t print_fnv1a_f32(const float *v, uint32_t n)
{
    uint64_t h = FNV_OFFSET;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t w;
        memcpy(&w, &v[i], sizeof w);
        h = fnv_word(h, w);
    }
    return h;
}

/* ---- strings ---- */

void print_quoted(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('\'', out);
    while (*p) {
        size_t n = utf8_seq_len(p);
        if (n > 1) {
            fwrite(p, 1, n, out);
            p += n;
            continue;
        }
        unsigned c = *p++;
        if (c == '\'' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", out);
        else if (c == '\t')
            fputs("\\t", out);
        else if (n == 0 || c < 0x20 || c == 0x7f)
            fprintf(out, "\\x%02x", c);
        else
            fputc((int)c, out);
    }
    fputc('\'', out);
}

void print_dims(FILE *out, const int32_t *dims, int n)
{
    bool any = false;
    for (int i = 0; i < n; i++) {
        if (dims[i] == 0)
            continue;
        fprintf(out, "%s%s=%d", any ? " " : "", tir_dim_names[i], (int)dims[i]);
        any = true;
    }
    if (!any)
        fputc('0', out);
}

void print_pcode(BlockType t, char buf[8])
{
    int p = bt_info(t)->pcode;
    if (p > 0 && p < 1000)
        snprintf(buf, 8, "P%02d", p);
    else
        buf[0] = 0;
}

const char *print_role(const Block *b, bool input, uint32_t idx)
{
    const ClusterSpec *s = input ? blk_in_spec(b, idx) : blk_out_spec(b, idx);
    return s ? s->role : NULL;
}

const char *print_test_mode(int mode)
{
    /* TestMode of shared/TASKIR-WIRE.md; only the printers name it. */
    static const char *const names[] = {"MEMORY_STATE", "PRIM_OUTPUT", "CASE_OUTPUT"};
    return mode >= 0 && mode < (int)(sizeof names / sizeof names[0]) ? names[mode] : NULL;
}

Status print_check_stream(FILE *out, Diag *d)
{
    if (fflush(out) != 0 || ferror(out))
        return diag_add(d, ST_RUNTIME, "io.write", NULL, "cannot write the output");
    return ST_OK;
}

/* ---- tensors ---- */

int print_tensor_vals(const Tensor *t, PrintVals out[3])
{
    int n = 0;
    if (t->n_i32)
        out[n++] = (PrintVals){PV_I32, "int32", t->i32, t->n_i32};
    if (t->n_u32)
        out[n++] = (PrintVals){PV_U32, "uint32", t->u32, t->n_u32};
    if (t->n_f32)
        out[n++] = (PrintVals){PV_F32, "float", t->f32, t->n_f32};
    return n;
}

void print_val(FILE *out, const PrintVals *v, uint32_t i)
{
    switch (v->kind) {
    case PV_I32:
        fprintf(out, "%d", (int)((const int32_t *)v->v)[i]);
        break;
    case PV_U32:
        fprintf(out, "%u", (unsigned)((const uint32_t *)v->v)[i]);
        break;
    case PV_F32:
        fprintf(out, "%.9g", (double)((const float *)v->v)[i]);
        break;
    }
}

double print_val_f64(const PrintVals *v, uint32_t i)
{
    switch (v->kind) {
    case PV_I32:
        return ((const int32_t *)v->v)[i];
    case PV_U32:
        return ((const uint32_t *)v->v)[i];
    case PV_F32:
        break;
    }
    return ((const float *)v->v)[i];
}

uint64_t print_vals_fnv1a(const PrintVals *v)
{
    switch (v->kind) {
    case PV_I32:
        return print_fnv1a_i32(v->v, v->n);
    case PV_U32:
        return print_fnv1a_u32(v->v, v->n);
    case PV_F32:
        break;
    }
    return print_fnv1a_f32(v->v, v->n);
}

bool print_nestable(const Tensor *t, uint32_t count)
{
    if (t->n_dims == 0)
        return false;
    uint64_t p = 1;
    for (uint32_t i = 0; i < t->n_dims; i++) {
        if (t->dims[i] < 1)
            return false;
        p *= (uint64_t)t->dims[i];
        if (p > count)
            return false;
    }
    return p == count;
}

PrecisionId print_data_prec(const Block *b, const Tensor *t)
{
    return t->has_prec ? t->prec : blk_prec(b);
}

const char *print_kind_name(BlockKind k)
{
    static const char *const names[] = {"storage", "compute", "io", "null"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}
