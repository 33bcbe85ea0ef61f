/* print_dot.c: the graph as a Graphviz digraph (render with `dot -Tsvg`).
 *
 * One node per block, named "b<id>", drawn by kind: compute blocks filled boxes, storage
 * blocks cylinders, INPUT/OUTPUT sockets parallelograms, TASK_NULL diamonds. A node's label
 * is "id TYPE", the provenance name, and the shape ("y=4 x=4 f=3 ..."). One arrow per edge,
 * labelled "e<id>: 4x4x3" (the box the edge copies, from its source interface, else its
 * destination's) and one line per rearrangement type. Labels are escaped for DOT strings
 * (quote and backslash, so none of Graphviz's \N \G escapes can fire) and bytes that are not
 * UTF-8 become U+FFFD. An edge whose block is missing still gets its arrow, to a plain-text
 * node "ID (missing)". */
#include "taskir/print_internal.h"

#include <stdlib.h>

/* Node style per kind (BlockKind order). */
static const struct {
    const char *shape, *style, *fill;
} kind_style[] = {
    [BK_STORAGE] = {"cylinder", "filled", "#fff2cc"},
    [BK_COMPUTE] = {"box", "filled", "#dae8fc"},
    [BK_IO] = {"parallelogram", "filled", "#d5e8d4"},
    [BK_NULL] = {"diamond", "dashed", "#ffffff"},
};

/* Writes s inside a DOT string literal. */
static void dot_escaped(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        size_t n = utf8_seq_len(p);
        if (n == 0) {
            fputs("\xef\xbf\xbd", out);
            p++;
        } else if (n > 1) {
            fwrite(p, 1, n, out);
            p += n;
        } else {
            unsigned c = *p++;
            if (c == '"' || c == '\\')
                fprintf(out, "\\%c", c);
            else if (c < 0x20 || c == 0x7f)
                fputc(' ', out);
            else
                fputc((int)c, out);
        }
    }
}

static void dot_node(FILE *out, const Block *b)
{
    const BlockTypeInfo *ti = bt_info(b->type);
    BlockKind k = ti->kind <= BK_NULL ? ti->kind : BK_NULL;
    fprintf(out, "  \"b%d\" [shape=%s, style=\"%s\", fillcolor=\"%s\", label=\"%d %s",
            (int)b->id, kind_style[k].shape, kind_style[k].style, kind_style[k].fill,
            (int)b->id, ti->name);
    if (b->name) {
        fputs("\\n", out);
        dot_escaped(out, b->name);
    }
    if (b->has_shape) {
        fputs("\\n", out);
        print_dims(out, b->shape.d, TIR_NDIMS);
    }
    fputs("\"];\n", out);
}

static void dot_box(FILE *out, const PrintEnd *end)
{
    bool any = false;
    for (int i = 0; i < TIR_CDIMS; i++) {
        if (end->box[i] == 0)
            continue;
        fprintf(out, "%s%d", any ? "x" : "", (int)end->box[i]);
        any = true;
    }
    if (!any)
        fputc('0', out);
}

static void dot_edge(FILE *out, const Graph *g, const PrintIndex *ix, const Edge *e)
{
    PrintEnd s, t;
    print_edge_end(g, ix, e, true, &s);
    print_edge_end(g, ix, e, false, &t);
    if (!s.block)
        fprintf(out, "  \"b%d\" [shape=plaintext, label=\"%d (missing)\"];\n", (int)e->src,
                (int)e->src);
    if (!t.block)
        fprintf(out, "  \"b%d\" [shape=plaintext, label=\"%d (missing)\"];\n", (int)e->dst,
                (int)e->dst);
    fprintf(out, "  \"b%d\" -> \"b%d\" [label=\"e%d: ", (int)e->src, (int)e->dst, (int)e->id);
    if (s.iface && s.has_box)
        dot_box(out, &s);
    else if (t.iface && t.has_box)
        dot_box(out, &t);
    else
        fputc('?', out);
    for (uint32_t i = 0; i < e->n_re; i++)
        fprintf(out, "\\n%s", rt_info(e->re[i].type)->name);
    fputs("\"];\n", out);
}

static int id_cmp(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static void dot_open(FILE *out)
{
    fputs("digraph taskgraph {\n"
          "  node [fontname=\"Helvetica\", fontsize=10];\n"
          "  edge [fontname=\"Helvetica\", fontsize=9];\n",
          out);
}

Status print_dot_graph(const Graph *g, FILE *out, Diag *d)
{
    PrintIndex ix;
    Status st = print_index_build(g, &ix, d);
    if (st != ST_OK)
        return st;
    dot_open(out);
    for (uint32_t i = 0; i < g->n_blocks; i++)
        dot_node(out, g->blocks[i]);
    for (uint32_t i = 0; i < g->n_edges; i++)
        dot_edge(out, g, &ix, g->edges[i]);
    fputs("}\n", out);
    print_index_finish(&ix);
    return print_check_stream(out, d);
}

Status print_dot_block(const Graph *g, const Block *b, FILE *out, Diag *d)
{
    PrintIndex ix;
    Status st = print_index_build(g, &ix, d);
    if (st != ST_OK)
        return st;
    dot_open(out);
    dot_node(out, b);
    /* The neighbours, each once, in graph order. */
    size_t nn = 0;
    int32_t *near = NULL;
    if (g->n_edges && !(near = malloc((size_t)g->n_edges * sizeof *near))) {
        print_index_finish(&ix);
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    }
    for (uint32_t k = 0; k < g->n_edges; k++) {
        const Edge *e = g->edges[k];
        if (print_edge_touches(e, b))
            near[nn++] = e->src == b->id ? e->dst : e->src;
    }
    if (nn)
        qsort(near, nn, sizeof *near, id_cmp);
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        const Block *n = g->blocks[i];
        if (nn && n->id != b->id && graph_block(g, n->id) == n &&
            bsearch(&n->id, near, nn, sizeof *near, id_cmp))
            dot_node(out, n);
    }
    free(near);
    for (uint32_t i = 0; i < g->n_edges; i++)
        if (print_edge_touches(g->edges[i], b))
            dot_edge(out, g, &ix, g->edges[i]);
    fputs("}\n", out);
    print_index_finish(&ix);
    return print_check_stream(out, d);
}
