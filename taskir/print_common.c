/* print_common.c: helpers every printer uses (see print_internal.h): edge ends (through the
 * use index, uses.h), the FNV-1a checksum of tensor values, UTF-8 checking and quoting, dims
 * and names. */
#include "taskir/print_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- edge ends ---- */

Status print_index_build(const Graph *g, PrintIndex *ix, Diag *d)
{
    if (!graph_uses(g, &ix->uses))
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory indexing the interfaces");
    return ST_OK;
}

void print_index_finish(PrintIndex *ix)
{
    graph_uses_finish(&ix->uses);
}

void print_edge_end(const Graph *g, const PrintIndex *ix, const Edge *e, bool src, PrintEnd *end)
{
    memset(end, 0, sizeof *end);
    const IfaceUse *u = uses_edge_end(g, &ix->uses, e, src, &end->block);
    if (!u)
        return;
    const Block *b = end->block;
    end->cluster_idx = u->cluster;
    end->iface_idx = u->iface;
    end->cluster = src ? &b->out[u->cluster] : &b->in[u->cluster];
    end->iface = &end->cluster->ifaces[u->iface];
    if (end->iface->has_size) {
        for (int i = 0; i < TIR_CDIMS; i++)
            end->box[i] = end->iface->size.d[i];
        end->has_box = true;
    } else {
        end->has_box = blk_cluster_dims(b, !src, u->cluster, end->box);
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

uint64_t print_fnv1a_i8(const int8_t *v, uint32_t n)
{
    uint64_t h = FNV_OFFSET;
    for (uint32_t i = 0; i < n; i++)
        h = fnv_word(h, (uint32_t)(int32_t)v[i]);
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
    /* TestMode of docs/wire.md; only the printers name it. */
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
        out[n++] = t->i8 ? (PrintVals){PV_I8, "int32", t->i8, t->n_i32}
                         : (PrintVals){PV_I32, "int32", t->i32, t->n_i32};
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
    case PV_I8:
        fprintf(out, "%d", (int)((const int8_t *)v->v)[i]);
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
    case PV_I8:
        return ((const int8_t *)v->v)[i];
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
    case PV_I8:
        return print_fnv1a_i8(v->v, v->n);
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
