/* verify.c: verify_graph and the graph-wide rules that need no pass of their own (duplicate block ids, placeholder blocks, socket ids, groups).
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
#include "taskir/verify_util.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* v->dups: the blocks that are not the block their id finds (an earlier block has the id),
 * by (id, position); the edge rules count their interfaces too. */
static void collect_dups(Verifier *v)
{
    const Graph *g = v->g;
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->n_blocks; i++)
        n += graph_block_pos(g, g->blocks[i]->id) != (long)i;
    if (!n)
        return;
    v->dups = malloc((size_t)n * sizeof *v->dups);
    if (!v->dups) {
        v->oom = true;
        return;
    }
    for (uint32_t i = 0; i < g->n_blocks; i++)
        if (graph_block_pos(g, g->blocks[i]->id) != (long)i)
            v->dups[v->n_dups++] = (VIdPos){g->blocks[i]->id, i};
    qsort(v->dups, v->n_dups, sizeof *v->dups, vfy_idpos_cmp);
}

/* io.socket, io.socket.dup: sorts the socket ids of each kind and reports repeats on the later
 * block (file order). */
static void check_sockets(Verifier *v)
{
    const Graph *g = v->g;
    VIdPos *s = malloc((g->n_blocks ? g->n_blocks : 1) * sizeof *s);
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
        qsort(s, n, sizeof *s, vfy_idpos_cmp);
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
    int64_t lo, hi;
    blk_input_range(b, &lo, &hi);
    if (b->has_model_range && b->type != BT_INPUT) {
        vfy_block(v, "io.model", b, "a range of admitted values belongs to an INPUT block");
        return;
    }
    if (b->has_model_range && lo > hi) {
        vfy_block(v, "io.model", b, "the model tensor's range %d .. %d leaves no value of the "
                  "block's precision", (int)b->model_lo, (int)b->model_hi);
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

/* Every block a group lists exists [group.block] and is listed once in all the groups
 * [group.dup]: a group is the mapper's unit, one core's share, so a block in two groups would
 * sit on two cores at once. */
static void check_groups(Verifier *v)
{
    const Graph *g = v->g;
    /* per block position: the index + 1 of the first group listing it (0: none yet) */
    uint32_t *first = g->n_groups ? calloc(g->n_blocks + 1, sizeof *first) : NULL;
    if (g->n_groups && !first) {
        v->oom = true;
        return;
    }
    for (uint32_t i = 0; i < g->n_groups; i++) {
        const Group *gr = &g->groups[i];
        char where[48];
        snprintf(where, sizeof where, "group %d", (int)gr->id);
        for (uint32_t k = 0; k < gr->n_block_ids; k++) {
            long pos = graph_block_pos(g, gr->block_ids[k]);
            if (pos < 0) {
                vfy_add(v, "group.block", where, "lists block %d, which does not exist",
                        (int)gr->block_ids[k]);
            } else if (first[pos] == i + 1) {
                vfy_add(v, "group.dup", where, "lists block %d twice", (int)gr->block_ids[k]);
            } else if (first[pos]) {
                vfy_add(v, "group.dup", where, "lists block %d, which group %d lists too; a "
                        "block belongs to one group at most", (int)gr->block_ids[k],
                        (int)g->groups[first[pos] - 1].id);
            } else {
                first[pos] = i + 1;
            }
        }
    }
    free(first);
}

Status verify_graph(const Graph *g, Diag *d)
{
    return verify_graph_opts(g, NULL, d);
}

Status verify_graph_opts(const Graph *g, const VerifyOptions *o, Diag *d)
{
    Verifier v = {.g = g, .d = d, .strict = o && o->strict};
    bool given = o && o->uses;
    if (given)
        v.uses = *o->uses; /* read only; the caller's to finish */
    else if (!graph_uses(g, &v.uses))
        v.oom = true;
    else
        collect_dups(&v);
    if (!v.oom)
        vfy_values_scan(&v, o ? o->threads : 1, o && o->threads > 1 ? o->pool : NULL);
    if (!v.oom) {
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
    free(v.dups);
    free(v.boxes);
    free(v.ext);
    if (!given)
        graph_uses_finish(&v.uses);
    if (v.oom)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory while verifying the graph");
    return v.found ? ST_LOGIC : ST_OK;
}
