/* verify_edge.c: the rules about edges (edge.id.dup, edge.endpoint, edge.refs, edge.pair,
 * edge.size, edge.volume, rearrange.* through rearrange_check) and the acyclicity of the
 * graph (graph.cycle).
 * The interfaces that name an edge come from the use index: those of the block its end's id
 * finds and, when later blocks have the same id (block.id.dup), theirs too, so that a
 * duplicated block still counts; blocks of no type or of the NULL type are not counted (the
 * verifier reads nothing else of them).
 *
 * The cycle check is Kahn's algorithm over block positions (no recursion: graphs may have
 * millions of blocks). The blocks it cannot remove each keep a predecessor it could not
 * remove either, so walking predecessors from any of them must come back to a block already
 * seen on the same walk: that block is on a cycle. Every cycle a walk reaches is reported
 * once, naming one of its blocks and the path.
 */
#include "taskir/verify_impl.h"
#include "taskir/verify_util.h"

#include "taskir/rearrange.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "SW or SW2D": the block type names in a producers mask. */
static void mask_text(uint64_t mask, char *buf, size_t len)
{
    size_t at = 0;
    int n = 0, total = 0;
    buf[0] = '\0';
    for (int t = 0; t < BT_COUNT; t++)
        total += (mask >> t) & 1;
    for (int t = 0; t < BT_COUNT && at < len; t++) {
        if (!((mask >> t) & 1))
            continue;
        const char *sep = n == 0 ? "" : n == total - 1 ? " or " : ", ";
        at += (size_t)snprintf(buf + at, len - at, "%s%s", sep, bt_info((BlockType)t)->name);
        n++;
    }
    if (!total)
        snprintf(buf, len, "no block");
}

/* Adds the interfaces of the block at position pos naming edge e from side input to *n, and
 * the first of them to *first when it has none yet. */
static void count_at(const Verifier *v, uint32_t pos, bool input, const Edge *e, uint32_t *n,
                     VEnd *first)
{
    const Block *b = v->g->blocks[pos];
    if (!vfy_type_ok(b) || bt_info(b->type)->kind == BK_NULL)
        return;
    const IfaceUse *f = uses_find(&v->uses, pos, input, e->id);
    if (!f)
        return;
    if (!first->b)
        *first = (VEnd){b, f->cluster, f->iface};
    const BlockUses *bu = &v->uses.blocks[pos];
    const IfaceUse *last = input ? bu->in + bu->n_in : bu->out + bu->n_out;
    for (; f < last && f->edge_id == e->id && *n < UINT32_MAX; f++)
        ++*n;
}

/* The interfaces naming edge e on the blocks with the id of its dst (input true) or src end
 * (pos: the position of the first of them, or -1), in position order: how many, and the first
 * in *first (b NULL: none). */
static uint32_t end_refs(const Verifier *v, const Edge *e, bool input, long pos, VEnd *first)
{
    int32_t id = input ? e->dst : e->src;
    uint32_t n = 0;
    *first = (VEnd){0};
    if (pos >= 0)
        count_at(v, (uint32_t)pos, input, e, &n, first);
    uint32_t lo = 0, hi = v->n_dups;
    while (lo < hi) { /* the first duplicate with this id */
        uint32_t mid = lo + (hi - lo) / 2;
        if (v->dups[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < v->n_dups && v->dups[lo].id == id; lo++)
        count_at(v, v->dups[lo].pos, input, e, &n, first);
    return n;
}

/* The box sizes of one end (the whole cluster where the interface gives no size; 0 in an
 * unused dim); false when the cluster dims are unknown or the box leaves the cluster
 * (reported elsewhere). */
static bool end_sizes(const VEnd *end, bool input, int64_t size[TIR_CDIMS])
{
    int32_t cd[TIR_CDIMS];
    if (!end->b || !vfy_cluster_dims(end->b, input, end->cl, cd))
        return false;
    const Cluster *c = input ? &end->b->in[end->cl] : &end->b->out[end->cl];
    int64_t pos[TIR_CDIMS];
    char why[160];
    return vfy_iface_box(cd, &c->ifaces[end->fi], pos, size, why, sizeof why);
}

/* rearrange.*: the parameters of every rearrangement step decode for the source box and the
 * chain ends at the destination box's volume (rearrange_check, shared with the simulator).
 * Its end and volume findings repeat edge.endpoint/edge.refs/edge.volume and are left out
 * where those rules already speak. */
static void check_rearrange(Verifier *v, const Edge *e, bool keeps)
{
    Diag scratch;
    diag_init(&scratch, NULL);
    if (rearrange_check(v->g, &v->uses, e, &scratch) != ST_OK) {
        for (size_t i = 0; i < scratch.n; i++) {
            const DiagEntry *f = &scratch.entries[i];
            if (strcmp(f->rule, "rearrange.ends") == 0 ||
                (keeps && strcmp(f->rule, "rearrange.volume") == 0))
                continue;
            vfy_edge(v, f->rule, e->id, "%s", f->what ? f->what : "");
        }
    }
    if (scratch.oom || scratch.worst == ST_RUNTIME)
        v->oom = true;
    diag_finish(&scratch);
}

/* edge.size / edge.volume between the two ends of edge e. */
static void check_sizes(Verifier *v, const Edge *e, const VEnd *src, const VEnd *dst)
{
    bool identity = true, keeps = true;
    for (uint32_t i = 0; i < e->n_re; i++) {
        const RearrangeTypeInfo *ri = rt_info(e->re[i].type);
        if (e->re[i].type != RT_IDENTITY)
            identity = false;
        if (!ri || !ri->keeps_volume)
            keeps = false;
    }
    int64_t s[TIR_CDIMS], d[TIR_CDIMS];
    if (!end_sizes(src, false, s) || !end_sizes(dst, true, d))
        return;
    if (!identity)
        check_rearrange(v, e, keeps);
    if (!identity && !keeps)
        return; /* the rearrangement's parameters define the sizes (docs/semantics.md) */
    int64_t s0[TIR_CDIMS], d0[TIR_CDIMS]; /* as given, for messages */
    memcpy(s0, s, sizeof s0);
    memcpy(d0, d, sizeof d0);
    bool same = true;
    for (int i = 0; i < TIR_CDIMS; i++) {
        s[i] = s[i] ? s[i] : 1; /* an unused dim has extent 1 */
        d[i] = d[i] ? d[i] : 1;
        same = same && s[i] == d[i];
    }
    if (same)
        return;
    char st[160], dt[160];
    vfy_dims_text(s0, st, sizeof st);
    vfy_dims_text(d0, dt, sizeof dt);
    if (identity && verify_size_culprit(v, e, src, dst, s0, d0))
        return;
    if (identity) {
        vfy_edge(v, "edge.size", e->id,
                 "the src box (%s) and the dst box (%s) differ; without a rearrangement they "
                 "must be equal",
                 st, dt);
        return;
    }
    int64_t vs = 1, vd = 1;
    for (int i = 0; i < TIR_CDIMS; i++) {
        vs *= s[i]; /* boxes inside clusters of checked dims: each factor < 2^31, but the */
        vd *= d[i]; /* product of six may not fit; compare only when both stay small */
        if (vs > VFY_MAX_VOLUME || vd > VFY_MAX_VOLUME)
            return; /* limit.volume */
    }
    if (vs != vd)
        vfy_edge(v, "edge.volume", e->id,
                 "the src box (%s) holds %" PRId64 " elements, the dst box (%s) %" PRId64
                 "; its rearrangement keeps the volume",
                 st, vs, dt, vd);
}

/* edge.pair: the producer's type must be in the consumer cluster role's producers mask. */
static void check_pair(Verifier *v, const Edge *e, const VEnd *end, const Block *src)
{
    if (!end->b || !vfy_type_ok(src))
        return;
    const ClusterSpec *spec = blk_in_spec(end->b, end->cl);
    if (!spec || (spec->producers >> src->type) & 1)
        return;
    char allowed[256];
    mask_text(spec->producers, allowed, sizeof allowed);
    vfy_block_edge(v, "edge.pair", end->b, e->id,
                   "input cluster %" PRIu32 " ('%s') of %s takes %s, not %s (edge %d from "
                   "block %d)",
                   end->cl, spec->role, bt_info(end->b->type)->name, allowed,
                   bt_info(src->type)->name, (int)e->id, (int)src->id);
}

void verify_edges(Verifier *v)
{
    const Graph *g = v->g;
    for (uint32_t p = 0; p < g->n_edges; p++) {
        const Edge *e = g->edges[p];
        long first = graph_edge_pos(g, e->id);
        if (first != (long)p) {
            vfy_edge(v, "edge.id.dup", e->id,
                     "edge id %d is also the id of the edge at position %ld", (int)e->id, first);
            continue; /* interfaces cannot name this one: the earlier edge takes its id */
        }
        long sp = graph_block_pos(g, e->src), dp = graph_block_pos(g, e->dst);
        const Block *src = sp < 0 ? NULL : g->blocks[sp], *dst = dp < 0 ? NULL : g->blocks[dp];
        if (!src)
            vfy_edge(v, "edge.endpoint", e->id, "src block %d does not exist", (int)e->src);
        if (!dst)
            vfy_edge(v, "edge.endpoint", e->id, "dst block %d does not exist", (int)e->dst);
        VEnd se, de;
        uint32_t out_refs = end_refs(v, e, false, sp, &se);
        uint32_t in_refs = end_refs(v, e, true, dp, &de);
        if (out_refs != 1 || in_refs != 1)
            vfy_edge(v, "edge.refs", e->id,
                     "is named by %" PRIu32 " output interfaces of its src block %d and %" PRIu32
                     " input interfaces of its dst block %d; it needs exactly one of each",
                     out_refs, (int)e->src, in_refs, (int)e->dst);
        if (src)
            check_pair(v, e, &de, src);
        check_sizes(v, e, &se, &de);
    }
}

void verify_cycles(Verifier *v)
{
    const Graph *g = v->g;
    uint32_t n = g->n_blocks, m = g->n_edges;
    if (!n || !m)
        return;
    uint32_t *indeg = calloc(n, sizeof *indeg);
    uint32_t *start = calloc((size_t)n + 1, sizeof *start);
    uint32_t *adj = malloc((size_t)m * sizeof *adj);
    uint32_t *queue = malloc((size_t)n * sizeof *queue);
    uint32_t *stamp = calloc(n, sizeof *stamp);
    uint32_t *esrc = malloc((size_t)m * sizeof *esrc), *edst = malloc((size_t)m * sizeof *edst);
    if (!indeg || !start || !adj || !queue || !stamp || !esrc || !edst) {
        v->oom = true;
        goto out;
    }
    /* CSR adjacency over the edges whose two blocks exist */
    for (uint32_t i = 0; i < m; i++) {
        long s = graph_block_pos(g, g->edges[i]->src), t = graph_block_pos(g, g->edges[i]->dst);
        esrc[i] = edst[i] = UINT32_MAX;
        if (s >= 0 && t >= 0) {
            esrc[i] = (uint32_t)s;
            edst[i] = (uint32_t)t;
            start[s + 1]++;
            indeg[t]++;
        }
    }
    for (uint32_t i = 0; i < n; i++)
        start[i + 1] += start[i];
    uint32_t *fill = queue; /* borrowed before the queue is used */
    memcpy(fill, start, (size_t)n * sizeof *fill);
    for (uint32_t i = 0; i < m; i++)
        if (esrc[i] != UINT32_MAX)
            adj[fill[esrc[i]]++] = edst[i];
    /* Kahn: removed blocks get stamp UINT32_MAX */
    uint32_t head = 0, tail = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!indeg[i])
            queue[tail++] = i;
    while (head < tail) {
        uint32_t u = queue[head++];
        stamp[u] = UINT32_MAX;
        for (uint32_t k = start[u]; k < start[u + 1]; k++)
            if (!--indeg[adj[k]])
                queue[tail++] = adj[k];
    }
    if (tail == n)
        goto out;
    /* one remaining predecessor for each remaining block (queue is free again) */
    uint32_t *pred = queue;
    for (uint32_t u = 0; u < n; u++) {
        if (stamp[u] == UINT32_MAX)
            continue;
        for (uint32_t k = start[u]; k < start[u + 1]; k++)
            if (stamp[adj[k]] != UINT32_MAX)
                pred[adj[k]] = u;
    }
    for (uint32_t s = 0; s < n; s++) {
        if (stamp[s])
            continue;
        uint32_t walk = s + 1, u = s;
        while (!stamp[u]) {
            stamp[u] = walk;
            u = pred[u];
        }
        if (stamp[u] != walk)
            continue; /* joined an earlier walk: its cycle is reported */
        /* u is on a new cycle: collect it backwards (into indeg, free now), print forwards */
        uint32_t len = 0, x = u;
        do {
            indeg[len++] = x;
            x = pred[x];
        } while (x != u && len < n);
        char path[512];
        size_t at = 0;
        path[0] = '\0';
        uint32_t shown = len < 8 ? len : 8;
        for (uint32_t i = 0; i < shown && at < sizeof path; i++) {
            uint32_t b = indeg[(len - i) % len]; /* u, then its successor on the cycle, ... */
            at += (size_t)snprintf(path + at, sizeof path - at, "%s%d", i ? " -> " : "",
                                   (int)g->blocks[b]->id);
        }
        if (at < sizeof path)
            snprintf(path + at, sizeof path - at, "%s%d", len > shown ? " -> ... -> " : " -> ",
                     (int)g->blocks[u]->id);
        vfy_block(v, "graph.cycle", g->blocks[u], "is on a cycle of %" PRIu32 " blocks: %s", len,
                  path);
    }
out:
    free(indeg);
    free(start);
    free(adj);
    free(queue);
    free(stamp);
    free(esrc);
    free(edst);
}
