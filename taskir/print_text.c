/* print_text.c: the readable dump, made to be read by people and compared by golden tests.
 *
 * Layout (every line is deterministic; numbers are %d / %u, floats %.9g):
 *   taskgraph: N blocks, M edges, G groups
 *   <blank>
 *   block ID TYPE 'name'               one paragraph per block, in graph order
 *     precision INT_32 [(default)]     (default): absent in the file, the type's default
 *     primitive P41                    compute blocks only
 *     shape y=4 x=4 f=3 ...            absent dims left out; n_branch= and extra=[..] if set
 *     bias VECTOR|CONSTANT|absent      types with a bias; others only when the file sets one
 *     attributes KERNEL_X=3 ...        NAME=int[/f=float][/PRECISION]; "-" for no int value
 *     data PREC [(block's)] dims=[..] [name='..'] int32 count=N first=[..] fnv1a=HEX
 *     virtual / major_task / pipeline / socket    when the file sets them
 *     in K ROLE: y=6 x=6 r=2 (derived|given)      the table's role and the cluster's dims
 *       iface I: edge E, pos origin|y=.., size whole|y=..
 *     out K ROLE: ...
 *   <blank>
 *   edge E: SRC TYPE -> DST TYPE        one paragraph per edge, in graph order
 *     src out K iface I: y=.. (the box copied) / dst in K iface I: y=..
 *     RESHAPE p=[2,1,0]                one line per rearrangement: its decoded parameters
 *                                      (rearrange_describe), then when it has parameter
 *       params perm=[2,1,0]            tensors a line with every one of them:
 *                                      its name (quoted unless [A-Za-z0-9_./-]+; p0, p1..
 *                                      when it has none) = its values, nested along its
 *                                      dims ([[1,0],[0,1]]), or dims[..]:[flat] when the
 *                                      dims do not match the count; (PRECISION) unless INT_32
 *   group G: blocks 1 2 3
 *   test_config random_seed=S test_case_name='..' test_mode=NAME
 * The checksum is FNV-1a (64 bit) over all values of the container (print_internal.h), so
 * the dump stays small and a golden still catches any change of data. */
#include "taskir/print_internal.h"
#include "taskir/rearrange.h"

#include <inttypes.h>

static void text_vals_flat(FILE *out, const PrintVals *v, uint32_t from, uint32_t to)
{
    fputc('[', out);
    for (uint32_t i = from; i < to; i++) {
        if (i > from)
            fputc(',', out);
        print_val(out, v, i);
    }
    fputc(']', out);
}

/* Values nested along dims[k..]: [[1,0],[0,1]]. *pos walks the values. */
static void text_vals_nested(FILE *out, const PrintVals *v, const Tensor *t, uint32_t k,
                             uint32_t *pos)
{
    fputc('[', out);
    for (int32_t i = 0; i < t->dims[k]; i++) {
        if (i)
            fputc(',', out);
        if (k + 1 == t->n_dims)
            print_val(out, v, (*pos)++);
        else
            text_vals_nested(out, v, t, k + 1, pos);
    }
    fputc(']', out);
}

static void text_int_list(FILE *out, const int32_t *v, uint32_t n)
{
    fputc('[', out);
    for (uint32_t i = 0; i < n; i++)
        fprintf(out, "%s%d", i ? "," : "", (int)v[i]);
    fputc(']', out);
}

/* One parameter tensor of a rearrangement, every value: perm=[2,1,0]. */
static void text_param(FILE *out, const Tensor *t, uint32_t k)
{
    bool bare = t->name && *t->name;
    for (const char *c = t->name; bare && *c; c++)
        bare = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
               *c == '_' || *c == '.' || *c == '-' || *c == '/';
    if (bare)
        fputs(t->name, out);
    else if (t->name)
        print_quoted(out, t->name);
    else
        fprintf(out, "p%u", (unsigned)k);
    fputc('=', out);
    PrintVals v[3];
    int nv = print_tensor_vals(t, v);
    if (nv == 0) {
        if (t->n_dims) {
            fputs("dims", out);
            text_int_list(out, t->dims, t->n_dims);
            fputc(':', out);
        }
        fputs("[]", out);
    }
    for (int i = 0; i < nv; i++) {
        if (i)
            fputc(' ', out);
        if (nv > 1)
            fprintf(out, "%s:", v[i].name);
        if (print_nestable(t, v[i].n)) {
            uint32_t pos = 0;
            text_vals_nested(out, &v[i], t, 0, &pos);
        } else {
            if (t->n_dims) {
                fputs("dims", out);
                text_int_list(out, t->dims, t->n_dims);
                fputc(':', out);
            }
            text_vals_flat(out, &v[i], 0, v[i].n);
        }
    }
    if (t->has_prec && t->prec != PR_INT_32)
        fprintf(out, " (%s)", pr_info(t->prec)->name);
}

static void text_data(FILE *out, const Block *b, const Tensor *t)
{
    fprintf(out, "  data %s%s dims=", pr_info(print_data_prec(b, t))->name,
            t->has_prec ? "" : " (block's)");
    text_int_list(out, t->dims, t->n_dims);
    if (t->name) {
        fputs(" name=", out);
        print_quoted(out, t->name);
    }
    PrintVals v[3];
    int nv = print_tensor_vals(t, v);
    if (nv == 0)
        fputs(" empty", out);
    for (int i = 0; i < nv; i++) {
        uint32_t shown = v[i].n < PRINT_DATA_FIRST ? v[i].n : PRINT_DATA_FIRST;
        fprintf(out, " %s count=%u first=", v[i].name, (unsigned)v[i].n);
        text_vals_flat(out, &v[i], 0, shown);
        if (shown < v[i].n)
            fputs("...", out);
        fprintf(out, " fnv1a=%016" PRIx64, print_vals_fnv1a(&v[i]));
    }
    fputc('\n', out);
}

static void text_attrs(FILE *out, const Block *b)
{
    if (!b->n_attrs)
        return;
    fputs("  attributes", out);
    for (uint32_t i = 0; i < b->n_attrs; i++) {
        const Attr *a = &b->attrs[i];
        fprintf(out, " %s=", at_info(a->id)->name);
        if (a->has_value)
            fprintf(out, "%d", (int)a->value);
        else
            fputc('-', out);
        if (a->has_fvalue)
            fprintf(out, "/f=%.9g", (double)a->fvalue);
        if (a->has_prec)
            fprintf(out, "/%s", pr_info(a->prec)->name);
    }
    fputc('\n', out);
}

static void text_cluster(FILE *out, const Block *b, bool input, uint32_t k)
{
    const Cluster *c = input ? &b->in[k] : &b->out[k];
    const char *role = print_role(b, input, k);
    fprintf(out, "  %s %u %s: ", input ? "in" : "out", (unsigned)k, role ? role : "(no role)");
    const ClusterSpec *spec = input ? blk_in_spec(b, k) : blk_out_spec(b, k);
    int32_t derived[TIR_CDIMS];
    bool has_derived = blk_spec_dims(b, spec, derived);
    if (c->has_shape) {
        print_dims(out, c->shape.d, TIR_CDIMS);
        fputs(" (given", out);
        bool same = true;
        for (int i = 0; i < TIR_CDIMS && has_derived; i++)
            same = same && derived[i] == c->shape.d[i];
        if (has_derived && !same) {
            fputs("; the table derives ", out);
            print_dims(out, derived, TIR_CDIMS);
        }
        fputs(")\n", out);
    } else if (has_derived) {
        print_dims(out, derived, TIR_CDIMS);
        fputs(" (derived)\n", out);
    } else {
        fputs("unknown\n", out);
    }
    for (uint32_t i = 0; i < c->n_ifaces; i++) {
        const Iface *f = &c->ifaces[i];
        fprintf(out, "    iface %u: edge %d, pos ", (unsigned)i, (int)f->edge_id);
        bool origin = true;
        for (int j = 0; j < TIR_CDIMS; j++)
            origin = origin && f->pos.d[j] == 0;
        if (origin)
            fputs("origin", out);
        else
            print_dims(out, f->pos.d, TIR_CDIMS);
        fputs(", size ", out);
        if (f->has_size)
            print_dims(out, f->size.d, TIR_CDIMS);
        else
            fputs("whole", out);
        fputc('\n', out);
    }
}

static void text_block(FILE *out, const Block *b)
{
    const BlockTypeInfo *ti = bt_info(b->type);
    fprintf(out, "block %d %s", (int)b->id, ti->name);
    if (b->name) {
        fputc(' ', out);
        print_quoted(out, b->name);
    }
    fprintf(out, "\n  precision %s%s\n", pr_info(blk_prec(b))->name,
            b->has_prec ? "" : " (default)");
    char pc[8];
    print_pcode(b->type, pc);
    if (pc[0])
        fprintf(out, "  primitive %s\n", pc);
    fputs("  shape ", out);
    if (b->has_shape)
        print_dims(out, b->shape.d, TIR_NDIMS);
    else
        fputs("absent", out);
    if (b->shape.n_branch)
        fprintf(out, " n_branch=%d", (int)b->shape.n_branch);
    if (b->shape.n_extra) {
        fputs(" extra=", out);
        text_int_list(out, b->shape.extra, b->shape.n_extra);
    }
    fputc('\n', out);
    static const char *const bias_names[] = {"absent", "VECTOR", "CONSTANT"};
    if ((ti->flags & BF_BIAS) || b->bias_type != BIAS_ABSENT)
        fprintf(out, "  bias %s\n",
                b->bias_type >= 0 && b->bias_type <= 2 ? bias_names[b->bias_type] : "?");
    text_attrs(out, b);
    if (b->data)
        text_data(out, b, b->data);
    if (b->has_is_virtual)
        fprintf(out, "  virtual %s\n", b->is_virtual ? "true" : "false");
    if (b->has_major_task_id)
        fprintf(out, "  major_task %d\n", (int)b->major_task_id);
    if (b->has_pipeline_num)
        fprintf(out, "  pipeline %d\n", (int)b->pipeline_num);
    if (b->has_socket_id)
        fprintf(out, "  socket %d\n", (int)b->socket_id);
    if (b->has_model) {
        fprintf(out, "  model (");
        for (uint32_t i = 0; i < b->model_ndim; i++)
            fprintf(out, "%s%lld", i ? ", " : "", (long long)b->model_dims[i]);
        fprintf(out, "%s) %s", b->model_ndim == 1 ? "," : "",
                pr_info(b->has_model_prec ? b->model_prec : PR_INT_32)->name);
        if (b->has_model_range)
            fprintf(out, " range %d .. %d", (int)b->model_lo, (int)b->model_hi);
        fprintf(out, "\n");
    }
    for (uint32_t k = 0; k < b->n_in; k++)
        text_cluster(out, b, true, k);
    for (uint32_t k = 0; k < b->n_out; k++)
        text_cluster(out, b, false, k);
}

static void text_end(FILE *out, const PrintEnd *end, bool src)
{
    const char *which = src ? "src" : "dst";
    if (!end->block)
        return; /* said on the edge line */
    if (!end->iface) {
        fprintf(out, "  %s: no interface of block %d names this edge\n", which,
                (int)end->block->id);
        return;
    }
    fprintf(out, "  %s %s %u iface %u: ", which, src ? "out" : "in", (unsigned)end->cluster_idx,
            (unsigned)end->iface_idx);
    if (end->has_box)
        print_dims(out, end->box, TIR_CDIMS);
    else
        fputs("unknown", out);
    fputc('\n', out);
}

static void text_edge_block(FILE *out, int32_t id, const Block *b)
{
    fprintf(out, "%d %s", (int)id, b ? bt_info(b->type)->name : "(missing)");
}

static void text_edge(FILE *out, const Graph *g, const PrintIndex *ix, const Edge *e)
{
    PrintEnd s, t;
    print_edge_end(g, ix, e, true, &s);
    print_edge_end(g, ix, e, false, &t);
    fprintf(out, "edge %d: ", (int)e->id);
    text_edge_block(out, e->src, s.block);
    fputs(" -> ", out);
    text_edge_block(out, e->dst, t.block);
    fputc('\n', out);
    text_end(out, &s, true);
    text_end(out, &t, false);
    for (uint32_t i = 0; i < e->n_re; i++) {
        /* the decoded parameters (docs/semantics.md), then every raw parameter tensor */
        const Rearrange *r = &e->re[i];
        char desc[1024];
        rearrange_describe(r, desc, sizeof desc);
        fprintf(out, "  %s\n", desc);
        if (!r->n_mats)
            continue;
        fputs("    params", out);
        for (uint32_t k = 0; k < r->n_mats; k++) {
            fputc(' ', out);
            text_param(out, &r->mats[k], k);
        }
        fputc('\n', out);
    }
}

Status print_text_graph(const Graph *g, FILE *out, Diag *d)
{
    PrintIndex ix;
    Status st = print_index_build(g, &ix, d);
    if (st != ST_OK)
        return st;
    fprintf(out, "taskgraph: %u blocks, %u edges, %u groups\n", (unsigned)g->n_blocks,
            (unsigned)g->n_edges, (unsigned)g->n_groups);
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        fputc('\n', out);
        text_block(out, g->blocks[i]);
    }
    if (g->n_edges)
        fputc('\n', out);
    for (uint32_t i = 0; i < g->n_edges; i++)
        text_edge(out, g, &ix, g->edges[i]);
    if (g->n_groups || g->test_config.present)
        fputc('\n', out);
    for (uint32_t i = 0; i < g->n_groups; i++) {
        const Group *gr = &g->groups[i];
        fprintf(out, "group %d: blocks", (int)gr->id);
        for (uint32_t k = 0; k < gr->n_block_ids; k++)
            fprintf(out, " %d", (int)gr->block_ids[k]);
        fputc('\n', out);
    }
    const TestConfig *tc = &g->test_config;
    if (tc->present) {
        fputs("test_config", out);
        if (tc->has_random_seed)
            fprintf(out, " random_seed=%" PRId64, tc->random_seed);
        if (tc->test_case_name) {
            fputs(" test_case_name=", out);
            print_quoted(out, tc->test_case_name);
        }
        if (tc->has_test_mode) {
            const char *m = print_test_mode(tc->test_mode);
            if (m)
                fprintf(out, " test_mode=%s", m);
            else
                fprintf(out, " test_mode=%d", tc->test_mode);
        }
        fputc('\n', out);
    }
    print_index_finish(&ix);
    return print_check_stream(out, d);
}

Status print_text_block(const Graph *g, const Block *b, FILE *out, Diag *d)
{
    PrintIndex ix;
    Status st = print_index_build(g, &ix, d);
    if (st != ST_OK)
        return st;
    text_block(out, b);
    bool first = true;
    for (uint32_t i = 0; i < g->n_edges; i++) {
        if (!print_edge_touches(g->edges[i], b))
            continue;
        if (first)
            fputc('\n', out);
        first = false;
        text_edge(out, g, &ix, g->edges[i]);
    }
    print_index_finish(&ix);
    return print_check_stream(out, d);
}
