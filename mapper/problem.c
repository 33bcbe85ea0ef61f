/* problem.c: the mapping problem of a graph (docs/mapper.md, "Algorithm").
 *
 * Clusters: blocks that must sit on one core. A compute block shares its core with every
 * storage block it reads (CHIP.md §2): a storage block read by one compute block joins it;
 * the graph's groups (the group pass) join their members; a storage block that no compute
 * block reads (an output) joins the block that writes it (of several, over the receive
 * area: one that writes it straight, else none, out_home). Union-find over block positions;
 * clusters are numbered by their first block, so the result does not depend on anything but
 * the graph. Copies: a storage block read by compute blocks of several clusters has a copy
 * in each (its home: its own cluster, or its first reader's) holding the part that cluster's
 * readers read (the bounding box of their interfaces), filled by the same edges (each writer
 * sends a copy what of its box the copy holds; multicast, route.c) or held from the start
 * (weights): the split pass's pieces read boxes of a shared input so.
 * Memory: every storage block as bbox_storage_bytes lays it out (a feature map in the pitch
 * of the layout table, taskir/layout.h, which the code generator lays out too), every
 * compute block's output buffer (chip_buffer_held) unless all it writes is storage of its
 * own cluster (the buffer is then that storage; schedule.c drops it too when the readers'
 * clusters join its core), the area a CADD adding one box to itself reads (the box n
 * times), the int32 area of an Axon writing an 8-bit map and a result's send areas in
 * other precisions (layout_work_bytes), split into static data (weights, biases, tables: what holds
 * its own data) and the rest.
 * Transfers: every edge compute -> storage (the router when the two land on different cores),
 * INPUT -> storage and storage -> OUTPUT, with its real byte count: the volume of the
 * interface box at the storage end times the storage precision's bits, rounded up to bytes.
 * Order: the compute blocks in a topological order of "a writes a storage block b reads"
 * (Kahn, ties in graph order); a cycle is a logic error [map.cycle].
 */
#include "mapper/plan.h"

#include "taskir/blockbox.h"
#include "taskir/diag_block.h"
#include "taskir/lanes.h"
#include "taskir/layout.h"
#include "taskir/layout_buf.h"

#include <stdlib.h>
#include <string.h>

static uint32_t uf_find(uint32_t *par, uint32_t x)
{
    while (par[x] != x) {
        par[x] = par[par[x]];
        x = par[x];
    }
    return x;
}

static void uf_union(uint32_t *par, uint32_t a, uint32_t b)
{
    a = uf_find(par, a);
    b = uf_find(par, b);
    if (a != b) /* the smaller position is the root: deterministic */
        par[a > b ? a : b] = a < b ? a : b;
}

static BlockKind kind_of(const Block *b)
{
    return bt_info(b->type)->kind;
}

/* Does storage block b hold static data (weights, biases, tables) rather than data that
 * flows through the step? */
bool map_is_static(const Block *b, const BlockUses *bu)
{
    switch (b->type) {
    case BT_SW: case BT_SW2D: case BT_SWFC: case BT_SB:
        return true;
    default:
        return b->data && bu->n_in_edges == 0;
    }
}

/* The compute blocks reading storage block pos: their count, into out[] when not NULL (in
 * edge order, each once). Returns the position of the only reader, -1 when there are none
 * or several. */
static long readers(const MapPlan *p, uint32_t pos, uint32_t *count)
{
    const Graph *g = p->g;
    const BlockUses *bu = &p->uses.blocks[pos];
    long only = -1;
    uint32_t n = 0;
    for (uint32_t k = 0; k < bu->n_out_edges; k++) {
        long t = graph_block_pos(g, g->edges[bu->out_edges[k]]->dst);
        if (t < 0 || kind_of(g->blocks[t]) != BK_COMPUTE || t == only)
            continue;
        n++;
        only = t;
    }
    if (count)
        *count = n;
    return n == 1 ? only : -1;
}

/* The copies of every storage block: its home cluster first, then each other cluster of a
 * compute block reading it, in edge order; each copy holds the part its cluster's readers
 * read (the bounding box of their interfaces; the whole block when none reads it there). */
static Status build_reps(MapPlan *p, Diag *d)
{
    const Graph *g = p->g;
    uint32_t n = g->n_blocks;
    p->rep_first = calloc(n ? n : 1, sizeof *p->rep_first);
    p->rep_n = calloc(n ? n : 1, sizeof *p->rep_n);
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        if (kind_of(g->blocks[i]) == BK_STORAGE)
            total += 1 + p->uses.blocks[i].n_out_edges;
    p->reps = total < UINT32_MAX ? malloc((size_t)(total ? total : 1) * sizeof *p->reps) : NULL;
    p->rep_box = p->reps ? malloc((size_t)(total ? total : 1) * sizeof *p->rep_box) : NULL;
    p->rep_bytes = p->reps ? calloc((size_t)(total ? total : 1), sizeof *p->rep_bytes) : NULL;
    if (!p->rep_first || !p->rep_n || !p->reps || !p->rep_box || !p->rep_bytes)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory building clusters");
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (kind_of(g->blocks[i]) != BK_STORAGE)
            continue;
        const BlockUses *bu = &p->uses.blocks[i];
        p->rep_first[i] = k;
        uint32_t home = p->cluster_of[i];
        p->reps[k++] = home;
        p->rep_n[i] = 1;
        for (uint32_t e = 0; e < bu->n_out_edges; e++) {
            long t = graph_block_pos(g, g->edges[bu->out_edges[e]]->dst);
            if (t < 0 || kind_of(g->blocks[t]) != BK_COMPUTE)
                continue;
            uint32_t c = p->cluster_of[t], j = p->rep_first[i];
            while (j < k && p->reps[j] != c)
                j++;
            if (j == k) {
                p->reps[k++] = c;
                p->rep_n[i]++;
            }
        }
        for (uint32_t r = p->rep_first[i]; r < k; r++) { /* what each copy holds */
            bool empty = true;
            for (uint32_t e = 0; e < bu->n_out_edges; e++) {
                const Edge *ed = g->edges[bu->out_edges[e]];
                long t = graph_block_pos(g, ed->dst);
                if (t < 0 || kind_of(g->blocks[t]) != BK_COMPUTE || p->cluster_of[t] != p->reps[r])
                    continue;
                MBox rd;
                bbox_of_iface(p->g, &p->uses, i, false, ed->id, &rd);
                bbox_union(&p->rep_box[r], &rd, &empty);
            }
            if (empty)
                bbox_full(g->blocks[i], &p->rep_box[r]);
        }
    }
    return ST_OK;
}

uint32_t map_rep_of(const MapPlan *p, uint32_t pos, uint32_t cluster)
{
    for (uint32_t r = 0; r < p->rep_n[pos]; r++)
        if (p->reps[p->rep_first[pos] + r] == cluster)
            return r;
    return 0;
}

/* Whether compute block w writes storage block s straight on w's core: each edge into s
 * without steps, carrying all of s's channels, one row or whole rows of s, at the place its
 * box has in w's result (the code generator's pieces, backend/emit_plan.c), or w is a
 * P05 / P25 (which may write a run of s's pixels, backend/emit_runwrite.c). Another
 * writer's primitive writes a buffer that its router gathers into s on that core, which
 * then stays in the receive area whole (backend/emit_plan.c, EOut.gather). */
static bool writes_rows(const MapPlan *p, uint32_t w, uint32_t s)
{
    const Graph *g = p->g;
    BlockType t = g->blocks[w]->type;
    if (t == BT_CCMPB || t == BT_CCMPS)
        return true;
    const BlockUses *bu = &p->uses.blocks[s];
    MBox whole;
    bbox_full(g->blocks[s], &whole);
    for (uint32_t k = 0; k < bu->n_in_edges; k++) {
        const Edge *ed = g->edges[bu->in_edges[k]];
        if (graph_block_pos(g, ed->src) != (long)w)
            continue;
        if (ed->n_re)
            return false;
        MBox b, from;
        bbox_of_iface(g, &p->uses, s, true, ed->id, &b);
        bbox_of_iface(g, &p->uses, w, false, ed->id, &from);
        bool one_row = b.hi[D_Y] - b.lo[D_Y] == 1;
        for (int dd = 0; dd < TIR_NDIMS; dd++)
            if (dd != D_Y && (dd != D_X || !one_row) &&
                (b.lo[dd] != whole.lo[dd] || b.hi[dd] != whole.hi[dd]))
                return false;
        for (int dd = D_Y; dd <= D_X; dd++)
            if (b.lo[dd] != from.lo[dd] || b.hi[dd] != from.hi[dd])
                return false;
    }
    return true;
}

/* Whether storage block s comes in at most 4 column slices, one a writer (every edge into
 * it brings all its rows and channels, no two from one block): the code generator merges
 * those on a writer's core, the others' landing there (backend/emit_merge.c, MERGE_MAX). */
static bool columns(const MapPlan *p, uint32_t s)
{
    const BlockUses *bu = &p->uses.blocks[s];
    MBox whole;
    bbox_full(p->g->blocks[s], &whole);
    if (bu->n_in_edges > 4)
        return false;
    for (uint32_t k = 0; k < bu->n_in_edges; k++) {
        for (uint32_t j = 0; j < k; j++)
            if (p->g->edges[bu->in_edges[j]]->src == p->g->edges[bu->in_edges[k]]->src)
                return false;
        MBox b;
        bbox_of_iface(p->g, &p->uses, s, true, p->g->edges[bu->in_edges[k]]->id, &b);
        for (int dd = 0; dd < TIR_NDIMS; dd++)
            if (dd != D_X && (b.lo[dd] != whole.lo[dd] || b.hi[dd] != whole.hi[dd]))
                return false;
    }
    return true;
}

/* The compute block storage block s, which no compute block reads (an output), joins: its
 * first writer; but when s is larger than a phase's receive budget and several compute
 * blocks write it in pieces other than column slices (which the code generator merges on
 * a writer's core), the first that writes it straight (writes_rows), else none (-1): on
 * a core that gathers its pieces the code generator would keep s in the receive area whole,
 * which no phase holds, where on a core of its own every piece arrives by the router in
 * parts, each moved out in Soma2 of its phase (backend/emit_spread.c). */
static long out_home(const MapPlan *p, uint32_t s)
{
    const Graph *g = p->g;
    const BlockUses *bu = &p->uses.blocks[s];
    long first = -1;
    bool several = false;
    for (uint32_t k = 0; k < bu->n_in_edges; k++) {
        long w = graph_block_pos(g, g->edges[bu->in_edges[k]]->src);
        if (w < 0 || kind_of(g->blocks[w]) != BK_COMPUTE)
            continue;
        if (first < 0)
            first = w;
        several |= w != first;
    }
    int64_t bytes = first >= 0 && several ? bbox_storage_bytes(p->chip, g, &p->uses, s) : 0;
    if (bytes >= 0 && (bytes <= (int64_t)p->chip->recv_bytes_per_phase || columns(p, s)))
        return first;
    for (uint32_t k = 0; k < bu->n_in_edges; k++) {
        long w = graph_block_pos(g, g->edges[bu->in_edges[k]]->src);
        if (w >= 0 && kind_of(g->blocks[w]) == BK_COMPUTE && writes_rows(p, (uint32_t)w, s))
            return w;
    }
    return -1;
}

static Status build_clusters(MapPlan *p, Diag *d)
{
    const Graph *g = p->g;
    uint32_t n = g->n_blocks;
    uint32_t *par = malloc((n ? n : 1) * sizeof *par);
    p->cluster_of = malloc((n ? n : 1) * sizeof *p->cluster_of);
    if (!par || !p->cluster_of) {
        free(par);
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory building clusters");
    }
    for (uint32_t i = 0; i < n; i++)
        par[i] = i;
    for (uint32_t i = 0; i < n; i++) { /* storage read by one compute block joins it */
        if (kind_of(g->blocks[i]) != BK_STORAGE)
            continue;
        long reader = readers(p, i, NULL);
        if (reader >= 0)
            uf_union(par, i, (uint32_t)reader);
    }
    for (uint32_t i = 0; i < g->n_groups; i++) {
        const Group *gr = &g->groups[i];
        long first = -1;
        for (uint32_t k = 0; k < gr->n_block_ids; k++) {
            long pos = graph_block_pos(g, gr->block_ids[k]);
            if (pos < 0 || kind_of(g->blocks[pos]) == BK_IO)
                continue;
            if (first < 0)
                first = pos;
            else
                uf_union(par, (uint32_t)first, (uint32_t)pos);
        }
    }
    /* storage that no compute block reads joins its writer (over the receive area and
     * written in pieces: one that writes whole rows of it, else none) */
    for (uint32_t i = 0; i < n; i++) {
        const Block *b = g->blocks[i];
        const BlockUses *bu = &p->uses.blocks[i];
        if (kind_of(b) != BK_STORAGE)
            continue;
        bool read = false;
        for (uint32_t k = 0; k < bu->n_out_edges && !read; k++) {
            long t = graph_block_pos(g, g->edges[bu->out_edges[k]]->dst);
            read = t >= 0 && kind_of(g->blocks[t]) == BK_COMPUTE;
        }
        long s = read ? -1 : out_home(p, i);
        if (s >= 0)
            uf_union(par, (uint32_t)s, i);
    }
    /* dense ids in order of first block */
    uint32_t *id = malloc((n ? n : 1) * sizeof *id);
    if (!id) {
        free(par);
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory building clusters");
    }
    uint32_t nc = 0;
    for (uint32_t i = 0; i < n; i++) {
        id[i] = MAP_NONE;
        p->cluster_of[i] = MAP_NONE;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (kind_of(g->blocks[i]) != BK_STORAGE && kind_of(g->blocks[i]) != BK_COMPUTE)
            continue;
        uint32_t r = uf_find(par, i);
        if (r == i && kind_of(g->blocks[i]) == BK_STORAGE) {
            /* a storage block alone: several readers and no group, its home is the first
             * reader's cluster (its copies are made in build_reps) */
            uint32_t cnt;
            readers(p, i, &cnt);
            const BlockUses *bu = &p->uses.blocks[i];
            for (uint32_t k = 0; cnt > 1 && k < bu->n_out_edges; k++) {
                long t = graph_block_pos(g, g->edges[bu->out_edges[k]]->dst);
                if (t >= 0 && kind_of(g->blocks[t]) == BK_COMPUTE) {
                    r = uf_find(par, (uint32_t)t);
                    break;
                }
            }
        }
        if (id[r] == MAP_NONE)
            id[r] = nc++;
        p->cluster_of[i] = id[r];
    }
    free(par);
    free(id);
    p->clusters = calloc(nc ? nc : 1, sizeof *p->clusters);
    if (!p->clusters)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory building clusters");
    p->n_clusters = nc;
    Status st = build_reps(p, d);
    if (st != ST_OK)
        return st;
    for (uint32_t c = 0; c < nc; c++) {
        p->clusters[c].vcore = MAP_NONE;
        p->clusters[c].first_block = MAP_NONE;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t c = p->cluster_of[i];
        if (c == MAP_NONE)
            continue;
        MCluster *cl = &p->clusters[c];
        if (cl->first_block == MAP_NONE)
            cl->first_block = i;
        const Block *b = g->blocks[i];
        const BlockUses *bu = &p->uses.blocks[i];
        int64_t bytes;
        if (kind_of(b) == BK_COMPUTE) {
            bytes = chip_buffer_held(p->chip, g, &p->uses, i, NULL);
            int64_t work = layout_work_bytes(g, &p->uses, i);
            if (p->task_of[i] != MAP_NONE) {
                p->tasks[p->task_of[i]].out_bytes = bytes;
                p->tasks[p->task_of[i]].work_bytes = work;
            }
            bytes = bytes < 0 || work < 0 || bytes > INT64_MAX / 4 - work ? -1 : bytes + work;
        } else {
            bytes = bbox_storage_bytes(p->chip, g, &p->uses, i);
        }
        if (bytes < 0 || bytes > INT64_MAX / 4 - cl->mem_data - cl->mem_weight)
            return diag_block(d, ST_LOGIC, "map.mem.size", b,
                              "its memory size overflows");
        if (kind_of(b) == BK_COMPUTE) {
            cl->mem_data += bytes;
            continue;
        }
        MBox whole;
        bbox_full(b, &whole);
        for (uint32_t r = 0; r < p->rep_n[i]; r++) { /* every copy, the part it holds */
            MCluster *rc = &p->clusters[p->reps[p->rep_first[i] + r]];
            int64_t part = bbox_scale_bytes(bytes, &p->rep_box[p->rep_first[i] + r], &whole);
            if (part > INT64_MAX / 4 - rc->mem_data - rc->mem_weight)
                return diag_block(d, ST_LOGIC, "map.mem.size", b, "its memory size overflows");
            p->rep_bytes[p->rep_first[i] + r] = part;
            if (map_is_static(b, bu))
                rc->mem_weight += part;
            else
                rc->mem_data += part;
        }
    }
    return ST_OK;
}

static Status build_xfers(MapPlan *p, Diag *d)
{
    const Graph *g = p->g;
    uint64_t total = 0;
    for (uint32_t i = 0; i < g->n_edges; i++) {
        long t = graph_block_pos(g, g->edges[i]->dst);
        total += t >= 0 && p->rep_n[t] ? p->rep_n[t] : 1;
    }
    p->xfers = total < UINT32_MAX ? calloc((size_t)(total ? total : 1), sizeof *p->xfers) : NULL;
    p->xfer_of = malloc((g->n_edges ? g->n_edges : 1) * sizeof *p->xfer_of);
    if (!p->xfers || !p->xfer_of)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory listing transfers");
    for (uint32_t i = 0; i < g->n_edges; i++) {
        const Edge *e = g->edges[i];
        p->xfer_of[i] = MAP_NONE;
        long s = graph_block_pos(g, e->src), t = graph_block_pos(g, e->dst);
        if (s < 0 || t < 0)
            continue;
        BlockKind ks = kind_of(g->blocks[s]), kt = kind_of(g->blocks[t]);
        MXfer x = {.edge = i, .relay = MAP_NONE};
        if (ks == BK_COMPUTE && kt == BK_STORAGE) {
            x.kind = XF_CORE;
            x.src_task = p->task_of[s];
            x.store = (uint32_t)t;
        } else if (ks == BK_IO && kt == BK_STORAGE) {
            x.kind = XF_IN;
            x.src_task = MAP_NONE;
            x.store = (uint32_t)t;
        } else if (ks == BK_STORAGE && kt == BK_IO) {
            x.kind = XF_OUT;
            x.src_task = MAP_NONE;
            x.store = (uint32_t)s;
        } else {
            continue;
        }
        if (x.kind == XF_CORE && x.src_task == MAP_NONE)
            continue;
        /* into storage: the bytes it takes in the receiver's layout (a receive area holds
         * what arrives as its reader reads it, channels padded); out of chip: the values */
        x.bytes = x.kind == XF_OUT ? bbox_edge_bytes(p->g, &p->uses, e, true)
                                   : bbox_edge_layout_bytes(p->chip, p->g, &p->uses, e);
        if (x.bytes < 0)
            return diag_edge(d, ST_LOGIC, "map.mem.size", e->id, "its byte count overflows");
        p->xfer_of[i] = p->n_xfers;
        uint32_t copies = x.kind == XF_OUT ? 1 : p->rep_n[x.store];
        MBox wr;
        if (x.kind != XF_OUT)
            bbox_of_iface(p->g, &p->uses, x.store, true, e->id, &wr);
        int64_t all = x.bytes;
        for (uint32_t r = 0; r < copies; r++) { /* one per copy: what of it that copy holds */
            x.dst_cluster = p->reps[p->rep_first[x.store] + r];
            if (x.kind != XF_OUT) {
                MBox part = wr;
                bbox_inter(&part, &p->rep_box[p->rep_first[x.store] + r]);
                x.bytes = bbox_scale_bytes(all, &part, &wr);
                if (bbox_volume(&part) <= 0)
                    x.bytes = 0;
            }
            p->xfers[p->n_xfers++] = x;
        }
    }
    return ST_OK;
}

int map_each_in_xfer(const MapPlan *p, uint32_t t, int (*fn)(uint32_t xfer, void *arg),
                     void *arg)
{
    const Graph *g = p->g;
    const BlockUses *bu = &p->uses.blocks[p->tasks[t].pos];
    for (uint32_t k = 0; k < bu->n_in_edges; k++) {
        int32_t src = g->edges[bu->in_edges[k]]->src;
        long s = graph_block_pos(g, src);
        if (s < 0 || kind_of(g->blocks[s]) != BK_STORAGE)
            continue;
        uint32_t k0 = 0; /* a block read twice (CADD x + x) fills its copy once */
        while (k0 < k && g->edges[bu->in_edges[k0]]->src != src)
            k0++;
        if (k0 < k)
            continue;
        const BlockUses *su = &p->uses.blocks[s];
        uint32_t rep = map_rep_of(p, (uint32_t)s, p->tasks[t].cluster);
        for (uint32_t j = 0; j < su->n_in_edges; j++) {
            uint32_t x = p->xfer_of[su->in_edges[j]];
            int r = x == MAP_NONE ? 0 : fn(x + (p->xfers[x].kind == XF_OUT ? 0 : rep), arg);
            if (r)
                return r;
        }
    }
    return 0;
}

typedef struct CountIn {
    const MapPlan *p;
    uint32_t n;
} CountIn;

static int count_core_in(uint32_t x, void *arg)
{
    CountIn *c = arg;
    c->n += c->p->xfers[x].kind == XF_CORE;
    return 0;
}

/* Kahn's order of the tasks: t after a when a writes a storage block t reads. */
static Status build_order(MapPlan *p, Diag *d)
{
    const Graph *g = p->g;
    uint32_t n = p->n_tasks;
    uint32_t *indeg = calloc(n ? n : 1, sizeof *indeg);
    p->order = malloc((n ? n : 1) * sizeof *p->order);
    if (!indeg || !p->order) {
        free(indeg);
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory ordering blocks");
    }
    /* in-degree: for each task, the transfers from compute blocks into what it reads */
    for (uint32_t t = 0; t < n; t++) {
        CountIn c = {p, 0};
        map_each_in_xfer(p, t, count_core_in, &c);
        indeg[t] = c.n;
    }
    uint32_t head = 0, tail = 0;
    for (uint32_t t = 0; t < n; t++)
        if (!indeg[t])
            p->order[tail++] = t;
    while (head < tail) {
        uint32_t a = p->order[head++];
        const BlockUses *au = &p->uses.blocks[p->tasks[a].pos];
        for (uint32_t k = 0; k < au->n_out_edges; k++) {
            uint32_t x = p->xfer_of[au->out_edges[k]];
            if (x == MAP_NONE || p->xfers[x].kind != XF_CORE)
                continue;
            const BlockUses *su = &p->uses.blocks[p->xfers[x].store];
            for (uint32_t j = 0; j < su->n_out_edges; j++) {
                int32_t dst = g->edges[su->out_edges[j]]->dst;
                uint32_t j0 = 0; /* a reader of two edges (CADD x + x) counted it once */
                while (j0 < j && g->edges[su->out_edges[j0]]->dst != dst)
                    j0++;
                long c = graph_block_pos(g, dst);
                uint32_t t = c >= 0 && j0 == j ? p->task_of[c] : MAP_NONE;
                if (t != MAP_NONE && --indeg[t] == 0)
                    p->order[tail++] = t;
            }
        }
    }
    Status st = ST_OK;
    if (tail < n)
        for (uint32_t t = 0; t < n; t++)
            if (indeg[t]) {
                st = diag_block(d, ST_LOGIC, "map.cycle", g->blocks[p->tasks[t].pos],
                                "lies on a cycle of blocks: no schedule can run it");
                break;
            }
    free(indeg);
    return st;
}

/* The router phases of every edge's bytes (MapPlan.lanes_n, map_lanes_last): lanes_phases
 * counts all the byte-moved edges into a storage block, so once a block; and the bytes a
 * phase's part of each takes at most (MapPlan.lanes_heads, lanes_part_cap); and which are
 * runs of bytes (MapPlan.lanes_byte). */
static Status build_lanes(MapPlan *p, Diag *d)
{
    const Graph *g = p->g;
    p->lanes_n = malloc((g->n_edges ? g->n_edges : 1) * sizeof *p->lanes_n);
    p->lanes_heads = calloc(g->n_edges ? g->n_edges : 1, sizeof *p->lanes_heads);
    p->lanes_byte = malloc((g->n_edges ? g->n_edges : 1) * sizeof *p->lanes_byte);
    int32_t *per_block = calloc(g->n_blocks ? g->n_blocks : 1, sizeof *per_block);
    if (!p->lanes_n || !p->lanes_heads || !p->lanes_byte || !per_block) {
        free(per_block);
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory counting byte moves");
    }
    for (uint32_t i = 0; i < g->n_edges; i++) {
        const Edge *ed = g->edges[i];
        long t = graph_block_pos(g, ed->dst);
        p->lanes_n[i] = 1;
        p->lanes_byte[i] = lanes_bytes(g, &p->uses, ed);
        if (t < 0 || (!p->lanes_byte[i] && !lanes_pixel_runs(g, &p->uses, ed)))
            continue;
        if (!per_block[t])
            per_block[t] = lanes_phases(g, &p->uses, ed);
        p->lanes_n[i] = per_block[t];
        p->lanes_heads[i] = lanes_heads(g, &p->uses, ed);
    }
    free(per_block);
    return ST_OK;
}

/* Whether compute block pos is a Soma primitive writing storage of a wider precision than
 * its own (MTask.widens): a CCMPB's int8 result into an int32 map (test_diff_chain/
 * yolo_head's head_rs into prod/stage/in), which the router, moving bytes as they are, sends
 * from a send area a P06 widens the result into (backend/emit_sendbuf.c). */
static bool widens(const MapPlan *p, uint32_t pos)
{
    const Graph *g = p->g;
    const Block *b = g->blocks[pos];
    const BlockUses *bu = &p->uses.blocks[pos];
    if (!(layout_use_of(b->type, false) & LAYOUT_SOMA))
        return false;
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        long s = graph_block_pos(g, g->edges[bu->out_edges[j]]->dst);
        if (s >= 0 && kind_of(g->blocks[s]) == BK_STORAGE &&
            pr_info(blk_prec(g->blocks[s]))->bits > pr_info(blk_prec(b))->bits)
            return true;
    }
    return false;
}

/* Whether edge e is moved as bytes (lanes_bytes, lanes_moved: a rearranging writer's single
 * values) into storage of precision prec with fewer channels a pixel (pitch unit) than
 * unit, its writer's buffer's (layout_buffer_unit), as emit_lanearea.c's area takes them. */
static bool lanes_narrow(const MapPlan *p, uint32_t e, PrecisionId prec, int unit)
{
    const Graph *g = p->g;
    long s = graph_block_pos(g, g->edges[e]->dst);
    return s >= 0 && p->lanes_byte[e] && lanes_moved(g, &p->uses, g->edges[e]) &&
           kind_of(g->blocks[s]) == BK_STORAGE && blk_prec(g->blocks[s]) == prec &&
           layout_storage_unit(g, &p->uses, (uint32_t)s) < unit;
}

/* Whether compute block pos is a Soma primitive whose values moved so (lanes_narrow) take
 * more headers together (lanes_heads) than a router holds and go, the same box of its result,
 * to several storage blocks (MTask.lanes_area): runs of bytes go to no relaying chain, so
 * the spill (backend/emit_route_spill.c) cannot carry such a phase's excess on, and the code
 * generator sends them from a send area in the copies' pitch (backend/emit_lanearea.c),
 * which needs a Soma slot between the writer and its router
 * (test_diff_ops/cvm_precision_case_1__p_24_'s `op/abs/x0`..`x2`: 6930 headers, into eleven
 * blocks `op/bit1/in/x1/x0` alike). *out false when it is not; ST_RUNTIME out of memory. */
static Status lanes_area(MapPlan *p, uint32_t pos, bool *out)
{
    const Graph *g = p->g;
    const BlockUses *bu = &p->uses.blocks[pos];
    *out = false;
    if (!(layout_use_of(g->blocks[pos]->type, false) & LAYOUT_SOMA) || !bu->n_out_edges)
        return ST_OK;
    PrecisionId prec;
    int unit = layout_buffer_unit(g, &p->uses, pos, &prec);
    BlockBox *box = malloc(bu->n_out_edges * sizeof *box);
    bool *narrow = malloc(bu->n_out_edges * sizeof *narrow);
    if (!box || !narrow) {
        free(box);
        free(narrow);
        return ST_RUNTIME;
    }
    int64_t heads = 0;
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        narrow[j] = lanes_narrow(p, bu->out_edges[j], prec, unit);
        heads += narrow[j] ? p->lanes_heads[bu->out_edges[j]] : 0;
        if (narrow[j])
            bbox_of_iface(g, &p->uses, pos, false, g->edges[bu->out_edges[j]]->id, &box[j]);
    }
    for (uint32_t j = 0; heads > LANES_HEADS && j < bu->n_out_edges && !*out; j++)
        for (uint32_t k = 0; narrow[j] && k < j && !*out; k++)
            *out = narrow[k] && memcmp(&box[j], &box[k], sizeof box[j]) == 0;
    free(box);
    free(narrow);
    return ST_OK;
}

Status map_build_problem(MapPlan *p, Diag *d)
{
    Status st = build_clusters(p, d);
    if (st == ST_OK)
        st = build_xfers(p, d);
    if (st == ST_OK)
        st = build_lanes(p, d);
    if (st == ST_OK)
        st = build_order(p, d);
    for (uint32_t t = 0; st == ST_OK && t < p->n_tasks; t++) {
        p->tasks[t].cluster = p->cluster_of[p->tasks[t].pos];
        p->tasks[t].widens = widens(p, p->tasks[t].pos);
        if (lanes_area(p, p->tasks[t].pos, &p->tasks[t].lanes_area) != ST_OK)
            st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory weighing lanes moves");
    }
    /* an output buffer that only feeds storage of its own cluster is that storage */
    for (uint32_t i = 0; st == ST_OK && i < p->n_xfers; i++) {
        const MXfer *x = &p->xfers[i];
        if (x->kind == XF_CORE && x->dst_cluster != p->tasks[x->src_task].cluster)
            p->tasks[x->src_task].remote_out++;
    }
    for (uint32_t t = 0; st == ST_OK && t < p->n_tasks; t++)
        if (!p->tasks[t].remote_out)
            p->clusters[p->tasks[t].cluster].mem_data -= p->tasks[t].out_bytes;
    if (st == ST_OK && map_xfer_groups(p) != ST_OK)
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory grouping the transfers");
    return st;
}
