/* pbio.c: TaskGraph .pb <-> Graph. The only file besides pbwire.c that touches the generated
 * Taskir__* structs (the wire structs are a format, not a data structure). */
#include "taskir/pbio.h"

#include "taskir/canon.h"
#include "taskir/fileio.h"
#include "taskir/filemap.h"
#include "taskir/pbpack.h"
#include "taskir/pbruns.h"
#include "taskgraph.pb-c.h"

#include <stdlib.h>
#include <string.h>

/* ---- loading ---- */

/* Runs of at least this many values are decoded narrow (LoadOptions.narrow) when they fit:
 * the tensors the saver encodes itself (DEFER_MIN_VALUES), so a small one never is. */
enum { NARROW_MIN_VALUES = 64 };

/* The values of a run that pb_wire_lift lifted, decoded into the graph's arena. */
typedef struct RunValues {
    uint32_t *v;
    int8_t *v8;                 /* or the values as int8 (v NULL): decoded narrow */
    uint64_t n;
} RunValues;

typedef struct Loader {
    Graph *g;
    Diag *d;
    const RunValues *runs;      /* lifted tensor values: int32_data and uint32_data hold */
    size_t n_runs;              /* indexes into runs[] (NULL: they hold the values) */
} Loader;

/* -1 is the existing tools' "unused"; it reads as absent. */
static int32_t dim_in(protobuf_c_boolean has, int32_t v)
{
    return has && v != -1 ? v : 0;
}

static bool shape_in(Loader *L, const Taskir__Shape *w, Shape *s)
{
    memset(s, 0, sizeof *s);
    if (!w)
        return true;
    _Static_assert(TIR_NDIMS <= 8, "minus_one is an 8-bit mask");
    /* in the Task IR order y x f r ky kx iy ix (docs/wire.md) */
    const protobuf_c_boolean has[TIR_NDIMS] = {w->has_ny, w->has_nx, w->has_nf, w->has_nr,
                                               w->has_nky, w->has_nkx, w->has_niy, w->has_nix};
    const int32_t val[TIR_NDIMS] = {w->ny, w->nx, w->nf, w->nr, w->nky, w->nkx, w->niy, w->nix};
    for (int i = 0; i < TIR_NDIMS; i++) {
        s->d[i] = dim_in(has[i], val[i]);
        if (has[i] && val[i] == -1)
            s->minus_one |= (uint8_t)(1u << i);
    }
    s->n_branch = dim_in(w->has_n_branch, w->n_branch);
    if (w->n_extra_dimensions) {
        if (w->n_extra_dimensions > TIR_MAX_TENSOR_DIMS) {
            diag_add(L->d, ST_LOGIC, "limit.dims", NULL,
                     "a shape has %zu extra_dimensions, more than the limit of %u",
                     w->n_extra_dimensions, TIR_MAX_TENSOR_DIMS);
            return false;
        }
        s->extra = arena_grow(L->g->arena, w->extra_dimensions, w->n_extra_dimensions,
                              w->n_extra_dimensions, sizeof(int32_t));
        if (!s->extra)
            return false;
        s->n_extra = (uint32_t)w->n_extra_dimensions;
    }
    return true;
}

static bool prec_in(Loader *L, const char *where, int wire, PrecisionId *out)
{
    if (pr_from_wire(wire, out))
        return true;
    diag_add(L->d, ST_LOGIC, "load.enum", where, "unknown Precision value %d", wire);
    return false;
}

/* The values of a lifted field: marks[0 .. n) index L->runs, whose values are joined in
 * that order (one run: its values as they are). With narrow (not NULL), one run decoded
 * narrow is given as it is there (*vals NULL); else such runs are widened (an int8 value v
 * read as an int32 or a uint32 is the bits of (int32_t)v). false when out of memory or past
 * 2^32 values. */
static bool lifted_in(Loader *L, const char *where, const uint32_t *marks, size_t n,
                      uint32_t **vals, int8_t **narrow, uint32_t *count)
{
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        if (marks[i] >= L->n_runs) {
            diag_add(L->d, ST_RUNTIME, "internal", where, "a lifted run index out of range");
            return false;
        }
        total += L->runs[marks[i]].n;
    }
    if (total > UINT32_MAX) {
        diag_add(L->d, ST_LOGIC, "limit.tensor", where, "tensor has more than 2^32 values");
        return false;
    }
    *count = (uint32_t)total;
    if (n == 1 && (L->runs[marks[0]].v || narrow)) {
        *vals = L->runs[marks[0]].v;
        if (narrow)
            *narrow = L->runs[marks[0]].v8;
        return true;
    }
    *vals = arena_alloc(L->g->arena, (size_t)total, sizeof(uint32_t));
    if (!*vals)
        return false;
    for (size_t i = 0, at = 0; i < n; at += (size_t)L->runs[marks[i]].n, i++) {
        const RunValues *r = &L->runs[marks[i]];
        if (r->v)
            memcpy(*vals + at, r->v, (size_t)r->n * sizeof(uint32_t));
        else
            for (uint64_t k = 0; k < r->n; k++)
                (*vals)[at + k] = (uint32_t)(int32_t)r->v8[k];
    }
    return true;
}

/* narrow: t may hold its int32_data as int8 (a block's data) when the run was decoded so. */
static bool tensor_in(Loader *L, const char *where, const Taskir__Tensor *w, Tensor *t,
                      bool narrow)
{
    memset(t, 0, sizeof *t);
    Arena *a = L->g->arena;
    if (w->n_dims > TIR_MAX_TENSOR_DIMS) {
        diag_add(L->d, ST_LOGIC, "limit.dims", where, "tensor has %zu dims, more than %u",
                 w->n_dims, TIR_MAX_TENSOR_DIMS);
        return false;
    }
    if (w->n_int32_data > UINT32_MAX || w->n_uint32_data > UINT32_MAX ||
        w->n_float_data > UINT32_MAX) {
        diag_add(L->d, ST_LOGIC, "limit.tensor", where, "tensor has more than 2^32 values");
        return false;
    }
    if (L->runs && w->n_int32_data &&
        !lifted_in(L, where, (const uint32_t *)w->int32_data, w->n_int32_data,
                   (uint32_t **)&t->i32, narrow ? &t->i8 : NULL, &t->n_i32))
        return false;
    if (L->runs && w->n_uint32_data &&
        !lifted_in(L, where, w->uint32_data, w->n_uint32_data, &t->u32, NULL, &t->n_u32))
        return false;
    if (w->has_precision) {
        if (!prec_in(L, where, w->precision, &t->prec))
            return false;
        t->has_prec = true;
    }
    t->n_dims = (uint32_t)w->n_dims;
    t->n_f32 = (uint32_t)w->n_float_data;
    t->dims = arena_grow(a, w->dims, w->n_dims, w->n_dims, sizeof(int32_t));
    if (!t->i32 && !t->i8) {
        t->n_i32 = (uint32_t)w->n_int32_data;
        t->i32 = arena_grow(a, w->int32_data, t->n_i32, t->n_i32, sizeof(int32_t));
    }
    if (!t->u32) {
        t->n_u32 = (uint32_t)w->n_uint32_data;
        t->u32 = arena_grow(a, w->uint32_data, t->n_u32, t->n_u32, sizeof(uint32_t));
    }
    t->f32 = arena_grow(a, w->float_data, t->n_f32, t->n_f32, sizeof(float));
    if (w->name)
        t->name = arena_strdup(a, w->name);
    return !arena_failed(a);
}

static bool cluster_in(Loader *L, const char *where, const Taskir__EdgeCluster *w, Cluster *c)
{
    if (w->n_interfaces > TIR_MAX_IFACES) {
        diag_add(L->d, ST_LOGIC, "limit.ifaces", where,
                 "a cluster has %zu interfaces, more than the limit of %u", w->n_interfaces,
                 TIR_MAX_IFACES);
        return false;
    }
    c->has_shape = w->shape != NULL;
    if (!shape_in(L, w->shape, &c->shape))
        return false;
    if (!w->n_interfaces)
        return true;
    c->ifaces = arena_alloc(L->g->arena, w->n_interfaces, sizeof(Iface));
    if (!c->ifaces)
        return false;
    c->n_ifaces = c->cap_ifaces = (uint32_t)w->n_interfaces;
    for (size_t i = 0; i < w->n_interfaces; i++) {
        const Taskir__EdgeInterface *wi = w->interfaces[i];
        Iface *f = &c->ifaces[i];
        f->has_pos = wi->position != NULL;
        f->has_size = wi->size != NULL;
        Shape pos, size;
        if (!shape_in(L, wi->position, &pos) || !shape_in(L, wi->size, &size) ||
            !iface_set_wire(L->g, f, &pos, &size))
            return false;
        f->edge_id = wi->edge_id;
    }
    return true;
}

static bool clusters_in(Loader *L, const char *where, Taskir__EdgeCluster **w, size_t n,
                        Cluster **out, uint32_t *n_out, uint32_t *cap)
{
    if (n > TIR_MAX_CLUSTERS) {
        diag_add(L->d, ST_LOGIC, "limit.clusters", where,
                 "%zu clusters, more than the limit of %u", n, TIR_MAX_CLUSTERS);
        return false;
    }
    if (!n)
        return true;
    *out = arena_alloc(L->g->arena, n, sizeof(Cluster));
    if (!*out)
        return false;
    *n_out = *cap = (uint32_t)n;
    for (size_t i = 0; i < n; i++)
        if (!cluster_in(L, where, w[i], &(*out)[i]))
            return false;
    return true;
}

/* The model tensor of an INPUT / OUTPUT block (extension field 101). */
static bool model_in(Loader *L, const char *where, const Taskir__ModelTensor *w, Block *b)
{
    if (w->n_dims > TIR_MAX_TENSOR_DIMS) {
        diag_add(L->d, ST_LOGIC, "limit.dims", where, "model tensor has %zu dims, more than %u",
                 w->n_dims, TIR_MAX_TENSOR_DIMS);
        return false;
    }
    PrecisionId prec = PR_INT_32;
    if (w->has_dtype && !prec_in(L, where, w->dtype, &prec))
        return false;
    if (!blk_set_model(L->g, b, w->dims, (uint32_t)w->n_dims, prec, w->has_dtype))
        return false;
    /* a declared range: one bound alone leaves the other int32's */
    b->has_model_range = w->has_lo || w->has_hi;
    b->model_lo = w->has_lo ? w->lo : INT32_MIN;
    b->model_hi = w->has_hi ? w->hi : INT32_MAX;
    return true;
}

static bool block_in(Loader *L, const Taskir__TaskBlock *w)
{
    char where[48];
    snprintf(where, sizeof where, "block %d", (int)w->id);
    BlockType type = BT_SI; /* proto2: an absent enum reads as its first value */
    if (w->has_type && !bt_from_wire(w->type, &type)) {
        diag_add(L->d, ST_LOGIC, "load.enum", where, "unknown TaskBlockType value %d", w->type);
        return false;
    }
    Block *b = graph_add_block(L->g, type, w->id, w->name);
    if (!b)
        return false;
    if (w->has_precision) {
        if (!prec_in(L, where, w->precision, &b->prec))
            return false;
        b->has_prec = true;
    }
    b->has_shape = w->shape != NULL;
    if (!shape_in(L, w->shape, &b->shape) ||
        !clusters_in(L, where, w->input_clusters, w->n_input_clusters, &b->in, &b->n_in,
                     &b->cap_in) ||
        !clusters_in(L, where, w->output_clusters, w->n_output_clusters, &b->out, &b->n_out,
                     &b->cap_out))
        return false;
    if (w->data) {
        b->data = arena_alloc(L->g->arena, 1, sizeof(Tensor));
        if (!b->data || !tensor_in(L, where, w->data, b->data, true))
            return false;
    }
    if (w->n_attributes > TIR_MAX_ATTRS) {
        diag_add(L->d, ST_LOGIC, "limit.attrs", where, "%zu attributes, more than the limit %u",
                 w->n_attributes, TIR_MAX_ATTRS);
        return false;
    }
    if (w->n_attributes) {
        b->attrs = arena_alloc(L->g->arena, w->n_attributes, sizeof(Attr));
        if (!b->attrs)
            return false;
        b->n_attrs = b->cap_attrs = (uint32_t)w->n_attributes;
    }
    for (size_t i = 0; i < w->n_attributes; i++) {
        const Taskir__Attribute *wa = w->attributes[i];
        Attr *a = &b->attrs[i];
        int t = wa->has_type ? (int)wa->type : 0;
        if (!at_from_wire(t, &a->id)) {
            diag_add(L->d, ST_LOGIC, "load.enum", where, "unknown AttributeType value %d", t);
            return false;
        }
        if (wa->has_precision) {
            if (!prec_in(L, where, wa->precision, &a->prec))
                return false;
            a->has_prec = true;
        }
        a->has_value = wa->has_int_value;
        a->value = wa->int_value;
        a->has_fvalue = wa->has_float_value;
        a->fvalue = wa->float_value;
    }
    if (w->has_bias_type) {
        if ((int)w->bias_type != BIAS_VECTOR && (int)w->bias_type != BIAS_CONSTANT) {
            diag_add(L->d, ST_LOGIC, "load.enum", where, "unknown BiasType value %d",
                     w->bias_type);
            return false;
        }
        b->bias_type = w->bias_type;
    }
    b->is_virtual = w->is_virtual;
    b->has_is_virtual = w->has_is_virtual;
    b->major_task_id = w->major_task_id;
    b->has_major_task_id = w->has_major_task_id;
    b->pipeline_num = w->pipeline_num;
    b->has_pipeline_num = w->has_pipeline_num;
    b->socket_id = w->socket_id;
    b->has_socket_id = w->has_socket_id;
    return !w->model_tensor || model_in(L, where, w->model_tensor, b);
}

static bool edge_in(Loader *L, const Taskir__Edge *w)
{
    char where[48];
    snprintf(where, sizeof where, "edge %d", (int)w->id);
    Edge *e = graph_add_edge(L->g, w->id, w->src_block_id, w->dst_block_id);
    if (!e)
        return false;
    if (w->n_rearrange_info > TIR_MAX_ATTRS) {
        diag_add(L->d, ST_LOGIC, "limit.rearrange", where,
                 "%zu rearrangement steps, more than the limit %u", w->n_rearrange_info,
                 TIR_MAX_ATTRS);
        return false;
    }
    for (size_t i = 0; i < w->n_rearrange_info; i++) {
        const Taskir__RearrangeInfo *wr = w->rearrange_info[i];
        RearrangeType t;
        int wt = wr->has_type ? (int)wr->type : 0;
        if (!rt_from_wire(wt, &t)) {
            diag_add(L->d, ST_LOGIC, "load.enum", where, "unknown RearrangeInfoType value %d",
                     wt);
            return false;
        }
        if (wr->n_matrix > TIR_MAX_ATTRS) {
            diag_add(L->d, ST_LOGIC, "limit.rearrange", where,
                     "%zu parameter tensors, more than the limit %u", wr->n_matrix,
                     TIR_MAX_ATTRS);
            return false;
        }
        Rearrange *r = edge_add_rearrange(L->g, e, t, (uint32_t)wr->n_matrix);
        if (!r)
            return false;
        for (size_t k = 0; k < wr->n_matrix; k++)
            if (!tensor_in(L, where, wr->matrix[k], &r->mats[k], false))
                return false;
    }
    return true;
}

static bool graph_in(Loader *L, const Taskir__TaskGraph *w)
{
    if (w->n_blocks > TIR_MAX_BLOCKS || w->n_edges > TIR_MAX_EDGES) {
        diag_add(L->d, ST_LOGIC, "limit.blocks", NULL,
                 "%zu blocks and %zu edges; the limits are %u and %u", w->n_blocks, w->n_edges,
                 TIR_MAX_BLOCKS, TIR_MAX_EDGES);
        return false;
    }
    for (size_t i = 0; i < w->n_blocks; i++)
        if (!block_in(L, w->blocks[i]))
            return false;
    for (size_t i = 0; i < w->n_edges; i++)
        if (!edge_in(L, w->edges[i]))
            return false;
    if (w->n_groups > TIR_MAX_BLOCKS) {
        diag_add(L->d, ST_LOGIC, "limit.blocks", NULL, "%zu groups, more than the limit %u",
                 w->n_groups, TIR_MAX_BLOCKS);
        return false;
    }
    if (w->n_groups) {
        L->g->groups = arena_alloc(L->g->arena, w->n_groups, sizeof(Group));
        if (!L->g->groups)
            return false;
        L->g->n_groups = (uint32_t)w->n_groups;
    }
    for (size_t i = 0; i < w->n_groups; i++) {
        const Taskir__Group *wg = w->groups[i];
        Group *gr = &L->g->groups[i];
        gr->id = wg->group_id;
        if (wg->n_block_ids > TIR_MAX_BLOCKS) {
            diag_add(L->d, ST_LOGIC, "limit.blocks", NULL, "group %d lists %zu blocks",
                     (int)wg->group_id, wg->n_block_ids);
            return false;
        }
        gr->block_ids = arena_grow(L->g->arena, wg->block_ids, wg->n_block_ids,
                                   wg->n_block_ids, sizeof(int32_t));
        gr->n_block_ids = (uint32_t)wg->n_block_ids;
    }
    if (w->test_config) {
        TestConfig *tc = &L->g->test_config;
        tc->present = true;
        tc->random_seed = w->test_config->random_seed;
        tc->has_random_seed = w->test_config->has_random_seed;
        tc->test_mode = w->test_config->test_mode;
        tc->has_test_mode = w->test_config->has_test_mode;
        if (tc->has_test_mode && (tc->test_mode < 0 || tc->test_mode > 2)) {
            diag_add(L->d, ST_LOGIC, "load.enum", NULL, "unknown TestMode value %d",
                     tc->test_mode);
            return false;
        }
        if (w->test_config->test_case_name)
            tc->test_case_name = arena_strdup(L->g->arena, w->test_config->test_case_name);
    }
    return !arena_failed(L->g->arena);
}

/* The caps of pbio.h, checked on the bytes before protobuf-c allocates (pb_wire_precheck);
 * the loader checks them again on the decoded counts. */
static const PbFieldCap load_caps[] = {
    {&taskir__task_graph__descriptor, "blocks", TIR_MAX_BLOCKS, "limit.blocks"},
    {&taskir__task_graph__descriptor, "edges", TIR_MAX_EDGES, "limit.blocks"},
    {&taskir__task_graph__descriptor, "groups", TIR_MAX_BLOCKS, "limit.blocks"},
    {&taskir__group__descriptor, "block_ids", TIR_MAX_BLOCKS, "limit.blocks"},
    {&taskir__task_block__descriptor, "input_clusters", TIR_MAX_CLUSTERS, "limit.clusters"},
    {&taskir__task_block__descriptor, "output_clusters", TIR_MAX_CLUSTERS, "limit.clusters"},
    {&taskir__task_block__descriptor, "attributes", TIR_MAX_ATTRS, "limit.attrs"},
    {&taskir__edge_cluster__descriptor, "interfaces", TIR_MAX_IFACES, "limit.ifaces"},
    {&taskir__edge__descriptor, "rearrange_info", TIR_MAX_ATTRS, "limit.rearrange"},
    {&taskir__rearrange_info__descriptor, "matrix", TIR_MAX_ATTRS, "limit.rearrange"},
    {&taskir__tensor__descriptor, "dims", TIR_MAX_TENSOR_DIMS, "limit.dims"},
    {&taskir__shape__descriptor, "extra_dimensions", TIR_MAX_TENSOR_DIMS, "limit.dims"},
};

/* protobuf-c's allocator, recording whether an allocation failed (allocator_data: a bool). */
static void *pb_alloc(void *data, size_t size)
{
    void *p = malloc(size);
    if (!p)
        *(bool *)data = true;
    return p;
}

static void pb_free(void *data, void *p)
{
    (void)data;
    free(p);
}

/* pb_unpack of buf, with the fault of a failed unpack explained on the bytes ebuf (those
 * that buf was lifted from: the offsets of the findings are theirs). */
static Status unpack_explain(const struct ProtobufCMessageDescriptor *desc, const uint8_t *buf,
                             size_t len, const uint8_t *ebuf, size_t elen, const char *what,
                             ProtobufCMessage **out, Diag *d)
{
    bool failed = false;
    ProtobufCAllocator a = {pb_alloc, pb_free, &failed};
    *out = protobuf_c_message_unpack(desc, &a, len, buf);
    if (*out)
        return ST_OK;
    if (failed)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory decoding the %s", what);
    if (pb_wire_explain(desc, ebuf, elen, d) == ST_OK)
        diag_add(d, ST_LOGIC, "wire.decode", NULL,
                 "not a %s: the bytes do not decode as protobuf", what);
    return ST_LOGIC;
}

Status pb_unpack(const struct ProtobufCMessageDescriptor *desc, const uint8_t *buf, size_t len,
                 const char *what, ProtobufCMessage **out, Diag *d)
{
    return unpack_explain(desc, buf, len, buf, len, what, out, d);
}

/* What pb_decode_lifted leaves for the caller: the bytes the message was decoded from (buf:
 * the input, or kept, the stripped copy) and the runs lifted out of them. */
typedef struct Lifted {
    uint8_t *kept;
    const uint8_t *buf;
    size_t len;
    PbRun *runs;
    size_t n_runs;
    PbRunCounts counted;    /* the pre-check's counts of the packed runs, if it counted them */
} Lifted;

static void lifted_free(Lifted *lf)
{
    free(lf->kept);
    free(lf->runs);
    pb_run_counts_free(&lf->counted);
    memset(lf, 0, sizeof *lf);
}

/* pb_decode, with the values of fields[0 .. n_fields) lifted out (pb_wire_lift) before the
 * unpack when there are any: the message then holds run indexes, and lf the runs (lifted_free
 * it, also on failure); the pre-check on up to threads threads. */
static Status pb_decode_lifted(const struct ProtobufCMessageDescriptor *desc,
                               const uint8_t *buf, size_t len, const PbFieldCap *caps,
                               size_t n_caps, const ProtobufCFieldDescriptor *const *fields,
                               size_t n_fields, uint32_t threads, const char *what,
                               ProtobufCMessage **out, Lifted *lf, Diag *d)
{
    *out = NULL;
    memset(lf, 0, sizeof *lf);
    size_t kept_len;
    Status st = pb_wire_strip(desc, buf, len, &lf->kept, &kept_len, d);
    if (st != ST_OK)
        return st;
    if (lf->kept) {
        buf = lf->kept;
        len = kept_len;
    }
    lf->buf = buf;
    lf->len = len;
    st = pb_wire_precheck_keep(desc, buf, len, caps, n_caps, TIR_MAX_PB_DECODE_BYTES, threads,
                               n_fields ? &lf->counted : NULL, d);
    uint8_t *lifted = NULL;
    size_t lifted_len = 0;
    if (st == ST_OK && n_fields)
        st = pb_wire_lift(desc, buf, len, fields, n_fields, &lifted, &lifted_len, &lf->runs,
                          &lf->n_runs, d);
    if (st == ST_OK && lifted)
        st = unpack_explain(desc, lifted, lifted_len, buf, len, what, out, d);
    else if (st == ST_OK)
        st = pb_unpack(desc, buf, len, what, out, d);
    free(lifted);
    return st;
}

Status pb_decode(const struct ProtobufCMessageDescriptor *desc, const uint8_t *buf, size_t len,
                 const PbFieldCap *caps, size_t n_caps, const char *what,
                 struct ProtobufCMessage **out, Diag *d)
{
    Lifted lf;
    Status st = pb_decode_lifted(desc, buf, len, caps, n_caps, NULL, 0, 1, what, out, &lf, d);
    lifted_free(&lf);
    return st;
}

/* Loads w into a new graph; lf (or NULL) holds the runs lifted out of the bytes it was
 * decoded from, decoded first into the graph's arena on up to threads threads (a malformed
 * run is a fault of those bytes, reported before anything of the graph, as the unpack would
 * have). */
static Status graph_from_lifted(const Taskir__TaskGraph *w, const Lifted *lf, uint32_t threads,
                                bool narrow, TirFileBytes *file, Graph **out, Diag *d)
{
    *out = NULL;
    Loader L = {graph_create(), d, NULL, 0};
    RunValues *runs = NULL;
    bool ok = L.g != NULL;
    if (ok && lf && lf->n_runs) {
        if (!lf->kept) /* the runs are in the file's bytes, not in a stripped copy */
            tir_file_bring_in_rest(file, threads);
        runs = calloc(lf->n_runs, sizeof *runs);
        uint32_t **vals = calloc(lf->n_runs, sizeof *vals);
        int8_t **vals8 = narrow ? calloc(lf->n_runs, sizeof *vals8) : NULL;
        uint64_t *count = calloc(lf->n_runs, sizeof *count);
        bool malformed = false;
        ok = runs && vals && count && (vals8 || !narrow) &&
             pb_runs_decode_narrow(lf->runs, lf->n_runs, L.g->arena, threads, vals, vals8,
                                   NARROW_MIN_VALUES, count, &lf->counted, &malformed);
        for (size_t i = 0; ok && i < lf->n_runs; i++)
            runs[i] = (RunValues){vals[i], vals8 ? vals8[i] : NULL, count[i]};
        free(vals);
        free(vals8);
        free(count);
        if (malformed) {
            graph_destroy(L.g);
            free(runs);
            if (pb_wire_explain(&taskir__task_graph__descriptor, lf->buf, lf->len, d) == ST_OK)
                diag_add(d, ST_LOGIC, "wire.decode", NULL,
                         "not a TaskGraph: the bytes do not decode as protobuf");
            return ST_LOGIC;
        }
        L.runs = runs;
        L.n_runs = lf->n_runs;
    }
    ok = ok && (!w || graph_in(&L, w));
    free(runs);
    if (!ok) {
        bool oom = !L.g || arena_failed(L.g->arena) || (lf && lf->n_runs && !L.runs);
        graph_destroy(L.g);
        if (oom)
            return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory loading the graph");
        return ST_LOGIC;
    }
    *out = L.g;
    return ST_OK;
}

/* The fields whose values are lifted out of the bytes before the unpack (pb_wire_lift):
 * the large tensors' integers. */
static const ProtobufCFieldDescriptor *lift_fields(size_t i)
{
    static const char *const names[] = {"int32_data", "uint32_data"};
    return protobuf_c_message_descriptor_get_field_by_name(&taskir__tensor__descriptor,
                                                           names[i]);
}

Status graph_load_pb_mem(const uint8_t *buf, size_t len, Graph **out, Diag *d)
{
    return graph_load_pb_mem_opts(buf, len, NULL, out, d);
}

Status graph_load_pb_mem_opts(const uint8_t *buf, size_t len, const LoadOptions *opt,
                              Graph **out, Diag *d)
{
    *out = NULL;
    if (len > TIR_MAX_FILE_BYTES)
        return diag_add(d, ST_LOGIC, "limit.file", NULL, "%zu bytes, more than the limit %zu",
                        len, TIR_MAX_FILE_BYTES);
    const ProtobufCFieldDescriptor *fields[2] = {lift_fields(0), lift_fields(1)};
    if (!fields[0] || !fields[1])
        return diag_add(d, ST_RUNTIME, "internal", NULL, "no tensor value fields in the schema");
    ProtobufCMessage *msg = NULL;
    Lifted lf;
    uint32_t threads = opt ? opt->threads : 1;
    Status st = pb_decode_lifted(&taskir__task_graph__descriptor, buf, len, load_caps,
                                 sizeof load_caps / sizeof load_caps[0], fields, 2, threads,
                                 "TaskGraph", &msg, &lf, d);
    if (st == ST_OK) {
        st = graph_from_lifted((Taskir__TaskGraph *)msg, &lf, threads, opt && opt->narrow,
                               opt ? opt->file : NULL, out, d);
        taskir__task_graph__free_unpacked((Taskir__TaskGraph *)msg, NULL);
    }
    lifted_free(&lf);
    return st;
}

const PbFieldCap *graph_pb_caps(size_t *n)
{
    *n = sizeof load_caps / sizeof load_caps[0];
    return load_caps;
}

Status graph_from_pb(const Taskir__TaskGraph *w, Graph **out, Diag *d)
{
    return graph_from_lifted(w, NULL, 1, false, NULL, out, d);
}

Status graph_load_pb(const char *path, Graph **out, Diag *d)
{
    return graph_load_pb_opts(path, NULL, out, d);
}

Status graph_load_pb_opts(const char *path, const LoadOptions *opt, Graph **out, Diag *d)
{
    TirFileBytes f;
    *out = NULL;
    Status st = tir_file_bytes(path, TIR_MAX_FILE_BYTES, &f, d);
    if (st == ST_OK)
        st = graph_load_pb_mem_opts(f.p, f.len, opt, out, d);
    tir_file_release(&f);
    return st;
}

/* ---- saving ---- */

/* The wire structs are built in an arena; the values of large tensors (field int32_data = 4
 * and the fields after it) are encoded by the packer (pbpack.h), which packs the message into
 * pieces: the same bytes as taskir__task_graph__pack, in a fraction of the time. The graph
 * goes out in parts — TaskGraph messages of a few blocks, then of a few edges, then one with
 * the groups and the test config — whose bytes concatenate to the whole TaskGraph's (its
 * fields are blocks = 1, edges = 2, groups = 3, test_config = 4, written in that order), so
 * the encoded weights of only one part are in memory at a time. A part also ends once its wire
 * structs fill PB_PART_BYTES (pbio.h): on a wide model's cut graph, thousands of storage
 * blocks without weights in a row, each with its interfaces' structs, would otherwise make one
 * part of tens of megabytes of fresh memory (42 MB on resnet50x10). */
typedef struct Saver {
    Arena *a;
    PbPack *pk;
    TirAtomicFile *f;           /* the parts go to this file, or else to buf */
    uint8_t *buf;
    size_t len, cap;
    GraphUses uses;             /* the graph's use index, built at the first RESHAPE */
    bool has_uses;
    const GraphUses *given;     /* the caller's index of the graph (graph_save_pb_uses) */
    SaveStats stats;
} Saver;

enum {
    TENSOR_INT32_DATA = 4,      /* Tensor.int32_data: it and the later fields get deferred */
    DEFER_MIN_VALUES = 64,      /* smaller tensors are left to protobuf-c */
};

#define NEW(S, T, init) saver_new(S, sizeof(T), &(T)init)
static void *saver_new(Saver *S, size_t size, const void *init)
{
    void *p = arena_alloc(S->a, 1, size);
    if (p)
        memcpy(p, init, size);
    return p;
}

static bool shape_empty(const Shape *s)
{
    for (int i = 0; i < TIR_NDIMS; i++)
        if (s->d[i])
            return false;
    return s->n_branch == 0 && s->n_extra == 0;
}

static Taskir__Shape *shape_out(Saver *S, const Shape *s)
{
    Taskir__Shape *w = NEW(S, Taskir__Shape, TASKIR__SHAPE__INIT);
    if (!w)
        return NULL;
#define DIM(field, idx)              \
    if (s->d[idx]) {                 \
        w->has_##field = 1;          \
        w->field = s->d[idx];        \
    }
    DIM(nx, D_X)
    DIM(ny, D_Y)
    DIM(nf, D_F)
    DIM(nr, D_R)
    DIM(nkx, D_KX)
    DIM(nky, D_KY)
    DIM(niy, D_IY)
    DIM(nix, D_IX)
#undef DIM
    if (s->n_branch) {
        w->has_n_branch = 1;
        w->n_branch = s->n_branch;
    }
    w->n_extra_dimensions = s->n_extra;
    w->extra_dimensions = s->extra;
    return w;
}

/* The identity of t's deferred fields (int32_data, uint32_data, name: the arrays and string
 * they are encoded from, which the blocks that share a tensor or a view share); false when
 * t is too small to defer. */
static bool tensor_key(const Tensor *t, PbKey *k)
{
    if ((uint64_t)t->n_i32 + t->n_u32 < DEFER_MIN_VALUES)
        return false;
    size_t es;
    *k = (PbKey){{(uintptr_t)tensor_i32_vals(t, &es), t->n_i32, (uintptr_t)t->u32, t->n_u32,
                  (uintptr_t)t->name}};
    return true;
}

static Taskir__Tensor *tensor_out(Saver *S, const Tensor *t)
{
    Taskir__Tensor *w = NEW(S, Taskir__Tensor, TASKIR__TENSOR__INIT);
    if (!w)
        return NULL;
    w->n_dims = t->n_dims;
    w->dims = t->dims;
    if (t->has_prec) {
        w->has_precision = 1;
        w->precision = (Taskir__Precision)pr_info(t->prec)->wire;
    }
    w->n_int32_data = t->n_i32;
    w->int32_data = t->i32;
    w->n_uint32_data = t->n_u32;
    w->uint32_data = t->u32;
    w->n_float_data = t->n_f32;
    w->float_data = t->f32;
    w->name = (char *)t->name;
    PbKey k;
    bool keyed = tensor_key(t, &k);
    if (t->i8) { /* held narrow: the packer encodes them, or they are widened here */
        w->n_int32_data = 0;
        PbNarrowField nw = {TENSOR_INT32_DATA, t->i8, t->n_i32};
        if (pb_pack_defer_narrow(S->pk, &w->base, TENSOR_INT32_DATA, keyed ? &k : NULL,
                                 &nw) == PB_DEFER_DONE)
            return w;
        int32_t *v = arena_alloc(S->a, t->n_i32, sizeof *v);
        if (!v)
            return NULL;
        for (uint32_t i = 0; i < t->n_i32; i++)
            v[i] = t->i8[i];
        w->n_int32_data = t->n_i32;
        w->int32_data = v;
        return w;
    }
    if (keyed && pb_pack_defer_keyed(S->pk, &w->base, TENSOR_INT32_DATA, &k) == PB_DEFER_OOM)
        return NULL;
    return w;
}

static Taskir__EdgeCluster **clusters_out(Saver *S, const Cluster *c, uint32_t n)
{
    Taskir__EdgeCluster **v = arena_alloc(S->a, n ? n : 1, sizeof *v);
    if (!v)
        return NULL;
    for (uint32_t i = 0; i < n; i++) {
        Taskir__EdgeCluster *w = NEW(S, Taskir__EdgeCluster, TASKIR__EDGE_CLUSTER__INIT);
        if (!w)
            return NULL;
        v[i] = w;
        if (c[i].has_shape && !(w->shape = shape_out(S, &c[i].shape)))
            return NULL;
        w->n_interfaces = c[i].n_ifaces;
        w->interfaces = arena_alloc(S->a, c[i].n_ifaces ? c[i].n_ifaces : 1,
                                    sizeof *w->interfaces);
        if (!w->interfaces)
            return NULL;
        for (uint32_t k = 0; k < c[i].n_ifaces; k++) {
            const Iface *f = &c[i].ifaces[k];
            Taskir__EdgeInterface *wi =
                NEW(S, Taskir__EdgeInterface, TASKIR__EDGE_INTERFACE__INIT);
            if (!wi)
                return NULL;
            w->interfaces[k] = wi;
            Shape pos, size;
            iface_wire_shape(f, false, &pos);
            iface_wire_shape(f, true, &size);
            if (!shape_empty(&pos) && !(wi->position = shape_out(S, &pos)))
                return NULL;
            if (f->has_size && !(wi->size = shape_out(S, &size)))
                return NULL;
            wi->has_edge_id = 1;
            wi->edge_id = f->edge_id;
        }
    }
    return v;
}

static Taskir__TaskBlock *block_out(Saver *S, const Block *b)
{
    Taskir__TaskBlock *w = NEW(S, Taskir__TaskBlock, TASKIR__TASK_BLOCK__INIT);
    if (!w)
        return NULL;
    w->has_id = 1;
    w->id = b->id;
    w->has_type = 1;
    w->type = (Taskir__TaskBlockType)bt_info(b->type)->wire;
    if (b->has_prec) {
        w->has_precision = 1;
        w->precision = (Taskir__Precision)pr_info(b->prec)->wire;
    }
    Shape shape;
    canon_shape(b, &shape);
    if (!shape_empty(&shape) && !(w->shape = shape_out(S, &shape)))
        return NULL;
    w->n_input_clusters = b->n_in;
    w->n_output_clusters = b->n_out;
    if (!(w->input_clusters = clusters_out(S, b->in, b->n_in)) ||
        !(w->output_clusters = clusters_out(S, b->out, b->n_out)))
        return NULL;
    if (b->data && !(w->data = tensor_out(S, b->data)))
        return NULL;
    AttrId dflt[CANON_MAX_ATTRS];
    uint32_t n_dflt = canon_default_attrs(b, dflt);
    w->n_attributes = b->n_attrs + n_dflt;
    w->attributes = arena_alloc(S->a, w->n_attributes ? w->n_attributes : 1,
                                sizeof *w->attributes);
    if (!w->attributes)
        return NULL;
    for (uint32_t i = 0; i < b->n_attrs; i++) {
        const Attr *a = &b->attrs[i];
        Taskir__Attribute *wa = NEW(S, Taskir__Attribute, TASKIR__ATTRIBUTE__INIT);
        if (!wa)
            return NULL;
        w->attributes[i] = wa;
        wa->has_type = 1;
        wa->type = (Taskir__AttributeType)at_info(a->id)->wire;
        if (a->has_prec) {
            wa->has_precision = 1;
            wa->precision = (Taskir__Precision)pr_info(a->prec)->wire;
        }
        wa->has_int_value = a->has_value;
        wa->int_value = a->value;
        wa->has_float_value = a->has_fvalue;
        wa->float_value = a->fvalue;
    }
    for (uint32_t i = 0; i < n_dflt; i++) {
        Taskir__Attribute *wa = NEW(S, Taskir__Attribute, TASKIR__ATTRIBUTE__INIT);
        if (!wa)
            return NULL;
        w->attributes[b->n_attrs + i] = wa;
        wa->has_type = wa->has_int_value = 1;
        wa->type = (Taskir__AttributeType)at_info(dflt[i])->wire;
        wa->int_value = at_info(dflt[i])->dflt;
    }
    w->has_is_virtual = b->has_is_virtual;
    w->is_virtual = b->is_virtual;
    w->has_major_task_id = b->has_major_task_id;
    w->major_task_id = b->major_task_id;
    w->has_pipeline_num = b->has_pipeline_num;
    w->pipeline_num = b->pipeline_num;
    int bias_type = canon_bias_type(b);
    if (bias_type) {
        w->has_bias_type = 1;
        w->bias_type = (Taskir__BiasType)bias_type;
    }
    w->has_socket_id = b->has_socket_id;
    w->socket_id = b->socket_id;
    w->name = (char *)b->name;
    if (b->has_model) {
        Taskir__ModelTensor *m = NEW(S, Taskir__ModelTensor, TASKIR__MODEL_TENSOR__INIT);
        if (!m)
            return NULL;
        m->n_dims = b->model_ndim;
        m->dims = b->model_dims;
        m->has_dtype = b->has_model_prec;
        m->dtype = (Taskir__Precision)pr_info(b->model_prec)->wire;
        m->has_lo = m->has_hi = b->has_model_range;
        m->lo = b->model_lo;
        m->hi = b->model_hi;
        w->model_tensor = m;
    }
    return w;
}

/* A RESHAPE without its permutation gets the C-order one written (canon_reshape_p), as the
 * first parameter tensor: dims [k], int32_data p. */
static bool reshape_p_out(Saver *S, const Graph *g, const Edge *e, uint32_t i,
                          Taskir__RearrangeInfo *wr)
{
    int32_t p[TIR_CDIMS];
    if (e->re[i].type == RT_RESHAPE && !S->has_uses && !S->given) {
        if (!graph_uses(g, &S->uses))
            return false;
        S->has_uses = true;
    }
    const GraphUses *u = S->given ? S->given : S->has_uses ? &S->uses : NULL;
    uint32_t k = u ? canon_reshape_p(g, u, e, i, p) : 0;
    if (!k)
        return true;
    int32_t *v = arena_alloc(S->a, k + 1, sizeof *v);
    Taskir__Tensor *t = NEW(S, Taskir__Tensor, TASKIR__TENSOR__INIT);
    if (!v || !t)
        return false;
    memcpy(v, p, k * sizeof *v);
    v[k] = (int32_t)k;
    t->n_dims = 1;
    t->dims = v + k;
    t->n_int32_data = k;
    t->int32_data = v;
    if (!wr->n_matrix) {
        wr->n_matrix = 1;
        wr->matrix[0] = t;
    } else {
        t->name = wr->matrix[0]->name;
        wr->matrix[0] = t;
    }
    return true;
}

static Taskir__Edge *edge_out(Saver *S, const Graph *g, const Edge *e)
{
    Taskir__Edge *w = NEW(S, Taskir__Edge, TASKIR__EDGE__INIT);
    if (!w)
        return NULL;
    w->has_id = w->has_src_block_id = w->has_dst_block_id = 1;
    w->id = e->id;
    w->src_block_id = e->src;
    w->dst_block_id = e->dst;
    w->n_rearrange_info = e->n_re;
    w->rearrange_info = arena_alloc(S->a, e->n_re ? e->n_re : 1, sizeof *w->rearrange_info);
    if (!w->rearrange_info)
        return NULL;
    for (uint32_t i = 0; i < e->n_re; i++) {
        Taskir__RearrangeInfo *wr = NEW(S, Taskir__RearrangeInfo, TASKIR__REARRANGE_INFO__INIT);
        if (!wr)
            return NULL;
        w->rearrange_info[i] = wr;
        wr->has_type = 1;
        wr->type = (Taskir__RearrangeInfoType)rt_info(e->re[i].type)->wire;
        wr->n_matrix = e->re[i].n_mats;
        wr->matrix = arena_alloc(S->a, wr->n_matrix ? wr->n_matrix : 1, sizeof *wr->matrix);
        if (!wr->matrix)
            return NULL;
        for (uint32_t k = 0; k < e->re[i].n_mats; k++)
            if (!(wr->matrix[k] = tensor_out(S, &e->re[i].mats[k])))
                return NULL;
        if (!reshape_p_out(S, g, e, i, wr))
            return NULL;
    }
    return w;
}

/* Packs part w and appends its bytes to the file or the buffer. */
static Status put_part(Saver *S, const Taskir__TaskGraph *w, Diag *d)
{
    if (!pb_pack_run(S->pk, &w->base))
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory saving the graph");
    size_t n, total;
    const struct iovec *iov = pb_pack_pieces(S->pk, &n, &total);
    Status st = ST_OK;
    if (S->f) {
        st = tir_atomic_writev(S->f, iov, n, d);
    } else {
        if (S->cap - S->len < total) {
            size_t cap = S->cap ? S->cap : 65536;
            while (cap - S->len < total) {
                if (cap > SIZE_MAX / 2)
                    return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory saving the graph");
                cap *= 2;
            }
            uint8_t *b = realloc(S->buf, cap);
            if (!b)
                return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory saving the graph");
            S->buf = b;
            S->cap = cap;
        }
        for (size_t i = 0; i < n; i++) {
            memcpy(S->buf + S->len, iov[i].iov_base, iov[i].iov_len);
            S->len += iov[i].iov_len;
        }
    }
    pb_pack_reset(S->pk);
    S->stats.parts++;
    if (arena_used(S->a) > S->stats.most_bytes)
        S->stats.most_bytes = arena_used(S->a);
    arena_reset(S->a); /* the part's wire structs: the next part's go into the same pages */
    return st;
}

static uint64_t tensor_values(const Tensor *t)
{
    return t ? (uint64_t)t->n_i32 + t->n_u32 + t->n_f32 : 0;
}

/* Packs g, part by part, to S->f or S->buf. */
static Status pack_graph(const Graph *g, Saver *S, Diag *d)
{
    S->a = arena_create();
    S->pk = pb_pack_create();
    Status st = ST_OK;
    Taskir__TaskBlock **wb = calloc((size_t)g->n_blocks + 1, sizeof *wb);
    Taskir__Edge **we = calloc((size_t)g->n_edges + 1, sizeof *we);
    if (!S->a || !S->pk || !wb || !we)
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory saving the graph");
    /* the tensors several blocks share are encoded once (pb_pack_expect) */
    for (uint32_t i = 0; st == ST_OK && i < g->n_blocks; i++) {
        PbKey k;
        if (g->blocks[i]->data && tensor_key(g->blocks[i]->data, &k))
            pb_pack_expect(S->pk, &k); /* out of memory: encoded each time */
    }
    for (uint32_t i = 0; st == ST_OK && i < g->n_blocks;) {
        Taskir__TaskGraph w = TASKIR__TASK_GRAPH__INIT;
        w.blocks = wb + i;
        for (uint64_t values = 0; i < g->n_blocks && values < PB_PART_VALUES &&
                                  arena_used(S->a) < PB_PART_BYTES;
             i++) {
            if (!(wb[i] = block_out(S, g->blocks[i]))) {
                st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory saving the graph");
                break;
            }
            w.n_blocks++;
            values += tensor_values(g->blocks[i]->data) + 1;
        }
        if (st == ST_OK)
            st = put_part(S, &w, d);
    }
    for (uint32_t i = 0; st == ST_OK && i < g->n_edges;) {
        Taskir__TaskGraph w = TASKIR__TASK_GRAPH__INIT;
        w.edges = we + i;
        for (uint64_t values = 0; i < g->n_edges && values < PB_PART_VALUES &&
                                  arena_used(S->a) < PB_PART_BYTES;
             i++) {
            if (!(we[i] = edge_out(S, g, g->edges[i]))) {
                st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory saving the graph");
                break;
            }
            w.n_edges++;
            values++;
            for (uint32_t k = 0; k < g->edges[i]->n_re; k++)
                for (uint32_t m = 0; m < g->edges[i]->re[k].n_mats; m++)
                    values += tensor_values(&g->edges[i]->re[k].mats[m]);
        }
        if (st == ST_OK)
            st = put_part(S, &w, d);
    }
    Taskir__TaskGraph w = TASKIR__TASK_GRAPH__INIT;
    w.n_groups = g->n_groups;
    w.groups = st == ST_OK ? arena_alloc(S->a, g->n_groups + 1, sizeof *w.groups) : NULL;
    if (st == ST_OK && !w.groups)
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory saving the graph");
    for (uint32_t i = 0; st == ST_OK && i < g->n_groups; i++) {
        Taskir__Group *wg = NEW(S, Taskir__Group, TASKIR__GROUP__INIT);
        if (!wg) {
            st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory saving the graph");
            break;
        }
        wg->has_group_id = 1;
        wg->group_id = g->groups[i].id;
        wg->n_block_ids = g->groups[i].n_block_ids;
        wg->block_ids = g->groups[i].block_ids;
        w.groups[i] = wg;
    }
    Taskir__TestConfig tc = TASKIR__TEST_CONFIG__INIT;
    if (g->test_config.present) {
        tc.has_random_seed = g->test_config.has_random_seed;
        tc.random_seed = g->test_config.random_seed;
        tc.test_case_name = (char *)g->test_config.test_case_name;
        tc.has_test_mode = g->test_config.has_test_mode;
        tc.test_mode = (Taskir__TestMode)g->test_config.test_mode;
        w.test_config = &tc;
    }
    if (st == ST_OK)
        st = put_part(S, &w, d);
    pb_pack_destroy(S->pk);
    arena_destroy(S->a);
    free(wb);
    free(we);
    graph_uses_finish(&S->uses);
    return st;
}

Status graph_pack(const Graph *g, uint8_t **buf, size_t *len, Diag *d)
{
    SaveStats stats;
    return graph_pack_stats(g, buf, len, &stats, d);
}

Status graph_pack_stats(const Graph *g, uint8_t **buf, size_t *len, SaveStats *stats,
                        Diag *d)
{
    *buf = NULL;
    *len = 0;
    Saver S = {0};
    Status st = pack_graph(g, &S, d);
    *stats = S.stats;
    if (st == ST_OK && !S.buf && !(S.buf = malloc(1))) /* an empty graph: 0 bytes */
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory saving the graph");
    if (st != ST_OK) {
        free(S.buf);
        return st;
    }
    *buf = S.buf;
    *len = S.len;
    return ST_OK;
}

Status graph_save_pb(const Graph *g, const char *path, Diag *d)
{
    return graph_save_pb_uses(g, path, NULL, d);
}

Status graph_save_pb_uses(const Graph *g, const char *path, const GraphUses *u, Diag *d)
{
    Saver S = {.given = u};
    Status st = tir_atomic_open(path, &S.f, d);
    if (st != ST_OK)
        return st;
    st = pack_graph(g, &S, d);
    Status cst = tir_atomic_close(S.f, st == ST_OK, d);
    return st != ST_OK ? st : cst;
}
