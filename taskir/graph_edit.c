/* graph_edit.c: rewriting a Graph (graph.h, "Rewriting"): box interfaces, removing interfaces,
 * edges and blocks, retargeting edge ends, cloning blocks, and data views. graph_connect (the
 * whole-cluster box) is here beside graph_connect_box, so graph.c never calls back into this
 * file. Removal marks; graph_compact (graph.c, beside the id index it rebuilds) ends the
 * change set. */
#include "taskir/graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Gives f the box pos/size in a cluster of dims cd, unless it covers the whole cluster. */
static void set_box(Iface *f, const int32_t cd[TIR_CDIMS], const int32_t *pos,
                    const int32_t *size)
{
    if (!pos || !size)
        return;
    bool whole = true;
    for (int i = 0; i < TIR_CDIMS; i++)
        if (cd[i] > 0 && (pos[i] != 0 || size[i] != cd[i]))
            whole = false;
    if (whole)
        return;
    f->has_pos = f->has_size = true;
    for (int i = 0; i < TIR_CDIMS; i++) {
        f->pos.d[i] = cd[i] > 0 ? pos[i] : 0;
        f->size.d[i] = cd[i] > 0 ? size[i] : 0;
    }
}

/* Creates clusters of b up to index idx on one side; false when out of memory. */
static bool reach_cluster(Graph *g, Block *b, bool input, uint32_t idx)
{
    while ((input ? b->n_in : b->n_out) <= idx)
        if (!(input ? blk_add_input(g, b) : blk_add_output(g, b)))
            return false;
    return true;
}

Edge *graph_connect_box(Graph *g, Block *src, uint32_t out_idx, const int32_t *spos,
                        const int32_t *ssize, Block *dst, uint32_t in_idx,
                        const int32_t *dpos, const int32_t *dsize)
{
    if (!src || !dst || !reach_cluster(g, src, false, out_idx) ||
        !reach_cluster(g, dst, true, in_idx))
        return NULL;
    Edge *e = graph_add_edge(g, GRAPH_AUTO_ID, src->id, dst->id);
    if (!e)
        return NULL;
    int32_t cd[TIR_CDIMS];
    Iface *f = cluster_add_iface(g, &src->out[out_idx], e->id);
    if (!f)
        return NULL;
    if (blk_cluster_dims(src, false, out_idx, cd))
        set_box(f, cd, spos, ssize);
    if (!(f = cluster_add_iface(g, &dst->in[in_idx], e->id)))
        return NULL;
    if (blk_cluster_dims(dst, true, in_idx, cd))
        set_box(f, cd, dpos, dsize);
    return e;
}

Edge *graph_connect(Graph *g, Block *src, uint32_t out_idx, Block *dst, uint32_t in_idx)
{
    return graph_connect_box(g, src, out_idx, NULL, NULL, dst, in_idx, NULL, NULL);
}

void cluster_remove_iface(Cluster *c, uint32_t idx)
{
    if (idx >= c->n_ifaces)
        return;
    memmove(&c->ifaces[idx], &c->ifaces[idx + 1], (c->n_ifaces - idx - 1) * sizeof *c->ifaces);
    c->n_ifaces--;
}

/* Removes every interface naming edge id from one side of b. */
static void drop_ifaces(Block *b, bool input, int32_t id)
{
    if (!b)
        return;
    Cluster *cs = input ? b->in : b->out;
    uint32_t nc = input ? b->n_in : b->n_out;
    for (uint32_t c = 0; c < nc; c++)
        for (uint32_t i = cs[c].n_ifaces; i-- > 0;)
            if (cs[c].ifaces[i].edge_id == id)
                cluster_remove_iface(&cs[c], i);
}

void graph_remove_edge(Graph *g, Edge *e)
{
    if (e->removed)
        return;
    drop_ifaces(graph_block(g, e->src), false, e->id);
    drop_ifaces(graph_block(g, e->dst), true, e->id);
    e->removed = true;
}

void graph_remove_block(Graph *g, Block *b)
{
    for (uint32_t i = 0; i < g->n_edges; i++) {
        Edge *e = g->edges[i];
        if (e->src == b->id || e->dst == b->id)
            graph_remove_edge(g, e);
    }
    b->removed = true;
}

/* Drops, from every cluster of b, the interfaces whose edge is removed or gone. */
static void drop_removed(Graph *g, Block *b)
{
    for (int side = 0; side < 2; side++) {
        Cluster *cs = side ? b->out : b->in;
        uint32_t nc = side ? b->n_out : b->n_in;
        for (uint32_t c = 0; c < nc; c++) {
            uint32_t k = 0;
            for (uint32_t i = 0; i < cs[c].n_ifaces; i++)
                if (graph_edge(g, cs[c].ifaces[i].edge_id))
                    cs[c].ifaces[k++] = cs[c].ifaces[i];
            cs[c].n_ifaces = k;
        }
    }
}

static int ptr_cmp(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)*(Block *const *)a, y = (uintptr_t)*(Block *const *)b;
    return x < y ? -1 : x > y;
}

bool graph_remove_edges(Graph *g, Edge *const *es, size_t n)
{
    Block **bs = malloc((2 * n + 1) * sizeof *bs);
    if (!bs)
        return false;
    size_t nb = 0;
    for (size_t i = 0; i < n; i++) {
        if (es[i]->removed)
            continue;
        es[i]->removed = true;
        Block *s = graph_block(g, es[i]->src), *d = graph_block(g, es[i]->dst);
        if (s)
            bs[nb++] = s;
        if (d)
            bs[nb++] = d;
    }
    qsort(bs, nb, sizeof *bs, ptr_cmp);
    for (size_t i = 0; i < nb; i++)
        if (i == 0 || bs[i] != bs[i - 1])
            drop_removed(g, bs[i]);
    free(bs);
    return true;
}

Iface *graph_retarget_edge(Graph *g, Edge *e, bool src, Block *nb, uint32_t idx)
{
    Iface moved = {.edge_id = e->id};
    Block *old = graph_block(g, src ? e->src : e->dst);
    if (old) {
        Cluster *cs = src ? old->out : old->in;
        uint32_t nc = src ? old->n_out : old->n_in;
        bool found = false;
        for (uint32_t c = 0; c < nc && !found; c++)
            for (uint32_t i = 0; i < cs[c].n_ifaces && !found; i++)
                if (cs[c].ifaces[i].edge_id == e->id) {
                    moved = cs[c].ifaces[i];
                    cluster_remove_iface(&cs[c], i);
                    found = true;
                }
    }
    if (!reach_cluster(g, nb, !src, idx))
        return NULL;
    Iface *f = cluster_add_iface(g, src ? &nb->out[idx] : &nb->in[idx], e->id);
    if (!f)
        return NULL;
    *f = moved;
    if (src)
        e->src = nb->id;
    else
        e->dst = nb->id;
    return f;
}

/* Copies n clusters' shapes (no interfaces) into fresh clusters of b. */
static bool copy_clusters(Graph *g, Block *b, bool input, const Cluster *cs, uint32_t n)
{
    for (uint32_t c = 0; c < n; c++) {
        Cluster *nc = input ? blk_add_input(g, b) : blk_add_output(g, b);
        if (!nc)
            return false;
        nc->shape = cs[c].shape;
        nc->has_shape = cs[c].has_shape;
    }
    return true;
}

Block *graph_clone_block(Graph *g, const Block *b, const char *suffix)
{
    char base[32];
    const char *bn = b->name;
    if (!bn) {
        snprintf(base, sizeof base, "block%d", (int)b->id);
        bn = base;
    }
    size_t nl = strlen(bn), sl = strlen(suffix);
    char *name = arena_alloc(g->arena, nl + sl + 2, 1);
    if (!name)
        return NULL;
    memcpy(name, bn, nl);
    name[nl] = '/';
    memcpy(name + nl + 1, suffix, sl + 1);
    Block *c = graph_add_block(g, b->type, GRAPH_AUTO_ID, NULL);
    if (!c)
        return NULL;
    int32_t id = c->id;
    *c = *b;
    c->id = id;
    c->name = name;
    c->in = c->out = NULL;
    c->n_in = c->cap_in = c->n_out = c->cap_out = 0;
    c->removed = false;
    c->attrs = NULL;
    c->n_attrs = c->cap_attrs = 0;
    if (b->n_attrs) {
        if (!(c->attrs = arena_grow(g->arena, b->attrs, b->n_attrs, b->n_attrs,
                                    sizeof *b->attrs)))
            return NULL;
        c->n_attrs = c->cap_attrs = b->n_attrs;
    }
    if (!copy_clusters(g, c, true, b->in, b->n_in) ||
        !copy_clusters(g, c, false, b->out, b->n_out))
        return NULL;
    return c;
}

bool blk_set_data_view(Graph *g, Block *b, const Tensor *parent, uint32_t start,
                       uint32_t count)
{
    if (!parent->n_dims || parent->dims[0] < 0 || start > (uint32_t)parent->dims[0] ||
        count > (uint32_t)parent->dims[0] - start)
        return false;
    int64_t vol = tir_volume(parent->dims, (int)parent->n_dims);
    int64_t row = tir_volume(parent->dims + 1, (int)parent->n_dims - 1);
    if (vol < 0 || row < 0)
        return false;
    for (uint32_t i = 0; i < parent->n_dims; i++)
        if (parent->dims[i] == 0) /* tir_volume skips 0 dims: no rows to slice */
            return false;
    uint32_t have = parent->n_i32 ? parent->n_i32 : parent->n_u32 ? parent->n_u32
                                                                   : parent->n_f32;
    if ((int64_t)have != vol)
        return false;
    Tensor *t = arena_alloc(g->arena, 1, sizeof *t);
    if (!t)
        return false;
    *t = *parent;
    if (!(t->dims = arena_grow(g->arena, parent->dims, parent->n_dims, parent->n_dims,
                               sizeof *t->dims)))
        return false;
    t->dims[0] = (int32_t)count;
    uint32_t off = (uint32_t)(row * start), n = (uint32_t)(row * count);
    t->i32 = parent->n_i32 && !parent->i8 ? parent->i32 + off : NULL;
    t->i8 = parent->n_i32 && parent->i8 ? parent->i8 + off : NULL;
    t->n_i32 = parent->n_i32 ? n : 0;
    t->u32 = parent->n_u32 && !parent->n_i32 ? parent->u32 + off : NULL;
    t->n_u32 = t->u32 ? n : 0;
    t->f32 = parent->n_f32 && !parent->n_i32 && !parent->n_u32 ? parent->f32 + off : NULL;
    t->n_f32 = t->f32 ? n : 0;
    t->name = NULL;
    b->data = t;
    return true;
}
